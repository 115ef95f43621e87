/* hex8i: the 8-node hexahedron with incompatible modes, as CalculiX's C3D8I (Wilson, Taylor,
 * Doherty and Ghaboussi 1973; Taylor, Beresford and Wilson, Int. J. Num. Meth. Engng 10 (1976)
 * 1211-1219). Include element/element.h first.
 *
 * The displacement is hex8's plus the bubbles P_k = 1 - xi_k^2 (k = 0, 1, 2) in each direction,
 * u = sum_a N_a u_a + sum_k P_k alpha_k, with 9 internal parameters alpha per element (CalculiX
 * carries them as 3 extra nodes of 3 DOFs: its shape8hu.f). Their gradients use the Jacobian
 * J0 at the centre, scaled by det J0 / det J (Taylor's correction),
 *     G_k(xi) = (det J0 / det J(xi)) J0^-T dP_k/dxi,
 * so that their integral over the element vanishes and the element passes the patch test on
 * distorted hexahedra (CalculiX leaves the scale out, so its C3D8I does only on parallelepipeds,
 * where det J is constant and the two agree). The 2 x 2 x 2 rule of hex8 integrates.
 *
 * The alpha are condensed in the element, which keeps the residual a function of the element's
 * nodal displacements and committed history alone: for given ue, a local Newton iteration
 * solves f_alpha(ue, alpha) = sum_points B_alpha^T sigma w det J = 0 from alpha = 0 (one step
 * for an elastic element, a few for a plastic one), and then
 *     fe = sum_points B_u^T sigma w det J,    Ke = K_uu - K_ua K_aa^-1 K_au,
 * the exact derivative of fe(ue) (implicit function theorem). The strain and stress at a point
 * are the full ones, B_u ue + B_alpha alpha.
 *
 * f_alpha is the gradient of the element's incremental energy Psi(alpha) (sum over the points
 * of w det J times the strain energy of the return mapping from the committed state), which is
 * convex for J2 with hardening, K_aa its Hessian. Where points switch between elastic and
 * plastic a full Newton step can overshoot far, so the step is halved while it passes Psi's
 * minimum along its line (f_alpha . dalpha > 0: Psi's slope there, increasing in the step
 * since Psi is convex) or the material update cannot take its strains; each accepted step then
 * lowers Psi. */
#ifndef DT_HEX8I_H
#define DT_HEX8I_H

#ifndef DT_ELEMENT_H
#error "include element/element.h before hex8i.h"
#endif

#define DT_HEX8I_ITER 100 /* evaluations of the alpha iteration before the element fails */

/* Solve A x = b for the n x n matrix A (row-major; overwritten) by Gaussian elimination with
 * partial pivoting, x in b; nrhs right-hand sides stored as the columns of b (n x nrhs,
 * row-major). Returns 0, or -1 for a singular A. */
DT_HD static inline int dt_hex8i_solve(double *A, int n, double *b, int nrhs) {
  int i, j, k, p;
  for (k = 0; k < n; k++) {
    double amax = fabs(A[k * n + k]), t;
    p = k;
    for (i = k + 1; i < n; i++)
      if (fabs(A[i * n + k]) > amax) amax = fabs(A[i * n + k]), p = i;
    if (!(amax > 0.0)) return -1;
    if (p != k) {
      for (j = 0; j < n; j++) t = A[k * n + j], A[k * n + j] = A[p * n + j], A[p * n + j] = t;
      for (j = 0; j < nrhs; j++)
        t = b[k * nrhs + j], b[k * nrhs + j] = b[p * nrhs + j], b[p * nrhs + j] = t;
    }
    for (i = k + 1; i < n; i++) {
      const double f = A[i * n + k] / A[k * n + k];
      for (j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
      for (j = 0; j < nrhs; j++) b[i * nrhs + j] -= f * b[k * nrhs + j];
    }
  }
  for (k = n - 1; k >= 0; k--)
    for (j = 0; j < nrhs; j++) {
      double s = b[k * nrhs + j];
      for (i = k + 1; i < n; i++) s -= A[k * n + i] * b[i * nrhs + j];
      b[k * nrhs + j] = s / A[k * n + k];
    }
  return 0;
}

/* The bubbles' gradients at xi (G[3 k + j] = dP_k/dx_j with Taylor's scale) from the centre's
 * inverse Jacobian Ji0 ((J0^-1)_mj at Ji0[3 m + j]), det J0 and det J(xi). */
DT_HD static inline void dt_hex8i_bubble_gradients(const double xi[3], const double Ji0[9],
                                                   double det0, double det, double G[9]) {
  int k, j;
  for (k = 0; k < 3; k++)
    for (j = 0; j < 3; j++) G[3 * k + j] = -2.0 * xi[k] * Ji0[3 * k + j] * det0 / det;
}

/* hex8i's fe (and Ke, when not NULL) at ue; the per-point outputs as dt_element_residual_ws's
 * (qa, qp0). Returns the number of plastic points, or -1 - (local point) when a point's return
 * mapping fails or the alpha iteration does not converge (the caller cuts the increment back). */
DT_HD static inline int dt_hex8i_residual(const double *X, const double *ue,
                                          const dt_material_params *mat, const dt_qp_arrays *qa,
                                          long qp0, double *fe, double *Ke) {
  double N[8], dN[24], dNdx[24], J0[9], cof[9], Ji0[9], det0, xi[3], w;
  double alpha[9], fa[9], Kaa[81], Kau[9 * 24], fscale = 0.0;
  double alpha0[9], dalpha[9], s = 1.0, slope = 0.0; /* the accepted iterate, the step, its scale */
  int it, q, i, j, k, a, n_plastic = 0;
  for (i = 0; i < 9; i++) xi[i % 3] = 0.0, alpha[i] = alpha0[i] = dalpha[i] = 0.0;
  dt_elem_shape(DT_HEX8, xi, N, dN); /* the centre's Jacobian */
  for (i = 0; i < 9; i++) J0[i] = 0.0;
  for (a = 0; a < 8; a++)
    for (i = 0; i < 3; i++)
      for (k = 0; k < 3; k++) J0[3 * i + k] += X[3 * a + i] * dN[3 * a + k];
  det0 = dt_cofactor3(J0, cof);
  if (!(det0 > 0.0)) return -1;
  for (k = 0; k < 3; k++) /* J0^-1 = cof^T / det */
    for (j = 0; j < 3; j++) Ji0[3 * k + j] = cof[3 * j + k] / det0;
  for (it = 0; it <= DT_HEX8I_ITER; it++) {
    double fa_max = 0.0;
    int bad = 0;
    n_plastic = 0;
    for (i = 0; i < 9; i++) fa[i] = 0.0;
    for (i = 0; i < 81; i++) Kaa[i] = 0.0;
    for (i = 0; i < 24; i++) fe[i] = 0.0;
    for (q = 0; q < 8; q++) {
      double G[9], eps[6], sig[6], D[36], det, wdv, Bf[6 * 33], DB[6 * 33];
      dt_mat_state old_s, new_s;
      int res;
      dt_elem_qp(DT_HEX8, q, xi, &w);
      dt_elem_shape(DT_HEX8, xi, N, dN);
      det = dt_elem_gradients(DT_HEX8, X, dN, dNdx);
      if (!(det > 0.0)) return -1 - q;
      wdv = w * det;
      dt_hex8i_bubble_gradients(xi, Ji0, det0, det, G);
      for (i = 0; i < 6 * 33; i++) Bf[i] = 0.0; /* [B_u | B_alpha], 33 columns */
      for (a = 0; a < 11; a++) {
        double Bn[18];
        dt_elem_bnode(3, a < 8 ? &dNdx[3 * a] : &G[3 * (a - 8)], (const double *)0, Bn);
        for (i = 0; i < 6; i++)
          for (j = 0; j < 3; j++) Bf[i * 33 + 3 * a + j] = Bn[i * 3 + j];
      }
      for (i = 0; i < 6; i++) {
        double s = 0.0;
        for (j = 0; j < 24; j++) s += Bf[i * 33 + j] * ue[j];
        for (j = 0; j < 9; j++) s += Bf[i * 33 + 24 + j] * alpha[j];
        eps[i] = s;
      }
      for (k = 0; qa->eps_t && k < 6; k++) qa->eps_t[k * qa->stride + qp0 + q] = eps[k];
      for (k = 0; qa->eps0 && k < 6; k++) eps[k] -= qa->eps0[k * qa->stride + qp0 + q];
      dt_hist_load(qa->hist_c, qa->stride, qp0 + q, &old_s);
      res = dt_material_update(mat, DT_STATE_3D, eps, &old_s, &new_s, sig, D);
      if (res == DT_MAT_NO_CONVERGENCE) {
        if (it == 0) return -1 - q;
        bad = 1; /* the step went too far: halve it */
        break;
      }
      n_plastic += res == DT_MAT_PLASTIC;
      if (qa->hist_t) dt_hist_store(qa->hist_t, qa->stride, qp0 + q, &new_s);
      for (k = 0; qa->sig_t && k < 6; k++) qa->sig_t[k * qa->stride + qp0 + q] = sig[k];
      for (j = 0; j < 33; j++) { /* B^T sig */
        double s = 0.0;
        for (i = 0; i < 6; i++) s += Bf[i * 33 + j] * sig[i];
        if (j < 24)
          fe[j] += s * wdv;
        else
          fa[j - 24] += s * wdv;
      }
      for (i = 0; i < 6; i++) /* D B */
        for (j = 0; j < 33; j++) {
          double s = 0.0;
          for (k = 0; k < 6; k++) s += D[i * 6 + k] * Bf[k * 33 + j];
          DB[i * 33 + j] = s;
        }
      for (i = 24; i < 33; i++) /* K_aa, and K_au and K_uu once alpha has converged */
        for (j = 0; j < 33; j++) {
          double s = 0.0;
          for (k = 0; k < 6; k++) s += Bf[k * 33 + i] * DB[k * 33 + j];
          if (j >= 24)
            Kaa[(i - 24) * 9 + j - 24] += s * wdv;
          else if (q == 0)
            Kau[(i - 24) * 24 + j] = s * wdv;
          else
            Kau[(i - 24) * 24 + j] += s * wdv;
        }
      if (Ke)
        for (i = 0; i < 24; i++)
          for (j = 0; j < 24; j++) {
            double s = 0.0;
            for (k = 0; k < 6; k++) s += Bf[k * 33 + i] * DB[k * 33 + j];
            if (q == 0)
              Ke[i * 24 + j] = s * wdv;
            else
              Ke[i * 24 + j] += s * wdv;
          }
    }
    if (!bad) {
      for (i = 0; i < 9; i++) fa_max = fmax(fa_max, fabs(fa[i]));
      if (it == 0) {
        for (i = 0; i < 24; i++) fscale = fmax(fscale, fabs(fe[i]));
        fscale = fmax(fscale, fa_max);
      }
      if (fa_max <= 1e-12 * fscale) break;
    }
    if (!bad && it > 0) /* the slope of Psi along the step at s: f_alpha . dalpha */
      for (i = 0, slope = 0.0; i < 9; i++) slope += fa[i] * dalpha[i];
    if (it > 0 && (bad || slope > 0.0) && s > 1e-10) { /* past Psi's minimum on the line */
      s *= 0.5;
      for (i = 0; i < 9; i++) alpha[i] = alpha0[i] + s * dalpha[i];
      continue;
    }
    if (bad || it == DT_HEX8I_ITER) return -1;
    {
      double A[81];
      for (i = 0; i < 81; i++) A[i] = Kaa[i];
      for (i = 0; i < 9; i++) alpha0[i] = alpha[i], dalpha[i] = -fa[i];
      if (dt_hex8i_solve(A, 9, dalpha, 1) != 0) return -1;
      for (i = 0; i < 9; i++) alpha[i] = alpha0[i] + dalpha[i];
      s = 1.0;
    }
  }
  if (Ke) { /* Ke = K_uu - K_ua K_aa^-1 K_au, with K_ua = K_au^T (D symmetric) */
    double A[81];
    for (i = 0; i < 81; i++) A[i] = Kaa[i];
    {
      double Y[9 * 24]; /* K_aa^-1 K_au */
      for (i = 0; i < 9 * 24; i++) Y[i] = Kau[i];
      if (dt_hex8i_solve(A, 9, Y, 24) != 0) return -1;
      for (i = 0; i < 24; i++)
        for (j = 0; j < 24; j++) {
          double s = 0.0;
          for (k = 0; k < 9; k++) s += Kau[k * 24 + i] * Y[k * 24 + j];
          Ke[i * 24 + j] -= s;
        }
    }
  }
  return n_plastic;
}

#endif
