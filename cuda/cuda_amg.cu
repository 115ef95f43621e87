/* The smoothed-aggregation AMG preconditioner (linear.preconditioner "amg") on the CUDA backend.
 *
 * The hierarchy is built on the host by solver/amg/ (amg.h), which works on a node-blocked
 * scalar CSR matrix; the device keeps the tangent blocked (dt_bsr_block). So:
 *   build    (the first setup, and whenever the constrained set changes:
 *            dt_amg_constraints_changed) the blocked values come down (nnz doubles), and the
 *            first time the block pattern and the coordinates; the scalar CSR pattern is made
 *            once from the block pattern (row (a, i) holds the columns dpn b + j of a's
 *            neighbours b in order, as dt_problem_csr), and the values are reordered inside
 *            each block row (entry (i; r, j) of the CSR rows of node a is entry (j, i) of a's
 *            r-th block, column-major). dt_amg_create builds the hierarchy; its patterns, the
 *            maps of its refresh and its values go up into one device arena allocated per
 *            structure (grown, never shrunk).
 *   refresh  (every other setup: a new tangent, as the CPU backend refreshes) on the device,
 *            cuda_amg_refresh.cu: the same steps as dt_amg_refresh, with the host's arithmetic
 *            in the sparse products; only the coarsest matrix comes down to be factored.
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

#define AMG_ALIGN 256                        /* bytes: each arena piece starts aligned */
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

/* X = I (n x n), the right-hand sides of X = L^-1. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_amg_identity(int n, double *X) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < (long)n * n) X[t] = t / n == t % n ? 1.0 : 0.0;
}

static dt_status load_kernels(dt_ctx *ctx) {
  const void *k[] = {
      (const void *)k_amg_csr<4>,  (const void *)k_amg_csr<8>,     (const void *)k_amg_csr<16>,
      (const void *)k_amg_csr<32>, (const void *)k_amg_cheb_first, (const void *)k_amg_cheb_step,
      (const void *)k_amg_jacobi,  (const void *)k_amg_add,        (const void *)k_amg_identity};
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
 * product), coarser levels through k_amg_csr. */
static dt_status spmv_A(dt_cuda *c, int l, double alpha, amg_vec x, double beta, amg_vec y,
                        dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = c->amg;
  if (l > 0) return dt_cuda_amg_csr_spmv(c, &a->lev[l].A, alpha, x.p, beta, y.p, ctx);
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
  AMG_CUBLAS_CHECK(
      cublasDgemv(a->blas, CUBLAS_OP_N, a->nc, a->nc, &one, a->coarse_X, a->nc, b, 1, &zero, t, 1),
      ctx);
  AMG_CUBLAS_CHECK(
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

/* The arena: pieces carved in order, each aligned; with no arena yet only counted. */
static void *carve(dt_cuda_amg *a, size_t bytes) {
  void *p = a->arena ? (char *)a->arena + a->arena_used : NULL;
  a->arena_used += (bytes + AMG_ALIGN - 1) / AMG_ALIGN * AMG_ALIGN;
  return p;
}

static void csr_layout(dt_cuda_amg *a, amg_csr_d *D, const dt_amg_csr *H) {
  double mean;
  D->n_rows = H->n_rows;
  D->nnz = H->row_ptr[H->n_rows];
  D->ptr = (int *)carve(a, sizeof(int) * ((size_t)H->n_rows + 1));
  D->col = (int *)carve(a, sizeof(int) * (size_t)D->nnz);
  D->val = (double *)carve(a, sizeof(double) * (size_t)D->nnz);
  mean = H->n_rows ? (double)D->nnz / H->n_rows : 0.0;
  D->lanes = mean >= 64.0 ? 32 : mean >= 24.0 ? 16 : mean >= 8.0 ? 8 : 4;
}

/* Every device array of the hierarchy h, carved from the arena (or counted: no arena). */
static void layout(dt_cuda_amg *a) {
  const dt_amg *h = a->h;
  int nl = h->n_levels;
  a->arena_used = 0;
  for (int l = 0; l < nl; l++) {
    amg_level_d *L = &a->lev[l];
    const dt_amg_level *H = &h->lev[l];
    size_t nb = sizeof(double) * (size_t)H->n;
    memset(L, 0, sizeof *L);
    L->n = H->n;
    if (l > 0 || nl > 1) csr_layout(a, &L->A, &H->A); /* level 0's: the refresh's scalar copy */
    if (l > 0) {
      L->b = (double *)carve(a, nb);
      L->x = (double *)carve(a, nb);
    }
    if (l + 1 == nl) {
      L->t = (double *)carve(a, nb);
      continue;
    }
    csr_layout(a, &L->P, &H->P);
    csr_layout(a, &L->R, &H->R);
    L->dinv = (double *)carve(a, nb);
    L->r = (double *)carve(a, nb);
    L->d = (double *)carve(a, nb);
    L->n_a_groups = H->A.n_groups;
    L->n_r_groups = H->R.n_groups;
    L->a_groups = (int *)carve(a, sizeof(int) * ((size_t)H->A.n_groups + 1));
    L->r_groups = (int *)carve(a, sizeof(int) * ((size_t)H->R.n_groups + 1));
    L->diag_pos = (int *)carve(a, sizeof(int) * (size_t)H->n);
    csr_layout(a, &L->Pt, &H->P_tent);
    csr_layout(a, &L->AP, &H->AP);
    L->pt_pos = (int *)carve(a, sizeof(int) * (size_t)L->Pt.nnz);
    L->r_perm = (int *)carve(a, sizeof(int) * (size_t)L->P.nnz);
    L->ac_mirror = (int *)carve(a, sizeof(int) * (size_t)h->lev[l + 1].A.row_ptr[h->lev[l + 1].n]);
  }
  a->nc = h->lev[nl - 1].n;
  a->coarse_F = (double *)carve(a, sizeof(double) * (size_t)a->nc * a->nc);
  a->coarse_X = (double *)carve(a, sizeof(double) * (size_t)a->nc * a->nc);
  a->lz = a->lz_start = a->ref = NULL;
  a->bad = NULL;
  if (nl == 1) return; /* refreshed on the host */
  a->lz = (double *)carve(a, sizeof(double) * 4 * (size_t)h->lev[0].n);
  a->lz_start = (double *)carve(a, sizeof(double) * (size_t)h->lev[0].n);
  a->ref = (double *)carve(a, sizeof(double) * (size_t)a->nc);
  a->bad = (int *)carve(a, sizeof(int));
}

static dt_status csr_pattern_upload(dt_cuda *c, amg_csr_d *D, const dt_amg_csr *H, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(dt_cuda_h2d(c, D->ptr, H->row_ptr, sizeof(int) * ((size_t)D->n_rows + 1), ctx));
  DT_TRY(dt_cuda_h2d(c, D->col, H->col, sizeof(int) * (size_t)D->nnz, ctx));
cleanup:
  return rc;
}

/* The arena for h's levels (a larger one when they need more), the patterns, cuSPARSE's views of
 * level 0's vectors. */
static dt_status device_structure(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  void *arena = a->arena;
  size_t need = 0, free_b = 0, total_b = 0;
  const dt_amg *h = a->h;
  a->n_levels = 0;
  a->arena = NULL;
  layout(a); /* count */
  need = a->arena_used;
  a->arena = arena;
  if (need > a->arena_bytes) {
    dt_cuda_free(c, a->arena);
    a->arena = NULL;
    a->arena_bytes = 0;
    rc = dt_cuda_alloc(c, &a->arena, need, "the AMG hierarchy", ctx);
    if (rc == DT_ERR_DEVICE_NOMEM) {
      if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
      rc = DT_ERROR(
          ctx, DT_ERR_DEVICE_NOMEM,
          "the AMG preconditioner's hierarchy (%d levels, %.1f MB, allocated at its first setup, "
          "outside the job's memory estimate) does not fit: %.1f MB free on the device; "
          "linear.preconditioner \"two_level\" or \"block_jacobi\" needs less",
          h->n_levels, need / 1e6, free_b / 1e6);
    }
    if (rc != DT_OK) goto cleanup;
    a->arena_bytes = need;
  }
  layout(a); /* carve */
  for (int l = 0; l < h->n_levels; l++) {
    amg_level_d *L = &a->lev[l];
    const dt_amg_level *H = &h->lev[l];
    if (l > 0 || h->n_levels > 1) DT_TRY(csr_pattern_upload(c, &L->A, &H->A, ctx));
    if (l + 1 == h->n_levels) continue;
    DT_TRY(csr_pattern_upload(c, &L->P, &H->P, ctx));
    DT_TRY(csr_pattern_upload(c, &L->R, &H->R, ctx));
    /* what the refresh needs (P_tent's values never change) */
    DT_TRY(dt_cuda_h2d(c, L->a_groups, H->A.group_ptr, sizeof(int) * ((size_t)L->n_a_groups + 1),
                       ctx));
    DT_TRY(dt_cuda_h2d(c, L->r_groups, H->R.group_ptr, sizeof(int) * ((size_t)L->n_r_groups + 1),
                       ctx));
    DT_TRY(dt_cuda_h2d(c, L->diag_pos, H->diag_pos, sizeof(int) * (size_t)L->n, ctx));
    DT_TRY(csr_pattern_upload(c, &L->Pt, &H->P_tent, ctx));
    DT_TRY(dt_cuda_h2d(c, L->Pt.val, H->P_tent.val, sizeof(double) * (size_t)L->Pt.nnz, ctx));
    DT_TRY(csr_pattern_upload(c, &L->AP, &H->AP, ctx));
    DT_TRY(dt_cuda_h2d(c, L->pt_pos, H->pt_pos, sizeof(int) * (size_t)L->Pt.nnz, ctx));
    DT_TRY(dt_cuda_h2d(c, L->r_perm, H->r_perm, sizeof(int) * (size_t)L->P.nnz, ctx));
    DT_TRY(
        dt_cuda_h2d(c, L->ac_mirror, H->ac_mirror, sizeof(int) * (size_t)a->lev[l + 1].A.nnz, ctx));
  }
  if (h->n_levels > 1) {
    double *start = (double *)dt_calloc((size_t)a->n, sizeof(double));
    dt_free(a->ref_host);
    a->ref_host = (double *)dt_calloc((size_t)a->nc, sizeof(double));
    DT_CHECK(start && a->ref_host, ctx, DT_ERR_NOMEM,
             "out of memory for the AMG refresh's host buffers");
    for (int i = 0; i < a->n; i++) start[i] = dt_amg_lanczos_start(i);
    rc = dt_cuda_h2d(c, a->lz_start, start, sizeof(double) * (size_t)a->n, ctx);
    dt_free(start);
    if (rc != DT_OK) goto cleanup;
  }
  if (a->vr) cusparseDestroyDnVec(a->vr);
  if (a->vd) cusparseDestroyDnVec(a->vd);
  a->vr = a->vd = NULL;
  if (h->n_levels > 1) {
    DT_CUSPARSE_CHECK(cusparseCreateDnVec(&a->vr, a->n, a->lev[0].r, CUDA_R_64F), ctx);
    DT_CUSPARSE_CHECK(cusparseCreateDnVec(&a->vd, a->n, a->lev[0].d, CUDA_R_64F), ctx);
  }
cleanup:
  return rc;
}

/* val = the blocked values in the scalar CSR order (the top of the file). */
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
  AMG_CUBLAS_CHECK(cublasDtrsm(a->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                               CUBLAS_DIAG_NON_UNIT, a->nc, a->nc, &one, a->coarse_F, a->nc,
                               a->coarse_X, a->nc),
                   ctx);
cleanup:
  return rc;
}

/* The host hierarchy's values up: every level's (A for l > 0, P, R, the smoother's diagonal)
 * and the coarsest level's X = L^-1. */
static dt_status upload_values(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_amg *h = a->h;
  for (int l = 0; l < h->n_levels; l++) {
    amg_level_d *L = &a->lev[l];
    const dt_amg_level *H = &h->lev[l];
    if (l > 0) DT_TRY(dt_cuda_h2d(c, L->A.val, H->A.val, sizeof(double) * (size_t)L->A.nnz, ctx));
    if (l + 1 == h->n_levels) continue;
    DT_TRY(dt_cuda_h2d(c, L->P.val, H->P.val, sizeof(double) * (size_t)L->P.nnz, ctx));
    DT_TRY(dt_cuda_h2d(c, L->R.val, H->R.val, sizeof(double) * (size_t)L->R.nnz, ctx));
    DT_TRY(dt_cuda_h2d(c, L->dinv, H->dinv, sizeof(double) * (size_t)L->n, ctx));
  }
  DT_TRY(dt_cuda_amg_upload_coarse(c, a, ctx));
cleanup:
  return rc;
}

/* The device levels' values down into h (level 0's from the tangent), for dt_amg_apply on the
 * host with the device's hierarchy (dt_cuda_amg_host_apply). */
static dt_status download_values(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg *h = a->h;
  DT_TRY(dt_cuda_d2h(c, a->bsr, c->lin.val, sizeof(double) * (size_t)a->nnz, ctx));
  reorder_values(a);
  for (int l = 0; l + 1 < h->n_levels; l++) {
    amg_level_d *L = &a->lev[l], *C = &a->lev[l + 1];
    dt_amg_level *H = &h->lev[l];
    DT_TRY(dt_cuda_d2h(c, h->lev[l + 1].A.val, C->A.val, sizeof(double) * (size_t)C->A.nnz, ctx));
    DT_TRY(dt_cuda_d2h(c, H->P.val, L->P.val, sizeof(double) * (size_t)L->P.nnz, ctx));
    DT_TRY(dt_cuda_d2h(c, H->R.val, L->R.val, sizeof(double) * (size_t)L->R.nnz, ctx));
    DT_TRY(dt_cuda_d2h(c, H->dinv, L->dinv, sizeof(double) * (size_t)L->n, ctx));
  }
cleanup:
  return rc;
}

/* The first setup: the block pattern and coordinates come down once; the scalar CSR pattern of
 * level 0; host buffers; cuBLAS; cuSPARSE's SpMV buffer for level 0's vectors; the kernels. */
static dt_status create_state(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = (dt_cuda_amg *)dt_calloc(1, sizeof *a);
  int dpn = c->problem.dpn;
  size_t buf = 0;
  const double one = 1.0, zero = 0.0;
  cusparseDnVecDescr_t v1 = NULL, v2 = NULL;
  c->amg = a;
  DT_CHECK(a != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating the AMG preconditioner");
  a->n_nodes = c->problem.n_nodes;
  a->dpn = dpn;
  a->n = c->problem.n_dofs;
  a->nnz = (long)c->problem.nnz;
  a->brow_ptr = (int *)dt_calloc((size_t)a->n_nodes + 1, sizeof(int));
  a->bcol = (int *)dt_calloc((size_t)c->problem.n_blocks + 1, sizeof(int));
  a->row_ptr = (int *)dt_calloc((size_t)a->n + 1, sizeof(int));
  a->col = (int *)dt_calloc((size_t)a->nnz + 1, sizeof(int));
  a->val = (double *)dt_calloc((size_t)a->nnz + 1, sizeof(double));
  a->bsr = (double *)dt_calloc((size_t)a->nnz + 1, sizeof(double));
  a->xyz = (double *)dt_calloc(3 * (size_t)a->n_nodes, sizeof(double));
  a->con = (double *)dt_calloc((size_t)a->n, sizeof(double));
  DT_CHECK(a->brow_ptr && a->bcol && a->row_ptr && a->col && a->val && a->bsr && a->xyz && a->con,
           ctx, DT_ERR_NOMEM,
           "out of memory allocating the AMG preconditioner's copy of the tangent (%ld nonzeros)",
           a->nnz);
  DT_TRY(dt_cuda_d2h(c, a->brow_ptr, c->problem.brow_ptr, sizeof(int) * ((size_t)a->n_nodes + 1),
                     ctx));
  DT_TRY(dt_cuda_d2h(c, a->bcol, c->problem.bcol, sizeof(int) * (size_t)c->problem.n_blocks, ctx));
  DT_TRY(dt_cuda_d2h(c, a->xyz, c->problem.x, sizeof(double) * 3 * (size_t)a->n_nodes, ctx));
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
  DT_TRY(dt_cuda_alloc(c, &a->blas_work, AMG_BLAS_WORKSPACE, "cuBLAS workspace (AMG)", ctx));
  AMG_CUBLAS_CHECK(cublasCreate(&a->blas), ctx);
  AMG_CUBLAS_CHECK(cublasSetStream(a->blas, c->stream), ctx);
  AMG_CUBLAS_CHECK(cublasSetWorkspace(a->blas, a->blas_work, AMG_BLAS_WORKSPACE), ctx);
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
cleanup:
  if (v1) cusparseDestroyDnVec(v1);
  if (v2) cusparseDestroyDnVec(v2);
  if (rc != DT_OK) dt_cuda_amg_destroy(c); /* the next setup starts over */
  return rc;
}

dt_status dt_cuda_amg_setup(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_amg *a = c->amg;
  double t0 = now(), t1 = 0.0, t2 = 0.0;
  int build = 0;
  DT_CHECK(
      !c->problem.matrix_free, ctx, DT_ERR_UNSUPPORTED,
      "linear.preconditioner \"amg\" needs the assembled tangent (linear.operator \"assembled\")");
  if (!a) {
    DT_TRY(create_state(c, ctx));
    a = c->amg;
  }
  DT_TRY(dt_cuda_d2h(c, a->con, c->state.vec[DT_VEC_CON], sizeof(double) * (size_t)a->n, ctx));
  /* a second setup on the same tangent is the caller's cue that the kept aggregates no longer
   * serve (backend.h, pc_setup) */
  build = !a->h || a->n_levels == 0 || a->serial == c->lin.tangent_serial ||
          dt_amg_constraints_changed(a->h, a->con);
  a->serial = c->lin.tangent_serial;
  if (!build && a->h->n_levels > 1) { /* on the device (cuda_amg_refresh.cu) */
    DT_TRY(dt_cuda_amg_refresh(c, a, ctx));
    a->refreshes++;
    a->last_built = 0;
    goto cleanup;
  }
  DT_TRY(dt_cuda_d2h(c, a->bsr, c->lin.val, sizeof(double) * (size_t)a->nnz, ctx));
  reorder_values(a);
  t1 = now();
  if (build) {
    dt_amg_options opt;
    dt_amg_input in = {a->n_nodes, a->dpn, a->xyz, a->con, a->row_ptr, a->col, a->val};
    dt_amg_destroy(&a->h);
    a->n_levels = 0;
    dt_amg_options_default(&opt);
    DT_TRY(dt_amg_create(&in, &opt, &a->h, ctx));
    t2 = now();
    DT_TRY(device_structure(c, a, ctx));
  } else { /* one level: the host refreshes its dense factor */
    DT_TRY(dt_amg_refresh(a->h, a->val, ctx));
    t2 = now();
  }
  DT_TRY(upload_values(c, a, ctx));
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  a->n_levels = a->h->n_levels;
  if (build)
    a->builds++;
  else
    a->refreshes++;
  a->last_built = build;
  a->s_values = t1 - t0;
  a->s_levels = t2 - t1;
  a->s_coarse = now() - t2;
cleanup:
  if (rc != DT_OK && a && build) a->n_levels = 0; /* the next setup builds again */
  return rc;
}

void dt_cuda_amg_destroy(dt_cuda *c) {
  dt_cuda_amg *a = c ? c->amg : NULL;
  if (!a) return;
  if (a->vr) cusparseDestroyDnVec(a->vr);
  if (a->vd) cusparseDestroyDnVec(a->vd);
  if (a->blas) cublasDestroy(a->blas);
  dt_cuda_free(c, a->arena);
  dt_cuda_free(c, a->own_spmv_buf);
  dt_cuda_free(c, a->blas_work);
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

void dt_cuda_amg_view(const dt_cuda *c, FILE *f) {
  const dt_cuda_amg *a = c->amg;
  if (!a || !a->h) return;
  dt_amg_view(a->h, f);
  if (a->last_built || a->h->n_levels == 1)
    fprintf(f,
            "  amg on the device: %.1f MB (levels, P, R, refresh maps, vectors, coarsest X = L^-1 "
            "of %d x %d), "
            "V-cycle on the device; %d builds, %d refreshes; last setup on the host: download and "
            "reorder "
            "%.3f s, %s %.3f s, upload %.3f s\n",
            a->arena_bytes / 1e6, a->nc, a->nc, a->builds, a->refreshes, a->s_values,
            a->last_built ? "build" : "refresh", a->s_levels, a->s_coarse);
  else
    fprintf(f,
            "  amg on the device: %.1f MB (levels, P, R, refresh maps, vectors, coarsest X = L^-1 "
            "of %d x %d), "
            "V-cycle on the device; %d builds, %d refreshes; last refresh on the device: tangent "
            "%.4f s, "
            "levels %.4f s, coarsest factor (host) and X %.4f s\n",
            a->arena_bytes / 1e6, a->nc, a->nc, a->builds, a->refreshes, a->s_values, a->s_levels,
            a->s_coarse);
}

/* Test helper (test_gpu_amg): z = M^-1 r by dt_amg_apply on the host with the device's
 * hierarchy (its values downloaded into the host one); r and z are host arrays of n_dofs. */
extern "C" dt_status dt_cuda_amg_host_apply(void *impl, const double *r, double *z, dt_ctx *ctx) {
  dt_cuda *c = (dt_cuda *)impl;
  dt_status rc = DT_OK;
  if (!c->amg || !c->amg->h || c->amg->n_levels == 0)
    return DT_ERROR(ctx, DT_ERR_INTERNAL, "no AMG hierarchy: run pc_setup(DT_PC_AMG) first");
  DT_TRY(download_values(c, c->amg, ctx));
  dt_amg_apply(c->amg->h, r, z);
cleanup:
  return rc;
}
