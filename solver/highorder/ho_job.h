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
 * displacement, as the hex8 path's summary.json names them. It also holds the keys every
 * summary.json has (format_version, completed, reason, message, backend, steps_completed), and
 * "increments" lists the converged increments ({step, increment, load_factor,
 * newton_iterations, plastic_points}) with "n_increments" their count, as the hex8 path's does.
 * Beside it, as each increment converges: history.csv (a row per increment, the hex8 path's
 * columns) and, per the job's "output" (vtu, every, fields; docs/job-format.md), VTU files of
 * Lagrange hexahedra with results.pvd (ho_vtu.h); summary.json's "files" names them.
 *
 * Checkpoints (options checkpoint, resume): after each converged increment, once its files
 * are written, the run's state goes to a checkpoint file (ho_checkpoint.h), bound to the job
 * and mesh by a hash; a run told to resume restores the last one and computes only the
 * increments after it, with the same results, files and summary.json as a run that was never
 * stopped.
 *
 * dt_ho_job_check validates without solving; the daemon (server/worker_ho.c) calls it at
 * submission and runs dt_ho_job_run with a progress callback, so the CLI and the daemon accept
 * the same jobs. */
#ifndef DT_HO_JOB_H
#define DT_HO_JOB_H

#include <stdint.h>
#include <stdio.h>

#include "core/dt_status.h"
#include "highorder/ho_plastic.h"

typedef struct dt_ho_job_options {
  int order;          /* the mesh's order P (1..8); 0: the file's */
  const char *outdir; /* created if missing */
  FILE *log;          /* progress lines, or NULL */
  /* Called per increment (start, converged) and per Newton iteration (ho_plastic.h); nonzero
   * stops the run with DT_ERR_CANCELLED and no summary.json. NULL: none. */
  dt_ho_progress_fn progress;
  void *user;
  /* A checkpoint written after each converged increment (atomically), or NULL: none. */
  const char *checkpoint;
  /* Resume from `checkpoint` when the file exists: its increments are kept, the run goes on
   * after them. A checkpoint that is refused (another job or mesh, corrupt, unreadable) fails
   * the run before it solves, with res->checkpoint_unusable set and the reason in ctx. */
  int resume;
  /* Called once a checkpoint is restored, before the next increment: the increments kept and
   * a line saying so. NULL: none. */
  void (*resumed)(int kept, const char *text, void *user);
  /* Nonzero: the solve runs on GPU gpu_device (ho_plastic.h: the state, the residuals and the
   * corrections with the p-multigrid on the device); results, files and checkpoints are the
   * same. DT_ERR_UNSUPPORTED in a build without CUDA. */
  int gpu;
  int gpu_device;
} dt_ho_job_options;

/* What a valid job on a mesh is, from dt_ho_job_check. */
typedef struct dt_ho_job_info {
  int order, n_elems, n_nodes;  /* the order-P mesh at the file's order */
  int n_increments;             /* of the one static step */
  char title[256];              /* the job's "title", "" without one */
  char step_name[64];           /* the step's "name", "" without one */
  double est_bytes;             /* dt_ho_job_estimate_bytes of the run */
  uint64_t hash;                /* of the job and mesh, as its checkpoints carry it */
  int output_vtu, output_every; /* the job's output.vtu and output.every (1 if unset) */
} dt_ho_job_info;

typedef struct dt_ho_job_result {
  int order, file_order, n_elems, n_nodes;
  int increments, newton_iterations, pcg_iterations;
  long plastic_points; /* at the end */
  double max_u, max_peeq;
  dt_reason reason;        /* why Newton stopped on DT_ERR_NOT_CONVERGED (ho_plastic.h) */
  int kept;                /* increments restored from a checkpoint (0: none) */
  int checkpoint_unusable; /* the run failed because the checkpoint was refused */
} dt_ho_job_result;

/* Runs the job at job_path on the Gmsh mesh at msh_path (see above). res may be NULL.
 * Errors: DT_ERR_IO (a file cannot be read or summary.json written), DT_ERR_INPUT (the mesh,
 * the job, or a key or feature outside the subset, named), DT_ERR_NOT_CONVERGED (Newton, with
 * the increment), DT_ERR_CANCELLED (o->progress asked to stop), DT_ERR_NOMEM. On an error after
 * the solve started, res holds the increments and iterations that converged. */
dt_status dt_ho_job_run(const char *msh_path, const char *job_path, const dt_ho_job_options *o,
                        dt_ho_job_result *res, dt_ctx *ctx);

/* Validates the job at job_path on the Gmsh mesh at msh_path as dt_ho_job_run does before it
 * solves: the keys, the parsed job, the order-P mesh (read at the file's order) and every node
 * set and surface the job names as one of its physical groups. info (may be NULL) receives the
 * sizes. Errors: those of dt_ho_job_run before the solve; input messages read
 * "JOB: PATH: ...", PATH the culprit's JSON path where there is one. */
dt_status dt_ho_job_check(const char *msh_path, const char *job_path, dt_ho_job_info *info,
                          dt_ctx *ctx);

/* Checks the checkpoint at path against the job info describes (dt_ho_job_check: sizes,
 * hash) and its checksum without loading it: *kept receives its increments. Errors: DT_ERR_IO
 * (cannot be read), DT_ERR_INPUT (refused: another job or mesh, corrupt), with the reason. */
dt_status dt_ho_job_checkpoint_check(const char *path, const dt_ho_job_info *info, int *kept,
                                     dt_ctx *ctx);

/* Bytes an order-P run of order P on n_elems hexahedra with n_nodes nodes holds at its peak:
 * the operator's geometry (qdata, 10 doubles per Gauss point) and the J2 state (569 bytes per
 * point, ho_plastic.h) at (P+1)^3 points per element; the job's and Newton's vectors (21 of
 * 3 n_nodes doubles with the finest multigrid level's); the coarser levels' operators and
 * vectors, and the order-1 level's assembled matrix with its AMG (ho_pmg.h); the corner hex8
 * model the job is parsed on; the result files' buffers (nodal fields, VTK connectivity).
 * Measured against the peak resident size of ductile-solve on the 32 x 8 x 8 cantilever (2048
 * hexahedra): P = 2 estimated 77 MB, resident 84 MB (4 MB of it the process before any mesh);
 * P = 4, before the result files, 291 MB and 285 MB (their buffers add 27 MB to the estimate). */
double dt_ho_job_estimate_bytes(int order, int n_elems, int n_nodes);

/* The order of the hexahedra of the Gmsh file at path (the highest, if mixed), 0 if it has
 * none. Errors: those of reading the file. */
dt_status dt_ho_gmsh_file_order(const char *path, int *order, dt_ctx *ctx);

#endif
