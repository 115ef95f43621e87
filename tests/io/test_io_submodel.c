/* CalculiX decks as engineers write them: the .frd reader (solver/io/frd_read.c), submodels
 * (*SUBMODEL, *BOUNDARY, SUBMODEL) and a material changed between steps (*CHANGE SOLID
 * SECTION). Decks are written here, solved on the backend DUCTILE_BACKEND names (cpu when unset),
 * and their .frd files read back.
 *
 *   - round trip: a C3D20 block stretched by prescribed displacements (uniaxial stress:
 *     u = (e x, -nu e y, -nu e z), e = 1e-3, which the element reproduces exactly) is solved and
 *     its .frd read back: the same node ids and coordinates, element types and node lists, and
 *     the analytical field, to 1e-8 (the file's E12.5 keeps 6 digits of values up to 2e-3);
 *     a short-format file (5-digit ids) written by hand reads the same way;
 *   - malformed files: a truncated file, a bad number, a binary file, an element or a result
 *     naming a node the file lacks: each an error naming file:line; an element of a type
 *     ductile lacks (a beam) is skipped;
 *   - submodel hand check: a C3D8 submodel inside that block, not aligned with its nodes, its
 *     boundary nodes driven from the global .frd, reproduces the uniform field at every node to
 *     1e-8; a driven node outside the global mesh, a step the file lacks and a missing file are
 *     errors naming the node, the step, the file;
 *   - material change: a cantilever whose material's E doubles in step 2 under the same load
 *     ends step 2 with half its step-1 displacements (CalculiX's answer: its elastic stresses are
 *     C (eps - eps_p) of the total strain, so the new stiffness applies to the whole strain;
 *     ccx 2.20's changesolidsection halves E and doubles u), to 1e-5 of the largest; and with a
 *     change of half its elements it ends step 2 where a one-step run with those materials from
 *     the start ends, to 1e-5.
 * With --suite DIR instead: every .frd.ref of CalculiX's test suite in DIR reads.
 * Usage: test_io_submodel <scratch dir> [--suite DIR]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "backend/backend.h"
#include "io/frd_read.h"
#include "io/import.h"
#include "io_fixture.h"

#define STRETCH 1e-3
#define NU 0.3

static const char *dir;
static const char *backend;

static void write_text(const char *name, const char *text) {
  char path[1200];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* A box of nx x ny x nz C3D20 (quadratic) or C3D8 elements over [o, o + L], node sets on its
 * faces (X0, X1, Y0, Z0) and on its whole boundary (SURF), element set EALL and the first half of
 * the elements along x EHALF, into f. Node (i, j, k) of the grid of half steps is
 * 1 + i + (2nx+1)(j + (2ny+1) k); a C3D8 box uses the even ones. */
static void box(FILE *f, int quad, int nx, int ny, int nz, const double o[3], const double L[3]) {
  int Nx = 2 * nx + 1, Ny = 2 * ny + 1, Nz = 2 * nz + 1, id = 0;
#define NID(i, j, k) (1 + (i) + Nx * ((j) + Ny * (k)))
  static const int c[8][3] = {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0},
                              {0, 0, 2}, {2, 0, 2}, {2, 2, 2}, {0, 2, 2}};
  static const int mid[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                 {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const char *sets[5] = {"X0", "X1", "Y0", "Z0", "SURF"};
  fprintf(f, "*NODE, NSET=NALL\n");
  for (int k = 0; k < Nz; k++)
    for (int j = 0; j < Ny; j++)
      for (int i = 0; i < Nx; i++) {
        int odd = (i & 1) + (j & 1) + (k & 1);
        if (odd > (quad ? 1 : 0)) continue;
        fprintf(f, "%d, %.17g, %.17g, %.17g\n", NID(i, j, k), o[0] + L[0] * i / (Nx - 1),
                o[1] + L[1] * j / (Ny - 1), o[2] + L[2] * k / (Nz - 1));
      }
  fprintf(f, "*ELEMENT, TYPE=%s, ELSET=EALL\n", quad ? "C3D20" : "C3D8");
  for (int ek = 0; ek < nz; ek++)
    for (int ej = 0; ej < ny; ej++)
      for (int ei = 0; ei < nx; ei++) {
        fprintf(f, "%d", ++id);
        for (int a = 0; a < 8; a++)
          fprintf(f, ", %d", NID(2 * ei + c[a][0], 2 * ej + c[a][1], 2 * ek + c[a][2]));
        for (int m = 0; quad && m < 12; m++) {
          const int *p = c[mid[m][0]], *q = c[mid[m][1]];
          fprintf(f, "%s%d", m == 7 ? ",\n" : ", ",
                  NID(2 * ei + (p[0] + q[0]) / 2, 2 * ej + (p[1] + q[1]) / 2,
                      2 * ek + (p[2] + q[2]) / 2));
        }
        fprintf(f, "\n");
      }
  fprintf(f, "*ELSET, ELSET=EHALF, GENERATE\n1, %d\n", nx * ny * nz / 2);
  for (int s = 0; s < 5; s++) {
    int n = 0;
    fprintf(f, "*NSET, NSET=%s\n", sets[s]);
    for (int k = 0; k < Nz; k++)
      for (int j = 0; j < Ny; j++)
        for (int i = 0; i < Nx; i++) {
          int odd = (i & 1) + (j & 1) + (k & 1), on = 0;
          if (odd > (quad ? 1 : 0)) continue;
          if (s == 0) on = i == 0;
          if (s == 1) on = i == Nx - 1;
          if (s == 2) on = j == 0;
          if (s == 3) on = k == 0;
          if (s == 4) on = i == 0 || j == 0 || k == 0 || i == Nx - 1 || j == Ny - 1 || k == Nz - 1;
          if (on) fprintf(f, "%d%s", NID(i, j, k), ++n % 8 ? ", " : "\n");
        }
    if (n % 8) fprintf(f, "\n");
  }
#undef NID
}

/* Import and solve dir/name.inp into dir/name.out (its .frd: dir/name.out/name.frd). */
static dt_status solve(const char *name, dt_ctx *ctx) {
  char path[1200], out[1200];
  dt_model *m = NULL;
  dt_run_options ro;
  dt_run_summary sum;
  dt_status rc;
  snprintf(path, sizeof path, "%s/%s.inp", dir, name);
  snprintf(out, sizeof out, "%s/%s.out", dir, name);
  dt_ctx_reset(ctx);
  rc = dt_import_file(path, NULL, NULL, &m, ctx);
  if (rc != DT_OK) return rc;
  memset(&ro, 0, sizeof ro);
  ro.backend = backend;
  ro.outdir = out;
  ro.job_name = name;
  ro.threads = 1;
  rc = dt_analysis_run(m, &ro, &sum, ctx);
  CHECK(rc != DT_OK || sum.completed, "%s did not complete: %s", name, sum.message);
  dt_model_destroy(&m);
  return rc;
}

static dt_frd_file *read_result(const char *name) {
  char path[1200];
  dt_frd_file *f = NULL;
  dt_ctx ctx;
  dt_ctx_reset(&ctx);
  snprintf(path, sizeof path, "%s/%s.out/%s.frd", dir, name, name);
  CHECK(dt_frd_read(path, &f, &ctx) == DT_OK, "reading %s: %s", path, ctx.msg);
  return f;
}

static void exact(const double *x, double *u) {
  u[0] = STRETCH * x[0], u[1] = -NU * STRETCH * x[1], u[2] = -NU * STRETCH * x[2];
}

/* The global model: a 2 x 2 x 2 C3D20 block [0, 2]^3 in uniaxial stress. */
static void global_model(void) {
  char path[1200];
  const double o[3] = {0, 0, 0}, L[3] = {2, 2, 2};
  FILE *f;
  dt_ctx ctx;
  snprintf(path, sizeof path, "%s/global.inp", dir);
  f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  box(f, 1, 2, 2, 2, o, L);
  fprintf(f,
          "*MATERIAL, NAME=EL\n*ELASTIC\n210000., %g\n"
          "*SOLID SECTION, ELSET=EALL, MATERIAL=EL\n"
          "*STEP\n*STATIC\n*BOUNDARY\nX0, 1, 1\nY0, 2, 2\nZ0, 3, 3\nX1, 1, 1, %g\n"
          "*NODE FILE\nU\n*END STEP\n",
          NU, 2 * STRETCH);
  fclose(f);
  CHECK(solve("global", &ctx) == DT_OK, "global model: %s", ctx.msg);
}

static void test_round_trip(void) {
  char path[1200];
  dt_model *m = NULL;
  dt_frd_file *f = read_result("global");
  dt_ctx ctx;
  double err = 0;
  dt_ctx_reset(&ctx);
  snprintf(path, sizeof path, "%s/global.inp", dir);
  CHECK(dt_import_file(path, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(f->n_nodes == m->n_nodes && f->n_elems == m->n_elems && f->n_disp == 1 &&
            f->disp[0].step == 1 && f->disp[0].inc == 1 && fabs(f->disp[0].time - 1.0) < 1e-12,
        "sizes: %d nodes (%d), %d elements (%d), %d DISP blocks, step %d", f->n_nodes, m->n_nodes,
        f->n_elems, m->n_elems, f->n_disp, f->n_disp ? f->disp[0].step : -1);
  for (int i = 0; i < m->n_nodes; i++) {
    CHECK(f->node_id[i] == m->node_id[i], "node %d: id %lld, expected %lld", i,
          (long long)f->node_id[i], (long long)m->node_id[i]);
    for (int k = 0; k < 3; k++)
      CHECK(fabs(f->x[3 * i + k] - m->x[3 * i + k]) <= 5e-6 * 2,
            "node %lld coordinate %d: %g, expected %g", (long long)m->node_id[i], k,
            f->x[3 * i + k], m->x[3 * i + k]);
  }
  for (int e = 0; e < m->n_elems; e++) {
    CHECK(f->elem_id[e] == m->elem_id[e] && f->elem_type[e] == m->elem_type[e],
          "element %d: id %lld type %d, expected %lld type %d", e, (long long)f->elem_id[e],
          f->elem_type[e], (long long)m->elem_id[e], m->elem_type[e]);
    for (int a = 0; a < 20; a++)
      CHECK(f->node_id[f->conn[f->elem_ptr[e] + a]] == m->node_id[m->conn[m->elem_ptr[e] + a]],
            "element %lld node %d: %lld, expected %lld (ductile's order)", (long long)m->elem_id[e],
            a, (long long)f->node_id[f->conn[f->elem_ptr[e] + a]],
            (long long)m->node_id[m->conn[m->elem_ptr[e] + a]]);
  }
  for (int i = 0; i < f->n_nodes; i++) {
    double u[3];
    exact(f->x + 3 * i, u);
    for (int k = 0; k < 3; k++) err = fmax(err, fabs(f->disp[0].u[3 * i + k] - u[k]));
  }
  CHECK(err <= 1e-8, "DISP read back differs from the uniform field by %.3e (tolerance 1e-8)", err);
  CHECK(dt_frd_step_disp(f, 1) == &f->disp[0] && dt_frd_step_disp(f, 2) == NULL,
        "the DISP of step 1 and none of step 2");
  dt_frd_destroy(&f);
  dt_model_destroy(&m);
}

/* A one-element file written by hand in the short format (5-digit ids), or with one line changed
 * (line `bad`, 1-based, replaced by `with`; 0: as it is). */
static const char *const SHORT_LINES[] = {
    "    1C",
    "    1UPGM               by hand",
    "    2C                             8                                     0",
    " -1    1 0.00000E+00 0.00000E+00 0.00000E+00",
    " -1    2 1.00000E+00 0.00000E+00 0.00000E+00",
    " -1    3 1.00000E+00 1.00000E+00 0.00000E+00",
    " -1    4 0.00000E+00 1.00000E+00 0.00000E+00",
    " -1    5 0.00000E+00 0.00000E+00 1.00000E+00",
    " -1    6 1.00000E+00 0.00000E+00 1.00000E+00",
    " -1    7 1.00000E+00 1.00000E+00 1.00000E+00",
    " -1    8 0.00000E+00 1.00000E+00 1.00000E+00",
    " -3",
    "    3C                             1                                     0",
    " -1    7    1    0    1",
    " -2    1    2    3    4    5    6    7    8",
    " -3",
    "    1PSTEP                         1           1           2",
    "  100CL  101 1.000000000           8                     0    2           0",
    " -4  DISP        4    1",
    " -5  D1          1    2    1    0",
    " -5  D2          1    2    2    0",
    " -5  D3          1    2    3    0",
    " -5  ALL         1    2    0    0    1ALL",
    " -1    7 1.00000E-03 2.00000E-03-3.00000E-03",
    " -3",
    " 9999",
    NULL};

static dt_status read_short(int bad, const char *with, int stop, dt_frd_file **f, dt_ctx *ctx) {
  char path[1200];
  FILE *fp;
  snprintf(path, sizeof path, "%s/short.frd", dir);
  fp = fopen(path, "w");
  CHECK(fp != NULL, "cannot write %s", path);
  for (int i = 0; SHORT_LINES[i] && (!stop || i + 1 < stop); i++)
    fprintf(fp, "%s\n", i + 1 == bad ? with : SHORT_LINES[i]);
  fclose(fp);
  dt_ctx_reset(ctx);
  return dt_frd_read(path, f, ctx);
}

static void expect_error(int bad, const char *with, int stop, const char *where, const char *what) {
  dt_frd_file *f = NULL;
  dt_ctx ctx;
  dt_status rc = read_short(bad, with, stop, &f, &ctx);
  CHECK(rc == DT_ERR_INPUT && f == NULL && strstr(ctx.msg, where) && strstr(ctx.msg, what),
        "line %d as '%s': expected an input error naming '%s' and '%s', got %d '%s'", bad,
        with ? with : "", where, what, rc, ctx.msg);
}

static void test_short_and_malformed(void) {
  dt_frd_file *f = NULL;
  dt_ctx ctx;
  CHECK(read_short(0, NULL, 0, &f, &ctx) == DT_OK, "short format: %s", ctx.msg);
  CHECK(f->n_nodes == 8 && f->n_elems == 1 && f->elem_id[0] == 7 &&
            f->elem_type[0] == DT_ELEM_HEX8 && f->conn[6] == 6 && f->n_disp == 1 &&
            f->disp[0].step == 2 && f->disp[0].u[3 * 6 + 1] == 2e-3 &&
            f->disp[0].u[3 * 6 + 2] == -3e-3 && f->disp[0].u[0] == 0.0,
        "short format read wrongly");
  dt_frd_destroy(&f);
  expect_error(0, NULL, 26, "short.frd:25", "closing 9999");
  expect_error(0, NULL, 25, "short.frd:24", "not closed");
  expect_error(0, NULL, 14, "short.frd:13", "not closed");
  expect_error(6, " -1    3 1.00000E+00 1.0x000E+00 0.00000E+00", 0, "short.frd:6",
               "is not a number");
  expect_error(14, " -1    7   1x    0    1", 0, "short.frd:14", "element type");
  /* an element of a type ductile lacks (11: a beam) is skipped, its nodes with it */
  CHECK(read_short(14, " -1    7   11    0    1", 0, &f, &ctx) == DT_OK && f->n_elems == 0 &&
            f->n_other == 1 && f->n_disp == 1,
        "a beam element is skipped: %s", ctx.msg);
  dt_frd_destroy(&f);
  expect_error(3, "    2C                             8                                     2", 0,
               "short.frd:3", "binary");
  expect_error(15, " -2    1    2    3    4    5    6    7    9", 0, "short.frd", "node 9");
  expect_error(24, " -1   12 1.00000E-03 2.00000E-03-3.00000E-03", 0, "short.frd:24", "node 12");
  expect_error(18, "  100CL  101 1.0000x0000           8", 0, "short.frd:18", "100CL time");
}

static const char *const SUB_TAIL =
    "*MATERIAL, NAME=EL\n*ELASTIC\n210000., 0.3\n"
    "*SOLID SECTION, ELSET=EALL, MATERIAL=EL\n"
    "*SUBMODEL, TYPE=NODE, INPUT=global.frd\nSURF\n"
    "*STEP\n*STATIC\n*BOUNDARY, SUBMODEL, STEP=%d\nSURF, 1, 3\n*NODE FILE\nU\n*END STEP\n";

static void submodel_deck(const char *name, const double o[3], const double L[3], int step) {
  char path[1200];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s.inp", dir, name);
  f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  box(f, 0, 3, 2, 4, o, L);
  fprintf(f, SUB_TAIL, step);
  fclose(f);
}

static void test_submodel(void) {
  const double o[3] = {0.3, 0.2, 0.5}, L[3] = {0.8, 0.7, 1.2}, far[3] = {0.3, 0.2, 1.5};
  char copy[1200], src[1200];
  dt_frd_file *f = NULL;
  dt_ctx ctx;
  double err = 0, umax = 0;
  /* the submodel reads global.frd beside it, as CalculiX's test script leaves it */
  snprintf(src, sizeof src, "%s/global.out/global.frd", dir);
  snprintf(copy, sizeof copy, "%s/global.frd", dir);
  CHECK(rename(src, copy) == 0, "cannot move %s", src);
  submodel_deck("sub", o, L, 1);
  CHECK(solve("sub", &ctx) == DT_OK, "submodel: %s", ctx.msg);
  f = read_result("sub");
  for (int i = 0; i < f->n_nodes; i++) {
    double u[3];
    exact(f->x + 3 * i, u);
    for (int k = 0; k < 3; k++)
      err = fmax(err, fabs(f->disp[0].u[3 * i + k] - u[k])), umax = fmax(umax, fabs(u[k]));
  }
  CHECK(err <= 1e-8 && umax > 1e-3, "the submodel of the uniform field differs by %.3e", err);
  printf("submodel of the uniform field: %d nodes, max |u - exact| = %.2e (|u| up to %.2e)\n",
         f->n_nodes, err, umax);
  dt_frd_destroy(&f);

  submodel_deck("sub_far", far, L, 1); /* reaches z = 2.7, past the global block */
  CHECK(solve("sub_far", &ctx) == DT_ERR_INPUT && strstr(ctx.msg, "sub_far.inp:") &&
            strstr(ctx.msg, "lies outside every element of the global model") &&
            strstr(ctx.msg, "node "),
        "a node outside the global mesh: %s", ctx.msg);
  submodel_deck("sub_step", o, L, 2);
  CHECK(solve("sub_step", &ctx) == DT_ERR_INPUT && strstr(ctx.msg, "sub_step.inp:") &&
            strstr(ctx.msg, "no displacements (DISP) of step 2"),
        "a step the global file lacks: %s", ctx.msg);
  CHECK(rename(copy, src) == 0, "cannot move %s back", copy);
  CHECK(solve("sub", &ctx) == DT_ERR_IO && strstr(ctx.msg, "global.frd") &&
            strstr(ctx.msg, "*SUBMODEL"),
        "a missing global file: %s", ctx.msg);
}

/* A C3D8 cantilever 4 x 1 x 1 under an end load; step 2 changes `changed`'s material to EL2
 * (E doubled), or, with steps = 1, starts with the materials the change leaves. */
static void cantilever(const char *name, const char *changed, int steps) {
  char path[1200];
  const double o[3] = {0, 0, 0}, L[3] = {4, 1, 1};
  FILE *f;
  snprintf(path, sizeof path, "%s/%s.inp", dir, name);
  f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  box(f, 0, 8, 2, 2, o, L);
  fprintf(f, "*MATERIAL, NAME=EL\n*ELASTIC\n210000., 0.3\n*MATERIAL, NAME=EL2\n*ELASTIC\n"
             "420000., 0.3\n");
  if (steps == 1)
    fprintf(f,
            "*ELSET, ELSET=EREST, GENERATE\n17, 32\n*SOLID SECTION, ELSET=%s, MATERIAL=EL2\n"
            "*SOLID SECTION, ELSET=EREST, MATERIAL=EL\n",
            changed);
  else
    fprintf(f, "*SOLID SECTION, ELSET=EALL, MATERIAL=EL\n");
  fprintf(f,
          "*STEP\n*STATIC\n*BOUNDARY\nX0, 1, 3\n*CLOAD\nX1, 2, -10.\n*NODE FILE\nU\n*END STEP\n");
  if (steps == 2)
    fprintf(f,
            "*STEP\n*STATIC\n*CHANGE SOLID SECTION, ELSET=%s, MATERIAL=EL2\n*NODE FILE\nU\n"
            "*END STEP\n",
            changed);
  fclose(f);
}

static void test_material_change(void) {
  dt_frd_file *a = NULL, *b = NULL;
  dt_ctx ctx;
  double err = 0, umax = 0;
  cantilever("change_all", "EALL", 2);
  CHECK(solve("change_all", &ctx) == DT_OK, "%s", ctx.msg);
  a = read_result("change_all");
  CHECK(a->n_disp == 2 && a->disp[1].step == 2, "two steps of DISP");
  for (int i = 0; i < 3 * a->n_nodes; i++)
    err = fmax(err, fabs(a->disp[1].u[i] - 0.5 * a->disp[0].u[i])),
    umax = fmax(umax, fabs(a->disp[0].u[i]));
  CHECK(umax > 0 && err <= 1e-5 * umax,
        "E doubled in step 2: u2 - u1/2 = %.3e of max |u1| %.3e (tolerance 1e-5)", err, umax);
  printf("E doubled in step 2: max |u2 - u1/2| = %.2e, max |u1| = %.3e\n", err, umax);
  dt_frd_destroy(&a);

  cantilever("change_half", "EHALF", 2);
  cantilever("fresh_half", "EHALF", 1);
  CHECK(solve("change_half", &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(solve("fresh_half", &ctx) == DT_OK, "%s", ctx.msg);
  a = read_result("change_half");
  b = read_result("fresh_half");
  err = umax = 0;
  for (int i = 0; i < 3 * a->n_nodes; i++)
    err = fmax(err, fabs(a->disp[1].u[i] - b->disp[0].u[i])),
    umax = fmax(umax, fabs(b->disp[0].u[i]));
  CHECK(umax > 0 && err <= 1e-5 * umax,
        "half the elements changed: step 2 differs from a fresh run by %.3e of %.3e", err, umax);
  printf("half the elements changed: max |u2 - u_fresh| = %.2e, max |u| = %.3e\n", err, umax);
  dt_frd_destroy(&a);
  dt_frd_destroy(&b);

  write_text("change_bad.inp",
             "*NODE\n1,0,0,0\n2,1,0,0\n3,1,1,0\n4,0,1,0\n5,0,0,1\n6,1,0,1\n7,1,1,1\n8,0,1,1\n"
             "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1,1,2,3,4,5,6,7,8\n"
             "*MATERIAL, NAME=EL\n*ELASTIC\n1000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=EL\n"
             "*STEP\n*STATIC\n*CHANGE SOLID SECTION, ELSET=EALL, MATERIAL=NOPE\n*END STEP\n");
  CHECK(solve("change_bad", &ctx) == DT_ERR_INPUT && strstr(ctx.msg, "change_bad.inp:18") &&
            strstr(ctx.msg, "unknown material 'NOPE'"),
        "an unknown material: %s", ctx.msg);
}

/* Every NAME.frd.ref[.gz] of CalculiX's test suite in `suite` reads (unpacked by gzip into the
 * scratch folder): a reader of what ccx writes, not only of what ductile writes. Returns 77
 * (ctest's skip) without the suite. */
static int read_suite(const char *suite) {
  char cmd[3000], path[1200];
  FILE *ls;
  int n = 0;
  snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -E '\\.frd\\.ref(\\.gz)?$'", suite);
  ls = popen(cmd, "r");
  CHECK(ls != NULL, "cannot list %s", suite);
  while (fgets(path, sizeof path, ls)) {
    dt_frd_file *f = NULL;
    dt_ctx ctx;
    path[strcspn(path, "\n")] = '\0';
    snprintf(cmd, sizeof cmd, "gzip -dcf '%s/%s' > '%s/suite.frd'", suite, path, dir);
    CHECK(system(cmd) == 0, "cannot unpack %s/%s", suite, path);
    snprintf(cmd, sizeof cmd, "%s/suite.frd", dir);
    dt_ctx_reset(&ctx);
    CHECK(dt_frd_read(cmd, &f, &ctx) == DT_OK && f->n_nodes > 0, "%s: %s", path, ctx.msg);
    dt_frd_destroy(&f);
    n++;
  }
  pclose(ls);
  if (n == 0) {
    printf("SKIP: no .frd.ref in %s\n", suite);
    return 77;
  }
  printf("read %d .frd files of CalculiX's test suite\n", n);
  return 0;
}

int main(int argc, char **argv) {
  dir = argc > 1 ? argv[1] : "io_submodel";
  if (argc > 3 && strcmp(argv[2], "--suite") == 0) {
    mkdir(dir, 0755);
    return read_suite(argv[3]);
  }
  backend = getenv("DUCTILE_BACKEND") ? getenv("DUCTILE_BACKEND") : "cpu";
  mkdir(dir, 0755);
  {
    const dt_backend_ops *o = NULL;
    char note[256];
    dt_ctx ctx;
    dt_ctx_reset(&ctx);
    if (dt_backend_find(backend, &o, note, sizeof note, &ctx) != DT_OK) {
      printf("SKIP: backend %s: %s\n", backend, ctx.msg);
      return 77;
    }
  }
  global_model();
  test_round_trip();
  test_short_and_malformed();
  test_submodel();
  test_material_change();
  printf("io_submodel (%s): ok\n", backend);
  return 0;
}
