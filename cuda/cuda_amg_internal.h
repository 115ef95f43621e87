/* The AMG preconditioner's device state, shared by cuda_amg.cu (setup, upload, V-cycle) and
 * cuda_amg_refresh.cu (the values of every level recomputed on the device). */
#ifndef DT_CUDA_AMG_INTERNAL_H
#define DT_CUDA_AMG_INTERNAL_H

#include <cublas_v2.h>

#include "cuda_internal.h"

extern "C" {
#include "../solver/amg/amg.h"
}

#define AMG_CUBLAS_CHECK(call, ctx)                                                                \
  do {                                                                                             \
    cublasStatus_t st_ = (call);                                                                   \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                            \
      rc = DT_ERROR((ctx), st_ == CUBLAS_STATUS_ALLOC_FAILED ? DT_ERR_DEVICE_NOMEM : DT_ERR_CUDA,  \
                    "%s failed: cuBLAS status %d", #call, (int)st_);                               \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

/* A level's CSR matrix on the device; lanes: threads per row of k_amg_csr. */
typedef struct amg_csr_d {
  int n_rows, nnz, lanes;
  int *ptr, *col;
  double *val;
} amg_csr_d;

/* Level l on the device. For the V-cycle: A (levels > 0; level 0's products use the backend's
 * blocked tangent), P and R (all but the coarsest), the smoother's inverse diagonal and the
 * vectors: b and x (levels > 0; on level 0 the caller's r and z), the residual r and the
 * Chebyshev direction d (all but the coarsest), t (the coarsest: X b).
 * For the refresh (all but the coarsest; cuda_amg_refresh.cu): A on level 0 too (a scalar copy
 * of the tangent), A's and R's row groups, A's diagonal positions, P_tent (constant values), A P,
 * and the maps of dt_amg_level: pt_pos, r_perm, ac_mirror. */
typedef struct amg_level_d {
  int n;
  amg_csr_d A, P, R;
  double *dinv, *b, *x, *r, *d, *t;
  int n_a_groups, n_r_groups;
  int *a_groups, *r_groups, *diag_pos;
  amg_csr_d Pt, AP;
  int *pt_pos, *r_perm, *ac_mirror;
} amg_level_d;

struct dt_cuda_amg {
  dt_amg *h; /* the host hierarchy: its structure, lambda_max and the coarsest factor are current;
                after a device refresh, its other values are those of the last build */
  /* Level 0 on the host: the block pattern, the scalar CSR pattern and values (borrowed by h),
   * the download buffer of the blocked values, the coordinates and the constrained mask. */
  int n_nodes, dpn, n;
  long nnz;
  int *brow_ptr, *bcol, *row_ptr, *col;
  double *val, *bsr, *xyz, *con;
  /* The device hierarchy; n_levels = 0 while it does not match h. */
  int n_levels, nc;
  amg_level_d lev[DT_AMG_MAX_LEVELS];
  double *coarse_F, *coarse_X; /* the coarsest factor as h stores it; X = L^-1 (column-major) */
  /* The refresh's scratch: the Lanczos vectors (4 of level 0's size) and start vector, the
   * coarsest pivot scales (device and host), the first bad row of a diagonal check. */
  double *lz, *lz_start, *ref, *ref_host;
  int *bad;
  void *arena;
  size_t arena_bytes, arena_used;
  /* cuSPARSE's views of level 0's r and d (for the BSR SpMV) and its buffer */
  cusparseDnVecDescr_t vr, vd;
  void *spmv_buf, *own_spmv_buf;
  cublasHandle_t blas;
  void *blas_work;
  long serial; /* the tangent's serial at the last setup (dt_cuda tangent_serial) */
  /* Statistics: builds, refreshes, and the last setup's split. */
  int builds, refreshes, last_built;
  double s_values, s_levels, s_coarse;
};

static inline int amg_blocks_of(long threads) {
  return (int)((threads + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK);
}

/* cuda_amg.cu */
/* y = alpha A x + beta y for a CSR matrix of the hierarchy. */
dt_status dt_cuda_amg_csr_spmv(dt_cuda *c, const amg_csr_d *A, double alpha, const double *x,
                               double beta, double *y, dt_ctx *ctx);
/* The coarsest level's factor (h->coarse_L) up to the device and X = L^-1 from it. */
dt_status dt_cuda_amg_upload_coarse(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx);

/* cuda_amg_refresh.cu */
/* Every level's values from the tangent's current values, on the device (hierarchies of two
 * or more levels); the coarsest factor on the host. DT_ERR_NOT_CONVERGED as dt_amg_refresh. */
dt_status dt_cuda_amg_refresh(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx);
dt_status dt_cuda_amg_load_refresh_kernels(dt_ctx *ctx);

#endif
