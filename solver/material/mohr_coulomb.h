/* Mohr-Coulomb material point update, perfectly plastic, associative or not ([VilasBoas2020,
 * Sec. 2.8]; [deSouzaNeto2008, Boxes 8.4 and 8.5] with no hardening). Host and device code
 * (STYLE.md §3); conventions as in j2.h: tension positive,
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
 * Tangent, one of two (the material's mc_elastic_tangent):
 *  - consistent (the default for associative flow): the derivative of the return, including
 *    the rotation of the principal frame (dt_mc_tangent), for Newton's quadratic convergence;
 *    symmetric only for associative flow, which PCG needs; at the apex, where the stress cannot
 *    change, it is zero, and only the regularisation (DT_MC_TANGENT_REG D_e) is left;
 *  - elastic (the initial-stiffness method of [VilasBoas2020, Sec. 6.4]; required for psi < phi):
 *    always symmetric positive definite and never changing, so the Newton driver assembles and
 *    preconditions it once per increment and accelerates the iteration instead (Thomas's
 *    method, newton.c). */
#ifndef DT_MOHR_COULOMB_H
#define DT_MOHR_COULOMB_H

#include <math.h>

#include "j2.h"
#include "principal.h"

/* Relative tolerances: the trial state is elastic if Phi <= DT_MC_TOL * (|s|max + c); a return
 * keeps the principal order and non-negative multipliers to DT_MC_TOL times the stress scale. */
#define DT_MC_TOL 1.0e-12

/* The consistent tangent gets this fraction of the elastic stiffness added (see dt_mc_tangent). */
#ifndef DT_MC_TANGENT_REG
#define DT_MC_TANGENT_REG 1.0e-3
#endif

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

/* T = I - sum_ab DN_a (A^-1)_ab F_b^T over the active planes (one or two): d sig / d sig_trial in
 * principal space for a return to a plane or an edge (de Souza Neto et al., eqs 8.75-8.76). */
DT_HD static inline void dt_mc_return_derivative(int n, const double *DN0, const double *DN1,
                                                 const double *F0, const double *F1,
                                                 const double Ainv[4], double T[9]) {
  int i, j;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      double v = (i == j) ? 1.0 : 0.0;
      v -= DN0[i] * Ainv[0] * F0[j];
      if (n == 2)
        v -= DN0[i] * Ainv[1] * F1[j] + DN1[i] * Ainv[2] * F0[j] + DN1[i] * Ainv[3] * F1[j];
      T[i * 3 + j] = v;
    }
}

/* The return in principal space: s (sorted trial values) in, projected values out; T (may be
 * NULL) gets d s_projected / d s_trial for plane and edge returns. Returns 0 elastic, 1 plastic
 * (main plane or edge), 2 apex, -1 no admissible return. */
DT_HD static inline int dt_mc_return(const dt_material_params *m, double G, double lam, double s[3],
                                     double *T) {
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
    double Ainv[4] = {1.0 / a, 0.0, 0.0, 0.0};
    for (k = 0; k < 3; k++) s[k] = t[k];
    if (T) dt_mc_return_derivative(1, DNa, DNa, Fa, Fa, Ainv, T);
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
    double Ainv[4] = {A22 / det, -A12 / det, -A21 / det, A11 / det};
    dga = (A22 * phi_a - A12 * phi_b) / det;
    dgb = (A11 * phi_b - A21 * phi_a) / det;
    for (k = 0; k < 3; k++) t[k] = s[k] - dga * DNa[k] - dgb * DNb[k];
    if (dga >= -DT_MC_TOL && dgb >= -DT_MC_TOL && t[0] >= t[1] - tol && t[1] >= t[2] - tol) {
      for (k = 0; k < 3; k++) s[k] = t[k];
      if (T) dt_mc_return_derivative(2, DNa, DNb, Fa, Fb, Ainv, T);
      return 1;
    }
  }
  if (!(sphi > 0.0)) return -1; /* Tresca has no apex; its edges always admit a return */
  s[0] = s[1] = s[2] = m->mc_cohesion * m->mc_cos_phi / sphi; /* c cot(phi) */
  return 2;
}

/* The consistent tangent of a plane or edge return (de Souza Neto et al., Appendix A: the
 * derivative of an isotropic tensor function), D[36] for engineering strains:
 *   D = sum_ij C_ij M_i x M_j + sum_{i<j} 2 f_ij S_ij x S_ij,
 * with C = T Dp (Dp the principal elastic stiffness: lam + 2G on, lam off the diagonal), M_i =
 * v_i v_i^T and S_ij = sym(v_i v_j^T) as Voigt vectors of tensor components (eps'_ij = S_ij .
 * eps with engineering shears), and f_ij = 2G (s_i - s_j)/(s_tr_i - s_tr_j), the shear modulus
 * of the principal frame's rotation, with its limit G (T_ii - T_ij - T_ji + T_jj) when the trial
 * values (nearly) coincide. Symmetric when the flow is associative (T Dp is then symmetric).
 * DT_MC_TANGENT_REG D_e is added: without hardening the derivative has no stiffness along the
 * plastic flow (and, on an edge, across it), so where a mechanism forms (a homogeneous block
 * with free faces, a collapsing footing) the assembled tangent is singular and block Jacobi or
 * PCG breaks down; the thousandth of D_e keeps it positive definite at the cost of a linear
 * rate of about 1e-3 on those modes. Measured on the CPU backend: unconfined compression of
 * a Tresca block failed without it (indefinite tangent) and converged with it; 1e-4 / 1e-3 /
 * 1e-2 took 5 / 7 / 9 Newton iterations on the unconfined block of c = 5, phi = 20, and 9 / 10 /
 * 12 on the 120 x 64 wellbore (22 with the elastic tangent and Thomas's acceleration). */
DT_HD static inline void dt_mc_tangent(double G, double lam, const double s_tr[3],
                                       const double s[3], const double T[9], const double V[9],
                                       double D[36]) {
  double C[9], M[3][6], S[6], f, gap, scale = fabs(s_tr[0]) + fabs(s_tr[2]);
  int i, j, k, a, b;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      double v = 0.0;
      for (k = 0; k < 3; k++) v += T[i * 3 + k] * (lam + (k == j ? 2.0 * G : 0.0));
      C[i * 3 + j] = v;
    }
  for (i = 0; i < 3; i++) {
    M[i][0] = V[0 * 3 + i] * V[0 * 3 + i];
    M[i][1] = V[1 * 3 + i] * V[1 * 3 + i];
    M[i][2] = V[2 * 3 + i] * V[2 * 3 + i];
    M[i][3] = V[0 * 3 + i] * V[1 * 3 + i];
    M[i][4] = V[0 * 3 + i] * V[2 * 3 + i];
    M[i][5] = V[1 * 3 + i] * V[2 * 3 + i];
  }
  for (a = 0; a < 36; a++) D[a] = 0.0;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++)
      for (a = 0; a < 6; a++)
        for (b = 0; b < 6; b++) D[a * 6 + b] += C[i * 3 + j] * M[i][a] * M[j][b];
  for (i = 0; i < 3; i++)
    for (j = i + 1; j < 3; j++) {
      gap = s_tr[i] - s_tr[j];
      f = fabs(gap) > 1.0e-10 * scale
              ? 2.0 * G * (s[i] - s[j]) / gap
              : G * (T[i * 3 + i] - T[i * 3 + j] - T[j * 3 + i] + T[j * 3 + j]);
      S[0] = V[0 * 3 + i] * V[0 * 3 + j];
      S[1] = V[1 * 3 + i] * V[1 * 3 + j];
      S[2] = V[2 * 3 + i] * V[2 * 3 + j];
      S[3] = 0.5 * (V[0 * 3 + i] * V[1 * 3 + j] + V[1 * 3 + i] * V[0 * 3 + j]);
      S[4] = 0.5 * (V[0 * 3 + i] * V[2 * 3 + j] + V[2 * 3 + i] * V[0 * 3 + j]);
      S[5] = 0.5 * (V[1 * 3 + i] * V[2 * 3 + j] + V[2 * 3 + i] * V[1 * 3 + j]);
      for (a = 0; a < 6; a++)
        for (b = 0; b < 6; b++) D[a * 6 + b] += 2.0 * f * S[a] * S[b];
    }
  for (a = 0; a < 3; a++) { /* + reg De */
    for (b = 0; b < 3; b++) D[a * 6 + b] += DT_MC_TANGENT_REG * (lam + (a == b ? 2.0 * G : 0.0));
    D[(a + 3) * 6 + a + 3] += DT_MC_TANGENT_REG * G;
  }
}

/* Material point update; the same contract as dt_j2_update_form (j2.h). The tangent: D gets
 * the consistent tangent (dt_mc_tangent) when the material asks for it (mc_elastic_tangent 0,
 * associative flow; at the apex DT_MC_TANGENT_REG D_e: the derivative is zero there, and D_e
 * instead slowed Newton down, 8 against 3 iterations in an increment of a 3D footing), and the
 * elastic stiffness otherwise; the form is always the elastic one (the CUDA backend assembles a consistent
 * Mohr-Coulomb tangent with the kernels that ask for D). Plane stress is elastic (the model
 * validator rejects plastic plane stress). */
DT_HD static inline int dt_mc_update_form(const dt_material_params *m, int stress_state,
                                          const double eps[6], const dt_mat_state *old_state,
                                          dt_mat_state *new_state, double sig[6], double D[36],
                                          dt_tangent_form *form) {
  dt_mat_state st = *old_state; /* local copy: new_state may alias old_state */
  double ee[6], sig_tr[6], pr[3], pr_tr[3], V[9], T[9], ds[6], dep[6];
  double G = dt_shear_modulus(m), lam = dt_bulk_modulus(m) - 2.0 * G / 3.0, sq;
  int i, ok = 1, r;

  for (i = 0; i < 6; i++) ok = ok && dt_j2_finite(eps[i]);
  for (i = 0; i < 6; i++)
    ee[i] = stress_state == DT_STATE_PLANE_STRESS ? eps[i] : eps[i] - st.eps_p[i];
  dt_elastic_stress(m, stress_state, ee, sig_tr);
  for (i = 0; i < 6; i++) ok = ok && dt_j2_finite(sig_tr[i]);
  if (!ok) goto fail;
  for (i = 0; i < 6; i++) sig[i] = sig_tr[i];
  if (stress_state == DT_STATE_PLANE_STRESS) goto elastic;
  if (dt_principal(sig_tr, pr, V) < 0) goto fail;
  for (i = 0; i < 3; i++) pr_tr[i] = pr[i];
  r = dt_mc_return(m, G, lam, pr, T);
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
  if (D && r == 1 && !m->mc_elastic_tangent)
    dt_mc_tangent(G, lam, pr_tr, pr, T, V, D);
  else if (D && r == 2 && !m->mc_elastic_tangent) {
    dt_elastic_matrix(m, stress_state, D);
    for (i = 0; i < 36; i++) D[i] *= DT_MC_TANGENT_REG;
  } else if (D)
    dt_elastic_matrix(m, stress_state, D);
  if (form) dt_tangent_form_elastic(m, stress_state, form);
  return DT_MAT_PLASTIC;

elastic:
  return dt_material_point_elastic(m, stress_state, old_state, new_state, D, form, DT_MAT_ELASTIC);

fail:
  return dt_material_point_failed(m, stress_state, old_state, new_state, sig, D, form);
}

#endif
