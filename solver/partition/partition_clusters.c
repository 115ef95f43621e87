/* Clusters of elements for partitioning large meshes (partition.h, dt_partition_options.clusters).
 *
 * METIS's k-way partition of the element dual graph costs about 1.3 s a million elements on one
 * core, and building that graph 0.5 s more: 18 s for a 10M-element cube, a third of a run on
 * four GPUs. Parts of a few million elements each do not need a cut drawn element by element,
 * so the elements are first grouped into compact clusters of about equal size and METIS
 * partitions the much smaller graph of the clusters:
 *
 *   1. each element's centroid, quantised on a 2^16 grid over the mesh's bounding box, gets
 *      its index along a 3D Hilbert curve (J. Skilling, "Programming the Hilbert curve", AIP
 *      Conf. Proc. 707, 2004: the axes transformed to the curve's transposed index);
 *   2. the elements in curve order (a stable radix sort) are cut into n_clusters runs of equal
 *      length: consecutive cells of a Hilbert curve share a face, so a run is a compact blob;
 *   3. two clusters are joined with the weight of the nodes they share (counted once a node),
 *      which is what a cut between them puts on the interface.
 * One pass over the nodes' elements builds the graph, each interior node (one cluster) costing
 * its valence only. Every loop runs on all threads for large meshes, and the clusters and their
 * graph are the same for any thread count: the sort is stable, and each row of the graph is
 * merged and ordered by neighbour whatever order its entries arrive in. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/omp_threads.h"
#include "partition.h"
#include "partition_internal.h"

#define HILBERT_BITS 16
#define CLUSTERS_OMP_MIN (1 << 16) /* elements or nodes above which the loops use all threads */
#define CLUSTERS_SCRATCH_BYTES ((size_t)1 << 27) /* the graph rows' per-thread stamps at most */

/* The 16 low bits of x moved to bits 0, 3, 6, ..., 45. */
static uint64_t spread3(uint32_t x) {
  uint64_t v = x & 0xffffu;
  v = (v | (v << 16)) & 0x0000ff0000ffULL;
  v = (v | (v << 8)) & 0x00f00f00f00fULL;
  v = (v | (v << 4)) & 0x0c30c30c30c3ULL;
  v = (v | (v << 2)) & 0x249249249249ULL;
  return v;
}

/* The Hilbert index of the cell (x, y, z), each coordinate below 2^HILBERT_BITS: Skilling's
 * transform of the axes into the transposed index, then its bits interleaved. */
static uint64_t hilbert_key(uint32_t X[3]) {
  const uint32_t M = 1u << (HILBERT_BITS - 1);
  for (uint32_t Q = M; Q > 1; Q >>= 1) { /* inverse undo */
    uint32_t P = Q - 1;
    for (int i = 0; i < 3; i++) { /* bit Q of X[i] set: invert X[0]'s low bits, else swap
                                     them with X[i]'s (without branches: the bits are random) */
      uint32_t set = 0u - ((X[i] & Q) != 0), t = (X[0] ^ X[i]) & P & ~set;
      X[0] ^= (P & set) | t;
      X[i] ^= t;
    }
  }
  for (int i = 1; i < 3; i++) X[i] ^= X[i - 1]; /* Gray encode */
  uint32_t t = 0;
  for (uint32_t Q = M; Q > 1; Q >>= 1)
    if (X[2] & Q) t ^= Q - 1;
  for (int i = 0; i < 3; i++) X[i] ^= t;
  /* interleaved from the top bit down, X[0] first: bit b of X[i] goes to bit 3 b + 2 - i */
  return (spread3(X[0]) << 2) | (spread3(X[1]) << 1) | spread3(X[2]);
}

/* Each element's key along the curve through the centroids. */
static void element_keys(const dt_model *m, uint64_t *key) {
  double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY, h0 = -INFINITY, h1 = -INFINITY,
         h2 = -INFINITY;
#pragma omp parallel for schedule(static) if (m->n_nodes > CLUSTERS_OMP_MIN)                       \
    reduction(min                                                                                  \
              : l0, l1, l2) reduction(max                                                          \
                                      : h0, h1, h2)
  for (int v = 0; v < m->n_nodes; v++) {
    const double *x = &m->x[3 * (size_t)v];
    l0 = fmin(l0, x[0]), l1 = fmin(l1, x[1]), l2 = fmin(l2, x[2]);
    h0 = fmax(h0, x[0]), h1 = fmax(h1, x[1]), h2 = fmax(h2, x[2]);
  }
  const double lo[3] = {l0, l1, l2}, hi[3] = {h0, h1, h2};
  double scale[3];
  for (int d = 0; d < 3; d++)
    scale[d] = hi[d] > lo[d] ? ((double)(1u << HILBERT_BITS) - 1.0) / (hi[d] - lo[d]) : 0.0;
  /* the arrays as locals: the threads' copies of them stay in registers */
  const double *xs = m->x;
  const int *ep = m->elem_ptr, *conn = m->conn, ne = m->n_elems;
#pragma omp parallel for schedule(static) if (ne > CLUSTERS_OMP_MIN)
  for (int e = 0; e < ne; e++) {
    double c[3] = {0, 0, 0};
    int n = ep[e + 1] - ep[e];
    for (int k = ep[e]; k < ep[e + 1]; k++)
      for (int d = 0; d < 3; d++) c[d] += xs[3 * (size_t)conn[k] + d];
    uint32_t X[3];
    for (int d = 0; d < 3; d++) X[d] = (uint32_t)((c[d] / n - lo[d]) * scale[d] + 0.5);
    key[e] = hilbert_key(X);
  }
}

/* order[0 .. n-1]: the elements sorted by key, ties by index (LSD radix sort, 16 bits a pass
 * over the 48-bit keys; the keys travel with the indices, so every pass reads in order). On
 * several threads each takes a contiguous share, counts its buckets, and places its share after
 * the lower threads' entries of each bucket: the same stable order as one thread's.
 * key is overwritten. */
static dt_status sort_by_key(int n, uint64_t *key, int *order, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int par = n > CLUSTERS_OMP_MIN && dt_omp_max_threads() > 1;
  const int nt = par ? dt_omp_max_threads() : 1;
  int *tmp = NULL;
  uint64_t *ktmp = NULL;
  size_t *count = NULL;
  DT_ALLOC(tmp, n, ctx, "the clusters' sort");
  DT_ALLOC(ktmp, n, ctx, "the clusters' sort keys");
  DT_ALLOC(count, (size_t)nt << 16, ctx, "the clusters' sort buckets");
  for (int e = 0; e < n; e++) order[e] = e;
  for (int pass = 0; pass < 3; pass++) {
    const int shift = 16 * pass;
#pragma omp parallel num_threads(nt) if (par)
    {
      const int T = dt_omp_team_size(), t = dt_omp_thread();
      const int lo = (int)((int64_t)n * t / T), hi = (int)((int64_t)n * (t + 1) / T);
      size_t *c = count + ((size_t)t << 16);
      memset(c, 0, sizeof(size_t) << 16);
      for (int i = lo; i < hi; i++) c[(key[i] >> shift) & 0xffff]++;
#pragma omp barrier
#pragma omp single
      {
        size_t sum = 0;
        for (size_t b = 0; b < ((size_t)1 << 16); b++)
          for (int u = 0; u < T; u++) {
            size_t *cu = &count[((size_t)u << 16) + b], x = *cu;
            *cu = sum;
            sum += x;
          }
      }
      for (int i = lo; i < hi; i++) {
        size_t to = c[(key[i] >> shift) & 0xffff]++;
        tmp[to] = order[i];
        ktmp[to] = key[i];
      }
    }
    memcpy(order, tmp, sizeof(int) * (size_t)n);
    memcpy(key, ktmp, sizeof(uint64_t) * (size_t)n);
  }
cleanup:
  dt_free(tmp);
  dt_free(ktmp);
  dt_free(count);
  return rc;
}

/* The distinct clusters of node v's elements into s; returns their count. */
static int node_clusters(const dt_node_elems *ne, const int *cluster, int v, int *s) {
  int n = 0;
  for (int j = ne->ptr[v]; j < ne->ptr[v + 1]; j++) {
    int c = cluster[ne->elem[j]], seen = 0;
    for (int i = 0; i < n && !seen; i++) seen = s[i] == c;
    if (!seen) s[n++] = c;
  }
  return n;
}

/* One pass over the nodes that several clusters share. With pairs NULL it adds to pos[c + 1]
 * the entries of cluster c (one per other cluster at such a node); else it writes them into
 * pairs from pos[c] on, advancing pos[c]. On several threads (par) the places are taken
 * atomically, so a cluster's entries come in no fixed order: graph_row orders each row after.
 * s: stride ints of scratch per thread. */
static void cluster_pairs(const dt_model *m, const dt_node_elems *ne, const int *cluster, int par,
                          int nt, int *s, int stride, int64_t *pos, int *pairs) {
#pragma omp parallel num_threads(nt) if (par)
  {
    int *sv = s + (size_t)dt_omp_thread() * (size_t)stride;
#pragma omp for schedule(static)
    for (int v = 0; v < m->n_nodes; v++) {
      const int n = node_clusters(ne, cluster, v, sv);
      for (int i = 0; n > 1 && i < n; i++) {
        int64_t *p = &pos[sv[i] + (pairs ? 0 : 1)], at;
        if (par) {
#pragma omp atomic capture
          {
            at = *p;
            *p += n - 1;
          }
        } else {
          at = *p;
          *p += n - 1;
        }
        for (int j = 0; pairs && j < n; j++)
          if (j != i) pairs[at++] = sv[j];
      }
    }
  }
}

/* Row c of the graph from its entries pairs[off[c] .. off[c + 1] - 1] (a neighbour cluster per
 * shared node): its distinct neighbours ascending into adj, the nodes shared with each into
 * shared and wgt. stamp and slot: the thread's scratch, one per cluster, stamp never c before.
 * With adj NULL only counts the neighbours. */
static int graph_row(const int *pairs, int64_t first, int64_t end, int c, int *stamp, int *slot,
                     int *adj, int *shared, int *wgt) {
  int n = 0;
  for (int64_t k = first; k < end; k++) {
    int d = pairs[k];
    if (stamp[d] != c) {
      stamp[d] = c;
      slot[d] = n;
      if (adj) adj[n] = d, shared[n] = 0;
      n++;
    }
    if (adj) shared[slot[d]]++;
  }
  for (int i = 1; adj && i < n; i++) { /* ascending neighbours: a few dozen a row */
    int a = adj[i], w = shared[i], j = i;
    while (j > 0 && adj[j - 1] > a) {
      adj[j] = adj[j - 1];
      shared[j] = shared[j - 1];
      j--;
    }
    adj[j] = a;
    shared[j] = w;
  }
  for (int i = 0; adj && i < n; i++) wgt[i] = shared[i];
  return n;
}

dt_status dt_partition_cluster_graph(const dt_model *m, int n_clusters, int *cluster,
                                     dt_dual_graph *g, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_node_elems ne = {0};
  uint64_t *key = NULL;
  int *order = NULL, *s = NULL, *stamp = NULL, *slot = NULL, *row_n = NULL;
  int64_t *off = NULL, *fill = NULL;
  int *pairs = NULL, max_valence = 0;
  const int par = m->n_elems > CLUSTERS_OMP_MIN && dt_omp_max_threads() > 1;
  const int nt = par ? dt_omp_max_threads() : 1;
  /* pass 2's threads each stamp every cluster: their scratch within CLUSTERS_SCRATCH_BYTES */
  const int nt_rows =
      par ? dt_omp_threads_within(2 * sizeof(int) * (size_t)n_clusters, CLUSTERS_SCRATCH_BYTES) : 1;
  memset(g, 0, sizeof *g);
  DT_CHECK(n_clusters >= 1 && n_clusters <= m->n_elems, ctx, DT_ERR_INPUT,
           "cannot group %d elements into %d clusters", m->n_elems, n_clusters);
  DT_ALLOC(key, m->n_elems, ctx, "the elements' curve keys");
  DT_ALLOC(order, m->n_elems, ctx, "the elements' curve order");
  element_keys(m, key);
  DT_TRY(sort_by_key(m->n_elems, key, order, ctx));
#pragma omp parallel for schedule(static) if (par)
  for (int i = 0; i < m->n_elems; i++)
    cluster[order[i]] = (int)((int64_t)i * n_clusters / m->n_elems);
  DT_TRY(dt_node_elems_build(m, &ne, ctx));
#pragma omp parallel for schedule(static) if (par) reduction(max : max_valence)
  for (int v = 0; v < m->n_nodes; v++)
    if (ne.ptr[v + 1] - ne.ptr[v] > max_valence) max_valence = ne.ptr[v + 1] - ne.ptr[v];
  DT_ALLOC(s, (size_t)nt * (size_t)(max_valence + 1), ctx, "a node's clusters");
  DT_ALLOC(off, (size_t)n_clusters + 1, ctx, "the cluster pairs' offsets");
  /* pass 1: per cluster, its entries (one per other cluster at each shared node) */
  cluster_pairs(m, &ne, cluster, par, nt, s, max_valence + 1, off, NULL);
  for (int c = 0; c < n_clusters; c++) off[c + 1] += off[c];
  DT_ALLOC(pairs, off[n_clusters] + 1, ctx, "the cluster pairs");
  DT_ALLOC(fill, n_clusters, ctx, "the cluster pairs' fill");
  for (int c = 0; c < n_clusters; c++) fill[c] = off[c];
  cluster_pairs(m, &ne, cluster, par, nt, s, max_valence + 1, fill, pairs);
  /* pass 2: each cluster's entries merged into its row (neighbours ascending, weight = the
     shared nodes) */
  DT_ALLOC(stamp, (size_t)nt_rows * (size_t)n_clusters, ctx, "the cluster graph's stamps");
  DT_ALLOC(slot, (size_t)nt_rows * (size_t)n_clusters, ctx, "the cluster graph's slots");
  DT_ALLOC(row_n, n_clusters, ctx, "the cluster graph's row lengths");
  DT_ALLOC(g->xadj, (size_t)n_clusters + 1, ctx, "the cluster graph's offsets");
#pragma omp parallel for schedule(static) if (par)
  for (size_t i = 0; i < (size_t)nt_rows * (size_t)n_clusters; i++) stamp[i] = -1;
#pragma omp parallel num_threads(nt_rows) if (par)
  {
    const size_t t = (size_t)dt_omp_thread() * (size_t)n_clusters;
#pragma omp for schedule(dynamic, 256)
    for (int c = 0; c < n_clusters; c++)
      row_n[c] = graph_row(pairs, off[c], off[c + 1], c, stamp + t, slot + t, NULL, NULL, NULL);
  }
  for (int c = 0; c < n_clusters; c++) g->xadj[c + 1] = g->xadj[c] + row_n[c];
  g->n = n_clusters;
  DT_ALLOC(g->adj, g->xadj[n_clusters] + 1, ctx, "the cluster graph's adjacency");
  DT_ALLOC(g->wgt, g->xadj[n_clusters] + 1, ctx, "the cluster graph's weights");
  DT_ALLOC(g->shared, g->xadj[n_clusters] + 1, ctx, "the cluster graph's shared nodes");
#pragma omp parallel for schedule(static) if (par)
  for (size_t i = 0; i < (size_t)nt_rows * (size_t)n_clusters; i++) stamp[i] = -1;
#pragma omp parallel num_threads(nt_rows) if (par)
  {
    const size_t t = (size_t)dt_omp_thread() * (size_t)n_clusters;
#pragma omp for schedule(dynamic, 256)
    for (int c = 0; c < n_clusters; c++) {
      const int64_t o = g->xadj[c];
      graph_row(pairs, off[c], off[c + 1], c, stamp + t, slot + t, g->adj + o, g->shared + o,
                g->wgt + o);
    }
  }
cleanup:
  dt_node_elems_free(&ne);
  dt_free(key);
  dt_free(order);
  dt_free(s);
  dt_free(off);
  dt_free(fill);
  dt_free(pairs);
  dt_free(stamp);
  dt_free(slot);
  dt_free(row_n);
  if (rc != DT_OK) dt_dual_graph_free(g);
  return rc;
}
