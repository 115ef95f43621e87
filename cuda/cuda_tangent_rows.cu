/* The tangent of a mesh of congruent hex8 elements, assembled write-once by block rows on the
 * FP64 tensor cores.
 *
 * When every element is a translated copy of element 0 (a box or voxel mesh), the shape-function
 * gradients g_b^q of each point are constants. With the tangent form of the stress kernel,
 * D = K 1x1 + 2 mu I_dev - gam n x n (cuda_tangent_form.cuh), block (a, b) of element p is
 *   K_p[a,b]_ij = sum over (q, k) of C_p[ij][(q,k)] g_b^q[k],
 *   C_p[ij][(q,k)] = wJ_q [mu d_ik ga_j + (K - 2/3 mu) ga_i d_jk + mu d_ij ga_k - gam (N ga)_i N_jk]
 * (ga = g_a^q, N the flow direction as a 3 x 3 tensor; summed over k this is form_pair's
 * expression). So the blocks of the 8 elements at a node are, for each ij, one 8 x 24 by 24 x 8
 * matrix product: 9 mma.m8n8k4 per step of 4 of the 24 (q, k), 6 steps.
 *
 * A warp per block row: lane 4p + c works for the row's incidence p (element p, its local node
 * a) and that element's points 2c and 2c + 1. The K dimension of the products is ordered by
 * (h, k, c) so that in step (h, k) a lane's A entry is C_p[ij][(2c + h, k)] of its own point and
 * its B entry the constant g_p^(2c+h)[k]: every lane forms only its own values, in registers,
 * and feeds them straight to the mma. The D fragment leaves lane 4p + c with the blocks (p, 2c)
 * and (p, 2c + 1); staged in shared memory, they are summed into the row's blocks with elements
 * in incidence order (ascending: a fixed order, so repeated runs are bit-identical) and the row
 * is written once, contiguously: no colours, no clearing of the values, no read-modify-write.
 * (Nodes with more than 8 elements, coincident copies, keep the colour kernel.) The warps of the
 * grid (as many as fit on the device at once) stride over the rows, loading the next row's
 * indices while one computes.
 *
 * On Kiran's cube C5 this took the assembly from 10.40 ms (colour scatter) to 4.8 ms on an H100
 * and 3.8 ms on an H200 (docs/benchmarks.md, decision table, with the designs tried and the
 * probes behind it). Meshes this path does not serve keep the
 * colour kernel (cuda_elements_coop.cu); why, is in the backend's view. */
#include <math.h>

#include "../solver/element/element_kernel.h"
#include "cuda_internal.h"

#define ROWS_WARPS 4 /* block rows per block of threads */
#ifndef ROWS_MIN_BLOCKS
#define ROWS_MIN_BLOCKS                                                                            \
  4 /* 128 registers, no spill: 16 warps per SM (5 blocks, 96 registers and
                               72 B of spill, measured the same; 3 and 6 slower) */
#endif
#define ROWS_CONGRUENT_TOL 1e-12 /* node offsets agree to this fraction of the element's size */

/* D (2 doubles) += A (1) B (1) for an 8 x 4 by 4 x 8 product, FP64 tensor cores (sm_80 on). */
__device__ __forceinline__ void dmma_8x8x4(double &d0, double &d1, double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
}

/* Device pointers of the kernel, by value. */
typedef struct rows_args {
  int n_nodes;
  int any_kin; /* a material with kinematic hardening: read the back stress where its elements are */
  long stride; /* n_qp */
  const int *inc_ptr, *inc, *brow_ptr, *elem_pos, *elem_mat;
  const dt_material_params *mats;
  const double *tan_t, *sig_t, *hist_t;
  const double *G; /* [b][q][k]: g_b^q of the class, then wJ[q] (DT_CUDA_ROWS_CONST_DOUBLES) */
  double *val;
} rows_args;

/* dt_j2_flow_direction with one reciprocal square root for its 1 / |xi|: FP64 sqrt and division
 * are each a multi-instruction sequence with a slow path, and the block rows form every point's
 * n once per row of its element (8 times). Kept apart from the shared function because the colour
 * kernel's results (and the jobs whose convergence is decided at the last bit, such as the GPU
 * daemon test's collapsing job) stay as they were; agrees with it to rounding. */
__device__ __forceinline__ void rows_flow_direction(const double sig[6], const double beta[6],
                                                    double n[6]) {
  double xi[6];
  dt_voigt_dev(sig, xi);
#pragma unroll
  for (int k = 0; k < 6; k++) xi[k] -= beta[k];
  double ss = dt_voigt_ddot(xi, xi), inv = ss > 0.0 ? rsqrt(ss) : 0.0;
#pragma unroll
  for (int k = 0; k < 6; k++) n[k] = xi[k] * inv;
}

/* One point of a row's element, what its column of C is formed from (all scaled by wJ):
 * mu g_a, (K - 2/3 mu) g_a, gam N g_a and the flow direction n. */
struct rows_point {
  double mga[3], kga[3], u[3], n[6];
};

__device__ __forceinline__ void rows_point_form(const rows_args &r, long e, int a, int q, int kin,
                                                const double raw[9], rows_point &P) {
  const double *wJ = r.G + 8 * 8 * 3, *ga = r.G + (a * 8 + q) * 3;
  double K = raw[0], mu = raw[1], gam = raw[2];
  for (int k = 0; k < 6; k++) P.n[k] = 0.0;
  if (gam != 0.0) { /* plastic: n from the trial stress and back stress, as form_points */
    double beta[6] = {0, 0, 0, 0, 0, 0};
    if (kin)
      for (int k = 0; k < 6; k++) beta[k] = r.hist_t[(DT_HIST_BETA + k) * r.stride + e * 8 + q];
    rows_flow_direction(raw + 3, beta, P.n);
  }
  const double *n = P.n;
  double m = wJ[q] * mu, kk = wJ[q] * (K - 2.0 / 3.0 * mu),
         gg = wJ[q] * gam; /* 0 past the row's incidences */
  for (int k = 0; k < 3; k++) P.mga[k] = m * ga[k], P.kga[k] = kk * ga[k];
  P.u[0] = gg * (n[0] * ga[0] + n[3] * ga[1] + n[4] * ga[2]);
  P.u[1] = gg * (n[3] * ga[0] + n[1] * ga[1] + n[5] * ga[2]);
  P.u[2] = gg * (n[4] * ga[0] + n[5] * ga[1] + n[2] * ga[2]);
}

/* C[ij][(q, k)] of the point: wJ [mu d_ik ga_j + (K - 2/3 mu) ga_i d_jk + mu d_ij ga_k - gam (N ga)_i N_jk] */
__device__ __forceinline__ double rows_cv(const rows_point &P, int ii, int jj, int k) {
  const int vo[3][3] = {
      {0, 3, 4}, {3, 1, 5}, {4, 5, 2}}; /* N_jk in Voigt order xx yy zz xy xz yz */
  double cv = -P.u[ii] * P.n[vo[jj][k]];
  if (ii == k) cv += P.mga[jj];
  if (jj == k) cv += P.kga[ii];
  if (ii == jj) cv += P.mga[k];
  return cv;
}

/* The chunk's blocks are staged value-major, [v][block], so that a lane stores its two blocks
 * (p, 2c), (p, 2c + 1) with one 16-byte store per value, the warp's stores contiguous. Block
 * p * 8 + b; the zero blocks 64 and 72 (added for a rank the pair lacks) sit in the half of the
 * banks the 8 blocks of pair pp do not use (pp odd: 64, even: 72), so the reads never conflict.
 * A value's row: 64 blocks, zero, pad, zero, pad (an even count, for 16-byte stores). */
#define ROWS_STAGE 74

/* The blocks of one chunk (the row's incidences, at most 8, lane 4p + c for incidence p and its
 * points 2c, 2c + 1), staged: lane 4p + c stores blocks (p, 2c) and (p, 2c + 1), value v (column-
 * major, as dt_bsr_block) at stage[v * ROWS_STAGE + p * 8 + 2c]. The products run over 9 ij and
 * 6 steps (h, k) of m8n8k4, the K dimension ordered so that in step (h, k) the A entry of lane
 * 4p + c is its own point's C_p[ij][(2c + h, k)] and its B entry the constant g_p^(2c+h)[k]: no
 * lane needs another's values. */
__device__ __forceinline__ void rows_chunk_stage(const rows_args &r, int ent, int p, int c,
                                                 const double raw[2][9], double *stage) {
  int valid = ent >= 0, a = ent & 7; /* ent = e * 8 + a, -1 past the row's incidences */
  long e = ent >> 3;
  double *dst = stage + p * 8 + 2 * c;
  int kin = r.any_kin && valid && r.mats[r.elem_mat[e]].H_kin != 0.0;
  double acc[9][2];
#pragma unroll
  for (int v = 0; v < 9; v++) acc[v][0] = acc[v][1] = 0.0;
#pragma unroll
  for (int h = 0; h < 2; h++) {
    int q = 2 * c + h;
    rows_point P;
    rows_point_form(r, e, a, q, kin, raw[h], P);
#pragma unroll
    for (int k = 0; k < 3; k++) {
      double b = r.G[(p * 8 + q) * 3 + k]; /* B fragment: row (q, k) of the step, column p */
#pragma unroll
      for (int ii = 0; ii < 3; ii++)
#pragma unroll
        for (int jj = 0; jj < 3; jj++)
          dmma_8x8x4(acc[ii * 3 + jj][0], acc[ii * 3 + jj][1], rows_cv(P, ii, jj, k), b);
    }
  }
#pragma unroll
  for (int jj = 0; jj < 3; jj++)
#pragma unroll
    for (int ii = 0; ii < 3; ii++)
      *(double2 *)(dst + (jj * 3 + ii) * ROWS_STAGE) =
          make_double2(acc[ii * 3 + jj][0], acc[ii * 3 + jj][1]);
}

/* The state of a lane's two points, in registers, and the ranks of its pair's nodes. */
struct rows_state {
  double raw[2][9]; /* [h]: K, mu, gam, then the trial stress, of point 2c + h */
  int2 rank;
};

/* Loads the chunk's state (one element type: the element's positions start at e * 64). The
 * lane's two points are adjacent: one 16-byte load per component, the 4 lanes of an element
 * reading its 64 contiguous bytes. */
__device__ __forceinline__ void rows_load(const rows_args &r, int ent, int c, rows_state &S) {
  int valid = ent >= 0;
  long e = ent >> 3, a = ent & 7,
       qp = e * 8 + 2 * c; /* even: n_qp = 8 n_elems keeps it 16-byte aligned */
  S.rank = valid ? *(const int2 *)(r.elem_pos + e * 64 + a * 8 + 2 * c) : make_int2(0, 0);
#pragma unroll
  for (int k = 0; k < 9; k++) {
    double2 v =
        valid ? *(const double2 *)((k < 3 ? r.tan_t + k * r.stride : r.sig_t + (k - 3) * r.stride) +
                                   qp)
              : make_double2(0.0, 0.0);
    S.raw[0][k] = v.x, S.raw[1][k] = v.y;
  }
}

/* The chunk of a row (its incidences, ent for lane 4p + c's incidence p, its state in S) summed
 * into the row's blocks: lane T holds block T in out. */
__device__ __forceinline__ void rows_chunk(const rows_args &r, int ent, int T, const rows_state &S,
                                           double *stage, long long *col, double out[9]) {
  int p = T >> 2, c = T & 3;
  rows_chunk_stage(r, ent, p, c, S.raw, stage);
  /* each pair's node at each rank of the row; then lane T adds block T of the pairs in order
   * (elements ascending: the same bits on every run), a pair without that rank adding a zero block */
  if (T < 18)
    stage[(T >> 1) * ROWS_STAGE + 64 + 8 * (T & 1)] = 0.0; /* (the row buffer overlays them) */
  col[T] = -1;
  __syncwarp();
  if (ent >= 0) {
    ((signed char *)&col[S.rank.x])[p] = (signed char)(2 * c);
    ((signed char *)&col[S.rank.y])[p] = (signed char)(2 * c + 1);
  }
  __syncwarp();
  long long mine = col[T];
#pragma unroll
  for (int pp = 0; pp < 8; pp++) {
    int b = (signed char)(mine >> (8 * pp)), blk = b >= 0 ? pp * 8 + b : (pp & 1 ? 64 : 72);
#pragma unroll
    for (int v = 0; v < 9; v++) out[v] += stage[v * ROWS_STAGE + blk];
  }
  __syncwarp();
}

/* A row's indices: its incidences from i0 (cnt of them), its blocks from b0 (nb), and this lane's
 * incidence (-1 past cnt). */
struct rows_index {
  int i, i0, cnt, b0, nb, ent;
};

__device__ __forceinline__ void rows_index_load(const rows_args &r, int i, rows_index &x) {
  x.i = i;
  if (i < r.n_nodes)
    x.i0 = r.inc_ptr[i], x.cnt = r.inc_ptr[i + 1] - x.i0, x.b0 = r.brow_ptr[i],
    x.nb = r.brow_ptr[i + 1] - x.b0;
  else
    x.i0 = x.cnt = x.b0 = x.nb = 0;
  x.ent = -1;
}

/* A warp per block row, the warps of the grid (as many as fit at once) striding over the rows:
 * the next row's indices are loaded while a row computes, so a row waits for memory once, for
 * its state. */
__global__ void __launch_bounds__(32 * ROWS_WARPS, ROWS_MIN_BLOCKS) k_tangent_rows(rows_args r) {
  __shared__ __align__(
      16) double Cs[ROWS_WARPS][9 * ROWS_STAGE]; /* [warp]: the chunk's blocks; the row */
  __shared__ long long col[ROWS_WARPS]
                          [32]; /* [rank]: byte p, pair p's node at that rank (-1: none) */
  int w = threadIdx.x >> 5, T = threadIdx.x & 31, p = T >> 2;
  int stride = gridDim.x * ROWS_WARPS;
  rows_index x, y; /* this row, the next */
  rows_index_load(r, blockIdx.x * ROWS_WARPS + w, x);
  if (x.i >= r.n_nodes) return; /* whole warps leave: no block-wide barrier below */
  double *stage = Cs[w];
  x.ent = p < x.cnt ? r.inc[x.i0 + p] : -1;
  for (;;) {
    rows_index_load(r, x.i + stride, y); /* the next row's indices while this one computes */
    double out[9] = {0, 0, 0, 0, 0,
                     0, 0, 0, 0}; /* block T of the row (in registers: row sums in
                                                   shared memory took L1 from the state loads: C5
                                                   5.4 -> 6.4 ms on the H100) */
    rows_state S;                 /* a node has at most 8 elements (rows_applicable): one chunk */
    rows_load(r, x.ent, T & 3, S);
    rows_chunk(r, x.ent, T, S, stage, col[w], out);
    if (y.i < r.n_nodes) y.ent = p < y.cnt ? r.inc[y.i0 + p] : -1;
    /* the row through shared memory, consecutive lanes on consecutive values */
    if (T < x.nb)
#pragma unroll
      for (int v = 0; v < 9; v++) stage[T * 9 + v] = out[v];
    __syncwarp();
    for (int v = T; v < x.nb * 9; v += 32) r.val[(long)x.b0 * 9 + v] = stage[v];
    __syncwarp();
    if (y.i >= r.n_nodes) break;
    x = y;
  }
}

dt_status dt_cuda_load_rows_kernels(dt_ctx *ctx) {
  const void *k[] = {(const void *)k_tangent_rows};
  return dt_cuda_load_list(k, 1, NULL, ctx);
}

/* Whether the mesh is served (else why not, in why): one class of congruent hex8 elements, the
 * tangent form, no B-bar, rows of at most 32 blocks, tensor cores. */
static int rows_applicable(const dt_cuda *c, const dt_problem *pb, dt_cuda_tangent tangent,
                           char *why, size_t len) {
  if (tangent == DT_CUDA_TANGENT_COLOUR)
    return snprintf(why, len, "solver.backend_options.tangent is \"colour\""), 0;
  if (c->cc_major < 8)
    return snprintf(why, len, "no FP64 tensor cores (sm_%d%d)", c->cc_major, c->cc_minor), 0;
  if (c->problem.uniform_type != DT_HEX8 || pb->dim != 3)
    return snprintf(why, len, "not a mesh of hex8 elements only"), 0;
  if (pb->n_qp != 8 * pb->n_elems)
    return snprintf(why, len, "not 8 points per element"), 0; /* point e * 8 + q */
  if (c->problem.el_variants & DT_CUDA_EL_D)
    return snprintf(why, len, "a material tangent outside the tangent form"), 0;
  if (c->problem.el_variants & DT_CUDA_EL_SIMPLE) /* the simple kernels store no tangent form */
    return snprintf(why, len, "solver.backend_options.elements is \"simple\""), 0;
  for (int k = 0; k < pb->n_nodes; k++) {
    if (pb->node_nbr_ptr[k + 1] - pb->node_nbr_ptr[k] > 32)
      return snprintf(why, len, "node %d has more than 32 neighbours", k), 0;
    if (pb->node_elem_ptr[k + 1] - pb->node_elem_ptr[k] >
        8) /* a warp's 8 incidences; only coincident
                                                               copies give a box node more */
      return snprintf(why, len, "node %d has more than 8 elements", k), 0;
  }
  const int *c0 = pb->conn;
  double size = 0.0;
  for (int a = 1; a < 8; a++)
    for (int k = 0; k < 3; k++)
      size = fmax(size, fabs(pb->x[c0[a] * 3 + k] - pb->x[c0[0] * 3 + k]));
  for (int e = 0; e < pb->n_elems; e++) {
    const int *ce = pb->conn + 8 * (size_t)e;
    if (pb->elem_bbar[e]) return snprintf(why, len, "element %d uses B-bar", e), 0;
    if (pb->elem_pos_ptr[e] !=
        64 * (int64_t)e) /* the kernel finds an element's positions at e * 64 */
      return snprintf(why, len, "element %d's block positions are not at 64 e", e), 0;
    for (int a = 1; a < 8; a++)
      for (int k = 0; k < 3; k++) {
        double de = pb->x[ce[a] * 3 + k] - pb->x[ce[0] * 3 + k],
               d0 = pb->x[c0[a] * 3 + k] - pb->x[c0[0] * 3 + k];
        if (!(fabs(de - d0) <= ROWS_CONGRUENT_TOL * size))
          return snprintf(why, len, "element %d is not a translated copy of element 0", e), 0;
      }
  }
  return 1;
}

dt_status dt_cuda_rows_setup(dt_cuda *c, const dt_problem *pb, dt_cuda_tangent tangent,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double h[DT_CUDA_ROWS_CONST_DOUBLES], X[24];
  int per_sm = 0;
  long blocks, resident;
  if (pb->matrix_free || !rows_applicable(c, pb, tangent, c->rows.why, sizeof c->rows.why))
    goto cleanup;
  /* the class constants from element 0, with the element code's shape functions and rule */
  for (int a = 0; a < 8; a++)
    for (int k = 0; k < 3; k++) X[a * 3 + k] = pb->x[pb->conn[a] * 3 + k];
  for (int q = 0; q < 8; q++) {
    double xi[3], w, N[8], dN[24], dNdx[24];
    dt_elem_qp(DT_HEX8, q, xi, &w);
    dt_elem_shape(DT_HEX8, xi, N, dN);
    double detJ = dt_elem_gradients(DT_HEX8, X, dN, dNdx);
    DT_CHECK(detJ > 0.0, ctx, DT_ERR_INPUT, "element 0 has a non-positive Jacobian at point %d",
             q + 1);
    for (int b = 0; b < 8; b++)
      for (int k = 0; k < 3; k++) h[(b * 8 + q) * 3 + k] = dNdx[b * 3 + k];
    h[8 * 8 * 3 + q] = w * detJ * pb->elem_thick[0];
  }
  for (int i = 0; i < pb->n_mats; i++) c->rows.any_kin |= pb->mats[i].H_kin != 0.0;
  /* as many blocks as are resident at once, each warp striding over the rows (fewer for small
   * meshes: one warp per row) */
  DT_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_tangent_rows, 32 * ROWS_WARPS, 0),
      ctx);
  blocks = (pb->n_nodes + ROWS_WARPS - 1) / ROWS_WARPS,
  resident = (long)(per_sm > 0 ? per_sm : 1) * c->sm_count;
  c->rows.grid = (int)(blocks < resident ? blocks : resident);
  DT_TRY(dt_cuda_alloc(c, (void **)&c->rows.G, sizeof h, "tangent row constants", ctx));
  DT_TRY(dt_cuda_h2d(c, c->rows.G, h, sizeof h, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_rows_assemble(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_cuda_problem *p = &c->problem;
  rows_args r = {p->n_nodes,     c->rows.any_kin, (long)p->n_qp, p->node_inc_ptr, p->node_inc,
                 p->brow_ptr,    p->elem_pos,     p->elem_mat,   p->mats,         c->state.tan_t,
                 c->state.sig_t, c->state.hist_t, c->rows.G,     c->lin.val};
  k_tangent_rows<<<c->rows.grid, 32 * ROWS_WARPS, 0, c->stream>>>(r);
  DT_CUDA_LAUNCH_CHECK("k_tangent_rows", c->stream, ctx);
cleanup:
  return rc;
}
