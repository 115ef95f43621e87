/* "steps": procedure, increments, boundary conditions and loads of each load step.
 *
 * A step's boundary conditions and loads are the complete state at the end of the step; the
 * solver ramps from the state the previous step left (a static step), or follows the step's
 * amplitude in time (an explicit step, "procedure": "explicit", whose controls are read by
 * job_json_explicit.c). Loads are a list of tagged objects ("type": force | pressure | traction
 * | body | centrifugal); to add a load type, add it to load_types, give it its keys, and count
 * and fill it in parse_loads. Shell models have rotations: "rx", "ry", "rz" may be fixed or
 * held; explicit steps may prescribe velocities instead of displacements. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_internal.h"
#include "job_json_internal.h"

static const char *const step_keys[] = {"name",     "procedure", "increments", "explicit",
                                        "boundary", "loads",     NULL};
static const char *const procedures[] = {"static", "explicit", NULL}; /* dt_procedure order */
static const char *const increment_types[] = {"fixed", "automatic", NULL};
static const char *const fixed_keys[] = {"type", "count", "max_cutbacks", NULL};
static const char *const automatic_keys[] = {"type", "initial", "min", "max", "max_cutbacks", NULL};
static const char *const bc_keys[] = {"node_set", "fixed",    "displacement",
                                      "hold",     "velocity", NULL};
static const char *const axis_names[] = {"x", "y", "z", NULL};
/* bit d of a DOF mask: translations, then the rotations of shell nodes (DT_DOF_RX ...) */
static const char *const dof_names[] = {"x", "y", "z", "rx", "ry", "rz", NULL};
static const char *const load_types[] = {"force", "pressure",    "traction",
                                         "body",  "centrifugal", NULL};
static const char *const load_keys[][7] = {
    {"type", "node_set", "value", NULL},
    {"type", "surface", "value", NULL},
    {"type", "surface", "value", NULL},
    {"type", "element_set", "value", NULL},
    {"type", "element_set", "density", "omega", "axis_point", "axis", NULL},
};

static dt_status parse_increments(dt_jp *jp, const json_t *v, const char *path, dt_step *s) {
  dt_status rc = DT_OK;
  int type = 0;

  if (!json_is_object(v)) {
    DT_JCHECK(json_is_number(v), jp, path, "expected a number of increments or an object, got %s",
              dt_jp_type_name(v));
    DT_TRY(dt_jp_int(jp, v, path, 1, 1000000, &s->n_increments));
    goto cleanup;
  }
  DT_TRY(dt_jp_get_keyword(jp, v, path, "type", 1, increment_types, &type));
  DT_TRY(dt_jp_object(jp, v, path, type ? automatic_keys : fixed_keys));
  s->automatic = type;
  DT_TRY(dt_jp_get_int(jp, v, path, "max_cutbacks", 0, 0, 100, &s->max_cutbacks));
  if (!s->automatic) {
    DT_TRY(dt_jp_get_int(jp, v, path, "count", 1, 1, 1000000, &s->n_increments));
    goto cleanup;
  }
  DT_TRY(dt_jp_get_number(jp, v, path, "initial", 0, &s->inc_initial));
  DT_TRY(dt_jp_get_number(jp, v, path, "min", 0, &s->inc_min));
  DT_TRY(dt_jp_get_number(jp, v, path, "max", 0, &s->inc_max));
  DT_JCHECK(s->inc_min > 0 && s->inc_min <= s->inc_initial && s->inc_initial <= s->inc_max &&
                s->inc_max <= 1,
            jp, path, "need 0 < min <= initial <= max <= 1 (got min %g, initial %g, max %g)",
            s->inc_min, s->inc_initial, s->inc_max);
cleanup:
  return rc;
}

static dt_status find_nset(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                           int *out) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX], p[DT_JPATH_MAX];

  DT_TRY(dt_jp_get_name(jp, obj, path, key, 1, name));
  dt_jp_key(p, path, key);
  *out = dt_model_find_nset(jp->m, name);
  DT_JCHECK(*out >= 0, jp, p, "unknown node set \"%s\"", name);
cleanup:
  return rc;
}

/* "fixed" or "hold": ["x", "z"] or "all" (the translations, and the rotations of a shell
 * model: a clamp), into *mask. */
static dt_status parse_axes(dt_jp *jp, const json_t *v, const char *path, unsigned *mask) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int n = 0, dof = 0, shells = dt_model_has_shells(jp->m);

  if (json_is_string(v) && strcmp(json_string_value(v), "all") == 0) {
    *mask = (jp->m->dim == 3 ? 7u : 3u) | (shells ? DT_DOF_ROT : 0u);
    goto cleanup;
  }
  DT_JCHECK(json_is_array(v), jp, path,
            "expected \"all\" or an array of axes (\"x\", \"y\", \"z\"%s), got %s",
            shells ? ", \"rx\", \"ry\", \"rz\"" : "",
            json_is_string(v) ? "another string" : dt_jp_type_name(v));
  DT_TRY(dt_jp_array(jp, v, path, 1, 6, &n));
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(dt_jp_keyword(jp, json_array_get(v, (size_t)i), p, dof_names, &dof));
    DT_JCHECK(dof < 3 || shells, jp, p,
              "%s is a rotation, which only the nodes of shell elements (shell4) have",
              dof_names[dof]);
    DT_JCHECK(dof != 2 || jp->m->dim == 3, jp, p, "z is not a degree of freedom of a 2D model");
    *mask |= 1u << dof;
  }
cleanup:
  return rc;
}

/* "displacement" or "velocity": {"z": 0.01, ...}: value[d] of the axes it names, which are
 * also in "fixed" (taken) or not. */
static dt_status parse_values(dt_jp *jp, const json_t *v, const char *path, dt_bc *bc) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];

  DT_TRY(dt_jp_object(jp, v, path, axis_names));
  DT_JCHECK(json_object_size(v) > 0, jp, path, "must name at least one axis");
  for (int d = 0; d < 3; d++) {
    if (!json_object_get(v, axis_names[d])) continue;
    dt_jp_key(p, path, axis_names[d]);
    DT_JCHECK(d < jp->m->dim, jp, p, "z is not a degree of freedom of a 2D model");
    DT_JCHECK(!(bc->dofs & (1u << d)), jp, p, "this axis is also listed in \"fixed\"");
    DT_TRY(dt_jp_get_number(jp, v, path, axis_names[d], 1, &bc->value[d]));
    bc->dofs |= 1u << d;
  }
cleanup:
  return rc;
}

/* A velocity boundary condition (explicit steps): its axes move at the given velocities
 * through the step; "fixed" may come with it (zero velocity, and the rotations). */
static dt_status parse_velocity(dt_jp *jp, const json_t *v, const char *path, int explicit_step,
                                dt_bc *bc) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];

  dt_jp_key(p, path, "velocity");
  DT_JCHECK(explicit_step, jp, p,
            "velocities are prescribed in explicit steps only "
            "(\"procedure\": \"explicit\")");
  DT_JCHECK(!json_object_get(v, "displacement") && !json_object_get(v, "hold"), jp, p,
            "a boundary condition prescribes velocities or displacements, not both: give "
            "\"displacement\" and \"hold\" their own entry");
  DT_TRY(parse_values(jp, json_object_get(v, "velocity"), p, bc));
  bc->velocity = 1;
cleanup:
  return rc;
}

static dt_status parse_bc(dt_jp *jp, const json_t *v, const char *path, int explicit_step,
                          dt_bc *bc) {
  dt_status rc = DT_OK;
  json_t *fx = NULL, *disp = NULL, *hold = NULL;
  char p[DT_JPATH_MAX];
  unsigned held = 0;

  DT_TRY(dt_jp_object(jp, v, path, bc_keys));
  DT_TRY(find_nset(jp, v, path, "node_set", &bc->nset));
  fx = json_object_get(v, "fixed");
  disp = json_object_get(v, "displacement");
  hold = json_object_get(v, "hold");
  DT_JCHECK(fx || disp || hold || json_object_get(v, "velocity"), jp, path,
            "needs \"fixed\", \"displacement\", \"hold\" or \"velocity\"");
  dt_jp_key(p, path, "fixed");
  if (fx) DT_TRY(parse_axes(jp, fx, p, &bc->dofs));
  if (json_object_get(v, "velocity")) DT_TRY(parse_velocity(jp, v, path, explicit_step, bc));
  dt_jp_key(p, path, "displacement");
  if (disp) DT_TRY(parse_values(jp, disp, p, bc));
  dt_jp_key(p, path, "hold");
  if (hold) DT_TRY(parse_axes(jp, hold, p, &held));
  DT_JCHECK(!(held & bc->dofs), jp, p,
            "an axis is held here and also listed in \"fixed\" or \"displacement\"");
  bc->dofs |= held;
  bc->hold = held;
cleanup:
  return rc;
}

static dt_status parse_boundary(dt_jp *jp, const json_t *step, const char *spath, dt_step *s) {
  dt_status rc = DT_OK;
  json_t *arr = NULL;
  char path[DT_JPATH_MAX], p[DT_JPATH_MAX];
  int n = 0;

  DT_TRY(dt_jp_member(jp, step, spath, "boundary", 0, &arr));
  if (!arr) goto cleanup;
  dt_jp_key(path, spath, "boundary");
  DT_TRY(dt_jp_array(jp, arr, path, 0, 1000000, &n));
  DT_ALLOC(s->bc, n, jp->ctx, "boundary conditions");
  s->n_bc = n;
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_bc(jp, json_array_get(arr, (size_t)i), p, s->procedure == DT_PROC_EXPLICIT,
                    &s->bc[i]));
  }
cleanup:
  return rc;
}

static dt_status find_surface(dt_jp *jp, const json_t *obj, const char *path, int *out) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX], p[DT_JPATH_MAX];

  DT_TRY(dt_jp_get_name(jp, obj, path, "surface", 1, name));
  dt_jp_key(p, path, "surface");
  *out = dt_model_find_surface(jp->m, name);
  DT_JCHECK(*out >= 0, jp, p, "unknown surface \"%s\"", name);
cleanup:
  return rc;
}

static dt_status find_elset(dt_jp *jp, const json_t *obj, const char *path, int *out) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX], p[DT_JPATH_MAX];

  DT_TRY(dt_jp_get_name(jp, obj, path, "element_set", 1, name));
  dt_jp_key(p, path, "element_set");
  *out = dt_model_find_elset(jp->m, name);
  DT_JCHECK(*out >= 0, jp, p, "unknown element set \"%s\"", name);
cleanup:
  return rc;
}

/* "centrifugal": density, omega (rad per unit time) and the axis (a point, and in 3D a direction;
 * z in 2D): force per volume density omega^2 r_perp. */
static dt_status parse_centrifugal(dt_jp *jp, const json_t *v, const char *path, dt_body_force *b) {
  dt_status rc = DT_OK;
  json_t *pt = NULL, *ax = NULL;
  char p[DT_JPATH_MAX];
  double rho = 0.0, omega = 0.0, len = 0.0;

  DT_TRY(find_elset(jp, v, path, &b->elset));
  DT_TRY(dt_jp_get_number(jp, v, path, "density", 1, &rho));
  dt_jp_key(p, path, "density");
  DT_JCHECK(rho > 0.0, jp, p, "must be positive (got %g)", rho);
  DT_TRY(dt_jp_get_number(jp, v, path, "omega", 1, &omega));
  dt_jp_key(p, path, "omega");
  DT_JCHECK(omega != 0.0, jp, p, "must not be 0");
  b->spin = rho * omega * omega;
  DT_TRY(dt_jp_member(jp, v, path, "axis_point", 1, &pt));
  dt_jp_key(p, path, "axis_point");
  DT_TRY(dt_jp_vector(jp, pt, p, b->axis_point));
  DT_TRY(dt_jp_member(jp, v, path, "axis", jp->m->dim == 3, &ax));
  dt_jp_key(p, path, "axis");
  b->axis[2] = 1.0; /* 2D: the rotation is about z */
  if (jp->m->dim == 2 && !ax) goto cleanup;
  DT_TRY(dt_jp_vector(jp, ax, p, b->axis));
  /* axisymmetric elements spin about their axis, y (dt_model_finish checks the elements) */
  DT_JCHECK(jp->m->dim == 3 || (b->axis[0] == 0.0 && b->axis[2] == 0.0 && b->axis[1] != 0.0), jp, p,
            "a 2D model rotates about z (leave \"axis\" out) or, on axisymmetric elements, about "
            "y ([0, 1, 0])");
  len = sqrt(b->axis[0] * b->axis[0] + b->axis[1] * b->axis[1] + b->axis[2] * b->axis[2]);
  DT_JCHECK(len > 0.0, jp, p, "must not be zero");
  for (int k = 0; k < 3; k++) b->axis[k] /= len;
cleanup:
  return rc;
}

static dt_status parse_load(dt_jp *jp, const json_t *v, const char *path, int type, dt_step *s) {
  dt_status rc = DT_OK;
  json_t *val = NULL;
  char vp[DT_JPATH_MAX];

  DT_TRY(dt_jp_object(jp, v, path, load_keys[type]));
  if (type == 4) return parse_centrifugal(jp, v, path, &s->body[s->n_body++]);
  DT_TRY(dt_jp_member(jp, v, path, "value", 1, &val));
  dt_jp_key(vp, path, "value");
  switch (type) {
  case 0: {
    dt_cload *c = &s->cload[s->n_cload++];
    DT_TRY(find_nset(jp, v, path, "node_set", &c->nset));
    DT_TRY(dt_jp_vector(jp, val, vp, c->f));
    break;
  }
  case 1: {
    dt_pressure *pr = &s->pressure[s->n_pressure++];
    DT_TRY(find_surface(jp, v, path, &pr->surface));
    DT_TRY(dt_jp_number(jp, val, vp, &pr->p));
    break;
  }
  case 2: {
    dt_traction *t = &s->traction[s->n_traction++];
    DT_TRY(find_surface(jp, v, path, &t->surface));
    DT_TRY(dt_jp_vector(jp, val, vp, t->t));
    break;
  }
  default: {
    dt_body_force *b = &s->body[s->n_body++];
    DT_TRY(find_elset(jp, v, path, &b->elset));
    DT_TRY(dt_jp_vector(jp, val, vp, b->b));
    break;
  }
  }
cleanup:
  return rc;
}

static dt_status parse_loads(dt_jp *jp, const json_t *step, const char *spath, dt_step *s) {
  dt_status rc = DT_OK;
  json_t *arr = NULL;
  char path[DT_JPATH_MAX], p[DT_JPATH_MAX], tp[DT_JPATH_MAX];
  int n = 0, count[5] = {0}, *types = NULL;

  DT_TRY(dt_jp_member(jp, step, spath, "loads", 0, &arr));
  if (!arr) goto cleanup;
  dt_jp_key(path, spath, "loads");
  DT_TRY(dt_jp_array(jp, arr, path, 0, 1000000, &n));
  DT_ALLOC(types, n, jp->ctx, "load types");
  for (int i = 0; i < n; i++) {
    const json_t *ld = json_array_get(arr, (size_t)i);
    dt_jp_index(p, path, (size_t)i);
    DT_JCHECK(json_is_object(ld), jp, p, "expected an object, got %s", dt_jp_type_name(ld));
    DT_TRY(dt_jp_get_keyword(jp, ld, p, "type", 1, load_types, &types[i]));
    dt_jp_key(tp, p, "type");
    DT_JCHECK(s->procedure == DT_PROC_STATIC || types[i] <= 1, jp, tp,
              "explicit steps take forces and pressures; %s loads are not supported there yet",
              load_types[types[i]]);
    count[types[i]]++;
  }
  DT_ALLOC(s->cload, count[0], jp->ctx, "forces");
  DT_ALLOC(s->pressure, count[1], jp->ctx, "pressures");
  DT_ALLOC(s->traction, count[2], jp->ctx, "tractions");
  DT_ALLOC(s->body, count[3] + count[4], jp->ctx, "body forces");
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_load(jp, json_array_get(arr, (size_t)i), p, types[i], s));
  }
cleanup:
  dt_free(types);
  return rc;
}

/* "procedure" (default static), then "increments" (static steps) or "explicit" (the controls of
 * an explicit step, required there). */
static dt_status parse_procedure(dt_jp *jp, const json_t *v, const char *path, dt_step *s) {
  dt_status rc = DT_OK;
  json_t *inc = NULL, *x = NULL;
  char p[DT_JPATH_MAX];
  int proc = 0;

  DT_TRY(dt_jp_get_keyword(jp, v, path, "procedure", 0, procedures, &proc));
  s->procedure = (dt_procedure)proc;
  DT_TRY(dt_jp_member(jp, v, path, "increments", 0, &inc));
  DT_TRY(dt_jp_member(jp, v, path, "explicit", s->procedure == DT_PROC_EXPLICIT, &x));
  dt_jp_key(p, path, "increments");
  DT_JCHECK(!inc || s->procedure == DT_PROC_STATIC, jp, p,
            "applies to static steps (an explicit step's time steps follow from \"explicit\")");
  if (inc) DT_TRY(parse_increments(jp, inc, p, s));
  dt_jp_key(p, path, "explicit");
  DT_JCHECK(!x || s->procedure == DT_PROC_EXPLICIT, jp, p,
            "applies to explicit steps (\"procedure\": \"explicit\")");
  if (x) DT_TRY(dt_jp_explicit(jp, x, p, &s->explicit_));
cleanup:
  return rc;
}

static dt_status parse_step(dt_jp *jp, const json_t *v, const char *path, int i, dt_step *s) {
  dt_status rc = DT_OK;

  DT_TRY(dt_jp_object(jp, v, path, step_keys));
  snprintf(s->name, DT_NAME_MAX, "step-%d", i + 1);
  DT_TRY(dt_jp_get_name(jp, v, path, "name", 0, s->name));
  DT_TRY(parse_procedure(jp, v, path, s));
  DT_TRY(parse_boundary(jp, v, path, s));
  DT_TRY(parse_loads(jp, v, path, s));
cleanup:
  return rc;
}

dt_status dt_jp_steps(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  char p[DT_JPATH_MAX], tp[DT_JPATH_MAX];
  int n = 0;

  DT_JCHECK(json_is_array(v), jp, path, "expected an array, got %s", dt_jp_type_name(v));
  DT_JCHECK(json_array_size(v) > 0, jp, path, "must not be empty: a job needs at least one step");
  DT_TRY(dt_jp_array(jp, v, path, 1, 100000, &n));
  DT_ALLOC(m->steps, n, jp->ctx, "steps");
  m->n_steps = n;
  for (int i = 0; i < n; i++) dt_step_default(&m->steps[i]);
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_step(jp, json_array_get(v, (size_t)i), p, i, &m->steps[i]));
    dt_jp_key(tp, p, "procedure");
    DT_JCHECK(m->steps[i].procedure == m->steps[0].procedure, jp, tp,
              "steps[0] is %s: a job's steps are all static or all explicit",
              procedures[m->steps[0].procedure]);
    for (int j = 0; j < i; j++)
      DT_JCHECK(strcmp(m->steps[j].name, m->steps[i].name) != 0, jp, p,
                "duplicate step name \"%s\"", m->steps[i].name);
  }
cleanup:
  return rc;
}
