/* Consistency of the return mapping: the returned stress lies on the yield surface
 * q(sig - beta) = sigma_y(p), plastic flow is isochoric and along the relative-stress
 * deviator, uniaxial stress--plastic-strain curves follow sigma_y(p) + H_kin p for Voce and
 * table hardening, the table/Voce yield functions themselves, and the Bauschinger effect of
 * kinematic hardening: after tension to sigma_max, reverse yield at sigma_max - 2 sigma_y. */
#include "mat_test_util.h"

static const double DIRS[3][6] = {{1.0, -0.3, -0.4, 0.5, 0.3, -0.2},
                                  {-0.2, 0.8, -0.5, -0.3, 0.6, 0.4},
                                  {0.1, 0.2, -0.9, 0.7, -0.5, 0.35}};

/* Apply a path of committed multiaxial steps and check each plastic result. */
static void check_yield_surface(int k) {
  dt_material_params m = mt_material(k);
  dt_mat_state old, st;
  double eps[6] = {0, 0, 0, 0, 0, 0}, sig[6], rel_s[6], dev[6], deps[6];
  int step, i, res, nplastic = 0;
  mt_zero_state(&old);
  for (step = 0; step < 12; step++) {
    double a = (step % 4 == 3) ? -1.5e-3 : 2.5e-3; /* mostly loading, some reversals */
    for (i = 0; i < 6; i++) eps[i] += a * DIRS[step % 3][i];
    res = dt_material_update(&m, DT_STATE_3D, eps, &old, &st, sig, NULL);
    MT_CHECK(res != DT_MAT_NO_CONVERGENCE, "%s step %d: no convergence", mt_name(k), step);
    if (res == DT_MAT_PLASTIC) {
      double sy = dt_yield_stress(&m, st.p, NULL), q, tr, dnorm, dd, cosang;
      nplastic++;
      dt_voigt_dev(sig, dev);
      for (i = 0; i < 6; i++) rel_s[i] = dev[i] - st.beta[i]; /* xi = s - beta */
      q = sqrt(1.5 * dt_voigt_ddot(rel_s, rel_s));
      MT_CHECK(fabs(q - sy) <= 1e-10 * sy, "%s step %d: q(sig-beta) = %.15g, sigma_y(p) = %.15g",
               mt_name(k), step, q, sy);
      for (i = 0; i < 6; i++)
        deps[i] = (st.eps_p[i] - old.eps_p[i]) * (i < 3 ? 1.0 : 0.5); /* tensor */
      tr = deps[0] + deps[1] + deps[2];
      dnorm = sqrt(dt_voigt_ddot(deps, deps));
      MT_CHECK(fabs(tr) <= 1e-14 * (dnorm + 1e-300), "%s step %d: tr(deps_p) = %g", mt_name(k),
               step, tr);
      /* |deps_p| = sqrt(3/2) dp, and deps_p parallel to the final xi (radial return). */
      dd = st.p - old.p;
      MT_CHECK(fabs(dnorm - sqrt(1.5) * dd) <= 1e-12 * dnorm,
               "%s step %d: |deps_p| != sqrt(3/2) dp", mt_name(k), step);
      cosang = dt_voigt_ddot(deps, rel_s) / (dnorm * sqrt(dt_voigt_ddot(rel_s, rel_s)));
      MT_CHECK(dd == 0.0 || fabs(cosang - 1.0) <= 1e-12, "%s step %d: flow not normal (cos %.15g)",
               mt_name(k), step, cosang);
      MT_CHECK(dt_mises_voigt(sig) > 0.0, "mises");
    }
    old = st;
  }
  MT_CHECK(nplastic >= 3, "%s: only %d plastic steps on the test path", mt_name(k), nplastic);
}

/* Uniaxial strain-driven tension: sig_zz = sigma_y(p) + H_kin p once plastic, eps_p_zz = p. */
static void check_uniaxial_curve(int k) {
  dt_material_params m = mt_material(k);
  dt_mat_state old, st;
  double eps[6] = {0, 0, 0, 0, 0, 0}, sig[6];
  int step, res, nplastic = 0;
  mt_zero_state(&old);
  for (step = 1; step <= 40; step++) {
    double ez = 1e-3 * step; /* up to 4 %: beyond the last table point (3 %) */
    res = mt_uniaxial(&m, &old, 0, ez, eps, &st, sig, NULL);
    MT_CHECK(res >= 0, "%s curve step %d: lateral Newton failed", mt_name(k), step);
    if (res == DT_MAT_PLASTIC) {
      double want = dt_yield_stress(&m, st.p, NULL) + m.H_kin * st.p;
      nplastic++;
      MT_CHECK(fabs(sig[2] - want) <= 1e-10 * want,
               "%s curve step %d: sig_zz %.15g, sigma_y(p) + Hk p = %.15g", mt_name(k), step,
               sig[2], want);
      MT_CHECK(fabs(st.eps_p[2] - st.p) <= 1e-12 * st.p, "%s curve: eps_p_zz %.15g != p %.15g",
               mt_name(k), st.eps_p[2], st.p);
      MT_CHECK(fabs(eps[2] - sig[2] / m.E - st.p) <= 1e-12 * eps[2], "%s curve: eps_z != sig/E + p",
               mt_name(k));
    }
    old = st;
  }
  MT_CHECK(nplastic >= 30, "%s: only %d plastic steps on the curve", mt_name(k), nplastic);
}

/* The hardening laws themselves, at hand-computed points. */
static void check_yield_functions(void) {
  dt_material_params t = mt_material(MT_TABLE), v = mt_material(MT_VOCE);
  double s, ds;
  s = dt_yield_stress(&t, 0.0, &ds);
  MT_CHECK(s == 450.0 && fabs(ds - 35000.0) < 1e-9, "table at 0: %g slope %g", s, ds);
  s = dt_yield_stress(&t, 0.001, &ds);
  MT_CHECK(fabs(s - 485.0) < 1e-12 && fabs(ds - 35000.0) < 1e-9, "table at 0.001: %g slope %g", s,
           ds);
  s = dt_yield_stress(&t, 0.002, &ds); /* breakpoint: right-hand slope */
  MT_CHECK(fabs(s - 520.0) < 1e-12 && fabs(ds - 50.0 / 0.003) < 1e-9, "table at 0.002: %g slope %g",
           s, ds);
  s = dt_yield_stress(&t, 0.02, &ds);
  MT_CHECK(fabs(s - 605.0) < 1e-12 && fabs(ds - 500.0) < 1e-9, "table at 0.02: %g slope %g", s, ds);
  s = dt_yield_stress(&t, 0.5, &ds);
  MT_CHECK(s == 610.0 && ds == 0.0, "table beyond end: %g slope %g", s, ds);
  t.table_n = 1; /* single point: perfectly plastic at table_s[0] */
  s = dt_yield_stress(&t, 0.01, &ds);
  MT_CHECK(s == 450.0 && ds == 0.0, "one-point table: %g slope %g", s, ds);
  s = dt_yield_stress(&v, 0.01, &ds); /* 450 + 2e3 p + 200 (1 - e^{-300 p}) */
  MT_CHECK(fabs(s - (450.0 + 20.0 + 200.0 * (1.0 - exp(-3.0)))) < 1e-12 &&
               fabs(ds - (2e3 + 6e4 * exp(-3.0))) < 1e-9,
           "voce at 0.01: %g slope %g", s, ds);
}

/* Bauschinger: tension to sigma_max (committed, plastic), then stress-controlled reversal.
 * Elastic domain |sig - Hk p| <= sigma_y(p): reverse yield at sigma_max - 2 sigma_y(p). */
static void check_bauschinger(int k) {
  dt_material_params m = mt_material(k);
  dt_mat_state virgin, loaded, st;
  double eps[6] = {0, 0, 0, 0, 0, 0}, e2[6], sig[6], smax, srev, delta;
  int res;
  mt_zero_state(&virgin);
  res = mt_uniaxial(&m, &virgin, 0, 6e-3, eps, &loaded, sig, NULL);
  MT_CHECK(res == DT_MAT_PLASTIC, "%s bauschinger: tension not plastic (%d)", mt_name(k), res);
  smax = sig[2];
  srev = smax - 2.0 * dt_yield_stress(&m, loaded.p, NULL);
  delta = 1e-6 * m.sigma_y0;
  MT_CHECK(srev < 0.0, "%s bauschinger: reverse yield %g not compressive", mt_name(k), srev);
  memcpy(e2, eps, sizeof e2);
  res = mt_uniaxial(&m, &loaded, 1, srev + delta, e2, &st, sig, NULL);
  MT_CHECK(res == DT_MAT_ELASTIC, "%s bauschinger: elastic at sigma_max - 2 sy + d (got %d)",
           mt_name(k), res);
  memcpy(e2, eps, sizeof e2);
  res = mt_uniaxial(&m, &loaded, 1, srev - delta, e2, &st, sig, NULL);
  MT_CHECK(res == DT_MAT_PLASTIC, "%s bauschinger: not plastic at sigma_max - 2 sy - d (got %d)",
           mt_name(k), res);
  MT_CHECK(st.eps_p[2] < loaded.eps_p[2], "%s bauschinger: reverse flow not compressive",
           mt_name(k));
}

int main(void) {
  int k;
  for (k = MT_PERFECT; k < MT_COUNT; k++) check_yield_surface(k);
  check_uniaxial_curve(MT_VOCE);
  check_uniaxial_curve(MT_TABLE);
  check_uniaxial_curve(MT_VOCE_KIN);
  check_uniaxial_curve(MT_TABLE_KIN);
  check_uniaxial_curve(MT_LINEAR_KIN);
  check_yield_functions();
  check_bauschinger(MT_KIN);
  check_bauschinger(MT_LINEAR_KIN);
  return mt_finish("test_j2_consistency");
}
