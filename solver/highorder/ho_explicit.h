/* Explicit central-difference dynamics of order-P hexahedral meshes (seed 002, §1.6-1.8).
 *
 * M u'' + C u' + K u = g(t) f,  C = alpha M (mass-proportional damping),
 * integrated by central differences in the form of (2.40)-(2.42):
 *   (a0 + a1 alpha) M u_{n+1} = f_n - K u_n + 2 a0 M u_n - (a0 - a1 alpha) M u_{n-1},
 * a0 = 1/dt^2, a1 = 1/(2 dt), written for the increments d_n = u_{n+1} - u_n:
 *   d_n = (dt^2 M^-1 (f_n - K u_n) + (1 - alpha dt/2) d_{n-1}) / (1 + alpha dt/2),
 * which is the leapfrog v_{n+1/2} = d_n / dt with the velocity of the damping term the mean of
 * the two half steps. (The seed's element-wise (2.49) drops the a0 M u_n term; this is derived
 * from (2.44).) Start-up (2.45)-(2.46) with zero initial velocity:
 *   M a_0 = f_0 - K u_0,  u_{-1} = u_0 + dt^2/2 a_0.
 * Each step needs one product K u and vector updates, plus M^-1 r: a division by the lumped
 * mass, or a CG solve with the consistent mass (Jacobi-preconditioned by the lumped one), so a
 * GPU port needs only the operator product of cuda_highorder.
 *
 * Dirichlet conditions by masking: fixed DOFs keep their value of u on entry.
 *
 * Energies, for the discrete solution exactly in balance (multiply step n by
 * (u_{n+1} - u_{n-1})/2 and sum):
 *   kinetic  T_{n+1/2} = 1/2 v_{n+1/2}.M v_{n+1/2},
 *   internal U_{n+1/2} = 1/2 u_{n+1}.K u_n (symmetric K: the mean of the two strain energies'
 *            bilinear form, no extra product),
 *   external W_n = sum_k f_k.(u_{k+1} - u_{k-1})/2,
 *   damping  D_n = sum_k dt alpha v_k.M v_k, v_k = (u_{k+1} - u_{k-1})/(2 dt),
 * with T + U + D = W + E_start, E_start = T_{-1/2} + U_{-1/2} the O(dt^2) energy of the
 * start-up half step. The balance holds to round-off (lumped) or the CG tolerance
 * (consistent) whatever dt below the limit, which is what the conservation test checks.
 *
 * Stable step: dt <= 2/omega_max for the undamped scheme (damping of this form does not
 * lower it), omega_max^2 the largest eigenvalue of M^-1 K on the free DOFs, estimated by power
 * iteration with the Rayleigh quotient (which approaches it from below, hence the safety
 * factor, default 0.9). */
#ifndef DT_HO_EXPLICIT_H
#define DT_HO_EXPLICIT_H

#include <math.h>

#include "core/dt_status.h"
#include "highorder/ho_pcg.h"

/* Load amplitude g(t); NULL in the problem means a step, g = 1 for all t >= 0. */
typedef double (*dt_ho_amplitude_fn)(double t, void *user);

typedef struct dt_ho_explicit_problem {
  int n;            /* DOFs, 3 x nodes, node-major */
  dt_ho_apply_fn K; /* stiffness product v = K u */
  const void *K_op;
  const double *mass; /* lumped mass per node (n/3 entries, positive) */
  dt_ho_apply_fn M;   /* consistent mass product; NULL: the lumped mass is the mass */
  const void *M_op;
  const unsigned char *fixed; /* per DOF, nonzero = prescribed (NULL: none) */
  const double *f;            /* load vector, f_ext(t) = g(t) f */
  dt_ho_amplitude_fn amplitude;
  void *amplitude_user;
} dt_ho_explicit_problem;

typedef struct dt_ho_explicit_opts {
  double dt;      /* time step; 0 picks safety x 2/omega_max */
  double safety;  /* fraction of 2/omega_max when dt = 0 (0 picks 0.9) */
  int steps;      /* number of steps; 0 with t_end > 0: as many as reach t_end */
  double t_end;   /* end time when steps is 0 */
  double alpha;   /* mass-proportional damping coefficient (1/time), >= 0 */
  int power_its;  /* power iterations for omega_max (0 picks 40) */
  int out_every;  /* monitor every this many steps (0: first and last only) */
  double cg_rtol; /* consistent mass: CG tolerance per step (0 picks 1e-12) */
  int cg_max_it;  /* consistent mass: CG iteration cap (0 picks 1000) */
} dt_ho_explicit_opts;

/* Checks the options every time loop takes (steps or t_end, damping, dt, safety). Errors:
 * DT_ERR_INPUT naming the option. */
dt_status dt_ho_explicit_check_opts(const dt_ho_explicit_opts *o, dt_ctx *ctx);
/* The step of a run: opts->dt, or safety x 2/omega_max when it is 0 (omega_max from `its`
 * power iterations, for the message). Errors: DT_ERR_INPUT for a given dt above the limit. */
dt_status dt_ho_explicit_pick_dt(const dt_ho_explicit_opts *o, double omega_max, int its,
                                 double *dt, dt_ctx *ctx);

/* The steps a run takes with step dt: opts->steps, or when it is 0 the fewest that reach
 * opts->t_end. */
static inline int dt_ho_explicit_steps(const dt_ho_explicit_opts *o, double dt) {
  if (o->steps > 0) return o->steps;
  double n = ceil(o->t_end / dt - 1e-9);
  return n < 1.0 ? 1 : n > 2e9 ? 2000000000 : (int)n;
}

/* What a monitor sees after step `step` (u at t = step dt, energies at the half step after). */
typedef struct dt_ho_explicit_state {
  int step;
  double t, dt;
  const double *u; /* u_step */
  double kinetic, internal, external, damping, start;
} dt_ho_explicit_state;

typedef dt_status (*dt_ho_explicit_monitor)(const dt_ho_explicit_state *s, void *user, dt_ctx *ctx);

typedef struct dt_ho_explicit_result {
  double dt, omega_max; /* step used; omega_max estimated */
  int steps;
  double kinetic, internal, external, damping, start; /* at the end */
  double balance;    /* max over the steps of |T + U + D - W - E_start| / max(W, T + U) */
  int cg_iterations; /* consistent mass: total CG iterations */
  double seconds;    /* wall time of the time loop (without the power iteration) */
} dt_ho_explicit_result;

/* omega_max^2 of M^-1 K on the free DOFs by `its` power iterations from a fixed pseudo-random
 * start. Errors: DT_ERR_INPUT for a non-positive lumped mass (naming the node) or no free DOF;
 * those of K, M and CG. */
dt_status dt_ho_explicit_omega_max(const dt_ho_explicit_problem *pb, int its, double *omega_max,
                                   dt_ctx *ctx);

/* Runs opts->steps steps from u (in: u_0, zero velocity; out: u_steps). mon (may be NULL) is
 * called after step 0 (the state at t = 0), every out_every steps and after the last. res
 * may be NULL. Errors (DT_ERR_INPUT): steps < 1, alpha < 0, dt not finite or negative, a
 * given dt above the stable limit 2/omega_max (the message gives the limit and the step the
 * default would take); DT_ERR_NOT_CONVERGED when the energies stop being finite (unstable); a
 * monitor's own error; those of K, M and CG. */
dt_status dt_ho_explicit_run(const dt_ho_explicit_problem *pb, const dt_ho_explicit_opts *opts,
                             double *u, dt_ho_explicit_monitor mon, void *user,
                             dt_ho_explicit_result *res, dt_ctx *ctx);

#endif
