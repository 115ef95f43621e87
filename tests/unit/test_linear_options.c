/* Options of the linear solver: forcing terms (solver/forcing.h) and the two-level
 * preconditioner (solver/coarse_space.h).
 *
 * 1. The rule itself: fixed always gives linear.tolerance; adaptive starts loose, follows the
 *    convergence rate (Eisenstat & Walker's choice 2), never oversolves below half of Newton's
 *    own criterion, and stays within [linear.tolerance, DT_FORCING_ETA_MAX].
 * 2. A plastic job solved both ways (reference: the same job with fixed tolerance 1e-10): every
 *    increment converges, the displacements agree to 1e-6 relative (Newton's force tolerance
 *    1e-7 bounds both solutions' error), and adaptive needs at most 3/4 of the PCG iterations.
 *    It may need more corrections: an elastic increment, which a tight solve finishes in one,
 *    takes three (1e-2, then 0.9e-4, then the guard), so at most two more per increment.
 * 3. The boxes of the two-level preconditioner: every node in exactly one box, each box's
 *    couplings symmetric and holding every box its nodes' rows reach, item ranks consistent.
 * 4. The same plastic job with the two-level preconditioner (reference: block Jacobi, the
 *    same tolerances): the displacements agree to 1e-6 relative, the same Newton iterations,
 *    and at most 3/4 of the PCG iterations; also with the adaptive tolerance.
 * 5. The default preconditioner, "auto" (precond_kind.h): block Jacobi below 100,000 DOFs
 *    (32^3 nodes: 98,304), two_level from there (33^3: 107,811), a named one kept.
 * 6. "auto"'s block Jacobi moves to AMG when a solve has not converged in DT_PC_AUTO_AMG_ITERATIONS
 *    (check_auto_moves; reference: the same bar with block Jacobi named): once on a slender bar,
 *    where the run then takes less than half the PCG iterations and its displacements agree to
 *    1e-6 relative; never on the stubby bar, which takes block Jacobi's iterations exactly.
 * 7. "auto"'s two_level moves to AMG once its solves average more than DT_PC_AUTO_TL_ITERATIONS
 *    over at least DT_PC_AUTO_TL_SOLVES (check_auto_from_two_level; reference: the same bar with
 *    two_level named): on the slender bar, where the run then takes fewer PCG iterations and
 *    its displacements agree to 1e-6 relative; never on the stubby bar. Both bars have 20-23k
 *    DOFs, where "auto" on the CPU chooses two_level; about a minute, so this check runs as a
 *    test of its own (`test_linear_options --auto-two-level`, labelled slow). */
#include <math.h>

#include "analysis/analysis.h"
#include "problem/coarse_space.h"
#include "analysis/forcing.h"
#include "unit_model.h"

static void check_rule(void) {
  dt_solver_options o;
  dt_forcing f;
  dt_solver_options_default(&o);
  o.pcg_rtol = 1e-9;
  o.newton_rtol = 1e-6;

  o.forcing = DT_FORCING_FIXED;
  dt_forcing_start(&f, &o);
  CHECK(dt_forcing_next(&f, 1.0) == 1e-9 && dt_forcing_next(&f, 1e-3) == 1e-9,
        "fixed must not vary");

  o.forcing = DT_FORCING_ADAPTIVE;
  dt_forcing_start(&f, &o);
  double e0 = dt_forcing_next(&f, 1.0);
  CHECK(e0 == DT_FORCING_ETA_MAX, "first correction %g, want %g", e0, DT_FORCING_ETA_MAX);
  double e1 = dt_forcing_next(&f, 1e-2); /* converging 100x per step: 0.9 * 1e-4 */
  CHECK(fabs(e1 - 0.9e-4) < 1e-12, "choice 2 gives %g, want 9e-5", e1);
  double e2 = dt_forcing_next(&f, 1e-5); /* 0.9e-6 would oversolve: the guard gives 0.5e-6/1e-5 */
  CHECK(fabs(e2 - 0.05) > 0 && fabs(e2 - DT_FORCING_ETA_MAX) < 1e-15,
        "near convergence %g: the guard 5e-2, capped at %g", e2, DT_FORCING_ETA_MAX);
  dt_forcing_start(&f, &o);
  dt_forcing_next(&f, 1.0);
  double slow = dt_forcing_next(&f, 0.9); /* slow convergence keeps the loose tolerance */
  CHECK(slow == DT_FORCING_ETA_MAX, "slow convergence %g", slow);

  o.pcg_rtol = 1e-3; /* the user's tolerance is the tightest ever used */
  dt_forcing_start(&f, &o);
  dt_forcing_next(&f, 1.0);
  CHECK(dt_forcing_next(&f, 1e-2) == 1e-3, "below linear.tolerance"); /* 9e-5 would be */
  dt_forcing_start(&f, &o);
  CHECK(dt_forcing_next(&f, NAN) == DT_FORCING_ETA_MAX,
        "a NaN residual must not poison the tolerance");
}

typedef unit_record record;

static int on_progress(const dt_progress *ev, void *user) {
  record *r = user;
  if (ev->kind == DT_EV_NEWTON_ITER && ev->newton_iter > 0) {
    r->rtol_min = fmin(r->rtol_min, ev->pcg_rtol);
    r->rtol_max = fmax(r->rtol_max, ev->pcg_rtol);
  }
  return 0;
}

static dt_model *plastic_bar(void) {
  dt_model *m = unit_box(24, 8, 6, 1); /* 1575 nodes */
  unit_bar_load(m);
  return m;
}

static void solve(dt_forcing_kind forcing, dt_precond_kind precond, double pcg_rtol, record *r) {
  dt_model *m = plastic_bar();
  dt_ctx ctx = {0};
  dt_run_summary sum;
  dt_run_options o;
  m->solver.forcing = forcing;
  m->solver.precond = precond;
  m->solver.pcg_rtol = pcg_rtol;
  m->solver.newton_rtol = 1e-7;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  memset(r, 0, sizeof *r);
  r->rtol_min = INFINITY;
  r->rtol_max = 0.0;
  unit_run_options(&o, on_progress, unit_record_increment, r);
  CHECK(dt_analysis_run(m, &o, &sum, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(sum.completed && r->increments == 3, "%s run did not complete: %s",
        forcing == DT_FORCING_ADAPTIVE ? "adaptive" : "fixed", sum.message);
  dt_model_destroy(&m);
}

static double max_rel_diff(const record *a, const record *ref) {
  double du = 0.0, umax = 0.0;
  for (int i = 0; i < 3 * ref->n_nodes; i++) {
    du = fmax(du, fabs(a->u[i] - ref->u[i]));
    umax = fmax(umax, fabs(ref->u[i]));
  }
  return umax > 0.0 ? du / umax : INFINITY;
}

static void check_boxes(void) {
  dt_model *m = plastic_bar();
  dt_problem *pb = NULL;
  dt_ctx ctx = {0};
  int *seen;
  m->solver.precond = DT_PC_TWO_LEVEL;
  CHECK(dt_model_finish(m, &ctx) == DT_OK && dt_problem_create(m, &pb, &ctx) == DT_OK, "%s",
        ctx.msg);
  CHECK(pb->n_sub >= DT_COARSE_MIN_BOXES / 2 && pb->n_modes == 6, "%d boxes, %d modes", pb->n_sub,
        pb->n_modes);
  seen = calloc((size_t)pb->n_nodes, sizeof(int));
  for (int s = 0; s < pb->n_sub; s++)
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++) {
      int a = pb->sub_nodes[k];
      CHECK(pb->node_sub[a] == s && !seen[a]++, "node %d listed twice or in the wrong box", a);
      CHECK(k == pb->sub_ptr[s] || pb->sub_nodes[k - 1] < a, "box %d's nodes not ascending", s);
    }
  for (int a = 0; a < pb->n_nodes; a++) {
    int s = pb->node_sub[a], own = 0;
    CHECK(seen[a] == 1, "node %d in no box", a);
    for (int n = pb->node_nbr_ptr[a]; n < pb->node_nbr_ptr[a + 1];
         n++) { /* every row block's box is an item */
      int t = pb->node_sub[pb->node_nbr[n]], found = 0;
      for (int i = pb->item_ptr[a]; i < pb->item_ptr[a + 1]; i++) found |= pb->item_sub[i] == t;
      CHECK(found, "node %d couples to box %d, which is not among its items", a, t);
    }
    for (int i = pb->item_ptr[a]; i < pb->item_ptr[a + 1]; i++) {
      own |= pb->item_sub[i] == s;
      CHECK(pb->sub_nbr[pb->sub_nbr_ptr[s] + pb->item_local[i]] == pb->item_sub[i],
            "item rank of node %d", a);
    }
    CHECK(own, "node %d's own box is not among its items", a);
  }
  for (int s = 0; s < pb->n_sub; s++) /* couplings are symmetric */
    for (int l = pb->sub_nbr_ptr[s]; l < pb->sub_nbr_ptr[s + 1]; l++) {
      int t = pb->sub_nbr[l], back = 0;
      for (int k = pb->sub_nbr_ptr[t]; k < pb->sub_nbr_ptr[t + 1]; k++) back |= pb->sub_nbr[k] == s;
      CHECK(back, "box %d couples to box %d but not back", s, t);
    }
  printf("%d boxes for %d nodes\n", pb->n_sub, pb->n_nodes);
  free(seen);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

/* The preconditioner dt_model_finish picks for an n^3-node box whose job names `named` (or
 * leaves the default when named < 0); *chosen_by_rule: whether "auto" chose it. */
static dt_precond_kind finished_precond(int n, int named, int *chosen_by_rule) {
  dt_model *m = unit_box(n - 1, n - 1, n - 1, 0);
  dt_ctx ctx = {0};
  dt_precond_kind pc;
  CHECK(m->solver.precond == DT_PC_AUTO, "the default preconditioner is %s, not auto",
        dt_precond_names[m->solver.precond]);
  if (named >= 0) m->solver.precond = (dt_precond_kind)named;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  pc = m->solver.precond;
  *chosen_by_rule = m->solver.precond_auto;
  dt_model_destroy(&m);
  return pc;
}

static void check_auto(void) {
  int by_rule = 0;
  CHECK(finished_precond(32, -1, &by_rule) == DT_PC_BLOCK_JACOBI && by_rule, "auto at 98,304 DOFs");
  CHECK(finished_precond(33, -1, &by_rule) == DT_PC_TWO_LEVEL && by_rule, "auto at 107,811 DOFs");
  CHECK(finished_precond(33, DT_PC_BLOCK_JACOBI, &by_rule) == DT_PC_BLOCK_JACOBI && !by_rule,
        "a named preconditioner is kept");
  CHECK(finished_precond(8, DT_PC_TWO_LEVEL, &by_rule) == DT_PC_TWO_LEVEL && !by_rule,
        "two_level named on a small mesh");
  printf("auto: block_jacobi at 98,304 DOFs, two_level at 107,811\n");
}

/* A run of a plastic bar: its record first (unit_record_increment takes the run as one) and the
 * most PCG iterations one solve took. */
typedef struct bar_run {
  record r;
  int max_pcg;
  dt_run_summary sum;
} bar_run;

static int max_solve_pcg(const dt_progress *ev, void *user) {
  bar_run *b = user;
  if (ev->kind == DT_EV_NEWTON_ITER && ev->newton_iter > 0 && ev->pcg_iters > b->max_pcg)
    b->max_pcg = ev->pcg_iters;
  return 0;
}

/* The plastic bar load (unit_bar_load) on an nx x ny x nz box under preconditioner pc. */
static void solve_bar(int nx, int ny, int nz, dt_precond_kind pc, bar_run *b) {
  dt_model *m = unit_box(nx, ny, nz, 1);
  dt_ctx ctx = {0};
  dt_run_options o;
  unit_bar_load(m);
  m->solver.precond = pc;
  m->solver.newton_rtol = 1e-7;
  m->solver.pcg_rtol = 1e-10;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  memset(b, 0, sizeof *b);
  unit_run_options(&o, max_solve_pcg, unit_record_increment, b);
  CHECK(dt_analysis_run(m, &o, &b->sum, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(b->sum.completed && b->r.increments == 3, "bar %dx%dx%d (%s) did not complete: %s", nx, ny,
        nz, dt_precond_names[pc], b->sum.message);
  dt_model_destroy(&m);
}

/* "auto" moves from block Jacobi to AMG when a solve has not converged in
 * DT_PC_AUTO_AMG_ITERATIONS (precond_kind.h; the solve is done again with AMG): on the slender bar (block Jacobi's largest solve about 1,300) once, with
 * the rest of the run on AMG; on the stubby bar of the other checks (largest about 540) never.
 * fixed: the stubby bar's block Jacobi run (solve(), the same tolerances). */
static void check_auto_moves(const record *fixed) {
  static bar_run stubby, a, bj;
  double d;
  solve_bar(24, 8, 6, DT_PC_AUTO, &stubby);
  CHECK(stubby.sum.pc_auto_switches == 0 && stubby.sum.pc_final == DT_PC_BLOCK_JACOBI &&
            stubby.max_pcg <= DT_PC_AUTO_AMG_ITERATIONS,
        "stubby bar: %ld switches, %s at the end, largest solve %d", stubby.sum.pc_auto_switches,
        dt_precond_names[stubby.sum.pc_final], stubby.max_pcg);
  CHECK(stubby.r.newton == fixed->newton && stubby.r.pcg == fixed->pcg,
        "stubby bar: auto took %d Newton, %d PCG, block Jacobi %d, %d", stubby.r.newton,
        stubby.r.pcg, fixed->newton, fixed->pcg);
  solve_bar(64, 3, 3, DT_PC_AUTO, &a);
  solve_bar(64, 3, 3, DT_PC_BLOCK_JACOBI, &bj);
  d = max_rel_diff(&a.r, &bj.r);
  printf("slender bar: auto %d Newton, %d PCG (%ld switch, %s at the end); block Jacobi %d Newton, "
         "%d PCG, largest solve %d; |du|/|u| %.2e\n",
         a.r.newton, a.r.pcg, a.sum.pc_auto_switches, dt_precond_names[a.sum.pc_final], bj.r.newton,
         bj.r.pcg, bj.max_pcg, d);
  CHECK(bj.max_pcg > DT_PC_AUTO_AMG_ITERATIONS, "the slender bar's largest solve took %d",
        bj.max_pcg);
  CHECK(a.sum.pc_auto_switches == 1 && a.sum.pc_final == DT_PC_AMG,
        "slender bar: %ld switches, %s at the end", a.sum.pc_auto_switches,
        dt_precond_names[a.sum.pc_final]);
  CHECK(2 * a.r.pcg < bj.r.pcg, "auto took %d PCG iterations, block Jacobi %d", a.r.pcg, bj.r.pcg);
  CHECK(d <= 1e-6, "auto differs from block Jacobi by %.3e relative", d);
}

/* "auto"'s two_level moves to AMG at a setup once its solves average more than
 * DT_PC_AUTO_TL_ITERATIONS (precond_kind.h): on the slender bar, never on the stubby one. */
static void check_auto_from_two_level(void) {
  static bar_run a, tl, stubby;
  double d;
  solve_bar(40, 12, 12, DT_PC_AUTO, &stubby);
  printf("stubby bar: auto %d Newton, %d PCG (%ld switches, %s at the end)\n", stubby.r.newton,
         stubby.r.pcg, stubby.sum.pc_auto_switches, dt_precond_names[stubby.sum.pc_final]);
  CHECK(stubby.sum.pc_auto_switches == 0 && stubby.sum.pc_final == DT_PC_TWO_LEVEL &&
            stubby.r.pcg <= DT_PC_AUTO_TL_ITERATIONS * stubby.r.newton,
        "stubby bar: %ld switches, %s at the end, %d PCG over %d Newton iterations",
        stubby.sum.pc_auto_switches, dt_precond_names[stubby.sum.pc_final], stubby.r.pcg,
        stubby.r.newton);
  solve_bar(150, 6, 6, DT_PC_AUTO, &a);
  solve_bar(150, 6, 6, DT_PC_TWO_LEVEL, &tl);
  d = max_rel_diff(&a.r, &tl.r);
  printf("slender bar (22k DOFs): auto %d Newton, %d PCG (%ld switch, %s at the end); "
         "two_level %d Newton, %d PCG; |du|/|u| %.2e\n",
         a.r.newton, a.r.pcg, a.sum.pc_auto_switches, dt_precond_names[a.sum.pc_final], tl.r.newton,
         tl.r.pcg, d);
  CHECK(tl.r.pcg > DT_PC_AUTO_TL_ITERATIONS * tl.r.newton,
        "the slender bar's two_level solves took %d PCG over %d Newton iterations", tl.r.pcg,
        tl.r.newton);
  CHECK(a.sum.pc_auto_switches == 1 && a.sum.pc_final == DT_PC_AMG,
        "slender bar: %ld switches, %s at the end", a.sum.pc_auto_switches,
        dt_precond_names[a.sum.pc_final]);
  CHECK(a.r.pcg < tl.r.pcg, "auto took %d PCG iterations, two_level %d", a.r.pcg, tl.r.pcg);
  CHECK(d <= 1e-6, "auto differs from two_level by %.3e relative", d);
}

int main(int argc, char **argv) {
  static record fixed, adaptive, two, two_adaptive;
  if (argc > 1 && strcmp(argv[1], "--auto-two-level") == 0) { /* unit_linear_options_auto_tl */
    check_auto_from_two_level();
    return 0;
  }
  check_auto();
  double d;
  check_rule();
  solve(DT_FORCING_FIXED, DT_PC_BLOCK_JACOBI, 1e-10, &fixed);
  check_auto_moves(&fixed);
  solve(DT_FORCING_ADAPTIVE, DT_PC_BLOCK_JACOBI, 1e-10, &adaptive);
  d = max_rel_diff(&adaptive, &fixed);
  printf("fixed: %d Newton, %d PCG; adaptive: %d Newton, %d PCG, tolerances %.1e..%.1e; |du|/|u| "
         "%.2e\n",
         fixed.newton, fixed.pcg, adaptive.newton, adaptive.pcg, adaptive.rtol_min,
         adaptive.rtol_max, d);
  CHECK(fixed.rtol_min == 1e-10 && fixed.rtol_max == 1e-10, "fixed used %g..%g", fixed.rtol_min,
        fixed.rtol_max);
  CHECK(adaptive.rtol_min >= 1e-10 && adaptive.rtol_max == DT_FORCING_ETA_MAX &&
            adaptive.rtol_min < 1e-2,
        "adaptive tolerances %g..%g", adaptive.rtol_min, adaptive.rtol_max);
  CHECK(d <= 1e-6, "adaptive differs from fixed by %.3e relative", d);
  CHECK(4 * adaptive.pcg <= 3 * fixed.pcg, "adaptive PCG %d against fixed %d", adaptive.pcg,
        fixed.pcg);
  CHECK(adaptive.newton <= fixed.newton + 2 * 3, "adaptive Newton %d against fixed %d",
        adaptive.newton, fixed.newton);

  check_boxes();
  solve(DT_FORCING_FIXED, DT_PC_TWO_LEVEL, 1e-10, &two);
  solve(DT_FORCING_ADAPTIVE, DT_PC_TWO_LEVEL, 1e-10, &two_adaptive);
  printf(
      "two-level: %d Newton, %d PCG (block Jacobi %d), |du|/|u| %.2e; with adaptive: %d PCG (%d)\n",
      two.newton, two.pcg, fixed.pcg, max_rel_diff(&two, &fixed), two_adaptive.pcg, adaptive.pcg);
  CHECK(max_rel_diff(&two, &fixed) <= 1e-6, "two-level differs from block Jacobi by %.3e",
        max_rel_diff(&two, &fixed));
  CHECK(two.newton == fixed.newton, "two-level: %d Newton iterations, block Jacobi %d", two.newton,
        fixed.newton);
  CHECK(4 * two.pcg <= 3 * fixed.pcg, "two-level PCG %d against block Jacobi %d", two.pcg,
        fixed.pcg);
  CHECK(max_rel_diff(&two_adaptive, &fixed) <= 1e-6 && 4 * two_adaptive.pcg <= 3 * adaptive.pcg,
        "two-level with adaptive: PCG %d against %d, |du|/|u| %.3e", two_adaptive.pcg, adaptive.pcg,
        max_rel_diff(&two_adaptive, &fixed));
  return 0;
}
