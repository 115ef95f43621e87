/* Diagonal of the matrix-free elasticity operator, for the Jacobi preconditioner.
 *
 * A unit displacement of component c at node n has grad u = e_c (x) g, g = grad N_n, so
 *   K_(n,c),(n,c) = int (lambda + mu) g_c^2 + mu |g|^2 dV
 *                 = sum_q sum_ik M^c_ik(q) dN_n/dxi_i dN_n/dxi_k,
 *   M^c_ik = w det J [(lambda + mu) X_ic X_kc + mu sum_j X_ij X_kj],  X = dxi/dx.
 * The product dN_n/dxi_i dN_n/dxi_k is a tensor product of the squared 1D tables B.B, B.G or
 * G.G per direction (G where the direction is i or k), so each of the six (i, k) pairs is one
 * transposed sum factorisation, exact and O(P^4) per element. */
#include <string.h>

#include "core/omp_threads.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_elastic_tensor.h"
#include "highorder/ho_element.h"

typedef struct sq_tables {
  double t[3][DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES]; /* by count of G factors: BB, BG, GG */
} sq_tables;

/* Linear elasticity's weights: M^c_ik = w det J [(lambda + mu) X_ic X_kc + mu sum_j X_ij X_kj]. */
static void elastic_weights(const void *user, int e, double *Mq) {
  const dt_ho_elastic *op = user;
  int Q = op->nq, nq3 = Q * Q * Q;
  const double *qd = op->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
  double lam = op->lambda[e], mu = op->mu[e];
  for (int q = 0; q < nq3; q++) {
    double X[3][3];
    dt_ho_point_inverse_jacobian(qd, nq3, q, X);
    for (int p = 0; p < 6; p++) {
      int i = dt_ho_pair_i[p], k = dt_ho_pair_k[p];
      double xx = X[i][0] * X[k][0] + X[i][1] * X[k][1] + X[i][2] * X[k][2];
      double sym = i == k ? 1.0 : 2.0; /* off-diagonal pairs stand for (i,k) and (k,i) */
      for (int c = 0; c < 3; c++)
        Mq[(6 * c + p) * nq3 + q] = sym * qd[q] * ((lam + mu) * X[i][c] * X[k][c] + mu * xx);
    }
  }
}

static void element_diag(const dt_ho_elastic *op, const sq_tables *sq, dt_ho_diag_weights weights,
                         const void *user, int e, double *diag, double *work) {
  int P1 = op->order + 1, Q = op->nq, n3 = P1 * P1 * P1, nq3 = Q * Q * Q;
  double *de = work, *Mq = de + 3 * n3, *t1 = Mq + 18 * nq3, *t2 = t1 + P1 * P1 * Q;
  const int *row = op->elem_nodes + (size_t)e * n3;
  weights(user, e, Mq);
  for (int c = 0; c < 3; c++)
    for (int p = 0; p < 6; p++) {
      int i = dt_ho_pair_i[p], k = dt_ho_pair_k[p];
      const double *T[3];
      for (int d = 0; d < 3; d++) T[d] = sq->t[(i == d) + (k == d)];
      dt_ho_interp3_t(P1, Q, T[0], T[1], T[2], Mq + (6 * c + p) * nq3, de + c * n3, p > 0, t1, t2);
    }
  for (int a = 0; a < n3; a++)
    for (int c = 0; c < 3; c++) diag[3 * (size_t)row[a] + c] += de[c * n3 + a];
}

dt_status dt_ho_diagonal_from_weights(const dt_ho_elastic *op, dt_ho_diag_weights weights,
                                      const void *user, double *diag, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *work = NULL;
  sq_tables sq;
  int P1 = op->order + 1, Q = op->nq, nthreads = dt_omp_max_threads();
  size_t ws =
      3 * (size_t)P1 * P1 * P1 + 18 * (size_t)Q * Q * Q + (size_t)P1 * P1 * Q + (size_t)P1 * Q * Q;
  for (int j = 0; j < Q * P1; j++) {
    sq.t[0][j] = op->B[j] * op->B[j];
    sq.t[1][j] = op->B[j] * op->G[j];
    sq.t[2][j] = op->G[j] * op->G[j];
  }
  DT_ALLOC(work, ws * nthreads, ctx, "operator diagonal scratch");
  memset(diag, 0, sizeof(double) * 3 * (size_t)op->n_nodes);
  for (int c = 0; c < op->n_colors; c++) {
    int lo = op->color_ptr[c], hi = op->color_ptr[c + 1];
#pragma omp parallel for schedule(static) if ((long)(hi - lo) * op->nq * op->nq * op->nq >=        \
                                              DT_HO_PARALLEL_POINTS)
    for (int k = lo; k < hi; k++)
      element_diag(op, &sq, weights, user, op->color_elems[k], diag, work + ws * dt_omp_thread());
  }
cleanup:
  dt_free(work);
  return rc;
}

dt_status dt_ho_elastic_diagonal(const dt_ho_elastic *op, double *diag, dt_ctx *ctx) {
  return dt_ho_diagonal_from_weights(op, elastic_weights, op, diag, ctx);
}
