/* /v1/jobs: submit (validated completely before acceptance), list with filters and pages,
 * get, cancel, delete. Events are in sse.c, results in handlers_results.c.
 *
 * Admission comes before allocation (admission.h): the job's size, counted from its body as it
 * arrives (or from its stored mesh's file), against the model limits and, by the floor of its
 * memory, the devices, before the model is built; then its full estimate, once it is.
 *
 * Isolation: a user submits jobs only on its own meshes and finds only its own jobs; an admin
 * any (dt_principal_owner). Another user's job is "no job with this id", the 404 of an id that
 * does not exist, found by the same lookup. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admission.h"
#include "data_files.h"
#include "devices.h"
#include "handlers.h"
#include "jobspec.h"
#include "log.h"
#include "store.h"
#include "store_events.h"
#include "store_jobs.h"
#include "worker.h"

/* The details of a refused job: where the document is wrong, or the memory estimate (with the
 * counts when it is the floor of a size, size not NULL). */
static json_t *refusal_details(dt_status rc, const dt_spec_where *where, const char *file,
                               const dt_fit *fit, const dt_model_size *size) {
  if (rc == DT_ERR_DEVICE_NOMEM) return dt_admission_fit_details(fit, size);
  if (rc != DT_ERR_INPUT) return NULL;
  if (file)
    return json_pack("{s:s, s:s, s:i}", "path", where->path, "file", file, "line", where->line);
  return json_pack("{s:s}", "path", where->path);
}

/* A deck (application/x-abaqus-inp): stored as <dir>/job.inp, then imported. */
static dt_status deck_model(dt_req *r, const char *dir, const char *origin, json_t *warnings,
                            dt_model **m, dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4300];
  if (r->total == 0) {
    dt_reply_error(r, 400, "empty_body", NULL, "this request needs a body (the deck)");
    return DT_ERR_INPUT;
  }
  snprintf(path, sizeof path, "%s/job.inp", dir);
  DT_CHECK(mkdir(dir, 0755) == 0, ctx, DT_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
  DT_TRY(dt_req_body_save(r, path, ctx));
  DT_TRY(dt_spec_deck_build(path, origin, warnings, m, where, ctx));
cleanup:
  return rc;
}

/* A job on a stored mesh is admitted by the size of that mesh's file (size), before the mesh
 * is read: a mesh stored under other limits, or large enough that only some jobs fit. */
static dt_status stored_mesh_admit(dt_req *r, const dt_job_new *j, const json_t *doc,
                                   dt_model_size *size, dt_fit *fit, dt_spec_where *where,
                                   dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_size_format fmt = DT_SIZE_JSON_MESH;
  dt_ctx scan;
  char mesh_id[32], path[4300], what[64];
  size_t n = 0;
  memset(&scan, 0, sizeof scan);
  DT_TRY(dt_spec_stored_mesh(doc, r->srv->data_dir, j->mesh_owner, mesh_id, sizeof mesh_id, path,
                             sizeof path, where, ctx));
  if (!path[0]) goto cleanup;
  n = strlen(path);
  if (n > 4 && !strcmp(path + n - 4, ".msh")) fmt = DT_SIZE_GMSH;
  DT_CHECK(dt_size_scan_file(path, fmt, size, &scan) == DT_OK, ctx, DT_ERR_INTERNAL,
           "cannot read mesh %s: %s", mesh_id, scan.msg);
  snprintf(what, sizeof what, "job: mesh_id: mesh %s", mesh_id);
  DT_TRY(dt_admit_size_or_reply(r, size, what, 0, fit, ctx));
cleanup:
  return rc;
}

/* A JSON job: validated from the body; stored (as <dir>/job.json) only once admitted. One on
 * an order-P mesh is validated by the order-P solver's check into *ho (ho->order > 0) and
 * builds no model. */
static dt_status json_model(dt_req *r, dt_job_new *j, dt_model **m, dt_spec_ho *ho,
                            dt_model_size *size, dt_fit *fit, dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *doc = NULL;
  DT_TRY(dt_req_body_json_or_reply(r, &doc));
  DT_TRY(stored_mesh_admit(r, j, doc, size, fit, where, ctx));
  DT_TRY(dt_spec_ho_build(doc, r->srv->data_dir, j->mesh_owner, 0, j->mesh_id, sizeof j->mesh_id,
                          ho, where, ctx));
  if (ho->order) goto cleanup;
  DT_TRY(dt_spec_build(doc, r->srv->data_dir, j->mesh_owner, j->mesh_id, sizeof j->mesh_id, m,
                       where, ctx));
cleanup:
  json_decref(doc);
  return rc;
}

static dt_status json_store(dt_req *r, const char *dir, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4300];
  snprintf(path, sizeof path, "%s/job.json", dir);
  DT_CHECK(mkdir(dir, 0755) == 0, ctx, DT_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
  DT_TRY(dt_req_body_save(r, path, ctx));
cleanup:
  return rc;
}

/* The importer's warnings (a translation that is faithful but not exact) as info events; a
 * warning that cannot be recorded is logged, and the job goes on. */
static void warning_events(dt_req *r, const char *job_id, json_t *warnings) {
  size_t i;
  json_t *w;
  json_array_foreach(warnings, i, w) {
    dt_ctx ctx;
    json_t *ev = json_pack("{s:s+}", "text", "warning: ", json_string_value(w));
    memset(&ctx, 0, sizeof ctx);
    if (dt_event_append(job_id, "info", ev, &ctx) != DT_OK)
      dt_log(DT_LOG_WARN, r->id, NULL, "job %s: a warning event is lost: %s", job_id, ctx.msg);
    json_decref(ev);
  }
}

static void reply_shutting_down(dt_req *r) {
  dt_reply_error(
      r, 503, "shutting_down", NULL,
      atomic_load(&r->srv->restarting)
          ? "the daemon is restarting and accepts no new jobs until it is back (seconds): retry"
          : "the daemon is shutting down and accepts no new jobs");
}

/* 429 too_many_jobs: the caller has max_active_jobs_per_user jobs queued or running. */
static void reply_user_full(dt_req *r, long long active) {
  long long max = r->srv->cfg.max_active_jobs_per_user;
  dt_reply_error(r, 429, "too_many_jobs",
                 json_pack("{s:I, s:I}", "max_active_jobs_per_user", (json_int_t)max, "active",
                           (json_int_t)active),
                 "you have %lld jobs queued or running, the most one user may have "
                 "(max_active_jobs_per_user = %lld); submit more when some have finished, or "
                 "cancel some",
                 active, max);
}

/* A job whose steps need n converged increments, more than max_job_increments: 422
 * too_many_increments, before it waits in the queue for a run that would be stopped. */
static dt_status increments_or_reply(dt_req *r, long long n) {
  long long max = r->srv->cfg.max_job_increments;
  if (n <= max) return DT_OK;
  dt_reply_error(r, 422, "too_many_increments",
                 json_pack("{s:s, s:I, s:I}", "path", "steps", "increments", (json_int_t)n,
                           "max_job_increments", (json_int_t)max),
                 "job: steps: the job takes at least %lld increments, more than this server "
                 "allows a job (max_job_increments = %lld); split it into several jobs or use "
                 "fewer, larger increments",
                 n, max);
  return DT_ERR_INPUT;
}

static void reply_queue_full(dt_req *r) {
  dt_reply_error(r, 429, "queue_full",
                 json_pack("{s:I}", "max_queued_jobs", (json_int_t)r->srv->cfg.max_queued_jobs),
                 "the queue is full (%lld jobs waiting); try again later",
                 r->srv->cfg.max_queued_jobs);
}

/* POST /v1/jobs: a JSON job (inline mesh or mesh_id, see jobspec.h) or an Abaqus/CalculiX
 * deck (application/x-abaqus-inp: a whole job, stored as jobs/<id>/job.inp; *INCLUDE refused).
 * Everything is validated before the job is accepted; one cleanup path replies for a failure
 * and removes what a refused job left (its directory, unless its row was stored). */
void dt_h_job_create(dt_req *r) {
  static const char *const allowed[] = {"format", "filename", NULL};
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_job_new j;
  dt_spec_where where;
  dt_model *m = NULL;
  dt_spec_ho *ho = NULL; /* large: not on the handler's stack */
  dt_body_kind kind = DT_BODY_JSON;
  dt_fit fit;
  dt_model_size size;
  int sized = 1; /* a refusal by memory is the floor of size (else the built model's estimate) */
  dt_outcome outcome = DT_DONE;
  dt_job_limits lim = {r->srv->cfg.max_queued_jobs, r->srv->cfg.max_active_jobs_per_user};
  long long active = 0;
  int stored = 0;
  char dir[4200] = "", origin[128];
  json_t *out = NULL, *warnings = json_array();
  dt_actor who;
  memset(&ctx, 0, sizeof ctx);
  memset(&j, 0, sizeof j);
  memset(&where, 0, sizeof where);
  memset(&fit, 0, sizeof fit);
  memset(&size, 0, sizeof size);
  DT_TRY(dt_req_query_allowed_or_reply(r, allowed));
  if (atomic_load(&r->srv->draining)) {
    reply_shutting_down(r);
    goto cleanup;
  }
  DT_TRY(dt_body_format_or_reply(r, DT_BODY_JSON | DT_BODY_INP, NULL, "deck.inp", origin,
                                 sizeof origin, &kind));
  /* admitted by its size before anything is parsed: parsing takes memory in proportion */
  DT_TRY(dt_admission_size(r, kind, 0, &size, &ctx));
  DT_TRY(dt_admit_size_or_reply(r, &size, kind == DT_BODY_INP ? origin : "job", 0, &fit, &ctx));
  DT_TRY(dt_id_new(j.id, 'j', &ctx));
  j.mesh_owner = dt_principal_owner(&r->who);
  snprintf(dir, sizeof dir, "%s/jobs/%s", r->srv->data_dir, j.id);
  ho = calloc(1, sizeof *ho);
  DT_CHECK(ho != NULL, &ctx, DT_ERR_NOMEM, "out of memory");
  if (kind == DT_BODY_INP)
    DT_TRY(deck_model(r, dir, origin, warnings, &m, &where, &ctx));
  else
    DT_TRY(json_model(r, &j, &m, ho, &size, &fit, &where, &ctx));
  j.owner_id = r->who.user_id;
  snprintf(j.token_id, sizeof j.token_id, "%s", r->who.token_id);
  j.n_steps = ho->order ? 1 : m->n_steps;
  snprintf(j.title, sizeof j.title, "%s", ho->order ? ho->title : m->title);
  DT_TRY(increments_or_reply(r, ho->order ? ho->info.n_increments : dt_spec_min_increments(m)));
  DT_TRY(dt_storage_or_reply(r, &ctx));
  /* Admission by memory: refuse now what no device could hold, rather than fail later. */
  sized = 0;
  if (ho->order) {
    DT_TRY(dt_devices_admit_host(r->srv, ho->info.est_bytes, "order-P solver", &fit, &ctx));
    if (strcmp(r->srv->backend_name, "cuda") == 0) /* and the GPU's that would run it */
      DT_TRY(dt_devices_admit_bytes(r->srv, ho->info.est_bytes, "order-P solver on the GPU", -1,
                                    &fit, &ctx));
  } else
    DT_TRY(dt_devices_admit(r->srv, m, -1, &fit, &ctx));
  dt_model_destroy(&m); /* the worker builds it again: not held while the job waits */
  if (fit.no_estimate[0])
    dt_log(DT_LOG_WARN, r->id, NULL, "job accepted without a memory check: %s", fit.no_estimate);
  j.est_bytes = (long long)fit.estimate;
  if (kind == DT_BODY_JSON) DT_TRY(json_store(r, dir, &ctx));
  dt_req_actor(r, &who);
  DT_TRY(dt_job_insert(&j, &lim, &who, &outcome, &active, &ctx));
  if (outcome == DT_REFUSED) {
    if (active)
      reply_user_full(r, active);
    else
      reply_queue_full(r);
    goto cleanup;
  }
  if (outcome == DT_NOT_FOUND) { /* the mesh was deleted since the job was validated */
    where.no_mesh = 1;
    snprintf(where.path, sizeof where.path, "mesh_id");
    rc = DT_ERROR(&ctx, DT_ERR_INPUT, "job: mesh_id: no mesh \"%s\"", j.mesh_id);
    goto cleanup;
  }
  stored = 1;
  warning_events(r, j.id, warnings);
  DT_TRY(dt_job_get(j.id, DT_ANY_OWNER, &out, &outcome, &ctx));
  DT_CHECK(outcome == DT_DONE, &ctx, DT_ERR_INTERNAL, "job %s is gone right after it was stored",
           j.id);
  dt_reply_json(r, 201, out);
  out = NULL;
cleanup:
  dt_reply_status(
      r, rc, &ctx, where.no_mesh ? "mesh_not_found" : "invalid_job",
      refusal_details(rc, &where, kind == DT_BODY_INP ? origin : NULL, &fit, sized ? &size : NULL));
  if (!stored && dir[0]) dt_remove_tree(dir); /* a refused job leaves nothing behind */
  dt_model_destroy(&m);
  free(ho);
  json_decref(warnings);
  json_decref(out);
}

/* ?state=queued,running into f->states (buf holds the text). */
static dt_status states_or_reply(dt_req *r, char *buf, size_t len, dt_job_filter *f) {
  static const char *const valid[] = {"queued", "running", "succeeded", "failed", "cancelled"};
  const char *s = dt_req_query(r, "state");
  char *save = NULL, *tok;
  int n = 0;
  if (!s) return DT_OK;
  snprintf(buf, len, "%s", s);
  for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int ok = 0;
    for (int i = 0; i < 5; i++) ok |= !strcmp(tok, valid[i]);
    if (!ok || n >= 5) {
      dt_reply_invalid_parameter(
          r, "state",
          "state: expected a comma-separated list of queued, running, succeeded, failed, "
          "cancelled");
      return DT_ERR_INPUT;
    }
    f->states[n++] = tok;
  }
  if (n > 0) return DT_OK;
  dt_reply_invalid_parameter(r, "state", "state: empty list");
  return DT_ERR_INPUT;
}

/* ?mesh_id= and ?owner= into f. */
static dt_status job_filter_or_reply(dt_req *r, dt_job_filter *f) {
  f->mesh_id = dt_req_query(r, "mesh_id");
  if (f->mesh_id && !dt_id_valid(f->mesh_id, 'm')) {
    dt_reply_invalid_parameter(r, "mesh_id", "mesh_id: expected a mesh id like m-0123456789abcdef");
    return DT_ERR_INPUT;
  }
  f->owner = dt_req_query(r, "owner");
  if (f->owner && (!f->owner[0] || strlen(f->owner) > 127)) {
    dt_reply_invalid_parameter(r, "owner", "owner: expected a user name (1 to 127 characters)");
    return DT_ERR_INPUT;
  }
  return DT_OK;
}

void dt_h_job_list(dt_req *r) {
  static const char *const allowed[] = {"state", "mesh_id", "owner", "limit", "cursor", NULL};
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_job_filter f;
  char buf[128];
  json_t *items = NULL;
  long long next;
  memset(&ctx, 0, sizeof ctx);
  memset(&f, 0, sizeof f);
  DT_TRY(dt_req_query_allowed_or_reply(r, allowed));
  DT_TRY(states_or_reply(r, buf, sizeof buf, &f));
  DT_TRY(dt_page_or_reply(r, &f.limit, &f.before));
  DT_TRY(job_filter_or_reply(r, &f));
  f.owner_id = dt_principal_owner(&r->who);
  DT_TRY(dt_job_list(&f, &items, &next, &ctx));
  dt_reply_json(r, 200, dt_page(items, next));
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

/* 200 (or status) with the job's API object, or 404. */
static dt_status reply_job(dt_req *r, unsigned status, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_outcome found;
  json_t *out = NULL;
  DT_TRY(dt_job_get(r->param[0], dt_principal_owner(&r->who), &out, &found, ctx));
  if (found == DT_NOT_FOUND)
    dt_reply_not_found(r, "job");
  else
    dt_reply_json(r, status, out);
cleanup:
  return rc;
}

void dt_h_job_get(dt_req *r) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_id_or_reply(r, r->param[0], 'j', "job"));
  DT_TRY(reply_job(r, 200, &ctx));
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

void dt_h_job_cancel(dt_req *r) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_outcome outcome;
  dt_actor who;
  int running = 0;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_id_or_reply(r, r->param[0], 'j', "job"));
  dt_req_actor(r, &who);
  DT_TRY(dt_job_cancel(r->param[0], dt_principal_owner(&r->who), &who, &running, &outcome, &ctx));
  if (outcome == DT_NOT_FOUND) {
    dt_reply_not_found(r, "job");
  } else if (outcome == DT_REFUSED) {
    dt_reply_error(r, 409, "job_finished", NULL, "the job has already finished");
  } else {
    if (running) dt_workers_cancel(r->srv, r->param[0]);
    DT_TRY(reply_job(r, 202, &ctx));
  }
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

void dt_h_job_delete(dt_req *r) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_outcome outcome;
  dt_actor who;
  char dir[4200];
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_id_or_reply(r, r->param[0], 'j', "job"));
  dt_req_actor(r, &who);
  DT_TRY(dt_job_delete(r->param[0], dt_principal_owner(&r->who), &who, &outcome, &ctx));
  if (outcome == DT_NOT_FOUND) {
    dt_reply_not_found(r, "job");
  } else if (outcome == DT_REFUSED) {
    dt_reply_error(r, 409, "job_active", NULL, "the job is queued or running; cancel it first");
  } else {
    snprintf(dir, sizeof dir, "%s/jobs/%s", r->srv->data_dir, r->param[0]);
    dt_remove_tree(dir);
    dt_reply_text(r, 204, "application/json", "", 0);
  }
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}
