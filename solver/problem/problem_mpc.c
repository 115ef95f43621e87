/* The linear constraints of a problem: the model's equations as the sparse map T (u = T u_hat,
 * the dependent DOFs filled from the independent ones) and its transpose, and the three vector
 * operations the driver and the CPU backend apply with them (problem.h, dt_mpc_op).
 *
 * T^T is stored by independent DOF so that y <- T^T y is a gather per independent DOF, summed
 * in the order of the dependent DOFs: no two writers share an entry (threads on the CPU,
 * threads on the GPU: the same sums in the same order). */
#include <string.h>

#include "core/host_arrays.h"
#include "model/model.h"
#include "problem.h"

/* mpct_* from mpc_*: count the terms per independent DOF, then fill in dependent order. */
static dt_status build_transpose(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *slot = NULL, *fill = NULL, n_terms = pb->mpc_ptr[pb->n_mpc];
  DT_ALLOC(slot, pb->n_dofs, ctx, "constraint transpose");
  for (int i = 0; i < pb->n_dofs; i++) slot[i] = -1;
  for (int k = 0; k < n_terms; k++)
    if (slot[pb->mpc_col[k]] < 0) slot[pb->mpc_col[k]] = pb->n_mpct++;
  DT_ALLOC(pb->mpct_dof, pb->n_mpct, ctx, "constraint transpose");
  DT_ALLOC(pb->mpct_ptr, pb->n_mpct + 1, ctx, "constraint transpose");
  DT_ALLOC(pb->mpct_src, n_terms, ctx, "constraint transpose");
  DT_ALLOC(pb->mpct_val, n_terms, ctx, "constraint transpose");
  DT_ALLOC(fill, pb->n_mpct, ctx, "constraint transpose");
  for (int i = 0; i < pb->n_dofs; i++)
    if (slot[i] >= 0) pb->mpct_dof[slot[i]] = i;
  for (int k = 0; k < n_terms; k++) pb->mpct_ptr[slot[pb->mpc_col[k]] + 1]++;
  for (int j = 0; j < pb->n_mpct; j++) pb->mpct_ptr[j + 1] += pb->mpct_ptr[j];
  for (int i = 0; i < pb->n_mpc; i++)
    for (int k = pb->mpc_ptr[i]; k < pb->mpc_ptr[i + 1]; k++) {
      int j = slot[pb->mpc_col[k]], at = pb->mpct_ptr[j] + fill[j]++;
      pb->mpct_src[at] = pb->mpc_dof[i];
      pb->mpct_val[at] = pb->mpc_val[k];
    }
cleanup:
  dt_free(slot);
  dt_free(fill);
  return rc;
}

dt_status dt_problem_build_mpc(const dt_model *m, dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_mpc mpc;
  int bad = -1;
  memset(&mpc, 0, sizeof mpc);
  if (m->eq.n == 0) return DT_OK;
  DT_TRY(dt_model_equations_resolve(m, pb->dpn, &mpc, &bad, ctx));
  pb->n_mpc = mpc.n;
  pb->mpc_dof = mpc.dof;
  pb->mpc_ptr = mpc.ptr;
  pb->mpc_col = mpc.col;
  pb->mpc_val = mpc.val;
  memset(&mpc, 0, sizeof mpc); /* owned by pb now */
  DT_TRY(build_transpose(pb, ctx));
  for (int i = 0; m->node_isolated && i < pb->n_mpc; i++)
    pb->n_mpc_iso += m->node_isolated[pb->mpc_dof[i] / pb->dpn];
  if (pb->n_mpc_iso > 0) {
    int k = 0;
    DT_ALLOC(pb->mpc_iso, pb->n_mpc_iso, ctx, "isolated constraint DOFs");
    for (int i = 0; i < pb->n_mpc; i++)
      if (m->node_isolated[pb->mpc_dof[i] / pb->dpn]) pb->mpc_iso[k++] = pb->mpc_dof[i];
  }
cleanup:
  dt_mpc_free(&mpc);
  return rc;
}

void dt_problem_free_mpc(dt_problem *pb) {
  dt_free(pb->mpc_dof);
  dt_free(pb->mpc_ptr);
  dt_free(pb->mpc_col);
  dt_free(pb->mpc_val);
  dt_free(pb->mpct_dof);
  dt_free(pb->mpct_ptr);
  dt_free(pb->mpct_src);
  dt_free(pb->mpct_val);
  dt_free(pb->mpc_iso);
  pb->mpc_iso = NULL;
  pb->n_mpc_iso = 0;
  pb->mpc_dof = pb->mpc_ptr = pb->mpc_col = NULL;
  pb->mpct_dof = pb->mpct_ptr = pb->mpct_src = NULL;
  pb->mpc_val = pb->mpct_val = NULL;
  pb->n_mpc = pb->n_mpct = 0;
}

#define COPY(field, count)                                                                         \
  do {                                                                                             \
    DT_ALLOC(dst->field, (count), ctx, "constraints");                                             \
    memcpy(dst->field, src->field, sizeof *dst->field *(size_t)(count));                           \
  } while (0)

dt_status dt_problem_copy_mpc(const dt_problem *src, dt_problem *dst, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n_terms = src->n_mpc ? src->mpc_ptr[src->n_mpc] : 0;
  dst->n_mpc = dst->n_mpct = 0;
  dst->mpc_dof = dst->mpc_ptr = dst->mpc_col = dst->mpct_dof = dst->mpct_ptr = dst->mpct_src = NULL;
  dst->mpc_val = dst->mpct_val = NULL;
  dst->n_mpc_iso = 0;
  dst->mpc_iso = NULL;
  if (src->n_mpc == 0) return DT_OK;
  if (src->n_mpc_iso > 0) COPY(mpc_iso, src->n_mpc_iso);
  dst->n_mpc_iso = src->n_mpc_iso;
  COPY(mpc_dof, src->n_mpc);
  COPY(mpc_ptr, src->n_mpc + 1);
  COPY(mpc_col, n_terms);
  COPY(mpc_val, n_terms);
  COPY(mpct_dof, src->n_mpct);
  COPY(mpct_ptr, src->n_mpct + 1);
  COPY(mpct_src, n_terms);
  COPY(mpct_val, n_terms);
  dst->n_mpc = src->n_mpc;
  dst->n_mpct = src->n_mpct;
cleanup:
  if (rc != DT_OK) dt_problem_free_mpc(dst);
  return rc;
}

void dt_problem_mpc_apply(const dt_problem *pb, dt_mpc_op op, double *v) {
  if (op == DT_MPC_ZERO_ISOLATED) {
    for (int i = 0; i < pb->n_mpc_iso; i++) v[pb->mpc_iso[i]] = 0.0;
    return;
  }
  if (op == DT_MPC_EXPAND) {
#pragma omp parallel for schedule(static) if (pb->n_mpc > DT_HOST_PARALLEL_MIN)
    for (int i = 0; i < pb->n_mpc; i++) { /* v[d] = sum_k a_dk v[k] */
      double s = 0.0;
      for (int k = pb->mpc_ptr[i]; k < pb->mpc_ptr[i + 1]; k++)
        s += pb->mpc_val[k] * v[pb->mpc_col[k]];
      v[pb->mpc_dof[i]] = s;
    }
    return;
  }
  if (op == DT_MPC_REDUCE) {
#pragma omp parallel for schedule(static) if (pb->n_mpct > DT_HOST_PARALLEL_MIN)
    for (int j = 0; j < pb->n_mpct; j++) { /* v[k] += sum_d a_dk v[d] */
      double s = v[pb->mpct_dof[j]];
      for (int k = pb->mpct_ptr[j]; k < pb->mpct_ptr[j + 1]; k++)
        s += pb->mpct_val[k] * v[pb->mpct_src[k]];
      v[pb->mpct_dof[j]] = s;
    }
  }
  for (int i = 0; i < pb->n_mpc; i++) v[pb->mpc_dof[i]] = 0.0;
}

double dt_problem_mpc_bytes(const dt_problem *pb) {
  double terms = pb->n_mpc ? pb->mpc_ptr[pb->n_mpc] : 0;
  return pb->n_mpc ? 4.0 * (2.0 * pb->n_mpc + 2.0 * pb->n_mpct + 2.0 + pb->n_mpc_iso) + 24.0 * terms
                   : 0.0;
}
