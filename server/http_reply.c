/* Responses: JSON bodies, the error envelope {"error": {code, message, details}}, files.
 * Every response carries X-Request-Id and Cache-Control: no-store (the dashboard's static files
 * their own, see handlers_dashboard.c). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conn_limits.h"
#include "http.h"
#include "log.h"
#include "redact.h"
#include "store.h"

/* The reply when even the error envelope cannot be encoded (out of memory). */
static const char OOM_JSON[] = "{\"error\":{\"code\":\"internal\",\"message\":\"cannot encode the "
                               "response\",\"details\":null}}";

void dt_reply_response(dt_req *r, unsigned status, struct MHD_Response *resp) {
  dt_reply_response_cached(r, status, resp, "no-store");
}

void dt_reply_response_cached(dt_req *r, unsigned status, struct MHD_Response *resp,
                              const char *cache_control) {
  if (r->replied) {
    dt_log(DT_LOG_ERROR, r->id, NULL, "second reply dropped (status %u)", status);
    MHD_destroy_response(resp);
    return;
  }
  MHD_add_response_header(resp, "X-Request-Id", r->id);
  MHD_add_response_header(resp, "Cache-Control", cache_control);
  if (r->extra_name) MHD_add_response_header(resp, r->extra_name, r->extra_value);
  if (dt_http_queue(r->conn, status, resp) != MHD_YES)
    dt_log(DT_LOG_WARN, r->id, NULL, "could not queue the response (status %u)", status);
  MHD_destroy_response(resp);
  r->replied = 1;
  r->status = (int)status;
}

void dt_reply_header(dt_req *r, const char *name, const char *value) {
  r->extra_name = name;
  r->extra_value = value;
}

void dt_reply_text(dt_req *r, unsigned status, const char *content_type, const char *text,
                   size_t len) {
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);
  if (!resp) {
    r->replied = 1; /* nothing we can send; MHD closes the connection */
    r->status = 500;
    return;
  }
  MHD_add_response_header(resp, "Content-Type", content_type);
  dt_reply_response(r, status, resp);
}

void dt_reply_json(dt_req *r, unsigned status, json_t *body) {
  char *text = body ? json_dumps(body, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
  json_decref(body);
  if (!text) {
    dt_reply_text(r, 500, "application/json", OOM_JSON, sizeof OOM_JSON - 1);
    return;
  }
  dt_reply_text(r, status, "application/json", text, strlen(text));
  free(text);
}

char *dt_error_json(const char *code, json_t *details, const char *msg) {
  char *text;
  json_t *body = json_pack("{s:{s:s, s:s%, s:o}}", "error", "code", code, "message", msg,
                           strlen(msg), "details", details ? details : json_null());
  if (!body) { /* message not UTF-8 (it may quote user input): send it without the text */
    body = json_pack("{s:{s:s, s:s, s:n}}", "error", "code", code, "message", "(message not UTF-8)",
                     "details");
  }
  text = body ? json_dumps(body, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
  json_decref(body);
  return text;
}

void dt_error_log(const char *req_id, unsigned status, const char *code, const char *msg) {
  char st[8];
  const char *kv[] = {"status", st, "code", code, NULL};
  /* 5xx that say what the client did or how busy the server is are not the daemon's errors */
  int client = status == 505 || !strcmp(code, "too_many_connections");
  snprintf(st, sizeof st, "%u", status);
  dt_log(status >= 500 && !client ? DT_LOG_ERROR : DT_LOG_INFO, req_id, kv, "%s", msg);
}

/* The message of an error reply as the client reads it: whatever it quotes, never a path of
 * the data directory (the log line, written before, has it whole). */
static void redact_reply(const dt_req *r, char *msg, size_t cap) {
  if (r->srv) dt_redact_paths(msg, cap, r->srv->data_dir, NULL);
}

void dt_reply_error(dt_req *r, unsigned status, const char *code, json_t *details, const char *fmt,
                    ...) {
  char msg[1200], *text;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  dt_error_log(r->id, status, code, msg);
  redact_reply(r, msg, sizeof msg);
  text = dt_error_json(code, details, msg);
  if (!text) {
    dt_reply_text(r, 500, "application/json", OOM_JSON, sizeof OOM_JSON - 1);
    return;
  }
  dt_reply_text(r, status, "application/json", text, strlen(text));
  free(text);
}

/* Send all of buf on the non-blocking socket fd before the monotonic deadline; 0 when sent. */
static int send_all(int fd, const char *buf, size_t len, int64_t deadline_ns) {
  while (len > 0) {
    ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
    if (n > 0) {
      buf += n, len -= (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd p = {fd, POLLOUT, 0};
      int64_t left_ms = (deadline_ns - dt_conn_now_ns()) / 1000000;
      if (left_ms > 0 && poll(&p, 1, (int)left_ms) > 0) continue;
    }
    return -1;
  }
  return 0;
}

/* How long, and how much of what the client still sends, a connection closed with an early
 * reply is read for: closing a socket with unread data resets it, and a reset can destroy the
 * reply before the client has read it. */
#define DRAIN_NS (1000 * 1000000LL)
#define DRAIN_BYTES (16u << 20)

int dt_conn_tls(struct MHD_Connection *conn) {
  return MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION) != NULL;
}

int dt_reply_raw(struct MHD_Connection *conn, unsigned status, const char *req_id,
                 const char *json) {
  const union MHD_ConnectionInfo *fdi =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
  const char *reason = MHD_get_reason_phrase_for(status);
  int64_t deadline = dt_conn_now_ns() + DRAIN_NS;
  char head[512], date[64];
  size_t drained = 0;
  time_t now = time(NULL);
  struct tm tm;
  int fd = fdi ? fdi->connect_fd : -1, n;
  /* Over TLS the socket carries GnuTLS's records: plain text there would end the session with
   * a protocol error on the client's side instead of a reply. */
  if (fd < 0 || dt_conn_tls(conn)) return -1;
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  n = snprintf(
      head, sizeof head,
      "HTTP/1.1 %u %s\r\nDate: %s\r\nConnection: close\r\nContent-Type: application/json\r\n"
      "X-Request-Id: %s\r\nCache-Control: no-store\r\nContent-Length: %zu\r\n\r\n",
      status, reason && reason[0] ? reason : "Error", date, req_id, strlen(json));
  if (send_all(fd, head, (size_t)n, deadline) != 0 ||
      send_all(fd, json, strlen(json), deadline) != 0)
    return 0;
  shutdown(fd, SHUT_WR);
  while (drained < DRAIN_BYTES) {
    char buf[65536];
    struct pollfd p = {fd, POLLIN, 0};
    int64_t left_ms = (deadline - dt_conn_now_ns()) / 1000000;
    ssize_t got;
    if (left_ms <= 0 || poll(&p, 1, (int)left_ms) <= 0) break;
    got = recv(fd, buf, sizeof buf, 0);
    if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (got <= 0) break;
    drained += (size_t)got;
  }
  return 0;
}

void dt_reply_error_raw(dt_req *r, unsigned status, const char *code, json_t *details,
                        const char *fmt, ...) {
  char msg[1200], *text;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  dt_error_log(r->id, status, code, msg);
  redact_reply(r, msg, sizeof msg);
  r->replied = 1;
  r->status = (int)status;
  text = dt_error_json(code, details, msg);
  if (text) dt_reply_raw(r->conn, status, r->id, text);
  free(text);
}

/* A server-side failure in the log: ctx's message (paths, SQL), its class and where it was
 * raised, under the request's id. */
static void log_failure(const dt_req *r, dt_status st, const dt_ctx *ctx) {
  char where[300];
  const char *kv[] = {"status", dt_status_name(st), "where", where, NULL};
  if (ctx && ctx->file)
    snprintf(where, sizeof where, "%s:%d %s", ctx->file, ctx->line, ctx->func ? ctx->func : "");
  else
    snprintf(where, sizeof where, "unknown");
  dt_log(DT_LOG_ERROR, r->id, kv, "%s", ctx && ctx->msg[0] ? ctx->msg : "(no message)");
}

void dt_reply_status(dt_req *r, dt_status st, const dt_ctx *ctx, const char *input_code,
                     json_t *details) {
  const char *msg = ctx && ctx->msg[0] ? ctx->msg : dt_status_name(st);
  if (st == DT_OK || r->replied) {
    json_decref(details);
    return;
  }
  if (st == DT_ERR_INPUT && input_code) {
    dt_reply_error(r, 422, input_code, details, "%s", msg);
    return;
  }
  if (st == DT_ERR_DEVICE_NOMEM) {
    dt_reply_error(r, 422, "does_not_fit", details, "%s", msg);
    return;
  }
  json_decref(details);
  log_failure(r, st, ctx);
  if (st == DT_ERR_IO)
    dt_reply_error(r, 507, "insufficient_storage", NULL,
                   "the daemon cannot store this request's data; try again later");
  else if (st == DT_ERR_DB) {
    /* The database named, not its address or SQL (those go to the log); a server that restarts
     * answers again within seconds, which Retry-After says. */
    dt_reply_header(r, "Retry-After", "1");
    dt_reply_error(r, 503, "store_unavailable", NULL,
                   "the job store's database (%s) is unavailable%s; try again", dt_store_kind(),
                   dt_store_connection_lost() ? ": it does not answer" : "");
  } else
    dt_reply_error(r, 500, "internal", NULL,
                   "internal error (%s); the daemon's log has the details", dt_status_name(st));
}

void dt_reply_not_found(dt_req *r, const char *what) {
  dt_reply_error(r, 404, "not_found", NULL, "no %s with this id", what);
}

void dt_reply_file(dt_req *r, const char *path, const char *content_type,
                   const char *download_name) {
  struct stat sb;
  struct MHD_Response *resp;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    if (fd >= 0) close(fd);
    dt_reply_error(r, 404, "not_found", NULL, "this result is not available");
    return;
  }
  resp = MHD_create_response_from_fd((uint64_t)sb.st_size, fd); /* takes fd */
  if (!resp) {
    close(fd);
    dt_reply_error(r, 500, "internal", NULL, "cannot send the file");
    return;
  }
  MHD_add_response_header(resp, "Content-Type", content_type);
  if (download_name) {
    char cd[256];
    snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", download_name);
    MHD_add_response_header(resp, "Content-Disposition", cd);
  }
  dt_reply_response(r, 200, resp);
}
