/* A tet10 box for unit tests, built in memory: each cell of an nx x ny x nz grid on
 * [0,2] x [0,1.5] x [0,1] is cut into the 6 tetrahedra of Kuhn's triangulation (all sharing
 * the cell's main diagonal, the same in every cell, so faces match), and every midside node is
 * a point of the grid of half steps, which they use completely. The coordinates are then
 * bent a little as unit_box bends its hex8 box. Node sets "xmin" and "all", element set
 * "all"; one material and step (unit_model_material). */
#ifndef DT_UNIT_TET10_H
#define DT_UNIT_TET10_H

#include "unit_model.h"

/* Node index of half-step grid point (i, j, k) on a grid of (2nx+1) x (2ny+1) points per layer. */
static inline int unit_tet10_node(int nx, int ny, int i, int j, int k) {
  return i + (2 * nx + 1) * (j + (2 * ny + 1) * k);
}

/* The 10 nodes of Kuhn tetrahedron p (0..5) of cell (ci, cj, ck), positively oriented. */
static inline void unit_tet10_element(int nx, int ny, int ci, int cj, int ck, int p, int *conn) {
  static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  static const int e0[6] = {0, 1, 2, 0, 1, 2}, e1[6] = {1, 2, 0, 3, 3, 3}; /* element_shape.h */
  int v[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}};
  v[1][perm[p][0]] = 1; /* the path 000 -> e_p0 -> e_p0 + e_p1 -> 111 */
  v[2][perm[p][0]] = v[2][perm[p][1]] = 1;
  if (p >= 3) /* odd permutations: swap two corners for a positive Jacobian */
    for (int d = 0; d < 3; d++) {
      int t = v[1][d];
      v[1][d] = v[2][d], v[2][d] = t;
    }
  for (int a = 0; a < 4; a++)
    conn[a] = unit_tet10_node(nx, ny, 2 * (ci + v[a][0]), 2 * (cj + v[a][1]), 2 * (ck + v[a][2]));
  for (int m = 0; m < 6; m++) {
    int h[3];
    for (int d = 0; d < 3; d++)
      h[d] = 2 * ((d == 0 ? ci : d == 1 ? cj : ck)) + v[e0[m]][d] + v[e1[m]][d];
    conn[4 + m] = unit_tet10_node(nx, ny, h[0], h[1], h[2]);
  }
}

static inline dt_model *unit_box_tet10(int nx, int ny, int nz, int plastic) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  int NX = 2 * nx + 1, NY = 2 * ny + 1, NZ = 2 * nz + 1, nxmin = 0;
  CHECK(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  m->dim = 3;
  m->n_nodes = NX * NY * NZ;
  m->x = calloc((size_t)3 * m->n_nodes, sizeof(double));
  m->node_id = calloc((size_t)m->n_nodes, sizeof(int64_t));
  m->n_elems = 6 * nx * ny * nz;
  m->elem_type = calloc((size_t)m->n_elems, 1);
  m->elem_ptr = calloc((size_t)m->n_elems + 1, sizeof(int));
  m->conn = calloc((size_t)m->n_elems * 10, sizeof(int));
  m->elem_id = calloc((size_t)m->n_elems, sizeof(int64_t));
  m->nsets = calloc(2, sizeof(dt_set));
  m->elsets = calloc(1, sizeof(dt_set));
  CHECK(m->x && m->node_id && m->elem_type && m->elem_ptr && m->conn && m->elem_id && m->nsets &&
            m->elsets,
        "out of memory");
  m->n_nsets = 2;
  snprintf(m->nsets[0].name, DT_NAME_MAX, "xmin");
  snprintf(m->nsets[1].name, DT_NAME_MAX, "all");
  m->nsets[0].items = calloc((size_t)NY * NZ, sizeof(int));
  m->nsets[1].items = calloc((size_t)m->n_nodes, sizeof(int));
  m->n_elsets = 1;
  snprintf(m->elsets[0].name, DT_NAME_MAX, "all");
  m->elsets[0].items = calloc((size_t)m->n_elems, sizeof(int));
  CHECK(m->nsets[0].items && m->nsets[1].items && m->elsets[0].items, "out of memory");
  for (int k = 0; k < NZ; k++)
    for (int j = 0; j < NY; j++)
      for (int i = 0; i < NX; i++) {
        int a = unit_tet10_node(nx, ny, i, j, k);
        double y = 1.5 * j / (NY - 1), z = 1.0 * k / (NZ - 1);
        m->x[3 * a] = 2.0 * i / (NX - 1) + 0.05 * y * z;
        m->x[3 * a + 1] = y;
        m->x[3 * a + 2] = z;
        m->node_id[a] = a + 1;
        if (i == 0) m->nsets[0].items[nxmin++] = a;
      }
  for (int ck = 0, e = 0; ck < nz; ck++)
    for (int cj = 0; cj < ny; cj++)
      for (int ci = 0; ci < nx; ci++)
        for (int p = 0; p < 6; p++, e++) {
          m->elem_type[e] = DT_ELEM_TET10;
          m->elem_ptr[e + 1] = 10 * (e + 1);
          m->elem_id[e] = e + 1;
          unit_tet10_element(nx, ny, ci, cj, ck, p, m->conn + 10 * e);
        }
  for (int a = 0; a < m->n_nodes; a++) m->nsets[1].items[a] = a;
  m->nsets[0].n = nxmin;
  m->nsets[1].n = m->n_nodes;
  for (int e = 0; e < m->n_elems; e++) m->elsets[0].items[e] = e;
  m->elsets[0].n = m->n_elems;
  unit_model_material(m, plastic);
  return m;
}

#endif
