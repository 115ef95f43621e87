/* Element faces for surface loads. Include element/element.h, not this file.
 *
 * Faces are the CalculiX/Abaqus S1, S2, .. numbered from 0. Their node lists follow Abaqus,
 * whose right-hand normal points INTO solid elements, so dt_face_point flips it; edges of 2D
 * elements are listed counterclockwise and their outward normal is the tangent turned
 * clockwise. Face nodes are given in face-local order; a tet10 face is a 6-node triangle
 * (corners, then midsides 1-2, 2-3, 3-1), a hex8 face a 4-node quad, a face of the 20-node
 * hexahedra an 8-node quad (the hex8 face's corners, then the mid-edge nodes of its edges
 * 1-2, 2-3, 3-4, 4-1, CalculiX's C3D20 faces), a 2D edge 2 nodes; the
 * edges of the higher-order quadrilaterals list their ends, then their inner nodes in the
 * edge's direction (3 nodes on quad8/quad9, 4 on quad16). The wedges have faces of two kinds
 * (dt_face_kind): S1, S2 triangles like a tet's (3 nodes, wedge15 6), S3-S5 quadrilaterals like
 * a hexahedron's (4 nodes, wedge15 8), with the same face-local orders. */
#ifndef DT_ELEMENT_FACE_H
#define DT_ELEMENT_FACE_H

#ifndef DT_ELEMENT_H
#error "include element/element.h instead of element_face.h"
#endif

/* Faces per element: hexahedra 6, wedges 5, tets 4, quadrilaterals 4 edges, tri3 3 edges. */
DT_HD static inline int dt_elem_nfaces(int type) {
  switch (type) {
  case DT_WEDGE6:
  case DT_WEDGE15: return 5;
  case DT_HEX8:
  case DT_HEX8R:
  case DT_HEX8I:
  case DT_HEX20:
  case DT_HEX20R: return 6;
  case DT_TET4: return 4;
  case DT_TET10: return 4;
  case DT_QUAD4:
  case DT_QUAD8:
  case DT_QUAD8R:
  case DT_QUAD9:
  case DT_QUAD16: return 4;
  case DT_TRI3: return 3;
  }
  return 0;
}

/* Nodes on face `face` (the same for every face of a type but the wedges'). */
DT_HD static inline int dt_face_nnodes(int type, int face) {
  switch (dt_face_kind(type, face)) {
  case DT_HEX8: return 4;
  case DT_HEX20:
  case DT_HEX20R: return 8;
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

/* Element-local (0-based) node indices of a face, in face order. */
DT_HD static inline void dt_face_local_nodes(int type, int face, int *local) {
  /* hex8 S1..S6 = (1,2,3,4) (5,8,7,6) (1,5,6,2) (2,6,7,3) (3,7,8,4) (4,8,5,1) */
  const int hex[6][4] = {{0, 1, 2, 3}, {4, 7, 6, 5}, {0, 4, 5, 1},
                         {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 4, 0}};
  /* hex20: the same corners, then the mid-edge nodes, S1 = (1,2,3,4, 9,10,11,12) .. */
  const int hex20[6][4] = {{8, 9, 10, 11},  {15, 14, 13, 12}, {16, 12, 17, 8},
                           {17, 13, 18, 9}, {18, 14, 19, 10}, {19, 15, 16, 11}};
  /* tet S1..S4 = (1,2,3) (1,4,2) (2,4,3) (3,4,1), then tet10 midsides of edges 1-2, 2-3, 3-1 */
  const int tet[4][6] = {
      {0, 1, 2, 4, 5, 6}, {0, 3, 1, 7, 8, 4}, {1, 3, 2, 8, 9, 5}, {2, 3, 0, 9, 7, 6}};
  /* wedge S1..S5 = (1,2,3) (4,6,5) (1,4,5,2) (2,5,6,3) (3,6,4,1), Abaqus's order (CalculiX's
   * faces, listed inward like the hexahedron's), then wedge15's mid-edge nodes of the face's
   * edges in that order: S1 with 7-8-9, S2 with 12-11-10, S3 with 13-10-14-7, .. */
  const int wedge[5][8] = {{0, 1, 2, 6, 7, 8, 0, 0},
                           {3, 5, 4, 11, 10, 9, 0, 0},
                           {0, 3, 4, 1, 12, 9, 13, 6},
                           {1, 4, 5, 2, 13, 10, 14, 7},
                           {2, 5, 3, 0, 14, 11, 12, 8}};
  const int n = dt_face_nnodes(type, face);
  int a;
  for (a = 0; a < n; a++) {
    switch (type) {
    /* The bounds repeat dt_face_nnodes for the compiler, which cannot tie n to the type. */
    case DT_HEX8:
    case DT_HEX8R:
    case DT_HEX8I: local[a] = a < 4 ? hex[face][a] : 0; break;
    case DT_HEX20:
    case DT_HEX20R: local[a] = a < 4 ? hex[face][a] : hex20[face][(a - 4) & 3]; break;
    case DT_TET4:
    case DT_TET10: local[a] = a < 6 ? tet[face][a] : 0; break;
    case DT_QUAD4: local[a] = (face + a) % 4; break; /* edge k = (k, k+1) */
    case DT_QUAD8:
    case DT_QUAD8R:
    case DT_QUAD9: local[a] = a < 2 ? (face + a) % 4 : 4 + face; break; /* then its mid node */
    case DT_QUAD16: local[a] = a < 2 ? (face + a) % 4 : 4 + 2 * face + a - 2; break;
    case DT_TRI3: local[a] = (face + a) % 3; break;
    case DT_WEDGE6: /* the corners only: a triangle's first 3, a quadrilateral's first 4 */
    case DT_WEDGE15: local[a] = a < 8 ? wedge[face][a] : 0; break;
    }
  }
}

/* Shape functions Nf[a] of face `face` and derivatives dNf[a*2+k] = dNf_a/dst_k at face
 * point st. */
DT_HD static inline void dt_face_shape(int type, int face, const double st[2], double *Nf,
                                       double *dNf) {
  double xi[3], N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];
  int a, n = 0, sub = -1;
  xi[0] = st[0];
  xi[1] = st[1];
  xi[2] = 0.0;
  type = dt_face_kind(type, face);
  switch (type) {
  case DT_HEX8:
    sub = DT_QUAD4;
    n = 4;
    break; /* bilinear quad in (s, t) */
  case DT_HEX20:
  case DT_HEX20R:
    sub = DT_QUAD8;
    n = 8;
    break; /* serendipity quad8 in (s, t) */
  case DT_TET4:
    sub = DT_TRI3;
    n = 3;
    break;       /* linear triangle */
  case DT_TET10: /* quadratic triangle: L_i (2 L_i - 1), then 4 L_i L_j on edges 0-1, 1-2, 2-0 */
  {
    const double L[3] = {1.0 - st[0] - st[1], st[0], st[1]};
    const double dL[3][2] = {{-1.0, -1.0}, {1.0, 0.0}, {0.0, 1.0}};
    int i, j, k;
    for (a = 0; a < 3; a++) {
      Nf[a] = L[a] * (2.0 * L[a] - 1.0);
      for (k = 0; k < 2; k++) dNf[a * 2 + k] = (4.0 * L[a] - 1.0) * dL[a][k];
    }
    for (a = 3; a < 6; a++) {
      i = a - 3;
      j = (a - 2) % 3;
      Nf[a] = 4.0 * L[i] * L[j];
      for (k = 0; k < 2; k++) dNf[a * 2 + k] = 4.0 * (L[j] * dL[i][k] + L[i] * dL[j][k]);
    }
    return;
  }
  case DT_QUAD8:
  case DT_QUAD9:
  case DT_QUAD16: { /* Lagrange line of order p on s in [-1, 1]: ends, then inner nodes */
    const int p = dt_quad_order(type), order[4] = {0, p, 1, 2};
    double l[4], dl[4];
    dt_lagrange_1d(p, st[0], l, dl);
    for (a = 0; a <= p; a++) {
      Nf[a] = l[order[a]];
      dNf[a * 2 + 0] = dl[order[a]];
      dNf[a * 2 + 1] = 0.0;
    }
    return;
  }
  case DT_QUAD4:
  case DT_TRI3: /* 2-node line on s in [-1, 1] */
    Nf[0] = 0.5 * (1.0 - st[0]);
    Nf[1] = 0.5 * (1.0 + st[0]);
    dNf[0] = -0.5;
    dNf[1] = 0.0;
    dNf[2] = 0.5;
    dNf[3] = 0.0;
    return;
  }
  if (sub < 0) return;
  dt_elem_shape(sub, xi, N, dN);
  for (a = 0; a < n; a++) {
    Nf[a] = N[a];
    dNf[a * 2 + 0] = dN[a * 3 + 0];
    dNf[a * 2 + 1] = dN[a * 3 + 1];
  }
}

/* Face point q: shape functions Nf of the face nodes and nda = n |dA/dst| w, the outward unit
 * normal times the area element and weight, so that sum_q nda is the face's area vector and
 * sum_q Nf_a (t . nda) its consistent load. Xf[a*3+i] are the face nodes' coordinates in
 * dt_face_local_nodes order. For 2D edges nda is per unit thickness with z = 0. */
DT_HD static inline void dt_face_point(int type, int face, int q, const double *Xf, double *Nf,
                                       double nda[3]) {
  const int n = dt_face_nnodes(type, face);
  double st[2], w, dNf[2 * DT_FACE_MAX_NODES], t1[3] = {0, 0, 0}, t2[3] = {0, 0, 0};
  int a, i;
  dt_face_qp(type, face, q, st, &w);
  dt_face_shape(type, face, st, Nf, dNf);
  for (a = 0; a < n; a++) /* tangents t_k = dx/dst_k = sum_a Xf_a dNf_a/dst_k */
    for (i = 0; i < 3; i++) {
      t1[i] += Xf[a * 3 + i] * dNf[a * 2 + 0];
      t2[i] += Xf[a * 3 + i] * dNf[a * 2 + 1];
    }
  if (dt_elem_dim(type) == 2) { /* counterclockwise edge: outward = tangent turned clockwise */
    nda[0] = t1[1] * w;
    nda[1] = -t1[0] * w;
    nda[2] = 0.0;
    return;
  }
  nda[0] = -(t1[1] * t2[2] - t1[2] * t2[1]) * w; /* -(t1 x t2): Abaqus order is inward */
  nda[1] = -(t1[2] * t2[0] - t1[0] * t2[2]) * w;
  nda[2] = -(t1[0] * t2[1] - t1[1] * t2[0]) * w;
}

#endif
