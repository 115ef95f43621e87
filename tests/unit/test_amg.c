/* The pieces of the smoothed-aggregation hierarchy (solver/amg/), on the CPU backend's tangent
 * of small hex8 (3D) and quad4 (2D) boxes, levels forced by a small max_coarse:
 * 1. P_tent reproduces the near-null space: P_tent B_c = B on every row to 1e-12 (relative to
 *    max |B|), and its columns are orthonormal (P_tent^T P_tent = I to 1e-12);
 * 2. P = (I - omega D^-1 A) P_tent with omega = 4 / (3 lambda_max) (to 1e-12), and R = P^T
 *    exactly (same entries, bit for bit);
 * 3. A_c is symmetric to 1e-12 and equals the dense triple product P^T A P to 1e-12 (relative
 *    to max |P|^T |A| |P|, which does not cancel where A_c is rounding noise: the rigid-body
 *    modes of an unsupported box);
 * 4. without supports, the rigid-body modes are in A's null space and B_c in A_c's:
 *    |A_c B_c| <= 1e-10 |A| |B_c| on every coarse level (|A|: the fine matrix's scale; the
 *    coarsest A_c holds only those modes there, so its own entries are rounding noise);
 * 5. every node with a free DOF is in an aggregate, every fully constrained node in none;
 * 6. a refresh with the build's values reproduces A_c bit for bit, with the values doubled it
 *    doubles A_c (to 1e-13) and keeps P (the smoothing sees D^-1 A only);
 * 7. the hierarchy and the V-cycle do not depend on the thread count (bit for bit with 1 and 2
 *    threads), and M is symmetric positive definite: u.Mv = v.Mu to 1e-12, u.Mu > 0. */
#include <math.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "amg/amg_internal.h"
#include "backend/backend.h"
#include "problem/problem.h"
#include "unit_model.h"

extern const dt_backend_ops dt_cpu_ops;

/* The matrix of a problem: pattern from dt_problem_csr, values from the CPU backend's tangent
 * (K e_j column by column), with the DOFs where con is 1 constrained. */
typedef struct test_matrix {
  int *row_ptr, *col;
  double *val, *con;
  const dt_problem *pb;
} test_matrix;

static void tangent(const dt_problem *pb, const double *con, test_matrix *t) {
  dt_ctx ctx = {0};
  void *impl = NULL;
  dt_backend_options bo = {.threads = 1, .device = 0};
  dt_stress_report rep;
  int n = pb->n_dofs;
  double *e = calloc((size_t)n, sizeof(double)), *k = calloc((size_t)n, sizeof(double));
  t->pb = pb;
  t->con = calloc((size_t)n, sizeof(double));
  memcpy(t->con, con, sizeof(double) * n);
  CHECK(dt_problem_csr(pb, &t->row_ptr, &t->col, &ctx) == DT_OK, "%s", ctx.msg);
  t->val = calloc((size_t)t->row_ptr[n], sizeof(double));
  CHECK(dt_cpu_ops.problem_upload(pb, &bo, &impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_CON, con, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.stress_update(impl, DT_VEC_UT, DT_VEC_FINT, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  for (int j = 0; j < n; j++) {
    e[j] = 1.0;
    CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_PCG_P, e, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_cpu_ops.operator_apply(impl, DT_VEC_PCG_P, DT_VEC_PCG_Q, &ctx) == DT_OK, "%s",
          ctx.msg);
    CHECK(dt_cpu_ops.vec_get(impl, DT_VEC_PCG_Q, k, &ctx) == DT_OK, "%s", ctx.msg);
    for (int i = 0; i < n; i++)
      for (int p = t->row_ptr[i]; p < t->row_ptr[i + 1]; p++)
        if (t->col[p] == j) t->val[p] = k[i];
    e[j] = 0.0;
  }
  dt_cpu_ops.destroy(impl);
  free(e);
  free(k);
}

static void matrix_free(test_matrix *t) {
  dt_free(t->row_ptr);
  dt_free(t->col);
  free(t->val);
  free(t->con);
}

static dt_amg *hierarchy(const test_matrix *t, int threads) {
  dt_ctx ctx = {0};
  dt_amg *h = NULL;
  dt_amg_options o;
  dt_amg_input in = {t->pb->n_nodes, t->pb->dpn, t->pb->x, t->con, t->row_ptr, t->col, t->val};
  dt_amg_options_default(&o);
  o.max_coarse = 8; /* three levels or more on a small problem */
#ifdef _OPENMP
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  CHECK(dt_amg_create(&in, &o, &h, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(h->n_levels >= 3, "only %d levels", h->n_levels);
  return h;
}

/* Dense copy (row-major) of a CSR matrix. */
static double *dense(const dt_amg_csr *A) {
  double *D = calloc((size_t)A->n_rows * A->n_cols, sizeof(double));
  for (int i = 0; i < A->n_rows; i++)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      D[(size_t)i * A->n_cols + A->col[k]] += A->val[k];
  return D;
}

static double max_abs(const double *v, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

/* 1: P_tent B_c = B and P_tent^T P_tent = I on level l. */
static void check_tentative(const dt_amg *h, int l) {
  const dt_amg_level *F = &h->lev[l], *C = &h->lev[l + 1];
  const dt_amg_csr *Pt = &F->P_tent;
  int nm = h->n_modes, nc = C->n;
  double scale = max_abs(F->B, (size_t)F->n * nm), err = 0.0, orth = 0.0;
  double *PtP = calloc((size_t)nc * nc, sizeof(double));
  for (int i = 0; i < F->n; i++) {
    for (int j = 0; j < nm; j++) {
      double s = 0.0;
      for (int k = Pt->row_ptr[i]; k < Pt->row_ptr[i + 1]; k++)
        s += Pt->val[k] * C->B[(size_t)Pt->col[k] * nm + j];
      err = fmax(err, fabs(s - F->B[(size_t)i * nm + j]));
    }
    for (int k = Pt->row_ptr[i]; k < Pt->row_ptr[i + 1]; k++)
      for (int m = Pt->row_ptr[i]; m < Pt->row_ptr[i + 1]; m++)
        PtP[(size_t)Pt->col[k] * nc + Pt->col[m]] += Pt->val[k] * Pt->val[m];
  }
  for (int a = 0; a < nc; a++)
    for (int b = 0; b < nc; b++) orth = fmax(orth, fabs(PtP[(size_t)a * nc + b] - (a == b)));
  CHECK(err <= 1e-12 * scale, "level %d: |P_tent B_c - B| = %g (max |B| %g)", l, err, scale);
  CHECK(orth <= 1e-12, "level %d: |P_tent^T P_tent - I| = %g", l, orth);
  free(PtP);
}

/* P = (I - omega D^-1 A) P_tent, D the point diagonal, to 1e-12 of max |P_tent|. */
static void check_smoothing(const dt_amg *h, int l) {
  const dt_amg_level *F = &h->lev[l];
  int n = F->n, nc = h->lev[l + 1].n;
  double *A = dense(&F->A), *Pt = dense(&F->P_tent), *P = dense(&F->P), err = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < nc; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++) s += A[(size_t)i * n + k] * Pt[(size_t)k * nc + j];
      s = Pt[(size_t)i * nc + j] - F->omega * s / A[(size_t)i * n + i];
      err = fmax(err, fabs(s - P[(size_t)i * nc + j]));
    }
  CHECK(fabs(F->omega * F->lambda_max - 4.0 / 3.0) < 1e-14, "level %d: omega %g, lambda_max %g", l,
        F->omega, F->lambda_max);
  CHECK(err <= 1e-12 * max_abs(Pt, (size_t)n * nc),
        "level %d: P differs from (I - omega D^-1 A) P_tent by %g", l, err);
  free(A);
  free(Pt);
  free(P);
}

/* 2 and 3: R = P^T bit for bit; A_c symmetric and equal to P^T A P. */
static void check_galerkin(const dt_amg *h, int l) {
  const dt_amg_level *F = &h->lev[l], *C = &h->lev[l + 1];
  const dt_amg_csr *P = &F->P, *R = &F->R;
  int n = F->n, nc = C->n;
  double *A = dense(&F->A), *Pd = dense(P), *Ac = dense(&C->A),
         *AP = calloc((size_t)n * nc, sizeof(double));
  double *absAP = calloc((size_t)n * nc, sizeof(double)), scale = 0.0, sym = 0.0, diff = 0.0;
  CHECK(R->row_ptr[nc] == P->row_ptr[n], "level %d: R has %d entries, P %d", l, R->row_ptr[nc],
        P->row_ptr[n]);
  for (int i = 0; i < n; i++)
    for (int k = P->row_ptr[i]; k < P->row_ptr[i + 1]; k++) {
      int j = P->col[k], found = 0;
      for (int m = R->row_ptr[j]; m < R->row_ptr[j + 1]; m++)
        found |= R->col[m] == i && R->val[m] == P->val[k];
      CHECK(found, "level %d: P(%d, %d) = %.17g is not R(%d, %d)", l, i, j, P->val[k], j, i);
    }
  for (int i = 0; i < n; i++) /* AP = A P and |A| |P|, dense */
    for (int k = 0; k < n; k++)
      if (A[(size_t)i * n + k] != 0.0)
        for (int j = 0; j < nc; j++) {
          AP[(size_t)i * nc + j] += A[(size_t)i * n + k] * Pd[(size_t)k * nc + j];
          absAP[(size_t)i * nc + j] += fabs(A[(size_t)i * n + k] * Pd[(size_t)k * nc + j]);
        }
  for (int a = 0; a < nc; a++) /* the scale: max of |P|^T |A| |P|, which does not cancel */
    for (int b = 0; b < nc; b++) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += fabs(Pd[(size_t)i * nc + a]) * absAP[(size_t)i * nc + b];
      scale = fmax(scale, s);
    }
  for (int a = 0; a < nc; a++)
    for (int b = 0; b < nc; b++) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += Pd[(size_t)i * nc + a] * AP[(size_t)i * nc + b];
      diff = fmax(diff, fabs(s - Ac[(size_t)a * nc + b]));
      sym = fmax(sym, fabs(Ac[(size_t)a * nc + b] - Ac[(size_t)b * nc + a]));
    }
  CHECK(sym <= 1e-12 * scale, "level %d: A_c is not symmetric: %g (max %g)", l + 1, sym, scale);
  CHECK(diff <= 1e-12 * scale, "level %d: A_c differs from P^T A P by %g (max %g)", l + 1, diff,
        scale);
  free(A);
  free(Pd);
  free(Ac);
  free(AP);
  free(absAP);
}

/* 4: |A_c B_c| small on every coarse level (no supports). */
static void check_null_space(const dt_amg *h) {
  int nm = h->n_modes;
  for (int l = 1; l < h->n_levels; l++) {
    const dt_amg_level *L = &h->lev[l];
    double *AB = calloc((size_t)L->n * nm, sizeof(double));
    double an = max_abs(h->lev[0].A.val, (size_t)h->lev[0].A.row_ptr[h->lev[0].n]),
           bn = max_abs(L->B, (size_t)L->n * nm);
    for (int i = 0; i < L->n; i++)
      for (int k = L->A.row_ptr[i]; k < L->A.row_ptr[i + 1]; k++)
        for (int j = 0; j < nm; j++)
          AB[(size_t)i * nm + j] += L->A.val[k] * L->B[(size_t)L->A.col[k] * nm + j];
    double r = max_abs(AB, (size_t)L->n * nm);
    CHECK(r <= 1e-10 * an * bn, "level %d: |A_c B_c| = %g, |A_0| %g, |B_c| %g", l, r, an, bn);
    free(AB);
  }
}

/* 5: aggregated nodes are exactly those with a free DOF. */
static void check_aggregates(const dt_amg *h, const double *con) {
  const dt_amg_level *L = &h->lev[0];
  for (int a = 0; a < L->n_nodes; a++) {
    int free_dofs = 0;
    for (int i = L->node_ptr[a]; i < L->node_ptr[a + 1]; i++) free_dofs += con[i] == 0.0;
    CHECK((L->agg[a] >= 0) == (free_dofs > 0), "node %d: %d free DOFs, aggregate %d", a, free_dofs,
          L->agg[a]);
  }
  /* the threshold rule (dt_amg_coarsen_again): level 0 at theta; a coarse level at theta, or
   * halved while it kept fewer than 8 nodes an aggregate (at most three times) */
  CHECK(h->lev[0].theta == h->opt.theta, "level 0 aggregated at %g, not %g", h->lev[0].theta,
        h->opt.theta);
  for (int l = 1; l + 1 < h->n_levels; l++) {
    const dt_amg_level *F = &h->lev[l];
    int halvings = 0, ratio_ok = F->n_nodes >= 8 * h->lev[l + 1].n_nodes;
    double t = h->opt.theta;
    while (t > F->theta * 1.5 && halvings < 4) t *= 0.5, halvings++;
    CHECK(t == F->theta && halvings <= 3, "level %d aggregated at %g", l, F->theta);
    CHECK(ratio_ok || halvings == 3, "level %d: %d nodes into %d at theta %g (%d halvings)", l,
          F->n_nodes, h->lev[l + 1].n_nodes, F->theta, halvings);
    printf("  level %d: %d nodes into %d, theta %g\n", l, F->n_nodes, h->lev[l + 1].n_nodes,
           F->theta);
  }
}

static int same_doubles(const double *a, const double *b, size_t n) {
  return !memcmp(a, b, sizeof(double) * n);
}

/* 6: refresh with the same values, then with doubled values. */
static void check_refresh(dt_amg *h, test_matrix *t) {
  dt_ctx ctx = {0};
  const dt_amg_level *L1 = &h->lev[1];
  size_t nnz1 = (size_t)L1->A.row_ptr[L1->n], nnzp = (size_t)h->lev[0].P.row_ptr[h->lev[0].n];
  double *ac = malloc(sizeof(double) * nnz1), *p = malloc(sizeof(double) * nnzp), err = 0.0,
         pe = 0.0;
  memcpy(ac, L1->A.val, sizeof(double) * nnz1);
  memcpy(p, h->lev[0].P.val, sizeof(double) * nnzp);
  CHECK(dt_amg_refresh(h, t->val, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(same_doubles(ac, L1->A.val, nnz1), "a refresh with the same values changed A_1");
  for (int k = 0; k < t->row_ptr[t->pb->n_dofs]; k++) t->val[k] *= 2.0;
  CHECK(dt_amg_refresh(h, t->val, &ctx) == DT_OK, "%s", ctx.msg);
  for (size_t k = 0; k < nnz1; k++) err = fmax(err, fabs(L1->A.val[k] - 2.0 * ac[k]));
  for (size_t k = 0; k < nnzp; k++) pe = fmax(pe, fabs(h->lev[0].P.val[k] - p[k]));
  CHECK(err <= 1e-13 * max_abs(ac, nnz1) * 2.0, "doubled values: A_1 off by %g", err);
  CHECK(pe <= 1e-13, "doubled values: P changed by %g", pe);
  CHECK(h->refreshes == 2, "%d refreshes", h->refreshes);
  for (int k = 0; k < t->row_ptr[t->pb->n_dofs]; k++) t->val[k] *= 0.5;
  CHECK(dt_amg_refresh(h, t->val, &ctx) == DT_OK, "%s", ctx.msg);
  free(ac);
  free(p);
}

/* 7: the same hierarchy and cycle with 1 and 2 threads; M symmetric positive definite. */
static void check_cycle(dt_amg *h1, dt_amg *h2, int n) {
  double *u = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n);
  double *mu = malloc(sizeof(double) * n), *mv = malloc(sizeof(double) * n),
         *mu2 = malloc(sizeof(double) * n);
  double umv = 0.0, vmu = 0.0, umu = 0.0, uu = 0.0;
  CHECK(h1->n_levels == h2->n_levels, "%d levels with 1 thread, %d with 2", h1->n_levels,
        h2->n_levels);
  for (int l = 0; l < h1->n_levels; l++) {
    const dt_amg_level *a = &h1->lev[l], *b = &h2->lev[l];
    CHECK(a->n == b->n && a->A.row_ptr[a->n] == b->A.row_ptr[b->n], "level %d differs in size", l);
    CHECK(same_doubles(a->A.val, b->A.val, (size_t)a->A.row_ptr[a->n]),
          "level %d: A differs with 2 threads", l);
  }
  for (int i = 0; i < n; i++) u[i] = sin(0.37 * i + 1.0), v[i] = cos(0.11 * i * i + 0.3);
  dt_amg_apply(h1, u, mu);
  dt_amg_apply(h1, v, mv);
#ifdef _OPENMP
  omp_set_num_threads(2);
#endif
  dt_amg_apply(h2, u, mu2);
  CHECK(same_doubles(mu, mu2, (size_t)n), "the V-cycle differs with 2 threads");
  for (int i = 0; i < n; i++)
    umv += u[i] * mv[i], vmu += v[i] * mu[i], umu += u[i] * mu[i], uu += u[i] * u[i];
  CHECK(fabs(umv - vmu) <= 1e-12 * sqrt(fabs(umv * vmu)) + 1e-300, "u.Mv = %.17g, v.Mu = %.17g",
        umv, vmu);
  CHECK(umu > 0.0, "u.Mu = %g", umu);
  free(u);
  free(v);
  free(mu);
  free(mv);
  free(mu2);
}

/* A 2D quad4 box (plane strain) on [0,2] x [0,1], bent a little. */
static dt_model *quad4_box(int nx, int ny) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  CHECK(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  m->dim = 2;
  m->n_nodes = (nx + 1) * (ny + 1);
  m->n_elems = nx * ny;
  m->x = calloc((size_t)3 * m->n_nodes, sizeof(double));
  m->node_id = calloc((size_t)m->n_nodes, sizeof(int64_t));
  m->elem_type = calloc((size_t)m->n_elems, 1);
  m->elem_ptr = calloc((size_t)m->n_elems + 1, sizeof(int));
  m->conn = calloc((size_t)4 * m->n_elems, sizeof(int));
  m->elem_id = calloc((size_t)m->n_elems, sizeof(int64_t));
  m->elsets = calloc(1, sizeof(dt_set));
  m->n_elsets = 1;
  snprintf(m->elsets[0].name, DT_NAME_MAX, "all");
  m->elsets[0].items = calloc((size_t)m->n_elems, sizeof(int));
  m->elsets[0].n = m->n_elems;
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++) {
      int a = i + (nx + 1) * j;
      m->x[3 * a] = 2.0 * i / nx + 0.05 * j / ny;
      m->x[3 * a + 1] = 1.0 * j / ny;
      m->node_id[a] = a + 1;
    }
  for (int j = 0, e = 0; j < ny; j++)
    for (int i = 0; i < nx; i++, e++) {
      int a = i + (nx + 1) * j;
      m->elem_type[e] = DT_ELEM_QUAD4;
      m->elem_ptr[e + 1] = 4 * (e + 1);
      m->elem_id[e] = e + 1;
      m->conn[4 * e] = a, m->conn[4 * e + 1] = a + 1, m->conn[4 * e + 2] = a + nx + 2,
                  m->conn[4 * e + 3] = a + nx + 1;
      m->elsets[0].items[e] = e;
    }
  unit_model_material(m, 0);
  m->sections[0].kind = DT_SECTION_PLANE_STRAIN;
  return m;
}

/* Clamped at x = min (all DOFs), and the last component fixed at y = min (a partial support);
 * or nothing (supported = 0). */
static double *constraints(const dt_problem *pb, int supported) {
  double *con = calloc((size_t)pb->n_dofs, sizeof(double)), xmin = INFINITY;
  for (int a = 0; a < pb->n_nodes; a++) xmin = fmin(xmin, pb->x[3 * a]);
  for (int a = 0; a < pb->n_nodes && supported; a++) {
    int dpn = pb->dpn;
    if (pb->x[3 * a] == xmin)
      for (int i = 0; i < dpn; i++) con[a * dpn + i] = 1.0;
    if (pb->x[3 * a + 1] == 0.0) con[a * dpn + dpn - 1] = 1.0;
  }
  return con;
}

static void check_model(dt_model *m, const char *name) {
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_problem_create(m, &pb, &ctx) == DT_OK, "%s", ctx.msg);
  for (int supported = 1; supported >= 0; supported--) {
    double *con = constraints(pb, supported);
    test_matrix t;
    tangent(pb, con, &t);
    dt_amg *h1 = hierarchy(&t, 1), *h2 = hierarchy(&t, 2);
    for (int l = 0; l + 1 < h1->n_levels; l++) {
      check_tentative(h1, l);
      check_smoothing(h1, l);
      check_galerkin(h1, l);
    }
    if (supported)
      check_aggregates(h1, con);
    else
      check_null_space(h1);
    check_cycle(h1, h2, pb->n_dofs);
    check_refresh(h1, &t);
    printf("%s, %s: %d levels, %d -> %d DOFs\n", name, supported ? "supported" : "free",
           h1->n_levels, h1->lev[0].n, h1->lev[h1->n_levels - 1].n);
    dt_amg_destroy(&h1);
    dt_amg_destroy(&h2);
    CHECK(h1 == NULL, "destroy leaves the handle set");
    matrix_free(&t);
    free(con);
  }
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

int main(void) {
  check_model(unit_box(6, 4, 3, 0), "hex8 box");
  check_model(quad4_box(16, 8), "quad4 box");
  return 0;
}
