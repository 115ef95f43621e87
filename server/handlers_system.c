/* GET /v1/health and GET /metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "handlers.h"
#include "metrics.h"
#include "store_jobs.h"
#include "worker.h"

void dt_h_health(dt_req *r) {
  static const char *const allowed[] = {NULL};
  json_t *counts = NULL, *body, *devices;
  const char *first;
  long long queued = 0;
  if (dt_req_query_allowed_or_reply(r, allowed)) return;
  if (dt_job_counts(&counts, &queued)) {
    dt_reply_store_error(r);
    return;
  }
  body = json_pack("{s:s, s:s, s:b, s:I, s:o, s:o, s:s}", "status", atomic_load(&r->srv->draining) ? "draining" : "ok",
                   "version", DUCTILED_VERSION, "accepting_jobs", !atomic_load(&r->srv->draining), "queue_depth",
                   (json_int_t)queued, "jobs", counts, "workers", dt_workers_describe(r->srv), "backend",
                   r->srv->cfg.backend);
  devices = dt_devices_json(r->srv, 0);
  first = json_string_value(json_object_get(json_array_get(devices, 0), "name"));
  json_object_set_new(body, "backend_selected",
                      r->srv->backend_name[0] ? json_string(r->srv->backend_name) : json_null());
  /* A backend without a device query still names itself. */
  json_object_set_new(body, "device", json_string(first                    ? first
                                                  : r->srv->backend_name[0] ? r->srv->backend_name
                                                                            : "unavailable"));
  json_object_set_new(body, "devices", devices);
  json_object_set_new(body, "gpus", dt_devices_json(r->srv, 1)); /* the devices of kind gpu */
  json_object_set_new(body, "restarts",
                      json_pack("{s:i, s:o, s:o}", "count", r->srv->restarts, "last_at",
                                r->srv->restarts ? json_string(r->srv->last_restart_at) : json_null(), "last_reason",
                                r->srv->restarts ? json_string(r->srv->last_restart_why) : json_null()));
  json_object_set_new(body, "max_job_bytes",
                      r->srv->cfg.max_job_bytes > 0 ? json_integer(r->srv->cfg.max_job_bytes) : json_null());
  dt_reply_json(r, 200, body);
}

void dt_h_metrics(dt_req *r) {
  json_t *counts = NULL, *v;
  const char *state;
  long long queued;
  char extra[8192];
  size_t n = 0;
  char *text;
  if (dt_job_counts(&counts, &queued)) {
    dt_reply_text(r, 503, "text/plain; charset=utf-8", "store unavailable\n", 18);
    return;
  }
  n += (size_t)snprintf(extra + n, sizeof extra - n,
                        "# HELP ductile_jobs Jobs in the store, by state.\n# TYPE ductile_jobs gauge\n");
  json_object_foreach(counts, state, v) {
    if (n < sizeof extra)
      n += (size_t)snprintf(extra + n, sizeof extra - n, "ductile_jobs{state=\"%s\"} %lld\n", state,
                            (long long)json_integer_value(v));
  }
  if (n < sizeof extra)
    n += (size_t)snprintf(extra + n, sizeof extra - n,
                          "# HELP ductile_queue_depth Jobs waiting for a worker.\n# TYPE ductile_queue_depth gauge\n"
                          "ductile_queue_depth %lld\n",
                          queued);
  if (n < sizeof extra) n += dt_devices_prometheus(r->srv, extra + n, sizeof extra - n);
  json_decref(counts);
  text = dt_metrics_render(extra);
  if (!text) {
    dt_reply_text(r, 500, "text/plain; charset=utf-8", "out of memory\n", 14);
    return;
  }
  dt_reply_text(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, strlen(text));
  free(text);
}
