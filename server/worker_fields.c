/* Increment fields as JSON (see worker_fields.h). */
#include "worker_fields.h"

#include <stdlib.h>

#include "io/output.h"

/* [[x, y, z], ...] of n rows, or null. */
static json_t *rows3(const double *v, int n) {
  json_t *a;
  if (!v) return json_null();
  a = json_array();
  for (int i = 0; i < n; i++) json_array_append_new(a, json_pack("[f, f, f]", v[3 * i], v[3 * i + 1], v[3 * i + 2]));
  return a;
}

/* Element means of a point field with ncomp components: [[...], ...] or null. */
static json_t *element_means(const dt_fields *f, const double *qp, int ncomp) {
  json_t *a;
  double *e;
  if (!qp) return json_null();
  e = calloc((size_t)f->n_elems * (size_t)ncomp + 1, sizeof *e);
  if (!e) return json_null();
  dt_fields_element_average(f, qp, ncomp, e);
  a = json_array();
  for (int i = 0; i < f->n_elems; i++) {
    json_t *row = json_array();
    for (int c = 0; c < ncomp; c++) json_array_append_new(row, json_real(e[(size_t)i * ncomp + c]));
    json_array_append_new(a, ncomp == 1 ? json_incref(json_array_get(row, 0)) : json_incref(row));
    json_decref(row);
  }
  free(e);
  return a;
}

json_t *dt_fields_json(const dt_model *model, const dt_fields *f) {
  json_t *o = json_object(), *nodes = json_array(), *elems = json_array(), *mises = json_null();
  for (int i = 0; i < model->n_nodes; i++) json_array_append_new(nodes, json_integer((json_int_t)model->node_id[i]));
  for (int i = 0; i < model->n_elems; i++) json_array_append_new(elems, json_integer((json_int_t)model->elem_id[i]));
  if (f->qp_stress) {
    double *m = calloc((size_t)f->n_qp + 1, sizeof *m);
    if (m) {
      for (int q = 0; q < f->n_qp; q++) m[q] = dt_mises(f->qp_stress + 6 * q);
      mises = element_means(f, m, 1);
      free(m);
    }
  }
  json_object_set_new(o, "n", json_integer(f->global_increment));
  json_object_set_new(o, "step", json_integer(f->step + 1));
  json_object_set_new(o, "increment", json_integer(f->increment));
  json_object_set_new(o, "load_factor", json_real(f->load_factor));
  json_object_set_new(o, "time", json_real(f->time));
  json_object_set_new(o, "node_ids", nodes);
  json_object_set_new(o, "element_ids", elems);
  json_object_set_new(o, "U", rows3(f->u, f->n_nodes));
  json_object_set_new(o, "RF", rows3(f->rf, f->n_nodes));
  json_object_set_new(o, "S", element_means(f, f->qp_stress, 6));
  json_object_set_new(o, "E", element_means(f, f->qp_strain, 6));
  json_object_set_new(o, "PEEQ", element_means(f, f->qp_peeq, 1));
  json_object_set_new(o, "MISES", mises);
  return o;
}

