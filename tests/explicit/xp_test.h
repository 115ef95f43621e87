/* What the explicit-dynamics tests share (test_explicit.c for shells, test_explicit_hex8.c for
 * hex8): a probe of two nodes' displacements at every frame, runs through dt_analysis_run with
 * the energy of every frame recorded, the stable step the driver chooses, node lookups, and the
 * checkpoint-resume case for any model. One translation unit per executable includes it. */
#ifndef DT_XP_TEST_H
#define DT_XP_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "explicit/explicit.h"
#include "explicit/explicit_parts.h"
#include "shell_models.h"

typedef struct probe {
  int node[2];
  int n;
  double t[20000], w[2][20000];
  int comp;
  double last_u[3 * 200000];
  double last_rf[3 * 200000]; /* the last frame's reactions */
  int n_nodes;
  double last_s[6 * 100000]; /* the last frame's point stresses (models that ask for S) */
  double last_e[6 * 100000]; /* and strains (models that ask for E) */
  int n_qp;
} probe;

static probe P;

static void on_frame(const dt_fields *f, const dt_history_row *row, void *user) {
  probe *p = user;
  (void)row;
  if (p->n < 20000) {
    p->t[p->n] = f->load_factor;
    for (int k = 0; k < 2; k++) p->w[k][p->n] = f->u[3 * p->node[k] + p->comp];
    p->n++;
  }
  if (f->n_nodes <= 200000) {
    memcpy(p->last_u, f->u, sizeof(double) * 3 * (size_t)f->n_nodes);
    memcpy(p->last_rf, f->rf, sizeof(double) * 3 * (size_t)f->n_nodes);
    p->n_nodes = f->n_nodes;
  }
  p->n_qp = f->qp_stress && f->n_qp <= 100000 ? f->n_qp : 0;
  if (p->n_qp) memcpy(p->last_s, f->qp_stress, sizeof(double) * 6 * (size_t)p->n_qp);
  if (p->n_qp && f->qp_strain)
    memcpy(p->last_e, f->qp_strain, sizeof(double) * 6 * (size_t)p->n_qp);
}

/* The sum of the last frame's reactions (component k) over node set ns of m. */
static double reaction_sum(const dt_model *m, int ns, int k) {
  double s = 0.0;
  for (int i = 0; i < m->nsets[ns].n; i++) s += P.last_rf[3 * m->nsets[ns].items[i] + k];
  return s;
}

static const char *backend = "cpu";
static double worst_potential; /* largest |internal work - strain energy| / total energy */
static dt_energy last_energy;  /* the last frame's energy */
static double worst_hourglass; /* largest hourglass / strain energy over the frames */
static double worst_strain_ke; /* largest strain / kinetic energy over the frames */
static int quiet_progress(const dt_progress *ev, void *user) {
  (void)user;
  if (ev->kind == DT_EV_INFO && getenv("XP_VERBOSE")) printf("  %s\n", ev->text);
  if (ev->kind == DT_EV_INCREMENT_DONE && ev->has_energy) {
    const dt_energy *en = &ev->energy;
    double d = fabs(en->internal - en->strain) / (en->kinetic + en->strain);
    if (d > worst_potential) worst_potential = d;
    if (en->strain > 0 && en->hourglass / en->strain > worst_hourglass)
      worst_hourglass = en->hourglass / en->strain;
    if (en->kinetic > 0 && en->strain / en->kinetic > worst_strain_ke)
      worst_strain_ke = en->strain / en->kinetic;
    last_energy = *en;
  }
  return 0;
}

static int run_parts;                       /* > 1: run() splits the run into that many parts */
static int run_devices[DT_MAX_RUN_DEVICES]; /* on these devices */

static dt_run_summary run(dt_model *m, const char *be) {
  dt_run_options o;
  dt_run_summary s;
  dt_ctx ctx = {0};
  memset(&o, 0, sizeof o);
  o.backend = be;
  o.threads = 0;
  o.outdir = getenv("XP_OUT");
  o.progress = quiet_progress;
  o.on_increment = on_frame;
  o.user = &P;
  o.n_devices = run_parts > 1 ? run_parts : 0;
  memcpy(o.devices, run_devices, sizeof o.devices);
  P.n = 0;
  XCHECK(dt_analysis_run(m, &o, &s, &ctx) == DT_OK, "%s", ctx.msg);
  return s;
}

/* The stable step the driver chooses for model m (its first step's safety factor). */
static double stable_step(const dt_model *m) {
  dt_xp_problem xp;
  dt_ctx ctx = {0};
  double dt;
  XCHECK(dt_xp_problem_build(m, &xp, &ctx) == DT_OK, "%s", ctx.msg);
  dt = m->steps[0].explicit_.dt_safety * xp.dt_crit;
  dt_xp_problem_free(&xp);
  return dt;
}

static int nearest(const dt_model *m, double x, double y, double z) {
  int best = 0;
  double d = INFINITY;
  for (int i = 0; i < m->n_nodes; i++) {
    double dx = m->x[3 * i] - x, dy = m->x[3 * i + 1] - y, dz = m->x[3 * i + 2] - z;
    if (dx * dx + dy * dy + dz * dz < d) d = dx * dx + dy * dy + dz * dz, best = i;
  }
  return best;
}

/* on_increment that ends the process at the 7th frame, as a crash would */
static void crash_at_seventh(const dt_fields *f, const dt_history_row *row, void *user) {
  (void)row, (void)user;
  if (f->global_increment == 7) _exit(3);
}

/* A run of the model build() makes (12 frames or more) killed after a checkpoint (a child
 * process that exits at its 7th frame) and resumed gives the uninterrupted run's displacements,
 * energy.csv and history.csv bit for bit. */
static int resume_case(dt_model *(*build)(void), const char *what) {
  static double u_resumed[3 * 200000];
  dt_model *m = build();
  dt_run_options o;
  dt_run_summary s;
  dt_ctx ctx = {0};
  char dir_a[] = "/tmp/xp_resume_a_XXXXXX", dir_b[] = "/tmp/xp_resume_b_XXXXXX", ck[256], cmd[600];
  int status = 0, nn = m->n_nodes, frames = 0;
  pid_t pid;
  XCHECK(mkdtemp(dir_a) && mkdtemp(dir_b), "temporary directories");
  memset(&o, 0, sizeof o);
  o.backend = backend;
  o.progress = quiet_progress;
  o.user = &P;
  snprintf(ck, sizeof ck, "%s/run.ck", dir_b);
  /* first, before this process touches a device (a CUDA context does not survive fork): the
   * run that crashes at its 7th frame, checkpointing at every frame */
  pid = fork();
  if (pid == 0) {
    o.outdir = dir_b;
    o.checkpoint = ck;
    o.on_increment = crash_at_seventh;
    dt_analysis_run(m, &o, &s, &ctx);
    _exit(0);
  }
  XCHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
  XCHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3, "the child did not stop at frame 7");
  o.outdir = dir_b;
  o.checkpoint = ck;
  o.resume = 1;
  o.on_increment = on_frame;
  XCHECK(dt_analysis_run(m, &o, &s, &ctx) == DT_OK, "resume: %s", ctx.msg);
  frames = s.increments;
  XCHECK(frames >= 12, "%d frames after the resume", frames);
  memcpy(u_resumed, P.last_u, sizeof(double) * 3 * (size_t)nn);
  o.outdir = dir_a; /* the uninterrupted run */
  o.checkpoint = NULL;
  o.resume = 0;
  XCHECK(dt_analysis_run(m, &o, &s, &ctx) == DT_OK, "%s", ctx.msg);
  XCHECK(s.increments == frames, "%d frames uninterrupted, %d resumed", s.increments, frames);
  for (int i = 0; i < 3 * nn; i++)
    XCHECK(P.last_u[i] == u_resumed[i], "u[%d]: %.17g resumed, %.17g uninterrupted", i,
           u_resumed[i], P.last_u[i]);
  snprintf(cmd, sizeof cmd,
           "cmp -s %s/energy.csv %s/energy.csv && cmp -s %s/history.csv %s/history.csv", dir_a,
           dir_b, dir_a, dir_b);
  XCHECK(system(cmd) == 0, "energy.csv or history.csv differ between %s and %s", dir_a, dir_b);
  printf("resume, %s, %s: killed at frame 7, resumed from the checkpoint of frame 6: "
         "displacements, energy.csv and history.csv identical to the uninterrupted run\n",
         what, backend);
  snprintf(cmd, sizeof cmd, "rm -rf %s %s", dir_a, dir_b);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s and %s\n", dir_a, dir_b);
  dt_model_destroy(&m);
  return 0;
}

/* The --backend and --n options; with --backend cuda, 77 (skip) when no device is found, asked
 * in a child (resume forks before using the device). Returns -1 to go on. */
static int parse_args(int argc, char **argv, int *n) {
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--backend") && i + 1 < argc)
      backend = argv[++i];
    else if (!strcmp(argv[i], "--n") && i + 1 < argc)
      *n = atoi(argv[++i]);
  }
  if (!strcmp(backend, "cuda")) {
    int status = 0;
    pid_t pid = fork();
    if (pid == 0) {
      const dt_backend_ops *o = NULL;
      char why[256];
      dt_ctx ctx = {0};
      if (dt_backend_find("cuda", &o, why, sizeof why, &ctx) != DT_OK) {
        printf("skipped: no CUDA device (%s)\n", ctx.msg);
        fflush(stdout);
        _exit(77);
      }
      _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 1;
    if (WEXITSTATUS(status) == 77) return 77;
  }
  return -1;
}

/* The wave bar's run (finished model m, length L along x from x = 0 where it is driven at v0,
 * wave speed c, period 2 L / c, a frame every time step) and its checks: the front reaches the
 * free end at L / c (5 %), which then moved 2 v0 L / c at 2 L / c (3 %); the mid point moved
 * v0 L / 2c at L / c (3 %). */
static void wave_run(dt_model *m, double L, double c, double v0, const char *what) {
  double t_arrive = -1, u_end, u_mid;
  P.node[0] = nearest(m, L, 0, 0);
  P.node[1] = nearest(m, L / 2, 0, 0);
  dt_run_summary r;
  P.comp = 0;
  r = run(m, backend);
  for (int i = 0; i < P.n; i++) /* the free end starts moving: front arrival */
    if (P.w[0][i] > 0.01 * v0 * L / c && t_arrive < 0) t_arrive = P.t[i] * 2.0 * L / c;
  u_end = P.w[0][P.n - 1];
  u_mid = P.w[1][P.n / 2 - 1]; /* at t = L / c: v0 (t - L / (2c)) */
  printf("wave bar, %s: front at the free end at %.4g s (L/c = %.4g); free end moved %.5g (2 v0 "
         "L/c = %.5g, %.3f%% off); mid point at L/c %.5g (v0 L/2c = %.5g, %.3f%% off)\n",
         what, t_arrive, L / c, u_end, 2 * v0 * L / c, 100 * fabs(u_end / (2 * v0 * L / c) - 1),
         u_mid, v0 * L / (2 * c), 100 * fabs(u_mid / (v0 * L / (2 * c)) - 1));
  XCHECK(fabs(t_arrive - L / c) < 0.05 * L / c, "arrival %g, L/c %g", t_arrive, L / c);
  XCHECK(fabs(u_end - 2 * v0 * L / c) < 0.03 * 2 * v0 * L / c, "reflection: %g", u_end);
  XCHECK(fabs(u_mid - v0 * L / (2 * c)) < 0.03 * v0 * L / (2 * c), "mid point: %g", u_mid);
  /* the driven end's support does all the work, from a velocity step at t = 0 */
  printf("wave bar, %s: energy balance %.1e of the largest term, the driven end's work included "
         "(tolerance 1e-12)\n",
         what, r.energy_balance);
  XCHECK(r.energy_balance < 1e-12, "energy balance %g", r.energy_balance);
}

/* Model m run on the CPU and then the CUDA backend: the largest displacement and the largest
 * difference between the two, checked within 1e-10 of it (what names the case). */
static void agree_runs(dt_model *m, const char *what) {
  static double u_cpu[3 * 200000];
  double umax = 0, dmax = 0;
  run(m, "cpu");
  memcpy(u_cpu, P.last_u, sizeof(double) * 3 * (size_t)m->n_nodes);
  run(m, "cuda");
  for (int i = 0; i < 3 * m->n_nodes; i++) {
    umax = fmax(umax, fabs(u_cpu[i]));
    dmax = fmax(dmax, fabs(u_cpu[i] - P.last_u[i]));
  }
  printf("cpu and cuda, %s, %d elements: largest |u| %.4e, largest difference %.3e (%.2e of it; "
         "tolerance 1e-10)\n",
         what, m->n_elems, umax, dmax, dmax / umax);
  XCHECK(umax > 0 && dmax <= 1e-10 * umax, "difference %g of %g", dmax, umax);
}

/* 77 (skip) when this process finds no CUDA device, else 0. */
static int no_cuda(void) {
  char why[256];
  const dt_backend_ops *o = NULL;
  dt_ctx ctx = {0};
  if (dt_backend_find("cuda", &o, why, sizeof why, &ctx) != DT_OK) {
    printf("skipped: no CUDA device (%s)\n", ctx.msg);
    return 77;
  }
  return 0;
}

/* The whole state a backend reports, for bitwise comparisons. */
typedef struct xp_snap {
  dt_xp_state st;
  size_t nc, ne, hist;
  int nv, nq;
} xp_snap;

static void snap_alloc(xp_snap *s, const dt_xp_problem *xp) {
  s->nc = dt_xp_copies(xp), s->ne = (size_t)xp->ne, s->hist = dt_xp_hist_doubles(xp);
  s->nv = xp->nv, s->nq = xp->nq;
  s->st.u = calloc(3 * s->nc, sizeof(double));
  s->st.v = calloc((size_t)s->nv * s->nc, sizeof(double));
  s->st.q = calloc((size_t)s->nq * s->nc + 1, sizeof(double));
  s->st.f = calloc((size_t)s->nv * s->nc, sizeof(double));
  s->st.work = calloc(DT_XP_WORK * s->ne, sizeof(double));
  s->st.plastic = calloc(s->ne, sizeof(int));
  s->st.hist = s->hist ? calloc(s->hist, sizeof(double)) : NULL;
  XCHECK(s->st.u && s->st.v && s->st.q && s->st.f && s->st.work && s->st.plastic &&
             (s->st.hist || !s->hist),
         "out of memory");
}

static void snap_free(xp_snap *s) {
  free(s->st.u), free(s->st.v), free(s->st.q), free(s->st.f), free(s->st.work);
  free(s->st.plastic), free(s->st.hist);
}

/* 1 when a and b hold the same bits; the first difference printed. */
static int snap_same(const xp_snap *a, const xp_snap *b, const char *what) {
  const struct {
    const char *name;
    const void *x, *y;
    size_t bytes, size;
  } arr[] = {{"u", a->st.u, b->st.u, 3 * a->nc * sizeof(double), sizeof(double)},
             {"v", a->st.v, b->st.v, (size_t)a->nv * a->nc * sizeof(double), sizeof(double)},
             {"q", a->st.q, b->st.q, (size_t)a->nq * a->nc * sizeof(double), sizeof(double)},
             {"f", a->st.f, b->st.f, (size_t)a->nv * a->nc * sizeof(double), sizeof(double)},
             {"work", a->st.work, b->st.work, DT_XP_WORK * a->ne * sizeof(double), sizeof(double)},
             {"plastic", a->st.plastic, b->st.plastic, a->ne * sizeof(int), sizeof(int)},
             {"hist", a->st.hist, b->st.hist, a->hist * sizeof(double), sizeof(double)}};
  for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++) {
    if (arr[i].bytes == 0 || memcmp(arr[i].x, arr[i].y, arr[i].bytes) == 0) continue;
    for (size_t j = 0; j < arr[i].bytes / arr[i].size; j++)
      if (memcmp((const char *)arr[i].x + j * arr[i].size, (const char *)arr[i].y + j * arr[i].size,
                 arr[i].size)) {
        if (arr[i].size == sizeof(double))
          fprintf(stderr, "%s: %s[%zu] differs: %.17g against %.17g\n", what, arr[i].name, j,
                  ((const double *)arr[i].x)[j], ((const double *)arr[i].y)[j]);
        else
          fprintf(stderr, "%s: %s[%zu] differs\n", what, arr[i].name, j);
        break;
      }
    return 0;
  }
  return 1;
}

static int parts_ramp = 1; /* the steps over which parts_time ramps the loads */

/* Time step i of the parts case: 0 the start evaluation, then steps of dt with the loads ramped
 * over the first `ramp` steps, energies and strain energy every 10th. */
static dt_xp_time parts_time(const dt_model *m, int i, double dt, int ramp) {
  dt_xp_time T;
  const double t = i <= 1 ? 0.0 : (i - 1) * dt, R = ramp * dt;
  memset(&T, 0, sizeof T);
  T.dt = i == 0 ? 0.0 : dt;
  T.h_before = i <= 1 ? 0.0 : 0.5 * dt;
  T.alpha = m->steps[0].explicit_.damping;
  T.amp_n = fmin(1.0, t / R);
  T.amp_n1 = fmin(1.0, (t + T.dt) / R);
  T.amp_mid = fmin(1.0, (t + 0.5 * T.dt) / R);
  T.rate_mid = t + 0.5 * T.dt < R ? 1.0 / R : 0.0;
  T.energy = T.strain = i % 10 == 0;
  return T;
}

/* Steps i0 .. i1-1 of model m on inner (n_parts 0: unsplit on devices[0]; else split by part,
 * NULL: contiguous ranges), starting from `from` (NULL: rest); the state into out. */
static void parts_run(const dt_xp_ops *inner, int n_parts, const int *devices, const int *part,
                      const dt_model *m, const dt_xp_problem *xp, int i0, int i1,
                      const xp_snap *from, xp_snap *out) {
  const dt_xp_ops *o = n_parts ? &dt_xp_parts_ops : inner;
  const double dt = m->steps[0].explicit_.dt_safety * xp->dt_crit;
  dt_xp_step st;
  dt_ctx ctx = {0};
  void *impl = NULL;
  int failed = 0;
  XCHECK(dt_xp_step_build(m, xp, 0, &st, &ctx) == DT_OK, "%s", ctx.msg);
  if (n_parts)
    XCHECK(dt_xp_parts_create(inner, n_parts, devices, part, xp, NULL, 1, &impl, &ctx) == DT_OK,
           "%s", ctx.msg);
  else
    XCHECK(inner->create(xp, NULL, 1, devices[0], &impl, &ctx) == DT_OK, "%s", ctx.msg);
  if (n_parts > 1) { /* the exchange taken: device to device where the backend links its parts */
    const char *t = getenv("DUCTILE_HALO_TRANSPORT");
    const int want = inner->link && !(t && !strcmp(t, "staged"));
    char line[512];
    dt_xp_parts_describe(impl, line, sizeof line);
    XCHECK(strstr(line, want ? "device to device" : "staged through the host") != NULL,
           "%d parts on %s: expected the %s exchange: %s", n_parts, inner->name,
           want ? "device-to-device" : "host-staged", line);
  }
  XCHECK(o->set_step(impl, &st, &ctx) == DT_OK, "%s", ctx.msg);
  if (from) XCHECK(o->put(impl, &from->st, &ctx) == DT_OK, "%s", ctx.msg);
  for (int i = i0; i < i1; i++) {
    const dt_xp_time T = parts_time(m, i, dt, parts_ramp);
    XCHECK(o->step(impl, &T, &ctx) == DT_OK, "%s", ctx.msg);
  }
  XCHECK(o->get(impl, &out->st, &failed, &ctx) == DT_OK, "%s", ctx.msg);
  XCHECK(failed == 0, "an element's update failed");
  o->destroy(impl);
  dt_xp_step_free(&st);
}

/* Model m (finished) stepped n times as one part and as 2, 3 and 4 parts (contiguous ranges,
 * elements dealt round-robin, and dt_xp_parts_partition's: METIS where built): u, v, q, f,
 * the energies, the yielded points and the history bitwise equal; and a run stopped halfway,
 * its state taken by get and put into a fresh instance of another part count, ends equal too.
 * With --backend cuda the parts go round the GPUs there are (several on GPU 0 when fewer). */
static int parts_case(dt_model *m, int n, const char *what) {
  const dt_xp_ops *inner = &dt_xp_cpu_ops;
  dt_xp_problem xp;
  dt_ctx ctx = {0};
  xp_snap one, split, half;
  int devices[4] = {0, 0, 0, 0}, n_gpus = 1, *part = NULL;
  double umax = 0.0;
  char label[160];
  if (!strcmp(backend, "cuda")) {
#ifdef DUCTILE_HAVE_CUDA
    const dt_backend_ops *bo = NULL;
    dt_device_info info;
    char why[256];
    if (dt_backend_find("cuda", &bo, why, sizeof why, &ctx) != DT_OK) return 77;
    while (n_gpus < 4 && bo->device_info && bo->device_info(n_gpus, &info)) n_gpus++;
    for (int i = 0; i < 4; i++) devices[i] = i % n_gpus;
    inner = &dt_xp_cuda_ops;
#else
    printf("skipped: this build has no CUDA backend\n");
    return 77;
#endif
  }
  parts_ramp = n / 2 > 1 ? n / 2 : 1;
  XCHECK(dt_xp_problem_build(m, &xp, &ctx) == DT_OK, "%s", ctx.msg);
  snap_alloc(&one, &xp), snap_alloc(&split, &xp), snap_alloc(&half, &xp);
  part = calloc((size_t)xp.ne, sizeof *part);
  XCHECK(part != NULL, "out of memory");
  parts_run(inner, 0, devices, NULL, m, &xp, 0, n + 1, NULL, &one);
  for (size_t i = 0; i < 3 * one.nc; i++) {
    XCHECK(isfinite(one.st.u[i]), "u[%zu] is not finite", i);
    umax = fmax(umax, fabs(one.st.u[i]));
  }
  XCHECK(umax > 0, "the model did not move");
  for (int np = 2; np <= 4; np++)
    for (int map = 0; map < 3; map++) {
      const char *name[3] = {"contiguous", "round-robin", "partition"};
      char note[256] = "";
      for (int e = 0; e < xp.ne; e++) part[e] = e % np;
      if (map == 2)
        XCHECK(dt_xp_parts_partition(m, np, part, note, sizeof note, &ctx) == DT_OK, "%s", ctx.msg);
      parts_run(inner, np, devices, map == 0 ? NULL : part, m, &xp, 0, n + 1, NULL, &split);
      snprintf(label, sizeof label, "%s, %d %s parts", what, np, name[map]);
      XCHECK(snap_same(&split, &one, label), "%s: not bitwise equal to the one-part run", label);
      if (map == 2 && np == 4) printf("  %s\n", note);
    }
  /* stopped halfway in 3 parts, resumed in 2 (and in 4 from an unsplit half) */
  parts_run(inner, 3, devices, NULL, m, &xp, 0, n / 2, NULL, &half);
  parts_run(inner, 2, devices, NULL, m, &xp, n / 2, n + 1, &half, &split);
  snprintf(label, sizeof label, "%s, 3 parts resumed in 2", what);
  XCHECK(snap_same(&split, &one, label), "%s: not bitwise equal to the one-part run", label);
  parts_run(inner, 0, devices, NULL, m, &xp, 0, n / 2, NULL, &half);
  parts_run(inner, 4, devices, NULL, m, &xp, n / 2, n + 1, &half, &split);
  snprintf(label, sizeof label, "%s, 1 part resumed in 4", what);
  XCHECK(snap_same(&split, &one, label), "%s: not bitwise equal to the one-part run", label);
  /* the driver (ductile-solve --gpus): the last frame's displacements and the balance */
  {
    static double u_one[3 * 200000];
    dt_run_summary a, b;
    a = run(m, backend);
    memcpy(u_one, P.last_u, sizeof(double) * 3 * (size_t)m->n_nodes);
    run_parts = 3;
    for (int i = 0; i < 3; i++) run_devices[i] = devices[i];
    b = run(m, backend);
    run_parts = 0;
    XCHECK(memcmp(u_one, P.last_u, sizeof(double) * 3 * (size_t)m->n_nodes) == 0 &&
               a.energy_balance == b.energy_balance && a.time_steps == b.time_steps,
           "%s: the driver's run in 3 parts differs from one part", what);
  }
  printf("parts, %s, %s (%d device%s): %d elements, %d steps, largest |u| %.4e: 2, 3 and 4 parts "
         "(contiguous, round-robin, partitioned) and halfway get/put resumes bitwise equal to "
         "one part (u, v, q, f, energies, yielded points, history); the driver's run in 3 parts "
         "too\n",
         what, inner->name, n_gpus, n_gpus > 1 ? "s" : "", xp.ne, n, umax);
  free(part);
  snap_free(&one), snap_free(&split), snap_free(&half);
  dt_xp_problem_free(&xp);
  return 0;
}

#endif
