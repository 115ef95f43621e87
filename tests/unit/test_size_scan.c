/* The size scanner (io/size_scan.h) against the importers: for each file given (a JSON job, a
 * Gmsh .msh, a deck) the counts the scanner reads from its text are the built model's (nodes,
 * elements per type, dimension; a .msh may announce more nodes and elements than the model
 * keeps), whatever the pieces the text is fed in (1 byte at a time up to all at once), and the
 * floor of dt_analysis_floor_bytes is at most dt_analysis_estimate of the model. A JSON job's
 * mesh object alone is scanned as an upload would be, also with keys written with escapes.
 * Then texts written to be counted small or early: headers that announce huge counts (known
 * as soon as the header is read), escaped keys, a type given after its rows, sections not on
 * lines of their own, element lines continued.
 *
 *   test_size_scan FILE...   (.json jobs, .msh, .inp) */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ductile.h"
#include "unit_model.h"

static const size_t PIECES[] = {1, 2, 3, 7, 64, 4096, (size_t)1 << 40};

static void scan_text(const char *text, size_t len, dt_size_format fmt, int sniff, size_t piece,
                      dt_model_size *out) {
  dt_size_scan *s = NULL;
  dt_ctx ctx = {0};
  CHECK(dt_size_scan_create(fmt, sniff, &s, &ctx) == DT_OK, "%s", ctx.msg);
  for (size_t at = 0; at < len; at += piece)
    dt_size_scan_feed(s, text + at, len - at < piece ? len - at : piece);
  dt_size_scan_result(s, out);
  dt_size_scan_destroy(&s);
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n = 0;
  CHECK(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)n + 1);
  CHECK(buf && fread(buf, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
  buf[n] = '\0';
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static int same_size(const dt_model_size *a, const dt_model_size *b) {
  return a->format == b->format && a->n_nodes == b->n_nodes && a->n_elems == b->n_elems &&
         a->dim == b->dim && !memcmp(a->n_type, b->n_type, sizeof a->n_type);
}

/* The text scanned in every piece size gives one result, returned. */
static void scan_all_ways(const char *what, const char *text, size_t len, dt_size_format fmt,
                          int sniff, dt_model_size *out) {
  dt_model_size other;
  scan_text(text, len, fmt, sniff, PIECES[0], out);
  for (size_t i = 1; i < sizeof PIECES / sizeof PIECES[0]; i++) {
    scan_text(text, len, fmt, sniff, PIECES[i], &other);
    CHECK(same_size(out, &other), "%s: fed %zu bytes at a time, the counts differ", what,
          PIECES[i]);
  }
  CHECK(out->offset == (int64_t)len, "%s: offset %lld", what, (long long)out->offset);
}

/* The model's counts per type, hex20r counted as hex20 where the text names hex20 (a section
 * of a JSON job may make them hex20r), and with c3d8r (a deck) the hex8 of a reduced section
 * (an explicit step's C3D8R) counted as hex8r, as the scan counts every C3D8R. */
static void check_counts(const char *what, const dt_model_size *sz, const dt_model *m,
                         int hex20_named, int c3d8r, int nodes_exact, int elems_exact) {
  int64_t want[DT_ELEM_NTYPES] = {0};
  for (int e = 0; e < m->n_elems; e++)
    want[c3d8r && m->elem_type[e] == DT_ELEM_HEX8 &&
                 m->sections[m->elem_section[e]].form == DT_FORM_REDUCED
             ? DT_ELEM_HEX8R
             : m->elem_type[e]]++;
  if (hex20_named) want[DT_ELEM_HEX20] += want[DT_ELEM_HEX20R], want[DT_ELEM_HEX20R] = 0;
  CHECK(nodes_exact ? sz->n_nodes == m->n_nodes : sz->n_nodes >= m->n_nodes,
        "%s: %lld nodes counted, the model has %d", what, (long long)sz->n_nodes, m->n_nodes);
  CHECK(elems_exact ? sz->n_elems == m->n_elems : sz->n_elems >= m->n_elems,
        "%s: %lld elements counted, the model has %d", what, (long long)sz->n_elems, m->n_elems);
  CHECK(!memcmp(want, sz->n_type, sizeof want), "%s: the elements per type differ", what);
  CHECK(sz->dim == m->dim, "%s: dimension %d, the model's %d", what, sz->dim, m->dim);
}

/* The floor is at most the built model's estimate. An explicit model (shells) has no implicit
 * estimate (dt_problem_create refuses shells): its floor, the DOF vectors, is only positive. */
static void check_floor(const char *what, const dt_model_size *sz, const dt_model *m) {
  double estimate = 0.0, floor = dt_analysis_floor_bytes(sz);
  dt_ctx ctx = {0};
  if (m->steps[0].procedure == DT_PROC_EXPLICIT) {
    CHECK(floor > 0.0, "%s: floor %.0f", what, floor);
    printf("%s: %lld nodes, %lld elements (explicit), floor %.0f bytes\n", what,
           (long long)sz->n_nodes, (long long)sz->n_elems, floor);
    return;
  }
  CHECK(dt_analysis_estimate(m, "cpu", &estimate, &ctx) == DT_OK, "%s: %s", what, ctx.msg);
  CHECK(floor > 0.0 && floor <= estimate, "%s: floor %.0f, estimate %.0f", what, floor, estimate);
  printf("%s: %lld nodes, %lld elements, floor %.0f bytes = %.2f of the estimate\n", what,
         (long long)sz->n_nodes, (long long)sz->n_elems, floor, floor / estimate);
}

/* Replace every "key" (quoted) in text by its escaped spelling. */
static char *escape_key(const char *text, const char *key, const char *escaped) {
  char quoted[64], with[64], *out = malloc(2 * strlen(text) + 1), *o = out;
  const char *p = text, *hit = NULL;
  snprintf(quoted, sizeof quoted, "\"%s\"", key);
  snprintf(with, sizeof with, "\"%s\"", escaped);
  while ((hit = strstr(p, quoted)) != NULL) {
    memcpy(o, p, (size_t)(hit - p));
    o += hit - p;
    memcpy(o, with, strlen(with));
    o += strlen(with);
    p = hit + strlen(quoted);
  }
  strcpy(o, p);
  return out;
}

static void json_job(const char *path) {
  size_t len = 0;
  char *text = read_all(path, &len), *mesh_text = NULL, *escaped = NULL, *e2 = NULL;
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  dt_model_size sz, mesh_sz;
  json_error_t je;
  json_t *doc = json_loads(text, 0, &je);
  CHECK(dt_parse_job_file(path, &m, &ctx) == DT_OK, "%s", ctx.msg);
  scan_all_ways(path, text, len, DT_SIZE_JSON_JOB, 1, &sz);
  CHECK(sz.format == DT_SIZE_JSON_JOB && sz.keeps_all, "%s: format %d", path, sz.format);
  check_counts(path, &sz, m, 1, 0, 1, 1);
  check_floor(path, &sz, m);
  /* its mesh object, as POST /v1/meshes takes it; then with "nodes" and the type written with
   * escapes, which Jansson reads as the plain keys */
  mesh_text = json_dumps(json_object_get(doc, "mesh"), JSON_INDENT(1));
  scan_all_ways(path, mesh_text, strlen(mesh_text), DT_SIZE_JSON_MESH, 1, &mesh_sz);
  CHECK(mesh_sz.format == DT_SIZE_JSON_MESH, "%s: mesh format %d", path, mesh_sz.format);
  mesh_sz.format = sz.format;
  CHECK(same_size(&sz, &mesh_sz), "%s: the mesh object alone counts differently", path);
  escaped = escape_key(mesh_text, "nodes", "n\\u006fdes");
  e2 = escape_key(escaped, "connectivity", "c\\u006Fnn\\u0065ctivity");
  scan_all_ways(path, e2, strlen(e2), DT_SIZE_JSON_MESH, 0, &mesh_sz);
  mesh_sz.format = sz.format;
  CHECK(same_size(&sz, &mesh_sz), "%s: escaped keys count differently", path);
  free(e2);
  free(escaped);
  free(mesh_text);
  json_decref(doc);
  dt_model_destroy(&m);
  free(text);
}

static void gmsh(const char *path) {
  size_t len = 0;
  char *text = read_all(path, &len);
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  dt_model_size sz;
  CHECK(dt_gmsh_read_file(path, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  scan_all_ways(path, text, len, DT_SIZE_JSON_MESH, 1, &sz);
  CHECK(sz.format == DT_SIZE_GMSH && !sz.keeps_all, "%s: format %d", path, sz.format);
  check_counts(path, &sz, m, 0, 0, 0, 0);
  printf("%s: %lld nodes, %lld elements (the model: %d, %d)\n", path, (long long)sz.n_nodes,
         (long long)sz.n_elems, m->n_nodes, m->n_elems);
  dt_model_destroy(&m);
  free(text);
}

static void deck(const char *path) {
  size_t len = 0;
  char *text = read_all(path, &len);
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  dt_model_size sz, cut;
  CHECK(dt_inp_parse_file(path, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  scan_all_ways(path, text, len, DT_SIZE_JSON_JOB, 1, &sz);
  CHECK(sz.format == DT_SIZE_INP && sz.keeps_all, "%s: format %d", path, sz.format);
  check_counts(path, &sz, m, 0, 1, 1, 1);
  check_floor(path, &sz, m);
  while (len > 0 && text[len - 1] == '\n') len--; /* a last line without its newline */
  scan_text(text, len, DT_SIZE_INP, 0, 4096, &cut);
  CHECK(same_size(&sz, &cut), "%s: without the last newline the counts differ", path);
  dt_model_destroy(&m);
  free(text);
}

/* Texts written to be counted small or late. */
static void synthetic(void) {
  dt_model_size sz;
  const char *big_v4 = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2000000000 1 2000000000\n";
  const char *big_v2 = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n"
                       "3 0 1 0\n$EndNodes\n$Elements\n900000000\n";
  /* every section and value on one line: the importer splits tokens at any white space */
  const char *one_line = "$MeshFormat 4.1 0 8 $EndMeshFormat $Nodes 1 4 1 4 3 1 0 4 1 2 3 4 "
                         "0 0 0 1 0 0 0 1 0 0 0 1 $EndNodes $Elements 1 1 1 1 3 1 4 1 1 1 2 3 4 "
                         "$EndElements";
  const char *json = "{\"elements\": [{\"connectivity\": [[1, 1, 2, 3, 4], [2, 1, 2, 4, 3]], "
                     "\"type\": \"tet\\u0034\"}], \"n\\u006fdes\": [[1, 0, 0, 0], [2, 1, 0, 0], "
                     "[3, 0, 1, 0], [4, 0, 0, 1]], \"node_sets\": {\"nodes\": [1, 2]}}";
  const char *inp = "*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n** a comment\n\n3, 0, 1, 0\n"
                    "*ELEMENT,\n  TYPE=C3D20, ELSET=E\n1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,\n"
                    "11, 12, 13, 14, 15, 16, 17, 18, 19, 20\n2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "
                    "11, 12, 13, 14, 15\n16, 17, 18, 19, 20\n*ELEMENT, TYPE=CPS4\n3, 1, 2, 3, 4\n";
  scan_text(big_v4, strlen(big_v4), DT_SIZE_GMSH, 0, 5, &sz);
  CHECK(sz.n_nodes == 2000000000, "announced nodes: %lld", (long long)sz.n_nodes);
  CHECK(dt_model_size_dofs(&sz) == 4000000000LL, "DOFs before the elements' dimension: %lld",
        (long long)dt_model_size_dofs(&sz));
  scan_text(big_v2, strlen(big_v2), DT_SIZE_GMSH, 0, 3, &sz);
  CHECK(sz.n_nodes == 3 && sz.n_elems == 900000000, "v2: %lld nodes, %lld elements",
        (long long)sz.n_nodes, (long long)sz.n_elems);
  scan_text(one_line, strlen(one_line), DT_SIZE_GMSH, 0, 1, &sz);
  CHECK(sz.n_nodes == 4 && sz.n_elems == 1 && sz.n_type[DT_ELEM_TET4] == 1 && sz.dim == 3,
        "one line: %lld nodes, %lld elements, %lld tet4", (long long)sz.n_nodes,
        (long long)sz.n_elems, (long long)sz.n_type[DT_ELEM_TET4]);
  scan_text(json, strlen(json), DT_SIZE_JSON_MESH, 0, 1, &sz);
  CHECK(sz.n_nodes == 4 && sz.n_elems == 2 && sz.n_type[DT_ELEM_TET4] == 2 && sz.dim == 3,
        "escaped JSON: %lld nodes, %lld elements, %lld tet4", (long long)sz.n_nodes,
        (long long)sz.n_elems, (long long)sz.n_type[DT_ELEM_TET4]);
  scan_text(inp, strlen(inp), DT_SIZE_INP, 0, 1, &sz);
  CHECK(sz.n_nodes == 3 && sz.n_elems == 3 && sz.n_type[DT_ELEM_HEX20] == 2 &&
            sz.n_type[DT_ELEM_QUAD4] == 1 && sz.dim == 3,
        "deck: %lld nodes, %lld elements, %lld hex20", (long long)sz.n_nodes, (long long)sz.n_elems,
        (long long)sz.n_type[DT_ELEM_HEX20]);
}

int main(int argc, char **argv) {
  synthetic();
  for (int i = 1; i < argc; i++) {
    const char *dot = strrchr(argv[i], '.');
    if (dot && !strcmp(dot, ".json"))
      json_job(argv[i]);
    else if (dot && !strcmp(dot, ".msh"))
      gmsh(argv[i]);
    else
      deck(argv[i]);
  }
  printf("PASS\n");
  return 0;
}
