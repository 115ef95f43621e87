/* One-dimensional contractions of tensor-product arrays, private to solver/highorder.
 *
 * An array of shape [post][n][pre] (pre fastest) is contracted along its middle index with a
 * table M of nrow x ncol entries (row-major): forward (n = ncol -> nrow)
 *   out[po][r][pr] = sum_c M[r][c] in[po][c][pr],
 * transposed (n = nrow -> ncol)
 *   out[po][c][pr] = sum_r M[r][c] in[po][r][pr].
 * With lexicographic element arrays (x fastest) a contraction along x has pre = 1, along y
 * pre = n_x, along z post = 1: three of them take nodal values to quadrature points. */
#ifndef DT_HO_ELASTIC_TENSOR_H
#define DT_HO_ELASTIC_TENSOR_H

/* out = M in (add = 0) or out += M in (add = 1) along the middle index. */
static inline void dt_ho_contract(int nrow, int ncol, const double *M, int pre, int post,
                                  const double *in, double *out, int add) {
  for (int po = 0; po < post; po++)
    for (int r = 0; r < nrow; r++) {
      double *o = out + ((size_t)po * nrow + r) * pre;
      const double *m = M + (size_t)r * ncol;
      if (!add)
        for (int pr = 0; pr < pre; pr++) o[pr] = 0.0;
      for (int c = 0; c < ncol; c++) {
        const double *x = in + ((size_t)po * ncol + c) * pre;
        for (int pr = 0; pr < pre; pr++) o[pr] += m[c] * x[pr];
      }
    }
}

/* out = M^T in (add = 0) or out += M^T in (add = 1) along the middle index. */
static inline void dt_ho_contract_t(int nrow, int ncol, const double *M, int pre, int post,
                                    const double *in, double *out, int add) {
  for (int po = 0; po < post; po++) {
    if (!add)
      for (int i = 0; i < ncol * pre; i++) out[(size_t)po * ncol * pre + i] = 0.0;
    for (int r = 0; r < nrow; r++) {
      const double *x = in + ((size_t)po * nrow + r) * pre;
      const double *m = M + (size_t)r * ncol;
      for (int c = 0; c < ncol; c++) {
        double *o = out + ((size_t)po * ncol + c) * pre;
        for (int pr = 0; pr < pre; pr++) o[pr] += m[c] * x[pr];
      }
    }
  }
}

/* Values at the nq^3 points of nodal values u ((P+1)^3) with tables X, Y, Z (nq x (P+1)) per
 * direction: out = (Z (x) Y (x) X) u. t1 and t2 hold (P+1)^2 nq and (P+1) nq^2 doubles. */
static inline void dt_ho_interp3(int P1, int Q, const double *X, const double *Y, const double *Z,
                                 const double *u, double *out, double *t1, double *t2) {
  dt_ho_contract(Q, P1, X, 1, P1 * P1, u, t1, 0);
  dt_ho_contract(Q, P1, Y, Q, P1, t1, t2, 0);
  dt_ho_contract(Q, P1, Z, Q * Q, 1, t2, out, 0);
}

/* The transpose: v (+)= (Z (x) Y (x) X)^T f, f at the nq^3 points, v at the (P+1)^3 nodes. */
static inline void dt_ho_interp3_t(int P1, int Q, const double *X, const double *Y, const double *Z,
                                   const double *f, double *v, int add, double *t1, double *t2) {
  dt_ho_contract_t(Q, P1, Z, Q * Q, 1, f, t2, 0);
  dt_ho_contract_t(Q, P1, Y, Q, P1, t2, t1, 0);
  dt_ho_contract_t(Q, P1, X, 1, P1 * P1, t1, v, add);
}

#endif
