/* The p-multigrid preconditioner of order-P hexahedra (solver/highorder/ho_pmg.h) on one GPU,
 * with a small device PCG and device vectors for its users (C types only: no CUDA headers).
 *
 * One application is the host's V-cycle (dt_ho_pmg_apply) with every vector on the device, so
 * the two agree to rounding:
 *   order p > 1  Chebyshev smoothing of D^-1 A in vector kernels, the products by the levels'
 *                dt_cuda_ho operators (the finest: the caller's callback, or a dt_cuda_ho);
 *                restriction and prolongation as gathers over the explicit node matrices of
 *                dt_ho_pmg_transfer_matrices (R = P^T exactly; no atomics, fixed sums);
 *   order 1      one V-cycle of the host's smoothed-aggregation hierarchy (solver/amg),
 *                uploaded once: its CSR matrices A, P, R multiplied by a CSR kernel, its
 *                Chebyshev smoother in vector kernels, its coarsest Cholesky factor as
 *                X = L^-1 (cuBLAS) so that the coarse solve is two products.
 * Nothing crosses to the host during an application.
 *
 * Streams: the preconditioner queues its work in the stream given at create (a cudaStream_t
 * passed as void *, NULL: the legacy default stream): apply reads d_r and writes d_z in that
 * stream's order and returns without waiting. A fine operator given as a callback must queue
 * its work in that stream (dt_cuda_ho_pmg_stream) or finish it before returning; dt_cuda_ho
 * operators run in their own streams and are joined to it by events. */
#ifndef DT_CUDA_HO_PMG_H
#define DT_CUDA_HO_PMG_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "core/dt_status.h"
#include "highorder/ho_pcg.h"

struct dt_ho_pmg;
struct dt_cuda_ho;
typedef struct dt_cuda_ho_pmg dt_cuda_ho_pmg;

/* y = A x on device vectors (the preconditioner's callback has the same shape: z = M^-1 r). */
typedef dt_status (*dt_cuda_ho_dev_fn)(void *op, const double *d_x, double *d_y, dt_ctx *ctx);

/* Uploads a set-up host p-multigrid: the coarse levels' meshes and elastic operators (as
 * dt_cuda_ho), constrained DOFs, inverse diagonals and lambda_max, the transfers, the order-1
 * AMG hierarchy; the finest level's inverse diagonal and lambda_max are the host's until
 * set_fine changes them, and its operator is unset. host is only read (it may be freed
 * after). Errors: DT_ERR_UNSUPPORTED (an AMG smoother other than Chebyshev),
 * DT_ERR_DEVICE_NOMEM, DT_ERR_NOMEM, DT_ERR_CUDA. Release with dt_cuda_ho_pmg_destroy. */
dt_status dt_cuda_ho_pmg_create(const struct dt_ho_pmg *host, int device, void *stream,
                                dt_cuda_ho_pmg **out, dt_ctx *ctx);
void dt_cuda_ho_pmg_destroy(dt_cuda_ho_pmg *pc);
/* The stream the preconditioner works in (a cudaStream_t). */
void *dt_cuda_ho_pmg_stream(const dt_cuda_ho_pmg *pc);

/* The finest level's operator y = A x (a callback on device vectors, see the header comment),
 * as dt_ho_pmg_set_fine: the coarse levels stay. d_diag: A's diagonal on the device (NULL:
 * keep the current inverse diagonal and lambda_max, for the operator the host was set up
 * with); lambda_max: of D^-1 A (> 0: taken as is; <= 0: estimated on the device by the host's
 * Lanczos steps). Errors: DT_ERR_INPUT (a non-positive free diagonal entry, naming the DOF),
 * DT_ERR_NOT_CONVERGED (a failed estimate), those of apply, DT_ERR_CUDA. */
dt_status dt_cuda_ho_pmg_set_fine(dt_cuda_ho_pmg *pc, dt_cuda_ho_dev_fn apply, void *op,
                                  const double *d_diag, double lambda_max, dt_ctx *ctx);
/* The same with an elastic device operator (borrowed: it must outlive the fine setting). */
dt_status dt_cuda_ho_pmg_set_fine_ho(dt_cuda_ho_pmg *pc, struct dt_cuda_ho *h, const double *d_diag,
                                     double lambda_max, dt_ctx *ctx);
/* The finest level's lambda_max(D^-1 A) in use. */
double dt_cuda_ho_pmg_lambda_max(const dt_cuda_ho_pmg *pc);
/* d_z = M^-1 d_r, one V-cycle (a dt_cuda_ho_dev_fn, pc a dt_cuda_ho_pmg); d_z is zero on the
 * constrained DOFs. Errors: DT_ERR_INPUT before set_fine, those of the fine operator,
 * DT_ERR_CUDA. */
dt_status dt_cuda_ho_pmg_apply(void *pc, const double *d_r, double *d_z, dt_ctx *ctx);
/* The transfers between level l and l + 1 on device vectors, unmasked, as dt_ho_pmg_prolong
 * (d_y = P d_xc) and dt_ho_pmg_restrict (d_xc = R d_y), for tests. */
dt_status dt_cuda_ho_pmg_prolong(dt_cuda_ho_pmg *pc, int l, const double *d_xc, double *d_y,
                                 dt_ctx *ctx);
dt_status dt_cuda_ho_pmg_restrict(dt_cuda_ho_pmg *pc, int l, const double *d_y, double *d_xc,
                                  dt_ctx *ctx);
/* Device bytes that one application reads and writes, counted from the sizes (operators,
 * transfers, AMG matrices, vectors), and the bytes the preconditioner holds. */
void dt_cuda_ho_pmg_traffic(const dt_cuda_ho_pmg *pc, double *bytes_per_apply, double *held);
/* Mean seconds of one application d_z = M^-1 d_r over reps (after one warm-up), by CUDA
 * events in the preconditioner's stream. */
dt_status dt_cuda_ho_pmg_time(dt_cuda_ho_pmg *pc, const double *d_r, double *d_z, int reps,
                              double *seconds, dt_ctx *ctx);
/* Levels, sizes, the AMG's levels, bytes per application, device memory. */
void dt_cuda_ho_pmg_view(const dt_cuda_ho_pmg *pc, FILE *f);

/* y = K x with an elastic device operator on the caller's device vectors, ordered in `stream`
 * (NULL: legacy default stream) by events (cuda_ho_pmg_level.cu). */
dt_status dt_cuda_ho_apply_in(struct dt_cuda_ho *h, void *stream, const double *d_x, double *d_y,
                              dt_ctx *ctx);

/* Device vectors and a PCG on them (cuda_ho_pcg.cu): the test's and benchmarks' solver; the
 * Newton path has its own. */
dt_status dt_cuda_dvec_alloc(size_t n, double **d, dt_ctx *ctx);
dt_status dt_cuda_dmask_alloc(size_t n, const unsigned char *host, unsigned char **d, dt_ctx *ctx);
void dt_cuda_dvec_free(void *d);
dt_status dt_cuda_dvec_set(double *d, const double *host, size_t n, dt_ctx *ctx);
dt_status dt_cuda_dvec_get(double *host, const double *d, size_t n, dt_ctx *ctx);

/* Jacobi: z = dinv r (dinv 0 on constrained DOFs), a dt_cuda_ho_dev_fn with pc this struct. */
typedef struct dt_cuda_ho_jacobi {
  int n;
  const double *d_dinv;
  void *stream;
} dt_cuda_ho_jacobi;
dt_status dt_cuda_ho_jacobi_apply(void *pc, const double *d_r, double *d_z, dt_ctx *ctx);

/* dt_ho_pcg_solve_pc on the device, the same loop and masking: K u = b on the free DOFs
 * (d_fixed: n flags, NULL: none), u in (prescribed values, guess) and out, all in `stream`
 * (NULL: legacy default stream); the scalars of each iteration come to the host. Errors as
 * dt_ho_pcg_solve_pc. */
dt_status dt_cuda_ho_pcg(int n, dt_cuda_ho_dev_fn apply, void *op, dt_cuda_ho_dev_fn pc_apply,
                         void *pc, const unsigned char *d_fixed, const double *d_b, double *d_u,
                         void *stream, const dt_ho_pcg_opts *opts, dt_ho_pcg_result *res,
                         dt_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
