/* Large *NODE and *ELEMENT blocks, whose plain lines are read on several threads
 * (solver/io/import_inp_bulk.c), import to the same model as the one-line reader gives, with
 * the same warnings and the same first error at the same line.
 *
 * The reference is the same deck with a comma at the end of every node and element line: the
 * one-line reader drops the empty last field, so the deck means the same, while the threads
 * leave every such line to it. The mesh is a box of hex8 whose node and element blocks are each
 * longer than one window of the threaded reader (2^18 lines), with lines the threads leave to
 * the one-line reader deep inside (a Fortran exponent, a value after z, an element continued on
 * a second line, one listing an extra node) and lines both take (an empty coordinate, a node
 * without z). Then
 * errors deep inside a block: a bad coordinate, an unknown node, a node repeated in an element
 * (two errors in one block: the first line's is reported), a node defined twice.
 * Usage: test_io_inp_bulk <scratch dir>. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/import.h"
#include "inp_same_model.h"
#include "inp_warnings.h"
#include "io_fixture.h"

/* Nodes NX x NY x NZ: 278,850 lines; hex8 (NX-1)(NY-1)(NZ-1): 266,240 lines. */
enum { NX = 66, NY = 65, NZ = 65 };

typedef struct deck_opts {
  int trailing_comma; /* every node and element line ends with ',' (the reference) */
  int odd_lines;      /* the lines the threads leave to the one-line reader */
  long bad_coord;     /* node index whose x is written "12.5x" (-1: none) */
  long unknown_node;  /* element index that names a node that does not exist (-1) */
  long repeat_node;   /* element index that names its first node twice (-1) */
  long twice;         /* node index whose id is the previous node's (-1) */
} deck_opts;

static long node_index(int i, int j, int k) { return ((long)k * NY + j) * NX + i; }
static long node_id(long n) { return 3 * n + 1; } /* not dense: the map's binary search */

/* Coordinates with every digit of a double, on a slightly sheared box. */
static void coords(long n, double x[3]) {
  int i = (int)(n % NX), j = (int)(n / NX % NY), k = (int)(n / ((long)NX * NY));
  x[0] = 0.0137 * i + 0.001 * sin(0.3 * j);
  x[1] = 0.0211 * j + 0.0005 * k;
  x[2] = 0.0173 * k;
}

/* Writes the deck; *lines receives the line number of each node (lines[n]) and element
 * (lines[NODES + e]) as written. */
static void write_deck(const char *path, const deck_opts *o, long *lines) {
  const long nodes = (long)NX * NY * NZ;
  const char *end = o->trailing_comma ? ",\n" : "\n";
  long line = 0, e = 0;
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  fprintf(f, "*HEADING\nbox\n*NODE, NSET=NALL\n");
  line = 3;
  for (long n = 0; n < nodes; n++) {
    double x[3];
    char s[3][40];
    coords(n, x);
    for (int c = 0; c < 3; c++) snprintf(s[c], sizeof s[c], "%.17g", x[c]);
    lines[n] = ++line;
    if (n == o->bad_coord) snprintf(s[0], sizeof s[0], "12.5x");
    if (o->odd_lines && n == 100003 && !strchr(s[0], 'e')) strcat(s[0], "d0"); /* 1.5d0 */
    if (o->odd_lines && n == 33) s[1][0] = '\0'; /* "id, x, , z": y of node 33 is 0 */
    if (o->odd_lines && n == 200003)
      fprintf(f, "%ld, %s, %s, %s, 7.5%s", node_id(n), s[0], s[1], s[2], end); /* after z */
    else if (o->odd_lines && n == 4000)                         /* z of node 4000 is 0 */
      fprintf(f, "%ld, %s, %s%s", node_id(n), s[0], s[1], end); /* no z */
    else
      fprintf(f, "%ld, %s, %s, %s%s", node_id(o->twice == n ? n - 1 : n), s[0], s[1], s[2], end);
  }
  fprintf(f, "*ELEMENT, TYPE=C3D8, ELSET=EALL\n");
  line++;
  for (int k = 0; k + 1 < NZ; k++)
    for (int j = 0; j + 1 < NY; j++)
      for (int i = 0; i + 1 < NX; i++, e++) {
        long c[8] = {node_index(i, j, k),
                     node_index(i + 1, j, k),
                     node_index(i + 1, j + 1, k),
                     node_index(i, j + 1, k),
                     node_index(i, j, k + 1),
                     node_index(i + 1, j, k + 1),
                     node_index(i + 1, j + 1, k + 1),
                     node_index(i, j + 1, k + 1)};
        long id[8];
        for (int a = 0; a < 8; a++) id[a] = node_id(c[a]);
        if (e == o->unknown_node) id[5] = 999999999;
        if (e == o->repeat_node) id[6] = id[0];
        lines[nodes + e] = ++line;
        if (o->odd_lines && e == 150000) { /* continued on the next line */
          fprintf(f, "%ld, %ld, %ld, %ld\n%ld, %ld, %ld, %ld, %ld%s", 10 * e + 5, id[0], id[1],
                  id[2], id[3], id[4], id[5], id[6], id[7], end);
          line++;
        } else if (o->odd_lines && e == 200001) { /* an extra node number */
          fprintf(f, "%ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld%s", 10 * e + 5, id[0], id[1],
                  id[2], id[3], id[4], id[5], id[6], id[7], id[0], end);
        } else {
          fprintf(f, "%ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld%s", 10 * e + 5, id[0], id[1],
                  id[2], id[3], id[4], id[5], id[6], id[7], end);
        }
      }
  fprintf(f, "*NSET, NSET=FIX\n1, 4, 7\n*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n"
             "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n*BOUNDARY\nFIX, 1, 3\n"
             "*STEP\n*STATIC\n*CLOAD\nFIX, 1, 1.\n*NODE FILE\nU\n*END STEP\n");
  CHECK(fclose(f) == 0, "cannot write %s", path);
}

static dt_model *import(const char *path, warnings *w, dt_ctx *ctx, dt_status *rc) {
  dt_model *m = NULL;
  dt_import_options opt = {on_warn, w};
  memset(w, 0, sizeof *w);
  dt_ctx_reset(ctx);
  *rc = dt_import_file(path, NULL, &opt, &m, ctx);
  return m;
}

/* The warnings' text without the file names (the decks' names differ). */
static void without_names(const char *all, const char *name, char *out, size_t n) {
  size_t k = 0, len = strlen(name);
  while (*all && k + 1 < n) {
    if (strncmp(all, name, len) == 0) {
      all += len;
      continue;
    }
    out[k++] = *all++;
  }
  out[k] = '\0';
}

/* The deck with the error fails at the expected line, naming what the one-line reader names. */
static void expect_error(const char *dir, const char *name, deck_opts o, long *lines, long at_index,
                         const char *what) {
  char path[1200], want[1400];
  warnings w;
  dt_ctx ctx;
  dt_status rc;
  dt_model *m;
  snprintf(path, sizeof path, "%s/%s.inp", dir, name);
  write_deck(path, &o, lines);
  m = import(path, &w, &ctx, &rc);
  snprintf(want, sizeof want, "%s:%ld: %s", path, lines[at_index], what);
  CHECK(rc == DT_ERR_INPUT && m == NULL && strstr(ctx.msg, want) != NULL,
        "%s: expected an input error '%s', got %d: %s", name, want, (int)rc, ctx.msg);
  printf("%s: %s\n", name, ctx.msg);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "io_inp_bulk";
  const long nodes = (long)NX * NY * NZ, elems = (long)(NX - 1) * (NY - 1) * (NZ - 1);
  long *lines = malloc(sizeof *lines * (size_t)(nodes + elems));
  char ref_path[1200], bulk_path[1200], wa[4096], wb[4096];
  deck_opts o = {0, 1, -1, -1, -1, -1};
  warnings w_ref, w_bulk;
  dt_ctx ctx;
  dt_status rc;
  dt_model *ref, *bulk;
  CHECK(lines != NULL, "out of memory");
  mkdir(dir, 0755);

  snprintf(ref_path, sizeof ref_path, "%s/reference.inp", dir);
  snprintf(bulk_path, sizeof bulk_path, "%s/bulk.inp", dir);
  o.trailing_comma = 1;
  write_deck(ref_path, &o, lines);
  o.trailing_comma = 0;
  write_deck(bulk_path, &o, lines);
  ref = import(ref_path, &w_ref, &ctx, &rc);
  CHECK(rc == DT_OK, "the reference deck: %s", ctx.msg);
  bulk = import(bulk_path, &w_bulk, &ctx, &rc);
  CHECK(rc == DT_OK, "the plain deck: %s", ctx.msg);
  CHECK(bulk->n_nodes == nodes && bulk->n_elems == elems, "%d nodes, %d elements", bulk->n_nodes,
        bulk->n_elems);
  same_model(ref, bulk);
  without_names(w_ref.all, ref_path, wa, sizeof wa);
  without_names(w_bulk.all, bulk_path, wb, sizeof wb);
  CHECK(w_ref.n == 2 && strcmp(wa, wb) == 0,
        "the same warnings (a value after z, an extra node): %d and %d\n%s---\n%s", w_ref.n,
        w_bulk.n, w_ref.all, w_bulk.all);
  for (long n = 0; n < nodes; n++) { /* every digit printed comes back */
    double x[3];
    coords(n, x);
    CHECK(bulk->node_id[n] == node_id(n) && memcmp(&bulk->x[3 * n], x, sizeof x) == 0,
          "node %ld: id %lld, (%.17g, %.17g, %.17g) read as (%.17g, %.17g, %.17g)", n,
          (long long)bulk->node_id[n], x[0], x[1], x[2], bulk->x[3 * n], bulk->x[3 * n + 1],
          bulk->x[3 * n + 2]);
  }
  printf("io_inp_bulk: %d nodes and %d elements read as the one-line reader reads them; "
         "warnings:\n%s",
         bulk->n_nodes, bulk->n_elems, w_bulk.all);
  dt_model_destroy(&ref);
  dt_model_destroy(&bulk);

  o = (deck_opts){0, 0, 230001, -1, -1, -1};
  expect_error(dir, "bad_coordinate", o, lines, 230001,
               "*NODE coordinate: expected a number, got '12.5x'");
  o = (deck_opts){0, 0, -1, 210007, -1, -1};
  expect_error(dir, "unknown_node", o, lines, nodes + 210007, "node 999999999 does not exist");
  {
    const long e = 180002, i = e % (NX - 1), j = e / (NX - 1) % (NY - 1),
               k = e / ((long)(NX - 1) * (NY - 1));
    char what[128];
    snprintf(what, sizeof what, "element %ld: node %ld appears twice", 10 * e + 5,
             node_id(node_index((int)i, (int)j, (int)k)));
    o = (deck_opts){0, 0, -1, 250001, e, -1};
    expect_error(dir, "first_of_two", o, lines, nodes + e, what);
  }
  o = (deck_opts){0, 0, -1, -1, -1, 160000};
  expect_error(dir, "defined_twice", o, lines, 160000, "node 479998 is defined twice");

  free(lines);
  printf("io_inp_bulk: ok\n");
  return 0;
}
