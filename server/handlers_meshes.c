/* /v1/meshes: upload (validated like a job's mesh), list, get, delete (refused while a queued
 * or running job uses the mesh). An upload is the job format's mesh object (JSON, stored as
 * meshes/<id>.json) or a Gmsh .msh file (stored as meshes/<id>.msh, validated by importing
 * it); see dt_body_format_or_reply for how the format is chosen. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handlers.h"
#include "jobspec.h"
#include "sha256.h"
#include "store.h"
#include "store_meshes.h"

static int sha256_file(const char *path, char out[65]) {
  uint8_t buf[65536], h[32];
  dt_sha256 s;
  ssize_t n;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  dt_sha256_init(&s);
  while ((n = read(fd, buf, sizeof buf)) > 0) dt_sha256_update(&s, buf, (size_t)n);
  close(fd);
  if (n < 0) return -1;
  dt_sha256_final(&s, h);
  dt_hex(h, 32, out);
  return 0;
}

static int name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 127) return 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p < 0x20 || *p == 0x7f) return 0;
  return 1;
}

/* A Gmsh upload: stored as meshes/<id>.msh, then validated by importing it (422 with the line). */
static int msh_store_and_check(dt_req *r, dt_mesh_row *row, const char *origin, char *path, size_t pathlen) {
  dt_spec_error se;
  dt_spec_status st;
  snprintf(row->path, sizeof row->path, "meshes/%s.msh", row->id);
  snprintf(path, pathlen, "%s/%s", r->srv->data_dir, row->path);
  if (r->total == 0) {
    dt_reply_error(r, 400, "empty_body", NULL, "this request needs a body (the mesh)");
    return -1;
  }
  if (dt_req_body_save(r, path)) {
    unlink(path);
    dt_reply_error(r, 507, "insufficient_storage", NULL, "cannot store the mesh");
    return -1;
  }
  st = dt_spec_msh_check(path, origin, &row->dim, &row->n_nodes, &row->n_elements, &se);
  if (st == DT_SPEC_OK) return 0;
  unlink(path);
  if (st == DT_SPEC_INVALID)
    dt_reply_error(r, 422, "invalid_mesh", json_pack("{s:s, s:s, s:i}", "path", "", "file", origin, "line", se.line),
                   "%s", se.message);
  else
    dt_reply_error(r, 500, "internal", NULL, "%s", se.message);
  return -1;
}

void dt_h_mesh_create(dt_req *r) {
  static const char *const allowed[] = {"name", "format", "filename", NULL};
  const char *name = dt_req_query(r, "name");
  dt_mesh_row row;
  dt_spec_error se;
  dt_body_kind kind;
  char path[4200], origin[128];
  json_t *mesh, *out = NULL;
  dt_spec_status st;
  if (dt_req_query_allowed_or_reply(r, allowed)) return;
  if (name && !name_ok(name)) {
    dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "name"),
                   "name: 1 to 127 printable characters");
    return;
  }
  if (dt_body_format_or_reply(r, DT_BODY_JSON | DT_BODY_MSH, name, "upload.msh", origin, sizeof origin, &kind)) return;
  memset(&row, 0, sizeof row);
  if (dt_id_new(row.id, 'm')) {
    dt_reply_error(r, 500, "internal", NULL, "no randomness for an id");
    return;
  }
  row.owner_id = r->who.user_id;
  snprintf(row.name, sizeof row.name, "%s", name ? name : "");
  row.bytes = (long long)r->total;
  if (kind == DT_BODY_MSH) {
    if (msh_store_and_check(r, &row, origin, path, sizeof path)) return;
  } else {
    if (!(mesh = dt_req_body_json_or_reply(r))) return;
    st = dt_spec_mesh_check(mesh, &row.dim, &row.n_nodes, &row.n_elements, &se);
    json_decref(mesh);
    if (st != DT_SPEC_OK) {
      if (st == DT_SPEC_INVALID)
        dt_reply_error(r, 422, "invalid_mesh", json_pack("{s:s}", "path", se.path), "%s", se.message);
      else
        dt_reply_error(r, 500, "internal", NULL, "%s", se.message);
      return;
    }
    snprintf(row.path, sizeof row.path, "meshes/%s.json", row.id);
    snprintf(path, sizeof path, "%s/%s", r->srv->data_dir, row.path);
    if (dt_req_body_save(r, path)) {
      unlink(path);
      dt_reply_error(r, 507, "insufficient_storage", NULL, "cannot store the mesh");
      return;
    }
  }
  if (sha256_file(path, row.sha256)) {
    unlink(path);
    dt_reply_error(r, 507, "insufficient_storage", NULL, "cannot store the mesh");
    return;
  }
  if (dt_mesh_insert(&row) || dt_mesh_get(row.id, &out, NULL, 0)) {
    unlink(path);
    dt_reply_store_error(r);
    return;
  }
  dt_reply_json(r, 201, out);
}

int dt_page_or_reply(dt_req *r, int *limit, long long *cursor) {
  const char *l = dt_req_query(r, "limit"), *c = dt_req_query(r, "cursor");
  long long v;
  *limit = 100;
  *cursor = 0;
  if (l) {
    if (dt_parse_count(l, 1, 1000, &v)) {
      dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "limit"),
                     "limit: expected an integer from 1 to 1000");
      return -1;
    }
    *limit = (int)v;
  }
  if (c) {
    if (dt_parse_count(c, 1, (long long)1 << 62, &v)) {
      dt_reply_error(r, 400, "invalid_parameter", json_pack("{s:s}", "parameter", "cursor"),
                     "cursor: expected the next_cursor of a previous page");
      return -1;
    }
    *cursor = v;
  }
  return 0;
}

json_t *dt_page(json_t *items, long long next) {
  char c[32];
  snprintf(c, sizeof c, "%lld", next);
  return json_pack("{s:o, s:o}", "items", items, "next_cursor", next ? json_string(c) : json_null());
}

void dt_h_mesh_list(dt_req *r) {
  static const char *const allowed[] = {"limit", "cursor", NULL};
  int limit;
  long long cursor, next;
  json_t *items;
  if (dt_req_query_allowed_or_reply(r, allowed) || dt_page_or_reply(r, &limit, &cursor)) return;
  if (dt_mesh_list(cursor, limit, &items, &next)) {
    dt_reply_store_error(r);
    return;
  }
  dt_reply_json(r, 200, dt_page(items, next));
}

void dt_h_mesh_get(dt_req *r) {
  json_t *out;
  int rc;
  if (dt_id_or_reply(r, r->param[0], 'm', "mesh")) return;
  rc = dt_mesh_get(r->param[0], &out, NULL, 0);
  if (rc == DT_STORE_NOTFOUND) dt_reply_error(r, 404, "not_found", NULL, "no mesh with this id");
  else if (rc) dt_reply_store_error(r);
  else dt_reply_json(r, 200, out);
}

void dt_h_mesh_delete(dt_req *r) {
  char rel[64], path[4200];
  int using = 0, rc;
  if (dt_id_or_reply(r, r->param[0], 'm', "mesh")) return;
  rc = dt_mesh_delete(r->param[0], rel, sizeof rel, &using);
  if (rc == DT_STORE_NOTFOUND) {
    dt_reply_error(r, 404, "not_found", NULL, "no mesh with this id");
  } else if (rc == DT_STORE_CONFLICT) {
    dt_reply_error(r, 409, "mesh_in_use", json_pack("{s:i}", "active_jobs", using),
                   "this mesh is used by %d queued or running job(s); cancel or wait for them first", using);
  } else if (rc) {
    dt_reply_store_error(r);
  } else {
    snprintf(path, sizeof path, "%s/%s", r->srv->data_dir, rel);
    unlink(path);
    dt_reply_text(r, 204, "application/json", "", 0);
  }
}
