/* The near-null space of level 0 and the tentative prolongators.
 *
 * On each aggregate g, the rows of B that belong to g's DOFs form an m x n_modes matrix B_g;
 * its thin QR, B_g = Q_g R_g, gives P_tent's block (rows: g's DOFs, columns: g's coarse DOFs)
 * = Q_g and the coarse B's rows of g = R_g, so P_tent B_c = B and P_tent^T P_tent = I. The QR
 * is modified Gram-Schmidt run twice ("twice is enough": orthogonal to working precision);
 * a column whose part orthogonal to the kept ones is below DT_AMG_QR_DROP of its norm is
 * dropped, since B_g does not span it (a one-node aggregate has no rotations, two nodes have
 * no rotation about their axis, constrained DOFs have zero rows), so coarse nodes have
 * between 1 and n_modes DOFs and every coarse matrix is nonsingular where A is. */
#include <math.h>
#include <string.h>

#include "amg_internal.h"

#define DT_AMG_QR_DROP 1e-8

void dt_amg_rigid_modes(int n_nodes, int dpn, const double *x, const double *con, double *B) {
  int nm = dpn == 3 ? 6 : 3;
  double c[3] = {0.0, 0.0, 0.0}, scale = 0.0;
  for (int a = 0; a < n_nodes; a++)
    for (int d = 0; d < 3; d++) c[d] += x[3 * a + d] / n_nodes;
  for (int a = 0; a < n_nodes; a++) /* rotations of order one: shift to the centroid, scale */
    for (int d = 0; d < 3; d++) scale = fmax(scale, fabs(x[3 * a + d] - c[d]));
  scale = scale > 0.0 ? 1.0 / scale : 1.0;
#pragma omp parallel for schedule(static) if (n_nodes * dpn > DT_AMG_OMP_MIN)
  for (int a = 0; a < n_nodes; a++) {
    double p[3], m[3][6];
    for (int d = 0; d < 3; d++) p[d] = (x[3 * a + d] - c[d]) * scale;
    memset(m, 0, sizeof m);
    for (int i = 0; i < dpn; i++) m[i][i] = 1.0;
    m[0][dpn] = -p[1], m[1][dpn] = p[0]; /* about z */
    if (dpn == 3) {
      m[1][4] = -p[2], m[2][4] = p[1]; /* about x */
      m[0][5] = p[2], m[2][5] = -p[0]; /* about y */
    }
    for (int i = 0; i < dpn; i++)
      for (int j = 0; j < nm; j++)
        B[((size_t)a * dpn + i) * nm + j] = con[a * dpn + i] != 0.0 ? 0.0 : m[i][j];
  }
}

/* Thin QR in place: M (m x nm, row-major) becomes Q in its first k columns, R (k x nm) is
 * written; returns k, the columns kept. */
static int thin_qr(int m, int nm, double *M, double *R) {
  int k = 0;
  memset(R, 0, sizeof(double) * nm * nm);
  for (int j = 0; j < nm; j++) {
    double n0 = 0.0, nv = 0.0;
    for (int r = 0; r < m; r++) n0 += M[r * nm + j] * M[r * nm + j];
    for (int pass = 0; pass < 2; pass++)
      for (int q = 0; q < k; q++) { /* v -= (q . v) q */
        double dot = 0.0;
        for (int r = 0; r < m; r++) dot += M[r * nm + q] * M[r * nm + j];
        for (int r = 0; r < m; r++) M[r * nm + j] -= dot * M[r * nm + q];
        R[q * nm + j] += dot;
      }
    for (int r = 0; r < m; r++) nv += M[r * nm + j] * M[r * nm + j];
    nv = sqrt(nv);
    if (!(n0 > 0.0 && nv > DT_AMG_QR_DROP * sqrt(n0))) continue;
    for (int r = 0; r < m; r++) M[r * nm + k] = M[r * nm + j] / nv;
    R[k * nm + j] = nv;
    k++;
  }
  return k;
}

/* Aggregate members (node order) and the rows of Q: aggregate g's rows are
 * row_ptr[g] .. row_ptr[g + 1] - 1, and DOF i's row is qrow[i]. */
static dt_status aggregate_rows(const dt_amg_level *F, int n_agg, int *mem_ptr, int *members,
                                int *row_ptr, int *qrow, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *next = NULL;
  DT_ALLOC(next, n_agg + 1, ctx, "AMG aggregate lists");
  for (int a = 0; a < F->n_nodes; a++)
    if (F->agg[a] >= 0) {
      mem_ptr[F->agg[a] + 1]++;
      row_ptr[F->agg[a] + 1] += F->node_ptr[a + 1] - F->node_ptr[a];
    }
  for (int g = 0; g < n_agg; g++) mem_ptr[g + 1] += mem_ptr[g], row_ptr[g + 1] += row_ptr[g];
  memcpy(next, mem_ptr, sizeof(int) * (size_t)n_agg);
  for (int a = 0; a < F->n_nodes; a++)
    if (F->agg[a] >= 0) members[next[F->agg[a]]++] = a;
  for (int g = 0; g < n_agg; g++) {
    int r = row_ptr[g];
    for (int m = mem_ptr[g]; m < mem_ptr[g + 1]; m++)
      for (int i = F->node_ptr[members[m]]; i < F->node_ptr[members[m] + 1]; i++) qrow[i] = r++;
  }
cleanup:
  dt_free(next);
  return rc;
}

/* The coarse nodes: aggregates that kept columns, renumbered in order; F->agg follows. */
static dt_status coarse_nodes(dt_amg_level *F, int n_agg, const int *kept, int nm, const double *Rg,
                              dt_amg_level *C, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *renum = NULL, nc = 0;
  DT_ALLOC(renum, n_agg, ctx, "AMG coarse numbering");
  for (int g = 0; g < n_agg; g++) renum[g] = kept[g] > 0 ? nc++ : -1;
  C->n_nodes = nc;
  DT_ALLOC(C->node_ptr, nc + 1, ctx, "AMG coarse nodes");
  for (int g = 0; g < n_agg; g++)
    if (renum[g] >= 0) C->node_ptr[renum[g] + 1] = C->node_ptr[renum[g]] + kept[g];
  C->n = C->node_ptr[nc];
  DT_ALLOC(C->B, (size_t)C->n * nm, ctx, "AMG coarse near-null space");
  for (int g = 0; g < n_agg; g++) /* B_c's rows of g: R_g */
    if (renum[g] >= 0)
      memcpy(C->B + (size_t)C->node_ptr[renum[g]] * nm, Rg + (size_t)g * nm * nm,
             sizeof(double) * kept[g] * nm);
  for (int a = 0; a < F->n_nodes; a++)
    if (F->agg[a] >= 0) F->agg[a] = renum[F->agg[a]];
cleanup:
  dt_free(renum);
  return rc;
}

/* The entries of P_tent's row i (a DOF of node a): the coarse DOFs of a's aggregate, none for
 * a node outside the aggregates or a zero row of B (a constrained DOF). */
static int tentative_width(const dt_amg_level *F, const dt_amg_level *C, int nm, int a, int i) {
  int g = F->agg[a];
  if (g < 0) return 0;
  for (int j = 0; j < nm; j++)
    if (F->B[(size_t)i * nm + j] != 0.0) return C->node_ptr[g + 1] - C->node_ptr[g];
  return 0;
}

/* P_tent: row i of a DOF in aggregate g holds Q_g's row for i, in the coarse DOFs of g. */
static dt_status fill_tentative(const dt_amg_level *F, int nm, const int *qrow, const double *Q,
                                const dt_amg_level *C, dt_amg_csr *Pt, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  Pt->n_rows = F->n;
  Pt->n_cols = C->n;
  DT_ALLOC(Pt->row_ptr, F->n + 1, ctx, "AMG tentative prolongator");
  for (int a = 0; a < F->n_nodes; a++)
    for (int i = F->node_ptr[a]; i < F->node_ptr[a + 1]; i++)
      Pt->row_ptr[i + 1] = Pt->row_ptr[i] + tentative_width(F, C, nm, a, i);
  DT_ALLOC(Pt->col, Pt->row_ptr[F->n], ctx, "AMG tentative prolongator");
  DT_ALLOC(Pt->val, Pt->row_ptr[F->n], ctx, "AMG tentative prolongator");
  for (int a = 0; a < F->n_nodes; a++)
    for (int i = F->node_ptr[a]; i < F->node_ptr[a + 1]; i++)
      for (int j = 0; j < Pt->row_ptr[i + 1] - Pt->row_ptr[i]; j++) {
        Pt->col[Pt->row_ptr[i] + j] = C->node_ptr[F->agg[a]] + j;
        Pt->val[Pt->row_ptr[i] + j] = Q[(size_t)qrow[i] * nm + j];
      }
cleanup:
  return rc;
}

dt_status dt_amg_tentative(dt_amg_level *F, int nm, int n_agg, dt_amg_level *C, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *mem_ptr = NULL, *members = NULL, *row_ptr = NULL, *qrow = NULL, *kept = NULL;
  double *Q = NULL, *Rg = NULL;
  DT_ALLOC(mem_ptr, n_agg + 1, ctx, "AMG aggregate lists");
  DT_ALLOC(members, F->n_nodes, ctx, "AMG aggregate lists");
  DT_ALLOC(row_ptr, n_agg + 1, ctx, "AMG aggregate rows");
  DT_ALLOC(qrow, F->n, ctx, "AMG aggregate rows");
  DT_ALLOC(kept, n_agg, ctx, "AMG aggregate ranks");
  DT_ALLOC(Q, (size_t)F->n * nm, ctx, "AMG local bases");
  DT_ALLOC(Rg, (size_t)n_agg * nm * nm, ctx, "AMG local factors");
  DT_TRY(aggregate_rows(F, n_agg, mem_ptr, members, row_ptr, qrow, ctx));
#pragma omp parallel for schedule(dynamic, 16) if (F->n > DT_AMG_OMP_MIN)
  for (int g = 0; g < n_agg; g++) {
    double *Mg = Q + (size_t)row_ptr[g] * nm;
    for (int m = mem_ptr[g]; m < mem_ptr[g + 1]; m++) /* gather B_g */
      for (int i = F->node_ptr[members[m]]; i < F->node_ptr[members[m] + 1]; i++)
        memcpy(Q + (size_t)qrow[i] * nm, F->B + (size_t)i * nm, sizeof(double) * nm);
    kept[g] = thin_qr(row_ptr[g + 1] - row_ptr[g], nm, Mg, Rg + (size_t)g * nm * nm);
  }
  DT_TRY(coarse_nodes(F, n_agg, kept, nm, Rg, C, ctx));
  DT_TRY(fill_tentative(F, nm, qrow, Q, C, &F->P_tent, ctx));
cleanup:
  dt_free(mem_ptr);
  dt_free(members);
  dt_free(row_ptr);
  dt_free(qrow);
  dt_free(kept);
  dt_free(Q);
  dt_free(Rg);
  return rc;
}
