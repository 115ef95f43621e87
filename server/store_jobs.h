/* Jobs: the queue and the state machine
 *     queued -> running -> succeeded | failed | cancelled,   queued -> cancelled,
 *     running -> queued (only at start-up recovery, for jobs a crash or shutdown left running).
 * Every state change happens in one transaction together with its event, so the events
 * table and the state always agree. The queue order is submission order (jobs.seq); the
 * priority column and owner_id leave room for fair sharing. The dt_job_* names are the jobs
 * table's rows and operations; parsing a job file is the solver's dt_parse_job_* (job_json.h). */
#ifndef DT_SRV_STORE_JOBS_H
#define DT_SRV_STORE_JOBS_H

#include <jansson.h>

typedef struct dt_job_new {
  char id[20];
  long long owner_id;
  char token_id[17]; /* the submitting token ("" unknown) */
  char mesh_id[20]; /* "" for an inline mesh */
  char title[256];
  int n_steps;
  long long est_bytes; /* the solver's memory estimate (0: none) */
} dt_job_new;

typedef struct dt_job_filter {
  const char *states[5]; /* NULL-terminated, empty: any */
  const char *mesh_id;   /* NULL: any */
  const char *owner;     /* user name; NULL: any */
  long long before;      /* cursor: seq below this (0: newest) */
  int limit;
} dt_job_filter;

/* Insert a queued job and its job.queued event. DT_STORE_NOTFOUND: mesh_id names no mesh;
 * DT_STORE_CONFLICT: max_queued jobs are already waiting. */
int dt_job_insert(const dt_job_new *j, long long max_queued);
int dt_job_get(const char *id, json_t **out);
/* State only ("" if none): for cheap checks. DT_STORE_NOTFOUND if no such job. */
int dt_job_state(const char *id, char *state, size_t len);
int dt_job_list(const dt_job_filter *f, json_t **items, long long *next);
/* Cancel: a queued job becomes cancelled now; a running job gets cancel_requested (the worker
 * stops it at its next Newton iteration) and *running = 1. DT_STORE_CONFLICT if finished. */
int dt_job_cancel(const char *id, int *running);
/* Delete a finished job (DT_STORE_CONFLICT while queued or running). */
int dt_job_delete(const char *id);

/* Worker side. Claim the oldest queued job for worker w: *id receives it (empty if none). */
int dt_job_claim(int worker, char *id, size_t idlen, int *attempt, char *mesh_id, size_t meshlen);
int dt_job_cancel_requested(const char *id);
/* Progress columns (NULL-able ints passed as -1) + an event, in one transaction. */
typedef struct dt_job_progress {
  int step, n_steps, increment, newton_iter, increments_done;
  double residual, percent;
} dt_job_progress;
int dt_job_progress_event(const char *id, const dt_job_progress *p, const char *type, json_t *data);
/* Record a converged increment (results on disk). */
int dt_job_increment_record(const char *id, int n, int step, int inc, double lf, double time, int has_vtu);
/* Forget the increments after the first `keep` (a run resumed from a checkpoint of increment
 * `keep`, or 0 when it starts from the beginning). */
int dt_job_increments_trim(const char *id, int keep);
/* The backend a running job uses (from the solver's "backend ..." INFO line). */
int dt_job_set_backend(const char *id, const char *backend);
/* Finish: running -> state, with error fields (NULL when none), timings (borrowed) and the
 * terminal event data (borrowed). */
int dt_job_finish(const char *id, const char *state, const char *error_code, const char *message,
                  const char *reason, const char *backend, json_t *timings, json_t *event_data);
/* The solver's checkpoint of a job: <data>/jobs/<id>/checkpoint.ckpt. */
#define DT_CHECKPOINT_FILE "checkpoint.ckpt"
/* Start-up: running jobs back to queued (or cancelled when cancellation was requested), with a
 * job.recovered event that says whether a checkpoint exists. *n receives how many. */
int dt_job_recover(const char *data_dir, int *n);
/* {"queued": n, ...} for health and metrics; *queued receives the queue depth. */
int dt_job_counts(json_t **out, long long *queued);
/* The job's increments with results: array of {n, step, increment, load_factor, time, vtu}. */
int dt_job_increments(const char *id, json_t **out);
int dt_job_increment_exists(const char *id, int n, int *has_vtu);

#endif
