/* The element dual graph: elements are vertices, two elements sharing a node are joined by an
 * edge weighted by how many nodes they share (partition.h). Built through the node-to-element
 * incidence, with a stamp per neighbour so each element's row costs the sum of its nodes'
 * valences and nothing per element pair. */
#include <stdlib.h>
#include <string.h>

#include "partition.h"
#include "partition_internal.h"

/* The seed's edge weights by shared nodes (digest §3.1): index min(s, 4). */
static const int seed_weight[5] = {0, 4, 3, 2, 1};

static int edge_weight(dt_partition_weights rule, int shared) {
  if (rule == DT_PARTITION_WEIGHTS_SHARED) return shared;
  if (rule == DT_PARTITION_WEIGHTS_UNIT) return 1;
  return seed_weight[shared < 4 ? shared : 4];
}

/* order[0..n-1] (positions in list) sorted by list's values: insertion sort, rows being a few
 * dozen entries (qsort's calls cost more there). */
static void sort_row(int *order, int n, const int *list) {
  for (int i = 1; i < n; i++) {
    int k = order[i], j = i;
    while (j > 0 && list[order[j - 1]] > list[k]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = k;
  }
}

/* The neighbours of element e and the nodes each shares with it, into list/cnt (unsorted);
 * stamp[f] == e marks f as seen, slot[f] its place in list. Returns the count. */
static int element_row_all(const dt_model *m, const dt_node_elems *ne, int e, int *stamp, int *slot,
                           int *list, int *cnt) {
  int n = 0;
  for (int k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++) {
    int v = m->conn[k];
    for (int j = ne->ptr[v]; j < ne->ptr[v + 1]; j++) {
      int f = ne->elem[j];
      if (f == e) continue;
      if (stamp[f] != e) {
        stamp[f] = e;
        slot[f] = n;
        list[n] = f;
        cnt[n++] = 0;
      }
      cnt[slot[f]]++;
    }
  }
  return n;
}

/* element_row_all without the neighbours that share fewer than min_shared nodes (slot[] is then
 * stale for them: only list and cnt are read afterwards). */
static int element_row(const dt_model *m, const dt_node_elems *ne, int e, int min_shared,
                       int *stamp, int *slot, int *list, int *cnt) {
  int n = element_row_all(m, ne, e, stamp, slot, list, cnt), kept = 0;
  if (min_shared <= 1) return n;
  for (int j = 0; j < n; j++)
    if (cnt[j] >= min_shared) {
      list[kept] = list[j];
      cnt[kept++] = cnt[j];
    }
  return kept;
}

dt_status dt_dual_graph_build(const dt_model *m, dt_partition_weights rule,
                              dt_partition_adjacency adj, dt_dual_graph *g, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int min_shared = adj == DT_PARTITION_ADJ_FACES ? m->dim : 1;
  dt_node_elems ne = {0};
  int *stamp = NULL, *slot = NULL, *list = NULL, *cnt = NULL, *order = NULL;
  int64_t nnz = 0, cap = 0;
  memset(g, 0, sizeof *g);
  DT_CHECK(m->n_elems > 0, ctx, DT_ERR_INPUT, "the mesh has no elements to partition");
  DT_TRY(dt_node_elems_build(m, &ne, ctx));
  /* an element's row is at most the sum of its nodes' valences: bound the scratch by the
     largest such sum */
  for (int e = 0; e < m->n_elems; e++) {
    int64_t s = 0;
    for (int k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++)
      s += ne.ptr[m->conn[k] + 1] - ne.ptr[m->conn[k]];
    if (s > cap) cap = s;
  }
  g->n = m->n_elems;
  DT_ALLOC(stamp, m->n_elems, ctx, "the dual graph's stamps");
  DT_ALLOC(slot, m->n_elems, ctx, "the dual graph's slots");
  DT_ALLOC(list, cap, ctx, "a dual graph row");
  DT_ALLOC(cnt, cap, ctx, "a dual graph row's shared counts");
  DT_ALLOC(order, cap, ctx, "a dual graph row's order");
  DT_ALLOC(g->xadj, (size_t)m->n_elems + 1, ctx, "the dual graph's offsets");
  for (int e = 0; e < m->n_elems; e++) stamp[e] = -1;
  /* pass 1: row lengths; pass 2: the rows, sorted by neighbour */
  for (int e = 0; e < m->n_elems; e++)
    g->xadj[e + 1] = g->xadj[e] + element_row(m, &ne, e, min_shared, stamp, slot, list, cnt);
  nnz = g->xadj[m->n_elems];
  DT_ALLOC(g->adj, nnz, ctx, "the dual graph's adjacency");
  DT_ALLOC(g->shared, nnz, ctx, "the dual graph's shared-node counts");
  DT_ALLOC(g->wgt, nnz, ctx, "the dual graph's edge weights");
  for (int e = 0; e < m->n_elems; e++) stamp[e] = -1;
  for (int e = 0; e < m->n_elems; e++) {
    int n = element_row(m, &ne, e, min_shared, stamp, slot, list, cnt);
    int64_t o = g->xadj[e];
    for (int j = 0; j < n; j++) order[j] = j;
    sort_row(order, n, list);
    for (int j = 0; j < n; j++) {
      int k = order[j];
      g->adj[o + j] = list[k];
      g->shared[o + j] = cnt[k];
      g->wgt[o + j] = edge_weight(rule, cnt[k]);
    }
  }
cleanup:
  dt_node_elems_free(&ne);
  dt_free(stamp);
  dt_free(slot);
  dt_free(list);
  dt_free(cnt);
  dt_free(order);
  if (rc != DT_OK) dt_dual_graph_free(g);
  return rc;
}

void dt_dual_graph_free(dt_dual_graph *g) {
  DT_FREE(g->xadj);
  DT_FREE(g->adj);
  DT_FREE(g->shared);
  DT_FREE(g->wgt);
  g->n = 0;
}

dt_status dt_dual_graph_components(const dt_dual_graph *g, int *comp, int *ncomp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *c = comp, *queue = NULL, nc = 0;
  if (!c) DT_ALLOC(c, g->n, ctx, "the component labels");
  DT_ALLOC(queue, g->n, ctx, "the breadth-first queue");
  for (int v = 0; v < g->n; v++) c[v] = -1;
  for (int s = 0; s < g->n; s++) {
    int head = 0, tail = 0;
    if (c[s] >= 0) continue;
    c[s] = nc;
    queue[tail++] = s;
    while (head < tail) {
      int v = queue[head++];
      for (int64_t j = g->xadj[v]; j < g->xadj[v + 1]; j++)
        if (c[g->adj[j]] < 0) {
          c[g->adj[j]] = nc;
          queue[tail++] = g->adj[j];
        }
    }
    nc++;
  }
  *ncomp = nc;
cleanup:
  if (c != comp) dt_free(c);
  dt_free(queue);
  return rc;
}
