/* The AMG hierarchy's values refreshed on the device: a new Newton tangent, the same aggregates
 * and patterns (dt_amg_refresh's steps, amg_setup.c, in the same order):
 *   level 0's scalar CSR values from the blocked tangent (the reordering of cuda_amg.cu's top);
 *   per level l below the coarsest: the point diagonal's inverse (a non-positive a_ii is the
 *   tangent's lost stiffness: DT_ERR_NOT_CONVERGED), lambda_max(D^-1 A) by Lanczos (the steps
 *   on the device, cuBLAS dot products, the tridiagonal's eigenvalue on the host), then
 *     P = P_tent - omega D^-1 (A P_tent),  R = P^T (a scatter through r_perm),
 *     A P,  A_{l+1} = R (A P) (columns from each row group's first row on, then mirrored);
 *   the coarsest level's pivot scales (amg_dense.c's pivot_scale, by rows of R), then its
 *   values and scales come down and the host factors them (at most max_coarse DOFs: a few
 *   milliseconds), and X = L^-1 goes up.
 * The sparse products keep the host's arithmetic: one warp per row group of the left factor
 * walks its entries in order, each lane adds the products of one entry of the right factor's
 * row into the group's rows of C (the lanes touch distinct columns, so no two collide, and a
 * __syncwarp between entries orders the sums), each product and sum rounded separately as on
 * the host (no fused multiply-add). Every value but lambda_max's dot products is therefore the
 * host's to the bit; lambda_max differs by rounding, and with it omega.
 * Why on the device: on the host the refresh took 0.27 s at 119k DOFs and 16 cores, against a
 * 12 ms solve, so AMG lost to block Jacobi on the GPU (docs/benchmarks.md). */
#include <limits.h>
#include <math.h>
#include <time.h>

#include "cuda_amg_internal.h"

#define AMG_WARP 32

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Level 0's scalar CSR values from the blocked tangent: row (a, i), entry r dpn + j of node
 * a's r-th neighbour is entry (i, j) of its block, stored at j dpn + i (column-major). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_unblock(int n_nodes, int dpn, const int *__restrict__ brow_ptr,
                  const double *__restrict__ bsr, double *__restrict__ val) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n_nodes * dpn) return;
  int a = t / dpn, i = t % dpn, d2 = dpn * dpn, b0 = brow_ptr[a], deg = brow_ptr[a + 1] - b0;
  long base = (long)d2 * b0;
  double *row = val + base + (long)i * dpn * deg;
  for (int r = 0; r < deg; r++)
    for (int j = 0; j < dpn; j++) row[r * dpn + j] = bsr[base + (long)r * d2 + j * dpn + i];
}

/* dinv = 1 / a_ii (0 where a_ii <= 0, whose first row goes to *bad). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_dinv(int n, const double *__restrict__ val, const int *__restrict__ diag_pos,
               double *__restrict__ dinv, int *bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = val[diag_pos[i]];
  dinv[i] = a > 0.0 ? 1.0 / a : 0.0;
  if (!(a > 0.0)) atomicMin(bad, i);
}

/* l1-Jacobi's inverse diagonal: 1 / sum_j |a_ij|. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_l1(int n, const int *__restrict__ ptr, const double *__restrict__ val,
             double *__restrict__ dinv) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  for (int k = ptr[i]; k < ptr[i + 1]; k++) s += fabs(val[k]);
  dinv[i] = 1.0 / s;
}

/* Lanczos: v = start, vp = 0. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_lz_start(int n, const double *__restrict__ start, double *__restrict__ v,
                   double *__restrict__ vp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = start[i], vp[i] = 0.0;
}

/* v /= nrm (1 after the first step); s = D^-1/2 v. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_lz_in(int n, double nrm, const double *__restrict__ dinv, double *__restrict__ v,
                double *__restrict__ s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double vi = v[i] / nrm;
  v[i] = vi;
  s[i] = sqrt(dinv[i]) * vi;
}

/* w = D^-1/2 w. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_lz_out(int n, const double *__restrict__ dinv, double *__restrict__ w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] *= sqrt(dinv[i]);
}

/* w -= alpha v + beta vp. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_lz_orth(int n, double alpha, double beta, const double *__restrict__ v,
                  const double *__restrict__ vp, double *__restrict__ w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= alpha * v[i] + beta * vp[i];
}

/* w /= beta. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_lz_div(int n, double beta, double *__restrict__ w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] /= beta;
}

/* C = A B on C's pattern (amg_spgemm.c, numeric_group), one warp per row group of A (rows with
 * one column list; C's rows of the group share one list too). upper: only the columns from the
 * group's first row on (the rest is mirrored afterwards). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_spgemm(int n_groups, const int *__restrict__ groups, const int *__restrict__ aptr,
                 const int *__restrict__ acol, const double *__restrict__ aval,
                 const int *__restrict__ bptr, const int *__restrict__ bcol,
                 const double *__restrict__ bval, const int *__restrict__ cptr,
                 const int *__restrict__ ccol, double *cval, int upper) {
  int g = (int)(((long)blockIdx.x * blockDim.x + threadIdx.x) / AMG_WARP),
      lane = threadIdx.x % AMG_WARP;
  if (g >= n_groups) return; /* the whole warp */
  int i0 = groups[g], gs = groups[g + 1] - i0, c0 = cptr[i0], len = cptr[i0 + 1] - c0;
  int alen = aptr[i0 + 1] - aptr[i0];
  const int *cc = ccol + c0;
  for (int d = 0; d < gs; d++)
    for (int j = lane; j < len; j += AMG_WARP) cval[cptr[i0 + d] + j] = 0.0;
  __syncwarp();
  for (int k = 0; k < alen; k++) {
    double av[DT_AMG_GROUP_MAX];
    int nz = 0, r = acol[aptr[i0] + k], mb, me;
    for (int d = 0; d < gs; d++) {
      av[d] = aval[aptr[i0 + d] + k];
      nz |= av[d] != 0.0;
    }
    if (!nz) continue; /* the zeroed couplings of constrained DOFs (uniform across the warp) */
    mb = bptr[r];
    me = bptr[r + 1];
    if (upper) mb = amg_lower_bound(bcol, mb, me, i0);
    for (int m = mb + lane; m < me; m += AMG_WARP) {
      int p = amg_lower_bound(cc, 0, len, bcol[m]);
      double b = bval[m];
      for (int d = 0; d < gs; d++) {
        double *cv = cval + cptr[i0 + d] + p;
        *cv = __dadd_rn(*cv, __dmul_rn(av[d], b));
      }
    }
    __syncwarp();
  }
}

/* P = P_tent - omega D^-1 (A P_tent), P holding A P_tent on entry. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_prolong(int n, double omega, const double *__restrict__ dinv,
                  const int *__restrict__ pptr, double *pval, const int *__restrict__ tptr,
                  const double *__restrict__ tval, const int *__restrict__ pt_pos) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = -omega * dinv[i];
  for (int k = pptr[i]; k < pptr[i + 1]; k++) pval[k] = __dmul_rn(pval[k], s);
  for (int k = tptr[i]; k < tptr[i + 1]; k++) pval[pt_pos[k]] = __dadd_rn(pval[pt_pos[k]], tval[k]);
}

/* to[map[k]] = from[k] (R's values from P's). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_scatter(int nnz, const double *__restrict__ from, const int *__restrict__ map,
                  double *__restrict__ to) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) to[map[k]] = from[k];
}

/* The entries left of each row group's first column from their transposes. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_mirror(int nnz, const int *__restrict__ mirror, double *val) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz && mirror[k] >= 0) val[k] = val[mirror[k]];
}

/* ref_j = sum_i P_ij^2 a_ii over the level above (amg_dense.c), along row j of R = P^T, whose
 * columns i ascend as the host's sum does. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_amg_pivot_ref(int n, const int *__restrict__ rptr, const int *__restrict__ rcol,
                    const double *__restrict__ rval, const double *__restrict__ aval,
                    const int *__restrict__ diag_pos, double *__restrict__ ref) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  double s = 0.0;
  for (int k = rptr[j]; k < rptr[j + 1]; k++)
    s = __dadd_rn(s, __dmul_rn(__dmul_rn(rval[k], rval[k]), aval[diag_pos[rcol[k]]]));
  ref[j] = s;
}

dt_status dt_cuda_amg_load_refresh_kernels(dt_ctx *ctx) {
  const void *k[] = {
      (const void *)k_amg_unblock,  (const void *)k_amg_dinv,    (const void *)k_amg_l1,
      (const void *)k_amg_lz_start, (const void *)k_amg_lz_in,   (const void *)k_amg_lz_out,
      (const void *)k_amg_lz_orth,  (const void *)k_amg_lz_div,  (const void *)k_amg_spgemm,
      (const void *)k_amg_prolong,  (const void *)k_amg_scatter, (const void *)k_amg_mirror,
      (const void *)k_amg_pivot_ref};
  return dt_cuda_load_list(k, (int)(sizeof k / sizeof k[0]), NULL, ctx);
}

/* C = A B (A's row groups), or with mirror the Galerkin product's upper part, mirrored. */
static dt_status spgemm(dt_cuda *c, const amg_csr_d *A, int n_groups, const int *groups,
                        const amg_csr_d *B, amg_csr_d *C, const int *mirror, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (n_groups == 0) return DT_OK;
  k_amg_spgemm<<<amg_blocks_of((long)n_groups * AMG_WARP), DT_CUDA_BLOCK, 0, c->stream>>>(
      n_groups, groups, A->ptr, A->col, A->val, B->ptr, B->col, B->val, C->ptr, C->col, C->val,
      mirror != NULL);
  DT_CUDA_LAUNCH_CHECK("k_amg_spgemm", c->stream, ctx);
  if (!mirror || C->nnz == 0) goto cleanup;
  k_amg_mirror<<<amg_blocks_of(C->nnz), DT_CUDA_BLOCK, 0, c->stream>>>(C->nnz, mirror, C->val);
  DT_CUDA_LAUNCH_CHECK("k_amg_mirror", c->stream, ctx);
cleanup:
  return rc;
}

static dt_status dot(dt_cuda_amg *a, int n, const double *x, const double *y, double *out,
                     dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUBLAS_CHECK(cublasDdot(a->blas, n, x, 1, y, 1, out), ctx);
cleanup:
  return rc;
}

/* lambda_max(D^-1 A_l) by the host's Lanczos steps (amg_smoother.c, dt_amg_lambda_max). */
static dt_status lambda_max(dt_cuda *c, dt_cuda_amg *a, int l, double *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amg_level_d *L = &a->lev[l];
  int n = L->n, n0 = a->lev[0].n, k = 0, steps = a->h->opt.lanczos_steps, grid = amg_blocks_of(n);
  double alpha[DT_AMG_LANCZOS_MAX], beta[DT_AMG_LANCZOS_MAX], b_prev = 0.0, nrm = 0.0;
  double *v = a->lz, *vp = v + n0, *w = vp + n0, *s = w + n0, *tmp;
  if (steps > DT_AMG_LANCZOS_MAX) steps = DT_AMG_LANCZOS_MAX;
  k_amg_lz_start<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n, a->lz_start, v, vp);
  DT_CUDA_LAUNCH_CHECK("k_amg_lz_start", c->stream, ctx);
  DT_TRY(dot(a, n, v, v, &nrm, ctx));
  nrm = sqrt(nrm);
  for (int j = 0; j < steps; j++) {
    k_amg_lz_in<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n, j == 0 ? nrm : 1.0, L->dinv, v, s);
    DT_CUDA_LAUNCH_CHECK("k_amg_lz_in", c->stream, ctx);
    DT_TRY(dt_cuda_amg_csr_spmv(c, &L->A, 1.0, s, 0.0, w, ctx)); /* w = D^-1/2 A D^-1/2 v */
    k_amg_lz_out<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n, L->dinv, w);
    DT_CUDA_LAUNCH_CHECK("k_amg_lz_out", c->stream, ctx);
    DT_TRY(dot(a, n, w, v, &alpha[j], ctx));
    k = j + 1;
    k_amg_lz_orth<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n, alpha[j], b_prev, v, vp, w);
    DT_CUDA_LAUNCH_CHECK("k_amg_lz_orth", c->stream, ctx);
    DT_TRY(dot(a, n, w, w, &beta[j], ctx));
    beta[j] = sqrt(beta[j]);
    if (!(beta[j] > DT_AMG_LANCZOS_BREAK * fabs(alpha[j])))
      break; /* an invariant subspace: T is exact */
    k_amg_lz_div<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n, beta[j], w);
    DT_CUDA_LAUNCH_CHECK("k_amg_lz_div", c->stream, ctx);
    tmp = vp, vp = v, v = w, w = tmp;
    b_prev = beta[j];
  }
  *out = dt_amg_ritz_max(alpha, beta, k);
cleanup:
  return rc;
}

/* Level l's point diagonal (its inverse in dinv) and lambda_max(D^-1 A_l). */
static dt_status level_diagonal(dt_cuda *c, dt_cuda_amg *a, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amg_level_d *L = &a->lev[l];
  dt_amg_level *H = &a->h->lev[l];
  int bad = INT_MAX, grid = amg_blocks_of(L->n);
  DT_TRY(dt_cuda_h2d(c, a->bad, &bad, sizeof bad, ctx));
  k_amg_dinv<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(L->n, L->A.val, L->diag_pos, L->dinv, a->bad);
  DT_CUDA_LAUNCH_CHECK("k_amg_dinv", c->stream, ctx);
  DT_TRY(dt_cuda_d2h(c, &bad, a->bad, sizeof bad, ctx));
  DT_CHECK(bad == INT_MAX, ctx, DT_ERR_NOT_CONVERGED,
           "AMG: the matrix has a non-positive diagonal entry (row %d of a level of %d rows)", bad,
           L->n);
  DT_TRY(lambda_max(c, a, l, &H->lambda_max, ctx));
  DT_CHECK(H->lambda_max > 0.0, ctx, DT_ERR_NOT_CONVERGED,
           "AMG: lambda_max(D^-1 A) = %g on level %d", H->lambda_max, l);
cleanup:
  return rc;
}

/* l1-Jacobi's smoother replaces the point diagonal once the transfer no longer needs it. */
static dt_status level_smoother(dt_cuda *c, dt_cuda_amg *a, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amg_level_d *L = &a->lev[l];
  if (a->h->opt.smoother == DT_AMG_L1_JACOBI) {
    k_amg_l1<<<amg_blocks_of(L->n), DT_CUDA_BLOCK, 0, c->stream>>>(L->n, L->A.ptr, L->A.val,
                                                                   L->dinv);
    DT_CUDA_LAUNCH_CHECK("k_amg_l1", c->stream, ctx);
  }
cleanup:
  return rc;
}

dt_status dt_cuda_amg_level_values(dt_cuda *c, dt_cuda_amg *a, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amg_level_d *L = &a->lev[l], *C = &a->lev[l + 1];
  dt_amg_level *H = &a->h->lev[l];
  int grid = amg_blocks_of(L->n);
  DT_TRY(level_diagonal(c, a, l, ctx));
  H->omega = 4.0 / (3.0 * H->lambda_max);
  DT_TRY(spgemm(c, &L->A, L->n_a_groups, L->a_groups, &L->Pt, &L->P, NULL, ctx));
  k_amg_prolong<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(L->n, H->omega, L->dinv, L->P.ptr, L->P.val,
                                                       L->Pt.ptr, L->Pt.val, L->pt_pos);
  DT_CUDA_LAUNCH_CHECK("k_amg_prolong", c->stream, ctx);
  if (L->P.nnz > 0) {
    k_amg_scatter<<<amg_blocks_of(L->P.nnz), DT_CUDA_BLOCK, 0, c->stream>>>(L->P.nnz, L->P.val,
                                                                            L->r_perm, L->R.val);
    DT_CUDA_LAUNCH_CHECK("k_amg_scatter", c->stream, ctx);
  }
  DT_TRY(spgemm(c, &L->A, L->n_a_groups, L->a_groups, &L->P, &L->AP, NULL, ctx));
  DT_TRY(spgemm(c, &L->R, L->n_r_groups, L->r_groups, &L->AP, &C->A, L->ac_mirror, ctx));
  DT_TRY(level_smoother(c, a, l, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_amg_coarse(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nl = a->h->n_levels;
  amg_level_d *F = &a->lev[nl - 2], *C = &a->lev[nl - 1];
  k_amg_pivot_ref<<<amg_blocks_of(C->n), DT_CUDA_BLOCK, 0, c->stream>>>(
      C->n, F->R.ptr, F->R.col, F->R.val, F->A.val, F->diag_pos, a->ref);
  DT_CUDA_LAUNCH_CHECK("k_amg_pivot_ref", c->stream, ctx);
  DT_TRY(dt_cuda_d2h(c, a->ref_host, a->ref, sizeof(double) * (size_t)C->n, ctx));
  DT_TRY(dt_cuda_d2h(c, a->h->lev[nl - 1].A.val, C->A.val, sizeof(double) * (size_t)C->A.nnz, ctx));
  DT_TRY(dt_amg_coarse_factor(a->h, a->ref_host, ctx));
  DT_TRY(dt_cuda_amg_upload_coarse(c, a, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_amg_unblock(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  k_amg_unblock<<<amg_blocks_of((long)a->n), DT_CUDA_BLOCK, 0, c->stream>>>(
      a->n_nodes, a->dpn, c->problem.brow_ptr, amg_bsr(c, a), a->lev[0].A.val);
  DT_CUDA_LAUNCH_CHECK("k_amg_unblock", c->stream, ctx);
cleanup:
  return rc;
}

/* Level 0 alone (DT_PC_KEEP_COARSE; dt_amg_refresh_fine's steps): the tangent's values, the
 * diagonal, lambda_max and the smoother; P, R and the coarse levels stay. */
dt_status dt_cuda_amg_refresh_fine(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg *h = a->h;
  double t0 = now(), t1;
  DT_TRY(dt_cuda_amg_unblock(c, a, ctx));
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  t1 = now();
  DT_TRY(level_diagonal(c, a, 0, ctx));
  DT_TRY(level_smoother(c, a, 0, ctx));
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  a->s_values = t1 - t0;
  a->s_levels = now() - t1;
  a->s_coarse = 0.0;
  h->fine_refreshes++;
  h->seconds_refresh = now() - t0;
  h->seconds_structure = h->seconds_products = h->seconds_factor = 0.0;
  h->seconds_smoothers = a->s_levels;
cleanup:
  return rc;
}

dt_status dt_cuda_amg_refresh(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg *h = a->h;
  double t0 = now(), t1, t2;
  DT_TRY(dt_cuda_amg_unblock(c, a, ctx));
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  t1 = now();
  for (int l = 0; l + 1 < h->n_levels; l++) DT_TRY(dt_cuda_amg_level_values(c, a, l, ctx));
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  t2 = now();
  DT_TRY(dt_cuda_amg_coarse(c, a, ctx));
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  a->s_values = t1 - t0;
  a->s_levels = t2 - t1;
  a->s_coarse = now() - t2;
  h->refreshes++;
  h->seconds_refresh = now() - t0;
  h->seconds_structure = 0.0;
  h->seconds_smoothers = 0.0;
  h->seconds_products = a->s_levels;
  h->seconds_factor = a->s_coarse;
cleanup:
  return rc;
}
