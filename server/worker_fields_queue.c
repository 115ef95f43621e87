/* Fields JSON writer thread (see worker_fields_queue.h). */
#include "worker_fields_queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "store.h"
#include "store_jobs.h"
#include "worker_fields.h"

#define SLOTS 2
#define RECORD_WAIT_S                                                                              \
  30.0 /* how long an increments row waits for a database that does not answer */

struct dt_fields_queue {
  const dt_model *m;
  const char *job_id, *outdir;
  int attempt; /* the run's (dt_job_increment_record) */
  dt_fields_snap slot[SLOTS];
  int nomem[SLOTS]; /* the copy failed: record the increment without its file */
  int head;         /* the oldest pending slot */
  int pending;      /* slots pushed and not yet written (0 .. SLOTS) */
  int stop;
  int errors;
  int threaded;
#ifdef DUCTILE_TEST_HOOKS
  long delay_ms; /* test hook (worker_fields_queue.h) */
#endif
  pthread_mutex_t mu;
  pthread_cond_t pushed, done;
  pthread_t thread;
};

#ifdef DUCTILE_TEST_HOOKS
static void test_delay(const dt_fields_queue *q) {
  struct timespec ts = {q->delay_ms / 1000, (q->delay_ms % 1000) * 1000000L};
  while (q->delay_ms > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}
#else
static void test_delay(const dt_fields_queue *q) { (void)q; }
#endif

static void log_failure(const dt_fields_queue *q, const dt_ctx *ctx) {
  const char *kv[] = {"job", q->job_id, NULL};
  dt_log(DT_LOG_ERROR, NULL, kv, "fields writer: %s", ctx->msg);
}

/* fields_NNNN.json of slot i, then its increments row; failures logged and counted. */
static void write_slot(dt_fields_queue *q, int i) {
  const dt_fields_snap *s = &q->slot[i];
  char path[4300];
  double t0 = dt_mono();
  dt_ctx ctx;
  dt_status st;
  int failed = 0;
  const struct timespec pause = {0, 250 * 1000000L};
  memset(&ctx, 0, sizeof ctx);
  snprintf(path, sizeof path, "%s/fields_%04d.json", q->outdir, s->n);
  test_delay(q);
  st = q->nomem[i] ? DT_ERROR(&ctx, DT_ERR_NOMEM,
                              "cannot write %s: out of memory for the copy of the fields", path)
                   : dt_fields_write(q->m, s, path, &ctx);
  if (st == DT_OK) {
    const char *kv[] = {"job", q->job_id, NULL};
    dt_log(DT_LOG_DEBUG, NULL, kv, "fields of increment %d written in %.3f s", s->n,
           dt_mono() - t0);
  } else {
    log_failure(q, &ctx);
    failed++;
    memset(&ctx, 0, sizeof ctx);
  }
  /* recorded even without its file: the increment converged, and its VTU may be there; while
   * the database does not answer (restarting), tried again for up to RECORD_WAIT_S */
  for (int tries = 0;; tries++) {
    st = dt_job_increment_record(q->job_id, q->attempt, s->n, s->step, s->increment, s->load_factor,
                                 s->time, s->has_vtu, &ctx);
    if (st == DT_OK || !dt_store_connection_lost() || tries * 0.25 >= RECORD_WAIT_S) break;
    memset(&ctx, 0, sizeof ctx);
    nanosleep(&pause, NULL);
  }
  if (st != DT_OK) {
    log_failure(q, &ctx);
    failed++;
  }
  pthread_mutex_lock(&q->mu);
  q->errors += failed;
  pthread_mutex_unlock(&q->mu);
}

static void *writer_main(void *arg) {
  dt_fields_queue *q = arg;
  pthread_mutex_lock(&q->mu);
  for (;;) {
    int i;
    while (!q->pending && !q->stop) pthread_cond_wait(&q->pushed, &q->mu);
    if (!q->pending) break; /* stop, and nothing left */
    i = q->head;
    pthread_mutex_unlock(&q->mu);
    write_slot(q, i);
    pthread_mutex_lock(&q->mu);
    q->head = (q->head + 1) % SLOTS;
    q->pending--;
    pthread_cond_signal(&q->done);
  }
  pthread_mutex_unlock(&q->mu);
  dt_store_thread_close();
  return NULL;
}

dt_status dt_fields_queue_start(const dt_model *m, const char *job_id, int attempt,
                                const char *outdir, dt_fields_queue **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_fields_queue *q = calloc(1, sizeof *q);
  *out = NULL;
  DT_CHECK(q != NULL, ctx, DT_ERR_NOMEM, "cannot write the fields files of job %s: out of memory",
           job_id);
  q->m = m;
  q->job_id = job_id;
  q->attempt = attempt;
  q->outdir = outdir;
#ifdef DUCTILE_TEST_HOOKS
  {
    const char *delay = getenv("DUCTILED_TEST_FIELDS_DELAY_MS");
    if (delay) q->delay_ms = strtol(delay, NULL, 10);
  }
#endif
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->pushed, NULL);
  pthread_cond_init(&q->done, NULL);
  q->threaded = pthread_create(&q->thread, NULL, writer_main, q) == 0;
  if (!q->threaded)
    dt_log_warn("job %s: no writer thread for the fields files: written as the job runs", job_id);
  *out = q;
cleanup:
  return rc;
}

void dt_fields_queue_push(dt_fields_queue *q, const dt_fields *f, int has_vtu) {
  int i;
  pthread_mutex_lock(&q->mu);
  while (q->pending == SLOTS) pthread_cond_wait(&q->done, &q->mu);
  i = (q->head + q->pending) % SLOTS;
  pthread_mutex_unlock(&q->mu);
  /* slot i is the writer's only once pending counts it: filled without the lock */
  q->nomem[i] =
      dt_fields_snap_fill(&q->slot[i], f, has_vtu, NULL) != DT_OK; /* reported by write_slot */
  if (!q->threaded) {
    write_slot(q, i);
    return;
  }
  pthread_mutex_lock(&q->mu);
  q->pending++;
  pthread_cond_signal(&q->pushed);
  pthread_mutex_unlock(&q->mu);
}

void dt_fields_queue_drain(dt_fields_queue *q) {
  if (!q) return;
  pthread_mutex_lock(&q->mu);
  while (q->pending) pthread_cond_wait(&q->done, &q->mu);
  pthread_mutex_unlock(&q->mu);
}

int dt_fields_queue_finish(dt_fields_queue **qp) {
  dt_fields_queue *q = qp ? *qp : NULL;
  int errors;
  if (!q) return 0;
  if (q->threaded) {
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_signal(&q->pushed);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->thread, NULL);
  }
  errors = q->errors;
  for (int i = 0; i < SLOTS; i++) dt_fields_snap_free(&q->slot[i]);
  pthread_cond_destroy(&q->pushed);
  pthread_cond_destroy(&q->done);
  pthread_mutex_destroy(&q->mu);
  free(q);
  *qp = NULL;
  return errors;
}
