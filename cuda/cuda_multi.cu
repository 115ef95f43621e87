/* Jacobi-preconditioned CG for order-P elasticity on several GPUs of one host, a part of the
 * mesh per GPU (solver/partition/: METIS parts, local numbering, ordered halo lists), NCCL
 * between them (docs/multi-gpu.md).
 *
 * One process drives every GPU (NCCL's single-process mode: one communicator per device from
 * ncclCommInitAll, calls of all devices inside one group). Vectors live on each part's local
 * nodes, ghosts included, and are kept consistent: a ghost holds its owner's value. So each
 * iteration needs:
 *   - the product from the part's own elements (dt_cuda_ho_apply_device) and one sum exchange
 *     of it (dt_halo_exchange over cuda_halo.cu's NCCL transport: ghost contributions onto the
 *     owner, then the totals back to the ghosts; values only, the lists were matched once);
 *   - two all-reduces of dot products summed over owned DOFs (p.q; then r.r and r.z together);
 *   - every other vector operation pointwise on all local DOFs, which keeps them consistent.
 * The exchange driver is the host tests' (partition_exchange.c); its NCCL transport is
 * cuda_halo.cu's, whose communicators also carry the all-reduces here. NVLink multicast (NVLS)
 * is never asked for. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_halo.h"
#include "cuda_highorder_internal.h"

#ifdef DUCTILE_HAVE_NCCL
#include <nccl.h>

#define MG_THREADS 256
#define MG_DOT_BLOCKS 256

typedef struct mg_part {
  int device;
  dt_cuda_ho *h; /* p is h->u, q is h->v */
  double *x, *r, *z, *dinv, *fre, *own;
  double *dot_partial, *dot; /* MG_DOT_BLOCKS x 2, and 2 (all-reduced in place) */
  ncclComm_t comm;           /* the halo transport's, for the all-reduces */
  size_t n;                  /* local DOFs */
} mg_part;

typedef struct mg {
  int np;
  const dt_part_local *parts;
  mg_part *p;
  dt_cuda_halo *halo; /* NCCL, slot s = part s on device p[s].device */
} mg;

/* out[0] += sum own a.b, out[1] += sum own c.d over a fixed grid, then one block sums the
 * partials in a fixed order: the same bits on every run. */
__global__ void k_dots(size_t n, const double *__restrict__ own, const double *__restrict__ a,
                       const double *__restrict__ b, const double *__restrict__ c,
                       const double *__restrict__ d, double *__restrict__ partial) {
  __shared__ double s0[MG_THREADS], s1[MG_THREADS];
  double t0 = 0.0, t1 = 0.0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    t0 += own[i] * a[i] * b[i];
    if (c) t1 += own[i] * c[i] * d[i];
  }
  s0[threadIdx.x] = t0;
  s1[threadIdx.x] = t1;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      s0[threadIdx.x] += s0[threadIdx.x + w], s1[threadIdx.x] += s1[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[2 * blockIdx.x] = s0[0], partial[2 * blockIdx.x + 1] = s1[0];
}

__global__ void k_dots_final(const double *__restrict__ partial, double *__restrict__ out) {
  if (threadIdx.x == 0) {
    double a = 0.0, b = 0.0;
    for (int k = 0; k < MG_DOT_BLOCKS; k++) a += partial[2 * k], b += partial[2 * k + 1];
    out[0] = a;
    out[1] = b;
  }
}

/* x += alpha p, r -= alpha q (q masked to free DOFs: identity rows of fixed DOFs hold 0). */
__global__ void k_step(size_t n, double alpha, const double *__restrict__ fre,
                       const double *__restrict__ p, double *__restrict__ q, double *__restrict__ x,
                       double *__restrict__ r, const double *__restrict__ dinv,
                       double *__restrict__ z) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  double qi = fre[i] * q[i];
  q[i] = qi;
  x[i] += alpha * p[i];
  r[i] -= alpha * qi;
  z[i] = dinv[i] * r[i];
}

__global__ void k_mask(size_t n, const double *__restrict__ fre, double *__restrict__ q) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) q[i] *= fre[i];
}

__global__ void k_direction(size_t n, double beta, const double *__restrict__ z,
                            double *__restrict__ p) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] = z[i] + beta * p[i];
}

static int mg_grid(size_t n) { return (int)((n + MG_THREADS - 1) / MG_THREADS); }

/* Two global dot products: sum over parts of own-masked a.b and c.d (c may be NULL). */
static dt_status mg_dots(mg *g, double *const *a, double *const *b, double *const *c,
                         double *const *d, double out[2], dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int s = 0; s < g->np; s++) {
    mg_part *P = &g->p[s];
    DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
    k_dots<<<MG_DOT_BLOCKS, MG_THREADS, 0, P->h->stream>>>(
        P->n, P->own, a[s], b[s], c ? c[s] : NULL, d ? d[s] : NULL, P->dot_partial);
    k_dots_final<<<1, 32, 0, P->h->stream>>>(P->dot_partial, P->dot);
    DT_CUDA_LAUNCH_CHECK("k_dots", P->h->stream, ctx);
  }
  NCCL_CHECK(ncclGroupStart(), ctx);
  for (int s = 0; s < g->np; s++)
    NCCL_CHECK(ncclAllReduce(g->p[s].dot, g->p[s].dot, 2, ncclDouble, ncclSum, g->p[s].comm,
                             g->p[s].h->stream),
               ctx);
  NCCL_CHECK(ncclGroupEnd(), ctx);
  DT_CUDA_CHECK(cudaSetDevice(g->p[0].device), ctx);
  DT_CUDA_CHECK(cudaMemcpyAsync(out, g->p[0].dot, 2 * sizeof(double), cudaMemcpyDeviceToHost,
                                g->p[0].h->stream),
                ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(g->p[0].h->stream), ctx);
cleanup:
  return rc;
}

static dt_status mg_exchange(mg *g, double *const *v, dt_ctx *ctx) {
  return dt_halo_exchange(g->parts, g->np, v, 3, DT_HALO_SUM, dt_cuda_halo_ops(g->halo), g->halo,
                          ctx);
}

static double mg_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static dt_status mg_upload(mg_part *P, double **dst, const double *src, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(cudaMalloc(dst, sizeof(double) * (P->n ? P->n : 1)), ctx);
  if (src)
    DT_CUDA_CHECK(dt_cuda_put(*dst, src, sizeof(double) * P->n), ctx);
  else
    DT_CUDA_CHECK(dt_cuda_put(*dst, NULL, sizeof(double) * (P->n ? P->n : 1)), ctx);
cleanup:
  return rc;
}

static void mg_destroy(mg *g) {
  if (!g->p) return;
  dt_cuda_halo_destroy(g->halo); /* the communicators, lists and buffers; before the streams */
  g->halo = NULL;
  for (int s = 0; s < g->np; s++) {
    mg_part *P = &g->p[s];
    cudaSetDevice(P->device);
    cudaFree(P->x), cudaFree(P->r), cudaFree(P->z), cudaFree(P->dinv), cudaFree(P->fre);
    cudaFree(P->own), cudaFree(P->dot_partial), cudaFree(P->dot);
    dt_cuda_ho_destroy(P->h);
  }
  free(g->p);
  g->p = NULL;
}

extern "C" dt_status dt_cuda_multi_pcg(const dt_multi_pcg_input *in, double rtol, int max_iter,
                                       double *const *x, dt_multi_pcg_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  mg g;
  int devs[DT_MULTI_MAX_GPUS];
  double **pv = NULL, **qv = NULL, **rv = NULL, **zv = NULL, **xv = NULL;
  double t0, d[2], rz, rr0, rr;
  memset(&g, 0, sizeof g);
  memset(res, 0, sizeof *res);
  g.np = in->nparts;
  g.parts = in->parts;
  DT_CHECK(g.np >= 1 && g.np <= DT_MULTI_MAX_GPUS, ctx, DT_ERR_INPUT,
           "%d GPUs asked for; 1 to %d are supported", g.np, DT_MULTI_MAX_GPUS);
  t0 = mg_now();
  g.p = (mg_part *)calloc((size_t)g.np, sizeof(mg_part));
  pv = (double **)calloc((size_t)g.np, sizeof(double *));
  qv = (double **)calloc((size_t)g.np, sizeof(double *));
  rv = (double **)calloc((size_t)g.np, sizeof(double *));
  zv = (double **)calloc((size_t)g.np, sizeof(double *));
  xv = (double **)calloc((size_t)g.np, sizeof(double *));
  DT_CHECK(g.p && pv && qv && rv && zv && xv, ctx, DT_ERR_NOMEM,
           "out of memory allocating the multi-GPU solver");
  for (int s = 0; s < g.np; s++) {
    const dt_part_local *l = &in->parts[s];
    DT_CHECK(l->part == s && l->n_elems > 0, ctx, DT_ERR_INPUT,
             "part %d of %d has no elements (or is out of order): every GPU needs a part", s, g.np);
    devs[s] = in->devices[s];
    for (int k = 0; k < s; k++)
      DT_CHECK(devs[k] != devs[s], ctx, DT_ERR_INPUT,
               "GPU %d is named twice: NCCL runs one part per device", devs[s]);
  }
  for (int s = 0; s < g.np; s++) {
    g.p[s].device = devs[s];
    DT_TRY(dt_cuda_ho_create(in->ops[s], devs[s], &g.p[s].h, ctx));
  }
  {
    dt_cuda_halo_slot slots[DT_MULTI_MAX_GPUS];
    for (int s = 0; s < g.np; s++) {
      slots[s].device = devs[s];
      slots[s].stream = g.p[s].h->stream;
      slots[s].part = &in->parts[s];
    }
    DT_TRY(dt_cuda_halo_create(slots, g.np, 3, DT_CUDA_HALO_NCCL, &g.halo, ctx));
    for (int s = 0; s < g.np; s++) g.p[s].comm = dt_cuda_halo_comm(g.halo, s);
  }
  for (int s = 0; s < g.np; s++) {
    const dt_part_local *l = &in->parts[s];
    mg_part *P = &g.p[s];
    P->n = 3 * (size_t)l->n_nodes;
    DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
    DT_TRY(mg_upload(P, &P->x, NULL, ctx));
    DT_TRY(mg_upload(P, &P->r, in->b[s], ctx));
    DT_TRY(mg_upload(P, &P->z, NULL, ctx));
    DT_TRY(mg_upload(P, &P->dinv, in->dinv[s], ctx));
    DT_TRY(mg_upload(P, &P->fre, in->fre[s], ctx));
    {
      double *own = (double *)calloc(P->n ? P->n : 1, sizeof(double));
      DT_CHECK(own != NULL, ctx, DT_ERR_NOMEM, "out of memory");
      for (size_t i = 0; i < 3 * (size_t)l->n_owned; i++) own[i] = 1.0;
      rc = mg_upload(P, &P->own, own, ctx);
      free(own);
      if (rc != DT_OK) goto cleanup;
    }
    DT_CUDA_CHECK(cudaMalloc(&P->dot_partial, sizeof(double) * 2 * MG_DOT_BLOCKS), ctx);
    DT_CUDA_CHECK(cudaMalloc(&P->dot, sizeof(double) * 2), ctx);
    for (int k = 0; k < l->n_peers; k++)
      res->halo_values +=
          (size_t)(l->send_ptr[k + 1] - l->send_ptr[k] + l->recv_ptr[k + 1] - l->recv_ptr[k]) * 3;
    pv[s] = P->h->u, qv[s] = P->h->v, rv[s] = P->r, zv[s] = P->z, xv[s] = P->x;
    /* z = dinv r, p = z (x0 = 0, r = b, consistent on the ghosts) */
    DT_CUDA_CHECK(dt_cuda_put_on(P->h->stream, P->h->u, NULL, sizeof(double) * P->n), ctx);
    DT_CUDA_CHECK(dt_cuda_put_on(P->h->stream, P->h->v, NULL, sizeof(double) * P->n), ctx);
    k_step<<<mg_grid(P->n), MG_THREADS, 0, P->h->stream>>>(P->n, 0.0, P->fre, P->h->u, P->h->v,
                                                           P->x, P->r, P->dinv, P->z);
    k_direction<<<mg_grid(P->n), MG_THREADS, 0, P->h->stream>>>(P->n, 0.0, P->z, P->h->u);
    DT_CUDA_LAUNCH_CHECK("k_direction", P->h->stream, ctx);
  }
  for (int s = 0; s < g.np; s++) {
    DT_CUDA_CHECK(cudaSetDevice(g.p[s].device), ctx);
    DT_CUDA_CHECK(cudaStreamSynchronize(g.p[s].h->stream), ctx);
  }
  res->seconds_setup = mg_now() - t0;
  t0 = mg_now();
  DT_TRY(mg_dots(&g, rv, rv, rv, zv, d, ctx));
  rr0 = d[0];
  rz = d[1];
  rr = rr0;
  res->iterations = 0;
  while (rr > rtol * rtol * rr0 && res->iterations < max_iter) {
    double alpha, beta;
    for (int s = 0; s < g.np; s++) {
      DT_CUDA_CHECK(cudaSetDevice(g.p[s].device), ctx);
      DT_TRY(dt_cuda_ho_apply_device(g.p[s].h, ctx));
    }
    DT_TRY(mg_exchange(&g, qv, ctx));
    for (int s = 0; s < g.np; s++) {
      mg_part *P = &g.p[s];
      DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
      k_mask<<<mg_grid(P->n), MG_THREADS, 0, P->h->stream>>>(P->n, P->fre, P->h->v);
      DT_CUDA_LAUNCH_CHECK("k_mask", P->h->stream, ctx);
    }
    DT_TRY(mg_dots(&g, pv, qv, NULL, NULL, d, ctx));
    DT_CHECK(d[0] > 0.0, ctx, DT_ERR_NOT_CONVERGED,
             "PCG on %d GPUs: p.Kp = %.3e at iteration %d: the operator is not positive definite "
             "(missing supports?)",
             g.np, d[0], res->iterations);
    alpha = rz / d[0];
    for (int s = 0; s < g.np; s++) {
      mg_part *P = &g.p[s];
      DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
      k_step<<<mg_grid(P->n), MG_THREADS, 0, P->h->stream>>>(P->n, alpha, P->fre, P->h->u, P->h->v,
                                                             P->x, P->r, P->dinv, P->z);
      DT_CUDA_LAUNCH_CHECK("k_step", P->h->stream, ctx);
    }
    DT_TRY(mg_dots(&g, rv, rv, rv, zv, d, ctx));
    rr = d[0];
    beta = d[1] / rz;
    rz = d[1];
    for (int s = 0; s < g.np; s++) {
      mg_part *P = &g.p[s];
      DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
      k_direction<<<mg_grid(P->n), MG_THREADS, 0, P->h->stream>>>(P->n, beta, P->z, P->h->u);
      DT_CUDA_LAUNCH_CHECK("k_direction", P->h->stream, ctx);
    }
    res->iterations++;
  }
  for (int s = 0; s < g.np; s++) {
    DT_CUDA_CHECK(cudaSetDevice(g.p[s].device), ctx);
    DT_CUDA_CHECK(cudaStreamSynchronize(g.p[s].h->stream), ctx);
  }
  res->seconds_solve = mg_now() - t0;
  res->rel_residual = rr0 > 0.0 ? sqrt(rr / rr0) : 0.0;
  for (int s = 0; s < g.np; s++) {
    DT_CUDA_CHECK(cudaSetDevice(g.p[s].device), ctx);
    DT_CUDA_CHECK(cudaMemcpy(x[s], g.p[s].x, sizeof(double) * g.p[s].n, cudaMemcpyDeviceToHost),
                  ctx);
  }
  DT_CHECK(rr <= rtol * rtol * rr0, ctx, DT_ERR_NOT_CONVERGED,
           "PCG on %d GPUs did not reach the relative residual %.1e in %d iterations (%.3e)", g.np,
           rtol, max_iter, res->rel_residual);
cleanup:
  mg_destroy(&g);
  free(pv), free(qv), free(rv), free(zv), free(xv);
  return rc;
}

#else

extern "C" dt_status dt_cuda_multi_pcg(const dt_multi_pcg_input *in, double rtol, int max_iter,
                                       double *const *x, dt_multi_pcg_result *res, dt_ctx *ctx) {
  (void)in, (void)rtol, (void)max_iter, (void)x, (void)res;
  return DT_ERROR(ctx, DT_ERR_UNSUPPORTED,
                  "this build has no NCCL: several GPUs need the CUDA toolkit's NCCL (nccl.h, "
                  "libnccl) at configure time");
}

#endif
