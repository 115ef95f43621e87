/* CSR kernels of the AMG setup and cycle: row groups, SpMV, transpose, and a dot product over
 * fixed chunks (the sparse products are in amg_spgemm.c).
 *
 * A row group is a run of consecutive rows with the same column list (the dpn rows of a mesh
 * node, the up to 6 rows of a coarse node), which the sparse products use. Every row is summed
 * in its own column order, so results do not depend on the thread count. */
#include <stdlib.h>
#include <string.h>

#include "amg_internal.h"

#define DT_AMG_GROUP_SPMV_LEN 128

void dt_amg_csr_free(dt_amg_csr *A) {
  if (!A->borrowed) {
    dt_free(A->row_ptr);
    dt_free(A->col);
    dt_free(A->val);
  }
  dt_free(A->group_ptr);
  memset(A, 0, sizeof *A);
}

static int same_pattern(const dt_amg_csr *A, int r, int s) {
  int n = A->row_ptr[r + 1] - A->row_ptr[r];
  return n == A->row_ptr[s + 1] - A->row_ptr[s] &&
         !memcmp(A->col + A->row_ptr[r], A->col + A->row_ptr[s], sizeof(int) * (size_t)n);
}

/* A new group starts at row r (inside hint group [r0, r)) when the pattern changes or the
 * group is full. */
static int group_starts(const dt_amg_csr *A, int r0, int r, int first) {
  return r == r0 || r - first >= DT_AMG_GROUP_MAX || !same_pattern(A, r - 1, r);
}

dt_status dt_amg_csr_group(dt_amg_csr *A, const int *hint, int n_hint, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = 0, first = 0;
  dt_free(A->group_ptr);
  A->group_ptr = NULL;
  for (int pass = 0; pass < 2; pass++) {
    n = 0;
    for (int h = 0; h < n_hint; h++)
      for (int r = hint[h]; r < hint[h + 1]; r++)
        if (group_starts(A, hint[h], r, first)) {
          if (pass == 1) A->group_ptr[n] = r;
          first = r;
          n++;
        }
    if (pass == 0) DT_ALLOC(A->group_ptr, n + 1, ctx, "AMG row groups");
  }
  A->group_ptr[n] = A->n_rows;
  A->n_groups = n;
cleanup:
  return rc;
}

dt_status dt_amg_csr_copy_groups(dt_amg_csr *C, const dt_amg_csr *A, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_ALLOC(C->group_ptr, A->n_groups + 1, ctx, "AMG row groups");
  memcpy(C->group_ptr, A->group_ptr, sizeof(int) * (size_t)(A->n_groups + 1));
  C->n_groups = A->n_groups;
cleanup:
  return rc;
}

/* Rows i0 .. i0 + gs - 1 of y = alpha A x + beta y, which share their columns; inlined with a
 * constant gs, so the sums stay in registers. */
static inline __attribute__((always_inline)) void spmv_rows(const dt_amg_csr *A, int i0, int gs,
                                                            double alpha, const double *x,
                                                            double beta, double *y) {
  int len = A->row_ptr[i0 + 1] - A->row_ptr[i0];
  const int *col = A->col + A->row_ptr[i0];
  const double *v[DT_AMG_GROUP_MAX];
  double s[DT_AMG_GROUP_MAX];
  for (int d = 0; d < gs; d++) v[d] = A->val + A->row_ptr[i0 + d], s[d] = 0.0;
  for (int k = 0; k < len; k++) {
    double xk = x[col[k]];
    for (int d = 0; d < gs; d++) s[d] += v[d][k] * xk;
  }
  for (int d = 0; d < gs; d++)
    y[i0 + d] = beta == 0.0 ? alpha * s[d] : alpha * s[d] + beta * y[i0 + d];
}

/* Long rows (coarse levels, R) go group by group: each column index and x entry is read once
 * for the group (level 1 of a tet10 plate, 309 entries per row: 0.60 ms against 1.20 ms row by
 * row, one core). Short rows go row by row: one sequential stream of values prefetches better
 * than a group's rows side by side (72 entries per row on the tet10 mesh: 2.6 ms against 4.9
 * ms for 3.9M nonzeros). */
void dt_amg_spmv(const dt_amg_csr *A, double alpha, const double *x, double beta, double *y) {
#pragma omp parallel for schedule(static) if (DT_AMG_OMP_ROWS(A))
  for (int g = 0; g < A->n_groups; g++) {
    int i0 = A->group_ptr[g], gs = A->group_ptr[g + 1] - i0;
    if (A->row_ptr[i0 + 1] - A->row_ptr[i0] < DT_AMG_GROUP_SPMV_LEN) gs = 1;
    switch (gs) {
    case 2: spmv_rows(A, i0, 2, alpha, x, beta, y); break;
    case 3: spmv_rows(A, i0, 3, alpha, x, beta, y); break;
    case 6: spmv_rows(A, i0, 6, alpha, x, beta, y); break;
    default:
      for (int i = i0; i < A->group_ptr[g + 1]; i++) {
        double t = 0.0;
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) t += A->val[k] * x[A->col[k]];
        y[i] = beta == 0.0 ? alpha * t : alpha * t + beta * y[i];
      }
    }
  }
}

dt_status dt_amg_transpose(const dt_amg_csr *A, dt_amg_csr *T, int **perm_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nnz = A->row_ptr[A->n_rows];
  int *next = NULL, *perm = NULL;
  memset(T, 0, sizeof *T);
  T->n_rows = A->n_cols;
  T->n_cols = A->n_rows;
  DT_ALLOC(T->row_ptr, T->n_rows + 1, ctx, "AMG restriction rows");
  DT_ALLOC(T->col, nnz, ctx, "AMG restriction columns");
  DT_ALLOC(T->val, nnz, ctx, "AMG restriction values");
  DT_ALLOC(perm, nnz, ctx, "AMG restriction map");
  DT_ALLOC(next, T->n_rows + 1, ctx, "AMG restriction offsets");
  for (int k = 0; k < nnz; k++) T->row_ptr[A->col[k] + 1]++;
  for (int j = 0; j < T->n_rows; j++) T->row_ptr[j + 1] += T->row_ptr[j];
  memcpy(next, T->row_ptr, sizeof(int) * (size_t)T->n_rows);
  for (int i = 0; i < A->n_rows; i++) /* rows ascending: T's columns come out sorted */
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      int p = next[A->col[k]]++;
      T->col[p] = i;
      perm[k] = p;
    }
  dt_amg_transpose_values(A, perm, T);
  *perm_out = perm;
  perm = NULL;
cleanup:
  dt_free(next);
  dt_free(perm);
  if (rc != DT_OK) dt_amg_csr_free(T);
  return rc;
}

void dt_amg_transpose_values(const dt_amg_csr *A, const int *perm, dt_amg_csr *T) {
  int nnz = A->row_ptr[A->n_rows];
#pragma omp parallel for schedule(static) if (nnz > DT_AMG_OMP_MIN_NNZ)
  for (int k = 0; k < nnz; k++) T->val[perm[k]] = A->val[k];
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

void dt_amg_sort_ints(int *v, int n) {
  if (n > 32) {
    qsort(v, (size_t)n, sizeof *v, cmp_int);
    return;
  }
  for (int i = 1; i < n; i++) { /* insertion sort: most rows are short */
    int x = v[i], j = i - 1;
    for (; j >= 0 && v[j] > x; j--) v[j + 1] = v[j];
    v[j + 1] = x;
  }
}

double dt_amg_dot(int n, const double *x, const double *y, double *partial) {
  int nc = (n + DT_AMG_CHUNK - 1) / DT_AMG_CHUNK;
  double s = 0.0;
#pragma omp parallel for schedule(static) if (n > DT_AMG_OMP_MIN)
  for (int c = 0; c < nc; c++) {
    int end = (c + 1) * DT_AMG_CHUNK < n ? (c + 1) * DT_AMG_CHUNK : n;
    double p = 0.0;
    for (int i = c * DT_AMG_CHUNK; i < end; i++) p += x[i] * y[i];
    partial[c] = p;
  }
  for (int c = 0; c < nc; c++) s += partial[c];
  return s;
}
