/* Small models built in memory for unit tests: a distorted hex8 box with one elastic or
 * plastic material. */
#ifndef DT_UNIT_MODEL_H
#define DT_UNIT_MODEL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "backend/backend.h"
#include "model/mesh_box.h"
#include "model/model.h"
#include "problem/problem.h"

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* One material (steel, elastic or J2 plastic), one solid section on the element set "all",
 * one empty step (callers add loads): the unit tests' model around a mesh. */
static inline void unit_model_material(dt_model *m, int plastic) {
  m->n_materials = 1;
  m->materials = calloc(1, sizeof(dt_material));
  snprintf(m->materials[0].name, DT_NAME_MAX, "steel");
  m->materials[0].p.E = 200000.0;
  m->materials[0].p.nu = 0.3;
  m->materials[0].p.plastic = plastic;
  m->materials[0].p.iso = DT_ISO_LINEAR;
  m->materials[0].p.sigma_y0 = 450.0;
  m->materials[0].p.H = 6600.0;
  m->n_sections = 1;
  m->sections = calloc(1, sizeof(dt_section));
  snprintf(m->sections[0].elset_name, DT_NAME_MAX, "all");
  m->sections[0].elset = dt_model_find_elset(m, "all");
  m->sections[0].kind = DT_SECTION_SOLID;
  m->sections[0].form = DT_FORM_FULL;
  m->sections[0].thickness = 1.0;
  m->n_steps = 1;
  m->steps = calloc(1, sizeof(dt_step));
  dt_step_default(&m->steps[0]);
  snprintf(m->steps[0].name, DT_NAME_MAX, "load");
}

/* A box with interior nodes moved a little (deterministic), one material, one section, one
 * empty step (callers add loads). */
static inline dt_model *unit_box(int nx, int ny, int nz, int plastic) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  CHECK(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_mesh_box_hex8(m, nx, ny, nz, 2.0, 1.5, 1.0, &ctx) == DT_OK, "%s", ctx.msg);
  for (int a = 0; a < m->n_nodes; a++) /* smooth distortion keeps elements valid */
    m->x[3 * a] += 0.05 * m->x[3 * a + 1] * m->x[3 * a + 2];
  unit_model_material(m, plastic);
  return m;
}

/* The unit tests' plastic bar load on a box: clamped at x = 0, pulled and bent at x = max by a
 * traction (400, 0, 60) in 3 increments: plastic near the clamped end only. */
static inline void unit_bar_load(dt_model *m) {
  dt_step *st = &m->steps[0];
  st->n_increments = 3;
  st->n_bc = 1;
  st->bc = calloc(1, sizeof(dt_bc));
  st->bc[0] = (dt_bc){.nset = dt_model_find_nset(m, "xmin"), .dofs = 7u};
  st->n_traction = 1;
  st->traction = calloc(1, sizeof(dt_traction));
  st->traction[0].surface = dt_model_find_surface(m, "xmax");
  st->traction[0].t[0] = 400.0;
  st->traction[0].t[2] = 60.0;
}

/* What a unit test keeps of a run (up to UNIT_RECORD_NODES nodes): counts, the last
 * displacements, and the range of linear tolerances (filled by the test's progress callback, if
 * it has one). */
#define UNIT_RECORD_NODES 8000
typedef struct unit_record {
  int increments, newton, pcg;
  double rtol_min, rtol_max;
  double u[3 * UNIT_RECORD_NODES];
  int n_nodes;
} unit_record;

/* dt_increment_fn for a unit_record (user): counts and the displacements of the increment. */
static inline void unit_record_increment(const dt_fields *f, const dt_history_row *row,
                                         void *user) {
  unit_record *r = user;
  CHECK(f->n_nodes <= UNIT_RECORD_NODES, "a unit_record keeps %d nodes, the run has %d",
        UNIT_RECORD_NODES, f->n_nodes);
  r->increments++;
  r->newton += row->newton_iters;
  r->pcg += row->pcg_iters;
  r->n_nodes = f->n_nodes;
  memcpy(r->u, f->u, sizeof(double) * 3 * f->n_nodes);
}

/* The operator tests' plastic state of a bar, uploaded to backend `name` with one stress
 * update: clamped at x = 0 (DT_VEC_CON, DT_VEC_FREE), u_x = 0.002 x^2 (a strain of 0.004 x: J2
 * yields past x = 0.56), u_y = uy_xz x z, u_z = 0.001 x y in DT_VEC_UT, all times scale (1: the
 * plastic state; 0.01 keeps every point elastic), and DT_VEC_R a fixed vector, zero on the
 * clamped DOFs; bo: the upload's options. Returns the backend's state (ops->destroy frees it). */
static inline void *unit_bar_plastic_state_with(const char *name, const dt_problem *pb,
                                                double uy_xz, double scale,
                                                const dt_backend_options *bo,
                                                const dt_backend_ops **ops, dt_stress_report *rep) {
  dt_ctx ctx = {0};
  void *impl = NULL;
  char note[256];
  int n = pb->n_dofs;
  double *con = calloc((size_t)n, sizeof(double)), *fr = calloc((size_t)n, sizeof(double));
  double *u = calloc((size_t)n, sizeof(double)), *r = calloc((size_t)n, sizeof(double));
  CHECK(con && fr && u && r, "out of memory");
  for (int a = 0; a < pb->n_nodes; a++) {
    double x = pb->x[3 * a];
    for (int i = 0; i < 3; i++) con[3 * a + i] = x == 0.0 ? 1.0 : 0.0;
    u[3 * a] = scale * 0.002 * x * x;
    u[3 * a + 1] = scale * uy_xz * x * pb->x[3 * a + 2];
    u[3 * a + 2] = scale * 0.001 * x * pb->x[3 * a + 1];
  }
  for (int i = 0; i < n; i++) {
    fr[i] = 1.0 - con[i];
    r[i] = fr[i] * sin(0.37 * i + 1.0);
  }
  CHECK(dt_backend_find(name, ops, note, sizeof note, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK((*ops)->problem_upload(pb, bo, &impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK((*ops)->vec_set(impl, DT_VEC_FREE, fr, &ctx) == DT_OK &&
            (*ops)->vec_set(impl, DT_VEC_CON, con, &ctx) == DT_OK,
        "%s", ctx.msg);
  CHECK((*ops)->vec_set(impl, DT_VEC_UT, u, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK((*ops)->stress_update(impl, DT_VEC_UT, DT_VEC_FINT, rep, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK((*ops)->vec_set(impl, DT_VEC_R, r, &ctx) == DT_OK, "%s", ctx.msg);
  free(con);
  free(fr);
  free(u);
  free(r);
  return impl;
}

/* The same with one thread and the default kernels. */
static inline void *unit_bar_plastic_state(const char *name, const dt_problem *pb, double uy_xz,
                                           double scale, const dt_backend_ops **ops,
                                           dt_stress_report *rep) {
  dt_backend_options bo = {.threads = 1, .device = 0};
  return unit_bar_plastic_state_with(name, pb, uy_xz, scale, &bo, ops, rep);
}

/* Run options of the unit tests' solves: one thread on the backend DUCTILE_BACKEND names (cpu
 * by default; the GPU machine runs the same tests with cuda), with the test's callbacks. */
static inline void unit_run_options(dt_run_options *o, dt_progress_fn progress,
                                    dt_increment_fn on_increment, void *user) {
  memset(o, 0, sizeof *o);
  o->backend = getenv("DUCTILE_BACKEND") ? getenv("DUCTILE_BACKEND") : "cpu";
  o->threads = 1;
  o->progress = progress;
  o->on_increment = on_increment;
  o->user = user;
}

/* The plastic bar (unit_box 24 x 8 x 6, unit_bar_load: J2, 3 increments) solved with
 * preconditioner pc, Newton to 1e-7 and PCG to 1e-10, recorded in r; its summary in *sum (NULL:
 * not wanted). Fails the test unless all three increments converge. */
static inline void unit_plastic_bar_run(int pc, unit_record *r, dt_run_summary *sum) {
  dt_model *m = unit_box(24, 8, 6, 1);
  dt_ctx ctx = {0};
  dt_run_summary s;
  dt_run_options o;
  unit_bar_load(m);
  m->solver.precond = (dt_precond_kind)pc;
  m->solver.newton_rtol = 1e-7;
  m->solver.pcg_rtol = 1e-10;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  memset(r, 0, sizeof *r);
  unit_run_options(&o, NULL, unit_record_increment, r);
  CHECK(dt_analysis_run(m, &o, &s, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(s.completed && r->increments == 3, "%s run did not complete: %s", dt_precond_names[pc],
        s.message);
  if (sum) *sum = s;
  dt_model_destroy(&m);
}

#endif
