/* Events table (see store_events.h). */
#include "store_events.h"

#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "log.h"
#include "store.h"

int dt_event_is_terminal(const char *type) {
  return !strcmp(type, "job.succeeded") || !strcmp(type, "job.failed") ||
         !strcmp(type, "job.cancelled");
}

dt_status dt_event_append_tx(const char *job_id, const char *type, json_t *data, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char now[40], *text = NULL;
  long long seq;
  int row;
  dt_sql *st = NULL;
  DT_TRY(dt_stmt(
      "UPDATE jobs SET last_event_seq = last_event_seq + 1 WHERE id = ?1 RETURNING last_event_seq",
      &st, ctx));
  dt_bind_text(st, 1, job_id);
  DT_TRY(dt_stmt_row(st, "next event seq", &row, ctx));
  DT_CHECK(row, ctx, DT_ERR_DB, "database error (next event seq): no job %s", job_id);
  seq = dt_col_int64(st, 0);
  dt_stmt_done(&st);
  text = data ? json_dumps(data, JSON_COMPACT | JSON_ENSURE_ASCII) : strdup("{}");
  DT_CHECK(text != NULL, ctx, DT_ERR_NOMEM, "out of memory encoding a %s event", type);
  dt_now_iso(now, sizeof now);
  DT_TRY(dt_stmt("INSERT INTO events (job_id, seq, ts, type, data) VALUES (?1, ?2, ?3, ?4, ?5)",
                 &st, ctx));
  dt_bind_text(st, 1, job_id);
  dt_bind_int64(st, 2, seq);
  dt_bind_text(st, 3, now);
  dt_bind_text(st, 4, type);
  dt_bind_text(st, 5, text);
  DT_TRY(dt_stmt_run(&st, "insert event", NULL, ctx));
cleanup:
  dt_stmt_done(&st);
  free(text);
  return rc;
}

dt_status dt_event_append(const char *job_id, const char *type, json_t *data, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(dt_event_append_tx(job_id, type, data, ctx));
  DT_TRY(dt_store_commit(ctx));
  dt_bus_notify();
cleanup:
  dt_store_rollback();
  return rc;
}

dt_status dt_events_list(const char *job_id, long long after, int limit, json_t **out,
                         dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *arr = json_array();
  dt_sql *st = NULL;
  int row = 1;
  *out = NULL;
  DT_CHECK(arr != NULL, ctx, DT_ERR_NOMEM, "out of memory listing events");
  DT_TRY(dt_stmt(
      "SELECT seq, ts, type, data FROM events WHERE job_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
      &st, ctx));
  dt_bind_text(st, 1, job_id);
  dt_bind_int64(st, 2, after);
  dt_bind_int64(st, 3, limit);
  for (;;) {
    json_t *data;
    DT_TRY(dt_stmt_row(st, "list events", &row, ctx));
    if (!row) break;
    data = json_loads(dt_col_text(st, 3), 0, NULL);
    json_array_append_new(arr,
                          json_pack("{s:I, s:s, s:s, s:o}", "seq", (json_int_t)dt_col_int64(st, 0),
                                    "time", dt_col_text(st, 1), "type", dt_col_text(st, 2), "data",
                                    data ? data : json_object()));
  }
  *out = arr;
  arr = NULL;
cleanup:
  dt_stmt_done(&st);
  json_decref(arr);
  return rc;
}
