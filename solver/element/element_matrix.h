/* Stored element matrices of the matrix-free operator ([Kiran2023, Chs. 4-5]), shared by the CPU
 * backend and the CUDA kernels.
 *
 * An element tangent K_e is symmetric, so only its node blocks K_AB with A <= B are kept
 * ([Kiran2023]'s EbE_sym keeps the upper triangle for the same reason): npe (npe + 1) / 2 blocks
 * of dpn x dpn, pair (A, B) at dt_emat_pair, entry (i, j) of a block at [j dpn + i]
 * (column-major, the order in which the CUDA tangent kernel forms its blocks). hex8: 36 blocks,
 * 324 doubles instead of 576. Keeping whole diagonal blocks (not their upper triangles) keeps
 * every block 9 consecutive doubles, which the products read without index arithmetic.
 *
 * y_e = K_e x_e then reads each stored block once, for row A (K_AB x_B) and, off the diagonal,
 * transposed for row B (K_AB^T x_A). */
#ifndef DT_ELEMENT_MATRIX_H
#define DT_ELEMENT_MATRIX_H

#include "core/hd.h"

/* Stored node blocks of an element of npe nodes. */
DT_HD static inline int dt_emat_pairs(int npe) { return npe * (npe + 1) / 2; }

/* Doubles stored per element. */
DT_HD static inline int dt_emat_doubles(int npe, int dpn) { return dt_emat_pairs(npe) * dpn * dpn; }

/* Index of block (A, B), A <= B, among the stored blocks (row by row of the upper triangle). */
DT_HD static inline int dt_emat_pair(int npe, int A, int B) {
  return A * npe - A * (A - 1) / 2 + (B - A);
}

/* Pack a full element matrix (nde x nde, row-major, nde = npe dpn, symmetric) into blocks. */
DT_HD static inline void dt_emat_pack(int npe, int dpn, const double *Ke, double *out) {
  int nde = npe * dpn, d2 = dpn * dpn;
  for (int A = 0; A < npe; A++)
    for (int B = A; B < npe; B++) {
      double *blk = out + dt_emat_pair(npe, A, B) * d2;
      for (int i = 0; i < dpn; i++)
        for (int j = 0; j < dpn; j++) blk[j * dpn + i] = Ke[(A * dpn + i) * nde + B * dpn + j];
    }
}

/* y_e = K_e x_e (ye: npe dpn values, overwritten), reading each stored value once: block
 * (A, B) serves row A and, off the diagonal, row B transposed. The stored values are `stride`
 * apart (1 on the CPU; the CUDA store interleaves elements, cuda_matrix_free.cu). */
DT_HD static inline void dt_emat_apply(int npe, int dpn, const double *K, int stride,
                                       const double *xe, double *ye) {
  int d2 = dpn * dpn;
  for (int i = 0; i < npe * dpn; i++) ye[i] = 0.0;
  for (int A = 0; A < npe; A++)
    for (int B = A; B < npe; B++) {
      const double *blk = K + (long)dt_emat_pair(npe, A, B) * d2 * stride;
      for (int j = 0; j < dpn; j++)
        for (int i = 0; i < dpn; i++) {
          double k = blk[(j * dpn + i) * stride]; /* (A i, B j) */
          ye[A * dpn + i] += k * xe[B * dpn + j];
          if (B != A) ye[B * dpn + j] += k * xe[A * dpn + i];
        }
    }
}

/* Block K_AB for any A, B (K_BA^T below the diagonal), row-major: kab[i dpn + j] = K_(A i, B j).
 * Written without a branch on A <= B (the block and the entry order are selected), so that
 * the GPU threads of one element's nodes, which differ in A, do not diverge. The rows of the
 * products and the two-level coarse matrix read the blocks through it. */
DT_HD static inline void dt_emat_block(int npe, int dpn, const double *K, int stride, int A, int B,
                                       double *kab) {
  int lo = A < B ? A : B, hi = A < B ? B : A, upper = A <= B;
  const double *blk = K + (long)dt_emat_pair(npe, lo, hi) * dpn * dpn * stride;
  for (int i = 0; i < dpn; i++)
    for (int j = 0; j < dpn; j++)
      kab[i * dpn + j] = blk[(upper ? j * dpn + i : i * dpn + j) * stride];
}

/* Row A of y_e = K_e x_e: yA (dpn values) = sum_B K_AB x_B. */
DT_HD static inline void dt_emat_row(int npe, int dpn, const double *K, int stride, int A,
                                     const double *xe, double *yA) {
  double kab[9];
  for (int i = 0; i < dpn; i++) yA[i] = 0.0;
  for (int B = 0; B < npe; B++) {
    dt_emat_block(npe, dpn, K, stride, A, B, kab);
    for (int i = 0; i < dpn; i++)
      for (int j = 0; j < dpn; j++) yA[i] += kab[i * dpn + j] * xe[B * dpn + j];
  }
}

/* Row A of y = K x for two elements that share K (the GPU's product on elements of one class):
 * each value read serves both, yA0 = (K x0)_A and yA1 = (K x1)_A. */
DT_HD static inline void dt_emat_row2(int npe, int dpn, const double *K, int A, const double *x0,
                                      const double *x1, double *yA0, double *yA1) {
  double kab[9];
  for (int i = 0; i < dpn; i++) yA0[i] = yA1[i] = 0.0;
  for (int B = 0; B < npe; B++) {
    dt_emat_block(npe, dpn, K, 1, A, B, kab);
    for (int i = 0; i < dpn; i++)
      for (int j = 0; j < dpn; j++) {
        yA0[i] += kab[i * dpn + j] * x0[B * dpn + j];
        yA1[i] += kab[i * dpn + j] * x1[B * dpn + j];
      }
  }
}

/* Diagonal block K_AA, row-major (as dt_invert_small reads it), added into blk. */
DT_HD static inline void dt_emat_diag_add(int npe, int dpn, const double *K, int stride, int A,
                                          double *blk) {
  const double *d = K + (long)dt_emat_pair(npe, A, A) * dpn * dpn * stride;
  for (int i = 0; i < dpn; i++)
    for (int j = 0; j < dpn; j++) blk[i * dpn + j] += d[(j * dpn + i) * stride];
}

/* A node's diagonal block (row-major) with the rows and columns of its constrained DOFs
 * (con: the node's dpn flags, nonzero where constrained) made identity, as in the assembled
 * tangent: the matrix-free operator's preconditioner blocks on both backends. */
DT_HD static inline void dt_emat_diag_dirichlet(int dpn, const double *con, double *blk) {
  for (int i = 0; i < dpn; i++)
    if (con[i] != 0.0)
      for (int j = 0; j < dpn; j++) blk[i * dpn + j] = blk[j * dpn + i] = i == j ? 1.0 : 0.0;
}

#endif
