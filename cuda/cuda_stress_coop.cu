/* Stress update and internal force for meshes of one element type, cooperative layout: T_STR
 * threads per element (a thread per point, or per node where there are more nodes), phases
 * separated by barriers, per-element tables in shared memory (cuda_coop_element.cuh):
 *   1. node threads gather coordinates and displacements; point threads compute dN/dx and
 *      w det J, node-component threads the B-bar averages (coop_geometry);
 *   2. point threads form eps = B u (dt_elem_strain_add), less the initial eigenstrain where the
 *      model has initial conditions (a.eps0, element_kernel.h), and call the shared material update
 *      (dt_j2_update_form, or dt_material_update_form, which also knows Mohr-Coulomb, in the
 *      instantiation for meshes with such a material: MC = true; the J2-only kernel keeps its
 *      registers); they store the trial history, stress, strain and the tangent form of
 *      the point (K, mu, gam: the tangent kernel of the same iteration re-forms n from the
 *      stress);
 *   3. node threads form f_A = sum_q B_A^T sig_q w det J t (dt_elem_force_add) and store it
 *      for their incidence (f_elem, consecutive threads on consecutive values).
 * One launch over all elements in their own order, then k_fint_gather sums each node's
 * incidences in a fixed order (elements ascending): bit-identical results from run to run.
 * Why not colour by colour with += on f_int, as before: that took 8 launches whose elements
 * lie apart from each other, each element waiting on a chain of 4-5 dependent loads (colour
 * list, element offsets, connectivity, coordinates, then f_int itself); in element order the
 * connectivity is read straight from e * NPE, neighbouring elements of a block share nodes in
 * L1, and the stores need no read. The price is the element forces written and read once
 * (24 B per incidence in 3D). */
#include <limits.h>

#include "../solver/element/element_kernel.h"
#include "cuda_internal.h"
#include "cuda_coop.h"
#include "cuda_coop_element.cuh"

/* The stresses (times w det J t) of the first IN_X points live in g.X, whose coordinates are
 * dead once the geometry is done (a barrier lies between the last read of X and the first
 * stress): 192 B less per hex8 element, which lets 5 blocks share an SM instead of 4. */
template <int TYPE> struct coop_str_elem_body {
  typedef coop_shape<TYPE> S;
  static const int IN_X = S::NPE * 3 / 6 < S::NQP ? S::NPE * 3 / 6 : S::NQP;
  coop_elem<TYPE> g;
  double sig_rest[S::NQP - IN_X > 0 ? S::NQP - IN_X : 1][6];
  __device__ double *sig(int q) { return q < IN_X ? g.X + 6 * q : sig_rest[q - IN_X]; }
};
/* Padded to 8 doubles past a multiple of 16, so that the two elements of a half-warp (hex8:
 * eight point threads each) read their dN/dx rows from disjoint banks. */
template <int TYPE> struct coop_str_elem : coop_str_elem_body<TYPE> {
  static const int R = (8 - (int)(sizeof(coop_str_elem_body<TYPE>) / 8) % 16 + 16) % 16;
  double pad[R ? R : 16];
};

static_assert(sizeof(coop_str_elem<DT_HEX8>) / 8 % 16 == 8, "hex8 element scratch: 8 past 16");

/* Elements per block of the stress kernel: 128 threads' worth, as many as the static shared
 * memory (48 kB, 45 kB of it for the element scratch and the reference table) holds: quad16's
 * 16-point scratch (8 kB per element) fits 4, every other type its 128 / T_STR. */
template <int TYPE> struct stress_epb {
  static const int BY_THREADS =
      128 / coop_shape<TYPE>::T_STR > 0 ? 128 / coop_shape<TYPE>::T_STR : 1;
  static const int BY_SHARED =
      (int)((45 * 1024 - sizeof(coop_ref<TYPE>)) / sizeof(coop_str_elem<TYPE>));
  static const int value = BY_THREADS < BY_SHARED ? BY_THREADS : BY_SHARED;
};
static_assert(stress_epb<DT_HEX8>::value == 16, "hex8: 16 elements per stress block (tuned)");
static_assert(stress_epb<DT_QUAD16>::value == 4, "quad16: 4 elements per stress block");

/* Blocks per SM the stress kernel is compiled for (registers <= 96 at 5) */
#ifndef DT_STRESS_MIN_BLOCKS
#define DT_STRESS_MIN_BLOCKS 5
#endif

template <int TYPE, bool MC>
__global__ void __launch_bounds__(stress_epb<TYPE>::value *coop_shape<TYPE>::T_STR,
                                  DT_STRESS_MIN_BLOCKS) k_stress_coop(dt_coop_args a, int n) {
  typedef coop_shape<TYPE> S;
  const int EPB = stress_epb<TYPE>::value;
  __shared__ coop_str_elem<TYPE> sh[EPB];
  __shared__ coop_ref<TYPE> ref;
  __shared__ int plastic;
  __shared__ int el_plastic[EPB]; /* per element, for the matrix-free operator (a.elem_plastic) */
  int le = threadIdx.x / S::T_STR, t = threadIdx.x % S::T_STR;
  int k = blockIdx.x * EPB + le, valid = le < EPB && k < n;
  int e = valid ? k : 0;
  coop_str_elem<TYPE> &me = sh[le < EPB ? le : 0];
  if (threadIdx.x == 0) plastic = 0;
  if (valid && t == 0) me.g.failed = 0, el_plastic[le] = 0;
  /* the element's scalars, loaded now so that they arrive with the gather */
  long qp0 = (long)e * S::NQP; /* one element type: qp_ptr[e] = e * NQP */
  int mat = valid ? a.elem_mat[e] : 0, state = valid ? a.elem_state[e] : 0;
  double thick = valid ? a.elem_thick[e] : 0.0;
  dt_mat_state old_s; /* the committed history, loaded now: it arrives during the geometry */
  if (valid && t < S::NQP) dt_hist_load(a.hist_c, a.stride, qp0 + t, &old_s);
  static_assert(S::T_STR >= S::NPE && S::T_STR >= S::NQP,
                "at most one node and one point per thread");
  coop_geometry<TYPE, S::T_STR>(a, e, valid, t, me.g, ref);
  const double *bbar = valid && a.elem_bbar[e] ? me.g.bbar : (const double *)0;
  if (valid && t < S::NQP) { /* the thread's point */
    const int q = t;
    double eps[6] = {0, 0, 0, 0, 0, 0}, *sig = me.sig(q);
    long qp = qp0 + q;
    dt_mat_state new_s;
    dt_tangent_form tf;
    for (int A = 0; A < S::NPE; A++) /* eps = sum_A B_A u_A */
      dt_elem_strain_add(S::DIM, me.g.dNdx[q] + A * 3, bbar ? bbar + A * 3 : bbar, me.g.ue + A * 3,
                         eps);
    double Dq[36]; /* the point's D, for meshes that assemble B^T D B (a.tan_d) */
    /* the strain the material sees: eps (stored first, as the trial strain) less the initial
     * eigenstrain, in place: a second array would stay live across the update and cost the
     * kernel registers */
    for (int c = 0; c < 6; c++) a.eps_t[c * a.stride + qp] = eps[c];
    if (a.eps0)
      for (int c = 0; c < 6; c++) eps[c] -= a.eps0[c * a.stride + qp];
    int res =
        MC ? dt_material_update_form(&a.mats[mat], state, eps, &old_s, &new_s, sig,
                                     a.tan_d ? Dq : (double *)0, &tf)
           : dt_j2_update_form(&a.mats[mat], state, eps, &old_s, &new_s, sig, (double *)0, &tf);
    if (res != DT_MAT_NO_CONVERGENCE) {
      dt_hist_store(a.hist_t, a.stride, qp, &new_s);
      for (int c = 0; c < 6; c++) a.sig_t[c * a.stride + qp] = sig[c];
      if (MC && a.tan_d) { /* the tangent kernel reads D, not the form */
        for (int r = 0, k = 0; r < 6; r++)
          for (int cc = r; cc < 6; cc++, k++) a.tan_d[k * a.stride + qp] = Dq[r * 6 + cc];
      } else {
        a.tan_t[0 * a.stride + qp] = tf.K;
        a.tan_t[1 * a.stride + qp] = tf.mu;
        a.tan_t[2 * a.stride + qp] = tf.gam; /* n: re-formed by the tangent kernel */
      }
    }
    double wt = me.g.dv[q] * thick;
    for (int r = 0; r < 6; r++) sig[r] *= wt; /* sig w det J t */
    if (res == DT_MAT_NO_CONVERGENCE) {
      me.g.failed = 1;
      atomicAdd(&a.flags->n_failed, 1);
      atomicMin(&a.flags->first_failed, e);
    } else if (res == DT_MAT_PLASTIC) {
      atomicAdd(&plastic, 1);
      el_plastic[le] = 1;
    }
  }
  __syncthreads();
  if (valid && t < S::NPE) { /* f_A = sum_q B_A^T sig_q, A = t (zero if a point failed) */
    double f[3] = {0.0, 0.0, 0.0};
    for (int q = 0; !me.g.failed && q < S::NQP; q++)
      dt_elem_force_add(S::DIM, me.g.dNdx[q] + t * 3, bbar ? bbar + t * 3 : bbar, me.sig(q), f);
    for (int i = 0; i < S::DIM; i++) a.out[((long)e * S::NPE + t) * S::DIM + i] = f[i];
    if (t == 0 && a.elem_plastic) a.elem_plastic[e] = (unsigned char)el_plastic[le];
  }
  __syncthreads();
  if (threadIdx.x == 0 && plastic) atomicAdd(&a.flags->n_plastic, plastic);
}

/* f_int of each node: the sum of its incidences' element forces, elements ascending (a thread
 * per DOF; consecutive threads read the same incidence's consecutive components). Incidences
 * are taken GATHER_BATCH at a time, all their loads issued before the first add, so a thread
 * waits for one round of loads per batch instead of one per incidence; the adds keep their
 * order, so the bits do not change. */
#define GATHER_BATCH 8
__global__ void k_fint_gather(int n_dofs, int dim, const int *__restrict__ inc_ptr,
                              const int *__restrict__ inc, const double *__restrict__ f_elem,
                              const double *__restrict__ free, const double *__restrict__ x,
                              double *__restrict__ fint) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d >= n_dofs) return;
  if (free && free[d] == 0.0) { /* a Dirichlet row of the matrix-free operator: identity */
    fint[d] = x[d];
    return;
  }
  int node = d / dim, i = d - node * dim, k1 = inc_ptr[node + 1];
  double f = 0.0;
  for (int k = inc_ptr[node]; k < k1; k += GATHER_BATCH) {
    int at[GATHER_BATCH];
    double v[GATHER_BATCH];
#pragma unroll
    for (int j = 0; j < GATHER_BATCH; j++) at[j] = k + j < k1 ? inc[k + j] : -1;
#pragma unroll
    for (int j = 0; j < GATHER_BATCH; j++) v[j] = at[j] >= 0 ? f_elem[(long)at[j] * dim + i] : 0.0;
#pragma unroll
    for (int j = 0; j < GATHER_BATCH; j++)
      if (at[j] >= 0) f += v[j];
  }
  fint[d] = f;
}

struct k_stress_coop_launch {
  template <int TYPE>
  static dt_status go(const dt_coop_args *a, int n_elems, cudaStream_t stream, dt_ctx *ctx) {
    typedef coop_shape<TYPE> S;
    const int EPB = stress_epb<TYPE>::value;
    dt_status rc = DT_OK;
    if (a->any_mc)
      k_stress_coop<TYPE, true>
          <<<(n_elems + EPB - 1) / EPB, EPB * S::T_STR, 0, stream>>>(*a, n_elems);
    else
      k_stress_coop<TYPE, false>
          <<<(n_elems + EPB - 1) / EPB, EPB * S::T_STR, 0, stream>>>(*a, n_elems);
    DT_CUDA_LAUNCH_CHECK("k_stress_coop", stream, ctx);
  cleanup:
    return rc;
  }
};

dt_status dt_cuda_stress_coop_launch(int type, const dt_coop_args *a, int n_elems,
                                     const int *inc_ptr, const int *inc, double *fint, int n_dofs,
                                     cudaStream_t stream, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(coop_by_type<k_stress_coop_launch>(type, ctx, a, n_elems, stream));
  DT_TRY(dt_cuda_gather_incidences(n_dofs, a->dpn, inc_ptr, inc, a->out, NULL, NULL, fint, stream,
                                   ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_gather_incidences(int n_dofs, int dim, const int *inc_ptr, const int *inc,
                                    const double *ye, const double *free, const double *x,
                                    double *y, cudaStream_t stream, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  k_fint_gather<<<(n_dofs + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK, DT_CUDA_BLOCK, 0, stream>>>(
      n_dofs, dim, inc_ptr, inc, ye, free, x, y);
  DT_CUDA_LAUNCH_CHECK("k_fint_gather", stream, ctx);
cleanup:
  return rc;
}

struct k_stress_coop_load {
  template <int TYPE> static dt_status go(int mc, size_t *local_max, dt_ctx *ctx) {
    const void *k[] = {mc ? (const void *)k_stress_coop<TYPE, true>
                          : (const void *)k_stress_coop<TYPE, false>,
                       (const void *)k_fint_gather};
    return dt_cuda_load_list(k, 2, local_max, ctx);
  }
};

dt_status dt_cuda_stress_coop_load(int type, int mc, size_t *local_max, dt_ctx *ctx) {
  return coop_by_type<k_stress_coop_load>(type, ctx, mc, local_max);
}
