/* Consistent nodal forces of step loads:
 *   f_a += N_a f                              nodal force (per node of the set)
 *   f_a += -p  int_face N_a n dA              pressure (acts against the outward normal n)
 *   f_a +=  t  int_face N_a dA                traction vector
 *   f_a +=  int_elem N_a b(x) dV              body force per volume: uniform, plus a centrifugal
 *                                             part growing with the distance from its axis
 * 2D elements integrate per unit thickness, so loads are scaled by the section thickness;
 * axisymmetric ones over the whole ring, dV = 2 pi r dA and dA = 2 pi r ds on their edges (r = x),
 * as the element kernels integrate them (element/element_kernel.h). */
#include "loads.h"

#include <math.h>
#include <string.h>

#include "element/element.h"
#include "core/host_arrays.h"

static double elem_thickness(const dt_model *m, int e) {
  double t = m->sections[m->elem_section[e]].thickness;
  return (m->dim == 2 && t > 0.0) ? t : 1.0;
}

static int elem_axisym(const dt_model *m, int e) {
  return m->sections[m->elem_section[e]].kind == DT_SECTION_AXISYMMETRIC;
}

static void element_coords(const dt_model *m, int e, double *X) {
  for (int a = m->elem_ptr[e]; a < m->elem_ptr[e + 1]; a++)
    for (int k = 0; k < 3; k++) X[(a - m->elem_ptr[e]) * 3 + k] = m->x[m->conn[a] * 3 + k];
}

/* Add the face integral of N_a * v(n dA) to f, where v = -p n or t |n dA|. */
static void add_face_load(const dt_model *m, int e, int face, double p, const double *t,
                          double *f) {
  int type = m->elem_type[e], dpn = m->dim, local[DT_FACE_MAX_NODES];
  int nfn = dt_face_nnodes(type, face);
  double Xe[DT_ELEM_MAX_NODES * 3], Xf[DT_FACE_MAX_NODES * 3], Nf[DT_FACE_MAX_NODES], nda[3];
  double thick = elem_thickness(m, e);
  int axisym = elem_axisym(m, e);
  element_coords(m, e, Xe);
  dt_face_local_nodes(type, face, local);
  for (int a = 0; a < nfn; a++)
    for (int k = 0; k < 3; k++) Xf[a * 3 + k] = Xe[local[a] * 3 + k];
  for (int q = 0; q < dt_face_nqp(type, face); q++) {
    dt_face_point(type, face, q, Xf, Nf, nda);
    double da = sqrt(nda[0] * nda[0] + nda[1] * nda[1] + nda[2] * nda[2]);
    if (axisym) thick = DT_TWO_PI * dt_axisym_radius(nfn, Nf, Xf);
    for (int a = 0; a < nfn; a++) {
      int node = m->conn[m->elem_ptr[e] + local[a]];
      for (int i = 0; i < dpn; i++)
        f[node * dpn + i] += Nf[a] * thick * (t ? t[i] * da : -p * nda[i]);
    }
  }
}

/* The body force of bf at x: b plus the centrifugal spin r_perp(x). */
static void body_at(const dt_body_force *bf, const double *x, double *b) {
  double r[3], along = 0.0;
  for (int k = 0; k < 3; k++) r[k] = x[k] - bf->axis_point[k], along += r[k] * bf->axis[k];
  for (int k = 0; k < 3; k++) b[k] = bf->b[k] + bf->spin * (r[k] - along * bf->axis[k]);
}

static void add_body_load(const dt_model *m, int e, const dt_body_force *bf, double *f) {
  int type = m->elem_type[e], dpn = m->dim, nn = dt_elem_nnodes(type);
  double X[DT_ELEM_MAX_NODES * 3], N[DT_ELEM_MAX_NODES], dN[DT_ELEM_MAX_NODES * 3];
  double dNdx[DT_ELEM_MAX_NODES * 3], xi[3], w, thick = elem_thickness(m, e);
  int axisym = elem_axisym(m, e);
  element_coords(m, e, X);
  for (int q = 0; q < dt_elem_nqp(type); q++) {
    double x[3] = {0.0, 0.0, 0.0}, b[3];
    dt_elem_qp(type, q, xi, &w);
    dt_elem_shape(type, xi, N, dN);
    double wdv = w * dt_elem_gradients(type, X, dN, dNdx);
    for (int a = 0; a < nn; a++)
      for (int k = 0; k < 3; k++) x[k] += N[a] * X[a * 3 + k];
    wdv *= axisym ? DT_TWO_PI * x[0] : thick;
    body_at(bf, x, b);
    for (int a = 0; a < nn; a++) {
      int node = m->conn[m->elem_ptr[e] + a];
      for (int i = 0; i < dpn; i++) f[node * dpn + i] += N[a] * b[i] * wdv;
    }
  }
}

dt_status dt_loads_force(const dt_model *m, int s, double *f, dt_ctx *ctx) {
  const dt_step *st = &m->steps[s];
  int dpn = m->dim, n = m->n_nodes * dpn, first_bad = n;
  dt_host_fill(f, NULL, (size_t)n);
  for (int i = 0; i < st->n_cload; i++) {
    const dt_set *ns = &m->nsets[st->cload[i].nset];
    for (int k = 0; k < ns->n; k++)
      for (int d = 0; d < dpn; d++) f[ns->items[k] * dpn + d] += st->cload[i].f[d];
  }
  for (int i = 0; i < st->n_pressure; i++) {
    const dt_surface *sf = &m->surfaces[st->pressure[i].surface];
    for (int k = 0; k < sf->n; k++)
      add_face_load(m, sf->elem[k], sf->face[k], st->pressure[i].p, NULL, f);
  }
  for (int i = 0; i < st->n_traction; i++) {
    const dt_surface *sf = &m->surfaces[st->traction[i].surface];
    for (int k = 0; k < sf->n; k++)
      add_face_load(m, sf->elem[k], sf->face[k], 0.0, st->traction[i].t, f);
  }
  for (int i = 0; i < st->n_body; i++) {
    const dt_set *es = &m->elsets[st->body[i].elset];
    for (int k = 0; k < es->n; k++) add_body_load(m, es->items[k], &st->body[i], f);
  }
#pragma omp parallel for schedule(static) reduction(min : first_bad) if (n > DT_HOST_PARALLEL_MIN)
  for (int d = 0; d < n; d++)
    if (!isfinite(f[d]) && d < first_bad) first_bad = d;
  if (first_bad < n)
    return DT_ERROR(ctx, DT_ERR_INPUT, "step %d (%s): the loads are not finite at node %lld", s + 1,
                    st->name, (long long)m->node_id[first_bad / dpn]);
  return DT_OK;
}

int dt_loads_has_hold(const dt_model *m, int s) {
  for (int i = 0; i < m->steps[s].n_bc; i++)
    if (m->steps[s].bc[i].hold) return 1;
  return 0;
}

void dt_loads_hold(const dt_model *m, int s, const double *u_start, double *u_presc) {
  const dt_step *st = &m->steps[s];
  int dpn = m->dim;
  for (int i = 0; i < st->n_bc; i++) {
    const dt_set *ns = &m->nsets[st->bc[i].nset];
    for (int k = 0; k < ns->n; k++)
      for (int d = 0; d < dpn; d++)
        if (st->bc[i].hold & (1u << d))
          u_presc[ns->items[k] * dpn + d] = u_start[ns->items[k] * dpn + d];
  }
}

dt_status dt_loads_constraints(const dt_model *m, int s, double *free_mask, double *u_presc,
                               dt_ctx *ctx) {
  const dt_step *st = &m->steps[s];
  int dpn = m->dim, n = m->n_nodes * dpn;
#pragma omp parallel for schedule(static) if (n > DT_HOST_PARALLEL_MIN)
  for (int d = 0; d < n; d++) {
    free_mask[d] = 1.0;
    u_presc[d] = 0.0;
  }
  for (int i = 0; i < st->n_bc; i++) {
    const dt_set *ns = &m->nsets[st->bc[i].nset];
    for (int k = 0; k < ns->n; k++)
      for (int d = 0; d < dpn; d++)
        if (st->bc[i].dofs & (1u << d)) {
          free_mask[ns->items[k] * dpn + d] = 0.0;
          u_presc[ns->items[k] * dpn + d] = st->bc[i].value[d];
        }
  }
  /* A node no element uses has no stiffness: its DOFs are dependent, prescribed or in no
   * constraint (model_mpc.c), and the backends treat them all as constrained rows. */
  for (int a = 0; m->node_isolated && a < m->n_nodes; a++)
    for (int d = 0; m->node_isolated[a] && d < dpn; d++) free_mask[a * dpn + d] = 0.0;
  return DT_OK;
}
