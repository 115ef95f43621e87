/* The deck tests' model comparison: two imports of decks that spell the same model differently
 * must agree on everything the importer fills in. */
#ifndef DT_TEST_INP_SAME_MODEL_H
#define DT_TEST_INP_SAME_MODEL_H

#include <string.h>

#include "io_fixture.h"
#include "model/model.h"

static inline void same_sets(const dt_set *a, const dt_set *b, int n, const char *what) {
  for (int s = 0; s < n; s++) {
    CHECK(strcmp(a[s].name, b[s].name) == 0 && a[s].n == b[s].n, "%s %d: '%s' (%d) vs '%s' (%d)",
          what, s, a[s].name, a[s].n, b[s].name, b[s].n);
    CHECK(a[s].n == 0 || memcmp(a[s].items, b[s].items, sizeof(int) * (size_t)a[s].n) == 0,
          "%s %s: items differ", what, a[s].name);
  }
}

/* Everything the importer fills in: mesh, sets, materials, sections, steps, output requests. */
static inline void same_model(const dt_model *a, const dt_model *b) {
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

#endif
