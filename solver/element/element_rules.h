/* Quadrature rules of the element library: the rule of each element type (the full rule, or
 * for hex20r the reduced one) and the rule of its faces. Include element/element.h, not this
 * file.
 *
 * Degrees are what the rule integrates exactly: per parametric direction for the tensor
 * Gauss rules (hex, quad, edges), total degree for the simplex rules (tet, tri); the wedges'
 * rules are products, a triangle rule of a total degree times a Gauss rule along the axis. The
 * tests in tests/elements/test_elem_quadrature.c check both the degree and that it is not
 * higher. */
#ifndef DT_ELEMENT_RULES_H
#define DT_ELEMENT_RULES_H

#ifndef DT_ELEMENT_H
#error "include element/element.h instead of element_rules.h"
#endif

/* Two-point Gauss abscissa 1/sqrt(3): exact for cubics on [-1, 1], weights 1. */
#define DT_GAUSS2_X 0.57735026918962576451

/* Point i of the n-point Gauss-Legendre rule on [-1, 1] (n = 1..4, exact to degree 2n - 1),
 * ascending, and its weight. */
DT_HD static inline double dt_gauss_1d(int n, int i, double *w) {
  const double g3 = 0.77459666924148337704;                                /* sqrt(3/5) */
  const double g4a = 0.33998104358485626480, g4b = 0.86113631159405257522; /* 4-point abscissae */
  const double w4a = 0.65214515486254614263, w4b = 0.34785484513745385737;
  switch (n) {
  case 1: *w = 2.0; return 0.0;
  case 2: *w = 1.0; return i ? DT_GAUSS2_X : -DT_GAUSS2_X;
  case 3: *w = i == 1 ? 8.0 / 9.0 : 5.0 / 9.0; return i == 0 ? -g3 : i == 1 ? 0.0 : g3;
  case 4:
    *w = (i == 1 || i == 2) ? w4a : w4b;
    return i == 0 ? -g4b : i == 1 ? -g4a : i == 2 ? g4a : g4b;
  }
  *w = 0.0;
  return 0.0;
}

/* Gauss points per direction of the higher-order quadrilaterals: 3 x 3 for quad8 (CalculiX's
 * CPE8) and quad9, 4 x 4 for quad16 (the (p+1)^2 points [VilasBoas2020] used); 0 for other types. */
DT_HD static inline int dt_quad_gauss_n(int type) {
  return (type == DT_QUAD8 || type == DT_QUAD9) ? 3 : type == DT_QUAD16 ? 4 : 0;
}

/* Integration points of the element's rule: hex8 2x2x2, tet4 1, tet10 4, quad4 2x2, tri3 1,
 * quad8 and quad9 3x3, quad8r 2x2 (CPE8R, CPS8R, CAX8R: reduced like hex20r, with one
 * spurious zero-energy mode per element that does not propagate through a mesh of two or more
 * elements), quad16 4x4, hex20 3x3x3 (C3D20), hex20r 2x2x2 (C3D20R: the reduced
 * rule, one order below the full one, which CalculiX recommends for plasticity since it
 * constrains the nearly incompressible plastic flow less; with two or more elements through
 * every dimension its spurious zero-energy modes do not propagate), and CalculiX's wedge rules:
 * wedge6 the triangle's centroid times 2-point Gauss along the axis (C3D6), wedge15 the
 * 3-point interior triangle rule times 3-point Gauss (C3D15). Both integrate a constant stress
 * against the element's gradients exactly on straight-edged wedges, so they pass the patch
 * test; the same rules give the same answers as CalculiX, point for point. */
DT_HD static inline int dt_elem_nqp(int type) {
  switch (type) {
  case DT_WEDGE6: return 2;
  case DT_WEDGE15: return 9;
  case DT_HEX8:
  case DT_HEX8I: return 8;
  case DT_HEX20: return 27;
  case DT_HEX20R: return 8;
  case DT_HEX8R:
  case DT_TET4: return 1;
  case DT_TET10: return 4;
  case DT_QUAD4:
  case DT_QUAD8R: return 4;
  case DT_TRI3: return 1;
  case DT_QUAD8:
  case DT_QUAD9: return 9;
  case DT_QUAD16: return 16;
  }
  return 0;
}

/* Polynomial degree integrated exactly by dt_elem_qp (per direction for the tensor rules; the
 * wedges' total degree in the triangle, dt_elem_qp_axial_degree along the axis). */
DT_HD static inline int dt_elem_qp_degree(int type) {
  switch (type) {
  case DT_WEDGE6: return 1;
  case DT_WEDGE15: return 2;
  case DT_HEX8:
  case DT_HEX8I: return 3;
  case DT_HEX20: return 5;
  case DT_HEX20R: return 3;
  case DT_HEX8R:
  case DT_TET4: return 1;
  case DT_TET10: return 2;
  case DT_QUAD4:
  case DT_QUAD8R: return 3;
  case DT_TRI3: return 1;
  case DT_QUAD8:
  case DT_QUAD9: return 5;
  case DT_QUAD16: return 7;
  }
  return 0;
}

/* The wedges' degree along their axis xi_2 (2- and 3-point Gauss); dt_elem_qp_degree for the
 * other types, whose rules have one degree for every direction. */
DT_HD static inline int dt_elem_qp_axial_degree(int type) {
  if (type == DT_WEDGE6) return 3;
  if (type == DT_WEDGE15) return 5;
  return dt_elem_qp_degree(type);
}

/* Interior 3-point rule of the unit triangle, degree 2: point q at (1/6, 1/6), (2/3, 1/6),
 * (1/6, 2/3) (CalculiX's order), weight (1/2)/3. */
DT_HD static inline void dt_tri3_interior_point(int q, double st[2], double *w) {
  st[0] = st[1] = 1.0 / 6.0;
  if (q == 1) st[0] = 2.0 / 3.0;
  if (q == 2) st[1] = 2.0 / 3.0;
  *w = 1.0 / 6.0;
}

/* Tensor Gauss point q of a 2-point rule in `dim` directions, first direction fastest
 * (the Abaqus integration point order): bit k of q selects the sign along xi_k. */
DT_HD static inline void dt_gauss2_point(int dim, int q, double xi[3]) {
  int k;
  for (k = 0; k < 3; k++) xi[k] = 0.0;
  for (k = 0; k < dim; k++) xi[k] = ((q >> k) & 1) ? DT_GAUSS2_X : -DT_GAUSS2_X;
}

/* Integration point q of the element's rule: reference coordinates xi and weight w. The weights
 * sum to the reference measure (8 for the cube, 1/6 for the tet, 1 for the wedge, 4, 1/2 in
 * 2D). */
DT_HD static inline void dt_elem_qp(int type, int q, double xi[3], double *w) {
  /* tet10: 4-point degree-2 rule, barycentric (b,a,a,a) and permutations,
   * a = (5 - sqrt 5)/20, b = (5 + 3 sqrt 5)/20, weight (1/6)/4 */
  const double a = 0.13819660112501051518, b = 0.58541019662496845446;
  xi[0] = xi[1] = xi[2] = 0.0;
  *w = 0.0;
  switch (type) {
  case DT_HEX8:
  case DT_HEX8I:
  case DT_HEX20R:
    dt_gauss2_point(3, q, xi);
    *w = 1.0;
    break;
  case DT_QUAD4:
  case DT_QUAD8R:
    dt_gauss2_point(2, q, xi);
    *w = 1.0;
    break;
  case DT_HEX8R: /* the centre, the cube's measure */ *w = 8.0; break;
  case DT_HEX20: { /* 3 x 3 x 3 Gauss, first direction fastest (CalculiX's order) */
    double w0, w1, w2;
    xi[0] = dt_gauss_1d(3, q % 3, &w0);
    xi[1] = dt_gauss_1d(3, (q / 3) % 3, &w1);
    xi[2] = dt_gauss_1d(3, q / 9, &w2);
    *w = w0 * w1 * w2;
    break;
  }
  case DT_TET4:
    xi[0] = xi[1] = xi[2] = 0.25;
    *w = 1.0 / 6.0;
    break;
  case DT_TRI3:
    xi[0] = xi[1] = 1.0 / 3.0;
    *w = 0.5;
    break;
  case DT_QUAD8:
  case DT_QUAD9:
  case DT_QUAD16: { /* n x n Gauss, first direction fastest like dt_gauss2_point */
    const int n = dt_quad_gauss_n(type);
    double w0, w1;
    xi[0] = dt_gauss_1d(n, q % n, &w0);
    xi[1] = dt_gauss_1d(n, q / n, &w1);
    *w = w0 * w1;
    break;
  }
  case DT_TET10:
    /* q = 0: L1 = b, i.e. xi = (a,a,a); q = 1..3: L_{q+1} = b, i.e. xi[q-1] = b */
    xi[0] = xi[1] = xi[2] = a;
    if (q >= 1 && q <= 3) xi[q - 1] = b;
    *w = 1.0 / 24.0;
    break;
  case DT_WEDGE6: /* the centroid at xi_2 = -+1/sqrt(3), weight (1/2) x 1 (CalculiX's C3D6) */
    xi[0] = xi[1] = 1.0 / 3.0;
    xi[2] = q ? DT_GAUSS2_X : -DT_GAUSS2_X;
    *w = 0.5;
    break;
  case DT_WEDGE15: { /* triangle point q % 3 fastest, then 3-point Gauss along the axis (C3D15) */
    double st[2], wt, wz;
    dt_tri3_interior_point(q % 3, st, &wt);
    xi[0] = st[0];
    xi[1] = st[1];
    xi[2] = dt_gauss_1d(3, q / 3, &wz);
    *w = wt * wz;
    break;
  }
  }
}

/* Points of the rule of face `face` of `type` (the same for every face of a type but the
 * wedges, whose faces use the rules of dt_face_kind's faces): quad faces 2x2 Gauss, the 8-node
 * quad faces of the 20-node hexahedra 3x3 (a quadratic shape function times the area element
 * of a curved face, as CalculiX integrates them), tri3 faces 3 points (degree 2), tri6 faces
 * of tet10 6 points (degree 4, so a quadratic shape function times a curved face's quadratic
 * Jacobian is exact), edges of 2D types 2-point Gauss, 3-point
 * on the quadratic edges of quad8/quad9 and 4-point on quad16's cubic ones (shape function
 * times a curved edge's length element: degree 3 and 5). */
DT_HD static inline int dt_face_nqp(int type, int face) {
  switch (dt_face_kind(type, face)) {
  case DT_HEX8: return 4;
  case DT_HEX20:
  case DT_HEX20R: return 9;
  case DT_TET4: return 3;
  case DT_TET10: return 6;
  case DT_QUAD4: return 2;
  case DT_TRI3: return 2;
  case DT_QUAD8:
  case DT_QUAD9: return 3;
  case DT_QUAD16: return 4;
  }
  return 0;
}

/* Degree integrated exactly by the face rule (per direction for quad faces and edges). */
DT_HD static inline int dt_face_qp_degree(int type, int face) {
  switch (dt_face_kind(type, face)) {
  case DT_HEX8: return 3;
  case DT_HEX20:
  case DT_HEX20R: return 5;
  case DT_TET4: return 2;
  case DT_TET10: return 4;
  case DT_QUAD4: return 3;
  case DT_TRI3: return 3;
  case DT_QUAD8:
  case DT_QUAD9: return 5;
  case DT_QUAD16: return 7;
  }
  return 0;
}

/* Face point q in face coordinates st (quad face [-1,1]^2, triangle face s,t >= 0,
 * s + t <= 1, edge s in [-1,1], t = 0) and its weight w. */
DT_HD static inline void dt_face_qp(int type, int face, int q, double st[2], double *w) {
  /* Dunavant degree-4 triangle rule: barycentric (x, x, 1-2x) orbits, weights per unit area */
  const double x1 = 0.44594849091596488632, w1 = 0.22338158967801146570;
  const double x2 = 0.09157621350977074346, w2 = 0.10995174365532186764;
  double xi[3], x;
  st[0] = st[1] = 0.0;
  *w = 0.0;
  switch (dt_face_kind(type, face)) {
  case DT_HEX8:
    dt_gauss2_point(2, q, xi);
    st[0] = xi[0];
    st[1] = xi[1];
    *w = 1.0;
    break;
  case DT_HEX20:
  case DT_HEX20R: /* 3 x 3 Gauss, first direction fastest */
    st[0] = dt_gauss_1d(3, q % 3, &xi[0]);
    st[1] = dt_gauss_1d(3, q / 3, &xi[1]);
    *w = xi[0] * xi[1];
    break;
  case DT_QUAD4:
  case DT_TRI3:
    st[0] = q ? DT_GAUSS2_X : -DT_GAUSS2_X;
    *w = 1.0;
    break;
  case DT_QUAD8:
  case DT_QUAD9:
  case DT_QUAD16: st[0] = dt_gauss_1d(dt_face_nqp(type, face), q, w); break;
  case DT_TET4: dt_tri3_interior_point(q, st, w); break;
  case DT_TET10:
    x = q < 3 ? x1 : x2;
    *w = 0.5 * (q < 3 ? w1 : w2); /* reference triangle area 1/2 */
    st[0] = st[1] = x;
    if (q % 3 == 1) st[0] = 1.0 - 2.0 * x;
    if (q % 3 == 2) st[1] = 1.0 - 2.0 * x;
    break;
  }
}

#endif
