/* The HTTP layer: libmicrohttpd set-up, request bodies, routing, completion logging.
 *
 * Threading: MHD_USE_THREAD_PER_CONNECTION with an internal polling thread. A thread per
 * connection lets an SSE stream block (on a condition variable, with timeouts) inside its
 * content reader without stalling other clients, which a fixed pool of event-loop threads
 * cannot do without suspend/resume bookkeeping; the number of threads is bounded by the
 * connection limits, and silent clients are dropped after connection_timeout, slow ones at
 * header_timeout and body_min_rate (conn_limits.h).
 * Handlers only read and write the store and queue work (STYLE.md §10): no solving here.
 *
 * Each request gets a dt_req: its id (X-Request-Id, and req= in the logs), route, path
 * parameters, principal and body. Bodies up to 1 MiB stay in memory; larger ones are spooled
 * to <data>/tmp; beyond max_body_bytes the request gets 413.
 *
 * Before a handler runs, in this order: a connection over the connection limits gets 503
 * too_many_connections (conn_limits.h); ambiguous framing (two different Content-Length
 * values, or Content-Length with Transfer-Encoding) gets 400 bad_request; no route is 404 or
 * 405; a body on a route that takes none gets 413 (max_body_bytes 0); no valid token is 401;
 * a token over its request rate gets 429 rate_limited with Retry-After (rate_limit.h); an
 * announced body above max_body_bytes gets 413. Each of these replies goes out before the body
 * is read, and libmicrohttpd then closes the connection without reading it. A chunked body
 * that crosses max_body_bytes is answered 413 while it arrives (dt_reply_error_raw), and a
 * job's or mesh's body whose nodes or elements, counted as it arrives, pass the model limits
 * is answered 422 model_too_large the same way (admission.h).
 *
 * Every error reply is the JSON envelope, those libmicrohttpd makes by itself too (a request
 * it cannot parse: 400, 413, 414, 431, 505): it has no option for their body, and it queues
 * them through its public MHD_queue_response, which http_mhd_errors.c defines in the
 * executable (the dynamic linker binds the library's call to it) to send the envelope instead
 * of the library's HTML. The daemon's own replies call the library's function directly
 * (dt_http_queue). A libmicrohttpd linked statically, or built to bind its own calls
 * internally, would keep its HTML for these; tests/server/test_http_errors.py checks this
 * build. A request line that is not HTTP at all (no method, target and version) is closed
 * without a reply: libmicrohttpd makes none. `%00` in a path or query is left encoded
 * (http.c), so it never cuts a path short. */
#ifndef DT_SRV_HTTP_H
#define DT_SRV_HTTP_H

#include <microhttpd.h>
#include <limits.h>
#include <stddef.h>

#include <jansson.h>

#include "audit.h"
#include "auth.h"
#include "server.h"
#include "status.h"

struct dt_conn;
struct dt_size_scan;

/* DT_R_JOB, DT_R_MESH: the body is a job (JSON or a deck) or a mesh (JSON or a .msh), sized
 * while it arrives (admission.h). */
enum { DT_R_AUTH = 1, DT_R_BODY = 2, DT_R_JOB = 4, DT_R_MESH = 8 };

typedef struct dt_req {
  struct MHD_Connection *conn;
  struct dt_conn *cn; /* the connection's limits and deadlines (conn_limits.h); may be NULL */
  dt_server *srv;
  char id[32];
  const char *method;
  char url[256];     /* truncated copy, for logs */
  int route;         /* index in routes.def, -1 when none */
  char param[2][96]; /* path parameters in pattern order */
  dt_principal who;
  char address[64]; /* the client's address, filled by dt_req_actor */
  char *body;       /* in-memory body (NUL-terminated), or NULL when spooled */
  size_t len, cap;
  int spool_fd;
  char spool_path[PATH_MAX + 64];
  unsigned long long total;
  dt_status body_rc; /* the body could not be kept (memory, spool file): its failure */
  dt_ctx body_ctx;
  struct dt_size_scan *scan; /* a job's or mesh's size, counted as its body arrives; or NULL */
  int scan_mesh;             /* the body is a mesh (else a job) */
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

/* A fresh request id (X-Request-Id) into out (32 bytes). */
void dt_http_request_id(char *out, size_t len);
/* libmicrohttpd's MHD_queue_response itself, past the daemon's definition of that name that
 * turns libmicrohttpd's own error pages into the JSON envelope (http_mhd_errors.c). */
enum MHD_Result dt_http_queue(struct MHD_Connection *conn, unsigned status,
                              struct MHD_Response *resp);
/* Find libmicrohttpd's MHD_queue_response; max_body_bytes goes in the details of its 413s.
 * DT_ERR_INTERNAL when the library's function cannot be found (a static libmicrohttpd). */
dt_status dt_http_errors_init(long long max_body_bytes, dt_ctx *ctx);

/* Request helpers. */
/* The request as the actor of an audited change (audit.h): its token's user and token, its id,
 * the client's address (a reverse proxy's, behind one). Valid while r is. */
void dt_req_actor(dt_req *r, dt_actor *a);
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
/* The error envelope as compact JSON text (malloc'ed; NULL when out of memory), and its log
 * line under the request id (ERROR for 5xx but 505 and too_many_connections, INFO otherwise). */
char *dt_error_json(const char *code, json_t *details /* stolen */, const char *msg);
void dt_error_log(const char *req_id, unsigned status, const char *code, const char *msg);
/* A complete reply with the JSON text json written on the connection's socket directly, with
 * Connection: close, where libmicrohttpd cannot send it; then what the client still sends is
 * read and dropped for up to a second (closing a socket with unread data resets it, which can
 * destroy the reply unread). The caller then has libmicrohttpd close the connection. Only for
 * a connection with nothing of its own on the way out: while a request's head or body
 * arrives, libmicrohttpd has sent all of the previous reply (and any 100 Continue).
 * 0 when written (or the client went away), -1 when it cannot be: an HTTPS connection, whose
 * socket carries only what GnuTLS writes (tls.h). */
int dt_reply_raw(struct MHD_Connection *conn, unsigned status, const char *req_id,
                 const char *json);
/* 1 for a connection of the HTTPS daemon (tls_cert, tls_key), 0 for plain HTTP. */
int dt_conn_tls(struct MHD_Connection *conn);
/* The error envelope through dt_reply_raw, for a request whose body is still arriving: a
 * chunked body that crosses max_body_bytes. libmicrohttpd takes a response only before the
 * body or after all of it; the access handler returns MHD_NO after this. Over HTTPS nothing
 * can be written there: the connection closes without the reply (the log has it). */
void dt_reply_error_raw(dt_req *r, unsigned status, const char *code, json_t *details /* stolen */,
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
void dt_reply_status(dt_req *r, dt_status st, const dt_ctx *ctx, const char *input_code,
                     json_t *details);
/* 404 not_found, "no <what> with this id": a job or mesh that is not there. */
void dt_reply_not_found(dt_req *r, const char *what);
void dt_reply_text(dt_req *r, unsigned status, const char *content_type, const char *text,
                   size_t len);
/* A file: 404 not_found when it does not exist. */
void dt_reply_file(dt_req *r, const char *path, const char *content_type,
                   const char *download_name);
/* Queue a prepared response with the common headers (takes the reference). */
void dt_reply_response(dt_req *r, unsigned status, struct MHD_Response *resp);
/* The same with another Cache-Control than no-store (static files of the dashboard). */
void dt_reply_response_cached(dt_req *r, unsigned status, struct MHD_Response *resp,
                              const char *cache_control);

#endif
