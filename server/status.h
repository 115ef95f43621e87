/* The daemon's error convention, the solver's (solver/core/dt_status.h; README "Errors").
 *
 * A function that can fail returns dt_status and fills a dt_ctx with what failed and where:
 * `dt_status rc = DT_OK;`, DT_CHECK for conditions, DT_TRY for calls, one `cleanup:` label
 * that releases what the function holds. The store reports its failures as DT_ERR_DB (the
 * message names the operation and SQLite's error; it is logged, never sent to clients).
 *
 * Finding a job missing, or in a state that refuses what was asked, is an answer rather than
 * a failure: such functions return DT_OK and say which in a dt_outcome out-parameter, and the
 * caller replies what the API documents for it (404 not_found, 409 job_finished, ...). A
 * handler turns a failure into its reply with dt_reply_status (http.h), the one mapping from
 * dt_status to HTTP status and error code. */
#ifndef DT_SRV_STATUS_H
#define DT_SRV_STATUS_H

#include "ductile.h"

typedef enum dt_outcome {
  DT_DONE = 0,      /* the row (or route) is there and the operation was done */
  DT_NOT_FOUND = 1, /* no such job, mesh, token, increment or route */
  DT_REFUSED = 2    /* it is there, but its state refuses the operation: a finished job cannot
                       be cancelled, a mesh in use cannot be deleted, a full queue takes no job,
                       a path does not take this method */
} dt_outcome;

/* Lookups of jobs and meshes take the owner their row must have: a request's principal's user,
 * or DT_ANY_OWNER for an admin and for the daemon's own work. A row of another user is
 * DT_NOT_FOUND, exactly like a missing one, so the API answers the same 404 for both and ids
 * cannot be probed (dt_principal_owner, auth.h). User ids start at 1. */
#define DT_ANY_OWNER 0LL

#endif
