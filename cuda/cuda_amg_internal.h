/* The AMG preconditioner's device state, shared by cuda_amg.cu (setup, upload, V-cycle) and
 * cuda_amg_refresh.cu (the values of every level recomputed on the device). */
#ifndef DT_CUDA_AMG_INTERNAL_H
#define DT_CUDA_AMG_INTERNAL_H

#include "cuda_cublas_check.h"
#include "cuda_internal.h"

extern "C" {
#include "../solver/amg/amg.h"
}

/* DT_ALLOC for C++ (the pointer's type named). */
#define AMG_HOST_ALLOC(ptr, count, ctx, what)                                                      \
  do {                                                                                             \
    (ptr) =                                                                                        \
        (decltype(ptr))dt_calloc(((size_t)(count) != 0) ? (size_t)(count) : 1, sizeof(*(ptr)));    \
    DT_CHECK((ptr) != NULL, (ctx), DT_ERR_NOMEM, "out of memory allocating %s (%zu items)",        \
             (what), (size_t)(count));                                                             \
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
 * of the tangent), A's and R's row groups (the level's and the next level's nodes), A's
 * diagonal positions, P_tent (constant values), A P, and the maps of dt_amg_level: pt_pos,
 * r_perm, ac_mirror. Every array is a piece of dt_cuda_amg (cuda_amg_build.cu). */
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
  /* The host side of the hierarchy. Built on the device (two levels or more): a shell holding
   * the options, each level's size, nodes and lambda_max, the coarsest matrix and its factor
   * (the other arrays live on the device only; dt_cuda_amg_host_apply downloads them). Built on
   * the host (a level 0 that does not coarsen): the whole hierarchy of dt_amg_create. */
  dt_amg *h;
  /* Level 0 on the host: the coordinates and the constrained mask; for the host build and the
   * test helper only, made on first use: the block pattern, the scalar CSR pattern and values
   * (borrowed by h), the download buffer of the blocked values. */
  int n_nodes, dpn, n;
  long nnz;
  int *brow_ptr, *bcol, *row_ptr, *col;
  double *val, *bsr, *xyz, *con;
  /* The device hierarchy; n_levels = 0 while it does not match h. node_ptr_d: each level's
   * nodes (the DOFs of node a: node_ptr_d[l][a] .. node_ptr_d[l][a + 1] - 1). */
  int n_levels, nc;
  amg_level_d lev[DT_AMG_MAX_LEVELS];
  int *node_ptr_d[DT_AMG_MAX_LEVELS];
  double *coarse_F, *coarse_X; /* the coarsest factor as h stores it; X = L^-1 (column-major) */
  /* The refresh's scratch: the Lanczos vectors (4 of level 0's size) and start vector, the
   * coarsest pivot scales (device and host), the first bad row of a diagonal check. */
  double *lz, *lz_start, *ref, *ref_host;
  int *bad;
  /* Every device array of the hierarchy, one allocation each, freed when it is built again. */
  void **pieces;
  int n_pieces, cap_pieces;
  size_t piece_bytes;
  /* cuSPARSE's views of level 0's r and d (for the BSR SpMV) and its buffer */
  cusparseDnVecDescr_t vr, vd;
  void *spmv_buf, *own_spmv_buf;
  cublasHandle_t blas;
  void *blas_work;
  long serial; /* the tangent's serial at the last setup (dt_cuda tangent_serial) */
  /* A split run's part (dt_cuda_pc_amg_local): local = 1 when the hierarchy is that of lval, the
   * part's matrix (blocked as the tangent: the tangent with every node's diagonal block the
   * parts' sum), whose level 0 products then use the scalar copy lev[0].A; 0: the tangent's. */
  int local;
  double *lval;
  /* Statistics: builds, refreshes; the last device build's split (strength, patterns and maps
   * on the device; aggregation and P_tent on the host; the levels' values; the coarsest
   * factor) and the last refresh's (the tangent's copy, the levels, the coarsest factor). */
  int builds, refreshes, fine_refreshes, last_built, built_on_host;
  double t_builds, t_refreshes, t_fine; /* all setups of each kind, seconds */
  double b_structure, b_host, b_values, b_coarse;
  double s_values, s_levels, s_coarse;
};

/* The blocked values the hierarchy's level 0 is made of: the part's matrix or the tangent. */
static inline const double *amg_bsr(const dt_cuda *c, const dt_cuda_amg *a) {
  return a->local ? a->lval : c->lin.val;
}

static inline int amg_blocks_of(long threads) {
  return (int)((threads + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK);
}

/* The first position in col[lo .. hi - 1] (ascending) holding a value >= key. */
__device__ __forceinline__ int amg_lower_bound(const int *__restrict__ col, int lo, int hi,
                                               int key) {
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (col[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* cuda_amg.cu */
/* y = alpha A x + beta y for a CSR matrix of the hierarchy. */
dt_status dt_cuda_amg_csr_spmv(dt_cuda *c, const amg_csr_d *A, double alpha, const double *x,
                               double beta, double *y, dt_ctx *ctx);
/* The coarsest level's factor (h->coarse_L) up to the device and X = L^-1 from it. */
dt_status dt_cuda_amg_upload_coarse(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx);

/* cuda_amg_build.cu */
/* The hierarchy built on the device from the tangent (a->con and a->xyz current); *coarsened =
 * 0 (and nothing kept) when level 0 does not coarsen, which the host build then handles. */
dt_status dt_cuda_amg_build(dt_cuda *c, dt_cuda_amg *a, int *coarsened, dt_ctx *ctx);
dt_status dt_cuda_amg_load_build_kernels(dt_ctx *ctx);
/* A device array of the hierarchy (counted in piece_bytes), and all of them freed. */
dt_status dt_cuda_amg_piece(dt_cuda *c, dt_cuda_amg *a, void **p, size_t bytes, const char *what,
                            dt_ctx *ctx);
void dt_cuda_amg_free_pieces(dt_cuda *c, dt_cuda_amg *a);

/* cuda_amg_refresh.cu */
/* Level 0's scalar copy of the tangent's values. */
dt_status dt_cuda_amg_unblock(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx);
/* Level l's diagonal, lambda_max, transfer and A_{l+1}, smoother (amg_setup.c, level_values). */
dt_status dt_cuda_amg_level_values(dt_cuda *c, dt_cuda_amg *a, int l, dt_ctx *ctx);
/* The coarsest level: pivot scales on the device, values and scales down, the host's factor,
 * X = L^-1 up. */
dt_status dt_cuda_amg_coarse(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx);
/* Every level's values from the tangent's current values, on the device (hierarchies of two
 * or more levels); the coarsest factor on the host. DT_ERR_NOT_CONVERGED as dt_amg_refresh. */
dt_status dt_cuda_amg_refresh(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx);
dt_status dt_cuda_amg_refresh_fine(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx);
dt_status dt_cuda_amg_load_refresh_kernels(dt_ctx *ctx);

#endif
