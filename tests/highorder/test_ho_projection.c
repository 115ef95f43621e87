/* The seed's projection tests (seed 002, §6.2; digest §4.1) on the 2 x 2 square mesh of
 * [0,2]^2 and the 2 x 2 x 1 hexahedron mesh of [0,2]^2 x [0,1], element 1 = [0,1]x[0,1],
 * 2 = [1,2]x[0,1], 3 = [0,1]x[1,2], 4 = [1,2]x[1,2] (the high-gradient quadrant), with
 * u = exp(pi x) sin(pi y / 4) (x - 1)^2 y^2 (6.1) and the same times (z - x y) (6.2).
 *
 * - exponential convergence of the element-wise solver, p-uniform, on the straight mesh and
 *   on a distorted one (interior vertex (1,1) moved to (1.15, 0.9), then a smooth map that
 *   curves every interior edge): each two orders cut the error at least 5x (until it is
 *   below 1e-10, which these orders do not reach);
 * - Tables 6.2 and 6.3, every row with the element-wise solver, against the thesis (see
 *   check_tables for the agreement found and why; docs/highorder.md has the tables);
 * - the global conforming projection reproduces a polynomial of degree <= P in each variable
 *   to 1e-12 relative, and its error is at most the element-wise solver's (it is the best
 *   approximation in the same space);
 * - the sum-factorised element mass matrix equals the directly integrated
 *   sum_q N_i N_j w_q |J_q| on a curved element to 1e-13 relative (hand-built reference);
 * - rotated elements give the same results (entity orientations), unknown counts by hand;
 * - bad input (order 0 or above the maximum, an inverted element) is DT_ERR_INPUT naming
 *   the element; the global solver refuses mixed orders. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_basis.h"
#include "highorder/ho_projection.h"
#include "../test_expect.h"

static int verbose = 0;

/* (6.1) and (6.2) */
static double u2d(const double *x, void *user) {
  (void)user;
  return exp(M_PI * x[0]) * sin(M_PI * x[1] / 4.0) * (x[0] - 1.0) * (x[0] - 1.0) * x[1] * x[1];
}

static double u3d(const double *x, void *user) {
  (void)user;
  return u2d(x, NULL) * (x[2] - x[0] * x[1]);
}

/* (6.1) on the hexahedron mesh, constant in z: the function whose row pattern Table 6.3 shows. */
static double u2d_on_hex(const double *x, void *user) { return u2d(x, user); }

/* Curves the interior of [0,2]^2 (x [0,1]) and leaves its boundary in place. */
static void curve(const double *x, double *y, void *user) {
  int dim = *(const int *)user;
  double a = x[0], b = x[1];
  y[0] = a + 0.05 * sin(M_PI * a) * sin(M_PI * b / 2.0);
  y[1] = b + 0.05 * sin(M_PI * b) * sin(M_PI * a / 2.0);
  if (dim == 3) y[2] = x[2] + 0.05 * sin(M_PI * x[2]) * sin(M_PI * a / 2.0) * sin(M_PI * b / 2.0);
}

typedef struct mesh_opts {
  int dim, distorted, rotate, mirror; /* mirror: this element (1-based) is built inverted */
} mesh_opts;

/* Corner c of element e of the four-element mesh. */
static void mesh_corner(const mesh_opts *o, int e, int c, double *x) {
  int vx = e % 2 + (c & 1), vy = e / 2 + ((c >> 1) & 1);
  x[0] = vx;
  x[1] = vy;
  if (o->distorted && vx == 1 && vy == 1) x[0] = 1.15, x[1] = 0.9;
  if (o->dim == 3) x[2] = (c >> 2) & 1;
}

/* Local corner c of element e in its own frame: rotate turns elements 2 and 4 by 90 degrees
 * about z and, in 3D, element 3 by 90 degrees about x, so shared edges and faces meet with
 * different parametrisations (old xi = R new xi, det R = 1); mirror flips xi_1. */
static int local_corner(const mesh_opts *o, int e, int c) {
  int a = c & 1, b = (c >> 1) & 1, d = (c >> 2) & 1;
  if (o->rotate && (e == 1 || e == 3)) { /* old (xi1, xi2) = (-new xi2, new xi1) */
    int t = a;
    a = 1 - b;
    b = t;
  }
  if (o->rotate && o->dim == 3 && e == 2) { /* old (xi2, xi3) = (-new xi3, new xi2) */
    int t = b;
    b = 1 - d;
    d = t;
  }
  if (o->mirror == e + 1) a = 1 - a;
  return a | (b << 1) | (d << 2);
}

static dt_status build_mesh_opts(const mesh_opts *o, const int *P, dt_ho_proj **out, dt_ctx *ctx) {
  static int dims[4] = {0, 0, 2, 3};
  int dim = o->dim;
  size_t total = 0, off = 0;
  for (int e = 0; e < 4; e++) total += (size_t)pow(P[e] + 1, dim) * dim;
  double *xyz = malloc(sizeof(double) * total);
  dt_status rc = DT_OK;
  for (int e = 0; e < 4 && rc == DT_OK; e++) {
    double corners[24];
    for (int c = 0; c < (1 << dim); c++)
      mesh_corner(o, e, local_corner(o, e, c), corners + c * dim);
    rc = dt_ho_proj_nodes_from_corners(dim, P[e], corners, o->distorted ? curve : NULL, &dims[dim],
                                       xyz + off, ctx);
    off += (size_t)pow(P[e] + 1, dim) * dim;
  }
  if (rc == DT_OK) rc = dt_ho_proj_create(dim, 4, P, xyz, 0, out, ctx);
  free(xyz);
  return rc;
}

/* Element-wise (local) or global projection error of f on the mesh with orders P. */
static double projection_error_opts(const mesh_opts *o, const int *P, int global, dt_ho_proj_fn f) {
  dt_ctx ctx = {0};
  dt_ho_proj *p = NULL;
  double err = NAN, *v = NULL;
  dt_status rc = build_mesh_opts(o, P, &p, &ctx);
  if (rc == DT_OK) {
    v = malloc(sizeof(double) * dt_ho_proj_nvalues(p));
    rc = global ? dt_ho_proj_global(p, f, NULL, 0.0, v, NULL, &ctx)
                : dt_ho_proj_local(p, f, NULL, v, &ctx);
  }
  if (rc == DT_OK) rc = dt_ho_proj_error(p, f, NULL, v, 4, &err, &ctx);
  EXPECT(rc == DT_OK, "%dD P %d %d %d %d: %s", o->dim, P[0], P[1], P[2], P[3], ctx.msg);
  free(v);
  dt_ho_proj_destroy(&p);
  return err;
}

static double projection_error(int dim, const int *P, int distorted, int global, dt_ho_proj_fn f) {
  mesh_opts o = {dim, distorted, 0, 0};
  return projection_error_opts(&o, P, global, f);
}

/* Exponential convergence, p-uniform, and the global projection as the lower bound: the
 * global error is the best approximation in the same space, and the seed's averaging costs
 * at most 5% over it (observed: 0.1% to 3%). */
static void check_convergence(int dim, int distorted) {
  int pmax = dim == 2 ? 13 : 11;
  double err[14] = {0};
  dt_ho_proj_fn f = dim == 2 ? u2d : u3d;
  for (int P = 1; P <= pmax; P++) {
    int o[4] = {P, P, P, P};
    err[P] = projection_error(dim, o, distorted, 0, f);
    double eg = projection_error(dim, o, distorted, 1, f);
    if (verbose)
      printf("%dD %-9s P %2d  local %.4e  global %.4e\n", dim, distorted ? "distorted" : "straight",
             P, err[P], eg);
    EXPECT(eg <= err[P] * (1.0 + 1e-10) && err[P] <= 1.05 * eg,
           "%dD P %d: global %.6e vs local %.6e", dim, P, eg, err[P]);
  }
  for (int P = 1; P + 2 <= pmax; P++)
    EXPECT(err[P + 2] <= err[P] / 5.0 || err[P] < 1e-10,
           "%dD %s: P %d error %.4e, P %d error %.4e (less than 5x smaller)", dim,
           distorted ? "distorted" : "straight", P, err[P], P + 2, err[P + 2]);
}

/* Seed Table 6.3 against (6.1) projected on the hexahedra (no z dependence): the scale c fitted
 * on the rows that element 2 dominates (rows 3, 5, 6, 8, geometric mean) and the floor F taken
 * from row 1, as for Table 6.2, predict the other rows (see check_tables). */
static void check_table63_model(const int (*orders)[4], const double *thesis, const int *high) {
  static const double recorded[8] = {7.330519e-07, 1.359288e-06, 1.368136e-05, 1.369262e-06,
                                     1.389521e-05, 1.368334e-05, 1.425451e-06, 1.379228e-05};
  double e[8], logc = 0.0;
  for (int c = 0; c < 8; c++) {
    e[c] = projection_error(3, orders[c], 0, 0, u2d_on_hex);
    EXPECT(fabs(e[c] / recorded[c] - 1.0) < 1e-3,
           "Table 6.3 with (6.1), row %d: %.6e, recorded %.6e", c + 1, e[c], recorded[c]);
    if (high[c]) logc += 0.25 * log(thesis[c] / e[c]);
  }
  double scale = exp(logc), floor2 = thesis[0] * thesis[0] - scale * scale * e[0] * e[0];
  EXPECT(scale > 0.44 && scale < 0.46 && floor2 > 0.0, "Table 6.3 model: c %.4f, F^2 %.4e", scale,
         floor2);
  printf("Table 6.3 model: (6.1) on the hexahedra, c = %.4f, F = %.4e\ncase  ductile (6.1)"
         "  c e (+) F      thesis       ratio\n",
         scale, sqrt(fmax(floor2, 0.0)));
  for (int c = 0; c < 8; c++) {
    double m = sqrt(scale * scale * e[c] * e[c] + fmax(floor2, 0.0));
    printf("%4d  %.4e     %.4e   %.4e   %.3f\n", c + 1, e[c], m, thesis[c], m / thesis[c]);
    EXPECT(fabs(m / thesis[c] - 1.0) <= 0.07, "seed Table 6.3 row %d: model %.4e vs thesis %.4e",
           c + 1, m, thesis[c]);
  }
}

/* Tables 6.2 and 6.3 (straight meshes, element-wise solver).
 *
 * Agreement found (documented in docs/highorder.md):
 * - 2D rows 3, 5, 6, 8 (element 2 of order 11 dominates) agree with the thesis to 5%
 *   (ductile 3.6-4.9% higher): asserted to 6%;
 * - 2D rows 1, 2, 4, 7 (every element of order >= 12) are 2.7-5.8x below the thesis, whose
 *   values all carry the same extra error: thesis^2 = ductile^2 + F^2 with F = 1.856e-8 taken
 *   from row 1 reproduces rows 2, 4 and 7 to 0.6% (asserted to 2%). Our P = 13 error (3.3e-9)
 *   lies between the thesis's 1.88e-8 and the next order; the thesis gives no cause for such a
 *   floor (its quadrature or solver tolerance are not stated), so this is recorded, not fixed;
 * - 3D: ductile is 6.9-15x above every thesis row with (6.2) as printed, and no constant
 *   factor (relative norm, RMS over the volume, a scaled u) with or without such a floor fits:
 *   the thesis's row-to-row ratios (row 2 / row 1 = 1.67, row 3 / row 1 = 16.0) are 1.4-2x
 *   those of (6.2) (1.22, 7.8), whose factor (z - x y) weights element 4 (|x y| up to 4) over
 *   element 2. They are those of a function with the x-y dependence of (6.1) and none on x y
 *   in its z factor: (6.1) itself on the hexahedra, scaled by c from rows 3, 5, 6, 8 (c =
 *   0.4526, the L2 norm on [0,1] of a z factor g; z^2 would give 0.447) plus the floor of
 *   row 1, F = 1.853e-7, gives rows 2, 4, 7 to 1.5% and every row to 6% (asserted to 7%).
 *   The text names no such function, so this is a model of the thesis's values, not a
 *   reproduction. Asserted as well: (6.2) in the 5-20x bracket, and in both tables the
 *   pattern the thesis shows (rows with element 2 two orders below element 4 are at least 3x
 *   above the others);
 * - every row matches the values recorded here to 1e-3 relative (regression). */
static void check_tables(void) {
  static const int orders[2][8][4] = {{{13, 13, 13, 13},
                                       {12, 12, 13, 13},
                                       {11, 11, 13, 13},
                                       {12, 12, 12, 13},
                                       {11, 11, 11, 13},
                                       {11, 11, 12, 13},
                                       {11, 12, 12, 13},
                                       {10, 11, 12, 13}},
                                      {{11, 11, 11, 11},
                                       {10, 10, 11, 11},
                                       {9, 9, 11, 11},
                                       {10, 10, 10, 11},
                                       {9, 9, 9, 11},
                                       {9, 9, 10, 11},
                                       {9, 10, 10, 11},
                                       {8, 9, 10, 11}}};
  static const double thesis[2][8] = {{1.8846e-08, 1.9661e-08, 8.2871e-08, 1.9693e-08, 8.4874e-08,
                                       8.2876e-08, 1.9863e-08, 8.4268e-08},
                                      {3.7999e-07, 6.3310e-07, 6.0686e-06, 6.4565e-07, 6.6834e-06,
                                       6.0697e-06, 6.7297e-07, 6.1115e-06}};
  static const double recorded[2][8] = {{3.252050e-09, 6.809449e-09, 8.616616e-08, 6.894541e-09,
                                         8.796382e-08, 8.617638e-08, 7.355726e-09, 8.843454e-08},
                                        {5.721626e-06, 6.983107e-06, 4.456640e-05, 7.019527e-06,
                                         4.593280e-05, 4.457631e-05, 7.087687e-06, 4.462333e-05}};
  static const int high[8] = {0, 0, 1, 0, 1, 1, 0, 1}; /* element 2 two orders below 4 */
  for (int t = 0; t < 2; t++) {
    int dim = t + 2;
    double e[8], lo_max = 0.0, hi_min = INFINITY, floor2 = 0.0;
    printf("Table 6.%d (%s), element-wise solver\ncase  orders          ductile      thesis"
           "       ratio\n",
           t + 2, dim == 2 ? "squares" : "hexahedra");
    for (int c = 0; c < 8; c++) {
      const int *o = orders[t][c];
      e[c] = projection_error(dim, o, 0, 0, dim == 2 ? u2d : u3d);
      printf("%4d  %2d %2d %2d %2d     %.4e   %.4e   %.3f\n", c + 1, o[0], o[1], o[2], o[3], e[c],
             thesis[t][c], e[c] / thesis[t][c]);
      EXPECT(fabs(e[c] / recorded[t][c] - 1.0) < 1e-3, "Table 6.%d row %d: %.6e, recorded %.6e",
             t + 2, c + 1, e[c], recorded[t][c]);
      if (high[c])
        hi_min = fmin(hi_min, e[c]);
      else
        lo_max = fmax(lo_max, e[c]);
    }
    EXPECT(hi_min >= 3.0 * lo_max,
           "Table 6.%d: rows 3, 5, 6, 8 (min %.4e) are not 3x above the "
           "others (max %.4e)",
           t + 2, hi_min, lo_max);
    for (int c = 0; c < 8 && dim == 2; c++) {
      if (c == 0) floor2 = thesis[0][0] * thesis[0][0] - e[0] * e[0];
      if (high[c])
        EXPECT(fabs(e[c] / thesis[0][c] - 1.0) <= 0.06, "Table 6.2 row %d: %.4e vs thesis %.4e",
               c + 1, e[c], thesis[0][c]);
      else
        EXPECT(e[c] < thesis[0][c] && fabs(sqrt(e[c] * e[c] + floor2) / thesis[0][c] - 1.0) <= 0.02,
               "Table 6.2 row %d: %.4e with the floor %.4e vs thesis %.4e", c + 1, e[c],
               sqrt(floor2), thesis[0][c]);
    }
    for (int c = 0; c < 8 && dim == 3; c++)
      EXPECT(e[c] >= 5.0 * thesis[1][c] && e[c] <= 20.0 * thesis[1][c],
             "Table 6.3 row %d: %.4e vs thesis %.4e outside the recorded 5-20x bracket", c + 1,
             e[c], thesis[1][c]);
  }
  check_table63_model(orders[1], thesis[1], high);
}

/* A polynomial of degree <= 3 in each variable. */
static double poly(const double *x, void *user) {
  int dim = *(const int *)user;
  double v = (1.0 + x[0] - 2.0 * x[0] * x[0] * x[0]) * (3.0 - x[1] + 0.5 * x[1] * x[1] * x[1]);
  return dim == 3 ? v * (2.0 + x[2] * x[2] * x[2] - x[2]) : v;
}

/* Both solvers reproduce a polynomial of the space exactly; the local one also on p-non-uniform
 * and rotated meshes, which exercises the common-order traces and the entity orientations. */
static void check_reproduction(void) {
  for (int dim = 2; dim <= 3; dim++) {
    static int dims[4] = {0, 0, 2, 3};
    static const int orders[3][4] = {{3, 3, 3, 3}, {5, 5, 5, 5}, {3, 4, 5, 6}};
    for (int m = 0; m < 3; m++)
      for (int rot = 0; rot <= 1; rot++)
        for (int global = 0; global <= (m < 2 ? 1 : 0); global++) {
          mesh_opts o = {dim, 0, rot, 0};
          dt_ctx ctx = {0};
          dt_ho_proj *p = NULL;
          double err = NAN, norm = NAN, *v = NULL;
          dt_status rc = build_mesh_opts(&o, orders[m], &p, &ctx);
          if (rc == DT_OK) {
            v = calloc(dt_ho_proj_nvalues(p), sizeof(double));
            rc = dt_ho_proj_error(p, poly, &dims[dim], v, 4, &norm, &ctx);
          }
          if (rc == DT_OK)
            rc = global ? dt_ho_proj_global(p, poly, &dims[dim], 0.0, v, NULL, &ctx)
                        : dt_ho_proj_local(p, poly, &dims[dim], v, &ctx);
          if (rc == DT_OK) rc = dt_ho_proj_error(p, poly, &dims[dim], v, 4, &err, &ctx);
          EXPECT(rc == DT_OK && err <= 1e-12 * norm,
                 "%dD orders %d-%d %s %s: error %.3e of norm %.3e (%s)", dim, orders[m][0],
                 orders[m][3], rot ? "rotated" : "aligned", global ? "global" : "local", err, norm,
                 ctx.msg);
          free(v);
          dt_ho_proj_destroy(&p);
        }
  }
}

/* Rotating elements changes no result: p-non-uniform straight meshes (orders 4-7 in 2D, 3-6 in
 * 3D) and a distorted p-uniform one, to 1e-9 relative (errors 1e-1..1e-3, far above
 * round-off); Table row 8 to 1e-5 relative, since its error (1e-8 of a function of size 1e3)
 * is itself near the round-off of the function values. */
static void check_orientation(void) {
  static const int o2[4] = {4, 5, 6, 7}, o3[4] = {3, 4, 5, 6}, u4[4] = {4, 4, 4, 4};
  static const int t2[4] = {10, 11, 12, 13}, t3[4] = {8, 9, 10, 11};
  for (int dim = 2; dim <= 3; dim++)
    for (int c = 0; c < 4; c++) {
      int dist = c == 1, global = c == 2;
      mesh_opts a = {dim, dist, 0, 0}, b = {dim, dist, 1, 0};
      const int *o = c == 3 ? (dim == 2 ? t2 : t3) : (c > 0 ? u4 : (dim == 2 ? o2 : o3));
      double tol = c == 3 ? 1e-5 : 1e-9;
      dt_ho_proj_fn f = dim == 2 ? u2d : u3d;
      double ea = projection_error_opts(&a, o, global, f);
      double eb = projection_error_opts(&b, o, global, f);
      EXPECT(fabs(eb / ea - 1.0) < tol, "%dD orders %d-%d%s: rotated %.10e vs aligned %.10e", dim,
             o[0], o[3], global ? " global" : "", eb, ea);
    }
}

/* The sum-factorised mass matrix of a curved element against sum_q N_i N_j w_q |J_q| formed
 * point by point from the 1D tables (N_i and dN_i/dxi as products), same P + 2 rule. */
static void check_mass_matrix(int dim, int P) {
  static int dims[4] = {0, 0, 2, 3};
  mesh_opts o = {dim, 1, 1, 0};
  int orders[4] = {P, P, P, P}, n = P + 1, nn = dim == 3 ? n * n * n : n * n;
  dt_ctx ctx = {0};
  dt_ho_proj *p = NULL;
  dt_ho_basis1d b;
  double *M = calloc((size_t)nn * nn, sizeof(double)), *R = calloc((size_t)nn * nn, sizeof(double));
  double *N = malloc(sizeof(double) * nn), *dN = malloc(sizeof(double) * nn * 3);
  EXPECT(build_mesh_opts(&o, orders, &p, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_basis1d_init(&b, P, P + 2, &ctx) == DT_OK, "%s", ctx.msg);
  if (!p) goto done;
  int e = 3; /* element 4: curved, rotated, next to the moved vertex */
  EXPECT(dt_ho_proj_elem_mass(p, e, M, &ctx) == DT_OK, "%s", ctx.msg);
  /* element 4's node coordinates, rebuilt the way build_mesh_opts makes them */
  double corners[24], *xyz = malloc(sizeof(double) * nn * dim);
  for (int c = 0; c < (1 << dim); c++)
    mesh_corner(&o, e, local_corner(&o, e, c), corners + c * dim);
  dt_ho_proj_nodes_from_corners(dim, P, corners, curve, &dims[dim], xyz, &ctx);
  int nq = b.nqp, nk = dim == 3 ? nq : 1;
  for (int qk = 0; qk < nk; qk++)
    for (int qj = 0; qj < nq; qj++)
      for (int qi = 0; qi < nq; qi++) {
        int q[3] = {qi, qj, qk};
        double J[9] = {0};
        for (int i = 0; i < nn; i++) {
          int a[3] = {i % n, (i / n) % n, i / (n * n)};
          double v[3], g[3];
          for (int d = 0; d < 3; d++) {
            v[d] = d < dim ? b.interp[q[d] * n + a[d]] : 1.0;
            g[d] = d < dim ? b.grad[q[d] * n + a[d]] : 0.0;
          }
          N[i] = v[0] * v[1] * v[2];
          dN[i * 3 + 0] = g[0] * v[1] * v[2];
          dN[i * 3 + 1] = v[0] * g[1] * v[2];
          dN[i * 3 + 2] = v[0] * v[1] * g[2];
          for (int c = 0; c < dim; c++)
            for (int d = 0; d < dim; d++) J[c * 3 + d] += xyz[i * dim + c] * dN[i * 3 + d];
        }
        double det = dim == 2
                         ? J[0] * J[4] - J[1] * J[3]
                         : J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                               J[2] * (J[3] * J[7] - J[4] * J[6]);
        double w = b.qw[qi] * b.qw[qj] * (dim == 3 ? b.qw[qk] : 1.0) * det;
        for (int i = 0; i < nn; i++)
          for (int j = 0; j < nn; j++) R[(size_t)i * nn + j] += N[i] * N[j] * w;
      }
  double maxr = 0.0, maxd = 0.0;
  for (size_t i = 0; i < (size_t)nn * nn; i++) {
    maxr = fmax(maxr, fabs(R[i]));
    maxd = fmax(maxd, fabs(R[i] - M[i]));
  }
  EXPECT(maxd <= 1e-13 * maxr, "%dD P %d: mass matrices differ by %.3e (max entry %.3e)", dim, P,
         maxd, maxr);
  free(xyz);
done:
  free(M);
  free(R);
  free(N);
  free(dN);
  dt_ho_proj_destroy(&p);
}

/* Unknown counts: (2P + 1)^2 and (2P + 1)^2 (P + 1) for p-uniform meshes; orders (2, 3, 2, 2)
 * keep order 3 only on element 2's two outer edges (hand count: 9 vertices, 10 edges with
 * one and 2 with two interior values, interiors 1 + 4 + 1 + 1 = 30). */
static void check_counts(void) {
  static const int u4[4] = {4, 4, 4, 4}, u3[4] = {3, 3, 3, 3}, mixed[4] = {2, 3, 2, 2};
  const int *orders[3] = {u4, u3, mixed};
  size_t expect[3] = {81, 196, 30};
  int dims[3] = {2, 3, 2};
  for (int c = 0; c < 3; c++) {
    mesh_opts o = {dims[c], 0, 1, 0};
    dt_ctx ctx = {0};
    dt_ho_proj *p = NULL;
    EXPECT(build_mesh_opts(&o, orders[c], &p, &ctx) == DT_OK && dt_ho_proj_ndofs(p) == expect[c],
           "case %d: %zu unknowns, expected %zu (%s)", c, p ? dt_ho_proj_ndofs(p) : 0, expect[c],
           ctx.msg);
    dt_ho_proj_destroy(&p);
  }
}

/* Fail the n-th allocation, n = 1, 2, ... until a run needs fewer: create, both solvers and
 * the error either succeed or return DT_ERR_NOMEM, and leak nothing (AddressSanitizer's leak
 * check in CI). No allocation failure is swallowed, so the first success ends the loop. */
static void check_out_of_memory(void) {
  static const int mixed[4] = {2, 3, 2, 2}, uniform[4] = {2, 2, 2, 2};
  for (int dim = 2; dim <= 3; dim++)
    for (int global = 0; global <= 1; global++) {
      dt_status rc = DT_ERR_NOMEM;
      int n = 1;
      for (; n < 1000 && rc == DT_ERR_NOMEM; n++) {
        mesh_opts o = {dim, 1, 1, 0};
        dt_ctx ctx = {0};
        dt_ho_proj *p = NULL;
        double err = 0.0, *v = NULL;
        dt_ho_proj_fn f = dim == 2 ? u2d : u3d;
        dt_fault_malloc_countdown(n);
        rc = build_mesh_opts(&o, global ? uniform : mixed, &p, &ctx);
        if (rc == DT_OK) {
          v = malloc(sizeof(double) * dt_ho_proj_nvalues(p));
          rc = global ? dt_ho_proj_global(p, f, NULL, 0.0, v, NULL, &ctx)
                      : dt_ho_proj_local(p, f, NULL, v, &ctx);
        }
        if (rc == DT_OK) rc = dt_ho_proj_error(p, f, NULL, v, 4, &err, &ctx);
        dt_fault_malloc_countdown(0);
        free(v);
        dt_ho_proj_destroy(&p);
        EXPECT(rc == DT_OK || rc == DT_ERR_NOMEM, "allocation %d failed as %d: %s", n, rc, ctx.msg);
      }
      if (verbose)
        printf("%dD %s: %d allocations checked\n", dim, global ? "global" : "local", n - 2);
      EXPECT(rc == DT_OK && n > 10, "%dD: the fault loop ended at %d with %d", dim, n, rc);
    }
}

static int mentions(const char *msg, const char *what) { return strstr(msg, what) != NULL; }

static void check_bad_input(void) {
  dt_ctx ctx = {0};
  dt_ho_proj *p = NULL;
  mesh_opts o2 = {2, 0, 0, 0}, mirrored = {3, 0, 0, 4};
  int zero[4] = {2, 0, 2, 2}, big[4] = {2, 2, DT_HO_MAX_ORDER + 1, 2}, ok[4] = {2, 2, 2, 2};
  int mixed[4] = {2, 3, 2, 2};
  /* nodes_from_corners refuses the order first; build the coordinates with a valid one */
  double xyz[4 * 9 * 2] = {0};
  for (int e = 0, off = 0; e < 4; e++, off += 9 * 2) {
    double corners[8];
    for (int c = 0; c < 4; c++) mesh_corner(&o2, e, c, corners + 2 * c);
    dt_ho_proj_nodes_from_corners(2, 2, corners, NULL, NULL, xyz + off, &ctx);
  }
  EXPECT(dt_ho_proj_create(2, 4, zero, xyz, 0, &p, &ctx) == DT_ERR_INPUT &&
             mentions(ctx.msg, "element 2: order 0"),
         "order 0: %s", ctx.msg);
  dt_ctx_reset(&ctx);
  EXPECT(dt_ho_proj_create(2, 4, big, xyz, 0, &p, &ctx) == DT_ERR_INPUT &&
             mentions(ctx.msg, "element 3: order 17 is outside 1..16"),
         "order 17: %s", ctx.msg);
  dt_ctx_reset(&ctx);
  EXPECT(build_mesh_opts(&mirrored, ok, &p, &ctx) == DT_ERR_INPUT &&
             mentions(ctx.msg, "element 4 is inverted"),
         "inverted element: %s", ctx.msg);
  EXPECT(p == NULL, "a failed create returned a problem");
  dt_ctx_reset(&ctx);
  EXPECT(build_mesh_opts(&o2, mixed, &p, &ctx) == DT_OK, "%s", ctx.msg);
  double *v = p ? malloc(sizeof(double) * dt_ho_proj_nvalues(p)) : NULL;
  EXPECT(p && dt_ho_proj_global(p, u2d, NULL, 0.0, v, NULL, &ctx) == DT_ERR_UNSUPPORTED &&
             mentions(ctx.msg, "element 2 has order 3"),
         "global on mixed orders: %s", ctx.msg);
  free(v);
  dt_ho_proj_destroy(&p);
  dt_ho_proj_destroy(&p); /* NULL-safe */
}

int main(int argc, char **argv) {
  verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
  for (int dim = 2; dim <= 3; dim++)
    for (int dist = 0; dist <= 1; dist++) check_convergence(dim, dist);
  check_tables();
  check_reproduction();
  check_orientation();
  check_mass_matrix(2, 6);
  check_mass_matrix(3, 4);
  check_counts();
  check_out_of_memory();
  check_bad_input();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
