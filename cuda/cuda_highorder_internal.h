/* The order-P elasticity operator on one device (cuda_highorder.cu), as the multi-GPU solver
 * (cuda_multi.cu) uses it: the operator's arrays and its two vectors u and v, on which
 * dt_cuda_ho_apply_device computes v = K u in the operator's stream. */
#ifndef DT_CUDA_HIGHORDER_INTERNAL_H
#define DT_CUDA_HIGHORDER_INTERNAL_H

#include "cuda_check.h"
#include "cuda_entry.h"
extern "C" {
#include "../solver/highorder/ho_elastic.h"
}

struct dt_cuda_ho {
  int device, P1, Q, n_elems, n_nodes, n_colors, ne; /* ne: elements per block */
  int *h_color_ptr;                                  /* host copy */
  int *color_elems, *elem_nodes;
  double *qdata, *lambda, *mu, *tables; /* tables: B then G, Q x P1 each */
  double *u, *v;                        /* 3 n_nodes each */
  size_t shared_bytes, bytes;
  cudaStream_t stream;
};

/* v = K u on the device vectors h->u and h->v (v overwritten), colour after colour, queued in
 * h->stream (the current device must be h->device). */
dt_status dt_cuda_ho_apply_device(dt_cuda_ho *h, dt_ctx *ctx);

#endif
