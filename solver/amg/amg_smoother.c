/* AMG smoothers and the spectral estimate they need.
 *
 * lambda_max(D^-1 A), D the point diagonal, comes from a few Lanczos steps on the symmetric
 * D^-1/2 A D^-1/2 (the largest Ritz value converges from below in far fewer steps than the
 * power method). It sets the prolongation smoothing weight omega = 4 / (3 lambda_max) and the
 * Chebyshev interval [hi / eig_ratio, hi], hi = DT_AMG_CHEB_SAFETY lambda_max, so that the
 * smoother damps up to the top of the spectrum even where the estimate falls a little short.
 *
 * Chebyshev (Saad, Iterative Methods, Alg. 12.1, with D^-1 as preconditioner), from x_0:
 *   r = b - A x, d = D^-1 r / theta
 *   repeat: x += d; r -= A d; rho' = 1 / (2 sigma - rho);
 *           d = rho' rho d + (2 rho' / delta) D^-1 r
 * theta, delta: the interval's centre and half width, sigma = theta / delta. x = p(D^-1 A) D^-1 b
 * from x = 0, a symmetric operator, so the same smoother before and after the coarse
 * correction keeps the V-cycle symmetric.
 * l1-Jacobi: x += D_l1^-1 (b - A x), D_l1 = diag(sum_j |a_ij|), convergent for any SPD A. */
#include <math.h>
#include <stdint.h>

#include "amg_internal.h"

dt_status dt_amg_diagonal(dt_amg_level *L, int find_positions, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_amg_csr *A = &L->A;
  int bad = -1;
  if (find_positions) {
    if (!L->diag_pos) DT_ALLOC(L->diag_pos, L->n, ctx, "AMG diagonal positions");
    for (int i = 0; i < L->n; i++) {
      L->diag_pos[i] = -1;
      for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1] && L->diag_pos[i] < 0; k++)
        if (A->col[k] == i) L->diag_pos[i] = k;
      DT_CHECK(L->diag_pos[i] >= 0, ctx, DT_ERR_INTERNAL,
               "AMG: row %d of a level's matrix has no diagonal entry", i);
    }
  }
  if (!L->dinv) DT_ALLOC(L->dinv, L->n, ctx, "AMG smoother");
#pragma omp parallel for schedule(static) if (L->n > DT_AMG_OMP_MIN)
  for (int i = 0; i < L->n; i++) {
    double a = A->val[L->diag_pos[i]];
    L->dinv[i] = a > 0.0 ? 1.0 / a : 0.0;
    if (!(a > 0.0)) {
#pragma omp critical(dt_amg_bad)
      bad = bad < 0 || i < bad ? i : bad;
    }
  }
  DT_CHECK(bad < 0, ctx, DT_ERR_NOT_CONVERGED,
           "AMG: the matrix has a non-positive diagonal entry (row %d of a level of %d rows)", bad,
           L->n);
cleanup:
  return rc;
}

/* Sturm count: eigenvalues below s of the symmetric tridiagonal (alpha, beta), k x k. */
static int below(const double *alpha, const double *beta, int k, double s) {
  int cnt = 0;
  double q = 1.0;
  for (int i = 0; i < k; i++) {
    q = alpha[i] - s - (i > 0 ? beta[i - 1] * beta[i - 1] / q : 0.0);
    if (q == 0.0) q = -1e-300;
    cnt += q < 0.0;
  }
  return cnt;
}

double dt_amg_ritz_max(const double *alpha, const double *beta, int k) {
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < k; i++) {
    double rad = (i > 0 ? fabs(beta[i - 1]) : 0.0) + (i < k - 1 ? fabs(beta[i]) : 0.0);
    lo = fmin(lo, alpha[i] - rad);
    hi = fmax(hi, alpha[i] + rad);
  }
  for (int it = 0; it < 200 && hi - lo > 1e-12 * fmax(fabs(lo), fabs(hi)); it++) {
    double mid = 0.5 * (lo + hi);
    if (below(alpha, beta, k, mid) == k)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

double dt_amg_lanczos_start(int i) {
  uint32_t h = (uint32_t)i * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (double)(h & 0xffffu) / 65536.0 - 0.5;
}

double dt_amg_lambda_max(dt_amg_level *L, int steps, double *partial) {
  int n = L->n, k = 0;
  double alpha[DT_AMG_LANCZOS_MAX], beta[DT_AMG_LANCZOS_MAX], b_prev = 0.0, nrm;
  double *v = L->r, *vp = L->d, *w = L->t, *s = L->x, *tmp;
  if (steps > DT_AMG_LANCZOS_MAX) steps = DT_AMG_LANCZOS_MAX;
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
  for (int i = 0; i < n; i++) v[i] = dt_amg_lanczos_start(i), vp[i] = 0.0;
  nrm = sqrt(dt_amg_dot(n, v, v, partial));
  for (int j = 0; j < steps; j++) {
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
    for (int i = 0; i < n; i++) {
      if (j == 0) v[i] /= nrm;
      s[i] = sqrt(L->dinv[i]) * v[i];
    }
    dt_amg_spmv(&L->A, 1.0, s, 0.0, w); /* w = D^-1/2 A D^-1/2 v */
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
    for (int i = 0; i < n; i++) w[i] *= sqrt(L->dinv[i]);
    alpha[j] = dt_amg_dot(n, w, v, partial);
    k = j + 1;
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
    for (int i = 0; i < n; i++) w[i] -= alpha[j] * v[i] + b_prev * vp[i];
    beta[j] = sqrt(dt_amg_dot(n, w, w, partial));
    if (!(beta[j] > DT_AMG_LANCZOS_BREAK * fabs(alpha[j])))
      break; /* an invariant subspace: T is exact */
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
    for (int i = 0; i < n; i++) w[i] /= beta[j];
    tmp = vp, vp = v, v = w, w = tmp;
    b_prev = beta[j];
  }
  return dt_amg_ritz_max(alpha, beta, k);
}

void dt_amg_smoother_setup(dt_amg_level *L, const dt_amg_options *o) {
  const dt_amg_csr *A = &L->A;
  if (o->smoother != DT_AMG_L1_JACOBI) return; /* Chebyshev keeps D^-1 */
#pragma omp parallel for schedule(static) if (DT_AMG_OMP_ROWS(A))
  for (int i = 0; i < L->n; i++) {
    double s = 0.0;
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) s += fabs(A->val[k]);
    L->dinv[i] = 1.0 / s;
  }
}

static void chebyshev(dt_amg_level *L, const dt_amg_options *o, const double *b, double *x,
                      int zero, int want_residual) {
  int n = L->n;
  double hi = DT_AMG_CHEB_SAFETY * L->lambda_max, lo = hi / o->eig_ratio;
  double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta, rho = 1.0 / sigma;
  double *r = L->r, *d = L->d, *t = L->t;
  const double *dinv = L->dinv;
  if (!zero) dt_amg_spmv(&L->A, -1.0, x, 0.0, r); /* r = -A x, b added below */
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
  for (int i = 0; i < n; i++) {
    r[i] = zero ? b[i] : b[i] + r[i];
    d[i] = dinv[i] * r[i] / theta;
    x[i] = zero ? d[i] : x[i] + d[i];
  }
  for (int k = 1; k < o->degree; k++) {
    double rho_new = 1.0 / (2.0 * sigma - rho), c1 = rho_new * rho, c2 = 2.0 * rho_new / delta;
    dt_amg_spmv(&L->A, 1.0, d, 0.0, t);
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
    for (int i = 0; i < n; i++) {
      r[i] -= t[i];
      d[i] = c1 * d[i] + c2 * dinv[i] * r[i];
      x[i] += d[i];
    }
    rho = rho_new;
  }
  if (!want_residual) return;
  dt_amg_spmv(&L->A, 1.0, d, 0.0, t);
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
  for (int i = 0; i < n; i++) r[i] -= t[i];
}

static void l1_jacobi(dt_amg_level *L, const dt_amg_options *o, const double *b, double *x,
                      int zero, int want_residual) {
  int n = L->n;
  double *r = L->r;
  for (int s = 0; s < o->degree; s++) {
    int first = zero && s == 0;
    if (!first) dt_amg_spmv(&L->A, -1.0, x, 0.0, r);
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
    for (int i = 0; i < n; i++)
      x[i] = first ? L->dinv[i] * b[i] : x[i] + L->dinv[i] * (b[i] + r[i]);
  }
  if (!want_residual) return;
  dt_amg_spmv(&L->A, -1.0, x, 0.0, r);
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
  for (int i = 0; i < n; i++) r[i] += b[i];
}

void dt_amg_smooth(dt_amg_level *L, const dt_amg_options *o, const double *b, double *x, int zero,
                   int want_residual) {
  if (o->smoother == DT_AMG_L1_JACOBI)
    l1_jacobi(L, o, b, x, zero, want_residual);
  else
    chebyshev(L, o, b, x, zero, want_residual);
}
