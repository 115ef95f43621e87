/* Halo exchange of node values between parts (partition.h), values only.
 *
 * The driver, dt_halo_exchange, is the same for every transport: it opens a group, packs each
 * peer's values into a staging buffer, posts one send and one receive per peer, closes the
 * group (every transfer complete), and unpacks. A transport supplies the buffers, pack/unpack and the moves through a
 * dt_halo_ops table. The host transport here (all parts in one process, memcpy between their
 * buffers) serves the tests; an NCCL transport replaces only the table: device buffers,
 * pack/unpack kernels over device copies of the lists, ncclSend/ncclRecv between
 * ncclGroupStart/ncclGroupEnd (no deadlock ordering needed, digest §7.1 item 6).
 *
 * Two exchanges:
 *   copy: each ghost takes its owner's value (before an operator apply);
 *   sum:  each owner adds the ghosts' values to its own, then the ghosts take the total (a
 *         vector assembled part by part, e.g. an operator apply's result).
 * Vectors are node-major with ncomp values per node, over the part's local nodes. */
#ifndef DT_PARTITION_EXCHANGE_H
#define DT_PARTITION_EXCHANGE_H

#include <stddef.h>

#include "partition.h"

typedef enum dt_halo_mode { DT_HALO_COPY = 0, DT_HALO_SUM = 1 } dt_halo_mode;

/* Which of a part's lists a pack or unpack walks (dt_part_local send_idx or recv_idx). */
typedef enum dt_halo_list { DT_HALO_SEND_LIST = 0, DT_HALO_RECV_LIST = 1 } dt_halo_list;

/* The entries of one peer's list: idx[i] = list[first + i], i < n. idx points into the part's
 * host list; a transport that keeps its own copies of the lists (on a device) reads
 * list and first instead. */
typedef struct dt_halo_span {
  dt_halo_list list;
  int first, n;
  const int *idx;
} dt_halo_span;

/* A transport. s is the slot of a part among those this process drives (0 .. nslots-1), k the
 * peer index in that part's peer[]; parts are named by their part ids in send/recv. */
typedef struct dt_halo_ops {
  /* The staging buffer of (s, k), outgoing (in = 0) or incoming (in = 1), holding at least
     the list's length x ncomp values. */
  double *(*buffer)(void *user, int s, int k, int in);
  /* buf[i * ncomp + c] = v[idx[i] * ncomp + c], i < n */
  dt_status (*pack)(void *user, int s, int k, const dt_halo_span *span, int ncomp, const double *v,
                    double *buf, dt_ctx *ctx);
  /* v[idx[i] * ncomp + c] = buf[..] (add = 0) or += buf[..] (add = 1) */
  dt_status (*unpack)(void *user, int s, int k, const dt_halo_span *span, int ncomp,
                      const double *buf, double *v, int add, dt_ctx *ctx);
  /* a phase of ncomp values per node begins, before any pack (ncclGroupStart; the host
     transport checks ncomp against its buffers) */
  dt_status (*group_begin)(void *user, int ncomp, dt_ctx *ctx);
  /* post: count values of buf from part `from` to part `to` */
  dt_status (*send)(void *user, int from, int to, const double *buf, size_t count, dt_ctx *ctx);
  /* post: count values into buf for part `to` from part `from` */
  dt_status (*recv)(void *user, int to, int from, double *buf, size_t count, dt_ctx *ctx);
  /* every posted send and receive has completed */
  dt_status (*group_end)(void *user, dt_ctx *ctx);
} dt_halo_ops;

/* Exchange v between the nslots parts this process drives (parts[s] and v[s] for slot s).
 * With several processes each passes its own parts; the transport connects them.
 * Errors: those of the transport. */
dt_status dt_halo_exchange(const dt_part_local *parts, int nslots, double *const *v, int ncomp,
                           dt_halo_mode mode, const dt_halo_ops *ops, void *user, dt_ctx *ctx);

/* The host transport: all parts in one process, messages matched by (from, to) and copied at
 * group end. Staging buffers sized for up to max_ncomp values per node. Owned; destroy frees. */
typedef struct dt_halo_host dt_halo_host;

dt_status dt_halo_host_create(const dt_part_local *parts, int nparts, int max_ncomp,
                              dt_halo_host **out, dt_ctx *ctx);
void dt_halo_host_destroy(dt_halo_host **h);
/* The table to pass to dt_halo_exchange with the dt_halo_host as user. */
const dt_halo_ops *dt_halo_host_ops(void);
/* Values moved by the host transport since creation (for tests of the message volume). */
size_t dt_halo_host_moved(const dt_halo_host *h);

#endif
