/* Results of one converged increment, as host arrays, and the run's history and summary.
 *
 * The analysis driver fills a dt_fields from the backend once per converged increment
 * (only the fields the output options request) and hands it to the writers in solver/io/.
 * All arrays are owned by the dt_fields and freed by dt_fields_free. */
#ifndef DT_RESULTS_H
#define DT_RESULTS_H

typedef struct dt_fields {
  int step;             /* 0-based step index */
  int increment;        /* 1-based increment number within the step */
  int global_increment; /* 1-based count of converged increments over the whole run */
  double load_factor;   /* fraction of the step applied, 0..1 */
  double time;          /* step index + load_factor (the "total time" of Abaqus) */
  int n_nodes;
  double *u;  /* 3 * n_nodes displacements (z = 0 in 2D), or NULL if not requested */
  double *rf; /* 3 * n_nodes reaction forces, nonzero only on constrained DOFs, or NULL */
  int n_elems;
  int *qp_ptr; /* n_elems + 1 offsets: points of element e are qp_ptr[e] .. qp_ptr[e+1]-1 */
  int n_qp;
  double *qp_x;      /* 3 * n_qp coordinates of the integration points */
  double *qp_stress; /* 6 * n_qp Cauchy stress, Voigt (xx,yy,zz,xy,xz,yz), or NULL */
  double *qp_strain; /* 6 * n_qp total strain, engineering shears, or NULL */
  double *qp_peeq;   /* n_qp equivalent plastic strain, or NULL */
} dt_fields;

void dt_fields_free(dt_fields *f);

/* von Mises equivalent of a Voigt stress. */
double dt_mises(const double s[6]);

#define DT_MAX_MONITORS 16

/* One row of the CSV history: one converged increment. */
typedef struct dt_history_row {
  int step;           /* 0-based here; written 1-based in CSV and JSON (user-facing) */
  int increment;      /* 1-based within the step */
  double load_factor; /* within the step */
  double time;        /* step + load_factor */
  int newton_iters;
  int pcg_iters;    /* total over the increment's Newton iterations */
  double residual;  /* final relative force residual */
  int cutbacks;     /* cutbacks before this increment converged */
  int n_plastic_qp; /* integration points in the plastic state */
  int n_monitors;
  double monitor[DT_MAX_MONITORS];
} dt_history_row;

/* Why an analysis stopped (STYLE.md §6: not converging is a reason, not an error). */
typedef enum dt_reason {
  DT_CONVERGED = 0,
  DT_DIVERGED_ITS = 1,            /* Newton hit its iteration limit */
  DT_DIVERGED_NAN = 2,            /* NaN or Inf in the residual or solution */
  DT_DIVERGED_RESIDUAL = 3,       /* the residual grew by orders of magnitude */
  DT_DIVERGED_LINEAR_SOLVER = 4,  /* PCG did not converge (iteration limit) */
  DT_DIVERGED_INDEFINITE = 5,     /* PCG met a non-positive curvature: the tangent lost
                                    stiffness, typically a collapse mechanism */
  DT_MATERIAL_NO_CONVERGENCE = 6, /* return mapping failed at some point */
  DT_INCREMENT_TOO_SMALL = 7      /* automatic incrementation reached the minimum increment */
} dt_reason;

const char *dt_reason_name(dt_reason r);

/* What a run did, for the JSON summary and the caller. */
typedef struct dt_run_summary {
  int completed;      /* 1 if every step finished */
  dt_reason reason;   /* why the run stopped if not completed */
  char message[1024]; /* human sentence: what failed, where, at which load */
  char backend[32];
  int checkpoint_unusable; /* the run stopped because the checkpoint to resume from could not
                              be restored (dt_run_options, resume) */
  int steps_completed;
  int increments; /* converged increments */
  int cutbacks;
  long newton_iters;
  long pcg_iters;
  double last_time; /* step + load factor of the last converged increment */
  double seconds_total;
  double seconds_setup; /* problem compilation and upload to the backend */
  double seconds_assembly;
  double seconds_stress;   /* stress update + internal force */
  double seconds_solver;   /* linear solver, its preconditioner setups included */
  double seconds_pc_setup; /* of it, the preconditioner setups (AMG builds and refreshes) */
  /* Calls timed in seconds_assembly and seconds_stress. Not derived from newton_iters: an
   * increment makes one stress update more than it makes corrections (the update that shows
   * convergence), and cut-back increments make calls too. */
  long assembly_calls;
  long stress_calls;
  /* What the Newton driver's robustness measures did (newton.c): linear predictors of
   * displacement-driven increments, capped solves used as inexact steps, preconditioner
   * escalations after a failed solve, line searches where Newton stalled. */
  long predictor_solves;
  long inexact_solves;
  long pc_escalations;
  long pc_setups_kept;   /* setups that kept AMG's coarse levels or the direct factor */
  long pc_auto_switches; /* "auto" moved from block Jacobi or two_level to AMG (newton.c) */
  int pc_final;          /* the preconditioner in use at the end (dt_precond_kind), -1: none */
  long line_searches;
  long pcg_solves;       /* linear solves (Newton corrections, the linear predictors' included) */
  int pcg_median;        /* the median of their PCG iterations (dt_pcg_counts_median) */
  int pcg_max;           /* and the most of one solve */
  double seconds_output; /* per converged increment: fields downloaded, files written */
  double seconds_output_download; /* the part of seconds_output spent getting the fields from
                                     the backend into host arrays */
  double seconds_loads;  /* per step: loads and constraints formed and sent to the backend */
  long time_steps;       /* explicit steps: time steps done over the run */
  double time_step;      /* explicit steps: the last step's time step */
  double energy_balance; /* explicit steps: the largest |balance| / largest energy term */
  double max_u;          /* at the last converged increment */
  double max_mises;
  double max_peeq;
} dt_run_summary;

#endif
