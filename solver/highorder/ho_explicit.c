/* Central-difference time loop and stable-step estimate of order-P meshes (ho_explicit.h). */
#include "highorder/ho_explicit.h"

#include <math.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int is_fixed(const dt_ho_explicit_problem *pb, int i) { return pb->fixed && pb->fixed[i]; }

static double dot(int n, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

static dt_status check_problem(const dt_ho_explicit_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int free_dofs = 0;
  DT_CHECK(pb->n > 0 && pb->n % 3 == 0, ctx, DT_ERR_INPUT,
           "explicit dynamics: %d DOFs is not a positive multiple of 3", pb->n);
  for (int a = 0; a < pb->n / 3; a++)
    DT_CHECK(pb->mass[a] > 0.0 && isfinite(pb->mass[a]), ctx, DT_ERR_INPUT,
             "explicit dynamics: lumped mass of node %d is %g, not positive", a, pb->mass[a]);
  for (int i = 0; i < pb->n; i++) free_dofs += !is_fixed(pb, i);
  DT_CHECK(free_dofs > 0, ctx, DT_ERR_INPUT, "explicit dynamics: every DOF is fixed");
cleanup:
  return rc;
}

/* Scratch of a problem: the per-DOF mass diagonal (CG preconditioner) and CG settings. */
typedef struct mass_solver {
  double *diag;
  dt_ho_pcg_opts cg;
  int iterations;
} mass_solver;

/* y = M x on the free DOFs (0 on fixed ones). */
static dt_status mass_apply(const dt_ho_explicit_problem *pb, const mass_solver *ms,
                            const double *x, double *y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (pb->M)
    DT_TRY(pb->M(pb->M_op, x, y, ctx));
  else
    for (int i = 0; i < pb->n; i++) y[i] = ms->diag[i] * x[i];
  for (int i = 0; i < pb->n; i++)
    if (is_fixed(pb, i)) y[i] = 0.0;
cleanup:
  return rc;
}

/* a = M^-1 r on the free DOFs (0 on fixed ones); a holds the CG initial guess on entry. */
static dt_status mass_solve(const dt_ho_explicit_problem *pb, mass_solver *ms, const double *r,
                            double *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (pb->M) {
    dt_ho_pcg_result res;
    for (int i = 0; i < pb->n; i++)
      if (is_fixed(pb, i)) a[i] = 0.0;
    rc = dt_ho_pcg_solve(pb->n, pb->M, pb->M_op, ms->diag, pb->fixed, r, a, &ms->cg, &res, ctx);
    ms->iterations += res.iterations;
    if (rc != DT_OK) dt_ctx_prefix(ctx, "explicit dynamics, consistent mass solve");
    DT_TRY(rc);
  } else {
    for (int i = 0; i < pb->n; i++) a[i] = is_fixed(pb, i) ? 0.0 : r[i] / ms->diag[i];
  }
cleanup:
  return rc;
}

static dt_status mass_solver_init(const dt_ho_explicit_problem *pb, double rtol, int max_it,
                                  mass_solver *ms, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  memset(ms, 0, sizeof(*ms));
  ms->cg.rtol = rtol > 0.0 ? rtol : 1e-12;
  ms->cg.max_it = max_it > 0 ? max_it : 1000;
  DT_ALLOC(ms->diag, pb->n, ctx, "explicit dynamics mass diagonal");
  for (int i = 0; i < pb->n; i++) ms->diag[i] = pb->mass[i / 3];
cleanup:
  return rc;
}

static dt_status omega_max(const dt_ho_explicit_problem *pb, mass_solver *ms, int its,
                           double *omega, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *x = NULL, *y = NULL, *z = NULL, lmax = 0.0;
  unsigned seed = 2463534242u;
  int n = pb->n;
  DT_ALLOC(x, n, ctx, "power iteration vector");
  DT_ALLOC(y, n, ctx, "power iteration product");
  DT_ALLOC(z, n, ctx, "power iteration mass product");
  for (int i = 0; i < n; i++) {
    seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
    x[i] = is_fixed(pb, i) ? 0.0 : (double)(seed >> 8) / (double)(1u << 24) - 0.5;
  }
  for (int it = 0; it < (its > 0 ? its : 40); it++) {
    /* Rayleigh quotient x.Kx / x.Mx, then x <- M^-1 K x scaled to unit max */
    DT_TRY(pb->K(pb->K_op, x, y, ctx));
    for (int i = 0; i < n; i++)
      if (is_fixed(pb, i)) y[i] = 0.0;
    DT_TRY(mass_apply(pb, ms, x, z, ctx));
    double lam = dot(n, x, y) / dot(n, x, z);
    if (lam > lmax) lmax = lam;
    memset(z, 0, sizeof(double) * n);
    DT_TRY(mass_solve(pb, ms, y, z, ctx));
    double big = 0.0;
    for (int i = 0; i < n; i++) big = fmax(big, fabs(z[i]));
    DT_CHECK(big > 0.0 && isfinite(big), ctx, DT_ERR_INTERNAL,
             "power iteration for the stable time step lost its vector (max |x| = %g)", big);
    for (int i = 0; i < n; i++) x[i] = z[i] / big;
  }
  *omega = sqrt(lmax);
cleanup:
  dt_free(x);
  dt_free(y);
  dt_free(z);
  return rc;
}

dt_status dt_ho_explicit_omega_max(const dt_ho_explicit_problem *pb, int its, double *omega,
                                   dt_ctx *ctx) {
  dt_status rc = DT_OK;
  mass_solver ms = {0};
  DT_TRY(check_problem(pb, ctx));
  DT_TRY(mass_solver_init(pb, 0.0, 0, &ms, ctx));
  DT_TRY(omega_max(pb, &ms, its, omega, ctx));
cleanup:
  dt_free(ms.diag);
  return rc;
}

static double amplitude(const dt_ho_explicit_problem *pb, double t) {
  return pb->amplitude ? pb->amplitude(t, pb->amplitude_user) : 1.0;
}

dt_status dt_ho_explicit_check_opts(const dt_ho_explicit_opts *o, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(o->steps >= 1 || (o->steps == 0 && o->t_end > 0.0 && isfinite(o->t_end)), ctx,
           DT_ERR_INPUT, "explicit dynamics: %d steps to t_end %g: need at least 1 step", o->steps,
           o->t_end);
  DT_CHECK(o->alpha >= 0.0 && isfinite(o->alpha), ctx, DT_ERR_INPUT,
           "explicit dynamics: damping coefficient alpha = %g is not finite and >= 0", o->alpha);
  DT_CHECK(o->dt >= 0.0 && isfinite(o->dt), ctx, DT_ERR_INPUT,
           "explicit dynamics: time step %g is not finite and >= 0 (0 picks the stable step)",
           o->dt);
  DT_CHECK(o->safety <= 1.0, ctx, DT_ERR_INPUT,
           "explicit dynamics: safety factor %g is above 1 (the stability limit)", o->safety);
cleanup:
  return rc;
}

dt_status dt_ho_explicit_pick_dt(const dt_ho_explicit_opts *o, double omega_max, int its,
                                 double *dt, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double safety = o->safety > 0.0 ? o->safety : 0.9, limit = 2.0 / omega_max;
  DT_CHECK(o->dt <= limit, ctx, DT_ERR_INPUT,
           "explicit dynamics: time step %g is above the stable limit 2/omega_max = %g "
           "(omega_max %g by %d power iterations); leave dt 0 for %g x that limit = %g",
           o->dt, limit, omega_max, its, safety, safety * limit);
  *dt = o->dt > 0.0 ? o->dt : safety * limit;
cleanup:
  return rc;
}

dt_status dt_ho_explicit_run(const dt_ho_explicit_problem *pb, const dt_ho_explicit_opts *o,
                             double *u, dt_ho_explicit_monitor mon, void *user,
                             dt_ho_explicit_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  mass_solver ms = {0};
  dt_ho_explicit_result out;
  double *Ku = NULL, *r = NULL, *a = NULL, *d = NULL, *dp = NULL, *Md = NULL, *Mdp = NULL;
  int n = pb->n;
  memset(&out, 0, sizeof(out));
  DT_TRY(check_problem(pb, ctx));
  DT_TRY(dt_ho_explicit_check_opts(o, ctx));
  DT_TRY(mass_solver_init(pb, o->cg_rtol, o->cg_max_it, &ms, ctx));
  int its = o->power_its > 0 ? o->power_its : 40;
  DT_TRY(omega_max(pb, &ms, its, &out.omega_max, ctx));
  double dt = 0.0;
  DT_TRY(dt_ho_explicit_pick_dt(o, out.omega_max, its, &dt, ctx));
  double dt2 = dt * dt;
  double c1 = 1.0 - 0.5 * o->alpha * dt, c2 = 1.0 + 0.5 * o->alpha * dt;
  out.dt = dt;
  int steps = dt_ho_explicit_steps(o, dt);
  ms.iterations = 0;
  DT_ALLOC(Ku, n, ctx, "explicit K u");
  DT_ALLOC(r, n, ctx, "explicit residual");
  DT_ALLOC(a, n, ctx, "explicit acceleration");
  DT_ALLOC(d, n, ctx, "explicit increment");
  DT_ALLOC(dp, n, ctx, "explicit previous increment");
  DT_ALLOC(Md, n, ctx, "explicit mass times increment");
  DT_ALLOC(Mdp, n, ctx, "explicit previous mass times increment");
  memset(a, 0, sizeof(double) * n);
  double t0 = now();
  /* start-up (2.45)-(2.46): M a_0 = f_0 - K u_0, d_{-1} = u_0 - u_{-1} = -dt^2/2 a_0 */
  DT_TRY(pb->K(pb->K_op, u, Ku, ctx));
  double g = amplitude(pb, 0.0);
  for (int i = 0; i < n; i++) r[i] = is_fixed(pb, i) ? 0.0 : g * pb->f[i] - Ku[i];
  DT_TRY(mass_solve(pb, &ms, r, a, ctx));
  for (int i = 0; i < n; i++) {
    dp[i] = -0.5 * dt2 * a[i];
    Mdp[i] = -0.5 * dt2 * r[i];
  }
  /* T_{-1/2} + U_{-1/2}, U_{-1/2} = 1/2 u_{-1}.K u_0 */
  out.start = 0.5 * dot(n, dp, Mdp) / dt2;
  for (int i = 0; i < n; i++) out.start += 0.5 * (u[i] - dp[i]) * Ku[i];
  if (mon) {
    dt_ho_explicit_state s = {0, 0.0, dt, u, 0.0, 0.0, 0.0, 0.0, out.start};
    DT_TRY(mon(&s, user, ctx));
  }
  for (int step = 0; step < steps; step++) {
    double t = step * dt;
    if (step > 0) {
      DT_TRY(pb->K(pb->K_op, u, Ku, ctx));
      g = amplitude(pb, t);
      for (int i = 0; i < n; i++) r[i] = is_fixed(pb, i) ? 0.0 : g * pb->f[i] - Ku[i];
      DT_TRY(mass_solve(pb, &ms, r, a, ctx));
    }
    /* d_n = (dt^2 a_n + c1 d_{n-1}) / c2, and M d_n by the same recursion (M a_n = r_n) */
    double work = 0.0, diss = 0.0, internal = 0.0, kin = 0.0;
    for (int i = 0; i < n; i++) {
      d[i] = (dt2 * a[i] + c1 * dp[i]) / c2;
      Md[i] = (dt2 * r[i] + c1 * Mdp[i]) / c2;
      double s = d[i] + dp[i];
      work += (is_fixed(pb, i) ? 0.0 : g * pb->f[i]) * s;
      diss += s * (Md[i] + Mdp[i]);
      internal += (u[i] + d[i]) * Ku[i];
      kin += d[i] * Md[i];
      u[i] += d[i];
    }
    out.external += 0.5 * work;
    out.damping += o->alpha / (4.0 * dt) * diss;
    out.internal = 0.5 * internal;
    out.kinetic = 0.5 * kin / dt2;
    double have = out.kinetic + out.internal + out.damping, want = out.external + out.start;
    DT_CHECK(isfinite(have) && isfinite(want), ctx, DT_ERR_NOT_CONVERGED,
             "explicit dynamics: energies are no longer finite at step %d (t = %g, dt = %g): "
             "the integration is unstable",
             step + 1, t + dt, dt);
    double scale =
        fmax(fabs(out.external), fmax(fabs(out.kinetic + out.internal), fabs(out.start)));
    if (scale > 0.0) out.balance = fmax(out.balance, fabs(have - want) / scale);
    double *sw = dp;
    dp = d, d = sw;
    sw = Mdp, Mdp = Md, Md = sw;
    out.steps = step + 1;
    if (mon && ((o->out_every > 0 && out.steps % o->out_every == 0) || out.steps == steps)) {
      dt_ho_explicit_state s = {out.steps,    out.steps * dt, dt,          u,        out.kinetic,
                                out.internal, out.external,   out.damping, out.start};
      DT_TRY(mon(&s, user, ctx));
    }
  }
  out.seconds = now() - t0;
cleanup:
  out.cg_iterations = ms.iterations;
  if (res) *res = out;
  dt_free(ms.diag);
  dt_free(Ku);
  dt_free(r);
  dt_free(a);
  dt_free(d);
  dt_free(dp);
  dt_free(Md);
  dt_free(Mdp);
  return rc;
}
