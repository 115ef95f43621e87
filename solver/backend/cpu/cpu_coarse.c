/* The coarse correction of the two-level preconditioner on the CPU backend (coarse_space.h):
 * E = Z^T K Z from the CSR tangent or the matrix-free operator's element matrices, its Cholesky factor, and z += Z E^-1 Z^T r.
 * Every sum runs in a fixed order (box by box, node by node, entry by entry), so results do
 * not depend on the thread count. */
#include <math.h>
#include <string.h>

#include "problem/coarse_space.h"
#include "element/element_matrix.h"
#include "cpu_internal.h"

/* Mode values of every node, masked by FREE: R[(a * dpn + i) * NM + m] = free(a, i) * mode m
 * at component i of node a (formed once per setup: the constrained DOFs may change per step). */
static void node_modes(const dt_cpu *c, double *R) {
  const dt_problem *pb = &c->pb;
  const double *freev = c->vec[DT_VEC_FREE];
  int NM = pb->n_modes, dpn = pb->dpn;
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int a = 0; a < pb->n_nodes; a++) {
    for (int i = 0; i < dpn; i++)
      for (int m = 0; m < NM; m++)
        R[((size_t)a * dpn + i) * NM + m] =
            freev[a * dpn + i] * dt_coarse_mode(dpn, m, pb->node_d + 3 * a, i);
  }
}

/* The rank, among the couplings of a's box, of box t (one of a's items). */
static int item_rank(const dt_problem *pb, int a, int t) {
  for (int it = pb->item_ptr[a]; it < pb->item_ptr[a + 1]; it++)
    if (pb->item_sub[it] == t) return pb->item_local[it];
  return 0; /* not reached: every neighbour's box is an item of a */
}

/* L += R_a^T K_ab R_b (NM x NM) for one block K_ab (row-major, dpn x dpn). */
static void add_coupling(int dpn, int NM, const double *Ra, const double *kab, const double *Rb,
                         double *L) {
  double T[3 * 6]; /* K_ab R_b */
  for (int i = 0; i < dpn; i++)
    for (int mp = 0; mp < NM; mp++) {
      double v = 0.0;
      for (int j = 0; j < dpn; j++) v += kab[i * dpn + j] * Rb[j * NM + mp];
      T[i * NM + mp] = v;
    }
  for (int m = 0; m < NM; m++)
    for (int mp = 0; mp < NM; mp++) {
      double v = 0.0;
      for (int i = 0; i < dpn; i++) v += Ra[i * NM + m] * T[i * NM + mp];
      L[m * NM + mp] += v;
    }
}

/* Rows of E for box s: sum over its nodes a and their blocks K_ab of R_a^T K_ab R_b, into
 * local[rank of b's box among s's couplings] (NM x NM each). Assembled tangent: the blocks of
 * a's CSR rows; matrix-free operator: each incident element's blocks (elements ascending, then
 * the element's nodes), which sum to the same K_ab. */
static void box_rows(const dt_cpu *c, int s, double *local) {
  const dt_problem *pb = &c->pb;
  const double *R = c->coarse_R;
  int NM = pb->n_modes, dpn = pb->dpn, nl = pb->sub_nbr_ptr[s + 1] - pb->sub_nbr_ptr[s];
  double kab[9];
  memset(local, 0, sizeof(double) * nl * NM * NM);
  for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++) {
    int a = pb->sub_nodes[k];
    const double *Ra = R + (size_t)a * dpn * NM;
    if (pb->matrix_free) {
      for (int ie = pb->node_elem_ptr[a]; ie < pb->node_elem_ptr[a + 1]; ie++) {
        int e = pb->node_elem[ie], npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e],
            A = pb->node_inc[ie] - pb->elem_ptr[e];
        const double *Ke = dt_cpu_mf_element_matrix(c, e);
        for (int B = 0; B < npe; B++) {
          int b = pb->conn[pb->elem_ptr[e] + B];
          dt_emat_block(npe, dpn, Ke, 1, A, B, kab);
          add_coupling(dpn, NM, Ra, kab, R + (size_t)b * dpn * NM,
                       local + (size_t)item_rank(pb, a, pb->node_sub[b]) * NM * NM);
        }
      }
      continue;
    }
    int first = pb->row_ptr[a * dpn];
    int nblk =
        (pb->row_ptr[a * dpn + 1] - first) / dpn; /* node-blocked columns, same in each row */
    for (int blk = 0; blk < nblk; blk++) {
      int b = pb->col[first + blk * dpn] / dpn;
      for (int i = 0; i < dpn; i++)
        for (int j = 0; j < dpn; j++)
          kab[i * dpn + j] = c->val[pb->row_ptr[a * dpn + i] + blk * dpn + j];
      add_coupling(dpn, NM, Ra, kab, R + (size_t)b * dpn * NM,
                   local + (size_t)item_rank(pb, a, pb->node_sub[b]) * NM * NM);
    }
  }
}

/* In-place Cholesky E = L L^T (lower triangle, row-major), then L^T copied into the upper
 * triangle so that both triangular solves of each application read rows (contiguous); returns
 * the first failing pivot's index, or -1. */
static int cholesky(double *E, int n) {
  for (int j = 0; j < n; j++) {
    double d = E[(size_t)j * n + j];
    for (int k = 0; k < j; k++) d -= E[(size_t)j * n + k] * E[(size_t)j * n + k];
    if (!(d > 0.0)) return j;
    d = sqrt(d);
    E[(size_t)j * n + j] = d;
#pragma omp parallel for schedule(static) if (n - j > 256)
    for (int i = j + 1; i < n; i++) {
      double s = E[(size_t)i * n + j];
      for (int k = 0; k < j; k++) s -= E[(size_t)i * n + k] * E[(size_t)j * n + k];
      E[(size_t)i * n + j] = s / d;
    }
  }
  for (int i = 0; i < n; i++)
    for (int k = i + 1; k < n; k++) E[(size_t)i * n + k] = E[(size_t)k * n + i];
  return -1;
}

dt_status dt_cpu_coarse_setup(dt_cpu *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_problem *pb = &c->pb;
  int NM = pb->n_modes, n = pb->n_sub * NM, bad;
  if (!c->coarse_E) {
    DT_ALLOC(c->coarse_E, (size_t)n * n, ctx, "the coarse matrix");
    DT_ALLOC(c->coarse_y, n, ctx, "coarse vector");
    DT_ALLOC(c->coarse_R, (size_t)pb->n_dofs * NM, ctx, "the coarse modes");
  }
  c->coarse_failed = 0;
  node_modes(c, c->coarse_R);
  memset(c->coarse_E, 0, sizeof(double) * (size_t)n * n);
#pragma omp parallel if (pb->n_dofs > DT_OMP_MIN_DOFS)
  {
    double *local = dt_malloc(sizeof(double) * DT_COARSE_MAX_NBR * 36);
#pragma omp for schedule(dynamic, 1)
    for (int s = 0; s < pb->n_sub; s++) {
      if (!local) continue;
      box_rows(c, s, local);
      for (int l = 0; l < pb->sub_nbr_ptr[s + 1] - pb->sub_nbr_ptr[s]; l++) {
        int t = pb->sub_nbr[pb->sub_nbr_ptr[s] + l];
        for (int m = 0; m < NM; m++)
          for (int mp = 0; mp < NM; mp++)
            c->coarse_E[(size_t)(s * NM + m) * n + t * NM + mp] =
                local[(size_t)l * NM * NM + m * NM + mp];
      }
    }
    if (!local) c->coarse_failed = 1;
    dt_free(local);
  }
  DT_CHECK(!c->coarse_failed, ctx, DT_ERR_NOMEM, "out of memory for the coarse matrix");
  for (int k = 0; k < n; k++) dt_coarse_regularize_entry(&c->coarse_E[(size_t)k * n + k]);
  bad = cholesky(c->coarse_E, n);
  DT_CHECK(bad < 0, ctx, DT_ERR_NOT_CONVERGED,
           "the coarse matrix of the two-level preconditioner is not positive definite (box %d, "
           "mode %d): "
           "the tangent lost stiffness",
           bad / NM, bad % NM);
cleanup:
  return rc;
}

dt_status dt_cpu_coarse_apply(dt_cpu *c, const double *r, double *z) {
  const dt_problem *pb = &c->pb;
  const double *L = c->coarse_E, *Rall = c->coarse_R;
  int NM = pb->n_modes, n = pb->n_sub * NM, dpn = pb->dpn;
  double *y = c->coarse_y;
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int s = 0; s < pb->n_sub; s++) { /* y = Z^T r */
    double acc[6] = {0, 0, 0, 0, 0, 0};
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++) {
      int a = pb->sub_nodes[k];
      const double *R = Rall + (size_t)a * dpn * NM;
      for (int i = 0; i < dpn; i++)
        for (int m = 0; m < NM; m++) acc[m] += R[i * NM + m] * r[a * dpn + i];
    }
    for (int m = 0; m < NM; m++) y[s * NM + m] = acc[m];
  }
  for (int i = 0; i < n; i++) { /* L L^T w = y, in place */
    double s = y[i];
    for (int k = 0; k < i; k++) s -= L[(size_t)i * n + k] * y[k];
    y[i] = s / L[(size_t)i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = y[i];
    for (int k = i + 1; k < n; k++) s -= L[(size_t)i * n + k] * y[k]; /* L^T, upper triangle */
    y[i] = s / L[(size_t)i * n + i];
  }
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int a = 0; a < pb->n_nodes; a++) { /* z += Z w */
    const double *R = Rall + (size_t)a * dpn * NM, *w = y + (size_t)pb->node_sub[a] * NM;
    for (int i = 0; i < dpn; i++) {
      double s = 0.0;
      for (int m = 0; m < NM; m++) s += R[i * NM + m] * w[m];
      z[a * dpn + i] += s;
    }
  }
  return DT_OK;
}
