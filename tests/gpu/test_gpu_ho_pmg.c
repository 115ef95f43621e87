/* The p-multigrid preconditioner on the GPU (cuda/cuda_ho_pmg.h) against the host's
 * (solver/highorder/ho_pmg.h, itself checked in tests/highorder/test_ho_pmg.c), on the curved
 * cantilever of tests/highorder/ho_test_cantilever.h at 16 x 4 x 4 elements (its order-1 AMG has
 * two levels), P = 2, 3, 4 and 6 (levels 6 -> 3 -> 2 -> 1). References and tolerances:
 *  - transfers: P x_c and R y of every level pair against dt_ho_pmg_prolong / _restrict,
 *    max |device - host| <= 1e-13 max |host|;
 *  - one application z = M^-1 r against dt_ho_pmg_apply: |z_dev - z_host| <= 1e-10 |z_host|;
 *    two device applications give the same bits;
 *  - the device Lanczos estimate of lambda_max(D^-1 A) (set_fine with a diagonal and no
 *    lambda_max) within 1e-8 of the host's, and the application with it within 1e-8;
 *  - PCG to 1e-10 on the device (dt_cuda_ho_pcg) preconditioned by it: the host's iteration
 *    count (dt_ho_pcg_solve_pc) +-1, solutions within 1e-8.
 * With --bench: ms per application and PCG iterations and time against device Jacobi at about
 * 8M DOFs for P = 2 and 4 (no checks). Skips (77) without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/cuda_entry.h"
#include "cuda/cuda_ho_pmg.h"
#include "highorder/ho_pmg.h"
#include "../highorder/ho_test_cantilever.h"
#include "../highorder/ho_test_mesh.h"
#include "../test_expect.h"

static double norm2(int n, const double *x) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

/* max |a - b| / max |b| */
static double max_rel(int n, const double *a, const double *b) {
  double d = 0.0, m = 0.0;
  for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), m = fmax(m, fabs(b[i]));
  return m > 0.0 ? d / m : d;
}

static double diff_rel(int n, const double *a, const double *b) {
  double d = 0.0;
  for (int i = 0; i < n; i++) d += (a[i] - b[i]) * (a[i] - b[i]);
  return sqrt(d) / norm2(n, b);
}

/* The PCG's operator: the elastic device operator in the legacy default stream. */
static dt_status ho_op(void *op, const double *d_x, double *d_y, dt_ctx *ctx) {
  return dt_cuda_ho_apply_in((dt_cuda_ho *)op, NULL, d_x, d_y, ctx);
}

/* Host input on the device, a device result down. */
static double *up(int n, const double *h) {
  double *d = NULL;
  dt_ctx ctx = {0};
  EXPECT(dt_cuda_dvec_alloc(n, &d, &ctx) == DT_OK, "%s", ctx.msg);
  if (d && h) EXPECT(dt_cuda_dvec_set(d, h, n, &ctx) == DT_OK, "%s", ctx.msg);
  return d;
}

static void down(int n, const double *d, double *h) {
  dt_ctx ctx = {0};
  EXPECT(dt_cuda_dvec_get(h, d, n, &ctx) == DT_OK, "%s", ctx.msg);
}

static void check_transfers(const dt_ho_pmg *pmg, dt_cuda_ho_pmg *pc, int P) {
  dt_ctx ctx = {0};
  for (int l = 0; l + 1 < pmg->n_levels; l++) {
    int nf = pmg->lev[l].n, nc = pmg->lev[l + 1].n;
    unsigned seed = 11u + l;
    double *xc = malloc(sizeof(double) * nc), *y = malloc(sizeof(double) * nf),
           *hp = malloc(sizeof(double) * nf), *hr = malloc(sizeof(double) * nc),
           *gp = malloc(sizeof(double) * nf), *gr = malloc(sizeof(double) * nc);
    for (int i = 0; i < nc; i++) xc[i] = 2 * ho_test_rnd(&seed) - 1;
    for (int i = 0; i < nf; i++) y[i] = 2 * ho_test_rnd(&seed) - 1;
    dt_ho_pmg_prolong(pmg, l, xc, hp);
    dt_ho_pmg_restrict(pmg, l, y, hr);
    double *dxc = up(nc, xc), *dy = up(nf, y), *dp = up(nf, NULL), *dr = up(nc, NULL);
    EXPECT(dt_cuda_ho_pmg_prolong(pc, l, dxc, dp, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_cuda_ho_pmg_restrict(pc, l, dy, dr, &ctx) == DT_OK, "%s", ctx.msg);
    down(nf, dp, gp);
    down(nc, dr, gr);
    double ep = max_rel(nf, gp, hp), er = max_rel(nc, gr, hr);
    EXPECT(ep <= 1e-13 && er <= 1e-13, "P %d level %d: prolongation %.3e, restriction %.3e", P, l,
           ep, er);
    printf("P %d transfer %d (order %d -> %d): P %.2e, R %.2e (max relative)\n", P, l,
           pmg->lev[l + 1].order, pmg->lev[l].order, ep, er);
    dt_cuda_dvec_free(dxc), dt_cuda_dvec_free(dy), dt_cuda_dvec_free(dp), dt_cuda_dvec_free(dr);
    free(xc), free(y), free(hp), free(hr), free(gp), free(gr);
  }
}

/* One application on the device against the host's; returns the relative difference. */
static double compare_apply(dt_ho_pmg *pmg, dt_cuda_ho_pmg *pc, int n, const double *r, int twice) {
  dt_ctx ctx = {0};
  double *zh = malloc(sizeof(double) * n), *zg = malloc(sizeof(double) * n),
         *zg2 = malloc(sizeof(double) * n), *dr = up(n, r), *dz = up(n, NULL);
  EXPECT(dt_ho_pmg_apply(pmg, r, zh, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_pmg_apply(pc, dr, dz, &ctx) == DT_OK, "%s", ctx.msg);
  down(n, dz, zg);
  if (twice) {
    EXPECT(dt_cuda_ho_pmg_apply(pc, dr, dz, &ctx) == DT_OK, "%s", ctx.msg);
    down(n, dz, zg2);
    EXPECT(memcmp(zg, zg2, sizeof(double) * n) == 0, "two device applications differ");
  }
  double d = diff_rel(n, zg, zh);
  dt_cuda_dvec_free(dr), dt_cuda_dvec_free(dz);
  free(zh), free(zg), free(zg2);
  return d;
}

static void check_order(int P) {
  ho_test_cantilever c;
  dt_ho_pmg pmg;
  dt_ho_pmg_opts o;
  dt_cuda_ho *h = NULL;
  dt_cuda_ho_pmg *pc = NULL;
  dt_ctx ctx = {0};
  ho_test_cantilever_build(P, 16, 4, 4, &c);
  int n = c.n;
  dt_ho_pmg_opts_default(&o);
  EXPECT(dt_ho_pmg_setup(&c.m, &c.el, dt_ho_elastic_apply_fn, &c.el, c.diag, c.fixed, &o, &pmg,
                         &ctx) == DT_OK,
         "P %d: %s", P, ctx.msg);
  EXPECT(dt_cuda_ho_create(&c.el, 0, &h, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
  EXPECT(dt_cuda_ho_pmg_create(&pmg, 0, NULL, &pc, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
  if (!h || !pc) goto done;
  EXPECT(dt_cuda_ho_pmg_set_fine_ho(pc, h, NULL, 0.0, &ctx) == DT_OK, "%s", ctx.msg);
  dt_cuda_ho_pmg_view(pc, stdout);
  check_transfers(&pmg, pc, P);
  /* one application on a random residual */
  double *r = malloc(sizeof(double) * n);
  unsigned seed = 5u;
  for (int i = 0; i < n; i++) r[i] = 2 * ho_test_rnd(&seed) - 1;
  double d = compare_apply(&pmg, pc, n, r, 1);
  EXPECT(d <= 1e-10, "P %d: device application differs from the host's by %.3e", P, d);
  printf("P %d: application |z_dev - z_host| / |z_host| = %.2e\n", P, d);
  /* the device Lanczos estimate, then the host's value given explicitly */
  double *ddiag = up(n, c.diag), lh = pmg.lev[0].lambda_max;
  EXPECT(dt_cuda_ho_pmg_set_fine_ho(pc, h, ddiag, 0.0, &ctx) == DT_OK, "%s", ctx.msg);
  double lg = dt_cuda_ho_pmg_lambda_max(pc), dl = fabs(lg - lh) / lh;
  d = compare_apply(&pmg, pc, n, r, 0);
  EXPECT(dl <= 1e-8 && d <= 1e-8, "P %d: device lambda_max %.17g vs host %.17g, application %.3e",
         P, lg, lh, d);
  printf("P %d: lambda_max device %.12g host %.12g (%.1e), application with it %.2e\n", P, lg, lh,
         dl, d);
  EXPECT(dt_cuda_ho_pmg_set_fine_ho(pc, h, ddiag, lh, &ctx) == DT_OK, "%s", ctx.msg);
  d = compare_apply(&pmg, pc, n, r, 0);
  EXPECT(d <= 1e-10, "P %d: with the host's lambda_max given, %.3e", P, d);
  /* PCG */
  {
    dt_ho_pcg_opts po = {1e-10, 20000};
    dt_ho_pcg_result rh = {0}, rg = {0};
    double *uh = calloc(n, sizeof(double)), *ug = calloc(n, sizeof(double));
    double *du = up(n, NULL), *db = up(n, c.b);
    unsigned char *dfixed = NULL;
    EXPECT(dt_cuda_dmask_alloc(n, c.fixed, &dfixed, &ctx) == DT_OK, "%s", ctx.msg);
    double t0 = ho_test_seconds();
    EXPECT(dt_ho_pcg_solve_pc(n, dt_ho_elastic_apply_fn, &c.el, dt_ho_pmg_apply, &pmg, c.fixed, c.b,
                              uh, &po, &rh, &ctx) == DT_OK,
           "host: %s", ctx.msg);
    double th = ho_test_seconds() - t0;
    t0 = ho_test_seconds();
    EXPECT(dt_cuda_ho_pcg(n, ho_op, h, dt_cuda_ho_pmg_apply, pc, dfixed, db, du, NULL, &po, &rg,
                          &ctx) == DT_OK,
           "device: %s", ctx.msg);
    double tg = ho_test_seconds() - t0;
    down(n, du, ug);
    d = diff_rel(n, ug, uh);
    EXPECT(abs(rg.iterations - rh.iterations) <= 1 && d <= 1e-8,
           "P %d: PCG iterations device %d host %d, solutions differ by %.3e", P, rg.iterations,
           rh.iterations, d);
    printf("P %d: %d DOFs, p-MG PCG host %d its %.3f s, device %d its %.3f s, |u_dev - u_host| / "
           "|u_host| %.2e\n",
           P, n, rh.iterations, th, rg.iterations, tg, d);
    dt_cuda_dvec_free(du), dt_cuda_dvec_free(db), dt_cuda_dvec_free(dfixed);
    free(uh), free(ug);
  }
  dt_cuda_dvec_free(ddiag);
  free(r);
done:
  dt_cuda_ho_pmg_destroy(pc);
  dt_cuda_ho_destroy(h);
  dt_ho_pmg_free(&pmg);
  ho_test_cantilever_free(&c);
}

/* --bench: the cantilever refined to about 8M DOFs at order P. */
static void bench(int P, int nx, int ny, int nz) {
  ho_test_cantilever c;
  dt_ho_pmg pmg;
  dt_ho_pmg_opts o;
  dt_cuda_ho *h = NULL;
  dt_cuda_ho_pmg *pc = NULL;
  dt_ctx ctx = {0};
  double t0 = ho_test_seconds();
  ho_test_cantilever_build(P, nx, ny, nz, &c);
  int n = c.n;
  double tb = ho_test_seconds() - t0;
  dt_ho_pmg_opts_default(&o);
  t0 = ho_test_seconds();
  EXPECT(dt_ho_pmg_setup(&c.m, &c.el, dt_ho_elastic_apply_fn, &c.el, c.diag, c.fixed, &o, &pmg,
                         &ctx) == DT_OK,
         "%s", ctx.msg);
  double ts = ho_test_seconds() - t0;
  t0 = ho_test_seconds();
  EXPECT(dt_cuda_ho_create(&c.el, 0, &h, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_pmg_create(&pmg, 0, NULL, &pc, &ctx) == DT_OK, "%s", ctx.msg);
  if (!h || !pc) goto done;
  EXPECT(dt_cuda_ho_pmg_set_fine_ho(pc, h, NULL, 0.0, &ctx) == DT_OK, "%s", ctx.msg);
  double tu = ho_test_seconds() - t0;
  printf("bench P %d, %dx%dx%d elements, %d DOFs: build %.1f s, host p-MG setup %.1f s, upload "
         "%.1f s\n",
         P, nx, ny, nz, n, tb, ts, tu);
  dt_cuda_ho_pmg_view(pc, stdout);
  {
    double *dr = up(n, c.b), *dz = up(n, NULL), *du = up(n, NULL), *db = up(n, c.b), *ddinv;
    double *dinv = malloc(sizeof(double) * n), sec = 0.0, ho_sec = 0.0, bw = 0.0, bytes, held;
    unsigned char *dfixed = NULL;
    for (int i = 0; i < n; i++) dinv[i] = c.fixed[i] ? 0.0 : 1.0 / c.diag[i];
    ddinv = up(n, dinv);
    EXPECT(dt_cuda_dmask_alloc(n, c.fixed, &dfixed, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_cuda_ho_pmg_time(pc, dr, dz, 10, &sec, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_cuda_ho_time(h, 10, &ho_sec, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_cuda_ho_copy_bandwidth(h, &bw, &ctx) == DT_OK, "%s", ctx.msg);
    dt_cuda_ho_pmg_traffic(pc, &bytes, &held);
    printf("bench P %d: one application %.3f ms (%.1f fine products of %.3f ms), %.0f MB moved "
           "-> %.0f GB/s, floor %.3f ms at the copy bandwidth %.0f GB/s; %.0f MB held\n",
           P, 1e3 * sec, 2.0 * o.degree, 1e3 * ho_sec, bytes / 1e6, bytes / sec / 1e9,
           1e3 * bytes / bw, bw / 1e9, held / 1e6);
    dt_ho_pcg_opts po = {1e-8, 50000};
    dt_ho_pcg_result rm = {0}, rj = {0};
    dt_cuda_ho_jacobi jac = {n, ddinv, NULL};
    t0 = ho_test_seconds();
    EXPECT(dt_cuda_ho_pcg(n, ho_op, h, dt_cuda_ho_pmg_apply, pc, dfixed, db, du, NULL, &po, &rm,
                          &ctx) == DT_OK,
           "p-MG: %s", ctx.msg);
    double tm = ho_test_seconds() - t0;
    dt_cuda_dvec_free(du); /* Jacobi from zero too */
    du = up(n, NULL);
    t0 = ho_test_seconds();
    EXPECT(dt_cuda_ho_pcg(n, ho_op, h, dt_cuda_ho_jacobi_apply, &jac, dfixed, db, du, NULL, &po,
                          &rj, &ctx) == DT_OK,
           "Jacobi: %s", ctx.msg);
    double tj = ho_test_seconds() - t0;
    printf("bench P %d PCG to 1e-8: p-MG %d its %.3f s (%.2f ms/it), Jacobi %d its %.3f s (%.2f "
           "ms/it): %.1fx\n",
           P, rm.iterations, tm, 1e3 * tm / (rm.iterations ? rm.iterations : 1), rj.iterations, tj,
           1e3 * tj / (rj.iterations ? rj.iterations : 1), tj / tm);
    dt_cuda_dvec_free(dr), dt_cuda_dvec_free(dz), dt_cuda_dvec_free(du), dt_cuda_dvec_free(db);
    dt_cuda_dvec_free(ddinv), dt_cuda_dvec_free(dfixed);
    free(dinv);
  }
done:
  dt_cuda_ho_pmg_destroy(pc);
  dt_cuda_ho_destroy(h);
  dt_ho_pmg_free(&pmg);
  ho_test_cantilever_free(&c);
}

/* Usage: test_gpu_ho_pmg [--bench]. */
int main(int argc, char **argv) {
  char why[256] = "";
  int run_bench = argc > 1 && !strcmp(argv[1], "--bench");
  if (!dt_cuda_available(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  if (run_bench) {
    bench(2, 320, 32, 32);
    bench(4, 160, 16, 16);
  } else {
    const int orders[] = {2, 3, 4, 6};
    for (int k = 0; k < 4; k++) check_order(orders[k]);
  }
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
