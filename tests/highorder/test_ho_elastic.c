/* Matrix-free elasticity of order P (solver/highorder/ho_elastic.h) and its Jacobi PCG
 * (ho_pcg.h) on distorted, curved hexahedra.
 *
 * Meshes: the unit cube (or a box) with interior vertices moved at random by up to 10-15% of
 * the element size, curved by x -> x + 0.05 sin(pi x) sin(pi y) sin(pi z) in each component,
 * elements renumbered in different local orientations.
 *
 * References and tolerances:
 *  - operator: K u from element stiffnesses B^T D B assembled point by point (Voigt B and D, no
 *    sum factorisation) equals the matrix-free apply to 1e-12 relative, P = 1..5; the diagonal
 *    equals K_ii to 1e-12 relative; v^T K u = u^T K v to 1e-12; the six rigid-body modes give
 *    ||K r|| <= 1e-10 ||K|| ||r|| (||K|| by power iteration);
 *  - patch test: u = a + B x prescribed on the boundary is reproduced at every node to 1e-10
 *    by the PCG solve, P = 1..4 (isoparametric elements hold linear fields exactly);
 *  - manufactured solution u_i = sin(k_i . x + phi_i) with its body force: the L2 error
 *    converges at rate P + 1 and the H1 seminorm error at rate P, asserted as observed rate on
 *    the finest pair >= optimal - 0.3, P = 1..6;
 *  - the seed's cantilever (10 x 1 x 1, clamped at x = 0, end traction -1 in y, E = 1000,
 *    nu = 0.3) on 16 x 2 x 2 elements: tip deflection within 2% of Timoshenko beam theory
 *    PL^3/(3EI) + PL/(kappa G A) = 4.0306 (kappa = 10(1+nu)/(12+11nu)) at P = 3, 4;
 *  - bad input fails with DT_ERR_INPUT naming the element; too few iterations give
 *    DT_ERR_NOT_CONVERGED. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "highorder/ho_basis.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_pcg.h"
#include "../test_expect.h"
#include "ho_test_mesh.h"

static int verbose = 0;

/* Box [lo, hi] of nx x ny x nz hex8, vertices not on the box boundary moved by up to amp
 * element sizes (all vertices when all != 0), elements in mixed local orientations. */
static void build_mesh(int P, int nx, int ny, int nz, const double lo[3], const double hi[3],
                       double amp, int all, int curved, dt_ho_mesh *m) {
  int nv, ne, *hex8 = NULL;
  double *vx = NULL, h[3] = {(hi[0] - lo[0]) / nx, (hi[1] - lo[1]) / ny, (hi[2] - lo[2]) / nz};
  unsigned seed = 12345u + 977u * nx;
  dt_ctx ctx = {0};
  EXPECT(dt_ho_hex8_box(nx, ny, nz, lo, hi, &nv, &vx, &ne, &hex8, &ctx) == DT_OK, "%s", ctx.msg);
  for (int v = 0; v < nv; v++) {
    double *p = vx + 3 * v;
    int inside = 1;
    for (int d = 0; d < 3; d++) inside &= p[d] > lo[d] + 1e-12 && p[d] < hi[d] - 1e-12;
    for (int d = 0; d < 3; d++) {
      double r = 2.0 * ho_test_rnd(&seed) - 1.0;
      if (inside || all) p[d] += amp * h[d] * r;
    }
  }
  for (int e = 0; e < ne; e++) ho_test_rotate_hex(hex8 + 8 * e, e % 4);
  EXPECT(dt_ho_mesh_build(P, nv, vx, ne, hex8, curved ? ho_test_curve : NULL, NULL, m, &ctx) ==
             DT_OK,
         "%s", ctx.msg);
  dt_free(vx);
  dt_free(hex8);
}

static dt_status setup_op(const dt_ho_mesh *m, int nq, double E, double nu, dt_ho_elastic *op,
                          dt_ctx *ctx) {
  double *lam = malloc(sizeof(double) * m->n_elems), *mu = malloc(sizeof(double) * m->n_elems);
  for (int e = 0; e < m->n_elems; e++) dt_ho_lame(E, nu, &lam[e], &mu[e]);
  dt_status rc = dt_ho_elastic_setup(m, nq, lam, mu, op, ctx);
  free(lam);
  free(mu);
  return rc;
}

static double inv3(const double J[3][3], double inv[3][3]) {
  inv[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  inv[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  inv[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  inv[1][0] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
  inv[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  inv[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  inv[2][0] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  inv[2][1] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
  inv[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  double det = J[0][0] * inv[0][0] + J[0][1] * inv[1][0] + J[0][2] * inv[2][0];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) inv[i][j] /= det;
  return det;
}

/* Element point data at Gauss point (qx, qy, qz): shape values N, physical gradients g (3 per
 * node), w det J and x. L and dL are the 1D tables [q][a]. */
static double point_data(const dt_ho_mesh *m, int e, int P1, const double *L, const double *dL,
                         const double *gw, int qx, int qy, int qz, double *N, double *g,
                         double x[3]) {
  int n3 = P1 * P1 * P1;
  double J[3][3] = {{0}}, inv[3][3];
  double *dN = g; /* reference gradients first, mapped in place below */
  x[0] = x[1] = x[2] = 0.0;
  for (int c = 0; c < P1; c++)
    for (int b = 0; b < P1; b++)
      for (int a = 0; a < P1; a++) {
        int n = a + P1 * (b + P1 * c);
        const double *xn = m->coords + 3 * m->elem_nodes[e * n3 + n];
        double La = L[qx * P1 + a], Lb = L[qy * P1 + b], Lc = L[qz * P1 + c];
        N[n] = La * Lb * Lc;
        dN[3 * n] = dL[qx * P1 + a] * Lb * Lc;
        dN[3 * n + 1] = La * dL[qy * P1 + b] * Lc;
        dN[3 * n + 2] = La * Lb * dL[qz * P1 + c];
        for (int k = 0; k < 3; k++) {
          x[k] += N[n] * xn[k];
          for (int i = 0; i < 3; i++) J[k][i] += xn[k] * dN[3 * n + i];
        }
      }
  double det = inv3(J, inv);
  for (int n = 0; n < n3; n++) {
    double r[3] = {dN[3 * n], dN[3 * n + 1], dN[3 * n + 2]};
    for (int j = 0; j < 3; j++)
      g[3 * n + j] = r[0] * inv[0][j] + r[1] * inv[1][j] + r[2] * inv[2][j];
  }
  return gw[qx] * gw[qy] * gw[qz] * det;
}

static void tables(int P, int nq, double *gx, double *gw, double *L, double *dL) {
  double node[DT_HO_MAX_NODES], lw[DT_HO_MAX_NODES];
  dt_ctx ctx = {0};
  dt_ho_gauss_lobatto(P + 1, node, lw, &ctx);
  dt_ho_gauss_legendre(nq, gx, gw, &ctx);
  for (int q = 0; q < nq; q++)
    dt_ho_lagrange(P + 1, node, gx[q], L + q * (P + 1), dL + q * (P + 1));
}

/* Dense K assembled from element stiffnesses sum_q B^T D B w det J (Voigt, engineering
 * shears), the textbook way. */
static double *assemble_dense(const dt_ho_mesh *m, int nq, double lam, double mu) {
  int P = m->order, P1 = P + 1, n3 = P1 * P1 * P1, ndof = 3 * m->n_nodes, ne = 3 * n3;
  double gx[DT_HO_MAX_QPOINTS], gw[DT_HO_MAX_QPOINTS];
  double *L = malloc(sizeof(double) * nq * P1), *dL = malloc(sizeof(double) * nq * P1);
  double *K = calloc((size_t)ndof * ndof, sizeof(double)), *Ke = malloc(sizeof(double) * ne * ne);
  double *N = malloc(sizeof(double) * n3), *g = malloc(sizeof(double) * 3 * n3);
  double *Bm = malloc(sizeof(double) * 6 * ne), *DB = malloc(sizeof(double) * 6 * ne);
  double D[6][6] = {{0}};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) D[i][j] = lam;
    D[i][i] = lam + 2 * mu;
    D[3 + i][3 + i] = mu;
  }
  tables(P, nq, gx, gw, L, dL);
  for (int e = 0; e < m->n_elems; e++) {
    memset(Ke, 0, sizeof(double) * ne * ne);
    for (int q = 0; q < nq * nq * nq; q++) {
      double x[3];
      double wdet = point_data(m, e, P1, L, dL, gw, q % nq, (q / nq) % nq, q / (nq * nq), N, g, x);
      memset(Bm, 0, sizeof(double) * 6 * ne);
      for (int n = 0; n < n3; n++) {
        const double *gn = g + 3 * n;
        /* rows xx, yy, zz, xy, xz, yz; columns 3n + (x, y, z) */
        Bm[0 * ne + 3 * n + 0] = gn[0];
        Bm[1 * ne + 3 * n + 1] = gn[1];
        Bm[2 * ne + 3 * n + 2] = gn[2];
        Bm[3 * ne + 3 * n + 0] = gn[1];
        Bm[3 * ne + 3 * n + 1] = gn[0];
        Bm[4 * ne + 3 * n + 0] = gn[2];
        Bm[4 * ne + 3 * n + 2] = gn[0];
        Bm[5 * ne + 3 * n + 1] = gn[2];
        Bm[5 * ne + 3 * n + 2] = gn[1];
      }
      for (int r = 0; r < 6; r++)
        for (int j = 0; j < ne; j++) {
          double s = 0.0;
          for (int k = 0; k < 6; k++) s += D[r][k] * Bm[k * ne + j];
          DB[r * ne + j] = s;
        }
      for (int i = 0; i < ne; i++)
        for (int r = 0; r < 6; r++) {
          double bri = Bm[r * ne + i] * wdet;
          if (bri == 0.0) continue;
          for (int j = 0; j < ne; j++) Ke[i * ne + j] += bri * DB[r * ne + j];
        }
    }
    const int *row = m->elem_nodes + e * n3;
    for (int a = 0; a < n3; a++)
      for (int i = 0; i < 3; i++)
        for (int b = 0; b < n3; b++)
          for (int j = 0; j < 3; j++)
            K[(size_t)(3 * row[a] + i) * ndof + 3 * row[b] + j] += Ke[(3 * a + i) * ne + 3 * b + j];
  }
  free(L);
  free(dL);
  free(Ke);
  free(N);
  free(g);
  free(Bm);
  free(DB);
  return K;
}

static double norm(int n, const double *x) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

static double dotp(int n, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

static void check_operator(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1};
  const double E = 200.0, nu = 0.3;
  double lam, mu;
  dt_ho_lame(E, nu, &lam, &mu);
  /* (P, Gauss points per direction): the default P + 1, and richer rules */
  const int cases[7][2] = {{1, 2}, {2, 3}, {2, 5}, {3, 4}, {4, 5}, {4, 7}, {5, 6}};
  for (int k = 0; k < 7; k++) {
    int P = cases[k][0], nq = cases[k][1];
    dt_ho_mesh m;
    dt_ho_elastic op;
    dt_ctx ctx = {0};
    unsigned seed = 7u * P + nq;
    build_mesh(P, 2, 1, 1, lo, hi, 0.12, 1, 1, &m);
    EXPECT(setup_op(&m, nq == P + 1 ? 0 : nq, E, nu, &op, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(op.nq == nq, "P %d: %d Gauss points, asked %d", P, op.nq, nq);
    int n = 3 * m.n_nodes;
    double *K = assemble_dense(&m, nq, lam, mu);
    double *u = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n);
    double *Ku = malloc(sizeof(double) * n), *Au = malloc(sizeof(double) * n);
    double *Av = malloc(sizeof(double) * n), *d = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
      u[i] = 2.0 * ho_test_rnd(&seed) - 1.0, v[i] = 2.0 * ho_test_rnd(&seed) - 1.0;
    for (int i = 0; i < n; i++) Ku[i] = dotp(n, K + (size_t)i * n, u);
    EXPECT(dt_ho_elastic_apply(&op, u, Au, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_ho_elastic_apply(&op, v, Av, &ctx) == DT_OK, "%s", ctx.msg);
    for (int i = 0; i < n; i++) Ku[i] -= Au[i];
    double rel = norm(n, Ku) / norm(n, Au);
    EXPECT(rel <= 1e-12, "P %d: ||K u - apply(u)|| / ||K u|| = %.3e", P, rel);
    /* ||K|| by power iteration on the operator */
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), Knorm = 0.0;
    memcpy(x, u, sizeof(double) * n);
    for (int it = 0; it < 60; it++) {
      double s = norm(n, x);
      for (int i = 0; i < n; i++) x[i] /= s;
      dt_ho_elastic_apply(&op, x, y, &ctx);
      Knorm = norm(n, y);
      memcpy(x, y, sizeof(double) * n);
    }
    double asym = fabs(dotp(n, v, Au) - dotp(n, u, Av)) / (Knorm * norm(n, u) * norm(n, v));
    EXPECT(asym <= 1e-12, "P %d: v^T K u - u^T K v = %.3e relative", P, asym);
    EXPECT(dt_ho_elastic_diagonal(&op, d, &ctx) == DT_OK, "%s", ctx.msg);
    double derr = 0.0, dmax = 0.0;
    for (int i = 0; i < n; i++) {
      derr = fmax(derr, fabs(d[i] - K[(size_t)i * n + i]));
      dmax = fmax(dmax, fabs(K[(size_t)i * n + i]));
    }
    EXPECT(derr <= 1e-12 * dmax, "P %d: diagonal off by %.3e (max K_ii %.3e)", P, derr, dmax);
    double worst = 0.0;
    for (int mode = 0; mode < 6; mode++) {
      for (int a = 0; a < m.n_nodes; a++) {
        const double *p = m.coords + 3 * a;
        double r[3] = {0, 0, 0};
        if (mode < 3) {
          r[mode] = 1.0;
        } else { /* omega x p with omega = e_(mode-3) */
          int k = mode - 3, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
          r[k1] = -p[k2];
          r[k2] = p[k1];
        }
        for (int c = 0; c < 3; c++) x[3 * a + c] = r[c];
      }
      dt_ho_elastic_apply(&op, x, y, &ctx);
      worst = fmax(worst, norm(n, y) / (Knorm * norm(n, x)));
    }
    EXPECT(worst <= 1e-10, "P %d: rigid-body mode gives ||K r|| / (||K|| ||r||) = %.3e", P, worst);
    if (verbose)
      printf("operator P %d nq %d: %d DOFs, %d colours, apply vs B^T D B %.2e, asym %.2e, diag "
             "%.2e, rigid %.2e\n",
             P, nq, n, op.n_colors, rel, asym, derr / dmax, worst);
    free(K);
    free(u);
    free(v);
    free(Ku);
    free(Au);
    free(Av);
    free(d);
    free(x);
    free(y);
    dt_ho_elastic_free(&op);
    dt_ho_mesh_free(&m);
  }
}

/* The colour-by-colour scatter gives the same bits on 1 thread and on 3 (a hand check of the
 * scheduling argument in ho_elastic.h); the colours are large enough to run in parallel. The
 * view of the same operator is checked against its sizes. */
static void check_determinism(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  dt_ho_mesh m;
  dt_ho_elastic op;
  dt_ctx ctx = {0};
  unsigned seed = 99u;
  build_mesh(3, 12, 12, 12, lo, hi, 0.1, 0, 1, &m);
  EXPECT(setup_op(&m, 0, 1.0, 0.3, &op, &ctx) == DT_OK, "%s", ctx.msg);
  int n = 3 * m.n_nodes;
  double *u = malloc(sizeof(double) * n), *v1 = malloc(sizeof(double) * n),
         *v3 = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) u[i] = 2.0 * ho_test_rnd(&seed) - 1.0;
#ifdef _OPENMP
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  dt_ho_elastic_apply(&op, u, v1, &ctx);
  omp_set_num_threads(3);
  dt_ho_elastic_apply(&op, u, v3, &ctx);
  omp_set_num_threads(saved);
  EXPECT(!memcmp(v1, v3, sizeof(double) * n), "apply differs between 1 and 3 threads");
#endif
  EXPECT(m.n_elems / op.n_colors * 64 >= DT_HO_PARALLEL_POINTS, "colours too small to fork");
  /* the view names what is in use (STYLE.md §14) */
  FILE *f = tmpfile();
  char text[1024] = "";
  dt_ho_elastic_view(&op, f);
  rewind(f);
  text[fread(text, 1, sizeof(text) - 1, f)] = 0;
  fclose(f);
  EXPECT(strstr(text, "ho_elastic: order 3, 4^3 Gauss points, 1728 elements, 50653 nodes") &&
             strstr(text, "colours: 8 (216 to 216 elements each)"),
         "view:\n%s", text);
  if (verbose) printf("%s", text);
  free(u);
  free(v1);
  free(v3);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
}

static int on_unit_boundary(const double x[3], void *user) {
  (void)user;
  for (int d = 0; d < 3; d++)
    if (fabs(x[d]) < 1e-12 || fabs(x[d] - 1.0) < 1e-12) return 1;
  return 0;
}

/* Solves K u = b with u prescribed (from u_fixed) on the marked nodes; u holds the result. */
static dt_status solve(const dt_ho_elastic *op, const unsigned char *node_fixed, const double *b,
                       double *u, double rtol, int max_it, dt_ho_pcg_result *res, dt_ctx *ctx) {
  int n = 3 * op->n_nodes;
  unsigned char *fixed = malloc(n);
  double *diag = malloc(sizeof(double) * n);
  dt_ho_pcg_opts opts = {rtol, max_it};
  dt_status rc = dt_ho_elastic_diagonal(op, diag, ctx);
  for (int i = 0; i < n; i++) {
    fixed[i] = node_fixed[i / 3];
    if (!fixed[i]) u[i] = 0.0;
  }
  if (rc == DT_OK)
    rc = dt_ho_pcg_solve(n, dt_ho_elastic_apply_fn, op, diag, fixed, b, u, &opts, res, ctx);
  free(fixed);
  free(diag);
  return rc;
}

static void check_patch(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const double a0[3] = {0.1, -0.2, 0.3};
  const double G[3][3] = {{0.4, -0.7, 0.2}, {0.3, 0.5, -0.6}, {-0.8, 0.1, 0.9}};
  for (int P = 1; P <= 4; P++) {
    dt_ho_mesh m;
    dt_ho_elastic op;
    dt_ctx ctx = {0};
    dt_ho_pcg_result res;
    build_mesh(P, 3, 3, 3, lo, hi, 0.15, 0, 1, &m);
    EXPECT(setup_op(&m, 0, 1000.0, 0.3, &op, &ctx) == DT_OK, "%s", ctx.msg);
    int n = 3 * m.n_nodes;
    unsigned char *fixed = calloc(m.n_nodes, 1);
    double *u = malloc(sizeof(double) * n), *ex = malloc(sizeof(double) * n);
    double *b = calloc(n, sizeof(double));
    dt_ho_mesh_mark_where(&m, on_unit_boundary, NULL, fixed);
    for (int a = 0; a < m.n_nodes; a++)
      for (int c = 0; c < 3; c++) {
        const double *p = m.coords + 3 * a;
        ex[3 * a + c] = u[3 * a + c] = a0[c] + G[c][0] * p[0] + G[c][1] * p[1] + G[c][2] * p[2];
      }
    EXPECT(solve(&op, fixed, b, u, 1e-14, 5000, &res, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
    double err = 0.0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs(u[i] - ex[i]));
    EXPECT(err <= 1e-10, "P %d: patch test error %.3e (%d iterations)", P, err, res.iterations);
    if (verbose) printf("patch P %d: %d DOFs, %d its, max error %.2e\n", P, n, res.iterations, err);
    free(fixed);
    free(u);
    free(ex);
    free(b);
    dt_ho_elastic_free(&op);
    dt_ho_mesh_free(&m);
  }
}

/* Manufactured solution u_i = sin(k_i . x + phi_i), E = 1, nu = 0.3. */
static const double mk[3][3] = {{2.0, 1.0, 0.5}, {0.7, 1.9, 1.1}, {1.2, 0.4, 2.1}};
static const double mphi[3] = {0.3, 0.8, 1.4};

static void mms_u(const double x[3], double u[3], double du[3][3]) {
  for (int i = 0; i < 3; i++) {
    double th = mk[i][0] * x[0] + mk[i][1] * x[1] + mk[i][2] * x[2] + mphi[i];
    u[i] = sin(th);
    for (int j = 0; j < 3; j++) du[i][j] = mk[i][j] * cos(th);
  }
}

/* f = -div sigma = (lambda + mu) sum_i k_ii k_ij sin(th_i) + mu |k_j|^2 sin(th_j). */
static void mms_f(const double x[3], double f[3], void *user) {
  const double *lm = user;
  double s[3];
  for (int i = 0; i < 3; i++)
    s[i] = sin(mk[i][0] * x[0] + mk[i][1] * x[1] + mk[i][2] * x[2] + mphi[i]);
  for (int j = 0; j < 3; j++) {
    double kj2 = mk[j][0] * mk[j][0] + mk[j][1] * mk[j][1] + mk[j][2] * mk[j][2];
    f[j] = lm[1] * kj2 * s[j];
    for (int i = 0; i < 3; i++) f[j] += (lm[0] + lm[1]) * mk[i][i] * mk[i][j] * s[i];
  }
}

/* L2 and H1-seminorm errors of nodal field u against the manufactured solution, with P + 3
 * Gauss points per direction and the geometry from the nodes. */
static void mms_errors(const dt_ho_mesh *m, const double *u, double *l2, double *h1) {
  int P = m->order, P1 = P + 1, nq = P + 3, n3 = P1 * P1 * P1;
  double gx[DT_HO_MAX_QPOINTS], gw[DT_HO_MAX_QPOINTS], L[DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES],
      dL[DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES];
  double *N = malloc(sizeof(double) * n3), *g = malloc(sizeof(double) * 3 * n3);
  double sl2 = 0.0, sh1 = 0.0;
  tables(P, nq, gx, gw, L, dL);
  for (int e = 0; e < m->n_elems; e++)
    for (int q = 0; q < nq * nq * nq; q++) {
      double x[3], ue[3], due[3][3], uh[3] = {0, 0, 0}, duh[3][3] = {{0}};
      double wdet = point_data(m, e, P1, L, dL, gw, q % nq, (q / nq) % nq, q / (nq * nq), N, g, x);
      for (int a = 0; a < n3; a++) {
        const double *un = u + 3 * m->elem_nodes[e * n3 + a];
        for (int c = 0; c < 3; c++) {
          uh[c] += N[a] * un[c];
          for (int j = 0; j < 3; j++) duh[c][j] += g[3 * a + j] * un[c];
        }
      }
      mms_u(x, ue, due);
      for (int c = 0; c < 3; c++) {
        sl2 += wdet * (uh[c] - ue[c]) * (uh[c] - ue[c]);
        for (int j = 0; j < 3; j++) sh1 += wdet * (duh[c][j] - due[c][j]) * (duh[c][j] - due[c][j]);
      }
    }
  *l2 = sqrt(sl2);
  *h1 = sqrt(sh1);
  free(N);
  free(g);
}

static void check_mms(int Plo, int Phi) {
  /* meshes per order: coarse enough for CI, fine enough to be in the asymptotic range */
  const int levels[6][3] = {{4, 8, 16}, {2, 4, 8}, {2, 3, 4}, {2, 3, 4}, {3, 4, 5}, {1, 2, 3}};
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  double lm[2];
  dt_ho_lame(1.0, 0.3, &lm[0], &lm[1]);
  for (int P = Plo; P <= Phi; P++) {
    double el2[3], eh1[3];
    for (int l = 0; l < 3; l++) {
      int nx = levels[P - 1][l];
      dt_ho_mesh m;
      dt_ho_elastic op;
      dt_ctx ctx = {0};
      dt_ho_pcg_result res;
      build_mesh(P, nx, nx, nx, lo, hi, 0.1, 0, 1, &m);
      EXPECT(setup_op(&m, 0, 1.0, 0.3, &op, &ctx) == DT_OK, "%s", ctx.msg);
      int n = 3 * m.n_nodes;
      unsigned char *fixed = calloc(m.n_nodes, 1);
      double *u = malloc(sizeof(double) * n), *b = calloc(n, sizeof(double)), du[3][3];
      dt_ho_mesh_mark_where(&m, on_unit_boundary, NULL, fixed);
      for (int a = 0; a < m.n_nodes; a++) mms_u(m.coords + 3 * a, u + 3 * a, du);
      EXPECT(dt_ho_elastic_body_load(&op, &m, mms_f, lm, b, &ctx) == DT_OK, "%s", ctx.msg);
      double t_solve = ho_test_seconds();
      EXPECT(solve(&op, fixed, b, u, 1e-12, 20000, &res, &ctx) == DT_OK, "P %d n %d: %s", P, nx,
             ctx.msg);
      double t_err0 = ho_test_seconds();
      double t_err = ho_test_seconds();
      mms_errors(&m, u, &el2[l], &eh1[l]);
      t_err = ho_test_seconds() - t_err;
      if (verbose)
        printf(
            "mms P %d n %2d: %6d DOFs, %4d its, L2 %.3e, H1 %.3e (solve %.2f s, errors %.2f s)\n",
            P, nx, n, res.iterations, el2[l], eh1[l], t_err0 - t_solve, t_err);
      free(fixed);
      free(u);
      free(b);
      dt_ho_elastic_free(&op);
      dt_ho_mesh_free(&m);
    }
    for (int l = 1; l < 3; l++) {
      double hr = log((double)levels[P - 1][l] / levels[P - 1][l - 1]);
      double rl2 = log(el2[l - 1] / el2[l]) / hr, rh1 = log(eh1[l - 1] / eh1[l]) / hr;
      if (verbose)
        printf("mms P %d rates n %d -> %d: L2 %.2f, H1 %.2f\n", P, levels[P - 1][l - 1],
               levels[P - 1][l], rl2, rh1);
      if (l == 2) {
        EXPECT(rl2 >= P + 1 - 0.3, "P %d: L2 rate %.2f, expected %d", P, rl2, P + 1);
        EXPECT(rh1 >= P - 0.3, "P %d: H1 rate %.2f, expected %d", P, rh1, P);
      }
    }
  }
}

/* Curves the faces of the unit cube too (the map of `ho_test_curve` leaves them flat). */
static void bulge(const double x[3], double y[3], void *user) {
  (void)user;
  y[0] = x[0] + 0.08 * sin(M_PI * x[1]) * sin(M_PI * x[2]) * x[0];
  y[1] = x[1] + 0.06 * sin(M_PI * x[0]) * x[1] * x[1];
  y[2] = x[2] + 0.05 * sin(2.0 * x[0] + x[1]);
}

static void constant_force(const double x[3], double f[3], void *user) {
  (void)x;
  (void)user;
  f[0] = 1.0;
  f[1] = -2.0;
  f[2] = 0.5;
}

static void normal_traction(const double x[3], const double n[3], double t[3], void *user) {
  (void)x;
  (void)user;
  for (int d = 0; d < 3; d++) t[d] = n[d];
}

/* Loads against the divergence theorem on a mesh with curved faces: with t = n on the whole
 * boundary, sum_n b_n = closed-surface integral of n = 0 and sum_n b_(n,c) x_(n,c) = integral
 * of x_c n_c = V for each c (x is interpolated exactly by the isoparametric basis); the body
 * force f gives sum_n b_n = V f with V = sum of w det J. Rich rules (nq = P + 4) make the
 * quadrature error of the curved geometry small: tolerance 1e-10 relative. */
static void check_loads(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  for (int P = 1; P <= 4; P++) {
    dt_ho_mesh m, flat;
    dt_ho_elastic op;
    dt_ctx ctx = {0};
    int nq = P + 4, n3 = (P + 1) * (P + 1) * (P + 1), nf = 0;
    EXPECT(dt_ho_mesh_box(P, 2, 3, 2, lo, hi, bulge, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_ho_mesh_box(P, 2, 3, 2, lo, hi, NULL, NULL, &flat, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(setup_op(&m, nq, 1.0, 0.3, &op, &ctx) == DT_OK, "%s", ctx.msg);
    int n = 3 * m.n_nodes, *elem = malloc(sizeof(int) * 6 * m.n_elems),
        *face = malloc(sizeof(int) * 6 * m.n_elems);
    double *b = calloc(n, sizeof(double)), V = 0.0, F[3] = {0, 0, 0}, X[3] = {0, 0, 0};
    /* boundary faces from the unmapped box, which has the same numbering */
    for (int e = 0; e < m.n_elems; e++)
      for (int f = 0; f < 6; f++) {
        int axis, side, P1 = P + 1, on = 1;
        dt_ho_hex_face_axis(f, &axis, &side);
        for (int q = 0; q < P1 * P1; q++) {
          int abc[3];
          abc[axis] = side * P;
          abc[axis == 0 ? 1 : 0] = q % P1;
          abc[axis == 2 ? 1 : 2] = q / P1;
          const double *x =
              flat.coords + 3 * flat.elem_nodes[e * n3 + dt_ho_lex(P, abc[0], abc[1], abc[2])];
          on &= on_unit_boundary(x, NULL);
        }
        if (on) elem[nf] = e, face[nf++] = f;
      }
    EXPECT(nf == 2 * (2 * 3 + 3 * 2 + 2 * 2), "P %d: %d boundary faces", P, nf);
    EXPECT(dt_ho_elastic_traction_load(&op, &m, nf, elem, face, normal_traction, NULL, b, &ctx) ==
               DT_OK,
           "%s", ctx.msg);
    for (int e = 0; e < m.n_elems; e++)
      for (int q = 0; q < nq * nq * nq; q++) V += op.qdata[(size_t)e * 10 * nq * nq * nq + q];
    for (int a = 0; a < m.n_nodes; a++)
      for (int c = 0; c < 3; c++) {
        F[c] += b[3 * a + c];
        X[c] += b[3 * a + c] * m.coords[3 * a + c];
      }
    for (int c = 0; c < 3; c++) {
      EXPECT(fabs(F[c]) <= 1e-10, "P %d: closed-surface integral of n_%d = %.3e", P, c, F[c]);
      EXPECT(fabs(X[c] - V) <= 1e-10 * V, "P %d: integral of x_%d n_%d = %.15g, volume %.15g", P, c,
             c, X[c], V);
    }
    memset(b, 0, sizeof(double) * n);
    EXPECT(dt_ho_elastic_body_load(&op, &m, constant_force, NULL, b, &ctx) == DT_OK, "%s", ctx.msg);
    double fb[3] = {0, 0, 0}, f0[3];
    constant_force(NULL, f0, NULL);
    for (int a = 0; a < m.n_nodes; a++)
      for (int c = 0; c < 3; c++) fb[c] += b[3 * a + c];
    for (int c = 0; c < 3; c++)
      EXPECT(fabs(fb[c] - V * f0[c]) <= 1e-12 * V, "P %d: body force sum %.15g, V f = %.15g", P,
             fb[c], V * f0[c]);
    if (verbose)
      printf("loads P %d: V %.12f, surface x.n %.12f %.12f %.12f, |int n| %.1e\n", P, V, X[0], X[1],
             X[2], fabs(F[0]) + fabs(F[1]) + fabs(F[2]));
    free(elem);
    free(face);
    free(b);
    dt_ho_elastic_free(&op);
    dt_ho_mesh_free(&m);
    dt_ho_mesh_free(&flat);
  }
}

static int at_x0(const double x[3], void *user) {
  (void)user;
  return fabs(x[0]) < 1e-12;
}

static void end_load(const double x[3], const double n[3], double t[3], void *user) {
  (void)x;
  (void)n;
  (void)user;
  t[0] = 0.0;
  t[1] = -1.0;
  t[2] = 0.0;
}

static void check_cantilever(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {10, 1, 1}, E = 1000.0, nu = 0.3;
  const int nx = 16, ny = 2, nz = 2;
  double G = E / (2 * (1 + nu)), kappa = 10 * (1 + nu) / (12 + 11 * nu);
  double ref = 1.0 * 1000.0 / (3 * E / 12.0) + 10.0 / (kappa * G * 1.0);
  for (int P = 2; P <= 4; P++) {
    dt_ho_mesh m;
    dt_ho_elastic op;
    dt_ctx ctx = {0};
    dt_ho_pcg_result res;
    EXPECT(dt_ho_mesh_box(P, nx, ny, nz, lo, hi, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(setup_op(&m, 0, E, nu, &op, &ctx) == DT_OK, "%s", ctx.msg);
    int n = 3 * m.n_nodes, elem[4], face[4], tip = -1;
    unsigned char *fixed = calloc(m.n_nodes, 1);
    double *u = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
    dt_ho_mesh_mark_where(&m, at_x0, NULL, fixed);
    for (int k = 0; k < nz; k++)
      for (int j = 0; j < ny; j++) {
        elem[j + ny * k] = nx - 1 + nx * (j + ny * k);
        face[j + ny * k] = 3; /* S4: xi = +1, the x = 10 end of a box element */
      }
    EXPECT(dt_ho_elastic_traction_load(&op, &m, ny * nz, elem, face, end_load, NULL, b, &ctx) ==
               DT_OK,
           "%s", ctx.msg);
    double fy = 0.0;
    for (int a = 0; a < m.n_nodes; a++) fy += b[3 * a + 1];
    EXPECT(fabs(fy + 1.0) < 1e-12, "P %d: end load sums to %.15g, not -1", P, fy);
    EXPECT(solve(&op, fixed, b, u, 1e-10, 20000, &res, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
    for (int a = 0; a < m.n_nodes; a++) {
      const double *p = m.coords + 3 * a;
      if (fabs(p[0] - 10) < 1e-12 && fabs(p[1] - 0.5) < 1e-12 && fabs(p[2] - 0.5) < 1e-12) tip = a;
    }
    EXPECT(tip >= 0, "P %d: no node at the tip centre", P);
    double dy = tip >= 0 ? -u[3 * tip + 1] : 0.0, dev = (dy - ref) / ref;
    if (P >= 3) EXPECT(fabs(dev) <= 0.02, "P %d: tip deflection %.5f vs %.5f", P, dy, ref);
    if (verbose)
      printf("cantilever P %d: %d DOFs, %d its, tip deflection %.5f (Timoshenko %.5f, %+.2f%%)\n",
             P, n, res.iterations, dy, ref, 100 * dev);
    free(fixed);
    free(u);
    free(b);
    dt_ho_elastic_free(&op);
    dt_ho_mesh_free(&m);
  }
}

static void check_bad_input(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1};
  dt_ho_mesh m;
  dt_ho_elastic op;
  dt_ctx ctx = {0};
  double lam[2] = {1.0, 1.0}, mu[2] = {1.0, -1.0};
  EXPECT(dt_ho_mesh_box(2, 2, 1, 1, lo, hi, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_elastic_setup(&m, 40, lam, lam, &op, &ctx) == DT_ERR_INPUT, "nq 40 accepted");
  EXPECT(strstr(ctx.msg, "40 Gauss points per direction is outside") != NULL, "%s", ctx.msg);
  dt_ctx_reset(&ctx);
  EXPECT(dt_ho_elastic_setup(&m, 0, lam, mu, &op, &ctx) == DT_ERR_INPUT, "mu < 0 accepted");
  EXPECT(strstr(ctx.msg, "element 1: Lame parameters") != NULL, "%s", ctx.msg);
  /* fold element 1 by pushing its body node through its far face */
  int body = m.elem_nodes[27 + dt_ho_lex(2, 1, 1, 1)];
  m.coords[3 * body] += 1.5;
  dt_ctx_reset(&ctx);
  EXPECT(dt_ho_elastic_setup(&m, 0, lam, lam, &op, &ctx) == DT_ERR_INPUT, "fold accepted");
  EXPECT(strstr(ctx.msg, "element 1 is inverted or too strongly curved") != NULL, "%s", ctx.msg);
  EXPECT(op.qdata == NULL, "qdata left allocated");
  m.coords[3 * body] -= 1.5;
  /* two iterations cannot solve a cantilever-like problem */
  dt_ctx_reset(&ctx);
  EXPECT(dt_ho_elastic_setup(&m, 0, lam, lam, &op, &ctx) == DT_OK, "%s", ctx.msg);
  int n = 3 * m.n_nodes;
  unsigned char *fixed = calloc(m.n_nodes, 1);
  double *u = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
  dt_ho_pcg_result res;
  dt_ho_mesh_mark_where(&m, at_x0, NULL, fixed);
  for (int i = 0; i < n; i++) b[i] = 1.0;
  EXPECT(solve(&op, fixed, b, u, 1e-10, 2, &res, &ctx) == DT_ERR_NOT_CONVERGED, "converged?");
  EXPECT(strstr(ctx.msg, "PCG did not converge") != NULL && res.iterations == 2, "%s", ctx.msg);
  /* no Dirichlet conditions: K is singular, b is not in its range */
  memset(fixed, 0, m.n_nodes);
  dt_ctx_reset(&ctx);
  dt_status rc = solve(&op, fixed, b, u, 1e-10, 500, &res, &ctx);
  EXPECT(rc == DT_ERR_NOT_CONVERGED, "singular system: status %d (%s)", (int)rc, ctx.msg);
  free(fixed);
  free(u);
  free(b);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
}

static void check_mms_p1to3(void) { check_mms(1, 3); }
static void check_mms_p4(void) { check_mms(4, 4); }
static void check_mms_p5(void) { check_mms(5, 5); }
static void check_mms_p6(void) { check_mms(6, 6); }

/* Usage: test_ho_elastic [-v] [section ...]; no section runs them all. ctest runs one section
 * per test so each stays short under the sanitizers. */
int main(int argc, char **argv) {
  void (*part[])(void) = {check_operator,   check_determinism, check_patch,  check_mms_p1to3,
                          check_mms_p4,     check_mms_p5,      check_mms_p6, check_loads,
                          check_cantilever, check_bad_input};
  const char *name[] = {"operator", "determinism", "patch", "mms_p1to3",  "mms_p4",
                        "mms_p5",   "mms_p6",      "loads", "cantilever", "bad_input"};
  const int nparts = 10;
  int first = 1, ran = 0;
  verbose = argc > 1 && !strcmp(argv[1], "-v");
  if (verbose) first = 2;
  for (int k = 0; k < nparts; k++) {
    int run = argc <= first;
    for (int a = first; a < argc; a++) run |= !strcmp(argv[a], name[k]);
    if (!run) continue;
    double t0 = ho_test_seconds();
    part[k]();
    ran++;
    if (verbose) printf("%s: %.2f s\n", name[k], ho_test_seconds() - t0);
  }
  EXPECT(ran > 0, "no section named %s", argc > first ? argv[first] : "");
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
