/* The background writer: VTU files are written by one thread while the solver goes on.
 *
 * dt_output_increment snapshots an increment's fields into a job slot (dt_vtu_job_fill) and
 * queues it; the thread averages, formats and writes the files (dt_vtu_job_run) in queue
 * order, so the bytes and the order of the files do not depend on timing. At most q->depth
 * jobs are pending (queue_depth: 2, or 4 for a writer with a team): the caller waits for a free
 * slot beyond that, which bounds the memory to that many snapshots and lets a slow disk slow
 * the run down rather than fill the memory. The thread allocates only results.dat's scratch
 * (the caller sizes every other buffer), so it fails on I/O or, for results.dat's nodal forces
 * and energies, on memory; the first failure is kept, later jobs are skipped (a later
 * results.pvd would list the missing file), and the failure is reported by the caller's next
 * acquire, drain or stop. If no thread can be started, jobs run in the caller: slower, but the
 * same files. */
#include "io/output_internal.h"

#include "core/clock.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static void *writer_main(void *arg) {
  dt_output *o = arg;
  dt_output_queue *q = &o->q;
  pthread_mutex_lock(&q->mu);
  for (;;) {
    dt_vtu_job *j;
    dt_status st = DT_OK, failed;
    dt_ctx jctx;
    while (q->count == 0 && !q->stop) pthread_cond_wait(&q->cv, &q->mu);
    if (q->count == 0) break; /* stop, with nothing left to write */
    j = &q->job[q->head];
    failed = q->err;
    pthread_mutex_unlock(&q->mu);
    memset(&jctx, 0, sizeof jctx);
    if (failed == DT_OK) st = dt_vtu_job_run(q->mesh, q->frd, j, &jctx);
    pthread_mutex_lock(&q->mu);
    for (int k = 0; k < DT_WRITE_KINDS; k++) q->busy[k] += j->seconds[k];
    if (st != DT_OK && q->err == DT_OK) {
      q->err = st;
      q->err_ctx = jctx;
    }
    q->head = (q->head + 1) % q->depth;
    q->count--;
    pthread_cond_broadcast(&q->cv);
  }
  pthread_mutex_unlock(&q->mu);
  return NULL;
}

/* Report the first failed write (q->mu held or no thread), with the place that raised it
 * (first error wins, as in dt_error_set). It stays reported: every later call fails the same
 * way, so a run cannot end as if its files were complete. */
static dt_status queue_error(dt_output_queue *q, dt_ctx *ctx) {
  if (q->err != DT_OK && ctx != NULL && ctx->code == DT_OK) *ctx = q->err_ctx;
  return q->err;
}

static dt_status queue_init(dt_output *o, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_output_queue *q = &o->q;
  int mu_ok = 0;
  if (q->init) return DT_OK;
  DT_CHECK(pthread_mutex_init(&q->mu, NULL) == 0, ctx, DT_ERR_NOMEM,
           "cannot create the output writer's lock");
  mu_ok = 1;
  DT_CHECK(pthread_cond_init(&q->cv, NULL) == 0, ctx, DT_ERR_NOMEM,
           "cannot create the output writer's condition variable");
  q->init = 1;
  q->mesh = &o->mesh;
  q->frd = &o->frd;
cleanup:
  if (rc != DT_OK && mu_ok) pthread_mutex_destroy(&q->mu);
  return rc;
}

dt_status dt_output_queue_acquire(dt_output *o, dt_vtu_job **job, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_output_queue *q = &o->q;
  *job = NULL;
  DT_TRY(queue_init(o, ctx));
  pthread_mutex_lock(&q->mu);
  if (q->depth > 0 && q->count == q->depth) {
    double t0 = dt_seconds();
    while (q->count == q->depth) pthread_cond_wait(&q->cv, &q->mu);
    q->waited += dt_seconds() - t0;
  }
  rc = queue_error(q, ctx);
  if (rc == DT_OK) *job = &q->job[q->depth > 0 ? (q->head + q->count) % q->depth : 0];
  pthread_mutex_unlock(&q->mu);
cleanup:
  return rc;
}

/* Start the thread with every signal blocked, so that signals keep going to the threads
 * that handle them (the daemon's, the CLI's). */
static int start_thread(dt_output *o) {
  sigset_t all, old;
  int err;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  err = pthread_create(&o->q.thread, NULL, writer_main, o);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return err;
}

/* The slots: DT_OUTPUT_MAX_PENDING for a writer with a team while that many snapshots of the
 * size of the first (job[0], just filled) fit in the host's memory share, else the default. */
static int queue_depth(const dt_output *o) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const double memory = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
  const double snapshots = (double)DT_OUTPUT_MAX_PENDING * (double)dt_vtu_job_bytes(&o->q.job[0]);
  if (o->writer_threads > 1 && snapshots <= memory / DT_OUTPUT_MEMORY_SHARE)
    return DT_OUTPUT_MAX_PENDING;
  return DT_OUTPUT_DEFAULT_PENDING;
}

dt_status dt_output_queue_submit(dt_output *o, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_output_queue *q = &o->q;
  if (q->depth == 0) q->depth = queue_depth(o); /* fixed from the first job on */
  if (!q->started && !q->sync) {
    if (start_thread(o) == 0)
      q->started = 1;
    else
      q->sync = 1;
  }
  if (q->sync) { /* the slot acquire gave is job[head], since nothing else is ever queued */
    dt_ctx jctx;
    memset(&jctx, 0, sizeof jctx);
    q->err = dt_vtu_job_run(q->mesh, q->frd, &q->job[q->head], &jctx);
    q->err_ctx = jctx;
    for (int k = 0; k < DT_WRITE_KINDS; k++) q->busy[k] += q->job[q->head].seconds[k];
    return queue_error(q, ctx);
  }
  pthread_mutex_lock(&q->mu);
  q->count++;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
  return rc;
}

dt_status dt_output_queue_check(dt_output *o, dt_ctx *ctx) {
  dt_status rc;
  dt_output_queue *q = &o->q;
  if (!q->init) return DT_OK;
  pthread_mutex_lock(&q->mu);
  rc = queue_error(q, ctx);
  pthread_mutex_unlock(&q->mu);
  return rc;
}

dt_status dt_output_queue_drain(dt_output *o, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_output_queue *q = &o->q;
  if (!q->init) return DT_OK;
  pthread_mutex_lock(&q->mu);
  if (q->count > 0) {
    double t0 = dt_seconds();
    while (q->count > 0) pthread_cond_wait(&q->cv, &q->mu);
    q->waited += dt_seconds() - t0;
  }
  rc = queue_error(q, ctx);
  pthread_mutex_unlock(&q->mu);
  return rc;
}

dt_status dt_output_queue_stop(dt_output *o, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_output_queue *q = &o->q;
  int i;
  if (!q->init) return DT_OK;
  pthread_mutex_lock(&q->mu);
  q->stop = 1;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
  if (q->started) pthread_join(q->thread, NULL); /* the thread writes what is queued first */
  q->started = 0;
  rc = queue_error(q, ctx);
  for (i = 0; i < DT_OUTPUT_MAX_PENDING; i++) dt_vtu_job_free(&q->job[i]);
  pthread_cond_destroy(&q->cv);
  pthread_mutex_destroy(&q->mu);
  q->init = 0;
  return rc;
}
