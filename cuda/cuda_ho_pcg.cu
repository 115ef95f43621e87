/* Device vectors, dot products and a PCG on them for order-P operators (cuda_ho_pmg.h): the
 * loop of dt_ho_pcg_solve_pc (solver/highorder/ho_pcg.c) with every vector on the device and
 * its scalars (three dot products per iteration) on the host, for the p-multigrid's GPU test
 * and benchmark. Dot products sum PMG_DOT_BLOCKS partials over a fixed grid, each block's in a
 * fixed tree, and the partials on the host in order: the same bits on every run. */
#include <math.h>

#include "cuda_ho_pmg_internal.h"

extern "C" dt_status dt_cuda_dvec_alloc(size_t n, double **d, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  *d = NULL;
  DT_CUDA_CHECK(cudaMalloc((void **)d, sizeof(double) * (n ? n : 1)), ctx);
  DT_CUDA_CHECK(dt_cuda_put(*d, NULL, sizeof(double) * (n ? n : 1)), ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_dmask_alloc(size_t n, const unsigned char *host, unsigned char **d,
                                         dt_ctx *ctx) {
  dt_status rc = DT_OK;
  *d = NULL;
  DT_CUDA_CHECK(cudaMalloc((void **)d, n ? n : 1), ctx);
  DT_CUDA_CHECK(dt_cuda_put(*d, host, n), ctx);
cleanup:
  return rc;
}

extern "C" void dt_cuda_dvec_free(void *d) { cudaFree(d); }

extern "C" dt_status dt_cuda_dvec_set(double *d, const double *host, size_t n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(dt_cuda_put(d, host, sizeof(double) * n), ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_dvec_get(double *host, const double *d, size_t n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  /* the vector's writers may be kernels on a non-blocking stream, which cudaMemcpy's legacy
   * stream does not wait for */
  DT_CUDA_CHECK(cudaDeviceSynchronize(), ctx);
  DT_CUDA_CHECK(cudaMemcpy(host, d, sizeof(double) * n, cudaMemcpyDeviceToHost), ctx);
cleanup:
  return rc;
}

/* partial[block] = the block's share of x . y, grid-strided, reduced in shared memory. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_dot(int n, const double *__restrict__ x, const double *__restrict__ y,
              double *__restrict__ partial) {
  __shared__ double sm[PMG_BLOCK];
  double s = 0.0;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    s += x[i] * y[i];
  sm[threadIdx.x] = s;
  __syncthreads();
  for (int h = PMG_BLOCK / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) sm[threadIdx.x] += sm[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sm[0];
}

dt_status dt_cuda_pmg_dot(cudaStream_t s, int n, const double *x, const double *y, double *partial,
                          double *h_partial, double *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double sum = 0.0;
  k_pmg_dot<<<PMG_DOT_BLOCKS, PMG_BLOCK, 0, s>>>(n, x, y, partial);
  DT_CUDA_LAUNCH_CHECK("k_pmg_dot", s, ctx);
  DT_CUDA_CHECK(cudaMemcpyAsync(h_partial, partial, sizeof(double) * PMG_DOT_BLOCKS,
                                cudaMemcpyDeviceToHost, s),
                ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(s), ctx);
  for (int k = 0; k < PMG_DOT_BLOCKS; k++) sum += h_partial[k];
  *out = sum;
cleanup:
  return rc;
}

/* z = dinv r. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pcg_jacobi(int n, const double *__restrict__ dinv, const double *__restrict__ r,
                 double *__restrict__ z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = dinv[i] * r[i];
}

extern "C" dt_status dt_cuda_ho_jacobi_apply(void *pcv, const double *d_r, double *d_z,
                                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_cuda_ho_jacobi *j = (const dt_cuda_ho_jacobi *)pcv;
  cudaStream_t s = j->stream ? (cudaStream_t)j->stream : cudaStreamLegacy;
  k_pcg_jacobi<<<pmg_grid(j->n), PMG_BLOCK, 0, s>>>(j->n, j->d_dinv, d_r, d_z);
  DT_CUDA_LAUNCH_CHECK("k_pcg_jacobi", s, ctx);
cleanup:
  return rc;
}

/* r = b - r (r = K u on entry), masked. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pcg_init(int n, const unsigned char *__restrict__ fixed, const double *__restrict__ b,
               double *__restrict__ r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] = fixed && fixed[i] ? 0.0 : b[i] - r[i];
}

/* x = 0 on constrained DOFs. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pcg_mask(int n, const unsigned char *__restrict__ fixed, double *__restrict__ x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && fixed && fixed[i]) x[i] = 0.0;
}

/* u += alpha p, r -= alpha Ap. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pcg_update(int n, double alpha, const double *__restrict__ p, const double *__restrict__ Ap,
                 double *__restrict__ u, double *__restrict__ r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  u[i] += alpha * p[i];
  r[i] -= alpha * Ap[i];
}

/* p = z + beta p. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pcg_direction(int n, double beta, const double *__restrict__ z, double *__restrict__ p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = z[i] + beta * p[i];
}

#define PCG_LAUNCH(kernel, ...)                                                                    \
  do {                                                                                             \
    kernel<<<pmg_grid(n), PMG_BLOCK, 0, s>>>(__VA_ARGS__);                                         \
    DT_CUDA_LAUNCH_CHECK(#kernel, s, ctx);                                                         \
  } while (0)

extern "C" dt_status dt_cuda_ho_pcg(int n, dt_cuda_ho_dev_fn apply, void *op,
                                    dt_cuda_ho_dev_fn pc_apply, void *pc,
                                    const unsigned char *d_fixed, const double *d_b, double *d_u,
                                    void *stream, const dt_ho_pcg_opts *opts, dt_ho_pcg_result *res,
                                    dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaStream_t s = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  double *r = NULL, *z = NULL, *p = NULL, *Ap = NULL, *partial = NULL, *h_partial = NULL;
  double rr = 0.0, rz = 0.0;
  dt_ho_pcg_result out = {0, 0.0, 0.0, 0};
  double **vec[] = {&r, &z, &p, &Ap};
  for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++)
    DT_CUDA_CHECK(cudaMalloc((void **)vec[k], sizeof(double) * (n ? n : 1)), ctx);
  DT_CUDA_CHECK(cudaMalloc((void **)&partial, sizeof(double) * PMG_DOT_BLOCKS), ctx);
  DT_CUDA_CHECK(cudaMallocHost((void **)&h_partial, sizeof(double) * PMG_DOT_BLOCKS), ctx);
  /* r <- b - K u, lifted by the prescribed values in u, then masked */
  DT_TRY(apply(op, d_u, r, ctx));
  PCG_LAUNCH(k_pcg_init, n, d_fixed, d_b, r);
  DT_TRY(dt_cuda_pmg_dot(s, n, r, r, partial, h_partial, &rr, ctx));
  out.rnorm0 = out.rnorm = sqrt(rr);
  if (out.rnorm0 == 0.0) goto cleanup;
  DT_TRY(pc_apply(pc, r, z, ctx));
  PCG_LAUNCH(k_pcg_mask, n, d_fixed, z);
  DT_CUDA_CHECK(cudaMemcpyAsync(p, z, sizeof(double) * n, cudaMemcpyDeviceToDevice, s), ctx);
  DT_TRY(dt_cuda_pmg_dot(s, n, r, z, partial, h_partial, &rz, ctx));
  while (out.rnorm > opts->rtol * out.rnorm0) {
    double pAp = 0.0, rz_new = 0.0;
    DT_CHECK(out.iterations < opts->max_it, ctx, DT_ERR_NOT_CONVERGED,
             "PCG (device) did not converge: relative residual %.3g after %d iterations "
             "(tolerance %.3g)",
             out.rnorm / out.rnorm0, out.iterations, opts->rtol);
    DT_TRY(apply(op, p, Ap, ctx));
    PCG_LAUNCH(k_pcg_mask, n, d_fixed, Ap);
    DT_TRY(dt_cuda_pmg_dot(s, n, p, Ap, partial, h_partial, &pAp, ctx));
    out.indefinite = !(pAp > 0.0 && isfinite(pAp));
    DT_CHECK(!out.indefinite, ctx, DT_ERR_NOT_CONVERGED,
             "PCG (device) stopped at iteration %d: p^T K p = %g, the operator is not positive "
             "definite on the free DOFs",
             out.iterations, pAp);
    PCG_LAUNCH(k_pcg_update, n, rz / pAp, p, Ap, d_u, r);
    DT_TRY(pc_apply(pc, r, z, ctx));
    PCG_LAUNCH(k_pcg_mask, n, d_fixed, z);
    DT_TRY(dt_cuda_pmg_dot(s, n, r, z, partial, h_partial, &rz_new, ctx));
    out.indefinite = !(rz_new >= 0.0 && isfinite(rz_new));
    DT_CHECK(!out.indefinite, ctx, DT_ERR_NOT_CONVERGED,
             "PCG (device) stopped at iteration %d: r^T M^-1 r = %g, the preconditioner is not "
             "positive definite",
             out.iterations, rz_new);
    PCG_LAUNCH(k_pcg_direction, n, rz_new / rz, z, p);
    rz = rz_new;
    DT_TRY(dt_cuda_pmg_dot(s, n, r, r, partial, h_partial, &rr, ctx));
    out.rnorm = sqrt(rr);
    out.iterations++;
  }
cleanup:
  if (res) *res = out;
  cudaStreamSynchronize(s);
  cudaFree(r);
  cudaFree(z);
  cudaFree(p);
  cudaFree(Ap);
  cudaFree(partial);
  cudaFreeHost(h_partial);
  return rc;
}
