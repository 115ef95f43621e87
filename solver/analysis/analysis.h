/* Running an analysis: steps, increments with cutback, Newton iterations, output.
 *
 * dt_analysis_run compiles the model, uploads it to the chosen backend and applies the steps
 * in sequence. Each increment is solved by Newton-Raphson (newton.c); a divergent increment is
 * rolled back and retried with a quarter of the load increment, up to the step's cutback
 * limit, and the run stops with a reason when no smaller increment helps (e.g. above the
 * limit load). Progress is reported through a callback, which can also cancel the run. */
#ifndef DT_ANALYSIS_H
#define DT_ANALYSIS_H

#include "backend/backend.h"
#include "model/model.h"
#include "core/results.h"
#include "io/size_scan.h"

typedef enum dt_event_kind {
  DT_EV_INFO = 0, /* a line of setup information (text) */
  DT_EV_STEP_START = 1,
  DT_EV_INCREMENT_START = 2,
  DT_EV_NEWTON_ITER = 3,
  DT_EV_INCREMENT_DONE = 4,
  DT_EV_CUTBACK = 5,
  DT_EV_STEP_DONE = 6,
  DT_EV_EXPLICIT = 7 /* an explicit step's progress: time, step size, energies (below) */
} dt_event_kind;

/* The energy balance of an explicit run, at one time (explicit_kernel.h says how each term is
 * integrated): kinetic energy, internal work, external work, work of the damping forces, the
 * balance kinetic + internal + damping - external - initial kinetic, which central differences
 * keep at 0 to round-off, and the strain energy (elastic materials: the potential, so internal
 * work minus strain energy is what plasticity dissipated), of which the hourglass energy of
 * one-point hex8 elements (0 for other elements) is a part. */
typedef struct dt_energy {
  double time;
  double kinetic, internal, external, damping, balance, strain, hourglass;
} dt_energy;

typedef struct dt_progress {
  dt_event_kind kind;
  int step; /* 0-based */
  int n_steps;
  const char *step_name;
  int increment;      /* 1-based within the step */
  double load_factor; /* target load factor of the increment, within the step */
  double dlambda;     /* size of the increment */
  int newton_iter;    /* 1-based */
  double residual;    /* relative force residual */
  double du_ratio;    /* |correction| / |increment| */
  int pcg_iters;      /* of this Newton iteration */
  double pcg_rtol;    /* the relative tolerance that solve was given (forcing.h) */
  int n_plastic;
  dt_reason reason;    /* for CUTBACK: why */
  double percent;      /* overall progress 0..100 */
  const char *text;    /* INFO line or CUTBACK explanation */
  int resumed;         /* INFO: 1 when this line reports a resume from a checkpoint */
  const char *backend; /* the backend running the analysis ("cpu", "cuda"), once chosen */
  /* DT_EV_EXPLICIT: */
  double time;          /* simulated time within the step */
  double time_step;     /* its time step */
  long time_steps;      /* time steps done in the step */
  long time_steps_step; /* the step's time steps */
  double eta_seconds;   /* estimated wall time left in the run */
  int has_energy;       /* energy is set (an output frame's balance) */
  dt_energy energy;
} dt_progress;

/* Return nonzero to cancel the run (it stops at the next Newton iteration, keeping the
 * increments already completed). */
typedef int (*dt_progress_fn)(const dt_progress *ev, void *user);
/* Called once per converged increment with its fields and history row (borrowed). */
typedef void (*dt_increment_fn)(const dt_fields *f, const dt_history_row *row, void *user);

/* Called before each checkpoint: a caller that writes results of its own from on_increment
 * asynchronously finishes them here, so that a checkpoint never keeps an increment whose results
 * are not on disk (the run resumed from it does not compute that increment again). */
typedef void (*dt_checkpoint_fn)(void *user);

struct dt_backend_ops;
/* Called once after the last increment, before the backend is destroyed (benchmarks). */
typedef void (*dt_backend_fn)(const struct dt_backend_ops *ops, void *impl, void *user);

typedef struct dt_run_options {
  const char *backend; /* "cpu", "cuda", "auto" (NULL: auto) */
  int threads;         /* CPU threads, 0 for the default */
  int device;          /* GPU ordinal for device backends */
  /* A run split over several devices (backend/parts/parts.h): n_devices > 1 gives each of
   * devices[0 .. n_devices-1] a METIS part of the mesh (device is then ignored); 0 or 1: one
   * device, `device`. */
  int n_devices;
  int devices[DT_MAX_RUN_DEVICES];
  const char *outdir;   /* write VTU/CSV/JSON here; NULL: no files */
  const char *job_name; /* names the files CalculiX names after the job (<job_name>.frd, when
                           the model asks for it); NULL: "results" */
  dt_progress_fn progress;
  dt_increment_fn on_increment;
  dt_backend_fn before_destroy;
  void *user;
  /* Checkpointing: when set, a checkpoint is written to this path after every converged
   * increment (atomically). With resume = 1 and an existing checkpoint for this model, the
   * run continues from it: completed increments are not recomputed, outdir keeps their
   * results, and an INFO event says so. */
  const char *checkpoint;
  int resume;
  dt_checkpoint_fn before_checkpoint;
} dt_run_options;

/* Estimate the memory the model needs on a backend (device memory for cuda, host memory for
 * cpu) without uploading anything: compiles the problem and asks the backend. */
dt_status dt_analysis_estimate(const dt_model *m, const char *backend, double *bytes, dt_ctx *ctx);

/* The least memory any backend takes for a model of the size s (from dt_size_scan, before the
 * model is built): what every backend's estimate counts whatever the mesh's connectivity and
 * the job's options, its DT_VEC_COUNT solution vectors and the preconditioner's diagonal
 * blocks per DOF (DOFs only where the importer keeps every node, s->keeps_all), and the state
 * of each integration point (hex20 counted at the reduced rule's 8 points, which a section may
 * choose). The tangent (assembled or per element) and a coarse space come on top, so
 * dt_analysis_estimate of the built model is never below it: a size whose floor exceeds a
 * device's memory cannot fit there. */
double dt_analysis_floor_bytes(const dt_model_size *s);

/* Run the analysis. Returns DT_OK when every step completed; DT_ERR_NOT_CONVERGED when it
 * stopped because an increment could not converge (summary->reason and message say why and
 * where; results up to the last converged increment are kept); other codes for bad input,
 * resources or cancellation. The summary is filled in every case. */
dt_status dt_analysis_run(const dt_model *m, const dt_run_options *opt, dt_run_summary *summary,
                          dt_ctx *ctx);

#endif
