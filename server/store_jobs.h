/* Jobs: the queue and the state machine
 *     queued -> running -> succeeded | failed | cancelled,   queued -> cancelled,
 *     running -> queued (only at start-up recovery, for jobs a crash or shutdown left running).
 * Every state change happens in one transaction together with its event, so the events
 * table and the state always agree. The queue order is fair sharing (dt_job_claim): the user
 * who used the least worker time lately goes first, then priority, then submission order
 * (jobs.seq). The dt_job_* names are the jobs
 * table's rows and operations; parsing a job file is the solver's dt_parse_job_* (job_json.h). */
#ifndef DT_SRV_STORE_JOBS_H
#define DT_SRV_STORE_JOBS_H

#include <jansson.h>

#include "audit.h"
#include "status.h"

typedef struct dt_job_new {
  char id[20];
  long long owner_id;
  char token_id[17];    /* the submitting token ("" unknown) */
  char mesh_id[20];     /* "" for an inline mesh */
  long long mesh_owner; /* the owner mesh_id must have (DT_ANY_OWNER: any; an admin's job) */
  char title[256];
  int n_steps;
  long long est_bytes; /* the solver's memory estimate (0: none) */
} dt_job_new;

typedef struct dt_job_filter {
  const char *states[5]; /* NULL-terminated, empty: any */
  const char *mesh_id;   /* NULL: any */
  const char *owner;     /* user name; NULL: any */
  long long owner_id;    /* only this user's jobs (DT_ANY_OWNER: every user's) */
  long long before;      /* cursor: seq below this (0: newest) */
  int limit;
} dt_job_filter;

/* 1 for queued and running: the states a job leaves by itself (0 for the finished ones). */
int dt_job_active(const char *state);
/* The limits a submission is checked against, in the insert's transaction. */
typedef struct dt_job_limits {
  long long max_queued;          /* jobs waiting, every user's together (max_queued_jobs) */
  long long max_active_per_user; /* queued and running jobs of the job's owner
                                    (max_active_jobs_per_user) */
} dt_job_limits;
/* Insert a queued job, its job.queued event and its audit record (job.submit by who).
 * *outcome: DT_NOT_FOUND when mesh_id names no mesh of mesh_owner; DT_REFUSED when the owner
 * has max_active_per_user jobs queued or running (*user_active receives how many) or max_queued
 * jobs are already waiting (*user_active 0). */
dt_status dt_job_insert(const dt_job_new *j, const dt_job_limits *lim, const dt_actor *who,
                        dt_outcome *outcome, long long *user_active, dt_ctx *ctx);
/* The functions that take an owner find a job only when it belongs to that user
 * (DT_ANY_OWNER: any user's): another user's job is DT_NOT_FOUND, like a missing one. The check
 * is part of the job's lookup by its unique id, no query of its own. */
/* The API object of a job; *outcome DT_NOT_FOUND (and *out NULL) when there is none. */
dt_status dt_job_get(const char *id, long long owner, json_t **out, dt_outcome *outcome,
                     dt_ctx *ctx);
/* State only ("" if none), for cheap checks; *outcome DT_NOT_FOUND when there is no such job. */
dt_status dt_job_state(const char *id, long long owner, char *state, size_t len,
                       dt_outcome *outcome, dt_ctx *ctx);
dt_status dt_job_list(const dt_job_filter *f, json_t **items, long long *next, dt_ctx *ctx);
/* Cancel: a queued job becomes cancelled now; a running job gets cancel_requested (the worker
 * stops it at its next Newton iteration) and *running = 1; audited as job.cancel by who.
 * *outcome DT_REFUSED when the job has finished, DT_NOT_FOUND when there is none. */
dt_status dt_job_cancel(const char *id, long long owner, const dt_actor *who, int *running,
                        dt_outcome *outcome, dt_ctx *ctx);
/* Delete a finished job, audited as job.delete by who (*outcome DT_REFUSED while it is queued
 * or running). */
dt_status dt_job_delete(const char *id, long long owner, const dt_actor *who, dt_outcome *outcome,
                        dt_ctx *ctx);

/* Worker side. The job a worker claimed. */
typedef struct dt_job_claimed {
  char id[20];        /* empty: no job was queued */
  int attempt;        /* 1 for a first run */
  int from_attempt;   /* the attempt whose files this one starts from (results_attempt; 0: the
                         job's directory itself, job_dirs.h) */
  long long owner_id; /* its owner */
  double usage;       /* the owner's worker seconds in the window when it was chosen */
} dt_job_claimed;
/* A daemon's hold on the jobs it runs (a PostgreSQL store shared by several daemons): its
 * instance name (config instance) and how long a lease lasts unless renewed (lease_seconds). */
typedef struct dt_lease {
  const char *owner;
  long long seconds;
} dt_lease;
/* Claim the next queued job for worker w (*c; c->id empty if none), under a lease held by
 * lease->owner for lease->seconds. With PostgreSQL, daemons claiming at once take different
 * jobs (FOR UPDATE SKIP LOCKED) without waiting for each other. With window > 0 (seconds,
 * fair_share_window) it is the head job of the user who used the least worker time (busy
 * seconds) in the last window seconds, then the highest priority, then the oldest; with
 * window 0, the highest priority, then the oldest. */
dt_status dt_job_claim(int worker, long long window, const dt_lease *lease, dt_job_claimed *c,
                       dt_ctx *ctx);
/* Renew the leases of lease->owner's running jobs for lease->seconds from now; the ids of those
 * whose cancellation was requested (through any daemon) into *cancels, and of every job renewed
 * into *held (a job this daemon runs that is not there has lost its lease). */
#define DT_MAX_CANCELS 16
typedef struct dt_job_cancels {
  int n;
  char id[DT_MAX_CANCELS][20];
} dt_job_cancels;
#define DT_MAX_HELD 64
typedef struct dt_job_held {
  int n;
  char id[DT_MAX_HELD][20];
} dt_job_held;
dt_status dt_job_leases_renew(const dt_lease *lease, dt_job_cancels *cancels, dt_job_held *held,
                              dt_ctx *ctx);
/* End the leases of owner's running jobs now (a daemon that drains: another daemon, or this one
 * started again, takes them at once); *n receives how many. */
dt_status dt_job_leases_release(const char *owner, int *n, dt_ctx *ctx);
/* Queue again (job.recovered) or cancel, as at start-up, the running jobs whose lease has ended;
 * *n receives how many. */
dt_status dt_job_requeue_expired(const char *data_dir, int *n, dt_ctx *ctx);
/* Whether cancellation of the job was requested (0 for a job that is not there). */
dt_status dt_job_cancel_requested(const char *id, int *requested, dt_ctx *ctx);
/* Progress columns (NULL-able ints passed as -1) + an event, in one transaction. */
typedef struct dt_job_progress {
  int step, n_steps, increment, newton_iter, increments_done;
  double residual, percent;
} dt_job_progress;
/* ... of run attempt of job id: with a shared store, only while the run holds the job (running,
 * under this daemon's lease, in this attempt); *held = 0 when it does not (another daemon, or
 * another attempt, has the job: the lease was lost) and nothing is written. */
dt_status dt_job_progress_event(const char *id, int attempt, const dt_job_progress *p,
                                const char *type, json_t *data, int *held, dt_ctx *ctx);
/* The run of attempt `attempt` has copied the files of the attempt it starts from into its own
 * directory (job_dirs.h): from now on the job's results are that directory's (results_attempt),
 * provided the job is still running in this attempt; *held = 0 when it is not (another run took
 * it over, or it was queued again) and nothing is written. */
dt_status dt_job_publish(const char *id, int attempt, int *held, dt_ctx *ctx);
/* The attempt whose directory holds the job's results (results_attempt; *attempt 0: the job's
 * directory itself, also for a job that is not there). */
dt_status dt_job_results_attempt(const char *id, int *attempt, dt_ctx *ctx);
/* Record a converged increment of run attempt `attempt` (results on disk), only while the job is
 * running in that attempt (a run that lost its lease records nothing). */
dt_status dt_job_increment_record(const char *id, int attempt, int n, int step, int inc, double lf,
                                  double time, int has_vtu, dt_ctx *ctx);
/* Forget the increments after the first `keep` (a run resumed from a checkpoint of increment
 * `keep`, or 0 when it starts from the beginning), only while the job is running in attempt
 * `attempt`. */
dt_status dt_job_increments_trim(const char *id, int attempt, int keep, dt_ctx *ctx);
/* The backend a running job uses (dt_progress.backend of the solver's first event naming it). */
dt_status dt_job_set_backend(const char *id, const char *backend, dt_ctx *ctx);
/* The end of a run: running -> state, with error fields (NULL when none), timings (borrowed)
 * and the terminal event data (borrowed). */
typedef struct dt_job_end {
  const char *state;      /* succeeded, failed or cancelled */
  const char *error_code; /* NULL when it succeeded */
  const char *message, *reason, *backend;
  json_t *timings, *event_data;
  double busy_seconds;    /* the worker time of this attempt, added to the job's busy_seconds */
  long long stored_bytes; /* what the job's directory holds at its end (max_user_stored_bytes) */
  int attempt;            /* the run's attempt: the end is recorded only while the job runs in it */
} dt_job_end;
/* *kept: the attempt whose directory holds the job's results from now on (results_attempt; 0:
 * the job's directory itself), the others being of no use any more (dt_job_dirs_prune); -1 when
 * the end was not recorded because the job is no longer this run's (its lease was lost). */
dt_status dt_job_finish(const char *id, const dt_job_end *end, int *kept, dt_ctx *ctx);
/* A daemon sharing its store: its instance name, so that the end of a run whose lease another
 * daemon has taken over is dropped rather than recorded over that daemon's run (dt_job_finish).
 * Called once before the workers start (NULL or "": the store is this daemon's alone). */
void dt_jobs_set_instance(const char *instance);
/* The bytes a user stores: its meshes' files and its ended jobs' directories. */
dt_status dt_user_stored_bytes(long long owner_id, long long *bytes, dt_ctx *ctx);
/* Add an attempt's worker time to a job that does not end with it (interrupted by a shutdown,
 * or by a GPU fault): fair sharing counts it. */
dt_status dt_job_add_busy(const char *id, double seconds, dt_ctx *ctx);
/* The solver's checkpoint of a run, in its attempt's directory (job_dirs.h). */
#define DT_CHECKPOINT_FILE "checkpoint.ckpt"
/* Start-up: running jobs back to queued (or cancelled when cancellation was requested), with a
 * job.recovered event that says whether a checkpoint exists: every running job (owner NULL: the
 * store is this daemon's), or those whose lease owner is owner (a shared store: this daemon's
 * instance ran them before it stopped; the others' are left to their leases). *n receives how
 * many. */
dt_status dt_job_recover(const char *data_dir, const char *owner, int *n, dt_ctx *ctx);
/* {"queued": n, ...} for health and metrics; *queued receives the queue depth. */
dt_status dt_job_counts(json_t **out, long long *queued, dt_ctx *ctx);
/* The job's increments with results: array of {n, step, increment, load_factor, time, vtu}. */
dt_status dt_job_increments(const char *id, json_t **out, dt_ctx *ctx);
/* Whether increment n of the job has results (*outcome DT_NOT_FOUND when not), and a VTU. */
dt_status dt_job_increment_exists(const char *id, int n, int *has_vtu, dt_outcome *outcome,
                                  dt_ctx *ctx);

#endif
