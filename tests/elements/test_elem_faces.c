/* Faces: unit-cube, reference-tet, reference-wedge and unit-square areas and outward normals;
 * on distorted elements the face area vectors of each element sum to zero (closed surface) and
 * every face normal points away from the element's centroid; face shape functions sum to one;
 * the consistent shares of a uniform load on the flat faces of the quadratic elements and of
 * the wedges (triangles and quadrilaterals). */
#include "elem_test.h"

/* Area vector sum_q nda and the weighted shape sums sum_q Nf_a |nda| of one face. */
static void face_integrals(int type, int face, const double *X, double area[3], double *Nsum) {
  double Xf[3 * DT_FACE_MAX_NODES], Nf[DT_FACE_MAX_NODES], nda[3];
  int local[DT_FACE_MAX_NODES], nf = dt_face_nnodes(type, face), a, k, q;
  dt_face_local_nodes(type, face, local);
  for (a = 0; a < nf; a++) {
    for (k = 0; k < 3; k++) Xf[a * 3 + k] = X[local[a] * 3 + k];
    Nsum[a] = 0.0;
  }
  area[0] = area[1] = area[2] = 0.0;
  for (q = 0; q < dt_face_nqp(type, face); q++) {
    double s = 0.0;
    dt_face_point(type, face, q, Xf, Nf, nda);
    for (a = 0; a < nf; a++) s += Nf[a];
    EXPECT(fabs(s - 1.0) < 1e-14, "%s face %d point %d: sum Nf = %.17g", elem_names[type], face, q,
           s);
    s = sqrt(nda[0] * nda[0] + nda[1] * nda[1] + nda[2] * nda[2]); /* |dA| w */
    for (a = 0; a < nf; a++) Nsum[a] += Nf[a] * s;
    for (k = 0; k < 3; k++) area[k] += nda[k];
  }
}

/* Reference geometry (unit cube [0,1]^3 for hex8, unit square for quad4, reference simplex)
 * against hand-computed area vectors of every face, in S1, S2, .. order. */
static void check_reference(int type, const double *want) {
  double X[3 * DT_ELEM_MAX_NODES], area[3], Nsum[DT_FACE_MAX_NODES];
  int a, k, f;
  for (a = 0; a < dt_elem_nnodes(type); a++) {
    dt_elem_node_xi(type, a, X + a * 3);
    if (dt_elem_is_tensor(type))
      for (k = 0; k < dt_elem_dim(type); k++) X[a * 3 + k] = 0.5 * (X[a * 3 + k] + 1.0);
  }
  for (f = 0; f < dt_elem_nfaces(type); f++) {
    face_integrals(type, f, X, area, Nsum);
    for (k = 0; k < 3; k++)
      EXPECT(fabs(area[k] - want[f * 3 + k]) < 1e-14,
             "%s face S%d: area vector[%d] = %.17g, expected %.17g", elem_names[type], f + 1, k,
             area[k], want[f * 3 + k]);
  }
}

/* Tet10 flat face: consistent nodal shares int N_a dA are 0 at corners and A/3 at midsides. */
static void check_tet10_face_shares(void) {
  double X[30], area[3], Nsum[6], A;
  int a;
  distorted_element(DT_TET4, 0.0, X); /* affine tet4 corners; midsides at edge middles */
  for (a = 4; a < 10; a++) {
    double xi[3];
    dt_elem_node_xi(DT_TET10, a, xi);
    X[a * 3 + 0] = X[0] + (X[3] - X[0]) * xi[0] + (X[6] - X[0]) * xi[1] + (X[9] - X[0]) * xi[2];
    X[a * 3 + 1] = X[1] + (X[4] - X[1]) * xi[0] + (X[7] - X[1]) * xi[1] + (X[10] - X[1]) * xi[2];
    X[a * 3 + 2] = X[2] + (X[5] - X[2]) * xi[0] + (X[8] - X[2]) * xi[1] + (X[11] - X[2]) * xi[2];
  }
  face_integrals(DT_TET10, 2, X, area, Nsum);
  A = sqrt(area[0] * area[0] + area[1] * area[1] + area[2] * area[2]);
  for (a = 0; a < 6; a++)
    EXPECT(fabs(Nsum[a] - (a < 3 ? 0.0 : A / 3.0)) < 1e-13,
           "tet10 face: int N_%d dA = %.17g (area %g)", a, Nsum[a], A);
}

/* Flat faces of the 20-node hexahedra (unit cube): the consistent shares int N_a dA of a
 * uniform load on an 8-node serendipity face are -A/12 at the corners and A/3 at the mid-edge
 * nodes (they sum to A; the corners pull against the load), on every face. */
static void check_hex20_face_shares(int type) {
  double X[3 * DT_ELEM_MAX_NODES], area[3], Nsum[DT_FACE_MAX_NODES];
  int a, k, f;
  for (a = 0; a < 20; a++) {
    dt_elem_node_xi(type, a, X + a * 3);
    for (k = 0; k < 3; k++) X[a * 3 + k] = 0.5 * (X[a * 3 + k] + 1.0);
  }
  for (f = 0; f < 6; f++) {
    face_integrals(type, f, X, area, Nsum);
    for (a = 0; a < 8; a++) {
      double want = a < 4 ? -1.0 / 12.0 : 1.0 / 3.0;
      EXPECT(fabs(Nsum[a] - want) < 1e-14, "%s face S%d: int N_%d dA = %.17g, expected %.17g",
             elem_names[type], f + 1, a, Nsum[a], want);
    }
  }
}

/* The reference wedges' flat faces: the consistent shares int N_a dA of a uniform load are
 * A/3 at a linear triangle's corners and A/4 at a bilinear quadrilateral's (wedge6); 0 at a
 * 6-node triangle's corners and A/3 at its mid-edge nodes, -A/12 and A/3 on an 8-node
 * quadrilateral (wedge15), as on tet10's and hex20's faces. */
static void check_wedge_face_shares(int type) {
  double X[3 * DT_ELEM_MAX_NODES], area[3], Nsum[DT_FACE_MAX_NODES], A, want;
  int a, f;
  for (a = 0; a < dt_elem_nnodes(type); a++) dt_elem_node_xi(type, a, X + a * 3);
  for (f = 0; f < 5; f++) {
    const int nf = dt_face_nnodes(type, f), tri = f < 2;
    face_integrals(type, f, X, area, Nsum);
    A = sqrt(area[0] * area[0] + area[1] * area[1] + area[2] * area[2]);
    for (a = 0; a < nf; a++) {
      if (type == DT_WEDGE6)
        want = A / nf;
      else
        want = tri ? (a < 3 ? 0.0 : A / 3.0) : (a < 4 ? -A / 12.0 : A / 3.0);
      EXPECT(fabs(Nsum[a] - want) < 1e-14, "%s face S%d: int N_%d dA = %.17g, expected %.17g",
             elem_names[type], f + 1, a, Nsum[a], want);
    }
  }
}

/* Straight edges of the higher-order quadrilaterals: the consistent shares int N_a ds of a
 * unit traction are Simpson's 1/6, 1/6, 4/6 of the length (quad8, quad9: ends, then the mid
 * node) and the 3/8 rule's 1/8, 1/8, 3/8, 3/8 (quad16); the reference: Newton-Cotes weights. */
static void check_quad_edge_shares(int type) {
  const double simpson[3] = {1.0 / 6.0, 1.0 / 6.0, 4.0 / 6.0},
               three8[4] = {0.125, 0.125, 0.375, 0.375};
  double X[3 * DT_ELEM_MAX_NODES], area[3], Nsum[DT_FACE_MAX_NODES], L;
  int a, f;
  for (a = 0; a < dt_elem_nnodes(type); a++) { /* a 2 x 3 rectangle, straight-sided */
    dt_elem_node_xi(type, a, X + a * 3);
    X[a * 3 + 0] *= 1.0;
    X[a * 3 + 1] *= 1.5;
  }
  for (f = 0; f < 4; f++) {
    face_integrals(type, f, X, area, Nsum);
    L = sqrt(area[0] * area[0] + area[1] * area[1]);
    EXPECT(fabs(L - (f % 2 ? 3.0 : 2.0)) < 1e-14, "%s edge %d: length %.17g", elem_names[type], f,
           L);
    for (a = 0; a < dt_face_nnodes(type, f); a++) {
      double want = (type == DT_QUAD16 ? three8[a] : simpson[a]) * L;
      EXPECT(fabs(Nsum[a] - want) < 1e-14, "%s edge %d: int N_%d ds = %.17g, expected %.17g",
             elem_names[type], f, a, Nsum[a], want);
    }
  }
}

/* Closed surface and outward normals on distorted elements. */
static void check_distorted(int type) {
  const int n = dt_elem_nnodes(type);
  double X[3 * DT_ELEM_MAX_NODES], c[3] = {0, 0, 0}, total[3] = {0, 0, 0}, area[3];
  double Nsum[DT_FACE_MAX_NODES], fc[3];
  int local[DT_FACE_MAX_NODES], a, k, f;
  distorted_element(type, 0.08, X);
  for (a = 0; a < n; a++)
    for (k = 0; k < 3; k++) c[k] += X[a * 3 + k] / n;
  for (f = 0; f < dt_elem_nfaces(type); f++) {
    int nf = dt_face_nnodes(type, f);
    face_integrals(type, f, X, area, Nsum);
    dt_face_local_nodes(type, f, local);
    fc[0] = fc[1] = fc[2] = 0.0;
    for (a = 0; a < nf; a++)
      for (k = 0; k < 3; k++) fc[k] += X[local[a] * 3 + k] / nf;
    EXPECT((fc[0] - c[0]) * area[0] + (fc[1] - c[1]) * area[1] + (fc[2] - c[2]) * area[2] > 0.0,
           "%s face S%d: normal points into the element", elem_names[type], f + 1);
    for (k = 0; k < 3; k++) total[k] += area[k];
  }
  for (k = 0; k < 3; k++)
    EXPECT(fabs(total[k]) < 1e-13, "%s: faces' area vectors sum to %g along %d, not 0",
           elem_names[type], total[k], k);
}

int main(void) {
  const double r = 0.5; /* reference tet faces: three of area 1/2, slanted one of area sqrt(3)/2 */
  const double hex[18] = {0, 0, -1, 0, 0, 1, 0, -1, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0};
  const double tet[12] = {0, 0, -r, 0, -r, 0, r, r, r, -r, 0, 0};
  const double quad[12] = {0, -1, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0};
  const double tri[9] = {0, -1, 0, 1, 1, 0, -1, 0, 0};
  /* reference wedge: triangles of area 1/2 at xi_2 = -+1, sides 1 x 2 on xi_1 = 0 and xi_0 = 0,
   * sqrt(2) x 2 on xi_0 + xi_1 = 1 */
  const double wedge[15] = {0, 0, -r, 0, 0, r, 0, -2, 0, 2, 2, 0, -2, 0, 0};
  int type, t;
  check_reference(DT_HEX8, hex);
  check_reference(DT_HEX20, hex);
  check_reference(DT_HEX20R, hex);
  check_reference(DT_TET4, tet);
  check_reference(DT_TET10, tet);
  check_reference(DT_QUAD4, quad);
  check_reference(DT_TRI3, tri);
  check_reference(DT_QUAD8, quad);
  check_reference(DT_QUAD9, quad);
  check_reference(DT_QUAD16, quad);
  check_reference(DT_WEDGE6, wedge);
  check_reference(DT_WEDGE15, wedge);
  check_tet10_face_shares();
  check_hex20_face_shares(DT_HEX20);
  check_hex20_face_shares(DT_HEX20R);
  check_quad_edge_shares(DT_QUAD8);
  check_quad_edge_shares(DT_QUAD9);
  check_quad_edge_shares(DT_QUAD16);
  check_wedge_face_shares(DT_WEDGE6);
  check_wedge_face_shares(DT_WEDGE15);
  for (type = 0; type < DT_NTYPES; type++)
    for (t = 0; t < 10; t++) check_distorted(type);
  return elem_test_result("test_elem_faces");
}
