/* The p-multigrid V-cycle on the device (cuda_ho_pmg.h): upload of a host dt_ho_pmg, the
 * finest level's operator and smoother (with the host's Lanczos estimate on the device), the
 * Chebyshev smoother and the cycle.
 *
 * The steps and their order are those of ho_pmg.c (vcycle, chebyshev), each vector loop one
 * kernel with the host's expression, so a device application equals dt_ho_pmg_apply to
 * rounding (the operators, transfers and sparse products sum in other orders). Per level of
 * order p > 1 and V-cycle: 2 degree operator products (degree - 1 and the residual's before
 * the coarse correction, degree after), 2 degree + 1 vector kernels, one restriction and one
 * prolongation; the order-1 level is the AMG's cycle (cuda_ho_pmg_amg.cu). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "cuda_ho_pmg_internal.h"

dt_status dt_cuda_pmg_alloc(dt_cuda_ho_pmg *pc, void **p, size_t bytes, const char *what,
                            dt_ctx *ctx) {
  return dt_cuda_malloc_counted(p, bytes, "", what, &pc->bytes, ctx);
}

dt_status dt_cuda_pmg_upload(dt_cuda_ho_pmg *pc, void **p, const void *src, size_t bytes,
                             const char *what, dt_ctx *ctx) {
  return dt_cuda_upload_counted(p, src, bytes, "", what, &pc->bytes, ctx);
}

/* Chebyshev's first step: r = b (zero) or b - t (t = A x); d = D^-1 r / theta; x = d (zero: x
 * from 0) or x + d. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_cheb_first(int n, int zero, double theta, const double *__restrict__ b,
                     const double *__restrict__ t, const double *__restrict__ dinv,
                     double *__restrict__ r, double *__restrict__ d, double *__restrict__ x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double ri = zero ? b[i] : b[i] - t[i], di = dinv[i] * ri / theta;
  r[i] = ri;
  d[i] = di;
  x[i] = zero ? di : x[i] + di;
}

/* Chebyshev's later steps, t = A d: r -= t; d = c1 d + c2 D^-1 r; x += d. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_cheb_step(int n, double c1, double c2, const double *__restrict__ t,
                    const double *__restrict__ dinv, double *__restrict__ r, double *__restrict__ d,
                    double *__restrict__ x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double ri = r[i] - t[i], di = c1 * d[i] + c2 * dinv[i] * ri;
  r[i] = ri;
  d[i] = di;
  x[i] += di;
}

/* r = b - t on free DOFs, 0 on constrained ones (the residual that is restricted). */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_residual(int n, const unsigned char *__restrict__ fixed, const double *__restrict__ b,
                   const double *__restrict__ t, double *__restrict__ r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] = fixed[i] ? 0.0 : b[i] - t[i];
}

/* out = in on free DOFs, 0 on constrained ones (in == out allowed). */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_mask(int n, const unsigned char *__restrict__ fixed, const double *in, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fixed[i] ? 0.0 : in[i];
}

/* dinv = 1 / diag on free DOFs, 0 on constrained ones; *bad = the lowest free DOF whose
 * diagonal entry is not positive (an index, so an atomic minimum leaves one answer). */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_dinv(int n, const unsigned char *__restrict__ fixed, const double *__restrict__ diag,
               double *__restrict__ dinv, int *bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (!fixed[i] && !(diag[i] > 0.0)) atomicMin(bad, i);
  dinv[i] = fixed[i] ? 0.0 : 1.0 / diag[i];
}

/* dt_amg_lanczos_start (amg_smoother.c), the same hash: entry i of the Lanczos start vector. */
__device__ static double lanczos_start(int i) {
  uint32_t h = (uint32_t)i * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (double)(h & 0xffffu) / 65536.0 - 0.5;
}

/* Lanczos vectors: v = start on free DOFs (scale 1) or v *= scale; vp = 0 when start. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_lz_start(int n, int start, double scale, const double *__restrict__ dinv,
                   double *__restrict__ v, double *__restrict__ vp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (start) {
    v[i] = dinv[i] > 0.0 ? lanczos_start(i) : 0.0;
    vp[i] = 0.0;
  } else
    v[i] /= scale;
}

/* out = sqrt(dinv) in (the symmetric scaling D^-1/2). */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_lz_scale(int n, const double *__restrict__ dinv, const double *in, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrt(dinv[i]) * in[i];
}

/* w -= alpha v + beta vp. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_lz_orth(int n, double alpha, double beta, const double *__restrict__ v,
                  const double *__restrict__ vp, double *__restrict__ w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= alpha * v[i] + beta * vp[i];
}

/* vp = v, v = w / beta. */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_lz_next(int n, double beta, const double *__restrict__ w, double *__restrict__ v,
                  double *__restrict__ vp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  vp[i] = v[i];
  v[i] = w[i] / beta;
}

#define LAUNCH(kernel, n, pc, ...)                                                                 \
  do {                                                                                             \
    kernel<<<pmg_grid(n), PMG_BLOCK, 0, (pc)->s>>>(__VA_ARGS__);                                   \
    DT_CUDA_LAUNCH_CHECK(#kernel, (pc)->s, ctx);                                                   \
  } while (0)

dt_status dt_cuda_pmg_cheb_first(dt_cuda_ho_pmg *pc, int n, int zero, double theta, const double *b,
                                 const double *t, const double *dinv, double *r, double *d,
                                 double *x, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  LAUNCH(k_pmg_cheb_first, n, pc, n, zero, theta, b, t, dinv, r, d, x);
cleanup:
  return rc;
}

dt_status dt_cuda_pmg_cheb_step(dt_cuda_ho_pmg *pc, int n, double c1, double c2, const double *t,
                                const double *dinv, double *r, double *d, double *x, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  LAUNCH(k_pmg_cheb_step, n, pc, n, c1, c2, t, dinv, r, d, x);
cleanup:
  return rc;
}

/* lambda_max of D^-1 A on the finest level's free DOFs (ho_pmg.c, lambda_max): Lanczos on
 * D^-1/2 A D^-1/2 from the same start, using the level's r, d, t, x. */
static dt_status fine_lambda_max(dt_cuda_ho_pmg *pc, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pmg_level *L = &pc->lev[0];
  int n = L->n, k = 0;
  double alpha[DT_AMG_LANCZOS_MAX], beta[DT_AMG_LANCZOS_MAX], b_prev = 0.0, nrm = 0.0;
  double *v = L->r, *vp = L->d, *w = L->t, *s = L->x;
  LAUNCH(k_pmg_lz_start, n, pc, n, 1, 1.0, L->dinv, v, vp);
  DT_TRY(dt_cuda_pmg_dot(pc->s, n, v, v, pc->partial, pc->h_partial, &nrm, ctx));
  LAUNCH(k_pmg_lz_start, n, pc, n, 0, sqrt(nrm), L->dinv, v, vp);
  for (int j = 0; j < pc->lanczos_steps; j++) {
    LAUNCH(k_pmg_lz_scale, n, pc, n, L->dinv, v, s);
    DT_TRY(dt_cuda_pmg_level_apply(pc, 0, s, w, ctx));
    LAUNCH(k_pmg_lz_scale, n, pc, n, L->dinv, w, w);
    DT_TRY(dt_cuda_pmg_dot(pc->s, n, w, v, pc->partial, pc->h_partial, &alpha[j], ctx));
    k = j + 1;
    LAUNCH(k_pmg_lz_orth, n, pc, n, alpha[j], b_prev, v, vp, w);
    DT_TRY(dt_cuda_pmg_dot(pc->s, n, w, w, pc->partial, pc->h_partial, &beta[j], ctx));
    beta[j] = sqrt(beta[j]);
    if (beta[j] <= DT_AMG_LANCZOS_BREAK * fabs(alpha[j])) break;
    LAUNCH(k_pmg_lz_next, n, pc, n, beta[j], w, v, vp);
    b_prev = beta[j];
  }
  L->lambda_max = dt_amg_ritz_max(alpha, beta, k);
  DT_CHECK(L->lambda_max > 0.0 && isfinite(L->lambda_max), ctx, DT_ERR_NOT_CONVERGED,
           "p-multigrid (device): lambda_max(D^-1 A) of order %d estimated as %g", L->order,
           L->lambda_max);
cleanup:
  return rc;
}

static dt_status set_fine(dt_cuda_ho_pmg *pc, const double *d_diag, double lambda_max,
                          dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pmg_level *L = &pc->lev[0];
  int bad = INT_MAX, *d_bad = (int *)pc->partial; /* the partials are free between dots */
  if (!d_diag) return DT_OK;
  DT_CUDA_CHECK(cudaSetDevice(pc->device), ctx);
  DT_CUDA_CHECK(cudaMemcpyAsync(d_bad, &bad, sizeof bad, cudaMemcpyHostToDevice, pc->s), ctx);
  LAUNCH(k_pmg_dinv, L->n, pc, L->n, L->fixed, d_diag, L->dinv, d_bad);
  DT_CUDA_CHECK(cudaMemcpyAsync(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost, pc->s), ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(pc->s), ctx);
  DT_CHECK(bad == INT_MAX, ctx, DT_ERR_INPUT,
           "p-multigrid (device): order %d, diagonal entry of free DOF %d (node %d, component %d) "
           "is not positive",
           L->order, bad, bad / 3, bad % 3);
  if (lambda_max > 0.0)
    L->lambda_max = lambda_max;
  else
    DT_TRY(fine_lambda_max(pc, ctx));
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_pmg_set_fine(dt_cuda_ho_pmg *pc, dt_cuda_ho_dev_fn apply, void *op,
                                             const double *d_diag, double lambda_max, dt_ctx *ctx) {
  pc->lev[0].apply = apply;
  pc->lev[0].op = op;
  pc->lev[0].ho = NULL;
  if (!apply) return DT_ERROR(ctx, DT_ERR_INPUT, "p-multigrid (device): no fine operator");
  return set_fine(pc, d_diag, lambda_max, ctx);
}

extern "C" dt_status dt_cuda_ho_pmg_set_fine_ho(dt_cuda_ho_pmg *pc, dt_cuda_ho *h,
                                                const double *d_diag, double lambda_max,
                                                dt_ctx *ctx) {
  pc->lev[0].apply = NULL;
  pc->lev[0].op = NULL;
  pc->lev[0].ho = h;
  if (!h) return DT_ERROR(ctx, DT_ERR_INPUT, "p-multigrid (device): no fine operator");
  if (h->n_nodes != pc->lev[0].n_nodes)
    return DT_ERROR(ctx, DT_ERR_INPUT,
                    "p-multigrid (device): the fine operator has %d nodes, the finest level %d",
                    h->n_nodes, pc->lev[0].n_nodes);
  return set_fine(pc, d_diag, lambda_max, ctx);
}

extern "C" double dt_cuda_ho_pmg_lambda_max(const dt_cuda_ho_pmg *pc) {
  return pc->lev[0].lambda_max;
}

extern "C" void *dt_cuda_ho_pmg_stream(const dt_cuda_ho_pmg *pc) { return (void *)pc->s; }

/* Chebyshev smoothing of A x = b on level l (ho_pmg.c, chebyshev): from zero or from x. */
static dt_status chebyshev(dt_cuda_ho_pmg *pc, int l, int zero, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pmg_level *L = &pc->lev[l];
  int n = L->n;
  double hi = DT_AMG_CHEB_SAFETY * L->lambda_max, lo = hi / pc->eig_ratio;
  double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta;
  double rho = 1.0 / sigma;
  if (!zero) DT_TRY(dt_cuda_pmg_level_apply(pc, l, L->x, L->t, ctx));
  LAUNCH(k_pmg_cheb_first, n, pc, n, zero, theta, L->b, L->t, L->dinv, L->r, L->d, L->x);
  for (int k = 1; k < pc->degree; k++) {
    double rho_new = 1.0 / (2.0 * sigma - rho);
    DT_TRY(dt_cuda_pmg_level_apply(pc, l, L->d, L->t, ctx));
    LAUNCH(k_pmg_cheb_step, n, pc, n, rho_new * rho, 2.0 * rho_new / delta, L->t, L->dinv, L->r,
           L->d, L->x);
    rho = rho_new;
  }
cleanup:
  return rc;
}

/* lev[l].x = the V-cycle applied to lev[l].b (ho_pmg.c, vcycle). */
static dt_status vcycle(dt_cuda_ho_pmg *pc, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pmg_level *L = &pc->lev[l], *C = &pc->lev[l + 1];
  if (l == pc->n_levels - 1) {
    DT_TRY(dt_cuda_pmg_amg_cycle(pc, L->b, L->x, ctx));
    LAUNCH(k_pmg_mask, L->n, pc, L->n, L->fixed, L->x, L->x);
    goto cleanup;
  }
  DT_TRY(chebyshev(pc, l, 1, ctx));
  /* coarse right-hand side: R (b - A x) on the coarse free DOFs */
  DT_TRY(dt_cuda_pmg_level_apply(pc, l, L->x, L->t, ctx));
  LAUNCH(k_pmg_residual, L->n, pc, L->n, L->fixed, L->b, L->t, L->r);
  DT_TRY(dt_cuda_pmg_restrict_masked(pc, l, L->r, C->b, C->fixed, ctx));
  DT_TRY(vcycle(pc, l + 1, ctx));
  DT_TRY(dt_cuda_pmg_prolong_add(pc, l, C->x, L->x, L->fixed, ctx));
  DT_TRY(chebyshev(pc, l, 0, ctx));
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_pmg_apply(void *pcv, const double *d_r, double *d_z, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_ho_pmg *pc = (dt_cuda_ho_pmg *)pcv;
  pmg_level *F = &pc->lev[0];
  double *x = F->x;
  DT_CHECK(F->apply || F->ho, ctx, DT_ERR_INPUT,
           "p-multigrid (device): applied before its fine operator was set");
  DT_CUDA_CHECK(cudaSetDevice(pc->device), ctx);
  F->x = d_z; /* the finest level's solution is the output: no copy */
  LAUNCH(k_pmg_mask, F->n, pc, F->n, F->fixed, d_r, F->b);
  rc = vcycle(pc, 0, ctx);
  F->x = x;
  if (rc != DT_OK) goto cleanup;
  LAUNCH(k_pmg_mask, F->n, pc, F->n, F->fixed, d_z, d_z);
  pc->applies++;
cleanup:
  F->x = x;
  return rc;
}

/* Level l's arrays from the host level: constrained DOFs, smoother, vectors, operator. */
static dt_status upload_level(dt_cuda_ho_pmg *pc, const dt_ho_pmg *host, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_ho_pmg_level *H = &host->lev[l];
  pmg_level *L = &pc->lev[l];
  int last = l == host->n_levels - 1;
  size_t bytes = sizeof(double) * (size_t)H->n;
  double **vec[] = {&L->b, &L->x, &L->r, &L->d, &L->t};
  L->order = H->order;
  L->n = H->n;
  L->n_nodes = H->n_nodes;
  L->lambda_max = H->lambda_max;
  DT_TRY(dt_cuda_pmg_upload(pc, (void **)&L->fixed, H->fixed, (size_t)H->n,
                            "p-multigrid constrained DOFs", ctx));
  /* the order-1 level keeps b and x (the AMG's level 0 has its own r, d, t); level 0's x
   * serves the Lanczos steps (an application writes the caller's z instead) */
  for (int k = 0; k < (last ? 2 : 5); k++)
    DT_TRY(dt_cuda_pmg_alloc(pc, (void **)vec[k], bytes, "p-multigrid vectors", ctx));
  if (last) goto cleanup;
  DT_TRY(dt_cuda_pmg_upload(pc, (void **)&L->dinv, H->dinv, bytes, "p-multigrid smoother", ctx));
  DT_TRY(dt_cuda_pmg_transfer_upload(pc, host, l, ctx));
  if (l > 0) {
    DT_TRY(dt_cuda_ho_create(&H->el, pc->device, &L->ho, ctx));
    L->own_ho = 1;
  }
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_pmg_create(const dt_ho_pmg *host, int device, void *stream,
                                           dt_cuda_ho_pmg **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_ho_pmg *pc = NULL;
  *out = NULL;
  pc = (dt_cuda_ho_pmg *)dt_calloc(1, sizeof *pc);
  DT_CHECK(pc != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating the device p-multigrid");
  DT_CHECK(host->n_levels >= 2 && host->amg, ctx, DT_ERR_INPUT,
           "p-multigrid (device): the host p-multigrid is not set up");
  pc->device = device;
  pc->n_levels = host->n_levels;
  pc->degree = host->opt.degree;
  pc->eig_ratio = host->opt.eig_ratio;
  pc->lanczos_steps = host->opt.lanczos_steps;
  pc->s = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  DT_CUDA_CHECK(cudaSetDevice(device), ctx);
  DT_CUDA_CHECK(cudaEventCreateWithFlags(&pc->ev_in, cudaEventDisableTiming), ctx);
  DT_CUDA_CHECK(cudaEventCreateWithFlags(&pc->ev_out, cudaEventDisableTiming), ctx);
  DT_TRY(dt_cuda_pmg_alloc(pc, (void **)&pc->partial, sizeof(double) * PMG_DOT_BLOCKS,
                           "dot products", ctx));
  DT_CUDA_CHECK(cudaMallocHost((void **)&pc->h_partial, sizeof(double) * PMG_DOT_BLOCKS), ctx);
  for (int l = 0; l < host->n_levels; l++) DT_TRY(upload_level(pc, host, l, ctx));
  DT_TRY(dt_cuda_pmg_amg_upload(pc, host->amg, ctx));
  DT_CUDA_CHECK(cudaDeviceSynchronize(), ctx);
  *out = pc;
  pc = NULL;
cleanup:
  dt_cuda_ho_pmg_destroy(pc);
  return rc;
}

extern "C" void dt_cuda_ho_pmg_destroy(dt_cuda_ho_pmg *pc) {
  if (!pc) return;
  cudaSetDevice(pc->device);
  for (int l = 0; l < DT_HO_PMG_MAX_LEVELS; l++) {
    pmg_level *L = &pc->lev[l];
    void *p[] = {L->fixed, L->dinv,  L->b,   L->x,     L->r,     L->d,  L->t,
                 L->P.ptr, L->P.col, L->P.w, L->R.ptr, L->R.col, L->R.w};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) cudaFree(p[k]);
    if (L->own_ho) dt_cuda_ho_destroy(L->ho);
  }
  dt_cuda_pmg_amg_free(pc);
  cudaFree(pc->partial);
  cudaFreeHost(pc->h_partial);
  if (pc->ev_in) cudaEventDestroy(pc->ev_in);
  if (pc->ev_out) cudaEventDestroy(pc->ev_out);
  dt_free(pc);
}

/* Bytes of one product by an elastic device operator: qdata, node ids (gather and scatter),
 * Lame parameters, u gathered once, v zeroed and then read and written. */
static double ho_bytes(const dt_cuda_ho *h) {
  double ne = h->n_elems, n = 3.0 * h->n_nodes, p3 = (double)h->P1 * h->P1 * h->P1;
  return 8.0 * DT_HO_QDATA_SIZE * h->Q * h->Q * h->Q * ne + 8.0 * p3 * ne + 20.0 * ne + 32.0 * n;
}

/* Bytes of y = A x (or y += A x) for a CSR matrix: values and columns, row pointers, x (once,
 * cached), y written (and read). */
static double csr_bytes(const pmg_csr *A, int n_cols, int add) {
  return 12.0 * A->nnz + 4.0 * (A->n_rows + 1) + 8.0 * n_cols + (add ? 16.0 : 8.0) * A->n_rows;
}

static double ncsr_bytes(const pmg_ncsr *A, int n_in_nodes, int add) {
  return 12.0 * A->nnz + 4.0 * (A->n_rows + 1) + 24.0 * n_in_nodes +
         (add ? 51.0 : 27.0) * A->n_rows; /* 3 values out (read too when adding), 3 flags */
}

extern "C" void dt_cuda_ho_pmg_traffic(const dt_cuda_ho_pmg *pc, double *bytes_per_apply,
                                       double *held) {
  double b = 0.0, h = (double)pc->bytes, vec_smooth = 15.125 + 16.0 * (pc->degree - 1);
  for (int l = 0; l + 1 < pc->n_levels; l++) {
    const pmg_level *L = &pc->lev[l], *C = &pc->lev[l + 1];
    const dt_cuda_ho *op = L->ho;
    if (op) b += 2.0 * pc->degree * ho_bytes(op); /* a fine callback's own bytes are not known */
    if (L->own_ho) h += (double)op->bytes;
    b += 8.0 * L->n * vec_smooth;
    b += ncsr_bytes(&L->R, L->n_nodes, 0) + ncsr_bytes(&L->P, C->n_nodes, 1);
  }
  b += 2 * 17.0 * pc->lev[0].n + 17.0 * pc->lev[pc->n_levels - 1].n; /* masks in and out */
  for (int l = 0; l + 1 < pc->amg_levels; l++) {
    const pmg_amg_level *L = &pc->alev[l];
    double sm = 8.0 * L->n * (15.0 + 16.0 * (pc->amg_degree - 1) + 3.0);
    b += sm + (2.0 * pc->amg_degree + 1) * csr_bytes(&L->A, L->n, 0);
    b += csr_bytes(&L->R, L->n, 0) + csr_bytes(&L->P, pc->alev[l + 1].n, 1);
  }
  b += 2.0 * 8.0 * (double)pc->nc * pc->nc;
  *bytes_per_apply = b;
  *held = h;
}

extern "C" void dt_cuda_ho_pmg_view(const dt_cuda_ho_pmg *pc, FILE *f) {
  double b = 0.0, h = 0.0;
  dt_cuda_ho_pmg_traffic(pc, &b, &h);
  fprintf(f,
          "p-multigrid on the device: %d levels, Chebyshev degree %d on [lambda_max / %g, %g "
          "lambda_max], %.1f MB held, %.1f MB moved per application (the fine operator's own "
          "products counted when it is a dt_cuda_ho), %ld applications\n",
          pc->n_levels, pc->degree, pc->eig_ratio, DT_AMG_CHEB_SAFETY, h / 1e6, b / 1e6,
          pc->applies);
  for (int l = 0; l < pc->n_levels; l++) {
    const pmg_level *L = &pc->lev[l];
    if (l + 1 < pc->n_levels)
      fprintf(f, "  order %d: %d DOFs, lambda_max(D^-1 A) %.4f, %s; P %d entries\n", L->order, L->n,
              L->lambda_max,
              l > 0   ? "elastic dt_cuda_ho"
              : L->ho ? "fine dt_cuda_ho"
                      : "fine callback",
              L->P.nnz);
    else
      fprintf(f, "  order 1: %d DOFs, AMG V-cycle of %d levels on the device\n", L->n,
              pc->amg_levels);
  }
  for (int l = 0; l < pc->amg_levels; l++) {
    const pmg_amg_level *L = &pc->alev[l];
    if (l + 1 < pc->amg_levels)
      fprintf(f, "    amg level %d: %d DOFs, %d nonzeros, lambda_max %.4f\n", l, L->n, L->A.nnz,
              L->lambda_max);
    else
      fprintf(f, "    amg level %d: %d DOFs, X = L^-1 dense\n", l, L->n);
  }
}

/* One timed V-cycle: z = M^-1 r. */
typedef struct {
  dt_cuda_ho_pmg *pc;
  const double *d_r;
  double *d_z;
} pmg_timed;

static dt_status timed_cycle(void *data, dt_ctx *ctx) {
  pmg_timed *t = (pmg_timed *)data;
  return dt_cuda_ho_pmg_apply(t->pc, t->d_r, t->d_z, ctx);
}

extern "C" dt_status dt_cuda_ho_pmg_time(dt_cuda_ho_pmg *pc, const double *d_r, double *d_z,
                                         int reps, double *seconds, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pmg_timed t = {pc, d_r, d_z};
  float ms = 0.0f;
  DT_CUDA_CHECK(cudaSetDevice(pc->device), ctx);
  DT_TRY(dt_cuda_ho_pmg_apply(pc, d_r, d_z, ctx)); /* warm-up */
  DT_TRY(dt_cuda_time_ms(pc->s, reps, timed_cycle, &t, &ms, ctx));
  *seconds = ms * 1e-3 / (reps > 0 ? reps : 1);
cleanup:
  return rc;
}
