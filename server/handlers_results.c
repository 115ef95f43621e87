/* /v1/jobs/{id}/results...: the solver's summary.json, history.csv, the per-increment fields
 * (JSON written by the worker) and VTU files (binary appended VTK XML), all under
 * <data>/jobs/<id>/out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "handlers.h"
#include "store.h"
#include "store_jobs.h"

/* The job must exist; returns its state in state, or replies and returns -1. */
static int job_or_reply(dt_req *r, char *state, size_t len) {
  int rc;
  if (dt_id_or_reply(r, r->param[0], 'j', "job")) return -1;
  rc = dt_job_state(r->param[0], state, len);
  if (rc == DT_STORE_NOTFOUND) dt_reply_error(r, 404, "not_found", NULL, "no job with this id");
  else if (rc) dt_reply_store_error(r);
  return rc ? -1 : 0;
}

static void out_path(dt_req *r, char *path, size_t len, const char *file) {
  snprintf(path, len, "%s/jobs/%s/out/%s", r->srv->data_dir, r->param[0], file);
}

void dt_h_result_summary(dt_req *r) {
  char state[16], path[4300];
  FILE *f;
  if (job_or_reply(r, state, sizeof state)) return;
  out_path(r, path, sizeof path, "summary.json");
  f = fopen(path, "r");
  if (!f && (!strcmp(state, "queued") || !strcmp(state, "running"))) {
    dt_reply_error(r, 409, "not_ready", json_pack("{s:s}", "state", state),
                   "the summary is written when the job ends (state: %s)", state);
    return;
  }
  if (f) fclose(f);
  dt_reply_file(r, path, "application/json", NULL);
}

void dt_h_result_history(dt_req *r) {
  char state[16], path[4300], name[160];
  if (job_or_reply(r, state, sizeof state)) return;
  out_path(r, path, sizeof path, "history.csv");
  snprintf(name, sizeof name, "%s-history.csv", r->param[0]);
  dt_reply_file(r, path, "text/csv; charset=utf-8", name);
}

void dt_h_result_increments(dt_req *r) {
  char state[16];
  json_t *items;
  if (job_or_reply(r, state, sizeof state)) return;
  if (dt_job_increments(r->param[0], &items)) dt_reply_store_error(r);
  else dt_reply_json(r, 200, json_pack("{s:o}", "items", items));
}

/* Whether job_id is running and has announced increment n converged (progress
 * increments_completed). */
static int announced_running(const char *job_id, int n) {
  json_t *j = NULL;
  const char *state;
  int yes;
  if (dt_job_get(job_id, &j) != DT_STORE_OK) return 0;
  state = json_string_value(json_object_get(j, "state"));
  yes = state && !strcmp(state, "running") &&
        json_integer_value(json_object_get(json_object_get(j, "progress"), "increments_completed")) >= n;
  json_decref(j);
  return yes;
}

/* The worker records an increment once its fields file is in place, from its writer thread
 * (worker_fields_queue.h): a moment, or an increment or two, after the job announced it
 * converged. For an announced increment of a running job, wait for the row up to ROW_WAIT_MS
 * rather than answer 404; the worker records every row before the job ends, so once the job
 * stopped one last look decides. Returns dt_job_increment_exists' code. */
#define ROW_WAIT_MS 30000
static int increment_wait(dt_req *r, int n, int *has_vtu) {
  const struct timespec step = {0, 20 * 1000000L};
  char state[16];
  int rc = dt_job_increment_exists(r->param[0], n, has_vtu);
  if (rc != DT_STORE_NOTFOUND || !announced_running(r->param[0], n)) return rc;
  for (int waited = 0; waited < ROW_WAIT_MS && rc == DT_STORE_NOTFOUND; waited += 20) {
    if (dt_job_state(r->param[0], state, sizeof state) || strcmp(state, "running") != 0)
      return dt_job_increment_exists(r->param[0], n, has_vtu);
    nanosleep(&step, NULL);
    rc = dt_job_increment_exists(r->param[0], n, has_vtu);
  }
  return rc;
}

/* The increment number n (path parameter) with results, or reply 404; has_vtu set. */
static int increment_or_reply(dt_req *r, int *n, int *has_vtu) {
  long long v;
  int rc;
  if (dt_parse_count(r->param[1], 1, 1000000000, &v)) {
    dt_reply_error(r, 404, "not_found", NULL, "no increment %.32s: increments are numbered 1, 2, ...", r->param[1]);
    return -1;
  }
  rc = increment_wait(r, (int)v, has_vtu);
  if (rc == DT_STORE_NOTFOUND) dt_reply_error(r, 404, "not_found", NULL, "the job has no results for increment %lld", v);
  else if (rc) dt_reply_store_error(r);
  *n = (int)v;
  return rc ? -1 : 0;
}

static const char *const FIELD_NAMES[] = {"U", "RF", "S", "E", "PEEQ", "MISES", NULL};

/* ?fields=U,S keeps only those fields. */
static int filter_fields(dt_req *r, json_t *o) {
  const char *want = dt_req_query(r, "fields");
  char buf[128], *save = NULL, *tok;
  int keep[6] = {0};
  if (!want) return 0;
  snprintf(buf, sizeof buf, "%s", want);
  for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int i = 0; FIELD_NAMES[i]; i++)
      if (!strcmp(tok, FIELD_NAMES[i])) keep[i] = found = 1;
    if (!found) {
      dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "fields"),
                     "fields: expected a comma-separated list of U, RF, S, E, PEEQ, MISES");
      return -1;
    }
  }
  for (int i = 0; FIELD_NAMES[i]; i++)
    if (!keep[i]) json_object_del(o, FIELD_NAMES[i]);
  return 0;
}

void dt_h_result_fields(dt_req *r) {
  static const char *const allowed[] = {"fields", NULL};
  char state[16], path[4300], file[64];
  int n, has_vtu;
  json_t *o;
  if (dt_req_query_allowed_or_reply(r, allowed) || job_or_reply(r, state, sizeof state) ||
      increment_or_reply(r, &n, &has_vtu))
    return;
  snprintf(file, sizeof file, "fields_%04d.json", n);
  out_path(r, path, sizeof path, file);
  if (!dt_req_query(r, "fields")) {
    dt_reply_file(r, path, "application/json", NULL);
    return;
  }
  o = json_load_file(path, 0, NULL);
  if (!o) {
    dt_reply_error(r, 404, "not_found", NULL, "the fields of increment %d are not available", n);
    return;
  }
  if (filter_fields(r, o)) {
    json_decref(o);
    return;
  }
  dt_reply_json(r, 200, o);
}

/* The solver writes VTUs in a background thread (solver/io/output.h): the worker records an
 * increment with its VTU once the write is queued, and the file appears, complete, a moment
 * later. Wait for it while the job is running, up to VTU_WAIT_MS; afterwards (or for a job
 * that stopped) a missing file is "not available". */
#define VTU_WAIT_MS 30000
static void wait_for_vtu(dt_req *r, const char *path) {
  const struct timespec step = {0, 50 * 1000000L};
  char state[16];
  struct stat sb;
  for (int waited = 0; waited < VTU_WAIT_MS && stat(path, &sb) != 0; waited += 50) {
    if (dt_job_state(r->param[0], state, sizeof state) || strcmp(state, "running") != 0) return;
    nanosleep(&step, NULL);
  }
}

void dt_h_result_vtu(dt_req *r) {
  char state[16], path[4300], file[64], name[200];
  int n, has_vtu;
  if (job_or_reply(r, state, sizeof state) || increment_or_reply(r, &n, &has_vtu)) return;
  if (!has_vtu) {
    dt_reply_error(r, 404, "not_found", NULL, "no VTU was written for increment %d (see output.vtu and output.every)", n);
    return;
  }
  snprintf(file, sizeof file, "increment_%04d.vtu", n);
  out_path(r, path, sizeof path, file);
  snprintf(name, sizeof name, "%s-increment_%04d.vtu", r->param[0], n);
  wait_for_vtu(r, path);
  /* binary appended VTK XML (solver/io/output_vtu.c) */
  dt_reply_file(r, path, "application/vnd.vtk.vtu+xml", name);
}
