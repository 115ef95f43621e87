/* Quadrature: each element and face rule integrates every monomial up to its stated degree
 * exactly over its reference domain, and some monomial one degree higher inexactly (so the
 * stated degree is sharp and the test demonstrably can fail). The wedges' rules are checked in
 * both of their degrees: the total degree in the triangle and the degree along the axis; their
 * faces are checked face by face (triangles and quadrilaterals). */
#include "elem_test.h"

static double factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }

/* int_{-1}^{1} x^p dx */
static double line_integral(int p) { return (p % 2) ? 0.0 : 2.0 / (p + 1); }

/* Reference domains of the rules: a product of lines, the unit simplex, or (wedges) the unit
 * triangle times the line [-1, 1]. */
enum { DOMAIN_TENSOR, DOMAIN_SIMPLEX, DOMAIN_WEDGE };

/* Exact integral of x^p[0] y^p[1] z^p[2] over the reference domain: tensor domains are
 * products of lines; the unit simplex gives p0! p1! p2! / (p0 + p1 + p2 + dim)!; the wedge is
 * the unit triangle's p0! p1! / (p0 + p1 + 2)! times the line's integral of z^p2. */
static double exact_integral(int domain, int dim, const int p[3]) {
  if (domain == DOMAIN_TENSOR) {
    double v = 1.0;
    int k;
    for (k = 0; k < dim; k++) v *= line_integral(p[k]);
    return v;
  }
  if (domain == DOMAIN_WEDGE)
    return factorial(p[0]) * factorial(p[1]) / factorial(p[0] + p[1] + 2) * line_integral(p[2]);
  return factorial(p[0]) * factorial(p[1]) * factorial(p[2]) / factorial(p[0] + p[1] + p[2] + dim);
}

/* A rule: the element's (face < 0) or that of face `face`. */
typedef struct rule {
  int type, face, nqp;
} rule;

static void rule_point(const rule *r, int q, double x[3], double *w) {
  double st[2];
  if (r->face < 0) {
    dt_elem_qp(r->type, q, x, w);
    return;
  }
  dt_face_qp(r->type, r->face, q, st, w);
  x[0] = st[0];
  x[1] = st[1];
  x[2] = 0.0;
}

static double rule_integral(const rule *r, const int p[3]) {
  double x[3], w, v = 0.0;
  int q;
  for (q = 0; q < r->nqp; q++) {
    rule_point(r, q, x, &w);
    v += w * pow(x[0], p[0]) * pow(x[1], p[1]) * pow(x[2], p[2]);
  }
  return v;
}

/* Monomials with each exponent <= deg (tensor), total degree <= deg (simplex), or total degree
 * in x, y <= deg and z exponent <= zdeg (wedge) must be exact; returns how many monomials just
 * beyond (one more in the total or tensor degree; for the wedge, in either of its degrees)
 * are not: both counts must be positive for the stated degrees to be sharp. *zbad counts
 * those beyond zdeg (wedge only). */
static int check_rule(const char *what, const rule *r, int domain, int dim, int deg, int zdeg,
                      int *zbad) {
  int p[3], inexact = 0, top = deg + 1 > zdeg + 1 ? deg + 1 : zdeg + 1;
  *zbad = 0;
  for (p[0] = 0; p[0] <= top; p[0]++)
    for (p[1] = 0; p[1] <= (dim > 1 ? top : 0); p[1]++)
      for (p[2] = 0; p[2] <= (dim > 2 ? top : 0); p[2]++) {
        const int m01 = p[0] > p[1] ? p[0] : p[1], m = m01 > p[2] ? m01 : p[2];
        const int plane = p[0] + p[1];
        double got = rule_integral(r, p), want = exact_integral(domain, dim, p);
        int exact_wanted, beyond = 0;
        if (domain == DOMAIN_TENSOR) {
          exact_wanted = m <= deg;
          beyond = m == deg + 1;
        } else if (domain == DOMAIN_SIMPLEX) {
          exact_wanted = plane + p[2] <= deg;
          beyond = plane + p[2] == deg + 1;
        } else {
          exact_wanted = plane <= deg && p[2] <= zdeg;
          beyond = (plane == deg + 1 && p[2] <= zdeg) || (plane <= deg && p[2] == zdeg + 1);
        }
        if (exact_wanted)
          EXPECT(fabs(got - want) < 1e-13, "%s %s: x^%d y^%d z^%d integrates to %.17g, not %.17g",
                 elem_names[r->type], what, p[0], p[1], p[2], got, want);
        else if (beyond && fabs(got - want) > 1e-10) {
          if (domain == DOMAIN_WEDGE && p[2] == zdeg + 1)
            (*zbad)++;
          else
            inexact++;
        }
      }
  return inexact;
}

int main(void) {
  int type, face, zbad;
  char what[32];
  for (type = 0; type < DT_NTYPES; type++) {
    const int dim = dt_elem_dim(type), wedge = dt_elem_is_wedge(type);
    const int domain = dt_elem_is_tensor(type) ? DOMAIN_TENSOR
                       : wedge                 ? DOMAIN_WEDGE
                                               : DOMAIN_SIMPLEX;
    const int deg = dt_elem_qp_degree(type), zdeg = dt_elem_qp_axial_degree(type);
    const rule er = {type, -1, dt_elem_nqp(type)};
    int bad = check_rule("element rule", &er, domain, dim, deg, zdeg, &zbad);
    EXPECT(bad > 0, "%s element rule is exact beyond degree %d: update dt_elem_qp_degree",
           elem_names[type], deg);
    EXPECT(!wedge || zbad > 0,
           "%s element rule is exact beyond degree %d along the axis: update "
           "dt_elem_qp_axial_degree",
           elem_names[type], zdeg);
    for (face = 0; face < dt_elem_nfaces(type); face++) {
      /* faces: quad faces tensor 2D, 2D edges tensor 1D, triangles (tet and wedge faces) */
      const int kind = dt_face_kind(type, face), fdeg = dt_face_qp_degree(type, face);
      const int fdomain = (kind == DT_TET4 || kind == DT_TET10) ? DOMAIN_SIMPLEX : DOMAIN_TENSOR;
      const rule fr = {type, face, dt_face_nqp(type, face)};
      snprintf(what, sizeof what, "face %d rule", face + 1);
      bad = check_rule(what, &fr, fdomain, dim - 1, fdeg, fdeg, &zbad);
      EXPECT(bad > 0, "%s face %d rule is exact beyond degree %d: update dt_face_qp_degree",
             elem_names[type], face + 1, fdeg);
    }
  }
  return elem_test_result("test_elem_quadrature");
}
