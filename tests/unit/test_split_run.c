/* Runs split over several devices (backend/parts/parts.h): the compound backend against the
 * plain one, on the backend DUCTILE_BACKEND names (cpu by default; its parts then run one
 * after the other on the host, through the host transport).
 *
 * 1. A plastic bar (a distorted 12x6x4 hex8 box, J2, clamped, pulled and bent in 3 increments)
 *    and the same bar driven by a prescribed displacement (assembled, and with the matrix-free
 *    operator), each in 2, 3 and 4 METIS parts:
 *    the same increments and Newton iterations as the whole mesh, PCG iterations within 2 %
 *    + 2 (block Jacobi is the same preconditioner; only the sums' order differs), and
 *    displacements, reactions and the largest PEEQ within 1e-7 relative (reference: the run on
 *    the whole mesh with the same block Jacobi PCG; the runs differ by rounding inside the
 *    PCG tolerance, 2.5e-10 to 1.9e-8 relative here, not bit for bit).
 *    AMG split on the two assembled bars in 2, 3 and 4 parts against the whole mesh's AMG: the
 *    same increments, Newton iterations within 1 (equal here), the same 1e-7 on displacements,
 *    reactions and PEEQ, and
 *    - cpu (one AMG across the parts, amg/amg_parts.h): at most 10 % + 3 more PCG iterations
 *      than the whole mesh's AMG (traction 186 / 179 / 180 against 190; displacement
 *      305 / 297 / 279 against 314; differences 1.7e-15 to 1.0e-8);
 *    - a device backend (additive Schwarz, one hierarchy per part: parts_backend.c): less than
 *      half block Jacobi's PCG iterations in the same parts (traction 470 / 598 / 759 against
 *      1957 / 1956 / 1957; displacement 692 / 872 / 1103 against 2649 / 2651 / 2647: without a
 *      coarse space across the parts the iterations grow with them).
 * 2. Checkpoints: a 3-part run cancelled after 2 increments and resumed from its checkpoint
 *    computes the last increment only and ends bit-identical to the uninterrupted 3-part run
 *    (the point state goes through the parts' maps and back exactly).
 * 3. Refusals that name what to change: a preconditioner split runs do not take (two_level),
 *    whose message names the ones they take; AMG with the matrix-free operator; more parts than
 *    elements; without METIS, a split run says to build with it. */
#include <math.h>
#include <unistd.h>

#include "unit_model.h"

typedef struct split_record {
  unit_record r;
  int cancel_after; /* cancel once this many increments were computed (0: never) */
  int resumed;
  double rf[3 * 2000];
  double peeq_max;
} split_record;

static void on_increment(const dt_fields *f, const dt_history_row *row, void *user) {
  split_record *s = user;
  unit_record_increment(f, row, &s->r);
  memcpy(s->rf, f->rf, sizeof(double) * 3 * f->n_nodes);
  s->peeq_max = 0.0;
  for (int q = 0; f->qp_peeq && q < f->n_qp; q++)
    if (f->qp_peeq[q] > s->peeq_max) s->peeq_max = f->qp_peeq[q];
}

static const char *backend(void) {
  const char *b = getenv("DUCTILE_BACKEND");
  return b && *b ? b : "cpu";
}

/* The setup line that names the parts' kernels and transport, printed once per run. */
static int on_progress(const dt_progress *ev, void *user) {
  split_record *s = user;
  if (ev->kind == DT_EV_INFO && ev->resumed) s->resumed = 1;
  if (ev->kind == DT_EV_INFO && ev->text && !strncmp(ev->text, "kernels: ", 9) &&
      strstr(ev->text, "parts"))
    printf("  %s\n", ev->text);
  return ev->kind == DT_EV_NEWTON_ITER && s->cancel_after && s->r.increments >= s->cancel_after;
}

/* Run m on n devices (0: the plain backend); returns the status, the record and summary. Part i
 * runs on device i mod DUCTILE_SPLIT_DEVICES (default 1: every part on device 0, which a
 * single-GPU machine can run). */
static dt_status run_ck(const dt_model *m, int n, const char *ck, int resume, int cancel_after,
                        split_record *s, dt_run_summary *sum, dt_ctx *ctx) {
  dt_run_options opt = {.backend = backend(),
                        .threads = 2,
                        .on_increment = on_increment,
                        .progress = on_progress,
                        .user = s};
  const char *env = getenv("DUCTILE_SPLIT_DEVICES");
  int count = env && atoi(env) > 0 ? atoi(env) : 1;
  memset(s, 0, sizeof *s);
  s->cancel_after = cancel_after;
  opt.checkpoint = ck;
  opt.resume = resume;
  opt.n_devices = n;
  for (int i = 0; i < n; i++) opt.devices[i] = i % count;
  return dt_analysis_run(m, &opt, sum, ctx);
}

static dt_status run(const dt_model *m, int n, split_record *s, dt_run_summary *sum, dt_ctx *ctx) {
  return run_ck(m, n, NULL, 0, 0, s, sum, ctx);
}

static double max_abs(const double *v, int n) {
  double a = 0.0;
  for (int i = 0; i < n; i++) a = fmax(a, fabs(v[i]));
  return a;
}

static double max_diff(const double *a, const double *b, int n) {
  double d = 0.0;
  for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

/* PCG iterations of the split runs in 2, 3, 4 parts, block Jacobi's and AMG's (check_parts). */
static int pcg_bj[2][5], pcg_amg[2][5], pcg_amg_whole[2];

static dt_model *bar_pc(int displacement, int matrix_free, dt_precond_kind pc) {
  dt_model *m = unit_box(12, 6, 4, 1);
  dt_ctx ctx = {0};
  unit_bar_load(m);
  if (displacement) { /* the loaded end moved instead of pulled: 0.8 % strain over the bar */
    dt_step *st = &m->steps[0];
    st->n_traction = 0;
    st->n_bc = 2;
    st->bc = realloc(st->bc, 2 * sizeof(dt_bc));
    st->bc[1] = (dt_bc){.nset = dt_model_find_nset(m, "xmax"), .dofs = 1u, .value = {0.016}};
  }
  m->solver.precond = pc;
  m->solver.precond_auto = 0;
  m->solver.matrix_free = matrix_free;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  return m;
}

static dt_model *bar(int displacement, int matrix_free) {
  return bar_pc(displacement, matrix_free, DT_PC_BLOCK_JACOBI);
}

/* The bar in 2, 3, 4 parts against the whole mesh, both with preconditioner pc. Block Jacobi is
 * the same preconditioner split or not: the same Newton iterations and PCG within 2 % + 2. AMG
 * split is another preconditioner than the whole mesh's (additive Schwarz over the parts): its
 * PCG iterations are its own (recorded for check_amg_iterations), Newton within 1. */
static void check_parts_pc(int displacement, int matrix_free, dt_precond_kind pc) {
  dt_model *m = bar_pc(displacement, matrix_free, pc);
  int amg = pc == DT_PC_AMG;
  static split_record ref, got;
  dt_run_summary sref, sgot;
  dt_ctx ctx = {0};
  int nd = 3 * m->n_nodes;
  CHECK(run(m, 0, &ref, &sref, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ref.peeq_max > 1e-4, "the reference run stays elastic (PEEQ %g)", ref.peeq_max);
  for (int n = 2; n <= 4; n++) {
    double du, drf, dpe;
    dt_ctx_reset(&ctx);
    CHECK(run(m, n, &got, &sgot, &ctx) == DT_OK, "%d parts: %s", n, ctx.msg);
    CHECK(!strcmp(sgot.backend, backend()), "summary names backend %s", sgot.backend);
    CHECK(got.r.increments == ref.r.increments && abs(got.r.newton - ref.r.newton) <= amg,
          "%d parts: %d increments, %d Newton; whole mesh %d, %d", n, got.r.increments,
          got.r.newton, ref.r.increments, ref.r.newton);
    CHECK(amg || abs(got.r.pcg - ref.r.pcg) <= 2 + ref.r.pcg / 50,
          "%d parts: %d PCG, whole mesh %d", n, got.r.pcg, ref.r.pcg);
    if (!matrix_free) (amg ? pcg_amg : pcg_bj)[displacement][n] = got.r.pcg;
    if (amg) pcg_amg_whole[displacement] = ref.r.pcg;
    du = max_diff(got.r.u, ref.r.u, nd) / max_abs(ref.r.u, nd);
    drf = max_diff(got.rf, ref.rf, nd) / max_abs(ref.rf, nd);
    dpe = fabs(got.peeq_max - ref.peeq_max) / ref.peeq_max;
    CHECK(du <= 1e-7 && drf <= 1e-7 && dpe <= 1e-7,
          "%d parts: displacement %.2e, reaction %.2e, PEEQ %.2e relative", n, du, drf, dpe);
    printf("%s%s%s bar, %d parts: %d increments, %d Newton (whole mesh %d), %d PCG (whole mesh "
           "%d); u %.1e, RF %.1e, PEEQ %.1e relative to the whole mesh\n",
           amg ? "amg, " : "", matrix_free ? "matrix-free, " : "",
           displacement ? "displacement-driven" : "traction", n, got.r.increments, got.r.newton,
           ref.r.newton, got.r.pcg, ref.r.pcg, du, drf, dpe);
  }
  dt_model_destroy(&m);
}

static void check_parts(int displacement, int matrix_free) {
  check_parts_pc(displacement, matrix_free, DT_PC_BLOCK_JACOBI);
}

/* AMG split on the same bars and parts. On the CPU one hierarchy across the parts: about the
 * whole mesh's iterations, whatever the parts. On a device backend additive Schwarz (one
 * hierarchy per part) against block Jacobi split: far fewer PCG iterations. */
static void check_amg_iterations(void) {
  int across = !strcmp(backend(), "cpu");
  for (int d = 0; d < 2; d++)
    for (int n = 2; n <= 4; n++) {
      const char *what = d ? "displacement-driven" : "traction";
      if (across)
        CHECK(pcg_amg[d][n] > 0 && pcg_amg[d][n] <= pcg_amg_whole[d] * 1.1 + 3,
              "%s bar, %d parts: amg across the parts %d PCG iterations, the whole mesh's %d", what,
              n, pcg_amg[d][n], pcg_amg_whole[d]);
      else
        CHECK(pcg_amg[d][n] > 0 && 2 * pcg_amg[d][n] < pcg_bj[d][n],
              "%s bar, %d parts: amg %d PCG iterations, block_jacobi %d", what, n, pcg_amg[d][n],
              pcg_bj[d][n]);
      printf("%s bar, %d parts: PCG iterations amg %d (whole mesh %d), block_jacobi %d\n", what, n,
             pcg_amg[d][n], pcg_amg_whole[d], pcg_bj[d][n]);
    }
}

static void check_resume(void) {
  dt_model *m = bar(1, 0);
  static split_record full, part, rest;
  dt_run_summary sum;
  dt_ctx ctx = {0};
  char dir[] = "/tmp/dt_splitXXXXXX", ck[512];
  CHECK(mkdtemp(dir) != NULL, "cannot make a temporary folder");
  snprintf(ck, sizeof ck, "%s/run.ck", dir);
  CHECK(run(m, 3, &full, &sum, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(run_ck(m, 3, ck, 0, 2, &part, &sum, &ctx) == DT_ERR_CANCELLED, "cancel: %s", ctx.msg);
  CHECK(part.r.increments == 2, "cancelled after %d increments, expected 2", part.r.increments);
  dt_ctx_reset(&ctx);
  CHECK(run_ck(m, 3, ck, 1, 0, &rest, &sum, &ctx) == DT_OK, "resume: %s", ctx.msg);
  CHECK(rest.resumed && rest.r.increments == 1, "resumed %d, %d increments computed", rest.resumed,
        rest.r.increments);
  CHECK(!memcmp(rest.r.u, full.r.u, sizeof(double) * 3 * m->n_nodes) &&
            rest.peeq_max == full.peeq_max,
        "the resumed 3-part run differs from the uninterrupted one");
  printf("3 parts: cancelled after 2 increments, resumed for 1, bit-identical to the "
         "uninterrupted run\n");
  unlink(ck);
  rmdir(dir);
  dt_model_destroy(&m);
}

static void check_refusals(void) {
  dt_model *m = bar(0, 0);
  static split_record s;
  dt_run_summary sum;
  dt_ctx ctx = {0};
  m->solver.precond = DT_PC_TWO_LEVEL;
  CHECK(run(m, 2, &s, &sum, &ctx) == DT_ERR_UNSUPPORTED, "two_level split: %s", ctx.msg);
  CHECK(strstr(ctx.msg, "\"two_level\"") && strstr(ctx.msg, "block_jacobi") &&
            strstr(ctx.msg, "\"amg\""),
        "message: %s", ctx.msg);
  dt_model_destroy(&m);
  m = bar_pc(0, 1, DT_PC_AMG); /* AMG needs the assembled tangent, split or not */
  dt_ctx_reset(&ctx);
  CHECK(run(m, 2, &s, &sum, &ctx) == DT_ERR_UNSUPPORTED, "matrix-free amg split: %s", ctx.msg);
  CHECK(strstr(ctx.msg, "assembled"), "message: %s", ctx.msg);
  dt_model_destroy(&m);
  m = unit_box(2, 1, 1, 1);
  unit_bar_load(m);
  dt_ctx_reset(&ctx);
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(run(m, 3, &s, &sum, &ctx) == DT_ERR_INPUT, "3 parts of 2 elements: %s", ctx.msg);
  CHECK(strstr(ctx.msg, "3") && strstr(ctx.msg, "2"), "message: %s", ctx.msg);
  dt_model_destroy(&m);
  printf("refused: two_level on several devices, amg with the matrix-free operator, 3 parts of 2 "
         "elements\n");
}

int main(void) {
#ifdef DUCTILE_HAVE_METIS
  check_parts(0, 0);
  check_parts(1, 0);
  check_parts(1, 1);
  check_parts_pc(0, 0, DT_PC_AMG);
  check_parts_pc(1, 0, DT_PC_AMG);
  check_amg_iterations();
  check_resume();
  check_refusals();
#else
  dt_model *m = bar(0, 0);
  static split_record s;
  dt_run_summary sum;
  dt_ctx ctx = {0};
  CHECK(run(m, 2, &s, &sum, &ctx) == DT_ERR_UNSUPPORTED && strstr(ctx.msg, "libmetis-dev"),
        "a split run without METIS: %s", ctx.msg);
  dt_model_destroy(&m);
  printf("built without METIS: a split run is refused and says how to build with it\n");
#endif
  return 0;
}
