/* The hierarchy across the parts at work (amg_parts.h): products with sum exchanges, dot
 * products over the owned DOFs, the lambda_max estimate, the Chebyshev smoother and the
 * V-cycle. Each step is the one-device step of amg_cycle.c and amg_smoother.c with an exchange
 * wherever a part's rows are only its share of the sum; the pointwise loops are OpenMP loops over
 * one part's entries, as there (the parts run one after another on the host). */
#include <math.h>
#include <string.h>

#include "amg_parts_internal.h"

#define SIDES(h, l) ((h)->lev[l].side)

dt_status dt_amgp_sum(dt_amg_parts *h, int l, double *const *v, dt_ctx *ctx) {
  const amgp_level *L = &h->lev[l];
  dt_part_local X[DT_AMG_PARTS_MAX];
  if (h->nparts == 1) return DT_OK;
  for (int s = 0; s < h->nparts; s++) X[s] = L->side[s].X;
  return dt_halo_exchange(X, h->nparts, v, 1, DT_HALO_SUM, dt_halo_host_ops(), L->halo, ctx);
}

dt_status dt_amgp_spmv(dt_amg_parts *h, int l, double *const *x, double *const *y, dt_ctx *ctx) {
  for (int s = 0; s < h->nparts; s++) dt_amg_spmv(&SIDES(h, l)[s].lev.A, 1.0, x[s], 0.0, y[s]);
  return dt_amgp_sum(h, l, y, ctx);
}

double dt_amgp_dot(dt_amg_parts *h, int l, double *const *x, double *const *y) {
  double sum = 0.0;
  for (int s = 0; s < h->nparts; s++)
    sum += dt_amg_dot(SIDES(h, l)[s].n_owned, x[s], y[s], h->chunks);
  return sum;
}

/* Per-part pointers to one of a level's vectors (offset of the field in dt_amg_level). */
static void vectors(dt_amg_parts *h, int l, size_t field, double **out) {
  for (int s = 0; s < h->nparts; s++) out[s] = *(double **)((char *)&SIDES(h, l)[s].lev + field);
}

#define VEC(h, l, name, out) vectors((h), (l), offsetof(dt_amg_level, name), (out))

dt_status dt_amgp_lambda_max(dt_amg_parts *h, int l, double *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int np = h->nparts, k = 0, steps = h->opt.lanczos_steps;
  double alpha[DT_AMG_LANCZOS_MAX], beta[DT_AMG_LANCZOS_MAX], b_prev = 0.0, nrm;
  double *v[DT_AMG_PARTS_MAX], *vp[DT_AMG_PARTS_MAX], *w[DT_AMG_PARTS_MAX], *sv[DT_AMG_PARTS_MAX];
  VEC(h, l, r, v);
  VEC(h, l, d, vp);
  VEC(h, l, t, w);
  VEC(h, l, x, sv);
  if (steps > DT_AMG_LANCZOS_MAX) steps = DT_AMG_LANCZOS_MAX;
  for (int s = 0; s < np; s++) { /* the start vector by global DOF: the same on every part */
    const amgp_side *S = &SIDES(h, l)[s];
#pragma omp parallel for schedule(static) if (S->lev.n > DT_AMG_OMP_MIN)
    for (int i = 0; i < S->lev.n; i++) v[s][i] = dt_amg_lanczos_start(S->gdof[i]), vp[s][i] = 0.0;
  }
  nrm = sqrt(dt_amgp_dot(h, l, v, v));
  for (int j = 0; j < steps; j++) {
    for (int s = 0; s < np; s++) {
      const amgp_side *S = &SIDES(h, l)[s];
#pragma omp parallel for schedule(static) if (S->lev.n > DT_AMG_OMP_MIN)
      for (int i = 0; i < S->lev.n; i++) {
        if (j == 0) v[s][i] /= nrm;
        sv[s][i] = sqrt(S->lev.dinv[i]) * v[s][i];
      }
    }
    DT_TRY(dt_amgp_spmv(h, l, sv, w, ctx)); /* w = D^-1/2 A D^-1/2 v */
    for (int s = 0; s < np; s++) {
      const amgp_side *S = &SIDES(h, l)[s];
#pragma omp parallel for schedule(static) if (S->lev.n > DT_AMG_OMP_MIN)
      for (int i = 0; i < S->lev.n; i++) w[s][i] *= sqrt(S->lev.dinv[i]);
    }
    alpha[j] = dt_amgp_dot(h, l, w, v);
    k = j + 1;
    for (int s = 0; s < np; s++) {
      int n = SIDES(h, l)[s].lev.n;
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
      for (int i = 0; i < n; i++) w[s][i] -= alpha[j] * v[s][i] + b_prev * vp[s][i];
    }
    beta[j] = sqrt(dt_amgp_dot(h, l, w, w));
    if (!(beta[j] > DT_AMG_LANCZOS_BREAK * fabs(alpha[j]))) break;
    for (int s = 0; s < np; s++) {
      double *tmp = vp[s];
      int n = SIDES(h, l)[s].lev.n;
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
      for (int i = 0; i < n; i++) w[s][i] /= beta[j];
      vp[s] = v[s], v[s] = w[s], w[s] = tmp;
    }
    b_prev = beta[j];
  }
  *out = dt_amg_ritz_max(alpha, beta, k);
cleanup:
  return rc;
}

/* Chebyshev smoothing of A x = b on level l (amg_smoother.c), x from zero or from its value;
 * with want_residual the level's r holds b - A x on return. */
static dt_status chebyshev(dt_amg_parts *h, int l, double *const *b, double *const *x, int zero,
                           int want_residual, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_amg_options *o = &h->opt;
  double hi = DT_AMG_CHEB_SAFETY * h->lev[l].lambda_max, lo = hi / o->eig_ratio;
  double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta, rho = 1.0 / sigma;
  double *r[DT_AMG_PARTS_MAX], *d[DT_AMG_PARTS_MAX], *t[DT_AMG_PARTS_MAX];
  VEC(h, l, r, r);
  VEC(h, l, d, d);
  VEC(h, l, t, t);
  if (!zero) DT_TRY(dt_amgp_spmv(h, l, x, r, ctx)); /* r = A x */
  for (int s = 0; s < h->nparts; s++) {
    const amgp_side *S = &SIDES(h, l)[s];
#pragma omp parallel for schedule(static) if (S->lev.n > DT_AMG_OMP_MIN)
    for (int i = 0; i < S->lev.n; i++) {
      r[s][i] = zero ? b[s][i] : b[s][i] - r[s][i];
      d[s][i] = S->lev.dinv[i] * r[s][i] / theta;
      x[s][i] = zero ? d[s][i] : x[s][i] + d[s][i];
    }
  }
  for (int k = 1; k < o->degree; k++) {
    double rho_new = 1.0 / (2.0 * sigma - rho), c1 = rho_new * rho, c2 = 2.0 * rho_new / delta;
    DT_TRY(dt_amgp_spmv(h, l, d, t, ctx));
    for (int s = 0; s < h->nparts; s++) {
      const amgp_side *S = &SIDES(h, l)[s];
#pragma omp parallel for schedule(static) if (S->lev.n > DT_AMG_OMP_MIN)
      for (int i = 0; i < S->lev.n; i++) {
        r[s][i] -= t[s][i];
        d[s][i] = c1 * d[s][i] + c2 * S->lev.dinv[i] * r[s][i];
        x[s][i] += d[s][i];
      }
    }
    rho = rho_new;
  }
  if (!want_residual) goto cleanup;
  DT_TRY(dt_amgp_spmv(h, l, d, t, ctx));
  for (int s = 0; s < h->nparts; s++) {
    int n = SIDES(h, l)[s].lev.n;
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
    for (int i = 0; i < n; i++) r[s][i] -= t[s][i];
  }
cleanup:
  return rc;
}

/* l1-Jacobi sweeps (dinv: the summed absolute row sums' inverses). */
static dt_status l1_jacobi(dt_amg_parts *h, int l, double *const *b, double *const *x, int zero,
                           int want_residual, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *r[DT_AMG_PARTS_MAX];
  VEC(h, l, r, r);
  for (int k = 0; k < h->opt.degree; k++) {
    int first = zero && k == 0;
    if (!first) DT_TRY(dt_amgp_spmv(h, l, x, r, ctx));
    for (int s = 0; s < h->nparts; s++) {
      const amgp_side *S = &SIDES(h, l)[s];
#pragma omp parallel for schedule(static) if (S->lev.n > DT_AMG_OMP_MIN)
      for (int i = 0; i < S->lev.n; i++)
        x[s][i] = first ? S->lev.dinv[i] * b[s][i] : x[s][i] + S->lev.dinv[i] * (b[s][i] - r[s][i]);
    }
  }
  if (!want_residual) goto cleanup;
  DT_TRY(dt_amgp_spmv(h, l, x, r, ctx));
  for (int s = 0; s < h->nparts; s++) {
    int n = SIDES(h, l)[s].lev.n;
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
    for (int i = 0; i < n; i++) r[s][i] = b[s][i] - r[s][i];
  }
cleanup:
  return rc;
}

static dt_status smooth(dt_amg_parts *h, int l, double *const *b, double *const *x, int zero,
                        int want_residual, dt_ctx *ctx) {
  if (h->opt.smoother == DT_AMG_L1_JACOBI) return l1_jacobi(h, l, b, x, zero, want_residual, ctx);
  return chebyshev(h, l, b, x, zero, want_residual, ctx);
}

/* The coarsest level: the owners' entries of b into the whole vector, the dense solve, and every
 * part's entries of x from the whole solution. */
static void coarsest(dt_amg_parts *h, int l, double *const *b, double *const *x) {
  for (int s = 0; s < h->nparts; s++) {
    const amgp_side *S = &SIDES(h, l)[s];
    for (int i = 0; i < S->n_owned; i++) h->cb[S->gdof[i]] = b[s][i];
  }
  dt_amg_dense_solve(h->coarse, h->cb, h->cx);
  for (int s = 0; s < h->nparts; s++) {
    const amgp_side *S = &SIDES(h, l)[s];
#pragma omp parallel for schedule(static) if (S->lev.n > DT_AMG_OMP_MIN)
    for (int i = 0; i < S->lev.n; i++) x[s][i] = h->cx[S->gdof[i]];
  }
}

static dt_status cycle(dt_amg_parts *h, int l, double *const *b, double *const *x, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *r[DT_AMG_PARTS_MAX], *bc[DT_AMG_PARTS_MAX], *xc[DT_AMG_PARTS_MAX];
  if (l == h->n_levels - 1) {
    coarsest(h, l, b, x);
    return DT_OK;
  }
  DT_TRY(smooth(h, l, b, x, 1, 1, ctx));
  VEC(h, l, r, r);
  VEC(h, l + 1, b, bc);
  VEC(h, l + 1, x, xc);
  for (int s = 0; s < h->nparts; s++) { /* P^T r: each fine DOF once, by its owner */
    amgp_side *S = &SIDES(h, l)[s];
    memcpy(S->owned_r, r[s], sizeof(double) * (size_t)S->n_owned);
    memset(S->owned_r + S->n_owned, 0, sizeof(double) * (size_t)(S->lev.n - S->n_owned));
    dt_amg_spmv(&S->lev.R, 1.0, S->owned_r, 0.0, bc[s]);
  }
  DT_TRY(dt_amgp_sum(h, l + 1, bc, ctx));
  DT_TRY(cycle(h, l + 1, bc, xc, ctx));
  for (int s = 0; s < h->nparts; s++) dt_amg_spmv(&SIDES(h, l)[s].lev.P, 1.0, xc[s], 1.0, x[s]);
  DT_TRY(smooth(h, l, b, x, 0, 0, ctx));
cleanup:
  return rc;
}

dt_status dt_amg_parts_apply(dt_amg_parts *h, const double *const *r, double *const *z,
                             dt_ctx *ctx) {
  return cycle(h, 0, (double *const *)r, z, ctx);
}
