/* The worker's writer thread for the fields JSON of each converged increment.
 *
 * Encoding a fields document costs far more than computing what goes in it, so the solve thread
 * only copies the fields (dt_fields_snap_fill: nodal rows and element means) and goes on with
 * the next increment; the writer thread writes fields_NNNN.json from the copy (through a
 * temporary file and a rename, so no reader sees it partial) and then records the increment
 * (dt_job_increment_record). A recorded increment therefore always has its file, and the
 * results handler waits for an announced increment whose row is not there yet.
 *
 * Two copies at most are in flight: one being written, one waiting. A third push waits for the
 * writer, which bounds the memory at two copies and keeps the files at most two increments
 * behind the solver. Increments are written and recorded in the order they were pushed.
 * Before each checkpoint the worker drains the queue (dt_fields_queue_drain), so a kept
 * increment always has its file and row, also after the daemon is killed.
 *
 * Without a thread (pthread_create failed) a push writes on the caller's thread instead.
 *
 * Test hook (a build with DUCTILE_TEST_HOOKS only, config.h): the environment variable
 * DUCTILED_TEST_FIELDS_DELAY_MS delays each file by that many milliseconds, so that tests see
 * increments announced before their files are in place. */
#ifndef DT_SRV_WORKER_FIELDS_QUEUE_H
#define DT_SRV_WORKER_FIELDS_QUEUE_H

#include "ductile.h"
#include "status.h"

typedef struct dt_fields_queue dt_fields_queue;

/* Start the writer of run attempt `attempt`: files go into outdir, increments are recorded for
 * job_id while it runs in that attempt. m, job_id and outdir are borrowed until
 * dt_fields_queue_finish. */
dt_status dt_fields_queue_start(const dt_model *m, const char *job_id, int attempt,
                                const char *outdir, dt_fields_queue **out, dt_ctx *ctx);

/* Copy f (borrowed for the call) and queue its file and its increments row (has_vtu: the
 * solver writes the increment's VTU). Waits while two copies are in flight. */
void dt_fields_queue_push(dt_fields_queue *q, const dt_fields *f, int has_vtu);

/* Wait until every pushed increment is written and recorded (before a checkpoint that keeps
 * them: analysis.h, before_checkpoint). NULL-safe. */
void dt_fields_queue_drain(dt_fields_queue *q);

/* Wait until every pushed increment is written and recorded, stop the thread, free the queue
 * and set *q to NULL. Returns how many files or rows failed (a count, not a status: each
 * failure was logged as it happened, and the run went on). NULL-safe. */
int dt_fields_queue_finish(dt_fields_queue **q);

#endif
