/* Fused preconditioned conjugate gradients on the device (the optional pcg_solve op).
 *
 * The same algorithm, stopping rules and reasons as the generic dt_pcg_solve (solver/pcg.c):
 * solve K x = b with b in R, x in X, x0 = 0; CONVERGED when |r| <= rtol |b|,
 * DIVERGED_LINEAR_SOLVER at max_iter, DIVERGED_INDEFINITE when p.Kp <= 0, DIVERGED_NAN on a
 * non-finite scalar. Passes over memory per iteration:
 *   q = K p                                          cuSPARSE SpMV (BSR, deterministic)
 *   pq = p.q; alpha = rz / pq                        dot, then one block finishes it
 *   x += a p; r -= a q; z = M^-1 r; r.r, r.z          one fused kernel, one block finishes it
 *   (two-level: z += Z E^-1 Z^T r, r.z += y.w          cuda_coarse.cu, before the block)
 *   p = z + beta p                                   one kernel
 * With AMG (amg_pcg_solve) the V-cycle runs between the update and the next direction, and
 * the host waits once per iteration instead of once per batch.
 * The scalars (alpha, beta, the stopping tests) are computed on the device, in a control
 * block (pcg_ctl) that the kernels read; once it says stop, the kernels of the remaining
 * queued iterations return at once (only the SpMV still runs). The host queues
 * DT_PCG_CHECK_EVERY iterations at a time and then reads the control block (64 bytes): one
 * wait per batch instead of two per iteration. The fused kernels run with a fixed grid (the
 * start a thread per node, the update a thread per DOF), and every sum finishes through
 * dt_partials_sum in a fixed order, so two runs give the same bits; the scalars are formed as
 * the host-side PCG forms them (IEEE division and comparisons, same order). Products and sums
 * of the vector updates are rounded separately, as in the generic PCG on the CPU backend. */
#include "cuda_internal.h"

/* Iterations queued between two reads of the control block: a wait costs about as much as
 * the vector passes of an iteration; stopping late costs at most this many SpMVs minus one. */
#define DT_PCG_CHECK_EVERY 8

/* Threads per block of k_pcg_update: divisible by 2 and 3, so that a chunk of that many
 * consecutive DOFs holds whole nodes; a multiple of 32 for dt_block_sum. */
#define DT_PCG_UPDATE_BLOCK 192

/* Device-side PCG control (in the reduction scratch at DT_CUDA_PCG_CTL_OFFSET). */
typedef struct pcg_ctl {
  double bb, rr, rz, alpha, beta, tol2; /* tol2 = rtol^2 */
  int iterations, max_iter, reason, stop;
} pcg_ctl;

static_assert(sizeof(pcg_ctl) <= 64 && sizeof(pcg_ctl) <= 16 * sizeof(double),
              "pcg_ctl must fit the pinned buffer and its slot in the reduction scratch");

/* Kinds of the fused kernels' preconditioner: 0 Jacobi, 1 block Jacobi (also two_level's
 * first part), KIND_AMG: the V-cycle runs between kernels (cuda_amg.cu), so the kernels leave z
 * alone (the update) or take it as given (the start). */
#define KIND_AMG 2

typedef struct pcg_args {
  int n_nodes;
  const double *pc;
  double *x, *r, *z, *p;
  const double *q;
  double *red;
  pcg_ctl *ctl;
} pcg_args;

template <int KIND, int DPN>
__device__ __forceinline__ void apply_pc(const double *pc, long a, const double *rl, double *zl) {
  if (KIND == 1) {
    const double *m = pc + a * DPN * DPN;
    for (int i = 0; i < DPN; i++) {
      double s = 0.0;
      for (int j = 0; j < DPN; j++) s += m[i * DPN + j] * rl[j];
      zl[i] = s;
    }
  } else {
    for (int i = 0; i < DPN; i++) zl[i] = pc[a * DPN + i] * rl[i];
  }
}

/* Block sums of r.r and r.z into the reduction partials (finished by dt_cuda_reduce_finish);
 * NT: the block's thread count. */
template <int NT = DT_CUDA_BLOCK>
__device__ __forceinline__ void store_partials(double *red, double rr, double rz) {
  rr = dt_block_sum<NT>(rr);
  rz = dt_block_sum<NT>(rz);
  if (threadIdx.x == 0) {
    red[blockIdx.x] = rr;
    red[DT_CUDA_RED_MAX_BLOCKS + blockIdx.x] = rz;
  }
}

/* x = 0; z = M^-1 r (KIND_AMG: z given); p = z; partial sums of r.r and r.z. */
template <int KIND, int DPN>
__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_pcg_init(pcg_args g) {
  double rr = 0.0, rz = 0.0;
  for (long a = blockIdx.x * blockDim.x + threadIdx.x; a < g.n_nodes;
       a += (long)gridDim.x * blockDim.x) {
    double rl[DPN], zl[DPN];
    for (int i = 0; i < DPN; i++) rl[i] = g.r[a * DPN + i];
    if constexpr (KIND == KIND_AMG)
      for (int i = 0; i < DPN; i++) zl[i] = g.z[a * DPN + i];
    else
      apply_pc<KIND, DPN>(g.pc, a, rl, zl);
    for (int i = 0; i < DPN; i++) {
      g.x[a * DPN + i] = 0.0;
      g.z[a * DPN + i] = zl[i];
      g.p[a * DPN + i] = zl[i];
      rr += rl[i] * rl[i];
      rz += rl[i] * zl[i];
    }
  }
  store_partials(g.red, rr, rz);
}

/* x += alpha p; r -= alpha q; z = M^-1 r; partial sums of r.r and r.z.
 * A thread per DOF, so that every vector access is coalesced. A thread per node, as before,
 * read and wrote dpn-strided: 140 us for the 358 MB of a C5 iteration (Nsight Compute, H200),
 * 53% of the DRAM peak. A block takes chunks of DT_PCG_UPDATE_BLOCK consecutive
 * DOFs, whole nodes for dpn 2 and 3; with block Jacobi a DOF's z needs the new residuals of its
 * node's other DOFs, so the chunk's residuals and its nodes' blocks of M^-1 (read coalesced)
 * meet in shared memory. Products and sums as in apply_pc, in the same order. */
template <int KIND, int DPN>
__global__ void __launch_bounds__(DT_PCG_UPDATE_BLOCK) k_pcg_update(pcg_args g) {
  const int NT = DT_PCG_UPDATE_BLOCK;
  static_assert(NT % DPN == 0, "a chunk holds whole nodes");
  __shared__ double s_r[NT];
  __shared__ double s_m[KIND == 1 ? NT * DPN : 1];
  double rr = 0.0, rz = 0.0;
  if (g.ctl->stop) return; /* the same for every thread */
  const double alpha = g.ctl->alpha;
  const long n = (long)g.n_nodes * DPN, step = (long)gridDim.x * NT;
  const int t = threadIdx.x, i = t % DPN;
  for (long base = (long)blockIdx.x * NT; base < n; base += step) { /* the same for the block */
    long k = base + t;
    double rk = 0.0, zk = 0.0;
    if (k < n) {
      g.x[k] = __dadd_rn(__dmul_rn(alpha, g.p[k]), g.x[k]);
      rk = __dadd_rn(__dmul_rn(-alpha, g.q[k]), g.r[k]);
      g.r[k] = rk;
    }
    if (KIND == 1) {
      for (int c = 0; c < DPN; c++) { /* the chunk's nodes' blocks: NT * DPN doubles */
        long o = base * DPN + (long)c * NT + t;
        if (o < n * DPN) s_m[c * NT + t] = g.pc[o];
      }
      s_r[t] = rk;
      __syncthreads();
      const double *m = s_m + t * DPN, *rl = s_r + (t - i); /* row i of the node's block */
      for (int j = 0; j < DPN; j++) zk += m[j] * rl[j];
      __syncthreads(); /* the next chunk overwrites s_r and s_m */
    } else if (KIND == 0 && k < n) {
      zk = g.pc[k] * rk;
    }
    if (k < n) {
      if (KIND != KIND_AMG) g.z[k] = zk; /* AMG: r.z comes after the V-cycle (k_pcg_beta) */
      rr += rk * rk;
      rz += rk * zk;
    }
  }
  store_partials<NT>(g.red, rr, rz);
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_pcg_direction(int n, const double *__restrict__ z, const pcg_ctl *ctl,
                    double *__restrict__ p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (ctl->stop) return;
  if (i < n) p[i] = __dadd_rn(z[i], __dmul_rn(ctl->beta, p[i]));
}

/* One block after k_pcg_init: b.b and r.z, and the tests before the first iteration; sets up
 * the whole control block (nothing goes host->device inside a Newton iteration). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_pcg_start(int grid, const double *red, double tol2, int max_iter, const double *coarse_rz,
                pcg_ctl *ctl) {
  double bb = dt_partials_sum(red, grid), rz = dt_partials_sum(red + DT_CUDA_RED_MAX_BLOCKS, grid);
  if (threadIdx.x != 0) return;
  if (coarse_rz) rz += *coarse_rz; /* two-level: r.z = r.(B^-1 r) + y.w */
  ctl->tol2 = tol2;
  ctl->max_iter = max_iter;
  ctl->bb = ctl->rr = bb;
  ctl->rz = rz;
  ctl->iterations = 0;
  ctl->reason = DT_CONVERGED;
  ctl->stop = 1; /* unless an iteration is needed; b.b = 0: x = 0 solves it */
  if (!isfinite(bb))
    ctl->reason = DT_DIVERGED_NAN;
  else if (bb > 0.0 && ctl->max_iter <= 0)
    ctl->reason = bb > ctl->tol2 * bb ? DT_DIVERGED_LINEAR_SOLVER : DT_CONVERGED;
  else if (bb > 0.0)
    ctl->stop = 0;
}

/* One block after q = K p and the partials of p.q: alpha, or stop on NaN / indefinite. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_pcg_alpha(int grid, const double *red, pcg_ctl *ctl) {
  if (ctl->stop) return;
  double pq = dt_partials_sum(red, grid);
  if (threadIdx.x != 0) return;
  if (!isfinite(pq))
    ctl->reason = DT_DIVERGED_NAN, ctl->stop = 1;
  else if (pq <= 0.0)
    ctl->reason = DT_DIVERGED_INDEFINITE, ctl->stop = 1;
  else
    ctl->alpha = ctl->rz / pq;
}

/* One block after the update: count the iteration, test convergence, beta. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_pcg_check(int grid, const double *red, const double *coarse_rz, pcg_ctl *ctl) {
  if (ctl->stop) return;
  double rr = dt_partials_sum(red, grid), rz = dt_partials_sum(red + DT_CUDA_RED_MAX_BLOCKS, grid);
  if (threadIdx.x != 0) return;
  if (coarse_rz) rz += *coarse_rz;
  ctl->iterations++;
  ctl->rr = rr;
  if (!isfinite(rr))
    ctl->reason = DT_DIVERGED_NAN, ctl->stop = 1;
  else if (rr <= ctl->tol2 * ctl->bb)
    ctl->stop = 1;
  else if (ctl->iterations >= ctl->max_iter)
    ctl->reason = DT_DIVERGED_LINEAR_SOLVER, ctl->stop = 1;
  else {
    ctl->beta = rz / ctl->rz;
    ctl->rz = rz;
  }
}

/* AMG, one block after the update: count the iteration and test convergence as k_pcg_check
 * does; beta waits for the V-cycle (k_pcg_beta). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_pcg_rr_check(int grid, const double *red, pcg_ctl *ctl) {
  if (ctl->stop) return;
  double rr = dt_partials_sum(red, grid);
  if (threadIdx.x != 0) return;
  ctl->iterations++;
  ctl->rr = rr;
  if (!isfinite(rr))
    ctl->reason = DT_DIVERGED_NAN, ctl->stop = 1;
  else if (rr <= ctl->tol2 * ctl->bb)
    ctl->stop = 1;
  else if (ctl->iterations >= ctl->max_iter)
    ctl->reason = DT_DIVERGED_LINEAR_SOLVER, ctl->stop = 1;
}

/* AMG, one block after z = M^-1 r and the partials of r.z: beta = r.z / (the last r.z). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_pcg_beta(int grid, const double *red, pcg_ctl *ctl) {
  if (ctl->stop) return;
  double rz = dt_partials_sum(red, grid);
  if (threadIdx.x != 0) return;
  ctl->beta = rz / ctl->rz;
  ctl->rz = rz;
}

#define LAUNCH_FUSED(K, grid, block, ...)                                                          \
  do {                                                                                             \
    int block_pc_ = c->lin.pc_kind != DT_PC_JACOBI, dpn_ = c->problem.dpn;                         \
    if (block_pc_ && dpn_ == 3)                                                                    \
      K<1, 3><<<grid, block, 0, c->stream>>>(__VA_ARGS__);                                         \
    else if (block_pc_)                                                                            \
      K<1, 2><<<grid, block, 0, c->stream>>>(__VA_ARGS__);                                         \
    else if (dpn_ == 3)                                                                            \
      K<0, 3><<<grid, block, 0, c->stream>>>(__VA_ARGS__);                                         \
    else                                                                                           \
      K<0, 2><<<grid, block, 0, c->stream>>>(__VA_ARGS__);                                         \
    DT_CUDA_LAUNCH_CHECK(#K, c->stream, ctx);                                                      \
  } while (0)

#define LAUNCH_AMG(K, grid, block, ...)                                                            \
  do {                                                                                             \
    if (c->problem.dpn == 3)                                                                       \
      K<KIND_AMG, 3><<<grid, block, 0, c->stream>>>(__VA_ARGS__);                                  \
    else                                                                                           \
      K<KIND_AMG, 2><<<grid, block, 0, c->stream>>>(__VA_ARGS__);                                  \
    DT_CUDA_LAUNCH_CHECK(#K, c->stream, ctx);                                                      \
  } while (0)

/* The launch grids of both PCG loops: per node (init), per DOF for reductions and vectors,
 * and the update kernel's (at most DT_CUDA_RED_MAX_BLOCKS blocks, for its partial sums). */
static void pcg_grids(const dt_cuda *c, int *grid, int *dgrid, int *vgrid, int *ugrid) {
  *grid = dt_cuda_red_grid(c->problem.n_nodes);
  *dgrid = dt_cuda_red_grid(c->problem.n_dofs);
  *vgrid = (c->problem.n_dofs + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK;
  *ugrid = (int)(((long)c->problem.n_dofs + DT_PCG_UPDATE_BLOCK - 1) / DT_PCG_UPDATE_BLOCK);
  if (*ugrid > DT_CUDA_RED_MAX_BLOCKS) *ugrid = DT_CUDA_RED_MAX_BLOCKS;
  if (*ugrid < 1) *ugrid = 1;
}

/* PCG with the AMG V-cycle (cuda_amg.cu) as M^-1. A V-cycle costs several SpMVs of the tangent,
 * so none is queued past the stop: the host reads the control block once per iteration, after
 * the convergence test and before the V-cycle that the next iteration needs, and queues
 *   [z = M^-1 r; r.z; beta; p = z + beta p]  q = K p; p.q; alpha; x, r updates; r.r and the test
 * (the bracket from the second iteration on), the order of the generic dt_pcg_solve. */
/* q = K p; p.q; alpha; x, r updates; r.r and the test: the second half of an AMG iteration. */
static dt_status amg_product_step(dt_cuda *c, pcg_args g, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int grid, dgrid, vgrid, ugrid;
  pcg_grids(c, &grid, &dgrid, &vgrid, &ugrid);
  DT_TRY(dt_cuda_spmv(c, DT_VEC_PCG_P, DT_VEC_PCG_Q, ctx));
  k_dot_partial<<<dgrid, DT_CUDA_BLOCK, 0, c->stream>>>(c->problem.n_dofs, g.p, g.q, c->red, NULL);
  DT_CUDA_LAUNCH_CHECK("k_dot_partial", c->stream, ctx);
  k_pcg_alpha<<<1, DT_CUDA_BLOCK, 0, c->stream>>>(dgrid, c->red, g.ctl);
  DT_CUDA_LAUNCH_CHECK("k_pcg_alpha", c->stream, ctx);
  LAUNCH_AMG(k_pcg_update, ugrid, DT_PCG_UPDATE_BLOCK, g);
  k_pcg_rr_check<<<1, DT_CUDA_BLOCK, 0, c->stream>>>(ugrid, c->red, g.ctl);
  DT_CUDA_LAUNCH_CHECK("k_pcg_rr_check", c->stream, ctx);
cleanup:
  return rc;
}

/* One AMG PCG iteration after the first: z = M^-1 r, r.z, beta, p; q = K p, p.q, alpha, the
 * updates and the test (arg: the pcg_args). */
static dt_status amg_iteration(dt_cuda *c, void *arg, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pcg_args g = *(pcg_args *)arg;
  int grid, dgrid, vgrid, ugrid;
  pcg_grids(c, &grid, &dgrid, &vgrid, &ugrid);
  DT_TRY(dt_cuda_amg_apply(c, DT_VEC_R, DT_VEC_PCG_Z, ctx));
  k_dot_partial<<<dgrid, DT_CUDA_BLOCK, 0, c->stream>>>(c->problem.n_dofs, g.r, g.z, c->red, NULL);
  DT_CUDA_LAUNCH_CHECK("k_dot_partial", c->stream, ctx);
  k_pcg_beta<<<1, DT_CUDA_BLOCK, 0, c->stream>>>(dgrid, c->red, g.ctl);
  DT_CUDA_LAUNCH_CHECK("k_pcg_beta", c->stream, ctx);
  k_pcg_direction<<<vgrid, DT_CUDA_BLOCK, 0, c->stream>>>(c->problem.n_dofs, g.z, g.ctl, g.p);
  DT_CUDA_LAUNCH_CHECK("k_pcg_direction", c->stream, ctx);
  DT_TRY(amg_product_step(c, g, ctx));
cleanup:
  return rc;
}

/* PCG with the AMG V-cycle (cuda_amg.cu) as M^-1. A V-cycle costs several SpMVs of the tangent,
 * so none is queued past the stop: the host reads the control block once per iteration, after
 * the convergence test and before the V-cycle that the next iteration needs, and queues
 *   [z = M^-1 r; r.z; beta; p = z + beta p]  q = K p; p.q; alpha; x, r updates; r.r and the test
 * (the bracket from the second iteration on, as one captured graph: cuda_graph.cu), the order
 * of the generic dt_pcg_solve. */
static dt_status amg_pcg_solve(dt_cuda *c, pcg_args g, double rtol, int max_iter,
                               dt_pcg_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pcg_ctl *seen = (pcg_ctl *)c->pinned;
  int grid, dgrid, vgrid, ugrid;
  pcg_grids(c, &grid, &dgrid, &vgrid, &ugrid);
  DT_TRY(dt_cuda_amg_apply(c, DT_VEC_R, DT_VEC_PCG_Z, ctx)); /* z = M^-1 r */
  LAUNCH_AMG(k_pcg_init, grid, DT_CUDA_BLOCK, g);            /* x = 0, p = z, r.r, r.z */
  k_pcg_start<<<1, DT_CUDA_BLOCK, 0, c->stream>>>(grid, c->red, rtol * rtol, max_iter, NULL, g.ctl);
  DT_CUDA_LAUNCH_CHECK("k_pcg_start", c->stream, ctx);
  for (;;) {
    DT_TRY(dt_cuda_d2h(c, seen, g.ctl, sizeof *seen, ctx)); /* the one wait of an iteration */
    if (seen->stop || seen->iterations >= max_iter) break;
    if (seen->iterations > 0)
      DT_TRY(dt_cuda_graph_run(c, &c->lin.pcg_amg, c->lin.pc_serial, amg_iteration, &g, ctx));
    else
      DT_TRY(amg_product_step(c, g, ctx));
  }
  res->iterations = seen->iterations;
  res->reason = (dt_reason)seen->reason;
  res->rel_residual = seen->bb > 0.0 ? sqrt(seen->rr / seen->bb) : 0.0;
cleanup:
  return rc;
}

/* DT_PCG_CHECK_EVERY iterations of the loop below, queued without a wait (arg: the pcg_args);
 * those past the stop return at once. */
static dt_status pcg_batch(dt_cuda *c, void *arg, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pcg_args g = *(pcg_args *)arg;
  int grid, dgrid, vgrid, ugrid;
  const int coarse = c->lin.pc_kind == DT_PC_TWO_LEVEL;
  const double *coarse_rz = coarse ? c->coarse.yw : NULL;
  pcg_grids(c, &grid, &dgrid, &vgrid, &ugrid);
  for (int k = 0; k < DT_PCG_CHECK_EVERY; k++) {
    DT_TRY(dt_cuda_spmv(c, DT_VEC_PCG_P, DT_VEC_PCG_Q, ctx));
    k_dot_partial<<<dgrid, DT_CUDA_BLOCK, 0, c->stream>>>(c->problem.n_dofs, g.p, g.q, c->red,
                                                          &g.ctl->stop);
    DT_CUDA_LAUNCH_CHECK("k_dot_partial", c->stream, ctx);
    k_pcg_alpha<<<1, DT_CUDA_BLOCK, 0, c->stream>>>(dgrid, c->red, g.ctl);
    DT_CUDA_LAUNCH_CHECK("k_pcg_alpha", c->stream, ctx);
    LAUNCH_FUSED(k_pcg_update, ugrid, DT_PCG_UPDATE_BLOCK, g);
    if (coarse) DT_TRY(dt_cuda_coarse_apply(c, g.r, g.z, NULL, &g.ctl->stop, ctx));
    k_pcg_check<<<1, DT_CUDA_BLOCK, 0, c->stream>>>(ugrid, c->red, coarse_rz, g.ctl);
    DT_CUDA_LAUNCH_CHECK("k_pcg_check", c->stream, ctx);
    k_pcg_direction<<<vgrid, DT_CUDA_BLOCK, 0, c->stream>>>(c->problem.n_dofs, g.z, g.ctl, g.p);
    DT_CUDA_LAUNCH_CHECK("k_pcg_direction", c->stream, ctx);
  }
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_pcg_solve(void *impl, double rtol, int max_iter, dt_pcg_result *res,
                                       dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  pcg_ctl *seen = (pcg_ctl *)c->pinned;
  int grid, dgrid, vgrid, ugrid;
  pcg_grids(c, &grid, &dgrid, &vgrid, &ugrid);
  pcg_args g;
  g.n_nodes = c->problem.n_nodes;
  g.pc = c->lin.pc;
  g.x = c->state.vec[DT_VEC_X];
  g.r = c->state.vec[DT_VEC_R];
  g.z = c->state.vec[DT_VEC_PCG_Z];
  g.p = c->state.vec[DT_VEC_PCG_P];
  g.q = c->state.vec[DT_VEC_PCG_Q];
  g.red = c->red;
  g.ctl = (pcg_ctl *)(c->red + DT_CUDA_PCG_CTL_OFFSET);
  if (c->lin.pc_kind == DT_PC_AMG) return amg_pcg_solve(c, g, rtol, max_iter, res, ctx);
  const int coarse = c->lin.pc_kind == DT_PC_TWO_LEVEL;
  const double *coarse_rz = coarse ? c->coarse.yw : NULL;
  LAUNCH_FUSED(k_pcg_init, grid, DT_CUDA_BLOCK, g);
  if (coarse) DT_TRY(dt_cuda_coarse_apply(c, g.r, g.z, g.p, NULL, ctx)); /* z = p = M^-1 r */
  k_pcg_start<<<1, DT_CUDA_BLOCK, 0, c->stream>>>(grid, c->red, rtol * rtol, max_iter, coarse_rz,
                                                  g.ctl);
  DT_CUDA_LAUNCH_CHECK("k_pcg_start", c->stream, ctx);
  for (;;) {
    DT_TRY(dt_cuda_d2h(c, seen, g.ctl, sizeof *seen, ctx)); /* the one wait of a batch */
    if (seen->stop || seen->iterations >= max_iter) break;
    DT_TRY(dt_cuda_graph_run(c, &c->lin.pcg_batch, c->lin.pc_serial, pcg_batch, &g, ctx));
  }
  res->iterations = seen->iterations;
  res->reason = (dt_reason)seen->reason;
  res->rel_residual = seen->bb > 0.0 ? sqrt(seen->rr / seen->bb) : 0.0;
cleanup:
  return rc;
}

/* Every preconditioner kind and DOFs per node: the kind is chosen per solve. */
dt_status dt_cuda_load_pcg_kernels(dt_ctx *ctx) {
  const void *k[] = {(const void *)k_pcg_init<0, 2>,   (const void *)k_pcg_init<0, 3>,
                     (const void *)k_pcg_init<1, 2>,   (const void *)k_pcg_init<1, 3>,
                     (const void *)k_pcg_update<0, 2>, (const void *)k_pcg_update<0, 3>,
                     (const void *)k_pcg_update<1, 2>, (const void *)k_pcg_update<1, 3>,
                     (const void *)k_pcg_init<2, 2>,   (const void *)k_pcg_init<2, 3>,
                     (const void *)k_pcg_update<2, 2>, (const void *)k_pcg_update<2, 3>,
                     (const void *)k_pcg_direction,    (const void *)k_pcg_start,
                     (const void *)k_pcg_alpha,        (const void *)k_pcg_check,
                     (const void *)k_pcg_rr_check,     (const void *)k_pcg_beta};
  return dt_cuda_load_list(k, (int)(sizeof k / sizeof k[0]), NULL, ctx);
}
