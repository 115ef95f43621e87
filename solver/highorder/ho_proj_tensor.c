/* Sum factorisation for the projection: an element operator B^T diag(w |J|) B is applied as
 * dim one-dimensional contractions in, a pointwise scaling, and dim contractions out, so an
 * order-P hexahedron costs O(P^4) per apply instead of O(P^6) for the dense matrix (seed
 * §2.2, with the per-point Jacobian of (2.15) kept so distorted elements stay exact). */
#include <string.h>

#include "highorder/ho_proj_internal.h"

void ho_proj_contract(const double *A, int m, int n, int axis, const int shape[3], const double *in,
                      double *out) {
  int pre = 1, post = 1;
  for (int a = 0; a < axis; a++) pre *= shape[a];
  for (int a = axis + 1; a < 3; a++) post *= shape[a];
  /* out[p, i, k] = sum_j A[i, j] in[p, j, k], k the faster (pre) index */
  for (int p = 0; p < post; p++)
    for (int i = 0; i < m; i++) {
      double *o = out + ((size_t)p * m + i) * pre;
      for (int k = 0; k < pre; k++) o[k] = 0.0;
      for (int j = 0; j < n; j++) {
        double a = A[i * n + j];
        const double *x = in + ((size_t)p * n + j) * pre;
        for (int k = 0; k < pre; k++) o[k] += a * x[k];
      }
    }
}

void ho_proj_tensor(const double *const A[3], int m, int n, int dim, const double *in, double *out,
                    double *work) {
  int shape[3] = {n, n, dim == 3 ? n : 1};
  double *t1 = work, *t2 = work + HO_PROJ_WORK / 2;
  ho_proj_contract(A[0], m, n, 0, shape, in, t1);
  shape[0] = m;
  if (dim == 2) {
    ho_proj_contract(A[1], m, n, 1, shape, t1, out);
    return;
  }
  ho_proj_contract(A[1], m, n, 1, shape, t1, t2);
  shape[1] = m;
  ho_proj_contract(A[2], m, n, 2, shape, t2, out);
}

void ho_proj_interp(const ho_proj_basis *hb, int dim, int transpose, const double *in, double *out,
                    double *work) {
  int n = hb->b.nnodes, nq = hb->b.nqp;
  const double *A = transpose ? hb->bt : hb->b.interp;
  const double *const mats[3] = {A, A, A};
  if (transpose)
    ho_proj_tensor(mats, n, nq, dim, in, out, work);
  else
    ho_proj_tensor(mats, nq, n, dim, in, out, work);
}

void ho_proj_mass_apply(const dt_ho_proj *p, int e, const double *u, double *v, double *work) {
  const ho_proj_elem *el = &p->elem[e];
  const ho_proj_basis *hb = p->basis[el->order];
  const double *w = p->qw + el->qoff;
  double *uq = work + HO_PROJ_WORK;
  ho_proj_interp(hb, p->dim, 0, u, uq, work);
  for (int q = 0; q < el->nq; q++) uq[q] *= w[q]; /* u_q <- w_q |J_q| u_q */
  ho_proj_interp(hb, p->dim, 1, uq, v, work);
}

void ho_proj_mass_diag(const dt_ho_proj *p, int e, double *d, double *work) {
  const ho_proj_elem *el = &p->elem[e];
  const ho_proj_basis *hb = p->basis[el->order];
  int n = hb->b.nnodes, nq = hb->b.nqp;
  double bsqt[DT_HO_MAX_NODES * DT_HO_MAX_QPOINTS];
  /* M_ii = sum_q B_qa^2 B_qb^2 B_qc^2 w_q |J_q|: the transposed interpolation with squares */
  for (int a = 0; a < n; a++)
    for (int q = 0; q < nq; q++) bsqt[a * nq + q] = hb->bsq[q * n + a];
  const double *const mats[3] = {bsqt, bsqt, bsqt};
  ho_proj_tensor(mats, n, nq, p->dim, p->qw + el->qoff, d, work);
}

void ho_proj_load(const dt_ho_proj *p, int e, dt_ho_proj_fn f, void *user, double *fe,
                  double *work) {
  const ho_proj_elem *el = &p->elem[e];
  const double *w = p->qw + el->qoff, *x = p->qx + el->qoff * p->dim;
  double *fq = work + HO_PROJ_WORK;
  /* f_e = integral N^T f |J| (2.31) */
  for (int q = 0; q < el->nq; q++) fq[q] = f(x + (size_t)q * p->dim, user) * w[q];
  ho_proj_interp(p->basis[el->order], p->dim, 1, fq, fe, work);
}

dt_status dt_ho_proj_elem_mass(const dt_ho_proj *p, int e, double *M, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *work = NULL, *unit = NULL, *col = NULL;
  DT_CHECK(p && e >= 0 && e < p->nelem, ctx, DT_ERR_INPUT, "element %d does not exist", e + 1);
  int nn = p->elem[e].nn;
  DT_ALLOC(work, 2 * HO_PROJ_WORK, ctx, "projection work space");
  DT_ALLOC(unit, nn, ctx, "unit vector");
  DT_ALLOC(col, nn, ctx, "mass matrix column");
  for (int j = 0; j < nn; j++) {
    unit[j] = 1.0;
    ho_proj_mass_apply(p, e, unit, col, work);
    unit[j] = 0.0;
    for (int i = 0; i < nn; i++) M[(size_t)i * nn + j] = col[i];
  }
cleanup:
  dt_free(work);
  dt_free(unit);
  dt_free(col);
  return rc;
}
