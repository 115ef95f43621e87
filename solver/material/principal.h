/* Principal values and directions of a symmetric 3x3 tensor, for the material updates that work
 * in principal stress space (mohr_coulomb.h). Host and device code (STYLE.md §3).
 *
 * Cyclic Jacobi rotations: each rotation zeroes one off-diagonal entry exactly and the sum of
 * squares of the off-diagonal entries falls quadratically once it is small, so a handful of
 * sweeps reach rounding. Chosen over the closed-form cubic (trigonometric) solution because
 * that loses the directions, and relative accuracy of close eigenvalues, exactly where a
 * return mapping needs them: near the edges of the Mohr-Coulomb pyramid, where two principal
 * stresses meet. Repeated eigenvalues are harmless (any orthonormal basis of their space is
 * returned, and the projected stress does not depend on the choice). */
#ifndef DT_PRINCIPAL_H
#define DT_PRINCIPAL_H

#include <math.h>

#include "core/hd.h"

#define DT_JACOBI_MAX_SWEEPS 30

/* One Jacobi rotation in the (p, q) plane of the symmetric A (row-major 3x3), accumulated into
 * the columns of V; afterwards A[p][q] = 0 (Golub & Van Loan, Alg. 8.4.1, the smaller angle). */
DT_HD static inline void dt_jacobi_rotate(double A[9], double V[9], int p, int q) {
  double apq = A[p * 3 + q], app, aqq, theta, t, c, s;
  int r = 3 - p - q, k;
  if (apq == 0.0) return;
  app = A[p * 3 + p];
  aqq = A[q * 3 + q];
  theta = (aqq - app) / (2.0 * apq);
  t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
  c = 1.0 / sqrt(t * t + 1.0);
  s = t * c;
  {
    double arp = A[r * 3 + p], arq = A[r * 3 + q];
    A[p * 3 + p] = app - t * apq;
    A[q * 3 + q] = aqq + t * apq;
    A[p * 3 + q] = A[q * 3 + p] = 0.0;
    A[r * 3 + p] = A[p * 3 + r] = c * arp - s * arq;
    A[r * 3 + q] = A[q * 3 + r] = s * arp + c * arq;
  }
  for (k = 0; k < 3; k++) {
    double vkp = V[k * 3 + p], vkq = V[k * 3 + q];
    V[k * 3 + p] = c * vkp - s * vkq;
    V[k * 3 + q] = s * vkp + c * vkq;
  }
}

/* Eigen-decomposition of the tensor whose Voigt components (xx, yy, zz, xy, xz, yz) are s:
 * s = sum_i lam[i] v_i v_i^T with lam[0] >= lam[1] >= lam[2] and v_i = column i of V (V[k*3+i]
 * is component k), V orthonormal. Returns the number of sweeps, or -1 if they did not converge
 * (not finite input). */
DT_HD static inline int dt_principal(const double s[6], double lam[3], double V[9]) {
  double A[9];
  double scale = fabs(s[0]) + fabs(s[1]) + fabs(s[2]) + fabs(s[3]) + fabs(s[4]) + fabs(s[5]);
  int sweep, i, j, k;
  A[0] = s[0];
  A[1] = s[3];
  A[2] = s[4];
  A[3] = s[3];
  A[4] = s[1];
  A[5] = s[5];
  A[6] = s[4];
  A[7] = s[5];
  A[8] = s[2];
  for (i = 0; i < 9; i++) V[i] = (i % 4 == 0) ? 1.0 : 0.0;
  if (!(scale <= 1.0e300)) return -1; /* NaN or infinite */
  for (sweep = 0; sweep < DT_JACOBI_MAX_SWEEPS; sweep++) {
    double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
    if (off <= 1.0e-17 * scale) break; /* below rounding of the diagonal */
    dt_jacobi_rotate(A, V, 0, 1);
    dt_jacobi_rotate(A, V, 0, 2);
    dt_jacobi_rotate(A, V, 1, 2);
  }
  if (sweep == DT_JACOBI_MAX_SWEEPS) return -1;
  for (i = 0; i < 3; i++) lam[i] = A[i * 4];
  for (i = 0; i < 2; i++) /* sort descending, with the columns */
    for (j = 0; j < 2 - i; j++)
      if (lam[j] < lam[j + 1]) {
        double t = lam[j];
        lam[j] = lam[j + 1];
        lam[j + 1] = t;
        for (k = 0; k < 3; k++) {
          t = V[k * 3 + j];
          V[k * 3 + j] = V[k * 3 + j + 1];
          V[k * 3 + j + 1] = t;
        }
      }
  return sweep;
}

/* The tensor sum_i lam[i] v_i v_i^T as Voigt components (xx, yy, zz, xy, xz, yz). */
DT_HD static inline void dt_principal_compose(const double lam[3], const double V[9], double s[6]) {
  int c;
  for (c = 0; c < 6; c++) {
    /* component c is (row a, column b) of the tensor */
    int a = c < 3 ? c : (c == 5 ? 1 : 0), b = c < 3 ? c : (c == 3 ? 1 : 2);
    s[c] = lam[0] * V[a * 3] * V[b * 3] + lam[1] * V[a * 3 + 1] * V[b * 3 + 1] +
           lam[2] * V[a * 3 + 2] * V[b * 3 + 2];
  }
}

#endif
