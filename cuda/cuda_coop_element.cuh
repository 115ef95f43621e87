/* The per-element geometry of the cooperative kernels (cuda_elements_coop.cu, and the tangent
 * terms of cuda_tangent_form.cuh): compile-time sizes, the shared scratch of one element and the
 * cooperative gather / point-geometry / B-bar step. */
#ifndef DT_CUDA_COOP_ELEMENT_CUH
#define DT_CUDA_COOP_ELEMENT_CUH

#include "../solver/element/element_kernel.h"
#include "cuda_coop.h"

template <int TYPE> struct coop_shape {
  static const int NPE = DT_TYPE_NPE(TYPE);
  static const int NQP = DT_TYPE_NQP(TYPE);
  static const int DIM = DT_TYPE_DIM(TYPE);
  static const int PAIRS = NPE * NPE;
  static const int T_TAN = PAIRS; /* tangent: a thread per node pair; other phases stride */
  static const int EPB_TAN = 128 / T_TAN > 0 ? 128 / T_TAN : 1;
  static const int T_STR = NPE > NQP ? NPE : NQP; /* stress: a thread per point or node */
};

/* Shared scratch of one element. */
template <int TYPE> struct coop_elem {
  typedef coop_shape<TYPE> S;
  double X[S::NPE * 3];
  double ue[S::NPE * 3];
  double dNdx[S::NQP][S::NPE * 3 + 1]; /* odd row length: point threads hit distinct banks */
  double dv[S::NQP];                   /* w det J */
  double bbar[S::NPE * 3];
  double vol;
  int failed;
};

/* Reference derivatives and weights of the element type's points, computed once per block
 * instead of once per element (rows of NPE * 3 + 1: odd, like dNdx). */
template <int TYPE> struct coop_ref {
  double dN[coop_shape<TYPE>::NQP][coop_shape<TYPE>::NPE * 3 + 1];
  double w[coop_shape<TYPE>::NQP];
};

/* Steps 1-2: reference table, gather, point geometry, B-bar averages; t: thread within the
 * element, T: threads per element (each loop strides by T, so any thread count works); WITH_U:
 * gather u too. */
template <int TYPE, int T, bool WITH_U = true>
__device__ __forceinline__ void coop_geometry(const dt_coop_args &a, int e, int valid, int t,
                                              coop_elem<TYPE> &g, coop_ref<TYPE> &ref) {
  typedef coop_shape<TYPE> S;
  for (int q = threadIdx.x; q < S::NQP; q += blockDim.x) {
    double xi[3], N[S::NPE], dN[S::NPE * 3];
    dt_elem_qp(TYPE, q, xi, &ref.w[q]);
    dt_elem_shape(TYPE, xi, N, dN);
    for (int c = 0; c < S::NPE * 3; c++) ref.dN[q][c] = dN[c];
  }
  for (int A = t; valid && A < S::NPE; A += T) {
    int node = a.conn[e * S::NPE + A]; /* one element type: elem_ptr[e] = e * NPE */
    for (int k = 0; k < 3; k++) g.X[A * 3 + k] = a.x[node * 3 + k];
    for (int i = 0; WITH_U && i < S::DIM; i++) g.ue[A * 3 + i] = a.u[(long)node * S::DIM + i];
  }
  __syncthreads();
  for (int q = t; valid && q < S::NQP; q += T)
    g.dv[q] = ref.w[q] * dt_elem_gradients(TYPE, g.X, ref.dN[q], g.dNdx[q]);
  __syncthreads();
  for (int c = t; valid && a.elem_bbar[e] && c < S::NPE * 3; c += T) {
    /* bbar = (1/V) sum_q dNdx_q dv_q, accumulated in point order like dt_elem_bbar_average */
    double V = 0.0, sum = 0.0;
    for (int q = 0; q < S::NQP; q++) {
      V += g.dv[q];
      sum += g.dNdx[q][c] * g.dv[q];
    }
    g.bbar[c] = V > 0.0 ? sum / V : 0.0;
  }
  __syncthreads();
}

#endif
