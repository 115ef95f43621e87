/* Admission before allocation (see admission.h): the body's size scanner, the model limits,
 * and the floor of the model's memory against the devices. */
#include "admission.h"

#include <stdio.h>
#include <string.h>

#include "ductile.h"

void dt_admission_begin(dt_req *r, int mesh) {
  int allowed = mesh ? DT_BODY_JSON | DT_BODY_MSH : DT_BODY_JSON | DT_BODY_INP;
  int kind = dt_body_kind_named(r, mesh ? dt_req_query(r, "name") : NULL);
  dt_size_format fmt = mesh ? DT_SIZE_JSON_MESH : DT_SIZE_JSON_JOB;
  dt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  if (kind && !(kind & allowed)) return; /* refused by its format once it has arrived (415) */
  if (kind == DT_BODY_MSH) fmt = DT_SIZE_GMSH;
  if (kind == DT_BODY_INP) fmt = DT_SIZE_INP;
  r->scan_mesh = mesh;
  /* without a scanner (no memory for it) the handler scans the body once it has arrived */
  if (dt_size_scan_create(fmt, kind == 0, &r->scan, &ctx) != DT_OK) r->scan = NULL;
}

/* Over max_model_dofs or max_model_elements (0: no limit)? */
static int too_large(const dt_config *c, const dt_model_size *s) {
  return (c->max_model_dofs > 0 && dt_model_size_dofs(s) > c->max_model_dofs) ||
         (c->max_model_elements > 0 && s->n_elems > c->max_model_elements);
}

static json_t *too_large_details(const dt_config *c, const dt_model_size *s) {
  return json_pack("{s:I, s:I, s:I, s:I, s:I}", "nodes", (json_int_t)s->n_nodes, "dofs",
                   (json_int_t)dt_model_size_dofs(s), "elements", (json_int_t)s->n_elems,
                   "max_model_dofs", (json_int_t)c->max_model_dofs, "max_model_elements",
                   (json_int_t)c->max_model_elements);
}

/* The message of model_too_large; arriving: refused part way through the body. */
static void too_large_message(char *msg, size_t len, const dt_config *c, const dt_model_size *s,
                              const char *what, int arriving) {
  char when[96] = "";
  if (arriving)
    snprintf(when, sizeof when, " in its first %lld bytes (counted as they arrived)",
             (long long)s->offset);
  snprintf(msg, len,
           "%s: %lld nodes (%s%lld DOFs) and %lld elements%s, more than this server takes in one "
           "model (max_model_dofs = %lld, max_model_elements = %lld): refused before it was "
           "built; split the model, or ask the operator to raise the limits",
           what, (long long)s->n_nodes, s->dim ? "" : "at least ", (long long)dt_model_size_dofs(s),
           (long long)s->n_elems, when, c->max_model_dofs, c->max_model_elements);
}

int dt_admission_feed(dt_req *r, const char *data, size_t n) {
  const dt_config *c = &r->srv->cfg;
  dt_model_size s;
  char msg[600];
  if (!r->scan) return 0;
  dt_size_scan_feed(r->scan, data, n);
  dt_size_scan_result(r->scan, &s);
  if (!too_large(c, &s)) return 0;
  too_large_message(msg, sizeof msg, c, &s, r->scan_mesh ? "mesh" : "job", 1);
  dt_reply_error_raw(r, 422, "model_too_large", too_large_details(c, &s), "%s", msg);
  return -1;
}

dt_status dt_admission_size(dt_req *r, dt_body_kind kind, int mesh, dt_model_size *out,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_size_format fmt = kind == DT_BODY_MSH   ? DT_SIZE_GMSH
                       : kind == DT_BODY_INP ? DT_SIZE_INP
                       : mesh                ? DT_SIZE_JSON_MESH
                                             : DT_SIZE_JSON_JOB;
  dt_size_scan *s = NULL;
  dt_ctx scan;
  memset(&scan, 0, sizeof scan);
  if (r->scan) dt_size_scan_result(r->scan, out);
  if (r->scan && out->format == fmt) goto cleanup;
  /* the body's first bytes named another format than the one chosen for it (a body starting
   * with '$' that is not a .msh): read it again as what the handler will parse */
  if (r->body) {
    DT_TRY(dt_size_scan_create(fmt, 0, &s, ctx));
    dt_size_scan_feed(s, r->body, r->len);
    dt_size_scan_result(s, out);
  } else if (r->spool_path[0]) {
    DT_CHECK(dt_size_scan_file(r->spool_path, fmt, out, &scan) == DT_OK, ctx, DT_ERR_INTERNAL,
             "cannot read the request body back: %s", scan.msg);
  } else {
    memset(out, 0, sizeof *out);
    out->format = fmt;
  }
cleanup:
  dt_size_scan_destroy(&s);
  return rc;
}

dt_status dt_admit_size_or_reply(dt_req *r, const dt_model_size *s, const char *what, int mesh,
                                 dt_fit *fit, dt_ctx *ctx) {
  const dt_config *c = &r->srv->cfg;
  char msg[600];
  memset(fit, 0, sizeof *fit);
  if (too_large(c, s)) {
    too_large_message(msg, sizeof msg, c, s, what, 0);
    dt_reply_error(r, 422, "model_too_large", too_large_details(c, s), "%s", msg);
    return DT_ERR_INPUT;
  }
  return dt_devices_admit_size(
      r->srv, s, mesh ? "no job on this mesh fits" : "the job does not fit", fit, ctx);
}

json_t *dt_admission_fit_details(const dt_fit *fit, const dt_model_size *s) {
  json_t *d = json_pack("{s:f, s:f, s:s}", "estimate_bytes", fit->estimate, "limit_bytes",
                        fit->limit, "device", fit->device[0] ? fit->device : "max_job_bytes");
  if (d && s) {
    json_object_set_new(d, "nodes", json_integer((json_int_t)s->n_nodes));
    json_object_set_new(d, "dofs", json_integer((json_int_t)dt_model_size_dofs(s)));
    json_object_set_new(d, "elements", json_integer((json_int_t)s->n_elems));
  }
  return d;
}
