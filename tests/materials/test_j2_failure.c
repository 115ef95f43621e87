/* DT_MAT_NO_CONVERGENCE path. Non-finite input (NaN/Inf strain, NaN parameters) and a table
 * that softens below zero (no root of the consistency equation) must return
 * DT_MAT_NO_CONVERGENCE, never a silent NaN flagged elastic. Documented output on failure:
 * sig = 0, new_state = old_state, D = elastic matrix, all finite. */
#include "mat_test_util.h"

static void check_failed(const char *what, int res, const double sig[6], const double D[36],
                         const dt_mat_state *old, const dt_mat_state *st, int check_D) {
  int i;
  MT_CHECK(res == DT_MAT_NO_CONVERGENCE, "%s: status %d, expected DT_MAT_NO_CONVERGENCE", what,
           res);
  for (i = 0; i < 6; i++) MT_CHECK(sig[i] == 0.0, "%s: sig[%d] = %g, expected 0", what, i, sig[i]);
  MT_CHECK(memcmp(old, st, sizeof *st) == 0, "%s: new_state differs from old_state", what);
  if (check_D)
    for (i = 0; i < 36; i++) MT_CHECK(fabs(D[i]) <= 1e300, "%s: D[%d] not finite", what, i);
}

static void check_nonfinite_strain(void) {
  double eps[6] = {1e-3, 2e-3, -1e-3, 0.5e-3, 0.1e-3, 0.2e-3}, sig[6], D[36];
  dt_mat_state old, st;
  int k, c, ss, res;
  mt_zero_state(&old);
  old.p = 1e-3; /* a nonzero committed state so that "copied" is observable */
  old.eps_p[2] = 1e-3;
  old.beta[0] = 5.0;
  for (k = 0; k < MT_COUNT; k++) {
    dt_material_params m = mt_material(k);
    for (ss = DT_STATE_3D; ss <= DT_STATE_PLANE_STRESS; ss++) {
      for (c = 0; c < 6; c++) {
        double e[6], bad = (c % 2) ? NAN : -INFINITY;
        char what[128];
        memcpy(e, eps, sizeof e);
        e[c] = bad;
        memset(&st, 0xff, sizeof st); /* poison: must be fully overwritten */
        res = dt_material_update(&m, ss, e, &old, &st, sig, D);
        snprintf(what, sizeof what, "%s, state %d, eps[%d] = %g", mt_name(k), ss, c, bad);
        check_failed(what, res, sig, D, &old, &st, 1);
      }
    }
  }
}

/* NaN material parameters must not hide behind "f = q - NaN <= 0 is false, so elastic". */
static void check_nan_params(void) {
  double eps[6] = {6e-3, -1e-3, -1e-3, 1e-3, 0.0, 0.0}, sig[6], D[36];
  dt_mat_state old, st;
  dt_material_params m = mt_material(MT_LINEAR);
  int res;
  mt_zero_state(&old);
  m.sigma_y0 = NAN;
  res = dt_material_update(&m, DT_STATE_3D, eps, &old, &st, sig, D);
  check_failed("NaN sigma_y0", res, sig, D, &old, &st, 1);
  m = mt_material(MT_LINEAR);
  m.E = NAN;
  res = dt_material_update(&m, DT_STATE_3D, eps, &old, &st, sig, NULL);
  check_failed("NaN E", res, sig, NULL, &old, &st, 0);
  m = mt_material(MT_VOCE);
  m.H = NAN;
  res = dt_material_update(&m, DT_STATE_3D, eps, &old, &st, sig, D);
  check_failed("NaN Voce H", res, sig, D, &old, &st, 1);
}

/* A table softening to a negative yield stress: g(dp) = q_tr - 3G dp - sigma_y(p_n + dp) has
 * no root in [0, q_tr/3G], so the safeguarded Newton has no bracket. */
static void check_softening_table(void) {
  double eps[6] = {8e-3, -2e-3, -2e-3, 2e-3, 1e-3, 0.0}, sig[6], D[36];
  dt_mat_state old, st;
  dt_material_params m = mt_base();
  int res;
  m.iso = DT_ISO_TABLE;
  m.table_n = 2;
  m.table_p[0] = 0.0, m.table_s[0] = 450.0;
  m.table_p[1] = 1e-3, m.table_s[1] = -100.0;
  mt_zero_state(&old);
  res = dt_material_update(&m, DT_STATE_3D, eps, &old, &st, sig, D);
  check_failed("softening table", res, sig, D, &old, &st, 1);
  /* A mildly softening table still converges (root bracketed) and satisfies the yield condition. */
  m.table_s[1] = 300.0;
  res = dt_material_update(&m, DT_STATE_3D, eps, &old, &st, sig, D);
  MT_CHECK(res == DT_MAT_PLASTIC, "mild softening: status %d", res);
  if (res == DT_MAT_PLASTIC) {
    double dev[6], sy = dt_yield_stress(&m, st.p, NULL);
    dt_voigt_dev(sig, dev);
    MT_CHECK(fabs(dt_mises_voigt(dev) - sy) <= 1e-10 * sy,
             "mild softening: q %.15g != sigma_y %.15g", dt_mises_voigt(dev), sy);
  }
}

int main(void) {
  check_nonfinite_strain();
  check_nan_params();
  check_softening_table();
  return mt_finish("test_j2_failure");
}
