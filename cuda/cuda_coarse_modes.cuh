/* The rigid-body mode values of the two-level preconditioner's boxes on the device (shared by
 * cuda_coarse.cu and the matrix-free operator's coarse matrix in cuda_matrix_free.cu). */
#ifndef DT_CUDA_COARSE_MODES_CUH
#define DT_CUDA_COARSE_MODES_CUH

#include "cuda_impl.h" /* first: it declares the solver headers extern "C" */
#include "../solver/coarse_space.h"

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

#endif
