/* The assembly tiles of the CUDA backend (solver/assembly_tiles.c), checked on the host: every
 * element in one tile, limits kept, tiles of one colour disjoint in nodes, groups inside a tile
 * disjoint in nodes, pair slots pointing at the right CSR blocks, exactly one first writer per
 * block (the lowest tile colour), and an emulation of the kernel's store/add protocol giving
 * the same matrix as a plain scatter (reference: direct assembly of the same random element
 * matrices, tolerance 1e-13 relative; the sums differ only in order). */
#include <math.h>

#include "assembly_tiles.h"
#include "problem.h"
#include "unit_model.h"

static void check_tiles(const dt_problem *pb, const dt_tiles *t, int max_elems, int max_slots) {
  int npe = t->npe, pairs = npe * npe, dpn = pb->dpn;
  int *seen = calloc((size_t)pb->n_elems, sizeof(int));
  int *node_tile = malloc(sizeof(int) * (size_t)pb->n_nodes);
  int *tile_color = malloc(sizeof(int) * (size_t)t->n_tiles);
  int64_t n_blocks = pb->nnz / (dpn * dpn);
  int *first_count = calloc((size_t)n_blocks, sizeof(int));
  int *min_color = malloc(sizeof(int) * (size_t)n_blocks);
  double *direct = calloc((size_t)pb->nnz, sizeof(double));
  double *tiled = malloc(sizeof(double) * (size_t)pb->nnz);
  double *acc = NULL;
  for (int64_t b = 0; b < n_blocks; b++) min_color[b] = 1 << 30;
  for (int64_t v = 0; v < pb->nnz; v++) tiled[v] = NAN; /* no memset: every value must be stored */
  CHECK(t->covers_all, "a box mesh: every block belongs to an element");
  CHECK(t->max_elems <= max_elems && t->max_slots <= max_slots, "limits %d/%d exceeded: %d/%d", max_elems,
        max_slots, t->max_elems, t->max_slots);
  for (int c = 0; c < t->n_colors; c++) {
    for (int a = 0; a < pb->n_nodes; a++) node_tile[a] = -1;
    for (int k = t->color_ptr[c]; k < t->color_ptr[c + 1]; k++) {
      tile_color[k] = c;
      for (int i = t->elem_ptr[k]; i < t->elem_ptr[k + 1]; i++) {
        int e = t->elems[i];
        for (int j = pb->elem_ptr[e]; j < pb->elem_ptr[e + 1]; j++) {
          int a = pb->conn[j];
          CHECK(node_tile[a] == -1 || node_tile[a] == k, "tiles %d and %d of colour %d share node %d",
                node_tile[a], k, c, a);
          node_tile[a] = k;
        }
      }
    }
  }
  for (int k = 0; k < t->n_tiles; k++) {
    int64_t s0 = t->slot_ptr[k];
    int ns = (int)(t->slot_ptr[k + 1] - s0);
    acc = realloc(acc, sizeof(double) * (size_t)ns * dpn * dpn);
    for (int i = 0; i < ns * dpn * dpn; i++) acc[i] = 0.0;
    for (int i = t->elem_ptr[k]; i < t->elem_ptr[k + 1]; i++) {
      int e = t->elems[i];
      const int *cn = pb->conn + pb->elem_ptr[e];
      const int *pos = pb->elem_pos + pb->elem_pos_ptr[e];
      CHECK(seen[e]++ == 0, "element %d in two tiles", e);
      CHECK(i == t->elem_ptr[k] || t->elem_group[i] >= t->elem_group[i - 1], "tile %d: groups out of order", k);
      for (int i2 = t->elem_ptr[k]; i2 < i; i2++) /* same group: no shared node */
        if (t->elem_group[i2] == t->elem_group[i])
          for (int A = 0; A < npe; A++)
            for (int B = 0; B < npe; B++)
              CHECK(pb->conn[pb->elem_ptr[t->elems[i2]] + A] != cn[B], "tile %d: elements %d and %d of one group share a node",
                    k, t->elems[i2], e);
      for (int p = 0; p < pairs; p++) {
        int s = t->pair_slot[(size_t)i * pairs + p], A = p / npe, B = p % npe;
        CHECK(s < ns, "slot %d out of range %d", s, ns);
        CHECK(t->slot_node[s0 + s] == cn[A] && t->slot_pos[s0 + s] == pos[p],
              "element %d pair (%d,%d): slot (%d,%d), expected (%d,%d)", e, A, B, t->slot_node[s0 + s],
              t->slot_pos[s0 + s], cn[A], pos[p]);
        for (int ij = 0; ij < dpn * dpn; ij++) {
          /* a made-up element matrix entry, the same for both assemblies */
          double v = sin(1.0 + e * 0.37 + p * 1.3 + ij * 0.11);
          int i1 = ij / dpn, j1 = ij % dpn;
          direct[dt_problem_csr_index(pb, cn[A], i1, cn[B], j1)] += v;
          acc[(size_t)s * dpn * dpn + ij] += v; /* groups in order: the kernel's order */
        }
      }
    }
    for (int s = 0; s < ns; s++) {
      int node = t->slot_node[s0 + s], pos = t->slot_pos[s0 + s];
      int64_t b = pb->row_ptr[node * dpn] / (dpn * dpn) + pos;
      if (t->slot_first[s0 + s]) first_count[b]++;
      if (tile_color[k] < min_color[b]) min_color[b] = tile_color[k];
      CHECK(!t->slot_first[s0 + s] || first_count[b] == 1, "block %lld stored twice", (long long)b);
      CHECK(t->slot_first[s0 + s] || first_count[b] == 1, "block %lld added to before it was stored",
            (long long)b);
      for (int i = 0; i < dpn; i++)
        for (int j = 0; j < dpn; j++) {
          int64_t v = pb->row_ptr[node * dpn + i] + (int64_t)pos * dpn + j;
          double x = acc[(size_t)s * dpn * dpn + i * dpn + j];
          tiled[v] = t->slot_first[s0 + s] ? x : tiled[v] + x;
        }
    }
  }
  for (int e = 0; e < pb->n_elems; e++) CHECK(seen[e] == 1, "element %d in no tile", e);
  for (int64_t b = 0; b < n_blocks; b++) CHECK(first_count[b] == 1, "block %lld: %d first writers", (long long)b, first_count[b]);
  {
    double err = 0.0, ref = 0.0;
    for (int64_t v = 0; v < pb->nnz; v++) {
      err = fmax(err, fabs(tiled[v] - direct[v]));
      ref = fmax(ref, fabs(direct[v]));
    }
    CHECK(err <= 1e-13 * ref, "tiled assembly differs from direct scatter: %.3e of %.3e", err, ref);
  }
  free(seen);
  free(node_tile);
  free(tile_color);
  free(first_count);
  free(min_color);
  free(direct);
  free(tiled);
  free(acc);
}

int main(void) {
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_tiles *t = NULL;
  dt_model *m = unit_box(9, 7, 5, 0);
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_problem_create(m, &pb, &ctx) == DT_OK, "%s", ctx.msg);

  /* the CUDA backend's hex8 setting: cells of 27 elements */
  CHECK(dt_tiles_build(pb, 27, 28, 1400, &t, &ctx) == DT_OK, "%s", ctx.msg);
  check_tiles(pb, t, 28, 1400);
  CHECK(t->n_tiles >= 9 * 7 * 5 / 27 && t->n_tiles <= 9 * 7 * 5 / 4, "%d tiles for 315 elements", t->n_tiles);
  printf("27-element cells: %d tiles in %d colours, up to %d elements and %d slots\n", t->n_tiles,
         t->n_colors, t->max_elems, t->max_slots);
  dt_tiles_destroy(&t);
  CHECK(t == NULL, "destroy clears the handle");

  /* tight limits force cells to be split */
  CHECK(dt_tiles_build(pb, 64, 5, 100, &t, &ctx) == DT_OK, "%s", ctx.msg);
  check_tiles(pb, t, 5, 100);
  dt_tiles_destroy(&t);

  /* a slot limit below one element's pairs cannot be met: a clear error */
  CHECK(dt_tiles_build(pb, 27, 28, 63, &t, &ctx) != DT_OK && t == NULL, "63 slots < 64 pairs accepted");
  CHECK(strstr(ctx.msg, "bad limits") != NULL, "message: %s", ctx.msg);

  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
  return 0;
}
