/* Typed JSON getters that name the JSON path of the offending value, and user-id maps.
 *
 * Every getter checks the type (numbers must be finite, integers must be in range, names must
 * fit DT_NAME_MAX) and reports "origin: path: expected X, got Y" otherwise. Objects are strict:
 * dt_jp_object rejects keys that are not listed, so a typo never passes silently. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_json_internal.h"

dt_status dt_jp_error(dt_jp *jp, const char *path, const char *file, int line, const char *func,
                      const char *fmt, ...) {
  char msg[768];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (path && path[0])
    return dt_error_set(jp->ctx, DT_ERR_INPUT, file, line, func, "%s: %s: %s", jp->origin, path,
                        msg);
  return dt_error_set(jp->ctx, DT_ERR_INPUT, file, line, func, "%s: %s", jp->origin, msg);
}

void dt_jp_key(char *dst, const char *parent, const char *key) {
  if (parent && parent[0])
    snprintf(dst, DT_JPATH_MAX, "%s.%s", parent, key);
  else
    snprintf(dst, DT_JPATH_MAX, "%s", key);
}

void dt_jp_index(char *dst, const char *parent, size_t i) {
  snprintf(dst, DT_JPATH_MAX, "%s[%zu]", parent, i);
}

const char *dt_jp_type_name(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER: return "an integer";
  case JSON_REAL: return "a number";
  case JSON_TRUE:
  case JSON_FALSE: return "a boolean";
  case JSON_NULL: return "null";
  }
  return "an unknown value";
}

/* "a, b, c" from a NULL-terminated list. */
static void join_words(char *dst, size_t n, const char *const *words) {
  size_t used = 0;

  dst[0] = '\0';
  for (int i = 0; words[i] && used < n; i++)
    used += (size_t)snprintf(dst + used, n - used, "%s%s", i ? ", " : "", words[i]);
}

dt_status dt_jp_object(dt_jp *jp, const json_t *v, const char *path, const char *const *allowed) {
  dt_status rc = DT_OK;
  const char *key = NULL;
  json_t *val = NULL;
  char list[512];

  DT_JCHECK(json_is_object(v), jp, path, "expected an object, got %s", dt_jp_type_name(v));
  json_object_foreach((json_t *)v, key, val) {
    int known = 0;
    for (int i = 0; allowed && allowed[i] && !known; i++) known = strcmp(key, allowed[i]) == 0;
    if (!known) {
      join_words(list, sizeof list, allowed);
      DT_JCHECK(0, jp, path, "unknown key \"%s\" (allowed: %s)", key, list);
    }
  }
cleanup:
  return rc;
}

dt_status dt_jp_array(dt_jp *jp, const json_t *v, const char *path, size_t min, size_t max,
                      int *n) {
  dt_status rc = DT_OK;
  size_t len = 0;

  DT_JCHECK(json_is_array(v), jp, path, "expected an array, got %s", dt_jp_type_name(v));
  len = json_array_size(v);
  if (max > (size_t)INT32_MAX) max = (size_t)INT32_MAX;
  DT_JCHECK(len >= min, jp, path,
            min == 1 ? "must not be empty" : "must have at least %zu entries (got %zu)", min, len);
  DT_JCHECK(len <= max, jp, path, "must have at most %zu entries (got %zu)", max, len);
  if (n) *n = (int)len;
cleanup:
  return rc;
}

dt_status dt_jp_number(dt_jp *jp, const json_t *v, const char *path, double *out) {
  dt_status rc = DT_OK;

  DT_JCHECK(json_is_number(v), jp, path, "expected a number, got %s", dt_jp_type_name(v));
  DT_JCHECK(isfinite(json_number_value(v)), jp, path, "must be a finite number");
  *out = json_number_value(v);
cleanup:
  return rc;
}

dt_status dt_jp_integer(dt_jp *jp, const json_t *v, const char *path, int64_t lo, int64_t hi,
                        int64_t *out) {
  dt_status rc = DT_OK;
  int64_t x = 0;

  /* Integral reals (1e3, 4.0) are accepted: generators often write them. */
  if (json_is_real(v)) {
    double d = json_real_value(v);
    DT_JCHECK(d == floor(d) && fabs(d) < 9.2e18, jp, path, "expected an integer, got %g", d);
    x = (int64_t)d;
  } else {
    DT_JCHECK(json_is_integer(v), jp, path, "expected an integer, got %s", dt_jp_type_name(v));
    x = (int64_t)json_integer_value(v);
  }
  DT_JCHECK(x >= lo && x <= hi, jp, path, "must be between %lld and %lld (got %lld)", (long long)lo,
            (long long)hi, (long long)x);
  *out = x;
cleanup:
  return rc;
}

dt_status dt_jp_int(dt_jp *jp, const json_t *v, const char *path, int lo, int hi, int *out) {
  dt_status rc = DT_OK;
  int64_t x = 0;

  DT_TRY(dt_jp_integer(jp, v, path, lo, hi, &x));
  *out = (int)x;
cleanup:
  return rc;
}

dt_status dt_jp_bool(dt_jp *jp, const json_t *v, const char *path, int *out) {
  dt_status rc = DT_OK;

  DT_JCHECK(json_is_boolean(v), jp, path, "expected true or false, got %s", dt_jp_type_name(v));
  *out = json_is_true(v);
cleanup:
  return rc;
}

dt_status dt_jp_string(dt_jp *jp, const json_t *v, const char *path, const char **out) {
  dt_status rc = DT_OK;

  DT_JCHECK(json_is_string(v), jp, path, "expected a string, got %s", dt_jp_type_name(v));
  *out = json_string_value(v);
cleanup:
  return rc;
}

dt_status dt_jp_name(dt_jp *jp, const json_t *v, const char *path, char out[DT_NAME_MAX]) {
  dt_status rc = DT_OK;
  const char *s = NULL;

  DT_TRY(dt_jp_string(jp, v, path, &s));
  DT_JCHECK(s[0] != '\0', jp, path, "must not be empty");
  DT_JCHECK(strlen(s) < DT_NAME_MAX, jp, path, "names are limited to %d characters",
            DT_NAME_MAX - 1);
  snprintf(out, DT_NAME_MAX, "%s", s);
cleanup:
  return rc;
}

dt_status dt_jp_keyword(dt_jp *jp, const json_t *v, const char *path, const char *const *words,
                        int *out) {
  dt_status rc = DT_OK;
  const char *s = NULL;
  char list[256];

  DT_TRY(dt_jp_string(jp, v, path, &s));
  for (int i = 0; words[i]; i++)
    if (strcmp(s, words[i]) == 0) {
      *out = i;
      goto cleanup;
    }
  join_words(list, sizeof list, words);
  DT_JCHECK(0, jp, path, "unknown value \"%s\" (expected one of: %s)", s, list);
cleanup:
  return rc;
}

dt_status dt_jp_vector(dt_jp *jp, const json_t *v, const char *path, double out[3]) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int n = 0, dim = jp->m->dim;

  DT_JCHECK(json_is_array(v), jp, path, "expected an array of %d numbers, got %s", dim,
            dt_jp_type_name(v));
  n = (int)json_array_size(v);
  DT_JCHECK(n == 3 || (n == 2 && dim == 2), jp, path, "expected %s numbers (got %d)",
            dim == 3 ? "3" : "2 or 3", n);
  out[2] = 0;
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(dt_jp_number(jp, json_array_get(v, (size_t)i), p, &out[i]));
  }
  DT_JCHECK(dim == 3 || out[2] == 0, jp, path, "the z component must be 0 in a 2D model (got %g)",
            out[2]);
cleanup:
  return rc;
}

dt_status dt_jp_member(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                       int required, json_t **v) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];

  *v = json_object_get(obj, key);
  if (*v == NULL && required) {
    dt_jp_key(p, path, key);
    DT_JCHECK(0, jp, p, "missing required field");
  }
cleanup:
  return rc;
}

/* Shared body of the dt_jp_get_* getters: fetch the member, build its path, run the check. */
#define GET_MEMBER(check_call)                                                                     \
  dt_status rc = DT_OK;                                                                            \
  json_t *v = NULL;                                                                                \
  char p[DT_JPATH_MAX];                                                                            \
  DT_TRY(dt_jp_member(jp, obj, path, key, required, &v));                                          \
  if (v == NULL) goto cleanup;                                                                     \
  dt_jp_key(p, path, key);                                                                         \
  DT_TRY(check_call);                                                                              \
  cleanup:                                                                                         \
  return rc

dt_status dt_jp_get_number(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                           int required, double *out) {
  GET_MEMBER(dt_jp_number(jp, v, p, out));
}

dt_status dt_jp_get_int(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                        int required, int lo, int hi, int *out) {
  GET_MEMBER(dt_jp_int(jp, v, p, lo, hi, out));
}

dt_status dt_jp_get_bool(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                         int required, int *out) {
  GET_MEMBER(dt_jp_bool(jp, v, p, out));
}

dt_status dt_jp_get_name(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                         int required, char out[DT_NAME_MAX]) {
  GET_MEMBER(dt_jp_name(jp, v, p, out));
}

dt_status dt_jp_get_keyword(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                            int required, const char *const *words, int *out) {
  GET_MEMBER(dt_jp_keyword(jp, v, p, words, out));
}

typedef struct id_pair {
  int64_t id;
  int index;
} id_pair;

static int pair_cmp(const void *a, const void *b) {
  const id_pair *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->index - y->index;
}

dt_status dt_idmap_build(dt_jp *jp, dt_idmap *map, const int64_t *ids, int n, const char *path,
                         const char *what) {
  dt_status rc = DT_OK;
  id_pair *pairs = NULL;

  DT_ALLOC(pairs, n, jp->ctx, "an id map");
  DT_ALLOC(map->id, n, jp->ctx, "an id map");
  DT_ALLOC(map->index, n, jp->ctx, "an id map");
  for (int i = 0; i < n; i++) pairs[i] = (id_pair){ids[i], i};
  qsort(pairs, (size_t)n, sizeof *pairs, pair_cmp);
  for (int i = 0; i < n; i++) {
    DT_JCHECK(i == 0 || pairs[i].id != pairs[i - 1].id, jp, path, "duplicate %s id %lld", what,
              (long long)pairs[i].id);
    map->id[i] = pairs[i].id;
    map->index[i] = pairs[i].index;
  }
  map->n = n;
cleanup:
  dt_free(pairs);
  return rc;
}

int dt_idmap_find(const dt_idmap *map, int64_t id) {
  int lo = 0, hi = map->n - 1;

  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (map->id[mid] == id) return map->index[mid];
    if (map->id[mid] < id)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

void dt_idmap_free(dt_idmap *map) {
  DT_FREE(map->id);
  DT_FREE(map->index);
  map->n = 0;
}
