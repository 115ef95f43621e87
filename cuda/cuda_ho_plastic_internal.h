/* The Newton corrections' PCG of order-P plasticity on one device (cuda_ho_plastic_pcg.cu), used
 * by cuda_ho_plastic.cu. It is ho_pcg.c's loop (lifting by the prescribed values, masking of the
 * fixed DOFs, the same stopping rule, errors and indefinite flag) with every vector on the device
 * and the scalars formed on the device in a control block, so nothing crosses to the host inside
 * an iteration: the host queues a batch of iterations and reads the control block (72 bytes)
 * once per batch. Dot products run on a fixed grid and finish in one block in a fixed order, so
 * two solves give the same bits. */
#ifndef DT_CUDA_HO_PLASTIC_INTERNAL_H
#define DT_CUDA_HO_PLASTIC_INTERNAL_H

#include "cuda_highorder_internal.h"
extern "C" {
#include "../solver/highorder/ho_pcg.h"
}

/* y = K x on device vectors in the solver's stream; *d_skip != 0 (device) lets the product
 * return at once (the PCG has stopped: its queued iterations are void), d_skip may be NULL. */
typedef dt_status (*hp_apply_fn)(void *op, const double *d_x, double *d_y, const int *d_skip,
                                 dt_ctx *ctx);

typedef struct hp_pcg {
  size_t n;
  cudaStream_t stream;              /* borrowed: the operator's */
  double *r, *z, *p, *Ap, *partial; /* n each; partial: 2 x HP_DOT_BLOCKS */
  void *ctl, *ctl_host;             /* device control block and its pinned host copy */
  int *bad;                         /* first free DOF with a non-positive diagonal entry */
  cudaEvent_t joined[2];            /* orders a preconditioner's stream with ours */
  size_t bytes;
} hp_pcg;

/* Work space for n DOFs in `stream`. Errors: DT_ERR_DEVICE_NOMEM, DT_ERR_CUDA. */
dt_status hp_pcg_create(hp_pcg *s, size_t n, cudaStream_t stream, dt_ctx *ctx);
void hp_pcg_free(hp_pcg *s);

/* dt_ho_pcg_solve (pc NULL: Jacobi with d_diag, checked positive on the free DOFs) or
 * dt_ho_pcg_solve_pc (pc(pc_data, r, z) in pc_stream, joined to ours by events) on device
 * vectors: K u = b on the free DOFs, d_u in (prescribed values, guess) and out. Errors and
 * res as there. */
dt_status hp_pcg_solve(hp_pcg *s, hp_apply_fn apply, void *op, const double *d_diag,
                       dt_cuda_ho_pc_fn pc, void *pc_data, cudaStream_t pc_stream,
                       const unsigned char *d_fixed, const double *d_b, double *d_u,
                       const dt_ho_pcg_opts *opts, dt_ho_pcg_result *res, dt_ctx *ctx);

#endif
