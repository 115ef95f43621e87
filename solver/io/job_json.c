/* The JSON job parser: load the text with Jansson, read the top-level object, build the
 * model part by part, then validate it as a whole with dt_model_finish.
 *
 * Syntax errors are reported as "origin:line:column: message"; every other input error as
 * "origin: json.path: message". Parts are read in dependency order (the mesh defines the sets
 * that materials, sections, steps and monitors refer to). A future format version gets its own
 * branch after the version check. */
#include "job_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "job_json_internal.h"

static const char *const top_keys[] = {"ductile",
                                       "title",
                                       "mesh",
                                       "materials",
                                       "sections",
                                       "steps",
                                       "initial_velocities",
                                       "solver",
                                       "output",
                                       "equations",
                                       "transforms",
                                       "ties",
                                       "rigid_bodies",
                                       "mpcs",
                                       "initial_conditions",
                                       NULL};

/* Jansson's messages plus a hint where the usual cause is not obvious. */
static const char *syntax_hint(const char *text) {
  if (strstr(text, "invalid token near 'NaN'") || strstr(text, "invalid token near 'Infinity'") ||
      strstr(text, "invalid token near '-'") || strstr(text, "invalid token near 'nan'") ||
      strstr(text, "invalid token near 'inf'"))
    return " (JSON has no NaN or Infinity: every number must be finite)";
  if (strstr(text, "real number overflow")) return " (the number is too large for a double)";
  if (strstr(text, "too big integer")) return " (integers must fit in 64 bits)";
  if (strstr(text, "duplicate object key")) return " (each key may appear only once in an object)";
  return "";
}

static dt_status parse_parts(dt_jp *jp, const json_t *root) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  json_t *v = NULL;
  const char *title = NULL;
  int version = 0;

  DT_TRY(dt_jp_object(jp, root, "", top_keys));
  DT_TRY(dt_jp_member(jp, root, "", "ductile", 1, &v));
  DT_JCHECK(json_is_integer(v), jp, "ductile", "expected the format version (an integer), got %s",
            dt_jp_type_name(v));
  version = (int)json_integer_value(v);
  DT_JCHECK(json_integer_value(v) == DT_JOB_FORMAT_VERSION, jp, "ductile",
            "unsupported job format version %lld (this build reads version %d)",
            (long long)json_integer_value(v), DT_JOB_FORMAT_VERSION);
  m->version = version;
  DT_TRY(dt_jp_member(jp, root, "", "title", 0, &v));
  if (v) DT_TRY(dt_jp_string(jp, v, "title", &title));
  DT_JCHECK(!title || strlen(title) < sizeof m->title, jp, "title", "is limited to %zu characters",
            sizeof m->title - 1);
  if (title) snprintf(m->title, sizeof m->title, "%s", title);
  DT_TRY(dt_jp_member(jp, root, "", "mesh", 1, &v));
  DT_TRY(dt_jp_mesh(jp, v, "mesh"));
  DT_TRY(dt_jp_job_parts(jp, root));
cleanup:
  return rc;
}

dt_status dt_jp_job_parts(dt_jp *jp, const json_t *root) {
  dt_status rc = DT_OK;
  json_t *v = NULL;
  DT_TRY(dt_jp_member(jp, root, "", "materials", 1, &v));
  DT_TRY(dt_jp_materials(jp, v, "materials"));
  DT_TRY(dt_jp_member(jp, root, "", "sections", 1, &v));
  DT_TRY(dt_jp_sections(jp, v, "sections"));
  DT_TRY(dt_jp_member(jp, root, "", "steps", 1, &v));
  DT_TRY(dt_jp_steps(jp, v, "steps"));
  DT_TRY(dt_jp_member(jp, root, "", "initial_velocities", 0, &v));
  if (v) DT_TRY(dt_jp_initial_velocities(jp, v, "initial_velocities"));
  DT_TRY(dt_jp_member(jp, root, "", "initial_conditions", 0, &v));
  if (v) DT_TRY(dt_jp_initial_conditions(jp, v, "initial_conditions"));
  DT_TRY(dt_jp_explicit_densities(jp, "materials"));
  DT_TRY(dt_jp_member(jp, root, "", "equations", 0, &v));
  if (v) DT_TRY(dt_jp_equations(jp, v, "equations"));
  DT_TRY(dt_jp_member(jp, root, "", "rigid_bodies", 0, &v));
  if (v) DT_TRY(dt_jp_rigid_bodies(jp, v, "rigid_bodies"));
  DT_TRY(dt_jp_member(jp, root, "", "mpcs", 0, &v));
  if (v) DT_TRY(dt_jp_mpcs(jp, v, "mpcs"));
  DT_TRY(dt_jp_member(jp, root, "", "transforms", 0, &v));
  if (v) DT_TRY(dt_jp_transforms(jp, v, "transforms"));
  DT_TRY(dt_jp_member(jp, root, "", "ties", 0, &v));
  if (v) DT_TRY(dt_jp_ties(jp, v, "ties"));
  DT_TRY(dt_jp_member(jp, root, "", "solver", 0, &v));
  if (v) DT_TRY(dt_jp_solver(jp, v, "solver"));
  DT_TRY(dt_jp_member(jp, root, "", "output", 0, &v));
  if (v) DT_TRY(dt_jp_output(jp, v, "output"));
cleanup:
  return rc;
}

dt_status dt_parse_job_string(const char *text, size_t len, const char *origin, dt_model **out,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_jp jp = {0};
  json_t *root = NULL;
  json_error_t err;
  int ctx_clean = !ctx || ctx->code == DT_OK;

  *out = NULL;
  jp.origin = origin ? origin : "job";
  jp.ctx = ctx;
  root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
  DT_CHECK(root != NULL, ctx, DT_ERR_INPUT, "%s:%d:%d: %s%s", jp.origin, err.line, err.column,
           err.text, syntax_hint(err.text));
  DT_TRY(dt_model_create(&jp.m, ctx));
  DT_TRY(parse_parts(&jp, root));
  rc = dt_model_finish(jp.m, ctx);
  if (rc != DT_OK) {
    if (ctx_clean) dt_ctx_prefix(ctx, jp.origin);
    goto cleanup;
  }
  *out = jp.m;
  jp.m = NULL;
cleanup:
  dt_model_destroy(&jp.m);
  dt_idmap_free(&jp.nodes);
  dt_idmap_free(&jp.elems);
  json_decref(root);
  return rc;
}

/* Read the whole file through dt_malloc, so fault injection covers it too. */
static dt_status read_file(const char *path, char **buf, size_t *len, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  FILE *f = NULL;
  size_t cap = 1 << 16, n = 0, got = 0;
  char *b = NULL, *nb = NULL;

  f = fopen(path, "rb");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot open job file %s: %s", path, strerror(errno));
  DT_CHECK((b = dt_malloc(cap)) != NULL, ctx, DT_ERR_NOMEM, "out of memory reading %s", path);
  while ((got = fread(b + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n < cap) continue;
    DT_CHECK(cap < ((size_t)1 << 40), ctx, DT_ERR_INPUT, "%s: the job file is too large", path);
    DT_CHECK((nb = dt_realloc(b, 2 * cap)) != NULL, ctx, DT_ERR_NOMEM, "out of memory reading %s",
             path);
    b = nb;
    cap *= 2;
  }
  DT_CHECK(!ferror(f), ctx, DT_ERR_IO, "cannot read job file %s: %s", path, strerror(errno));
  *buf = b;
  *len = n;
  b = NULL;
cleanup:
  if (f) fclose(f);
  dt_free(b);
  return rc;
}

dt_status dt_parse_job_file(const char *path, dt_model **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char *text = NULL;
  size_t len = 0;

  *out = NULL;
  DT_TRY(read_file(path, &text, &len, ctx));
  DT_TRY(dt_parse_job_string(text, len, path, out, ctx));
cleanup:
  dt_free(text);
  return rc;
}
