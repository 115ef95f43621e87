/* Explicit dynamics of order-P hexahedra (solver/highorder/ho_explicit.h, ho_mass.h) on the
 * seed's cantilever (ho_explicit_beam.h), E = 1000, nu = 0.3, rho = 1 and end traction 1e-3, on
 * 16 x 2 x 2 elements at P = 2 and 8 x 1 x 1 at P = 4 (the same 33 x 5 x 5 nodes). Run with a
 * section name (mass, dt, energy, damped_p2, damped_p4, period_p2, period_p4, consistent,
 * bad_input) for one ctest entry, none for all; -v prints the numbers.
 *
 * References and tolerances:
 *  - mass: the lumped masses sum to rho V to 1e-12 relative (V exact: box meshes; distorted
 *    trilinear elements for the row sums, whose Gauss rule integrates det J exactly, and the
 *    GLL mass from P = 2, whose Lobatto rule then does); every entry is positive for P = 1..8
 *    on a curved mesh; on affine elements the row sums equal the GLL masses node by node to
 *    1e-12 (the Lobatto rule integrates L_a exactly to w_a, hand check); the consistent
 *    product M 1 equals the row sums to 1e-12 and 1.M.1 = rho V;
 *  - dt: for P = 1 on cubes of side h the estimated 2/omega_max lies below the bar bound h/c,
 *    c = sqrt(E/rho), and above 0.3 h/c; 40 power iterations are within 5% of 400;
 *  - energy: undamped step load, T + U = W + E_start to 1e-6 relative over the whole run
 *    (lumped masses, P = 2 and 4; the balance is exact in exact arithmetic);
 *  - damped: alpha = 2 omega_1 (critical for the first mode; every mode then decays like
 *    exp(-omega_1 t)), after 10/omega_1 the tip deflection is within 0.5% of the static PCG
 *    solution of the same mesh and within 2% of Timoshenko, P = 2 and 4;
 *  - period: undamped over 1.35 periods, the period from the tip's crossings of the mean of its
 *    range within 3% of Euler-Bernoulli 2 pi/omega_1 (P = 2 and 4; the solid's shear and rotary
 *    inertia and the higher modes a step load excites move it by about 1%);
 *  - consistent: the consistent-mass variant keeps the balance to 1e-6 and takes a smaller
 *    stable step than the lumped mass (standard result: consistent mass raises omega_max);
 *  - bad_input: negative density, dt above the limit, no steps, negative damping, a
 *    non-positive row sum each fail with DT_ERR_INPUT and a message saying what. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_elastic.h"
#include "highorder/ho_explicit.h"
#include "highorder/ho_explicit_beam.h"
#include "highorder/ho_mass.h"
#include "highorder/ho_mesh.h"
#include "../test_expect.h"
#include "ho_test_mesh.h"

static int verbose = 0;

/* The load is small (tip deflection about 4e-3 on L = 10) so the linear model is the right one;
 * the dynamics of a linear problem do not depend on its size. */
#define BEAM_E 1000.0
#define BEAM_NU 0.3
#define BEAM_Q 1e-3

static double sum(int n, const double *x) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i];
  return s;
}

/* [0, 2] x [0, 1] x [0, 3] on 3 x 2 x 2 hex8, interior vertices moved by up to 15% of h when
 * distort != 0 (the box volume 6 is kept exactly). */
static void distorted_box(int P, int distort, dt_ho_mesh *m) {
  const double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 3};
  int nv, ne, *hex8 = NULL;
  double *vx = NULL;
  unsigned s = 777u;
  dt_ctx ctx = {0};
  EXPECT(dt_ho_hex8_box(3, 2, 2, lo, hi, &nv, &vx, &ne, &hex8, &ctx) == DT_OK, "%s", ctx.msg);
  for (int v = 0; distort && v < nv; v++) {
    double *x = vx + 3 * v;
    int inner = x[0] > 1e-9 && x[0] < 2 - 1e-9 && x[1] > 1e-9 && x[1] < 1 - 1e-9 && x[2] > 1e-9 &&
                x[2] < 3 - 1e-9;
    for (int d = 0; inner && d < 3; d++) {
      s = s * 1103515245u + 12345u;
      x[d] += 0.15 * 0.5 * (((s >> 8) & 0xffff) / 65536.0 - 0.5) * 2.0;
    }
  }
  EXPECT(dt_ho_mesh_build(P, nv, vx, ne, hex8, NULL, NULL, m, &ctx) == DT_OK, "%s", ctx.msg);
  dt_free(vx);
  dt_free(hex8);
}

static void setup_op(const dt_ho_mesh *m, dt_ho_elastic *op) {
  dt_ctx ctx = {0};
  double *lam = malloc(sizeof(double) * m->n_elems), *mu = malloc(sizeof(double) * m->n_elems);
  for (int e = 0; e < m->n_elems; e++) dt_ho_lame(BEAM_E, BEAM_NU, &lam[e], &mu[e]);
  EXPECT(dt_ho_elastic_setup(m, 0, lam, mu, op, &ctx) == DT_OK, "%s", ctx.msg);
  free(lam);
  free(mu);
}

static void check_mass(void) {
  const double rho = 2.5;
  for (int P = 1; P <= 8; P++) {
    for (int distort = 0; distort <= 1; distort++) {
      dt_ho_mesh m;
      dt_ho_elastic op;
      dt_ctx ctx = {0};
      distorted_box(P, distort, &m);
      setup_op(&m, &op);
      int nn = m.n_nodes;
      double *gll = calloc(nn, sizeof(double)), *row = calloc(nn, sizeof(double));
      double *one = malloc(sizeof(double) * 3 * nn), *Mone = calloc(3 * nn, sizeof(double));
      EXPECT(dt_ho_mass_gll(&m, rho, gll, &ctx) == DT_OK, "%s", ctx.msg);
      EXPECT(dt_ho_mass_rowsum(&op, &m, rho, row, &ctx) == DT_OK, "%s", ctx.msg);
      double mass = rho * 6.0, sg = sum(nn, gll), sr = sum(nn, row), dmax = 0.0;
      EXPECT(fabs(sr - mass) <= 1e-12 * mass, "P %d distort %d: row sums total %.15g, not %g", P,
             distort, sr, mass);
      if (!distort || P >= 2)
        EXPECT(fabs(sg - mass) <= 1e-12 * mass, "P %d distort %d: GLL total %.15g, not %g", P,
               distort, sg, mass);
      for (int a = 0; a < nn; a++) {
        EXPECT(gll[a] > 0.0 && row[a] > 0.0, "P %d node %d: masses %g, %g", P, a, gll[a], row[a]);
        dmax = fmax(dmax, fabs(gll[a] - row[a]) / row[a]);
      }
      if (!distort) EXPECT(dmax <= 1e-12, "P %d: row sums differ from GLL by %.3g", P, dmax);
      /* consistent product: M 1_c has the row sums in component c, 1.M.1 = rho V */
      dt_ho_mass_op mo = {&op, rho};
      for (int i = 0; i < 3 * nn; i++) one[i] = 1.0;
      EXPECT(dt_ho_mass_apply(&mo, one, Mone, &ctx) == DT_OK, "%s", ctx.msg);
      double dm = 0.0;
      for (int i = 0; i < 3 * nn; i++) dm = fmax(dm, fabs(Mone[i] - row[i / 3]) / row[i / 3]);
      EXPECT(dm <= 1e-12, "P %d distort %d: M 1 differs from the row sums by %.3g", P, distort, dm);
      EXPECT(fabs(sum(3 * nn, Mone) - 3 * mass) <= 1e-12 * 3 * mass, "P %d: 1.M.1 = %.15g", P,
             sum(3 * nn, Mone));
      if (verbose)
        printf("mass P %d distort %d: GLL total %.15g, row sums %.15g (rho V %g), max node "
               "difference %.2e\n",
               P, distort, sg, sr, mass, dmax);
      free(gll), free(row), free(one), free(Mone);
      dt_ho_elastic_free(&op);
      dt_ho_mesh_free(&m);
    }
    /* positivity on a curved unit cube (curved elements: the two lumpings differ) */
    dt_ho_mesh m;
    dt_ho_elastic op;
    dt_ctx ctx = {0};
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    EXPECT(dt_ho_mesh_box(P, 2, 2, 2, lo, hi, ho_test_curve, NULL, &m, &ctx) == DT_OK, "%s",
           ctx.msg);
    setup_op(&m, &op);
    double *gll = calloc(m.n_nodes, sizeof(double)), *row = calloc(m.n_nodes, sizeof(double));
    double gmin = INFINITY, rmin = INFINITY;
    EXPECT(dt_ho_mass_gll(&m, rho, gll, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_ho_mass_rowsum(&op, &m, rho, row, &ctx) == DT_OK, "P %d curved: %s", P, ctx.msg);
    for (int a = 0; a < m.n_nodes; a++) gmin = fmin(gmin, gll[a]), rmin = fmin(rmin, row[a]);
    EXPECT(gmin > 0.0 && rmin > 0.0, "P %d curved: smallest masses %g, %g", P, gmin, rmin);
    if (verbose)
      printf("mass P %d curved: smallest GLL %.3e, row sum %.3e; totals %.12f %.12f\n", P, gmin,
             rmin, sum(m.n_nodes, gll), sum(m.n_nodes, row));
    free(gll), free(row);
    dt_ho_elastic_free(&op);
    dt_ho_mesh_free(&m);
  }
}

static void check_dt(void) {
  /* P = 1 cubes of side h = 0.25 */
  dt_ho_beam b;
  dt_ctx ctx = {0};
  dt_ho_explicit_problem pb;
  double w40 = 0.0, w400 = 0.0, h = 0.25, c = sqrt(BEAM_E / 1.0);
  EXPECT(dt_ho_beam_setup(1, 40, 4, 4, BEAM_E, BEAM_NU, 1.0, BEAM_Q, DT_HO_MASS_GLL, &b, &ctx) ==
             DT_OK,
         "%s", ctx.msg);
  dt_ho_beam_problem(&b, &pb);
  EXPECT(dt_ho_explicit_omega_max(&pb, 40, &w40, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_explicit_omega_max(&pb, 400, &w400, &ctx) == DT_OK, "%s", ctx.msg);
  double dt = 2.0 / w40;
  EXPECT(dt <= h / c && dt >= 0.3 * h / c, "P 1: 2/omega_max %.4g vs h/c %.4g", dt, h / c);
  EXPECT(w40 >= 0.95 * w400 && w40 <= w400, "omega_max by 40 its %.6g, by 400 %.6g", w40, w400);
  if (verbose)
    printf("dt P 1: h/c %.5g, 2/omega_max %.5g (40 its) %.5g (400 its), ratio %.3f\n", h / c, dt,
           2.0 / w400, dt / (h / c));
  dt_ho_beam_free(&b);
  /* the same elements at higher order: dt shrinks roughly like 1/P^2 (seed §1.8) */
  for (int P = 2; verbose && P <= 4; P++) {
    double w;
    EXPECT(dt_ho_beam_setup(P, 40, 4, 4, BEAM_E, BEAM_NU, 1.0, BEAM_Q, DT_HO_MASS_GLL, &b, &ctx) ==
               DT_OK,
           "%s", ctx.msg);
    dt_ho_beam_problem(&b, &pb);
    EXPECT(dt_ho_explicit_omega_max(&pb, 40, &w, &ctx) == DT_OK, "%s", ctx.msg);
    printf("dt P %d on the same 40x4x4 elements: 2/omega_max %.5g = %.3f of P = 1\n", P, 2.0 / w,
           (2.0 / w) / dt);
    dt_ho_beam_free(&b);
  }
}

/* The CI meshes: 16 x 2 x 2 at P = 2 and 8 x 1 x 1 at P = 4, the same 33 x 5 x 5 nodes. */
static int beam_setup(int P, dt_ho_mass_kind kind, dt_ho_beam *b, dt_ctx *ctx) {
  int k = P == 2 ? 2 : 1;
  return dt_ho_beam_setup(P, 8 * k, k, k, BEAM_E, BEAM_NU, 1.0, BEAM_Q, kind, b, ctx);
}

/* Tip history, one entry per step. */
typedef struct history {
  int n, cap;
  double *t, *y;
} history;

typedef struct tip_rec {
  const dt_ho_beam *b;
  history h;
} tip_rec;

static dt_status record_tip(const dt_ho_explicit_state *s, void *user, dt_ctx *ctx) {
  (void)ctx;
  tip_rec *r = user;
  if (r->h.n < r->h.cap) {
    r->h.t[r->h.n] = s->t;
    r->h.y[r->h.n] = -s->u[3 * r->b->tip + 1];
    r->h.n++;
  }
  return DT_OK;
}

/* Runs the beam to t_end (at 0.9 of the stable step) with damping alpha, recording the tip at
 * every step. */
static dt_status run_beam(dt_ho_beam *b, double alpha, double t_end, tip_rec *rec,
                          dt_ho_explicit_result *res, dt_ctx *ctx) {
  dt_ho_explicit_problem pb;
  dt_ho_explicit_opts o = {0};
  dt_status rc;
  dt_ho_beam_problem(b, &pb);
  double w;
  if ((rc = dt_ho_explicit_omega_max(&pb, 40, &w, ctx)) != DT_OK) return rc;
  o.steps = (int)ceil(t_end / (0.9 * 2.0 / w));
  o.alpha = alpha;
  o.out_every = 1;
  rec->b = b;
  rec->h.cap = o.steps + 2;
  rec->h.n = 0;
  rec->h.t = malloc(sizeof(double) * rec->h.cap);
  rec->h.y = malloc(sizeof(double) * rec->h.cap);
  double *u = calloc(3 * (size_t)b->mesh.n_nodes, sizeof(double));
  rc = dt_ho_explicit_run(&pb, &o, u, record_tip, rec, res, ctx);
  free(u);
  return rc;
}

static void free_rec(tip_rec *r) {
  free(r->h.t);
  free(r->h.y);
}

static void check_energy(void) {
  for (int P = 2; P <= 4; P += 2) {
    for (int kind = 0; kind <= 1; kind++) {
      dt_ho_beam b;
      dt_ctx ctx = {0};
      tip_rec rec = {0};
      dt_ho_explicit_result res;
      EXPECT(beam_setup(P, kind, &b, &ctx) == DT_OK, "%s", ctx.msg);
      double T1 = 2 * M_PI / dt_ho_beam_omega1(&b);
      EXPECT(run_beam(&b, 0.0, 0.3 * T1, &rec, &res, &ctx) == DT_OK, "%s", ctx.msg);
      EXPECT(res.balance <= 1e-6, "P %d %s: energy balance error %.3g", P, dt_ho_mass_name(kind),
             res.balance);
      EXPECT(res.external > 0.0 && res.kinetic > 0.0 && res.internal > 0.0,
             "P %d: energies W %g T %g U %g", P, res.external, res.kinetic, res.internal);
      if (verbose)
        printf("energy P %d %s: %d steps dt %.4g: W %.6e T %.6e U %.6e start %.2e, balance "
               "%.2e\n",
               P, dt_ho_mass_name(kind), res.steps, res.dt, res.external, res.kinetic, res.internal,
               res.start, res.balance);
      free_rec(&rec);
      dt_ho_beam_free(&b);
    }
  }
}

static void check_damped(int P) {
  {
    dt_ho_beam b;
    dt_ctx ctx = {0};
    tip_rec rec = {0};
    dt_ho_explicit_result res;
    int its = 0;
    EXPECT(beam_setup(P, DT_HO_MASS_GLL, &b, &ctx) == DT_OK, "%s", ctx.msg);
    double w1 = dt_ho_beam_omega1(&b), ref = dt_ho_beam_timoshenko(&b);
    double *us = calloc(3 * (size_t)b.mesh.n_nodes, sizeof(double));
    EXPECT(dt_ho_beam_static(&b, 1e-10, us, &its, &ctx) == DT_OK, "%s", ctx.msg);
    double ys = -us[3 * b.tip + 1];
    EXPECT(run_beam(&b, 2.0 * w1, 10.0 / w1, &rec, &res, &ctx) == DT_OK, "%s", ctx.msg);
    double yd = rec.h.n ? rec.h.y[rec.h.n - 1] : 0.0;
    EXPECT(fabs(yd - ys) <= 5e-3 * ys, "P %d: damped tip %.6g vs static %.6g", P, yd, ys);
    EXPECT(fabs(yd - ref) <= 0.02 * ref, "P %d: damped tip %.6g vs Timoshenko %.6g", P, yd, ref);
    EXPECT(res.balance <= 1e-6, "P %d damped: balance %.3g", P, res.balance);
    if (verbose)
      printf("damped P %d: %d DOFs, %d steps dt %.4g (%.2f s): tip %.6e, static PCG %.6e (%d "
             "its), Timoshenko %.6e (%+.2f%%), damping energy %.3e of work %.3e\n",
             P, b.free_dofs, res.steps, res.dt, res.seconds, yd, ys, its, ref,
             100 * (yd - ref) / ref, res.damping, res.external);
    free(us);
    free_rec(&rec);
    dt_ho_beam_free(&b);
  }
}

/* Period from the crossings of the mean of the tip history (up and down): the time from the
 * first to the last crossing over the number of half periods between them. */
static double measured_period(const history *h) {
  double lo = INFINITY, hi = -INFINITY, first = -1, last = -1;
  int crossings = 0;
  for (int i = 0; i < h->n; i++) lo = fmin(lo, h->y[i]), hi = fmax(hi, h->y[i]);
  double mid = 0.5 * (lo + hi);
  for (int i = 1; i < h->n; i++) {
    double a = h->y[i - 1] - mid, b = h->y[i] - mid;
    if ((a < 0) != (b < 0)) {
      double t = h->t[i - 1] + (h->t[i] - h->t[i - 1]) * a / (a - b);
      if (first < 0) first = t;
      last = t;
      crossings++;
    }
  }
  return crossings >= 2 ? 2.0 * (last - first) / (crossings - 1) : NAN;
}

static void check_period(int P) {
  {
    dt_ho_beam b;
    dt_ctx ctx = {0};
    tip_rec rec = {0};
    dt_ho_explicit_result res;
    EXPECT(beam_setup(P, DT_HO_MASS_GLL, &b, &ctx) == DT_OK, "%s", ctx.msg);
    double T1 = 2 * M_PI / dt_ho_beam_omega1(&b);
    EXPECT(run_beam(&b, 0.0, 1.35 * T1, &rec, &res, &ctx) == DT_OK, "%s", ctx.msg);
    double T = measured_period(&rec.h);
    EXPECT(fabs(T - T1) <= 0.03 * T1, "P %d: period %.5g vs Euler-Bernoulli %.5g", P, T, T1);
    EXPECT(res.balance <= 1e-6, "P %d undamped: balance %.3g", P, res.balance);
    if (verbose)
      printf("period P %d: %d steps dt %.4g (%.2f s): period %.5f, Euler-Bernoulli %.5f "
             "(%+.2f%%), balance %.2e\n",
             P, res.steps, res.dt, res.seconds, T, T1, 100 * (T - T1) / T1, res.balance);
    free_rec(&rec);
    dt_ho_beam_free(&b);
  }
}

static void check_consistent(void) {
  dt_ho_beam bl, bc;
  dt_ctx ctx = {0};
  tip_rec rec = {0};
  dt_ho_explicit_result res;
  dt_ho_explicit_problem pb;
  double wl = 0, wc = 0;
  int P = 2;
  EXPECT(dt_ho_beam_setup(P, 8, 1, 1, BEAM_E, BEAM_NU, 1.0, BEAM_Q, DT_HO_MASS_GLL, &bl, &ctx) ==
             DT_OK,
         "%s", ctx.msg);
  EXPECT(dt_ho_beam_setup(P, 8, 1, 1, BEAM_E, BEAM_NU, 1.0, BEAM_Q, DT_HO_MASS_CONSISTENT, &bc,
                          &ctx) == DT_OK,
         "%s", ctx.msg);
  dt_ho_beam_problem(&bl, &pb);
  EXPECT(dt_ho_explicit_omega_max(&pb, 100, &wl, &ctx) == DT_OK, "%s", ctx.msg);
  dt_ho_beam_problem(&bc, &pb);
  EXPECT(dt_ho_explicit_omega_max(&pb, 100, &wc, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(wc > wl, "consistent omega_max %g not above lumped %g", wc, wl);
  double T1 = 2 * M_PI / dt_ho_beam_omega1(&bc);
  EXPECT(run_beam(&bc, 0.0, 0.1 * T1, &rec, &res, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(res.balance <= 1e-6, "consistent: balance %.3g", res.balance);
  if (verbose)
    printf("consistent P %d: omega_max %.5g (lumped %.5g): %d steps, %d CG iterations, balance "
           "%.2e\n",
           P, wc, wl, res.steps, res.cg_iterations, res.balance);
  free_rec(&rec);
  dt_ho_beam_free(&bl);
  dt_ho_beam_free(&bc);
}

static void check_bad_input(void) {
  dt_ho_beam b;
  dt_ctx ctx = {0};
  dt_ho_explicit_problem pb;
  dt_ho_explicit_opts o = {0};
  EXPECT(dt_ho_beam_setup(2, 4, 1, 1, BEAM_E, BEAM_NU, -1.0, BEAM_Q, DT_HO_MASS_GLL, &b, &ctx) ==
             DT_ERR_INPUT,
         "negative density accepted");
  EXPECT(strstr(ctx.msg, "density -1 is not positive") != NULL, "%s", ctx.msg);
  dt_ho_beam_free(&b);
  dt_ctx_reset(&ctx);
  EXPECT(dt_ho_beam_setup(2, 4, 1, 1, BEAM_E, BEAM_NU, -1.0, BEAM_Q, DT_HO_MASS_ROWSUM, &b, &ctx) ==
             DT_ERR_INPUT,
         "negative density accepted (row sums)");
  dt_ho_beam_free(&b);
  dt_ctx_reset(&ctx);
  EXPECT(dt_ho_beam_setup(2, 4, 1, 1, BEAM_E, BEAM_NU, 1.0, BEAM_Q, DT_HO_MASS_GLL, &b, &ctx) ==
             DT_OK,
         "%s", ctx.msg);
  dt_ho_beam_problem(&b, &pb);
  double w, *u = calloc(3 * (size_t)b.mesh.n_nodes, sizeof(double));
  EXPECT(dt_ho_explicit_omega_max(&pb, 40, &w, &ctx) == DT_OK, "%s", ctx.msg);
  o.steps = 100;
  o.dt = 1.5 * 2.0 / w;
  EXPECT(dt_ho_explicit_run(&pb, &o, u, NULL, NULL, NULL, &ctx) == DT_ERR_INPUT,
         "dt 1.5 x the limit accepted");
  EXPECT(strstr(ctx.msg, "is above the stable limit 2/omega_max") != NULL, "%s", ctx.msg);
  if (verbose) printf("bad input: %s\n", ctx.msg);
  for (int i = 0; i < pb.n; i++) EXPECT(u[i] == 0.0, "u changed by a refused run at DOF %d", i);
  dt_ctx_reset(&ctx);
  o.dt = 0.0;
  o.steps = 0;
  EXPECT(dt_ho_explicit_run(&pb, &o, u, NULL, NULL, NULL, &ctx) == DT_ERR_INPUT, "0 steps");
  EXPECT(strstr(ctx.msg, "0 steps to t_end 0: need at least 1 step") != NULL, "%s", ctx.msg);
  dt_ctx_reset(&ctx);
  o.steps = 10;
  o.alpha = -1.0;
  EXPECT(dt_ho_explicit_run(&pb, &o, u, NULL, NULL, NULL, &ctx) == DT_ERR_INPUT, "alpha < 0");
  EXPECT(strstr(ctx.msg, "damping coefficient alpha = -1") != NULL, "%s", ctx.msg);
  dt_ctx_reset(&ctx);
  o.alpha = 0.0;
  b.mass[7] = 0.0;
  EXPECT(dt_ho_explicit_run(&pb, &o, u, NULL, NULL, NULL, &ctx) == DT_ERR_INPUT, "zero mass");
  EXPECT(strstr(ctx.msg, "lumped mass of node 7 is 0, not positive") != NULL, "%s", ctx.msg);
  /* a row sum forced negative by a negative quadrature weight */
  dt_ctx_reset(&ctx);
  int nq3 = b.op.nq * b.op.nq * b.op.nq;
  for (int q = 0; q < nq3; q++) b.op.qdata[q] = -1.0;
  EXPECT(dt_ho_mass_rowsum(&b.op, &b.mesh, 1.0, b.mass, &ctx) == DT_ERR_INPUT,
         "negative row sum accepted");
  EXPECT(strstr(ctx.msg, "use the GLL (spectral) lumped mass") != NULL, "%s", ctx.msg);
  free(u);
  dt_ho_beam_free(&b);
}

int main(int argc, char **argv) {
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-v"))
      verbose = 1;
    else
      only = argv[i];
  }
  struct {
    const char *name;
    void (*fn)(void);
    void (*fn_order)(int);
    int order;
  } sections[] = {{"mass", check_mass, NULL, 0},          {"dt", check_dt, NULL, 0},
                  {"energy", check_energy, NULL, 0},      {"damped_p2", NULL, check_damped, 2},
                  {"damped_p4", NULL, check_damped, 4},   {"period_p2", NULL, check_period, 2},
                  {"period_p4", NULL, check_period, 4},   {"consistent", check_consistent, NULL, 0},
                  {"bad_input", check_bad_input, NULL, 0}};
  int ran = 0;
  for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++)
    if (!only || !strcmp(only, sections[k].name)) {
      if (sections[k].fn)
        sections[k].fn();
      else
        sections[k].fn_order(sections[k].order);
      ran++;
    }
  if (!ran) return fprintf(stderr, "unknown section %s\n", only), 2;
  if (failures) return fprintf(stderr, "%d failures\n", failures), 1;
  printf("all explicit-dynamics checks passed\n");
  return 0;
}
