/* Element classes of the matrix-free operator: elements that are translated copies of each
 * other, with the same section, have the same elastic tangent, so one stored matrix serves all
 * of them while they stay elastic ([Kiran2023, Ch. 5]: on voxel meshes one K_e serves every elastic
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
  /* an axisymmetric element's matrix depends on its radius, not on its thickness: its copies
   * are translations along the axis (y) only */
  key[n++] = pb->elem_state[e] == DT_STATE_AXISYMMETRIC ? llround(pb->x[c[0] * 3] / tol)
                                                        : (int64_t)thick_bits;
  for (int a = 1; a < npe; a++)
    for (int k = 0; k < 3; k++) {
      double d = pb->x[c[a] * 3 + k] - pb->x[c[0] * 3 + k];
      if (fabs(d) > ext) ext = fabs(d);
      key[n++] = llround(d / tol);
    }
  *len = n;
  return ext > 1e4 * tol;
}

/* Two independent 64-bit hashes of a key (FNV-1a with a final mix, two offsets): the table
 * compares both, and every member is checked against its class's representative exactly
 * afterwards, so a collision can only cost an element its class, never give it a wrong one. */
static void hash_key(const int64_t *key, int len, uint64_t h[2]) {
  h[0] = 1469598103934665603ull;
  h[1] = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < len; i++)
    for (int j = 0; j < 2; j++) {
      h[j] ^= (uint64_t)key[i];
      h[j] *= 1099511628211ull;
      h[j] ^= h[j] >> (29 + 4 * j);
    }
}

typedef struct class_entry {
  uint64_t h[2]; /* the key's hashes */
  int rep;       /* representative element, -1 for an empty slot */
  int count;     /* elements with its key */
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
  double X[DT_ELEM_MAX_NODES * 3], ue[DT_ELEM_MAX_DOF] = {0}, fe[DT_ELEM_MAX_DOF], *Ke = NULL,
                                   *scratch = NULL;
  const int *c = pb->conn + pb->elem_ptr[e];
  DT_ALLOC(Ke, DT_ELEM_MAX_DOF * DT_ELEM_MAX_DOF, ctx, "an element matrix");
  DT_ALLOC(scratch, (size_t)nqp * (2 * DT_MAT_STATE_DOUBLES + 12), ctx, "an element's point state");
  for (int a = 0; a < npe; a++)
    for (int k = 0; k < 3; k++) X[a * 3 + k] = pb->x[c[a] * 3 + k];
  dt_qp_arrays qa = {scratch,
                     scratch + nqp * DT_MAT_STATE_DOUBLES,
                     scratch + nqp * 2 * DT_MAT_STATE_DOUBLES,
                     scratch + nqp * (2 * DT_MAT_STATE_DOUBLES + 6),
                     nqp,
                     NULL};
  int r = dt_element_residual(type, X, ue, &pb->mats[pb->elem_mat[e]], pb->elem_state[e],
                              pb->elem_bbar[e], pb->elem_thick[e], &qa, 0, fe, Ke);
  DT_CHECK(r == 0, ctx, DT_ERR_INTERNAL, "element %d is not elastic at zero strain", e);
  dt_emat_pack(npe, dpn, Ke, packed);
cleanup:
  dt_free(Ke);
  dt_free(scratch);
  return rc;
}

dt_status dt_problem_build_classes(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY},
         diag = 0.0;
  size_t cap = 16;
  class_entry *tab = NULL, *ranked = NULL;
  uint64_t *hashes = NULL;
  int n_used = 0, n_ranked = 0, *rep_of = NULL;
  const int ne = pb->n_elems;

  pb->emat_doubles = dt_emat_doubles(pb->max_npe, pb->dpn);
  DT_ALLOC(pb->elem_class, ne, ctx, "element classes");
  DT_ALLOC(hashes, 2 * (size_t)ne, ctx, "element key hashes");
  for (int a = 0; a < pb->n_nodes; a++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], pb->x[a * 3 + k]);
      hi[k] = fmax(hi[k], pb->x[a * 3 + k]);
    }
  for (int k = 0; k < 3; k++) diag += pb->n_nodes ? (hi[k] - lo[k]) * (hi[k] - lo[k]) : 0.0;
  const double tol = DT_CLASS_TOL * (diag > 0 ? sqrt(diag) : 1.0);
  /* 1. every element's key hashes, in parallel (elem_class: 0, or -1 if too small to class) */
#pragma omp parallel for schedule(static) if (ne > 10000)
  for (int e = 0; e < ne; e++) {
    int64_t key[4 + 3 * DT_ELEM_MAX_NODES];
    int len = 0;
    pb->elem_class[e] = element_key(pb, e, tol, key, &len) ? 0 : -1;
    hash_key(key, len, hashes + 2 * (size_t)e);
  }
  /* 2. count the elements of each key; elem_class holds the table slot for now */
  while (cap < 2 * (size_t)ne) cap *= 2;
  DT_ALLOC(tab, cap, ctx, "element class table");
  for (size_t i = 0; i < cap; i++) tab[i].rep = -1;
  for (int e = 0; e < ne; e++) {
    const uint64_t *h = hashes + 2 * (size_t)e;
    if (pb->elem_class[e] < 0) continue;
    size_t s = h[0] & (cap - 1);
    while (tab[s].rep >= 0 && (tab[s].h[0] != h[0] || tab[s].h[1] != h[1])) s = (s + 1) & (cap - 1);
    if (tab[s].rep < 0) {
      tab[s] = (class_entry){{h[0], h[1]}, e, 0};
      n_used++;
    }
    tab[s].count++;
    pb->elem_class[e] = (int)s;
  }
  /* 3. the most populous keys of two or more elements become classes */
  DT_ALLOC(ranked, n_used, ctx, "element class ranking");
  for (size_t s = 0; s < cap; s++)
    if (tab[s].rep >= 0 && tab[s].count >= 2) ranked[n_ranked++] = tab[s];
  qsort(ranked, (size_t)n_ranked, sizeof *ranked, by_count_desc);
  pb->n_classes = n_ranked < DT_MAX_CLASSES ? n_ranked : DT_MAX_CLASSES;
  for (size_t s = 0; s < cap; s++) tab[s].count = -1; /* slot -> class id, -1: none */
  DT_ALLOC(rep_of, pb->n_classes ? pb->n_classes : 1, ctx, "class representatives");
  for (int i = 0; i < pb->n_classes; i++) {
    size_t s = ranked[i].h[0] & (cap - 1);
    while (tab[s].rep != ranked[i].rep) s = (s + 1) & (cap - 1);
    tab[s].count = i;
    rep_of[i] = ranked[i].rep;
  }
  /* 4. class ids, each member checked against its representative key for key (in parallel) */
#pragma omp parallel for schedule(static) if (ne > 10000)
  for (int e = 0; e < ne; e++) {
    int64_t key[4 + 3 * DT_ELEM_MAX_NODES], key2[4 + 3 * DT_ELEM_MAX_NODES];
    int len = 0, len2 = 0, c = pb->elem_class[e] >= 0 ? tab[pb->elem_class[e]].count : -1;
    if (c >= 0 && e != rep_of[c]) {
      element_key(pb, e, tol, key, &len);
      element_key(pb, rep_of[c], tol, key2, &len2);
      if (len != len2 || memcmp(key, key2, sizeof(int64_t) * (size_t)len))
        c = -1; /* a hash collision */
    }
    pb->elem_class[e] = c;
  }
  /* 5. each class's elastic matrix, from its representative */
  DT_ALLOC(pb->class_K, (size_t)(pb->n_classes ? pb->n_classes : 1) * pb->emat_doubles, ctx,
           "class matrices");
  for (int i = 0; i < pb->n_classes; i++)
    DT_TRY(elastic_matrix(pb, rep_of[i], pb->class_K + (size_t)i * pb->emat_doubles, ctx));
cleanup:
  dt_free(hashes);
  dt_free(rep_of);
  dt_free(ranked);
  dt_free(tab);
  return rc;
}

long dt_problem_unclassed(const dt_problem *pb) {
  long n = 0;
  for (int e = 0; e < pb->n_elems; e++) n += pb->elem_class[e] < 0;
  return n;
}
