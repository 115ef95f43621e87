/* Boxes of nodes for the two-level preconditioner (coarse_space.h).
 *
 * A grid of boxes over the nodes' bounding box, with as many boxes along each axis as its
 * share of the extent asks for; empty boxes are dropped. For each node, the boxes of its
 * neighbour nodes (its "items": where its row of K couples to), and for each box, the boxes it
 * is coupled to: the backends form E = Z^T K Z from these lists, node by node and then box by
 * box, in a fixed order (deterministic sums, no atomics). */
#include "coarse_space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dt_coarse_space_free(dt_problem *pb) {
  dt_free(pb->sub_ptr);
  dt_free(pb->sub_nodes);
  dt_free(pb->node_sub);
  dt_free(pb->sub_geom);
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
  pb->sub_geom = pb->node_d = NULL;
  pb->n_sub = 0;
}

/* Box of every node on a grid of about `want` boxes; returns the box count before dropping
 * empty ones. */
static long grid_boxes(const dt_problem *pb, int want, int *box) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, vol = 1.0;
  int k[3] = {1, 1, 1}, axes = 0;
  for (int a = 0; a < pb->n_nodes; a++)
    for (int d = 0; d < 3; d++) {
      lo[d] = fmin(lo[d], pb->x[3 * a + d]);
      hi[d] = fmax(hi[d], pb->x[3 * a + d]);
    }
  for (int d = 0; d < pb->dim; d++)
    if (hi[d] > lo[d]) vol *= hi[d] - lo[d], axes++;
  for (int d = 0; d < pb->dim && axes; d++) /* boxes about as wide as they are long */
    if (hi[d] > lo[d]) {
      double per_axis = pow(want / vol, 1.0 / axes) * (hi[d] - lo[d]);
      k[d] = per_axis < 1.0 ? 1 : (int)lround(per_axis);
    }
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

/* Boxes (nodes, geometry) from the node -> grid-box map, empty grid boxes dropped. */
static dt_status make_boxes(dt_problem *pb, const int *box, long n_grid, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *id = NULL, n = 0;
  DT_ALLOC(id, n_grid, ctx, "coarse-space box numbers");
  for (long b = 0; b < n_grid; b++) id[b] = -1;
  for (int a = 0; a < pb->n_nodes; a++) id[box[a]] = 0;
  for (long b = 0; b < n_grid; b++)
    if (id[b] == 0) id[b] = n++;
  pb->n_sub = n;
  DT_ALLOC(pb->node_sub, pb->n_nodes, ctx, "coarse-space node boxes");
  DT_ALLOC(pb->sub_ptr, n + 1, ctx, "coarse-space boxes");
  DT_ALLOC(pb->sub_nodes, pb->n_nodes, ctx, "coarse-space box nodes");
  DT_ALLOC(pb->sub_geom, 4 * (size_t)n, ctx, "coarse-space box geometry");
  DT_ALLOC(pb->node_d, 3 * (size_t)pb->n_nodes, ctx, "coarse-space node offsets");
  for (int a = 0; a < pb->n_nodes; a++) pb->sub_ptr[(pb->node_sub[a] = id[box[a]]) + 1]++;
  for (int s = 0; s < n; s++) pb->sub_ptr[s + 1] += pb->sub_ptr[s];
  for (int a = 0; a < pb->n_nodes; a++) pb->sub_nodes[pb->sub_ptr[pb->node_sub[a]]++] = a;
  for (int s = n; s > 0; s--) pb->sub_ptr[s] = pb->sub_ptr[s - 1];
  pb->sub_ptr[0] = 0;
  for (int s = 0; s < n; s++) { /* centre: mean of the nodes; scale: largest distance from it */
    double *g = pb->sub_geom + 4 * s, c[3] = {0, 0, 0}, r = 0.0;
    int cnt = pb->sub_ptr[s + 1] - pb->sub_ptr[s];
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++)
      for (int d = 0; d < 3; d++) c[d] += pb->x[3 * pb->sub_nodes[k] + d];
    for (int d = 0; d < 3; d++) g[d] = c[d] / cnt;
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++)
      for (int d = 0; d < 3; d++) r = fmax(r, fabs(pb->x[3 * pb->sub_nodes[k] + d] - g[d]));
    g[3] = r > 0.0 ? r : 1.0;
  }
  for (int a = 0; a < pb->n_nodes; a++) {
    const double *g = pb->sub_geom + 4 * pb->node_sub[a];
    for (int d = 0; d < 3; d++) pb->node_d[3 * a + d] = (pb->x[3 * a + d] - g[d]) / g[3];
  }
cleanup:
  dt_free(id);
  return rc;
}

/* Append the distinct values of list[0..n) that are not yet marked (mark[v] != stamp). */
static int add_distinct(const int *list, int n, const int *map, int *mark, int stamp, int *out) {
  int m = 0;
  for (int k = 0; k < n; k++) {
    int v = map[list[k]];
    if (mark[v] != stamp) mark[v] = stamp, out[m++] = v;
  }
  return m;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Items of every node and the coupled boxes of every box; *too_many = 1 if a box is coupled to
 * more than DT_COARSE_MAX_NBR boxes. */
static dt_status couplings(dt_problem *pb, int *too_many, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *mark = NULL, *tmp = NULL, n = pb->n_sub;
  const int *np = pb->node_nbr_ptr, *nb = pb->node_nbr;
  int64_t total = 0;
  *too_many = 0;
  DT_ALLOC(mark, n, ctx, "coarse-space marks");
  DT_ALLOC(tmp, n, ctx, "coarse-space scratch");
  DT_ALLOC(pb->item_ptr, pb->n_nodes + 1, ctx, "coarse-space items");
  for (int s = 0; s < n; s++) mark[s] = -1;
  for (int a = 0; a < pb->n_nodes; a++)
    pb->item_ptr[a + 1] = pb->item_ptr[a] + add_distinct(nb + np[a], np[a + 1] - np[a], pb->node_sub, mark, a, tmp);
  total = pb->item_ptr[pb->n_nodes];
  DT_ALLOC(pb->item_sub, total, ctx, "coarse-space items");
  DT_ALLOC(pb->item_local, total, ctx, "coarse-space items");
  for (int s = 0; s < n; s++) mark[s] = -1;
  for (int a = 0; a < pb->n_nodes; a++) {
    int *out = pb->item_sub + pb->item_ptr[a], m = add_distinct(nb + np[a], np[a + 1] - np[a], pb->node_sub, mark, a, out);
    qsort(out, (size_t)m, sizeof(int), cmp_int);
  }
  /* boxes coupled to each box: the union of its nodes' items */
  DT_ALLOC(pb->sub_nbr_ptr, n + 1, ctx, "coarse-space box couplings");
  for (int s = 0; s < n; s++) mark[s] = -1;
  for (int s = 0; s < n; s++) {
    int m = 0;
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++) {
      int a = pb->sub_nodes[k];
      for (int i = pb->item_ptr[a]; i < pb->item_ptr[a + 1]; i++) {
        int t = pb->item_sub[i];
        if (mark[t] != s) mark[t] = s, tmp[m++] = t;
      }
    }
    if (m > DT_COARSE_MAX_NBR) *too_many = 1;
    pb->sub_nbr_ptr[s + 1] = pb->sub_nbr_ptr[s] + m;
  }
  if (*too_many) goto cleanup;
  DT_ALLOC(pb->sub_nbr, pb->sub_nbr_ptr[n], ctx, "coarse-space box couplings");
  for (int s = 0; s < n; s++) mark[s] = -1;
  for (int s = 0; s < n; s++) {
    int *out = pb->sub_nbr + pb->sub_nbr_ptr[s], m = 0;
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++)
      for (int i = pb->item_ptr[pb->sub_nodes[k]]; i < pb->item_ptr[pb->sub_nodes[k] + 1]; i++) {
        int t = pb->item_sub[i];
        if (mark[t] != s) mark[t] = s, out[m++] = t;
      }
    qsort(out, (size_t)m, sizeof(int), cmp_int);
  }
  for (int a = 0; a < pb->n_nodes; a++) { /* rank of each item among its node's box's couplings */
    int s = pb->node_sub[a];
    const int *lst = pb->sub_nbr + pb->sub_nbr_ptr[s];
    int len = pb->sub_nbr_ptr[s + 1] - pb->sub_nbr_ptr[s];
    for (int i = pb->item_ptr[a]; i < pb->item_ptr[a + 1]; i++) {
      const int *f = bsearch(&pb->item_sub[i], lst, (size_t)len, sizeof(int), cmp_int);
      pb->item_local[i] = (int)(f - lst);
    }
  }
  /* items grouped by coupling: E's block (s, l) is the sum of its group, in node order */
  DT_ALLOC(pb->grp_ptr, pb->sub_nbr_ptr[n] + 1, ctx, "coarse-space item groups");
  DT_ALLOC(pb->grp_item, total, ctx, "coarse-space item groups");
  for (int s = 0; s < n; s++)
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++)
      for (int i = pb->item_ptr[pb->sub_nodes[k]]; i < pb->item_ptr[pb->sub_nodes[k] + 1]; i++)
        pb->grp_ptr[pb->sub_nbr_ptr[s] + pb->item_local[i] + 1]++;
  for (int g = 0; g < pb->sub_nbr_ptr[n]; g++) pb->grp_ptr[g + 1] += pb->grp_ptr[g];
  for (int s = 0; s < n; s++)
    for (int k = pb->sub_ptr[s]; k < pb->sub_ptr[s + 1]; k++)
      for (int i = pb->item_ptr[pb->sub_nodes[k]]; i < pb->item_ptr[pb->sub_nodes[k] + 1]; i++)
        pb->grp_item[pb->grp_ptr[pb->sub_nbr_ptr[s] + pb->item_local[i]]++] = i;
  for (int g = pb->sub_nbr_ptr[n]; g > 0; g--) pb->grp_ptr[g] = pb->grp_ptr[g - 1];
  pb->grp_ptr[0] = 0;
cleanup:
  dt_free(mark);
  dt_free(tmp);
  return rc;
}

dt_status dt_coarse_space_build(dt_problem *pb, int nodes_per_box, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *box = NULL, want = pb->n_nodes / (nodes_per_box > 0 ? nodes_per_box : 1), too_many = 1;
  if (want > DT_COARSE_MAX_BOXES) want = DT_COARSE_MAX_BOXES;
  if (want < DT_COARSE_MIN_BOXES) want = DT_COARSE_MIN_BOXES;
  if (want > pb->n_nodes / 8) want = pb->n_nodes / 8 > 0 ? pb->n_nodes / 8 : 1; /* a few nodes per box at least */
  pb->n_modes = pb->dim == 3 ? 6 : 3;
  DT_ALLOC(box, pb->n_nodes, ctx, "coarse-space boxes");
  while (too_many) { /* boxes finer than the elements couple to too many boxes: coarser grid */
    dt_coarse_space_free(pb);
    DT_TRY(make_boxes(pb, box, grid_boxes(pb, want, box), ctx));
    DT_TRY(couplings(pb, &too_many, ctx));
    DT_CHECK(!too_many || want > 1, ctx, DT_ERR_INTERNAL, "a single box is coupled to more than one box");
    want /= 2;
  }
cleanup:
  dt_free(box);
  if (rc != DT_OK) dt_coarse_space_free(pb);
  return rc;
}
