/* Newton-Raphson for one increment ([Kiran2023, Algorithm 1], with our convergence tests).
 *
 *   repeat:  u_t = u_n + du                         trial displacement
 *            f_int(u_t) by radial return from the committed state
 *            r = free .* (f_ext(lambda) - f_int)    residual on free DOFs
 *            converged if |r| <= rtol * max(|f_ext|, |f_int|)  and the last correction was
 *                      small (|c| <= dtol |du|) or |r| is at the linear-solver floor.
 *                      The last correction measures the error of the previous iterate; with
 *                      quadratic convergence the current error is about its square, hence a
 *                      default dtol (1e-3) looser than rtol (1e-6).
 *            K_t du_c = r  (PCG to the correction's tolerance, forcing.h; Dirichlet
 *                           rows/columns identity);  du += du_c
 * With linear constraints (equations) r is the reduced residual T^T r and the correction solves
 * T^T K_t T c = r, then du += T c (constraints.c): du keeps satisfying the equations.
 * f_int includes the reactions, so the force scale is meaningful for displacement-driven steps.
 *
 * Models whose tangent is the elastic stiffness (Mohr-Coulomb: the initial-stiffness method of
 * [VilasBoas2020, Sec. 6.4]) assemble and precondition it once per increment, and by default
 * combine the corrections by Thomas's acceleration ([VilasBoas2020, eqs. (6.1)-(6.3)]):
 * corrections come in pairs,
 *     d   = K^-1 r(u)           u <- y = u + omega d   (the first one scaled)
 *     d*  = K^-1 r(y)           u <- y + d*
 *     omega <- omega + (d . d*) / (d . d),   omega = 1 at the start of the increment,
 * so each pair costs two residuals and two solves, like two plain iterations, and the residual
 * is tested after each (iterations keep counting corrections). omega is kept in (0, 10]: a
 * value outside (which the seed never saw) restarts it at 1.
 * Iterations are counted as corrections (linear solves): 0 when the increment needed none.
 * Divergence is a reason (STYLE.md §6), returned for the load stepper to cut back.
 *
 * Linear predictor (displacement control, as CalculiX and Abaqus start an increment): when DU
 * holds only the prescribed increment du_D on constrained DOFs, a material update at u_n + du_D
 * would strain the layer of elements next to the constrained nodes by the whole increment and
 * drive it far into plasticity before any equilibrium iteration. Instead the first correction
 * uses the linearisation at the committed state,
 *     f_lin = f_int(u_n) + K_t(u_n) du_D,   K_t(u_n) c = free .* (f_ext - f_lin),
 * with K_t(u_n) du_D formed as a directional derivative of the material update,
 * (f_int(u_n + eps du_D) - f_int(u_n)) / eps: with eps = 1e-6 every point stays on its branch
 * (a point at yield that loads returns with the consistent tangent), and the tangent assembled
 * at that trial state is the one the derivative used. Newton then starts from du_D + c.
 *
 * The linear solver never stops an increment by itself: a solve capped with |r|/|b| below
 * DT_NEWTON_INEXACT_ACCEPT is used as an inexact Newton step; one above it is retried once with
 * the next stronger preconditioner (jacobi -> block_jacobi -> amg, where the backend has it) and
 * twice the cap, and that preconditioner stays for the rest of the run. Only a retry that fails
 * too, or an indefinite tangent, is a reason to cut back.
 *
 * Line search: where the residual grows after the second correction (Newton stalls, e.g. when
 * many points change branch at once), the last correction is scaled back by 1/2 and 1/4 and the
 * first scale that lowers the residual below the previous one is kept (else the smallest of
 * those seen). Each trial costs one material update, no solve. */
#include "newton.h"

#include <math.h>

#include "core/clock.h"
#include "divergence.h"
#include "forcing.h"

/* Residual r = free .* (f_ext - f_int) and its relative norm. */
static dt_status residual(dt_newton_ctx *nc, double lambda, double *rel, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = nc->ops;
  void *im = nc->impl;
  double rr = 0.0, ee = 0.0, ii = 0.0, scale;
  DT_TRY(o->vec_lincomb(im, DT_VEC_FEXT, 1.0 - lambda, DT_VEC_F0, lambda, DT_VEC_F1, ctx));
  DT_TRY(o->vec_lincomb(im, DT_VEC_R, 1.0, DT_VEC_FEXT, -1.0, DT_VEC_FINT, ctx));
  if (nc->mpc) { /* the reduced residual T^T r and force T^T f_ext (constraints.c) */
    DT_TRY(dt_constraints_apply(nc->mpc, DT_VEC_R, DT_MPC_REDUCE, ctx));
    DT_TRY(o->vec_lincomb(im, DT_VEC_W, 1.0, DT_VEC_FEXT, 0.0, DT_VEC_FEXT, ctx));
    DT_TRY(dt_constraints_apply(nc->mpc, DT_VEC_W, DT_MPC_REDUCE, ctx));
  }
  DT_TRY(o->vec_mul(im, DT_VEC_R, DT_VEC_R, DT_VEC_FREE, ctx));
  DT_TRY(o->vec_mul(im, DT_VEC_W, nc->mpc ? DT_VEC_W : DT_VEC_FEXT, DT_VEC_FREE, ctx));
  DT_TRY(o->vec_dot(im, DT_VEC_R, DT_VEC_R, &rr, ctx));
  DT_TRY(o->vec_dot(im, DT_VEC_W, DT_VEC_W, &ee, ctx));
  DT_TRY(o->vec_dot(im, DT_VEC_FINT, DT_VEC_FINT, &ii, ctx));
  scale = sqrt(ee > ii ? ee : ii);
  if (nc->force_floor > scale) scale = nc->force_floor; /* initial conditions (newton.h) */
  *rel = scale > 0.0 ? sqrt(rr) / scale : sqrt(rr);
  if (!isfinite(rr) || !isfinite(scale)) *rel = NAN;
cleanup:
  return rc;
}

/* Solve K c = r to relative residual rtol into X with the backend's fused PCG if it has one;
 * with constraints, the reduced system (X then fills the dependent DOFs). */
static dt_status linear_solve(dt_newton_ctx *nc, double rtol, int max_iter, dt_pcg_result *pr,
                              dt_ctx *ctx) {
  const dt_backend_ops *o = nc->ops;
  if (nc->mpc) return dt_constraints_solve(nc->mpc, rtol, max_iter, pr, ctx);
  if (o->pcg_solve) return o->pcg_solve(nc->impl, rtol, max_iter, pr, ctx);
  return dt_pcg_solve(o, nc->impl, rtol, max_iter, pr, ctx);
}

static void info(dt_newton_ctx *nc, const char *text) {
  dt_progress ev = nc->event;
  ev.kind = DT_EV_INFO;
  ev.text = text;
  if (nc->progress) (void)nc->progress(&ev, nc->user);
}

/* The preconditioner to escalate to from `kind`, or -1 when there is none stronger. The direct
 * factor is not in the chain: with Debian's reference BLAS one factorization of a 52k-DOF
 * tetrahedral tangent takes tens of seconds on two cores (docs/benchmarks.md), which a run
 * should not start on its own; jobs ask for it. */
static int stronger_pc(int kind) {
  if (kind == DT_PC_JACOBI) return DT_PC_BLOCK_JACOBI;
  if (kind == DT_PC_AMG || kind == DT_PC_DIRECT) return -1;
  return DT_PC_AMG;
}

/* The backend's pc_setup, its time counted in seconds_pc_setup. */
static dt_status pc_setup_timed(dt_newton_ctx *nc, int kind, dt_ctx *pc_ctx) {
  double t0 = dt_seconds();
  dt_status rc = nc->ops->pc_setup(nc->impl, kind, pc_ctx);
  nc->seconds_pc_setup += dt_seconds() - t0;
  return rc;
}

/* pc_setup of kind; *singular is set (and DT_OK returned) when the tangent has a singular
 * diagonal block, which the backends report as DT_ERR_NOT_CONVERGED. */
/* Set up preconditioner kind. A singular diagonal block (DT_ERR_NOT_CONVERGED, for any kind)
 * sets *singular instead of failing; so does a setup that does not fit in memory set *nomem to
 * its error, where nomem is not NULL. */
static dt_status precondition_fit(dt_newton_ctx *nc, int kind, int *singular, dt_ctx *nomem,
                                  dt_ctx *ctx) {
  dt_ctx pc_ctx = {0};
  *singular = 0;
  if (pc_setup_timed(nc, kind, &pc_ctx) == DT_OK) return DT_OK;
  if (pc_ctx.code == DT_ERR_NOT_CONVERGED) {
    *singular = 1;
    return DT_OK;
  }
  if (nomem != NULL && (pc_ctx.code == DT_ERR_NOMEM || pc_ctx.code == DT_ERR_DEVICE_NOMEM)) {
    *nomem = pc_ctx;
    return DT_OK;
  }
  return dt_error_set(ctx, pc_ctx.code, pc_ctx.file, pc_ctx.line, pc_ctx.func, "%s", pc_ctx.msg);
}

static dt_status precondition(dt_newton_ctx *nc, int kind, int *singular, dt_ctx *ctx) {
  return precondition_fit(nc, kind, singular, NULL, ctx);
}

/* The escalation's next try after kind, from the preconditioner in use: the stronger ones in
 * turn, then (for AMG and direct, whose setups keep state between tangents) the one in use set
 * up anew; -1 when none is left. */
static int next_pc(int in_use, int kind) {
  int up = stronger_pc(kind);
  if (kind == in_use) return -1;
  if (up >= 0) return up;
  return in_use == DT_PC_AMG || in_use == DT_PC_DIRECT ? in_use : -1;
}

/* A failed solve retried with the next stronger preconditioner the backend has (kept for the
 * run) and twice the cap; R is formed again (PCG consumed it). *pr is the retry's result, or
 * unchanged when no stronger preconditioner is available. */
static dt_status escalate(dt_newton_ctx *nc, double lambda, double rtol, dt_pcg_result *pr,
                          dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char line[256];
  double rel = 0.0;
  /* With nothing stronger (or nothing stronger this backend has), the same preconditioner is
   * set up again on the same tangent, which builds an AMG hierarchy anew (aggregates from this
   * tangent's couplings; backend.h) and factors a direct one anew (it may have kept an older
   * tangent's factor). */
  int first = stronger_pc(nc->pc_kind) >= 0 ? stronger_pc(nc->pc_kind) : nc->pc_kind;
  for (int kind = first; kind >= 0; kind = next_pc(nc->pc_kind, kind)) {
    dt_ctx pc_ctx = {0};
    if (pc_setup_timed(nc, kind, &pc_ctx) != DT_OK) {
      if (pc_ctx.code == DT_ERR_UNSUPPORTED) continue; /* not on this backend: try the next */
      return dt_error_set(ctx, pc_ctx.code, pc_ctx.file, pc_ctx.line, pc_ctx.func, "%s",
                          pc_ctx.msg);
    }
    snprintf(line, sizeof line,
             "linear solver: PCG stopped at %d iterations with |r|/|b| = %.3g (%s "
             "preconditioner); retrying with %s%s",
             pr->iterations, pr->rel_residual, dt_precond_names[nc->pc_kind],
             dt_precond_names[kind],
             kind == nc->pc_kind ? " set up again" : ", which the rest of the run keeps");
    info(nc, line);
    nc->pc_kind = kind;
    nc->pc_escalations++;
    DT_TRY(residual(nc, lambda, &rel, ctx));
    DT_TRY(linear_solve(nc, rtol, 2 * nc->pcg_max_iter, pr, ctx));
    break;
  }
cleanup:
  return rc;
}

/* "auto": block Jacobi's solve reached DT_PC_AUTO_AMG_ITERATIONS without converging, so the
 * run moves to AMG: the solve is stopped there and done again with AMG set up on the same
 * tangent (from the same right-hand side, as escalate does). A slow block Jacobi solve so costs
 * the probe's iterations, not all of them (1,000-2,200 on the real suite's J2 parts). */
static dt_status auto_to_amg(dt_newton_ctx *nc, double lambda, double rtol, dt_pcg_result *pr,
                             int *singular, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char line[256];
  double rel = 0.0;
  snprintf(line, sizeof line,
           "linear solver: block_jacobi did not converge in %d PCG iterations: auto moves to amg "
           "for the rest of the run",
           pr->iterations);
  info(nc, line);
  nc->pc_kind = DT_PC_AMG;
  nc->pc_auto_amg = 0;
  nc->pc_switches++;
  DT_TRY(precondition(nc, DT_PC_AMG, singular, ctx));
  if (*singular) goto cleanup;
  DT_TRY(residual(nc, lambda, &rel, ctx));
  DT_TRY(linear_solve(nc, rtol, nc->pcg_max_iter, pr, ctx));
cleanup:
  return rc;
}

/* "auto": two_level's solves have averaged more than DT_PC_AUTO_TL_ITERATIONS PCG iterations
 * (precond_kind.h), so this setup is AMG's, which the run keeps. A hierarchy that does not fit
 * in memory leaves the run on two_level, which fitted: the AMG hierarchy is not in the job's
 * memory estimate, which admitted the job with two_level. */
static dt_status two_level_to_amg(dt_newton_ctx *nc, int *singular, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char line[512];
  dt_ctx nomem = {0};
  double mean = (double)nc->tl_pcg / (double)nc->tl_solves;
  nc->pc_auto_from_two_level = 0;
  DT_TRY(precondition_fit(nc, DT_PC_AMG, singular, &nomem, ctx));
  if (*singular) goto cleanup;
  if (nomem.code == DT_OK) {
    snprintf(line, sizeof line,
             "linear solver: two_level took %.0f PCG iterations a solve over %ld solves: auto "
             "moves to amg for the rest of the run",
             mean, nc->tl_solves);
    info(nc, line);
    nc->pc_kind = DT_PC_AMG;
    nc->pc_switches++;
    goto cleanup;
  }
  snprintf(
      line, sizeof line,
      "linear solver: two_level took %.0f PCG iterations a solve, but amg does not fit (%.300s): "
      "auto stays with two_level",
      mean, nomem.msg);
  info(nc, line);
  DT_TRY(precondition(nc, DT_PC_TWO_LEVEL, singular, ctx));
cleanup:
  return rc;
}

/* How the corrections of one increment are combined (see the top of the file). */
typedef struct accel_state {
  int thomas;      /* Thomas's acceleration on */
  int second;      /* the next correction is the second of a pair */
  double omega;    /* the scale of a pair's first correction */
  int assembled;   /* the increment's tangent is assembled and preconditioned (constant tangent) */
  int corrections; /* linear solves so far in the increment */
} accel_state;

#define THOMAS_OMEGA_MAX 10.0

/* du += the solve's correction X, as the acceleration says; *step_sq = |applied change|^2. */
static dt_status apply_correction(dt_newton_ctx *nc, accel_state *ac, double *step_sq,
                                  dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = nc->ops;
  void *im = nc->impl;
  double xx = 0.0, sx = 0.0, ss = 0.0;
  DT_TRY(o->vec_dot(im, DT_VEC_X, DT_VEC_X, &xx, ctx));
  if (!ac->thomas) {
    DT_TRY(o->vec_lincomb(im, DT_VEC_DU, 1.0, DT_VEC_DU, 1.0, DT_VEC_X, ctx)); /* du += c */
    *step_sq = xx;
  } else if (!ac->second) { /* d: y = u + omega d */
    DT_TRY(o->vec_lincomb(im, DT_VEC_ACCEL, 1.0, DT_VEC_X, 0.0, DT_VEC_X, ctx));
    DT_TRY(o->vec_lincomb(im, DT_VEC_DU, 1.0, DT_VEC_DU, ac->omega, DT_VEC_X, ctx));
    *step_sq = ac->omega * ac->omega * xx;
    ac->second = 1;
  } else { /* d*: u = y + d*, omega += d.d* / d.d */
    DT_TRY(o->vec_lincomb(im, DT_VEC_DU, 1.0, DT_VEC_DU, 1.0, DT_VEC_X, ctx));
    DT_TRY(o->vec_dot(im, DT_VEC_ACCEL, DT_VEC_X, &sx, ctx));
    DT_TRY(o->vec_dot(im, DT_VEC_ACCEL, DT_VEC_ACCEL, &ss, ctx));
    if (ss > 0.0) ac->omega += sx / ss;
    if (!(ac->omega > 0.0 && ac->omega <= THOMAS_OMEGA_MAX)) ac->omega = 1.0;
    *step_sq = xx;
    ac->second = 0;
  }
cleanup:
  return rc;
}

/* AMG keeps its coarse levels (DT_PC_KEEP_COARSE) while the last solve took at most this many
 * times the iterations of the first solve after the last full setup, within an increment and
 * across increments alike: a full refresh redoes the Galerkin products of every level, which
 * on the GPU costs 15-40 V-cycles at 50k DOFs and about 110 on a 2.2M-DOF tet10 part (0.58 s
 * against 5.2 ms), while the tangent changes little from one correction or increment to the
 * next and the iteration count says when the coarse levels no longer serve. Measured
 * (docs/benchmarks.md, decision table "Linear solver"): notched bar 2.2M DOFs, linear solver
 * 25.6 s with a full setup at each increment's start and 1.25, 19.7 s across increments with
 * 1.25, 17.4 s with 1.5 (PCG 2,523 / 2,531 / 2,550). */
#ifndef DT_AMG_KEEP_GROWTH
#define DT_AMG_KEEP_GROWTH 1.5 /* a lab build may set it: 0 sets up in full every time */
#endif
/* The direct preconditioner keeps its factor for the later corrections of an increment while
 * the last solve took at most this many iterations: the first solve after a factorization
 * takes one, and each iteration with a nearby tangent's factor costs a pair of triangular
 * solves, a small fraction of a factorization. */
#define DT_DIRECT_KEEP_ITERATIONS 20

/* Whether the correction about to be preconditioned may keep the expensive part of the last
 * full setup (DT_PC_KEEP_COARSE). */
static int keep_setup(const dt_newton_ctx *nc, const accel_state *ac) {
  if (nc->full_pcg <= 0) return 0;
  if (nc->pc_kind == DT_PC_AMG) return nc->last_pcg <= DT_AMG_KEEP_GROWTH * nc->full_pcg;
  if (ac->corrections == 0) return 0;
  if (nc->pc_kind == DT_PC_DIRECT) return nc->last_pcg <= DT_DIRECT_KEEP_ITERATIONS;
  return 0;
}

/* Assemble, precondition, solve to rtol and update du; sets *reason when the solve fails. A
 * constant tangent is assembled and preconditioned on the increment's first correction only. */
static dt_status correct(dt_newton_ctx *nc, double lambda, double rtol, accel_state *ac,
                         dt_newton_result *res, double *du_ratio, dt_reason *reason, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = nc->ops;
  void *im = nc->impl;
  dt_pcg_result pr = {0, 0.0, DT_CONVERGED};
  double t0 = dt_seconds(), cc = 0.0, uu = 0.0;
  int singular = 0, iterations = 0, keep = 0, probe = 0;
  if (!ac->assembled) {
    DT_TRY(o->tangent_assemble(im, ctx));
    nc->seconds_assembly += dt_seconds() - t0;
    nc->assembly_calls++;
    t0 = dt_seconds();
    if (nc->pc_auto_from_two_level && nc->pc_kind == DT_PC_TWO_LEVEL &&
        nc->tl_solves >= DT_PC_AUTO_TL_SOLVES &&
        nc->tl_pcg > (long)DT_PC_AUTO_TL_ITERATIONS * nc->tl_solves)
      DT_TRY(two_level_to_amg(nc, &singular, ctx));
    else {
      keep = keep_setup(nc, ac);
      DT_TRY(precondition(nc, nc->pc_kind | (keep ? DT_PC_KEEP_COARSE : 0), &singular, ctx));
    }
    if (singular) {
      *reason = DT_DIVERGED_INDEFINITE; /* a singular diagonal block: the tangent lost stiffness */
      goto cleanup;
    }
    ac->assembled = nc->opt->tangent_constant;
  }
  probe = nc->pc_auto_amg && nc->pc_kind == DT_PC_BLOCK_JACOBI &&
          nc->pcg_max_iter > DT_PC_AUTO_AMG_ITERATIONS;
  DT_TRY(linear_solve(nc, rtol, probe ? DT_PC_AUTO_AMG_ITERATIONS : nc->pcg_max_iter, &pr, ctx));
  iterations = pr.iterations;
  nc->pc_kept += keep;
  if (!keep) nc->full_pcg = pr.iterations;
  if (probe && pr.reason == DT_DIVERGED_LINEAR_SOLVER) {
    DT_TRY(auto_to_amg(nc, lambda, rtol, &pr, &singular, ctx));
    if (singular) {
      *reason = DT_DIVERGED_INDEFINITE;
      goto cleanup;
    }
    iterations += pr.iterations;
    nc->full_pcg = pr.iterations;
    ac->assembled = nc->opt->tangent_constant; /* preconditioned with AMG already */
  }
  if (pr.reason == DT_DIVERGED_LINEAR_SOLVER && !(pr.rel_residual < DT_NEWTON_INEXACT_ACCEPT)) {
    DT_TRY(escalate(nc, lambda, rtol, &pr, ctx)); /* an AMG setup on the same tangent: a build */
    iterations += pr.iterations;
    nc->full_pcg = pr.iterations;
  }
  nc->last_pcg = pr.iterations;
  if (nc->pc_auto_from_two_level && nc->pc_kind == DT_PC_TWO_LEVEL) {
    nc->tl_solves++;
    nc->tl_pcg += pr.iterations;
  }
  ac->corrections++;
  nc->seconds_solver += dt_seconds() - t0;
  res->pcg_iterations += iterations;
  dt_pcg_counts_add(&nc->pcg_counts, iterations);
  nc->event.pcg_iters = iterations;
  nc->event.pcg_rtol = rtol;
  if (pr.reason == DT_DIVERGED_LINEAR_SOLVER && pr.rel_residual < DT_NEWTON_INEXACT_ACCEPT) {
    pr.reason = DT_CONVERGED; /* an inexact Newton step: the next residual judges it */
    nc->inexact_solves++;
  }
  if (pr.reason != DT_CONVERGED) {
    *reason = pr.reason;
    goto cleanup;
  }
  DT_TRY(apply_correction(nc, ac, &cc, ctx));
  DT_TRY(o->vec_dot(im, DT_VEC_DU, DT_VEC_DU, &uu, ctx));
  *du_ratio = uu > 0.0 ? sqrt(cc / uu) : 0.0;
  if (!isfinite(*du_ratio)) *reason = DT_DIVERGED_NAN;
cleanup:
  return rc;
}

/* Material update at u + du into FINT (timed); the report says how many points are plastic. */
static dt_status update(dt_newton_ctx *nc, dt_stress_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double t0 = dt_seconds();
  DT_TRY(nc->ops->vec_lincomb(nc->impl, DT_VEC_UT, 1.0, DT_VEC_U, 1.0, DT_VEC_DU, ctx));
  DT_TRY(nc->ops->stress_update(nc->impl, DT_VEC_UT, DT_VEC_FINT, rep, ctx));
  nc->seconds_stress += dt_seconds() - t0;
  nc->stress_calls++;
cleanup:
  return rc;
}

#define PREDICTOR_EPS 1e-6

/* FINT = f_int(u_n) + K_t(u_n) du, the linearised internal force of the predictor (top of the
 * file); the trial state is left at u_n + eps du, where the tangent is then assembled. */
static dt_status linearised_force(dt_newton_ctx *nc, dt_stress_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = nc->ops;
  void *im = nc->impl;
  double t0 = dt_seconds();
  DT_TRY(o->vec_lincomb(im, DT_VEC_UT, 1.0, DT_VEC_U, 0.0, DT_VEC_U, ctx));
  DT_TRY(o->stress_update(im, DT_VEC_UT, DT_VEC_FINT, rep, ctx));
  DT_TRY(o->vec_lincomb(im, DT_VEC_UT, 1.0, DT_VEC_U, PREDICTOR_EPS, DT_VEC_DU, ctx));
  DT_TRY(o->stress_update(im, DT_VEC_UT, DT_VEC_W, rep, ctx));
  DT_TRY(o->vec_lincomb(im, DT_VEC_FINT, 1.0 - 1.0 / PREDICTOR_EPS, DT_VEC_FINT,
                        1.0 / PREDICTOR_EPS, DT_VEC_W, ctx));
  nc->seconds_stress += dt_seconds() - t0;
  nc->stress_calls += 2;
cleanup:
  return rc;
}

/* Scale the last correction (X, applied in full) back to the first of 1/2, 1/4 that brings the
 * residual below rel_prev, else to the scale with the smallest residual; *rel and *du_ratio
 * follow. The material state and FINT end at the scale kept. */
static dt_status line_search(dt_newton_ctx *nc, double lambda, double rel_prev, double *rel,
                             double *du_ratio, dt_stress_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = nc->ops;
  void *im = nc->impl;
  double alpha = 1.0, best_alpha = 1.0, best_rel = *rel, r = 0.0;
  nc->line_searches++;
  for (double a = 0.5; a >= 0.25; a *= 0.5) {
    DT_TRY(o->vec_lincomb(im, DT_VEC_DU, 1.0, DT_VEC_DU, a - alpha, DT_VEC_X, ctx));
    alpha = a;
    DT_TRY(update(nc, rep, ctx));
    DT_TRY(residual(nc, lambda, &r, ctx));
    if (r < best_rel) best_rel = r, best_alpha = a;
    if (r < rel_prev) break;
  }
  if (best_alpha != alpha) { /* go back to the best scale seen */
    DT_TRY(o->vec_lincomb(im, DT_VEC_DU, 1.0, DT_VEC_DU, best_alpha - alpha, DT_VEC_X, ctx));
    DT_TRY(update(nc, rep, ctx));
    DT_TRY(residual(nc, lambda, &r, ctx));
  }
  *rel = r;
  *du_ratio *= best_alpha;
cleanup:
  return rc;
}

dt_status dt_newton_increment(dt_newton_ctx *nc, double lambda, dt_newton_result *res,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double du_ratio = INFINITY, rel_prev = INFINITY;
  int predictor = nc->linear_predictor, thomas = nc->opt->accel == DT_ACCEL_THOMAS;
  int max_it = nc->opt->newton_max_iter + 1; /* residual evaluations */
  dt_residual_history hist = {0.0, {0.0, 0.0, 0.0, 0.0}, 0};
  accel_state ac = {thomas, 0, 1.0, 0, 0};
  dt_forcing forcing;
  dt_forcing_start(&forcing, nc->opt);
  nc->event.pcg_iters = 0; /* no linear solve yet in this increment */
  nc->event.pcg_rtol = NAN;
  res->reason = DT_DIVERGED_ITS;
  res->iterations = res->pcg_iterations = res->n_plastic = 0;
  res->failed_elem = -1;
  res->residual = NAN;
  for (int it = 1; it <= max_it; it++) {
    dt_stress_report rep = {0, 0, -1};
    dt_reason why = DT_CONVERGED;
    double rel = 0.0;
    int linearised = predictor && it == 1;
    if (linearised)
      DT_TRY(linearised_force(nc, &rep, ctx));
    else
      DT_TRY(update(nc, &rep, ctx));
    res->iterations = it - 1; /* corrections (linear solves) so far, the seed's NR count */
    res->n_plastic = rep.n_plastic;
    if (rep.n_failed) {
      res->reason = DT_MATERIAL_NO_CONVERGENCE;
      res->failed_elem = rep.first_failed_elem;
      break;
    }
    DT_TRY(residual(nc, lambda, &rel, ctx));
    /* Newton stalls: the residual grew after the second correction (not after the predictor's,
     * whose starting residual was a linearised one) */
    if (!thomas && it >= 3 && !(predictor && it == 2) && isfinite(rel) && rel > rel_prev)
      DT_TRY(line_search(nc, lambda, rel_prev, &rel, &du_ratio, &rep, ctx));
    res->residual = rel;
    res->n_plastic = rep.n_plastic;
    if (!linearised) dt_residual_history_push(&hist, rel);
    nc->event.kind = DT_EV_NEWTON_ITER;
    nc->event.newton_iter = it - 1;
    nc->event.residual = rel;
    nc->event.du_ratio = it > 1 ? du_ratio : NAN;
    nc->event.n_plastic = rep.n_plastic;
    if (nc->progress && nc->progress(&nc->event, nc->user)) {
      rc = DT_ERROR(ctx, DT_ERR_CANCELLED, "cancelled at Newton iteration %d", it - 1);
      goto cleanup;
    }
    if (isnan(rel)) {
      res->reason = DT_DIVERGED_NAN;
      break;
    }
    if (!linearised && rel <= nc->opt->newton_rtol &&
        (it == 1 || nc->opt->newton_dtol <= 0.0 || du_ratio <= nc->opt->newton_dtol ||
         rel <= DT_NEWTON_RESIDUAL_FLOOR)) {
      res->reason = DT_CONVERGED;
      break;
    }
    if (dt_residual_history_diverging(&hist)) {
      res->reason = DT_DIVERGED_RESIDUAL;
      break;
    }
    if (it == max_it) break;
    rel_prev = linearised ? INFINITY : rel;
    if (linearised) nc->predictor_solves++;
    ac.thomas = thomas && !linearised; /* the predictor's correction is applied whole, unpaired */
    DT_TRY(correct(nc, lambda, dt_forcing_next(&forcing, rel), &ac, res, &du_ratio, &why, ctx));
    if (why != DT_CONVERGED) {
      res->reason = why;
      break;
    }
  }
cleanup:
  return rc;
}
