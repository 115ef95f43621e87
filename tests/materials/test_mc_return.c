/* Mohr-Coulomb return mapping (solver/material/mohr_coulomb.h) at one material point.
 *
 * References, each independent of the code under test:
 *  - principal values from the closed-form trigonometric solution of the characteristic cubic
 *    (not the Jacobi rotations the update uses), to check yield consistency |Phi(sig)| <= 1e-7
 *    (c + |sig|) (the trigonometric solution itself keeps only about half the digits of two
 *    nearly equal roots, which every edge return has);
 *  - the main-plane closed form printed in [VilasBoas2020, Sec. 2.8] (sigma_1 = sigma_1tr - [2G(1 +
 *    sin psi / 3) + 2K sin psi] dgamma, ...) to 1e-12 relative;
 *  - the flow rule: for main-plane and edge returns the principal plastic strain increments
 *    satisfy P (1 - sin psi) = Q (1 + sin psi), P and Q the sums of the positive and negative
 *    ones (both planes' flow vectors have that ratio), to 1e-9;
 *  - for associative flow, the closest-point property of the return in the energy norm:
 *    (sig_tr - sig) : C^-1 : (sig* - sig) <= 0 for admissible stresses sig* (sampled);
 *  - the apex c cot(phi) for hydrostatic tension; Tresca (phi = 0): sigma_1 - sigma_3 = 2c;
 *  - isotropy: the update of a rotated strain is the rotated stress, to 1e-10;
 *  - the consistent tangent (associative flow), less its regularisation DT_MC_TANGENT_REG * D_e,
 *    against central finite differences of the stress, to 1e-6 relative, wherever two step sizes
 *    agree to 1e-7 (no kink of the return within the step); symmetric to 1e-12; at the apex
 *    DT_MC_TANGENT_REG * D_e alone (the derivative is zero); D_e with "tangent": "elastic";
 *  - NaN input -> DT_MAT_NO_CONVERGENCE with zero stress.
 * Material: [VilasBoas2020]'s wellbore rock (E 2000, nu 0.2, c 5, phi 20) and variants. */
#include "mat_test_util.h"

static int fd_checked = 0; /* plastic returns whose consistent tangent met finite differences */

/* Central differences of the stress with step h (relative to the largest strain). */
static void fd_tangent(const dt_material_params *m, const double eps[6], double rel_h,
                       double Dfd[36]) {
  double amax = 1e-4, e[6], sp[6], sm[6], h;
  dt_mat_state old, tmp;
  int i, j;
  mt_zero_state(&old);
  for (i = 0; i < 6; i++) amax = fabs(eps[i]) > amax ? fabs(eps[i]) : amax;
  h = rel_h * amax;
  for (j = 0; j < 6; j++) {
    memcpy(e, eps, sizeof e);
    e[j] = eps[j] + h;
    dt_material_update(m, DT_STATE_3D, e, &old, &tmp, sp, NULL);
    e[j] = eps[j] - h;
    dt_material_update(m, DT_STATE_3D, e, &old, &tmp, sm, NULL);
    for (i = 0; i < 6; i++) Dfd[i * 6 + j] = (sp[i] - sm[i]) / (2.0 * h);
  }
}

static dt_material_params mc_material(double c, double phi, double psi) {
  dt_material_params m;
  memset(&m, 0, sizeof m);
  m.E = 2000.0;
  m.nu = 0.2;
  m.plastic = DT_PLASTIC_MOHR_COULOMB;
  m.mc_cohesion = c;
  m.mc_friction_deg = phi;
  m.mc_dilation_deg = psi;
  m.mc_elastic_tangent = psi != phi; /* the job format's default */
  dt_mc_derive(&m);
  return m;
}

/* Principal values, descending, from the trigonometric solution of the cubic. */
static void principal_cubic(const double s[6], double l[3]) {
  double p1 = s[3] * s[3] + s[4] * s[4] + s[5] * s[5], q = (s[0] + s[1] + s[2]) / 3.0;
  double p2 =
      (s[0] - q) * (s[0] - q) + (s[1] - q) * (s[1] - q) + (s[2] - q) * (s[2] - q) + 2.0 * p1;
  double p = sqrt(p2 / 6.0), B[6], r, phi, detB;
  int i;
  if (p == 0.0) {
    l[0] = l[1] = l[2] = q;
    return;
  }
  for (i = 0; i < 6; i++) B[i] = (s[i] - (i < 3 ? q : 0.0)) / p;
  /* det of [[B0,B3,B4],[B3,B1,B5],[B4,B5,B2]] */
  detB = B[0] * (B[1] * B[2] - B[5] * B[5]) - B[3] * (B[3] * B[2] - B[5] * B[4]) +
         B[4] * (B[3] * B[5] - B[1] * B[4]);
  r = detB / 2.0;
  r = r < -1.0 ? -1.0 : (r > 1.0 ? 1.0 : r);
  phi = acos(r) / 3.0;
  l[0] = q + 2.0 * p * cos(phi);
  l[2] = q + 2.0 * p * cos(phi + 2.0 * 3.14159265358979323846 / 3.0);
  l[1] = 3.0 * q - l[0] - l[2];
}

static double yield_fn(const dt_material_params *m, const double s[6]) {
  double l[3];
  principal_cubic(s, l);
  return (l[0] - l[2]) + (l[0] + l[2]) * m->mc_sin_phi - 2.0 * m->mc_cohesion * m->mc_cos_phi;
}

static unsigned long long rng = 88172645463325252ULL;
static double urand(void) { /* xorshift64, uniform in [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

/* sig : C^-1 : tau for stress-like Voigt vectors (tensor shears). */
static double energy_dot(const dt_material_params *m, const double a[6], const double b[6]) {
  double G = m->E / (2.0 * (1.0 + m->nu)), ta = a[0] + a[1] + a[2], tb = b[0] + b[1] + b[2],
         s = 0.0;
  int i;
  for (i = 0; i < 3; i++) s += a[i] * b[i] + 2.0 * a[i + 3] * b[i + 3];
  return (s - m->nu / (1.0 + m->nu) * ta * tb) / (2.0 * G);
}

/* A random rotation (from a random unit quaternion) as a 3x3 matrix. */
static void random_rotation(double R[9]) {
  double q[4], n = 0.0;
  int i;
  for (i = 0; i < 4; i++) {
    q[i] = urand();
    n += q[i] * q[i];
  }
  n = sqrt(n);
  for (i = 0; i < 4; i++) q[i] /= n;
  R[0] = 1 - 2 * (q[2] * q[2] + q[3] * q[3]);
  R[1] = 2 * (q[1] * q[2] - q[0] * q[3]);
  R[2] = 2 * (q[1] * q[3] + q[0] * q[2]);
  R[3] = 2 * (q[1] * q[2] + q[0] * q[3]);
  R[4] = 1 - 2 * (q[1] * q[1] + q[3] * q[3]);
  R[5] = 2 * (q[2] * q[3] - q[0] * q[1]);
  R[6] = 2 * (q[1] * q[3] - q[0] * q[2]);
  R[7] = 2 * (q[2] * q[3] + q[0] * q[1]);
  R[8] = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
}

/* R T R^T of a Voigt tensor; shear_factor 1 for stresses, 2 for engineering strains. */
static void rotate_voigt(const double R[9], const double v[6], double shear_factor, double out[6]) {
  double T[9], U[9];
  int i, j, k, l;
  T[0] = v[0];
  T[4] = v[1];
  T[8] = v[2];
  T[1] = T[3] = v[3] / shear_factor;
  T[2] = T[6] = v[4] / shear_factor;
  T[5] = T[7] = v[5] / shear_factor;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      double s = 0.0;
      for (k = 0; k < 3; k++)
        for (l = 0; l < 3; l++) s += R[i * 3 + k] * T[k * 3 + l] * R[j * 3 + l];
      U[i * 3 + j] = s;
    }
  out[0] = U[0];
  out[1] = U[4];
  out[2] = U[8];
  out[3] = U[1] * shear_factor;
  out[4] = U[2] * shear_factor;
  out[5] = U[5] * shear_factor;
}

static void random_strain(double scale, double e[6]) {
  int i;
  for (i = 0; i < 6; i++) e[i] = scale * urand();
}

/* Checks on one plastic return from the virgin state; returns the status. */
static int check_return(const dt_material_params *m, const double eps[6], const char *name) {
  dt_mat_state old, st;
  double sig[6], sig_tr[6], D[36], De[36], l[3], dep_l[3], dep_t[6], P = 0.0, Q = 0.0, scale;
  int res, i;
  mt_zero_state(&old);
  res = dt_material_update(m, DT_STATE_3D, eps, &old, &st, sig, D);
  dt_elastic_stress(m, DT_STATE_3D, eps, sig_tr);
  dt_elastic_matrix(m, DT_STATE_3D, De);
  principal_cubic(sig, l);
  scale = m->mc_cohesion + fabs(l[0]) + fabs(l[2]);
  if (res != DT_MAT_PLASTIC || m->mc_elastic_tangent) /* elastic point, or the elastic tangent */
    MT_CHECK(mt_rel_err(D, De) == 0.0, "%s: tangent is not the elastic stiffness", name);
  else if (l[0] - l[2] <=
           1e-6 * scale) { /* apex: the derivative is zero, the regularisation stays */
    for (i = 0; i < 36; i++)
      MT_CHECK(D[i] == DT_MC_TANGENT_REG * De[i], "%s: apex tangent [%d] %g", name, i, D[i]);
  } else {
    double F1[36], F2[36], asym = 0.0;
    fd_tangent(m, eps, 1e-6, F1);
    fd_tangent(m, eps, 2.5e-7, F2);
    for (i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) asym += fabs(D[i * 6 + j] - D[j * 6 + i]);
    MT_CHECK(asym <= 1e-12 * mt_fro(D, 36), "%s: consistent tangent not symmetric (%g)", name,
             asym);
    if (mt_rel_err(F2, F1) <= 1e-7) { /* the tangent less its regularisation is the derivative */
      double Dc[36];
      for (i = 0; i < 36; i++) Dc[i] = D[i] - DT_MC_TANGENT_REG * De[i];
      fd_checked++;
      MT_CHECK(mt_rel_err(Dc, F2) <= 1e-6, "%s: consistent tangent vs finite differences: %g", name,
               mt_rel_err(Dc, F2));
    }
  }
  if (res == DT_MAT_ELASTIC) {
    for (i = 0; i < 6; i++) MT_CHECK(sig[i] == sig_tr[i], "%s: elastic stress changed", name);
    MT_CHECK(yield_fn(m, sig) <= 1e-9 * scale, "%s: elastic state outside the surface", name);
    return res;
  }
  MT_CHECK(res == DT_MAT_PLASTIC, "%s: status %d", name, res);
  MT_CHECK(fabs(yield_fn(m, sig)) <= 1e-7 * scale, "%s: Phi(sig) = %g", name, yield_fn(m, sig));
  /* flow rule (skip the apex, where all three principal stresses are equal) */
  for (i = 0; i < 6; i++) dep_t[i] = st.eps_p[i] * (i < 3 ? 1.0 : 0.5); /* tensor components */
  principal_cubic(dep_t, dep_l);
  for (i = 0; i < 3; i++) {
    P += dep_l[i] > 0 ? dep_l[i] : 0.0;
    Q += dep_l[i] < 0 ? -dep_l[i] : 0.0;
  }
  if (l[0] - l[2] > 1e-6 * scale)
    MT_CHECK(fabs(P * (1.0 - m->mc_sin_psi) - Q * (1.0 + m->mc_sin_psi)) <= 1e-9 * (P + Q),
             "%s: flow rule: P %g Q %g", name, P, Q);
  MT_CHECK(fabs(st.p - sqrt(2.0 / 3.0 *
                            (dep_l[0] * dep_l[0] + dep_l[1] * dep_l[1] + dep_l[2] * dep_l[2]))) <=
               1e-12 * (st.p + 1e-300),
           "%s: PEEQ %g", name, st.p);
  /* closest point (associative only): (sig_tr - sig) : C^-1 : (sig* - sig) <= 0 */
  if (m->mc_sin_psi == m->mc_sin_phi) {
    int k;
    double d[6];
    for (i = 0; i < 6; i++) d[i] = sig_tr[i] - sig[i];
    for (k = 0; k < 200; k++) {
      double s_star[6], e_star[6], g, tol;
      dt_mat_state tmp;
      random_strain(k % 2 ? 0.02 : 2e-3, e_star); /* its return is an admissible stress */
      dt_material_update(m, DT_STATE_3D, e_star, &old, &tmp, s_star, NULL);
      for (i = 0; i < 6; i++) s_star[i] -= sig[i];
      g = energy_dot(m, d, s_star);
      tol = 1e-9 * sqrt(energy_dot(m, d, d) * energy_dot(m, s_star, s_star)) + 1e-13;
      MT_CHECK(g <= tol, "%s: not the closest point: %g", name, g);
    }
  }
  return res;
}

static void check_main_plane_closed_form(void) {
  dt_material_params m = mc_material(5.0, 20.0, 12.0);
  double G = dt_shear_modulus(&m), K = dt_bulk_modulus(&m), sphi = m.mc_sin_phi,
         spsi = m.mc_sin_psi;
  /* trial principal stresses along the axes, well apart: main plane */
  double eps[6] = {0.012, 0.002, -0.010, 0, 0, 0}, sig_tr[6], sig[6], a, dg, want[3];
  dt_mat_state old, st;
  int res;
  mt_zero_state(&old);
  dt_elastic_stress(&m, DT_STATE_3D, eps, sig_tr);
  res = dt_material_update(&m, DT_STATE_3D, eps, &old, &st, sig, NULL);
  a = 4.0 * G * (1.0 + sphi * spsi / 3.0) + 4.0 * K * sphi * spsi;
  dg = ((sig_tr[0] - sig_tr[2]) + (sig_tr[0] + sig_tr[2]) * sphi -
        2.0 * m.mc_cohesion * m.mc_cos_phi) /
       a;
  want[0] = sig_tr[0] - (2.0 * G * (1.0 + spsi / 3.0) + 2.0 * K * spsi) * dg;
  want[1] = sig_tr[1] + (4.0 * G / 3.0 - 2.0 * K) * spsi * dg;
  want[2] = sig_tr[2] + (2.0 * G * (1.0 - spsi / 3.0) - 2.0 * K * spsi) * dg;
  MT_CHECK(res == DT_MAT_PLASTIC && dg > 0, "main plane: status %d dgamma %g", res, dg);
  for (int i = 0; i < 3; i++)
    MT_CHECK(fabs(sig[i] - want[i]) <= 1e-12 * fabs(sig_tr[0]),
             "main plane: sigma_%d %.15g want %.15g", i + 1, sig[i], want[i]);
  MT_CHECK(fabs(sig[3]) + fabs(sig[4]) + fabs(sig[5]) <= 1e-12 * fabs(sig_tr[0]),
           "main plane: shear appeared");
}

static void check_apex_and_tresca(void) {
  dt_material_params m = mc_material(5.0, 20.0, 20.0), t = mc_material(5.0, 0.0, 0.0);
  double eps[6] = {0.02, 0.02, 0.02, 0, 0, 0}, sig[6],
         apex = 5.0 / tan(20.0 * 3.14159265358979323846 / 180.0), l[3];
  dt_mat_state old, st;
  mt_zero_state(&old);
  MT_CHECK(dt_material_update(&m, DT_STATE_3D, eps, &old, &st, sig, NULL) == DT_MAT_PLASTIC,
           "apex: status");
  for (int i = 0; i < 3; i++)
    MT_CHECK(fabs(sig[i] - apex) <= 1e-12 * apex, "apex: sigma_%d %.15g", i, sig[i]);
  for (int k = 0; k < 50; k++) {
    double e[6];
    random_strain(0.02, e);
    int res = dt_material_update(&t, DT_STATE_3D, e, &old, &st, sig, NULL);
    principal_cubic(sig, l);
    MT_CHECK(res != DT_MAT_NO_CONVERGENCE, "tresca: no return");
    if (res == DT_MAT_PLASTIC)
      MT_CHECK(fabs(l[0] - l[2] - 10.0) <= 1e-7 * 10.0, "tresca: s1 - s3 = %.15g", l[0] - l[2]);
  }
}

static void check_isotropy(const dt_material_params *m) {
  for (int k = 0; k < 50; k++) {
    double e[6], er[6], s[6], sr[6], s_rot[6], R[9], n = 0.0, d = 0.0;
    dt_mat_state old, st;
    mt_zero_state(&old);
    random_strain(0.02, e);
    random_rotation(R);
    rotate_voigt(R, e, 2.0, er);
    dt_material_update(m, DT_STATE_3D, e, &old, &st, s, NULL);
    dt_material_update(m, DT_STATE_3D, er, &old, &st, sr, NULL);
    rotate_voigt(R, s, 1.0, s_rot);
    for (int i = 0; i < 6; i++) {
      n += s_rot[i] * s_rot[i];
      d += (s_rot[i] - sr[i]) * (s_rot[i] - sr[i]);
    }
    MT_CHECK(sqrt(d) <= 1e-10 * sqrt(n) + 1e-12, "isotropy: |R sig R^T - sig(R eps R^T)| = %g",
             sqrt(d));
  }
}

int main(void) {
  static const double angles[][2] = {{20.0, 20.0}, {30.0, 10.0}, {35.0, 0.0}, {10.0, 10.0}};
  int counts[4] = {0, 0, 0, 0};
  double eps[6] = {NAN, 0, 0, 0, 0, 0}, sig[6];
  dt_mat_state old, st;
  for (unsigned a = 0; a < sizeof angles / sizeof angles[0]; a++) {
    dt_material_params m = mc_material(5.0, angles[a][0], angles[a][1]);
    char name[64];
    for (int k = 0; k < 400; k++) {
      double e[6];
      random_strain(k < 50 ? 1e-3 : 0.02, e);
      if (k % 4 == 1) e[3] = e[4] = e[5] = 0.0; /* principal axes along x, y, z */
      if (k % 4 == 2) e[1] = e[2];              /* two equal trial principal values */
      snprintf(name, sizeof name, "phi %g psi %g case %d", angles[a][0], angles[a][1], k);
      counts[check_return(&m, e, name)]++;
    }
    check_isotropy(&m);
  }
  MT_CHECK(counts[DT_MAT_ELASTIC] > 50 && counts[DT_MAT_PLASTIC] > 500,
           "cases: %d elastic, %d plastic", counts[DT_MAT_ELASTIC], counts[DT_MAT_PLASTIC]);
  MT_CHECK(fd_checked > 300, "only %d consistent tangents compared with finite differences",
           fd_checked);
  check_main_plane_closed_form();
  check_apex_and_tresca();
  {
    dt_material_params m = mc_material(5.0, 20.0, 20.0);
    mt_zero_state(&old);
    MT_CHECK(dt_material_update(&m, DT_STATE_3D, eps, &old, &st, sig, NULL) ==
                 DT_MAT_NO_CONVERGENCE,
             "NaN strain");
    for (int i = 0; i < 6; i++) MT_CHECK(sig[i] == 0.0, "NaN strain: stress not zeroed");
  }
  return mt_finish("test_mc_return");
}
