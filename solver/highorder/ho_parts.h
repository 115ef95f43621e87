/* An order-P elasticity problem split into parts for several GPUs (docs/multi-gpu.md): METIS
 * parts of the element dual graph (solver/partition/), each part's mesh, operator, load,
 * inverse diagonal and Dirichlet mask in its local numbering, all consistent on the ghosts.
 *
 * The dual graph is built from the elements' 8 corner nodes (two hexahedra share a face, an
 * edge or a corner exactly when they share corners), the local numbering and halo lists from
 * all (P+1)^3 nodes. Loads and diagonals are computed per part from the part's own elements and
 * made consistent by one sum exchange (the host transport): no part ever needs the global
 * operator. */
#ifndef DT_HO_PARTS_H
#define DT_HO_PARTS_H

#include "core/dt_status.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "partition/partition.h"

/* Fixed DOFs: a predicate on a node's coordinates (all three components fixed). */
typedef int (*dt_ho_fixed_fn)(const double x[3], void *user);

typedef struct dt_ho_parts {
  int nparts;
  int *part;                 /* element -> part */
  dt_partition_report rep;   /* what METIS achieved */
  dt_part_local *parts;      /* nparts local views */
  dt_ho_mesh *meshes;        /* each part's mesh: its connectivity is parts[s].conn (borrowed) */
  dt_ho_elastic *ops;        /* each part's operator */
  double **b, **dinv, **fre; /* per part, 3 per local node */
} dt_ho_parts;

/* Splits m (Lame parameters lambda, mu everywhere, body force density `body`, nodes where
 * fixed() is true clamped) into nparts parts. Errors: those of dt_partition_elements and
 * dt_ho_elastic_setup, DT_ERR_INPUT when a part is empty, DT_ERR_NOMEM. Free with
 * dt_ho_parts_free (also after a failure). */
dt_status dt_ho_parts_build(const dt_ho_mesh *m, int nparts, double lambda, double mu,
                            const double body[3], dt_ho_fixed_fn fixed, void *user,
                            dt_ho_parts *out, dt_ctx *ctx);
void dt_ho_parts_free(dt_ho_parts *p);
/* global[3 n + c] from the parts' solutions x[s] (owned nodes only; each node once). */
void dt_ho_parts_gather(const dt_ho_parts *p, double *const *x, double *global);

#endif
