/* Small helpers on the result types of results.h: freeing fields, von Mises, reason names. */
#include "results.h"

#include <math.h>
#include <string.h>

#include "dt_status.h"

void dt_fields_free(dt_fields *f) {
  if (f == NULL) return;
  dt_free(f->u);
  dt_free(f->rf);
  dt_free(f->qp_ptr);
  dt_free(f->qp_x);
  dt_free(f->qp_stress);
  dt_free(f->qp_strain);
  dt_free(f->qp_peeq);
  memset(f, 0, sizeof *f);
}

double dt_mises(const double s[6]) {
  /* sigma_eq = sqrt( ((sxx-syy)^2 + (syy-szz)^2 + (szz-sxx)^2) / 2 + 3 (sxy^2 + sxz^2 + syz^2) ) */
  const double a = s[0] - s[1], b = s[1] - s[2], c = s[2] - s[0];
  const double shear = s[3] * s[3] + s[4] * s[4] + s[5] * s[5];
  return sqrt(0.5 * (a * a + b * b + c * c) + 3.0 * shear);
}

const char *dt_reason_name(dt_reason r) {
  switch (r) {
  case DT_CONVERGED: return "converged";
  case DT_DIVERGED_ITS: return "diverged_iterations";
  case DT_DIVERGED_NAN: return "diverged_nan";
  case DT_DIVERGED_RESIDUAL: return "diverged_residual";
  case DT_DIVERGED_LINEAR_SOLVER: return "linear_solver_failed";
  case DT_DIVERGED_INDEFINITE: return "indefinite_tangent";
  case DT_MATERIAL_NO_CONVERGENCE: return "material_no_convergence";
  case DT_INCREMENT_TOO_SMALL: return "increment_too_small";
  }
  return "unknown";
}
