/* The global conforming L2 projection M u = f (seed (2.23)-(2.29)) of a p-uniform mesh, the
 * reference the element-wise solver is measured against. M is never assembled: CG applies
 * it element by element (gather, sum-factorised M_e, scatter-add) with the assembled
 * diagonal as Jacobi preconditioner. */
#include <math.h>
#include <string.h>

#include "highorder/ho_proj_internal.h"

typedef struct global_ctx {
  const dt_ho_proj *p;
  size_t *map; /* dof of every element node, element-wise layout */
  double *xe, *ye, *work;
} global_ctx;

static void build_map(const dt_ho_proj *p, size_t *map) {
  for (int e = 0; e < p->nelem; e++) {
    int n = p->elem[e].order + 1, nk = p->dim == 3 ? n : 1;
    size_t off = p->elem[e].off;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
          int idx[3] = {i, j, k};
          map[off + ((size_t)k * n + j) * n + i] = ho_proj_node_dof(p, e, idx);
        }
  }
}

/* y = M x = sum_e G_e^T M_e G_e x */
static void global_apply(global_ctx *g, const double *x, double *y) {
  const dt_ho_proj *p = g->p;
  memset(y, 0, sizeof(*y) * p->ndofs);
  for (int e = 0; e < p->nelem; e++) {
    const size_t *m = g->map + p->elem[e].off;
    int nn = p->elem[e].nn;
    for (int i = 0; i < nn; i++) g->xe[i] = x[m[i]];
    ho_proj_mass_apply(p, e, g->xe, g->ye, g->work);
    for (int i = 0; i < nn; i++) y[m[i]] += g->ye[i];
  }
}

/* Load f and Jacobi diagonal, both assembled. */
static void global_rhs_diag(global_ctx *g, dt_ho_proj_fn f, void *user, double *b, double *diag) {
  const dt_ho_proj *p = g->p;
  memset(b, 0, sizeof(*b) * p->ndofs);
  memset(diag, 0, sizeof(*diag) * p->ndofs);
  for (int e = 0; e < p->nelem; e++) {
    const size_t *m = g->map + p->elem[e].off;
    ho_proj_load(p, e, f, user, g->xe, g->work);
    ho_proj_mass_diag(p, e, g->ye, g->work);
    for (int i = 0; i < p->elem[e].nn; i++) {
      b[m[i]] += g->xe[i];
      diag[m[i]] += g->ye[i];
    }
  }
}

static double dot(const double *a, const double *b, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* Jacobi-preconditioned CG on M x = b; vec holds r, z, d, Ad (4 ndofs). */
static void global_cg(global_ctx *g, const double *b, const double *diag, double tol, double *x,
                      double *vec, dt_ho_proj_cg_info *info) {
  size_t n = g->p->ndofs;
  double *r = vec, *z = vec + n, *d = vec + 2 * n, *Ad = vec + 3 * n;
  double bnorm = sqrt(dot(b, b, n)), rnorm = bnorm;
  int it = 0, maxit = 20 * (int)n + 100;
  memset(x, 0, sizeof(*x) * n);
  memcpy(r, b, sizeof(*r) * n);
  for (size_t i = 0; i < n; i++) d[i] = z[i] = r[i] / diag[i];
  double rz = dot(r, z, n);
  for (it = 0; it < maxit && rnorm > tol * bnorm; it++) {
    global_apply(g, d, Ad);
    double alpha = rz / dot(d, Ad, n); /* x <- x + alpha d, r <- r - alpha M d */
    for (size_t i = 0; i < n; i++) {
      x[i] += alpha * d[i];
      r[i] -= alpha * Ad[i];
      z[i] = r[i] / diag[i];
    }
    rnorm = sqrt(dot(r, r, n));
    double rz1 = dot(r, z, n), beta = rz1 / rz;
    rz = rz1;
    for (size_t i = 0; i < n; i++) d[i] = z[i] + beta * d[i];
  }
  info->iterations = it;
  info->rel_resid = bnorm > 0.0 ? rnorm / bnorm : 0.0;
  info->converged = rnorm <= tol * bnorm;
}

dt_status dt_ho_proj_global(const dt_ho_proj *p, dt_ho_proj_fn f, void *user, double rel_tol,
                            double *values, dt_ho_proj_cg_info *info, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  global_ctx g = {p, NULL, NULL, NULL, NULL};
  double *b = NULL, *diag = NULL, *x = NULL, *vec = NULL;
  dt_ho_proj_cg_info local = {0, 0.0, 0};
  if (!info) info = &local;
  if (rel_tol <= 0.0) rel_tol = 1e-14;
  for (int e = 1; e < p->nelem; e++)
    DT_CHECK(p->elem[e].order == p->elem[0].order, ctx, DT_ERR_UNSUPPORTED,
             "the global projection needs one order on every element: element %d has order %d, "
             "element 1 has %d (use the element-wise solver for p-non-uniform meshes)",
             e + 1, p->elem[e].order, p->elem[0].order);
  DT_ALLOC(g.map, p->nvalues, ctx, "element dof maps");
  DT_ALLOC(g.xe, p->elem[0].nn, ctx, "element vector");
  DT_ALLOC(g.ye, p->elem[0].nn, ctx, "element vector");
  DT_ALLOC(g.work, 2 * HO_PROJ_WORK, ctx, "projection work space");
  DT_ALLOC(b, p->ndofs, ctx, "global load");
  DT_ALLOC(diag, p->ndofs, ctx, "global diagonal");
  DT_ALLOC(x, p->ndofs, ctx, "global solution");
  DT_ALLOC(vec, 4 * p->ndofs, ctx, "CG vectors");
  build_map(p, g.map);
  global_rhs_diag(&g, f, user, b, diag);
  global_cg(&g, b, diag, rel_tol, x, vec, info);
  for (size_t i = 0; i < p->nvalues; i++) values[i] = x[g.map[i]];
  DT_CHECK(info->converged, ctx, DT_ERR_NOT_CONVERGED,
           "the global projection stopped after %d CG iterations at %.3g relative residual "
           "(tolerance %.3g)",
           info->iterations, info->rel_resid, rel_tol);
cleanup:
  dt_free(g.map);
  dt_free(g.xe);
  dt_free(g.ye);
  dt_free(g.work);
  dt_free(b);
  dt_free(diag);
  dt_free(x);
  dt_free(vec);
  return rc;
}
