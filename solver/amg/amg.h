/* Smoothed-aggregation algebraic multigrid (linear.preconditioner "amg") for elasticity.
 *
 * Written once on host CSR data (plain C and OpenMP), independent of the backend: the CPU
 * backend applies the hierarchy with dt_amg_apply; a device backend can upload the levels,
 * which are plain arrays (dt_amg_level), and run the same V-cycle.
 *
 *   M^-1 r = one V-cycle from x = 0: smooth, restrict the residual with R = P^T, recurse,
 *   x += P x_c, smooth again; the coarsest level is solved by a dense Cholesky factor.
 *
 * The smoother is a polynomial in D^-1 A (Chebyshev, D the point diagonal) or l1-Jacobi,
 * applied the same way before and after the coarse correction, so M is symmetric; it is
 * positive definite while the smoother converges, which the Lanczos bound on lambda_max
 * secures, so PCG stays PCG.
 *
 * Setup (Vanek, Mandel and Brezina, Computing 56, 1996):
 *   B      near-null space: the rigid-body modes of the node coordinates, 6 in 3D (3 in 2D),
 *          zero on constrained DOFs (their rows of A are identity);
 *   agg    standard aggregation of the nodes on the graph of strong couplings between nodal
 *          blocks, |A_ab| > theta sqrt(|A_aa| |A_bb|) (Frobenius norms); a coarse level
 *          that aggregates into fewer than 8 nodes an aggregate is aggregated again at
 *          theta / 2 (up to three times: dt_amg_coarsen_again), so coarse levels stay sparse;
 *   P_tent an orthonormal basis of B's rows on each aggregate (thin QR); its R factors are the
 *          next level's B, and columns that B's rows do not span (a one-node aggregate has no
 *          rotations) are dropped, so a coarse node has 1..6 DOFs;
 *   P      (I - omega D^-1 A) P_tent, omega = 4 / (3 lambda_max(D^-1 A));
 *   A_c    R A P, by row-wise sparse products (a symbolic pass for the pattern, then values).
 * Aggregates, P_tent and every product's pattern depend only on the fine pattern, the
 * coordinates and the constrained set (and on the values at build time, through strength).
 * dt_amg_refresh keeps them and recomputes only values (a new Newton tangent); the caller
 * builds again when the constrained set changes (dt_amg_constraints_changed).
 *
 * Results do not depend on the thread count: every sum runs in a fixed order (row-wise
 * products, reductions over fixed chunks), and aggregation is sequential. */
#ifndef DT_AMG_H
#define DT_AMG_H

#include <stdint.h>
#include <stdio.h>

#include "core/dt_status.h"

#define DT_AMG_MAX_LEVELS 16

/* Scalar CSR matrix: int32 indices, each row's columns ascending (level 0: as the caller
 * gives them). Its rows come in groups of consecutive rows with identical column lists (the
 * DOFs of a node, at most DT_AMG_GROUP_MAX): products and SpMV read each group's indices once
 * for all its rows. borrowed: row_ptr, col and val belong to the caller (level 0's A). */
typedef struct dt_amg_csr {
  int n_rows, n_cols;
  int *row_ptr; /* n_rows + 1 */
  int *col;     /* row_ptr[n_rows] */
  double *val;
  int n_groups;
  int *group_ptr; /* n_groups + 1: group g is rows group_ptr[g] .. group_ptr[g + 1] - 1 */
  int borrowed;
} dt_amg_csr;

#define DT_AMG_GROUP_MAX 8

/* The Chebyshev smoother damps D^-1 A on [hi / eig_ratio, hi], hi = DT_AMG_CHEB_SAFETY times
 * the Lanczos estimate of lambda_max (which converges from below): a device V-cycle uses the
 * same interval. */
#define DT_AMG_CHEB_SAFETY 1.1

typedef enum dt_amg_smoother_kind {
  DT_AMG_CHEBYSHEV = 0, /* Chebyshev polynomial of D^-1 A on [lambda_max / eig_ratio, lambda_max] */
  DT_AMG_L1_JACOBI = 1  /* x += D_l1^-1 (b - A x), D_l1 = diag(sum_j |a_ij|); `degree` sweeps */
} dt_amg_smoother_kind;

typedef struct dt_amg_options {
  double theta; /* strength threshold (0: every coupling is strong); halved on a coarse level
                   that coarsens too little (dt_amg_coarsen_again) */
  dt_amg_smoother_kind smoother;
  int degree;        /* Chebyshev degree, or l1-Jacobi sweeps, per smoothing */
  double eig_ratio;  /* Chebyshev: lower end of the damped interval, lambda_max / eig_ratio */
  int max_coarse;    /* coarsen until a level has at most this many DOFs */
  int max_levels;    /* at most DT_AMG_MAX_LEVELS */
  int lanczos_steps; /* steps of the lambda_max(D^-1 A) estimate */
} dt_amg_options;

/* One level l: A_l and, except on the coarsest level, the transfer to level l + 1. */
typedef struct dt_amg_level {
  int n;             /* DOFs (rows of A) */
  int n_nodes;       /* level 0: mesh nodes; level l > 0: the aggregates of level l - 1 */
  int *node_ptr;     /* n_nodes + 1: the DOFs of node a are node_ptr[a] .. node_ptr[a + 1] - 1 */
  dt_amg_csr A;      /* level 0: the caller's matrix (borrowed) */
  double *B;         /* n x n_modes, row-major: the near-null space on this level */
  int *diag_pos;     /* n: the position of a_ii in A */
  double *dinv;      /* n: 1 / a_ii (Chebyshev) or 1 / sum_j |a_ij| (l1-Jacobi) */
  double lambda_max; /* Lanczos estimate of lambda_max(D^-1 A), D the point diagonal (not on
                        the coarsest level, which is solved exactly) */
  /* Transfer to level l + 1 (empty on the coarsest level). */
  double theta;      /* the strength threshold its aggregates were made with */
  int *agg;          /* n_nodes: each node's aggregate (a node of level l + 1), -1 for none */
  dt_amg_csr P_tent; /* n x n_{l+1}: the aggregates' orthonormal bases */
  dt_amg_csr P;      /* (I - omega D^-1 A) P_tent; its pattern is that of A P_tent */
  dt_amg_csr R;      /* P^T, explicit */
  dt_amg_csr AP;     /* A P, kept for the Galerkin product's refresh */
  int *pt_pos;       /* per P_tent entry: its position in P */
  int *r_perm;       /* per P entry: its position in R */
  int *ac_mirror;    /* per entry of A_{l+1}: its transpose's position where it is copied, or -1 */
  double omega;      /* 4 / (3 lambda_max) */
  /* V-cycle vectors (n each): right-hand side and solution (levels > 0), residual, Chebyshev
   * direction, product. */
  double *b, *x, *r, *d, *t;
} dt_amg_level;

typedef struct dt_amg {
  dt_amg_options opt;
  int dim, dpn, n_modes;
  int n_levels;
  dt_amg_level lev[DT_AMG_MAX_LEVELS];
  /* Coarsest level: A as a dense n x n matrix, factored in place: the Cholesky factor L below
   * the diagonal and L^T above it (row-major), so both triangular solves read rows. */
  double *coarse_L;
  double *coarse_ref; /* the scale of each coarsest pivot (amg_dense.c) */
  unsigned char *con; /* level 0's constrained DOFs at build time */
  double *chunks;     /* partial sums of the fixed-chunk dot products */
  int n_chunks;
  /* Statistics. */
  int builds, refreshes, fine_refreshes; /* fine_refreshes: dt_amg_refresh_fine's */
  double seconds_build, seconds_refresh; /* of the last build, last refresh */
  /* Where the last build or refresh went: aggregation, P_tent and patterns (build only);
   * diagonals, lambda_max and smoothers; the numeric products (P, R, A P, A_c); the dense
   * factor. */
  double seconds_structure, seconds_smoothers, seconds_products, seconds_factor;
} dt_amg;

/* Level 0 as the caller holds it. The DOFs of node a are dpn*a .. dpn*a + dpn - 1; rows and
 * columns of constrained DOFs are identity (backend.h, tangent_assemble). */
typedef struct dt_amg_input {
  int n_nodes, dpn;   /* dpn = 2 or 3 */
  const double *x;    /* 3 coordinates per node */
  const double *con;  /* n_nodes * dpn: nonzero on constrained DOFs */
  int *row_ptr, *col; /* the matrix (borrowed until dt_amg_destroy) */
  double *val;
} dt_amg_input;

/* The defaults (chosen by measurement: docs/job-format.md, "Algebraic multigrid"). */
void dt_amg_options_default(dt_amg_options *o);

/* Build the hierarchy for in's matrix. The matrix arrays stay borrowed. Errors:
 * DT_ERR_NOT_CONVERGED when a diagonal entry is not positive or the coarsest matrix is not
 * positive definite (the tangent lost stiffness), DT_ERR_NOMEM, DT_ERR_UNSUPPORTED for a
 * product too large for int32 indices. */
dt_status dt_amg_create(const dt_amg_input *in, const dt_amg_options *opt, dt_amg **out,
                        dt_ctx *ctx);
/* New values of level 0's matrix (same pattern, val borrowed): recompute the smoothed
 * prolongators, Galerkin products, smoothers and the coarse factor; keep the aggregates,
 * P_tent and the patterns. Errors as dt_amg_create. */
dt_status dt_amg_refresh(dt_amg *h, double *val, dt_ctx *ctx);
/* New values of level 0's matrix only (DT_PC_KEEP_COARSE): its diagonal, lambda_max and smoother
 * from val; the transfers, the coarse levels and their factor stay those of the last build or
 * refresh. A hierarchy of one level is refreshed whole. Errors as dt_amg_refresh. */
dt_status dt_amg_refresh_fine(dt_amg *h, double *val, dt_ctx *ctx);
/* 1 when con (n_nodes * dpn, nonzero: constrained) differs from the set h was built for. */
int dt_amg_constraints_changed(const dt_amg *h, const double *con);
/* z = M^-1 r: one V-cycle (r and z of level 0's size, distinct). */
void dt_amg_apply(dt_amg *h, const double *r, double *z);
/* For a device backend that refreshes the levels' values itself (same steps, its own kernels):
 * the coarsest level's factor from h->lev[n_levels - 1].A.val and the pivot scales ref (n of
 * the coarsest level; NULL: computed from the host levels' P and A, amg_dense.c). Errors as
 * dt_amg_refresh. */
dt_status dt_amg_coarse_factor(dt_amg *h, const double *ref, dt_ctx *ctx);
/* The pieces of the lambda_max estimate (amg_smoother.c): entry i of the Lanczos start vector
 * (deterministic, every frequency in it), the largest eigenvalue of the k x k symmetric
 * tridiagonal (alpha, beta) that the steps build, at most DT_AMG_LANCZOS_MAX of them, and the
 * test that stops them at an invariant subspace (beta_j <= DT_AMG_LANCZOS_BREAK |alpha_j|). */
#define DT_AMG_LANCZOS_MAX 64
#define DT_AMG_LANCZOS_BREAK 1e-12
double dt_amg_lanczos_start(int i);
double dt_amg_ritz_max(const double *alpha, const double *beta, int k);
/* NULL-safe; sets *h to NULL. The borrowed level-0 arrays are left alone. */
void dt_amg_destroy(dt_amg **h);
/* Bytes the hierarchy holds (level 0's borrowed matrix aside): the coarse matrices, P_tent,
 * P, R and A P of every level (A P is kept for refreshes and is the largest: on quadratic
 * tetrahedra it has more entries than A), the vectors and the dense factor. */
double dt_amg_bytes(const dt_amg *h);
/* Levels, sizes, nonzeros, operator complexity, memory, smoother, setup times. */
void dt_amg_view(const dt_amg *h, FILE *f);

#endif
