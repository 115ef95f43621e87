/* GET /v1/jobs/{id}/events: Server-Sent Events (Accept: text/event-stream) or polling JSON.
 *
 * The stream replays the job's events after Last-Event-ID (or ?after=), then follows new
 * ones: the content reader waits on the bus with a timeout and re-reads the events table,
 * which is the only source of truth, so nothing is lost or duplicated: every event is sent
 * once, in seq order, with "id: <seq>". The stream ends after the terminal event
 * (job.succeeded, job.failed, job.cancelled), when the job is deleted, at shutdown, or when
 * the token that opened it stops authenticating (revoked, or its user disabled): then a comment
 * line says so and the response ends with its closing chunk, and a reconnecting client gets
 * 401. Blocking in the reader is fine because each connection has its own thread (http.h).
 *
 * Timers, per stream: a keep-alive comment goes out sse_keepalive seconds after the stream
 * last sent anything (which also detects departed clients, and keeps a stream of a job that
 * waits in the queue inside connection_timeout); the bus wakes every stream on every job's
 * events, and those wake-ups must not postpone it. The token is checked again every
 * AUTH_RECHECK_S seconds: revocation and disabling are written by the command line, another
 * process, which cannot wake the stream.
 *
 * A user holds at most max_streams_per_user streams at once (429 too_many_streams beyond): the
 * per-address limit does not stop one user who connects from many addresses from holding every
 * connection slot with streams. Requests without a user (no tokens configured) are not
 * counted here; the connection limits still apply to them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "handlers.h"
#include "log.h"
#include "store.h"
#include "store_events.h"
#include "store_jobs.h"

#define AUTH_RECHECK_S 1.0
#define STORE_RETRY_S 0.5 /* how often a stream reads again while the database does not answer */
#define STREAM_USERS 4096 /* users with open streams tracked at once */

/* Open streams per user: a small open-addressed table (user 0: free slot). */
static pthread_mutex_t g_streams_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
  long long user;
  int n;
} g_streams[STREAM_USERS];

/* Count one more stream of user when it has fewer than max: 1, else 0 (also when the table is
 * full, which takes STREAM_USERS users streaming at once). */
static int streams_acquire(long long user, long long max) {
  int ok = 0;
  size_t h = (size_t)user * 2654435761u % STREAM_USERS;
  pthread_mutex_lock(&g_streams_mu);
  for (size_t k = 0; k < STREAM_USERS; k++) {
    size_t i = (h + k) % STREAM_USERS;
    if (g_streams[i].user != user && g_streams[i].user != 0) continue;
    if (g_streams[i].user == 0) g_streams[i].user = user, g_streams[i].n = 0;
    ok = g_streams[i].n < max;
    if (ok) g_streams[i].n++;
    break;
  }
  pthread_mutex_unlock(&g_streams_mu);
  return ok;
}

/* One stream of user fewer (its slot stays taken: a probe chain must not break). */
static void streams_release(long long user) {
  size_t h = (size_t)user * 2654435761u % STREAM_USERS;
  pthread_mutex_lock(&g_streams_mu);
  for (size_t k = 0; k < STREAM_USERS; k++) {
    size_t i = (h + k) % STREAM_USERS;
    if (g_streams[i].user == 0) break;
    if (g_streams[i].user != user) continue;
    if (g_streams[i].n > 0) g_streams[i].n--;
    break;
  }
  pthread_mutex_unlock(&g_streams_mu);
}

typedef struct sse {
  char job_id[96];
  char token_id[17]; /* the token that opened the stream */
  long long user;    /* its user, counted in g_streams (0: none) */
  long long last;
  char *pending;
  size_t plen, poff;
  int done;
  double keepalive; /* seconds of silence before a keep-alive comment */
  double sent_at;   /* dt_mono() when the stream last handed bytes to MHD */
  double auth_at;   /* dt_mono() of the next check of the token */
  int looked;       /* the store was read at bus generation seen and had nothing new */
  unsigned long seen;
} sse;

static void sse_free(void *cls) {
  sse *s = cls;
  if (s->user > 0) streams_release(s->user);
  free(s->pending);
  free(s);
}

static dt_status set_pending(sse *s, const char *text) {
  free(s->pending);
  s->pending = strdup(text);
  s->plen = s->pending ? strlen(text) : 0;
  s->poff = 0;
  return s->pending ? DT_OK : DT_ERR_NOMEM;
}

/* Whether the job has ended or was deleted; a store failure answers no (the stream waits). */
static int job_finished_or_gone(const char *id) {
  char state[16];
  dt_outcome found;
  if (dt_job_state(id, DT_ANY_OWNER, state, sizeof state, &found, NULL) != DT_OK) return 0;
  return found == DT_NOT_FOUND || !dt_job_active(state);
}

/* Append one event as an SSE message to buf (capacity *cap, length *n, grown as needed). */
static dt_status append_event(char **buf, size_t *cap, size_t *n, json_t *e, long long *seq,
                              const char **type) {
  dt_status rc = DT_OK;
  char *data = json_dumps(e, JSON_COMPACT | JSON_ENSURE_ASCII);
  size_t need;
  *type = json_string_value(json_object_get(e, "type"));
  *seq = (long long)json_integer_value(json_object_get(e, "seq"));
  need = (data ? strlen(data) : 2) + strlen(*type) + 64;
  if (*n + need >= *cap) {
    size_t c = *cap;
    char *nb;
    while (*n + need >= c) c *= 2;
    nb = realloc(*buf, c);
    DT_CHECK(nb != NULL, NULL, DT_ERR_NOMEM, "out of memory");
    *buf = nb, *cap = c;
  }
  *n += (size_t)snprintf(*buf + *n, *cap - *n, "id: %lld\nevent: %s\ndata: %s\n\n", *seq, *type,
                         data ? data : "{}");
cleanup:
  free(data);
  return rc;
}

/* Format the next batch of events into pending; *count receives how many. */
static dt_status fetch(sse *s, int *count) {
  dt_status rc = DT_OK;
  json_t *events = NULL, *e;
  size_t i, cap = 4096, n = 0;
  char *buf = NULL;
  *count = 0;
  DT_TRY(dt_events_list(s->job_id, s->last, 200, &events, NULL));
  if (json_array_size(events) == 0) goto cleanup;
  buf = malloc(cap);
  DT_CHECK(buf != NULL, NULL, DT_ERR_NOMEM, "out of memory");
  json_array_foreach(events, i, e) {
    const char *type;
    DT_TRY(append_event(&buf, &cap, &n, e, &s->last, &type));
    if (dt_event_is_terminal(type)) s->done = 1;
  }
  free(s->pending);
  s->pending = buf;
  s->plen = n;
  s->poff = 0;
  buf = NULL;
  *count = (int)i;
cleanup:
  free(buf);
  json_decref(events);
  return rc;
}

/* Whether the stream's token still authenticates; a store failure answers yes (the stream
 * goes on, and the next check decides). */
static int token_active(const sse *s) {
  int active = 1;
  if (dt_auth_token_active(s->token_id, &active, NULL) != DT_OK) return 1;
  return active;
}

/* New events into pending, or the end of the stream when the job has ended; nothing when the
 * bus generation gen is the one already looked at (nothing changed since). */
static dt_status look(sse *s, unsigned long gen) {
  dt_status rc = DT_OK;
  int got = 0;
  if (s->looked && gen == s->seen) goto cleanup;
  DT_TRY(fetch(s, &got));
  if (got > 0) goto cleanup; /* more may follow: look again before waiting */
  if (job_finished_or_gone(s->job_id)) {
    /* A terminal event may have landed between fetch and the state check: fetch once more. */
    DT_TRY(fetch(s, &got));
    if (got == 0) s->done = 1;
    goto cleanup;
  }
  s->looked = 1;
  s->seen = gen;
cleanup:
  return rc;
}

static ssize_t reader(void *cls, uint64_t pos, char *out, size_t max) {
  sse *s = cls;
  (void)pos;
  for (;;) {
    unsigned long gen;
    double now, due;
    dt_status st;
    if (s->poff < s->plen) {
      size_t n = s->plen - s->poff < max ? s->plen - s->poff : max;
      memcpy(out, s->pending + s->poff, n);
      s->poff += n;
      s->sent_at = dt_mono();
      return (ssize_t)n;
    }
    if (s->done) return MHD_CONTENT_READER_END_OF_STREAM;
    if (dt_mono() >= s->auth_at) {
      s->auth_at = dt_mono() + AUTH_RECHECK_S;
      if (!token_active(s)) {
        s->done = 1;
        if (set_pending(s, ": stream closed: the token was revoked or its user disabled\n\n") !=
            DT_OK)
          return MHD_CONTENT_READER_END_OF_STREAM;
        continue;
      }
    }
    gen = dt_bus_generation();
    st = look(s, gen);
    /* The database does not answer (restarting): the stream stays open, with its keep-alives,
     * and reads again every half second, from its last event once the database is back. */
    if (st != DT_OK && st != DT_ERR_DB) return MHD_CONTENT_READER_END_WITH_ERROR;
    if (s->poff < s->plen || s->done) continue;
    now = dt_mono();
    due = s->sent_at + s->keepalive;
    if (st == DT_ERR_DB && now + STORE_RETRY_S < due) due = now + STORE_RETRY_S;
    if (now >= due) {
      if (set_pending(s, ": keep-alive\n\n") != DT_OK) return MHD_CONTENT_READER_END_WITH_ERROR;
      continue;
    }
    if (s->auth_at < due) due = s->auth_at;
    if (due > now && dt_bus_wait(gen, due - now) < 0)
      return MHD_CONTENT_READER_END_OF_STREAM; /* shutting down */
  }
}

static int want_sse(dt_req *r) {
  const char *a = dt_req_header(r, MHD_HTTP_HEADER_ACCEPT);
  return a && strstr(a, "text/event-stream") != NULL;
}

static dt_status start_stream(dt_req *r, long long after, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  struct MHD_Response *resp;
  long long max = r->srv->cfg.max_streams_per_user;
  sse *s = NULL;
  if (r->who.user_id > 0 && !streams_acquire(r->who.user_id, max)) {
    json_t *details = json_pack("{s:I}", "max_streams_per_user", max);
    dt_reply_error(r, 429, "too_many_streams", details,
                   "you have %lld event streams open, the most one user may have "
                   "(max_streams_per_user = %lld): close one, or poll with GET without "
                   "Accept: text/event-stream",
                   max, max);
    return DT_OK;
  }
  s = calloc(1, sizeof *s);
  if (s)
    s->user = r->who.user_id > 0 ? r->who.user_id : 0;
  else if (r->who.user_id > 0)
    streams_release(r->who.user_id);
  DT_CHECK(s != NULL && set_pending(s, "retry: 2000\n\n") == DT_OK, ctx, DT_ERR_NOMEM,
           "out of memory starting an event stream");
  snprintf(s->job_id, sizeof s->job_id, "%s", r->param[0]);
  snprintf(s->token_id, sizeof s->token_id, "%s", r->who.token_id);
  s->last = after;
  s->keepalive = (double)r->srv->cfg.sse_keepalive;
  s->sent_at = dt_mono();
  s->auth_at = s->sent_at + AUTH_RECHECK_S;
  resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, reader, s, sse_free);
  DT_CHECK(resp != NULL, ctx, DT_ERR_INTERNAL, "libmicrohttpd cannot start the event stream");
  s = NULL; /* the response owns it */
  MHD_add_response_header(resp, "Content-Type", "text/event-stream");
  MHD_add_response_header(resp, "X-Accel-Buffering", "no");
  dt_reply_response(r, 200, resp);
cleanup:
  if (s) sse_free(s);
  return rc;
}

/* ?after= and ?limit=. */
static dt_status cursor_or_reply(dt_req *r, long long *after, long long *limit) {
  const char *a = dt_req_query(r, "after"), *l = dt_req_query(r, "limit");
  *after = 0;
  *limit = 500;
  if (a && dt_parse_count(a, 0, (long long)1 << 53, after) != 0) {
    dt_reply_invalid_parameter(
        r, "after", "after: expected the seq of the last event received (an integer >= 0)");
    return DT_ERR_INPUT;
  }
  if (l && dt_parse_count(l, 1, 1000, limit) != 0) {
    dt_reply_invalid_parameter(r, "limit", "limit: expected an integer from 1 to 1000");
    return DT_ERR_INPUT;
  }
  return DT_OK;
}

/* A reconnecting stream's Last-Event-ID, which replaces ?after= when present. */
static dt_status last_event_id_or_reply(dt_req *r, long long *after) {
  const char *last_id = dt_req_header(r, "Last-Event-ID");
  if (!last_id || dt_parse_count(last_id, 0, (long long)1 << 53, after) == 0) return DT_OK;
  dt_reply_invalid_parameter(r, "Last-Event-ID",
                             "Last-Event-ID: expected an event seq (an integer >= 0)");
  return DT_ERR_INPUT;
}

/* The polling answer: events after `after`, at most limit, with where to go on from. */
static dt_status reply_events(dt_req *r, const char *state, long long after, long long limit,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *events = NULL;
  int done = !dt_job_active(state);
  DT_TRY(dt_events_list(r->param[0], after, (int)limit, &events, ctx));
  if (json_array_size(events) > 0) {
    json_t *lastev = json_array_get(events, json_array_size(events) - 1);
    after = (long long)json_integer_value(json_object_get(lastev, "seq"));
    done = dt_event_is_terminal(json_string_value(json_object_get(lastev, "type")));
  }
  dt_reply_json(r, 200,
                json_pack("{s:o, s:I, s:b}", "events", events, "next_after", (json_int_t)after,
                          "done", done));
cleanup:
  return rc;
}

void dt_h_job_events(dt_req *r) {
  static const char *const allowed[] = {"after", "limit", NULL};
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_outcome found;
  long long after, limit;
  char state[16];
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_req_query_allowed_or_reply(r, allowed));
  DT_TRY(dt_id_or_reply(r, r->param[0], 'j', "job"));
  DT_TRY(cursor_or_reply(r, &after, &limit));
  DT_TRY(dt_job_state(r->param[0], dt_principal_owner(&r->who), state, sizeof state, &found, &ctx));
  if (found == DT_NOT_FOUND) {
    dt_reply_not_found(r, "job");
    goto cleanup;
  }
  if (want_sse(r)) {
    DT_TRY(last_event_id_or_reply(r, &after));
    DT_TRY(start_stream(r, after, &ctx));
  } else {
    DT_TRY(reply_events(r, state, after, limit, &ctx));
  }
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}
