/* The row-wise sparse product C = A B of the AMG setup (Gustavson), in two passes: the
 * symbolic pass finds C's pattern (row counts, then the columns), the numeric pass its values,
 * so that a refresh with new values runs only the second.
 *
 * Both work on A's row groups (rows with one column list, amg_csr.c): C's rows of a group have
 * one pattern too, found once, and the numeric pass looks up each product term's position once
 * for all rows of the group, which divides the index work by the group size (3 on the mesh,
 * up to 6 on coarse levels). C inherits A's groups. Each row is summed in A's entry order by
 * one thread, so values do not depend on the thread count.
 *
 * The Galerkin product A_c = R (A P) is symmetric: its numeric pass forms only the columns from
 * each group's first row on (half the work) and copies the others across the diagonal, so
 * A_c is symmetric bit for bit. */
#include <string.h>

#include "core/omp_threads.h"
#include "amg_internal.h"

/* The columns of row i of A B, each once, into out (when not NULL); returns their count.
 * mark (B's columns) holds i where a column was seen in this row. */
static int product_row(const dt_amg_csr *A, const dt_amg_csr *B, int i, int *mark, int *out) {
  int cnt = 0;
  for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
    int a = A->col[k];
    for (int m = B->row_ptr[a]; m < B->row_ptr[a + 1]; m++) {
      int j = B->col[m];
      if (mark[j] == i) continue;
      mark[j] = i;
      if (out) out[cnt] = j;
      cnt++;
    }
  }
  return cnt;
}

/* C's row offsets from the group counts (each group's first row holds its count). */
static dt_status offsets(const dt_amg_csr *A, dt_amg_csr *C, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int64_t nnz = 0;
  for (int g = 0; g < A->n_groups; g++) {
    int cnt = C->row_ptr[A->group_ptr[g] + 1];
    for (int i = A->group_ptr[g]; i < A->group_ptr[g + 1]; i++) {
      nnz += cnt;
      DT_CHECK(nnz < INT32_MAX, ctx, DT_ERR_UNSUPPORTED,
               "an AMG product has more than 2^31 nonzeros");
      C->row_ptr[i + 1] = (int)nnz;
    }
  }
cleanup:
  return rc;
}

dt_status dt_amg_spgemm_symbolic(const dt_amg_csr *A, const dt_amg_csr *B, dt_amg_csr *C,
                                 dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nt = dt_omp_max_threads(), n = A->n_rows;
  int *mark = NULL;
  memset(C, 0, sizeof *C);
  C->n_rows = n;
  C->n_cols = B->n_cols;
  DT_ALLOC(mark, (size_t)nt * B->n_cols, ctx, "AMG product markers");
  DT_ALLOC(C->row_ptr, n + 1, ctx, "AMG product rows");
  for (size_t j = 0; j < (size_t)nt * B->n_cols; j++) mark[j] = -1;
#pragma omp parallel for schedule(dynamic, 64) if (DT_AMG_OMP_ROWS(A))
  for (int g = 0; g < A->n_groups; g++) { /* counts, into each group's first row */
    int i0 = A->group_ptr[g];
    C->row_ptr[i0 + 1] = product_row(A, B, i0, mark + (size_t)dt_omp_thread() * B->n_cols, NULL);
  }
  DT_TRY(offsets(A, C, ctx));
  DT_ALLOC(C->col, C->row_ptr[n], ctx, "AMG product columns");
  DT_ALLOC(C->val, C->row_ptr[n], ctx, "AMG product values");
  for (size_t j = 0; j < (size_t)nt * B->n_cols; j++) mark[j] = -1;
#pragma omp parallel for schedule(dynamic, 64) if (DT_AMG_OMP_ROWS(A))
  for (int g = 0; g < A->n_groups; g++) { /* columns of the first row, copied to the others */
    int i0 = A->group_ptr[g], len = C->row_ptr[i0 + 1] - C->row_ptr[i0];
    int *first = C->col + C->row_ptr[i0];
    product_row(A, B, i0, mark + (size_t)dt_omp_thread() * B->n_cols, first);
    dt_amg_sort_ints(first, len);
    for (int i = i0 + 1; i < A->group_ptr[g + 1]; i++)
      memcpy(C->col + C->row_ptr[i], first, sizeof(int) * (size_t)len);
  }
  DT_TRY(dt_amg_csr_copy_groups(C, A, ctx));
cleanup:
  dt_free(mark);
  if (rc != DT_OK) dt_amg_csr_free(C);
  return rc;
}

/* cv[d] += a[d] B_r from entry m0 on, for the gs rows of a group (pos: each column's offset in
 * their list). */
static inline __attribute__((always_inline)) void accumulate(const dt_amg_csr *B, int r, int m0,
                                                             const int *pos, int gs,
                                                             const double *a, double **cv) {
  for (int m = m0; m < B->row_ptr[r + 1]; m++) {
    int j = pos[B->col[m]];
    double b = B->val[m];
    for (int d = 0; d < gs; d++) cv[d][j] += a[d] * b;
  }
}

/* The first entry of B's row r with a column >= lo (columns ascending). */
static int first_at_least(const dt_amg_csr *B, int r, int lo) {
  int a = B->row_ptr[r], b = B->row_ptr[r + 1];
  while (a < b) {
    int mid = (a + b) / 2;
    if (B->col[mid] < lo)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

/* C's rows of group g = A's rows of g times B; pos (B's columns, -1 outside the row) maps a
 * column to its offset in the group's shared column list. upper: only the columns from the
 * group's first row on (the rest is mirrored by the caller). */
static void numeric_group(const dt_amg_csr *A, const dt_amg_csr *B, dt_amg_csr *C, int g, int *pos,
                          int upper) {
  int i0 = A->group_ptr[g], gs = A->group_ptr[g + 1] - i0;
  int len = C->row_ptr[i0 + 1] - C->row_ptr[i0], alen = A->row_ptr[i0 + 1] - A->row_ptr[i0];
  const int *ccol = C->col + C->row_ptr[i0], *acol = A->col + A->row_ptr[i0];
  const double *av[DT_AMG_GROUP_MAX];
  double *cv[DT_AMG_GROUP_MAX];
  for (int d = 0; d < gs; d++) {
    av[d] = A->val + A->row_ptr[i0 + d];
    cv[d] = C->val + C->row_ptr[i0 + d];
    memset(cv[d], 0, sizeof(double) * (size_t)len);
  }
  for (int j = 0; j < len; j++) pos[ccol[j]] = j;
  for (int k = 0; k < alen; k++) { /* C_i += a_ik B_k for the group's rows i */
    double a[DT_AMG_GROUP_MAX];
    int r = acol[k], nz = 0, m0;
    for (int d = 0; d < gs; d++) a[d] = av[d][k], nz |= a[d] != 0.0;
    if (!nz) continue; /* the zeroed couplings of constrained DOFs */
    m0 = upper ? first_at_least(B, r, i0) : B->row_ptr[r];
    switch (gs) { /* constant group sizes: the compiler unrolls the rows */
    case 3: accumulate(B, r, m0, pos, 3, a, cv); break;
    case 6: accumulate(B, r, m0, pos, 6, a, cv); break;
    default: accumulate(B, r, m0, pos, gs, a, cv);
    }
  }
  for (int j = 0; j < len; j++) pos[ccol[j]] = -1;
}

/* C = A B, or with mirror its upper part and the rest copied across the diagonal. */
static dt_status numeric(const dt_amg_csr *A, const dt_amg_csr *B, dt_amg_csr *C, const int *mirror,
                         dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nt = dt_omp_max_threads();
  int *pos = NULL;
  DT_ALLOC(pos, (size_t)nt * B->n_cols, ctx, "AMG product positions");
  for (size_t j = 0; j < (size_t)nt * B->n_cols; j++) pos[j] = -1;
#pragma omp parallel for schedule(dynamic, 64) if (DT_AMG_OMP_ROWS(A))
  for (int g = 0; g < A->n_groups; g++)
    numeric_group(A, B, C, g, pos + (size_t)dt_omp_thread() * B->n_cols, mirror != NULL);
  if (!mirror) goto cleanup;
#pragma omp parallel for schedule(static) if (C->row_ptr[C->n_rows] > DT_AMG_OMP_MIN_NNZ)
  for (int k = 0; k < C->row_ptr[C->n_rows]; k++)
    if (mirror[k] >= 0) C->val[k] = C->val[mirror[k]];
cleanup:
  dt_free(pos);
  return rc;
}

dt_status dt_amg_spgemm_numeric(const dt_amg_csr *A, const dt_amg_csr *B, dt_amg_csr *C,
                                dt_ctx *ctx) {
  return numeric(A, B, C, NULL, ctx);
}

dt_status dt_amg_galerkin_numeric(const dt_amg_csr *R, const dt_amg_csr *AP, dt_amg_csr *Ac,
                                  const int *mirror, dt_ctx *ctx) {
  return numeric(R, AP, Ac, mirror, ctx);
}

/* Row i's position of column j (columns ascending), or -1. */
static int find(const dt_amg_csr *C, int i, int j) {
  int a = C->row_ptr[i], b = C->row_ptr[i + 1];
  while (a < b) {
    int mid = (a + b) / 2;
    if (C->col[mid] < j)
      a = mid + 1;
    else
      b = mid;
  }
  return a < C->row_ptr[i + 1] && C->col[a] == j ? a : -1;
}

dt_status dt_amg_mirror(const dt_amg_csr *C, int **mirror_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *mirror = NULL, bad = -1;
  DT_ALLOC(mirror, C->row_ptr[C->n_rows], ctx, "AMG coarse matrix mirror");
#pragma omp parallel for schedule(dynamic, 64) if (DT_AMG_OMP_ROWS(C))
  for (int g = 0; g < C->n_groups; g++)
    for (int i = C->group_ptr[g]; i < C->group_ptr[g + 1]; i++)
      for (int k = C->row_ptr[i]; k < C->row_ptr[i + 1]; k++) {
        mirror[k] = C->col[k] < C->group_ptr[g] ? find(C, C->col[k], i) : -1;
        if (C->col[k] < C->group_ptr[g] && mirror[k] < 0) {
#pragma omp critical(dt_amg_mirror_bad)
          bad = i;
        }
      }
  DT_CHECK(bad < 0, ctx, DT_ERR_INTERNAL,
           "AMG: the coarse matrix's pattern is not symmetric (row %d)", bad);
  *mirror_out = mirror;
  mirror = NULL;
cleanup:
  dt_free(mirror);
  return rc;
}
