/* Node vectors between the global numbering and a part's local one (partition.h): what a run
 * on several GPUs uses to hand each device its share of coordinates, loads and boundary
 * values, and to collect the results. */
#include <string.h>

#include "partition.h"

void dt_part_local_gather(const dt_part_local *l, int ncomp, const double *global, double *local) {
  for (int i = 0; i < l->n_nodes; i++)
    memcpy(&local[(size_t)i * ncomp], &global[(size_t)l->node_global[i] * ncomp],
           (size_t)ncomp * sizeof *local);
}

void dt_part_local_scatter_owned(const dt_part_local *l, int ncomp, const double *local,
                                 double *global) {
  for (int i = 0; i < l->n_owned; i++)
    memcpy(&global[(size_t)l->node_global[i] * ncomp], &local[(size_t)i * ncomp],
           (size_t)ncomp * sizeof *global);
}
