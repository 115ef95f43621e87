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
#include "status.h"

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
  int too_large;       /* the body crossed max_body_bytes (413) */
  dt_status body_rc;   /* the body could not be kept (memory, spool file): its failure */
  dt_ctx body_ctx;
  int replied;
  int status;
  double t0;
  /* One header the next reply carries besides the usual ones (dt_reply_header): Allow on a
   * 405, WWW-Authenticate on a 401. Borrowed until the reply. */
  const char *extra_name, *extra_value;
} dt_req;

typedef void (*dt_handler)(dt_req *r);

/* Start listening; srv->port receives the bound port. */
dt_status dt_http_start(dt_server *srv, dt_ctx *ctx);
/* Stop accepting connections (existing ones finish). */
void dt_http_quiesce(dt_server *srv);
void dt_http_stop(dt_server *srv);

/* Request helpers. */
const char *dt_req_header(dt_req *r, const char *name);
const char *dt_req_query(dt_req *r, const char *name);
/* The *_or_reply helpers check the request itself. When it is wrong they reply at once (400,
 * 404 or 415 with the code the API documents for it) and return DT_ERR_INPUT: the handler goes
 * to its cleanup, where dt_reply_status sees the reply and adds nothing. */
/* 400 unknown_parameter when the query has a parameter not in allowed (NULL-terminated). */
dt_status dt_req_query_allowed_or_reply(dt_req *r, const char *const *allowed);
/* The body parsed as JSON into *out; 400 empty_body or invalid_json (with line and column). */
dt_status dt_req_body_json_or_reply(dt_req *r, json_t **out);
/* Write the body to path (rename of the spool file when spooled); DT_ERR_IO. */
dt_status dt_req_body_save(dt_req *r, const char *path, dt_ctx *ctx);

/* Replies (each queues exactly one response and records the status). */
void dt_reply_json(dt_req *r, unsigned status, json_t *body /* stolen */);
/* A header for the next reply (name and value borrowed until then). */
void dt_reply_header(dt_req *r, const char *name, const char *value);
/* The error envelope {"error": {code, message, details}}, for the answers a handler gives by
 * itself (404 not_found, 409 job_finished, ...); failures go through dt_reply_status. */
void dt_reply_error(dt_req *r, unsigned status, const char *code, json_t *details /* stolen */,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The reply for a failure: the one mapping from dt_status to HTTP status and error code.
 *   DT_ERR_INPUT         422 input_code (what the request carried is invalid: invalid_job,
 *                        invalid_mesh, mesh_not_found), ctx's message
 *   DT_ERR_DEVICE_NOMEM  422 does_not_fit, ctx's message
 *   DT_ERR_IO            507 insufficient_storage (the daemon cannot write the upload)
 *   DT_ERR_DB            503 store_unavailable
 *   anything else        500 internal (also DT_ERR_INPUT without an input_code: a bug)
 * The 422s carry ctx's message and details (stolen; NULL: none). The others carry a fixed
 * message: ctx's names server paths and SQL, so it goes to the log, with where it was raised
 * and the request id. Does nothing for DT_OK or a request that has its reply already (a
 * *_or_reply helper answered), so a handler calls it unconditionally from its cleanup. */
void dt_reply_status(dt_req *r, dt_status st, const dt_ctx *ctx, const char *input_code, json_t *details);
/* 404 not_found, "no <what> with this id": a job or mesh that is not there. */
void dt_reply_not_found(dt_req *r, const char *what);
void dt_reply_text(dt_req *r, unsigned status, const char *content_type, const char *text, size_t len);
/* A file: 404 not_found when it does not exist. */
void dt_reply_file(dt_req *r, const char *path, const char *content_type, const char *download_name);
/* Queue a prepared response with the common headers (takes the reference). */
void dt_reply_response(dt_req *r, unsigned status, struct MHD_Response *resp);
/* The same with another Cache-Control than no-store (static files of the dashboard). */
void dt_reply_response_cached(dt_req *r, unsigned status, struct MHD_Response *resp, const char *cache_control);

#endif
