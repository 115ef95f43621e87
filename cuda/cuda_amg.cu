/* The smoothed-aggregation AMG preconditioner (linear.preconditioner "amg") on the CUDA backend.
 *
 * The algorithm is solver/amg/'s (amg.h), which works on a node-blocked scalar CSR matrix; the
 * device keeps the tangent blocked (dt_bsr_block), and level 0's scalar copy holds, in row
 * (a, i), the columns dpn b + j of a's neighbours b in order (as dt_problem_csr), each block
 * row's values reordered (entry (i; r, j) of the CSR rows of node a is entry (j, i) of a's r-th
 * block, column-major). So:
 *   build    (the first setup, and whenever the constrained set changes:
 *            dt_amg_constraints_changed) on the device, cuda_amg_build.cu: the host's hierarchy
 *            to the bit, only the aggregation pass and the aggregates' QR on the host; a level
 *            0 that does not coarsen (at most max_coarse DOFs) is built and factored on the
 *            host (dt_amg_create).
 *   refresh  (every other setup: a new tangent, as the CPU backend refreshes) on the device,
 *            cuda_amg_refresh.cu: the same steps as dt_amg_refresh, with the host's arithmetic
 *            in the sparse products; only the coarsest matrix comes down to be factored. With
 *            DT_PC_KEEP_COARSE, level 0's diagonal, lambda_max and smoother alone.
 *   coarsest its Cholesky factor goes up and cuBLAS turns it into X = L^-1 (a triangular solve
 *            on the identity), so that its solve is two dense products, x = X^T (X b).
 *   apply    one V-cycle on the device, the same steps in the same order as dt_amg_apply
 *            (amg_cycle.c, amg_smoother.c): on level 0 the products with A are cuSPARSE's BSR
 *            SpMV of the backend's tangent; on coarser levels, and for P and R everywhere, a
 *            CSR kernel of G lanes per row (G from the mean row length), each lane summing a
 *            strided part of the row and the lanes adding up by shuffles in a fixed order; the
 *            vector steps are the host's expressions, each product and sum rounded separately
 *            (__dmul_rn, __dadd_rn: no fused multiply-add, like the host build). Every sum has
 *            a fixed order, so two runs give the same bits; GPU and host V-cycles agree to
 *            rounding (the sums run in other orders).
 * The view reports each setup's split (dt_cuda_amg_view). */
#include <string.h>
#include <time.h>

#include "cuda_amg_internal.h"

#define AMG_BLAS_WORKSPACE ((size_t)4 << 20) /* cuBLAS's workspace, ours to count it */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* y = alpha A x + beta y (beta = 0: y is not read), G lanes per row. The lanes of a row sum
 * the entries k = lane, lane + G, ... and then add up by shuffles; every thread of the warp
 * takes part in the shuffles (rows past the end sum zero). */
template <int G>
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_csr(int n, const int *__restrict__ ptr, const int *__restrict__ col,
              const double *__restrict__ val, double alpha, const double *__restrict__ x,
              double beta, double *__restrict__ y) {
  long row = ((long)blockIdx.x * blockDim.x + threadIdx.x) / G;
  int lane = threadIdx.x % G;
  double s = 0.0;
  if (row < n)
    for (int k = ptr[row] + lane; k < ptr[row + 1]; k += G) s = fma(val[k], x[col[k]], s);
  for (int off = G / 2; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off, G);
  if (row < n && lane == 0)
    y[row] =
        beta == 0.0 ? __dmul_rn(alpha, s) : __dadd_rn(__dmul_rn(alpha, s), __dmul_rn(beta, y[row]));
}

/* Chebyshev's first step (amg_smoother.c): r = b (zero) or b + r (r holding -A x);
 * d = D^-1 r / theta; x = d (zero) or x + d. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_cheb_first(int n, int zero, double theta, const double *__restrict__ b,
                     const double *__restrict__ dinv, double *__restrict__ r,
                     double *__restrict__ d, double *__restrict__ x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double ri = zero ? b[i] : __dadd_rn(b[i], r[i]);
  double di = __ddiv_rn(__dmul_rn(dinv[i], ri), theta);
  r[i] = ri;
  d[i] = di;
  x[i] = zero ? di : __dadd_rn(x[i], di);
}

/* Chebyshev's later steps, after r -= A d: d = c1 d + c2 D^-1 r; x += d. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_cheb_step(int n, double c1, double c2, const double *__restrict__ dinv,
                    const double *__restrict__ r, double *__restrict__ d, double *__restrict__ x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double di = __dadd_rn(__dmul_rn(c1, d[i]), __dmul_rn(__dmul_rn(c2, dinv[i]), r[i]));
  d[i] = di;
  x[i] = __dadd_rn(x[i], di);
}

/* l1-Jacobi sweep: x = D_l1^-1 b (first sweep from zero) or x + D_l1^-1 (b + r), r = -A x. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_jacobi(int n, int first, const double *__restrict__ b, const double *__restrict__ dinv,
                 const double *__restrict__ r, double *__restrict__ x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  x[i] =
      first ? __dmul_rn(dinv[i], b[i]) : __dadd_rn(x[i], __dmul_rn(dinv[i], __dadd_rn(b[i], r[i])));
}

/* r += b (the l1-Jacobi residual, r holding -A x). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_add(int n, const double *__restrict__ b, double *__restrict__ r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] = __dadd_rn(r[i], b[i]);
}

/* A split run's part matrix (dt_cuda_pc_amg_local) from the tangent's blocks (dt_bsr_block:
 * entry (i, j) at [j dpn + i]): the diagonal blocks the summed ones in pc (row-major), but the
 * constrained DOFs' rows and columns, which stay the tangent's identity. One thread per node. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_local(int n_nodes, int dpn, const int *__restrict__ brow_ptr,
                const int *__restrict__ bcol, const double *__restrict__ bsr,
                const double *__restrict__ pc, const double *__restrict__ con,
                double *__restrict__ out) {
  int an = blockIdx.x * blockDim.x + threadIdx.x;
  if (an >= n_nodes) return;
  int d2 = dpn * dpn;
  for (int k = brow_ptr[an]; k < brow_ptr[an + 1]; k++) {
    const double *in = bsr + (long)k * d2;
    double *o = out + (long)k * d2;
    int diag = bcol[k] == an;
    for (int j = 0; j < dpn; j++)
      for (int i = 0; i < dpn; i++) {
        long row = (long)an * dpn + i, col = (long)an * dpn + j;
        o[j * dpn + i] = diag && con[row] == 0.0 && con[col] == 0.0
                             ? pc[(long)an * d2 + i * dpn + j]
                             : in[j * dpn + i];
      }
  }
}

/* X = I (n x n), the right-hand sides of X = L^-1. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_amg_identity(int n, double *X) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < (long)n * n) X[t] = t / n == t % n ? 1.0 : 0.0;
}

static dt_status load_kernels(dt_ctx *ctx) {
  const void *k[] = {(const void *)k_amg_csr<4>,     (const void *)k_amg_csr<8>,
                     (const void *)k_amg_csr<16>,    (const void *)k_amg_csr<32>,
                     (const void *)k_amg_cheb_first, (const void *)k_amg_cheb_step,
                     (const void *)k_amg_jacobi,     (const void *)k_amg_add,
                     (const void *)k_amg_identity,   (const void *)k_amg_local};
  return dt_cuda_load_list(k, (int)(sizeof k / sizeof k[0]), NULL, ctx);
}

dt_status dt_cuda_amg_csr_spmv(dt_cuda *c, const amg_csr_d *A, double alpha, const double *x,
                               double beta, double *y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int grid = amg_blocks_of((long)A->n_rows * A->lanes), n = A->n_rows;
  cudaStream_t s = c->stream;
  if (n == 0) return DT_OK;
  switch (A->lanes) {
  case 4:
    k_amg_csr<4><<<grid, DT_CUDA_BLOCK, 0, s>>>(n, A->ptr, A->col, A->val, alpha, x, beta, y);
    break;
  case 8:
    k_amg_csr<8><<<grid, DT_CUDA_BLOCK, 0, s>>>(n, A->ptr, A->col, A->val, alpha, x, beta, y);
    break;
  case 16:
    k_amg_csr<16><<<grid, DT_CUDA_BLOCK, 0, s>>>(n, A->ptr, A->col, A->val, alpha, x, beta, y);
    break;
  default:
    k_amg_csr<32><<<grid, DT_CUDA_BLOCK, 0, s>>>(n, A->ptr, A->col, A->val, alpha, x, beta, y);
  }
  DT_CUDA_LAUNCH_CHECK("k_amg_csr", c->stream, ctx);
cleanup:
  return rc;
}

/* A vector of the V-cycle: its device array and, on level 0, cuSPARSE's view of it. */
typedef struct amg_vec {
  double *p;
  cusparseDnVecDescr_t d;
} amg_vec;

/* y = alpha A_l x + beta y: level 0 through cuSPARSE's BSR SpMV of the tangent (the operator's
 * product), coarser levels, and level 0 of a split run's part (its own matrix), through
 * k_amg_csr. */
static dt_status spmv_A(dt_cuda *c, int l, double alpha, amg_vec x, double beta, amg_vec y,
                        dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = c->amg;
  if (l > 0 || a->local) return dt_cuda_amg_csr_spmv(c, &a->lev[l].A, alpha, x.p, beta, y.p, ctx);
  DT_CUSPARSE_CHECK(cusparseSpMV(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, c->lin.mat, x.d,
                                 &beta, y.d, CUDA_R_64F, DT_CUDA_SPMV_ALG, a->spmv_buf),
                    ctx);
cleanup:
  return rc;
}

/* Chebyshev smoothing of A_l x = b (amg_smoother.c, chebyshev): from x = 0 (zero) or from x;
 * with want_residual, r = b - A x on return. theta, delta: the centre and half width of
 * [hi / eig_ratio, hi], hi = DT_AMG_CHEB_SAFETY lambda_max. */
static dt_status chebyshev(dt_cuda *c, int l, amg_vec b, amg_vec x, int zero, int want_residual,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = c->amg;
  const dt_amg_options *o = &a->h->opt;
  amg_level_d *L = &a->lev[l];
  double hi = DT_AMG_CHEB_SAFETY * a->h->lev[l].lambda_max, lo = hi / o->eig_ratio;
  double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta, rho = 1.0 / sigma;
  amg_vec r = {L->r, l == 0 ? a->vr : NULL}, d = {L->d, l == 0 ? a->vd : NULL};
  int grid = amg_blocks_of(L->n);
  if (!zero) DT_TRY(spmv_A(c, l, -1.0, x, 0.0, r, ctx)); /* r = -A x, b added below */
  k_amg_cheb_first<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(L->n, zero, theta, b.p, L->dinv, L->r,
                                                          L->d, x.p);
  DT_CUDA_LAUNCH_CHECK("k_amg_cheb_first", c->stream, ctx);
  for (int k = 1; k < o->degree; k++) {
    double rho_new = 1.0 / (2.0 * sigma - rho), c1 = rho_new * rho, c2 = 2.0 * rho_new / delta;
    DT_TRY(spmv_A(c, l, -1.0, d, 1.0, r, ctx)); /* r -= A d */
    k_amg_cheb_step<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(L->n, c1, c2, L->dinv, L->r, L->d, x.p);
    DT_CUDA_LAUNCH_CHECK("k_amg_cheb_step", c->stream, ctx);
    rho = rho_new;
  }
  if (want_residual) DT_TRY(spmv_A(c, l, -1.0, d, 1.0, r, ctx));
cleanup:
  return rc;
}

/* l1-Jacobi smoothing (amg_smoother.c, l1_jacobi): `degree` sweeps. */
static dt_status l1_jacobi(dt_cuda *c, int l, amg_vec b, amg_vec x, int zero, int want_residual,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = c->amg;
  amg_level_d *L = &a->lev[l];
  amg_vec r = {L->r, l == 0 ? a->vr : NULL};
  int grid = amg_blocks_of(L->n);
  for (int s = 0; s < a->h->opt.degree; s++) {
    int first = zero && s == 0;
    if (!first) DT_TRY(spmv_A(c, l, -1.0, x, 0.0, r, ctx));
    k_amg_jacobi<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(L->n, first, b.p, L->dinv, L->r, x.p);
    DT_CUDA_LAUNCH_CHECK("k_amg_jacobi", c->stream, ctx);
  }
  if (!want_residual) goto cleanup;
  DT_TRY(spmv_A(c, l, -1.0, x, 0.0, r, ctx));
  k_amg_add<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(L->n, b.p, L->r);
  DT_CUDA_LAUNCH_CHECK("k_amg_add", c->stream, ctx);
cleanup:
  return rc;
}

static dt_status smooth(dt_cuda *c, int l, amg_vec b, amg_vec x, int zero, int want_residual,
                        dt_ctx *ctx) {
  if (c->amg->h->opt.smoother == DT_AMG_L1_JACOBI)
    return l1_jacobi(c, l, b, x, zero, want_residual, ctx);
  return chebyshev(c, l, b, x, zero, want_residual, ctx);
}

/* The coarsest level: x = A^-1 b = L^-T L^-1 b = X^T (X b), X = L^-1 column-major. */
static dt_status coarse_solve(dt_cuda *c, const double *b, double *x, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = c->amg;
  double *t = a->lev[a->n_levels - 1].t;
  const double one = 1.0, zero = 0.0;
  DT_CUBLAS_CHECK(
      cublasDgemv(a->blas, CUBLAS_OP_N, a->nc, a->nc, &one, a->coarse_X, a->nc, b, 1, &zero, t, 1),
      ctx);
  DT_CUBLAS_CHECK(
      cublasDgemv(a->blas, CUBLAS_OP_T, a->nc, a->nc, &one, a->coarse_X, a->nc, t, 1, &zero, x, 1),
      ctx);
cleanup:
  return rc;
}

/* Level l solves A_l x = b from x = 0 (amg_cycle.c): pre-smoothing with its residual,
 * b_{l+1} = R r, the coarse correction x += P x_{l+1}, post-smoothing. */
static dt_status cycle(dt_cuda *c, int l, amg_vec b, amg_vec x, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = c->amg;
  amg_level_d *L = &a->lev[l], *C = &a->lev[l + 1];
  amg_vec cb = {NULL, NULL}, cx = {NULL, NULL};
  if (l == a->n_levels - 1) return coarse_solve(c, b.p, x.p, ctx);
  cb.p = C->b;
  cx.p = C->x;
  DT_TRY(smooth(c, l, b, x, 1, 1, ctx));
  DT_TRY(dt_cuda_amg_csr_spmv(c, &L->R, 1.0, L->r, 0.0, C->b, ctx));
  DT_TRY(cycle(c, l + 1, cb, cx, ctx));
  DT_TRY(dt_cuda_amg_csr_spmv(c, &L->P, 1.0, C->x, 1.0, x.p, ctx));
  DT_TRY(smooth(c, l, b, x, 0, 0, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_amg_apply(dt_cuda *c, dt_vec_id r, dt_vec_id z, dt_ctx *ctx) {
  amg_vec b = {c->state.vec[r], c->lin.dvec[r]}, x = {c->state.vec[z], c->lin.dvec[z]};
  if (!c->amg || c->amg->n_levels == 0)
    return DT_ERROR(ctx, DT_ERR_INTERNAL, "AMG preconditioner applied before a successful setup");
  return cycle(c, 0, b, x, ctx);
}

static void reorder_values(dt_cuda_amg *a) {
  const int dpn = a->dpn, d2 = dpn * dpn;
#pragma omp parallel for schedule(static)
  for (int an = 0; an < a->n_nodes; an++) {
    long base = (long)d2 * a->brow_ptr[an];
    int deg = a->brow_ptr[an + 1] - a->brow_ptr[an];
    for (int i = 0; i < dpn; i++) {
      double *row = a->val + base + (long)i * dpn * deg;
      for (int r = 0; r < deg; r++)
        for (int j = 0; j < dpn; j++) row[r * dpn + j] = a->bsr[base + (long)r * d2 + j * dpn + i];
    }
  }
}

dt_status dt_cuda_amg_upload_coarse(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  /* F holds h's factor, whose column-major lower triangle is L (h stores L below the diagonal
   * of a row-major array and L^T above it, which is L column by column). */
  dt_status rc = DT_OK;
  const double one = 1.0;
  long nn = (long)a->nc * a->nc;
  DT_TRY(dt_cuda_h2d(c, a->coarse_F, a->h->coarse_L, sizeof(double) * (size_t)nn, ctx));
  k_amg_identity<<<amg_blocks_of(nn), DT_CUDA_BLOCK, 0, c->stream>>>(a->nc, a->coarse_X);
  DT_CUDA_LAUNCH_CHECK("k_amg_identity", c->stream, ctx);
  DT_CUBLAS_CHECK(cublasDtrsm(a->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                              CUBLAS_DIAG_NON_UNIT, a->nc, a->nc, &one, a->coarse_F, a->nc,
                              a->coarse_X, a->nc),
                  ctx);
cleanup:
  return rc;
}

/* Level 0's host matrix (the host build and the test helper): the block pattern, the scalar CSR
 * pattern, the values' buffers; made once. */
static dt_status host_matrix(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int dpn = a->dpn;
  if (a->row_ptr) return DT_OK;
  DT_CHECK(a->nnz < INT_MAX && c->lin.mat != NULL, ctx, DT_ERR_UNSUPPORTED,
           "the algebraic multigrid keeps a scalar copy of the tangent with 32-bit indices, and "
           "this tangent has %lld nonzeros; use linear.preconditioner \"two_level\" or "
           "\"block_jacobi\"",
           (long long)a->nnz);
  a->brow_ptr = (int *)dt_calloc((size_t)a->n_nodes + 1, sizeof(int));
  a->bcol = (int *)dt_calloc((size_t)c->problem.n_blocks + 1, sizeof(int));
  a->row_ptr = (int *)dt_calloc((size_t)a->n + 1, sizeof(int));
  a->col = (int *)dt_calloc((size_t)a->nnz + 1, sizeof(int));
  a->val = (double *)dt_calloc((size_t)a->nnz + 1, sizeof(double));
  a->bsr = (double *)dt_calloc((size_t)a->nnz + 1, sizeof(double));
  DT_CHECK(a->brow_ptr && a->bcol && a->row_ptr && a->col && a->val && a->bsr, ctx, DT_ERR_NOMEM,
           "out of memory allocating the AMG preconditioner's copy of the tangent (%ld nonzeros)",
           a->nnz);
  DT_TRY(dt_cuda_d2h(c, a->brow_ptr, c->problem.brow_ptr, sizeof(int) * ((size_t)a->n_nodes + 1),
                     ctx));
  DT_TRY(dt_cuda_d2h(c, a->bcol, c->problem.bcol, sizeof(int) * (size_t)c->problem.n_blocks, ctx));
  for (int an = 0; an < a->n_nodes; an++) { /* row (an, i): dpn entries per neighbour */
    int b0 = a->brow_ptr[an], deg = a->brow_ptr[an + 1] - b0;
    for (int i = 0; i < dpn; i++) {
      int *cols = a->col + (long)dpn * dpn * b0 + (long)i * dpn * deg;
      a->row_ptr[an * dpn + i] = dpn * dpn * b0 + i * dpn * deg;
      for (int r = 0; r < deg; r++)
        for (int j = 0; j < dpn; j++) cols[r * dpn + j] = dpn * a->bcol[b0 + r] + j;
    }
  }
  a->row_ptr[a->n] = (int)a->nnz;
cleanup:
  if (rc != DT_OK) { /* made again on the next use */
    dt_free(a->row_ptr);
    a->row_ptr = NULL;
  }
  return rc;
}

/* The tangent's values down into level 0's host matrix. */
static dt_status host_values(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(host_matrix(c, a, ctx));
  DT_TRY(dt_cuda_d2h(c, a->bsr, amg_bsr(c, a), sizeof(double) * (size_t)a->nnz, ctx));
  reorder_values(a);
cleanup:
  return rc;
}

/* The host build, for a level 0 that does not coarsen (at most max_coarse DOFs, or no
 * aggregates): one level, factored densely on the host; the device keeps X = L^-1. */
static dt_status host_build(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg_options opt;
  dt_amg_input in = {a->n_nodes, a->dpn, a->xyz, a->con, NULL, NULL, NULL};
  DT_TRY(host_values(c, a, ctx));
  in.row_ptr = a->row_ptr;
  in.col = a->col;
  in.val = a->val;
  dt_amg_options_default(&opt);
  DT_TRY(dt_amg_create(&in, &opt, &a->h, ctx));
  DT_CHECK(a->h->n_levels == 1, ctx, DT_ERR_INTERNAL,
           "AMG: the host build coarsened (%d levels) where the device build did not",
           a->h->n_levels);
  a->nc = a->n;
  a->lev[0].n = a->n;
  DT_TRY(dt_cuda_amg_piece(c, a, (void **)&a->lev[0].t, sizeof(double) * ((size_t)a->n + 1),
                           "the AMG hierarchy (vectors)", ctx));
  DT_TRY(dt_cuda_amg_piece(c, a, (void **)&a->coarse_F, sizeof(double) * (size_t)a->n * a->n,
                           "the AMG coarsest factor", ctx));
  DT_TRY(dt_cuda_amg_piece(c, a, (void **)&a->coarse_X, sizeof(double) * (size_t)a->n * a->n,
                           "the AMG coarsest factor", ctx));
cleanup:
  return rc;
}

/* A device CSR matrix down into H (pattern and values; groups: the given nodes' DOF runs). */
static dt_status host_csr(dt_cuda *c, const amg_csr_d *D, int n_cols, const int *nodes, int n_nodes,
                          dt_amg_csr *H, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (!H->row_ptr) {
    H->n_rows = D->n_rows;
    H->n_cols = n_cols;
    AMG_HOST_ALLOC(H->row_ptr, D->n_rows + 1, ctx, "AMG host copy");
    AMG_HOST_ALLOC(H->col, D->nnz + 1, ctx, "AMG host copy");
    AMG_HOST_ALLOC(H->val, D->nnz + 1, ctx, "AMG host copy");
    AMG_HOST_ALLOC(H->group_ptr, n_nodes + 1, ctx, "AMG host copy");
    memcpy(H->group_ptr, nodes, sizeof(int) * ((size_t)n_nodes + 1));
    H->n_groups = n_nodes;
    DT_TRY(dt_cuda_d2h(c, H->row_ptr, D->ptr, sizeof(int) * ((size_t)D->n_rows + 1), ctx));
    DT_TRY(dt_cuda_d2h(c, H->col, D->col, sizeof(int) * (size_t)D->nnz, ctx));
  }
  DT_TRY(dt_cuda_d2h(c, H->val, D->val, sizeof(double) * (size_t)D->nnz, ctx));
cleanup:
  return rc;
}

/* The device hierarchy down into the host shell h (patterns once, values each time), so that
 * dt_amg_apply runs it: for dt_cuda_amg_host_apply. */
static dt_status download_hierarchy(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg *h = a->h;
  dt_amg_level *H0 = &h->lev[0];
  DT_TRY(host_values(c, a, ctx));
  if (!H0->A.row_ptr) {
    H0->A = (dt_amg_csr){a->n, a->n, a->row_ptr, a->col, a->val, 0, NULL, 1};
    AMG_HOST_ALLOC(H0->A.group_ptr, a->n_nodes + 1, ctx, "AMG host copy");
    memcpy(H0->A.group_ptr, H0->node_ptr, sizeof(int) * ((size_t)a->n_nodes + 1));
    H0->A.n_groups = a->n_nodes;
  }
  for (int l = 0; l < h->n_levels; l++) {
    dt_amg_level *H = &h->lev[l], *C = &h->lev[l + 1];
    amg_level_d *L = &a->lev[l];
    if (!H->b) {
      AMG_HOST_ALLOC(H->b, H->n + 1, ctx, "AMG host copy");
      AMG_HOST_ALLOC(H->x, H->n + 1, ctx, "AMG host copy");
      AMG_HOST_ALLOC(H->r, H->n + 1, ctx, "AMG host copy");
      AMG_HOST_ALLOC(H->d, H->n + 1, ctx, "AMG host copy");
      AMG_HOST_ALLOC(H->t, H->n + 1, ctx, "AMG host copy");
      AMG_HOST_ALLOC(H->dinv, H->n + 1, ctx, "AMG host copy");
    }
    if (l + 1 == h->n_levels) break;
    if (l > 0) DT_TRY(host_csr(c, &L->A, H->n, H->node_ptr, H->n_nodes, &H->A, ctx));
    DT_TRY(host_csr(c, &L->P, C->n, H->node_ptr, H->n_nodes, &H->P, ctx));
    DT_TRY(host_csr(c, &L->R, H->n, C->node_ptr, C->n_nodes, &H->R, ctx));
    DT_TRY(dt_cuda_d2h(c, H->dinv, L->dinv, sizeof(double) * (size_t)H->n, ctx));
  }
cleanup:
  return rc;
}

/* The first setup: the coordinates come down once; cuBLAS; cuSPARSE's SpMV buffer for level 0's
 * vectors; the kernels. */
static dt_status create_state(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = (dt_cuda_amg *)dt_calloc(1, sizeof *a);
  size_t buf = 0;
  const double one = 1.0, zero = 0.0;
  cusparseDnVecDescr_t v1 = NULL, v2 = NULL;
  c->amg = a;
  DT_CHECK(a != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating the AMG preconditioner");
  a->n_nodes = c->problem.n_nodes;
  a->dpn = c->problem.dpn;
  a->n = c->problem.n_dofs;
  a->nnz = (long)c->problem.nnz;
  a->xyz = (double *)dt_calloc(3 * (size_t)a->n_nodes, sizeof(double));
  a->con = (double *)dt_calloc((size_t)a->n, sizeof(double));
  DT_CHECK(a->xyz && a->con, ctx, DT_ERR_NOMEM,
           "out of memory allocating the AMG preconditioner's coordinates (%d nodes)", a->n_nodes);
  DT_TRY(dt_cuda_d2h(c, a->xyz, c->problem.x, sizeof(double) * 3 * (size_t)a->n_nodes, ctx));
  DT_TRY(dt_cuda_alloc(c, &a->blas_work, AMG_BLAS_WORKSPACE, "cuBLAS workspace (AMG)", ctx));
  DT_CUBLAS_CHECK(cublasCreate(&a->blas), ctx);
  DT_CUBLAS_CHECK(cublasSetStream(a->blas, c->stream), ctx);
  DT_CUBLAS_CHECK(cublasSetWorkspace(a->blas, a->blas_work, AMG_BLAS_WORKSPACE), ctx);
  /* The BSR SpMV of level 0 writes the AMG's vectors: its buffer for them (the backend's one
   * serves when large enough, as it is for ALG1). */
  DT_CUSPARSE_CHECK(cusparseCreateDnVec(&v1, a->n, c->state.vec[DT_VEC_PCG_Z], CUDA_R_64F), ctx);
  DT_CUSPARSE_CHECK(cusparseCreateDnVec(&v2, a->n, c->state.vec[DT_VEC_W], CUDA_R_64F), ctx);
  DT_CUSPARSE_CHECK(cusparseSpMV_bufferSize(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                            c->lin.mat, v1, &zero, v2, CUDA_R_64F, DT_CUDA_SPMV_ALG,
                                            &buf),
                    ctx);
  if (buf <= c->lin.spmv_buf_bytes)
    a->spmv_buf = c->lin.spmv_buf;
  else {
    DT_TRY(dt_cuda_alloc(c, &a->own_spmv_buf, buf, "SpMV buffer (AMG)", ctx));
    a->spmv_buf = a->own_spmv_buf;
  }
  DT_TRY(load_kernels(ctx));
  DT_TRY(dt_cuda_amg_load_refresh_kernels(ctx));
  DT_TRY(dt_cuda_amg_load_build_kernels(ctx));
cleanup:
  if (v1) cusparseDestroyDnVec(v1);
  if (v2) cusparseDestroyDnVec(v2);
  if (rc != DT_OK) dt_cuda_amg_destroy(c); /* the next setup starts over */
  return rc;
}

/* A new hierarchy: on the device, or on the host when level 0 does not coarsen; cuSPARSE's
 * views of level 0's vectors. */
static dt_status build(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int coarsened = 0;
  double t0 = now();
  if (a->vr) cusparseDestroyDnVec(a->vr);
  if (a->vd) cusparseDestroyDnVec(a->vd);
  a->vr = a->vd = NULL;
  a->built_on_host = 0;
  DT_TRY(dt_cuda_amg_build(c, a, &coarsened, ctx));
  if (!coarsened) {
    a->built_on_host = 1;
    DT_TRY(host_build(c, a, ctx));
    DT_TRY(dt_cuda_amg_upload_coarse(c, a, ctx));
  } else {
    DT_CUSPARSE_CHECK(cusparseCreateDnVec(&a->vr, a->n, a->lev[0].r, CUDA_R_64F), ctx);
    DT_CUSPARSE_CHECK(cusparseCreateDnVec(&a->vd, a->n, a->lev[0].d, CUDA_R_64F), ctx);
  }
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  a->h->seconds_build = now() - t0;
cleanup:
  /* a build that failed (one that does not fit, say) holds no device memory: the run may go
   * on with another preconditioner (newton.c, two_level_to_amg) */
  if (rc != DT_OK) dt_cuda_amg_free_pieces(c, a);
  return rc;
}

/* local: the hierarchy of a split run's part, of lval (made here from the tangent and the summed
 * blocks in lin.pc); 0: the tangent's. A change between the two builds anew. */
static dt_status amg_setup(dt_cuda *c, int keep, int local, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = c->amg;
  double t0 = now();
  int rebuild = 0;
  DT_CHECK(
      !c->problem.matrix_free, ctx, DT_ERR_UNSUPPORTED,
      "linear.preconditioner \"amg\" needs the assembled tangent (linear.operator \"assembled\")");
  if (!a) {
    DT_TRY(create_state(c, ctx));
    a = c->amg;
  }
  DT_TRY(dt_cuda_d2h(c, a->con, c->state.vec[DT_VEC_CON], sizeof(double) * (size_t)a->n, ctx));
  if (local) {
    if (!a->lval)
      DT_TRY(dt_cuda_alloc(c, (void **)&a->lval, sizeof(double) * ((size_t)a->nnz + 1),
                           "the part's AMG matrix", ctx));
    k_amg_local<<<amg_blocks_of(a->n_nodes), DT_CUDA_BLOCK, 0, c->stream>>>(
        a->n_nodes, a->dpn, c->problem.brow_ptr, c->problem.bcol, c->lin.val, c->lin.pc,
        c->state.vec[DT_VEC_CON], a->lval);
    DT_CUDA_LAUNCH_CHECK("k_amg_local", c->stream, ctx);
  }
  /* a second setup on the same tangent is the caller's cue that the kept aggregates no longer
   * serve (backend.h, pc_setup) */
  rebuild = !a->h || a->n_levels == 0 || a->serial == c->lin.tangent_serial || a->local != local ||
            dt_amg_constraints_changed(a->h, a->con);
  a->local = local;
  a->serial = c->lin.tangent_serial;
  a->n_levels = 0; /* until this setup succeeds */
  if (rebuild) {
    DT_TRY(build(c, a, ctx));
    a->builds++;
    a->t_builds += now() - t0;
  } else if (!a->built_on_host && keep) { /* level 0 only (cuda_amg_refresh.cu) */
    DT_TRY(dt_cuda_amg_refresh_fine(c, a, ctx));
    a->fine_refreshes++;
    a->t_fine += now() - t0;
  } else if (!a->built_on_host) { /* on the device (cuda_amg_refresh.cu) */
    DT_TRY(dt_cuda_amg_refresh(c, a, ctx));
    a->refreshes++;
    a->t_refreshes += now() - t0;
  } else { /* one level: the host refreshes its dense factor */
    double t1;
    DT_TRY(host_values(c, a, ctx));
    t1 = now();
    DT_TRY(dt_amg_refresh(a->h, a->val, ctx));
    DT_TRY(dt_cuda_amg_upload_coarse(c, a, ctx));
    DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
    a->refreshes++;
    a->s_values = t1 - t0;
    a->s_levels = 0.0;
    a->s_coarse = now() - t1;
  }
  a->last_built = rebuild;
  a->n_levels = a->h->n_levels;
cleanup:
  return rc;
}

dt_status dt_cuda_amg_setup(dt_cuda *c, int keep, dt_ctx *ctx) {
  return amg_setup(c, keep, 0, ctx);
}

/* Part op (backend.h, dt_backend_part_ops.pc_amg_local): lin.pc holds the summed diagonal
 * blocks that dt_cuda_pc_blocks wrote and the parts' exchange completed. */
extern "C" dt_status dt_cuda_pc_amg_local(void *impl, int kind, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  DT_CHECK((kind & ~DT_PC_KEEP_COARSE) == DT_PC_AMG, ctx, DT_ERR_INTERNAL,
           "pc_amg_local: kind %d is not amg", kind);
  c->lin.pc_serial++; /* as pc_setup: the PCG loops capture their launches anew */
  DT_TRY(amg_setup(c, (kind & DT_PC_KEEP_COARSE) != 0, 1, ctx));
  c->lin.pc_kind = DT_PC_AMG; /* a failed setup keeps the kind in use */
cleanup:
  return rc;
}

void dt_cuda_amg_destroy(dt_cuda *c) {
  dt_cuda_amg *a = c ? c->amg : NULL;
  if (!a) return;
  if (a->vr) cusparseDestroyDnVec(a->vr);
  if (a->vd) cusparseDestroyDnVec(a->vd);
  if (a->blas) cublasDestroy(a->blas);
  dt_cuda_amg_free_pieces(c, a);
  dt_free(a->pieces);
  dt_cuda_free(c, a->own_spmv_buf);
  dt_cuda_free(c, a->blas_work);
  dt_cuda_free(c, a->lval);
  dt_amg_destroy(&a->h);
  dt_free(a->brow_ptr);
  dt_free(a->bcol);
  dt_free(a->row_ptr);
  dt_free(a->col);
  dt_free(a->val);
  dt_free(a->bsr);
  dt_free(a->xyz);
  dt_free(a->con);
  dt_free(a->ref_host);
  dt_free(a);
  c->amg = NULL;
}

/* The view of a device-built hierarchy: dt_amg_view's lines from the device's counts. */
static void view_levels(const dt_cuda_amg *a, FILE *f) {
  const dt_amg *h = a->h;
  static const char *smoothers[] = {"Chebyshev", "l1-Jacobi"};
  double nnz0 = (double)a->nnz, nnz = 0.0, rows = 0.0;
  for (int l = 0; l < h->n_levels; l++) nnz += l == 0 ? nnz0 : a->lev[l].A.nnz, rows += h->lev[l].n;
  fprintf(f,
          "amg: %d levels, operator complexity %.2f, grid complexity %.2f, %.0f MB; %s smoother of "
          "degree %d, strength theta %.3g, coarsest solved densely; setup %.3f s, last refresh "
          "%.3f s (%d refreshes, %d of level 0 only)\n",
          h->n_levels, nnz / nnz0, rows / h->lev[0].n, a->piece_bytes / 1e6,
          smoothers[h->opt.smoother], h->opt.degree, h->opt.theta, h->seconds_build,
          h->seconds_refresh, a->refreshes, a->fine_refreshes);
  for (int l = 0; l < h->n_levels; l++) {
    const dt_amg_level *L = &h->lev[l];
    long z = l == 0 ? a->nnz : a->lev[l].A.nnz;
    fprintf(f, "  level %d: %d DOFs on %d nodes, %ld nonzeros (%.1f per row)", l, L->n, L->n_nodes,
            z, (double)z / (L->n ? L->n : 1));
    if (l + 1 < h->n_levels)
      fprintf(f, ", lambda_max(D^-1 A) %.3f, omega %.3f, aggregated at theta %.3g\n", L->lambda_max,
              L->omega, L->theta);
    else
      fprintf(f, ", dense Cholesky\n");
  }
}

void dt_cuda_amg_view(const dt_cuda *c, FILE *f) {
  const dt_cuda_amg *a = c->amg;
  if (!a || !a->h) return;
  if (a->local)
    fprintf(f, "  amg of a split run's part: its tangent with the diagonal blocks summed over the "
               "parts\n");
  if (a->built_on_host) {
    dt_amg_view(a->h, f);
    fprintf(f,
            "  amg on the host (one level: %d DOFs, at most max_coarse or no aggregates), its "
            "factor's X = L^-1 on the device: %.1f MB; %d builds, %d refreshes\n",
            a->n, a->piece_bytes / 1e6, a->builds, a->refreshes);
    return;
  }
  view_levels(a, f);
  fprintf(f,
          "  amg on the device: %.1f MB (levels, P, R, refresh maps, vectors, coarsest X = L^-1 "
          "of %d x %d), V-cycle on the device; %d builds, %d refreshes (%d of level 0 only); last "
          "build on the device: strength, patterns and maps %.3f s, aggregation and P_tent (host) "
          "%.3f s, values %.3f s, coarsest factor (host) and X %.3f s\n",
          a->piece_bytes / 1e6, a->nc, a->nc, a->builds, a->refreshes, a->fine_refreshes,
          a->b_structure, a->b_host, a->b_values, a->b_coarse);
  fprintf(f,
          "  amg setups in all: builds %.3f s, refreshes %.3f s, refreshes of level 0 only %.3f "
          "s\n",
          a->t_builds, a->t_refreshes, a->t_fine);
  if (!a->last_built)
    fprintf(f,
            "  last refresh on the device: tangent %.4f s, levels %.4f s, coarsest factor (host) "
            "and X %.4f s\n",
            a->s_values, a->s_levels, a->s_coarse);
}

/* Test helper (test_gpu_amg): z = M^-1 r by dt_amg_apply on the host with the device's
 * hierarchy (downloaded into the host one); r and z are host arrays of n_dofs. */
extern "C" dt_status dt_cuda_amg_host_apply(void *impl, const double *r, double *z, dt_ctx *ctx) {
  dt_cuda *c = (dt_cuda *)impl;
  dt_status rc = DT_OK;
  if (!c->amg || !c->amg->h || c->amg->n_levels == 0)
    return DT_ERROR(ctx, DT_ERR_INTERNAL, "no AMG hierarchy: run pc_setup(DT_PC_AMG) first");
  if (!c->amg->built_on_host) DT_TRY(download_hierarchy(c, c->amg, ctx));
  dt_amg_apply(c->amg->h, r, z);
cleanup:
  return rc;
}
