/* Small helpers shared by the handlers: ids, counts, pages, the format of an upload. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "handlers.h"
#include "store_jobs.h"

int dt_id_valid(const char *id, char prefix) {
  if (!id || strlen(id) != 18 || id[0] != prefix || id[1] != '-') return 0;
  for (int i = 2; i < 18; i++)
    if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f'))) return 0;
  return 1;
}

dt_status dt_id_new(char *out, char prefix, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ctx random;
  char hex[17];
  memset(&random, 0, sizeof random);
  /* No randomness is the daemon's fault, not the storage's: internal (500), whatever the cause. */
  DT_CHECK(dt_random_hex(hex, 8, &random) == DT_OK, ctx, DT_ERR_INTERNAL,
           "no randomness for an id: %s", random.msg);
  snprintf(out, 19, "%c-%s", prefix, hex);
cleanup:
  return rc;
}

int dt_parse_count(const char *s, long long lo, long long hi, long long *out) {
  char *end = NULL;
  long long v;
  if (!s || !*s || strlen(s) > 19) return -1;
  for (const char *p = s; *p; p++)
    if (*p < '0' || *p > '9') return -1;
  errno = 0;
  v = strtoll(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

dt_status dt_id_or_reply(dt_req *r, const char *id, char prefix, const char *what) {
  if (dt_id_valid(id, prefix)) return DT_OK;
  dt_reply_not_found(r, what);
  return DT_ERR_INPUT;
}

dt_status dt_storage_or_reply(dt_req *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  long long max = r->srv->cfg.max_user_stored_bytes, used = 0, adding = (long long)r->total;
  if (max <= 0) return DT_OK;
  DT_TRY(dt_user_stored_bytes(dt_principal_owner(&r->who), &used, ctx));
  if (used + adding <= max) return DT_OK;
  dt_reply_error(r, 413, "storage_quota",
                 json_pack("{s:I, s:I, s:I}", "max_user_stored_bytes", (json_int_t)max,
                           "stored_bytes", (json_int_t)used, "request_bytes", (json_int_t)adding),
                 "you store %lld bytes of meshes and job results; with this request's %lld that "
                 "is more than one user may store (max_user_stored_bytes = %lld): delete meshes "
                 "or finished jobs you no longer need",
                 used, adding, max);
  rc = DT_ERR_INPUT;
cleanup:
  return rc;
}

void dt_reply_invalid_parameter(dt_req *r, const char *parameter, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", parameter), "%s",
                 msg);
}

dt_status dt_page_or_reply(dt_req *r, int *limit, long long *cursor) {
  const char *l = dt_req_query(r, "limit"), *c = dt_req_query(r, "cursor");
  long long v;
  *limit = 100;
  *cursor = 0;
  if (l && dt_parse_count(l, 1, 1000, &v) != 0) {
    dt_reply_invalid_parameter(r, "limit", "limit: expected an integer from 1 to 1000");
    return DT_ERR_INPUT;
  }
  if (l) *limit = (int)v;
  if (c && dt_parse_count(c, 1, (long long)1 << 62, &v) != 0) {
    dt_reply_invalid_parameter(r, "cursor", "cursor: expected the next_cursor of a previous page");
    return DT_ERR_INPUT;
  }
  if (c) *cursor = v;
  return DT_OK;
}

json_t *dt_page(json_t *items, long long next) {
  char c[32];
  snprintf(c, sizeof c, "%lld", next);
  return json_pack("{s:o, s:o}", "items", items, "next_cursor",
                   next ? json_string(c) : json_null());
}

/* Base name of a client's file name, with anything but [A-Za-z0-9._-] made '_' (messages and
 * logs quote it; it never names a file on the server). */
static void safe_name(const char *hint, char *out, size_t cap) {
  const char *b = strrchr(hint, '/'), *b2 = strrchr(hint, '\\');
  size_t k = 0;
  if (b2 && (!b || b2 > b)) b = b2;
  b = b ? b + 1 : hint;
  for (; *b && k + 1 < cap && k < 100; b++)
    out[k++] = ((*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') || (*b >= '0' && *b <= '9') ||
                *b == '.' || *b == '-' || *b == '_')
                   ? *b
                   : '_';
  out[k] = '\0';
}

static int ext_kind(const char *name) {
  const char *dot = name ? strrchr(name, '.') : NULL;
  if (!dot) return 0;
  if (!strcasecmp(dot, ".msh")) return DT_BODY_MSH;
  if (!strcasecmp(dot, ".inp")) return DT_BODY_INP;
  if (!strcasecmp(dot, ".json")) return DT_BODY_JSON;
  return 0;
}

/* Content-Disposition: ...; filename="x.msh" -> x.msh (into out). */
static const char *disposition_name(const char *cd, char *out, size_t cap) {
  const char *p = cd ? strstr(cd, "filename=") : NULL;
  size_t k = 0;
  if (!p) return NULL;
  p += 9;
  if (*p == '"') p++;
  while (*p && *p != '"' && *p != ';' && k + 1 < cap) out[k++] = *p++;
  out[k] = '\0';
  return k ? out : NULL;
}

/* The first bytes of the body, in memory or spooled. */
static size_t body_peek(dt_req *r, char *buf, size_t cap) {
  size_t n = 0;
  if (r->body) {
    n = r->len < cap - 1 ? r->len : cap - 1;
    memcpy(buf, r->body, n);
  } else if (r->spool_path[0]) {
    FILE *f = fopen(r->spool_path, "rb");
    if (f) {
      n = fread(buf, 1, cap - 1, f);
      fclose(f);
    }
  }
  buf[n] = '\0';
  return n;
}

static int sniff(dt_req *r) {
  char head[64];
  const char *p = head;
  body_peek(r, head, sizeof head);
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
  if (!strncmp(p, "$MeshFormat", 11)) return DT_BODY_MSH;
  if (*p == '*') return DT_BODY_INP;
  return DT_BODY_JSON;
}

/* The file name the client gives: ?filename=, Content-Disposition's, else name_hint. */
static const char *client_name(dt_req *r, const char *name_hint, char *buf, size_t cap) {
  const char *fname = dt_req_query(r, "filename");
  if (!fname) fname = disposition_name(dt_req_header(r, "Content-Disposition"), buf, cap);
  return fname ? fname : name_hint;
}

int dt_body_kind_named(dt_req *r, const char *name_hint) {
  static const struct {
    const char *type;
    int kind;
  } types[] = {{"application/json", DT_BODY_JSON},
               {"application/x-gmsh-msh", DT_BODY_MSH},
               {"application/x-gmsh", DT_BODY_MSH},
               {"application/x-abaqus-inp", DT_BODY_INP},
               {"application/x-calculix-inp", DT_BODY_INP}};
  const char *fmt = dt_req_query(r, "format"), *ct = dt_req_header(r, MHD_HTTP_HEADER_CONTENT_TYPE);
  char cdname[128];
  int kind = 0;
  if (fmt)
    return !strcmp(fmt, "json")  ? DT_BODY_JSON
           : !strcmp(fmt, "msh") ? DT_BODY_MSH
           : !strcmp(fmt, "inp") ? DT_BODY_INP
                                 : 0;
  if (ct) {
    size_t tl = strcspn(ct, "; \t");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
      if (strlen(types[i].type) == tl && !strncasecmp(ct, types[i].type, tl)) kind = types[i].kind;
  }
  return kind ? kind : ext_kind(client_name(r, name_hint, cdname, sizeof cdname));
}

dt_status dt_body_format_or_reply(dt_req *r, int allowed, const char *name_hint,
                                  const char *default_origin, char *origin, size_t cap,
                                  dt_body_kind *out) {
  const char *fmt = dt_req_query(r, "format"), *hint;
  char cdname[128], base[128];
  int kind = 0;
  hint = client_name(r, name_hint, cdname, sizeof cdname);
  base[0] = '\0';
  if (hint) safe_name(hint, base, sizeof base);
  snprintf(origin, cap, "%s", base[0] && base[0] != '.' ? base : default_origin);
  kind = dt_body_kind_named(r, name_hint);
  if (fmt && !(kind & allowed)) {
    dt_reply_invalid_parameter(r, "format", "format: expected %s",
                               allowed & DT_BODY_MSH ? "json or msh" : "json or inp");
    return DT_ERR_INPUT;
  }
  if (!kind) kind = sniff(r);
  if (!(kind & allowed)) {
    dt_reply_error(r, 415, "unsupported_media_type",
                   json_pack("{s:s}", "format", kind == DT_BODY_MSH ? "msh" : "inp"), "%s",
                   kind == DT_BODY_MSH
                       ? "a Gmsh mesh is not a job: upload it to /v1/meshes, then submit a job "
                         "(JSON without \"mesh\") with its mesh_id"
                       : "an Abaqus/CalculiX deck is a whole job: submit it to /v1/jobs");
    return DT_ERR_INPUT;
  }
  *out = (dt_body_kind)kind;
  return DT_OK;
}
