/* Explicit dynamics decks (tests/interop/decks/s4*.inp) import to the model the explicit driver
 * reads: shell4 elements and a shell section, the density, the explicit step's time period,
 * time step, amplitude and output frames, velocity boundary conditions and fixed rotations,
 * pressures on a shell side (*DLOAD P, *DSLOAD on SPOS/SNEG surfaces), initial velocities.
 * Warnings name what is read differently (S4R, a time increment that is not fixed). The bad
 * decks (file:line refusals) are in tests/interop/malformed.py.
 * Usage: test_io_inp_explicit <decks dir>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/import.h"
#include "inp_warnings.h"
#include "io_fixture.h"

static dt_model *import(const char *dir, const char *name, warnings *w) {
  char path[1200];
  dt_model *m = NULL;
  dt_ctx ctx;
  dt_import_options opt = {on_warn, w};
  memset(w, 0, sizeof *w);
  dt_ctx_reset(&ctx);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  CHECK(dt_import_file(path, NULL, &opt, &m, &ctx) == DT_OK, "%s: %s", name, ctx.msg);
  return m;
}

/* The boundary condition of step st on node set nset that prescribes dof bit `dof`, or NULL. */
static const dt_bc *find_bc(const dt_model *m, const dt_step *st, const char *nset, unsigned dof) {
  int s = dt_model_find_nset(m, nset);
  for (int b = 0; b < st->n_bc; b++)
    if (st->bc[b].nset == s && (st->bc[b].dofs & dof)) return &st->bc[b];
  return NULL;
}

static void mesh_and_material(const dt_model *m, double thickness, int points) {
  CHECK(m->dim == 3 && m->n_nodes == 25 && m->n_elems == 16, "%dD, %d nodes, %d elements", m->dim,
        m->n_nodes, m->n_elems);
  for (int e = 0; e < m->n_elems; e++)
    CHECK(m->elem_type[e] == DT_ELEM_SHELL4 && m->elem_ptr[e + 1] - m->elem_ptr[e] == 4,
          "element %d: type %d", e, m->elem_type[e]);
  CHECK(m->n_materials == 1 && m->materials[0].density == 7.85e-9 && m->materials[0].p.E == 210000.,
        "density %g", m->materials[0].density);
  CHECK(m->n_sections == 1 && m->sections[0].kind == DT_SECTION_SHELL &&
            m->sections[0].thickness == thickness && m->sections[0].shell_points == points,
        "section: kind %d, thickness %g, %d points", m->sections[0].kind, m->sections[0].thickness,
        m->sections[0].shell_points);
  CHECK(m->n_steps == 1 && m->steps[0].procedure == DT_PROC_EXPLICIT, "one explicit step");
}

/* S4, the stable time step, a velocity-driven edge and a *DLOAD P, both on one *AMPLITUDE. */
static void plate_pulse(const char *dir) {
  warnings w;
  dt_model *m = import(dir, "s4_plate_explicit.inp", &w);
  const dt_step *st = &m->steps[0];
  const dt_explicit_options *x = &st->explicit_;
  const dt_bc *bc = NULL;
  const dt_surface *sf = NULL;

  CHECK(w.n == 0, "warnings: %s", w.all);
  mesh_and_material(m, 2.0, 3);
  CHECK(strcmp(st->name, "PULSE") == 0 && x->time_period == 0.002 && x->dt == 0 &&
            x->dt_safety == 0.8 && x->damping == 0,
        "time %g, dt %g, safety %g", x->time_period, x->dt, x->dt_safety);
  CHECK(x->output_frames == 10 && x->output_every == 0, "frames %d, every %d", x->output_frames,
        x->output_every);
  CHECK(x->amplitude.kind == DT_AMP_TABLE && x->amplitude.n == 5 && x->amplitude.t[1] == 0.0005 &&
            x->amplitude.a[1] == 1 && x->amplitude.t[4] == 0.002 && x->amplitude.a[3] == 0.5,
        "amplitude: kind %d, %d points", x->amplitude.kind, x->amplitude.n);
  /* ENCASTRE: the three displacements and the three rotations, fixed */
  for (unsigned d = 1; d <= DT_DOF_RZ; d <<= 1) {
    bc = find_bc(m, st, "LEFT", d);
    CHECK(bc && !bc->velocity && bc->value[0] == 0 && bc->value[1] == 0 && bc->value[2] == 0,
          "LEFT: dof bit %u is not fixed", d);
  }
  bc = find_bc(m, st, "RIGHT", DT_DOF_X);
  CHECK(bc && bc->velocity && bc->value[0] == 500 && bc->dofs == DT_DOF_X,
        "RIGHT: velocity 500 along x");
  for (unsigned d = DT_DOF_RX; d <= DT_DOF_RZ; d <<= 1) {
    bc = find_bc(m, st, "RIGHT", d);
    CHECK(bc && bc->velocity && bc->dofs == d, "RIGHT: rotation bit %u held still", d);
  }
  CHECK(!find_bc(m, st, "RIGHT", DT_DOF_Y | DT_DOF_Z), "RIGHT: y, z free");
  CHECK(st->n_pressure == 1 && st->pressure[0].p == 0.01, "one pressure of 0.01");
  sf = &m->surfaces[st->pressure[0].surface];
  CHECK(sf->n == 16, "the pressure's surface has %d faces", sf->n);
  for (int i = 0; i < sf->n; i++) CHECK(sf->face[i] == 0, "*DLOAD P acts on SPOS (S1)");
  CHECK(m->n_initial_velocities == 0, "no initial velocities");
  CHECK(m->output.fields == (DT_OUT_U | DT_OUT_S | DT_OUT_MISES), "fields 0x%x", m->output.fields);
  dt_model_destroy(&m);
}

/* S4R (noted), a fixed time step, *STEP AMPLITUDE=RAMP, *DSLOAD on SNEG, a force, rotations
 * fixed by DOF number, initial velocities, *NODE FILE, FREQUENCY (time steps). */
static void plate_dsload(const char *dir) {
  warnings w;
  dt_model *m = import(dir, "s4r_plate_dsload.inp", &w);
  const dt_step *st = &m->steps[0];
  const dt_explicit_options *x = &st->explicit_;
  const dt_surface *sf = NULL;
  const dt_bc *bc = NULL;
  const dt_initial_velocity *iv = NULL;
  int centre = dt_model_find_nset(m, "CENTRE");

  /* S4R read as MITC4, and which rule the deck's SECTION INTEGRATION=GAUSS gets */
  CHECK(w.n == 2 && strstr(w.all, "S4R") && strstr(w.all, "MITC4") &&
            strstr(w.all, "SECTION INTEGRATION=GAUSS") && strstr(w.all, "Simpson"),
        "warnings: %s", w.all);
  mesh_and_material(m, 1.5, 2); /* the default: 2 points through an elastic section */
  CHECK(x->time_period == 0.001 && x->dt == 1e-7 && x->amplitude.kind == DT_AMP_RAMP,
        "time %g, dt %g, amplitude %d", x->time_period, x->dt, x->amplitude.kind);
  CHECK(x->output_every == 500 && x->output_frames == 20, "every %d, frames %d", x->output_every,
        x->output_frames);
  for (unsigned d = 1; d <= DT_DOF_RZ; d <<= 1) {
    bc = find_bc(m, st, "EDGES", d);
    CHECK((bc != NULL) == (d != DT_DOF_RX && d != DT_DOF_RY), "EDGES: dof bit %u", d);
    CHECK(!bc || (!bc->velocity && bc->value[0] == 0 && bc->value[2] == 0), "EDGES: fixed");
  }
  CHECK(st->n_pressure == 1 && st->pressure[0].p == 0.02, "one pressure of 0.02");
  sf = &m->surfaces[st->pressure[0].surface];
  CHECK(strcmp(sf->name, "BOTTOM") == 0 && sf->n == 16, "the *DSLOAD surface");
  for (int i = 0; i < sf->n; i++) CHECK(sf->face[i] == 1, "SNEG is the face S2");
  CHECK(st->n_cload == 1 && st->cload[0].nset == centre && st->cload[0].f[2] == -5,
        "the centre's force");
  /* NALL at 2000 along z, then CENTRE's x: one set per distinct velocity, the deck's own where
   * it holds exactly those nodes */
  CHECK(m->n_initial_velocities == 2, "%d initial velocities", m->n_initial_velocities);
  iv = &m->initial_velocities[0];
  CHECK(m->nsets[iv->nset].n == 24 && strcmp(m->nsets[iv->nset].name, "_V1") == 0 &&
            iv->v[0] == 0 && iv->v[1] == 0 && iv->v[2] == 2000,
        "24 nodes at (0, 0, 2000): %s, %d nodes, (%g, %g, %g)", m->nsets[iv->nset].name,
        m->nsets[iv->nset].n, iv->v[0], iv->v[1], iv->v[2]);
  iv = &m->initial_velocities[1];
  CHECK(iv->nset == centre && iv->v[0] == 10 && iv->v[1] == 0 && iv->v[2] == 2000,
        "CENTRE at (10, 0, 2000): (%g, %g, %g)", iv->v[0], iv->v[1], iv->v[2]);
  dt_model_destroy(&m);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/interop/decks";
  plate_pulse(dir);
  plate_dsload(dir);
  printf("explicit decks: ok\n");
  return 0;
}
