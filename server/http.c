/* libmicrohttpd set-up, routing, request bodies and completion (see http.h). */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admission.h"
#include "conn_limits.h"
#include "handlers.h"
#include "log.h"
#include "metrics.h"
#include "rate_limit.h"

#define BODY_IN_MEMORY (1u << 20)

typedef struct route {
  const char *method;
  const char *pattern;
  dt_handler fn;
  int flags;
} route;

static const route ROUTES[] = {
#define DT_ROUTE(m, p, f, fl) {#m, p, f, fl},
#include "routes.def"
#undef DT_ROUTE
};
#define N_ROUTES ((int)(sizeof ROUTES / sizeof ROUTES[0]))

static atomic_ulong g_req_counter;
static char g_boot_tag[9];

void dt_http_request_id(char *out, size_t len) {
  snprintf(out, len, "%s-%06lu", g_boot_tag,
           (unsigned long)atomic_fetch_add(&g_req_counter, 1) + 1);
}

/* Match url against pattern segment by segment; {x} captures one non-empty segment. */
static int match(const char *pattern, const char *url, char param[2][96]) {
  const char *p = pattern, *u = url;
  int np = 0;
  while (*p && *u) {
    if (*p == '{') {
      const char *pe = strchr(p, '}'), *ue = strchr(u, '/');
      size_t ul = ue ? (size_t)(ue - u) : strlen(u);
      if (!pe || ul == 0 || ul >= 96 || np >= 2) return 0;
      memcpy(param[np], u, ul);
      param[np++][ul] = '\0';
      p = pe + 1;
      u += ul;
      continue;
    }
    if (*p != *u) return 0;
    p++, u++;
  }
  return *p == '\0' && *u == '\0';
}

/* The route for method+url (*index, path parameters in param): DT_NOT_FOUND when no route's
 * pattern matches the path, DT_REFUSED when some do but not for this method (allow lists
 * theirs). */
static dt_outcome find_route(const char *method, const char *url, char param[2][96], char *allow,
                             size_t allow_len, int *index) {
  dt_outcome outcome = DT_NOT_FOUND;
  allow[0] = '\0';
  for (int i = 0; i < N_ROUTES; i++) {
    char tmp[2][96];
    if (!match(ROUTES[i].pattern, url, tmp)) continue;
    if (!strcmp(ROUTES[i].method, method)) {
      memcpy(param, tmp, sizeof tmp);
      *index = i;
      return DT_DONE;
    }
    outcome = DT_REFUSED;
    if (strlen(allow) + 10 < allow_len) {
      if (allow[0]) strcat(allow, ", ");
      strcat(allow, ROUTES[i].method);
    }
  }
  return outcome;
}

void dt_req_actor(dt_req *r, dt_actor *a) {
  const union MHD_ConnectionInfo *i =
      MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  const struct sockaddr *sa = i ? i->client_addr : NULL;
  memset(a, 0, sizeof *a);
  r->address[0] = '\0';
  if (sa && sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, r->address, sizeof r->address);
  else if (sa && sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, r->address,
              sizeof r->address);
  a->via = "api";
  a->user_id = r->who.user_id;
  a->token_id = r->who.token_id;
  a->request_id = r->id;
  a->address = r->address[0] ? r->address : NULL;
}

const char *dt_req_header(dt_req *r, const char *name) {
  return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *dt_req_query(dt_req *r, const char *name) {
  return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

typedef struct query_check {
  const char *const *allowed;
  char bad[64];
} query_check;

static enum MHD_Result check_one(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value) {
  query_check *q = cls;
  (void)kind, (void)value;
  for (int i = 0; q->allowed[i]; i++)
    if (!strcmp(q->allowed[i], key)) return MHD_YES;
  snprintf(q->bad, sizeof q->bad, "%s", key);
  return MHD_NO;
}

dt_status dt_req_query_allowed_or_reply(dt_req *r, const char *const *allowed) {
  query_check q = {allowed, ""};
  json_t *allow;
  MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, check_one, &q);
  if (!q.bad[0]) return DT_OK;
  allow = json_array();
  for (int i = 0; allowed[i]; i++) json_array_append_new(allow, json_string(allowed[i]));
  dt_reply_error(r, 400, "unknown_parameter",
                 json_pack("{s:s%, s:o}", "parameter", q.bad, strnlen(q.bad, 63), "allowed", allow),
                 "unknown query parameter \"%.63s\"", q.bad);
  return DT_ERR_INPUT;
}

dt_status dt_req_body_json_or_reply(dt_req *r, json_t **out) {
  json_error_t e;
  const size_t flags = JSON_REJECT_DUPLICATES;
  *out = NULL;
  if (r->total == 0) {
    dt_reply_error(r, 400, "empty_body", NULL, "this request needs a JSON body");
    return DT_ERR_INPUT;
  }
  *out =
      r->body ? json_loadb(r->body, r->len, flags, &e) : json_load_file(r->spool_path, flags, &e);
  if (*out) return DT_OK;
  dt_reply_error(
      r, 400, "invalid_json",
      json_pack("{s:i, s:i, s:i}", "line", e.line, "column", e.column, "position", e.position),
      "request body:%d:%d: %s", e.line, e.column, e.text);
  return DT_ERR_INPUT;
}

/* The in-memory body into path, through path.tmp and a rename (no reader sees it partial). */
static dt_status body_write(const dt_req *r, const char *path, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char tmp[1300];
  FILE *f;
  int ok;
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  f = fopen(tmp, "wb");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
  ok = fwrite(r->body, 1, r->len, f) == r->len;
  ok = fflush(f) == 0 && ok && fsync(fileno(f)) == 0;
  ok = fclose(f) == 0 && ok;
  DT_CHECK(ok && rename(tmp, path) == 0, ctx, DT_ERR_IO, "cannot write %s: %s", path,
           strerror(errno));
cleanup:
  if (rc != DT_OK) unlink(tmp);
  return rc;
}

dt_status dt_req_body_save(dt_req *r, const char *path, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (r->body) return body_write(r, path, ctx);
  DT_CHECK(rename(r->spool_path, path) == 0, ctx, DT_ERR_IO,
           "cannot move the request body to %s: %s", path, strerror(errno));
  r->spool_path[0] = '\0';
cleanup:
  return rc;
}

static dt_status spool_open(dt_req *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  snprintf(r->spool_path, sizeof r->spool_path, "%s/tmp/upload-XXXXXX", r->srv->data_dir);
  r->spool_fd = mkstemp(r->spool_path);
  if (r->spool_fd < 0) r->spool_path[0] = '\0';
  DT_CHECK(r->spool_fd >= 0, ctx, DT_ERR_IO, "cannot create a spool file in %s/tmp: %s",
           r->srv->data_dir, strerror(errno));
  DT_CHECK(r->len == 0 || write(r->spool_fd, r->body, r->len) == (ssize_t)r->len, ctx, DT_ERR_IO,
           "cannot write the spool file %s: %s", r->spool_path, strerror(errno));
  free(r->body);
  r->body = NULL;
cleanup:
  return rc;
}

/* Keep the body in memory up to BODY_IN_MEMORY, then on disk. */
static dt_status body_append(dt_req *r, const char *data, size_t n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (r->spool_fd < 0 && r->len + n <= BODY_IN_MEMORY) {
    if (r->len + n + 1 > r->cap) {
      size_t cap = r->cap ? r->cap : 4096;
      char *nb;
      while (cap < r->len + n + 1) cap *= 2;
      nb = realloc(r->body, cap);
      DT_CHECK(nb != NULL, ctx, DT_ERR_NOMEM, "out of memory for a request body of %zu bytes",
               r->len + n);
      r->body = nb, r->cap = cap;
    }
    memcpy(r->body + r->len, data, n);
    r->len += n;
    r->body[r->len] = '\0';
    goto cleanup;
  }
  if (r->spool_fd < 0) DT_TRY(spool_open(r, ctx));
  DT_CHECK(write(r->spool_fd, data, n) == (ssize_t)n, ctx, DT_ERR_IO,
           "cannot write the spool file %s: %s", r->spool_path, strerror(errno));
cleanup:
  return rc;
}

static dt_req *req_new(dt_server *srv, struct MHD_Connection *conn, const char *method,
                       const char *url) {
  dt_req *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->conn = conn;
  r->cn = dt_conn_of(conn);
  if (r->cn) r->cn->req = r;
  r->srv = srv;
  r->method = method;
  r->spool_fd = -1;
  r->route = -1;
  r->t0 = dt_mono();
  snprintf(r->url, sizeof r->url, "%s", url);
  dt_http_request_id(r->id, sizeof r->id);
  return r;
}

static void req_free(dt_req *r) {
  if (!r) return;
  if (r->spool_fd >= 0) close(r->spool_fd);
  if (r->spool_path[0]) unlink(r->spool_path);
  dt_size_scan_destroy(&r->scan);
  free(r->body);
  free(r);
}

/* The route of the request into r->route and r->param, or 404 / 405 (with Allow). */
static dt_status route_or_reply(dt_req *r, const char *method, const char *url) {
  char allow[128];
  dt_outcome outcome = find_route(method, url, r->param, allow, sizeof allow, &r->route);
  if (outcome == DT_DONE) return DT_OK;
  if (outcome == DT_NOT_FOUND) {
    dt_reply_error(r, 404, "not_found", NULL, "no such resource: %.200s", url);
  } else {
    dt_reply_header(r, "Allow", allow);
    dt_reply_error(r, 405, "method_not_allowed", json_pack("{s:s}", "allow", allow),
                   "this method is not allowed here");
  }
  return DT_ERR_INPUT;
}

/* The bearer token's principal into r->who, or 401 with WWW-Authenticate. */
static dt_status auth_or_reply(dt_req *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_outcome outcome;
  DT_TRY(dt_auth_check(dt_req_header(r, MHD_HTTP_HEADER_AUTHORIZATION), &r->who, &outcome, ctx));
  if (outcome == DT_DONE) goto cleanup;
  dt_reply_header(r, "WWW-Authenticate", "Bearer realm=\"ductile\"");
  dt_reply_error(r, 401, "unauthorized", NULL,
                 "missing, invalid or revoked bearer token (Authorization: Bearer <token>)");
  rc = DT_ERR_INPUT;
cleanup:
  return rc;
}

/* 503 on a connection beyond max_connections or max_connections_per_client (conn_limits.h). */
static dt_status limits_or_reply(dt_req *r) {
  const dt_config *cfg = &r->srv->cfg;
  if (!r->cn || !r->cn->over) return DT_OK;
  dt_reply_header(r, "Retry-After", "1");
  dt_reply_error(
      r, 503, "too_many_connections",
      json_pack("{s:I, s:I}", "max_connections", (json_int_t)cfg->max_connections,
                "max_connections_per_client", (json_int_t)cfg->max_connections_per_client),
      "too many connections: this server serves %lld at once, %lld per client address; close idle "
      "connections or retry later",
      cfg->max_connections, cfg->max_connections_per_client);
  return DT_ERR_INPUT;
}

typedef struct framing {
  const char *length; /* the first Content-Length */
  int lengths_differ, chunked;
} framing;

static enum MHD_Result framing_one(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value) {
  framing *f = cls;
  (void)kind;
  if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
    if (f->length && strcmp(f->length, value ? value : "")) f->lengths_differ = 1;
    if (!f->length) f->length = value ? value : "";
  } else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
    f->chunked = 1;
  }
  return MHD_YES;
}

/* 400 for a request whose body's length is ambiguous: Content-Length fields that disagree, or
 * Content-Length beside Transfer-Encoding. libmicrohttpd frames the body by one of them; a
 * proxy in front may have framed it by the other, and the rest of the stream would then be
 * read as another request (request smuggling). */
static dt_status framing_or_reply(dt_req *r) {
  framing f = {NULL, 0, 0};
  MHD_get_connection_values(r->conn, MHD_HEADER_KIND, framing_one, &f);
  if (!f.lengths_differ && !(f.length && f.chunked)) return DT_OK;
  dt_reply_error(r, 400, "bad_request", NULL,
                 f.lengths_differ ? "Content-Length fields with different values"
                                  : "Content-Length and Transfer-Encoding in one request");
  return DT_ERR_INPUT;
}

/* 413 for a body on a route that takes none (a GET, a DELETE, /metrics, the dashboard),
 * answered before it is read: without this a client could stream to such a route for ever. */
static dt_status no_body_or_reply(dt_req *r) {
  const char *cl = dt_req_header(r, MHD_HTTP_HEADER_CONTENT_LENGTH);
  long long n = 0;
  if (!dt_req_header(r, MHD_HTTP_HEADER_TRANSFER_ENCODING) &&
      (!cl || (dt_parse_count(cl, 0, (long long)1 << 62, &n) == 0 && n == 0)))
    return DT_OK;
  dt_reply_error(r, 413, "body_too_large", json_pack("{s:i}", "max_body_bytes", 0),
                 "%s %.200s takes no request body", r->method, r->url);
  return DT_ERR_INPUT;
}

/* 429 with Retry-After when the token is over its request rate (rate_limit.h). */
static dt_status rate_or_reply(dt_req *r) {
  const dt_config *cfg = &r->srv->cfg;
  long long wait;
  char after[24];
  if (dt_rate_limit_take(r->who.token_id, (int64_t)(r->t0 * 1e9), &wait)) return DT_OK;
  snprintf(after, sizeof after, "%lld", wait);
  dt_reply_header(r, "Retry-After", after);
  dt_reply_error(
      r, 429, "rate_limited",
      json_pack("{s:I, s:I, s:I}", "rate_limit", (json_int_t)cfg->rate_limit, "rate_burst",
                (json_int_t)cfg->rate_burst, "retry_after", (json_int_t)wait),
      "too many requests with this token: %lld per second (bursts of %lld); retry after %lld s",
      cfg->rate_limit, cfg->rate_burst, wait);
  return DT_ERR_INPUT;
}

/* 413 for a body above max_body_bytes: announced bytes, or -1 for a chunked body that crossed
 * the limit while it arrived (answered on the socket: libmicrohttpd queues no reply then). */
static void reply_too_large(dt_req *r, long long announced) {
  json_t *details = json_pack("{s:I}", "max_body_bytes", (json_int_t)r->srv->cfg.max_body_bytes);
  if (announced >= 0)
    dt_reply_error(r, 413, "body_too_large", details,
                   "the request body (%lld bytes) is larger than the limit of %lld bytes",
                   announced, r->srv->cfg.max_body_bytes);
  else
    dt_reply_error_raw(r, 413, "body_too_large", details,
                       "the request body is larger than the limit of %lld bytes",
                       r->srv->cfg.max_body_bytes);
}

/* 413 now for an announced Content-Length above max_body_bytes, before reading the body. */
static dt_status length_or_reply(dt_req *r) {
  const char *cl = dt_req_header(r, MHD_HTTP_HEADER_CONTENT_LENGTH);
  long long n;
  if (!cl || dt_parse_count(cl, 0, (long long)1 << 62, &n) != 0 || n <= r->srv->cfg.max_body_bytes)
    return DT_OK;
  reply_too_large(r, n);
  return DT_ERR_INPUT;
}

/* First call for a request, before its body: the checks of http.h, in its order. */
static void begin(dt_req *r, const char *method, const char *url) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(limits_or_reply(r));
  DT_TRY(framing_or_reply(r));
  DT_TRY(route_or_reply(r, method, url));
  if (!(ROUTES[r->route].flags & DT_R_BODY)) DT_TRY(no_body_or_reply(r));
  if (ROUTES[r->route].flags & DT_R_AUTH) DT_TRY(auth_or_reply(r, &ctx));
  if ((ROUTES[r->route].flags & DT_R_AUTH) && r->srv->cfg.rate_limit > 0) DT_TRY(rate_or_reply(r));
  if (ROUTES[r->route].flags & DT_R_BODY) DT_TRY(length_or_reply(r));
  if (ROUTES[r->route].flags & (DT_R_JOB | DT_R_MESH))
    dt_admission_begin(r, (ROUTES[r->route].flags & DT_R_MESH) != 0);
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *conn, const char *url,
                                 const char *method, const char *version, const char *upload_data,
                                 size_t *upload_data_size, void **con_cls) {
  dt_server *srv = cls;
  dt_req *r = *con_cls;
  (void)version;
  if (!r) {
    r = req_new(srv, conn, method, url);
    if (!r) {
      dt_log_error("out of memory for a request; closing its connection");
      return MHD_NO;
    }
    *con_cls = r;
    begin(r, method, url);
    dt_conn_phase(r->cn,
                  !r->replied && (ROUTES[r->route].flags & DT_R_BODY) ? DT_CONN_BODY : DT_CONN_BUSY,
                  (int64_t)(r->t0 * 1e9));
    return MHD_YES;
  }
  if (*upload_data_size) {
    size_t n = *upload_data_size;
    *upload_data_size = 0;
    if (r->replied) return MHD_YES;
    /* begin refused a body on a route that takes none: whatever arrives here is not read on */
    if (!(ROUTES[r->route].flags & DT_R_BODY)) return MHD_NO;
    r->total += n;
    dt_conn_body(r->cn, n);
    if (r->total > (unsigned long long)srv->cfg.max_body_bytes) {
      reply_too_large(r, -1); /* a chunked body: no length to refuse it by earlier */
      return MHD_NO;
    }
    if (r->body_rc == DT_OK) r->body_rc = body_append(r, upload_data, n, &r->body_ctx);
    /* a job or mesh over the model limits: refused now, not once all of it has arrived */
    if (dt_admission_feed(r, upload_data, n) != 0) return MHD_NO;
    return MHD_YES;
  }
  if (r->replied) return MHD_YES;
  dt_conn_phase(r->cn, DT_CONN_BUSY, dt_conn_now_ns());
  if (r->body_rc != DT_OK)
    dt_reply_status(r, r->body_rc, &r->body_ctx, NULL, NULL);
  else
    ROUTES[r->route].fn(r);
  if (!r->replied) dt_reply_error(r, 500, "internal", NULL, "the handler did not reply");
  return MHD_YES;
}

static void completed_cb(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
  dt_req *r = *con_cls;
  (void)cls, (void)conn;
  if (!r) return;
  {
    char st[8], ms[32], bytes[32];
    const char *kv[] = {"method",
                        r->method,
                        "path",
                        r->url,
                        "status",
                        st,
                        "ms",
                        ms,
                        "bytes_in",
                        bytes,
                        toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? NULL : "ended",
                        "aborted",
                        NULL};
    snprintf(st, sizeof st, "%d", r->status);
    snprintf(ms, sizeof ms, "%.2f", 1e3 * (dt_mono() - r->t0));
    snprintf(bytes, sizeof bytes, "%llu", r->total);
    dt_log(DT_LOG_INFO, r->id, kv, "request");
  }
  dt_metrics_http(r->status);
  if (r->cn) {
    r->cn->req = NULL;
    dt_conn_phase(r->cn, DT_CONN_WAIT_HEAD, dt_conn_now_ns()); /* the next request's head is due */
  }
  req_free(r);
  *con_cls = NULL;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void mhd_log(void *cls, const char *fmt, va_list ap) {
  char msg[512];
  int known;
  (void)cls;
  vsnprintf(msg, sizeof msg, fmt, ap);
  msg[strcspn(msg, "\n")] = '\0';
  /* The errors libmicrohttpd answers itself have their own line with the request id
   * (http_mhd_errors.c), which also refuses their queueing, and so has a connection the
   * access handler ends (a body refused while it arrives, out of memory for a request): what
   * libmicrohttpd says of them is detail. */
  known = strstr(msg, "Error processing request") ||
          strstr(msg, "failed to queue error response") ||
          strstr(msg, "Application reported internal error");
  dt_log(known ? DT_LOG_DEBUG : DT_LOG_WARN, NULL, NULL, "libmicrohttpd: %s", msg);
}

/* Each connection's entry in the connection limits (conn_limits.h), as its socket context.
 * (Its thread's SQLite connection is closed by the store's thread-exit destructor: libmicrohttpd
 * reports a closed connection on its polling thread, after the connection's thread has ended.) */
static void conn_cb(void *cls, struct MHD_Connection *conn, void **socket_ctx,
                    enum MHD_ConnectionNotificationCode code) {
  (void)cls;
  if (code == MHD_CONNECTION_NOTIFY_STARTED)
    *socket_ctx = dt_conn_opened(conn);
  else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
    dt_conn_closed(*socket_ctx);
}

/* libmicrohttpd's decoding of %XX in the path and the query (it calls this after splitting the
 * query), except %00: a NUL would end the C string the handlers get and cut a path or value
 * short (/v1/jobs/j-...%00/cancel acting on the job), so it stays the three characters "%00",
 * which no route, id or parameter accepts. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s) {
  char *rd = s, *wr = s;
  (void)cls, (void)conn;
  while (*rd) {
    int hi = rd[0] == '%' ? hex_digit(rd[1]) : -1, lo = hi >= 0 ? hex_digit(rd[2]) : -1;
    if (lo >= 0 && (hi | lo) != 0) {
      *wr++ = (char)(hi << 4 | lo);
      rd += 3;
    } else {
      *wr++ = *rd++;
    }
  }
  *wr = '\0';
  return (size_t)(wr - s);
}

/* The listening address of the configuration; *ipv6 set for an IPv6 one. */
static dt_status listen_addr(const dt_config *cfg, struct sockaddr_in *a4, struct sockaddr_in6 *a6,
                             struct sockaddr **sa, int *ipv6, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  memset(a4, 0, sizeof *a4);
  memset(a6, 0, sizeof *a6);
  *ipv6 = 0;
  if (inet_pton(AF_INET, cfg->listen_host, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)cfg->port);
    *sa = (struct sockaddr *)a4;
    goto cleanup;
  }
  DT_CHECK(inet_pton(AF_INET6, cfg->listen_host, &a6->sin6_addr) == 1, ctx, DT_ERR_INPUT,
           "listen: \"%s\" is not a numeric IPv4 or IPv6 address", cfg->listen_host);
  a6->sin6_family = AF_INET6;
  a6->sin6_port = htons((uint16_t)cfg->port);
  *sa = (struct sockaddr *)a6;
  *ipv6 = 1;
cleanup:
  return rc;
}

dt_status dt_http_start(dt_server *srv, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  struct sockaddr_in a4;
  struct sockaddr_in6 a6;
  struct sockaddr *sa = NULL;
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                   MHD_USE_ERROR_LOG | MHD_USE_ITC;
  const union MHD_DaemonInfo *info;
  struct MHD_Daemon *d;
  /* HTTPS when tls_cert and tls_key are set (tls.h has checked them); else an empty list. */
  struct MHD_OptionItem tls[] = {{MHD_OPTION_HTTPS_MEM_KEY, 0, srv->tls.key_pem},
                                 {MHD_OPTION_HTTPS_MEM_CERT, 0, srv->tls.cert_pem},
                                 {MHD_OPTION_END, 0, NULL}};
  uint8_t tag[4];
  int ipv6, limits_started = 0;
  /* The boot tag only tells the request ids of one start from another's: without randomness
   * they have none, and the daemon starts all the same. */
  if (dt_random_bytes(tag, sizeof tag, NULL) == DT_OK)
    snprintf(g_boot_tag, sizeof g_boot_tag, "%02x%02x%02x%02x", tag[0], tag[1], tag[2], tag[3]);
  DT_TRY(listen_addr(&srv->cfg, &a4, &a6, &sa, &ipv6, ctx));
  if (ipv6) flags |= MHD_USE_IPv6;
  if (srv->tls.cert_pem) flags |= MHD_USE_TLS;
  DT_TRY(dt_http_errors_init(srv->cfg.max_body_bytes, ctx));
  dt_rate_limit_init(srv->cfg.rate_limit, srv->cfg.rate_burst);
  DT_TRY(dt_conn_limits_start(&srv->cfg, ctx));
  limits_started = 1;
  /* libmicrohttpd's limits sit above max_connections and max_connections_per_client (it closes
   * connections beyond its own unanswered; ours get 503, conn_limits.h). */
  /* The logger comes first: libmicrohttpd writes what it says before it to stderr, unformatted. */
  d = MHD_start_daemon(flags, (uint16_t)srv->cfg.port, NULL, NULL, access_cb, srv,
                       MHD_OPTION_EXTERNAL_LOGGER, mhd_log, srv, MHD_OPTION_SOCK_ADDR, sa,
                       MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)srv->cfg.connection_timeout,
                       MHD_OPTION_CONNECTION_LIMIT, dt_conn_hard_limit(&srv->cfg),
                       MHD_OPTION_PER_IP_CONNECTION_LIMIT, dt_conn_hard_limit_per_client(&srv->cfg),
                       MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
                       MHD_OPTION_UNESCAPE_CALLBACK, unescape, srv, MHD_OPTION_NOTIFY_COMPLETED,
                       completed_cb, srv, MHD_OPTION_NOTIFY_CONNECTION, conn_cb, srv,
                       MHD_OPTION_ARRAY, srv->tls.cert_pem ? tls : tls + 2, MHD_OPTION_END);
  DT_CHECK(d != NULL, ctx, DT_ERR_IO, "cannot listen on %s:%d (address in use or not available)",
           srv->cfg.listen_host, srv->cfg.port);
  info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  srv->port = info ? info->port : srv->cfg.port;
  srv->mhd = d;
cleanup:
  if (rc != DT_OK && limits_started) dt_conn_limits_stop();
  return rc;
}

void dt_http_quiesce(dt_server *srv) {
  if (srv->mhd) {
    MHD_socket s = MHD_quiesce_daemon(srv->mhd);
    if (s != MHD_INVALID_SOCKET) close(s);
  }
}

void dt_http_stop(dt_server *srv) {
  if (srv->mhd) {
    MHD_stop_daemon(srv->mhd);
    dt_conn_limits_stop();
  }
  srv->mhd = NULL;
  dt_tls_free(&srv->tls);
}
