/* Lobatto nodes, Gauss-Legendre rules and Lagrange tables for tensor-product elements. */
#include "highorder/ho_basis.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Legendre polynomial P_n(x) and its derivative by the three-term recurrence. */
static void legendre(int n, double x, double *p, double *dp) {
  double p0 = 1.0, p1 = x;
  if (n == 0) {
    *p = 1.0;
    *dp = 0.0;
    return;
  }
  for (int k = 2; k <= n; k++) {
    double pk = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
    p0 = p1;
    p1 = pk;
  }
  *p = p1;
  /* P_n' = n (x P_n - P_{n-1}) / (x^2 - 1), valid away from the endpoints where it is used. */
  *dp = n * (x * p1 - p0) / (x * x - 1.0);
}

dt_status dt_ho_gauss_legendre(int n, double *x, double *w, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(n >= 1 && n <= DT_HO_MAX_QPOINTS, ctx, DT_ERR_INPUT,
           "a Gauss-Legendre rule has 1 to %d points, not %d", DT_HO_MAX_QPOINTS, n);
  for (int i = 0; i < n; i++) {
    /* Roots in descending order from the classical guess, then stored ascending. */
    double t = cos(M_PI * (i + 0.75) / (n + 0.5)), p, dp;
    for (int it = 0; it < 100; it++) {
      legendre(n, t, &p, &dp);
      double step = p / dp;
      t -= step;
      if (fabs(step) < 1e-16) break;
    }
    legendre(n, t, &p, &dp);
    x[n - 1 - i] = t;
    w[n - 1 - i] = 2.0 / ((1.0 - t * t) * dp * dp);
  }
cleanup:
  return rc;
}

dt_status dt_ho_gauss_lobatto(int n, double *x, double *w, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(n >= 2 && n <= DT_HO_MAX_NODES, ctx, DT_ERR_INPUT,
           "a Gauss-Lobatto rule has 2 to %d points, not %d", DT_HO_MAX_NODES, n);
  int m = n - 1; /* interior points are the roots of P_m' */
  x[0] = -1.0;
  x[m] = 1.0;
  for (int i = 1; i < m; i++) {
    double t = -cos(M_PI * i / m);
    for (int it = 0; it < 100; it++) {
      /* Newton on q = P_m'(t), with q' from Legendre's equation:
       * (1 - t^2) P_m'' = 2 t P_m' - m (m + 1) P_m. */
      double p, dp;
      legendre(m, t, &p, &dp);
      double d2p = (2.0 * t * dp - m * (m + 1.0) * p) / (1.0 - t * t);
      double step = dp / d2p;
      t -= step;
      if (fabs(step) < 1e-16) break;
    }
    x[i] = t;
  }
  for (int i = 0; i <= m; i++) {
    double p, dp;
    if (i == 0 || i == m)
      p = (i == 0 && (m % 2)) ? -1.0 : 1.0; /* P_m(-1) = (-1)^m, P_m(1) = 1 */
    else
      legendre(m, x[i], &p, &dp);
    w[i] = 2.0 / (m * (m + 1.0) * p * p);
  }
cleanup:
  return rc;
}

void dt_ho_lagrange(int n, const double *node, double x, double *L, double *dL) {
  for (int a = 0; a < n; a++) {
    double val = 1.0, der = 0.0;
    for (int b = 0; b < n; b++) {
      if (b == a) continue;
      double scale = 1.0 / (node[a] - node[b]);
      /* product rule, accumulated factor by factor */
      der = der * (x - node[b]) * scale + val * scale;
      val *= (x - node[b]) * scale;
    }
    L[a] = val;
    if (dL) dL[a] = der;
  }
}

dt_status dt_ho_basis1d_init(dt_ho_basis1d *b, int order, int nqp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double w[DT_HO_MAX_NODES];
  DT_CHECK(order >= 1 && order <= DT_HO_MAX_ORDER, ctx, DT_ERR_INPUT,
           "element order %d is outside 1..%d", order, DT_HO_MAX_ORDER);
  if (nqp == 0) nqp = order + 2;
  DT_CHECK(nqp >= 1 && nqp <= DT_HO_MAX_QPOINTS, ctx, DT_ERR_INPUT,
           "%d quadrature points per direction is outside 1..%d", nqp, DT_HO_MAX_QPOINTS);
  memset(b, 0, sizeof(*b));
  b->order = order;
  b->nnodes = order + 1;
  b->nqp = nqp;
  DT_TRY(dt_ho_gauss_lobatto(b->nnodes, b->node, w, ctx));
  DT_TRY(dt_ho_gauss_legendre(nqp, b->qp, b->qw, ctx));
  for (int q = 0; q < nqp; q++)
    dt_ho_lagrange(b->nnodes, b->node, b->qp[q], b->interp + q * b->nnodes,
                   b->grad + q * b->nnodes);
cleanup:
  return rc;
}
