/* The per-element block positions (dt_problem.elem_pos), computed on the device at upload
 * from the connectivity and the neighbour lists that the upload copies anyway. On C5 that is
 * 390 MB the host no longer builds (70 ms on the H200 host's 16 cores) nor copies (50 ms);
 * the ranks are those of dt_problem_positions (dt_sorted_rank on the same sorted lists). */
#include <limits.h>

#include "core/sorted_rank.h"
#include "cuda_internal.h"

/* A thread per element: rank of node B in node A's block row for every pair (A, B);
 * *missing: the smallest element with a pair outside the pattern (none: INT_MAX). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_elem_positions(int n_elems, const int *__restrict__ elem_ptr, const int *__restrict__ conn,
                     const int64_t *__restrict__ pos_ptr, const int *__restrict__ brow_ptr,
                     const int *__restrict__ bcol, int *__restrict__ pos, int *missing) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n_elems) return;
  const int *c = conn + elem_ptr[e];
  int npe = elem_ptr[e + 1] - elem_ptr[e], bad = 0;
  int *out = pos + pos_ptr[e];
  for (int A = 0; A < npe; A++) {
    const int *row = bcol + brow_ptr[c[A]];
    int n = brow_ptr[c[A] + 1] - brow_ptr[c[A]];
    for (int B = 0; B < npe; B++) {
      int r = dt_sorted_rank(row, n, c[B]);
      out[A * npe + B] = r;
      bad |= r < 0;
    }
  }
  if (bad) atomicMin(missing, e);
}

dt_status dt_cuda_compute_positions(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *missing = (int *)c->pinned;
  dt_cuda_problem *p = &c->problem;
  DT_TRY(dt_cuda_alloc(c, (void **)&p->elem_pos, sizeof(int) * (size_t)p->n_pos, "block positions",
                       ctx));
  k_elem_positions<<<(p->n_elems + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK, DT_CUDA_BLOCK, 0,
                     c->stream>>>(p->n_elems, p->elem_ptr, p->conn, p->elem_pos_ptr, p->brow_ptr,
                                  p->bcol, p->elem_pos, &c->flags->missing_pos);
  DT_CUDA_LAUNCH_CHECK("k_elem_positions", c->stream, ctx);
  DT_TRY(dt_cuda_d2h(c, missing, &c->flags->missing_pos, sizeof(int), ctx)); /* 4 bytes */
  DT_CHECK(*missing == INT_MAX, ctx, DT_ERR_INTERNAL, "CSR position missing for element %d",
           *missing);
cleanup:
  return rc;
}
