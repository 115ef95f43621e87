/* The halo exchange driver over a transport table, and the host transport (partition_exchange.h).
 *
 * One exchange phase moves, for every peer pair, the values of one list into the matching list
 * of the other side. The copy exchange sends each part's send lists (owned values) into the
 * peers' recv lists (ghosts); the sum exchange first runs the reverse direction with addition
 * (ghost contributions onto the owner), then a copy. */
#include <string.h>

#include "partition_exchange.h"

/* One phase. reverse = 0: send lists out, recv lists in, overwrite; reverse = 1: recv lists out,
 * send lists in, add. */
static dt_status phase(const dt_part_local *parts, int nslots, double *const *v, int ncomp,
                       int reverse, const dt_halo_ops *ops, void *user, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(ops->group_begin(user, ncomp, ctx));
  for (int s = 0; s < nslots; s++) {
    const dt_part_local *l = &parts[s];
    const int *optr = reverse ? l->recv_ptr : l->send_ptr,
              *oidx = reverse ? l->recv_idx : l->send_idx;
    for (int k = 0; k < l->n_peers; k++) {
      dt_halo_span span = {reverse ? DT_HALO_RECV_LIST : DT_HALO_SEND_LIST, optr[k],
                           optr[k + 1] - optr[k], oidx + optr[k]};
      if (span.n > 0)
        DT_TRY(ops->pack(user, s, k, &span, ncomp, v[s], ops->buffer(user, s, k, 0), ctx));
    }
  }
  for (int s = 0; s < nslots; s++) {
    const dt_part_local *l = &parts[s];
    const int *optr = reverse ? l->recv_ptr : l->send_ptr,
              *iptr = reverse ? l->send_ptr : l->recv_ptr;
    for (int k = 0; k < l->n_peers; k++) {
      size_t nout = (size_t)(optr[k + 1] - optr[k]) * (size_t)ncomp;
      size_t nin = (size_t)(iptr[k + 1] - iptr[k]) * (size_t)ncomp;
      if (nout) DT_TRY(ops->send(user, l->part, l->peer[k], ops->buffer(user, s, k, 0), nout, ctx));
      if (nin) DT_TRY(ops->recv(user, l->part, l->peer[k], ops->buffer(user, s, k, 1), nin, ctx));
    }
  }
  DT_TRY(ops->group_end(user, ctx));
  for (int s = 0; s < nslots; s++) {
    const dt_part_local *l = &parts[s];
    const int *iptr = reverse ? l->send_ptr : l->recv_ptr,
              *iidx = reverse ? l->send_idx : l->recv_idx;
    for (int k = 0; k < l->n_peers; k++) {
      dt_halo_span span = {reverse ? DT_HALO_SEND_LIST : DT_HALO_RECV_LIST, iptr[k],
                           iptr[k + 1] - iptr[k], iidx + iptr[k]};
      if (span.n > 0)
        DT_TRY(
            ops->unpack(user, s, k, &span, ncomp, ops->buffer(user, s, k, 1), v[s], reverse, ctx));
    }
  }
cleanup:
  return rc;
}

dt_status dt_halo_exchange(const dt_part_local *parts, int nslots, double *const *v, int ncomp,
                           dt_halo_mode mode, const dt_halo_ops *ops, void *user, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (mode == DT_HALO_SUM) DT_TRY(phase(parts, nslots, v, ncomp, 1, ops, user, ctx));
  DT_TRY(phase(parts, nslots, v, ncomp, 0, ops, user, ctx));
cleanup:
  return rc;
}

typedef struct host_msg {
  int from, to;
  double *buf;
  size_t count;
} host_msg;

struct dt_halo_host {
  int nparts, max_ncomp; /* slot s is part s */
  double ***buf;         /* buf[p][2 * k + in] */
  int *nbuf;             /* per part: 2 x its peers, so destroy does not read the borrowed parts */
  host_msg *sends, *recvs;
  int nsend, nrecv, cap;
  size_t moved;
};

static double *host_buffer(void *user, int s, int k, int in) {
  dt_halo_host *h = user;
  return h->buf[s][2 * k + in];
}

static dt_status host_pack(void *user, int s, int k, const dt_halo_span *span, int ncomp,
                           const double *v, double *buf, dt_ctx *ctx) {
  (void)user, (void)s, (void)k, (void)ctx;
  for (int i = 0; i < span->n; i++)
    for (int c = 0; c < ncomp; c++)
      buf[(size_t)i * ncomp + c] = v[(size_t)span->idx[i] * ncomp + c];
  return DT_OK;
}

static dt_status host_unpack(void *user, int s, int k, const dt_halo_span *span, int ncomp,
                             const double *buf, double *v, int add, dt_ctx *ctx) {
  (void)user, (void)s, (void)k, (void)ctx;
  for (int i = 0; i < span->n; i++)
    for (int c = 0; c < ncomp; c++) {
      double *dst = &v[(size_t)span->idx[i] * ncomp + c];
      *dst = add ? *dst + buf[(size_t)i * ncomp + c] : buf[(size_t)i * ncomp + c];
    }
  return DT_OK;
}

static dt_status host_begin(void *user, int ncomp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_halo_host *h = user;
  DT_CHECK(ncomp >= 1 && ncomp <= h->max_ncomp, ctx, DT_ERR_INTERNAL,
           "halo exchange of %d values per node through buffers made for 1 to %d", ncomp,
           h->max_ncomp);
  h->nsend = h->nrecv = 0;
cleanup:
  return rc;
}

static dt_status host_post(dt_halo_host *h, host_msg *q, int *n, host_msg m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(*n < h->cap, ctx, DT_ERR_INTERNAL,
           "halo exchange: more than %d messages posted in one group", h->cap);
  q[(*n)++] = m;
cleanup:
  return rc;
}

static dt_status host_send(void *user, int from, int to, const double *buf, size_t count,
                           dt_ctx *ctx) {
  dt_halo_host *h = user;
  host_msg m = {from, to, (double *)buf, count};
  return host_post(h, h->sends, &h->nsend, m, ctx);
}

static dt_status host_recv(void *user, int to, int from, double *buf, size_t count, dt_ctx *ctx) {
  dt_halo_host *h = user;
  host_msg m = {from, to, buf, count};
  return host_post(h, h->recvs, &h->nrecv, m, ctx);
}

/* Match every receive with the one send of the same (from, to); sizes must agree, as both
 * come from lists of the same nodes. */
static dt_status host_end(void *user, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_halo_host *h = user;
  DT_CHECK(h->nsend == h->nrecv, ctx, DT_ERR_INTERNAL,
           "halo exchange: %d sends posted against %d receives", h->nsend, h->nrecv);
  for (int r = 0; r < h->nrecv; r++) {
    const host_msg *rv = &h->recvs[r], *sd = NULL;
    for (int j = 0; j < h->nsend && !sd; j++)
      if (h->sends[j].from == rv->from && h->sends[j].to == rv->to) sd = &h->sends[j];
    DT_CHECK(sd != NULL, ctx, DT_ERR_INTERNAL,
             "halo exchange: part %d expects values from part %d, which sends none", rv->to,
             rv->from);
    DT_CHECK(sd->count == rv->count, ctx, DT_ERR_INTERNAL,
             "halo exchange: part %d sends %zu values to part %d, which expects %zu", sd->from,
             sd->count, sd->to, rv->count);
    memcpy(rv->buf, sd->buf, rv->count * sizeof *rv->buf);
    h->moved += rv->count;
  }
cleanup:
  return rc;
}

static const dt_halo_ops host_ops = {
    .buffer = host_buffer,
    .pack = host_pack,
    .unpack = host_unpack,
    .group_begin = host_begin,
    .send = host_send,
    .recv = host_recv,
    .group_end = host_end,
};

const dt_halo_ops *dt_halo_host_ops(void) { return &host_ops; }

size_t dt_halo_host_moved(const dt_halo_host *h) { return h->moved; }

dt_status dt_halo_host_create(const dt_part_local *parts, int nparts, int max_ncomp,
                              dt_halo_host **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_halo_host *h = NULL;
  int npeers = 0;
  *out = NULL;
  DT_ALLOC(h, 1, ctx, "the host halo transport");
  h->nparts = nparts;
  h->max_ncomp = max_ncomp;
  DT_ALLOC(h->buf, nparts, ctx, "the halo buffers");
  DT_ALLOC(h->nbuf, nparts, ctx, "the halo buffer counts");
  for (int p = 0; p < nparts; p++) {
    const dt_part_local *l = &parts[p];
    npeers += l->n_peers;
    DT_ALLOC(h->buf[p], 2 * (size_t)l->n_peers + 1, ctx, "a part's halo buffers");
    h->nbuf[p] = 2 * l->n_peers;
    for (int k = 0; k < l->n_peers; k++) {
      int ns = l->send_ptr[k + 1] - l->send_ptr[k], nr = l->recv_ptr[k + 1] - l->recv_ptr[k];
      int n = ns > nr ? ns : nr;
      DT_ALLOC(h->buf[p][2 * k], (size_t)n * (size_t)max_ncomp, ctx, "a halo buffer");
      DT_ALLOC(h->buf[p][2 * k + 1], (size_t)n * (size_t)max_ncomp, ctx, "a halo buffer");
    }
  }
  h->cap = npeers;
  DT_ALLOC(h->sends, npeers, ctx, "the posted sends");
  DT_ALLOC(h->recvs, npeers, ctx, "the posted receives");
  *out = h;
  h = NULL;
cleanup:
  dt_halo_host_destroy(&h);
  return rc;
}

void dt_halo_host_destroy(dt_halo_host **hp) {
  dt_halo_host *h = hp ? *hp : NULL;
  if (!h) return;
  for (int p = 0; h->buf && p < h->nparts; p++) {
    for (int k = 0; h->buf[p] && h->nbuf && k < h->nbuf[p]; k++) dt_free(h->buf[p][k]);
    dt_free(h->buf[p]);
  }
  dt_free(h->buf);
  dt_free(h->nbuf);
  dt_free(h->sends);
  dt_free(h->recvs);
  dt_free(h);
  *hp = NULL;
}
