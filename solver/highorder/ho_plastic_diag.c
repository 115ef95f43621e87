/* Diagonal of the order-P plastic tangent, for the Jacobi preconditioner.
 *
 * A unit displacement of component c at node n has grad u = e_c (x) g, g = grad N_n, whose
 * engineering Voigt strain has g_j in slot v(c, j) (v: the Voigt index of the pair). So
 *   (K_t)_(n,c),(n,c) = int sum_jl g_j D[v(c,j)][v(c,l)] g_l dV
 *                     = sum_q sum_ik M^c_ik(q) dN_n/dxi_i dN_n/dxi_k,
 *   M^c_ik = w det J sum_jl X_ij X_kl D[v(c,j)][v(c,l)],  X = dxi/dx,
 * symmetric in (i, k) because D is. With D elastic this is ho_elastic_diag.c's M; the rest,
 * six transposed sum factorisations of the squared tables per component, is the same. */
#include <string.h>

#include "core/omp_threads.h"
#include "highorder/ho_elastic_tensor.h"
#include "highorder/ho_plastic.h"

typedef struct sq_tables {
  double t[3][DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES]; /* by count of G factors: BB, BG, GG */
} sq_tables;

static const int voigt[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};

static void element_diag(const dt_ho_plastic *pl, const sq_tables *sq, int e, double *diag,
                         double *work) {
  const dt_ho_elastic *op = pl->op;
  int P1 = op->order + 1, Q = op->nq, n3 = P1 * P1 * P1, nq3 = Q * Q * Q;
  double *de = work, *Mq = de + 3 * n3, *t1 = Mq + 18 * nq3, *t2 = t1 + P1 * P1 * Q;
  const int *row = op->elem_nodes + (size_t)e * n3;
  const double *qd = op->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
  const int pi[6] = {0, 1, 2, 0, 0, 1}, pk[6] = {0, 1, 2, 1, 2, 2};
  for (int q = 0; q < nq3; q++) {
    double X[3][3], D[36];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) X[i][j] = qd[(1 + 3 * i + j) * nq3 + q];
    dt_ho_plastic_point_tangent(pl, e, q, D);
    for (int c = 0; c < 3; c++) {
      double Y[3][3]; /* Y[i][l] = sum_j X_ij D[v(c,j)][v(c,l)] */
      for (int i = 0; i < 3; i++)
        for (int l = 0; l < 3; l++)
          Y[i][l] = X[i][0] * D[6 * voigt[c][0] + voigt[c][l]] +
                    X[i][1] * D[6 * voigt[c][1] + voigt[c][l]] +
                    X[i][2] * D[6 * voigt[c][2] + voigt[c][l]];
      for (int p = 0; p < 6; p++) {
        int i = pi[p], k = pk[p];
        double sym = i == k ? 1.0 : 2.0; /* off-diagonal pairs stand for (i,k) and (k,i) */
        Mq[(6 * c + p) * nq3 + q] =
            sym * qd[q] * (Y[i][0] * X[k][0] + Y[i][1] * X[k][1] + Y[i][2] * X[k][2]);
      }
    }
  }
  for (int c = 0; c < 3; c++)
    for (int p = 0; p < 6; p++) {
      int i = pi[p], k = pk[p];
      const double *T[3];
      for (int d = 0; d < 3; d++) T[d] = sq->t[(i == d) + (k == d)];
      dt_ho_interp3_t(P1, Q, T[0], T[1], T[2], Mq + (6 * c + p) * nq3, de + c * n3, p > 0, t1, t2);
    }
  for (int a = 0; a < n3; a++)
    for (int c = 0; c < 3; c++) diag[3 * (size_t)row[a] + c] += de[c * n3 + a];
}

dt_status dt_ho_plastic_tangent_diagonal(const dt_ho_plastic *pl, double *diag, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_ho_elastic *op = pl->op;
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
  DT_ALLOC(work, ws * nthreads, ctx, "plastic tangent diagonal scratch");
  memset(diag, 0, sizeof(double) * 3 * (size_t)op->n_nodes);
  for (int c = 0; c < op->n_colors; c++) {
    int lo = op->color_ptr[c], hi = op->color_ptr[c + 1];
#pragma omp parallel for schedule(static) if ((long)(hi - lo) * op->nq * op->nq * op->nq >=        \
                                              DT_HO_PARALLEL_POINTS)
    for (int k = lo; k < hi; k++)
      element_diag(pl, &sq, op->color_elems[k], diag, work + ws * dt_omp_thread());
  }
cleanup:
  dt_free(work);
  return rc;
}
