/* An element's tangent block from the J2 tangent form (dt_tangent_form, material/j2.h), written
 * out instead of B_A^T D B_B with a dense D: the per-point arithmetic of the CUDA backend's
 * cooperative tangent kernel (cuda/cuda_tangent_form.cuh), shared here so that the CPU checks it
 * against the dense product (tests/unit/test_tangent_form.c). Host and device code (STYLE.md §3).
 *
 * With D = K 1x1 + 2 mu I_dev - gam n x n, the block of node pair (A, B) is
 *   K_AB = sum_q  k h_A h_B^T - (2/3) mu g_A g_B^T + mu g_B g_A^T + mu (g_A . g_B) I
 *                 - gam w_A w_B^T            (all scaled by w det J t of point q)
 * with g = dN/dx, h its B-bar average (or g), w_A = n^T Bbar_A = N g_A + tr(n)/3 (h_A - g_A)
 * (N: n as a 3 x 3 tensor), and k = K with B-bar; without it h = g and the two g g^T terms
 * merge into lambda' = K - 2/3 mu. 30-40 multiply-adds per pair and point instead of 160. */
#ifndef DT_ELEMENT_TANGENT_FORM_H
#define DT_ELEMENT_TANGENT_FORM_H

#include "core/hd.h"

/* The point's scales s: w det J t (wt) times k, mu, gam and 2/3 mu. */
DT_HD static inline void dt_form_scales(double wt, double K, double mu, double gam, int bbar,
                                        double s[4]) {
  s[0] = wt * (bbar ? K : K - 2.0 / 3.0 * mu);
  s[1] = wt * mu;
  s[2] = wt * gam;
  s[3] = wt * (2.0 / 3.0) * mu;
}

/* w_A = n^T Bbar_A of a plastic point: g = dN_A/dx, h its B-bar average (g without B-bar). */
DT_HD static inline void dt_form_w(const double n[6], const double g[3], const double h[3],
                                   int bbar, double w[3]) {
  double tr3 = bbar ? (n[0] + n[1] + n[2]) / 3.0 : 0.0;
  w[0] = n[0] * g[0] + n[3] * g[1] + n[4] * g[2] + tr3 * (h[0] - g[0]);
  w[1] = n[3] * g[0] + n[1] * g[1] + n[5] * g[2] + tr3 * (h[1] - g[1]);
  w[2] = n[4] * g[0] + n[5] * g[1] + n[2] * g[2] + tr3 * (h[2] - g[2]);
}

/* Kp (dim x dim, row-major) += point q's part of K_AB: s its scales (dt_form_scales), g and h of
 * nodes A and B, w of both (read only when s[2] != 0, a plastic point). */
DT_HD static inline void dt_form_add_point(int dim, int bbar, const double s[4], const double *gA,
                                           const double *gB, const double *hA, const double *hB,
                                           const double *wA, const double *wB, double *Kp) {
  const double sk = s[0], sm = s[1], sg = s[2];
  double dot = 0.0;
  int i, j;
  for (i = 0; i < dim; i++) dot += gA[i] * gB[i];
  for (i = 0; i < dim; i++)
    for (j = 0; j < dim; j++) {
      double v = sm * gA[j] * gB[i];
      if (i == j) v += sm * dot;
      if (bbar)
        v += sk * hA[i] * hB[j] - s[3] * gA[i] * gB[j];
      else
        v += sk * gA[i] * gB[j];
      Kp[i * dim + j] += v;
    }
  if (sg != 0.0)
    for (i = 0; i < dim; i++)
      for (j = 0; j < dim; j++) Kp[i * dim + j] -= sg * wA[i] * wB[j];
}

#endif
