/* What the files of solver/partition/ share and nothing else uses. */
#ifndef DT_PARTITION_INTERNAL_H
#define DT_PARTITION_INTERNAL_H

#include "core/intern.h"
#include "model/model.h"

/* The elements around each node: elem[ptr[v] .. ptr[v+1]-1], ascending. */
typedef struct dt_node_elems {
  int *ptr;
  int *elem;
} dt_node_elems;

DT_INTERN dt_status dt_node_elems_build(const dt_model *m, dt_node_elems *ne, dt_ctx *ctx);
DT_INTERN void dt_node_elems_free(dt_node_elems *ne);

#endif
