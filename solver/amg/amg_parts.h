/* One smoothed-aggregation AMG hierarchy across the parts of a split run (docs/multi-gpu.md,
 * "One AMG across the parts").
 *
 * Every level is held the way the parts hold the mesh: each part keeps its own rows of the
 * level's matrix, K_s, summed from its own pieces only (level 0: its elements on its nodes,
 * ghosts included), so that A = sum_s E_s^T K_s E_s with E_s the restriction to part s's
 * nodes; a product is each part's K_s x then a sum exchange of the nodes the parts share
 * (partition_exchange.h). The Galerkin product keeps that form level after level:
 *
 *   A_c = P^T A P = sum_s (E_s P)^T K_s (E_s P) = sum_s P_s^T K_s P_s,
 *
 * where P_s, the rows of P at part s's nodes (ghosts included), is what part s holds. So each
 * part forms its coarse matrix alone, with the sparse products of the one-device hierarchy
 * (amg.h), once P_s's rows agree wherever two parts hold the same node. They do because
 *   - each part aggregates only the nodes it owns (a node belongs to one aggregate, of its
 *     owner part), and takes a ghost node's tentative row (its aggregate's orthonormal basis,
 *     thin QR) from the owner;
 *   - a node's smoothed row, P = (I - omega D^-1 A) P_tent, is its part's own row of K_s P_tent
 *     where no other part holds the node ("interior": K_s's row is A's); a shared node's row of
 *     A P_tent is the sum of the parts' rows, over the coarse nodes the row touches in any part,
 *     summed by one exchange of those entries at setup and at every refresh, and laid out in
 *     the order of those coarse nodes across the parts, so every part sums it alike.
 * A part's coarse nodes are its own aggregates followed by the aggregates its rows of P touch
 * that other parts own (its coarse ghosts: those of its ghost nodes and of its shared nodes'
 * rows), so a coarse level has owners, ghosts and exchange
 * lists like the mesh; the lists are kept per DOF (a coarse node has 1 to 6 DOFs).
 *
 * The V-cycle is the one-device cycle of amg.h on the whole matrix: the same Chebyshev smoother
 * (D the summed point diagonal, lambda_max by Lanczos over the parts' owned entries), the
 * residual restricted by P^T (each part over the rows it owns, then a sum exchange), the
 * correction prolonged by P (each part locally: its rows agree), and the coarsest level, once
 * the whole of it has at most max_coarse DOFs, gathered and solved by one dense Cholesky factor.
 * So M^-1 is symmetric positive definite and its iterations do not grow with the parts the
 * way additive Schwarz's do.
 *
 * Vectors passed in and out are consistent: a ghost holds its owner's value. The exchanges use
 * the host transport (all parts' vectors in host memory). */
#ifndef DT_AMG_PARTS_H
#define DT_AMG_PARTS_H

#include <stdio.h>

#include "amg.h"
#include "partition/partition.h"

/* Part s's share of level 0. */
typedef struct dt_amg_part_input {
  const dt_part_local *L; /* its nodes (owned interior, owned interface, ghosts) and lists */
  const double *x;        /* 3 coordinates per local node */
  const double *con;      /* dpn per local node: nonzero on constrained DOFs */
  int *row_ptr, *col;     /* its own tangent (its elements only), scalar CSR over its DOFs, */
  double *val;            /* constrained rows and columns identity; borrowed until destroy */
} dt_amg_part_input;

typedef struct dt_amg_parts dt_amg_parts;

/* Build the hierarchy of the nparts parts in[0 .. nparts-1] (dpn 2 or 3). Errors as
 * dt_amg_create (amg.h), naming the part where one part's matrix is at fault. */
dt_status dt_amg_parts_create(int nparts, int dpn, const dt_amg_part_input *in,
                              const dt_amg_options *opt, dt_amg_parts **out, dt_ctx *ctx);
/* New values of level 0 (same patterns; val[s] borrowed): fine_only = 0 recomputes every level
 * (aggregates, tentative prolongators and patterns kept), 1 only level 0's smoother (the coarse
 * levels of the last build or refresh stay, DT_PC_KEEP_COARSE). Errors as dt_amg_refresh. */
dt_status dt_amg_parts_refresh(dt_amg_parts *h, double *const *val, int fine_only, dt_ctx *ctx);
/* 1 when con[s] (part s's, dpn per local node) differs from the set h was built for. */
int dt_amg_parts_constraints_changed(const dt_amg_parts *h, const double *const *con);
/* z = M^-1 r, one V-cycle; r[s] and z[s] are part s's consistent vectors (its local DOFs),
 * distinct. Errors: those of the exchange. */
dt_status dt_amg_parts_apply(dt_amg_parts *h, const double *const *r, double *const *z,
                             dt_ctx *ctx);
/* NULL-safe; sets *h to NULL. The borrowed level-0 arrays are left alone. */
void dt_amg_parts_destroy(dt_amg_parts **h);
/* Levels with their whole sizes, the parts' nonzeros, the setup times. */
void dt_amg_parts_view(const dt_amg_parts *h, FILE *f);
/* Seconds of the last build and of the last refresh, and the level count. */
void dt_amg_parts_stats(const dt_amg_parts *h, int *levels, double *build_s, double *refresh_s);

#endif
