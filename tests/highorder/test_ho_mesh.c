/* Conforming order-P hexahedral meshes (solver/highorder/ho_mesh.h).
 *
 * References, all hand checks or exact by construction:
 *  - node count of an nx x ny x nz box: (P nx + 1)(P ny + 1)(P nz + 1), exact;
 *  - every element node's global coordinates equal the trilinear image of that element's own
 *    Lobatto point (a, b, c), to 1e-13: a node numbered with the wrong face orientation would
 *    hold another element's point;
 *  - no two global nodes coincide (closer than 1e-9): shared nodes are numbered once;
 *  - two unit cubes side by side, each in all 24 rotations of its local numbering (so the
 *    shared face is seen in all 8 relative orientations): a global polynomial of degree P per
 *    direction sampled at the nodes is reproduced by both elements' interpolants at points of
 *    the shared face, to 1e-12 (conformity);
 *  - face marking equals the coordinate predicate on a box face, exact;
 *  - bad input (order, ids, inverted/mirrored element, a face shared three times, overflow)
 *    fails with DT_ERR_INPUT and a message naming the element. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_basis.h"
#include "highorder/ho_mesh.h"
#include "../test_expect.h"

/* hex8 reference corners in element/element.h order */
static const int corner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                 {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

static void trilinear(const double *vx, const int *conn, const double xi[3], double x[3]) {
  x[0] = x[1] = x[2] = 0.0;
  for (int k = 0; k < 8; k++) {
    double w = 1.0;
    for (int d = 0; d < 3; d++) w *= 0.5 * (1.0 + corner[k][d] * xi[d]);
    for (int d = 0; d < 3; d++) x[d] += w * vx[3 * conn[k] + d];
  }
}

/* The 24 proper rotations as signed permutation matrices with determinant +1. */
static int rotations(int R[24][3][3]) {
  static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  int n = 0;
  for (int p = 0; p < 6; p++)
    for (int s = 0; s < 8; s++) {
      int M[3][3] = {{0}};
      for (int i = 0; i < 3; i++) M[i][perm[p][i]] = (s >> i) & 1 ? -1 : 1;
      int det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
      if (det == 1) memcpy(R[n++], M, sizeof(M));
    }
  return n;
}

/* conn renumbered so that new local corner k is the old corner at R c_k. */
static void rotate_conn(const int R[3][3], const int *in, int *out) {
  for (int k = 0; k < 8; k++) {
    int c[3];
    for (int i = 0; i < 3; i++)
      c[i] = R[i][0] * corner[k][0] + R[i][1] * corner[k][1] + R[i][2] * corner[k][2];
    for (int j = 0; j < 8; j++)
      if (corner[j][0] == c[0] && corner[j][1] == c[1] && corner[j][2] == c[2]) out[k] = in[j];
  }
}

/* Element nodes sit at their own trilinear Lobatto points; no two global nodes coincide. */
static void check_geometry(const dt_ho_mesh *m, const double *vx, const int *hex8,
                           const char *what) {
  int P = m->order, P1 = P + 1, bad = 0;
  double node[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES];
  dt_ctx ctx = {0};
  dt_ho_gauss_lobatto(P1, node, w, &ctx);
  for (int e = 0; e < m->n_elems && !bad; e++)
    for (int c = 0; c < P1; c++)
      for (int b = 0; b < P1; b++)
        for (int a = 0; a < P1; a++) {
          double xi[3] = {node[a], node[b], node[c]}, x[3];
          trilinear(vx, hex8 + 8 * e, xi, x);
          int n = m->elem_nodes[e * P1 * P1 * P1 + dt_ho_lex(P, a, b, c)];
          EXPECT(n >= 0 && n < m->n_nodes, "%s: element %d node id %d", what, e, n);
          if (n < 0 || n >= m->n_nodes) return;
          double d = fabs(x[0] - m->coords[3 * n]) + fabs(x[1] - m->coords[3 * n + 1]) +
                     fabs(x[2] - m->coords[3 * n + 2]);
          if (d > 1e-13) bad = 1;
          EXPECT(d <= 1e-13, "%s P %d: element %d node (%d,%d,%d) = global %d is off by %g", what,
                 P, e, a, b, c, n, d);
        }
  for (int i = 0; i < m->n_nodes && !bad; i++)
    for (int j = 0; j < i; j++) {
      const double *x = m->coords + 3 * i, *y = m->coords + 3 * j;
      double d = fabs(x[0] - y[0]) + fabs(x[1] - y[1]) + fabs(x[2] - y[2]);
      if (d < 1e-9) {
        EXPECT(d >= 1e-9, "%s P %d: global nodes %d and %d coincide", what, P, i, j);
        bad = 1;
        break;
      }
    }
}

static void check_box_counts(void) {
  const int dims[3][3] = {{1, 1, 1}, {2, 3, 1}, {3, 2, 2}};
  const double lo[3] = {0, 0, 0}, hi[3] = {3, 2, 1};
  for (int P = 1; P <= DT_HO_MESH_MAX_ORDER; P++)
    for (int k = 0; k < 3; k++) {
      int nx = dims[k][0], ny = dims[k][1], nz = dims[k][2], nv, ne, *hex8 = NULL;
      double *vx = NULL;
      dt_ho_mesh m;
      dt_ctx ctx = {0};
      EXPECT(dt_ho_hex8_box(nx, ny, nz, lo, hi, &nv, &vx, &ne, &hex8, &ctx) == DT_OK, "%s",
             ctx.msg);
      EXPECT(dt_ho_mesh_build(P, nv, vx, ne, hex8, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
      EXPECT(m.n_nodes == (P * nx + 1) * (P * ny + 1) * (P * nz + 1), "P %d box %dx%dx%d: %d nodes",
             P, nx, ny, nz, m.n_nodes);
      if (P <= 4) check_geometry(&m, vx, hex8, "box");
      dt_ho_mesh_free(&m);
      dt_free(vx);
      dt_free(hex8);
    }
}

/* A polynomial of degree P in each coordinate (the tensor space Q_P of an affine element). */
static double poly(int P, const double *x) {
  double f = 1.0;
  for (int d = 0; d < 3; d++) f *= pow(x[d] - 0.3 - 0.1 * d, P) + 0.5 * x[d] + 0.25;
  return f;
}

/* Element interpolant of nodal values f at reference point xi. */
static double interpolate(const dt_ho_mesh *m, int e, const double *node, const double *f,
                          const double xi[3]) {
  int P = m->order, P1 = P + 1;
  double L[3][DT_HO_MAX_NODES], s = 0.0;
  for (int d = 0; d < 3; d++) dt_ho_lagrange(P1, node, xi[d], L[d], NULL);
  for (int c = 0; c < P1; c++)
    for (int b = 0; b < P1; b++)
      for (int a = 0; a < P1; a++)
        s += L[0][a] * L[1][b] * L[2][c] *
             f[m->elem_nodes[e * P1 * P1 * P1 + dt_ho_lex(P, a, b, c)]];
  return s;
}

/* Reference point of x in an axis-aligned (affine) hex8, by Newton on the trilinear map. */
static void invert(const double *vx, const int *conn, const double x[3], double xi[3]) {
  xi[0] = xi[1] = xi[2] = 0.0;
  for (int it = 0; it < 4; it++) {
    double y[3], J[3][3], h = 1e-6;
    trilinear(vx, conn, xi, y);
    for (int j = 0; j < 3; j++) {
      double xp[3] = {xi[0], xi[1], xi[2]}, yp[3];
      xp[j] += h;
      trilinear(vx, conn, xp, yp);
      for (int i = 0; i < 3; i++) J[i][j] = (yp[i] - y[i]) / h;
    }
    /* affine elements: J is a signed permutation times 1/2, so J^-1 = 4 J^T */
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++) xi[j] -= 4.0 * J[i][j] * (y[i] - x[i]);
  }
}

static void check_two_elements(void) {
  int R[24][3][3], nrot = rotations(R);
  double vx[12 * 3];
  const int base[2][8] = {{0, 1, 4, 3, 6, 7, 10, 9}, {1, 2, 5, 4, 7, 8, 11, 10}};
  EXPECT(nrot == 24, "%d rotations", nrot);
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 3; i++) {
        double *p = vx + 3 * (i + 3 * j + 6 * k);
        p[0] = i;
        p[1] = j;
        p[2] = k;
      }
  for (int P = 2; P <= 4; P++) {
    double node[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES];
    dt_ctx ctx = {0};
    dt_ho_gauss_lobatto(P + 1, node, w, &ctx);
    for (int r0 = 0; r0 < nrot; r0++)
      for (int r1 = 0; r1 < nrot; r1++) {
        int hex8[16];
        dt_ho_mesh m;
        rotate_conn(R[r0], base[0], hex8);
        rotate_conn(R[r1], base[1], hex8 + 8);
        EXPECT(dt_ho_mesh_build(P, 12, vx, 2, hex8, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
        EXPECT(m.n_nodes == (2 * P + 1) * (P + 1) * (P + 1), "P %d rotations %d %d: %d nodes", P,
               r0, r1, m.n_nodes);
        if (r0 % 5 == 0 || r1 % 7 == 0) check_geometry(&m, vx, hex8, "two cubes");
        double *f = malloc(sizeof(double) * m.n_nodes), err = 0.0;
        for (int n = 0; n < m.n_nodes; n++) f[n] = poly(P, m.coords + 3 * n);
        for (int s = 0; s < 5; s++) {
          double x[3] = {1.0, 0.13 + 0.17 * s, 0.91 - 0.19 * s}, xi0[3], xi1[3];
          invert(vx, hex8, x, xi0);
          invert(vx, hex8 + 8, x, xi1);
          double f0 = interpolate(&m, 0, node, f, xi0), f1 = interpolate(&m, 1, node, f, xi1);
          double d = fmax(fabs(f0 - f1), fabs(f0 - poly(P, x)));
          if (d > err) err = d;
        }
        EXPECT(err <= 1e-12, "P %d rotations %d %d: interpolants differ by %g on the shared face",
               P, r0, r1, err);
        free(f);
        dt_ho_mesh_free(&m);
      }
  }
}

/* A 3x3x3 box whose elements each get a different rotation of their local numbering and whose
 * interior vertices are moved: same node count as the box, geometry consistent. */
static void check_mixed_orientations(void) {
  int R[24][3][3], nv, ne, *hex8 = NULL;
  double *vx = NULL;
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  dt_ctx ctx = {0};
  rotations(R);
  EXPECT(dt_ho_hex8_box(3, 3, 3, lo, hi, &nv, &vx, &ne, &hex8, &ctx) == DT_OK, "%s", ctx.msg);
  for (int e = 0; e < ne; e++) {
    int tmp[8];
    rotate_conn(R[(7 * e + 3) % 24], hex8 + 8 * e, tmp);
    memcpy(hex8 + 8 * e, tmp, sizeof(tmp));
  }
  for (int v = 0; v < nv; v++) {
    double *p = vx + 3 * v;
    int interior = p[0] > 0 && p[0] < 1 && p[1] > 0 && p[1] < 1 && p[2] > 0 && p[2] < 1;
    for (int d = 0; interior && d < 3; d++) p[d] += 0.06 * sin(7.0 * v + 2.0 * d);
  }
  for (int P = 1; P <= 4; P++) {
    dt_ho_mesh m;
    EXPECT(dt_ho_mesh_build(P, nv, vx, ne, hex8, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(m.n_nodes == (3 * P + 1) * (3 * P + 1) * (3 * P + 1), "P %d: %d nodes", P, m.n_nodes);
    check_geometry(&m, vx, hex8, "rotated 3x3x3");
    dt_ho_mesh_free(&m);
  }
  dt_free(vx);
  dt_free(hex8);
}

static int on_x0(const double x[3], void *user) {
  (void)user;
  return fabs(x[0]) < 1e-12;
}

static void shift(const double x[3], double y[3], void *user) {
  (void)user;
  y[0] = x[0];
  y[1] = x[1] + 0.1 * x[0] * x[0];
  y[2] = x[2];
}

static void check_marks(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1};
  dt_ho_mesh m;
  dt_ctx ctx = {0};
  EXPECT(dt_ho_mesh_box(3, 2, 2, 2, lo, hi, shift, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  unsigned char *a = calloc(m.n_nodes, 1), *b = calloc(m.n_nodes, 1);
  int elem[4], face[4], n = 0, same = 1, count = 0;
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 2; j++) {
      elem[n] = 2 * (j + 2 * k); /* i = 0 column */
      face[n++] = 5;             /* S6: xi = -1, the x = 0 side of a box element */
    }
  EXPECT(dt_ho_mesh_mark_faces(&m, n, elem, face, a, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_mesh_mark_where(&m, on_x0, NULL, b) == 7 * 7, "predicate count");
  for (int i = 0; i < m.n_nodes; i++) {
    same &= a[i] == b[i];
    count += a[i];
  }
  EXPECT(same && count == 49, "face marks differ from the x = 0 predicate (%d marked)", count);
  int bad_face = 6;
  dt_ctx bad = {0};
  EXPECT(dt_ho_mesh_mark_faces(&m, 1, elem, &bad_face, a, &bad) == DT_ERR_INPUT, "face 6 taken");
  free(a);
  free(b);
  dt_ho_mesh_free(&m);
}

static void expect_error(int order, int nv, const double *vx, int ne, const int *hex8,
                         const char *needle, const char *what) {
  dt_ho_mesh m;
  dt_ctx ctx = {0};
  dt_status rc = dt_ho_mesh_build(order, nv, vx, ne, hex8, NULL, NULL, &m, &ctx);
  EXPECT(rc == DT_ERR_INPUT, "%s: status %d", what, (int)rc);
  EXPECT(strstr(ctx.msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, ctx.msg, needle);
  EXPECT(m.elem_nodes == NULL && m.coords == NULL, "%s: arrays left allocated", what);
}

static void check_bad_input(void) {
  double vx[12 * 3];
  int hex8[16] = {0, 1, 4, 3, 6, 7, 10, 9, 1, 2, 5, 4, 7, 8, 11, 10};
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 3; i++) {
        double *p = vx + 3 * (i + 3 * j + 6 * k);
        p[0] = i;
        p[1] = j;
        p[2] = k;
      }
  expect_error(0, 12, vx, 2, hex8, "order 0 is outside 1..8", "order 0");
  expect_error(9, 12, vx, 2, hex8, "order 9 is outside 1..8", "order 9");
  int out_of_range[16];
  memcpy(out_of_range, hex8, sizeof(hex8));
  out_of_range[13] = 12;
  expect_error(2, 12, vx, 2, out_of_range, "element 1: vertex 6 of the hex8 is 12", "vertex id");
  int repeated[16];
  memcpy(repeated, hex8, sizeof(hex8));
  repeated[10] = repeated[9];
  expect_error(2, 12, vx, 2, repeated, "element 1: vertices 2 and 3", "repeated vertex");
  /* the second element mirrored in its local numbering (x reversed): left-handed, inverted */
  int mirrored[16];
  memcpy(mirrored, hex8, sizeof(hex8));
  const int flip[8] = {1, 0, 3, 2, 5, 4, 7, 6};
  for (int k = 0; k < 8; k++) mirrored[8 + k] = hex8[8 + flip[k]];
  expect_error(2, 12, vx, 2, mirrored, "element 1 is inverted", "mirrored element");
  /* the first element listed twice: its face with the second is then shared three times */
  int tripled[24];
  memcpy(tripled, hex8, sizeof(hex8));
  memcpy(tripled + 16, hex8, 8 * sizeof(int));
  expect_error(2, 12, vx, 3, tripled, "share the face with vertices 1 4 7 10", "tripled face");
  /* (P+1)^3 n_elems past INT_MAX is refused before the connectivity is read */
  int many = INT_MAX / 729 + 1;
  expect_error(8, 12, vx, many, hex8, "more than int node ids allow", "overflow");
}

int main(void) {
  check_box_counts();
  check_two_elements();
  check_mixed_orientations();
  check_marks();
  check_bad_input();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
