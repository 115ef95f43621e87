/* Linear constraints (equations) below the driver:
 *  - resolution into independent DOFs (model_equation.c): a cascaded equation takes the row of
 *    the dependent DOF among its terms, repeated DOFs merge, coefficients divide by the
 *    dependent one's (exact values in binary: compared with ==);
 *  - the model's rules: a dependent DOF with a boundary condition, dependent twice, a cycle
 *    (DT_ERR_INPUT, the equation at fault in *bad, the message naming the node and DOF);
 *  - the three operations on vectors: EXPAND then dot equals dot then REDUCE ((T x).y = x.(T^T y)
 *    for x zero on the dependent DOFs, to 1e-14 relative), REDUCE zeroes the dependent DOFs, and
 *    the backend DUCTILE_BACKEND names (cpu by default; cuda in unit_equations_gpu) gives the
 *    host's results to 1e-15 relative (the same sums in the same order). */
#include "unit_model.h"

static int node_at(const dt_model *m, double x, double y, double z) {
  for (int a = 0; a < m->n_nodes; a++)
    if (fabs(m->x[3 * a] - x) < 1e-12 && fabs(m->x[3 * a + 1] - y) < 1e-12 &&
        fabs(m->x[3 * a + 2] - z) < 1e-12)
      return a;
  CHECK(0, "no node at (%g, %g, %g)", x, y, z);
  return -1;
}

static void add(dt_model *m, int n, const int *node, const int *dof, const double *coef) {
  dt_ctx ctx = {0};
  CHECK(dt_model_add_equation(m, n, node, dof, coef, &ctx) == DT_OK, "%s", ctx.msg);
}

/* A regular 2 x 1 x 1 box (nodes on a 0.5 grid) with three equations:
 *   u_x(c) - u_x(a) = 0                    c dependent on a
 *   2 u_x(d) - u_x(c) - u_x(a) = 0         d on c (cascaded) and a: u_x(d) = u_x(a)
 *   4 u_y(e) - 3 u_z(b) + 2 u_z(b) = 0     repeated term: u_y(e) = 0.25 u_z(b) */
static dt_model *model_with_equations(int *a, int *b, int *c, int *d, int *e) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  CHECK(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_mesh_box_hex8(m, 2, 1, 1, 2.0, 1.0, 1.0, &ctx) == DT_OK, "%s", ctx.msg);
  unit_model_material(m, 0);
  *a = node_at(m, 0, 0, 0), *b = node_at(m, 1, 0, 0), *c = node_at(m, 2, 0, 0);
  *d = node_at(m, 2, 1, 0), *e = node_at(m, 2, 1, 1);
  add(m, 2, (int[]){*c, *a}, (int[]){0, 0}, (double[]){1.0, -1.0});
  add(m, 3, (int[]){*d, *c, *a}, (int[]){0, 0, 0}, (double[]){2.0, -1.0, -1.0});
  add(m, 3, (int[]){*e, *b, *b}, (int[]){1, 2, 2}, (double[]){4.0, -3.0, 2.0});
  return m;
}

static void test_resolve(void) {
  int a, b, c, d, e, bad = 0;
  dt_ctx ctx = {0};
  dt_mpc mpc;
  dt_model *m = model_with_equations(&a, &b, &c, &d, &e);
  CHECK(dt_model_equations_resolve(m, 3, &mpc, &bad, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(mpc.n == 3, "%d rows", mpc.n);
  CHECK(mpc.dof[0] == 3 * c && mpc.dof[1] == 3 * d && mpc.dof[2] == 3 * e + 1, "dependent DOFs");
  CHECK(mpc.ptr[1] == 1 && mpc.col[0] == 3 * a && mpc.val[0] == 1.0, "row 0: u_x(c) = u_x(a)");
  CHECK(mpc.ptr[2] - mpc.ptr[1] == 1 && mpc.col[1] == 3 * a && mpc.val[1] == 1.0,
        "row 1: u_x(d) = 0.5 u_x(c) + 0.5 u_x(a) = u_x(a) (merged), got %d terms, %g",
        mpc.ptr[2] - mpc.ptr[1], mpc.val[1]);
  CHECK(mpc.ptr[3] - mpc.ptr[2] == 1 && mpc.col[2] == 3 * b + 2 && mpc.val[2] == 0.25,
        "row 2: u_y(e) = 0.25 u_z(b), got %g", mpc.val[2]);
  dt_mpc_free(&mpc);
  dt_model_destroy(&m);
}

/* The model finished with a boundary condition on node set `nset`'s DOFs `dofs`. */
static dt_status finish_with_bc(dt_model *m, const char *nset, unsigned dofs, dt_ctx *ctx) {
  dt_step *st = &m->steps[0];
  st->n_bc = 1;
  st->bc = calloc(1, sizeof(dt_bc));
  st->bc[0] = (dt_bc){.nset = dt_model_find_nset(m, nset), .dofs = dofs};
  return dt_model_finish(m, ctx);
}

static void test_rules(void) {
  int a, b, c, d, e, bad = 0;
  dt_ctx ctx = {0};
  dt_model *m = model_with_equations(&a, &b, &c, &d, &e);
  /* xmax holds c, d and e: u_x of c and d are dependent */
  CHECK(finish_with_bc(m, "xmax", DT_DOF_X, &ctx) == DT_ERR_INPUT, "a BC on a dependent DOF");
  CHECK(strstr(ctx.msg, "equations[") && strstr(ctx.msg, "DOF 1 is the dependent DOF"),
        "message: %s", ctx.msg);
  dt_model_destroy(&m);
  m = model_with_equations(&a, &b, &c, &d, &e);
  dt_ctx_reset(&ctx);
  CHECK(finish_with_bc(m, "xmin", 7u, &ctx) == DT_OK, "%s", ctx.msg);
  add(m, 2, (int[]){d, b}, (int[]){0, 0}, (double[]){1.0, 1.0}); /* d dependent twice */
  CHECK(dt_model_check_equations(m, &bad, &ctx) == DT_ERR_INPUT && bad == 3, "bad %d: %s", bad,
        ctx.msg);
  CHECK(strstr(ctx.msg, "is already the dependent DOF"), "message: %s", ctx.msg);
  dt_model_destroy(&m);
  m = model_with_equations(&a, &b, &c, &d, &e);
  dt_ctx_reset(&ctx);
  add(m, 2, (int[]){a, d}, (int[]){0, 0}, (double[]){1.0, -1.0}); /* a -> d -> c -> a */
  CHECK(dt_model_check_equations(m, &bad, &ctx) == DT_ERR_INPUT && bad >= 0, "a cycle: %s",
        ctx.msg);
  CHECK(strstr(ctx.msg, "form a cycle"), "message: %s", ctx.msg);
  dt_model_destroy(&m);
}

static double dot(const double *x, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

/* op on the backend: v uploaded into W, op applied, downloaded into out. */
static void backend_op(const dt_backend_ops *ops, void *impl, dt_mpc_op op, const double *v,
                       double *out) {
  dt_ctx ctx = {0};
  CHECK(ops->vec_set(impl, DT_VEC_W, v, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->mpc_apply(impl, DT_VEC_W, op, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->vec_get(impl, DT_VEC_W, out, &ctx) == DT_OK, "%s", ctx.msg);
}

static double max_rel_diff(const double *a, const double *b, int n) {
  double d = 0.0, s = 1e-300;
  for (int i = 0; i < n; i++) {
    if (fabs(a[i] - b[i]) > d || isnan(a[i] - b[i])) d = fabs(a[i] - b[i]);
    if (fabs(b[i]) > s) s = fabs(b[i]);
  }
  return d / s;
}

static void test_operations(void) {
  int a, b, c, d, e, n;
  const char *name = getenv("DUCTILE_BACKEND") ? getenv("DUCTILE_BACKEND") : "cpu";
  const dt_backend_ops *ops = NULL;
  dt_backend_options bo = {0};
  dt_problem *pb = NULL;
  dt_ctx ctx = {0};
  void *impl = NULL;
  char note[256];
  dt_model *m = model_with_equations(&a, &b, &c, &d, &e);
  CHECK(finish_with_bc(m, "xmin", 7u, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_problem_create(m, &pb, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(pb->n_mpc == 3 && pb->n_mpct == 2, "%d rows, %d independent DOFs", pb->n_mpc, pb->n_mpct);
  n = pb->n_dofs;
  double *x = calloc(n, sizeof *x), *y = calloc(n, sizeof *y), *tx = calloc(n, sizeof *tx);
  double *ty = calloc(n, sizeof *ty), *got = calloc(n, sizeof *got);
  for (int i = 0; i < n; i++) x[i] = sin(1.0 + i), y[i] = cos(2.0 + 3.0 * i);
  dt_problem_mpc_apply(pb, DT_MPC_ZERO, x); /* x = T x_hat needs x_hat zero on dependent DOFs */
  memcpy(tx, x, sizeof(double) * n);
  memcpy(ty, y, sizeof(double) * n);
  dt_problem_mpc_apply(pb, DT_MPC_EXPAND, tx);
  dt_problem_mpc_apply(pb, DT_MPC_REDUCE, ty);
  CHECK(tx[3 * c] == x[3 * a] && tx[3 * d] == x[3 * a] && tx[3 * e + 1] == 0.25 * x[3 * b + 2],
        "EXPAND fills the dependent DOFs");
  CHECK(ty[3 * c] == 0.0 && ty[3 * d] == 0.0 && ty[3 * e + 1] == 0.0, "REDUCE zeroes them");
  CHECK(fabs(dot(tx, y, n) - dot(x, ty, n)) <= 1e-14 * fabs(dot(tx, y, n)),
        "(T x).y = %.17g, x.(T^T y) = %.17g", dot(tx, y, n), dot(x, ty, n));
  CHECK(dt_backend_find(name, &ops, note, sizeof note, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->mpc_apply != NULL, "backend %s has no mpc_apply", ops->name);
  CHECK(ops->problem_upload(pb, &bo, &impl, &ctx) == DT_OK, "%s", ctx.msg);
  backend_op(ops, impl, DT_MPC_EXPAND, x, got);
  CHECK(max_rel_diff(got, tx, n) <= 1e-15, "EXPAND on %s: %.3e", ops->name,
        max_rel_diff(got, tx, n));
  backend_op(ops, impl, DT_MPC_REDUCE, y, got);
  CHECK(max_rel_diff(got, ty, n) <= 1e-15, "REDUCE on %s: %.3e", ops->name,
        max_rel_diff(got, ty, n));
  backend_op(ops, impl, DT_MPC_ZERO, y, got);
  CHECK(got[3 * c] == 0.0 && got[3 * d] == 0.0 && got[3 * e + 1] == 0.0 && got[0] == y[0],
        "ZERO on %s", ops->name);
  printf("equations on %s: T and T^T adjoint, the backend's operations the host's\n", ops->name);
  ops->destroy(impl);
  free(x), free(y), free(tx), free(ty), free(got);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

int main(void) {
  test_resolve();
  test_rules();
  test_operations();
  printf("unit_equations: all checks passed\n");
  return 0;
}
