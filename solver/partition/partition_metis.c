/* Element parts by METIS k-way on the dual graph, with the seed's options (digest §3.1, §7.1
 * item 4): multilevel k-way rather than recursive bisection (which gave the seed discontiguous
 * parts on its crankshaft), contiguous parts, minimal connectivity, and edge weights by shared
 * nodes. METIS is optional at build time (DUCTILE_HAVE_METIS); without it every request for
 * more than one part is refused with the package to install. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "partition.h"
#include "partition_internal.h"

#ifdef DUCTILE_HAVE_METIS
#include <metis.h>
#endif

void dt_partition_options_default(dt_partition_options *o) {
  memset(o, 0, sizeof *o);
  o->weights = DT_PARTITION_WEIGHTS_SEED;
  o->adjacency = DT_PARTITION_ADJ_FACES;
  o->contig = 1;
  o->minconn = 1;
  o->ufactor = 30;
  o->seed = 1;
  o->clusters = -1;
  o->refine_passes = 5;
}

#ifdef DUCTILE_HAVE_METIS
/* METIS_PartGraphKway on g; its idx_t may be narrower than the graph's offsets. */
static dt_status metis_kway(const dt_dual_graph *g, const int *vertex_weight, int nparts,
                            const dt_partition_options *o, int contig, int *part, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  idx_t *xadj = NULL, *adj = NULL, *wgt = NULL, *vwgt = NULL, *p = NULL;
  idx_t nv = g->n, ncon = 1, np = nparts, objval = 0, options[METIS_NOPTIONS];
  int64_t nnz = g->xadj[g->n];
  int mr = 0;
  DT_CHECK(nnz <= (int64_t)IDX_MAX, ctx, DT_ERR_UNSUPPORTED,
           "the dual graph has %lld edge entries, more than this METIS's %d-bit indices allow",
           (long long)nnz, IDXTYPEWIDTH);
  DT_ALLOC(xadj, (size_t)g->n + 1, ctx, "METIS's offsets");
  DT_ALLOC(adj, nnz, ctx, "METIS's adjacency");
  DT_ALLOC(wgt, nnz, ctx, "METIS's edge weights");
  DT_ALLOC(p, g->n, ctx, "METIS's parts");
  for (int v = 0; v <= g->n; v++) xadj[v] = (idx_t)g->xadj[v];
  for (int64_t j = 0; j < nnz; j++) {
    adj[j] = g->adj[j];
    wgt[j] = g->wgt[j];
  }
  if (vertex_weight) {
    DT_ALLOC(vwgt, g->n, ctx, "METIS's vertex weights");
    for (int v = 0; v < g->n; v++) vwgt[v] = vertex_weight[v];
  }
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_CONTIG] = contig;
  options[METIS_OPTION_MINCONN] = o->minconn ? 1 : 0;
  options[METIS_OPTION_UFACTOR] = o->ufactor;
  options[METIS_OPTION_SEED] = o->seed;
  options[METIS_OPTION_NUMBERING] = 0;
  mr = METIS_PartGraphKway(&nv, &ncon, xadj, adj, vwgt, NULL, wgt, &np, NULL, NULL, options,
                           &objval, p);
  DT_CHECK(mr != METIS_ERROR_MEMORY, ctx, DT_ERR_NOMEM,
           "METIS ran out of memory partitioning %d vertices into %d parts", g->n, nparts);
  DT_CHECK(mr == METIS_OK, ctx, DT_ERR_INTERNAL,
           "METIS_PartGraphKway failed (%d) on %d vertices into %d parts", mr, g->n, nparts);
  for (int v = 0; v < g->n; v++) part[v] = (int)p[v];
cleanup:
  dt_free(xadj);
  dt_free(adj);
  dt_free(wgt);
  dt_free(vwgt);
  dt_free(p);
  return rc;
}
#endif

dt_status dt_partition_elements(const dt_model *m, int nparts, const dt_partition_options *opt,
                                int *part, dt_partition_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_partition_options o;
  dt_dual_graph g = {0};
  int ncomp = 1, contig = 0, n_clusters = 0;
  int *cluster = NULL, *cluster_part = NULL, *cluster_weight = NULL;
  char note[256] = "";
  if (rep) memset(rep, 0, sizeof *rep);
  if (opt)
    o = *opt;
  else
    dt_partition_options_default(&o);
  DT_CHECK(m->n_elems > 0, ctx, DT_ERR_INPUT, "the mesh has no elements to partition");
  DT_CHECK(nparts >= 1 && nparts <= m->n_elems, ctx, DT_ERR_INPUT,
           "cannot split %d elements into %d parts (1 to %d)", m->n_elems, nparts, m->n_elems);
  DT_CHECK(o.ufactor >= 1, ctx, DT_ERR_INPUT, "partition ufactor %d: must be at least 1",
           o.ufactor);
  for (int e = 0; o.elem_weight && e < m->n_elems; e++)
    DT_CHECK(o.elem_weight[e] >= 1, ctx, DT_ERR_INPUT,
             "element %lld: partition weight %d, must be at least 1",
             (long long)(m->elem_id ? m->elem_id[e] : e + 1), o.elem_weight[e]);
#ifndef DUCTILE_HAVE_METIS
  DT_CHECK(nparts == 1, ctx, DT_ERR_UNSUPPORTED,
           "%d parts need METIS, which this build lacks: configure with libmetis-dev to "
           "partition",
           nparts);
#endif
  n_clusters = o.clusters < 0
                   ? (m->n_elems > DT_PARTITION_CLUSTER_ABOVE ? DT_PARTITION_CLUSTERS : 0)
                   : o.clusters;
  if (nparts == 1 || n_clusters >= m->n_elems) n_clusters = 0;
  DT_CHECK(n_clusters == 0 || n_clusters >= nparts, ctx, DT_ERR_INPUT,
           "cannot split %d clusters into %d parts: ask for at least as many clusters as parts",
           n_clusters, nparts);
  if (n_clusters > 0) {
    /* METIS on the clusters' graph, its vertices weighed by their elements */
    DT_ALLOC(cluster, m->n_elems, ctx, "the elements' clusters");
    DT_ALLOC(cluster_part, n_clusters, ctx, "the clusters' parts");
    DT_ALLOC(cluster_weight, n_clusters, ctx, "the clusters' weights");
    DT_TRY(dt_partition_cluster_graph(m, n_clusters, cluster, &g, ctx));
    for (int e = 0; e < m->n_elems; e++)
      cluster_weight[cluster[e]] += o.elem_weight ? o.elem_weight[e] : 1;
  } else
    DT_TRY(dt_dual_graph_build(m, o.weights, o.adjacency, &g, ctx));
  if (nparts == 1) {
    /* trivial, and METIS itself faults on one part (KarypisLab/METIS issue 86) */
    memset(part, 0, (size_t)m->n_elems * sizeof *part);
  } else {
    /* METIS refuses a contiguity request on a disconnected graph: ask only when it can be met */
    DT_TRY(dt_dual_graph_components(&g, NULL, &ncomp, ctx));
    contig = o.contig && ncomp == 1;
    if (o.contig && ncomp > 1)
      snprintf(note, sizeof note,
               "the mesh has %d disconnected pieces: parts are not forced to be contiguous", ncomp);
#ifdef DUCTILE_HAVE_METIS
    if (n_clusters > 0) {
      DT_TRY(metis_kway(&g, cluster_weight, nparts, &o, contig, cluster_part, ctx));
      for (int e = 0; e < m->n_elems; e++) part[e] = cluster_part[cluster[e]];
      DT_TRY(dt_partition_refine(m, nparts, o.refine_passes, o.elem_weight, o.ufactor, part, ctx));
    } else
      DT_TRY(metis_kway(&g, o.elem_weight, nparts, &o, contig, part, ctx));
#endif
  }
  if (rep) {
    DT_TRY(dt_partition_report_fill(m, n_clusters > 0 ? NULL : &g, nparts, part, o.elem_weight, rep,
                                    ctx));
    rep->contig = contig;
    rep->clusters = n_clusters;
    snprintf(rep->note, sizeof rep->note, "%s", note);
  }
cleanup:
  dt_dual_graph_free(&g);
  dt_free(cluster);
  dt_free(cluster_part);
  dt_free(cluster_weight);
  return rc;
}
