/* The two-level preconditioner's coarse correction on the device (solver/coarse_space.h):
 *   setup, once per assembly:  E = Z^T K Z from the blocked tangent (or, matrix-free, from the
 *                              element matrices: cuda_matrix_free.cu), its diagonal shifted,
 *                              factored by cuSOLVER (Cholesky), E^-1 = L^-T L^-1 by cuBLAS
 *                              (triangular solve, then syrk), mirrored into a full matrix;
 *   apply, once per PCG iteration:  y = Z^T r (a thread per node, then a block per box),
 *                              w = E^-1 y (a block per row), z += Z w (a thread per node),
 *                              and y.w for r.z: about 0.2 ms on C5 next to a 1.1 ms iteration.
 * Z (the rigid-body modes of the boxes, zero on constrained DOFs) is never stored: each kernel
 * forms the mode values from the nodes' scaled offsets (dt_coarse_mode). E is built in two
 * deterministic passes: per node and item (a box the node's row reaches), the 6 x 6 sum
 * R_a^T K_ab R_b over the node's blocks in that box; then per box, each block of its rows of E
 * summed over its group of items (dt_problem grp_ptr) in node order.
 * Every sum has a fixed order, so two runs give the same bits. E^-1 y is a dense product:
 * (6 * 512)^2 doubles at most, read once per iteration (75 MB, about 20 us on an H200, against
 * 0.9 ms for the SpMV of C5). */
#include <cusolverDn.h>

#include "cuda_internal.h" /* first: it declares the solver headers extern "C" */
#include "cuda_coarse_modes.cuh"

#define COARSE_BLOCK 128
#define COARSE_RESTRICT_BLOCK 512

/* Pass 1: a thread per (node a, mode m); for each item of a (box t), row m of the NM x NM sum
 * over a's blocks in t of R_a^T K_ab R_b, in a's block order. */
template <int DPN>
__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_coarse_items(dt_cuda_coarse_args g) {
  coarse_item_sums<DPN>(g, [&](int a, int t, const double *ra, double *acc) {
    for (int k = g.brow_ptr[a]; k < g.brow_ptr[a + 1]; k++) {
      int b = g.bcol[k];
      if (g.node_sub[b] == t)
        coarse_add_block<DPN, true>(g, ra, g.val + (long)k * DPN * DPN, b, acc); /* column-major */
    }
  });
}

/* Pass 2: a block per box s; thread entries (coupled box l, m, m') sum their group of items
 * (those of s's nodes that reach box l, in node order) into E (row-major, n_coarse square). */
__global__ void __launch_bounds__(COARSE_BLOCK) k_coarse_rows(dt_cuda_coarse_args g) {
  int s = blockIdx.x, NM = g.n_modes, first = g.sub_nbr_ptr[s], nl = g.sub_nbr_ptr[s + 1] - first;
  for (int e = threadIdx.x; e < nl * NM * NM; e += blockDim.x) {
    int l = e / (NM * NM), m = (e / NM) % NM, mp = e % NM;
    double acc = 0.0;
    for (int k = g.grp_ptr[first + l]; k < g.grp_ptr[first + l + 1]; k++)
      acc += g.P[((long)g.grp_item[k] * NM + m) * NM + mp];
    int t = g.sub_nbr[first + l];
    g.E[(long)(s * NM + m) * g.n_coarse + t * NM + mp] = acc;
  }
}

/* E^-1 = X^T X (cublasDsyrk) leaves the lower triangle (column-major: (i, j), i >= j, at
 * [j n + i]); copy it to the upper one so that row i of the inverse is contiguous ([i n + j] for
 * all j). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_coarse_mirror(int n, double *E) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long)n * n) return;
  int i = (int)(t / n), j = (int)(t % n);
  if (j < i) E[(long)i * n + j] = E[(long)j * n + i]; /* upper (col-major) <- lower */
}

/* X = I, the right-hand sides of X = L^-1. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_coarse_identity(int n, double *X) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < (long)n * n) X[t] = t / n == t % n ? 1.0 : 0.0;
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_coarse_shift(int n, double *E) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dt_coarse_regularize_entry(&E[(long)k * n + k]);
}

/* y = Z^T r, in two passes: each node's NM products R_a^T r_a (a thread per node, into the
 * item sums' storage, free during PCG), then a block per box sums its nodes' products in a fixed
 * order (a thread per node was far faster than a block per box looping over the coordinates). */
template <int DPN>
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_coarse_node_products(dt_cuda_coarse_args g, const double *__restrict__ r, const int *skip) {
  const int NM = coarse_dims<DPN>::NM;
  if (skip && *skip) return;
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= g.n_nodes) return;
  double R[DPN * NM], acc[NM];
  node_modes<DPN>(g, a, R);
#pragma unroll
  for (int m = 0; m < NM; m++) acc[m] = 0.0;
#pragma unroll
  for (int i = 0; i < DPN; i++) {
    double ri = r[(long)a * DPN + i];
#pragma unroll
    for (int m = 0; m < NM; m++) acc[m] += R[i * NM + m] * ri;
  }
#pragma unroll
  for (int m = 0; m < NM; m++) g.P[(long)a * NM + m] = acc[m];
}

__global__ void __launch_bounds__(COARSE_RESTRICT_BLOCK)
    k_coarse_restrict(dt_cuda_coarse_args g, const int *skip) {
  if (skip && *skip) return;
  int s = blockIdx.x, NM = g.n_modes;
  double acc[6] = {0, 0, 0, 0, 0, 0};
  for (int k = g.sub_ptr[s] + threadIdx.x; k < g.sub_ptr[s + 1]; k += COARSE_RESTRICT_BLOCK) {
    const double *pa = g.P + (long)g.sub_nodes[k] * NM;
    for (int m = 0; m < NM; m++) acc[m] += pa[m];
  }
  for (int m = 0; m < NM; m++) {
    double v = dt_block_sum<COARSE_RESTRICT_BLOCK>(acc[m]);
    if (threadIdx.x == 0) g.y[s * NM + m] = v;
  }
}

/* w = E^-1 y: a block per row. */
__global__ void __launch_bounds__(COARSE_BLOCK)
    k_coarse_solve(dt_cuda_coarse_args g, const int *skip) {
  if (skip && *skip) return;
  int i = blockIdx.x, n = g.n_coarse;
  const double *row = g.E + (long)i * n;
  double acc = 0.0;
  for (int j = threadIdx.x; j < n; j += COARSE_BLOCK) acc += row[j] * g.y[j];
  acc = dt_block_sum<COARSE_BLOCK>(acc);
  if (threadIdx.x == 0) g.w[i] = acc;
}

/* z += Z w (and p += Z w when p is given: the first direction is z); k_coarse_dot then forms
 * y.w, the coarse part of r.z. */
template <int DPN>
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_coarse_prolong(dt_cuda_coarse_args g, double *__restrict__ z, double *__restrict__ p,
                     const int *skip) {
  const int NM = coarse_dims<DPN>::NM;
  if (skip && *skip) return;
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= g.n_nodes) return;
  const double *w = g.w + (long)g.node_sub[a] * NM;
  double R[DPN * NM], wl[NM];
  node_modes<DPN>(g, a, R);
#pragma unroll
  for (int m = 0; m < NM; m++) wl[m] = w[m];
#pragma unroll
  for (int i = 0; i < DPN; i++) {
    double s = 0.0;
#pragma unroll
    for (int m = 0; m < NM; m++) s += R[i * NM + m] * wl[m];
    z[(long)a * DPN + i] += s;
    if (p) p[(long)a * DPN + i] += s;
  }
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_coarse_dot(dt_cuda_coarse_args g, const int *skip) {
  if (skip && *skip) return;
  double acc = 0.0;
  for (int k = threadIdx.x; k < g.n_coarse; k += DT_CUDA_BLOCK) acc += g.y[k] * g.w[k];
  acc = dt_block_sum(acc);
  if (threadIdx.x == 0) *g.yw = acc;
}

dt_cuda_coarse_args dt_cuda_coarse_args_of(const dt_cuda *c) {
  dt_cuda_coarse_args g;
  g.dpn = c->problem.dpn;
  g.n_nodes = c->problem.n_nodes;
  g.n_sub = c->coarse.n_sub;
  g.n_modes = c->coarse.n_modes;
  g.n_coarse = c->coarse.n_sub * c->coarse.n_modes;
  g.free = c->state.vec[DT_VEC_FREE];
  g.node_d = c->coarse.node_d;
  g.node_sub = c->coarse.node_sub;
  g.sub_ptr = c->coarse.sub_ptr;
  g.sub_nodes = c->coarse.sub_nodes;
  g.sub_nbr_ptr = c->coarse.sub_nbr_ptr;
  g.sub_nbr = c->coarse.sub_nbr;
  g.item_ptr = c->coarse.item_ptr;
  g.item_sub = c->coarse.item_sub;
  g.item_local = c->coarse.item_local;
  g.grp_ptr = c->coarse.grp_ptr;
  g.grp_item = c->coarse.grp_item;
  g.brow_ptr = c->problem.brow_ptr;
  g.bcol = c->problem.bcol;
  g.val = c->lin.val;
  g.P = c->coarse.P;
  g.E = c->coarse.E;
  g.y = c->coarse.y;
  g.w = c->coarse.w;
  g.yw = c->coarse.yw;
  return g;
}

#define DT_CUSOLVER_CHECK(call, ctx)                                                               \
  do {                                                                                             \
    cusolverStatus_t st_ = (call);                                                                 \
    DT_CHECK(st_ == CUSOLVER_STATUS_SUCCESS, ctx, DT_ERR_CUDA, "%s failed: cuSOLVER status %d",    \
             #call, (int)st_);                                                                     \
  } while (0)
#define DT_CUBLAS_CHECK(call, ctx)                                                                 \
  do {                                                                                             \
    cublasStatus_t st_ = (call);                                                                   \
    DT_CHECK(st_ == CUBLAS_STATUS_SUCCESS, ctx, DT_ERR_CUDA, "%s failed: cuBLAS status %d", #call, \
             (int)st_);                                                                            \
  } while (0)

/* cuBLAS's workspace, ours so that the memory estimate and the peak count it. */
#define DT_COARSE_BLAS_WORKSPACE ((size_t)4 << 20)

/* E (factored in place by cusolverDnDpotrf: L in its lower triangle) -> E^-1: X = L^-1 by a
 * triangular solve on the identity, then E^-1 = L^-T L^-1 = X^T X, mirrored. Both are cuBLAS
 * level-3 routines (tensor cores): on the H200, for n = 3072, 2.8 ms against 7.1 ms for
 * cusolverDnDpotri and the mirror, the same inverse to 1e-14 (a probe: docs/benchmarks.md, decision table). */
static dt_status coarse_invert_factor(dt_cuda *c, int n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const double one = 1.0, zero = 0.0;
  long nn = (long)n * n;
  unsigned grid = (unsigned)((nn + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK);
  k_coarse_identity<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n, c->coarse.X);
  DT_CUDA_LAUNCH_CHECK("k_coarse_identity", c->stream, ctx);
  DT_CUBLAS_CHECK(cublasDtrsm(c->coarse.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                              CUBLAS_DIAG_NON_UNIT, n, n, &one, c->coarse.E, n, c->coarse.X, n),
                  ctx);
  DT_CUBLAS_CHECK(cublasDsyrk(c->coarse.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, n, n, &one,
                              c->coarse.X, n, &zero, c->coarse.E, n),
                  ctx);
  k_coarse_mirror<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n, c->coarse.E);
  DT_CUDA_LAUNCH_CHECK("k_coarse_mirror", c->stream, ctx);
cleanup:
  return rc;
}

dt_status dt_cuda_coarse_upload(dt_cuda *c, const dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = pb->n_sub * pb->n_modes, lw = 0;
  size_t items = (size_t)pb->item_ptr[pb->n_nodes];
  c->coarse.n_sub = pb->n_sub;
  c->coarse.n_modes = pb->n_modes;
  UPLOAD(c->coarse, sub_ptr, pb->n_sub + 1, "coarse-space boxes");
  UPLOAD(c->coarse, sub_nodes, pb->n_nodes, "coarse-space box nodes");
  UPLOAD(c->coarse, node_sub, pb->n_nodes, "coarse-space node boxes");
  UPLOAD(c->coarse, node_d, 3 * (size_t)pb->n_nodes, "coarse-space node offsets");
  UPLOAD(c->coarse, sub_nbr_ptr, pb->n_sub + 1, "coarse-space box couplings");
  UPLOAD(c->coarse, sub_nbr, pb->sub_nbr_ptr[pb->n_sub], "coarse-space box couplings");
  UPLOAD(c->coarse, item_ptr, pb->n_nodes + 1, "coarse-space items");
  UPLOAD(c->coarse, item_sub, items, "coarse-space items");
  UPLOAD(c->coarse, item_local, items, "coarse-space items");
  UPLOAD(c->coarse, grp_ptr, pb->sub_nbr_ptr[pb->n_sub] + 1, "coarse-space item groups");
  UPLOAD(c->coarse, grp_item, items, "coarse-space item groups");
  DT_TRY(dt_cuda_alloc(c, (void **)&c->coarse.P, sizeof(double) * items * 36,
                       "coarse-space item sums", ctx));
  DT_TRY(dt_cuda_alloc(c, (void **)&c->coarse.E, sizeof(double) * (size_t)n * n, "coarse matrix",
                       ctx));
  DT_TRY(dt_cuda_alloc(c, (void **)&c->coarse.X, sizeof(double) * (size_t)n * n,
                       "coarse inverse factor", ctx));
  DT_TRY(dt_cuda_alloc(c, &c->coarse.blas_work, DT_COARSE_BLAS_WORKSPACE, "cuBLAS workspace", ctx));
  DT_TRY(dt_cuda_alloc(c, (void **)&c->coarse.y, sizeof(double) * (size_t)(2 * n + 2),
                       "coarse vectors", ctx));
  c->coarse.w = c->coarse.y + n;
  c->coarse.yw = c->coarse.w + n;
  DT_TRY(dt_cuda_alloc(c, (void **)&c->coarse.info, sizeof(int), "cuSOLVER status", ctx));
  DT_CUSOLVER_CHECK(cusolverDnCreate(&c->coarse.dn), ctx);
  DT_CUSOLVER_CHECK(cusolverDnSetStream(c->coarse.dn, c->stream), ctx);
  DT_CUSOLVER_CHECK(
      cusolverDnDpotrf_bufferSize(c->coarse.dn, CUBLAS_FILL_MODE_LOWER, n, c->coarse.E, n, &lw),
      ctx);
  c->coarse.lwork = lw;
  DT_CUBLAS_CHECK(cublasCreate(&c->coarse.blas), ctx);
  DT_CUBLAS_CHECK(cublasSetStream(c->coarse.blas, c->stream), ctx);
  DT_CUBLAS_CHECK(cublasSetWorkspace(c->coarse.blas, c->coarse.blas_work, DT_COARSE_BLAS_WORKSPACE),
                  ctx);
  DT_TRY(dt_cuda_alloc(c, (void **)&c->coarse.work, sizeof(double) * (size_t)(c->coarse.lwork + 1),
                       "cuSOLVER workspace", ctx));
  /* Factor and invert an identity of the real size once now: CUDA loads the libraries' kernels
   * at their first launch, which otherwise fell into the first linear solve (about 0.1 s on
   * the H200), as the upload does for the backend's own kernels (load_kernels). */
  DT_CUDA_CHECK(cudaMemsetAsync(c->coarse.E, 0, sizeof(double) * (size_t)n * n, c->stream), ctx);
  k_coarse_shift<<<(n + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK, DT_CUDA_BLOCK, 0, c->stream>>>(
      n, c->coarse.E);
  DT_CUDA_LAUNCH_CHECK("k_coarse_shift", c->stream, ctx);
  DT_CUSOLVER_CHECK(cusolverDnDpotrf(c->coarse.dn, CUBLAS_FILL_MODE_LOWER, n, c->coarse.E, n,
                                     c->coarse.work, c->coarse.lwork, c->coarse.info),
                    ctx);
  DT_TRY(coarse_invert_factor(c, n, ctx));
cleanup:
  return rc;
}

/* Bytes dt_cuda_coarse_upload allocates (for the estimate made before any allocation); the
 * cuSOLVER workspace is known only with a handle: budgeted at 256 doubles per coarse DOF. */
size_t dt_cuda_coarse_bytes(const dt_problem *pb) {
  size_t n = (size_t)pb->n_sub * pb->n_modes,
         items = pb->n_sub ? (size_t)pb->item_ptr[pb->n_nodes] : 0;
  if (!pb->n_sub) return 0;
  return sizeof(int) * (2 * ((size_t)pb->n_sub + 1) + 2 * (size_t)pb->n_nodes +
                        (size_t)pb->sub_nbr_ptr[pb->n_sub] + (size_t)pb->n_nodes + 1 + 3 * items +
                        (size_t)pb->sub_nbr_ptr[pb->n_sub] + 1) +
         sizeof(double) *
             (3 * (size_t)pb->n_nodes + 36 * items + 2 * n * n + 2 * n + 2 + 256 * n + 1) +
         sizeof(int) + DT_COARSE_BLAS_WORKSPACE + 13 * 512;
}

dt_status dt_cuda_coarse_setup(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_coarse_args g = dt_cuda_coarse_args_of(c);
  int n = g.n_coarse, *info = (int *)c->pinned;
  long nn = (long)n * n;
  unsigned ig = (unsigned)(((long)c->problem.n_nodes * c->coarse.n_modes + DT_CUDA_BLOCK - 1) /
                           DT_CUDA_BLOCK);
  if (c->problem.matrix_free) { /* no assembled blocks: the item sums from the element matrices */
    DT_TRY(dt_cuda_mf_coarse_items(c, &g, ctx));
  } else {
    if (c->problem.dpn == 3)
      k_coarse_items<3><<<ig, DT_CUDA_BLOCK, 0, c->stream>>>(g);
    else
      k_coarse_items<2><<<ig, DT_CUDA_BLOCK, 0, c->stream>>>(g);
    DT_CUDA_LAUNCH_CHECK("k_coarse_items", c->stream, ctx);
  }
  DT_CUDA_CHECK(cudaMemsetAsync(c->coarse.E, 0, sizeof(double) * nn, c->stream), ctx);
  k_coarse_rows<<<c->coarse.n_sub, COARSE_BLOCK, 0, c->stream>>>(g);
  DT_CUDA_LAUNCH_CHECK("k_coarse_rows", c->stream, ctx);
  k_coarse_shift<<<(n + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK, DT_CUDA_BLOCK, 0, c->stream>>>(
      n, c->coarse.E);
  DT_CUDA_LAUNCH_CHECK("k_coarse_shift", c->stream, ctx);
  DT_CUSOLVER_CHECK(cusolverDnDpotrf(c->coarse.dn, CUBLAS_FILL_MODE_LOWER, n, c->coarse.E, n,
                                     c->coarse.work, c->coarse.lwork, c->coarse.info),
                    ctx);
  DT_TRY(dt_cuda_d2h(c, info, c->coarse.info, sizeof(int), ctx)); /* 4 bytes */
  DT_CHECK(*info == 0, ctx, DT_ERR_NOT_CONVERGED,
           "the coarse matrix of the two-level preconditioner is not positive definite (box %d, "
           "mode %d): "
           "the tangent lost stiffness",
           (*info - 1) / c->coarse.n_modes, (*info - 1) % c->coarse.n_modes);
  /* E^-1 from the factor (coarse_invert_factor; cusolverDnDpotri took 2.5x longer, and E X = I
   * by cusolverDnDpotrs with n right-hand sides longer still, H200) */
  DT_TRY(coarse_invert_factor(c, n, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_coarse_apply(dt_cuda *c, const double *r, double *z, double *p, const int *skip,
                               dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_coarse_args g = dt_cuda_coarse_args_of(c);
  unsigned ng = (unsigned)((c->problem.n_nodes + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK);
  if (c->problem.dpn == 3)
    k_coarse_node_products<3><<<ng, DT_CUDA_BLOCK, 0, c->stream>>>(g, r, skip);
  else
    k_coarse_node_products<2><<<ng, DT_CUDA_BLOCK, 0, c->stream>>>(g, r, skip);
  DT_CUDA_LAUNCH_CHECK("k_coarse_node_products", c->stream, ctx);
  k_coarse_restrict<<<c->coarse.n_sub, COARSE_RESTRICT_BLOCK, 0, c->stream>>>(g, skip);
  DT_CUDA_LAUNCH_CHECK("k_coarse_restrict", c->stream, ctx);
  k_coarse_solve<<<g.n_coarse, COARSE_BLOCK, 0, c->stream>>>(g, skip);
  DT_CUDA_LAUNCH_CHECK("k_coarse_solve", c->stream, ctx);
  if (c->problem.dpn == 3)
    k_coarse_prolong<3><<<ng, DT_CUDA_BLOCK, 0, c->stream>>>(g, z, p, skip);
  else
    k_coarse_prolong<2><<<ng, DT_CUDA_BLOCK, 0, c->stream>>>(g, z, p, skip);
  DT_CUDA_LAUNCH_CHECK("k_coarse_prolong", c->stream, ctx);
  k_coarse_dot<<<1, DT_CUDA_BLOCK, 0, c->stream>>>(g, skip);
  DT_CUDA_LAUNCH_CHECK("k_coarse_dot", c->stream, ctx);
cleanup:
  return rc;
}

void dt_cuda_coarse_destroy(dt_cuda *c) {
  if (c->coarse.dn) cusolverDnDestroy(c->coarse.dn);
  if (c->coarse.blas) cublasDestroy(c->coarse.blas);
  c->coarse.dn = NULL;
  c->coarse.blas = NULL;
}

dt_status dt_cuda_load_coarse_kernels(dt_ctx *ctx) {
  const void *k[] = {(const void *)k_coarse_items<3>,
                     (const void *)k_coarse_items<2>,
                     (const void *)k_coarse_node_products<3>,
                     (const void *)k_coarse_node_products<2>,
                     (const void *)k_coarse_prolong<3>,
                     (const void *)k_coarse_prolong<2>,
                     (const void *)k_coarse_rows,
                     (const void *)k_coarse_shift,
                     (const void *)k_coarse_mirror,
                     (const void *)k_coarse_identity,
                     (const void *)k_coarse_restrict,
                     (const void *)k_coarse_solve,
                     (const void *)k_coarse_dot};
  return dt_cuda_load_list(k, (int)(sizeof k / sizeof k[0]), NULL, ctx);
}
