#include <cstdio>
#include <cuda_runtime.h>
__global__ void k_fill(double *p, int n, double v) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v; }
__global__ void k_bad(double *p) { p[threadIdx.x * 1000003L] = 1.0; }
#define R(x) do { cudaError_t e_ = (x); printf("%-40s -> %d %s\n", #x, (int)e_, cudaGetErrorString(e_)); } while (0)
int main() {
  double *a = 0, *b = 0, h = 0;
  R(cudaSetDevice(0));
  R(cudaMalloc(&a, 1 << 20));
  k_fill<<<1, 128>>>(a, 128, 2.0); R(cudaDeviceSynchronize());
  k_bad<<<1, 64>>>((double *)0x1000); R(cudaGetLastError()); R(cudaDeviceSynchronize());
  R(cudaGetLastError());
  R(cudaMalloc(&b, 1 << 20));
  R(cudaMemcpy(&h, a, 8, cudaMemcpyDeviceToHost));
  R(cudaDeviceReset());
  R(cudaGetLastError());
  R(cudaSetDevice(0));
  R(cudaMalloc(&b, 1 << 20));
  k_fill<<<1, 128>>>(b, 128, 3.0); R(cudaGetLastError()); R(cudaDeviceSynchronize());
  R(cudaMemcpy(&h, b, 8, cudaMemcpyDeviceToHost));
  printf("value after reset: %g (want 3)\n", h);
  size_t fr, to; R(cudaMemGetInfo(&fr, &to)); printf("free %zu MiB\n", fr >> 20);
  return 0;
}
