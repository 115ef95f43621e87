#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime.h>
__global__ void k_fill(double *p, int n, double v) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v; }
__global__ void k_bad(double *p) { p[threadIdx.x * 1000003L] = 1.0; }
#define R(x) do { cudaError_t e_ = (x); printf("%-40s -> %d %s\n", #x, (int)e_, cudaGetErrorString(e_)); fflush(stdout); } while (0)
int main(int argc, char **argv) {
  double *a = 0, h = 0;
  int mode = -1;
  R(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
  printf("compute mode %d (0 default, 2 prohibited, 3 exclusive process) argv1=%s\n", mode, argc > 1 ? argv[1] : "-");
  R(cudaSetDevice(0));
  R(cudaMalloc(&a, 1 << 20));
  if (argc > 1 && !strcmp(argv[1], "child")) {
    k_fill<<<1, 128>>>(a, 128, 3.0); R(cudaDeviceSynchronize());
    R(cudaMemcpy(&h, a, 8, cudaMemcpyDeviceToHost));
    printf("child value %g (want 3)\n", h);
    return h == 3.0 ? 0 : 1;
  }
  k_bad<<<1, 64>>>((double *)0x1000); R(cudaDeviceSynchronize());
  if (argc > 1 && !strcmp(argv[1], "reset")) R(cudaDeviceReset());
  printf("re-exec\n"); fflush(stdout);
  char *args[] = {argv[0], (char *)"child", NULL};
  execv("/proc/self/exe", args);
  perror("execv");
  return 2;
}
