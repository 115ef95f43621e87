/* The versioned JSON job format (docs/job-format.md, schema/job.schema.json).
 *
 * A job file holds the mesh, materials, sections, load steps and solver/output options. The
 * parser builds a dt_model and then calls dt_model_finish, so a model returned here is fully
 * validated. Every input error is DT_ERR_INPUT with a message of the form
 *   "<origin>: <JSON path>: <what is wrong>"   e.g. "job.json: materials[1].elastic.nu: must be < 0.5 (got 0.5)"
 * or, for syntax errors, "<origin>:<line>:<column>: <message>". */
#ifndef DT_JOB_JSON_H
#define DT_JOB_JSON_H

#include <stddef.h>

#include "model/model.h"

/* Parse a job file.
 *   path: file to read; also used as the origin in messages.
 *   out:  on success a new model owned by the caller (dt_model_destroy); NULL on failure.
 * Errors: DT_ERR_IO (cannot open/read), DT_ERR_INPUT (invalid job), DT_ERR_NOMEM. */
dt_status dt_parse_job_file(const char *path, dt_model **out, dt_ctx *ctx);

/* Parse a job from memory.
 *   text, len: the JSON text (need not be NUL-terminated).
 *   origin:    name used in messages (a file name, "request body"); NULL means "job".
 *   out:       as for dt_parse_job_file. */
dt_status dt_parse_job_string(const char *text, size_t len, const char *origin, dt_model **out,
                              dt_ctx *ctx);

/* Complete a mesh-only model (e.g. from dt_gmsh_read_file) with a job file that has no "mesh":
 * its materials, sections, steps, solver and output options refer to the mesh's sets and
 * surfaces by name (solver/io/job_json_attach.c). On success mesh_model is a validated model
 * (dt_model_finish); on failure it is partly filled and the caller still destroys it.
 * Errors: DT_ERR_IO, DT_ERR_INPUT ("path: json.path: message"), DT_ERR_NOMEM. */
dt_status dt_parse_job_file_with_mesh(const char *path, dt_model *mesh_model, dt_ctx *ctx);

#endif
