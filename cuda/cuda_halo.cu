/* Halo transports between parts on CUDA devices (cuda_halo.h): the multi-GPU order-P solver
 * (cuda_multi.cu) and the CUDA backend's part ops (a run split over devices,
 * solver/backend/backend.h dt_backend_part_ops) exchange through the same code.
 *
 * Both transports keep per slot device copies of the part's send and receive lists and a device
 * staging buffer per peer and direction; pack and unpack are kernels over those lists on the
 * slot's stream. They differ in the moves only:
 *   NCCL:   ncclSend/ncclRecv between ncclGroupStart/ncclGroupEnd, peers named by slot (the
 *           rank of ncclCommInitAll). NVLink multicast (NVLS) is never asked for.
 *   staged: a send copies the packed values into a pinned host buffer on the sender's stream;
 *           group end waits for every slot's stream, matches each receive with its send by
 *           (from, to) as the host transport does (partition_exchange.c), copies the values
 *           into the receiver's device buffer on the receiver's stream and waits for those
 *           copies, so the next phase may overwrite the pinned buffers. Slower than NCCL (two
 *           copies through the host and two waits per phase) but it needs neither NCCL nor
 *           distinct devices: several parts on one GPU run the split path. */
#include <stdlib.h>
#include <string.h>

#include "cuda_halo.h"
#include "cuda_internal.h"

#define HALO_THREADS 256

/* A posted move: staged sends point at the sender's pinned buffer, receives at the receiver's
 * device buffer. */
typedef struct halo_msg {
  int from, to;
  double *buf;
  size_t count;
} halo_msg;

typedef struct halo_slot {
  int device, part, n_peers;
  cudaStream_t stream;
  int *peer;                /* host copy of the part's peer ids */
  size_t *cap;              /* per peer: values one buffer holds (its longer list x max_ncomp) */
  int *send_idx, *recv_idx; /* device copies of the part's lists */
  double **buf;             /* device, per peer: out, in */
  double **host;            /* staged only: pinned, per peer, the outgoing values */
#ifdef DUCTILE_HAVE_NCCL
  ncclComm_t comm;
#endif
} halo_slot;

struct dt_cuda_halo {
  dt_cuda_halo_kind kind;
  int n, max_ncomp;
  halo_slot *slot;
  halo_msg *sends, *recvs; /* staged only */
  int nsend, nrecv, cap;
};

__global__ void k_halo_pack(int n, int ncomp, const int *__restrict__ idx,
                            const double *__restrict__ v, double *__restrict__ buf) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n * ncomp) buf[t] = v[(size_t)idx[t / ncomp] * ncomp + t % ncomp];
}

__global__ void k_halo_unpack(int n, int ncomp, const int *__restrict__ idx,
                              const double *__restrict__ buf, double *__restrict__ v, int add) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n * ncomp) return;
  double *d = &v[(size_t)idx[t / ncomp] * ncomp + t % ncomp];
  *d = add ? *d + buf[t] : buf[t];
}

/* The slot that holds part `part`, -1 if none. */
static int slot_of(const dt_cuda_halo *h, int part) {
  for (int s = 0; s < h->n; s++)
    if (h->slot[s].part == part) return s;
  return -1;
}

/* The index of part `part` in slot s's peers, -1 if none. */
static int peer_of(const halo_slot *S, int part) {
  for (int k = 0; k < S->n_peers; k++)
    if (S->peer[k] == part) return k;
  return -1;
}

/* The device copy of the entries a span names. */
static const int *device_list(const halo_slot *S, const dt_halo_span *span) {
  return (span->list == DT_HALO_SEND_LIST ? S->send_idx : S->recv_idx) + span->first;
}

static double *halo_buffer(void *user, int s, int k, int in) {
  return ((dt_cuda_halo *)user)->slot[s].buf[2 * k + in];
}

static dt_status halo_pack(void *user, int s, int k, const dt_halo_span *span, int ncomp,
                           const double *v, double *buf, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const halo_slot *S = &((dt_cuda_halo *)user)->slot[s];
  (void)k;
  DT_CUDA_CHECK(cudaSetDevice(S->device), ctx);
  k_halo_pack<<<(span->n * ncomp + HALO_THREADS - 1) / HALO_THREADS, HALO_THREADS, 0, S->stream>>>(
      span->n, ncomp, device_list(S, span), v, buf);
  DT_CUDA_LAUNCH_CHECK("k_halo_pack", S->stream, ctx);
cleanup:
  return rc;
}

static dt_status halo_unpack(void *user, int s, int k, const dt_halo_span *span, int ncomp,
                             const double *buf, double *v, int add, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const halo_slot *S = &((dt_cuda_halo *)user)->slot[s];
  (void)k;
  DT_CUDA_CHECK(cudaSetDevice(S->device), ctx);
  k_halo_unpack<<<(span->n * ncomp + HALO_THREADS - 1) / HALO_THREADS, HALO_THREADS, 0,
                  S->stream>>>(span->n, ncomp, device_list(S, span), buf, v, add);
  DT_CUDA_LAUNCH_CHECK("k_halo_unpack", S->stream, ctx);
cleanup:
  return rc;
}

static dt_status check_ncomp(const dt_cuda_halo *h, int ncomp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(ncomp >= 1 && ncomp <= h->max_ncomp, ctx, DT_ERR_INTERNAL,
           "halo exchange of %d values per node through buffers made for 1 to %d", ncomp,
           h->max_ncomp);
cleanup:
  return rc;
}

/* The slots of a move from part `from` to part `to`, both held here. */
static dt_status move_slots(const dt_cuda_halo *h, int from, int to, int *sf, int *st,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  *sf = slot_of(h, from);
  *st = slot_of(h, to);
  DT_CHECK(*sf >= 0 && *st >= 0, ctx, DT_ERR_INTERNAL,
           "halo exchange between parts %d and %d: a part not held by this transport", from, to);
cleanup:
  return rc;
}

#ifdef DUCTILE_HAVE_NCCL
static dt_status nccl_begin(void *user, int ncomp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(check_ncomp((dt_cuda_halo *)user, ncomp, ctx));
  NCCL_CHECK(ncclGroupStart(), ctx);
cleanup:
  return rc;
}

static dt_status nccl_send(void *user, int from, int to, const double *buf, size_t count,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_halo *h = (dt_cuda_halo *)user;
  int sf, st;
  DT_TRY(move_slots(h, from, to, &sf, &st, ctx));
  NCCL_CHECK(ncclSend(buf, count, ncclDouble, st, h->slot[sf].comm, h->slot[sf].stream), ctx);
cleanup:
  return rc;
}

static dt_status nccl_recv(void *user, int to, int from, double *buf, size_t count, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_halo *h = (dt_cuda_halo *)user;
  int sf, st;
  DT_TRY(move_slots(h, from, to, &sf, &st, ctx));
  NCCL_CHECK(ncclRecv(buf, count, ncclDouble, sf, h->slot[st].comm, h->slot[st].stream), ctx);
cleanup:
  return rc;
}

static dt_status nccl_end(void *user, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  (void)user;
  NCCL_CHECK(ncclGroupEnd(), ctx);
cleanup:
  return rc;
}

static const dt_halo_ops nccl_ops = {halo_buffer, halo_pack, halo_unpack, nccl_begin,
                                     nccl_send,   nccl_recv, nccl_end};

ncclComm_t dt_cuda_halo_comm(const dt_cuda_halo *h, int s) {
  return h->kind == DT_CUDA_HALO_NCCL ? h->slot[s].comm : NULL;
}
#endif

static dt_status staged_begin(void *user, int ncomp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_halo *h = (dt_cuda_halo *)user;
  DT_TRY(check_ncomp(h, ncomp, ctx));
  h->nsend = h->nrecv = 0;
cleanup:
  return rc;
}

static dt_status staged_post(dt_cuda_halo *h, halo_msg *q, int *n, halo_msg m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(*n < h->cap, ctx, DT_ERR_INTERNAL,
           "halo exchange: more than %d messages posted in one group", h->cap);
  q[(*n)++] = m;
cleanup:
  return rc;
}

/* The packed values leave for the pinned buffer of (sender, peer) at once, in stream order after
 * the pack. */
static dt_status staged_send(void *user, int from, int to, const double *buf, size_t count,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_halo *h = (dt_cuda_halo *)user;
  int sf, st, k;
  halo_slot *S;
  DT_TRY(move_slots(h, from, to, &sf, &st, ctx));
  S = &h->slot[sf];
  k = peer_of(S, to);
  DT_CHECK(k >= 0 && count <= S->cap[k], ctx, DT_ERR_INTERNAL,
           "halo exchange: part %d sends %zu values to part %d, which is not a peer with a "
           "buffer of that size",
           from, count, to);
  DT_CUDA_CHECK(cudaSetDevice(S->device), ctx);
  DT_CUDA_CHECK(
      cudaMemcpyAsync(S->host[k], buf, count * sizeof(double), cudaMemcpyDeviceToHost, S->stream),
      ctx);
  {
    halo_msg m = {from, to, S->host[k], count};
    DT_TRY(staged_post(h, h->sends, &h->nsend, m, ctx));
  }
cleanup:
  return rc;
}

static dt_status staged_recv(void *user, int to, int from, double *buf, size_t count, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_halo *h = (dt_cuda_halo *)user;
  int sf, st;
  DT_TRY(move_slots(h, from, to, &sf, &st, ctx));
  {
    halo_msg m = {from, to, buf, count};
    DT_TRY(staged_post(h, h->recvs, &h->nrecv, m, ctx));
  }
cleanup:
  return rc;
}

static dt_status sync_all(const dt_cuda_halo *h, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int s = 0; s < h->n; s++) {
    DT_CUDA_CHECK(cudaSetDevice(h->slot[s].device), ctx);
    DT_CUDA_CHECK(cudaStreamSynchronize(h->slot[s].stream), ctx);
  }
cleanup:
  return rc;
}

/* Every send's values are on the host once the streams are drained; each receive takes the one
 * send of the same (from, to), whose size must agree (both lists name the same nodes). */
static dt_status staged_end(void *user, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_halo *h = (dt_cuda_halo *)user;
  DT_CHECK(h->nsend == h->nrecv, ctx, DT_ERR_INTERNAL,
           "halo exchange: %d sends posted against %d receives", h->nsend, h->nrecv);
  DT_TRY(sync_all(h, ctx));
  for (int r = 0; r < h->nrecv; r++) {
    const halo_msg *rv = &h->recvs[r], *sd = NULL;
    const halo_slot *S = &h->slot[slot_of(h, rv->to)];
    for (int j = 0; j < h->nsend && !sd; j++)
      if (h->sends[j].from == rv->from && h->sends[j].to == rv->to) sd = &h->sends[j];
    DT_CHECK(sd != NULL, ctx, DT_ERR_INTERNAL,
             "halo exchange: part %d expects values from part %d, which sends none", rv->to,
             rv->from);
    DT_CHECK(sd->count == rv->count, ctx, DT_ERR_INTERNAL,
             "halo exchange: part %d sends %zu values to part %d, which expects %zu", sd->from,
             sd->count, sd->to, rv->count);
    DT_CUDA_CHECK(cudaSetDevice(S->device), ctx);
    DT_CUDA_CHECK(cudaMemcpyAsync(rv->buf, sd->buf, rv->count * sizeof(double),
                                  cudaMemcpyHostToDevice, S->stream),
                  ctx);
  }
  /* the pinned buffers are free again only once every copy out of them has run */
  if (h->nrecv) DT_TRY(sync_all(h, ctx));
cleanup:
  return rc;
}

static const dt_halo_ops staged_ops = {halo_buffer, halo_pack,   halo_unpack, staged_begin,
                                       staged_send, staged_recv, staged_end};

const dt_halo_ops *dt_cuda_halo_ops(const dt_cuda_halo *h) {
#ifdef DUCTILE_HAVE_NCCL
  if (h->kind == DT_CUDA_HALO_NCCL) return &nccl_ops;
#endif
  return &staged_ops;
}

const char *dt_cuda_halo_kind_name(dt_cuda_halo_kind kind) {
  return kind == DT_CUDA_HALO_NCCL ? "nccl" : "staged";
}

dt_status dt_cuda_halo_choose(const int *devices, int n, dt_cuda_halo_kind *kind, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const char *env = getenv("DUCTILE_HALO_TRANSPORT");
  int distinct = 1;
  *kind = DT_CUDA_HALO_STAGED;
  for (int s = 0; s < n; s++)
    for (int t = 0; t < s; t++) distinct &= devices[s] != devices[t];
  if (env && *env && strcmp(env, "auto") != 0) {
    DT_CHECK(strcmp(env, "staged") == 0 || strcmp(env, "nccl") == 0, ctx, DT_ERR_INPUT,
             "DUCTILE_HALO_TRANSPORT=\"%s\" is none of auto, nccl, staged", env);
    *kind = strcmp(env, "nccl") == 0 ? DT_CUDA_HALO_NCCL : DT_CUDA_HALO_STAGED;
    goto cleanup;
  }
#ifdef DUCTILE_HAVE_NCCL
  if (n > 1 && distinct) *kind = DT_CUDA_HALO_NCCL;
#else
  (void)distinct;
#endif
cleanup:
  return rc;
}

/* The device lists, buffers and, for the staged transport, pinned buffers of slot s. */
static dt_status slot_create(dt_cuda_halo *h, int s, const dt_cuda_halo_slot *in, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  halo_slot *S = &h->slot[s];
  const dt_part_local *l = in->part;
  int ns = l->send_ptr[l->n_peers], nr = l->recv_ptr[l->n_peers];
  S->device = in->device;
  S->stream = in->stream;
  S->part = l->part;
  S->peer = (int *)calloc((size_t)l->n_peers + 1, sizeof(int));
  S->cap = (size_t *)calloc((size_t)l->n_peers + 1, sizeof(size_t));
  S->buf = (double **)calloc(2 * (size_t)l->n_peers + 1, sizeof(double *));
  S->host = (double **)calloc((size_t)l->n_peers + 1, sizeof(double *));
  DT_CHECK(S->peer && S->cap && S->buf && S->host, ctx, DT_ERR_NOMEM,
           "out of memory allocating the halo transport");
  S->n_peers = l->n_peers; /* the arrays above hold n_peers entries from here on */
  DT_CUDA_CHECK(cudaSetDevice(S->device), ctx);
  { /* loaded now, not at the first exchange (lazy loading, cuda_internal.h) */
    const void *k[] = {(const void *)k_halo_pack, (const void *)k_halo_unpack};
    DT_TRY(dt_cuda_load_list(k, 2, NULL, ctx));
  }
  DT_CUDA_CHECK(cudaMalloc(&S->send_idx, sizeof(int) * (ns ? ns : 1)), ctx);
  DT_CUDA_CHECK(cudaMalloc(&S->recv_idx, sizeof(int) * (nr ? nr : 1)), ctx);
  if (ns) DT_CUDA_CHECK(dt_cuda_put(S->send_idx, l->send_idx, sizeof(int) * ns), ctx);
  if (nr) DT_CUDA_CHECK(dt_cuda_put(S->recv_idx, l->recv_idx, sizeof(int) * nr), ctx);
  for (int k = 0; k < l->n_peers; k++) {
    int m = l->send_ptr[k + 1] - l->send_ptr[k], w = l->recv_ptr[k + 1] - l->recv_ptr[k];
    size_t most = (size_t)(m > w ? m : w) * (size_t)h->max_ncomp, bytes;
    bytes = sizeof(double) * (most ? most : 1);
    S->peer[k] = l->peer[k];
    S->cap[k] = most;
    DT_CUDA_CHECK(cudaMalloc(&S->buf[2 * k], bytes), ctx);
    DT_CUDA_CHECK(cudaMalloc(&S->buf[2 * k + 1], bytes), ctx);
    /* portable: the receiver's device copies out of it, whichever device that is */
    if (h->kind == DT_CUDA_HALO_STAGED)
      DT_CUDA_CHECK(cudaHostAlloc((void **)&S->host[k], bytes, cudaHostAllocPortable), ctx);
  }
cleanup:
  return rc;
}

dt_status dt_cuda_halo_create(const dt_cuda_halo_slot *slots, int n, int max_ncomp,
                              dt_cuda_halo_kind kind, dt_cuda_halo **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_halo *h = NULL;
  int npeers = 0, current = -1;
  *out = NULL;
  DT_CHECK(n >= 1 && max_ncomp >= 1, ctx, DT_ERR_INTERNAL,
           "halo transport for %d parts of %d values per node", n, max_ncomp);
  DT_CUDA_CHECK(cudaGetDevice(&current), ctx);
  h = (dt_cuda_halo *)calloc(1, sizeof *h);
  DT_CHECK(h != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating the halo transport");
  h->kind = kind;
  h->max_ncomp = max_ncomp;
  h->slot = (halo_slot *)calloc((size_t)n, sizeof(halo_slot));
  DT_CHECK(h->slot != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating the halo transport");
  h->n = n; /* destroy walks the slots from here on */
  for (int s = 0; s < n; s++) {
    npeers += slots[s].part->n_peers;
    DT_TRY(slot_create(h, s, &slots[s], ctx));
  }
  h->cap = npeers;
  h->sends = (halo_msg *)calloc((size_t)npeers + 1, sizeof(halo_msg));
  h->recvs = (halo_msg *)calloc((size_t)npeers + 1, sizeof(halo_msg));
  DT_CHECK(h->sends && h->recvs, ctx, DT_ERR_NOMEM, "out of memory allocating the halo transport");
  if (kind == DT_CUDA_HALO_NCCL) {
#ifdef DUCTILE_HAVE_NCCL
    int *devs = (int *)calloc((size_t)n, sizeof(int));
    ncclComm_t *comms = (ncclComm_t *)calloc((size_t)n, sizeof(ncclComm_t));
    ncclResult_t nr = ncclSuccess;
    int dup = -1, ok = devs && comms;
    if (ok) {
      for (int s = 0; s < n; s++) {
        devs[s] = slots[s].device;
        for (int t = 0; t < s; t++)
          if (devs[t] == devs[s]) dup = devs[s];
      }
      /* NVLink multicast (NVLS) stays off: the exchange never needs it, and a process that uses
       * it can take a shared host's GPUs out of service. */
      setenv("NCCL_NVLS_ENABLE", "0", 1);
      if (dup < 0) nr = ncclCommInitAll(comms, n, devs);
      if (dup < 0 && nr == ncclSuccess)
        for (int s = 0; s < n; s++) h->slot[s].comm = comms[s];
    }
    free(devs);
    free(comms);
    DT_CHECK(ok, ctx, DT_ERR_NOMEM, "out of memory allocating the halo transport");
    DT_CHECK(dup < 0, ctx, DT_ERR_INPUT,
             "GPU %d is named twice: the NCCL halo transport runs one part per device "
             "(DUCTILE_HALO_TRANSPORT=staged shares a device)",
             dup);
    DT_CHECK(nr == ncclSuccess, ctx, DT_ERR_CUDA, "ncclCommInitAll failed: %s",
             ncclGetErrorString(nr));
#else
    DT_CHECK(0, ctx, DT_ERR_UNSUPPORTED,
             "the NCCL halo transport needs NCCL (nccl.h, libnccl) at configure time; "
             "DUCTILE_HALO_TRANSPORT=staged moves the halo through the host");
#endif
  }
  *out = h;
  h = NULL;
cleanup:
  dt_cuda_halo_destroy(h);
  if (current >= 0) cudaSetDevice(current);
  return rc;
}

void dt_cuda_halo_destroy(dt_cuda_halo *h) {
  int current = -1;
  if (!h) return;
  cudaGetDevice(&current);
  for (int s = 0; h->slot && s < h->n; s++) {
    halo_slot *S = &h->slot[s];
    cudaSetDevice(S->device);
#ifdef DUCTILE_HAVE_NCCL
    if (S->comm) ncclCommDestroy(S->comm);
#endif
    for (int k = 0; S->buf && k < 2 * S->n_peers; k++) cudaFree(S->buf[k]);
    for (int k = 0; S->host && k < S->n_peers; k++)
      if (S->host[k]) cudaFreeHost(S->host[k]);
    cudaFree(S->send_idx);
    cudaFree(S->recv_idx);
    free(S->peer);
    free(S->cap);
    free(S->buf);
    free(S->host);
  }
  free(h->slot);
  free(h->sends);
  free(h->recvs);
  free(h);
  if (current >= 0) cudaSetDevice(current);
}

/* Part ops (backend.h dt_backend_part_ops): the transport between the impls of a run split
 * over devices, each slot on its impl's device and stream. */
extern "C" dt_status dt_cuda_part_halo_create(void *const *impls, const dt_part_local *parts, int n,
                                              int max_ncomp, const dt_halo_ops **ops, void **user,
                                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_halo_slot *slots = NULL;
  int *devices = NULL;
  dt_cuda_halo_kind kind = DT_CUDA_HALO_STAGED;
  dt_cuda_halo *h = NULL;
  *ops = NULL;
  *user = NULL;
  DT_CHECK(n >= 1, ctx, DT_ERR_INTERNAL, "halo transport for %d parts", n);
  slots = (dt_cuda_halo_slot *)calloc((size_t)n, sizeof *slots);
  devices = (int *)calloc((size_t)n, sizeof *devices);
  DT_CHECK(slots && devices, ctx, DT_ERR_NOMEM, "out of memory allocating the halo transport");
  for (int s = 0; s < n; s++) {
    const dt_cuda *c = (const dt_cuda *)impls[s];
    slots[s].device = devices[s] = c->device;
    slots[s].stream = c->stream;
    slots[s].part = &parts[s];
  }
  DT_TRY(dt_cuda_halo_choose(devices, n, &kind, ctx));
  DT_TRY(dt_cuda_halo_create(slots, n, max_ncomp, kind, &h, ctx));
  *ops = dt_cuda_halo_ops(h);
  *user = h;
  for (int s = 0; s < n; s++) ((dt_cuda *)impls[s])->halo = dt_cuda_halo_kind_name(kind);
cleanup:
  free(slots);
  free(devices);
  return rc;
}

extern "C" void dt_cuda_part_halo_destroy(void *user) {
  dt_cuda_halo_destroy((dt_cuda_halo *)user);
}

extern "C" const char *dt_cuda_part_halo_name(const void *user) {
  return user ? dt_cuda_halo_kind_name(((const dt_cuda_halo *)user)->kind) : "none";
}
