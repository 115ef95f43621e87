/* Mohr-Coulomb material point update, perfectly plastic, associative or not (seed-000 §1.4-1.6;
 * de Souza Neto, Peric & Owen, Computational Methods for Plasticity, Boxes 8.4 and 8.5 with no
 * hardening). Host and device code (STYLE.md §3); conventions as in j2.h: tension positive,
 * Voigt (xx, yy, zz, xy, xz, yz), engineering shear strains, tensor shear stresses.
 *
 * With the principal stresses sorted s1 >= s2 >= s3 the yield function is the main plane
 *     Phi = (s1 - s3) + (s1 + s3) sin(phi) - 2 c cos(phi),
 * the flow potential the same with the dilation angle psi. The update is a backward-Euler
 * return from the COMMITTED plastic strain for the total strain at the end of the increment
 * (like j2.h, so the global iteration may call it any number of times), done in the principal
 * frame of the trial stress, which the return does not rotate (isotropy):
 *   1. main plane: one multiplier, closed form;
 *   2. if that breaks the order s1 >= s2 >= s3, an edge: two planes active, a 2 x 2 linear
 *      system; the right edge (s2 = s3 after return) or the left edge (s1 = s2) chosen from the
 *      trial stresses as in Box 8.5;
 *   3. if that is not admissible either, the apex: s1 = s2 = s3 = c cot(phi).
 * The plastic strain increment is C^-1 (sig_trial - sig), and the equivalent plastic strain
 * (PEEQ) grows by sqrt(2/3 deps_p : deps_p), the von Mises measure of that increment.
 *
 * Tangent: the elastic stiffness (the initial-stiffness method of seed-000 §2.5). It keeps the
 * global matrix symmetric positive definite for non-associative flow too (psi < phi), and it
 * never changes, so the Newton driver can assemble and precondition it once per increment and
 * accelerate the iteration instead (Thomas's method, newton.c). */
#ifndef DT_MOHR_COULOMB_H
#define DT_MOHR_COULOMB_H

#include <math.h>

#include "j2.h"
#include "principal.h"

/* Relative tolerances: the trial state is elastic if Phi <= DT_MC_TOL * (|s|max + c); a return
 * keeps the principal order and non-negative multipliers to DT_MC_TOL times the stress scale. */
#define DT_MC_TOL 1.0e-12

/* The sines and cosines the update uses, from the angles in degrees (dt_model_finish calls this
 * for every material; code that fills dt_material_params itself must too). */
DT_HD static inline void dt_mc_derive(dt_material_params *m) {
  const double rad = 3.14159265358979323846 / 180.0;
  m->mc_sin_phi = sin(m->mc_friction_deg * rad);
  m->mc_cos_phi = cos(m->mc_friction_deg * rad);
  m->mc_sin_psi = sin(m->mc_dilation_deg * rad);
}

/* D_e v for a principal-space vector v: lam (v1 + v2 + v3) + 2 G v_i. */
DT_HD static inline void dt_mc_de(double lam, double G, const double v[3], double out[3]) {
  double tr = lam * (v[0] + v[1] + v[2]);
  out[0] = tr + 2.0 * G * v[0];
  out[1] = tr + 2.0 * G * v[1];
  out[2] = tr + 2.0 * G * v[2];
}

DT_HD static inline double dt_mc_dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The plane through principal stresses i (larger) and j (smaller): gradient of
 * (s_i - s_j) + (s_i + s_j) sin(angle), as a vector over (s1, s2, s3). */
DT_HD static inline void dt_mc_plane(int i, int j, double sin_angle, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  out[i] = 1.0 + sin_angle;
  out[j] = -(1.0 - sin_angle);
}

/* The return in principal space: s (sorted trial values) in, projected values out. Returns
 * 0 elastic, 1 plastic (main plane or edge), 2 apex, -1 no admissible return. */
DT_HD static inline int dt_mc_return(const dt_material_params *m, double G, double lam, double s[3]) {
  double sphi = m->mc_sin_phi, spsi = m->mc_sin_psi, c2 = 2.0 * m->mc_cohesion * m->mc_cos_phi;
  double scale = fabs(s[0]) + fabs(s[2]) + m->mc_cohesion, tol = DT_MC_TOL * scale;
  double Fa[3], Na[3], DNa[3], Fb[3], Nb[3], DNb[3], t[3];
  double phi_a = (s[0] - s[2]) + (s[0] + s[2]) * sphi - c2, a, dga, dgb;
  int k;
  if (phi_a <= tol) return 0;
  dt_mc_plane(0, 2, sphi, Fa);
  dt_mc_plane(0, 2, spsi, Na);
  dt_mc_de(lam, G, Na, DNa);
  a = dt_mc_dot3(Fa, DNa); /* 4G (1 + sin phi sin psi / 3) + 4K sin phi sin psi > 0 */
  dga = phi_a / a;
  for (k = 0; k < 3; k++) t[k] = s[k] - dga * DNa[k];
  if (t[0] >= t[1] - tol && t[1] >= t[2] - tol) {
    for (k = 0; k < 3; k++) s[k] = t[k];
    return 1;
  }
  /* an edge: the second plane is (s1, s2) when s2 ends lowest (right edge), else (s2, s3) */
  if ((1.0 - spsi) * s[0] - 2.0 * s[1] + (1.0 + spsi) * s[2] > 0.0) {
    dt_mc_plane(0, 1, sphi, Fb);
    dt_mc_plane(0, 1, spsi, Nb);
  } else {
    dt_mc_plane(1, 2, sphi, Fb);
    dt_mc_plane(1, 2, spsi, Nb);
  }
  dt_mc_de(lam, G, Nb, DNb);
  {
    double A11 = a, A12 = dt_mc_dot3(Fa, DNb), A21 = dt_mc_dot3(Fb, DNa), A22 = dt_mc_dot3(Fb, DNb);
    double phi_b = dt_mc_dot3(Fb, s) - c2, det = A11 * A22 - A12 * A21;
    dga = (A22 * phi_a - A12 * phi_b) / det;
    dgb = (A11 * phi_b - A21 * phi_a) / det;
  }
  for (k = 0; k < 3; k++) t[k] = s[k] - dga * DNa[k] - dgb * DNb[k];
  if (dga >= -DT_MC_TOL && dgb >= -DT_MC_TOL && t[0] >= t[1] - tol && t[1] >= t[2] - tol) {
    for (k = 0; k < 3; k++) s[k] = t[k];
    return 1;
  }
  if (!(sphi > 0.0)) return -1; /* Tresca has no apex; its edges always admit a return */
  s[0] = s[1] = s[2] = m->mc_cohesion * m->mc_cos_phi / sphi; /* c cot(phi) */
  return 2;
}

/* Material point update; the same contract as dt_j2_update_form (j2.h), with the elastic
 * tangent (D and form). Plane stress is elastic (the model validator rejects plastic plane
 * stress). */
DT_HD static inline int dt_mc_update_form(const dt_material_params *m, int stress_state, const double eps[6],
                                          const dt_mat_state *old_state, dt_mat_state *new_state,
                                          double sig[6], double D[36], dt_tangent_form *form) {
  dt_mat_state st = *old_state; /* local copy: new_state may alias old_state */
  double ee[6], sig_tr[6], pr[3], V[9], ds[6], dep[6];
  double G = dt_shear_modulus(m), lam = dt_bulk_modulus(m) - 2.0 * G / 3.0, sq;
  int i, ok = 1, r;

  for (i = 0; i < 6; i++) ok = ok && dt_j2_finite(eps[i]);
  for (i = 0; i < 6; i++) ee[i] = stress_state == DT_STATE_PLANE_STRESS ? eps[i] : eps[i] - st.eps_p[i];
  dt_elastic_stress(m, stress_state, ee, sig_tr);
  for (i = 0; i < 6; i++) ok = ok && dt_j2_finite(sig_tr[i]);
  if (!ok) goto fail;
  for (i = 0; i < 6; i++) sig[i] = sig_tr[i];
  if (stress_state == DT_STATE_PLANE_STRESS) goto elastic;
  if (dt_principal(sig_tr, pr, V) < 0) goto fail;
  r = dt_mc_return(m, G, lam, pr);
  if (r < 0) goto fail;
  if (r == 0) goto elastic;
  dt_principal_compose(pr, V, sig);
  /* deps_p = C^-1 (sig_tr - sig): normal (ds_i - nu (ds_j + ds_k)) / E, shear ds / G */
  for (i = 0; i < 6; i++) ds[i] = sig_tr[i] - sig[i];
  sq = 0.0;
  for (i = 0; i < 3; i++) {
    dep[i] = ((1.0 + m->nu) * ds[i] - m->nu * (ds[0] + ds[1] + ds[2])) / m->E;
    dep[i + 3] = ds[i + 3] / G;
    sq += dep[i] * dep[i] + 0.5 * dep[i + 3] * dep[i + 3]; /* tensor shears: (gamma/2)^2 twice */
  }
  for (i = 0; i < 6; i++) st.eps_p[i] += dep[i];
  st.p += sqrt(2.0 / 3.0 * sq);
  *new_state = st;
  if (D) dt_elastic_matrix(m, stress_state, D);
  if (form) dt_tangent_form_elastic(m, stress_state, form);
  return DT_MAT_PLASTIC;

elastic:
  *new_state = *old_state;
  if (D) dt_elastic_matrix(m, stress_state, D);
  if (form) dt_tangent_form_elastic(m, stress_state, form);
  return DT_MAT_ELASTIC;

fail:
  *new_state = *old_state;
  for (i = 0; i < 6; i++) sig[i] = 0.0;
  if (D) dt_elastic_matrix(m, stress_state, D);
  if (form) dt_tangent_form_elastic(m, stress_state, form);
  return DT_MAT_NO_CONVERGENCE;
}

#endif
