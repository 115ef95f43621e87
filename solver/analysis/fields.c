/* Result fields of a converged increment: host copies of displacements, reactions and the
 * integration-point stress, strain and equivalent plastic strain, plus monitors. */
#include "fields.h"

#include <string.h>

#include "element/element.h"
#include "core/host_arrays.h"

/* Each element writes its own points, so the loop runs in parallel and gives the same
 * result for any thread count. The shape functions at the points depend only on the element
 * type, so they are evaluated once per type and point, not per element (on C5, 12 M points,
 * per element they cost 0.1 s of the setup on 16 cores). */
static void qp_coordinates(const dt_model *m, dt_fields *f) {
  double shape[DT_NTYPES][DT_ELEM_MAX_QP][DT_ELEM_MAX_NODES];
  for (int type = 0; type < DT_NTYPES; type++)
    for (int q = 0; q < dt_elem_nqp(type); q++) {
      double dN[DT_ELEM_MAX_NODES * 3], xi[3], w;
      dt_elem_qp(type, q, xi, &w);
      dt_elem_shape(type, xi, shape[type][q], dN);
    }
#pragma omp parallel for schedule(static) shared(shape)
  for (int e = 0; e < m->n_elems; e++) {
    int type = m->elem_type[e];
    for (int q = 0; q < dt_elem_nqp(type); q++) {
      const double *N = shape[type][q];
      double *xq = f->qp_x + 3 * (f->qp_ptr[e] + q);
      xq[0] = xq[1] = xq[2] = 0.0;
      for (int a = 0; a < dt_elem_nnodes(type); a++)
        for (int k = 0; k < 3; k++) xq[k] += N[a] * m->x[3 * m->conn[m->elem_ptr[e] + a] + k];
    }
  }
}

dt_status dt_fields_alloc(const dt_model *m, const dt_problem *pb, dt_fields *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  /* The requested fields (the VTU's, and the daemon's fields JSON), every variable the print
   * requests table (a *EL PRINT of a field no *EL FILE asks for is printed all the same), and
   * the stress and PEEQ whose maxima the summary reports. A printed RF is CalculiX's internal
   * nodal force, which results.dat forms from the point stresses (output_dat.c); ENER and ELSE
   * are formed from the point stresses and strains (output_energy.c). */
  unsigned want = m->output.fields | DT_OUT_S | DT_OUT_PEEQ;
  for (int i = 0; i < m->output.n_prints; i++) {
    want |= m->output.prints[i].fields;
    if (m->output.prints[i].fields & DT_OUT_RF) want |= DT_OUT_S;
    if (m->output.prints[i].fields & (DT_OUT_ENER | DT_OUT_ELSE)) want |= DT_OUT_S | DT_OUT_E;
  }
  memset(f, 0, sizeof *f);
  f->n_nodes = m->n_nodes;
  f->n_elems = m->n_elems;
  f->n_qp = pb->n_qp;
  /* Displacements and reactions are always kept: monitors and the summary need them. */
  DT_ALLOC(f->u, 3 * (size_t)m->n_nodes, ctx, "displacement field");
  DT_ALLOC(f->rf, 3 * (size_t)m->n_nodes, ctx, "reaction field");
  DT_ALLOC(f->qp_ptr, m->n_elems + 1, ctx, "point offsets");
  memcpy(f->qp_ptr, pb->qp_ptr, sizeof(int) * (m->n_elems + 1));
  DT_ALLOC(f->qp_x, 3 * (size_t)pb->n_qp, ctx, "point coordinates");
  if (want & (DT_OUT_S | DT_OUT_MISES))
    DT_ALLOC(f->qp_stress, 6 * (size_t)pb->n_qp, ctx, "stress field");
  if (want & DT_OUT_E) DT_ALLOC(f->qp_strain, 6 * (size_t)pb->n_qp, ctx, "strain field");
  if (want & DT_OUT_PEEQ) DT_ALLOC(f->qp_peeq, pb->n_qp, ctx, "plastic strain field");
  qp_coordinates(m, f);
  /* written once per increment: pages in now, with all threads (host_arrays.h) */
  dt_host_fill(f->u, NULL, 3 * (size_t)m->n_nodes);
  dt_host_fill(f->rf, NULL, 3 * (size_t)m->n_nodes);
  if (f->qp_stress) dt_host_fill(f->qp_stress, NULL, 6 * (size_t)pb->n_qp);
  if (f->qp_strain) dt_host_fill(f->qp_strain, NULL, 6 * (size_t)pb->n_qp);
  if (f->qp_peeq) dt_host_fill(f->qp_peeq, NULL, (size_t)pb->n_qp);
cleanup:
  if (rc != DT_OK) dt_fields_free(f);
  return rc;
}

/* Node-major dpn-vector to 3 components per node. */
static void expand(const double *v, int n_nodes, int dpn, double *out) {
#pragma omp parallel for schedule(static) if (n_nodes > DT_HOST_PARALLEL_MIN / 3)
  for (int a = 0; a < n_nodes; a++)
    for (int k = 0; k < 3; k++) out[3 * a + k] = k < dpn ? v[a * dpn + k] : 0.0;
}

dt_status dt_fields_download(const dt_model *m, const dt_backend_ops *o, void *impl, dt_fields *f,
                             double *scratch, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(o->vec_get(impl, DT_VEC_U, scratch, ctx));
  expand(scratch, m->n_nodes, m->dim, f->u);
  DT_TRY(o->vec_lincomb(impl, DT_VEC_W, 1.0, DT_VEC_FINT, -1.0, DT_VEC_FEXT, ctx));
  DT_TRY(o->vec_mul(impl, DT_VEC_W, DT_VEC_W, DT_VEC_CON, ctx));
  DT_TRY(o->vec_get(impl, DT_VEC_W, scratch, ctx));
  /* a node no element uses is a constrained row of the backends but takes no reaction: the
   * load there passes to the constrained nodes (model_mpc.c) */
  for (int a = 0; m->node_isolated && a < m->n_nodes; a++)
    for (int k = 0; m->node_isolated[a] && k < m->dim; k++) scratch[a * m->dim + k] = 0.0;
  expand(scratch, m->n_nodes, m->dim, f->rf);
  DT_TRY(o->fields_download(impl, m->output.fields, f, ctx));
cleanup:
  return rc;
}

void dt_fields_monitors(const dt_model *m, const dt_fields *f, dt_history_row *row) {
  int n = m->output.n_monitors < DT_MAX_MONITORS ? m->output.n_monitors : DT_MAX_MONITORS;
  row->n_monitors = n;
  for (int i = 0; i < n; i++) {
    const dt_monitor *mo = &m->output.monitors[i];
    const dt_set *ns = &m->nsets[mo->nset];
    double s = 0.0;
    for (int k = 0; k < ns->n; k++)
      s += (mo->kind == DT_MON_RF ? f->rf : f->u)[3 * ns->items[k] + mo->dof];
    row->monitor[i] = (mo->kind == DT_MON_U && ns->n) ? s / ns->n : s;
  }
}
