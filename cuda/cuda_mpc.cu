/* The linear constraints on the device (solver/problem/problem.h, dt_mpc_op): the map T of the
 * model's equations and its transpose, uploaded once, and the three vector operations the
 * driver's reduced PCG applies (solver/analysis/constraints.c), and ZERO_ISOLATED, ZERO on the
 * dependent DOFs of nodes no element uses.
 *
 * Each is a gather with one thread per row, no atomics: EXPAND per dependent DOF, REDUCE per
 * independent DOF of the transpose (its terms in the order of the dependent DOFs, as the CPU
 * sums them), then ZERO per dependent DOF in a second launch, after every REDUCE thread has
 * read the dependent values. Products and sums are rounded separately (no fused multiply-add),
 * so the results are the CPU backend's bits. */
#include "cuda_internal.h"

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_mpc_expand(int n, const int *dof, const int *ptr, const int *col, const double *val,
                 double *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double s = 0.0;
  if (i >= n) return;
  for (int k = ptr[i]; k < ptr[i + 1]; k++) s = __dadd_rn(s, __dmul_rn(val[k], v[col[k]]));
  v[dof[i]] = s;
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_mpc_reduce(int n, const int *dof, const int *ptr, const int *src, const double *val,
                 double *v) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  double s;
  if (j >= n) return;
  s = v[dof[j]];
  for (int k = ptr[j]; k < ptr[j + 1]; k++) s = __dadd_rn(s, __dmul_rn(val[k], v[src[k]]));
  v[dof[j]] = s;
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_mpc_zero(int n, const int *dof, double *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[dof[i]] = 0.0;
}

static int blocks(long n) { return (int)((n + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK); }

dt_status dt_cuda_mpc_upload(dt_cuda *c, const dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_mpc *m = &c->mpc;
  int n_terms = pb->n_mpc ? pb->mpc_ptr[pb->n_mpc] : 0;
  if (pb->n_mpc == 0) return DT_OK;
  m->n = pb->n_mpc;
  m->n_t = pb->n_mpct;
  UPLOAD(c->mpc, mpc_dof, pb->n_mpc, "constraints");
  UPLOAD(c->mpc, mpc_ptr, pb->n_mpc + 1, "constraints");
  UPLOAD(c->mpc, mpc_col, n_terms, "constraints");
  UPLOAD(c->mpc, mpc_val, n_terms, "constraints");
  UPLOAD(c->mpc, mpct_dof, pb->n_mpct, "constraints");
  UPLOAD(c->mpc, mpct_ptr, pb->n_mpct + 1, "constraints");
  UPLOAD(c->mpc, mpct_src, n_terms, "constraints");
  UPLOAD(c->mpc, mpct_val, n_terms, "constraints");
  m->n_iso = pb->n_mpc_iso;
  if (m->n_iso > 0) UPLOAD(c->mpc, mpc_iso, pb->n_mpc_iso, "constraints");
cleanup:
  return rc;
}

dt_status dt_cuda_load_mpc_kernels(dt_ctx *ctx) {
  const void *kernels[] = {(const void *)k_mpc_expand, (const void *)k_mpc_reduce,
                           (const void *)k_mpc_zero};
  return dt_cuda_load_list(kernels, 3, NULL, ctx);
}

extern "C" dt_status dt_cuda_mpc_apply(void *impl, dt_vec_id v, dt_mpc_op op, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  const dt_cuda_mpc *m = &c->mpc;
  double *x = c->state.vec[v];
  if (m->n == 0) return DT_OK;
  if (op == DT_MPC_ZERO_ISOLATED) {
    if (m->n_iso == 0) return DT_OK;
    k_mpc_zero<<<blocks(m->n_iso), DT_CUDA_BLOCK, 0, c->stream>>>(m->n_iso, m->mpc_iso, x);
    DT_CUDA_LAUNCH_CHECK("k_mpc_zero", c->stream, ctx);
    goto cleanup;
  }
  if (op == DT_MPC_EXPAND) {
    k_mpc_expand<<<blocks(m->n), DT_CUDA_BLOCK, 0, c->stream>>>(m->n, m->mpc_dof, m->mpc_ptr,
                                                                m->mpc_col, m->mpc_val, x);
    DT_CUDA_LAUNCH_CHECK("k_mpc_expand", c->stream, ctx);
    goto cleanup;
  }
  if (op == DT_MPC_REDUCE && m->n_t > 0) {
    k_mpc_reduce<<<blocks(m->n_t), DT_CUDA_BLOCK, 0, c->stream>>>(m->n_t, m->mpct_dof, m->mpct_ptr,
                                                                  m->mpct_src, m->mpct_val, x);
    DT_CUDA_LAUNCH_CHECK("k_mpc_reduce", c->stream, ctx);
  }
  k_mpc_zero<<<blocks(m->n), DT_CUDA_BLOCK, 0, c->stream>>>(m->n, m->mpc_dof, x);
  DT_CUDA_LAUNCH_CHECK("k_mpc_zero", c->stream, ctx);
cleanup:
  return rc;
}
