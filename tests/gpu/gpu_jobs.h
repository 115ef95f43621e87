/* Helpers of the GPU tests: skipping without a device, small jobs generated as JSON text
 * (hex8 boxes, a tet10 block, a quad4 plate), and running a job on a backend while keeping the
 * fields of every converged increment. Header-only (static functions), one per test program. */
#ifndef DT_TEST_GPU_JOBS_H
#define DT_TEST_GPU_JOBS_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_entry.h"
#include "analysis/analysis.h"
#include "solver/io/job_json.h"

#define SKIP_CODE 77

static int g_failures;

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                            \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      g_failures++;                                                                                \
    }                                                                                              \
  } while (0)

/* Exit 77 (ctest SKIP_RETURN_CODE) when there is no CUDA device. */
static inline void skip_without_device(void) {
  char why[256] = "";
  if (!dt_cuda_available(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    exit(SKIP_CODE);
  }
}

/* A growing string. */
typedef struct sbuf {
  char *s;
  size_t n, cap;
} sbuf;

static inline void sb_add(sbuf *b, const char *fmt, ...) {
  va_list ap, ap2;
  int need;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->n + (size_t)need + 1 > b->cap) {
    b->cap = (b->n + (size_t)need + 1) * 2 + 4096;
    b->s = realloc(b->s, b->cap);
    if (!b->s) {
      fprintf(stderr, "out of memory\n");
      exit(1);
    }
  }
  vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap2);
  va_end(ap2);
  b->n += (size_t)need;
}

/* Node sets of a structured grid: nodes with index (i, j, k) on a plane. */
static inline void sb_grid_set(sbuf *b, const char *name, int nx, int ny, int nz, int axis, int at,
                               int first) {
  int n = 0;
  sb_add(b, "%s\"%s\": [", first ? "" : ", ", name);
  for (int k = 0; k <= nz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++) {
        int c = axis == 0 ? i : axis == 1 ? j : k;
        if (c != at) continue;
        sb_add(b, "%s%d", n++ ? "," : "", 1 + i + (nx + 1) * (j + (ny + 1) * k));
      }
  sb_add(b, "]");
}

/* Vertices of tet t (0..5) of the Kuhn split of the cube with corner (i, j, k) and side `side`
 * in grid units: a path along the axes in the order perm[t], with vertices 1 and 2 swapped
 * where that makes the volume positive. The six tets of neighbouring cubes conform. */
static inline void kuhn_tet(int i, int j, int k, int side, int t, int v[4][3]) {
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  double d[3][3], det;
  v[0][0] = i, v[0][1] = j, v[0][2] = k;
  for (int s = 1; s < 4; s++) {
    memcpy(v[s], v[s - 1], sizeof v[s]);
    v[s][perm[t][s - 1]] += side;
  }
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) d[r][c] = v[r + 1][c] - v[0][c];
  det = d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) -
        d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) +
        d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0]);
  if (det < 0) {
    int tmp[3];
    memcpy(tmp, v[1], sizeof tmp);
    memcpy(v[1], v[2], sizeof tmp);
    memcpy(v[2], tmp, sizeof tmp);
  }
}

/* Node id of grid point (i, j, k) of an nx*ny*nz cell grid. */
static inline int grid_nid(int nx, int ny, int i, int j, int k) {
  return 1 + i + (nx + 1) * (j + (ny + 1) * k);
}

/* "mesh": {"nodes": [...], "elements": [ -- the grid's nodes on [0,lx]x[0,ly]x[0,lz]. */
static inline void sb_grid_mesh_open(sbuf *b, int nx, int ny, int nz, double lx, double ly,
                                     double lz) {
  sb_add(b, "\"mesh\": {\"nodes\": [");
  for (int k = 0; k <= nz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++)
        sb_add(b, "%s[%d,%.17g,%.17g,%.17g]", grid_nid(nx, ny, i, j, k) > 1 ? "," : "",
               grid_nid(nx, ny, i, j, k), lx * i / nx, ly * j / ny, lz * k / nz);
  sb_add(b, "], \"elements\": [");
}

/* ], node sets xmin xmax ymin zmin zmax and element set all (ids 1..n_elems)} -- closes the mesh. */
static inline void sb_grid_mesh_close(sbuf *b, int nx, int ny, int nz, int n_elems) {
  sb_add(b, "], \"node_sets\": {");
  sb_grid_set(b, "xmin", nx, ny, nz, 0, 0, 1);
  sb_grid_set(b, "xmax", nx, ny, nz, 0, nx, 0);
  sb_grid_set(b, "ymin", nx, ny, nz, 1, 0, 0);
  sb_grid_set(b, "zmin", nx, ny, nz, 2, 0, 0);
  sb_grid_set(b, "zmax", nx, ny, nz, 2, nz, 0);
  sb_add(b, "}, \"element_sets\": {\"all\": {\"generate\": [1, %d]}}}", n_elems);
}

/* An element block of hex8 for the grid's cells with i in [i0, i1), ids from *e + 1 on. */
static inline void sb_hex8_cells(sbuf *b, int nx, int ny, int nz, int i0, int i1, int *e) {
#define NID(i, j, k) grid_nid(nx, ny, i, j, k)
  int first = 1;
  sb_add(b, "{\"type\": \"hex8\", \"connectivity\": [");
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = i0; i < i1; i++, first = 0)
        sb_add(b, "%s[%d,%d,%d,%d,%d,%d,%d,%d,%d]", first ? "" : ",", ++*e, NID(i, j, k),
               NID(i + 1, j, k), NID(i + 1, j + 1, k), NID(i, j + 1, k), NID(i, j, k + 1),
               NID(i + 1, j, k + 1), NID(i + 1, j + 1, k + 1), NID(i, j + 1, k + 1));
  sb_add(b, "]}");
#undef NID
}

/* Mesh of nx*ny*nz hex8 on [0,lx]x[0,ly]x[0,lz], node sets xmin xmax ymin zmin zmax, element
 * set all. */
static inline void sb_hex8_mesh(sbuf *b, int nx, int ny, int nz, double lx, double ly, double lz) {
  int e = 0;
  sb_grid_mesh_open(b, nx, ny, nz, lx, ly, lz);
  sb_hex8_cells(b, nx, ny, nz, 0, nx, &e);
  sb_grid_mesh_close(b, nx, ny, nz, e);
}

/* The mesh of sb_hex8_mesh with its last n_tet columns of cells (i >= nx - n_tet) each split
 * into six tet4 (kuhn_tet, the cell's own corners): a mesh of two element types, which the CUDA
 * backend runs with its one-thread-per-element kernels. Hex8 ids first, then tet4; the same
 * node ids and node sets; element set all. */
static inline void sb_hex8_tet4_mesh(sbuf *b, int nx, int ny, int nz, double lx, double ly,
                                     double lz, int n_tet) {
  int e = 0, first = 1;
  sb_grid_mesh_open(b, nx, ny, nz, lx, ly, lz);
  sb_hex8_cells(b, nx, ny, nz, 0, nx - n_tet, &e);
  sb_add(b, ", {\"type\": \"tet4\", \"connectivity\": [");
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = nx - n_tet; i < nx; i++)
        for (int t = 0; t < 6; t++, first = 0) {
          int v[4][3];
          kuhn_tet(i, j, k, 1, t, v);
          sb_add(b, "%s[%d", first ? "" : ",", ++e);
          for (int s = 0; s < 4; s++) sb_add(b, ",%d", grid_nid(nx, ny, v[s][0], v[s][1], v[s][2]));
          sb_add(b, "]");
        }
  sb_add(b, "]}");
  sb_grid_mesh_close(b, nx, ny, nz, e);
}

/* nx*nx*nx cubes of side h, each split into six tet10 (Kuhn triangulation, conforming);
 * node sets xmin ymin zmin zmax. Nodes live on the doubled grid (mid-edge nodes included). */
static inline void sb_tet10_mesh(sbuf *b, int nx, double h) {
  int m = 2 * nx + 1, nn = m * m * m, e = 0, first = 1;
  static const int edge[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  char *used = calloc((size_t)nn, 1);
  sbuf conn = {0};
#define GID(p) (1 + (p)[0] + m * ((p)[1] + m * (p)[2]))
  for (int k = 0; k < nx; k++)
    for (int j = 0; j < nx; j++)
      for (int i = 0; i < nx; i++)
        for (int t = 0; t < 6; t++) {
          int v[4][3], nodes[10];
          kuhn_tet(2 * i, 2 * j, 2 * k, 2, t, v);
          for (int s = 0; s < 4; s++) nodes[s] = GID(v[s]);
          for (int s = 0; s < 6; s++) {
            int p[3];
            for (int c = 0; c < 3; c++) p[c] = (v[edge[s][0]][c] + v[edge[s][1]][c]) / 2;
            nodes[4 + s] = GID(p);
          }
          sb_add(&conn, "%s[%d", e ? "," : "", e + 1);
          for (int s = 0; s < 10; s++) {
            sb_add(&conn, ",%d", nodes[s]);
            used[nodes[s] - 1] = 1;
          }
          sb_add(&conn, "]");
          e++;
        }
  sb_add(b, "\"mesh\": {\"nodes\": [");
  for (int g = 0; g < nn; g++) {
    if (!used[g]) continue;
    sb_add(b, "%s[%d,%.17g,%.17g,%.17g]", first ? "" : ",", g + 1, 0.5 * h * (g % m),
           0.5 * h * ((g / m) % m), 0.5 * h * (g / (m * m)));
    first = 0;
  }
  sb_add(b, "], \"elements\": [{\"type\": \"tet10\", \"connectivity\": [%s]}], \"node_sets\": {",
         conn.s);
  for (int axis = 0; axis < 4; axis++) {
    static const char *names[4] = {"xmin", "ymin", "zmin", "zmax"};
    int n = 0, ax = axis < 3 ? axis : 2, at = axis < 3 ? 0 : m - 1;
    sb_add(b, "%s\"%s\": [", axis ? ", " : "", names[axis]);
    for (int g = 0; g < nn; g++) {
      int c[3] = {g % m, (g / m) % m, g / (m * m)};
      if (used[g] && c[ax] == at) sb_add(b, "%s%d", n++ ? "," : "", g + 1);
    }
    sb_add(b, "]");
  }
  sb_add(b, "}, \"element_sets\": {\"all\": {\"generate\": [1, %d]}}}", e);
  free(conn.s);
  free(used);
#undef GID
}

/* nx*ny*nz 20-node hexahedra of `type` ("hex20" or "hex20r") on [0,lx]x[0,ly]x[0,lz], element.h's
 * node order; node sets xmin xmax ymin zmin zmax (corner and mid-edge nodes) and element set all.
 * Nodes live on the doubled grid (corners and mid-edges only, no face or cell centres). */
static inline void sb_hex20_mesh(sbuf *b, const char *type, int nx, int ny, int nz, double lx,
                                 double ly, double lz) {
  static const int edge[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                  {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const int mx = 2 * nx + 1, my = 2 * ny + 1, mz = 2 * nz + 1, nn = mx * my * mz;
  const char *names[5] = {"xmin", "xmax", "ymin", "zmin", "zmax"};
  int e = 0, first = 1;
#define HID(i, j, k) (1 + (i) + mx * ((j) + my * (k)))
  /* a doubled-grid point is a node when at most one of its coordinates is odd */
#define HNODE(i, j, k) ((i) % 2 + (j) % 2 + (k) % 2 <= 1)
  sb_add(b, "\"mesh\": {\"nodes\": [");
  for (int g = 0; g < nn; g++) {
    int i = g % mx, j = (g / mx) % my, k = g / (mx * my);
    if (!HNODE(i, j, k)) continue;
    sb_add(b, "%s[%d,%.17g,%.17g,%.17g]", first ? "" : ",", g + 1, lx * i / (mx - 1),
           ly * j / (my - 1), lz * k / (mz - 1));
    first = 0;
  }
  sb_add(b, "], \"elements\": [{\"type\": \"%s\", \"connectivity\": [", type);
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        int p[8][3];
        for (int a = 0; a < 8; a++) {
          p[a][0] = 2 * (i + corner[a][0]), p[a][1] = 2 * (j + corner[a][1]),
          p[a][2] = 2 * (k + corner[a][2]);
        }
        sb_add(b, "%s[%d", e ? "," : "", e + 1);
        for (int a = 0; a < 8; a++) sb_add(b, ",%d", HID(p[a][0], p[a][1], p[a][2]));
        for (int m = 0; m < 12; m++) {
          const int *u = p[edge[m][0]], *v = p[edge[m][1]];
          sb_add(b, ",%d", HID((u[0] + v[0]) / 2, (u[1] + v[1]) / 2, (u[2] + v[2]) / 2));
        }
        sb_add(b, "]");
        e++;
      }
  sb_add(b, "]}], \"node_sets\": {");
  for (int s = 0; s < 5; s++) {
    int n = 0;
    sb_add(b, "%s\"%s\": [", s ? ", " : "", names[s]);
    for (int g = 0; g < nn; g++) {
      int i = g % mx, j = (g / mx) % my, k = g / (mx * my);
      int on = s == 0   ? i == 0
               : s == 1 ? i == mx - 1
               : s == 2 ? j == 0
               : s == 3 ? k == 0
                        : k == mz - 1;
      if (on && HNODE(i, j, k)) sb_add(b, "%s%d", n++ ? "," : "", g + 1);
    }
    sb_add(b, "]");
  }
  sb_add(b, "}, \"element_sets\": {\"all\": {\"generate\": [1, %d]}}}", e);
#undef HNODE
#undef HID
}

/* nx*ny*nz cells on [0,lx]x[0,ly]x[0,lz], each split into two wedges of `type` ("wedge6" or
 * "wedge15") along its diagonal plane through its edges 1-5 and 3-7 (element.h's node order,
 * wedge15's mid-edge nodes at the edge midpoints); node sets xmin xmax ymin zmin zmax and
 * element set all. Nodes live on the doubled grid (the diagonals' midpoints included). */
static inline void sb_wedge_mesh(sbuf *b, const char *type, int nx, int ny, int nz, double lx,
                                 double ly, double lz) {
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  static const int half[2][6] = {{0, 1, 2, 4, 5, 6}, {0, 2, 3, 4, 6, 7}};
  static const int edge[9][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5},
                                 {5, 3}, {0, 3}, {1, 4}, {2, 5}};
  const int mx = 2 * nx + 1, my = 2 * ny + 1, mz = 2 * nz + 1, nn = mx * my * mz;
  const int quadratic = strcmp(type, "wedge15") == 0;
  const char *names[5] = {"xmin", "xmax", "ymin", "zmin", "zmax"};
  char *used = calloc((size_t)nn, 1);
  sbuf conn = {0};
  int e = 0, first = 1;
#define WID(p) (1 + (p)[0] + mx * ((p)[1] + my * (p)[2]))
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++)
        for (int h = 0; h < 2; h++) {
          int p[6][3], nodes[15], n = quadratic ? 15 : 6;
          for (int a = 0; a < 6; a++) {
            const int *c = corner[half[h][a]];
            p[a][0] = 2 * (i + c[0]), p[a][1] = 2 * (j + c[1]), p[a][2] = 2 * (k + c[2]);
            nodes[a] = WID(p[a]);
          }
          for (int m = 0; quadratic && m < 9; m++) {
            int q[3];
            for (int c = 0; c < 3; c++) q[c] = (p[edge[m][0]][c] + p[edge[m][1]][c]) / 2;
            nodes[6 + m] = WID(q);
          }
          sb_add(&conn, "%s[%d", e ? "," : "", e + 1);
          for (int a = 0; a < n; a++) {
            sb_add(&conn, ",%d", nodes[a]);
            used[nodes[a] - 1] = 1;
          }
          sb_add(&conn, "]");
          e++;
        }
  sb_add(b, "\"mesh\": {\"nodes\": [");
  for (int g = 0; g < nn; g++) {
    if (!used[g]) continue;
    sb_add(b, "%s[%d,%.17g,%.17g,%.17g]", first ? "" : ",", g + 1, lx * (g % mx) / (mx - 1),
           ly * ((g / mx) % my) / (my - 1), lz * (g / (mx * my)) / (mz - 1));
    first = 0;
  }
  sb_add(b, "], \"elements\": [{\"type\": \"%s\", \"connectivity\": [%s]}], \"node_sets\": {", type,
         conn.s);
  for (int s = 0; s < 5; s++) {
    int n = 0;
    sb_add(b, "%s\"%s\": [", s ? ", " : "", names[s]);
    for (int g = 0; g < nn; g++) {
      int i = g % mx, j = (g / mx) % my, k = g / (mx * my);
      int on = s == 0   ? i == 0
               : s == 1 ? i == mx - 1
               : s == 2 ? j == 0
               : s == 3 ? k == 0
                        : k == mz - 1;
      if (on && used[g]) sb_add(b, "%s%d", n++ ? "," : "", g + 1);
    }
    sb_add(b, "]");
  }
  sb_add(b, "}, \"element_sets\": {\"all\": {\"generate\": [1, %d]}}}", e);
  free(conn.s);
  free(used);
#undef WID
}

/* nx*ny quad4 on [0,lx]x[0,ly]; node sets left right bottom. */
static inline void sb_quad4_mesh(sbuf *b, int nx, int ny, double lx, double ly) {
#define QID(i, j) (1 + (i) + (nx + 1) * (j))
  int e = 0;
  sb_add(b, "\"mesh\": {\"nodes\": [");
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++)
      sb_add(b, "%s[%d,%.17g,%.17g]", QID(i, j) > 1 ? "," : "", QID(i, j), lx * i / nx,
             ly * j / ny);
  sb_add(b, "], \"elements\": [{\"type\": \"quad4\", \"connectivity\": [");
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      e++;
      sb_add(b, "%s[%d,%d,%d,%d,%d]", e > 1 ? "," : "", e, QID(i, j), QID(i + 1, j),
             QID(i + 1, j + 1), QID(i, j + 1));
    }
  sb_add(b, "]}], \"node_sets\": {");
  sb_grid_set(b, "left", nx, ny, 0, 0, 0, 1);
  sb_grid_set(b, "right", nx, ny, 0, 0, nx, 0);
  sb_grid_set(b, "bottom", nx, ny, 0, 1, 0, 0);
  sb_add(b, "}, \"element_sets\": {\"all\": {\"generate\": [1, %d]}}}", e);
#undef QID
}

/* nx*ny higher-order quads ("quad8", "quad8r", "quad9", "quad16") on [0,lx]x[0,ly],
 * straight-sided, with node sets left right bottom: a grid of (p nx + 1) x (p ny + 1) points
 * (p = 2 or 3; quad8 and quad8r leave out the element centres), local nodes in element.h's
 * order. */
static inline void sb_quadp_mesh(sbuf *b, const char *type, int nx, int ny, double lx, double ly) {
  static const int ij2[9][2] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 0},
                                {2, 1}, {1, 2}, {0, 1}, {1, 1}};
  static const int ij3[16][2] = {{0, 0}, {3, 0}, {3, 3}, {0, 3}, {1, 0}, {2, 0}, {3, 1}, {3, 2},
                                 {2, 3}, {1, 3}, {0, 2}, {0, 1}, {1, 1}, {2, 1}, {2, 2}, {1, 2}};
  const int p = strcmp(type, "quad16") ? 2 : 3;
  const int npe = strcmp(type, "quad8") && strcmp(type, "quad8r") ? (p + 1) * (p + 1) : 8;
  const int gx = p * nx + 1, gy = p * ny + 1;
  int *id = calloc((size_t)gx * gy, sizeof *id), n = 0, e = 0;
  const char *sets[3] = {"left", "right", "bottom"};
  if (!id) abort();
  sb_add(b, "\"mesh\": {\"nodes\": [");
  for (int J = 0; J < gy; J++)
    for (int I = 0; I < gx; I++) {
      if (npe == 8 && I % 2 == 1 && J % 2 == 1) continue; /* quad8: no centre node */
      id[J * gx + I] = ++n;
      sb_add(b, "%s[%d,%.17g,%.17g]", n > 1 ? "," : "", n, lx * I / (gx - 1), ly * J / (gy - 1));
    }
  sb_add(b, "], \"elements\": [{\"type\": \"%s\", \"connectivity\": [", type);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      e++;
      sb_add(b, "%s[%d", e > 1 ? "," : "", e);
      for (int a = 0; a < npe; a++) {
        const int *ij = p == 3 ? ij3[a] : ij2[a];
        sb_add(b, ",%d", id[(p * j + ij[1]) * gx + p * i + ij[0]]);
      }
      sb_add(b, "]");
    }
  sb_add(b, "]}], \"node_sets\": {");
  for (int s = 0; s < 3; s++) {
    int k = 0;
    sb_add(b, "%s\"%s\": [", s ? ", " : "", sets[s]);
    for (int J = 0; J < gy; J++)
      for (int I = 0; I < gx; I++) {
        int on = s == 0 ? I == 0 : s == 1 ? I == gx - 1 : J == 0;
        if (on && id[J * gx + I]) sb_add(b, "%s%d", k++ ? "," : "", id[J * gx + I]);
      }
    sb_add(b, "]");
  }
  sb_add(b, "}, \"element_sets\": {\"all\": {\"generate\": [1, %d]}}}", e);
  free(id);
}

/* Tight Newton and PCG tolerances: every increment is solved close to the exact discrete
 * solution, so CPU and GPU runs (whose iterates differ by rounding) agree far below the test
 * tolerances; with quadratic convergence the last step jumps over 1e-10 decisively.
 * Arguments: the preconditioner and the linear forcing ("fixed" or "adaptive"). */
static const char *const k_solver_tight =
    "\"solver\": {\"newton\": {\"force_tolerance\": 1e-10, "
    "\"displacement_tolerance\": 1e-3}, \"linear\": {\"preconditioner\": \"%s\", "
    "\"forcing\": \"%s\", \"tolerance\": 1e-13, \"max_iterations\": 20000}}, "
    "\"output\": {\"fields\": [\"U\", \"RF\", \"S\", \"E\", \"PEEQ\"]}";

static inline dt_model *parse_or_die(const sbuf *b, const char *name) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  if (dt_parse_job_string(b->s, b->n, name, &m, &ctx) != DT_OK) {
    fprintf(stderr, "%s: job does not parse: %s\n", name, ctx.msg);
    exit(1);
  }
  return m;
}

/* Fields of every converged increment of one run. */
#define MAX_INC 128
typedef struct capture {
  int n_inc, n_nodes, n_qp;
  double *u[MAX_INC], *s[MAX_INC], *peeq[MAX_INC];
  int newton[MAX_INC];
} capture;

static inline void on_increment(const dt_fields *f, const dt_history_row *row, void *user) {
  capture *c = user;
  int i = c->n_inc;
  if (i >= MAX_INC) return;
  c->n_nodes = f->n_nodes;
  c->n_qp = f->n_qp;
  c->u[i] = malloc(sizeof(double) * 3 * f->n_nodes);
  memcpy(c->u[i], f->u, sizeof(double) * 3 * f->n_nodes);
  c->s[i] = calloc(6 * (size_t)f->n_qp, sizeof(double));
  if (f->qp_stress) memcpy(c->s[i], f->qp_stress, sizeof(double) * 6 * f->n_qp);
  c->peeq[i] = calloc((size_t)f->n_qp, sizeof(double));
  if (f->qp_peeq) memcpy(c->peeq[i], f->qp_peeq, sizeof(double) * f->n_qp);
  c->newton[i] = row->newton_iters;
  c->n_inc++;
}

static inline void capture_free(capture *c) {
  for (int i = 0; i < c->n_inc; i++) {
    free(c->u[i]);
    free(c->s[i]);
    free(c->peeq[i]);
  }
  memset(c, 0, sizeof *c);
}

static inline dt_status run_job(const dt_model *m, const char *backend, capture *cap,
                                dt_progress_fn progress, void *progress_user, dt_run_summary *sum,
                                dt_ctx *ctx) {
  dt_run_options opt;
  memset(&opt, 0, sizeof opt);
  opt.backend = backend;
  opt.on_increment = cap ? on_increment : NULL;
  opt.user = cap;
  opt.progress = progress;
  if (progress) opt.user = progress_user;
  if (cap && progress) {
    fprintf(stderr, "run_job: capture and progress share user; use one\n");
    exit(1);
  }
  return dt_analysis_run(m, &opt, sum, ctx);
}

#endif
