/* Fused preconditioned conjugate gradients on the device (the optional pcg_solve op).
 *
 * The same algorithm, stopping rules and reasons as the generic dt_pcg_solve (solver/pcg.c):
 * solve K x = b with b in R, x in X, x0 = 0; CONVERGED when |r| <= rtol |b|,
 * DIVERGED_LINEAR_SOLVER at max_iter, DIVERGED_INDEFINITE when p.Kp <= 0, DIVERGED_NAN on a
 * non-finite scalar. Passes over memory per iteration:
 *   q = K p                                          cuSPARSE SpMV (ALG2, deterministic)
 *   pq = p.q                                         dot, 8 bytes to the host
 *   x += a p; r -= a q; z = M^-1 r; r.r, r.z          one fused kernel, 16 bytes to the host
 *   p = z + beta p                                   one kernel
 * The set-up pass is fused the same way (x = 0, z = M^-1 r, p = z, r.r and r.z). Only these
 * scalars cross to the host. The fused kernels run one thread per node (dpn DOFs, the
 * preconditioner block of the node) with a fixed grid, and reduce with the deterministic
 * block sums of cuda_vector.cu, so two runs give the same bits. Products and sums of the
 * vector updates are rounded separately, as in the generic PCG on the CPU backend. */
#include "cuda_impl.h"

typedef struct pcg_args {
  int n_nodes;
  const double *pc;
  double *x, *r, *z, *p;
  const double *q;
  double *red;
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

/* Block sums of r.r and r.z into the reduction partials (finished by dt_cuda_reduce_finish). */
__device__ __forceinline__ void store_partials(double *red, double rr, double rz) {
  rr = dt_block_sum(rr);
  rz = dt_block_sum(rz);
  if (threadIdx.x == 0) {
    red[blockIdx.x] = rr;
    red[DT_CUDA_RED_MAX_BLOCKS + blockIdx.x] = rz;
  }
}

/* x = 0; z = M^-1 r; p = z; partial sums of r.r and r.z. */
template <int KIND, int DPN>
__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_pcg_init(pcg_args g) {
  double rr = 0.0, rz = 0.0;
  for (long a = blockIdx.x * blockDim.x + threadIdx.x; a < g.n_nodes;
       a += (long)gridDim.x * blockDim.x) {
    double rl[DPN], zl[DPN];
    for (int i = 0; i < DPN; i++) rl[i] = g.r[a * DPN + i];
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

/* x += alpha p; r -= alpha q; z = M^-1 r; partial sums of r.r and r.z. */
template <int KIND, int DPN>
__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_pcg_update(pcg_args g, double alpha) {
  double rr = 0.0, rz = 0.0;
  for (long a = blockIdx.x * blockDim.x + threadIdx.x; a < g.n_nodes;
       a += (long)gridDim.x * blockDim.x) {
    double rl[DPN], zl[DPN];
    for (int i = 0; i < DPN; i++) {
      long k = a * DPN + i;
      double pk = g.p[k];
      g.x[k] = __dadd_rn(__dmul_rn(alpha, pk), g.x[k]);
      rl[i] = __dadd_rn(__dmul_rn(-alpha, g.q[k]), g.r[k]);
      g.r[k] = rl[i];
    }
    apply_pc<KIND, DPN>(g.pc, a, rl, zl);
    for (int i = 0; i < DPN; i++) {
      g.z[a * DPN + i] = zl[i];
      rr += rl[i] * rl[i];
      rz += rl[i] * zl[i];
    }
  }
  store_partials(g.red, rr, rz);
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
k_pcg_direction(int n, const double *__restrict__ z, double beta, double *__restrict__ p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = __dadd_rn(z[i], __dmul_rn(beta, p[i]));
}

#define LAUNCH_FUSED(K, grid, ...)                                                              \
  do {                                                                                          \
    if (c->pc_kind == 1 && c->dpn == 3) K<1, 3><<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(__VA_ARGS__); \
    else if (c->pc_kind == 1) K<1, 2><<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(__VA_ARGS__);       \
    else if (c->dpn == 3) K<0, 3><<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(__VA_ARGS__);           \
    else K<0, 2><<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(__VA_ARGS__);                            \
    DT_CUDA_LAUNCH_CHECK(#K, c->stream, ctx);                                                   \
  } while (0)

extern "C" dt_status dt_cuda_pcg_solve(void *impl, double rtol, int max_iter, dt_pcg_result *res,
                                       dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  double bb = 0.0, rr = 0.0, rz = 0.0, pq = 0.0, s[2] = {0.0, 0.0};
  int grid = dt_cuda_red_grid(c->n_nodes);
  int vgrid = (c->n_dofs + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK;
  pcg_args g;
  g.n_nodes = c->n_nodes;
  g.pc = c->pc;
  g.x = c->vec[DT_VEC_X];
  g.r = c->vec[DT_VEC_R];
  g.z = c->vec[DT_VEC_PCG_Z];
  g.p = c->vec[DT_VEC_PCG_P];
  g.q = c->vec[DT_VEC_PCG_Q];
  g.red = c->red;
  res->iterations = 0;
  res->rel_residual = 0.0;
  res->reason = DT_CONVERGED;
  LAUNCH_FUSED(k_pcg_init, grid, g);
  DT_TRY(dt_cuda_reduce_finish(c, grid, 2, s, ctx));
  bb = s[0];
  rz = s[1];
  if (!isfinite(bb)) {
    res->reason = DT_DIVERGED_NAN;
    goto cleanup;
  }
  if (bb == 0.0) goto cleanup;
  rr = bb;
  while (res->iterations < max_iter) {
    double alpha, beta;
    DT_TRY(dt_cuda_spmv(c, DT_VEC_PCG_P, DT_VEC_PCG_Q, ctx));
    DT_TRY(dt_cuda_vec_dot(c, DT_VEC_PCG_P, DT_VEC_PCG_Q, &pq, ctx));
    if (!isfinite(pq)) {
      res->reason = DT_DIVERGED_NAN;
      break;
    }
    if (pq <= 0.0) {
      res->reason = DT_DIVERGED_INDEFINITE;
      break;
    }
    alpha = rz / pq;
    LAUNCH_FUSED(k_pcg_update, grid, g, alpha);
    DT_TRY(dt_cuda_reduce_finish(c, grid, 2, s, ctx));
    res->iterations++;
    rr = s[0];
    if (!isfinite(rr)) {
      res->reason = DT_DIVERGED_NAN;
      break;
    }
    if (rr <= rtol * rtol * bb) break;
    beta = s[1] / rz;
    rz = s[1];
    k_pcg_direction<<<vgrid, DT_CUDA_BLOCK, 0, c->stream>>>(c->n_dofs, g.z, beta, g.p);
    DT_CUDA_LAUNCH_CHECK("k_pcg_direction", c->stream, ctx);
  }
  res->rel_residual = sqrt(rr / bb);
  if (res->reason == DT_CONVERGED && rr > rtol * rtol * bb) res->reason = DT_DIVERGED_LINEAR_SOLVER;
cleanup:
  return rc;
}
