/* The nodal forces of a model's initial stresses and plastic strains at u = 0, as a norm: the
 * scale of Newton's residual while such a body relaxes (newton.c), computed once on the host. */
#include <math.h>
#include <string.h>

#include "element/element_kernel.h"
#include "problem.h"

dt_status dt_problem_initial_force(dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *f = NULL, *hist = NULL, *eps0 = NULL, ss = 0.0;
  pb->f0_norm = 0.0;
  if (!pb->qp_eps0) return DT_OK;
  DT_ALLOC(f, (size_t)pb->n_dofs, ctx, "initial-state forces");
  memset(f, 0, sizeof *f * (size_t)pb->n_dofs);
  DT_ALLOC(hist, (size_t)DT_ELEM_MAX_QP * DT_MAT_STATE_DOUBLES, ctx, "a point state");
  memset(hist, 0, sizeof *hist * (size_t)DT_ELEM_MAX_QP * DT_MAT_STATE_DOUBLES);
  DT_ALLOC(eps0, (size_t)DT_ELEM_MAX_QP * 6, ctx, "an element's eigenstrains");
  for (int e = 0; e < pb->n_elems; e++) {
    const int *c = pb->conn + pb->elem_ptr[e];
    int npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e], dpn = pb->dpn;
    int q0 = pb->qp_ptr[e], nq = pb->qp_ptr[e + 1] - q0;
    double X[DT_ELEM_MAX_NODES * 3], ue[DT_ELEM_MAX_DOF], fe[DT_ELEM_MAX_DOF];
    dt_material_params mat = pb->mats[pb->elem_mat[e]];
    dt_qp_arrays qa = {hist, NULL, NULL, NULL, nq, eps0};
    mat.plastic = DT_PLASTIC_NONE; /* the initial state's own forces, before any return mapping */
    for (int k = 0; k < 6; k++)
      for (int q = 0; q < nq; q++) eps0[k * nq + q] = pb->qp_eps0[(size_t)k * pb->n_qp + q0 + q];
    for (int a = 0; a < npe; a++) {
      for (int k = 0; k < 3; k++) X[a * 3 + k] = pb->x[c[a] * 3 + k];
      for (int i = 0; i < dpn; i++) ue[a * dpn + i] = 0.0;
    }
    dt_element_residual(pb->elem_type[e], X, ue, &mat, pb->elem_state[e], pb->elem_bbar[e],
                        pb->elem_thick[e], &qa, 0, fe, NULL);
    for (int a = 0; a < npe; a++)
      for (int i = 0; i < dpn; i++) f[(size_t)c[a] * dpn + i] += fe[a * dpn + i];
  }
  for (int i = 0; i < pb->n_dofs; i++) ss += f[i] * f[i];
  pb->f0_norm = sqrt(ss);
cleanup:
  dt_free(f);
  dt_free(hist);
  dt_free(eps0);
  return rc;
}
