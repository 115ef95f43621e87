/* The job's "equations": linear multi-point constraints (docs/job-format.md),
 *
 *   "equations": [{"terms": [[node id, dof, coefficient], ...]}, ...]
 *
 * sum coefficient * u(node, dof) = 0, the first term's DOF dependent (eliminated). A DOF is
 * "x", "y", "z" or 1-3 (the deck's numbers). The terms are checked here (ids, DOFs, numbers);
 * the rules that concern the whole model (boundary conditions, dependent DOFs, cycles) are
 * dt_model_finish's, with the path "equations[i]". */
#include <string.h>

#include "job_json_internal.h"

static const char *const eq_keys[] = {"terms", NULL};
static const char *const dof_names[] = {"x", "y", "z", NULL};

/* A DOF as "x", "y", "z" or 1-3, into 0-2. */
static dt_status parse_dof(dt_jp *jp, const json_t *v, const char *path, int *out) {
  dt_status rc = DT_OK;
  if (json_is_string(v)) return dt_jp_keyword(jp, v, path, dof_names, out);
  DT_TRY(dt_jp_int(jp, v, path, 1, 3, out));
  (*out)--;
cleanup:
  return rc;
}

static dt_status parse_term(dt_jp *jp, const json_t *t, const char *path, int *node, int *dof,
                            double *coef) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int64_t id = 0;
  int n = 0;
  DT_TRY(dt_jp_array(jp, t, path, 3, 3, &n));
  dt_jp_index(p, path, 0);
  DT_TRY(dt_jp_integer(jp, json_array_get(t, 0), p, 0, DT_JP_ID_MAX, &id));
  *node = dt_idmap_find(&jp->nodes, id);
  DT_JCHECK(*node >= 0, jp, p, "node id %lld does not exist", (long long)id);
  dt_jp_index(p, path, 1);
  DT_TRY(parse_dof(jp, json_array_get(t, 1), p, dof));
  DT_JCHECK(*dof < jp->m->dim, jp, p, "z is not a DOF of a 2D model");
  dt_jp_index(p, path, 2);
  DT_TRY(dt_jp_number(jp, json_array_get(t, 2), p, coef));
cleanup:
  return rc;
}

static dt_status parse_equation(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX], q[DT_JPATH_MAX];
  json_t *terms = NULL;
  int n = 0, *node = NULL, *dof = NULL;
  double *coef = NULL;
  DT_TRY(dt_jp_object(jp, v, path, eq_keys));
  DT_TRY(dt_jp_member(jp, v, path, "terms", 1, &terms));
  dt_jp_key(p, path, "terms");
  DT_TRY(dt_jp_array(jp, terms, p, 1, 100000, &n));
  DT_ALLOC(node, n, jp->ctx, "equation terms");
  DT_ALLOC(dof, n, jp->ctx, "equation terms");
  DT_ALLOC(coef, n, jp->ctx, "equation terms");
  for (int k = 0; k < n; k++) {
    dt_jp_index(q, p, (size_t)k);
    DT_TRY(parse_term(jp, json_array_get(terms, (size_t)k), q, &node[k], &dof[k], &coef[k]));
  }
  DT_JCHECK(coef[0] != 0.0, jp, p,
            "the first term is the dependent DOF and needs a nonzero coefficient");
  DT_TRY(dt_model_add_equation(jp->m, n, node, dof, coef, jp->ctx));
cleanup:
  dt_free(node);
  dt_free(dof);
  dt_free(coef);
  return rc;
}

dt_status dt_jp_equations(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int n = 0;
  DT_TRY(dt_jp_array(jp, v, path, 0, 10000000, &n));
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_equation(jp, json_array_get(v, (size_t)i), p));
  }
cleanup:
  return rc;
}
