/* The elements around each node (node_elems.h). */
#include "model/node_elems.h"

#include <string.h>

dt_status dt_node_elems_build(const dt_model *m, dt_node_elems *ne, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int nn = m->n_nodes, n_el = m->n_elems;
  const size_t nc = n_el > 0 ? (size_t)m->elem_ptr[n_el] : 0;
  memset(ne, 0, sizeof *ne);
  DT_ALLOC(ne->ptr, (size_t)nn + 1, ctx, "the node-to-element offsets");
  DT_ALLOC(ne->elem, nc + 1, ctx, "the node-to-element incidence");
  DT_ALLOC(ne->local, nc + 1, ctx, "the node-to-element incidence");
  for (size_t k = 0; k < nc; k++) ne->ptr[m->conn[k] + 1]++;
  for (int v = 0; v < nn; v++) ne->ptr[v + 1] += ne->ptr[v];
  /* elements in ascending order per node: the loop visits them in that order; ptr[v] serves
   * as v's fill position and ends at ptr[v + 1], so the starts are shifted back after */
  for (int e = 0; e < n_el; e++)
    for (int k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++) {
      const int v = m->conn[k], at = ne->ptr[v]++;
      ne->elem[at] = e;
      ne->local[at] = (unsigned char)(k - m->elem_ptr[e]);
    }
  for (int v = nn; v > 0; v--) ne->ptr[v] = ne->ptr[v - 1];
  ne->ptr[0] = 0;
  ne->n_nodes = nn;
  ne->built = 1;
cleanup:
  if (rc != DT_OK) dt_node_elems_free(ne);
  return rc;
}

void dt_node_elems_free(dt_node_elems *ne) {
  dt_free(ne->ptr);
  dt_free(ne->elem);
  dt_free(ne->local);
  memset(ne, 0, sizeof *ne);
}
