/* Field-by-field round trip of the unit cube into dt_model, the defaults of a minimal job, and
 * parser behaviours that are not errors (set generation and de-duplication, 2D vectors); every
 * field of a shell job with an explicit step (density, shell section, the explicit controls and
 * amplitudes, rotations, velocities, initial velocities, SPOS/SNEG faces). */
#include <stdio.h>
#include <string.h>

#include "io/job_json.h"

static int failures = 0;
#define EXPECT(cond)                                                                               \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                          \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static dt_model *parse(const char *text, dt_ctx *ctx) {
  dt_model *m = NULL;
  if (dt_parse_job_string(text, strlen(text), "test.json", &m, ctx) != DT_OK)
    fprintf(stderr, "parse failed: %s\n", ctx->msg);
  return m;
}

static void unit_cube_fields(void) {
  char path[1024];
  dt_ctx ctx = {0};
  dt_model *m = NULL;
  static const double X[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

  snprintf(path, sizeof path, "%s/examples/unit_cube.json", DUCTILE_SOURCE_DIR);
  EXPECT(dt_parse_job_file(path, &m, &ctx) == DT_OK);
  if (!m) return;
  EXPECT(m->version == 1 && strstr(m->title, "Unit cube") == m->title);
  EXPECT(m->dim == 3 && m->n_nodes == 8);
  for (int i = 0; i < 8; i++) {
    EXPECT(m->node_id[i] == i + 1);
    EXPECT(memcmp(&m->x[3 * i], X[i], sizeof X[i]) == 0);
  }
  EXPECT(m->n_elems == 1 && m->elem_type[0] == DT_ELEM_HEX8 && m->elem_id[0] == 1);
  EXPECT(m->elem_ptr[0] == 0 && m->elem_ptr[1] == 8);
  for (int a = 0; a < 8; a++) EXPECT(m->conn[a] == a);
  EXPECT(m->elem_section[0] == 0);
  /* sets, in file order, stored sorted and 0-based */
  EXPECT(m->n_nsets == 4 && strcmp(m->nsets[0].name, "x0") == 0 &&
         strcmp(m->nsets[3].name, "top") == 0);
  EXPECT(m->nsets[0].n == 4 && m->nsets[0].items[0] == 0 && m->nsets[0].items[1] == 3 &&
         m->nsets[0].items[3] == 7);
  EXPECT(m->nsets[3].n == 4 && m->nsets[3].items[0] == 4 && m->nsets[3].items[3] == 7);
  EXPECT(dt_model_find_nset(m, "z0") == 2 && dt_model_find_nset(m, "Z0") == -1);
  EXPECT(m->n_elsets == 1 && strcmp(m->elsets[0].name, "all") == 0 && m->elsets[0].n == 1);
  EXPECT(dt_model_find_elset(m, "all") == 0);
  EXPECT(m->n_surfaces == 1 && dt_model_find_surface(m, "top") == 0);
  EXPECT(m->surfaces[0].n == 1 && m->surfaces[0].elem[0] == 0 && m->surfaces[0].face[0] == 1);
  /* material */
  EXPECT(m->n_materials == 1 && dt_model_find_material(m, "steel") == 0);
  EXPECT(m->materials[0].p.E == 200000 && m->materials[0].p.nu == 0.3 &&
         m->materials[0].p.plastic == 1);
  EXPECT(m->materials[0].p.iso == DT_ISO_LINEAR && m->materials[0].p.sigma_y0 == 450 &&
         m->materials[0].p.H == 66000);
  EXPECT(m->materials[0].p.H_kin == 0);
  /* section */
  EXPECT(m->n_sections == 1 && m->sections[0].elset == 0 && m->sections[0].material == 0);
  EXPECT(strcmp(m->sections[0].elset_name, "all") == 0 && m->sections[0].kind == DT_SECTION_SOLID);
  EXPECT(m->sections[0].form == DT_FORM_BBAR && m->sections[0].thickness == 1);
  /* steps */
  EXPECT(m->n_steps == 3);
  for (int s = 0; s < m->n_steps && s < 3; s++) {
    const dt_step *st = &m->steps[s];
    char name[16];
    snprintf(name, sizeof name, "p%d", 200 * (s + 1));
    EXPECT(strcmp(st->name, name) == 0);
    EXPECT(!st->automatic && st->n_increments == 1 && st->max_cutbacks == 5);
    EXPECT(st->n_bc == 3 && st->n_cload == 0 && st->n_pressure == 0 && st->n_traction == 1 &&
           st->n_body == 0);
    for (int b = 0; b < 3 && b < st->n_bc; b++) {
      EXPECT(st->bc[b].nset == b && st->bc[b].dofs == (1u << b));
      EXPECT(st->bc[b].value[0] == 0 && st->bc[b].value[1] == 0 && st->bc[b].value[2] == 0);
    }
    EXPECT(st->traction[0].surface == 0 && st->traction[0].t[0] == 0 &&
           st->traction[0].t[2] == 200.0 * (s + 1));
  }
  /* options */
  EXPECT(m->solver.newton_max_iter == 25 && m->solver.precond == DT_PC_BLOCK_JACOBI);
  EXPECT(m->output.fields == DT_OUT_ALL && m->output.vtu == 1 && m->output.every == 1);
  EXPECT(m->output.n_monitors == 2);
  EXPECT(strcmp(m->output.monitors[0].name, "uz_top") == 0 &&
         m->output.monitors[0].kind == DT_MON_U);
  EXPECT(m->output.monitors[0].nset == 3 && m->output.monitors[0].dof == 2);
  EXPECT(m->output.monitors[1].kind == DT_MON_RF && m->output.monitors[1].nset == 2);
  dt_model_destroy(&m);
  EXPECT(m == NULL);
  dt_model_destroy(&m); /* NULL-safe */
  dt_model_destroy(NULL);
}

/* Smallest valid 2D job: defaults everywhere else. */
static const char *minimal_2d =
    "{\"ductile\": 1, \"mesh\": {\"nodes\": [[10, 0, 0], [11, 1, 0], [12, 1, 1], [13, 0, 1]],"
    " \"elements\": [{\"type\": \"quad4\", \"connectivity\": [[7, 10, 11, 12, 13]]}],"
    " \"node_sets\": {\"bot\": [11, 10, 10], \"all\": {\"generate\": [10, 13]}, \"odd\": "
    "{\"generate\": [11, 13, 2]}},"
    " \"element_sets\": {\"e\": [7]}},"
    " \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 1, \"nu\": 0}}],"
    " \"sections\": [{\"element_set\": \"e\", \"material\": \"m\", \"kind\": \"plane_stress\", "
    "\"thickness\": 0.5}],"
    " \"steps\": [{\"boundary\": [{\"node_set\": \"bot\", \"fixed\": \"all\"}],"
    "             \"loads\": [{\"type\": \"force\", \"node_set\": \"odd\", \"value\": [1, 2]},"
    "                         {\"type\": \"body\", \"element_set\": \"e\", \"value\": [0, -1, "
    "0]}]}]}";

static void defaults(void) {
  dt_ctx ctx = {0};
  dt_model *m = parse(minimal_2d, &ctx);
  if (!m) {
    failures++;
    return;
  }
  EXPECT(m->dim == 2 && m->title[0] == '\0');
  EXPECT(m->nsets[0].n == 2 && m->nsets[0].items[0] == 0 &&
         m->nsets[0].items[1] == 1); /* sorted, unique */
  EXPECT(m->nsets[1].n == 4 && m->nsets[2].n == 2 && m->nsets[2].items[1] == 3);
  EXPECT(m->sections[0].form == DT_FORM_FULL && m->sections[0].thickness == 0.5);
  EXPECT(!m->materials[0].p.plastic);
  EXPECT(m->n_steps == 1 && strcmp(m->steps[0].name, "step-1") == 0);
  EXPECT(!m->steps[0].automatic && m->steps[0].n_increments == 1 && m->steps[0].inc_initial == 1);
  EXPECT(m->steps[0].inc_min == 1e-5 && m->steps[0].inc_max == 1 && m->steps[0].max_cutbacks == 5);
  EXPECT(m->steps[0].bc[0].dofs == 3u);
  EXPECT(m->steps[0].cload[0].f[0] == 1 && m->steps[0].cload[0].f[1] == 2 &&
         m->steps[0].cload[0].f[2] == 0);
  EXPECT(m->steps[0].body[0].b[1] == -1);
  EXPECT(m->solver.newton_max_iter == 25 && m->solver.newton_rtol == 1e-6 &&
         m->solver.newton_dtol == 1e-3);
  /* "auto": block Jacobi for a 2D model (precond_kind.h) */
  EXPECT(m->solver.pcg_max_iter == 10000 && m->solver.pcg_rtol == 1e-9 &&
         m->solver.precond == DT_PC_BLOCK_JACOBI);
  EXPECT(m->solver.precond_auto == 1);
  EXPECT(m->solver.forcing == DT_FORCING_FIXED);
  EXPECT(m->output.fields == DT_OUT_ALL && m->output.vtu == 1 && m->output.every == 1 &&
         m->output.n_monitors == 0);
  dt_model_destroy(&m);
}

/* linear.forcing selects the inexact-Newton tolerances (solver/forcing.h). */
static void adaptive_forcing(void) {
  dt_ctx ctx = {0};
  char text[2048];
  size_t n = strlen(minimal_2d) - 1; /* drop the closing brace */
  dt_model *m;
  snprintf(text, sizeof text,
           "%.*s, \"solver\": {\"linear\": {\"forcing\": \"adaptive\", \"tolerance\": 1e-8}}}",
           (int)n, minimal_2d);
  m = parse(text, &ctx);
  if (!m) {
    failures++;
    return;
  }
  EXPECT(m->solver.forcing == DT_FORCING_ADAPTIVE && m->solver.pcg_rtol == 1e-8);
  dt_model_destroy(&m);
  /* the preconditioner's names: "auto" (the default) and a named one */
  for (int k = 0; k < 2; k++) {
    dt_ctx_reset(&ctx);
    snprintf(text, sizeof text, "%.*s, \"solver\": {\"linear\": {\"preconditioner\": \"%s\"}}}",
             (int)n, minimal_2d, k ? "two_level" : "auto");
    m = parse(text, &ctx);
    if (!m) {
      failures++;
      return;
    }
    EXPECT(k ? m->solver.precond == DT_PC_TWO_LEVEL && !m->solver.precond_auto
             : m->solver.precond == DT_PC_BLOCK_JACOBI && m->solver.precond_auto);
    dt_model_destroy(&m);
  }
}

static void create_defaults(void) {
  dt_ctx ctx = {0};
  dt_model *m = NULL;
  dt_step s;

  EXPECT(dt_model_create(&m, &ctx) == DT_OK && m && m->version == DT_JOB_FORMAT_VERSION);
  if (m) EXPECT(m->output.fields == DT_OUT_ALL && m->solver.pcg_max_iter == 0 && m->n_nodes == 0);
  /* An empty model is not a valid one. */
  if (m) EXPECT(dt_model_finish(m, &ctx) == DT_ERR_INPUT && strstr(ctx.msg, "no nodes"));
  dt_model_destroy(&m);
  dt_step_default(&s);
  EXPECT(s.n_increments == 1 && s.inc_initial == 1 && s.inc_min == 1e-5 && s.inc_max == 1 &&
         s.max_cutbacks == 5);
  EXPECT(s.procedure == DT_PROC_STATIC && s.explicit_.dt == 0 && s.explicit_.dt_safety == 0.8 &&
         s.explicit_.output_frames == 20 && s.explicit_.amplitude.kind == DT_AMP_STEP);
}

/* Two shell4 elements on [0,2]x[0,1], every explicit field given; AMP is the amplitude. */
static const char *shell_job =
    "{\"ductile\": 1, \"mesh\": {\"nodes\": [[1, 0, 0, 0], [2, 1, 0, 0], [3, 2, 0, 0], [4, 0, 1, "
    "0],"
    " [5, 1, 1, 0], [6, 2, 1, 0]],"
    " \"elements\": [{\"type\": \"shell4\", \"connectivity\": [[1, 1, 2, 5, 4], [2, 2, 3, 6, 5]]}],"
    " \"node_sets\": {\"left\": [1, 4], \"right\": [3, 6], \"all\": {\"generate\": [1, 6]}},"
    " \"element_sets\": {\"plate\": [1, 2]},"
    " \"surfaces\": {\"top\": [[1, \"SPOS\"], [2, \"S1\"]], \"bottom\": [[2, \"SNEG\"]]}},"
    " \"materials\": [{\"name\": \"al\", \"elastic\": {\"E\": 70000, \"nu\": 0.33}, \"density\": "
    "2.7e-9,"
    " \"plastic\": {\"yield_stress\": 200}}],"
    " \"sections\": [{\"element_set\": \"plate\", \"material\": \"al\", \"kind\": \"shell\","
    " \"thickness\": 1.5%s}],"
    " \"steps\": [{\"name\": \"hit\", \"procedure\": \"explicit\", \"explicit\": {\"time\": 0.001,"
    " \"dt\": 1e-7, \"safety\": 0.5, \"damping\": 20, \"rotary_scale\": 2, \"output\": {%s},"
    " \"amplitude\": %s},"
    " \"boundary\": [{\"node_set\": \"left\", \"fixed\": \"all\"},"
    " {\"node_set\": \"right\", \"fixed\": [\"y\", \"rx\", \"rz\"], \"velocity\": {\"x\": 300, "
    "\"z\": -1}}],"
    " \"loads\": [{\"type\": \"pressure\", \"surface\": \"bottom\", \"value\": 0.5},"
    " {\"type\": \"force\", \"node_set\": \"right\", \"value\": [0, 0, 2]}]}],"
    " \"initial_velocities\": [{\"node_set\": \"all\", \"velocity\": [0, 0, -100]},"
    " {\"node_set\": \"right\", \"velocity\": [1, 2, 3]}]}";

static dt_model *shell_model(const char *points, const char *output, const char *amplitude) {
  char text[4096];
  dt_ctx ctx = {0};
  snprintf(text, sizeof text, shell_job, points, output, amplitude);
  return parse(text, &ctx);
}

static void shell_explicit(void) {
  dt_model *m =
      shell_model(", \"points\": 3", "\"every\": 50", "[[0, 0], [2e-4, 1], [1e-3, 0.25]]");
  const dt_step *s = NULL;
  const dt_explicit_options *x = NULL;
  if (!m) {
    failures++;
    return;
  }
  EXPECT(m->dim == 3 && m->n_elems == 2 && m->elem_type[1] == DT_ELEM_SHELL4);
  EXPECT(m->materials[0].density == 2.7e-9 && m->materials[0].p.plastic == DT_PLASTIC_J2);
  EXPECT(m->sections[0].kind == DT_SECTION_SHELL && m->sections[0].thickness == 1.5 &&
         m->sections[0].shell_points == 3 && m->sections[0].form == DT_FORM_FULL);
  /* faces: SPOS is S1 (face 0), SNEG S2 (face 1) */
  EXPECT(m->surfaces[0].n == 2 && m->surfaces[0].face[0] == 0 && m->surfaces[0].face[1] == 0);
  EXPECT(m->surfaces[1].n == 1 && m->surfaces[1].elem[0] == 1 && m->surfaces[1].face[0] == 1);
  s = &m->steps[0];
  x = &s->explicit_;
  EXPECT(s->procedure == DT_PROC_EXPLICIT && strcmp(s->name, "hit") == 0);
  EXPECT(x->time_period == 0.001 && x->dt == 1e-7 && x->dt_safety == 0.5 && x->damping == 20 &&
         x->rotary_scale == 2);
  EXPECT(x->output_every == 50 && x->output_frames == 20);
  EXPECT(x->amplitude.kind == DT_AMP_TABLE && x->amplitude.n == 3 && x->amplitude.t[1] == 2e-4 &&
         x->amplitude.a[1] == 1 && x->amplitude.t[2] == 1e-3 && x->amplitude.a[2] == 0.25);
  /* "all" on a shell model: the translations and the rotations */
  EXPECT(s->n_bc == 2 && s->bc[0].dofs == (7u | DT_DOF_ROT) && !s->bc[0].velocity);
  EXPECT(s->bc[1].dofs == (DT_DOF_X | DT_DOF_Y | DT_DOF_Z | DT_DOF_RX | DT_DOF_RZ) &&
         s->bc[1].velocity && s->bc[1].value[0] == 300 && s->bc[1].value[1] == 0 &&
         s->bc[1].value[2] == -1 && s->bc[1].hold == 0);
  EXPECT(s->n_pressure == 1 && s->pressure[0].surface == 1 && s->pressure[0].p == 0.5);
  EXPECT(s->n_cload == 1 && s->cload[0].f[2] == 2);
  EXPECT(m->n_initial_velocities == 2 && m->initial_velocities[0].nset == 2 &&
         m->initial_velocities[0].v[2] == -100);
  EXPECT(m->initial_velocities[1].nset == 1 && m->initial_velocities[1].v[0] == 1 &&
         m->initial_velocities[1].v[1] == 2 && m->initial_velocities[1].v[2] == 3);
  dt_model_destroy(&m);
  /* the defaults: 5 points through a plastic section, 20 frames, the step and ramp amplitudes */
  for (int k = 0; k < 2; k++) {
    m = shell_model("", "\"frames\": 7", k ? "\"ramp\"" : "\"step\"");
    if (!m) {
      failures++;
      return;
    }
    x = &m->steps[0].explicit_;
    EXPECT(m->sections[0].shell_points == 5 && x->output_frames == 7 && x->output_every == 0);
    EXPECT(x->amplitude.kind == (k ? DT_AMP_RAMP : DT_AMP_STEP) && x->amplitude.n == 0);
    dt_model_destroy(&m);
  }
}

static void io_errors(void) {
  dt_ctx ctx = {0};
  dt_model *m = NULL;

  EXPECT(dt_parse_job_file("/nonexistent/job.json", &m, &ctx) == DT_ERR_IO && m == NULL);
  EXPECT(strstr(ctx.msg, "/nonexistent/job.json") != NULL);
  dt_ctx_reset(&ctx);
  EXPECT(dt_parse_job_string("{\n  \"ductile\": 1,\n  \"mesh\": }", 28, NULL, &m, &ctx) ==
         DT_ERR_INPUT);
  EXPECT(strncmp(ctx.msg, "job:3:", 6) == 0);
}

int main(void) {
  unit_cube_fields();
  defaults();
  adaptive_forcing();
  create_defaults();
  shell_explicit();
  io_errors();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
