/* Standard aggregation of an AMG level's nodes on the graph of strong couplings (Vanek,
 * Mandel and Brezina 1996), in node order, so the aggregates depend on the graph alone:
 *   1. a node that is not aggregated and none of whose strong neighbours is becomes a root:
 *      it and its strong neighbours form a new aggregate;
 *   2. each node left joins the phase-1 aggregate of its strongest aggregated neighbour (as
 *      phase 1 left them, so the order of this phase does not matter);
 *   3. each node still left forms a new aggregate with its strong neighbours still left;
 *   4. a node without strong neighbours joins the aggregate of the node it is most strongly
 *      coupled to (or forms one with it): on quadratic tetrahedra many corner nodes couple
 *      weakly to everything, and a node outside every aggregate is left to the smoother, which
 *      cannot reduce its smooth error (with theta = 0.12 the iterations tripled).
 * Only nodes without any coupling (fully constrained ones) stay out (-1). */
#include "amg_internal.h"

/* Phase 1: roots and their neighbourhoods. */
static int roots(const dt_amg_graph *S, int *agg) {
  int n_agg = 0;
  for (int a = 0; a < S->n; a++) {
    int free_nbhd = S->ptr[a + 1] > S->ptr[a] && agg[a] < 0;
    for (int k = S->ptr[a]; k < S->ptr[a + 1] && free_nbhd; k++) free_nbhd = agg[S->adj[k]] < 0;
    if (!free_nbhd) continue;
    agg[a] = n_agg;
    for (int k = S->ptr[a]; k < S->ptr[a + 1]; k++) agg[S->adj[k]] = n_agg;
    n_agg++;
  }
  return n_agg;
}

/* Phase 2: attach to the strongest neighbour's phase-1 aggregate (first one on ties). */
static void attach(const dt_amg_graph *S, const int *agg1, int *agg) {
#pragma omp parallel for schedule(static) if (S->n > DT_AMG_OMP_MIN)
  for (int a = 0; a < S->n; a++) {
    double best = -1.0;
    if (agg1[a] >= 0) continue;
    for (int k = S->ptr[a]; k < S->ptr[a + 1]; k++)
      if (agg1[S->adj[k]] >= 0 && S->w[k] > best) best = S->w[k], agg[a] = agg1[S->adj[k]];
  }
}

/* Phase 3: new aggregates of what is left. */
static int leftovers(const dt_amg_graph *S, int *agg, int n_agg) {
  for (int a = 0; a < S->n; a++) {
    if (agg[a] >= 0 || S->ptr[a + 1] == S->ptr[a]) continue;
    agg[a] = n_agg;
    for (int k = S->ptr[a]; k < S->ptr[a + 1]; k++)
      if (agg[S->adj[k]] < 0) agg[S->adj[k]] = n_agg;
    n_agg++;
  }
  return n_agg;
}

/* Phase 4: weakly coupled nodes. */
static int weak(const dt_amg_graph *S, int *agg, int n_agg) {
  for (int a = 0; a < S->n; a++) {
    int b = S->best[a];
    if (agg[a] >= 0 || b < 0) continue;
    if (agg[b] < 0) agg[b] = n_agg++;
    agg[a] = agg[b];
  }
  return n_agg;
}

dt_status dt_amg_aggregate(const dt_amg_graph *S, int *agg, int *n_agg, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *agg1 = NULL, n = 0;
  DT_ALLOC(agg1, S->n, ctx, "AMG aggregates");
  for (int a = 0; a < S->n; a++) agg[a] = -1;
  n = roots(S, agg);
  for (int a = 0; a < S->n; a++) agg1[a] = agg[a];
  attach(S, agg1, agg);
  n = leftovers(S, agg, n);
  *n_agg = weak(S, agg, n);
cleanup:
  dt_free(agg1);
  return rc;
}

/* On coarse levels the Galerkin matrix couples each node to more and more nodes, most of them
 * weakly; at the fine level's threshold the aggregates then hold a few nodes each, the next
 * level couples each node to most others and its products cost more than the fine level's
 * (the real suite's 2.4M-DOF hex8 footing: 6439 -> 1460 nodes, 5,164 nonzeros per row, a full
 * refresh 4.8 s, 124 s in all). Halving the threshold there, and only there, makes the
 * aggregates grow (PETSc's GAMG scales its threshold on coarser levels, PCGAMGSetThresholdScale,
 * for the same reason): the footing takes 26.5 s, and the tet10 parts, whose levels coarsen by
 * 12 or more, keep their hierarchies (halving on every coarse level raised their iterations up
 * to 10 %). 8 nodes an aggregate: a 2 x 2 x 2 block of a structured grid. */
#define DT_AMG_MIN_NODES_PER_AGGREGATE 8
#define DT_AMG_MAX_THETA_HALVINGS 3

int dt_amg_coarsen_again(int l, int n_nodes, int n_agg, int halvings) {
  return l > 0 && halvings < DT_AMG_MAX_THETA_HALVINGS && n_agg > 0 &&
         (long)n_agg * DT_AMG_MIN_NODES_PER_AGGREGATE > (long)n_nodes;
}
