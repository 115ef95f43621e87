/* Deck mesh keywords: *NODE, *ELEMENT, *NSET, *ELSET, *SURFACE.
 *
 * Nodes and elements must be defined before they are referenced (as in Abaqus); ids are mapped
 * through sorted maps rebuilt after each new block. Set names are upper-cased (Abaqus names are
 * case-insensitive); a set defined twice is extended, as CalculiX does. Element types map to
 * ductile types and imply the section kind (C3D*: solid, CPE*: plane strain, CPS*: plane
 * stress, CAX*: axisymmetric with x the radius and y the axis, S4 and S4R: shell, whose faces
 * are SPOS and SNEG). A node or element id used where a set is expected becomes a one-item set
 * "_N<id>" / "_E<id>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../element/element.h"
#include "model/model_internal.h"
#include "import_inp_bulk.h"

static const struct {
  const char *name;
  int type;
  dt_section_kind kind;
} elem_types[] = {
    {"C3D8", DT_ELEM_HEX8, DT_SECTION_SOLID},
    {"C3D8R", DT_ELEM_HEX8, DT_SECTION_SOLID},
    {"C3D8I", DT_ELEM_HEX8I, DT_SECTION_SOLID},
    {"C3D4", DT_ELEM_TET4, DT_SECTION_SOLID},
    {"C3D10", DT_ELEM_TET10, DT_SECTION_SOLID},
    {"C3D20", DT_ELEM_HEX20, DT_SECTION_SOLID},
    {"C3D20R", DT_ELEM_HEX20R, DT_SECTION_SOLID},
    {"C3D6", DT_ELEM_WEDGE6, DT_SECTION_SOLID},
    {"C3D15", DT_ELEM_WEDGE15, DT_SECTION_SOLID},
    {"CPE4", DT_ELEM_QUAD4, DT_SECTION_PLANE_STRAIN},
    {"CPS4", DT_ELEM_QUAD4, DT_SECTION_PLANE_STRESS},
    {"CPE3", DT_ELEM_TRI3, DT_SECTION_PLANE_STRAIN},
    {"CPS3", DT_ELEM_TRI3, DT_SECTION_PLANE_STRESS},
    {"CPE8", DT_ELEM_QUAD8, DT_SECTION_PLANE_STRAIN},
    {"CPS8", DT_ELEM_QUAD8, DT_SECTION_PLANE_STRESS},
    {"CPE8R", DT_ELEM_QUAD8R, DT_SECTION_PLANE_STRAIN},
    {"CPS8R", DT_ELEM_QUAD8R, DT_SECTION_PLANE_STRESS},
    {"CAX4", DT_ELEM_QUAD4, DT_SECTION_AXISYMMETRIC},
    {"CAX8", DT_ELEM_QUAD8, DT_SECTION_AXISYMMETRIC},
    {"CAX8R", DT_ELEM_QUAD8R, DT_SECTION_AXISYMMETRIC},
    {"S4", DT_ELEM_SHELL4, DT_SECTION_SHELL},
    {"S4R", DT_ELEM_SHELL4, DT_SECTION_SHELL},
};
#define N_ELEM_TYPES ((int)(sizeof elem_types / sizeof elem_types[0]))

int inp_elem_type(const char *name) {
  for (int i = 0; i < N_ELEM_TYPES; i++)
    if (inp_eq(name, elem_types[i].name)) return elem_types[i].type;
  return -1;
}

static dt_status rebuild(inp *p, dt_imp_idmap *map, const int64_t *ids, int n, const int *recs,
                         const char *what) {
  dt_status rc = DT_OK;
  int a = -1, b = -1;

  DT_TRY(dt_imp_idmap_build(map, ids, n, &a, &b, p->ctx));
  INP_CHECK(a < 0, p, recs[b], "%s %lld is defined twice (also at line %d of %s)", what,
            (long long)ids[b], p->recs[recs[a]].line, p->files[p->recs[recs[a]].file]);
cleanup:
  return rc;
}

dt_status inp_node_index(inp *p, int rec, int64_t id, int *out) {
  dt_status rc = DT_OK;

  if (p->nodes_dirty)
    DT_TRY(rebuild(p, &p->nodes, p->m->node_id, p->m->n_nodes, p->node_rec, "node"));
  p->nodes_dirty = 0;
  *out = dt_imp_idmap_find(&p->nodes, id);
  INP_CHECK(*out >= 0, p, rec,
            "node %lld does not exist (nodes must be defined by *NODE before they are used)",
            (long long)id);
cleanup:
  return rc;
}

dt_status inp_elem_index(inp *p, int rec, int64_t id, int *out) {
  dt_status rc = DT_OK;

  if (p->elems_dirty)
    DT_TRY(rebuild(p, &p->elems, p->m->elem_id, p->m->n_elems, p->elem_rec, "element"));
  p->elems_dirty = 0;
  *out = dt_imp_idmap_find(&p->elems, id);
  INP_CHECK(*out >= 0, p, rec,
            "element %lld does not exist (elements must be defined by *ELEMENT before they are "
            "used)",
            (long long)id);
cleanup:
  return rc;
}

/* The index of node (nodes = 1) or element id, or -1 when it is not defined: no error. */
static dt_status index_or_none(inp *p, int nodes, int64_t id, int *out) {
  dt_status rc = DT_OK;
  if (nodes && p->nodes_dirty)
    DT_TRY(rebuild(p, &p->nodes, p->m->node_id, p->m->n_nodes, p->node_rec, "node"));
  if (!nodes && p->elems_dirty)
    DT_TRY(rebuild(p, &p->elems, p->m->elem_id, p->m->n_elems, p->elem_rec, "element"));
  if (nodes)
    p->nodes_dirty = 0;
  else
    p->elems_dirty = 0;
  *out = dt_imp_idmap_find(nodes ? &p->nodes : &p->elems, id);
cleanup:
  return rc;
}

/* search = 0: the caller knows there is no set of that name (a new one is made at once). */
static dt_status get_set(inp *p, int rec, const char *name, int search, int create, int *out,
                         dt_set **sets, int *n, int *cap, int **item_cap, const char *what) {
  dt_status rc = DT_OK;
  char up[DT_NAME_MAX];
  int cap_before = *cap;

  *out = -1;
  INP_CHECK(!dt_imp_name_upper(up, name), p, rec,
            "%s names must have 1 to %d characters (got '%s')", what, DT_NAME_MAX - 1, name);
  for (int i = 0; search && i < *n; i++)
    if (strcmp((*sets)[i].name, up) == 0) {
      *out = i;
      goto cleanup;
    }
  if (!create) goto cleanup;
  DT_TRY(dt_imp_reserve((void **)sets, cap, (size_t)*n + 1, sizeof **sets, p->ctx));
  if (*cap != cap_before) {
    int c = cap_before;
    DT_TRY(dt_imp_reserve((void **)item_cap, &c, (size_t)*cap, sizeof **item_cap, p->ctx));
  }
  memset(&(*sets)[*n], 0, sizeof **sets);
  memcpy((*sets)[*n].name, up, DT_NAME_MAX);
  (*item_cap)[*n] = 0;
  *out = (*n)++;
cleanup:
  return rc;
}

dt_status inp_get_nset(inp *p, int rec, const char *name, int create, int *out) {
  return get_set(p, rec, name, 1, create, out, &p->m->nsets, &p->m->n_nsets, &p->cap_nsets,
                 &p->nset_cap, "node set");
}

dt_status inp_new_nset(inp *p, int rec, const char *name, int *out) {
  return get_set(p, rec, name, 0, 1, out, &p->m->nsets, &p->m->n_nsets, &p->cap_nsets, &p->nset_cap,
                 "node set");
}

dt_status inp_get_elset(inp *p, int rec, const char *name, int create, int *out) {
  return get_set(p, rec, name, 1, create, out, &p->m->elsets, &p->m->n_elsets, &p->cap_elsets,
                 &p->elset_cap, "element set");
}

static dt_status nset_add(inp *p, int s, int node) {
  return dt_imp_set_add(&p->m->nsets[s], &p->nset_cap[s], node, p->ctx);
}
static dt_status elset_add(inp *p, int s, int e) {
  return dt_imp_set_add(&p->m->elsets[s], &p->elset_cap[s], e, p->ctx);
}

dt_status inp_target_nset(inp *p, int rec, const char *tok, int *out) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX];
  int64_t id = 0;
  int node = 0;

  if (inp_is_int(tok)) {
    DT_TRY(inp_int64(p, rec, tok, "node", &id));
    DT_TRY(inp_node_index(p, rec, id, &node));
    snprintf(name, sizeof name, "_N%lld", (long long)id);
    DT_TRY(inp_get_nset(p, rec, name, 1, out));
    if (p->m->nsets[*out].n == 0) DT_TRY(nset_add(p, *out, node));
    goto cleanup;
  }
  DT_TRY(inp_get_nset(p, rec, tok, 0, out));
  INP_CHECK(*out >= 0, p, rec, "unknown node set '%s'", tok);
cleanup:
  return rc;
}

dt_status inp_target_elset(inp *p, int rec, const char *tok, int *out) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX];
  int64_t id = 0;
  int e = 0;

  if (inp_is_int(tok)) {
    DT_TRY(inp_int64(p, rec, tok, "element", &id));
    DT_TRY(inp_elem_index(p, rec, id, &e));
    snprintf(name, sizeof name, "_E%lld", (long long)id);
    DT_TRY(inp_get_elset(p, rec, name, 1, out));
    if (p->m->elsets[*out].n == 0) DT_TRY(elset_add(p, *out, e));
    goto cleanup;
  }
  DT_TRY(inp_get_elset(p, rec, tok, 0, out));
  INP_CHECK(*out >= 0, p, rec, "unknown element set '%s'", tok);
cleanup:
  return rc;
}

dt_status inp_node_slot(inp *p, int rec) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  const int i = m->n_nodes, cap = p->cap_nodes;
  DT_TRY(dt_imp_reserve((void **)&m->node_id, &p->cap_nodes, (size_t)i + 1, sizeof *m->node_id,
                        p->ctx));
  if (cap != p->cap_nodes) { /* x and node_rec follow node_id's capacity */
    int c = cap;
    DT_TRY(dt_imp_reserve((void **)&m->x, &c, 3 * (size_t)p->cap_nodes, sizeof *m->x, p->ctx));
    c = cap;
    DT_TRY(dt_imp_reserve((void **)&p->node_rec, &c, (size_t)p->cap_nodes, sizeof *p->node_rec,
                          p->ctx));
  }
  m->node_id[i] = 0;
  m->x[3 * i] = m->x[3 * i + 1] = m->x[3 * i + 2] = 0.0;
  p->node_rec[i] = rec;
cleanup:
  return rc;
}

/* Node i = m->n_nodes, defined at record rec, appended (and added to set, if >= 0). */
static dt_status append_node(inp *p, int rec, int64_t id, const double x[3], int set) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  const int i = m->n_nodes;

  DT_TRY(inp_node_slot(p, rec));
  m->node_id[i] = id;
  memcpy(&m->x[3 * i], x, 3 * sizeof *x);
  m->n_nodes++;
  p->nodes_dirty = 1;
  if (set >= 0) DT_TRY(nset_add(p, set, i));
cleanup:
  return rc;
}

/* One *NODE line, read with its messages: "id[, x[, y[, z]]]". */
static dt_status read_node(inp *p, int rec, char **tok, int n, int set, int *extra,
                           int *first_extra) {
  dt_status rc = DT_OK;
  int64_t id = 0;
  double x[3] = {0.0, 0.0, 0.0};

  INP_CHECK(n >= 1, p, rec, "*NODE: expected 'id[, x[, y[, z]]]', got an empty line");
  if (n > 4) { /* CalculiX reads the id and three coordinates and no further */
    if ((*extra)++ == 0) *first_extra = rec;
    n = 4;
  }
  DT_TRY(inp_int64(p, rec, tok[0], "*NODE id", &id));
  /* CalculiX reads a coordinate that is missing or empty ("21, 0.75, 1.0, ,0.0") as 0 */
  for (int k = 1; k < n; k++)
    if (tok[k][0]) DT_TRY(inp_double(p, rec, tok[k], "*NODE coordinate", &x[k - 1]));
  DT_TRY(append_node(p, rec, id, x, set));
cleanup:
  return rc;
}

/* The data lines of a block: large blocks are read on several threads a window at a time
 * (import_inp_bulk.c); the lines in order, those the threads did not take one by one. */
dt_status inp_node(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *nset_name = inp_param(kw, "NSET");
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, set = -1, extra = 0, first_extra = -1;
  inp_bulk bulk = {0};

  DT_TRY(inp_params_done(p, kw));
  if (nset_name) DT_TRY(inp_get_nset(p, kw->rec, nset_name, 1, &set));
  while (p->pos < p->n_recs && !p->recs[p->pos].keyword) {
    const int r = p->pos;
    if (r >= bulk.r1) DT_TRY(inp_bulk_read(p, 0, &bulk));
    if (inp_bulk_has(&bulk, r)) {
      DT_TRY(append_node(p, r, bulk.id[r - bulk.r0], &bulk.x[3 * (size_t)(r - bulk.r0)], set));
      p->pos++;
      continue;
    }
    inp_data(p, &rec, tok, &n);
    DT_TRY(read_node(p, rec, tok, n, set, &extra, &first_extra));
  }
  if (extra)
    inp_warn(
        p, first_extra,
        "*NODE: %d line(s) with more than 'id, x, y, z' (the first one here): the values after z "
        "are not used, as CalculiX does",
        extra);
cleanup:
  inp_bulk_free(&bulk);
  return rc;
}

static dt_status grow_elements(inp *p, int npe) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  int ne = m->n_elems, cap = p->cap_elems, c = 0;

  DT_TRY(dt_imp_reserve((void **)&m->elem_id, &p->cap_elems, (size_t)ne + 1, sizeof *m->elem_id,
                        p->ctx));
  if (cap != p->cap_elems) {
    c = cap;
    DT_TRY(dt_imp_reserve((void **)&m->elem_type, &c, (size_t)p->cap_elems, 1, p->ctx));
    c = cap;
    DT_TRY(dt_imp_reserve((void **)&p->elem_kind, &c, (size_t)p->cap_elems, 1, p->ctx));
    c = cap;
    DT_TRY(dt_imp_reserve((void **)&p->elem_c3d8r, &c, (size_t)p->cap_elems, 1, p->ctx));
    c = cap;
    DT_TRY(dt_imp_reserve((void **)&p->elem_rec, &c, (size_t)p->cap_elems, sizeof *p->elem_rec,
                          p->ctx));
    c = cap ? cap + 1 : 0;
    DT_TRY(dt_imp_reserve((void **)&m->elem_ptr, &c, (size_t)p->cap_elems + 1, sizeof *m->elem_ptr,
                          p->ctx));
  }
  if (ne == 0) m->elem_ptr[0] = 0;
  DT_TRY(dt_imp_reserve((void **)&m->conn, &p->cap_conn, (size_t)m->elem_ptr[ne] + (size_t)npe,
                        sizeof *m->conn, p->ctx));
cleanup:
  return rc;
}

/* The geometry of a block's elements e0 .. n_elems - 1, checked together (in parallel) once the
 * block is read; the first bad element is reported at its own line. */
static dt_status check_geometry(inp *p, int e0) {
  dt_status rc = DT_OK;
  dt_ctx tmp = {0};
  int bad = -1;

  INP_CHECK(dt_model_check_geometry(p->m, e0, p->m->n_elems, &bad, &tmp) == DT_OK, p,
            bad >= 0 ? p->elem_rec[bad] : 0, "%s", tmp.msg);
cleanup:
  return rc;
}

/* Element e = m->n_elems of type elem_types[t], defined at record rec, appended (and added to
 * set, if >= 0). */
static dt_status append_element(inp *p, int t, int set, int rec, int64_t id, const int *conn) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  const int npe = dt_model_elem_nnodes(elem_types[t].type), e = m->n_elems;
  int k0 = 0;

  DT_TRY(grow_elements(p, npe));
  k0 = m->elem_ptr[e];
  m->elem_id[e] = id;
  memcpy(&m->conn[k0], conn, (size_t)npe * sizeof *conn);
  m->elem_type[e] = (unsigned char)elem_types[t].type;
  p->elem_kind[e] = (unsigned char)elem_types[t].kind;
  p->elem_c3d8r[e] = strcmp(elem_types[t].name, "C3D8R") == 0;
  p->elem_rec[e] = rec;
  m->elem_ptr[e + 1] = k0 + npe;
  m->n_elems++;
  p->elems_dirty = 1;
  if (set >= 0) DT_TRY(elset_add(p, set, e));
cleanup:
  return rc;
}

/* One element, read as CalculiX reads it: a line with fewer nodes than the type has continues
 * on the next data line (whether or not it ends with a comma), and node numbers beyond the
 * type's count on the element's own line are not used (*extra counts such elements, and
 * *first_extra names the first, for one warning per *ELEMENT block). */
static dt_status read_element(inp *p, int t, int set, char **tok, int n, int rec, int *extra,
                              int *first_extra) {
  dt_status rc = DT_OK;
  int npe = dt_model_elem_nnodes(elem_types[t].type), r2 = 0, n2 = 0, lines = 1;
  int conn[DT_ELEM_MAX_NODES];
  int64_t id = 0;
  char *more[INP_MAX_TOKENS];

  while (n < npe + 1 && n > 0 && inp_data(p, &r2, more, &n2)) {
    for (int k = 0; k < n2 && n < INP_MAX_TOKENS; k++) tok[n++] = more[k];
    rec = r2;
    lines++;
  }
  if (n > npe + 1 && lines == 1) {
    if ((*extra)++ == 0) *first_extra = rec;
    n = npe + 1;
  }
  INP_CHECK(n == npe + 1, p, rec, "*ELEMENT: element %s (%s) must have %d nodes, got %d%s",
            n ? tok[0] : "?", elem_types[t].name, npe, n > 0 ? n - 1 : 0,
            lines > 1 ? " (a line with fewer nodes continues on the next line)" : "");
  DT_TRY(inp_int64(p, rec, tok[0], "*ELEMENT id", &id));
  for (int a = 0; a < npe; a++) {
    int64_t node = 0;
    DT_TRY(inp_int64(p, rec, tok[a + 1], "*ELEMENT node", &node));
    DT_TRY(inp_node_index(p, rec, node, &conn[a]));
    for (int b = 0; b < a; b++)
      INP_CHECK(conn[b] != conn[a], p, rec, "element %lld: node %lld appears twice", (long long)id,
                (long long)node);
  }
  DT_TRY(append_element(p, t, set, rec, id, conn));
cleanup:
  return rc;
}

/* The data lines of *ELEMENT are consumed here, so a line ending with a comma can pull the next. */
dt_status inp_element(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *type = inp_param(kw, "TYPE"), *elset = inp_param(kw, "ELSET");
  char *tok[INP_MAX_TOKENS];
  char list[160] = "";
  int t = -1, set = -1, rec = 0, n = 0, extra = 0, first_extra = -1, e0 = 0, npe = 0;
  inp_bulk bulk = {0};

  for (int i = 0; i < N_ELEM_TYPES; i++) {
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
             elem_types[i].name);
    if (type && inp_eq(type, elem_types[i].name)) t = i;
  }
  INP_CHECK(type && type[0], p, kw->rec, "*ELEMENT needs TYPE=<element type> (supported: %s)",
            list);
  INP_CHECK(t >= 0, p, kw->rec, "*ELEMENT: element type %s is not supported (supported: %s)", type,
            list);
  DT_TRY(inp_params_done(p, kw));
  /* C3D8R: one point with hourglass control in explicit steps (a section's form), hex8r in
   * static ones, decided once the steps are read (inp_explicit_done) */
  if (strcmp(elem_types[t].name, "C3D8R") == 0 && p->c3d8r_rec < 0) p->c3d8r_rec = kw->rec;
  if (strcmp(elem_types[t].name, "S4R") == 0)
    inp_warn(p, kw->rec,
             "S4R (reduced integration with hourglass control) is read as a MITC4 shell, as S4 "
             "is: results differ slightly from Abaqus's S4R");
  if (elset) DT_TRY(inp_get_elset(p, kw->rec, elset, 1, &set));
  npe = dt_model_elem_nnodes(elem_types[t].type);
  e0 = p->m->n_elems;
  while (p->pos < p->n_recs && !p->recs[p->pos].keyword) { /* as inp_node's loop */
    const int r = p->pos;
    if (r >= bulk.r1) DT_TRY(inp_bulk_read(p, npe, &bulk));
    if (inp_bulk_has(&bulk, r)) {
      DT_TRY(append_element(p, t, set, r, bulk.id[r - bulk.r0],
                            &bulk.conn[(size_t)npe * (r - bulk.r0)]));
      p->pos++;
      continue;
    }
    inp_data(p, &rec, tok, &n);
    DT_TRY(read_element(p, t, set, tok, n, rec, &extra, &first_extra));
  }
  DT_TRY(check_geometry(p, e0));
  if (extra)
    inp_warn(
        p, first_extra,
        "*ELEMENT: %d element(s) of type %s list more than %d nodes on their line (the first one "
        "here): the first %d are used, as CalculiX does",
        extra, elem_types[t].name, dt_model_elem_nnodes(elem_types[t].type),
        dt_model_elem_nnodes(elem_types[t].type));
cleanup:
  inp_bulk_free(&bulk);
  return rc;
}

/* "first, last[, increment]" of a GENERATE data line. */
static dt_status generate_range(inp *p, int rec, char **tok, int n, int64_t r[3]) {
  dt_status rc = DT_OK;

  INP_CHECK(n == 2 || n == 3, p, rec,
            "GENERATE: expected 'first, last[, increment]', got %d values", n);
  r[2] = 1;
  for (int k = 0; k < n; k++) DT_TRY(inp_int64(p, rec, tok[k], "GENERATE", &r[k]));
  INP_CHECK(r[2] >= 1 && r[1] >= r[0], p, rec,
            "GENERATE: need last >= first and increment >= 1 (got %lld, %lld, %lld)",
            (long long)r[0], (long long)r[1], (long long)r[2]);
  /* every id of the range is looked up (ids not defined are skipped): bounded work */
  INP_CHECK(((uint64_t)r[1] - (uint64_t)r[0]) / (uint64_t)r[2] < 100000000u, p, rec,
            "GENERATE: a range of more than 1e8 ids (%lld to %lld by %lld) is not supported",
            (long long)r[0], (long long)r[1], (long long)r[2]);
cleanup:
  return rc;
}

/* *NSET / *ELSET: ids, names of sets of the same kind, or GENERATE ranges. */
static dt_status read_set(inp *p, inp_kw *kw, int nodes) {
  dt_status rc = DT_OK;
  const char *key = nodes ? "NSET" : "ELSET", *name = inp_param(kw, key);
  int generate = inp_param(kw, "GENERATE") != NULL, set = -1, rec = 0, n = 0, idx = 0, other = -1;
  char *tok[INP_MAX_TOKENS];
  int64_t r[3], id = 0, first_skipped = 0;
  long skipped = 0;
  int skipped_rec = 0;

  INP_CHECK(name && name[0], p, kw->rec, "%s needs %s=<name>", kw->name, key);
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(nodes ? inp_get_nset(p, kw->rec, name, 1, &set)
               : inp_get_elset(p, kw->rec, name, 1, &set));
  while (inp_data(p, &rec, tok, &n)) {
    if (generate) {
      DT_TRY(generate_range(p, rec, tok, n, r));
      for (id = r[0]; id <= r[1]; id += r[2]) {
        DT_TRY(index_or_none(p, nodes, id, &idx));
        if (idx < 0) { /* CalculiX takes ranges over ids it never defines (achtel2: 1-180 over
                          98 nodes); such an id holds nothing, so it is left out */
          if (skipped++ == 0) first_skipped = id, skipped_rec = rec;
          continue;
        }
        DT_TRY(nodes ? nset_add(p, set, idx) : elset_add(p, set, idx));
      }
      continue;
    }
    for (int k = 0; k < n; k++) {
      if (tok[k][0] == '\0') continue;
      if (!inp_is_int(tok[k])) {
        DT_TRY(nodes ? inp_get_nset(p, rec, tok[k], 0, &other)
                     : inp_get_elset(p, rec, tok[k], 0, &other));
        INP_CHECK(other >= 0, p, rec, "%s %s: unknown %s '%s' (not an id nor a defined set)",
                  kw->name, name, nodes ? "node set" : "element set", tok[k]);
        for (int i = 0, cnt = (nodes ? p->m->nsets : p->m->elsets)[other].n; i < cnt; i++) {
          idx = (nodes ? p->m->nsets : p->m->elsets)[other].items[i];
          DT_TRY(nodes ? nset_add(p, set, idx) : elset_add(p, set, idx));
        }
        continue;
      }
      DT_TRY(inp_int64(p, rec, tok[k], kw->name, &id));
      DT_TRY(index_or_none(p, nodes, id, &idx));
      if (idx < 0) { /* CalculiX reads a set naming an id it never defines (scheibe's node 29)
                        and leaves it out: so does ductile, with a warning */
        if (skipped++ == 0) first_skipped = id, skipped_rec = rec;
        continue;
      }
      DT_TRY(nodes ? nset_add(p, set, idx) : elset_add(p, set, idx));
    }
  }
  if (skipped)
    inp_warn(p, skipped_rec,
             "%s %s%s: %ld id(s) are not defined %s (e.g. %lld) and are left out of the set",
             kw->name, name, generate ? ", GENERATE" : "", skipped, nodes ? "nodes" : "elements",
             (long long)first_skipped);
cleanup:
  return rc;
}

dt_status inp_nset(inp *p, inp_kw *kw) { return read_set(p, kw, 1); }
dt_status inp_elset(inp *p, inp_kw *kw) { return read_set(p, kw, 0); }

dt_status inp_get_surface(inp *p, int rec, const char *name, int create, int *out) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  char up[DT_NAME_MAX];
  int cap_before = p->cap_surfaces;

  *out = -1;
  INP_CHECK(!dt_imp_name_upper(up, name), p, rec, "surface names must have 1 to %d characters",
            DT_NAME_MAX - 1);
  *out = dt_model_find_surface(m, up);
  if (*out >= 0 || !create) goto cleanup;
  DT_TRY(dt_imp_reserve((void **)&m->surfaces, &p->cap_surfaces, (size_t)m->n_surfaces + 1,
                        sizeof *m->surfaces, p->ctx));
  if (p->cap_surfaces != cap_before) {
    int c = cap_before;
    DT_TRY(dt_imp_reserve((void **)&p->surf_cap, &c, (size_t)p->cap_surfaces, sizeof *p->surf_cap,
                          p->ctx));
  }
  memset(&m->surfaces[m->n_surfaces], 0, sizeof *m->surfaces);
  memcpy(m->surfaces[m->n_surfaces].name, up, DT_NAME_MAX);
  p->surf_cap[m->n_surfaces] = 0;
  *out = m->n_surfaces++;
cleanup:
  return rc;
}

dt_status inp_surface_add_faces(inp *p, int rec, int surface, int elset, int face) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  dt_surface *sf = &m->surfaces[surface];
  const dt_set *set = &m->elsets[elset];

  for (int i = 0; i < set->n; i++) {
    int e = set->items[i], cap = p->surf_cap[surface], nf = dt_model_elem_nfaces(m->elem_type[e]);
    INP_CHECK(face >= 0 && face < nf, p, rec, "element %lld (%s) has faces S1 to S%d, not S%d",
              (long long)m->elem_id[e], dt_model_elem_type_name(m->elem_type[e]), nf, face + 1);
    DT_TRY(dt_imp_reserve((void **)&sf->elem, &p->surf_cap[surface], (size_t)sf->n + 1,
                          sizeof *sf->elem, p->ctx));
    DT_TRY(dt_imp_reserve((void **)&sf->face, &cap, (size_t)sf->n + 1, sizeof *sf->face, p->ctx));
    sf->elem[sf->n] = e;
    sf->face[sf->n++] = face;
  }
cleanup:
  return rc;
}

/* "S<n>" (1-based) -> 0-based face, or -1; a shell's sides SPOS and SNEG are its faces S1 and S2
 * (*side set). */
static int face_label(const char *s, int *side) {
  *side = inp_eq(s, "SPOS") || inp_eq(s, "SNEG");
  if (*side) return inp_eq(s, "SPOS") ? 0 : 1;
  if ((s[0] != 'S' && s[0] != 's') || s[1] < '1' || s[1] > '6' || s[2] != '\0') return -1;
  return s[1] - '1';
}

dt_status inp_check_shell_faces(inp *p, int rec, int elset, int side, const char *what) {
  dt_status rc = DT_OK;
  const dt_model *m = p->m;
  const dt_set *set = &m->elsets[elset];

  for (int i = 0; i < set->n; i++) {
    int e = set->items[i], shell = m->elem_type[e] == DT_ELEM_SHELL4;
    INP_CHECK(shell == side, p, rec,
              shell ? "element %lld is a shell: %s names a face of a solid; a shell's faces are "
                      "SPOS and SNEG (its pressure: P, against the positive normal)"
                    : "element %lld is not a shell: %s names a shell's side (SPOS, SNEG, P); "
                      "a solid's faces are S1..S6 (pressures P1..P6)",
              (long long)m->elem_id[e], what);
  }
cleanup:
  return rc;
}

dt_status inp_surface(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *name = inp_param(kw, "NAME"), *type = inp_param(kw, "TYPE");
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, s = -1, set = -1, face = 0, side = 0;

  INP_CHECK(name && name[0], p, kw->rec, "*SURFACE needs NAME=<name>");
  if (type && inp_eq(type, "NODE")) return inp_node_surface(p, kw, name);
  INP_CHECK(!type || inp_eq(type, "ELEMENT"), p, kw->rec,
            "*SURFACE: TYPE=%s is not supported (element-face surfaces, TYPE=ELEMENT, and node "
            "surfaces, TYPE=NODE)",
            type);
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(inp_get_surface(p, kw->rec, name, 1, &s));
  while (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(n == 2, p, rec,
              "*SURFACE: expected 'element or element set, S<n> (SPOS, SNEG for shells)', got %d "
              "values",
              n);
    face = face_label(tok[1], &side);
    INP_CHECK(face >= 0, p, rec,
              "*SURFACE: expected a face label S1..S6 (SPOS or SNEG for shells), got '%s'", tok[1]);
    DT_TRY(inp_target_elset(p, rec, tok[0], &set));
    DT_TRY(inp_check_shell_faces(p, rec, set, side, tok[1]));
    DT_TRY(inp_surface_add_faces(p, rec, s, set, face));
  }
cleanup:
  return rc;
}
