/* Fault injection over job parsing: fail the N-th allocation for N = 1, 2, ...; every run must
 * succeed or fail with DT_ERR_NOMEM (never crash or leak: run under DUCTILE_SANITIZE=ON), until
 * a run succeeds without the fault having fired. The examples' jobs, and a job and a deck with
 * equations (their reading, checks and cascade resolution). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/import.h"
#include "io/job_json.h"

/* name: a file under the source tree; a .inp is read by the deck importer. */
static int run(const char *name) {
  char path[1024];
  long n = 0;
  size_t len = strlen(name);
  int deck = len > 4 && strcmp(name + len - 4, ".inp") == 0;
  dt_import_options opt;

  memset(&opt, 0, sizeof opt);
  snprintf(path, sizeof path, "%s/%s", DUCTILE_SOURCE_DIR, name);
  for (n = 1; n < 100000; n++) {
    dt_ctx ctx = {0};
    dt_model *m = NULL;
    dt_status rc;
    void *probe = NULL;

    dt_fault_malloc_countdown(n);
    rc = deck ? dt_inp_parse_file(path, &opt, &m, &ctx) : dt_parse_job_file(path, &m, &ctx);
    /* If the countdown has not fired yet, the next allocation is number n - (used) > 0. */
    probe = dt_malloc(1);
    dt_fault_malloc_countdown(0);
    if (rc == DT_OK && m == NULL) {
      fprintf(stderr, "%s: N=%ld: DT_OK without a model\n", name, n);
      return 1;
    }
    if (rc != DT_OK && (rc != DT_ERR_NOMEM || m != NULL)) {
      fprintf(stderr, "%s: N=%ld: expected DT_ERR_NOMEM, got %s: %s\n", name, n, dt_status_name(rc),
              ctx.msg);
      dt_model_destroy(&m);
      dt_free(probe);
      return 1;
    }
    dt_model_destroy(&m);
    if (rc == DT_OK && probe != NULL) {
      /* The countdown did not fire during parsing: every allocation has been covered. */
      dt_free(probe);
      printf("%s: %ld allocation failure points, all handled\n", name, n - 1);
      return 0;
    }
    dt_free(probe);
  }
  fprintf(stderr, "%s: gave up\n", name);
  return 1;
}

int main(void) {
  int fail = 0;
  fail |= run("examples/unit_cube.json");
  fail |= run("examples/plate_quad4_plane_strain.json");
  fail |= run("examples/tet10_block.json");
  fail |= run("examples/shell_plate_explicit.json");
  fail |= run("tests/job/equations.json");
  fail |= run("tests/interop/decks/hex8_equation.inp");
  return fail;
}
