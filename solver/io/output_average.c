/* Averaging of integration-point fields to elements and nodes, for visualisation.
 *
 * Unweighted on purpose: each point counts the same within its element, and each element the
 * same at a shared node. This is the simple, reproducible smoothing that post-processors show
 * by default; it is not a projection, and the element values (CellData) stay the reference. */
#include "io/output_impl.h"

#include <string.h>

void dt_fields_element_average(const dt_fields *f, const double *qp_values, int ncomp,
                               double *elem_out) {
  int e, q, c;
  for (e = 0; e < f->n_elems; e++) {
    const int q0 = f->qp_ptr[e], q1 = f->qp_ptr[e + 1];
    double *v = elem_out + (size_t)e * ncomp;
    for (c = 0; c < ncomp; c++) v[c] = 0.0;
    if (q1 <= q0) continue;
    /* v = (1/n_q) sum_q value_q */
    for (q = q0; q < q1; q++)
      for (c = 0; c < ncomp; c++) v[c] += qp_values[(size_t)q * ncomp + c];
    for (c = 0; c < ncomp; c++) v[c] /= (double)(q1 - q0);
  }
}

dt_status dt_fields_nodal_average(const dt_model *m, const dt_fields *f, const double *qp_values,
                                  int ncomp, double *nodal_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *elem = NULL;
  int *count = NULL;
  int e, k, c, n;
  const size_t n_elem_values = (size_t)m->n_elems * (size_t)(ncomp > 0 ? ncomp : 1);
  DT_CHECK(f->n_elems == m->n_elems && f->qp_ptr != NULL && ncomp > 0, ctx, DT_ERR_INTERNAL,
           "fields do not match the model: %d elements with points, model has %d", f->n_elems,
           m->n_elems);
  DT_ALLOC(elem, n_elem_values, ctx, "element averages");
  DT_ALLOC(count, m->n_nodes, ctx, "nodal average counts");
  dt_fields_element_average(f, qp_values, ncomp, elem);
  memset(nodal_out, 0, sizeof(double) * (size_t)m->n_nodes * ncomp);
  /* nodal_n = (1/|E_n|) sum_{e in E_n} elem_e, E_n the elements with points touching n */
  for (e = 0; e < m->n_elems; e++) {
    if (f->qp_ptr[e + 1] <= f->qp_ptr[e]) continue;
    for (k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++) {
      n = m->conn[k];
      count[n]++;
      for (c = 0; c < ncomp; c++) nodal_out[(size_t)n * ncomp + c] += elem[(size_t)e * ncomp + c];
    }
  }
  for (n = 0; n < m->n_nodes; n++)
    if (count[n] > 1)
      for (c = 0; c < ncomp; c++) nodal_out[(size_t)n * ncomp + c] /= (double)count[n];
cleanup:
  dt_free(elem);
  dt_free(count);
  return rc;
}
