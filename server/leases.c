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

/* Renew this daemon's leases and pass cancellations on. */
static void renew(dt_server *srv) {
  dt_lease lease = {srv->cfg.instance, srv->cfg.lease_seconds};
  dt_job_cancels cancels;
  dt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  if (dt_job_leases_renew(&lease, &cancels, &ctx) != DT_OK)
    dt_log_error("cannot renew the leases of this daemon's jobs: %s", ctx.msg);
  else
    for (int i = 0; i < cancels.n; i++) dt_workers_cancel(srv, cancels.id[i]);
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
 * lease's end. */
static void *keeper_main(void *arg) {
  struct dt_leases *l = arg;
  const struct timespec tick = {0, 50 * 1000000L};
  for (int round = 0; !atomic_load(&l->stop); round++) {
    if (round % 4 == 0) renew(l->srv);
    requeue(l->srv);
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
