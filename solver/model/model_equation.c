/* Linear multi-point constraints: storing, checking and resolving a model's equations.
 *
 * An equation sum_k c_k u_k = 0 makes its first term's DOF dependent,
 * u_d = sum_{k>0} (-c_k / c_d) u_k. The checks follow CalculiX's rules (a DOF is dependent once
 * and never also prescribed by a boundary condition). Resolution writes each dependent DOF in
 * independent DOFs only: where a term is itself dependent (CalculiX's cascaded equations, e.g.
 * u_178 = u_78 and u_78 = 1/4 (...) - 1/2 (...)) its own resolved row is substituted, round by
 * round, until every row holds independent DOFs; a round that resolves nothing while rows are
 * left means the remaining equations depend on each other in a cycle. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static dt_status grow(void **p, int *cap, int need, size_t size, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  void *q = NULL;
  int n = *cap > 0 ? *cap : 16;
  if (need <= *cap) return DT_OK;
  while (n < need) {
    DT_CHECK(n <= (1 << 29), ctx, DT_ERR_INPUT, "too many equation terms (more than 2^30)");
    n *= 2;
  }
  DT_CHECK((q = dt_realloc(*p, (size_t)n * size)) != NULL, ctx, DT_ERR_NOMEM,
           "out of memory for %d equation entries", n);
  *p = q;
  *cap = n;
cleanup:
  return rc;
}

dt_status dt_model_add_equation(dt_model *m, int n, const int *node, const int *dof,
                                const double *coef, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_equations *eq = &m->eq;
  int base = eq->n ? eq->ptr[eq->n] : 0, cap = 0;
  DT_CHECK(n >= 1, ctx, DT_ERR_INPUT, "an equation needs at least one term");
  DT_TRY(grow((void **)&eq->ptr, &eq->cap, eq->n + 2, sizeof *eq->ptr, ctx));
  /* the three term arrays share cap_terms: each grows from the same old capacity */
  cap = eq->cap_terms;
  DT_TRY(grow((void **)&eq->node, &cap, base + n, sizeof *eq->node, ctx));
  cap = eq->cap_terms;
  DT_TRY(grow((void **)&eq->dof, &cap, base + n, sizeof *eq->dof, ctx));
  cap = eq->cap_terms;
  DT_TRY(grow((void **)&eq->coef, &cap, base + n, sizeof *eq->coef, ctx));
  eq->cap_terms = cap;
  eq->ptr[0] = 0;
  for (int k = 0; k < n; k++) {
    eq->node[base + k] = node[k];
    eq->dof[base + k] = (unsigned char)(dof[k] >= 0 && dof[k] < 3 ? dof[k] : 255);
    eq->coef[base + k] = coef[k];
  }
  eq->ptr[eq->n + 1] = base + n;
  eq->n++;
cleanup:
  return rc;
}

#define EQ_FAIL(e, ...)                                                                            \
  do {                                                                                             \
    *bad = (e);                                                                                    \
    rc = DT_ERROR(ctx, DT_ERR_INPUT, __VA_ARGS__);                                                 \
    goto cleanup;                                                                                  \
  } while (0)

/* The terms one by one: nodes, DOFs, finite coefficients, the dependent term's. */
static dt_status check_terms(const dt_model *m, int e, int *bad, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_equations *eq = &m->eq;
  int first = eq->ptr[e], n = eq->ptr[e + 1] - first;
  if (n < 1) EQ_FAIL(e, "an equation needs at least one term");
  for (int k = first; k < first + n; k++) {
    if (eq->node[k] < 0 || eq->node[k] >= m->n_nodes)
      EQ_FAIL(e, "term %d: the node does not exist", k - first + 1);
    if (eq->dof[k] >= m->dim)
      EQ_FAIL(e, "term %d (node %lld): DOF %d is not a displacement of a %dD model (1-%d)",
              k - first + 1, (long long)m->node_id[eq->node[k]], eq->dof[k] + 1, m->dim, m->dim);
    if (!isfinite(eq->coef[k]))
      EQ_FAIL(e, "term %d (node %lld, DOF %d): the coefficient is not a finite number",
              k - first + 1, (long long)m->node_id[eq->node[k]], eq->dof[k] + 1);
    if (k > first && eq->node[k] == eq->node[first] && eq->dof[k] == eq->dof[first])
      EQ_FAIL(e,
              "the dependent DOF (node %lld, DOF %d, the first term) appears again as term %d: "
              "write it once",
              (long long)m->node_id[eq->node[k]], eq->dof[k] + 1, k - first + 1);
  }
  if (eq->coef[first] == 0.0)
    EQ_FAIL(e,
            "the first term (node %lld, DOF %d) is the dependent DOF and needs a nonzero "
            "coefficient",
            (long long)m->node_id[eq->node[first]], eq->dof[first] + 1);
cleanup:
  return rc;
}

/* A dependent DOF prescribed by a boundary condition of some step. */
static dt_status check_boundary(const dt_model *m, const int *dep, int *bad, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int s = 0; s < m->n_steps; s++)
    for (int b = 0; b < m->steps[s].n_bc; b++) {
      const dt_bc *bc = &m->steps[s].bc[b];
      const dt_set *ns = bc->nset >= 0 && bc->nset < m->n_nsets ? &m->nsets[bc->nset] : NULL;
      for (int i = 0; ns && i < ns->n; i++)
        for (int d = 0; d < 3; d++) {
          int e = dep[3 * (size_t)ns->items[i] + d];
          if (e < 0 || !(bc->dofs & (1u << d))) continue;
          EQ_FAIL(e,
                  "node %lld, DOF %d is the dependent DOF of this equation and is also "
                  "constrained by a boundary condition of step %d \"%s\" (node set \"%s\"): a "
                  "DOF cannot be both; make another term of the equation its first",
                  (long long)m->node_id[ns->items[i]], d + 1, s + 1, m->steps[s].name, ns->name);
        }
    }
cleanup:
  return rc;
}

dt_status dt_model_check_equations(const dt_model *m, int *bad, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_equations *eq = &m->eq;
  int *dep = NULL; /* per node and DOF (3 per node): the equation it is dependent in, or -1 */
  dt_mpc mpc;
  memset(&mpc, 0, sizeof mpc);
  *bad = -1;
  if (eq->n == 0) return DT_OK;
  for (int s = 0; s < m->n_steps; s++)
    if (m->steps[s].procedure != DT_PROC_STATIC)
      EQ_FAIL(0, "equations are supported in static steps only (step %d \"%s\" is explicit)", s + 1,
              m->steps[s].name);
  DT_ALLOC(dep, 3 * (size_t)m->n_nodes, ctx, "dependent DOF map");
  for (size_t i = 0; i < 3 * (size_t)m->n_nodes; i++) dep[i] = -1;
  for (int e = 0; e < eq->n; e++) {
    size_t d;
    DT_TRY(check_terms(m, e, bad, ctx));
    d = 3 * (size_t)eq->node[eq->ptr[e]] + eq->dof[eq->ptr[e]];
    if (dep[d] >= 0)
      EQ_FAIL(e,
              "node %lld, DOF %d is already the dependent DOF (first term) of equation %d "
              "(counting from 1; equations[%d] of a job file): a DOF can be dependent in one "
              "equation only",
              (long long)m->node_id[eq->node[eq->ptr[e]]], eq->dof[eq->ptr[e]] + 1, dep[d] + 1,
              dep[d]);
    dep[d] = e;
  }
  DT_TRY(check_boundary(m, dep, bad, ctx));
  DT_TRY(dt_model_equations_resolve(m, m->dim, &mpc, bad, ctx));
cleanup:
  dt_free(dep);
  dt_mpc_free(&mpc);
  return rc;
}

/* One resolved row: (col, val) pairs, sorted and merged by finish_row. */
typedef struct row {
  int n, cap;
  int *col;
  double *val;
} row;

static dt_status row_push(row *r, int col, double val, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int cap = r->cap;
  if (r->n == r->cap) {
    DT_TRY(grow((void **)&r->col, &cap, r->n + 1, sizeof *r->col, ctx));
    cap = r->cap;
    DT_TRY(grow((void **)&r->val, &cap, r->n + 1, sizeof *r->val, ctx));
    r->cap = cap;
  }
  r->col[r->n] = col;
  r->val[r->n++] = val;
cleanup:
  return rc;
}

/* Sort by column (insertion sort: rows are short) and add up repeated columns. */
static void finish_row(row *r) {
  int n = 0;
  for (int i = 1; i < r->n; i++) {
    int c = r->col[i];
    double v = r->val[i];
    int j = i - 1;
    for (; j >= 0 && r->col[j] > c; j--) r->col[j + 1] = r->col[j], r->val[j + 1] = r->val[j];
    r->col[j + 1] = c;
    r->val[j + 1] = v;
  }
  for (int i = 0; i < r->n; i++) {
    if (n > 0 && r->col[n - 1] == r->col[i])
      r->val[n - 1] += r->val[i];
    else
      r->col[n] = r->col[i], r->val[n++] = r->val[i];
  }
  r->n = n;
}

/* Equation e's row from its terms, each dependent term replaced by its resolved row; 0 in
 * *ready (nothing written) while one of those rows is not resolved yet. */
static dt_status resolve_one(const dt_model *m, int dpn, int e, const int *dep, row *rows,
                             const unsigned char *done, int *ready, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_equations *eq = &m->eq;
  int first = eq->ptr[e];
  *ready = 1;
  for (int k = first + 1; k < eq->ptr[e + 1]; k++) {
    int col = dpn * eq->node[k] + eq->dof[k];
    if (dep[col] >= 0 && !done[dep[col]]) *ready = 0;
  }
  if (!*ready) return DT_OK;
  for (int k = first + 1; k < eq->ptr[e + 1]; k++) {
    int col = dpn * eq->node[k] + eq->dof[k];
    double a = -eq->coef[k] / eq->coef[first];
    if (dep[col] < 0) {
      DT_TRY(row_push(&rows[e], col, a, ctx));
      continue;
    }
    for (int j = 0; j < rows[dep[col]].n; j++)
      DT_TRY(row_push(&rows[e], rows[dep[col]].col[j], a * rows[dep[col]].val[j], ctx));
  }
  finish_row(&rows[e]);
cleanup:
  return rc;
}

/* Copy the resolved rows into out (CSR). */
static dt_status pack(const dt_model *m, int dpn, const row *rows, dt_mpc *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_equations *eq = &m->eq;
  long total = 0;
  for (int e = 0; e < eq->n; e++) total += rows[e].n;
  out->n = eq->n;
  DT_ALLOC(out->dof, eq->n, ctx, "dependent DOFs");
  DT_ALLOC(out->ptr, eq->n + 1, ctx, "constraint rows");
  DT_ALLOC(out->col, total, ctx, "constraint columns");
  DT_ALLOC(out->val, total, ctx, "constraint values");
  for (int e = 0; e < eq->n; e++) {
    out->dof[e] = dpn * eq->node[eq->ptr[e]] + eq->dof[eq->ptr[e]];
    out->ptr[e + 1] = out->ptr[e] + rows[e].n;
    memcpy(out->col + out->ptr[e], rows[e].col, sizeof(int) * (size_t)rows[e].n);
    memcpy(out->val + out->ptr[e], rows[e].val, sizeof(double) * (size_t)rows[e].n);
  }
cleanup:
  return rc;
}

dt_status dt_model_equations_resolve(const dt_model *m, int dpn, dt_mpc *out, int *bad,
                                     dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_equations *eq = &m->eq;
  int *dep = NULL, left = eq->n;
  unsigned char *done = NULL;
  row *rows = NULL;
  memset(out, 0, sizeof *out);
  *bad = -1;
  if (eq->n == 0) return DT_OK;
  DT_ALLOC(dep, (size_t)dpn * m->n_nodes, ctx, "dependent DOF map");
  DT_ALLOC(done, eq->n, ctx, "equation flags");
  DT_ALLOC(rows, eq->n, ctx, "constraint rows");
  for (size_t i = 0; i < (size_t)dpn * m->n_nodes; i++) dep[i] = -1;
  for (int e = 0; e < eq->n; e++) dep[dpn * eq->node[eq->ptr[e]] + eq->dof[eq->ptr[e]]] = e;
  while (left > 0) {
    int resolved = 0, first_left = -1;
    for (int e = 0; e < eq->n; e++) {
      int ready = 0;
      if (done[e]) continue;
      DT_TRY(resolve_one(m, dpn, e, dep, rows, done, &ready, ctx));
      if (!ready && first_left < 0) first_left = e;
      done[e] = (unsigned char)ready;
      resolved += ready;
    }
    left -= resolved;
    if (left > 0 && resolved == 0)
      EQ_FAIL(first_left,
              "the equations form a cycle: the dependent DOF (node %lld, DOF %d) depends, "
              "through other equations, on itself",
              (long long)m->node_id[eq->node[eq->ptr[first_left]]],
              eq->dof[eq->ptr[first_left]] + 1);
  }
  DT_TRY(pack(m, dpn, rows, out, ctx));
cleanup:
  for (int e = 0; rows && e < eq->n; e++) {
    dt_free(rows[e].col);
    dt_free(rows[e].val);
  }
  dt_free(rows);
  dt_free(done);
  dt_free(dep);
  if (rc != DT_OK) dt_mpc_free(out);
  return rc;
}

void dt_mpc_free(dt_mpc *mpc) {
  dt_free(mpc->dof);
  dt_free(mpc->ptr);
  dt_free(mpc->col);
  dt_free(mpc->val);
  memset(mpc, 0, sizeof *mpc);
}
