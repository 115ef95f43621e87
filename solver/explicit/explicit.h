/* Explicit dynamics of shells and solids: the model compiled into node copies, the backends'
 * operations, and the driver's entry point.
 *
 * dt_analysis_run hands a job whose steps are explicit to dt_explicit_run (explicit_run.c),
 * which compiles the model (explicit_problem.c), gives it to a backend (explicit_cpu.c, or
 * cuda/cuda_explicit.cu) and steps through time with central differences, reporting progress,
 * the energy balance and the fields at the requested frames. The time step itself is one
 * function per element kind that both backends call for every element: explicit_kernel.h for
 * MITC4 shells, explicit_hex8_kernel.h for hex8 solids. A model is all shells or all hex8
 * (dt_model_finish refuses a mix); the arrays below have a kind's sizes per node copy (shells:
 * 4 copies per element, 5 DOFs, a frame; hex8: 8 copies, 3 DOFs, none). To add a kind: its
 * element step and view, its sizes in dt_xp_problem_build, a branch in each backend's step. */
#ifndef DT_EXPLICIT_H
#define DT_EXPLICIT_H

#include "analysis/analysis.h"
#include "explicit_hex8_kernel.h"
#include "explicit_kernel.h"
#include "model/model.h"

#include <stdio.h>

/* The output writer's state saver (io/output.h's dt_output_save_state, bound to a writer). */
typedef dt_status (*dt_output_state_fn)(void *arg, FILE *f, dt_ctx *ctx);

/* The element kinds (dt_xp_problem.kind). */
#define DT_XP_SHELL4 0
#define DT_XP_HEX8 1

/* The model as node copies (explicit_kernel.h has the layout): what a backend uploads once.
 * Per copy: X0 3, D0 3 (shells), inv_mass nm, q0 nq; nc = npe ne copies. */
typedef struct dt_xp_problem {
  int kind;         /* DT_XP_SHELL4 or DT_XP_HEX8 */
  int npe;          /* nodes (copies) per element: 4 or 8 */
  int nv, nq, nm;   /* doubles per copy of v and f (5 or 3), q (4 or 0), inv_mass (2 or 1) */
  int n_faces;      /* pressures per element: 1 (shells: against the normal) or 6 (hex8) */
  int n_points;     /* history points per plastic element: 4 n_layers (shells), 8 or 1 (hex8) */
  int form;         /* hex8: DT_HEX8X_FULL or DT_HEX8X_REDUCED, one for the model */
  double hourglass; /* hex8 one-point: the hourglass coefficient */
  int ne, n_layers, n_mats;
  int n_nbr; /* entries of nbr */
  double *X0, *D0, *inv_mass;
  double *q0; /* 4 per copy: the node's reference frame (rotation axes, director) as a rotation */
  int *owner, *nbr_ptr, *nbr;
  double *thick;
  int *mat;
  dt_material_params *mats;
  int plastic;    /* some element has a plastic material: history is kept */
  int *node;      /* per copy: the model's node index */
  double dt_crit; /* the stable step estimate, min over elements (before the safety factor) */
  int dt_crit_elem;
  double rotary_factor; /* the largest factor applied to a node's rotary inertia */
  /* A part of a split run (explicit_parts.c; 0 and NULL otherwise): the force buffers hold
   * n_ghost slots after the nc copies (stride nc + n_ghost), which nbr names as copies
   * nc .. nc + n_ghost - 1 and which the ops' recv fills; send lists the copies whose forces the
   * ops' send hands out for the other parts' ghosts. */
  int n_ghost, n_send;
  int *send;
} dt_xp_problem;

/* Node copies of the problem, and history doubles of its plastic elements. */
static inline size_t dt_xp_copies(const dt_xp_problem *xp) { return (size_t)xp->npe * xp->ne; }
static inline size_t dt_xp_hist_doubles(const dt_xp_problem *xp) {
  return xp->plastic ? (size_t)DT_MAT_STATE_DOUBLES * xp->n_points * (size_t)xp->ne : 0;
}

/* What changes from step to step: prescribed motion, loads, and the start state. */
typedef struct dt_xp_step {
  int n_bcs;
  dt_xp_bc *bcs;
  int *bc;          /* per copy */
  double *fc;       /* 3 per copy, SoA */
  double *pressure; /* n_faces per element, SoA */
  int has_pressure; /* some pressure is not zero */
} dt_xp_step;

/* The state a backend reports: per copy u (3), v (nv), q (nq), SoA as in the kernel; per
 * element the energy accumulators and the yielded points. */
typedef struct dt_xp_state {
  double *u, *v, *q, *work;
  int *plastic;
  double *f;    /* nv per copy: the forces the next step gathers */
  double *hist; /* plastic elements' history (the kernels' layout), or NULL */
} dt_xp_state;

/* A backend of explicit dynamics. */
typedef struct dt_xp_ops {
  const char *name;
  /* Take the problem (copied) with every copy at rest at its reference position, and the
   * given initial velocities (nv per copy, SoA; NULL: at rest). */
  dt_status (*create)(const dt_xp_problem *xp, const double *v0, int threads, int device,
                      void **impl, dt_ctx *ctx);
  dt_status (*set_step)(void *impl, const dt_xp_step *st, dt_ctx *ctx);
  /* Run one time step (explicit_kernel.h); *failed set when an element's update failed. */
  dt_status (*step)(void *impl, const dt_xp_time *T, dt_ctx *ctx);
  /* Copy the state to the host arrays of out that are not NULL (allocated by the caller,
   * sizes as above). */
  dt_status (*get)(void *impl, dt_xp_state *out, int *failed, dt_ctx *ctx);
  /* Replace the state by in's u, v, q, f, work and hist (a checkpoint's; none NULL but hist
   * of an elastic mesh). */
  dt_status (*put)(void *impl, const dt_xp_state *in, dt_ctx *ctx);
  void (*destroy)(void *impl);
  /* Optional, for parts of a split run: the forces the next step gathers of the problem's send
   * copies to the host (buf: nv x n_send, SoA), and into its ghost slots from the host (buf:
   * nv x n_ghost, SoA). Both wait for the step before them. */
  dt_status (*send)(void *impl, double *buf, dt_ctx *ctx);
  dt_status (*recv)(void *impl, const double *buf, dt_ctx *ctx);
  /* Optional, for parts whose devices reach each other's memory: from now on pull fills the
   * ghost slots straight from the other parts' force buffers, ghost g from copy src_copy[g] of
   * part src_part[g] (peers[src_part[g]], an instance of the same backend; n_peers of them,
   * this one among them). *linked = 0 where that cannot be (devices without peer access, or
   * DUCTILE_HALO_TRANSPORT=staged); n_peers = 0 undoes a link. Borrowed arrays, read here. */
  dt_status (*link)(void *impl, void *const *peers, int n_peers, const int *src_part,
                    const int *src_copy, int *linked, dt_ctx *ctx);
  /* Linked: queue the ghosts' gather after the last step or put of every part it reads from,
   * in device order (the host does not wait); a step then waits for the other parts' pulls. */
  dt_status (*pull)(void *impl, dt_ctx *ctx);
} dt_xp_ops;

extern const dt_xp_ops dt_xp_cpu_ops;
extern const dt_xp_ops dt_xp_parts_ops; /* explicit_parts.h: created by dt_xp_parts_create */
#ifdef DUCTILE_HAVE_CUDA
extern const dt_xp_ops dt_xp_cuda_ops;
#endif

/* Compile the model (finished by dt_model_finish, all steps explicit). */
dt_status dt_xp_problem_build(const dt_model *m, dt_xp_problem *xp, dt_ctx *ctx);
void dt_xp_problem_free(dt_xp_problem *xp);
/* The loads and prescribed motion of step s. */
dt_status dt_xp_step_build(const dt_model *m, const dt_xp_problem *xp, int s, dt_xp_step *st,
                           dt_ctx *ctx);
void dt_xp_step_free(dt_xp_step *st);
/* The initial velocities of the model's node sets, nv per copy SoA (rotations 0); NULL when
 * the model has none. */
dt_status dt_xp_initial_velocity(const dt_model *m, const dt_xp_problem *xp, double **v0,
                                 dt_ctx *ctx);
/* The amplitude of a step at time t of the step, and its rate. */
double dt_xp_amplitude(const dt_amplitude *a, double T, double t);
double dt_xp_amplitude_rate(const dt_amplitude *a, double T, double t);

/* Bytes a backend holds for ne shell elements with n_layers points through the thickness of
 * plastic ones (0: elastic): node copies, forces, energies, gather lists (4 sharing elements
 * per node, as in a quadrilateral mesh), history. */
double dt_xp_bytes(double ne, int n_layers);
/* The same for ne hex8 elements with n_points history points each (0: elastic; 8 sharing
 * elements per node, as in a hexahedral mesh). */
double dt_xp_hex8_bytes(double ne, int n_points);
/* What a backend holds for model m (explicit steps; shells or hex8). */
double dt_xp_model_bytes(const dt_model *m);
/* DRAM bytes one time step moves per element at least (the gathered forces counted once per
 * copy, as if the cache served the other elements' reads of them): the benchmark's floor. */
double dt_xp_step_bytes(int n_layers);
/* The same for a hex8 element with n_points history points (0: elastic). */
double dt_xp_hex8_step_bytes(int n_points);
/* The points through the thickness the model's plastic shells need (0 when all are elastic). */
int dt_xp_model_layers(const dt_model *m);

/* Where a run is in time, for checkpoints: step s, time steps done in it, the last half
 * step, frames taken in it, the initial kinetic energy. */
typedef struct dt_xp_position {
  int step;
  long n;
  double h_before;
  int frame;
  double ke0;
} dt_xp_position;

/* Write the backend's state, the position, the run's counters and the output writer's state
 * to a checkpoint at path (analysis/checkpoint.h's file, atomically). */
dt_status dt_xp_checkpoint_write(const char *path, const dt_model *m, const dt_xp_ops *o,
                                 void *impl, const dt_xp_problem *xp, const dt_xp_position *pos,
                                 const dt_run_summary *counters, dt_output_state_fn save,
                                 void *save_arg, dt_ctx *ctx);
/* Read a checkpoint of model m into the backend; *state is left at the output writer's record
 * (the caller reads it and closes the file). */
dt_status dt_xp_checkpoint_read(const char *path, const dt_model *m, const dt_xp_ops *o, void *impl,
                                const dt_xp_problem *xp, dt_xp_position *pos,
                                dt_run_summary *counters, FILE **state, dt_ctx *ctx);

/* The output points of an explicit frame (explicit_fields.c): shells 2 per element (bottom and
 * top surface at the centre), hex8 its integration points (1 or 8). */
int dt_xp_field_points(const dt_xp_problem *xp);
/* 1 when the model's output asks for S, MISES or PEEQ (fields or prints). */
int dt_xp_fields_wanted(const dt_model *m);
/* f->qp_ptr (n_elems + 1, allocated) filled; the point coordinates, stress and PEEQ arrays
 * allocated when wanted. */
dt_status dt_xp_fields_alloc(const dt_model *m, const dt_xp_problem *xp, dt_fields *f, dt_ctx *ctx);
/* The points' stress and PEEQ from the state (u, q for shells, hist when plastic). */
void dt_xp_fields_compute(const dt_xp_problem *xp, const dt_xp_state *st, dt_fields *f);
/* Run a job whose steps are explicit (dt_analysis_run's contract). */
dt_status dt_explicit_run(const dt_model *m, const dt_run_options *opt, dt_run_summary *summary,
                          dt_ctx *ctx);

#endif
