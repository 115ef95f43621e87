/* Downloading the results of a converged increment into host arrays (dt_fields). */
#ifndef DT_FIELDS_H
#define DT_FIELDS_H

#include "backend/backend.h"
#include "model/model.h"

/* Allocate f's arrays for the fields requested in m->output.fields, and fill the
 * integration-point coordinates (they never change). */
dt_status dt_fields_alloc(const dt_model *m, const dt_problem *pb, dt_fields *f, dt_ctx *ctx);
/* Fill f from the backend's committed state: displacements from DT_VEC_U, reactions
 * (f_int - f_ext on constrained DOFs, via DT_VEC_W as scratch), and the point fields. */
dt_status dt_fields_download(const dt_model *m, const dt_backend_ops *o, void *impl, dt_fields *f,
                             double *scratch, dt_ctx *ctx);
/* Evaluate the model's monitors on f into row->monitor. */
void dt_fields_monitors(const dt_model *m, const dt_fields *f, dt_history_row *row);

#endif
