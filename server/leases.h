/* The lease keeper of a daemon that shares a PostgreSQL store with others (store.h,
 * store_jobs.h): one thread that renews, every second, the leases of this daemon's running jobs
 * (for lease_seconds) and passes on to its workers the cancellations requested through another
 * daemon; and that looks, four times a second, for running jobs whose lease has ended, whichever
 * daemon held it, and queues them again (a daemon killed with its jobs: a surviving daemon
 * resumes them from their checkpoints at most lease_seconds, a quarter of a second and a claim
 * after the kill). Not started with SQLite, whose one daemon recovers its jobs when it starts. */
#ifndef DT_SRV_LEASES_H
#define DT_SRV_LEASES_H

#include "server.h"
#include "status.h"

dt_status dt_leases_start(dt_server *srv, dt_ctx *ctx);
/* Stop the keeper (NULL-safe, and a no-op when not started); then, when release is set, end this
 * daemon's leases at once, so that the jobs its drain interrupted are taken up without waiting
 * for the leases to run out. */
void dt_leases_stop(dt_server *srv, int release);

#endif
