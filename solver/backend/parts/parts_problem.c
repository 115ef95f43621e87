/* The sub-problem of one part (parts_internal.h): the global problem's per-element data
 * restricted to the part's elements, on its local nodes. Everything an inner backend reads is
 * rebuilt for the part (pattern, colours, element classes), so each part is an ordinary
 * problem and the inner backend needs no notion of parts. */
#include <string.h>

#include "parts_internal.h"

dt_status dt_parts_subproblem(const dt_problem *gp, const dt_part_local *l, dt_problem **out,
                              double **x_out, unsigned char **type_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_problem *pb = NULL;
  double *x = NULL;
  unsigned char *type = NULL;
  *out = NULL;
  *x_out = NULL;
  *type_out = NULL;
  DT_ALLOC(pb, 1, ctx, "part problem");
  DT_ALLOC(x, 3 * (size_t)l->n_nodes, ctx, "part coordinates");
  DT_ALLOC(type, l->n_elems, ctx, "part element types");
  for (int a = 0; a < l->n_nodes; a++)
    memcpy(x + 3 * (size_t)a, gp->x + 3 * (size_t)l->node_global[a], 3 * sizeof(double));
  pb->dim = gp->dim;
  pb->dpn = gp->dpn;
  pb->n_nodes = l->n_nodes;
  pb->n_dofs = l->n_nodes * gp->dpn;
  pb->n_elems = l->n_elems;
  pb->x = x;
  pb->elem_type = type;
  pb->elem_ptr = l->elem_ptr;
  pb->conn = l->conn;
  pb->max_npe = gp->max_npe;
  pb->f0_norm = gp->f0_norm; /* the driver's force floor is the whole model's */
  DT_ALLOC(pb->elem_mat, l->n_elems, ctx, "part element materials");
  DT_ALLOC(pb->elem_state, l->n_elems, ctx, "part element stress states");
  DT_ALLOC(pb->elem_bbar, l->n_elems, ctx, "part element formulations");
  DT_ALLOC(pb->elem_thick, l->n_elems, ctx, "part element thicknesses");
  DT_ALLOC(pb->qp_ptr, l->n_elems + 1, ctx, "part point offsets");
  for (int e = 0; e < l->n_elems; e++) {
    int g = l->elems[e];
    type[e] = gp->elem_type[g];
    pb->elem_mat[e] = gp->elem_mat[g];
    pb->elem_state[e] = gp->elem_state[g];
    pb->elem_bbar[e] = gp->elem_bbar[g];
    pb->elem_thick[e] = gp->elem_thick[g];
    pb->qp_ptr[e + 1] = pb->qp_ptr[e] + (gp->qp_ptr[g + 1] - gp->qp_ptr[g]);
  }
  pb->n_qp = pb->qp_ptr[l->n_elems];
  if (gp->qp_eps0) { /* six components, structure of arrays over the points */
    DT_ALLOC(pb->qp_eps0, 6 * (size_t)pb->n_qp, ctx, "part initial eigenstrains");
    for (int c = 0; c < 6; c++)
      for (int e = 0; e < l->n_elems; e++) {
        int g = l->elems[e], n = gp->qp_ptr[g + 1] - gp->qp_ptr[g];
        memcpy(pb->qp_eps0 + (size_t)c * pb->n_qp + pb->qp_ptr[e],
               gp->qp_eps0 + (size_t)c * gp->n_qp + gp->qp_ptr[g], sizeof(double) * n);
      }
  }
  DT_ALLOC(pb->mats, gp->n_mats, ctx, "part material parameters");
  memcpy(pb->mats, gp->mats, sizeof(*pb->mats) * (size_t)gp->n_mats);
  pb->n_mats = gp->n_mats;
  DT_TRY(dt_problem_build_pattern(pb, ctx));
  DT_TRY(dt_problem_build_colors(pb, ctx));
  if (gp->matrix_free) {
    pb->matrix_free = 1;
    DT_TRY(dt_problem_build_classes(pb, ctx));
  }
  *out = pb;
  *x_out = x;
  *type_out = type;
  pb = NULL;
  x = NULL;
  type = NULL;
cleanup:
  dt_problem_destroy(&pb);
  dt_free(x);
  dt_free(type);
  return rc;
}
