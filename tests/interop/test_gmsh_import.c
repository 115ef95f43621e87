/* Gmsh round trip: the same geometry written as .msh 4.1/2.2, ASCII/binary imports to the same
 * model: counts, sets and surfaces by name, and every element with a positive Jacobian at every
 * integration point (dt_elem_check_geometry).
 *
 *   test_gmsh_import plate|bracket FILE.msh...
 * Prints one summary line per file; fails on the first difference. */
#include <stdio.h>
#include <string.h>

#include "element/element_check.h"
#include "io/import.h"

static int fail(const char *file, const char *msg) {
  fprintf(stderr, "FAIL %s: %s\n", file, msg);
  return 1;
}

static int check_geometry(const dt_model *m, const char *file) {
  double X[30];
  dt_ctx ctx = {0};

  for (int e = 0; e < m->n_elems; e++) {
    int k0 = m->elem_ptr[e];
    for (int a = 0; a < m->elem_ptr[e + 1] - k0; a++) memcpy(&X[3 * a], &m->x[3 * m->conn[k0 + a]], 3 * sizeof(double));
    if (dt_elem_check_geometry(m->elem_type[e], X, m->elem_id[e], &ctx) != DT_OK) return fail(file, ctx.msg);
  }
  return 0;
}

static int find(const char *name, const void *arr, size_t stride, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp((const char *)arr + (size_t)i * stride, name) == 0) return i;
  return -1;
}

/* "name:size" per set and surface, in a fixed order, for comparing files. */
static void signature(const dt_model *m, char *sig, size_t n) {
  size_t k = (size_t)snprintf(sig, n, "dim %d nodes %d elems %d |", m->dim, m->n_nodes, m->n_elems);
  for (int i = 0; i < m->n_nsets && k < n; i++) k += (size_t)snprintf(sig + k, n - k, " N:%s:%d", m->nsets[i].name, m->nsets[i].n);
  for (int i = 0; i < m->n_elsets && k < n; i++) k += (size_t)snprintf(sig + k, n - k, " E:%s:%d", m->elsets[i].name, m->elsets[i].n);
  for (int i = 0; i < m->n_surfaces && k < n; i++)
    k += (size_t)snprintf(sig + k, n - k, " S:%s:%d", m->surfaces[i].name, m->surfaces[i].n);
}

int main(int argc, char **argv) {
  static const char *plate_nsets[] = {"plate", "symx", "symy", "load", "corner", NULL};
  static const char *plate_surfs[] = {"symx", "symy", "load", NULL};
  static const char *bracket_nsets[] = {"bracket", "fixed", "loaded", NULL};
  static const char *bracket_surfs[] = {"fixed", "loaded", NULL};
  char first[2048] = "", sig[2048];
  int plate = 0;

  if (argc < 3) return fprintf(stderr, "usage: test_gmsh_import plate|bracket FILE.msh...\n"), 64;
  plate = strcmp(argv[1], "plate") == 0;
  for (int i = 2; i < argc; i++) {
    dt_model *m = NULL;
    dt_ctx ctx = {0};
    const char *const *ns = plate ? plate_nsets : bracket_nsets, *const *ss = plate ? plate_surfs : bracket_surfs;
    if (dt_gmsh_read_file(argv[i], NULL, &m, &ctx) != DT_OK) return fail(argv[i], ctx.msg);
    if (m->dim != (plate ? 2 : 3)) return fail(argv[i], "wrong dimension");
    if (m->n_elems < 50) return fail(argv[i], "too few elements");
    for (; *ns; ns++)
      if (find(*ns, m->nsets, sizeof *m->nsets, m->n_nsets) < 0) return fail(argv[i], "a node set is missing");
    for (; *ss; ss++)
      if (find(*ss, m->surfaces, sizeof *m->surfaces, m->n_surfaces) < 0) return fail(argv[i], "a surface is missing");
    if (find(plate ? "plate" : "bracket", m->elsets, sizeof *m->elsets, m->n_elsets) < 0 ||
        m->elsets[0].n != m->n_elems)
      return fail(argv[i], "the domain element set is missing or incomplete");
    if (check_geometry(m, argv[i])) return 1;
    signature(m, sig, sizeof sig);
    printf("%s: %s\n", argv[i], sig);
    if (first[0] && strcmp(first, sig) != 0) return fail(argv[i], "differs from the first file");
    if (!first[0]) memcpy(first, sig, sizeof sig);
    dt_model_destroy(&m);
  }
  printf("PASS\n");
  return 0;
}
