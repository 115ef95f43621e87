/* The importers' id -> index map (io/import_common_internal.h): dense ids (a direct table),
 * sparse ids (binary search), unsorted input, ids at the ends of int64's range, lookups of ids
 * that are not there, and duplicates reported by position. Every lookup is checked against a
 * linear scan of the ids, the reference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/import_common_internal.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static int scan(const int64_t *ids, int n, int64_t id) {
  for (int i = 0; i < n; i++)
    if (ids[i] == id) return i;
  return -1;
}

/* Build from ids, then look up every id, its neighbours and the given probes. */
static void check_map(const char *what, const int64_t *ids, int n, const int64_t *probes,
                      int n_probes, int want_direct) {
  dt_imp_idmap map = {0};
  dt_ctx ctx = {0};
  int a, b;
  CHECK(dt_imp_idmap_build(&map, ids, n, &a, &b, &ctx) == DT_OK, "%s: build: %s", what, ctx.msg);
  CHECK(a < 0 && b < 0, "%s: no duplicates, got %d %d", what, a, b);
  CHECK((map.direct != NULL) == want_direct, "%s: direct table %s", what,
        want_direct ? "expected" : "not expected");
  for (int i = 0; i < n; i++) {
    CHECK(dt_imp_idmap_find(&map, ids[i]) == i, "%s: id %lld -> %d, want %d", what,
          (long long)ids[i], dt_imp_idmap_find(&map, ids[i]), i);
    if (ids[i] > INT64_MIN)
      CHECK(dt_imp_idmap_find(&map, ids[i] - 1) == scan(ids, n, ids[i] - 1), "%s: id %lld", what,
            (long long)(ids[i] - 1));
    if (ids[i] < INT64_MAX)
      CHECK(dt_imp_idmap_find(&map, ids[i] + 1) == scan(ids, n, ids[i] + 1), "%s: id %lld", what,
            (long long)(ids[i] + 1));
  }
  for (int i = 0; i < n_probes; i++)
    CHECK(dt_imp_idmap_find(&map, probes[i]) == scan(ids, n, probes[i]), "%s: probe %lld", what,
          (long long)probes[i]);
  dt_imp_idmap_free(&map);
  CHECK(map.n == 0 && !map.direct && !map.id, "%s: freed", what);
}

int main(void) {
  enum { N = 1000 };
  static int64_t ids[N];
  const int64_t probes[] = {0, -1, 1, 7, 999, 1000, 1001, 5000, INT64_MIN, INT64_MAX, -7};
  const int np = (int)(sizeof probes / sizeof probes[0]);

  for (int i = 0; i < N; i++) ids[i] = i + 1; /* a mesher's numbering */
  check_map("dense 1..N", ids, N, probes, np, 1);
  for (int i = 0; i < N; i++) ids[i] = N - i; /* the same ids, descending */
  check_map("dense, descending", ids, N, probes, np, 1);
  for (int i = 0; i < N; i++) ids[i] = 1 + 2 * (int64_t)((i * 7919) % N); /* odd, shuffled */
  check_map("every other id, shuffled", ids, N, probes, np, 1);
  for (int i = 0; i < N; i++) ids[i] = (int64_t)i * 1000003 - 500000000; /* sparse, negative */
  check_map("sparse", ids, N, probes, np, 0);
  {
    const int64_t ends[] = {INT64_MIN, -3, 0, 5, INT64_MAX};
    check_map("the ends of int64", ends, 5, probes, np, 0);
    const int64_t top[] = {INT64_MAX - 2, INT64_MAX, INT64_MAX - 1};
    check_map("dense at INT64_MAX", top, 3, probes, np, 1);
    const int64_t bottom[] = {INT64_MIN + 1, INT64_MIN};
    check_map("dense at INT64_MIN", bottom, 2, probes, np, 1);
  }
  {
    const int64_t dup[] = {4, 5, 6, 5, 7};
    dt_imp_idmap map = {0};
    dt_ctx ctx = {0};
    int a, b;
    CHECK(dt_imp_idmap_build(&map, dup, 5, &a, &b, &ctx) == DT_OK, "duplicates: build");
    CHECK(a == 1 && b == 3, "duplicates at positions 1 and 3, got %d and %d", a, b);
    dt_imp_idmap_free(&map);
  }
  if (failures) return 1;
  printf("PASS\n");
  return 0;
}
