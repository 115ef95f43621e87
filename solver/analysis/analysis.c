/* The analysis driver: steps, increments with automatic cutback, results (analysis.h).
 *
 * Within step s at load factor lambda in [0, 1]:
 *   f_ext(lambda) = (1 - lambda) f0 + lambda f1,  f0 = the load the previous step left, with
 *                   the reactions of DOFs released by this step (so they unload smoothly);
 *   u_D(lambda)   = (1 - lambda) u_start + lambda u_presc on constrained DOFs.
 * An increment starts from the committed state with du = u_D - u at constrained DOFs and 0
 * elsewhere, and Newton corrects du. A converged increment is committed and written out; a
 * divergent one is rolled back and retried with a quarter of the increment. */
#include "analysis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend/backend.h"
#include "backend/parts/parts.h"
#include "checkpoint.h"
#include "core/clock.h"
#include "core/omp_threads.h"
#include "fields.h"
#include "io/output.h"
#include "core/host_arrays.h"
#include "element/element.h"
#include "explicit/explicit.h"
#include "problem/loads.h"
#include "newton.h"

#define DT_CUTBACK_FACTOR 0.25
#define DT_GROWTH_FACTOR 1.5
#define DT_EASY_ITERATIONS 4 /* an increment this easy lets the next one grow */

typedef struct run {
  const dt_model *m;
  dt_model m_host; /* the model with "auto" chosen for a host backend (setup), when it differs */
  const dt_run_options *opt;
  dt_run_summary *sum;
  const dt_backend_ops *o;
  void *impl;
  dt_problem *pb;
  dt_output *out;
  dt_fields fields;
  double *h1, *h2; /* host scratch, n_dofs each */
  dt_newton_ctx nc;
  dt_checkpoint ck;   /* scratch for writing, or the checkpoint resumed from */
  dt_constraints mpc; /* the equations (nc.mpc points here when the problem has some) */
  int resumed;
  int *elem_mat, *elem_mat_next; /* the materials the backend holds, and a step's: only for a
                                    model whose steps change materials (else NULL) */
} run;

/* Where a step starts: from scratch (lambda 0) or inside it, after a resume. */
typedef struct step_start {
  double lambda, dlambda, dlambda_prev;
  int increment;
  int mid_step; /* 1: f0/u0 come from a checkpoint, not from the previous step's end */
} step_start;

static void info(run *r, const char *text) {
  dt_progress ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = DT_EV_INFO;
  ev.n_steps = r->m->n_steps;
  ev.text = text;
  ev.backend = r->sum->backend[0] ? r->sum->backend : r->o ? r->o->name : NULL;
  if (r->opt->progress) r->opt->progress(&ev, r->opt->user);
}

/* A run split over several devices (backend/parts/parts.h): the found backend runs each part
 * under the compound backend, on block Jacobi or AMG (additive Schwarz over the parts), the
 * preconditioners split so far. */
static dt_status split_setup(run *r, dt_backend_options *bo, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char line[512];
  int n = r->opt->n_devices;
  DT_CHECK(n <= DT_MAX_RUN_DEVICES, ctx, DT_ERR_INPUT, "a run takes at most %d devices, not %d",
           DT_MAX_RUN_DEVICES, n);
  if (r->m->solver.precond != DT_PC_BLOCK_JACOBI && r->m->solver.precond != DT_PC_AMG) {
    DT_CHECK(r->m->solver.precond_auto, ctx, DT_ERR_UNSUPPORTED,
             "linear.preconditioner \"%s\" does not run on several devices yet: split runs take "
             "\"block_jacobi\", \"amg\" or \"auto\" (\"two_level\", \"jacobi\" and "
             "\"direct\" are not split)",
             dt_precond_names[r->m->solver.precond]);
    r->m_host = *r->m; /* a copy of the header, its arrays shared */
    r->m_host.solver.precond = DT_PC_BLOCK_JACOBI;
    r->m = &r->m_host;
  }
  bo->n_devices = n;
  memcpy(bo->devices, r->opt->devices, sizeof(int) * (size_t)n);
  bo->inner = r->o;
  bo->model = r->m;
  r->o = &dt_parts_ops;
  snprintf(line, sizeof line,
           "split run: %d METIS parts of the mesh, one per device, %s backend on each; %s "
           "preconditioner%s",
           n, bo->inner->name, dt_precond_names[r->m->solver.precond],
           r->m->solver.precond == DT_PC_AMG
               ? " (additive Schwarz, one hierarchy per part: its PCG iterations grow with the "
                 "parts' size, and at millions of DOFs a part block_jacobi is faster; "
                 "docs/multi-gpu.md)"
               : "");
  info(r, line);
cleanup:
  return rc;
}

static dt_status setup(run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char note[512] = "", line[1024];
  int split_across;
  double t0;
  int changes = 0;
  dt_backend_options bo = {.threads = r->opt->threads,
                           .device = r->opt->device,
                           .cuda_elements = (dt_cuda_elements)r->m->solver.cuda_elements,
                           .cuda_tangent = (dt_cuda_tangent)r->m->solver.cuda_tangent};
  DT_TRY(dt_backend_find(r->opt->backend, &r->o, note, sizeof note, ctx));
  info(r, note);
  if (r->opt->n_devices == 1) bo.device = r->opt->devices[0];
  if (r->opt->n_devices > 1) DT_TRY(split_setup(r, &bo, ctx));
  if (r->m->solver.precond_auto && r->o->host) {
    /* "auto" differs on the host (precond_kind.h): the run sees a copy of the model's header
     * (its arrays shared) with the host's choice */
    dt_precond_kind host = dt_precond_auto(r->m->dim, (long)r->m->n_nodes * r->m->dim, 1);
    if (host != r->m->solver.precond) {
      r->m_host = *r->m;
      r->m_host.solver.precond = host;
      r->m = &r->m_host;
    }
  }
  snprintf(r->sum->backend, sizeof r->sum->backend, "%s", bo.inner ? bo.inner->name : r->o->name);
#ifdef _OPENMP
  /* the problem is compiled with OpenMP (problem_pattern.c): with the threads the run asked for */
  if (r->opt->threads > 0) omp_set_num_threads(r->opt->threads);
#endif
  t0 = dt_seconds();
  if (bo.n_devices > 1) /* each part builds its own pattern and colours */
    DT_TRY(dt_problem_create_outline(r->m, &r->pb, ctx));
  else
    DT_TRY(dt_problem_create(r->m, &r->pb, ctx));
  if (r->pb->matrix_free || bo.n_devices > 1) /* no whole pattern, or its size would mislead */
    snprintf(line, sizeof line,
             "problem: %dD, %d nodes, %d DOFs, %d elements, %d points (built in %.2f s)",
             r->pb->dim, r->pb->n_nodes, r->pb->n_dofs, r->pb->n_elems, r->pb->n_qp,
             dt_seconds() - t0);
  else
    snprintf(line, sizeof line,
             "problem: %dD, %d nodes, %d DOFs, %d elements, %d points, "
             "CSR nnz %lld, %d colours (built in %.2f s)",
             r->pb->dim, r->pb->n_nodes, r->pb->n_dofs, r->pb->n_elems, r->pb->n_qp,
             (long long)r->pb->nnz, r->pb->n_colors, dt_seconds() - t0);
  info(r, line);
  /* AMG takes an assembled tangent on one backend, or split over host parts, where it is one
   * hierarchy across them (precond_kind.h, DT_PC_AUTO_AMG_ITERATIONS; amg/amg_parts.h) */
  split_across = bo.n_devices > 1 && bo.inner && bo.inner->host;
  r->nc.pc_auto_amg = r->m->solver.precond_auto && (bo.n_devices <= 1 || split_across) &&
                      r->m->dim == 3 && r->m->solver.precond == DT_PC_BLOCK_JACOBI &&
                      !r->pb->matrix_free;
  r->nc.pc_auto_from_two_level = r->m->solver.precond_auto && bo.n_devices <= 1 && r->m->dim == 3 &&
                                 r->m->solver.precond == DT_PC_TWO_LEVEL && !r->pb->matrix_free;
  if (r->nc.pc_auto_amg && split_across)
    snprintf(note, sizeof note,
             " (auto: block_jacobi in split runs, which moves to amg, one hierarchy across the "
             "parts, when a solve has not converged in %d PCG iterations)",
             DT_PC_AUTO_AMG_ITERATIONS);
  else if (bo.n_devices > 1)
    snprintf(note, sizeof note,
             " (auto: block_jacobi in split runs; amg splits %s: docs/multi-gpu.md)",
             split_across ? "as one hierarchy across the parts"
                          : "on devices as additive Schwarz without a coarse space, fewer PCG "
                            "iterations but longer solves");
  else if (r->nc.pc_auto_amg || r->nc.pc_auto_from_two_level)
    snprintf(note, sizeof note,
             " (auto: two_level for 3D models of at least %d DOFs on this backend, which moves to "
             "amg when its solves average more than %d PCG iterations, else block_jacobi, which "
             "moves to amg when a solve has not converged in %d)",
             r->o->host ? DT_PC_AUTO_MIN_DOFS_HOST : DT_PC_AUTO_MIN_DOFS, DT_PC_AUTO_TL_ITERATIONS,
             DT_PC_AUTO_AMG_ITERATIONS);
  else
    snprintf(note, sizeof note,
             " (auto: two_level for 3D models of at least %d DOFs on this backend, else "
             "block_jacobi)",
             r->o->host ? DT_PC_AUTO_MIN_DOFS_HOST : DT_PC_AUTO_MIN_DOFS);
  snprintf(line, sizeof line, "linear solver: PCG, %s preconditioner%s, %s tolerance %g",
           dt_precond_names[r->m->solver.precond], r->m->solver.precond_auto ? note : "",
           dt_forcing_names[r->m->solver.forcing], r->m->solver.pcg_rtol);
  info(r, line);
  if (r->pb->matrix_free && bo.n_devices <= 1) { /* a split run's parts have their classes */
    long unclassed = dt_problem_unclassed(r->pb);
    snprintf(line, sizeof line,
             "operator: matrix-free, %d class%s of congruent elements (sharing an elastic matrix "
             "each), %ld element%s without a class storing %s own (%d doubles each)",
             r->pb->n_classes, r->pb->n_classes == 1 ? "" : "es", unclassed,
             unclassed == 1 ? "" : "s", unclassed == 1 ? "its" : "their", r->pb->emat_doubles);
    info(r, line);
  }
  snprintf(
      line, sizeof line, "nonlinear: %s, acceleration %s%s, at most %d iterations per increment",
      r->m->solver.tangent_constant
          ? "elastic tangent assembled once per increment (initial stiffness)"
          : "Newton with the consistent tangent",
      dt_accel_names[r->m->solver.accel],
      r->m->solver.accel_auto ? " (auto: thomas with a Mohr-Coulomb elastic tangent, else none)"
                              : "",
      r->m->solver.newton_max_iter);
  info(r, line);
  t0 = dt_seconds();
  DT_TRY(r->o->problem_upload(r->pb, &bo, &r->impl, ctx));
  snprintf(line, sizeof line, "backend %s: problem taken in %.2f s", r->o->name, dt_seconds() - t0);
  info(r, line);
  if (r->o->describe) { /* the kernels it chose, and the job's backend_options behind the choice */
    char kernels[256] = "";
    r->o->describe(r->impl, kernels, sizeof kernels);
    snprintf(line, sizeof line, "kernels: %s (backend_options: elements %s, tangent %s)", kernels,
             dt_cuda_elements_names[r->m->solver.cuda_elements],
             dt_cuda_tangent_names[r->m->solver.cuda_tangent]);
    info(r, line);
  }
  DT_ALLOC(r->h1, r->pb->n_dofs, ctx, "host vector");
  DT_ALLOC(r->h2, r->pb->n_dofs, ctx, "host vector");
  dt_host_fill(r->h2, NULL, (size_t)r->pb->n_dofs); /* pages in now, with all threads */
  DT_TRY(dt_fields_alloc(r->m, r->pb, &r->fields, ctx));
#pragma omp parallel for schedule(static) if (r->pb->n_dofs > DT_HOST_PARALLEL_MIN)
  for (int i = 0; i < r->pb->n_dofs; i++) r->h1[i] = 1.0;  /* pages in h1 on all threads too */
  DT_TRY(r->o->vec_set(r->impl, DT_VEC_FREE, r->h1, ctx)); /* before step 1: all free, f = 0 */
  r->nc.ops = r->o;
  r->nc.impl = r->impl;
  r->nc.opt = &r->m->solver;
  r->nc.progress = r->opt->progress;
  r->nc.user = r->opt->user;
  r->nc.pcg_max_iter = r->m->solver.pcg_max_iter;
  r->nc.pc_kind = r->m->solver.precond;
  for (int s = 0; s < r->m->n_steps; s++) changes += r->m->steps[s].n_material_changes;
  if (changes > 0) {
    DT_ALLOC(r->elem_mat, r->pb->n_elems, ctx, "element materials");
    DT_ALLOC(r->elem_mat_next, r->pb->n_elems, ctx, "element materials");
    memcpy(r->elem_mat, r->pb->elem_mat, sizeof(int) * (size_t)r->pb->n_elems);
  }
  r->nc.force_floor = r->pb->f0_norm; /* initial stresses or plastic strains: newton.h */
  if (r->pb->n_mpc > 0) {
    DT_TRY(dt_constraints_init(&r->mpc, r->o, r->impl, r->pb, ctx));
    r->nc.mpc = &r->mpc;
    snprintf(line, sizeof line,
             "constraints: %d equations, their dependent DOFs eliminated (u = T u_hat, PCG on "
             "T^T K T%s)",
             r->pb->n_mpc, r->o->mpc_apply ? "" : ", T applied on the host");
    info(r, line);
  }
cleanup:
  return rc;
}

/* dst = src on the DOFs of nodes no element uses, through the host: the backends hold those
 * as constrained rows, yet their loads count (model_mpc.c), so the step's starting load keeps
 * them. */
static dt_status copy_isolated(run *r, dt_vec_id dst, dt_vec_id src, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int dpn = r->pb->dpn;
  DT_TRY(r->o->vec_get(r->impl, src, r->h1, ctx));
  DT_TRY(r->o->vec_get(r->impl, dst, r->h2, ctx));
  for (int a = 0; a < r->pb->n_nodes; a++)
    for (int k = 0; r->m->node_isolated[a] && k < dpn; k++) r->h2[a * dpn + k] = r->h1[a * dpn + k];
  DT_TRY(r->o->vec_set(r->impl, dst, r->h2, ctx));
cleanup:
  return rc;
}

/* The step's starting load and displacement from the end of the previous step:
 * f0 = f_int + free_prev .* (f_ext_prev - f_int), u0 = u. */
static dt_status step_start_vectors(run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = r->o;
  void *im = r->impl;
  DT_TRY(o->vec_lincomb(im, DT_VEC_W, 1.0, DT_VEC_FEXT, -1.0, DT_VEC_FINT, ctx));
  DT_TRY(o->vec_mul(im, DT_VEC_W, DT_VEC_W, DT_VEC_FREE, ctx));
  DT_TRY(o->vec_lincomb(im, DT_VEC_F0, 1.0, DT_VEC_FINT, 1.0, DT_VEC_W, ctx));
  if (r->m->node_isolated) DT_TRY(copy_isolated(r, DT_VEC_F0, DT_VEC_FEXT, ctx));
  DT_TRY(o->vec_lincomb(im, DT_VEC_UD0, 1.0, DT_VEC_U, 0.0, DT_VEC_U, ctx));
cleanup:
  return rc;
}

/* The step's target load, constraints and prescribed displacements. DOFs the step holds take
 * the displacement it starts from (UD0, kept in checkpoints, so a resumed step holds the same). */
static dt_status step_load_vectors(run *r, int s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = r->o;
  void *im = r->impl;
  DT_TRY(dt_loads_force(r->m, s, r->h1, ctx));
  DT_TRY(o->vec_set(im, DT_VEC_F1, r->h1, ctx));
  DT_TRY(dt_loads_constraints(r->m, s, r->h1, r->h2, ctx));
  DT_TRY(o->vec_set(im, DT_VEC_FREE, r->h1, ctx));
#pragma omp parallel for schedule(static) if (r->pb->n_dofs > DT_HOST_PARALLEL_MIN)
  for (int i = 0; i < r->pb->n_dofs; i++) r->h1[i] = 1.0 - r->h1[i];
  DT_TRY(o->vec_set(im, DT_VEC_CON, r->h1, ctx));
  if (dt_loads_has_hold(r->m, s)) {
    DT_TRY(o->vec_get(im, DT_VEC_UD0, r->h1, ctx));
    dt_loads_hold(r->m, s, r->h1, r->h2);
  }
  DT_TRY(o->vec_set(im, DT_VEC_UD1, r->h2, ctx));
  /* On DOFs constrained in this step f0 plays no role in the residual; zeroing it keeps
   * reactions (f_int - f_ext there) free of the previous step's reaction. */
  if (r->m->node_isolated)
    DT_TRY(o->vec_lincomb(im, DT_VEC_W, 1.0, DT_VEC_F0, 0.0, DT_VEC_F0, ctx));
  DT_TRY(o->vec_mul(im, DT_VEC_F0, DT_VEC_F0, DT_VEC_FREE, ctx));
  if (r->m->node_isolated) DT_TRY(copy_isolated(r, DT_VEC_F0, DT_VEC_W, ctx));
cleanup:
  return rc;
}

/* The start of an increment. A displacement-driven increment (the prescribed values change)
 * starts with du = con .* (u_D(lambda) - u) and Newton's linear predictor (*linear = 1;
 * newton.c), as CalculiX and Abaqus start one: the tangent at the committed state carries the
 * prescribed increment inside. Extrapolating the previous increment instead overshoots where
 * the part starts to yield (a plate with holes: 264 plastic points extrapolated to 9,704, and
 * Newton stalled at a residual of 1). Otherwise du = free .* (s du_prev), the previous
 * converged increment of the step scaled to this one (s = dlambda / dlambda_prev; 0 for the
 * first increment of a step and after a cutback). */
static dt_status predictor(run *r, double lambda, double s, int *linear, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = r->o;
  void *im = r->impl;
  double dd = 0.0;
  DT_TRY(o->vec_lincomb(im, DT_VEC_W, 1.0 - lambda, DT_VEC_UD0, lambda, DT_VEC_UD1, ctx));
  DT_TRY(o->vec_lincomb(im, DT_VEC_W, 1.0, DT_VEC_W, -1.0, DT_VEC_U, ctx));
  DT_TRY(o->vec_mul(im, DT_VEC_DU, DT_VEC_W, DT_VEC_CON, ctx));
  DT_TRY(o->vec_dot(im, DT_VEC_DU, DT_VEC_DU, &dd, ctx));
  *linear = dd > 0.0;
  if (!*linear && s > 0.0) {
    DT_TRY(o->vec_mul(im, DT_VEC_W, DT_VEC_DU_PREV, DT_VEC_FREE, ctx));
    DT_TRY(o->vec_lincomb(im, DT_VEC_DU, 1.0, DT_VEC_DU, s, DT_VEC_W, ctx));
  }
  /* the dependent DOFs follow the prescribed and extrapolated ones through their equations */
  if (r->nc.mpc) DT_TRY(dt_constraints_apply(r->nc.mpc, DT_VEC_DU, DT_MPC_EXPAND, ctx));
cleanup:
  return rc;
}

/* The summary's maxima (max reductions: the same result with any thread count). */
static void fields_summary(run *r) {
  const dt_fields *f = &r->fields;
  double max_u = 0.0, max_mises = 0.0, max_peeq = 0.0;
#pragma omp parallel for schedule(static)                                                          \
    reduction(max                                                                                  \
              : max_u) if (f->n_nodes > DT_HOST_PARALLEL_MIN / 3)
  for (int a = 0; a < f->n_nodes; a++) {
    double u = sqrt(f->u[3 * a] * f->u[3 * a] + f->u[3 * a + 1] * f->u[3 * a + 1] +
                    f->u[3 * a + 2] * f->u[3 * a + 2]);
    if (u > max_u) max_u = u;
  }
#pragma omp parallel for schedule(static)                                                          \
    reduction(max                                                                                  \
              : max_mises, max_peeq) if (f->n_qp > DT_HOST_PARALLEL_MIN)
  for (int q = 0; q < f->n_qp; q++) {
    if (f->qp_stress && dt_mises(f->qp_stress + 6 * q) > max_mises)
      max_mises = dt_mises(f->qp_stress + 6 * q);
    if (f->qp_peeq && f->qp_peeq[q] > max_peeq) max_peeq = f->qp_peeq[q];
  }
  r->sum->max_u = max_u;
  r->sum->max_mises = max_mises;
  r->sum->max_peeq = max_peeq;
}

/* Commit a converged increment, download its fields and write them. */
static dt_status accept(run *r, int s, int inc, double lambda, int last_of_step,
                        const dt_newton_result *nr, int cutbacks, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_history_row row;
  double t0;
  DT_TRY(r->o->state_commit(r->impl, ctx));
  DT_TRY(r->o->vec_lincomb(r->impl, DT_VEC_U, 1.0, DT_VEC_U, 1.0, DT_VEC_DU, ctx));
  t0 = dt_seconds();
  memset(&row, 0, sizeof row);
  row.step = s;
  row.increment = inc;
  row.load_factor = lambda;
  row.time = s + lambda;
  row.newton_iters = nr->iterations;
  row.pcg_iters = nr->pcg_iterations;
  row.residual = nr->residual;
  row.cutbacks = cutbacks;
  row.n_plastic_qp = nr->n_plastic;
  r->sum->increments++;
  r->sum->last_time = row.time;
  r->fields.step = s;
  r->fields.increment = inc;
  r->fields.global_increment = r->sum->increments;
  r->fields.load_factor = lambda;
  r->fields.time = row.time;
  DT_TRY(dt_fields_download(r->m, r->o, r->impl, &r->fields, r->h1, ctx));
  r->sum->seconds_output_download += dt_seconds() - t0;
  dt_fields_monitors(r->m, &r->fields, &row);
  fields_summary(r);
  if (r->out) {
    int write = dt_output_fields_due(r->m, r->sum->increments, last_of_step);
    DT_TRY(dt_output_increment(r->out, r->m, &r->fields, &row, write, ctx));
  }
  if (r->opt->on_increment) r->opt->on_increment(&r->fields, &row, r->opt->user);
  r->sum->seconds_output += dt_seconds() - t0;
cleanup:
  return rc;
}

static void describe_failure(run *r, int s, double lambda, double dlambda, int cutbacks,
                             const dt_newton_result *nr) {
  const dt_step *st = &r->m->steps[s];
  char where[160] = "";
  if (nr->reason == DT_MATERIAL_NO_CONVERGENCE && nr->failed_elem >= 0)
    snprintf(where, sizeof where, " (return mapping failed in element %lld)",
             (long long)r->m->elem_id[nr->failed_elem]);
  snprintf(r->sum->message, sizeof r->sum->message,
           "no convergence in step %d \"%s\" at load factor %.6g of the step (increment %.3g "
           "after %d cutbacks in a row; no smaller one is allowed): %s%s. The last converged state "
           "is at "
           "load factor %.6g. If the load exceeds what the structure can carry (limit load, "
           "collapse mechanism), no smaller increment can help.",
           s + 1, st->name, lambda + dlambda, dlambda, cutbacks, dt_reason_name(nr->reason), where,
           lambda);
  r->sum->reason = nr->reason;
}

static void increment_event(run *r, dt_event_kind kind, int s, int inc, double lambda,
                            double dlambda, const dt_newton_result *nr, const char *text) {
  dt_progress *ev = &r->nc.event;
  ev->kind = kind;
  ev->step = s;
  ev->n_steps = r->m->n_steps;
  ev->step_name = r->m->steps[s].name;
  ev->increment = inc;
  ev->load_factor = lambda;
  ev->dlambda = dlambda;
  ev->reason = nr ? nr->reason : DT_CONVERGED;
  ev->newton_iter = nr ? nr->iterations : 0;
  ev->residual = nr ? nr->residual : 0.0;
  ev->n_plastic = nr ? nr->n_plastic : 0;
  ev->percent = 100.0 * (s + lambda) / r->m->n_steps;
  ev->text = text;
  if (r->opt->progress) r->opt->progress(ev, r->opt->user);
}

/* The backend vectors a checkpoint holds, in dt_checkpoint.vec order (checkpoint.h). */
static const dt_vec_id checkpoint_vectors[DT_CK_NVEC] = {DT_VEC_U,  DT_VEC_FINT, DT_VEC_FEXT,
                                                         DT_VEC_F0, DT_VEC_UD0,  DT_VEC_DU_PREV};

static dt_status save_output_state(void *arg, FILE *f, dt_ctx *ctx) {
  return dt_output_save_state(arg, f, ctx);
}

/* Checkpoint after a converged increment: position, counters, vectors, point state. */
static dt_status write_checkpoint(run *r, int s, int inc, double lambda, double dl, double dl_prev,
                                  dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_checkpoint *ck = &r->ck;
  DT_CHECK(r->o->state_get != NULL, ctx, DT_ERR_UNSUPPORTED, "backend %s cannot write checkpoints",
           r->o->name);
  if (r->opt->before_checkpoint) r->opt->before_checkpoint(r->opt->user);
  if (!ck->vec) DT_TRY(dt_checkpoint_alloc(ck, r->pb->n_dofs, r->pb->n_qp, ctx));
  ck->model_hash = dt_model_hash(r->m);
  ck->step = s, ck->increment = inc, ck->lambda = lambda, ck->dlambda = dl;
  ck->dlambda_prev = dl_prev;
  ck->counters = *r->sum;
  for (int i = 0; i < DT_CK_NVEC; i++)
    DT_TRY(r->o->vec_get(r->impl, checkpoint_vectors[i], ck->vec + (size_t)i * ck->n_dofs, ctx));
  DT_TRY(r->o->state_get(r->impl, ck->qp, ctx));
  DT_TRY(
      dt_checkpoint_write(r->opt->checkpoint, ck, r->out ? save_output_state : NULL, r->out, ctx));
cleanup:
  return rc;
}

/* Run step s from `start`; *stop is set when it could not complete (reason in the summary). */
static dt_status run_step(run *r, int s, const step_start *start, int *stop, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_step *st = &r->m->steps[s];
  double lambda = start->lambda, dmax, dmin, dl, t0 = dt_seconds();
  double dl_prev = start->mid_step ? start->dlambda_prev : 0.0; /* 0: no extrapolation */
  int inc = start->increment, cut_in_row = 0, cuts_before = 0;
  int n_inc = st->n_increments > 0 ? st->n_increments : 1;
  dmax = st->automatic ? st->inc_max : 1.0 / n_inc;
  dl = start->mid_step ? start->dlambda : st->automatic ? st->inc_initial : dmax;
  dmin = st->automatic ? st->inc_min : dmax * pow(DT_CUTBACK_FACTOR, st->max_cutbacks);
  if (!start->mid_step) DT_TRY(step_start_vectors(r, ctx));
  DT_TRY(step_load_vectors(r, s, ctx));
  r->sum->seconds_loads += dt_seconds() - t0;
  if (!start->mid_step) increment_event(r, DT_EV_STEP_START, s, 0, 0.0, dl, NULL, NULL);
  while (lambda < 1.0 - 1e-12) {
    dt_newton_result nr;
    if (dl > 1.0 - lambda || 1.0 - lambda - dl < 1e-9) dl = 1.0 - lambda;
    increment_event(r, DT_EV_INCREMENT_START, s, inc + 1, lambda + dl, dl, NULL, NULL);
    DT_TRY(predictor(r, lambda + dl, cut_in_row || dl_prev <= 0.0 ? 0.0 : dl / dl_prev,
                     &r->nc.linear_predictor, ctx));
    DT_TRY(dt_newton_increment(&r->nc, lambda + dl, &nr, ctx));
    r->sum->newton_iters += nr.iterations;
    r->sum->pcg_iters += nr.pcg_iterations;
    if (nr.reason == DT_CONVERGED) {
      lambda = lambda + dl > 1.0 - 1e-12 ? 1.0 : lambda + dl;
      inc++;
      DT_TRY(r->o->vec_lincomb(r->impl, DT_VEC_DU_PREV, 1.0, DT_VEC_DU, 0.0, DT_VEC_DU, ctx));
      dl_prev = dl;
      DT_TRY(accept(r, s, inc, lambda, lambda >= 1.0, &nr, cuts_before, ctx));
      increment_event(r, DT_EV_INCREMENT_DONE, s, inc, lambda, dl, &nr, NULL);
      if (nr.iterations <= DT_EASY_ITERATIONS && cut_in_row == 0) dl *= DT_GROWTH_FACTOR;
      if (dl > dmax) dl = dmax;
      cut_in_row = cuts_before = 0;
      if (r->opt->checkpoint) DT_TRY(write_checkpoint(r, s, inc, lambda, dl, dl_prev, ctx));
      continue;
    }
    DT_TRY(r->o->state_rollback(r->impl, ctx));
    r->sum->cutbacks++;
    cut_in_row++;
    cuts_before++;
    if (cut_in_row > st->max_cutbacks || dl * DT_CUTBACK_FACTOR < dmin * (1 - 1e-9)) {
      describe_failure(r, s, lambda, dl, cut_in_row - 1, &nr);
      *stop = 1;
      break;
    }
    increment_event(r, DT_EV_CUTBACK, s, inc + 1, lambda + dl, dl, &nr, dt_reason_name(nr.reason));
    dl *= DT_CUTBACK_FACTOR;
  }
  if (!*stop) {
    r->sum->steps_completed++;
    increment_event(r, DT_EV_STEP_DONE, s, inc, 1.0, dl, NULL, NULL);
  }
cleanup:
  return rc;
}

/* Before step s: where the step's materials (its and the earlier steps' material changes,
 * CalculiX's *CHANGE SOLID SECTION) differ from those the backend holds, the backend takes them.
 * The per-point state is kept, so the next stress update gives C_new (eps - eps_p) and Newton
 * restores equilibrium under the new stiffness, as CalculiX does. */
static dt_status step_materials(run *r, int s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t bytes = sizeof(int) * (size_t)r->pb->n_elems;
  char line[128];
  int changed = 0;
  if (!r->elem_mat) return DT_OK;
  dt_problem_step_materials(r->m, s, r->elem_mat_next);
  if (memcmp(r->elem_mat, r->elem_mat_next, bytes) == 0) return DT_OK;
  DT_CHECK(r->o->materials_set != NULL, ctx, DT_ERR_UNSUPPORTED,
           "step %d \"%s\" changes a material, which backend %s cannot take", s + 1,
           r->m->steps[s].name, r->o->name);
  DT_TRY(r->o->materials_set(r->impl, r->elem_mat_next, ctx));
  for (int e = 0; e < r->pb->n_elems; e++) changed += r->elem_mat[e] != r->elem_mat_next[e];
  snprintf(line, sizeof line,
           "step %d: %d element(s) take another material (*CHANGE SOLID SECTION)", s + 1, changed);
  info(r, line);
  memcpy(r->elem_mat, r->elem_mat_next, bytes);
cleanup:
  return rc;
}

/* Restore a checkpoint into the backend and the output writer; *first is where to go on. */
static dt_status resume(run *r, step_start *first, int *first_step, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_checkpoint *ck = &r->ck;
  FILE *f = NULL;
  char line[256];
  DT_TRY(dt_checkpoint_read(r->opt->checkpoint, dt_model_hash(r->m), ck, &f, ctx));
  DT_CHECK(ck->n_dofs == r->pb->n_dofs && ck->n_qp == r->pb->n_qp && ck->step < r->m->n_steps, ctx,
           DT_ERR_INPUT, "checkpoint '%s' does not match the model's size", r->opt->checkpoint);
  DT_CHECK(r->o->state_set != NULL, ctx, DT_ERR_UNSUPPORTED,
           "backend %s cannot restore checkpoints", r->o->name);
  for (int i = 0; i < DT_CK_NVEC; i++)
    DT_TRY(r->o->vec_set(r->impl, checkpoint_vectors[i], ck->vec + (size_t)i * ck->n_dofs, ctx));
  DT_TRY(r->o->state_set(r->impl, ck->qp, ctx));
  DT_TRY(step_load_vectors(r, ck->step, ctx)); /* FREE/CON of that step */
  if (r->opt->outdir)
    DT_TRY(dt_output_open_resume(r->opt->outdir, r->opt->job_name, r->m, f, &r->out, ctx));
  *r->sum = ck->counters;
  r->sum->completed = 0;
  r->sum->message[0] = '\0';
  first->mid_step = ck->lambda < 1.0;
  first->lambda = first->mid_step ? ck->lambda : 0.0;
  first->dlambda = ck->dlambda;
  first->dlambda_prev = ck->dlambda_prev;
  first->increment = first->mid_step ? ck->increment : 0;
  *first_step = first->mid_step ? ck->step : ck->step + 1;
  r->resumed = 1;
  snprintf(line, sizeof line,
           "resumed from checkpoint: step %d at load factor %.6g, %d increments "
           "kept (not recomputed)",
           ck->step + 1, ck->lambda, ck->counters.increments);
  dt_progress ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = DT_EV_INFO;
  ev.n_steps = r->m->n_steps;
  ev.text = line;
  ev.resumed = 1;
  if (r->opt->progress) r->opt->progress(&ev, r->opt->user);
cleanup:
  if (f) fclose(f);
  return rc;
}

static int file_exists(const char *path) {
  FILE *f = path ? fopen(path, "rb") : NULL;
  if (f) fclose(f);
  return f != NULL;
}

dt_status dt_analysis_run(const dt_model *m, const dt_run_options *opt, dt_run_summary *summary,
                          dt_ctx *ctx) {
  dt_status rc = DT_OK;
  run r;
  int stop = 0, first_step = 0;
  step_start start = {0.0, 0.0, 0.0, 0, 0};
  double t0 = dt_seconds();
  if (m->n_steps > 0 && m->steps[0].procedure == DT_PROC_EXPLICIT) /* all are (model_finish) */
    return dt_explicit_run(m, opt, summary, ctx);
  memset(&r, 0, sizeof r);
  memset(summary, 0, sizeof *summary);
  r.m = m;
  r.opt = opt;
  r.sum = summary;
  summary->reason = DT_CONVERGED;
  summary->pc_final = -1; /* until setup has chosen one */
  DT_TRY(setup(&r, ctx));
  if (opt->checkpoint && opt->resume && file_exists(opt->checkpoint)) {
    rc = resume(&r, &start, &first_step, ctx);
    /* the checkpoint's own fault (unreadable, another model, a backend that cannot restore),
     * not a lack of memory: the caller may start from the beginning instead */
    summary->checkpoint_unusable =
        rc == DT_ERR_INPUT || rc == DT_ERR_IO || rc == DT_ERR_UNSUPPORTED;
    if (rc != DT_OK) goto cleanup;
  } else if (opt->outdir)
    DT_TRY(dt_output_open(opt->outdir, opt->job_name, m, &r.out, ctx));
  /* A device backend's solve leaves the host's cores to the writer, all but the one that drives
   * the device: with them the writer keeps pace with the solver's fast increments. A host
   * backend's threads are the solver's: its writer stays one thread. */
  dt_output_writer_threads(r.out, r.o->host ? 1 : dt_omp_max_threads() - 1);
  summary->seconds_setup = dt_seconds() - t0;
  for (int s = first_step; s < m->n_steps && !stop; s++) {
    DT_TRY(step_materials(&r, s, ctx));
    DT_TRY(run_step(&r, s, &start, &stop, ctx));
    memset(&start, 0, sizeof start);
  }
  summary->completed = !stop;
  if (!stop)
    snprintf(summary->message, sizeof summary->message, "completed %d step(s), %d increments",
             summary->steps_completed, summary->increments);
cleanup:
  if (r.out) { /* the last VTUs are still being written in the background: part of the run */
    dt_ctx flush_ctx = {0};
    double t1 = dt_seconds();
    dt_status frc = dt_output_flush(r.out, rc == DT_OK ? ctx : &flush_ctx);
    summary->seconds_output += dt_seconds() - t1;
    if (rc == DT_OK) rc = frc;
  }
  summary->seconds_assembly = r.nc.seconds_assembly;
  summary->seconds_stress = r.nc.seconds_stress;
  summary->assembly_calls = r.nc.assembly_calls;
  summary->stress_calls = r.nc.stress_calls;
  summary->seconds_solver = r.nc.seconds_solver;
  summary->seconds_pc_setup = r.nc.seconds_pc_setup;
  summary->predictor_solves = r.nc.predictor_solves;
  summary->inexact_solves = r.nc.inexact_solves;
  summary->pc_escalations = r.nc.pc_escalations;
  summary->pc_setups_kept = r.nc.pc_kept;
  summary->pc_auto_switches = r.nc.pc_switches;
  if (r.nc.ops) summary->pc_final = r.nc.pc_kind;
  summary->line_searches = r.nc.line_searches;
  summary->pcg_solves = r.nc.pcg_counts.solves;
  summary->pcg_median = dt_pcg_counts_median(&r.nc.pcg_counts);
  summary->pcg_max = r.nc.pcg_counts.max;
  summary->seconds_total = dt_seconds() - t0;
  if (rc != DT_OK && summary->message[0] == '\0')
    snprintf(summary->message, sizeof summary->message, "%s", ctx ? ctx->msg : "error");
  if (r.out) {
    dt_ctx close_ctx = {0};
    dt_status crc = dt_output_close(&r.out, m, summary, rc == DT_OK ? ctx : &close_ctx);
    if (rc == DT_OK) rc = crc;
  }
  if (rc == DT_OK && stop) rc = DT_ERR_NOT_CONVERGED;
  dt_fields_free(&r.fields);
  if (r.impl && opt->before_destroy) opt->before_destroy(r.o, r.impl, opt->user);
  if (r.impl) r.o->destroy(r.impl);
  dt_problem_destroy(&r.pb);
  dt_free(r.h1);
  dt_free(r.h2);
  dt_free(r.elem_mat);
  dt_free(r.elem_mat_next);
  dt_checkpoint_free(&r.ck);
  dt_constraints_free(&r.mpc);
  return rc;
}

dt_status dt_analysis_estimate(const dt_model *m, const char *backend, double *bytes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = NULL;
  dt_problem *pb = NULL;
  char note[256];
  *bytes = 0.0;
  DT_TRY(dt_backend_find(backend, &o, note, sizeof note, ctx));
  if (m->n_steps > 0 && m->steps[0].procedure == DT_PROC_EXPLICIT) {
    *bytes = dt_xp_model_bytes(m);
    goto cleanup;
  }
  DT_TRY(dt_problem_create(m, &pb, ctx));
  if (o->estimate) DT_TRY(o->estimate(pb, bytes, ctx));
cleanup:
  dt_problem_destroy(&pb);
  return rc;
}

double dt_analysis_floor_bytes(const dt_model_size *s) {
  int dpn = s->dim == 3 ? 3 : 2;
  double dofs = s->keeps_all ? (double)s->n_nodes * dpn : 0.0, n_qp = 0.0;
  for (int t = 0; t < DT_ELEM_NCONTINUUM; t++)
    n_qp += (double)s->n_type[t] * dt_elem_nqp(t == DT_ELEM_HEX20 ? DT_ELEM_HEX20R : t);
  /* as dt_cpu_estimate counts them; the CUDA backend's estimate holds these and more; shells
   * (explicit) at their elastic size */
  return 8.0 * (DT_VEC_COUNT * dofs + dofs * dpn + (2.0 * DT_MAT_STATE_DOUBLES + 24.0) * n_qp) +
         dt_xp_bytes((double)s->n_type[DT_ELEM_SHELL4], 0);
}
