/* The CUDA backend of explicit dynamics: a thread per element; a time step is two kernel
 * launches for shells, dt_xp_element_nodes and then dt_xp_element_forces
 * (solver/explicit/explicit_kernel.h says why), and one for hex8, dt_xp_hex8_step
 * (explicit_hex8_kernel.h); the node copies and both force buffers resident on the
 * device in the kernel headers' structure-of-arrays layout. The host touches the device only
 * to start a step (its scalars go as kernel arguments) and to download the state of an output
 * frame. */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

extern "C" {
#include "explicit/explicit.h"
}

#define XP_BLOCK 128

typedef struct xp_cuda xp_cuda;

/* A linked part (xp_cuda_link): the instances of its run, and its ghosts grouped by the part
 * that holds their copies. */
typedef struct xp_link {
  int n_group;               /* parts of the run, this one among them */
  xp_cuda **group;           /* their instances (the step waits for their pulls) */
  int *group_dev;            /* their devices, synchronised before this part's memory is freed */
  int n_src;                 /* parts it pulls from */
  xp_cuda **src;             /* their instances */
  int *src_first;            /* n_src + 1 offsets into the lists below */
  int *slot, *copy;          /* device, n_ghost: ghost slot and the source part's copy, by source */
  cudaEvent_t ready, pulled; /* after this part's last step or put; after its last pull */
} xp_link;

struct xp_cuda {
  int ne, plastic, device;
  int kind, form, nv, nq;
  size_t nc, nf, hist_doubles; /* nf: the force buffers' stride, nc copies and the ghosts */
  int n_send, n_ghost;
  int *send;        /* device: the copies send() packs */
  double *send_buf; /* device: nv x n_send */
  int has_pressure;
  dt_xp_view view;       /* device pointers (shells) */
  dt_xp_hex8_view hview; /* device pointers (hex8) */
  double *f[2];
  int cur;
  int *failed;
  /* owned device arrays, freed in destroy */
  void *owned[28];
  int n_owned;
  void *step_owned[4];
  xp_link link; /* n_group 0: not linked */
};

/* Shells, the step's first half: the nodes (few registers, many warps). */
__global__ static void __launch_bounds__(XP_BLOCK) k_xp_nodes(dt_xp_view v, dt_xp_time t) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < v.ne) dt_xp_element_nodes(&v, &t, e);
}

/* Shells, the second half: the forces. HISTORY: the mesh has plastic elements; the elastic
 * kernel has no history arrays at all. */
template <int HISTORY>
__global__ static void __launch_bounds__(XP_BLOCK) k_xp_forces(dt_xp_view v, dt_xp_time t) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < v.ne) dt_xp_element_forces(&v, &t, e, HISTORY);
}

/* hex8: HISTORY as above, FORM DT_HEX8X_FULL or DT_HEX8X_REDUCED, PRESSURE the step has
 * pressures: each kernel carries only its own element code. */
template <int HISTORY, int FORM, int PRESSURE>
__global__ static void __launch_bounds__(XP_BLOCK) k_xp_hex8_step(dt_xp_hex8_view v, dt_xp_time t) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < v.ne) dt_xp_hex8_step(&v, &t, e, HISTORY, FORM, PRESSURE);
}

/* buf[k n + i] = f[k nf + idx[i]]: a part's forces for the other parts' ghosts. */
__global__ static void k_xp_pack(const double *f, size_t nf, const int *idx, int n, int nv,
                                 double *buf) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < nv; k++) buf[(size_t)k * n + i] = f[(size_t)k * nf + idx[i]];
}

/* f[k nf + nc + slot[i]] = src[k src_nf + copy[i]]: ghosts pulled from another part's force
 * buffer, on its device when it is another one (peer access). */
__global__ static void k_xp_pull(double *f, size_t nf, size_t nc, const int *slot, const int *copy,
                                 int n, const double *src, size_t src_nf, int nv) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < nv; k++)
      f[(size_t)k * nf + nc + slot[i]] = src[(size_t)k * src_nf + copy[i]];
}

/* Undo a link. The other parts may still pull from this part's buffers, or have pulls queued
 * that this part's events order: their devices finish first. */
static void unlink_parts(xp_cuda *c) {
  xp_link *L = &c->link;
  for (int i = 0; i < L->n_group; i++) {
    cudaSetDevice(L->group_dev[i]);
    cudaDeviceSynchronize();
  }
  cudaSetDevice(c->device);
  cudaFree(L->slot);
  cudaFree(L->copy);
  if (L->ready) cudaEventDestroy(L->ready);
  if (L->pulled) cudaEventDestroy(L->pulled);
  dt_free(L->group);
  dt_free(L->group_dev);
  dt_free(L->src);
  dt_free(L->src_first);
  memset(L, 0, sizeof *L);
}

static void xp_cuda_destroy(void *impl) {
  xp_cuda *c = (xp_cuda *)impl;
  if (!c) return;
  unlink_parts(c);
  cudaSetDevice(c->device);
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

/* Where the arrays both element kinds have go in a kind's view. */
typedef struct xp_common {
  const double **X0, **inv_mass;
  const int **owner, **nbr_ptr, **nbr, **mat;
  const dt_material_params **mats;
  double **u, **v, **hist, **work;
  int **plastic;
} xp_common;

/* Upload the arrays both kinds have: u (zero), v (v0, nv per copy), X0, the masses (nm per
 * copy), the gather lists, the materials, and the history, energies and yielded points. */
static dt_status upload_common(xp_cuda *c, const dt_xp_problem *xp, const double *v0,
                               const xp_common *w, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const size_t nc = c->nc, ne = (size_t)xp->ne;
  DT_TRY(own(c, w->u, NULL, 3 * nc, ctx));
  DT_TRY(own(c, w->v, v0, (size_t)xp->nv * nc, ctx));
  DT_TRY(own(c, (double **)w->X0, xp->X0, 3 * nc, ctx));
  DT_TRY(own(c, (double **)w->inv_mass, xp->inv_mass, (size_t)xp->nm * nc, ctx));
  DT_TRY(own(c, (int **)w->owner, xp->owner, nc, ctx));
  DT_TRY(own(c, (int **)w->nbr_ptr, xp->nbr_ptr, nc + 1, ctx));
  DT_TRY(own(c, (int **)w->nbr, xp->nbr, (size_t)xp->n_nbr, ctx));
  DT_TRY(own(c, (int **)w->mat, xp->mat, ne, ctx));
  DT_TRY(own(c, (dt_material_params **)w->mats, xp->mats, (size_t)xp->n_mats, ctx));
  if (xp->plastic) DT_TRY(own(c, w->hist, NULL, c->hist_doubles, ctx));
  DT_TRY(own(c, w->work, NULL, DT_XP_WORK * ne, ctx));
  DT_TRY(own(c, w->plastic, NULL, ne, ctx));
cleanup:
  return rc;
}

/* The shells' view: the common arrays, and their frames, directors and thickness. */
static dt_status create_shell_view(xp_cuda *c, const dt_xp_problem *xp, const double *v0,
                                   dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_xp_view *v = &c->view;
  const xp_common w = {&v->X0,   &v->inv_mass, &v->owner, &v->nbr_ptr, &v->nbr,  &v->mat,
                       &v->mats, &v->u,        &v->v,     &v->hist,    &v->work, &v->plastic};
  const size_t nc = c->nc;
  double *q = NULL;
  v->ne = xp->ne;
  v->n_layers = xp->n_layers;
  DT_TRY(upload_common(c, xp, v0, &w, ctx));
  DT_TRY(own(c, &q, xp->q0, 4 * nc, ctx));
  v->q = q;
  DT_TRY(own(c, (double **)&v->D0, xp->D0, 3 * nc, ctx));
  DT_TRY(own(c, (double **)&v->thick, xp->thick, (size_t)xp->ne, ctx));
  v->failed = c->failed;
cleanup:
  return rc;
}

/* The hex8 view: the common arrays. */
static dt_status create_hex8_view(xp_cuda *c, const dt_xp_problem *xp, const double *v0,
                                  dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_xp_hex8_view *v = &c->hview;
  const xp_common w = {&v->X0,   &v->inv_mass, &v->owner, &v->nbr_ptr, &v->nbr,  &v->mat,
                       &v->mats, &v->u,        &v->v,     &v->hist,    &v->work, &v->plastic};
  v->ne = xp->ne;
  v->kappa = xp->hourglass;
  DT_TRY(upload_common(c, xp, v0, &w, ctx));
  v->failed = c->failed;
cleanup:
  return rc;
}

extern "C" dt_status xp_cuda_create(const dt_xp_problem *xp, const double *v0, int threads,
                                    int device, void **impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = NULL;
  (void)threads;

  c = (xp_cuda *)dt_calloc(1, sizeof *c);
  DT_CHECK(c != NULL, ctx, DT_ERR_NOMEM, "out of memory for the explicit CUDA backend");
  c->ne = xp->ne;
  c->plastic = xp->plastic;
  c->device = device;
  c->kind = xp->kind;
  c->form = xp->form;
  c->nv = xp->nv;
  c->nq = xp->nq;
  c->nc = dt_xp_copies(xp);
  c->nf = c->nc + (size_t)xp->n_ghost;
  c->n_send = xp->n_send;
  c->n_ghost = xp->n_ghost;
  c->hist_doubles = dt_xp_hist_doubles(xp);
  DT_CUDA_CHECK(cudaSetDevice(device), ctx);
  DT_TRY(own(c, &c->failed, NULL, 1, ctx));
  DT_TRY(own(c, &c->f[0], NULL, (size_t)c->nv * c->nf, ctx));
  DT_TRY(own(c, &c->f[1], NULL, (size_t)c->nv * c->nf, ctx));
  DT_TRY(own(c, &c->send, xp->send, (size_t)xp->n_send, ctx));
  DT_TRY(own(c, &c->send_buf, NULL, (size_t)c->nv * xp->n_send, ctx));
  c->view.nf = c->hview.nf = (int)c->nf;
  if (c->kind == DT_XP_HEX8)
    DT_TRY(create_hex8_view(c, xp, v0, ctx));
  else
    DT_TRY(create_shell_view(c, xp, v0, ctx));
  *impl = c;
  c = NULL;
cleanup:
  xp_cuda_destroy(c);
  return rc;
}

extern "C" dt_status xp_cuda_set_step(void *impl, const dt_xp_step *st, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  const size_t nc = c->nc, np = (c->kind == DT_XP_HEX8 ? 6 : 1) * (size_t)c->ne;
  DT_CUDA_CHECK(cudaSetDevice(c->device), ctx);
  for (int i = 0; i < 4; i++) {
    cudaFree(c->step_owned[i]);
    c->step_owned[i] = NULL;
  }
  DT_TRY(upload(&c->step_owned[0], st->bcs, (size_t)st->n_bcs * sizeof *st->bcs, ctx));
  DT_TRY(upload(&c->step_owned[1], st->bc, nc * sizeof *st->bc, ctx));
  DT_TRY(upload(&c->step_owned[2], st->fc, 3 * nc * sizeof *st->fc, ctx));
  DT_TRY(upload(&c->step_owned[3], st->pressure, np * sizeof *st->pressure, ctx));
  c->has_pressure = st->has_pressure;
  c->view.bcs = c->hview.bcs = (const dt_xp_bc *)c->step_owned[0];
  c->view.bc = c->hview.bc = (const int *)c->step_owned[1];
  c->view.fc = c->hview.fc = (const double *)c->step_owned[2];
  c->view.pressure = (const double *)c->step_owned[3];
  c->hview.pressure = st->has_pressure ? (const double *)c->step_owned[3] : NULL;
cleanup:
  return rc;
}

template <int FORM, int PRESSURE> static void launch_hex8_form(xp_cuda *c, const dt_xp_time *T) {
  const int grid = (c->ne + XP_BLOCK - 1) / XP_BLOCK;
  if (c->plastic)
    k_xp_hex8_step<1, FORM, PRESSURE><<<grid, XP_BLOCK>>>(c->hview, *T);
  else
    k_xp_hex8_step<0, FORM, PRESSURE><<<grid, XP_BLOCK>>>(c->hview, *T);
}

/* The hex8 kernel for the mesh's history and formulation and the step's pressures. */
static void launch_hex8(xp_cuda *c, const dt_xp_time *T) {
  const int p = c->hview.pressure != NULL;
  if (c->form == DT_HEX8X_REDUCED)
    p ? launch_hex8_form<DT_HEX8X_REDUCED, 1>(c, T) : launch_hex8_form<DT_HEX8X_REDUCED, 0>(c, T);
  else
    p ? launch_hex8_form<DT_HEX8X_FULL, 1>(c, T) : launch_hex8_form<DT_HEX8X_FULL, 0>(c, T);
}

extern "C" dt_status xp_cuda_step(void *impl, const dt_xp_time *T, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  DT_CUDA_CHECK(cudaSetDevice(c->device), ctx);
  /* the buffer this step writes is the one the other parts pulled from a step ago */
  for (int i = 0; i < c->link.n_group; i++)
    if (c->link.group[i] != c)
      DT_CUDA_CHECK(cudaStreamWaitEvent(0, c->link.group[i]->link.pulled, 0), ctx);
  if (c->kind == DT_XP_HEX8) {
    c->hview.f_in = c->f[c->cur];
    c->hview.f_out = c->f[1 - c->cur];
    launch_hex8(c, T);
    DT_CUDA_LAUNCH_CHECK("k_xp_hex8_step", 0, ctx);
  } else {
    c->view.f_in = c->f[c->cur];
    c->view.f_out = c->f[1 - c->cur];
    const int grid = (c->ne + XP_BLOCK - 1) / XP_BLOCK;
    k_xp_nodes<<<grid, XP_BLOCK>>>(c->view, *T);
    DT_CUDA_LAUNCH_CHECK("k_xp_nodes", 0, ctx);
    if (c->plastic)
      k_xp_forces<1><<<grid, XP_BLOCK>>>(c->view, *T);
    else
      k_xp_forces<0><<<grid, XP_BLOCK>>>(c->view, *T);
    DT_CUDA_LAUNCH_CHECK("k_xp_forces", 0, ctx);
  }
  c->cur = 1 - c->cur;
  if (c->link.n_group) DT_CUDA_CHECK(cudaEventRecord(c->link.ready, 0), ctx);
cleanup:
  return rc;
}

/* The device arrays of the state, whichever view holds them. */
static void state_arrays(xp_cuda *c, double **u, double **v, double **work, double **hist,
                         int **plastic) {
  if (c->kind == DT_XP_HEX8) {
    *u = c->hview.u, *v = c->hview.v, *work = c->hview.work, *hist = c->hview.hist;
    *plastic = c->hview.plastic;
  } else {
    *u = c->view.u, *v = c->view.v, *work = c->view.work, *hist = c->view.hist;
    *plastic = c->view.plastic;
  }
}

extern "C" dt_status xp_cuda_get(void *impl, dt_xp_state *out, int *failed, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  const size_t nc = c->nc, ne = (size_t)c->ne, nv = (size_t)c->nv;
  const cudaMemcpyKind d2h = cudaMemcpyDeviceToHost;
  double *u, *v, *work, *hist;
  int *plastic;
  DT_CUDA_CHECK(cudaSetDevice(c->device), ctx);
  state_arrays(c, &u, &v, &work, &hist, &plastic);
  if (out->u) DT_CUDA_CHECK(cudaMemcpy(out->u, u, 3 * nc * sizeof(double), d2h), ctx);
  if (out->v) DT_CUDA_CHECK(cudaMemcpy(out->v, v, nv * nc * sizeof(double), d2h), ctx);
  if (out->q && c->nq)
    DT_CUDA_CHECK(cudaMemcpy(out->q, c->view.q, (size_t)c->nq * nc * sizeof(double), d2h), ctx);
  if (out->work)
    DT_CUDA_CHECK(cudaMemcpy(out->work, work, DT_XP_WORK * ne * sizeof(double), d2h), ctx);
  if (out->plastic) DT_CUDA_CHECK(cudaMemcpy(out->plastic, plastic, ne * sizeof(int), d2h), ctx);
  if (out->f) /* the copies' forces, without the ghost slots */
    DT_CUDA_CHECK(cudaMemcpy2D(out->f, nc * sizeof(double), c->f[c->cur], c->nf * sizeof(double),
                               nc * sizeof(double), nv, d2h),
                  ctx);
  if (out->hist && c->plastic)
    DT_CUDA_CHECK(cudaMemcpy(out->hist, hist, c->hist_doubles * sizeof(double), d2h), ctx);
  DT_CUDA_CHECK(cudaMemcpy(failed, c->failed, sizeof(int), d2h), ctx);
cleanup:
  return rc;
}

extern "C" dt_status xp_cuda_put(void *impl, const dt_xp_state *in, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  const size_t nc = c->nc, ne = (size_t)c->ne, nv = (size_t)c->nv;
  const cudaMemcpyKind h2d = cudaMemcpyHostToDevice;
  double *u, *v, *work, *hist;
  int *plastic;
  DT_CUDA_CHECK(cudaSetDevice(c->device), ctx);
  state_arrays(c, &u, &v, &work, &hist, &plastic);
  DT_CUDA_CHECK(cudaMemcpy(u, in->u, 3 * nc * sizeof(double), h2d), ctx);
  DT_CUDA_CHECK(cudaMemcpy(v, in->v, nv * nc * sizeof(double), h2d), ctx);
  if (c->nq)
    DT_CUDA_CHECK(cudaMemcpy(c->view.q, in->q, (size_t)c->nq * nc * sizeof(double), h2d), ctx);
  DT_CUDA_CHECK(cudaMemcpy2D(c->f[c->cur], c->nf * sizeof(double), in->f, nc * sizeof(double),
                             nc * sizeof(double), nv, h2d),
                ctx);
  DT_CUDA_CHECK(cudaMemcpy(work, in->work, DT_XP_WORK * ne * sizeof(double), h2d), ctx);
  if (c->plastic && in->hist)
    DT_CUDA_CHECK(cudaMemcpy(hist, in->hist, c->hist_doubles * sizeof(double), h2d), ctx);
  if (c->link.n_group) DT_CUDA_CHECK(cudaEventRecord(c->link.ready, 0), ctx);
cleanup:
  return rc;
}

/* The send copies' forces packed on the device, then to the host (the copy waits for the
 * step). */
extern "C" dt_status xp_cuda_send(void *impl, double *buf, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  DT_CUDA_CHECK(cudaSetDevice(c->device), ctx);
  if (c->n_send == 0) goto cleanup;
  k_xp_pack<<<(c->n_send + XP_BLOCK - 1) / XP_BLOCK, XP_BLOCK>>>(c->f[c->cur], c->nf, c->send,
                                                                 c->n_send, c->nv, c->send_buf);
  DT_CUDA_LAUNCH_CHECK("k_xp_pack", 0, ctx);
  DT_CUDA_CHECK(cudaMemcpy(buf, c->send_buf, (size_t)c->nv * c->n_send * sizeof(double),
                           cudaMemcpyDeviceToHost),
                ctx);
cleanup:
  return rc;
}

/* The ghost slots are contiguous per component: one strided copy fills them. */
extern "C" dt_status xp_cuda_recv(void *impl, const double *buf, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  const size_t ng = (size_t)c->n_ghost;
  DT_CUDA_CHECK(cudaSetDevice(c->device), ctx);
  if (ng)
    DT_CUDA_CHECK(cudaMemcpy2D(c->f[c->cur] + c->nc, c->nf * sizeof(double), buf,
                               ng * sizeof(double), ng * sizeof(double), (size_t)c->nv,
                               cudaMemcpyHostToDevice),
                  ctx);
cleanup:
  return rc;
}

/* 1 when this part's device reads every source part's memory: the same device, or peer access
 * (enabled here). DUCTILE_HALO_TRANSPORT=staged keeps the host exchange, for comparisons. */
static int can_pull(xp_cuda *c, void *const *peers, int n_peers) {
  const char *t = getenv("DUCTILE_HALO_TRANSPORT");
  if (t && !strcmp(t, "staged")) return 0;
  for (int q = 0; q < n_peers; q++) {
    const int d = ((xp_cuda *)peers[q])->device;
    int can = 0;
    if (d == c->device) continue;
    if (cudaDeviceCanAccessPeer(&can, c->device, d) != cudaSuccess || !can) {
      cudaGetLastError();
      return 0;
    }
    cudaSetDevice(c->device);
    cudaError_t e = cudaDeviceEnablePeerAccess(d, 0);
    cudaGetLastError(); /* an earlier part enabled it already: not an error here */
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) return 0;
  }
  return 1;
}

/* The ghosts grouped by source part (a counting sort: each source's ghosts stay in slot
 * order), uploaded; the group and its devices kept for the waits and the teardown. */
extern "C" dt_status xp_cuda_link(void *impl, void *const *peers, int n_peers, const int *src_part,
                                  const int *src_copy, int *linked, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  xp_link *L = &c->link;
  int *count = NULL, *slot = NULL, *copy = NULL;
  const int ng = c->n_ghost;
  *linked = 0;
  unlink_parts(c);
  if (n_peers == 0 || !can_pull(c, peers, n_peers)) goto cleanup;
  count = (int *)dt_calloc((size_t)n_peers + 1, sizeof(int));
  slot = (int *)dt_calloc((size_t)ng + 1, sizeof(int));
  copy = (int *)dt_calloc((size_t)ng + 1, sizeof(int));
  L->group = (xp_cuda **)dt_calloc((size_t)n_peers, sizeof(xp_cuda *));
  L->group_dev = (int *)dt_calloc((size_t)n_peers, sizeof(int));
  L->src = (xp_cuda **)dt_calloc((size_t)n_peers, sizeof(xp_cuda *));
  L->src_first = (int *)dt_calloc((size_t)n_peers + 1, sizeof(int));
  DT_CHECK(count && slot && copy && L->group && L->group_dev && L->src && L->src_first, ctx,
           DT_ERR_NOMEM, "out of memory for the explicit parts' ghost lists");
  for (int q = 0; q < n_peers; q++) {
    L->group[q] = (xp_cuda *)peers[q];
    L->group_dev[q] = L->group[q]->device;
    count[q] = 0;
  }
  L->n_group = n_peers;
  for (int g = 0; g < ng; g++) {
    DT_CHECK(src_part[g] >= 0 && src_part[g] < n_peers && L->group[src_part[g]] != c, ctx,
             DT_ERR_INPUT, "ghost %d names part %d of %d", g, src_part[g], n_peers);
    count[src_part[g]]++;
  }
  L->src_first[0] = 0;
  for (int q = 0; q < n_peers; q++)
    if (count[q]) {
      L->src[L->n_src] = L->group[q];
      L->src_first[L->n_src + 1] = L->src_first[L->n_src] + count[q];
      count[q] = L->src_first[L->n_src++]; /* now the source's next position */
    }
  for (int g = 0; g < ng; g++) {
    const int at = count[src_part[g]]++;
    slot[at] = g;
    copy[at] = src_copy[g];
  }
  DT_CUDA_CHECK(cudaSetDevice(c->device), ctx);
  DT_TRY(upload((void **)&L->slot, slot, (size_t)ng * sizeof(int), ctx));
  DT_TRY(upload((void **)&L->copy, copy, (size_t)ng * sizeof(int), ctx));
  DT_CUDA_CHECK(cudaEventCreateWithFlags(&L->ready, cudaEventDisableTiming), ctx);
  DT_CUDA_CHECK(cudaEventCreateWithFlags(&L->pulled, cudaEventDisableTiming), ctx);
  *linked = 1;
cleanup:
  if (!*linked) unlink_parts(c);
  dt_free(count);
  dt_free(slot);
  dt_free(copy);
  return rc;
}

/* Each source's ghosts after its last step or put, read from its newest force buffer (cur, as
 * the host sees it once that step is queued) into this part's, which the next step reads. */
extern "C" dt_status xp_cuda_pull(void *impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cuda *c = (xp_cuda *)impl;
  const xp_link *L = &c->link;
  DT_CUDA_CHECK(cudaSetDevice(c->device), ctx);
  for (int i = 0; i < L->n_src; i++) {
    const xp_cuda *src = L->src[i];
    const int first = L->src_first[i], n = L->src_first[i + 1] - first;
    DT_CUDA_CHECK(cudaStreamWaitEvent(0, src->link.ready, 0), ctx);
    k_xp_pull<<<(n + XP_BLOCK - 1) / XP_BLOCK, XP_BLOCK>>>(c->f[c->cur], c->nf, c->nc,
                                                           L->slot + first, L->copy + first, n,
                                                           src->f[src->cur], src->nf, c->nv);
    DT_CUDA_LAUNCH_CHECK("k_xp_pull", 0, ctx);
  }
  DT_CUDA_CHECK(cudaEventRecord(L->pulled, 0), ctx);
cleanup:
  return rc;
}

extern "C" const dt_xp_ops dt_xp_cuda_ops = {
    "cuda",          xp_cuda_create, xp_cuda_set_step, xp_cuda_step, xp_cuda_get, xp_cuda_put,
    xp_cuda_destroy, xp_cuda_send,   xp_cuda_recv,     xp_cuda_link, xp_cuda_pull};
