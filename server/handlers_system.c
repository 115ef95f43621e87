/* GET /v1/health and GET /metrics.
 *
 * Both are the server's, not a user's: every user sees the queue depth, the jobs by state and
 * the devices (how busy the server is), counts without ids or names. /v1/health's workers name
 * the job they run only to its owner and to admins; to other users a busy worker's job_id is
 * null. /metrics (no token, for Prometheus) has counts only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "log.h"
#include "handlers.h"
#include "metrics.h"
#include "store_jobs.h"
#include "worker.h"

/* The body of /v1/health (counts stolen). */
static json_t *health_json(dt_server *srv, json_t *counts, long long queued, long long viewer) {
  json_t *body, *devices;
  const char *first;
  body = json_pack("{s:s, s:s, s:b, s:I, s:o, s:o, s:s}", "status",
                   atomic_load(&srv->draining) ? "draining" : "ok", "version", DUCTILED_VERSION,
                   "accepting_jobs", !atomic_load(&srv->draining), "queue_depth",
                   (json_int_t)queued, "jobs", counts, "workers", dt_workers_describe(srv, viewer),
                   "backend", srv->cfg.backend);
  devices = dt_devices_json(srv, 0);
  first = json_string_value(json_object_get(json_array_get(devices, 0), "name"));
  json_object_set_new(body, "backend_selected",
                      srv->backend_name[0] ? json_string(srv->backend_name) : json_null());
  /* A backend without a device query still names itself. */
  json_object_set_new(body, "device",
                      json_string(first                  ? first
                                  : srv->backend_name[0] ? srv->backend_name
                                                         : "unavailable"));
  json_object_set_new(body, "devices", devices);
  json_object_set_new(body, "gpus", dt_devices_json(srv, 1)); /* the devices of kind gpu */
  json_object_set_new(body, "restarts",
                      json_pack("{s:i, s:o, s:o}", "count", srv->restarts, "last_at",
                                srv->restarts ? json_string(srv->last_restart_at) : json_null(),
                                "last_reason",
                                srv->restarts ? json_string(srv->last_restart_why) : json_null()));
  json_object_set_new(body, "max_job_bytes",
                      srv->cfg.max_job_bytes > 0 ? json_integer(srv->cfg.max_job_bytes)
                                                 : json_null());
  /* the model limits a client can check its job against before uploading it */
  json_object_set_new(body, "max_model_dofs",
                      srv->cfg.max_model_dofs > 0 ? json_integer(srv->cfg.max_model_dofs)
                                                  : json_null());
  json_object_set_new(body, "max_model_elements",
                      srv->cfg.max_model_elements > 0 ? json_integer(srv->cfg.max_model_elements)
                                                      : json_null());
  return body;
}

void dt_h_health(dt_req *r) {
  static const char *const allowed[] = {NULL};
  dt_status rc = DT_OK;
  dt_ctx ctx;
  json_t *counts = NULL;
  long long queued = 0;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_req_query_allowed_or_reply(r, allowed));
  DT_TRY(dt_job_counts(&counts, &queued, &ctx));
  dt_reply_json(r, 200, health_json(r->srv, counts, queued, dt_principal_owner(&r->who)));
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

/* The job and device gauges in Prometheus text, appended to what dt_metrics_render writes. */
static void gauges(dt_server *srv, json_t *counts, long long queued, char *extra, size_t cap) {
  const char *state;
  json_t *v;
  size_t n = 0;
  n += (size_t)snprintf(
      extra + n, cap - n,
      "# HELP ductile_jobs Jobs in the store, by state.\n# TYPE ductile_jobs gauge\n");
  json_object_foreach(counts, state, v) {
    if (n < cap)
      n += (size_t)snprintf(extra + n, cap - n, "ductile_jobs{state=\"%s\"} %lld\n", state,
                            (long long)json_integer_value(v));
  }
  if (n < cap)
    n += (size_t)snprintf(
        extra + n, cap - n,
        "# HELP ductile_queue_depth Jobs waiting for a worker.\n# TYPE ductile_queue_depth gauge\n"
        "ductile_queue_depth %lld\n",
        queued);
  if (n < cap) dt_devices_prometheus(srv, extra + n, cap - n);
}

/* Prometheus scrapes text, so /metrics answers its failures in text too (503 for the store, as
 * dt_reply_status would, with the cause in the log), not in the JSON envelope. */
void dt_h_metrics(dt_req *r) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  json_t *counts = NULL;
  long long queued;
  char extra[8192];
  char *text = NULL;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_job_counts(&counts, &queued, &ctx));
  gauges(r->srv, counts, queued, extra, sizeof extra);
  text = dt_metrics_render(extra);
  DT_CHECK(text != NULL, &ctx, DT_ERR_NOMEM, "out of memory rendering the metrics");
  dt_reply_text(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, strlen(text));
cleanup:
  if (rc != DT_OK) {
    dt_log(DT_LOG_ERROR, r->id, NULL, "metrics: %s", ctx.msg);
    if (rc == DT_ERR_DB)
      dt_reply_text(r, 503, "text/plain; charset=utf-8", "store unavailable\n", 18);
    else
      dt_reply_text(r, 500, "text/plain; charset=utf-8", "out of memory\n", 14);
  }
  json_decref(counts);
  free(text);
}
