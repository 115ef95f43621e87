/* Request handlers, one per route of routes.def, grouped by resource in handlers_*.c. Each
 * validates its input completely, then reads/writes the store and replies exactly once, in one
 * shape (README "Errors"):
 *
 *   dt_status rc = DT_OK;
 *   dt_ctx ctx;
 *   memset(&ctx, 0, sizeof ctx);
 *   DT_TRY(dt_id_or_reply(r, r->param[0], 'j', "job"));    a bad request: replied, rc set
 *   DT_TRY(dt_job_get(r->param[0], dt_principal_owner(&r->who), &out, &found, &ctx));
 *                                                           a failure: rc and ctx set
 *   if (found == DT_NOT_FOUND) dt_reply_not_found(r, "job"); an answer the API documents
 *                                  (also for another user's job: isolation, status.h)
 *   else ...reply...
 * cleanup:
 *   dt_reply_status(r, rc, &ctx, NULL, NULL);   the failure's reply, unless one was sent
 *   ...release...
 */
#ifndef DT_SRV_HANDLERS_H
#define DT_SRV_HANDLERS_H

#include "http.h"

#define DT_ROUTE(method, path, fn, flags) void fn(dt_req *r);
#include "routes.def"
#undef DT_ROUTE

/* Choose and log the dashboard directory (handlers_dashboard.c); at start-up. */
void dt_dashboard_init(dt_server *srv);

/* Ids: "<prefix>-" + 16 hex digits. A path parameter that does not have this shape cannot
 * name a resource: the caller replies 404 (so "../etc" and friends never reach a path). */
int dt_id_valid(const char *id, char prefix);
/* New random id with the prefix (out: 19 bytes). */
dt_status dt_id_new(char *out, char prefix, dt_ctx *ctx);
/* Parse a non-negative integer query/path value in [lo, hi]: 0, or -1 if malformed or out of
 * range (a parser like strtol: the caller says what was wrong and where). */
int dt_parse_count(const char *s, long long lo, long long hi, long long *out);

/* 404 not_found unless id is well-formed for prefix; what names the resource. */
dt_status dt_id_or_reply(dt_req *r, const char *id, char prefix, const char *what);
/* The caller's user within max_user_stored_bytes with this request's body added; else 413
 * storage_quota replied (DT_ERR_INPUT), or the store's failure. */
dt_status dt_storage_or_reply(dt_req *r, dt_ctx *ctx);
/* limit (1..1000, default 100) and cursor (opaque, from next_cursor), or 400. */
dt_status dt_page_or_reply(dt_req *r, int *limit, long long *cursor);
/* 400 invalid_parameter naming the query parameter (or header) that is wrong. */
void dt_reply_invalid_parameter(dt_req *r, const char *parameter, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* {"items": items, "next_cursor": "..." | null} (items stolen). */
json_t *dt_page(json_t *items, long long next);

/* Formats of uploaded bodies (POST /v1/meshes: json or msh; POST /v1/jobs: json or inp). */
typedef enum { DT_BODY_JSON = 1, DT_BODY_MSH = 2, DT_BODY_INP = 4 } dt_body_kind;
/* The body's format, from the first of: ?format=json|msh|inp; the Content-Type
 * (application/json; application/x-gmsh-msh or application/x-gmsh; application/x-abaqus-inp
 * or application/x-calculix-inp); the extension of a file name (?filename=, the name_hint,
 * Content-Disposition's filename); the body's first bytes ("$MeshFormat", a '*' keyword);
 * JSON. Generic types (none, application/octet-stream, text/plain, form-urlencoded) fall
 * through to the hints. allowed is a mask of dt_body_kind; a known format not allowed here
 * gets 415, a bad ?format= 400 (both replied, DT_ERR_INPUT returned). origin (cap >= 64)
 * receives the file name used in messages: the hint's base name made safe, or default_origin. */
dt_status dt_body_format_or_reply(dt_req *r, int allowed, const char *name_hint,
                                  const char *default_origin, char *origin, size_t cap,
                                  dt_body_kind *out);
/* The format the request names for its body (?format=, the Content-Type, the file name's
 * extension, as above), 0 when only the body's first bytes can tell (or ?format= is not one):
 * what the size scanner reads the body as while it arrives (admission.h). */
int dt_body_kind_named(dt_req *r, const char *name_hint);

#endif
