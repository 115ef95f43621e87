/* CalculiX's lenient reading of decks: a deck written the way CalculiX accepts it imports to
 * the same model as the strict spelling of the same deck. Covered: blanks inside keywords and
 * parameter names (*ENDSTEP, *NODEFILE, *SOLIDSECTION, N SET=), a stray line before the first
 * keyword, a *NODE line with only the id, empty coordinate fields, values after z, element
 * lines with a trailing comma, continued without one, or listing extra nodes,
 * *SOLID SECTION, OFFSET=0. Warnings name what is ignored. Also the print requests as CalculiX
 * keeps them: one per keyword, variables in the order given, TOTALS, GLOBAL, FREQUENCY=0, and
 * a step's first *NODE PRINT / *EL PRINT replacing the earlier steps' of its kind.
 * Usage: test_io_inp_lenient <scratch dir>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/import.h"
#include "inp_same_model.h"
#include "inp_warnings.h"
#include "io_fixture.h"

/* Two hex8 along x on [0,2]x[0,1]x[0,1], two steps. */
static const char *const STRICT =
    "*HEADING\nbar\n"
    "*NODE, NSET=NALL\n"
    "1, 0, 0, 0\n2, 1, 0, 0\n3, 1, 1, 0\n4, 0, 1, 0\n5, 0, 0, 1\n6, 1, 0, 1\n7, 1, 1, 1\n8, 0, 1, "
    "1\n"
    "9, 2, 0, 0\n10, 2, 1, 0\n11, 2, 0, 1\n12, 2, 1, 1\n"
    "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 8\n2, 2, 9, 10, 3, 6, 11, 12, 7\n"
    "*NSET, NSET=FIX\n1, 4, 5, 8\n*NSET, NSET=TIP\n9, 10, 11, 12\n"
    "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n"
    "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    "*STEP\n*STATIC\n0.5, 1.\n*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 1, 1.\n"
    "*NODE FILE\nU\n*EL FILE\nS\n"
    "*NODE PRINT, NSET=TIP, TOTALS=YES\nRF, U\n*EL PRINT, ELSET=EALL\nE, S\n"
    "*END STEP\n"
    "*STEP\n*STATIC\n*CLOAD\nTIP, 1, 2.\n*NODE PRINT, NSET=FIX, TOTALS=ONLY\nRF\n*END STEP\n";

/* The same deck as engineers write it for CalculiX. */
static const char *const LENIENT =
    ">** a stray line, as in beamfsh1\n"
    "*HEADING\nbar\n"
    "*NODE, N SET = NALL\n"
    "1\n2, 1\n3, 1, 1, \n4, , 1, 0\n5, 0, 0, 1\n6, 1, , 1, 0.0\n7, 1, 1, 1\n8, 0, 1, 1\n"
    "9, 2, 0, 0\n10, 2, 1, 0\n11, 2, 0, 1\n12, 2, 1, 1\n"
    "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 8,\n2, 2, 9, 10, 3\n6, 11, 12, 7\n"
    "*N SET, NSET=FIX\n1, 4, 5, 8\n*NSET, NSET=TIP\n9, 10, 11, 12\n"
    "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n"
    "*SOLIDSECTION, ELSET=EALL, MATERIAL=STEEL, OFFSET=0.\n"
    "*STEP\n*STATIC\n0.5, 1.\n*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 1, 1.\n"
    "*NODEFILE\nU\n*ELFILE\nS\n"
    "*NODEPRINT, NSET=TIP, TOTALS=YES, GLOBAL=YES\nRF, U\n*EL PRINT, EL SET=EALL, TOTALS=NO\nE, S\n"
    "*ENDSTEP\n"
    "*STEP\n*STATIC\n*CLOAD\nTIP, 1, 2.\n*NODE PRINT, NSET=FIX, TOTALS=ONLY, GLOBAL=NO\nRF\n*END  "
    "STEP\n";

/* Element lines listing more nodes than the type has: CalculiX uses the first ones. */
static const char *const EXTRA_NODES =
    "*HEADING\nbar\n"
    "*NODE, NSET=NALL\n"
    "1, 0, 0, 0\n2, 1, 0, 0\n3, 1, 1, 0\n4, 0, 1, 0\n5, 0, 0, 1\n6, 1, 0, 1\n7, 1, 1, 1\n8, 0, 1, "
    "1\n"
    "9, 2, 0, 0\n10, 2, 1, 0\n11, 2, 0, 1\n12, 2, 1, 1\n"
    "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,\n2, 2, 9, 10, 3, 6, 11, "
    "12, 7, 1, 4\n"
    "*NSET, NSET=FIX\n1, 4, 5, 8\n*NSET, NSET=TIP\n9, 10, 11, 12\n"
    "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n"
    "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    "*STEP\n*STATIC\n0.5, 1.\n*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 1, 1.\n"
    "*NODE FILE\nU\n*EL FILE\nS\n"
    "*NODE PRINT, NSET=TIP, TOTALS=YES\nRF, U\n*EL PRINT, ELSET=EALL\nE, S\n"
    "*END STEP\n"
    "*STEP\n*STATIC\n*CLOAD\nTIP, 1, 2.\n*NODE PRINT, NSET=FIX, TOTALS=ONLY\nRF\n*END STEP\n";

static dt_model *import(const char *dir, const char *name, const char *text, warnings *w) {
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
  fputs(text, f);
  fclose(f);
  CHECK(dt_import_file(path, NULL, &opt, &m, &ctx) == DT_OK, "%s: %s", name, ctx.msg);
  return m;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "io_inp_lenient";
  warnings w;
  dt_model *strict, *m;
  const dt_print_request *r;
  mkdir(dir, 0755);

  strict = import(dir, "strict", STRICT, &w);
  CHECK(w.n == 0, "the strict deck warns: %s", w.all);

  /* the print requests as CalculiX keeps them */
  CHECK(strict->output.n_prints == 3, "3 print requests, got %d", strict->output.n_prints);
  r = &strict->output.prints[0];
  CHECK(!r->element && r->n_vars == 2 && r->vars[0] == DT_OUT_RF && r->vars[1] == DT_OUT_U &&
            r->fields == (DT_OUT_U | DT_OUT_RF) && r->totals == DT_TOTALS_YES &&
            r->step_begin == 0 && r->step_end == 1,
        "*NODE PRINT RF, U, TOTALS=YES in step 1, replaced by step 2's: vars %d (0x%x 0x%x), "
        "totals %d, steps %d..%d",
        r->n_vars, r->vars[0], r->vars[1], r->totals, r->step_begin, r->step_end);
  r = &strict->output.prints[1];
  CHECK(r->element && r->n_vars == 2 && r->vars[0] == DT_OUT_E && r->vars[1] == DT_OUT_S &&
            r->fields == (DT_OUT_E | DT_OUT_S) && r->totals == DT_TOTALS_NO && r->step_begin == 0 &&
            r->step_end == 0,
        "*EL PRINT E, S kept by step 2 (no *EL PRINT there): vars %d, fields 0x%x, steps %d..%d",
        r->n_vars, r->fields, r->step_begin, r->step_end);
  r = &strict->output.prints[2];
  CHECK(!r->element && r->n_vars == 1 && r->vars[0] == DT_OUT_RF && r->totals == DT_TOTALS_ONLY &&
            r->step_begin == 1 && r->step_end == 0,
        "step 2's *NODE PRINT RF, TOTALS=ONLY: totals %d, steps %d..%d", r->totals, r->step_begin,
        r->step_end);

  m = import(dir, "lenient", LENIENT, &w);
  CHECK(w.n == 2 &&
            strstr(w.all, "lenient.inp:1: 1 line(s) before the first keyword ignored") != NULL &&
            strstr(w.all, "lenient.inp:10: *NODE: 1 line(s) with more than 'id, x, y, z'") != NULL,
        "the stray line and the value after z are warned about, with their lines: %d warnings\n%s",
        w.n, w.all);
  same_model(strict, m);
  dt_model_destroy(&m);

  m = import(dir, "extra_nodes", EXTRA_NODES, &w);
  CHECK(w.n == 1 &&
            strstr(
                w.all,
                "extra_nodes.inp:17: *ELEMENT: 2 element(s) of type C3D8 list more than 8 nodes") !=
                NULL,
        "extra node numbers are warned about: %d warnings\n%s", w.n, w.all);
  same_model(strict, m);
  dt_model_destroy(&m);

  /* FREQUENCY=0 prints nothing: the step's first *NODE PRINT still ends the earlier ones */
  m = import(
      dir, "frequency0",
      "*NODE, NSET=NALL\n1, 0, 0, 0\n2, 1, 0, 0\n3, 1, 1, 0\n4, 0, 1, 0\n5, 0, 0, 1\n6, 1, 0, "
      "1\n7, 1, 1, 1\n"
      "8, 0, 1, 1\n*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 8\n"
      "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
      "*NSET, NSET=FIX\n1, 4, 5, 8\n*BOUNDARY\nFIX, 1, 3\n"
      "*STEP\n*STATIC\n*NODE PRINT, NSET=NALL\nU\n*NODE FILE\nU\n*END STEP\n"
      "*STEP\n*STATIC\n*NODE PRINT, NSET=NALL, FREQUENCY=0\nU\n*END STEP\n",
      &w);
  CHECK(m->output.n_prints == 1 && m->output.prints[0].step_begin == 0 &&
            m->output.prints[0].step_end == 1,
        "FREQUENCY=0 ends step 1's request and adds none: %d requests, steps %d..%d",
        m->output.n_prints, m->output.prints[0].step_begin, m->output.prints[0].step_end);
  dt_model_destroy(&m);

  dt_model_destroy(&strict);
  printf("io_inp_lenient: ok\n");
  return 0;
}
