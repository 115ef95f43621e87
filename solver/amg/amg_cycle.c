/* The AMG V-cycle: z = M^-1 r with one pre- and one post-smoothing of the same symmetric
 * smoother on each level, R = P^T and an exact coarsest solve, so M is symmetric positive
 * definite (amg.h). Level l solves A_l x = b from x = 0:
 *   x = S b, r = b - A x             (pre-smoothing, its residual)
 *   b_{l+1} = R r, x_{l+1} = cycle    (coarse correction)
 *   x += P x_{l+1}
 *   x += S (b - A x)                  (post-smoothing) */
#include "amg_internal.h"

static void cycle(dt_amg *h, int l, const double *b, double *x) {
  dt_amg_level *L = &h->lev[l], *C = &h->lev[l + 1];
  if (l == h->n_levels - 1) {
    dt_amg_dense_solve(h, b, x);
    return;
  }
  dt_amg_smooth(L, &h->opt, b, x, 1, 1);
  dt_amg_spmv(&L->R, 1.0, L->r, 0.0, C->b);
  cycle(h, l + 1, C->b, C->x);
  dt_amg_spmv(&L->P, 1.0, C->x, 1.0, x);
  dt_amg_smooth(L, &h->opt, b, x, 0, 0);
}

void dt_amg_apply(dt_amg *h, const double *r, double *z) { cycle(h, 0, r, z); }
