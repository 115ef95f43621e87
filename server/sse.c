/* GET /v1/jobs/{id}/events: Server-Sent Events (Accept: text/event-stream) or polling JSON.
 *
 * The stream replays the job's events after Last-Event-ID (or ?after=), then follows new
 * ones: the content reader waits on the bus with a timeout (a keep-alive comment each
 * sse_keepalive seconds, which also detects departed clients) and re-reads the events table,
 * which is the only source of truth, so nothing is lost or duplicated: every event is sent
 * once, in seq order, with "id: <seq>". The stream ends after the terminal event
 * (job.succeeded, job.failed, job.cancelled), when the job is deleted, or at shutdown.
 * Blocking in the reader is fine because each connection has its own thread (http.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "handlers.h"
#include "store.h"
#include "store_events.h"
#include "store_jobs.h"

typedef struct sse {
  char job_id[96];
  long long last;
  char *pending;
  size_t plen, poff;
  int done;
  double keepalive;
} sse;

static void sse_free(void *cls) {
  sse *s = cls;
  free(s->pending);
  free(s);
}

static int set_pending(sse *s, const char *text) {
  free(s->pending);
  s->pending = strdup(text);
  s->plen = s->pending ? strlen(text) : 0;
  s->poff = 0;
  return s->pending ? 0 : -1;
}

static int job_finished_or_gone(const char *id) {
  char state[16];
  int rc = dt_job_state(id, state, sizeof state);
  if (rc == DT_STORE_NOTFOUND) return 1;
  if (rc) return 0;
  return !strcmp(state, "succeeded") || !strcmp(state, "failed") || !strcmp(state, "cancelled");
}

/* Format the next batch of events into pending. Returns the number of events. */
static int fetch(sse *s) {
  json_t *events = NULL, *e;
  size_t i, cap = 4096, n = 0;
  char *buf;
  if (dt_events_list(s->job_id, s->last, 200, &events)) return -1;
  if (json_array_size(events) == 0) {
    json_decref(events);
    return 0;
  }
  buf = malloc(cap);
  json_array_foreach(events, i, e) {
    char *data = json_dumps(e, JSON_COMPACT | JSON_ENSURE_ASCII);
    const char *type = json_string_value(json_object_get(e, "type"));
    long long seq = (long long)json_integer_value(json_object_get(e, "seq"));
    size_t need = (data ? strlen(data) : 2) + strlen(type) + 64;
    if (buf && n + need >= cap) {
      char *nb;
      while (n + need >= cap) cap *= 2;
      nb = realloc(buf, cap);
      if (!nb) free(buf);
      buf = nb;
    }
    if (buf) n += (size_t)snprintf(buf + n, cap - n, "id: %lld\nevent: %s\ndata: %s\n\n", seq, type, data ? data : "{}");
    free(data);
    s->last = seq;
    if (dt_event_is_terminal(type)) s->done = 1;
  }
  json_decref(events);
  if (!buf) return -1;
  free(s->pending);
  s->pending = buf;
  s->plen = n;
  s->poff = 0;
  return (int)i;
}

static ssize_t reader(void *cls, uint64_t pos, char *out, size_t max) {
  sse *s = cls;
  (void)pos;
  for (;;) {
    unsigned long gen;
    int w, got;
    if (s->poff < s->plen) {
      size_t n = s->plen - s->poff < max ? s->plen - s->poff : max;
      memcpy(out, s->pending + s->poff, n);
      s->poff += n;
      return (ssize_t)n;
    }
    if (s->done) return MHD_CONTENT_READER_END_OF_STREAM;
    gen = dt_bus_generation();
    got = fetch(s);
    if (got < 0) return MHD_CONTENT_READER_END_WITH_ERROR;
    if (got > 0) continue;
    if (job_finished_or_gone(s->job_id)) {
      /* A terminal event may have landed between fetch and the state check: fetch once more. */
      if (fetch(s) <= 0) s->done = 1;
      continue;
    }
    w = dt_bus_wait(gen, s->keepalive);
    if (w < 0) return MHD_CONTENT_READER_END_OF_STREAM; /* shutting down */
    if (w == 0 && set_pending(s, ": keep-alive\n\n")) return MHD_CONTENT_READER_END_WITH_ERROR;
  }
}

static int want_sse(dt_req *r) {
  const char *a = dt_req_header(r, MHD_HTTP_HEADER_ACCEPT);
  return a && strstr(a, "text/event-stream") != NULL;
}

static void start_stream(dt_req *r, long long after) {
  struct MHD_Response *resp;
  sse *s = calloc(1, sizeof *s);
  if (!s || set_pending(s, "retry: 2000\n\n")) {
    free(s);
    dt_reply_error(r, 500, "internal", NULL, "out of memory");
    return;
  }
  snprintf(s->job_id, sizeof s->job_id, "%s", r->param[0]);
  s->last = after;
  s->keepalive = (double)r->srv->cfg.sse_keepalive;
  resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, reader, s, sse_free);
  if (!resp) {
    sse_free(s);
    dt_reply_error(r, 500, "internal", NULL, "cannot start the event stream");
    return;
  }
  MHD_add_response_header(resp, "Content-Type", "text/event-stream");
  MHD_add_response_header(resp, "X-Accel-Buffering", "no");
  dt_reply_response(r, 200, resp);
}

void dt_h_job_events(dt_req *r) {
  static const char *const allowed[] = {"after", "limit", NULL};
  const char *a = dt_req_query(r, "after"), *last_id = dt_req_header(r, "Last-Event-ID");
  const char *l = dt_req_query(r, "limit");
  long long after = 0, limit = 500;
  char state[16];
  json_t *events;
  int rc, done;
  if (dt_req_query_allowed_or_reply(r, allowed) || dt_id_or_reply(r, r->param[0], 'j', "job")) return;
  if (a && dt_parse_count(a, 0, (long long)1 << 53, &after)) {
    dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "after"),
                   "after: expected the seq of the last event received (an integer >= 0)");
    return;
  }
  if (l && dt_parse_count(l, 1, 1000, &limit)) {
    dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "limit"),
                   "limit: expected an integer from 1 to 1000");
    return;
  }
  rc = dt_job_state(r->param[0], state, sizeof state);
  if (rc == DT_STORE_NOTFOUND) {
    dt_reply_error(r, 404, "not_found", NULL, "no job with this id");
    return;
  }
  if (rc) {
    dt_reply_store_error(r);
    return;
  }
  if (want_sse(r)) {
    if (last_id && dt_parse_count(last_id, 0, (long long)1 << 53, &after)) {
      dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "Last-Event-ID"),
                     "Last-Event-ID: expected an event seq (an integer >= 0)");
      return;
    }
    start_stream(r, after);
    return;
  }
  done = !strcmp(state, "succeeded") || !strcmp(state, "failed") || !strcmp(state, "cancelled");
  if (dt_events_list(r->param[0], after, (int)limit, &events)) {
    dt_reply_store_error(r);
    return;
  }
  if (json_array_size(events) > 0) {
    json_t *lastev = json_array_get(events, json_array_size(events) - 1);
    after = (long long)json_integer_value(json_object_get(lastev, "seq"));
    done = dt_event_is_terminal(json_string_value(json_object_get(lastev, "type")));
  }
  dt_reply_json(r, 200, json_pack("{s:o, s:I, s:b}", "events", events, "next_after", (json_int_t)after, "done", done));
}
