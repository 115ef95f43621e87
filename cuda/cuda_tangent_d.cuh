/* The element tangent from a full D per point, for materials whose tangent is not of the tangent
 * form (Mohr-Coulomb's consistent tangent, solver/material/mohr_coulomb.h): the cooperative
 * tangent kernel's second variant (cuda_elements_coop.cu).
 *
 * The stress kernel stored each point's D (its upper triangle, cuda_internal.h tan_d); here point
 * threads load it, scaled by w det J t, into shared memory, and node-pair threads form
 * K_AB = sum_q B_A^T D B_B with B_A the node's 6 x 3 block (dt_elem_bnode: B-bar included, the
 * same code as the CPU backend's B). About 160 multiply-adds per pair and point, four to five
 * times the tangent form's, which is why J2 keeps the form. */
#ifndef DT_CUDA_TANGENT_D_CUH
#define DT_CUDA_TANGENT_D_CUH

#include "cuda_coop_element.cuh"

/* Shared scratch of one element. */
template <int TYPE> struct d_elem {
  typedef coop_shape<TYPE> S;
  coop_elem<TYPE> g;
  double d[S::NQP][DT_CUDA_D_DOUBLES]; /* w det J t times D's upper triangle */
};

/* Index of D[r][c] in the upper triangle stored row by row. */
__device__ __forceinline__ int d_index(int r, int c) {
  if (r > c) {
    int t = r;
    r = c;
    c = t;
  }
  return r * 6 - r * (r - 1) / 2 + (c - r);
}

/* After coop_geometry: each point's D, scaled; t: thread in the element, T threads per element.
 * Ends with __syncthreads. */
template <int TYPE, int T>
__device__ __forceinline__ void d_points(const dt_coop_args &a, int e, int valid, int t,
                                         d_elem<TYPE> &me) {
  typedef coop_shape<TYPE> S;
  for (int c = t; valid && c < S::NQP * DT_CUDA_D_DOUBLES; c += T) {
    int q = c / DT_CUDA_D_DOUBLES, k = c % DT_CUDA_D_DOUBLES;
    long qp = (long)e * S::NQP + q; /* one element type: qp_ptr[e] = e * NQP */
    me.d[q][k] = me.g.dv[q] * a.elem_thick[e] * a.tan_d[k * a.stride + qp];
  }
  __syncthreads();
}

/* K_AB (DIM x DIM, row-major) summed over the points. */
template <int TYPE>
__device__ __forceinline__ void d_pair(const d_elem<TYPE> &me, int bbar, int A, int B,
                                       double Kp[coop_shape<TYPE>::DIM * coop_shape<TYPE>::DIM]) {
  typedef coop_shape<TYPE> S;
  const int DIM = S::DIM;
  for (int i = 0; i < DIM * DIM; i++) Kp[i] = 0.0;
  for (int q = 0; q < S::NQP; q++) {
    double BA[18], BB[18];
    dt_elem_bnode(DIM, me.g.dNdx[q] + A * 3, bbar ? me.g.bbar + A * 3 : (const double *)0, BA);
    dt_elem_bnode(DIM, me.g.dNdx[q] + B * 3, bbar ? me.g.bbar + B * 3 : (const double *)0, BB);
    for (int j = 0; j < DIM; j++) {
      double db[6]; /* column j of D B_B */
      for (int r = 0; r < 6; r++) {
        double v = 0.0;
        for (int k = 0; k < 6; k++) v += me.d[q][d_index(r, k)] * BB[k * 3 + j];
        db[r] = v;
      }
      for (int i = 0; i < DIM; i++) {
        double v = 0.0;
        for (int r = 0; r < 6; r++) v += BA[r * 3 + i] * db[r];
        Kp[i * DIM + j] += v;
      }
    }
  }
}

#endif
