/* Events table (see store_events.h). */
#include "store_events.h"

#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "log.h"
#include "store.h"

int dt_event_is_terminal(const char *type) {
  return !strcmp(type, "job.succeeded") || !strcmp(type, "job.failed") || !strcmp(type, "job.cancelled");
}

int dt_event_append_tx(const char *job_id, const char *type, json_t *data) {
  char now[40], *text;
  long long seq = -1;
  int rc = DT_STORE_ERR;
  sqlite3_stmt *st = dt_stmt("UPDATE jobs SET last_event_seq = last_event_seq + 1 WHERE id = ?1 RETURNING last_event_seq");
  if (!st) return DT_STORE_ERR;
  dt_bind_text(st, 1, job_id);
  if (sqlite3_step(st) == SQLITE_ROW) seq = sqlite3_column_int64(st, 0);
  dt_stmt_done(st);
  if (seq < 0) return dt_store_fail("next event seq");
  text = data ? json_dumps(data, JSON_COMPACT | JSON_ENSURE_ASCII) : strdup("{}");
  if (!text) return DT_STORE_ERR;
  dt_now_iso(now, sizeof now);
  st = dt_stmt("INSERT INTO events (job_id, seq, ts, type, data) VALUES (?1, ?2, ?3, ?4, ?5)");
  if (st) {
    dt_bind_text(st, 1, job_id);
    sqlite3_bind_int64(st, 2, seq);
    dt_bind_text(st, 3, now);
    dt_bind_text(st, 4, type);
    dt_bind_text(st, 5, text);
    rc = dt_stmt_exec_done(st, "insert event");
  }
  free(text);
  return rc;
}

int dt_event_append(const char *job_id, const char *type, json_t *data) {
  if (dt_store_begin()) return DT_STORE_ERR;
  if (dt_event_append_tx(job_id, type, data) || dt_store_commit()) {
    dt_store_rollback();
    return DT_STORE_ERR;
  }
  dt_bus_notify();
  return DT_STORE_OK;
}

int dt_events_list(const char *job_id, long long after, int limit, json_t **out) {
  int step;
  json_t *arr = json_array();
  sqlite3_stmt *st = dt_stmt("SELECT seq, ts, type, data FROM events WHERE job_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3");
  *out = NULL;
  if (!st || !arr) {
    json_decref(arr);
    return DT_STORE_ERR;
  }
  dt_bind_text(st, 1, job_id);
  sqlite3_bind_int64(st, 2, after);
  sqlite3_bind_int(st, 3, limit);
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    json_t *data = json_loads(dt_col_text(st, 3), 0, NULL);
    json_array_append_new(arr, json_pack("{s:I, s:s, s:s, s:o}", "seq", (json_int_t)sqlite3_column_int64(st, 0),
                                         "time", dt_col_text(st, 1), "type", dt_col_text(st, 2), "data",
                                         data ? data : json_object()));
  }
  dt_stmt_done(st);
  if (step != SQLITE_DONE) {
    json_decref(arr);
    return dt_store_fail("list events");
  }
  *out = arr;
  return DT_STORE_OK;
}
