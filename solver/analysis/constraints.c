/* Linear constraints by elimination (master-slave), over the backend's operations.
 *
 * With u = T u_hat (T fills each dependent DOF d from the independent DOFs of its resolved
 * equation, u_d = sum_k a_dk u_k, and is the identity elsewhere), the reduced equations are
 *     T^T K T x = T^T r,
 * which Newton solves on vectors of full length whose dependent entries are 0 (problem.h's
 * EXPAND, REDUCE, ZERO are T, T^T and that mask). The backend keeps its tangent K as it is
 * (Dirichlet rows and columns identity, dependent DOFs ordinary), so nothing changes for models
 * without equations and every backend path (assembled, matrix-free, any preconditioner) serves
 * models with them:
 *     A x = FREE .* T^T K T x             (the operator; FREE also drops what T^T carried onto
 *                                          prescribed DOFs)
 *     M^-1 r = FREE .* Z M_K^-1 r         (the backend's preconditioner of K restricted to the
 *                                          independent free DOFs: P M_K^-1 P with P that mask,
 *                                          symmetric positive definite there, as PCG needs)
 * and X = T x at the end, so that the displacement keeps satisfying the equations exactly.
 * Each product costs the backend's SpMV plus three sweeps over the constraint terms and two
 * vector multiplies. The fused PCG of a backend is not used here: its operator is K. */
#include "constraints.h"

#include <string.h>

dt_status dt_constraints_init(dt_constraints *c, const dt_backend_ops *ops, void *impl,
                              const dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  memset(c, 0, sizeof *c);
  c->ops = ops;
  c->impl = impl;
  c->pb = pb;
  if (!ops->mpc_apply) DT_ALLOC(c->host, pb->n_dofs, ctx, "constraint scratch");
cleanup:
  return rc;
}

void dt_constraints_free(dt_constraints *c) {
  dt_free(c->host);
  c->host = NULL;
}

dt_status dt_constraints_apply(dt_constraints *c, dt_vec_id v, dt_mpc_op op, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (c->ops->mpc_apply) return c->ops->mpc_apply(c->impl, v, op, ctx);
  DT_TRY(c->ops->vec_get(c->impl, v, c->host, ctx));
  dt_problem_mpc_apply(c->pb, op, c->host);
  DT_TRY(c->ops->vec_set(c->impl, v, c->host, ctx));
cleanup:
  return rc;
}

/* y = FREE .* T^T K T x, with W as the scratch for T x. */
static dt_status reduced_operator(void *arg, dt_vec_id x, dt_vec_id y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_constraints *c = arg;
  DT_TRY(c->ops->vec_lincomb(c->impl, DT_VEC_W, 1.0, x, 0.0, x, ctx));
  DT_TRY(dt_constraints_apply(c, DT_VEC_W, DT_MPC_EXPAND, ctx));
  DT_TRY(c->ops->operator_apply(c->impl, DT_VEC_W, y, ctx));
  if (c->pb->n_mpc_iso > 0) /* K has no rows there: drop the identity the backend holds */
    DT_TRY(dt_constraints_apply(c, y, DT_MPC_ZERO_ISOLATED, ctx));
  DT_TRY(dt_constraints_apply(c, y, DT_MPC_REDUCE, ctx));
  DT_TRY(c->ops->vec_mul(c->impl, y, y, DT_VEC_FREE, ctx));
cleanup:
  return rc;
}

/* z = FREE .* (M_K^-1 r with the dependent entries zeroed). */
static dt_status reduced_preconditioner(void *arg, dt_vec_id r, dt_vec_id z, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_constraints *c = arg;
  DT_TRY(c->ops->pc_apply(c->impl, r, z, ctx));
  DT_TRY(dt_constraints_apply(c, z, DT_MPC_ZERO, ctx));
  DT_TRY(c->ops->vec_mul(c->impl, z, z, DT_VEC_FREE, ctx));
cleanup:
  return rc;
}

dt_status dt_constraints_solve(dt_constraints *c, double rtol, int max_iter, dt_pcg_result *res,
                               dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(dt_pcg_solve_ops(c->ops, c->impl, reduced_operator, reduced_preconditioner, c, rtol,
                          max_iter, res, ctx));
  DT_TRY(dt_constraints_apply(c, DT_VEC_X, DT_MPC_EXPAND, ctx));
cleanup:
  return rc;
}
