/* Probe: an SpMV on the upper block triangle of the (symmetric) tangent against cuSPARSE's BSR
 * SpMV on the full matrix, on the block pattern of Kiran's cube C5 (116^3 nodes, 27 blocks per
 * interior row, 3 x 3 column-major blocks).
 *
 * The upper kernel reads each stored block once from DRAM for its own row; the lower part of row
 * a is the transpose of blocks (b, a), b < a, stored in the rows of earlier nodes, which are read
 * again: with nodes numbered layer by layer the latest of them was streamed one layer (13,456
 * rows, 14 MB of blocks) earlier and should still be in the L2 (50 MB). A warp per block row:
 * lanes sweep the row's upper values, then its lower blocks, in a fixed order, and the warp
 * sums its three outputs by shuffles (deterministic).
 *   nvcc -O3 -arch=sm_90 probe_spmv_symmetric.cu -lcusparse -o probe
 *
 * Result (lent H200, 2026-11-22 00:53-00:56 UTC, N = 116): cuSPARSE 0.890 ms (3.6 TB/s on the
 * full matrix's 3.23 GB); this kernel 1.64 ms in a first version and 1.50 ms with cheap index
 * arithmetic (2, 4, 8 or 16 warps per block alike), 0.54-0.60x cuSPARSE although it reads 42%
 * fewer bytes from DRAM. Not pursued: the transposed half is 13 scattered 72-byte blocks per
 * row, and the kernel runs at a third of the bandwidth. */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); }        \
  } while (0)

/* y_a = sum_{b >= a} U_ab x_b + sum_{b < a} U_ba^T x_b; a warp per block row. Offsets are
 * relative to the row (at most 27 blocks, 243 values), so e / 9 is (e * 57) >> 9 (exact for
 * e < 513) and r / 3 is (r * 11) >> 5 (r < 9). */
__device__ __forceinline__ int div9(int e) { return (e * 57) >> 9; }
__device__ __forceinline__ int div3(int r) { return (r * 11) >> 5; }

template <int WARPS>
__global__ void __launch_bounds__(WARPS * 32)
k_spmv_upper(int n, const int *__restrict__ urow, const int *__restrict__ ucol, const double *__restrict__ uval,
             const int *__restrict__ lrow, const int *__restrict__ lcol, const int *__restrict__ lpos,
             const double *__restrict__ x, double *__restrict__ y) {
  int a = blockIdx.x * WARPS + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (a >= n) return;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  const int b0 = urow[a], nu = (urow[a + 1] - b0) * 9;
  const double *uv = uval + (long)b0 * 9;
  const int *uc = ucol + b0;
  for (int e = lane; e < nu; e += 32) { /* coalesced over the row's stored values */
    int q = div9(e), r = e - 9 * q, j = div3(r), i = r - 3 * j;
    double v = __ldg(uv + e) * __ldg(x + 3 * uc[q] + j);
    s0 += i == 0 ? v : 0.0;
    s1 += i == 1 ? v : 0.0;
    s2 += i == 2 ? v : 0.0;
  }
  const int l0 = lrow[a], nl = (lrow[a + 1] - l0) * 9;
  for (int e = lane; e < nl; e += 32) { /* U_ba^T: entry (i, j) of U_ba adds U_ij x_b[i] to y_j */
    int q = div9(e), r = e - 9 * q, j = div3(r), i = r - 3 * j;
    double v = __ldg(uval + (long)__ldg(lpos + l0 + q) * 9 + r) * __ldg(x + 3 * __ldg(lcol + l0 + q) + i);
    s0 += j == 0 ? v : 0.0;
    s1 += j == 1 ? v : 0.0;
    s2 += j == 2 ? v : 0.0;
  }
  for (int o = 16; o > 0; o >>= 1) {
    s0 += __shfl_down_sync(0xffffffffu, s0, o);
    s1 += __shfl_down_sync(0xffffffffu, s1, o);
    s2 += __shfl_down_sync(0xffffffffu, s2, o);
  }
  if (lane == 0) {
    y[(long)a * 3] = s0;
    y[(long)a * 3 + 1] = s1;
    y[(long)a * 3 + 2] = s2;
  }
}

static double rnd(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0 - 0.5;
}

int main(int argc, char **argv) {
  const int N = argc > 1 ? atoi(argv[1]) : 116, n = N * N * N;
  std::vector<int> brow(n + 1), urow(n + 1), lrow(n + 1);
  std::vector<int> bcol, ucol, lcol, lpos;
  bcol.reserve((size_t)n * 27);
  /* full pattern, columns sorted (k-major, then j, then i) */
  for (int a = 0; a < n; a++) {
    int i = a % N, j = (a / N) % N, k = a / (N * N);
    brow[a] = (int)bcol.size();
    urow[a] = (int)ucol.size();
    for (int dk = -1; dk <= 1; dk++)
      for (int dj = -1; dj <= 1; dj++)
        for (int di = -1; di <= 1; di++) {
          int ii = i + di, jj = j + dj, kk = k + dk;
          if (ii < 0 || jj < 0 || kk < 0 || ii >= N || jj >= N || kk >= N) continue;
          int b = ii + N * (jj + N * kk);
          bcol.push_back(b);
          if (b >= a) ucol.push_back(b);
        }
  }
  brow[n] = (int)bcol.size();
  urow[n] = (int)ucol.size();
  /* lower part of row a: (b, a) in b's upper row, b < a, in increasing b */
  for (int a = 0; a < n; a++) {
    lrow[a] = (int)lcol.size();
    for (int p = brow[a]; p < brow[a + 1]; p++) {
      int b = bcol[p];
      if (b >= a) break;
      int q = urow[b];
      while (ucol[q] != a) q++;
      lcol.push_back(b);
      lpos.push_back(q);
    }
  }
  lrow[n] = (int)lcol.size();
  long nb = (long)bcol.size(), nu = (long)ucol.size(), nl = (long)lcol.size();
  printf("N %d: %d nodes, %ld blocks, %ld upper, %ld lower\n", N, n, nb, nu, nl);
  /* values: upper random (diagonal blocks symmetric); full = upper + transposes */
  unsigned long long seed = 12345;
  std::vector<double> uval(nu * 9), bval(nb * 9), x(3L * n);
  for (int a = 0; a < n; a++)
    for (int q = urow[a]; q < urow[a + 1]; q++)
      for (int r = 0; r < 9; r++) uval[(long)q * 9 + r] = rnd(&seed);
  for (int a = 0; a < n; a++) { /* symmetric diagonal blocks: (i, j) = (j, i) */
    double *d = &uval[(long)urow[a] * 9];
    int q = urow[a];
    while (ucol[q] != a) q++;
    d = &uval[(long)q * 9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < i; j++) d[j * 3 + i] = d[i * 3 + j];
  }
  for (int a = 0; a < n; a++) {
    int q = urow[a], l = lrow[a];
    for (int p = brow[a]; p < brow[a + 1]; p++) {
      int b = bcol[p];
      double *dst = &bval[(long)p * 9];
      if (b >= a) {
        while (ucol[q] != b) q++;
        for (int r = 0; r < 9; r++) dst[r] = uval[(long)q * 9 + r];
      } else {
        const double *s = &uval[(long)lpos[l++] * 9];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) dst[j * 3 + i] = s[i * 3 + j]; /* transpose */
      }
    }
  }
  for (long i = 0; i < 3L * n; i++) x[i] = rnd(&seed);
  int *d_brow, *d_bcol, *d_urow, *d_ucol, *d_lrow, *d_lcol, *d_lpos;
  double *d_bval, *d_uval, *d_x, *d_y1, *d_y2;
#define UP(d, h, T)                                                                             \
  CK(cudaMalloc(&d, sizeof(T) * h.size()));                                                     \
  CK(cudaMemcpy(d, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice))
  UP(d_brow, brow, int); UP(d_bcol, bcol, int); UP(d_urow, urow, int); UP(d_ucol, ucol, int);
  UP(d_lrow, lrow, int); UP(d_lcol, lcol, int); UP(d_lpos, lpos, int);
  UP(d_bval, bval, double); UP(d_uval, uval, double); UP(d_x, x, double);
  CK(cudaMalloc(&d_y1, sizeof(double) * 3 * n));
  CK(cudaMalloc(&d_y2, sizeof(double) * 3 * n));
  /* cuSPARSE BSR, as the backend uses it */
  cusparseHandle_t sp;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vx, vy;
  cusparseCreate(&sp);
  if (cusparseCreateBsr(&A, n, n, nb, 3, 3, d_brow, d_bcol, d_bval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_COL) != CUSPARSE_STATUS_SUCCESS) {
    printf("cusparseCreateBsr failed\n");
    return 1;
  }
  cusparseCreateDnVec(&vx, 3L * n, d_x, CUDA_R_64F);
  cusparseCreateDnVec(&vy, 3L * n, d_y1, CUDA_R_64F);
  double one = 1.0, zero = 0.0;
  size_t bs = 0;
  void *buf = NULL;
  cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F,
                          CUSPARSE_SPMV_BSR_ALG1, &bs);
  CK(cudaMalloc(&buf, bs + 1));
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  const int reps = 20;
  float ms;
  cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_BSR_ALG1, buf);
  cudaEventRecord(t0);
  for (int r = 0; r < reps; r++)
    cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_BSR_ALG1, buf);
  cudaEventRecord(t1);
  CK(cudaEventSynchronize(t1));
  cudaEventElapsedTime(&ms, t0, t1);
  double t_full = ms / reps;
  double bytes_full = 8.0 * nb * 9 + 4.0 * nb + 4.0 * (n + 1) + 16.0 * 3 * n;
  printf("cuSPARSE BSR full: %.3f ms, %.2f GB moved at least, %.0f GB/s\n", t_full, bytes_full / 1e9,
         bytes_full / (t_full * 1e-3) / 1e9);
  double t_up = 1e30;
#define TIME_UPPER(W)                                                                           \
  do {                                                                                          \
    unsigned grid = (unsigned)((n + W - 1) / W);                                                \
    k_spmv_upper<W><<<grid, W * 32>>>(n, d_urow, d_ucol, d_uval, d_lrow, d_lcol, d_lpos, d_x, d_y2); \
    CK(cudaGetLastError());                                                                     \
    cudaEventRecord(t0);                                                                        \
    for (int r = 0; r < reps; r++)                                                              \
      k_spmv_upper<W><<<grid, W * 32>>>(n, d_urow, d_ucol, d_uval, d_lrow, d_lcol, d_lpos, d_x, d_y2); \
    cudaEventRecord(t1);                                                                        \
    CK(cudaEventSynchronize(t1));                                                               \
    cudaEventElapsedTime(&ms, t0, t1);                                                          \
    printf("  upper, %d warps per block: %.3f ms\n", W, ms / reps);                              \
    if (ms / reps < t_up) t_up = ms / reps;                                                     \
  } while (0)
  TIME_UPPER(2);
  TIME_UPPER(4);
  TIME_UPPER(8);
  TIME_UPPER(16);
  double bytes_up = 8.0 * nu * 9 + 4.0 * nu + 8.0 * nl + 8.0 * (n + 1) + 16.0 * 3 * n;
  printf("upper triangle:    %.3f ms, %.2f GB from DRAM at least (+%.2f GB of lower blocks again), "
         "%.0f GB/s on the first; %.2fx cuSPARSE\n", t_up, bytes_up / 1e9, 72.0 * nl / 1e9,
         bytes_up / (t_up * 1e-3) / 1e9, t_full / t_up);
  std::vector<double> y1(3L * n), y2(3L * n);
  CK(cudaMemcpy(y1.data(), d_y1, sizeof(double) * 3 * n, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(y2.data(), d_y2, sizeof(double) * 3 * n, cudaMemcpyDeviceToHost));
  double dmax = 0.0, ymax = 0.0;
  for (long i = 0; i < 3L * n; i++) {
    dmax = fmax(dmax, fabs(y1[i] - y2[i]));
    ymax = fmax(ymax, fabs(y1[i]));
  }
  printf("max |y_full - y_upper| / max |y| = %.2e\n", dmax / ymax);
  return 0;
}
