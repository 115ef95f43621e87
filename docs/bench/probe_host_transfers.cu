/* Probe: host <-> device copy rates for one solution vector of C5 (4,682,688 doubles, 37.5 MB)
 * from pageable memory (what dt_cuda_h2d/d2h were given), from pinned memory, and through a
 * pinned staging buffer (host memcpy + DMA). nvcc -O2 probe_host_transfers.cu -o probe */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(void) {
  const size_t n = 4682688, bytes = n * sizeof(double);
  double *dev, *pinned, *page = (double *)malloc(bytes), *fresh;
  cudaMalloc(&dev, bytes);
  cudaMallocHost(&pinned, bytes);
  memset(page, 1, bytes);
  memset(pinned, 1, bytes);
  cudaMemset(dev, 0, bytes);
  cudaDeviceSynchronize();
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now();
    cudaMemcpy(dev, page, bytes, cudaMemcpyHostToDevice);
    double t1 = now();
    cudaMemcpy(page, dev, bytes, cudaMemcpyDeviceToHost);
    double t2 = now();
    cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice);
    double t3 = now();
    cudaMemcpy(pinned, dev, bytes, cudaMemcpyDeviceToHost);
    double t4 = now();
    memcpy(pinned, page, bytes);
    cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice);
    double t5 = now();
    cudaMemcpy(pinned, dev, bytes, cudaMemcpyDeviceToHost);
    memcpy(page, pinned, bytes);
    double t6 = now();
    fresh = (double *)malloc(bytes); /* never touched: the first copy into it faults its pages in */
    double t7 = now();
    cudaMemcpy(fresh, dev, bytes, cudaMemcpyDeviceToHost);
    double t8 = now();
    free(fresh);
    printf("37.5 MB: pageable h2d %.2f ms d2h %.2f ms | pinned h2d %.2f d2h %.2f | staged h2d %.2f d2h %.2f "
           "| d2h into fresh malloc %.2f ms\n", 1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2),
           1e3 * (t4 - t3), 1e3 * (t5 - t4), 1e3 * (t6 - t5), 1e3 * (t8 - t7));
  }
  return 0;
}
