/* Shell models built in memory for the explicit-dynamics tests and benchmark: a circular plate
 * meshed as an O-grid, and a rectangular strip, each with one elastic material,
 * one shell section and one explicit step (callers add loads and boundary conditions). */
#ifndef DT_SHELL_MODELS_H
#define DT_SHELL_MODELS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "backend/backend.h"
#include "model/model.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define XCHECK(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

typedef struct shell_mesh {
  int n_nodes, n_elems;
  double *x;
  int *conn;
} shell_mesh;

/* Node index of point p, merging points closer than tol (linear search from `from`: the
 * meshes here add each patch's new points at the end). */
static inline int shell_mesh_point(shell_mesh *s, const double p[3], double tol, int cap) {
  for (int i = 0; i < s->n_nodes; i++)
    if (fabs(s->x[3 * i] - p[0]) < tol && fabs(s->x[3 * i + 1] - p[1]) < tol &&
        fabs(s->x[3 * i + 2] - p[2]) < tol)
      return i;
  XCHECK(s->n_nodes < cap, "mesh node capacity %d", cap);
  memcpy(&s->x[3 * s->n_nodes], p, 3 * sizeof(double));
  return s->n_nodes++;
}

/* A circular plate of radius R in the plane z = 0: a central square (corners at radius R/2)
 * and four curved patches, n x n elements each (5 n^2 elements, the counts of
 * [Bartezzaghi2015]'s Table 1 for n = 10, 15, 20, 25, 30, 40, 50), boundary nodes on the
 * circle, normals along +z. */
static inline shell_mesh shell_mesh_disc(double R, int n) {
  shell_mesh s;
  const int cap = 5 * (n + 1) * (n + 1), ecap = 5 * n * n;
  const double c = 0.5 * R / sqrt(2.0), tol = 1e-9 * R;
  int *id = malloc(sizeof(int) * (size_t)(n + 1) * (n + 1));
  memset(&s, 0, sizeof s);
  s.x = calloc(3 * (size_t)cap, sizeof(double));
  s.conn = malloc(4 * sizeof(int) * (size_t)ecap);
  for (int patch = 0; patch < 5; patch++) {
    for (int j = 0; j <= n; j++)
      for (int i = 0; i <= n; i++) {
        double p[3] = {0, 0, 0}, u = (double)i / n, v = (double)j / n;
        if (patch == 4) { /* the square */
          p[0] = -c + 2 * c * u;
          p[1] = -c + 2 * c * v;
        } else { /* side `patch` of the square (angle 90 patch degrees) out to the arc */
          const double a0 = M_PI / 2 * patch - M_PI / 4, a = a0 + M_PI / 2 * u;
          const double ca = cos(M_PI / 2 * patch), sa = sin(M_PI / 2 * patch);
          const double sx = c, sy = -c + 2 * c * u; /* on the square side x = c, rotated */
          const double qx = ca * sx - sa * sy, qy = sa * sx + ca * sy;
          p[0] = (1 - v) * qx + v * R * cos(a);
          p[1] = (1 - v) * qy + v * R * sin(a);
        }
        id[j * (n + 1) + i] = shell_mesh_point(&s, p, tol, cap);
      }
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int *e = &s.conn[4 * s.n_elems++], flip = patch < 4; /* (tangent, outward): -z */
        e[0] = id[j * (n + 1) + i];
        e[flip ? 3 : 1] = id[j * (n + 1) + i + 1];
        e[2] = id[(j + 1) * (n + 1) + i + 1];
        e[flip ? 1 : 3] = id[(j + 1) * (n + 1) + i];
      }
  }
  free(id);
  return s;
}

/* A flat rectangle [0, a] x [0, b] at z = 0, nx x ny elements, normals along +z. */
static inline shell_mesh shell_mesh_rect(double a, double b, int nx, int ny) {
  shell_mesh s;
  memset(&s, 0, sizeof s);
  s.n_nodes = (nx + 1) * (ny + 1);
  s.n_elems = nx * ny;
  s.x = calloc(3 * (size_t)s.n_nodes, sizeof(double));
  s.conn = malloc(4 * sizeof(int) * (size_t)s.n_elems);
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++) {
      s.x[3 * (j * (nx + 1) + i)] = a * i / nx;
      s.x[3 * (j * (nx + 1) + i) + 1] = b * j / ny;
    }
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      int *e = &s.conn[4 * (j * nx + i)];
      e[0] = j * (nx + 1) + i;
      e[1] = e[0] + 1;
      e[2] = e[0] + nx + 2;
      e[3] = e[0] + nx + 1;
    }
  return s;
}

/* Around a model's mesh (its element set "all"): material "mat" (E, nu, density rho), a section
 * of the kind on "all" (thickness h: shells), one explicit step of time T, no VTU. */
static inline void xp_model_dressing(dt_model *m, double E, double nu, double rho, int kind,
                                     double h, double T) {
  m->n_materials = 1;
  m->materials = calloc(1, sizeof(dt_material));
  snprintf(m->materials[0].name, DT_NAME_MAX, "mat");
  m->materials[0].p.E = E;
  m->materials[0].p.nu = nu;
  m->materials[0].density = rho;
  m->n_sections = 1;
  m->sections = calloc(1, sizeof(dt_section));
  snprintf(m->sections[0].elset_name, DT_NAME_MAX, "all");
  m->sections[0].kind = (dt_section_kind)kind;
  m->sections[0].thickness = h;
  m->n_steps = 1;
  m->steps = calloc(1, sizeof(dt_step));
  dt_step_default(&m->steps[0]);
  snprintf(m->steps[0].name, DT_NAME_MAX, "dynamic");
  m->steps[0].procedure = DT_PROC_EXPLICIT;
  m->steps[0].explicit_.time_period = T;
  m->output.vtu = 0;
}

/* The model around a mesh: material "mat" (E, nu, density), a shell section of thickness h
 * on the element set "all", one explicit step of time T; node sets are added by callers with
 * shell_model_nset. The mesh's arrays pass to the model. */
static inline dt_model *shell_model(shell_mesh *s, double E, double nu, double rho, double h,
                                    double T) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  XCHECK(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  m->n_nodes = s->n_nodes;
  m->x = s->x;
  m->node_id = malloc(sizeof(int64_t) * (size_t)s->n_nodes);
  for (int i = 0; i < s->n_nodes; i++) m->node_id[i] = i + 1;
  m->n_elems = s->n_elems;
  m->conn = s->conn;
  m->elem_type = malloc((size_t)s->n_elems);
  m->elem_ptr = malloc(sizeof(int) * (size_t)(s->n_elems + 1));
  m->elem_id = malloc(sizeof(int64_t) * (size_t)s->n_elems);
  for (int e = 0; e < s->n_elems; e++) {
    m->elem_type[e] = DT_ELEM_SHELL4;
    m->elem_ptr[e] = 4 * e;
    m->elem_id[e] = e + 1;
  }
  m->elem_ptr[s->n_elems] = 4 * s->n_elems;
  m->n_elsets = 1;
  m->elsets = calloc(1, sizeof(dt_set));
  snprintf(m->elsets[0].name, DT_NAME_MAX, "all");
  m->elsets[0].n = s->n_elems;
  m->elsets[0].items = malloc(sizeof(int) * (size_t)s->n_elems);
  for (int e = 0; e < s->n_elems; e++) m->elsets[0].items[e] = e;
  xp_model_dressing(m, E, nu, rho, DT_SECTION_SHELL, h, T);
  return m;
}

/* Add a node set of the nodes where keep(x, user) holds; returns its index. */
static inline int shell_model_nset(dt_model *m, const char *name,
                                   int (*keep)(const double *x, const void *user),
                                   const void *user) {
  dt_set *s;
  m->nsets = realloc(m->nsets, sizeof(dt_set) * (size_t)(m->n_nsets + 1));
  s = &m->nsets[m->n_nsets];
  memset(s, 0, sizeof *s);
  snprintf(s->name, DT_NAME_MAX, "%s", name);
  s->items = malloc(sizeof(int) * (size_t)m->n_nodes);
  for (int i = 0; i < m->n_nodes; i++)
    if (keep(&m->x[3 * i], user)) s->items[s->n++] = i;
  XCHECK(s->n > 0, "node set %s is empty", name);
  return m->n_nsets++;
}

/* A boundary condition on node set ns of the model's step: dofs bits, values (velocity: 1). */
static inline void shell_model_bc(dt_model *m, int ns, unsigned dofs, const double v[3],
                                  int velocity) {
  dt_step *st = &m->steps[0];
  st->bc = realloc(st->bc, sizeof(dt_bc) * (size_t)(st->n_bc + 1));
  memset(&st->bc[st->n_bc], 0, sizeof(dt_bc));
  st->bc[st->n_bc].nset = ns;
  st->bc[st->n_bc].dofs = dofs;
  st->bc[st->n_bc].velocity = velocity;
  if (v) memcpy(st->bc[st->n_bc].value, v, 3 * sizeof(double));
  st->n_bc++;
}

/* A concentrated force on every node of node set ns. */
static inline void shell_model_force(dt_model *m, int ns, const double f[3]) {
  dt_step *st = &m->steps[0];
  st->cload = realloc(st->cload, sizeof(dt_cload) * (size_t)(st->n_cload + 1));
  st->cload[st->n_cload].nset = ns;
  memcpy(st->cload[st->n_cload].f, f, 3 * sizeof(double));
  st->n_cload++;
}

/* A pressure p on face S1 of every element (against the normal). */
static inline void shell_model_pressure(dt_model *m, double p) {
  dt_surface *sf;
  dt_step *st = &m->steps[0];
  m->surfaces = realloc(m->surfaces, sizeof(dt_surface) * (size_t)(m->n_surfaces + 1));
  sf = &m->surfaces[m->n_surfaces];
  snprintf(sf->name, DT_NAME_MAX, "top");
  sf->n = m->n_elems;
  sf->elem = malloc(sizeof(int) * (size_t)m->n_elems);
  sf->face = calloc((size_t)m->n_elems, sizeof(int));
  for (int e = 0; e < m->n_elems; e++) sf->elem[e] = e;
  st->pressure = realloc(st->pressure, sizeof(dt_pressure) * (size_t)(st->n_pressure + 1));
  st->pressure[st->n_pressure].surface = m->n_surfaces++;
  st->pressure[st->n_pressure].p = p;
  st->n_pressure++;
}

static inline void shell_model_finish(dt_model *m) {
  dt_ctx ctx = {0};
  m->sections[0].elset = dt_model_find_elset(m, "all");
  m->sections[0].material = 0;
  XCHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
}

#endif
