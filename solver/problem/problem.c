/* Compiling a model into a problem: per-element section data and integration-point offsets.
 * The CSR pattern and the colouring are built in problem_pattern.c and problem_color.c. */
#include "problem.h"

#include <string.h>

#include "coarse_space.h"
#include "element/element.h"
#include "model/model.h"
#include "model/model_internal.h"

static dt_stress_state section_state(dt_section_kind kind) {
  if (kind == DT_SECTION_PLANE_STRAIN) return DT_STATE_PLANE_STRAIN;
  if (kind == DT_SECTION_PLANE_STRESS) return DT_STATE_PLANE_STRESS;
  if (kind == DT_SECTION_AXISYMMETRIC) return DT_STATE_AXISYMMETRIC;
  return DT_STATE_3D;
}

static dt_status fill_element_data(const dt_model *m, dt_problem *pb, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_ALLOC(pb->elem_mat, m->n_elems, ctx, "element materials");
  DT_ALLOC(pb->elem_state, m->n_elems, ctx, "element stress states");
  DT_ALLOC(pb->elem_bbar, m->n_elems, ctx, "element formulations");
  DT_ALLOC(pb->elem_thick, m->n_elems, ctx, "element thicknesses");
  DT_ALLOC(pb->qp_ptr, m->n_elems + 1, ctx, "integration point offsets");
  for (int e = 0; e < m->n_elems; e++) {
    const dt_section *s = &m->sections[m->elem_section[e]];
    int type = m->elem_type[e];

    pb->elem_mat[e] = s->material;
    pb->elem_state[e] = (unsigned char)section_state(s->kind);
    /* B-bar applies to the elements that lock (hex8, quad4); others keep their standard B. */
    pb->elem_bbar[e] = s->form == DT_FORM_BBAR && (type == DT_ELEM_HEX8 || type == DT_ELEM_QUAD4);
    /* axisymmetric elements weigh by 2 pi r in the element kernel instead */
    pb->elem_thick[e] = (m->dim == 2 && s->kind != DT_SECTION_AXISYMMETRIC && s->thickness > 0)
                            ? s->thickness
                            : 1.0;
    pb->qp_ptr[e + 1] = pb->qp_ptr[e] + dt_elem_nqp(type);
    if (dt_elem_nnodes(type) > pb->max_npe) pb->max_npe = dt_elem_nnodes(type);
  }
  pb->n_qp = pb->qp_ptr[m->n_elems];
  DT_ALLOC(pb->mats, m->n_materials, ctx, "material parameters");
  for (int i = 0; i < m->n_materials; i++) pb->mats[i] = m->materials[i].p;
  pb->n_mats = m->n_materials;
cleanup:
  return rc;
}

int dt_problem_step_materials(const dt_model *m, int step, int *elem_mat) {
  int changed = 0;
  for (int e = 0; e < m->n_elems; e++) elem_mat[e] = m->sections[m->elem_section[e]].material;
  for (int s = 0; s <= step && s < m->n_steps; s++)
    for (int k = 0; k < m->steps[s].n_material_changes; k++) {
      const dt_material_change *c = &m->steps[s].material_changes[k];
      const dt_set *set = &m->elsets[c->elset];
      for (int i = 0; i < set->n; i++) elem_mat[set->items[i]] = c->material;
      changed = 1;
    }
  return changed;
}

/* whole = 0: the outline only (problem.h, dt_problem_create_outline). */
static dt_status create(const dt_model *m, int whole, dt_problem **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_problem *pb = NULL;
  *out = NULL;
  DT_CHECK(m->elem_section != NULL, ctx, DT_ERR_INTERNAL, "dt_model_finish was not called");
  /* explicit steps and shells (the model types after the continuum ones) have no implicit
   * kernels: they run on the explicit driver (solver/explicit/) */
  for (int i = 0; i < m->n_steps; i++)
    DT_CHECK(m->steps[i].procedure == DT_PROC_STATIC, ctx, DT_ERR_INPUT,
             "step %d \"%s\" is explicit: the implicit solver runs static steps only", i + 1,
             m->steps[i].name);
  for (int e = 0; e < m->n_elems; e++)
    DT_CHECK(m->elem_type[e] < DT_ELEM_NCONTINUUM, ctx, DT_ERR_INPUT,
             "element %lld (%s): the implicit solver takes continuum elements only (shells run "
             "in explicit steps)",
             (long long)m->elem_id[e], dt_model_elem_type_name(m->elem_type[e]));
  DT_ALLOC(pb, 1, ctx, "problem");
  pb->dim = m->dim;
  pb->dpn = m->dim;
  pb->n_nodes = m->n_nodes;
  DT_CHECK((int64_t)m->n_nodes * m->dim < INT32_MAX, ctx, DT_ERR_INPUT,
           "the mesh has too many nodes (%d) for 32-bit DOF numbering", m->n_nodes);
  pb->n_dofs = m->n_nodes * m->dim;
  pb->n_elems = m->n_elems;
  pb->x = m->x;
  pb->elem_type = m->elem_type;
  pb->elem_ptr = m->elem_ptr;
  pb->conn = m->conn;
  DT_TRY(fill_element_data(m, pb, ctx));
  DT_TRY(dt_model_initial_eigenstrain(m, pb->qp_ptr, pb->n_qp, &pb->qp_eps0, ctx));
  DT_TRY(dt_problem_initial_force(pb, ctx));
  pb->matrix_free = m->solver.matrix_free;
  if (whole) {
    DT_TRY(dt_problem_build_pattern(pb, ctx));
    DT_TRY(dt_problem_build_colors(pb, ctx));
    if (m->solver.precond == DT_PC_TWO_LEVEL)
      DT_TRY(dt_coarse_space_build(pb, DT_COARSE_NODES_PER_BOX, ctx));
    if (pb->matrix_free) DT_TRY(dt_problem_build_classes(pb, ctx));
  }
  DT_TRY(dt_problem_build_mpc(m, pb, ctx));
  *out = pb;
  pb = NULL;
cleanup:
  dt_problem_destroy(&pb);
  return rc;
}

dt_status dt_problem_create(const dt_model *m, dt_problem **out, dt_ctx *ctx) {
  return create(m, 1, out, ctx);
}

dt_status dt_problem_create_outline(const dt_model *m, dt_problem **out, dt_ctx *ctx) {
  return create(m, 0, out, ctx);
}

void dt_problem_destroy(dt_problem **pbp) {
  dt_problem *pb = pbp ? *pbp : NULL;
  if (!pb) return;
  dt_free(pb->elem_mat);
  dt_free(pb->elem_state);
  dt_free(pb->elem_bbar);
  dt_free(pb->elem_thick);
  dt_free(pb->qp_ptr);
  dt_free(pb->qp_eps0);
  dt_free(pb->mats);
  dt_free(pb->row_ptr);
  dt_free(pb->col);
  dt_free(pb->node_nbr_ptr);
  dt_free(pb->node_nbr);
  dt_free(pb->node_elem_ptr);
  dt_free(pb->node_elem);
  dt_free(pb->node_inc);
  dt_free(pb->elem_pos);
  dt_free(pb->elem_pos_ptr);
  dt_free(pb->color_ptr);
  dt_free(pb->color_elems);
  dt_coarse_space_free(pb);
  dt_free(pb->elem_class);
  dt_free(pb->class_K);
  dt_problem_free_mpc(pb);
  dt_free(pb);
  *pbp = NULL;
}

void dt_problem_view(const dt_problem *pb, FILE *f) {
  int min_c = pb->n_elems, max_c = 0;
  for (int c = 0; c < pb->n_colors; c++) {
    int n = pb->color_ptr[c + 1] - pb->color_ptr[c];
    if (n < min_c) min_c = n;
    if (n > max_c) max_c = n;
  }
  fprintf(f, "problem: %dD, %d nodes, %d DOFs, %d elements, %d integration points\n", pb->dim,
          pb->n_nodes, pb->n_dofs, pb->n_elems, pb->n_qp);
  fprintf(f, "  tangent: CSR %d x %d, %lld nonzeros (%.1f per row)\n", pb->n_dofs, pb->n_dofs,
          (long long)pb->nnz, pb->n_dofs ? (double)pb->nnz / pb->n_dofs : 0.0);
  fprintf(f, "  colouring: %d colours, %d to %d elements per colour\n", pb->n_colors, min_c, max_c);
  if (pb->n_mpc)
    fprintf(f, "  constraints: %d dependent DOFs eliminated, %d independent DOFs in their terms\n",
            pb->n_mpc, pb->n_mpct);
  if (pb->matrix_free)
    fprintf(f,
            "  matrix-free: %d element classes, %ld elements without a class, %d doubles per "
            "element matrix\n",
            pb->n_classes, dt_problem_unclassed(pb), pb->emat_doubles);
}
