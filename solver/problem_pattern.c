/* The CSR pattern of the tangent and the per-element CSR positions (seed 003 §2.4).
 *
 * Node adjacency comes from element connectivity: node b is a neighbour of node a when some
 * element contains both (a is its own neighbour). Each node's neighbour list is sorted, and
 * every DOF row of node a has the columns dpn*b + j for its neighbours b in that order, so the
 * rank of b in a's list locates a whole dpn x dpn block. Built in two passes (count, fill) over
 * a node-to-element map, with a marker array for de-duplication: O(sum of npe^2) work.
 * The scalar CSR arrays (row_ptr, col: 4 bytes per nonzero, 1.5 GB on C5) are made only for a
 * backend that stores the tangent as CSR (the CPU backend, dt_problem_csr); the CUDA backend's
 * blocked tangent needs only the neighbour lists. */
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "sorted_rank.h"

dt_status dt_problem_node_elements(const dt_problem *pb, int **ptr_out, int **list_out,
                                   int **inc_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *ptr = NULL, *list = NULL, *inc = NULL, *fill = NULL;
  DT_ALLOC(ptr, pb->n_nodes + 1, ctx, "node-element map");
  for (int e = 0; e < pb->n_elems; e++)
    for (int k = pb->elem_ptr[e]; k < pb->elem_ptr[e + 1]; k++) ptr[pb->conn[k] + 1]++;
  for (int i = 0; i < pb->n_nodes; i++) ptr[i + 1] += ptr[i];
  DT_ALLOC(list, ptr[pb->n_nodes], ctx, "node-element map");
  if (inc_out) DT_ALLOC(inc, ptr[pb->n_nodes], ctx, "node incidences");
  DT_ALLOC(fill, pb->n_nodes, ctx, "node-element map");
  for (int e = 0; e < pb->n_elems; e++)
    for (int k = pb->elem_ptr[e]; k < pb->elem_ptr[e + 1]; k++) {
      int a = pb->conn[k], at = ptr[a] + fill[a]++;
      list[at] = e;
      if (inc) inc[at] = k;
    }
  *ptr_out = ptr;
  *list_out = list;
  if (inc_out) *inc_out = inc;
  ptr = list = inc = NULL;
cleanup:
  dt_free(ptr);
  dt_free(list);
  dt_free(inc);
  dt_free(fill);
  return rc;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Neighbour lists are short (27 on a hex grid): there an insertion sort beats qsort's calls
 * through a comparison function several times over; long lists (a node shared by many
 * elements) go to qsort. */
static void sort_small(int *v, int n) {
  if (n > 64) {
    qsort(v, (size_t)n, sizeof(int), cmp_int);
    return;
  }
  for (int i = 1; i < n; i++) {
    int x = v[i], j = i - 1;
    for (; j >= 0 && v[j] > x; j--) v[j + 1] = v[j];
    v[j + 1] = x;
  }
}

/* Sorted neighbour lists of every node. */
static dt_status build_node_neighbours(dt_problem *pb, const int *ne_ptr, const int *ne_list,
                                       dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *mark = NULL;
  int64_t total = 0;
  DT_ALLOC(mark, pb->n_nodes, ctx, "neighbour marks");
  DT_ALLOC(pb->node_nbr_ptr, pb->n_nodes + 1, ctx, "node neighbours");
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < pb->n_nodes; i++) mark[i] = -1;
    for (int a = 0; a < pb->n_nodes; a++) {
      int count = 0;
      int base = pass ? pb->node_nbr_ptr[a] : 0;
      for (int k = ne_ptr[a]; k < ne_ptr[a + 1]; k++) {
        int e = ne_list[k];
        for (int j = pb->elem_ptr[e]; j < pb->elem_ptr[e + 1]; j++) {
          int b = pb->conn[j];
          if (mark[b] == a) continue;
          mark[b] = a;
          if (pass) pb->node_nbr[base + count] = b;
          count++;
        }
      }
      if (count == 0) { /* an unused node keeps an identity block */
        if (pass) pb->node_nbr[base] = a;
        count = 1;
      }
      if (pass)
        sort_small(pb->node_nbr + base, count);
      else
        pb->node_nbr_ptr[a + 1] = count;
    }
    if (pass == 0) {
      for (int a = 0; a < pb->n_nodes; a++) pb->node_nbr_ptr[a + 1] += pb->node_nbr_ptr[a];
      total = pb->node_nbr_ptr[pb->n_nodes];
      DT_ALLOC(pb->node_nbr, total, ctx, "node neighbours");
    }
  }
cleanup:
  dt_free(mark);
  return rc;
}

static dt_status count_nonzeros(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int64_t nnz = (int64_t)pb->node_nbr_ptr[pb->n_nodes] * pb->dpn * pb->dpn;
  DT_CHECK(nnz < INT32_MAX, ctx, DT_ERR_INPUT,
           "the tangent would have %lld nonzeros, more than 32-bit CSR indices allow",
           (long long)nnz);
  pb->nnz = nnz;
cleanup:
  return rc;
}

dt_status dt_problem_csr(const dt_problem *pb, int **row_ptr_out, int **col_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int dpn = pb->dpn, *row_ptr = NULL, *col = NULL;
  DT_ALLOC(row_ptr, pb->n_dofs + 1, ctx, "CSR row offsets");
  DT_ALLOC(col, pb->nnz, ctx, "CSR column indices");
  for (int a = 0; a < pb->n_nodes; a++) {
    int nb = pb->node_nbr_ptr[a + 1] - pb->node_nbr_ptr[a];
    for (int i = 0; i < dpn; i++) {
      int row = a * dpn + i;
      int start = row_ptr[row];
      row_ptr[row + 1] = start + nb * dpn;
      for (int r = 0; r < nb; r++)
        for (int j = 0; j < dpn; j++)
          col[start + r * dpn + j] = pb->node_nbr[pb->node_nbr_ptr[a] + r] * dpn + j;
    }
  }
  *row_ptr_out = row_ptr;
  *col_out = col;
  row_ptr = col = NULL;
cleanup:
  dt_free(row_ptr);
  dt_free(col);
  return rc;
}

static dt_status build_element_positions(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_ALLOC(pb->elem_pos_ptr, pb->n_elems + 1, ctx, "element CSR positions");
  for (int e = 0; e < pb->n_elems; e++) {
    int64_t npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e];
    pb->elem_pos_ptr[e + 1] = pb->elem_pos_ptr[e] + npe * npe;
  }
  DT_ALLOC(pb->elem_pos, pb->elem_pos_ptr[pb->n_elems], ctx, "element CSR positions");
  for (int e = 0; e < pb->n_elems; e++) {
    const int *c = pb->conn + pb->elem_ptr[e];
    int npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e];
    int *pos = pb->elem_pos + pb->elem_pos_ptr[e];
    for (int A = 0; A < npe; A++) {
      const int *nb = pb->node_nbr + pb->node_nbr_ptr[c[A]];
      int n = pb->node_nbr_ptr[c[A] + 1] - pb->node_nbr_ptr[c[A]];
      for (int B = 0; B < npe; B++) {
        pos[A * npe + B] = dt_sorted_rank(nb, n, c[B]);
        DT_CHECK(pos[A * npe + B] >= 0, ctx, DT_ERR_INTERNAL, "CSR position missing");
      }
    }
  }
cleanup:
  return rc;
}

dt_status dt_problem_build_pattern(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *ne_ptr = NULL, *ne_list = NULL;
  DT_TRY(dt_problem_node_elements(pb, &ne_ptr, &ne_list, NULL, ctx));
  DT_TRY(build_node_neighbours(pb, ne_ptr, ne_list, ctx));
  DT_TRY(count_nonzeros(pb, ctx));
  DT_TRY(build_element_positions(pb, ctx));
cleanup:
  dt_free(ne_ptr);
  dt_free(ne_list);
  return rc;
}

int64_t dt_problem_csr_index(const dt_problem *pb, const int *row_ptr, int a, int i, int b, int j) {
  const int *nb = pb->node_nbr + pb->node_nbr_ptr[a];
  int r = dt_sorted_rank(nb, pb->node_nbr_ptr[a + 1] - pb->node_nbr_ptr[a], b);
  if (r < 0) return -1;
  return row_ptr[a * pb->dpn + i] + (int64_t)r * pb->dpn + j;
}
