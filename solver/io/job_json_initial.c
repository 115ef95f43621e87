/* The job's "initial_conditions": initial stresses and plastic strains of elements
 * (dt_initial_state; the deck's *INITIAL CONDITIONS, TYPE=STRESS and TYPE=PLASTIC STRAIN).
 *
 *   {"type": "stress" | "plastic_strain",
 *    "element": id | "element_set": name   (neither: every element),
 *    "point": n                            (1-based integration point; absent: every point),
 *    "value": [xx, yy, zz, xy, xz, yz]     (tensor shears; absent: zeros),
 *    "gradient": [[d/dx, d/dy, d/dz] x 6]  (per component, at the point's coordinates)}
 *
 * The rules that need the whole model (points that exist, continuum elements, static steps)
 * are dt_model_check_initial's, run by dt_model_finish. */
#include <string.h>

#include "job_json_internal.h"

static const char *const initial_keys[] = {"type",  "element",  "element_set", "point",
                                           "value", "gradient", NULL};
static const char *const initial_types[] = {"stress", "plastic_strain", NULL}; /* dt_initial_kind */

/* An array of n numbers into out. */
static dt_status numbers(dt_jp *jp, const json_t *v, const char *path, int n, double *out) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int got = 0;
  DT_TRY(dt_jp_array(jp, v, path, (size_t)n, (size_t)n, &got));
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(dt_jp_number(jp, json_array_get(v, (size_t)i), p, &out[i]));
  }
cleanup:
  return rc;
}

static dt_status parse_initial(dt_jp *jp, const json_t *v, const char *path, dt_initial_state *s) {
  dt_status rc = DT_OK;
  json_t *x = NULL;
  char p[DT_JPATH_MAX], name[DT_NAME_MAX];
  int64_t id = 0;
  int kind = 0;

  memset(s, 0, sizeof *s);
  s->elset = s->elem = s->point = -1;
  DT_TRY(dt_jp_object(jp, v, path, initial_keys));
  DT_TRY(dt_jp_get_keyword(jp, v, path, "type", 1, initial_types, &kind));
  s->kind = kind;
  DT_TRY(dt_jp_member(jp, v, path, "element", 0, &x));
  dt_jp_key(p, path, "element");
  if (x) {
    DT_TRY(dt_jp_integer(jp, x, p, 0, DT_JP_ID_MAX, &id));
    s->elem = dt_idmap_find(&jp->elems, id);
    DT_JCHECK(s->elem >= 0, jp, p, "element id %lld does not exist", (long long)id);
  }
  DT_TRY(dt_jp_member(jp, v, path, "element_set", 0, &x));
  dt_jp_key(p, path, "element_set");
  if (x) {
    DT_JCHECK(s->elem < 0, jp, p, "give \"element\" or \"element_set\", not both");
    DT_TRY(dt_jp_name(jp, x, p, name));
    s->elset = dt_model_find_elset(jp->m, name);
    DT_JCHECK(s->elset >= 0, jp, p, "unknown element set \"%s\"", name);
  }
  DT_TRY(dt_jp_member(jp, v, path, "point", 0, &x));
  dt_jp_key(p, path, "point");
  if (x) {
    DT_TRY(dt_jp_int(jp, x, p, 1, 1000, &s->point));
    s->point -= 1;
  }
  DT_TRY(dt_jp_member(jp, v, path, "value", 0, &x));
  dt_jp_key(p, path, "value");
  if (x) DT_TRY(numbers(jp, x, p, 6, s->value));
  DT_TRY(dt_jp_member(jp, v, path, "gradient", 0, &x));
  dt_jp_key(p, path, "gradient");
  if (x) {
    char q[DT_JPATH_MAX];
    int n = 0;
    DT_TRY(dt_jp_array(jp, x, p, 6, 6, &n));
    for (int c = 0; c < 6; c++) {
      dt_jp_index(q, p, (size_t)c);
      DT_TRY(numbers(jp, json_array_get(x, (size_t)c), q, 3, s->grad[c]));
    }
  }
cleanup:
  return rc;
}

dt_status dt_jp_initial_conditions(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  char p[DT_JPATH_MAX];
  int n = 0;

  DT_TRY(dt_jp_array(jp, v, path, 0, 10000000, &n));
  for (int i = 0; i < n; i++) {
    dt_initial_state s;
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_initial(jp, json_array_get(v, (size_t)i), p, &s));
    DT_TRY(dt_model_add_initial_state(m, &s, jp->ctx));
  }
cleanup:
  return rc;
}
