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
 * a), c = 0..3. Per half of the points, each lane forms C for its point c + 4h into shared
 * memory where the lane that feeds it to the mma reads it (A fragment: row p, column c of the
 * step), the B fragment is the constant g_p^q[k] (column p is the element's node p), and the D
 * fragment leaves lane 4p + c with the blocks (p, 2c) and (p, 2c + 1). The blocks are then summed
 * into the row's blocks with elements in incidence order (ascending: a fixed order, so repeated
 * runs are bit-identical) and the row is written once, contiguously: no colours, no clearing of
 * the values, no read-modify-write. Nodes with more than 8 elements take several chunks.
 *
 * On Kiran's cube C5 this took the assembly from 10.40 ms (colour scatter) to about 4.7 ms on
 * an H100 (docs/benchmarks.md, "The assembly target"; the probe is docs/bench/probe_tangent_gather.cu).
 * Meshes this path does not serve keep the colour kernel (cuda_elements_coop.cu); why, is in
 * the backend's view. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../solver/element/element_kernel.h"
#include "cuda_impl.h"

#define ROWS_WARPS 4        /* block rows per block of threads */
#ifndef ROWS_MIN_BLOCKS
#define ROWS_MIN_BLOCKS 5   /* 96 registers: 20 warps per SM (measured best of 4, 5, 6) */
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
  const int64_t *elem_pos_ptr;
  const dt_material_params *mats;
  const double *tan_t, *sig_t, *hist_t;
  const double *G; /* [b][q][k]: g_b^q of the class, then wJ[q] (DT_CUDA_ROWS_CONST_DOUBLES) */
  double *val;
} rows_args;

__global__ void __launch_bounds__(32 * ROWS_WARPS, ROWS_MIN_BLOCKS) k_tangent_rows(rows_args r) {
  __shared__ double Cs[ROWS_WARPS][3][9][32];   /* [warp][step][ij][lane]: A fragments, then the blocks, the row */
  __shared__ signed char col[ROWS_WARPS][8][32]; /* [pair][rank]: the pair's node at that rank, -1: none */
  const double *wJ = r.G + 8 * 8 * 3;
  int w = threadIdx.x >> 5, T = threadIdx.x & 31, p = T >> 2, c = T & 3;
  int i = blockIdx.x * ROWS_WARPS + w;
  if (i >= r.n_nodes) return; /* whole warps leave: no block-wide barrier below */
  int i0 = r.inc_ptr[i], cnt = r.inc_ptr[i + 1] - i0;
  double out[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}; /* block T of the row, summed over the chunks (in
                                                 registers: row sums in shared memory, 8 kB more per
                                                 block, took L1 from the state loads: C5 5.4 -> 6.4 ms) */
  for (int ch = 0; ch < cnt; ch += 8) {
    int valid = ch + p < cnt, e = 0, a = 0;
    if (valid) e = r.inc[i0 + ch + p] >> 3, a = r.inc[i0 + ch + p] & 7; /* e * 8 + a */
    /* the raw state of both points first: one wait for memory per chunk */
    double raw[2][9];
#pragma unroll
    for (int h = 0; h < 2; h++) {
      long qp = (long)e * 8 + c + 4 * h;
#pragma unroll
      for (int k = 0; k < 3; k++) raw[h][k] = valid ? r.tan_t[k * r.stride + qp] : 0.0;
#pragma unroll
      for (int k = 0; k < 6; k++) raw[h][3 + k] = valid ? r.sig_t[k * r.stride + qp] : 0.0;
    }
    int kin = r.any_kin && valid && r.mats[r.elem_mat[e]].H_kin != 0.0;
    double acc[9][2];
#pragma unroll
    for (int v = 0; v < 9; v++) acc[v][0] = acc[v][1] = 0.0;
#pragma unroll
    for (int h = 0; h < 2; h++) {
      /* 1. point q = c + 4h of element p: its column of C, for steps 3h .. 3h + 2 */
      int q = c + 4 * h;
      double K = raw[h][0], mu = raw[h][1], gam = raw[h][2], n[6] = {0, 0, 0, 0, 0, 0};
      if (gam != 0.0) { /* plastic: n from the trial stress and back stress, as form_points */
        double beta[6] = {0, 0, 0, 0, 0, 0};
        if (kin)
          for (int k = 0; k < 6; k++) beta[k] = r.hist_t[(7 + k) * r.stride + (long)e * 8 + q];
        dt_j2_flow_direction(&raw[h][3], beta, n);
      }
      const double *ga = r.G + (a * 8 + q) * 3;
      double m = wJ[q] * mu, kk = wJ[q] * (K - 2.0 / 3.0 * mu), gg = wJ[q] * gam;
      double mga[3] = {m * ga[0], m * ga[1], m * ga[2]}, kga[3] = {kk * ga[0], kk * ga[1], kk * ga[2]};
      double u[3] = {gg * (n[0] * ga[0] + n[3] * ga[1] + n[4] * ga[2]), gg * (n[3] * ga[0] + n[1] * ga[1] + n[5] * ga[2]),
                     gg * (n[4] * ga[0] + n[5] * ga[1] + n[2] * ga[2])};
      double N[3][3] = {{n[0], n[3], n[4]}, {n[3], n[1], n[5]}, {n[4], n[5], n[2]}}; /* xx yy zz xy xz yz */
#pragma unroll
      for (int k = 0; k < 3; k++) {
        int idx = 3 * q + k, slot = 4 * p + (idx & 3); /* column idx: step idx / 4, lane slot */
#pragma unroll
        for (int ii = 0; ii < 3; ii++)
#pragma unroll
          for (int jj = 0; jj < 3; jj++) {
            double cv = -u[ii] * N[jj][k];
            if (ii == k) cv += mga[jj];
            if (jj == k) cv += kga[ii];
            if (ii == jj) cv += mga[k];
            Cs[w][(idx >> 2) - 3 * h][ii * 3 + jj][slot] = valid ? cv : 0.0;
          }
      }
      __syncwarp();
      /* 2. this half's steps of the products */
#pragma unroll
      for (int s = 0; s < 3; s++) {
        int idx = 4 * (3 * h + s) + c, q2 = idx / 3, k2 = idx - 3 * q2;
        double b = r.G[(p * 8 + q2) * 3 + k2]; /* B fragment: row idx, column p */
#pragma unroll
        for (int v = 0; v < 9; v++) dmma_8x8x4(acc[v][0], acc[v][1], Cs[w][s][v][T], b);
      }
      __syncwarp();
    }
    /* 3. the blocks staged over the dead fragments (column-major, as dt_bsr_block), and each
     * pair's node at each rank of the row; then lane T sums block T over the pairs in order */
    double *stage = &Cs[w][0][0][0];
#pragma unroll
    for (int ii = 0; ii < 3; ii++)
#pragma unroll
      for (int jj = 0; jj < 3; jj++) {
        stage[(p * 8 + 2 * c) * 9 + jj * 3 + ii] = acc[ii * 3 + jj][0];
        stage[(p * 8 + 2 * c + 1) * 9 + jj * 3 + ii] = acc[ii * 3 + jj][1];
      }
    for (int pp = 0; pp < 8; pp++) col[w][pp][T] = -1;
    __syncwarp();
    if (valid) {
      const int *pos = r.elem_pos + r.elem_pos_ptr[e] + a * 8;
      col[w][p][pos[2 * c]] = (signed char)(2 * c);
      col[w][p][pos[2 * c + 1]] = (signed char)(2 * c + 1);
    }
    __syncwarp();
    for (int pp = 0; pp < 8; pp++) {
      int b = col[w][pp][T];
      if (b >= 0)
#pragma unroll
        for (int v = 0; v < 9; v++) out[v] += stage[(pp * 8 + b) * 9 + v];
    }
    __syncwarp();
  }
  /* 4. the row through shared memory, consecutive lanes on consecutive values */
  int b0 = r.brow_ptr[i], nb = r.brow_ptr[i + 1] - b0;
  double *row = &Cs[w][0][0][0];
  if (T < nb)
#pragma unroll
    for (int v = 0; v < 9; v++) row[T * 9 + v] = out[v];
  __syncwarp();
  for (int v = T; v < nb * 9; v += 32) r.val[(long)b0 * 9 + v] = row[v];
}

dt_status dt_cuda_load_rows_kernels(dt_ctx *ctx) {
  const void *k[] = {(const void *)k_tangent_rows};
  return dt_cuda_load_list(k, 1, NULL, ctx);
}

/* Whether the mesh is served (else why not, in why): one class of congruent hex8 elements, the
 * tangent form, no B-bar, rows of at most 32 blocks, tensor cores. */
static int rows_applicable(const dt_cuda *c, const dt_problem *pb, char *why, size_t len) {
  const char *env = getenv("DUCTILE_CUDA_TANGENT");
  if (env && strcmp(env, "colour") == 0) return snprintf(why, len, "DUCTILE_CUDA_TANGENT=colour"), 0;
  if (c->cc_major < 8) return snprintf(why, len, "no FP64 tensor cores (sm_%d%d)", c->cc_major, c->cc_minor), 0;
  if (c->uniform_type != DT_HEX8 || pb->dim != 3) return snprintf(why, len, "not a mesh of hex8 elements only"), 0;
  if (pb->n_qp != 8 * pb->n_elems) return snprintf(why, len, "not 8 points per element"), 0; /* point e * 8 + q */
  if (c->el_variants & DT_CUDA_EL_D) return snprintf(why, len, "a material tangent outside the tangent form"), 0;
  const char *elements = getenv("DUCTILE_CUDA_ELEMENTS"); /* the simple kernels store no tangent form */
  if (elements && strcmp(elements, "simple") == 0) return snprintf(why, len, "DUCTILE_CUDA_ELEMENTS=simple"), 0;
  for (int k = 0; k < pb->n_nodes; k++)
    if (pb->node_nbr_ptr[k + 1] - pb->node_nbr_ptr[k] > 32)
      return snprintf(why, len, "node %d has more than 32 neighbours", k), 0;
  const int *c0 = pb->conn;
  double size = 0.0;
  for (int a = 1; a < 8; a++)
    for (int k = 0; k < 3; k++) size = fmax(size, fabs(pb->x[c0[a] * 3 + k] - pb->x[c0[0] * 3 + k]));
  for (int e = 0; e < pb->n_elems; e++) {
    const int *ce = pb->conn + 8 * (size_t)e;
    if (pb->elem_bbar[e]) return snprintf(why, len, "element %d uses B-bar", e), 0;
    for (int a = 1; a < 8; a++)
      for (int k = 0; k < 3; k++) {
        double de = pb->x[ce[a] * 3 + k] - pb->x[ce[0] * 3 + k], d0 = pb->x[c0[a] * 3 + k] - pb->x[c0[0] * 3 + k];
        if (!(fabs(de - d0) <= ROWS_CONGRUENT_TOL * size))
          return snprintf(why, len, "element %d is not a translated copy of element 0", e), 0;
      }
  }
  return 1;
}

dt_status dt_cuda_rows_setup(dt_cuda *c, const dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double h[DT_CUDA_ROWS_CONST_DOUBLES], X[24];
  if (pb->matrix_free || !rows_applicable(c, pb, c->rows_why, sizeof c->rows_why)) goto cleanup;
  /* the class constants from element 0, with the element code's shape functions and rule */
  for (int a = 0; a < 8; a++)
    for (int k = 0; k < 3; k++) X[a * 3 + k] = pb->x[pb->conn[a] * 3 + k];
  for (int q = 0; q < 8; q++) {
    double xi[3], w, N[8], dN[24], dNdx[24];
    dt_elem_qp(DT_HEX8, q, xi, &w);
    dt_elem_shape(DT_HEX8, xi, N, dN);
    double detJ = dt_elem_gradients(DT_HEX8, X, dN, dNdx);
    DT_CHECK(detJ > 0.0, ctx, DT_ERR_INPUT, "element 0 has a non-positive Jacobian at point %d", q + 1);
    for (int b = 0; b < 8; b++)
      for (int k = 0; k < 3; k++) h[(b * 8 + q) * 3 + k] = dNdx[b * 3 + k];
    h[8 * 8 * 3 + q] = w * detJ * pb->elem_thick[0];
  }
  for (int i = 0; i < pb->n_mats; i++) c->rows_any_kin |= pb->mats[i].H_kin != 0.0;
  DT_TRY(dt_cuda_alloc(c, (void **)&c->rows_G, sizeof h, "tangent row constants", ctx));
  DT_TRY(dt_cuda_h2d(c, c->rows_G, h, sizeof h, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_rows_assemble(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  rows_args r = {c->n_nodes, c->rows_any_kin, (long)c->n_qp, c->node_inc_ptr, c->node_inc, c->brow_ptr, c->elem_pos, c->elem_mat,
                 c->elem_pos_ptr, c->mats, c->tan_t, c->sig_t, c->hist_t, c->rows_G, c->val};
  k_tangent_rows<<<(c->n_nodes + ROWS_WARPS - 1) / ROWS_WARPS, 32 * ROWS_WARPS, 0, c->stream>>>(r);
  DT_CUDA_LAUNCH_CHECK("k_tangent_rows", c->stream, ctx);
cleanup:
  return rc;
}
