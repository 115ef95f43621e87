/* Workers: one thread per entry of `gpus` (one per GPU, or one for the CPU), each running one
 * job at a time on its device (dt_run_options.device).
 *
 * A worker claims the next queued job in a transaction (fair sharing: the job of the user who
 * used the least worker time in the last fair_share_window seconds, then priority, then age;
 * store_jobs.c), and records the worker time each attempt took (busy_seconds), which is what
 * fair sharing sums. It checks that the job fits
 * its device (devices.c), and runs dt_analysis_run with outdir <data>/jobs/<id>/attempt-<n>/out and
 * the checkpoint <data>/jobs/<id>/attempt-<n>/checkpoint.ckpt, the directory of its attempt alone
 * (job_dirs.h: made from a copy of the attempt before), always with resume = 1: a fresh job has no
 * checkpoint and starts at the beginning, a recovered one continues after its last converged
 * increment without recomputing it (explicit runs, which write no checkpoint, and runs on a
 * backend that cannot save its state run without one and start over). Progress becomes events
 * (and progress columns) plus a bus broadcast for SSE; after each converged increment the worker
 * writes its fields JSON next to the solver's VTU and records the increment. Cancellation: a
 * flag checked in the progress callback, so a running job stops at its next Newton iteration
 * (an explicit one within a second: at its next explicit.progress) and keeps its completed
 * increments. Shutdown: the running increment finishes and is checkpointed, the job stops at
 * the first Newton iteration of the next one and stays "running" in the store, so the next
 * start resumes it from that checkpoint. A job on an order-P mesh runs dt_ho_job_run instead
 * (worker_ho.c), with the same events, cancellation and admission and no checkpoint: a
 * shutdown stops it at its next Newton iteration and the next start runs it again from the
 * beginning. */
#ifndef DT_SRV_WORKER_H
#define DT_SRV_WORKER_H

#include <jansson.h>

#include "server.h"
#include "status.h"

dt_status dt_workers_start(dt_server *srv, dt_ctx *ctx);
/* Ask running jobs to stop after their current increment and the threads to exit; wait. */
void dt_workers_stop(dt_server *srv);
/* A cancel for job_id was recorded: stop it now if a worker runs it. */
void dt_workers_cancel(dt_server *srv, const char *job_id);
/* A worker's run of a job, as dt_workers_running saw it. */
typedef struct dt_worker_run {
  int worker;
  unsigned long run; /* tells this run from a later run of the same job on the same worker */
  char job_id[20];
} dt_worker_run;
/* The runs of the workers now into runs (room for DT_MAX_WORKERS); returns how many. */
int dt_workers_running(dt_server *srv, dt_worker_run *runs);
/* The store says that run no longer holds its job's lease (leases.c): unless it has ended, it
 * stops at its next Newton iteration and records nothing (the job is another run's). Returns 1
 * when the run was still going (and now stops), 0 when it had ended. */
int dt_workers_lease_lost(dt_server *srv, const dt_worker_run *run);
/* [{index, device, busy, job_id}] for /v1/health, as the user viewer sees it: job_id only for
 * its own jobs (null for another user's, which stays busy); every job_id for DT_ANY_OWNER. */
json_t *dt_workers_describe(dt_server *srv, long long viewer);

#endif
