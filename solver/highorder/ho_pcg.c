/* PCG with Dirichlet masking (ho_pcg.h). The loop follows PETSc's KSPSolve_CG; Jacobi is one
 * preconditioner callback among others and keeps the arithmetic it always had. */
#include "highorder/ho_pcg.h"

#include <math.h>

/* Dot product summed in blocks of fixed size and the blocks in order: the same bits on any
 * thread count. */
#define DOT_BLOCK 4096
/* Below this many blocks a parallel region costs more than the sum, above all when the cores
 * are shared (ctest -j). */
#define DOT_PARALLEL_BLOCKS 16

static double dot(int n, const double *x, const double *y, double *partial) {
  int nb = (n + DOT_BLOCK - 1) / DOT_BLOCK;
#pragma omp parallel for schedule(static) if (nb >= DOT_PARALLEL_BLOCKS)
  for (int k = 0; k < nb; k++) {
    int lo = k * DOT_BLOCK, hi = lo + DOT_BLOCK < n ? lo + DOT_BLOCK : n;
    double s = 0.0;
    for (int i = lo; i < hi; i++) s += x[i] * y[i];
    partial[k] = s;
  }
  double s = 0.0;
  for (int k = 0; k < nb; k++) s += partial[k];
  return s;
}

static void mask(int n, const unsigned char *fixed, double *x) {
  if (!fixed) return;
  for (int i = 0; i < n; i++)
    if (fixed[i]) x[i] = 0.0;
}

/* Jacobi's state: the diagonal and the constrained set. */
typedef struct jacobi_pc {
  int n;
  const double *diag;
  const unsigned char *fixed;
} jacobi_pc;

static dt_status jacobi_apply(void *pc, const double *r, double *z, dt_ctx *ctx) {
  const jacobi_pc *j = pc;
  (void)ctx;
  for (int i = 0; i < j->n; i++) z[i] = (j->fixed && j->fixed[i]) ? 0.0 : r[i] / j->diag[i];
  return DT_OK;
}

dt_status dt_ho_pcg_solve_pc(int n, dt_ho_apply_fn apply, const void *op, dt_ho_pc_fn pc_apply,
                             void *pc, const unsigned char *fixed, const double *b, double *u,
                             const dt_ho_pcg_opts *opts, dt_ho_pcg_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *r = NULL, *z = NULL, *p = NULL, *Ap = NULL, *partial = NULL;
  dt_ho_pcg_result out = {0};
  DT_ALLOC(r, n, ctx, "PCG residual");
  DT_ALLOC(z, n, ctx, "PCG preconditioned residual");
  DT_ALLOC(p, n, ctx, "PCG direction");
  DT_ALLOC(Ap, n, ctx, "PCG operator product");
  DT_ALLOC(partial, n / DOT_BLOCK + 1, ctx, "PCG dot products");
  /* r <- b - K u, lifted by the prescribed values in u, then masked */
  DT_TRY(apply(op, u, r, ctx));
  for (int i = 0; i < n; i++) r[i] = b[i] - r[i];
  mask(n, fixed, r);
  out.rnorm0 = out.rnorm = sqrt(dot(n, r, r, partial));
  if (out.rnorm0 == 0.0) goto cleanup;
  /* z <- M^-1 r, p <- z */
  DT_TRY(pc_apply(pc, r, z, ctx));
  mask(n, fixed, z);
  for (int i = 0; i < n; i++) p[i] = z[i];
  double rz = dot(n, r, z, partial);
  while (out.rnorm > opts->rtol * out.rnorm0) {
    DT_CHECK(out.iterations < opts->max_it, ctx, DT_ERR_NOT_CONVERGED,
             "PCG did not converge: relative residual %.3g after %d iterations (tolerance %.3g)",
             out.rnorm / out.rnorm0, out.iterations, opts->rtol);
    DT_TRY(apply(op, p, Ap, ctx));
    mask(n, fixed, Ap);
    double pAp = dot(n, p, Ap, partial);
    out.indefinite = !(pAp > 0.0 && isfinite(pAp));
    DT_CHECK(pAp > 0.0 && isfinite(pAp), ctx, DT_ERR_NOT_CONVERGED,
             "PCG stopped at iteration %d: p^T K p = %g, the operator is not positive definite "
             "on the free DOFs (missing Dirichlet conditions?)",
             out.iterations, pAp);
    double alpha = rz / pAp;
    /* u <- u + alpha p, r <- r - alpha K p */
    for (int i = 0; i < n; i++) {
      u[i] += alpha * p[i];
      r[i] -= alpha * Ap[i];
    }
    DT_TRY(pc_apply(pc, r, z, ctx));
    mask(n, fixed, z);
    double rz_new = dot(n, r, z, partial);
    out.indefinite = !(rz_new >= 0.0 && isfinite(rz_new));
    DT_CHECK(rz_new >= 0.0 && isfinite(rz_new), ctx, DT_ERR_NOT_CONVERGED,
             "PCG stopped at iteration %d: r^T M^-1 r = %g, the preconditioner is not positive "
             "definite",
             out.iterations, rz_new);
    /* p <- z + beta p */
    double beta = rz_new / rz;
    rz = rz_new;
    for (int i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
    out.rnorm = sqrt(dot(n, r, r, partial));
    out.iterations++;
  }
cleanup:
  if (res) *res = out;
  dt_free(r);
  dt_free(z);
  dt_free(p);
  dt_free(Ap);
  dt_free(partial);
  return rc;
}

dt_status dt_ho_pcg_solve(int n, dt_ho_apply_fn apply, const void *op, const double *diag,
                          const unsigned char *fixed, const double *b, double *u,
                          const dt_ho_pcg_opts *opts, dt_ho_pcg_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  jacobi_pc jac = {n, diag, fixed};
  if (res) *res = (dt_ho_pcg_result){0};
  for (int i = 0; i < n; i++)
    DT_CHECK((fixed && fixed[i]) || diag[i] > 0.0, ctx, DT_ERR_INPUT,
             "PCG: diagonal entry of free DOF %d (node %d, component %d) is %g, not positive", i,
             i / 3, i % 3, diag[i]);
  DT_TRY(dt_ho_pcg_solve_pc(n, apply, op, jacobi_apply, &jac, fixed, b, u, opts, res, ctx));
cleanup:
  return rc;
}
