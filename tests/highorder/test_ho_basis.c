/* The 1D tables of the tensor-product elements against exact integrals and interpolation:
 * Gauss-Legendre with n points integrates x^k exactly for k <= 2n - 1, Gauss-Lobatto for
 * k <= 2n - 3; the five-point Lobatto nodes are 0, +-sqrt(3/7), +-1 (closed form); the
 * Lagrange basis reproduces every polynomial of degree <= P and its derivative. Tolerance
 * 1e-13 relative (round-off of the Newton roots). */
#include <math.h>
#include <stdio.h>

#include "highorder/ho_basis.h"
#include "../test_expect.h"

/* integral of x^k over [-1, 1] */
static double monomial_integral(int k) { return (k % 2) ? 0.0 : 2.0 / (k + 1); }

static void check_rules(void) {
  double x[DT_HO_MAX_QPOINTS], w[DT_HO_MAX_QPOINTS];
  dt_ctx ctx = {0};
  for (int n = 1; n <= DT_HO_MAX_QPOINTS; n++) {
    EXPECT(dt_ho_gauss_legendre(n, x, w, &ctx) == DT_OK, "n %d: %s", n, ctx.msg);
    for (int k = 0; k <= 2 * n - 1; k++) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += w[i] * pow(x[i], k);
      EXPECT(fabs(s - monomial_integral(k)) < 1e-13, "Gauss-Legendre n %d k %d: %.16g", n, k, s);
    }
    for (int i = 1; i < n; i++) EXPECT(x[i] > x[i - 1], "Gauss-Legendre n %d not ascending", n);
  }
  for (int n = 2; n <= DT_HO_MAX_NODES; n++) {
    EXPECT(dt_ho_gauss_lobatto(n, x, w, &ctx) == DT_OK, "n %d: %s", n, ctx.msg);
    for (int k = 0; k <= 2 * n - 3; k++) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += w[i] * pow(x[i], k);
      EXPECT(fabs(s - monomial_integral(k)) < 1e-13, "Gauss-Lobatto n %d k %d: %.16g", n, k, s);
    }
  }
  EXPECT(dt_ho_gauss_lobatto(5, x, w, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(fabs(x[1] + sqrt(3.0 / 7.0)) < 1e-15 && fabs(x[2]) < 1e-15 &&
             fabs(x[3] - sqrt(3.0 / 7.0)) < 1e-15,
         "five Lobatto nodes %.17g %.17g %.17g", x[1], x[2], x[3]);
  EXPECT(fabs(w[0] - 0.1) < 1e-15 && fabs(w[2] - 32.0 / 45.0) < 1e-15, "weights %g %g", w[0], w[2]);
  dt_ctx bad = {0};
  EXPECT(dt_ho_gauss_legendre(0, x, w, &bad) == DT_ERR_INPUT, "0 points accepted");
  EXPECT(dt_ho_gauss_lobatto(DT_HO_MAX_NODES + 1, x, w, &bad) == DT_ERR_INPUT,
         "too many points accepted");
}

static void check_tables(void) {
  dt_ho_basis1d b;
  dt_ctx ctx = {0};
  for (int P = 1; P <= DT_HO_MAX_ORDER; P++) {
    EXPECT(dt_ho_basis1d_init(&b, P, 0, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
    EXPECT(b.nnodes == P + 1 && b.nqp == P + 2, "P %d sizes %d %d", P, b.nnodes, b.nqp);
    for (int q = 0; q < b.nqp; q++) {
      /* interpolate x^P and check value and derivative at the point */
      double u = 0.0, du = 0.0, one = 0.0, zero = 0.0;
      for (int a = 0; a < b.nnodes; a++) {
        double nodal = pow(b.node[a], P);
        u += b.interp[q * b.nnodes + a] * nodal;
        du += b.grad[q * b.nnodes + a] * nodal;
        one += b.interp[q * b.nnodes + a];
        zero += b.grad[q * b.nnodes + a];
      }
      double x = b.qp[q];
      EXPECT(fabs(u - pow(x, P)) < 1e-12, "P %d q %d value %.16g", P, q, u);
      EXPECT(fabs(du - P * pow(x, P - 1)) < 1e-10 * P * P, "P %d q %d slope %.16g", P, q, du);
      EXPECT(fabs(one - 1.0) < 1e-13 && fabs(zero) < 1e-10 * P * P,
             "P %d q %d partition of unity %g %g", P, q, one, zero);
    }
  }
  dt_ctx bad = {0};
  EXPECT(dt_ho_basis1d_init(&b, 0, 0, &bad) == DT_ERR_INPUT, "order 0 accepted");
  EXPECT(dt_ho_basis1d_init(&b, DT_HO_MAX_ORDER + 1, 0, &bad) == DT_ERR_INPUT,
         "order above the maximum accepted");
}

int main(void) {
  check_rules();
  check_tables();
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
