/* J2 elastoplasticity at the Gauss points of order-P hexahedra (solver/highorder/ho_plastic*).
 * One section per ctest entry (argv[1]); each names its reference and tolerance:
 *  - operator: with an elastic material the residual equals the elastic apply (1e-13
 *    relative); at a plastic state the tangent apply equals the central difference of the
 *    residual (1e-6 relative) and the diagonal equals e_i . K_t e_i (1e-12 relative), P = 1..3;
 *  - hex8: P = 1 (2 x 2 x 2 Gauss points) against ductile's hex8 path (DT_FORM_FULL, no B-bar,
 *    dt_analysis_run on the CPU backend) on the same distorted, partly plastic box with
 *    prescribed displacements: displacements within 1e-7 relative, the same plastic point
 *    count and Newton iterations within 1 per increment;
 *  - patch: a linear displacement field of uniaxial plastic stress prescribed on the boundary
 *    of a distorted, curved mesh at P = 2, 3: every point's stress equals the analytical J2
 *    linear-hardening value within 1e-9 relative (and its peeq within 1e-9);
 *  - cantilever: a plastic cantilever at P = 1, 2, 3: Newton converges to 1e-10 with an order
 *    estimate >= 1.5 in the last iterations above the linear-solver floor, and the tip
 *    displacement changes less from P = 2 to 3 than from P = 1 to 2;
 *  - bad_input: a failed return mapping names element and point, too few iterations and bad
 *    options are errors with messages. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_plastic.h"
#include "highorder/ho_pmg.h"
#include "../test_expect.h"
#include "../unit/unit_model.h"

static int verbose = 0;

/* The unit tests' steel (unit_model.h): E 200000, nu 0.3, sigma_y0 450, linear H 6600. */
static dt_material_params steel(int plastic) {
  dt_material_params m;
  memset(&m, 0, sizeof m);
  m.E = 200000.0;
  m.nu = 0.3;
  m.plastic = plastic ? DT_PLASTIC_J2 : DT_PLASTIC_NONE;
  m.iso = DT_ISO_LINEAR;
  m.sigma_y0 = 450.0;
  m.H = 6600.0;
  return m;
}

/* Geometry operator and plastic state on m with one material, nq 0 (P + 1). */
static void setup(const dt_ho_mesh *m, const dt_material_params *mat, dt_ho_elastic *op,
                  dt_ho_plastic *pl) {
  dt_ctx ctx = {0};
  int ne = m->n_elems, *em = calloc(ne, sizeof(int));
  double *lam = malloc(sizeof(double) * ne), *mu = malloc(sizeof(double) * ne);
  for (int e = 0; e < ne; e++) dt_ho_lame(mat->E, mat->nu, lam + e, mu + e);
  CHECK(dt_ho_elastic_setup(m, 0, lam, mu, op, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_ho_plastic_setup(op, 1, mat, em, pl, &ctx) == DT_OK, "%s", ctx.msg);
  free(em);
  free(lam);
  free(mu);
}

/* A second plastic state (virgin) on op's elements: one material, index 0 everywhere. */
static void setup_plastic(const dt_ho_mesh *m, const dt_ho_elastic *op,
                          const dt_material_params *mat, dt_ho_plastic *pl) {
  dt_ctx ctx = {0};
  int *em = calloc(m->n_elems, sizeof(int));
  CHECK(dt_ho_plastic_setup(op, 1, mat, em, pl, &ctx) == DT_OK, "%s", ctx.msg);
  free(em);
}

static void curve(const double x[3], double y[3], void *user) {
  (void)user;
  double s = 0.04 * sin(M_PI * x[0] / 2) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
  y[0] = x[0] + s;
  y[1] = x[1] - 0.5 * s;
  y[2] = x[2] + 0.7 * s;
}

/* Box [0,2] x [0,1] x [0,1] of 2 x 2 x 2 hex8 with the middle vertex moved, curved by `curve`. */
static void distorted_mesh(int P, dt_ho_mesh *m) {
  dt_ctx ctx = {0};
  const double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1};
  int nv, ne, *hex8 = NULL;
  double *vx = NULL;
  CHECK(dt_ho_hex8_box(2, 2, 2, lo, hi, &nv, &vx, &ne, &hex8, &ctx) == DT_OK, "%s", ctx.msg);
  vx[3 * 13 + 0] += 0.13; /* vertex (1, 1, 1) of the 3 x 3 x 3 grid */
  vx[3 * 13 + 1] -= 0.08;
  vx[3 * 13 + 2] += 0.06;
  CHECK(dt_ho_mesh_build(P, nv, vx, ne, hex8, curve, NULL, m, &ctx) == DT_OK, "%s", ctx.msg);
  dt_free(vx);
  dt_free(hex8);
}

static double max_abs(int n, const double *x) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

/* A smooth displacement that strains the distorted box to about 0.5% (plastic in places). */
static void plastic_field(const dt_ho_mesh *m, double scale, double *u) {
  for (int a = 0; a < m->n_nodes; a++) {
    const double *x = m->coords + 3 * a;
    u[3 * a] = scale * (0.004 * x[0] * x[0] + 0.001 * x[1] * x[2]);
    u[3 * a + 1] = scale * (-0.002 * x[0] * x[1] + 0.0015 * sin(x[2]));
    u[3 * a + 2] = scale * (0.003 * x[0] * x[2] - 0.001 * x[1]);
  }
}

static void check_operator(void) {
  for (int P = 1; P <= 3; P++) {
    dt_ho_mesh m;
    dt_ho_elastic op;
    dt_ho_plastic pe, pp;
    dt_ctx ctx = {0};
    dt_material_params el = steel(0), pl = steel(1);
    dt_ho_plastic_report rep;
    distorted_mesh(P, &m);
    setup(&m, &el, &op, &pe);
    CHECK(dt_ho_plastic_setup(&op, 1, &pl, (int[8]){0}, &pp, &ctx) == DT_OK, "%s", ctx.msg);
    int n = 3 * m.n_nodes;
    double *u = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    double *f = malloc(sizeof(double) * n), *g = malloc(sizeof(double) * n);
    double *kw = malloc(sizeof(double) * n), *diag = malloc(sizeof(double) * n);
    double *e = calloc(n, sizeof(double));
    plastic_field(&m, 1.0, u);
    for (int i = 0; i < n; i++) w[i] = sin(0.37 * i + 1.0) * 1e-3;
    /* elastic material: residual = elastic apply */
    CHECK(dt_ho_plastic_residual(&pe, u, f, &rep, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_ho_elastic_apply(&op, u, g, &ctx) == DT_OK, "%s", ctx.msg);
    double d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(f[i] - g[i]));
    EXPECT(d <= 1e-13 * max_abs(n, g) && rep.n_plastic == 0,
           "P %d: elastic residual differs from K u by %.2e relative", P, d / max_abs(n, g));
    /* plastic state: tangent = central difference of the residual */
    CHECK(dt_ho_plastic_residual(&pp, u, f, &rep, &ctx) == DT_OK, "%s", ctx.msg);
    long n_plastic = rep.n_plastic;
    CHECK(dt_ho_plastic_tangent_apply(&pp, w, kw, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_ho_plastic_tangent_diagonal(&pp, diag, &ctx) == DT_OK, "%s", ctx.msg);
    double h = 1e-5, *up = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) up[i] = u[i] + h * w[i];
    CHECK(dt_ho_plastic_residual(&pp, up, f, NULL, &ctx) == DT_OK, "%s", ctx.msg);
    for (int i = 0; i < n; i++) up[i] = u[i] - h * w[i];
    CHECK(dt_ho_plastic_residual(&pp, up, g, NULL, &ctx) == DT_OK, "%s", ctx.msg);
    d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs((f[i] - g[i]) / (2 * h) - kw[i]));
    double rel_fd = d / max_abs(n, kw);
    EXPECT(rel_fd <= 1e-6 && n_plastic > 0,
           "P %d: tangent vs central difference %.2e relative (%ld plastic points)", P, rel_fd,
           n_plastic);
    /* the residual at u again, so the stored tangent is u's, then the diagonal by unit vectors */
    CHECK(dt_ho_plastic_residual(&pp, u, f, NULL, &ctx) == DT_OK, "%s", ctx.msg);
    double dd = 0.0;
    for (int i = 0; i < n; i += (P == 3 ? 7 : 1)) {
      e[i] = 1.0;
      CHECK(dt_ho_plastic_tangent_apply(&pp, e, kw, &ctx) == DT_OK, "%s", ctx.msg);
      dd = fmax(dd, fabs(kw[i] - diag[i]) / fabs(kw[i]));
      e[i] = 0.0;
    }
    EXPECT(dd <= 1e-12, "P %d: diagonal vs e_i K_t e_i %.2e relative", P, dd);
    printf("operator P %d: %ld of %ld points plastic, tangent vs central difference %.2e, "
           "diagonal %.2e relative\n",
           P, n_plastic, pp.n_points, rel_fd, dd);
    free(u), free(w), free(f), free(g), free(kw), free(diag), free(e), free(up);
    dt_ho_plastic_free(&pe);
    dt_ho_plastic_free(&pp);
    dt_ho_elastic_free(&op);
    dt_ho_mesh_free(&m);
  }
}

/* ---- hex8 comparison ---- */

#define HEX8_INCREMENTS 3

typedef struct hex8_record {
  int increments, newton[HEX8_INCREMENTS], n_plastic[HEX8_INCREMENTS];
  double u[3 * 2000];
  int n_nodes;
} hex8_record;

static void hex8_on_increment(const dt_fields *f, const dt_history_row *row, void *user) {
  hex8_record *r = user;
  if (r->increments < HEX8_INCREMENTS) {
    r->newton[r->increments] = row->newton_iters;
    r->n_plastic[r->increments] = row->n_plastic_qp;
  }
  r->increments++;
  r->n_nodes = f->n_nodes;
  memcpy(r->u, f->u, sizeof(double) * 3 * f->n_nodes);
}

/* The prescribed end displacement of the hex8 comparison at x = max: pulled and bent. */
static const double hex8_end[3] = {0.004, 0.0, 0.012};

static void check_hex8(void) {
  const int nx = 6, ny = 3, nz = 3;
  dt_model *md = unit_box(nx, ny, nz, 1);
  dt_ctx ctx = {0};
  dt_run_options o;
  dt_run_summary sum;
  static hex8_record rec;
  dt_step *st = &md->steps[0];
  st->n_increments = HEX8_INCREMENTS;
  st->n_bc = 2;
  st->bc = calloc(2, sizeof(dt_bc));
  st->bc[0] = (dt_bc){.nset = dt_model_find_nset(md, "xmin"), .dofs = 7u};
  st->bc[1] = (dt_bc){.nset = dt_model_find_nset(md, "xmax"), .dofs = 7u};
  memcpy(st->bc[1].value, hex8_end, sizeof hex8_end);
  md->solver.newton_rtol = 1e-10;
  md->solver.pcg_rtol = 1e-12;
  md->solver.precond = DT_PC_JACOBI;
  CHECK(dt_model_finish(md, &ctx) == DT_OK, "%s", ctx.msg);
  memset(&rec, 0, sizeof rec);
  unit_run_options(&o, NULL, hex8_on_increment, &rec);
  o.backend = "cpu";
  CHECK(dt_analysis_run(md, &o, &sum, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(sum.completed && rec.increments == HEX8_INCREMENTS, "hex8 run did not complete: %s",
        sum.message);

  /* the same mesh at P = 1; its nodes matched to the model's by coordinates */
  dt_ho_mesh m;
  dt_ho_elastic op;
  dt_ho_plastic pl;
  dt_material_params mat = md->materials[0].p;
  int *hex8 = malloc(sizeof(int) * 8 * md->n_elems);
  for (int e = 0; e < md->n_elems; e++)
    for (int k = 0; k < 8; k++) hex8[8 * e + k] = md->conn[md->elem_ptr[e] + k];
  CHECK(dt_ho_mesh_build(1, md->n_nodes, md->x, md->n_elems, hex8, NULL, NULL, &m, &ctx) == DT_OK,
        "%s", ctx.msg);
  CHECK(m.n_nodes == md->n_nodes, "P = 1 mesh has %d nodes, the model %d", m.n_nodes, md->n_nodes);
  int *map = malloc(sizeof(int) * m.n_nodes);
  for (int a = 0; a < m.n_nodes; a++) {
    map[a] = -1;
    for (int b = 0; b < md->n_nodes && map[a] < 0; b++) {
      const double *p = m.coords + 3 * a, *q = md->x + 3 * b;
      if (fabs(p[0] - q[0]) + fabs(p[1] - q[1]) + fabs(p[2] - q[2]) < 1e-12) map[a] = b;
    }
    CHECK(map[a] >= 0, "order-P node %d has no model node", a);
  }
  setup(&m, &mat, &op, &pl);
  int n = 3 * m.n_nodes;
  unsigned char *fixed = calloc(n, 1);
  double *up = calloc(n, sizeof(double)), *u = calloc(n, sizeof(double));
  /* the model's node sets xmin and xmax (the distortion moves x, so not a plane test) */
  unsigned char *side = calloc(md->n_nodes, 1);
  const char *sets[2] = {"xmin", "xmax"};
  for (int k = 0; k < 2; k++) {
    const dt_set *ns = md->nsets + dt_model_find_nset(md, sets[k]);
    for (int i = 0; i < ns->n; i++) side[ns->items[i]] = (unsigned char)(k + 1);
  }
  for (int a = 0; a < m.n_nodes; a++)
    for (int c = 0; c < 3; c++) {
      fixed[3 * a + c] = side[map[a]] != 0;
      up[3 * a + c] = side[map[a]] == 2 ? hex8_end[c] : 0.0;
    }
  free(side);
  dt_ho_newton_problem pb = {fixed, up, NULL};
  dt_ho_newton_opts no = {HEX8_INCREMENTS,
                          30,
                          1e-10,
                          1e-3,
                          1e-12,
                          20000,
                          verbose ? stdout : NULL,
                          NULL,
                          NULL,
                          NULL,
                          0,
                          0,
                          0,
                          NULL,
                          0};
  dt_ho_newton_report rep;
  CHECK(dt_ho_plastic_solve(&pl, &pb, &no, u, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  double du = 0.0, umax = 0.0;
  for (int a = 0; a < m.n_nodes; a++)
    for (int c = 0; c < 3; c++) {
      du = fmax(du, fabs(u[3 * a + c] - rec.u[3 * map[a] + c]));
      umax = fmax(umax, fabs(rec.u[3 * map[a] + c]));
    }
  printf("hex8 vs P = 1, %d elements, %d increments: |du|/|u| %.2e\n", md->n_elems, HEX8_INCREMENTS,
         du / umax);
  EXPECT(du <= 1e-7 * umax, "P = 1 differs from hex8 by %.3e relative", du / umax);
  for (int k = 0; k < HEX8_INCREMENTS; k++) {
    printf("  increment %d: Newton %d / %d, plastic points %d / %ld (hex8 / P = 1)\n", k + 1,
           rec.newton[k], rep.newton[k], rec.n_plastic[k], rep.n_plastic[k]);
    EXPECT(abs(rec.newton[k] - rep.newton[k]) <= 1, "increment %d: Newton %d hex8, %d P = 1", k + 1,
           rec.newton[k], rep.newton[k]);
    EXPECT(rec.n_plastic[k] == rep.n_plastic[k], "increment %d: %d plastic points hex8, %ld P = 1",
           k + 1, rec.n_plastic[k], rep.n_plastic[k]);
  }
  EXPECT(rep.n_plastic[HEX8_INCREMENTS - 1] > 0 && rep.n_plastic[HEX8_INCREMENTS - 1] < pl.n_points,
         "the box is not partly plastic: %ld of %ld points", rep.n_plastic[HEX8_INCREMENTS - 1],
         pl.n_points);
  free(hex8), free(map), free(fixed), free(up), free(u);
  dt_ho_plastic_free(&pl);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
  dt_model_destroy(&md);
}

/* ---- patch test ---- */

static void check_patch(void) {
  dt_material_params mat = steel(1);
  const double e1 = 0.006; /* axial strain, 2.7 times the yield strain */
  /* uniaxial stress sigma = sy0 + H p with e1 = sigma / E + p; lateral strain
   * e2 = -nu sigma / E - p / 2 (plastic flow keeps the volume) */
  double p = (e1 - mat.sigma_y0 / mat.E) / (1.0 + mat.H / mat.E);
  double sigma = mat.sigma_y0 + mat.H * p, e2 = -mat.nu * sigma / mat.E - 0.5 * p;
  for (int P = 2; P <= 3; P++) {
    dt_ho_mesh m;
    dt_ho_elastic op;
    dt_ho_plastic pl;
    dt_ctx ctx = {0};
    distorted_mesh(P, &m);
    setup(&m, &mat, &op, &pl);
    int n = 3 * m.n_nodes;
    unsigned char *fixed = calloc(n, 1);
    double *up = calloc(n, sizeof(double)), *u = calloc(n, sizeof(double));
    for (int a = 0; a < m.n_nodes; a++) {
      const double *x = m.coords + 3 * a;
      int bnd = 0;
      for (int c = 0; c < 3; c++)
        bnd |= fabs(x[c]) < 1e-12 || fabs(x[c] - (c == 0 ? 2.0 : 1.0)) < 1e-12;
      for (int c = 0; c < 3; c++) {
        fixed[3 * a + c] = bnd;
        up[3 * a + c] = (c == 0 ? e1 : e2) * x[c];
      }
    }
    dt_ho_newton_problem pb = {fixed, up, NULL};
    dt_ho_newton_opts no = {2,    30,   1e-12, 1e-3, 1e-14, 20000, verbose ? stdout : NULL,
                            NULL, NULL, NULL,  0,    0,     0,     NULL,
                            0};
    dt_ho_newton_report rep;
    CHECK(dt_ho_plastic_solve(&pl, &pb, &no, u, &rep, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
    double ds = 0.0, dp = 0.0;
    for (int e = 0; e < m.n_elems; e++)
      for (int q = 0; q < pl.nq3; q++) {
        for (int k = 0; k < 6; k++) {
          double s = pl.stress_c[((size_t)e * 6 + k) * pl.nq3 + q];
          ds = fmax(ds, fabs(s - (k == 0 ? sigma : 0.0)));
        }
        dp = fmax(dp, fabs(dt_ho_plastic_peeq(&pl, e, q) - p));
      }
    printf("patch P %d: %ld points, sigma_xx %.6f (analytical), peeq %.6e, max stress error "
           "%.2e relative, peeq %.2e relative, Newton %d + %d\n",
           P, pl.n_points, sigma, p, ds / sigma, dp / p, rep.newton[0], rep.newton[1]);
    EXPECT(ds <= 1e-9 * sigma, "P %d: stress off the analytical value by %.3e relative", P,
           ds / sigma);
    EXPECT(dp <= 1e-9 * p, "P %d: peeq off by %.3e relative", P, dp / p);
    free(fixed), free(up), free(u);
    dt_ho_plastic_free(&pl);
    dt_ho_elastic_free(&op);
    dt_ho_mesh_free(&m);
  }
}

/* ---- plastic cantilever ---- */

static int at_x0(const double x[3], void *user) {
  (void)user;
  return fabs(x[0]) < 1e-12;
}

/* End traction of the cantilever: down in y, 86% of the elastic-perfectly-plastic limit load
 * sigma_y0 b h^2 / (4 L) = 15.6 per unit area (sigma_y0 = 250; the elastic bending stress at
 * the clamp is 324). */
static void end_load(const double x[3], const double nrm[3], double t[3], void *user) {
  (void)x, (void)nrm, (void)user;
  t[0] = 0.0;
  t[1] = -13.5;
  t[2] = 0.0;
}

static void check_cantilever(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {4, 1, 1};
  const int nx = 8, ny = 2, nz = 2;
  dt_material_params mat = steel(1);
  mat.sigma_y0 = 250.0;
  double tip[4] = {0};
  for (int P = 1; P <= 3; P++) {
    dt_ho_mesh m;
    dt_ho_elastic op;
    dt_ho_plastic pl;
    dt_ctx ctx = {0};
    CHECK(dt_ho_mesh_box(P, nx, ny, nz, lo, hi, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
    setup(&m, &mat, &op, &pl);
    int n = 3 * m.n_nodes, elem[4], face[4];
    for (int k = 0; k < ny * nz; k++) elem[k] = nx - 1 + nx * k, face[k] = 3; /* S4: x = 4 */
    unsigned char *node_fixed = calloc(m.n_nodes, 1), *fixed = calloc(n, 1);
    double *f = calloc(n, sizeof(double)), *u = calloc(n, sizeof(double));
    dt_ho_mesh_mark_where(&m, at_x0, NULL, node_fixed);
    for (int i = 0; i < n; i++) fixed[i] = node_fixed[i / 3];
    CHECK(dt_ho_elastic_traction_load(&op, &m, ny * nz, elem, face, end_load, NULL, f, &ctx) ==
              DT_OK,
          "%s", ctx.msg);
    dt_ho_newton_problem pb = {fixed, NULL, f};
    dt_ho_newton_opts no = {4,    30,   1e-10, 1e-3, 1e-13, 20000, verbose ? stdout : NULL,
                            NULL, NULL, NULL,  0,    0,     0,     NULL,
                            0};
    dt_ho_newton_report rep;
    CHECK(dt_ho_plastic_solve(&pl, &pb, &no, u, &rep, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
    /* tip displacement: the load-weighted mean of u_y over the end face, f . u / sum f_y */
    double fu = 0.0, fy = 0.0;
    for (int a = 0; a < m.n_nodes; a++) fu += f[3 * a + 1] * u[3 * a + 1], fy += f[3 * a + 1];
    tip[P] = -fu / fy;
    printf("cantilever P %d: %d DOFs, Newton %d %d %d %d, PCG %d, plastic points %ld of %ld, tip "
           "deflection %.6f\n  last increment's residuals:",
           P, n, rep.newton[0], rep.newton[1], rep.newton[2], rep.newton[3], rep.pcg_total,
           rep.n_plastic[3], pl.n_points, -tip[P]);
    for (int k = 0; k < rep.n_history; k++) printf(" %.2e", rep.history[k]);
    printf("\n  order estimates log(r_k+1/r_k) / log(r_k/r_k-1):");
    double last_order = NAN;
    for (int k = 2; k < rep.n_history; k++) {
      double est =
          log(rep.history[k] / rep.history[k - 1]) / log(rep.history[k - 1] / rep.history[k - 2]);
      printf(" %.2f", est);
      if (rep.history[k] > 1e-13) last_order = est; /* above the linear solver's floor */
    }
    printf("\n  ratios r_k+1 / r_k^2:");
    for (int k = 1; k < rep.n_history; k++)
      printf(" %.2e", rep.history[k] / (rep.history[k - 1] * rep.history[k - 1]));
    printf("\n");
    EXPECT(rep.increments == 4 && rep.history[rep.n_history - 1] <= 1e-10,
           "P %d: final residual %.3e", P, rep.history[rep.n_history - 1]);
    if (P >= 2)
      EXPECT(last_order >= 1.5, "P %d: convergence order %.2f in the last iterations", P,
             last_order);
    if (P >= 2) EXPECT(rep.n_plastic[3] > 0, "P %d: no plastic point", P);
    if (P >= 2) { /* the same solve with p-multigrid corrections (ho_pmg.h) */
      dt_ho_plastic pl2;
      dt_ho_pmg pmg;
      dt_ho_pmg_opts mo;
      dt_ho_newton_report rep2;
      double *u2 = calloc(n, sizeof(double)), *diag = calloc(n, sizeof(double)), fu2 = 0.0;
      dt_ho_newton_opts no2 = no;
      memset(&pmg, 0, sizeof pmg);
      setup_plastic(&m, &op, &mat, &pl2);
      CHECK(dt_ho_elastic_diagonal(&op, diag, &ctx) == DT_OK, "%s", ctx.msg);
      dt_ho_pmg_opts_default(&mo);
      CHECK(dt_ho_pmg_setup(&m, &op, dt_ho_elastic_apply_fn, &op, diag, fixed, &mo, &pmg, &ctx) ==
                DT_OK,
            "%s", ctx.msg);
      no2.pmg = &pmg;
      CHECK(dt_ho_plastic_solve(&pl2, &pb, &no2, u2, &rep2, &ctx) == DT_OK, "P %d p-MG: %s", P,
            ctx.msg);
      for (int a = 0; a < m.n_nodes; a++) fu2 += f[3 * a + 1] * u2[3 * a + 1];
      printf("  with p-multigrid: Newton %d, PCG %d (Jacobi %d), tip deflection %.9f (Jacobi "
             "%.9f)\n",
             rep2.newton_total, rep2.pcg_total, rep.pcg_total, fu2 / fy, -tip[P]);
      EXPECT(rep2.newton_total == rep.newton_total && fabs(fu2 - fu) <= 1e-8 * fabs(fu) &&
                 4 * rep2.pcg_total < rep.pcg_total,
             "P %d p-MG: Newton %d (%d), PCG %d (%d), tip %.9e (%.9e)", P, rep2.newton_total,
             rep.newton_total, rep2.pcg_total, rep.pcg_total, fu2 / fy, fu / fy);
      dt_ho_pmg_free(&pmg);
      dt_ho_plastic_free(&pl2);
      free(u2), free(diag);
    }
    free(node_fixed), free(fixed), free(f), free(u);
    dt_ho_plastic_free(&pl);
    dt_ho_elastic_free(&op);
    dt_ho_mesh_free(&m);
  }
  printf("cantilever tip: |P2 - P1| = %.3e, |P3 - P2| = %.3e\n", fabs(tip[2] - tip[1]),
         fabs(tip[3] - tip[2]));
  EXPECT(fabs(tip[3] - tip[2]) < fabs(tip[2] - tip[1]),
         "tip deflection does not converge in P: %.6f %.6f %.6f", tip[1], tip[2], tip[3]);
}

/* ---- bad input ---- */

static void check_bad_input(void) {
  dt_ho_mesh m;
  dt_ho_elastic op;
  dt_ho_plastic pl;
  dt_ctx ctx = {0};
  dt_material_params mat = steel(1);
  dt_ho_plastic_report rep;
  distorted_mesh(2, &m);
  setup(&m, &mat, &op, &pl);
  int n = 3 * m.n_nodes;
  double *u = calloc(n, sizeof(double)), *f = calloc(n, sizeof(double));
  unsigned char *fixed = calloc(n, 1);
  /* a non-finite displacement at the last node: the return mapping fails in its elements */
  u[n - 1] = NAN;
  EXPECT(dt_ho_plastic_residual(&pl, u, f, &rep, &ctx) == DT_ERR_NOT_CONVERGED,
         "NaN strain accepted");
  EXPECT(strstr(ctx.msg, "return mapping failed at element") != NULL && rep.failed_elem >= 0, "%s",
         ctx.msg);
  printf("bad input: %s\n", ctx.msg);
  dt_ctx_reset(&ctx);
  /* too few Newton iterations for a plastic increment */
  u[n - 1] = 0.0;
  for (int a = 0; a < m.n_nodes; a++) {
    const double *x = m.coords + 3 * a;
    int bnd = fabs(x[0]) < 1e-12 || fabs(x[0] - 2.0) < 1e-12;
    for (int c = 0; c < 3; c++) fixed[3 * a + c] = bnd;
    f[3 * a] = bnd ? 0.01 * x[0] : 0.0;
  }
  dt_ho_newton_problem pb = {fixed, f, NULL};
  dt_ho_newton_opts no = {1,    1,    1e-10, 1e-3, 1e-12, 20000, NULL, NULL,
                          NULL, NULL, 0,     0,    0,     NULL,  0};
  dt_ho_newton_report nr;
  EXPECT(dt_ho_plastic_solve(&pl, &pb, &no, u, &nr, &ctx) == DT_ERR_NOT_CONVERGED,
         "one Newton iteration converged");
  EXPECT(strstr(ctx.msg, "increment 1: Newton did not converge in 1 iterations") != NULL, "%s",
         ctx.msg);
  EXPECT(nr.reason == DT_DIVERGED_ITS, "reason %s, not diverged_its", dt_reason_name(nr.reason));
  EXPECT(max_abs(n, u) == 0.0 && dt_ho_plastic_peeq(&pl, 0, 0) == 0.0,
         "a failed increment changed u or the committed state");
  printf("bad input: %s\n", ctx.msg);
  dt_ctx_reset(&ctx);
  no.n_increments = 0;
  EXPECT(dt_ho_plastic_solve(&pl, &pb, &no, u, &nr, &ctx) == DT_ERR_INPUT, "0 increments");
  dt_ctx_reset(&ctx);
  dt_ho_plastic pl2;
  int bad_index[8] = {0, 0, 0, 0, 0, 0, 0, 3};
  EXPECT(dt_ho_plastic_setup(&op, 1, &mat, bad_index, &pl2, &ctx) == DT_ERR_INPUT,
         "material index 3 accepted");
  EXPECT(strstr(ctx.msg, "element 7: material 3 is outside") != NULL, "%s", ctx.msg);
  free(u), free(f), free(fixed);
  dt_ho_plastic_free(&pl);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  verbose = getenv("DT_VERBOSE") != NULL;
  if (!only || !strcmp(only, "operator")) check_operator();
  if (!only || !strcmp(only, "hex8")) check_hex8();
  if (!only || !strcmp(only, "patch")) check_patch();
  if (!only || !strcmp(only, "cantilever")) check_cantilever();
  if (!only || !strcmp(only, "bad_input")) check_bad_input();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures != 0;
}
