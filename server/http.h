/* The HTTP layer: libmicrohttpd set-up, request bodies, routing, completion logging.
 *
 * Threading: MHD_USE_THREAD_PER_CONNECTION with an internal polling thread. A thread per
 * connection lets an SSE stream block (on a condition variable, with timeouts) inside its
 * content reader without stalling other clients, which a fixed pool of event-loop threads
 * cannot do without suspend/resume bookkeeping; the number of threads is bounded by
 * max_connections, and slow or silent clients are dropped after connection_timeout.
 * Handlers only read and write the store and queue work (STYLE.md §10): no solving here.
 *
 * Each request gets a dt_req: its id (X-Request-Id, and req= in the logs), route, path
 * parameters, principal and body. Bodies up to 1 MiB stay in memory; larger ones are spooled
 * to <data>/tmp; beyond max_body_bytes the request gets 413. */
#ifndef DT_SRV_HTTP_H
#define DT_SRV_HTTP_H

#include <microhttpd.h>
#include <limits.h>
#include <stddef.h>

#include <jansson.h>

#include "auth.h"
#include "server.h"

enum { DT_R_AUTH = 1, DT_R_BODY = 2 };

typedef struct dt_req {
  struct MHD_Connection *conn;
  dt_server *srv;
  char id[32];
  const char *method;
  char url[256];      /* truncated copy, for logs */
  int route;          /* index in routes.def, -1 when none */
  char param[2][96];  /* path parameters in pattern order */
  dt_principal who;
  char *body;         /* in-memory body (NUL-terminated), or NULL when spooled */
  size_t len, cap;
  int spool_fd;
  char spool_path[PATH_MAX + 64];
  unsigned long long total;
  int too_large;
  int replied;
  int status;
  double t0;
  /* One header the next reply carries besides the usual ones (dt_reply_header): Allow on a
   * 405, WWW-Authenticate on a 401. Borrowed until the reply. */
  const char *extra_name, *extra_value;
} dt_req;

typedef void (*dt_handler)(dt_req *r);

/* Start listening; 0 on success (err set otherwise). srv->port receives the bound port. */
int dt_http_start(dt_server *srv, char *err, size_t errlen);
/* Stop accepting connections (existing ones finish). */
void dt_http_quiesce(dt_server *srv);
void dt_http_stop(dt_server *srv);

/* Request helpers. */
const char *dt_req_header(dt_req *r, const char *name);
const char *dt_req_query(dt_req *r, const char *name);
/* Reply 400 and return -1 if the query has a parameter not in allowed (NULL-terminated). */
int dt_req_query_allowed_or_reply(dt_req *r, const char *const *allowed);
/* Parse the body as JSON. On failure replies 400 (with line and column) and returns NULL. */
json_t *dt_req_body_json_or_reply(dt_req *r);
/* Write the body to path (rename of the spool file when spooled). 0 on success. */
int dt_req_body_save(dt_req *r, const char *path);

/* Replies (each queues exactly one response and records the status). */
void dt_reply_json(dt_req *r, unsigned status, json_t *body /* stolen */);
/* A header for the next reply (name and value borrowed until then). */
void dt_reply_header(dt_req *r, const char *name, const char *value);
void dt_reply_error(dt_req *r, unsigned status, const char *code, json_t *details /* stolen */,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void dt_reply_text(dt_req *r, unsigned status, const char *content_type, const char *text, size_t len);
/* A file: 404 not_found when it does not exist. */
void dt_reply_file(dt_req *r, const char *path, const char *content_type, const char *download_name);
/* Queue a prepared response with the common headers (takes the reference). */
void dt_reply_response(dt_req *r, unsigned status, struct MHD_Response *resp);
/* The same with another Cache-Control than no-store (static files of the dashboard). */
void dt_reply_response_cached(dt_req *r, unsigned status, struct MHD_Response *resp, const char *cache_control);
/* 500 / 503 for store failures. */
void dt_reply_store_error(dt_req *r);

#endif
