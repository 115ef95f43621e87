/* Element classes of the matrix-free operator: elements that are translated copies of each
 * other, with the same section, have the same elastic tangent, so one stored matrix serves all
 * of them while they stay elastic (seed-003 Ch. 5: on voxel meshes one K_e serves every elastic
 * element; we generalise it to any mesh with repeated elements).
 *
 * Two elements are congruent when their node offsets from their first node agree to within
 * DT_CLASS_TOL of the mesh size (the bounding box's diagonal): coordinates generated as i * h
 * differ from the exact grid in their last bits, and the elastic matrix of a class is then
 * exact to about that tolerance for each of its elements. Offsets are rounded to multiples of
 * the tolerance and hashed; offsets that straddle a rounding boundary only split a class.
 * At most DT_MAX_CLASSES classes, the most populous ones; classes of one element save
 * nothing and are not made. Elements without a class always store their own matrix. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "element/element_kernel.h"
#include "element/element_matrix.h"
#include "problem.h"

#define DT_CLASS_TOL 1e-10
#define DT_MAX_CLASSES 64

/* The key of element e: its section data and rounded node offsets; returns 0 if the element
 * is too small against the tolerance to be classed (its key would be meaningless). */
static int element_key(const dt_problem *pb, int e, double tol, int64_t *key, int *len) {
  const int *c = pb->conn + pb->elem_ptr[e];
  int npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e], n = 0;
  double ext = 0.0;
  uint64_t thick_bits;
  memcpy(&thick_bits, &pb->elem_thick[e], sizeof thick_bits);
  key[n++] = pb->elem_type[e];
  key[n++] = pb->elem_mat[e];
  key[n++] = pb->elem_state[e] * 2 + pb->elem_bbar[e];
  key[n++] = (int64_t)thick_bits;
  for (int a = 1; a < npe; a++)
    for (int k = 0; k < 3; k++) {
      double d = pb->x[c[a] * 3 + k] - pb->x[c[0] * 3 + k];
      if (fabs(d) > ext) ext = fabs(d);
      key[n++] = llround(d / tol);
    }
  *len = n;
  return ext > 1e4 * tol;
}

static uint64_t hash_key(const int64_t *key, int len) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a over the key's 64-bit words */
  for (int i = 0; i < len; i++) {
    h ^= (uint64_t)key[i];
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

typedef struct class_entry {
  int rep;   /* representative element, -1 for an empty slot */
  int count; /* elements with its key */
} class_entry;

static int by_count_desc(const void *pa, const void *pb) {
  const class_entry *a = pa, *b = pb;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  return a->rep < b->rep ? -1 : a->rep > b->rep;
}

/* The elastic matrix of element e: its tangent at zero strain from a virgin history. */
static dt_status elastic_matrix(const dt_problem *pb, int e, double *packed, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int type = pb->elem_type[e], npe = dt_elem_nnodes(type), dpn = pb->dpn, nqp = dt_elem_nqp(type);
  double X[DT_ELEM_MAX_NODES * 3], ue[DT_ELEM_MAX_DOF] = {0}, fe[DT_ELEM_MAX_DOF], *Ke = NULL, *scratch = NULL;
  const int *c = pb->conn + pb->elem_ptr[e];
  DT_ALLOC(Ke, DT_ELEM_MAX_DOF * DT_ELEM_MAX_DOF, ctx, "an element matrix");
  DT_ALLOC(scratch, (size_t)nqp * (2 * DT_MAT_STATE_DOUBLES + 12), ctx, "an element's point state");
  for (int a = 0; a < npe; a++)
    for (int k = 0; k < 3; k++) X[a * 3 + k] = pb->x[c[a] * 3 + k];
  dt_qp_arrays qa = {scratch, scratch + nqp * DT_MAT_STATE_DOUBLES, scratch + nqp * 2 * DT_MAT_STATE_DOUBLES,
                     scratch + nqp * (2 * DT_MAT_STATE_DOUBLES + 6), nqp};
  int r = dt_element_residual(type, X, ue, &pb->mats[pb->elem_mat[e]], pb->elem_state[e], pb->elem_bbar[e],
                              pb->elem_thick[e], &qa, 0, fe, Ke);
  DT_CHECK(r == 0, ctx, DT_ERR_INTERNAL, "element %d is not elastic at zero strain", e);
  dt_emat_pack(npe, dpn, Ke, packed);
cleanup:
  dt_free(Ke);
  dt_free(scratch);
  return rc;
}

dt_status dt_problem_build_classes(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, diag = 0.0;
  int64_t key[4 + 3 * DT_ELEM_MAX_NODES], key2[4 + 3 * DT_ELEM_MAX_NODES];
  size_t cap = 16;
  class_entry *tab = NULL, *ranked = NULL;
  int n_used = 0, n_ranked = 0, len = 0, len2 = 0;

  pb->emat_doubles = dt_emat_doubles(pb->max_npe, pb->dpn);
  DT_ALLOC(pb->elem_class, pb->n_elems, ctx, "element classes");
  for (int a = 0; a < pb->n_nodes; a++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], pb->x[a * 3 + k]);
      hi[k] = fmax(hi[k], pb->x[a * 3 + k]);
    }
  for (int k = 0; k < 3; k++) diag += pb->n_nodes ? (hi[k] - lo[k]) * (hi[k] - lo[k]) : 0.0;
  double tol = DT_CLASS_TOL * (diag > 0 ? sqrt(diag) : 1.0);
  while (cap < 2 * (size_t)pb->n_elems) cap *= 2;
  DT_ALLOC(tab, cap, ctx, "element class table");
  for (size_t i = 0; i < cap; i++) tab[i].rep = -1;
  /* 1. count the elements of each key; elem_class holds the table slot for now */
  for (int e = 0; e < pb->n_elems; e++) {
    pb->elem_class[e] = -1;
    if (!element_key(pb, e, tol, key, &len)) continue;
    size_t s = hash_key(key, len) & (cap - 1);
    for (;; s = (s + 1) & (cap - 1)) {
      if (tab[s].rep < 0) {
        tab[s].rep = e;
        n_used++;
        break;
      }
      element_key(pb, tab[s].rep, tol, key2, &len2);
      if (len2 == len && !memcmp(key, key2, sizeof(int64_t) * (size_t)len)) break;
    }
    tab[s].count++;
    pb->elem_class[e] = (int)s;
  }
  /* 2. the most populous keys of two or more elements become classes */
  DT_ALLOC(ranked, n_used, ctx, "element class ranking");
  for (size_t s = 0; s < cap; s++)
    if (tab[s].rep >= 0 && tab[s].count >= 2) ranked[n_ranked++] = tab[s];
  qsort(ranked, (size_t)n_ranked, sizeof *ranked, by_count_desc);
  pb->n_classes = n_ranked < DT_MAX_CLASSES ? n_ranked : DT_MAX_CLASSES;
  for (size_t s = 0; s < cap; s++) tab[s].count = -1; /* slot -> class id, -1: none */
  for (int i = 0; i < pb->n_classes; i++) {
    element_key(pb, ranked[i].rep, tol, key, &len);
    size_t s = hash_key(key, len) & (cap - 1);
    while (tab[s].rep != ranked[i].rep) s = (s + 1) & (cap - 1);
    tab[s].count = i;
  }
  for (int e = 0; e < pb->n_elems; e++)
    if (pb->elem_class[e] >= 0) pb->elem_class[e] = tab[pb->elem_class[e]].count;
  /* 3. each class's elastic matrix, from its representative */
  DT_ALLOC(pb->class_K, (size_t)(pb->n_classes ? pb->n_classes : 1) * pb->emat_doubles, ctx, "class matrices");
  for (int i = 0; i < pb->n_classes; i++)
    DT_TRY(elastic_matrix(pb, ranked[i].rep, pb->class_K + (size_t)i * pb->emat_doubles, ctx));
cleanup:
  dt_free(ranked);
  dt_free(tab);
  return rc;
}

long dt_problem_unclassed(const dt_problem *pb) {
  long n = 0;
  for (int e = 0; e < pb->n_elems; e++) n += pb->elem_class[e] < 0;
  return n;
}
