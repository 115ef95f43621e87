/* results.dat in CalculiX's .dat layout (output_dat.h).
 *
 * The file is opened for append at each printed increment and closed again, so the writer
 * keeps no state between increments and a partly run job still leaves a readable file. Row
 * formats follow CalculiX's Fortran: (i10, 1p, 6(1x, e13.6)) for nodes and
 * (i10, 1x, i3, 1p, 6(1x, e13.6)) for integration points; the time is written as Fortran's
 * e14.7 without scale factor (0.1000000E+01). */
#include "io/output_dat.h"
#include "io/output_frd_format.h"
#include "io/output_internal.h"

#include "element/element.h"
#include "element/hex8r.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DAT_NAME "results.dat"

static dt_status dat_path(const char *dir, char *path, size_t n, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  DT_CHECK((size_t)snprintf(path, n, "%s/%s", dir, DAT_NAME) < n, ctx, DT_ERR_IO,
           "output path too long: %s", dir);
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
  snprintf(buf, n, "%s0.%07.0fE%c%02d", mant < 0 ? "-" : " ", fabs(mant) * 1e7, e < 0 ? '-' : '+',
           e < 0 ? -e : e);
}

static void header(FILE *out, const char *what, const char *set, double time) {
  char t[32];

  fortran_e(t, sizeof t, time);
  fprintf(out, "\n %sfor set %s and time %s\n\n", what, set, t);
}

/* The longest table line: a 20-digit id, a point number, six values of at most 14 characters
 * (E13.6 of a finite double), their spaces, a tail, the newline. */
#define DAT_LINE_MAX (64 + 15 * 6)

/* A table line at q: the id as %10lld, an optional point number as " %3d", the values as
 * " %13.6E" each, an optional tail (" L"), a newline; formatted without printf
 * (io/output_frd_format.h, the same characters), as an element block holds a line per
 * integration point. Returns its length (at most DAT_LINE_MAX). */
static size_t format_line(char *line, long long id, int point, const double *v, int n,
                          const char *tail) {
  char *q = line;
  q += dt_frd_put_int(q, id, 10);
  if (point > 0) *q++ = ' ', q += dt_frd_put_int(q, point, 3);
  for (int c = 0; c < n && c < 6; c++) *q++ = ' ', q += dt_frd_put_e13(q, v[c]);
  for (; tail && *tail; tail++) *q++ = *tail;
  *q++ = '\n';
  return (size_t)(q - line);
}

static void table_line(FILE *out, long long id, int point, const double *v, int n,
                       const char *tail) {
  char line[DAT_LINE_MAX];
  fwrite(line, 1, format_line(line, id, point, v, n, tail), out); /* failures: ferror(out) */
}

/* local: a node with a *TRANSFORM prints its vector in the local axes, x_loc[k] = e_k . x,
 * marked " L" as CalculiX marks it (its GLOBAL=NO, the default of *NODE PRINT). */
static void node_block(FILE *out, const dt_model *m, const dt_set *s, const double *v,
                       const char *what, double time, int local) {
  header(out, what, s->name, time);
  for (int i = 0; i < s->n; i++) {
    const double *x = &v[3 * (size_t)s->items[i]];
    double e[3][3], y[3];
    if (local && dt_model_node_axes(m, s->items[i], e)) {
      for (int k = 0; k < 3; k++) y[k] = e[k][0] * x[0] + e[k][1] * x[1] + e[k][2] * x[2];
      table_line(out, (long long)m->node_id[s->items[i]], 0, y, 3, " L");
      continue;
    }
    table_line(out, (long long)m->node_id[s->items[i]], 0, x, 3, NULL);
  }
}

/* CalculiX's TOTALS line: the sum over the set, format (6x, 1p, 3(1x, e13.6)). */
static void total_block(FILE *out, const dt_set *s, const double *v, double time) {
  double t[3] = {0, 0, 0};

  for (int i = 0; i < s->n; i++)
    for (int k = 0; k < 3; k++) t[k] += v[3 * (size_t)s->items[i] + k];
  header(out, "total force (fx,fy,fz) ", s->name, time);
  fprintf(out, "       %13.6E %13.6E %13.6E\n", t[0], t[1], t[2]);
}

/* Element i of set s's lines at p (point values v, ncomp each); returns their length. */
static size_t elem_lines(char *p, const dt_model *m, const dt_fields *f, const dt_set *s, int i,
                         const double *v, int ncomp, int shear_half) {
  const int e = s->items[i];
  size_t len = 0;
  for (int q = f->qp_ptr[e]; q < f->qp_ptr[e + 1]; q++) {
    double x[6];
    for (int c = 0; c < ncomp && c < 6; c++)
      x[c] = v[(size_t)q * (size_t)ncomp + (size_t)c] * (shear_half && c >= 3 ? 0.5 : 1.0);
    len += format_line(p + len, (long long)m->elem_id[e], q - f->qp_ptr[e] + 1, x, ncomp, NULL);
  }
  return len;
}

/* Lines an element block formats at once (DAT_LINE_MAX bytes each at most), and a task's
 * share of them. */
#define DAT_ROUND_LINES 65536
#define DAT_CHUNK_LINES 2048
#define DAT_MAX_CHUNKS (DAT_ROUND_LINES / DAT_CHUNK_LINES + 2)
#define DAT_CHUNK_BYTES ((size_t)(DAT_CHUNK_LINES + DT_ELEM_MAX_QP) * DAT_LINE_MAX)

/* A round's chunks to the file, in order. */
static void write_chunks(FILE *out, const char *buf, const size_t *len, int nc) {
  for (int c = 0; c < nc; c++) fwrite(buf + (size_t)c * DAT_CHUNK_BYTES, 1, len[c], out);
}

/* Integration-point block: ncomp values per point; shear_half halves components 3..5 (strain).
 * The lines are formatted in rounds: the round's elements in chunks of about DAT_CHUNK_LINES
 * lines, each chunk a task of the writer's team (serial outside one) writing into its own part
 * of one half of buf, then the chunks written in order by a task that overlaps the next round's
 * formatting into the other half: the bytes of a line-by-line loop. Without buf (its
 * allocation failed), line by line. */
static void elem_block(FILE *out, const dt_model *m, const dt_fields *f, const dt_set *s,
                       const double *v, int ncomp, int shear_half, const char *what, char *buf) {
  header(out, what, s->name, f->time);
  for (int i0 = 0, round = 0; i0 < s->n; round++) {
    int start[DAT_MAX_CHUNKS + 1], nc = 0, lines = 0, i = i0;
    size_t len[DAT_MAX_CHUNKS];
    char *half = buf + (size_t)(round & 1) * DAT_MAX_CHUNKS * DAT_CHUNK_BYTES;
    if (buf == NULL) {
      char line[DAT_LINE_MAX * DT_ELEM_MAX_QP];
      fwrite(line, 1, elem_lines(line, m, f, s, i0++, v, ncomp, shear_half), out);
      continue;
    }
    start[0] = i0;
    while (i < s->n && nc < DAT_MAX_CHUNKS) { /* chunk nc: elements start[nc] .. start[nc+1]-1 */
      const int e = s->items[i], np = f->qp_ptr[e + 1] - f->qp_ptr[e];
      if (lines + np > DAT_ROUND_LINES && i > start[nc]) break;
      lines += np;
      i++;
      if (lines >= (nc + 1) * DAT_CHUNK_LINES) start[++nc] = i;
    }
    if (i > start[nc]) start[++nc] = i;
#pragma omp taskloop grainsize(1) shared(start, len)
    for (int c = 0; c < nc; c++) {
      size_t at = 0;
      char *p = half + (size_t)c * DAT_CHUNK_BYTES;
      for (int k = start[c]; k < start[c + 1]; k++)
        at += elem_lines(p + at, m, f, s, k, v, ncomp, shear_half);
      len[c] = at;
    }
#pragma omp taskwait /* the previous round's write, which used the other half */
#pragma omp task firstprivate(len)
    write_chunks(out, half, len, nc);
    i0 = i;
  }
#pragma omp taskwait
}

/* The request applies to f's step: from the step that gave it until a later step gives its own. */
static int active(const dt_print_request *r, const dt_fields *f) {
  return f->step >= r->step_begin && (r->step_end <= 0 || f->step < r->step_end);
}

static int due(const dt_print_request *r, const dt_fields *f) {
  return active(r, f) &&
         (f->load_factor >= 1.0 - 1e-12 || (r->every > 0 && f->increment % r->every == 0));
}

/* The request's variables in the order it lists them (fields' bits in a fixed order when it
 * has no list). */
static int request_vars(const dt_print_request *r, unsigned vars[DT_PRINT_MAX_VARS]) {
  static const unsigned order[] = {DT_OUT_U,    DT_OUT_RF,   DT_OUT_S,    DT_OUT_E,
                                   DT_OUT_PEEQ, DT_OUT_ENER, DT_OUT_ELSE, DT_OUT_EVOL};
  int n = 0;

  if (r->n_vars > 0) {
    for (n = 0; n < r->n_vars && n < DT_PRINT_MAX_VARS; n++) vars[n] = r->vars[n];
    return n;
  }
  for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
    if (r->fields & order[k]) vars[n++] = order[k];
  return n;
}

static int prints_forces(const dt_print_request *r) {
  unsigned vars[DT_PRINT_MAX_VARS];
  int n = request_vars(r, vars);

  for (int k = 0; k < n; k++)
    if (!r->element && vars[k] == DT_OUT_RF) return 1;
  return 0;
}

/* Whether r prints the points' energy density (ENER, or ELSE, its volume integral). */
static int prints_energy(const dt_print_request *r) {
  return r->element && (r->fields & (DT_OUT_ENER | DT_OUT_ELSE)) != 0;
}

/* CalculiX's nodal "forces" (*NODE PRINT RF, the .frd's FORC): the internal force f_int = sum
 * over elements of int B^T sigma dV at the nodes marked in `mask` (every node without one),
 * which is the reaction at a constrained DOF and the applied load at a loaded free one (up to
 * the equilibrium residual). fields.rf carries only the reactions, and the writer thread gets
 * no backend vector, so f_int is formed here from the converged point stresses, with the
 * backends' element functions, rule, B-bar choice (problem.c) and 2D thickness: the same sum
 * the backends form (hex8r's with its uniform gradients and its hourglass forces K_hg u, which
 * CalculiX's C3D8R adds too). Elements without a marked node are skipped, so a print on a support costs
 * a few elements. A node no element uses (a rigid body's reference or rotation node) gets
 * CalculiX's force there, the constrained nodes' forces mapped by its constraints
 * (dt_model_mpc_forces). Axisymmetric elements print what ccx 2.20 prints for them (checked
 * against it, docs/interop.md): it expands them into a 2-degree sector of 3D elements and prints
 * that sector's forces, 2/360 of the ring's (a *CLOAD is the whole ring's, as in the solver),
 * and without the hoop term (N_a / r) sigma_zz of the radial force: the x forces of an element
 * sum to 0, as for the gradient terms alone. Those are not the radial reactions, which the
 * solver's fields (fields.rf) carry for the whole ring, hoop term included. Returns 0, or -1
 * when the fields do not carry the points of the model's elements. */
int dt_internal_forces(const dt_model *m, const dt_fields *f, const unsigned char *mask,
                       double *out) {
  for (size_t k = 0; k < 3 * (size_t)m->n_nodes; k++) out[k] = 0.0;
  if (m->n_elems == 0) return 0;
  if (!f->qp_ptr || !f->qp_stress || f->n_elems != m->n_elems || !m->elem_section) return -1;
  /* a node that only constraints use takes its force from the constrained nodes' forces */
  for (int i = 0; mask && m->node_isolated && i < m->n_nodes; i++)
    if (mask[i] && m->node_isolated[i]) mask = NULL;
  for (int e = 0; e < m->n_elems; e++) {
    const int type = m->elem_type[e], npe = dt_elem_nnodes(type), dim = dt_elem_dim(type);
    const int *cn = m->conn + m->elem_ptr[e];
    const dt_section *sec = &m->sections[m->elem_section[e]];
    const int bbar = sec->form == DT_FORM_BBAR && (type == DT_ELEM_HEX8 || type == DT_ELEM_QUAD4);
    const double thick = (m->dim == 2 && sec->thickness > 0) ? sec->thickness : 1.0;
    const int axisym = sec->kind == DT_SECTION_AXISYMMETRIC;
    double X[3 * DT_ELEM_MAX_NODES], N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES],
        dNdx[3 * DT_ELEM_MAX_NODES];
    double dNdx_bar[3 * DT_ELEM_MAX_NODES], vol = 0.0;
    int touched = 0;

    if (f->qp_ptr[e + 1] - f->qp_ptr[e] != dt_elem_nqp(type)) return -1;
    for (int a = 0; a < npe; a++) touched |= mask ? mask[cn[a]] : 1;
    if (!touched) continue;
    for (int a = 0; a < npe; a++) memcpy(&X[3 * a], &m->x[3 * (size_t)cn[a]], 3 * sizeof(double));
    if (bbar) dt_elem_bbar_average(type, X, dNdx_bar, &vol);
    if (type == DT_ELEM_HEX8R) { /* the uniform gradients' stress, and the hourglass forces */
      double ue[24] = {0}, fe[24] = {0}, gam[32];
      vol = dt_hex8r_mean_gradients(X, N, dN, dNdx, dNdx_bar);
      for (int a = 0; a < 8 && f->u; a++)
        memcpy(&ue[3 * a], &f->u[3 * (size_t)cn[a]], 3 * sizeof(double));
      if (vol > 0.0)
        dt_hex8r_hourglass_add(gam,
                               dt_hex8r_hourglass(X, dNdx_bar, vol,
                                                  dt_hex8r_modulus(&m->materials[sec->material].p),
                                                  gam),
                               ue, fe, NULL);
      for (int a = 0; a < 8; a++) {
        double fa[3] = {0, 0, 0};
        dt_elem_force_add(3, &dNdx_bar[3 * a], NULL, &f->qp_stress[6 * (size_t)f->qp_ptr[e]], fa);
        for (int k = 0; k < 3; k++) out[3 * (size_t)cn[a] + k] += fa[k] * vol + fe[3 * a + k];
      }
      continue;
    }
    for (int q = 0; q < dt_elem_nqp(type); q++) {
      const double *sig = &f->qp_stress[6 * (size_t)(f->qp_ptr[e] + q)];
      double xi[3], w = 0.0, wdv = 0.0;
      dt_elem_qp(type, q, xi, &w);
      dt_elem_shape(type, xi, N, dN);
      wdv = w * dt_elem_gradients(type, X, dN, dNdx) *
            (axisym ? DT_TWO_PI * dt_axisym_radius(npe, N, X) / 180.0 /* the 2-degree sector */
                    : thick);
      for (int a = 0; a < npe; a++) {
        double fa[3] = {0, 0, 0};
        dt_elem_force_add(dim, &dNdx[3 * a], bbar ? &dNdx_bar[3 * a] : NULL, sig, fa);
        for (int k = 0; k < dim; k++) out[3 * (size_t)cn[a] + k] += fa[k] * wdv;
      }
    }
  }
  dt_model_mpc_forces(m, out);
  return 0;
}

/* ELSE (ener given) or EVOL (ener NULL): one value per element of the set, followed (TOTALS=YES)
 * or replaced (ONLY) by the sum over the set, as CalculiX prints them. Returns 0, or -1 when
 * the fields do not carry an element's points. */
static int elem_integral_block(FILE *out, const dt_model *m, const dt_fields *f, const dt_set *s,
                               const double *ener, int totals) {
  double sum = 0.0;

  if (totals != DT_TOTALS_ONLY)
    header(out, ener ? "internal energy (element, energy) " : "volume (element, volume) ", s->name,
           f->time);
  for (int i = 0; i < s->n; i++) {
    double vol = 0.0, energy = 0.0;
    if (dt_elem_volume_energy(m, f, s->items[i], ener, &vol, ener ? &energy : NULL) != 0) return -1;
    sum += ener ? energy : vol;
    if (totals != DT_TOTALS_ONLY)
      fprintf(out, "%10lld %13.6E\n", (long long)m->elem_id[s->items[i]], ener ? energy : vol);
  }
  if (totals != DT_TOTALS_NO) {
    header(out, ener ? "total internal energy " : "total volume ", s->name, f->time);
    fprintf(out, "       %13.6E\n", sum);
  }
  return 0;
}

/* The blocks of request r, in its order; forces: the internal forces (NULL when r prints none);
 * ener: the points' energy density (NULL when r prints neither ENER nor ELSE). Returns 0, or -1
 * when the fields do not carry an element's points. */
static int write_request(FILE *out, const dt_model *m, const dt_fields *f,
                         const dt_print_request *r, const double *forces, const double *ener,
                         char *buf) {
  unsigned vars[DT_PRINT_MAX_VARS];
  int n = request_vars(r, vars);

  for (int k = 0; k < n; k++) {
    if (!r->element) {
      const dt_set *s = &m->nsets[r->set];
      if (vars[k] == DT_OUT_U)
        node_block(out, m, s, f->u, "displacements (vx,vy,vz) ", f->time, r->local);
      if (vars[k] == DT_OUT_RF && r->totals != DT_TOTALS_ONLY)
        node_block(out, m, s, forces, "forces (fx,fy,fz) ", f->time, r->local);
      if (vars[k] == DT_OUT_RF && r->totals != DT_TOTALS_NO) total_block(out, s, forces, f->time);
      continue;
    }
    const dt_set *s = &m->elsets[r->set];
    if (vars[k] == DT_OUT_S)
      elem_block(out, m, f, s, f->qp_stress, 6, 0,
                 "stresses (elem, integ.pnt.,sxx,syy,szz,sxy,sxz,syz) ", buf);
    if (vars[k] == DT_OUT_E)
      elem_block(out, m, f, s, f->qp_strain, 6, 1,
                 "strains (elem, integ.pnt.,exx,eyy,ezz,exy,exz,eyz) ", buf);
    if (vars[k] == DT_OUT_PEEQ)
      elem_block(out, m, f, s, f->qp_peeq, 1, 0, "equivalent plastic strain (elem, integ.pnt.,pe)",
                 buf);
    if (vars[k] == DT_OUT_ENER)
      elem_block(out, m, f, s, ener, 1, 0, "internal energy density (elem, integ.pnt.,energy) ",
                 buf);
    if ((vars[k] == DT_OUT_ELSE || vars[k] == DT_OUT_EVOL) &&
        elem_integral_block(out, m, f, s, vars[k] == DT_OUT_ELSE ? ener : NULL, r->totals) != 0)
      return -1;
  }
  return 0;
}

int dt_dat_due(const dt_model *m, const dt_fields *f) {
  for (int i = 0; i < m->output.n_prints; i++)
    if (due(&m->output.prints[i], f)) return 1;
  return 0;
}

/* The array of f a printed variable comes from (RF: the stresses it is formed from), NULL if
 * f lacks it or the variable does not belong to a request of that kind. */
static const void *source(const dt_fields *f, int element, unsigned var) {
  if (!element)
    return var == DT_OUT_U    ? (const void *)f->u
           : var == DT_OUT_RF ? (const void *)f->qp_stress
                              : NULL;
  if (!f->qp_ptr) return NULL;
  if (var == DT_OUT_S) return f->qp_stress;
  if (var == DT_OUT_E) return f->qp_strain;
  if (var == DT_OUT_ENER || var == DT_OUT_ELSE) /* 1/2 sigma : eps */
    return f->qp_stress && f->qp_strain ? (const void *)f->qp_strain : NULL;
  if (var == DT_OUT_EVOL) return f->qp_ptr;
  return var == DT_OUT_PEEQ ? (const void *)f->qp_peeq : NULL;
}

/* Every variable request i prints must have come with the fields: a block is never dropped
 * for lack of a field (dt_fields_alloc allocates what the requests print). */
static dt_status check_request(const dt_model *m, const dt_fields *f, int i, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_print_request *r = &m->output.prints[i];
  unsigned vars[DT_PRINT_MAX_VARS];
  int n = request_vars(r, vars);

  DT_CHECK(r->set >= 0 && r->set < (r->element ? m->n_elsets : m->n_nsets), ctx, DT_ERR_INTERNAL,
           "print request %d names set %d, which does not exist", i, r->set);
  for (int k = 0; k < n; k++)
    DT_CHECK(source(f, r->element, vars[k]) != NULL, ctx, DT_ERR_INTERNAL,
             "print request %d: variable 0x%x of a%s set is not in the fields", i, vars[k],
             r->element ? "n element" : " node");
cleanup:
  return rc;
}

dt_status dt_dat_append(const char *dir, const dt_model *m, const dt_fields *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4096];
  FILE *out = NULL;
  unsigned char *mask = NULL;
  double *forces = NULL, *ener = NULL;
  char *buf = NULL;
  int want_forces = 0, want_energy = 0, want_lines = 0;

  if (m->output.n_prints == 0) return DT_OK;
  for (int i = 0; i < m->output.n_prints; i++) {
    if (!due(&m->output.prints[i], f)) continue;
    DT_TRY(check_request(m, f, i, ctx));
    want_forces |= prints_forces(&m->output.prints[i]);
    want_energy |= prints_energy(&m->output.prints[i]);
    want_lines |= m->output.prints[i].element;
  }
  /* the element blocks' text, formatted a round at a time into either half (elem_block);
   * without it, line by line */
  if (want_lines) buf = dt_malloc(2 * (size_t)DAT_MAX_CHUNKS * DAT_CHUNK_BYTES);
  if (want_energy) {
    DT_ALLOC(ener, (size_t)f->n_qp + 1, ctx, "the printed energy densities");
    dt_point_energy(f, ener);
  }
  if (want_forces) {
    DT_ALLOC(mask, m->n_nodes, ctx, "node flags of the printed forces");
    DT_ALLOC(forces, 3 * (size_t)m->n_nodes, ctx, "the printed nodal forces");
    for (int i = 0; i < m->output.n_prints; i++) {
      const dt_print_request *r = &m->output.prints[i];
      if (!due(r, f) || !prints_forces(r)) continue;
      for (int k = 0; k < m->nsets[r->set].n; k++) mask[m->nsets[r->set].items[k]] = 1;
    }
    DT_CHECK(dt_internal_forces(m, f, mask, forces) == 0, ctx, DT_ERR_INTERNAL,
             "the fields do not carry the point stresses of the model's elements (nodal forces)");
  }
  DT_TRY(dat_path(dir, path, sizeof path, ctx));
  out = fopen(path, "a");
  DT_CHECK(out != NULL, ctx, DT_ERR_IO, "cannot open '%s' for appending: %s", path,
           strerror(errno));
  for (int i = 0; i < m->output.n_prints; i++)
    if (due(&m->output.prints[i], f))
      DT_CHECK(write_request(out, m, f, &m->output.prints[i], forces, ener, buf) == 0, ctx,
               DT_ERR_INTERNAL,
               "print request %d: the fields do not carry the points of its elements (ELSE, EVOL)",
               i);
  DT_CHECK(!ferror(out), ctx, DT_ERR_IO, "cannot write '%s'", path);
cleanup:
  if (out && fclose(out) != 0 && rc == DT_OK)
    rc = DT_ERROR(ctx, DT_ERR_IO, "cannot write '%s'", path);
  dt_free(mask);
  dt_free(forces);
  dt_free(ener);
  dt_free(buf);
  return rc;
}
