/* The coarse space of the two-level preconditioner (linear.preconditioner "two_level").
 *
 *   M^-1 = B^-1 + Z E^-1 Z^T,   E = Z^T K Z
 * B: the nodal block Jacobi preconditioner; Z: the rigid-body modes (translations and
 * rotations) of each box of a grid laid over the mesh, zero on constrained DOFs. Block Jacobi
 * removes the error that varies from node to node; the coarse correction removes what varies
 * only from box to box, which block Jacobi needs many iterations for (their count grows with
 * the mesh size; with boxes it grows with the box size: a probe (docs/benchmarks.md, decision table) measured
 * 3.5-6.3x fewer PCG iterations on a 32^3 cube). M is symmetric positive definite, so PCG
 * stays PCG. This file builds the boxes once per problem (plain arrays in dt_problem) and gives
 * the mode values (host and device); each backend forms E from its tangent and applies M. */
#ifndef DT_COARSE_SPACE_H
#define DT_COARSE_SPACE_H

#include "core/hd.h"
#include "problem.h"

/* About this many nodes per box: E is (6 * boxes)^2 and dense, so the box count is capped too. */
#define DT_COARSE_NODES_PER_BOX 500
#define DT_COARSE_MAX_BOXES 512
/* A small mesh still gets this many boxes (if it has nodes enough for them). */
#define DT_COARSE_MIN_BOXES 8
/* Most boxes one box may be coupled to (27 on a box grid coarser than the elements); finer
 * grids are made coarser until it holds. */
#define DT_COARSE_MAX_NBR 64
/* Relative shift of E's diagonal before its Cholesky factorization: a box whose modes are
 * dependent on its free DOFs (a box with one free node has no rotations) leaves E singular;
 * the shift keeps the factor finite and M positive definite, and the affected directions
 * receive no residual (Z^T r is zero along them), so the solution does not see it. */
#define DT_COARSE_SHIFT 1e-10

/* Build the boxes (dt_problem's n_sub ... item_local) for about nodes_per_box nodes each. */
dt_status dt_coarse_space_build(dt_problem *pb, int nodes_per_box, dt_ctx *ctx);
void dt_coarse_space_free(dt_problem *pb);

/* Value of rigid-body mode m (0 .. n_modes-1) at component i of a node whose offset from its
 * box's centre, divided by the box's scale, is d (dt_problem node_d). 3D: translations x, y, z,
 * then rotations about z, x, y; 2D: x, y, then the rotation about z. Scaled by the box size,
 * all modes are of order one; with d stored per node no kernel divides. */
DT_HD static inline double dt_coarse_mode(int dpn, int m, const double *d, int i) {
  if (m < dpn) return i == m ? 1.0 : 0.0;
  if (m == dpn) return i == 0 ? -d[1] : i == 1 ? d[0] : 0.0; /* about z */
  if (m == 4) return i == 1 ? -d[2] : i == 2 ? d[1] : 0.0;   /* about x */
  return i == 0 ? d[2] : i == 2 ? -d[0] : 0.0;               /* about y */
}

/* Regularize E (n x n, row-major, symmetric) as DT_COARSE_SHIFT says; a zero diagonal (a box
 * without free DOFs in that mode) becomes 1. Shared so that both backends factor the same E. */
DT_HD static inline void dt_coarse_regularize_entry(double *e_kk) {
  *e_kk = *e_kk > 0.0 ? *e_kk + DT_COARSE_SHIFT * *e_kk : 1.0;
}

#endif
