/* What the partition tests share: EXPECT (../test_expect.h) and REQUIRE, the meshes (a hex8 box, the tetrahedral
 * L-bracket of lbracket_tet4.msh, two disjoint boxes), parts by METIS when the build has it
 * and by slabs of element indices otherwise, and a scalar Laplacian element (hex8 with 2x2x2
 * Gauss points, tet4 exact) for operator applies. */
#ifndef DT_PARTITION_FIXTURES_H
#define DT_PARTITION_FIXTURES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/import.h"
#include "model/mesh_box.h"
#include "model/model.h"
#include "partition/partition.h"
#include "../test_expect.h"

/* A fatal setup failure: the rest of the test cannot run. */
#define REQUIRE(cond, ...)                                                                         \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: REQUIRED %s: ", __FILE__, __LINE__, #cond);                          \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static inline dt_model *fixture_box(int nx, int ny, int nz) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  REQUIRE(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  REQUIRE(dt_mesh_box_hex8(m, nx, ny, nz, 1.0 * nx, 1.0 * ny, 1.0 * nz, &ctx) == DT_OK, "%s",
          ctx.msg);
  return m;
}

static inline dt_model *fixture_tet(const char *path) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  REQUIRE(dt_gmsh_read_file(path, NULL, &m, &ctx) == DT_OK, "%s: %s", path, ctx.msg);
  for (int e = 0; e < m->n_elems; e++)
    REQUIRE(m->elem_type[e] == DT_ELEM_TET4, "%s: element %d is not a tet4", path, e);
  return m;
}

/* Two copies of an nx x ny x nz box side by side, 1 apart, sharing no node. */
static inline dt_model *fixture_two_boxes(int nx, int ny, int nz) {
  dt_model *b = fixture_box(nx, ny, nz), *m = NULL;
  dt_ctx ctx = {0};
  int nn = b->n_nodes, ne = b->n_elems;
  REQUIRE(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  m->dim = 3;
  m->n_nodes = 2 * nn;
  m->n_elems = 2 * ne;
  m->x = dt_calloc(6 * (size_t)nn, sizeof *m->x);
  m->elem_type = dt_calloc(2 * (size_t)ne, 1);
  m->elem_ptr = dt_calloc(2 * (size_t)ne + 1, sizeof *m->elem_ptr);
  m->conn = dt_calloc(16 * (size_t)ne, sizeof *m->conn);
  REQUIRE(m->x && m->elem_type && m->elem_ptr && m->conn, "out of memory");
  for (int c = 0; c < 2; c++) {
    for (int v = 0; v < nn; v++)
      for (int d = 0; d < 3; d++)
        m->x[3 * (c * nn + v) + d] = b->x[3 * v + d] + (d == 0 ? c * (nx + 1.0) : 0.0);
    for (int e = 0; e < ne; e++) {
      m->elem_type[c * ne + e] = DT_ELEM_HEX8;
      m->elem_ptr[c * ne + e + 1] = 8 * (c * ne + e + 1);
      for (int a = 0; a < 8; a++) m->conn[8 * (c * ne + e) + a] = b->conn[8 * e + a] + c * nn;
    }
  }
  dt_model_destroy(&b);
  return m;
}

#ifdef DUCTILE_HAVE_METIS
#define FIXTURE_PARTS "METIS k-way"
#else
#define FIXTURE_PARTS "slabs of element indices (no METIS in this build)"
#endif

/* The element parts the layout tests use: METIS's when built with it (the CI build is). */
static inline void fixture_parts(const dt_model *m, int nparts, int *part) {
#ifdef DUCTILE_HAVE_METIS
  dt_ctx ctx = {0};
  REQUIRE(dt_partition_elements(m, nparts, NULL, part, NULL, &ctx) == DT_OK, "%d parts: %s", nparts,
          ctx.msg);
#else
  for (int e = 0; e < m->n_elems; e++) part[e] = (int)((long long)e * nparts / m->n_elems);
#endif
}

/* Trilinear hex8 shape derivatives at (r, s, t), corner order of element.h. */
static inline void hex8_dshape(double r, double s, double t, double dn[8][3]) {
  static const double c[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                 {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  for (int a = 0; a < 8; a++) {
    dn[a][0] = 0.125 * c[a][0] * (1 + c[a][1] * s) * (1 + c[a][2] * t);
    dn[a][1] = 0.125 * c[a][1] * (1 + c[a][0] * r) * (1 + c[a][2] * t);
    dn[a][2] = 0.125 * c[a][2] * (1 + c[a][0] * r) * (1 + c[a][1] * s);
  }
}

/* 3x3 inverse; returns the determinant. */
static inline double inv3(const double a[3][3], double b[3][3]) {
  double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
               a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
               a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  b[0][0] = (a[1][1] * a[2][2] - a[1][2] * a[2][1]) / det;
  b[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) / det;
  b[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) / det;
  b[1][0] = (a[1][2] * a[2][0] - a[1][0] * a[2][2]) / det;
  b[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det;
  b[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) / det;
  b[2][0] = (a[1][0] * a[2][1] - a[1][1] * a[2][0]) / det;
  b[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) / det;
  b[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det;
  return det;
}

/* The Laplacian K_ab = int grad N_a . grad N_b of element e (hex8 or tet4) into ke (n x n,
 * n = its node count, at most 8), from the coordinates of its global nodes. */
static inline int laplace_element(const dt_model *m, int e, double ke[64]) {
  const int *c = &m->conn[m->elem_ptr[e]];
  int n = m->elem_ptr[e + 1] - m->elem_ptr[e];
  memset(ke, 0, 64 * sizeof *ke);
  if (m->elem_type[e] == DT_ELEM_TET4) {
    double a[3][3], g[3][3], grad[4][3];
    for (int i = 0; i < 3; i++)
      for (int d = 0; d < 3; d++) a[i][d] = m->x[3 * c[i + 1] + d] - m->x[3 * c[0] + d];
    /* grad N_{i+1} = rows of a^-T: g = a^-1, grad N_{i+1}[d] = g[d][i] */
    double vol = fabs(inv3(a, g)) / 6.0;
    for (int d = 0; d < 3; d++) {
      grad[0][d] = 0.0;
      for (int i = 0; i < 3; i++) {
        grad[i + 1][d] = g[d][i];
        grad[0][d] -= g[d][i];
      }
    }
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++)
        for (int d = 0; d < 3; d++) ke[i * 4 + j] += vol * grad[i][d] * grad[j][d];
    return 4;
  }
  REQUIRE(m->elem_type[e] == DT_ELEM_HEX8 && n == 8, "element %d: hex8 or tet4 only", e);
  const double q = 1.0 / sqrt(3.0);
  for (int gp = 0; gp < 8; gp++) {
    double dn[8][3], jac[3][3] = {{0}}, ji[3][3], dx[8][3];
    hex8_dshape(gp & 1 ? q : -q, gp & 2 ? q : -q, gp & 4 ? q : -q, dn);
    for (int a = 0; a < 8; a++)
      for (int i = 0; i < 3; i++)
        for (int d = 0; d < 3; d++) jac[i][d] += dn[a][i] * m->x[3 * c[a] + d];
    double det = fabs(inv3(jac, ji));
    /* dN/dx_d = sum_i ji[d][i] dN/dxi_i (jac[i][d] = dx_d/dxi_i) */
    for (int a = 0; a < 8; a++)
      for (int d = 0; d < 3; d++)
        dx[a][d] = ji[d][0] * dn[a][0] + ji[d][1] * dn[a][1] + ji[d][2] * dn[a][2];
    for (int a = 0; a < 8; a++)
      for (int b = 0; b < 8; b++)
        for (int d = 0; d < 3; d++) ke[a * 8 + b] += det * dx[a][d] * dx[b][d];
  }
  return 8;
}

/* A deterministic value in [-1, 1) per global node (a linear congruential hash). */
static inline double fixture_value(int v) {
  unsigned long long h = (unsigned long long)v * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(h >> 11) / 4503599627370496.0 - 1.0;
}

#endif
