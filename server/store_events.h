/* Per-job events: ordered by seq (1, 2, ...), replayable, the source of SSE and polling.
 * The terminal events are job.succeeded, job.failed and job.cancelled: nothing follows them. */
#ifndef DT_SRV_STORE_EVENTS_H
#define DT_SRV_STORE_EVENTS_H

#include <jansson.h>

#include "status.h"

/* Append inside the caller's transaction (seq = jobs.last_event_seq + 1). data is borrowed
 * (NULL: {}). Does not notify the bus: the caller does after committing. */
dt_status dt_event_append_tx(const char *job_id, const char *type, json_t *data, dt_ctx *ctx);
/* Append in a transaction of its own and notify the bus. */
dt_status dt_event_append(const char *job_id, const char *type, json_t *data, dt_ctx *ctx);
/* Events with seq > after (at most limit) as an array of {seq, time, type, data}. */
dt_status dt_events_list(const char *job_id, long long after, int limit, json_t **out, dt_ctx *ctx);
/* 1 for job.succeeded, job.failed and job.cancelled. */
int dt_event_is_terminal(const char *type);

#endif
