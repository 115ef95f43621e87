/* An explicit problem split into parts (ho_explicit_parts.h). */
#include "highorder/ho_explicit_parts.h"

#include <string.h>

#include "highorder/ho_elastic.h"

dt_status dt_ho_explicit_parts_build(const dt_ho_mesh *m, int nparts, double E, double nu,
                                     const double *mass, const double *f,
                                     const unsigned char *fixed, int n_watch, const int *watch,
                                     dt_ho_explicit_parts *xp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double lambda, mu;
  const double zero[3] = {0, 0, 0};
  memset(xp, 0, sizeof(*xp));
  for (int w = 0; w < n_watch; w++)
    DT_CHECK(watch[w] >= 0 && watch[w] < 3 * m->n_nodes, ctx, DT_ERR_INPUT,
             "watched DOF %d is outside 0..%d", watch[w], 3 * m->n_nodes - 1);
  dt_ho_lame(E, nu, &lambda, &mu);
  /* no predicate: the mask comes from the global fixed DOFs below (the parts' PCG load and
   * diagonal, which the mask would scale, are not used by a time loop) */
  DT_TRY(dt_ho_parts_build(m, nparts, lambda, mu, zero, NULL, NULL, &xp->parts, ctx));
  xp->n_watch = n_watch;
  DT_ALLOC(xp->mass, nparts, ctx, "part masses");
  DT_ALLOC(xp->f, nparts, ctx, "part loads");
  if (n_watch > 0) {
    DT_ALLOC(xp->watch_part, n_watch, ctx, "watched DOFs");
    DT_ALLOC(xp->watch_dof, n_watch, ctx, "watched DOFs");
  }
  for (int w = 0; w < n_watch; w++) xp->watch_part[w] = xp->watch_dof[w] = -1;
  for (int s = 0; s < nparts; s++) {
    const dt_part_local *l = &xp->parts.parts[s];
    DT_ALLOC(xp->mass[s], l->n_nodes, ctx, "part mass");
    DT_ALLOC(xp->f[s], 3 * (size_t)l->n_nodes, ctx, "part load");
    dt_part_local_gather(l, 1, mass, xp->mass[s]);
    dt_part_local_gather(l, 3, f, xp->f[s]);
    for (int i = 0; i < l->n_nodes; i++)
      for (int c = 0; c < 3; c++)
        xp->parts.fre[s][3 * i + c] = fixed && fixed[3 * (size_t)l->node_global[i] + c] ? 0.0 : 1.0;
    for (int i = 0; i < l->n_owned; i++)
      for (int w = 0; w < n_watch; w++)
        if (l->node_global[i] == watch[w] / 3)
          xp->watch_part[w] = s, xp->watch_dof[w] = 3 * i + watch[w] % 3;
  }
  for (int w = 0; w < n_watch; w++)
    DT_CHECK(xp->watch_part[w] >= 0, ctx, DT_ERR_INTERNAL, "no part owns the watched node %d",
             watch[w] / 3);
cleanup:
  return rc;
}

void dt_ho_explicit_parts_free(dt_ho_explicit_parts *xp) {
  if (!xp) return;
  for (int s = 0; s < xp->parts.nparts; s++) {
    if (xp->mass) dt_free(xp->mass[s]);
    if (xp->f) dt_free(xp->f[s]);
  }
  dt_free(xp->mass);
  dt_free(xp->f);
  dt_free(xp->watch_part);
  dt_free(xp->watch_dof);
  dt_ho_parts_free(&xp->parts);
  memset(xp, 0, sizeof(*xp));
}
