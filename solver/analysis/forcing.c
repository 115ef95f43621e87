/* Forcing terms for inexact Newton (forcing.h).
 *
 * Adaptive, for the correction that starts from relative residual r_k:
 *   eta_k = 0.9 (r_k / r_{k-1})^2                   Eisenstat & Walker's choice 2: it follows
 *                                                   the observed convergence rate, so it asks
 *                                                   for quadratic accuracy once Newton shows it
 *   eta_k = max(eta_k, 0.9 eta_{k-1}^2)  if 0.9 eta_{k-1}^2 > 0.1
 *                                                   their safeguard against one lucky step
 *                                                   tightening the tolerance too early
 *   eta_k = max(eta_k, 0.5 rtol_newton / r_k)       no oversolving: the next residual need only
 *                                                   reach half of Newton's own criterion
 *                                                   (Kelley, Solving Nonlinear Equations with
 *                                                   Newton's Method, SIAM 2003, §3.2.3)
 *   eta_k = min(eta_k, DT_FORCING_ETA_MAX), then max(eta_k, linear.tolerance).
 * Only scalars the solver already has (the residual norms) enter, so a GPU and a CPU run of the
 * same job use the same tolerances and take the same iterations. */
#include "forcing.h"

#include <math.h>

void dt_forcing_start(dt_forcing *f, const dt_solver_options *o) {
  f->kind = o->forcing;
  f->eta_min = o->pcg_rtol;
  f->newton_rtol = o->newton_rtol;
  f->eta_prev = 0.0;
  f->rel_prev = 0.0;
}

double dt_forcing_next(dt_forcing *f, double rel) {
  const double gamma = 0.9;
  double eta = DT_FORCING_ETA_MAX;
  if (f->kind == DT_FORCING_FIXED) return f->eta_min;
  if (f->eta_prev > 0.0 && f->rel_prev > 0.0) {
    double ratio = rel / f->rel_prev, keep = gamma * f->eta_prev * f->eta_prev;
    eta = gamma * ratio * ratio;
    if (keep > 0.1 && keep > eta) eta = keep;
  }
  if (rel > 0.0 && 0.5 * f->newton_rtol / rel > eta) eta = 0.5 * f->newton_rtol / rel;
  if (!(eta <= DT_FORCING_ETA_MAX)) eta = DT_FORCING_ETA_MAX; /* also catches NaN */
  if (eta < f->eta_min) eta = f->eta_min;
  f->eta_prev = eta;
  f->rel_prev = rel;
  return eta;
}
