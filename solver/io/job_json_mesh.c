/* "mesh": nodes, element blocks, node and element sets, surfaces.
 *
 * Nodes and elements carry user ids (any integers 0..2^53-1, unique); everything is stored
 * 0-based in the model and user ids are mapped through sorted id maps. Element blocks group
 * elements by type. Sets are given as explicit id lists or {"generate": [first, last, step]};
 * they are stored sorted and without repeats. Surfaces list element faces "S<n>"; a shell's two
 * faces are also named by side as Abaqus names them, "SPOS" (S1, the side its normal points to)
 * and "SNEG" (S2). */
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"
#include "job_json_internal.h"

static dt_status parse_node_row(dt_jp *jp, const json_t *row, const char *path, int i) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  char p[DT_JPATH_MAX];
  int n = 0;

  DT_JCHECK(json_is_array(row), jp, path, "expected an array [id, x, y, z], got %s",
            dt_jp_type_name(row));
  n = (int)json_array_size(row);
  DT_JCHECK(n == 3 || n == 4, jp, path, "expected [id, x, y] or [id, x, y, z] (got %d entries)", n);
  dt_jp_index(p, path, 0);
  DT_TRY(dt_jp_integer(jp, json_array_get(row, 0), p, 0, DT_JP_ID_MAX, &m->node_id[i]));
  for (int k = 1; k < n; k++) {
    dt_jp_index(p, path, (size_t)k);
    DT_TRY(dt_jp_number(jp, json_array_get(row, (size_t)k), p, &m->x[3 * i + k - 1]));
  }
cleanup:
  return rc;
}

static dt_status parse_nodes(dt_jp *jp, const json_t *mesh, const char *mpath) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  json_t *nodes = NULL;
  char path[DT_JPATH_MAX], p[DT_JPATH_MAX];
  int n = 0;

  DT_TRY(dt_jp_member(jp, mesh, mpath, "nodes", 1, &nodes));
  dt_jp_key(path, mpath, "nodes");
  DT_TRY(dt_jp_array(jp, nodes, path, 1, (size_t)INT32_MAX / 3, &n));
  DT_ALLOC(m->x, 3 * (size_t)n, jp->ctx, "node coordinates");
  DT_ALLOC(m->node_id, n, jp->ctx, "node ids");
  m->n_nodes = n;
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_node_row(jp, json_array_get(nodes, (size_t)i), p, i));
  }
  DT_TRY(dt_idmap_build(jp, &jp->nodes, m->node_id, n, path, "node"));
cleanup:
  return rc;
}

static const char *const block_keys[] = {"type", "connectivity", NULL};

/* First pass over the element blocks: types, sizes, and a single dimension for the model. */
static dt_status count_elements(dt_jp *jp, const json_t *blocks, const char *path, int *n_elems,
                                int *n_conn) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX], tp[DT_JPATH_MAX];
  const char *type_name = NULL;
  int64_t ne = 0, nc = 0;
  int dim = 0, first = -1;

  for (size_t b = 0; b < json_array_size(blocks); b++) {
    const json_t *blk = json_array_get(blocks, b);
    json_t *v = NULL;
    int t = 0, rows = 0;
    dt_jp_index(p, path, b);
    DT_TRY(dt_jp_object(jp, blk, p, block_keys));
    DT_TRY(dt_jp_member(jp, blk, p, "type", 1, &v));
    dt_jp_key(tp, p, "type");
    DT_TRY(dt_jp_string(jp, v, tp, &type_name));
    t = dt_model_elem_type_from_name(type_name);
    DT_JCHECK(t >= 0, jp, tp, "unknown element type \"%s\" (supported: %s)", type_name,
              dt_model_elem_type_list());
    DT_JCHECK(dim == 0 || dt_model_elem_dim(t) == dim, jp, tp,
              "%s is a %dD element but %s[%d] is %dD: a model is either 2D or 3D", type_name,
              dt_model_elem_dim(t), path, first, dim);
    if (dim == 0) dim = dt_model_elem_dim(t), first = (int)b;
    DT_TRY(dt_jp_member(jp, blk, p, "connectivity", 1, &v));
    dt_jp_key(tp, p, "connectivity");
    DT_TRY(dt_jp_array(jp, v, tp, 1, (size_t)INT32_MAX, &rows));
    ne += rows;
    nc += (int64_t)rows * dt_model_elem_nnodes(t);
    DT_JCHECK(ne < INT32_MAX && nc < INT32_MAX, jp, path,
              "too many elements for this build (limit %d nodes in "
              "all connectivities)",
              INT32_MAX);
  }
  jp->m->dim = dim;
  *n_elems = (int)ne;
  *n_conn = (int)nc;
cleanup:
  return rc;
}

static dt_status parse_element_row(dt_jp *jp, const json_t *row, const char *path, int type,
                                   int e) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  char p[DT_JPATH_MAX];
  int npe = dt_model_elem_nnodes(type), k0 = m->elem_ptr[e];
  int64_t nid = 0;

  DT_JCHECK(json_is_array(row) && json_array_size(row) == (size_t)npe + 1, jp, path,
            "expected [element id, %d node ids] for %s, got %s of %zu entries", npe,
            dt_model_elem_type_name(type), json_is_array(row) ? "an array" : dt_jp_type_name(row),
            json_is_array(row) ? json_array_size(row) : 0);
  dt_jp_index(p, path, 0);
  DT_TRY(dt_jp_integer(jp, json_array_get(row, 0), p, 0, DT_JP_ID_MAX, &m->elem_id[e]));
  m->elem_type[e] = (unsigned char)type;
  m->elem_ptr[e + 1] = k0 + npe;
  for (int a = 0; a < npe; a++) {
    dt_jp_index(p, path, (size_t)a + 1);
    DT_TRY(dt_jp_integer(jp, json_array_get(row, (size_t)a + 1), p, 0, DT_JP_ID_MAX, &nid));
    m->conn[k0 + a] = dt_idmap_find(&jp->nodes, nid);
    DT_JCHECK(m->conn[k0 + a] >= 0, jp, p, "node id %lld does not exist", (long long)nid);
    for (int b = 0; b < a; b++)
      DT_JCHECK(m->conn[k0 + b] != m->conn[k0 + a], jp, p,
                "node id %lld appears twice in element %lld", (long long)nid,
                (long long)m->elem_id[e]);
  }
cleanup:
  return rc;
}

static dt_status parse_elements(dt_jp *jp, const json_t *mesh, const char *mpath) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  json_t *blocks = NULL;
  char path[DT_JPATH_MAX], bp[DT_JPATH_MAX], p[DT_JPATH_MAX], rp[DT_JPATH_MAX];
  int ne = 0, nc = 0, e = 0;

  DT_TRY(dt_jp_member(jp, mesh, mpath, "elements", 1, &blocks));
  dt_jp_key(path, mpath, "elements");
  DT_TRY(dt_jp_array(jp, blocks, path, 1, (size_t)INT32_MAX, NULL));
  DT_TRY(count_elements(jp, blocks, path, &ne, &nc));
  DT_ALLOC(m->elem_type, ne, jp->ctx, "element types");
  DT_ALLOC(m->elem_ptr, (size_t)ne + 1, jp->ctx, "element offsets");
  DT_ALLOC(m->conn, nc, jp->ctx, "connectivity");
  DT_ALLOC(m->elem_id, ne, jp->ctx, "element ids");
  m->n_elems = ne;
  for (size_t b = 0; b < json_array_size(blocks); b++) {
    const json_t *blk = json_array_get(blocks, b);
    const json_t *conn = json_object_get(blk, "connectivity");
    int type = dt_model_elem_type_from_name(json_string_value(json_object_get(blk, "type")));
    dt_jp_index(bp, path, b);
    dt_jp_key(p, bp, "connectivity");
    for (size_t r = 0; r < json_array_size(conn); r++, e++) {
      dt_jp_index(rp, p, r);
      DT_TRY(parse_element_row(jp, json_array_get(conn, r), rp, type, e));
    }
  }
  DT_TRY(dt_idmap_build(jp, &jp->elems, m->elem_id, ne, path, "element"));
cleanup:
  return rc;
}

static int int_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Sort and drop repeats: a node listed twice in a set must not get its load twice. */
static void set_normalize(dt_set *s) {
  int k = 0;

  qsort(s->items, (size_t)s->n, sizeof *s->items, int_cmp);
  for (int i = 0; i < s->n; i++)
    if (k == 0 || s->items[i] != s->items[k - 1]) s->items[k++] = s->items[i];
  s->n = k;
}

static const char *const generate_keys[] = {"generate", NULL};

static dt_status parse_generate(dt_jp *jp, const json_t *v, const char *path, const dt_idmap *map,
                                const char *what, dt_set *s) {
  dt_status rc = DT_OK;
  json_t *g = NULL;
  char gp[DT_JPATH_MAX], p[DT_JPATH_MAX];
  int64_t r[3] = {0, 0, 1}, count = 0;
  int n = 0;

  DT_TRY(dt_jp_object(jp, v, path, generate_keys));
  DT_TRY(dt_jp_member(jp, v, path, "generate", 1, &g));
  dt_jp_key(gp, path, "generate");
  DT_TRY(dt_jp_array(jp, g, gp, 2, 3, &n));
  for (int k = 0; k < n; k++) {
    dt_jp_index(p, gp, (size_t)k);
    DT_TRY(dt_jp_integer(jp, json_array_get(g, (size_t)k), p, k == 2 ? 1 : 0, DT_JP_ID_MAX, &r[k]));
  }
  DT_JCHECK(r[1] >= r[0], jp, gp, "last (%lld) must be >= first (%lld)", (long long)r[1],
            (long long)r[0]);
  count = (r[1] - r[0]) / r[2] + 1;
  DT_JCHECK(count <= map->n, jp, gp, "generates %lld %s ids but the mesh has only %d",
            (long long)count, what, map->n);
  DT_ALLOC(s->items, count, jp->ctx, "a set");
  s->n = (int)count;
  for (int64_t i = 0; i < count; i++) {
    int64_t id = r[0] + i * r[2];
    s->items[i] = dt_idmap_find(map, id);
    DT_JCHECK(s->items[i] >= 0, jp, gp, "%s id %lld does not exist", what, (long long)id);
  }
cleanup:
  return rc;
}

static dt_status parse_set(dt_jp *jp, const json_t *v, const char *path, const dt_idmap *map,
                           const char *what, dt_set *s) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int n = 0;
  int64_t id = 0;

  if (json_is_object(v)) {
    DT_TRY(parse_generate(jp, v, path, map, what, s));
  } else {
    DT_JCHECK(json_is_array(v), jp, path,
              "expected an array of %s ids or {\"generate\": [first, last, step]}, got %s", what,
              dt_jp_type_name(v));
    DT_TRY(dt_jp_array(jp, v, path, 1, (size_t)INT32_MAX, &n));
    DT_ALLOC(s->items, n, jp->ctx, "a set");
    s->n = n;
    for (int i = 0; i < n; i++) {
      dt_jp_index(p, path, (size_t)i);
      DT_TRY(dt_jp_integer(jp, json_array_get(v, (size_t)i), p, 0, DT_JP_ID_MAX, &id));
      s->items[i] = dt_idmap_find(map, id);
      DT_JCHECK(s->items[i] >= 0, jp, p, "%s id %lld does not exist", what, (long long)id);
    }
  }
  set_normalize(s);
cleanup:
  return rc;
}

/* "node_sets" / "element_sets": {"name": definition, ...}. */
static dt_status parse_sets(dt_jp *jp, const json_t *mesh, const char *mpath, const char *key,
                            const dt_idmap *map, const char *what, dt_set **sets, int *n_sets) {
  dt_status rc = DT_OK;
  json_t *obj = NULL, *v = NULL;
  const char *name = NULL;
  char path[DT_JPATH_MAX], p[DT_JPATH_MAX];
  int i = 0;

  DT_TRY(dt_jp_member(jp, mesh, mpath, key, 0, &obj));
  if (obj == NULL) goto cleanup;
  dt_jp_key(path, mpath, key);
  DT_JCHECK(json_is_object(obj), jp, path, "expected an object {\"name\": [ids...]}, got %s",
            dt_jp_type_name(obj));
  DT_ALLOC(*sets, json_object_size(obj), jp->ctx, "sets");
  json_object_foreach(obj, name, v) {
    dt_jp_key(p, path, name);
    DT_JCHECK(name[0] != '\0' && strlen(name) < DT_NAME_MAX, jp, p,
              "set names must have 1 to %d characters", DT_NAME_MAX - 1);
    snprintf((*sets)[i].name, DT_NAME_MAX, "%s", name);
    *n_sets = ++i;
    DT_TRY(parse_set(jp, v, p, map, what, &(*sets)[i - 1]));
  }
cleanup:
  return rc;
}

static dt_status parse_face(dt_jp *jp, const json_t *row, const char *path, dt_surface *sf, int i) {
  dt_status rc = DT_OK;
  const dt_model *m = jp->m;
  char p[DT_JPATH_MAX];
  const char *label = NULL;
  int64_t id = 0;
  int e = 0, nf = 0, face = 0, side = 0;
  char *end = NULL;

  DT_JCHECK(json_is_array(row) && json_array_size(row) == 2, jp, path,
            "expected [element id, \"S<n>\"]");
  dt_jp_index(p, path, 0);
  DT_TRY(dt_jp_integer(jp, json_array_get(row, 0), p, 0, DT_JP_ID_MAX, &id));
  e = dt_idmap_find(&jp->elems, id);
  DT_JCHECK(e >= 0, jp, p, "element id %lld does not exist", (long long)id);
  dt_jp_index(p, path, 1);
  DT_TRY(dt_jp_string(jp, json_array_get(row, 1), p, &label));
  nf = dt_model_elem_nfaces(m->elem_type[e]);
  side = m->elem_type[e] == DT_ELEM_SHELL4 && (!strcmp(label, "SPOS") || !strcmp(label, "SNEG"));
  if (side)
    face = label[1] == 'P' ? 1 : 2;
  else if (label[0] == 'S' && label[1] >= '1' && label[1] <= '9')
    face = (int)strtol(label + 1, &end, 10);
  DT_JCHECK((side || (end && *end == '\0')) && face >= 1 && face <= nf, jp, p,
            "%s element %lld has faces S1 to S%d%s (got \"%s\")",
            dt_model_elem_type_name(m->elem_type[e]), (long long)id, nf,
            m->elem_type[e] == DT_ELEM_SHELL4 ? " (SPOS, SNEG)" : "", label);
  sf->elem[i] = e;
  sf->face[i] = face - 1;
cleanup:
  return rc;
}

static dt_status parse_surfaces(dt_jp *jp, const json_t *mesh, const char *mpath) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  json_t *obj = NULL, *v = NULL;
  const char *name = NULL;
  char path[DT_JPATH_MAX], p[DT_JPATH_MAX], rp[DT_JPATH_MAX];
  int n = 0;

  DT_TRY(dt_jp_member(jp, mesh, mpath, "surfaces", 0, &obj));
  if (obj == NULL) goto cleanup;
  dt_jp_key(path, mpath, "surfaces");
  DT_JCHECK(json_is_object(obj), jp, path, "expected an object, got %s", dt_jp_type_name(obj));
  DT_ALLOC(m->surfaces, json_object_size(obj), jp->ctx, "surfaces");
  json_object_foreach(obj, name, v) {
    dt_surface *sf = &m->surfaces[m->n_surfaces++];
    dt_jp_key(p, path, name);
    DT_JCHECK(name[0] != '\0' && strlen(name) < DT_NAME_MAX, jp, p,
              "surface names must have 1 to %d characters", DT_NAME_MAX - 1);
    snprintf(sf->name, DT_NAME_MAX, "%s", name);
    DT_TRY(dt_jp_array(jp, v, p, 1, (size_t)INT32_MAX, &n));
    DT_ALLOC(sf->elem, n, jp->ctx, "surface faces");
    DT_ALLOC(sf->face, n, jp->ctx, "surface faces");
    sf->n = n;
    for (int i = 0; i < n; i++) {
      dt_jp_index(rp, p, (size_t)i);
      DT_TRY(parse_face(jp, json_array_get(v, (size_t)i), rp, sf, i));
    }
  }
cleanup:
  return rc;
}

static const char *const mesh_keys[] = {"nodes",        "elements", "node_sets",
                                        "element_sets", "surfaces", NULL};

dt_status dt_jp_mesh(dt_jp *jp, const json_t *mesh, const char *path) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;

  DT_TRY(dt_jp_object(jp, mesh, path, mesh_keys));
  DT_TRY(parse_nodes(jp, mesh, path));
  DT_TRY(parse_elements(jp, mesh, path));
  DT_TRY(parse_sets(jp, mesh, path, "node_sets", &jp->nodes, "node", &m->nsets, &m->n_nsets));
  DT_TRY(
      parse_sets(jp, mesh, path, "element_sets", &jp->elems, "element", &m->elsets, &m->n_elsets));
  DT_TRY(parse_surfaces(jp, mesh, path));
cleanup:
  return rc;
}
