/* The matrix-free operator of the CPU backend (linear.operator "matrix_free").
 *
 * Instead of assembling K, the tangent keeps element matrices (element_matrix.h): an element
 * with a class (problem_classes.c) and no plastic point in the last stress update uses its
 * class's elastic matrix; every other element gets its own, computed by the same element code
 * as the assembled tangent and stored in a slot (slots in element order, so the store holds
 * only the elements that need one: [Kiran2023, Ch. 5]'s plastic set). y = K x is then
 * sum_e K_e x_e, summed node by node (dt_cpu_mf_apply), in the same order for any number of
 * threads. Dirichlet rows and columns are identity, as in the assembled tangent: x is read as
 * zero on constrained DOFs and y there is x. The preconditioners need the nodes' diagonal
 * blocks and the two-level coarse matrix, summed from the element matrices node by node. */
#include "element/element_matrix.h"
#include "cpu_internal.h"

const double *dt_cpu_mf_element_matrix(const dt_cpu *c, int e) {
  const dt_problem *pb = &c->pb;
  int s = c->emat_slot[e];
  return s >= 0 ? c->emat + (size_t)s * pb->emat_doubles
                : pb->class_K + (size_t)pb->elem_class[e] * pb->emat_doubles;
}

/* Slots for the elements that need their own matrix (no class, or plastic in a material whose
 * tangent changes when it yields); the store grows by half again when it is too small (it
 * never shrinks within a job). */
static dt_status assign_slots(dt_cpu *c, dt_ctx *ctx) {
  const dt_problem *pb = &c->pb;
  long n = 0;
  for (int e = 0; e < pb->n_elems; e++) {
    int own = pb->elem_class[e] < 0 ||
              (c->elem_plastic[e] && !dt_material_tangent_is_elastic(&pb->mats[pb->elem_mat[e]]));
    c->emat_slot[e] = own ? (int)n++ : -1;
  }
  c->n_own = n;
  if (n <= c->emat_cap) return DT_OK;
  long cap = c->emat_cap + c->emat_cap / 2 > n ? c->emat_cap + c->emat_cap / 2 : n;
  if (cap > pb->n_elems) cap = pb->n_elems;
  dt_free(c->emat);
  c->emat = dt_malloc(sizeof(double) * (size_t)cap * pb->emat_doubles);
  c->emat_cap = c->emat ? cap : 0;
  if (!c->emat)
    return DT_ERROR(ctx, DT_ERR_NOMEM,
                    "out of memory for %ld element matrices of the matrix-free operator (%.1f MB)",
                    cap, 8e-6 * (double)cap * pb->emat_doubles);
  return DT_OK;
}

/* Each node's diagonal block, summed over its incidences (elements ascending: the same order
 * for any number of threads, and the CUDA backend's k_mf_diag), constrained DOFs' rows and
 * columns identity. */
static void diagonal_blocks(dt_cpu *c) {
  const dt_problem *pb = &c->pb;
  const double *con = c->vec[DT_VEC_CON];
  int dpn = pb->dpn, d2 = dpn * dpn;
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int a = 0; a < pb->n_nodes; a++) {
    double *blk = c->mf_diag + (size_t)a * d2;
    for (int i = 0; i < d2; i++) blk[i] = 0.0;
    for (int k = pb->node_elem_ptr[a]; k < pb->node_elem_ptr[a + 1]; k++) {
      int e = pb->node_elem[k], npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e];
      dt_emat_diag_add(npe, dpn, dt_cpu_mf_element_matrix(c, e), 1,
                       pb->node_inc[k] - pb->elem_ptr[e], blk);
    }
    dt_emat_diag_dirichlet(dpn, con + (size_t)a * dpn, blk);
  }
}

dt_status dt_cpu_mf_assemble(dt_cpu *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_problem *pb = &c->pb;
  const double *uv = c->vec[DT_VEC_UT];
  dt_qp_arrays qa = {c->hist_c, NULL, NULL, NULL, pb->n_qp, pb->qp_eps0};
  int n_failed = 0;
  DT_TRY(assign_slots(c, ctx));
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : n_failed) if (pb->n_elems > DT_OMP_MIN_ELEMS)
  for (int e = 0; e < pb->n_elems; e++) {
    double fe[DT_ELEM_MAX_DOF], Ke[DT_ELEM_MAX_DOF * DT_ELEM_MAX_DOF];
    if (c->emat_slot[e] < 0) continue;
    if (dt_cpu_element_residual(c, e, uv, &qa, fe, Ke) < 0) {
      n_failed++;
      continue;
    }
    dt_emat_pack(pb->elem_ptr[e + 1] - pb->elem_ptr[e], pb->dpn, Ke,
                 c->emat + (size_t)c->emat_slot[e] * pb->emat_doubles);
  }
  DT_CHECK(n_failed == 0, ctx, DT_ERR_INTERNAL, "tangent at a failed material point");
  diagonal_blocks(c);
cleanup:
  return rc;
}

/* y = K x in two passes, as the CUDA backend does: each element's K_e x_e, elements in order
 * (the store is read front to back, no colours, no barriers between them), stored per
 * incidence; then each DOF sums its node's incidences, elements ascending (the CUDA backend's
 * order, so both backends add the same numbers in the same order). Constrained DOFs: x is read
 * as zero there, and y there is x (the identity rows). */
void dt_cpu_mf_apply(dt_cpu *c, const double *x, double *y) {
  const dt_problem *pb = &c->pb;
  const double *free_dof = c->vec[DT_VEC_FREE];
  int dpn = pb->dpn;
#pragma omp parallel for schedule(static) if (pb->n_elems > DT_OMP_MIN_ELEMS)
  for (int e = 0; e < pb->n_elems; e++) {
    int first = pb->elem_ptr[e], npe = pb->elem_ptr[e + 1] - first;
    const int *cn = pb->conn + first;
    const double *K = dt_cpu_mf_element_matrix(c, e);
    double xe[DT_ELEM_MAX_DOF], *ye = c->mf_inc + (size_t)first * dpn;
    for (int A = 0; A < npe; A++)
      for (int i = 0; i < dpn; i++)
        xe[A * dpn + i] = free_dof[cn[A] * dpn + i] != 0.0 ? x[cn[A] * dpn + i] : 0.0;
    if (npe == 8 && dpn == 3)
      dt_emat_apply(8, 3, K, 1, xe, ye); /* constants: unrolled, 1.7x faster (hex8, 24^3 cube) */
    else if (npe == 4 && dpn == 2)
      dt_emat_apply(4, 2, K, 1, xe, ye);
    else
      dt_emat_apply(npe, dpn, K, 1, xe, ye);
  }
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int a = 0; a < pb->n_nodes; a++)
    for (int i = 0; i < dpn; i++) {
      int d = a * dpn + i;
      double s = 0.0;
      for (int k = pb->node_elem_ptr[a]; k < pb->node_elem_ptr[a + 1]; k++)
        s += c->mf_inc[(size_t)pb->node_inc[k] * dpn + i];
      y[d] = free_dof[d] != 0.0 ? s : x[d];
    }
}

/* Host bytes of the operator beyond the vectors and state: the store's worst case (every
 * element plastic; it starts with the elements without a class and grows), the slots and
 * flags, the diagonal blocks, the node incidences, the products per incidence. */
double dt_cpu_mf_bytes(const dt_problem *pb) {
  return 8.0 * ((double)pb->n_elems * pb->emat_doubles + (double)pb->n_nodes * pb->dpn * pb->dpn) +
         5.0 * pb->n_elems +
         4.0 * (pb->n_nodes + 1.0 + 2.0 * pb->elem_ptr[pb->n_elems]) /* and the node incidences */
         + 8.0 * (double)pb->elem_ptr[pb->n_elems] * pb->dpn; /* the products per incidence */
}
