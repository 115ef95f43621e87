/* The linear constraints (equations) in the Newton driver: master-slave elimination over the
 * backend's operations (constraints.c). */
#ifndef DT_CONSTRAINTS_H
#define DT_CONSTRAINTS_H

#include "backend/backend.h"

typedef struct dt_constraints {
  const dt_backend_ops *ops;
  void *impl;
  const dt_problem *pb; /* n_mpc > 0 */
  double *host;         /* n_dofs doubles for a backend without mpc_apply, else NULL */
} dt_constraints;

/* Set up for a problem with constraints (pb->n_mpc > 0); dt_constraints_free releases it. */
dt_status dt_constraints_init(dt_constraints *c, const dt_backend_ops *ops, void *impl,
                              const dt_problem *pb, dt_ctx *ctx);
void dt_constraints_free(dt_constraints *c);
/* op (dt_mpc_op) on the backend vector v: the backend's mpc_apply, or on the host. */
dt_status dt_constraints_apply(dt_constraints *c, dt_vec_id v, dt_mpc_op op, dt_ctx *ctx);
/* Solve the reduced system FREE T^T K T x = R (R already reduced and masked) by PCG to rtol,
 * and leave X = T x, which fills the dependent DOFs. */
dt_status dt_constraints_solve(dt_constraints *c, double rtol, int max_iter, dt_pcg_result *res,
                               dt_ctx *ctx);

#endif
