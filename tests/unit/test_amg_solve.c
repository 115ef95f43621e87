/* PCG with linear.preconditioner "amg" on the CPU backend.
 * 1. Linear elasticity on a hex8 box and a tet10 box clamped at x = 0, under a uniform body
 *    load, at three refinements (2.5k-18.5k DOFs): PCG to 1e-8 takes at most 40 iterations on
 *    each, the largest mesh at most 1.5x the smallest's, and at least 8x fewer than block
 *    Jacobi on the largest. Solved to 1e-11, the middle mesh's solution equals block Jacobi's
 *    to 1e-6 (relative 2-norm).
 * 2. The same solve with 1 and 2 threads gives the same solution bit for bit.
 * 3. A second setup with the same constrained DOFs refreshes the hierarchy (the backend's view
 *    counts the refresh); with DT_PC_KEEP_COARSE only level 0 is refreshed and the solution
 *    still equals block Jacobi's to 1e-6; a changed constrained set builds it again (kept
 *    levels asked for or not), and the solution again equals block Jacobi's.
 * 4. The unit tests' plastic bar (J2, 3 increments, a tangent per Newton iteration) with amg:
 *    the same Newton iterations as block Jacobi, displacements equal to 1e-6, and at most a
 *    quarter of its PCG iterations.
 * 5. With the matrix-free operator amg is refused (DT_ERR_UNSUPPORTED, the message names the
 *    assembled operator) and the preconditioner in use stays: PCG still converges with it. */
#include <math.h>

#include "amg/amg.h"
#include "analysis/analysis.h"
#include "backend/backend.h"
#include "problem/problem.h"
#include "unit_model.h"
#include "unit_tet10.h"

extern const dt_backend_ops dt_cpu_ops;

typedef struct load_case {
  const dt_problem *pb;
  double *con, *fr, *b;
} load_case;

/* Clamped at x = min (and, with also_y, y fixed on y = min), body load -1 along z. */
static void load_case_init(load_case *lc, const dt_problem *pb, int also_y) {
  int n = pb->n_dofs;
  double xmin = INFINITY;
  lc->pb = pb;
  lc->con = calloc((size_t)n, sizeof(double));
  lc->fr = calloc((size_t)n, sizeof(double));
  lc->b = calloc((size_t)n, sizeof(double));
  for (int a = 0; a < pb->n_nodes; a++) xmin = fmin(xmin, pb->x[3 * a]);
  for (int a = 0; a < pb->n_nodes; a++) {
    if (pb->x[3 * a] == xmin) lc->con[3 * a] = lc->con[3 * a + 1] = lc->con[3 * a + 2] = 1.0;
    if (also_y && pb->x[3 * a + 1] == 0.0) lc->con[3 * a + 1] = 1.0;
  }
  for (int i = 0; i < n; i++) {
    lc->fr[i] = 1.0 - lc->con[i];
    lc->b[i] = i % 3 == 2 ? -lc->fr[i] : 0.0;
  }
}

static void load_case_free(load_case *lc) {
  free(lc->con);
  free(lc->fr);
  free(lc->b);
}

/* Upload, set the constraints and assemble the elastic tangent. */
static void *backend(const load_case *lc, int threads) {
  dt_ctx ctx = {0};
  void *impl = NULL;
  dt_backend_options bo = {.threads = threads, .device = 0};
  dt_stress_report rep;
  CHECK(dt_cpu_ops.problem_upload(lc->pb, &bo, &impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_CON, lc->con, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_FREE, lc->fr, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.stress_update(impl, DT_VEC_UT, DT_VEC_FINT, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  return impl;
}

/* pc_setup of kind, PCG to rtol; x receives the solution; returns the iterations. */
static int pcg(void *impl, const load_case *lc, int kind, double rtol, double *x) {
  dt_ctx ctx = {0};
  dt_pcg_result res;
  CHECK(dt_cpu_ops.pc_setup(impl, kind, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_R, lc->b, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_pcg_solve(&dt_cpu_ops, impl, rtol, 20000, &res, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(res.reason == DT_CONVERGED, "%s: PCG reason %d after %d iterations (|r|/|b| %g)",
        dt_precond_names[kind], res.reason, res.iterations, res.rel_residual);
  if (x) CHECK(dt_cpu_ops.vec_get(impl, DT_VEC_X, x, &ctx) == DT_OK, "%s", ctx.msg);
  return res.iterations;
}

static double rel_diff(const double *x, const double *ref, int n) {
  double d = 0.0, r = 0.0;
  for (int i = 0; i < n; i++) d += (x[i] - ref[i]) * (x[i] - ref[i]), r += ref[i] * ref[i];
  return sqrt(d / r);
}

static dt_problem *problem_of(dt_model *m) {
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_problem_create(m, &pb, &ctx) == DT_OK, "%s", ctx.msg);
  return pb;
}

static dt_model *box(int tet, int n) {
  return tet ? unit_box_tet10(2 * n, 3 * n / 2, n, 0) : unit_box(2 * n, 3 * n / 2, n, 0);
}

/* The backend's view, which ends with the hierarchy's. */
static int view_has(void *impl, const char *text) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  int found;
  dt_cpu_ops.view(impl, f);
  fclose(f);
  found = strstr(buf, text) != NULL;
  if (!found) fprintf(stderr, "view:\n%s", buf);
  free(buf);
  return found;
}

/* The hierarchy's strength thresholds in the backend's view (amg.h): level 0 at theta, a coarse
 * level at theta / 2^k, k <= 3, and k = 3 or at least 8 nodes an aggregate
 * (dt_amg_coarsen_again); returns how many levels took a halved threshold. */
static int check_threshold_rule(void *impl, const char *name) {
  char *buf = NULL, *p;
  size_t len = 0;
  int nodes[DT_AMG_MAX_LEVELS] = {0}, n = 0, halved = 0;
  double theta[DT_AMG_MAX_LEVELS] = {0}, base = 0.0;
  FILE *f = open_memstream(&buf, &len);
  dt_amg_options o;
  dt_amg_options_default(&o);
  base = o.theta;
  dt_cpu_ops.view(impl, f);
  fclose(f);
  for (p = strstr(buf, "  level "); p && n < DT_AMG_MAX_LEVELS; p = strstr(p + 1, "  level ")) {
    int l, dofs;
    const char *t = strstr(p, "aggregated at theta "), *eol = strchr(p, '\n');
    CHECK(sscanf(p, "  level %d: %d DOFs on %d nodes", &l, &dofs, &nodes[n]) == 3 && l == n,
          "%s: unreadable level line in the view:\n%s", name, buf);
    theta[n++] = t && eol && t < eol ? atof(t + 20) : -1.0;
  }
  CHECK(n >= 2 && theta[0] == base, "%s: %d levels, level 0 at theta %g", name, n, theta[0]);
  for (int l = 1; l + 1 < n; l++) {
    int k = 0;
    double t = base;
    while (t > 1.5 * theta[l] && k < 4) t *= 0.5, k++;
    CHECK(t == theta[l] && k <= 3, "%s: level %d aggregated at theta %g", name, l, theta[l]);
    CHECK(nodes[l] >= 8 * nodes[l + 1] || k == 3,
          "%s: level %d aggregated %d nodes into %d at theta %g", name, l, nodes[l], nodes[l + 1],
          theta[l]);
    halved += k > 0;
  }
  free(buf);
  return halved;
}

/* 1 and 2 on one element family: refinements n[0..2]. */
static void check_convergence(int tet, const int n[3]) {
  const char *name = tet ? "tet10" : "hex8";
  int its[3], bj = 0, halved = 0;
  for (int k = 0; k < 3; k++) {
    dt_model *m = box(tet, n[k]);
    dt_problem *pb = problem_of(m);
    load_case lc;
    void *impl;
    load_case_init(&lc, pb, 0);
    impl = backend(&lc, 2);
    its[k] = pcg(impl, &lc, DT_PC_AMG, 1e-8, NULL);
    if (k == 2) bj = pcg(impl, &lc, DT_PC_BLOCK_JACOBI, 1e-8, NULL);
    if (k == 1) { /* the solution, and its independence of the thread count */
      double *xa = malloc(sizeof(double) * pb->n_dofs), *xb = malloc(sizeof(double) * pb->n_dofs);
      double *x1 = malloc(sizeof(double) * pb->n_dofs);
      void *one;
      pcg(impl, &lc, DT_PC_AMG, 1e-11, xa);
      pcg(impl, &lc, DT_PC_BLOCK_JACOBI, 1e-11, xb);
      one = backend(&lc, 1); /* from here on one thread, until the next upload asks for two */
      pcg(one, &lc, DT_PC_AMG, 1e-11, x1);
      CHECK(rel_diff(xa, xb, pb->n_dofs) < 1e-6, "%s: amg and block Jacobi solutions differ by %g",
            name, rel_diff(xa, xb, pb->n_dofs));
      CHECK(!memcmp(xa, x1, sizeof(double) * pb->n_dofs),
            "%s: the amg solution differs with 1 and 2 threads", name);
      dt_cpu_ops.destroy(one);
      free(xa);
      free(xb);
      free(x1);
    }
    halved += check_threshold_rule(impl, name);
    printf("%s: %d DOFs, amg %d PCG iterations%s", name, pb->n_dofs, its[k], k == 2 ? "" : "\n");
    if (k == 2) printf(", block_jacobi %d\n", bj);
    dt_cpu_ops.destroy(impl);
    load_case_free(&lc);
    dt_problem_destroy(&pb);
    dt_model_destroy(&m);
  }
  for (int k = 0; k < 3; k++)
    CHECK(its[k] <= 40, "%s: %d amg iterations on refinement %d", name, its[k], n[k]);
  CHECK(its[2] <= 1.5 * its[0], "%s: amg iterations grow from %d to %d", name, its[0], its[2]);
  CHECK(8 * its[2] <= bj, "%s: amg %d iterations, block Jacobi %d", name, its[2], bj);
  printf("%s: %d coarse levels aggregated at a halved threshold\n", name, halved);
}

/* A hex8 box of 40 x 10 x 10 elements (14,883 DOFs), whose first coarse level (252 nodes) keeps
 * fewer than 8 nodes an aggregate at the fine level's threshold: it is aggregated again at half
 * of it (into 21 nodes). */
static void check_halving(void) {
  dt_model *m = unit_box(40, 10, 10, 0);
  dt_problem *pb = problem_of(m);
  load_case lc;
  void *impl;
  int its, halved;
  load_case_init(&lc, pb, 0);
  impl = backend(&lc, 2);
  its = pcg(impl, &lc, DT_PC_AMG, 1e-8, NULL);
  halved = check_threshold_rule(impl, "hex8 box 40x10x10");
  CHECK(halved >= 1, "hex8 box 40x10x10: no coarse level aggregated at a halved threshold");
  CHECK(its <= 40, "hex8 box 40x10x10: %d amg iterations", its);
  printf(
      "hex8 box 40x10x10: %d DOFs, amg %d PCG iterations, %d coarse levels at a halved threshold\n",
      pb->n_dofs, its, halved);
  dt_cpu_ops.destroy(impl);
  load_case_free(&lc);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

/* 3: refresh for a new tangent with the same constraints; build again for new constraints, and
 * for a second setup on the same tangent (the escalation's rebuild: backend.h, pc_setup). */
static void check_refresh(void) {
  dt_model *m = box(1, 3);
  dt_problem *pb = problem_of(m);
  load_case lc, lc2;
  double *xa = malloc(sizeof(double) * pb->n_dofs), *xb = malloc(sizeof(double) * pb->n_dofs);
  void *impl;
  dt_ctx ctx = {0};
  load_case_init(&lc, pb, 0);
  load_case_init(&lc2, pb, 1);
  impl = backend(&lc, 2);
  pcg(impl, &lc, DT_PC_AMG, 1e-8, NULL);
  CHECK(view_has(impl, "(0 refreshes, 0 of"), "a first setup must build");
  pcg(impl, &lc, DT_PC_AMG, 1e-8, NULL); /* no new tangent: the caller asks for a rebuild */
  CHECK(view_has(impl, "(0 refreshes, 0 of"),
        "a second setup on the same tangent must build again");
  CHECK(dt_cpu_ops.tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  pcg(impl, &lc, DT_PC_AMG, 1e-8, NULL);
  CHECK(view_has(impl, "(1 refreshes, 0 of"),
        "a new tangent with the same constraints must refresh");
  CHECK(dt_cpu_ops.tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  pcg(impl, &lc, DT_PC_AMG | DT_PC_KEEP_COARSE, 1e-11, xa); /* the coarse levels kept */
  CHECK(view_has(impl, "(1 refreshes, 1 of level 0 only)"),
        "a new tangent with DT_PC_KEEP_COARSE must refresh level 0 only");
  pcg(impl, &lc, DT_PC_BLOCK_JACOBI, 1e-11, xb);
  CHECK(rel_diff(xa, xb, pb->n_dofs) < 1e-6,
        "with the coarse levels kept, amg and block Jacobi differ by %g",
        rel_diff(xa, xb, pb->n_dofs));
  CHECK(dt_cpu_ops.tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_CON, lc2.con, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_FREE, lc2.fr, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  pcg(impl, &lc2, DT_PC_AMG | DT_PC_KEEP_COARSE, 1e-11, xa);
  CHECK(view_has(impl, "(0 refreshes, 0 of"),
        "new constraints must build again, kept levels or not");
  pcg(impl, &lc2, DT_PC_BLOCK_JACOBI, 1e-11, xb);
  CHECK(rel_diff(xa, xb, pb->n_dofs) < 1e-6,
        "after new constraints, amg and block Jacobi differ by %g", rel_diff(xa, xb, pb->n_dofs));
  printf("refresh: kept with the same constraints (level 0 alone on request), rebuilt with new "
         "ones\n");
  dt_cpu_ops.destroy(impl);
  load_case_free(&lc);
  load_case_free(&lc2);
  free(xa);
  free(xb);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

static void check_plastic(void) {
  static unit_record amg, bj;
  double du = 0.0, umax = 0.0;
  unit_plastic_bar_run(DT_PC_AMG, &amg, NULL);
  unit_plastic_bar_run(DT_PC_BLOCK_JACOBI, &bj, NULL);
  for (int i = 0; i < 3 * bj.n_nodes; i++)
    du = fmax(du, fabs(amg.u[i] - bj.u[i])), umax = fmax(umax, fabs(bj.u[i]));
  printf("plastic bar: Newton %d (block_jacobi %d), PCG %d (block_jacobi %d), displacements differ "
         "by %.1e\n",
         amg.newton, bj.newton, amg.pcg, bj.pcg, du / umax);
  CHECK(amg.newton == bj.newton, "Newton iterations: amg %d, block Jacobi %d", amg.newton,
        bj.newton);
  CHECK(du <= 1e-6 * umax, "displacements differ by %g of %g", du, umax);
  CHECK(4 * amg.pcg <= bj.pcg, "PCG iterations: amg %d, block Jacobi %d", amg.pcg, bj.pcg);
}

/* 5: the matrix-free operator. */
static void check_matrix_free(void) {
  dt_model *m = box(0, 4);
  dt_problem *pb;
  load_case lc;
  void *impl;
  dt_ctx ctx = {0};
  dt_pcg_result res;
  m->solver.matrix_free = 1;
  pb = problem_of(m);
  load_case_init(&lc, pb, 0);
  impl = backend(&lc, 1);
  CHECK(dt_cpu_ops.pc_setup(impl, DT_PC_BLOCK_JACOBI, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.pc_setup(impl, DT_PC_AMG, &ctx) == DT_ERR_UNSUPPORTED &&
            strstr(ctx.msg, "assembled"),
        "amg with the matrix-free operator: %s", ctx.msg);
  CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_R, lc.b, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_pcg_solve(&dt_cpu_ops, impl, 1e-8, 5000, &res, &ctx) == DT_OK &&
            res.reason == DT_CONVERGED,
        "block Jacobi after the refused amg: reason %d", res.reason);
  printf("matrix-free: amg refused (%s), block Jacobi kept\n", ctx.msg);
  dt_cpu_ops.destroy(impl);
  load_case_free(&lc);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

int main(void) {
  static const int hex[3] = {6, 9, 12}, tet[3] = {3, 4, 6};
  check_convergence(0, hex);
  check_convergence(1, tet);
  check_halving();
  check_refresh();
  check_plastic();
  check_matrix_free();
  return 0;
}
