/* Probe: what touching fresh host memory costs (the first write to each page of a malloc'd
 * array faults it in), for one solution vector of C5 (37.5 MB): one thread, all threads
 * (OpenMP), with transparent huge pages requested (madvise), and pinned allocation through
 * CUDA. cc -O2 -fopenmp probe_host_pages.c -lcudart */
#include <cuda_runtime_api.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(void) {
  const size_t bytes = 4682688 * sizeof(double);
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char thp[128] = "?";
  if (f && fgets(thp, sizeof thp, f)) thp[strcspn(thp, "\n")] = 0;
  if (f) fclose(f);
  printf("THP: %s, %d OpenMP threads\n", thp, omp_get_max_threads());
  cudaFree(0);
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now();
    char *a = malloc(bytes);
    memset(a, 1, bytes); /* 1, not 0: malloc + memset 0 may become calloc */
    double t1 = now();
    char *b = malloc(bytes);
#pragma omp parallel for schedule(static)
    for (long k = 0; k < (long)(bytes >> 16); k++) memset(b + (k << 16), 1, 1 << 16);
    double t2 = now();
    char *c = NULL;
    if (posix_memalign((void **)&c, 1 << 21, bytes)) return 1;
    madvise(c, bytes, MADV_HUGEPAGE);
    memset(c, 1, bytes);
    double t3 = now();
    void *d = NULL;
    cudaMallocHost(&d, bytes);
    double t4 = now();
    memset(d, 1, bytes);
    double t5 = now();
    printf("37.5 MB fresh: 1 thread %.2f ms | all threads %.2f ms | huge pages %.2f ms | cudaMallocHost %.2f ms "
           "then memset %.2f ms\n", 1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2), 1e3 * (t4 - t3),
           1e3 * (t5 - t4));
    free(a), free(b), free(c), cudaFreeHost(d);
  }
  return 0;
}
