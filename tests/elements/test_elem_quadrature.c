/* Quadrature: each element and face rule integrates every monomial up to its stated degree
 * exactly over its reference domain, and some monomial one degree higher inexactly (so the
 * stated degree is sharp and the test demonstrably can fail). */
#include "elem_test.h"

static double factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }

/* int_{-1}^{1} x^p dx */
static double line_integral(int p) { return (p % 2) ? 0.0 : 2.0 / (p + 1); }

/* Exact integral of x^p[0] y^p[1] z^p[2] over the reference domain: tensor domains are
 * products of lines; the unit simplex gives p0! p1! p2! / (p0 + p1 + p2 + dim)!. */
static double exact_integral(int tensor, int dim, const int p[3]) {
  if (tensor) {
    double v = 1.0;
    int k;
    for (k = 0; k < dim; k++) v *= line_integral(p[k]);
    return v;
  }
  return factorial(p[0]) * factorial(p[1]) * factorial(p[2]) / factorial(p[0] + p[1] + p[2] + dim);
}

typedef void (*rule_fn)(int type, int q, double x[3], double *w);

static void elem_rule(int type, int q, double x[3], double *w) { dt_elem_qp(type, q, x, w); }
static void face_rule(int type, int q, double x[3], double *w) {
  double st[2];
  dt_face_qp(type, q, st, w);
  x[0] = st[0];
  x[1] = st[1];
  x[2] = 0.0;
}

static double rule_integral(rule_fn rule, int type, int nqp, const int p[3]) {
  double x[3], w, v = 0.0;
  int q;
  for (q = 0; q < nqp; q++) {
    rule(type, q, x, &w);
    v += w * pow(x[0], p[0]) * pow(x[1], p[1]) * pow(x[2], p[2]);
  }
  return v;
}

/* Monomials with each exponent <= deg (tensor) or total degree <= deg (simplex) must be
 * exact; returns how many monomials of degree deg + 1 are not. */
static int check_rule(const char *what, rule_fn rule, int type, int nqp, int tensor, int dim,
                      int deg) {
  int p[3], inexact = 0;
  for (p[0] = 0; p[0] <= deg + 1; p[0]++)
    for (p[1] = 0; p[1] <= (dim > 1 ? deg + 1 : 0); p[1]++)
      for (p[2] = 0; p[2] <= (dim > 2 ? deg + 1 : 0); p[2]++) {
        int top = tensor ? (p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]))
                         : p[0] + p[1] + p[2];
        double got = rule_integral(rule, type, nqp, p), want = exact_integral(tensor, dim, p);
        if (top <= deg)
          EXPECT(fabs(got - want) < 1e-13, "%s %s: x^%d y^%d z^%d integrates to %.17g, not %.17g",
                 elem_names[type], what, p[0], p[1], p[2], got, want);
        else if (top == deg + 1 && fabs(got - want) > 1e-10)
          inexact++;
      }
  return inexact;
}

int main(void) {
  int type;
  for (type = 0; type < DT_NTYPES; type++) {
    const int dim = dt_elem_dim(type), tensor = dt_elem_is_tensor(type);
    const int deg = dt_elem_qp_degree(type), fdeg = dt_face_qp_degree(type);
    /* faces: quad faces of hex8 are tensor 2D, 2D edges tensor 1D, tet faces triangles */
    const int fdim = dim - 1, ftensor = (type != DT_TET4 && type != DT_TET10);
    int bad = check_rule("element rule", elem_rule, type, dt_elem_nqp(type), tensor, dim, deg);
    EXPECT(bad > 0, "%s element rule is exact beyond degree %d: update dt_elem_qp_degree",
           elem_names[type], deg);
    bad = check_rule("face rule", face_rule, type, dt_face_nqp(type), ftensor, fdim, fdeg);
    EXPECT(bad > 0, "%s face rule is exact beyond degree %d: update dt_face_qp_degree",
           elem_names[type], fdeg);
  }
  return elem_test_result("test_elem_quadrature");
}
