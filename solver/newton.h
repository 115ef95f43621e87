/* Newton-Raphson iterations of one load increment, over the backend operations. */
#ifndef DT_NEWTON_H
#define DT_NEWTON_H

#include "analysis.h"
#include "backend.h"

/* Residual below this (relative) is accepted without the displacement test: the increment is
 * then solved to the accuracy of the linear solver (a linear step converges in one iteration). */
#define DT_NEWTON_RESIDUAL_FLOOR 1e-8

typedef struct dt_newton_ctx {
  const dt_backend_ops *ops;
  void *impl;
  const dt_solver_options *opt;
  dt_progress_fn progress;
  void *user;
  dt_progress event;   /* step/increment fields pre-filled by the caller */
  double seconds_assembly, seconds_stress, seconds_solver; /* accumulated */
  long assembly_calls, stress_calls; /* the calls timed in seconds_assembly, seconds_stress */
} dt_newton_ctx;

typedef struct dt_newton_result {
  dt_reason reason;
  int iterations;
  int pcg_iterations;
  double residual;    /* relative force residual at exit */
  int n_plastic;
  int failed_elem;    /* for MATERIAL_NO_CONVERGENCE: an element index, else -1 */
} dt_newton_result;

/* Iterate on the increment ending at load factor lambda: DU holds the predictor (prescribed
 * displacements already in place) and is corrected in place. Returns DT_OK with res->reason
 * saying whether it converged; DT_ERR_CANCELLED if the progress callback asked to stop. */
dt_status dt_newton_increment(dt_newton_ctx *nc, double lambda, dt_newton_result *res, dt_ctx *ctx);

double dt_seconds(void);

#endif
