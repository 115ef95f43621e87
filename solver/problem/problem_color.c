/* Greedy element colouring: no two elements of one colour share a node, so element kernels
 * of one colour can scatter into global vectors and CSR values without atomics or races.
 *
 * Elements are visited in order; each takes the smallest colour not used by any element
 * already coloured that shares one of its nodes. A per-node bit set of used colours (64
 * colours per word, grown on demand) keeps this O(sum npe * words). Structured hex meshes get
 * 8 colours; unstructured tet meshes typically 20-40. */
#include <stdint.h>
#include <string.h>

#include "problem.h"

dt_status dt_problem_build_colors(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int words = 1, n_colors = 0;
  uint64_t *used = NULL;
  int *color = NULL, *fill = NULL;
  DT_ALLOC(color, pb->n_elems, ctx, "element colours");
  DT_ALLOC(used, (size_t)pb->n_nodes * words, ctx, "colour marks");
  for (int e = 0; e < pb->n_elems; e++) {
    int c = -1;
    for (int w = 0; w < words && c < 0; w++) {
      uint64_t taken = 0;
      for (int k = pb->elem_ptr[e]; k < pb->elem_ptr[e + 1]; k++)
        taken |= used[(size_t)pb->conn[k] * words + w];
      if (~taken) c = w * 64 + __builtin_ctzll(~taken);
    }
    if (c < 0) { /* all colours in use around this element: grow the bit sets by a word */
      uint64_t *grown = NULL;
      DT_ALLOC(grown, (size_t)pb->n_nodes * (words + 1), ctx, "colour marks");
      for (int i = 0; i < pb->n_nodes; i++)
        memcpy(grown + (size_t)i * (words + 1), used + (size_t)i * words, sizeof(uint64_t) * words);
      dt_free(used);
      used = grown;
      c = words * 64;
      words++;
    }
    color[e] = c;
    if (c + 1 > n_colors) n_colors = c + 1;
    for (int k = pb->elem_ptr[e]; k < pb->elem_ptr[e + 1]; k++)
      used[(size_t)pb->conn[k] * words + c / 64] |= 1ull << (c % 64);
  }
  pb->n_colors = n_colors;
  DT_ALLOC(pb->color_ptr, n_colors + 1, ctx, "colour offsets");
  DT_ALLOC(pb->color_elems, pb->n_elems, ctx, "colour lists");
  DT_ALLOC(fill, n_colors, ctx, "colour fill");
  for (int e = 0; e < pb->n_elems; e++) pb->color_ptr[color[e] + 1]++;
  for (int c = 0; c < n_colors; c++) pb->color_ptr[c + 1] += pb->color_ptr[c];
  for (int e = 0; e < pb->n_elems; e++)
    pb->color_elems[pb->color_ptr[color[e]] + fill[color[e]]++] = e;
cleanup:
  dt_free(used);
  dt_free(color);
  dt_free(fill);
  return rc;
}
