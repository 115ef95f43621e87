/* One smoothed-aggregation AMG hierarchy across the parts of a split mesh
 * (solver/amg/amg_parts.h), on a distorted 10x6x6 hex8 box (unit_box) of elastic steel clamped
 * on its grid plane i = 0 (all 3 DOFs; the distortion x += 0.05 y z moves that plane off x = 0):
 * 1617 DOFs, 147 clamped. Each part passes its own tangent, the sum of its elements' stiffness
 * (dt_element_residual's Ke) on its local nodes, clamped rows and columns identity; the parts'
 * operator A is their sum (a clamped DOF held by m parts has m on its diagonal). The element
 * maps are made here (no METIS): slabs along x of the element centroids in k = 1, 2, 3, 4 parts,
 * "mod3" ((i + 2 j + 3 k) % 3 on the element's grid indices: 3 parts, 315 nodes held by all
 * three) and "checker2" ((i + j + k) % 2: 2 parts, 531 of 539 nodes on the interface). Options:
 * the defaults with max_coarse 100, so 3 levels (1617, 216, 30 DOFs on one part).
 *
 * Fixture checks: every Ke is symmetric (to 1e-12 of max |Ke|: 2.7e-12 of 1.3e4); the parts' A
 * equals the whole mesh's matrix K on vectors zero on the clamped DOFs (1e-12 of max |Kx|).
 *
 * 1. One part: dt_amg_parts_apply and dt_amg_apply (amg.h, on the same CSR, which the part's
 *    equals bit for bit) of one random vector agree to 1e-10 of max |z|. Measured: 0, bit for
 *    bit (nothing is shared: the same aggregates, Lanczos start, smoother and coarse factor).
 * 2. Every split, against the same quantities computed here on global vectors:
 *    (a) after every apply each ghost DOF holds its owner's value exactly (measured: always);
 *    (b) |x.My - y.Mx| <= 1e-10 |x||My| (global dot products, each DOF once): 1.6e-18 to
 *        1.3e-16 measured;
 *    (c) x.Mx > 0 for 3 random x (1.4e-2 to 3.7e-2);
 *    (d) PCG on A u = b (b random, zero on the clamped DOFs) to 1e-8, preconditioned by the
 *        hierarchy: at most 1.2 times the one-part count + 2 iterations, and |b - K u| <= 1e-7
 *        |b| with the whole mesh's K (measured 2.1e-9 to 9.8e-9). Iterations: one part 12;
 *        slabs 2 / 3 / 4: 11 / 12 / 11; mod3 12; checker2 11. With the shared nodes' rows of P
 *        left tentative (unsmoothed, an earlier design) mod3 and checker2 took 18 and 21, which
 *        this bound (16.4) catches.
 * 3. dt_amg_parts_refresh with every part's values doubled in place (fine_only 0): the apply is
 *    half the previous one to 1e-12 of max |z| (measured 4.1e-15 to 2.8e-14). Back to the
 *    original values with fine_only 1: the coarse levels keep the doubled matrix, so the apply
 *    moves (required > 1e-3; 0.46 to 0.49 of max |z|) yet stays symmetric (1e-10) and positive;
 *    a full refresh with the build's values then gives the build's apply to 1e-12 (measured 0).
 * 4. dt_amg_parts_constraints_changed: 0 for the build's masks, 1 with one DOF's mask flipped.
 * 5. Refusals: 17 parts and 4 DOFs per node are DT_ERR_INPUT naming the number; a part's
 *    matrix with -1 on the diagonal of a free DOF of a node only that part holds is
 *    DT_ERR_NOT_CONVERGED, the message naming the part ("part 1"). */
#include <math.h>

#include "amg/amg_parts.h"
#include "element/element_kernel.h"
#include "unit_model.h"

#define NX 10
#define NY 6
#define NZ 6
#define NDE 24  /* hex8: 8 nodes x 3 DOFs */
#define MAXP 16 /* the most parts dt_amg_parts_create takes */

/* The mesh, its clamped DOFs, every element's Ke and the whole mesh's matrix. */
typedef struct fixture {
  dt_model *m;
  int n;       /* DOFs */
  double *con; /* n: 1 on the clamped DOFs */
  double *Ke;  /* NDE x NDE per element */
  int *rp, *col;
  double *val;
  dt_amg_options opt;
} fixture;

/* One split: the parts' layouts, matrices, inputs and hierarchy. */
typedef struct split {
  const char *name;
  int k;
  dt_part_local L[MAXP];
  int *rp[MAXP], *col[MAXP];
  double *val[MAXP], *x[MAXP], *con[MAXP], *rl[MAXP], *zl[MAXP];
  dt_amg_part_input in[MAXP];
  int *own_part, *own_local; /* per global node: its owner part and its index there */
  dt_amg_parts *h;
  double mismatch; /* the largest |ghost - owner| seen after an apply */
} split;

static uint64_t rng_state;

static double uniform(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* A random global vector, zero on the clamped DOFs. */
static void random_vec(const fixture *f, uint64_t seed, double *v) {
  rng_state = seed;
  for (int i = 0; i < f->n; i++) {
    double u = uniform();
    v[i] = f->con[i] != 0.0 ? 0.0 : u;
  }
}

static double dot(int n, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

static double max_abs(int n, const double *x) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

static double max_diff(int n, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i] - y[i]));
  return s;
}

/* Element e's elastic stiffness (steel, zero history) from the element library. */
static void element_stiffness(const dt_model *m, int e, double *Ke) {
  static double hist[DT_MAT_STATE_DOUBLES * DT_ELEM_MAX_QP];
  dt_qp_arrays qa = {hist, NULL, NULL, NULL, DT_ELEM_MAX_QP, NULL};
  dt_material_params mat;
  double X[3 * DT_ELEM_MAX_NODES], ue[DT_ELEM_MAX_DOF], fe[DT_ELEM_MAX_DOF];
  int t = m->elem_type[e], n = m->elem_ptr[e + 1] - m->elem_ptr[e];
  CHECK(n * 3 == NDE, "element %d has %d nodes", e, n);
  memset(&mat, 0, sizeof mat);
  mat.E = 200000.0;
  mat.nu = 0.3;
  for (int a = 0; a < n; a++)
    for (int d = 0; d < 3; d++) {
      X[3 * a + d] = m->x[3 * m->conn[m->elem_ptr[e] + a] + d];
      ue[3 * a + d] = 0.0;
    }
  CHECK(dt_element_residual(t, X, ue, &mat, DT_STATE_3D, 0, 1.0, &qa, 0, fe, Ke) >= 0,
        "element %d: the residual failed", e);
}

/* The scalar CSR (3 DOFs per node, node-major, each node's DOFs one column list) of nn nodes
 * summed from ne elements: element i has the local nodes c[ep[i] .. ep[i + 1] - 1] and the
 * stiffness of global element ge[i] (ge NULL: i). Rows and columns of the DOFs where con (3 per
 * local node) is nonzero are zero with 1 on the diagonal. */
static void assemble(const fixture *f, int nn, int ne, const int *ep, const int *c, const int *ge,
                     const double *con, int **rp_out, int **col_out, double **val_out) {
  unsigned char *adj = calloc((size_t)nn * nn + 1, 1);
  int *nptr = calloc((size_t)nn + 1, sizeof(int)), *ncol, *rp, *col, nnz = 0;
  double *val;
  CHECK(adj && nptr, "out of memory");
  for (int i = 0; i < ne; i++)
    for (int p = ep[i]; p < ep[i + 1]; p++)
      for (int q = ep[i]; q < ep[i + 1]; q++) adj[(size_t)c[p] * nn + c[q]] = 1;
  for (int a = 0; a < nn; a++) {
    nptr[a + 1] = nptr[a];
    for (int b = 0; b < nn; b++) nptr[a + 1] += adj[(size_t)a * nn + b];
  }
  ncol = malloc(sizeof(int) * ((size_t)nptr[nn] + 1));
  rp = malloc(sizeof(int) * (3 * (size_t)nn + 1));
  col = malloc(sizeof(int) * (9 * (size_t)nptr[nn] + 1));
  val = calloc(9 * (size_t)nptr[nn] + 1, sizeof(double));
  CHECK(ncol && rp && col && val, "out of memory");
  for (int a = 0, k = 0; a < nn; a++)
    for (int b = 0; b < nn; b++)
      if (adj[(size_t)a * nn + b]) ncol[k++] = b;
  rp[0] = 0;
  for (int a = 0; a < nn; a++)
    for (int d = 0; d < 3; d++) {
      for (int k = nptr[a]; k < nptr[a + 1]; k++)
        for (int e = 0; e < 3; e++) col[nnz++] = 3 * ncol[k] + e;
      rp[3 * a + d + 1] = nnz;
    }
  for (int i = 0; i < ne; i++) {
    const double *K = f->Ke + (size_t)(ge ? ge[i] : i) * NDE * NDE;
    for (int p = 0; p < ep[i + 1] - ep[i]; p++)
      for (int q = 0; q < ep[i + 1] - ep[i]; q++) {
        int a = c[ep[i] + p], b = c[ep[i] + q], pos = -1;
        for (int k = nptr[a]; k < nptr[a + 1] && pos < 0; k++)
          if (ncol[k] == b) pos = k - nptr[a];
        CHECK(pos >= 0, "node %d's row lacks node %d", a, b);
        for (int d = 0; d < 3; d++)
          for (int e = 0; e < 3; e++)
            val[rp[3 * a + d] + 3 * pos + e] += K[(3 * p + d) * NDE + 3 * q + e];
      }
  }
  for (int i = 0; i < 3 * nn; i++)
    for (int k = rp[i]; k < rp[i + 1]; k++)
      if (con[i] != 0.0 || con[col[k]] != 0.0) val[k] = col[k] == i ? 1.0 : 0.0;
  free(adj);
  free(nptr);
  free(ncol);
  *rp_out = rp;
  *col_out = col;
  *val_out = val;
}

static void csr_apply(int n, const int *rp, const int *col, const double *val, const double *x,
                      double *y) {
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[col[k]];
    y[i] = s;
  }
}

static void fixture_build(fixture *f) {
  dt_model *m = unit_box(NX, NY, NZ, 0);
  double kmax = 0.0, asym = 0.0;
  f->m = m;
  f->n = 3 * m->n_nodes;
  f->con = calloc((size_t)f->n, sizeof(double));
  f->Ke = malloc(sizeof(double) * NDE * NDE * (size_t)m->n_elems);
  CHECK(f->con && f->Ke, "out of memory");
  for (int a = 0; a < m->n_nodes; a++) /* the grid plane i = 0 (x = 0.05 y z after distortion) */
    if (a % (NX + 1) == 0)
      for (int d = 0; d < 3; d++) f->con[3 * a + d] = 1.0;
  for (int e = 0; e < m->n_elems; e++) {
    double *K = f->Ke + (size_t)e * NDE * NDE;
    element_stiffness(m, e, K);
    for (int i = 0; i < NDE; i++)
      for (int j = 0; j < NDE; j++) {
        kmax = fmax(kmax, fabs(K[i * NDE + j]));
        asym = fmax(asym, fabs(K[i * NDE + j] - K[j * NDE + i]));
      }
  }
  CHECK(kmax > 0.0 && asym <= 1e-12 * kmax, "Ke is not symmetric: %.3e of max %.3e", asym, kmax);
  assemble(f, m->n_nodes, m->n_elems, m->elem_ptr, m->conn, NULL, f->con, &f->rp, &f->col, &f->val);
  dt_amg_options_default(&f->opt);
  f->opt.max_coarse = 100;
  printf("fixture: %d DOFs, %d elements, Ke symmetric to %.1e of %.3e\n", f->n, m->n_elems, asym,
         kmax);
}

static void fixture_free(fixture *f) {
  dt_model_destroy(&f->m);
  free(f->con);
  free(f->Ke);
  free(f->rp);
  free(f->col);
  free(f->val);
}

/* The parts of the element map part, their matrices and their hierarchy. */
static void split_build(const fixture *f, split *sp, const char *name, int k, const int *part) {
  const dt_model *m = f->m;
  dt_ctx ctx = {0};
  memset(sp, 0, sizeof *sp);
  sp->name = name;
  sp->k = k;
  CHECK(dt_part_local_build(m, k, part, sp->L, &ctx) == DT_OK, "%s: %s", name, ctx.msg);
  sp->own_part = malloc(sizeof(int) * (size_t)m->n_nodes);
  sp->own_local = malloc(sizeof(int) * (size_t)m->n_nodes);
  CHECK(sp->own_part && sp->own_local, "out of memory");
  for (int a = 0; a < m->n_nodes; a++) sp->own_part[a] = -1;
  for (int s = 0; s < k; s++) {
    const dt_part_local *L = &sp->L[s];
    int nn = L->n_nodes;
    sp->x[s] = malloc(sizeof(double) * (3 * (size_t)nn + 1));
    sp->con[s] = malloc(sizeof(double) * (3 * (size_t)nn + 1));
    sp->rl[s] = malloc(sizeof(double) * (3 * (size_t)nn + 1));
    sp->zl[s] = malloc(sizeof(double) * (3 * (size_t)nn + 1));
    CHECK(sp->x[s] && sp->con[s] && sp->rl[s] && sp->zl[s], "out of memory");
    for (int a = 0; a < nn; a++) {
      int G = L->node_global[a];
      for (int d = 0; d < 3; d++) {
        sp->x[s][3 * a + d] = m->x[3 * G + d];
        sp->con[s][3 * a + d] = f->con[3 * G + d];
      }
      if (a < L->n_owned) {
        CHECK(sp->own_part[G] < 0, "%s: node %d owned twice", name, G);
        sp->own_part[G] = s, sp->own_local[G] = a;
      }
    }
    assemble(f, nn, L->n_elems, L->elem_ptr, L->conn, L->elems, sp->con[s], &sp->rp[s], &sp->col[s],
             &sp->val[s]);
    sp->in[s] = (dt_amg_part_input){L, sp->x[s], sp->con[s], sp->rp[s], sp->col[s], sp->val[s]};
  }
  for (int a = 0; a < m->n_nodes; a++) CHECK(sp->own_part[a] >= 0, "%s: node %d unowned", name, a);
  CHECK(dt_amg_parts_create(k, 3, sp->in, &f->opt, &sp->h, &ctx) == DT_OK, "%s: %s", name, ctx.msg);
}

static void split_free(split *sp) {
  dt_amg_parts_destroy(&sp->h);
  CHECK(sp->h == NULL, "destroy leaves the pointer");
  for (int s = 0; s < sp->k; s++) {
    dt_part_local_free(&sp->L[s]);
    free(sp->rp[s]);
    free(sp->col[s]);
    free(sp->val[s]);
    free(sp->x[s]);
    free(sp->con[s]);
    free(sp->rl[s]);
    free(sp->zl[s]);
  }
  free(sp->own_part);
  free(sp->own_local);
}

/* y = A x, A the sum over the parts of E_s^T K_s E_s. */
static void parts_op(const fixture *f, split *sp, const double *x, double *y) {
  memset(y, 0, sizeof(double) * (size_t)f->n);
  for (int s = 0; s < sp->k; s++) {
    const dt_part_local *L = &sp->L[s];
    dt_part_local_gather(L, 3, x, sp->rl[s]);
    csr_apply(3 * L->n_nodes, sp->rp[s], sp->col[s], sp->val[s], sp->rl[s], sp->zl[s]);
    for (int i = 0; i < 3 * L->n_nodes; i++) y[3 * L->node_global[i / 3] + i % 3] += sp->zl[s][i];
  }
}

/* z = M^-1 r on global vectors: gather, one V-cycle across the parts, the owners' values back;
 * every ghost is compared with its owner (sp->mismatch). */
static void pc_apply(split *sp, const double *r, double *z) {
  dt_ctx ctx = {0};
  for (int s = 0; s < sp->k; s++) dt_part_local_gather(&sp->L[s], 3, r, sp->rl[s]);
  CHECK(dt_amg_parts_apply(sp->h, (const double *const *)sp->rl, sp->zl, &ctx) == DT_OK, "%s: %s",
        sp->name, ctx.msg);
  for (int s = 0; s < sp->k; s++) {
    const dt_part_local *L = &sp->L[s];
    for (int i = 3 * L->n_owned; i < 3 * L->n_nodes; i++) {
      int G = L->node_global[i / 3], o = sp->own_part[G];
      double d = fabs(sp->zl[s][i] - sp->zl[o][3 * sp->own_local[G] + i % 3]);
      sp->mismatch = fmax(sp->mismatch, d);
    }
    dt_part_local_scatter_owned(L, 3, sp->zl[s], z);
  }
}

/* (b) and (c): returns the worst |x.My - y.Mx| / (|x||My|). */
static double check_spd(const fixture *f, split *sp, uint64_t seed, const char *when) {
  int n = f->n;
  double *x = calloc((size_t)n, sizeof(double)), *y = calloc((size_t)n, sizeof(double));
  double *Mx = calloc((size_t)n, sizeof(double)), *My = calloc((size_t)n, sizeof(double));
  double asym, xMx[3];
  CHECK(x && y && Mx && My, "out of memory");
  random_vec(f, seed, x);
  random_vec(f, seed + 1, y);
  pc_apply(sp, x, Mx);
  pc_apply(sp, y, My);
  asym = fabs(dot(n, x, My) - dot(n, y, Mx)) / (sqrt(dot(n, x, x)) * sqrt(dot(n, My, My)));
  CHECK(asym <= 1e-10, "%s %s: x.My - y.Mx = %.3e relative", sp->name, when, asym);
  for (int t = 0; t < 3; t++) {
    random_vec(f, seed + 7 + t, x);
    pc_apply(sp, x, Mx);
    xMx[t] = dot(n, x, Mx);
    CHECK(xMx[t] > 0.0, "%s %s: x.Mx = %.3e", sp->name, when, xMx[t]);
  }
  CHECK(sp->mismatch == 0.0, "%s %s: a ghost differs from its owner by %.3e", sp->name, when,
        sp->mismatch);
  printf("  %s %s: symmetric to %.1e, x.Mx %.3e %.3e %.3e, ghosts equal their owners\n", sp->name,
         when, asym, xMx[0], xMx[1], xMx[2]);
  free(x);
  free(y);
  free(Mx);
  free(My);
  return asym;
}

/* (d): PCG on A u = b to 1e-8; returns the iterations, *res the independent relative residual
 * with the whole mesh's matrix. */
static int pcg(const fixture *f, split *sp, double *res) {
  int n = f->n, it = 0;
  double *b = malloc(sizeof(double) * n), *u = calloc((size_t)n, sizeof(double));
  double *r = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n);
  double *p = malloc(sizeof(double) * n), *q = malloc(sizeof(double) * n), rz, bn, rn;
  CHECK(b && u && r && z && p && q, "out of memory");
  random_vec(f, 1234, b);
  memcpy(r, b, sizeof(double) * n);
  bn = sqrt(dot(n, b, b));
  pc_apply(sp, r, z);
  memcpy(p, z, sizeof(double) * n);
  rz = dot(n, r, z);
  for (it = 1; it <= 500; it++) {
    double alpha, rz_new;
    parts_op(f, sp, p, q);
    alpha = rz / dot(n, p, q);
    for (int i = 0; i < n; i++) u[i] += alpha * p[i], r[i] -= alpha * q[i];
    if (sqrt(dot(n, r, r)) <= 1e-8 * bn) break;
    pc_apply(sp, r, z);
    rz_new = dot(n, r, z);
    for (int i = 0; i < n; i++) p[i] = z[i] + rz_new / rz * p[i];
    rz = rz_new;
  }
  CHECK(it <= 500, "%s: PCG did not converge in 500 iterations", sp->name);
  csr_apply(n, f->rp, f->col, f->val, u, q);
  for (int i = 0; i < n; i++) r[i] = b[i] - q[i];
  rn = sqrt(dot(n, r, r));
  *res = rn / bn;
  free(b);
  free(u);
  free(r);
  free(z);
  free(p);
  free(q);
  return it;
}

/* The parts' operator against the whole mesh's matrix on a vector zero on the clamped DOFs. */
static void check_operator(const fixture *f, split *sp) {
  int n = f->n;
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  double *Kx = malloc(sizeof(double) * n), d;
  CHECK(x && y && Kx, "out of memory");
  random_vec(f, 99, x);
  parts_op(f, sp, x, y);
  csr_apply(n, f->rp, f->col, f->val, x, Kx);
  d = max_diff(n, y, Kx) / max_abs(n, Kx);
  CHECK(d <= 1e-12, "%s: the parts' operator differs from the whole matrix by %.3e", sp->name, d);
  free(x);
  free(y);
  free(Kx);
}

/* 3 and 4 on a built split. */
static void check_refresh(const fixture *f, split *sp) {
  int n = f->n, levels = 0;
  double *r = malloc(sizeof(double) * n), *z0 = malloc(sizeof(double) * n);
  double *z1 = malloc(sizeof(double) * n), d, d1, *con[MAXP], *flip;
  dt_ctx ctx = {0};
  CHECK(r && z0 && z1, "out of memory");
  random_vec(f, 555, r);
  pc_apply(sp, r, z0);
  for (int s = 0; s < sp->k; s++)
    for (int i = 0; i < sp->rp[s][3 * sp->L[s].n_nodes]; i++) sp->val[s][i] *= 2.0;
  CHECK(dt_amg_parts_refresh(sp->h, sp->val, 0, &ctx) == DT_OK, "%s: %s", sp->name, ctx.msg);
  pc_apply(sp, r, z1);
  for (int i = 0; i < n; i++) z1[i] *= 2.0;
  d = max_diff(n, z0, z1) / max_abs(n, z0);
  CHECK(d <= 1e-12, "%s: with the values doubled the apply is not halved: %.3e", sp->name, d);
  printf("  %s refresh, values doubled: apply halved to %.1e\n", sp->name, d);
  for (int s = 0; s < sp->k; s++)
    for (int i = 0; i < sp->rp[s][3 * sp->L[s].n_nodes]; i++) sp->val[s][i] /= 2.0;
  CHECK(dt_amg_parts_refresh(sp->h, sp->val, 1, &ctx) == DT_OK, "%s: %s", sp->name, ctx.msg);
  check_spd(f, sp, 700, "after refresh(fine_only)");
  pc_apply(sp, r, z1); /* the coarse levels keep the doubled values: a halved coarse correction */
  d = max_diff(n, z0, z1) / max_abs(n, z0);
  CHECK(d > 1e-3, "%s: refresh(fine_only) changed the coarse levels too (%.3e)", sp->name, d);
  CHECK(dt_amg_parts_refresh(sp->h, sp->val, 0, &ctx) == DT_OK, "%s: %s", sp->name, ctx.msg);
  pc_apply(sp, r, z1);
  d1 = max_diff(n, z0, z1) / max_abs(n, z0);
  CHECK(d1 <= 1e-12, "%s: refresh with the build's values moves the apply by %.3e", sp->name, d1);
  printf("  %s fine_only refresh: apply %.2e from the build's; full refresh back: %.1e\n", sp->name,
         d, d1);
  dt_amg_parts_stats(sp->h, &levels, NULL, NULL);
  CHECK(levels >= 2, "%s: %d levels", sp->name, levels);
  /* 4. the constrained set */
  for (int s = 0; s < sp->k; s++) con[s] = sp->con[s];
  CHECK(dt_amg_parts_constraints_changed(sp->h, (const double *const *)con) == 0,
        "%s: the build's masks reported changed", sp->name);
  flip = malloc(sizeof(double) * 3 * (size_t)sp->L[sp->k - 1].n_nodes);
  CHECK(flip, "out of memory");
  memcpy(flip, con[sp->k - 1], sizeof(double) * 3 * (size_t)sp->L[sp->k - 1].n_nodes);
  flip[4] = flip[4] != 0.0 ? 0.0 : 1.0;
  con[sp->k - 1] = flip;
  CHECK(dt_amg_parts_constraints_changed(sp->h, (const double *const *)con) == 1,
        "%s: a flipped mask not reported", sp->name);
  free(flip);
  free(r);
  free(z0);
  free(z1);
}

/* 1: one part against the one-device hierarchy. */
static void check_one_part(const fixture *f) {
  int n = f->n, *part = calloc((size_t)f->m->n_elems, sizeof(int)), lp = 0, l1 = 0;
  double *r = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n);
  double *z1 = malloc(sizeof(double) * n), d;
  dt_amg *h = NULL;
  dt_ctx ctx = {0};
  split sp;
  dt_amg_input in = {f->m->n_nodes, 3, f->m->x, f->con, f->rp, f->col, f->val};
  CHECK(part && r && z && z1, "out of memory");
  split_build(f, &sp, "one part", 1, part);
  for (int a = 0; a < f->m->n_nodes; a++)
    CHECK(sp.L[0].node_global[a] == a, "one part: local node %d is global %d", a,
          sp.L[0].node_global[a]);
  CHECK(!memcmp(sp.rp[0], f->rp, sizeof(int) * (n + 1)) &&
            !memcmp(sp.col[0], f->col, sizeof(int) * f->rp[n]) &&
            !memcmp(sp.val[0], f->val, sizeof(double) * f->rp[n]),
        "one part: the part's matrix is not the whole one");
  CHECK(dt_amg_create(&in, &f->opt, &h, &ctx) == DT_OK, "%s", ctx.msg);
  random_vec(f, 42, r);
  dt_amg_apply(h, r, z1);
  pc_apply(&sp, r, z);
  d = max_diff(n, z, z1) / max_abs(n, z1);
  dt_amg_parts_stats(sp.h, &lp, NULL, NULL);
  l1 = h->n_levels;
  printf("1. one part: %d levels (one device: %d), parts' apply - one device's apply = %.3e of "
         "max |z| %.3e\n",
         lp, l1, d, max_abs(n, z1));
  CHECK(lp == l1, "one part: %d levels, one device %d", lp, l1);
  CHECK(d <= 1e-10, "one part: the applies differ by %.3e relative", d);
  dt_amg_destroy(&h);
  split_free(&sp);
  free(part);
  free(r);
  free(z);
  free(z1);
}

/* 2 to 4 on one split; returns its PCG iterations, which must be at most slack * base + 3. */
static int check_split(const fixture *f, const char *name, int k, const int *part, int base,
                       double slack) {
  split sp;
  int it, ghosts = 0, multi = 0, levels = 0;
  int *held = calloc((size_t)f->m->n_nodes, sizeof(int));
  double res;
  CHECK(held, "out of memory");
  split_build(f, &sp, name, k, part);
  for (int s = 0; s < k; s++) {
    ghosts += sp.L[s].n_nodes - sp.L[s].n_owned;
    for (int a = 0; a < sp.L[s].n_nodes; a++) held[sp.L[s].node_global[a]]++;
  }
  for (int a = 0; a < f->m->n_nodes; a++) multi += held[a] >= 3;
  dt_amg_parts_stats(sp.h, &levels, NULL, NULL);
  printf("%s: %d parts, %d ghost nodes, %d nodes held by 3 or more parts, %d levels\n", name, k,
         ghosts, multi, levels);
  if (!strcmp(name, "mod3"))
    CHECK(multi > 0, "mod3: no node is held by 3 parts: the fixture does not test that");
  check_operator(f, &sp);
  check_spd(f, &sp, 300, "build");
  it = pcg(f, &sp, &res);
  printf("  %s PCG: %d iterations (one part %d), residual with the whole matrix %.2e\n", name, it,
         base, res);
  CHECK(res <= 1e-7, "%s: the PCG solution's residual is %.3e relative", name, res);
  CHECK(sp.mismatch == 0.0, "%s: a ghost differs from its owner by %.3e", name, sp.mismatch);
  CHECK(base <= 0 || it <= slack * base + 2, "%s: %d PCG iterations, one part %d (bound %.1f)",
        name, it, base, slack * base + 2);
  check_refresh(f, &sp);
  split_free(&sp);
  free(held);
  return it;
}

/* 5: refusals. */
static void check_errors(const fixture *f, const int *part2) {
  split sp;
  dt_amg_parts *h = NULL;
  dt_amg_part_input in[MAXP];
  dt_ctx ctx = {0};
  double *bad;
  int a = 0, nnz;
  dt_status rc;
  split_build(f, &sp, "errors", 2, part2);
  rc = dt_amg_parts_create(17, 3, sp.in, &f->opt, &h, &ctx);
  CHECK(rc == DT_ERR_INPUT && h == NULL && strstr(ctx.msg, "17"), "17 parts: %d %s", rc, ctx.msg);
  printf("5. 17 parts: %s\n", ctx.msg);
  dt_ctx_reset(&ctx);
  rc = dt_amg_parts_create(2, 4, sp.in, &f->opt, &h, &ctx);
  CHECK(rc == DT_ERR_INPUT && h == NULL && strstr(ctx.msg, "4"), "4 DOFs per node: %d %s", rc,
        ctx.msg);
  printf("   4 DOFs per node: %s\n", ctx.msg);
  /* A node part 1 holds alone (interior) with free DOFs: -1 on its first DOF's diagonal. */
  while (a < sp.L[1].n_interior && sp.con[1][3 * a] != 0.0) a++;
  CHECK(a < sp.L[1].n_interior, "part 1 has no free interior node");
  nnz = sp.rp[1][3 * sp.L[1].n_nodes];
  bad = malloc(sizeof(double) * nnz);
  CHECK(bad, "out of memory");
  memcpy(bad, sp.val[1], sizeof(double) * nnz);
  for (int k = sp.rp[1][3 * a]; k < sp.rp[1][3 * a + 1]; k++)
    if (sp.col[1][k] == 3 * a) bad[k] = -1.0;
  memcpy(in, sp.in, sizeof in);
  in[1].val = bad;
  dt_ctx_reset(&ctx);
  rc = dt_amg_parts_create(2, 3, in, &f->opt, &h, &ctx);
  CHECK(rc == DT_ERR_NOT_CONVERGED && h == NULL && strstr(ctx.msg, "part 1"),
        "negative diagonal: %d %s", rc, ctx.msg);
  printf("   negative diagonal in part 1: %s\n", ctx.msg);
  free(bad);
  split_free(&sp);
}

int main(void) {
  fixture f;
  const dt_model *m;
  int *part, it1, its[5];
  double xmin = INFINITY, xmax = -INFINITY;
  const char *names[5] = {"slabs 2", "slabs 3", "slabs 4", "mod3", "checker2"};
  memset(&f, 0, sizeof f);
  fixture_build(&f);
  m = f.m;
  part = malloc(sizeof(int) * (size_t)m->n_elems);
  CHECK(part, "out of memory");
  for (int a = 0; a < m->n_nodes; a++)
    xmin = fmin(xmin, m->x[3 * a]), xmax = fmax(xmax, m->x[3 * a]);
  check_one_part(&f);
  for (int e = 0; e < m->n_elems; e++) part[e] = 0;
  it1 = check_split(&f, "slabs 1", 1, part, 0, 0.0);
  for (int c = 0; c < 5; c++) {
    int k = c < 3 ? c + 2 : c == 3 ? 3 : 2;
    for (int e = 0; e < m->n_elems; e++) {
      int i = e % NX, j = (e / NX) % NY, l = e / (NX * NY);
      double xc = 0.0;
      for (int p = m->elem_ptr[e]; p < m->elem_ptr[e + 1]; p++) xc += m->x[3 * m->conn[p]];
      xc /= m->elem_ptr[e + 1] - m->elem_ptr[e];
      if (c < 3) {
        part[e] = (int)floor(k * (xc - xmin) / (xmax - xmin));
        if (part[e] > k - 1) part[e] = k - 1;
      } else {
        part[e] = c == 3 ? (i + 2 * j + 3 * l) % 3 : (i + j + l) % 2;
      }
    }
    its[c] = check_split(&f, names[c], k, part, it1, 1.2);
    if (c == 0) check_errors(&f, part);
  }
  printf("PCG iterations: one part %d; slabs 2 / 3 / 4: %d / %d / %d; mod3 %d; checker2 %d "
         "(bound %.1f)\n",
         it1, its[0], its[1], its[2], its[3], its[4], 1.2 * it1 + 2);
  free(part);
  fixture_free(&f);
  return 0;
}
