/* The order-1 level of the p-multigrid (ho_pmg.h): the trilinear elastic operator assembled as
 * CSR and handed to the smoothed-aggregation AMG.
 *
 * Element matrices come from the matrix-free operator itself, applied to the 24 unit vectors
 * of one element (a one-element view of the level's dt_ho_elastic): the assembled matrix is
 * the same quadrature-based operator as the matrix-free one, to rounding, with nothing to keep
 * in step with solver/element. */
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_pmg_internal.h"

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Node graph of the order-1 mesh: nbr_ptr/nbr list each node's neighbours (itself included),
 * ascending. */
static dt_status node_graph(const dt_ho_mesh *m, int **nbr_ptr, int **nbr, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nn = m->n_nodes, ne = m->n_elems, *ep = NULL, *el = NULL, *mark = NULL, *cnt = NULL;
  DT_ALLOC(ep, nn + 1, ctx, "p-multigrid node elements");
  DT_ALLOC(cnt, nn, ctx, "p-multigrid node elements");
  DT_ALLOC(el, 8 * (size_t)ne, ctx, "p-multigrid node elements");
  DT_ALLOC(mark, nn, ctx, "p-multigrid node marks");
  for (int i = 0; i < 8 * ne; i++) ep[m->elem_nodes[i] + 1]++;
  for (int a = 0; a < nn; a++) ep[a + 1] += ep[a];
  for (int e = 0; e < ne; e++)
    for (int k = 0; k < 8; k++) {
      int a = m->elem_nodes[8 * e + k];
      el[ep[a] + cnt[a]++] = e;
    }
  DT_ALLOC(*nbr_ptr, nn + 1, ctx, "p-multigrid node graph");
  for (int a = 0; a < nn; a++) mark[a] = -1;
  for (int pass = 0; pass < 2; pass++) {
    for (int a = 0; a < nn; a++) {
      int k = 0;
      for (int j = ep[a]; j < ep[a + 1]; j++)
        for (int i = 0; i < 8; i++) {
          int b = m->elem_nodes[8 * el[j] + i];
          if (mark[b] == a + pass * nn) continue;
          mark[b] = a + pass * nn;
          if (pass) (*nbr)[(*nbr_ptr)[a] + k] = b;
          k++;
        }
      if (!pass)
        (*nbr_ptr)[a + 1] = k;
      else
        qsort(*nbr + (*nbr_ptr)[a], k, sizeof(int), cmp_int);
    }
    if (!pass) {
      for (int a = 0; a < nn; a++) (*nbr_ptr)[a + 1] += (*nbr_ptr)[a];
      DT_ALLOC(*nbr, (*nbr_ptr)[nn], ctx, "p-multigrid node graph");
    }
  }
cleanup:
  dt_free(ep);
  dt_free(cnt);
  dt_free(el);
  dt_free(mark);
  return rc;
}

/* Position of column c in CSR row r (present by construction). */
static int find(const int *row_ptr, const int *col, int r, int c) {
  int lo = row_ptr[r], hi = row_ptr[r + 1] - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (col[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

dt_status dt_ho_pmg_assemble(dt_ho_pmg *pmg, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_pmg_level *C = &pmg->lev[pmg->n_levels - 1];
  const dt_ho_elastic *el = &C->el;
  const dt_ho_mesh *m = &C->mesh;
  int nn = m->n_nodes, n = 3 * nn, *nbr_ptr = NULL, *nbr = NULL, nq3 = el->nq * el->nq * el->nq;
  int local[8] = {0, 1, 2, 3, 4, 5, 6, 7}, cptr[2] = {0, 1}, celem[1] = {0};
  double unit[24], col[24];
  dt_amg_options ao;
  DT_TRY(node_graph(m, &nbr_ptr, &nbr, ctx));
  DT_ALLOC(pmg->row_ptr, n + 1, ctx, "p-multigrid coarse matrix");
  for (int a = 0; a < nn; a++)
    for (int c = 0; c < 3; c++)
      pmg->row_ptr[3 * a + c + 1] = pmg->row_ptr[3 * a + c] + 3 * (nbr_ptr[a + 1] - nbr_ptr[a]);
  DT_ALLOC(pmg->col, pmg->row_ptr[n], ctx, "p-multigrid coarse matrix");
  DT_ALLOC(pmg->val, pmg->row_ptr[n], ctx, "p-multigrid coarse matrix");
  for (int a = 0; a < nn; a++)
    for (int c = 0; c < 3; c++) {
      int k = pmg->row_ptr[3 * a + c];
      for (int j = nbr_ptr[a]; j < nbr_ptr[a + 1]; j++)
        for (int d = 0; d < 3; d++) pmg->col[k++] = 3 * nbr[j] + d;
    }
  /* element matrices: column (3 i + d) of K_e is K_e applied to that unit vector */
  for (int e = 0; e < m->n_elems; e++) {
    dt_ho_elastic view = *el;
    view.n_elems = 1;
    view.n_nodes = 8;
    view.elem_nodes = local;
    view.qdata = el->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
    view.lambda = el->lambda + e;
    view.mu = el->mu + e;
    view.n_colors = 1;
    view.color_ptr = cptr;
    view.color_elems = celem;
    const int *row = m->elem_nodes + 8 * (size_t)e;
    for (int j = 0; j < 24; j++) {
      memset(unit, 0, sizeof unit);
      unit[j] = 1.0;
      DT_TRY(dt_ho_elastic_apply(&view, unit, col, ctx));
      int cj = 3 * row[j / 3] + j % 3;
      for (int i = 0; i < 24; i++) {
        int ri = 3 * row[i / 3] + i % 3;
        pmg->val[find(pmg->row_ptr, pmg->col, ri, cj)] += col[i];
      }
    }
  }
  /* constrained rows and columns: identity */
  DT_ALLOC(pmg->con, n, ctx, "p-multigrid coarse constraints");
  for (int i = 0; i < n; i++) pmg->con[i] = C->fixed[i];
  for (int i = 0; i < n; i++)
    for (int k = pmg->row_ptr[i]; k < pmg->row_ptr[i + 1]; k++) {
      int j = pmg->col[k];
      if (C->fixed[i] || C->fixed[j]) pmg->val[k] = i == j ? 1.0 : 0.0;
    }
  dt_amg_input in = {nn, 3, m->coords, pmg->con, pmg->row_ptr, pmg->col, pmg->val};
  dt_amg_options_default(&ao);
  DT_TRY(dt_amg_create(&in, &ao, &pmg->amg, ctx));
cleanup:
  dt_free(nbr_ptr);
  dt_free(nbr);
  return rc;
}
