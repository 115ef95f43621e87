/* The device p-multigrid's state (cuda_ho_pmg.h), shared by cuda_ho_pmg.cu (levels, smoother,
 * V-cycle), cuda_ho_pmg_level.cu (operators and transfers), cuda_ho_pmg_amg.cu (the order-1
 * AMG) and cuda_ho_pcg.cu (device vectors, dot products, PCG). */
#ifndef DT_CUDA_HO_PMG_INTERNAL_H
#define DT_CUDA_HO_PMG_INTERNAL_H

#include <cublas_v2.h>

#include "cuda_highorder_internal.h"
#include "cuda_ho_pmg.h"
extern "C" {
#include "../solver/amg/amg.h"
#include "../solver/highorder/ho_pmg.h"
}

#define PMG_BLOCK 256
#define PMG_DOT_BLOCKS 512 /* partial sums of a dot product: a fixed grid, a fixed order */

static inline int pmg_grid(long threads) { return (int)((threads + PMG_BLOCK - 1) / PMG_BLOCK); }

/* A node matrix of the transfers (dt_ho_pmg_node_csr) on the device. */
typedef struct pmg_ncsr {
  int n_rows, nnz;
  int *ptr, *col;
  double *w;
} pmg_ncsr;

/* A scalar CSR matrix of the AMG hierarchy; lanes: threads per row. */
typedef struct pmg_csr {
  int n_rows, nnz, lanes;
  int *ptr, *col;
  double *val;
} pmg_csr;

/* Order-p level l: its operator (level 0: the caller's callback or dt_cuda_ho; levels > 0 an
 * owned dt_cuda_ho), constrained DOFs, smoother, vectors, and the transfer from level l + 1. */
typedef struct pmg_level {
  int order, n, n_nodes;
  dt_cuda_ho *ho;
  int own_ho;
  dt_cuda_ho_dev_fn apply;
  void *op;
  unsigned char *fixed;
  double *dinv, lambda_max;
  double *b, *x, *r, *d, *t;
  pmg_ncsr P, R;
} pmg_level;

/* AMG level l on the device (dt_amg_level's arrays). */
typedef struct pmg_amg_level {
  int n;
  pmg_csr A, P, R;
  double *dinv, lambda_max;
  double *b, *x, *r, *d, *t;
} pmg_amg_level;

struct dt_cuda_ho_pmg {
  int device, n_levels, degree, lanczos_steps;
  double eig_ratio;
  cudaStream_t s;
  cudaEvent_t ev_in, ev_out; /* joins of dt_cuda_ho streams */
  pmg_level lev[DT_HO_PMG_MAX_LEVELS];
  /* the order-1 level's AMG: its levels, options, coarsest X = L^-1 (nc x nc, column-major) */
  int amg_levels, nc, amg_degree;
  double amg_eig_ratio;
  pmg_amg_level alev[DT_AMG_MAX_LEVELS];
  double *coarse_X;
  cublasHandle_t blas;
  /* dot products: device partial sums and their host copy */
  double *partial, *h_partial;
  size_t bytes;
  long applies;
};

/* A device allocation counted in pc->bytes (cudaMalloc; DT_ERR_DEVICE_NOMEM when it fails) and
 * an upload into a new one. */
dt_status dt_cuda_pmg_alloc(dt_cuda_ho_pmg *pc, void **p, size_t bytes, const char *what,
                            dt_ctx *ctx);
dt_status dt_cuda_pmg_upload(dt_cuda_ho_pmg *pc, void **p, const void *src, size_t bytes,
                             const char *what, dt_ctx *ctx);

/* cuda_ho_pmg.cu: Chebyshev's vector steps (ho_pmg.c and amg_smoother.c have the same ones):
 * the first, r = b (zero) or b - t, d = D^-1 r / theta, x = d (zero) or x + d; the later ones,
 * t = A d: r -= t, d = c1 d + c2 D^-1 r, x += d. */
dt_status dt_cuda_pmg_cheb_first(dt_cuda_ho_pmg *pc, int n, int zero, double theta, const double *b,
                                 const double *t, const double *dinv, double *r, double *d,
                                 double *x, dt_ctx *ctx);
dt_status dt_cuda_pmg_cheb_step(dt_cuda_ho_pmg *pc, int n, double c1, double c2, const double *t,
                                const double *dinv, double *r, double *d, double *x, dt_ctx *ctx);

/* cuda_ho_pmg_level.cu */
/* d_y = A_l d_x, A_l level l's operator, in pc->s. */
dt_status dt_cuda_pmg_level_apply(dt_cuda_ho_pmg *pc, int l, const double *d_x, double *d_y,
                                  dt_ctx *ctx);
/* Level l's transfer matrices up from the host's. */
dt_status dt_cuda_pmg_transfer_upload(dt_cuda_ho_pmg *pc, const dt_ho_pmg *host, int l,
                                      dt_ctx *ctx);
/* C->b = mask_C(R r) (fixed NULL: unmasked) and x += mask_L(P C->x) (fixed NULL: y = P x_c). */
dt_status dt_cuda_pmg_restrict_masked(dt_cuda_ho_pmg *pc, int l, const double *d_y, double *d_xc,
                                      const unsigned char *fixed_c, dt_ctx *ctx);
dt_status dt_cuda_pmg_prolong_add(dt_cuda_ho_pmg *pc, int l, const double *d_xc, double *d_y,
                                  const unsigned char *fixed_f, dt_ctx *ctx);

/* cuda_ho_pmg_amg.cu */
dt_status dt_cuda_pmg_amg_upload(dt_cuda_ho_pmg *pc, const dt_amg *amg, dt_ctx *ctx);
/* x = one AMG V-cycle on b (order-1 level's vectors). */
dt_status dt_cuda_pmg_amg_cycle(dt_cuda_ho_pmg *pc, const double *b, double *x, dt_ctx *ctx);
void dt_cuda_pmg_amg_free(dt_cuda_ho_pmg *pc);

/* cuda_ho_pcg.cu */
/* x . y in stream s, summed in a fixed order (PMG_DOT_BLOCKS partials, then on the host);
 * partial: PMG_DOT_BLOCKS device doubles, h_partial as many host ones. Waits for s. */
dt_status dt_cuda_pmg_dot(cudaStream_t s, int n, const double *x, const double *y, double *partial,
                          double *h_partial, double *out, dt_ctx *ctx);

#endif
