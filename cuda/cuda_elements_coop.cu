/* The cooperative tangent kernel for meshes of one element type (the common case). With the
 * matrix-free operator (a.emat) the same kernel stores each element's blocks A <= B in its slot
 * instead of step 4 (element_matrix.h).
 *
 * The one-thread-per-element kernels (cuda_elements.cu) keep a whole Ke (24 x 24 for hex8) in
 * per-thread local memory: 255 registers, a large stack, one block per SM. Here the work of an
 * element is split over a thread per node pair and staged in shared memory:
 *   1. node threads gather coordinates;
 *   2. point threads compute dN/dx and w det J (dt_elem_shape/gradients), node-component
 *      threads the B-bar averages;
 *   3. point threads read the tangent form the stress kernel stored (cuda_stress_coop.cu),
 *      (point, node) threads prepare its terms, and node-pair threads form K_AB
 *      (cuda_tangent_form.cuh) in shared memory; or, for meshes whose material has no tangent
 *      form (GEN_D: Mohr-Coulomb's consistent tangent), they read each point's D and form
 *      B_A^T D B_B (cuda_tangent_d.cuh);
 *   4. all threads add the element's blocks to the tangent (dt_bsr_block) at the element's
 *      precomputed positions, consecutive threads on consecutive values.
 * Elements of one launch share a colour, so the += scatter is race-free and runs in the same
 * order every time; sums inside an element run in a fixed order: results are bit-identical
 * from run to run. */
#include <limits.h>

#include "../solver/element/element_kernel.h"
#include "../solver/element/element_matrix.h"
#include "cuda_internal.h"
#include "cuda_coop.h"
#include "cuda_tangent_d.cuh"
#include "cuda_tangent_form.cuh"

/* The element scratch of the kernel's variant. */
template <int TYPE, bool GEN_D> struct tangent_scratch { typedef form_elem<TYPE> type; };
template <int TYPE> struct tangent_scratch<TYPE, true> { typedef d_elem<TYPE> type; };

/* The point preparation and the pair product of each variant. */
template <int TYPE, bool GEN_D> struct tangent_points {
  static __device__ __forceinline__ void go(const dt_coop_args &a, int e, int valid, int bbar,
                                            int t, form_elem<TYPE> &me) {
    form_points<TYPE, coop_shape<TYPE>::T_TAN>(a, e, valid, bbar, t, me);
  }
  static __device__ __forceinline__ void pair(const form_elem<TYPE> &me, int bbar, int A, int B,
                                              double *K) {
    if (bbar)
      form_pair<TYPE, true>(me, A, B, K);
    else
      form_pair<TYPE, false>(me, A, B, K);
  }
};
template <int TYPE> struct tangent_points<TYPE, true> {
  static __device__ __forceinline__ void go(const dt_coop_args &a, int e, int valid, int bbar,
                                            int t, d_elem<TYPE> &me) {
    (void)bbar;
    d_points<TYPE, coop_shape<TYPE>::T_TAN>(a, e, valid, t, me);
  }
  static __device__ __forceinline__ void pair(const d_elem<TYPE> &me, int bbar, int A, int B,
                                              double *K) {
    d_pair<TYPE>(me, bbar, A, B, K);
  }
};

/* Blocks per SM the tangent kernel is compiled for, with blocks of 128 threads: 8 caps it at
 * 64 registers (hex8 then spills a little in the point geometry, but 8 blocks per SM beat 5
 * at 94 registers). Larger blocks (quad16: 256 node pairs) keep the same 64 registers. */
#ifndef DT_TANGENT_MIN_BLOCKS
#define DT_TANGENT_MIN_BLOCKS 8
#endif
template <int TYPE> struct tangent_launch_bounds {
  static const int threads = coop_shape<TYPE>::EPB_TAN * coop_shape<TYPE>::T_TAN;
  static const int min_blocks =
      threads <= 128 ? DT_TANGENT_MIN_BLOCKS : DT_TANGENT_MIN_BLOCKS * 128 / threads;
};

template <int TYPE, bool GEN_D>
__global__ void __launch_bounds__(tangent_launch_bounds<TYPE>::threads,
                                  tangent_launch_bounds<TYPE>::min_blocks)
    k_tangent_coop(dt_coop_args a, const int *__restrict__ elems, int n) {
  typedef coop_shape<TYPE> S;
  typedef typename tangent_scratch<TYPE, GEN_D>::type E;
  const int D2 = S::DIM * S::DIM;
  __shared__ E sh[S::EPB_TAN];
  __shared__ coop_ref<TYPE> ref;
  __shared__ double kab[S::EPB_TAN][S::PAIRS * D2]; /* K_AB, column-major, pair by pair */
  __shared__ long boff[S::EPB_TAN][S::PAIRS];       /* where each block goes in the tangent */
  int le = threadIdx.x / S::T_TAN, t = threadIdx.x % S::T_TAN;
  int k = blockIdx.x * S::EPB_TAN + le, valid = le < S::EPB_TAN && k < n;
  int e = valid ? elems[k] : 0;
  E &me = sh[le < S::EPB_TAN ? le : 0];
  coop_geometry<TYPE, S::T_TAN, false>(a, e, valid, t, me.g, ref);
  const int bbar = valid && a.elem_bbar[e];
  tangent_points<TYPE, GEN_D>::go(a, e, valid, bbar, t, me);
  if (valid && t < S::PAIRS) { /* K_AB and its block's offset */
    int A = t / S::NPE, B = t % S::NPE;
    double K[D2];
    tangent_points<TYPE, GEN_D>::pair(me, bbar, A, B, K);
    if (a.emat) /* matrix-free: the stored blocks A <= B of slot k, interleaved (dt_cuda_emat_base) */
      boff[le][t] = A <= B ? dt_cuda_emat_base(k, a.emat_doubles) +
                                 (long)dt_emat_pair(S::NPE, A, B) * D2 * DT_EMAT_LANES
                           : -1;
    else
      boff[le][t] =
          ((long)a.brow_ptr[a.conn[e * S::NPE + A]] + a.elem_pos[a.elem_pos_ptr[e] + t]) * D2;
    for (int i = 0; i < S::DIM; i++)
      for (int j = 0; j < S::DIM; j++) kab[le][t * D2 + j * S::DIM + i] = K[i * S::DIM + j];
  }
  __syncthreads();
  /* add the blocks with consecutive threads on consecutive values (each block is D2
   * consecutive doubles, so a warp's accesses are a few contiguous runs), all loads first so
   * that a thread's read-modify-writes overlap: 12.8 ms on C5 against 20.7 ms with each
   * value's load waiting for the previous store, and 17.0 ms with each pair thread writing its
   * own block (H200, docs/benchmarks.md, decision table) */
  const int PER = (S::PAIRS * D2 + S::T_TAN - 1) / S::T_TAN;
  if (a.emat) { /* each stored value written once, nothing to add to */
    for (int r = 0; r < PER; r++) {
      int v = t + r * S::T_TAN;
      if (valid && v < S::PAIRS * D2 && boff[le][v / D2] >= 0)
        a.emat[boff[le][v / D2] + (v % D2) * DT_EMAT_LANES] = kab[le][v];
    }
    return;
  }
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

struct k_tangent_coop_launch {
  template <int TYPE>
  static dt_status go(const dt_coop_args *a, const int *h_color_ptr, const int *color_elems,
                      int n_colors, cudaStream_t stream, dt_ctx *ctx) {
    typedef coop_shape<TYPE> S;
    if (a->tan_d)
      return coop_launch_colours(k_tangent_coop<TYPE, true>, S::EPB_TAN, S::EPB_TAN * S::T_TAN, *a,
                                 h_color_ptr, color_elems, n_colors, stream, ctx,
                                 "launch of k_tangent_coop (D per point)");
    return coop_launch_colours(k_tangent_coop<TYPE, false>, S::EPB_TAN, S::EPB_TAN * S::T_TAN, *a,
                               h_color_ptr, color_elems, n_colors, stream, ctx,
                               "launch of k_tangent_coop");
  }
};

dt_status dt_cuda_tangent_coop_launch(int type, const dt_coop_args *a, const int *h_color_ptr,
                                      const int *color_elems, int n_colors, cudaStream_t stream,
                                      dt_ctx *ctx) {
  return coop_by_type<k_tangent_coop_launch>(type, ctx, a, h_color_ptr, color_elems, n_colors,
                                             stream);
}

struct k_tangent_coop_load {
  template <int TYPE> static dt_status go(int d_tangent, size_t *local_max, dt_ctx *ctx) {
    const void *k[] = {d_tangent ? (const void *)k_tangent_coop<TYPE, true>
                                 : (const void *)k_tangent_coop<TYPE, false>};
    return dt_cuda_load_list(k, 1, local_max, ctx);
  }
};

dt_status dt_cuda_tangent_coop_load(int type, int d_tangent, size_t *local_max, dt_ctx *ctx) {
  return coop_by_type<k_tangent_coop_load>(type, ctx, d_tangent, local_max);
}
