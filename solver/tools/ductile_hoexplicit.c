/* ductile-hoexplicit: explicit central-difference dynamics of the seed's cantilever on order-P
 * hexahedra (solver/highorder/ho_explicit.h, ho_explicit_beam.h).
 *
 * The beam is 10 x 1 x 1, clamped at x = 0, loaded by a step traction -q in y on x = 10 (q is
 * small by default, 1e-3, so the tip moves about 4e-3 and the linear model holds; the seed's
 * unit load gives 4.0 on E = 1000, 40% of the length). It prints the stable step (power
 * iteration), the steps and time per step, the tip deflection and energies every --every steps,
 * and at the end the tip deflection against Timoshenko's static value (and the static PCG
 * solution of the same mesh with --static). Undamped, it also prints the period measured from
 * the tip's crossings of its mean against Euler-Bernoulli's 2 pi / omega_1. --damping crit
 * takes alpha = 2 omega_1, critical for the first bending mode.
 *
 * --gpus LIST runs the time loop on the GPUs (cuda/cuda_ho_explicit.cu): one METIS part per
 * entry of the list (a GPU named twice carries two parts), lumped mass only. The energies are
 * then sampled every --every steps (1000 by default) and the setup, time per step, halo values
 * and device memory per GPU are printed as well.
 *
 * --msh FILE runs a Gmsh hexahedral mesh instead (ho_explicit_msh.h): --refine K splits every
 * hexahedron into K^3 on reading, --fix GROUP (repeatable) fixes the nodes of a physical group,
 * --pressure GROUP=P (repeatable) loads a surface group by a step pressure P (traction -P n).
 * It prints the watched node's displacement (the node nearest the centroid of the first loaded
 * group's nodes): its magnitude and its component along the load's resultant. Without --steps
 * or --time it runs 100 steps. */
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_explicit.h"
#include "highorder/ho_explicit_beam.h"
#include "highorder/ho_explicit_msh.h"
#include "tool_args.h"
#ifdef DUCTILE_HAVE_CUDA
#include "cuda/cuda_entry.h"
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int usage(void) {
  fprintf(stderr,
          "usage: ductile-hoexplicit [--order P] [--mesh NXxNYxNZ] [--steps N] "
          "[--time T] [--damping ALPHA|crit] [--load Q] [--E E] [--nu NU] [--rho RHO] "
          "[--mass gll|rowsum|consistent] [--dt DT] [--every N] [--static] [--gpus LIST]\n"
          "       ductile-hoexplicit --msh FILE [--refine K] --fix GROUP [--fix GROUP2 ...] "
          "--pressure GROUP=P [...] [--order P] [--steps N | --time T] [--damping ALPHA] [--E E] "
          "[--nu NU] [--rho RHO] [--mass gll|rowsum|consistent] [--dt DT] [--every N] "
          "[--gpus LIST]\n");
  return 2;
}

typedef struct tool_state {
  const dt_ho_beam *b;
  int every;
  double mid, first, last, prev_t, prev_y;
  int crossings, have_prev;
  double lo, hi;
  double tip;
} tool_state;

/* The tip's deflection y after step `step`: extremes and crossings of the static value. */
static void track(tool_state *st, int step, double t, double y, const double e[4]) {
  st->tip = y;
  st->lo = fmin(st->lo, y);
  st->hi = fmax(st->hi, y);
  /* crossings of the static value stand in for the mean while the run goes on */
  if (st->have_prev && (st->prev_y < st->mid) != (y < st->mid)) {
    double tc = st->prev_t + (t - st->prev_t) * (st->mid - st->prev_y) / (y - st->prev_y);
    if (st->crossings == 0) st->first = tc;
    st->last = tc;
    st->crossings++;
  }
  st->prev_t = t, st->prev_y = y, st->have_prev = 1;
  if (e && st->every > 0 && step % st->every == 0)
    printf("  step %8d  t %10.5f  tip %+.6e  T %.4e  U %.4e  W %.4e  D %.4e\n", step, t, y, e[0],
           e[1], e[2], e[3]);
}

static dt_status monitor(const dt_ho_explicit_state *s, void *user, dt_ctx *ctx) {
  (void)ctx;
  double e[4] = {s->kinetic, s->internal, s->external, s->damping};
  track(user, s->step, s->t, -s->u[3 * ((tool_state *)user)->b->tip + 1], e);
  return DT_OK;
}

#ifdef DUCTILE_HAVE_CUDA
static dt_status monitor_gpu(const dt_multi_explicit_sample *s, void *user, dt_ctx *ctx) {
  (void)ctx;
  double e[4] = {s->kinetic, s->internal, s->external, s->damping};
  track(user, s->step, s->t, -s->watch[0], s->has_energy ? e : NULL);
  return DT_OK;
}

/* The time loop on the GPUs: mesh m with its global lumped mass, load and fixed DOFs split
 * into one part per entry of devices, the n_watch global DOFs `watch` handed to mon. `op` is
 * the whole mesh's operator, released first (it served the load; the parts build their own). */
static dt_status run_gpus(const dt_ho_mesh *m, dt_ho_elastic *op, double E, double nu,
                          const double *mass, const double *f, const unsigned char *fixed,
                          int n_watch, const int *watch, const int *devices, int n,
                          const dt_ho_explicit_opts *o, dt_multi_explicit_monitor mon, void *st,
                          dt_ho_explicit_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_explicit_parts xp;
  dt_multi_explicit_info info;
  double **u = NULL, t0;
  const dt_ho_elastic *ops[DT_MULTI_MAX_GPUS];
  struct timespec ts;
  memset(&xp, 0, sizeof xp);
  DT_CHECK(n <= DT_MULTI_MAX_GPUS, ctx, DT_ERR_INPUT, "%d parts; at most %d", n, DT_MULTI_MAX_GPUS);
  dt_ho_elastic_free(op);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  t0 = ts.tv_sec + 1e-9 * ts.tv_nsec;
  DT_TRY(dt_ho_explicit_parts_build(m, n, E, nu, mass, f, fixed, n_watch, watch, &xp, ctx));
  clock_gettime(CLOCK_MONOTONIC, &ts);
  printf("  %d parts (METIS, %.2f%% imbalance, edge cut %lld): built in %.2f s\n", n,
         100.0 * xp.parts.rep.imbalance, (long long)xp.parts.rep.edgecut,
         ts.tv_sec + 1e-9 * ts.tv_nsec - t0);
  u = dt_calloc((size_t)n, sizeof(double *));
  DT_CHECK(u != NULL, ctx, DT_ERR_NOMEM, "out of memory for the parts' displacements");
  for (int s = 0; s < n; s++) {
    ops[s] = &xp.parts.ops[s];
    u[s] = dt_calloc(3 * (size_t)xp.parts.parts[s].n_nodes, sizeof(double));
    DT_CHECK(u[s] != NULL, ctx, DT_ERR_NOMEM, "out of memory for the part displacement");
  }
  {
    dt_multi_explicit_input in = {n,
                                  devices,
                                  xp.parts.parts,
                                  ops,
                                  (const double *const *)xp.mass,
                                  (const double *const *)xp.parts.fre,
                                  (const double *const *)xp.f,
                                  NULL,
                                  NULL,
                                  n_watch,
                                  xp.watch_part,
                                  xp.watch_dof};
    DT_TRY(dt_cuda_multi_explicit(&in, o, u, mon, st, res, &info, ctx));
    printf("  omega_max %.6g (power iteration on the GPUs): stable limit %.6g, dt %.6g, %d steps "
           "to t = %.5g\n",
           res->omega_max, 2.0 / res->omega_max, res->dt, res->steps, res->steps * res->dt);
    printf("  GPU setup %.2f s (uploads, halo exchange %s, stable step); halo values per exchange "
           "%zu\n",
           info.seconds_setup, info.transport, info.halo_values);
    for (int s = 0; s < n; s++)
      printf("  part %d on GPU %d: %d elements, %d nodes, %.2f GB in use on the device\n", s,
             devices[s], xp.parts.parts[s].n_elems, xp.parts.parts[s].n_nodes,
             info.gpu_bytes[s] / 1e9);
  }
cleanup:
  for (int s = 0; s < n && u; s++) dt_free(u[s]);
  dt_free(u);
  dt_ho_explicit_parts_free(&xp);
  return rc;
}
#endif

/* --msh: the watched node's displacement after each step. */
typedef struct msh_state {
  const dt_ho_msh *p;
  int every;
  double u[3], peak;
} msh_state;

static void msh_track(msh_state *st, int step, double t, const double u[3], const double *e) {
  const double *d = st->p->load_dir;
  double mag = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  memcpy(st->u, u, sizeof st->u);
  st->peak = fmax(st->peak, mag);
  if (e && st->every > 0 && step % st->every == 0)
    printf("  step %8d  t %10.4e  |u| %.6e  along load %+.6e  T %.4e  U %.4e  W %.4e  D %.4e\n",
           step, t, mag, u[0] * d[0] + u[1] * d[1] + u[2] * d[2], e[0], e[1], e[2], e[3]);
}

static dt_status msh_monitor(const dt_ho_explicit_state *s, void *user, dt_ctx *ctx) {
  (void)ctx;
  msh_state *st = user;
  double e[4] = {s->kinetic, s->internal, s->external, s->damping};
  msh_track(st, s->step, s->t, s->u + 3 * (size_t)st->p->watch, e);
  return DT_OK;
}

#ifdef DUCTILE_HAVE_CUDA
static dt_status msh_monitor_gpu(const dt_multi_explicit_sample *s, void *user, dt_ctx *ctx) {
  (void)ctx;
  double e[4] = {s->kinetic, s->internal, s->external, s->damping};
  msh_track(user, s->step, s->t, s->watch, s->has_energy ? e : NULL);
  return DT_OK;
}
#endif

/* The run on a Gmsh mesh: 0 on success, 1 on an error (printed). */
static int run_msh(const dt_ho_msh_opts *mo, dt_ho_explicit_opts *o, int every, const int *gpus,
                   int n_gpus) {
  dt_ctx ctx = {0};
  dt_ho_msh p;
  dt_ho_explicit_problem pb;
  dt_ho_explicit_result res;
  msh_state st;
  double *u = NULL;
  int rc = 1, R = mo->refine > 1 ? mo->refine : 1;
  memset(&p, 0, sizeof p);
  memset(&st, 0, sizeof st);
  if (n_gpus > 0 && mo->kind == DT_HO_MASS_CONSISTENT) {
    snprintf(ctx.msg, sizeof ctx.msg,
             "--gpus takes a lumped mass (--mass gll or rowsum), not the consistent one");
    goto fail;
  }
#ifndef DUCTILE_HAVE_CUDA
  if (n_gpus > 0) {
    snprintf(ctx.msg, sizeof ctx.msg, "--gpus: this build has no CUDA backend");
    goto fail;
  }
#endif
  if (dt_ho_msh_setup(mo, &p, &ctx) != DT_OK) goto fail;
  printf("mesh %s refined %d: P=%d, %d elements (%d Gmsh hexahedra), %d nodes, %d free DOFs, mass "
         "%s, E %g nu %g rho %g\n",
         mo->path, R, p.mesh.order, p.mesh.n_elems, p.mesh.n_elems / (R * R * R), p.mesh.n_nodes,
         p.free_dofs, dt_ho_mass_name(mo->kind), mo->E, mo->nu, mo->rho);
  printf("  fixed %d nodes (", p.fixed_nodes);
  for (int i = 0; i < mo->n_fix; i++) printf("%s%s", i ? ", " : "", mo->fix[i]);
  printf("); pressure on %d faces (", p.load_faces);
  for (int i = 0; i < mo->n_pressure; i++)
    printf("%s%s=%g", i ? ", " : "", mo->pressure_group[i], mo->pressure[i]);
  printf("), resultant (%.6e, %.6e, %.6e)\n", p.force[0], p.force[1], p.force[2]);
  {
    const double *x = p.mesh.coords + 3 * (size_t)p.watch;
    printf("  watched node %d at (%.6g, %.6g, %.6g), nearest the centroid of group %s; damping "
           "alpha %g\n",
           p.watch, x[0], x[1], x[2], mo->pressure_group[0], o->alpha);
  }
  st.p = &p;
  st.every = every;
  if (n_gpus > 0) {
#ifdef DUCTILE_HAVE_CUDA
    int w[3] = {3 * p.watch, 3 * p.watch + 1, 3 * p.watch + 2};
    o->out_every = every > 0 ? every : 1000;
    fflush(stdout);
    if (run_gpus(&p.mesh, &p.op, mo->E, mo->nu, p.mass, p.f, p.fixed, 3, w, gpus, n_gpus, o,
                 msh_monitor_gpu, &st, &res, &ctx) != DT_OK)
      goto fail;
#endif
  } else {
    double wmax;
    dt_ho_msh_problem(&p, &pb);
    if (dt_ho_explicit_omega_max(&pb, 40, &wmax, &ctx) != DT_OK) goto fail;
    double dt_run = o->dt > 0 ? o->dt : 0.9 * 2.0 / wmax;
    o->steps = dt_ho_explicit_steps(o, dt_run);
    o->out_every = 1;
    printf("  omega_max %.6g: stable limit 2/omega_max %.6g, dt %.6g, %d steps to t = %.5g\n", wmax,
           2.0 / wmax, dt_run, o->steps, o->steps * dt_run);
    fflush(stdout);
    u = calloc(3 * (size_t)p.mesh.n_nodes, sizeof(double));
    if (!u) goto fail;
    if (dt_ho_explicit_run(&pb, o, u, msh_monitor, &st, &res, &ctx) != DT_OK) goto fail;
  }
  printf("  %d steps in %.3f s: %.3f ms per step; energy balance %.2e (T %.4e U %.4e D %.4e = W "
         "%.4e + start %.2e)\n",
         res.steps, res.seconds, 1e3 * res.seconds / res.steps, res.balance, res.kinetic,
         res.internal, res.damping, res.external, res.start);
  {
    const double *d = p.load_dir;
    printf("  watched node: final |u| %.6e, along the load %+.6e, u (%.6e, %.6e, %.6e); peak |u| "
           "%.6e\n",
           sqrt(st.u[0] * st.u[0] + st.u[1] * st.u[1] + st.u[2] * st.u[2]),
           st.u[0] * d[0] + st.u[1] * d[1] + st.u[2] * d[2], st.u[0], st.u[1], st.u[2], st.peak);
  }
  rc = 0;
  goto done;
fail:
  fprintf(stderr, "ductile-hoexplicit: %s\n", ctx.msg[0] ? ctx.msg : "out of memory");
done:
  free(u);
  dt_ho_msh_free(&p);
  return rc;
}

int main(int argc, char **argv) {
  int gpus[16], n_gpus = 0;
  int P = 2, nx = 16, ny = 2, nz = 2, steps = 0, every = 0, with_static = 0, crit = 0;
  double alpha = 0.0, q = 1e-3, E = 1000.0, nu = 0.3, rho = 1.0, dt = 0.0, t_end = 0.0;
  dt_ho_mass_kind kind = DT_HO_MASS_GLL;
  const char *msh = NULL, *fix[16], *pgroup[16];
  char pbuf[16][DT_HO_GMSH_NAME_MAX];
  double pval[16];
  int refine = 1, n_fix = 0, n_pres = 0, order_given = 0;
  for (int i = 1; i < argc; i++) {
    int more = i + 1 < argc;
    if (!strcmp(argv[i], "--msh") && more)
      msh = argv[++i];
    else if (!strcmp(argv[i], "--refine") && more)
      refine = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--fix") && more) {
      if (n_fix == 16) return usage();
      fix[n_fix++] = argv[++i];
    } else if (!strcmp(argv[i], "--pressure") && more) {
      const char *a = argv[++i], *eq = strrchr(a, '=');
      char *end = NULL;
      if (n_pres == 16 || !eq || eq == a || eq - a >= DT_HO_GMSH_NAME_MAX) return usage();
      memcpy(pbuf[n_pres], a, (size_t)(eq - a));
      pbuf[n_pres][eq - a] = 0;
      pval[n_pres] = strtod(eq + 1, &end);
      if (end == eq + 1 || *end) return usage();
      pgroup[n_pres] = pbuf[n_pres];
      n_pres++;
    } else if (!strcmp(argv[i], "--order") && more)
      order_given = 1, P = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--mesh") && more) {
      if (sscanf(argv[++i], "%dx%dx%d", &nx, &ny, &nz) != 3) return usage();
    } else if (!strcmp(argv[i], "--steps") && more)
      steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--time") && more)
      t_end = atof(argv[++i]);
    else if (!strcmp(argv[i], "--damping") && more) {
      const char *a = argv[++i];
      if (!strcmp(a, "crit"))
        crit = 1;
      else
        alpha = atof(a);
    } else if (!strcmp(argv[i], "--load") && more)
      q = atof(argv[++i]);
    else if (!strcmp(argv[i], "--E") && more)
      E = atof(argv[++i]);
    else if (!strcmp(argv[i], "--nu") && more)
      nu = atof(argv[++i]);
    else if (!strcmp(argv[i], "--rho") && more)
      rho = atof(argv[++i]);
    else if (!strcmp(argv[i], "--dt") && more)
      dt = atof(argv[++i]);
    else if (!strcmp(argv[i], "--every") && more)
      every = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--static"))
      with_static = 1;
    else if (!strcmp(argv[i], "--gpus") && more) {
      if ((n_gpus = tool_int_list(argv[++i], gpus, 16)) < 0) return usage();
    } else if (!strcmp(argv[i], "--mass") && more) {
      const char *m = argv[++i];
      if (!strcmp(m, "gll"))
        kind = DT_HO_MASS_GLL;
      else if (!strcmp(m, "rowsum"))
        kind = DT_HO_MASS_ROWSUM;
      else if (!strcmp(m, "consistent"))
        kind = DT_HO_MASS_CONSISTENT;
      else
        return usage();
    } else
      return usage();
  }
  if (msh) {
    dt_ho_msh_opts mo = {
        msh, order_given ? P : 0, refine, E, nu, rho, kind, n_fix, fix, n_pres, pgroup, pval};
    dt_ho_explicit_opts mopt = {0};
    mopt.dt = dt, mopt.alpha = alpha, mopt.steps = steps, mopt.t_end = t_end;
    if (crit || with_static) {
      fprintf(stderr, "ductile-hoexplicit: --damping crit and --static are for the cantilever; "
                      "give --damping ALPHA with --msh\n");
      return 2;
    }
    if (steps <= 0 && t_end <= 0.0) mopt.steps = 100;
    return run_msh(&mo, &mopt, every, gpus, n_gpus);
  }
  if (n_fix || n_pres || refine != 1) {
    fprintf(stderr, "ductile-hoexplicit: --fix, --pressure and --refine need --msh FILE\n");
    return 2;
  }
  dt_ctx ctx = {0};
  dt_ho_beam b;
  dt_ho_explicit_problem pb;
  dt_ho_explicit_opts o = {0};
  dt_ho_explicit_result res;
  double *u = NULL, *us = NULL, ys = 0.0;
  int rc = 1;
  if (dt_ho_beam_setup(P, nx, ny, nz, E, nu, rho, q, kind, &b, &ctx) != DT_OK) goto fail;
  double w1 = dt_ho_beam_omega1(&b), T1 = 2 * M_PI / w1, ref = dt_ho_beam_timoshenko(&b);
  if (crit) alpha = 2.0 * w1;
  printf("cantilever P=%d mesh %dx%dx%d: %d elements, %d free DOFs, mass %s, E %g nu %g rho %g, "
         "end traction %g\n",
         P, nx, ny, nz, b.mesh.n_elems, b.free_dofs, dt_ho_mass_name(kind), E, nu, rho, q);
  printf("  Euler-Bernoulli omega_1 %.6g (period %.6g), Timoshenko tip %.6e, damping alpha %g "
         "(%.3g of critical)\n",
         w1, T1, ref, alpha, alpha / (2 * w1));
  dt_ho_beam_problem(&b, &pb);
  o.dt = dt;
  o.alpha = alpha;
  /* by default: settle for 10/omega_1 when damped, 1.35 periods (three crossings) when not */
  if (t_end <= 0.0) t_end = alpha > 0 ? fmax(10.0 / w1, 20.0 / alpha) : 1.35 * T1;
  tool_state st = {&b, every, 0, 0, 0, 0, 0, 0, 0, INFINITY, -INFINITY, 0};
  st.mid = ref;
  if (with_static) { /* before a GPU run, which releases the whole beam's operator */
    int its = 0;
    us = calloc(3 * (size_t)b.mesh.n_nodes, sizeof(double));
    if (!us || dt_ho_beam_static(&b, 1e-10, us, &its, &ctx) != DT_OK) goto fail;
    ys = -us[3 * b.tip + 1];
    printf("  static PCG (%d its) tip %.6e: Timoshenko %+.2f%%\n", its, ys, 100 * (ys - ref) / ref);
  }
  if (n_gpus > 0) {
#ifdef DUCTILE_HAVE_CUDA
    o.steps = steps;
    o.t_end = t_end;
    o.out_every = every > 0 ? every : 1000;
    fflush(stdout);
    int tip_dof = 3 * b.tip + 1;
    if (kind == DT_HO_MASS_CONSISTENT) {
      snprintf(ctx.msg, sizeof ctx.msg,
               "the GPU time loop takes a lumped mass (gll or rowsum), not the consistent one");
      goto fail;
    }
    if (run_gpus(&b.mesh, &b.op, E, nu, b.mass, b.f, b.fixed, 1, &tip_dof, gpus, n_gpus, &o,
                 monitor_gpu, &st, &res, &ctx) != DT_OK)
      goto fail;
#else
    snprintf(ctx.msg, sizeof ctx.msg, "--gpus: this build has no CUDA backend");
    goto fail;
#endif
  } else {
    double wmax;
    if (dt_ho_explicit_omega_max(&pb, 40, &wmax, &ctx) != DT_OK) goto fail;
    double dt_run = dt > 0 ? dt : 0.9 * 2.0 / wmax;
    o.steps = steps > 0 ? steps : (int)ceil(t_end / dt_run);
    o.out_every = 1;
    printf("  omega_max %.6g: stable limit 2/omega_max %.6g, dt %.6g, %d steps to t = %.5g\n", wmax,
           2.0 / wmax, dt_run, o.steps, o.steps * dt_run);
    fflush(stdout);
    u = calloc(3 * (size_t)b.mesh.n_nodes, sizeof(double));
    if (!u) goto fail;
    if (dt_ho_explicit_run(&pb, &o, u, monitor, &st, &res, &ctx) != DT_OK) goto fail;
  }
  printf("  %d steps in %.3f s: %.3f ms per step; energy balance %.2e (T %.4e U %.4e D %.4e = W "
         "%.4e + start %.2e)\n",
         res.steps, res.seconds, 1e3 * res.seconds / res.steps, res.balance, res.kinetic,
         res.internal, res.damping, res.external, res.start);
  if (kind == DT_HO_MASS_CONSISTENT)
    printf("  consistent mass: %d CG iterations, %.1f per step\n", res.cg_iterations,
           (double)res.cg_iterations / (res.steps + 1));
  printf("  final tip deflection %.6e, Timoshenko %.6e (%+.2f%%); range %.6e .. %.6e\n", st.tip,
         ref, 100 * (st.tip - ref) / ref, st.lo, st.hi);
  if (alpha == 0.0 && st.crossings >= 2) {
    double T = 2.0 * (st.last - st.first) / (st.crossings - 1);
    printf("  period from %d crossings of the Timoshenko value %.6g, Euler-Bernoulli %.6g "
           "(%+.2f%%)\n",
           st.crossings, T, T1, 100 * (T - T1) / T1);
  }
  if (with_static)
    printf("  static PCG tip %.6e: explicit %+.3f%%\n", ys, 100 * (st.tip - ys) / ys);
  rc = 0;
  goto done;
fail:
  fprintf(stderr, "ductile-hoexplicit: %s\n", ctx.msg[0] ? ctx.msg : "out of memory");
done:
  free(u);
  free(us);
  dt_ho_beam_free(&b);
  return rc;
}
