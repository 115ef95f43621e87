/* The seed's element-wise projection solver (§2.4-2.5).
 *
 * 1. Every element solves M_e u_e = f_e alone: CG with the sum-factorised M_e, preconditioned
 *    by the exact inverse of the straight-element matrix (S_e / 2^dim) M1 x M1 (x M1), (2.16),
 *    so an affine element converges in one iteration and a distorted one in a few.
 * 2. Every entity value (vertex, Lobatto points of an edge or face at the entity's order m,
 *    the lowest of its elements) is the measure-weighted average (2.36)
 *    u = sum_e S_e u_e(point) / S_p; u_e evaluated at the order-m points is the seed's
 *    "interpolated to the common lower order".
 * 3. Each element then carries, on each vertex, edge and face in that order, the order-m
 *    polynomial through those averages (its boundary taken from the lower-dimensional
 *    entities already replaced), and keeps its own interior values. */
#include <math.h>
#include <string.h>

#include "highorder/ho_proj_internal.h"

#define ELEM_CG_TOL 1e-14
#define ELEM_CG_MAXIT 500

static double dot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* z = (2^dim / S_e) (M1^-1 x M1^-1 x M1^-1) r */
static void precond(const dt_ho_proj *p, int e, const double *r, double *z, double *work) {
  const ho_proj_elem *el = &p->elem[e];
  const ho_proj_basis *hb = p->basis[el->order];
  const double *const mats[3] = {hb->minv, hb->minv, hb->minv};
  double scale = (double)(1 << p->dim) / el->measure;
  ho_proj_tensor(mats, hb->b.nnodes, hb->b.nnodes, p->dim, r, z, work);
  for (int i = 0; i < el->nn; i++) z[i] *= scale;
}

/* Solve M_e x = f by preconditioned CG to ||r|| <= 1e-14 ||f||. vec: 4 nn doubles. */
static dt_status elem_solve(const dt_ho_proj *p, int e, const double *f, double *x, double *vec,
                            double *work, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nn = p->elem[e].nn, it = 0;
  double *r = vec, *z = vec + nn, *d = vec + 2 * nn, *Ad = vec + 3 * nn;
  double fnorm = sqrt(dot(f, f, nn)), rnorm = fnorm;
  memset(x, 0, sizeof(*x) * nn);
  memcpy(r, f, sizeof(*r) * nn);
  precond(p, e, r, z, work);
  memcpy(d, z, sizeof(*d) * nn);
  double rz = dot(r, z, nn);
  for (it = 0; it < ELEM_CG_MAXIT && rnorm > ELEM_CG_TOL * fnorm; it++) {
    ho_proj_mass_apply(p, e, d, Ad, work);
    double alpha = rz / dot(d, Ad, nn); /* x <- x + alpha d, r <- r - alpha M d */
    for (int i = 0; i < nn; i++) {
      x[i] += alpha * d[i];
      r[i] -= alpha * Ad[i];
    }
    rnorm = sqrt(dot(r, r, nn));
    precond(p, e, r, z, work);
    double rz1 = dot(r, z, nn), beta = rz1 / rz;
    rz = rz1;
    for (int i = 0; i < nn; i++) d[i] = z[i] + beta * d[i];
  }
  DT_CHECK(rnorm <= ELEM_CG_TOL * fnorm, ctx, DT_ERR_NOT_CONVERGED,
           "element %d: the local projection did not converge in %d CG iterations "
           "(residual %.3g relative)",
           e + 1, it, rnorm / fnorm);
cleanup:
  return rc;
}

/* Canonical Lobatto coordinates of point pt (index tuple on the (m+1)^k grid). */
static void grid_point(const double *node, int k, const int *pt, double *can) {
  for (int f = 0; f < k; f++) can[f] = node[pt[f]];
}

/* avg[ent_off..] <- measure-weighted average of the raw element solutions on each entity */
static void average_entities(const dt_ho_proj *p, const double *raw, double *avg) {
  for (int i = 0; i < p->nent; i++) {
    int k = p->ent_dim[i], m = p->ent_order[i], ni = m - 1,
        npts = k == 0 ? 1 : (k == 1 ? ni : ni * ni);
    double node[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES];
    dt_ho_gauss_lobatto(m + 1, node, w, NULL);
    for (int q = 0; q < npts; q++) avg[p->ent_off[i] + q] = 0.0;
    for (int r = p->ent_rec_start[i]; r < p->ent_rec_start[i + 1]; r++) {
      int e = p->ent_rec[r] / p->ncodes, code = p->ent_rec[r] % p->ncodes;
      const ho_proj_elem *el = &p->elem[e];
      for (int q = 0; q < npts; q++) {
        int pt[2] = {1 + q % (ni > 0 ? ni : 1), 1 + q / (ni > 0 ? ni : 1)};
        double can[2] = {0.0, 0.0}, loc[2] = {0.0, 0.0};
        grid_point(node, k, pt, can);
        ho_proj_from_canonical(k, el->orient[code], can, loc);
        /* u_i = sum_j u_ij S_j / S_p (2.36) */
        avg[p->ent_off[i] + q] +=
            el->measure * ho_proj_eval_on_entity(p, e, code, raw + el->off, loc);
      }
    }
    for (int q = 0; q < npts; q++) avg[p->ent_off[i] + q] /= p->ent_measure[i];
  }
}

/* Replace element e's values on sub-entity code by its entity's order-m polynomial: grid
 * values g on the canonical (m+1)^k Lobatto grid (interior points from avg, boundary points
 * from w, already replaced on the lower-dimensional entities), interpolated at the element's
 * own Lobatto points of that entity. */
static void replace_on_entity(const dt_ho_proj *p, int e, int code, const double *avg, double *w) {
  const ho_proj_elem *el = &p->elem[e];
  int ent = el->ent[code], m = p->ent_order[ent], P = el->order, fa[3];
  int k = ho_proj_code_free(p->dim, code, fa), n = P + 1, gm = m + 1;
  unsigned char o = el->orient[code];
  size_t base = 0, stride[3] = {1, (size_t)n, (size_t)n * n};
  for (int a = 0, c = code; a < p->dim; a++, c /= 3)
    if (c % 3 == 1) base += (size_t)P * stride[a];
  if (k == 0) {
    w[base] = avg[p->ent_off[ent]];
    return;
  }
  double node_m[DT_HO_MAX_NODES], wq[DT_HO_MAX_NODES], g[DT_HO_MAX_NODES * DT_HO_MAX_NODES];
  const double *node_p = p->basis[P]->b.node;
  dt_ho_gauss_lobatto(gm, node_m, wq, NULL);
  int ng = k == 1 ? gm : gm * gm;
  for (int q = 0; q < ng; q++) {
    int pt[2] = {q % gm, q / gm};
    int inner = pt[0] > 0 && pt[0] < m && (k == 1 || (pt[1] > 0 && pt[1] < m));
    double can[2] = {0.0, 0.0}, loc[2] = {0.0, 0.0};
    if (inner) {
      g[q] = avg[p->ent_off[ent] + (pt[0] - 1) + (size_t)(m - 1) * (k == 2 ? pt[1] - 1 : 0)];
      continue;
    }
    grid_point(node_m, k, pt, can);
    ho_proj_from_canonical(k, o, can, loc);
    g[q] = ho_proj_eval_on_entity(p, e, code, w, loc);
  }
  int nin = P - 1, npts = k == 1 ? nin : nin * nin;
  for (int q = 0; q < npts; q++) {
    int li[2] = {1 + q % nin, 1 + q / nin};
    double loc[2] = {node_p[li[0]], k == 2 ? node_p[li[1]] : 0.0}, can[2] = {0.0, 0.0};
    double L0[DT_HO_MAX_NODES], L1[DT_HO_MAX_NODES], v = 0.0;
    ho_proj_to_canonical(k, o, loc, can);
    dt_ho_lagrange(gm, node_m, can[0], L0, NULL);
    if (k == 1) {
      for (int a = 0; a < gm; a++) v += L0[a] * g[a];
    } else {
      dt_ho_lagrange(gm, node_m, can[1], L1, NULL);
      for (int b = 0; b < gm; b++)
        for (int a = 0; a < gm; a++) v += L0[a] * L1[b] * g[a + gm * b];
    }
    size_t idx =
        base + (size_t)li[0] * stride[fa[0]] + (k == 2 ? (size_t)li[1] * stride[fa[1]] : 0);
    w[idx] = v;
  }
}

dt_status dt_ho_proj_local(const dt_ho_proj *p, dt_ho_proj_fn f, void *user, double *values,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *raw = NULL, *avg = NULL, *work = NULL, *vec = NULL, *fe = NULL;
  size_t maxnn = 0;
  for (int e = 0; e < p->nelem; e++)
    maxnn = (size_t)p->elem[e].nn > maxnn ? (size_t)p->elem[e].nn : maxnn;
  DT_ALLOC(raw, p->nvalues, ctx, "element solutions");
  DT_ALLOC(avg, p->ndofs, ctx, "averaged entity values");
  DT_ALLOC(work, 2 * HO_PROJ_WORK, ctx, "projection work space");
  DT_ALLOC(vec, 4 * maxnn, ctx, "element CG vectors");
  DT_ALLOC(fe, maxnn, ctx, "element load");
  for (int e = 0; e < p->nelem; e++) {
    ho_proj_load(p, e, f, user, fe, work);
    DT_TRY(elem_solve(p, e, fe, raw + p->elem[e].off, vec, work, ctx));
  }
  average_entities(p, raw, avg);
  memcpy(values, raw, sizeof(*values) * p->nvalues);
  for (int e = 0; e < p->nelem; e++)
    for (int k = 0; k < p->dim; k++)
      for (int code = 0; code < p->ncodes - 1; code++) {
        int fa[3];
        if (ho_proj_code_free(p->dim, code, fa) == k)
          replace_on_entity(p, e, code, avg, values + p->elem[e].off);
      }
cleanup:
  dt_free(raw);
  dt_free(avg);
  dt_free(work);
  dt_free(vec);
  dt_free(fe);
  return rc;
}
