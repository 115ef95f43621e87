/* The element dual graph and METIS k-way parts (solver/partition/partition.h).
 *
 *   dual graph of a 2x2x2 hex box (hand check): each element has the 7 others as neighbours,
 *     sharing 4 nodes across a face, 2 across an edge, 1 at the centre corner; the seed's
 *     weights are then 1, 3 and 4, the plain ones 4, 2 and 1;
 *   METIS parts of a 20x20x20 hex box into 2, 4, 8 parts and of the tetrahedral L-bracket
 *     (lbracket_tet4.msh) into 2, 4, 8: every element in exactly one part, every part
 *     non-empty and connected (a breadth-first search over the dual graph inside the part),
 *     imbalance (max/mean - 1) within 3 % (METIS's bound for the default ufactor 30; 1e-12
 *     for the round-off of the ratio), the reported edge
 *     cut equal to the sum of the cut edges' weights; the seed's and the plain weights are
 *     compared in a printed line per case;
 *   element weights: a 20x10x10 box whose half x >= 10 weighs 3 per element, in 4 parts:
 *     the weight balanced within 3 %, so the largest part has over 1.5 times the elements of
 *     the smallest;
 *   quadrature points as weights: hex8 elements weigh 8, hex8r 1 (element_rules.h); a 16x4x4
 *     bar half of each in 2 parts balances the points within 3 %, so one part has more than
 *     twice the other's elements;
 *   the report of a hand-made map of a 2x2x1 box with an empty part (hand count): 1 empty part,
 *     4 cut edges of seed weight 8, 6 interface nodes, 1 neighbour, imbalance 2/(4/3) - 1 = 0.5;
 *   a mesh of two disjoint boxes: the contiguity request is dropped with a note, and the
 *     parts still cover it within the balance;
 *   clusters (partition_clusters.c): a 16^3 box grouped into 64 clusters along the Hilbert
 *     curve, in 4 parts: the clusters are the box's aligned 4x4x4 blocks (the curve fills each
 *     octant before it leaves it), so every such block lies in one part; parts connected,
 *     balanced within one cluster's share, at most 1.5 times the interface nodes of METIS on
 *     the elements; with the 5 refining passes (partition_refine.c) still connected, within
 *     3 %, and no more interface nodes; the L-bracket in 500 clusters, 4 parts: every element
 *     in a part, balance within 3 %, the interface within 2 times METIS's on the elements,
 *     fewer interface nodes refined than not; every call gives the same parts on a second
 *     call; the report names the clusters and leaves the edge cut at -1; the default (-1)
 *     does not cluster meshes this small; 2 clusters for 4 parts refused; a 48^3 box in 2000
 *     clusters (every threaded loop of the clustered path taken) gives the same parts and report
 *     on 1 and 3 threads;
 *   errors: 0 parts, more parts than elements, an element weight of 0 (DT_ERR_INPUT); without
 *     METIS, 2 parts are DT_ERR_UNSUPPORTED with "configure with libmetis-dev to partition". */
#include "partition_fixtures.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static void check_dual_graph(void) {
  dt_model *m = fixture_box(2, 2, 2);
  dt_dual_graph g = {0}, gs = {0};
  dt_ctx ctx = {0};
  int ncomp = 0;
  REQUIRE(dt_dual_graph_build(m, DT_PARTITION_WEIGHTS_SEED, DT_PARTITION_ADJ_NODES, &g, &ctx) ==
              DT_OK,
          "%s", ctx.msg);
  REQUIRE(dt_dual_graph_build(m, DT_PARTITION_WEIGHTS_SHARED, DT_PARTITION_ADJ_NODES, &gs, &ctx) ==
              DT_OK,
          "%s", ctx.msg);
  for (int e = 0; e < 8; e++) {
    EXPECT(g.xadj[e + 1] - g.xadj[e] == 7, "element %d: %lld neighbours, expected 7", e,
           (long long)(g.xadj[e + 1] - g.xadj[e]));
    for (int64_t j = g.xadj[e]; j < g.xadj[e + 1]; j++) {
      int f = g.adj[j], diff = ((e ^ f) & 1) + (((e ^ f) >> 1) & 1) + (((e ^ f) >> 2) & 1);
      int shared = diff == 1 ? 4 : diff == 2 ? 2 : 1, seed = diff == 1 ? 1 : diff == 2 ? 3 : 4;
      EXPECT(g.shared[j] == shared, "elements %d-%d share %d nodes, expected %d", e, f, g.shared[j],
             shared);
      EXPECT(g.wgt[j] == seed, "elements %d-%d: seed weight %d, expected %d", e, f, g.wgt[j], seed);
      EXPECT(gs.wgt[j] == shared, "elements %d-%d: plain weight %d, expected %d", e, f, gs.wgt[j],
             shared);
      if (j > g.xadj[e]) EXPECT(g.adj[j] > g.adj[j - 1], "element %d: row not ascending", e);
    }
  }
  EXPECT(dt_dual_graph_components(&g, NULL, &ncomp, &ctx) == DT_OK && ncomp == 1,
         "components %d, expected 1", ncomp);
  dt_dual_graph_free(&g);
  /* the face graph keeps exactly the pairs that share a face: 3 per element of a 2x2x2 box */
  REQUIRE(dt_dual_graph_build(m, DT_PARTITION_WEIGHTS_SEED, DT_PARTITION_ADJ_FACES, &g, &ctx) ==
              DT_OK,
          "%s", ctx.msg);
  for (int e = 0; e < 8; e++) {
    EXPECT(g.xadj[e + 1] - g.xadj[e] == 3, "faces: element %d has %lld neighbours, expected 3", e,
           (long long)(g.xadj[e + 1] - g.xadj[e]));
    for (int64_t j = g.xadj[e]; j < g.xadj[e + 1]; j++) {
      int d = e ^ g.adj[j];
      EXPECT(g.shared[j] == 4 && g.wgt[j] == 1 && (d == 1 || d == 2 || d == 4),
             "faces: elements %d-%d share %d nodes (weight %d)", e, g.adj[j], g.shared[j],
             g.wgt[j]);
      if (j > g.xadj[e]) EXPECT(g.adj[j] > g.adj[j - 1], "faces: element %d: row not ascending", e);
    }
  }
  EXPECT(dt_dual_graph_components(&g, NULL, &ncomp, &ctx) == DT_OK && ncomp == 1,
         "faces: components %d, expected 1", ncomp);
  dt_dual_graph_free(&g);
  dt_dual_graph_free(&gs);
  dt_model_destroy(&m);
}

#ifdef DUCTILE_HAVE_METIS
/* Every part non-empty and connected inside the dual graph. */
static void check_parts(const dt_model *m, int nparts, const int *part, const char *what) {
  dt_dual_graph g = {0};
  dt_ctx ctx = {0};
  int *seen = calloc((size_t)m->n_elems, sizeof *seen), *queue = malloc(sizeof(int) * m->n_elems);
  REQUIRE(seen && queue, "out of memory");
  REQUIRE(dt_dual_graph_build(m, DT_PARTITION_WEIGHTS_UNIT, DT_PARTITION_ADJ_NODES, &g, &ctx) ==
              DT_OK,
          "%s", ctx.msg);
  for (int e = 0; e < m->n_elems; e++)
    EXPECT(part[e] >= 0 && part[e] < nparts, "%s: element %d in part %d", what, e, part[e]);
  for (int p = 0; p < nparts; p++) {
    int start = -1, size = 0, reached = 0, head = 0, tail = 0;
    for (int e = 0; e < m->n_elems; e++)
      if (part[e] == p) {
        size++;
        if (start < 0) start = e;
      }
    EXPECT(size > 0, "%s: part %d is empty", what, p);
    if (start < 0) continue;
    seen[start] = 1;
    queue[tail++] = start;
    while (head < tail) {
      int v = queue[head++];
      reached++;
      for (int64_t j = g.xadj[v]; j < g.xadj[v + 1]; j++)
        if (part[g.adj[j]] == p && !seen[g.adj[j]]) {
          seen[g.adj[j]] = 1;
          queue[tail++] = g.adj[j];
        }
    }
    EXPECT(reached == size, "%s: part %d has %d elements, %d of them connected to its first", what,
           p, size, reached);
  }
  dt_dual_graph_free(&g);
  free(seen);
  free(queue);
}

/* The edge cut recomputed from the dual graph under the report's weights and adjacency. */
static int64_t edgecut_of(const dt_model *m, dt_partition_weights w, dt_partition_adjacency a,
                          const int *part) {
  dt_dual_graph g = {0};
  dt_ctx ctx = {0};
  int64_t cut = 0;
  REQUIRE(dt_dual_graph_build(m, w, a, &g, &ctx) == DT_OK, "%s", ctx.msg);
  for (int v = 0; v < g.n; v++)
    for (int64_t j = g.xadj[v]; j < g.xadj[v + 1]; j++)
      if (part[g.adj[j]] != part[v]) cut += g.wgt[j];
  dt_dual_graph_free(&g);
  return cut / 2;
}

static void check_metis(const dt_model *m, const char *name, double tol) {
  static const int counts[] = {2, 4, 8};
  int *part = malloc(sizeof(int) * m->n_elems);
  REQUIRE(part, "out of memory");
  for (int c = 0; c < 3; c++) {
    dt_partition_report rep[2];
    char what[128];
    for (int w = 0; w < 2; w++) {
      dt_partition_options o;
      dt_ctx ctx = {0};
      dt_partition_options_default(&o);
      o.weights = w ? DT_PARTITION_WEIGHTS_SHARED : DT_PARTITION_WEIGHTS_SEED;
      snprintf(what, sizeof what, "%s, %d parts, %s weights", name, counts[c],
               w ? "plain" : "seed");
      REQUIRE(dt_partition_elements(m, counts[c], &o, part, &rep[w], &ctx) == DT_OK, "%s: %s", what,
              ctx.msg);
      check_parts(m, counts[c], part, what);
      EXPECT(rep[w].contig == 1 && rep[w].note[0] == '\0', "%s: contig %d, note '%s'", what,
             rep[w].contig, rep[w].note);
      EXPECT(rep[w].imbalance <= tol + 1e-12, "%s: imbalance %.4f > %.2f", what, rep[w].imbalance,
             tol);
      EXPECT(rep[w].edgecut > 0 && rep[w].edgecut == edgecut_of(m, o.weights, o.adjacency, part),
             "%s: edge cut %lld, recomputed %lld", what, (long long)rep[w].edgecut,
             (long long)edgecut_of(m, o.weights, o.adjacency, part));
      int sum = 0;
      for (int p = 0; p < counts[c]; p++) sum += rep[w].part_elems[p];
      EXPECT(sum == m->n_elems, "%s: %d elements in parts, %d in the mesh", what, sum, m->n_elems);
    }
    printf("%-10s %d parts: seed weights: cut %5lld edges, %5d interface nodes, <= %d "
           "neighbours, imbalance %.2f %% | plain: cut %5lld edges, %5d interface nodes, <= %d "
           "neighbours, imbalance %.2f %%\n",
           name, counts[c], (long long)rep[0].cut_edges, rep[0].interface_nodes,
           rep[0].max_neighbours, 100 * rep[0].imbalance, (long long)rep[1].cut_edges,
           rep[1].interface_nodes, rep[1].max_neighbours, 100 * rep[1].imbalance);
    dt_partition_report_free(&rep[0]);
    dt_partition_report_free(&rep[1]);
  }
  free(part);
}

static void check_elem_weights(void) {
  dt_model *m = fixture_box(20, 10, 10);
  int *w = malloc(sizeof(int) * m->n_elems), *part = malloc(sizeof(int) * m->n_elems);
  dt_partition_options o;
  dt_partition_report rep = {0};
  dt_ctx ctx = {0};
  int heavy_min = m->n_elems, light_max = 0;
  REQUIRE(w && part, "out of memory");
  for (int e = 0; e < m->n_elems; e++) w[e] = (e % 20) >= 10 ? 3 : 1;
  dt_partition_options_default(&o);
  o.elem_weight = w;
  REQUIRE(dt_partition_elements(m, 4, &o, part, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  check_parts(m, 4, part, "weighted box");
  EXPECT(rep.imbalance <= 0.03 + 1e-12, "weighted box: imbalance %.4f", rep.imbalance);
  /* balanced weight with unequal weights means unequal counts: unweighted, the counts would
     be within 3 % of each other */
  for (int p = 0; p < 4; p++) {
    if (rep.part_elems[p] < heavy_min) heavy_min = rep.part_elems[p];
    if (rep.part_elems[p] > light_max) light_max = rep.part_elems[p];
  }
  EXPECT(light_max > 1.5 * heavy_min, "weighted box: element counts %d .. %d", heavy_min,
         light_max);
  printf("weighted box 20x10x10, 4 parts: elements");
  for (int p = 0; p < 4; p++) printf(" %d", rep.part_elems[p]);
  printf(", weights");
  for (int p = 0; p < 4; p++) printf(" %lld", (long long)rep.part_weight[p]);
  printf(", imbalance %.2f %%\n", 100 * rep.imbalance);
  dt_partition_report_free(&rep);
  free(w);
  free(part);
  dt_model_destroy(&m);
}

static void check_disconnected(void) {
  dt_model *m = fixture_two_boxes(6, 4, 4);
  int *part = malloc(sizeof(int) * m->n_elems);
  dt_partition_report rep = {0};
  dt_ctx ctx = {0};
  REQUIRE(part, "out of memory");
  REQUIRE(dt_partition_elements(m, 4, NULL, part, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(rep.contig == 0 && strstr(rep.note, "2 disconnected pieces"), "contig %d, note '%s'",
         rep.contig, rep.note);
  EXPECT(rep.imbalance <= 0.03 + 1e-12, "two boxes: imbalance %.4f", rep.imbalance);
  for (int e = 0; e < m->n_elems; e++) EXPECT(part[e] >= 0 && part[e] < 4, "element %d", e);
  dt_partition_report_free(&rep);
  free(part);
  dt_model_destroy(&m);
}
#endif

/* Quadrature points as element weights: a 16x4x4 bar whose elements with i < 8 are hex8r (one
 * point) and the others hex8 (8 points). With METIS, 2 parts balance the points; the bar is
 * cut across its length (the smallest cut), so the part holding the hex8r elements has far
 * more elements. */
static void check_point_weights(void) {
  dt_model *m = fixture_box(16, 4, 4);
  int w[256], part[256];
  dt_ctx ctx = {0};
  for (int e = 0; e < m->n_elems; e++)
    if (e % 16 < 8) m->elem_type[e] = DT_ELEM_HEX8R;
  REQUIRE(dt_partition_elem_points(m, w, &ctx) == DT_OK, "%s", ctx.msg);
  for (int e = 0; e < m->n_elems; e++)
    EXPECT(w[e] == (e % 16 < 8 ? 1 : 8), "element %d: %d points", e, w[e]);
#ifdef DUCTILE_HAVE_METIS
  dt_partition_options o;
  dt_partition_report rep = {0};
  dt_partition_options_default(&o);
  o.elem_weight = w;
  REQUIRE(dt_partition_elements(m, 2, &o, part, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  check_parts(m, 2, part, "hex8/hex8r box");
  EXPECT(rep.imbalance <= 0.03 + 1e-12, "hex8/hex8r box: imbalance %.4f", rep.imbalance);
  int lo = rep.part_elems[0] < rep.part_elems[1] ? rep.part_elems[0] : rep.part_elems[1];
  int hi = rep.part_elems[0] + rep.part_elems[1] - lo;
  EXPECT(hi > 2 * lo, "hex8/hex8r box: element counts %d, %d", lo, hi);
  printf("hex8/hex8r bar 16x4x4, 2 parts by points: elements %d, %d; points %lld, %lld; imbalance "
         "%.2f %%\n",
         rep.part_elems[0], rep.part_elems[1], (long long)rep.part_weight[0],
         (long long)rep.part_weight[1], 100 * rep.imbalance);
  dt_partition_report_free(&rep);
#else
  (void)part;
#endif
  dt_model_destroy(&m);
}

/* The report of a hand-made map with an empty part: counted, and the imbalance it implies. */
static void check_empty_part(void) {
  dt_model *m = fixture_box(2, 2, 1);
  dt_dual_graph g = {0};
  dt_partition_report rep = {0};
  dt_ctx ctx = {0};
  int part[4] = {0, 0, 2, 2};
  REQUIRE(dt_dual_graph_build(m, DT_PARTITION_WEIGHTS_SEED, DT_PARTITION_ADJ_NODES, &g, &ctx) ==
              DT_OK,
          "%s", ctx.msg);
  REQUIRE(dt_partition_report_fill(m, &g, 3, part, NULL, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  /* parts 0 {0, 1} and 2 {2, 3} meet across the y = 1 faces: cut edges 0-2, 0-3, 1-2, 1-3
     with shared nodes 4, 2, 2, 4 (seed weights 1, 3, 3, 1); the 6 nodes at y = 1 */
  EXPECT(rep.empty_parts == 1 && rep.cut_edges == 4 && rep.edgecut == 8 &&
             rep.interface_nodes == 6 && rep.max_neighbours == 1 &&
             fabs(rep.imbalance - 0.5) < 1e-15,
         "empty %d, cut %lld edges of weight %lld, %d interface nodes, %d neighbours, imbalance "
         "%g",
         rep.empty_parts, (long long)rep.cut_edges, (long long)rep.edgecut, rep.interface_nodes,
         rep.max_neighbours, rep.imbalance);
  dt_partition_report_free(&rep);
  dt_dual_graph_free(&g);
  dt_model_destroy(&m);
}

/* Parts of n_clusters clusters against METIS on the elements of the same mesh. */
static void clustered_parts(const dt_model *m, int nparts, int n_clusters, int refine, int *part,
                            dt_partition_report *rep, dt_partition_report *plain,
                            const char *what) {
  dt_partition_options o;
  dt_ctx ctx = {0};
  int *again = malloc(sizeof(int) * m->n_elems);
  REQUIRE(again, "out of memory");
  REQUIRE(dt_partition_elements(m, nparts, NULL, again, plain, &ctx) == DT_OK, "%s: %s", what,
          ctx.msg);
  EXPECT(plain->clusters == 0, "%s: the default clustered a mesh of %d elements", what, m->n_elems);
  dt_partition_options_default(&o);
  o.clusters = n_clusters;
  o.refine_passes = refine;
  REQUIRE(dt_partition_elements(m, nparts, &o, part, rep, &ctx) == DT_OK, "%s: %s", what, ctx.msg);
  EXPECT(rep->clusters == n_clusters && rep->edgecut == -1 && rep->cut_edges == -1,
         "%s: report clusters %d, edge cut %lld", what, rep->clusters, (long long)rep->edgecut);
  REQUIRE(dt_partition_elements(m, nparts, &o, again, NULL, &ctx) == DT_OK, "%s: %s", what,
          ctx.msg);
  EXPECT(!memcmp(part, again, sizeof(int) * m->n_elems), "%s: a second call gave other parts",
         what);
  printf("%-10s %d parts of %d clusters, %d refining passes: %5d interface nodes, imbalance %.2f "
         "%% | of the elements: %5d interface nodes, imbalance %.2f %%\n",
         what, nparts, n_clusters, refine, rep->interface_nodes, 100 * rep->imbalance,
         plain->interface_nodes, 100 * plain->imbalance);
  free(again);
}

static void check_clusters(const dt_model *tet) {
  enum { N = 16, B = 4 };
  dt_model *box = fixture_box(N, N, N);
  int *part = malloc(sizeof(int) * N * N * N), *tpart = malloc(sizeof(int) * tet->n_elems);
  dt_partition_report rep, plain;
  dt_partition_options o;
  dt_ctx ctx = {0};
  REQUIRE(part && tpart, "out of memory");
  clustered_parts(box, 4, 64, 0, part, &rep, &plain, "box 16^3");
  check_parts(box, 4, part, "box 16^3 in clusters");
  /* fixture_box numbers element (i, j, k) as i + N (j + N k) */
  for (int e = 0; e < N * N * N; e++) {
    int i = e % N, j = (e / N) % N, k = e / (N * N);
    int first = (i / B * B) + N * ((j / B * B) + N * (k / B * B));
    EXPECT(part[e] == part[first],
           "box 16^3: element (%d,%d,%d) in part %d, its 4^3 block's "
           "first in %d",
           i, j, k, part[e], part[first]);
  }
  EXPECT(rep.imbalance <= 4.0 / 64 + 1e-12, "box 16^3 in clusters: imbalance %.4f", rep.imbalance);
  EXPECT(rep.interface_nodes <= 1.5 * plain.interface_nodes,
         "box 16^3: %d interface nodes in clusters, %d of the elements", rep.interface_nodes,
         plain.interface_nodes);
  int unrefined = rep.interface_nodes;
  dt_partition_report_free(&rep);
  dt_partition_report_free(&plain);
  clustered_parts(box, 4, 64, 5, part, &rep, &plain, "box 16^3");
  check_parts(box, 4, part, "box 16^3 in clusters, refined");
  EXPECT(rep.interface_nodes <= unrefined && rep.imbalance <= 0.03 + 1e-12,
         "box 16^3 refined: %d interface nodes (%d before), imbalance %.4f", rep.interface_nodes,
         unrefined, rep.imbalance);
  dt_partition_report_free(&rep);
  dt_partition_report_free(&plain);
  clustered_parts(tet, 4, 500, 0, tpart, &rep, &plain, "L-bracket");
  unrefined = rep.interface_nodes;
  dt_partition_report_free(&rep);
  dt_partition_report_free(&plain);
  clustered_parts(tet, 4, 500, 5, tpart, &rep, &plain, "L-bracket");
  EXPECT(rep.interface_nodes < unrefined, "L-bracket refined: %d interface nodes, %d before",
         rep.interface_nodes, unrefined);
  for (int e = 0; e < tet->n_elems; e++)
    EXPECT(tpart[e] >= 0 && tpart[e] < 4, "L-bracket in clusters: element %d in part %d", e,
           tpart[e]);
  EXPECT(rep.empty_parts == 0 && rep.imbalance <= 0.03 + 1e-12,
         "L-bracket in clusters: %d empty parts, imbalance %.4f", rep.empty_parts, rep.imbalance);
  EXPECT(rep.interface_nodes <= 2 * plain.interface_nodes,
         "L-bracket: %d interface nodes in clusters, %d of the elements", rep.interface_nodes,
         plain.interface_nodes);
  dt_partition_report_free(&rep);
  dt_partition_report_free(&plain);
  dt_partition_options_default(&o);
  o.clusters = 2;
  EXPECT(dt_partition_elements(box, 4, &o, part, NULL, &ctx) == DT_ERR_INPUT &&
             strstr(ctx.msg, "cannot split 2 clusters into 4 parts"),
         "2 clusters, 4 parts: %s", ctx.msg);
  free(part);
  free(tpart);
  dt_model_destroy(&box);
}

/* A mesh large enough for every threaded loop of the clustered path (above 2^16 elements and
 * nodes, 2^18 node-element entries) parts alike on one thread and on several. */
static void check_clusters_threads(void) {
#ifdef _OPENMP
  enum { N = 48 };
  const int ne = N * N * N, saved = omp_get_max_threads(), counts[2] = {1, 3};
  dt_model *box = fixture_box(N, N, N);
  int *part[2] = {malloc(sizeof(int) * ne), malloc(sizeof(int) * ne)};
  dt_partition_report rep[2];
  dt_partition_options o;
  dt_ctx ctx = {0};
  REQUIRE(part[0] && part[1], "out of memory");
  dt_partition_options_default(&o);
  o.clusters = 2000;
  for (int i = 0; i < 2; i++) {
    omp_set_num_threads(counts[i]);
    EXPECT(dt_partition_elements(box, 4, &o, part[i], &rep[i], &ctx) == DT_OK, "%s", ctx.msg);
  }
  omp_set_num_threads(saved);
  EXPECT(memcmp(part[0], part[1], sizeof(int) * ne) == 0,
         "box 48^3 in 2000 clusters: the parts on 1 and 3 threads differ");
  EXPECT(rep[0].interface_nodes == rep[1].interface_nodes &&
             rep[0].max_neighbours == rep[1].max_neighbours && rep[0].imbalance == rep[1].imbalance,
         "box 48^3 in clusters: the reports on 1 and 3 threads differ (interface %d and %d)",
         rep[0].interface_nodes, rep[1].interface_nodes);
  check_parts(box, 4, part[1], "box 48^3 in clusters, 3 threads");
  printf("box 48^3, 4 parts of 2000 clusters: the same parts on 1 and 3 threads (%d interface "
         "nodes, imbalance %.2f %%)\n",
         rep[1].interface_nodes, 100 * rep[1].imbalance);
  for (int i = 0; i < 2; i++) dt_partition_report_free(&rep[i]), free(part[i]);
  dt_model_destroy(&box);
#endif
}

static void check_errors(void) {
  dt_model *m = fixture_box(2, 2, 1);
  int part[4], w[4] = {1, 0, 1, 1};
  dt_partition_options o;
  dt_partition_report rep = {0};
  dt_ctx ctx = {0};
  EXPECT(dt_partition_elements(m, 0, NULL, part, NULL, &ctx) == DT_ERR_INPUT &&
             strstr(ctx.msg, "cannot split 4 elements into 0 parts"),
         "0 parts: %s", ctx.msg);
  dt_ctx_reset(&ctx);
  EXPECT(dt_partition_elements(m, 5, NULL, part, NULL, &ctx) == DT_ERR_INPUT &&
             strstr(ctx.msg, "cannot split 4 elements into 5 parts"),
         "5 parts: %s", ctx.msg);
  dt_ctx_reset(&ctx);
  dt_partition_options_default(&o);
  o.elem_weight = w;
  EXPECT(dt_partition_elements(m, 2, &o, part, NULL, &ctx) == DT_ERR_INPUT &&
             strstr(ctx.msg, "element 2: partition weight 0"),
         "weight 0: %s", ctx.msg);
  dt_ctx_reset(&ctx);
  EXPECT(dt_partition_elements(m, 1, NULL, part, &rep, &ctx) == DT_OK, "1 part: %s", ctx.msg);
  EXPECT(part[0] == 0 && part[3] == 0 && rep.part_elems[0] == 4 && rep.imbalance == 0.0 &&
             rep.edgecut == 0,
         "1 part: trivial");
  dt_partition_report_free(&rep);
#ifndef DUCTILE_HAVE_METIS
  dt_ctx_reset(&ctx);
  EXPECT(dt_partition_elements(m, 2, NULL, part, NULL, &ctx) == DT_ERR_UNSUPPORTED &&
             strstr(ctx.msg, "configure with libmetis-dev to partition"),
         "no METIS: %s", ctx.msg);
  printf("built without METIS: 2 parts refused: %s\n", ctx.msg);
#endif
  dt_model_destroy(&m);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2, "usage: test_partition_metis lbracket_tet4.msh");
  check_dual_graph();
  check_errors();
  check_point_weights();
  check_empty_part();
#ifdef DUCTILE_HAVE_METIS
  dt_model *box = fixture_box(20, 20, 20), *tet = fixture_tet(argv[1]);
  check_metis(box, "box 20^3", 0.03);
  check_metis(tet, "L-bracket", 0.03);
  check_elem_weights();
  check_disconnected();
  check_clusters(tet);
  check_clusters_threads();
  dt_model_destroy(&box);
  dt_model_destroy(&tet);
#endif
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
