/* The lease keeper (see leases.h). */
#include "leases.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus.h"
#include "log.h"
#include "store.h"
#include "store_jobs.h"
#include "worker.h"

struct dt_leases {
  pthread_t thread;
  atomic_int stop;
  dt_server *srv;
};

/* A run of this daemon that the renewal did not find (another daemon queued the job again, or
 * took it, while this one was paused past lease_seconds or away from the database) has lost its
 * lease: it stops. runs: the workers' runs seen before the renewal began, so that a job claimed
 * meanwhile is not taken for one that lost its lease. */
static void stop_lost(dt_server *srv, const dt_worker_run *runs, int n, const dt_job_held *held) {
  if (held->n >= DT_MAX_HELD) return; /* the list may be cut short: nothing can be told */
  for (int i = 0; i < n; i++) {
    int found = 0;
    for (int k = 0; k < held->n && !found; k++) found = !strcmp(held->id[k], runs[i].job_id);
    if (!found && dt_workers_lease_lost(srv, &runs[i]))
      dt_log_warn("job %s: its lease is no longer this daemon's (it was renewed too late): the "
                  "run on worker %d stops and records nothing",
                  runs[i].job_id, runs[i].worker);
  }
}

/* Renew this daemon's leases, pass cancellations on and stop the runs whose lease is lost; 1
 * when the store answered. *failing counts the failed renewals in a row (logged at the first
 * and when the store answers again). */
static int renew(dt_server *srv, int *failing) {
  dt_lease lease = {srv->cfg.instance, srv->cfg.lease_seconds};
  dt_worker_run runs[DT_MAX_WORKERS];
  dt_job_cancels cancels;
  dt_job_held held;
  dt_ctx ctx;
  int n = dt_workers_running(srv, runs);
  memset(&ctx, 0, sizeof ctx);
  if (dt_job_leases_renew(&lease, &cancels, &held, &ctx) != DT_OK) {
    if ((*failing)++ == 0)
      dt_log_error("cannot renew the leases of this daemon's jobs: %s (retried every quarter "
                   "second; no expired lease is taken over until they are renewed)",
                   ctx.msg);
    return 0;
  }
  if (*failing)
    dt_log_info("renewed the leases of this daemon's jobs after %d failed attempt(s)", *failing);
  *failing = 0;
  for (int i = 0; i < cancels.n; i++) dt_workers_cancel(srv, cancels.id[i]);
  stop_lost(srv, runs, n, &held);
  return 1;
}

/* Queue again the jobs of ended leases. */
static void requeue(dt_server *srv) {
  dt_ctx ctx;
  int n = 0;
  memset(&ctx, 0, sizeof ctx);
  if (dt_job_requeue_expired(srv->data_dir, &n, &ctx) != DT_OK)
    dt_log_error("cannot queue again the jobs whose lease ended: %s", ctx.msg);
  else if (n > 0)
    dt_log_info("queued again %d job(s) whose daemon's lease ended; they resume from their "
                "checkpoints",
                n);
}

/* Renewals every second; the look for ended leases four times a second (one range of the index
 * jobs_lease), so that a dead daemon's job is queued again within a quarter of a second of its
 * lease's end. This daemon's own leases come first: after a failed renewal (the database away)
 * or a pause of the process (the last renewal over a second ago) they are renewed before any
 * expired lease is looked for, so that the daemon does not queue again a job it still runs. */
static void *keeper_main(void *arg) {
  struct dt_leases *l = arg;
  const struct timespec tick = {0, 50 * 1000000L};
  double last = 0;
  int failing = 0;
  while (!atomic_load(&l->stop)) {
    int renewed = !failing;
    if (failing || dt_mono() - last >= 0.95) {
      renewed = renew(l->srv, &failing);
      if (renewed) last = dt_mono();
    }
    if (renewed) requeue(l->srv);
    for (int i = 0; i < 5 && !atomic_load(&l->stop); i++) nanosleep(&tick, NULL);
  }
  dt_store_thread_close();
  return NULL;
}

dt_status dt_leases_start(dt_server *srv, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  struct dt_leases *l = NULL;
  if (!dt_store_shared()) return DT_OK;
  l = calloc(1, sizeof *l);
  DT_CHECK(l != NULL, ctx, DT_ERR_NOMEM, "out of memory starting the lease keeper");
  l->srv = srv;
  DT_CHECK(pthread_create(&l->thread, NULL, keeper_main, l) == 0, ctx, DT_ERR_INTERNAL,
           "cannot start the lease keeper's thread");
  srv->leases = l;
  l = NULL;
cleanup:
  free(l);
  return rc;
}

void dt_leases_stop(dt_server *srv, int release) {
  struct dt_leases *l = srv->leases;
  dt_ctx ctx;
  int n = 0;
  if (!l) return;
  atomic_store(&l->stop, 1);
  pthread_join(l->thread, NULL);
  free(l);
  srv->leases = NULL;
  if (!release) return;
  memset(&ctx, 0, sizeof ctx);
  if (dt_job_leases_release(srv->cfg.instance, &n, &ctx) != DT_OK)
    dt_log_error("cannot end the leases of this daemon's jobs (they end by themselves within "
                 "lease_seconds): %s",
                 ctx.msg);
  else if (n > 0)
    dt_log_info("ended the leases of %d interrupted job(s): another daemon resumes them", n);
}
