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

/* Everything one block of the tangent kernel keeps in shared memory. */
template <int TYPE, bool GEN_D> struct tangent_shared {
  typedef coop_shape<TYPE> S;
  typename tangent_scratch<TYPE, GEN_D>::type sh[S::EPB_TAN];
  coop_ref<TYPE> ref;
  double kab[S::EPB_TAN][S::PAIRS * S::DIM * S::DIM]; /* K_AB, column-major, pair by pair */
  long boff[S::EPB_TAN][S::PAIRS];                    /* where each block goes in the tangent */
};
/* Static shared memory ends at 48 kB; past it (the 20-node hexahedra: 20 nodes, 27 points and
 * 400 node pairs, about 75 kB with 27 points) the block's scratch is dynamic shared memory,
 * which the launch opts into (at most two such blocks share an SM anyway: their 400 threads at
 * up to 80 registers fill its register file). */
template <int TYPE, bool GEN_D> struct tangent_shared_bytes {
  static const size_t value = sizeof(tangent_shared<TYPE, GEN_D>);
  static const bool dynamic = value > 48 * 1024;
};
template <class M, bool DYNAMIC> struct block_shared {
  static __device__ __forceinline__ M &get() {
    __shared__ M m;
    return m;
  }
};
template <class M> struct block_shared<M, true> {
  static __device__ __forceinline__ M &get() {
    extern __shared__ double dt_dynamic_shared[]; /* doubles: aligned for every member */
    return *reinterpret_cast<M *>(dt_dynamic_shared);
  }
};

template <int TYPE, bool GEN_D>
__global__ void __launch_bounds__(tangent_launch_bounds<TYPE>::threads,
                                  tangent_launch_bounds<TYPE>::min_blocks)
    k_tangent_coop(dt_coop_args a, const int *__restrict__ elems, int n) {
  typedef coop_shape<TYPE> S;
  typedef typename tangent_scratch<TYPE, GEN_D>::type E;
  typedef tangent_shared<TYPE, GEN_D> M;
  const int D2 = S::DIM * S::DIM;
  M &m = block_shared<M, tangent_shared_bytes<TYPE, GEN_D>::dynamic>::get();
  E *sh = m.sh;
  coop_ref<TYPE> &ref = m.ref;
  double(*kab)[S::PAIRS * D2] = m.kab;
  long(*boff)[S::PAIRS] = m.boff;
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
    if (a->tan_d)
      return variant<TYPE, true>(a, h_color_ptr, color_elems, n_colors, stream, ctx,
                                 "launch of k_tangent_coop (D per point)");
    return variant<TYPE, false>(a, h_color_ptr, color_elems, n_colors, stream, ctx,
                                "launch of k_tangent_coop");
  }
  template <int TYPE, bool GEN_D>
  static dt_status variant(const dt_coop_args *a, const int *h_color_ptr, const int *color_elems,
                           int n_colors, cudaStream_t stream, dt_ctx *ctx, const char *what) {
    typedef coop_shape<TYPE> S;
    typedef tangent_shared_bytes<TYPE, GEN_D> B;
    if (B::dynamic) { /* per device and kernel; the launch fails without it */
      cudaError_t e = cudaFuncSetAttribute(
          k_tangent_coop<TYPE, GEN_D>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)B::value);
      if (e != cudaSuccess) return dt_cuda_error(ctx, e, what, __FILE__, __LINE__, __func__);
    }
    return coop_launch_colours(k_tangent_coop<TYPE, GEN_D>, S::EPB_TAN, S::EPB_TAN * S::T_TAN,
                               B::dynamic ? B::value : 0, *a, h_color_ptr, color_elems, n_colors,
                               stream, ctx, what);
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
