/* Gmsh .msh sections: $MeshFormat, $PhysicalNames, $Entities, $Nodes, $Elements, in format 4.1
 * or 2.2, ASCII or binary (native little-endian, as Gmsh writes it). Other sections ($Periodic,
 * $NodeData, ...) carry nothing a static analysis needs and are skipped whole.
 *
 * ASCII values are read as whitespace-separated tokens, counting lines for messages; an element
 * line must hold exactly its type's node count. Binary blocks are read with bounds checks, so a
 * truncated file reports "unexpected end of file" with the line where its section started. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_gmsh_internal.h"

dt_status gm_error(gm *g, const char *fmt, ...) {
  char msg[768];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return dt_error_set(g->ctx, DT_ERR_INPUT, __FILE__, __LINE__, __func__, "%s:%d: %s", g->path,
                      g->line, msg);
}

static void skip_space(gm *g, int stop_at_newline) {
  while (g->pos < g->len && (g->buf[g->pos] == ' ' || g->buf[g->pos] == '\t' ||
                             g->buf[g->pos] == '\r' || g->buf[g->pos] == '\n')) {
    if (g->buf[g->pos] == '\n') {
      if (stop_at_newline) return;
      g->line++;
    }
    g->pos++;
  }
}

/* Next token into tok (at most n-1 characters); 0 at the end of the file. */
static int token(gm *g, char *tok, size_t n) {
  size_t k = 0;

  skip_space(g, 0);
  while (g->pos < g->len && !strchr(" \t\r\n", g->buf[g->pos])) {
    if (k + 1 < n) tok[k++] = g->buf[g->pos];
    g->pos++;
  }
  tok[k] = '\0';
  return k > 0;
}

/* 1 if another token follows on the current line. */
static int more_on_line(gm *g) {
  skip_space(g, 1);
  return g->pos < g->len && g->buf[g->pos] != '\n';
}

static dt_status read_i64(gm *g, const char *what, int64_t *out) {
  dt_status rc = DT_OK;
  char tok[64], *end = NULL;

  GM_CHECK(token(g, tok, sizeof tok), g, "unexpected end of file reading %s (truncated file?)",
           what);
  *out = strtoll(tok, &end, 10);
  GM_CHECK(*end == '\0', g, "%s: expected an integer, got '%s'", what, tok);
cleanup:
  return rc;
}

static dt_status read_int(gm *g, const char *what, int *out) {
  dt_status rc = DT_OK;
  int64_t v = 0;

  DT_TRY(read_i64(g, what, &v));
  GM_CHECK(v >= -2147483647 && v <= 2147483647, g, "%s: %lld is out of range", what, (long long)v);
  *out = (int)v;
cleanup:
  return rc;
}

static dt_status read_f64(gm *g, const char *what, double *out) {
  dt_status rc = DT_OK;
  char tok[64], *end = NULL;

  GM_CHECK(token(g, tok, sizeof tok), g, "unexpected end of file reading %s (truncated file?)",
           what);
  *out = strtod(tok, &end);
  GM_CHECK(*end == '\0', g, "%s: expected a number, got '%s'", what, tok);
cleanup:
  return rc;
}

static dt_status bin(gm *g, void *dst, size_t n, const char *what) {
  dt_status rc = DT_OK;

  GM_CHECK(g->len - g->pos >= n, g,
           "unexpected end of file in the binary data of %s (truncated file?)", what);
  memcpy(dst, g->buf + g->pos, n);
  g->pos += n;
cleanup:
  return rc;
}

/* An integer of a binary file: int (4 bytes) or size_t (8 bytes in 4.1). */
static dt_status bin_int(gm *g, size_t size, const char *what, int64_t *out) {
  dt_status rc = DT_OK;
  int32_t i = 0;
  uint64_t u = 0;

  if (size == 4) {
    DT_TRY(bin(g, &i, 4, what));
    *out = i;
  } else {
    DT_TRY(bin(g, &u, 8, what));
    GM_CHECK(u < ((uint64_t)1 << 62), g, "%s: value out of range", what);
    *out = (int64_t)u;
  }
cleanup:
  return rc;
}

/* An integer in either mode: int-sized or (4.1) size_t-sized. */
static dt_status num(gm *g, int size_t_sized, const char *what, int64_t *out) {
  if (!g->binary) return read_i64(g, what, out);
  return bin_int(g, size_t_sized && g->version == 4 ? 8 : 4, what, out);
}

static dt_status real(gm *g, const char *what, double *out) {
  return g->binary ? bin(g, out, sizeof *out, what) : read_f64(g, what, out);
}

static dt_status expect_end(gm *g, const char *section) {
  dt_status rc = DT_OK;
  char tok[64], want[64];

  snprintf(want, sizeof want, "$End%s", section + 1);
  GM_CHECK(token(g, tok, sizeof tok), g, "unexpected end of file: %s is missing (truncated file?)",
           want);
  GM_CHECK(strcmp(tok, want) == 0, g, "expected %s, got '%.40s' (wrong count in %s?)", want, tok,
           section);
cleanup:
  return rc;
}

static dt_status mesh_format(gm *g) {
  dt_status rc = DT_OK;
  double version = 0;
  int type = 0, size = 0, one = 0;

  DT_TRY(read_f64(g, "$MeshFormat version", &version));
  DT_TRY(read_int(g, "$MeshFormat file type", &type));
  DT_TRY(read_int(g, "$MeshFormat data size", &size));
  GM_CHECK(version == 4.1 || version == 2.2, g,
           "Gmsh format %g is not supported (4.1 or 2.2: gmsh -format msh41 or "
           "msh22)",
           version);
  GM_CHECK(size == 8, g, "data size %d is not supported (8)", size);
  g->version = version == 4.1 ? 4 : 2;
  g->binary = type == 1;
  if (g->binary) {
    GM_CHECK(g->pos < g->len && g->buf[g->pos] == '\n', g, "malformed binary $MeshFormat");
    g->pos++, g->line++;
    DT_TRY(bin(g, &one, 4, "$MeshFormat"));
    GM_CHECK(one == 1, g, "the binary file has the other byte order (not supported)");
  }
  DT_TRY(expect_end(g, "$MeshFormat"));
cleanup:
  return rc;
}

static dt_status physical_names(gm *g) {
  dt_status rc = DT_OK;
  int n = 0;

  DT_TRY(read_int(g, "$PhysicalNames count", &n));
  GM_CHECK(n >= 0 && n < 1000000, g, "invalid number of physical names %d", n);
  DT_TRY(dt_imp_reserve((void **)&g->groups, &g->cap_groups, (size_t)n + 1, sizeof *g->groups,
                        g->ctx));
  for (int i = 0; i < n; i++) {
    gm_group *gr = &g->groups[g->n_groups];
    const char *name = NULL;
    size_t k = 0, bad = 0;
    DT_TRY(read_int(g, "physical dimension", &gr->dim));
    DT_TRY(read_int(g, "physical tag", &gr->tag));
    skip_space(g, 1);
    GM_CHECK(g->pos < g->len && g->buf[g->pos] == '"', g, "expected a quoted physical name");
    name = &g->buf[++g->pos];
    while (g->pos < g->len && g->buf[g->pos] != '"' && g->buf[g->pos] != '\n') g->pos++;
    GM_CHECK(g->pos < g->len && g->buf[g->pos] == '"', g, "unterminated physical name");
    k = (size_t)(&g->buf[g->pos] - name);
    /* the names become set names, which summary.json and the daemon's replies carry as JSON */
    bad = dt_utf8_invalid_at(name, k);
    GM_CHECK(bad == k, g,
             "physical group %d (dimension %d): byte 0x%02X of its name is not UTF-8: names must "
             "be UTF-8 text",
             gr->tag, gr->dim, (unsigned)(unsigned char)name[bad]);
    k = dt_utf8_prefix(name, k, DT_NAME_MAX - 1); /* a long name is cut between characters */
    memcpy(gr->name, name, k);
    gr->name[k] = '\0';
    g->pos++;
    g->n_groups++;
  }
  DT_TRY(expect_end(g, "$PhysicalNames"));
cleanup:
  return rc;
}

static dt_status add_entity(gm *g, int dim, int tag, int n_phys) {
  dt_status rc = DT_OK;

  DT_TRY(dt_imp_reserve((void **)&g->ents, &g->cap_ents, (size_t)g->n_ents + 1, sizeof *g->ents,
                        g->ctx));
  g->ents[g->n_ents].dim = dim;
  g->ents[g->n_ents].tag = tag;
  g->ents[g->n_ents].n_phys = n_phys;
  g->ents[g->n_ents++].phys0 = g->n_ent_phys;
  DT_TRY(dt_imp_reserve((void **)&g->ent_phys, &g->cap_ent_phys,
                        (size_t)g->n_ent_phys + (size_t)n_phys + 1, sizeof *g->ent_phys, g->ctx));
cleanup:
  return rc;
}

static dt_status entities(gm *g) {
  dt_status rc = DT_OK;
  int64_t count[4] = {0}, v = 0, nb = 0, np = 0;
  double d = 0;

  for (int k = 0; k < 4; k++) DT_TRY(num(g, 1, "$Entities count", &count[k]));
  for (int dim = 0; dim < 4; dim++)
    for (int64_t i = 0; i < count[dim]; i++) {
      DT_TRY(num(g, 0, "entity tag", &v));
      for (int k = 0; k < (dim == 0 ? 3 : 6); k++) DT_TRY(real(g, "entity box", &d));
      DT_TRY(num(g, 1, "number of physical tags", &np));
      GM_CHECK(np >= 0 && np < 100000, g, "invalid number of physical tags");
      DT_TRY(add_entity(g, dim, (int)v, (int)np));
      for (int64_t k = 0; k < np; k++) {
        DT_TRY(num(g, 0, "physical tag", &v));
        g->ent_phys[g->n_ent_phys++] = (int)(v < 0 ? -v : v);
      }
      if (dim == 0) continue;
      DT_TRY(num(g, 1, "number of bounding entities", &nb));
      GM_CHECK(nb >= 0 && nb < 100000000, g, "invalid number of bounding entities");
      for (int64_t k = 0; k < nb; k++) DT_TRY(num(g, 0, "bounding entity", &v));
    }
  DT_TRY(expect_end(g, "$Entities"));
cleanup:
  return rc;
}

static dt_status grow_nodes(gm *g, int64_t more) {
  dt_status rc = DT_OK;
  int cap = g->cap_nodes, c = 0;

  GM_CHECK(more >= 0 && g->n_nodes + more < INT32_MAX / 3, g, "invalid number of nodes %lld",
           (long long)more);
  DT_TRY(dt_imp_reserve((void **)&g->node_tag, &g->cap_nodes, (size_t)(g->n_nodes + more),
                        sizeof *g->node_tag, g->ctx));
  c = cap;
  if (cap != g->cap_nodes)
    DT_TRY(dt_imp_reserve((void **)&g->x, &c, 3 * (size_t)g->cap_nodes, sizeof *g->x, g->ctx));
cleanup:
  return rc;
}

static dt_status nodes_v4(gm *g) {
  dt_status rc = DT_OK;
  int64_t hdr[4] = {0}, edim = 0, etag = 0, par = 0, n = 0;
  double extra = 0;

  for (int k = 0; k < 4; k++) DT_TRY(num(g, 1, "$Nodes header", &hdr[k]));
  DT_TRY(grow_nodes(g, hdr[1]));
  for (int64_t b = 0; b < hdr[0]; b++) {
    int first = g->n_nodes;
    DT_TRY(num(g, 0, "node block dimension", &edim));
    DT_TRY(num(g, 0, "node block entity", &etag));
    DT_TRY(num(g, 0, "node block parametric flag", &par));
    DT_TRY(num(g, 1, "node block size", &n));
    GM_CHECK(n >= 0 && first + n <= hdr[1], g,
             "node block of %lld nodes exceeds the %lld announced", (long long)n,
             (long long)hdr[1]);
    for (int64_t i = 0; i < n; i++) DT_TRY(num(g, 1, "node tag", &g->node_tag[first + i]));
    for (int64_t i = 0; i < n; i++) {
      for (int k = 0; k < 3; k++) DT_TRY(real(g, "node coordinate", &g->x[3 * (first + i) + k]));
      for (int k = 0; par && k < edim; k++) DT_TRY(real(g, "node parameter", &extra));
    }
    g->n_nodes += (int)n;
  }
  GM_CHECK(g->n_nodes == hdr[1], g, "$Nodes announced %lld nodes but holds %d", (long long)hdr[1],
           g->n_nodes);
  DT_TRY(expect_end(g, "$Nodes"));
cleanup:
  return rc;
}

static dt_status nodes_v2(gm *g) {
  dt_status rc = DT_OK;
  int64_t n = 0;
  int32_t id = 0;

  DT_TRY(read_i64(g, "$Nodes count", &n));
  DT_TRY(grow_nodes(g, n));
  if (g->binary) g->pos++, g->line++; /* the newline after the count */
  for (int64_t i = 0; i < n; i++, g->n_nodes++) {
    if (g->binary) {
      DT_TRY(bin(g, &id, 4, "$Nodes"));
      g->node_tag[i] = id;
      DT_TRY(bin(g, &g->x[3 * i], 3 * sizeof(double), "$Nodes"));
      continue;
    }
    DT_TRY(read_i64(g, "node tag", &g->node_tag[i]));
    for (int k = 0; k < 3; k++) DT_TRY(read_f64(g, "node coordinate", &g->x[3 * i + k]));
  }
  DT_TRY(expect_end(g, "$Nodes"));
cleanup:
  return rc;
}

/* Room for one more element of npe nodes. */
static dt_status grow_elems(gm *g, int npe) {
  dt_status rc = DT_OK;
  int cap = g->cap_elems, c = 0;

  DT_TRY(dt_imp_reserve((void **)&g->elem_tag, &g->cap_elems, (size_t)g->n_elems + 1,
                        sizeof *g->elem_tag, g->ctx));
  if (cap != g->cap_elems) {
    int *const *arrs[] = {&g->elem_type, &g->elem_ent, &g->elem_dim, &g->elem_line};
    for (size_t a = 0; a < 4; a++) {
      c = cap;
      DT_TRY(dt_imp_reserve((void **)arrs[a], &c, (size_t)g->cap_elems, sizeof(int), g->ctx));
    }
    c = cap ? cap + 1 : 0;
    DT_TRY(
        dt_imp_reserve((void **)&g->elem_ptr, &c, (size_t)g->cap_elems + 1, sizeof(int), g->ctx));
  }
  if (g->n_elems == 0) g->elem_ptr[0] = 0;
  DT_TRY(dt_imp_reserve((void **)&g->elem_nodes, &g->cap_en,
                        (size_t)g->elem_ptr[g->n_elems] + (size_t)npe, sizeof *g->elem_nodes,
                        g->ctx));
cleanup:
  return rc;
}

/* One element of Gmsh type `type`: its tag and nodes are read by the caller's mode. */
static dt_status element(gm *g, int type, int dim, int ent, int64_t tag, const int64_t *nodes,
                         int npe) {
  dt_status rc = DT_OK;
  int e = g->n_elems;

  DT_TRY(grow_elems(g, npe));
  g->elem_tag[e] = tag;
  g->elem_type[e] = type;
  g->elem_dim[e] = dim;
  g->elem_ent[e] = ent;
  g->elem_line[e] = g->line;
  memcpy(&g->elem_nodes[g->elem_ptr[e]], nodes, (size_t)npe * sizeof *nodes);
  g->elem_ptr[e + 1] = g->elem_ptr[e] + npe;
  g->n_elems++;
cleanup:
  return rc;
}

static dt_status known_type(gm *g, int type, int *npe, int *dim) {
  dt_status rc = DT_OK;
  int t = 0;
  const char *name = NULL;

  *npe = gm_type_info(type, dim, &t, &name);
  GM_CHECK(*npe > 0, g, "Gmsh element type %d is not supported (see docs/interop.md)", type);
cleanup:
  return rc;
}

/* ASCII element nodes: exactly npe values must follow on this line. */
static dt_status line_nodes(gm *g, int64_t tag, int npe, int64_t *nodes) {
  dt_status rc = DT_OK;
  int k = 0;

  for (k = 0; k < npe && more_on_line(g); k++) DT_TRY(read_i64(g, "element node", &nodes[k]));
  GM_CHECK(k == npe && !more_on_line(g), g, "element %lld must have %d nodes, got %s%d",
           (long long)tag, npe, k == npe ? "more than " : "", k);
cleanup:
  return rc;
}

static dt_status elements_v4(gm *g) {
  dt_status rc = DT_OK;
  int64_t hdr[4] = {0}, edim = 0, etag = 0, type = 0, n = 0, tag = 0, *nodes = NULL;
  int npe = 0, dim = 0;

  DT_ALLOC(nodes, GM_MAX_NPE, g->ctx, "element nodes");
  for (int k = 0; k < 4; k++) DT_TRY(num(g, 1, "$Elements header", &hdr[k]));
  for (int64_t b = 0; b < hdr[0]; b++) {
    DT_TRY(num(g, 0, "element block dimension", &edim));
    DT_TRY(num(g, 0, "element block entity", &etag));
    DT_TRY(num(g, 0, "element block type", &type));
    DT_TRY(num(g, 1, "element block size", &n));
    DT_TRY(known_type(g, (int)type, &npe, &dim));
    for (int64_t i = 0; i < n; i++) {
      DT_TRY(num(g, 1, "element tag", &tag));
      if (g->binary)
        for (int k = 0; k < npe; k++) DT_TRY(bin_int(g, 8, "element node", &nodes[k]));
      else
        DT_TRY(line_nodes(g, tag, npe, nodes));
      DT_TRY(element(g, (int)type, dim, (int)etag, tag, nodes, npe));
    }
  }
  GM_CHECK(g->n_elems == hdr[1], g, "$Elements announced %lld elements but holds %d",
           (long long)hdr[1], g->n_elems);
  DT_TRY(expect_end(g, "$Elements"));
cleanup:
  dt_free(nodes);
  return rc;
}

/* 2.2 element: "tag type ntags tags... nodes..." (ASCII); binary groups of one type. */
static dt_status elements_v2(gm *g) {
  dt_status rc = DT_OK;
  int64_t n = 0, tag = 0, type = 0, nt = 0, t = 0, *nodes = NULL;
  int32_t hdr[3], v = 0;
  int npe = 0, dim = 0, phys = 0;

  DT_ALLOC(nodes, GM_MAX_NPE, g->ctx, "element nodes");
  DT_TRY(read_i64(g, "$Elements count", &n));
  if (g->binary) g->pos++, g->line++;
  for (int64_t i = 0; i < n;) {
    if (g->binary) {
      DT_TRY(bin(g, hdr, sizeof hdr, "$Elements"));
      DT_TRY(known_type(g, hdr[0], &npe, &dim));
      GM_CHECK(hdr[1] > 0 && hdr[1] <= n - i && hdr[2] >= 0 && hdr[2] < 64, g,
               "malformed binary element block");
      for (int j = 0; j < hdr[1]; j++, i++) {
        DT_TRY(bin(g, &v, 4, "$Elements"));
        tag = v;
        phys = 0;
        for (int k = 0; k < hdr[2]; k++) {
          DT_TRY(bin(g, &v, 4, "$Elements"));
          if (k == 0) phys = v;
        }
        for (int k = 0; k < npe; k++) {
          DT_TRY(bin(g, &v, 4, "$Elements"));
          nodes[k] = v;
        }
        DT_TRY(element(g, hdr[0], dim, phys, tag, nodes, npe));
      }
      continue;
    }
    DT_TRY(read_i64(g, "element tag", &tag));
    DT_TRY(read_i64(g, "element type", &type));
    DT_TRY(known_type(g, (int)type, &npe, &dim));
    DT_TRY(read_i64(g, "number of element tags", &nt));
    GM_CHECK(nt >= 0 && nt < 64, g, "element %lld: invalid number of tags %lld", (long long)tag,
             (long long)nt);
    phys = 0;
    for (int64_t k = 0; k < nt; k++) {
      DT_TRY(read_i64(g, "element tag", &t));
      if (k == 0) phys = (int)t;
    }
    DT_TRY(line_nodes(g, tag, npe, nodes));
    DT_TRY(element(g, (int)type, dim, phys, tag, nodes, npe));
    i++;
  }
  DT_TRY(expect_end(g, "$Elements"));
cleanup:
  dt_free(nodes);
  return rc;
}

/* An unknown section: skip to its $End line. */
static dt_status skip_section(gm *g, const char *name) {
  dt_status rc = DT_OK;
  char want[80];
  size_t n = 0;

  snprintf(want, sizeof want, "\n$End%s", name + 1);
  n = strlen(want);
  while (g->pos + n <= g->len && memcmp(g->buf + g->pos, want, n) != 0)
    g->line += g->buf[g->pos++] == '\n';
  GM_CHECK(g->pos + n <= g->len, g, "unexpected end of file: $End%s is missing (truncated file?)",
           name + 1);
  g->pos += n;
  g->line++;
cleanup:
  return rc;
}

dt_status gm_read_sections(gm *g) {
  dt_status rc = DT_OK;
  char tok[64];
  int have_nodes = 0, have_elems = 0;

  g->line = 1;
  while (token(g, tok, sizeof tok)) {
    GM_CHECK(tok[0] == '$', g, "expected a section ($Name), got '%.40s'", tok);
    GM_CHECK(g->version || strcmp(tok, "$MeshFormat") == 0, g,
             "the file must start with $MeshFormat (not a Gmsh "
             "mesh?)");
    if (g->binary && g->version == 4 && g->pos < g->len && g->buf[g->pos] == '\n' &&
        (!strcmp(tok, "$Entities") || !strcmp(tok, "$Nodes") || !strcmp(tok, "$Elements")))
      g->pos++, g->line++; /* binary data starts right after the section's line */
    if (strcmp(tok, "$MeshFormat") == 0)
      DT_TRY(mesh_format(g));
    else if (strcmp(tok, "$PhysicalNames") == 0)
      DT_TRY(physical_names(g));
    else if (strcmp(tok, "$Entities") == 0 && g->version == 4)
      DT_TRY(entities(g));
    else if (strcmp(tok, "$Nodes") == 0) {
      DT_TRY(g->version == 4 ? nodes_v4(g) : nodes_v2(g));
      have_nodes = 1;
    } else if (strcmp(tok, "$Elements") == 0) {
      DT_TRY(g->version == 4 ? elements_v4(g) : elements_v2(g));
      have_elems = 1;
    } else
      DT_TRY(skip_section(g, tok));
  }
  GM_CHECK(g->version, g, "empty file: not a Gmsh mesh");
  GM_CHECK(have_nodes && have_elems, g, "unexpected end of file: no %s section (truncated file?)",
           have_nodes ? "$Elements" : "$Nodes");
cleanup:
  return rc;
}

dt_status gm_read_file(gm *g, const char *path, const dt_import_options *opt, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  memset(g, 0, sizeof *g);
  g->path = path, g->opt = opt, g->ctx = ctx;
  DT_TRY(dt_imp_read_file(path, "mesh", &g->buf, &g->len, ctx));
  DT_TRY(gm_read_sections(g));
cleanup:
  return rc;
}
