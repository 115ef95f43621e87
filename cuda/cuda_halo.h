/* Halo transports between parts held on CUDA devices (cuda_halo.cu), for dt_halo_exchange
 * (solver/partition/partition_exchange.h). Included by .cu files only.
 *
 * Generic over slots: each slot is one part of a partition, on a device ordinal, with the
 * stream its owner launches on. Packs, unpacks and transfers of a slot run on that stream, so
 * they order after the owner's kernels that wrote the vector and before those that read it.
 * Two transports share the staging buffers and the pack/unpack kernels:
 *   NCCL:   one communicator per slot (ncclCommInitAll), ncclSend/ncclRecv inside one
 *           ncclGroupStart/ncclGroupEnd; needs NCCL at build time and distinct devices.
 *   staged: each send copied device -> pinned host on the sender's stream, matched on the host
 *           at group end, copied host -> device on the receiver's stream; any devices, several
 *           slots on one device included, and no NCCL. */
#ifndef DT_CUDA_HALO_H
#define DT_CUDA_HALO_H

#include <cuda_runtime.h>

#include "cuda_entry.h"
extern "C" {
#include "../solver/partition/partition_exchange.h"
}

#ifdef DUCTILE_HAVE_NCCL
#include <nccl.h>

/* An NCCL call that jumps to cleanup with DT_ERR_CUDA and NCCL's reason on failure. */
#define NCCL_CHECK(call, ctx)                                                                      \
  do {                                                                                             \
    ncclResult_t nr_ = (call);                                                                     \
    if (nr_ != ncclSuccess) {                                                                      \
      rc = DT_ERROR((ctx), DT_ERR_CUDA, "%s failed: %s", #call, ncclGetErrorString(nr_));          \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)
#endif

typedef enum dt_cuda_halo_kind { DT_CUDA_HALO_NCCL = 0, DT_CUDA_HALO_STAGED = 1 } dt_cuda_halo_kind;

/* One slot: the part (borrowed: read at create only), its device and its owner's stream. */
typedef struct dt_cuda_halo_slot {
  int device;
  cudaStream_t stream;
  const dt_part_local *part;
} dt_cuda_halo_slot;

typedef struct dt_cuda_halo dt_cuda_halo;

/* The transport for n slots on devices[]: NCCL when built with it, n > 1 and every device
 * distinct; else staged. The environment variable DUCTILE_HALO_TRANSPORT (auto, nccl, staged)
 * overrides the choice for tests and comparisons (nccl then fails at create where it cannot
 * run). Errors: DT_ERR_INPUT (another value). */
dt_status dt_cuda_halo_choose(const int *devices, int n, dt_cuda_halo_kind *kind, dt_ctx *ctx);
/* "nccl" or "staged". */
const char *dt_cuda_halo_kind_name(dt_cuda_halo_kind kind);

/* A transport of the given kind between the n slots, staging buffers for up to max_ncomp values
 * per node. Errors: DT_ERR_INPUT (NCCL with a device named twice), DT_ERR_UNSUPPORTED (NCCL in a
 * build without it), DT_ERR_NOMEM, DT_ERR_DEVICE_NOMEM, DT_ERR_CUDA. */
dt_status dt_cuda_halo_create(const dt_cuda_halo_slot *slots, int n, int max_ncomp,
                              dt_cuda_halo_kind kind, dt_cuda_halo **out, dt_ctx *ctx);
/* Frees the buffers, lists and communicators (not the streams, which the slots' owners keep);
 * NULL is ignored. */
void dt_cuda_halo_destroy(dt_cuda_halo *h);
/* The table to pass to dt_halo_exchange with h as user. */
const dt_halo_ops *dt_cuda_halo_ops(const dt_cuda_halo *h);

#ifdef DUCTILE_HAVE_NCCL
/* Slot s's communicator (NCCL transport only; NULL for the staged one), for the collectives a
 * solver adds beside the exchange (cuda_multi.cu's all-reduced dots). */
ncclComm_t dt_cuda_halo_comm(const dt_cuda_halo *h, int s);
#endif

#endif
