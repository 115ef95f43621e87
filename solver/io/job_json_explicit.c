/* An explicit step's "explicit" object and the job's "initial_velocities".
 *
 * "explicit" holds the controls of dt_explicit_options under the job format's names: "time" (the
 * step's period, required), "dt" (a fixed time step; 0 or absent: the stable step), "safety"
 * (the stable step's factor), "damping" (alpha of C = alpha M), "rotary_scale", "hourglass"
 * (the one-point hex8's hourglass coefficient), "output" ({"every": n} time steps or
 * {"frames": n} equal intervals) and "amplitude" ("step", "ramp" or a table [[t, a], ...]).
 * Values are checked here with their JSON path; dt_model_finish checks them again for models
 * that did not come from JSON. So is the density that explicit steps need of every material a
 * section uses (materials[i].density). */
#include <math.h>
#include <string.h>

#include "model/model_internal.h"
#include "job_json_internal.h"

static const char *const explicit_keys[] = {
    "time", "dt", "safety", "damping", "rotary_scale", "hourglass", "output", "amplitude", NULL};
static const char *const output_keys[] = {"every", "frames", NULL};
static const char *const amplitude_kinds[] = {"step", "ramp", NULL}; /* DT_AMP_STEP, DT_AMP_RAMP */
static const char *const velocity_keys[] = {"node_set", "velocity", NULL};

/* A number of the object in [lo, hi] ((lo, hi] with lo_open), rule saying so in messages. */
static dt_status get_in_range(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                              int required, double lo, int lo_open, double hi, const char *rule,
                              double *out) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];

  DT_TRY(dt_jp_get_number(jp, obj, path, key, required, out));
  dt_jp_key(p, path, key);
  DT_JCHECK((lo_open ? *out > lo : *out >= lo) && *out <= hi, jp, p, "must be %s (got %g)", rule,
            *out);
cleanup:
  return rc;
}

/* "output": {"every": n} or {"frames": n}, exactly one. */
static dt_status parse_output(dt_jp *jp, const json_t *v, const char *path,
                              dt_explicit_options *x) {
  dt_status rc = DT_OK;

  DT_TRY(dt_jp_object(jp, v, path, output_keys));
  DT_JCHECK(json_object_size(v) == 1, jp, path,
            "give either \"every\" (time steps) or \"frames\" (equal intervals of the step)");
  DT_TRY(dt_jp_get_int(jp, v, path, "every", 0, 1, 1000000000, &x->output_every));
  DT_TRY(dt_jp_get_int(jp, v, path, "frames", 0, 1, 1000000, &x->output_frames));
cleanup:
  return rc;
}

/* "amplitude": "step", "ramp" or [[t, a], ...], times from 0 increasing. */
static dt_status parse_amplitude(dt_jp *jp, const json_t *v, const char *path, dt_amplitude *a) {
  dt_status rc = DT_OK;
  char rp[DT_JPATH_MAX], ep[DT_JPATH_MAX];
  int kind = 0;

  if (json_is_string(v)) {
    DT_TRY(dt_jp_keyword(jp, v, path, amplitude_kinds, &kind));
    a->kind = (dt_amplitude_kind)kind;
    goto cleanup;
  }
  DT_JCHECK(json_is_array(v), jp, path,
            "expected \"step\", \"ramp\" or a table [[time, factor], ...], got %s",
            dt_jp_type_name(v));
  DT_TRY(dt_jp_array(jp, v, path, 1, DT_AMP_MAX_POINTS, &a->n));
  a->kind = DT_AMP_TABLE;
  for (int k = 0; k < a->n; k++) {
    const json_t *row = json_array_get(v, (size_t)k);
    dt_jp_index(rp, path, (size_t)k);
    DT_JCHECK(json_is_array(row) && json_array_size(row) == 2, jp, rp,
              "expected [time, factor], got %s", dt_jp_type_name(row));
    dt_jp_index(ep, rp, 0);
    DT_TRY(dt_jp_number(jp, json_array_get(row, 0), ep, &a->t[k]));
    DT_JCHECK(a->t[k] >= 0 && (k == 0 || a->t[k] > a->t[k - 1]), jp, ep,
              "times must start at 0 or later and increase (got %g%s)", a->t[k],
              k ? " after a later or equal one" : "");
    dt_jp_index(ep, rp, 1);
    DT_TRY(dt_jp_number(jp, json_array_get(row, 1), ep, &a->a[k]));
  }
cleanup:
  return rc;
}

dt_status dt_jp_explicit(dt_jp *jp, const json_t *v, const char *path, dt_explicit_options *x) {
  dt_status rc = DT_OK;
  json_t *out = NULL, *amp = NULL;
  char p[DT_JPATH_MAX];

  DT_TRY(dt_jp_object(jp, v, path, explicit_keys));
  DT_TRY(get_in_range(jp, v, path, "time", 1, 0, 1, HUGE_VAL, "> 0", &x->time_period));
  DT_TRY(get_in_range(jp, v, path, "dt", 0, 0, 0, x->time_period,
                      "0 (the stable step) or up to \"time\"", &x->dt));
  DT_TRY(get_in_range(jp, v, path, "safety", 0, 0, 1, 1, "> 0 and <= 1", &x->dt_safety));
  DT_TRY(get_in_range(jp, v, path, "damping", 0, 0, 0, HUGE_VAL, ">= 0", &x->damping));
  DT_TRY(get_in_range(jp, v, path, "rotary_scale", 0, 0, 0, HUGE_VAL,
                      ">= 0 (0: the smallest factor that keeps rotations from limiting the step)",
                      &x->rotary_scale));
  DT_TRY(get_in_range(jp, v, path, "hourglass", 0, 0, 0, HUGE_VAL,
                      ">= 0 (the one-point hex8's hourglass coefficient)", &x->hourglass));
  DT_TRY(dt_jp_member(jp, v, path, "output", 0, &out));
  dt_jp_key(p, path, "output");
  if (out) DT_TRY(parse_output(jp, out, p, x));
  DT_TRY(dt_jp_member(jp, v, path, "amplitude", 0, &amp));
  dt_jp_key(p, path, "amplitude");
  if (amp) DT_TRY(parse_amplitude(jp, amp, p, &x->amplitude));
cleanup:
  return rc;
}

static dt_status parse_initial_velocity(dt_jp *jp, const json_t *v, const char *path,
                                        dt_initial_velocity *iv) {
  dt_status rc = DT_OK;
  json_t *vel = NULL;
  char name[DT_NAME_MAX], p[DT_JPATH_MAX];

  DT_TRY(dt_jp_object(jp, v, path, velocity_keys));
  DT_TRY(dt_jp_get_name(jp, v, path, "node_set", 1, name));
  dt_jp_key(p, path, "node_set");
  iv->nset = dt_model_find_nset(jp->m, name);
  DT_JCHECK(iv->nset >= 0, jp, p, "unknown node set \"%s\"", name);
  DT_TRY(dt_jp_member(jp, v, path, "velocity", 1, &vel));
  dt_jp_key(p, path, "velocity");
  DT_TRY(dt_jp_vector(jp, vel, p, iv->v));
cleanup:
  return rc;
}

static int any_explicit(const dt_model *m) {
  for (int i = 0; i < m->n_steps; i++)
    if (m->steps[i].procedure == DT_PROC_EXPLICIT) return 1;
  return 0;
}

dt_status dt_jp_initial_velocities(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  char p[DT_JPATH_MAX];
  int n = 0;

  DT_JCHECK(any_explicit(m), jp, path,
            "initial velocities need explicit steps (\"procedure\": \"explicit\")");
  DT_TRY(dt_jp_array(jp, v, path, 0, 100000, &n));
  DT_ALLOC(m->initial_velocities, n, jp->ctx, "initial velocities");
  m->n_initial_velocities = n;
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_initial_velocity(jp, json_array_get(v, (size_t)i), p, &m->initial_velocities[i]));
  }
cleanup:
  return rc;
}

dt_status dt_jp_explicit_densities(dt_jp *jp, const char *path) {
  dt_status rc = DT_OK;
  const dt_model *m = jp->m;
  char p[DT_JPATH_MAX], q[DT_JPATH_MAX];

  if (!any_explicit(m)) return DT_OK;
  for (int s = 0; s < m->n_sections; s++) {
    const int k = m->sections[s].material;
    dt_jp_index(p, path, (size_t)k);
    dt_jp_key(q, p, "density");
    DT_JCHECK(m->materials[k].density > 0, jp, q,
              "missing: explicit steps need a density > 0 (material \"%s\", used by sections[%d])",
              m->materials[k].name, s);
  }
cleanup:
  return rc;
}
