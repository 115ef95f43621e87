/* The AMG preconditioner on the CUDA backend (cuda/cuda_amg.cu) against the host V-cycle of
 * solver/amg/ (dt_amg_apply).
 *
 * (a) Through the backend interface, at a plastic state of a box (unit_bar_plastic_state: some
 *     points plastic, clamped nodes at x = 0), then at a second state (the displacement scaled by
 *     0.6, which refreshes the hierarchy) and at a third (scaled by 1.2 again, set up with
 *     DT_PC_KEEP_COARSE: level 0 refreshed, the coarse levels kept): tangent_assemble,
 *     pc_setup(DT_PC_AMG), pc_apply(R -> Z) on cuda and on cpu (whose pc_apply is dt_amg_apply on
 *     its own hierarchy):
 *       the two hierarchies have the same levels (DOFs and nonzeros of each);
 *       max |z_cuda - z_cpu| <= 1e-12 max |z_cpu|;
 *       the device V-cycle against dt_amg_apply on the CUDA backend's own host hierarchy (the
 *       levels it uploaded): 1e-12 as well (this isolates the device V-cycle from the tangent's
 *       rounding);
 *       a second apply gives the same bits; the first setup builds, the second refreshes, the
 *       third refreshes level 0 only, and the hierarchy has at least 3 levels (the view says so).
 *     The box's nodes are jittered (a fixed pseudo-random offset of up to 7.5% of the spacing):
 *     the aggregation is a discontinuous function of the values, and on the regular box many
 *     couplings are exactly as strong as others (translated copies of elements), a tie that the
 *     two backends' tangents, equal to rounding, break differently; the hierarchies then differ
 *     (other aggregates: M^-1 r differed by 8e-3 between the backends on an H100, while
 *     the device V-cycle still matched dt_amg_apply on its own hierarchy to 1e-15).
 * (b) Jobs with linear.preconditioner "amg" (a plastic hex8 bar bent by a tip displacement and
 *     released, 3 levels; a quad4 plane-strain plate, 2 levels) on cpu and twice on cuda: the same
 *     increments and Newton iterations per increment, PCG iterations within 2 of the CPU's for
 *     every solve, displacements, stresses and PEEQ within 1e-8 of the CPU's (relative to their
 *     largest), and the two CUDA runs identical bit for bit.
 * Skips (77) without a CUDA device. */
#include "gpu_jobs.h"

#include "backend/backend.h"
#include "problem/problem.h"
#include "../unit/unit_model.h"

/* cuda/cuda_amg.cu's test helper: dt_amg_apply on the CUDA backend's host hierarchy (r, z host
 * arrays of n_dofs). */
dt_status dt_cuda_amg_host_apply(void *impl, const double *r, double *z, dt_ctx *ctx);

#define NX 32
#define NY 12
#define NZ 10

static double max_abs(const double *a, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++)
    if (!(fabs(a[i]) <= m)) m = fabs(a[i]);
  return m;
}

static double max_diff(const double *a, const double *b, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++)
    if (!(fabs(a[i] - b[i]) <= m)) m = fabs(a[i] - b[i]); /* NaN propagates */
  return m;
}

/* What one backend gives at the two states: z = M^-1 r, and on cuda also the host V-cycle of the
 * same hierarchy, a repeated apply and the view. */
#define STATES 3
typedef struct pc_result {
  double *z[STATES], *z_host[STATES], *z_again[STATES];
  char view[STATES][4096];
} pc_result;

static void view_text(const dt_backend_ops *ops, void *impl, char *buf, size_t len) {
  FILE *f = fmemopen(buf, len - 1, "w");
  CHECK(f != NULL, "fmemopen");
  ops->view(impl, f);
  fclose(f);
}

static void pc_states(const char *name, const dt_problem *pb, pc_result *out) {
  const dt_backend_ops *ops = NULL;
  dt_ctx ctx = {0};
  dt_stress_report rep;
  size_t n = (size_t)pb->n_dofs;
  double *u = calloc(n, sizeof(double)), *r = calloc(n, sizeof(double));
  int cuda = strcmp(name, "cuda") == 0;
  void *impl = unit_bar_plastic_state(name, pb, -0.0004, 1.0, &ops, &rep);
  CHECK(u && r, "out of memory");
  CHECK(rep.n_plastic > 0 && rep.n_plastic < pb->n_qp,
        "%s: %d of %d points plastic: want some, not all", name, rep.n_plastic, pb->n_qp);
  for (int s = 0; s < STATES; s++) {
    if (s > 0) { /* a new state: the hierarchy is refreshed (level 0 only in the third) */
      CHECK(ops->vec_get(impl, DT_VEC_UT, u, &ctx) == DT_OK, "%s", ctx.msg);
      for (size_t i = 0; i < n; i++) u[i] *= s == 1 ? 0.6 : 1.2;
      CHECK(ops->vec_set(impl, DT_VEC_UT, u, &ctx) == DT_OK, "%s", ctx.msg);
      CHECK(ops->stress_update(impl, DT_VEC_UT, DT_VEC_FINT, &rep, &ctx) == DT_OK, "%s", ctx.msg);
    }
    out->z[s] = calloc(n, sizeof(double));
    out->z_host[s] = calloc(n, sizeof(double));
    out->z_again[s] = calloc(n, sizeof(double));
    CHECK(out->z[s] && out->z_host[s] && out->z_again[s], "out of memory");
    CHECK(ops->tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(ops->pc_setup(impl, DT_PC_AMG | (s == 2 ? DT_PC_KEEP_COARSE : 0), &ctx) == DT_OK,
          "%s: AMG setup: %s", name, ctx.msg);
    CHECK(ops->pc_apply(impl, DT_VEC_R, DT_VEC_PCG_Z, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(ops->vec_get(impl, DT_VEC_PCG_Z, out->z[s], &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(ops->pc_apply(impl, DT_VEC_R, DT_VEC_PCG_Z, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(ops->vec_get(impl, DT_VEC_PCG_Z, out->z_again[s], &ctx) == DT_OK, "%s", ctx.msg);
    if (cuda) {
      CHECK(ops->vec_get(impl, DT_VEC_R, r, &ctx) == DT_OK, "%s", ctx.msg);
      CHECK(dt_cuda_amg_host_apply(impl, r, out->z_host[s], &ctx) == DT_OK, "%s", ctx.msg);
    }
    view_text(ops, impl, out->view[s], sizeof out->view[s]);
  }
  ops->destroy(impl);
  free(u);
  free(r);
}

/* A fixed pseudo-random number in [-0.5, 0.5) for (node, component). */
static double jitter(int a, int k) {
  uint32_t h = (uint32_t)(3 * a + k + 1) * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (double)(h & 0xffffu) / 65536.0 - 0.5;
}

/* The levels' sizes as a view prints them ("level l: n DOFs on k nodes, z nonzeros"), one line
 * each, into out. */
static void view_levels(const char *view, char *out, size_t len) {
  const char *p = view;
  size_t used = 0;
  out[0] = 0;
  while ((p = strstr(p, "  level ")) && used + 1 < len) {
    const char *e = strstr(p, " nonzeros");
    if (!e) break;
    used += (size_t)snprintf(out + used, len - used, "%.*s\n", (int)(e - p), p);
    p = e;
  }
}

static void check_pc_apply(void) {
  static pc_result gpu, cpu;
  static const double h[3] = {2.0 / NX, 1.5 / NY, 1.0 / NZ};
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_model *m = unit_box(NX, NY, NZ, 1);
  int levels = 0;
  const char *at;
  char lv_gpu[1024], lv_cpu[1024];
  for (int a = 0; a < m->n_nodes; a++) /* the clamped nodes (x = 0) stay at x = 0 */
    for (int k = m->x[3 * a] == 0.0 ? 1 : 0; k < 3; k++)
      m->x[3 * a + k] += 0.15 * h[k] * jitter(a, k);
  CHECK(dt_model_finish(m, &ctx) == DT_OK && dt_problem_create(m, &pb, &ctx) == DT_OK, "%s",
        ctx.msg);
  pc_states("cuda", pb, &gpu);
  pc_states("cpu", pb, &cpu);
  for (int s = 0; s < STATES; s++) {
    view_levels(gpu.view[s], lv_gpu, sizeof lv_gpu);
    view_levels(cpu.view[s], lv_cpu, sizeof lv_cpu);
    EXPECT(lv_gpu[0] && strcmp(lv_gpu, lv_cpu) == 0,
           "state %d: the hierarchies differ:\ncuda:\n%scpu:\n%s", s, lv_gpu, lv_cpu);
  }
  for (int s = 0; s < STATES; s++) {
    size_t n = (size_t)pb->n_dofs;
    double zs = max_abs(cpu.z[s], n), d_cpu = max_diff(gpu.z[s], cpu.z[s], n) / zs;
    double d_host = max_diff(gpu.z[s], gpu.z_host[s], n) / max_abs(gpu.z_host[s], n);
    EXPECT(zs > 0.0, "state %d: z = 0", s);
    EXPECT(d_cpu <= 1e-12, "state %d: M^-1 r on cuda against the cpu backend's: %.3e", s, d_cpu);
    EXPECT(d_host <= 1e-12,
           "state %d: the device V-cycle against dt_amg_apply on the same hierarchy: %.3e", s,
           d_host);
    EXPECT(memcmp(gpu.z[s], gpu.z_again[s], sizeof(double) * n) == 0,
           "state %d: two applies on cuda differ", s);
    printf("AMG apply, state %d (%s): cuda against cpu %.2e, against the host V-cycle of the same "
           "hierarchy %.2e, "
           "repeat bit-identical\n",
           s,
           s == 2 ? "level 0 refreshed"
           : s    ? "refreshed"
                  : "built",
           d_cpu, d_host);
  }
  at = strstr(gpu.view[1], "amg: ");
  EXPECT(at && sscanf(at, "amg: %d levels", &levels) == 1 && levels >= 3,
         "want at least 3 levels:\n%s", gpu.view[1]);
  EXPECT(strstr(gpu.view[0], "1 builds, 0 refreshes") != NULL, "the first setup must build:\n%s",
         gpu.view[0]);
  EXPECT(strstr(gpu.view[1], "1 builds, 1 refreshes") != NULL, "the second setup must refresh:\n%s",
         gpu.view[1]);
  EXPECT(strstr(gpu.view[2], "1 builds, 1 refreshes (1 of level 0 only)") != NULL,
         "the third setup must refresh level 0 only:\n%s", gpu.view[2]);
  EXPECT(strstr(cpu.view[2], "(1 refreshes, 1 of level 0 only)") != NULL,
         "the cpu backend's third setup must refresh level 0 only:\n%s", cpu.view[2]);
  if (at) printf("%s", at);
  for (int s = 0; s < STATES; s++) {
    free(gpu.z[s]), free(gpu.z_host[s]), free(gpu.z_again[s]);
    free(cpu.z[s]), free(cpu.z_host[s]), free(cpu.z_again[s]);
  }
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

/* One run: the fields of every increment (capture first: on_increment takes the run as one),
 * the PCG iterations of every solve, in order. */
#define MAX_SOLVES 1024
typedef struct amg_run {
  capture cap;
  int n_solves, pcg[MAX_SOLVES];
  char view[8192];
} amg_run;

static int on_progress(const dt_progress *ev, void *user) {
  amg_run *r = user;
  if (ev->kind == DT_EV_NEWTON_ITER && ev->pcg_iters > 0 && r->n_solves < MAX_SOLVES)
    r->pcg[r->n_solves++] = ev->pcg_iters;
  return 0;
}

static void before_destroy(const dt_backend_ops *ops, void *impl, void *user) {
  amg_run *r = user;
  view_text(ops, impl, r->view, sizeof r->view);
}

static void run_amg_job(const dt_model *m, const char *backend, amg_run *r, const char *name) {
  dt_run_options opt;
  dt_run_summary sum;
  dt_ctx ctx = {0};
  dt_status rc;
  memset(&opt, 0, sizeof opt);
  memset(r, 0, sizeof *r);
  opt.backend = backend;
  opt.on_increment = on_increment;
  opt.progress = on_progress;
  opt.before_destroy = before_destroy;
  opt.user = r;
  rc = dt_analysis_run(m, &opt, &sum, &ctx);
  EXPECT(rc == DT_OK, "%s on %s: %s", name, backend, ctx.msg[0] ? ctx.msg : sum.message);
}

static void check_amg_job(const char *name, const sbuf *job) {
  dt_model *m = parse_or_die(job, name);
  static amg_run cpu, g1, g2;
  int newton = 0, pcg_cpu = 0, pcg_gpu = 0, worst = 0;
  const char *at;
  run_amg_job(m, "cpu", &cpu, name);
  run_amg_job(m, "cuda", &g1, name);
  run_amg_job(m, "cuda", &g2, name);
  EXPECT(cpu.cap.n_inc > 0 && cpu.cap.n_inc == g1.cap.n_inc && g1.cap.n_inc == g2.cap.n_inc,
         "%s: %d increments on cpu, %d and %d on cuda", name, cpu.cap.n_inc, g1.cap.n_inc,
         g2.cap.n_inc);
  for (int i = 0; i < cpu.cap.n_inc && i < g1.cap.n_inc && i < g2.cap.n_inc; i++) {
    size_t nu = 3 * (size_t)cpu.cap.n_nodes, ns = 6 * (size_t)cpu.cap.n_qp, nq = cpu.cap.n_qp;
    double us = max_abs(cpu.cap.u[i], nu), ss = max_abs(cpu.cap.s[i], ns),
           ps = max_abs(cpu.cap.peeq[i], nq);
    double du = max_diff(cpu.cap.u[i], g1.cap.u[i], nu),
           ds = max_diff(cpu.cap.s[i], g1.cap.s[i], ns);
    double dp = max_diff(cpu.cap.peeq[i], g1.cap.peeq[i], nq);
    EXPECT(cpu.cap.newton[i] == g1.cap.newton[i],
           "%s increment %d: %d Newton iterations on cpu, %d on cuda", name, i + 1,
           cpu.cap.newton[i], g1.cap.newton[i]);
    EXPECT(du <= 1e-8 * us, "%s increment %d: displacements differ by %.3e (max |u| %.3e)", name,
           i + 1, du, us);
    EXPECT(ds <= 1e-8 * ss, "%s increment %d: stresses differ by %.3e (max |s| %.3e)", name, i + 1,
           ds, ss);
    EXPECT(dp <= 1e-8 * ps + 1e-300, "%s increment %d: PEEQ differs by %.3e (max %.3e)", name,
           i + 1, dp, ps);
    EXPECT(memcmp(g1.cap.u[i], g2.cap.u[i], sizeof(double) * nu) == 0 &&
               memcmp(g1.cap.s[i], g2.cap.s[i], sizeof(double) * ns) == 0,
           "%s increment %d: two CUDA runs differ", name, i + 1);
    newton += cpu.cap.newton[i];
  }
  EXPECT(cpu.n_solves == g1.n_solves, "%s: %d linear solves on cpu, %d on cuda", name, cpu.n_solves,
         g1.n_solves);
  EXPECT(g1.n_solves == g2.n_solves && !memcmp(g1.pcg, g2.pcg, sizeof(int) * (size_t)g1.n_solves),
         "%s: two CUDA runs took different PCG iterations", name);
  for (int k = 0; k < cpu.n_solves && k < g1.n_solves; k++) {
    int d = abs(cpu.pcg[k] - g1.pcg[k]);
    EXPECT(d <= 2, "%s solve %d: %d PCG iterations on cpu, %d on cuda", name, k + 1, cpu.pcg[k],
           g1.pcg[k]);
    worst = d > worst ? d : worst;
    pcg_cpu += cpu.pcg[k];
    pcg_gpu += g1.pcg[k];
  }
  printf("%-18s %2d increments, %3d Newton iterations, %d solves: PCG %d on cpu, %d on cuda "
         "(largest difference "
         "%d per solve), %d nodes\n",
         name, cpu.cap.n_inc, newton, cpu.n_solves, pcg_cpu, pcg_gpu, worst, cpu.cap.n_nodes);
  if ((at = strstr(g1.view, "amg: "))) printf("%s", at);
  capture_free(&cpu.cap);
  capture_free(&g1.cap);
  capture_free(&g2.cap);
  dt_model_destroy(&m);
}

/* A hex8 bar 6 x 1 x 1 (40 x 10 x 10 cells, 14883 DOFs: 3 levels) clamped at x = 0, its end
 * pushed down past first yield and brought back. */
static void bar_job(sbuf *b) {
  sb_add(b, "{\"ductile\": 1, \"title\": \"gpu amg bar\", ");
  sb_hex8_mesh(b, 40, 10, 10, 6.0, 1.0, 1.0);
  sb_add(b, ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 200000, \"nu\": 0.3}, "
            "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
            "\"modulus\": 10000}}}], "
            "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": \"solid\"}], "
            "\"steps\": [{\"name\": \"bend\", \"increments\": 4, \"boundary\": ["
            "{\"node_set\": \"xmin\", \"fixed\": \"all\"}, "
            "{\"node_set\": \"xmax\", \"displacement\": {\"z\": -0.08}}]}, "
            "{\"name\": \"release\", \"increments\": 2, \"boundary\": ["
            "{\"node_set\": \"xmin\", \"fixed\": \"all\"}, "
            "{\"node_set\": \"xmax\", \"displacement\": {\"z\": 0.0}}]}], ");
  sb_add(b, k_solver_tight, "amg", "fixed");
  sb_add(b, "}");
}

/* A quad4 plane-strain plate 10 x 5 (60 x 30 cells, 3782 DOFs: 2 levels), clamped on the left,
 * pulled on the right. */
static void plate_job(sbuf *b) {
  sb_add(b, "{\"ductile\": 1, \"title\": \"gpu amg plate\", ");
  sb_quad4_mesh(b, 60, 30, 10.0, 5.0);
  sb_add(b, ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 200000, \"nu\": 0.3}, "
            "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
            "\"modulus\": 10000}}}], "
            "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": "
            "\"plane_strain\"}], "
            "\"steps\": [{\"name\": \"pull\", \"increments\": 4, \"boundary\": ["
            "{\"node_set\": \"left\", \"fixed\": \"all\"}, "
            "{\"node_set\": \"right\", \"displacement\": {\"x\": 0.03}}]}], ");
  sb_add(b, k_solver_tight, "amg", "fixed");
  sb_add(b, "}");
}

int main(void) {
  skip_without_device();
  check_pc_apply();
  {
    sbuf b = {0};
    bar_job(&b);
    check_amg_job("hex8 bar", &b);
    free(b.s);
  }
  {
    sbuf b = {0};
    plate_job(&b);
    check_amg_job("quad4 plate", &b);
    free(b.s);
  }
  if (g_failures) {
    fprintf(stderr, "%d AMG checks failed\n", g_failures);
    return 1;
  }
  printf("AMG checks passed\n");
  return 0;
}
