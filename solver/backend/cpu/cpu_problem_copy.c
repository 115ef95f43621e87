/* The CPU backend's own copy of the problem arrays (the caller may free its problem after
 * upload, as with a device backend). */
#include <string.h>

#include "problem/coarse_space.h"
#include "cpu_internal.h"

static void *dup_bytes(const void *src, size_t n) {
  void *p = dt_malloc(n ? n : 1);
  if (p && n) memcpy(p, src, n);
  return p;
}

#define DUP(field, count)                                                                          \
  do {                                                                                             \
    dst->field = dup_bytes(src->field, sizeof(*src->field) * (size_t)(count));                     \
    DT_CHECK(dst->field != NULL, ctx, DT_ERR_NOMEM, "out of memory copying %s", #field);           \
  } while (0)

dt_status dt_cpu_problem_copy(const dt_problem *src, dt_problem *dst, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int ne = src->n_elems;
  memset(dst, 0, sizeof *dst);
  dst->dim = src->dim;
  dst->dpn = src->dpn;
  dst->n_nodes = src->n_nodes;
  dst->n_dofs = src->n_dofs;
  dst->n_elems = ne;
  dst->n_qp = src->n_qp;
  dst->f0_norm = src->f0_norm;
  dst->max_npe = src->max_npe;
  dst->n_mats = src->n_mats;
  dst->nnz = src->nnz;
  dst->n_colors = src->n_colors;
  DUP(x, 3 * src->n_nodes);
  DUP(elem_type, ne);
  DUP(elem_ptr, ne + 1);
  DUP(conn, src->elem_ptr[ne]);
  DUP(elem_mat, ne);
  DUP(elem_state, ne);
  DUP(elem_bbar, ne);
  DUP(elem_thick, ne);
  DUP(qp_ptr, ne + 1);
  if (src->qp_eps0) DUP(qp_eps0, 6 * (size_t)src->n_qp); /* initial eigenstrains */
  DUP(mats, src->n_mats);
  DUP(elem_pos_ptr, ne + 1);
  if (src->matrix_free) { /* element matrices: no pattern, positions or assembled values */
    dst->matrix_free = 1;
    dst->emat_doubles = src->emat_doubles;
    dst->n_classes = src->n_classes;
    DUP(elem_class, ne);
    DUP(class_K, (size_t)(src->n_classes ? src->n_classes : 1) * src->emat_doubles);
    DUP(node_elem_ptr, src->n_nodes + 1); /* each node's incidences: its diagonal block */
    DUP(node_elem, src->elem_ptr[ne]);
    DUP(node_inc, src->elem_ptr[ne]);
  } else {
    DT_TRY(dt_problem_csr(src, &dst->row_ptr, &dst->col, ctx));
    DT_TRY(dt_problem_positions(src, &dst->elem_pos, ctx));
  }
  DUP(color_ptr, src->n_colors + 1);
  DUP(color_elems, ne);
  dst->n_sub = src->n_sub;
  dst->n_modes = src->n_modes;
  if (src->n_sub > 0) { /* the two-level preconditioner's boxes */
    int64_t items = src->item_ptr[src->n_nodes];
    DUP(sub_ptr, src->n_sub + 1);
    DUP(sub_nodes, src->n_nodes);
    DUP(node_sub, src->n_nodes);
    DUP(node_d, 3 * (size_t)src->n_nodes);
    DUP(sub_nbr_ptr, src->n_sub + 1);
    DUP(sub_nbr, src->sub_nbr_ptr[src->n_sub]);
    DUP(item_ptr, src->n_nodes + 1);
    DUP(item_sub, items);
    DUP(item_local, items);
    DUP(grp_ptr, src->sub_nbr_ptr[src->n_sub] + 1);
    DUP(grp_item, items);
  }
  DT_TRY(dt_problem_copy_mpc(src, dst, ctx));
cleanup:
  return rc;
}

void dt_cpu_problem_free(dt_problem *pb) {
  dt_free((void *)pb->x);
  dt_free((void *)pb->elem_type);
  dt_free((void *)pb->elem_ptr);
  dt_free((void *)pb->conn);
  dt_free(pb->elem_mat);
  dt_free(pb->elem_state);
  dt_free(pb->elem_bbar);
  dt_free(pb->elem_thick);
  dt_free(pb->qp_ptr);
  dt_free(pb->qp_eps0);
  dt_free(pb->mats);
  dt_free(pb->row_ptr);
  dt_free(pb->col);
  dt_free(pb->elem_pos_ptr);
  dt_free(pb->elem_pos);
  dt_free(pb->color_ptr);
  dt_free(pb->color_elems);
  dt_free(pb->elem_class);
  dt_free(pb->class_K);
  dt_free(pb->node_elem_ptr);
  dt_free(pb->node_elem);
  dt_free(pb->node_inc);
  dt_coarse_space_free(pb);
  dt_problem_free_mpc(pb);
  memset(pb, 0, sizeof *pb);
}
