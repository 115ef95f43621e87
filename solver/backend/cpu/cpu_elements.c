/* Element loops of the CPU backend: stress update with internal force, and tangent assembly
 * straight into the CSR values through the per-element positions. Both run colour by colour,
 * with the elements of one colour in parallel: they share no node, so the scatters are
 * race-free and the sums happen in the same order for any number of threads. */
#include <string.h>

#include "element/element_kernel.h"
#include "cpu_internal.h"

/* Coordinates and displacements of element e in element order. */
static void gather(const dt_problem *pb, int e, const double *u, double *X, double *ue) {
  const int *c = pb->conn + pb->elem_ptr[e];
  int npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e], dpn = pb->dpn;
  for (int a = 0; a < npe; a++) {
    for (int k = 0; k < 3; k++) X[a * 3 + k] = pb->x[c[a] * 3 + k];
    for (int i = 0; i < dpn; i++) ue[a * dpn + i] = u[c[a] * dpn + i];
  }
}

int dt_cpu_element_residual(dt_cpu *c, int e, const double *u, dt_qp_arrays *qa, double *fe,
                            double *Ke) {
  const dt_problem *pb = &c->pb;
  double X[DT_ELEM_MAX_NODES * 3], ue[DT_ELEM_MAX_DOF];
  gather(pb, e, u, X, ue);
  return dt_element_residual(pb->elem_type[e], X, ue, &pb->mats[pb->elem_mat[e]], pb->elem_state[e],
                             pb->elem_bbar[e], pb->elem_thick[e], qa, pb->qp_ptr[e], fe, Ke);
}

dt_status dt_cpu_stress_update(void *impl, dt_vec_id u, dt_vec_id fint, dt_stress_report *rep,
                               dt_ctx *ctx) {
  dt_cpu *c = impl;
  const dt_problem *pb = &c->pb;
  const double *uv = c->vec[u];
  double *f = c->vec[fint];
  dt_qp_arrays qa = {c->hist_c, c->hist_t, c->sig_t, c->eps_t, pb->n_qp, pb->qp_eps0};
  int n_plastic = 0, n_failed = 0, first_failed = -1;
  memset(f, 0, sizeof(double) * pb->n_dofs);
  for (int col = 0; col < pb->n_colors; col++) {
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : n_plastic, n_failed) \
    if (pb->color_ptr[col + 1] - pb->color_ptr[col] > DT_OMP_MIN_ELEMS)
    for (int k = pb->color_ptr[col]; k < pb->color_ptr[col + 1]; k++) {
      int e = pb->color_elems[k], dpn = pb->dpn;
      const int *cn = pb->conn + pb->elem_ptr[e];
      double fe[DT_ELEM_MAX_DOF];
      int r = dt_cpu_element_residual(c, e, uv, &qa, fe, NULL);
      if (r < 0) {
        n_failed++;
#pragma omp critical(dt_first_failed)
        if (first_failed < 0 || e < first_failed) first_failed = e;
        continue;
      }
      n_plastic += r;
      if (c->elem_plastic) c->elem_plastic[e] = r > 0;
      for (int a = 0; a < pb->elem_ptr[e + 1] - pb->elem_ptr[e]; a++)
        for (int i = 0; i < dpn; i++) f[cn[a] * dpn + i] += fe[a * dpn + i];
    }
  }
  rep->n_plastic = n_plastic;
  rep->n_failed = n_failed;
  rep->first_failed_elem = first_failed;
  return DT_OK;
}

/* K values: vals[row_ptr[dpn*nA + a] + dpn*pos[A][B] + b] += Ke[(A dpn + a), (B dpn + b)] */
static void scatter_tangent(const dt_problem *pb, int e, const double *Ke, double *val) {
  const int *cn = pb->conn + pb->elem_ptr[e];
  const int *pos = pb->elem_pos + pb->elem_pos_ptr[e];
  int npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e], dpn = pb->dpn, nde = npe * dpn;
  for (int A = 0; A < npe; A++)
    for (int a = 0; a < dpn; a++) {
      int row = pb->row_ptr[cn[A] * dpn + a];
      const double *krow = Ke + (A * dpn + a) * nde;
      for (int B = 0; B < npe; B++)
        for (int b = 0; b < dpn; b++) val[row + pos[A * npe + B] * dpn + b] += krow[B * dpn + b];
    }
}

/* Dirichlet rows and columns become identity: the correction there is zero because the
 * prescribed value is already in the increment, so no right-hand-side change is needed. */
static void apply_dirichlet(const dt_problem *pb, const double *con, double *val) {
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int row = 0; row < pb->n_dofs; row++)
    for (int k = pb->row_ptr[row]; k < pb->row_ptr[row + 1]; k++)
      if (con[row] != 0.0 || con[pb->col[k]] != 0.0) val[k] = pb->col[k] == row ? 1.0 : 0.0;
}

dt_status dt_cpu_tangent_assemble(void *impl, dt_ctx *ctx) {
  dt_cpu *c = impl;
  const dt_problem *pb = &c->pb;
  c->tangent_serial++;
  if (pb->matrix_free) return dt_cpu_mf_assemble(c, ctx);
  const double *uv = c->vec[DT_VEC_UT];
  /* Only the tangent is needed: the trial state was written by the last stress update. */
  dt_qp_arrays qa = {c->hist_c, NULL, NULL, NULL, pb->n_qp, pb->qp_eps0};
  int n_failed = 0;
  memset(c->val, 0, sizeof(double) * pb->nnz);
  for (int col = 0; col < pb->n_colors; col++) {
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : n_failed) \
    if (pb->color_ptr[col + 1] - pb->color_ptr[col] > DT_OMP_MIN_ELEMS)
    for (int k = pb->color_ptr[col]; k < pb->color_ptr[col + 1]; k++) {
      int e = pb->color_elems[k];
      double fe[DT_ELEM_MAX_DOF], Ke[DT_ELEM_MAX_DOF * DT_ELEM_MAX_DOF];
      if (dt_cpu_element_residual(c, e, uv, &qa, fe, Ke) < 0) {
        n_failed++;
        continue;
      }
      scatter_tangent(pb, e, Ke, c->val);
    }
  }
  apply_dirichlet(pb, c->vec[DT_VEC_CON], c->val);
  if (n_failed) return DT_ERROR(ctx, DT_ERR_INTERNAL, "tangent at a failed material point");
  return DT_OK;
}
