/* Analytical uniaxial check, Kiran unit cube material ([Kiran2023, Sec. 3.2.1.1]): E = 200e3 MPa, nu = 0.3,
 * sigma_y = 450, linear isotropic H = 66e3. Uniaxial stress sigma_zz = 200, 400, 600 in three
 * committed increments (lateral strains solved so sigma_xx = sigma_yy = 0). Expected:
 * eps_z = sigma/E (+ (sigma - 450)/H once plastic), p = (sigma - 450)/H,
 * eps_x = eps_y = -nu sigma/E - p/2. Also checks that the local Newton driver converges in few
 * iterations (the consistent tangent gives quadratic convergence). */
#include "mat_test_util.h"

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

int main(void) {
  dt_material_params m = mt_base();
  dt_mat_state old, st;
  double eps[6] = {0, 0, 0, 0, 0, 0}, sig[6];
  static const double load[3] = {200.0, 400.0, 600.0};
  int step, res, iters = 0;

  m.iso = DT_ISO_LINEAR;
  m.H = 66e3;
  mt_zero_state(&old);
  for (step = 0; step < 3; step++) {
    double s = load[step], p = s > 450.0 ? (s - 450.0) / m.H : 0.0;
    double ez = s / m.E + p, ex = -m.nu * s / m.E - 0.5 * p;
    res = mt_uniaxial(&m, &old, 1, s, eps, &st, sig, &iters);
    MT_CHECK(res == (step < 2 ? DT_MAT_ELASTIC : DT_MAT_PLASTIC), "step %d: status %d", step + 1,
             res);
    MT_CHECK(iters <= (step < 2 ? 1 : 3), "step %d: %d Newton iterations (tangent not consistent?)",
             step + 1, iters);
    MT_CHECK(rel(eps[2], ez) <= 1e-10, "step %d: eps_z = %.15e, expected %.15e", step + 1, eps[2],
             ez);
    MT_CHECK(rel(eps[0], ex) <= 1e-10 && rel(eps[1], ex) <= 1e-10,
             "step %d: eps_x = %.15e eps_y = %.15e, expected %.15e", step + 1, eps[0], eps[1], ex);
    if (p > 0.0) {
      MT_CHECK(rel(st.p, p) <= 1e-10, "step %d: p = %.15e, expected %.15e", step + 1, st.p, p);
      MT_CHECK(rel(st.eps_p[2], p) <= 1e-10, "step %d: eps_p_zz = %.15e, expected %.15e", step + 1,
               st.eps_p[2], p);
      MT_CHECK(rel(st.eps_p[0], -0.5 * p) <= 1e-10, "step %d: eps_p_xx = %.15e", step + 1,
               st.eps_p[0]);
    } else {
      MT_CHECK(st.p == 0.0, "step %d: p = %g while elastic", step + 1, st.p);
    }
    old = st; /* commit */
  }
  /* The tabulated values of [Kiran2023, Sec. 3.2.1.1] for the last step. */
  MT_CHECK(rel(eps[2], 5.272727272727273e-3) <= 1e-10, "final eps_z %.15e", eps[2]);
  MT_CHECK(rel(old.p, 2.272727272727273e-3) <= 1e-10, "final p %.15e", old.p);
  MT_CHECK(rel(eps[0], -2.036363636363636e-3) <= 1e-10, "final eps_x %.15e", eps[0]);
  return mt_finish("test_j2_uniaxial");
}
