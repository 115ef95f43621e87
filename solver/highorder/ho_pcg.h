/* Preconditioned conjugate gradients (Jacobi, or a caller's preconditioner) for matrix-free operators on order-P meshes.
 *
 * Dirichlet conditions by masking: the prescribed values sit in u on entry, the initial
 * residual r = b - K u is taken with them (lifting), and every residual and search direction is
 * zero on the constrained DOFs, so CG runs on the free block K_ff. Dot products are summed in
 * fixed blocks, so the iterates do not depend on the thread count. */
#ifndef DT_HO_PCG_H
#define DT_HO_PCG_H

#include "core/dt_status.h"

/* y = A x for x, y of the solver's length n. */
typedef dt_status (*dt_ho_apply_fn)(const void *op, const double *x, double *y, dt_ctx *ctx);

typedef struct dt_ho_pcg_opts {
  double rtol; /* stop when ||r|| <= rtol ||r_0|| (r_0 after lifting, free DOFs) */
  int max_it;  /* iteration cap */
} dt_ho_pcg_opts;

typedef struct dt_ho_pcg_result {
  int iterations;
  double rnorm0;  /* ||r_0||, 2-norm over the free DOFs */
  double rnorm;   /* final ||r||; the recursively updated residual */
  int indefinite; /* DT_ERR_NOT_CONVERGED came from a non-positive curvature, not the cap */
} dt_ho_pcg_result;

/* Solves K u = b on the free DOFs of n, fixed[i] != 0 marking the constrained ones (NULL: none).
 * u: in, prescribed values on fixed DOFs and the initial guess elsewhere; out, the solution.
 * diag: K's diagonal (positive on free DOFs). res may be NULL. Errors: DT_ERR_NOT_CONVERGED
 * (with the relative residual reached) when max_it iterations do not reach rtol or K is not
 * positive definite on the free DOFs; DT_ERR_INPUT for a non-positive diagonal entry; errors of
 * apply. */
dt_status dt_ho_pcg_solve(int n, dt_ho_apply_fn apply, const void *op, const double *diag,
                          const unsigned char *fixed, const double *b, double *u,
                          const dt_ho_pcg_opts *opts, dt_ho_pcg_result *res, dt_ctx *ctx);

/* z = M^-1 r for the free DOFs: a symmetric positive definite preconditioner. r is zero on the
 * constrained DOFs and z must be too. */
typedef dt_status (*dt_ho_pc_fn)(void *pc, const double *r, double *z, dt_ctx *ctx);

/* dt_ho_pcg_solve with the preconditioner pc_apply(pc, ., .) in place of Jacobi (ho_pmg.h has a
 * p-multigrid one). Errors as dt_ho_pcg_solve, and those of pc_apply. */
dt_status dt_ho_pcg_solve_pc(int n, dt_ho_apply_fn apply, const void *op, dt_ho_pc_fn pc_apply,
                             void *pc, const unsigned char *fixed, const double *b, double *u,
                             const dt_ho_pcg_opts *opts, dt_ho_pcg_result *res, dt_ctx *ctx);

#endif
