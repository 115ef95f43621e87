/* Position of a value in a sorted list of ints (binary search), shared by the host (the block
 * positions of problem_pattern.c) and the CUDA kernels (the diagonal block of k_pc_setup, the
 * transposed block of the Dirichlet pass in cuda_linear.cu): the neighbour lists of the
 * tangent's block rows are sorted, and each finds a block in its row this way. */
#ifndef DT_SORTED_RANK_H
#define DT_SORTED_RANK_H

#include "hd.h"

/* Index of b in list[0..n) (ascending), or -1 when b is not there. */
DT_HD static inline int dt_sorted_rank(const int *list, int n, int b) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) >> 1;
    if (list[mid] < b)
      lo = mid + 1;
    else if (list[mid] > b)
      hi = mid - 1;
    else
      return mid;
  }
  return -1;
}

#endif
