/* Job documents as the daemon receives them: the job format of docs/job-format.md, where the
 * "mesh" object may be replaced by "mesh_id" naming an uploaded mesh. Both the submission
 * handler (to validate completely before accepting) and the worker (to run) resolve the
 * document the same way: mesh_id -> the stored mesh, then dt_parse_job_string; a stored Gmsh
 * mesh (<data>/meshes/<id>.msh) is read with dt_gmsh_read_file and the job (without "mesh")
 * attached to it with dt_parse_job_file_with_mesh, as `ductile-solve mesh.msh --job job.json`.
 * Uploaded files keep the server's paths out of messages: they name the file by `origin`
 * (the client's file name or a default), e.g. "bracket.msh:13: element 1 must have 4 nodes".
 *
 * A stored Gmsh mesh of order-P hexahedra (order 2..8, the mesh's "order") takes the order-P
 * solver instead (solver/highorder/ho_job.h): dt_spec_ho_build validates a job on it with
 * dt_ho_job_check, the solver's own check, and no dt_model is built for the daemon. */
#ifndef DT_SRV_JOBSPEC_H
#define DT_SRV_JOBSPEC_H

#include <jansson.h>

#include "ductile.h"
#include "highorder/ho_job.h"
#include "status.h"

/* Where in the upload a validation error is, for the reply's details. */
typedef struct dt_spec_where {
  char path[256]; /* JSON path of the culprit when known, else "" */
  int line;       /* line in an uploaded .msh / .inp file when known, else 0 */
  int no_mesh;    /* the error is that mesh_id names no stored mesh */
} dt_spec_where;

/* Each function below returns DT_ERR_INPUT, with the solver's message in ctx and where filled,
 * when the upload is invalid; DT_ERR_DB when the store fails; DT_ERR_INTERNAL or DT_ERR_NOMEM
 * when the daemon cannot read or copy its own files (those are never the upload's fault). */

/* Resolve and validate doc (borrowed). mesh_id receives the referenced mesh ("" if inline),
 * which must belong to mesh_owner (DT_ANY_OWNER: any user): another user's mesh is "no mesh",
 * as a missing one (where->no_mesh). On success *model is a validated model (caller destroys);
 * a job on a stored mesh without a "title" has the mesh's name as its title, else its id. */
dt_status dt_spec_build(const json_t *doc, const char *data_dir, long long mesh_owner,
                        char *mesh_id, size_t mesh_id_len, dt_model **model, dt_spec_where *where,
                        dt_ctx *ctx);

/* The stored mesh a job document names by mesh_id (of mesh_owner, as dt_spec_build looks it
 * up): its id into mesh_id and its file into path (<data>/meshes/<id>.json or .msh), to be
 * sized before the job is built; both "" when doc names none (an inline mesh, or a document
 * dt_spec_build refuses). A mesh_id that is malformed or names no mesh is DT_ERR_INPUT with
 * where set, as in dt_spec_build. */
dt_status dt_spec_stored_mesh(const json_t *doc, const char *data_dir, long long mesh_owner,
                              char *mesh_id, size_t mesh_id_len, char *path, size_t path_len,
                              dt_spec_where *where, dt_ctx *ctx);

/* Validate an uploaded mesh object by parsing a probe job around it (one elastic material
 * over all elements, one empty step), so a mesh gets the same checks as in a job: ids, sets,
 * surfaces, element geometry. Fills dim, node and element counts. */
dt_status dt_spec_mesh_check(const json_t *mesh, int *dim, int *n_nodes, int *n_elements,
                             dt_spec_where *where, dt_ctx *ctx);

/* Validate an uploaded Gmsh mesh file (path) by importing it, which also checks it as a JSON
 * mesh is checked (dt_model_check_mesh: finite coordinates, no flat or folded element) and
 * refuses physical names that are not UTF-8; origin names it in messages. A file of order-P
 * hexahedra (order 2..8, dt_ho_gmsh_file_order) is read by the order-P reader instead
 * (ho_mesh_gmsh.h: every hexahedron's Jacobian, its groups): *order receives its order, its
 * nodes and hexahedra the counts; 0 for any other file. */
dt_status dt_spec_msh_check(const char *path, const char *origin, int *dim, int *n_nodes,
                            int *n_elements, int *order, dt_spec_where *where, dt_ctx *ctx);

/* A job on a stored order-P mesh, resolved and validated (see above). */
typedef struct dt_spec_ho {
  int order;           /* the mesh's order; 0: the job is not on an order-P mesh */
  char msh[4200];      /* the mesh's file */
  char job[4200];      /* keep_job: the job without mesh_id, a file the caller removes; else "" */
  char origin[40];     /* "<mesh id>.msh": the mesh in messages */
  char title[256];     /* the job's title, else the mesh's name, else its id */
  dt_ho_job_info info; /* sizes and memory estimate (dt_ho_job_check) */
} dt_spec_ho;

/* When doc names a stored order-P mesh of mesh_owner (mesh_id, as dt_spec_build looks it up):
 * validates it with dt_ho_job_check and fills ho (ho->order > 0), the job's messages naming
 * "job" and the mesh by ho->origin, the culprit's JSON path in where->path. Otherwise DT_OK with
 * ho->order 0 and nothing else done: dt_spec_build resolves the document (and says what is wrong
 * with one that names no stored mesh correctly). keep_job: the job document without mesh_id
 * stays in a temporary file, ho->job, for dt_ho_job_run. */
dt_status dt_spec_ho_build(const json_t *doc, const char *data_dir, long long mesh_owner,
                           int keep_job, char *mesh_id, size_t mesh_id_len, dt_spec_ho *ho,
                           dt_spec_where *where, dt_ctx *ctx);
/* A message of the order-P solver on ho's files, as a client reads it (in place): the job's
 * temporary file named "job", the mesh's file ho->origin. */
void dt_spec_ho_message(const dt_spec_ho *ho, char *msg, size_t len);

/* Build the model of an uploaded Abaqus/CalculiX deck. *INCLUDE is refused (DT_ERR_INPUT
 * with its line): an uploaded deck must not make the daemon read files of its own; so is a line
 * that is not UTF-8 (the importer's rule). The title is the *HEADING, "" without one. warnings
 * (may be NULL) receives the importer's warnings as strings. */
dt_status dt_spec_deck_build(const char *path, const char *origin, json_t *warnings,
                             dt_model **model, dt_spec_where *where, dt_ctx *ctx);

/* The fewest converged increments the model's steps can take: a fixed step's increments, and
 * 1/inc_max (rounded up) for an automatic step, whose cutbacks may add more at run time. The
 * daemon refuses a job above max_job_increments with it, and stops one whose run goes past. */
long long dt_spec_min_increments(const dt_model *m);

#endif
