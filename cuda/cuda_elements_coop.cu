/* Cooperative element kernels for meshes of one element type (the common case).
 *
 * The one-thread-per-element kernels (cuda_elements.cu) keep a whole Ke (24 x 24 for hex8) in
 * per-thread local memory: 255 registers, a large stack, one block per SM. Here the work of an
 * element is split over T threads and staged in shared memory:
 *   1. node threads gather coordinates and displacements;
 *   2. point threads compute dN/dx and w det J (dt_elem_shape/gradients), node-component
 *      threads the B-bar averages;
 *   3. point threads compute eps = B u and call dt_material_update_form (the shared J2 code)
 *      (stress kernel; it also stores the tangent form of every point, 9 numbers, for the
 *      tangent kernel of the same iteration);
 *   tangent: 3. point threads read the form, (point, node) threads prepare its terms, and
 *               node-pair threads form K_AB (cuda_tangent_form.cuh) in shared memory;
 *            4. all threads add the element's blocks to the tangent (dt_bsr_block) at the
 *               element's precomputed positions, consecutive threads on consecutive values;
 *   stress:  4. node-component threads form f_a,i = sum_q (B_a^T sig_q)_i w det J t and add it.
 * Elements of one launch share a colour, so the += scatters are race-free and run in the same
 * order every time; sums inside an element run in a fixed order: results are bit-identical
 * from run to run. B comes from dt_elem_bnode, the routine dt_elem_bmatrix uses. */
#include <limits.h>

#include "../solver/element/element_kernel.h"
#include "cuda_impl.h"
#include "cuda_coop.h"
#include "cuda_tangent_form.cuh"

/* Blocks per SM the tangent kernel is compiled for: 8 caps it at 64 registers (hex8 then
 * spills a little in the point geometry, but 8 blocks per SM beat 5 at 94 registers). */
#ifndef DT_TANGENT_MIN_BLOCKS
#define DT_TANGENT_MIN_BLOCKS 8
#endif

template <int TYPE> struct coop_str_elem {
  coop_elem<TYPE> g;
  double sig[coop_shape<TYPE>::NQP][6];
};

/* Step 3 for point q: strain, return mapping from the committed history; with store, the
 * trial history, stress, strain and the tangent form of the point are written. */
template <int TYPE>
__device__ __forceinline__ int coop_material(const dt_coop_args &a, int e, int q,
                                             const coop_elem<TYPE> &g, double *sig, int store) {
  typedef coop_shape<TYPE> S;
  const double *bbar = a.elem_bbar[e] ? g.bbar : (const double *)0;
  double eps[6] = {0, 0, 0, 0, 0, 0}, Bn[18];
  dt_mat_state old_s, new_s;
  dt_tangent_form tf;
  long qp = a.qp_ptr[e] + q;
  for (int A = 0; A < S::NPE; A++) { /* eps = sum_A B_A u_A */
    dt_elem_bnode(S::DIM, g.dNdx[q] + A * 3, bbar ? bbar + A * 3 : bbar, Bn);
    for (int r = 0; r < 6; r++)
      for (int j = 0; j < S::DIM; j++) eps[r] += Bn[r * 3 + j] * g.ue[A * 3 + j];
  }
  dt_hist_load(a.hist_c, a.stride, qp, &old_s);
  int res = dt_material_update_form(&a.mats[a.elem_mat[e]], a.elem_state[e], eps, &old_s, &new_s, sig,
                                    (double *)0, &tf);
  if (store && res != DT_MAT_NO_CONVERGENCE) {
    dt_hist_store(a.hist_t, a.stride, qp, &new_s);
    for (int k = 0; k < 6; k++) {
      a.sig_t[k * a.stride + qp] = sig[k];
      a.eps_t[k * a.stride + qp] = eps[k];
    }
    /* the consistent tangent of this trial state, for the tangent kernels of this iteration:
     * 9 numbers (dt_tangent_form) instead of the 36 of D */
    a.tan_t[0 * a.stride + qp] = tf.K;
    a.tan_t[1 * a.stride + qp] = tf.mu;
    a.tan_t[2 * a.stride + qp] = tf.gam;
    for (int k = 0; k < 6; k++) a.tan_t[(3 + k) * a.stride + qp] = tf.n[k];
  }
  return res;
}

template <int TYPE>
__global__ void __launch_bounds__(coop_shape<TYPE>::EPB_STR * coop_shape<TYPE>::T_STR)
k_stress_coop(dt_coop_args a, const int *__restrict__ elems, int n) {
  typedef coop_shape<TYPE> S;
  __shared__ coop_str_elem<TYPE> sh[S::EPB_STR];
  __shared__ int plastic;
  int le = threadIdx.x / S::T_STR, t = threadIdx.x % S::T_STR;
  int k = blockIdx.x * S::EPB_STR + le, valid = le < S::EPB_STR && k < n;
  int e = valid ? elems[k] : 0;
  coop_str_elem<TYPE> &me = sh[le < S::EPB_STR ? le : 0];
  if (threadIdx.x == 0) plastic = 0;
  if (valid && t == 0) me.g.failed = 0;
  coop_geometry<TYPE, S::T_STR>(a, e, valid, t, me.g);
  for (int q = t; valid && q < S::NQP; q += S::T_STR) {
    int res = coop_material<TYPE>(a, e, q, me.g, me.sig[q], 1);
    double wt = me.g.dv[q] * a.elem_thick[e];
    for (int r = 0; r < 6; r++) me.sig[q][r] *= wt; /* sig w det J t */
    if (res == DT_MAT_NO_CONVERGENCE) {
      me.g.failed = 1;
      atomicAdd(&a.flags->n_failed, 1);
      atomicMin(&a.flags->first_failed, e);
    } else if (res == DT_MAT_PLASTIC)
      atomicAdd(&plastic, 1);
  }
  __syncthreads();
  const double *bbar = valid && a.elem_bbar[e] ? me.g.bbar : (const double *)0;
  for (int A = t; valid && !me.g.failed && A < S::NPE; A += S::T_STR) { /* f_A = sum_q B_A^T sig_q */
    double Bn[18], f[3] = {0.0, 0.0, 0.0};
    for (int q = 0; q < S::NQP; q++) {
      dt_elem_bnode(S::DIM, me.g.dNdx[q] + A * 3, bbar ? bbar + A * 3 : bbar, Bn);
      for (int i = 0; i < S::DIM; i++)
        for (int r = 0; r < 6; r++) f[i] += Bn[r * 3 + i] * me.sig[q][r];
    }
    double *out = a.out + (long)a.conn[a.elem_ptr[e] + A] * S::DIM, old[S::DIM];
    for (int i = 0; i < S::DIM; i++) old[i] = out[i]; /* loads first: they overlap */
    for (int i = 0; i < S::DIM; i++) out[i] = old[i] + f[i];
  }
  __syncthreads();
  if (threadIdx.x == 0 && plastic) atomicAdd(&a.flags->n_plastic, plastic);
}

template <int TYPE>
__global__ void __launch_bounds__(coop_shape<TYPE>::EPB_TAN * coop_shape<TYPE>::T_TAN, DT_TANGENT_MIN_BLOCKS)
k_tangent_coop(dt_coop_args a, const int *__restrict__ elems, int n) {
  typedef coop_shape<TYPE> S;
  const int D2 = S::DIM * S::DIM;
  __shared__ form_elem<TYPE> sh[S::EPB_TAN];
  __shared__ double kab[S::EPB_TAN][S::PAIRS * D2]; /* K_AB, column-major, pair by pair */
  __shared__ long boff[S::EPB_TAN][S::PAIRS];       /* where each block goes in the tangent */
  int le = threadIdx.x / S::T_TAN, t = threadIdx.x % S::T_TAN;
  int k = blockIdx.x * S::EPB_TAN + le, valid = le < S::EPB_TAN && k < n;
  int e = valid ? elems[k] : 0;
  form_elem<TYPE> &me = sh[le < S::EPB_TAN ? le : 0];
  coop_geometry<TYPE, S::T_TAN, false>(a, e, valid, t, me.g);
  const int bbar = valid && a.elem_bbar[e];
  form_points<TYPE, S::T_TAN>(a, e, valid, bbar, t, me);
  if (valid && t < S::PAIRS) { /* K_AB and its block's offset */
    int A = t / S::NPE, B = t % S::NPE;
    double K[D2];
    if (bbar) form_pair<TYPE, true>(me, A, B, K);
    else form_pair<TYPE, false>(me, A, B, K);
    int nodeA = a.conn[a.elem_ptr[e] + A];
    boff[le][t] = ((long)a.brow_ptr[nodeA] + a.elem_pos[a.elem_pos_ptr[e] + t]) * D2;
    for (int i = 0; i < S::DIM; i++)
      for (int j = 0; j < S::DIM; j++) kab[le][t * D2 + j * S::DIM + i] = K[i * S::DIM + j];
  }
  __syncthreads();
  /* add the blocks with consecutive threads on consecutive values (each block is D2
   * consecutive doubles, so a warp's accesses are a few contiguous runs), all loads first so
   * that a thread's read-modify-writes overlap: 12.8 ms on C5 against 20.7 ms with each
   * value's load waiting for the previous store, and 17.0 ms with each pair thread writing its
   * own block (H200, docs/benchmarks.md) */
  const int PER = (S::PAIRS * D2 + S::T_TAN - 1) / S::T_TAN;
  double old[PER];
  for (int r = 0; r < PER; r++) {
    int v = t + r * S::T_TAN;
    if (valid && v < S::PAIRS * D2) old[r] = a.out[boff[le][v / D2] + v % D2];
  }
  for (int r = 0; r < PER; r++) {
    int v = t + r * S::T_TAN;
    if (valid && v < S::PAIRS * D2) a.out[boff[le][v / D2] + v % D2] = old[r] + kab[le][v];
  }
}

template <int TYPE>
static dt_status launch(const dt_coop_args &a, const int *h_color_ptr, const int *color_elems,
                        int n_colors, int tangent, cudaStream_t stream, dt_ctx *ctx) {
  typedef coop_shape<TYPE> S;
  dt_status rc = DT_OK;
  for (int col = 0; col < n_colors; col++) {
    int first = h_color_ptr[col], n = h_color_ptr[col + 1] - first;
    if (n == 0) continue;
    if (tangent) {
      k_tangent_coop<TYPE><<<(n + S::EPB_TAN - 1) / S::EPB_TAN, S::EPB_TAN * S::T_TAN, 0, stream>>>(
          a, color_elems + first, n);
      DT_CUDA_LAUNCH_CHECK("k_tangent_coop", stream, ctx);
    } else {
      k_stress_coop<TYPE><<<(n + S::EPB_STR - 1) / S::EPB_STR, S::EPB_STR * S::T_STR, 0, stream>>>(
          a, color_elems + first, n);
      DT_CUDA_LAUNCH_CHECK("k_stress_coop", stream, ctx);
    }
  }
cleanup:
  return rc;
}

dt_status dt_cuda_coop_launch(int type, const dt_coop_args *a, const int *h_color_ptr,
                              const int *color_elems, int n_colors, int tangent,
                              cudaStream_t stream, dt_ctx *ctx) {
  switch (type) {
  case DT_HEX8: return launch<DT_HEX8>(*a, h_color_ptr, color_elems, n_colors, tangent, stream, ctx);
  case DT_TET4: return launch<DT_TET4>(*a, h_color_ptr, color_elems, n_colors, tangent, stream, ctx);
  case DT_TET10: return launch<DT_TET10>(*a, h_color_ptr, color_elems, n_colors, tangent, stream, ctx);
  case DT_QUAD4: return launch<DT_QUAD4>(*a, h_color_ptr, color_elems, n_colors, tangent, stream, ctx);
  case DT_TRI3: return launch<DT_TRI3>(*a, h_color_ptr, color_elems, n_colors, tangent, stream, ctx);
  }
  return DT_ERROR(ctx, DT_ERR_INTERNAL, "no cooperative kernel for element type %d", type);
}
