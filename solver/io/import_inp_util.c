/* Shared importer helpers (used by import_inp*.c and import_gmsh*.c): file reading, id maps,
 * growable sets, element orientation, and dt_import_file, which picks the importer.
 *
 * Both importers keep user ids and map them to 0-based indices through a sorted map, as the
 * JSON parser does; orientation helpers let the Gmsh importer turn elements that a CAD surface
 * normal left clockwise (or a volume left inverted) into the CalculiX orientation. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../element/element.h"
#include "model/model_internal.h"
#include "import_common_internal.h"

dt_status dt_imp_read_file(const char *path, const char *what, char **buf, size_t *len,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  FILE *f = NULL;
  size_t cap = 1 << 16, n = 0, got = 0;
  char *b = NULL, *nb = NULL;

  f = fopen(path, "rb");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot open %s %s: %s", what, path, strerror(errno));
  DT_CHECK((b = dt_malloc(cap)) != NULL, ctx, DT_ERR_NOMEM, "out of memory reading %s", path);
  while ((got = fread(b + n, 1, cap - 1 - n, f)) > 0) {
    n += got;
    if (n < cap - 1) continue;
    DT_CHECK(cap < ((size_t)1 << 40), ctx, DT_ERR_INPUT, "%s: the file is too large", path);
    DT_CHECK((nb = dt_realloc(b, 2 * cap)) != NULL, ctx, DT_ERR_NOMEM, "out of memory reading %s",
             path);
    b = nb;
    cap *= 2;
  }
  DT_CHECK(!ferror(f), ctx, DT_ERR_IO, "cannot read %s %s: %s", what, path, strerror(errno));
  b[n] = '\0';
  *buf = b;
  *len = n;
  b = NULL;
cleanup:
  if (f) fclose(f);
  dt_free(b);
  return rc;
}

typedef struct id_pos {
  int64_t id;
  int pos;
} id_pos;

static int id_pos_cmp(const void *a, const void *b) {
  const id_pos *x = a, *y = b;
  if (x->id != y->id) return (x->id > y->id) - (x->id < y->id);
  return (x->pos > y->pos) - (x->pos < y->pos);
}

dt_status dt_imp_idmap_build(dt_imp_idmap *map, const int64_t *ids, int n, int *dup_a, int *dup_b,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  id_pos *tmp = NULL;

  dt_imp_idmap_free(map);
  *dup_a = *dup_b = -1;
  DT_ALLOC(tmp, n, ctx, "an id map");
  DT_ALLOC(map->id, n, ctx, "an id map");
  DT_ALLOC(map->index, n, ctx, "an id map");
  int sorted = 1;
  for (int i = 0; i < n; i++) {
    tmp[i].id = ids[i], tmp[i].pos = i;
    if (i > 0 && ids[i] <= ids[i - 1]) sorted = 0;
  }
  if (!sorted) qsort(tmp, (size_t)n, sizeof *tmp, id_pos_cmp);
  for (int i = 0; i < n; i++) {
    map->id[i] = tmp[i].id;
    map->index[i] = tmp[i].pos;
    if (i > 0 && tmp[i].id == tmp[i - 1].id && *dup_a < 0)
      *dup_a = tmp[i - 1].pos, *dup_b = tmp[i].pos;
  }
  map->n = n;
  /* a direct table where it costs at most twice the sorted arrays' memory */
  if (n > 0 && *dup_a < 0 &&
      (uint64_t)map->id[n - 1] - (uint64_t)map->id[0] < 2 * (uint64_t)n + 64) {
    map->base = map->id[0];
    map->span = (int64_t)((uint64_t)map->id[n - 1] - (uint64_t)map->id[0]) + 1;
    DT_ALLOC(map->direct, (size_t)map->span, ctx, "an id map");
    for (int64_t k = 0; k < map->span; k++) map->direct[k] = -1;
    for (int i = 0; i < n; i++)
      map->direct[(uint64_t)map->id[i] - (uint64_t)map->base] = map->index[i];
  }
cleanup:
  dt_free(tmp);
  return rc;
}

int dt_imp_idmap_find(const dt_imp_idmap *map, int64_t id) {
  int lo = 0, hi = map->n - 1;

  if (map->direct) { /* unsigned: an id far outside the range cannot overflow the difference */
    uint64_t k = (uint64_t)id - (uint64_t)map->base;
    return k < (uint64_t)map->span ? map->direct[k] : -1;
  }

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

void dt_imp_idmap_free(dt_imp_idmap *map) {
  DT_FREE(map->id);
  DT_FREE(map->index);
  DT_FREE(map->direct);
  map->n = 0;
  map->base = map->span = 0;
}

dt_status dt_imp_reserve(void **p, int *cap, size_t need, size_t size, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t c = *cap > 0 ? (size_t)*cap : 16;
  void *q = NULL;

  if (need <= (size_t)*cap) return DT_OK;
  while (c < need) c *= 2;
  DT_CHECK(c < (size_t)INT32_MAX, ctx, DT_ERR_INPUT, "too many items for this build (%zu)", need);
  q = dt_realloc(*p, c * size);
  DT_CHECK(q != NULL, ctx, DT_ERR_NOMEM, "out of memory growing an array to %zu items", c);
  *p = q;
  *cap = (int)c;
cleanup:
  return rc;
}

dt_status dt_imp_set_add(dt_set *s, int *cap, int item, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  DT_TRY(dt_imp_reserve((void **)&s->items, cap, (size_t)s->n + 1, sizeof *s->items, ctx));
  s->items[s->n++] = item;
cleanup:
  return rc;
}

static int int_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

void dt_imp_set_normalize(dt_set *s) {
  int k = 0, sorted = 1;

  if (s->n == 0) return;
  /* sets are mostly written in ascending order (NALL, EALL): a check is cheaper than a sort */
  for (int i = 1; i < s->n && sorted; i++) sorted = s->items[i] >= s->items[i - 1];
  if (!sorted) qsort(s->items, (size_t)s->n, sizeof *s->items, int_cmp);
  for (int i = 0; i < s->n; i++)
    if (k == 0 || s->items[i] != s->items[k - 1]) s->items[k++] = s->items[i];
  s->n = k;
}

void dt_imp_warn(const dt_import_options *opt, const char *fmt, ...) {
  char msg[512];
  va_list ap;

  if (!opt || !opt->warn) return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  opt->warn(msg, opt->user);
}

int dt_imp_face_corners(int type, int face, int *local) {
  int all[DT_FACE_MAX_NODES], n = dt_face_nnodes(type, face);

  dt_face_local_nodes(type, face, all);
  if (type == DT_ELEM_TET10) n = 3; /* corners only: matching ignores midside nodes */
  if (type == DT_ELEM_HEX20 || type == DT_ELEM_HEX20R) n = 4;
  if (type == DT_ELEM_WEDGE15) n = face < 2 ? 3 : 4; /* a triangle's or a quadrilateral's */
  if (type == DT_ELEM_QUAD8 || type == DT_ELEM_QUAD8R || type == DT_ELEM_QUAD9 ||
      type == DT_ELEM_QUAD16)
    n = 2; /* edge ends */
  memcpy(local, all, (size_t)n * sizeof *local);
  return n;
}

/* Triple product (b - a) x (c - a) . (d - a). */
static double vol6(const double *a, const double *b, const double *c, const double *d) {
  double u[3], v[3], w[3];

  for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
  return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
         u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static double area2(const double *a, const double *b, const double *c) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

double dt_imp_orientation(int type, const double *X) {
#define P(i) (&X[3 * (i)])
  switch (type) {
  case DT_ELEM_TRI3: return area2(P(0), P(1), P(2));
  case DT_ELEM_QUAD4:
  case DT_ELEM_QUAD8:
  case DT_ELEM_QUAD8R:
  case DT_ELEM_QUAD9:
  case DT_ELEM_QUAD16: return area2(P(0), P(1), P(2)) + area2(P(0), P(2), P(3)); /* corners */
  case DT_ELEM_TET4:
  case DT_ELEM_TET10: return vol6(P(0), P(1), P(2), P(3));
  case DT_ELEM_HEX8:
  case DT_ELEM_HEX8R:
  case DT_ELEM_HEX8I:
  case DT_ELEM_HEX20:
  case DT_ELEM_HEX20R: /* the corners' 5-tet split: the sum has the sign of the orientation */
    return vol6(P(0), P(1), P(3), P(4)) + vol6(P(1), P(2), P(3), P(6)) +
           vol6(P(1), P(4), P(6), P(5)) + vol6(P(3), P(6), P(4), P(7)) +
           vol6(P(1), P(3), P(4), P(6));
  case DT_ELEM_WEDGE6:
  case DT_ELEM_WEDGE15: /* the corners' 3-tet split */
    return vol6(P(0), P(1), P(2), P(3)) + vol6(P(1), P(2), P(3), P(4)) +
           vol6(P(2), P(3), P(4), P(5));
  default: return 0;
  }
#undef P
}

void dt_imp_flip(int type, int *c) {
  int t[DT_ELEM_MAX_NODES];
  static const int tet10[10] = {0, 2, 1, 3, 6, 5, 4, 7, 9, 8};
  /* quadrilaterals mirrored about the diagonal 1-3 (xi <-> eta; element.h's node order) */
  static const int quad9[9] = {0, 3, 2, 1, 7, 6, 5, 4, 8};
  static const int quad16[16] = {0, 3, 2, 1, 11, 10, 9, 8, 7, 6, 5, 4, 12, 15, 14, 13};
  static const int hex8[8] = {4, 5, 6, 7, 0, 1, 2, 3};
  /* hex20: top and bottom swapped, their edges with them; the vertical edges keep their nodes */
  static const int hex20[20] = {4,  5,  6, 7, 0,  1,  2,  3,  12, 13,
                                14, 15, 8, 9, 10, 11, 16, 17, 18, 19};
  /* wedges: top and bottom triangles swapped, their edges with them; the axial edges keep theirs */
  static const int wedge15[15] = {3, 4, 5, 0, 1, 2, 9, 10, 11, 6, 7, 8, 12, 13, 14};
  int n = dt_model_elem_nnodes(type);

  memcpy(t, c, (size_t)n * sizeof *c);
  switch (type) {
  case DT_ELEM_TRI3:
  case DT_ELEM_TET4: c[1] = t[2], c[2] = t[1]; break;
  case DT_ELEM_QUAD4: c[1] = t[3], c[3] = t[1]; break;
  case DT_ELEM_TET10:
    for (int a = 0; a < 10; a++) c[a] = t[tet10[a]];
    break;
  case DT_ELEM_QUAD8:
  case DT_ELEM_QUAD8R:
  case DT_ELEM_QUAD9:
    for (int a = 0; a < n; a++) c[a] = t[quad9[a]];
    break;
  case DT_ELEM_QUAD16:
    for (int a = 0; a < 16; a++) c[a] = t[quad16[a]];
    break;
  case DT_ELEM_HEX8:
  case DT_ELEM_HEX8R:
  case DT_ELEM_HEX8I:
    for (int a = 0; a < 8; a++) c[a] = t[hex8[a]];
    break;
  case DT_ELEM_HEX20:
  case DT_ELEM_HEX20R:
    for (int a = 0; a < 20; a++) c[a] = t[hex20[a]];
    break;
  case DT_ELEM_WEDGE6:
  case DT_ELEM_WEDGE15:
    for (int a = 0; a < n; a++) c[a] = t[wedge15[a]];
    break;
  default: break;
  }
}

int dt_imp_name_upper(char dst[DT_NAME_MAX], const char *src) {
  size_t n = strlen(src);

  if (n == 0 || n >= DT_NAME_MAX) return 1;
  for (size_t i = 0; i <= n; i++)
    dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : src[i]);
  return 0;
}
