/* Private to highorder/ho_job*.c: the state of one order-P job run and the steps its files
 * share (the keys, the result files, the checkpoints). */
#ifndef DT_HO_JOB_INTERNAL_H
#define DT_HO_JOB_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "core/dt_status.h"
#include "core/intern.h"
#include "highorder/ho_checkpoint.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_job.h"
#include "highorder/ho_mesh_gmsh.h"
#include "highorder/ho_plastic.h"
#include "highorder/ho_pmg.h"
#include "highorder/ho_vtu.h"
#include "model/model.h"

/* The result files of a run (ho_job_output.c): history.csv, the VTUs and results.pvd. */
typedef struct ho_output {
  int vtu, every;                                      /* the job's output.vtu and output.every */
  unsigned fields;                                     /* DT_OUT_* of output.fields */
  FILE *history;                                       /* history.csv, open for appending rows */
  dt_ho_vtu v;                                         /* the mesh in VTK's terms (vtu only) */
  double *fint, *rf, *s, *e, *peeq, *mises, *qp_mises; /* the nodal arrays of a VTU */
  int pcg_before; /* the report's PCG total before the increment that runs */
} ho_output;

typedef struct ho_run {
  const char *job;
  const dt_ho_job_options *o;
  dt_model *model;
  const dt_step *step;
  dt_ho_mesh m;
  dt_ho_gmsh_groups G;
  dt_ho_elastic el;
  dt_ho_plastic pl;
  dt_ho_pmg pmg;
  int have_pmg;
  int *elem_mat;
  unsigned char *fixed;
  double *lam, *mu, *u, *u_presc, *f, *fint;
  double seconds_job, seconds_mesh, seconds_ops; /* set-up phases, for the log */
  dt_ho_newton_report rep;
  uint64_t hash;       /* of the job and the mesh, which binds a checkpoint to them */
  dt_ho_checkpoint ck; /* the rows of the converged increments (and what a checkpoint holds) */
  int kept;            /* increments restored from a checkpoint */
  ho_output out;
  dt_status failed;  /* a result file or checkpoint that could not be written ... */
  dt_ctx failed_ctx; /* ... in the progress callback, which stops the run */
} ho_run;

/* Refuses, by name, every key of the JSON job at path outside the order-P subset (ho_job.h);
 * DT_OK for a file that cannot be read or parsed (the job parser reports those). */
DT_INTERN dt_status ho_job_check_keys(const char *path, dt_ctx *ctx);

/* The hash of the run's job (its parsed model, order, step and solver options, output keys)
 * and order-P mesh, and the expected header of its checkpoints (ck's sizes). */
DT_INTERN void ho_job_hash(ho_run *r);

/* Restores the checkpoint at o->checkpoint into r (u, the state, the rows and the report of
 * its increments: r->kept) and tells o->resumed. Errors: those of dt_ho_checkpoint_read. */
DT_INTERN dt_status ho_job_restore(ho_run *r, dt_ctx *ctx);
/* Writes the checkpoint of the increments in r->ck with displacement u. */
DT_INTERN dt_status ho_job_save(ho_run *r, const double *u, dt_ctx *ctx);

/* Opens the result files in o->outdir: history.csv anew with the kept rows (r->ck, r->kept)
 * and, for VTU output, the mesh's VTK form. Errors: DT_ERR_IO, DT_ERR_NOMEM. */
DT_INTERN dt_status ho_output_open(ho_run *r, dt_ctx *ctx);
/* Increment ev (DT_HO_INCREMENT_DONE) converged: its row (r->ck and history.csv), its VTU and
 * results.pvd when due. Errors: DT_ERR_IO, DT_ERR_NOMEM. */
DT_INTERN dt_status ho_output_increment(ho_run *r, const dt_ho_progress *ev, dt_ctx *ctx);
DT_INTERN void ho_output_close(ho_run *r);
/* summary.json's "files" as the hex8 path's: history, collection, vtu, frd. */
DT_INTERN struct json_t *ho_output_files(const ho_run *r);

#endif
