/* results.dat in CalculiX's .dat layout (output_dat.h).
 *
 * The file is opened for append at each printed increment and closed again, so the writer
 * keeps no state between increments and a partly run job still leaves a readable file. Row
 * formats follow CalculiX's Fortran: (i10, 1p, 6(1x, e13.6)) for nodes and
 * (i10, 1x, i3, 1p, 6(1x, e13.6)) for integration points; the time is written as Fortran's
 * e14.7 without scale factor (0.1000000E+01). */
#include "io/output_dat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DAT_NAME "results.dat"

static dt_status dat_path(const char *dir, char *path, size_t n, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  DT_CHECK((size_t)snprintf(path, n, "%s/%s", dir, DAT_NAME) < n, ctx, DT_ERR_IO, "output path too long: %s", dir);
cleanup:
  return rc;
}

dt_status dt_dat_start(const char *dir, const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4096];
  FILE *f = NULL;

  if (m->output.n_prints == 0) return DT_OK;
  DT_TRY(dat_path(dir, path, sizeof path, ctx));
  f = fopen(path, "w");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(errno));
cleanup:
  if (f && fclose(f) != 0 && rc == DT_OK) rc = DT_ERROR(ctx, DT_ERR_IO, "cannot write '%s'", path);
  return rc;
}

/* CalculiX writes "...pe)for set": `what` carries its own trailing space, or none. */
/* Fortran e14.7: 0.dddddddE+xx, mantissa in [0.1, 1). */
static void fortran_e(char *buf, size_t n, double v) {
  int e = 0;
  double mant = 0;

  if (v != 0 && isfinite(v)) {
    e = (int)floor(log10(fabs(v))) + 1;
    mant = v / pow(10.0, e);
    if (fabs(mant) >= 0.99999999995) mant /= 10, e++; /* rounding to 7 digits reached 1 */
  }
  snprintf(buf, n, "%s0.%07.0fE%c%02d", mant < 0 ? "-" : " ", fabs(mant) * 1e7, e < 0 ? '-' : '+', e < 0 ? -e : e);
}

static void header(FILE *out, const char *what, const char *set, double time) {
  char t[32];

  fortran_e(t, sizeof t, time);
  fprintf(out, "\n %sfor set %s and time %s\n\n", what, set, t);
}

static void node_block(FILE *out, const dt_model *m, const dt_set *s, const double *v, const char *what, double time) {
  header(out, what, s->name, time);
  for (int i = 0; i < s->n; i++) {
    const double *x = &v[3 * (size_t)s->items[i]];
    fprintf(out, "%10lld %13.6E %13.6E %13.6E\n", (long long)m->node_id[s->items[i]], x[0], x[1], x[2]);
  }
}

/* Integration-point block: ncomp values per point; shear_half halves components 3..5 (strain). */
static void elem_block(FILE *out, const dt_model *m, const dt_fields *f, const dt_set *s, const double *v, int ncomp,
                       int shear_half, const char *what) {
  header(out, what, s->name, f->time);
  for (int i = 0; i < s->n; i++) {
    int e = s->items[i];
    for (int q = f->qp_ptr[e]; q < f->qp_ptr[e + 1]; q++) {
      fprintf(out, "%10lld %3d", (long long)m->elem_id[e], q - f->qp_ptr[e] + 1);
      for (int c = 0; c < ncomp; c++)
        fprintf(out, " %13.6E", v[(size_t)q * (size_t)ncomp + (size_t)c] * (shear_half && c >= 3 ? 0.5 : 1.0));
      fprintf(out, "\n");
    }
  }
}

static int due(const dt_print_request *r, const dt_fields *f) {
  return f->load_factor >= 1.0 - 1e-12 || (r->every > 0 && f->increment % r->every == 0);
}

static void write_request(FILE *out, const dt_model *m, const dt_fields *f, const dt_print_request *r) {
  if (!r->element) {
    const dt_set *s = &m->nsets[r->set];
    if ((r->fields & DT_OUT_U) && f->u) node_block(out, m, s, f->u, "displacements (vx,vy,vz) ", f->time);
    if ((r->fields & DT_OUT_RF) && f->rf) node_block(out, m, s, f->rf, "forces (fx,fy,fz) ", f->time);
    return;
  }
  if ((r->fields & DT_OUT_S) && f->qp_stress)
    elem_block(out, m, f, &m->elsets[r->set], f->qp_stress, 6, 0, "stresses (elem, integ.pnt.,sxx,syy,szz,sxy,sxz,syz) ");
  if ((r->fields & DT_OUT_E) && f->qp_strain)
    elem_block(out, m, f, &m->elsets[r->set], f->qp_strain, 6, 1, "strains (elem, integ.pnt.,exx,eyy,ezz,exy,exz,eyz) ");
  if ((r->fields & DT_OUT_PEEQ) && f->qp_peeq)
    elem_block(out, m, f, &m->elsets[r->set], f->qp_peeq, 1, 0, "equivalent plastic strain (elem, integ.pnt.,pe)");
}

int dt_dat_due(const dt_model *m, const dt_fields *f) {
  for (int i = 0; i < m->output.n_prints; i++)
    if (due(&m->output.prints[i], f)) return 1;
  return 0;
}

dt_status dt_dat_append(const char *dir, const dt_model *m, const dt_fields *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4096];
  FILE *out = NULL;

  if (m->output.n_prints == 0) return DT_OK;
  for (int i = 0; i < m->output.n_prints; i++) {
    const dt_print_request *r = &m->output.prints[i];
    DT_CHECK(r->set >= 0 && r->set < (r->element ? m->n_elsets : m->n_nsets), ctx, DT_ERR_INTERNAL,
             "print request %d names set %d, which does not exist", i, r->set);
    DT_CHECK(r->element ? (f->qp_ptr != NULL || !(r->fields & (DT_OUT_S | DT_OUT_E | DT_OUT_PEEQ))) : 1, ctx,
             DT_ERR_INTERNAL, "print request %d: the fields carry no integration points", i);
  }
  DT_TRY(dat_path(dir, path, sizeof path, ctx));
  out = fopen(path, "a");
  DT_CHECK(out != NULL, ctx, DT_ERR_IO, "cannot open '%s' for appending: %s", path, strerror(errno));
  for (int i = 0; i < m->output.n_prints; i++)
    if (due(&m->output.prints[i], f)) write_request(out, m, f, &m->output.prints[i]);
  DT_CHECK(!ferror(out), ctx, DT_ERR_IO, "cannot write '%s'", path);
cleanup:
  if (out && fclose(out) != 0 && rc == DT_OK) rc = DT_ERROR(ctx, DT_ERR_IO, "cannot write '%s'", path);
  return rc;
}
