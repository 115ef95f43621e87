/* J2 plasticity of order-P hexahedra on the GPU (cuda/cuda_ho_plastic.cu) against the host's
 * (solver/highorder/ho_plastic*.c, itself checked in tests/highorder/test_ho_plastic.c). One
 * section per argv[1] (all without one); references and tolerances:
 *  - operator, P = 1..4 on a curved box with a moved middle vertex, partly plastic u: the
 *    residual, the stored tangent and trial stress, the tangent product and the diagonal
 *    within 1e-12 of the host's (max norm, relative to the host's largest entry), the same
 *    plastic count; two GPU products of each kind bit-identical; commit and rollback leave the
 *    host's committed history;
 *  - solve: dt_ho_plastic_solve with opts.gpu against the host run, on the plastic cantilever
 *    of test_ho_plastic (force-driven, P = 1..3) and on the distorted box pulled and bent by
 *    prescribed displacements (the predictor's path, P = 2): the same Newton iterations and
 *    plastic points per increment, u within 1e-9 relative, PEEQ within 1e-9 of the largest,
 *    and with sync_state the committed PEEQ at every DT_HO_INCREMENT_DONE event;
 *  - failures: a NaN displacement fails the return mapping at the same element and point with
 *    the same message (residual and solve: reason material_no_convergence on both); a
 *    softening material gives the host's reason (an indefinite tangent) on the GPU too.
 * Skips (77) without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_entry.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_plastic.h"
#include "../highorder/ho_test_mesh.h"

static dt_material_params steel(double sigma_y0, double H) {
  dt_material_params m;
  memset(&m, 0, sizeof m);
  m.E = 200000.0;
  m.nu = 0.3;
  m.plastic = DT_PLASTIC_J2;
  m.iso = DT_ISO_LINEAR;
  m.sigma_y0 = sigma_y0;
  m.H = H;
  return m;
}

/* The unit cube of 2 x 2 x 2 hex8, its middle vertex moved, curved by ho_test_curve. */
static void distorted_box(int P, dt_ho_mesh *m) {
  dt_ctx ctx = {0};
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  int nv = 0, ne = 0, *hex8 = NULL;
  double *vx = NULL;
  EXPECT(dt_ho_hex8_box(2, 2, 2, lo, hi, &nv, &vx, &ne, &hex8, &ctx) == DT_OK, "%s", ctx.msg);
  vx[3 * 13 + 0] += 0.07, vx[3 * 13 + 1] -= 0.05, vx[3 * 13 + 2] += 0.04;
  EXPECT(dt_ho_mesh_build(P, nv, vx, ne, hex8, ho_test_curve, NULL, m, &ctx) == DT_OK, "%s",
         ctx.msg);
  dt_free(vx);
  dt_free(hex8);
}

/* Elastic geometry and one plastic state per side (host, GPU) with material mat everywhere. */
static void setup2(const dt_ho_mesh *m, const dt_material_params *mat, dt_ho_elastic *op,
                   dt_ho_plastic *ph, dt_ho_plastic *pg) {
  dt_ctx ctx = {0};
  int ne = m->n_elems, *em = calloc(ne, sizeof(int));
  double *lam = malloc(sizeof(double) * ne), *mu = malloc(sizeof(double) * ne);
  for (int e = 0; e < ne; e++) dt_ho_lame(mat->E, mat->nu, lam + e, mu + e);
  EXPECT(dt_ho_elastic_setup(m, 0, lam, mu, op, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_plastic_setup(op, 1, mat, em, ph, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_plastic_setup(op, 1, mat, em, pg, &ctx) == DT_OK, "%s", ctx.msg);
  free(em), free(lam), free(mu);
}

/* max |a - b| / max |b| over n. */
static double rel_diff(size_t n, const double *a, const double *b) {
  double d = 0.0, s = 0.0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
  return s > 0.0 ? d / s : d;
}

/* A smooth displacement straining the box to about 0.5% (plastic in places). */
static void plastic_field(const dt_ho_mesh *m, double *u) {
  for (int a = 0; a < m->n_nodes; a++) {
    const double *x = m->coords + 3 * a;
    u[3 * a] = 0.008 * x[0] * x[0] + 0.002 * x[1] * x[2];
    u[3 * a + 1] = -0.004 * x[0] * x[1] + 0.003 * sin(x[2]);
    u[3 * a + 2] = 0.006 * x[0] * x[2] - 0.002 * x[1];
  }
}

static void check_operator_order(int P) {
  dt_ctx ctx = {0};
  dt_ho_mesh m;
  dt_ho_elastic op;
  dt_ho_plastic ph, pg;
  dt_cuda_ho *h = NULL;
  dt_cuda_ho_plastic *hp = NULL;
  dt_material_params mat = steel(450.0, 6600.0);
  dt_ho_plastic_report rh, rg, rg2;
  distorted_box(P, &m);
  setup2(&m, &mat, &op, &ph, &pg);
  size_t n = 3 * (size_t)m.n_nodes, np = (size_t)ph.n_points;
  double *u = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
  double *fh = malloc(sizeof(double) * n), *fg = malloc(sizeof(double) * n);
  double *f2 = malloc(sizeof(double) * n);
  plastic_field(&m, u);
  for (size_t i = 0; i < n; i++) w[i] = 1e-3 * sin(0.37 * (double)i + 1.0);
  EXPECT(dt_cuda_ho_create(&op, 0, &h, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
  EXPECT(h && dt_cuda_ho_plastic_create(&pg, h, &hp, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
  if (!hp) goto done;
  /* residual, stored tangent, trial stress */
  EXPECT(dt_ho_plastic_residual(&ph, u, fh, &rh, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_residual(hp, u, fg, &rg, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_residual(hp, u, f2, &rg2, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_download(hp, DT_CUDA_HP_ALL, &pg, &ctx) == DT_OK, "%s", ctx.msg);
  double d_res = rel_diff(n, fg, fh), d_tan = rel_diff(21 * np, pg.tangent, ph.tangent);
  double d_sig = rel_diff(6 * np, pg.stress_t, ph.stress_t);
  EXPECT(d_res <= 1e-12 && d_tan <= 1e-12 && d_sig <= 1e-12,
         "P %d: residual %.2e, tangent %.2e, stress %.2e relative", P, d_res, d_tan, d_sig);
  /* both tangents at P >= 2; the 64 points of P = 1 all yield under this field */
  EXPECT(rg.n_plastic == rh.n_plastic && rh.n_plastic > 0 && (P == 1 || rh.n_plastic < ph.n_points),
         "P %d: plastic points %ld GPU, %ld host (of %ld)", P, rg.n_plastic, rh.n_plastic,
         ph.n_points);
  EXPECT(memcmp(fg, f2, sizeof(double) * n) == 0, "P %d: two GPU residuals differ", P);
  /* tangent product and diagonal */
  EXPECT(dt_ho_plastic_tangent_apply(&ph, w, fh, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_apply(hp, w, fg, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_apply(hp, w, f2, &ctx) == DT_OK, "%s", ctx.msg);
  double d_app = rel_diff(n, fg, fh);
  EXPECT(d_app <= 1e-12, "P %d: tangent product %.2e relative", P, d_app);
  EXPECT(memcmp(fg, f2, sizeof(double) * n) == 0, "P %d: two GPU products differ", P);
  EXPECT(dt_ho_plastic_tangent_diagonal(&ph, fh, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_diagonal(hp, fg, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_diagonal(hp, f2, &ctx) == DT_OK, "%s", ctx.msg);
  double d_diag = rel_diff(n, fg, fh);
  EXPECT(d_diag <= 1e-12, "P %d: diagonal %.2e relative", P, d_diag);
  EXPECT(memcmp(fg, f2, sizeof(double) * n) == 0, "P %d: two GPU diagonals differ", P);
  /* commit, then a residual elsewhere and rollback: the committed history is u's */
  dt_ho_plastic_commit(&ph);
  EXPECT(dt_cuda_ho_plastic_commit(hp, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_residual(hp, w, fg, NULL, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_rollback(hp, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_plastic_download(hp, DT_CUDA_HP_COMMITTED | DT_CUDA_HP_TRIAL, &pg, &ctx) ==
             DT_OK,
         "%s", ctx.msg);
  double d_hc = rel_diff(13 * np, pg.hist_c, ph.hist_c),
         d_ht = rel_diff(13 * np, pg.hist_t, ph.hist_c);
  EXPECT(d_hc <= 1e-12 && d_ht <= 1e-12, "P %d: committed history %.2e, rolled back %.2e", P, d_hc,
         d_ht);
  printf("operator P=%d: %d elements, %zu DOFs, %ld of %ld points plastic; GPU against host: "
         "residual %.1e, tangent %.1e, product %.1e, diagonal %.1e\n",
         P, m.n_elems, n, rg.n_plastic, ph.n_points, d_res, d_tan, d_app, d_diag);
done:
  dt_cuda_ho_plastic_destroy(hp);
  dt_cuda_ho_destroy(h);
  dt_ho_plastic_free(&ph);
  dt_ho_plastic_free(&pg);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
  free(u), free(w), free(fh), free(fg), free(f2);
}

/* The largest committed PEEQ at each DT_HO_INCREMENT_DONE event, read from the host state. */
typedef struct peeq_log {
  const dt_ho_plastic *pl;
  double peeq[DT_HO_NEWTON_MAX_INCREMENTS];
} peeq_log;

static int on_progress(const dt_ho_progress *ev, void *user) {
  peeq_log *L = user;
  if (ev->kind != DT_HO_INCREMENT_DONE) return 0;
  double s = 0.0;
  for (long i = 0; i < L->pl->n_points; i++)
    s = fmax(s, L->pl->hist_c[(i / L->pl->nq3 * DT_MAT_STATE_DOUBLES + DT_HIST_PEEQ) * L->pl->nq3 +
                              i % L->pl->nq3]);
  L->peeq[ev->increment - 1] = s;
  return 0;
}

/* The same solve on the host and on the GPU: iterations, u, PEEQ, the events' state. */
static void compare_solve(const char *what, const dt_ho_mesh *m, const dt_material_params *mat,
                          const dt_ho_newton_problem *pb, dt_ho_newton_opts no, int want_plastic) {
  dt_ctx ch = {0}, cg = {0};
  dt_ho_elastic op;
  dt_ho_plastic ph, pg;
  dt_ho_newton_report rh, rg;
  peeq_log lh, lg;
  size_t n = 3 * (size_t)m->n_nodes;
  double *uh = calloc(n, sizeof(double)), *ug = calloc(n, sizeof(double));
  setup2(m, mat, &op, &ph, &pg);
  memset(&lh, 0, sizeof lh), memset(&lg, 0, sizeof lg);
  lh.pl = &ph, lg.pl = &pg;
  no.progress = on_progress, no.progress_user = &lh;
  dt_status sh = dt_ho_plastic_solve(&ph, pb, &no, uh, &rh, &ch);
  no.gpu = 1, no.gpu_device = 0, no.sync_state = 1, no.progress_user = &lg;
  dt_status sg = dt_ho_plastic_solve(&pg, pb, &no, ug, &rg, &cg);
  EXPECT(sh == DT_OK && sg == DT_OK, "%s: host %s, GPU %s", what, ch.msg, cg.msg);
  EXPECT(rg.increments == rh.increments, "%s: %d increments GPU, %d host", what, rg.increments,
         rh.increments);
  for (int k = 0; k < rh.increments && k < rg.increments; k++) {
    EXPECT(rg.newton[k] == rh.newton[k] && rg.n_plastic[k] == rh.n_plastic[k],
           "%s, increment %d: Newton %d GPU, %d host; plastic %ld, %ld", what, k + 1, rg.newton[k],
           rh.newton[k], rg.n_plastic[k], rh.n_plastic[k]);
    EXPECT(fabs(lg.peeq[k] - lh.peeq[k]) <= 1e-9 * lh.peeq[rh.increments - 1],
           "%s, increment %d: PEEQ at the event %.9e GPU, %.9e host", what, k + 1, lg.peeq[k],
           lh.peeq[k]);
  }
  double du = rel_diff(n, ug, uh), dp = 0.0, pmax = 0.0;
  for (int e = 0; e < m->n_elems; e++)
    for (int q = 0; q < ph.nq3; q++) {
      double a = dt_ho_plastic_peeq(&pg, e, q), b = dt_ho_plastic_peeq(&ph, e, q);
      dp = fmax(dp, fabs(a - b)), pmax = fmax(pmax, b);
    }
  /* an elastic run (the P = 1 cantilever locks and stays elastic) must have PEEQ 0 on both */
  EXPECT(du <= 1e-9 && dp <= 1e-9 * pmax && (pmax > 0.0 || !want_plastic),
         "%s: u %.2e, PEEQ %.2e relative (max %g)", what, du, pmax > 0.0 ? dp / pmax : dp, pmax);
  printf("solve %s: %zu DOFs, Newton %d (host %d), PCG %d (host %d), u %.1e, PEEQ %.1e relative, "
         "max PEEQ %.3e\n",
         what, n, rg.newton_total, rh.newton_total, rg.pcg_total, rh.pcg_total, du,
         pmax > 0.0 ? dp / pmax : dp, pmax);
  dt_ho_plastic_free(&ph);
  dt_ho_plastic_free(&pg);
  dt_ho_elastic_free(&op);
  free(uh), free(ug);
}

static int at_x0(const double x[3], void *user) {
  (void)user;
  return fabs(x[0]) < 1e-12;
}

static void end_load(const double x[3], const double nrm[3], double t[3], void *user) {
  (void)x, (void)nrm, (void)user;
  t[0] = 0.0, t[1] = -13.5, t[2] = 0.0;
}

/* test_ho_plastic's cantilever: 4 x 1 x 1, 8 x 2 x 2 elements, clamped at x = 0, end traction
 * at 86% of the limit load, four increments. */
static void check_cantilever(int P) {
  dt_ctx ctx = {0};
  dt_ho_mesh m;
  dt_ho_elastic op;
  const double lo[3] = {0, 0, 0}, hi[3] = {4, 1, 1};
  const int nx = 8, ny = 2, nz = 2;
  dt_material_params mat = steel(250.0, 6600.0);
  char what[64];
  EXPECT(dt_ho_mesh_box(P, nx, ny, nz, lo, hi, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  int n = 3 * m.n_nodes, elem[4], face[4];
  unsigned char *node_fixed = calloc(m.n_nodes, 1), *fixed = calloc(n, 1);
  double *f = calloc(n, sizeof(double)), *lam = malloc(sizeof(double) * m.n_elems),
         *mu = malloc(sizeof(double) * m.n_elems);
  for (int e = 0; e < m.n_elems; e++) dt_ho_lame(mat.E, mat.nu, lam + e, mu + e);
  EXPECT(dt_ho_elastic_setup(&m, 0, lam, mu, &op, &ctx) == DT_OK, "%s", ctx.msg);
  for (int k = 0; k < ny * nz; k++) elem[k] = nx - 1 + nx * k, face[k] = 3;
  dt_ho_mesh_mark_where(&m, at_x0, NULL, node_fixed);
  for (int i = 0; i < n; i++) fixed[i] = node_fixed[i / 3];
  EXPECT(dt_ho_elastic_traction_load(&op, &m, ny * nz, elem, face, end_load, NULL, f, &ctx) ==
             DT_OK,
         "%s", ctx.msg);
  dt_ho_newton_problem pb = {fixed, NULL, f};
  dt_ho_newton_opts no = {4,    30,   1e-10, 1e-3, 1e-13, 20000, NULL, NULL,
                          NULL, NULL, 0,     0,    0,     NULL,  0};
  snprintf(what, sizeof what, "cantilever P=%d", P);
  compare_solve(what, &m, &mat, &pb, no, P >= 2);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
  free(node_fixed), free(fixed), free(f), free(lam), free(mu);
}

/* The distorted box clamped at x = 0 and moved at x = 1 by (0.004, 0, 0.006) over three
 * increments: the predictor's path (tangent product of a prescribed increment). */
static void check_box(int P) {
  dt_ho_mesh m;
  dt_material_params mat = steel(450.0, 6600.0);
  distorted_box(P, &m);
  int n = 3 * m.n_nodes;
  unsigned char *fixed = calloc(n, 1);
  double *up = calloc(n, sizeof(double));
  const double end[3] = {0.004, 0.0, 0.006};
  for (int a = 0; a < m.n_nodes; a++) {
    const double *x = m.coords + 3 * a;
    int side = fabs(x[0]) < 1e-12 ? 1 : fabs(x[0] - 1.0) < 1e-12 ? 2 : 0;
    for (int c = 0; c < 3; c++) {
      fixed[3 * a + c] = side != 0;
      up[3 * a + c] = side == 2 ? end[c] : 0.0;
    }
  }
  dt_ho_newton_problem pb = {fixed, up, NULL};
  dt_ho_newton_opts no = {3,    30,   1e-10, 1e-3, 1e-12, 20000, NULL, NULL,
                          NULL, NULL, 0,     0,    0,     NULL,  0};
  compare_solve("box P=2 (prescribed)", &m, &mat, &pb, no, 1);
  dt_ho_mesh_free(&m);
  free(fixed), free(up);
}

/* The host's and the GPU's solve of the same failing problem: the same status, reason and
 * message up to the iteration it names. */
static void compare_failure(const char *what, const dt_ho_mesh *m, const dt_material_params *mat,
                            const dt_ho_newton_problem *pb, dt_ho_newton_opts no, const double *u0,
                            dt_reason expect) {
  dt_ctx ch = {0}, cg = {0};
  dt_ho_elastic op;
  dt_ho_plastic ph, pg;
  dt_ho_newton_report rh, rg;
  size_t n = 3 * (size_t)m->n_nodes;
  double *uh = malloc(sizeof(double) * n), *ug = malloc(sizeof(double) * n);
  memcpy(uh, u0, sizeof(double) * n), memcpy(ug, u0, sizeof(double) * n);
  setup2(m, mat, &op, &ph, &pg);
  dt_status sh = dt_ho_plastic_solve(&ph, pb, &no, uh, &rh, &ch);
  no.gpu = 1;
  dt_status sg = dt_ho_plastic_solve(&pg, pb, &no, ug, &rg, &cg);
  EXPECT(sh == DT_ERR_NOT_CONVERGED && sg == sh, "%s: status %d host, %d GPU (%s)", what, sh, sg,
         cg.msg);
  EXPECT(rh.reason == expect && rg.reason == rh.reason, "%s: reason %s host, %s GPU", what,
         dt_reason_name(rh.reason), dt_reason_name(rg.reason));
  EXPECT(strncmp(ch.msg, cg.msg, 25) == 0, "%s: host '%s', GPU '%s'", what, ch.msg, cg.msg);
  printf("failure %s: %s (host: %s)\n  GPU: %s\n", what, dt_reason_name(rg.reason),
         dt_reason_name(rh.reason), cg.msg);
  dt_ho_plastic_free(&ph);
  dt_ho_plastic_free(&pg);
  dt_ho_elastic_free(&op);
  free(uh), free(ug);
}

static void check_failures(void) {
  dt_ctx ch = {0}, cg = {0};
  dt_ho_mesh m;
  dt_ho_elastic op;
  dt_ho_plastic ph, pg;
  dt_cuda_ho *h = NULL;
  dt_cuda_ho_plastic *hp = NULL;
  dt_ho_plastic_report rh, rg;
  dt_material_params mat = steel(450.0, 6600.0), soft = steel(450.0, -60000.0);
  distorted_box(2, &m);
  setup2(&m, &mat, &op, &ph, &pg);
  int n = 3 * m.n_nodes;
  double *u = calloc(n, sizeof(double)), *fh = calloc(n, sizeof(double)),
         *fg = calloc(n, sizeof(double)), *up = calloc(n, sizeof(double));
  unsigned char *fixed = calloc(n, 1);
  /* a NaN displacement: the return mapping fails in the last node's elements */
  u[n - 1] = NAN;
  dt_status sh = dt_ho_plastic_residual(&ph, u, fh, &rh, &ch);
  EXPECT(dt_cuda_ho_create(&op, 0, &h, &cg) == DT_OK, "%s", cg.msg);
  EXPECT(h && dt_cuda_ho_plastic_create(&pg, h, &hp, &cg) == DT_OK, "%s", cg.msg);
  dt_status sg = hp ? dt_cuda_ho_plastic_residual(hp, u, fg, &rg, &cg) : DT_ERR_INTERNAL;
  EXPECT(sh == DT_ERR_NOT_CONVERGED && sg == sh && rg.failed_elem == rh.failed_elem &&
             rg.failed_point == rh.failed_point && rg.n_failed == rh.n_failed &&
             strcmp(ch.msg, cg.msg) == 0,
         "NaN residual: host '%s', GPU '%s'", ch.msg, cg.msg);
  printf("failure NaN residual: GPU '%s'\n", cg.msg);
  dt_cuda_ho_plastic_destroy(hp);
  dt_cuda_ho_destroy(h);
  /* the same through the solve, and a softening material pulled past yield */
  for (int a = 0; a < m.n_nodes; a++) {
    const double *x = m.coords + 3 * a;
    int side = fabs(x[0]) < 1e-12 ? 1 : fabs(x[0] - 1.0) < 1e-12 ? 2 : 0;
    for (int c = 0; c < 3; c++) fixed[3 * a + c] = side != 0;
    up[3 * a] = side == 2 ? 0.006 : 0.0;
  }
  dt_ho_newton_problem pb = {fixed, up, NULL};
  dt_ho_newton_opts no = {2,    30,   1e-10, 1e-3, 1e-12, 20000, NULL, NULL,
                          NULL, NULL, 0,     0,    0,     NULL,  0};
  compare_failure("NaN start", &m, &mat, &pb, no, u, DT_MATERIAL_NO_CONVERGENCE);
  u[n - 1] = 0.0;
  compare_failure("softening", &m, &soft, &pb, no, u, DT_DIVERGED_INDEFINITE);
  dt_ho_plastic_free(&ph);
  dt_ho_plastic_free(&pg);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
  free(u), free(fh), free(fg), free(up), free(fixed);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  char why[256] = "";
  if (!dt_cuda_available(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  if (!only || !strcmp(only, "operator"))
    for (int P = 1; P <= 4; P++) check_operator_order(P);
  if (!only || !strcmp(only, "solve")) {
    for (int P = 1; P <= 3; P++) check_cantilever(P);
    check_box(2);
  }
  if (!only || !strcmp(only, "failures")) check_failures();
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
