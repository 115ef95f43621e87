/* The output tests' model and fields; see io_fixture.h. */
#include "io_fixture.h"

#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t s) {
  void *p = calloc(n ? n : 1, s);
  if (p == NULL) {
    fprintf(stderr, "out of memory in the test fixture\n");
    exit(1);
  }
  return p;
}

static void fix_set(dt_set *s, const char *name, int x_lo, int x_hi) {
  int i, j, k;
  snprintf(s->name, sizeof s->name, "%s", name);
  s->items = xcalloc(12, sizeof *s->items);
  for (k = 0; k < 2; k++)
    for (j = 0; j < 2; j++)
      for (i = x_lo; i <= x_hi; i++) s->items[s->n++] = i + 3 * j + 6 * k;
}

void fix_model(dt_model *m) {
  int n, e, i;
  m->version = DT_JOB_FORMAT_VERSION;
  snprintf(m->title, sizeof m->title, "two hex8 \"bricks\"");
  m->dim = 3;
  m->n_nodes = 12;
  m->x = xcalloc(36, sizeof *m->x);
  m->node_id = xcalloc(12, sizeof *m->node_id);
  for (n = 0; n < 12; n++) {
    m->x[3 * n + 0] = n % 3;
    m->x[3 * n + 1] = (n / 3) % 2;
    m->x[3 * n + 2] = n / 6;
    m->node_id[n] = 101 + n;
  }
  m->n_elems = 2;
  m->elem_type = xcalloc(2, 1);
  m->elem_ptr = xcalloc(3, sizeof *m->elem_ptr);
  m->conn = xcalloc(16, sizeof *m->conn);
  m->elem_id = xcalloc(2, sizeof *m->elem_id);
  m->elem_section = xcalloc(2, sizeof *m->elem_section);
  for (e = 0; e < 2; e++) {
    /* CalculiX hex8: bottom face counter-clockwise, then the top face above it. */
    const int b = e, c[8] = {b, b + 1, b + 4, b + 3, b + 6, b + 7, b + 10, b + 9};
    m->elem_type[e] = DT_ELEM_HEX8;
    m->elem_ptr[e + 1] = 8 * (e + 1);
    for (i = 0; i < 8; i++) m->conn[8 * e + i] = c[i];
    m->elem_id[e] = 1000000000000LL + 7 * e; /* beyond 32 bits on purpose */
    m->elem_section[e] = e;
  }
  m->n_nsets = 3;
  m->nsets = xcalloc(3, sizeof *m->nsets);
  fix_set(&m->nsets[0], "left", 0, 0);
  fix_set(&m->nsets[1], "right", 2, 2);
  fix_set(&m->nsets[2], "all", 0, 2);
  m->output.fields = DT_OUT_ALL;
  m->output.vtu = 1;
  m->output.points = 1; /* the integration-point file too: the tests check both */
  m->output.every = 1;
  m->output.n_monitors = 2;
  m->output.monitors = xcalloc(2, sizeof *m->output.monitors);
  snprintf(m->output.monitors[0].name, DT_NAME_MAX, "u_right_x");
  m->output.monitors[0].kind = DT_MON_U;
  m->output.monitors[0].nset = 1;
  snprintf(m->output.monitors[1].name, DT_NAME_MAX, "rf \"left\", x");
  m->output.monitors[1].kind = DT_MON_RF;
  m->output.monitors[1].nset = 0;
}

void fix_model_free(dt_model *m) {
  int i;
  free(m->x);
  free(m->node_id);
  free(m->elem_type);
  free(m->elem_ptr);
  free(m->conn);
  free(m->elem_id);
  free(m->elem_section);
  for (i = 0; i < m->n_nsets; i++) free(m->nsets[i].items);
  free(m->nsets);
  free(m->output.monitors);
  memset(m, 0, sizeof *m);
}

double fix_elem_stress(int e, int c, int inc) { return (1.0 + 6 * e + c) * inc / 3.0; }
double fix_elem_peeq(int e, int inc) { return (0.01 + 0.02 * e) * inc; }

void fix_fields(const dt_model *m, int inc, dt_fields *f) {
  int n, d, e, q, c;
  memset(f, 0, sizeof *f);
  f->step = inc >= 3 ? 1 : 0;
  f->increment = inc >= 3 ? inc - 2 : inc;
  f->global_increment = inc;
  f->load_factor = inc >= 3 ? 1.0 : 0.5 * inc;
  f->time = f->step + f->load_factor;
  f->n_nodes = m->n_nodes;
  /* dt_malloc'ed, since dt_fields_free releases them with dt_free. */
  f->n_elems = 2;
  f->n_qp = 2 * FIX_QP;
  f->u = dt_calloc(36, sizeof *f->u);
  f->rf = dt_calloc(36, sizeof *f->rf);
  f->qp_ptr = dt_calloc(3, sizeof *f->qp_ptr);
  f->qp_x = dt_calloc(3 * (size_t)f->n_qp, sizeof *f->qp_x);
  f->qp_stress = dt_calloc(6 * (size_t)f->n_qp, sizeof *f->qp_stress);
  f->qp_peeq = dt_calloc((size_t)f->n_qp, sizeof *f->qp_peeq);
  /* Under the fault injector one of these may be NULL: the caller sees it and gives up. */
  if (!f->u || !f->rf || !f->qp_ptr || !f->qp_x || !f->qp_stress || !f->qp_peeq) return;
  for (n = 0; n < 12; n++)
    for (d = 0; d < 3; d++) {
      /* Values without short decimal forms, so only %.17g gives them back. */
      f->u[3 * n + d] = inc * (n + 1) * (d + 1) / 7.0e3;
      if (n % 3 == 0) f->rf[3 * n + d] = -inc * (n + 0.1 * d) / 3.0;
    }
  for (e = 0; e < 2; e++) {
    f->qp_ptr[e + 1] = FIX_QP * (e + 1);
    for (q = FIX_QP * e; q < FIX_QP * (e + 1); q++) {
      /* +-0.5 alternating: zero mean, exact in binary, so the averages are exact. */
      const double wiggle = (q % 2) ? 0.5 : -0.5;
      for (c = 0; c < 6; c++) f->qp_stress[6 * q + c] = fix_elem_stress(e, c, inc) + wiggle;
      f->qp_peeq[q] = fix_elem_peeq(e, inc);
      f->qp_x[3 * q] = e + 0.5;
    }
  }
}
