/* The transfers of the p-multigrid (ho_pmg.h) as explicit sparse matrices over nodes, for a
 * device V-cycle that gathers instead of contracting per element (cuda/cuda_ho_pmg.h).
 *
 * Entry (g, B) of P is the weight with which coarse node B's value reaches fine node g:
 *   w = I[ax][bx] I[ay][by] I[az][bz],  (ax, ay, az) and (bx, by, bz) the lexicographic indices
 * of g and B in g's owner element (the lowest element that lists g, ho_pmg_transfer.c), I that
 * level's interpolation table. Each fine node is evaluated in one element only, so P has no
 * sums over elements and R = P^T is its exact transpose: the same entries, rows per coarse
 * node. Exact zeros (a fine node that coincides with a coarse one, or lies on a face where
 * a coarse node's polynomial vanishes) are dropped: they add nothing to a sum. Rows of R list
 * their fine nodes ascending, so a gather sums in a fixed order. */
#include <string.h>

#include "highorder/ho_pmg_internal.h"

/* Fewer fine nodes than this build P on one thread: the fork would cost more. */
#define PARALLEL_ROWS 4096

void dt_ho_pmg_node_csr_free(dt_ho_pmg_node_csr *A) {
  if (!A) return;
  dt_free(A->ptr);
  dt_free(A->col);
  dt_free(A->w);
  memset(A, 0, sizeof *A);
}

/* The owner element and local index of every fine node of level l. */
static void owners(const dt_ho_pmg *pmg, int l, int *oe, int *oa) {
  const dt_ho_pmg_level *F = &pmg->lev[l];
  int nf = F->order + 1, nf3 = nf * nf * nf;
  for (int e = 0; e < pmg->n_elems; e++)
    for (int a = 0; a < nf3; a++)
      if (F->own[(size_t)e * nf3 + a]) {
        int g = F->elem_nodes[(size_t)e * nf3 + a];
        oe[g] = e, oa[g] = a;
      }
}

/* Fills row g of P (count only when col is NULL): its nonzero entries in coarse-local order. */
static int p_row(const dt_ho_pmg *pmg, int l, int e, int a, int *col, double *w) {
  const dt_ho_pmg_level *F = &pmg->lev[l], *C = &pmg->lev[l + 1];
  int nf = F->order + 1, nc = C->order + 1, nc3 = nc * nc * nc, k = 0;
  int ax = a % nf, ay = (a / nf) % nf, az = a / (nf * nf);
  const int *rc = C->elem_nodes + (size_t)e * nc3;
  const double *I = F->interp;
  for (int b = 0; b < nc3; b++) {
    int bx = b % nc, by = (b / nc) % nc, bz = b / (nc * nc);
    double v = I[ax * nc + bx] * I[ay * nc + by] * I[az * nc + bz];
    if (v == 0.0) continue;
    if (col) col[k] = rc[b], w[k] = v;
    k++;
  }
  return k;
}

dt_status dt_ho_pmg_transfer_matrices(const dt_ho_pmg *pmg, int l, dt_ho_pmg_node_csr *P,
                                      dt_ho_pmg_node_csr *R, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *oe = NULL, *oa = NULL, *fill = NULL;
  memset(P, 0, sizeof *P);
  memset(R, 0, sizeof *R);
  DT_CHECK(l >= 0 && l + 1 < pmg->n_levels, ctx, DT_ERR_INPUT,
           "p-multigrid: no transfer below level %d of %d", l, pmg->n_levels);
  const dt_ho_pmg_level *F = &pmg->lev[l], *C = &pmg->lev[l + 1];
  P->n_rows = F->n_nodes;
  R->n_rows = C->n_nodes;
  DT_ALLOC(oe, F->n_nodes, ctx, "p-multigrid node owners");
  DT_ALLOC(oa, F->n_nodes, ctx, "p-multigrid node owners");
  owners(pmg, l, oe, oa);
  /* the rows are independent: counted and filled in parallel, the offsets summed in order */
  DT_ALLOC(P->ptr, F->n_nodes + 1, ctx, "p-multigrid prolongation");
#pragma omp parallel for schedule(static) if (F->n_nodes >= PARALLEL_ROWS)
  for (int g = 0; g < F->n_nodes; g++) P->ptr[g + 1] = p_row(pmg, l, oe[g], oa[g], NULL, NULL);
  for (int g = 0; g < F->n_nodes; g++) P->ptr[g + 1] += P->ptr[g];
  DT_ALLOC(P->col, P->ptr[F->n_nodes], ctx, "p-multigrid prolongation");
  DT_ALLOC(P->w, P->ptr[F->n_nodes], ctx, "p-multigrid prolongation");
#pragma omp parallel for schedule(static) if (F->n_nodes >= PARALLEL_ROWS)
  for (int g = 0; g < F->n_nodes; g++)
    p_row(pmg, l, oe[g], oa[g], P->col + P->ptr[g], P->w + P->ptr[g]);
  /* R = P^T by a counting sort over P's rows in order: each row of R ascending in g */
  DT_ALLOC(R->ptr, C->n_nodes + 1, ctx, "p-multigrid restriction");
  DT_ALLOC(R->col, P->ptr[F->n_nodes], ctx, "p-multigrid restriction");
  DT_ALLOC(R->w, P->ptr[F->n_nodes], ctx, "p-multigrid restriction");
  DT_ALLOC(fill, C->n_nodes, ctx, "p-multigrid restriction");
  for (int k = 0; k < P->ptr[F->n_nodes]; k++) R->ptr[P->col[k] + 1]++;
  for (int b = 0; b < C->n_nodes; b++) R->ptr[b + 1] += R->ptr[b];
  for (int g = 0; g < F->n_nodes; g++)
    for (int k = P->ptr[g]; k < P->ptr[g + 1]; k++) {
      int b = P->col[k], at = R->ptr[b] + fill[b]++;
      R->col[at] = g, R->w[at] = P->w[k];
    }
cleanup:
  dt_free(oe);
  dt_free(oa);
  dt_free(fill);
  if (rc != DT_OK) dt_ho_pmg_node_csr_free(P), dt_ho_pmg_node_csr_free(R);
  return rc;
}
