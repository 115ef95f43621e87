/* Consistent tangent of dt_material_update against central finite differences of the stress
 * update, for every hardening option and four situations each: elastic, plastic loading from
 * the virgin state, plastic loading from a pre-hardened state (nonzero eps_p, p and back
 * stress, built by a committed update in another direction) and elastic unloading from a
 * plastic state. All six strain components are nonzero. Also plane strain (= 3D law) and plane
 * stress (elastic, reduced stiffness). */
#include "mat_test_util.h"

#define FD_TOL 1e-6

/* Two non-collinear multiaxial strain directions (engineering shears), |dir|_max = 1. */
static const double DIR1[6] = {1.0, -0.3, -0.4, 0.5, 0.3, -0.2};
static const double DIR2[6] = {-0.2, 0.8, -0.5, -0.3, 0.6, 0.4};

static void axpy(double a, const double x[6], const double y[6], double out[6]) {
  int i;
  for (i = 0; i < 6; i++) out[i] = a * x[i] + y[i];
}

/* Compare the returned tangent with FD at eps from `old`; expect status `want`. */
static void check_point(const dt_material_params *m, int ss, const double eps[6],
                        const dt_mat_state *old, int want, const char *what, const char *mat) {
  double sig[6], D[36], Dfd[36], De[36], err;
  dt_mat_state st;
  int res = dt_material_update(m, ss, eps, old, &st, sig, D);
  MT_CHECK(res == want, "%s / %s: status %d, expected %d", mat, what, res, want);
  if (res != want) return;
  if (mt_fd_tangent(m, ss, eps, old, res, Dfd)) {
    MT_CHECK(0, "%s / %s: test point within FD step of a kink (bad test design)", mat, what);
    return;
  }
  err = mt_rel_err(D, Dfd);
  MT_CHECK(err <= FD_TOL, "%s / %s: tangent vs FD relative error %.3e", mat, what, err);
  if (want == DT_MAT_ELASTIC) {
    dt_elastic_matrix(m, ss, De);
    err = mt_rel_err(D, De);
    MT_CHECK(err <= 1e-15, "%s / %s: elastic tangent differs from elastic matrix (%.3e)", mat, what,
             err);
  }
  { /* the compact form the CUDA backend stores reproduces D (plane stress: the xx, yy, xy
       rows and columns, the only ones 2D elements use) */
    double Df[36], sig2[6];
    dt_tangent_form tf;
    dt_mat_state st2;
    int i, j, res2 = dt_material_update_form(m, ss, eps, old, &st2, sig2, NULL, &tf);
    MT_CHECK(res2 == res, "%s / %s: form update status %d differs from %d", mat, what, res2, res);
    if (res == DT_MAT_PLASTIC) { /* n re-formed from the updated state (the CUDA tangent kernel) */
      double n2[6];
      dt_j2_flow_direction(sig2, st2.beta, n2);
      for (i = 0; i < 6; i++)
        MT_CHECK(fabs(n2[i] - tf.n[i]) <= 1e-14,
                 "%s / %s: re-formed n[%d] %.17g differs from %.17g", mat, what, i, n2[i], tf.n[i]);
    }
    dt_tangent_form_expand(&tf, Df);
    for (i = 0; i < 6; i++)
      for (j = 0; j < 6; j++) {
        int used = ss != DT_STATE_PLANE_STRESS || ((i < 2 || i == 3) && (j < 2 || j == 3));
        if (used)
          MT_CHECK(fabs(Df[i * 6 + j] - D[i * 6 + j]) <= 1e-13 * mt_fro(D, 36),
                   "%s / %s: tangent form entry (%d,%d) %.17g differs from D %.17g", mat, what, i,
                   j, Df[i * 6 + j], D[i * 6 + j]);
      }
  }
  {
    int i, j;
    for (i = 0; i < 6; i++)
      for (j = 0; j < i; j++)
        MT_CHECK(fabs(D[i * 6 + j] - D[j * 6 + i]) <= 1e-12 * mt_fro(D, 36),
                 "%s / %s: D not symmetric at (%d,%d)", mat, what, i, j);
  }
}

static void check_material(int k, int ss) {
  dt_material_params m = mt_material(k);
  int plastic = m.plastic ? DT_MAT_PLASTIC : DT_MAT_ELASTIC;
  dt_mat_state virgin, pre, tmp;
  double eps[6], eps1[6], sig[6], zero[6] = {0, 0, 0, 0, 0, 0};
  int res;
  const char *name = mt_name(k);

  mt_zero_state(&virgin);
  axpy(0.4e-3, DIR1, zero, eps); /* well inside the elastic range (q ~ 130 MPa) */
  check_point(&m, ss, eps, &virgin, DT_MAT_ELASTIC, "elastic state", name);

  axpy(6e-3, DIR1, zero, eps); /* q_trial ~ 2000 MPa: plastic from virgin */
  check_point(&m, ss, eps, &virgin, plastic, "plastic from virgin", name);

  /* Pre-hardened state: commit a plastic step along DIR2, then load further along DIR1. */
  axpy(4e-3, DIR2, zero, eps1);
  res = dt_material_update(&m, ss, eps1, &virgin, &pre, sig, NULL);
  MT_CHECK(res == plastic, "%s: building the pre-hardened state gave status %d", name, res);
  if (m.plastic) {
    MT_CHECK(pre.p > 0.0, "%s: pre-hardened state has p = %g", name, pre.p);
    if (m.H_kin > 0.0)
      MT_CHECK(mt_fro(pre.beta, 6) > 0.0, "%s: no back stress after plastic step", name);
  }
  axpy(3e-3, DIR1, eps1, eps);
  check_point(&m, ss, eps, &pre, plastic, "plastic from pre-hardened", name);

  /* Elastic unloading from the plastic state: a small step back along the last flow. */
  res = dt_material_update(&m, ss, eps, &pre, &tmp, sig, NULL);
  axpy(-0.5e-3, DIR1, eps, eps1);
  axpy(-0.2e-3, DIR2, eps1, eps1);
  check_point(&m, ss, eps1, &tmp, DT_MAT_ELASTIC, "elastic unloading", name);
}

static void check_plane_stress(void) {
  dt_material_params m = mt_material(MT_ELASTIC);
  dt_mat_state st;
  double eps[6] = {1e-3, -0.4e-3, 0.7e-3, 0.5e-3, 0.3e-3, -0.2e-3}, sig[6], D[36];
  double nu = m.nu, Ebar = m.E / (1 - nu * nu), G = m.E / (2 * (1 + nu));
  int res, k;
  mt_zero_state(&st);
  for (k = 0; k < 2; k++) { /* m->plastic is ignored in plane stress */
    m.plastic = k;
    check_point(&m, DT_STATE_PLANE_STRESS, eps, &st, DT_MAT_ELASTIC, "plane stress",
                k ? "plastic flag" : "elastic");
  }
  res = dt_material_update(&m, DT_STATE_PLANE_STRESS, eps, &st, &st, sig, D);
  MT_CHECK(res == DT_MAT_ELASTIC, "plane stress status %d", res);
  /* sig_xx = Ebar (eps_xx + nu eps_yy), sig_yy = Ebar (nu eps_xx + eps_yy), tau = G gamma */
  MT_CHECK(fabs(sig[0] - Ebar * (eps[0] + nu * eps[1])) <= 1e-12 * Ebar * 1e-3,
           "plane stress sig_xx %g", sig[0]);
  MT_CHECK(fabs(sig[1] - Ebar * (nu * eps[0] + eps[1])) <= 1e-12 * Ebar * 1e-3,
           "plane stress sig_yy %g", sig[1]);
  MT_CHECK(fabs(sig[3] - G * eps[3]) <= 1e-12 * G * 1e-3, "plane stress tau_xy %g", sig[3]);
  MT_CHECK(sig[2] == 0.0 && sig[4] == 0.0 && sig[5] == 0.0,
           "plane stress out-of-plane stress nonzero");
  for (k = 0; k < 6; k++)
    MT_CHECK(D[2 * 6 + k] == 0.0 && D[k * 6 + 2] == 0.0 && D[4 * 6 + k] == 0.0 &&
                 D[5 * 6 + k] == 0.0,
             "plane stress D has zz/xz/yz entries (k=%d)", k);
}

/* dt_elastic_stress (the update's written-out trial stress) against D_e eps with D_e from
 * dt_elastic_matrix, for each stress state: the two must agree to rounding. */
static void check_elastic_stress(void) {
  static const int states[3] = {DT_STATE_3D, DT_STATE_PLANE_STRAIN, DT_STATE_PLANE_STRESS};
  dt_material_params m = mt_material(MT_ELASTIC);
  double eps[6], De[36], want[6], got[6], scale = 0.0;
  int s, i;
  axpy(1e-3, DIR1, (const double[6]){0, 0, 0, 0, 0, 0}, eps);
  for (s = 0; s < 3; s++) {
    dt_elastic_matrix(&m, states[s], De);
    dt_j2_matvec(De, eps, want);
    dt_elastic_stress(&m, states[s], eps, got);
    for (i = 0; i < 6; i++) scale = fmax(scale, fabs(want[i]));
    for (i = 0; i < 6; i++)
      MT_CHECK(fabs(got[i] - want[i]) <= 1e-14 * scale,
               "elastic stress, state %d, component %d: %.17g, D_e eps %.17g", states[s], i, got[i],
               want[i]);
  }
}

/* Plane strain is the 3D law: identical results for the same strain vector. */
static void check_plane_strain(void) {
  dt_material_params m = mt_material(MT_VOCE_KIN);
  dt_mat_state s0, a, b;
  double eps[6] = {5e-3, -1e-3, 0.0, 2e-3, 0.0, 0.0}, sa[6], sb[6], Da[36], Db[36];
  int ra, rb;
  mt_zero_state(&s0);
  ra = dt_material_update(&m, DT_STATE_3D, eps, &s0, &a, sa, Da);
  rb = dt_material_update(&m, DT_STATE_PLANE_STRAIN, eps, &s0, &b, sb, Db);
  MT_CHECK(ra == DT_MAT_PLASTIC && rb == ra, "plane strain status %d vs 3D %d", rb, ra);
  MT_CHECK(memcmp(sa, sb, sizeof sa) == 0 && memcmp(Da, Db, sizeof Da) == 0 &&
               memcmp(&a, &b, sizeof a) == 0,
           "plane strain differs from the 3D law");
}

int main(void) {
  int k;
  for (k = 0; k < MT_COUNT; k++) {
    check_material(k, DT_STATE_3D);
    check_material(k, DT_STATE_PLANE_STRAIN);
  }
  check_plane_stress();
  check_plane_strain();
  check_elastic_stress();
  return mt_finish("test_j2_tangent");
}
