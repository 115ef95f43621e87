/* Preconditioned conjugate gradients over the backend's operations (DESIGN.md §4).
 *
 * Solves K x = b with b in DT_VEC_R and x in DT_VEC_X, x0 = 0. Only scalars come back to the
 * host: each iteration costs one SpMV, one preconditioner application, two dot products and
 * three vector updates. Stops when |r| <= rtol |b| (CONVERGED), at max_iter
 * (DIVERGED_LINEAR_SOLVER), on a non-positive curvature p.Kp <= 0 (DIVERGED_INDEFINITE: the
 * tangent is not positive definite, the usual sign of a collapse mechanism), or on NaN.
 *
 *   r = b, z = M^-1 r, p = z, rz = r.z
 *   repeat: q = K p; alpha = rz / p.q; x += alpha p; r -= alpha q;
 *           z = M^-1 r; rz' = r.z; beta = rz'/rz; p = z + beta p
 * dt_pcg_solve_ops is the same iteration with q = A p and z = M^-1 r given as functions: the
 * driver's reduced system of a model with linear constraints (constraints.c). */
#include <math.h>

#include "backend/backend.h"

typedef struct backend_arg {
  const dt_backend_ops *o;
  void *impl;
} backend_arg;

static dt_status backend_operator(void *arg, dt_vec_id x, dt_vec_id y, dt_ctx *ctx) {
  backend_arg *b = arg;
  return b->o->operator_apply(b->impl, x, y, ctx);
}

static dt_status backend_pc(void *arg, dt_vec_id r, dt_vec_id z, dt_ctx *ctx) {
  backend_arg *b = arg;
  return b->o->pc_apply(b->impl, r, z, ctx);
}

dt_status dt_pcg_solve(const dt_backend_ops *o, void *impl, double rtol, int max_iter,
                       dt_pcg_result *res, dt_ctx *ctx) {
  backend_arg b = {o, impl};
  return dt_pcg_solve_ops(o, impl, backend_operator, backend_pc, &b, rtol, max_iter, res, ctx);
}

dt_status dt_pcg_solve_ops(const dt_backend_ops *o, void *impl, dt_pcg_apply_fn op,
                           dt_pcg_apply_fn pc, void *arg, double rtol, int max_iter,
                           dt_pcg_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double bb = 0.0, rr = 0.0, rz = 0.0, pq = 0.0, rz_new = 0.0;
  res->iterations = 0;
  res->rel_residual = 0.0;
  res->reason = DT_CONVERGED;
  DT_TRY(o->vec_lincomb(impl, DT_VEC_X, 0.0, DT_VEC_X, 0.0, DT_VEC_X, ctx)); /* x = 0 */
  DT_TRY(o->vec_dot(impl, DT_VEC_R, DT_VEC_R, &bb, ctx));
  if (!isfinite(bb)) {
    res->reason = DT_DIVERGED_NAN;
    goto cleanup;
  }
  if (bb == 0.0) goto cleanup;
  DT_TRY(pc(arg, DT_VEC_R, DT_VEC_PCG_Z, ctx));
  DT_TRY(o->vec_lincomb(impl, DT_VEC_PCG_P, 1.0, DT_VEC_PCG_Z, 0.0, DT_VEC_PCG_Z, ctx));
  DT_TRY(o->vec_dot(impl, DT_VEC_R, DT_VEC_PCG_Z, &rz, ctx));
  rr = bb;
  while (res->iterations < max_iter) {
    DT_TRY(op(arg, DT_VEC_PCG_P, DT_VEC_PCG_Q, ctx));
    DT_TRY(o->vec_dot(impl, DT_VEC_PCG_P, DT_VEC_PCG_Q, &pq, ctx));
    if (!isfinite(pq)) {
      res->reason = DT_DIVERGED_NAN;
      break;
    }
    if (pq <= 0.0) {
      res->reason = DT_DIVERGED_INDEFINITE;
      break;
    }
    double alpha = rz / pq;
    DT_TRY(o->vec_lincomb(impl, DT_VEC_X, alpha, DT_VEC_PCG_P, 1.0, DT_VEC_X, ctx));
    DT_TRY(o->vec_lincomb(impl, DT_VEC_R, -alpha, DT_VEC_PCG_Q, 1.0, DT_VEC_R, ctx));
    res->iterations++;
    DT_TRY(o->vec_dot(impl, DT_VEC_R, DT_VEC_R, &rr, ctx));
    if (!isfinite(rr)) {
      res->reason = DT_DIVERGED_NAN;
      break;
    }
    if (rr <= rtol * rtol * bb) break;
    DT_TRY(pc(arg, DT_VEC_R, DT_VEC_PCG_Z, ctx));
    DT_TRY(o->vec_dot(impl, DT_VEC_R, DT_VEC_PCG_Z, &rz_new, ctx));
    double beta = rz_new / rz;
    rz = rz_new;
    DT_TRY(o->vec_lincomb(impl, DT_VEC_PCG_P, 1.0, DT_VEC_PCG_Z, beta, DT_VEC_PCG_P, ctx));
  }
  res->rel_residual = sqrt(rr / bb);
  if (res->reason == DT_CONVERGED && rr > rtol * rtol * bb) res->reason = DT_DIVERGED_LINEAR_SOLVER;
cleanup:
  return rc;
}
