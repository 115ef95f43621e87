/* linear.preconditioner "direct" on the CPU backend (backend/cpu/cpu_direct.c, CHOLMOD).
 * 1. Linear elasticity on a hex8 box clamped at z = 0 under a fixed load vector: PCG with the
 *    factor converges in at most 2 iterations to a true residual |K x - b| / |b| below 1e-10
 *    (computed with operator_apply), and x equals block Jacobi's solution (to 1e-12) within
 *    1e-9 (relative 2-norm); the view names the factor.
 * 2. The unit tests' plastic bar (J2, 3 increments, a tangent per Newton iteration): the same
 *    Newton iterations as block Jacobi, displacements equal to 1e-7 of the largest, at most 20
 *    PCG iterations per solve (the kept factors' solves included: newton.c keeps a factor while
 *    its solves take at most 20), and some setups kept the factor (the summary counts them).
 * 3. With the matrix-free operator "direct" is refused (DT_ERR_UNSUPPORTED, the message names
 *    the assembled operator) and the preconditioner in use stays.
 * A build without CHOLMOD checks instead that "direct" is refused with the package to install. */
#include <math.h>

#include "analysis/analysis.h"
#include "backend/backend.h"
#include "problem/problem.h"
#include "unit_solve.h"

/* The clamped box's K x = b with preconditioner pc, to rtol; returns PCG's iterations, x in x,
 * the true relative residual in *relres, and the backend's view in view (NULL: not wanted). */
static int solve(const dt_problem *pb, int pc, double rtol, double *x, double *relres, char *view,
                 size_t view_len) {
  return unit_clamped_box_solve(pb, pc, rtol, 20000, x, relres, view, view_len);
}

static double rel_diff(const double *a, const double *b, int n) {
  double d = 0.0, s = 0.0;
  for (int i = 0; i < n; i++) d += (a[i] - b[i]) * (a[i] - b[i]), s += b[i] * b[i];
  return sqrt(d / s);
}

static void check_linear(void) {
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_model *m = unit_box(12, 6, 5, 0);
  static char view[4096];
  double rel_d = 0.0, rel_b = 0.0;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_problem_create(m, &pb, &ctx) == DT_OK, "%s", ctx.msg);
  double *xd = calloc((size_t)pb->n_dofs, sizeof(double));
  double *xb = calloc((size_t)pb->n_dofs, sizeof(double));
  CHECK(xd && xb, "out of memory");
  int it_d = solve(pb, DT_PC_DIRECT, 1e-10, xd, &rel_d, view, sizeof view);
  int it_b = solve(pb, DT_PC_BLOCK_JACOBI, 1e-12, xb, &rel_b, NULL, 0);
  printf("linear: %d DOFs, direct %d PCG iterations (true residual %.1e), block Jacobi %d; "
         "solutions differ by %.1e\n",
         pb->n_dofs, it_d, rel_d, it_b, rel_diff(xd, xb, pb->n_dofs));
  CHECK(it_d <= 2, "direct took %d PCG iterations", it_d);
  CHECK(rel_d < 1e-10, "direct: true residual %g", rel_d);
  CHECK(rel_diff(xd, xb, pb->n_dofs) < 1e-9, "direct and block Jacobi differ by %g",
        rel_diff(xd, xb, pb->n_dofs));
  CHECK(strstr(view, "direct: CHOLMOD") && strstr(view, "1 factorizations"),
        "the view names the factor:\n%s", view);
  free(xd);
  free(xb);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

static void check_plastic(void) {
  static unit_record d, bj;
  dt_run_summary sd, sb;
  long kept, kept_bj;
  double du = 0.0, umax = 0.0;
  unit_plastic_bar_run(DT_PC_DIRECT, &d, &sd);
  unit_plastic_bar_run(DT_PC_BLOCK_JACOBI, &bj, &sb);
  kept = sd.pc_setups_kept;
  kept_bj = sb.pc_setups_kept;
  for (int i = 0; i < 3 * bj.n_nodes; i++)
    du = fmax(du, fabs(d.u[i] - bj.u[i])), umax = fmax(umax, fabs(bj.u[i]));
  printf("plastic bar: Newton %d (block_jacobi %d), PCG %d (block_jacobi %d), %ld setups kept "
         "the factor, displacements differ by %.1e\n",
         d.newton, bj.newton, d.pcg, bj.pcg, kept, du / umax);
  CHECK(d.newton == bj.newton, "Newton iterations: direct %d, block Jacobi %d", d.newton,
        bj.newton);
  CHECK(du <= 1e-7 * umax, "displacements differ by %g of %g", du, umax);
  CHECK(d.pcg <= 20 * d.newton, "direct: %d PCG iterations for %d solves", d.pcg, d.newton);
  CHECK(kept > 0 && kept < d.newton, "direct: %ld of %d setups kept the factor", kept, d.newton);
  CHECK(kept_bj == 0, "block Jacobi kept %ld setups", kept_bj);
}

static void check_matrix_free(void) {
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_model *m = unit_box(4, 3, 3, 0);
  dt_backend_options bo = {.threads = 1, .device = 0};
  dt_stress_report rep;
  void *impl = NULL;
  m->solver.matrix_free = 1;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_problem_create(m, &pb, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.problem_upload(pb, &bo, &impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.stress_update(impl, DT_VEC_UT, DT_VEC_FINT, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.pc_setup(impl, DT_PC_BLOCK_JACOBI, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.pc_setup(impl, DT_PC_DIRECT, &ctx) == DT_ERR_UNSUPPORTED &&
            strstr(ctx.msg, "assembled"),
        "matrix-free direct: want DT_ERR_UNSUPPORTED naming the assembled operator, got %d: %s",
        ctx.code, ctx.msg);
  memset(&ctx, 0, sizeof ctx);
  CHECK(dt_cpu_ops.pc_apply(impl, DT_VEC_R, DT_VEC_PCG_Z, &ctx) == DT_OK,
        "block Jacobi must stay in use: %s", ctx.msg);
  printf("matrix-free: direct refused, block Jacobi kept\n");
  dt_cpu_ops.destroy(impl);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

int main(void) {
#ifdef DUCTILE_HAVE_CHOLMOD
  check_linear();
  check_plastic();
  check_matrix_free();
#else
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_model *m = unit_box(3, 3, 3, 0);
  dt_backend_options bo = {.threads = 1, .device = 0};
  void *impl = NULL;
  CHECK(dt_model_finish(m, &ctx) == DT_OK && dt_problem_create(m, &pb, &ctx) == DT_OK, "%s",
        ctx.msg);
  CHECK(dt_cpu_ops.problem_upload(pb, &bo, &impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.pc_setup(impl, DT_PC_DIRECT, &ctx) == DT_ERR_UNSUPPORTED &&
            strstr(ctx.msg, "libsuitesparse-dev"),
        "a build without CHOLMOD must refuse direct naming the package: %s", ctx.msg);
  printf("built without CHOLMOD: direct refused\n");
  dt_cpu_ops.destroy(impl);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
#endif
  return 0;
}
