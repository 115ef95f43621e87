/* Checkpoints of order-P static runs: after a converged increment, what a run needs to go on
 * from the next one without computing the converged ones again (dt_ho_newton_opts's
 * first_increment): the displacement u, the committed state of every Gauss point (history,
 * stress and strain, ho_plastic.h) and a row per converged increment (the Newton report's and
 * history.csv's).
 *
 * The file is a fixed header (magic, format version, sizes, the increments it holds, a hash
 * of the job and mesh the caller computes), the rows, then the arrays, raw native doubles
 * (checkpoints restart a run on the same machine; they are not for exchange), and a checksum
 * of everything before it. It is written to "<path>.tmp", flushed to disk (fsync) and renamed
 * over path, so a crash leaves the previous checkpoint or the new one, never a torn file. A
 * reader refuses a file that is not one, of another format version, of other sizes or hash
 * (another job, another mesh or order), truncated or longer, or whose checksum differs
 * (corrupt), and says which. */
#ifndef DT_HO_CHECKPOINT_H
#define DT_HO_CHECKPOINT_H

#include <stdint.h>

#include "core/dt_status.h"
#include "highorder/ho_plastic.h"

/* One converged increment. */
typedef struct dt_ho_checkpoint_row {
  int newton;      /* Newton corrections */
  int pcg;         /* PCG iterations over them */
  double residual; /* the last relative residual */
  long plastic;    /* plastic points at convergence */
} dt_ho_checkpoint_row;

/* The header and rows of a checkpoint. */
typedef struct dt_ho_checkpoint {
  int order, nq, n_elems, n_nodes; /* the run's mesh and Gauss points per direction */
  int n_increments;                /* of the step */
  int kept;                        /* increments converged, 1..n_increments */
  uint64_t hash;                   /* the caller's hash of job and mesh */
  dt_ho_checkpoint_row row[DT_HO_NEWTON_MAX_INCREMENTS]; /* kept rows */
} dt_ho_checkpoint;

/* Writes ck, u (3 n_nodes) and pl's committed state to path atomically (see above); pl's
 * sizes must be ck's. Errors: DT_ERR_IO naming the file, DT_ERR_INPUT for sizes that differ. */
dt_status dt_ho_checkpoint_write(const char *path, const dt_ho_checkpoint *ck, const double *u,
                                 const dt_ho_plastic *pl, dt_ctx *ctx);

/* Reads the checkpoint at path into ck after checking it against expect (order, nq, n_elems,
 * n_nodes, n_increments and hash; kept and rows ignored) and its checksum. With u and pl
 * (both or neither) the arrays are loaded too: u (3 n_nodes), pl's committed state, and its
 * trial state set to it. Errors: DT_ERR_IO when the file cannot be opened or read; DT_ERR_INPUT
 * with the reason when it is refused (u and pl then partly overwritten: start over). */
dt_status dt_ho_checkpoint_read(const char *path, const dt_ho_checkpoint *expect,
                                dt_ho_checkpoint *ck, double *u, dt_ho_plastic *pl, dt_ctx *ctx);

#endif
