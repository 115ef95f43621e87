/* Small-strain J2 elastoplasticity at the Gauss points of order-P hexahedra, matrix-free.
 *
 * The geometry (qdata, tables, colours) is a dt_ho_elastic operator's, borrowed; this adds the
 * material state of every Gauss point and three operators with the element steps of
 * ho_element.h:
 *   residual   f_int(u): strain eps = sym(grad u) at each point, dt_material_update from the
 *              committed state to the trial state, stress and consistent tangent D, contracted
 *              back (int B^T sigma dV);
 *   tangent    v = K_t w with the D the last residual stored, sum factorised like the elastic
 *              apply (only the pointwise step differs: sigma = D eps(w));
 *   diagonal   K_t's diagonal for Jacobi, by sum factorisation of the squared tables as in
 *              ho_elastic_diag.c with the elastic moduli replaced by D.
 * commit copies the trial state to the committed one when an increment converges; rollback
 * does the reverse, so a failed increment starts over from the last converged state.
 *
 * Per-point arrays are structures of arrays laid out as qdata: component k of point q of
 * element e at (e * ncomp + k) * nq^3 + q. Per point: history (DT_MAT_STATE_DOUBLES = 13),
 * stress (6) and strain (6), each committed and trial (50 doubles), the stored tangent D as its
 * 21 upper-triangle entries (168 bytes) and the update's dt_mat_result (1 byte): 569 bytes per
 * point, beside qdata's 80. */
#ifndef DT_HO_PLASTIC_H
#define DT_HO_PLASTIC_H

#include <stdio.h>

#include "core/dt_status.h"
#include "core/results.h"
#include "highorder/ho_elastic.h"
#include "material/material.h"

/* Stress-like and strain-like components per point. */
#define DT_HO_VOIGT 6
/* Entries of the symmetric 6 x 6 tangent stored per point: the upper triangle, row by row. */
#define DT_HO_TANGENT_SIZE 21

typedef struct dt_ho_plastic {
  const dt_ho_elastic *op; /* geometry, borrowed: must outlive this */
  int nq3;                 /* Gauss points per element */
  long n_points;           /* n_elems * nq3 */
  int n_materials;
  dt_material_params *mats; /* n_materials (owned copies) */
  int *elem_mat;            /* n_elems material indices (owned) */
  /* committed (_c) and trial (_t) state, owned */
  double *hist_c, *hist_t;     /* DT_MAT_STATE_DOUBLES per point */
  double *stress_c, *stress_t; /* DT_HO_VOIGT per point, tensor shears */
  double *strain_c, *strain_t; /* DT_HO_VOIGT per point, engineering shears */
  double *tangent;             /* DT_HO_TANGENT_SIZE per point, of the last residual */
  unsigned char *result;       /* dt_mat_result per point, of the last residual */
} dt_ho_plastic;

/* What the last residual found. */
typedef struct dt_ho_plastic_report {
  long n_plastic;   /* points whose update took a plastic step */
  long n_failed;    /* points whose return mapping failed */
  int failed_elem;  /* the first failed point (lowest element, then point), or -1 */
  int failed_point; /* its lexicographic Gauss point within the element */
} dt_ho_plastic_report;

/* Sets up pl on op (borrowed) with n_materials materials (copied) and one material index per
 * element (copied). Every point starts unstrained with zero history and the elastic tangent.
 * Errors (DT_ERR_INPUT, naming the element or material): an index out of range, a material
 * the update cannot take (E <= 0, nu outside (-1, 1/2), a Mohr-Coulomb or a negative yield
 * stress). Release with dt_ho_plastic_free. */
dt_status dt_ho_plastic_setup(const dt_ho_elastic *op, int n_materials,
                              const dt_material_params *mats, const int *elem_mat,
                              dt_ho_plastic *pl, dt_ctx *ctx);
/* Releases what pl owns and zeroes it (NULL-safe). */
void dt_ho_plastic_free(dt_ho_plastic *pl);

/* f = f_int(u) over all 3 n_nodes DOFs (overwritten), updating the trial state and the stored
 * tangent from the committed state. rep may be NULL. A failed return mapping leaves a zero
 * stress at that point (finite f) and is an error: DT_ERR_NOT_CONVERGED naming the first
 * failed element and point (rep still filled). Errors: DT_ERR_NOMEM for the scratch. */
dt_status dt_ho_plastic_residual(dt_ho_plastic *pl, const double *u, double *f,
                                 dt_ho_plastic_report *rep, dt_ctx *ctx);
/* v = K_t w with the tangent of the last residual (v overwritten; w, v must not alias). */
dt_status dt_ho_plastic_tangent_apply(const dt_ho_plastic *pl, const double *w, double *v,
                                      dt_ctx *ctx);
/* The same with the signature dt_ho_pcg_solve takes. */
dt_status dt_ho_plastic_tangent_apply_fn(const void *pl, const double *w, double *v, dt_ctx *ctx);
/* diag[i] = (K_t)_ii for all 3 n_nodes DOFs (overwritten). */
dt_status dt_ho_plastic_tangent_diagonal(const dt_ho_plastic *pl, double *diag, dt_ctx *ctx);

/* Trial state -> committed state (an increment converged). */
void dt_ho_plastic_commit(dt_ho_plastic *pl);
/* Committed state -> trial state (an increment is abandoned). */
void dt_ho_plastic_rollback(dt_ho_plastic *pl);

/* Bytes one residual and one tangent product move, as a bench counts them: the elastic
 * product's (dt_ho_elastic_cost, less the Lame parameters) plus, per point, the committed
 * history read and the trial state, tangent and result written (residual), or the tangent read
 * (product); the material index per element. */
void dt_ho_plastic_cost(const dt_ho_plastic *pl, double *residual_bytes, double *apply_bytes);

/* The full D (36, row-major) of point q of element e from the stored triangle. */
void dt_ho_plastic_point_tangent(const dt_ho_plastic *pl, int e, int q, double D[36]);
/* Committed equivalent plastic strain of point q of element e. */
double dt_ho_plastic_peeq(const dt_ho_plastic *pl, int e, int q);

/* Load increments of a displacement- or force-driven problem, solved by Newton with Jacobi PCG
 * on the tangent. The load at increment k of n is lambda_k = k / n times the full load: u = lambda
 * u_presc on the fixed DOFs, f_ext = lambda f. */
typedef struct dt_ho_newton_problem {
  const unsigned char *fixed; /* 3 n_nodes: nonzero marks a prescribed DOF */
  const double *u_presc;      /* 3 n_nodes prescribed values at the full load (NULL: zero) */
  const double *f;            /* 3 n_nodes external force at the full load (NULL: none) */
} dt_ho_newton_problem;

/* What a progress callback sees: an increment starting, a Newton iteration's residual (each
 * evaluation, the predictor's excepted), an increment converged. */
typedef enum dt_ho_progress_kind {
  DT_HO_INCREMENT_START,
  DT_HO_NEWTON_ITERATION,
  DT_HO_INCREMENT_DONE
} dt_ho_progress_kind;

typedef struct dt_ho_progress {
  dt_ho_progress_kind kind;
  int increment, n_increments; /* 1-based, of the step's equal increments */
  double load_factor;          /* lambda at the end of the increment */
  int iteration;      /* corrections so far in this increment (DONE: the increment's total) */
  double residual;    /* relative residual of the last evaluation (START: NaN) */
  double du_ratio;    /* |c| / |du| of the last correction (NaN before the first) */
  int pcg_iterations; /* of the last correction's solve (0 before the first) */
  long n_plastic;     /* plastic points at the last evaluation */
  const double *u;    /* DONE: the converged displacement, 3 n_nodes (host); else NULL */
} dt_ho_progress;

/* Nonzero stops the solve: DT_ERR_CANCELLED, the state rolled back to the last converged
 * increment. */
typedef int (*dt_ho_progress_fn)(const dt_ho_progress *ev, void *user);

/* A preconditioner of the corrections on device vectors, for a run on a GPU (the device
 * p-multigrid of cuda/cuda_ho_pmg.h fits it through a two-line setup adapter):
 *   setup(pc, apply, op, d_diag): the new tangent before each correction solve, as its product
 *     y = apply(op, d_x, d_y) on device vectors (callable from `stream`) and its diagonal
 *     (device, 3 n_nodes);
 *   apply(pc, d_r, d_z): z = M^-1 r on device vectors, zero on the constrained DOFs, queued in
 *     `stream` (a cudaStream_t; NULL: the legacy default stream), which the solver joins to its
 *     own by events. */
typedef dt_status (*dt_ho_device_fn)(void *op, const double *d_x, double *d_y, dt_ctx *ctx);
typedef struct dt_ho_device_pc {
  void *pc;
  void *stream;
  dt_status (*setup)(void *pc, dt_ho_device_fn apply, void *op, const double *d_diag, dt_ctx *ctx);
  dt_ho_device_fn apply;
} dt_ho_device_pc;

typedef struct dt_ho_newton_opts {
  int n_increments; /* equal load increments */
  int max_iter;     /* corrections per increment */
  double rtol;      /* |r_free| <= rtol max(|f_ext,free|, |f_int|) ... */
  double dtol;      /* ... and the last correction |c| <= dtol |du| (or rtol below 1e-8) */
  double pcg_rtol;  /* of each correction's solve */
  int pcg_max_it;
  FILE *log; /* one line per iteration, or NULL */
  /* The corrections' preconditioner: a p-multigrid set up by the caller on the same mesh and
   * fixed DOFs (ho_pmg.h), its finest level given each new tangent; NULL: Jacobi. */
  struct dt_ho_pmg *pmg;
  dt_ho_progress_fn progress; /* at each event above, or NULL */
  void *progress_user;
  /* Increments already converged (a resumed run: u and the committed state are theirs, and
   * the report's rows and totals of those increments are the caller's, kept); the solve starts
   * at first_increment + 1. 0: from the start (the report is cleared). */
  int first_increment;
  /* Where the residual, the tangent and the corrections run: 0 on the host; nonzero on the GPU
   * gpu_device (cuda/cuda_ho_plastic.cu: the state on the device, the corrections' PCG there
   * too; the increments, tests, reasons and events are the same code). A build without CUDA
   * refuses it (DT_ERR_UNSUPPORTED). On a GPU the corrections take device_pc when given, else
   * the host pmg above copied to the device (cuda/cuda_ho_pmg.h), else device Jacobi. */
  int gpu;
  int gpu_device;
  const dt_ho_device_pc *device_pc;
  /* Nonzero: at every DT_HO_INCREMENT_DONE event pl's committed arrays hold the converged
   * state (a GPU run downloads them; a host run has them anyway), e.g. for a checkpoint. A GPU
   * run downloads the whole state into pl at its end in any case. */
  int sync_state;
} dt_ho_newton_opts;

#define DT_HO_NEWTON_MAX_INCREMENTS 64
#define DT_HO_NEWTON_MAX_HISTORY 64

typedef struct dt_ho_newton_report {
  int increments;                              /* converged */
  int newton[DT_HO_NEWTON_MAX_INCREMENTS];     /* corrections per converged increment */
  long n_plastic[DT_HO_NEWTON_MAX_INCREMENTS]; /* plastic points at convergence */
  int newton_total, pcg_total;
  /* the last increment's relative residual at each evaluation, the predictor's excepted */
  double history[DT_HO_NEWTON_MAX_HISTORY];
  int n_history;
  dt_reason reason; /* DT_CONVERGED, or why the solve stopped on DT_ERR_NOT_CONVERGED */
} dt_ho_newton_report;

/* Runs the increments from u (in: the start, prescribed DOFs included; out: the solution) and
 * commits each converged one. Displacement-driven increments start with a linear predictor:
 * the tangent at the committed state along the prescribed increment du_D (taken at u + 1e-6
 * du_D, so points at yield that load get the elastoplastic tangent) solves
 * K_t c = f_ext - f_int(u_n) with c = du_D on the fixed DOFs, as newton.c does. Errors
 * (state rolled back to the last converged increment): DT_ERR_NOT_CONVERGED naming the
 * increment when Newton does not converge in max_iter corrections or diverges (the residual
 * growing for three corrections, or past 1e4 times its first value), a failed return mapping
 * (naming element and point), a PCG failure; DT_ERR_INPUT for bad options; DT_ERR_CANCELLED
 * when opts->progress asks to stop; with opts->gpu, DT_ERR_UNSUPPORTED without CUDA in the
 * build and the device's errors (DT_ERR_DEVICE_NOMEM when the state does not fit, DT_ERR_CUDA). */
dt_status dt_ho_plastic_solve(dt_ho_plastic *pl, const dt_ho_newton_problem *pb,
                              const dt_ho_newton_opts *opts, double *u, dt_ho_newton_report *rep,
                              dt_ctx *ctx);

#endif
