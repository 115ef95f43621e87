/* The matrix-free operator of the CUDA backend (linear.operator "matrix_free"; [Kiran2023]
 * Ch. 4-5, the CPU backend's cpu_matrix_free.c is the reference).
 *
 * No assembled tangent: element matrices (element_matrix.h, blocks A <= B) live in a store of
 * slots. An element with a class (problem_classes.c) whose points were all elastic in the last
 * stress update uses its class's elastic matrix; the others get a slot. Slots are numbered in
 * element order by a scan over the elements' needs (cub, deterministic), so the store holds
 * only the plastic set (plus elements without a class) and the tangent kernel runs over the
 * list of slotted elements in one launch, each storing its own matrix (cuda_elements_coop.cu,
 * or the one-thread-per-element k_tangent of cuda_elements.cu on a mesh of several types or of
 * a type without cooperative kernels: 20-node hexahedra, wedges).
 *
 * y = K x runs in two launches, as f_int does (cuda_stress_coop.cu): a thread per element node
 * (a thread per element on a mesh of a generic kernel type) forms its rows of K_e x_e from the
 * element's x (read as zero on constrained DOFs) and stores them per incidence; then a thread
 * per DOF sums its node's incidences, elements ascending (k_fint_gather), and puts x itself on
 * constrained DOFs (the identity rows). Same bits on every run. The nodes' diagonal blocks, which the preconditioners need, are summed the same
 * way from the element matrices at each assembly. */
#include <cub/device/device_scan.cuh>

#include "cuda_internal.h" /* first: it declares the solver headers extern "C" */
#include "../solver/element/element_matrix.h"
#include "cuda_coarse_modes.cuh"
#include "cuda_coop.h"

/* Threads per block of the element product: whole elements of NPE node threads. */
#define MF_BLOCK 256

/* The matrix element e uses and the distance between its values (the store interleaves
 * DT_EMAT_LANES slots; a class matrix is contiguous); NULL for an element with neither a slot
 * nor a class (possible only before the first assembly). */
__device__ __forceinline__ const double *mf_matrix(const int *slot, const int *cls,
                                                   const double *emat, const double *class_K,
                                                   int emat_doubles, long e, int *stride) {
  int s = slot[e], k = cls[e];
  *stride = s >= 0 ? DT_EMAT_LANES : 1;
  if (s >= 0) return emat + dt_cuda_emat_base(s, emat_doubles);
  return k >= 0 ? class_K + (long)k * emat_doubles : (const double *)0;
}

/* The element of incidence k (an offset into conn) and the node's place A in it: k / NPE on a
 * mesh of one type, else a search of elem_ptr (TYPE < 0: a generic kernel type, cuda_coop.h). */
template <int TYPE>
__device__ __forceinline__ int mf_incidence(const int *elem_ptr, int n_elems, int k, int *A) {
  if (TYPE >= 0) {
    int e = k / DT_TYPE_NPE(TYPE);
    *A = k - e * DT_TYPE_NPE(TYPE);
    return e;
  }
  int lo = 0, hi = n_elems; /* the last e with elem_ptr[e] <= k */
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (elem_ptr[mid] <= k)
      lo = mid;
    else
      hi = mid;
  }
  *A = k - elem_ptr[lo];
  return lo;
}

/* An element needs its own matrix without a class, or when plastic in a material whose tangent
 * changes when it yields (dt_material_tangent_is_elastic). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_mf_need(int n_elems, const int *__restrict__ cls, const unsigned char *__restrict__ plastic,
              const int *__restrict__ elem_mat, const dt_material_params *__restrict__ mats,
              int *__restrict__ need) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n_elems)
    need[e] = cls[e] < 0 || (plastic[e] && !dt_material_tangent_is_elastic(&mats[elem_mat[e]]));
}

/* After the exclusive scan of need into slot: slotted elements listed, the others -1; the
 * last element's thread writes the count. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_mf_list(int n_elems, const int *__restrict__ need, int *__restrict__ slot,
              int *__restrict__ list, int *__restrict__ count) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n_elems) return;
  int s = slot[e];
  if (e == n_elems - 1) *count = s + need[e];
  if (need[e])
    list[s] = e;
  else
    slot[e] = -1;
}

/* A thread per element node of two elements (NPE threads per element pair; the block's first
 * and second halves are consecutive elements): the nodes' x (zero on constrained DOFs) into
 * shared memory, then the node's rows of K_e x_e, stored per incidence. Where both elements
 * are elastic members of the class staged in shared memory, each matrix value read serves both
 * (dt_emat_row2): the product is bound by the L1/shared-memory pipe (97% busy on C3 with one
 * element per thread: each thread read 72 values and 72 x entries for its 72 FMAs).
 * Slotted elements (their own matrices) are left to k_mf_slotted. (A thread per element, which
 * reads each value once, ran 1.5-2x slower, twice: 72 registers, 42% occupancy, latency-bound;
 * H200, docs/benchmarks.md.) */
template <int TYPE>
__global__ void __launch_bounds__(MF_BLOCK)
    k_mf_element(int n_elems, const int *__restrict__ conn, const int *__restrict__ slot,
                 const int *__restrict__ cls, const double *__restrict__ emat,
                 const double *__restrict__ class_K, int emat_doubles,
                 const double *__restrict__ free, const double *__restrict__ x,
                 double *__restrict__ ye) {
  const int NPE = DT_TYPE_NPE(TYPE), DIM = DT_TYPE_DIM(TYPE), PAIRS = MF_BLOCK / NPE,
            EPB = 2 * PAIRS;
  const int ED = NPE * (NPE + 1) / 2 * DIM * DIM; /* dt_emat_doubles, as a constant */
  __shared__ double xs[EPB][NPE * DIM];
  __shared__ double sK[ED]; /* the class matrix of the block's first element */
  __shared__ int c0;
  int lp = threadIdx.x / NPE, A = threadIdx.x % NPE;
  const long first = (long)blockIdx.x * EPB;
  if (threadIdx.x == 0) c0 = cls[first];
  __syncthreads();
  if (c0 >= 0)
    for (int v = threadIdx.x; v < ED; v += MF_BLOCK) sK[v] = class_K[(long)c0 * emat_doubles + v];
  /* the thread's two elements: lp and PAIRS + lp of the block, so that each half of the block
   * is consecutive elements; slotted ones are k_mf_slotted's (it gathers their x itself) */
  for (int h = 0; h < 2; h++) {
    long e = first + h * PAIRS + lp;
    if (lp < PAIRS && e < n_elems && slot[e] < 0) {
      long node = conn[e * NPE + A];
      for (int i = 0; i < DIM; i++)
        xs[h * PAIRS + lp][A * DIM + i] = free[node * DIM + i] != 0.0 ? x[node * DIM + i] : 0.0;
    }
  }
  __syncthreads();
  if (lp >= PAIRS) return;
  const long e0 = first + lp, e1 = e0 + PAIRS;
  if (e0 >= n_elems) return;
  double y0[DIM], y1[DIM];
  /* both elastic members of the staged class: each value read serves both */
  if (e1 < n_elems && slot[e0] < 0 && slot[e1] < 0 && cls[e0] == c0 && cls[e1] == c0 && c0 >= 0) {
    dt_emat_row2(NPE, DIM, sK, A, xs[lp], xs[PAIRS + lp], y0, y1);
    for (int i = 0; i < DIM; i++) {
      ye[(e0 * NPE + A) * DIM + i] = y0[i];
      ye[(e1 * NPE + A) * DIM + i] = y1[i];
    }
    return;
  }
  for (int h = 0; h < 2; h++) {
    long e = e0 + h * PAIRS;
    if (e >= n_elems) break;
    int stride = 1;
    const double *K = mf_matrix(slot, cls, emat, class_K, emat_doubles, e, &stride);
    if (stride != 1) continue; /* a slotted element: k_mf_slotted writes its rows */
    if (!K)
      for (int i = 0; i < DIM; i++) y0[i] = 0.0;
    else
      dt_emat_row(NPE, DIM, cls[e] == c0 ? sK : K, 1, A, xs[h * PAIRS + lp], y0);
    for (int i = 0; i < DIM; i++) ye[(e * NPE + A) * DIM + i] = y0[i];
  }
}

/* The slotted elements' part of the product (those with their own matrix: the plastic set and
 * elements without a class), over the slots in order: 32 consecutive slots per block, a warp
 * per pair of rows of their upper blocks (rows g and NPE - 1 - g: NPE + 1 blocks per warp, the
 * same for every warp), a lane per slot. Each stored value is read once, by one lane, and
 * serves row A (K_AB x_B) and, off the diagonal, row B (K_AB^T x_A); the 32 lanes of a load
 * read the same value of 32 consecutive slots, whole sectors of the interleaved store. The
 * warps' partial rows are added in warp order in shared memory, so the sums have a fixed
 * order. (Before, a thread per element node read its whole row, each off-diagonal block
 * twice: L1 97% busy, DRAM 58%, on C3 fully plastic; Nsight Compute, 08:24 UTC.) */
template <int TYPE> struct mf_slotted_shape {
  static const int NPE = DT_TYPE_NPE(TYPE), DIM = DT_TYPE_DIM(TYPE), ND = NPE * DIM;
  static const int WARPS = (NPE + 1) / 2, THREADS = 32 * WARPS;
};

/* Rows G_ and NPE - 1 - G_ of one slot's upper blocks into yp (compile-time indices: yp stays
 * in registers); K: the slot's first value, xe: its x in shared memory. */
template <int TYPE, int G_>
__device__ __forceinline__ void mf_slot_rows(const double *__restrict__ K, const double *xe,
                                             double *yp) {
  typedef mf_slotted_shape<TYPE> S;
#pragma unroll
  for (int k = 0; k < 2; k++) {
    const int A = k == 0 ? G_ : S::NPE - 1 - G_;
    if (k == 1 && A <= G_) break;
#pragma unroll
    for (int B = A; B < S::NPE; B++) {
      const double *blk = K + (long)dt_emat_pair(S::NPE, A, B) * S::DIM * S::DIM * DT_EMAT_LANES;
#pragma unroll
      for (int j = 0; j < S::DIM; j++)
#pragma unroll
        for (int i = 0; i < S::DIM; i++) {
          double v = blk[(j * S::DIM + i) * DT_EMAT_LANES]; /* (A i, B j) */
          yp[A * S::DIM + i] += v * xe[B * S::DIM + j];
          if (B != A) yp[B * S::DIM + j] += v * xe[A * S::DIM + i];
        }
    }
  }
}

/* The warp's rows, g its index (warp-uniform: no divergence), as a compile-time constant. */
template <int TYPE, int G_>
__device__ __forceinline__ void mf_slot_rows_of(int g, const double *__restrict__ K,
                                                const double *xe, double *yp) {
  if (g == G_)
    mf_slot_rows<TYPE, G_>(K, xe, yp);
  else if constexpr (G_ + 1 < mf_slotted_shape<TYPE>::WARPS)
    mf_slot_rows_of<TYPE, G_ + 1>(g, K, xe, yp);
}

template <int TYPE>
__global__ void __launch_bounds__(mf_slotted_shape<TYPE>::THREADS)
    k_mf_slotted(long n_own, const int *__restrict__ own_list, const int *__restrict__ conn,
                 const double *__restrict__ emat, int emat_doubles, const double *__restrict__ free,
                 const double *__restrict__ x, double *__restrict__ ye) {
  typedef mf_slotted_shape<TYPE> S;
  __shared__ double xs[32][S::ND + 1]; /* odd rows: the lanes' reads hit distinct banks */
  __shared__ double ys[32][S::ND + 1];
  __shared__ int es[32];
  const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
  const long s0 = (long)blockIdx.x * 32, s = s0 + lane;
  if (threadIdx.x < 32) es[threadIdx.x] = s < n_own ? own_list[s] : -1;
  __syncthreads();
  for (int k = threadIdx.x; k < 32 * S::NPE; k += S::THREADS) {
    int l = k / S::NPE, A = k - l * S::NPE, e = es[l];
    if (e < 0) continue;
    long node = conn[(long)e * S::NPE + A];
    for (int i = 0; i < S::DIM; i++)
      xs[l][A * S::DIM + i] = free[node * S::DIM + i] != 0.0 ? x[node * S::DIM + i] : 0.0;
  }
  __syncthreads();
  double yp[S::ND];
#pragma unroll
  for (int v = 0; v < S::ND; v++) yp[v] = 0.0;
  if (s < n_own)
    mf_slot_rows_of<TYPE, 0>(g, emat + dt_cuda_emat_base(s, emat_doubles), xs[lane], yp);
  for (int w = 0; w < S::WARPS; w++) { /* warp order: the same sums on every run */
    if (g == w)
#pragma unroll
      for (int v = 0; v < S::ND; v++) ys[lane][v] = w == 0 ? yp[v] : ys[lane][v] + yp[v];
    __syncthreads();
  }
  for (int k = threadIdx.x; k < 32 * S::ND; k += S::THREADS) {
    int l = k / S::ND, v = k - l * S::ND, e = es[l];
    if (e >= 0) ye[(long)e * S::ND + v] = ys[l][v];
  }
}

/* The product on a mesh of several element types: a thread per element, y_e = K_e x_e stored
 * per incidence (offsets into conn, as the gather reads them). Meshes of one type use
 * k_mf_element. */
template <int DIM>
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_mf_element_mixed(int n_elems, const int *__restrict__ elem_ptr, const int *__restrict__ conn,
                       const int *__restrict__ slot, const int *__restrict__ cls,
                       const double *__restrict__ emat, const double *__restrict__ class_K,
                       int emat_doubles, const double *__restrict__ free,
                       const double *__restrict__ x, double *__restrict__ ye) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n_elems) return;
  int first = elem_ptr[e], npe = elem_ptr[e + 1] - first, stride = 1;
  double xe[DT_ELEM_MAX_DOF], y[DT_ELEM_MAX_DOF];
  for (int A = 0; A < npe; A++) {
    long node = conn[first + A];
    for (int i = 0; i < DIM; i++)
      xe[A * DIM + i] = free[node * DIM + i] != 0.0 ? x[node * DIM + i] : 0.0;
  }
  const double *K = mf_matrix(slot, cls, emat, class_K, emat_doubles, e, &stride);
  if (K)
    dt_emat_apply(npe, DIM, K, stride, xe, y);
  else
    for (int i = 0; i < npe * DIM; i++) y[i] = 0.0;
  for (int i = 0; i < npe * DIM; i++) ye[(long)first * DIM + i] = y[i];
}

/* Node a's diagonal block: its incidences' K_AA (elements ascending), then identity rows and
 * columns for its constrained DOFs; row-major, as k_pc_setup inverts it. */
template <int TYPE, int DIM>
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_mf_diag(int n_nodes, int n_elems, const int *__restrict__ elem_ptr,
              const int *__restrict__ inc_ptr, const int *__restrict__ inc,
              const int *__restrict__ slot, const int *__restrict__ cls,
              const double *__restrict__ emat, const double *__restrict__ class_K, int emat_doubles,
              const double *__restrict__ con, double *__restrict__ diag) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n_nodes) return;
  double blk[DIM * DIM];
  for (int i = 0; i < DIM * DIM; i++) blk[i] = 0.0;
  for (int k = inc_ptr[a]; k < inc_ptr[a + 1]; k++) {
    int A, stride = 1, e = mf_incidence<TYPE>(elem_ptr, n_elems, inc[k], &A);
    int npe = TYPE >= 0 ? DT_TYPE_NPE(TYPE) : elem_ptr[e + 1] - elem_ptr[e];
    const double *K = mf_matrix(slot, cls, emat, class_K, emat_doubles, e, &stride);
    if (K) dt_emat_diag_add(npe, DIM, K, stride, A, blk);
  }
  dt_emat_diag_dirichlet(DIM, con + (long)a * DIM, blk);
  for (int i = 0; i < DIM * DIM; i++) diag[(long)a * DIM * DIM + i] = blk[i];
}

/* The two-level preconditioner's item sums (cuda_coarse.cu's pass 1) without an assembled
 * tangent: a thread per (node a, mode m); for each item of a (box t), row m of the sum of
 * R_a^T K_ab R_b over the blocks K_ab of a's incident elements (elements ascending, then their
 * nodes b in box t), which add up to the assembled tangent's blocks of a's row in t. */
template <int TYPE, int DIM>
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_mf_coarse_items(dt_cuda_coarse_args g, int n_elems, const int *__restrict__ elem_ptr,
                      const int *__restrict__ conn, const int *__restrict__ inc_ptr,
                      const int *__restrict__ inc, const int *__restrict__ slot,
                      const int *__restrict__ cls, const double *__restrict__ emat,
                      const double *__restrict__ class_K, int emat_doubles) {
  coarse_item_sums<DIM>(g, [&](int a, int t, const double *ra, double *acc) {
    for (int k = inc_ptr[a]; k < inc_ptr[a + 1]; k++) {
      int A, stride = 1, e = mf_incidence<TYPE>(elem_ptr, n_elems, inc[k], &A);
      int first = elem_ptr[e], npe = TYPE >= 0 ? DT_TYPE_NPE(TYPE) : elem_ptr[e + 1] - first;
      const double *K = mf_matrix(slot, cls, emat, class_K, emat_doubles, e, &stride);
      if (!K) continue;
      for (int B = 0; B < npe; B++) {
        int b = conn[first + B];
        if (g.node_sub[b] != t) continue;
        double kab[DIM * DIM];
        dt_emat_block(npe, DIM, K, stride, A, B, kab);
        coarse_add_block<DIM, false>(g, ra, kab, b, acc);
      }
    }
  });
}

/* Kernel launches of the operator for element type TYPE (< 0: a generic kernel type, DIM then
 * the mesh's): what 0 the product's element part, 1 the diagonal blocks, 2 the coarse item sums (g). */
struct mf_launch {
  template <int TYPE>
  static dt_status go(dt_cuda *c, int what, dt_vec_id x, const dt_cuda_coarse_args *g,
                      dt_ctx *ctx) {
    if constexpr (TYPE >= 0)
      return launch<TYPE, DT_TYPE_DIM(TYPE)>(c, what, x, g, ctx);
    else
      return c->problem.dpn == 3 ? launch<-1, 3>(c, what, x, g, ctx)
                                 : launch<-1, 2>(c, what, x, g, ctx);
  }
  template <int TYPE, int DIM>
  static dt_status launch(dt_cuda *c, int what, dt_vec_id x, const dt_cuda_coarse_args *g,
                          dt_ctx *ctx) {
    dt_status rc = DT_OK;
    const dt_cuda_problem *p = &c->problem;
    const dt_cuda_mf *m = &c->mf;
    double *const *vec = c->state.vec;
    unsigned node_grid = (unsigned)((p->n_nodes + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK);
    if (what == 0) {
      if constexpr (TYPE >= 0) {
        const int EPB = 2 * (MF_BLOCK / DT_TYPE_NPE(TYPE)); /* two elements per node thread */
        k_mf_element<TYPE><<<(p->n_elems + EPB - 1) / EPB, MF_BLOCK, 0, c->stream>>>(
            p->n_elems, p->conn, m->emat_slot, m->elem_class, m->emat, m->class_K, m->emat_doubles,
            vec[DT_VEC_FREE], vec[x], c->state.f_elem);
        DT_CUDA_LAUNCH_CHECK("k_mf_element", c->stream, ctx);
        if (m->n_own > 0) {
          k_mf_slotted<TYPE>
              <<<(unsigned)((m->n_own + 31) / 32), mf_slotted_shape<TYPE>::THREADS, 0, c->stream>>>(
                  m->n_own, m->own_list, p->conn, m->emat, m->emat_doubles, vec[DT_VEC_FREE],
                  vec[x], c->state.f_elem);
          DT_CUDA_LAUNCH_CHECK("k_mf_slotted", c->stream, ctx);
        }
      } else {
        k_mf_element_mixed<DIM>
            <<<(p->n_elems + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK, DT_CUDA_BLOCK, 0, c->stream>>>(
                p->n_elems, p->elem_ptr, p->conn, m->emat_slot, m->elem_class, m->emat, m->class_K,
                m->emat_doubles, vec[DT_VEC_FREE], vec[x], c->state.f_elem);
        DT_CUDA_LAUNCH_CHECK("k_mf_element_mixed", c->stream, ctx);
      }
    } else if (what == 1) {
      k_mf_diag<TYPE, DIM><<<node_grid, DT_CUDA_BLOCK, 0, c->stream>>>(
          p->n_nodes, p->n_elems, p->elem_ptr, p->node_inc_ptr, p->node_inc, m->emat_slot,
          m->elem_class, m->emat, m->class_K, m->emat_doubles, vec[DT_VEC_CON], m->diag);
      DT_CUDA_LAUNCH_CHECK("k_mf_diag", c->stream, ctx);
    } else {
      long n = (long)p->n_nodes * coarse_dims<DIM>::NM;
      k_mf_coarse_items<TYPE, DIM>
          <<<(unsigned)((n + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK), DT_CUDA_BLOCK, 0, c->stream>>>(
              *g, p->n_elems, p->elem_ptr, p->conn, p->node_inc_ptr, p->node_inc, m->emat_slot,
              m->elem_class, m->emat, m->class_K, m->emat_doubles);
      DT_CUDA_LAUNCH_CHECK("k_mf_coarse_items", c->stream, ctx);
    }
  cleanup:
    return rc;
  }
};

static dt_status mf_by_type(dt_cuda *c, int what, dt_vec_id x, const dt_cuda_coarse_args *g,
                            dt_ctx *ctx) {
  return dt_by_element_type<mf_launch, true>(c->problem.uniform_type, ctx, c, what, x, g);
}

dt_status dt_cuda_mf_coarse_items(dt_cuda *c, const dt_cuda_coarse_args *g, dt_ctx *ctx) {
  return mf_by_type(c, 2, DT_VEC_PCG_P, g, ctx);
}

struct mf_load {
  template <int TYPE, int DIM> static dt_status load(dt_ctx *ctx) {
    const void *k[4] = {(const void *)k_mf_diag<TYPE, DIM>,
                        (const void *)k_mf_coarse_items<TYPE, DIM>, NULL, NULL};
    if constexpr (TYPE >= 0) {
      k[2] = (const void *)k_mf_element<TYPE>;
      k[3] = (const void *)k_mf_slotted<TYPE>;
      return dt_cuda_load_list(k, 4, NULL, ctx);
    } else {
      k[2] = (const void *)k_mf_element_mixed<DIM>;
      return dt_cuda_load_list(k, 3, NULL, ctx);
    }
  }
  template <int TYPE> static dt_status go(int dpn, dt_ctx *ctx) {
    if constexpr (TYPE >= 0)
      return load<TYPE, DT_TYPE_DIM(TYPE)>(ctx);
    else
      return dpn == 3 ? load<-1, 3>(ctx) : load<-1, 2>(ctx);
  }
};

/* The generic kernels' local arrays (k_mf_element_mixed: 2 x DT_ELEM_MAX_DOF doubles) are far
 * smaller than the one-thread-per-element tangent's, which the same meshes load, so the
 * reservation the estimate counts (dt_cuda_element_local_bytes) covers them. */
dt_status dt_cuda_load_mf_kernels(int type, int dpn, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const void *k[] = {(const void *)k_mf_need, (const void *)k_mf_list};
  DT_TRY(dt_cuda_load_list(k, 2, NULL, ctx));
  DT_TRY((dt_by_element_type<mf_load, true>(type, ctx, dpn)));
cleanup:
  return rc;
}

dt_status dt_cuda_mf_apply(dt_cuda *c, dt_vec_id x, dt_vec_id y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(mf_by_type(c, 0, x, NULL, ctx));
  DT_TRY(dt_cuda_gather_incidences(c->problem.n_dofs, c->problem.dpn, c->problem.node_inc_ptr,
                                   c->problem.node_inc, c->state.f_elem, c->state.vec[DT_VEC_FREE],
                                   c->state.vec[x], c->state.vec[y], c->stream, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_mf_diagonal(dt_cuda *c, dt_ctx *ctx) {
  return mf_by_type(c, 1, DT_VEC_PCG_P, NULL, ctx);
}

/* Bytes of a store of cap slots (whole groups of DT_EMAT_LANES). */
static double store_bytes(long cap, int emat_doubles) {
  return 8.0 * (double)((cap + DT_EMAT_LANES - 1) / DT_EMAT_LANES) * DT_EMAT_LANES * emat_doubles;
}

/* Grow the store to hold need slots: half again as many as before, at most one per element,
 * checked against the device's free memory first so that a job that cannot fit says so. */
static dt_status grow_store(dt_cuda *c, long need, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t free_b = 0, total_b = 0;
  long cap =
      c->mf.emat_cap + c->mf.emat_cap / 2 > need ? c->mf.emat_cap + c->mf.emat_cap / 2 : need;
  if (cap > c->problem.n_elems) cap = c->problem.n_elems;
  double want = store_bytes(cap, c->mf.emat_doubles),
         held = store_bytes(c->mf.emat_cap, c->mf.emat_doubles);
  DT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b), ctx);
  if (want > (double)free_b + held -
                 (64.0 * (1 << 20))) { /* not even half again: exactly what is needed */
    cap = need;
    want = store_bytes(cap, c->mf.emat_doubles);
  }
  DT_CHECK(want <= (double)free_b + held - (64.0 * (1 << 20)), ctx, DT_ERR_DEVICE_NOMEM,
           "the matrix-free operator needs its own matrices for %ld of %d elements (plastic or "
           "without a "
           "class): %.2f GB, and the device has %.2f GB free (%.2f GB of it held by the store "
           "now); use the "
           "assembled operator or a larger device",
           need, c->problem.n_elems, want / 1e9, ((double)free_b + held) / 1e9, held / 1e9);
  dt_cuda_free(c, c->mf.emat);
  c->mf.emat = NULL;
  c->mf.emat_cap = 0;
  DT_TRY(
      dt_cuda_alloc(c, (void **)&c->mf.emat, (size_t)want, "element matrices (matrix-free)", ctx));
  c->mf.emat_cap = cap;
cleanup:
  return rc;
}

dt_status dt_cuda_mf_slots(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_mf *m = &c->mf;
  int n_elems = c->problem.n_elems, grid = (n_elems + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK,
      *count = (int *)c->pinned;
  k_mf_need<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n_elems, m->elem_class, m->elem_plastic,
                                                   c->problem.elem_mat, c->problem.mats, m->need);
  DT_CUDA_LAUNCH_CHECK("k_mf_need", c->stream, ctx);
  DT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(m->scan_tmp, m->scan_tmp_bytes, m->need, m->emat_slot,
                                              n_elems, c->stream),
                ctx);
  k_mf_list<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n_elems, m->need, m->emat_slot, m->own_list,
                                                   m->count);
  DT_CUDA_LAUNCH_CHECK("k_mf_list", c->stream, ctx);
  DT_TRY(dt_cuda_d2h(c, count, m->count, sizeof(int), ctx)); /* 4 bytes */
  m->n_own = *count;
  if (m->n_own > m->emat_cap) DT_TRY(grow_store(c, m->n_own, ctx));
cleanup:
  return rc;
}

/* Bytes of the operator's arrays, the store counted for every element: it starts with room for
 * the elements without a class and grows as elements turn plastic, so the estimate (what the
 * daemon admits a job by, and what DUCTILE_GPU_MEMORY_LIMIT is checked against) is its worst
 * case, and no job can outgrow its admission. */
size_t dt_cuda_mf_bytes(const dt_problem *pb) {
  size_t ne = (size_t)pb->n_elems, ed = (size_t)pb->emat_doubles;
  size_t b = ne * (4 * sizeof(int) + 1); /* class, slot, list, need, plastic */
  b += (size_t)(pb->n_classes ? pb->n_classes : 1) * ed * sizeof(double); /* class matrices */
  b += (size_t)store_bytes((long)ne, (int)ed);                   /* the store, every element */
  b += (size_t)pb->n_nodes * pb->dpn * pb->dpn * sizeof(double); /* diagonal blocks */
  b += ne * sizeof(int) + (1u << 20) + sizeof(int);              /* scan scratch (bounded), count */
  return b;
}

dt_status dt_cuda_mf_upload(dt_cuda *c, const dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t unclassed = (size_t)dt_problem_unclassed(pb), ne = (size_t)pb->n_elems;
  c->mf.emat_doubles = pb->emat_doubles;
  c->mf.n_classes = pb->n_classes;
  UPLOAD(c->mf, elem_class, ne, "element classes");
  UPLOAD(c->mf, class_K, (size_t)(pb->n_classes ? pb->n_classes : 1) * pb->emat_doubles,
         "class matrices");
  DT_TRY(dt_cuda_alloc(c, (void **)&c->mf.elem_plastic, ne, "element plastic flags", ctx));
  DT_CUDA_CHECK(cudaMemsetAsync(c->mf.elem_plastic, 0, ne, c->stream), ctx);
  DT_TRY(
      dt_cuda_alloc(c, (void **)&c->mf.emat_slot, ne * sizeof(int), "element matrix slots", ctx));
  DT_CUDA_CHECK(cudaMemsetAsync(c->mf.emat_slot, 0xff, ne * sizeof(int), c->stream),
                ctx); /* -1: none yet */
  DT_TRY(dt_cuda_alloc(c, (void **)&c->mf.own_list, ne * sizeof(int), "slotted elements", ctx));
  DT_TRY(dt_cuda_alloc(c, (void **)&c->mf.need, ne * sizeof(int), "element needs", ctx));
  DT_TRY(dt_cuda_alloc(c, (void **)&c->mf.count, sizeof(int), "slot count", ctx));
  DT_TRY(dt_cuda_alloc(c, (void **)&c->mf.diag,
                       (size_t)pb->n_nodes * pb->dpn * pb->dpn * sizeof(double), "diagonal blocks",
                       ctx));
  DT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum((void *)NULL, c->mf.scan_tmp_bytes, c->mf.need,
                                              c->mf.emat_slot, pb->n_elems, c->stream),
                ctx);
  DT_TRY(dt_cuda_alloc(c, &c->mf.scan_tmp, c->mf.scan_tmp_bytes ? c->mf.scan_tmp_bytes : 1,
                       "scan scratch", ctx));
  c->mf.emat_cap = (long)(unclassed ? unclassed : 1);
  DT_TRY(dt_cuda_alloc(c, (void **)&c->mf.emat,
                       (size_t)store_bytes(c->mf.emat_cap, pb->emat_doubles),
                       "element matrices (matrix-free)", ctx));
cleanup:
  return rc;
}

/* Bytes one product moves in this design: the slotted matrices and the class matrices, each
 * element's connectivity, slot and class, x and the free mask per incidence read (x through
 * L2 mostly: counted once per DOF), the incidence products written and read, the incidence
 * lists, y written. */
double dt_cuda_mf_spmv_bytes(const dt_cuda *c) {
  double n_inc = (double)c->problem.n_conn, nd = (double)c->problem.n_dofs;
  return 8.0 * ((double)c->mf.n_own + c->mf.n_classes) * c->mf.emat_doubles + 4.0 * n_inc +
         8.0 * c->problem.n_elems + 16.0 * nd + 2.0 * 8.0 * n_inc * c->problem.dpn +
         4.0 * (n_inc + c->problem.n_nodes) + 8.0 * nd;
}
