/* Helpers shared by the element tests: failure counting, a deterministic random generator
 * and distorted elements built from the reference geometry. Tests print only on failure. */
#ifndef DT_ELEM_TEST_H
#define DT_ELEM_TEST_H

#include <math.h>
#include <stdio.h>

#include "element/element.h"
/* EXPECT records a failure and never aborts, so one run reports every broken type */
#include "../test_expect.h"

/* |a - b| <= tol * max(1, |b|) */
static inline int close_to(double a, double b, double tol) {
  return fabs(a - b) <= tol * fmax(1.0, fabs(b));
}

static const char *const elem_names[DT_NTYPES] = {"hex8",   "tet4",    "tet10",  "quad4", "tri3",
                                                  "quad8",  "quad9",   "quad16", "hex20", "hex20r",
                                                  "wedge6", "wedge15", "quad8r", "hex8r", "hex8i"};

/* xorshift64*: reproducible across platforms, uniform in [lo, hi). */
static unsigned long long elem_rng_state = 0x9E3779B97F4A7C15ull;
static inline double urand(double lo, double hi) {
  elem_rng_state ^= elem_rng_state >> 12;
  elem_rng_state ^= elem_rng_state << 25;
  elem_rng_state ^= elem_rng_state >> 27;
  /* top 53 bits of the scrambled state, divided by 2^53 */
  return lo +
         (hi - lo) * (double)((elem_rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* A random point inside the reference domain of type. */
static inline void random_xi(int type, double xi[3]) {
  int k, dim = dt_elem_dim(type);
  xi[0] = xi[1] = xi[2] = 0.0;
  if (dt_elem_is_tensor(type)) {
    for (k = 0; k < dim; k++) xi[k] = urand(-1.0, 1.0);
    return;
  }
  if (dt_elem_is_wedge(type)) { /* the unit triangle times [-1, 1] */
    do {
      xi[0] = urand(0.0, 1.0);
      xi[1] = urand(0.0, 1.0);
    } while (xi[0] + xi[1] > 1.0);
    xi[2] = urand(-1.0, 1.0);
    return;
  }
  do { /* rejection sampling in the unit simplex */
    for (k = 0; k < dim; k++) xi[k] = urand(0.0, 1.0);
  } while (xi[0] + xi[1] + xi[2] > 1.0);
}

/* Smallest det J over the full rule's points and the nodes. */
static inline double min_detj_qp_nodes(int type, const double *X) {
  double xi[3], w, N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES], dNdx[3 * DT_ELEM_MAX_NODES];
  double d, dmin = INFINITY;
  int q, nqp = dt_elem_nqp(type);
  for (q = 0; q < nqp + dt_elem_nnodes(type); q++) {
    if (q < nqp)
      dt_elem_qp(type, q, xi, &w);
    else
      dt_elem_node_xi(type, q - nqp, xi);
    dt_elem_shape(type, xi, N, dN);
    d = dt_elem_gradients(type, X, dN, dNdx);
    dmin = fmin(dmin, d);
  }
  return dmin;
}

/* Node coordinates X = A xi_a + c (A = I + random, det A > 0, plane types stay in z = 0),
 * then each node moved by up to `jitter` times the reference edge length for a non-affine
 * (or curved, tet10) element. Draws again until det J is clearly positive at the
 * integration points and nodes, so the tests never see an inverted element by chance. */
static inline void distorted_element(int type, double jitter, double *X) {
  const int n = dt_elem_nnodes(type), dim = dt_elem_dim(type);
  const double edge = dt_elem_is_tensor(type) ? 2.0 : 1.0;
  double A[9], c[3], xi[3];
  int a, i, k;
  do {
    for (i = 0; i < 9; i++) A[i] = (i % 4 == 0 ? 1.0 : 0.0) + urand(-0.25, 0.25);
    for (i = 0; i < 3; i++) c[i] = urand(-2.0, 2.0);
    for (a = 0; a < n; a++) {
      dt_elem_node_xi(type, a, xi);
      for (i = 0; i < 3; i++) {
        X[a * 3 + i] = 0.0;
        if (i >= dim) continue;
        X[a * 3 + i] = c[i] + urand(-jitter, jitter) * edge;
        for (k = 0; k < dim; k++) X[a * 3 + i] += A[i * 3 + k] * xi[k];
      }
    }
  } while (!(min_detj_qp_nodes(type, X) > 0.05)); /* det A ~ 1 */
}

static inline int elem_test_result(const char *name) {
  if (failures) fprintf(stderr, "%s: %d check(s) failed\n", name, failures);
  return failures ? 1 : 0;
}

#endif
