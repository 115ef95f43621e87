/* Structured hex8 box: node (i,j,k) has index i + (nx+1)(j + (ny+1) k); element (i,j,k) has
 * index i + nx (j + ny k) and CalculiX node order. Boundary faces use the hex8 face numbering
 * of element.h (S1 = z-, S2 = z+, S3 = y-, S4 = x+, S5 = y+, S6 = x-). */
#include "mesh_box.h"

#include <stdio.h>
#include <string.h>

static int node_index(int nx, int ny, int i, int j, int k) {
  return i + (nx + 1) * (j + (ny + 1) * k);
}

static dt_status add_nodes(dt_model *m, int nx, int ny, int nz, double lx, double ly, double lz,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int64_t n = (int64_t)(nx + 1) * (ny + 1) * (nz + 1);
  DT_CHECK(n < INT32_MAX / 3, ctx, DT_ERR_INPUT, "box of %lld nodes is too large", (long long)n);
  m->n_nodes = (int)n;
  DT_ALLOC(m->x, 3 * n, ctx, "box coordinates");
  DT_ALLOC(m->node_id, n, ctx, "box node ids");
  for (int k = 0; k <= nz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++) {
        int a = node_index(nx, ny, i, j, k);
        m->x[3 * a] = lx * i / nx;
        m->x[3 * a + 1] = ly * j / ny;
        m->x[3 * a + 2] = lz * k / nz;
        m->node_id[a] = a + 1;
      }
cleanup:
  return rc;
}

static dt_status add_elements(dt_model *m, int nx, int ny, int nz, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int64_t ne = (int64_t)nx * ny * nz;
  static const int di[8] = {0, 1, 1, 0, 0, 1, 1, 0}, dj[8] = {0, 0, 1, 1, 0, 0, 1, 1},
                   dk[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  DT_CHECK(ne * 8 < INT32_MAX, ctx, DT_ERR_INPUT, "box of %lld elements is too large",
           (long long)ne);
  m->n_elems = (int)ne;
  DT_ALLOC(m->elem_type, ne, ctx, "box element types");
  DT_ALLOC(m->elem_ptr, ne + 1, ctx, "box element offsets");
  DT_ALLOC(m->conn, 8 * ne, ctx, "box connectivity");
  DT_ALLOC(m->elem_id, ne, ctx, "box element ids");
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        int e = i + nx * (j + ny * k);
        m->elem_type[e] = DT_ELEM_HEX8;
        m->elem_ptr[e + 1] = 8 * (e + 1);
        m->elem_id[e] = e + 1;
        for (int a = 0; a < 8; a++)
          m->conn[8 * e + a] = node_index(nx, ny, i + di[a], j + dj[a], k + dk[a]);
      }
cleanup:
  return rc;
}

/* Node set and surface of the boundary plane axis = 0 (side 0) or axis = n (side 1). */
static dt_status add_plane(dt_model *m, const int n[3], int axis, int side, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  static const char *names[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  static const int face[3][2] = {{5, 3}, {2, 4}, {0, 1}};
  int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3, cnt = 0;
  dt_set *ns = &m->nsets[m->n_nsets++];
  dt_surface *sf = &m->surfaces[m->n_surfaces++];
  snprintf(ns->name, sizeof ns->name, "%s", names[axis][side]);
  snprintf(sf->name, sizeof sf->name, "%s", names[axis][side]);
  DT_ALLOC(ns->items, (n[a1] + 1) * (n[a2] + 1), ctx, "box node set");
  DT_ALLOC(sf->elem, n[a1] * n[a2], ctx, "box surface");
  DT_ALLOC(sf->face, n[a1] * n[a2], ctx, "box surface");
  for (int v = 0; v <= n[a2]; v++)
    for (int u = 0; u <= n[a1]; u++) {
      int ijk[3];
      ijk[axis] = side ? n[axis] : 0, ijk[a1] = u, ijk[a2] = v;
      ns->items[cnt++] = node_index(n[0], n[1], ijk[0], ijk[1], ijk[2]);
    }
  ns->n = cnt;
  cnt = 0;
  for (int v = 0; v < n[a2]; v++)
    for (int u = 0; u < n[a1]; u++) {
      int ijk[3];
      ijk[axis] = side ? n[axis] - 1 : 0, ijk[a1] = u, ijk[a2] = v;
      sf->elem[cnt] = ijk[0] + n[0] * (ijk[1] + n[1] * ijk[2]);
      sf->face[cnt++] = face[axis][side];
    }
  sf->n = cnt;
cleanup:
  return rc;
}

static dt_status add_all_sets(dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_set *ns = &m->nsets[m->n_nsets++], *es = &m->elsets[m->n_elsets++];
  snprintf(ns->name, sizeof ns->name, "all");
  snprintf(es->name, sizeof es->name, "all");
  DT_ALLOC(ns->items, m->n_nodes, ctx, "node set all");
  DT_ALLOC(es->items, m->n_elems, ctx, "element set all");
  for (int a = 0; a < m->n_nodes; a++) ns->items[a] = a;
  for (int e = 0; e < m->n_elems; e++) es->items[e] = e;
  ns->n = m->n_nodes;
  es->n = m->n_elems;
cleanup:
  return rc;
}

dt_status dt_mesh_box_hex8(dt_model *m, int nx, int ny, int nz, double lx, double ly, double lz,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n[3] = {nx, ny, nz};
  DT_CHECK(nx > 0 && ny > 0 && nz > 0 && lx > 0 && ly > 0 && lz > 0, ctx, DT_ERR_INPUT,
           "box needs positive divisions and lengths");
  DT_CHECK(m->n_nodes == 0 && m->n_nsets == 0 && m->n_surfaces == 0, ctx, DT_ERR_INPUT,
           "box mesh needs an empty model");
  m->dim = 3;
  DT_TRY(add_nodes(m, nx, ny, nz, lx, ly, lz, ctx));
  DT_TRY(add_elements(m, nx, ny, nz, ctx));
  DT_ALLOC(m->nsets, 7, ctx, "box node sets");
  DT_ALLOC(m->surfaces, 6, ctx, "box surfaces");
  DT_ALLOC(m->elsets, 1, ctx, "box element sets");
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) DT_TRY(add_plane(m, n, axis, side, ctx));
  DT_TRY(add_all_sets(m, ctx));
cleanup:
  return rc;
}
