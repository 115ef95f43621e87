/* The Newton corrections' PCG of order-P plasticity on the device (cuda_ho_plastic_internal.h).
 *
 * The loop is ho_pcg.c's, pass by pass:
 *   r = b - K u, masked; |r_0|                        k_lift, k_dot, k_start
 *   z = M^-1 r, masked; p = z; r.z                    k_jacobi (or the callback, k_mask), k_first
 *   per iteration, while |r| > rtol |r_0|:
 *     Ap = K p, masked; p.Ap; alpha (or stop)         apply, k_mask_dot, k_alpha
 *     u += alpha p, r -= alpha Ap, z = M^-1 r; r.z, r.r  k_update (+ the callback, k_mask_dot)
 *     r.z >= 0 (or stop); beta; |r|; the tests      k_check
 *     p = z + beta p                                   k_direction
 * Every scalar lives in the control block: a kernel that finds `stop` set returns at once, and
 * so does the operator's product (its skip flag), so the iterations queued past a stop cost a
 * launch each. With Jacobi the host queues HP_CHECK_EVERY iterations and then reads the control
 * block; with a callback preconditioner (a V-cycle costs several products) it reads it after
 * every iteration, as cuda_pcg.cu does for AMG. Vector updates round the product and the sum
 * separately (no FMA), as the host loop does; sums are in a fixed order on a fixed grid. */
#include <math.h>
#include <string.h>

#include "cuda_ho_plastic_internal.h"

#define HP_THREADS 256
#define HP_DOT_BLOCKS 256 /* fixed grid of every reduction: the same sums on every run */
#define HP_CHECK_EVERY 8  /* Jacobi iterations queued between two reads of the control block */

/* Why the loop stopped (hp_ctl.reason). */
enum { HP_RUNNING = 0, HP_CONVERGED, HP_CAP, HP_INDEFINITE_K, HP_INDEFINITE_M };

typedef struct hp_ctl {
  double rnorm0, rnorm, rz, alpha, beta, rtol;
  double value; /* p.Ap or r.z at an indefinite stop */
  int iterations, max_it, stop, reason;
} hp_ctl;

/* Sum of each thread's t over the block, in a fixed tree order (thread 0 gets it). */
__device__ static double hp_block_sum(double t) {
  __shared__ double s[HP_THREADS];
  s[threadIdx.x] = t;
  __syncthreads();
  for (int w = HP_THREADS / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  double r = s[0];
  __syncthreads(); /* s is reused by the next sum */
  return r;
}

/* The HP_DOT_BLOCKS partials summed in order (by one thread). */
__device__ static double hp_partials(const double *partial) {
  double s = 0.0;
  for (int k = 0; k < HP_DOT_BLOCKS; k++) s += partial[k];
  return s;
}

/* r = b - Ap on the free DOFs, 0 on the fixed ones. */
__global__ void k_lift(size_t n, const unsigned char *__restrict__ fixed,
                       const double *__restrict__ b, const double *__restrict__ Ap,
                       double *__restrict__ r) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) r[i] = fixed[i] ? 0.0 : b[i] - Ap[i];
}

/* partial[block] = the block's share of x.y. */
__global__ void __launch_bounds__(HP_THREADS)
    k_dot(size_t n, const double *__restrict__ x, const double *__restrict__ y,
          double *__restrict__ partial) {
  double t = 0.0;
  for (size_t i = blockIdx.x * (size_t)HP_THREADS + threadIdx.x; i < n;
       i += (size_t)HP_DOT_BLOCKS * HP_THREADS)
    t += x[i] * y[i];
  t = hp_block_sum(t);
  if (threadIdx.x == 0) partial[blockIdx.x] = t;
}

/* |r_0| and the stop when there is nothing to do (|r_0| = 0, or NaN as the host loop has it). */
__global__ void k_start(const double *partial, double rtol, int max_it, hp_ctl *c) {
  if (threadIdx.x != 0) return;
  c->rnorm0 = c->rnorm = sqrt(hp_partials(partial));
  c->rtol = rtol;
  c->max_it = max_it;
  c->iterations = 0;
  c->alpha = c->beta = c->rz = c->value = 0.0;
  c->stop = !(c->rnorm > rtol * c->rnorm0);
  c->reason = c->stop ? HP_CONVERGED : HP_RUNNING;
}

/* Jacobi: z = r / diag on the free DOFs, 0 on the fixed ones. */
__global__ void k_jacobi(size_t n, const unsigned char *__restrict__ fixed,
                         const double *__restrict__ diag, const double *__restrict__ r,
                         double *__restrict__ z, const hp_ctl *c) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (c->stop) return;
  if (i < n) z[i] = fixed[i] ? 0.0 : r[i] / diag[i];
}

__global__ void k_mask(size_t n, const unsigned char *__restrict__ fixed, double *__restrict__ z,
                       const hp_ctl *c) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (c->stop) return;
  if (i < n && fixed[i]) z[i] = 0.0;
}

/* p = z and the partials of r.z. */
__global__ void __launch_bounds__(HP_THREADS)
    k_first(size_t n, const double *__restrict__ r, const double *__restrict__ z,
            double *__restrict__ p, double *__restrict__ partial, const hp_ctl *c) {
  double t = 0.0;
  if (c->stop) return;
  for (size_t i = blockIdx.x * (size_t)HP_THREADS + threadIdx.x; i < n;
       i += (size_t)HP_DOT_BLOCKS * HP_THREADS) {
    p[i] = z[i];
    t += r[i] * z[i];
  }
  t = hp_block_sum(t);
  if (threadIdx.x == 0) partial[blockIdx.x] = t;
}

/* r.z before the first iteration, and the iteration cap of the loop's first test. */
__global__ void k_first_rz(const double *partial, hp_ctl *c) {
  if (threadIdx.x != 0 || c->stop) return;
  c->rz = hp_partials(partial);
  if (c->iterations >= c->max_it) c->stop = 1, c->reason = HP_CAP;
}

/* y masked to the free DOFs and the partials of x.y. */
__global__ void __launch_bounds__(HP_THREADS)
    k_mask_dot(size_t n, const unsigned char *__restrict__ fixed, const double *__restrict__ x,
               double *__restrict__ y, double *__restrict__ partial, const hp_ctl *c) {
  double t = 0.0;
  if (c->stop) return;
  for (size_t i = blockIdx.x * (size_t)HP_THREADS + threadIdx.x; i < n;
       i += (size_t)HP_DOT_BLOCKS * HP_THREADS) {
    double yi = fixed[i] ? 0.0 : y[i];
    y[i] = yi;
    t += x[i] * yi;
  }
  t = hp_block_sum(t);
  if (threadIdx.x == 0) partial[blockIdx.x] = t;
}

/* alpha = r.z / p.Ap, or stop: K is not positive definite on the free DOFs. */
__global__ void k_alpha(const double *partial, hp_ctl *c) {
  if (threadIdx.x != 0 || c->stop) return;
  double pAp = hp_partials(partial);
  if (!(pAp > 0.0 && isfinite(pAp)))
    c->stop = 1, c->reason = HP_INDEFINITE_K, c->value = pAp;
  else
    c->alpha = c->rz / pAp;
}

/* u += alpha p, r -= alpha Ap; with a diagonal z = r / diag (0 on fixed DOFs); the partials of
 * r.r (partial) and r.z (partial + HP_DOT_BLOCKS; without a diagonal k_mask_dot forms them). */
__global__ void __launch_bounds__(HP_THREADS)
    k_update(size_t n, const unsigned char *__restrict__ fixed, const double *__restrict__ diag,
             const double *__restrict__ p, const double *__restrict__ Ap, double *__restrict__ u,
             double *__restrict__ r, double *__restrict__ z, double *__restrict__ partial,
             const hp_ctl *c) {
  double rr = 0.0, rz = 0.0;
  if (c->stop) return;
  const double alpha = c->alpha;
  for (size_t i = blockIdx.x * (size_t)HP_THREADS + threadIdx.x; i < n;
       i += (size_t)HP_DOT_BLOCKS * HP_THREADS) {
    u[i] = __dadd_rn(u[i], __dmul_rn(alpha, p[i]));
    double ri = __dsub_rn(r[i], __dmul_rn(alpha, Ap[i]));
    r[i] = ri;
    rr += ri * ri;
    if (diag) {
      double zi = fixed[i] ? 0.0 : ri / diag[i];
      z[i] = zi;
      rz += ri * zi;
    }
  }
  rr = hp_block_sum(rr);
  rz = hp_block_sum(rz);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = rr;
    if (diag) partial[HP_DOT_BLOCKS + blockIdx.x] = rz;
  }
}

/* r.z >= 0 (or stop: the preconditioner is not positive definite), beta, |r| and the tests
 * |r| <= rtol |r_0| (converged) and the iteration cap. */
__global__ void k_check(const double *partial, hp_ctl *c) {
  if (threadIdx.x != 0 || c->stop) return;
  double rr = hp_partials(partial), rz = hp_partials(partial + HP_DOT_BLOCKS);
  if (!(rz >= 0.0 && isfinite(rz))) {
    c->stop = 1, c->reason = HP_INDEFINITE_M, c->value = rz;
    return;
  }
  c->beta = rz / c->rz;
  c->rz = rz;
  c->rnorm = sqrt(rr);
  c->iterations++;
  if (!(c->rnorm > c->rtol * c->rnorm0))
    c->stop = 1, c->reason = HP_CONVERGED;
  else if (c->iterations >= c->max_it)
    c->stop = 1, c->reason = HP_CAP;
}

__global__ void k_direction(size_t n, const double *__restrict__ z, double *__restrict__ p,
                            const hp_ctl *c) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (c->stop) return;
  if (i < n) p[i] = __dadd_rn(z[i], __dmul_rn(c->beta, p[i]));
}

/* The first free DOF whose diagonal entry is not positive (n when none): per-block minima, then
 * the minimum of those. */
__global__ void __launch_bounds__(HP_THREADS)
    k_bad_diag(size_t n, const unsigned char *__restrict__ fixed, const double *__restrict__ diag,
               double *__restrict__ partial) {
  double t = (double)n;
  for (size_t i = blockIdx.x * (size_t)HP_THREADS + threadIdx.x; i < n;
       i += (size_t)HP_DOT_BLOCKS * HP_THREADS)
    if (!fixed[i] && !(diag[i] > 0.0) && (double)i < t) t = (double)i;
  __shared__ double s[HP_THREADS];
  s[threadIdx.x] = t;
  __syncthreads();
  for (int w = HP_THREADS / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] = fmin(s[threadIdx.x], s[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void k_bad_diag_final(const double *partial, int *bad) {
  if (threadIdx.x != 0) return;
  double m = partial[0];
  for (int k = 1; k < HP_DOT_BLOCKS; k++) m = fmin(m, partial[k]);
  *bad = (int)m;
}

static int hp_grid(size_t n) { return (int)((n + HP_THREADS - 1) / HP_THREADS); }

static dt_status hp_alloc(hp_pcg *s, void **p, size_t bytes, const char *what, dt_ctx *ctx) {
  return dt_cuda_malloc_counted(p, bytes, "the Newton PCG's ", what, &s->bytes, ctx);
}

dt_status hp_pcg_create(hp_pcg *s, size_t n, cudaStream_t stream, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double **vec[] = {&s->r, &s->z, &s->p, &s->Ap};
  memset(s, 0, sizeof *s);
  s->n = n;
  s->stream = stream;
  for (int k = 0; k < 4; k++)
    DT_TRY(hp_alloc(s, (void **)vec[k], sizeof(double) * n, "vectors", ctx));
  DT_TRY(hp_alloc(s, (void **)&s->partial, sizeof(double) * 2 * HP_DOT_BLOCKS, "sums", ctx));
  DT_TRY(hp_alloc(s, &s->ctl, sizeof(hp_ctl), "control block", ctx));
  DT_TRY(hp_alloc(s, (void **)&s->bad, sizeof(int), "diagonal check", ctx));
  DT_CUDA_CHECK(cudaMallocHost(&s->ctl_host, sizeof(hp_ctl)), ctx);
  DT_CUDA_CHECK(cudaEventCreateWithFlags(&s->joined[0], cudaEventDisableTiming), ctx);
  DT_CUDA_CHECK(cudaEventCreateWithFlags(&s->joined[1], cudaEventDisableTiming), ctx);
cleanup:
  if (rc != DT_OK) hp_pcg_free(s);
  return rc;
}

void hp_pcg_free(hp_pcg *s) {
  if (!s) return;
  cudaFree(s->r);
  cudaFree(s->z);
  cudaFree(s->p);
  cudaFree(s->Ap);
  cudaFree(s->partial);
  cudaFree(s->ctl);
  cudaFree(s->bad);
  if (s->ctl_host) cudaFreeHost(s->ctl_host);
  for (int k = 0; k < 2; k++)
    if (s->joined[k]) cudaEventDestroy(s->joined[k]);
  memset(s, 0, sizeof *s);
}

/* The control block as the kernels left it (waits for the stream). */
static dt_status read_ctl(hp_pcg *s, hp_ctl *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(
      cudaMemcpyAsync(s->ctl_host, s->ctl, sizeof(hp_ctl), cudaMemcpyDeviceToHost, s->stream), ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(s->stream), ctx);
  memcpy(out, s->ctl_host, sizeof *out);
cleanup:
  return rc;
}

/* As dt_ho_pcg_solve: every free diagonal entry positive, else DT_ERR_INPUT naming the DOF. */
static dt_status check_diag(hp_pcg *s, const unsigned char *fixed, const double *diag,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int bad = 0;
  double value = 0.0;
  k_bad_diag<<<HP_DOT_BLOCKS, HP_THREADS, 0, s->stream>>>(s->n, fixed, diag, s->partial);
  DT_CUDA_LAUNCH_CHECK("k_bad_diag", s->stream, ctx);
  k_bad_diag_final<<<1, 32, 0, s->stream>>>(s->partial, s->bad);
  DT_CUDA_LAUNCH_CHECK("k_bad_diag_final", s->stream, ctx);
  DT_CUDA_CHECK(cudaMemcpyAsync(&bad, s->bad, sizeof bad, cudaMemcpyDeviceToHost, s->stream), ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(s->stream), ctx);
  if (bad < (int)s->n)
    DT_CUDA_CHECK(cudaMemcpy(&value, diag + bad, sizeof value, cudaMemcpyDeviceToHost), ctx);
  DT_CHECK(bad >= (int)s->n, ctx, DT_ERR_INPUT,
           "PCG: diagonal entry of free DOF %d (node %d, component %d) is %g, not positive", bad,
           bad / 3, bad % 3, value);
cleanup:
  return rc;
}

/* z = M^-1 r by the caller's preconditioner in its stream, ordered after our work and before
 * what we queue next. */
static dt_status callback_pc(hp_pcg *s, dt_cuda_ho_pc_fn pc, void *pc_data, cudaStream_t pc_stream,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(cudaEventRecord(s->joined[0], s->stream), ctx);
  DT_CUDA_CHECK(cudaStreamWaitEvent(pc_stream, s->joined[0], 0), ctx);
  DT_TRY(pc(pc_data, s->r, s->z, ctx));
  DT_CUDA_CHECK(cudaEventRecord(s->joined[1], pc_stream), ctx);
  DT_CUDA_CHECK(cudaStreamWaitEvent(s->stream, s->joined[1], 0), ctx);
cleanup:
  return rc;
}

/* One iteration queued: the products, the updates, the tests. */
static dt_status iteration(hp_pcg *s, hp_apply_fn apply, void *op, const double *diag,
                           dt_cuda_ho_pc_fn pc, void *pc_data, cudaStream_t pc_stream,
                           const unsigned char *fixed, double *u, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  hp_ctl *c = (hp_ctl *)s->ctl;
  int vg = hp_grid(s->n);
  DT_TRY(apply(op, s->p, s->Ap, &c->stop, ctx)); /* Ap = K p */
  k_mask_dot<<<HP_DOT_BLOCKS, HP_THREADS, 0, s->stream>>>(s->n, fixed, s->p, s->Ap, s->partial, c);
  DT_CUDA_LAUNCH_CHECK("k_mask_dot", s->stream, ctx);
  k_alpha<<<1, 32, 0, s->stream>>>(s->partial, c);
  DT_CUDA_LAUNCH_CHECK("k_alpha", s->stream, ctx);
  k_update<<<HP_DOT_BLOCKS, HP_THREADS, 0, s->stream>>>(s->n, fixed, pc ? NULL : diag, s->p, s->Ap,
                                                        u, s->r, s->z, s->partial, c);
  DT_CUDA_LAUNCH_CHECK("k_update", s->stream, ctx);
  if (pc) { /* z = M^-1 r, masked, and r.z */
    DT_TRY(callback_pc(s, pc, pc_data, pc_stream, ctx));
    k_mask_dot<<<HP_DOT_BLOCKS, HP_THREADS, 0, s->stream>>>(s->n, fixed, s->r, s->z,
                                                            s->partial + HP_DOT_BLOCKS, c);
    DT_CUDA_LAUNCH_CHECK("k_mask_dot", s->stream, ctx);
  }
  k_check<<<1, 32, 0, s->stream>>>(s->partial, c);
  DT_CUDA_LAUNCH_CHECK("k_check", s->stream, ctx);
  k_direction<<<vg, HP_THREADS, 0, s->stream>>>(s->n, s->z, s->p, c);
  DT_CUDA_LAUNCH_CHECK("k_direction", s->stream, ctx);
cleanup:
  return rc;
}

/* r = b - K u masked, |r_0|, z = M^-1 r, p = z, r.z: the state before the first iteration. */
static dt_status start(hp_pcg *s, hp_apply_fn apply, void *op, const double *diag,
                       dt_cuda_ho_pc_fn pc, void *pc_data, cudaStream_t pc_stream,
                       const unsigned char *fixed, const double *b, double *u, double rtol,
                       int max_it, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  hp_ctl *c = (hp_ctl *)s->ctl;
  int vg = hp_grid(s->n);
  DT_TRY(apply(op, u, s->Ap, NULL, ctx));
  k_lift<<<vg, HP_THREADS, 0, s->stream>>>(s->n, fixed, b, s->Ap, s->r);
  DT_CUDA_LAUNCH_CHECK("k_lift", s->stream, ctx);
  k_dot<<<HP_DOT_BLOCKS, HP_THREADS, 0, s->stream>>>(s->n, s->r, s->r, s->partial);
  DT_CUDA_LAUNCH_CHECK("k_dot", s->stream, ctx);
  k_start<<<1, 32, 0, s->stream>>>(s->partial, rtol, max_it, c);
  DT_CUDA_LAUNCH_CHECK("k_start", s->stream, ctx);
  if (pc) {
    DT_TRY(callback_pc(s, pc, pc_data, pc_stream, ctx));
    k_mask<<<vg, HP_THREADS, 0, s->stream>>>(s->n, fixed, s->z, c);
    DT_CUDA_LAUNCH_CHECK("k_mask", s->stream, ctx);
  } else {
    k_jacobi<<<vg, HP_THREADS, 0, s->stream>>>(s->n, fixed, diag, s->r, s->z, c);
    DT_CUDA_LAUNCH_CHECK("k_jacobi", s->stream, ctx);
  }
  k_first<<<HP_DOT_BLOCKS, HP_THREADS, 0, s->stream>>>(s->n, s->r, s->z, s->p, s->partial, c);
  DT_CUDA_LAUNCH_CHECK("k_first", s->stream, ctx);
  k_first_rz<<<1, 32, 0, s->stream>>>(s->partial, c);
  DT_CUDA_LAUNCH_CHECK("k_first_rz", s->stream, ctx);
cleanup:
  return rc;
}

dt_status hp_pcg_solve(hp_pcg *s, hp_apply_fn apply, void *op, const double *d_diag,
                       dt_cuda_ho_pc_fn pc, void *pc_data, cudaStream_t pc_stream,
                       const unsigned char *d_fixed, const double *d_b, double *d_u,
                       const dt_ho_pcg_opts *opts, dt_ho_pcg_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  hp_ctl c;
  dt_ho_pcg_result out = {0, 0.0, 0.0, 0};
  int batch = pc ? 1 : HP_CHECK_EVERY;
  memset(&c, 0, sizeof c);
  if (!pc) DT_TRY(check_diag(s, d_fixed, d_diag, ctx));
  DT_TRY(start(s, apply, op, d_diag, pc, pc_data, pc_stream, d_fixed, d_b, d_u, opts->rtol,
               opts->max_it, ctx));
  for (;;) {
    DT_TRY(read_ctl(s, &c, ctx)); /* the one wait of a batch */
    if (c.stop) break;
    for (int k = 0; k < batch; k++)
      DT_TRY(iteration(s, apply, op, d_diag, pc, pc_data, pc_stream, d_fixed, d_u, ctx));
  }
  out.iterations = c.iterations;
  out.rnorm0 = c.rnorm0;
  out.rnorm = c.rnorm;
  out.indefinite = c.reason == HP_INDEFINITE_K || c.reason == HP_INDEFINITE_M;
  DT_CHECK(c.reason != HP_CAP, ctx, DT_ERR_NOT_CONVERGED,
           "PCG did not converge: relative residual %.3g after %d iterations (tolerance %.3g)",
           c.rnorm / c.rnorm0, c.iterations, opts->rtol);
  DT_CHECK(c.reason != HP_INDEFINITE_K, ctx, DT_ERR_NOT_CONVERGED,
           "PCG stopped at iteration %d: p^T K p = %g, the operator is not positive definite "
           "on the free DOFs (missing Dirichlet conditions?)",
           c.iterations, c.value);
  DT_CHECK(c.reason != HP_INDEFINITE_M, ctx, DT_ERR_NOT_CONVERGED,
           "PCG stopped at iteration %d: r^T M^-1 r = %g, the preconditioner is not positive "
           "definite",
           c.iterations, c.value);
cleanup:
  if (res) *res = out;
  return rc;
}
