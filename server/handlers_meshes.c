/* /v1/meshes: upload (validated like a job's mesh), list, get, delete (refused while a queued
 * or running job uses the mesh). An upload is the job format's mesh object (JSON, stored as
 * meshes/<id>.json) or a Gmsh .msh file (stored as meshes/<id>.msh, validated by importing
 * it; hexahedra of order 2..8 make an order-P mesh, jobspec.h); see dt_body_format_or_reply for how the format is chosen. A user lists, gets and
 * deletes only its own meshes, an admin any (dt_principal_owner); another user's mesh is the
 * 404 of a missing one. An upload is admitted like a job before it is parsed (admission.h):
 * its nodes and elements against max_model_dofs and max_model_elements, counted as it arrives,
 * and the floor of the memory a job on it takes against the largest device. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission.h"
#include "handlers.h"
#include "jobspec.h"
#include "sha256.h"
#include "store.h"
#include "store_meshes.h"

static dt_status sha256_file(const char *path, char out[65], dt_ctx *ctx) {
  dt_status rc = DT_OK;
  uint8_t buf[65536], h[32];
  dt_sha256 s;
  ssize_t n = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  DT_CHECK(fd >= 0, ctx, DT_ERR_IO, "cannot read back %s: %s", path, strerror(errno));
  dt_sha256_init(&s);
  while ((n = read(fd, buf, sizeof buf)) > 0) dt_sha256_update(&s, buf, (size_t)n);
  DT_CHECK(n == 0, ctx, DT_ERR_IO, "cannot read back %s: %s", path, strerror(errno));
  dt_sha256_final(&s, h);
  dt_hex(h, 32, out);
cleanup:
  if (fd >= 0) close(fd);
  return rc;
}

/* A mesh's name is stored and returned in every mesh object: UTF-8 (JSON strings cannot carry
 * anything else, and a name Jansson refuses would leave the object without it), no control
 * characters. */
static int name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 127 || dt_utf8_invalid_at(s, n) != n) return 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p < 0x20 || *p == 0x7f) return 0;
  return 1;
}

/* A Gmsh upload: stored as meshes/<id>.msh (path), then validated by importing it (a file of
 * order-P hexahedra by the order-P reader, its order kept in the row). */
static dt_status msh_store_and_check(dt_req *r, dt_mesh_row *row, const char *origin,
                                     const char *path, dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (r->total == 0) {
    dt_reply_error(r, 400, "empty_body", NULL, "this request needs a body (the mesh)");
    return DT_ERR_INPUT;
  }
  DT_TRY(dt_req_body_save(r, path, ctx));
  DT_TRY(dt_spec_msh_check(path, origin, &row->dim, &row->n_nodes, &row->n_elements, &row->order,
                           where, ctx));
cleanup:
  return rc;
}

/* A mesh object (JSON): validated, then stored as meshes/<id>.json (path). */
static dt_status json_check_and_store(dt_req *r, dt_mesh_row *row, const char *path,
                                      dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *mesh = NULL;
  DT_TRY(dt_req_body_json_or_reply(r, &mesh));
  DT_TRY(dt_spec_mesh_check(mesh, &row->dim, &row->n_nodes, &row->n_elements, where, ctx));
  DT_TRY(dt_req_body_save(r, path, ctx));
cleanup:
  json_decref(mesh);
  return rc;
}

/* The details of an invalid upload: the JSON path, or the file and line of a .msh; of one that
 * does not fit, the floor and the counts. */
static json_t *invalid_details(dt_status rc, const dt_spec_where *where, const char *file,
                               const dt_fit *fit, const dt_model_size *size) {
  if (rc == DT_ERR_DEVICE_NOMEM) return dt_admission_fit_details(fit, size);
  if (rc != DT_ERR_INPUT) return NULL;
  if (file) return json_pack("{s:s, s:s, s:i}", "path", "", "file", file, "line", where->line);
  return json_pack("{s:s}", "path", where->path);
}

void dt_h_mesh_create(dt_req *r) {
  static const char *const allowed[] = {"name", "format", "filename", NULL};
  const char *name = dt_req_query(r, "name");
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_mesh_row row;
  dt_spec_where where;
  dt_body_kind kind = DT_BODY_JSON;
  dt_outcome found;
  dt_model_size size;
  dt_fit fit;
  char path[4200] = "", origin[128];
  json_t *out = NULL;
  int stored = 0;
  memset(&ctx, 0, sizeof ctx);
  memset(&row, 0, sizeof row);
  memset(&where, 0, sizeof where);
  memset(&size, 0, sizeof size);
  memset(&fit, 0, sizeof fit);
  DT_TRY(dt_req_query_allowed_or_reply(r, allowed));
  if (name && !name_ok(name)) {
    dt_reply_invalid_parameter(r, "name", "name: 1 to 127 bytes of printable UTF-8 text");
    goto cleanup;
  }
  DT_TRY(dt_body_format_or_reply(r, DT_BODY_JSON | DT_BODY_MSH, name, "upload.msh", origin,
                                 sizeof origin, &kind));
  /* admitted by its size before anything is parsed: parsing takes memory in proportion */
  DT_TRY(dt_admission_size(r, kind, 1, &size, &ctx));
  DT_TRY(dt_admit_size_or_reply(r, &size, kind == DT_BODY_MSH ? origin : "mesh", 1, &fit, &ctx));
  DT_TRY(dt_storage_or_reply(r, &ctx));
  DT_TRY(dt_id_new(row.id, 'm', &ctx));
  row.owner_id = r->who.user_id;
  snprintf(row.name, sizeof row.name, "%s", name ? name : "");
  row.bytes = (long long)r->total;
  snprintf(row.path, sizeof row.path, "meshes/%s.%s", row.id, kind == DT_BODY_MSH ? "msh" : "json");
  snprintf(path, sizeof path, "%s/%s", r->srv->data_dir, row.path);
  if (kind == DT_BODY_MSH)
    DT_TRY(msh_store_and_check(r, &row, origin, path, &where, &ctx));
  else
    DT_TRY(json_check_and_store(r, &row, path, &where, &ctx));
  DT_TRY(sha256_file(path, row.sha256, &ctx));
  DT_TRY(dt_mesh_insert(&row, &ctx));
  stored = 1;
  DT_TRY(dt_mesh_get(row.id, DT_ANY_OWNER, &out, NULL, 0, &found, &ctx));
  DT_CHECK(found == DT_DONE, &ctx, DT_ERR_INTERNAL, "mesh %s is gone right after it was stored",
           row.id);
  dt_reply_json(r, 201, out);
  out = NULL;
cleanup:
  dt_reply_status(r, rc, &ctx, "invalid_mesh",
                  invalid_details(rc, &where, kind == DT_BODY_MSH ? origin : NULL, &fit, &size));
  if (!stored && path[0]) unlink(path); /* a refused mesh leaves no file behind */
  json_decref(out);
}

void dt_h_mesh_list(dt_req *r) {
  static const char *const allowed[] = {"limit", "cursor", NULL};
  dt_status rc = DT_OK;
  dt_ctx ctx;
  int limit;
  long long cursor, next;
  json_t *items = NULL;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_req_query_allowed_or_reply(r, allowed));
  DT_TRY(dt_page_or_reply(r, &limit, &cursor));
  DT_TRY(dt_mesh_list(dt_principal_owner(&r->who), cursor, limit, &items, &next, &ctx));
  dt_reply_json(r, 200, dt_page(items, next));
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

void dt_h_mesh_get(dt_req *r) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_outcome found;
  json_t *out = NULL;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_id_or_reply(r, r->param[0], 'm', "mesh"));
  DT_TRY(dt_mesh_get(r->param[0], dt_principal_owner(&r->who), &out, NULL, 0, &found, &ctx));
  if (found == DT_NOT_FOUND)
    dt_reply_not_found(r, "mesh");
  else
    dt_reply_json(r, 200, out);
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}

void dt_h_mesh_delete(dt_req *r) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_outcome outcome;
  char rel[64], path[4200];
  int using = 0;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_id_or_reply(r, r->param[0], 'm', "mesh"));
  DT_TRY(dt_mesh_delete(r->param[0], dt_principal_owner(&r->who), rel, sizeof rel, &using, &outcome,
                        &ctx));
  if (outcome == DT_NOT_FOUND) {
    dt_reply_not_found(r, "mesh");
  } else if (outcome == DT_REFUSED) {
    dt_reply_error(
        r, 409, "mesh_in_use", json_pack("{s:i}", "active_jobs", using),
        "this mesh is used by %d queued or running job(s); cancel or wait for them first", using);
  } else {
    snprintf(path, sizeof path, "%s/%s", r->srv->data_dir, rel);
    unlink(path);
    dt_reply_text(r, 204, "application/json", "", 0);
  }
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}
