/* The 8-node hexahedron for explicit dynamics: internal forces, strain and hourglass energy,
 * lumped mass and characteristic length, written once for the CPU loop (gcc, OpenMP) and the
 * CUDA kernel (nvcc, a thread per element). STYLE.md §3: DT_HD static inline functions in the
 * common subset of C and C++, fixed-size arrays, no allocation, no I/O.
 *
 * Nodes as CalculiX's C3D8: the bottom face (zeta = -1) counterclockwise from (-1,-1), then the
 * top face; node-major vectors, node a's components at [3a .. 3a+2], global axes.
 *
 * Kinematics: small strain with large rotations, corotational. At a point, the deformation
 * gradient F = I + sum_a u_a (x) grad0 N_a (reference gradients, F from the displacements so
 * that small strains keep their digits) is split by the polar decomposition F = R U
 * (dt_hex8x_polar), and the strain is the rotation-free eps = U - I (Biot's strain, the total
 * strain in the corotated frame; its increment over a step is the strain increment rotated
 * into that frame). The material (material/update.h, J2 or elastic, DT_STATE_3D) returns the
 * corotated stress S; the stress rotated back, R S, acts on the reference gradients:
 *   f_a = sum_points w det J0 (R S) grad0 N_a,
 * which is J sigma F^-T with the Cauchy stress sigma = R S U R^T / J (R S R^T to first order in
 * the strain). Since U and S commute for an isotropic elastic law, f_a is the exact gradient of
 * the strain energy W = sum_points w det J0 S : eps / 2 (a rigid rotation leaves W and the
 * stress at 0 however large the angle; energy is conserved to the scheme's O(dt^2)).
 *
 * Two formulations (DT_HEX8X_FULL, DT_HEX8X_REDUCED):
 *  - full: 2 x 2 x 2 Gauss points (no B-bar: fine for elastic solids, volumetric locking for
 *    J2 flow in confined regions);
 *  - reduced: one point with Flanagan and Belytschko's uniform gradient
 *    b_a = (1 / V0) integral of grad0 N_a dV0 (exact by 2 x 2 x 2 Gauss: its integrand is
 *    polynomial), F = I + sum_a u_a (x) b_a the element's mean deformation gradient, and their
 *    stiffness hourglass control in total form: with the hourglass base vectors h^i (i = 1..4:
 *    the node sign products eta zeta, zeta xi, xi eta, xi eta zeta) and
 *      gamma^i_a = (h^i_a - (sum_b h^i_b X_b) . b_a) / 8      (orthogonal to every linear field)
 *      q^i = sum_a gamma^i_a u_a,   E_hg = k / 2 sum_i |q^i|^2,   f_a += k sum_i gamma^i_a q^i,
 *      k = kappa (lambda + 2 mu) V0 sum_a b_a . b_a,
 *    kappa the hourglass coefficient (DT_HEX8X_HOURGLASS = 0.05 by default, as the stiffness
 *    forms of common explicit codes). The hourglass modes' displacements q^i vanish for every
 *    homogeneous deformation x = F X + t, rotations included, and |q^i| is invariant under a
 *    rigid rotation of the deformed element, so E_hg is objective without the corotated frame.
 *    For a cube of side h, E_hg of the mode u_x = d xi eta is 0.75 kappa (lambda + 2 mu) h d^2,
 *    against (2/3) (lambda + 3 mu) h d^2 with full integration: kappa = 1.15 would restore that
 *    (nu = 0.3), and 0.05 keeps about 4 % of it, enough to hold the modes without stiffening
 *    bending.
 * Both pass the patch test on distorted elements (a uniform strain gives uniform stress and no
 * hourglass force).
 *
 * History per point as dt_mat_state (8 points: point q at xi = (+-1, +-1, +-1) / sqrt(3) in node
 * order; 1 point for reduced). */
#ifndef DT_HEX8_EXPLICIT_H
#define DT_HEX8_EXPLICIT_H

#include <math.h>

#include "core/hd.h"
#include "core/small_matrix.h"
#include "material/update.h"

#define DT_HEX8X_FULL 0         /* 2 x 2 x 2 points */
#define DT_HEX8X_REDUCED 1      /* one point with hourglass control */
#define DT_HEX8X_HOURGLASS 0.05 /* the default hourglass coefficient kappa */

/* dt_hex8x_* statuses */
#define DT_HEX8X_OK 0
#define DT_HEX8X_MATERIAL 1 /* a point's material update failed (its stress is zero) */
#define DT_HEX8X_INVERTED 2 /* det J0 <= 0 or det F <= 0 at a point (forces zero) */

/* The sign of node a's reference coordinate k (-1 or +1). */
DT_HD static inline double dt_hex8x_sign(int a, int k) {
  const int b = a & 3;
  if (k == 0) return (b == 1 || b == 2) ? 1.0 : -1.0;
  if (k == 1) return b >= 2 ? 1.0 : -1.0;
  return a >= 4 ? 1.0 : -1.0;
}

/* dN_a/dxi at xi. */
DT_HD static inline void dt_hex8x_dshape(int a, const double xi[3], double dN[3]) {
  const double f0 = 1.0 + xi[0] * dt_hex8x_sign(a, 0), f1 = 1.0 + xi[1] * dt_hex8x_sign(a, 1);
  const double f2 = 1.0 + xi[2] * dt_hex8x_sign(a, 2);
  dN[0] = 0.125 * dt_hex8x_sign(a, 0) * f1 * f2;
  dN[1] = 0.125 * dt_hex8x_sign(a, 1) * f0 * f2;
  dN[2] = 0.125 * dt_hex8x_sign(a, 2) * f0 * f1;
}

/* The reference Jacobian J_ij = dX_i / dxi_j at xi as its cofactor matrix C = det J J^-T
 * (core/small_matrix.h);
 * returns det J. det J grad0 N_a = C dN_a/dxi (dt_hex8x_cgrad): the shape functions' gradients
 * are formed node by node, never stored. */
DT_HD static inline double dt_hex8x_jacobian(const double X0[24], const double xi[3], double C[9]) {
  double J[9], dN[3];
  int a, i, j;
  for (i = 0; i < 9; i++) J[i] = 0.0;
  for (a = 0; a < 8; a++) {
    dt_hex8x_dshape(a, xi, dN);
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) J[3 * i + j] += X0[3 * a + i] * dN[j];
  }
  return dt_cofactor3(J, C);
}

/* g = det J grad0 N_a = C dN_a/dxi at xi. */
DT_HD static inline void dt_hex8x_cgrad(const double C[9], int a, const double xi[3], double g[3]) {
  double dN[3];
  int i;
  dt_hex8x_dshape(a, xi, dN);
  for (i = 0; i < 3; i++) g[i] = C[3 * i] * dN[0] + C[3 * i + 1] * dN[1] + C[3 * i + 2] * dN[2];
}

/* The 2 x 2 x 2 point q: xi = (sign of node q) / sqrt(3), weight 1. */
DT_HD static inline void dt_hex8x_point(int q, double xi[3]) {
  const double g = 0.57735026918962576;
  int k;
  for (k = 0; k < 3; k++) xi[k] = g * dt_hex8x_sign(q, k);
}

/* Flanagan-Belytschko's uniform gradient b (8 x 3, node-major) and the volume; returns V0
 * (0 when some point's det J0 is not positive). */
DT_HD static inline double dt_hex8x_mean_gradients(const double X0[24], double b[24]) {
  double C[9], xi[3], g[3], det, V = 0.0;
  int q, i, a, bad = 0;
  for (i = 0; i < 24; i++) b[i] = 0.0;
  for (q = 0; q < 8; q++) {
    dt_hex8x_point(q, xi);
    det = dt_hex8x_jacobian(X0, xi, C);
    if (!(det > 0.0)) bad = 1;
    V += det;
    for (a = 0; a < 8; a++) {
      dt_hex8x_cgrad(C, a, xi, g);
      for (i = 0; i < 3; i++) b[3 * a + i] += g[i];
    }
  }
  if (bad || !(V > 0.0)) return 0.0;
  for (i = 0; i < 24; i++) b[i] /= V;
  return V;
}

/* Rotation R of the polar decomposition F = R U (det F > 0), by Higham's Newton iteration
 * X <- (g X + X^-T / g) / 2, scaled by g = sqrt(|X^-1| / |X|) (Frobenius norms) while far from
 * converged; it converges quadratically for any F with det F > 0 (a few iterations at small
 * strain, about ten at large), the last step taken unscaled once the change is below 1e-9.
 * Returns 0, or 1 (R = I) when det F <= 0 or the iteration does not converge. */
DT_HD static inline int dt_hex8x_polar(const double F[9], double R[9]) {
  double X[9], C[9], det, nX, nY, g, d;
  int it, i, close = 0;
  for (i = 0; i < 9; i++) X[i] = F[i];
  for (it = 0; it < 60; it++) {
    det = dt_cofactor3(X, C); /* X^-T = C / det */
    if (!(det > 0.0)) break;
    g = 1.0;
    if (!close) {
      nX = 0.0, nY = 0.0;
      for (i = 0; i < 9; i++) nX += X[i] * X[i], nY += C[i] * C[i];
      g = sqrt(sqrt(nY) / (det * sqrt(nX)));
    }
    d = 0.0;
    for (i = 0; i < 9; i++) {
      const double y = 0.5 * (g * X[i] + C[i] / (g * det));
      d += (y - X[i]) * (y - X[i]);
      X[i] = y;
    }
    if (close) {
      for (i = 0; i < 9; i++) R[i] = X[i];
      return 0;
    }
    close = d < 1e-18;
  }
  for (i = 0; i < 9; i++) R[i] = (i % 4 == 0) ? 1.0 : 0.0;
  return 1;
}

/* The corotational stress of F = I + H: R, the strain eps = U - I (Voigt, engineering shears)
 * and the material update from old into *st (old NULL: an elastic material, zero history);
 * P = R S. Returns the material status, or -1 when det F <= 0. */
DT_HD static inline int dt_hex8x_stress(const double H[9], const dt_material_params *mat,
                                        const dt_mat_state *old, dt_mat_state *st, double P[9],
                                        double eps[6], double sig[6]) {
  double F[9], R[9], U[9];
  int i, j, k, res;
  for (i = 0; i < 9; i++) F[i] = H[i] + ((i % 4 == 0) ? 1.0 : 0.0);
  if (dt_hex8x_polar(F, R)) return -1;
  for (i = 0; i < 3; i++) /* U = R^T F */
    for (j = 0; j < 3; j++) {
      double s = 0.0;
      for (k = 0; k < 3; k++) s += R[3 * k + i] * F[3 * k + j];
      U[3 * i + j] = s;
    }
  eps[0] = U[0] - 1.0, eps[1] = U[4] - 1.0, eps[2] = U[8] - 1.0;
  eps[3] = U[1] + U[3], eps[4] = U[2] + U[6], eps[5] = U[5] + U[7];
  if (!old) { /* elastic without history: the zero state and the elastic law (what the
                 update returns for it, bit for bit, without compiling the return mapping into
                 an elastic kernel) */
    for (i = 0; i < 6; i++) st->eps_p[i] = st->beta[i] = 0.0;
    st->p = 0.0;
    dt_elastic_stress(mat, DT_STATE_3D, eps, sig);
    res = DT_MAT_ELASTIC;
  } else
    res = dt_material_update(mat, DT_STATE_3D, eps, old, st, sig, (double *)0);
  for (i = 0; i < 3; i++) { /* P = R S, S from Voigt (xx, yy, zz, xy, xz, yz) */
    P[3 * i + 0] = R[3 * i] * sig[0] + R[3 * i + 1] * sig[3] + R[3 * i + 2] * sig[4];
    P[3 * i + 1] = R[3 * i] * sig[3] + R[3 * i + 1] * sig[1] + R[3 * i + 2] * sig[5];
    P[3 * i + 2] = R[3 * i] * sig[4] + R[3 * i + 1] * sig[5] + R[3 * i + 2] * sig[2];
  }
  return res;
}

/* The point's strain energy density S : (eps - eps_p) / 2. */
DT_HD static inline double dt_hex8x_psi(const double sig[6], const double eps[6],
                                        const dt_mat_state *st) {
  double W = 0.0;
  int i;
  for (i = 0; i < 6; i++) W += sig[i] * (eps[i] - st->eps_p[i]);
  return 0.5 * W;
}

/* Full integration, one point q (0..7) at a time so that a caller keeps one point's history
 * live: H = sum_a u_a (x) grad0 N_a, the stress, f_a += det J0 P grad0 N_a, *energy += det J0
 * psi. Returns a DT_HEX8X_* status; *plastic 1 when the update was plastic. */
DT_HD static inline int dt_hex8x_full_point(const double X0[24], const double u[24], int q,
                                            const dt_material_params *mat, const dt_mat_state *old,
                                            dt_mat_state *st, double f[24], double *energy,
                                            int *plastic) {
  double C[9], xi[3], g[3], H[9], P[9], eps[6], sig[6], det, id;
  int a, i, j, res;
  dt_hex8x_point(q, xi);
  det = dt_hex8x_jacobian(X0, xi, C);
  if (!(det > 0.0)) return DT_HEX8X_INVERTED;
  id = 1.0 / det;
  for (i = 0; i < 9; i++) H[i] = 0.0;
  for (a = 0; a < 8; a++) {
    dt_hex8x_cgrad(C, a, xi, g);
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) H[3 * i + j] += u[3 * a + i] * g[j] * id;
  }
  res = dt_hex8x_stress(H, mat, old, st, P, eps, sig);
  if (res < 0) return DT_HEX8X_INVERTED;
  *plastic = res == DT_MAT_PLASTIC;
  for (a = 0; a < 8; a++) {
    dt_hex8x_cgrad(C, a, xi, g);
    for (i = 0; i < 3; i++)
      f[3 * a + i] += P[3 * i] * g[0] + P[3 * i + 1] * g[1] + P[3 * i + 2] * g[2];
  }
  *energy += det * dt_hex8x_psi(sig, eps, st);
  return res == DT_MAT_NO_CONVERGENCE ? DT_HEX8X_MATERIAL : DT_HEX8X_OK;
}

/* The hourglass stiffness k = kappa (lambda + 2 mu) V0 sum_a b_a . b_a. */
DT_HD static inline double dt_hex8x_hourglass_stiffness(const dt_material_params *mat, double V,
                                                        const double b[24], double kappa) {
  const double lm2 = mat->E * (1.0 - mat->nu) / ((1.0 + mat->nu) * (1.0 - 2.0 * mat->nu));
  double bb = 0.0;
  int i;
  for (i = 0; i < 24; i++) bb += b[i] * b[i];
  return kappa * lm2 * V * bb;
}

/* The hourglass forces added to f and the hourglass energy (formulation comment above). */
DT_HD static inline double dt_hex8x_hourglass(const double X0[24], const double u[24],
                                              const double b[24], double k, double f[24]) {
  double E = 0.0;
  int i, a, j;
  for (i = 0; i < 4; i++) {
    double h[8], hx[3] = {0.0, 0.0, 0.0}, q[3] = {0.0, 0.0, 0.0}, gam[8];
    for (a = 0; a < 8; a++) {
      const double sx = dt_hex8x_sign(a, 0), sy = dt_hex8x_sign(a, 1), sz = dt_hex8x_sign(a, 2);
      h[a] = i == 0 ? sy * sz : i == 1 ? sz * sx : i == 2 ? sx * sy : sx * sy * sz;
      for (j = 0; j < 3; j++) hx[j] += h[a] * X0[3 * a + j];
    }
    for (a = 0; a < 8; a++) { /* gamma_a = (h_a - (h . X) . b_a) / 8; q = sum gamma_a u_a */
      gam[a] = 0.125 * (h[a] - hx[0] * b[3 * a] - hx[1] * b[3 * a + 1] - hx[2] * b[3 * a + 2]);
      for (j = 0; j < 3; j++) q[j] += gam[a] * u[3 * a + j];
    }
    for (a = 0; a < 8; a++)
      for (j = 0; j < 3; j++) f[3 * a + j] += k * gam[a] * q[j];
    E += 0.5 * k * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
  }
  return E;
}

/* One-point integration with hourglass control: f fully written (the point's forces and the
 * hourglass forces), *energy the strain energy including the hourglass energy *e_hg. */
DT_HD static inline int dt_hex8x_reduced(const double X0[24], const double u[24],
                                         const dt_material_params *mat, const dt_mat_state *old,
                                         dt_mat_state *st, double kappa, double f[24],
                                         double *energy, double *e_hg, int *plastic) {
  double b[24], H[9], P[9], eps[6], sig[6], V;
  int a, i, j, res;
  for (i = 0; i < 24; i++) f[i] = 0.0;
  *energy = 0.0, *e_hg = 0.0, *plastic = 0;
  V = dt_hex8x_mean_gradients(X0, b);
  if (!(V > 0.0)) return DT_HEX8X_INVERTED;
  for (i = 0; i < 9; i++) H[i] = 0.0; /* H = sum_a u_a (x) b_a */
  for (a = 0; a < 8; a++)
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) H[3 * i + j] += u[3 * a + i] * b[3 * a + j];
  res = dt_hex8x_stress(H, mat, old, st, P, eps, sig);
  if (res < 0) return DT_HEX8X_INVERTED;
  *plastic = res == DT_MAT_PLASTIC;
  for (a = 0; a < 8; a++) /* f_a = V0 P b_a */
    for (i = 0; i < 3; i++)
      f[3 * a + i] =
          V * (P[3 * i] * b[3 * a] + P[3 * i + 1] * b[3 * a + 1] + P[3 * i + 2] * b[3 * a + 2]);
  *e_hg = dt_hex8x_hourglass(X0, u, b, dt_hex8x_hourglass_stiffness(mat, V, b, kappa), f);
  *energy = V * dt_hex8x_psi(sig, eps, st) + *e_hg;
  return res == DT_MAT_NO_CONVERGENCE ? DT_HEX8X_MATERIAL : DT_HEX8X_OK;
}

/* The whole element for host callers (tests, setup): form DT_HEX8X_FULL or _REDUCED, old and
 * st arrays of 8 or 1 states (old NULL for an elastic material; st may alias old). Returns the
 * worst status; f fully written. */
DT_HD static inline int dt_hex8x_forces(int form, const double X0[24], const double u[24],
                                        const dt_material_params *mat, const dt_mat_state *old,
                                        dt_mat_state *st, double kappa, double f[24],
                                        double *energy, double *e_hg, int *n_plastic) {
  int q, i, rc = DT_HEX8X_OK, r, pl = 0;
  if (form == DT_HEX8X_REDUCED) {
    r = dt_hex8x_reduced(X0, u, mat, old, st, kappa, f, energy, e_hg, &pl);
    *n_plastic = pl;
    return r;
  }
  for (i = 0; i < 24; i++) f[i] = 0.0;
  *energy = 0.0, *e_hg = 0.0, *n_plastic = 0;
  for (q = 0; q < 8; q++) {
    r = dt_hex8x_full_point(X0, u, q, mat, old ? &old[q] : (const dt_mat_state *)0, &st[q], f,
                            energy, &pl);
    if (r == DT_HEX8X_INVERTED) {
      for (i = 0; i < 24; i++) f[i] = 0.0;
      return r;
    }
    if (r > rc) rc = r;
    *n_plastic += pl;
  }
  return rc;
}

/* Lumped mass by row sums of the consistent mass: m_a = rho integral of N_a dV0 (2 x 2 x 2
 * Gauss, exact); rho V0 / 8 at every node of a parallelepiped. */
DT_HD static inline void dt_hex8x_lumped_mass(const double X0[24], double rho, double m[8]) {
  double C[9], xi[3], det;
  int q, a, k;
  for (a = 0; a < 8; a++) m[a] = 0.0;
  for (q = 0; q < 8; q++) {
    dt_hex8x_point(q, xi);
    det = dt_hex8x_jacobian(X0, xi, C);
    for (a = 0; a < 8; a++) {
      double N = 0.125;
      for (k = 0; k < 3; k++) N *= 1.0 + xi[k] * dt_hex8x_sign(a, k);
      m[a] += rho * N * det;
    }
  }
}

/* Characteristic length for the stable step dt = L / c: L = V0 / A_max, the volume over the
 * largest face area (each face's area |d13 x d24| / 2, exact for a flat face); for a box the
 * shortest edge. The caller's c: see dt_hex8x_wave_speed. */
DT_HD static inline double dt_hex8x_length(const double X0[24]) {
  const int fn[6][4] = {{0, 1, 2, 3}, {4, 7, 6, 5}, {0, 4, 5, 1},
                        {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 4, 0}};
  double b[24], V, A = 0.0;
  int s, k;
  V = dt_hex8x_mean_gradients(X0, b);
  for (s = 0; s < 6; s++) {
    double d1[3], d2[3], n[3], a;
    for (k = 0; k < 3; k++) {
      d1[k] = X0[3 * fn[s][2] + k] - X0[3 * fn[s][0] + k];
      d2[k] = X0[3 * fn[s][3] + k] - X0[3 * fn[s][1] + k];
    }
    n[0] = d1[1] * d2[2] - d1[2] * d2[1];
    n[1] = d1[2] * d2[0] - d1[0] * d2[2];
    n[2] = d1[0] * d2[1] - d1[1] * d2[0];
    a = 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (a > A) A = a;
  }
  return A > 0.0 ? V / A : 0.0;
}

/* The wave speed of the stable step: the larger of the dilatational speed sqrt((lambda + 2 mu)
 * / rho) and sqrt(3 K / rho). The first is exact for a plane wave through cubes (omega_max =
 * 2 c / h); the second is the uniform expansion of a lone cube (omega^2 = 12 K / (rho h^2)),
 * larger for nu > 0 (by 1.36 at nu = 0.3, up to sqrt(3) as nu -> 1/2), which a mesh of one
 * element through a dimension comes close to. */
DT_HD static inline double dt_hex8x_wave_speed(const dt_material_params *mat, double rho) {
  const double E = mat->E, nu = mat->nu;
  const double lm2 = E * (1.0 - nu) / ((1.0 + nu) * (1.0 - 2.0 * nu)), K3 = E / (1.0 - 2.0 * nu);
  return sqrt((lm2 > K3 ? lm2 : K3) / rho);
}

#endif
