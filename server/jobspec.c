/* Resolving and validating job documents and meshes (see jobspec.h). */
#include "jobspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "handlers.h"
#include "ductile.h"
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

static int ends_with(const char *s, const char *suffix);
static dt_spec_status build_on_msh(json_t *job, const char *data_dir, const char *msh_path, const char *mesh_id,
                                   dt_model **model, dt_spec_error *err);

static dt_spec_status parse(const json_t *doc, const char *origin, dt_model **model, dt_spec_error *err) {
  dt_ctx ctx;
  dt_status rc;
  char *text = json_dumps(doc, JSON_COMPACT);
  memset(&ctx, 0, sizeof ctx);
  if (!text) {
    snprintf(err->message, sizeof err->message, "cannot encode the job (out of memory)");
    return DT_SPEC_INTERNAL;
  }
  rc = dt_parse_job_string(text, strlen(text), origin, model, &ctx);
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
  err->line = 0;
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
    if (ends_with(rel, ".msh")) {
      copy = json_copy((json_t *)doc);
      if (!copy || json_object_del(copy, "mesh_id")) {
        json_decref(copy);
        snprintf(err->message, sizeof err->message, "out of memory");
        return DT_SPEC_INTERNAL;
      }
      st = build_on_msh(copy, data_dir, path, mesh_id, model, err);
      json_decref(copy);
      return st;
    }
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
    /* 2D types: tri3 and the quadrilaterals quad4, quad8, quad9, quad16 */
    if (type && (!strncmp(type, "quad", 4) || !strcmp(type, "tri3"))) *kind = "plane_strain";
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
  err->line = 0;
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

/* ---- uploaded Gmsh meshes and Abaqus/CalculiX decks ---- */

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* Replace every occurrence of from in s (capacity n) by to. */
static void replace_all(char *s, size_t n, const char *from, const char *to) {
  char out[2200];
  size_t k = 0, fl = strlen(from), tl = strlen(to);
  const char *p = s, *q;
  if (!fl) return;
  while ((q = strstr(p, from)) && k + (size_t)(q - p) + tl < sizeof out) {
    memcpy(out + k, p, (size_t)(q - p));
    k += (size_t)(q - p);
    memcpy(out + k, to, tl);
    k += tl;
    p = q + fl;
  }
  snprintf(out + k, sizeof out - k, "%s", p);
  k = strlen(out);
  if (k >= n) k = n - 1;
  memcpy(s, out, k);
  s[k] = '\0';
}

/* An importer's failure as a spec error: server paths replaced, "origin:LINE:" -> line. */
static dt_spec_status import_error(dt_status rc, dt_ctx *ctx, const char *path, const char *origin,
                                   dt_spec_error *err) {
  size_t ol = strlen(origin);
  replace_all(ctx->msg, sizeof ctx->msg, path, origin);
  snprintf(err->message, sizeof err->message, "%s", ctx->msg);
  err->path[0] = '\0';
  err->line = 0;
  if (!strncmp(ctx->msg, origin, ol) && ctx->msg[ol] == ':') err->line = atoi(ctx->msg + ol + 1);
  return rc == DT_ERR_INPUT ? DT_SPEC_INVALID : DT_SPEC_INTERNAL;
}

dt_spec_status dt_spec_msh_check(const char *path, const char *origin, int *dim, int *n_nodes, int *n_elements,
                                 dt_spec_error *err) {
  dt_model *m = NULL;
  dt_ctx ctx;
  dt_status rc;
  memset(&ctx, 0, sizeof ctx);
  err->path[0] = '\0';
  err->line = 0;
  rc = dt_gmsh_read_file(path, NULL, &m, &ctx);
  if (rc != DT_OK) {
    dt_model_destroy(&m);
    return import_error(rc, &ctx, path, origin, err);
  }
  *dim = m->dim;
  *n_nodes = m->n_nodes;
  *n_elements = m->n_elems;
  dt_model_destroy(&m);
  if (*n_elements <= 0) {
    snprintf(err->message, sizeof err->message, "%s: no elements of a supported type (see docs/interop.md)", origin);
    return DT_SPEC_INVALID;
  }
  return DT_SPEC_OK;
}

/* The first *INCLUDE keyword line of a deck (1-based), 0 if none, -1 if unreadable. Lines as
 * the importer reads them: split at '\n', leading white space skipped, "**" a comment; the
 * keyword is the text before the first comma, white space ignored, any case. */
static int find_include(const char *path) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0;
  ssize_t n;
  int line = 0, found = 0;
  if (!f) return -1;
  /* getline: a line is everything up to '\n', NUL bytes included; the importer then reads it
   * as a C string (up to a NUL), and so does this check. */
  while (!found && (n = getline(&buf, &cap, f)) >= 0) {
    char kw[16];
    size_t k = 0;
    const char *p = buf;
    line++;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') p++;
    if (p[0] != '*' || p[1] == '*') continue;
    for (; *p && *p != ',' && *p != '\n' && k + 1 < sizeof kw; p++)
      if (!(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
        kw[k++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    kw[k] = '\0';
    if (!strncmp(kw, "*INCLUDE", 8)) found = line;
  }
  free(buf);
  fclose(f);
  return found;
}

typedef struct warn_sink {
  json_t *list;
  const char *path, *origin;
} warn_sink;

static void on_warning(const char *msg, void *user) {
  warn_sink *w = user;
  char text[1100];
  snprintf(text, sizeof text, "%s", msg);
  replace_all(text, sizeof text, w->path, w->origin);
  if (w->list && json_array_size(w->list) < 100) json_array_append_new(w->list, json_string(text));
}

dt_spec_status dt_spec_deck_build(const char *path, const char *origin, json_t *warnings, dt_model **model,
                                  dt_spec_error *err) {
  dt_import_options opt;
  warn_sink sink = {warnings, path, origin};
  dt_ctx ctx;
  dt_status rc;
  int inc = find_include(path);
  *model = NULL;
  err->path[0] = '\0';
  err->line = 0;
  if (inc < 0) {
    snprintf(err->message, sizeof err->message, "cannot read the stored deck");
    return DT_SPEC_INTERNAL;
  }
  if (inc > 0) {
    err->line = inc;
    snprintf(err->message, sizeof err->message,
             "%s:%d: *INCLUDE is not allowed in an uploaded deck (the daemon reads no files named by an upload): "
             "put the included lines into the deck",
             origin, inc);
    return DT_SPEC_INVALID;
  }
  memset(&ctx, 0, sizeof ctx);
  opt.warn = on_warning;
  opt.user = &sink;
  rc = dt_inp_parse_file(path, &opt, model, &ctx);
  if (rc == DT_OK) return DT_SPEC_OK;
  dt_model_destroy(model);
  return import_error(rc, &ctx, path, origin, err);
}

/* A job without "mesh" on a stored Gmsh mesh: the job goes through a temporary file, since
 * dt_parse_job_file_with_mesh reads one; messages name it "job" and the mesh by its id. */
static dt_spec_status build_on_msh(json_t *job, const char *data_dir, const char *msh_path, const char *mesh_id,
                                   dt_model **model, dt_spec_error *err) {
  char tmp[4200], origin[40];
  dt_model *m = NULL;
  dt_ctx ctx;
  dt_status rc;
  int fd;
  FILE *f;
  snprintf(tmp, sizeof tmp, "%s/tmp/job-XXXXXX", data_dir);
  snprintf(origin, sizeof origin, "%s.msh", mesh_id);
  fd = mkstemp(tmp);
  if (fd < 0 || !(f = fdopen(fd, "w"))) {
    if (fd >= 0) close(fd), unlink(tmp);
    snprintf(err->message, sizeof err->message, "cannot write a temporary file");
    return DT_SPEC_INTERNAL;
  }
  rc = json_dumpf(job, f, JSON_COMPACT | JSON_REAL_PRECISION(17)) == 0 ? DT_OK : DT_ERR_IO;
  if (fclose(f) != 0 || rc != DT_OK) {
    unlink(tmp);
    snprintf(err->message, sizeof err->message, "cannot write a temporary file");
    return DT_SPEC_INTERNAL;
  }
  memset(&ctx, 0, sizeof ctx);
  rc = dt_gmsh_read_file(msh_path, NULL, &m, &ctx);
  if (rc == DT_OK) rc = dt_parse_job_file_with_mesh(tmp, m, &ctx);
  unlink(tmp);
  if (rc == DT_OK) {
    *model = m;
    return DT_SPEC_OK;
  }
  dt_model_destroy(&m);
  replace_all(ctx.msg, sizeof ctx.msg, tmp, "job");
  replace_all(ctx.msg, sizeof ctx.msg, msh_path, origin);
  error_from_ctx(&ctx, err);
  return rc == DT_ERR_INPUT ? DT_SPEC_INVALID : DT_SPEC_INTERNAL;
}
