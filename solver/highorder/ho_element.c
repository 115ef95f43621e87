/* The shared element steps of the matrix-free order-P operators (ho_element.h): gather and
 * reference gradients, transposed contractions and scatter-add, and the colour sweep. */
#include "highorder/ho_element.h"

#include <string.h>

#include "core/omp_threads.h"
#include "highorder/ho_elastic_tensor.h"

size_t dt_ho_element_scratch(int P1, int Q) {
  return 6 * (size_t)P1 * P1 * P1 + 9 * (size_t)Q * Q * Q + (size_t)P1 * P1 * Q +
         (size_t)P1 * Q * Q;
}

/* The element steps are compiled once per (P + 1, nq) of the default rule nq = P + 1, P = 1..8,
 * so the contractions' loops have constant trip counts and unroll; any other pair runs the
 * generic code. Both are the same C operations in the same order, so they round alike. */
#define HO_ALWAYS_INLINE static inline __attribute__((always_inline))
#define HO_SIZES(X) X(2, 2) X(3, 3) X(4, 4) X(5, 5) X(6, 6) X(7, 7) X(8, 8) X(9, 9)

HO_ALWAYS_INLINE void gradients_at(const dt_ho_elastic *op, int e, const double *u, double *work,
                                   int P1, int Q) {
  int n3 = P1 * P1 * P1, nq3 = Q * Q * Q;
  double *ue = work, *g = ue + 6 * n3, *t1 = g + 9 * nq3, *t2 = t1 + P1 * P1 * Q;
  const double *B = op->B, *G = op->G;
  const int *row = op->elem_nodes + (size_t)e * n3;
  for (int a = 0; a < n3; a++)
    for (int c = 0; c < 3; c++) ue[c * n3 + a] = u[3 * (size_t)row[a] + c];
  /* du_c/dxi_i at the points: G along direction i, B along the other two */
  for (int c = 0; c < 3; c++) {
    dt_ho_interp3(P1, Q, G, B, B, ue + c * n3, g + (3 * c + 0) * nq3, t1, t2);
    dt_ho_interp3(P1, Q, B, G, B, ue + c * n3, g + (3 * c + 1) * nq3, t1, t2);
    dt_ho_interp3(P1, Q, B, B, G, ue + c * n3, g + (3 * c + 2) * nq3, t1, t2);
  }
}

HO_ALWAYS_INLINE void scatter_at(const dt_ho_elastic *op, int e, double *work, double *v, int P1,
                                 int Q) {
  int n3 = P1 * P1 * P1, nq3 = Q * Q * Q;
  double *ve = work + 3 * n3, *g = ve + 3 * n3, *t1 = g + 9 * nq3, *t2 = t1 + P1 * P1 * Q;
  const double *B = op->B, *G = op->G;
  const int *row = op->elem_nodes + (size_t)e * n3;
  for (int c = 0; c < 3; c++) {
    dt_ho_interp3_t(P1, Q, G, B, B, g + (3 * c + 0) * nq3, ve + c * n3, 0, t1, t2);
    dt_ho_interp3_t(P1, Q, B, G, B, g + (3 * c + 1) * nq3, ve + c * n3, 1, t1, t2);
    dt_ho_interp3_t(P1, Q, B, B, G, g + (3 * c + 2) * nq3, ve + c * n3, 1, t1, t2);
  }
  for (int a = 0; a < n3; a++)
    for (int c = 0; c < 3; c++) v[3 * (size_t)row[a] + c] += ve[c * n3 + a];
}

#define HO_GRADIENTS(n, q)                                                                         \
  static void gradients_##n(const dt_ho_elastic *op, int e, const double *u, double *work) {       \
    gradients_at(op, e, u, work, n, q);                                                            \
  }
#define HO_SCATTER(n, q)                                                                           \
  static void scatter_##n(const dt_ho_elastic *op, int e, double *work, double *v) {               \
    scatter_at(op, e, work, v, n, q);                                                              \
  }
HO_SIZES(HO_GRADIENTS)
HO_SIZES(HO_SCATTER)

double *dt_ho_element_gradients(const dt_ho_elastic *op, int e, const double *u, double *work) {
  int P1 = op->order + 1, Q = op->nq;
#define HO_CASE(n, q)                                                                              \
  case n: gradients_##n(op, e, u, work); break;
  switch (Q == P1 ? P1 : 0) {
    HO_SIZES(HO_CASE)
  default: gradients_at(op, e, u, work, P1, Q);
  }
#undef HO_CASE
  return work + 6 * P1 * P1 * P1;
}

void dt_ho_element_scatter(const dt_ho_elastic *op, int e, double *work, double *v) {
  int P1 = op->order + 1, Q = op->nq;
#define HO_CASE(n, q)                                                                              \
  case n: scatter_##n(op, e, work, v); break;
  switch (Q == P1 ? P1 : 0) {
    HO_SIZES(HO_CASE)
  default: scatter_at(op, e, work, v, P1, Q);
  }
#undef HO_CASE
}

static void element_sweep(const dt_ho_elastic *op, int e, const double *u, double *v,
                          dt_ho_qfunc qfunc, const void *user, double *work) {
  int nq3 = op->nq * op->nq * op->nq;
  double *g = dt_ho_element_gradients(op, e, u, work);
  qfunc(user, e, op->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3, nq3, g);
  dt_ho_element_scatter(op, e, work, v);
}

dt_status dt_ho_element_sweep(const dt_ho_elastic *op, const double *u, double *v,
                              dt_ho_qfunc qfunc, const void *user, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *work = NULL;
  int nthreads = dt_omp_max_threads();
  size_t ws = dt_ho_element_scratch(op->order + 1, op->nq);
  DT_ALLOC(work, ws * nthreads, ctx, "high-order operator scratch");
  memset(v, 0, sizeof(double) * 3 * (size_t)op->n_nodes);
  for (int c = 0; c < op->n_colors; c++) {
    int lo = op->color_ptr[c], hi = op->color_ptr[c + 1];
#pragma omp parallel for schedule(static) if ((long)(hi - lo) * op->nq * op->nq * op->nq >=        \
                                              DT_HO_PARALLEL_POINTS)
    for (int k = lo; k < hi; k++)
      element_sweep(op, op->color_elems[k], u, v, qfunc, user, work + ws * dt_omp_thread());
  }
cleanup:
  dt_free(work);
  return rc;
}
