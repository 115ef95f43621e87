/* The MITC4 shell element (Dvorkin & Bathe 1984, Bathe & Dvorkin 1986; Bathe, Finite Element
 * Procedures; the equations summarised in the seed-001 digest, §1.3) for explicit dynamics: internal generalized forces, lumped mass,
 * characteristic length and a centre stress, written once for the CPU driver (gcc, OpenMP) and
 * the CUDA kernel (nvcc, one thread per element). STYLE.md §3: DT_HD static inline functions in
 * the common subset of C and C++, fixed-size arrays, no allocation, no I/O.
 *
 * Kinematics (Total Lagrangian, Green-Lagrange strain, second Piola-Kirchhoff stress):
 *   x(r, s, zeta) = sum_a N_a(r, s) (x_a + z D_a),   z = zeta h / 2,   zeta in [-1, 1],
 * with mid-surface nodes x_a and unit directors D_a (X0_a, D0_a in the reference), uniform
 * thickness h. Nodes are numbered counterclockwise as CalculiX/Abaqus S4 does: node a sits at
 * (r_a, s_a) = (-1,-1), (+1,-1), (+1,+1), (-1,+1) and N_a = (1 + r r_a)(1 + s s_a) / 4. Bathe's
 * numbering (node 1 at (+1,+1)) is this one under (r, s) -> (-r, -s), which maps the tying
 * points and the Gauss points onto themselves, so the element is the same. All vectors are
 * node-major: node a's components at [3a .. 3a+2], global axes.
 *
 * Strains. Covariant components eps_ij = (g_i . g_j - G_i . G_j) / 2 with g_r = dx/dr,
 * g_s = dx/ds, g_zeta = dx/dzeta, computed as G_i . u_j + ... from u_i = g_i - G_i so that small
 * strains keep their digits. The in-plane ones (rr, ss, rs) come from the displacements at the
 * point; the transverse shears are MITC4's assumed field from the tying points
 * A (0,+1), B (-1,0), C (0,-1), D (+1,0), at the point's zeta:
 *   eps~_rz = (1+s)/2 eps_rz(A) + (1-s)/2 eps_rz(C),  eps~_sz = (1+r)/2 eps_sz(D) + (1-r)/2 eps_sz(B).
 * eps_zz is not used. They go to the local Cartesian frame of the point, e3 = unit(G_r x G_s) of
 * the reference mid-surface, e1 = G_r / |G_r|, e2 = e3 x e1, by
 *   ebar_ab = eps_ij T_ia T_jb,   T_ia = G^i . e_a   (G^i the contravariant reference vectors).
 *
 * Material. The local strain (e11, e22, e33, 2e12, 2e13, 2e23) goes through the 3D law
 * (material/update.h) with e33 found by Newton so that S33 = 0 (plane stress); the transverse
 * shear stresses it returns are then scaled by k = 5/6. For an elastic material this is
 *   S11 = E/(1-nu^2)(e11 + nu e22), S22 = ..., S12 = G 2e12, S_a3 = k G 2e_a3.
 * Plastic points see the unscaled transverse shear in the yield function and keep it in their
 * history, the usual approximation for Reissner-Mindlin shells with a 3D return mapping.
 *
 * Forces. With S^ij = T_ia Sbar_ab T_jb, the internal virtual work is
 *   dW = sum_points w det(J0) [S^rr deps_rr + S^ss deps_ss + 2 S^rs deps_rs
 *                               + 2 S^rz deps~_rz + 2 S^sz deps~_sz],
 * deps_ij = (dg_i . g_j + g_i . dg_j) / 2, dg_r = sum_a N_a,r (dx_a + z dD_a),
 * dg_zeta = h/2 sum_a N_a dD_a; the outputs are dW/dx_a and dW/dD_a. For an elastic material W
 * is the strain energy and the forces are its exact gradient (tests/unit/test_mitc4.c checks
 * them against finite differences).
 *
 * Rotations. The caller keeps at each node a director vn and a basis (v1, v2, vn)
 * (dt_mitc4_node_basis initialises it; dt_mitc4_rotate turns all three by a rotation vector).
 * A rotation theta = alpha v1 + beta v2 moves the director by dD = -alpha v2 + beta v1 (since
 * v1 x vn = -v2, v2 x vn = v1), so the two moments conjugate to (alpha, beta) are
 *   m_alpha = dW/dalpha = -fd . v2,   m_beta = dW/dbeta = fd . v1,
 * internal forces with the same sign as fx (the residual is f_ext - f_int). The drilling
 * rotation about vn has no stiffness and no moment.
 *
 * Integration: 2 x 2 Gauss in-plane (point g at (r, s) = (r_g, s_g) / sqrt(3), in node order:
 * (-,-), (+,-), (+,+), (-,+)) times n_layers Gauss-Legendre points through the thickness
 * (2..5, layer 0 at the bottom, zeta < 0); history point index q = g * n_layers + layer. */
#ifndef DT_SHELL_MITC4_H
#define DT_SHELL_MITC4_H

#include <math.h>

#include "core/hd.h"
#include "material/update.h"

#define DT_MITC4_MAX_LAYERS 5        /* through-thickness Gauss points, 2..5 */
#define DT_MITC4_SHEAR_K (5.0 / 6.0) /* transverse shear correction factor */
#define DT_MITC4_E33_TOL 1.0e-12     /* plane stress Newton: |S33| <= tol |S| */
#define DT_MITC4_E33_MAX_ITER 20     /* plane stress Newton iterations before failing */

/* dt_mitc4_forces and dt_mitc4_centre_stress statuses */
#define DT_MITC4_OK 0
#define DT_MITC4_DEGENERATE 1 /* det J <= 0 at a point, or a zero-area mid-surface */
#define DT_MITC4_MATERIAL 2   /* a return mapping or the plane stress Newton failed */
#define DT_MITC4_ARGUMENT 3   /* n_layers outside 2..5, or no history for a plastic material */

DT_HD static inline double dt_mitc4_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

DT_HD static inline void dt_mitc4_cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* a <- a / |a|; returns |a| (a is left alone when it is 0). */
DT_HD static inline double dt_mitc4_normalize(double a[3]) {
  double n = sqrt(dt_mitc4_dot(a, a));
  if (n > 0.0) {
    a[0] /= n;
    a[1] /= n;
    a[2] /= n;
  }
  return n;
}

/* Orthonormal nodal basis (v1, v2, vn), right-handed, from a unit director vn:
 *   v1 = (e_y x vn) / |e_y x vn|, or (e_z x vn) / |e_z x vn| when |e_y x vn| < 1e-3
 *   (vn within 0.06 degrees of +-e_y; then |e_z x vn| > 0.999), v2 = vn x v1.
 * The e_y rule is Bathe's; the cut-off keeps the normalised cross product accurate to about
 * 1e-13 while any director gets a basis. The basis only parametrises the two rotations, so the
 * jump at the cut-off is harmless: the caller initialises it once and then rotates it. */
DT_HD static inline void dt_mitc4_node_basis(const double vn[3], double v1[3], double v2[3]) {
  v1[0] = vn[2]; /* e_y x vn = (vn_z, 0, -vn_x) */
  v1[1] = 0.0;
  v1[2] = -vn[0];
  if (v1[0] * v1[0] + v1[2] * v1[2] < 1.0e-6) {
    v1[0] = -vn[1]; /* e_z x vn = (-vn_y, vn_x, 0) */
    v1[1] = vn[0];
    v1[2] = 0.0;
  }
  dt_mitc4_normalize(v1);
  dt_mitc4_cross(vn, v1, v2);
}

/* out = R(th) a, R = I + (sin t / t) [th]x + ((1 - cos t) / t^2) [th]x^2, t = |th| (Rodrigues,
 * exact for any angle). (1 - cos t) / t^2 is evaluated as (sin(t/2) / t)^2 * 2, free of
 * cancellation; below t = 1e-6 both factors use their series 1 - t^2/6 and 1/2 - t^2/24, whose
 * error (t^4) is below rounding there. out may alias a. */
DT_HD static inline void dt_mitc4_rotate(const double th[3], const double a[3], double out[3]) {
  double t2 = dt_mitc4_dot(th, th), t = sqrt(t2), c1, c2, ta[3], tta[3], hs;
  int i;
  if (t < 1.0e-6) {
    c1 = 1.0 - t2 / 6.0;
    c2 = 0.5 - t2 / 24.0;
  } else {
    c1 = sin(t) / t;
    hs = sin(0.5 * t) / t;
    c2 = 2.0 * hs * hs;
  }
  dt_mitc4_cross(th, a, ta);
  dt_mitc4_cross(th, ta, tta);
  for (i = 0; i < 3; i++) out[i] = a[i] + c1 * ta[i] + c2 * tta[i];
}

/* Gauss-Legendre point i of n (2..5) on [-1, 1], ascending: *zeta and *w. Returns 0, or 1 for
 * an n outside 2..5. A switch, not a table: the headers keep no file-scope arrays. */
DT_HD static inline int dt_mitc4_gauss(int n, int i, double *zeta, double *w) {
  double z = 0.0, wt = 0.0;
  int j = i < n - 1 - i ? i : n - 1 - i; /* distance from the nearer end */
  double sgn = 2 * i < n - 1 ? -1.0 : 1.0;
  switch (n) {
  case 2: z = 0.57735026918962576, wt = 1.0; break;
  case 3:
    if (j == 0)
      z = 0.77459666924148338, wt = 5.0 / 9.0;
    else
      z = 0.0, wt = 8.0 / 9.0;
    break;
  case 4:
    if (j == 0)
      z = 0.86113631159405258, wt = 0.34785484513745386;
    else
      z = 0.33998104358485626, wt = 0.65214515486254614;
    break;
  case 5:
    if (j == 0)
      z = 0.90617984593866399, wt = 0.23692688505618909;
    else if (j == 1)
      z = 0.53846931010568309, wt = 0.47862867049936647;
    else
      z = 0.0, wt = 0.56888888888888889;
    break;
  default: return 1;
  }
  *zeta = sgn * z;
  *w = wt;
  return (i >= 0 && i < n) ? 0 : 1;
}

/* Point i of n through the thickness, on [-1, 1], ascending. Elastic materials: Gauss-Legendre
 * (2 points integrate the linear stress exactly). Plastic materials with 3 or 5 points:
 * Simpson's rule, the surfaces included (Abaqus's default for shells): it integrates a fully
 * plastic section's moment exactly (|zeta| is linear between its points), where 5 Gauss points
 * give 0.9448 of it, which made plastic bending 5-8 % weak against CalculiX's solids
 * (tests/explicit/ccx_plastic.py); even counts stay Gauss. */
DT_HD static inline int dt_mitc4_thickness_point(int n, int i, int plastic, double *zeta,
                                                 double *w) {
  if (plastic && n == 3) {
    *zeta = (double)(i - 1);
    *w = i == 1 ? 4.0 / 3.0 : 1.0 / 3.0;
    return (i >= 0 && i < 3) ? 0 : 1;
  }
  if (plastic && n == 5) {
    *zeta = 0.5 * (double)(i - 2);
    *w = (i == 0 || i == 4) ? 1.0 / 6.0 : (i == 2 ? 2.0 / 6.0 : 4.0 / 6.0);
    return (i >= 0 && i < 5) ? 0 : 1;
  }
  return dt_mitc4_gauss(n, i, zeta, w);
}

/* Shape functions N[4] and their derivatives Nr = dN/dr, Ns = dN/ds at (r, s). */
DT_HD static inline void dt_mitc4_shape(double r, double s, double N[4], double Nr[4],
                                        double Ns[4]) {
  double ra[4], sa[4];
  int a;
  ra[0] = -1.0, ra[1] = 1.0, ra[2] = 1.0, ra[3] = -1.0;
  sa[0] = -1.0, sa[1] = -1.0, sa[2] = 1.0, sa[3] = 1.0;
  for (a = 0; a < 4; a++) {
    N[a] = 0.25 * (1.0 + r * ra[a]) * (1.0 + s * sa[a]);
    Nr[a] = 0.25 * ra[a] * (1.0 + s * sa[a]);
    Ns[a] = 0.25 * (1.0 + r * ra[a]) * sa[a];
  }
}

/* out = sum_a w_a v_a, or sum_a w_a (v_a - b_a) when b is not NULL (node-major v, b). */
DT_HD static inline void dt_mitc4_sum(const double v[12], const double *b, const double w[4],
                                      double out[3]) {
  int a, i;
  for (i = 0; i < 3; i++) {
    out[i] = 0.0;
    for (a = 0; a < 4; a++) out[i] += w[a] * (v[3 * a + i] - (b ? b[3 * a + i] : 0.0));
  }
}

/* Point (a tying point or the centre) on the mid-surface: the covariant transverse shear
 * eps_dz(z) = e0 + z e1 along direction dir (0: r, eps_rz; 1: s, eps_sz) at (r, s), where
 * 2 eps_dz = G_d . u_zeta + u_d . g_zeta (z-linear: G_d = A + z B, u_d = U + z V). */
DT_HD static inline void dt_mitc4_covariant_shear(const double X0[12], const double D0[12],
                                                  const double x[12], const double D[12], double h,
                                                  double r, double s, int dir, double *e0,
                                                  double *e1) {
  double N[4], Nr[4], Ns[4], A[3], B[3], U[3], V[3], uz[3], gz[3];
  const double *Nd;
  int i;
  dt_mitc4_shape(r, s, N, Nr, Ns);
  Nd = dir == 0 ? Nr : Ns;
  dt_mitc4_sum(X0, 0, Nd, A); /* reference mid-surface tangent */
  dt_mitc4_sum(D0, 0, Nd, B); /* its z-derivative */
  dt_mitc4_sum(x, X0, Nd, U); /* displacement gradient of the mid-surface */
  dt_mitc4_sum(D, D0, Nd, V);
  dt_mitc4_sum(D, D0, N, uz); /* u_zeta = h/2 sum N (D - D0) */
  dt_mitc4_sum(D, 0, N, gz);  /* g_zeta = h/2 sum N D */
  for (i = 0; i < 3; i++) uz[i] *= 0.5 * h, gz[i] *= 0.5 * h;
  *e0 = 0.5 * (dt_mitc4_dot(A, uz) + dt_mitc4_dot(U, gz));
  *e1 = 0.5 * (dt_mitc4_dot(B, uz) + dt_mitc4_dot(V, gz));
}

/* Tying point t = 0..3 (A, B, C, D): (r, s) and the shear it ties (0: eps_rz, 1: eps_sz). */
DT_HD static inline int dt_mitc4_tying_point(int t, double *r, double *s) {
  *r = t == 1 ? -1.0 : (t == 3 ? 1.0 : 0.0);
  *s = t == 0 ? 1.0 : (t == 2 ? -1.0 : 0.0);
  return t & 1;
}

/* The tying strains e0[t] + z e1[t] at A, B, C, D (A, C: eps_rz; B, D: eps_sz). */
DT_HD static inline void dt_mitc4_tying(const double X0[12], const double D0[12],
                                        const double x[12], const double D[12], double h,
                                        double e0[4], double e1[4]) {
  double r, s;
  int t, dir;
  for (t = 0; t < 4; t++) {
    dir = dt_mitc4_tying_point(t, &r, &s);
    dt_mitc4_covariant_shear(X0, D0, x, D, h, r, s, dir, &e0[t], &e1[t]);
  }
}

/* What an in-plane point (r, s) needs for all its layers: the reference mid-surface tangents
 * Ar, As, their z-derivatives Br, Bs, G_zeta = Gz, the displacement gradients Ur, Us (mid-surface)
 * and Vr, Vs (directors), the local frame's e1 and e3 (e2 = e3 x e1), and (r, s) itself. */
typedef struct dt_mitc4_geom {
  double Ar[3], As[3], Br[3], Bs[3], Gz[3], Ur[3], Us[3], Vr[3], Vs[3];
  double e1[3], e3[3];
  double r, s;
} dt_mitc4_geom;

/* Fills g at (r, s); returns |Ar x As| (0: degenerate mid-surface). */
DT_HD static inline double dt_mitc4_geometry(const double X0[12], const double D0[12],
                                             const double x[12], const double D[12], double h,
                                             double r, double s, dt_mitc4_geom *g) {
  double N[4], Nr[4], Ns[4], area;
  int i;
  dt_mitc4_shape(r, s, N, Nr, Ns);
  g->r = r;
  g->s = s;
  dt_mitc4_sum(X0, 0, Nr, g->Ar);
  dt_mitc4_sum(X0, 0, Ns, g->As);
  dt_mitc4_sum(D0, 0, Nr, g->Br);
  dt_mitc4_sum(D0, 0, Ns, g->Bs);
  dt_mitc4_sum(D0, 0, N, g->Gz);
  for (i = 0; i < 3; i++) g->Gz[i] *= 0.5 * h;
  dt_mitc4_sum(x, X0, Nr, g->Ur);
  dt_mitc4_sum(x, X0, Ns, g->Us);
  dt_mitc4_sum(D, D0, Nr, g->Vr);
  dt_mitc4_sum(D, D0, Ns, g->Vs);
  dt_mitc4_cross(g->Ar, g->As, g->e3); /* e3 = unit(Ar x As), e1 = unit(Ar) */
  area = dt_mitc4_normalize(g->e3);
  for (i = 0; i < 3; i++) g->e1[i] = g->Ar[i];
  dt_mitc4_normalize(g->e1);
  return area;
}

/* The local strain at layer coordinate z = zeta h / 2 of the point of g: eps[6] =
 * (e11, e22, 0, 2e12, 2e13, 2e23) in the local frame (e33 is the plane stress unknown),
 * T[9] = T_ia at [3i + a] (i = r, s, zeta), the current tangents gr, gs, and det J0 (returned;
 * eps and T are not set when it is <= 0). e0, e1: the tying strains. */
DT_HD static inline double dt_mitc4_point_strain(const dt_mitc4_geom *g, const double e0[4],
                                                 const double e1[4], double z, double T[9],
                                                 double eps[6], double gr[3], double gs[3]) {
  double Gr[3], Gs[3], ur[3], us[3], c[3], det, er[9], tmp[9], ec[3][3], e2[3];
  const double *e[3];
  int i, a, b;
  for (i = 0; i < 3; i++) {
    Gr[i] = g->Ar[i] + z * g->Br[i]; /* G_r = Ar + z Br */
    Gs[i] = g->As[i] + z * g->Bs[i];
    ur[i] = g->Ur[i] + z * g->Vr[i]; /* u_r = g_r - G_r */
    us[i] = g->Us[i] + z * g->Vs[i];
    gr[i] = Gr[i] + ur[i];
    gs[i] = Gs[i] + us[i];
  }
  dt_mitc4_cross(Gs, g->Gz, c);
  det = dt_mitc4_dot(Gr, c); /* det J0 = G_r . (G_s x G_zeta) */
  if (!(det > 0.0)) return det;
  dt_mitc4_cross(g->e3, g->e1, e2); /* e2 = e3 x e1 */
  e[0] = g->e1, e[1] = e2, e[2] = g->e3;
  for (a = 0; a < 3; a++) T[0 * 3 + a] = dt_mitc4_dot(c, e[a]) / det; /* G^r = Gs x Gz / det */
  dt_mitc4_cross(g->Gz, Gr, c);
  for (a = 0; a < 3; a++) T[1 * 3 + a] = dt_mitc4_dot(c, e[a]) / det; /* G^s = Gz x Gr / det */
  dt_mitc4_cross(Gr, Gs, c);
  for (a = 0; a < 3; a++) T[2 * 3 + a] = dt_mitc4_dot(c, e[a]) / det; /* G^z = Gr x Gs / det */
  /* covariant eps_ij (symmetric, eps_zz = 0) */
  ec[0][0] = dt_mitc4_dot(Gr, ur) + 0.5 * dt_mitc4_dot(ur, ur);
  ec[1][1] = dt_mitc4_dot(Gs, us) + 0.5 * dt_mitc4_dot(us, us);
  ec[0][1] = ec[1][0] = 0.5 * (dt_mitc4_dot(Gr, us) + dt_mitc4_dot(ur, gs));
  ec[0][2] = ec[2][0] = 0.5 * (1.0 + g->s) * (e0[0] + z * e1[0]) + /* eps~_rz: A, C */
                        0.5 * (1.0 - g->s) * (e0[2] + z * e1[2]);
  ec[1][2] = ec[2][1] = 0.5 * (1.0 + g->r) * (e0[3] + z * e1[3]) + /* eps~_sz: D, B */
                        0.5 * (1.0 - g->r) * (e0[1] + z * e1[1]);
  ec[2][2] = 0.0;
  for (i = 0; i < 3; i++) /* tmp = eps T */
    for (b = 0; b < 3; b++)
      tmp[i * 3 + b] = ec[i][0] * T[b] + ec[i][1] * T[3 + b] + ec[i][2] * T[6 + b];
  for (a = 0; a < 3; a++) /* ebar = T^T eps T */
    for (b = a; b < 3; b++)
      er[a * 3 + b] = T[a] * tmp[b] + T[3 + a] * tmp[3 + b] + T[6 + a] * tmp[6 + b];
  eps[0] = er[0];
  eps[1] = er[4];
  eps[2] = 0.0;
  eps[3] = 2.0 * er[1];
  eps[4] = 2.0 * er[2];
  eps[5] = 2.0 * er[5];
  return det;
}

/* Plane stress through the 3D law: given eps (e11, e22, ., 2e12, 2e13, 2e23), find e33 =
 * eps[2] with S33 = 0 by Newton, e33 <- e33 - S33 / (dS33/de33), from the elastic guess on the
 * committed plastic strain p: e33 = p33 - nu/(1-nu) (e11 - p11 + e22 - p22) (exact for an
 * elastic point). The slope is the consistent tangent's D[2][2] = K + 4/3 mu - gam n_zz^2 from
 * dt_tangent_form (the 3 + 6 numbers instead of the 36 of D: fewer registers on the GPU; for J2
 * the same value as D[2*6+2]; Mohr-Coulomb's form is its elastic tangent, which makes this a
 * modified Newton that may need more than 20 iterations: Mohr-Coulomb shells are not tested).
 * Converged when |S33| <= 1e-12 |S| + 1e-15 (lambda + 2G) |eps - p|_max (the second term is the
 * rounding floor of a return mapping from a trial stress much larger than the result). Then the
 * transverse shears sig[4], sig[5] are scaled by k = 5/6 (the history keeps the unscaled ones).
 * old: committed history (not modified); st: the updated history (may alias old only for an
 * elastic material, whose update copies old to st). Returns
 * a dt_mat_result: DT_MAT_ELASTIC, DT_MAT_PLASTIC or DT_MAT_NO_CONVERGENCE (failed return mapping,
 * or Newton not converged in 20 iterations); on failure sig = 0 and st = old, like j2.h. */
DT_HD static inline int dt_mitc4_plane_stress(const dt_material_params *m, const dt_mat_state *old,
                                              dt_mat_state *st, double eps[6], double sig[6]) {
  dt_tangent_form form;
  double G = dt_shear_modulus(m), lam2g = dt_bulk_modulus(m) + 4.0 * G / 3.0, nrm, emax = 0.0;
  double slope = 1.0;
  const double *p = old->eps_p;
  int it, i, res = DT_MAT_NO_CONVERGENCE;
  eps[2] = p[2] - m->nu / (1.0 - m->nu) * (eps[0] - p[0] + eps[1] - p[1]);
  if (m->plastic == DT_PLASTIC_NONE) { /* the closed form the Newton below converges to */
    const double Ep = m->E / (1.0 - m->nu * m->nu);
    sig[0] = Ep * (eps[0] + m->nu * eps[1]);
    sig[1] = Ep * (eps[1] + m->nu * eps[0]);
    sig[2] = 0.0;
    sig[3] = G * eps[3];
    sig[4] = DT_MITC4_SHEAR_K * G * eps[4];
    sig[5] = DT_MITC4_SHEAR_K * G * eps[5];
    if (st != old) *st = *old;
    return DT_MAT_ELASTIC;
  }
  for (i = 0; i < 6; i++) emax = fmax(emax, fabs(eps[i] - p[i]));
  for (it = 0; it < DT_MITC4_E33_MAX_ITER; it++) {
    res = dt_material_update_form(m, DT_STATE_3D, eps, old, st, sig, 0, &form);
    if (res == DT_MAT_NO_CONVERGENCE) return res; /* sig = 0, st = old (j2.h) */
    nrm = sqrt(sig[0] * sig[0] + sig[1] * sig[1] + sig[2] * sig[2] +
               2.0 * (sig[3] * sig[3] + sig[4] * sig[4] + sig[5] * sig[5]));
    if (fabs(sig[2]) <= DT_MITC4_E33_TOL * nrm + 1.0e-15 * lam2g * emax) break;
    slope = form.K + 4.0 * form.mu / 3.0 - form.gam * form.n[2] * form.n[2]; /* dS33/de33 */
    if (!(slope > 0.0)) break;
    eps[2] -= sig[2] / slope;
  }
  if (it == DT_MITC4_E33_MAX_ITER || !(slope > 0.0)) {
    for (i = 0; i < 6; i++) sig[i] = 0.0; /* as a failed return mapping leaves it */
    *st = *old;
    return DT_MAT_NO_CONVERGENCE;
  }
  sig[4] *= DT_MITC4_SHEAR_K;
  sig[5] *= DT_MITC4_SHEAR_K;
  return res;
}

/* Sc = T Sbar T^T (contravariant S^ij at [3i + j], i, j = r, s, zeta) from the local stress
 * sig (Voigt 11, 22, 33, 12, 13, 23). */
DT_HD static inline void dt_mitc4_contravariant(const double T[9], const double sig[6],
                                                double Sc[9]) {
  double Sb[9], tmp[9];
  int i, j;
  Sb[0] = sig[0], Sb[4] = sig[1], Sb[8] = sig[2];
  Sb[1] = Sb[3] = sig[3], Sb[2] = Sb[6] = sig[4], Sb[5] = Sb[7] = sig[5];
  for (i = 0; i < 3; i++) /* tmp = T Sbar */
    for (j = 0; j < 3; j++)
      tmp[i * 3 + j] = T[i * 3] * Sb[j] + T[i * 3 + 1] * Sb[3 + j] + T[i * 3 + 2] * Sb[6 + j];
  for (i = 0; i < 3; i++) /* Sc = tmp T^T */
    for (j = 0; j < 3; j++)
      Sc[i * 3 + j] =
          tmp[i * 3] * T[j * 3] + tmp[i * 3 + 1] * T[j * 3 + 1] + tmp[i * 3 + 2] * T[j * 3 + 2];
}

/* The tying points' share of the forces: with c0[t] = sum of the coefficients of deps(t) over
 * the points and c1[t] = the same weighted by z, deps(t) = (dg_d . g_zeta + g_d . dg_zeta) / 2
 * at the tying point gives
 *   fx_a += c0/2 N_a,d g_zeta,   fd_a += c1/2 N_a,d g_zeta + h/4 N_a (c0 a_d + c1 d_d)
 * with a_d = sum N_a,d x_a, d_d = sum N_a,d D_a, g_zeta = h/2 sum N_a D_a (current). */
DT_HD static inline void dt_mitc4_tying_forces(const double x[12], const double D[12], double h,
                                               const double c0[4], const double c1[4],
                                               double fx[12], double fd[12]) {
  double r, s, N[4], Nr[4], Ns[4], ad[3], dd[3], gz[3];
  const double *Nd;
  int t, a, i;
  for (t = 0; t < 4; t++) {
    Nd = dt_mitc4_tying_point(t, &r, &s) == 0 ? Nr : Ns;
    dt_mitc4_shape(r, s, N, Nr, Ns);
    dt_mitc4_sum(x, 0, Nd, ad);
    dt_mitc4_sum(D, 0, Nd, dd);
    dt_mitc4_sum(D, 0, N, gz);
    for (i = 0; i < 3; i++) gz[i] *= 0.5 * h;
    for (a = 0; a < 4; a++)
      for (i = 0; i < 3; i++) {
        fx[3 * a + i] += 0.5 * c0[t] * Nd[a] * gz[i];
        fd[3 * a + i] +=
            0.5 * c1[t] * Nd[a] * gz[i] + 0.25 * h * N[a] * (c0[t] * ad[i] + c1[t] * dd[i]);
      }
  }
}

/* Internal generalized forces of one element (see the file comment for the formulation).
 *   X0, D0     reference mid-surface nodes and unit directors (node-major, 12 each).
 *   x, D       current mid-surface nodes and unit directors.
 *   h          thickness; mat the material (elastic or any J2 hardening; Mohr-Coulomb runs but
 *              with a modified Newton for S33 = 0, see dt_mitc4_plane_stress).
 *   n_layers   Gauss points through the thickness, 2..5 (2 integrates an elastic shell exactly
 *              in the small-strain limit; plasticity wants more, e.g. 5).
 *   old        committed history of the 4 n_layers points (q = g n_layers + layer), or NULL for
 *              an elastic material (mat->plastic == 0).
 *   new_       the updated history (NULL allowed for an elastic material). It may alias old: each
 *              point reads its old entry before it writes its new one.
 *   fx, fd     dW/dx_a and dW/dD_a (global axes), fully written. Moments: dt_mitc4 file comment.
 *   energy     (may be NULL) sum over the points of w det J0 S : (E - E_p) / 2: the strain
 *              energy for an elastic material; for a plastic one the elastic (recoverable)
 *              part only, without the hardening's stored energy.
 *   n_plastic  (may be NULL) points whose update was plastic.
 * Returns DT_MITC4_OK; DT_MITC4_DEGENERATE (outputs zero) when det J0 <= 0 at a point or the
 * mid-surface has zero area; DT_MITC4_MATERIAL when a point's update failed (that point's stress
 * is zero, everything finite; the caller cuts the step); DT_MITC4_ARGUMENT for a bad n_layers or
 * a plastic material without old.
 * Cost (counted by hand, elastic): about 8,000 flops with 2 layers, 15,000 with 5 (~550 per
 * through-thickness point, ~3,800 per element for the tying points, geometry and assembly),
 * with ~10 divisions and a square root per point; a plastic point adds its return mapping
 * (~150 flops) per plane stress Newton pass, usually 2-4. On sm_90 the whole function inlined
 * into a one-thread-per-element kernel reading its inputs from global memory uses 255
 * registers and ~600 bytes of stack (~350 bytes spilled, mostly the J2 update's); accumulate fx,
 * fd in local arrays, not in global memory. */
DT_HD static inline int dt_mitc4_forces(const double X0[12], const double D0[12],
                                        const double x[12], const double D[12], double h,
                                        const dt_material_params *mat, int n_layers,
                                        const dt_mat_state *old, dt_mat_state *new_, double fx[12],
                                        double fd[12], double *energy, int *n_plastic) {
  const double gq = 0.57735026918962576; /* 1 / sqrt(3) */
  dt_mitc4_geom g;
  dt_mat_state st; /* a point's new history; also the zero history when old is NULL */
  double e0[4], e1[4], c0[4], c1[4], N[4], Nr[4], Ns[4], T[9], eps[6], sig[6], Sc[9], gr[3], gs[3];
  double Pr[3], Ps[3], Qr[3], Qs[3], zeta, wz, z, wd, W = 0.0, pr, ps;
  int gp, l, i, a, q, res, status = DT_MITC4_OK, nplas = 0;
  for (i = 0; i < 12; i++) fx[i] = fd[i] = 0.0;
  if (energy) *energy = 0.0;
  if (n_plastic) *n_plastic = 0;
  if (n_layers < 2 || n_layers > DT_MITC4_MAX_LAYERS || (mat->plastic && !old))
    return DT_MITC4_ARGUMENT;
  for (i = 0; i < 6; i++) st.eps_p[i] = st.beta[i] = 0.0;
  st.p = 0.0;
  dt_mitc4_tying(X0, D0, x, D, h, e0, e1);
  for (i = 0; i < 4; i++) c0[i] = c1[i] = 0.0;
  for (gp = 0; gp < 4; gp++) {
    if (!(dt_mitc4_geometry(X0, D0, x, D, h, (gp == 0 || gp == 3) ? -gq : gq, gp < 2 ? -gq : gq,
                            &g) > 0.0))
      goto degenerate;
    for (i = 0; i < 3; i++) Pr[i] = Ps[i] = Qr[i] = Qs[i] = 0.0;
    for (l = 0; l < n_layers; l++) {
      q = gp * n_layers + l;
      dt_mitc4_thickness_point(n_layers, l, mat->plastic != DT_PLASTIC_NONE, &zeta, &wz);
      z = 0.5 * h * zeta;
      wd = dt_mitc4_point_strain(&g, e0, e1, z, T, eps, gr, gs);
      if (!(wd > 0.0)) goto degenerate;
      wd *= wz; /* in-plane Gauss weights are 1 */
      /* elastic without history: st stays the zero state (an elastic update copies old) */
      res = dt_mitc4_plane_stress(mat, old ? &old[q] : &st, &st, eps, sig);
      if (res == DT_MAT_NO_CONVERGENCE) status = DT_MITC4_MATERIAL;
      if (res == DT_MAT_PLASTIC) nplas++;
      if (new_) new_[q] = st;
      for (i = 0; i < 6; i++) W += 0.5 * wd * sig[i] * (eps[i] - st.eps_p[i]);
      dt_mitc4_contravariant(T, sig, Sc);
      for (i = 0; i < 3; i++) {
        pr = wd * (Sc[0] * gr[i] + Sc[1] * gs[i]); /* S^rr g_r + S^rs g_s */
        ps = wd * (Sc[4] * gs[i] + Sc[1] * gr[i]); /* S^ss g_s + S^rs g_r */
        Pr[i] += pr, Ps[i] += ps, Qr[i] += z * pr, Qs[i] += z * ps;
      }
      /* 2 S^rz deps~_rz = S^rz ((1+s) deps_A + (1-s) deps_C), likewise S^sz with D, B */
      c0[0] += wd * Sc[2] * (1.0 + g.s), c1[0] += z * wd * Sc[2] * (1.0 + g.s);
      c0[2] += wd * Sc[2] * (1.0 - g.s), c1[2] += z * wd * Sc[2] * (1.0 - g.s);
      c0[3] += wd * Sc[5] * (1.0 + g.r), c1[3] += z * wd * Sc[5] * (1.0 + g.r);
      c0[1] += wd * Sc[5] * (1.0 - g.r), c1[1] += z * wd * Sc[5] * (1.0 - g.r);
    }
    dt_mitc4_shape(g.r, g.s, N, Nr, Ns);
    for (a = 0; a < 4; a++) /* dg_r = sum N_a,r (dx_a + z dD_a) */
      for (i = 0; i < 3; i++) {
        fx[3 * a + i] += Nr[a] * Pr[i] + Ns[a] * Ps[i];
        fd[3 * a + i] += Nr[a] * Qr[i] + Ns[a] * Qs[i];
      }
  }
  dt_mitc4_tying_forces(x, D, h, c0, c1, fx, fd);
  if (energy) *energy = W;
  if (n_plastic) *n_plastic = nplas;
  return status;

degenerate:
  for (i = 0; i < 12; i++) fx[i] = fd[i] = 0.0;
  return DT_MITC4_DEGENERATE;
}

/* Lumped mass: m_trans[a] = rho h A_a, m_rot[a] = rho h^3 / 12 A_a with the area share
 * A_a = integral of N_a over the reference mid-surface (2 x 2 Gauss, |G_r x G_s| dr ds), which
 * sums to the area. The rotary inertia is the physical one; the caller may scale it up. */
DT_HD static inline void dt_mitc4_lumped_mass(const double X0[12], double h, double rho,
                                              double m_trans[4], double m_rot[4]) {
  const double gq = 0.57735026918962576;
  double N[4], Nr[4], Ns[4], Ar[3], As[3], n[3], dA;
  int gp, a;
  for (a = 0; a < 4; a++) m_trans[a] = 0.0;
  for (gp = 0; gp < 4; gp++) {
    dt_mitc4_shape((gp == 0 || gp == 3) ? -gq : gq, gp < 2 ? -gq : gq, N, Nr, Ns);
    dt_mitc4_sum(X0, 0, Nr, Ar);
    dt_mitc4_sum(X0, 0, Ns, As);
    dt_mitc4_cross(Ar, As, n);
    dA = sqrt(dt_mitc4_dot(n, n)); /* Gauss weight 1 */
    for (a = 0; a < 4; a++) m_trans[a] += N[a] * dA;
  }
  for (a = 0; a < 4; a++) {
    m_rot[a] = rho * h * h * h / 12.0 * m_trans[a];
    m_trans[a] *= rho * h;
  }
}

/* Characteristic length for the stable time step dt = gamma L / c, c = sqrt(E / (rho (1 -
 * nu^2))): L = A / max(|d13|, |d24|), the area over the longer diagonal (Belytschko's shell
 * measure, LS-DYNA's ISDO = 1), with A = |d13 x d24| / 2 (exact for a flat quadrilateral, the
 * projected area of a warped one). For a square of side a, L = a / sqrt(2): the same as the
 * maximum eigenvalue of a lumped bilinear square, omega_max = 2 sqrt(2) c / a. */
DT_HD static inline double dt_mitc4_length(const double X0[12]) {
  double d13[3], d24[3], n[3], l13, l24;
  int i;
  for (i = 0; i < 3; i++) {
    d13[i] = X0[6 + i] - X0[i];
    d24[i] = X0[9 + i] - X0[3 + i];
  }
  dt_mitc4_cross(d13, d24, n);
  l13 = sqrt(dt_mitc4_dot(d13, d13));
  l24 = sqrt(dt_mitc4_dot(d24, d24));
  return 0.5 * sqrt(dt_mitc4_dot(n, n)) / (l13 > l24 ? l13 : l24);
}

/* A symmetric local tensor Vb (3x3, on the frame f = (e1', e2', e3'), rows) in global axes:
 * out[6] = (xx, yy, zz, xy, xz, yz) with the shears times `shear` (1: tensor, 2: engineering). */
DT_HD static inline void dt_mitc4_to_global(const double Vb[9], const double f[9], double shear,
                                            double out[6]) {
  int i, j, a, b;
  for (i = 0; i < 6; i++) out[i] = 0.0;
  for (a = 0; a < 3; a++) /* v_ij = sum_ab Vbar_ab f_a,i f_b,j */
    for (b = 0; b < 3; b++)
      for (i = 0; i < 3; i++)
        for (j = i; j < 3; j++) {
          double v = Vb[a * 3 + b] * f[3 * a + i] * f[3 * b + j];
          if (i == j)
            out[i] += v;
          else
            out[i + j + 2] += shear * v; /* (0,1) -> 3, (0,2) -> 4, (1,2) -> 5 */
        }
}

/* Output stress at the element centre (r = s = 0) at the thickness coordinate zeta (-1 the
 * bottom surface, 0 the mid-surface, +1 the top, on the director's side): the local second
 * Piola-Kirchhoff stress Sbar (plane stress, transverse shears with k) placed on the CURRENT
 * local frame of the centre (e3' = unit(g_r x g_s), e1' = unit(g_r), e2' = e3' x e1') and written
 * in global axes, sig[6] = (xx, yy, zz, xy, xz, yz) tensor components. That rotates the stress
 * with the element (exact for a rigid motion, Cauchy's stress to first order in the strain); it is
 * an output quantity only, not the stress the forces use. strain (may be NULL): the local
 * Green-Lagrange strain there (e33 from plane stress) on the same frame, engineering shears.
 *   hist: the history to evaluate the material from, e.g. the committed new_ of a point at that
 *         zeta (re-running J2 from a converged state at its strain returns its stress); NULL
 *         for an elastic material. Returns DT_MITC4_OK, _DEGENERATE, _MATERIAL or _ARGUMENT. */
DT_HD static inline int dt_mitc4_centre_stress(const double X0[12], const double D0[12],
                                               const double x[12], const double D[12], double h,
                                               double zeta, const dt_material_params *mat,
                                               const dt_mat_state *hist, double sig[6],
                                               double strain[6]) {
  dt_mitc4_geom g;
  dt_mat_state zero, st;
  double e0[4], e1[4], T[9], eps[6], S[6], gr[3], gs[3], f[9], Vb[9];
  int i, res;
  for (i = 0; i < 6; i++) sig[i] = 0.0;
  if (strain)
    for (i = 0; i < 6; i++) strain[i] = 0.0;
  if (mat->plastic && !hist) return DT_MITC4_ARGUMENT;
  for (i = 0; i < 6; i++) zero.eps_p[i] = zero.beta[i] = 0.0;
  zero.p = 0.0;
  dt_mitc4_tying(X0, D0, x, D, h, e0, e1);
  if (!(dt_mitc4_geometry(X0, D0, x, D, h, 0.0, 0.0, &g) > 0.0)) return DT_MITC4_DEGENERATE;
  if (!(dt_mitc4_point_strain(&g, e0, e1, 0.5 * h * zeta, T, eps, gr, gs) > 0.0))
    return DT_MITC4_DEGENERATE;
  res = dt_mitc4_plane_stress(mat, hist ? hist : &zero, &st, eps, S);
  if (res == DT_MAT_NO_CONVERGENCE) return DT_MITC4_MATERIAL;
  dt_mitc4_cross(gr, gs, f + 6); /* current frame f = (e1', e2', e3') */
  for (i = 0; i < 3; i++) f[i] = gr[i];
  if (!(dt_mitc4_normalize(f + 6) > 0.0) || !(dt_mitc4_normalize(f) > 0.0))
    return DT_MITC4_DEGENERATE;
  dt_mitc4_cross(f + 6, f, f + 3);
  Vb[0] = S[0], Vb[4] = S[1], Vb[8] = S[2];
  Vb[1] = Vb[3] = S[3], Vb[2] = Vb[6] = S[4], Vb[5] = Vb[7] = S[5];
  dt_mitc4_to_global(Vb, f, 1.0, sig);
  if (strain) { /* engineering shears in eps: the tensor's are half */
    Vb[0] = eps[0], Vb[4] = eps[1], Vb[8] = eps[2];
    Vb[1] = Vb[3] = 0.5 * eps[3], Vb[2] = Vb[6] = 0.5 * eps[4], Vb[5] = Vb[7] = 0.5 * eps[5];
    dt_mitc4_to_global(Vb, f, 2.0, strain);
  }
  return DT_MITC4_OK;
}

#endif
