/* The order-1 level of the device p-multigrid (cuda_ho_pmg.h): the host's smoothed-aggregation
 * hierarchy (solver/amg, built by ho_pmg_assemble.c on the assembled trilinear operator)
 * uploaded once and cycled on the device with the steps of amg_cycle.c and amg_smoother.c.
 *
 * The hex8 backend's device AMG (cuda_amg.cu) runs the same cycle but hangs off its dt_cuda
 * (stream, cuSPARSE view of the blocked tangent, refresh state); this one has only what a
 * fixed hierarchy needs: each level's A, P, R in scalar CSR multiplied by a kernel of G lanes
 * per row (G from the mean row length; the lanes add up by shuffles in a fixed order), the
 * Chebyshev smoother in the p-multigrid's vector kernels (the same expressions as the host's), and the coarsest level's Cholesky
 * factor turned into X = L^-1 by cuBLAS (the null pivots of amg_dense.c kept as the host
 * stores them), so that the coarse solve is x = X^T (X b), two dense products.
 *
 * Bytes per V-cycle on level l (n rows, z nonzeros, 2 degree + 2 products by A): 12 z per
 * product with A, 12 nnz(P) each for P and R, plus the vector kernels; the order-1 level has
 * about 81 nonzeros per row (27 neighbour nodes x 3), so its products cost about 1 kB per row,
 * n_1 / n_fine = 1/8 of a P = 2 fine level's DOFs. */
#include "cuda_cublas_check.h"
#include "cuda_ho_pmg_internal.h"

/* y = A x (beta = 0) or y + A x (beta = 1), G lanes per row: lane k sums entries k, k + G, ...
 * of its row, then the lanes add up by shuffles (every thread of the warp takes part). */
template <int G>
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_csr(int n, const int *__restrict__ ptr, const int *__restrict__ col,
              const double *__restrict__ val, const double *__restrict__ x, int beta,
              double *__restrict__ y) {
  long row = ((long)blockIdx.x * blockDim.x + threadIdx.x) / G;
  int lane = threadIdx.x % G;
  double s = 0.0;
  if (row < n)
    for (int k = ptr[row] + lane; k < ptr[row + 1]; k += G) s += val[k] * x[col[k]];
  for (int off = G / 2; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off, G);
  if (row < n && lane == 0) y[row] = beta ? s + y[row] : s;
}

/* r -= t: the residual after the last Chebyshev step (amg_smoother.c). */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_sub(int n, const double *__restrict__ t, double *__restrict__ r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] -= t[i];
}

/* X = I (n x n): the right-hand sides of X = L^-1. */
static __global__ void __launch_bounds__(PMG_BLOCK) k_pmg_identity(int n, double *X) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < (long)n * n) X[t] = t / n == t % n ? 1.0 : 0.0;
}

static dt_status spmv(dt_cuda_ho_pmg *pc, const pmg_csr *A, const double *x, int beta, double *y,
                      dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = A->n_rows, grid = pmg_grid((long)n * A->lanes);
  cudaStream_t s = pc->s;
  if (n == 0) return DT_OK;
  switch (A->lanes) {
  case 4: k_pmg_csr<4><<<grid, PMG_BLOCK, 0, s>>>(n, A->ptr, A->col, A->val, x, beta, y); break;
  case 8: k_pmg_csr<8><<<grid, PMG_BLOCK, 0, s>>>(n, A->ptr, A->col, A->val, x, beta, y); break;
  case 16: k_pmg_csr<16><<<grid, PMG_BLOCK, 0, s>>>(n, A->ptr, A->col, A->val, x, beta, y); break;
  default: k_pmg_csr<32><<<grid, PMG_BLOCK, 0, s>>>(n, A->ptr, A->col, A->val, x, beta, y);
  }
  DT_CUDA_LAUNCH_CHECK("k_pmg_csr", s, ctx);
cleanup:
  return rc;
}

/* Chebyshev smoothing of A_l x = b (amg_smoother.c, chebyshev); with want_residual, r = b - A x
 * on return. */
static dt_status smooth(dt_cuda_ho_pmg *pc, int l, const double *b, double *x, int zero,
                        int want_residual, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pmg_amg_level *L = &pc->alev[l];
  int n = L->n, grid = pmg_grid(n);
  double hi = DT_AMG_CHEB_SAFETY * L->lambda_max, lo = hi / pc->amg_eig_ratio;
  double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta, rho = 1.0 / sigma;
  if (!zero) DT_TRY(spmv(pc, &L->A, x, 0, L->t, ctx));
  DT_TRY(dt_cuda_pmg_cheb_first(pc, n, zero, theta, b, L->t, L->dinv, L->r, L->d, x, ctx));
  for (int k = 1; k < pc->amg_degree; k++) {
    double rho_new = 1.0 / (2.0 * sigma - rho);
    DT_TRY(spmv(pc, &L->A, L->d, 0, L->t, ctx));
    DT_TRY(dt_cuda_pmg_cheb_step(pc, n, rho_new * rho, 2.0 * rho_new / delta, L->t, L->dinv, L->r,
                                 L->d, x, ctx));
    rho = rho_new;
  }
  if (!want_residual) goto cleanup;
  DT_TRY(spmv(pc, &L->A, L->d, 0, L->t, ctx));
  k_pmg_sub<<<grid, PMG_BLOCK, 0, pc->s>>>(n, L->t, L->r);
  DT_CUDA_LAUNCH_CHECK("k_pmg_sub", pc->s, ctx);
cleanup:
  return rc;
}

/* The coarsest level: x = A^-1 b = L^-T L^-1 b = X^T (X b). */
static dt_status coarse_solve(dt_cuda_ho_pmg *pc, const double *b, double *x, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *t = pc->alev[pc->amg_levels - 1].t;
  const double one = 1.0, zero = 0.0;
  int n = pc->nc;
  DT_CUBLAS_CHECK(
      cublasDgemv(pc->blas, CUBLAS_OP_N, n, n, &one, pc->coarse_X, n, b, 1, &zero, t, 1), ctx);
  DT_CUBLAS_CHECK(
      cublasDgemv(pc->blas, CUBLAS_OP_T, n, n, &one, pc->coarse_X, n, t, 1, &zero, x, 1), ctx);
cleanup:
  return rc;
}

/* Level l solves A_l x = b from x = 0 (amg_cycle.c). */
static dt_status cycle(dt_cuda_ho_pmg *pc, int l, const double *b, double *x, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pmg_amg_level *L = &pc->alev[l], *C = &pc->alev[l + 1];
  if (l == pc->amg_levels - 1) return coarse_solve(pc, b, x, ctx);
  DT_TRY(smooth(pc, l, b, x, 1, 1, ctx));
  DT_TRY(spmv(pc, &L->R, L->r, 0, C->b, ctx));
  DT_TRY(cycle(pc, l + 1, C->b, C->x, ctx));
  DT_TRY(spmv(pc, &L->P, C->x, 1, x, ctx));
  DT_TRY(smooth(pc, l, b, x, 0, 0, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_pmg_amg_cycle(dt_cuda_ho_pmg *pc, const double *b, double *x, dt_ctx *ctx) {
  return cycle(pc, 0, b, x, ctx);
}

static dt_status upload_csr(dt_cuda_ho_pmg *pc, const dt_amg_csr *H, pmg_csr *D, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double mean = 0.0;
  D->n_rows = H->n_rows;
  D->nnz = H->row_ptr[H->n_rows];
  mean = H->n_rows ? (double)D->nnz / H->n_rows : 0.0;
  D->lanes = mean <= 6 ? 4 : mean <= 16 ? 8 : mean <= 40 ? 16 : 32;
  DT_TRY(dt_cuda_pmg_upload(pc, (void **)&D->ptr, H->row_ptr, sizeof(int) * ((size_t)H->n_rows + 1),
                            "p-multigrid AMG", ctx));
  DT_TRY(dt_cuda_pmg_upload(pc, (void **)&D->col, H->col, sizeof(int) * (size_t)D->nnz,
                            "p-multigrid AMG", ctx));
  DT_TRY(dt_cuda_pmg_upload(pc, (void **)&D->val, H->val, sizeof(double) * (size_t)D->nnz,
                            "p-multigrid AMG", ctx));
cleanup:
  return rc;
}

/* The coarsest factor up (h->coarse_L: L below the diagonal of a row-major array and L^T above
 * it, so its column-major lower triangle is L) and X = L^-1 by a triangular solve on I. */
static dt_status upload_coarse(dt_cuda_ho_pmg *pc, const dt_amg *h, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *F = NULL;
  const double one = 1.0;
  long nn = (long)pc->nc * pc->nc;
  DT_TRY(dt_cuda_pmg_upload(pc, (void **)&F, h->coarse_L, sizeof(double) * (size_t)nn,
                            "p-multigrid AMG coarsest factor", ctx));
  DT_TRY(dt_cuda_pmg_alloc(pc, (void **)&pc->coarse_X, sizeof(double) * (size_t)nn,
                           "p-multigrid AMG coarsest factor", ctx));
  k_pmg_identity<<<pmg_grid(nn), PMG_BLOCK, 0, pc->s>>>(pc->nc, pc->coarse_X);
  DT_CUDA_LAUNCH_CHECK("k_pmg_identity", pc->s, ctx);
  DT_CUBLAS_CHECK(cublasDtrsm(pc->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                              CUBLAS_DIAG_NON_UNIT, pc->nc, pc->nc, &one, F, pc->nc, pc->coarse_X,
                              pc->nc),
                  ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(pc->s), ctx);
cleanup:
  if (F) {
    cudaFree(F);
    pc->bytes -= sizeof(double) * (size_t)nn;
  }
  return rc;
}

dt_status dt_cuda_pmg_amg_upload(dt_cuda_ho_pmg *pc, const dt_amg *h, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(h->opt.smoother == DT_AMG_CHEBYSHEV, ctx, DT_ERR_UNSUPPORTED,
           "p-multigrid (device): the order-1 AMG's smoother must be Chebyshev");
  pc->amg_levels = h->n_levels;
  pc->amg_degree = h->opt.degree;
  pc->amg_eig_ratio = h->opt.eig_ratio;
  pc->nc = h->lev[h->n_levels - 1].n;
  DT_CUBLAS_CHECK(cublasCreate(&pc->blas), ctx);
  DT_CUBLAS_CHECK(cublasSetStream(pc->blas, pc->s), ctx);
  for (int l = 0; l < h->n_levels; l++) {
    const dt_amg_level *H = &h->lev[l];
    pmg_amg_level *L = &pc->alev[l];
    size_t bytes = sizeof(double) * (size_t)H->n;
    L->n = H->n;
    L->lambda_max = H->lambda_max;
    /* level 0's b and x are the order-1 level's; the coarsest needs t only */
    if (l == 0) {
      L->b = pc->lev[pc->n_levels - 1].b;
      L->x = pc->lev[pc->n_levels - 1].x;
    } else {
      DT_TRY(dt_cuda_pmg_alloc(pc, (void **)&L->b, bytes, "p-multigrid AMG vectors", ctx));
      DT_TRY(dt_cuda_pmg_alloc(pc, (void **)&L->x, bytes, "p-multigrid AMG vectors", ctx));
    }
    DT_TRY(dt_cuda_pmg_alloc(pc, (void **)&L->t, bytes, "p-multigrid AMG vectors", ctx));
    if (l == h->n_levels - 1) break;
    DT_TRY(dt_cuda_pmg_alloc(pc, (void **)&L->r, bytes, "p-multigrid AMG vectors", ctx));
    DT_TRY(dt_cuda_pmg_alloc(pc, (void **)&L->d, bytes, "p-multigrid AMG vectors", ctx));
    DT_TRY(
        dt_cuda_pmg_upload(pc, (void **)&L->dinv, H->dinv, bytes, "p-multigrid AMG smoother", ctx));
    DT_TRY(upload_csr(pc, &H->A, &L->A, ctx));
    DT_TRY(upload_csr(pc, &H->P, &L->P, ctx));
    DT_TRY(upload_csr(pc, &H->R, &L->R, ctx));
  }
  DT_TRY(upload_coarse(pc, h, ctx));
cleanup:
  return rc;
}

void dt_cuda_pmg_amg_free(dt_cuda_ho_pmg *pc) {
  for (int l = 0; l < pc->amg_levels; l++) {
    pmg_amg_level *L = &pc->alev[l];
    void *p[] = {L->A.ptr, L->A.col, L->A.val, L->P.ptr, L->P.col, L->P.val, L->R.ptr,
                 L->R.col, L->R.val, L->dinv,  L->r,     L->d,     L->t};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) cudaFree(p[k]);
    if (l > 0) cudaFree(L->b), cudaFree(L->x);
  }
  cudaFree(pc->coarse_X);
  if (pc->blas) cublasDestroy(pc->blas);
}
