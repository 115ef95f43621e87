/* What the files of solver/partition/ share and nothing else uses. */
#ifndef DT_PARTITION_INTERNAL_H
#define DT_PARTITION_INTERNAL_H

#include "core/intern.h"
#include "model/model.h"
#include "model/node_elems.h"
#include "partition.h"

/* Group m's elements into n_clusters runs of equal length along a Hilbert curve through their
 * centroids (cluster: n_elems entries, out) and build the graph of the clusters: an edge per
 * pair sharing nodes, wgt = shared = the nodes they share (partition_clusters.c).
 * Errors: DT_ERR_INPUT (n_clusters not in 1 .. n_elems), DT_ERR_NOMEM. */
/* Up to `passes` passes of greedy moves of interface elements to a neighbouring part, each
 * kept when it lowers the number of interface nodes and leaves the receiving part within
 * (1 + ufactor / 1000) times the mean weight (partition_refine.c). Skipped above
 * DT_PARTITION_REFINE_MAX_PARTS parts. Errors: DT_ERR_NOMEM; DT_ERR_INPUT for a node of more
 * than 65534 elements. */
#define DT_PARTITION_REFINE_MAX_PARTS 64
DT_INTERN dt_status dt_partition_refine(const dt_model *m, int nparts, int passes,
                                        const int *elem_weight, int ufactor, int *part,
                                        dt_ctx *ctx);

DT_INTERN dt_status dt_partition_cluster_graph(const dt_model *m, int n_clusters, int *cluster,
                                               dt_dual_graph *g, dt_ctx *ctx);

#endif
