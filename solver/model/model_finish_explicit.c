/* dt_model_finish's rules for explicit dynamics and shells.
 *
 * Explicit steps run on their own driver (solver/explicit/): a job's steps are all static or
 * all explicit, shells (shell4, MITC4) run only in explicit steps, and explicit steps take the
 * element types, materials and loads that driver implements: a model of shells or of hex8
 * solids (not both yet), hex8 in one formulation (one point with hourglass control, or 2x2x2
 * points), elastic or J2 materials. Everything else is refused here, by name, before any
 * solver sees the model. */
#include <math.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

#define FIN_CHECK(cond, ...) DT_CHECK(cond, ctx, DT_ERR_INPUT, __VA_ARGS__)

int dt_model_has_shells(const dt_model *m) {
  for (int e = 0; m->elem_type && e < m->n_elems; e++)
    if (m->elem_type[e] == DT_ELEM_SHELL4) return 1;
  return 0;
}

int dt_section_has_shells(const dt_model *m, const dt_section *sec) {
  const dt_set *set = &m->elsets[sec->elset];
  for (int i = 0; i < set->n; i++)
    if (m->elem_type[set->items[i]] == DT_ELEM_SHELL4) return 1;
  return 0;
}

dt_status dt_check_shell_section(dt_model *m, int s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_section *sec = &m->sections[s];
  const dt_material *mat = &m->materials[sec->material];
  const dt_set *set = &m->elsets[sec->elset];

  for (int i = 0; i < set->n; i++) {
    int e = set->items[i], t = m->elem_type[e];
    FIN_CHECK((t == DT_ELEM_SHELL4) == (sec->kind == DT_SECTION_SHELL),
              "element %lld (%s) is in section %d (element set \"%s\", %s): %s",
              (long long)m->elem_id[e], dt_model_elem_type_name(t), s, sec->elset_name,
              sec->kind == DT_SECTION_SHELL ? "shell" : "not a shell section",
              t == DT_ELEM_SHELL4 ? "shell4 elements need a shell section"
                                  : "a shell section takes shell4 elements only");
  }
  FIN_CHECK(isfinite(sec->thickness) && sec->thickness > 0,
            "section %d (element set \"%s\"): the shell thickness must be > 0", s, sec->elset_name);
  FIN_CHECK(mat->p.plastic == DT_PLASTIC_NONE || mat->p.plastic == DT_PLASTIC_J2,
            "section %d (element set \"%s\"): material \"%s\": shells take elastic and J2 "
            "materials, not Mohr-Coulomb",
            s, sec->elset_name, mat->name);
  if (sec->shell_points == 0) sec->shell_points = mat->p.plastic ? 5 : 2;
  FIN_CHECK(sec->shell_points >= 2 && sec->shell_points <= 5,
            "section %d (element set \"%s\"): points through the shell thickness must be 2 to 5 "
            "(got %d)",
            s, sec->elset_name, sec->shell_points);
  sec->form = DT_FORM_FULL;
cleanup:
  return rc;
}

static void sub3(const double *a, const double *b, double *out) {
  for (int k = 0; k < 3; k++) out[k] = a[k] - b[k];
}
static void cross3(const double *a, const double *b, double *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

dt_status dt_shell_check_geometry(const double *X, int64_t user_elem_id, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double d1[3], d2[3], n[3], e1[3], e2[3], c[3], h2 = 0.0;

  for (int k = 0; k < 12; k++)
    FIN_CHECK(isfinite(X[k]), "element %lld (shell4): node coordinates are not finite",
              (long long)user_elem_id);
  /* the mean normal from the diagonals, and each corner's normal against it */
  sub3(&X[6], &X[0], d1);
  sub3(&X[9], &X[3], d2);
  cross3(d1, d2, n);
  for (int k = 0; k < 3; k++) h2 = fmax(h2, fmax(d1[k] * d1[k], d2[k] * d2[k]));
  for (int a = 0; a < 4; a++) {
    sub3(&X[3 * ((a + 1) % 4)], &X[3 * a], e1);
    sub3(&X[3 * ((a + 3) % 4)], &X[3 * a], e2);
    cross3(e1, e2, c);
    FIN_CHECK(c[0] * n[0] + c[1] * n[1] + c[2] * n[2] > 1e-12 * h2 * h2,
              "element %lld (shell4) is folded or degenerate at its corner %d (check the node "
              "order: corners in order around the element)",
              (long long)user_elem_id, a + 1);
  }
cleanup:
  return rc;
}

int dt_model_any_explicit(const dt_model *m) {
  for (int i = 0; i < m->n_steps; i++)
    if (m->steps[i].procedure == DT_PROC_EXPLICIT) return 1;
  return 0;
}

dt_status dt_check_explicit_solid_section(dt_model *m, int s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_section *sec = &m->sections[s];
  const dt_material *mat = &m->materials[sec->material];

  FIN_CHECK(sec->form != DT_FORM_BBAR,
            "section %d (element set \"%s\"): the bbar formulation is for static steps; hex8 in "
            "explicit steps take \"reduced\" (one point with hourglass control, the default) or "
            "\"full\" (2x2x2 points)",
            s, sec->elset_name);
  if (sec->form == DT_FORM_DEFAULT) sec->form = DT_FORM_REDUCED;
  FIN_CHECK(mat->p.plastic == DT_PLASTIC_NONE || mat->p.plastic == DT_PLASTIC_J2,
            "section %d (element set \"%s\"): material \"%s\": explicit steps take elastic and J2 "
            "materials, not Mohr-Coulomb",
            s, sec->elset_name, mat->name);
cleanup:
  return rc;
}

static dt_status check_amplitude(const dt_step *s, int i, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_amplitude *a = &s->explicit_.amplitude;

  FIN_CHECK(a->kind == DT_AMP_STEP || a->kind == DT_AMP_RAMP || a->kind == DT_AMP_TABLE,
            "step %d \"%s\": invalid amplitude", i, s->name);
  if (a->kind != DT_AMP_TABLE) goto cleanup;
  FIN_CHECK(a->n >= 1 && a->n <= DT_AMP_MAX_POINTS,
            "step %d \"%s\": an amplitude table needs 1 to %d points (got %d)", i, s->name,
            DT_AMP_MAX_POINTS, a->n);
  for (int k = 0; k < a->n; k++) {
    FIN_CHECK(isfinite(a->t[k]) && isfinite(a->a[k]) && a->t[k] >= 0,
              "step %d \"%s\": amplitude point %d must be finite with time >= 0", i, s->name,
              k + 1);
    FIN_CHECK(k == 0 || a->t[k] > a->t[k - 1],
              "step %d \"%s\": amplitude times must increase (point %d at %g after %g)", i, s->name,
              k + 1, a->t[k], a->t[k - 1]);
  }
cleanup:
  return rc;
}

static dt_status check_explicit_step(const dt_model *m, const dt_step *s, int i, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_explicit_options *x = &s->explicit_;

  FIN_CHECK(isfinite(x->time_period) && x->time_period > 0,
            "step %d \"%s\": an explicit step needs a time period > 0 (got %g)", i, s->name,
            x->time_period);
  FIN_CHECK(isfinite(x->dt) && x->dt >= 0 && x->dt <= x->time_period,
            "step %d \"%s\": the time step must be 0 (stable step) or in (0, time period] (got "
            "%g)",
            i, s->name, x->dt);
  FIN_CHECK(isfinite(x->dt_safety) && x->dt_safety > 0 && x->dt_safety <= 1,
            "step %d \"%s\": the stable step's safety factor must be in (0, 1] (got %g)", i,
            s->name, x->dt_safety);
  FIN_CHECK(isfinite(x->damping) && x->damping >= 0,
            "step %d \"%s\": the mass-proportional damping must be >= 0 (got %g)", i, s->name,
            x->damping);
  FIN_CHECK(isfinite(x->rotary_scale) && x->rotary_scale >= 0,
            "step %d \"%s\": the rotary inertia scale must be >= 0 (got %g)", i, s->name,
            x->rotary_scale);
  FIN_CHECK(isfinite(x->hourglass) && x->hourglass >= 0,
            "step %d \"%s\": the hourglass coefficient must be >= 0 (got %g)", i, s->name,
            x->hourglass);
  FIN_CHECK(x->output_every >= 0 && (x->output_every > 0 || x->output_frames >= 1),
            "step %d \"%s\": output needs every >= 1 time steps or frames >= 1", i, s->name);
  DT_TRY(check_amplitude(s, i, ctx));
  FIN_CHECK(s->n_traction == 0 && s->n_body == 0,
            "step %d \"%s\": explicit steps take forces, pressures on shells and hex8 faces and "
            "boundary conditions; tractions and body forces are not supported there yet",
            i, s->name);
  for (int k = 0; k < s->n_pressure; k++) {
    const dt_surface *sf = &m->surfaces[s->pressure[k].surface];
    for (int j = 0; j < sf->n; j++) {
      const int t = m->elem_type[sf->elem[j]];
      FIN_CHECK(t == DT_ELEM_SHELL4 || t == DT_ELEM_HEX8,
                "step %d \"%s\": pressure on surface \"%s\": element %lld is not a shell or a "
                "hex8 (explicit steps take pressures on shells and hex8 faces)",
                i, s->name, sf->name, (long long)m->elem_id[sf->elem[j]]);
    }
  }
cleanup:
  return rc;
}

dt_status dt_check_explicit(dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int expl = dt_model_any_explicit(m), first = m->n_elems ? m->elem_type[0] : DT_ELEM_SHELL4;
  int form = -1, form_sec = -1;

  for (int i = 0; i < m->n_steps; i++)
    FIN_CHECK((m->steps[i].procedure == DT_PROC_EXPLICIT) == expl,
              "step %d \"%s\" is %s but another step is %s: a job's steps are all static or all "
              "explicit",
              i, m->steps[i].name, expl ? "static" : "explicit", expl ? "explicit" : "static");
  for (int i = 0; i < m->n_steps; i++)
    for (int b = 0; b < m->steps[i].n_bc; b++)
      FIN_CHECK(expl || !m->steps[i].bc[b].velocity,
                "step %d \"%s\": boundary %d prescribes a velocity, which only explicit steps "
                "take",
                i, m->steps[i].name, b);
  FIN_CHECK(expl || m->n_initial_velocities == 0,
            "initial velocities need explicit steps (the job's steps are static)");
  for (int e = 0; e < m->n_elems; e++) {
    int t = m->elem_type[e];
    FIN_CHECK(expl || t != DT_ELEM_SHELL4,
              "element %lld is a shell (shell4): shells run in explicit steps only (procedure "
              "explicit, Abaqus *DYNAMIC, EXPLICIT)",
              (long long)m->elem_id[e]);
    FIN_CHECK(!expl || t == DT_ELEM_SHELL4 || t == DT_ELEM_HEX8,
              "element %lld (%s): explicit steps take shell4 and hex8 elements today; other "
              "solids run in static steps",
              (long long)m->elem_id[e], dt_model_elem_type_name(t));
    FIN_CHECK(!expl || t == first,
              "element %lld is a %s but element %lld a %s: an explicit model is all shells or "
              "all hex8 today (mixing them is not supported yet)",
              (long long)m->elem_id[e], dt_model_elem_type_name(t), (long long)m->elem_id[0],
              dt_model_elem_type_name(first));
  }
  if (!expl) goto cleanup;
  for (int s = 0; s < m->n_sections && first == DT_ELEM_HEX8; s++) {
    const int f = m->sections[s].form == DT_FORM_REDUCED;
    FIN_CHECK(form < 0 || f == form,
              "sections %d and %d (element sets \"%s\", \"%s\"): their hex8 are %s and %s: an "
              "explicit model takes one formulation for all its hex8 today",
              form_sec, s, m->sections[form_sec].elset_name, m->sections[s].elset_name,
              form ? "reduced" : "full", f ? "reduced" : "full");
    form = f, form_sec = s;
  }
  for (int s = 0; s < m->n_sections; s++) {
    const dt_material *mat = &m->materials[m->sections[s].material];
    FIN_CHECK(isfinite(mat->density) && mat->density > 0,
              "material \"%s\": explicit steps need a density > 0 (Abaqus *DENSITY)", mat->name);
  }
  for (int i = 0; i < m->n_steps; i++) DT_TRY(check_explicit_step(m, &m->steps[i], i, ctx));
  for (int k = 0; k < m->n_initial_velocities; k++) {
    const dt_initial_velocity *v = &m->initial_velocities[k];
    FIN_CHECK(v->nset >= 0 && v->nset < m->n_nsets && isfinite(v->v[0]) && isfinite(v->v[1]) &&
                  isfinite(v->v[2]),
              "initial velocity %d: unknown node set or non-finite value", k);
  }
cleanup:
  return rc;
}
