/* The AMG module's internal steps, shared by its files (not included outside solver/amg/,
 * except by the unit tests of the pieces and by the CUDA backend's device build,
 * cuda/cuda_amg_build.cu, which runs the aggregation pass and the aggregates' QR here). */
#ifndef DT_AMG_INTERNAL_H
#define DT_AMG_INTERNAL_H

#include "amg.h"

/* Vector loops over fewer entries than this, and matrix loops over fewer rows than this whose
 * matrix holds fewer than DT_AMG_OMP_MIN_NNZ entries, run on one thread: a parallel region
 * costs a fork and a barrier, microseconds on idle cores but up to a time slice on shared
 * ones (a V-cycle opens some 30 of them: a 25k-DOF plastic plate with 2 threads on 2 cores
 * shared with other jobs took 6x longer than with 1), more than a short loop saves. The
 * CPU backend's threshold (DT_OMP_MIN_DOFS) is the same. */
#define DT_AMG_OMP_MIN 50000
#define DT_AMG_OMP_MIN_NNZ 2000000
/* Whether a loop over matrix A's rows runs in parallel. */
#define DT_AMG_OMP_ROWS(A)                                                                         \
  ((A)->n_rows > DT_AMG_OMP_MIN || (A)->row_ptr[(A)->n_rows] > DT_AMG_OMP_MIN_NNZ)

/* Fixed chunk of the deterministic dot products. */
#define DT_AMG_CHUNK 4096

/* The graph of strong couplings between a level's nodes (no self loops). */
typedef struct dt_amg_graph {
  int n;
  int *ptr;  /* n + 1 */
  int *adj;  /* each node's strong neighbours, ascending */
  double *w; /* the coupling's strength |A_ab| / sqrt(|A_aa| |A_bb|) */
  int *best; /* n: each node's most strongly coupled other node, strong or not (-1: none) */
} dt_amg_graph;

/* amg_csr.c */
void dt_amg_csr_free(dt_amg_csr *A);
/* A's row groups: runs of rows with one column list inside each hint group (rows
 * hint[h] .. hint[h + 1] - 1: a level's nodes). */
dt_status dt_amg_csr_group(dt_amg_csr *A, const int *hint, int n_hint, dt_ctx *ctx);
/* C's groups = A's (same row count). */
dt_status dt_amg_csr_copy_groups(dt_amg_csr *C, const dt_amg_csr *A, dt_ctx *ctx);
/* y = alpha A x + beta y (beta = 0: y is not read). */
void dt_amg_spmv(const dt_amg_csr *A, double alpha, const double *x, double beta, double *y);

/* amg_spgemm.c */
/* The pattern of C = A B (each row's columns ascending, A's row groups); C->val allocated,
 * not set. */
dt_status dt_amg_spgemm_symbolic(const dt_amg_csr *A, const dt_amg_csr *B, dt_amg_csr *C,
                                 dt_ctx *ctx);
/* C->val = A B on C's pattern (from dt_amg_spgemm_symbolic of the same patterns). */
dt_status dt_amg_spgemm_numeric(const dt_amg_csr *A, const dt_amg_csr *B, dt_amg_csr *C,
                                dt_ctx *ctx);
/* Ac->val = R AP for a symmetric product: the upper part computed, the rest copied through
 * mirror (dt_amg_mirror of Ac's pattern). */
dt_status dt_amg_galerkin_numeric(const dt_amg_csr *R, const dt_amg_csr *AP, dt_amg_csr *Ac,
                                  const int *mirror, dt_ctx *ctx);
/* For each entry of C left of its row group's first column: the position of its transpose
 * (-1 elsewhere). DT_ERR_INTERNAL if C's pattern is not symmetric. */
dt_status dt_amg_mirror(const dt_amg_csr *C, int **mirror, dt_ctx *ctx);
/* T = A^T (pattern and values) and *perm: the position in T of each entry of A. */
dt_status dt_amg_transpose(const dt_amg_csr *A, dt_amg_csr *T, int **perm, dt_ctx *ctx);
/* T's values again from A's (same patterns). */
void dt_amg_transpose_values(const dt_amg_csr *A, const int *perm, dt_amg_csr *T);
/* Sort v[0 .. n-1] ascending. */
void dt_amg_sort_ints(int *v, int n);
/* x . y summed over fixed chunks of DT_AMG_CHUNK (partial: n / DT_AMG_CHUNK + 1 doubles). */
double dt_amg_dot(int n, const double *x, const double *y, double *partial);

/* amg_strength.c: strong couplings of level L's nodal blocks for threshold theta. */
dt_status dt_amg_strength(const dt_amg_level *L, double theta, dt_amg_graph *S, dt_ctx *ctx);
void dt_amg_graph_free(dt_amg_graph *S);

/* amg_aggregate.c: standard aggregation on S; agg[a] in 0 .. *n_agg - 1, or -1 for a node
 * without couplings. */
dt_status dt_amg_aggregate(const dt_amg_graph *S, int *agg, int *n_agg, dt_ctx *ctx);

/* amg_tentative.c */
/* B (dpn * n_nodes x n_modes, row-major): translations, then rotations about z (3D: also x
 * and y) at the coordinates x relative to their centroid; rows where con is nonzero are 0. */
void dt_amg_rigid_modes(int n_nodes, int dpn, const double *x, const double *con, double *B);
/* P_tent of fine level F for its aggregates F->agg (n_agg of them) and the coarse level's
 * nodes and B: C->n_nodes, C->node_ptr, C->n, C->B. Aggregates on which B has no nonzero rows
 * are dropped (their nodes' agg becomes -1, the others are renumbered). */
dt_status dt_amg_tentative(dt_amg_level *F, int n_modes, int n_agg, dt_amg_level *C, dt_ctx *ctx);

/* amg_aggregate.c: whether level l (> 0), its n_nodes aggregated into n_agg at the threshold
 * halved `halvings` times, is aggregated again at half the threshold. */
int dt_amg_coarsen_again(int l, int n_nodes, int n_agg, int halvings);
/* amg_setup.c: with P's values set, R = P^T, A P and the next level's A_c = R (A P). */
dt_status dt_amg_coarse_values(dt_amg_level *F, dt_amg_level *C, dt_ctx *ctx);
/* Frees a level's transfer to the next level (agg, P_tent, P, R, A P and their maps). */
void dt_amg_transfer_free(dt_amg_level *L);
/* Frees all of a level and zeroes it. */
void dt_amg_level_free(dt_amg_level *L);

/* amg_smoother.c */
/* diag_pos and the point diagonal's inverse of L's A; DT_ERR_NOT_CONVERGED at a non-positive
 * a_ii. */
dt_status dt_amg_diagonal(dt_amg_level *L, int find_positions, dt_ctx *ctx);
/* lambda_max(D^-1 A) by `steps` Lanczos steps (uses L's r, d, t and x as scratch). */
double dt_amg_lambda_max(dt_amg_level *L, int steps, double *partial);
/* The smoother's inverse diagonal (after lambda_max: Chebyshev keeps 1 / a_ii). */
void dt_amg_smoother_setup(dt_amg_level *L, const dt_amg_options *o);
/* Smooth A x = b: x from zero (zero = 1) or from its value; with want_residual, L->r holds
 * b - A x on return. */
void dt_amg_smooth(dt_amg_level *L, const dt_amg_options *o, const double *b, double *x, int zero,
                   int want_residual);

/* amg_dense.c: the coarsest level's dense solve (its factor: dt_amg_coarse_factor, amg.h). */
void dt_amg_dense_solve(const dt_amg *h, const double *b, double *x);

#endif
