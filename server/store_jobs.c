/* Job rows and state transitions (see store_jobs.h). */
#include "store_jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "log.h"
#include "store.h"
#include "store_events.h"

#define JOB_COLS                                                                                      \
  "id, state, title, mesh_id, created_at, started_at, finished_at, attempts, cancel_requested, n_steps, " \
  "step, increment, newton_iter, residual, percent, increments_done, backend, error_code, message, "      \
  "reason, timings, seq, (julianday(started_at) - julianday(created_at)) * 86400.0, "                    \
  "(julianday(COALESCE(finished_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) - julianday(started_at)) * 86400.0, " \
  "est_device_bytes, (SELECT name FROM users WHERE users.id = jobs.owner_id), "                        \
  "(SELECT name FROM tokens WHERE tokens.id = jobs.token_id)"

static json_t *opt_text(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? json_null() : json_string(dt_col_text(st, i));
}
static json_t *opt_int(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, i));
}
static json_t *opt_real(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? json_null() : json_real(sqlite3_column_double(st, i));
}

static json_t *job_json(sqlite3_stmt *st) {
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
  json_object_set_new(o, "attempts", json_integer(sqlite3_column_int(st, 7)));
  json_object_set_new(o, "cancel_requested", json_boolean(sqlite3_column_int(st, 8)));
  json_object_set_new(o, "owner", opt_text(st, 25));
  json_object_set_new(o, "owner_token", opt_text(st, 26));
  json_object_set_new(o, "backend", opt_text(st, 16));
  json_object_set_new(o, "memory_estimate_bytes", opt_int(st, 24));
  progress = json_object();
  json_object_set_new(progress, "n_steps", json_integer(sqlite3_column_int(st, 9)));
  json_object_set_new(progress, "step", opt_int(st, 10));
  json_object_set_new(progress, "increment", opt_int(st, 11));
  json_object_set_new(progress, "newton_iteration", opt_int(st, 12));
  json_object_set_new(progress, "residual", opt_real(st, 13));
  json_object_set_new(progress, "percent", json_real(sqlite3_column_double(st, 14)));
  json_object_set_new(progress, "increments_completed", json_integer(sqlite3_column_int(st, 15)));
  json_object_set_new(o, "progress", progress);
  timings = sqlite3_column_type(st, 20) == SQLITE_NULL ? NULL : json_loads(dt_col_text(st, 20), 0, NULL);
  if (!json_is_object(timings)) {
    json_decref(timings);
    timings = json_object();
  }
  json_object_set_new(timings, "queued_seconds", opt_real(st, 22));
  json_object_set_new(timings, "run_seconds", opt_real(st, 23));
  json_object_set_new(o, "timings", timings);
  if (sqlite3_column_type(st, 17) != SQLITE_NULL)
    err = json_pack("{s:s, s:s, s:o}", "code", dt_col_text(st, 17), "message", dt_col_text(st, 18), "reason",
                    opt_text(st, 19));
  json_object_set_new(o, "error", err ? err : json_null());
  links = json_object();
  snprintf(link, sizeof link, "/v1/jobs/%s/events", id);
  json_object_set_new(links, "events", json_string(link));
  snprintf(link, sizeof link, "/v1/jobs/%s/results", id);
  json_object_set_new(links, "results", json_string(link));
  json_object_set_new(o, "links", links);
  return o;
}

int dt_job_insert(const dt_job_new *j, long long max_queued) {
  char now[40];
  int rc = DT_STORE_ERR;
  sqlite3_stmt *st;
  json_t *ev;
  if (dt_store_begin()) return DT_STORE_ERR;
  st = dt_stmt("SELECT COUNT(*) FROM jobs WHERE state = 'queued'");
  if (!st) goto fail;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) >= max_queued) rc = DT_STORE_CONFLICT;
  dt_stmt_done(st);
  if (rc == DT_STORE_CONFLICT) goto out;
  if (j->mesh_id[0]) {
    rc = DT_STORE_NOTFOUND;
    st = dt_stmt("SELECT 1 FROM meshes WHERE id = ?1");
    if (!st) goto fail;
    dt_bind_text(st, 1, j->mesh_id);
    if (sqlite3_step(st) == SQLITE_ROW) rc = DT_STORE_OK;
    dt_stmt_done(st);
    if (rc == DT_STORE_NOTFOUND) goto out;
  }
  dt_now_iso(now, sizeof now);
  st = dt_stmt("INSERT INTO jobs (id, owner_id, mesh_id, title, state, created_at, n_steps, est_device_bytes, "
               "token_id) VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?6, ?7, ?8)");
  if (!st) goto fail;
  dt_bind_text(st, 1, j->id);
  sqlite3_bind_int64(st, 2, j->owner_id);
  dt_bind_text(st, 3, j->mesh_id[0] ? j->mesh_id : NULL);
  dt_bind_text(st, 4, j->title[0] ? j->title : NULL);
  dt_bind_text(st, 5, now);
  sqlite3_bind_int(st, 6, j->n_steps);
  if (j->est_bytes > 0) sqlite3_bind_int64(st, 7, j->est_bytes);
  else sqlite3_bind_null(st, 7);
  dt_bind_text(st, 8, j->token_id[0] ? j->token_id : NULL);
  rc = sqlite3_step(st) == SQLITE_DONE ? DT_STORE_OK : DT_STORE_ERR;
  dt_stmt_done(st);
  if (rc) goto fail;
  ev = json_pack("{s:s}", "state", "queued");
  rc = dt_event_append_tx(j->id, "job.queued", ev);
  json_decref(ev);
  if (rc || dt_store_commit()) goto fail;
  dt_bus_notify();
  return DT_STORE_OK;
out:
  dt_store_rollback();
  return rc;
fail:
  dt_store_fail("insert job");
  dt_store_rollback();
  return DT_STORE_ERR;
}

int dt_job_get(const char *id, json_t **out) {
  int step, rc;
  sqlite3_stmt *st = dt_stmt("SELECT " JOB_COLS " FROM jobs WHERE id = ?1");
  *out = NULL;
  if (!st) return DT_STORE_ERR;
  dt_bind_text(st, 1, id);
  step = sqlite3_step(st);
  if (step == SQLITE_ROW) {
    *out = job_json(st);
    rc = DT_STORE_OK;
  } else {
    rc = step == SQLITE_DONE ? DT_STORE_NOTFOUND : dt_store_fail("get job");
  }
  dt_stmt_done(st);
  return rc;
}

int dt_job_state(const char *id, char *state, size_t len) {
  int step, rc;
  sqlite3_stmt *st = dt_stmt("SELECT state FROM jobs WHERE id = ?1");
  state[0] = '\0';
  if (!st) return DT_STORE_ERR;
  dt_bind_text(st, 1, id);
  step = sqlite3_step(st);
  if (step == SQLITE_ROW) snprintf(state, len, "%s", dt_col_text(st, 0));
  rc = step == SQLITE_ROW ? DT_STORE_OK : step == SQLITE_DONE ? DT_STORE_NOTFOUND : dt_store_fail("job state");
  dt_stmt_done(st);
  return rc;
}

int dt_job_list(const dt_job_filter *f, json_t **items, long long *next) {
  int step, n = 0;
  long long last = 0;
  sqlite3_stmt *st = dt_stmt("SELECT " JOB_COLS " FROM jobs WHERE (?1 = 0 OR seq < ?1) AND (?2 IS NULL OR mesh_id = ?2) "
                             "AND (?3 IS NULL OR state IN (?3, ?4, ?5, ?6, ?7)) "
                             "AND (?9 IS NULL OR owner_id = (SELECT id FROM users WHERE name = ?9)) "
                             "ORDER BY seq DESC LIMIT ?8");
  *items = json_array();
  *next = 0;
  if (!st || !*items) return DT_STORE_ERR;
  sqlite3_bind_int64(st, 1, f->before);
  dt_bind_text(st, 2, f->mesh_id);
  for (int i = 0; i < 5; i++) dt_bind_text(st, 3 + i, f->states[i] ? f->states[i] : (i ? f->states[0] : NULL));
  sqlite3_bind_int(st, 8, f->limit + 1);
  dt_bind_text(st, 9, f->owner);
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    if (n == f->limit) {
      *next = last;
      break;
    }
    json_array_append_new(*items, job_json(st));
    last = sqlite3_column_int64(st, 21);
    n++;
  }
  dt_stmt_done(st);
  if (step != SQLITE_ROW && step != SQLITE_DONE) {
    json_decref(*items);
    *items = NULL;
    return dt_store_fail("list jobs");
  }
  return DT_STORE_OK;
}

/* Run a one-parameter UPDATE/DELETE; returns rows changed or -1. */
static int exec1(const char *sql, const char *id) {
  int n = -1;
  sqlite3_stmt *st = dt_stmt(sql);
  if (!st) return -1;
  dt_bind_text(st, 1, id);
  if (sqlite3_step(st) == SQLITE_DONE) n = sqlite3_changes(dt_db());
  dt_stmt_done(st);
  return n;
}

int dt_job_cancel(const char *id, int *running) {
  char state[16];
  int rc;
  json_t *ev = NULL;
  *running = 0;
  if (dt_store_begin()) return DT_STORE_ERR;
  rc = dt_job_state(id, state, sizeof state);
  if (rc) goto out;
  if (!strcmp(state, "queued")) {
    if (exec1("UPDATE jobs SET state = 'cancelled', finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
              "WHERE id = ?1 AND state = 'queued'", id) != 1)
      goto fail;
    ev = json_pack("{s:s, s:s}", "state", "cancelled", "message", "cancelled while queued");
    if (dt_event_append_tx(id, "job.cancelled", ev)) goto fail;
  } else if (!strcmp(state, "running")) {
    *running = 1;
    if (exec1("UPDATE jobs SET cancel_requested = 1 WHERE id = ?1 AND state = 'running'", id) != 1) goto fail;
    ev = json_pack("{s:s}", "message", "cancellation requested: the job stops at its next Newton iteration");
    if (dt_event_append_tx(id, "job.cancel_requested", ev)) goto fail;
  } else {
    rc = DT_STORE_CONFLICT;
    goto out;
  }
  json_decref(ev);
  if (dt_store_commit()) {
    dt_store_rollback();
    return DT_STORE_ERR;
  }
  dt_bus_notify();
  return DT_STORE_OK;
out:
  dt_store_rollback();
  return rc;
fail:
  json_decref(ev);
  dt_store_fail("cancel job");
  dt_store_rollback();
  return DT_STORE_ERR;
}

int dt_job_delete(const char *id) {
  char state[16];
  int rc;
  if (dt_store_begin()) return DT_STORE_ERR;
  rc = dt_job_state(id, state, sizeof state);
  if (rc == DT_STORE_OK && (!strcmp(state, "queued") || !strcmp(state, "running"))) rc = DT_STORE_CONFLICT;
  if (rc == DT_STORE_OK && exec1("DELETE FROM jobs WHERE id = ?1", id) != 1) rc = DT_STORE_ERR;
  if (rc == DT_STORE_OK && dt_store_commit() == 0) {
    dt_bus_notify();
    return DT_STORE_OK;
  }
  dt_store_rollback();
  return rc;
}

int dt_job_claim(int worker, char *id, size_t idlen, int *attempt, char *mesh_id, size_t meshlen) {
  sqlite3_stmt *st;
  int found = 0;
  json_t *ev;
  id[0] = mesh_id[0] = '\0';
  if (dt_store_begin()) return DT_STORE_ERR;
  /* Submission order; the priority column is where fair sharing will plug in. */
  st = dt_stmt("SELECT id, attempts + 1, mesh_id FROM jobs WHERE state = 'queued' ORDER BY priority DESC, seq LIMIT 1");
  if (!st) goto fail;
  if (sqlite3_step(st) == SQLITE_ROW) {
    snprintf(id, idlen, "%s", dt_col_text(st, 0));
    *attempt = sqlite3_column_int(st, 1);
    snprintf(mesh_id, meshlen, "%s", dt_col_text(st, 2));
    found = 1;
  }
  dt_stmt_done(st);
  if (!found) {
    dt_store_rollback();
    return DT_STORE_OK;
  }
  st = dt_stmt("UPDATE jobs SET state = 'running', worker = ?2, attempts = attempts + 1, "
               "started_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), step = NULL, increment = NULL, "
               "newton_iter = NULL, residual = NULL, percent = 0, increments_done = 0 WHERE id = ?1 AND state = 'queued'");
  if (!st) goto fail;
  dt_bind_text(st, 1, id);
  sqlite3_bind_int(st, 2, worker);
  found = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(dt_db()) == 1;
  dt_stmt_done(st);
  /* The increments of an earlier attempt stay: a resumed run keeps them (the worker trims
   * them to what the checkpoint covers, or to none when it starts from the beginning). */
  if (!found) goto fail;
  ev = json_pack("{s:s, s:i, s:i}", "state", "running", "worker", worker, "attempt", *attempt);
  found = dt_event_append_tx(id, "job.started", ev) == 0;
  json_decref(ev);
  if (!found || dt_store_commit()) goto fail;
  dt_bus_notify();
  return DT_STORE_OK;
fail:
  id[0] = '\0';
  dt_store_fail("claim job");
  dt_store_rollback();
  return DT_STORE_ERR;
}

int dt_job_cancel_requested(const char *id) {
  int v = 0;
  sqlite3_stmt *st = dt_stmt("SELECT cancel_requested FROM jobs WHERE id = ?1");
  if (!st) return 0;
  dt_bind_text(st, 1, id);
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
  dt_stmt_done(st);
  return v;
}

static void bind_opt_int(sqlite3_stmt *st, int i, int v) {
  if (v < 0) sqlite3_bind_null(st, i);
  else sqlite3_bind_int(st, i, v);
}

int dt_job_progress_event(const char *id, const dt_job_progress *p, const char *type, json_t *data) {
  sqlite3_stmt *st;
  int ok;
  if (dt_store_begin()) return DT_STORE_ERR;
  if (p) {
    st = dt_stmt("UPDATE jobs SET step = ?2, n_steps = ?3, increment = ?4, newton_iter = ?5, residual = ?6, "
                 "percent = ?7, increments_done = ?8 WHERE id = ?1");
    if (!st) goto fail;
    dt_bind_text(st, 1, id);
    bind_opt_int(st, 2, p->step);
    sqlite3_bind_int(st, 3, p->n_steps);
    bind_opt_int(st, 4, p->increment);
    bind_opt_int(st, 5, p->newton_iter);
    if (p->newton_iter >= 0) sqlite3_bind_double(st, 6, p->residual);
    else sqlite3_bind_null(st, 6);
    sqlite3_bind_double(st, 7, p->percent);
    sqlite3_bind_int(st, 8, p->increments_done);
    ok = sqlite3_step(st) == SQLITE_DONE;
    dt_stmt_done(st);
    if (!ok) goto fail;
  }
  if (dt_event_append_tx(id, type, data) || dt_store_commit()) goto fail;
  dt_bus_notify();
  return DT_STORE_OK;
fail:
  dt_store_fail("job progress");
  dt_store_rollback();
  return DT_STORE_ERR;
}

int dt_job_increment_record(const char *id, int n, int step, int inc, double lf, double time, int has_vtu) {
  int rc;
  sqlite3_stmt *st = dt_stmt("INSERT OR REPLACE INTO increments (job_id, n, step, increment, load_factor, time, has_vtu, "
                             "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
  if (!st) return DT_STORE_ERR;
  dt_bind_text(st, 1, id);
  sqlite3_bind_int(st, 2, n);
  sqlite3_bind_int(st, 3, step);
  sqlite3_bind_int(st, 4, inc);
  sqlite3_bind_double(st, 5, lf);
  sqlite3_bind_double(st, 6, time);
  sqlite3_bind_int(st, 7, has_vtu);
  rc = dt_stmt_exec_done(st, "record increment");
  return rc;
}

int dt_job_increments_trim(const char *id, int keep) {
  int rc;
  sqlite3_stmt *st = dt_stmt("DELETE FROM increments WHERE job_id = ?1 AND n > ?2");
  if (!st) return DT_STORE_ERR;
  dt_bind_text(st, 1, id);
  sqlite3_bind_int(st, 2, keep);
  rc = dt_stmt_exec_done(st, "trim increments");
  return rc;
}

int dt_job_set_backend(const char *id, const char *backend) {
  int rc;
  sqlite3_stmt *st = dt_stmt("UPDATE jobs SET backend = ?2 WHERE id = ?1 AND state = 'running'");
  if (!st) return DT_STORE_ERR;
  dt_bind_text(st, 1, id);
  dt_bind_text(st, 2, backend);
  rc = dt_stmt_exec_done(st, "set backend");
  return rc;
}

int dt_job_finish(const char *id, const char *state, const char *error_code, const char *message, const char *reason,
                  const char *backend, json_t *timings, json_t *event_data) {
  char type[32], *tt = timings ? json_dumps(timings, JSON_COMPACT) : NULL;
  sqlite3_stmt *st;
  int ok;
  snprintf(type, sizeof type, "job.%s", state);
  if (dt_store_begin()) {
    free(tt);
    return DT_STORE_ERR;
  }
  st = dt_stmt("UPDATE jobs SET state = ?2, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), error_code = ?3, "
               "message = ?4, reason = ?5, backend = ?6, timings = ?7, percent = CASE WHEN ?2 = 'succeeded' THEN 100 "
               "ELSE percent END WHERE id = ?1 AND state = 'running'");
  if (!st) goto fail;
  dt_bind_text(st, 1, id);
  dt_bind_text(st, 2, state);
  dt_bind_text(st, 3, error_code);
  dt_bind_text(st, 4, message);
  dt_bind_text(st, 5, reason);
  dt_bind_text(st, 6, backend);
  dt_bind_text(st, 7, tt);
  ok = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(dt_db()) == 1;
  dt_stmt_done(st);
  if (!ok || dt_event_append_tx(id, type, event_data) || dt_store_commit()) goto fail;
  free(tt);
  dt_bus_notify();
  return DT_STORE_OK;
fail:
  free(tt);
  dt_store_fail("finish job");
  dt_store_rollback();
  return DT_STORE_ERR;
}

/* <data>/jobs/<id>/checkpoint.ckpt exists? With drop, remove it (nothing will resume). */
static int has_checkpoint(const char *data_dir, const char *id, int drop) {
  char path[4200];
  snprintf(path, sizeof path, "%s/jobs/%s/" DT_CHECKPOINT_FILE, data_dir, id);
  if (drop) unlink(path);
  return !drop && access(path, F_OK) == 0;
}

int dt_job_recover(const char *data_dir, int *n) {
  sqlite3_stmt *st;
  char ids[64][20];
  int cancel[64], k = 0;
  *n = 0;
  /* Batches of 64, each in one transaction. */
  for (;;) {
    k = 0;
    if (dt_store_begin()) return DT_STORE_ERR;
    st = dt_stmt("SELECT id, cancel_requested FROM jobs WHERE state = 'running' ORDER BY seq LIMIT 64");
    if (!st) goto fail;
    while (k < 64 && sqlite3_step(st) == SQLITE_ROW) {
      snprintf(ids[k], sizeof ids[k], "%s", dt_col_text(st, 0));
      cancel[k++] = sqlite3_column_int(st, 1);
    }
    dt_stmt_done(st);
    if (k == 0) {
      dt_store_rollback();
      return DT_STORE_OK;
    }
    for (int i = 0; i < k; i++) {
      json_t *ev;
      int ok, ck = has_checkpoint(data_dir, ids[i], cancel[i]);
      if (cancel[i]) {
        ok = exec1("UPDATE jobs SET state = 'cancelled', finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1", ids[i]) == 1;
        ev = json_pack("{s:s, s:s}", "state", "cancelled", "message",
                       "cancelled: cancellation was requested before the daemon stopped");
        ok = ok && dt_event_append_tx(ids[i], "job.cancelled", ev) == 0;
      } else {
        /* Queued again at its old place (seq); the worker resumes it from its checkpoint and
         * says so in a job.resumed or job.restarted event. */
        ok = exec1("UPDATE jobs SET state = 'queued' WHERE id = ?1", ids[i]) == 1;
        ev = json_pack("{s:s, s:b, s:s}", "state", "queued", "checkpoint", ck, "message",
                       ck ? "the daemon stopped while this job was running; queued again: it resumes from its checkpoint"
                          : "the daemon stopped while this job was running; queued again: no checkpoint, it restarts "
                            "from the beginning");
        ok = ok && dt_event_append_tx(ids[i], "job.recovered", ev) == 0;
      }
      json_decref(ev);
      if (!ok) goto fail;
    }
    if (dt_store_commit()) goto fail;
    *n += k;
  }
fail:
  dt_store_fail("recover jobs");
  dt_store_rollback();
  return DT_STORE_ERR;
}

int dt_job_counts(json_t **out, long long *queued) {
  static const char *const states[] = {"queued", "running", "succeeded", "failed", "cancelled"};
  sqlite3_stmt *st = dt_stmt("SELECT state, COUNT(*) FROM jobs GROUP BY state");
  int step;
  *out = json_object();
  *queued = 0;
  if (!st || !*out) return DT_STORE_ERR;
  for (int i = 0; i < 5; i++) json_object_set_new(*out, states[i], json_integer(0));
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    json_object_set_new(*out, dt_col_text(st, 0), json_integer(sqlite3_column_int64(st, 1)));
    if (!strcmp(dt_col_text(st, 0), "queued")) *queued = sqlite3_column_int64(st, 1);
  }
  dt_stmt_done(st);
  if (step != SQLITE_DONE) {
    json_decref(*out);
    *out = NULL;
    return dt_store_fail("count jobs");
  }
  return DT_STORE_OK;
}

int dt_job_increments(const char *id, json_t **out) {
  int step;
  sqlite3_stmt *st = dt_stmt("SELECT n, step, increment, load_factor, time, has_vtu FROM increments WHERE job_id = ?1 ORDER BY n");
  *out = json_array();
  if (!st || !*out) return DT_STORE_ERR;
  dt_bind_text(st, 1, id);
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    char vtu[128];
    int n = sqlite3_column_int(st, 0);
    snprintf(vtu, sizeof vtu, "/v1/jobs/%s/results/increments/%d/vtu", id, n);
    json_array_append_new(*out, json_pack("{s:i, s:i, s:i, s:f, s:f, s:o}", "n", n, "step", sqlite3_column_int(st, 1),
                                          "increment", sqlite3_column_int(st, 2), "load_factor",
                                          sqlite3_column_double(st, 3), "time", sqlite3_column_double(st, 4), "vtu",
                                          sqlite3_column_int(st, 5) ? json_string(vtu) : json_null()));
  }
  dt_stmt_done(st);
  if (step != SQLITE_DONE) {
    json_decref(*out);
    *out = NULL;
    return dt_store_fail("list increments");
  }
  return DT_STORE_OK;
}

int dt_job_increment_exists(const char *id, int n, int *has_vtu) {
  int step;
  sqlite3_stmt *st = dt_stmt("SELECT has_vtu FROM increments WHERE job_id = ?1 AND n = ?2");
  if (!st) return DT_STORE_ERR;
  dt_bind_text(st, 1, id);
  sqlite3_bind_int(st, 2, n);
  step = sqlite3_step(st);
  if (step == SQLITE_ROW) *has_vtu = sqlite3_column_int(st, 0);
  dt_stmt_done(st);
  return step == SQLITE_ROW ? DT_STORE_OK : step == SQLITE_DONE ? DT_STORE_NOTFOUND : DT_STORE_ERR;
}
