/* Checkpoints: the committed state of an analysis after a converged increment, so a run can
 * resume there after a crash without recomputing completed increments.
 *
 * A checkpoint holds the position (step, load factor, next increment size), the run
 * counters, the global vectors the driver needs (u, f_int, f_ext, the step's starting load
 * and displacement), every integration point's committed state, and the output writer's
 * bookkeeping. It is written to "<path>.tmp", flushed to disk and renamed over <path>, so a
 * crash leaves either the previous checkpoint or the new one, never a torn file. It is bound
 * to the model (a hash of mesh, materials and steps) and to this build's layout: a checkpoint
 * of another job or build is refused with a message. */
#ifndef DT_CHECKPOINT_H
#define DT_CHECKPOINT_H

#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "core/results.h"

typedef struct dt_checkpoint {
  uint64_t model_hash;
  int n_dofs, n_qp;
  int step;                /* 0-based step of the last converged increment */
  int increment;           /* increments converged in that step */
  double lambda;           /* load factor reached in that step (1: step finished) */
  double dlambda;          /* size of the next increment */
  double dlambda_prev;     /* size of the last converged increment of the step (0: none) */
  dt_run_summary counters; /* increments, cutbacks, iterations, steps_completed, last_time */
  double *vec;             /* 6 * n_dofs: u, f_int, f_ext, f0 (step start load), u0 (step start
                      displacement), the last converged increment (predictor) */
  double *qp;              /* DT_QP_STATE_DOUBLES * n_qp committed point state */
} dt_checkpoint;

enum { DT_CK_U = 0, DT_CK_FINT, DT_CK_FEXT, DT_CK_F0, DT_CK_UD0, DT_CK_DU_PREV, DT_CK_NVEC };

uint64_t dt_model_hash(const dt_model *m);
/* Allocate the arrays of ck for the given sizes. */
dt_status dt_checkpoint_alloc(dt_checkpoint *ck, int n_dofs, int n_qp, dt_ctx *ctx);
void dt_checkpoint_free(dt_checkpoint *ck);
/* Write ck, then the output writer's state through save_output (may be NULL), atomically. */
dt_status dt_checkpoint_write(const char *path, const dt_checkpoint *ck,
                              dt_status (*save_output)(void *arg, FILE *f, dt_ctx *ctx), void *arg,
                              dt_ctx *ctx);
/* Read a checkpoint written for model_hash; *f_out is left positioned at the output state
 * (the caller reads it and closes the file). Returns DT_ERR_IO if it cannot be read,
 * DT_ERR_INPUT if it belongs to another model or build. */
dt_status dt_checkpoint_read(const char *path, uint64_t model_hash, dt_checkpoint *ck, FILE **f_out,
                             dt_ctx *ctx);

#endif
