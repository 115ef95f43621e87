/* summary.json: what the run did, its history, and the node-set reactions of the last
 * increment. Built as a Jansson tree and dumped once at the end; JSON has no NaN/Inf, so
 * non-finite numbers become null rather than making the whole document invalid. */
#include "io/output_internal.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

/* Set key to a new value, tolerating a NULL value (out of memory) via the error flag. */
static void put(json_t *obj, const char *key, json_t *v, int *err) {
  if (v == NULL || json_object_set_new(obj, key, v) != 0) *err = 1;
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *vec3(const double *v) {
  json_t *a = json_array();
  int i;
  for (i = 0; a && i < 3; i++)
    if (json_array_append_new(a, num(v[i])) != 0) {
      json_decref(a);
      return NULL;
    }
  return a;
}

/* What the Newton driver's robustness measures did (newton.c). */
static json_t *nonlinear(const dt_run_summary *s, int *err) {
  json_t *o = json_object();
  if (!o) return *err = 1, NULL;
  put(o, "linear_predictors", json_integer(s->predictor_solves), err);
  put(o, "inexact_solves", json_integer(s->inexact_solves), err);
  put(o, "preconditioner_escalations", json_integer(s->pc_escalations), err);
  put(o, "preconditioner_setups_kept", json_integer(s->pc_setups_kept), err);
  put(o, "preconditioner_auto_switches", json_integer(s->pc_auto_switches), err);
  if (s->pc_final >= 0) /* the implicit driver's (explicit runs have none) */
    put(o, "preconditioner_at_end", json_string(dt_precond_names[s->pc_final]), err);
  put(o, "line_searches", json_integer(s->line_searches), err);
  put(o, "linear_solves", json_integer(s->pcg_solves), err);
  put(o, "pcg_per_solve_median", json_integer(s->pcg_median), err);
  put(o, "pcg_per_solve_max", json_integer(s->pcg_max), err);
  return o;
}

/* The background writer's seconds on each kind of file, which it spends beside the solver,
 * and the seconds the run waited for it (a part of "output": the writer fell behind, or the
 * last increment's files at the end). */
static json_t *output_files(const dt_output *o, int *err) {
  json_t *w = json_object();
  if (w == NULL) {
    *err = 1;
    return NULL;
  }
  put(w, "vtu", num(o->q.busy[DT_WRITE_VTU]), err);
  put(w, "dat", num(o->q.busy[DT_WRITE_DAT]), err);
  put(w, "frd", num(o->q.busy[DT_WRITE_FRD]), err);
  put(w, "waited", num(o->q.waited), err);
  return w;
}

static json_t *timings(const dt_output *o, const dt_run_summary *s, int *err) {
  json_t *t = json_object();
  if (t == NULL) {
    *err = 1;
    return NULL;
  }
  put(t, "total", num(s->seconds_total), err);
  put(t, "setup", num(s->seconds_setup), err);
  put(t, "assembly", num(s->seconds_assembly), err);
  put(t, "stress", num(s->seconds_stress), err);
  put(t, "solver", num(s->seconds_solver), err);
  put(t, "preconditioner_setup", num(s->seconds_pc_setup), err);
  put(t, "output", num(s->seconds_output), err);
  put(t, "output_download", num(s->seconds_output_download), err);
  put(t, "output_files", output_files(o, err), err);
  put(t, "loads", num(s->seconds_loads), err);
  /* how many calls the assembly and stress times cover (per-call costs for benchmarks) */
  put(t, "assembly_calls", json_integer(s->assembly_calls), err);
  put(t, "stress_calls", json_integer(s->stress_calls), err);
  return t;
}

static json_t *history_row(const dt_history_row *r, const dt_model *m, int *err) {
  json_t *o = json_object(), *mon = json_object();
  int i;
  if (o == NULL || mon == NULL) {
    json_decref(o);
    json_decref(mon);
    *err = 1;
    return NULL;
  }
  put(o, "step", json_integer(r->step + 1), err);
  put(o, "increment", json_integer(r->increment), err);
  put(o, "time", num(r->time), err);
  put(o, "load_factor", num(r->load_factor), err);
  put(o, "newton_iterations", json_integer(r->newton_iters), err);
  put(o, "pcg_iterations", json_integer(r->pcg_iters), err);
  put(o, "residual", num(r->residual), err);
  put(o, "cutbacks", json_integer(r->cutbacks), err);
  put(o, "plastic_points", json_integer(r->n_plastic_qp), err);
  for (i = 0; i < r->n_monitors && i < m->output.n_monitors; i++)
    put(mon, m->output.monitors[i].name, num(r->monitor[i]), err);
  put(o, "monitors", mon, err);
  return o;
}

static json_t *increments(const dt_output *o, const dt_model *m, int *err) {
  json_t *a = json_array();
  int i;
  if (a == NULL) *err = 1;
  for (i = 0; a && i < o->n_rows; i++) {
    json_t *r = history_row(&o->rows[i], m, err);
    if (r == NULL || json_array_append_new(a, r) != 0) *err = 1;
  }
  return a;
}

/* {name: {"RF": [x,y,z] | null, "U_mean": [x,y,z] | null}} of the last increment. */
static json_t *node_sets(const dt_output *o, const dt_model *m, int *err) {
  json_t *all = json_object();
  int i;
  if (all == NULL) *err = 1;
  for (i = 0; all && i < o->n_sets && i < m->n_nsets; i++) {
    json_t *s = json_object();
    if (s == NULL) {
      *err = 1;
      break;
    }
    put(s, "n_nodes", json_integer(m->nsets[i].n), err);
    put(s, "RF", o->have_rf ? vec3(o->set_rf + 3 * i) : json_null(), err);
    put(s, "U_mean", o->have_u && m->nsets[i].n > 0 ? vec3(o->set_u + 3 * i) : json_null(), err);
    put(all, m->nsets[i].name, s, err);
  }
  return all;
}

static json_t *files(const dt_output *o, int *err) {
  json_t *f = json_object(), *vtu = json_array();
  int i;
  if (f == NULL || vtu == NULL) {
    json_decref(f);
    json_decref(vtu);
    *err = 1;
    return NULL;
  }
  put(f, "history", json_string("history.csv"), err);
  put(f, "collection", o->n_vtu > 0 ? json_string("results.pvd") : json_null(), err);
  for (i = 0; i < o->n_vtu; i++)
    if (json_array_append_new(vtu, json_string(o->vtu[i].file)) != 0) *err = 1;
  put(f, "vtu", vtu, err);
  /* the .frd's name follows the job's (dt_output_open): clients read it here */
  put(f, "frd",
      o->frd.on && o->frd.end > 0 ? json_string(strrchr(o->frd.path, '/') + 1) : json_null(), err);
  return f;
}

static json_t *summary_build(const dt_output *o, const dt_model *m, const dt_run_summary *s,
                             int *err) {
  json_t *j = json_object();
  if (j == NULL) {
    *err = 1;
    return NULL;
  }
  put(j, "format_version", json_integer(DT_OUTPUT_FORMAT_VERSION), err);
  put(j, "title", json_string(m->title), err);
  put(j, "completed", json_boolean(s->completed), err);
  put(j, "reason", json_string(dt_reason_name(s->reason)), err);
  put(j, "message", json_string(s->message), err);
  put(j, "backend", json_string(s->backend), err);
  put(j, "steps_completed", json_integer(s->steps_completed), err);
  put(j, "increments", increments(o, m, err), err);
  put(j, "n_increments", json_integer(s->increments), err);
  put(j, "cutbacks", json_integer(s->cutbacks), err);
  put(j, "newton_iterations", json_integer(s->newton_iters), err);
  put(j, "pcg_iterations", json_integer(s->pcg_iters), err);
  put(j, "last_time", num(s->last_time), err);
  put(j, "nonlinear", nonlinear(s, err), err);
  put(j, "timings", timings(o, s, err), err);
  if (s->time_steps > 0) { /* explicit steps */
    json_t *x = json_object();
    put(x, "time_steps", json_integer(s->time_steps), err);
    put(x, "time_step", num(s->time_step), err);
    put(x, "energy_balance", num(s->energy_balance), err);
    put(j, "explicit", x, err);
  }
  put(j, "max_u", num(s->max_u), err);
  put(j, "max_mises", num(s->max_mises), err);
  put(j, "max_peeq", num(s->max_peeq), err);
  put(j, "node_sets", node_sets(o, m, err), err);
  put(j, "files", files(o, err), err);
  return j;
}

dt_status dt_summary_write(const char *path, const dt_output *o, const dt_model *m,
                           const dt_run_summary *s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int err = 0;
  json_t *j = summary_build(o, m, s, &err);
  char *tmp = NULL;
  /* Jansson rejects strings that are not UTF-8; a title or message from a user file may be
   * Latin-1, which shows up here as a failed json_string (err) too. */
  DT_CHECK(j != NULL && !err, ctx, DT_ERR_NOMEM,
           "cannot build summary.json (out of memory, or a title/message/name not UTF-8)");
  DT_ALLOC(tmp, strlen(path) + 5, ctx, "a temporary file name");
  snprintf(tmp, strlen(path) + 5, "%s.tmp", path);
  errno = 0;
  DT_CHECK(json_dump_file(j, tmp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) == 0, ctx, DT_ERR_IO,
           "cannot write '%s': %s", tmp, errno ? strerror(errno) : "write error");
  if (rename(tmp, path) != 0) {
    rc = DT_ERROR(ctx, DT_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    remove(tmp);
  }
cleanup:
  dt_free(tmp);
  json_decref(j);
  return rc;
}
