/* Small dense matrices shared by the CPU and CUDA backends (host/device, see hd.h). */
#ifndef DT_SMALL_MATRIX_H
#define DT_SMALL_MATRIX_H

#include <math.h>

#include "hd.h"

/* Cofactor matrix of a 3 x 3 matrix (row-major) and its determinant, expanded along row 0:
 * m^-1 = cof^T / det. Shared by the element Jacobians (dt_jacobian_cofactor) and the nodal
 * block inverse below. */
DT_HD static inline double dt_cofactor3(const double m[9], double cof[9]) {
  cof[0] = m[4] * m[8] - m[5] * m[7];
  cof[1] = m[5] * m[6] - m[3] * m[8];
  cof[2] = m[3] * m[7] - m[4] * m[6];
  cof[3] = m[2] * m[7] - m[1] * m[8];
  cof[4] = m[0] * m[8] - m[2] * m[6];
  cof[5] = m[1] * m[6] - m[0] * m[7];
  cof[6] = m[1] * m[5] - m[2] * m[4];
  cof[7] = m[2] * m[3] - m[0] * m[5];
  cof[8] = m[0] * m[4] - m[1] * m[3];
  return m[0] * cof[0] + m[1] * cof[1] + m[2] * cof[2];
}

/* Invert an n x n block in place, n = 2 or 3, by the adjugate: m^-1 = adj(m) / det(m).
 * Returns 0 (m unchanged) when det is zero or not finite. Used for the nodal block-Jacobi
 * preconditioner, identically on both backends. */
DT_HD static inline int dt_invert_small(double *m, int n) {
  double inv[9], det;
  int i, j;
  if (n == 2) {
    det = m[0] * m[3] - m[1] * m[2];
    if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
    inv[0] = m[3] / det, inv[1] = -m[1] / det, inv[2] = -m[2] / det, inv[3] = m[0] / det;
    for (i = 0; i < 4; i++) m[i] = inv[i];
    return 1;
  }
  det = dt_cofactor3(m, inv); /* inv holds the cofactors: m^-1 = inv^T / det */
  if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) m[i * 3 + j] = inv[j * 3 + i] / det;
  return 1;
}

#endif
