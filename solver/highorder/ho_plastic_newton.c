/* Newton's method for load increments of the order-P plastic problem (ho_plastic.h), with the
 * convergence tests and the linear predictor of analysis/newton.c so the two count iterations
 * alike:
 *   rel = |free .* (f_ext - f_int)| / max(|free .* f_ext|, |f_int|)   (f_int holds the reactions,
 *   so displacement-driven increments have a force scale), converged when rel <= rtol and the
 *   last correction was small (|c| <= dtol |du|) or rel is at the solver floor 1e-8. */
#include <math.h>
#include <string.h>

#include "highorder/ho_plastic_ops.h"
#include "analysis/divergence.h"

#define PREDICTOR_EPS 1e-6 /* the predictor's tangent is taken at u_n + eps du_D */
#define RESIDUAL_FLOOR 1e-8

static double norm2(int n, const double *x, const unsigned char *mask_fixed) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    if (!mask_fixed || !mask_fixed[i]) s += x[i] * x[i];
  return sqrt(s);
}

/* Work vectors of one solve, each 3 n_nodes, what the progress events report, and where the
 * operations run (host or GPU, ho_plastic_ops.h). */
typedef struct newton_work {
  double *du, *c, *ut, *fint, *fint_n, *r, *fext, *tmp;
  dt_ho_progress ev; /* the increment's latest evaluation */
  dt_ho_plastic_runner run;
} newton_work;

/* The caller's progress callback on w->ev as kind: DT_ERR_CANCELLED when it asks to stop. */
static dt_status report(const dt_ho_newton_opts *o, newton_work *w, dt_ho_progress_kind kind,
                        dt_ctx *ctx) {
  dt_status rc = DT_OK;
  w->ev.kind = kind;
  DT_CHECK(!o->progress || o->progress(&w->ev, o->progress_user) == 0, ctx, DT_ERR_CANCELLED,
           "increment %d: stopped by request", w->ev.increment);
cleanup:
  return rc;
}

/* f_int(u) into f; a failed return mapping is the reason the solve stops. */
static dt_status residual(newton_work *w, const double *u, double *f, dt_ho_plastic_report *prep,
                          dt_ho_newton_report *rep, dt_ctx *ctx) {
  dt_status rc = w->run.ops->residual(w->run.s, u, f, prep, ctx);
  if (rc == DT_ERR_NOT_CONVERGED) rep->reason = DT_MATERIAL_NO_CONVERGENCE;
  return rc;
}

/* One increment from the committed state at u (not modified) to load factor lam; du out. */
static dt_status increment(dt_ho_plastic *pl, const dt_ho_newton_problem *pb,
                           const dt_ho_newton_opts *o, int inc, double lam, double dlam,
                           const double *u, newton_work *w, dt_ho_newton_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = 3 * pl->op->n_nodes, predictor = 0;
  const unsigned char *fixed = pb->fixed;
  double du_ratio = INFINITY, fext_norm;
  dt_residual_history hist = {0.0, {0.0, 0.0, 0.0, 0.0}, 0};
  dt_ho_plastic_report prep = {0, 0, -1, -1};
  for (int i = 0; i < n; i++) {
    w->fext[i] = pb->f ? lam * pb->f[i] : 0.0;
    w->du[i] = (fixed[i] && pb->u_presc) ? dlam * pb->u_presc[i] : 0.0;
    predictor |= w->du[i] != 0.0;
  }
  fext_norm = norm2(n, w->fext, fixed);
  rep->n_history = 0;
  w->ev.increment = inc, w->ev.load_factor = lam, w->ev.iteration = 0;
  w->ev.residual = w->ev.du_ratio = NAN, w->ev.pcg_iterations = 0, w->ev.n_plastic = 0;
  DT_TRY(report(o, w, DT_HO_INCREMENT_START, ctx));
  for (int it = 1; it <= o->max_iter + 1; it++) {
    int linearised = predictor && it == 1;
    if (linearised) { /* f_lin = f_int(u_n) + K_t(u_n) du_D, K_t at u_n + eps du_D */
      DT_TRY(residual(w, u, w->fint_n, &prep, rep, ctx));
      for (int i = 0; i < n; i++) w->ut[i] = u[i] + PREDICTOR_EPS * w->du[i];
      DT_TRY(residual(w, w->ut, w->tmp, &prep, rep, ctx));
      DT_TRY(w->run.ops->tangent_apply(w->run.s, w->du, w->tmp, ctx));
      for (int i = 0; i < n; i++) w->fint[i] = w->fint_n[i] + w->tmp[i];
    } else {
      for (int i = 0; i < n; i++) w->ut[i] = u[i] + w->du[i];
      DT_TRY(residual(w, w->ut, w->fint, &prep, rep, ctx));
    }
    for (int i = 0; i < n; i++) w->r[i] = fixed[i] ? 0.0 : w->fext[i] - w->fint[i];
    double scale = fmax(fext_norm, norm2(n, w->fint, NULL)), rr = norm2(n, w->r, NULL);
    double rel = scale > 0.0 ? rr / scale : rr;
    if (!linearised) {
      dt_residual_history_push(&hist, rel);
      if (rep->n_history < DT_HO_NEWTON_MAX_HISTORY) rep->history[rep->n_history++] = rel;
    }
    if (o->log)
      fprintf(o->log, "increment %d, iteration %d%s: residual %.3e, |c|/|du| %.2e, plastic %ld\n",
              inc, it - 1, linearised ? " (predictor)" : "", rel, it > 1 ? du_ratio : NAN,
              prep.n_plastic);
    rep->reason = isnan(rel) ? DT_DIVERGED_NAN : DT_CONVERGED;
    DT_CHECK(!isnan(rel), ctx, DT_ERR_NOT_CONVERGED,
             "increment %d: the residual is not a number at Newton iteration %d", inc, it - 1);
    if (!linearised) {
      w->ev.iteration = it - 1, w->ev.residual = rel, w->ev.n_plastic = prep.n_plastic;
      w->ev.du_ratio = it > 1 ? du_ratio : NAN;
      DT_TRY(report(o, w, DT_HO_NEWTON_ITERATION, ctx));
    }
    if (!linearised && rel <= o->rtol &&
        (it == 1 || du_ratio <= o->dtol || rel <= RESIDUAL_FLOOR)) {
      rep->newton[inc - 1] = it - 1;
      rep->n_plastic[inc - 1] = prep.n_plastic;
      rep->newton_total += it - 1;
      goto cleanup;
    }
    rep->reason = dt_residual_history_diverging(&hist) ? DT_DIVERGED_RESIDUAL
                  : it > o->max_iter                   ? DT_DIVERGED_ITS
                                                       : DT_CONVERGED;
    DT_CHECK(!dt_residual_history_diverging(&hist), ctx, DT_ERR_NOT_CONVERGED,
             "increment %d: Newton diverges at iteration %d (residual %.3e, first %.3e)", inc,
             it - 1, rel, hist.first);
    DT_CHECK(it <= o->max_iter, ctx, DT_ERR_NOT_CONVERGED,
             "increment %d: Newton did not converge in %d iterations (residual %.3e > %.1e)", inc,
             o->max_iter, rel, o->rtol);
    /* K_t c = r on the free DOFs; c = du_D on the fixed ones for the predictor (its lifting
     * subtracts K_t du_D from f_ext - f_int(u_n)), else 0 */
    dt_ho_pcg_result pr;
    dt_ho_pcg_opts po = {o->pcg_rtol, o->pcg_max_it};
    for (int i = 0; i < n; i++) {
      w->c[i] = linearised && fixed[i] ? w->du[i] : 0.0;
      w->tmp[i] = linearised ? w->fext[i] - w->fint_n[i] : w->r[i];
    }
    pr = (dt_ho_pcg_result){0};
    rc = w->run.ops->correction(w->run.s, w->tmp, w->c, &po, &pr, ctx);
    if (rc == DT_ERR_NOT_CONVERGED)
      rep->reason = pr.indefinite ? DT_DIVERGED_INDEFINITE : DT_DIVERGED_LINEAR_SOLVER;
    if (rc != DT_OK) goto cleanup;
    rep->pcg_total += pr.iterations;
    w->ev.pcg_iterations = pr.iterations;
    for (int i = 0; i < n; i++) w->du[i] = linearised ? w->c[i] : w->du[i] + w->c[i];
    double cc = norm2(n, w->c, fixed), uu = norm2(n, w->du, NULL);
    du_ratio = uu > 0.0 ? cc / uu : 0.0;
  }
cleanup:
  return rc;
}

dt_status dt_ho_plastic_solve(dt_ho_plastic *pl, const dt_ho_newton_problem *pb,
                              const dt_ho_newton_opts *opts, double *u, dt_ho_newton_report *rep,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = 3 * pl->op->n_nodes, N = opts->n_increments;
  newton_work w = {0};
  double **vec[] = {&w.du, &w.c, &w.ut, &w.fint, &w.fint_n, &w.r, &w.fext, &w.tmp};
  if (opts->first_increment == 0) memset(rep, 0, sizeof *rep);
  rep->n_history = 0, rep->reason = DT_CONVERGED;
  DT_CHECK(N >= 1 && N <= DT_HO_NEWTON_MAX_INCREMENTS, ctx, DT_ERR_INPUT,
           "plastic solve: %d increments is outside 1..%d", N, DT_HO_NEWTON_MAX_INCREMENTS);
  DT_CHECK(opts->max_iter >= 1 && opts->rtol > 0.0 && opts->pcg_rtol > 0.0, ctx, DT_ERR_INPUT,
           "plastic solve: max_iter %d, rtol %g and pcg_rtol %g must be positive", opts->max_iter,
           opts->rtol, opts->pcg_rtol);
  DT_CHECK(pb->fixed != NULL, ctx, DT_ERR_INPUT, "plastic solve: no fixed DOFs (a free body)");
  for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++)
    DT_ALLOC(*vec[k], n, ctx, "Newton vectors");
  DT_CHECK(opts->first_increment >= 0 && opts->first_increment < N, ctx, DT_ERR_INPUT,
           "plastic solve: resuming after increment %d of %d", opts->first_increment, N);
  DT_TRY(dt_ho_plastic_ops_open(pl, pb, opts, &w.run, ctx));
  w.ev.n_increments = N;
  rep->increments = opts->first_increment;
  for (int inc = opts->first_increment + 1; inc <= N; inc++) {
    rc = increment(pl, pb, opts, inc, (double)inc / N, 1.0 / N, u, &w, rep, ctx);
    if (rc != DT_OK) {
      (void)w.run.ops->rollback(w.run.s, ctx); /* rc keeps the first error */
      goto cleanup;
    }
    for (int i = 0; i < n; i++) u[i] += w.du[i];
    DT_TRY(w.run.ops->commit(w.run.s, ctx));
    rep->increments = inc;
    if (opts->sync_state) DT_TRY(w.run.ops->sync(w.run.s, 1, ctx)); /* for a checkpoint */
    /* committed: a stop asked for here keeps this increment */
    w.ev.u = u;
    rc = report(opts, &w, DT_HO_INCREMENT_DONE, ctx);
    w.ev.u = NULL;
    if (rc != DT_OK) goto cleanup;
  }
cleanup:
  if (w.run.ops) { /* the whole state into pl, for output and tests */
    dt_status sync = w.run.ops->sync(w.run.s, 2, ctx); /* ctx keeps the first error */
    if (rc == DT_OK) rc = sync;
  }
  dt_ho_plastic_ops_close(&w.run);
  for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++) dt_free(*vec[k]);
  return rc;
}
