/* The elements around each node (node_elems.h). */
#include "model/node_elems.h"

#include <string.h>

#include "core/omp_threads.h"

/* Above this many node-element entries the incidence is built on all threads. */
#define NODE_ELEMS_OMP_MIN (1 << 18)

dt_status dt_node_elems_build(const dt_model *m, dt_node_elems *ne, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int nn = m->n_nodes, n_el = m->n_elems;
  const size_t nc = n_el > 0 ? (size_t)m->elem_ptr[n_el] : 0;
  const int par = nc > NODE_ELEMS_OMP_MIN && dt_omp_max_threads() > 1;
  memset(ne, 0, sizeof *ne);
  DT_ALLOC(ne->ptr, (size_t)nn + 1, ctx, "the node-to-element offsets");
  DT_ALLOC(ne->elem, nc + 1, ctx, "the node-to-element incidence");
  DT_ALLOC(ne->local, nc + 1, ctx, "the node-to-element incidence");
  /* Elements in ascending order per node: the fill loop visits them in that order. On several
   * threads each thread takes a range of nodes and walks the whole connectivity for the entries
   * of its own nodes: no two threads write the same place, the order is one thread's, and the
   * scattered writes (what the loop costs) are shared out. ptr[v] serves as v's fill position
   * and ends at ptr[v + 1], so the starts are shifted back after. */
  int *ptr = ne->ptr, *elem = ne->elem; /* locals: the threads keep them in registers */
  unsigned char *local = ne->local;
  const int *conn = m->conn, *ep = m->elem_ptr;
#pragma omp parallel if (par)
  {
    const int T = dt_omp_team_size(), t = dt_omp_thread();
    const int v0 = (int)((int64_t)nn * t / T), v1 = (int)((int64_t)nn * (t + 1) / T);
    for (size_t k = 0; k < nc; k++) {
      const int v = conn[k];
      if (v >= v0 && v < v1) ptr[v + 1]++;
    }
#pragma omp barrier
#pragma omp single
    for (int v = 0; v < nn; v++) ptr[v + 1] += ptr[v];
    for (int e = 0; e < n_el; e++)
      for (int k = ep[e]; k < ep[e + 1]; k++) {
        const int v = conn[k];
        if (v < v0 || v >= v1) continue;
        const int at = ptr[v]++;
        elem[at] = e;
        local[at] = (unsigned char)(k - ep[e]);
      }
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
