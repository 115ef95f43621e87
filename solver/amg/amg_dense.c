/* The coarsest AMG level: its matrix as a dense n x n array, factored in place by Cholesky,
 * A = L L^T (L below the diagonal; L^T copied above it so that both triangular solves read
 * rows), and the two triangular solves per V-cycle.
 *
 * The factorization is right-looking and blocked: per block of DT_AMG_CHOL_BLOCK columns,
 * the diagonal block (one thread), the panel below it and the update of the trailing matrix
 * (all threads), inside one parallel region: a few barriers per block instead of a fork per
 * column, which matters when the cores are shared.
 *
 * Pivots are judged against a scale that does not cancel: ref_j = sum_i P_ij^2 a_ii over the
 * level above (the coarse DOF's energy without its couplings; a_jj itself on a one-level
 * hierarchy). A pivot below DT_AMG_PIVOT_REL ref_j is a direction in A's null space (a model
 * without enough supports: the rigid-body modes are exactly what the coarse level holds, and
 * there a_jj is rounding noise too); the factor keeps that direction apart with pivot ref_j, so
 * M stays positive definite and PCG sees the singularity itself. A pivot below
 * -DT_AMG_PIVOT_NEG ref_j means the tangent is not positive definite: DT_ERR_NOT_CONVERGED,
 * the caller's cue to cut back. */
#include <math.h>
#include <string.h>

#include "amg_internal.h"

#define DT_AMG_PIVOT_REL 1e-10
#define DT_AMG_PIVOT_NEG 1e-6
#define DT_AMG_CHOL_BLOCK 64

/* The diagonal block's columns kb .. ke - 1, unblocked; null[j] marks a null direction. Returns
 * the first column with a negative pivot, or -1. */
static int factor_block(double *E, const double *ref, unsigned char *null, int n, int kb, int ke) {
  for (int j = kb; j < ke; j++) {
    double *Ej = E + (size_t)j * n, d = Ej[j];
    for (int k = kb; k < j; k++) d -= Ej[k] * Ej[k];
    if (d < -DT_AMG_PIVOT_NEG * ref[j]) return j;
    null[j] = d <= DT_AMG_PIVOT_REL * ref[j];
    Ej[j] = null[j] ? sqrt(ref[j]) : sqrt(d);
    for (int i = j + 1; i < ke; i++) {
      double *Ei = E + (size_t)i * n, s = Ei[j];
      for (int k = kb; k < j; k++) s -= Ei[k] * Ej[k];
      Ei[j] = null[j] ? 0.0 : s / Ej[j];
    }
  }
  return -1;
}

/* Row i of the panel below the diagonal block: L_ij for kb <= j < ke. */
static void panel_row(double *E, const unsigned char *null, int n, int kb, int ke, int i) {
  double *Ei = E + (size_t)i * n;
  for (int j = kb; j < ke; j++) {
    const double *Ej = E + (size_t)j * n;
    double s = Ei[j];
    for (int k = kb; k < j; k++) s -= Ei[k] * Ej[k];
    Ei[j] = null[j] ? 0.0 : s / Ej[j];
  }
}

/* Row i of the trailing matrix: a_ij -= L_i,kb:ke . L_j,kb:ke for ke <= j <= i. Four partial
 * sums (a fixed order) let the compiler vectorize the dot product. */
static void trailing_row(double *E, int n, int kb, int ke, int i) {
  double *Ei = E + (size_t)i * n;
  for (int j = ke; j <= i; j++) {
    const double *Ej = E + (size_t)j * n;
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    int k = kb;
    for (; k + 4 <= ke; k += 4)
      for (int u = 0; u < 4; u++) s[u] += Ei[k + u] * Ej[k + u];
    for (; k < ke; k++) s[0] += Ei[k] * Ej[k];
    Ei[j] -= (s[0] + s[1]) + (s[2] + s[3]);
  }
}

/* Returns the column of a negative pivot, or -1. */
static int cholesky(double *E, const double *ref, unsigned char *null, int n) {
  int bad = -1;
#pragma omp parallel if (n > 256)
  for (int kb = 0; kb < n; kb += DT_AMG_CHOL_BLOCK) {
    int ke = kb + DT_AMG_CHOL_BLOCK < n ? kb + DT_AMG_CHOL_BLOCK : n;
#pragma omp single
    bad = factor_block(E, ref, null, n, kb, ke);
    if (bad >= 0) break; /* every thread reads it after the single's barrier */
#pragma omp for schedule(static)
    for (int i = ke; i < n; i++) panel_row(E, null, n, kb, ke, i);
#pragma omp for schedule(dynamic, 8)
    for (int i = ke; i < n; i++) trailing_row(E, n, kb, ke, i);
  }
  return bad;
}

/* ref_j = sum_i P_ij^2 a_ii over the level above, or the coarsest A's own diagonal. */
static void pivot_scale(const dt_amg *h, double *ref) {
  const dt_amg_level *C = &h->lev[h->n_levels - 1],
                     *F = h->n_levels > 1 ? &h->lev[h->n_levels - 2] : NULL;
  if (!F) {
    for (int j = 0; j < C->n; j++)
      for (int k = C->A.row_ptr[j]; k < C->A.row_ptr[j + 1]; k++)
        if (C->A.col[k] == j) ref[j] = C->A.val[k];
    return;
  }
  memset(ref, 0, sizeof(double) * (size_t)C->n);
  for (int i = 0; i < F->n; i++)
    for (int k = F->P.row_ptr[i]; k < F->P.row_ptr[i + 1]; k++)
      ref[F->P.col[k]] += F->P.val[k] * F->P.val[k] * F->A.val[F->diag_pos[i]];
}

dt_status dt_amg_coarse_factor(dt_amg *h, const double *ref, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_amg_level *L = &h->lev[h->n_levels - 1];
  const dt_amg_csr *A = &L->A;
  int n = L->n, bad = -1;
  double *E;
  unsigned char *null = NULL;
  DT_ALLOC(null, n, ctx, "AMG coarse pivots");
  if (!h->coarse_L) {
    DT_ALLOC(h->coarse_L, (size_t)n * n, ctx, "the AMG coarse matrix");
    DT_ALLOC(h->coarse_ref, n, ctx, "the AMG coarse pivot scales");
  }
  E = h->coarse_L;
  memset(E, 0, sizeof(double) * (size_t)n * n);
  for (int i = 0; i < n; i++)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      E[(size_t)i * n + A->col[k]] = A->val[k];
  if (ref)
    memcpy(h->coarse_ref, ref, sizeof(double) * (size_t)n);
  else
    pivot_scale(h, h->coarse_ref);
  bad = cholesky(E, h->coarse_ref, null, n);
  DT_CHECK(bad < 0, ctx, DT_ERR_NOT_CONVERGED,
           "AMG: the coarsest matrix (%d DOFs) is not positive definite at DOF %d: the tangent "
           "lost stiffness",
           n, bad);
  for (int i = 0; i < n; i++)
    for (int k = i + 1; k < n; k++) E[(size_t)i * n + k] = E[(size_t)k * n + i];
cleanup:
  dt_free(null);
  return rc;
}

/* x = A^-1 b: L y = b, then L^T x = y. */
void dt_amg_dense_solve(const dt_amg *h, const double *b, double *x) {
  const double *L = h->coarse_L;
  int n = h->lev[h->n_levels - 1].n;
  for (int i = 0; i < n; i++) {
    double s = b[i];
    for (int k = 0; k < i; k++) s -= L[(size_t)i * n + k] * x[k];
    x[i] = s / L[(size_t)i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = x[i];
    for (int k = i + 1; k < n; k++) s -= L[(size_t)i * n + k] * x[k];
    x[i] = s / L[(size_t)i * n + i];
  }
}
