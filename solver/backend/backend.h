/* The backend interface: the heavy operations of the solver behind one table of functions.
 *
 * The Newton driver, load stepping and PCG (solver/newton.c, solver/pcg.c) are written once
 * over these operations; a backend (cpu in solver/cpu/, cuda in cuda/) owns the data. Vectors
 * live in the backend's memory and are named by dt_vec_id, so that a Newton iteration moves
 * only scalars between host and device (dot products, counts, flags). To add a backend: fill a
 * `static const dt_backend_ops` with designated initializers and list it in backends.def.
 * Required ops are checked at registration; NULL optional ops fall back to generic code.
 *
 * Backend code includes only this header (and hd.h/material/element headers), never the
 * model or driver internals: it reads the problem through the plain-data dt_problem. */
#ifndef DT_BACKEND_H
#define DT_BACKEND_H

#include <stddef.h>
#include <stdio.h>

#include "core/dt_status.h"
#include "problem/problem.h"
#include "core/results.h"

typedef enum dt_vec_id {
  DT_VEC_U = 0,   /* committed total displacement (start of the increment) */
  DT_VEC_DU,      /* displacement increment of the current increment */
  DT_VEC_UT,      /* trial total displacement U + DU */
  DT_VEC_FINT,    /* internal force of the last stress update */
  DT_VEC_FEXT,    /* external force at the current load factor */
  DT_VEC_F0,      /* external force at the start of the step */
  DT_VEC_F1,      /* external force at the end of the step */
  DT_VEC_UD0,     /* displacement at the start of the step */
  DT_VEC_UD1,     /* prescribed displacement at the end of the step (constrained DOFs) */
  DT_VEC_FREE,    /* 1 on free DOFs, 0 on constrained DOFs */
  DT_VEC_CON,     /* 1 - FREE */
  DT_VEC_R,       /* residual, right-hand side of the linear solve */
  DT_VEC_X,       /* Newton correction, solution of the linear solve */
  DT_VEC_W,       /* scratch */
  DT_VEC_DU_PREV, /* the last converged increment of the step (predictor extrapolation) */
  DT_VEC_ACCEL,   /* Thomas's acceleration: the first correction of the current pair */
  DT_VEC_PCG_Z,   /* PCG work vectors */
  DT_VEC_PCG_P,
  DT_VEC_PCG_Q,
  DT_VEC_COUNT
} dt_vec_id;

/* Committed state per integration point: history (13), stress (6), strain (6). */
#define DT_QP_STATE_DOUBLES (DT_MAT_STATE_DOUBLES + 12)

/* What a stress update reports (all reduced on the backend). */
typedef struct dt_stress_report {
  int n_plastic;         /* integration points in the plastic state */
  int n_failed;          /* points whose return mapping did not converge */
  int first_failed_elem; /* element index of one failed point, -1 if none */
} dt_stress_report;

/* Result of a linear solve. */
typedef struct dt_pcg_result {
  int iterations;
  double rel_residual; /* |r| / |b| at exit */
  dt_reason reason;    /* DT_CONVERGED, DT_DIVERGED_LINEAR_SOLVER, DT_DIVERGED_INDEFINITE, NAN */
} dt_pcg_result;

/* Measurements for benchmarks (optional op `measure`). */
typedef struct dt_backend_measure {
  char device[128];      /* e.g. "NVIDIA H100 80GB HBM3" or "CPU, 16 threads" */
  double copy_bandwidth; /* bytes read + written per second by a large device copy */
  double spmv_seconds;   /* mean time of one operator_apply on the current tangent */
  double spmv_bytes;     /* bytes one operator_apply must move in this backend's matrix format
                            (values, indices, x read, y written): the SpMV floor */
  double peak_bytes;     /* most memory the backend held for this problem */
} dt_backend_measure;

/* A compute device as the daemon reports it (health, admission). */
typedef struct dt_device_info {
  int ordinal;
  char name[128];
  double total_bytes;
  double free_bytes;
} dt_device_info;

/* Kernel variants of the CUDA backend, for comparing its paths on one job: the job's
 * solver.backend_options "elements" and "tangent" (docs/job-format.md), or ductile-solve's and
 * ductile-bench's --cuda-elements and --cuda-tangent. The names are model.h's
 * dt_cuda_elements_names and dt_cuda_tangent_names, in this order. Other backends ignore them. */
typedef enum dt_cuda_elements {
  DT_CUDA_ELEMENTS_AUTO = 0,  /* cooperative kernels on a mesh of one element type, else one thread
                                 per element */
  DT_CUDA_ELEMENTS_SIMPLE = 1 /* one thread per element on every mesh */
} dt_cuda_elements;
typedef enum dt_cuda_tangent {
  DT_CUDA_TANGENT_AUTO = 0,  /* written once by block rows on a mesh of congruent hex8 elements
                                (cuda/cuda_tangent_rows.cu), else scattered colour by colour */
  DT_CUDA_TANGENT_COLOUR = 1 /* scattered colour by colour on every mesh */
} dt_cuda_tangent;

typedef struct dt_backend_ops dt_backend_ops;
typedef struct dt_part_local dt_part_local;
typedef struct dt_halo_ops dt_halo_ops;

/* The most devices one run is split over (backend/parts/parts.h). */
#define DT_MAX_RUN_DEVICES 16

/* What a backend is told at problem_upload besides the problem; zero is the default of each. */
typedef struct dt_backend_options {
  int threads; /* CPU threads (0: OpenMP default) */
  int device;  /* GPU ordinal */
  dt_cuda_elements cuda_elements;
  dt_cuda_tangent cuda_tangent;
  /* Only for the compound backend of a run split over several devices (dt_parts_ops,
   * backend/parts/parts.h); plain backends ignore them. */
  int n_devices;                   /* parts, one per device: devices[0 .. n_devices-1] */
  int devices[DT_MAX_RUN_DEVICES]; /* device ordinals (any for a host backend's parts) */
  const dt_backend_ops *inner;     /* the backend each part runs on */
  const dt_model *model;           /* the model the problem was compiled from (partitioning) */
} dt_backend_options;

/* A part's tangent on the host (dt_backend_part_ops.host_tangent). */
typedef struct dt_host_tangent {
  int *row_ptr, *col; /* scalar CSR over the part's DOFs, ghosts included */
  double *val;        /* its elements only; constrained rows and columns identity */
  const double *x;    /* 3 coordinates per local node */
  const double *con;  /* per DOF: nonzero where constrained */
} dt_host_tangent;

/* What a backend offers to serve as one part of a run split over several devices
 * (backend/parts/parts.h): all of it, or the backend's `parts` is NULL and it cannot be split.
 * Each part holds its elements and every node they touch; a node shared by several parts is
 * owned by one of them, and local numbering puts the owned nodes first, so the owned DOFs of a
 * part are the prefix [0, dpn * n_owned) of its vectors. */
typedef struct dt_backend_part_ops {
  /* Make impl's device current for the calls that follow (several impls in one process);
   * NULL for a host backend. */
  dt_status (*activate)(void *impl, dt_ctx *ctx);
  /* The storage of vector v: n_dofs doubles in the backend's memory (a device address for a
   * device backend), for the halo transport. */
  double *(*vec_data)(void *impl, dt_vec_id v);
  /* *out = sum of x[i] y[i] over i < n (the owned prefix). */
  dt_status (*vec_dot_n)(void *impl, dt_vec_id x, dt_vec_id y, int n, double *out, dt_ctx *ctx);
  /* pc_setup of block Jacobi in two halves, so that the parts can sum the diagonal blocks of
   * shared nodes in between: pc_blocks writes the current tangent's diagonal blocks (dpn x dpn
   * per node, row-major, n_nodes of them) into the preconditioner's storage and returns its
   * address in *blocks (backend memory); pc_blocks_invert inverts them in place and makes block
   * Jacobi the preconditioner pc_apply uses. Errors: DT_ERR_NOT_CONVERGED for a singular block,
   * naming the node index as pc_setup does. */
  dt_status (*pc_blocks)(void *impl, double **blocks, dt_ctx *ctx);
  dt_status (*pc_blocks_invert)(void *impl, dt_ctx *ctx);
  /* Optional (NULL: AMG is not split on this backend): the part's AMG of additive Schwarz,
   * called after pc_blocks once the parts have summed the blocks in its storage. Sets up the
   * AMG of pc_setup (kind: DT_PC_AMG, DT_PC_KEEP_COARSE or'ed in as pc_setup takes it; the same
   * reuse rules) on the local tangent (the part's elements on all its nodes, ghosts included)
   * with every node's diagonal block replaced by the summed one, the constrained DOFs' identity
   * rows and columns kept; pc_apply then runs its V-cycle. Errors as pc_setup's. */
  dt_status (*pc_amg_local)(void *impl, int kind, dt_ctx *ctx);
  /* Optional, host backends (NULL elsewhere): the part's current tangent in host memory for the
   * AMG across the parts (solver/amg/amg_parts.h), which the split run then uses instead of
   * pc_amg_local's additive Schwarz. Fills t with borrowed pointers, valid until the backend's
   * next tangent_assemble changes the values (the pattern, coordinates and mask stay).
   * Errors: DT_ERR_UNSUPPORTED for the matrix-free operator. */
  dt_status (*host_tangent)(void *impl, dt_host_tangent *t, dt_ctx *ctx);
  /* A transport for dt_halo_exchange (solver/partition/partition_exchange.h) between impls[s],
   * s < n, which hold parts[s], with staging buffers for up to max_ncomp values per node, on
   * the vectors vec_data gives; *user is freed by halo_destroy. */
  dt_status (*halo_create)(void *const *impls, const dt_part_local *parts, int n, int max_ncomp,
                           const dt_halo_ops **ops, void **user, dt_ctx *ctx);
  void (*halo_destroy)(void *user);
} dt_backend_part_ops;

struct dt_backend_ops {
  const char *name;
  /* 1: runs on the host's cores (its memory is the host's; "auto" choices tuned for it differ,
   * precond_kind.h); 0: a device backend. */
  int host;
  /* Optional: 1 if this backend can run here; otherwise 0 and a reason in why. */
  int (*available)(char *why, size_t len);
  /* Optional: describe device `ordinal` without a problem; returns 0 if there is none. */
  int (*device_info)(int ordinal, dt_device_info *out);
  /* Optional: 1 if this process can no longer use device `ordinal` (a fault left its context
   * unusable: CUDA's "sticky" errors, which only a new process clears), with the error in why;
   * 0 if it can. */
  int (*device_lost)(int ordinal, char *why, size_t len);
  /* Optional: bytes of backend memory the problem would take (checked before upload). */
  dt_status (*estimate)(const dt_problem *pb, double *bytes, dt_ctx *ctx);
  /* Take the problem (copying what it needs: the problem may be freed afterwards). All
   * vectors and per-point state start at zero. */
  dt_status (*problem_upload)(const dt_problem *pb, const dt_backend_options *opt, void **impl,
                              dt_ctx *ctx);
  void (*destroy)(void *impl);
  /* Host <-> backend copies of whole vectors (n_dofs doubles). */
  dt_status (*vec_set)(void *impl, dt_vec_id v, const double *host, dt_ctx *ctx);
  dt_status (*vec_get)(void *impl, dt_vec_id v, double *host, dt_ctx *ctx);
  /* out = a*x + b*y (out may alias x or y). */
  dt_status (*vec_lincomb)(void *impl, dt_vec_id out, double a, dt_vec_id x, double b, dt_vec_id y,
                           dt_ctx *ctx);
  /* out = x .* y (pointwise). */
  dt_status (*vec_mul)(void *impl, dt_vec_id out, dt_vec_id x, dt_vec_id y, dt_ctx *ctx);
  /* *out = x . y */
  dt_status (*vec_dot)(void *impl, dt_vec_id x, dt_vec_id y, double *out, dt_ctx *ctx);
  /* Stress update at every integration point from the committed state for the total
   * displacement u; writes the trial state and the internal force into fint. */
  dt_status (*stress_update)(void *impl, dt_vec_id u, dt_vec_id fint, dt_stress_report *rep,
                             dt_ctx *ctx);
  /* Consistent tangent at the trial state of the last stress update, assembled into the CSR
   * values, then Dirichlet rows/columns (where CON is 1) replaced by identity. */
  dt_status (*tangent_assemble)(void *impl, dt_ctx *ctx);
  /* y = K x */
  dt_status (*operator_apply)(void *impl, dt_vec_id x, dt_vec_id y, dt_ctx *ctx);
  /* Preconditioner of kind (precond_kind.h) for the current tangent. An AMG hierarchy is kept
   * between tangents (values refreshed, aggregates kept) while the constrained DOFs stay the
   * same, and with DT_PC_KEEP_COARSE or'ed into kind only level 0 is refreshed; a second setup
   * on the same tangent (no tangent_assemble between) builds it anew. */
  dt_status (*pc_setup)(void *impl, int kind, dt_ctx *ctx);
  /* z = M^-1 r */
  dt_status (*pc_apply)(void *impl, dt_vec_id r, dt_vec_id z, dt_ctx *ctx);
  /* Optional: the linear constraints' operation op (problem.h, dt_mpc_op) on vector v, for a
   * problem with n_mpc > 0; the driver does it on the host through vec_get/vec_set otherwise. */
  dt_status (*mpc_apply)(void *impl, dt_vec_id v, dt_mpc_op op, dt_ctx *ctx);
  /* Optional: a fused PCG solving K X = R (generic dt_pcg_solve otherwise). The driver does not
   * use it for a problem with constraints (n_mpc > 0), whose reduced system it solves with
   * dt_pcg_solve_ops over operator_apply, pc_apply and mpc_apply. */
  dt_status (*pcg_solve)(void *impl, double rtol, int max_iter, dt_pcg_result *res, dt_ctx *ctx);
  /* Optional: replace the material index of every element (n_elems ints, indices into the
   * problem's mats) from the next stress update on, keeping the per-point state: a step that
   * changes an element set's material (CalculiX's *CHANGE SOLID SECTION). NULL: the backend
   * cannot, and the driver refuses such a model on it. */
  dt_status (*materials_set)(void *impl, const int *elem_mat, dt_ctx *ctx);
  /* Accept the trial state as committed (increment converged) or discard it (cutback). */
  dt_status (*state_commit)(void *impl, dt_ctx *ctx);
  dt_status (*state_rollback)(void *impl, dt_ctx *ctx);
  /* Copy the committed integration-point fields requested (DT_OUT_* bits) into f's arrays,
   * which the caller allocated: qp_stress/qp_strain 6*n_qp, qp_peeq n_qp. */
  dt_status (*fields_download)(void *impl, unsigned what, dt_fields *f, dt_ctx *ctx);
  /* Optional (checkpoints): copy the committed per-point state to the host or back, as
   * DT_QP_STATE_DOUBLES doubles per point in structure-of-arrays order (history, stress,
   * strain); state_set also resets the trial state to it. NULL: no checkpoints. */
  dt_status (*state_get)(void *impl, double *host, dt_ctx *ctx);
  dt_status (*state_set)(void *impl, const double *host, dt_ctx *ctx);
  /* Optional, for benchmarks: copy bandwidth, SpMV time on the current tangent, peak memory. */
  dt_status (*measure)(void *impl, dt_backend_measure *out, dt_ctx *ctx);
  /* Optional: describe the backend and its device. */
  void (*view)(void *impl, FILE *f);
  /* Optional: the kernels chosen for the uploaded problem, in a few words (the run prints them
   * among its setup lines), into buf of len bytes. */
  void (*describe)(void *impl, char *buf, size_t len);
  /* Optional: what a part of a split run needs (dt_backend_part_ops); NULL: cannot be split. */
  const dt_backend_part_ops *parts;
};

/* The backend names of backends.def, in its order, NULL-terminated: what "backend" may say
 * besides "auto" (job files, the command line, the daemon's configuration). */
extern const char *const dt_backend_names[];
/* 1 if name is one of dt_backend_names (compiled in or not), else 0. */
int dt_backend_known(const char *name);

/* Find a backend by name ("cpu", "cuda") or pick one ("auto": the first compiled backend with
 * a device, in backends.def order). note receives a line saying what was chosen and why. */
dt_status dt_backend_find(const char *name, const dt_backend_ops **out, char *note, size_t note_len,
                          dt_ctx *ctx);
/* Devices of a backend ("auto": the one auto would pick): up to max entries, count in *n. */
dt_status dt_backend_devices(const char *name, dt_device_info *out, int max, int *n, dt_ctx *ctx);

/* dt_backend_ops.device_lost of backend `name` (0 for a backend without it or not found). */
int dt_backend_device_lost(const char *name, int ordinal, char *why, size_t len);

/* Check that every required op is present (registration check, STYLE.md §1). */
dt_status dt_backend_validate(const dt_backend_ops *ops, dt_ctx *ctx);

/* Generic PCG over the backend's ops: solves K X = R with X starting at 0. */
dt_status dt_pcg_solve(const dt_backend_ops *ops, void *impl, double rtol, int max_iter,
                       dt_pcg_result *res, dt_ctx *ctx);

/* y = A x or z = M^-1 r for dt_pcg_solve_ops, on backend vectors; arg is the caller's. */
typedef dt_status (*dt_pcg_apply_fn)(void *arg, dt_vec_id in, dt_vec_id out, dt_ctx *ctx);
/* The same PCG with the operator and the preconditioner given as functions (the constrained
 * system of the driver: analysis/constraints.c); the vector ops are the backend's. */
dt_status dt_pcg_solve_ops(const dt_backend_ops *ops, void *impl, dt_pcg_apply_fn op,
                           dt_pcg_apply_fn pc, void *arg, double rtol, int max_iter,
                           dt_pcg_result *res, dt_ctx *ctx);

#endif
