/* Workers: one thread per GPU (or one for the CPU), each running one job at a time.
 *
 * A worker claims the oldest queued job in a transaction (store_jobs.c), runs dt_analysis_run
 * with outdir <data>/jobs/<id>/out, and turns the solver's progress callback into events
 * (and progress columns) plus a bus broadcast for SSE. After each converged increment it
 * writes the increment's fields as JSON next to the solver's VTU and records the increment:
 * the checkpoint record. Cancellation: a flag checked in the progress callback, so a running
 * job stops at its next Newton iteration and keeps its completed increments. Shutdown: the
 * running increment finishes, then the job stops and stays "running" in the store, so the
 * next start recovers it (from the beginning until the solver can restore a checkpoint). */
#ifndef DT_SRV_WORKER_H
#define DT_SRV_WORKER_H

#include <jansson.h>

#include "server.h"

int dt_workers_start(dt_server *srv, char *err, size_t errlen);
/* Ask running jobs to stop after their current increment and the threads to exit; wait. */
void dt_workers_stop(dt_server *srv);
/* A cancel for job_id was recorded: stop it now if a worker runs it. */
void dt_workers_cancel(dt_server *srv, const char *job_id);
/* [{index, device, busy, job_id}] for /v1/health. */
json_t *dt_workers_describe(dt_server *srv);

#endif
