/* Result output of one analysis run into a directory.
 *
 * A dt_output writes, inside its directory:
 *   history.csv              one row per converged increment, flushed as it is written, so a
 *                            running job's progress can be tailed;
 *   increment_<NNNN>.vtu     VTK XML UnstructuredGrid (ASCII) of the requested fields, NNNN
 *                            the run-wide converged increment number (dt_fields.global_increment);
 *   results.pvd              ParaView collection of every VTU written so far, rewritten whole
 *                            (write to a temporary file, then rename) so it is always valid;
 *   summary.json             written by dt_output_close: run summary, per-increment history,
 *                            and per-node-set reactions of the last increment.
 * The driver calls dt_output_open once, dt_output_increment after every converged increment,
 * and dt_output_close at the end, also after a failure (with the summary of what happened).
 *
 * Field conventions: Voigt (xx, yy, zz, xy, xz, yz) with engineering shear strains, the order
 * of results.h; the VTU arrays name their components so ParaView shows them correctly. Nodal
 * values of integration-point fields are unweighted averages: points -> element mean ->
 * mean over the elements touching the node. MISES is computed at each point, then averaged. */
#ifndef DT_IO_OUTPUT_H
#define DT_IO_OUTPUT_H

#include "model.h"
#include "results.h"

/* Version of the layout of summary.json and history.csv; bump on incompatible change. */
#define DT_OUTPUT_FORMAT_VERSION 1

typedef struct dt_output dt_output;

/* Create `dir` (and its missing parents, like mkdir -p) and start history.csv with its header:
 *   step,increment,time,load_factor,newton_iterations,pcg_iterations,residual,cutbacks,
 *   plastic_points[,<monitor name>...]
 * m is borrowed for the call only. On success *out owns the writer (free with
 * dt_output_close). Errors: DT_ERR_IO naming the path that could not be created or opened;
 * DT_ERR_INPUT if the model has more than DT_MAX_MONITORS monitors; DT_ERR_NOMEM. */
dt_status dt_output_open(const char *dir, const dt_model *m, dt_output **out, dt_ctx *ctx);

/* Record one converged increment: append `row` to history.csv (numbers as %.17g, so they read
 * back exactly) and flush; remember the row for summary.json; remember, for every node set of
 * m, the total reaction (sum of f->rf) and the mean displacement (of f->u) for summary.json.
 * If write_fields is nonzero, also write increment_<NNNN>.vtu with the fields that are both
 * present in f (non-NULL) and requested in m->output.fields, and rewrite results.pvd.
 * f and row are borrowed. row->n_monitors must equal m->output.n_monitors.
 * Errors: DT_ERR_IO (names the file), DT_ERR_NOMEM, DT_ERR_INTERNAL if f does not match m. */
dt_status dt_output_increment(dt_output *o, const dt_model *m, const dt_fields *f,
                              const dt_history_row *row, int write_fields, dt_ctx *ctx);

/* Write summary.json from s (if s is not NULL; pass NULL to just release the writer on an
 * error path), close history.csv, free the writer and set *o to NULL. NULL-safe (o or *o).
 * The writer is freed even when an error is returned. Errors: DT_ERR_IO, DT_ERR_NOMEM. */
dt_status dt_output_close(dt_output **o, const dt_model *m, const dt_run_summary *s,
                          dt_ctx *ctx);

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

/* Checkpoint support. dt_output_save_state appends the writer's bookkeeping (history rows,
 * VTU list) to f; dt_output_open_resume reopens a writer in dir from such a record, rewriting
 * history.csv and results.pvd to match it exactly (rows written after the checkpoint are
 * dropped, since those increments will be computed again). */
dt_status dt_output_save_state(const dt_output *o, FILE *f, dt_ctx *ctx);
dt_status dt_output_open_resume(const char *dir, const dt_model *m, FILE *state, dt_output **out,
                                dt_ctx *ctx);

#endif
