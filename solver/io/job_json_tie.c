/* The job's "ties": slave nodes bound to a master surface (CalculiX's *TIE, docs/job-format.md),
 *
 *   "ties": [{"name": name, "slave_node_set": name | "slave_surface": name,
 *             "master_surface": name, "position_tolerance": d, "adjust": true}, ...]
 *
 * lowered into equations by dt_model_lower_ties once the whole job is read (after the
 * transforms, so every equation is in global DOFs); its refusals name "ties[i]". */
#include <string.h>

#include "job_json_internal.h"

static const char *const tie_keys[] = {
    "name", "slave_node_set", "slave_surface", "master_surface", "position_tolerance", "adjust",
    NULL};

static dt_status parse_tie(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX], p[DT_JPATH_MAX];
  json_t *ns = NULL, *sf = NULL;
  dt_tie t;

  memset(&t, 0, sizeof t);
  t.slave_nset = t.slave_surface = -1;
  t.adjust = 1;
  DT_TRY(dt_jp_object(jp, v, path, tie_keys));
  DT_TRY(dt_jp_get_name(jp, v, path, "name", 1, t.name));
  DT_TRY(dt_jp_member(jp, v, path, "slave_node_set", 0, &ns));
  DT_TRY(dt_jp_member(jp, v, path, "slave_surface", 0, &sf));
  DT_JCHECK((ns != NULL) != (sf != NULL), jp, path,
            "needs one slave side: slave_node_set or slave_surface");
  if (ns) {
    DT_TRY(dt_jp_get_name(jp, v, path, "slave_node_set", 1, name));
    dt_jp_key(p, path, "slave_node_set");
    t.slave_nset = dt_model_find_nset(jp->m, name);
    DT_JCHECK(t.slave_nset >= 0, jp, p, "unknown node set \"%s\"", name);
  } else {
    DT_TRY(dt_jp_get_name(jp, v, path, "slave_surface", 1, name));
    dt_jp_key(p, path, "slave_surface");
    t.slave_surface = dt_model_find_surface(jp->m, name);
    DT_JCHECK(t.slave_surface >= 0, jp, p, "unknown surface \"%s\"", name);
  }
  DT_TRY(dt_jp_get_name(jp, v, path, "master_surface", 1, name));
  dt_jp_key(p, path, "master_surface");
  t.master = dt_model_find_surface(jp->m, name);
  DT_JCHECK(t.master >= 0, jp, p, "unknown surface \"%s\"", name);
  DT_TRY(dt_jp_get_number(jp, v, path, "position_tolerance", 0, &t.tolerance));
  dt_jp_key(p, path, "position_tolerance");
  DT_JCHECK(t.tolerance >= 0, jp, p, "must be a positive distance (got %g)", t.tolerance);
  DT_TRY(dt_jp_get_bool(jp, v, path, "adjust", 0, &t.adjust));
  DT_TRY(dt_model_add_tie(jp->m, &t, jp->ctx));
cleanup:
  return rc;
}

dt_status dt_jp_ties(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int n = 0, bad = -1;
  dt_ctx sub = {0};
  DT_TRY(dt_jp_array(jp, v, path, 0, 100000, &n));
  DT_JCHECK(n == 0 || jp->m->dim == 3, jp, path, "ties need a 3D model");
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_tie(jp, json_array_get(v, (size_t)i), p));
  }
  if (n == 0) goto cleanup;
  if (dt_model_lower_ties(jp->m, NULL, NULL, &bad, &sub) != DT_OK) {
    if (bad >= 0) dt_jp_index(p, path, (size_t)bad);
    DT_JCHECK(sub.code != DT_ERR_INPUT, jp, bad >= 0 ? p : path, "%s", sub.msg);
    rc = dt_error_set(jp->ctx, sub.code, sub.file, sub.line, sub.func, "%s", sub.msg);
  }
cleanup:
  return rc;
}
