/* Newton-Raphson iterations of one load increment, over the backend operations. */
#ifndef DT_NEWTON_H
#define DT_NEWTON_H

#include "analysis.h"
#include "backend/backend.h"
#include "constraints.h"
#include "pcg_counts.h"

/* Residual below this (relative) is accepted without the displacement test: the increment is
 * then solved to the accuracy of the linear solver (a linear step converges in one iteration). */
#define DT_NEWTON_RESIDUAL_FLOOR 1e-8

typedef struct dt_newton_ctx {
  const dt_backend_ops *ops;
  void *impl;
  const dt_solver_options *opt;
  dt_progress_fn progress;
  void *user;
  dt_progress event; /* step/increment fields pre-filled by the caller */
  double seconds_assembly, seconds_stress, seconds_solver; /* accumulated */
  double seconds_pc_setup;           /* of seconds_solver, the preconditioner setups */
  long assembly_calls, stress_calls; /* the calls timed in seconds_assembly, seconds_stress */
  /* Set by the caller per increment: start with the linear predictor (newton.c) because DU
   * holds only a prescribed displacement increment, which nothing has carried inside yet. */
  int linear_predictor;
  int pcg_max_iter; /* the linear solver's cap (dt_solver_options.pcg_max_iter, resolved) */
  int pc_kind;      /* the preconditioner in use; escalation makes it stronger for the run */
  /* Set by the caller when "auto" chose block Jacobi: a solve not converged after
   * DT_PC_AUTO_AMG_ITERATIONS is stopped and done again with AMG, which the run keeps
   * (precond_kind.h); cleared once it has moved. */
  int pc_auto_amg;
  /* Set by the caller when "auto" chose two_level: once its solves have averaged more than
   * DT_PC_AUTO_TL_ITERATIONS PCG iterations over at least DT_PC_AUTO_TL_SOLVES of them, the
   * next setup moves the run to AMG (precond_kind.h); cleared once it has moved or stayed. */
  int pc_auto_from_two_level;
  long tl_solves, tl_pcg; /* two_level's solves so far under it, and their PCG iterations */
  /* The linear constraints (equations), eliminated: residuals are reduced (T^T r) and the
   * corrections solved in the reduced space (constraints.c); NULL for a model without. */
  dt_constraints *mpc;
  /* Models with initial stresses or plastic strains: their forces load the body from the
   * start, yet a body free to relax can end holding no force at all, and with no external
   * force either the residual's scale max(|f_ext|, |f_int|) would shrink with the residual.
   * The scale is never below force_floor, the initial states' forces at u = 0
   * (dt_problem.f0_norm; 0 without initial conditions). */
  double force_floor;
  /* Preconditioner setups that keep their expensive part (newton.c, keep_setup): the PCG
   * iterations of the last solve, and of the first solve after the last full setup (0: none
   * yet). */
  int last_pcg, full_pcg;
  long pc_kept;     /* setups that kept AMG's coarse levels or the direct factor */
  long pc_switches; /* "auto" moved from block Jacobi or two_level to AMG (0 or 1) */
  /* What the robustness measures did (accumulated over the run, for the summary). */
  long predictor_solves, inexact_solves, pc_escalations, line_searches;
  dt_pcg_counts pcg_counts; /* PCG iterations of each correction (its median for the summary) */
} dt_newton_ctx;

typedef struct dt_newton_result {
  dt_reason reason;
  int iterations;
  int pcg_iterations;
  double residual; /* relative force residual at exit */
  int n_plastic;
  int failed_elem; /* for MATERIAL_NO_CONVERGENCE: an element index, else -1 */
} dt_newton_result;

/* A capped linear solve whose residual fell below this is used as an inexact Newton step
 * (Newton's own residual test judges it); above it the solve has failed. */
#define DT_NEWTON_INEXACT_ACCEPT 1e-2

/* Iterate on the increment ending at load factor lambda: DU holds the predictor (prescribed
 * displacements already in place) and is corrected in place. Returns DT_OK with res->reason
 * saying whether it converged; DT_ERR_CANCELLED if the progress callback asked to stop. */
dt_status dt_newton_increment(dt_newton_ctx *nc, double lambda, dt_newton_result *res, dt_ctx *ctx);

#endif
