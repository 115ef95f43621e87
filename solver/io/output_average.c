/* Averaging of integration-point fields to elements and nodes, for visualisation.
 *
 * Unweighted on purpose: each point counts the same within its element, and each element the
 * same at a shared node. This is the simple, reproducible smoothing that post-processors show
 * by default; it is not a projection, and the element values (CellData) stay the reference. */
#include "io/output_internal.h"

/* Elements or nodes a writer task takes (output_vtu.c's team; serial outside one). */
#define AVERAGE_GRAIN 4096

void dt_average_elements(int n_elems, const int *qp_ptr, const double *qp_values, int ncomp,
                         double *elem_out) {
#pragma omp taskloop grainsize(AVERAGE_GRAIN)
  for (int e = 0; e < n_elems; e++) {
    const int q0 = qp_ptr[e], q1 = qp_ptr[e + 1];
    double *v = elem_out + (size_t)e * ncomp;
    for (int c = 0; c < ncomp; c++) v[c] = 0.0;
    if (q1 <= q0) continue;
    /* v = (1/n_q) sum_q value_q */
    for (int q = q0; q < q1; q++)
      for (int c = 0; c < ncomp; c++) v[c] += qp_values[(size_t)q * ncomp + c];
    for (int c = 0; c < ncomp; c++) v[c] /= (double)(q1 - q0);
  }
}

void dt_average_nodes_gather(const dt_node_elems *a, const int *qp_ptr, const double *elem,
                             int ncomp, double *nodal_out) {
#pragma omp taskloop grainsize(AVERAGE_GRAIN)
  for (int n = 0; n < a->n_nodes; n++) {
    double s[6] = {0, 0, 0, 0, 0, 0}; /* ncomp <= 6 */
    int count = 0;
    for (int k = a->ptr[n]; k < a->ptr[n + 1]; k++) {
      const int e = a->elem[k];
      if (qp_ptr[e + 1] <= qp_ptr[e]) continue;
      count++;
      for (int c = 0; c < ncomp; c++) s[c] += elem[(size_t)e * ncomp + c];
    }
    for (int c = 0; c < ncomp; c++)
      nodal_out[(size_t)n * ncomp + c] = count > 1 ? s[c] / (double)count : s[c];
  }
}

void dt_fields_element_average(const dt_fields *f, const double *qp_values, int ncomp,
                               double *elem_out) {
  dt_average_elements(f->n_elems, f->qp_ptr, qp_values, ncomp, elem_out);
}

dt_status dt_fields_nodal_average(const dt_model *m, const dt_fields *f, const double *qp_values,
                                  int ncomp, double *nodal_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *elem = NULL;
  dt_node_elems adj = {0};
  const size_t n_elem_values = (size_t)m->n_elems * (size_t)(ncomp > 0 ? ncomp : 1);
  DT_CHECK(f->n_elems == m->n_elems && f->qp_ptr != NULL && ncomp > 0 && ncomp <= 6, ctx,
           DT_ERR_INTERNAL,
           "fields do not match the model: %d elements with points, model has %d (%d components, "
           "1 to 6 supported)",
           f->n_elems, m->n_elems, ncomp);
  DT_ALLOC(elem, n_elem_values, ctx, "element averages");
  DT_TRY(dt_node_elems_build(m, &adj, ctx));
  dt_average_elements(m->n_elems, f->qp_ptr, qp_values, ncomp, elem);
  dt_average_nodes_gather(&adj, f->qp_ptr, elem, ncomp, nodal_out);
cleanup:
  dt_free(elem);
  dt_node_elems_free(&adj);
  return rc;
}
