/* Importers for meshes and decks written by other tools: Gmsh .msh and Abaqus/CalculiX .inp.
 *
 * Both produce the same dt_model as the JSON job format (job_json.h), so every backend, the
 * CLI and the daemon accept them. A deck (.inp) is a complete job and is validated with
 * dt_model_finish; a Gmsh mesh holds only the mesh and its physical groups and is completed by
 * a JSON job without "mesh" (dt_parse_job_file_with_mesh). Input errors are DT_ERR_INPUT with
 * a message "file:line: reason" (for an *INCLUDE, the included file and its line). What is
 * supported, and how names map: docs/interop.md. */
#ifndef DT_IO_IMPORT_H
#define DT_IO_IMPORT_H

#include "model/model.h"

/* Receives each warning (a translation that is faithful but not exact, e.g. C3D8R read as a
 * fully integrated hex8). msg is borrowed for the call. */
typedef void (*dt_import_warn_fn)(const char *msg, void *user);

typedef struct dt_import_options {
  dt_import_warn_fn warn; /* NULL: warnings are dropped */
  void *user;
} dt_import_options;

/* Read an Abaqus/CalculiX deck (the subset of docs/interop.md) into a validated model. Every
 * line but comments must be UTF-8 (the title and names go into JSON outputs); the title is the
 * first line of *HEADING, cut to 255 bytes between characters, else the path.
 *   path: the deck; *INCLUDE paths are relative to the including file's folder.
 *   opt:  may be NULL.
 *   out:  on success a new model owned by the caller (dt_model_destroy); NULL on failure.
 * Errors: DT_ERR_IO (cannot open a file), DT_ERR_INPUT ("file:line: reason"), DT_ERR_NOMEM. */
dt_status dt_inp_parse_file(const char *path, const dt_import_options *opt, dt_model **out,
                            dt_ctx *ctx);

/* Read a Gmsh mesh (format 4.1 or 2.2, ASCII or binary): nodes, the supported elements of the
 * highest dimension present, and physical groups as sets and surfaces (docs/interop.md). The
 * model is NOT finished: it has no materials, sections or steps; elements are reoriented to
 * positive Jacobians, and the mesh passes dt_model_check_mesh (finite coordinates, no flat or
 * folded element: "file: element 7 (tet4) is inverted or degenerate ..."). Physical names must
 * be UTF-8. out as above. Errors: DT_ERR_IO, DT_ERR_INPUT, DT_ERR_NOMEM. */
dt_status dt_gmsh_read_file(const char *path, const dt_import_options *opt, dt_model **out,
                            dt_ctx *ctx);

/* dt_gmsh_read_file for the order-P path (highorder/ho_job.h): Lagrange hexahedra of any order
 * (Gmsh types 5, 12, 92-97) are read as the hex8 of their 8 corner nodes, and physical groups
 * keep only the corner nodes, so a JSON job can be attached and validated on the corner mesh
 * while the order-P mesh itself comes from highorder/ho_mesh_gmsh.h. */
dt_status dt_gmsh_read_corners(const char *path, const dt_import_options *opt, dt_model **out,
                               dt_ctx *ctx);

/* Pick the importer by extension: ".inp" a deck (job_path must be NULL); ".msh" a Gmsh mesh
 * completed by the JSON job at job_path (required); ".json" a job (job_path must be NULL).
 * Returns a validated model as dt_parse_job_file does. */
dt_status dt_import_file(const char *path, const char *job_path, const dt_import_options *opt,
                         dt_model **out, dt_ctx *ctx);

#endif
