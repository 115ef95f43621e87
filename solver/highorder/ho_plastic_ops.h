/* Where the operations of the order-P plastic Newton solve run (private to solver/highorder).
 *
 * dt_ho_plastic_solve (ho_plastic_newton.c) is written once against this table: the residual,
 * the tangent's product, a correction solve (the tangent's diagonal and the PCG), commit,
 * rollback and the state's copy into the host dt_ho_plastic. Every op takes and returns host
 * vectors of 3 n_nodes, so Newton's own O(n) work stays on the host and a GPU moves a few
 * vectors per Newton iteration and nothing per PCG iteration. Two tables: the host's
 * (ho_plastic.c's operators, ho_pcg.c with Jacobi or the host p-multigrid) and, in a build with
 * CUDA, the GPU's (cuda/cuda_ho_plastic.cu). Another place to run adds a table and a branch in
 * dt_ho_plastic_ops_open. */
#ifndef DT_HO_PLASTIC_OPS_H
#define DT_HO_PLASTIC_OPS_H

#include "highorder/ho_pcg.h"
#include "highorder/ho_plastic.h"

typedef struct dt_ho_plastic_ops {
  const char *name;
  /* f = f_int(u), the trial state and tangent updated; errors of dt_ho_plastic_residual */
  dt_status (*residual)(void *s, const double *u, double *f, dt_ho_plastic_report *rep,
                        dt_ctx *ctx);
  /* v = K_t w with the last residual's tangent */
  dt_status (*tangent_apply)(void *s, const double *w, double *v, dt_ctx *ctx);
  /* K_t c = b on the free DOFs (c in: prescribed values and guess; out: the solution) with the
   * last residual's tangent, its diagonal and the run's preconditioner; errors and res of
   * dt_ho_pcg_solve */
  dt_status (*correction)(void *s, const double *b, double *c, const dt_ho_pcg_opts *po,
                          dt_ho_pcg_result *res, dt_ctx *ctx);
  dt_status (*commit)(void *s, dt_ctx *ctx);
  dt_status (*rollback)(void *s, dt_ctx *ctx);
  /* the committed state (what = 1) or all of it (what = 2) into the host dt_ho_plastic */
  dt_status (*sync)(void *s, int what, dt_ctx *ctx);
  void (*close)(void *s);
} dt_ho_plastic_ops;

typedef struct dt_ho_plastic_runner {
  const dt_ho_plastic_ops *ops;
  void *s; /* the table's state, owned */
} dt_ho_plastic_runner;

/* The table and state for pl, pb's fixed DOFs and o (o->gpu picks the GPU, o->pmg or
 * o->device_pc the preconditioner). Errors: DT_ERR_UNSUPPORTED (a GPU without CUDA in the
 * build), DT_ERR_NOMEM, the device's errors. Release with dt_ho_plastic_ops_close. */
dt_status dt_ho_plastic_ops_open(dt_ho_plastic *pl, const dt_ho_newton_problem *pb,
                                 const dt_ho_newton_opts *o, dt_ho_plastic_runner *r, dt_ctx *ctx);
void dt_ho_plastic_ops_close(dt_ho_plastic_runner *r);

#endif
