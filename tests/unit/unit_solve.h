/* The linear solve of the PCG and preconditioner tests: a box's K x = b on the CPU backend with
 * the nodes at z = 0 clamped and b a fixed smooth vector, checked against a residual computed
 * independently with operator_apply. */
#ifndef DT_UNIT_SOLVE_H
#define DT_UNIT_SOLVE_H

#include "unit_model.h"

extern const dt_backend_ops dt_cpu_ops;

/* K x = b with preconditioner pc to rtol in at most max_iter iterations (PCG must converge);
 * returns the iterations, the true relative residual |K x - b| / |b| in *relres, x in x and the
 * backend's view in view (each NULL: not wanted). */
static inline int unit_clamped_box_solve(const dt_problem *pb, int pc, double rtol, int max_iter,
                                         double *x, double *relres, char *view, size_t view_len) {
  dt_ctx ctx = {0};
  void *impl = NULL;
  dt_backend_options bo = {.threads = 2, .device = 0};
  dt_stress_report rep;
  dt_pcg_result res;
  int n = pb->n_dofs;
  double *con = calloc((size_t)n, sizeof(double)), *b = calloc((size_t)n, sizeof(double));
  double *r = calloc((size_t)n, sizeof(double)), bb = 0.0, rr = 0.0;
  CHECK(con && b && r, "out of memory");
  for (int a = 0; a < pb->n_nodes; a++)
    if (pb->x[3 * a + 2] == 0.0) con[3 * a] = con[3 * a + 1] = con[3 * a + 2] = 1.0;
  for (int i = 0; i < n; i++) b[i] = con[i] ? 0.0 : sin(0.37 * i + 1.0);
  CHECK(dt_cpu_ops.problem_upload(pb, &bo, &impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_CON, con, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.stress_update(impl, DT_VEC_UT, DT_VEC_FINT, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.pc_setup(impl, pc, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_R, b, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_pcg_solve(&dt_cpu_ops, impl, rtol, max_iter, &res, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(res.reason == DT_CONVERGED, "%s: PCG reason %d after %d iterations", dt_precond_names[pc],
        res.reason, res.iterations);
  if (x) CHECK(dt_cpu_ops.vec_get(impl, DT_VEC_X, x, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.operator_apply(impl, DT_VEC_X, DT_VEC_W, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.vec_get(impl, DT_VEC_W, r, &ctx) == DT_OK, "%s", ctx.msg);
  for (int i = 0; i < n; i++) {
    bb += b[i] * b[i];
    rr += (r[i] - b[i]) * (r[i] - b[i]);
  }
  *relres = sqrt(rr / bb);
  if (view) {
    FILE *f = fmemopen(view, view_len - 1, "w");
    CHECK(f != NULL, "fmemopen");
    dt_cpu_ops.view(impl, f);
    fclose(f);
  }
  dt_cpu_ops.destroy(impl);
  free(con);
  free(b);
  free(r);
  return res.iterations;
}

#endif
