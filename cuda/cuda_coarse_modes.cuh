/* The rigid-body mode values of the two-level preconditioner's boxes on the device (shared by
 * cuda_coarse.cu and the matrix-free operator's coarse matrix in cuda_matrix_free.cu). */
#ifndef DT_CUDA_COARSE_MODES_CUH
#define DT_CUDA_COARSE_MODES_CUH

#include "cuda_internal.h" /* first: it declares the solver headers extern "C" */
#include "problem/coarse_space.h"

/* The kernels are templates on DOFs per node (DPN, and NM = 6 or 3 modes) so that the small
 * per-node arrays unroll into registers (with run-time loop bounds they went to local memory:
 * k_coarse_items took 31-42 ms on C5 that way). */
template <int DPN> struct coarse_dims { static const int NM = DPN == 3 ? 6 : 3; };

/* All of node a's masked mode values: R[i * NM + m]. */
template <int DPN>
__device__ __forceinline__ void node_modes(const dt_cuda_coarse_args &g, int a, double *R) {
  const int NM = coarse_dims<DPN>::NM;
  double d[3] = {g.node_d[3 * (long)a], g.node_d[3 * (long)a + 1], g.node_d[3 * (long)a + 2]};
#pragma unroll
  for (int i = 0; i < DPN; i++) {
    double f = g.free[(long)a * DPN + i];
#pragma unroll
    for (int m = 0; m < NM; m++) R[i * NM + m] = f * dt_coarse_mode(DPN, m, d, i);
  }
}

/* acc[m'] += (r_a^T K_ab R_b)[m'] for one block K_ab of node a's row: ra is row m of R_a^T (its
 * DPN values), K_ab(i, j) at kab[j DPN + i] (COL_MAJOR: the BSR tangent) or kab[i DPN + j]
 * (dt_emat_block's order), b the block's column node. */
template <int DPN, bool COL_MAJOR>
__device__ __forceinline__ void coarse_add_block(const dt_cuda_coarse_args &g, const double *ra,
                                                 const double *kab, int b, double *acc) {
  const int NM = coarse_dims<DPN>::NM;
  double kr[DPN], Rb[DPN * NM]; /* kr = (R_a^T K_ab) row m */
#pragma unroll
  for (int j = 0; j < DPN; j++) {
    kr[j] = 0.0;
#pragma unroll
    for (int i = 0; i < DPN; i++) kr[j] += ra[i] * kab[COL_MAJOR ? j * DPN + i : i * DPN + j];
  }
  node_modes<DPN>(g, b, Rb);
#pragma unroll
  for (int mp = 0; mp < NM; mp++) {
    double v = 0.0;
#pragma unroll
    for (int j = 0; j < DPN; j++) v += kr[j] * Rb[j * NM + mp];
    acc[mp] += v;
  }
}

/* Pass 1 of the coarse matrix for the thread's (node a, mode m), a thread per pair: for each
 * item of a (box t), row m of the NM x NM sum of R_a^T K_ab R_b over a's blocks K_ab in t,
 * which blocks(a, t, ra, acc) adds up (calling coarse_add_block for each), stored in g.P. */
template <int DPN, class Blocks>
__device__ __forceinline__ void coarse_item_sums(const dt_cuda_coarse_args &g, Blocks blocks) {
  const int NM = coarse_dims<DPN>::NM;
  long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= (long)g.n_nodes * NM) return;
  int a = (int)(tid / NM), m = (int)(tid % NM);
  double Ra[DPN * NM], ra[DPN];
  node_modes<DPN>(g, a, Ra);
#pragma unroll
  for (int i = 0; i < DPN; i++) ra[i] = Ra[i * NM + m];
  for (int it = g.item_ptr[a]; it < g.item_ptr[a + 1]; it++) {
    double acc[NM];
#pragma unroll
    for (int mp = 0; mp < NM; mp++) acc[mp] = 0.0;
    blocks(a, g.item_sub[it], ra, acc);
#pragma unroll
    for (int mp = 0; mp < NM; mp++) g.P[((long)it * NM + m) * NM + mp] = acc[mp];
  }
}

#endif
