/* Every example job parses, and its sizes, sets, steps and resolved options are as generated
 * by examples/gen/gen_examples.py. */
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

static dt_model *load(const char *name) {
  char path[1024];
  dt_ctx ctx = {0};
  dt_model *m = NULL;

  snprintf(path, sizeof path, "%s/examples/%s", DUCTILE_SOURCE_DIR, name);
  if (dt_parse_job_file(path, &m, &ctx) != DT_OK) {
    fprintf(stderr, "%s: %s\n", name, ctx.msg);
    failures++;
    return NULL;
  }
  return m;
}

static void unit_cube(void) {
  dt_model *m = load("unit_cube.json");
  if (!m) return;
  EXPECT(m->dim == 3 && m->n_nodes == 8 && m->n_elems == 1);
  EXPECT(m->n_nsets == 4 && m->n_elsets == 1 && m->n_surfaces == 1);
  EXPECT(m->n_steps == 3 && m->steps[2].n_traction == 1 && m->steps[2].traction[0].t[2] == 600);
  EXPECT(m->sections[0].form == DT_FORM_BBAR); /* hex8 + plastic + solid */
  EXPECT(m->output.n_monitors == 2);
  dt_model_view(m, stdout);
  dt_model_destroy(&m);
}

static void cantilever(void) {
  dt_model *m = load("cantilever_hex8.json");
  if (!m) return;
  EXPECT(m->dim == 3 && m->n_nodes == 11 * 3 * 3 && m->n_elems == 40);
  EXPECT(m->elem_ptr[m->n_elems] == 320);
  EXPECT(m->elsets[0].n == 40 && m->surfaces[0].n == 4);
  EXPECT(m->nsets[dt_model_find_nset(m, "root")].n == 9);
  EXPECT(m->sections[0].form == DT_FORM_FULL && !m->materials[0].p.plastic);
  EXPECT(m->steps[0].n_bc == 1 && m->steps[0].bc[0].dofs == 7u);
  EXPECT(m->solver.newton_max_iter == 10 && m->solver.pcg_rtol == 1e-10);
  EXPECT(m->output.fields == (DT_OUT_U | DT_OUT_RF | DT_OUT_S | DT_OUT_MISES));
  dt_model_destroy(&m);
}

static void plate(void) {
  dt_model *m = load("plate_quad4_plane_strain.json");
  if (!m) return;
  EXPECT(m->dim == 2 && m->n_nodes == 66 && m->n_elems == 50);
  EXPECT(m->sections[0].kind == DT_SECTION_PLANE_STRAIN && m->sections[0].form == DT_FORM_BBAR);
  EXPECT(m->materials[0].p.iso == DT_ISO_TABLE && m->materials[0].p.table_n == 3);
  EXPECT(m->materials[0].p.sigma_y0 == 250 && m->materials[0].p.table_p[2] == 0.05);
  EXPECT(m->n_steps == 2 && m->steps[0].automatic && m->steps[0].max_cutbacks == 8);
  EXPECT(m->steps[0].n_bc == 3 && m->steps[1].n_bc == 2 && m->steps[1].n_increments == 4);
  EXPECT(m->steps[0].n_pressure == 1 && m->surfaces[0].n == 10 && m->surfaces[0].face[0] == 2);
  EXPECT(m->solver.precond == DT_PC_JACOBI && m->output.every == 2);
  dt_model_destroy(&m);
}

static void tet10(void) {
  dt_model *m = load("tet10_block.json");
  if (!m) return;
  EXPECT(m->dim == 3 && m->n_elems == 6 && m->n_nodes == 8 + 19);
  EXPECT(m->elem_type[0] == DT_ELEM_TET10 && m->elem_ptr[6] == 60);
  EXPECT(m->materials[0].p.iso == DT_ISO_VOCE && m->materials[0].p.voce_b == 20);
  EXPECT(m->sections[0].form == DT_FORM_FULL);
  EXPECT(m->steps[0].n_bc == 4 && m->steps[0].n_increments == 5);
  dt_model_destroy(&m);
}

static void footing(void) {
  dt_model *m = load("footing_mohr_coulomb.json");
  if (!m) return;
  EXPECT(m->dim == 2 && m->n_nodes == 231 && m->n_elems == 200);
  EXPECT(m->materials[0].p.plastic == DT_PLASTIC_MOHR_COULOMB &&
         m->materials[0].p.mc_cohesion == 10);
  EXPECT(m->materials[0].p.mc_friction_deg == 20 && m->materials[0].p.mc_dilation_deg == 20);
  EXPECT(!m->materials[0].p.mc_elastic_tangent && m->materials[0].p.mc_sin_phi > 0.3420 &&
         m->materials[0].p.mc_sin_phi < 0.3421);
  /* resolved defaults: a consistent tangent, so Newton as for J2 */
  EXPECT(m->solver.accel == DT_ACCEL_NONE && m->solver.accel_auto && !m->solver.tangent_constant);
  EXPECT(m->solver.newton_max_iter == 25 && m->sections[0].form == DT_FORM_BBAR);
  dt_model_destroy(&m);
}

/* Shells and an explicit step: the example imports and passes dt_model_finish (the explicit
 * driver runs it; this test only parses). */
static void shell_plate(void) {
  dt_model *m = load("shell_plate_explicit.json");
  const dt_explicit_options *x = NULL;
  if (!m) return;
  EXPECT(m->dim == 3 && m->n_nodes == 81 && m->n_elems == 64 && m->elem_type[0] == DT_ELEM_SHELL4);
  EXPECT(m->materials[0].density == 7.85e-9 && m->sections[0].kind == DT_SECTION_SHELL);
  EXPECT(m->sections[0].thickness == 2 && m->sections[0].shell_points == 2); /* elastic: 2 */
  EXPECT(m->n_steps == 1 && m->steps[0].procedure == DT_PROC_EXPLICIT);
  x = &m->steps[0].explicit_;
  EXPECT(x->time_period == 0.02 && x->dt == 0 && x->dt_safety == 0.8 && x->damping == 300);
  EXPECT(x->output_frames == 20 && x->output_every == 0 && x->rotary_scale == 0 &&
         x->hourglass == 0.05);
  EXPECT(x->amplitude.kind == DT_AMP_TABLE && x->amplitude.n == 3 && x->amplitude.t[1] == 0.01);
  EXPECT(m->steps[0].n_bc == 3 && m->steps[0].bc[0].dofs == DT_DOF_Z);
  EXPECT(m->steps[0].n_pressure == 1 && m->surfaces[0].n == 64 && m->surfaces[0].face[0] == 0);
  EXPECT(m->nsets[dt_model_find_nset(m, "edges")].n == 32 && m->output.n_monitors == 1);
  dt_model_destroy(&m);
}

int main(void) {
  footing();
  unit_cube();
  cantilever();
  plate();
  tet10();
  shell_plate();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
