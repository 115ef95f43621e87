/* Element and nodal averaging, von Mises, reason names, dt_fields_free. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_fixture.h"

static int close_to(double a, double b) { return fabs(a - b) <= 1e-14 * (1.0 + fabs(b)); }

static void test_averages(void) {
  dt_model m;
  dt_fields f;
  dt_ctx ctx;
  double elem[12], nodal[72], peeq[12];
  int e, n, c;
  memset(&m, 0, sizeof m);
  dt_ctx_reset(&ctx);
  fix_model(&m);
  fix_fields(&m, 2, &f);
  dt_fields_element_average(&f, f.qp_stress, 6, elem);
  for (e = 0; e < 2; e++)
    for (c = 0; c < 6; c++)
      CHECK(close_to(elem[6 * e + c], fix_elem_stress(e, c, 2)), "element %d comp %d: %.17g", e, c,
            elem[6 * e + c]);
  CHECK(dt_fields_nodal_average(&m, &f, f.qp_stress, 6, nodal, &ctx) == DT_OK, "%s", ctx.msg);
  for (n = 0; n < 12; n++) {
    const int i = n % 3; /* x index: 0 only element 0, 2 only element 1, 1 shared */
    for (c = 0; c < 6; c++) {
      const double want = i == 0   ? fix_elem_stress(0, c, 2)
                          : i == 2 ? fix_elem_stress(1, c, 2)
                                   : 0.5 * (fix_elem_stress(0, c, 2) + fix_elem_stress(1, c, 2));
      CHECK(close_to(nodal[6 * n + c], want), "node %d comp %d: %.17g, want %.17g", n, c,
            nodal[6 * n + c], want);
    }
  }
  CHECK(dt_fields_nodal_average(&m, &f, f.qp_peeq, 1, peeq, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(close_to(peeq[1], 0.5 * (fix_elem_peeq(0, 2) + fix_elem_peeq(1, 2))), "shared PEEQ %.17g",
        peeq[1]);
  CHECK(close_to(peeq[0], fix_elem_peeq(0, 2)) && close_to(peeq[11], fix_elem_peeq(1, 2)),
        "corner PEEQ %.17g %.17g", peeq[0], peeq[11]);
  /* A mismatched fields object is an internal error, with a message. */
  f.n_elems = 1;
  CHECK(dt_fields_nodal_average(&m, &f, f.qp_peeq, 1, peeq, &ctx) == DT_ERR_INTERNAL &&
            strstr(ctx.msg, "do not match") != NULL,
        "mismatch not reported: '%s'", ctx.msg);
  f.n_elems = 2;
  dt_fields_free(&f);
  CHECK(f.u == NULL && f.qp_stress == NULL && f.n_qp == 0, "dt_fields_free did not zero");
  dt_fields_free(&f); /* twice is fine */
  dt_fields_free(NULL);
  fix_model_free(&m);
}

static void test_mises(void) {
  const double uni[6] = {250, 0, 0, 0, 0, 0}, hydro[6] = {-7, -7, -7, 0, 0, 0};
  const double shear[6] = {0, 0, 0, 0, 10, 0}, gen[6] = {1, 2, 3, 4, 5, 6};
  CHECK(close_to(dt_mises(uni), 250), "uniaxial %.17g", dt_mises(uni));
  CHECK(dt_mises(hydro) == 0, "hydrostatic %.17g", dt_mises(hydro));
  CHECK(close_to(dt_mises(shear), 10 * sqrt(3.0)), "shear %.17g", dt_mises(shear));
  /* sqrt(((1-2)^2 + (2-3)^2 + (3-1)^2)/2 + 3 (16+25+36)) = sqrt(3 + 231) */
  CHECK(close_to(dt_mises(gen), sqrt(234.0)), "general %.17g", dt_mises(gen));
}

static void test_reason_names(void) {
  static const char *const want[] = {"converged",
                                     "diverged_iterations",
                                     "diverged_nan",
                                     "diverged_residual",
                                     "linear_solver_failed",
                                     "indefinite_tangent",
                                     "material_no_convergence",
                                     "increment_too_small"};
  int r;
  for (r = 0; r <= DT_INCREMENT_TOO_SMALL; r++)
    CHECK(strcmp(dt_reason_name((dt_reason)r), want[r]) == 0, "reason %d is '%s'", r,
          dt_reason_name((dt_reason)r));
  CHECK(strcmp(dt_reason_name((dt_reason)99), "unknown") == 0, "out of range");
}

int main(void) {
  test_averages();
  test_mises();
  test_reason_names();
  printf("io_average: ok\n");
  return 0;
}
