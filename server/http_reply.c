/* Responses: JSON bodies, the error envelope {"error": {code, message, details}}, files.
 * Every response carries X-Request-Id and Cache-Control: no-store (the dashboard's static files
 * their own, see handlers_dashboard.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http.h"
#include "log.h"

void dt_reply_response(dt_req *r, unsigned status, struct MHD_Response *resp) {
  dt_reply_response_cached(r, status, resp, "no-store");
}

void dt_reply_response_cached(dt_req *r, unsigned status, struct MHD_Response *resp, const char *cache_control) {
  if (r->replied) {
    dt_log(DT_LOG_ERROR, r->id, NULL, "second reply dropped (status %u)", status);
    MHD_destroy_response(resp);
    return;
  }
  MHD_add_response_header(resp, "X-Request-Id", r->id);
  MHD_add_response_header(resp, "Cache-Control", cache_control);
  if (r->extra_name) MHD_add_response_header(resp, r->extra_name, r->extra_value);
  if (MHD_queue_response(r->conn, status, resp) != MHD_YES)
    dt_log(DT_LOG_WARN, r->id, NULL, "could not queue the response (status %u)", status);
  MHD_destroy_response(resp);
  r->replied = 1;
  r->status = (int)status;
}

void dt_reply_header(dt_req *r, const char *name, const char *value) {
  r->extra_name = name;
  r->extra_value = value;
}

void dt_reply_text(dt_req *r, unsigned status, const char *content_type, const char *text, size_t len) {
  struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);
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
    static const char oom[] = "{\"error\":{\"code\":\"internal\",\"message\":\"cannot encode the response\",\"details\":null}}";
    dt_reply_text(r, 500, "application/json", oom, sizeof oom - 1);
    return;
  }
  dt_reply_text(r, status, "application/json", text, strlen(text));
  free(text);
}

void dt_reply_error(dt_req *r, unsigned status, const char *code, json_t *details, const char *fmt, ...) {
  char msg[1200];
  va_list ap;
  json_t *body;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  body = json_pack("{s:{s:s, s:s%, s:o}}", "error", "code", code, "message", msg, strlen(msg),
                   "details", details ? details : json_null());
  if (!body) { /* message not UTF-8 (it may quote user input): send it without the text */
    body = json_pack("{s:{s:s, s:s, s:n}}", "error", "code", code, "message", "(message not UTF-8)", "details");
  }
  {
    char st[8];
    const char *kv[] = {"status", st, "code", code, NULL};
    snprintf(st, sizeof st, "%u", status);
    dt_log(status >= 500 ? DT_LOG_ERROR : DT_LOG_INFO, r->id, kv, "%s", msg);
  }
  dt_reply_json(r, status, body);
}

/* A server-side failure in the log: ctx's message (paths, SQL), its class and where it was
 * raised, under the request's id. */
static void log_failure(const dt_req *r, dt_status st, const dt_ctx *ctx) {
  char where[300];
  const char *kv[] = {"status", dt_status_name(st), "where", where, NULL};
  if (ctx && ctx->file) snprintf(where, sizeof where, "%s:%d %s", ctx->file, ctx->line, ctx->func ? ctx->func : "");
  else snprintf(where, sizeof where, "unknown");
  dt_log(DT_LOG_ERROR, r->id, kv, "%s", ctx && ctx->msg[0] ? ctx->msg : "(no message)");
}

void dt_reply_status(dt_req *r, dt_status st, const dt_ctx *ctx, const char *input_code, json_t *details) {
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
  else if (st == DT_ERR_DB)
    dt_reply_error(r, 503, "store_unavailable", NULL, "the job store is unavailable; try again");
  else
    dt_reply_error(r, 500, "internal", NULL, "internal error (%s); the daemon's log has the details",
                   dt_status_name(st));
}

void dt_reply_not_found(dt_req *r, const char *what) {
  dt_reply_error(r, 404, "not_found", NULL, "no %s with this id", what);
}

void dt_reply_file(dt_req *r, const char *path, const char *content_type, const char *download_name) {
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
