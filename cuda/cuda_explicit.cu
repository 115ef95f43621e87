/* The CUDA backend of explicit dynamics: one kernel launch per time step, a thread per element
 * running dt_xp_element_step (solver/explicit/explicit_kernel.h), the node copies and both
 * force buffers resident on the device in the kernel header's structure-of-arrays layout.
 * The host touches the device only to start a step (its scalars go as kernel arguments) and
 * to download the state of an output frame. */
#include <cuda_runtime.h>

#include <string.h>

#include "cuda_check.h"

extern "C" {
#include "explicit/explicit.h"
}

#define XP_BLOCK 128

typedef struct xp_cuda {
  int ne, n_layers, plastic, device;
  dt_xp_view view; /* device pointers */
  double *f[2];
  int cur;
  int *failed;
  /* owned device arrays, freed in destroy */
  void *owned[24];
  int n_owned;
  void *step_owned[4];
} xp_cuda;

/* HISTORY: the mesh has plastic elements; the elastic kernel has no history arrays at all. */
template <int HISTORY>
__global__ static void __launch_bounds__(XP_BLOCK) k_xp_step(dt_xp_view v, dt_xp_time t) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < v.ne) dt_xp_element_step(&v, &t, e, HISTORY);
}

static void xp_cuda_destroy(void *impl) {
  xp_cuda *c = (xp_cuda *)impl;
  if (!c) return;
  for (int i = 0; i < c->n_owned; i++) cudaFree(c->owned[i]);
  for (int i = 0; i < 4; i++) cudaFree(c->step_owned[i]);
  dt_free(c);
}

/* A device copy of `bytes` bytes of host data (zeros when src is NULL), kept in slot. */
static dt_status upload(void **slot, const void *src, size_t bytes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  void *d = NULL;
  DT_CUDA_CHECK(cudaMalloc(&d, bytes ? bytes : 8), ctx);
  *slot = d;
  if (src)
    DT_CUDA_CHECK(cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice), ctx);
  else
    DT_CUDA_CHECK(cudaMemset(d, 0, bytes ? bytes : 8), ctx);
cleanup:
  return rc;
}

/* upload() into the next owned slot, returning the device pointer through out. */
template <typename T>
static dt_status own(xp_cuda *c, T **out, const void *src, size_t count, dt_ctx *ctx) {
  dt_status rc = upload(&c->owned[c->n_owned], src, count * sizeof(T), ctx);
  if (rc == DT_OK) *out = (T *)c->owned[c->n_owned++];
  return rc;
}

extern "C" dt_status xp_cuda_create(const dt_xp_problem *xp, const double *v0, int threads,
                                    int device, void **impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = NULL;
  const size_t nc = 4 * (size_t)xp->ne, ne = (size_t)xp->ne;
  double *q = NULL;
  (void)threads;

  c = (xp_cuda *)dt_calloc(1, sizeof *c);
  DT_CHECK(c != NULL, ctx, DT_ERR_NOMEM, "out of memory for the explicit CUDA backend");
  c->ne = xp->ne;
  c->n_layers = xp->n_layers;
  c->plastic = xp->plastic;
  c->device = device;
  DT_CUDA_CHECK(cudaSetDevice(device), ctx);
  {
    dt_xp_view *v = &c->view;
    const double *cd;
    const int *ci;
    v->ne = xp->ne;
    v->n_layers = xp->n_layers;
    DT_TRY(own(c, &v->u, NULL, 3 * nc, ctx));
    DT_TRY(own(c, &v->v, v0, 5 * nc, ctx));
    DT_TRY(own(c, &q, xp->q0, 4 * nc, ctx));
    v->q = q;
    DT_TRY(own(c, (double **)&cd, xp->X0, 3 * nc, ctx));
    v->X0 = cd;
    DT_TRY(own(c, (double **)&cd, xp->D0, 3 * nc, ctx));
    v->D0 = cd;
    DT_TRY(own(c, (double **)&cd, xp->inv_mass, 2 * nc, ctx));
    v->inv_mass = cd;
    DT_TRY(own(c, (int **)&ci, xp->owner, nc, ctx));
    v->owner = ci;
    DT_TRY(own(c, (int **)&ci, xp->nbr_ptr, nc + 1, ctx));
    v->nbr_ptr = ci;
    DT_TRY(own(c, (int **)&ci, xp->nbr, (size_t)xp->n_nbr, ctx));
    v->nbr = ci;
    DT_TRY(own(c, (double **)&cd, xp->thick, ne, ctx));
    v->thick = cd;
    DT_TRY(own(c, (int **)&ci, xp->mat, ne, ctx));
    v->mat = ci;
    DT_TRY(own(c, (dt_material_params **)&v->mats, xp->mats, (size_t)xp->n_mats, ctx));
    if (xp->plastic)
      DT_TRY(own(c, &v->hist, NULL, (size_t)DT_MAT_STATE_DOUBLES * 4 * xp->n_layers * ne, ctx));
    DT_TRY(own(c, &v->work, NULL, DT_XP_WORK * ne, ctx));
    DT_TRY(own(c, &v->plastic, NULL, ne, ctx));
    DT_TRY(own(c, &c->failed, NULL, 1, ctx));
    v->failed = c->failed;
    DT_TRY(own(c, &c->f[0], NULL, 5 * nc, ctx));
    DT_TRY(own(c, &c->f[1], NULL, 5 * nc, ctx));
  }
  *impl = c;
  c = NULL;
cleanup:
  xp_cuda_destroy(c);
  return rc;
}

extern "C" dt_status xp_cuda_set_step(void *impl, const dt_xp_step *st, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  const size_t nc = 4 * (size_t)c->ne;
  for (int i = 0; i < 4; i++) {
    cudaFree(c->step_owned[i]);
    c->step_owned[i] = NULL;
  }
  DT_TRY(upload(&c->step_owned[0], st->bcs, (size_t)st->n_bcs * sizeof *st->bcs, ctx));
  DT_TRY(upload(&c->step_owned[1], st->bc, nc * sizeof *st->bc, ctx));
  DT_TRY(upload(&c->step_owned[2], st->fc, 3 * nc * sizeof *st->fc, ctx));
  DT_TRY(upload(&c->step_owned[3], st->pressure, (size_t)c->ne * sizeof *st->pressure, ctx));
  c->view.bcs = (const dt_xp_bc *)c->step_owned[0];
  c->view.bc = (const int *)c->step_owned[1];
  c->view.fc = (const double *)c->step_owned[2];
  c->view.pressure = (const double *)c->step_owned[3];
cleanup:
  return rc;
}

extern "C" dt_status xp_cuda_step(void *impl, const dt_xp_time *T, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  c->view.f_in = c->f[c->cur];
  c->view.f_out = c->f[1 - c->cur];
  if (c->plastic)
    k_xp_step<1><<<(c->ne + XP_BLOCK - 1) / XP_BLOCK, XP_BLOCK>>>(c->view, *T);
  else
    k_xp_step<0><<<(c->ne + XP_BLOCK - 1) / XP_BLOCK, XP_BLOCK>>>(c->view, *T);
  DT_CUDA_LAUNCH_CHECK("k_xp_step", 0, ctx);
  c->cur = 1 - c->cur;
cleanup:
  return rc;
}

static size_t hist_bytes(const xp_cuda *c) {
  return (size_t)DT_MAT_STATE_DOUBLES * 4 * c->n_layers * (size_t)c->ne * sizeof(double);
}

extern "C" dt_status xp_cuda_get(void *impl, dt_xp_state *out, int *failed, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  const size_t nc = 4 * (size_t)c->ne, ne = (size_t)c->ne;
  const cudaMemcpyKind d2h = cudaMemcpyDeviceToHost;
  if (out->u) DT_CUDA_CHECK(cudaMemcpy(out->u, c->view.u, 3 * nc * sizeof(double), d2h), ctx);
  if (out->v) DT_CUDA_CHECK(cudaMemcpy(out->v, c->view.v, 5 * nc * sizeof(double), d2h), ctx);
  if (out->q) DT_CUDA_CHECK(cudaMemcpy(out->q, c->view.q, 4 * nc * sizeof(double), d2h), ctx);
  if (out->work)
    DT_CUDA_CHECK(cudaMemcpy(out->work, c->view.work, DT_XP_WORK * ne * sizeof(double), d2h), ctx);
  if (out->plastic)
    DT_CUDA_CHECK(cudaMemcpy(out->plastic, c->view.plastic, ne * sizeof(int), d2h), ctx);
  if (out->f) DT_CUDA_CHECK(cudaMemcpy(out->f, c->f[c->cur], 5 * nc * sizeof(double), d2h), ctx);
  if (out->hist && c->plastic)
    DT_CUDA_CHECK(cudaMemcpy(out->hist, c->view.hist, hist_bytes(c), d2h), ctx);
  DT_CUDA_CHECK(cudaMemcpy(failed, c->failed, sizeof(int), d2h), ctx);
cleanup:
  return rc;
}

extern "C" dt_status xp_cuda_put(void *impl, const dt_xp_state *in, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  const size_t nc = 4 * (size_t)c->ne, ne = (size_t)c->ne;
  const cudaMemcpyKind h2d = cudaMemcpyHostToDevice;
  DT_CUDA_CHECK(cudaMemcpy(c->view.u, in->u, 3 * nc * sizeof(double), h2d), ctx);
  DT_CUDA_CHECK(cudaMemcpy(c->view.v, in->v, 5 * nc * sizeof(double), h2d), ctx);
  DT_CUDA_CHECK(cudaMemcpy(c->view.q, in->q, 4 * nc * sizeof(double), h2d), ctx);
  DT_CUDA_CHECK(cudaMemcpy(c->f[c->cur], in->f, 5 * nc * sizeof(double), h2d), ctx);
  DT_CUDA_CHECK(cudaMemcpy(c->view.work, in->work, DT_XP_WORK * ne * sizeof(double), h2d), ctx);
  if (c->plastic && in->hist)
    DT_CUDA_CHECK(cudaMemcpy(c->view.hist, in->hist, hist_bytes(c), h2d), ctx);
cleanup:
  return rc;
}

extern "C" const dt_xp_ops dt_xp_cuda_ops = {"cuda",         xp_cuda_create, xp_cuda_set_step,
                                             xp_cuda_step,   xp_cuda_get,    xp_cuda_put,
                                             xp_cuda_destroy};
