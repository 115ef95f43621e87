/* Result output of one analysis run into a directory.
 *
 * A dt_output writes, inside its directory:
 *   history.csv              one row per converged increment, flushed as it is written, so a
 *                            running job's progress can be tailed;
 *   increment_<NNNN>.vtu     VTK XML UnstructuredGrid of the requested fields, binary appended
 *                            as ParaView writes it (raw, UInt64 headers, little-endian; layout
 *                            in output_vtu.c), NNNN the run-wide converged increment number
 *                            (dt_fields.global_increment);
 *   increment_<NNNN>_points.vtu  the same increment's integration-point values, a point cloud;
 *   results.pvd              ParaView collection of every VTU written so far, rewritten whole
 *                            (write to a temporary file, then rename) so it is always valid;
 *   results.dat              a deck's print requests in CalculiX's .dat layout (output_dat.h);
 *   <job name>.frd           when output.frd: CalculiX's ASCII result file (mesh, then per
 *                            written increment its DISP, STRESS, TOSTRAIN, FORC, PE blocks; the
 *                            layout in output_frd.c), at the increments of the VTU files;
 *   summary.json             written by dt_output_close: run summary, per-increment history,
 *                            and per-node-set reactions of the last increment.
 * The driver calls dt_output_open once, dt_output_increment after every converged increment,
 * and dt_output_close at the end, also after a failure (with the summary of what happened).
 *
 * VTU files, results.dat and the .frd are written by a background thread so that the next
 * increment solves meanwhile: dt_output_increment copies the fields it writes and returns;
 * history.csv stays synchronous. Each VTU appears complete (renamed into place) and
 * results.pvd lists it only afterwards; results.dat and the .frd grow by whole increments.
 * The bytes do not depend on timing. At most two writes are pending (their copies of the
 * fields bound the memory); beyond that dt_output_increment waits. A failed write is
 * reported by the next dt_output_increment, dt_output_flush, dt_output_save_state or
 * dt_output_close (DT_ERR_IO naming the file).
 *
 * Field conventions: Voigt (xx, yy, zz, xy, xz, yz) with engineering shear strains, the order
 * of results.h; the VTU arrays name their components so ParaView shows them correctly. Nodal
 * values of integration-point fields are unweighted averages: points -> element mean ->
 * mean over the elements touching the node. MISES is computed at each point, then averaged.
 * The .frd has CalculiX's conventions instead (output_frd.c): its order of the tensor
 * components, tensor shear strains, point values extrapolated to the nodes. */
#ifndef DT_IO_OUTPUT_H
#define DT_IO_OUTPUT_H

#include "model/model.h"
#include "core/results.h"

/* Version of the layout of summary.json and history.csv; bump on incompatible change. */
#define DT_OUTPUT_FORMAT_VERSION 1

typedef struct dt_output dt_output;

/* Create `dir` (and its missing parents, like mkdir -p) and start history.csv with its header:
 *   step,increment,time,load_factor,newton_iterations,pcg_iterations,residual,cutbacks,
 *   plastic_points[,<monitor name>...]
 * job_name names the files CalculiX names after the job: <job_name>.frd (NULL or "":
 * "results"); a .frd of that name left in dir is removed when m asks for one. m is borrowed
 * for the call only, but a model with print requests or output.frd must stay unchanged until
 * dt_output_close (the writer thread reads it). On success *out owns the writer (free with
 * dt_output_close). Errors: DT_ERR_IO naming the path that could not be created or opened;
 * DT_ERR_INPUT if the model has more than DT_MAX_MONITORS monitors, job_name holds a '/', or
 * (output.frd) a node or element id needs more than the .frd's 10 digits; DT_ERR_NOMEM. */
dt_status dt_output_open(const char *dir, const char *job_name, const dt_model *m, dt_output **out,
                         dt_ctx *ctx);

/* Write an increment's files (its VTUs, results.dat's blocks, the .frd's blocks) with a team of
 * `threads` OpenMP threads (1 by default: one file after the other on the writer thread): the
 * kinds of file side by side, and within each its nodal sums and number formatting in
 * parallel. For a device backend, whose solve leaves the host's cores idle while the writer
 * works, so that the writer keeps pace with fast increments. The files and their bytes are
 * the same for any number of threads. */
void dt_output_writer_threads(dt_output *o, int threads);

/* Record one converged increment: append `row` to history.csv (numbers as %.17g, so they read
 * back exactly) and flush; remember the row for summary.json; remember, for every node set of
 * m, the total reaction (sum of f->rf) and the mean displacement (of f->u) for summary.json.
 * If write_fields is nonzero, also queue increment_<NNNN>.vtu with the fields that are both
 * present in f (non-NULL) and requested in m->output.fields (and the point cloud of the point
 * fields present), then the rewrite of results.pvd; with m->output.frd, at the same increments
 * (output.every, a step's end), the increment's .frd blocks; the files are written in the
 * background.
 * f and row are borrowed for the call only (what the files need is copied). The mesh of m is
 * copied at the first VTU and must not change afterwards. row->n_monitors must equal
 * m->output.n_monitors.
 * Errors: DT_ERR_IO (names the file; also for an earlier increment's VTU), DT_ERR_NOMEM,
 * DT_ERR_INTERNAL if f does not match m. */
dt_status dt_output_increment(dt_output *o, const dt_model *m, const dt_fields *f,
                              const dt_history_row *row, int write_fields, dt_ctx *ctx);

/* Whether the fields (a VTU) of a converged increment are written: m->output.vtu, and the
 * increment is the last of its step or its run-wide number global_increment is a multiple
 * of m->output.every. The driver passes this to dt_output_increment; a caller that lists the
 * increments with a VTU (the daemon) asks it too, since the file may still be being written
 * when dt_output_increment has returned. */
int dt_output_fields_due(const dt_model *m, int global_increment, int last_of_step);

/* Wait until every queued VTU write is complete. NULL-safe. Errors: DT_ERR_IO (a write that
 * failed, naming the file). */
dt_status dt_output_flush(dt_output *o, dt_ctx *ctx);

/* Wait for the pending VTU writes, write summary.json from s (if s is not NULL; pass NULL to
 * just release the writer on an error path), close history.csv, free the writer and set *o to
 * NULL. NULL-safe (o or *o). The writer is freed even when an error is returned.
 * Errors: DT_ERR_IO (also a failed VTU write), DT_ERR_NOMEM. */
dt_status dt_output_close(dt_output **o, const dt_model *m, const dt_run_summary *s, dt_ctx *ctx);

/* Element means of an integration-point field: elem_out[e*ncomp + c] is the unweighted mean
 * over the points qp_ptr[e] .. qp_ptr[e+1]-1 of qp_values[q*ncomp + c] (0 for an element
 * without points). qp_values is point-major, ncomp values per point. */
void dt_fields_element_average(const dt_fields *f, const double *qp_values, int ncomp,
                               double *elem_out);

/* Nodal average of an integration-point field: element means (above), then at each node the
 * unweighted mean over the elements (with points) whose connectivity contains the node.
 * nodal_out holds ncomp * m->n_nodes values; a node in no element gets 0.
 * Errors: DT_ERR_INTERNAL if f's element count or qp_ptr does not match m; DT_ERR_NOMEM. */
dt_status dt_fields_nodal_average(const dt_model *m, const dt_fields *f, const double *qp_values,
                                  int ncomp, double *nodal_out, dt_ctx *ctx);

/* Checkpoint support. dt_output_save_state waits for the pending VTU writes (a checkpoint
 * never lists a file that is not complete), then appends the writer's bookkeeping (history
 * rows, VTU list, the .frd's length and counters) to f; dt_output_open_resume reopens a writer
 * in dir from such a record, rewriting history.csv and results.pvd and cutting the .frd back
 * to match it exactly (rows and blocks written after the checkpoint are dropped, since those
 * increments will be computed again). DT_OUTPUT_STATE_LAYOUT numbers the record's layout
 * (checkpoint.c refuses a checkpoint of another). */
#define DT_OUTPUT_STATE_LAYOUT 2
dt_status dt_output_save_state(dt_output *o, FILE *f, dt_ctx *ctx);
dt_status dt_output_open_resume(const char *dir, const char *job_name, const dt_model *m,
                                FILE *state, dt_output **out, dt_ctx *ctx);

#endif
