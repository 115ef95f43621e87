/* A worker's record of the ends of its jobs, and of the ends the store did not take.
 *
 * A job's end (succeeded, failed, cancelled) is one transaction (dt_job_finish). When the store
 * refuses it (the disk is full, the database is locked past its timeout), the job would stay
 * `running` with no worker running it: a cancel would change nothing and a delete be refused
 * until a restart. So the worker keeps such an end and records it again, at most once a
 * second, from its loop and from the progress of the job it runs next; it takes other jobs
 * meanwhile. An end refused because the disk is full (DT_ERR_IO from the store) is recorded as
 * failed with code disk_full, a message that says the disk of the data directory is full, and
 * the event of that end: the run's results may be cut short, and the smaller transaction is the
 * one most likely to fit. A worker keeps DT_ENDS_KEPT ends at most; beyond, and at shutdown,
 * an end still refused is left to start-up recovery, which queues its job again (logged).
 * Once the store has taken an end, the job's directories other than the one of its results go
 * (dt_job_dirs_prune, job_dirs.h): only the run whose end was recorded, the one that held the
 * job, removes anything.
 *
 * Test hook (a build with DUCTILE_TEST_HOOKS only): the setting test_disk_full_at_end = N makes
 * the first N attempts to record the end of the first job that ends fail as the store fails on
 * a full disk (tests/server/test_disk_full.py); other jobs' ends are recorded as usual.
 *
 * One worker thread owns a dt_ends: no locking. */
#ifndef DT_SRV_WORKER_ENDS_H
#define DT_SRV_WORKER_ENDS_H

#include <stdatomic.h>

#include <jansson.h>

#include "status.h"
#include "store_jobs.h"

#define DT_ENDS_KEPT 8

typedef struct dt_end_kept {
  char job_id[20];
  char state[16], code[48], reason[48], backend[16];
  char message[1400];
  json_t *timings, *event_data; /* owned */
  double busy_seconds;
  long long stored_bytes;
  int attempt;   /* the run's attempt (dt_job_end.attempt) */
  int disk_full; /* already rewritten as the disk_full failure */
  int attempts;
  int test_full; /* test hook: its first test_full_attempts attempts fail */
} dt_end_kept;

typedef struct dt_ends {
  int worker;           /* for the log */
  const char *data_dir; /* where the jobs' directories are (borrowed) */
  int n;
  dt_end_kept kept[DT_ENDS_KEPT];
  double next_retry;          /* dt_mono time of the next retry */
  atomic_int *test_full_jobs; /* test hook: jobs whose ends still fail, 1 or 0 (may be NULL) */
  int test_full_attempts;     /* test hook: the attempts that fail (test_disk_full_at_end) */
} dt_ends;

/* Record the end of job id (end borrowed); an end the store refuses is kept (copied) for
 * dt_ends_retry. */
void dt_ends_record(dt_ends *e, const char *id, const dt_job_end *end);
/* Record the kept ends again: when a second has passed since the last try, or now (force). */
void dt_ends_retry(dt_ends *e, int force);
/* 1 while ends are kept. */
int dt_ends_pending(const dt_ends *e);
/* A last try, then free what is kept: a job whose end is still refused stays running in the
 * store, and start-up recovery queues it again (logged). */
void dt_ends_finish(dt_ends *e);

#endif
