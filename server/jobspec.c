/* Resolving and validating job documents and meshes (see jobspec.h). */
#include "jobspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "io/job_json.h"
#include "store_meshes.h"

/* "origin: path: message" -> path (the solver's message convention). */
static void error_from_ctx(const dt_ctx *ctx, dt_spec_error *err) {
  const char *a = strstr(ctx->msg, ": "), *b;
  snprintf(err->message, sizeof err->message, "%s", ctx->msg);
  err->path[0] = '\0';
  if (a && (b = strstr(a + 2, ": ")) && (size_t)(b - a - 2) < sizeof err->path && !memchr(a + 2, ' ', (size_t)(b - a - 2))) {
    memcpy(err->path, a + 2, (size_t)(b - a - 2));
    err->path[b - a - 2] = '\0';
  }
}

static dt_spec_status parse(const json_t *doc, const char *origin, dt_model **model, dt_spec_error *err) {
  dt_ctx ctx;
  dt_status rc;
  char *text = json_dumps(doc, JSON_COMPACT);
  memset(&ctx, 0, sizeof ctx);
  if (!text) {
    snprintf(err->message, sizeof err->message, "cannot encode the job (out of memory)");
    return DT_SPEC_INTERNAL;
  }
  rc = dt_job_parse_string(text, strlen(text), origin, model, &ctx);
  free(text);
  if (rc == DT_OK) return DT_SPEC_OK;
  error_from_ctx(&ctx, err);
  return rc == DT_ERR_INPUT ? DT_SPEC_INVALID : DT_SPEC_INTERNAL;
}

dt_spec_status dt_spec_build(const json_t *doc, const char *data_dir, char *mesh_id, size_t mesh_id_len,
                             dt_model **model, dt_spec_error *err) {
  json_t *copy = NULL, *mesh = NULL, *mid;
  dt_spec_status st;
  *model = NULL;
  mesh_id[0] = '\0';
  err->path[0] = '\0';
  if (!json_is_object(doc)) {
    snprintf(err->message, sizeof err->message, "job: expected a JSON object (the job document)");
    return DT_SPEC_INVALID;
  }
  mid = json_object_get(doc, "mesh_id");
  if (!mid) return parse(doc, "job", model, err);
  if (json_object_get(doc, "mesh")) {
    snprintf(err->path, sizeof err->path, "mesh_id");
    snprintf(err->message, sizeof err->message, "job: mesh_id: give either \"mesh\" or \"mesh_id\", not both");
    return DT_SPEC_INVALID;
  }
  if (!json_is_string(mid) || !dt_id_valid(json_string_value(mid), 'm')) {
    snprintf(err->path, sizeof err->path, "mesh_id");
    snprintf(err->message, sizeof err->message, "job: mesh_id: expected a mesh id like \"m-0123456789abcdef\"");
    return DT_SPEC_INVALID;
  }
  snprintf(mesh_id, mesh_id_len, "%s", json_string_value(mid));
  {
    char rel[64], path[4200];
    json_t *meta = NULL;
    json_error_t je;
    if (dt_mesh_get(mesh_id, &meta, rel, sizeof rel) != 0) {
      snprintf(err->path, sizeof err->path, "mesh_id");
      snprintf(err->message, sizeof err->message, "job: mesh_id: no mesh \"%s\"", mesh_id);
      return DT_SPEC_NO_MESH;
    }
    json_decref(meta);
    snprintf(path, sizeof path, "%s/%s", data_dir, rel);
    mesh = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!mesh) {
      snprintf(err->message, sizeof err->message, "cannot read mesh %s: %s", mesh_id, je.text);
      return DT_SPEC_INTERNAL;
    }
  }
  copy = json_copy((json_t *)doc);
  if (!copy || json_object_del(copy, "mesh_id") || json_object_set_new(copy, "mesh", mesh)) {
    json_decref(copy);
    snprintf(err->message, sizeof err->message, "out of memory");
    return DT_SPEC_INTERNAL;
  }
  st = parse(copy, "job", model, err);
  json_decref(copy);
  return st;
}

/* Every element id of every block, for the probe section's element set. */
static json_t *all_element_ids(const json_t *mesh, const char **kind) {
  json_t *ids = json_array(), *blocks = json_object_get(mesh, "elements"), *b;
  size_t i, j;
  *kind = "solid";
  if (!json_is_array(blocks)) return ids;
  json_array_foreach(blocks, i, b) {
    json_t *conn = json_object_get(b, "connectivity"), *row;
    const char *type = json_string_value(json_object_get(b, "type"));
    if (type && (!strcmp(type, "quad4") || !strcmp(type, "tri3"))) *kind = "plane_strain";
    if (!json_is_array(conn)) continue;
    json_array_foreach(conn, j, row) {
      json_t *id = json_array_get(row, 0);
      if (json_is_number(id)) json_array_append(ids, id);
    }
  }
  return ids;
}

dt_spec_status dt_spec_mesh_check(const json_t *mesh, int *dim, int *n_nodes, int *n_elements, dt_spec_error *err) {
  static const char probe_set[] = "__ductiled_probe_all";
  const char *kind;
  json_t *m, *sets, *job, *ids;
  dt_model *model = NULL;
  dt_spec_status st;
  err->path[0] = '\0';
  if (!json_is_object(mesh)) {
    snprintf(err->message, sizeof err->message, "mesh: expected a JSON object with nodes and elements");
    return DT_SPEC_INVALID;
  }
  m = json_deep_copy(mesh);
  ids = all_element_ids(mesh, &kind);
  sets = json_object_get(m, "element_sets");
  if (json_is_object(sets) && json_object_get(sets, probe_set)) {
    json_decref(m);
    json_decref(ids);
    snprintf(err->path, sizeof err->path, "mesh.element_sets.%s", probe_set);
    snprintf(err->message, sizeof err->message, "mesh: element set name \"%s\" is reserved", probe_set);
    return DT_SPEC_INVALID;
  }
  if (!sets) json_object_set_new(m, "element_sets", sets = json_object());
  if (json_is_object(sets) && json_array_size(ids) > 0) json_object_set(sets, probe_set, ids);
  job = json_pack("{s:i, s:o, s:[{s:s, s:{s:f, s:f}}], s:[{s:s, s:s, s:s}], s:[{}]}", "ductile", 1, "mesh", m,
                  "materials", "name", "probe", "elastic", "E", 1.0, "nu", 0.25, "sections", "element_set", probe_set,
                  "material", "probe", "kind", kind, "steps");
  json_decref(ids);
  if (!job) {
    snprintf(err->message, sizeof err->message, "out of memory");
    return DT_SPEC_INTERNAL;
  }
  st = parse(job, "upload", &model, err);
  json_decref(job);
  if (st == DT_SPEC_OK) {
    *dim = model->dim;
    *n_nodes = model->n_nodes;
    *n_elements = model->n_elems;
  }
  dt_model_destroy(&model);
  return st;
}
