/* Operator, preconditioners and Dirichlet rows/columns of the CUDA backend.
 *
 * SpMV: cuSPARSE generic API on the blocked tangent (dt_bsr_block: dpn x dpn column-major
 * blocks) with CUSPARSE_SPMV_BSR_ALG1, which gives the same bits on every run; descriptors are
 * made once at upload. Jacobi: z = r ./ diag(K) (one thread per DOF). Block Jacobi:
 * z_a = (K_aa)^-1 r_a with K_aa the dpn x dpn diagonal block of node a, inverted at setup by
 * the adjugate exactly as the CPU backend does (one thread per node). A singular or
 * non-positive block (or diagonal) makes the setup fail with DT_ERR_NOT_CONVERGED, which the
 * Newton driver turns into a cutback. AMG: cuda_amg.cu (a host-built hierarchy, a device
 * V-cycle). Dirichlet: rows and columns of constrained DOFs become
 * identity. Only blocks in the row or the column of a constrained node change, so the pass
 * runs a warp per node with a constrained DOF (the list dt_cuda_vec_set keeps), its lanes on
 * the node's blocks: each lane sets the constrained rows of block (a, b) and the constrained
 * columns of block (b, a), found by a binary search in row b (the pattern is symmetric).
 * An entry whose row and column are both constrained is written by two warps with the same
 * value, so the result does not depend on their order. Sweeping every block row instead took
 * 123 us per assembly on C2 (H200, docs/benchmarks.md, decision table). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/small_matrix.h"
#include "core/sorted_rank.h"
#include "cuda_internal.h"

/* Index in bcol of block (a, b): column b in a's sorted row (dt_sorted_rank), -1 if absent. */
__device__ __forceinline__ long block_index(const int *__restrict__ brow_ptr,
                                            const int *__restrict__ bcol, int a, int b) {
  int r = dt_sorted_rank(bcol + brow_ptr[a], brow_ptr[a + 1] - brow_ptr[a], b);
  return r < 0 ? -1 : (long)brow_ptr[a] + r;
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_dirichlet(int n_con, const int *__restrict__ con_nodes, int dpn,
                const int *__restrict__ brow_ptr, const int *__restrict__ bcol,
                const double *__restrict__ con, double *__restrict__ val) {
  long w = ((long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (w >= n_con) return;
  const int a = con_nodes[w], d2 = dpn * dpn;
  for (int k = brow_ptr[a] + lane; k < brow_ptr[a + 1]; k += 32) {
    int b = bcol[k];
    double *row_blk = val + (long)k * d2; /* block (a, b) */
    double *col_blk =
        val + block_index(brow_ptr, bcol, b, a) * d2; /* (b, a): the pattern is symmetric */
    for (int i = 0; i < dpn; i++) {
      if (con[a * dpn + i] == 0.0) continue;
      for (int j = 0; j < dpn; j++) {
        row_blk[j * dpn + i] = a * dpn + i == b * dpn + j ? 1.0 : 0.0; /* row a*dpn+i */
        col_blk[i * dpn + j] = b * dpn + j == a * dpn + i ? 1.0 : 0.0; /* column a*dpn+i */
      }
    }
  }
}

dt_status dt_cuda_dirichlet(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int grid = (int)(((long)c->state.n_con_nodes * 32 + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK);
  if (grid == 0) return DT_OK;
  k_dirichlet<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(
      c->state.n_con_nodes, c->state.con_nodes, c->problem.dpn, c->problem.brow_ptr,
      c->problem.bcol, c->state.vec[DT_VEC_CON], c->lin.val);
  DT_CUDA_LAUNCH_CHECK("k_dirichlet", c->stream, ctx);
cleanup:
  return rc;
}

dt_status dt_cuda_spmv_parts(const dt_problem *pb, dt_cuda_problem *p, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const char *env = getenv("DUCTILE_CUDA_SPMV_PART_VALUES");
  long long values = INT_MAX, d2 = (long long)pb->dpn * pb->dpn, max_blocks;
  int k = 0;
  if (env && *env) {
    char *end = NULL;
    long long v = strtoll(env, &end, 10);
    DT_CHECK(end && *end == '\0' && v >= d2 * 64 && v <= INT_MAX, ctx, DT_ERR_INPUT,
             "DUCTILE_CUDA_SPMV_PART_VALUES=\"%s\" is not a value count from %lld to %d", env,
             d2 * 64, INT_MAX);
    values = v;
  }
  max_blocks = values / d2;
  p->spmv_row0[0] = 0;
  p->spmv_blk0[0] = 0;
  for (int a = 0; a < pb->n_nodes; a++) {
    if ((long long)pb->node_nbr_ptr[a + 1] - p->spmv_blk0[k] <= max_blocks) continue;
    /* row a starts a new range (a row alone holds at most a few hundred blocks) */
    DT_CHECK(k + 1 < DT_CUDA_SPMV_PARTS_MAX, ctx, DT_ERR_UNSUPPORTED,
             "the tangent's %lld blocks need more than %d sparse products of fewer than %lld "
             "values each",
             (long long)pb->node_nbr_ptr[pb->n_nodes], DT_CUDA_SPMV_PARTS_MAX, values);
    k++;
    p->spmv_row0[k] = a;
    p->spmv_blk0[k] = pb->node_nbr_ptr[a];
  }
  p->n_spmv_parts = k + 1;
  p->spmv_row0[k + 1] = pb->n_nodes;
  p->spmv_blk0[k + 1] = pb->node_nbr_ptr[pb->n_nodes];
cleanup:
  return rc;
}

/* Block row offsets of a range, from 0: out[i] = brow_ptr[i] - first. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_range_offsets(int n, const int *__restrict__ brow_ptr, int first, int *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = brow_ptr[i] - first;
}

/* The descriptors of each row range (dt_cuda_problem spmv_row0) and the largest SpMV buffer. */
static dt_status linear_parts_alloc(dt_cuda *c, size_t *buf_bytes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_linear *l = &c->lin;
  const dt_cuda_problem *p = &c->problem;
  double one = 1.0, zero = 0.0;
  for (int k = 0; k < p->n_spmv_parts; k++) {
    int r0 = p->spmv_row0[k], rows = p->spmv_row0[k + 1] - r0;
    int64_t b0 = p->spmv_blk0[k], blocks = p->spmv_blk0[k + 1] - b0;
    size_t bytes = 0;
    if (k == 0) {
      l->part_brow_ptr[0] = p->brow_ptr;
    } else {
      DT_TRY(dt_cuda_alloc(c, (void **)&l->part_brow_ptr[k], sizeof(int) * ((size_t)rows + 1),
                           "SpMV range offsets", ctx));
      k_range_offsets<<<(rows + DT_CUDA_BLOCK) / DT_CUDA_BLOCK, DT_CUDA_BLOCK, 0, c->stream>>>(
          rows + 1, p->brow_ptr + r0, (int)b0, l->part_brow_ptr[k]);
      DT_CUDA_LAUNCH_CHECK("k_range_offsets", c->stream, ctx);
    }
    DT_CUSPARSE_CHECK(cusparseCreateBsr(&l->part_mat[k], rows, p->n_nodes, blocks, p->dpn, p->dpn,
                                        l->part_brow_ptr[k], p->bcol + b0,
                                        l->val + b0 * p->dpn * p->dpn, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F,
                                        CUSPARSE_ORDER_COL),
                      ctx);
    for (int v = 0; v < DT_VEC_COUNT; v++)
      DT_CUSPARSE_CHECK(cusparseCreateDnVec(&l->part_dvec[k][v], (int64_t)rows * p->dpn,
                                            c->state.vec[v] + (size_t)r0 * p->dpn, CUDA_R_64F),
                        ctx);
    DT_CUSPARSE_CHECK(cusparseSpMV_bufferSize(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                              l->part_mat[k], l->dvec[DT_VEC_PCG_P], &zero,
                                              l->part_dvec[k][DT_VEC_PCG_Q], CUDA_R_64F,
                                              DT_CUDA_SPMV_ALG, &bytes),
                      ctx);
    if (bytes > *buf_bytes) *buf_bytes = bytes;
  }
cleanup:
  return rc;
}

/* The tangent values (zero; none with the matrix-free operator) and the preconditioner's array;
 * cuSPARSE's descriptors: one per vector (after dt_cuda_vectors_alloc), the matrix over the
 * block pattern, and the SpMV buffer, once. */
dt_status dt_cuda_linear_alloc(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_linear *l = &c->lin;
  const dt_cuda_problem *p = &c->problem;
  double one = 1.0, zero = 0.0;
  if (!p->matrix_free) ZEROS(l->val, p->nnz, "tangent values");
  ZEROS(l->pc, (size_t)p->n_dofs * p->dpn, "preconditioner");
  for (int v = 0; v < DT_VEC_COUNT; v++)
    DT_CUSPARSE_CHECK(cusparseCreateDnVec(&l->dvec[v], p->n_dofs, c->state.vec[v], CUDA_R_64F),
                      ctx);
  if (p->matrix_free) goto cleanup;
  if (p->n_spmv_parts > 1) {
    DT_TRY(linear_parts_alloc(c, &l->spmv_buf_bytes, ctx));
    if (l->spmv_buf_bytes)
      DT_TRY(dt_cuda_alloc(c, &l->spmv_buf, l->spmv_buf_bytes, "SpMV buffer", ctx));
    goto cleanup;
  }
  DT_CUSPARSE_CHECK(cusparseCreateBsr(&l->mat, p->n_nodes, p->n_nodes, p->n_blocks, p->dpn, p->dpn,
                                      p->brow_ptr, p->bcol, l->val, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F,
                                      CUSPARSE_ORDER_COL),
                    ctx);
  DT_CUSPARSE_CHECK(cusparseSpMV_bufferSize(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, l->mat,
                                            l->dvec[DT_VEC_PCG_P], &zero, l->dvec[DT_VEC_PCG_Q],
                                            CUDA_R_64F, DT_CUDA_SPMV_ALG, &l->spmv_buf_bytes),
                    ctx);
  if (l->spmv_buf_bytes)
    DT_TRY(dt_cuda_alloc(c, &l->spmv_buf, l->spmv_buf_bytes, "SpMV buffer", ctx));
cleanup:
  return rc;
}

/* cuSPARSE's descriptors (the device arrays go with dt_cuda_free_all). */
void dt_cuda_linear_destroy(dt_cuda *c) {
  for (int v = 0; v < DT_VEC_COUNT; v++)
    if (c->lin.dvec[v]) cusparseDestroyDnVec(c->lin.dvec[v]);
  if (c->lin.mat) cusparseDestroySpMat(c->lin.mat);
  for (int k = 0; k < DT_CUDA_SPMV_PARTS_MAX; k++) {
    if (c->lin.part_mat[k]) cusparseDestroySpMat(c->lin.part_mat[k]);
    for (int v = 0; v < DT_VEC_COUNT; v++)
      if (c->lin.part_dvec[k][v]) cusparseDestroyDnVec(c->lin.part_dvec[k][v]);
  }
  memset(c->lin.dvec, 0, sizeof c->lin.dvec);
  memset(c->lin.part_mat, 0, sizeof c->lin.part_mat);
  memset(c->lin.part_dvec, 0, sizeof c->lin.part_dvec);
  c->lin.mat = NULL;
}

dt_status dt_cuda_spmv(dt_cuda *c, dt_vec_id x, dt_vec_id y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double one = 1.0, zero = 0.0;
  if (c->problem.matrix_free) return dt_cuda_mf_apply(c, x, y, ctx);
  if (c->problem.n_spmv_parts > 1) {
    for (int k = 0; k < c->problem.n_spmv_parts; k++)
      DT_CUSPARSE_CHECK(cusparseSpMV(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                     c->lin.part_mat[k], c->lin.dvec[x], &zero,
                                     c->lin.part_dvec[k][y], CUDA_R_64F, DT_CUDA_SPMV_ALG,
                                     c->lin.spmv_buf),
                        ctx);
    goto cleanup;
  }
  DT_CUSPARSE_CHECK(cusparseSpMV(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->lin.mat,
                                 c->lin.dvec[x], &zero, c->lin.dvec[y], CUDA_R_64F,
                                 DT_CUDA_SPMV_ALG, c->lin.spmv_buf),
                    ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_operator_apply(void *impl, dt_vec_id x, dt_vec_id y, dt_ctx *ctx) {
  return dt_cuda_spmv((dt_cuda *)impl, x, y, ctx);
}

/* What a launch of k_pc_setup does: pc_setup runs both halves in one pass; a part of a split run
 * (dt_backend_part_ops) runs them apart, so that the parts can sum their shared nodes' blocks in
 * between. */
enum { PC_GATHER = 1, PC_INVERT = 2 };

/* One thread per node. PC_GATHER: find the diagonal block (block column a in block row a;
 * columns are sorted, so a binary search) or take the matrix-free operator's; without
 * PC_INVERT, store it in pc. PC_INVERT: without PC_GATHER, read the block from pc (a block kind
 * then: pc holds dpn x dpn per node); invert it or take the inverse diagonal. blk is row-major,
 * as dt_invert_small and k_pc_block read it. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_pc_setup(int n_nodes, int dpn, int kind, int mode, const int *__restrict__ brow_ptr,
               const int *__restrict__ bcol, const double *__restrict__ val,
               const double *__restrict__ diag, double *__restrict__ pc, dt_cuda_flags *flags) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n_nodes) return;
  double blk[9];
  int bad = 0;
  double *own = pc + (long)a * dpn * dpn; /* this node's block in pc */
  for (int i = 0; i < 9; i++) blk[i] = 0.0;
  if (!(mode & PC_GATHER)) {
    for (int i = 0; i < dpn * dpn; i++) blk[i] = own[i];
  } else if (
      diag) { /* the matrix-free operator's blocks, row-major already (cuda_matrix_free.cu) */
    for (int i = 0; i < dpn * dpn; i++) blk[i] = diag[(long)a * dpn * dpn + i];
  } else {
    long k = block_index(brow_ptr, bcol, a, a);
    if (k >= 0) { /* a node without a diagonal block keeps zeros: reported as bad at inversion */
      const double *d = val + k * dpn * dpn;
      for (int i = 0; i < dpn; i++)
        for (int j = 0; j < dpn; j++) blk[i * dpn + j] = d[j * dpn + i];
    }
  }
  if (!(mode & PC_INVERT)) {
    for (int i = 0; i < dpn * dpn; i++) own[i] = blk[i];
    return;
  }
  if (kind != DT_PC_JACOBI) { /* block Jacobi, also the first level of two_level */
    bad = !dt_invert_small(blk, dpn);
    for (int i = 0; i < dpn * dpn; i++) own[i] = blk[i];
  } else {
    for (int i = 0; i < dpn; i++) {
      double d = blk[i * dpn + i];
      if (!(d > 0.0)) bad = 1;
      pc[(long)a * dpn + i] = d > 0.0 ? 1.0 / d : 0.0;
    }
  }
  if (bad) atomicMin(&flags->bad_node, a);
}

#define NO_BAD_NODE 0x7f7f7f7f /* bytes 0x7f: set by a memset, larger than any node index */

/* One launch of k_pc_setup over the current tangent; with PC_INVERT, a singular or
 * non-positive block fails with the smallest such node. */
static dt_status pc_launch(dt_cuda *c, int kind, int mode, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *bad = (int *)c->pinned;
  int grid = (c->problem.n_nodes + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK;
  if (mode & PC_INVERT)
    DT_CUDA_CHECK(cudaMemsetAsync(&c->flags->bad_node, 0x7f, sizeof(int), c->stream), ctx);
  k_pc_setup<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(
      c->problem.n_nodes, c->problem.dpn, kind, mode, c->problem.brow_ptr, c->problem.bcol,
      c->lin.val, c->problem.matrix_free ? c->mf.diag : NULL, c->lin.pc, c->flags);
  DT_CUDA_LAUNCH_CHECK("k_pc_setup", c->stream, ctx);
  if (!(mode & PC_INVERT)) goto cleanup;
  DT_TRY(dt_cuda_d2h(c, bad, &c->flags->bad_node, sizeof(int), ctx)); /* 4 bytes */
  DT_CHECK(*bad == NO_BAD_NODE, ctx, DT_ERR_NOT_CONVERGED,
           "the tangent has a singular or non-positive diagonal block at node index %d", *bad);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_pc_setup(void *impl, int kind, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  int keep = (kind & DT_PC_KEEP_COARSE) != 0;
  kind &= ~DT_PC_KEEP_COARSE;
  if (kind == DT_PC_DIRECT) /* the kind in use stays */
    return DT_ERROR(ctx, DT_ERR_UNSUPPORTED,
                    "linear.preconditioner \"direct\" runs on the CPU backend only (solver.backend "
                    "\"cpu\"); on the GPU use \"amg\"");
  c->lin.pc_serial++;      /* the PCG loops capture their launches anew */
  if (kind == DT_PC_AMG) { /* cuda_amg.cu; the kind changes only once it is set up */
    DT_TRY(dt_cuda_amg_setup(c, keep, ctx));
    c->lin.pc_kind = kind;
    goto cleanup;
  }
  c->lin.pc_kind = kind;
  DT_TRY(pc_launch(c, kind, PC_GATHER | PC_INVERT, ctx));
  if (kind == DT_PC_TWO_LEVEL) {
    DT_CHECK(c->coarse.n_sub > 0, ctx, DT_ERR_INTERNAL,
             "two_level preconditioner without a coarse space");
    DT_TRY(dt_cuda_coarse_setup(c, ctx));
  }
cleanup:
  return rc;
}

/* Part ops (backend.h dt_backend_part_ops): block Jacobi's setup in two halves. c->lin.pc holds
 * n_dofs x dpn = n_nodes dpn x dpn doubles (dt_cuda_linear_alloc), one row-major block per
 * node. */
extern "C" dt_status dt_cuda_pc_blocks(void *impl, double **blocks, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  *blocks = NULL;
  DT_TRY(pc_launch(c, DT_PC_BLOCK_JACOBI, PC_GATHER, ctx));
  *blocks = c->lin.pc;
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_pc_blocks_invert(void *impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  c->lin.pc_serial++; /* as pc_setup: the PCG loops capture their launches anew */
  c->lin.pc_kind = DT_PC_BLOCK_JACOBI;
  DT_TRY(pc_launch(c, DT_PC_BLOCK_JACOBI, PC_INVERT, ctx));
cleanup:
  return rc;
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_pc_jacobi(int n, const double *__restrict__ pc, const double *__restrict__ r,
                double *__restrict__ z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = pc[i] * r[i];
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_pc_block(int n_nodes, int dpn, const double *__restrict__ pc, const double *__restrict__ r,
               double *__restrict__ z) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n_nodes) return;
  const double *m = pc + (long)a * dpn * dpn;
  double rl[3];
  for (int j = 0; j < dpn; j++) rl[j] = r[(long)a * dpn + j];
  for (int i = 0; i < dpn; i++) {
    double s = 0.0;
    for (int j = 0; j < dpn; j++) s += m[i * dpn + j] * rl[j];
    z[(long)a * dpn + i] = s;
  }
}

extern "C" dt_status dt_cuda_pc_apply(void *impl, dt_vec_id r, dt_vec_id z, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  if (c->lin.pc_kind == DT_PC_AMG) return dt_cuda_amg_apply(c, r, z, ctx);
  if (c->lin.pc_kind == DT_PC_JACOBI) {
    k_pc_jacobi<<<(c->problem.n_dofs + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK, DT_CUDA_BLOCK, 0,
                  c->stream>>>(c->problem.n_dofs, c->lin.pc, c->state.vec[r], c->state.vec[z]);
    DT_CUDA_LAUNCH_CHECK("k_pc_jacobi", c->stream, ctx);
  } else {
    k_pc_block<<<(c->problem.n_nodes + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK, DT_CUDA_BLOCK, 0,
                 c->stream>>>(c->problem.n_nodes, c->problem.dpn, c->lin.pc, c->state.vec[r],
                              c->state.vec[z]);
    DT_CUDA_LAUNCH_CHECK("k_pc_block", c->stream, ctx);
  }
  if (c->lin.pc_kind == DT_PC_TWO_LEVEL)
    DT_TRY(dt_cuda_coarse_apply(c, c->state.vec[r], c->state.vec[z], NULL, NULL, ctx));
cleanup:
  return rc;
}

/* Benchmark helper (cuda_entry.h). */
extern "C" dt_status dt_cuda_measure(void *impl, double *copy_bw, double *spmv_seconds,
                                     dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  cudaEvent_t t0 = NULL, t1 = NULL;
  void *buf = NULL;
  size_t half = sizeof(double) * (size_t)c->problem.nnz, free_b = 0, total_b = 0;
  float ms = 0.0f, best = 1e30f;
  const int reps = 20;
  *copy_bw = 0.0;
  *spmv_seconds = 0.0;
  DT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b), ctx);
  if (half < ((size_t)256 << 20)) half = (size_t)256 << 20; /* at least 256 MB per copy */
  if (2 * half > free_b / 2) half = free_b / 4;
  DT_CUDA_CHECK(cudaEventCreate(&t0), ctx);
  DT_CUDA_CHECK(cudaEventCreate(&t1), ctx);
  DT_TRY(dt_cuda_alloc(c, &buf, 2 * half, "bandwidth measurement buffer", ctx));
  DT_CUDA_CHECK(cudaMemsetAsync(buf, 0, 2 * half, c->stream), ctx);
  for (int i = 0; i < 6; i++) { /* first one warms up */
    DT_CUDA_CHECK(cudaEventRecord(t0, c->stream), ctx);
    DT_CUDA_CHECK(
        cudaMemcpyAsync((char *)buf + half, buf, half, cudaMemcpyDeviceToDevice, c->stream), ctx);
    DT_CUDA_CHECK(cudaEventRecord(t1, c->stream), ctx);
    DT_CUDA_CHECK(cudaEventSynchronize(t1), ctx);
    DT_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1), ctx);
    if (i > 0 && ms < best) best = ms;
  }
  *copy_bw = 2.0 * (double)half / (best * 1e-3);
  DT_TRY(dt_cuda_spmv(c, DT_VEC_PCG_P, DT_VEC_PCG_Q, ctx)); /* warm-up */
  DT_CUDA_CHECK(cudaEventRecord(t0, c->stream), ctx);
  for (int i = 0; i < reps; i++) DT_TRY(dt_cuda_spmv(c, DT_VEC_PCG_P, DT_VEC_PCG_Q, ctx));
  DT_CUDA_CHECK(cudaEventRecord(t1, c->stream), ctx);
  DT_CUDA_CHECK(cudaEventSynchronize(t1), ctx);
  DT_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1), ctx);
  *spmv_seconds = ms * 1e-3 / reps;
cleanup:
  dt_cuda_free(c, buf);
  if (t0) cudaEventDestroy(t0);
  if (t1) cudaEventDestroy(t1);
  return rc;
}

/* The measure op (solver/backend.h): device name, copy bandwidth, SpMV time, peak memory. */
extern "C" dt_status dt_cuda_measure_op(void *impl, dt_backend_measure *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  size_t peak = c->acct.bytes_peak; /* the job's peak, without the measurement buffer */
  memset(out, 0, sizeof *out);
  snprintf(out->device, sizeof out->device, "%.127s", c->name);
  out->peak_bytes = (double)peak;
  if (c->problem.matrix_free)
    out->spmv_bytes = dt_cuda_mf_spmv_bytes(c);
  else /* BSR: a value per nonzero, a column per block, a block row offset per node, x and y */
    out->spmv_bytes = 8.0 * (double)c->problem.nnz + 4.0 * (double)c->problem.n_blocks +
                      4.0 * (c->problem.n_nodes + 1.0) + 16.0 * (double)c->problem.n_dofs;
  DT_TRY(dt_cuda_measure(impl, &out->copy_bandwidth, &out->spmv_seconds, ctx));
cleanup:
  c->acct.bytes_peak = peak;
  return rc;
}

dt_status dt_cuda_load_linear_kernels(dt_ctx *ctx) {
  const void *k[] = {(const void *)k_dirichlet, (const void *)k_pc_setup, (const void *)k_pc_jacobi,
                     (const void *)k_pc_block};
  return dt_cuda_load_list(k, (int)(sizeof k / sizeof k[0]), NULL, ctx);
}
