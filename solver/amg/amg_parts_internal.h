/* What amg_parts.c (setup, refresh) and amg_parts_cycle.c (exchanges, Lanczos, V-cycle)
 * share: the per-part pieces of a level of the hierarchy across the parts (amg_parts.h). */
#ifndef DT_AMG_PARTS_INTERNAL_H
#define DT_AMG_PARTS_INTERNAL_H

#include "amg_internal.h"
#include "amg_parts.h"
#include "partition/partition_exchange.h"

#define DT_AMG_PARTS_MAX 16 /* DT_MAX_RUN_DEVICES */

/* Part s's share of a level. lev holds its K_s (level 0: borrowed), its nodes (owned first,
 * then ghosts), B on its owned nodes, and the transfer to the next level as one device's level
 * does (amg.h): agg (its owned nodes' aggregates, -1 on ghosts), P_tent (its rows at every
 * local node, ghosts' from their owners), P, R = P^T, A P and the maps; dinv is the inverse of
 * the summed point diagonal. */
typedef struct amgp_side {
  dt_amg_level lev;
  int n_owned_nodes, n_owned; /* the owned prefix: nodes, DOFs */
  unsigned char *shared;      /* per local node: another part holds it too */
  int *gnode;                 /* per local node: its number on this level across the parts */
  int *gdof;                  /* per local DOF: the same for DOFs */
  dt_part_local Xn, X;        /* the exchange lists, per node and per DOF */
  double *diag;               /* the summed point diagonal (n) */
  double *owned_r;            /* scratch (n): the residual on owned DOFs, zero on ghosts */
  /* The shared nodes' smoothed rows of P (all but the coarsest level): the part's K_s P_tent,
   * its rows at shared nodes scattered into the rows across the parts (urow: per shared node,
   * its DOF rows over the coarse DOFs its row touches in any part, entry_ptr per node), summed
   * by an exchange over Xe (the node lists expanded to those entries). q_upos: per entry of
   * KPt its place in urow (-1 on interior rows, whose entries are P's own); u_pos: per entry
   * of urow its place in P. */
  dt_amg_csr KPt;
  int *entry_ptr, *q_upos, *u_pos;
  double *urow;
  dt_part_local Xe;
} amgp_side;

typedef struct amgp_level {
  int n_global, n_global_nodes; /* DOFs and nodes of the whole level */
  long nnz_parts;               /* the parts' nonzeros (shared couplings counted per part) */
  double lambda_max, omega;
  amgp_side side[DT_AMG_PARTS_MAX];
  dt_halo_host *halo, *halo_e; /* the exchanges over the sides' X and Xe */
} amgp_level;

struct dt_amg_parts {
  dt_amg_options opt;
  int nparts, dpn, n_modes, n_levels;
  amgp_level lev[DT_AMG_MAX_LEVELS];
  /* The coarsest level gathered: the whole matrix in a one-level hierarchy (dense factor), each
   * part's entries' positions in it (cpos[s]: one per entry of the part's coarsest K_s), and
   * the whole right-hand side and solution. */
  dt_amg *coarse;
  int *cpos[DT_AMG_PARTS_MAX];
  double *cb, *cx;
  double *chunks; /* partial sums of the dot products (the largest part's level 0) */
  unsigned char *con[DT_AMG_PARTS_MAX]; /* level 0's constrained DOFs at build time */
  double seconds_build, seconds_refresh;
  int refreshes, fine_refreshes;
};

/* amg_parts_cycle.c */
/* Sum exchange of a level's per-part vectors v[s] (one value per DOF). */
dt_status dt_amgp_sum(dt_amg_parts *h, int l, double *const *v, dt_ctx *ctx);
/* y_s = K_s x_s for every part, then the sum exchange: y = A x, consistent. */
dt_status dt_amgp_spmv(dt_amg_parts *h, int l, double *const *x, double *const *y, dt_ctx *ctx);
/* x . y over the whole level (each part's owned DOFs, summed in part order). */
double dt_amgp_dot(dt_amg_parts *h, int l, double *const *x, double *const *y);
/* lambda_max(D^-1 A) of level l by Lanczos (its vectors r, d, t, x as scratch). */
dt_status dt_amgp_lambda_max(dt_amg_parts *h, int l, double *out, dt_ctx *ctx);

#endif
