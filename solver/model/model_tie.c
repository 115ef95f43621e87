/* Ties (Abaqus/CalculiX *TIE, the job's "ties") lowered into linear equations.
 *
 * A slave node is projected onto each master face near it: the face point x(st) = sum_a N_a(st)
 * X_a closest to the node is found by Gauss-Newton on t_k . (x(st) - p) = 0 (t_k = dx/dst_k),
 * each iterate clamped to the face's parameter domain, so a node beside the face lands on its
 * nearest edge; the candidate faces are those a uniform grid over the master faces' boxes
 * lists in the node's cell. The nearest face wins; within the tolerance the node is tied by
 * u_slave - sum_a N_a(st) u_a = 0 per direction, which dt_model_check_equations and the solver
 * then treat as any other equation (the slave DOF is the dependent one, as in CalculiX's tied
 * MPCs, gentiedmpc.f). CalculiX's rules kept here: the default tolerance is 2.5% of a typical
 * master face size, ADJUST (the default) moves the node onto its projection, and a slave DOF
 * that a boundary condition holds or another equation already makes dependent is left out with
 * a warning. Two differences, both where CalculiX's outcome helps no one: a slave node with no
 * master face within the tolerance is an error here (CalculiX warns and leaves it loose, which
 * silently unties a part), and a slave node that is itself a node of the master surface gets no
 * equation, since it would read u = u (CalculiX stops with a zero dependent coefficient). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "element/element.h"
#include "model.h"
#include "model_internal.h"

#define TIE_DEFAULT_TOL_FACTOR 0.025 /* CalculiX: 2.5% of a typical master face size */
#define TIE_NEWTON_MAX 50

dt_status dt_model_add_tie(dt_model *m, const dt_tie *tie, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_tie *t = dt_realloc(m->ties, sizeof *t * ((size_t)m->n_ties + 1));
  DT_CHECK(t != NULL, ctx, DT_ERR_NOMEM, "out of memory for %d ties", m->n_ties + 1);
  m->ties = t;
  m->ties[m->n_ties++] = *tie;
cleanup:
  return rc;
}

/* One master face: its type (for the shape functions), face index, nodes and bounding box. */
typedef struct mface {
  int type, face, n;
  int node[DT_FACE_MAX_NODES];
  double lo[3], hi[3];
} mface;

static int is_triangle(int type, int face) {
  int k = dt_face_kind(type, face);
  return k == DT_TET4 || k == DT_TET10;
}

/* Keep st inside the face's parameter domain: [-1, 1]^2 for quadrilaterals, the unit triangle
 * s, t >= 0, s + t <= 1 for triangles. */
static void clamp_st(int tri, double st[2]) {
  if (!tri) {
    for (int k = 0; k < 2; k++) st[k] = st[k] < -1.0 ? -1.0 : st[k] > 1.0 ? 1.0 : st[k];
    return;
  }
  if (st[0] + st[1] > 1.0) {
    double e = 0.5 * (st[0] + st[1] - 1.0);
    st[0] -= e, st[1] -= e;
  }
  for (int k = 0; k < 2; k++) st[k] = st[k] < 0.0 ? 0.0 : st[k];
  if (st[0] > 1.0) st[0] = 1.0, st[1] = 0.0;
  if (st[1] > 1.0) st[1] = 1.0, st[0] = 0.0;
}

/* The point of face f closest to p: its shape functions N, the point x and the distance. */
static double project(const dt_model *m, const mface *f, const double p[3], double *N,
                      double x[3]) {
  const int tri = is_triangle(f->type, f->face);
  double st[2] = {tri ? 1.0 / 3.0 : 0.0, tri ? 1.0 / 3.0 : 0.0}, dN[2 * DT_FACE_MAX_NODES];
  for (int it = 0; it < TIE_NEWTON_MAX; it++) {
    double t1[3] = {0, 0, 0}, t2[3] = {0, 0, 0}, r[3], g0 = 0, g1 = 0, a = 0, b = 0, c = 0, det;
    double d0, d1, old[2] = {st[0], st[1]};
    dt_face_shape(f->type, f->face, st, N, dN);
    for (int i = 0; i < 3; i++) x[i] = 0.0;
    for (int k = 0; k < f->n; k++)
      for (int i = 0; i < 3; i++) {
        const double X = m->x[3 * (size_t)f->node[k] + i];
        x[i] += N[k] * X;
        t1[i] += dN[2 * k] * X;
        t2[i] += dN[2 * k + 1] * X;
      }
    for (int i = 0; i < 3; i++) {
      r[i] = x[i] - p[i];
      g0 += t1[i] * r[i], g1 += t2[i] * r[i];
      a += t1[i] * t1[i], b += t1[i] * t2[i], c += t2[i] * t2[i];
    }
    det = a * c - b * b;
    if (!(det > 0.0)) break; /* a degenerate face: keep the point reached */
    d0 = -(c * g0 - b * g1) / det;
    d1 = -(a * g1 - b * g0) / det;
    st[0] += d0, st[1] += d1;
    clamp_st(tri, st);
    if (fabs(st[0] - old[0]) + fabs(st[1] - old[1]) < 1e-14) break;
  }
  dt_face_shape(f->type, f->face, st, N, dN);
  for (int i = 0; i < 3; i++) x[i] = 0.0;
  for (int k = 0; k < f->n; k++)
    for (int i = 0; i < 3; i++) x[i] += N[k] * m->x[3 * (size_t)f->node[k] + i];
  return sqrt((x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) +
              (x[2] - p[2]) * (x[2] - p[2]));
}

/* The master faces of tie t, with the mean length of their corner edges. */
static dt_status master_faces(const dt_model *m, const dt_tie *t, mface **out, double *edge,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_surface *sf = &m->surfaces[t->master];
  mface *f = NULL;
  double sum = 0.0;
  long n_edges = 0;
  DT_CHECK(sf->n > 0, ctx, DT_ERR_INPUT, "the master surface \"%s\" has no faces", sf->name);
  DT_ALLOC(f, sf->n, ctx, "tie master faces");
  for (int i = 0; i < sf->n; i++) {
    const int e = sf->elem[i], type = m->elem_type[e];
    int local[DT_FACE_MAX_NODES], corners = 0;
    DT_CHECK(type < DT_ELEM_NCONTINUUM && dt_model_elem_dim(type) == 3, ctx, DT_ERR_INPUT,
             "the master surface \"%s\" has a face of element %lld (%s): ties take faces of 3D "
             "solid elements",
             sf->name, (long long)m->elem_id[e], dt_model_elem_type_name(type));
    f[i].type = type;
    f[i].face = sf->face[i];
    f[i].n = dt_face_nnodes(type, sf->face[i]);
    dt_face_local_nodes(type, sf->face[i], local);
    for (int k = 0; k < 3; k++) f[i].lo[k] = INFINITY, f[i].hi[k] = -INFINITY;
    for (int a = 0; a < f[i].n; a++) {
      f[i].node[a] = m->conn[m->elem_ptr[e] + local[a]];
      for (int k = 0; k < 3; k++) {
        const double X = m->x[3 * (size_t)f[i].node[a] + k];
        f[i].lo[k] = fmin(f[i].lo[k], X);
        f[i].hi[k] = fmax(f[i].hi[k], X);
      }
    }
    corners = is_triangle(type, sf->face[i]) ? 3 : 4;
    for (int a = 0; a < corners; a++) {
      const double *A = &m->x[3 * (size_t)f[i].node[a]];
      const double *B = &m->x[3 * (size_t)f[i].node[(a + 1) % corners]];
      sum += sqrt((A[0] - B[0]) * (A[0] - B[0]) + (A[1] - B[1]) * (A[1] - B[1]) +
                  (A[2] - B[2]) * (A[2] - B[2]));
      n_edges++;
    }
  }
  *edge = sum / (double)n_edges;
  *out = f;
  f = NULL;
cleanup:
  dt_free(f);
  return rc;
}

/* A uniform grid over the master faces' boxes, each inflated by the tolerance: cell c lists the
 * faces whose box meets it (face[ptr[c] .. ptr[c + 1] - 1]), so a slave node is projected only
 * onto the faces listed in its own cell, not onto every master face. */
typedef struct face_grid {
  double lo[3], h;
  int n[3];
  int *ptr, *face;
} face_grid;

#define TIE_GRID_CELLS_PER_FACE 8 /* cells at most, per master face */

static int grid_cell(const face_grid *g, int k, double x) {
  double c = floor((x - g->lo[k]) / g->h);
  return !(c > 0.0) ? 0 : c >= (double)g->n[k] ? g->n[k] - 1 : (int)c; /* NaN: cell 0 */
}

static dt_status grid_build(const mface *f, int nf, double tol, double edge, face_grid *g,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double hi[3], span = 0.0, limit = (double)TIE_GRID_CELLS_PER_FACE * nf + 1.0;
  int *fill = NULL;
  size_t cells = 1;
  memset(g, 0, sizeof *g);
  for (int k = 0; k < 3; k++) {
    g->lo[k] = INFINITY, hi[k] = -INFINITY;
    for (int i = 0; i < nf; i++) {
      g->lo[k] = fmin(g->lo[k], f[i].lo[k] - tol);
      hi[k] = fmax(hi[k], f[i].hi[k] + tol);
    }
    span = fmax(span, hi[k] - g->lo[k]);
  }
  g->h = edge > 0.0 ? edge : span > 0.0 ? span : 1.0;
  for (;;) { /* cells about a face wide, but never more than the limit */
    double total = 1.0;
    for (int k = 0; k < 3; k++) total *= fmax(1.0, ceil((hi[k] - g->lo[k]) / g->h));
    if (total <= limit) break;
    g->h *= 1.5;
  }
  for (int k = 0; k < 3; k++) {
    g->n[k] = (int)fmax(1.0, ceil((hi[k] - g->lo[k]) / g->h));
    cells *= (size_t)g->n[k];
  }
  DT_ALLOC(g->ptr, cells + 1, ctx, "tie search grid");
  DT_ALLOC(fill, cells, ctx, "tie search grid");
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < nf; i++) {
      int c0[3], c1[3];
      for (int k = 0; k < 3; k++)
        c0[k] = grid_cell(g, k, f[i].lo[k] - tol), c1[k] = grid_cell(g, k, f[i].hi[k] + tol);
      for (int a = c0[0]; a <= c1[0]; a++)
        for (int b = c0[1]; b <= c1[1]; b++)
          for (int c = c0[2]; c <= c1[2]; c++) {
            size_t cell = ((size_t)c * g->n[1] + b) * g->n[0] + a;
            if (pass == 0)
              g->ptr[cell + 1]++;
            else
              g->face[g->ptr[cell] + fill[cell]++] = i;
          }
    }
    if (pass == 0) {
      for (size_t c = 0; c < cells; c++) g->ptr[c + 1] += g->ptr[c];
      DT_ALLOC(g->face, g->ptr[cells], ctx, "tie search grid");
    }
  }
cleanup:
  dt_free(fill);
  return rc;
}

/* The cell of point p, or -1 outside the grid. */
static long grid_find(const face_grid *g, const double p[3]) {
  int c[3];
  for (int k = 0; k < 3; k++) {
    if (!(p[k] >= g->lo[k] && p[k] <= g->lo[k] + g->h * g->n[k])) return -1;
    c[k] = grid_cell(g, k, p[k]);
  }
  return ((long)c[2] * g->n[1] + c[1]) * g->n[0] + c[0];
}

static void grid_free(face_grid *g) {
  dt_free(g->ptr);
  dt_free(g->face);
  memset(g, 0, sizeof *g);
}

/* The slave nodes of tie t in first-seen order, each once (mark is a zeroed scratch array). */
static dt_status slave_nodes(const dt_model *m, const dt_tie *t, unsigned char *mark, int **out,
                             int *n_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *s = NULL, n = 0, cap = 0;
  if (t->slave_nset >= 0) {
    cap = m->nsets[t->slave_nset].n;
  } else {
    const dt_surface *sf = &m->surfaces[t->slave_surface];
    for (int i = 0; i < sf->n; i++) cap += dt_model_elem_nnodes(m->elem_type[sf->elem[i]]);
  }
  DT_ALLOC(s, cap, ctx, "tie slave nodes");
  if (t->slave_nset >= 0) {
    const dt_set *ns = &m->nsets[t->slave_nset];
    for (int i = 0; i < ns->n; i++)
      if (!mark[ns->items[i]]) mark[ns->items[i]] = 1, s[n++] = ns->items[i];
  } else {
    const dt_surface *sf = &m->surfaces[t->slave_surface];
    for (int i = 0; i < sf->n; i++) {
      const int e = sf->elem[i], type = m->elem_type[e];
      int local[DT_FACE_MAX_NODES];
      DT_CHECK(type < DT_ELEM_NCONTINUUM && dt_model_elem_dim(type) == 3, ctx, DT_ERR_INPUT,
               "the slave surface \"%s\" has a face of element %lld (%s): ties take faces of 3D "
               "solid elements",
               sf->name, (long long)m->elem_id[e], dt_model_elem_type_name(type));
      dt_face_local_nodes(type, sf->face[i], local);
      for (int a = 0; a < dt_face_nnodes(type, sf->face[i]); a++) {
        const int node = m->conn[m->elem_ptr[e] + local[a]];
        if (!mark[node]) mark[node] = 1, s[n++] = node;
      }
    }
  }
  for (int i = 0; i < n; i++) mark[s[i]] = 0;
  *out = s;
  *n_out = n;
  s = NULL;
cleanup:
  dt_free(s);
  return rc;
}

/* The DOFs a boundary condition of some step holds (bit d of held[node]). */
static dt_status held_dofs(const dt_model *m, unsigned char **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  unsigned char *held = NULL;
  DT_ALLOC(held, m->n_nodes, ctx, "held DOF flags");
  for (int s = 0; s < m->n_steps; s++)
    for (int b = 0; b < m->steps[s].n_bc; b++) {
      const dt_bc *bc = &m->steps[s].bc[b];
      if (bc->nset < 0 || bc->nset >= m->n_nsets) continue;
      for (int i = 0; i < m->nsets[bc->nset].n; i++)
        held[m->nsets[bc->nset].items[i]] |= (unsigned char)(bc->dofs & 7u);
    }
  *out = held;
cleanup:
  return rc;
}

/* Tie t's equations; counts of the slave DOFs left out (held or dependent) and of the slave
 * nodes that are master nodes, with the first of each. */
typedef struct tie_stats {
  int n_skip_dof, skip_node, skip_dof;
  int n_shared, shared_node;
} tie_stats;

static dt_status lower_one(dt_model *m, const dt_tie *t, const unsigned char *held,
                           unsigned char *dep, unsigned char *mark, tie_stats *st, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  mface *f = NULL;
  face_grid grid;
  int *slave = NULL, n_slave = 0;
  double edge = 0.0, tol = 0.0;
  memset(&grid, 0, sizeof grid);
  DT_TRY(master_faces(m, t, &f, &edge, ctx));
  tol = t->tolerance > 0.0 ? t->tolerance : TIE_DEFAULT_TOL_FACTOR * edge;
  DT_TRY(grid_build(f, m->surfaces[t->master].n, tol, edge, &grid, ctx));
  DT_TRY(slave_nodes(m, t, mark, &slave, &n_slave, ctx));
  for (int i = 0; i < m->surfaces[t->master].n; i++)
    for (int a = 0; a < f[i].n; a++) mark[f[i].node[a]] = 1;
  for (int i = 0; i < n_slave; i++) {
    const int s = slave[i];
    double p[3], best = INFINITY, bx[3] = {0, 0, 0}, bN[DT_FACE_MAX_NODES];
    int bf = -1;
    long cell = -1;
    if (mark[s]) { /* on the master surface already: its equation would read u = u */
      if (st->n_shared++ == 0) st->shared_node = s;
      continue;
    }
    memcpy(p, &m->x[3 * (size_t)s], sizeof p);
    cell = grid_find(&grid, p);
    for (int q = cell < 0 ? 0 : grid.ptr[cell]; cell >= 0 && q < grid.ptr[cell + 1]; q++) {
      const int j = grid.face[q];
      double N[DT_FACE_MAX_NODES], x[3], d;
      int out = 0;
      for (int k = 0; k < 3; k++) out |= p[k] < f[j].lo[k] - tol || p[k] > f[j].hi[k] + tol;
      if (out) continue;
      d = project(m, &f[j], p, N, x);
      if (d < best) {
        best = d, bf = j;
        memcpy(bx, x, sizeof bx);
        memcpy(bN, N, sizeof N);
      }
    }
    if (bf < 0 || best > tol) {
      if (bf < 0)
        rc = DT_ERROR(ctx, DT_ERR_INPUT,
                      "slave node %lld: no face of the master surface \"%s\" comes within the "
                      "position tolerance %g of it; move it onto the master surface, raise the "
                      "tolerance or leave the node out of the slave side",
                      (long long)m->node_id[s], m->surfaces[t->master].name, tol);
      else
        rc = DT_ERROR(ctx, DT_ERR_INPUT,
                      "slave node %lld is %g from the nearest face of the master surface \"%s\" "
                      "(element %lld, S%d), more than the position tolerance %g; move it onto "
                      "the master surface, raise the tolerance or leave the node out of the "
                      "slave side",
                      (long long)m->node_id[s], best, m->surfaces[t->master].name,
                      (long long)m->elem_id[m->surfaces[t->master].elem[bf]], f[bf].face + 1, tol);
      goto cleanup;
    }
    if (t->adjust) memcpy(&m->x[3 * (size_t)s], bx, sizeof bx);
    for (int d = 0; d < 3; d++) {
      int node[1 + DT_FACE_MAX_NODES], dof[1 + DT_FACE_MAX_NODES], n = 1;
      double coef[1 + DT_FACE_MAX_NODES];
      if ((held[s] >> d & 1u) || (dep[s] >> d & 1u)) {
        if (st->n_skip_dof++ == 0) st->skip_node = s, st->skip_dof = d;
        continue;
      }
      node[0] = s, dof[0] = d, coef[0] = 1.0;
      for (int a = 0; a < f[bf].n; a++)
        if (bN[a] != 0.0) node[n] = f[bf].node[a], dof[n] = d, coef[n++] = -bN[a];
      DT_TRY(dt_model_add_equation(m, n, node, dof, coef, ctx));
      dep[s] |= (unsigned char)(1u << d);
    }
  }
cleanup:
  if (f && t->master >= 0)
    for (int i = 0; i < m->surfaces[t->master].n; i++)
      for (int a = 0; a < f[i].n; a++) mark[f[i].node[a]] = 0;
  grid_free(&grid);
  dt_free(f);
  dt_free(slave);
  return rc;
}

/* The tie whose equations include equation e (ranges[i] is tie i's first equation). */
static int tie_of(const int *first, int n_ties, int e) {
  int t = -1;
  for (int i = 0; i < n_ties; i++)
    if (e >= first[i]) t = i;
  return t;
}

dt_status dt_model_lower_ties(dt_model *m, void (*warn)(void *arg, const char *msg), void *arg,
                              int *bad, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  unsigned char *held = NULL, *dep = NULL, *mark = NULL;
  int *first = NULL, b = -1;
  dt_mpc mpc;
  char msg[512];
  memset(&mpc, 0, sizeof mpc);
  *bad = -1;
  if (m->n_ties == 0) return DT_OK;
  for (int s = 0; s < m->n_steps; s++)
    DT_CHECK(m->steps[s].procedure == DT_PROC_STATIC, ctx, DT_ERR_INPUT,
             "ties are supported in static steps only (step %d \"%s\" is explicit)", s + 1,
             m->steps[s].name);
  DT_TRY(held_dofs(m, &held, ctx));
  DT_ALLOC(dep, m->n_nodes, ctx, "dependent DOF flags");
  DT_ALLOC(mark, m->n_nodes, ctx, "tie node flags");
  DT_ALLOC(first, m->n_ties, ctx, "tie equation ranges");
  for (int e = 0; e < m->eq.n; e++) {
    const int k = m->eq.ptr[e];
    if (m->eq.node[k] >= 0 && m->eq.node[k] < m->n_nodes && m->eq.dof[k] < 3)
      dep[m->eq.node[k]] |= (unsigned char)(1u << m->eq.dof[k]);
  }
  for (int i = 0; i < m->n_ties; i++) {
    const dt_tie *t = &m->ties[i];
    tie_stats st;
    memset(&st, 0, sizeof st);
    *bad = i;
    first[i] = m->eq.n;
    DT_CHECK(t->master >= 0 && t->master < m->n_surfaces, ctx, DT_ERR_INPUT,
             "tie \"%s\": the master surface does not exist", t->name);
    DT_CHECK((t->slave_nset >= 0 && t->slave_nset < m->n_nsets && t->slave_surface < 0) ||
                 (t->slave_surface >= 0 && t->slave_surface < m->n_surfaces && t->slave_nset < 0),
             ctx, DT_ERR_INPUT, "tie \"%s\": the slave side needs one node set or one surface",
             t->name);
    DT_CHECK(isfinite(t->tolerance), ctx, DT_ERR_INPUT,
             "tie \"%s\": the position tolerance is not a finite number", t->name);
    DT_TRY(lower_one(m, t, held, dep, mark, &st, ctx));
    if (warn && st.n_skip_dof) {
      snprintf(msg, sizeof msg,
               "tie \"%s\": %d slave DOF(s) get no tie equation because a boundary condition "
               "holds them or another equation already makes them dependent, as CalculiX does "
               "(the first: node %lld, DOF %d)",
               t->name, st.n_skip_dof, (long long)m->node_id[st.skip_node], st.skip_dof + 1);
      warn(arg, msg);
    }
    if (warn && st.n_shared) {
      snprintf(msg, sizeof msg,
               "tie \"%s\": %d slave node(s) are nodes of the master surface too and need no "
               "tie equation (the first: node %lld)",
               t->name, st.n_shared, (long long)m->node_id[st.shared_node]);
      warn(arg, msg);
    }
  }
  *bad = -1;
  rc = dt_model_equations_resolve(m, 3, &mpc, &b, ctx);
  if (rc == DT_ERR_INPUT && b >= 0) *bad = tie_of(first, m->n_ties, b);
  if (rc != DT_OK) goto cleanup;
  dt_free(m->ties);
  m->ties = NULL;
  m->n_ties = 0;
cleanup:
  dt_mpc_free(&mpc);
  dt_free(held);
  dt_free(dep);
  dt_free(mark);
  dt_free(first);
  return rc;
}
