/* v = K u for the matrix-free elasticity operator: the shared element sweep (ho_element.h) with
 * the linear elastic stress at the Gauss points. */
#include "highorder/ho_elastic.h"
#include "highorder/ho_element.h"

/* At every point of element e: g holds du_c/dxi_i in and w det J sigma_cj dxi_i/dx_j out. */
void dt_ho_elastic_qfunc(const void *user, int e, const double *qd, int nq3, double *g) {
  const dt_ho_elastic *op = user;
  double lam = op->lambda[e], mu = op->mu[e];
  for (int q = 0; q < nq3; q++) {
    double X[3][3], H[3][3], S[3][3];
    dt_ho_point_inverse_jacobian(qd, nq3, q, X);
    dt_ho_point_gradient(g, nq3, q, X, H);
    /* sigma = lambda tr(H) I + mu (H + H^T) */
    double tr = H[0][0] + H[1][1] + H[2][2];
    for (int c = 0; c < 3; c++)
      for (int j = 0; j < 3; j++) S[c][j] = mu * (H[c][j] + H[j][c]) + (c == j ? lam * tr : 0.0);
    dt_ho_point_flux(qd[q], X, S, nq3, q, g);
  }
}

dt_status dt_ho_elastic_apply(const dt_ho_elastic *op, const double *u, double *v, dt_ctx *ctx) {
  return dt_ho_element_sweep(op, u, v, dt_ho_elastic_qfunc, op, ctx);
}

dt_status dt_ho_elastic_apply_fn(const void *op, const double *u, double *v, dt_ctx *ctx) {
  return dt_ho_elastic_apply((const dt_ho_elastic *)op, u, v, ctx);
}
