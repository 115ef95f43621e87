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
  int *fill = NULL;
  memset(ne, 0, sizeof *ne);
  DT_ALLOC(ne->ptr, (size_t)nn + 1, ctx, "the node-to-element offsets");
  DT_ALLOC(ne->elem, nc + 1, ctx, "the node-to-element incidence");
  DT_ALLOC(ne->local, nc + 1, ctx, "the node-to-element incidence");
  DT_ALLOC(fill, (size_t)nn + 1, ctx, "the node-to-element fill");
#pragma omp parallel for schedule(static) if (par)
  for (size_t k = 0; k < nc; k++) {
#pragma omp atomic
    ne->ptr[m->conn[k] + 1]++;
  }
  for (int v = 0; v < nn; v++) ne->ptr[v + 1] += ne->ptr[v];
  memcpy(fill, ne->ptr, sizeof(int) * (size_t)nn);
  /* each entry to its node's next free place; on several threads the places come in no fixed
   * order, so each node's short list is sorted after (ascending element, then local place: the
   * order of one thread's loop, whatever the thread count) */
#pragma omp parallel for schedule(static) if (par)
  for (int e = 0; e < n_el; e++)
    for (int k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++) {
      const int v = m->conn[k];
      int at;
#pragma omp atomic capture
      at = fill[v]++;
      ne->elem[at] = e;
      ne->local[at] = (unsigned char)(k - m->elem_ptr[e]);
    }
  if (par) {
#pragma omp parallel for schedule(static)
    for (int v = 0; v < nn; v++)
      for (int j = ne->ptr[v] + 1; j < ne->ptr[v + 1]; j++) {
        const int e = ne->elem[j];
        const unsigned char l = ne->local[j];
        int i = j;
        while (i > ne->ptr[v] &&
               (ne->elem[i - 1] > e || (ne->elem[i - 1] == e && ne->local[i - 1] > l))) {
          ne->elem[i] = ne->elem[i - 1];
          ne->local[i] = ne->local[i - 1];
          i--;
        }
        ne->elem[i] = e;
        ne->local[i] = l;
      }
  }
  ne->n_nodes = nn;
  ne->built = 1;
cleanup:
  dt_free(fill);
  if (rc != DT_OK) dt_node_elems_free(ne);
  return rc;
}

void dt_node_elems_free(dt_node_elems *ne) {
  dt_free(ne->ptr);
  dt_free(ne->elem);
  dt_free(ne->local);
  memset(ne, 0, sizeof *ne);
}
