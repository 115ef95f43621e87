/* Global numbering of an order-P hexahedral mesh: vertices, edges, faces and bodies.
 *
 * Each element's 27 topological entities are indexed by a "slot" s0 + 3 s1 + 9 s2, where
 * s_d is 0 when the entity lies at reference coordinate -1 along axis d, 2 at +1 and 1 when
 * the entity extends along d. Shared entities (vertices, edges, faces) are collected as
 * records keyed by their sorted global vertex ids and sorted, so equal keys are adjacent and
 * get one block of node ids; vertices come first, then edges, faces and element bodies. The
 * position of a node inside its entity is expressed in a frame fixed by the global vertex
 * ids, which is what makes two elements agree whatever their local orientation. */
#include "highorder/ho_mesh.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_basis.h"

#define N_SLOTS 27
/* Fewer elements than this are numbered on one thread: the fork would cost more. */
#define PARALLEL_ELEMS 1024

typedef struct entity_rec {
  int type;   /* number of axes the entity extends along: 0 vertex, 1 edge, 2 face */
  int key[4]; /* sorted global vertex ids, -1 padded */
  int diag;   /* for a face: the vertex opposite its smallest one, to reject mismatched quads */
  int elem, slot;
} entity_rec;

/* hex8 local node of reference corner (i, j, k) in {0,1}^3 (element/element.h order). */
static int corner_local(int i, int j, int k) {
  static const int ring[2][2] = {{0, 3}, {1, 2}}; /* ring[i][j] */
  return 4 * k + ring[i][j];
}

static int corner_vertex(const int *conn, const int c[3]) {
  return conn[corner_local(c[0], c[1], c[2])];
}

static int cmp_rec(const void *pa, const void *pb) {
  const entity_rec *a = pa, *b = pb;
  if (a->type != b->type) return a->type < b->type ? -1 : 1;
  for (int k = 0; k < 4; k++)
    if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
  if (a->elem != b->elem) return a->elem < b->elem ? -1 : 1;
  return (a->slot > b->slot) - (a->slot < b->slot);
}

static void sort4(int *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      int t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

/* States of a slot and the axes it extends along (free[0] < free[1] < ...). */
static int slot_axes(int slot, int st[3], int freeax[3]) {
  int nfree = 0;
  st[0] = slot % 3;
  st[1] = (slot / 3) % 3;
  st[2] = slot / 9;
  for (int d = 0; d < 3; d++)
    if (st[d] == 1) freeax[nfree++] = d;
  return nfree;
}

/* Global vertex at the corner of an entity: fixed axes from the states, free axes from uv. */
static int entity_corner(const int *conn, const int st[3], const int *freeax, int nfree,
                         const int *uv) {
  int c[3];
  for (int d = 0; d < 3; d++) c[d] = st[d] / 2;
  for (int f = 0; f < nfree; f++) c[freeax[f]] = uv[f];
  return corner_vertex(conn, c);
}

/* Corners g[u][v] of a face slot, u along freeax[0] and v along freeax[1]. */
static void face_corners(const int *conn, const int st[3], const int *freeax, int g[2][2]) {
  for (int u = 0; u < 2; u++)
    for (int v = 0; v < 2; v++) {
      int uv[2] = {u, v};
      g[u][v] = entity_corner(conn, st, freeax, 2, uv);
    }
}

/* Index of node (i, j), 0 < i, j < P, of a face inside the face's block, in the canonical
 * frame: origin at the smallest vertex, first axis towards its smaller neighbour. */
static int face_offset(int P, const int g[2][2], int i, int j) {
  int su = 0, sv = 0;
  for (int u = 0; u < 2; u++)
    for (int v = 0; v < 2; v++)
      if (g[u][v] < g[su][sv]) su = u, sv = v;
  int iu = su ? P - i : i, jv = sv ? P - j : j;
  int p = iu, q = jv;
  if (g[su][1 - sv] < g[1 - su][sv]) p = jv, q = iu;
  return (p - 1) + (P - 1) * (q - 1);
}

static int entity_count(int P, int nfree) {
  int n = 1;
  for (int f = 0; f < nfree; f++) n *= P - 1;
  return n;
}

/* Determinant of the trilinear map's Jacobian at corner c of a hex8, from its three edges. */
static double corner_det(const double *vx, const int *conn, int ci, int cj, int ck) {
  int c[3] = {ci, cj, ck};
  const double *x0 = vx + 3 * (size_t)corner_vertex(conn, c);
  double e[3][3];
  for (int d = 0; d < 3; d++) {
    int o[3] = {ci, cj, ck};
    o[d] = 1 - o[d];
    const double *x1 = vx + 3 * (size_t)corner_vertex(conn, o);
    double sgn = c[d] ? -1.0 : 1.0; /* edge vector in the +xi_d direction */
    for (int k = 0; k < 3; k++) e[d][k] = sgn * (x1[k] - x0[k]);
  }
  return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

static dt_status check_elements(int n_vertices, const double *vx, int n_elems, const int *hex8,
                                dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int e = 0; e < n_elems; e++) {
    const int *conn = hex8 + 8 * (size_t)e;
    for (int a = 0; a < 8; a++) {
      DT_CHECK(conn[a] >= 0 && conn[a] < n_vertices, ctx, DT_ERR_INPUT,
               "element %d: vertex %d of the hex8 is %d, outside 0..%d", e, a + 1, conn[a],
               n_vertices - 1);
      for (int b = 0; b < a; b++)
        DT_CHECK(conn[a] != conn[b], ctx, DT_ERR_INPUT,
                 "element %d: vertices %d and %d of the hex8 are both %d", e, b + 1, a + 1,
                 conn[a]);
    }
    for (int k = 0; k < 8; k++) {
      double det = corner_det(vx, conn, k & 1, (k >> 1) & 1, k >> 2);
      DT_CHECK(det > 0.0, ctx, DT_ERR_INPUT,
               "element %d is inverted or degenerate: the hex8 Jacobian determinant at "
               "reference corner (%d,%d,%d) is %g (check the node order)",
               e, k & 1, (k >> 1) & 1, k >> 2, det);
    }
  }
cleanup:
  return rc;
}

static void fill_record(const int *conn, int e, int slot, entity_rec *r) {
  int st[3], fr[3], g[2][2];
  int nfree = slot_axes(slot, st, fr);
  memset(r, 0, sizeof(*r));
  r->type = nfree;
  r->elem = e;
  r->slot = slot;
  r->diag = -1;
  for (int k = 0; k < 4; k++) r->key[k] = -1;
  if (nfree == 0) {
    r->key[0] = entity_corner(conn, st, fr, 0, NULL);
  } else if (nfree == 1) {
    for (int u = 0; u < 2; u++) r->key[u] = entity_corner(conn, st, fr, 1, &u);
    sort4(r->key, 2);
  } else {
    face_corners(conn, st, fr, g);
    int su = 0, sv = 0;
    for (int u = 0; u < 2; u++)
      for (int v = 0; v < 2; v++) {
        r->key[2 * u + v] = g[u][v];
        if (g[u][v] < g[su][sv]) su = u, sv = v;
      }
    r->diag = g[1 - su][1 - sv];
    sort4(r->key, 4);
  }
}

/* Runs of at most this many records are sorted by insertion, longer ones by qsort. */
#define SHORT_RUN 64

static void sort_run(entity_rec *r, size_t n) {
  if (n > SHORT_RUN) {
    qsort(r, n, sizeof(*r), cmp_rec);
    return;
  }
  for (size_t i = 1; i < n; i++) {
    entity_rec t = r[i];
    size_t j = i;
    for (; j > 0 && cmp_rec(&r[j - 1], &t) > 0; j--) r[j] = r[j - 1];
    r[j] = t;
  }
}

/* Sorts rec into cmp_rec's order: a counting sort by (type, smallest vertex), then the short
 * runs that share both (the entities of one kind at one vertex: a few dozen records) one by
 * one. cmp_rec is a total order (an element's slots are distinct), so the result is the one
 * qsort gives, in linear time. */
static dt_status sort_records(entity_rec **rec, size_t nrec, int n_vertices, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t nb = 3 * (size_t)n_vertices, *start = NULL;
  entity_rec *out = NULL;
  DT_ALLOC(start, nb + 1, ctx, "high-order mesh entity buckets");
  DT_ALLOC(out, nrec, ctx, "high-order mesh entity records");
  for (size_t i = 0; i < nrec; i++)
    start[(size_t)(*rec)[i].type * n_vertices + (*rec)[i].key[0] + 1]++;
  for (size_t b = 0; b < nb; b++) start[b + 1] += start[b];
  for (size_t i = 0; i < nrec; i++)
    out[start[(size_t)(*rec)[i].type * n_vertices + (*rec)[i].key[0]]++] = (*rec)[i];
  for (size_t b = 0, lo = 0; b < nb; b++) { /* the placement left start[b] at bucket b's end */
    sort_run(out + lo, start[b] - lo);
    lo = start[b];
  }
  dt_free(*rec);
  *rec = out;
  out = NULL;
cleanup:
  dt_free(start);
  dt_free(out);
  return rc;
}

/* Node-id base of every (element, slot): shared entities once, then the element bodies. */
static dt_status number_entities(int P, int n_vertices, int n_elems, const int *hex8, int *base,
                                 int *n_nodes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  entity_rec *rec = NULL;
  size_t nrec = 0;
  int64_t next = 0;
  int per = 0; /* records per element: its shared entities that hold nodes at order P */
  for (int slot = 0; slot < N_SLOTS; slot++) {
    int st[3], fr[3], nfree = slot_axes(slot, st, fr);
    per += nfree < 3 && entity_count(P, nfree) > 0;
  }
  nrec = (size_t)per * n_elems;
  DT_ALLOC(rec, nrec, ctx, "high-order mesh entity records");
#pragma omp parallel for schedule(static) if (n_elems >= PARALLEL_ELEMS)
  for (int e = 0; e < n_elems; e++) {
    entity_rec *r = rec + (size_t)per * e;
    for (int slot = 0; slot < N_SLOTS; slot++) {
      int st[3], fr[3];
      int nfree = slot_axes(slot, st, fr);
      if (nfree == 3) continue;
      base[(size_t)e * N_SLOTS + slot] = -1;
      if (entity_count(P, nfree) == 0) continue;
      fill_record(hex8 + 8 * (size_t)e, e, slot, r++);
    }
  }
  DT_TRY(sort_records(&rec, nrec, n_vertices, ctx));
  for (size_t i = 0; i < nrec;) {
    size_t j = i + 1;
    while (j < nrec && rec[j].type == rec[i].type &&
           !memcmp(rec[j].key, rec[i].key, sizeof(rec[i].key)))
      j++;
    if (rec[i].type == 2) {
      DT_CHECK(j - i <= 2, ctx, DT_ERR_INPUT,
               "elements %d, %d and %d share the face with vertices %d %d %d %d; a conforming "
               "mesh shares a face between two elements at most",
               rec[i].elem, rec[i + 1].elem, rec[i + 2].elem, rec[i].key[0], rec[i].key[1],
               rec[i].key[2], rec[i].key[3]);
      DT_CHECK(j - i == 1 || rec[i].diag == rec[i + 1].diag, ctx, DT_ERR_INPUT,
               "elements %d and %d share vertices %d %d %d %d but not as the same quadrilateral "
               "face (different diagonals)",
               rec[i].elem, rec[i + 1].elem, rec[i].key[0], rec[i].key[1], rec[i].key[2],
               rec[i].key[3]);
    }
    for (size_t k = i; k < j; k++) base[(size_t)rec[k].elem * N_SLOTS + rec[k].slot] = (int)next;
    next += entity_count(P, rec[i].type);
    i = j;
  }
  for (int e = 0; e < n_elems; e++) {
    base[(size_t)e * N_SLOTS + 13] = (int)next; /* slot 13 = (1,1,1), the body */
    next += entity_count(P, 3);
    DT_CHECK(next <= INT_MAX, ctx, DT_ERR_INPUT,
             "element %d: the mesh has more than %d nodes at order %d (int node ids)", e, INT_MAX,
             P);
  }
  *n_nodes = (int)next;
cleanup:
  dt_free(rec);
  return rc;
}

/* Global node of element node (a, b, c). */
static int node_id(int P, const int *conn, const int *base, const int abc[3]) {
  int st[3], fr[3], slot = 0, scale = 1, g[2][2];
  for (int d = 0; d < 3; d++) {
    st[d] = abc[d] == 0 ? 0 : (abc[d] == P ? 2 : 1);
    slot += st[d] * scale;
    scale *= 3;
  }
  int nfree = slot_axes(slot, st, fr);
  int off = 0;
  if (nfree == 1) {
    int u0 = 0, u1 = 1, i = abc[fr[0]];
    int ga = entity_corner(conn, st, fr, 1, &u0), gb = entity_corner(conn, st, fr, 1, &u1);
    off = (ga < gb ? i : P - i) - 1;
  } else if (nfree == 2) {
    face_corners(conn, st, fr, g);
    off = face_offset(P, g, abc[fr[0]], abc[fr[1]]);
  } else if (nfree == 3) {
    off = (abc[0] - 1) + (P - 1) * ((abc[1] - 1) + (P - 1) * (abc[2] - 1));
  }
  return base[slot] + off;
}

/* Trilinear image of reference point xi under the hex8 with vertices conn. */
static void trilinear(const double *vx, const int *conn, const double xi[3], double x[3]) {
  x[0] = x[1] = x[2] = 0.0;
  for (int k = 0; k < 8; k++) {
    int c[3] = {k & 1, (k >> 1) & 1, k >> 2};
    double w = 1.0;
    for (int d = 0; d < 3; d++) w *= 0.5 * (c[d] ? 1.0 + xi[d] : 1.0 - xi[d]);
    const double *v = vx + 3 * (size_t)corner_vertex(conn, c);
    for (int d = 0; d < 3; d++) x[d] += w * v[d];
  }
}

static dt_status place_nodes(int P, const double *vx, int n_elems, const int *hex8,
                             dt_ho_map_fn map, void *user, dt_ho_mesh *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  unsigned char *done = NULL;
  double node[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES];
  int P1 = P + 1;
  DT_TRY(dt_ho_gauss_lobatto(P1, node, w, ctx));
  DT_ALLOC(done, m->n_nodes, ctx, "high-order node flags");
  for (int e = 0; e < n_elems; e++)
    for (int c = 0; c < P1; c++)
      for (int b = 0; b < P1; b++)
        for (int a = 0; a < P1; a++) {
          int n = m->elem_nodes[(size_t)e * P1 * P1 * P1 + dt_ho_lex(P, a, b, c)];
          if (done[n]) continue; /* first element wins, so shared nodes are bitwise equal */
          double xi[3] = {node[a], node[b], node[c]}, x[3];
          trilinear(vx, hex8 + 8 * (size_t)e, xi, x);
          if (map)
            map(x, m->coords + 3 * (size_t)n, user);
          else
            memcpy(m->coords + 3 * (size_t)n, x, sizeof(x));
          done[n] = 1;
        }
cleanup:
  dt_free(done);
  return rc;
}

dt_status dt_ho_mesh_build(int order, int n_vertices, const double *vx, int n_elems,
                           const int *hex8, dt_ho_map_fn map, void *user, dt_ho_mesh *m,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *base = NULL;
  int P = order, P1 = order + 1;
  memset(m, 0, sizeof(*m));
  DT_CHECK(order >= 1 && order <= DT_HO_MESH_MAX_ORDER, ctx, DT_ERR_INPUT,
           "element order %d is outside 1..%d", order, DT_HO_MESH_MAX_ORDER);
  DT_CHECK(n_elems >= 1 && n_vertices >= 8, ctx, DT_ERR_INPUT,
           "a hexahedral mesh needs at least one element and 8 vertices (%d elements, %d "
           "vertices)",
           n_elems, n_vertices);
  DT_CHECK((int64_t)P1 * P1 * P1 * n_elems <= INT_MAX, ctx, DT_ERR_INPUT,
           "element %d: %d elements of order %d have %lld element nodes, more than int node "
           "ids allow (%d)",
           (int)(INT_MAX / ((int64_t)P1 * P1 * P1)), n_elems, order,
           (long long)P1 * P1 * P1 * n_elems, INT_MAX);
  DT_TRY(check_elements(n_vertices, vx, n_elems, hex8, ctx));
  DT_ALLOC(base, (size_t)n_elems * N_SLOTS, ctx, "high-order mesh entity bases");
  DT_TRY(number_entities(P, n_vertices, n_elems, hex8, base, &m->n_nodes, ctx));
  m->order = order;
  m->n_elems = n_elems;
  DT_ALLOC(m->elem_nodes, (size_t)n_elems * P1 * P1 * P1, ctx, "high-order element nodes");
  DT_ALLOC(m->coords, (size_t)m->n_nodes * 3, ctx, "high-order node coordinates");
  /* each element's row on its own: the elements are independent */
#pragma omp parallel for schedule(static) if (n_elems >= PARALLEL_ELEMS)
  for (int e = 0; e < n_elems; e++) {
    int *row = m->elem_nodes + (size_t)e * P1 * P1 * P1;
    for (int c = 0; c < P1; c++)
      for (int b = 0; b < P1; b++)
        for (int a = 0; a < P1; a++) {
          int abc[3] = {a, b, c};
          row[dt_ho_lex(P, a, b, c)] =
              node_id(P, hex8 + 8 * (size_t)e, base + (size_t)e * N_SLOTS, abc);
        }
  }
  DT_TRY(place_nodes(P, vx, n_elems, hex8, map, user, m, ctx));
cleanup:
  dt_free(base);
  if (rc != DT_OK) dt_ho_mesh_free(m);
  return rc;
}

void dt_ho_mesh_free(dt_ho_mesh *m) {
  if (!m) return;
  dt_free(m->elem_nodes);
  dt_free(m->coords);
  memset(m, 0, sizeof(*m));
}
