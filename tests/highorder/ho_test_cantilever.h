/* The curved cantilever the p-multigrid tests share (tests/highorder/test_ho_pmg.c,
 * tests/gpu/test_gpu_ho_pmg.c): a 10 x 1 x 1 beam arched in y and z and twisted through the
 * section, clamped at x = 0, an end traction; E = 1000, nu = 0.3. */
#ifndef DT_HO_TEST_CANTILEVER_H
#define DT_HO_TEST_CANTILEVER_H

#include <math.h>
#include <stdlib.h>

#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "../test_expect.h"

static inline void ho_test_lame(const dt_ho_mesh *m, double E, double nu, double **lam,
                                double **mu) {
  *lam = malloc(sizeof(double) * m->n_elems);
  *mu = malloc(sizeof(double) * m->n_elems);
  for (int e = 0; e < m->n_elems; e++) dt_ho_lame(E, nu, *lam + e, *mu + e);
}

static inline int ho_test_at_x0(const double x[3], void *user) {
  (void)user;
  return fabs(x[0]) < 1e-12;
}

/* The cantilever 10 x 1 x 1 arched: y and z lifted along x, with a twist through the section. */
static inline void ho_test_arch(const double x[3], double y[3], void *user) {
  (void)user;
  double s = sin(M_PI * x[0] / 10);
  y[0] = x[0] - 0.05 * s * (x[1] - 0.5);
  y[1] = x[1] + 0.8 * s + 0.05 * s * (x[2] - 0.5);
  y[2] = x[2] + 0.3 * s * s;
}

/* The end traction (0.1, -1, 0.3), scaled by *(double *)user when given. */
static inline void ho_test_end_load(const double x[3], const double n[3], double t[3], void *user) {
  (void)x, (void)n;
  double scale = user ? *(const double *)user : 1.0;
  t[0] = 0.1 * scale;
  t[1] = -1.0 * scale;
  t[2] = 0.3 * scale;
}

typedef struct ho_test_cantilever {
  dt_ho_mesh m;
  dt_ho_elastic el;
  int n;                /* 3 n_nodes */
  unsigned char *fixed; /* n: the clamped face's DOFs */
  double *b, *diag;     /* n: the end load, K's diagonal */
  double *lam, *mu;
} ho_test_cantilever;

/* The cantilever at order P on nx x ny x nz elements, its operator, constraints, load and
 * diagonal. */
static inline void ho_test_cantilever_build(int P, int nx, int ny, int nz, ho_test_cantilever *c) {
  const double lo[3] = {0, 0, 0}, hi[3] = {10, 1, 1};
  dt_ctx ctx = {0};
  dt_ho_mesh flat;
  EXPECT(dt_ho_mesh_box(P, nx, ny, nz, lo, hi, ho_test_arch, NULL, &c->m, &ctx) == DT_OK, "%s",
         ctx.msg);
  ho_test_lame(&c->m, 1000.0, 0.3, &c->lam, &c->mu);
  EXPECT(dt_ho_elastic_setup(&c->m, 0, c->lam, c->mu, &c->el, &ctx) == DT_OK, "%s", ctx.msg);
  int n = 3 * c->m.n_nodes, *elem = malloc(sizeof(int) * ny * nz),
      *face = malloc(sizeof(int) * ny * nz);
  unsigned char *node_fixed = calloc(c->m.n_nodes, 1);
  c->n = n;
  c->fixed = calloc(n, 1);
  c->b = calloc(n, sizeof(double));
  c->diag = malloc(sizeof(double) * n);
  /* the unmapped box has the same numbering: clamp the nodes with x = 0 there */
  EXPECT(dt_ho_mesh_box(P, nx, ny, nz, lo, hi, NULL, NULL, &flat, &ctx) == DT_OK, "%s", ctx.msg);
  dt_ho_mesh_mark_where(&flat, ho_test_at_x0, NULL, node_fixed);
  dt_ho_mesh_free(&flat);
  for (int i = 0; i < n; i++) c->fixed[i] = node_fixed[i / 3];
  for (int k = 0; k < ny * nz; k++) elem[k] = nx - 1 + nx * k, face[k] = 3;
  EXPECT(dt_ho_elastic_traction_load(&c->el, &c->m, ny * nz, elem, face, ho_test_end_load, NULL,
                                     c->b, &ctx) == DT_OK,
         "%s", ctx.msg);
  EXPECT(dt_ho_elastic_diagonal(&c->el, c->diag, &ctx) == DT_OK, "%s", ctx.msg);
  free(elem), free(face), free(node_fixed);
}

static inline void ho_test_cantilever_free(ho_test_cantilever *c) {
  free(c->fixed), free(c->b), free(c->diag), free(c->lam), free(c->mu);
  dt_ho_elastic_free(&c->el);
  dt_ho_mesh_free(&c->m);
}

#endif
