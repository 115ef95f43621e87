/* Resolving and validating job documents and meshes (see jobspec.h). */
#include "jobspec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ductile.h"
#include "handlers.h"
#include "highorder/ho_mesh_gmsh.h"
#include "redact.h"
#include "store_meshes.h"

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* Record the solver's failure st (message msg) in ctx: the upload's fault for DT_ERR_INPUT,
 * otherwise the daemon's own (its stored copy, its memory: DT_ERR_INTERNAL). */
static dt_status raise_solver_error(dt_status st, const char *msg, dt_ctx *ctx) {
  return DT_ERROR(ctx, st == DT_ERR_INPUT ? DT_ERR_INPUT : DT_ERR_INTERNAL, "%s", msg);
}

/* A parser's failure: "origin: path: message" names the culprit's JSON path. */
static dt_status parse_failed(dt_status st, const char *msg, dt_spec_where *where, dt_ctx *ctx) {
  const char *a = strstr(msg, ": "), *b;
  where->path[0] = '\0';
  if (a && (b = strstr(a + 2, ": ")) && (size_t)(b - a - 2) < sizeof where->path &&
      !memchr(a + 2, ' ', (size_t)(b - a - 2))) {
    memcpy(where->path, a + 2, (size_t)(b - a - 2));
    where->path[b - a - 2] = '\0';
  }
  return raise_solver_error(st, msg, ctx);
}

/* An importer's failure: the server's path replaced by origin, "origin:LINE:" -> line. */
static dt_status import_failed(dt_status st, dt_ctx *importer, const char *path, const char *origin,
                               dt_spec_where *where, dt_ctx *ctx) {
  size_t ol = strlen(origin);
  dt_text_replace(importer->msg, sizeof importer->msg, path, origin);
  if (!strncmp(importer->msg, origin, ol) && importer->msg[ol] == ':')
    where->line = atoi(importer->msg + ol + 1);
  return raise_solver_error(st, importer->msg, ctx);
}

static dt_status parse(const json_t *doc, const char *origin, dt_model **model,
                       dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK, st;
  dt_ctx parser;
  char *text = json_dumps(doc, JSON_COMPACT);
  memset(&parser, 0, sizeof parser);
  DT_CHECK(text != NULL, ctx, DT_ERR_NOMEM, "cannot encode the job (out of memory)");
  st = dt_parse_job_string(text, strlen(text), origin, model, &parser);
  if (st != DT_OK) rc = parse_failed(st, parser.msg, where, ctx);
cleanup:
  free(text);
  return rc;
}

/* mesh_id of doc: a well-formed id of a stored mesh of owner, whose file (relative to the data
 * directory) rel, whose name ("" if it has none) name and whose order-P order (0: none) order
 * receive. */
static dt_status mesh_ref(const json_t *mid, long long owner, char *mesh_id, size_t mesh_id_len,
                          char *rel, size_t rel_len, char *name, size_t name_len, int *order,
                          dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *meta = NULL;
  const char *stored_name = NULL;
  dt_outcome found;
  DT_CHECK(json_is_string(mid) && dt_id_valid(json_string_value(mid), 'm'), ctx, DT_ERR_INPUT,
           "job: mesh_id: expected a mesh id like \"m-0123456789abcdef\"");
  snprintf(mesh_id, mesh_id_len, "%s", json_string_value(mid));
  DT_TRY(dt_mesh_get(mesh_id, owner, &meta, rel, rel_len, &found, ctx));
  where->no_mesh = found == DT_NOT_FOUND;
  DT_CHECK(!where->no_mesh, ctx, DT_ERR_INPUT, "job: mesh_id: no mesh \"%s\"", mesh_id);
  stored_name = json_string_value(json_object_get(meta, "name"));
  snprintf(name, name_len, "%s", stored_name ? stored_name : "");
  *order = (int)json_integer_value(json_object_get(meta, "order"));
cleanup:
  if (rc == DT_ERR_INPUT) snprintf(where->path, sizeof where->path, "mesh_id");
  json_decref(meta);
  return rc;
}

dt_status dt_spec_stored_mesh(const json_t *doc, const char *data_dir, long long mesh_owner,
                              char *mesh_id, size_t mesh_id_len, char *path, size_t path_len,
                              dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *mid = json_is_object(doc) ? json_object_get(doc, "mesh_id") : NULL;
  char rel[64], name[128];
  int order = 0;
  mesh_id[0] = path[0] = '\0';
  memset(where, 0, sizeof *where);
  if (!mid || json_object_get(doc, "mesh")) goto cleanup; /* dt_spec_build says what is wrong */
  DT_TRY(mesh_ref(mid, mesh_owner, mesh_id, mesh_id_len, rel, sizeof rel, name, sizeof name, &order,
                  where, ctx));
  snprintf(path, path_len, "%s/%s", data_dir, rel);
cleanup:
  return rc;
}

/* job into a new temporary file under data_dir/tmp, whose name tmp (len bytes) receives ("" when
 * none was made): the solver's job readers take files. */
static dt_status write_temp_job(const json_t *job, const char *data_dir, char *tmp, size_t len,
                                dt_ctx *ctx) {
  dt_status rc = DT_OK;
  FILE *f = NULL;
  int fd, written;
  snprintf(tmp, len, "%s/tmp/job-XXXXXX", data_dir);
  fd = mkstemp(tmp);
  if (fd < 0) tmp[0] = '\0';
  DT_CHECK(fd >= 0 && (f = fdopen(fd, "w")) != NULL, ctx, DT_ERR_INTERNAL,
           "cannot write a temporary file");
  fd = -1; /* f owns it */
  written = json_dumpf(job, f, JSON_COMPACT | JSON_REAL_PRECISION(17)) == 0;
  written = fclose(f) == 0 && written;
  f = NULL;
  DT_CHECK(written, ctx, DT_ERR_INTERNAL, "cannot write a temporary file");
cleanup:
  if (f) fclose(f);
  if (fd >= 0) close(fd);
  return rc;
}

/* A job without "mesh" on a stored Gmsh mesh: the job goes through a temporary file, since
 * dt_parse_job_file_with_mesh reads one; messages name it "job" and the mesh by its id. */
static dt_status build_on_msh(json_t *job, const char *data_dir, const char *msh_path,
                              const char *mesh_id, dt_model **model, dt_spec_where *where,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK, st;
  char tmp[4200] = "", origin[40];
  dt_model *m = NULL;
  dt_ctx parser;
  memset(&parser, 0, sizeof parser);
  snprintf(origin, sizeof origin, "%s.msh", mesh_id);
  DT_TRY(write_temp_job(job, data_dir, tmp, sizeof tmp, ctx));
  st = dt_gmsh_read_file(msh_path, NULL, &m, &parser);
  if (st == DT_OK) st = dt_parse_job_file_with_mesh(tmp, m, &parser);
  if (st != DT_OK) {
    dt_text_replace(parser.msg, sizeof parser.msg, tmp, "job");
    dt_text_replace(parser.msg, sizeof parser.msg, msh_path, origin);
    rc = parse_failed(st, parser.msg, where, ctx);
    goto cleanup;
  }
  /* the importer titles the mesh with its path, a path of the server's: untitled instead */
  if (!strcmp(m->title, msh_path)) m->title[0] = '\0';
  *model = m;
  m = NULL;
cleanup:
  if (tmp[0]) unlink(tmp);
  dt_model_destroy(&m);
  return rc;
}

/* A job without "mesh" on a stored mesh object (<data>/meshes/<id>.json): the mesh goes in. */
static dt_status build_on_json_mesh(json_t *job, const char *path, const char *mesh_id,
                                    dt_model **model, dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_error_t je;
  json_t *mesh = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  DT_CHECK(mesh != NULL, ctx, DT_ERR_INTERNAL, "cannot read mesh %s: %s", mesh_id, je.text);
  DT_CHECK(json_object_set_new(job, "mesh", mesh) == 0, ctx, DT_ERR_NOMEM,
           "out of memory"); /* mesh taken */
  DT_TRY(parse(job, "job", model, where, ctx));
cleanup:
  return rc;
}

dt_status dt_spec_build(const json_t *doc, const char *data_dir, long long mesh_owner,
                        char *mesh_id, size_t mesh_id_len, dt_model **model, dt_spec_where *where,
                        dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *copy = NULL, *mid;
  char rel[64], path[4200], name[128];
  int order = 0;
  *model = NULL;
  mesh_id[0] = '\0';
  memset(where, 0, sizeof *where);
  DT_CHECK(json_is_object(doc), ctx, DT_ERR_INPUT,
           "job: expected a JSON object (the job document)");
  mid = json_object_get(doc, "mesh_id");
  if (!mid) {
    DT_TRY(parse(doc, "job", model, where, ctx));
    goto cleanup;
  }
  if (json_object_get(doc, "mesh")) {
    snprintf(where->path, sizeof where->path, "mesh_id");
    rc = DT_ERROR(ctx, DT_ERR_INPUT, "job: mesh_id: give either \"mesh\" or \"mesh_id\", not both");
    goto cleanup;
  }
  DT_TRY(mesh_ref(mid, mesh_owner, mesh_id, mesh_id_len, rel, sizeof rel, name, sizeof name, &order,
                  where, ctx));
  snprintf(path, sizeof path, "%s/%s", data_dir, rel);
  DT_CHECK(order == 0, ctx, DT_ERR_INTERNAL,
           "mesh %s is an order-P mesh: its jobs are built by dt_spec_ho_build", mesh_id);
  copy = json_copy((json_t *)doc);
  DT_CHECK(copy != NULL && json_object_del(copy, "mesh_id") == 0, ctx, DT_ERR_NOMEM,
           "out of memory");
  if (ends_with(rel, ".msh"))
    DT_TRY(build_on_msh(copy, data_dir, path, mesh_id, model, where, ctx));
  else
    DT_TRY(build_on_json_mesh(copy, path, mesh_id, model, where, ctx));
  /* A job without a title is called after its mesh: the mesh's name (UTF-8, as uploads are
   * checked), else its id. */
  if (!(*model)->title[0])
    snprintf((*model)->title, sizeof(*model)->title, "%s", name[0] ? name : mesh_id);
cleanup:
  json_decref(copy);
  return rc;
}

void dt_spec_ho_message(const dt_spec_ho *ho, char *msg, size_t len) {
  if (ho->job[0]) dt_text_replace(msg, len, ho->job, "job");
  dt_text_replace(msg, len, ho->msh, ho->origin);
}

/* dt_ho_job_check on ho's files; its failure is the document's (where->path from the
 * message). */
static dt_status ho_check(dt_spec_ho *ho, dt_spec_where *where, dt_ctx *ctx) {
  dt_status st;
  dt_ctx checker;
  memset(&checker, 0, sizeof checker);
  st = dt_ho_job_check(ho->msh, ho->job, &ho->info, &checker);
  if (st == DT_OK) return DT_OK;
  dt_spec_ho_message(ho, checker.msg, sizeof checker.msg);
  return parse_failed(st, checker.msg, where, ctx);
}

dt_status dt_spec_ho_build(const json_t *doc, const char *data_dir, long long mesh_owner,
                           int keep_job, char *mesh_id, size_t mesh_id_len, dt_spec_ho *ho,
                           dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *copy = NULL, *mid = json_is_object(doc) ? json_object_get(doc, "mesh_id") : NULL;
  char rel[64], name[128];
  int order = 0;
  memset(ho, 0, sizeof *ho);
  memset(where, 0, sizeof *where);
  mesh_id[0] = '\0';
  if (!mid || json_object_get(doc, "mesh")) goto cleanup; /* dt_spec_build says what is wrong */
  DT_TRY(mesh_ref(mid, mesh_owner, mesh_id, mesh_id_len, rel, sizeof rel, name, sizeof name, &order,
                  where, ctx));
  if (order < 2) goto cleanup;
  snprintf(ho->msh, sizeof ho->msh, "%s/%s", data_dir, rel);
  snprintf(ho->origin, sizeof ho->origin, "%s.msh", mesh_id);
  copy = json_copy((json_t *)doc);
  DT_CHECK(copy != NULL && json_object_del(copy, "mesh_id") == 0, ctx, DT_ERR_NOMEM,
           "out of memory");
  DT_TRY(write_temp_job(copy, data_dir, ho->job, sizeof ho->job, ctx));
  DT_TRY(ho_check(ho, where, ctx));
  ho->order = order;
  /* untitled: called after its mesh, as dt_spec_build names a job */
  snprintf(ho->title, sizeof ho->title, "%s",
           ho->info.title[0] ? ho->info.title
           : name[0]         ? name
                             : mesh_id);
cleanup:
  json_decref(copy);
  if (ho->job[0] && (!keep_job || rc != DT_OK)) {
    unlink(ho->job);
    ho->job[0] = '\0';
  }
  return rc;
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

dt_status dt_spec_mesh_check(const json_t *mesh, int *dim, int *n_nodes, int *n_elements,
                             dt_spec_where *where, dt_ctx *ctx) {
  static const char probe_set[] = "__ductiled_probe_all";
  dt_status rc = DT_OK;
  const char *kind;
  json_t *m = NULL, *sets, *job = NULL, *ids = NULL;
  dt_model *model = NULL;
  memset(where, 0, sizeof *where);
  DT_CHECK(json_is_object(mesh), ctx, DT_ERR_INPUT,
           "mesh: expected a JSON object with nodes and elements");
  m = json_deep_copy(mesh);
  ids = all_element_ids(mesh, &kind);
  DT_CHECK(m != NULL && ids != NULL, ctx, DT_ERR_NOMEM, "out of memory");
  sets = json_object_get(m, "element_sets");
  if (json_is_object(sets) && json_object_get(sets, probe_set)) {
    snprintf(where->path, sizeof where->path, "mesh.element_sets.%s", probe_set);
    rc = DT_ERROR(ctx, DT_ERR_INPUT, "mesh: element set name \"%s\" is reserved", probe_set);
    goto cleanup;
  }
  if (!sets) json_object_set_new(m, "element_sets", sets = json_object());
  if (json_is_object(sets) && json_array_size(ids) > 0) json_object_set(sets, probe_set, ids);
  job = json_pack("{s:i, s:o, s:[{s:s, s:{s:f, s:f}}], s:[{s:s, s:s, s:s}], s:[{}]}", "ductile", 1,
                  "mesh", m, "materials", "name", "probe", "elastic", "E", 1.0, "nu", 0.25,
                  "sections", "element_set", probe_set, "material", "probe", "kind", kind, "steps");
  m = NULL; /* the job holds it */
  DT_CHECK(job != NULL, ctx, DT_ERR_NOMEM, "out of memory");
  DT_TRY(parse(job, "upload", &model, where, ctx));
  *dim = model->dim;
  *n_nodes = model->n_nodes;
  *n_elements = model->n_elems;
cleanup:
  dt_model_destroy(&model);
  json_decref(job);
  json_decref(ids);
  json_decref(m);
  return rc;
}

/* ---- uploaded Gmsh meshes and Abaqus/CalculiX decks ---- */

/* An uploaded Gmsh file of order-P hexahedra, read as a job on it reads it (ho_mesh_gmsh.h). */
static dt_status msh_check_order_p(const char *path, const char *origin, int *n_nodes,
                                   int *n_elements, dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK, st;
  dt_ho_mesh m;
  dt_ho_gmsh_groups g;
  dt_ctx reader;
  memset(&m, 0, sizeof m);
  memset(&g, 0, sizeof g);
  memset(&reader, 0, sizeof reader);
  st = dt_ho_mesh_read_gmsh(path, 0, &m, &g, &reader);
  if (st != DT_OK) {
    rc = import_failed(st, &reader, path, origin, where, ctx);
    goto cleanup;
  }
  *n_nodes = m.n_nodes;
  *n_elements = m.n_elems;
cleanup:
  dt_ho_gmsh_groups_free(&g);
  dt_ho_mesh_free(&m);
  return rc;
}

dt_status dt_spec_msh_check(const char *path, const char *origin, int *dim, int *n_nodes,
                            int *n_elements, int *order, dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK, st;
  dt_model *m = NULL;
  dt_ctx importer;
  memset(&importer, 0, sizeof importer);
  memset(where, 0, sizeof *where);
  /* the raw reader's errors (a truncated file, a bad section) are the importer's: its line */
  st = dt_ho_gmsh_file_order(path, order, &importer);
  if (st == DT_OK && *order >= 2) {
    *dim = 3;
    rc = msh_check_order_p(path, origin, n_nodes, n_elements, where, ctx);
    goto cleanup;
  }
  *order = 0;
  if (st == DT_OK) st = dt_gmsh_read_file(path, NULL, &m, &importer);
  if (st != DT_OK) {
    rc = import_failed(st, &importer, path, origin, where, ctx);
    goto cleanup;
  }
  *dim = m->dim;
  *n_nodes = m->n_nodes;
  *n_elements = m->n_elems;
  DT_CHECK(*n_elements > 0, ctx, DT_ERR_INPUT,
           "%s: no elements of a supported type (see docs/interop.md)", origin);
cleanup:
  dt_model_destroy(&m);
  return rc;
}

/* The first keyword line that names a file to read (*INCLUDE, *SUBMODEL's INPUT=) of a deck
 * (1-based) into *line and its keyword into name, 0 if none. Lines as the
 * importer reads them: split at '\n', leading white space skipped, "**" a comment; the keyword
 * is the text before the first comma, white space ignored, any case. */
static dt_status find_include(const char *path, int *line, char name[16], dt_ctx *ctx) {
  dt_status rc = DT_OK;
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0;
  int n = 0;
  *line = 0;
  DT_CHECK(f != NULL, ctx, DT_ERR_INTERNAL, "cannot read the stored deck");
  /* getline: a line is everything up to '\n', NUL bytes included; the importer then reads it
   * as a C string (up to a NUL), and so does this check. */
  while (!*line && getline(&buf, &cap, f) >= 0) {
    char kw[16];
    size_t k = 0;
    const char *p = buf;
    n++;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') p++;
    if (p[0] != '*' || p[1] == '*') continue;
    for (; *p && *p != ',' && *p != '\n' && k + 1 < sizeof kw; p++)
      if (!(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
        kw[k++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    kw[k] = '\0';
    if (!strncmp(kw, "*INCLUDE", 8) || !strncmp(kw, "*SUBMODEL", 9))
      *line = n, snprintf(name, 16, "%s", kw[2] == 'N' ? "*INCLUDE" : "*SUBMODEL");
  }
cleanup:
  free(buf);
  if (f) fclose(f);
  return rc;
}

typedef struct warn_sink {
  json_t *list;
  const char *path, *origin;
} warn_sink;

static void on_warning(const char *msg, void *user) {
  warn_sink *w = user;
  char text[1100];
  snprintf(text, sizeof text, "%s", msg);
  dt_text_replace(text, sizeof text, w->path, w->origin);
  if (w->list && json_array_size(w->list) < 100) json_array_append_new(w->list, json_string(text));
}

dt_status dt_spec_deck_build(const char *path, const char *origin, json_t *warnings,
                             dt_model **model, dt_spec_where *where, dt_ctx *ctx) {
  dt_status rc = DT_OK, st;
  dt_import_options opt;
  warn_sink sink = {warnings, path, origin};
  dt_ctx importer;
  int include = 0;
  char kw[16] = "";
  *model = NULL;
  memset(where, 0, sizeof *where);
  DT_TRY(find_include(path, &include, kw, ctx));
  if (include > 0) {
    where->line = include;
    rc =
        DT_ERROR(ctx, DT_ERR_INPUT,
                 "%s:%d: %s is not allowed in an uploaded deck (the daemon reads no files "
                 "named by an upload)%s",
                 origin, include, kw, kw[2] == 'N' ? ": put the included lines into the deck" : "");
    goto cleanup;
  }
  memset(&importer, 0, sizeof importer);
  memset(&opt, 0, sizeof opt);
  opt.warn = on_warning;
  opt.user = &sink;
  st = dt_inp_parse_file(path, &opt, model, &importer);
  if (st != DT_OK) {
    dt_model_destroy(model);
    rc = import_failed(st, &importer, path, origin, where, ctx);
    goto cleanup;
  }
  /* Without a *HEADING the importer titles the job with the deck's path, a path of the
   * server's: the job is untitled instead. */
  if (!strcmp((*model)->title, path)) (*model)->title[0] = '\0';
cleanup:
  return rc;
}

long long dt_spec_min_increments(const dt_model *m) {
  long long n = 0;
  for (int i = 0; i < m->n_steps; i++) {
    const dt_step *s = &m->steps[i];
    /* an automatic step grows its increments up to inc_max of the step, no further */
    if (s->automatic)
      n += s->inc_max > 0 ? (long long)ceil(1.0 / s->inc_max - 1e-9) : 1;
    else
      n += s->n_increments > 0 ? s->n_increments : 1;
  }
  return n;
}
