/* The subset of the JSON job format an order-P run takes (ho_job.h), checked key by key before
 * the job parser reads the job, so that everything else is refused by name rather than
 * silently ignored. Messages read "FILE: PATH: ...", PATH the key's JSON path, as the job
 * parser's do (the daemon reports PATH as the refusal's details.path). Values are checked here
 * only where the subset is narrower than the format (a hardening type, a section kind, a
 * procedure); types and ranges stay the parser's. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/intern.h"
#include "highorder/ho_job_internal.h"

/* Every key of obj must be in keys (NULL-terminated); path names obj in messages. */
static dt_status only_keys(const char *file, const json_t *obj, const char *path,
                           const char *const *keys, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const char *key = NULL;
  json_t *v = NULL;
  char list[256] = "", name[160];

  if (!json_is_object(obj)) return DT_OK; /* the job parser names the type */
  for (int k = 0; keys[k]; k++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", keys[k]);
  json_object_foreach((json_t *)obj, key, v) {
    int found = 0;
    for (int k = 0; keys[k] && !found; k++) found = strcmp(keys[k], key) == 0;
    snprintf(name, sizeof name, "%s%s%s", path, *path ? "." : "", key);
    DT_CHECK(found, ctx, DT_ERR_INPUT,
             "%s: %s: \"%s\" is not supported on an order-P mesh (%s takes only %s)", file, name,
             key, *path ? path : "the job", list);
  }
cleanup:
  return rc;
}

/* obj[key], if a string, must be one of the allowed values. */
static dt_status only_value(const char *file, const json_t *obj, const char *path, const char *key,
                            const char *allowed, const char *why, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
  const char *s = json_is_string(v) ? json_string_value(v) : NULL;
  DT_CHECK(!s || strcmp(s, allowed) == 0, ctx, DT_ERR_INPUT,
           "%s: %s.%s: \"%s\" is not supported on an order-P mesh (%s)", file, path, key, s, why);
cleanup:
  return rc;
}

static dt_status check_material(const char *file, const json_t *mat, const char *path,
                                dt_ctx *ctx) {
  static const char *const top[] = {"name", "elastic", "plastic", NULL},
                           *elastic[] = {"E", "nu", NULL},
                           *plastic[] = {"yield_stress", "hardening", NULL},
                           *hard[] = {"type", "modulus", NULL};
  dt_status rc = DT_OK;
  char p[128];
  const json_t *pl = json_is_object(mat) ? json_object_get(mat, "plastic") : NULL;

  DT_TRY(only_keys(file, mat, path, top, ctx));
  snprintf(p, sizeof p, "%s.elastic", path);
  DT_TRY(only_keys(file, json_object_get(mat, "elastic"), p, elastic, ctx));
  snprintf(p, sizeof p, "%s.plastic", path);
  DT_TRY(only_keys(file, pl, p, plastic, ctx));
  snprintf(p, sizeof p, "%s.plastic.hardening", path);
  DT_TRY(
      only_keys(file, json_is_object(pl) ? json_object_get(pl, "hardening") : NULL, p, hard, ctx));
  DT_TRY(only_value(file, json_is_object(pl) ? json_object_get(pl, "hardening") : NULL, p, "type",
                    "linear", "J2 takes linear hardening here", ctx));
cleanup:
  return rc;
}

static dt_status check_step(const char *file, const json_t *step, dt_ctx *ctx) {
  static const char *const top[] = {"name", "increments", "procedure", "boundary", "loads", NULL},
                           *inc[] = {"type", "count", NULL},
                           *bc[] = {"node_set", "fixed", "displacement", NULL},
                           *load[] = {"type", "surface", "value", NULL};
  dt_status rc = DT_OK;
  char p[96];
  size_t i = 0;
  const json_t *v = NULL, *arr = NULL;

  DT_TRY(only_keys(file, step, "steps[0]", top, ctx));
  DT_TRY(only_value(file, step, "steps[0]", "procedure", "static", "one static step", ctx));
  DT_TRY(only_keys(file, json_object_get(step, "increments"), "steps[0].increments", inc, ctx));
  DT_TRY(only_value(file, json_object_get(step, "increments"), "steps[0].increments", "type",
                    "fixed", "equal increments: {\"type\": \"fixed\", \"count\": n}", ctx));
  arr = json_object_get(step, "boundary");
  json_array_foreach(arr, i, v) {
    snprintf(p, sizeof p, "steps[0].boundary[%zu]", i);
    DT_TRY(only_keys(file, v, p, bc, ctx));
  }
  arr = json_object_get(step, "loads");
  json_array_foreach(arr, i, v) {
    const json_t *t = json_is_object(v) ? json_object_get(v, "type") : NULL;
    snprintf(p, sizeof p, "steps[0].loads[%zu]", i);
    DT_CHECK(!json_is_string(t) || !strcmp(json_string_value(t), "pressure") ||
                 !strcmp(json_string_value(t), "traction"),
             ctx, DT_ERR_INPUT,
             "%s: %s.type: \"%s\" is not supported on an order-P mesh (pressure, traction)", file,
             p, json_string_value(t));
    DT_TRY(only_keys(file, v, p, load, ctx));
  }
cleanup:
  return rc;
}

static dt_status check_root(const char *file, const json_t *root, dt_ctx *ctx) {
  static const char *const top[] = {"ductile", "title",  "materials", "sections",
                                    "steps",   "solver", "output",    NULL},
                           *output[] = {"fields", "vtu", "every", NULL},
                           *sec[] = {"element_set", "material", "kind", "formulation", NULL},
                           *solver[] = {"newton", "linear", NULL},
                           *newton[] = {"max_iterations", "force_tolerance",
                                        "displacement_tolerance", NULL},
                           *linear[] = {"tolerance", "max_iterations", NULL};
  dt_status rc = DT_OK;
  char p[96];
  size_t i = 0;
  const json_t *v = NULL, *steps = json_object_get(root, "steps"),
               *sv = json_object_get(root, "solver");

  DT_TRY(only_keys(file, root, "", top, ctx));
  json_array_foreach(json_object_get(root, "materials"), i, v) {
    snprintf(p, sizeof p, "materials[%zu]", i);
    DT_TRY(check_material(file, v, p, ctx));
  }
  json_array_foreach(json_object_get(root, "sections"), i, v) {
    snprintf(p, sizeof p, "sections[%zu]", i);
    DT_TRY(only_keys(file, v, p, sec, ctx));
    DT_TRY(only_value(file, v, p, "kind", "solid", "hexahedra are solid", ctx));
    DT_TRY(only_value(file, v, p, "formulation", "full",
                      "order-P elements are fully integrated: leave it out or say \"full\"", ctx));
  }
  DT_CHECK(!json_is_array(steps) || json_array_size(steps) <= 1, ctx, DT_ERR_INPUT,
           "%s: steps: %zu steps; an order-P mesh runs one static step", file,
           json_array_size(steps));
  if (json_array_size(steps) == 1) DT_TRY(check_step(file, json_array_get(steps, 0), ctx));
  /* frd (the .frd's element extrapolation is the hex8 path's), points (a point cloud of
   * another file) and monitors (history columns) are not written for order-P meshes */
  DT_TRY(only_keys(file, json_object_get(root, "output"), "output", output, ctx));
  DT_TRY(only_keys(file, sv, "solver", solver, ctx));
  DT_TRY(only_keys(file, json_is_object(sv) ? json_object_get(sv, "newton") : NULL, "solver.newton",
                   newton, ctx));
  DT_TRY(only_keys(file, json_is_object(sv) ? json_object_get(sv, "linear") : NULL, "solver.linear",
                   linear, ctx));
cleanup:
  return rc;
}

dt_status ho_job_check_keys(const char *path, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_error_t err;
  json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);

  if (!root) return DT_OK; /* unreadable or not JSON: the job parser says which */
  DT_TRY(check_root(path, root, ctx));
cleanup:
  json_decref(root);
  return rc;
}
