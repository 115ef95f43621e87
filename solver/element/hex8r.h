/* hex8r: the 8-node hexahedron with one integration point and hourglass stiffness, as
 * CalculiX's C3D8R in static steps (Flanagan and Belytschko's uniform strain hexahedron with
 * their orthogonal hourglass vectors, Int. J. Num. Meth. Engng 17 (1981) 679-706; CalculiX
 * shape8hr.f, hgstiffness.f, hgforce.f). Include element/element.h first.
 *
 * The point's strain is the element's mean strain, from the uniform gradients
 *   b_a = (1 / V) integral of grad N_a dV       (exact by hex8's 2 x 2 x 2 rule: polynomial)
 * and its stress acts over the whole volume V. The one point leaves 12 zero-energy modes (the
 * four hourglass patterns h^k, node sign products eta zeta, xi zeta, xi eta, xi eta zeta, in
 * each of the three directions); the stiffness
 *   K_hg = c sum_k gamma^k gamma^k^T (x) I_3,   gamma^k_a = h^k_a - (sum_b h^k_b X_b) . b_a,
 *   c = 0.0005 E V sum_a |b_a|^2
 * holds them, CalculiX's (its factor 0.0005, E the material's Young's modulus; the hourglass
 * part is elastic for every material). gamma^k is orthogonal to every linear field, so K_hg
 * leaves homogeneous strains and rigid motions alone (patch test), and it acts on the total
 * displacement: f_hg = K_hg u. */
#ifndef DT_HEX8R_H
#define DT_HEX8R_H

#ifndef DT_ELEMENT_H
#error "include element/element.h before hex8r.h"
#endif

#define DT_HEX8R_HOURGLASS 0.0005 /* CalculiX's hourglass factor (shape8hr.f) */

/* The modulus M of the hourglass stiffness: CalculiX's elas(1), the first entry of the material
 * data its element routine gets: Young's modulus for a linear elastic material, the first
 * entry lambda + 2 mu of the elastic stiffness for any other (its 21 anisotropic constants). */
DT_HD static inline double dt_hex8r_modulus(const dt_material_params *m) {
  if (m->plastic == DT_PLASTIC_NONE) return m->E;
  return m->E * (1.0 - m->nu) / ((1.0 + m->nu) * (1.0 - 2.0 * m->nu));
}

/* Uniform gradients b (node-major, 3 per node) and the volume V; N, dN, dNdx: scratch of 8
 * nodes. Returns V (0 when a point's det J is not positive). */
DT_HD static inline double dt_hex8r_mean_gradients(const double *X, double *N, double *dN,
                                                   double *dNdx, double *b) {
  double V = 0.0;
  dt_elem_bbar_average_in(DT_HEX8, X, N, dN, dNdx, b, &V);
  return V;
}

/* Hourglass vectors gamma (gam[4 a + k]) from the coordinates X and the uniform gradients b;
 * returns the stiffness factor c for Young's modulus E and volume V. */
DT_HD static inline double dt_hex8r_hourglass(const double *X, const double *b, double V, double E,
                                              double gam[32]) {
  double h[4][8], bb = 0.0;
  int a, k, j;
  for (a = 0; a < 8; a++) {
    double s[3];
    dt_elem_node_xi(DT_HEX8, a, s);
    h[0][a] = s[1] * s[2];
    h[1][a] = s[0] * s[2];
    h[2][a] = s[0] * s[1];
    h[3][a] = s[0] * s[1] * s[2];
    for (j = 0; j < 3; j++) bb += b[3 * a + j] * b[3 * a + j];
  }
  for (k = 0; k < 4; k++) {
    double hx[3] = {0.0, 0.0, 0.0};
    for (a = 0; a < 8; a++)
      for (j = 0; j < 3; j++) hx[j] += h[k][a] * X[3 * a + j];
    for (a = 0; a < 8; a++)
      gam[4 * a + k] = h[k][a] - (hx[0] * b[3 * a] + hx[1] * b[3 * a + 1] + hx[2] * b[3 * a + 2]);
  }
  return DT_HEX8R_HOURGLASS * E * V * bb;
}

/* fe += K_hg ue, and Ke += K_hg when Ke is not NULL (24 x 24, row-major). */
DT_HD static inline void dt_hex8r_hourglass_add(const double gam[32], double c, const double *ue,
                                                double *fe, double *Ke) {
  int a, b, k, i;
  for (k = 0; k < 4; k++)
    for (i = 0; i < 3; i++) {
      double q = 0.0;
      for (a = 0; a < 8; a++) q += gam[4 * a + k] * ue[3 * a + i];
      for (a = 0; a < 8; a++) fe[3 * a + i] += c * gam[4 * a + k] * q;
    }
  if (!Ke) return;
  for (a = 0; a < 8; a++)
    for (b = 0; b < 8; b++) {
      double s = 0.0;
      for (k = 0; k < 4; k++) s += gam[4 * a + k] * gam[4 * b + k];
      for (i = 0; i < 3; i++) Ke[(3 * a + i) * 24 + 3 * b + i] += c * s;
    }
}

#endif
