/* The element tangent from the tangent form (dt_tangent_form, solver/material/j2.h), shared by
 * the cooperative tangent kernel (cuda_elements_coop.cu).
 *
 * With D = K 1x1 + 2 mu I_dev - gam n x n, the block of node pair (A, B) is
 *   K_AB = sum_q  k h_A h_B^T - (2/3) mu g_A g_B^T + mu g_B g_A^T + mu (g_A . g_B) I
 *                 - gam w_A w_B^T            (all scaled by w det J t of point q)
 * with g = dN/dx, h its B-bar average (or g), w_A = n^T Bbar_A = N g_A + tr(n)/3 (h_A - g_A)
 * (N: n as a 3 x 3 tensor), and k = K with B-bar; without it h = g and the two g g^T terms
 * merge into lambda' = K - 2/3 mu. This is B_A^T D B_B written out for this D: 30-40
 * multiply-adds per pair and point instead of 160 with a dense 6 x 6 D, and no 6 x 3 D B
 * tables in shared memory. Plane stress sections never use B-bar (model_finish.c), so the
 * form's K' (exact in the xx, yy, xy entries) is all they need. */
#ifndef DT_CUDA_TANGENT_FORM_CUH
#define DT_CUDA_TANGENT_FORM_CUH

#include "cuda_coop_element.cuh"

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
__device__ __forceinline__ void form_points(const dt_coop_args &a, int e, int valid, int bbar, int t,
                                            form_elem<TYPE> &me) {
  typedef coop_shape<TYPE> S;
  for (int q = t; valid && q < S::NQP; q += T) {
    long qp = (long)e * S::NQP + q; /* one element type: qp_ptr[e] = e * NQP */
    double wt = me.g.dv[q] * a.elem_thick[e];
    double K = a.tan_t[0 * a.stride + qp], mu = a.tan_t[1 * a.stride + qp];
    double gam = a.tan_t[2 * a.stride + qp];
    me.s[q][0] = wt * (bbar ? K : K - 2.0 / 3.0 * mu);
    me.s[q][1] = wt * mu;
    me.s[q][2] = wt * gam;
    me.s[q][3] = wt * (2.0 / 3.0) * mu;
    if (gam != 0.0) { /* plastic: n from the trial stress and back stress (dt_j2_flow_direction) */
      double sig[6], beta[6] = {0, 0, 0, 0, 0, 0};
      for (int k = 0; k < 6; k++) sig[k] = a.sig_t[k * a.stride + qp];
      if (a.mats[a.elem_mat[e]].H_kin != 0.0) /* back stress stays zero without kinematic hardening */
        for (int k = 0; k < 6; k++) beta[k] = a.hist_t[(DT_HIST_BETA + k) * a.stride + qp];
      dt_j2_flow_direction(sig, beta, me.n[q]);
    }
  }
  __syncthreads();
  for (int c = t; valid && c < S::NQP * S::NPE; c += T) {
    int q = c / S::NPE, A = c % S::NPE;
    if (me.s[q][2] == 0.0) continue; /* elastic point: no n x n term */
    const double *n = me.n[q], *g = me.g.dNdx[q] + A * 3;
    const double *h = bbar ? me.g.bbar + A * 3 : g;
    double tr3 = bbar ? (n[0] + n[1] + n[2]) / 3.0 : 0.0;
    me.w[q][A * 3 + 0] = n[0] * g[0] + n[3] * g[1] + n[4] * g[2] + tr3 * (h[0] - g[0]);
    me.w[q][A * 3 + 1] = n[3] * g[0] + n[1] * g[1] + n[5] * g[2] + tr3 * (h[1] - g[1]);
    me.w[q][A * 3 + 2] = n[4] * g[0] + n[5] * g[1] + n[2] * g[2] + tr3 * (h[2] - g[2]);
  }
  __syncthreads();
}

/* K_AB (DIM x DIM, row-major) summed over the points. */
template <int TYPE, bool BBAR>
__device__ __forceinline__ void form_pair(const form_elem<TYPE> &me, int A, int B,
                                          double Kp[coop_shape<TYPE>::DIM * coop_shape<TYPE>::DIM]) {
  typedef coop_shape<TYPE> S;
  const int DIM = S::DIM;
  const double *hA = me.g.bbar + A * 3, *hB = me.g.bbar + B * 3;
  for (int i = 0; i < DIM * DIM; i++) Kp[i] = 0.0;
  for (int q = 0; q < S::NQP; q++) {
    const double *gA = me.g.dNdx[q] + A * 3, *gB = me.g.dNdx[q] + B * 3;
    const double sk = me.s[q][0], sm = me.s[q][1], sg = me.s[q][2];
    double dot = 0.0;
    for (int i = 0; i < DIM; i++) dot += gA[i] * gB[i];
    for (int i = 0; i < DIM; i++)
      for (int j = 0; j < DIM; j++) {
        double v = sm * gA[j] * gB[i];
        if (i == j) v += sm * dot;
        if (BBAR) v += sk * hA[i] * hB[j] - me.s[q][3] * gA[i] * gB[j];
        else v += sk * gA[i] * gB[j];
        Kp[i * DIM + j] += v;
      }
    if (sg != 0.0) {
      const double *wA = me.w[q] + A * 3, *wB = me.w[q] + B * 3;
      for (int i = 0; i < DIM; i++)
        for (int j = 0; j < DIM; j++) Kp[i * DIM + j] -= sg * wA[i] * wB[j];
    }
  }
}

#endif
