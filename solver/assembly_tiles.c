/* Building the element tiles of assembly_tiles.h: spatial cells, slot lists, tile colouring. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assembly_tiles.h"

typedef struct cell_item {
  int64_t key; /* cell of the element's centroid */
  int color;   /* element colour */
  int elem;
} cell_item;

typedef struct slot_item {
  int64_t block; /* global CSR block: blocks are numbered row node by row node, then by rank */
  int node, pos;
} slot_item;

/* Tiles in the order they are found, before they are sorted by tile colour. */
typedef struct builder {
  const dt_problem *pb;
  int npe, pairs, max_elems, max_slots;
  const int *ecol; /* element colour */
  int *mark;       /* per CSR block: local slot + 1 in the tile being built, else 0 */
  slot_item *scratch;
  int n_tiles, cap_tiles;
  int *elem_ptr;       /* cap_tiles + 1 */
  int *elems;          /* n_elems, in tile order */
  uint16_t *pair_slot; /* n_elems * pairs, in tile order */
  int64_t *slot_ptr;   /* cap_tiles + 1 */
  slot_item *slots;
  int64_t cap_slots;
  int placed;
} builder;

static int cmp_cell(const void *pa, const void *pb) {
  const cell_item *a = (const cell_item *)pa, *b = (const cell_item *)pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  if (a->color != b->color) return a->color < b->color ? -1 : 1;
  return (a->elem > b->elem) - (a->elem < b->elem);
}

static int cmp_slot(const void *pa, const void *pb) {
  const slot_item *a = (const slot_item *)pa, *b = (const slot_item *)pb;
  return (a->block > b->block) - (a->block < b->block);
}

static int cmp_int(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  return (a > b) - (a < b);
}

static int64_t block_of(const dt_problem *pb, int node, int pos) {
  return (int64_t)pb->row_ptr[(int64_t)node * pb->dpn] / ((int64_t)pb->dpn * pb->dpn) + pos;
}

/* Collect the slots of elements list[0..n) in b->scratch; returns their count, or -1 as soon as
 * there are more than max_slots (marks are cleared either way). */
static int count_slots(builder *b, const int *list, int n) {
  const dt_problem *pb = b->pb;
  int count = 0, over = 0;
  for (int k = 0; k < n && !over; k++) {
    int e = list[k];
    const int *cn = pb->conn + pb->elem_ptr[e];
    const int *pos = pb->elem_pos + pb->elem_pos_ptr[e];
    for (int p = 0; p < b->pairs; p++) {
      int A = p / b->npe;
      int64_t blk = block_of(pb, cn[A], pos[p]);
      if (b->mark[blk]) continue;
      if (count == b->max_slots) {
        over = 1;
        break;
      }
      b->mark[blk] = count + 1;
      b->scratch[count].block = blk;
      b->scratch[count].node = cn[A];
      b->scratch[count].pos = pos[p];
      count++;
    }
  }
  for (int s = 0; s < count; s++) b->mark[b->scratch[s].block] = 0;
  return over ? -1 : count;
}

static dt_status grow_tiles(builder *b, int64_t more_slots, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (b->n_tiles + 1 >= b->cap_tiles) {
    int cap = b->cap_tiles * 2 + 64;
    int *ep = (int *)dt_realloc(b->elem_ptr, sizeof(int) * ((size_t)cap + 1));
    int64_t *sp = ep ? (int64_t *)dt_realloc(b->slot_ptr, sizeof(int64_t) * ((size_t)cap + 1)) : NULL;
    if (ep) b->elem_ptr = ep;
    if (sp) b->slot_ptr = sp;
    DT_CHECK(ep && sp, ctx, DT_ERR_NOMEM, "out of memory growing the assembly tiles (%d)", cap);
    if (b->cap_tiles == 0) {
      b->elem_ptr[0] = 0;
      b->slot_ptr[0] = 0;
    }
    b->cap_tiles = cap;
  }
  if (b->slot_ptr[b->n_tiles] + more_slots > b->cap_slots) {
    int64_t cap = (b->slot_ptr[b->n_tiles] + more_slots) * 2;
    slot_item *s = (slot_item *)dt_realloc(b->slots, sizeof(slot_item) * (size_t)cap);
    DT_CHECK(s != NULL, ctx, DT_ERR_NOMEM, "out of memory growing the tile slots (%lld)", (long long)cap);
    b->slots = s;
    b->cap_slots = cap;
  }
cleanup:
  return rc;
}

/* Make list[0..n) one tile, or split it in element order until the parts fit. */
static dt_status add_tile(builder *b, int *list, int n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int count = n <= b->max_elems ? count_slots(b, list, n) : -1;
  if (count < 0) {
    DT_CHECK(n > 1, ctx, DT_ERR_UNSUPPORTED,
             "one element touches more than %d matrix blocks: no assembly tile fits", b->max_slots);
    qsort(list, (size_t)n, sizeof(int), cmp_int);
    DT_TRY(add_tile(b, list, n / 2, ctx));
    DT_TRY(add_tile(b, list + n / 2, n - n / 2, ctx));
    goto cleanup;
  }
  DT_TRY(grow_tiles(b, count, ctx));
  {
    const dt_problem *pb = b->pb;
    int t = b->n_tiles;
    slot_item *out = b->slots + b->slot_ptr[t];
    qsort(b->scratch, (size_t)count, sizeof(slot_item), cmp_slot); /* row node, then rank */
    for (int s = 0; s < count; s++) {
      out[s] = b->scratch[s];
      b->mark[out[s].block] = s + 1;
    }
    /* elements by colour, then number: the order in which the tile sums them */
    for (int i = 1; i < n; i++) {
      int e = list[i], j = i - 1;
      while (j >= 0 && (b->ecol[list[j]] > b->ecol[e] || (b->ecol[list[j]] == b->ecol[e] && list[j] > e))) {
        list[j + 1] = list[j];
        j--;
      }
      list[j + 1] = e;
    }
    for (int k = 0; k < n; k++) {
      int e = list[k];
      const int *cn = pb->conn + pb->elem_ptr[e];
      const int *pos = pb->elem_pos + pb->elem_pos_ptr[e];
      uint16_t *ps = b->pair_slot + (size_t)(b->placed + k) * b->pairs;
      b->elems[b->placed + k] = e;
      for (int p = 0; p < b->pairs; p++) ps[p] = (uint16_t)(b->mark[block_of(pb, cn[p / b->npe], pos[p])] - 1);
    }
    for (int s = 0; s < count; s++) b->mark[out[s].block] = 0;
    b->placed += n;
    b->n_tiles = t + 1;
    b->elem_ptr[t + 1] = b->placed;
    b->slot_ptr[t + 1] = b->slot_ptr[t] + count;
  }
cleanup:
  return rc;
}

/* Cell key of every element: a uniform grid over the centroids with about target elements
 * per cell (cell edge from the centroids' bounding box, over the axes it spans). */
static void cell_keys(const dt_problem *pb, int target, const int *ecol, cell_item *items) {
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  double maxext = 0.0, measure = 1.0, h;
  int64_t ncell[3] = {1, 1, 1};
  int d = 0;
  for (int e = 0; e < pb->n_elems; e++) {
    double c[3] = {0, 0, 0};
    int n = pb->elem_ptr[e + 1] - pb->elem_ptr[e];
    for (int k = pb->elem_ptr[e]; k < pb->elem_ptr[e + 1]; k++)
      for (int i = 0; i < 3; i++) c[i] += pb->x[(int64_t)pb->conn[k] * 3 + i] / n;
    for (int i = 0; i < 3; i++) {
      if (c[i] < lo[i]) lo[i] = c[i];
      if (c[i] > hi[i]) hi[i] = c[i];
    }
  }
  for (int i = 0; i < 3; i++) maxext = fmax(maxext, hi[i] - lo[i]);
  for (int i = 0; i < 3; i++)
    if (hi[i] - lo[i] > 1e-9 * maxext) {
      measure *= hi[i] - lo[i];
      d++;
    }
  h = d ? pow(measure * target / pb->n_elems, 1.0 / d) : 1.0;
  for (int i = 0; i < 3 && d; i++)
    if (hi[i] - lo[i] > 1e-9 * maxext) ncell[i] = (int64_t)floor((hi[i] - lo[i]) / h) + 1;
  for (int e = 0; e < pb->n_elems; e++) {
    double c[3] = {0, 0, 0};
    int64_t idx[3] = {0, 0, 0};
    int n = pb->elem_ptr[e + 1] - pb->elem_ptr[e];
    for (int k = pb->elem_ptr[e]; k < pb->elem_ptr[e + 1]; k++)
      for (int i = 0; i < 3; i++) c[i] += pb->x[(int64_t)pb->conn[k] * 3 + i] / n;
    for (int i = 0; i < 3; i++) {
      idx[i] = ncell[i] > 1 ? (int64_t)floor((c[i] - lo[i]) / h) : 0;
      if (idx[i] >= ncell[i]) idx[i] = ncell[i] - 1;
    }
    items[e].key = (idx[2] * ncell[1] + idx[1]) * ncell[0] + idx[0];
    items[e].color = ecol[e];
    items[e].elem = e;
  }
}

/* Colour the tiles (tiles sharing a node differ), number them colour by colour and write the
 * final arrays, with the first-writer flag of every slot. */
static dt_status finish(builder *b, dt_tiles *t, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_problem *pb = b->pb;
  int nt = b->n_tiles, *tnode_ptr = NULL, *tnodes = NULL, *tcol = NULL, *order = NULL, *fill = NULL;
  int64_t n_slots = b->slot_ptr[nt], n_blocks = pb->nnz / ((int64_t)pb->dpn * pb->dpn);
  int *minc = b->mark; /* reused: smallest tile colour writing each block */
  DT_ALLOC(tnode_ptr, nt + 1, ctx, "tile node offsets");
  DT_ALLOC(tnodes, n_slots, ctx, "tile nodes");
  for (int k = 0; k < nt; k++) { /* a tile's nodes are its slots' row nodes (sorted) */
    int n = tnode_ptr[k];
    for (int64_t s = b->slot_ptr[k]; s < b->slot_ptr[k + 1]; s++)
      if (n == tnode_ptr[k] || tnodes[n - 1] != b->slots[s].node) tnodes[n++] = b->slots[s].node;
    tnode_ptr[k + 1] = n;
  }
  DT_ALLOC(tcol, nt, ctx, "tile colours");
  DT_TRY(dt_greedy_colors(nt, tnode_ptr, tnodes, pb->n_nodes, tcol, &t->n_colors, ctx));
  DT_ALLOC(t->color_ptr, t->n_colors + 1, ctx, "tile colour offsets");
  DT_ALLOC(order, nt, ctx, "tile order");
  DT_ALLOC(fill, t->n_colors, ctx, "tile colour fill");
  for (int k = 0; k < nt; k++) t->color_ptr[tcol[k] + 1]++;
  for (int c = 0; c < t->n_colors; c++) t->color_ptr[c + 1] += t->color_ptr[c];
  for (int k = 0; k < nt; k++) order[t->color_ptr[tcol[k]] + fill[tcol[k]]++] = k;

  for (int64_t s = 0; s < n_blocks; s++) minc[s] = INT_MAX;
  for (int k = 0; k < nt; k++)
    for (int64_t s = b->slot_ptr[k]; s < b->slot_ptr[k + 1]; s++)
      if (tcol[k] < minc[b->slots[s].block]) minc[b->slots[s].block] = tcol[k];
  t->covers_all = 1;
  for (int64_t s = 0; s < n_blocks; s++)
    if (minc[s] == INT_MAX) t->covers_all = 0;

  t->n_tiles = nt;
  t->npe = b->npe;
  DT_ALLOC(t->elem_ptr, nt + 1, ctx, "tile element offsets");
  DT_ALLOC(t->elems, pb->n_elems, ctx, "tile elements");
  DT_ALLOC(t->elem_group, pb->n_elems, ctx, "tile element groups");
  DT_ALLOC(t->pair_slot, (size_t)pb->n_elems * b->pairs, ctx, "tile pair slots");
  DT_ALLOC(t->slot_ptr, nt + 1, ctx, "tile slot offsets");
  DT_ALLOC(t->slot_node, n_slots, ctx, "tile slot nodes");
  DT_ALLOC(t->slot_pos, n_slots, ctx, "tile slot ranks");
  DT_ALLOC(t->slot_first, n_slots, ctx, "tile slot flags");
  for (int i = 0; i < nt; i++) {
    int k = order[i], e0 = b->elem_ptr[k], n = b->elem_ptr[k + 1] - e0, group = 0;
    int64_t s0 = b->slot_ptr[k], ns = b->slot_ptr[k + 1] - s0, d0 = t->slot_ptr[i];
    int f0 = t->elem_ptr[i];
    for (int j = 0; j < n; j++) {
      if (j > 0 && b->ecol[b->elems[e0 + j]] != b->ecol[b->elems[e0 + j - 1]]) group++;
      DT_CHECK(group < 256, ctx, DT_ERR_UNSUPPORTED, "more than 256 element colours in one assembly tile");
      t->elems[f0 + j] = b->elems[e0 + j];
      t->elem_group[f0 + j] = (unsigned char)group;
    }
    memcpy(t->pair_slot + (size_t)f0 * b->pairs, b->pair_slot + (size_t)e0 * b->pairs,
           sizeof(uint16_t) * (size_t)n * b->pairs);
    for (int64_t s = 0; s < ns; s++) {
      const slot_item *si = b->slots + s0 + s;
      t->slot_node[d0 + s] = si->node;
      t->slot_pos[d0 + s] = si->pos;
      t->slot_first[d0 + s] = minc[si->block] == tcol[k];
    }
    t->elem_ptr[i + 1] = f0 + n;
    t->slot_ptr[i + 1] = d0 + ns;
    if (n > t->max_elems) t->max_elems = n;
    if (ns > t->max_slots) t->max_slots = (int)ns;
  }
cleanup:
  dt_free(tnode_ptr);
  dt_free(tnodes);
  dt_free(tcol);
  dt_free(order);
  dt_free(fill);
  return rc;
}

dt_status dt_tiles_build(const dt_problem *pb, int target_elems, int max_elems, int max_slots,
                         dt_tiles **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  builder b;
  dt_tiles *t = NULL;
  cell_item *items = NULL;
  int *ecol = NULL, *list = NULL;
  int64_t n_blocks = pb->nnz / ((int64_t)pb->dpn * pb->dpn);
  memset(&b, 0, sizeof b);
  *out = NULL;
  b.pb = pb;
  b.npe = pb->elem_ptr[1] - pb->elem_ptr[0];
  b.pairs = b.npe * b.npe;
  b.max_elems = max_elems;
  b.max_slots = max_slots < 65535 ? max_slots : 65535; /* pair_slot is 16 bits */
  for (int e = 1; e < pb->n_elems; e++)
    DT_CHECK(pb->elem_ptr[e + 1] - pb->elem_ptr[e] == b.npe, ctx, DT_ERR_UNSUPPORTED,
             "assembly tiles need one element type (element %d differs)", e);
  DT_CHECK(max_elems >= 1 && target_elems >= 1 && b.max_slots >= b.pairs, ctx, DT_ERR_INPUT,
           "assembly tiles: bad limits (%d elements, %d slots)", max_elems, max_slots);
  DT_ALLOC(t, 1, ctx, "assembly tiles");
  DT_ALLOC(ecol, pb->n_elems, ctx, "element colours");
  for (int c = 0; c < pb->n_colors; c++)
    for (int k = pb->color_ptr[c]; k < pb->color_ptr[c + 1]; k++) ecol[pb->color_elems[k]] = c;
  b.ecol = ecol;
  DT_ALLOC(b.mark, n_blocks, ctx, "tile block marks");
  DT_ALLOC(b.scratch, b.max_slots, ctx, "tile slot scratch");
  DT_ALLOC(b.elems, pb->n_elems, ctx, "tile elements");
  DT_ALLOC(b.pair_slot, (size_t)pb->n_elems * b.pairs, ctx, "tile pair slots");
  DT_TRY(grow_tiles(&b, 0, ctx));
  DT_ALLOC(items, pb->n_elems, ctx, "element cells");
  DT_ALLOC(list, pb->n_elems, ctx, "cell elements");
  cell_keys(pb, target_elems, ecol, items);
  qsort(items, (size_t)pb->n_elems, sizeof(cell_item), cmp_cell);
  for (int i = 0; i < pb->n_elems;) {
    int j = i;
    while (j < pb->n_elems && items[j].key == items[i].key) {
      list[j - i] = items[j].elem;
      j++;
    }
    DT_TRY(add_tile(&b, list, j - i, ctx));
    i = j;
  }
  DT_TRY(finish(&b, t, ctx));
  *out = t;
  t = NULL;
cleanup:
  dt_tiles_destroy(&t);
  dt_free(b.mark);
  dt_free(b.scratch);
  dt_free(b.elems);
  dt_free(b.pair_slot);
  dt_free(b.elem_ptr);
  dt_free(b.slot_ptr);
  dt_free(b.slots);
  dt_free(ecol);
  dt_free(items);
  dt_free(list);
  return rc;
}

void dt_tiles_destroy(dt_tiles **tp) {
  dt_tiles *t = tp ? *tp : NULL;
  if (!t) return;
  dt_free(t->color_ptr);
  dt_free(t->elem_ptr);
  dt_free(t->elems);
  dt_free(t->elem_group);
  dt_free(t->pair_slot);
  dt_free(t->slot_ptr);
  dt_free(t->slot_node);
  dt_free(t->slot_pos);
  dt_free(t->slot_first);
  dt_free(t);
  *tp = NULL;
}
