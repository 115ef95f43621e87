/* The statistics of a partition (edge cut, balance, interface, neighbours) and its printed
 * view. They are computed from the element-to-part map alone, so parts made by METIS and
 * parts made by hand (tests) are measured the same way. */
#include <string.h>

#include "core/omp_threads.h"
#include "partition.h"
#include "partition_internal.h"

#define REPORT_OMP_MIN (1 << 16) /* nodes above which the interface count uses all threads */
#define REPORT_SCRATCH_BYTES ((size_t)1 << 26) /* the threads' part-pair matrices at most */

void dt_partition_report_free(dt_partition_report *r) {
  DT_FREE(r->part_elems);
  DT_FREE(r->part_weight);
}

/* Mark in adj (nparts x nparts) every pair of parts that meet at node v; return 1 when v
 * touches more than one part (an interface node). A node has a handful of elements, so the
 * pairs are enumerated directly. */
static int mark_node(const dt_node_elems *ne, const int *part, int v, int nparts,
                     unsigned char *adj) {
  int shared = 0;
  for (int j = ne->ptr[v]; j < ne->ptr[v + 1]; j++)
    for (int i = ne->ptr[v]; i < j; i++) {
      size_t p = (size_t)part[ne->elem[j]], q = (size_t)part[ne->elem[i]];
      if (p == q) continue;
      shared = 1;
      adj[p * (size_t)nparts + q] = adj[q * (size_t)nparts + p] = 1;
    }
  return shared;
}

dt_status dt_partition_report_fill(const dt_model *m, const dt_dual_graph *g, int nparts,
                                   const int *part, const int *elem_weight,
                                   dt_partition_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_node_elems ne = {0};
  unsigned char *adj = NULL;
  int64_t total = 0, maxw = 0;
  memset(rep, 0, sizeof *rep);
  rep->nparts = nparts;
  DT_ALLOC(rep->part_elems, nparts, ctx, "the elements per part");
  DT_ALLOC(rep->part_weight, nparts, ctx, "the weight per part");
  for (int e = 0; e < m->n_elems; e++) {
    DT_CHECK(part[e] >= 0 && part[e] < nparts, ctx, DT_ERR_INPUT,
             "element %d: part %d, not in 0 .. %d", e, part[e], nparts - 1);
    rep->part_elems[part[e]]++;
    rep->part_weight[part[e]] += elem_weight ? elem_weight[e] : 1;
    total += elem_weight ? elem_weight[e] : 1;
  }
  for (int p = 0; p < nparts; p++) {
    if (rep->part_weight[p] > maxw) maxw = rep->part_weight[p];
    rep->empty_parts += rep->part_elems[p] == 0;
  }
  rep->imbalance = (double)maxw * nparts / (double)total - 1.0;
  rep->edgecut = rep->cut_edges = g ? 0 : -1;
  for (int v = 0; g && v < g->n; v++)
    for (int64_t j = g->xadj[v]; j < g->xadj[v + 1]; j++)
      if (g->adj[j] > v && part[g->adj[j]] != part[v]) {
        rep->edgecut += g->wgt[j];
        rep->cut_edges++;
      }
  DT_TRY(dt_node_elems_build(m, &ne, ctx));
  {
    /* each thread marks the part pairs it meets in a matrix of its own; their union after */
    const size_t pp = (size_t)nparts * (size_t)nparts;
    const int par = m->n_nodes > REPORT_OMP_MIN;
    const int nt = par ? dt_omp_threads_within(pp, REPORT_SCRATCH_BYTES) : 1;
    int iface = 0;
    DT_ALLOC(adj, (size_t)nt * pp, ctx, "the part adjacency");
#pragma omp parallel num_threads(nt) if (par) reduction(+ : iface)
    {
      unsigned char *mine = adj + (size_t)dt_omp_thread() * pp;
#pragma omp for schedule(static)
      for (int v = 0; v < m->n_nodes; v++) iface += mark_node(&ne, part, v, nparts, mine);
    }
    rep->interface_nodes = iface;
    for (int t = 1; t < nt; t++)
      for (size_t i = 0; i < pp; i++) adj[i] |= adj[(size_t)t * pp + i];
  }
  for (int p = 0; p < nparts; p++) {
    int n = 0;
    for (int q = 0; q < nparts; q++) n += adj[(size_t)p * (size_t)nparts + (size_t)q];
    if (n > rep->max_neighbours) rep->max_neighbours = n;
  }
cleanup:
  dt_node_elems_free(&ne);
  dt_free(adj);
  if (rc != DT_OK) dt_partition_report_free(rep);
  return rc;
}

void dt_partition_view(const dt_partition_report *rep, const dt_part_local *parts, FILE *f) {
  fprintf(f, "partition: %d parts%s\n", rep->nparts,
          rep->contig ? ", contiguous" : (rep->nparts > 1 ? ", not forced contiguous" : ""));
  if (rep->note[0]) fprintf(f, "  note: %s\n", rep->note);
  if (rep->empty_parts)
    fprintf(f, "  note: %d of the %d parts have no elements\n", rep->empty_parts, rep->nparts);
  fprintf(f, "  %-5s %9s %11s %9s %9s %9s %10s  %s\n", "part", "elements", "iface-el", "owned",
          "interior", "ghosts", "exchanged", "neighbours");
  for (int p = 0; p < rep->nparts; p++) {
    const dt_part_local *l = parts ? &parts[p] : NULL;
    if (!l) {
      fprintf(f, "  %-5d %9d\n", p, rep->part_elems[p]);
      continue;
    }
    fprintf(f, "  %-5d %9d %11d %9d %9d %9d %10d  %d:", p, l->n_elems, l->n_elems_interface,
            l->n_owned, l->n_interior, l->n_nodes - l->n_owned,
            l->send_ptr[l->n_peers] + l->recv_ptr[l->n_peers], l->n_peers);
    for (int k = 0; k < l->n_peers; k++) fprintf(f, " %d", l->peer[k]);
    fprintf(f, "\n");
  }
  if (rep->clusters > 0)
    fprintf(f, "  parts of %d clusters of elements (the elements' dual graph is not built), ",
            rep->clusters);
  else
    fprintf(f, "  edge cut %lld (%lld dual-graph edges), ", (long long)rep->edgecut,
            (long long)rep->cut_edges);
  fprintf(f, "%d interface nodes, at most %d neighbours, imbalance %.2f %%\n", rep->interface_nodes,
          rep->max_neighbours, 100.0 * rep->imbalance);
}
