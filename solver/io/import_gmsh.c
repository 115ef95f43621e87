/* The Gmsh importer: raw .msh sections (import_gmsh_read.c) -> a mesh-only dt_model.
 *
 * The model's elements are those of the highest dimension in the file (3D: tet4, tet10, hex8,
 * hex20, wedge6, wedge15; 2D: tri3, quad4, quad8, quad9, quad16, in the x-y plane);
 * lower-dimensional elements only carry physical groups.
 * Node order is converted to CalculiX's (tet10: Gmsh numbers the last two mid-edge nodes the
 * other way round; hex20 and wedge15: Gmsh lists the mid-edge nodes in another order,
 * gmsh_local) and every element is turned to a positive orientation (a surface meshed with its
 * normal along -z gives clockwise triangles). Physical groups become, by name:
 *   - of the model's dimension: an element set and a node set (its elements' nodes);
 *   - one dimension lower: a surface (the element faces they cover) and a node set;
 *   - lower still (points, curves in 3D): a node set.
 * A group without a name is called "physical<tag>". Ids are Gmsh's node and element tags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../element/element.h"
#include "model/model_internal.h"
#include "import_gmsh_internal.h"

int gm_type_info(int type, int *dim, int *dt_type, const char **name) {
  static const struct {
    int type, npe, dim, dt;
    const char *name;
  } t[] = {
      {1, 2, 1, -1, "2-node line"},
      {2, 3, 2, DT_ELEM_TRI3, "3-node triangle"},
      {3, 4, 2, DT_ELEM_QUAD4, "4-node quadrangle"},
      {4, 4, 3, DT_ELEM_TET4, "4-node tetrahedron"},
      {5, 8, 3, DT_ELEM_HEX8, "8-node hexahedron"},
      {6, 6, 3, DT_ELEM_WEDGE6, "6-node prism"},
      {7, 5, 3, -1, "5-node pyramid"},
      {8, 3, 1, -1, "3-node line"},
      {9, 6, 2, -1, "6-node triangle"},
      {10, 9, 2, DT_ELEM_QUAD9, "9-node quadrangle"},
      {11, 10, 3, DT_ELEM_TET10, "10-node tetrahedron"},
      {12, 27, 3, -1, "27-node hexahedron"},
      {13, 18, 3, -1, "18-node prism"},
      {14, 14, 3, -1, "14-node pyramid"},
      {15, 1, 0, -1, "point"},
      {16, 8, 2, DT_ELEM_QUAD8, "8-node quadrangle"},
      {17, 20, 3, DT_ELEM_HEX20, "20-node hexahedron"},
      {18, 15, 3, DT_ELEM_WEDGE15, "15-node prism"},
      {19, 13, 3, -1, "13-node pyramid"},
      {26, 4, 1, -1, "4-node line"},
      {36, 16, 2, DT_ELEM_QUAD16, "16-node quadrangle"},
      /* Orders 4-8 of lines and quadrangles and 3-8 of hexahedra: read for the order-P meshes
       * of highorder/ho_mesh_gmsh.c, refused as domain elements here. */
      {27, 5, 1, -1, "5-node line"},
      {28, 6, 1, -1, "6-node line"},
      {62, 7, 1, -1, "7-node line"},
      {63, 8, 1, -1, "8-node line"},
      {64, 9, 1, -1, "9-node line"},
      {37, 25, 2, -1, "25-node quadrangle"},
      {38, 36, 2, -1, "36-node quadrangle"},
      {47, 49, 2, -1, "49-node quadrangle"},
      {48, 64, 2, -1, "64-node quadrangle"},
      {49, 81, 2, -1, "81-node quadrangle"},
      {92, 64, 3, -1, "64-node hexahedron"},
      {93, 125, 3, -1, "125-node hexahedron"},
      {94, 216, 3, -1, "216-node hexahedron"},
      {95, 343, 3, -1, "343-node hexahedron"},
      {96, 512, 3, -1, "512-node hexahedron"},
      {97, 729, 3, -1, "729-node hexahedron"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (t[i].type == type) {
      *dim = t[i].dim, *dt_type = t[i].dt, *name = t[i].name;
      return t[i].npe;
    }
  return 0;
}

int gm_hex_order(int type) {
  static const int types[9] = {0, 5, 12, 92, 93, 94, 95, 96, 97};
  for (int p = 1; p <= 8; p++)
    if (types[p] == type) return p;
  return 0;
}

/* Gmsh's node a of an element is CalculiX's node gmsh_local(type, a). tet10: edges 3-4 and
 * 2-4 are swapped. hex20: Gmsh's mid-edge nodes 8-19 lie on edges (0-based corners) 0-1, 0-3,
 * 0-4, 1-2, 1-5, 2-3, 2-6, 3-7, 4-5, 4-7, 5-6, 6-7 (the Gmsh reference manual, "Node ordering"),
 * CalculiX's on 0-1, 1-2, 2-3, 3-0, 4-5, 5-6, 6-7, 7-4, 0-4, 1-5, 2-6, 3-7. wedge15: Gmsh's
 * mid-edge nodes 6-14 lie on edges 0-1, 0-2, 0-3, 1-2, 1-4, 2-5, 3-4, 3-5, 4-5 (the same
 * manual's 15-node prism, and what gmsh 4.8 writes), CalculiX's on 0-1, 1-2, 2-0, 3-4, 4-5,
 * 5-3, 0-3, 1-4, 2-5. Both put the corners where the wedges' reference element does. */
static int gmsh_local(int dt_type, int a) {
  static const int hex20[12] = {8, 11, 16, 9, 17, 10, 18, 19, 12, 15, 13, 14};
  static const int wedge15[9] = {6, 8, 12, 7, 13, 14, 9, 11, 10};
  if (dt_type == DT_ELEM_TET10 && (a == 8 || a == 9)) return a == 8 ? 9 : 8;
  if (dt_type == DT_ELEM_HEX20 && a >= 8) return hex20[a - 8];
  if (dt_type == DT_ELEM_WEDGE15 && a >= 6) return wedge15[a - 6];
  return a;
}

/* Nodes element e contributes to the model and its ductile type: in corners mode a Lagrange
 * hexahedron of any order is the hex8 of its first 8 nodes (its corners). */
static int elem_npe(const gm *g, int e, int *dt_type) {
  int d = 0;
  const char *name = NULL;
  if (g->corners && gm_hex_order(g->elem_type[e]) > 0) {
    *dt_type = DT_ELEM_HEX8;
    return 8;
  }
  return gm_type_info(g->elem_type[e], &d, dt_type, &name);
}

static dt_status model_dim(gm *g, int *dim) {
  dt_status rc = DT_OK;
  int t = 0;
  const char *name = NULL;

  *dim = 0;
  for (int e = 0; e < g->n_elems; e++) *dim = g->elem_dim[e] > *dim ? g->elem_dim[e] : *dim;
  g->line = 0;
  GM_CHECK(*dim >= 2, g, "the mesh has no 2D or 3D elements");
  for (int e = 0; e < g->n_elems; e++) {
    if (g->elem_dim[e] != *dim) continue;
    gm_type_info(g->elem_type[e], &t, &t, &name);
    g->line = g->elem_line[e];
    if (g->corners && gm_hex_order(g->elem_type[e]) > 0) continue;
    GM_CHECK(t >= 0 || gm_hex_order(g->elem_type[e]) < 2, g,
             "element %lld: Gmsh element type %d (%s) is a hexahedron of order %d: order-P "
             "meshes run through ductile-solve MESH.msh --job LOADS.json only "
             "(docs/highorder.md)",
             (long long)g->elem_tag[e], g->elem_type[e], name, gm_hex_order(g->elem_type[e]));
    GM_CHECK(t >= 0, g, "element %lld: Gmsh element type %d (%s) is not supported (%s)",
             (long long)g->elem_tag[e], g->elem_type[e], name,
             *dim == 3 ? "3D: 4-node and 10-node tetrahedra, 8-node and 20-node hexahedra, "
                         "6-node and 15-node prisms"
                       : "2D: 3-node triangles, 4-, 8-, 9- and 16-node quadrangles");
  }
cleanup:
  return rc;
}

/* Nodes used by the domain elements, in file order, and the element arrays of the model. */
static dt_status build_mesh(gm *g, dt_model *m, int dim, dt_imp_idmap *nodes) {
  dt_status rc = DT_OK;
  int *used = NULL, ne = 0, nc = 0, n = 0, a = -1, b = -1, k = 0, t = 0;
  double X[3 * DT_ELEM_MAX_NODES];

  DT_TRY(dt_imp_idmap_build(nodes, g->node_tag, g->n_nodes, &a, &b, g->ctx));
  GM_CHECK(a < 0, g, "node %lld is defined twice", (long long)g->node_tag[a]);
  DT_ALLOC(used, g->n_nodes, g->ctx, "node flags");
  for (int e = 0; e < g->n_elems; e++)
    if (g->elem_dim[e] == dim) ne++, nc += elem_npe(g, e, &t);
  for (int e = 0; e < g->n_elems; e++)
    for (int j = g->elem_ptr[e]; j < g->elem_ptr[e + 1]; j++) {
      int i = dt_imp_idmap_find(nodes, g->elem_nodes[j]);
      g->line = g->elem_line[e];
      GM_CHECK(i >= 0, g, "element %lld refers to node %lld, which does not exist",
               (long long)g->elem_tag[e], (long long)g->elem_nodes[j]);
      if (g->elem_dim[e] == dim && j < g->elem_ptr[e] + elem_npe(g, e, &t)) used[i] = 1;
    }
  for (int i = 0; i < g->n_nodes; i++) n += used[i];
  DT_ALLOC(m->x, 3 * (size_t)n, g->ctx, "node coordinates");
  DT_ALLOC(m->node_id, n, g->ctx, "node ids");
  for (int i = 0; i < g->n_nodes; i++) {
    if (!used[i]) continue;
    memcpy(&m->x[3 * k], &g->x[3 * i], 3 * sizeof(double));
    m->node_id[k++] = g->node_tag[i];
  }
  m->n_nodes = n;
  DT_ALLOC(m->elem_type, ne, g->ctx, "element types");
  DT_ALLOC(m->elem_ptr, (size_t)ne + 1, g->ctx, "element offsets");
  DT_ALLOC(m->conn, nc, g->ctx, "connectivity");
  DT_ALLOC(m->elem_id, ne, g->ctx, "element ids");
  DT_TRY(dt_imp_idmap_build(nodes, m->node_id, n, &a, &b, g->ctx)); /* now: tag -> model index */
  k = 0;
  for (int e = 0; e < g->n_elems; e++) {
    int npe = 0, *c = NULL;
    if (g->elem_dim[e] != dim) continue;
    npe = elem_npe(g, e, &t);
    c = &m->conn[m->elem_ptr[k]];
    for (int j = 0; j < npe; j++)
      c[gmsh_local(t, j)] = dt_imp_idmap_find(nodes, g->elem_nodes[g->elem_ptr[e] + j]);
    for (int j = 0; j < npe; j++) memcpy(&X[3 * j], &m->x[3 * c[j]], 3 * sizeof(double));
    if (dt_imp_orientation(t, X) < 0) dt_imp_flip(t, c);
    m->elem_type[k] = (unsigned char)t;
    m->elem_id[k] = g->elem_tag[e];
    m->elem_ptr[k + 1] = m->elem_ptr[k] + npe;
    k++;
  }
  m->n_elems = ne;
  m->dim = dim;
cleanup:
  dt_free(used);
  return rc;
}

typedef struct face_rec {
  int key[4]; /* sorted corner nodes, -1 padded */
  int elem, face;
} face_rec;

static int face_cmp(const void *a, const void *b) {
  const face_rec *x = a, *y = b;
  for (int k = 0; k < 4; k++)
    if (x->key[k] != y->key[k]) return (x->key[k] > y->key[k]) - (x->key[k] < y->key[k]);
  return (x->elem > y->elem) - (x->elem < y->elem);
}

static void sort_key(int *key, int n) {
  for (int k = n; k < 4; k++) key[k] = -1;
  for (int i = 1; i < 4; i++)
    for (int j = i; j > 0 && key[j - 1] > key[j]; j--) {
      int t = key[j];
      key[j] = key[j - 1], key[j - 1] = t;
    }
}

/* Every face of every model element, sorted by corner nodes. */
static dt_status build_faces(gm *g, const dt_model *m, face_rec **out, int *n_out) {
  dt_status rc = DT_OK;
  face_rec *f = NULL;
  int n = 0, local[4];

  for (int e = 0; e < m->n_elems; e++) n += dt_model_elem_nfaces(m->elem_type[e]);
  DT_ALLOC(f, n, g->ctx, "element faces");
  n = 0;
  for (int e = 0; e < m->n_elems; e++)
    for (int s = 0; s < dt_model_elem_nfaces(m->elem_type[e]); s++, n++) {
      int nc = dt_imp_face_corners(m->elem_type[e], s, local);
      for (int k = 0; k < nc; k++) f[n].key[k] = m->conn[m->elem_ptr[e] + local[k]];
      sort_key(f[n].key, nc);
      f[n].elem = e, f[n].face = s;
    }
  qsort(f, (size_t)n, sizeof *f, face_cmp);
  *out = f;
  *n_out = n;
cleanup:
  return rc;
}

static const face_rec *find_face(const face_rec *f, int n, const int *key) {
  int lo = 0, hi = n - 1;

  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, c = memcmp(f[mid].key, key, sizeof f[mid].key) == 0 ? 0 : 1;
    if (c == 0) {
      while (mid > 0 && memcmp(f[mid - 1].key, key, sizeof f[mid].key) == 0)
        mid--; /* the first match */
      return &f[mid];
    }
    c = 0;
    for (int k = 0; k < 4 && c == 0; k++) c = (f[mid].key[k] > key[k]) - (f[mid].key[k] < key[k]);
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

/* Working state for turning physical groups into sets. */
typedef struct groups {
  int n, *dim, *tag, *nset, *elset, *surface;
  int *nset_cap, *elset_cap, *surf_cap;
} groups;

static void groups_free(groups *G) {
  dt_free(G->dim), dt_free(G->tag), dt_free(G->nset), dt_free(G->elset), dt_free(G->surface);
  dt_free(G->nset_cap), dt_free(G->elset_cap), dt_free(G->surf_cap);
}

void gm_elem_phys(const gm *g, int e, int *one, const int **tags, int *n) {
  *n = 0;
  if (g->version == 2) { /* 2.2: the first element tag is the physical group */
    *one = g->elem_ent[e];
    *tags = one, *n = *one > 0;
    return;
  }
  for (int i = 0; i < g->n_ents; i++)
    if (g->ents[i].dim == g->elem_dim[e] && g->ents[i].tag == g->elem_ent[e]) {
      *tags = &g->ent_phys[g->ents[i].phys0], *n = g->ents[i].n_phys;
      return;
    }
}

void gm_group_name(const gm *g, int dim, int tag, char name[DT_NAME_MAX]) {
  for (int i = 0; i < g->n_groups; i++)
    if (g->groups[i].dim == dim && g->groups[i].tag == tag && g->groups[i].name[0]) {
      snprintf(name, DT_NAME_MAX, "%s", g->groups[i].name);
      return;
    }
  snprintf(name, DT_NAME_MAX, "physical%d", tag);
}

static int find_named(const void *arr, size_t stride, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp((const char *)arr + (size_t)i * stride, name) == 0) return i;
  return -1;
}

/* The group (dim, tag), created with its node set (shared by name) on first use. */
static dt_status group_of(gm *g, dt_model *m, groups *G, int dim, int tag, int *out) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX];
  int i = 0;

  for (i = 0; i < G->n && !(G->dim[i] == dim && G->tag[i] == tag); i++) continue;
  if (i == G->n) {
    gm_group_name(g, dim, tag, name);
    G->dim[i] = dim, G->tag[i] = tag, G->elset[i] = G->surface[i] = -1;
    G->nset[i] = find_named(m->nsets, sizeof *m->nsets, m->n_nsets, name);
    if (G->nset[i] < 0) {
      G->nset[i] = m->n_nsets++;
      memcpy(m->nsets[G->nset[i]].name, name, DT_NAME_MAX);
    }
    G->n++;
  }
  *out = i;
  return rc;
}

static dt_status add_nodes(gm *g, dt_model *m, groups *G, int gi, int e,
                           const dt_imp_idmap *nodes) {
  dt_status rc = DT_OK;

  for (int j = g->elem_ptr[e]; j < g->elem_ptr[e + 1]; j++) {
    int i = dt_imp_idmap_find(nodes, g->elem_nodes[j]);
    if (i < 0 && g->corners) continue; /* a high-order node: the corners carry the set */
    GM_CHECK(i >= 0, g, "physical group \"%s\": node %lld is not a node of any %dD element",
             m->nsets[G->nset[gi]].name, (long long)g->elem_nodes[j], m->dim);
    DT_TRY(dt_imp_set_add(&m->nsets[G->nset[gi]], &G->nset_cap[G->nset[gi]], i, g->ctx));
  }
cleanup:
  return rc;
}

static dt_status add_face(gm *g, dt_model *m, groups *G, int gi, int e, const face_rec *f, int nf,
                          const dt_imp_idmap *nodes) {
  dt_status rc = DT_OK;
  const char *name = m->nsets[G->nset[gi]].name;
  const face_rec *hit = NULL;
  dt_surface *sf = NULL;
  static const int quads[9] = {3, 10, 16, 36, 37, 38, 47, 48, 49};
  int key[4], nc = m->dim == 3 ? 3 : 2;
  int cap = 0;

  for (int q = 0; q < 9 && m->dim == 3; q++)
    if (g->elem_type[e] == quads[q]) nc = 4;
  for (int k = 0; k < nc; k++) key[k] = dt_imp_idmap_find(nodes, g->elem_nodes[g->elem_ptr[e] + k]);
  sort_key(key, nc);
  hit = find_face(f, nf, key);
  GM_CHECK(hit != NULL, g, "physical group \"%s\": element %lld is not a face of any %dD element",
           name, (long long)g->elem_tag[e], m->dim);
  if (G->surface[gi] < 0) {
    G->surface[gi] = m->n_surfaces++;
    memcpy(m->surfaces[G->surface[gi]].name, name, DT_NAME_MAX);
  }
  sf = &m->surfaces[G->surface[gi]];
  cap = G->surf_cap[G->surface[gi]];
  DT_TRY(dt_imp_reserve((void **)&sf->elem, &G->surf_cap[G->surface[gi]], (size_t)sf->n + 1,
                        sizeof(int), g->ctx));
  DT_TRY(dt_imp_reserve((void **)&sf->face, &cap, (size_t)sf->n + 1, sizeof(int), g->ctx));
  sf->elem[sf->n] = hit->elem;
  sf->face[sf->n++] = hit->face;
cleanup:
  return rc;
}

static dt_status build_groups(gm *g, dt_model *m, const dt_imp_idmap *nodes) {
  dt_status rc = DT_OK;
  groups G;
  face_rec *f = NULL;
  int nf = 0, total = 0, k = 0, one = 0, n = 0, gi = 0;
  const int *tags = NULL;

  memset(&G, 0, sizeof G);
  for (int e = 0; e < g->n_elems; e++) gm_elem_phys(g, e, &one, &tags, &n), total += n;
  if (total == 0) goto cleanup;
  DT_ALLOC(G.dim, total, g->ctx, "groups");
  DT_ALLOC(G.tag, total, g->ctx, "groups");
  DT_ALLOC(G.nset, total, g->ctx, "groups");
  DT_ALLOC(G.elset, total, g->ctx, "groups");
  DT_ALLOC(G.surface, total, g->ctx, "groups");
  DT_ALLOC(G.nset_cap, total, g->ctx, "groups");
  DT_ALLOC(G.elset_cap, total, g->ctx, "groups");
  DT_ALLOC(G.surf_cap, total, g->ctx, "groups");
  DT_ALLOC(m->nsets, total, g->ctx, "node sets");
  DT_ALLOC(m->elsets, total, g->ctx, "element sets");
  DT_ALLOC(m->surfaces, total, g->ctx, "surfaces");
  DT_TRY(build_faces(g, m, &f, &nf));
  for (int e = 0; e < g->n_elems; e++) {
    int model_e = g->elem_dim[e] == m->dim ? k++ : -1;
    g->line = g->elem_line[e];
    gm_elem_phys(g, e, &one, &tags, &n);
    for (int t = 0; t < n; t++) {
      DT_TRY(group_of(g, m, &G, g->elem_dim[e], tags[t], &gi));
      DT_TRY(add_nodes(g, m, &G, gi, e, nodes));
      if (model_e >= 0) {
        if (G.elset[gi] < 0) {
          G.elset[gi] = m->n_elsets++;
          memcpy(m->elsets[G.elset[gi]].name, m->nsets[G.nset[gi]].name, DT_NAME_MAX);
        }
        DT_TRY(dt_imp_set_add(&m->elsets[G.elset[gi]], &G.elset_cap[G.elset[gi]], model_e, g->ctx));
      } else if (g->elem_dim[e] == m->dim - 1) {
        DT_TRY(add_face(g, m, &G, gi, e, f, nf, nodes));
      }
    }
  }
  for (int s = 0; s < m->n_nsets; s++) dt_imp_set_normalize(&m->nsets[s]);
  for (int s = 0; s < m->n_elsets; s++) dt_imp_set_normalize(&m->elsets[s]);
cleanup:
  dt_free(f);
  groups_free(&G);
  return rc;
}

void gm_free(gm *g) {
  dt_free(g->buf), dt_free(g->node_tag), dt_free(g->x), dt_free(g->elem_tag), dt_free(g->elem_type);
  dt_free(g->elem_ent), dt_free(g->elem_dim), dt_free(g->elem_line), dt_free(g->elem_ptr),
      dt_free(g->elem_nodes);
  dt_free(g->ents), dt_free(g->ent_phys), dt_free(g->groups);
}

static dt_status read_model(const char *path, const dt_import_options *opt, int corners,
                            dt_model **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  gm g;
  dt_model *m = NULL;
  dt_imp_idmap nodes = {0};
  int dim = 0;

  *out = NULL;
  memset(&g, 0, sizeof g);
  DT_TRY(gm_read_file(&g, path, opt, ctx));
  g.corners = corners;
  DT_TRY(model_dim(&g, &dim));
  DT_TRY(dt_model_create(&m, ctx));
  snprintf(m->title, sizeof m->title, "%s", path);
  DT_TRY(build_mesh(&g, m, dim, &nodes));
  DT_TRY(build_groups(&g, m, &nodes));
  /* The mesh checks a JSON mesh gets from its parser (non-finite coordinates, flat or folded
   * elements), now rather than when a job is attached: the daemon stores a mesh on this. */
  rc = dt_model_check_mesh(m, ctx);
  if (rc != DT_OK) {
    dt_ctx_prefix(ctx, path);
    goto cleanup;
  }
  *out = m;
  m = NULL;
cleanup:
  dt_model_destroy(&m);
  dt_imp_idmap_free(&nodes);
  gm_free(&g);
  return rc;
}

dt_status dt_gmsh_read_file(const char *path, const dt_import_options *opt, dt_model **out,
                            dt_ctx *ctx) {
  return read_model(path, opt, 0, out, ctx);
}

dt_status dt_gmsh_read_corners(const char *path, const dt_import_options *opt, dt_model **out,
                               dt_ctx *ctx) {
  return read_model(path, opt, 1, out, ctx);
}
