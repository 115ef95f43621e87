/* Boxes of nodes for the two-level preconditioner (coarse_space.h).
 *
 * A grid of boxes over the nodes' bounding box, with as many boxes along each axis as its
 * share of the extent asks for; empty boxes are dropped. For each node, the boxes of its
 * neighbour nodes (its "items": where its row of K couples to), and for each box, the boxes it
 * is coupled to: the backends form E = Z^T K Z from these lists, node by node and then box by
 * box, in a fixed order (deterministic sums, no atomics). */
#include "coarse_space.h"
#include "core/host_arrays.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dt_coarse_space_free(dt_problem *pb) {
  dt_free(pb->sub_ptr);
  dt_free(pb->sub_nodes);
  dt_free(pb->node_sub);
  dt_free(pb->node_d);
  dt_free(pb->sub_nbr_ptr);
  dt_free(pb->sub_nbr);
  dt_free(pb->item_ptr);
  dt_free(pb->item_sub);
  dt_free(pb->item_local);
  dt_free(pb->grp_ptr);
  dt_free(pb->grp_item);
  pb->grp_ptr = pb->grp_item = NULL;
  pb->sub_ptr = pb->sub_nodes = pb->node_sub = pb->sub_nbr_ptr = pb->sub_nbr = NULL;
  pb->item_ptr = pb->item_sub = pb->item_local = NULL;
  pb->node_d = NULL;
  pb->n_sub = 0;
}

/* Box of every node on a grid of about `want` boxes; returns the box count before dropping
 * empty ones. */
static long grid_boxes(const dt_problem *pb, int want, int *box) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY},
         vol = 1.0;
  int k[3] = {1, 1, 1}, axes = 0;
  for (int d = 0; d < 3; d++) { /* min/max reductions: the same bounds for any thread count */
    double l = INFINITY, h = -INFINITY;
#pragma omp parallel for schedule(static) reduction(min                                            \
                                                    : l)                                           \
    reduction(max                                                                                  \
              : h) if (pb->n_nodes > DT_HOST_PARALLEL_MIN)
    for (int a = 0; a < pb->n_nodes; a++) {
      l = fmin(l, pb->x[3 * a + d]);
      h = fmax(h, pb->x[3 * a + d]);
    }
    lo[d] = l, hi[d] = h;
  }
  for (int d = 0; d < pb->dim; d++)
    if (hi[d] > lo[d]) vol *= hi[d] - lo[d], axes++;
  for (int d = 0; d < pb->dim && axes; d++) /* boxes about as wide as they are long */
    if (hi[d] > lo[d]) {
      double per_axis = pow(want / vol, 1.0 / axes) * (hi[d] - lo[d]);
      k[d] = per_axis < 1.0 ? 1 : (int)lround(per_axis);
    }
#pragma omp parallel for schedule(static) if (pb->n_nodes > DT_HOST_PARALLEL_MIN)
  for (int a = 0; a < pb->n_nodes; a++) {
    long b = 0;
    for (int d = pb->dim - 1; d >= 0; d--) {
      int i = hi[d] > lo[d] ? (int)((pb->x[3 * a + d] - lo[d]) / (hi[d] - lo[d]) * k[d]) : 0;
      b = b * k[d] + (i < 0 ? 0 : i >= k[d] ? k[d] - 1 : i);
    }
    box[a] = (int)b;
  }
  return (long)k[0] * k[1] * k[2];
}

/* Boxes from the node -> grid-box map, empty grid boxes dropped, and each node's offset from
 * its box's centre (the mean of its nodes) over the box's scale (the largest such offset). */
static dt_status make_boxes(dt_problem *pb, const int *box, long n_grid, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *id = NULL, n = 0;
  double *geom = NULL; /* 4 per box: centre and scale */
  DT_ALLOC(id, n_grid, ctx, "coarse-space box numbers");
  for (long b = 0; b < n_grid; b++) id[b] = -1;
  for (int a = 0; a < pb->n_nodes; a++) id[box[a]] = 0;
  for (long b = 0; b < n_grid; b++)
    if (id[b] == 0) id[b] = n++;
  pb->n_sub = n;
  DT_ALLOC(pb->node_sub, pb->n_nodes, ctx, "coarse-space node boxes");
  DT_ALLOC(pb->sub_ptr, n + 1, ctx, "coarse-space boxes");
  DT_ALLOC(pb->sub_nodes, pb->n_nodes, ctx, "coarse-space box nodes");
  DT_ALLOC(geom, 4 * (size_t)n, ctx, "coarse-space box geometry");
  DT_ALLOC(pb->node_d, 3 * (size_t)pb->n_nodes, ctx, "coarse-space node offsets");
  for (int a = 0; a < pb->n_nodes; a++) pb->sub_ptr[(pb->node_sub[a] = id[box[a]]) + 1]++;
  for (int s = 0; s < n; s++) pb->sub_ptr[s + 1] += pb->sub_ptr[s];
  for (int a = 0; a < pb->n_nodes; a++) pb->sub_nodes[pb->sub_ptr[pb->node_sub[a]]++] = a;
  for (int s = n; s > 0; s--) pb->sub_ptr[s] = pb->sub_ptr[s - 1];
  pb->sub_ptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 4) if (pb->n_nodes > DT_HOST_PARALLEL_MIN)
  for (int s = 0; s < n; s++) {
    double *g = geom + 4 * s, c[3] = {0, 0, 0}, r = 0.0;
    int cnt = pb->sub_ptr[s + 1] - pb->sub_ptr[s];
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++)
      for (int d = 0; d < 3; d++) c[d] += pb->x[3 * pb->sub_nodes[k] + d];
    for (int d = 0; d < 3; d++) g[d] = c[d] / cnt;
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++)
      for (int d = 0; d < 3; d++) r = fmax(r, fabs(pb->x[3 * pb->sub_nodes[k] + d] - g[d]));
    g[3] = r > 0.0 ? r : 1.0;
  }
#pragma omp parallel for schedule(static) if (pb->n_nodes > DT_HOST_PARALLEL_MIN)
  for (int a = 0; a < pb->n_nodes; a++) {
    const double *g = geom + 4 * pb->node_sub[a];
    for (int d = 0; d < 3; d++) pb->node_d[3 * a + d] = (pb->x[3 * a + d] - g[d]) / g[3];
  }
cleanup:
  dt_free(id);
  dt_free(geom);
  return rc;
}

/* Insert v into the ascending list out[0..*m) unless it is there; 0 if the list is full
 * (cap entries) and v is new. */
static int insert_sorted(int *out, int *m, int cap, int v) {
  int k = *m;
  for (int i = 0; i < *m; i++)
    if (out[i] == v) return 1;
  if (*m >= cap) return 0;
  while (k > 0 && out[k - 1] > v) out[k] = out[k - 1], k--;
  out[k] = v;
  (*m)++;
  return 1;
}

/* The distinct boxes of node a's neighbours (its items), ascending, into out; their count. */
static int node_items(const dt_problem *pb, int a, int *out) {
  int m = 0;
  for (int k = pb->node_nbr_ptr[a]; k < pb->node_nbr_ptr[a + 1]; k++)
    insert_sorted(out, &m, INT32_MAX, pb->node_sub[pb->node_nbr[k]]);
  return m;
}

/* The boxes coupled to box s (the union of its nodes' items), ascending, into out (room for
 * DT_COARSE_MAX_NBR); their count, or -1 if there are more. */
static int box_couplings(const dt_problem *pb, int s, int *out) {
  int m = 0;
  for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++) {
    int a = pb->sub_nodes[k];
    for (int i = pb->item_ptr[a]; i < pb->item_ptr[a + 1]; i++)
      if (!insert_sorted(out, &m, DT_COARSE_MAX_NBR, pb->item_sub[i])) return -1;
  }
  return m;
}

/* Items of every node, the coupled boxes of every box and the item groups; *too_many = 1 if a
 * box is coupled to more than DT_COARSE_MAX_NBR boxes. Every loop runs per node or per box into
 * its own slots (parallel, and the same result for any thread count). */
static dt_status couplings(dt_problem *pb, int *too_many, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = pb->n_sub, max_nbr = 0, *box_nbr = NULL, over = 0;
  int64_t total = 0;
  *too_many = 0;
  for (int a = 0; a < pb->n_nodes; a++)
    if (pb->node_nbr_ptr[a + 1] - pb->node_nbr_ptr[a] > max_nbr)
      max_nbr = pb->node_nbr_ptr[a + 1] - pb->node_nbr_ptr[a];
  DT_ALLOC(pb->item_ptr, pb->n_nodes + 1, ctx, "coarse-space items");
  DT_ALLOC(box_nbr, (size_t)n * DT_COARSE_MAX_NBR, ctx, "coarse-space box couplings");
#pragma omp parallel if (pb->n_nodes > 20000)
  {
    int *scratch = dt_malloc(sizeof(int) * (size_t)(max_nbr + 1));
#pragma omp for schedule(static)
    for (int a = 0; a < pb->n_nodes; a++)
      pb->item_ptr[a + 1] = scratch ? node_items(pb, a, scratch) : -1;
    dt_free(scratch);
  }
  for (int a = 0; a < pb->n_nodes; a++) {
    DT_CHECK(pb->item_ptr[a + 1] >= 0, ctx, DT_ERR_NOMEM,
             "out of memory listing the coarse-space items");
    pb->item_ptr[a + 1] += pb->item_ptr[a];
  }
  total = pb->item_ptr[pb->n_nodes];
  DT_ALLOC(pb->item_sub, total, ctx, "coarse-space items");
  DT_ALLOC(pb->item_local, total, ctx, "coarse-space items");
#pragma omp parallel for schedule(static) if (pb->n_nodes > 20000)
  for (int a = 0; a < pb->n_nodes; a++) node_items(pb, a, pb->item_sub + pb->item_ptr[a]);
  DT_ALLOC(pb->sub_nbr_ptr, n + 1, ctx, "coarse-space box couplings");
#pragma omp parallel for schedule(dynamic, 4) if (pb->n_nodes > 20000)
  for (int s = 0; s < n; s++) {
    int m = box_couplings(pb, s, box_nbr + (size_t)s * DT_COARSE_MAX_NBR);
    if (m < 0) {
#pragma omp atomic write
      over = 1;
    }
    pb->sub_nbr_ptr[s + 1] = m < 0 ? 0 : m;
  }
  *too_many = over;
  if (*too_many) goto cleanup;
  for (int s = 0; s < n; s++) pb->sub_nbr_ptr[s + 1] += pb->sub_nbr_ptr[s];
  DT_ALLOC(pb->sub_nbr, pb->sub_nbr_ptr[n], ctx, "coarse-space box couplings");
  for (int s = 0; s < n; s++)
    memcpy(pb->sub_nbr + pb->sub_nbr_ptr[s], box_nbr + (size_t)s * DT_COARSE_MAX_NBR,
           sizeof(int) * (size_t)(pb->sub_nbr_ptr[s + 1] - pb->sub_nbr_ptr[s]));
#pragma omp parallel for schedule(static) if (pb->n_nodes > 20000)
  for (int a = 0; a < pb->n_nodes; a++) { /* rank of each item among its node's box's couplings */
    int s = pb->node_sub[a], first = pb->sub_nbr_ptr[s];
    for (int i = pb->item_ptr[a]; i < pb->item_ptr[a + 1]; i++) {
      int l = 0;
      while (pb->sub_nbr[first + l] != pb->item_sub[i]) l++;
      pb->item_local[i] = l;
    }
  }
  /* items grouped by coupling: E's block (s, l) is the sum of its group, in node order */
  DT_ALLOC(pb->grp_ptr, pb->sub_nbr_ptr[n] + 1, ctx, "coarse-space item groups");
  DT_ALLOC(pb->grp_item, total, ctx, "coarse-space item groups");
#pragma omp parallel for schedule(dynamic, 4) if (pb->n_nodes > 20000)
  for (int s = 0; s < n; s++)
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++)
      for (int i = pb->item_ptr[pb->sub_nodes[k]]; i < pb->item_ptr[pb->sub_nodes[k] + 1]; i++)
        pb->grp_ptr[pb->sub_nbr_ptr[s] + pb->item_local[i] + 1]++;
  for (int g = 0; g < pb->sub_nbr_ptr[n]; g++) pb->grp_ptr[g + 1] += pb->grp_ptr[g];
#pragma omp parallel for schedule(dynamic, 4) if (pb->n_nodes > 20000)
  for (int s = 0; s < n; s++) {
    int cursor[DT_COARSE_MAX_NBR];
    for (int l = 0; l < pb->sub_nbr_ptr[s + 1] - pb->sub_nbr_ptr[s]; l++)
      cursor[l] = pb->grp_ptr[pb->sub_nbr_ptr[s] + l];
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++)
      for (int i = pb->item_ptr[pb->sub_nodes[k]]; i < pb->item_ptr[pb->sub_nodes[k] + 1]; i++)
        pb->grp_item[cursor[pb->item_local[i]]++] = i;
  }
cleanup:
  dt_free(box_nbr);
  return rc;
}

dt_status dt_coarse_space_build(dt_problem *pb, int nodes_per_box, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *box = NULL, want = pb->n_nodes / (nodes_per_box > 0 ? nodes_per_box : 1), too_many = 1;
  if (want > DT_COARSE_MAX_BOXES) want = DT_COARSE_MAX_BOXES;
  if (want < DT_COARSE_MIN_BOXES) want = DT_COARSE_MIN_BOXES;
  if (want > pb->n_nodes / 8)
    want = pb->n_nodes / 8 > 0 ? pb->n_nodes / 8 : 1; /* a few nodes per box at least */
  pb->n_modes = pb->dim == 3 ? 6 : 3;
  DT_ALLOC(box, pb->n_nodes, ctx, "coarse-space boxes");
  while (too_many) { /* boxes finer than the elements couple to too many boxes: coarser grid */
    dt_coarse_space_free(pb);
    DT_TRY(make_boxes(pb, box, grid_boxes(pb, want, box), ctx));
    DT_TRY(couplings(pb, &too_many, ctx));
    DT_CHECK(!too_many || want > 1, ctx, DT_ERR_INTERNAL,
             "a single box is coupled to more than one box");
    want /= 2;
  }
cleanup:
  dt_free(box);
  if (rc != DT_OK) dt_coarse_space_free(pb);
  return rc;
}
