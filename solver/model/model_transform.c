/* Local nodal coordinate systems (*TRANSFORM): their axes, and the rewriting of a model whose
 * boundary conditions, loads and equations name local directions into one in global DOFs.
 *
 * The solver stays in global DOFs. A local direction e (a unit vector) prescribed at node n is
 * the linear constraint e . u_n = v: where e is a global axis it is an ordinary boundary
 * condition, else a homogeneous equation in the equations machinery (model_equation.c), whose
 * dependent DOF must be one of n's and distinct from the dependent DOFs of n's other
 * constraints. All the rows that constrain n (its local boundary conditions and the equations
 * whose first term is on n, written in global components) are therefore reduced together by
 * Gauss-Jordan elimination over n's three DOFs with the largest pivot: each reduced row holds
 * its own pivot DOF and none of the others' pivots, so resolution never meets a cycle within a
 * node. A concentrated load f_loc becomes sum_k f_loc[k] e_k. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* Entries below this (relative to a pivot row scaled to 1) are round-off of the rotation. */
#define DT_TRANSFORM_EPS 1e-12

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static double normalize3(double *a) {
  double n = sqrt(dot3(a, a));
  if (n > 0.0)
    for (int k = 0; k < 3; k++) a[k] /= n;
  return n;
}

dt_status dt_model_add_transform(dt_model *m, int nset, dt_transform_kind kind, const double a[3],
                                 const double b[3], dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_transform *t = dt_realloc(m->transforms, sizeof *t * ((size_t)m->n_transforms + 1));
  DT_CHECK(t != NULL, ctx, DT_ERR_NOMEM, "out of memory for %d transforms", m->n_transforms + 1);
  m->transforms = t;
  t += m->n_transforms++;
  t->nset = nset;
  t->kind = kind;
  memcpy(t->a, a, sizeof t->a);
  memcpy(t->b, b, sizeof t->b);
cleanup:
  return rc;
}

dt_status dt_model_check_transform(const dt_model *m, int t, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_transform *tr = &m->transforms[t];
  double c[3], d[3];
  for (int k = 0; k < 3; k++)
    DT_CHECK(isfinite(tr->a[k]) && isfinite(tr->b[k]), ctx, DT_ERR_INPUT,
             "the points (or directions) a and b must be finite numbers");
  if (tr->kind == DT_TRANSFORM_RECT) {
    DT_CHECK(dot3(tr->a, tr->a) > 0.0, ctx, DT_ERR_INPUT,
             "the direction a (the local x axis) is the zero vector");
    cross3(tr->a, tr->b, c);
    DT_CHECK(sqrt(dot3(c, c)) > 1e-10 * sqrt(dot3(tr->a, tr->a) * dot3(tr->b, tr->b)) &&
                 dot3(tr->b, tr->b) > 0.0,
             ctx, DT_ERR_INPUT,
             "the directions a and b are parallel (or b is zero): they span no plane for the "
             "local y axis");
  } else {
    for (int k = 0; k < 3; k++) d[k] = tr->b[k] - tr->a[k];
    DT_CHECK(dot3(d, d) > 0.0, ctx, DT_ERR_INPUT,
             "the axis points a and b coincide: they define no cylinder axis");
  }
cleanup:
  return rc;
}

/* The rows of e: local x, y, z at point x; 0 for a point on a cylindrical system's axis. */
static int axes(const dt_transform *tr, const double *x, double e[3][3]) {
  if (tr->kind == DT_TRANSFORM_RECT) {
    double s = 0.0;
    memcpy(e[0], tr->a, sizeof e[0]);
    normalize3(e[0]);
    s = dot3(tr->b, e[0]); /* y = b - (b . x) x, normalized */
    for (int k = 0; k < 3; k++) e[1][k] = tr->b[k] - s * e[0][k];
    normalize3(e[1]);
    cross3(e[0], e[1], e[2]);
    return 1;
  }
  {
    double r[3], h = 0.0, len = 0.0, ax = 0.0;
    for (int k = 0; k < 3; k++) e[2][k] = tr->b[k] - tr->a[k], r[k] = x[k] - tr->a[k];
    ax = normalize3(e[2]);
    len = sqrt(dot3(r, r));
    h = dot3(r, e[2]); /* r -= (r . z) z: the radial part */
    for (int k = 0; k < 3; k++) r[k] -= h * e[2][k];
    if (normalize3(r) <= 1e-10 * (len + ax)) return 0;
    memcpy(e[0], r, sizeof e[0]);
    cross3(e[2], e[0], e[1]);
    return 1;
  }
}

int dt_model_node_axes(const dt_model *m, int i, double e[3][3]) {
  if (!m->node_transform || m->node_transform[i] < 0) return 0;
  return axes(&m->transforms[m->node_transform[i]], m->x + 3 * (size_t)i, e);
}

/* One constraint row in global DOFs (col = 3 node + component), right-hand side per step. */
typedef struct lrow {
  int n, cap;
  int *col;
  double *val;
  double *rhs;
} lrow;

static dt_status lrow_add(lrow *r, int col, double v, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int k = 0; k < r->n; k++)
    if (r->col[k] == col) {
      r->val[k] += v;
      return DT_OK;
    }
  if (r->n == r->cap) {
    int cap = r->cap ? 2 * r->cap : 8;
    int *c = dt_realloc(r->col, sizeof *c * (size_t)cap);
    double *w = NULL;
    DT_CHECK(c != NULL, ctx, DT_ERR_NOMEM, "out of memory for transform constraints");
    r->col = c;
    w = dt_realloc(r->val, sizeof *w * (size_t)cap);
    DT_CHECK(w != NULL, ctx, DT_ERR_NOMEM, "out of memory for transform constraints");
    r->val = w;
    r->cap = cap;
  }
  r->col[r->n] = col;
  r->val[r->n++] = v;
cleanup:
  return rc;
}

static double lrow_get(const lrow *r, int col) {
  for (int k = 0; k < r->n; k++)
    if (r->col[k] == col) return r->val[k];
  return 0.0;
}

static void lrow_free(lrow *r) {
  dt_free(r->col);
  dt_free(r->val);
  dt_free(r->rhs);
  memset(r, 0, sizeof *r);
}

/* Term (node i, dof d, coefficient c) in global components: c e_d where i is transformed. */
static dt_status add_term(const dt_model *m, lrow *r, int i, int d, double c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double e[3][3];
  if (!dt_model_node_axes(m, i, e)) return lrow_add(r, 3 * i + d, c, ctx);
  for (int g = 0; g < 3; g++)
    if (e[d][g] != 0.0) DT_TRY(lrow_add(r, 3 * i + g, c * e[d][g], ctx));
cleanup:
  return rc;
}

/* The working state of dt_model_lower_transforms: tn transformed nodes, compact index tix. */
typedef struct lower {
  dt_model *m;
  int tn, ns;
  int *tix, *tnode;
  unsigned char *lmask; /* [step][tn]: local DOFs prescribed */
  double *lval;         /* [step][tn][3]: their values */
  double *lf;           /* [step][tn][3]: local concentrated loads */
  unsigned char *gmask; /* [tn]: global DOFs prescribed after elimination */
  double *gval;         /* [step][tn][3] */
  int *rem;             /* per original node set: its untransformed nodes' set, -1 none, -2 ? */
  int *tset;            /* [tn]: the node's one-item set, -1 until made */
} lower;

static dt_status add_nset(dt_model *m, const char *name, const int *items, int n, int *out,
                          dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_set *s = dt_realloc(m->nsets, sizeof *s * ((size_t)m->n_nsets + 1));
  DT_CHECK(s != NULL, ctx, DT_ERR_NOMEM, "out of memory for node sets");
  m->nsets = s;
  s += m->n_nsets;
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  DT_ALLOC(s->items, n, ctx, "node set");
  memcpy(s->items, items, sizeof(int) * (size_t)n);
  s->n = n;
  *out = m->n_nsets++;
cleanup:
  return rc;
}

/* Set `set` without its transformed nodes: -1 when none is left, `set` when none was there. */
static dt_status rest_set(lower *L, int set, int *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model *m = L->m;
  int *items = NULL, n = 0;
  char name[DT_NAME_MAX];
  if (L->rem[set] != -2) {
    *out = L->rem[set];
    return DT_OK;
  }
  DT_ALLOC(items, m->nsets[set].n, ctx, "node set");
  for (int i = 0; i < m->nsets[set].n; i++)
    if (L->tix[m->nsets[set].items[i]] < 0) items[n++] = m->nsets[set].items[i];
  if (n == m->nsets[set].n)
    L->rem[set] = set;
  else if (n == 0)
    L->rem[set] = -1;
  else {
    snprintf(name, sizeof name, "_G%.50s", m->nsets[set].name);
    DT_TRY(add_nset(m, name, items, n, &L->rem[set], ctx));
  }
  *out = L->rem[set];
cleanup:
  dt_free(items);
  return rc;
}

static dt_status node_set(lower *L, int j, int *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX];
  if (L->tset[j] < 0) {
    snprintf(name, sizeof name, "_T%lld", (long long)L->m->node_id[L->tnode[j]]);
    DT_TRY(add_nset(L->m, name, &L->tnode[j], 1, &L->tset[j], ctx));
  }
  *out = L->tset[j];
cleanup:
  return rc;
}

/* Step s's boundary conditions and loads: the local parts of transformed nodes into lmask,
 * lval, lf; what is left on untransformed nodes stays, on the remainder sets. */
static dt_status split_step(lower *L, int s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model *m = L->m;
  dt_step *st = &m->steps[s];
  int nb = 0, nc = 0;
  for (int b = 0; b < st->n_bc; b++) {
    dt_bc bc = st->bc[b];
    const dt_set *ns = &m->nsets[bc.nset];
    int rset = -1;
    DT_TRY(rest_set(L, bc.nset, &rset, ctx));
    for (int i = 0; i < ns->n && rset != bc.nset; i++) {
      int j = L->tix[ns->items[i]];
      if (j < 0) continue;
      DT_CHECK(!(bc.hold & bc.dofs) && !bc.velocity, ctx, DT_ERR_INPUT,
               "node %lld: FIXED (hold) and velocity boundary conditions in local directions "
               "are not supported",
               (long long)m->node_id[ns->items[i]]);
      DT_CHECK(!(bc.dofs & DT_DOF_ROT), ctx, DT_ERR_INPUT,
               "node %lld: rotations are not supported in local directions",
               (long long)m->node_id[ns->items[i]]);
      L->lmask[(size_t)s * L->tn + j] |= (unsigned char)bc.dofs;
      for (int d = 0; d < 3; d++)
        if (bc.dofs & (1u << d)) L->lval[((size_t)s * L->tn + j) * 3 + d] = bc.value[d];
    }
    if (rset < 0) continue;
    bc.nset = rset;
    st->bc[nb++] = bc;
  }
  st->n_bc = nb;
  for (int c = 0; c < st->n_cload; c++) {
    dt_cload cl = st->cload[c];
    const dt_set *ns = &m->nsets[cl.nset];
    int rset = -1;
    DT_TRY(rest_set(L, cl.nset, &rset, ctx));
    for (int i = 0; i < ns->n && rset != cl.nset; i++) {
      int j = L->tix[ns->items[i]];
      if (j < 0) continue;
      for (int d = 0; d < 3; d++) L->lf[((size_t)s * L->tn + j) * 3 + d] += cl.f[d];
    }
    if (rset < 0) continue;
    cl.nset = rset;
    st->cload[nc++] = cl;
  }
  st->n_cload = nc;
cleanup:
  return rc;
}

/* Gauss-Jordan on the rows of transformed node j (count k), over its three DOFs. */
static dt_status eliminate(lower *L, int j, lrow *rows, int k, int *pivot, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int node = L->tnode[j], used[3] = {0, 0, 0};
  DT_CHECK(k <= 3, ctx, DT_ERR_INPUT,
           "node %lld: %d local boundary conditions and equations constrain its 3 DOFs",
           (long long)L->m->node_id[node], k);
  for (int r = 0; r < k; r++) pivot[r] = -1;
  for (int step = 0; step < k; step++) {
    int br = -1, bg = -1;
    double best = 0.0, p = 0.0;
    for (int r = 0; r < k; r++)
      for (int g = 0; g < 3 && pivot[r] < 0; g++)
        if (!used[g] && fabs(lrow_get(&rows[r], 3 * node + g)) > best)
          best = fabs(lrow_get(&rows[r], 3 * node + g)), br = r, bg = g;
    DT_CHECK(br >= 0 && best > 1e-9, ctx, DT_ERR_INPUT,
             "node %lld: its local boundary conditions and the equations whose first term is on "
             "it are not independent (over-constrained)",
             (long long)L->m->node_id[node]);
    pivot[br] = 3 * node + bg;
    used[bg] = 1;
    p = lrow_get(&rows[br], pivot[br]); /* row br /= p, then row r -= a_r row br */
    for (int t = 0; t < rows[br].n; t++) rows[br].val[t] /= p;
    for (int s = 0; s < L->ns; s++) rows[br].rhs[s] /= p;
    for (int r = 0; r < k; r++) {
      double a = r == br ? 0.0 : lrow_get(&rows[r], pivot[br]);
      if (a == 0.0) continue;
      for (int t = 0; t < rows[br].n; t++)
        DT_TRY(lrow_add(&rows[r], rows[br].col[t], -a * rows[br].val[t], ctx));
      for (int s = 0; s < L->ns; s++) rows[r].rhs[s] -= a * rows[br].rhs[s];
    }
  }
cleanup:
  return rc;
}

/* A reduced row: an ordinary boundary condition when it holds its pivot alone, else a
 * homogeneous equation with the pivot first. */
static dt_status emit_row(lower *L, int j, lrow *r, int pivot, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model *m = L->m;
  int n = 1, *node = NULL, *dof = NULL, g = pivot % 3;
  double *coef = NULL;
  for (int t = 0; t < r->n; t++)
    if (r->col[t] != pivot && fabs(r->val[t]) > DT_TRANSFORM_EPS) n++;
  if (n == 1) {
    L->gmask[j] |= (unsigned char)(1u << g);
    for (int s = 0; s < L->ns; s++) L->gval[((size_t)s * L->tn + j) * 3 + g] = r->rhs[s];
    return DT_OK;
  }
  for (int s = 0; s < L->ns; s++)
    DT_CHECK(r->rhs[s] == 0.0, ctx, DT_ERR_INPUT,
             "node %lld: a nonzero prescribed value in a local direction that is not along a "
             "global axis is not supported (step %d \"%s\"; zero values are)",
             (long long)m->node_id[L->tnode[j]], s + 1, m->steps[s].name);
  DT_ALLOC(node, n, ctx, "equation terms");
  DT_ALLOC(dof, n, ctx, "equation terms");
  DT_ALLOC(coef, n, ctx, "equation terms");
  node[0] = pivot / 3, dof[0] = g, coef[0] = 1.0, n = 1;
  for (int t = 0; t < r->n; t++)
    if (r->col[t] != pivot && fabs(r->val[t]) > DT_TRANSFORM_EPS)
      node[n] = r->col[t] / 3, dof[n] = r->col[t] % 3, coef[n++] = r->val[t];
  DT_TRY(dt_model_add_equation(m, n, node, dof, coef, ctx));
cleanup:
  dt_free(node);
  dt_free(dof);
  dt_free(coef);
  return rc;
}

/* The equations of old in global components: those whose first term is on a transformed node
 * go to its rows (row_of), the others straight back into the model. */
static dt_status rewrite_equations(lower *L, const dt_equations *old, lrow *rows, const int *row_of,
                                   dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model *m = L->m;
  lrow r;
  memset(&r, 0, sizeof r);
  for (int e = 0; e < old->n; e++) {
    int first = old->ptr[e];
    lrow *dst = row_of[e] >= 0 ? &rows[row_of[e]] : &r;
    r.n = 0;
    for (int k = first; k < old->ptr[e + 1]; k++)
      DT_TRY(add_term(m, dst, old->node[k], old->dof[k], old->coef[k], ctx));
    if (row_of[e] >= 0) continue;
    {
      int *node = NULL, *dof = NULL;
      DT_ALLOC(node, r.n, ctx, "equation terms");
      dof = dt_calloc((size_t)r.n + 1, sizeof *dof);
      if (!dof) dt_free(node);
      DT_CHECK(dof != NULL, ctx, DT_ERR_NOMEM, "out of memory for equation terms");
      for (int t = 0; t < r.n; t++) node[t] = r.col[t] / 3, dof[t] = r.col[t] % 3;
      rc = dt_model_add_equation(m, r.n, node, dof, r.val, ctx);
      dt_free(node);
      dt_free(dof);
      if (rc != DT_OK) goto cleanup;
    }
  }
cleanup:
  lrow_free(&r);
  return rc;
}

/* The rows of each transformed node: its equations (first term on it), then its local boundary
 * conditions e_d . u = v; eliminated and emitted. */
static dt_status constrain_nodes(lower *L, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model *m = L->m;
  dt_equations old = m->eq;
  int *start = NULL, *fill = NULL, *row_of = NULL, total = 0, pivot[3];
  lrow *rows = NULL;
  memset(&m->eq, 0, sizeof m->eq);
  DT_ALLOC(start, L->tn + 1, ctx, "transform rows");
  DT_ALLOC(fill, L->tn, ctx, "transform rows");
  DT_ALLOC(row_of, old.n, ctx, "transform rows");
  for (int e = 0; e < old.n; e++) {
    int j = L->tix[old.node[old.ptr[e]]];
    row_of[e] = j;
    if (j >= 0) start[j + 1]++;
  }
  for (int j = 0; j < L->tn && L->ns > 0; j++)
    for (int d = 0; d < 3; d++) start[j + 1] += (L->lmask[j] >> d) & 1u;
  for (int j = 0; j < L->tn; j++) start[j + 1] += start[j];
  total = start[L->tn];
  DT_ALLOC(rows, total, ctx, "transform rows");
  for (int r = 0; r < total; r++) DT_ALLOC(rows[r].rhs, L->ns, ctx, "transform rows");
  for (int e = 0; e < old.n; e++)
    if (row_of[e] >= 0) row_of[e] = start[row_of[e]] + fill[row_of[e]]++;
  DT_TRY(rewrite_equations(L, &old, rows, row_of, ctx));
  for (int j = 0; j < L->tn; j++) {
    double e[3][3];
    dt_model_node_axes(m, L->tnode[j], e);
    for (int d = 0; d < 3; d++) {
      lrow *r = NULL;
      if (L->ns == 0 || !((L->lmask[j] >> d) & 1u)) continue;
      r = &rows[start[j] + fill[j]++];
      for (int g = 0; g < 3; g++) DT_TRY(lrow_add(r, 3 * L->tnode[j] + g, e[d][g], ctx));
      for (int s = 0; s < L->ns; s++) r->rhs[s] = L->lval[((size_t)s * L->tn + j) * 3 + d];
    }
    if (fill[j] == 0) continue;
    DT_TRY(eliminate(L, j, rows + start[j], fill[j], pivot, ctx));
    for (int r = 0; r < fill[j]; r++) DT_TRY(emit_row(L, j, &rows[start[j] + r], pivot[r], ctx));
  }
cleanup:
  for (int r = 0; rows && r < total; r++) lrow_free(&rows[r]);
  dt_free(rows);
  dt_free(start);
  dt_free(fill);
  dt_free(row_of);
  dt_free(old.ptr);
  dt_free(old.node);
  dt_free(old.dof);
  dt_free(old.coef);
  return rc;
}

static dt_status grow_step(dt_step *st, int n_bc, int n_cload, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_bc *b = dt_realloc(st->bc, sizeof *b * ((size_t)n_bc + 1));
  dt_cload *c = NULL;
  DT_CHECK(b != NULL, ctx, DT_ERR_NOMEM, "out of memory for boundary conditions");
  st->bc = b;
  c = dt_realloc(st->cload, sizeof *c * ((size_t)n_cload + 1));
  DT_CHECK(c != NULL, ctx, DT_ERR_NOMEM, "out of memory for concentrated loads");
  st->cload = c;
cleanup:
  return rc;
}

/* Per step: the global boundary conditions of the eliminated rows and the rotated loads. */
static dt_status add_globals(lower *L, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model *m = L->m;
  for (int s = 0; s < L->ns; s++) {
    dt_step *st = &m->steps[s];
    for (int j = 0; j < L->tn; j++) {
      const double *f = L->lf + ((size_t)s * L->tn + j) * 3;
      int set = -1, load = f[0] != 0.0 || f[1] != 0.0 || f[2] != 0.0;
      double e[3][3];
      if (!L->gmask[j] && !load) continue;
      DT_TRY(node_set(L, j, &set, ctx));
      DT_TRY(grow_step(st, st->n_bc + 1, st->n_cload + 1, ctx));
      if (L->gmask[j]) {
        dt_bc *b = &st->bc[st->n_bc++];
        memset(b, 0, sizeof *b);
        b->nset = set;
        b->dofs = L->gmask[j];
        memcpy(b->value, L->gval + ((size_t)s * L->tn + j) * 3, sizeof b->value);
      }
      if (load) { /* f = sum_k f_loc[k] e_k */
        dt_cload *c = &st->cload[st->n_cload++];
        dt_model_node_axes(m, L->tnode[j], e);
        c->nset = set;
        for (int g = 0; g < 3; g++) c->f[g] = f[0] * e[0][g] + f[1] * e[1][g] + f[2] * e[2][g];
      }
    }
  }
cleanup:
  return rc;
}

/* node_transform and the compact numbering of the transformed nodes. */
static dt_status number_nodes(lower *L, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model *m = L->m;
  double e[3][3];
  DT_ALLOC(m->node_transform, m->n_nodes, ctx, "node transforms");
  DT_ALLOC(L->tix, m->n_nodes, ctx, "node transforms");
  for (int i = 0; i < m->n_nodes; i++) m->node_transform[i] = L->tix[i] = -1;
  for (int t = 0; t < m->n_transforms; t++) {
    DT_CHECK(m->transforms[t].nset >= 0 && m->transforms[t].nset < m->n_nsets, ctx, DT_ERR_INPUT,
             "transform %d: the node set does not exist", t + 1);
    rc = dt_model_check_transform(m, t, ctx);
    if (rc != DT_OK) {
      dt_ctx_prefix(ctx, m->nsets[m->transforms[t].nset].name);
      goto cleanup;
    }
    for (int i = 0; i < m->nsets[m->transforms[t].nset].n; i++)
      m->node_transform[m->nsets[m->transforms[t].nset].items[i]] = t;
  }
  DT_ALLOC(L->tnode, m->n_nodes, ctx, "node transforms");
  for (int i = 0; i < m->n_nodes; i++) {
    if (m->node_transform[i] < 0) continue;
    DT_CHECK(dt_model_node_axes(m, i, e), ctx, DT_ERR_INPUT,
             "node %lld lies on the axis of its cylindrical *TRANSFORM (node set \"%s\"): its "
             "radial direction is undefined",
             (long long)m->node_id[i], m->nsets[m->transforms[m->node_transform[i]].nset].name);
    L->tnode[L->tn] = i;
    L->tix[i] = L->tn++;
  }
cleanup:
  return rc;
}

/* The local boundary conditions of a node must be the same DOFs in every step: the equations
 * they become hold for the whole analysis. */
static dt_status check_steps(lower *L, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int s = 1; s < L->ns; s++)
    for (int j = 0; j < L->tn; j++)
      DT_CHECK(L->lmask[(size_t)s * L->tn + j] == L->lmask[j], ctx, DT_ERR_INPUT,
               "node %lld: its boundary conditions must constrain the same local DOFs in every "
               "step (step %d \"%s\" differs from step 1)",
               (long long)L->m->node_id[L->tnode[j]], s + 1, L->m->steps[s].name);
cleanup:
  return rc;
}

dt_status dt_model_lower_transforms(dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  lower L;
  memset(&L, 0, sizeof L);
  L.m = m;
  L.ns = m->n_steps;
  if (m->n_transforms == 0) return DT_OK;
  for (int s = 0; s < m->n_steps; s++)
    DT_CHECK(m->steps[s].procedure == DT_PROC_STATIC, ctx, DT_ERR_INPUT,
             "*TRANSFORM is supported in static steps only (step %d \"%s\" is explicit)", s + 1,
             m->steps[s].name);
  DT_CHECK(m->dim == 3, ctx, DT_ERR_INPUT, "*TRANSFORM is supported in 3D models only");
  DT_TRY(number_nodes(&L, ctx));
  DT_ALLOC(L.lmask, (size_t)L.ns * L.tn + 1, ctx, "transform state");
  DT_ALLOC(L.lval, (size_t)L.ns * L.tn * 3 + 1, ctx, "transform state");
  DT_ALLOC(L.lf, (size_t)L.ns * L.tn * 3 + 1, ctx, "transform state");
  DT_ALLOC(L.gval, (size_t)L.ns * L.tn * 3 + 1, ctx, "transform state");
  DT_ALLOC(L.gmask, L.tn, ctx, "transform state");
  DT_ALLOC(L.tset, L.tn, ctx, "transform state");
  DT_ALLOC(L.rem, m->n_nsets, ctx, "transform state");
  for (int i = 0; i < m->n_nsets; i++) L.rem[i] = -2;
  for (int j = 0; j < L.tn; j++) L.tset[j] = -1;
  for (int s = 0; s < L.ns; s++) DT_TRY(split_step(&L, s, ctx));
  DT_TRY(check_steps(&L, ctx));
  DT_TRY(constrain_nodes(&L, ctx));
  DT_TRY(add_globals(&L, ctx));
cleanup:
  dt_free(L.tix);
  dt_free(L.tnode);
  dt_free(L.lmask);
  dt_free(L.lval);
  dt_free(L.lf);
  dt_free(L.gval);
  dt_free(L.gmask);
  dt_free(L.tset);
  dt_free(L.rem);
  return rc;
}
