/* What an elasticity operator holds, for job logs and benchmarks (STYLE.md §14). */
#include <stdio.h>

#include "highorder/ho_elastic.h"

void dt_ho_elastic_view(const dt_ho_elastic *op, FILE *f) {
  int nq3 = op->nq * op->nq * op->nq, lo = op->n_elems, hi = 0;
  double flops, bytes;
  for (int c = 0; c < op->n_colors; c++) {
    int n = op->color_ptr[c + 1] - op->color_ptr[c];
    lo = n < lo ? n : lo;
    hi = n > hi ? n : hi;
  }
  dt_ho_elastic_cost(op, &flops, &bytes);
  fprintf(f, "ho_elastic: order %d, %d^3 Gauss points, %d elements, %d nodes (%d DOFs)\n",
          op->order, op->nq, op->n_elems, op->n_nodes, 3 * op->n_nodes);
  fprintf(f, "  qdata: %d doubles per point, %.1f MB\n", DT_HO_QDATA_SIZE,
          8.0 * DT_HO_QDATA_SIZE * nq3 * op->n_elems / 1e6);
  fprintf(f, "  colours: %d (%d to %d elements each), threads from %d points per colour\n",
          op->n_colors, lo, hi, DT_HO_PARALLEL_POINTS);
  fprintf(f, "  apply: %.3g flops, %.3g bytes\n", flops, bytes);
}
