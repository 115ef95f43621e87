/* Ends of jobs, recorded until the store takes them (see worker_ends.h). */
#include "worker_ends.h"

#include <stdio.h>
#include <string.h>

#include "job_dirs.h"
#include "log.h"
#include "store_jobs.h"

/* One attempt at the store; the test hook fails it as SQLite fails on a full disk. */
static dt_status store_end(const dt_ends *e, const dt_end_kept *k, const dt_job_end *end, int *kept,
                           dt_ctx *ctx) {
#ifdef DUCTILE_TEST_HOOKS
  if (k->test_full && k->attempts <= e->test_full_attempts)
    return DT_ERROR(ctx, DT_ERR_IO,
                    "database error (finish job): database or disk is full (test hook "
                    "test_disk_full_at_end)");
#else
  (void)e;
#endif
  return dt_job_finish(k->job_id, end, kept, ctx);
}

static void copy(char *dst, size_t len, const char *src) {
  snprintf(dst, len, "%s", src ? src : "");
}

static const char *opt(const char *s) { return s[0] ? s : NULL; }

static void keep(dt_end_kept *k, const char *id, const dt_job_end *end) {
  memset(k, 0, sizeof *k);
  copy(k->job_id, sizeof k->job_id, id);
  copy(k->state, sizeof k->state, end->state);
  copy(k->code, sizeof k->code, end->error_code);
  copy(k->reason, sizeof k->reason, end->reason);
  copy(k->backend, sizeof k->backend, end->backend);
  /* a job that succeeded has no error message: its event says what it did */
  copy(k->message, sizeof k->message,
       end->message      ? end->message
       : end->event_data ? json_string_value(json_object_get(end->event_data, "message"))
                         : NULL);
  k->timings = json_incref(end->timings);
  k->event_data = json_incref(end->event_data);
  k->busy_seconds = end->busy_seconds;
  k->stored_bytes = end->stored_bytes;
  k->attempt = end->attempt;
}

static void drop(dt_end_kept *k) {
  json_decref(k->timings);
  json_decref(k->event_data);
  memset(k, 0, sizeof *k);
}

/* The store refused the end because the disk is full: record it as that failure instead. The
 * message says what the job had come to, and why that is not what its record says. */
static void as_disk_full(dt_end_kept *k, const dt_ctx *why) {
  char msg[sizeof k->message];
  json_t *done = k->event_data ? json_object_get(k->event_data, "increments_completed") : NULL;
  snprintf(msg, sizeof msg,
           "the disk of the daemon's data directory is full: the end of this job (%s%s%.900s) "
           "could not be recorded, so it is recorded as failed, and its results may be "
           "incomplete (%.200s)",
           k->state, k->message[0] ? ": " : "", k->message, why->msg);
  copy(k->message, sizeof k->message, msg);
  copy(k->state, sizeof k->state, "failed");
  copy(k->code, sizeof k->code, "disk_full");
  copy(k->reason, sizeof k->reason, "");
  json_decref(k->event_data);
  k->event_data = json_pack("{s:s, s:s, s:s, s:I}", "state", "failed", "code", "disk_full",
                            "message", msg, "increments_completed",
                            (json_int_t)(json_is_integer(done) ? json_integer_value(done) : 0));
  k->disk_full = 1;
}

/* One attempt at a kept end: 1 when the store took it. */
static int attempt(dt_ends *e, dt_end_kept *k) {
  dt_job_end end;
  dt_ctx ctx;
  const char *kv[] = {"job", k->job_id, NULL};
  int kept = -1;
  memset(&ctx, 0, sizeof ctx);
  memset(&end, 0, sizeof end);
  end.state = k->state;
  end.error_code = opt(k->code);
  end.message = k->code[0] ? opt(k->message) : NULL;
  end.reason = opt(k->reason);
  end.backend = opt(k->backend);
  end.timings = k->timings;
  end.event_data = k->event_data;
  end.busy_seconds = k->busy_seconds;
  end.stored_bytes = k->stored_bytes;
  end.attempt = k->attempt;
  k->attempts++;
  if (store_end(e, k, &end, &kept, &ctx) == DT_OK) {
    if (kept >= 0 && e->data_dir) dt_job_dirs_prune(e->data_dir, k->job_id, kept);
    if (k->attempts > 1)
      dt_log(DT_LOG_INFO, NULL, kv, "worker %d: the job's end is recorded (%s%s%s) at attempt %d",
             e->worker, k->state, k->code[0] ? ": " : "", k->code, k->attempts);
    return 1;
  }
  dt_log(DT_LOG_ERROR, NULL, kv, "worker %d: cannot record the job's end (%s, attempt %d): %s; %s",
         e->worker, k->state, k->attempts, ctx.msg,
         ctx.code == DT_ERR_IO ? "the disk is full: it is recorded as failed (disk_full) once "
                                 "the store takes it, retried every second"
                               : "retried every second");
  if (ctx.code == DT_ERR_IO && !k->disk_full) {
    as_disk_full(k, &ctx);
    return attempt(e, k); /* the smaller record may fit */
  }
  return 0;
}

void dt_ends_record(dt_ends *e, const char *id, const dt_job_end *end) {
  dt_end_kept k;
  keep(&k, id, end);
#ifdef DUCTILE_TEST_HOOKS
  k.test_full = e->test_full_jobs && atomic_load(e->test_full_jobs) > 0 &&
                atomic_fetch_sub(e->test_full_jobs, 1) > 0;
#endif
  if (attempt(e, &k)) {
    drop(&k);
    return;
  }
  if (e->n == DT_ENDS_KEPT) { /* the oldest goes to start-up recovery */
    const char *kv[] = {"job", e->kept[0].job_id, NULL};
    dt_log(DT_LOG_ERROR, NULL, kv,
           "worker %d: too many ends the store refuses: this job stays running until start-up "
           "recovery queues it again",
           e->worker);
    drop(&e->kept[0]);
    memmove(&e->kept[0], &e->kept[1], (DT_ENDS_KEPT - 1) * sizeof e->kept[0]);
    e->n--;
  }
  e->kept[e->n++] = k;
  e->next_retry = dt_mono() + 1.0;
}

void dt_ends_retry(dt_ends *e, int force) {
  int j = 0;
  if (e->n == 0 || (!force && dt_mono() < e->next_retry)) return;
  for (int i = 0; i < e->n; i++) {
    if (attempt(e, &e->kept[i]))
      drop(&e->kept[i]);
    else
      e->kept[j++] = e->kept[i];
  }
  e->n = j;
  e->next_retry = dt_mono() + 1.0;
}

int dt_ends_pending(const dt_ends *e) { return e->n > 0; }

void dt_ends_finish(dt_ends *e) {
  dt_ends_retry(e, 1);
  for (int i = 0; i < e->n; i++) {
    const char *kv[] = {"job", e->kept[i].job_id, NULL};
    dt_log(DT_LOG_ERROR, NULL, kv,
           "worker %d: the job's end is still not recorded at shutdown: it stays running until "
           "start-up recovery queues it again",
           e->worker);
    drop(&e->kept[i]);
  }
  e->n = 0;
}
