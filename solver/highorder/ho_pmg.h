/* p-multigrid preconditioner for PCG on order-P hexahedra (elasticity or the plastic tangent).
 *
 * Levels are orders on the same elements, each half the last rounded up, P -> ... -> 1
 * (4 -> 2 -> 1, 3 -> 2 -> 1, 6 -> 3 -> 2 -> 1), or P -> 1 directly (dt_ho_pmg_opts.halve = 0).
 * One application is a
 * V-cycle from a zero guess:
 *   level of order p > 1   Chebyshev smoothing of D^-1 A (degree `degree`) on the interval
 *                          [hi / eig_ratio, hi], hi = DT_AMG_CHEB_SAFETY times a Lanczos estimate
 *                          of lambda_max(D^-1 A); residual; restriction R = P^T; recursion;
 *                          x += P x_c; the same Chebyshev polynomial again, so M is symmetric;
 *   level of order 1       the assembled CSR of the trilinear elastic operator on the vertex
 *                          mesh, constrained rows and columns identity, one V-cycle of the
 *                          smoothed-aggregation AMG of solver/amg.
 * The finest level's operator is any dt_ho_apply_fn with its diagonal (the elastic apply, the
 * plastic tangent); the coarser levels are elastic operators with the fine operator's Lame
 * parameters (dt_ho_elastic of the geometry) on order-p meshes of the same elements, their
 * nodes placed by interpolating the fine geometry. For the plastic tangent the coarse levels so
 * keep the elastic moduli: they are fixed through a Newton solve, and only the finest level's
 * diagonal and lambda_max follow the tangent (dt_ho_pmg_set_fine).
 *
 * Transfers: the prolongation evaluates the coarse element's order-p_c Lagrange field at the
 * fine element's nodes. The mesh is conforming, so every element sharing a fine node gives it
 * the same value; each fine node takes it from one element only, its owner (the lowest element
 * that lists it), and the restriction sums over elements the owned fine entries times the
 * transposed evaluation, which is R = P^T exactly.
 *
 * Constrained DOFs: a coarse DOF (node, component) is constrained when the closed mesh entity
 * that carries the node (a vertex, an edge with its end points, a face with its edges, or the
 * element) has every fine node constrained in that component. Transfers and smoothers zero the
 * constrained DOFs of every level. The coarse space then matches the fine one when constraints
 * cover whole faces, edges or vertices (a clamped face, symmetry planes); other fine
 * constraints stay correct (the fine level masks them) but weaken the coarse correction. */
#ifndef DT_HO_PMG_H
#define DT_HO_PMG_H

#include <stdio.h>

#include "amg/amg.h"
#include "core/dt_status.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_pcg.h"

#define DT_HO_PMG_MAX_LEVELS 5

typedef struct dt_ho_pmg_opts {
  int degree;        /* Chebyshev degree per smoothing, 1..8 */
  double eig_ratio;  /* the smoothed interval is [hi / eig_ratio, hi] */
  int lanczos_steps; /* of the lambda_max(D^-1 A) estimate, 2..DT_AMG_LANCZOS_MAX */
  int halve;         /* nonzero: p -> ceil(p / 2) down to 1; zero: P -> 1 */
  /* Nonzero: setup leaves the finest level's smoother (inverse diagonal, lambda_max) to
   * dt_ho_pmg_set_fine, which must come before the first application; for a caller that gives
   * every operator it solves with anyway (a Newton solve's tangents), so the estimate is not
   * made twice. */
  int fine_later;
} dt_ho_pmg_opts;

/* One level: order-p operator, its smoother, and the transfer from the next coarser level. */
typedef struct dt_ho_pmg_level {
  int order, n, n_nodes; /* n = 3 n_nodes */
  const int *elem_nodes; /* the level's mesh's, (order + 1)^3 per element */
  dt_ho_mesh mesh;       /* levels > 0 (owned) */
  dt_ho_elastic el;      /* levels > 0 (owned) */
  dt_ho_apply_fn apply;
  const void *op;
  unsigned char *fixed; /* n (owned) */
  double *dinv;         /* n: 1 / A_ii on free DOFs, 0 on constrained ones */
  double lambda_max;    /* Lanczos estimate of lambda_max(D^-1 A), free DOFs */
  /* transfer from level l + 1: interp[a (p_c + 1) + b] = L^{p_c}_b(x^{p}_a) */
  double *interp;
  unsigned char *own;        /* n_elems x (p + 1)^3: the element owns that fine node */
  double *b, *x, *r, *d, *t; /* V-cycle vectors, n each */
} dt_ho_pmg_level;

typedef struct dt_ho_pmg {
  dt_ho_pmg_opts opt;
  int n_levels; /* the last is order 1, assembled */
  int n_elems;
  dt_ho_pmg_level lev[DT_HO_PMG_MAX_LEVELS];
  /* order-1 level: CSR (owned; borrowed by the AMG) and the AMG hierarchy */
  int *row_ptr, *col;
  double *val, *con;
  dt_amg *amg;
  /* statistics */
  long applies;             /* V-cycles */
  double seconds_setup;     /* all of setup, of which: */
  double seconds_levels;    /* the coarse meshes, their operators, constraints and transfers */
  double seconds_smoothers; /* the levels' diagonals and lambda_max estimates */
  double seconds_matrix;    /* the order-1 level's CSR */
  double seconds_amg;       /* its AMG hierarchy */
} dt_ho_pmg;

/* Defaults: Chebyshev degree 3 on [hi / 30, hi], 12 Lanczos steps, halving orders, the finest
 * smoother set up with the levels. */
void dt_ho_pmg_opts_default(dt_ho_pmg_opts *o);

/* Builds the levels for the order-P operator (apply, op) with diagonal `diag` on mesh m (P >= 2)
 * whose geometry and Lame parameters are el's (el on m; both borrowed and must outlive pmg).
 * fixed: 3 n_nodes constrained flags (NULL: none; borrowed only during setup). With
 * opts->fine_later, apply, op and diag are not used (may be NULL) until dt_ho_pmg_set_fine.
 * Errors: DT_ERR_INPUT (P < 2, bad options, a non-positive free diagonal entry), those of the
 * coarse meshes, operators and the AMG, DT_ERR_NOMEM. Release with dt_ho_pmg_free. */
dt_status dt_ho_pmg_setup(const dt_ho_mesh *m, const dt_ho_elastic *el, dt_ho_apply_fn apply,
                          const void *op, const double *diag, const unsigned char *fixed,
                          const dt_ho_pmg_opts *opts, dt_ho_pmg *pmg, dt_ctx *ctx);
/* A new finest operator on the same mesh and constraints (a new Newton tangent): its diagonal
 * and lambda_max; the coarse levels stay. Errors as setup. */
dt_status dt_ho_pmg_set_fine(dt_ho_pmg *pmg, dt_ho_apply_fn apply, const void *op,
                             const double *diag, dt_ctx *ctx);
/* z = M^-1 r (one V-cycle); the dt_ho_pc_fn that dt_ho_pcg_solve_pc takes, pc a dt_ho_pmg.
 * Errors: DT_ERR_INPUT when set up with fine_later and not given its finest operator yet,
 * those of the operators. */
dt_status dt_ho_pmg_apply(void *pc, const double *r, double *z, dt_ctx *ctx);
/* Releases what pmg owns and zeroes it (NULL-safe). */
void dt_ho_pmg_free(dt_ho_pmg *pmg);
/* Levels (order, DOFs, lambda_max), the AMG's summary, setup time by phase. */
void dt_ho_pmg_view(const dt_ho_pmg *pmg, FILE *f);

/* Transfers between level l and l + 1 (ho_pmg_transfer.c), exposed for tests: y = P x_c
 * (x_c of level l + 1, y of level l, overwritten) and x_c = R y = P^T y (overwritten). Neither
 * masks constrained DOFs. */
void dt_ho_pmg_prolong(const dt_ho_pmg *pmg, int l, const double *xc, double *y);
void dt_ho_pmg_restrict(const dt_ho_pmg *pmg, int l, const double *y, double *xc);

/* The same transfers as explicit matrices over nodes (ho_pmg_matrices.c), for a device V-cycle
 * that gathers: (P x_c)[3 g + c] = sum_k w[k] x_c[3 col[k] + c] over row g's entries k (rows:
 * level l's nodes, columns: level l + 1's), and R = P^T with the same entries by rows of coarse
 * nodes, each row's fine nodes ascending. Exact zeros are left out. */
typedef struct dt_ho_pmg_node_csr {
  int n_rows;
  int *ptr, *col; /* n_rows + 1; ptr[n_rows] */
  double *w;
} dt_ho_pmg_node_csr;
/* P and R of level l (0 <= l < n_levels - 1), owned by the caller: release with
 * dt_ho_pmg_node_csr_free. Errors: DT_ERR_INPUT (l out of range), DT_ERR_NOMEM. */
dt_status dt_ho_pmg_transfer_matrices(const dt_ho_pmg *pmg, int l, dt_ho_pmg_node_csr *P,
                                      dt_ho_pmg_node_csr *R, dt_ctx *ctx);
void dt_ho_pmg_node_csr_free(dt_ho_pmg_node_csr *A);

#endif
