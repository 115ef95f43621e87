/* Consistent load vectors of order-P hexahedra: body force by sum factorisation over the
 * element's Gauss points, surface traction by Gauss points on the loaded faces. */
#include <math.h>
#include <string.h>

#include "highorder/ho_elastic.h"
#include "highorder/ho_elastic_tensor.h"

dt_status dt_ho_elastic_body_load(const dt_ho_elastic *op, const dt_ho_mesh *m, dt_ho_body_fn f,
                                  void *user, double *b, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int P1 = op->order + 1, Q = op->nq, n3 = P1 * P1 * P1, nq3 = Q * Q * Q;
  double *xe = NULL, *xq, *fq, *be, *t1, *t2;
  const double *B = op->B;
  DT_ALLOC(xe, 6 * (size_t)n3 + 6 * (size_t)nq3 + P1 * P1 * Q + P1 * Q * Q, ctx,
           "body load scratch");
  be = xe + 3 * n3;
  xq = be + 3 * n3;
  fq = xq + 3 * nq3;
  t1 = fq + 3 * nq3;
  t2 = t1 + P1 * P1 * Q;
  for (int e = 0; e < op->n_elems; e++) {
    const int *row = op->elem_nodes + (size_t)e * n3;
    const double *qd = op->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
    for (int a = 0; a < n3; a++)
      for (int k = 0; k < 3; k++) xe[k * n3 + a] = m->coords[3 * (size_t)row[a] + k];
    for (int k = 0; k < 3; k++) dt_ho_interp3(P1, Q, B, B, B, xe + k * n3, xq + k * nq3, t1, t2);
    for (int q = 0; q < nq3; q++) {
      double x[3] = {xq[q], xq[nq3 + q], xq[2 * nq3 + q]}, fv[3];
      f(x, fv, user);
      for (int k = 0; k < 3; k++) fq[k * nq3 + q] = qd[q] * fv[k]; /* f w det J */
    }
    for (int k = 0; k < 3; k++)
      dt_ho_interp3_t(P1, Q, B, B, B, fq + k * nq3, be + k * n3, 0, t1, t2);
    for (int a = 0; a < n3; a++)
      for (int k = 0; k < 3; k++) b[3 * (size_t)row[a] + k] += be[k * n3 + a];
  }
cleanup:
  dt_free(xe);
  return rc;
}

/* Position, outward unit normal and area weight at one Gauss point of a face. val[d]/der[d]
 * are the 1D basis values and derivatives along direction d at the point. */
static void face_point(int P1, const int *row, const double *coords, const double *val[3],
                       const double *der[3], int axis, int side, double x[3], double n[3],
                       double *dA) {
  double J[3][3] = {{0}}, inv[3];
  x[0] = x[1] = x[2] = 0.0;
  for (int c = 0; c < P1; c++)
    for (int b = 0; b < P1; b++)
      for (int a = 0; a < P1; a++) {
        const double *xn = coords + 3 * (size_t)row[a + P1 * (b + P1 * c)];
        double N = val[0][a] * val[1][b] * val[2][c];
        double dN[3] = {der[0][a] * val[1][b] * val[2][c], val[0][a] * der[1][b] * val[2][c],
                        val[0][a] * val[1][b] * der[2][c]};
        for (int k = 0; k < 3; k++) {
          x[k] += N * xn[k];
          for (int i = 0; i < 3; i++) J[k][i] += xn[k] * dN[i];
        }
      }
  /* Nanson: n dA = det J grad(xi_axis) dxi dxi', grad(xi_axis) = row `axis` of J^-1, i.e.
   * the cofactor row divided by det J; det J cancels. */
  int i1 = (axis + 1) % 3, i2 = (axis + 2) % 3;
  for (int k = 0; k < 3; k++) {
    int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    inv[k] = J[k1][i1] * J[k2][i2] - J[k1][i2] * J[k2][i1]; /* det J * dxi_axis/dx_k */
  }
  double len = sqrt(inv[0] * inv[0] + inv[1] * inv[1] + inv[2] * inv[2]);
  for (int k = 0; k < 3; k++) n[k] = (side ? 1.0 : -1.0) * inv[k] / len;
  *dA = len;
}

dt_status dt_ho_elastic_traction_load(const dt_ho_elastic *op, const dt_ho_mesh *m, int n_faces,
                                      const int *elem, const int *face, dt_ho_traction_fn t,
                                      void *user, double *b, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int P = op->order, P1 = P + 1, Q = op->nq;
  double node[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES], Lv[2][DT_HO_MAX_NODES], Ld[2][DT_HO_MAX_NODES];
  DT_TRY(dt_ho_gauss_lobatto(P1, node, w, ctx));
  for (int s = 0; s < 2; s++) dt_ho_lagrange(P1, node, s ? 1.0 : -1.0, Lv[s], Ld[s]);
  for (int f = 0; f < n_faces; f++) {
    int axis, side;
    DT_CHECK(elem[f] >= 0 && elem[f] < op->n_elems, ctx, DT_ERR_INPUT,
             "traction face %d: element %d is outside 0..%d", f, elem[f], op->n_elems - 1);
    DT_CHECK(face[f] >= 0 && face[f] < 6, ctx, DT_ERR_INPUT,
             "traction face %d (element %d): face %d is outside 0..5 (S1..S6)", f, elem[f],
             face[f]);
    dt_ho_hex_face_axis(face[f], &axis, &side);
    const int *row = op->elem_nodes + (size_t)elem[f] * P1 * P1 * P1;
    int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2; /* the face's two directions */
    for (int qv = 0; qv < Q; qv++)
      for (int qu = 0; qu < Q; qu++) {
        const double *val[3], *der[3];
        double x[3], n[3], dA, tv[3];
        val[axis] = Lv[side];
        der[axis] = Ld[side];
        val[u] = op->B + qu * P1;
        der[u] = op->G + qu * P1;
        val[v] = op->B + qv * P1;
        der[v] = op->G + qv * P1;
        face_point(P1, row, m->coords, val, der, axis, side, x, n, &dA);
        t(x, n, tv, user);
        dA *= op->qw[qu] * op->qw[qv];
        for (int bv = 0; bv < P1; bv++)
          for (int bu = 0; bu < P1; bu++) {
            int abc[3];
            abc[axis] = side * P;
            abc[u] = bu;
            abc[v] = bv;
            double N = val[u][bu] * val[v][bv] * dA;
            int gn = row[dt_ho_lex(P, abc[0], abc[1], abc[2])];
            for (int k = 0; k < 3; k++) b[3 * (size_t)gn + k] += N * tv[k];
          }
      }
  }
cleanup:
  return rc;
}
