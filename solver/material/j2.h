/* J2 (von Mises) material point update, written once for the CPU backend (gcc) and the CUDA
 * kernels (nvcc); see STYLE.md §3 and [Kiran2023, Secs. 2.2, 2.6, 2.7].
 *
 * Small strain, additive split eps = eps_e + eps_p, isotropic elasticity, associated flow,
 * isotropic hardening sigma_y(p) (perfect, linear, Voce, piecewise-linear table) and linear
 * (Prager) kinematic hardening with back stress beta. The update is a backward-Euler radial
 * return from the COMMITTED state for the TOTAL strain at the end of the increment, so the
 * global Newton may call it any number of times per increment without drifting.
 *
 * Voigt convention everywhere: (xx, yy, zz, xy, xz, yz). Strain-like arrays (eps, eps_p) hold
 * ENGINEERING shears (gamma = 2 eps_ij); stress-like arrays (sig, beta) hold tensor components.
 * Hence a double contraction a:b of two stress-like arrays is sum a_i b_i with the shear terms
 * doubled, while stress:strain is the plain sum sigma_i eps_i. D maps engineering strain to
 * stress, is row-major 6x6 and symmetric.
 *
 * To add a hardening law: extend dt_iso_hardening in material.h and dt_yield_stress below
 * (value and slope); the local Newton needs nothing else as long as sigma_y is continuous.
 *
 * Only DT_HD static inline functions in the C/C++ common subset (no VLAs, compound literals,
 * designated initializers, file-scope arrays, allocation, I/O or errno). */
#ifndef DT_J2_H
#define DT_J2_H

#include <math.h>

#include "material.h"

#define DT_J2_TOL 1.0e-12 /* local Newton: |residual| <= tol * q_trial */
#define DT_J2_MAX_ITER 50 /* local Newton iterations before DT_MAT_NO_CONVERGENCE */

/* True for a finite double. Written with comparisons only (NaN compares false) so it needs
 * neither isfinite (a macro in C, a function in C++) nor <float.h>. */
DT_HD static inline int dt_j2_finite(double x) { return fabs(x) <= 1.0e300; }

/* sigma_y(p) and, in *slope (may be NULL), d sigma_y / dp.
 * TABLE uses table_p/table_s (sigma_y0 is ignored): linear between points, the right-hand
 * segment's slope at a breakpoint (p only grows), table_s[0] below table_p[0] and the last
 * value (slope 0) beyond the last point. Unknown iso values behave as PERFECT. */
DT_HD static inline double dt_yield_stress(const dt_material_params *m, double p, double *slope) {
  double s = m->sigma_y0, ds = 0.0;
  int i = 0, n = m->table_n;
  if (m->iso == DT_ISO_LINEAR) {
    s = m->sigma_y0 + m->H * p; /* sy0 + H p */
    ds = m->H;
  } else if (m->iso == DT_ISO_VOCE) {
    double e = exp(-m->voce_b * p);
    s = m->sigma_y0 + m->H * p + m->voce_Q * (1.0 - e); /* sy0 + H p + Q (1 - e^{-b p}) */
    ds = m->H + m->voce_Q * m->voce_b * e;
  } else if (m->iso == DT_ISO_TABLE) {
    if (n > DT_TABLE_MAX) n = DT_TABLE_MAX;
    if (n < 1) n = 1;
    s = m->table_s[0];
    if (p >= m->table_p[n - 1]) {
      s = m->table_s[n - 1];
    } else if (p >= m->table_p[0]) {
      while (i + 2 < n && p >= m->table_p[i + 1]) i++; /* table_p[i] <= p < table_p[i+1] */
      ds = (m->table_s[i + 1] - m->table_s[i]) / (m->table_p[i + 1] - m->table_p[i]);
      s = m->table_s[i] + ds * (p - m->table_p[i]);
    }
  }
  if (slope) *slope = ds;
  return s;
}

/* Shear and bulk moduli: G = E / (2 (1 + nu)), K = E / (3 (1 - 2 nu)). */
DT_HD static inline double dt_shear_modulus(const dt_material_params *m) {
  return m->E / (2.0 * (1.0 + m->nu));
}
DT_HD static inline double dt_bulk_modulus(const dt_material_params *m) {
  return m->E / (3.0 * (1.0 - 2.0 * m->nu));
}

/* Split a stress-like Voigt vector: dev = s - tr(s)/3 I; returns the mean tr(s)/3. */
DT_HD static inline double dt_voigt_dev(const double s[6], double dev[6]) {
  double mean = (s[0] + s[1] + s[2]) / 3.0;
  int i;
  for (i = 0; i < 6; i++) dev[i] = s[i] - (i < 3 ? mean : 0.0);
  return mean;
}

/* a:b for stress-like Voigt vectors (tensor shears, counted twice). */
DT_HD static inline double dt_voigt_ddot(const double a[6], const double b[6]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + 2.0 * (a[3] * b[3] + a[4] * b[4] + a[5] * b[5]);
}

/* von Mises equivalent stress q = sqrt(3/2 s':s') of a stress-like Voigt vector. */
DT_HD static inline double dt_mises_voigt(const double s[6]) {
  double d[6];
  dt_voigt_dev(s, d);
  return sqrt(1.5 * dt_voigt_ddot(d, d));
}

/* Isotropic elastic stiffness D[36] (row-major, engineering shears: shear diagonal = G).
 * 3D and plane strain: lambda 1x1 + 2G I with I = diag(1,1,1,1/2,1/2,1/2) in engineering Voigt.
 * Plane stress: Ebar = E/(1-nu^2) in [xx,yy] block [[1, nu], [nu, 1]] Ebar, xy diagonal G, and
 * zero zz/xz/yz rows and columns (sigma_zz = 0, out-of-plane shears absent in 2D). */
DT_HD static inline void dt_elastic_matrix(const dt_material_params *m, int stress_state,
                                           double D[36]) {
  double G = dt_shear_modulus(m), lam = dt_bulk_modulus(m) - 2.0 * G / 3.0, Ebar;
  int i, j;
  for (i = 0; i < 36; i++) D[i] = 0.0;
  if (stress_state == DT_STATE_PLANE_STRESS) {
    Ebar = m->E / (1.0 - m->nu * m->nu);
    D[0] = Ebar;
    D[1] = m->nu * Ebar;
    D[6] = m->nu * Ebar;
    D[7] = Ebar;
    D[3 * 6 + 3] = G;
    return;
  }
  for (i = 0; i < 3; i++) {
    for (j = 0; j < 3; j++) D[i * 6 + j] = lam + (i == j ? 2.0 * G : 0.0);
    D[(i + 3) * 6 + (i + 3)] = G;
  }
}

/* sig = D_e eps for the isotropic stiffness of dt_elastic_matrix, written out: the same
 * numbers as dt_j2_matvec with that D, without building the 36 entries (on the GPU the update
 * then keeps no 6 x 6 array live; only the CPU asks for D itself). */
DT_HD static inline void dt_elastic_stress(const dt_material_params *m, int stress_state,
                                           const double e[6], double sig[6]) {
  double G = dt_shear_modulus(m), lam = dt_bulk_modulus(m) - 2.0 * G / 3.0;
  if (stress_state == DT_STATE_PLANE_STRESS) {
    double Ebar = m->E / (1.0 - m->nu * m->nu);
    sig[0] = Ebar * e[0] + m->nu * Ebar * e[1];
    sig[1] = m->nu * Ebar * e[0] + Ebar * e[1];
    sig[2] = 0.0;
    sig[3] = G * e[3];
    sig[4] = 0.0;
    sig[5] = 0.0;
    return;
  }
  double tr = lam * (e[0] + e[1] + e[2]);
  for (int i = 0; i < 3; i++) {
    sig[i] = tr + 2.0 * G * e[i];
    sig[i + 3] = G * e[i + 3]; /* engineering shear strain: sigma_ij = G gamma_ij */
  }
}

/* sig = D eps for a 6x6 row-major D. */
DT_HD static inline void dt_j2_matvec(const double D[36], const double x[6], double y[6]) {
  int i, j;
  for (i = 0; i < 6; i++) {
    y[i] = 0.0;
    for (j = 0; j < 6; j++) y[i] += D[i * 6 + j] * x[j];
  }
}

/* Solve g(dp) = q_tr - (3G + H_kin) dp - sigma_y(p_n + dp) = 0 for dp > 0, given g(0) > 0.
 * PERFECT/LINEAR: closed form dp = g(0) / (3G + H_kin + H) (one Newton step is exact).
 * Otherwise Newton safeguarded by bisection on the bracket [0, q_tr / (3G + H_kin)]: g(hi) =
 * -sigma_y(p_n + hi) < 0 whenever the yield stress stays positive, so a root is bracketed even
 * for tables with kinks or softening; a step leaving the bracket is replaced by bisection.
 * Returns 0 and *dp on success, 1 on failure (no bracket, no convergence, non-finite). */
DT_HD static inline int dt_j2_solve_dp(const dt_material_params *m, double G, double p_n,
                                       double q_tr, double *dp) {
  double c = 3.0 * G + m->H_kin, tol = DT_J2_TOL * q_tr;
  double lo = 0.0, hi = q_tr / c, x = 0.0, g, dg, slope = 0.0, xn;
  int it;
  g = q_tr - dt_yield_stress(m, p_n, &slope); /* g(0) = f_trial > 0 */
  if (m->iso == DT_ISO_PERFECT || m->iso == DT_ISO_LINEAR) {
    *dp = g / (c + slope);
    return (c + slope > 0.0 && dt_j2_finite(*dp)) ? 0 : 1;
  }
  if (!(q_tr - c * hi - dt_yield_stress(m, p_n + hi, 0) < 0.0)) return 1; /* not bracketed */
  for (it = 0; it < DT_J2_MAX_ITER; it++) {
    g = q_tr - c * x - dt_yield_stress(m, p_n + x, &slope);
    if (!dt_j2_finite(g)) return 1;
    if (fabs(g) <= tol) {
      *dp = x;
      return 0;
    }
    if (g > 0.0)
      lo = x;
    else
      hi = x;        /* g decreases through the root */
    dg = -c - slope; /* g'(x) */
    xn = (dg < 0.0) ? x - g / dg : lo - 1.0;
    if (!(xn > lo && xn < hi)) xn = 0.5 * (lo + hi);
    x = xn;
  }
  return 1;
}

/* Consistent tangent for a plastic step ([Kiran2023, Sec. 2.7], Simo-Hughes Box 3.2):
 * D = K 1x1 + 2G theta I_dev - 2G thetabar n x n, theta = 1 - 3G dp / q_tr,
 * thetabar = 3G / (3G + H_kin + sigma_y'(p_n+1)) - (1 - theta).
 * In engineering Voigt: I_dev = diag(1,1,1,1/2,1/2,1/2) - 1/3 1x1, and n x n uses n's tensor
 * components directly because n:deps = sum n_i deps_i with engineering shears. */
DT_HD static inline void dt_j2_tangent(double K, double G, double theta, double thetabar,
                                       const double n[6], double D[36]) {
  int i, j;
  for (i = 0; i < 6; i++) {
    for (j = 0; j < 6; j++) {
      double idev = (i < 3 && j < 3) ? ((i == j ? 1.0 : 0.0) - 1.0 / 3.0) : (i == j ? 0.5 : 0.0);
      double vol = (i < 3 && j < 3) ? K : 0.0;
      D[i * 6 + j] = vol + 2.0 * G * theta * idev - 2.0 * G * thetabar * n[i] * n[j];
    }
  }
}

/* The consistent tangent in the few numbers that define it (what the CUDA backend stores per
 * point instead of 36): D = K 1x1 + 2 mu I_dev - gam n x n, with I_dev and n as in
 * dt_j2_tangent. Elastic: mu = G, gam = 0. Plastic: mu = G theta, gam = 2 G thetabar.
 * Plane stress (elastic, 2D elements use only the xx, yy, xy rows and columns): K is the
 * value K' = Ebar - 4G/3 that gives those entries, Ebar and nu Ebar, with mu = G. */
typedef struct dt_tangent_form {
  double K, mu, gam;
  double n[6];
} dt_tangent_form; /* DT_TANGENT_FORM_DOUBLES (material.h) doubles */

/* The form's n of a plastic point, re-formed from the updated stress and back stress: the
 * return mapping scales xi = dev(sig) - beta radially (by 1 - (3G + H_kin) dp / q_tr =
 * sigma_y / q_tr > 0), so xi / |xi| is the update's n to rounding. The CUDA backend stores
 * only K, mu and gam per point and re-forms n from the stress it stores anyway: 48 bytes less
 * written per point and Newton iteration. */
DT_HD static inline void dt_j2_flow_direction(const double sig[6], const double beta[6],
                                              double n[6]) {
  double xi[6], nrm;
  int i;
  dt_voigt_dev(sig, xi);
  for (i = 0; i < 6; i++) xi[i] -= beta[i];
  nrm = sqrt(dt_voigt_ddot(xi, xi));
  nrm = nrm > 0.0 ? 1.0 / nrm : 0.0; /* one division, not six: on the GPU each FP64 division is
                                        a multi-instruction sequence, and the tangent kernels
                                        call this per plastic point */
  for (i = 0; i < 6; i++) n[i] = xi[i] * nrm;
}

/* D[36] from the form (3D and plane strain: equal to the update's D to rounding; plane
 * stress: equal in the xx, yy, xy rows and columns). */
DT_HD static inline void dt_tangent_form_expand(const dt_tangent_form *t, double D[36]) {
  int i, j;
  for (i = 0; i < 6; i++)
    for (j = 0; j < 6; j++) {
      double idev = (i < 3 && j < 3) ? ((i == j ? 1.0 : 0.0) - 1.0 / 3.0) : (i == j ? 0.5 : 0.0);
      double vol = (i < 3 && j < 3) ? t->K : 0.0;
      D[i * 6 + j] = vol + 2.0 * t->mu * idev - t->gam * t->n[i] * t->n[j];
    }
}

DT_HD static inline void dt_tangent_form_elastic(const dt_material_params *m, int stress_state,
                                                 dt_tangent_form *t) {
  int i;
  t->mu = dt_shear_modulus(m);
  t->K = dt_bulk_modulus(m);
  if (stress_state == DT_STATE_PLANE_STRESS)
    t->K = m->E / (1.0 - m->nu * m->nu) - 4.0 * t->mu / 3.0;
  t->gam = 0.0;
  for (i = 0; i < 6; i++) t->n[i] = 0.0;
}

/* The outcomes of a material update without a plastic step, shared by every criterion's update:
 * the committed history kept and the elastic tangent; a failed point also gets zero stress (finite
 * for the assembly; the caller cuts the increment). Returns the status to return. */
DT_HD static inline int dt_material_point_elastic(const dt_material_params *m, int stress_state,
                                                  const dt_mat_state *old_state,
                                                  dt_mat_state *new_state, double D[36],
                                                  dt_tangent_form *form, int result) {
  *new_state = *old_state;
  if (D) dt_elastic_matrix(m, stress_state, D);
  if (form) dt_tangent_form_elastic(m, stress_state, form);
  return result;
}
DT_HD static inline int dt_material_point_failed(const dt_material_params *m, int stress_state,
                                                 const dt_mat_state *old_state,
                                                 dt_mat_state *new_state, double sig[6],
                                                 double D[36], dt_tangent_form *form) {
  int i;
  for (i = 0; i < 6; i++) sig[i] = 0.0;
  return dt_material_point_elastic(m, stress_state, old_state, new_state, D, form,
                                   DT_MAT_NO_CONVERGENCE);
}

/* J2 material point update (update.h chooses it for J2 and elastic materials).
 *   m             parameters (m->plastic == 0: linear elastic).
 *   stress_state  dt_stress_state. PLANE_STRAIN runs the 3D law (eps_zz = 0 comes from the
 *                 kinematics). PLANE_STRESS is elastic only: sig from the reduced stiffness,
 *                 sig_zz = sig_xz = sig_yz = 0, eps[2], eps[4], eps[5] ignored, m->plastic
 *                 ignored (the model validator rejects plastic plane stress).
 *   eps           TOTAL strain at the end of the increment (engineering shears).
 *   old_state     committed history at the start of the increment (not modified).
 *   new_state     always fully written: the updated history, or a copy of old_state when
 *                 elastic or on failure. May alias old_state.
 *   sig           stress at the end of the increment.
 *   D             consistent tangent d sig / d eps (6x6 row-major), or NULL to skip.
 * Returns DT_MAT_ELASTIC, DT_MAT_PLASTIC, or DT_MAT_NO_CONVERGENCE when the input strain or the
 * trial state is not finite or the local return mapping fails; then sig = 0, new_state = old
 * state and D = elastic matrix, all finite for finite parameters, so nothing NaN leaks into the
 * assembly before the caller reduces the status and cuts the increment.
 *   form          the same tangent as a dt_tangent_form, or NULL to skip (the CUDA stress
 *                 kernel asks for the form only, with D NULL). */
DT_HD static inline int dt_j2_update_form(const dt_material_params *m, int stress_state,
                                          const double eps[6], const dt_mat_state *old_state,
                                          dt_mat_state *new_state, double sig[6], double D[36],
                                          dt_tangent_form *form) {
  dt_mat_state st = *old_state; /* local copy: new_state may alias old_state */
  double ee[6], xi[6], n[6], sig_tr[6];
  double G = dt_shear_modulus(m), K = dt_bulk_modulus(m);
  double q_tr, sy, slope = 0.0, dp = 0.0, nrm, theta, thetabar, ratio;
  int i, ok = 1, result = DT_MAT_ELASTIC;

  for (i = 0; i < 6; i++) ok = ok && dt_j2_finite(eps[i]);
  if (stress_state != DT_STATE_PLANE_STRESS) {
    for (i = 0; i < 6; i++) ee[i] = eps[i] - st.eps_p[i]; /* eps_e = eps - eps_p_n */
  } else {
    for (i = 0; i < 6; i++) ee[i] = eps[i];
  }
  dt_elastic_stress(m, stress_state, ee, sig_tr); /* sig_tr = C : (eps - eps_p_n) */
  for (i = 0; i < 6; i++) ok = ok && dt_j2_finite(sig_tr[i]);
  if (!ok) goto fail;
  for (i = 0; i < 6; i++) sig[i] = sig_tr[i];
  if (stress_state == DT_STATE_PLANE_STRESS || !m->plastic) goto elastic;

  dt_voigt_dev(sig_tr, xi);
  for (i = 0; i < 6; i++) xi[i] -= st.beta[i]; /* xi = s_tr - beta_n */
  q_tr = sqrt(1.5 * dt_voigt_ddot(xi, xi));    /* q_tr = sqrt(3/2 xi:xi) */
  sy = dt_yield_stress(m, st.p, 0);
  if (!dt_j2_finite(q_tr) || !dt_j2_finite(sy)) goto fail;
  if (q_tr - sy <= 0.0) goto elastic; /* f_trial = q_tr - sigma_y(p_n) <= 0 */

  if (dt_j2_solve_dp(m, G, st.p, q_tr, &dp)) goto fail;
  nrm = 1.0 / (sqrt(2.0 / 3.0) * q_tr);       /* 1 / |xi|, |xi| = sqrt(2/3) q_tr */
  for (i = 0; i < 6; i++) n[i] = xi[i] * nrm; /* n = xi / |xi| */
  ratio = sqrt(1.5) * dp;                     /* deps_p = sqrt(3/2) dp n (tensor) */
  for (i = 0; i < 6; i++) {
    double de = ratio * n[i];
    st.eps_p[i] += (i < 3 ? 1.0 : 2.0) * de;   /* engineering shears in eps_p */
    st.beta[i] += (2.0 / 3.0) * m->H_kin * de; /* beta += 2/3 H_kin deps_p */
    sig[i] = sig_tr[i] - 2.0 * G * de;         /* sig = sig_tr - 2G deps_p */
  }
  st.p += dp;
  result = DT_MAT_PLASTIC;
  *new_state = st;
  if (D || form) {
    dt_yield_stress(m, st.p, &slope);
    theta = 1.0 - 3.0 * G * dp / q_tr;
    thetabar = 3.0 * G / (3.0 * G + m->H_kin + slope) - (1.0 - theta);
    if (D) dt_j2_tangent(K, G, theta, thetabar, n, D);
    if (form) {
      form->K = K;
      form->mu = G * theta;
      form->gam = 2.0 * G * thetabar;
      for (i = 0; i < 6; i++) form->n[i] = n[i];
    }
  }
  return result;

elastic:
  return dt_material_point_elastic(m, stress_state, old_state, new_state, D, form, result);

fail:
  return dt_material_point_failed(m, stress_state, old_state, new_state, sig, D, form);
}

#endif
