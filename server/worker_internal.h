/* Private to the worker's files (worker.c, worker_ho.c): a worker thread, the state of one run
 * and the steps every run goes through, whichever solver it runs: watched for cancellation,
 * its output directory prepared, its events emitted, its end recorded. */
#ifndef DT_SRV_WORKER_INTERNAL_H
#define DT_SRV_WORKER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "ductile.h"
#include "jobspec.h"
#include "server.h"
#include "store_jobs.h"
#include "worker_ends.h"
#include "worker_fields_queue.h"

typedef struct worker {
  dt_server *srv;
  int index;
  int device;    /* its first device (-1: the default device / CPU) */
  int n_devices; /* more than 1: a group (gpus = "0+1"), its jobs split over devices[] */
  int devices[DT_MAX_RUN_DEVICES];
  pthread_t thread;
  int started;
  pthread_mutex_t mu; /* guards job_id and job_owner */
  char job_id[20];
  long long job_owner; /* the user of the job claimed last: /v1/health names job_id only to it */
  atomic_int cancel;
  atomic_int lost;           /* its run lost the job's lease: it stops and records nothing */
  unsigned long runs;        /* runs started (guarded by mu): tells runs of one job apart */
  atomic_int waiting_memory; /* its job waits for the GPU memory another job on the device holds */
  dt_ends ends;              /* ends of its jobs the store has not taken yet (worker_ends.h) */
} worker;

typedef struct dt_workers {
  int n;
  atomic_int stop;
  atomic_int test_full_jobs; /* test hook test_disk_full_at_end (worker_ends.h) */
  worker w[DT_MAX_WORKERS];
} dt_workers;

/* State of one run, handed to the solver callbacks. */
typedef struct run_ctx {
  worker *w;
  const char *job_id;
  const dt_model *m;
  const dt_ho_job_info *ho; /* an order-P run: its job (checkpoints checked against it) */
  char dir[4096];           /* its attempt's directory (job_dirs.h), where all it writes goes */
  char outdir[4200];
  char checkpoint[4200];
  int attempt;
  int checkpointed;      /* the run writes checkpoints (some backends: none) */
  int resuming;          /* a usable checkpoint was found before the run */
  int resumed;           /* the solver reported that it resumed from it */
  int kept;              /* increments the checkpoint holds */
  dt_progress converged; /* an increment converged but not announced yet ... */
  int converged_pending; /* ... until its checkpoint exists (see on_progress) */
  dt_job_progress prog;
  int stop_at_next_iteration; /* shutdown: the increment that was running has finished */
  int shutdown_stop;
  int failures;            /* store accesses and writes that failed (each logged) */
  dt_fields_queue *fields; /* writes fields_NNNN.json and records the increments */
  int backend_recorded;    /* the job's backend is stored (from the first event naming it) */
  const char *limit_code;  /* a per-job limit stops the run: its error code ... */
  const char *limit_key;   /* ... the setting (the error's reason) ... */
  char limit_msg[600];     /* ... and the message */
  double output_checked;   /* when the output directory's size was last summed (dt_mono) */
} run_ctx;

/* A shutdown or restart was asked for: runs stop at their next Newton iteration. */
int dt_worker_stopping(const worker *w);
/* Test hook test_iteration_delay_ms: a slow iteration that still answers cancel and shutdown. */
void dt_run_test_delay(run_ctx *run);
/* A store access or file write of the run failed: logged and counted, the run goes on. */
void dt_run_log_failure(run_ctx *run, const dt_ctx *ctx);
/* text without the data directory's paths (redact.h), into out (cap bytes). */
const char *dt_run_for_client(const dt_server *srv, const char *job_id, const char *text, char *out,
                              size_t cap);
/* A progress event of the job (data taken), stored in order, waiting while the database is away. */
void dt_run_emit(run_ctx *run, const char *type, json_t *data);
/* The job's backend, once. */
void dt_run_record_backend(run_ctx *run, const char *backend);
/* A cancellation recorded in the store reaches the run (sets the worker's flag). */
void dt_run_check_cancel(run_ctx *run);
/* The run's paths (in its attempt's directory, job_dirs.h) and progress before the solver starts;
 * m may be NULL (an order-P run: one step, no model). */
void dt_run_init(run_ctx *run, worker *w, const char *job_id, int attempt, const dt_model *m);
/* Resume from a usable checkpoint, or start from the beginning with a clean output directory
 * (announced as job.restarted on a later attempt). */
void dt_run_prepare(run_ctx *run, const char *restart_why);
/* Remove the run's checkpoint (and a leftover temporary one). */
void dt_run_remove_checkpoint(const run_ctx *run);
/* The worker runs the job from now (cancel requests reach it) / no longer. */
void dt_run_watch(run_ctx *run);
void dt_run_unwatch(worker *w);
/* Record the job's end: succeeded, failed (code, or derived from st) or cancelled. */
void dt_run_finish(run_ctx *run, dt_status st, const char *code, const dt_run_summary *sum,
                   const dt_ctx *ctx, double secs);
/* The job fails before it runs (in attempt). */
void dt_run_fail_early(worker *w, const char *job_id, int attempt, dt_status st, const dt_ctx *ctx,
                       double secs);
/* The run's end: interrupted by a shutdown (the job stays running, to run again at the next
 * start), a device fault, or finished (dt_run_finish). */
void dt_run_conclude(run_ctx *run, dt_status st, const dt_run_summary *sum, const dt_ctx *ctx,
                     double secs);

/* Runs a job on an order-P mesh (worker_ho.c): ho from dt_spec_ho_build with keep_job (its
 * temporary job file is removed here); restart_why as dt_run_prepare's; t0 the dt_mono of the
 * job's claim. */
void dt_worker_run_ho(worker *w, const char *job_id, int attempt, dt_spec_ho *ho,
                      const char *restart_why, double t0);

#endif
