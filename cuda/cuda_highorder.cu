/* The matrix-free elasticity operator of order-P hexahedra (solver/highorder/ho_elastic.h) on
 * the GPU, by sum factorisation.
 *
 * The sweep itself (shared memory per block, the contractions, the colour order that makes
 * repeated products bit-identical) is cuda_ho_sumfact.cuh's, shared with the plastic operators
 * of cuda_ho_plastic.cu; this file supplies the elastic point stage
 *   sigma = lambda tr(H) I + mu (H + H^T)
 * and the operator's upload. Global traffic per element: qdata (10 nq^3 doubles, the floor's
 * largest term), its node ids, u gathered and v read and written. */
#include <math.h>
#include <string.h>

#include "cuda_ho_sumfact.cuh"

/* The elastic point stage: sigma = lambda tr(H) I + mu (H + H^T). */
struct ho_elastic_point {
  const double *lambda, *mu;
  __device__ void operator()(int elem, int q, int nq3, const double *H, double *S) const {
    double lam = lambda[elem], m = mu[elem], tr = H[0] + H[4] + H[8];
    for (int cc = 0; cc < 3; cc++)
      for (int j = 0; j < 3; j++)
        S[3 * cc + j] = m * (H[3 * cc + j] + H[3 * j + cc]) + (cc == j ? lam * tr : 0.0);
  }
};

static dt_status ho_alloc(dt_cuda_ho *h, void **p, size_t bytes, const char *what, dt_ctx *ctx) {
  return dt_cuda_malloc_counted(p, bytes, "", what, &h->bytes, ctx);
}

static dt_status ho_upload(dt_cuda_ho *h, void **p, const void *src, size_t bytes, const char *what,
                           dt_ctx *ctx) {
  return dt_cuda_upload_counted(p, src, bytes, "", what, &h->bytes, ctx);
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
  /* The attribute belongs to the kernel, not to this operator: operators of several orders (a
   * p-multigrid's levels) launch the same kernel, so it allows the device's largest. */
  DT_CUDA_CHECK(cudaFuncSetAttribute(k_ho_sweep<ho_elastic_point>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared),
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
  ho_elastic_point point = {h->lambda, h->mu};
  return ho_sweep_launch(h, h->stream, h->u, h->v, NULL, point, ctx);
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

static dt_status timed_apply(void *h, dt_ctx *ctx) {
  return dt_cuda_ho_apply_device((dt_cuda_ho *)h, ctx);
}

extern "C" dt_status dt_cuda_ho_time(dt_cuda_ho *h, int reps, double *seconds, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  float ms = 0.0f;
  DT_CUDA_CHECK(cudaSetDevice(h->device), ctx);
  DT_TRY(dt_cuda_ho_apply_device(h, ctx)); /* warm-up */
  DT_TRY(dt_cuda_time_ms(h->stream, reps, timed_apply, h, &ms, ctx));
  *seconds = ms * 1e-3 / (reps > 0 ? reps : 1);
cleanup:
  return rc;
}

extern "C" void dt_cuda_ho_describe(const dt_cuda_ho *h, char *buf, size_t len) {
  snprintf(buf, len,
           "%d elements per block of %d threads, %zu bytes of shared memory per block, %d "
           "colours, %.1f MB on the device",
           h->ne, HO_THREADS, h->shared_bytes, h->n_colors, h->bytes / 1e6);
}

/* v = u on the device: one copy of the bandwidth measurement. */
static dt_status timed_copy(void *data, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_ho *h = (dt_cuda_ho *)data;
  size_t n = sizeof(double) * 3 * (size_t)h->n_nodes;
  DT_CUDA_CHECK(cudaMemcpyAsync(h->v, h->u, n, cudaMemcpyDeviceToDevice, h->stream), ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_copy_bandwidth(dt_cuda_ho *h, double *bytes_per_s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t n = sizeof(double) * 3 * (size_t)h->n_nodes;
  float ms = 0.0f, best = 1e30f;
  DT_CUDA_CHECK(cudaSetDevice(h->device), ctx);
  for (int r = 0; r < 6; r++) { /* best of 6, the first a warm-up */
    DT_TRY(dt_cuda_time_ms(h->stream, 10, timed_copy, h, &ms, ctx));
    if (r > 0 && ms < best) best = ms;
  }
  *bytes_per_s = 2.0 * 10.0 * (double)n / (best * 1e-3);
cleanup:
  return rc;
}
