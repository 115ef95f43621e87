/* Initial stresses and plastic strains (*INITIAL CONDITIONS, TYPE=STRESS and TYPE=PLASTIC
 * STRAIN; the job's "initial_conditions"): their rules, and the one eigenstrain per integration
 * point they amount to, which the element kernels subtract from B u before the material update
 * (element_kernel.h). A model without them has no such array: nothing is allocated, uploaded
 * or read. */
#include <math.h>
#include <string.h>

#include "element/element.h"
#include "model.h"
#include "model_internal.h"

dt_status dt_model_add_initial_state(dt_model *m, const dt_initial_state *s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t n = (size_t)m->n_initial_states;
  /* the capacity is 16, then doubles (a deck has a line per point): full at 0, 16, 32, ... */
  if (n == 0 || (n >= 16 && (n & (n - 1)) == 0)) {
    dt_initial_state *grown = dt_realloc(m->initial_states, sizeof *grown * (n < 16 ? 16 : 2 * n));
    DT_CHECK(grown != NULL, ctx, DT_ERR_NOMEM, "out of memory adding an initial condition");
    m->initial_states = grown;
  }
  m->initial_states[m->n_initial_states++] = *s;
cleanup:
  return rc;
}

static const char *kind_name(int kind) {
  return kind == DT_INITIAL_STRESS ? "initial stress" : "initial plastic strain";
}

/* The rules one entry's element e must meet. */
static dt_status check_elem(const dt_model *m, const dt_initial_state *s, int e, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int type = m->elem_type[e];
  DT_CHECK(type < DT_ELEM_NCONTINUUM, ctx, DT_ERR_INPUT,
           "%s on element %lld (%s): ductile takes initial conditions on continuum elements "
           "only",
           kind_name(s->kind), (long long)m->elem_id[e], dt_model_elem_type_name(type));
  DT_CHECK(s->point < dt_elem_nqp(type), ctx, DT_ERR_INPUT,
           "%s on element %lld: integration point %d does not exist (a %s element has %d)",
           kind_name(s->kind), (long long)m->elem_id[e], s->point + 1,
           dt_model_elem_type_name(type), dt_elem_nqp(type));
  if (m->elem_section && s->kind == DT_INITIAL_STRESS &&
      m->sections[m->elem_section[e]].kind == DT_SECTION_PLANE_STRESS)
    DT_CHECK(s->value[2] == 0 && s->grad[2][0] == 0 && s->grad[2][1] == 0 && s->grad[2][2] == 0,
             ctx, DT_ERR_INPUT,
             "initial stress on element %lld: a plane stress element holds no stress s33",
             (long long)m->elem_id[e]);
cleanup:
  return rc;
}

dt_status dt_model_check_initial(const dt_model *m, int *bad, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  *bad = -1;
  if (m->n_initial_states == 0) return DT_OK;
  *bad = 0; /* named by the first entry */
  for (int i = 0; i < m->n_steps; i++)
    DT_CHECK(m->steps[i].procedure == DT_PROC_STATIC, ctx, DT_ERR_INPUT,
             "initial stresses and plastic strains need static steps (step %d \"%s\" is "
             "explicit)",
             i + 1, m->steps[i].name);
  for (int k = 0; k < m->n_initial_states; k++) {
    const dt_initial_state *s = &m->initial_states[k];
    *bad = k;
    DT_CHECK(s->kind == DT_INITIAL_STRESS || s->kind == DT_INITIAL_PLASTIC_STRAIN, ctx,
             DT_ERR_INTERNAL, "initial condition of unknown kind %d", s->kind);
    for (int c = 0; c < 6; c++) {
      DT_CHECK(isfinite(s->value[c]), ctx, DT_ERR_INPUT, "%s: component %d is not finite",
               kind_name(s->kind), c + 1);
      for (int j = 0; j < 3; j++)
        DT_CHECK(isfinite(s->grad[c][j]), ctx, DT_ERR_INPUT, "%s: a gradient is not finite",
                 kind_name(s->kind));
    }
    DT_CHECK(s->point >= -1, ctx, DT_ERR_INPUT, "%s: integration point %d does not exist",
             kind_name(s->kind), s->point + 1);
    DT_CHECK(s->elem >= -1 && s->elem < m->n_elems, ctx, DT_ERR_INPUT,
             "%s: element index %d does not exist", kind_name(s->kind), s->elem);
    DT_CHECK(s->elset >= -1 && s->elset < m->n_elsets, ctx, DT_ERR_INPUT,
             "%s: element set index %d does not exist", kind_name(s->kind), s->elset);
    if (s->elem >= 0) {
      DT_TRY(check_elem(m, s, s->elem, ctx));
    } else if (s->elset >= 0) {
      for (int i = 0; i < m->elsets[s->elset].n; i++)
        DT_TRY(check_elem(m, s, m->elsets[s->elset].items[i], ctx));
    } else {
      for (int e = 0; e < m->n_elems; e++) DT_TRY(check_elem(m, s, e, ctx));
    }
  }
  *bad = -1;
cleanup:
  return rc;
}

/* The reference coordinates of integration point q of element e. */
static void point_coords(const dt_model *m, int e, int q, double xq[3]) {
  double xi[3], w, N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];
  int type = m->elem_type[e];
  const int *cn = m->conn + m->elem_ptr[e];
  dt_elem_qp(type, q, xi, &w);
  dt_elem_shape(type, xi, N, dN);
  xq[0] = xq[1] = xq[2] = 0.0;
  for (int a = 0; a < dt_elem_nnodes(type); a++)
    for (int j = 0; j < 3; j++) xq[j] += N[a] * m->x[3 * cn[a] + j];
}

/* Entry s at the points it names of element e into val (6 per point, point-major, tensor
 * shears), marking them in set. */
static void apply_elem(const dt_model *m, const dt_initial_state *s, int e, const int *qp_ptr,
                       double *val, unsigned char *set) {
  int nq = qp_ptr[e + 1] - qp_ptr[e];
  int has_grad = 0;
  for (int c = 0; c < 6; c++)
    has_grad |= s->grad[c][0] != 0 || s->grad[c][1] != 0 || s->grad[c][2] != 0;
  for (int q = s->point >= 0 ? s->point : 0; q < (s->point >= 0 ? s->point + 1 : nq); q++) {
    double xq[3] = {0, 0, 0}, *v = val + 6 * (size_t)(qp_ptr[e] + q);
    if (has_grad) point_coords(m, e, q, xq);
    for (int c = 0; c < 6; c++)
      v[c] = s->value[c] + s->grad[c][0] * xq[0] + s->grad[c][1] * xq[1] + s->grad[c][2] * xq[2];
    set[qp_ptr[e] + q] = 1;
  }
}

dt_status dt_model_initial_eigenstrain(const dt_model *m, const int *qp_ptr, int n_qp, double **out,
                                       dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *val[2] = {NULL, NULL}, *eps0 = NULL;
  unsigned char *set[2] = {NULL, NULL};
  size_t nq = (size_t)n_qp;
  *out = NULL;
  if (m->n_initial_states == 0) return DT_OK;
  DT_CHECK(m->elem_section != NULL, ctx, DT_ERR_INTERNAL, "dt_model_finish was not called");
  for (int k = 0; k < 2; k++) {
    DT_ALLOC(val[k], 6 * nq, ctx, "initial conditions");
    set[k] = dt_calloc(nq ? nq : 1, 1);
    DT_CHECK(set[k] != NULL, ctx, DT_ERR_NOMEM, "out of memory for initial conditions");
  }
  DT_ALLOC(eps0, 6 * nq, ctx, "initial eigenstrains");
  for (int k = 0; k < m->n_initial_states; k++) { /* in order: a later entry replaces */
    const dt_initial_state *s = &m->initial_states[k];
    if (s->elem >= 0)
      apply_elem(m, s, s->elem, qp_ptr, val[s->kind], set[s->kind]);
    else if (s->elset >= 0)
      for (int i = 0; i < m->elsets[s->elset].n; i++)
        apply_elem(m, s, m->elsets[s->elset].items[i], qp_ptr, val[s->kind], set[s->kind]);
    else
      for (int e = 0; e < m->n_elems; e++) apply_elem(m, s, e, qp_ptr, val[s->kind], set[s->kind]);
  }
  for (int e = 0; e < m->n_elems; e++) {
    const dt_material_params *mp = &m->materials[m->sections[m->elem_section[e]].material].p;
    double E = mp->E, nu = mp->nu;
    for (int q = qp_ptr[e]; q < qp_ptr[e + 1]; q++) {
      const double *sg = val[DT_INITIAL_STRESS] + 6 * (size_t)q;
      const double *ep = val[DT_INITIAL_PLASTIC_STRAIN] + 6 * (size_t)q;
      double e0[6] = {0, 0, 0, 0, 0, 0};
      if (set[DT_INITIAL_STRESS][q]) { /* -C^-1 : sig0, engineering shears */
        for (int i = 0; i < 3; i++) e0[i] = -(sg[i] - nu * (sg[(i + 1) % 3] + sg[(i + 2) % 3])) / E;
        for (int i = 3; i < 6; i++) e0[i] = -2.0 * (1.0 + nu) * sg[i] / E;
      }
      if (set[DT_INITIAL_PLASTIC_STRAIN][q]) {
        for (int i = 0; i < 3; i++) e0[i] += ep[i];
        for (int i = 3; i < 6; i++) e0[i] += 2.0 * ep[i];
      }
      for (int c = 0; c < 6; c++) eps0[(size_t)c * nq + (size_t)q] = e0[c];
    }
  }
  *out = eps0;
  eps0 = NULL;
cleanup:
  for (int k = 0; k < 2; k++) {
    dt_free(val[k]);
    dt_free(set[k]);
  }
  dt_free(eps0);
  return rc;
}
