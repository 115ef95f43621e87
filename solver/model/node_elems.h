/* The elements around each node of a model's mesh (node_elems.c), for the partitioner's dual
 * graph and the result writer's per-node sums. */
#ifndef DT_MODEL_NODE_ELEMS_H
#define DT_MODEL_NODE_ELEMS_H

#include "core/intern.h"
#include "model/model.h"

/* Node v's elements: elem[ptr[v] .. ptr[v + 1] - 1], ascending, and local[k], v's place in the
 * node list of elem[k]. In ascending order a per-node sum over the elements adds as a loop over
 * the elements that scatters to their nodes adds (the same bits), but runs in parallel over
 * the nodes. */
typedef struct dt_node_elems {
  int built, n_nodes;
  int *ptr, *elem;
  unsigned char *local;
} dt_node_elems;

DT_INTERN dt_status dt_node_elems_build(const dt_model *m, dt_node_elems *ne, dt_ctx *ctx);
/* NULL-safe on the arrays; leaves ne zeroed. */
DT_INTERN void dt_node_elems_free(dt_node_elems *ne);

#endif
