/* Small dense matrices shared by the CPU and CUDA backends (host/device, see hd.h). */
#ifndef DT_SMALL_MATRIX_H
#define DT_SMALL_MATRIX_H

#include <math.h>

#include "hd.h"

/* Invert an n x n block in place, n = 2 or 3, by the adjugate: m^-1 = adj(m) / det(m).
 * Returns 0 (m unchanged) when det is zero or not finite. Used for the nodal block-Jacobi
 * preconditioner, identically on both backends. */
DT_HD static inline int dt_invert_small(double *m, int n) {
  double inv[9], det;
  int i;
  if (n == 2) {
    det = m[0] * m[3] - m[1] * m[2];
    if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
    inv[0] = m[3] / det, inv[1] = -m[1] / det, inv[2] = -m[2] / det, inv[3] = m[0] / det;
    for (i = 0; i < 4; i++) m[i] = inv[i];
    return 1;
  }
  inv[0] = m[4] * m[8] - m[5] * m[7];
  inv[1] = m[2] * m[7] - m[1] * m[8];
  inv[2] = m[1] * m[5] - m[2] * m[4];
  inv[3] = m[5] * m[6] - m[3] * m[8];
  inv[4] = m[0] * m[8] - m[2] * m[6];
  inv[5] = m[2] * m[3] - m[0] * m[5];
  inv[6] = m[3] * m[7] - m[4] * m[6];
  inv[7] = m[1] * m[6] - m[0] * m[7];
  inv[8] = m[0] * m[4] - m[1] * m[3];
  det = m[0] * inv[0] + m[1] * inv[3] + m[2] * inv[6];
  if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
  for (i = 0; i < 9; i++) m[i] = inv[i] / det;
  return 1;
}

#endif
