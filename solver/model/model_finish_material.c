/* Material parameter rules, written once for every importer and for dt_model_finish.
 *
 * The check reports the offending field as a path relative to a job file's material object, so
 * the JSON parser can prefix "materials[i]." and dt_model_finish can prefix the material name.
 * To add a parameter, add its rule here and its field name as the job format spells it. */
#include <math.h>
#include <stdio.h>

#include "model_internal.h"

#define FAIL(fld, ...)                                                                             \
  do {                                                                                             \
    snprintf(field, nfield, "%s", (fld));                                                          \
    snprintf(msg, nmsg, __VA_ARGS__);                                                              \
    return 1;                                                                                      \
  } while (0)

static int check_table(const dt_material_params *p, char *field, size_t nfield, char *msg,
                       size_t nmsg) {
  char at[64];

  if (p->table_n < 1 || p->table_n > DT_TABLE_MAX)
    FAIL("plastic.hardening.points", "must have 1 to %d points (got %d)", DT_TABLE_MAX, p->table_n);
  for (int i = 0; i < p->table_n; i++) {
    snprintf(at, sizeof at, "plastic.hardening.points[%d]", i);
    if (!isfinite(p->table_s[i]) || !isfinite(p->table_p[i])) FAIL(at, "must be finite numbers");
    if (p->table_s[i] <= 0) FAIL(at, "yield stress must be > 0 (got %g)", p->table_s[i]);
    if (i == 0 && p->table_p[0] != 0)
      FAIL(at, "the first point must have plastic strain 0 (got %g)", p->table_p[0]);
    if (i > 0 && !(p->table_p[i] > p->table_p[i - 1]))
      FAIL(at, "plastic strain must be strictly increasing (%g after %g)", p->table_p[i],
           p->table_p[i - 1]);
  }
  return 0;
}

/* Angles in degrees. c > 0 keeps the pyramid's apex at positive mean stress (c = 0 puts every
 * unloaded point on the apex); phi < 90 keeps cot(phi) finite; psi <= phi: a dilation beyond
 * the friction angle would make the material produce energy. */
static int check_mohr_coulomb(const dt_material_params *p, char *field, size_t nfield, char *msg,
                              size_t nmsg) {
  if (!isfinite(p->mc_cohesion) || !(p->mc_cohesion > 0))
    FAIL("plastic.cohesion", "must be > 0 (got %g)", p->mc_cohesion);
  if (!isfinite(p->mc_friction_deg) || !(p->mc_friction_deg >= 0 && p->mc_friction_deg < 90))
    FAIL("plastic.friction_angle", "must be in [0, 90) degrees (got %g)", p->mc_friction_deg);
  if (!isfinite(p->mc_dilation_deg) ||
      !(p->mc_dilation_deg >= 0 && p->mc_dilation_deg <= p->mc_friction_deg))
    FAIL("plastic.dilation_angle", "must be in [0, friction_angle = %g] degrees (got %g)",
         p->mc_friction_deg, p->mc_dilation_deg);
  if (!p->mc_elastic_tangent && p->mc_dilation_deg != p->mc_friction_deg)
    FAIL("plastic.tangent",
         "\"consistent\" needs associative flow (dilation_angle = friction_angle): the "
         "consistent tangent of non-associative flow is unsymmetric and PCG needs a symmetric "
         "matrix; use "
         "\"elastic\" (the default for dilation_angle < friction_angle)");
  return 0;
}

int dt_material_params_check(const dt_material_params *p, char *field, size_t nfield, char *msg,
                             size_t nmsg) {
  if (!isfinite(p->E)) FAIL("elastic.E", "must be a finite number");
  if (!(p->E > 0)) FAIL("elastic.E", "must be > 0 (got %g)", p->E);
  if (!isfinite(p->nu)) FAIL("elastic.nu", "must be a finite number");
  if (!(p->nu < 0.5)) FAIL("elastic.nu", "must be < 0.5 (got %g)", p->nu);
  if (!(p->nu > -1)) FAIL("elastic.nu", "must be > -1 (got %g)", p->nu);
  if (!p->plastic) return 0;
  if (p->plastic == DT_PLASTIC_MOHR_COULOMB) return check_mohr_coulomb(p, field, nfield, msg, nmsg);
  if (p->plastic != DT_PLASTIC_J2)
    FAIL("plastic.criterion", "unknown yield criterion %d", p->plastic);
  if (!isfinite(p->H_kin) || p->H_kin < 0)
    FAIL("plastic.kinematic_modulus", "must be >= 0 (got %g)", p->H_kin);
  switch (p->iso) {
  case DT_ISO_TABLE: return check_table(p, field, nfield, msg, nmsg);
  case DT_ISO_PERFECT:
  case DT_ISO_LINEAR:
  case DT_ISO_VOCE: break;
  default: FAIL("plastic.hardening.type", "unknown hardening law %d", p->iso);
  }
  if (!isfinite(p->sigma_y0) || !(p->sigma_y0 > 0))
    FAIL("plastic.yield_stress", "must be > 0 (got %g)", p->sigma_y0);
  if (p->iso == DT_ISO_PERFECT) return 0;
  if (!isfinite(p->H) || p->H < 0) FAIL("plastic.hardening.modulus", "must be >= 0 (got %g)", p->H);
  if (p->iso == DT_ISO_VOCE) {
    if (!isfinite(p->voce_Q) || p->voce_Q < 0)
      FAIL("plastic.hardening.q", "must be >= 0 (got %g)", p->voce_Q);
    if (!isfinite(p->voce_b) || !(p->voce_b > 0))
      FAIL("plastic.hardening.b", "must be > 0 (got %g)", p->voce_b);
  }
  return 0;
}
