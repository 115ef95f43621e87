/* Probe: what factoring and inverting the two-level preconditioner's coarse matrix costs on the
 * device, per Newton iteration (cuda/cuda_coarse.cu: cusolverDnDpotrf, then cusolverDnDpotri
 * and a mirror into a full symmetric inverse), against potrf plus the inverse of the triangular
 * factor only (cusolverDnXtrtri; the PCG would then apply L^-T L^-1: the same bytes per
 * iteration as E^-1). E: random symmetric positive definite, n = 6 x boxes (C5: 512 boxes).
 *   nvcc -O3 -arch=sm_90 probe_coarse_factor.cu -lcusolver -lcublas -o probe */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                   \
  do {                                                                                          \
    int e_ = (int)(x);                                                                          \
    if (e_) { printf("%s failed: %d (line %d)\n", #x, e_, __LINE__); exit(1); }               \
  } while (0)

__global__ void k_identity(int n, double *X) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long)n * n) return;
  X[t] = t / n == t % n ? 1.0 : 0.0;
}

__global__ void k_mirror(int n, double *E) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long)n * n) return;
  int i = (int)(t / n), j = (int)(t % n);
  if (j < i) E[(long)i * n + j] = E[(long)j * n + i];
}

/* Time the statements between two events on the default stream; keep the best of the
 * repetitions in best[slot], divided by per (how many calls the statements make). */
#define TIMED(slot, per, ...)                                                                   \
  do {                                                                                          \
    cudaEventRecord(t0);                                                                        \
    __VA_ARGS__;                                                                                \
    cudaEventRecord(t1);                                                                        \
    cudaEventSynchronize(t1);                                                                   \
    cudaEventElapsedTime(&ms, t0, t1);                                                          \
    if (ms / (per) < best[slot]) best[slot] = ms / (per);                                       \
  } while (0)

int main(void) {
  cusolverDnHandle_t dn;
  cublasHandle_t bl;
  cusolverDnParams_t par;
  CK(cusolverDnCreate(&dn));
  CK(cublasCreate(&bl));
  CK(cusolverDnCreateParams(&par));
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  const int sizes[] = {768, 1536, 3072};
  for (int si = 0; si < 3; si++) {
    int n = sizes[si], lw = 0, *info;
    double *A, *E, *E0, *work, one = 1.0, zero = 0.0;
    size_t nn = (size_t)n * n;
    double *h = (double *)malloc(sizeof(double) * nn);
    srand(7);
    for (size_t k = 0; k < nn; k++) h[k] = rand() / (double)RAND_MAX - 0.5;
    CK(cudaMalloc(&A, sizeof(double) * nn));
    CK(cudaMalloc(&E, sizeof(double) * nn));
    CK(cudaMalloc(&E0, sizeof(double) * nn));
    CK(cudaMalloc(&info, sizeof(int)));
    CK(cudaMemcpy(A, h, sizeof(double) * nn, cudaMemcpyHostToDevice));
    CK(cublasDgemm(bl, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, A, n, A, n, &zero, E0, n)); /* A A^T */
    for (int k = 0; k < n; k++) { /* + n I */
      double d;
      CK(cudaMemcpy(&d, E0 + (size_t)k * n + k, sizeof d, cudaMemcpyDeviceToHost));
      d += n;
      CK(cudaMemcpy(E0 + (size_t)k * n + k, &d, sizeof d, cudaMemcpyHostToDevice));
    }
    int lw2 = 0;
    CK(cusolverDnDpotrf_bufferSize(dn, CUBLAS_FILL_MODE_LOWER, n, E, n, &lw));
    CK(cusolverDnDpotri_bufferSize(dn, CUBLAS_FILL_MODE_LOWER, n, E, n, &lw2));
    if (lw2 > lw) lw = lw2;
    CK(cudaMalloc(&work, sizeof(double) * (lw + 1)));
    size_t dw = 0, hw = 0;
    CK(cusolverDnXtrtri_bufferSize(dn, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, n, CUDA_R_64F, E, n, &dw, &hw));
    void *dwork = NULL, *hwork = malloc(hw + 1);
    CK(cudaMalloc(&dwork, dw + 1));
    double *X, *Einv;
    CK(cudaMalloc(&X, sizeof(double) * nn));
    CK(cudaMalloc(&Einv, sizeof(double) * nn));
    float best[5] = {1e30f, 1e30f, 1e30f, 1e30f, 1e30f}, ms;
    for (int rep = 0; rep < 4; rep++) {
      /* shipped: potrf, potri, mirror */
      CK(cudaMemcpy(E, E0, sizeof(double) * nn, cudaMemcpyDeviceToDevice));
      TIMED(0, 1, CK(cusolverDnDpotrf(dn, CUBLAS_FILL_MODE_LOWER, n, E, n, work, lw, info)));
      TIMED(1, 1, CK(cusolverDnDpotri(dn, CUBLAS_FILL_MODE_LOWER, n, E, n, work, lw, info));
            k_mirror<<<(unsigned)((nn + 255) / 256), 256>>>(n, E));
      /* alternative: potrf, then the triangular inverse only */
      CK(cudaMemcpy(E, E0, sizeof(double) * nn, cudaMemcpyDeviceToDevice));
      CK(cusolverDnDpotrf(dn, CUBLAS_FILL_MODE_LOWER, n, E, n, work, lw, info));
      TIMED(2, 1, CK(cusolverDnXtrtri(dn, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, n, CUDA_R_64F, E, n, dwork, dw,
                                       hwork, hw, info)));
      /* alternative 2: potrf, X = L^-1 by a triangular solve on I (cuBLAS, GEMM-based), then
       * E^-1 = X^T X (syrk), mirrored */
      CK(cudaMemcpy(E, E0, sizeof(double) * nn, cudaMemcpyDeviceToDevice));
      CK(cusolverDnDpotrf(dn, CUBLAS_FILL_MODE_LOWER, n, E, n, work, lw, info));
      TIMED(4, 1, k_identity<<<(unsigned)((nn + 255) / 256), 256>>>(n, X);
            CK(cublasDtrsm(bl, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n, &one,
                           E, n, X, n));
            CK(cublasDsyrk(bl, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, n, n, &one, X, n, &zero, Einv, n));
            k_mirror<<<(unsigned)((nn + 255) / 256), 256>>>(n, Einv));
      /* the per-iteration product either way: a dense n x n matrix-vector product (cuBLAS) */
      TIMED(3, 10, for (int k = 0; k < 10; k++) CK(cublasDgemv(bl, CUBLAS_OP_N, n, n, &one, E, n, A, 1, &zero, A + n, 1)));
    }
    { /* both inverses: potri's (E, after the loop's last potri) against trsm + syrk's */
      double *h1 = (double *)malloc(sizeof(double) * nn), *h2 = (double *)malloc(sizeof(double) * nn), dmax = 0, emax = 0;
      CK(cudaMemcpy(E, E0, sizeof(double) * nn, cudaMemcpyDeviceToDevice));
      CK(cusolverDnDpotrf(dn, CUBLAS_FILL_MODE_LOWER, n, E, n, work, lw, info));
      CK(cusolverDnDpotri(dn, CUBLAS_FILL_MODE_LOWER, n, E, n, work, lw, info));
      k_mirror<<<(unsigned)((nn + 255) / 256), 256>>>(n, E);
      CK(cudaMemcpy(h1, E, sizeof(double) * nn, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h2, Einv, sizeof(double) * nn, cudaMemcpyDeviceToHost));
      for (size_t k = 0; k < nn; k++) {
        double d = h1[k] - h2[k];
        if (d < 0) d = -d;
        if (d > dmax) dmax = d;
        if ((h1[k] < 0 ? -h1[k] : h1[k]) > emax) emax = h1[k] < 0 ? -h1[k] : h1[k];
      }
      printf("n %4d: potrf %.3f ms, potri + mirror %.3f ms, trtri %.3f ms, trsm + syrk + mirror %.3f ms "
             "(max |difference| / max |E^-1| %.1e); dense product %.3f ms\n", n, best[0], best[1], best[2], best[4],
             dmax / emax, best[3]);
      free(h1), free(h2);
    }
    cudaFree(X), cudaFree(Einv);
    cudaFree(A), cudaFree(E), cudaFree(E0), cudaFree(work), cudaFree(dwork), cudaFree(info);
    free(h), free(hwork);
  }
  return 0;
}
