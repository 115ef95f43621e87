/* p-multigrid V-cycle (ho_pmg.h): setup of the levels, the Lanczos estimate of each smoother's
 * interval, the Chebyshev smoother and the cycle. */
#include <math.h>
#include <string.h>

#include "core/clock.h"
#include "highorder/ho_pmg_internal.h"

/* Measured on the curved cantilever of tests/highorder/test_ho_pmg.c (docs/highorder.md): a wide
 * interval (ratio 30) pays because the trilinear AMG level corrects the smooth modes of a
 * slender part only roughly, and degree 3 is the fastest in time at P = 3, 4. */
void dt_ho_pmg_opts_default(dt_ho_pmg_opts *o) {
  o->degree = 3;
  o->eig_ratio = 30.0;
  o->lanczos_steps = 12;
  o->halve = 1;
  o->fine_later = 0;
}

static double dot(int n, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

/* lambda_max of D^-1 A on the free DOFs by Lanczos on D^-1/2 A D^-1/2 (symmetric, same
 * spectrum), from a deterministic start with every frequency in it. Uses L's r, d, t, x, b. */
static dt_status lambda_max(dt_ho_pmg_level *L, int steps, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = L->n, k = 0;
  double alpha[DT_AMG_LANCZOS_MAX], beta[DT_AMG_LANCZOS_MAX], b_prev = 0.0;
  double *v = L->r, *vp = L->d, *w = L->t, *s = L->x;
  for (int i = 0; i < n; i++) v[i] = L->dinv[i] > 0.0 ? dt_amg_lanczos_start(i) : 0.0, vp[i] = 0.0;
  double nrm = sqrt(dot(n, v, v));
  for (int i = 0; i < n; i++) v[i] /= nrm;
  for (int j = 0; j < steps; j++) {
    for (int i = 0; i < n; i++) s[i] = sqrt(L->dinv[i]) * v[i];
    DT_TRY(L->apply(L->op, s, w, ctx));
    for (int i = 0; i < n; i++) w[i] *= sqrt(L->dinv[i]);
    alpha[j] = dot(n, w, v);
    k = j + 1;
    for (int i = 0; i < n; i++) w[i] -= alpha[j] * v[i] + b_prev * vp[i];
    beta[j] = sqrt(dot(n, w, w));
    if (beta[j] <= DT_AMG_LANCZOS_BREAK * fabs(alpha[j])) break;
    for (int i = 0; i < n; i++) {
      vp[i] = v[i];
      v[i] = w[i] / beta[j];
    }
    b_prev = beta[j];
  }
  L->lambda_max = dt_amg_ritz_max(alpha, beta, k);
  DT_CHECK(L->lambda_max > 0.0 && isfinite(L->lambda_max), ctx, DT_ERR_NOT_CONVERGED,
           "p-multigrid: lambda_max(D^-1 A) of order %d estimated as %g", L->order, L->lambda_max);
cleanup:
  return rc;
}

/* dinv and lambda_max of level L from its diagonal. */
static dt_status smoother_setup(dt_ho_pmg_level *L, const double *diag, int steps, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int i = 0; i < L->n; i++) {
    DT_CHECK(L->fixed[i] || diag[i] > 0.0, ctx, DT_ERR_INPUT,
             "p-multigrid: order %d, diagonal entry of free DOF %d (node %d, component %d) is "
             "%g, not positive",
             L->order, i, i / 3, i % 3, diag[i]);
    L->dinv[i] = L->fixed[i] ? 0.0 : 1.0 / diag[i];
  }
  DT_TRY(lambda_max(L, steps, ctx));
cleanup:
  return rc;
}

static dt_status level_vectors(dt_ho_pmg_level *L, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double **vec[] = {&L->b, &L->x, &L->r, &L->d, &L->t, &L->dinv};
  for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++)
    DT_ALLOC(*vec[k], L->n, ctx, "p-multigrid vectors");
cleanup:
  return rc;
}

/* The levels below the finest: each coarse mesh with its operator and constraints, and the
 * transfer to it. */
static dt_status build_levels(dt_ho_pmg *pmg, const dt_ho_mesh *m, const dt_ho_elastic *el,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int p = m->order; p > 1;) {
    int pc = pmg->opt.halve ? (p + 1) / 2 : 1, l = pmg->n_levels - 1;
    pmg->lev[l + 1].order = pc;
    DT_TRY(dt_ho_pmg_coarse_level(pmg, l, l == 0 ? m->coords : pmg->lev[l].mesh.coords, el, ctx));
    DT_TRY(dt_ho_pmg_transfer_setup(pmg, l, ctx));
    pmg->n_levels++;
    p = pc;
  }
cleanup:
  return rc;
}

/* Every level's smoother above the order-1 level: the finest from diag (unless left to
 * dt_ho_pmg_set_fine), the coarser from their elastic diagonals. */
static dt_status smoothers(dt_ho_pmg *pmg, const double *diag, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *cdiag = NULL;
  if (!pmg->opt.fine_later) DT_TRY(smoother_setup(&pmg->lev[0], diag, pmg->opt.lanczos_steps, ctx));
  for (int l = 1; l < pmg->n_levels - 1; l++) {
    dt_ho_pmg_level *L = &pmg->lev[l];
    dt_free(cdiag);
    DT_ALLOC(cdiag, L->n, ctx, "p-multigrid diagonal");
    DT_TRY(dt_ho_elastic_diagonal(&L->el, cdiag, ctx));
    DT_TRY(smoother_setup(L, cdiag, pmg->opt.lanczos_steps, ctx));
  }
cleanup:
  dt_free(cdiag);
  return rc;
}

dt_status dt_ho_pmg_setup(const dt_ho_mesh *m, const dt_ho_elastic *el, dt_ho_apply_fn apply,
                          const void *op, const double *diag, const unsigned char *fixed,
                          const dt_ho_pmg_opts *opts, dt_ho_pmg *pmg, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double t0 = dt_seconds(), t;
  memset(pmg, 0, sizeof *pmg);
  pmg->opt = *opts;
  DT_CHECK(m->order >= 2 && m->order <= DT_HO_MESH_MAX_ORDER, ctx, DT_ERR_INPUT,
           "p-multigrid needs order 2..%d, not %d (order 1: AMG on the assembled matrix)",
           DT_HO_MESH_MAX_ORDER, m->order);
  DT_CHECK(opts->degree >= 1 && opts->degree <= 8 && opts->eig_ratio > 1.0 &&
               opts->lanczos_steps >= 2 && opts->lanczos_steps <= DT_AMG_LANCZOS_MAX,
           ctx, DT_ERR_INPUT,
           "p-multigrid: degree %d (1..8), eig_ratio %g (> 1) or lanczos_steps %d (2..%d) out of "
           "range",
           opts->degree, opts->eig_ratio, opts->lanczos_steps, DT_AMG_LANCZOS_MAX);
  pmg->n_elems = m->n_elems;
  dt_ho_pmg_level *F = &pmg->lev[0];
  F->order = m->order;
  F->n_nodes = m->n_nodes;
  F->n = 3 * m->n_nodes;
  F->elem_nodes = m->elem_nodes;
  F->apply = apply;
  F->op = op;
  DT_ALLOC(F->fixed, F->n, ctx, "p-multigrid constrained DOFs");
  if (fixed)
    for (int i = 0; i < F->n; i++) F->fixed[i] = fixed[i] != 0;
  pmg->n_levels = 1;
  DT_TRY(build_levels(pmg, m, el, ctx));
  for (int l = 0; l < pmg->n_levels; l++) DT_TRY(level_vectors(&pmg->lev[l], ctx));
  pmg->seconds_levels = dt_seconds() - t0;
  t = dt_seconds();
  DT_TRY(smoothers(pmg, diag, ctx));
  pmg->seconds_smoothers = dt_seconds() - t;
  DT_TRY(dt_ho_pmg_assemble(pmg, ctx));
  pmg->seconds_setup = dt_seconds() - t0;
cleanup:
  if (rc != DT_OK) dt_ho_pmg_free(pmg);
  return rc;
}

dt_status dt_ho_pmg_set_fine(dt_ho_pmg *pmg, dt_ho_apply_fn apply, const void *op,
                             const double *diag, dt_ctx *ctx) {
  pmg->lev[0].apply = apply;
  pmg->lev[0].op = op;
  return smoother_setup(&pmg->lev[0], diag, pmg->opt.lanczos_steps, ctx);
}

/* Chebyshev iteration for A x = b on level L from x (zero when `zero`), polynomial in D^-1 A of
 * degree `degree` damping [hi / ratio, hi] (Saad, Iterative Methods, Alg. 12.1, as PETSc's
 * KSPCHEBYSHEV). x += q(D^-1 A) D^-1 (b - A x) is symmetric in the A inner product's sense
 * (q(D^-1 A) D^-1 is symmetric), so pre- and post-smoothing by it keep M symmetric. */
static dt_status chebyshev(dt_ho_pmg_level *L, const dt_ho_pmg_opts *o, const double *b, double *x,
                           int zero, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = L->n;
  double hi = DT_AMG_CHEB_SAFETY * L->lambda_max, lo = hi / o->eig_ratio;
  double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta;
  double rho = 1.0 / sigma, *r = L->r, *d = L->d, *t = L->t;
  if (zero) {
    memcpy(r, b, sizeof(double) * n);
    memset(x, 0, sizeof(double) * n);
  } else {
    DT_TRY(L->apply(L->op, x, t, ctx));
    for (int i = 0; i < n; i++) r[i] = b[i] - t[i];
  }
  for (int i = 0; i < n; i++) d[i] = L->dinv[i] * r[i] / theta;
  for (int k = 1;; k++) {
    for (int i = 0; i < n; i++) x[i] += d[i];
    if (k == o->degree) break;
    DT_TRY(L->apply(L->op, d, t, ctx));
    double rho_new = 1.0 / (2.0 * sigma - rho);
    for (int i = 0; i < n; i++) {
      r[i] -= t[i];
      d[i] = rho_new * rho * d[i] + 2.0 * rho_new / delta * L->dinv[i] * r[i];
    }
    rho = rho_new;
  }
cleanup:
  return rc;
}

static void mask(const dt_ho_pmg_level *L, double *x) {
  for (int i = 0; i < L->n; i++)
    if (L->fixed[i]) x[i] = 0.0;
}

/* lev[l].x = V-cycle applied to lev[l].b. */
static dt_status vcycle(dt_ho_pmg *pmg, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_pmg_level *L = &pmg->lev[l];
  if (l == pmg->n_levels - 1) {
    dt_amg_apply(pmg->amg, L->b, L->x);
    mask(L, L->x);
    goto cleanup;
  }
  dt_ho_pmg_level *C = &pmg->lev[l + 1];
  DT_TRY(chebyshev(L, &pmg->opt, L->b, L->x, 1, ctx));
  /* coarse right-hand side: R (b - A x) on the coarse free DOFs */
  DT_TRY(L->apply(L->op, L->x, L->t, ctx));
  for (int i = 0; i < L->n; i++) L->r[i] = L->fixed[i] ? 0.0 : L->b[i] - L->t[i];
  dt_ho_pmg_restrict(pmg, l, L->r, C->b);
  mask(C, C->b);
  DT_TRY(vcycle(pmg, l + 1, ctx));
  dt_ho_pmg_prolong(pmg, l, C->x, L->t);
  for (int i = 0; i < L->n; i++)
    if (!L->fixed[i]) L->x[i] += L->t[i];
  DT_TRY(chebyshev(L, &pmg->opt, L->b, L->x, 0, ctx));
cleanup:
  return rc;
}

dt_status dt_ho_pmg_apply(void *pc, const double *r, double *z, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_pmg *pmg = pc;
  dt_ho_pmg_level *F = &pmg->lev[0];
  DT_CHECK(F->lambda_max > 0.0, ctx, DT_ERR_INPUT,
           "p-multigrid applied before its finest operator was set (dt_ho_pmg_set_fine)");
  for (int i = 0; i < F->n; i++) F->b[i] = F->fixed[i] ? 0.0 : r[i];
  DT_TRY(vcycle(pmg, 0, ctx));
  for (int i = 0; i < F->n; i++) z[i] = F->fixed[i] ? 0.0 : F->x[i];
  pmg->applies++;
cleanup:
  return rc;
}

void dt_ho_pmg_free(dt_ho_pmg *pmg) {
  if (!pmg) return;
  for (int l = 0; l < DT_HO_PMG_MAX_LEVELS; l++) {
    dt_ho_pmg_level *L = &pmg->lev[l];
    if (l > 0) {
      dt_ho_elastic_free(&L->el);
      dt_ho_mesh_free(&L->mesh);
    }
    double *vec[] = {L->dinv, L->interp, L->b, L->x, L->r, L->d, L->t};
    for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++) dt_free(vec[k]);
    dt_free(L->fixed);
    dt_free(L->own);
  }
  dt_amg_destroy(&pmg->amg);
  dt_free(pmg->row_ptr);
  dt_free(pmg->col);
  dt_free(pmg->val);
  dt_free(pmg->con);
  memset(pmg, 0, sizeof *pmg);
}

void dt_ho_pmg_view(const dt_ho_pmg *pmg, FILE *f) {
  fprintf(f,
          "p-multigrid: %d levels, Chebyshev degree %d on [lambda_max / %g, %g lambda_max], "
          "setup %.3f s (levels %.3f, smoothers %.3f, order-1 matrix %.3f, AMG %.3f)\n",
          pmg->n_levels, pmg->opt.degree, pmg->opt.eig_ratio, DT_AMG_CHEB_SAFETY,
          pmg->seconds_setup, pmg->seconds_levels, pmg->seconds_smoothers, pmg->seconds_matrix,
          pmg->seconds_amg);
  for (int l = 0; l < pmg->n_levels; l++) {
    const dt_ho_pmg_level *L = &pmg->lev[l];
    if (l < pmg->n_levels - 1)
      fprintf(f, "  order %d: %d DOFs, lambda_max(D^-1 A) %.4f\n", L->order, L->n, L->lambda_max);
    else
      fprintf(f, "  order %d: %d DOFs, %d nonzeros, AMG V-cycle\n", L->order, L->n,
              pmg->row_ptr ? pmg->row_ptr[L->n] : 0);
  }
}
