/* Deck output requests choose what the VTU files hold and how often (CalculiX-style): *NODE FILE
 * and *EL FILE select output.fields, their FREQUENCY= becomes output.every, and requests of
 * different frequencies share the smallest, with a warning; without either no VTU is written
 * (as CalculiX writes no field results), with a warning.
 * Usage: test_io_inp_frequency <scratch dir>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/import.h"
#include "io_fixture.h"

/* One hex8 under a tip load; `requests` go inside the step. */
static const char *const DECK_HEAD =
    "*NODE, NSET=NALL\n"
    "1, 0, 0, 0\n2, 1, 0, 0\n3, 1, 1, 0\n4, 0, 1, 0\n5, 0, 0, 1\n6, 1, 0, 1\n7, 1, 1, 1\n8, 0, 1, "
    "1\n"
    "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 8\n"
    "*NSET, NSET=FIX\n1, 4, 5, 8\n*NSET, NSET=TIP\n2, 3, 6, 7\n"
    "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n"
    "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    "*STEP\n*STATIC\n0.25, 1.\n*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 3, -1.\n";

typedef struct {
  int n;
  char last[512];
} warnings;

static void on_warn(const char *msg, void *user) {
  warnings *w = user;
  w->n++;
  snprintf(w->last, sizeof w->last, "%s", msg);
}

static dt_model *import(const char *dir, const char *name, const char *requests, warnings *w) {
  char path[1200];
  FILE *f;
  dt_model *m = NULL;
  dt_ctx ctx;
  dt_import_options opt = {on_warn, w};
  memset(w, 0, sizeof *w);
  dt_ctx_reset(&ctx);
  snprintf(path, sizeof path, "%s/%s.inp", dir, name);
  f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  fprintf(f, "%s%s*END STEP\n", DECK_HEAD, requests);
  fclose(f);
  CHECK(dt_import_file(path, NULL, &opt, &m, &ctx) == DT_OK, "%s: %s", name, ctx.msg);
  return m;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "io_inp_frequency";
  warnings w;
  dt_model *m;
  mkdir(dir, 0755);

  m = import(dir, "default", "", &w);
  /* CalculiX writes no .frd results without *NODE FILE / *EL FILE: no VTU, and a warning that
   * says how to get them */
  CHECK(!m->output.vtu && w.n == 1 && strstr(w.last, "no *NODE FILE or *EL FILE") != NULL,
        "no request: no VTU, with a warning: vtu %d, %d warnings '%s'", m->output.vtu, w.n, w.last);
  dt_model_destroy(&m);

  m = import(dir, "node", "*NODE FILE, FREQUENCY=2\nU\n", &w);
  CHECK(m->output.fields == DT_OUT_U && m->output.every == 2 && w.n == 0,
        "*NODE FILE, FREQUENCY=2: fields 0x%x every %d", m->output.fields, m->output.every);
  dt_model_destroy(&m);

  m = import(dir, "both", "*NODE FILE, FREQUENCY=3\nU, RF\n*EL FILE, FREQUENCY=3\nS, PEEQ\n", &w);
  CHECK(m->output.fields == (DT_OUT_U | DT_OUT_RF | DT_OUT_S | DT_OUT_MISES | DT_OUT_PEEQ) &&
            m->output.every == 3 && w.n == 0,
        "same frequency: fields 0x%x every %d, %d warnings", m->output.fields, m->output.every,
        w.n);
  dt_model_destroy(&m);

  m = import(dir, "differ", "*NODE FILE, FREQUENCY=4\nU\n*EL FILE, FREQUENCY=2\nE\n", &w);
  CHECK(m->output.every == 2 && w.n == 1 && strstr(w.last, "FREQUENCY=2") != NULL,
        "different frequencies share the smallest, with a warning: every %d, %d warnings '%s'",
        m->output.every, w.n, w.last);
  dt_model_destroy(&m);

  printf("io_inp_frequency: ok\n");
  return 0;
}
