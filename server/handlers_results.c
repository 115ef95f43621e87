/* /v1/jobs/{id}/results...: the solver's summary.json, history.csv, energy.csv (explicit runs),
 * the per-increment fields (JSON written by the worker) and VTU files (binary appended VTK XML),
 * all in the out/ of the job's attempt that holds its results (job_dirs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "handlers.h"
#include "job_dirs.h"
#include "store.h"
#include "store_jobs.h"

/* The job named by the path must exist and be the caller's (an admin's: anyone's): its state
 * into state, or 404, the same for another user's job as for a missing one. The handlers below
 * read the job's files and rows only after this. */
static dt_status job_or_reply(dt_req *r, char *state, size_t len, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_outcome found;
  DT_TRY(dt_id_or_reply(r, r->param[0], 'j', "job"));
  DT_TRY(dt_job_state(r->param[0], dt_principal_owner(&r->who), state, len, &found, ctx));
  if (found == DT_DONE) goto cleanup;
  dt_reply_not_found(r, "job");
  rc = DT_ERR_INPUT;
cleanup:
  return rc;
}

/* The path of file among the job's results: in the out/ of the attempt the store names
 * (results_attempt), looked up for each file served, since a later attempt may take the results
 * over while a request waits; never the directory of an attempt whose run lost the job. */
static dt_status out_path(dt_req *r, const char *file, char *path, size_t len, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char dir[4200];
  int attempt = 0;
  DT_TRY(dt_job_results_attempt(r->param[0], &attempt, ctx));
  dt_job_dir(dir, sizeof dir, r->srv->data_dir, r->param[0], attempt);
  snprintf(path, len, "%s/out/%s", dir, file);
cleanup:
  return rc;
}

void dt_h_result_summary(dt_req *r) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  char state[16], path[4300];
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(job_or_reply(r, state, sizeof state, &ctx));
  DT_TRY(out_path(r, "summary.json", path, sizeof path, &ctx));
  if (access(path, F_OK) != 0 && dt_job_active(state))
    dt_reply_error(r, 409, "not_ready", json_pack("{s:s}", "state", state),
                   "the summary is written when the job ends (state: %s)", state);
  else
    dt_reply_file(r, path, "application/json", NULL);
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

/* A CSV file the solver appends a row to per converged increment (or explicit frame), flushed
 * row by row: served as it is while the job runs, downloaded as <id>-<file>; 404 while the
 * solver has not created it, and for a job that writes none (energy.csv: explicit runs only). */
static void growing_csv(dt_req *r, const char *file) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  char state[16], path[4300], name[160];
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(job_or_reply(r, state, sizeof state, &ctx));
  DT_TRY(out_path(r, file, path, sizeof path, &ctx));
  snprintf(name, sizeof name, "%s-%s", r->param[0], file);
  dt_reply_file(r, path, "text/csv; charset=utf-8", name);
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

void dt_h_result_history(dt_req *r) { growing_csv(r, "history.csv"); }

void dt_h_result_energy(dt_req *r) { growing_csv(r, "energy.csv"); }

void dt_h_result_increments(dt_req *r) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  char state[16];
  json_t *items = NULL;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(job_or_reply(r, state, sizeof state, &ctx));
  DT_TRY(dt_job_increments(r->param[0], &items, &ctx));
  dt_reply_json(r, 200, json_pack("{s:o}", "items", items));
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

/* Whether job_id is running and has announced increment n converged (progress
 * increments_completed). A store failure answers no: the caller looks once, without waiting. */
static int announced_running(const char *job_id, int n) {
  json_t *j = NULL;
  const char *state;
  dt_outcome found;
  int yes;
  if (dt_job_get(job_id, DT_ANY_OWNER, &j, &found, NULL) != DT_OK || found != DT_DONE) return 0;
  state = json_string_value(json_object_get(j, "state"));
  yes = state && !strcmp(state, "running") &&
        json_integer_value(
            json_object_get(json_object_get(j, "progress"), "increments_completed")) >= n;
  json_decref(j);
  return yes;
}

/* Whether the job is running; a store failure answers no (the caller stops waiting). */
static int still_running(const char *job_id) {
  char state[16];
  dt_outcome found;
  return dt_job_state(job_id, DT_ANY_OWNER, state, sizeof state, &found, NULL) == DT_OK &&
         found == DT_DONE && !strcmp(state, "running");
}

/* The worker records an increment once its fields file is in place, from its writer thread
 * (worker_fields_queue.h): a moment, or an increment or two, after the job announced it
 * converged. For an announced increment of a running job, wait for the row up to ROW_WAIT_MS
 * rather than answer 404; the worker records every row before the job ends, so once the job
 * stopped one last look decides. */
#define ROW_WAIT_MS 30000
static dt_status increment_wait(dt_req *r, int n, int *has_vtu, dt_outcome *found, dt_ctx *ctx) {
  const struct timespec step = {0, 20 * 1000000L};
  dt_status rc = DT_OK;
  DT_TRY(dt_job_increment_exists(r->param[0], n, has_vtu, found, ctx));
  if (*found == DT_DONE || !announced_running(r->param[0], n)) goto cleanup;
  for (int waited = 0; waited < ROW_WAIT_MS && *found == DT_NOT_FOUND && still_running(r->param[0]);
       waited += 20) {
    nanosleep(&step, NULL);
    DT_TRY(dt_job_increment_exists(r->param[0], n, has_vtu, found, ctx));
  }
  if (*found == DT_NOT_FOUND) DT_TRY(dt_job_increment_exists(r->param[0], n, has_vtu, found, ctx));
cleanup:
  return rc;
}

/* The increment number n (path parameter) with results, or 404; has_vtu set. */
static dt_status increment_or_reply(dt_req *r, int *n, int *has_vtu, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_outcome found;
  long long v;
  if (dt_parse_count(r->param[1], 1, 1000000000, &v) != 0) {
    dt_reply_error(r, 404, "not_found", NULL,
                   "no increment %.32s: increments are numbered 1, 2, ...", r->param[1]);
    return DT_ERR_INPUT;
  }
  *n = (int)v;
  DT_TRY(increment_wait(r, *n, has_vtu, &found, ctx));
  if (found == DT_DONE) goto cleanup;
  dt_reply_error(r, 404, "not_found", NULL, "the job has no results for increment %lld", v);
  rc = DT_ERR_INPUT;
cleanup:
  return rc;
}

static const char *const FIELD_NAMES[] = {"U", "RF", "S", "E", "PEEQ", "MISES", NULL};

/* ?fields=U,S keeps only those fields of o. */
static dt_status filter_fields_or_reply(dt_req *r, json_t *o) {
  const char *want = dt_req_query(r, "fields");
  char buf[128], *save = NULL, *tok;
  int keep[6] = {0};
  if (!want) return DT_OK;
  snprintf(buf, sizeof buf, "%s", want);
  for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int i = 0; FIELD_NAMES[i]; i++)
      if (!strcmp(tok, FIELD_NAMES[i])) keep[i] = found = 1;
    if (!found) {
      dt_reply_invalid_parameter(
          r, "fields", "fields: expected a comma-separated list of U, RF, S, E, PEEQ, MISES");
      return DT_ERR_INPUT;
    }
  }
  for (int i = 0; FIELD_NAMES[i]; i++)
    if (!keep[i]) json_object_del(o, FIELD_NAMES[i]);
  return DT_OK;
}

void dt_h_result_fields(dt_req *r) {
  static const char *const allowed[] = {"fields", NULL};
  dt_status rc = DT_OK;
  dt_ctx ctx;
  char state[16], path[4300], file[64];
  int n, has_vtu;
  json_t *o = NULL;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_req_query_allowed_or_reply(r, allowed));
  DT_TRY(job_or_reply(r, state, sizeof state, &ctx));
  DT_TRY(increment_or_reply(r, &n, &has_vtu, &ctx));
  snprintf(file, sizeof file, "fields_%04d.json", n);
  DT_TRY(out_path(r, file, path, sizeof path, &ctx));
  if (!dt_req_query(r, "fields")) {
    dt_reply_file(r, path, "application/json", NULL);
    goto cleanup;
  }
  o = json_load_file(path, 0, NULL);
  if (!o) {
    dt_reply_error(r, 404, "not_found", NULL, "the fields of increment %d are not available", n);
    goto cleanup;
  }
  DT_TRY(filter_fields_or_reply(r, o));
  dt_reply_json(r, 200, o);
  o = NULL;
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
  json_decref(o);
}

/* The solver writes VTUs in a background thread (solver/io/output.h): the worker records an
 * increment with its VTU once the write is queued, and the file appears, complete, a moment
 * later. Wait for it while the job is running, up to VTU_WAIT_MS; afterwards (or for a job
 * that stopped) a missing file is "not available". path (len bytes) receives the file's path,
 * looked up again as the wait goes on (out_path). */
#define VTU_WAIT_MS 30000
static dt_status wait_for_vtu(dt_req *r, const char *file, char *path, size_t len, dt_ctx *ctx) {
  const struct timespec step = {0, 50 * 1000000L};
  dt_status rc = DT_OK;
  struct stat sb;
  DT_TRY(out_path(r, file, path, len, ctx));
  for (int waited = 0; waited < VTU_WAIT_MS && stat(path, &sb) != 0 && still_running(r->param[0]);
       waited += 50) {
    nanosleep(&step, NULL);
    DT_TRY(out_path(r, file, path, len, ctx));
  }
cleanup:
  return rc;
}

void dt_h_result_vtu(dt_req *r) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  char state[16], path[4300], file[64], name[200];
  int n, has_vtu;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(job_or_reply(r, state, sizeof state, &ctx));
  DT_TRY(increment_or_reply(r, &n, &has_vtu, &ctx));
  if (!has_vtu) {
    dt_reply_error(r, 404, "not_found", NULL,
                   "no VTU was written for increment %d (see output.vtu and output.every)", n);
    goto cleanup;
  }
  snprintf(file, sizeof file, "increment_%04d.vtu", n);
  snprintf(name, sizeof name, "%s-increment_%04d.vtu", r->param[0], n);
  DT_TRY(wait_for_vtu(r, file, path, sizeof path, &ctx));
  /* binary appended VTK XML (solver/io/output_vtu.c) */
  dt_reply_file(r, path, "application/vnd.vtk.vtu+xml", name);
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

/* A job's file of the CalculiX kind, once the job has ended: the writer thread grows it
 * increment by increment while the job runs (the .frd is rewritten around its closing record),
 * so until then it is 409 job_active; a job that wrote none (no field or print request) 404. */
static void ended_file(dt_req *r, const char *file, const char *ext, const char *type) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  char state[16], path[4300], name[160];
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(job_or_reply(r, state, sizeof state, &ctx));
  if (dt_job_active(state)) {
    dt_reply_error(r, 409, "job_active", NULL,
                   "the job is %s: %s is complete once it has ended (stream its events, or poll "
                   "it)",
                   state, file);
    goto cleanup;
  }
  DT_TRY(out_path(r, file, path, sizeof path, &ctx));
  snprintf(name, sizeof name, "%s.%s", r->param[0], ext);
  dt_reply_file(r, path, type, name);
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

void dt_h_result_frd(dt_req *r) {
  ended_file(r, "results.frd", "frd", "text/plain; charset=utf-8");
}

void dt_h_result_dat(dt_req *r) {
  ended_file(r, "results.dat", "dat", "text/plain; charset=utf-8");
}
