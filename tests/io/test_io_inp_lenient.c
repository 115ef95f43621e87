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

static void same_sets(const dt_set *a, const dt_set *b, int n, const char *what) {
  for (int s = 0; s < n; s++) {
    CHECK(strcmp(a[s].name, b[s].name) == 0 && a[s].n == b[s].n, "%s %d: '%s' (%d) vs '%s' (%d)",
          what, s, a[s].name, a[s].n, b[s].name, b[s].n);
    CHECK(a[s].n == 0 || memcmp(a[s].items, b[s].items, sizeof(int) * (size_t)a[s].n) == 0,
          "%s %s: items differ", what, a[s].name);
  }
}

/* Everything the importer fills in: mesh, sets, materials, sections, steps, output requests. */
static void same_model(const dt_model *a, const dt_model *b) {
  CHECK(strcmp(a->title, b->title) == 0, "title '%s' vs '%s'", a->title, b->title);
  CHECK(a->dim == b->dim && a->n_nodes == b->n_nodes && a->n_elems == b->n_elems,
        "sizes: %d/%d nodes, %d/%d elements", a->n_nodes, b->n_nodes, a->n_elems, b->n_elems);
  CHECK(memcmp(a->node_id, b->node_id, sizeof(int64_t) * (size_t)a->n_nodes) == 0,
        "node ids differ");
  for (int i = 0; i < 3 * a->n_nodes; i++)
    CHECK(a->x[i] == b->x[i], "node %lld coordinate %d: %g vs %g", (long long)a->node_id[i / 3],
          i % 3, a->x[i], b->x[i]);
  CHECK(memcmp(a->elem_type, b->elem_type, (size_t)a->n_elems) == 0, "element types differ");
  CHECK(memcmp(a->elem_ptr, b->elem_ptr, sizeof(int) * (size_t)(a->n_elems + 1)) == 0,
        "element offsets differ");
  CHECK(memcmp(a->conn, b->conn, sizeof(int) * (size_t)a->elem_ptr[a->n_elems]) == 0,
        "connectivity differs");
  CHECK(memcmp(a->elem_id, b->elem_id, sizeof(int64_t) * (size_t)a->n_elems) == 0,
        "element ids differ");
  CHECK(a->n_nsets == b->n_nsets && a->n_elsets == b->n_elsets && a->n_surfaces == b->n_surfaces,
        "set counts: %d/%d node sets, %d/%d element sets", a->n_nsets, b->n_nsets, a->n_elsets,
        b->n_elsets);
  same_sets(a->nsets, b->nsets, a->n_nsets, "node set");
  same_sets(a->elsets, b->elsets, a->n_elsets, "element set");
  CHECK(a->n_materials == b->n_materials && a->n_sections == b->n_sections, "materials/sections");
  for (int i = 0; i < a->n_materials; i++)
    CHECK(strcmp(a->materials[i].name, b->materials[i].name) == 0 &&
              a->materials[i].p.E == b->materials[i].p.E &&
              a->materials[i].p.nu == b->materials[i].p.nu &&
              a->materials[i].p.plastic == b->materials[i].p.plastic,
          "material %d differs", i);
  for (int i = 0; i < a->n_sections; i++) {
    const dt_section *s = &a->sections[i], *t = &b->sections[i];
    CHECK(s->elset == t->elset && s->material == t->material && s->kind == t->kind &&
              s->form == t->form && s->thickness == t->thickness,
          "section %d differs", i);
  }
  CHECK(a->n_steps == b->n_steps, "steps: %d vs %d", a->n_steps, b->n_steps);
  for (int i = 0; i < a->n_steps; i++) {
    const dt_step *s = &a->steps[i], *t = &b->steps[i];
    CHECK(strcmp(s->name, t->name) == 0 && s->n_bc == t->n_bc && s->n_cload == t->n_cload &&
              s->n_pressure == t->n_pressure && s->n_body == t->n_body &&
              s->automatic == t->automatic && s->n_increments == t->n_increments &&
              s->inc_initial == t->inc_initial && s->inc_max == t->inc_max,
          "step %d differs", i + 1);
    for (int k = 0; k < s->n_bc; k++)
      CHECK(s->bc[k].nset == t->bc[k].nset && s->bc[k].dofs == t->bc[k].dofs &&
                memcmp(s->bc[k].value, t->bc[k].value, sizeof s->bc[k].value) == 0,
            "step %d: boundary condition %d differs", i + 1, k);
    for (int k = 0; k < s->n_cload; k++)
      CHECK(s->cload[k].nset == t->cload[k].nset &&
                memcmp(s->cload[k].f, t->cload[k].f, sizeof s->cload[k].f) == 0,
            "step %d: load %d differs", i + 1, k);
  }
  CHECK(a->output.fields == b->output.fields && a->output.vtu == b->output.vtu &&
            a->output.every == b->output.every,
        "output options differ: fields 0x%x / 0x%x", a->output.fields, b->output.fields);
  CHECK(a->output.n_prints == b->output.n_prints, "print requests: %d vs %d", a->output.n_prints,
        b->output.n_prints);
  for (int i = 0; i < a->output.n_prints; i++) {
    const dt_print_request *r = &a->output.prints[i], *q = &b->output.prints[i];
    CHECK(r->element == q->element && r->set == q->set && r->fields == q->fields &&
              r->every == q->every && r->n_vars == q->n_vars &&
              memcmp(r->vars, q->vars, sizeof r->vars) == 0 && r->totals == q->totals &&
              r->step_begin == q->step_begin && r->step_end == q->step_end,
          "print request %d differs", i);
  }
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
