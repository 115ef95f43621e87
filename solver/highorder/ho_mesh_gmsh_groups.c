/* Physical groups of a Gmsh order-P mesh (ho_mesh_gmsh.h) as node sets of the dt_ho_mesh.
 *
 * Lower-dimensional Gmsh elements are matched to the hexahedra by their corner nodes only (their
 * high-order nodes lie on the same edge or face, which the order-P mesh numbers itself): a
 * quadrangle of any order to the hexahedron face with the same 4 corners, whose nodes
 * dt_ho_mesh_mark_faces marks; a line to the element edge between its 2 end nodes; a point to its
 * vertex. A volume group takes its hexahedra and their nodes. With refinement R every Gmsh
 * hexahedron is R^3 mesh elements: a face gives its R^2 sub-faces, a volume its R^3 elements,
 * a line or point the nodes of the refined lattice on it (ho_gmsh_node_at). The search goes through the
 * hexahedra around the element's first corner (a vertex -> hexahedra incidence). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_mesh_gmsh_internal.h"

#define CORNER HO_GMSH_CORNER

typedef struct incidence {
  int *ptr, *item; /* vertex v -> items ptr[v]..ptr[v+1]-1, each 8 h + corner */
} incidence;

static dt_status incidence_build(const hexes *H, incidence *I, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_ALLOC(I->ptr, (size_t)H->nv + 1, ctx, "vertex incidence");
  DT_ALLOC(I->item, 8 * (size_t)H->n, ctx, "vertex incidence");
  for (int k = 0; k < 8 * H->n; k++) I->ptr[H->hex8[k] + 1]++;
  for (int v = 0; v < H->nv; v++) I->ptr[v + 1] += I->ptr[v];
  for (int k = 0; k < 8 * H->n; k++) I->item[I->ptr[H->hex8[k]]++] = k;
  for (int v = H->nv; v > 0; v--) I->ptr[v] = I->ptr[v - 1];
  I->ptr[0] = 0;
cleanup:
  return rc;
}

static void sort4(int *v) {
  for (int i = 1; i < 4; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      int t = v[j];
      v[j] = v[j - 1], v[j - 1] = t;
    }
}

/* The hexahedron face (0-based S1..S6) with corner vertices v[4]: *h, *face; 0 if none. */
static int find_face(const hexes *H, const incidence *I, const int *v, int *h, int *face) {
  int want[4] = {v[0], v[1], v[2], v[3]};
  sort4(want);
  for (int i = I->ptr[v[0]]; i < I->ptr[v[0] + 1]; i++)
    for (int f = 0; f < 6; f++) {
      int axis = 0, side = 0, got[4], n = 0, e = I->item[i] / 8;
      dt_ho_hex_face_axis(f, &axis, &side);
      for (int c = 0; c < 8; c++)
        if (CORNER[c][axis] == side) got[n++] = H->hex8[8 * e + c];
      sort4(got);
      if (memcmp(got, want, sizeof got) == 0) {
        *h = e, *face = f;
        return 1;
      }
    }
  return 0;
}

/* Marks the nodes of the element edge from vertex v0 to v1 (all R sub-edges); 0 if no
 * hexahedron has that edge. */
static int mark_edge(const hexes *H, const incidence *I, const dt_ho_mesh *m, int v0, int v1,
                     unsigned char *mark) {
  int RP = H->R * m->order;
  for (int i = I->ptr[v0]; i < I->ptr[v0 + 1]; i++) {
    int e = I->item[i] / 8, c0 = I->item[i] % 8;
    for (int c1 = 0; c1 < 8; c1++) {
      int diff = 0, g[3];
      if (H->hex8[8 * e + c1] != v1) continue;
      for (int d = 0; d < 3; d++) diff += CORNER[c0][d] != CORNER[c1][d];
      if (diff != 1) continue;
      for (int t = 0; t <= RP; t++) {
        for (int d = 0; d < 3; d++) g[d] = CORNER[c0][d] * RP + t * (CORNER[c1][d] - CORNER[c0][d]);
        mark[ho_gmsh_node_at(H, m, e, g[0], g[1], g[2])] = 1;
      }
      return 1;
    }
  }
  return 0;
}

static int is_quadrangle(int type) {
  static const int q[9] = {3, 10, 16, 36, 37, 38, 47, 48, 49};
  for (int i = 0; i < 9; i++)
    if (q[i] == type) return 1;
  return 0;
}

/* The vertices of the first n nodes of raw element e; 0 when one is no hexahedron corner. */
static int corner_vertices(const hexes *H, int e, int n, int *v) {
  for (int k = 0; k < n; k++)
    if ((v[k] = dt_imp_idmap_find(&H->verts, H->g.elem_nodes[H->g.elem_ptr[e] + k])) < 0) return 0;
  return 1;
}

static dt_status add_face(hexes *H, const incidence *I, dt_ho_gmsh_group *gr, int e) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int v[4], h = -1, f = -1, d = 0, t = 0;
  const char *name = NULL;

  gm_type_info(g->elem_type[e], &d, &t, &name);
  GM_CHECK(is_quadrangle(g->elem_type[e]), g,
           "physical group \"%s\": element %lld is a %s; a surface of a hexahedral mesh is made "
           "of quadrangles",
           gr->name, (long long)g->elem_tag[e], name);
  GM_CHECK(corner_vertices(H, e, 4, v) && find_face(H, I, v, &h, &f), g,
           "physical group \"%s\": quadrangle %lld is not a face of any hexahedron", gr->name,
           (long long)g->elem_tag[e]);
  { /* the R^2 sub-faces: the sub-hexahedra on that side, the same face of each */
    int axis = 0, side = 0, s[3];
    dt_ho_hex_face_axis(f, &axis, &side);
    s[axis] = side * (H->R - 1);
    for (int j = 0; j < H->R; j++)
      for (int i = 0; i < H->R; i++) {
        s[(axis + 1) % 3] = i, s[(axis + 2) % 3] = j;
        gr->face_elem[gr->n_faces] = ho_gmsh_sub(H, h, s[0], s[1], s[2]);
        gr->face[gr->n_faces++] = f;
      }
  }
cleanup:
  return rc;
}

static dt_status add_lower(hexes *H, const incidence *I, const dt_ho_mesh *m, dt_ho_gmsh_group *gr,
                           int e, unsigned char *mark) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int v[2], RP = H->R * m->order;

  if (g->elem_dim[e] == 1) {
    GM_CHECK(corner_vertices(H, e, 2, v) && mark_edge(H, I, m, v[0], v[1], mark), g,
             "physical group \"%s\": line %lld is not an edge of any hexahedron", gr->name,
             (long long)g->elem_tag[e]);
  } else {
    GM_CHECK(corner_vertices(H, e, 1, v), g,
             "physical group \"%s\": point %lld is not a corner of any hexahedron", gr->name,
             (long long)g->elem_tag[e]);
    int it = I->item[I->ptr[v[0]]], c = it % 8;
    mark[ho_gmsh_node_at(H, m, it / 8, CORNER[c][0] * RP, CORNER[c][1] * RP, CORNER[c][2] * RP)] =
        1;
  }
cleanup:
  return rc;
}

static int has_tag(const gm *g, int e, int dim, int tag) {
  int one = 0, n = 0;
  const int *tags = NULL;
  if (g->elem_dim[e] != dim) return 0;
  gm_elem_phys(g, e, &one, &tags, &n);
  for (int i = 0; i < n; i++)
    if (tags[i] == tag) return 1;
  return 0;
}

/* One group: its elements or faces, then its nodes from the marks. */
static dt_status build_group(hexes *H, const incidence *I, const dt_ho_mesh *m,
                             dt_ho_gmsh_group *gr, unsigned char *mark) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int cnt = 0, np = (m->order + 1) * (m->order + 1) * (m->order + 1), R3 = H->R * H->R * H->R;

  memset(mark, 0, (size_t)m->n_nodes);
  for (int e = 0; e < g->n_elems; e++) cnt += has_tag(g, e, gr->dim, gr->tag);
  if (gr->dim == 2) DT_ALLOC(gr->face_elem, (size_t)cnt * H->R * H->R, g->ctx, "group faces");
  if (gr->dim == 2) DT_ALLOC(gr->face, (size_t)cnt * H->R * H->R, g->ctx, "group faces");
  if (gr->dim == 3) DT_ALLOC(gr->elems, (size_t)cnt * R3, g->ctx, "group elements");
  for (int e = 0; e < g->n_elems; e++) {
    if (!has_tag(g, e, gr->dim, gr->tag)) continue;
    g->line = g->elem_line[e];
    if (gr->dim == 3) {
      for (int k = 0; k < R3; k++) { /* its R^3 sub-hexahedra, consecutive in the mesh */
        int h = H->hex_of[e] * R3 + k;
        gr->elems[gr->n_elems++] = h;
        for (int a = 0; a < np; a++) mark[m->elem_nodes[(size_t)h * np + a]] = 1;
      }
    } else if (gr->dim == 2) {
      DT_TRY(add_face(H, I, gr, e));
    } else {
      DT_TRY(add_lower(H, I, m, gr, e, mark));
    }
  }
  if (gr->dim == 2)
    DT_TRY(dt_ho_mesh_mark_faces(m, gr->n_faces, gr->face_elem, gr->face, mark, g->ctx));
  for (int n = 0; n < m->n_nodes; n++) gr->n_nodes += mark[n];
  DT_ALLOC(gr->nodes, gr->n_nodes, g->ctx, "group nodes");
  gr->n_nodes = 0;
  for (int n = 0; n < m->n_nodes; n++)
    if (mark[n]) gr->nodes[gr->n_nodes++] = n;
cleanup:
  return rc;
}

/* The distinct (dim, tag) pairs, in order of first appearance. */
static dt_status list_groups(hexes *H, dt_ho_gmsh_groups *G) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int total = 0, one = 0, n = 0;
  const int *tags = NULL;

  for (int e = 0; e < g->n_elems; e++) gm_elem_phys(g, e, &one, &tags, &n), total += n;
  DT_ALLOC(G->group, total, g->ctx, "physical groups");
  for (int e = 0; e < g->n_elems; e++) {
    gm_elem_phys(g, e, &one, &tags, &n);
    for (int t = 0; t < n; t++) {
      int i = 0, tag = tags[t];
      while (i < G->n && !(G->group[i].dim == g->elem_dim[e] && G->group[i].tag == tag)) i++;
      if (i < G->n) continue;
      G->group[i].dim = g->elem_dim[e], G->group[i].tag = tag;
      gm_group_name(g, g->elem_dim[e], tag, G->group[i].name);
      G->n++;
    }
  }
cleanup:
  return rc;
}

dt_status ho_gmsh_groups_build(hexes *H, const dt_ho_mesh *m, dt_ho_gmsh_groups *G) {
  dt_status rc = DT_OK;
  incidence I = {0};
  unsigned char *mark = NULL;

  DT_TRY(list_groups(H, G));
  if (G->n == 0) goto cleanup;
  DT_TRY(incidence_build(H, &I, H->g.ctx));
  DT_ALLOC(mark, m->n_nodes, H->g.ctx, "node marks");
  for (int i = 0; i < G->n; i++) DT_TRY(build_group(H, &I, m, &G->group[i], mark));
cleanup:
  dt_free(I.ptr), dt_free(I.item), dt_free(mark);
  return rc;
}

void dt_ho_gmsh_groups_free(dt_ho_gmsh_groups *G) {
  if (!G) return;
  for (int i = 0; i < G->n; i++) {
    dt_ho_gmsh_group *gr = &G->group[i];
    dt_free(gr->nodes), dt_free(gr->face_elem), dt_free(gr->face), dt_free(gr->elems);
  }
  dt_free(G->group);
  memset(G, 0, sizeof *G);
}

const dt_ho_gmsh_group *dt_ho_gmsh_group_find(const dt_ho_gmsh_groups *G, const char *name) {
  for (int i = 0; G && i < G->n; i++)
    if (strcmp(G->group[i].name, name) == 0) return &G->group[i];
  return NULL;
}
