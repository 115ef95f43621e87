/* Gmsh's high-order hexahedra read into order-P meshes (solver/highorder/ho_mesh_gmsh.h).
 *
 * The meshes are made at test time by Debian's gmsh from tests/highorder/data/ho_*.geo (a quarter
 * of a thick cylindrical shell, a box, the box in tetrahedra) at orders 1-4; without gmsh on
 * PATH the test is skipped (exit 77). Usage: test_ho_mesh_gmsh DATA_DIR WORK_DIR [section].
 *
 * References and tolerances:
 *  - round trip: every Gmsh node equals the imported element's geometry (its Lagrange
 *    interpolant through the order-P Lobatto nodes) at the node's equispaced reference point,
 *    to 1e-10 of the element size (exact polynomial reproduction, for P = Pg and resampled to
 *    Pg + 2);
 *  - conformity: every node of every element equals that element's Gmsh geometry at the
 *    node's Lobatto point, to 1e-12 of the element size (a node shared by two elements is set
 *    from the first; the second must agree);
 *  - volume: sum of the measures of the elements (Gauss-Legendre, P + 2 points) against the
 *    exact pi/4 (1.5^2 - 1^2) 0.5; the error must fall with P and at P = 4 be below 1e-4 of
 *    P = 1's;
 *  - groups: the inner and outer faces lie on r = 1 and 1.5 within the chord sag of the
 *    arc's 4 elements (Pg = 1) or a tenth of it (Pg >= 2: gmsh puts the order-Pg nodes on the
 *    circle), the x0 face on x = 0 to 1e-14; face and node counts (arc 4P + 1 by height 2P + 1);
 *    a curve group (4P + 1 nodes) and a point group (the vertex at (1, 0, 0));
 *  - formats: the order-3 shell as 4.1 binary, 2.2 ASCII and 2.2 binary reads as the 4.1
 *    ASCII file (numbering and groups exactly, coordinates to 1e-14: ASCII has 16 digits);
 *  - box: the same nodes as dt_ho_mesh_box (node count and coordinates as sets, 1e-13), and
 *    each Gmsh node at the trilinear image of its reference point from our node-order map
 *    (this checks the map against what gmsh writes);
 *  - refine: dt_ho_gmsh_read_refined, refine 1 equal to the plain read bit for bit; refine 2, 3
 *    at P = Pg, Pg + 1: node count of an order-P mesh on the refined block, every node on the
 *    parent's Gmsh geometry (1e-12), volume of the unrefined mesh of that order (1e-12), group
 *    faces times refine^2 and their node counts;
 *  - errors: mixed orders, tetrahedra, an inverted element, a group quadrangle that is no
 *    element face, a missing file: the status and message fragments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_basis.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_mesh_gmsh.h"
#include "highorder/ho_projection.h"
#include "../test_expect.h"

static const char *data_dir, *work_dir;
static int verbose;

static const double RI = 1.0, RO = 1.5, HEIGHT = 0.5;

/* gmsh -3 -order P on data/<geo>.geo into work/<out>.msh (format msh4 ASCII, or fmt, e.g.
 * "msh22 -bin"); 0 on success. */
static int run_gmsh_as(const char *geo, int order, const char *fmt, const char *out, char *path,
                       size_t n) {
  char cmd[2048];
  snprintf(path, n, "%s/%s.msh", work_dir, out);
  snprintf(cmd, sizeof cmd, "gmsh -3 -order %d -format %s -o '%s' '%s/%s.geo' > '%s/%s.log' 2>&1",
           order, fmt, path, data_dir, geo, work_dir, out);
  return system(cmd);
}

static int run_gmsh(const char *geo, int order, const char *out, char *path, size_t n) {
  return run_gmsh_as(geo, order, "msh4", out, path, n);
}

/* Largest corner-to-corner distance of element h of the source: its size. */
static double elem_size(const dt_ho_gmsh_source *s, int h) {
  int ng = (s->order + 1) * (s->order + 1) * (s->order + 1);
  const double *x = s->x + 3 * (size_t)h * ng;
  double d = 0.0;
  for (int a = 0; a < 8; a++)
    for (int b = 0; b < a; b++) {
      double r = 0.0;
      for (int k = 0; k < 3; k++)
        r += (x[3 * a + k] - x[3 * b + k]) * (x[3 * a + k] - x[3 * b + k]);
      d = fmax(d, sqrt(r));
    }
  return d;
}

/* The order-P element h of m at reference point xi: sum of its nodes times the Lobatto
 * Lagrange polynomials. */
static void mesh_eval(const dt_ho_mesh *m, int h, const double xi[3], double x[3]) {
  int P = m->order, P1 = P + 1;
  double gll[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES], L[3][DT_HO_MAX_NODES];
  dt_ho_gauss_lobatto(P1, gll, w, NULL);
  for (int d = 0; d < 3; d++) dt_ho_lagrange(P1, gll, xi[d], L[d], NULL);
  x[0] = x[1] = x[2] = 0.0;
  for (int c = 0; c < P1; c++)
    for (int b = 0; b < P1; b++)
      for (int a = 0; a < P1; a++) {
        const double *y =
            m->coords + 3 * (size_t)m->elem_nodes[(size_t)h * P1 * P1 * P1 + dt_ho_lex(P, a, b, c)];
        double s = L[0][a] * L[1][b] * L[2][c];
        for (int d = 0; d < 3; d++) x[d] += s * y[d];
      }
}

static double dist(const double *a, const double *b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
              (a[2] - b[2]) * (a[2] - b[2]));
}

/* Round trip and conformity of m (order P) against the file's geometry s: the two largest
 * relative deviations. */
static void geometry_errors(const dt_ho_mesh *m, const dt_ho_gmsh_source *s, double *trip,
                            double *conf) {
  int Pg = s->order, ng = (Pg + 1) * (Pg + 1) * (Pg + 1), P1 = m->order + 1;
  int ijk[3 * 729];
  double gll[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES];
  dt_ho_gmsh_hex_lattice(Pg, ijk);
  dt_ho_gauss_lobatto(P1, gll, w, NULL);
  *trip = *conf = 0.0;
  for (int h = 0; h < m->n_elems; h++) {
    const double *xg = s->x + 3 * (size_t)h * ng;
    double size = elem_size(s, h), x[3];
    for (int n = 0; n < ng; n++) {
      double xi[3] = {-1.0 + 2.0 * ijk[3 * n] / Pg, -1.0 + 2.0 * ijk[3 * n + 1] / Pg,
                      -1.0 + 2.0 * ijk[3 * n + 2] / Pg};
      mesh_eval(m, h, xi, x);
      *trip = fmax(*trip, dist(x, xg + 3 * n) / size);
    }
    for (int c = 0; c < P1; c++)
      for (int b = 0; b < P1; b++)
        for (int a = 0; a < P1; a++) {
          double xi[3] = {gll[a], gll[b], gll[c]};
          int id = m->elem_nodes[(size_t)h * P1 * P1 * P1 + dt_ho_lex(m->order, a, b, c)];
          dt_ho_gmsh_hex_eval(Pg, xg, xi, x);
          *conf = fmax(*conf, dist(x, m->coords + 3 * (size_t)id) / size);
        }
  }
}

/* Volume of m: the sum of its element measures (Gauss-Legendre, P + 2 points). */
static double volume(const dt_ho_mesh *m) {
  int P1 = m->order + 1, np = P1 * P1 * P1;
  int *order = calloc((size_t)m->n_elems, sizeof *order);
  double *xyz = malloc(3 * sizeof(double) * np * m->n_elems), v = 0.0;
  dt_ho_proj *p = NULL;
  dt_ctx ctx = {0};
  for (int e = 0; e < m->n_elems; e++) {
    order[e] = m->order;
    for (int a = 0; a < np; a++)
      memcpy(xyz + 3 * ((size_t)e * np + a),
             m->coords + 3 * (size_t)m->elem_nodes[(size_t)e * np + a], 3 * sizeof(double));
  }
  EXPECT(dt_ho_proj_create(3, m->n_elems, order, xyz, 0, &p, &ctx) == DT_OK, "%s", ctx.msg);
  for (int e = 0; p && e < m->n_elems; e++) v += dt_ho_proj_measure(p, e);
  dt_ho_proj_destroy(&p);
  free(order), free(xyz);
  return v;
}

/* Group checks on the shell of order P: node counts and where the nodes lie. */
static void check_shell_groups(const dt_ho_mesh *m, const dt_ho_gmsh_groups *G, int Pg, int P) {
  const char *names[3] = {"inner", "outer", "x0"};
  double sag = RO * (1.0 - cos(M_PI / 16.0)); /* an arc of 4 elements, one chord per element */
  for (int k = 0; k < 3; k++) {
    const dt_ho_gmsh_group *g = dt_ho_gmsh_group_find(G, names[k]);
    double dev = 0.0;
    EXPECT(g != NULL, "P = %d: no group %s", P, names[k]);
    if (!g) continue;
    EXPECT(g->dim == 2 && g->n_faces == (k < 2 ? 8 : 4), "P = %d: %s: dim %d, %d faces", P,
           names[k], g->dim, g->n_faces);
    EXPECT(g->n_nodes == (k < 2 ? 4 * P + 1 : 2 * P + 1) * (2 * P + 1), "P = %d: %s has %d nodes",
           P, names[k], g->n_nodes);
    for (int i = 0; i < g->n_nodes; i++) {
      const double *x = m->coords + 3 * (size_t)g->nodes[i];
      dev = fmax(dev, k == 2 ? fabs(x[0]) : fabs(hypot(x[0], x[1]) - (k ? RO : RI)));
    }
    EXPECT(dev <= (k == 2 ? 1e-14 : (Pg == 1 ? 1.01 : 0.1) * sag), "P = %d: %s off by %.3e", P,
           names[k], dev);
  }
  const dt_ho_gmsh_group *v = dt_ho_gmsh_group_find(G, "solid"),
                         *e = dt_ho_gmsh_group_find(G, "inner_edge"),
                         *c = dt_ho_gmsh_group_find(G, "corner");
  EXPECT(v && v->n_elems == m->n_elems && v->n_nodes == m->n_nodes, "P = %d: group solid", P);
  EXPECT(e && e->dim == 1 && e->n_nodes == 4 * P + 1, "P = %d: group inner_edge", P);
  EXPECT(c && c->dim == 0 && c->n_nodes == 1 &&
             dist(m->coords + 3 * (size_t)c->nodes[0], (double[3]){RI, 0, 0}) < 1e-14,
         "P = %d: group corner", P);
}

static void check_shell(void) {
  double vex = M_PI / 4.0 * (RO * RO - RI * RI) * HEIGHT, err[5] = {0};
  for (int Pg = 1; Pg <= 4; Pg++) {
    char path[1024], name[32];
    snprintf(name, sizeof name, "shell_p%d", Pg);
    EXPECT(run_gmsh("ho_shell", Pg, name, path, sizeof path) == 0, "gmsh failed on %s", name);
    for (int P = Pg; P <= Pg + 2; P += 2) {
      dt_ho_mesh m = {0};
      dt_ho_gmsh_groups G = {0};
      dt_ho_gmsh_source s = {0};
      dt_ctx ctx = {0};
      double trip = 0.0, conf = 0.0;
      dt_status rc = dt_ho_gmsh_read(path, P == Pg ? 0 : P, &m, &G, &s, &ctx);
      EXPECT(rc == DT_OK, "%s", ctx.msg);
      if (rc != DT_OK) continue;
      EXPECT(m.order == P && s.order == Pg && m.n_elems == 16, "order %d/%d, %d elements", m.order,
             s.order, m.n_elems);
      EXPECT(m.n_nodes == (4 * P + 1) * (2 * P + 1) * (2 * P + 1), "%d nodes", m.n_nodes);
      geometry_errors(&m, &s, &trip, &conf);
      EXPECT(trip <= 1e-10, "Pg = %d, P = %d: round trip %.3e", Pg, P, trip);
      EXPECT(conf <= 1e-12, "Pg = %d, P = %d: conformity %.3e", Pg, P, conf);
      check_shell_groups(&m, &G, Pg, P);
      double v = volume(&m);
      if (P == Pg) err[Pg] = fabs(v - vex) / vex;
      if (P != Pg) /* resampling is exact: the same volume to round-off */
        EXPECT(fabs(v - vex) / vex <= err[Pg] + 1e-13, "resampled volume %.15g", v);
      if (verbose)
        printf("shell Pg = %d P = %d: nodes %d, round trip %.2e, conformity %.2e, volume %.15f "
               "(rel. error %.3e)\n",
               Pg, P, m.n_nodes, trip, conf, v, fabs(v - vex) / vex);
      dt_ho_mesh_free(&m), dt_ho_gmsh_groups_free(&G), dt_ho_gmsh_source_free(&s);
    }
  }
  for (int P = 2; P <= 4; P++)
    EXPECT(err[P] < err[P - 1], "volume error P = %d %.3e not below P = %d's %.3e", P, err[P],
           P - 1, err[P - 1]);
  EXPECT(err[4] < 1e-4 * err[1], "volume error P = 4 %.3e, P = 1 %.3e", err[4], err[1]);
}

/* The order-3 shell written as 4.1 binary, 2.2 ASCII and 2.2 binary reads as the 4.1 ASCII
 * file does: the same numbering and groups, coordinates to 1e-14 (gmsh's ASCII has 16
 * significant digits, its binary the doubles themselves). */
static void check_formats(void) {
  const char *fmts[4] = {"msh4", "msh4 -bin", "msh22", "msh22 -bin"};
  dt_ho_mesh ref = {0};
  dt_ho_gmsh_groups Gref = {0};
  for (int f = 0; f < 4; f++) {
    char path[1024], name[32];
    dt_ho_mesh m = {0};
    dt_ho_gmsh_groups G = {0};
    dt_ctx ctx = {0};
    snprintf(name, sizeof name, "shell_fmt%d", f);
    EXPECT(run_gmsh_as("ho_shell", 3, fmts[f], name, path, sizeof path) == 0, "gmsh -format %s",
           fmts[f]);
    EXPECT(dt_ho_mesh_read_gmsh(path, 0, f ? &m : &ref, f ? &G : &Gref, &ctx) == DT_OK, "%s: %s",
           fmts[f], ctx.msg);
    if (f == 0) continue;
    double dev = 0.0;
    int same = m.n_nodes == ref.n_nodes && m.n_elems == ref.n_elems && G.n == Gref.n &&
               memcmp(m.elem_nodes, ref.elem_nodes, sizeof(int) * 64 * (size_t)m.n_elems) == 0;
    for (int n = 0; same && n < m.n_nodes; n++)
      dev = fmax(dev, dist(m.coords + 3 * n, ref.coords + 3 * n));
    EXPECT(same && dev <= 1e-14, "-format %s reads differently from msh4 (%.3e)", fmts[f], dev);
    for (int i = 0; i < G.n && G.n == Gref.n; i++)
      EXPECT(!strcmp(G.group[i].name, Gref.group[i].name) &&
                 G.group[i].n_nodes == Gref.group[i].n_nodes,
             "-format %s: group %d", fmts[f], i);
    dt_ho_mesh_free(&m), dt_ho_gmsh_groups_free(&G);
  }
  dt_ho_mesh_free(&ref), dt_ho_gmsh_groups_free(&Gref);
}

static int cmp_xyz(const void *pa, const void *pb) {
  const double *a = pa, *b = pb;
  for (int k = 2; k >= 0; k--) /* z, then y, then x, on the box's lattice of distinct values */
    if (fabs(a[k] - b[k]) > 1e-9) return a[k] < b[k] ? -1 : 1;
  return 0;
}

static void check_box(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1};
  for (int P = 1; P <= 4; P++) {
    char path[1024], name[32];
    dt_ho_mesh m = {0}, ref = {0};
    dt_ho_gmsh_source s = {0};
    dt_ctx ctx = {0};
    int ijk[3 * 729], ng = (P + 1) * (P + 1) * (P + 1);
    double dev = 0.0, order_dev = 0.0;
    snprintf(name, sizeof name, "box_p%d", P);
    EXPECT(run_gmsh("ho_box", P, name, path, sizeof path) == 0, "gmsh failed on %s", name);
    EXPECT(dt_ho_gmsh_read(path, 0, &m, NULL, &s, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_ho_mesh_box(P, 2, 2, 2, lo, hi, NULL, NULL, &ref, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(m.n_nodes == ref.n_nodes && m.n_elems == ref.n_elems, "P = %d: %d/%d nodes", P,
           m.n_nodes, ref.n_nodes);
    if (m.n_nodes == ref.n_nodes && m.n_nodes > 0) {
      qsort(m.coords, (size_t)m.n_nodes, 3 * sizeof(double), cmp_xyz);
      qsort(ref.coords, (size_t)ref.n_nodes, 3 * sizeof(double), cmp_xyz);
      for (int n = 0; n < m.n_nodes; n++)
        dev = fmax(dev, dist(m.coords + 3 * n, ref.coords + 3 * n));
      EXPECT(dev <= 1e-13, "P = %d: node sets differ by %.3e", P, dev);
    }
    dt_ho_gmsh_hex_lattice(P, ijk); /* Gmsh node n at the trilinear image of its lattice point */
    for (int h = 0; h < s.n_elems; h++) {
      const double *xg = s.x + 3 * (size_t)h * ng;
      for (int n = 0; n < ng; n++) {
        double x[3] = {0, 0, 0};
        for (int c = 0; c < 8; c++) {
          int cc[3] = {c == 1 || c == 2 || c == 5 || c == 6, c == 2 || c == 3 || c == 6 || c == 7,
                       c >= 4};
          double wgt = 1.0;
          for (int d = 0; d < 3; d++)
            wgt *= cc[d] ? (double)ijk[3 * n + d] / P : 1.0 - (double)ijk[3 * n + d] / P;
          for (int d = 0; d < 3; d++) x[d] += wgt * xg[3 * c + d];
        }
        order_dev = fmax(order_dev, dist(x, xg + 3 * n));
      }
    }
    EXPECT(order_dev <= 1e-13, "P = %d: a Gmsh node is %.3e off its reference point", P, order_dev);
    if (verbose)
      printf("box P = %d: %d nodes, node sets %.2e, node order %.2e\n", P, m.n_nodes, dev,
             order_dev);
    dt_ho_mesh_free(&m), dt_ho_mesh_free(&ref), dt_ho_gmsh_source_free(&s);
  }
}

/* A hand-written 2.2 file: a hexahedron of order 1 and one of order 2. */
static void write_mixed(const char *path) {
  int ijk[3 * 27];
  FILE *f = fopen(path, "w");
  if (!f) return;
  dt_ho_gmsh_hex_lattice(2, ijk);
  fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n35\n");
  for (int n = 0; n < 8; n++)
    fprintf(f, "%d %d %d %d\n", n + 1, ijk[3 * n] / 2, ijk[3 * n + 1] / 2, ijk[3 * n + 2] / 2);
  for (int n = 0; n < 27; n++)
    fprintf(f, "%d %g %g %g\n", n + 9, 2.0 + 0.5 * ijk[3 * n], 0.5 * ijk[3 * n + 1],
            0.5 * ijk[3 * n + 2]);
  fprintf(f, "$EndNodes\n$Elements\n2\n7 5 2 1 1 1 2 3 4 5 6 7 8\n9 12 2 1 1");
  for (int n = 0; n < 27; n++) fprintf(f, " %d", n + 9);
  fprintf(f, "\n$EndElements\n");
  fclose(f);
}

/* A unit cube in one hexahedron (2.2 ASCII) with the given element lines. */
static void write_cube(const char *path, const char *elements) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  fprintf(f,
          "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n1 0 0 0\n2 1 0 0\n3 1 1 0\n"
          "4 0 1 0\n5 0 0 1\n6 1 0 1\n7 1 1 1\n8 0 1 1\n$EndNodes\n$Elements\n%s"
          "$EndElements\n",
          elements);
  fclose(f);
}

static void expect_error(const char *path, dt_status want, const char *const *frags, int n) {
  dt_ho_mesh m = {0};
  dt_ho_gmsh_groups G = {0};
  dt_ctx ctx = {0};
  dt_status rc = dt_ho_mesh_read_gmsh(path, 0, &m, &G, &ctx);
  EXPECT(rc == want, "%s: status %d, want %d (%s)", path, (int)rc, (int)want, ctx.msg);
  for (int i = 0; i < n; i++)
    EXPECT(strstr(ctx.msg, frags[i]) != NULL, "message \"%s\" lacks \"%s\"", ctx.msg, frags[i]);
  EXPECT(m.n_nodes == 0 && m.coords == NULL && G.n == 0, "%s: output not left empty", path);
  if (verbose) printf("%s\n", ctx.msg);
}

static void check_errors(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/mixed.msh", work_dir);
  write_mixed(path);
  const char *mixed[] = {"mixed.msh:", "element 9 is a hexahedron of order 2 (Gmsh type 12)",
                         "element 7 one of order 1 (type 5)", "hexahedra of one order"};
  expect_error(path, DT_ERR_INPUT, mixed, 4);
  EXPECT(run_gmsh("ho_box_tet", 1, "box_tet", path, sizeof path) == 0, "gmsh failed on the tets");
  const char *tet[] = {
      "box_tet.msh:", "Gmsh element type 4 (4-node tetrahedron) is not a hexahedron",
      "only hexahedra (types 5, 12, 92-97) are read for order-P meshes"};
  expect_error(path, DT_ERR_INPUT, tet, 3);
  snprintf(path, sizeof path, "%s/inverted.msh", work_dir);
  write_cube(path, "1\n4 5 2 1 1 5 6 7 8 1 2 3 4\n"); /* top and bottom swapped */
  const char *inverted[] = {"inverted.msh:", "element 4 is inverted or degenerate"};
  expect_error(path, DT_ERR_INPUT, inverted, 2);
  snprintf(path, sizeof path, "%s/loose_quad.msh", work_dir);
  write_cube(path, "2\n1 5 2 1 1 1 2 3 4 5 6 7 8\n2 3 2 5 1 1 2 3 5\n");
  const char *loose[] = {
      "loose_quad.msh:",
      "physical group \"physical5\": quadrangle 2 is not a face of any hexahedron"};
  expect_error(path, DT_ERR_INPUT, loose, 2);
  snprintf(path, sizeof path, "%s/no_such.msh", work_dir);
  const char *missing[] = {"cannot open mesh", "no_such.msh"};
  expect_error(path, DT_ERR_IO, missing, 2);
}

/* Two reads give the same mesh and groups, bit for bit. */
static int same_mesh(const dt_ho_mesh *a, const dt_ho_mesh *b, const dt_ho_gmsh_groups *ga,
                     const dt_ho_gmsh_groups *gb) {
  size_t np = (size_t)(a->order + 1) * (a->order + 1) * (a->order + 1);
  if (a->order != b->order || a->n_elems != b->n_elems || a->n_nodes != b->n_nodes ||
      ga->n != gb->n)
    return 0;
  if (memcmp(a->elem_nodes, b->elem_nodes, np * a->n_elems * sizeof(int)) ||
      memcmp(a->coords, b->coords, 3 * (size_t)a->n_nodes * sizeof(double)))
    return 0;
  for (int i = 0; i < ga->n; i++) {
    const dt_ho_gmsh_group *x = &ga->group[i], *y = &gb->group[i];
    if (strcmp(x->name, y->name) || x->n_nodes != y->n_nodes || x->n_faces != y->n_faces ||
        x->n_elems != y->n_elems || memcmp(x->nodes, y->nodes, x->n_nodes * sizeof(int)) ||
        (x->n_faces && (memcmp(x->face_elem, y->face_elem, x->n_faces * sizeof(int)) ||
                        memcmp(x->face, y->face, x->n_faces * sizeof(int)))))
      return 0;
  }
  return 1;
}

/* Nodes of an order-P mesh on a structured nx x ny x nz hex8 block: vertices + edges (P - 1)
 * + faces (P - 1)^2 + cells (P - 1)^3. */
static long long block_nodes(int nx, int ny, int nz, int P) {
  long long V = (long long)(nx + 1) * (ny + 1) * (nz + 1), C = (long long)nx * ny * nz;
  long long E = (long long)nx * (ny + 1) * (nz + 1) + (long long)(nx + 1) * ny * (nz + 1) +
                (long long)(nx + 1) * (ny + 1) * nz;
  long long F =
      (long long)nx * ny * (nz + 1) + (long long)nx * (ny + 1) * nz + (long long)(nx + 1) * ny * nz;
  return V + E * (P - 1) + F * (P - 1) * (P - 1) + C * (P - 1) * (P - 1) * (P - 1);
}

/* Every node of every refined element against the parent's Gmsh geometry at the node's point of
 * the parent's reference cube (sub-hexahedron s of R along each axis): the largest deviation
 * relative to the parent's size. */
static double refined_conformity(const dt_ho_mesh *m, const dt_ho_gmsh_source *s, int R) {
  int Pg = s->order, ng = (Pg + 1) * (Pg + 1) * (Pg + 1), P1 = m->order + 1, R3 = R * R * R;
  double gll[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES], err = 0.0;
  dt_ho_gauss_lobatto(P1, gll, w, NULL);
  for (int e = 0; e < m->n_elems; e++) {
    int h = e / R3, sub[3] = {e % R, e / R % R, e / (R * R) % R};
    double size = elem_size(s, h), x[3];
    for (int c = 0; c < P1; c++)
      for (int b = 0; b < P1; b++)
        for (int a = 0; a < P1; a++) {
          int abc[3] = {a, b, c},
              id = m->elem_nodes[(size_t)e * P1 * P1 * P1 + dt_ho_lex(m->order, a, b, c)];
          double xi[3];
          for (int d = 0; d < 3; d++) xi[d] = -1.0 + (2.0 * sub[d] + 1.0 + gll[abc[d]]) / R;
          dt_ho_gmsh_hex_eval(Pg, s->x + 3 * (size_t)h * ng, xi, x);
          err = fmax(err, dist(x, m->coords + 3 * (size_t)id) / size);
        }
  }
  return err;
}

/* Refinement on reading (dt_ho_gmsh_read_refined) on the shell of Gmsh order Pg = 1, 2, 3:
 * refine 1 is dt_ho_gmsh_read bit for bit; refine 2 and 3 at P = Pg and Pg + 1 give 16 R^3
 * elements, the node count of an order-P mesh on the refined 4R x 2R x 2R block, every node on
 * the parent's Gmsh geometry (1e-12 of its size: curved stays curved), the volume of the
 * unrefined mesh of the same order to 1e-12 (P >= Pg: the geometry is exactly representable
 * and P + 2 Gauss points integrate its det J exactly), group faces times R^2, the group nodes
 * of the refined lattice, and a refinement of 0 or 9 refused. */
static void check_refine(void) {
  for (int Pg = 1; Pg <= 3; Pg++) {
    char path[1024], name[32];
    snprintf(name, sizeof name, "refine_p%d", Pg);
    EXPECT(run_gmsh("ho_shell", Pg, name, path, sizeof path) == 0, "gmsh failed on %s", name);
    for (int P = Pg; P <= Pg + 1; P++) {
      dt_ho_mesh m0 = {0}, m1 = {0};
      dt_ho_gmsh_groups G0 = {0}, G1 = {0};
      dt_ctx ctx = {0};
      EXPECT(dt_ho_gmsh_read(path, P, &m0, &G0, NULL, &ctx) == DT_OK, "%s", ctx.msg);
      EXPECT(dt_ho_gmsh_read_refined(path, P, 1, &m1, &G1, NULL, &ctx) == DT_OK, "%s", ctx.msg);
      EXPECT(same_mesh(&m0, &m1, &G0, &G1), "Pg = %d P = %d: refine 1 differs from the plain read",
             Pg, P);
      double v0 = volume(&m0);
      dt_ho_mesh_free(&m1), dt_ho_gmsh_groups_free(&G1);
      for (int R = 2; R <= 3; R++) {
        dt_ho_mesh m = {0};
        dt_ho_gmsh_groups G = {0};
        dt_ho_gmsh_source src = {0};
        dt_status rc = dt_ho_gmsh_read_refined(path, P, R, &m, &G, &src, &ctx);
        EXPECT(rc == DT_OK, "%s", ctx.msg);
        if (rc != DT_OK) continue;
        long long want = block_nodes(4 * R, 2 * R, 2 * R, P);
        EXPECT(m.n_elems == 16 * R * R * R && src.n_elems == 16, "%d elements", m.n_elems);
        EXPECT(m.n_nodes == want, "Pg = %d P = %d R = %d: %d nodes, %lld expected", Pg, P, R,
               m.n_nodes, want);
        double conf = refined_conformity(&m, &src, R), v = volume(&m);
        EXPECT(conf <= 1e-12, "Pg = %d P = %d R = %d: conformity %.3e", Pg, P, R, conf);
        EXPECT(fabs(v - v0) <= 1e-12 * v0, "Pg = %d P = %d R = %d: volume %.16g, unrefined %.16g",
               Pg, P, R, v, v0);
        const char *names[3] = {"inner", "outer", "x0"};
        for (int k = 0; k < 3; k++) {
          const dt_ho_gmsh_group *g = dt_ho_gmsh_group_find(&G, names[k]),
                                 *g0 = dt_ho_gmsh_group_find(&G0, names[k]);
          int RP = R * P;
          EXPECT(g && g0 && g->n_faces == R * R * g0->n_faces &&
                     g->n_nodes == (k < 2 ? 4 * RP + 1 : 2 * RP + 1) * (2 * RP + 1),
                 "Pg = %d P = %d R = %d: group %s: %d faces, %d nodes", Pg, P, R, names[k],
                 g ? g->n_faces : -1, g ? g->n_nodes : -1);
        }
        const dt_ho_gmsh_group *vol = dt_ho_gmsh_group_find(&G, "solid"),
                               *edge = dt_ho_gmsh_group_find(&G, "inner_edge"),
                               *corner = dt_ho_gmsh_group_find(&G, "corner");
        EXPECT(vol && vol->n_elems == m.n_elems && vol->n_nodes == m.n_nodes, "group solid");
        EXPECT(edge && edge->n_nodes == 4 * R * P + 1, "group inner_edge");
        EXPECT(corner && corner->n_nodes == 1 &&
                   dist(m.coords + 3 * (size_t)corner->nodes[0], (double[3]){RI, 0, 0}) < 1e-14,
               "group corner");
        if (verbose)
          printf("refine Pg = %d P = %d R = %d: %d elements, %d nodes (block %lld), conformity "
                 "%.2e, volume %.15f vs %.15f (%.1e)\n",
                 Pg, P, R, m.n_elems, m.n_nodes, want, conf, v, v0, fabs(v - v0) / v0);
        dt_ho_mesh_free(&m), dt_ho_gmsh_groups_free(&G), dt_ho_gmsh_source_free(&src);
      }
      dt_ho_mesh_free(&m0), dt_ho_gmsh_groups_free(&G0);
    }
    for (int R = 0; R <= 9; R += 9) {
      dt_ho_mesh m = {0};
      dt_ctx ctx = {0};
      EXPECT(dt_ho_gmsh_read_refined(path, 0, R, &m, NULL, NULL, &ctx) == DT_ERR_INPUT &&
                 strstr(ctx.msg, "refinement") != NULL,
             "refine %d: %s", R, ctx.msg);
    }
  }
}

int main(int argc, char **argv) {
  const char *only = argc > 3 ? argv[3] : NULL;
  if (argc < 3) {
    fprintf(stderr,
            "usage: test_ho_mesh_gmsh DATA_DIR WORK_DIR [shell|formats|box|errors|refine]\n");
    return 2;
  }
  data_dir = argv[1], work_dir = argv[2];
  verbose = getenv("DT_VERBOSE") != NULL;
  if (system("gmsh -version > /dev/null 2>&1") != 0) {
    printf("gmsh is not on PATH: skipped\n");
    return 77;
  }
  if (!only || !strcmp(only, "shell")) check_shell();
  if (!only || !strcmp(only, "formats")) check_formats();
  if (!only || !strcmp(only, "box")) check_box();
  if (!only || !strcmp(only, "errors")) check_errors();
  if (!only || !strcmp(only, "refine")) check_refine();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures != 0;
}
