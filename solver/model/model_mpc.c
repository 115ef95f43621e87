/* CalculiX's nonlinear multi-point constraints (rigid bodies, mean rotations) as linear
 * equations, and the rules of the nodes that carry only constraint DOFs.
 *
 * CalculiX writes these constraints with the rotation as a nodal unknown: a rigid body's
 * rotation is the displacement of its rotation node, a mean rotation is DOF 1 of its angle
 * node, and those nodes belong to no element. In a step without NLGEOM it solves once with the
 * coefficients taken at the undeformed state (its "linear applications"), which are the
 * linearisations written here; ductile then eliminates them as it eliminates *EQUATION
 * (model_equation.c, analysis/constraints.c).
 *
 * A DOF without stiffness cannot stay a free unknown of the reduced system (its diagonal block,
 * which the preconditioners invert, is zero). So a DOF of a node no element uses is either
 * dependent (the lowering below makes a free rotation or reference DOF dependent), prescribed
 * in every step, or in no equation at all; the backends then treat all of them as constrained
 * rows (problem/loads.c), and the reduced operator drops the identity those rows carry
 * (DT_MPC_ZERO_ISOLATED), so nothing in K changes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* Per node and DOF (3 per node): the number of steps with a boundary condition there. */
static dt_status bc_counts(const dt_model *m, int **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *c = NULL;
  DT_ALLOC(c, 3 * (size_t)m->n_nodes, ctx, "boundary condition map");
  for (int s = 0; s < m->n_steps; s++) {
    unsigned char *seen = NULL;
    DT_ALLOC(seen, 3 * (size_t)m->n_nodes, ctx, "boundary condition map");
    for (int b = 0; b < m->steps[s].n_bc; b++) {
      const dt_bc *bc = &m->steps[s].bc[b];
      const dt_set *ns = &m->nsets[bc->nset];
      for (int i = 0; i < ns->n; i++)
        for (int d = 0; d < 3; d++)
          if (bc->dofs & (1u << d)) seen[3 * (size_t)ns->items[i] + d] = 1;
    }
    for (size_t k = 0; k < 3 * (size_t)m->n_nodes; k++) c[k] += seen[k];
    dt_free(seen);
  }
  *out = c;
  c = NULL;
cleanup:
  dt_free(c);
  return rc;
}

static unsigned char *node_used(const dt_model *m) {
  unsigned char *u = calloc((size_t)m->n_nodes + 1, 1);
  if (!u) return NULL;
  for (int k = 0; k < m->elem_ptr[m->n_elems]; k++) u[m->conn[k]] = 1;
  return u;
}

static dt_status add_force(dt_model *m, int dep_node, int dep_dof, int node, int dof, double c,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (c == 0.0) return DT_OK;
  if (m->n_mpc_forces == m->cap_mpc_forces) {
    int cap = m->cap_mpc_forces ? 2 * m->cap_mpc_forces : 64;
    dt_mpc_force *q = dt_realloc(m->mpc_forces, sizeof *q * (size_t)cap);
    DT_CHECK(q != NULL, ctx, DT_ERR_NOMEM, "out of memory for constraint forces");
    m->mpc_forces = q;
    m->cap_mpc_forces = cap;
  }
  m->mpc_forces[m->n_mpc_forces++] =
      (dt_mpc_force){dep_node, node, (unsigned char)dep_dof, (unsigned char)dof, c};
cleanup:
  return rc;
}

/* The body's nodes once each, without ref and rot. */
static dt_status body_nodes(const dt_model *m, const int *nodes, int n, int ref, int rot, int **out,
                            int *n_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  unsigned char *seen = NULL;
  int *list = NULL, k = 0;
  DT_ALLOC(seen, (size_t)m->n_nodes, ctx, "rigid body nodes");
  DT_ALLOC(list, (size_t)n + 1, ctx, "rigid body nodes");
  for (int i = 0; i < n; i++) {
    int a = nodes[i];
    DT_CHECK(a >= 0 && a < m->n_nodes, ctx, DT_ERR_INPUT, "a node of the body does not exist");
    if (a == ref || a == rot || seen[a]) continue;
    seen[a] = 1;
    list[k++] = a;
  }
  *out = list;
  *n_out = k;
  list = NULL;
cleanup:
  dt_free(seen);
  dt_free(list);
  return rc;
}

/* C[d][k]: the coefficient of theta_k in (theta x r)_d. */
static void cross_matrix(const double r[3], double C[3][3]) {
  C[0][0] = C[1][1] = C[2][2] = 0.0;
  C[0][1] = r[2], C[0][2] = -r[1];
  C[1][0] = -r[2], C[1][2] = r[0];
  C[2][0] = r[1], C[2][1] = -r[0];
}

/* Row (i, d) of a rigid body: u_i,d - u_ref,d - sum_k C_dk theta_k = 0; its coefficients on the
 * six DOFs of ref (0-2) and rot (3-5). */
static void rigid_row(const dt_model *m, int node, int d, int ref, double c[6]) {
  double r[3], C[3][3];
  for (int j = 0; j < 3; j++) r[j] = m->x[3 * (size_t)node + j] - m->x[3 * (size_t)ref + j];
  cross_matrix(r, C);
  for (int k = 0; k < 3; k++) {
    c[k] = k == d ? -1.0 : 0.0;
    c[3 + k] = -C[d][k];
  }
}

/* Invert the n x n matrix a (row-major, n <= 6) by Gauss-Jordan with partial pivoting; 0 when
 * singular. */
static int invert(double *a, int n) {
  double b[36];
  for (int i = 0; i < n * n; i++) b[i] = (i / n == i % n) ? 1.0 : 0.0;
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(a[r * n + c]) > fabs(a[p * n + c])) p = r;
    if (a[p * n + c] == 0.0) return 0;
    for (int j = 0; j < n; j++) {
      double t = a[c * n + j];
      a[c * n + j] = a[p * n + j], a[p * n + j] = t;
      t = b[c * n + j], b[c * n + j] = b[p * n + j], b[p * n + j] = t;
    }
    double inv = 1.0 / a[c * n + c];
    for (int j = 0; j < n; j++) a[c * n + j] *= inv, b[c * n + j] *= inv;
    for (int r = 0; r < n; r++) {
      double f = a[r * n + c];
      if (r == c || f == 0.0) continue;
      for (int j = 0; j < n; j++)
        a[r * n + j] -= f * a[c * n + j], b[r * n + j] -= f * b[c * n + j];
    }
  }
  memcpy(a, b, sizeof(double) * (size_t)n * n);
  return 1;
}

/* Choose |F| rows of the body whose coefficients on the free DOFs F of ref and rot are
 * independent (Gaussian elimination, largest pivot first); row r is body node r / 3, DOF r % 3.
 * piv[t] is the row chosen for the t-th pivot. */
static dt_status choose_pivots(const dt_model *m, const int *body, int nb, int ref, const int *F,
                               int nf, int *piv, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *M = NULL, scale = 0.0;
  unsigned char *used_row = NULL, used_col[6] = {0};
  int rows = 3 * nb;
  DT_ALLOC(M, (size_t)rows * 6, ctx, "rigid body pivots");
  DT_ALLOC(used_row, (size_t)rows, ctx, "rigid body pivots");
  for (int r = 0; r < rows; r++) {
    double c[6];
    rigid_row(m, body[r / 3], r % 3, ref, c);
    for (int f = 0; f < nf; f++) {
      M[6 * (size_t)r + f] = c[F[f]];
      if (fabs(c[F[f]]) > scale) scale = fabs(c[F[f]]);
    }
  }
  for (int t = 0; t < nf; t++) {
    int pr = -1, pc = -1;
    double best = 0.0;
    for (int r = 0; r < rows; r++)
      for (int f = 0; !used_row[r] && f < nf; f++)
        if (!used_col[f] && fabs(M[6 * (size_t)r + f]) > best)
          best = fabs(M[6 * (size_t)r + f]), pr = r, pc = f;
    DT_CHECK(pr >= 0 && best > 1e-9 * scale, ctx, DT_ERR_INPUT,
             "the body's %d node(s) do not determine its motion (they lie on a line or "
             "coincide, so some rotation moves none of them): hold the rotation node's DOFs "
             "that they leave free, or give the body more nodes",
             nb);
    piv[t] = pr;
    used_row[pr] = used_col[pc] = 1;
    for (int r = 0; r < rows; r++) {
      double a = M[6 * (size_t)r + pc] / M[6 * (size_t)pr + pc];
      if (used_row[r] || a == 0.0) continue;
      for (int f = 0; f < nf; f++) M[6 * (size_t)r + f] -= a * M[6 * (size_t)pr + f];
    }
  }
cleanup:
  dt_free(M);
  dt_free(used_row);
  return rc;
}

dt_status dt_model_add_rigid_body(dt_model *m, const int *nodes, int n, int ref, int rot,
                                  dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *body = NULL, nb = 0, *bcc = NULL, F[6], nf = 0, piv[6], xnode[6], xdof[6];
  unsigned char *used = NULL, *is_piv = NULL;
  double A[36];
  DT_CHECK(ref >= 0 && ref < m->n_nodes && rot >= 0 && rot < m->n_nodes && ref != rot, ctx,
           DT_ERR_INPUT, "the reference and rotation nodes must be two existing nodes");
  DT_TRY(body_nodes(m, nodes, n, ref, rot, &body, &nb, ctx));
  DT_CHECK(nb > 0, ctx, DT_ERR_INPUT,
           "the rigid body has no nodes besides its reference and rotation nodes");
  DT_TRY(bc_counts(m, &bcc, ctx));
  DT_CHECK((used = node_used(m)) != NULL, ctx, DT_ERR_NOMEM, "out of memory for node flags");
  for (int k = 0; k < 6; k++) {
    xnode[k] = k < 3 ? ref : rot;
    xdof[k] = k % 3;
    if (!used[xnode[k]] && bcc[3 * (size_t)xnode[k] + xdof[k]] == 0) F[nf++] = k;
  }
  DT_ALLOC(is_piv, 3 * (size_t)nb, ctx, "rigid body pivots");
  if (nf > 0) {
    DT_TRY(choose_pivots(m, body, nb, ref, F, nf, piv, ctx));
    for (int t = 0; t < nf; t++) is_piv[piv[t]] = 1;
    /* A F + G = 0 over the pivot rows; F = -A^-1 G */
    for (int t = 0; t < nf; t++) {
      double c[6];
      rigid_row(m, body[piv[t] / 3], piv[t] % 3, ref, c);
      for (int f = 0; f < nf; f++) A[t * nf + f] = c[F[f]];
    }
    DT_CHECK(invert(A, nf), ctx, DT_ERR_INTERNAL, "rigid body: singular pivot block");
    for (int f = 0; f < nf; f++) {
      int node[1 + 6 + 6], dof[1 + 6 + 6], nt = 0;
      double coef[1 + 6 + 6], g[6] = {0};
      node[nt] = xnode[F[f]], dof[nt] = xdof[F[f]], coef[nt++] = 1.0;
      for (int t = 0; t < nf; t++) {
        double c[6];
        rigid_row(m, body[piv[t] / 3], piv[t] % 3, ref, c);
        node[nt] = body[piv[t] / 3], dof[nt] = piv[t] % 3, coef[nt++] = A[f * nf + t];
        for (int k = 0; k < 6; k++) g[k] += A[f * nf + t] * c[k];
      }
      for (int k = 0; k < 6; k++) {
        int is_f = 0;
        for (int q = 0; q < nf; q++) is_f |= F[q] == k;
        if (is_f || g[k] == 0.0) continue;
        node[nt] = xnode[k], dof[nt] = xdof[k], coef[nt++] = g[k];
      }
      DT_TRY(dt_model_add_equation(m, nt, node, dof, coef, ctx));
    }
  }
  for (int r = 0; r < 3 * nb; r++) {
    int node[7], dof[7], nt = 0;
    double c[6], coef[7];
    rigid_row(m, body[r / 3], r % 3, ref, c);
    for (int k = 0; k < 6; k++) /* CalculiX's T^T: the body's nodes dependent */
      DT_TRY(add_force(m, body[r / 3], r % 3, xnode[k], xdof[k], -c[k], ctx));
    if (is_piv[r]) continue;
    node[nt] = body[r / 3], dof[nt] = r % 3, coef[nt++] = 1.0;
    for (int k = 0; k < 6; k++)
      if (c[k] != 0.0) node[nt] = xnode[k], dof[nt] = xdof[k], coef[nt++] = c[k];
    DT_TRY(dt_model_add_equation(m, nt, node, dof, coef, ctx));
  }
cleanup:
  dt_free(body);
  dt_free(bcc);
  free(used);
  dt_free(is_piv);
  return rc;
}

dt_status dt_model_add_meanrot(dt_model *m, const int *nodes, int n, int rot, int *skipped,
                               dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double a[3], len = 0.0, cg[3] = {0, 0, 0}, stdev = 0.0, *c = NULL, *coef = NULL;
  int *bcc = NULL, *node = NULL, *dof = NULL, dep = -1, nt = 0, free_angle = 0;
  unsigned char *used = NULL, *depf = NULL;
  *skipped = 0;
  DT_CHECK(n >= 1, ctx, DT_ERR_INPUT,
           "a mean rotation needs at least one node besides its angle node");
  DT_CHECK(rot >= 0 && rot < m->n_nodes, ctx, DT_ERR_INPUT, "the angle node does not exist");
  for (int j = 0; j < 3; j++) a[j] = m->x[3 * (size_t)rot + j], len += a[j] * a[j];
  len = sqrt(len);
  DT_CHECK(len > 1e-10, ctx, DT_ERR_INPUT,
           "the angle node %lld is at the origin: its coordinates are the rotation axis and must "
           "not be zero",
           (long long)m->node_id[rot]);
  for (int j = 0; j < 3; j++) a[j] /= len;
  for (int i = 0; i < n; i++) {
    DT_CHECK(nodes[i] >= 0 && nodes[i] < m->n_nodes && nodes[i] != rot, ctx, DT_ERR_INPUT,
             "the nodes of a mean rotation must exist and differ from its angle node");
    for (int j = 0; j < 3; j++) cg[j] += m->x[3 * (size_t)nodes[i] + j] / n;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 3; j++) stdev += pow(m->x[3 * (size_t)nodes[i] + j] - cg[j], 2) / n;
  stdev = sqrt(stdev);
  DT_ALLOC(c, 3 * (size_t)n + 1, ctx, "mean rotation terms");
  DT_ALLOC(node, 3 * (size_t)n + 1, ctx, "mean rotation terms");
  DT_ALLOC(dof, 3 * (size_t)n + 1, ctx, "mean rotation terms");
  DT_ALLOC(coef, 3 * (size_t)n + 1, ctx, "mean rotation terms");
  /* d/du_k of sum_i asin(a . (p_i x (u_i - u_mean)) / |p_i|^2) at u = 0 */
  for (int i = 0; i < n; i++) {
    double p[3], pa = 0.0, pp = 0.0, ap[3];
    for (int j = 0; j < 3; j++) p[j] = m->x[3 * (size_t)nodes[i] + j] - cg[j], pa += p[j] * a[j];
    for (int j = 0; j < 3; j++) p[j] -= pa * a[j], pp += p[j] * p[j];
    if (pp < stdev * 1e-10) { /* on the axis: CalculiX leaves the node out, with a warning */
      (*skipped)++;
      continue;
    }
    ap[0] = a[1] * p[2] - a[2] * p[1];
    ap[1] = a[2] * p[0] - a[0] * p[2];
    ap[2] = a[0] * p[1] - a[1] * p[0];
    for (int k = 0; k < n; k++)
      for (int j = 0; j < 3; j++)
        c[3 * (size_t)k + j] += ap[j] / pp * ((k == i ? 1.0 : 0.0) - 1.0 / n);
  }
  DT_TRY(bc_counts(m, &bcc, ctx));
  DT_CHECK((used = node_used(m)) != NULL, ctx, DT_ERR_NOMEM, "out of memory for node flags");
  DT_ALLOC(depf, 3 * (size_t)m->n_nodes, ctx, "dependent DOF flags");
  for (int e = 0; e < m->eq.n; e++)
    depf[3 * (size_t)m->eq.node[m->eq.ptr[e]] + m->eq.dof[m->eq.ptr[e]]] = 1;
  /* CalculiX's dependent DOF: the largest coefficient above 1e-5 of the first node that has
   * one on a DOF neither dependent nor held */
  for (int i = 0; i < n && dep < 0; i++) {
    double best = 1e-5;
    for (int j = 0; j < 3; j++) {
      size_t g = 3 * (size_t)nodes[i] + j;
      if (fabs(c[3 * i + j]) > best && !depf[g] && bcc[g] == 0)
        best = fabs(c[3 * i + j]), dep = 3 * i + j;
    }
  }
  /* the angle first where it is free (a DOF without stiffness stays dependent), else
   * CalculiX's dependent DOF */
  free_angle = !used[rot] && bcc[3 * (size_t)rot] == 0;
  DT_CHECK(free_angle || dep >= 0, ctx, DT_ERR_INPUT,
           "no DOF of the mean rotation's nodes can be its dependent one (all are held, already "
           "dependent, or have coefficients below 1e-5)");
  if (free_angle)
    node[nt] = rot, dof[nt] = 0, coef[nt++] = -(double)n;
  else
    node[nt] = nodes[dep / 3], dof[nt] = dep % 3, coef[nt++] = c[dep];
  for (int k = 0; k < 3 * n; k++)
    if ((free_angle || k != dep) && c[k] != 0.0)
      node[nt] = nodes[k / 3], dof[nt] = k % 3, coef[nt++] = c[k];
  if (!free_angle) node[nt] = rot, dof[nt] = 0, coef[nt++] = -(double)n;
  DT_TRY(dt_model_add_equation(m, nt, node, dof, coef, ctx));
  /* CalculiX's T^T at the angle DOF: its dependent DOF's force times n / c_dep */
  if (dep >= 0) DT_TRY(add_force(m, nodes[dep / 3], dep % 3, rot, 0, (double)n / c[dep], ctx));
cleanup:
  dt_free(c);
  dt_free(coef);
  dt_free(node);
  dt_free(dof);
  dt_free(bcc);
  free(used);
  dt_free(depf);
  return rc;
}

#define ISO_FAIL(node, ...)                                                                        \
  do {                                                                                             \
    *bad_node = (node);                                                                            \
    rc = DT_ERROR(ctx, DT_ERR_INPUT, __VA_ARGS__);                                                 \
    goto cleanup;                                                                                  \
  } while (0)

dt_status dt_model_check_isolated(dt_model *m, int *bad_node, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  unsigned char *used = NULL;
  int *bcc = NULL, bad = -1, any = 0;
  dt_mpc mpc;
  memset(&mpc, 0, sizeof mpc);
  *bad_node = -1;
  dt_free(m->node_isolated);
  m->node_isolated = NULL;
  DT_CHECK((used = node_used(m)) != NULL, ctx, DT_ERR_NOMEM, "out of memory for node flags");
  for (int i = 0; i < m->n_nodes; i++) any |= !used[i];
  if (!any) goto cleanup;
  for (int i = 0; i < m->n_nodes; i++) {
    if (used[i]) continue;
    for (int s = 0; s < m->n_steps; s++)
      if (m->steps[s].procedure != DT_PROC_STATIC)
        ISO_FAIL(i,
                 "node %lld, which only constraints use, is supported in static steps only "
                 "(step %d \"%s\" is explicit)",
                 (long long)m->node_id[i], s + 1, m->steps[s].name);
  }
  DT_TRY(bc_counts(m, &bcc, ctx));
  DT_TRY(dt_model_equations_resolve(m, 3, &mpc, &bad, ctx));
  for (int k = 0; mpc.n && k < mpc.ptr[mpc.n]; k++) {
    int a = mpc.col[k] / 3, d = mpc.col[k] % 3;
    if (!used[a] && bcc[mpc.col[k]] != m->n_steps)
      ISO_FAIL(a,
               "node %lld is used by no element, so its DOF %d has no stiffness, and it is an "
               "independent term of the constraints: give it a boundary condition in every step "
               "or make it the dependent term",
               (long long)m->node_id[a], d + 1);
  }
  DT_ALLOC(m->node_isolated, (size_t)m->n_nodes, ctx, "node flags");
  for (int i = 0; i < m->n_nodes; i++) m->node_isolated[i] = !used[i];
cleanup:
  free(used);
  dt_free(bcc);
  dt_mpc_free(&mpc);
  return rc;
}

void dt_model_mpc_forces(const dt_model *m, double *f) {
  for (int k = 0; m->node_isolated && k < m->n_mpc_forces; k++) {
    const dt_mpc_force *t = &m->mpc_forces[k];
    if (!m->node_isolated[t->node]) continue; /* a node with elements keeps its own force */
    f[3 * (size_t)t->node + t->dof] += t->coef * f[3 * (size_t)t->dep_node + t->dep_dof];
  }
}
