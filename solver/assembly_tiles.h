/* Element tiles for assembling the tangent through shared memory (the CUDA backend's
 * tile assembly, cuda/cuda_assembly_tiles.cu).
 *
 * Why: scattering element matrices colour by colour reads and writes every CSR value once per
 * element sharing it (2.3 times on a hex grid), and each colour pass sweeps the whole matrix,
 * so none of it stays in cache. A tile is a small, compact group of elements (a spatial cell of
 * about 27 hex8); one thread block computes all of its element matrices, sums them in shared
 * memory, and writes each CSR block the tile touches once: stored when the tile is the first
 * to write it, added otherwise. Tiles sharing a node get different tile colours (one launch
 * per tile colour), and inside a tile the elements are summed group by group in element-colour
 * order, so every value is summed in the same order on every run (bit-identical results).
 *
 * A slot is one dpn x dpn block of the CSR values that a tile touches: the block of row node
 * `slot_node` at rank `slot_pos` in that node's neighbour list (dt_problem_csr_index). */
#ifndef DT_ASSEMBLY_TILES_H
#define DT_ASSEMBLY_TILES_H

#include <stdint.h>

#include "problem.h"

typedef struct dt_tiles {
  int n_tiles, n_colors;  /* tiles are numbered colour by colour */
  int *color_ptr;         /* n_colors + 1: tiles of colour c are [color_ptr[c], color_ptr[c+1]) */
  int npe;                /* nodes per element (tiles need one element type) */
  int *elem_ptr;          /* n_tiles + 1 offsets into elems */
  int *elems;             /* the elements of each tile, by element colour, then number */
  unsigned char *elem_group; /* per tile element: rank of its element colour within the tile */
  uint16_t *pair_slot;    /* per tile element, npe * npe: local slot of node pair (A, B) */
  int64_t *slot_ptr;      /* n_tiles + 1 offsets into the slot arrays */
  int *slot_node, *slot_pos;
  unsigned char *slot_first; /* 1: first tile (in launch order) to write the block: store */
  int max_elems, max_slots;  /* over all tiles */
  int covers_all;            /* every CSR block is written by some tile */
} dt_tiles;

/* Group the elements of pb (one element type) into tiles of about target_elems elements that
 * are close in space (cells of a uniform grid over the element centroids), none with more than
 * max_elems elements or max_slots slots (larger cells are split in element order). */
dt_status dt_tiles_build(const dt_problem *pb, int target_elems, int max_elems, int max_slots,
                         dt_tiles **out, dt_ctx *ctx);
void dt_tiles_destroy(dt_tiles **t);

#endif
