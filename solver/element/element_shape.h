/* Shape functions of the element library. Include element/element.h, not this file.
 *
 * N[a] and dN[a*3+k] = dN_a/dxi_k at reference point xi; 2D types leave dN[a*3+2] = 0.
 * Reference domains: hex8 and the 20-node hexahedra [-1,1]^3, the quadrilaterals [-1,1]^2,
 * tets and tri3 the unit simplex in natural coordinates with node 1 at the origin, the wedges
 * the unit triangle in (xi_0, xi_1) (node 1 at the origin, 2 on xi_0, 3 on xi_1) times [-1, 1]
 * in xi_2 (nodes 1-3 at -1, 4-6 at +1), CalculiX's shape6w and shape15w. */
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

/* Corner ends (0-based) of the 20-node hexahedron's mid-edge node 8 + m: edges 1-2, 2-3, 3-4,
 * 4-1 (bottom), 5-6, 6-7, 7-8, 8-5 (top), 1-5, 2-6, 3-7, 4-8 (vertical), 1-based. */
DT_HD static inline void dt_hex20_edge(int m, int *i, int *j) {
  const int e0[12] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3};
  const int e1[12] = {1, 2, 3, 0, 5, 6, 7, 4, 4, 5, 6, 7};
  *i = e0[m];
  *j = e1[m];
}

/* Corner ends (0-based) of wedge15's mid-edge node 6 + m: edges 1-2, 2-3, 3-1 (bottom), 4-5,
 * 5-6, 6-4 (top), 1-4, 2-5, 3-6 (along the axis), 1-based. */
DT_HD static inline void dt_wedge15_edge(int m, int *i, int *j) {
  const int e0[9] = {0, 1, 2, 3, 4, 5, 0, 1, 2};
  const int e1[9] = {1, 2, 0, 4, 5, 3, 3, 4, 5};
  *i = e0[m];
  *j = e1[m];
}

/* Corner a of the unit simplex: the origin, then xi_{a-1} = 1. */
DT_HD static inline void dt_simplex_node_xi(int a, double xi[3]) {
  xi[0] = xi[1] = xi[2] = 0.0;
  if (a >= 1) xi[a - 1] = 1.0;
}

/* Corner a (0..5) of the wedges: the triangle's node a mod 3, at xi_2 = -1 (a < 3) or +1. */
DT_HD static inline void dt_wedge_corner_xi(int a, double xi[3]) {
  dt_simplex_node_xi(a % 3, xi);
  xi[2] = a < 3 ? -1.0 : 1.0;
}

/* Lagrange quadrilaterals of order p = 2 (quad9), 3 (quad16), and quad8's nodes: node a sits
 * at 1D node (i, j) = (idx[a] % 4, idx[a] / 4) of the p + 1 equally spaced points
 * -1 .. 1 in each direction (element.h gives the order). quad8 uses quad9's first 8. */
DT_HD static inline int dt_quad_order(int type) {
  return (dt_elem_is_quad8(type) || type == DT_QUAD9) ? 2 : type == DT_QUAD16 ? 3 : 1;
}
DT_HD static inline void dt_quad_node_ij(int type, int a, int *i, int *j) {
  /* quad9: corners (0,0) (2,0) (2,2) (0,2), mid-edges (1,0) (2,1) (1,2) (0,1), centre (1,1) */
  const int q2[9] = {0, 2, 10, 8, 1, 6, 9, 4, 5};
  /* quad16: corners, edges 1-2, 2-3, 3-4, 4-1 in their direction, interior counterclockwise */
  const int q3[16] = {0, 3, 15, 12, 1, 2, 7, 11, 14, 13, 8, 4, 5, 6, 10, 9};
  int v = dt_quad_order(type) == 3 ? q3[a] : q2[a];
  *i = v % 4;
  *j = v / 4;
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
  case DT_HEX8:
  case DT_HEX8R:
  case DT_HEX8I:
    xi[0] = sx[a];
    xi[1] = sy[a];
    xi[2] = sz[a];
    break;
  case DT_HEX20:
  case DT_HEX20R:
    if (a < 8) {
      xi[0] = sx[a], xi[1] = sy[a], xi[2] = sz[a];
      break;
    }
    dt_hex20_edge(a - 8, &i, &j); /* mid-edge node: halfway between the edge's corners */
    xi[0] = 0.5 * (sx[i] + sx[j]);
    xi[1] = 0.5 * (sy[i] + sy[j]);
    xi[2] = 0.5 * (sz[i] + sz[j]);
    break;
  case DT_QUAD4:
    xi[0] = sx[a];
    xi[1] = sy[a];
    break;
  case DT_QUAD8:
  case DT_QUAD8R:
  case DT_QUAD9:
  case DT_QUAD16: {
    const int p = dt_quad_order(type);
    dt_quad_node_ij(type, a, &i, &j);
    xi[0] = -1.0 + 2.0 * i / p;
    xi[1] = -1.0 + 2.0 * j / p;
    break;
  }
  case DT_TET4:
  case DT_TRI3: dt_simplex_node_xi(a, xi); break;
  case DT_WEDGE6:
  case DT_WEDGE15:
    if (a < 6) {
      dt_wedge_corner_xi(a, xi);
      break;
    }
    dt_wedge15_edge(a - 6, &i, &j); /* mid-edge node: halfway between the edge's corners */
    dt_wedge_corner_xi(i, xi);
    dt_wedge_corner_xi(j, xj);
    for (k = 0; k < 3; k++) xi[k] = 0.5 * (xi[k] + xj[k]);
    break;
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

/* The 1D Lagrange polynomials of the p + 1 equally spaced nodes on [-1, 1] at x, and their
 * derivatives: l[i] = prod_{m != i} (x - x_m) / (x_i - x_m). */
DT_HD static inline void dt_lagrange_1d(int p, double x, double *l, double *dl) {
  double xs[4];
  int i, m, k;
  for (i = 0; i <= p; i++) xs[i] = -1.0 + 2.0 * i / p;
  for (i = 0; i <= p; i++) {
    double num = 1.0, den = 1.0, d = 0.0;
    for (m = 0; m <= p; m++) {
      double t = 1.0;
      if (m == i) continue;
      num *= x - xs[m];
      den *= xs[i] - xs[m];
      for (k = 0; k <= p; k++) /* derivative: sum over m of the product without (x - x_m) */
        if (k != i && k != m) t *= x - xs[k];
      d += t;
    }
    l[i] = num / den;
    dl[i] = d / den;
  }
}

/* Tensor-product Lagrange quadrilateral of order p (quad9, quad16): N_a = l_i(xi) l_j(eta). */
DT_HD static inline void dt_quad_lagrange_shape(int type, const double xi[3], double *N,
                                                double *dN) {
  const int p = dt_quad_order(type), n = dt_elem_nnodes(type);
  double lx[4], dlx[4], ly[4], dly[4];
  int a, i, j;
  dt_lagrange_1d(p, xi[0], lx, dlx);
  dt_lagrange_1d(p, xi[1], ly, dly);
  for (a = 0; a < n; a++) {
    dt_quad_node_ij(type, a, &i, &j);
    N[a] = lx[i] * ly[j];
    dN[a * 3 + 0] = dlx[i] * ly[j];
    dN[a * 3 + 1] = lx[i] * dly[j];
    dN[a * 3 + 2] = 0.0;
  }
}

/* Serendipity quad8 (CPE8): corners N = (1 + x x_a)(1 + y y_a)(x x_a + y y_a - 1) / 4,
 * mid-edges N = (1 - x^2)(1 + y y_a) / 2 or (1 + x x_a)(1 - y^2) / 2. */
DT_HD static inline void dt_quad8_shape(const double xi[3], double *N, double *dN) {
  const double x = xi[0], y = xi[1];
  double s[3];
  int a;
  for (a = 0; a < 8; a++) {
    dt_elem_node_xi(DT_QUAD8, a, s);
    dN[a * 3 + 2] = 0.0;
    if (a < 4) {
      double fx = 1.0 + x * s[0], fy = 1.0 + y * s[1], g = x * s[0] + y * s[1] - 1.0;
      N[a] = 0.25 * fx * fy * g;
      dN[a * 3 + 0] = 0.25 * s[0] * fy * (g + fx);
      dN[a * 3 + 1] = 0.25 * s[1] * fx * (g + fy);
    } else if (s[0] == 0.0) {
      N[a] = 0.5 * (1.0 - x * x) * (1.0 + y * s[1]);
      dN[a * 3 + 0] = -x * (1.0 + y * s[1]);
      dN[a * 3 + 1] = 0.5 * (1.0 - x * x) * s[1];
    } else {
      N[a] = 0.5 * (1.0 + x * s[0]) * (1.0 - y * y);
      dN[a * 3 + 0] = 0.5 * s[0] * (1.0 - y * y);
      dN[a * 3 + 1] = -y * (1.0 + x * s[0]);
    }
  }
}

/* Serendipity hex20 (C3D20) with node a at s = xi_a:
 *   corners    N = (1 + x s_x)(1 + y s_y)(1 + z s_z)(x s_x + y s_y + z s_z - 2) / 8,
 *   mid-edges  N = prod_k h_k / 4, h_k = 1 - xi_k^2 along the edge (s_k = 0), else 1 + xi_k s_k. */
DT_HD static inline void dt_hex20_shape(const double xi[3], double *N, double *dN) {
  double s[3], f[3], df[3];
  int a, k;
  for (a = 0; a < 20; a++) {
    dt_elem_node_xi(DT_HEX20, a, s);
    if (a < 8) {
      double g = xi[0] * s[0] + xi[1] * s[1] + xi[2] * s[2] - 2.0;
      for (k = 0; k < 3; k++) f[k] = 1.0 + xi[k] * s[k];
      N[a] = 0.125 * f[0] * f[1] * f[2] * g;
      /* d/dxi_k: s_k (prod_{l != k} f_l) (g + f_k) / 8 */
      dN[a * 3 + 0] = 0.125 * s[0] * f[1] * f[2] * (g + f[0]);
      dN[a * 3 + 1] = 0.125 * s[1] * f[0] * f[2] * (g + f[1]);
      dN[a * 3 + 2] = 0.125 * s[2] * f[0] * f[1] * (g + f[2]);
      continue;
    }
    for (k = 0; k < 3; k++) {
      f[k] = s[k] == 0.0 ? 1.0 - xi[k] * xi[k] : 1.0 + xi[k] * s[k];
      df[k] = s[k] == 0.0 ? -2.0 * xi[k] : s[k];
    }
    N[a] = 0.25 * f[0] * f[1] * f[2];
    dN[a * 3 + 0] = 0.25 * df[0] * f[1] * f[2];
    dN[a * 3 + 1] = 0.25 * f[0] * df[1] * f[2];
    dN[a * 3 + 2] = 0.25 * f[0] * f[1] * df[2];
  }
}

/* Linear wedge6 (C3D6): N_a = L_i (1 + s z) / 2 for triangle node i = a mod 3 and s = -1
 * (a < 3) or +1, z = xi_2; L the triangle's barycentric coordinates (dt_simplex_coords). */
DT_HD static inline void dt_wedge6_shape(const double xi[3], double *N, double *dN) {
  double L[3], dL[9];
  int a, i;
  dt_simplex_coords(2, xi, L, dL);
  for (a = 0; a < 6; a++) {
    const double s = a < 3 ? -1.0 : 1.0, h = 0.5 * (1.0 + s * xi[2]);
    i = a % 3;
    N[a] = L[i] * h;
    dN[a * 3 + 0] = dL[i * 3 + 0] * h;
    dN[a * 3 + 1] = dL[i * 3 + 1] * h;
    dN[a * 3 + 2] = 0.5 * s * L[i];
  }
}

/* Quadratic serendipity wedge15 (C3D15), z = xi_2, s = -+1 the corner's or edge's side:
 *   corners                 N = L_i (2 L_i - 1)(1 + s z) / 2 - L_i (1 - z^2) / 2,
 *   triangle-edge midpoints N = 2 L_i L_j (1 + s z),
 *   axial-edge midpoints    N = L_i (1 - z^2). */
DT_HD static inline void dt_wedge15_shape(const double xi[3], double *N, double *dN) {
  const double z = xi[2], q = 1.0 - z * z;
  double L[3], dL[9], s;
  int a, i, j, k;
  dt_simplex_coords(2, xi, L, dL);
  for (a = 0; a < 6; a++) {
    i = a % 3;
    s = a < 3 ? -1.0 : 1.0;
    N[a] = 0.5 * L[i] * ((2.0 * L[i] - 1.0) * (1.0 + s * z) - q);
    /* d/dxi_k: dL_i ((4 L_i - 1)(1 + s z) - q) / 2; d/dz: L_i ((2 L_i - 1) s + 2 z) / 2 */
    for (k = 0; k < 2; k++)
      dN[a * 3 + k] = 0.5 * dL[i * 3 + k] * ((4.0 * L[i] - 1.0) * (1.0 + s * z) - q);
    dN[a * 3 + 2] = 0.5 * L[i] * ((2.0 * L[i] - 1.0) * s + 2.0 * z);
  }
  for (a = 6; a < 15; a++) {
    dt_wedge15_edge(a - 6, &i, &j);
    i %= 3;
    j %= 3;
    if (a < 12) { /* an edge of the bottom (a < 9) or top triangle */
      s = a < 9 ? -1.0 : 1.0;
      N[a] = 2.0 * L[i] * L[j] * (1.0 + s * z);
      for (k = 0; k < 2; k++)
        dN[a * 3 + k] = 2.0 * (dL[i * 3 + k] * L[j] + L[i] * dL[j * 3 + k]) * (1.0 + s * z);
      dN[a * 3 + 2] = 2.0 * s * L[i] * L[j];
    } else { /* an edge along the axis, from triangle node i */
      N[a] = L[i] * q;
      for (k = 0; k < 2; k++) dN[a * 3 + k] = dL[i * 3 + k] * q;
      dN[a * 3 + 2] = -2.0 * z * L[i];
    }
  }
}

/* Shape functions N[a] and reference derivatives dN[a*3+k] at xi. */
DT_HD static inline void dt_elem_shape(int type, const double xi[3], double *N, double *dN) {
  switch (type) {
  case DT_HEX8:
  case DT_HEX8R:
  case DT_HEX8I: dt_lagrange1_shape(type, 3, xi, N, dN); break;
  case DT_QUAD4: dt_lagrange1_shape(type, 2, xi, N, dN); break;
  case DT_TET4: dt_simplex_coords(3, xi, N, dN); break; /* linear simplex: N = L */
  case DT_TRI3: dt_simplex_coords(2, xi, N, dN); break;
  case DT_TET10: dt_tet10_shape(xi, N, dN); break;
  case DT_QUAD8:
  case DT_QUAD8R: dt_quad8_shape(xi, N, dN); break;
  case DT_QUAD9:
  case DT_QUAD16: dt_quad_lagrange_shape(type, xi, N, dN); break;
  case DT_HEX20:
  case DT_HEX20R: dt_hex20_shape(xi, N, dN); break;
  case DT_WEDGE6: dt_wedge6_shape(xi, N, dN); break;
  case DT_WEDGE15: dt_wedge15_shape(xi, N, dN); break;
  }
}

#endif
