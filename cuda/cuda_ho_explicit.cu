/* Explicit central-difference dynamics of order-P elasticity with a lumped mass on one or several
 * GPUs of one host (the scheme and its energies: solver/highorder/ho_explicit.h; the parts:
 * solver/partition/, as cuda_multi.cu uses them).
 *
 * A step is one operator product per part (dt_cuda_ho_apply_device), one sum exchange of it
 * when there are several parts, and one pointwise kernel per part that forms the acceleration,
 * the increment and the new displacement; the vectors stay consistent on the ghosts because
 * every input of that kernel is. Nothing crosses the parts or reaches the host inside a step:
 * the energies are sums over each part's owned DOFs that the step kernel leaves in per-block
 * partials, reduced on the device into per-part accumulators (external work and damping
 * summed over the steps, kinetic and internal energy of the last half step). The host adds the
 * parts' accumulators only at the monitor's samples, so the balance is checked at the samples
 * rather than every step. Watched DOFs (a beam's tip) are written to a device history every
 * step and handed to the monitor at each sample.
 *
 * The halo transport is cuda_halo.cu's (NCCL across distinct GPUs, or staged through the host,
 * which also runs several parts on one GPU); no collective is needed, so the solver runs
 * without NCCL too. Only the lumped mass: the consistent one needs a CG solve every step
 * (33 times the work on the CPU for the same answer, docs/highorder.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_halo.h"
#include "cuda_highorder_internal.h"
extern "C" {
#include "../solver/highorder/ho_explicit.h"
}

#define HX_THREADS 256
#define HX_BLOCKS 1024 /* fixed grid of the vector kernels: the same sums on every run */
#define HX_SUMS 4
#define HX_ACC 6 /* W, D (summed over steps), U, T (last step), start, spare */

typedef struct hx_part {
  int device;
  dt_cuda_ho *h;          /* u is h->u, K u is h->v */
  double *dp, *f, *minv;  /* previous increment; load; inverse lumped mass, 0 on fixed DOFs */
  double *partial, *acc;  /* HX_BLOCKS x HX_SUMS; HX_ACC accumulators */
  int *watch;             /* local DOFs watched in this part */
  double *hist;           /* n_watch x chunk values of u */
  int n_watch, *watch_of; /* host: the caller's index of each watched DOF */
  size_t n, n_own;        /* local DOFs; owned DOFs (the owned nodes are a prefix) */
} hx_part;

typedef struct hx {
  int np, chunk;
  const dt_part_local *parts;
  hx_part *p;
  dt_cuda_halo *halo; /* NULL with one part */
} hx;

static double hx_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Sums each of the HX_SUMS values over the block in a fixed order: thread 0's t holds them. */
__device__ static void hx_block_sum(double t[HX_SUMS]) {
  __shared__ double s[HX_SUMS][HX_THREADS];
  for (int k = 0; k < HX_SUMS; k++) s[k][threadIdx.x] = t[k];
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      for (int k = 0; k < HX_SUMS; k++) s[k][threadIdx.x] += s[k][threadIdx.x + w];
    __syncthreads();
  }
  for (int k = 0; k < HX_SUMS; k++) t[k] = s[k][0];
}

/* The block's sums into partial[block * HX_SUMS + k]. */
__device__ static void hx_block_sums(double t[HX_SUMS], double *__restrict__ partial) {
  hx_block_sum(t);
  if (threadIdx.x == 0)
    for (int k = 0; k < HX_SUMS; k++) partial[blockIdx.x * HX_SUMS + k] = t[k];
}

/* Start-up (ho_explicit.h): a_0 = M^-1 (g f - K u_0), d_{-1} = -dt^2/2 a_0. Sums over owned
 * DOFs: d_{-1}.M d_{-1} (from M d_{-1} = -dt^2/2 r) and (u_0 - d_{-1}).K u_0. */
__global__ void k_hx_start(size_t n, size_t n_own, double g, double dt2,
                           const double *__restrict__ f, const double *__restrict__ Ku,
                           const double *__restrict__ minv, const double *__restrict__ u,
                           double *__restrict__ dp, double *__restrict__ partial) {
  double t[HX_SUMS] = {0.0, 0.0, 0.0, 0.0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    double r = minv[i] != 0.0 ? g * f[i] - Ku[i] : 0.0, d = -0.5 * dt2 * minv[i] * r;
    dp[i] = d;
    if (i < n_own) {
      t[0] += d * (-0.5 * dt2 * r);
      t[1] += (u[i] - d) * Ku[i];
    }
  }
  hx_block_sums(t, partial);
}

/* One step: r = g f - K u on free DOFs, d = (dt^2 M^-1 r + c1 d_prev) / c2, u += d. Sums over
 * owned DOFs: g f.(d + d_prev), (d + d_prev).M(d + d_prev), (u + d).K u, d.M d. */
__global__ void k_hx_step(size_t n, size_t n_own, double g, double dt2, double c1, double c2,
                          const double *__restrict__ f, const double *__restrict__ Ku,
                          const double *__restrict__ minv, double *__restrict__ u,
                          double *__restrict__ dp, double *__restrict__ partial) {
  double t[HX_SUMS] = {0.0, 0.0, 0.0, 0.0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    double mi = minv[i], gf = g * f[i], kui = Ku[i], ui = u[i], dpi = dp[i];
    double r = mi != 0.0 ? gf - kui : 0.0, d = (dt2 * mi * r + c1 * dpi) / c2;
    if (i < n_own) {
      double s = d + dpi, m = mi != 0.0 ? 1.0 / mi : 0.0;
      t[0] += (mi != 0.0 ? gf : 0.0) * s;
      t[1] += s * m * s;
      t[2] += (ui + d) * kui;
      t[3] += d * m * d;
    }
    u[i] = ui + d;
    dp[i] = d;
  }
  hx_block_sums(t, partial);
}

/* Adds the block partials in a fixed order into the accumulators: start (mode 0) or a step
 * (mode 1: W += w0 s0, D += w1 s1, U = w2 s2, T = w3 s3). */
__global__ void k_hx_reduce(const double *__restrict__ partial, int mode, double w0, double w1,
                            double w2, double w3, double *__restrict__ acc) {
  double t[HX_SUMS] = {0.0, 0.0, 0.0, 0.0};
  for (int b = threadIdx.x; b < HX_BLOCKS; b += blockDim.x)
    for (int k = 0; k < HX_SUMS; k++) t[k] += partial[b * HX_SUMS + k];
  hx_block_sum(t);
  if (threadIdx.x != 0) return;
  if (mode == 0) {
    acc[4] = w0 * t[0] + w1 * t[1];
  } else {
    acc[0] += w0 * t[0];
    acc[1] += w1 * t[1];
    acc[2] = w2 * t[2];
    acc[3] = w3 * t[3];
  }
}

/* Power iteration on M^-1 K: sums x.Kx, x.Mx, z.Mz with z = M^-1 K x over owned DOFs; x <- z. */
__global__ void k_hx_power(size_t n, size_t n_own, const double *__restrict__ Kx,
                           const double *__restrict__ minv, double *__restrict__ x,
                           double *__restrict__ partial) {
  double t[HX_SUMS] = {0.0, 0.0, 0.0, 0.0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    double mi = minv[i], xi = x[i], v = mi != 0.0 ? Kx[i] : 0.0;
    if (i < n_own && mi != 0.0) {
      t[0] += xi * v;
      t[1] += xi * xi / mi;
      t[2] += mi * v * v;
    }
    x[i] = mi * v;
  }
  hx_block_sums(t, partial);
}

__global__ void k_hx_scale(size_t n, double s, double *__restrict__ x) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

__global__ void k_hx_watch(int n_watch, const int *__restrict__ watch, const double *__restrict__ u,
                           double *__restrict__ hist, int chunk, int col) {
  int k = threadIdx.x;
  if (k < n_watch) hist[(size_t)k * chunk + col] = u[watch[k]];
}

static int hx_grid(size_t n) { return (int)((n + HX_THREADS - 1) / HX_THREADS); }

static dt_status hx_upload(double **dst, const double *src, size_t n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(cudaMalloc(dst, sizeof(double) * (n ? n : 1)), ctx);
  if (src)
    DT_CUDA_CHECK(dt_cuda_put(*dst, src, sizeof(double) * n), ctx);
  else
    DT_CUDA_CHECK(dt_cuda_put(*dst, NULL, sizeof(double) * (n ? n : 1)), ctx);
cleanup:
  return rc;
}

static void hx_destroy(hx *g) {
  if (!g->p) return;
  dt_cuda_halo_destroy(g->halo); /* before the streams it runs on */
  g->halo = NULL;
  for (int s = 0; s < g->np; s++) {
    hx_part *P = &g->p[s];
    cudaSetDevice(P->device);
    cudaFree(P->dp), cudaFree(P->f), cudaFree(P->minv), cudaFree(P->partial), cudaFree(P->acc);
    cudaFree(P->watch), cudaFree(P->hist);
    free(P->watch_of);
    dt_cuda_ho_destroy(P->h);
  }
  free(g->p);
  g->p = NULL;
}

/* v = K u on every part, summed over the parts on the ghosts. */
static dt_status hx_product(hx *g, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *v[DT_MULTI_MAX_GPUS];
  for (int s = 0; s < g->np; s++) {
    DT_CUDA_CHECK(cudaSetDevice(g->p[s].device), ctx);
    DT_TRY(dt_cuda_ho_apply_device(g->p[s].h, ctx));
    v[s] = g->p[s].h->v;
  }
  if (g->halo)
    DT_TRY(dt_halo_exchange(g->parts, g->np, v, 3, DT_HALO_SUM, dt_cuda_halo_ops(g->halo), g->halo,
                            ctx));
cleanup:
  return rc;
}

/* Sums over the parts of the first `k` block-partial sums (after each part's kernel). */
static dt_status hx_sum_partials(hx *g, int k, double *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double part[HX_BLOCKS * HX_SUMS];
  for (int j = 0; j < k; j++) out[j] = 0.0;
  for (int s = 0; s < g->np; s++) {
    hx_part *P = &g->p[s];
    DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
    DT_CUDA_CHECK(
        cudaMemcpyAsync(part, P->partial, sizeof part, cudaMemcpyDeviceToHost, P->h->stream), ctx);
    DT_CUDA_CHECK(cudaStreamSynchronize(P->h->stream), ctx);
    for (int b = 0; b < HX_BLOCKS; b++)
      for (int j = 0; j < k; j++) out[j] += part[b * HX_SUMS + j];
  }
cleanup:
  return rc;
}

/* Sum over the parts of the accumulators. */
static dt_status hx_sum_acc(hx *g, double acc[HX_ACC], dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double a[HX_ACC];
  memset(acc, 0, sizeof(double) * HX_ACC);
  for (int s = 0; s < g->np; s++) {
    hx_part *P = &g->p[s];
    DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
    DT_CUDA_CHECK(cudaMemcpyAsync(a, P->acc, sizeof a, cudaMemcpyDeviceToHost, P->h->stream), ctx);
    DT_CUDA_CHECK(cudaStreamSynchronize(P->h->stream), ctx);
    for (int j = 0; j < HX_ACC; j++) acc[j] += a[j];
  }
cleanup:
  return rc;
}

/* omega_max^2 of M^-1 K on the free DOFs by `its` power iterations from a start that depends
 * on the global DOF only (the same on every partition), left in h->u (overwritten later). */
static dt_status hx_omega_max(hx *g, const dt_multi_explicit_input *in, int its, double *omega,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double lmax = 0.0, sums[3];
  double *x = NULL;
  for (int s = 0; s < g->np; s++) {
    hx_part *P = &g->p[s];
    const dt_part_local *l = &in->parts[s];
    x = (double *)realloc(x, sizeof(double) * (P->n ? P->n : 1));
    DT_CHECK(x != NULL, ctx, DT_ERR_NOMEM, "out of memory for the power iteration's start");
    for (size_t i = 0; i < P->n; i++) {
      unsigned long long z = 3ull * (unsigned long long)l->node_global[i / 3] + i % 3 + 1;
      z ^= z >> 33, z *= 0xff51afd7ed558ccdull, z ^= z >> 33, z *= 0xc4ceb9fe1a85ec53ull;
      z ^= z >> 33;
      x[i] = in->fre[s][i] != 0.0 ? (double)(z >> 11) / 9007199254740992.0 - 0.5 : 0.0;
    }
    DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
    DT_CUDA_CHECK(dt_cuda_put_on(P->h->stream, P->h->u, x, sizeof(double) * P->n), ctx);
  }
  for (int it = 0; it < its; it++) {
    DT_TRY(hx_product(g, ctx));
    for (int s = 0; s < g->np; s++) {
      hx_part *P = &g->p[s];
      DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
      k_hx_power<<<HX_BLOCKS, HX_THREADS, 0, P->h->stream>>>(P->n, P->n_own, P->h->v, P->minv,
                                                             P->h->u, P->partial);
      DT_CUDA_LAUNCH_CHECK("k_hx_power", P->h->stream, ctx);
    }
    DT_TRY(hx_sum_partials(g, 3, sums, ctx));
    DT_CHECK(sums[1] > 0.0 && sums[2] > 0.0 && isfinite(sums[2]), ctx, DT_ERR_INTERNAL,
             "power iteration for the stable time step lost its vector (x.Mx = %g, z.Mz = %g)",
             sums[1], sums[2]);
    if (sums[0] / sums[1] > lmax) lmax = sums[0] / sums[1];
    for (int s = 0; s < g->np; s++) {
      hx_part *P = &g->p[s];
      DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
      k_hx_scale<<<hx_grid(P->n), HX_THREADS, 0, P->h->stream>>>(P->n, 1.0 / sqrt(sums[2]),
                                                                 P->h->u);
      DT_CUDA_LAUNCH_CHECK("k_hx_scale", P->h->stream, ctx);
    }
  }
  *omega = sqrt(lmax);
cleanup:
  free(x);
  return rc;
}

static dt_status hx_setup(hx *g, const dt_multi_explicit_input *in, double *const *u,
                          dt_multi_explicit_info *info, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *minv = NULL;
  int *w = NULL, devs[DT_MULTI_MAX_GPUS];
  for (int s = 0; s < g->np; s++) {
    const dt_part_local *l = &in->parts[s];
    DT_CHECK(l->part == s && l->n_elems > 0, ctx, DT_ERR_INPUT,
             "part %d of %d has no elements (or is out of order): every part needs elements", s,
             g->np);
    devs[s] = in->devices[s];
  }
  for (int k = 0; k < in->n_watch; k++)
    DT_CHECK(in->watch_part[k] >= 0 && in->watch_part[k] < g->np && in->watch_dof[k] >= 0 &&
                 in->watch_dof[k] < 3 * in->parts[in->watch_part[k]].n_nodes,
             ctx, DT_ERR_INPUT, "watched DOF %d (part %d, local DOF %d) is not in its part", k,
             in->watch_part[k], in->watch_dof[k]);
  for (int s = 0; s < g->np; s++) {
    hx_part *P = &g->p[s];
    const dt_part_local *l = &in->parts[s];
    P->device = devs[s];
    P->n = 3 * (size_t)l->n_nodes;
    P->n_own = 3 * (size_t)l->n_owned;
    DT_TRY(dt_cuda_ho_create(in->ops[s], devs[s], &P->h, ctx));
    minv = (double *)realloc(minv, sizeof(double) * (P->n ? P->n : 1));
    DT_CHECK(minv != NULL, ctx, DT_ERR_NOMEM, "out of memory for the inverse mass");
    for (size_t i = 0; i < P->n; i++) {
      double m = in->mass[s][i / 3];
      DT_CHECK(m > 0.0 && isfinite(m), ctx, DT_ERR_INPUT,
               "explicit dynamics: lumped mass of node %d is %g, not positive",
               l->node_global[i / 3], m);
      minv[i] = in->fre[s][i] != 0.0 ? 1.0 / m : 0.0;
    }
    DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
    DT_TRY(hx_upload(&P->minv, minv, P->n, ctx));
    DT_TRY(hx_upload(&P->f, in->f[s], P->n, ctx));
    DT_TRY(hx_upload(&P->dp, NULL, P->n, ctx));
    DT_TRY(hx_upload(&P->partial, NULL, HX_BLOCKS * HX_SUMS, ctx));
    DT_TRY(hx_upload(&P->acc, NULL, HX_ACC, ctx));
    DT_CUDA_CHECK(dt_cuda_put_on(P->h->stream, P->h->u, u[s], sizeof(double) * P->n), ctx);
    for (int k = 0; k < in->n_watch; k++) P->n_watch += in->watch_part[k] == s;
    if (P->n_watch) {
      int j = 0;
      w = (int *)realloc(w, sizeof(int) * P->n_watch);
      P->watch_of = (int *)malloc(sizeof(int) * P->n_watch);
      DT_CHECK(w && P->watch_of, ctx, DT_ERR_NOMEM, "out of memory for the watched DOFs");
      for (int k = 0; k < in->n_watch; k++)
        if (in->watch_part[k] == s) w[j] = in->watch_dof[k], P->watch_of[j++] = k;
      DT_CUDA_CHECK(cudaMalloc(&P->watch, sizeof(int) * P->n_watch), ctx);
      DT_CUDA_CHECK(dt_cuda_put(P->watch, w, sizeof(int) * P->n_watch), ctx);
      DT_TRY(hx_upload(&P->hist, NULL, (size_t)P->n_watch * g->chunk, ctx));
    }
    for (int k = 0; k < l->n_peers; k++)
      info->halo_values +=
          (size_t)(l->send_ptr[k + 1] - l->send_ptr[k] + l->recv_ptr[k + 1] - l->recv_ptr[k]) * 3;
  }
  if (g->np > 1) {
    dt_cuda_halo_slot slots[DT_MULTI_MAX_GPUS];
    dt_cuda_halo_kind kind;
    for (int s = 0; s < g->np; s++) {
      slots[s].device = devs[s];
      slots[s].stream = g->p[s].h->stream;
      slots[s].part = &in->parts[s];
    }
    DT_TRY(dt_cuda_halo_choose(devs, g->np, &kind, ctx));
    DT_TRY(dt_cuda_halo_create(slots, g->np, 3, kind, &g->halo, ctx));
    snprintf(info->transport, sizeof info->transport, "%s", dt_cuda_halo_kind_name(kind));
  } else {
    snprintf(info->transport, sizeof info->transport, "none");
  }
  for (int s = 0; s < g->np; s++) {
    size_t fr = 0, tot = 0;
    DT_CUDA_CHECK(cudaSetDevice(g->p[s].device), ctx);
    DT_CUDA_CHECK(cudaDeviceSynchronize(), ctx);
    DT_CUDA_CHECK(cudaMemGetInfo(&fr, &tot), ctx);
    info->gpu_bytes[s] = (double)(tot - fr);
  }
cleanup:
  free(minv);
  free(w);
  return rc;
}

/* Copies the watched history of steps first .. first + count - 1 and calls the monitor for
 * each; the last one carries the energies when `acc` is given. */
static dt_status hx_sample(hx *g, const dt_multi_explicit_input *in, int first, int count,
                           double dt, const double *acc, double *watch_host, double *vals,
                           dt_multi_explicit_monitor mon, void *user, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int s = 0; s < g->np; s++) {
    hx_part *P = &g->p[s];
    if (!P->n_watch) continue;
    DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
    DT_CUDA_CHECK(cudaMemcpyAsync(watch_host, P->hist, sizeof(double) * P->n_watch * g->chunk,
                                  cudaMemcpyDeviceToHost, P->h->stream),
                  ctx);
    DT_CUDA_CHECK(cudaStreamSynchronize(P->h->stream), ctx);
    for (int j = 0; j < P->n_watch; j++)
      for (int c = 0; c < count; c++)
        vals[(size_t)c * in->n_watch + P->watch_of[j]] = watch_host[(size_t)j * g->chunk + c];
  }
  for (int c = 0; c < count; c++) {
    dt_multi_explicit_sample smp;
    memset(&smp, 0, sizeof smp);
    smp.step = first + c;
    smp.t = smp.step * dt;
    smp.dt = dt;
    smp.watch = vals + (size_t)c * in->n_watch;
    if (acc && c == count - 1) {
      smp.has_energy = 1;
      smp.external = acc[0], smp.damping = acc[1], smp.internal = acc[2], smp.kinetic = acc[3];
      smp.start = acc[4];
    }
    if (mon) DT_TRY(mon(&smp, user, ctx));
  }
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_multi_explicit(const dt_multi_explicit_input *in,
                                            const dt_ho_explicit_opts *o, double *const *u,
                                            dt_multi_explicit_monitor mon, void *user,
                                            dt_ho_explicit_result *res,
                                            dt_multi_explicit_info *info, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  hx g;
  dt_ho_explicit_result out;
  dt_multi_explicit_info inf;
  double *watch_host = NULL, *vals = NULL, acc[HX_ACC];
  double t0 = hx_now(), dt = 0.0, dt2, c1, c2;
  int its, steps, done = 0;
  memset(&g, 0, sizeof g);
  memset(&out, 0, sizeof out);
  memset(&inf, 0, sizeof inf);
  g.np = in->nparts;
  g.parts = in->parts;
  DT_CHECK(g.np >= 1 && g.np <= DT_MULTI_MAX_GPUS, ctx, DT_ERR_INPUT,
           "%d parts asked for; 1 to %d are supported", g.np, DT_MULTI_MAX_GPUS);
  DT_CHECK(in->n_watch >= 0 && in->n_watch <= HX_THREADS, ctx, DT_ERR_INPUT,
           "%d watched DOFs; at most %d", in->n_watch, HX_THREADS);
  DT_TRY(dt_ho_explicit_check_opts(o, ctx));
  /* the watched history is kept for out_every steps (the sampling interval), at most 4096 */
  g.chunk = o->out_every > 0 && o->out_every < 4096 ? o->out_every : 4096;
  g.p = (hx_part *)calloc((size_t)g.np, sizeof(hx_part));
  watch_host = (double *)malloc(sizeof(double) * ((size_t)g.chunk * in->n_watch + 1));
  vals = (double *)malloc(sizeof(double) * ((size_t)g.chunk * in->n_watch + 1));
  DT_CHECK(g.p && watch_host && vals, ctx, DT_ERR_NOMEM,
           "out of memory allocating the explicit solver");
  DT_TRY(hx_setup(&g, in, u, &inf, ctx));
  its = o->power_its > 0 ? o->power_its : 40;
  DT_TRY(hx_omega_max(&g, in, its, &out.omega_max, ctx));
  DT_TRY(dt_ho_explicit_pick_dt(o, out.omega_max, its, &dt, ctx));
  dt2 = dt * dt;
  c1 = 1.0 - 0.5 * o->alpha * dt;
  c2 = 1.0 + 0.5 * o->alpha * dt;
  out.dt = dt;
  steps = dt_ho_explicit_steps(o, dt);
  /* the power iteration used h->u: the start state again */
  for (int s = 0; s < g.np; s++) {
    DT_CUDA_CHECK(cudaSetDevice(g.p[s].device), ctx);
    DT_CUDA_CHECK(dt_cuda_put_on(g.p[s].h->stream, g.p[s].h->u, u[s], sizeof(double) * g.p[s].n),
                  ctx);
  }
  inf.seconds_setup = hx_now() - t0;
  t0 = hx_now();
  {
    double g0 = in->amplitude ? in->amplitude(0.0, in->amplitude_user) : 1.0;
    DT_TRY(hx_product(&g, ctx));
    for (int s = 0; s < g.np; s++) {
      hx_part *P = &g.p[s];
      DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
      k_hx_start<<<HX_BLOCKS, HX_THREADS, 0, P->h->stream>>>(P->n, P->n_own, g0, dt2, P->f, P->h->v,
                                                             P->minv, P->h->u, P->dp, P->partial);
      k_hx_reduce<<<1, HX_THREADS, 0, P->h->stream>>>(P->partial, 0, 0.5 / dt2, 0.5, 0.0, 0.0,
                                                      P->acc);
      DT_CUDA_LAUNCH_CHECK("k_hx_start", P->h->stream, ctx);
    }
    DT_TRY(hx_sum_acc(&g, acc, ctx));
    out.start = acc[4];
    if (mon) {
      dt_multi_explicit_sample smp;
      memset(&smp, 0, sizeof smp);
      smp.dt = dt;
      smp.watch = vals;
      for (int k = 0; k < in->n_watch; k++) vals[k] = u[in->watch_part[k]][in->watch_dof[k]];
      smp.has_energy = 1;
      smp.start = out.start;
      DT_TRY(mon(&smp, user, ctx));
    }
  }
  for (int step = 0; step < steps; step++) {
    double t = step * dt, gn = in->amplitude ? in->amplitude(t, in->amplitude_user) : 1.0;
    int col = step - done;
    if (step > 0) DT_TRY(hx_product(&g, ctx));
    for (int s = 0; s < g.np; s++) {
      hx_part *P = &g.p[s];
      DT_CUDA_CHECK(cudaSetDevice(P->device), ctx);
      k_hx_step<<<HX_BLOCKS, HX_THREADS, 0, P->h->stream>>>(
          P->n, P->n_own, gn, dt2, c1, c2, P->f, P->h->v, P->minv, P->h->u, P->dp, P->partial);
      k_hx_reduce<<<1, HX_THREADS, 0, P->h->stream>>>(P->partial, 1, 0.5, o->alpha / (4.0 * dt),
                                                      0.5, 0.5 / dt2, P->acc);
      if (P->n_watch)
        k_hx_watch<<<1, HX_THREADS, 0, P->h->stream>>>(P->n_watch, P->watch, P->h->u, P->hist,
                                                       g.chunk, col);
      DT_CUDA_LAUNCH_CHECK("k_hx_step", P->h->stream, ctx);
    }
    out.steps = step + 1;
    if (col + 1 == g.chunk || out.steps == steps) {
      double have, want, scale;
      DT_TRY(hx_sum_acc(&g, acc, ctx));
      out.external = acc[0], out.damping = acc[1], out.internal = acc[2], out.kinetic = acc[3];
      have = out.kinetic + out.internal + out.damping;
      want = out.external + out.start;
      DT_CHECK(isfinite(have) && isfinite(want), ctx, DT_ERR_NOT_CONVERGED,
               "explicit dynamics: energies are no longer finite by step %d (t = %g, dt = %g): "
               "the integration is unstable",
               out.steps, out.steps * dt, dt);
      scale = fmax(fabs(out.external), fmax(fabs(out.kinetic + out.internal), fabs(out.start)));
      if (scale > 0.0) out.balance = fmax(out.balance, fabs(have - want) / scale);
      DT_TRY(hx_sample(&g, in, done + 1, col + 1, dt, acc, watch_host, vals, mon, user, ctx));
      done = out.steps;
    }
  }
  out.seconds = hx_now() - t0;
  for (int s = 0; s < g.np; s++) {
    DT_CUDA_CHECK(cudaSetDevice(g.p[s].device), ctx);
    DT_CUDA_CHECK(cudaStreamSynchronize(g.p[s].h->stream), ctx);
    DT_CUDA_CHECK(cudaMemcpy(u[s], g.p[s].h->u, sizeof(double) * g.p[s].n, cudaMemcpyDeviceToHost),
                  ctx);
  }
cleanup:
  hx_destroy(&g);
  free(watch_host);
  free(vals);
  if (res) *res = out;
  if (info) *info = inf;
  return rc;
}
