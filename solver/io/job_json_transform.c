/* The job's "transforms": local nodal coordinate systems (CalculiX's *TRANSFORM,
 * docs/job-format.md),
 *
 *   "transforms": [{"node_set": name, "type": "rectangular" | "cylindrical",
 *                   "a": [x, y, z], "b": [x, y, z]}, ...]
 *
 * rectangular (the default): local x along a, local y in the plane of a and b; cylindrical: a
 * and b two points of the axis, local x radial, y tangential, z along the axis from a to b. The
 * boundary conditions, concentrated forces and equation terms of the set's nodes then name local
 * directions; dt_model_lower_transforms rewrites them in global DOFs once the whole job is read
 * (its refusals name "transforms"). */
#include <string.h>

#include "job_json_internal.h"

static const char *const transform_keys[] = {"node_set", "type", "a", "b", NULL};
static const char *const transform_types[] = {"rectangular", "cylindrical", NULL};

static dt_status parse_transform(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  json_t *vec = NULL;
  char name[DT_NAME_MAX], p[DT_JPATH_MAX];
  double a[3], b[3];
  int set, type = 0;
  dt_ctx sub = {0};

  DT_TRY(dt_jp_object(jp, v, path, transform_keys));
  DT_TRY(dt_jp_get_name(jp, v, path, "node_set", 1, name));
  dt_jp_key(p, path, "node_set");
  set = dt_model_find_nset(jp->m, name);
  DT_JCHECK(set >= 0, jp, p, "unknown node set \"%s\"", name);
  DT_TRY(dt_jp_get_keyword(jp, v, path, "type", 0, transform_types, &type));
  DT_TRY(dt_jp_member(jp, v, path, "a", 1, &vec));
  dt_jp_key(p, path, "a");
  DT_TRY(dt_jp_vector(jp, vec, p, a));
  DT_TRY(dt_jp_member(jp, v, path, "b", 1, &vec));
  dt_jp_key(p, path, "b");
  DT_TRY(dt_jp_vector(jp, vec, p, b));
  DT_TRY(dt_model_add_transform(jp->m, set, type == 1 ? DT_TRANSFORM_CYL : DT_TRANSFORM_RECT, a, b,
                                jp->ctx));
  DT_JCHECK(dt_model_check_transform(jp->m, jp->m->n_transforms - 1, &sub) == DT_OK, jp, path, "%s",
            sub.msg);
cleanup:
  return rc;
}

dt_status dt_jp_transforms(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int n = 0;
  dt_ctx sub = {0};
  DT_TRY(dt_jp_array(jp, v, path, 0, 100000, &n));
  DT_JCHECK(n == 0 || jp->m->dim == 3, jp, path, "local systems need a 3D model");
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_transform(jp, json_array_get(v, (size_t)i), p));
  }
  if (n == 0) goto cleanup;
  if (dt_model_lower_transforms(jp->m, &sub) != DT_OK) {
    DT_JCHECK(sub.code != DT_ERR_INPUT, jp, path, "%s", sub.msg);
    rc = dt_error_set(jp->ctx, sub.code, sub.file, sub.line, sub.func, "%s", sub.msg);
  }
cleanup:
  return rc;
}
