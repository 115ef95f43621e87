/* Result files and checkpoints of order-P runs (solver/highorder/ho_vtu*, ho_checkpoint*).
 * One section per ctest entry (argv[1]):
 *  - vtk_order: for P = 1..8, dt_ho_vtk_hex_node is a bijection onto 0..(P+1)^3 - 1 and the
 *    nodes of a unit-cube element written in VTK's order sit where VTK's Lagrange hexahedron
 *    puts them: corners in hex8 order, each edge's nodes on that edge ascending along its
 *    reference axis, faces and body row by row, with the edge and face tables of VTK's
 *    vtkHigherOrderInterpolation.cxx (hexEdgeCorners, hexFaceCorners: edges 10 = (2,6), 11 =
 *    (3,7), VTK 9.1's order) and the Lobatto coordinates (1e-14);
 *  - interp: a field of degree P in each coordinate given at the Gauss points of an affine
 *    2 x 2 x 1 mesh, P = 1..4, comes out at every node (shared ones averaged) as its exact
 *    value (1e-12 relative), with the stride and first component of a state array;
 *  - checkpoint: a plastic bar at P = 2 stopped after increment 2 of 4, checkpointed and
 *    restored into a new state: u and the committed state bit-identical, and the solve resumed
 *    from it ends bit-identical to the uninterrupted one (u, state, Newton and PCG counts);
 *    a flipped byte, another hash, another mesh size, a truncated file and a foreign file are
 *    refused with their reasons. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_basis.h"
#include "highorder/ho_checkpoint.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_plastic.h"
#include "highorder/ho_vtu.h"
#include "../test_expect.h"
#include "../unit/unit_model.h"

/* Box [lo, hi] of nx x ny x nz hexahedra of order P with its elastic operator (nq = P + 1). */
static void box(int P, int nx, int ny, int nz, const double hi[3], dt_ho_mesh *m,
                dt_ho_elastic *op) {
  dt_ctx ctx = {0};
  const double lo[3] = {0, 0, 0};
  double *lam, *mu;
  CHECK(dt_ho_mesh_box(P, nx, ny, nz, lo, hi, NULL, NULL, m, &ctx) == DT_OK, "%s", ctx.msg);
  lam = malloc(sizeof(double) * m->n_elems), mu = malloc(sizeof(double) * m->n_elems);
  for (int e = 0; e < m->n_elems; e++) dt_ho_lame(200000.0, 0.3, lam + e, mu + e);
  CHECK(dt_ho_elastic_setup(m, 0, lam, mu, op, &ctx) == DT_OK, "%s", ctx.msg);
  free(lam);
  free(mu);
}

/* VTK's tables (vtkHigherOrderInterpolation.cxx): corners of the unit cube; edges as (first
 * corner, last corner, the axis along which they run); faces as (a corner, the two axes that
 * vary, fastest first, the fixed axis). */
static const double corner_x[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                      {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const int edge[12][3] = {{0, 1, 0}, {1, 2, 1}, {3, 2, 0}, {0, 3, 1}, {4, 5, 0}, {5, 6, 1},
                                {7, 6, 0}, {4, 7, 1}, {0, 4, 2}, {1, 5, 2}, {2, 6, 2}, {3, 7, 2}};
static const int face[6][4] = {{0, 1, 2, 0}, {1, 1, 2, 0}, {0, 0, 2, 1},
                               {3, 0, 2, 1}, {0, 0, 1, 2}, {4, 0, 1, 2}};

static void expect_at(const double *x, const double want[3], int P, int k, const char *what) {
  for (int d = 0; d < 3; d++)
    EXPECT(fabs(x[d] - want[d]) <= 1e-14, "P = %d, VTK node %d (%s): x[%d] = %.17g, want %.17g", P,
           k, what, d, x[d], want[d]);
}

static void vtk_order_p(int P) {
  dt_ctx ctx = {0};
  const double one[3] = {1, 1, 1};
  dt_ho_mesh m;
  dt_ho_elastic op;
  dt_ho_vtu v;
  int n = P - 1, npe = (P + 1) * (P + 1) * (P + 1), k = 8, *seen = calloc(npe, sizeof(int));
  double t[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES], x[3];

  box(P, 1, 1, 1, one, &m, &op);
  CHECK(dt_ho_vtu_setup(&m, &op, &v, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_ho_gauss_lobatto(P + 1, t, w, &ctx) == DT_OK, "%s", ctx.msg);
  for (int a = 0; a <= P; a++)
    for (int b = 0; b <= P; b++)
      for (int c = 0; c <= P; c++) {
        int id = dt_ho_vtk_hex_node(P, a, b, c);
        EXPECT(id >= 0 && id < npe && !seen[id]++, "P = %d: (%d, %d, %d) -> %d", P, a, b, c, id);
      }
#define NODE(j) (m.coords + 3 * v.conn[j])
  for (int j = 0; j < 8; j++) expect_at(NODE(j), corner_x[j], P, j, "corner");
  for (int e = 0; e < 12; e++)
    for (int i = 1; i <= n; i++, k++) {
      memcpy(x, corner_x[edge[e][0]], sizeof x);
      x[edge[e][2]] = 0.5 * (1.0 + t[i]);
      EXPECT(corner_x[edge[e][1]][edge[e][2]] == 1.0, "edge %d runs backwards", e);
      expect_at(NODE(k), x, P, k, "edge");
    }
  for (int f = 0; f < 6; f++)
    for (int j = 1; j <= n; j++)
      for (int i = 1; i <= n; i++, k++) {
        memcpy(x, corner_x[face[f][0]], sizeof x);
        x[face[f][1]] = 0.5 * (1.0 + t[i]), x[face[f][2]] = 0.5 * (1.0 + t[j]);
        expect_at(NODE(k), x, P, k, "face");
      }
  for (int c = 1; c <= n; c++)
    for (int b = 1; b <= n; b++)
      for (int a = 1; a <= n; a++, k++) {
        double want[3] = {0.5 * (1 + t[a]), 0.5 * (1 + t[b]), 0.5 * (1 + t[c])};
        expect_at(NODE(k), want, P, k, "body");
      }
#undef NODE
  EXPECT(k == npe, "P = %d: %d nodes placed of %d", P, k, npe);
  for (int e = 0; e < m.n_elems; e++)
    EXPECT(v.types[e] == 72 && v.offsets[e] == (e + 1) * npe, "cell %d", e);
  free(seen);
  dt_ho_vtu_free(&v);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
}

static double poly(int P, const double x[3]) {
  return 1.0 + pow(x[0], P) - 2.0 * pow(x[1], P) * x[2] + x[0] * x[1] * x[2];
}

/* The field (and 3 times it) at the Gauss points in a state array's layout: 3 components per
 * point, the field as component 1, 3 x it as component 2. */
static double *field_at_points(int P, const dt_ho_mesh *m, int nq) {
  dt_ctx ctx = {0};
  int P1 = P + 1, nq3 = nq * nq * nq;
  double g[DT_HO_MAX_QPOINTS], gw[DT_HO_MAX_QPOINTS];
  double *pts = calloc((size_t)3 * nq3 * m->n_elems, sizeof(double));
  CHECK(dt_ho_gauss_legendre(nq, g, gw, &ctx) == DT_OK, "%s", ctx.msg);
  for (int e = 0; e < m->n_elems; e++) {
    const double *lo = m->coords + 3 * m->elem_nodes[(size_t)e * P1 * P1 * P1];
    const double *hi =
        m->coords + 3 * m->elem_nodes[(size_t)e * P1 * P1 * P1 + dt_ho_lex(P, P, P, P)];
    for (int q = 0; q < nq3; q++) {
      int qi[3] = {q % nq, (q / nq) % nq, q / (nq * nq)};
      double x[3];
      for (int d = 0; d < 3; d++) x[d] = lo[d] + 0.5 * (1.0 + g[qi[d]]) * (hi[d] - lo[d]);
      pts[((size_t)e * 3 + 1) * nq3 + q] = poly(P, x);
      pts[((size_t)e * 3 + 2) * nq3 + q] = 3.0 * poly(P, x);
    }
  }
  return pts;
}

static void interp_p(int P) {
  dt_ctx ctx = {0};
  const double hi[3] = {1.0, 1.0, 0.5};
  dt_ho_mesh m;
  dt_ho_elastic op;
  dt_ho_vtu v;
  double *pts, *nodal, err = 0.0, scale = 0.0;

  box(P, 2, 2, 1, hi, &m, &op);
  CHECK(dt_ho_vtu_setup(&m, &op, &v, &ctx) == DT_OK, "%s", ctx.msg);
  pts = field_at_points(P, &m, op.nq);
  nodal = malloc(sizeof(double) * 2 * m.n_nodes);
  dt_ho_vtu_nodal(&v, &m, pts, 3, 1, 2, nodal);
  for (int n = 0; n < m.n_nodes; n++) {
    double f = poly(P, m.coords + 3 * n);
    err = fmax(err, fmax(fabs(nodal[2 * n] - f), fabs(nodal[2 * n + 1] - 3 * f) / 3));
    scale = fmax(scale, fabs(f));
  }
  err /= scale;
  EXPECT(err <= 1e-12, "P = %d: nodal values off by %.3e relative", P, err);
  free(pts);
  free(nodal);
  dt_ho_vtu_free(&v);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
}

/* The bar of the checkpoint section: [0,2] x [0,1]^2, 2 x 1 x 1 at P = 2, x = 0 fixed, x = 2
 * pulled to 0.6 % strain (past yield at 0.225 %) in 4 increments. */
typedef struct bar {
  dt_ho_mesh m;
  dt_ho_elastic op;
  dt_ho_plastic pl;
  unsigned char *fixed;
  double *u_presc, *u;
  dt_ho_newton_report rep;
} bar;

static void bar_setup(bar *b) {
  dt_ctx ctx = {0};
  const double hi[3] = {2, 1, 1};
  dt_material_params mat;
  int *em;
  memset(b, 0, sizeof *b);
  box(2, 2, 1, 1, hi, &b->m, &b->op);
  memset(&mat, 0, sizeof mat);
  mat.E = 200000.0, mat.nu = 0.3, mat.plastic = DT_PLASTIC_J2, mat.iso = DT_ISO_LINEAR;
  mat.sigma_y0 = 450.0, mat.H = 6600.0;
  em = calloc(b->m.n_elems, sizeof(int));
  CHECK(dt_ho_plastic_setup(&b->op, 1, &mat, em, &b->pl, &ctx) == DT_OK, "%s", ctx.msg);
  free(em);
  b->fixed = calloc(3 * (size_t)b->m.n_nodes, 1);
  b->u_presc = calloc(3 * (size_t)b->m.n_nodes, sizeof(double));
  b->u = calloc(3 * (size_t)b->m.n_nodes, sizeof(double));
  for (int n = 0; n < b->m.n_nodes; n++) {
    const double *x = b->m.coords + 3 * n;
    if (x[0] == 0.0) b->fixed[3 * n] = b->fixed[3 * n + 1] = b->fixed[3 * n + 2] = 1;
    if (x[0] == 2.0) b->fixed[3 * n] = 1, b->u_presc[3 * n] = 0.012;
  }
}

static void bar_free(bar *b) {
  dt_ho_plastic_free(&b->pl);
  dt_ho_elastic_free(&b->op);
  dt_ho_mesh_free(&b->m);
  free(b->fixed), free(b->u_presc), free(b->u);
}

static int stop_after_2(const dt_ho_progress *ev, void *user) {
  (void)user;
  return ev->kind == DT_HO_INCREMENT_DONE && ev->increment == 2;
}

static dt_status bar_solve(bar *b, int first, dt_ho_progress_fn stop, dt_ctx *ctx) {
  dt_ho_newton_problem pb = {b->fixed, b->u_presc, NULL};
  dt_ho_newton_opts o = {.n_increments = 4,
                         .max_iter = 30,
                         .rtol = 1e-10,
                         .dtol = 1e-6,
                         .pcg_rtol = 1e-12,
                         .pcg_max_it = 2000,
                         .progress = stop,
                         .first_increment = first};
  return dt_ho_plastic_solve(&b->pl, &pb, &o, b->u, &b->rep, ctx);
}

static int same(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

static int same_state(const dt_ho_plastic *a, const dt_ho_plastic *b) {
  size_t np = (size_t)a->n_points;
  return same(a->hist_c, b->hist_c, sizeof(double) * DT_MAT_STATE_DOUBLES * np) &&
         same(a->stress_c, b->stress_c, sizeof(double) * 6 * np) &&
         same(a->strain_c, b->strain_c, sizeof(double) * 6 * np);
}

/* A refusal of the checkpoint at path: DT_ERR_INPUT with words in the message. */
static void expect_refused(const char *path, const dt_ho_checkpoint *expect, const char *words) {
  dt_ctx ctx = {0};
  dt_ho_checkpoint ck;
  dt_status st = dt_ho_checkpoint_read(path, expect, &ck, NULL, NULL, &ctx);
  EXPECT(st == DT_ERR_INPUT && strstr(ctx.msg, words), "want \"%s\": status %d, %s", words, st,
         ctx.msg);
}

static void write_bytes(const char *path, const char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(data, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

static void refusals(const char *path, const dt_ho_checkpoint *ck) {
  char bad[600];
  dt_ho_checkpoint other = *ck;
  FILE *f = fopen(path, "rb");
  long n;
  char *data;
  CHECK(f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0, "cannot size %s", path);
  data = malloc(n);
  rewind(f);
  CHECK(fread(data, 1, n, f) == (size_t)n, "cannot read %s", path);
  fclose(f);
  snprintf(bad, sizeof bad, "%s.bad", path);
  data[n / 2] ^= 0x10;
  write_bytes(bad, data, n);
  expect_refused(bad, ck, "corrupt (its checksum differs)");
  data[n / 2] ^= 0x10;
  write_bytes(bad, data, n - 100);
  expect_refused(bad, ck, "truncated");
  write_bytes(bad, "{\"not\": \"a checkpoint\"}\n", 24);
  expect_refused(bad, ck, "is not an order-P checkpoint");
  other.hash ^= 1;
  expect_refused(path, &other, "another job or mesh");
  other = *ck;
  other.n_elems++;
  expect_refused(path, &other, "another mesh");
  remove(bad);
  free(data);
}

static void checkpoint(void) {
  dt_ctx ctx = {0};
  bar ref, cut, back;
  dt_ho_checkpoint ck, got;
  const char *path = "test_ho_results.ckpt";
  size_t nu;

  bar_setup(&ref), bar_setup(&cut), bar_setup(&back);
  nu = sizeof(double) * 3 * ref.m.n_nodes;
  CHECK(bar_solve(&ref, 0, NULL, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(bar_solve(&cut, 0, stop_after_2, &ctx) == DT_ERR_CANCELLED && cut.rep.increments == 2,
         "the stop after increment 2: %s", ctx.msg);
  memset(&ck, 0, sizeof ck);
  ck.order = 2, ck.nq = 3, ck.n_elems = cut.m.n_elems, ck.n_nodes = cut.m.n_nodes;
  ck.n_increments = 4, ck.kept = 2, ck.hash = 0x1234abcdULL;
  for (int k = 0; k < 2; k++) {
    ck.row[k].newton = cut.rep.newton[k], ck.row[k].plastic = cut.rep.n_plastic[k];
    ck.row[k].pcg = 10 + k, ck.row[k].residual = 1e-11 * (k + 1);
  }
  CHECK(dt_ho_checkpoint_write(path, &ck, cut.u, &cut.pl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_ho_checkpoint_read(path, &ck, &got, back.u, &back.pl, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(got.kept == 2 && same(got.row, ck.row, 2 * sizeof ck.row[0]), "rows differ");
  EXPECT(same(back.u, cut.u, nu) && same_state(&back.pl, &cut.pl),
         "the restored state differs from the saved one");
  EXPECT(same(back.pl.hist_t, back.pl.hist_c,
              sizeof(double) * DT_MAT_STATE_DOUBLES * (size_t)back.pl.n_points),
         "the restored trial state is not the committed one");
  back.rep = cut.rep; /* the caller's rows of the kept increments */
  CHECK(bar_solve(&back, 2, NULL, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(same(back.u, ref.u, nu) && same_state(&back.pl, &ref.pl),
         "the resumed solve differs from the uninterrupted one");
  EXPECT(back.rep.increments == 4 && back.rep.newton_total == ref.rep.newton_total &&
             back.rep.pcg_total == ref.rep.pcg_total &&
             same(back.rep.newton, ref.rep.newton, sizeof ref.rep.newton),
         "counts: resumed %d Newton, %d PCG; uninterrupted %d, %d", back.rep.newton_total,
         back.rep.pcg_total, ref.rep.newton_total, ref.rep.pcg_total);
  EXPECT(ref.rep.n_plastic[3] > 0, "the bar stays elastic");
  refusals(path, &ck);
  remove(path);
  bar_free(&ref), bar_free(&cut), bar_free(&back);
}

int main(int argc, char **argv) {
  const char *s = argc > 1 ? argv[1] : "";
  if (!strcmp(s, "vtk_order"))
    for (int P = 1; P <= 8; P++) vtk_order_p(P);
  else if (!strcmp(s, "interp"))
    for (int P = 1; P <= 4; P++) interp_p(P);
  else if (!strcmp(s, "checkpoint"))
    checkpoint();
  else {
    fprintf(stderr, "usage: %s vtk_order|interp|checkpoint\n", argv[0]);
    return 2;
  }
  if (!failures) printf("%s: ok\n", s);
  return failures != 0;
}
