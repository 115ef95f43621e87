/* v = K u for the matrix-free elasticity operator: gather, reference gradients by sum
 * factorisation, stress at the Gauss points, transposed contractions, scatter-add by colour. */
#include <string.h>

#include "core/omp_threads.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_elastic_tensor.h"

/* Doubles of scratch one element needs: nodal u and v (3 (P+1)^3 each), gradients and fluxes
 * (9 nq^3) and the two contraction buffers. */
static size_t scratch_size(int P1, int Q) {
  return 6 * (size_t)P1 * P1 * P1 + 9 * (size_t)Q * Q * Q + (size_t)P1 * P1 * Q +
         (size_t)P1 * Q * Q;
}

/* At one point: du[c][i] = du_c/dxi_i in, f[c][i] = w det J sigma_cj dxi_i/dx_j out (same
 * storage, stride nq3). */
static void point_stress(const double *qd, int nq3, int q, double lam, double mu, double *g) {
  double X[3][3], H[3][3], S[3][3];
  double wdet = qd[q];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) X[i][j] = qd[(1 + 3 * i + j) * nq3 + q];
  /* H = grad u: H[c][j] = sum_i du_c/dxi_i dxi_i/dx_j */
  for (int c = 0; c < 3; c++)
    for (int j = 0; j < 3; j++)
      H[c][j] = g[(3 * c) * nq3 + q] * X[0][j] + g[(3 * c + 1) * nq3 + q] * X[1][j] +
                g[(3 * c + 2) * nq3 + q] * X[2][j];
  /* sigma = lambda tr(H) I + mu (H + H^T) */
  double tr = H[0][0] + H[1][1] + H[2][2];
  for (int c = 0; c < 3; c++)
    for (int j = 0; j < 3; j++) S[c][j] = mu * (H[c][j] + H[j][c]) + (c == j ? lam * tr : 0.0);
  /* f[c][i] = w det J sum_j sigma[c][j] dxi_i/dx_j */
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 3; i++)
      g[(3 * c + i) * nq3 + q] = wdet * (S[c][0] * X[i][0] + S[c][1] * X[i][1] + S[c][2] * X[i][2]);
}

static void element_apply(const dt_ho_elastic *op, int e, const double *u, double *v,
                          double *work) {
  int P1 = op->order + 1, Q = op->nq, n3 = P1 * P1 * P1, nq3 = Q * Q * Q;
  double *ue = work, *ve = ue + 3 * n3, *g = ve + 3 * n3, *t1 = g + 9 * nq3, *t2 = t1 + P1 * P1 * Q;
  const double *B = op->B, *G = op->G;
  const int *row = op->elem_nodes + (size_t)e * n3;
  const double *qd = op->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
  for (int a = 0; a < n3; a++)
    for (int c = 0; c < 3; c++) ue[c * n3 + a] = u[3 * (size_t)row[a] + c];
  /* du_c/dxi_i at the points: G along direction i, B along the other two */
  for (int c = 0; c < 3; c++) {
    dt_ho_interp3(P1, Q, G, B, B, ue + c * n3, g + (3 * c + 0) * nq3, t1, t2);
    dt_ho_interp3(P1, Q, B, G, B, ue + c * n3, g + (3 * c + 1) * nq3, t1, t2);
    dt_ho_interp3(P1, Q, B, B, G, ue + c * n3, g + (3 * c + 2) * nq3, t1, t2);
  }
  for (int q = 0; q < nq3; q++) point_stress(qd, nq3, q, op->lambda[e], op->mu[e], g);
  for (int c = 0; c < 3; c++) {
    dt_ho_interp3_t(P1, Q, G, B, B, g + (3 * c + 0) * nq3, ve + c * n3, 0, t1, t2);
    dt_ho_interp3_t(P1, Q, B, G, B, g + (3 * c + 1) * nq3, ve + c * n3, 1, t1, t2);
    dt_ho_interp3_t(P1, Q, B, B, G, g + (3 * c + 2) * nq3, ve + c * n3, 1, t1, t2);
  }
  for (int a = 0; a < n3; a++)
    for (int c = 0; c < 3; c++) v[3 * (size_t)row[a] + c] += ve[c * n3 + a];
}

dt_status dt_ho_elastic_apply(const dt_ho_elastic *op, const double *u, double *v, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *work = NULL;
  int nthreads = dt_omp_max_threads();
  size_t ws = scratch_size(op->order + 1, op->nq);
  DT_ALLOC(work, ws * nthreads, ctx, "elasticity apply scratch");
  memset(v, 0, sizeof(double) * 3 * (size_t)op->n_nodes);
  for (int c = 0; c < op->n_colors; c++) {
    int lo = op->color_ptr[c], hi = op->color_ptr[c + 1];
#pragma omp parallel for schedule(static) if ((long)(hi - lo) * op->nq * op->nq * op->nq >=        \
                                              DT_HO_PARALLEL_POINTS)
    for (int k = lo; k < hi; k++)
      element_apply(op, op->color_elems[k], u, v, work + ws * dt_omp_thread());
  }
cleanup:
  dt_free(work);
  return rc;
}

dt_status dt_ho_elastic_apply_fn(const void *op, const double *u, double *v, dt_ctx *ctx) {
  return dt_ho_elastic_apply((const dt_ho_elastic *)op, u, v, ctx);
}
