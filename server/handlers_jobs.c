/* /v1/jobs: submit (validated completely before acceptance), list with filters and pages,
 * get, cancel, delete. Events are in sse.c, results in handlers_results.c. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devices.h"
#include "handlers.h"
#include "jobspec.h"
#include "log.h"
#include "store.h"
#include "store_events.h"
#include "store_jobs.h"
#include "worker.h"

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char p[4400];
  struct stat sb;
  if (!d) return;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) remove_tree(p);
    else unlink(p);
  }
  closedir(d);
  rmdir(dir);
}

static void reply_spec_error(dt_req *r, dt_spec_status st, const dt_spec_error *se, const char *file) {
  json_t *details = file ? json_pack("{s:s, s:s, s:i}", "path", se->path, "file", file, "line", se->line)
                         : json_pack("{s:s}", "path", se->path);
  if (st == DT_SPEC_INVALID) dt_reply_error(r, 422, "invalid_job", details, "%s", se->message);
  else if (st == DT_SPEC_NO_MESH) dt_reply_error(r, 422, "mesh_not_found", details, "%s", se->message);
  else {
    json_decref(details);
    dt_reply_error(r, 500, "internal", NULL, "%s", se->message);
  }
}

/* POST /v1/jobs: a JSON job (inline mesh or mesh_id, see jobspec.h) or an Abaqus/CalculiX
 * deck (application/x-abaqus-inp: a whole job, stored as jobs/<id>/job.inp; *INCLUDE refused).
 * Everything is validated before the job is accepted; one cleanup path removes what a refused
 * job left (its directory, unless its row was stored). */
void dt_h_job_create(dt_req *r) {
  static const char *const allowed[] = {"format", "filename", NULL};
  dt_job_new j;
  dt_spec_error se;
  dt_model *m = NULL;
  dt_spec_status st;
  dt_body_kind kind;
  dt_fit fit;
  char dir[4200] = "", path[4300], origin[128];
  json_t *doc = NULL, *out, *warnings = NULL;
  dt_ctx admit;
  int rc, stored = 0;
  if (dt_req_query_allowed_or_reply(r, allowed)) return;
  if (atomic_load(&r->srv->draining)) {
    dt_reply_error(r, 503, "shutting_down", NULL,
                   atomic_load(&r->srv->restarting)
                       ? "the daemon is restarting and accepts no new jobs until it is back (seconds): retry"
                       : "the daemon is shutting down and accepts no new jobs");
    return;
  }
  if (dt_body_format_or_reply(r, DT_BODY_JSON | DT_BODY_INP, NULL, "deck.inp", origin, sizeof origin, &kind)) return;
  memset(&j, 0, sizeof j);
  if (dt_id_new(j.id, 'j')) {
    dt_reply_error(r, 500, "internal", NULL, "no randomness for an id");
    return;
  }
  snprintf(dir, sizeof dir, "%s/jobs/%s", r->srv->data_dir, j.id);
  if (kind == DT_BODY_INP) {
    if (r->total == 0) {
      dt_reply_error(r, 400, "empty_body", NULL, "this request needs a body (the deck)");
      goto done;
    }
    snprintf(path, sizeof path, "%s/job.inp", dir);
    if (mkdir(dir, 0755) != 0 || dt_req_body_save(r, path) != 0) {
      dt_reply_error(r, 507, "insufficient_storage", NULL, "cannot store the job");
      goto done;
    }
    warnings = json_array();
    st = dt_spec_deck_build(path, origin, warnings, &m, &se);
    if (st != DT_SPEC_OK) {
      reply_spec_error(r, st, &se, origin);
      goto done;
    }
  } else {
    if (!(doc = dt_req_body_json_or_reply(r))) goto done;
    st = dt_spec_build(doc, r->srv->data_dir, j.mesh_id, sizeof j.mesh_id, &m, &se);
    json_decref(doc);
    if (st != DT_SPEC_OK) {
      reply_spec_error(r, st, &se, NULL);
      goto done;
    }
  }
  j.owner_id = r->who.user_id;
  snprintf(j.token_id, sizeof j.token_id, "%s", r->who.token_id);
  j.n_steps = m->n_steps;
  snprintf(j.title, sizeof j.title, "%s", m->title);
  /* Admission by memory: refuse now what no device could hold, rather than fail later. */
  memset(&admit, 0, sizeof admit);
  rc = dt_devices_admit(r->srv, m, -1, &fit, &admit);
  dt_model_destroy(&m); /* the worker builds it again: not held while the job waits */
  if (rc != DT_OK) {
    dt_reply_error(r, 422, "does_not_fit",
                   json_pack("{s:f, s:f, s:s}", "estimate_bytes", fit.estimate, "limit_bytes", fit.limit, "device",
                             fit.device[0] ? fit.device : "max_job_bytes"),
                   "%s", admit.msg);
    goto done;
  }
  if (fit.no_estimate[0]) dt_log(DT_LOG_WARN, r->id, NULL, "job accepted without a memory check: %s", fit.no_estimate);
  j.est_bytes = (long long)fit.estimate;
  if (kind == DT_BODY_JSON) {
    snprintf(path, sizeof path, "%s/job.json", dir);
    if (mkdir(dir, 0755) != 0 || dt_req_body_save(r, path) != 0) {
      dt_reply_error(r, 507, "insufficient_storage", NULL, "cannot store the job");
      goto done;
    }
  }
  rc = dt_job_insert(&j, r->srv->cfg.max_queued_jobs);
  stored = rc == 0;
  if (rc == DT_STORE_CONFLICT)
    dt_reply_error(r, 429, "queue_full", json_pack("{s:I}", "max_queued_jobs", (json_int_t)r->srv->cfg.max_queued_jobs),
                   "the queue is full (%lld jobs waiting); try again later", r->srv->cfg.max_queued_jobs);
  else if (rc == DT_STORE_NOTFOUND)
    dt_reply_error(r, 422, "mesh_not_found", json_pack("{s:s}", "path", "mesh_id"), "job: mesh_id: no mesh \"%s\"", j.mesh_id);
  else if (rc || dt_job_get(j.id, &out))
    dt_reply_store_error(r);
  else {
    /* The importer's warnings (a translation that is faithful but not exact) as info events. */
    size_t i;
    json_t *w;
    json_array_foreach(warnings, i, w) {
      json_t *ev = json_pack("{s:s+}", "text", "warning: ", json_string_value(w));
      dt_event_append(j.id, "info", ev);
      json_decref(ev);
    }
    dt_reply_json(r, 201, out);
  }
done:
  if (!stored) remove_tree(dir); /* a refused job leaves nothing behind */
  dt_model_destroy(&m);
  json_decref(warnings);
}

static int states_or_reply(dt_req *r, char *buf, size_t len, dt_job_filter *f) {
  static const char *const valid[] = {"queued", "running", "succeeded", "failed", "cancelled"};
  const char *s = dt_req_query(r, "state");
  char *save = NULL, *tok;
  int n = 0;
  if (!s) return 0;
  snprintf(buf, len, "%s", s);
  for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int ok = 0;
    for (int i = 0; i < 5; i++) ok |= !strcmp(tok, valid[i]);
    if (!ok || n >= 5) {
      dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "state"),
                     "state: expected a comma-separated list of queued, running, succeeded, failed, cancelled");
      return -1;
    }
    f->states[n++] = tok;
  }
  if (n == 0) {
    dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "state"), "state: empty list");
    return -1;
  }
  return 0;
}

void dt_h_job_list(dt_req *r) {
  static const char *const allowed[] = {"state", "mesh_id", "owner", "limit", "cursor", NULL};
  dt_job_filter f;
  char buf[128];
  json_t *items;
  long long next;
  memset(&f, 0, sizeof f);
  if (dt_req_query_allowed_or_reply(r, allowed) || states_or_reply(r, buf, sizeof buf, &f) ||
      dt_page_or_reply(r, &f.limit, &f.before))
    return;
  f.mesh_id = dt_req_query(r, "mesh_id");
  if (f.mesh_id && !dt_id_valid(f.mesh_id, 'm')) {
    dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "mesh_id"),
                   "mesh_id: expected a mesh id like m-0123456789abcdef");
    return;
  }
  f.owner = dt_req_query(r, "owner");
  if (f.owner && (!f.owner[0] || strlen(f.owner) > 127)) {
    dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "owner"),
                   "owner: expected a user name (1 to 127 characters)");
    return;
  }
  if (dt_job_list(&f, &items, &next)) {
    dt_reply_store_error(r);
    return;
  }
  dt_reply_json(r, 200, dt_page(items, next));
}

void dt_h_job_get(dt_req *r) {
  json_t *out;
  int rc;
  if (dt_id_or_reply(r, r->param[0], 'j', "job")) return;
  rc = dt_job_get(r->param[0], &out);
  if (rc == DT_STORE_NOTFOUND) dt_reply_error(r, 404, "not_found", NULL, "no job with this id");
  else if (rc) dt_reply_store_error(r);
  else dt_reply_json(r, 200, out);
}

void dt_h_job_cancel(dt_req *r) {
  int running = 0, rc;
  json_t *out;
  if (dt_id_or_reply(r, r->param[0], 'j', "job")) return;
  rc = dt_job_cancel(r->param[0], &running);
  if (rc == DT_STORE_NOTFOUND) {
    dt_reply_error(r, 404, "not_found", NULL, "no job with this id");
    return;
  }
  if (rc == DT_STORE_CONFLICT) {
    dt_reply_error(r, 409, "job_finished", NULL, "the job has already finished");
    return;
  }
  if (rc) {
    dt_reply_store_error(r);
    return;
  }
  if (running) dt_workers_cancel(r->srv, r->param[0]);
  if (dt_job_get(r->param[0], &out)) dt_reply_store_error(r);
  else dt_reply_json(r, 202, out);
}

void dt_h_job_delete(dt_req *r) {
  char dir[4200];
  int rc;
  if (dt_id_or_reply(r, r->param[0], 'j', "job")) return;
  rc = dt_job_delete(r->param[0]);
  if (rc == DT_STORE_NOTFOUND) dt_reply_error(r, 404, "not_found", NULL, "no job with this id");
  else if (rc == DT_STORE_CONFLICT)
    dt_reply_error(r, 409, "job_active", NULL, "the job is queued or running; cancel it first");
  else if (rc) dt_reply_store_error(r);
  else {
    snprintf(dir, sizeof dir, "%s/jobs/%s", r->srv->data_dir, r->param[0]);
    remove_tree(dir);
    dt_reply_text(r, 204, "application/json", "", 0);
  }
}
