/* An explicit problem given by its global lumped mass, load and fixed DOFs split into parts for
 * a time loop on several devices (cuda_entry.h's dt_cuda_multi_explicit): the parts of
 * ho_parts.h with each part's Dirichlet mask, mass and load gathered from the global arrays,
 * and the part and local DOF of each watched global DOF. Shared by the cantilever
 * (ho_explicit_beam.h) and the Gmsh problems (ho_explicit_msh.h). */
#ifndef DT_HO_EXPLICIT_PARTS_H
#define DT_HO_EXPLICIT_PARTS_H

#include "core/dt_status.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_parts.h"

typedef struct dt_ho_explicit_parts {
  dt_ho_parts parts;  /* parts.fre[s]: 0 on the fixed DOFs, 1 elsewhere */
  double **mass, **f; /* nparts each: lumped mass per local node, load per local DOF */
  int n_watch;
  int *watch_part, *watch_dof; /* n_watch each: the part owning the node, the local DOF */
} dt_ho_explicit_parts;

/* Splits mesh m (material E, nu) into nparts METIS parts with the global lumped mass `mass` (per
 * node), load f (per DOF, 3 per node) and fixed (per DOF, nonzero = prescribed; NULL: none),
 * and finds the n_watch global DOFs `watch`. Errors: those of dt_ho_parts_build; DT_ERR_INPUT
 * for a watched DOF outside the mesh; DT_ERR_NOMEM. Release with dt_ho_explicit_parts_free
 * (also after an error). */
dt_status dt_ho_explicit_parts_build(const dt_ho_mesh *m, int nparts, double E, double nu,
                                     const double *mass, const double *f,
                                     const unsigned char *fixed, int n_watch, const int *watch,
                                     dt_ho_explicit_parts *xp, dt_ctx *ctx);
void dt_ho_explicit_parts_free(dt_ho_explicit_parts *xp);

#endif
