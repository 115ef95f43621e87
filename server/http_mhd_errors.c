/* libmicrohttpd's own error replies as the API's JSON envelope (see http.h).
 *
 * libmicrohttpd answers a request it cannot parse by itself, with a fixed HTML page and no
 * option to change it: a malformed request line, header, Content-Length or chunk (400), a
 * Content-Length or chunk size beyond 64 bits (413), a request line or header block larger
 * than the connection's memory (414, 431), an HTTP version it does not speak (505). It queues
 * that page through its public MHD_queue_response. This file defines a function of that name
 * in the executable: the dynamic linker binds the library's own call to it, as it binds any
 * call to an exported symbol the executable also defines, so the reply becomes the envelope
 * with the same status. The daemon's replies reach the library's function through
 * dt_http_queue, so everything that arrives here came from inside libmicrohttpd. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn_limits.h"
#include "http.h"
#include "log.h"
#include "metrics.h"

typedef enum MHD_Result (*queue_fn)(struct MHD_Connection *, unsigned int, struct MHD_Response *);

static queue_fn g_queue;
static long long g_max_body_bytes;

dt_status dt_http_errors_init(long long max_body_bytes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  void *sym = dlsym(RTLD_NEXT, "MHD_queue_response");
  g_max_body_bytes = max_body_bytes;
  DT_CHECK(sym != NULL, ctx, DT_ERR_INTERNAL, "libmicrohttpd's MHD_queue_response not found: %s",
           dlerror());
  memcpy(&g_queue, &sym, sizeof g_queue); /* POSIX: a dlsym result may be a function */
cleanup:
  return rc;
}

enum MHD_Result dt_http_queue(struct MHD_Connection *conn, unsigned status,
                              struct MHD_Response *resp) {
  return g_queue(conn, status, resp);
}

/* The code and message of an error libmicrohttpd answers by itself. */
static const char *describe(unsigned status, const char **msg) {
  switch (status) {
  case 400:
    *msg = "malformed HTTP request (request line, header syntax, Host, Content-Length or chunked "
           "encoding)";
    return "bad_request";
  case 413:
    *msg = "the request body's announced size or a chunk size is beyond any limit";
    return "body_too_large";
  case 414: *msg = "the request line is too long"; return "uri_too_long";
  case 431: *msg = "the request's header fields are too large"; return "headers_too_large";
  case 505:
    *msg = "HTTP version not supported (HTTP/1.0 and HTTP/1.1 are)";
    return "http_version_not_supported";
  default:
    *msg =
        status >= 500 ? "internal error of the HTTP layer" : "the HTTP request cannot be processed";
    return status >= 500 ? "internal" : "bad_request";
  }
}

/* Whether libmicrohttpd would send the head of this error's reply twice: an error raised while
 * it parses the fields of a complete request head (the head's size is known), before the access
 * handler has seen the request (no dt_req). */
static int head_twice(struct MHD_Connection *conn, const dt_req *r) {
  const union MHD_ConnectionInfo *i =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  return !r && i && i->header_size > 0;
}

/* The envelope as a queued response, closing the connection after it (HTTPS). */
static enum MHD_Result queue_envelope(struct MHD_Connection *conn, unsigned status, const char *id,
                                      const char *text) {
  enum MHD_Result result = MHD_NO;
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
  if (!resp) return MHD_NO;
  MHD_add_response_header(resp, "Content-Type", "application/json");
  MHD_add_response_header(resp, "X-Request-Id", id);
  MHD_add_response_header(resp, "Cache-Control", "no-store");
  MHD_add_response_header(resp, "Connection", "close");
  result = g_queue(conn, status, resp);
  MHD_destroy_response(resp);
  return result;
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status_code,
                                   struct MHD_Response *response) {
  const char *msg, *code;
  dt_conn *cn;
  dt_req *r;
  char id[32], *text;
  enum MHD_Result result;
  if (!g_queue || status_code < 400)
    return g_queue ? g_queue(connection, status_code, response) : MHD_NO;
  code = describe(status_code, &msg);
  cn = dt_conn_of(connection);
  r = cn ? cn->req : NULL; /* the request, when its head was complete (a bad chunk) */
  if (r)
    snprintf(id, sizeof id, "%s", r->id);
  else
    dt_http_request_id(id, sizeof id);
  dt_error_log(id, status_code, code, msg);
  text = dt_error_json(code,
                       status_code == 413
                           ? json_pack("{s:I}", "max_body_bytes", (json_int_t)g_max_body_bytes)
                           : NULL,
                       msg);
  if (!text)
    return g_queue(connection, status_code, response); /* out of memory: the library's page */
  /* Written on the socket rather than queued: libmicrohttpd 0.9.75 writes the header block of
   * an error it raises while it parses the request's header fields (a bad Content-Length) a
   * second time when the reply is queued. Refusing the queue makes it close the connection.
   * An HTTPS connection's socket takes only GnuTLS's records: there the envelope is queued,
   * except for those errors, whose doubled head would reach the client as a garbled reply:
   * their connection is closed without one. */
  if (dt_reply_raw(connection, status_code, id, text) == 0 || head_twice(connection, r))
    result = MHD_NO;
  else
    result = queue_envelope(connection, status_code, id, text);
  free(text);
  if (r) {
    r->replied = 1;
    r->status = (int)status_code;
  } else {
    dt_metrics_http((int)status_code);
  }
  return result;
}
