/* "solver" (Newton and linear solver settings, backend options) and "output" (fields, VTU,
 * monitors).
 *
 * Every field is optional; the model already holds the defaults (dt_model_create), so a
 * missing field keeps its default. */
#include <string.h>

#include "job_json_internal.h"

static const char *const solver_keys[] = {"newton", "linear", "backend_options", NULL};
static const char *const newton_keys[] = {"max_iterations", "force_tolerance",
                                          "displacement_tolerance", "acceleration", NULL};
static const char *const linear_keys[] = {
    "method", "preconditioner", "tolerance", "forcing", "max_iterations", "operator", NULL};
static const char *const methods[] = {"pcg", NULL};
static const char *const operators[] = {"assembled", "matrix_free",
                                        NULL}; /* dt_solver_options.matrix_free */
static const char *const backend_keys[] = {"elements", "tangent", NULL};

static dt_status check_tolerance(dt_jp *jp, const char *path, const char *key, double x,
                                 int zero_ok) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];

  dt_jp_key(p, path, key);
  DT_JCHECK((zero_ok ? x >= 0 : x > 0) && x < 1, jp, p, "must be %s and < 1 (got %g)",
            zero_ok ? ">= 0" : "> 0", x);
cleanup:
  return rc;
}

dt_status dt_jp_solver(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  dt_solver_options *o = &jp->m->solver;
  json_t *nw = NULL, *lin = NULL, *bk = NULL;
  char p[DT_JPATH_MAX];
  int method = 0, pc = (int)o->precond, forcing = (int)o->forcing, accel = (int)o->accel;

  DT_TRY(dt_jp_object(jp, v, path, solver_keys));
  DT_TRY(dt_jp_member(jp, v, path, "newton", 0, &nw));
  if (nw) {
    dt_jp_key(p, path, "newton");
    DT_TRY(dt_jp_object(jp, nw, p, newton_keys));
    DT_TRY(dt_jp_get_int(jp, nw, p, "max_iterations", 0, 1, 10000, &o->newton_max_iter));
    DT_TRY(dt_jp_get_number(jp, nw, p, "force_tolerance", 0, &o->newton_rtol));
    DT_TRY(check_tolerance(jp, p, "force_tolerance", o->newton_rtol, 0));
    DT_TRY(dt_jp_get_number(jp, nw, p, "displacement_tolerance", 0, &o->newton_dtol));
    DT_TRY(check_tolerance(jp, p, "displacement_tolerance", o->newton_dtol, 1));
    DT_TRY(dt_jp_get_keyword(jp, nw, p, "acceleration", 0, dt_accel_names, &accel));
    o->accel = (dt_newton_accel)accel;
  }
  DT_TRY(dt_jp_member(jp, v, path, "linear", 0, &lin));
  if (lin) {
    dt_jp_key(p, path, "linear");
    DT_TRY(dt_jp_object(jp, lin, p, linear_keys));
    DT_TRY(dt_jp_get_keyword(jp, lin, p, "method", 0, methods, &method));
    DT_TRY(dt_jp_get_keyword(jp, lin, p, "preconditioner", 0, dt_precond_names, &pc));
    o->precond = (dt_precond_kind)pc;
    DT_TRY(dt_jp_get_number(jp, lin, p, "tolerance", 0, &o->pcg_rtol));
    DT_TRY(check_tolerance(jp, p, "tolerance", o->pcg_rtol, 0));
    DT_TRY(dt_jp_get_keyword(jp, lin, p, "forcing", 0, dt_forcing_names, &forcing));
    o->forcing = (dt_forcing_kind)forcing;
    DT_TRY(dt_jp_get_int(jp, lin, p, "max_iterations", 0, 1, 100000000, &o->pcg_max_iter));
    DT_TRY(dt_jp_get_keyword(jp, lin, p, "operator", 0, operators, &o->matrix_free));
  }
  DT_TRY(dt_jp_member(jp, v, path, "backend_options", 0, &bk));
  if (bk) { /* kernel variants of the CUDA backend (backend.h); other backends ignore them */
    dt_jp_key(p, path, "backend_options");
    DT_TRY(dt_jp_object(jp, bk, p, backend_keys));
    DT_TRY(dt_jp_get_keyword(jp, bk, p, "elements", 0, dt_cuda_elements_names, &o->cuda_elements));
    DT_TRY(dt_jp_get_keyword(jp, bk, p, "tangent", 0, dt_cuda_tangent_names, &o->cuda_tangent));
  }
cleanup:
  return rc;
}

static const char *const output_keys[] = {"fields", "vtu",      "frd", "points",
                                          "every",  "monitors", NULL};
static const char *const field_names[] = {"U",    "RF",    "S", "E",
                                          "PEEQ", "MISES", NULL}; /* DT_OUT_* bit order */
static const char *const monitor_keys[] = {"name", "node_set", "quantity", "component", NULL};
static const char *const quantities[] = {"U", "RF", NULL}; /* dt_monitor_kind order */
static const char *const axes[] = {"x", "y", "z", NULL};

static dt_status parse_fields(dt_jp *jp, const json_t *v, const char *path, unsigned *fields) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int n = 0, f = 0;

  DT_TRY(dt_jp_array(jp, v, path, 0, 64, &n));
  *fields = 0;
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(dt_jp_keyword(jp, json_array_get(v, (size_t)i), p, field_names, &f));
    *fields |= 1u << f;
  }
cleanup:
  return rc;
}

static dt_status parse_monitor(dt_jp *jp, const json_t *v, const char *path, int i,
                               dt_monitor *mon) {
  dt_status rc = DT_OK;
  const dt_model *m = jp->m;
  char set[DT_NAME_MAX], p[DT_JPATH_MAX];
  int q = 0;

  DT_TRY(dt_jp_object(jp, v, path, monitor_keys));
  DT_TRY(dt_jp_get_name(jp, v, path, "name", 1, mon->name));
  for (int j = 0; j < i; j++)
    DT_JCHECK(strcmp(m->output.monitors[j].name, mon->name) != 0, jp, path,
              "duplicate monitor name \"%s\"", mon->name);
  DT_TRY(dt_jp_get_name(jp, v, path, "node_set", 1, set));
  mon->nset = dt_model_find_nset(m, set);
  dt_jp_key(p, path, "node_set");
  DT_JCHECK(mon->nset >= 0, jp, p, "unknown node set \"%s\"", set);
  DT_TRY(dt_jp_get_keyword(jp, v, path, "quantity", 1, quantities, &q));
  mon->kind = (dt_monitor_kind)q;
  DT_TRY(dt_jp_get_keyword(jp, v, path, "component", 1, axes, &mon->dof));
  dt_jp_key(p, path, "component");
  DT_JCHECK(mon->dof < m->dim, jp, p, "z is not a component of a 2D model");
cleanup:
  return rc;
}

dt_status dt_jp_output(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  dt_output_options *out = &jp->m->output;
  json_t *f = NULL, *mons = NULL;
  char p[DT_JPATH_MAX];
  int n = 0;

  DT_TRY(dt_jp_object(jp, v, path, output_keys));
  DT_TRY(dt_jp_member(jp, v, path, "fields", 0, &f));
  dt_jp_key(p, path, "fields");
  if (f) DT_TRY(parse_fields(jp, f, p, &out->fields));
  DT_TRY(dt_jp_get_bool(jp, v, path, "vtu", 0, &out->vtu));
  DT_TRY(dt_jp_get_bool(jp, v, path, "frd", 0, &out->frd));
  DT_TRY(dt_jp_get_bool(jp, v, path, "points", 0, &out->points));
  DT_TRY(dt_jp_get_int(jp, v, path, "every", 0, 1, 1000000000, &out->every));
  DT_TRY(dt_jp_member(jp, v, path, "monitors", 0, &mons));
  if (!mons) goto cleanup;
  dt_jp_key(p, path, "monitors");
  DT_TRY(dt_jp_array(jp, mons, p, 0, 10000, &n));
  DT_ALLOC(out->monitors, n, jp->ctx, "monitors");
  for (int i = 0; i < n; i++) {
    char mp[DT_JPATH_MAX];
    dt_jp_index(mp, p, (size_t)i);
    out->n_monitors = i + 1;
    DT_TRY(parse_monitor(jp, json_array_get(mons, (size_t)i), mp, i, &out->monitors[i]));
  }
cleanup:
  return rc;
}
