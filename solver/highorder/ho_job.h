/* A Gmsh mesh of order-P hexahedra with a JSON job: a static J2 (or elastic) analysis solved by
 * dt_ho_plastic_solve with the p-multigrid, for `ductile-solve MESH.msh --job LOADS.json`.
 *
 * The job is the JSON job format without "mesh" (docs/job-format.md), restricted to: one
 * material (elastic, optionally J2 with linear hardening), solid sections (fully integrated),
 * one static step of equal increments, boundary conditions ("fixed" and "displacement") on node
 * sets, pressure and traction loads on surfaces, and solver.newton / solver.linear tolerances
 * and iteration caps. Any other key is refused by name. The job is validated by the regular
 * parser on the hex8 mesh of the elements' corners (dt_gmsh_read_corners); node sets and
 * surfaces are then taken by name from the order-P mesh's physical groups (ho_mesh_gmsh.h).
 *
 * Results: OUTDIR/summary.json with the order, sizes, iterations, the displacement extrema
 * ("u_min", "u_max" per component, "max_u" the largest magnitude), "max_peeq" over the Gauss
 * points, and per physical group "node_sets": {name: {"n_nodes", "RF", "U_mean"}}, RF the sum of
 * f_int - f_ext over the group's nodes (the reaction on a fixed group), U_mean the mean nodal
 * displacement, as the hex8 path's summary.json names them. */
#ifndef DT_HO_JOB_H
#define DT_HO_JOB_H

#include <stdio.h>

#include "core/dt_status.h"

typedef struct dt_ho_job_options {
  int order;          /* the mesh's order P (1..8); 0: the file's */
  const char *outdir; /* created if missing */
  FILE *log;          /* progress lines, or NULL */
} dt_ho_job_options;

typedef struct dt_ho_job_result {
  int order, file_order, n_elems, n_nodes;
  int increments, newton_iterations, pcg_iterations;
  long plastic_points; /* at the end */
  double max_u, max_peeq;
} dt_ho_job_result;

/* Runs the job at job_path on the Gmsh mesh at msh_path (see above). res may be NULL.
 * Errors: DT_ERR_IO (a file cannot be read or summary.json written), DT_ERR_INPUT (the mesh,
 * the job, or a key or feature outside the subset, named), DT_ERR_NOT_CONVERGED (Newton, with
 * the increment), DT_ERR_NOMEM. */
dt_status dt_ho_job_run(const char *msh_path, const char *job_path, const dt_ho_job_options *o,
                        dt_ho_job_result *res, dt_ctx *ctx);

/* The order of the hexahedra of the Gmsh file at path (the highest, if mixed), 0 if it has
 * none. Errors: those of reading the file. */
dt_status dt_ho_gmsh_file_order(const char *path, int *order, dt_ctx *ctx);

#endif
