/* <job name>.frd through dt_output (solver/io/output_frd.c), what the comparison with ccx
 * (tests/interop/frd_compare.py) cannot show:
 *   extrapolation  one element of every type with point values of a polynomial its points
 *                  determine (constant for one point, linear for hex8, hex20r, quad4, tet10,
 *                  quadratic for hex20, quad8, quad9, quad16): the STRESS block holds the
 *                  polynomial at the nodes; the element records of the types CalculiX lacks
 *                  (quad9 as quad8, quad16 as quad4) and hex20's node order;
 *   resume         output.every and the steps' ends choose the sets; the file ends with the
 *                  closing record after every flush; a writer reopened from a checkpoint's
 *                  record cuts the file back to it, and going on gives the bytes of a run
 *                  that was never interrupted;
 *   names          the job name names the file ("results" without one), a name with '/' and
 *                  ids beyond 10 digits are refused at open, a stale file is removed, and
 *                  summary.json names the file;
 *   team           the VTUs, results.dat and the .frd written by a team of 3 or 8 threads
 *                  (dt_output_writer_threads, a device backend's setting: the kinds side by
 *                  side, nodal sums and formatting in tasks) are byte for byte the files of
 *                  the one-thread writer, on a box whose element block takes two rounds of
 *                  the .dat's parallel formatting and whose blocks fill the .frd's buffer;
 *   thread         the caller's part of an increment (dt_output_increment: copies) costs less
 *                  than half the writer thread's (extrapolation, nodal forces, formatting) on
 *                  a 26,000-node box: the .frd is written off the solver's path.
 * Usage: test_io_frd <scratch dir>. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io_fixture.h"
#include "core/clock.h"
#include "element/element.h"
#include "model/mesh_box.h"

static char *join(const char *dir, const char *name) {
  static char buf[4][1200];
  static int k = 0;
  k = (k + 1) % 4;
  if (snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name) >= (int)sizeof buf[k]) abort();
  return buf[k];
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  char *s;
  long len;
  CHECK(f != NULL, "cannot open %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  s = malloc((size_t)len + 1);
  CHECK(s && fread(s, 1, (size_t)len, f) == (size_t)len, "cannot read %s", path);
  fclose(f);
  s[len] = '\0';
  if (n) *n = (size_t)len;
  return s;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static void *zalloc(size_t n, size_t size) {
  void *p = dt_calloc(n ? n : 1, size); /* the model and fields free with dt_free */
  CHECK(p != NULL, "out of memory");
  return p;
}

/* One elastic material and one section over every element. */
static void add_material(dt_model *m, int plastic) {
  m->n_materials = 1;
  m->materials = zalloc(1, sizeof *m->materials);
  snprintf(m->materials[0].name, DT_NAME_MAX, "STEEL");
  m->materials[0].p.E = 210000.0;
  m->materials[0].p.nu = 0.3;
  m->materials[0].p.plastic = plastic ? DT_PLASTIC_J2 : DT_PLASTIC_NONE;
  m->n_sections = 1;
  m->sections = zalloc(1, sizeof *m->sections);
  m->sections[0].kind = m->dim == 2 ? DT_SECTION_PLANE_STRAIN : DT_SECTION_SOLID;
  m->sections[0].form = DT_FORM_FULL;
  m->sections[0].thickness = 1.0;
  m->elem_section = zalloc((size_t)m->n_elems, sizeof *m->elem_section);
}

/* Fields of m at an increment: u and point values from fu (node coordinates) and fs (point
 * coordinates, component c). */
static void make_fields(const dt_model *m, dt_fields *f, double (*fs)(const double *, int)) {
  int nq = 0;
  memset(f, 0, sizeof *f);
  f->n_nodes = m->n_nodes;
  f->n_elems = m->n_elems;
  for (int e = 0; e < m->n_elems; e++) nq += dt_elem_nqp(m->elem_type[e]);
  f->n_qp = nq;
  f->u = zalloc(3 * (size_t)m->n_nodes, sizeof *f->u);
  f->rf = zalloc(3 * (size_t)m->n_nodes, sizeof *f->rf);
  f->qp_ptr = zalloc((size_t)m->n_elems + 1, sizeof *f->qp_ptr);
  f->qp_x = zalloc(3 * (size_t)nq, sizeof *f->qp_x);
  f->qp_stress = zalloc(6 * (size_t)nq, sizeof *f->qp_stress);
  f->qp_strain = zalloc(6 * (size_t)nq, sizeof *f->qp_strain);
  f->qp_peeq = zalloc((size_t)nq, sizeof *f->qp_peeq);
  for (int i = 0; i < 3 * m->n_nodes; i++) f->u[i] = 1e-3 * sin(0.1 * i);
  for (int e = 0, q = 0; e < m->n_elems; e++) {
    const int t = m->elem_type[e], npe = dt_elem_nnodes(t);
    f->qp_ptr[e + 1] = f->qp_ptr[e] + dt_elem_nqp(t);
    for (int k = 0; k < dt_elem_nqp(t); k++, q++) {
      double xi[3], w, N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES], x[3] = {0, 0, 0};
      dt_elem_qp(t, k, xi, &w);
      dt_elem_shape(t, xi, N, dN);
      for (int a = 0; a < npe; a++)
        for (int d = 0; d < 3; d++) x[d] += N[a] * m->x[3 * m->conn[m->elem_ptr[e] + a] + d];
      memcpy(&f->qp_x[3 * q], x, sizeof x);
      for (int c = 0; c < 6; c++) {
        f->qp_stress[6 * q + c] = fs(x, c);
        f->qp_strain[6 * q + c] = 1e-5 * fs(x, c);
      }
      f->qp_peeq[q] = 1e-3 * fabs(fs(x, 0));
    }
  }
}

static void row_of(const dt_fields *f, dt_history_row *r) {
  memset(r, 0, sizeof *r);
  r->step = f->step;
  r->increment = f->increment;
  r->load_factor = f->load_factor;
  r->time = f->time;
}

/* The record after the `which`-th line starting with `key` (1-based), or NULL. */
static const char *nth_line(const char *s, const char *key, int which) {
  size_t n = strlen(key);
  for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (strncmp(p, key, n) == 0 && --which == 0) return p;
  return NULL;
}

static int count_lines(const char *s, const char *key) {
  int n = 0;
  while (nth_line(s, key, n + 1)) n++;
  return n;
}

/* Value k (0-based) of the data record of node `id` in the block that starts at `block`. */
static double block_value(const char *block, long long id, int k) {
  char key[32];
  const char *p;
  snprintf(key, sizeof key, " -1%10lld", id);
  p = strstr(block, key);
  CHECK(p != NULL, "node %lld missing in a block", id);
  {
    char field[13];
    memcpy(field, p + 13 + 12 * k, 12);
    field[12] = '\0';
    return atof(field);
  }
}

/* The polynomial each type's points determine, of a point's coordinates (the reference ones:
 * the test elements are their reference elements). */
static int poly_kind;
static double poly(const double *x, int c) {
  double v = 1.0 + 0.5 * c;
  if (poly_kind >= 1) v += 2.0 * x[0] - 3.0 * x[1] + 0.5 * x[2];
  if (poly_kind >= 2)
    v += x[0] * x[0] - 2.0 * x[0] * x[1] + 0.75 * x[1] * x[1] + x[2] * x[2] - x[1] * x[2];
  return v;
}

/* One element of type t as its reference element, node ids 1.., element id 7. */
static dt_model *one_element(int t) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  const int npe = dt_elem_nnodes(t);
  CHECK(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  m->dim = dt_elem_dim(t);
  m->n_nodes = npe;
  m->x = zalloc(3 * (size_t)npe, sizeof *m->x);
  m->node_id = zalloc((size_t)npe, sizeof *m->node_id);
  for (int a = 0; a < npe; a++) {
    dt_elem_node_xi(t, a, &m->x[3 * a]);
    m->node_id[a] = a + 1;
  }
  m->n_elems = 1;
  m->elem_type = zalloc(1, 1);
  m->elem_type[0] = (unsigned char)t;
  m->elem_ptr = zalloc(2, sizeof *m->elem_ptr);
  m->elem_ptr[1] = npe;
  m->conn = zalloc((size_t)npe, sizeof *m->conn);
  for (int a = 0; a < npe; a++) m->conn[a] = a;
  m->elem_id = zalloc(1, sizeof *m->elem_id);
  m->elem_id[0] = 7;
  add_material(m, 0);
  m->output.vtu = 0;
  m->output.frd = 1;
  m->output.fields = DT_OUT_U | DT_OUT_S;
  return m;
}

static void test_extrapolation(const char *dir) {
  /* type, polynomial degree its points determine, cgx type, node order of the 3C record */
  static const struct {
    int type, degree, cgx, n;
    int order[20];
  } cases[] = {
      {DT_ELEM_HEX8, 1, 1, 8, {0, 1, 2, 3, 4, 5, 6, 7}},
      {DT_ELEM_HEX20, 2, 4, 20, {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                 10, 11, 16, 17, 18, 19, 12, 13, 14, 15}},
      {DT_ELEM_HEX20R, 1, 4, 20, {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                  10, 11, 16, 17, 18, 19, 12, 13, 14, 15}},
      {DT_ELEM_TET4, 0, 3, 4, {0, 1, 2, 3}},
      {DT_ELEM_TET10, 1, 6, 10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
      {DT_ELEM_QUAD4, 1, 9, 4, {0, 1, 2, 3}},
      {DT_ELEM_TRI3, 0, 7, 3, {0, 1, 2}},
      {DT_ELEM_QUAD8, 2, 10, 8, {0, 1, 2, 3, 4, 5, 6, 7}},
      {DT_ELEM_QUAD9, 2, 10, 8, {0, 1, 2, 3, 4, 5, 6, 7}},
      {DT_ELEM_QUAD16, 2, 9, 4, {0, 1, 2, 3}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const int t = cases[i].type;
    dt_model *m = one_element(t);
    dt_output *o = NULL;
    dt_fields f;
    dt_history_row r;
    dt_ctx ctx = {0};
    char sub[1100], head[64], *text;
    const char *rec, *block;
    snprintf(sub, sizeof sub, "%s/type%d", dir, t);
    poly_kind = cases[i].degree;
    make_fields(m, &f, poly);
    f.global_increment = f.increment = 1;
    f.load_factor = f.time = 1.0;
    row_of(&f, &r);
    CHECK(dt_output_open(sub, "one", m, &o, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_output_increment(o, m, &f, &r, 0, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_output_close(&o, m, NULL, &ctx) == DT_OK, "%s", ctx.msg);
    text = slurp(join(sub, "one.frd"), NULL);
    /* the element record: " -1", id 7, the cgx type, group 0, material 1; then its nodes */
    snprintf(head, sizeof head, " -1%10d%5d%5d%5d\n -2", 7, cases[i].cgx, 0, 1);
    rec = strstr(text, head);
    CHECK(rec != NULL, "type %d: no element record '%s' in\n%.600s", t, head, text);
    /* " -2" lines of 10 nodes (104 bytes with the newline), each an I10 */
    for (int k = 0; k < cases[i].n; k++) {
      const char *p = rec + strlen(head) + (k / 10) * 104 + 10 * (k % 10);
      char id[11];
      memcpy(id, p, 10);
      id[10] = '\0';
      CHECK(atoll(id) == cases[i].order[k] + 1,
            "type %d: node %d of the element record is %s, not node %d", t, k + 1, id,
            cases[i].order[k] + 1);
    }
    block = strstr(text, " -4  STRESS");
    CHECK(block != NULL, "type %d: no STRESS block", t);
    /* every node, the element's own included where the record leaves it out: the polynomial,
     * to the file's six digits; components in CalculiX's order (xx, yy, zz, xy, yz, zx) */
    for (int a = 0; a < m->n_nodes; a++) {
      static const int ours[6] = {0, 1, 2, 3, 5, 4};
      for (int k = 0; k < 6; k++) {
        const double want = poly(&m->x[3 * a], ours[k]), got = block_value(block, a + 1, k);
        CHECK(fabs(got - want) <= 1e-5 * fabs(want) + 1e-9,
              "type %d node %d component %d: %.6g, want %.6g", t, a + 1, k, got, want);
      }
    }
    free(text);
    dt_fields_free(&f);
    dt_model_destroy(&m);
  }
  printf("ok: extrapolation to the nodes and element records of every type\n");
}

/* A 4 x 2 x 2 box, J2 material (PE is written), every 2nd increment and the steps' ends. */
static dt_model *box(int nx, int ny, int nz) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  CHECK(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_mesh_box_hex8(m, nx, ny, nz, nx, ny, nz, &ctx) == DT_OK, "%s", ctx.msg);
  add_material(m, 1);
  m->output.vtu = 0;
  m->output.frd = 1;
  return m;
}

static double wavy(const double *x, int c) {
  return 100.0 * sin(x[0] + 0.3 * c) + 10.0 * x[1] * x[2];
}

/* Increment g (1-based) of the schedule: step 0 has 3 increments, step 1 two. */
static void increment_of(int g, dt_fields *f) {
  f->global_increment = g;
  f->step = g <= 3 ? 0 : 1;
  f->increment = g <= 3 ? g : g - 3;
  f->load_factor = g <= 3 ? g / 3.0 : (g - 3) / 2.0;
  f->time = f->step + f->load_factor;
  for (int i = 0; i < 3 * f->n_nodes; i++) f->u[i] = 1e-3 * g * sin(0.1 * i);
}

static void write_increments(dt_output *o, const dt_model *m, dt_fields *f, int from, int to) {
  dt_ctx ctx = {0};
  for (int g = from; g <= to; g++) {
    dt_history_row r;
    increment_of(g, f);
    row_of(f, &r);
    CHECK(dt_output_increment(o, m, f, &r, 0, &ctx) == DT_OK, "%s", ctx.msg);
  }
}

static int ends_closed(const char *path) {
  size_t n;
  char *s = slurp(path, &n);
  int ok = n >= 6 && strcmp(s + n - 6, " 9999\n") == 0;
  free(s);
  return ok;
}

static void test_resume(const char *dir) {
  dt_model *m = box(4, 2, 2);
  dt_output *o = NULL;
  dt_fields f;
  dt_ctx ctx = {0};
  char a[1100], b[1100], *whole, *cut, *again;
  size_t n_whole, n_cut, n_again;
  FILE *state = tmpfile();
  CHECK(state != NULL, "tmpfile: %s", strerror(errno));
  m->output.every = 2;
  make_fields(m, &f, wavy);
  snprintf(a, sizeof a, "%s/whole", dir);
  snprintf(b, sizeof b, "%s/resumed", dir);
  /* uninterrupted: increments 2, 3 (step 0's end), 4, 5 (step 1's end) are written */
  CHECK(dt_output_open(a, "job", m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  for (int g = 1; g <= 5; g++) {
    write_increments(o, m, &f, g, g);
    CHECK(dt_output_flush(o, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(g == 1 ? !exists(join(a, "job.frd")) : ends_closed(join(a, "job.frd")),
          "after increment %d the file is %s", g, g == 1 ? "there" : "not closed by ' 9999'");
  }
  CHECK(dt_output_close(&o, m, NULL, &ctx) == DT_OK, "%s", ctx.msg);
  whole = slurp(join(a, "job.frd"), &n_whole);
  CHECK(count_lines(whole, "  100CL") == 4 * 5, "sets x blocks: %d", count_lines(whole, "  100CL"));
  CHECK(strstr(whole, "  100CL  104 2.000000000") && strstr(whole, "  100CL  102 1.000000000") &&
            strstr(whole, "  100CL  101 6.66667E-01"),
        "the sets' numbers and times");
  CHECK(strstr(whole, "    1PSTEP                        20           2           2") != NULL,
        "the 20th block is step 2's increment 2");
  CHECK(count_lines(whole, " -4  PE") == 4 && count_lines(whole, " -4  FORC") == 4,
        "PE (a plastic material) and FORC blocks");
  /* interrupted after increment 3, with a checkpoint's record; increments 4 and 5 written
   * before the crash are written again after the resume */
  CHECK(dt_output_open(b, "job", m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  write_increments(o, m, &f, 1, 3);
  CHECK(dt_output_save_state(o, state, &ctx) == DT_OK, "%s", ctx.msg);
  write_increments(o, m, &f, 4, 5);
  CHECK(dt_output_close(&o, m, NULL, &ctx) == DT_OK, "%s", ctx.msg);
  rewind(state);
  CHECK(dt_output_open_resume(b, "job", m, state, &o, &ctx) == DT_OK, "%s", ctx.msg);
  cut = slurp(join(b, "job.frd"), &n_cut);
  CHECK(count_lines(cut, "  100CL") == 2 * 5 && ends_closed(join(b, "job.frd")) &&
            memcmp(cut, whole, n_cut - 6) == 0,
        "the resumed file holds the first two sets, closed");
  write_increments(o, m, &f, 4, 5);
  CHECK(dt_output_close(&o, m, NULL, &ctx) == DT_OK, "%s", ctx.msg);
  again = slurp(join(b, "job.frd"), &n_again);
  CHECK(n_again == n_whole && memcmp(again, whole, n_whole) == 0,
        "the resumed run's file differs from the uninterrupted one (%zu, %zu bytes)", n_again,
        n_whole);
  fclose(state);
  free(whole);
  free(cut);
  free(again);
  dt_fields_free(&f);
  dt_model_destroy(&m);
  printf("ok: schedule, closing record, resume from a checkpoint's record\n");
}

static void test_names(const char *dir) {
  dt_model *m = box(2, 1, 1);
  dt_output *o = NULL;
  dt_fields f;
  dt_history_row r;
  dt_run_summary s;
  dt_ctx ctx = {0};
  char d[1100], *json;
  FILE *stale;
  snprintf(d, sizeof d, "%s/names", dir);
  CHECK(dt_output_open(d, "a/b", m, &o, &ctx) == DT_ERR_INPUT && o == NULL &&
            strstr(ctx.msg, "must not contain '/'"),
        "a job name with '/': %s", ctx.msg);
  memset(&ctx, 0, sizeof ctx);
  m->elem_id[1] = 12345678901LL;
  CHECK(dt_output_open(d, NULL, m, &o, &ctx) == DT_ERR_INPUT && strstr(ctx.msg, "12345678901"),
        "an 11-digit element id: %s", ctx.msg);
  memset(&ctx, 0, sizeof ctx);
  m->elem_id[1] = 2;
  /* a file of an earlier run goes at open, so a run that writes nothing leaves none */
  stale = fopen(join(d, "results.frd"), "w");
  CHECK(stale != NULL && fputs("old\n", stale) >= 0 && fclose(stale) == 0, "cannot write");
  memset(&s, 0, sizeof s);
  CHECK(dt_output_open(d, "", m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(!exists(join(d, "results.frd")), "the stale results.frd is still there");
  CHECK(dt_output_close(&o, m, &s, &ctx) == DT_OK, "%s", ctx.msg);
  json = slurp(join(d, "summary.json"), NULL);
  CHECK(strstr(json, "\"frd\": null") != NULL, "summary.json without a .frd: %.400s", json);
  free(json);
  /* without a name: results.frd, which summary.json names */
  make_fields(m, &f, wavy);
  increment_of(3, &f);
  row_of(&f, &r);
  CHECK(dt_output_open(d, NULL, m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_output_increment(o, m, &f, &r, 0, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_output_close(&o, m, &s, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ends_closed(join(d, "results.frd")), "results.frd");
  json = slurp(join(d, "summary.json"), NULL);
  CHECK(strstr(json, "\"frd\": \"results.frd\"") != NULL, "summary.json: %.600s", json);
  free(json);
  dt_fields_free(&f);
  dt_model_destroy(&m);
  printf("ok: file names, refusals, stale file, summary.json\n");
}

static void test_thread(const char *dir) {
  dt_model *m = box(40, 30, 20);
  dt_output *o = NULL;
  dt_fields f;
  dt_ctx ctx = {0};
  char d[1100];
  double t_call = 0.0, t_write = 0.0;
  snprintf(d, sizeof d, "%s/thread", dir);
  make_fields(m, &f, wavy);
  CHECK(dt_output_open(d, "box", m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  for (int g = 1; g <= 3; g++) {
    dt_history_row r;
    double t0, t1, t2;
    increment_of(3, &f); /* a step's end: written */
    f.global_increment = g;
    row_of(&f, &r);
    t0 = dt_seconds();
    CHECK(dt_output_increment(o, m, &f, &r, 0, &ctx) == DT_OK, "%s", ctx.msg);
    t1 = dt_seconds();
    CHECK(dt_output_flush(o, &ctx) == DT_OK, "%s", ctx.msg);
    t2 = dt_seconds();
    if (g > 1) { /* the first call also sizes the buffers and builds the matrices */
      t_call += t1 - t0;
      t_write += t2 - t1;
    }
  }
  CHECK(dt_output_close(&o, m, NULL, &ctx) == DT_OK, "%s", ctx.msg);
  printf("thread: %d nodes, per increment %.1f ms in dt_output_increment, %.1f ms more until the "
         "writer thread is done\n",
         m->n_nodes, 1e3 * t_call / 2, 1e3 * t_write / 2);
  CHECK(t_call < 0.5 * t_write,
        "the caller spends %.3f s on output, the writer thread %.3f s: the .frd is not written "
        "off the solver's path",
        t_call, t_write);
  dt_fields_free(&f);
  dt_model_destroy(&m);
  printf("ok: the writer thread formats the .frd\n");
}

/* Every file of dir a equals the one of that name in dir b. */
static void same_files(const char *a, const char *b, const char *const *names, int n) {
  for (int i = 0; i < n; i++) {
    size_t na, nb;
    char *x = slurp(join(a, names[i]), &na), *y = slurp(join(b, names[i]), &nb);
    CHECK(na > 0 && na == nb && memcmp(x, y, na) == 0, "%s differs (%zu, %zu bytes)", names[i], na,
          nb);
    free(x);
    free(y);
  }
}

static void test_team(const char *dir) {
  static const char *const names[] = {"job.frd", "results.dat", "increment_0002.vtu",
                                      "increment_0005.vtu", "results.pvd"};
  static const int threads[] = {1, 3, 8};
  dt_model *m = box(34, 16, 16); /* 69,632 points: the .dat's rounds take 65,536 lines */
  dt_fields f;
  char d[3][1100];
  m->output.vtu = 1;
  m->output.every = 2;
  m->output.n_prints = 2; /* U of every node, S and PEEQ of every element (the box's "all") */
  memset(m->output.prints, 0, 2 * sizeof m->output.prints[0]);
  m->output.prints[0].fields = DT_OUT_U;
  m->output.prints[0].every = 1;
  m->output.prints[1].element = 1;
  m->output.prints[1].fields = DT_OUT_S | DT_OUT_PEEQ;
  m->output.prints[1].every = 1;
  make_fields(m, &f, wavy);
  for (int k = 0; k < 3; k++) {
    dt_output *o = NULL;
    dt_ctx ctx = {0};
    snprintf(d[k], sizeof d[k], "%s/team%d", dir, threads[k]);
    CHECK(dt_output_open(d[k], "job", m, &o, &ctx) == DT_OK, "%s", ctx.msg);
    dt_output_writer_threads(o, threads[k]);
    for (int g = 1; g <= 5; g++) { /* VTUs at every increment */
      dt_history_row r;
      increment_of(g, &f);
      row_of(&f, &r);
      CHECK(dt_output_increment(o, m, &f, &r, 1, &ctx) == DT_OK, "%s", ctx.msg);
    }
    CHECK(dt_output_close(&o, m, NULL, &ctx) == DT_OK, "%s", ctx.msg);
    if (k > 0) same_files(d[0], d[k], names, (int)(sizeof names / sizeof names[0]));
  }
  dt_fields_free(&f);
  dt_model_destroy(&m);
  printf("ok: the files a team of 3 and of 8 threads writes are the one-thread writer's, byte "
         "for byte\n");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_io_frd <scratch dir>\n");
    return 64;
  }
  CHECK(mkdir(argv[1], 0755) == 0 || errno == EEXIST, "%s: %s", argv[1], strerror(errno));
  CHECK(mkdir(join(argv[1], "names"), 0755) == 0 || errno == EEXIST, "%s", strerror(errno));
  test_extrapolation(argv[1]);
  test_resume(argv[1]);
  test_names(argv[1]);
  test_team(argv[1]);
  test_thread(argv[1]);
  return 0;
}
