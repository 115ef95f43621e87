/* The CSR pattern of the tangent and the per-element CSR positions ([Kiran2023, Algorithm 5]).
 *
 * Node adjacency comes from element connectivity: node b is a neighbour of node a when some
 * element contains both (a is its own neighbour). Each node's neighbour list is sorted, and
 * every DOF row of node a has the columns dpn*b + j for its neighbours b in that order, so the
 * rank of b in a's list locates a whole dpn x dpn block. Built in two passes (count, fill) over
 * a node-to-element map, with a marker array for de-duplication: O(sum of npe^2) work.
 * The scalar CSR arrays (row_ptr, col: 4 bytes per nonzero, 1.5 GB on C5) are made only for a
 * backend that stores the tangent as CSR (the CPU backend, dt_problem_csr); the CUDA backend's
 * blocked tangent needs only the neighbour lists.
 *
 * The neighbour lists, the element positions and the scalar CSR run in parallel (OpenMP, the
 * calling thread's thread count): each node's list and each element's positions depend on
 * nothing another thread writes, so the result is the same for any thread count
 * (tests/unit/test_problem.c compares 1 and 4 threads). Sequential, they were 1.0 s of the
 * C5 setup (0.35 s lists, 0.63 s positions, 2-core dev VM). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/omp_threads.h"
#include "problem.h"
#include "core/sorted_rank.h"

/* The neighbour pass gives each thread its own marks, n_nodes ints: threads are capped so
 * that the marks take at most this many bytes (C5: 6 MB per thread, so 16 threads fit). */
#define MARK_BYTES_MAX (256u << 20)

static int pattern_threads(int n_nodes) {
  size_t per = sizeof(int) * (size_t)(n_nodes > 0 ? n_nodes : 1);
  size_t cap = MARK_BYTES_MAX / per;
  int t = dt_omp_max_threads();
  return (size_t)t > cap ? (cap > 0 ? (int)cap : 1) : t;
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

/* Counted with atomic adds and filled with atomic slots, so in parallel; each node's entries
 * are then sorted by incidence (conn offsets grow with the element), which makes the result
 * the same for any thread count. Sequential, this took 55 ms of the C5 setup on a 16-core host
 * (docs/benchmarks.md). */
dt_status dt_problem_node_elements(const dt_problem *pb, int **ptr_out, int **list_out,
                                   int **inc_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *ptr = NULL, *list = NULL, *inc = NULL, *fill = NULL, *elem_of = NULL;
  const int n_conn = pb->elem_ptr[pb->n_elems];
  DT_ALLOC(ptr, pb->n_nodes + 1, ctx, "node-element map");
#pragma omp parallel for schedule(static)
  for (int k = 0; k < n_conn; k++) {
#pragma omp atomic
    ptr[pb->conn[k] + 1]++;
  }
  for (int i = 0; i < pb->n_nodes; i++) ptr[i + 1] += ptr[i];
  DT_ALLOC(list, n_conn, ctx, "node-element map");
  DT_ALLOC(inc, n_conn, ctx, "node incidences");
  DT_ALLOC(fill, pb->n_nodes, ctx, "node-element map");
  DT_ALLOC(elem_of, n_conn, ctx, "node-element map"); /* the element of each incidence */
#pragma omp parallel for schedule(static)
  for (int e = 0; e < pb->n_elems; e++)
    for (int k = pb->elem_ptr[e]; k < pb->elem_ptr[e + 1]; k++) elem_of[k] = e;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < n_conn; k++) {
    int a = pb->conn[k], slot;
#pragma omp atomic capture
    slot = fill[a]++;
    inc[ptr[a] + slot] = k;
  }
#pragma omp parallel for schedule(static)
  for (int a = 0; a < pb->n_nodes; a++) {
    int *v = inc + ptr[a], n = ptr[a + 1] - ptr[a];
    sort_small(v, n); /* incidences ascending, hence elements ascending */
    for (int j = 0; j < n; j++) list[ptr[a] + j] = elem_of[v[j]];
  }
  *ptr_out = ptr;
  *list_out = list;
  if (inc_out)
    *inc_out = inc;
  else
    dt_free(inc);
  ptr = list = inc = NULL;
cleanup:
  dt_free(ptr);
  dt_free(list);
  dt_free(inc);
  dt_free(fill);
  dt_free(elem_of);
  return rc;
}

/* Node a's neighbours: counted (out == NULL) or written to out, unsorted. mark[b] == a marks
 * b as seen for a; mark is the calling thread's own. */
static int node_neighbours(const dt_problem *pb, const int *ne_ptr, const int *ne_list, int a,
                           int *mark, int *out) {
  int count = 0;
  for (int k = ne_ptr[a]; k < ne_ptr[a + 1]; k++) {
    int e = ne_list[k];
    for (int j = pb->elem_ptr[e]; j < pb->elem_ptr[e + 1]; j++) {
      int b = pb->conn[j];
      if (mark[b] == a) continue;
      mark[b] = a;
      if (out) out[count] = b;
      count++;
    }
  }
  if (count == 0) { /* an unused node keeps an identity block */
    if (out) out[0] = a;
    count = 1;
  }
  return count;
}

/* Sorted neighbour lists of every node: counts, offsets, then the lists. */
static dt_status build_node_neighbours(dt_problem *pb, const int *ne_ptr, const int *ne_list,
                                       dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int threads = pattern_threads(pb->n_nodes), n = pb->n_nodes;
  int *marks = NULL, *ptr;
  DT_ALLOC(marks, (size_t)threads * n, ctx, "neighbour marks");
  DT_ALLOC(pb->node_nbr_ptr, n + 1, ctx, "node neighbours");
  ptr = pb->node_nbr_ptr;
#pragma omp parallel num_threads(threads)
  {
    int *mark = marks + (size_t)dt_omp_thread() * n;
    for (int i = 0; i < n; i++) mark[i] = -1;
#pragma omp for schedule(static)
    for (int a = 0; a < n; a++) ptr[a + 1] = node_neighbours(pb, ne_ptr, ne_list, a, mark, NULL);
  }
  for (int a = 0; a < n; a++) {
    DT_CHECK((int64_t)ptr[a + 1] + ptr[a] < INT_MAX, ctx, DT_ERR_UNSUPPORTED,
             "the mesh couples more than 2^31 node pairs (counted to node %d of %d): more "
             "than the tangent's block pattern indexes",
             a, n);
    ptr[a + 1] += ptr[a];
  }
  DT_ALLOC(pb->node_nbr, ptr[n], ctx, "node neighbours");
#pragma omp parallel num_threads(threads)
  {
    int *mark = marks + (size_t)dt_omp_thread() * n;
    for (int i = 0; i < n; i++) mark[i] = -1;
#pragma omp for schedule(static)
    for (int a = 0; a < n; a++) {
      int *out = pb->node_nbr + ptr[a];
      sort_small(out, node_neighbours(pb, ne_ptr, ne_list, a, mark, out));
    }
  }
cleanup:
  dt_free(marks);
  return rc;
}

/* The scalar count is 64-bit: a 30M-DOF hex8 model has 2.4 billion nonzeros. Only the node
 * blocks (neighbour lists, checked as they are counted) stay below 2^31; the scalar CSR, which
 * indexes single values, checks its own limit (dt_problem_csr). */
static void count_nonzeros(dt_problem *pb) {
  pb->nnz = (int64_t)pb->node_nbr_ptr[pb->n_nodes] * pb->dpn * pb->dpn;
}

dt_status dt_problem_csr(const dt_problem *pb, int **row_ptr_out, int **col_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int dpn = pb->dpn, *row_ptr = NULL, *col = NULL;
  DT_CHECK(pb->nnz < INT32_MAX, ctx, DT_ERR_UNSUPPORTED,
           "the tangent has %lld nonzeros, more than the scalar CSR's 32-bit indices hold "
           "(the CPU backend and the algebraic multigrid store it so); the CUDA backend's "
           "blocked tangent holds it, with linear.preconditioner \"two_level\" or "
           "\"block_jacobi\"",
           (long long)pb->nnz);
  DT_ALLOC(row_ptr, pb->n_dofs + 1, ctx, "CSR row offsets");
  DT_ALLOC(col, pb->nnz, ctx, "CSR column indices");
  for (int a = 0; a < pb->n_nodes; a++) {
    int nb = pb->node_nbr_ptr[a + 1] - pb->node_nbr_ptr[a];
    for (int i = 0; i < dpn; i++) row_ptr[a * dpn + i + 1] = row_ptr[a * dpn + i] + nb * dpn;
  }
#pragma omp parallel for schedule(static)
  for (int a = 0; a < pb->n_nodes; a++) {
    const int *nbr = pb->node_nbr + pb->node_nbr_ptr[a];
    int nb = pb->node_nbr_ptr[a + 1] - pb->node_nbr_ptr[a];
    for (int i = 0; i < dpn; i++)
      for (int r = 0; r < nb; r++)
        for (int j = 0; j < dpn; j++) col[row_ptr[a * dpn + i] + r * dpn + j] = nbr[r] * dpn + j;
  }
  *row_ptr_out = row_ptr;
  *col_out = col;
  row_ptr = col = NULL;
cleanup:
  dt_free(row_ptr);
  dt_free(col);
  return rc;
}

/* Offsets of each element's npe^2 positions (the positions themselves: dt_problem_positions,
 * or the CUDA backend computes them on the device). */
static dt_status build_position_offsets(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_ALLOC(pb->elem_pos_ptr, pb->n_elems + 1, ctx, "element CSR positions");
  for (int e = 0; e < pb->n_elems; e++) {
    int64_t npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e];
    pb->elem_pos_ptr[e + 1] = pb->elem_pos_ptr[e] + npe * npe;
  }
cleanup:
  return rc;
}

dt_status dt_problem_positions(const dt_problem *pb, int **pos_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int missing = INT_MAX; /* the first element with a node pair outside the pattern (a bug) */
  int *all = NULL;
  DT_ALLOC(all, pb->elem_pos_ptr[pb->n_elems], ctx, "element CSR positions");
#pragma omp parallel for schedule(static) reduction(min : missing)
  for (int e = 0; e < pb->n_elems; e++) {
    const int *c = pb->conn + pb->elem_ptr[e];
    int npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e];
    int *pos = all + pb->elem_pos_ptr[e];
    for (int A = 0; A < npe; A++) {
      const int *nb = pb->node_nbr + pb->node_nbr_ptr[c[A]];
      int n = pb->node_nbr_ptr[c[A] + 1] - pb->node_nbr_ptr[c[A]];
      for (int B = 0; B < npe; B++) {
        pos[A * npe + B] = dt_sorted_rank(nb, n, c[B]);
        if (pos[A * npe + B] < 0 && e < missing) missing = e;
      }
    }
  }
  DT_CHECK(missing == INT_MAX, ctx, DT_ERR_INTERNAL, "CSR position missing for element %d",
           missing);
  *pos_out = all;
  all = NULL;
cleanup:
  dt_free(all);
  return rc;
}

dt_status dt_problem_build_pattern(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(dt_problem_node_elements(pb, &pb->node_elem_ptr, &pb->node_elem, &pb->node_inc, ctx));
  DT_TRY(build_node_neighbours(pb, pb->node_elem_ptr, pb->node_elem, ctx));
  count_nonzeros(pb);
  DT_TRY(build_position_offsets(pb, ctx));
cleanup:
  return rc;
}

int64_t dt_problem_csr_index(const dt_problem *pb, const int *row_ptr, int a, int i, int b, int j) {
  const int *nb = pb->node_nbr + pb->node_nbr_ptr[a];
  int r = dt_sorted_rank(nb, pb->node_nbr_ptr[a + 1] - pb->node_nbr_ptr[a], b);
  if (r < 0) return -1;
  return row_ptr[a * pb->dpn + i] + (int64_t)r * pb->dpn + j;
}
