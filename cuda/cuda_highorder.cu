/* The matrix-free elasticity operator of order-P hexahedra (solver/highorder/ho_elastic.h) on
 * the GPU, by sum factorisation.
 *
 * A thread block takes NE elements of one colour and keeps everything of them in shared memory:
 * the 1D tables, the gathered displacements, the nine reference gradients at the points and
 * the contraction buffers. Every step is a flat loop of the block's threads over (element,
 * output entry), each entry a short dot product along one direction:
 *   forward, per component: u -> (B, G along x) -> (BB, BG, GB along y) -> three gradients
 *   (along z), 2 + 3 + 3 contractions;
 *   at the points: H = grad u, sigma = lambda tr(H) I + mu (H + H^T), flux w det J sigma J^-T
 *   (qdata read once, coalesced: it is contiguous in the point index);
 *   backward, the transposes: 3 along z, 2 along y (two fluxes share a table along x), 1 along
 *   x with two tables.
 * The scatter needs no atomics: the elements of one colour share no node, colours run one
 * launch after another in a fixed order, so repeated products give the same bits (what the
 * CPU apply also guarantees). Global traffic per element: qdata (10 nq^3 doubles, the floor's
 * largest term), its node ids, u gathered and v read and written. */
#include <math.h>
#include <string.h>

#include "cuda_highorder_internal.h"

#define HO_THREADS 256
#define HO_SHARED_TARGET (48 * 1024) /* bytes of shared memory a block aims at */

typedef struct ho_args {
  int P1, Q, ne, n_el;
  const int *elems, *elem_nodes;
  const double *qdata, *lambda, *mu, *tables, *u;
  double *v;
} ho_args;

/* Doubles of shared memory one element needs: u (later v), 9 gradients (later fluxes), and per
 * component two buffers of Q P1^2 and three of Q^2 P1. */
__host__ __device__ static inline int ho_elem_doubles(int P1, int Q) {
  return 3 * P1 * P1 * P1 + 9 * Q * Q * Q + 6 * Q * P1 * P1 + 9 * Q * Q * P1;
}

/* Each loop below runs flat over (element, component, output entry) of the block: the three
 * components and all outputs that read the same input column go together, so one index
 * decomposition and one read of the input serve two or three sums, and a product takes seven
 * barriers. Tables: B[q P1 + a] = L_a(xi_q), G likewise; forward sums run over the nodes a of
 * one direction, transposed ones over the points q. */
__global__ void __launch_bounds__(HO_THREADS) k_ho_apply(ho_args a) {
  extern __shared__ double sm[];
  const int P1 = a.P1, Q = a.Q, n3 = P1 * P1 * P1, nq3 = Q * Q * Q, Q2 = Q * Q;
  const int tq = Q * P1 * P1, uq = Q * Q * P1; /* sizes of the T and U buffers */
  const int es = ho_elem_doubles(P1, Q);
  const int first = blockIdx.x * a.ne, ne = min(a.ne, a.n_el - first);
  double *B = sm, *G = sm + Q * P1, *el = sm + 2 * Q * P1;
  /* per element, at el + e es: ue[3][n3] | g[9][nq3] | T0[3][tq] T1[3][tq] | U0 U1 U2 [3][uq] */
  const int o_g = 3 * n3, o_t0 = o_g + 9 * nq3, o_t1 = o_t0 + 3 * tq, o_u0 = o_t1 + 3 * tq,
            o_u1 = o_u0 + 3 * uq, o_u2 = o_u1 + 3 * uq;
  for (int t = threadIdx.x; t < 2 * Q * P1; t += blockDim.x) sm[t] = a.tables[t];
  for (int t = threadIdx.x; t < ne * n3; t += blockDim.x) {
    int e = t / n3, k = t - e * n3;
    int node = a.elem_nodes[(size_t)a.elems[first + e] * n3 + k];
    for (int c = 0; c < 3; c++) el[(size_t)e * es + c * n3 + k] = a.u[3 * (size_t)node + c];
  }
  __syncthreads();
  /* along x: T0 = B u, T1 = G u (entries [P1^2 yz][Q x]) */
  for (int t = threadIdx.x; t < ne * 3 * tq; t += blockDim.x) {
    int ec = t / tq, r = t - ec * tq, e = ec / 3, c = ec - 3 * e, i = r % Q, po = r / Q;
    double *E = el + (size_t)e * es;
    const double *x = E + c * n3 + po * P1, *mb = B + i * P1, *mg = G + i * P1;
    double sb = 0.0, sg = 0.0;
    for (int j = 0; j < P1; j++) sb += mb[j] * x[j], sg += mg[j] * x[j];
    E[o_t0 + c * tq + r] = sb;
    E[o_t1 + c * tq + r] = sg;
  }
  __syncthreads();
  /* along y: U0 = B T0, U1 = G T0, U2 = B T1 (entries [P1 z][Q y][Q x]) */
  for (int t = threadIdx.x; t < ne * 3 * uq; t += blockDim.x) {
    int ec = t / uq, r = t - ec * uq, e = ec / 3, c = ec - 3 * e;
    int pr = r % Q, i = (r / Q) % Q, po = r / Q2;
    double *E = el + (size_t)e * es;
    const double *x0 = E + o_t0 + c * tq + po * P1 * Q + pr, *x1 = x0 + 3 * tq;
    const double *mb = B + i * P1, *mg = G + i * P1;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int j = 0; j < P1; j++) {
      double v0 = x0[j * Q], v1 = x1[j * Q];
      s0 += mb[j] * v0, s1 += mg[j] * v0, s2 += mb[j] * v1;
    }
    E[o_u0 + c * uq + r] = s0;
    E[o_u1 + c * uq + r] = s1;
    E[o_u2 + c * uq + r] = s2;
  }
  __syncthreads();
  /* along z: du/dxi = B U2, du/deta = B U1, du/dzeta = G U0 (entries [Q z][Q^2]) */
  for (int t = threadIdx.x; t < ne * 3 * nq3; t += blockDim.x) {
    int ec = t / nq3, r = t - ec * nq3, e = ec / 3, c = ec - 3 * e, pr = r % Q2, i = r / Q2;
    double *E = el + (size_t)e * es;
    const double *x0 = E + o_u0 + c * uq + pr, *x1 = x0 + 3 * uq, *x2 = x1 + 3 * uq;
    const double *mb = B + i * P1, *mg = G + i * P1;
    double gx = 0.0, gy = 0.0, gz = 0.0;
    for (int j = 0; j < P1; j++)
      gx += mb[j] * x2[j * Q2], gy += mb[j] * x1[j * Q2], gz += mg[j] * x0[j * Q2];
    E[o_g + (3 * c) * nq3 + r] = gx;
    E[o_g + (3 * c + 1) * nq3 + r] = gy;
    E[o_g + (3 * c + 2) * nq3 + r] = gz;
  }
  __syncthreads();
  /* at the points: gradients in, fluxes f[3c + i] = w det J sum_j sigma_cj dxi_i/dx_j out */
  for (int t = threadIdx.x; t < ne * nq3; t += blockDim.x) {
    int e = t / nq3, q = t - e * nq3, elem = a.elems[first + e];
    const double *qd = a.qdata + (size_t)elem * DT_HO_QDATA_SIZE * nq3 + q;
    double *gq = el + (size_t)e * es + o_g + q;
    double X[9], H[9], S[9], lam = a.lambda[elem], mu = a.mu[elem], wdet = qd[0];
    for (int k = 0; k < 9; k++) X[k] = qd[(1 + k) * nq3];
    for (int cc = 0; cc < 3; cc++)
      for (int j = 0; j < 3; j++)
        H[3 * cc + j] = gq[(3 * cc) * nq3] * X[j] + gq[(3 * cc + 1) * nq3] * X[3 + j] +
                        gq[(3 * cc + 2) * nq3] * X[6 + j];
    double tr = H[0] + H[4] + H[8];
    for (int cc = 0; cc < 3; cc++)
      for (int j = 0; j < 3; j++)
        S[3 * cc + j] = mu * (H[3 * cc + j] + H[3 * j + cc]) + (cc == j ? lam * tr : 0.0);
    for (int cc = 0; cc < 3; cc++)
      for (int i = 0; i < 3; i++)
        gq[(3 * cc + i) * nq3] = wdet * (S[3 * cc] * X[3 * i] + S[3 * cc + 1] * X[3 * i + 1] +
                                         S[3 * cc + 2] * X[3 * i + 2]);
  }
  __syncthreads();
  /* transposed along z: U0 = B^T fx, U1 = B^T fy, U2 = G^T fz (entries [P1 z][Q^2]) */
  for (int t = threadIdx.x; t < ne * 3 * uq; t += blockDim.x) {
    int ec = t / uq, r = t - ec * uq, e = ec / 3, c = ec - 3 * e, pr = r % Q2, i = r / Q2;
    double *E = el + (size_t)e * es;
    const double *fx = E + o_g + (3 * c) * nq3 + pr, *fy = fx + nq3, *fz = fy + nq3;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int j = 0; j < Q; j++) {
      double b = B[j * P1 + i];
      s0 += b * fx[j * Q2], s1 += b * fy[j * Q2], s2 += G[j * P1 + i] * fz[j * Q2];
    }
    E[o_u0 + c * uq + r] = s0;
    E[o_u1 + c * uq + r] = s1;
    E[o_u2 + c * uq + r] = s2;
  }
  __syncthreads();
  /* transposed along y: T0 = B^T U0, T1 = G^T U1 + B^T U2 (entries [P1 z][P1 y][Q x]) */
  for (int t = threadIdx.x; t < ne * 3 * tq; t += blockDim.x) {
    int ec = t / tq, r = t - ec * tq, e = ec / 3, c = ec - 3 * e;
    int pr = r % Q, i = (r / Q) % P1, po = r / (Q * P1);
    double *E = el + (size_t)e * es;
    const double *x0 = E + o_u0 + c * uq + po * Q2 + pr, *x1 = x0 + 3 * uq, *x2 = x1 + 3 * uq;
    double s0 = 0.0, s1 = 0.0;
    for (int j = 0; j < Q; j++) {
      double b = B[j * P1 + i];
      s0 += b * x0[j * Q], s1 += G[j * P1 + i] * x1[j * Q] + b * x2[j * Q];
    }
    E[o_t0 + c * tq + r] = s0;
    E[o_t1 + c * tq + r] = s1;
  }
  __syncthreads();
  /* transposed along x: v = G^T T0 + B^T T1 (entries [P1^2 yz][P1 x]), over u */
  for (int t = threadIdx.x; t < ne * 3 * n3; t += blockDim.x) {
    int ec = t / n3, r = t - ec * n3, e = ec / 3, c = ec - 3 * e, i = r % P1, po = r / P1;
    double *E = el + (size_t)e * es;
    const double *x0 = E + o_t0 + c * tq + po * Q, *x1 = x0 + 3 * tq;
    double s = 0.0;
    for (int j = 0; j < Q; j++) s += G[j * P1 + i] * x0[j] + B[j * P1 + i] * x1[j];
    E[c * n3 + r] = s;
  }
  __syncthreads();
  /* scatter: no other element of this colour touches these nodes */
  for (int t = threadIdx.x; t < ne * n3; t += blockDim.x) {
    int e = t / n3, k = t - e * n3;
    int node = a.elem_nodes[(size_t)a.elems[first + e] * n3 + k];
    for (int c = 0; c < 3; c++) a.v[3 * (size_t)node + c] += el[(size_t)e * es + c * n3 + k];
  }
}

static dt_status ho_alloc(dt_cuda_ho *h, void **p, size_t bytes, const char *what, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 8);
  if (e != cudaSuccess) {
    *p = NULL;
    (void)cudaGetLastError();
    rc = DT_ERROR(ctx, e == cudaErrorMemoryAllocation ? DT_ERR_DEVICE_NOMEM : DT_ERR_CUDA,
                  "cudaMalloc of %zu bytes for %s failed: %s", bytes, what, cudaGetErrorString(e));
  }
  h->bytes += bytes;
  return rc;
}

static dt_status ho_upload(dt_cuda_ho *h, void **p, const void *src, size_t bytes, const char *what,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(ho_alloc(h, p, bytes, what, ctx));
  DT_CUDA_CHECK(cudaMemcpy(*p, src, bytes, cudaMemcpyHostToDevice), ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_create(const dt_ho_elastic *op, int device, dt_cuda_ho **out,
                                       dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_ho *h = NULL;
  size_t free_b = 0, total_b = 0, need;
  int P1 = op->order + 1, Q = op->nq, n3 = P1 * P1 * P1, nq3 = Q * Q * Q, max_shared = 0;
  double tables[2 * DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES];
  *out = NULL;
  h = (dt_cuda_ho *)dt_calloc(1, sizeof *h);
  DT_CHECK(h != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating the high-order operator");
  h->device = device;
  h->P1 = P1;
  h->Q = Q;
  h->n_elems = op->n_elems;
  h->n_nodes = op->n_nodes;
  h->n_colors = op->n_colors;
  DT_CUDA_CHECK(cudaSetDevice(device), ctx);
  DT_CUDA_CHECK(
      cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), ctx);
  {
    size_t el = sizeof(double) * (size_t)ho_elem_doubles(P1, Q),
           tab = sizeof(double) * 2 * (size_t)Q * P1;
    h->ne = (int)((HO_SHARED_TARGET - tab) / el);
    if (h->ne < 1) h->ne = 1;
    if (h->ne > 32) h->ne = 32;
    h->shared_bytes = tab + el * (size_t)h->ne;
    DT_CHECK(h->shared_bytes <= (size_t)max_shared, ctx, DT_ERR_UNSUPPORTED,
             "order %d with %d points per direction needs %zu bytes of shared memory per "
             "element, more than the device's %d",
             op->order, Q, h->shared_bytes, max_shared);
  }
  need = sizeof(double) * (size_t)op->n_elems * (DT_HO_QDATA_SIZE * (size_t)nq3 + 2) +
         sizeof(int) * (size_t)op->n_elems * (n3 + 1) + sizeof(double) * 6 * (size_t)op->n_nodes;
  DT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b), ctx);
  DT_CHECK(need + (free_b / 20) <= free_b, ctx, DT_ERR_DEVICE_NOMEM,
           "the order-%d operator needs %.2f GB of GPU memory (%d elements, %d nodes) but %.2f GB "
           "are free",
           op->order, need / 1e9, op->n_elems, op->n_nodes, free_b / 1e9);
  DT_CUDA_CHECK(cudaStreamCreateWithFlags(&h->stream, cudaStreamNonBlocking), ctx);
  for (int i = 0; i < Q * P1; i++) tables[i] = op->B[i], tables[Q * P1 + i] = op->G[i];
  h->h_color_ptr = (int *)dt_calloc((size_t)op->n_colors + 1, sizeof(int));
  DT_CHECK(h->h_color_ptr != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating colour offsets");
  memcpy(h->h_color_ptr, op->color_ptr, sizeof(int) * ((size_t)op->n_colors + 1));
  DT_TRY(ho_upload(h, (void **)&h->tables, tables, sizeof(double) * 2 * Q * P1, "tables", ctx));
  DT_TRY(ho_upload(h, (void **)&h->color_elems, op->color_elems, sizeof(int) * op->n_elems,
                   "elements by colour", ctx));
  DT_TRY(ho_upload(h, (void **)&h->elem_nodes, op->elem_nodes,
                   sizeof(int) * (size_t)op->n_elems * n3, "element nodes", ctx));
  DT_TRY(ho_upload(h, (void **)&h->qdata, op->qdata,
                   sizeof(double) * (size_t)op->n_elems * DT_HO_QDATA_SIZE * nq3,
                   "geometric factors", ctx));
  DT_TRY(
      ho_upload(h, (void **)&h->lambda, op->lambda, sizeof(double) * op->n_elems, "lambda", ctx));
  DT_TRY(ho_upload(h, (void **)&h->mu, op->mu, sizeof(double) * op->n_elems, "mu", ctx));
  DT_TRY(ho_alloc(h, (void **)&h->u, sizeof(double) * 3 * (size_t)op->n_nodes, "u", ctx));
  DT_TRY(ho_alloc(h, (void **)&h->v, sizeof(double) * 3 * (size_t)op->n_nodes, "v", ctx));
  DT_CUDA_CHECK(cudaFuncSetAttribute(k_ho_apply, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)h->shared_bytes),
                ctx);
  *out = h;
  h = NULL;
cleanup:
  if (h) dt_cuda_ho_destroy(h);
  return rc;
}

void dt_cuda_ho_destroy(dt_cuda_ho *h) {
  if (!h) return;
  cudaFree(h->color_elems);
  cudaFree(h->elem_nodes);
  cudaFree(h->qdata);
  cudaFree(h->lambda);
  cudaFree(h->mu);
  cudaFree(h->tables);
  cudaFree(h->u);
  cudaFree(h->v);
  if (h->stream) cudaStreamDestroy(h->stream);
  dt_free(h->h_color_ptr);
  dt_free(h);
}

dt_status dt_cuda_ho_apply_device(dt_cuda_ho *h, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(cudaMemsetAsync(h->v, 0, sizeof(double) * 3 * (size_t)h->n_nodes, h->stream), ctx);
  for (int k = 0; k < h->n_colors; k++) {
    int lo = h->h_color_ptr[k], n = h->h_color_ptr[k + 1] - lo;
    if (n == 0) continue;
    ho_args a = {h->P1,         h->Q,     h->ne,     n,     h->color_elems + lo,
                 h->elem_nodes, h->qdata, h->lambda, h->mu, h->tables,
                 h->u,          h->v};
    k_ho_apply<<<(n + h->ne - 1) / h->ne, HO_THREADS, h->shared_bytes, h->stream>>>(a);
    DT_CUDA_LAUNCH_CHECK("k_ho_apply", h->stream, ctx);
  }
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_apply(dt_cuda_ho *h, const double *u, double *v, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t bytes = sizeof(double) * 3 * (size_t)h->n_nodes;
  DT_CUDA_CHECK(cudaSetDevice(h->device), ctx);
  DT_CUDA_CHECK(cudaMemcpyAsync(h->u, u, bytes, cudaMemcpyHostToDevice, h->stream), ctx);
  DT_TRY(dt_cuda_ho_apply_device(h, ctx));
  DT_CUDA_CHECK(cudaMemcpyAsync(v, h->v, bytes, cudaMemcpyDeviceToHost, h->stream), ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(h->stream), ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_time(dt_cuda_ho *h, int reps, double *seconds, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaEvent_t t0 = NULL, t1 = NULL;
  float ms = 0.0f;
  DT_CUDA_CHECK(cudaSetDevice(h->device), ctx);
  DT_CUDA_CHECK(cudaEventCreate(&t0), ctx);
  DT_CUDA_CHECK(cudaEventCreate(&t1), ctx);
  DT_TRY(dt_cuda_ho_apply_device(h, ctx)); /* warm-up */
  DT_CUDA_CHECK(cudaEventRecord(t0, h->stream), ctx);
  for (int r = 0; r < reps; r++) DT_TRY(dt_cuda_ho_apply_device(h, ctx));
  DT_CUDA_CHECK(cudaEventRecord(t1, h->stream), ctx);
  DT_CUDA_CHECK(cudaEventSynchronize(t1), ctx);
  DT_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1), ctx);
  *seconds = ms * 1e-3 / (reps > 0 ? reps : 1);
cleanup:
  if (t0) cudaEventDestroy(t0);
  if (t1) cudaEventDestroy(t1);
  return rc;
}

extern "C" void dt_cuda_ho_describe(const dt_cuda_ho *h, char *buf, size_t len) {
  snprintf(buf, len,
           "%d elements per block of %d threads, %zu bytes of shared memory per block, %d "
           "colours, %.1f MB on the device",
           h->ne, HO_THREADS, h->shared_bytes, h->n_colors, h->bytes / 1e6);
}

extern "C" dt_status dt_cuda_ho_copy_bandwidth(dt_cuda_ho *h, double *bytes_per_s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaEvent_t t0 = NULL, t1 = NULL;
  size_t n = sizeof(double) * 3 * (size_t)h->n_nodes;
  float ms = 0.0f, best = 1e30f;
  DT_CUDA_CHECK(cudaSetDevice(h->device), ctx);
  DT_CUDA_CHECK(cudaEventCreate(&t0), ctx);
  DT_CUDA_CHECK(cudaEventCreate(&t1), ctx);
  for (int r = 0; r < 6; r++) { /* best of 6, the first a warm-up */
    DT_CUDA_CHECK(cudaEventRecord(t0, h->stream), ctx);
    for (int k = 0; k < 10; k++)
      DT_CUDA_CHECK(cudaMemcpyAsync(h->v, h->u, n, cudaMemcpyDeviceToDevice, h->stream), ctx);
    DT_CUDA_CHECK(cudaEventRecord(t1, h->stream), ctx);
    DT_CUDA_CHECK(cudaEventSynchronize(t1), ctx);
    DT_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1), ctx);
    if (r > 0 && ms < best) best = ms;
  }
  *bytes_per_s = 2.0 * 10.0 * (double)n / (best * 1e-3);
cleanup:
  if (t0) cudaEventDestroy(t0);
  if (t1) cudaEventDestroy(t1);
  return rc;
}
