/* Diagonal of the order-P plastic tangent, for the Jacobi preconditioner.
 *
 * A unit displacement of component c at node n has grad u = e_c (x) g, g = grad N_n, whose
 * engineering Voigt strain has g_j in slot v(c, j) (v: the Voigt index of the pair). So
 *   (K_t)_(n,c),(n,c) = int sum_jl g_j D[v(c,j)][v(c,l)] g_l dV
 *                     = sum_q sum_ik M^c_ik(q) dN_n/dxi_i dN_n/dxi_k,
 *   M^c_ik = w det J sum_jl X_ij X_kl D[v(c,j)][v(c,l)],  X = dxi/dx,
 * symmetric in (i, k) because D is. With D elastic this is ho_elastic_diag.c's M; the rest,
 * six transposed sum factorisations of the squared tables per component, is the same. */

#include "highorder/ho_element.h"
#include "highorder/ho_plastic.h"

static const int voigt[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};

/* The stored tangent's weights: M^c_ik = w det J sum_jl X_ij X_kl D[v(c,j)][v(c,l)]. */
static void plastic_weights(const void *user, int e, double *Mq) {
  const dt_ho_plastic *pl = user;
  const dt_ho_elastic *op = pl->op;
  int Q = op->nq, nq3 = Q * Q * Q;
  const double *qd = op->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
  for (int q = 0; q < nq3; q++) {
    double X[3][3], D[36];
    dt_ho_point_inverse_jacobian(qd, nq3, q, X);
    dt_ho_plastic_point_tangent(pl, e, q, D);
    for (int c = 0; c < 3; c++) {
      double Y[3][3]; /* Y[i][l] = sum_j X_ij D[v(c,j)][v(c,l)] */
      for (int i = 0; i < 3; i++)
        for (int l = 0; l < 3; l++)
          Y[i][l] = X[i][0] * D[6 * voigt[c][0] + voigt[c][l]] +
                    X[i][1] * D[6 * voigt[c][1] + voigt[c][l]] +
                    X[i][2] * D[6 * voigt[c][2] + voigt[c][l]];
      for (int p = 0; p < 6; p++) {
        int i = dt_ho_pair_i[p], k = dt_ho_pair_k[p];
        double sym = i == k ? 1.0 : 2.0; /* off-diagonal pairs stand for (i,k) and (k,i) */
        Mq[(6 * c + p) * nq3 + q] =
            sym * qd[q] * (Y[i][0] * X[k][0] + Y[i][1] * X[k][1] + Y[i][2] * X[k][2]);
      }
    }
  }
}

dt_status dt_ho_plastic_tangent_diagonal(const dt_ho_plastic *pl, double *diag, dt_ctx *ctx) {
  return dt_ho_diagonal_from_weights(pl->op, plastic_weights, pl, diag, ctx);
}
