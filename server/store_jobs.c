/* Job rows and state transitions (see store_jobs.h). */
#include "store_jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "job_dirs.h"
#include "log.h"
#include "store.h"
#include "store_events.h"

#define JOB_COLS                                                                                   \
  "id, state, title, mesh_id, created_at, started_at, finished_at, attempts, cancel_requested, "   \
  "n_steps, "                                                                                      \
  "step, increment, newton_iter, residual, percent, increments_done, backend, error_code, "        \
  "message, "                                                                                      \
  "reason, timings, seq, (julianday(started_at) - julianday(created_at)) * 86400.0, "              \
  "(julianday(COALESCE(finished_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) - "                    \
  "julianday(started_at)) * 86400.0, "                                                             \
  "est_device_bytes, (SELECT name FROM users WHERE users.id = jobs.owner_id), "                    \
  "(SELECT name FROM tokens WHERE tokens.id = jobs.token_id)"

static json_t *opt_text(dt_sql *st, int i) {
  return dt_col_null(st, i) ? json_null() : json_string(dt_col_text(st, i));
}
static json_t *opt_int(dt_sql *st, int i) {
  return dt_col_null(st, i) ? json_null() : json_integer(dt_col_int64(st, i));
}
static json_t *opt_real(dt_sql *st, int i) {
  return dt_col_null(st, i) ? json_null() : json_real(dt_col_double(st, i));
}

static json_t *job_json(dt_sql *st) {
  const char *id = dt_col_text(st, 0);
  char link[96];
  json_t *o = json_object(), *progress, *timings, *err = json_null(), *links;
  json_object_set_new(o, "id", json_string(id));
  json_object_set_new(o, "state", json_string(dt_col_text(st, 1)));
  json_object_set_new(o, "title", opt_text(st, 2));
  json_object_set_new(o, "mesh_id", opt_text(st, 3));
  json_object_set_new(o, "created_at", json_string(dt_col_text(st, 4)));
  json_object_set_new(o, "started_at", opt_text(st, 5));
  json_object_set_new(o, "finished_at", opt_text(st, 6));
  json_object_set_new(o, "attempts", json_integer(dt_col_int(st, 7)));
  json_object_set_new(o, "cancel_requested", json_boolean(dt_col_int(st, 8)));
  json_object_set_new(o, "owner", opt_text(st, 25));
  json_object_set_new(o, "owner_token", opt_text(st, 26));
  json_object_set_new(o, "backend", opt_text(st, 16));
  json_object_set_new(o, "memory_estimate_bytes", opt_int(st, 24));
  progress = json_object();
  json_object_set_new(progress, "n_steps", json_integer(dt_col_int(st, 9)));
  json_object_set_new(progress, "step", opt_int(st, 10));
  json_object_set_new(progress, "increment", opt_int(st, 11));
  json_object_set_new(progress, "newton_iteration", opt_int(st, 12));
  json_object_set_new(progress, "residual", opt_real(st, 13));
  json_object_set_new(progress, "percent", json_real(dt_col_double(st, 14)));
  json_object_set_new(progress, "increments_completed", json_integer(dt_col_int(st, 15)));
  json_object_set_new(o, "progress", progress);
  timings = dt_col_null(st, 20) ? NULL : json_loads(dt_col_text(st, 20), 0, NULL);
  if (!json_is_object(timings)) {
    json_decref(timings);
    timings = json_object();
  }
  json_object_set_new(timings, "queued_seconds", opt_real(st, 22));
  json_object_set_new(timings, "run_seconds", opt_real(st, 23));
  json_object_set_new(o, "timings", timings);
  if (!dt_col_null(st, 17))
    err = json_pack("{s:s, s:s, s:o}", "code", dt_col_text(st, 17), "message", dt_col_text(st, 18),
                    "reason", opt_text(st, 19));
  json_object_set_new(o, "error", err ? err : json_null());
  links = json_object();
  snprintf(link, sizeof link, "/v1/jobs/%s/events", id);
  json_object_set_new(links, "events", json_string(link));
  snprintf(link, sizeof link, "/v1/jobs/%s/results", id);
  json_object_set_new(links, "results", json_string(link));
  json_object_set_new(o, "links", links);
  return o;
}

/* Refuse a job when its owner has lim->max_active_per_user jobs queued or running (*outcome
 * DT_REFUSED, *user_active their count) or max_queued jobs wait already (DT_REFUSED, *user_active
 * 0), or when its mesh_id names no mesh of j->mesh_owner (DT_NOT_FOUND); inside the insert's
 * transaction, so two submissions cannot both take the last place. */
static dt_status insert_allowed(const dt_job_new *j, const dt_job_limits *lim, dt_outcome *outcome,
                                long long *user_active, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  /* PostgreSQL: submissions take their turn, as SQLite's BEGIN IMMEDIATE makes them. Then jobs
   * commit in the order of their seq (the queue's order: a job is never visible before an older
   * one), and the counts below cannot be passed by two submissions at once, whichever daemons
   * take them. */
  DT_TRY(dt_stmt("SELECT 1 /*pg: , pg_advisory_xact_lock(7303042) */", &st, ctx));
  DT_TRY(dt_stmt_row(st, "wait for the submissions' turn", &row, ctx));
  dt_stmt_done(&st);
  /* two ranges of jobs_user_queue (state, owner_id, ...) */
  DT_TRY(dt_stmt("SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'running') AND owner_id = ?1",
                 &st, ctx));
  dt_bind_int64(st, 1, j->owner_id);
  DT_TRY(dt_stmt_row(st, "count the user's active jobs", &row, ctx));
  if (row && dt_col_int64(st, 0) >= lim->max_active_per_user) {
    *outcome = DT_REFUSED;
    *user_active = dt_col_int64(st, 0);
    goto cleanup;
  }
  dt_stmt_done(&st);
  DT_TRY(dt_stmt("SELECT COUNT(*) FROM jobs WHERE state = 'queued'", &st, ctx));
  DT_TRY(dt_stmt_row(st, "count queued jobs", &row, ctx));
  if (row && dt_col_int64(st, 0) >= lim->max_queued) *outcome = DT_REFUSED;
  dt_stmt_done(&st);
  if (*outcome != DT_DONE || !j->mesh_id[0]) goto cleanup;
  DT_TRY(dt_stmt("SELECT 1 FROM meshes WHERE id = ?1 AND (?2 = 0 OR owner_id = ?2)", &st, ctx));
  dt_bind_text(st, 1, j->mesh_id);
  dt_bind_int64(st, 2, j->mesh_owner);
  DT_TRY(dt_stmt_row(st, "find the job's mesh", &row, ctx));
  if (!row) *outcome = DT_NOT_FOUND;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_job_insert(const dt_job_new *j, const dt_job_limits *lim, const dt_actor *who,
                        dt_outcome *outcome, long long *user_active, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char now[40];
  dt_sql *st = NULL;
  json_t *ev = NULL, *audit = NULL;
  *outcome = DT_DONE;
  *user_active = 0;
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(insert_allowed(j, lim, outcome, user_active, ctx));
  if (*outcome != DT_DONE) goto cleanup;
  dt_now_iso(now, sizeof now);
  DT_TRY(dt_stmt("INSERT INTO jobs (id, owner_id, mesh_id, title, state, created_at, n_steps, "
                 "est_device_bytes, "
                 "token_id) VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?6, ?7, ?8)",
                 &st, ctx));
  dt_bind_text(st, 1, j->id);
  dt_bind_int64(st, 2, j->owner_id);
  dt_bind_text(st, 3, j->mesh_id[0] ? j->mesh_id : NULL);
  dt_bind_text(st, 4, j->title[0] ? j->title : NULL);
  dt_bind_text(st, 5, now);
  dt_bind_int64(st, 6, j->n_steps);
  if (j->est_bytes > 0)
    dt_bind_int64(st, 7, j->est_bytes);
  else
    dt_bind_null(st, 7);
  dt_bind_text(st, 8, j->token_id[0] ? j->token_id : NULL);
  DT_TRY(dt_stmt_run(&st, "insert job", NULL, ctx));
  ev = json_pack("{s:s}", "state", "queued");
  DT_TRY(dt_event_append_tx(j->id, "job.queued", ev, ctx));
  audit = json_pack("{s:s?, s:s?}", "title", j->title[0] ? j->title : NULL, "mesh_id",
                    j->mesh_id[0] ? j->mesh_id : NULL);
  DT_TRY(dt_audit(who, "job.submit", j->id, j->owner_id, audit, ctx));
  DT_TRY(dt_store_commit(ctx));
  dt_bus_notify();
cleanup:
  dt_stmt_done(&st);
  dt_store_rollback();
  json_decref(ev);
  json_decref(audit);
  return rc;
}

dt_status dt_job_get(const char *id, long long owner, json_t **out, dt_outcome *outcome,
                     dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  *out = NULL;
  *outcome = DT_NOT_FOUND;
  DT_TRY(dt_stmt("SELECT " JOB_COLS " FROM jobs WHERE id = ?1 AND (?2 = 0 OR owner_id = ?2)", &st,
                 ctx));
  dt_bind_text(st, 1, id);
  dt_bind_int64(st, 2, owner);
  DT_TRY(dt_stmt_row(st, "get job", &row, ctx));
  if (!row) goto cleanup;
  *out = job_json(st);
  DT_CHECK(*out != NULL, ctx, DT_ERR_NOMEM, "out of memory describing job %s", id);
  *outcome = DT_DONE;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* The state of job id (of owner); with lock, inside the caller's transaction, which then holds
 * the row (PostgreSQL: FOR UPDATE; SQLite's write transaction holds everything): a worker cannot
 * claim it, nor another daemon queue it again, between this read and the caller's change. */
static dt_status job_state_sql(const char *id, long long owner, int lock, char *state, size_t len,
                               dt_outcome *outcome, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  state[0] = '\0';
  *outcome = DT_NOT_FOUND;
  DT_TRY(dt_stmt(lock ? "SELECT state FROM jobs WHERE id = ?1 AND (?2 = 0 OR owner_id = ?2) "
                        "/*pg: FOR UPDATE */"
                      : "SELECT state FROM jobs WHERE id = ?1 AND (?2 = 0 OR owner_id = ?2)",
                 &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_int64(st, 2, owner);
  DT_TRY(dt_stmt_row(st, "job state", &row, ctx));
  if (!row) goto cleanup;
  snprintf(state, len, "%s", dt_col_text(st, 0));
  *outcome = DT_DONE;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

static dt_status job_state_locked(const char *id, long long owner, char *state, size_t len,
                                  dt_outcome *outcome, dt_ctx *ctx) {
  return job_state_sql(id, owner, 1, state, len, outcome, ctx);
}

dt_status dt_job_state(const char *id, long long owner, char *state, size_t len,
                       dt_outcome *outcome, dt_ctx *ctx) {
  return job_state_sql(id, owner, 0, state, len, outcome, ctx);
}

dt_status dt_job_list(const dt_job_filter *f, json_t **items, long long *next, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  /* A user's page is a range of the index jobs_owner (owner_id, seq), not a scan of everyone's
   * jobs; an admin's walks seq. */
  if (f->owner_id != DT_ANY_OWNER)
    DT_TRY(dt_stmt(
        "SELECT " JOB_COLS " FROM jobs WHERE owner_id = ?10 AND (?1 = 0 OR seq < ?1) "
        "AND (?2 IS NULL OR mesh_id = ?2) AND (?3 IS NULL OR state IN (?3, ?4, ?5, ?6, ?7)) "
        "AND (?9 IS NULL OR owner_id = (SELECT id FROM users WHERE name = ?9)) "
        "ORDER BY seq DESC LIMIT ?8",
        &st, ctx));
  else
    DT_TRY(dt_stmt("SELECT " JOB_COLS
                   " FROM jobs WHERE (?1 = 0 OR seq < ?1) AND (?2 IS NULL OR mesh_id = ?2) "
                   "AND (?3 IS NULL OR state IN (?3, ?4, ?5, ?6, ?7)) "
                   "AND (?9 IS NULL OR owner_id = (SELECT id FROM users WHERE name = ?9)) "
                   "ORDER BY seq DESC LIMIT ?8",
                   &st, ctx));
  if (f->owner_id != DT_ANY_OWNER) dt_bind_int64(st, 10, f->owner_id);
  dt_bind_int64(st, 1, f->before);
  dt_bind_text(st, 2, f->mesh_id);
  for (int i = 0; i < 5; i++)
    dt_bind_text(st, 3 + i, f->states[i] ? f->states[i] : (i ? f->states[0] : NULL));
  dt_bind_int64(st, 8, f->limit + 1);
  dt_bind_text(st, 9, f->owner);
  DT_TRY(dt_stmt_page(st, f->limit, 21, job_json, "list jobs", items, next, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* Run a one-parameter UPDATE or DELETE that must change exactly one row. */
static dt_status exec1(const char *sql, const char *id, const char *what, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int changes = 0;
  DT_TRY(dt_stmt(sql, &st, ctx));
  dt_bind_text(st, 1, id);
  DT_TRY(dt_stmt_run(&st, what, &changes, ctx));
  DT_CHECK(changes == 1, ctx, DT_ERR_DB, "database error (%s): job %s changed %d rows, expected 1",
           what, id, changes);
cleanup:
  dt_stmt_done(&st);
  return rc;
}

int dt_job_active(const char *state) {
  return !strcmp(state, "queued") || !strcmp(state, "running");
}

/* The cancellation itself, inside the transaction of dt_job_cancel; the job is active. */
static dt_status cancel_active(const char *id, const char *state, int *running, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *ev = NULL;
  if (!strcmp(state, "queued")) {
    DT_TRY(exec1(
        "UPDATE jobs SET state = 'cancelled', finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
        "WHERE id = ?1 AND state = 'queued'",
        id, "cancel queued job", ctx));
    ev = json_pack("{s:s, s:s}", "state", "cancelled", "message", "cancelled while queued");
    DT_TRY(dt_event_append_tx(id, "job.cancelled", ev, ctx));
  } else {
    *running = 1;
    DT_TRY(exec1("UPDATE jobs SET cancel_requested = 1 WHERE id = ?1 AND state = 'running'", id,
                 "request cancellation", ctx));
    ev = json_pack("{s:s}", "message",
                   "cancellation requested: the job stops at its next Newton iteration");
    DT_TRY(dt_event_append_tx(id, "job.cancel_requested", ev, ctx));
  }
cleanup:
  json_decref(ev);
  return rc;
}

/* The audit record of an action on job id (its owner looked up), in the caller's transaction:
 * the job's state before the action in its details. */
static dt_status audit_job(const dt_actor *who, const char *action, const char *id,
                           const char *state, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  json_t *details = NULL;
  long long owner_id = 0;
  int row;
  DT_TRY(dt_stmt("SELECT owner_id FROM jobs WHERE id = ?1", &st, ctx));
  dt_bind_text(st, 1, id);
  DT_TRY(dt_stmt_row(st, "find the job's owner", &row, ctx));
  if (row) owner_id = dt_col_int64(st, 0);
  dt_stmt_done(&st);
  details = json_pack("{s:s}", "state", state);
  DT_TRY(dt_audit(who, action, id, owner_id, details, ctx));
cleanup:
  dt_stmt_done(&st);
  json_decref(details);
  return rc;
}

dt_status dt_job_cancel(const char *id, long long owner, const dt_actor *who, int *running,
                        dt_outcome *outcome, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char state[16];
  *running = 0;
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(job_state_locked(id, owner, state, sizeof state, outcome, ctx));
  if (*outcome != DT_DONE) goto cleanup;
  if (!dt_job_active(state)) {
    *outcome = DT_REFUSED;
    goto cleanup;
  }
  DT_TRY(cancel_active(id, state, running, ctx));
  DT_TRY(audit_job(who, "job.cancel", id, state, ctx));
  DT_TRY(dt_store_commit(ctx));
  dt_bus_notify();
cleanup:
  dt_store_rollback();
  return rc;
}

dt_status dt_job_delete(const char *id, long long owner, const dt_actor *who, dt_outcome *outcome,
                        dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char state[16];
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(job_state_locked(id, owner, state, sizeof state, outcome, ctx));
  if (*outcome != DT_DONE) goto cleanup;
  if (dt_job_active(state)) {
    *outcome = DT_REFUSED;
    goto cleanup;
  }
  DT_TRY(audit_job(who, "job.delete", id, state, ctx)); /* before the row goes: its owner */
  DT_TRY(exec1("DELETE FROM jobs WHERE id = ?1", id, "delete job", ctx));
  DT_TRY(dt_store_commit(ctx));
  dt_bus_notify();
cleanup:
  dt_store_rollback();
  return rc;
}

/* PostgreSQL: the chosen job is locked by the claim's transaction, and a job another daemon's
 * claim holds is passed over (its next job, or another user's, is taken) instead of waited for;
 * a job claimed and committed meanwhile fails the query's state = 'queued' on its new version.
 * SQLite reads this as a comment: its one writer at a time needs no row locks. */
#define CLAIM_LOCK "/*pg: FOR UPDATE OF j SKIP LOCKED */"

/* The next job with fair sharing: the queued job at the head (priority, then submission order)
 * of the user whose worker time in the last ?1 seconds, divided by the user's share (users.share,
 * a weight: a user of share 2 is given twice the worker time of a user of share 1), is the
 * least, ties going to the higher priority, then the older job. A user's use is the busy_seconds of its jobs that ended in the
 * window, each clipped to the part of its run inside the window (a run of that length ending at
 * finished_at), plus its running jobs' time so far; the time of the earlier attempts of a job
 * queued again at start-up counts once it runs again. Each part is a range of an index:
 * jobs_finished for the window, jobs_queue for the running jobs, jobs_user_queue for each user's
 * head job. */
#define CLAIM_FAIR_SQL                                                                             \
  "WITH used(owner_id, s) AS ("                                                                    \
  "SELECT owner_id, "                                                                              \
  "MIN(busy_seconds, (julianday(finished_at) - julianday('now')) * 86400.0 + ?1) "                 \
  "FROM jobs WHERE finished_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?2) AND busy_seconds > 0 "  \
  "UNION ALL SELECT owner_id, "                                                                    \
  "MIN(?1, busy_seconds + (julianday('now') - julianday(started_at)) * 86400.0) "                  \
  "FROM jobs WHERE state = 'running'), "                                                           \
  "usage(owner_id, s) AS (SELECT owner_id, SUM(s) FROM used GROUP BY owner_id), "                  \
  "heads(id) AS (SELECT (SELECT q.id FROM jobs q WHERE q.state = 'queued' "                        \
  "AND q.owner_id = o.owner_id ORDER BY q.priority DESC, q.seq LIMIT 1) "                          \
  "FROM (SELECT DISTINCT owner_id FROM jobs WHERE state = 'queued') o) "                           \
  "SELECT j.id, j.attempts + 1, j.owner_id, COALESCE(u.s, 0.0), COALESCE(j.results_attempt, 0) "   \
  "FROM heads h JOIN jobs j ON j.id = h.id JOIN users w ON w.id = j.owner_id "                     \
  "LEFT JOIN usage u ON u.owner_id = j.owner_id WHERE j.state = 'queued' "                         \
  "ORDER BY COALESCE(u.s, 0.0) / w.share, j.priority DESC, j.seq LIMIT 1 " CLAIM_LOCK

/* Without fair sharing (fair_share_window = 0): priority, then submission order. */
#define CLAIM_FIFO_SQL                                                                             \
  "SELECT j.id, j.attempts + 1, j.owner_id, 0.0, COALESCE(j.results_attempt, 0) FROM jobs j "      \
  "WHERE j.state = 'queued' ORDER BY j.priority DESC, j.seq LIMIT 1 " CLAIM_LOCK

/* The job dt_job_claim takes next (c->id empty: none), inside its transaction. */
static dt_status next_job(long long window, dt_job_claimed *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  char modifier[48];
  int row;
  if (window > 0) {
    DT_TRY(dt_stmt(CLAIM_FAIR_SQL, &st, ctx));
    snprintf(modifier, sizeof modifier, "-%lld seconds", window);
    dt_bind_int64(st, 1, window);
    dt_bind_text(st, 2, modifier);
  } else {
    DT_TRY(dt_stmt(CLAIM_FIFO_SQL, &st, ctx));
  }
  DT_TRY(dt_stmt_row(st, "find a queued job", &row, ctx));
  if (!row) goto cleanup;
  snprintf(c->id, sizeof c->id, "%s", dt_col_text(st, 0));
  c->attempt = dt_col_int(st, 1);
  c->owner_id = dt_col_int64(st, 2);
  c->usage = dt_col_double(st, 3);
  c->from_attempt = dt_col_int(st, 4);
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* The modifier of a lease of seconds from now ("+30 seconds"), for strftime. */
static void lease_modifier(long long seconds, char *out, size_t cap) {
  snprintf(out, cap, "+%lld seconds", seconds);
}

dt_status dt_job_claim(int worker, long long window, const dt_lease *lease, dt_job_claimed *c,
                       dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  json_t *ev = NULL;
  char until[48];
  int changes = 0;
  memset(c, 0, sizeof *c);
  lease_modifier(lease->seconds, until, sizeof until);
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(next_job(window, c, ctx));
  if (!c->id[0]) goto cleanup;
  /* The increments of an earlier attempt stay: a resumed run keeps them (the worker trims
   * them to what the checkpoint covers, or to none when it starts from the beginning). */
  DT_TRY(
      dt_stmt("UPDATE jobs SET state = 'running', worker = ?2, attempts = attempts + 1, "
              "started_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), step = NULL, increment = NULL, "
              "newton_iter = NULL, residual = NULL, percent = 0, increments_done = 0, "
              "lease_owner = ?3, lease_expires = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?4) "
              "WHERE id = ?1 AND state = 'queued'",
              &st, ctx));
  dt_bind_text(st, 1, c->id);
  dt_bind_int64(st, 2, worker);
  dt_bind_text(st, 3, lease->owner);
  dt_bind_text(st, 4, until);
  DT_TRY(dt_stmt_run(&st, "claim job", &changes, ctx));
  DT_CHECK(changes == 1, ctx, DT_ERR_DB, "database error (claim job): job %s is no longer queued",
           c->id);
  ev = json_pack("{s:s, s:i, s:i}", "state", "running", "worker", worker, "attempt", c->attempt);
  DT_TRY(dt_event_append_tx(c->id, "job.started", ev, ctx));
  DT_TRY(dt_store_commit(ctx));
  dt_bus_notify();
cleanup:
  if (rc != DT_OK) c->id[0] = '\0';
  dt_stmt_done(&st);
  dt_store_rollback();
  json_decref(ev);
  return rc;
}

dt_status dt_job_cancel_requested(const char *id, int *requested, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  *requested = 0;
  DT_TRY(dt_stmt("SELECT cancel_requested FROM jobs WHERE id = ?1", &st, ctx));
  dt_bind_text(st, 1, id);
  DT_TRY(dt_stmt_row(st, "cancel requested", &row, ctx));
  if (row) *requested = dt_col_int(st, 0);
cleanup:
  dt_stmt_done(&st);
  return rc;
}

static void bind_opt_int(dt_sql *st, int i, int v) {
  if (v < 0)
    dt_bind_null(st, i);
  else
    dt_bind_int64(st, i, v);
}

/* This daemon's instance when it shares the store (dt_jobs_set_instance); "" otherwise. Set once
 * before the workers start. */
static char g_instance[128];

void dt_jobs_set_instance(const char *instance) {
  snprintf(g_instance, sizeof g_instance, "%s", instance ? instance : "");
}

/* The job's progress columns, unless the run is no longer the job's (*held = 0): with a shared
 * store, the job is running under this daemon's lease in this attempt. */
static dt_status progress_update(const char *id, int attempt, const dt_job_progress *p, int *held,
                                 dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int changes = 0;
  DT_TRY(dt_stmt(
      "UPDATE jobs SET step = ?2, n_steps = ?3, increment = ?4, newton_iter = ?5, residual = ?6, "
      "percent = ?7, increments_done = ?8 WHERE id = ?1 AND (?9 IS NULL OR (state = 'running' "
      "AND lease_owner = ?9 AND attempts = ?10))",
      &st, ctx));
  dt_bind_text(st, 1, id);
  bind_opt_int(st, 2, p->step);
  dt_bind_int64(st, 3, p->n_steps);
  bind_opt_int(st, 4, p->increment);
  bind_opt_int(st, 5, p->newton_iter);
  if (p->newton_iter >= 0)
    dt_bind_double(st, 6, p->residual);
  else
    dt_bind_null(st, 6);
  dt_bind_double(st, 7, p->percent);
  dt_bind_int64(st, 8, p->increments_done);
  dt_bind_text(st, 9, g_instance[0] ? g_instance : NULL);
  dt_bind_int64(st, 10, attempt);
  DT_TRY(dt_stmt_run(&st, "job progress", &changes, ctx));
  *held = changes > 0 || !g_instance[0];
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_job_progress_event(const char *id, int attempt, const dt_job_progress *p,
                                const char *type, json_t *data, int *held, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  *held = 1;
  DT_TRY(dt_store_begin(ctx));
  if (p) DT_TRY(progress_update(id, attempt, p, held, ctx));
  if (!*held) goto cleanup; /* another run's job now: nothing of this one is written */
  DT_TRY(dt_event_append_tx(id, type, data, ctx));
  DT_TRY(dt_store_commit(ctx));
  dt_bus_notify();
cleanup:
  dt_store_rollback();
  return rc;
}

/* The statements on the increments of a run (record, trim) hold only while the job is running in
 * the run's attempt: the EXISTS below. Its FOR SHARE holds the job's row (PostgreSQL) until the
 * statement's transaction ends, so another daemon queues the job again only after it: a row of
 * a run that lost the job cannot land after the next attempt has trimmed the increments. SQLite
 * parses ON CONFLICT after INSERT ... SELECT only when the SELECT has a WHERE, as here. */
#define INCREMENT_SQL                                                                              \
  "INSERT INTO increments (job_id, n, step, increment, load_factor, time, has_vtu, created_at) "   \
  "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE EXISTS (SELECT " \
  "1 FROM jobs WHERE id = ?1 AND state = 'running' AND attempts = ?8 /*pg: FOR SHARE */) "         \
  "ON CONFLICT (job_id, n) DO UPDATE SET step = excluded.step, increment = excluded.increment, "   \
  "load_factor = excluded.load_factor, time = excluded.time, has_vtu = excluded.has_vtu, "         \
  "created_at = excluded.created_at"
#define TRIM_SQL                                                                                   \
  "DELETE FROM increments WHERE job_id = ?1 AND n > ?2 AND EXISTS (SELECT 1 FROM jobs WHERE id = " \
  "?1 AND state = 'running' AND attempts = ?3 /*pg: FOR SHARE */)"

dt_status dt_job_publish(const char *id, int attempt, int *held, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int changes = 0;
  *held = 0;
  DT_TRY(dt_stmt("UPDATE jobs SET results_attempt = ?2 WHERE id = ?1 AND state = 'running' AND "
                 "attempts = ?2",
                 &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_int64(st, 2, attempt);
  DT_TRY(dt_stmt_run(&st, "publish the attempt's results", &changes, ctx));
  *held = changes == 1;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_job_results_attempt(const char *id, int *attempt, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row = 0;
  *attempt = 0;
  DT_TRY(dt_stmt("SELECT COALESCE(results_attempt, 0) FROM jobs WHERE id = ?1", &st, ctx));
  dt_bind_text(st, 1, id);
  DT_TRY(dt_stmt_row(st, "find the job's results", &row, ctx));
  if (row) *attempt = dt_col_int(st, 0);
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_job_increment_record(const char *id, int attempt, int n, int step, int inc, double lf,
                                  double time, int has_vtu, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  DT_TRY(dt_stmt(INCREMENT_SQL, &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_int64(st, 2, n);
  dt_bind_int64(st, 3, step);
  dt_bind_int64(st, 4, inc);
  dt_bind_double(st, 5, lf);
  dt_bind_double(st, 6, time);
  dt_bind_int64(st, 7, has_vtu);
  dt_bind_int64(st, 8, attempt);
  DT_TRY(dt_stmt_run(&st, "record increment", NULL, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_job_increments_trim(const char *id, int attempt, int keep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  DT_TRY(dt_stmt(TRIM_SQL, &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_int64(st, 2, keep);
  dt_bind_int64(st, 3, attempt);
  DT_TRY(dt_stmt_run(&st, "trim increments", NULL, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_job_set_backend(const char *id, const char *backend, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  DT_TRY(dt_stmt("UPDATE jobs SET backend = ?2 WHERE id = ?1 AND state = 'running'", &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_text(st, 2, backend);
  DT_TRY(dt_stmt_run(&st, "set backend", NULL, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* The end of job id by the run of attempt changed no row: *lost is 1 when the job is no longer
 * that run's (it lost the lease while it ran, a pause longer than lease_seconds: another daemon
 * queued the job again, runs it in a later attempt or has ended it), else 0. A lost run's end is
 * dropped, with a warning: the other run ends the job. */
static dt_status lease_lost(const char *id, int attempt, int *lost, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row = 0;
  DT_TRY(dt_stmt("SELECT state, lease_owner, attempts FROM jobs WHERE id = ?1", &st, ctx));
  dt_bind_text(st, 1, id);
  DT_TRY(dt_stmt_row(st, "find the job's lease", &row, ctx));
  if (!row ||
      (!strcmp(dt_col_text(st, 0), "running") && dt_col_int(st, 2) == attempt &&
       (!g_instance[0] || (!dt_col_null(st, 1) && !strcmp(dt_col_text(st, 1), g_instance)))))
    goto cleanup;
  dt_log_warn("job %s: this run (attempt %d) lost the job while it ran it (now %s, attempt %d, "
              "lease %s): this run's end is dropped",
              id, attempt, dt_col_text(st, 0), dt_col_int(st, 2),
              dt_col_null(st, 1) ? "none" : dt_col_text(st, 1));
  *lost = 1;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_job_finish(const char *id, const dt_job_end *end, int *kept, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char type[32], *timings = NULL;
  dt_sql *st = NULL;
  int changes = 0, lost = 0, row = 0, results = 0;
  *kept = -1;
  snprintf(type, sizeof type, "job.%s", end->state);
  if (end->timings) {
    timings = json_dumps(end->timings, JSON_COMPACT);
    DT_CHECK(timings != NULL, ctx, DT_ERR_NOMEM, "out of memory encoding the timings of job %s",
             id);
  }
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(dt_stmt(
      "UPDATE jobs SET state = ?2, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
      "error_code = ?3, "
      "message = ?4, reason = ?5, backend = ?6, timings = ?7, percent = CASE WHEN ?2 = "
      "'succeeded' THEN "
      "100 ELSE percent END, busy_seconds = busy_seconds + ?8, stored_bytes = ?9 WHERE id = "
      "?1 AND state = 'running' AND attempts = ?11 AND (?10 IS NULL OR lease_owner IS NULL OR "
      "lease_owner = ?10)",
      &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_text(st, 2, end->state);
  dt_bind_text(st, 3, end->error_code);
  dt_bind_text(st, 4, end->message);
  dt_bind_text(st, 5, end->reason);
  dt_bind_text(st, 6, end->backend);
  dt_bind_text(st, 7, timings);
  dt_bind_double(st, 8, end->busy_seconds > 0 ? end->busy_seconds : 0.0);
  dt_bind_int64(st, 9, end->stored_bytes > 0 ? end->stored_bytes : 0);
  dt_bind_text(st, 10, g_instance[0] ? g_instance : NULL);
  dt_bind_int64(st, 11, end->attempt);
  DT_TRY(dt_stmt_run(&st, "finish job", &changes, ctx));
  if (changes == 0) DT_TRY(lease_lost(id, end->attempt, &lost, ctx));
  if (lost) goto cleanup; /* nothing written: the rollback ends the transaction */
  DT_CHECK(changes == 1, ctx, DT_ERR_DB, "database error (finish job): job %s is not running", id);
  DT_TRY(dt_event_append_tx(id, type, end->event_data, ctx));
  dt_stmt_done(&st);
  DT_TRY(dt_stmt("SELECT COALESCE(results_attempt, 0) FROM jobs WHERE id = ?1", &st, ctx));
  dt_bind_text(st, 1, id);
  DT_TRY(dt_stmt_row(st, "find the job's results", &row, ctx));
  results = row ? dt_col_int(st, 0) : 0;
  dt_stmt_done(&st);
  DT_TRY(dt_store_commit(ctx));
  *kept = results;
  dt_bus_notify();
cleanup:
  dt_stmt_done(&st);
  dt_store_rollback();
  free(timings);
  return rc;
}

dt_status dt_job_add_busy(const char *id, double seconds, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  DT_TRY(dt_stmt("UPDATE jobs SET busy_seconds = busy_seconds + ?2 WHERE id = ?1", &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_double(st, 2, seconds > 0 ? seconds : 0.0);
  DT_TRY(dt_stmt_run(&st, "record busy seconds", NULL, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* The checkpoint of the job's results attempt (the one the next attempt starts from) exists?
 * With drop, remove it (nothing will resume). */
static int has_checkpoint(const char *data_dir, const char *id, int attempt, int drop) {
  char path[4300];
  dt_job_dir(path, sizeof path - 32, data_dir, id, attempt);
  snprintf(path + strlen(path), sizeof path - strlen(path), "/" DT_CHECKPOINT_FILE);
  if (drop) unlink(path);
  return !drop && access(path, F_OK) == 0;
}

/* One running job at start-up, or whose lease ended (expired: 1): cancelled when cancellation was
 * requested, else queued again. attempt: its results_attempt. */
static dt_status recover_one(const char *data_dir, const char *id, int attempt, int cancel,
                             int expired, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *ev = NULL;
  int ck = has_checkpoint(data_dir, id, attempt, cancel);
  if (cancel) {
    DT_TRY(exec1(
        "UPDATE jobs SET state = 'cancelled', finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
        "lease_owner = NULL, lease_expires = NULL WHERE id = ?1",
        id, "recover cancelled job", ctx));
    ev = json_pack("{s:s, s:s}", "state", "cancelled", "message",
                   "cancelled: cancellation was requested before the daemon stopped");
    DT_TRY(dt_event_append_tx(id, "job.cancelled", ev, ctx));
    goto cleanup;
  }
  /* Queued again at its old place (seq); the worker resumes it from its checkpoint and says so
   * in a job.resumed or job.restarted event. */
  DT_TRY(exec1("UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires = NULL "
               "WHERE id = ?1",
               id, "recover job", ctx));
  if (expired)
    ev = json_pack("{s:s, s:b, s:s}", "state", "queued", "checkpoint", ck, "message",
                   ck ? "the lease of the daemon running this job ended (it stopped or lost the "
                        "database); queued again: it resumes from its checkpoint"
                      : "the lease of the daemon running this job ended (it stopped or lost the "
                        "database); queued again: no checkpoint, it restarts from the beginning");
  else
    ev = json_pack("{s:s, s:b, s:s}", "state", "queued", "checkpoint", ck, "message",
                   ck ? "the daemon stopped while this job was running; queued again: it resumes "
                        "from its checkpoint"
                      : "the daemon stopped while this job was running; queued again: no "
                        "checkpoint, it restarts from the beginning");
  DT_TRY(dt_event_append_tx(id, "job.recovered", ev, ctx));
cleanup:
  json_decref(ev);
  return rc;
}

#define RECOVER_BATCH 64

/* The running jobs recovered at start-up: every one (?1 NULL: SQLite, this daemon's store), or
 * those of this daemon's instance (?1), whose earlier run it was. */
#define RECOVER_SQL                                                                                \
  "SELECT j.id, j.cancel_requested, COALESCE(j.results_attempt, 0) FROM jobs j WHERE j.state = "   \
  "'running' AND (?1 IS NULL OR j.lease_owner = ?1) ORDER BY j.seq LIMIT 64 " CLAIM_LOCK
/* The running jobs whose lease has ended, whichever daemon held it (jobs_lease). */
#define EXPIRED_SQL                                                                                \
  "SELECT j.id, j.cancel_requested, COALESCE(j.results_attempt, 0) FROM jobs j WHERE j.state = "   \
  "'running' AND j.lease_expires < strftime('%Y-%m-%dT%H:%M:%fZ', 'now') ORDER BY j.seq LIMIT "    \
  "64 " CLAIM_LOCK

/* Up to RECOVER_BATCH running jobs that sql selects (bound to owner), in one transaction; *k
 * receives how many (0: none left). */
static dt_status recover_batch(const char *data_dir, const char *sql, const char *owner,
                               int expired, int *k, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  char ids[RECOVER_BATCH][20];
  int cancel[RECOVER_BATCH], attempt[RECOVER_BATCH], row = 1;
  *k = 0;
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(dt_stmt(sql, &st, ctx));
  if (!expired) dt_bind_text(st, 1, owner);
  while (*k < RECOVER_BATCH) {
    DT_TRY(dt_stmt_row(st, "find running jobs", &row, ctx));
    if (!row) break;
    snprintf(ids[*k], sizeof ids[*k], "%s", dt_col_text(st, 0));
    attempt[*k] = dt_col_int(st, 2);
    cancel[(*k)++] = dt_col_int(st, 1);
  }
  dt_stmt_done(&st);
  for (int i = 0; i < *k; i++)
    DT_TRY(recover_one(data_dir, ids[i], attempt[i], cancel[i], expired, ctx));
  DT_TRY(dt_store_commit(ctx));
  if (*k > 0) dt_bus_notify();
cleanup:
  dt_stmt_done(&st);
  dt_store_rollback();
  return rc;
}

dt_status dt_job_recover(const char *data_dir, const char *owner, int *n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int k = 0;
  *n = 0;
  do {
    DT_TRY(recover_batch(data_dir, RECOVER_SQL, owner, 0, &k, ctx));
    *n += k;
  } while (k > 0);
cleanup:
  return rc;
}

dt_status dt_job_requeue_expired(const char *data_dir, int *n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int k = 0;
  *n = 0;
  do {
    DT_TRY(recover_batch(data_dir, EXPIRED_SQL, NULL, 1, &k, ctx));
    *n += k;
  } while (k > 0);
cleanup:
  return rc;
}

dt_status dt_job_leases_renew(const dt_lease *lease, dt_job_cancels *cancels, dt_job_held *held,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  char until[48];
  int row = 1;
  cancels->n = 0;
  held->n = 0;
  lease_modifier(lease->seconds, until, sizeof until);
  DT_TRY(dt_stmt("UPDATE jobs SET lease_expires = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?2) "
                 "WHERE state = 'running' AND lease_owner = ?1 RETURNING id, cancel_requested",
                 &st, ctx));
  dt_bind_text(st, 1, lease->owner);
  dt_bind_text(st, 2, until);
  for (;;) {
    DT_TRY(dt_stmt_row(st, "renew leases", &row, ctx));
    if (!row) break;
    if (held->n < DT_MAX_HELD)
      snprintf(held->id[held->n++], sizeof held->id[0], "%s", dt_col_text(st, 0));
    if (dt_col_int(st, 1) && cancels->n < DT_MAX_CANCELS)
      snprintf(cancels->id[cancels->n++], sizeof cancels->id[0], "%s", dt_col_text(st, 0));
  }
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_job_leases_release(const char *owner, int *n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  DT_TRY(dt_stmt("UPDATE jobs SET lease_expires = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', "
                 "'-1 seconds') WHERE state = 'running' AND lease_owner = ?1",
                 &st, ctx));
  dt_bind_text(st, 1, owner);
  DT_TRY(dt_stmt_run(&st, "release leases", n, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_job_counts(json_t **out, long long *queued, dt_ctx *ctx) {
  static const char *const states[] = {"queued", "running", "succeeded", "failed", "cancelled"};
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  json_t *counts = json_object();
  int row;
  *out = NULL;
  *queued = 0;
  DT_CHECK(counts != NULL, ctx, DT_ERR_NOMEM, "out of memory counting jobs");
  for (int i = 0; i < 5; i++) json_object_set_new(counts, states[i], json_integer(0));
  DT_TRY(dt_stmt("SELECT state, COUNT(*) FROM jobs GROUP BY state", &st, ctx));
  for (;;) {
    DT_TRY(dt_stmt_row(st, "count jobs", &row, ctx));
    if (!row) break;
    json_object_set_new(counts, dt_col_text(st, 0), json_integer(dt_col_int64(st, 1)));
    if (!strcmp(dt_col_text(st, 0), "queued")) *queued = dt_col_int64(st, 1);
  }
  *out = counts;
  counts = NULL;
cleanup:
  dt_stmt_done(&st);
  json_decref(counts);
  return rc;
}

static json_t *increment_json(dt_sql *st, const char *id) {
  char vtu[128];
  int n = dt_col_int(st, 0);
  snprintf(vtu, sizeof vtu, "/v1/jobs/%s/results/increments/%d/vtu", id, n);
  return json_pack("{s:i, s:i, s:i, s:f, s:f, s:o}", "n", n, "step", dt_col_int(st, 1), "increment",
                   dt_col_int(st, 2), "load_factor", dt_col_double(st, 3), "time",
                   dt_col_double(st, 4), "vtu", dt_col_int(st, 5) ? json_string(vtu) : json_null());
}

dt_status dt_job_increments(const char *id, json_t **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  json_t *list = json_array();
  int row;
  *out = NULL;
  DT_CHECK(list != NULL, ctx, DT_ERR_NOMEM, "out of memory listing increments");
  DT_TRY(dt_stmt("SELECT n, step, increment, load_factor, time, has_vtu FROM increments WHERE "
                 "job_id = ?1 ORDER BY n",
                 &st, ctx));
  dt_bind_text(st, 1, id);
  for (;;) {
    DT_TRY(dt_stmt_row(st, "list increments", &row, ctx));
    if (!row) break;
    json_array_append_new(list, increment_json(st, id));
  }
  *out = list;
  list = NULL;
cleanup:
  dt_stmt_done(&st);
  json_decref(list);
  return rc;
}

dt_status dt_job_increment_exists(const char *id, int n, int *has_vtu, dt_outcome *outcome,
                                  dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  *outcome = DT_NOT_FOUND;
  DT_TRY(dt_stmt("SELECT has_vtu FROM increments WHERE job_id = ?1 AND n = ?2", &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_int64(st, 2, n);
  DT_TRY(dt_stmt_row(st, "find increment", &row, ctx));
  if (!row) goto cleanup;
  *has_vtu = dt_col_int(st, 0);
  *outcome = DT_DONE;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_user_stored_bytes(long long owner_id, long long *bytes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row = 0;
  *bytes = 0;
  DT_TRY(dt_stmt("SELECT (SELECT COALESCE(SUM(bytes), 0) FROM meshes WHERE owner_id = ?1) + "
                 "(SELECT COALESCE(SUM(stored_bytes), 0) FROM jobs WHERE owner_id = ?1)",
                 &st, ctx));
  dt_bind_int64(st, 1, owner_id);
  DT_TRY(dt_stmt_row(st, "sum a user's stored bytes", &row, ctx));
  if (row) *bytes = dt_col_int64(st, 0);
cleanup:
  dt_stmt_done(&st);
  return rc;
}
