/* Shape functions of the element library. Include element/element.h, not this file.
 *
 * N[a] and dN[a*3+k] = dN_a/dxi_k at reference point xi; 2D types leave dN[a*3+2] = 0.
 * Reference domains: hex8 [-1,1]^3, quad4 [-1,1]^2, tets and tri3 the unit simplex in
 * natural coordinates with node 1 at the origin. */
#ifndef DT_ELEMENT_SHAPE_H
#define DT_ELEMENT_SHAPE_H

#ifndef DT_ELEMENT_H
#error "include element/element.h instead of element_shape.h"
#endif

/* Endpoints (0-based local nodes) of tet10 midside node 4 + m: 5:(1-2) 6:(2-3) 7:(3-1)
 * 8:(1-4) 9:(2-4) 10:(3-4) in 1-based CalculiX numbering. */
DT_HD static inline void dt_tet10_edge(int m, int *i, int *j) {
  const int e0[6] = {0, 1, 2, 0, 1, 2};
  const int e1[6] = {1, 2, 0, 3, 3, 3};
  *i = e0[m];
  *j = e1[m];
}

/* Corner a of the unit simplex: the origin, then xi_{a-1} = 1. */
DT_HD static inline void dt_simplex_node_xi(int a, double xi[3]) {
  xi[0] = xi[1] = xi[2] = 0.0;
  if (a >= 1) xi[a - 1] = 1.0;
}

/* Reference coordinates of local node a (0-based). */
DT_HD static inline void dt_elem_node_xi(int type, int a, double xi[3]) {
  /* hex8/quad4 corner signs: bottom face counterclockwise, then the top face */
  const double sx[8] = {-1, 1, 1, -1, -1, 1, 1, -1};
  const double sy[8] = {-1, -1, 1, 1, -1, -1, 1, 1};
  const double sz[8] = {-1, -1, -1, -1, 1, 1, 1, 1};
  double xj[3];
  int i, j, k;
  xi[0] = xi[1] = xi[2] = 0.0;
  switch (type) {
  case DT_HEX8: xi[0] = sx[a]; xi[1] = sy[a]; xi[2] = sz[a]; break;
  case DT_QUAD4: xi[0] = sx[a]; xi[1] = sy[a]; break;
  case DT_TET4:
  case DT_TRI3: dt_simplex_node_xi(a, xi); break;
  case DT_TET10:
    dt_simplex_node_xi(a < 4 ? a : 0, xi);
    if (a >= 4) { /* midside node: halfway between the edge's corners */
      dt_tet10_edge(a - 4, &i, &j);
      dt_simplex_node_xi(i, xi);
      dt_simplex_node_xi(j, xj);
      for (k = 0; k < 3; k++) xi[k] = 0.5 * (xi[k] + xj[k]);
    }
    break;
  }
}

/* Trilinear hex8 (dim 3) or bilinear quad4 (dim 2):
 * N_a = prod_k (1 + xi_k xi_k^a) / 2^dim, dN_a/dxi_k = xi_k^a prod_{l != k} (...) / 2^dim */
DT_HD static inline void dt_lagrange1_shape(int type, int dim, const double xi[3], double *N,
                                            double *dN) {
  const double scale = dim == 3 ? 0.125 : 0.25;
  double s[3], f[3];
  int a, k, n = dt_elem_nnodes(type);
  for (a = 0; a < n; a++) {
    dt_elem_node_xi(type, a, s);
    for (k = 0; k < 3; k++) f[k] = k < dim ? 1.0 + xi[k] * s[k] : 1.0;
    N[a] = scale * f[0] * f[1] * f[2];
    dN[a * 3 + 0] = scale * s[0] * f[1] * f[2];
    dN[a * 3 + 1] = scale * s[1] * f[0] * f[2];
    dN[a * 3 + 2] = dim == 3 ? scale * s[2] * f[0] * f[1] : 0.0;
  }
}

/* Barycentric coordinates of the unit simplex, L = (1 - sum xi, xi_0, .., xi_{dim-1}), and
 * their constant gradients dL[i*3+k] = dL_i/dxi_k. */
DT_HD static inline void dt_simplex_coords(int dim, const double xi[3], double *L, double *dL) {
  int i, k;
  L[0] = 1.0;
  for (k = 0; k < 3; k++) dL[k] = k < dim ? -1.0 : 0.0;
  for (i = 1; i <= dim; i++) {
    L[i] = xi[i - 1];
    L[0] -= xi[i - 1];
    for (k = 0; k < 3; k++) dL[i * 3 + k] = (k == i - 1) ? 1.0 : 0.0;
  }
}

/* Quadratic tet10: corners N_i = L_i (2 L_i - 1), midsides N = 4 L_i L_j;
 * dN_i = (4 L_i - 1) dL_i, dN_ij = 4 (L_j dL_i + L_i dL_j). */
DT_HD static inline void dt_tet10_shape(const double xi[3], double *N, double *dN) {
  double L[4], dL[12];
  int a, i, j, k;
  dt_simplex_coords(3, xi, L, dL);
  for (a = 0; a < 4; a++) {
    N[a] = L[a] * (2.0 * L[a] - 1.0);
    for (k = 0; k < 3; k++) dN[a * 3 + k] = (4.0 * L[a] - 1.0) * dL[a * 3 + k];
  }
  for (a = 4; a < 10; a++) {
    dt_tet10_edge(a - 4, &i, &j);
    N[a] = 4.0 * L[i] * L[j];
    for (k = 0; k < 3; k++) dN[a * 3 + k] = 4.0 * (L[j] * dL[i * 3 + k] + L[i] * dL[j * 3 + k]);
  }
}

/* Shape functions N[a] and reference derivatives dN[a*3+k] at xi. */
DT_HD static inline void dt_elem_shape(int type, const double xi[3], double *N, double *dN) {
  switch (type) {
  case DT_HEX8: dt_lagrange1_shape(type, 3, xi, N, dN); break;
  case DT_QUAD4: dt_lagrange1_shape(type, 2, xi, N, dN); break;
  case DT_TET4: dt_simplex_coords(3, xi, N, dN); break; /* linear simplex: N = L */
  case DT_TRI3: dt_simplex_coords(2, xi, N, dN); break;
  case DT_TET10: dt_tet10_shape(xi, N, dN); break;
  }
}

#endif
