/* The element tangent from the tangent form (dt_tangent_form, solver/material/j2.h), shared by
 * the cooperative tangent kernel (cuda_elements_coop.cu): the formula and its per-point
 * arithmetic are solver/element/element_tangent_form.h's (checked on the CPU against the dense
 * B_A^T D B_B); this file lays them out over an element's threads and shared memory. No 6 x 3
 * D B tables in shared memory. Plane stress sections never use B-bar (model_finish.c), so the
 * form's K' (exact in the xx, yy, xy entries) is all they need. */
#ifndef DT_CUDA_TANGENT_FORM_CUH
#define DT_CUDA_TANGENT_FORM_CUH

#include "cuda_coop_element.cuh"
#include "element/element_tangent_form.h"

/* Shared scratch of one element. */
template <int TYPE> struct form_elem {
  typedef coop_shape<TYPE> S;
  coop_elem<TYPE> g;
  double w[S::NQP][S::NPE * 3]; /* n^T Bbar_A (plastic points only) */
  double n[S::NQP][6];
  double s[S::NQP][4]; /* w det J t times: k, mu, gam, 2/3 mu */
};

/* After coop_geometry: each point's form, scaled, and the w_A of plastic points; t: thread in
 * the element, T threads per element. Ends with __syncthreads. */
template <int TYPE, int T>
__device__ __forceinline__ void form_points(const dt_coop_args &a, int e, int valid, int bbar,
                                            int t, form_elem<TYPE> &me) {
  typedef coop_shape<TYPE> S;
  for (int q = t; valid && q < S::NQP; q += T) {
    long qp = (long)e * S::NQP + q; /* one element type: qp_ptr[e] = e * NQP */
    double wt = me.g.dv[q] * a.elem_thick[e];
    double K = a.tan_t[0 * a.stride + qp], mu = a.tan_t[1 * a.stride + qp];
    double gam = a.tan_t[2 * a.stride + qp];
    dt_form_scales(wt, K, mu, gam, bbar, me.s[q]);
    if (gam != 0.0) { /* plastic: n from the trial stress and back stress (dt_j2_flow_direction) */
      double sig[6], beta[6] = {0, 0, 0, 0, 0, 0};
      for (int k = 0; k < 6; k++) sig[k] = a.sig_t[k * a.stride + qp];
      if (a.mats[a.elem_mat[e]].H_kin !=
          0.0) /* back stress stays zero without kinematic hardening */
        for (int k = 0; k < 6; k++) beta[k] = a.hist_t[(DT_HIST_BETA + k) * a.stride + qp];
      dt_j2_flow_direction(sig, beta, me.n[q]);
    }
  }
  __syncthreads();
  for (int c = t; valid && c < S::NQP * S::NPE; c += T) {
    int q = c / S::NPE, A = c % S::NPE;
    if (me.s[q][2] == 0.0) continue; /* elastic point: no n x n term */
    const double *g = me.g.dNdx[q] + A * 3;
    dt_form_w(me.n[q], g, bbar ? me.g.bbar + A * 3 : g, bbar, me.w[q] + A * 3);
  }
  __syncthreads();
}

/* K_AB (DIM x DIM, row-major) summed over the points. */
template <int TYPE, bool BBAR>
__device__ __forceinline__ void
form_pair(const form_elem<TYPE> &me, int A, int B,
          double Kp[coop_shape<TYPE>::DIM * coop_shape<TYPE>::DIM]) {
  typedef coop_shape<TYPE> S;
  const int DIM = S::DIM;
  const double *hA = me.g.bbar + A * 3, *hB = me.g.bbar + B * 3;
  for (int i = 0; i < DIM * DIM; i++) Kp[i] = 0.0;
  for (int q = 0; q < S::NQP; q++)
    dt_form_add_point(DIM, BBAR, me.s[q], me.g.dNdx[q] + A * 3, me.g.dNdx[q] + B * 3, hA, hB,
                      me.w[q] + A * 3, me.w[q] + B * 3, Kp);
}

#endif
