/* The order-1 level of the p-multigrid (ho_pmg.h): the trilinear elastic operator assembled as
 * CSR and handed to the smoothed-aggregation AMG.
 *
 * Element matrices come from the matrix-free element steps themselves (ho_element.h), applied
 * to the 24 unit vectors of one element: the assembled matrix is the same quadrature-based
 * operator as the matrix-free one, to rounding, with nothing to keep in step with
 * solver/element.
 *
 * The element matrices of a block of elements are formed in parallel (each element alone), then
 * added into the CSR in parallel by rows: a node's rows take the contributions of its elements
 * in ascending element order, so every entry is summed in one fixed order whatever the thread
 * count. */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/omp_threads.h"
#include "highorder/ho_element.h"
#include "highorder/ho_pmg_internal.h"

/* Elements whose matrices are held at once: 2048 x 576 doubles, 9.4 MB. */
#define BLOCK 2048
#define KE (24 * 24)
/* Fewer elements (nodes) than this form (add) their matrices on one thread: the fork would
 * cost more than the work. */
#define PARALLEL_ELEMS 64
#define PARALLEL_NODES 1024

/* The elements of every node, ascending: elem[ptr[a] .. ptr[a + 1]) with the node's corner
 * index in each (slot). */
typedef struct incidence {
  int *ptr, *elem, *slot;
} incidence;

static void incidence_free(incidence *I) {
  dt_free(I->ptr);
  dt_free(I->elem);
  dt_free(I->slot);
}

static dt_status incidence_build(const dt_ho_mesh *m, incidence *I, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nn = m->n_nodes, ne = m->n_elems, *fill = NULL;
  DT_ALLOC(I->ptr, nn + 1, ctx, "p-multigrid node elements");
  DT_ALLOC(I->elem, 8 * (size_t)ne, ctx, "p-multigrid node elements");
  DT_ALLOC(I->slot, 8 * (size_t)ne, ctx, "p-multigrid node elements");
  DT_ALLOC(fill, nn, ctx, "p-multigrid node elements");
  for (size_t i = 0; i < 8 * (size_t)ne; i++) I->ptr[m->elem_nodes[i] + 1]++;
  for (int a = 0; a < nn; a++) I->ptr[a + 1] += I->ptr[a];
  for (int e = 0; e < ne; e++)
    for (int k = 0; k < 8; k++) {
      int a = m->elem_nodes[8 * (size_t)e + k], at = I->ptr[a] + fill[a]++;
      I->elem[at] = e, I->slot[at] = k;
    }
cleanup:
  dt_free(fill);
  return rc;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Node graph of the order-1 mesh: nbr_ptr/nbr list each node's neighbours (itself included),
 * ascending. */
static dt_status node_graph(const dt_ho_mesh *m, const incidence *I, int **nbr_ptr, int **nbr,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nn = m->n_nodes, *mark = NULL;
  DT_ALLOC(mark, nn, ctx, "p-multigrid node marks");
  DT_ALLOC(*nbr_ptr, nn + 1, ctx, "p-multigrid node graph");
  for (int a = 0; a < nn; a++) mark[a] = -1;
  for (int pass = 0; pass < 2; pass++) {
    for (int a = 0; a < nn; a++) {
      int k = 0;
      for (int j = I->ptr[a]; j < I->ptr[a + 1]; j++)
        for (int i = 0; i < 8; i++) {
          int b = m->elem_nodes[8 * (size_t)I->elem[j] + i];
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
  dt_free(mark);
  return rc;
}

/* Position of node b in the ascending list nbr[lo .. hi) (present by construction). */
static int find(const int *nbr, int lo, int hi, int b) {
  hi--;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (nbr[mid] < b)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* K_e of element e, column j at Ke[24 j .. 24 j + 24): the elastic apply of a one-element view
 * of the level (its own qdata and Lame parameters, nodes 0..7) to unit vector j, step for step
 * as dt_ho_elastic_apply runs it, scatter-add into zeros included. work: the element scratch. */
static void element_matrix(const dt_ho_elastic *el, int e, double *work, double *Ke) {
  static const int local[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int nq3 = el->nq * el->nq * el->nq;
  double unit[24];
  dt_ho_elastic view = *el;
  view.n_elems = 1;
  view.n_nodes = 8;
  view.elem_nodes = local;
  view.qdata = el->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
  view.lambda = el->lambda + e;
  view.mu = el->mu + e;
  for (int j = 0; j < 24; j++) {
    memset(unit, 0, sizeof unit);
    unit[j] = 1.0;
    double *g = dt_ho_element_gradients(&view, 0, unit, work);
    dt_ho_elastic_qfunc(&view, 0, view.qdata, nq3, g);
    memset(Ke + 24 * j, 0, 24 * sizeof(double));
    dt_ho_element_scatter(&view, 0, work, Ke + 24 * j);
  }
}

/* Adds the matrices ke of elements [e0, e1) into the rows of node a: entry (3 a + c, 3 b + d)
 * takes K_e[3 ia + c][3 ib + d], ia and ib the corners of a and b in e. cur[a] walks a's
 * elements across the blocks. */
static void add_node_rows(dt_ho_pmg *pmg, const dt_ho_mesh *m, const incidence *I,
                          const int *nbr_ptr, const int *nbr, int a, int e0, int e1,
                          const double *ke, int *cur) {
  int j = cur[a];
  for (; j < I->ptr[a + 1] && I->elem[j] < e1; j++) {
    int e = I->elem[j], ia = I->slot[j];
    const int *row = m->elem_nodes + 8 * (size_t)e;
    const double *Ke = ke + (size_t)(e - e0) * KE;
    for (int ib = 0; ib < 8; ib++) {
      int off = 3 * (find(nbr, nbr_ptr[a], nbr_ptr[a + 1], row[ib]) - nbr_ptr[a]);
      for (int c = 0; c < 3; c++) {
        double *v = pmg->val + pmg->row_ptr[3 * a + c] + off;
        for (int d = 0; d < 3; d++) v[d] += Ke[24 * (3 * ib + d) + 3 * ia + c];
      }
    }
  }
  cur[a] = j;
}

/* The CSR's values: the element matrices block by block, each block formed and then added. */
static dt_status assemble_values(dt_ho_pmg *pmg, const incidence *I, const int *nbr_ptr,
                                 const int *nbr, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_ho_pmg_level *C = &pmg->lev[pmg->n_levels - 1];
  const dt_ho_elastic *el = &C->el;
  const dt_ho_mesh *m = &C->mesh;
  int nn = m->n_nodes, ne = m->n_elems, nb = ne < BLOCK ? ne : BLOCK, *cur = NULL;
  size_t ws = dt_ho_element_scratch(el->order + 1, el->nq);
  double *ke = NULL, *work = NULL;
  DT_ALLOC(ke, (size_t)nb * KE, ctx, "p-multigrid element matrices");
  DT_ALLOC(work, ws * dt_omp_max_threads(), ctx, "p-multigrid element scratch");
  DT_ALLOC(cur, nn, ctx, "p-multigrid node elements");
  for (int a = 0; a < nn; a++) cur[a] = I->ptr[a];
  for (int e0 = 0; e0 < ne; e0 += BLOCK) {
    int e1 = e0 + BLOCK < ne ? e0 + BLOCK : ne;
#pragma omp parallel for schedule(static) if (e1 - e0 >= PARALLEL_ELEMS)
    for (int e = e0; e < e1; e++)
      element_matrix(el, e, work + ws * dt_omp_thread(), ke + (size_t)(e - e0) * KE);
#pragma omp parallel for schedule(static) if (nn >= PARALLEL_NODES)
    for (int a = 0; a < nn; a++) add_node_rows(pmg, m, I, nbr_ptr, nbr, a, e0, e1, ke, cur);
  }
cleanup:
  dt_free(ke);
  dt_free(work);
  dt_free(cur);
  return rc;
}

/* Row pointers and columns: row 3 a + c holds the three columns of each neighbour of a. */
static dt_status csr_pattern(dt_ho_pmg *pmg, int nn, const int *nbr_ptr, const int *nbr,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = 3 * nn;
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
cleanup:
  return rc;
}

dt_status dt_ho_pmg_assemble(dt_ho_pmg *pmg, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_pmg_level *C = &pmg->lev[pmg->n_levels - 1];
  const dt_ho_mesh *m = &C->mesh;
  int nn = m->n_nodes, n = 3 * nn, *nbr_ptr = NULL, *nbr = NULL;
  incidence I = {NULL, NULL, NULL};
  dt_amg_options ao;
  double t0 = dt_seconds();
  DT_TRY(incidence_build(m, &I, ctx));
  DT_TRY(node_graph(m, &I, &nbr_ptr, &nbr, ctx));
  DT_TRY(csr_pattern(pmg, nn, nbr_ptr, nbr, ctx));
  DT_TRY(assemble_values(pmg, &I, nbr_ptr, nbr, ctx));
  /* constrained rows and columns: identity */
  DT_ALLOC(pmg->con, n, ctx, "p-multigrid coarse constraints");
  for (int i = 0; i < n; i++) pmg->con[i] = C->fixed[i];
  for (int i = 0; i < n; i++)
    for (int k = pmg->row_ptr[i]; k < pmg->row_ptr[i + 1]; k++) {
      int j = pmg->col[k];
      if (C->fixed[i] || C->fixed[j]) pmg->val[k] = i == j ? 1.0 : 0.0;
    }
  pmg->seconds_matrix = dt_seconds() - t0;
  t0 = dt_seconds();
  dt_amg_input in = {nn, 3, m->coords, pmg->con, pmg->row_ptr, pmg->col, pmg->val};
  dt_amg_options_default(&ao);
  DT_TRY(dt_amg_create(&in, &ao, &pmg->amg, ctx));
  pmg->seconds_amg = dt_seconds() - t0;
cleanup:
  dt_free(nbr_ptr);
  dt_free(nbr);
  incidence_free(&I);
  return rc;
}
