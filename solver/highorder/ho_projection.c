/* The projection problem: per-order tables, element geometry at the quadrature points, the
 * L2 error (2.32) and node generation from corners. The solvers are in ho_proj_local.c and
 * ho_proj_global.c, the shared entities in ho_proj_topology.c. */
#include <math.h>
#include <string.h>

#include "highorder/ho_proj_internal.h"

/* Inverse of the reference 1D mass matrix M1_ab = sum_q w_q L_a(x_q) L_b(x_q) by Gauss-Jordan
 * with partial pivoting; M1 is symmetric positive definite and at most 17 x 17. */
static void invert_mass1d(const dt_ho_basis1d *b, double *minv) {
  int n = b->nnodes;
  double a[DT_HO_MAX_NODES * 2 * DT_HO_MAX_NODES];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int q = 0; q < b->nqp; q++) s += b->qw[q] * b->interp[q * n + i] * b->interp[q * n + j];
      a[i * 2 * n + j] = s;
      a[i * 2 * n + n + j] = (i == j) ? 1.0 : 0.0;
    }
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(a[r * 2 * n + c]) > fabs(a[piv * 2 * n + c])) piv = r;
    for (int j = 0; j < 2 * n && piv != c; j++) {
      double t = a[c * 2 * n + j];
      a[c * 2 * n + j] = a[piv * 2 * n + j];
      a[piv * 2 * n + j] = t;
    }
    double d = a[c * 2 * n + c];
    for (int j = 0; j < 2 * n; j++) a[c * 2 * n + j] /= d;
    for (int r = 0; r < n; r++) {
      double f = a[r * 2 * n + c];
      if (r == c || f == 0.0) continue;
      for (int j = 0; j < 2 * n; j++) a[r * 2 * n + j] -= f * a[c * 2 * n + j];
    }
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) minv[i * n + j] = a[i * 2 * n + n + j];
}

static dt_status basis_create(int order, int nqp, ho_proj_basis **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  ho_proj_basis *hb = NULL;
  DT_ALLOC(hb, 1, ctx, "projection tables");
  DT_TRY(dt_ho_basis1d_init(&hb->b, order, nqp, ctx));
  int n = hb->b.nnodes;
  for (int q = 0; q < hb->b.nqp; q++)
    for (int a = 0; a < n; a++) {
      double v = hb->b.interp[q * n + a];
      hb->bt[a * hb->b.nqp + q] = v;
      hb->bsq[q * n + a] = v * v;
    }
  invert_mass1d(&hb->b, hb->minv);
  *out = hb;
  hb = NULL;
cleanup:
  dt_free(hb);
  return rc;
}

/* Physical points and weights w_q |J_q| of one element with the rule of b; refuses a
 * non-positive Jacobian determinant, which means an inverted or degenerate element.
 * work: 2.5 HO_PROJ_WORK doubles. */
static dt_status elem_geometry(const dt_ho_basis1d *b, int dim, int e, const double *xyz,
                               double *qx, double *qw, double *work, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = b->nnodes, nq = b->nqp, nn = dim == 3 ? n * n * n : n * n;
  int nqt = dim == 3 ? nq * nq * nq : nq * nq;
  double *comp = work + 2 * HO_PROJ_WORK, *jac = NULL;
  DT_ALLOC(jac, (size_t)nqt * 9, ctx, "element Jacobians");
  for (int c = 0; c < dim; c++) {
    for (int i = 0; i < nn; i++) comp[i] = xyz[(size_t)i * dim + c];
    const double *const val[3] = {b->interp, b->interp, b->interp};
    ho_proj_tensor(val, nq, n, dim, comp, work + HO_PROJ_WORK, work);
    for (int q = 0; q < nqt; q++) qx[(size_t)q * dim + c] = work[HO_PROJ_WORK + q];
    for (int a = 0; a < dim; a++) {
      /* dx_c / dxi_a: the derivative table along axis a, values along the others */
      const double *mats[3] = {b->interp, b->interp, b->interp};
      mats[a] = b->grad;
      ho_proj_tensor(mats, nq, n, dim, comp, work + HO_PROJ_WORK, work);
      for (int q = 0; q < nqt; q++) jac[(size_t)q * 9 + c * 3 + a] = work[HO_PROJ_WORK + q];
    }
  }
  for (int q = 0; q < nqt; q++) {
    const double *J = jac + (size_t)q * 9;
    double det = dim == 2
                     ? J[0] * J[4] - J[1] * J[3]
                     : J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                           J[2] * (J[3] * J[7] - J[4] * J[6]);
    int i = q % nq, j = (q / nq) % nq, k = q / (nq * nq);
    DT_CHECK(det > 0.0 && isfinite(det), ctx, DT_ERR_INPUT,
             "element %d is inverted or degenerate: det J = %.3g at quadrature point (%d, %d, %d) "
             "(check the node order and the coordinates)",
             e + 1, det, i, j, k);
    qw[q] = det * b->qw[i] * b->qw[j] * (dim == 3 ? b->qw[k] : 1.0);
  }
cleanup:
  dt_free(jac);
  return rc;
}

/* Orders, offsets and coordinates; the tables of every order in use. */
static dt_status setup_elements(dt_ho_proj *p, const int *order, const double *coords, int qextra,
                                dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_ALLOC(p->elem, p->nelem, ctx, "projection elements");
  for (int e = 0; e < p->nelem; e++) {
    int P = order[e];
    DT_CHECK(P >= 1 && P <= DT_HO_MAX_ORDER, ctx, DT_ERR_INPUT,
             "element %d: order %d is outside 1..%d", e + 1, P, DT_HO_MAX_ORDER);
    DT_CHECK(P + qextra <= DT_HO_MAX_QPOINTS, ctx, DT_ERR_INPUT,
             "element %d: order %d with %d extra quadrature points needs more than %d points",
             e + 1, P, qextra, DT_HO_MAX_QPOINTS);
    if (!p->basis[P]) DT_TRY(basis_create(P, P + qextra, &p->basis[P], ctx));
    ho_proj_elem *el = &p->elem[e];
    int n = P + 1, nq = P + qextra;
    el->order = P;
    el->nn = p->dim == 3 ? n * n * n : n * n;
    el->nq = p->dim == 3 ? nq * nq * nq : nq * nq;
    el->off = p->nvalues;
    el->qoff = p->nqtotal;
    p->nvalues += el->nn;
    p->nqtotal += el->nq;
    if (order[e] != order[0]) p->uniform = 0;
  }
  DT_ALLOC(p->coords, p->nvalues * p->dim, ctx, "element node coordinates");
  for (size_t i = 0; i < p->nvalues * p->dim; i++) {
    DT_CHECK(isfinite(coords[i]), ctx, DT_ERR_INPUT,
             "element node coordinate %zu (of %zu) is not finite", i, p->nvalues * p->dim);
    p->coords[i] = coords[i];
  }
cleanup:
  return rc;
}

dt_status dt_ho_proj_create(int dim, int nelem, const int *order, const double *coords, int qextra,
                            dt_ho_proj **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_proj *p = NULL;
  double *work = NULL;
  DT_CHECK(out && order && coords, ctx, DT_ERR_INPUT, "projection: missing orders or coordinates");
  *out = NULL;
  DT_CHECK(dim == 2 || dim == 3, ctx, DT_ERR_INPUT, "projection: dimension %d is not 2 or 3", dim);
  DT_CHECK(nelem >= 1, ctx, DT_ERR_INPUT, "projection: the mesh has no elements");
  DT_CHECK(qextra >= 0, ctx, DT_ERR_INPUT, "projection: %d extra quadrature points", qextra);
  if (qextra == 0) qextra = 2;
  DT_ALLOC(p, 1, ctx, "projection problem");
  p->dim = dim;
  p->nelem = nelem;
  p->ncodes = dim == 3 ? 27 : 9;
  p->uniform = 1;
  DT_TRY(setup_elements(p, order, coords, qextra, ctx));
  DT_ALLOC(p->qx, p->nqtotal * dim, ctx, "quadrature points");
  DT_ALLOC(p->qw, p->nqtotal, ctx, "quadrature weights");
  DT_ALLOC(work, 3 * HO_PROJ_WORK, ctx, "projection work space");
  for (int e = 0; e < nelem; e++) {
    ho_proj_elem *el = &p->elem[e];
    DT_TRY(elem_geometry(&p->basis[el->order]->b, dim, e, p->coords + el->off * dim,
                         p->qx + el->qoff * dim, p->qw + el->qoff, work, ctx));
    for (int q = 0; q < el->nq; q++) el->measure += p->qw[el->qoff + q];
  }
  DT_TRY(ho_proj_topology(p, ctx));
  *out = p;
  p = NULL;
cleanup:
  dt_free(work);
  dt_ho_proj_destroy(&p);
  return rc;
}

void dt_ho_proj_destroy(dt_ho_proj **pp) {
  if (!pp || !*pp) return;
  dt_ho_proj *p = *pp;
  for (int P = 0; P <= DT_HO_MAX_ORDER; P++) dt_free(p->basis[P]);
  dt_free(p->elem);
  dt_free(p->coords);
  dt_free(p->qx);
  dt_free(p->qw);
  dt_free(p->ent_dim);
  dt_free(p->ent_order);
  dt_free(p->ent_off);
  dt_free(p->ent_measure);
  dt_free(p->ent_rec_start);
  dt_free(p->ent_rec);
  dt_free(p);
  *pp = NULL;
}

size_t dt_ho_proj_nvalues(const dt_ho_proj *p) { return p->nvalues; }
size_t dt_ho_proj_values_offset(const dt_ho_proj *p, int e) { return p->elem[e].off; }
size_t dt_ho_proj_ndofs(const dt_ho_proj *p) { return p->ndofs; }
double dt_ho_proj_measure(const dt_ho_proj *p, int e) { return p->elem[e].measure; }

/* integral over element e of (f - u_h)^2 |J| with the rule of b */
static dt_status elem_error(const dt_ho_proj *p, int e, const dt_ho_basis1d *b, dt_ho_proj_fn f,
                            void *user, const double *u, double *work, double *sum, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int dim = p->dim, nqt = dim == 3 ? b->nqp * b->nqp * b->nqp : b->nqp * b->nqp;
  double *qx = work + 3 * HO_PROJ_WORK, *qw = qx + 3 * HO_PROJ_WORK / 2;
  double *uq = qw + HO_PROJ_WORK / 2;
  DT_TRY(elem_geometry(b, dim, e, p->coords + p->elem[e].off * dim, qx, qw, work, ctx));
  const double *const val[3] = {b->interp, b->interp, b->interp};
  ho_proj_tensor(val, b->nqp, b->nnodes, dim, u + p->elem[e].off, uq, work);
  for (int q = 0; q < nqt; q++) {
    double d = f(qx + (size_t)q * dim, user) - uq[q];
    *sum += d * d * qw[q];
  }
cleanup:
  return rc;
}

dt_status dt_ho_proj_error(const dt_ho_proj *p, dt_ho_proj_fn f, void *user, const double *values,
                           int extra, double *err, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *work = NULL, sum = 0.0;
  dt_ho_basis1d b;
  if (extra < 4) extra = 4;
  DT_ALLOC(work, 6 * HO_PROJ_WORK, ctx, "error work space");
  for (int e = 0; e < p->nelem; e++) {
    int P = p->elem[e].order;
    DT_CHECK(P + extra <= DT_HO_MAX_QPOINTS, ctx, DT_ERR_INPUT,
             "element %d: the error rule needs %d points per direction, more than %d", e + 1,
             P + extra, DT_HO_MAX_QPOINTS);
    DT_TRY(dt_ho_basis1d_init(&b, P, P + extra, ctx));
    DT_TRY(elem_error(p, e, &b, f, user, values, work, &sum, ctx));
  }
  *err = sqrt(sum);
cleanup:
  dt_free(work);
  return rc;
}

dt_status dt_ho_proj_nodes_from_corners(int dim, int order, const double *corners,
                                        dt_ho_proj_map map, void *user, double *xyz, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double node[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES];
  DT_CHECK(dim == 2 || dim == 3, ctx, DT_ERR_INPUT, "projection: dimension %d is not 2 or 3", dim);
  DT_CHECK(order >= 1 && order <= DT_HO_MAX_ORDER, ctx, DT_ERR_INPUT, "order %d is outside 1..%d",
           order, DT_HO_MAX_ORDER);
  DT_TRY(dt_ho_gauss_lobatto(order + 1, node, w, ctx));
  int n = order + 1, nk = dim == 3 ? n : 1, ncorner = 1 << dim;
  for (int k = 0; k < nk; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double xi[3] = {node[i], node[j], dim == 3 ? node[k] : 0.0}, x[3] = {0.0, 0.0, 0.0};
        for (int c = 0; c < ncorner; c++) {
          /* multilinear shape of corner c: prod_a (1 +- xi_a) / 2 */
          double N = 1.0;
          for (int a = 0; a < dim; a++) N *= 0.5 * (1.0 + ((c >> a) & 1 ? xi[a] : -xi[a]));
          for (int a = 0; a < dim; a++) x[a] += N * corners[c * dim + a];
        }
        double *out = xyz + ((size_t)(k * n + j) * n + i) * dim;
        if (map)
          map(x, out, user);
        else
          for (int a = 0; a < dim; a++) out[a] = x[a];
      }
cleanup:
  return rc;
}
