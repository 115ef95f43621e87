/* The output writer end to end: history.csv, VTU (binary, written by the writer thread), PVD
 * and summary.json read back and compared with what was written; error messages; allocation
 * failures at every point.
 * Usage: test_io_output <scratch dir>; results go to <scratch dir>/run/nested, which
 * check_vtu.py validates afterwards. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io_fixture.h"
#include "vtu_read.h"

#define N_INC 3

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  long n;
  char *s;
  CHECK(f != NULL, "cannot open %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  s = calloc((size_t)n + 1, 1);
  CHECK(s && fread(s, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
  fclose(f);
  return s;
}

static char *join(const char *dir, const char *name) {
  static char buf[4][1024];
  static int k = 0;
  k = (k + 1) % 4;
  if (snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name) >= (int)sizeof buf[k]) abort();
  return buf[k];
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static void make_row(const dt_model *m, const dt_fields *f, int inc, dt_history_row *r) {
  memset(r, 0, sizeof *r);
  r->step = f->step;
  r->increment = f->increment;
  r->load_factor = f->load_factor;
  r->time = f->time;
  r->newton_iters = 3 + inc;
  r->pcg_iters = 100 * inc + 7;
  r->residual = 1e-7 / (3.0 * inc);
  r->cutbacks = inc == 2;
  r->n_plastic_qp = 4 * inc;
  r->n_monitors = m->output.n_monitors;
  r->monitor[0] = f->u[3 * 2];                /* node 2, x */
  r->monitor[1] = f->rf[9] / 7.0 + 1.0 / 3.0; /* node 3, x: anything inexact */
}

static void make_summary(dt_run_summary *s) {
  memset(s, 0, sizeof *s);
  s->completed = 0;
  s->reason = DT_INCREMENT_TOO_SMALL;
  snprintf(s->message, sizeof s->message, "step 2: increment below 1e-05 at load 0.37");
  snprintf(s->backend, sizeof s->backend, "cpu");
  s->steps_completed = 1;
  s->increments = N_INC;
  s->cutbacks = 1;
  s->newton_iters = 15;
  s->pcg_iters = 607;
  s->last_time = 2.0;
  s->seconds_total = 1.25;
  s->seconds_solver = 0.5;
  s->max_u = 1.0 / 7.0;
  s->max_mises = NAN; /* not finite: must come out as null, not break the JSON */
  s->max_peeq = 0.03;
}

/* Open, write N_INC increments (fields for 1 and 3), close. Returns the first failure. */
static dt_status run_writer(const char *dir, const dt_model *m, dt_ctx *ctx) {
  dt_output *o = NULL;
  dt_fields f;
  dt_history_row row;
  dt_run_summary s;
  dt_status rc;
  int inc;
  memset(&f, 0, sizeof f);
  rc = dt_output_open(dir, NULL, m, &o, ctx);
  for (inc = 1; rc == DT_OK && inc <= N_INC; inc++) {
    fix_fields(m, inc, &f);
    if (f.u == NULL || f.rf == NULL || f.qp_ptr == NULL || f.qp_x == NULL || f.qp_stress == NULL ||
        f.qp_peeq == NULL) {
      rc = DT_ERR_NOMEM; /* the fixture's own dt_calloc hit the fault injector */
    } else {
      make_row(m, &f, inc, &row);
      rc = dt_output_increment(o, m, &f, &row, inc != 2, ctx);
    }
    dt_fields_free(&f);
  }
  make_summary(&s);
  if (rc == DT_OK) return dt_output_close(&o, m, &s, ctx);
  dt_output_close(&o, m, NULL, NULL);
  return rc;
}

static void check_csv(const char *dir, const dt_model *m) {
  char *text = slurp(join(dir, "history.csv")), *line, *save = NULL;
  int inc = 0;
  line = strtok_r(text, "\n", &save);
  CHECK(line &&
            strcmp(line, "step,increment,time,load_factor,newton_iterations,pcg_iterations,"
                         "residual,cutbacks,plastic_points,u_right_x,\"rf \"\"left\"\", x\"") == 0,
        "header is '%s'", line ? line : "(none)");
  while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
    dt_fields f;
    dt_history_row r;
    char *p = line;
    inc++;
    fix_fields(m, inc, &f);
    make_row(m, &f, inc, &r);
    dt_fields_free(&f);
    CHECK(strtol(p, &p, 10) == r.step + 1 && *p++ == ',', "row %d step", inc);
    CHECK(strtol(p, &p, 10) == r.increment && *p++ == ',', "row %d increment", inc);
    CHECK(strtod(p, &p) == r.time && *p++ == ',', "row %d time", inc);
    CHECK(strtod(p, &p) == r.load_factor && *p++ == ',', "row %d load factor", inc);
    CHECK(strtol(p, &p, 10) == r.newton_iters && *p++ == ',', "row %d newton", inc);
    CHECK(strtol(p, &p, 10) == r.pcg_iters && *p++ == ',', "row %d pcg", inc);
    CHECK(strtod(p, &p) == r.residual && *p++ == ',', "row %d residual not exact", inc);
    CHECK(strtol(p, &p, 10) == r.cutbacks && *p++ == ',', "row %d cutbacks", inc);
    CHECK(strtol(p, &p, 10) == r.n_plastic_qp && *p++ == ',', "row %d plastic", inc);
    CHECK(strtod(p, &p) == r.monitor[0] && *p++ == ',', "row %d monitor 0", inc);
    CHECK(strtod(p, &p) == r.monitor[1] && *p == '\0', "row %d monitor 1 / trailing '%s'", inc, p);
  }
  CHECK(inc == N_INC, "history has %d rows, want %d", inc, N_INC);
  free(text);
}

/* The array `name` of `section`, checked to be of `type` with n values. */
static const vtu_array *get(const vtu_file *v, const char *file, const char *section,
                            const char *name, const char *type, size_t n) {
  const vtu_array *a = vtu_get(v, section, name);
  CHECK(a != NULL, "%s: no %s array '%s'", file, section, name);
  CHECK(strcmp(a->type, type) == 0 && a->nbytes == n * vtu_type_size(type),
        "%s: %s '%s' is %s of %zu bytes, want %s of %zu values", file, section, name, a->type,
        a->nbytes, type, n);
  return a;
}

static double f64(const vtu_array *a, size_t i) {
  double x;
  memcpy(&x, a->data + 8 * i, 8);
  return x;
}

static long long i64(const vtu_array *a, size_t i) {
  long long x;
  memcpy(&x, a->data + 8 * i, 8);
  return x;
}

static int i32(const vtu_array *a, size_t i) {
  int x;
  memcpy(&x, a->data + 4 * i, 4);
  return x;
}

/* The binary values are the solver's doubles themselves: compare bytes, not numbers. */
static void same_doubles(const vtu_array *a, const double *want, size_t n, const char *what) {
  CHECK(a->nbytes == 8 * n && memcmp(a->data, want, 8 * n) == 0, "%s differs from its input", what);
}

static void check_vtu(const char *dir, const dt_model *m, int inc) {
  char name[64];
  vtu_file v;
  const vtu_array *a;
  dt_fields f;
  dt_ctx ctx;
  double nodal[72];
  int i;
  snprintf(name, sizeof name, "increment_%04d.vtu", inc);
  vtu_load(join(dir, name), &v); /* checks the layout: tags, offsets, sizes */
  fix_fields(m, inc, &f);
  dt_ctx_reset(&ctx);
  CHECK(v.n_points == 12 && v.n_cells == 2, "%s: sizes %d %d", name, v.n_points, v.n_cells);
  a = get(&v, name, "Cells", "connectivity", "Int64", 16);
  for (i = 0; i < 16; i++)
    CHECK(i64(a, i) == m->conn[i], "%s: connectivity[%d] = %lld", name, i, i64(a, i));
  a = get(&v, name, "Cells", "offsets", "Int64", 2);
  CHECK(i64(a, 0) == 8 && i64(a, 1) == 16, "%s: offsets", name);
  a = get(&v, name, "Cells", "types", "UInt8", 2);
  CHECK(a->data[0] == 12 && a->data[1] == 12, "%s: types", name);
  same_doubles(get(&v, name, "Points", "", "Float64", 36), m->x, 36, "Points");
  same_doubles(get(&v, name, "PointData", "U", "Float64", 36), f.u, 36, "U");
  same_doubles(get(&v, name, "PointData", "RF", "Float64", 36), f.rf, 36, "RF");
  a = get(&v, name, "PointData", "S", "Float64", 72);
  /* node 1 (x = 1) is shared: mean of the two element means */
  CHECK(fabs(f64(a, 6 * 1 + 3) - 0.5 * (fix_elem_stress(0, 3, inc) + fix_elem_stress(1, 3, inc))) <
            1e-12,
        "%s: shared-node S_xy %.17g", name, f64(a, 9));
  CHECK(dt_fields_nodal_average(m, &f, f.qp_stress, 6, nodal, &ctx) == DT_OK, "%s", ctx.msg);
  same_doubles(a, nodal, 72, "nodal S (against dt_fields_nodal_average)");
  get(&v, name, "PointData", "PEEQ", "Float64", 12);
  get(&v, name, "PointData", "MISES", "Float64", 12);
  CHECK(vtu_get(&v, "PointData", "E") == NULL && vtu_get(&v, "CellData", "E") == NULL,
        "%s: E written though the fields have no strain", name);
  a = get(&v, name, "CellData", "S", "Float64", 12);
  CHECK(fabs(f64(a, 6) - fix_elem_stress(1, 0, inc)) < 1e-12, "%s: cell S", name);
  a = get(&v, name, "CellData", "elem_id", "Int64", 2);
  CHECK(i64(a, 1) == 1000000000007LL, "%s: elem_id", name);
  a = get(&v, name, "CellData", "section", "Int32", 2);
  CHECK(i32(a, 1) == 1, "%s: section", name);
  same_doubles(get(&v, name, "FieldData", "TIME", "Float64", 1), &f.time, 1, "TIME");
  a = get(&v, name, "FieldData", "STEP", "Int32", 1);
  CHECK(i32(a, 0) == f.step, "%s: STEP", name);
  a = get(&v, name, "FieldData", "INCREMENT", "Int32", 1);
  CHECK(i32(a, 0) == f.increment, "%s: INCREMENT", name);
  vtu_free(&v);
  /* The point cloud: the raw point values, each point a vertex of its own. */
  snprintf(name, sizeof name, "increment_%04d_points.vtu", inc);
  vtu_load(join(dir, name), &v);
  CHECK(v.n_points == 2 * FIX_QP && v.n_cells == 2 * FIX_QP, "%s: sizes", name);
  same_doubles(get(&v, name, "PointData", "S", "Float64", 6 * 2 * FIX_QP), f.qp_stress,
               6 * 2 * FIX_QP, "point S");
  same_doubles(get(&v, name, "PointData", "PEEQ", "Float64", 2 * FIX_QP), f.qp_peeq, 2 * FIX_QP,
               "point PEEQ");
  a = get(&v, name, "PointData", "MISES", "Float64", 2 * FIX_QP);
  CHECK(f64(a, 3) == dt_mises(f.qp_stress + 6 * 3), "%s: point MISES", name);
  a = get(&v, name, "PointData", "elem_id", "Int64", 2 * FIX_QP);
  CHECK(i64(a, FIX_QP) == 1000000000007LL, "%s: point elem_id", name);
  a = get(&v, name, "PointData", "point", "Int32", 2 * FIX_QP);
  CHECK(i32(a, FIX_QP + 2) == 3, "%s: point numbers", name);
  same_doubles(get(&v, name, "Points", "", "Float64", 3 * 2 * FIX_QP), f.qp_x, 3 * 2 * FIX_QP,
               "point coordinates");
  a = get(&v, name, "Cells", "offsets", "Int64", 2 * FIX_QP);
  CHECK(i64(a, 2 * FIX_QP - 1) == 2 * FIX_QP, "%s: cloud offsets", name);
  get(&v, name, "Cells", "connectivity", "Int64", 2 * FIX_QP);
  a = get(&v, name, "Cells", "types", "UInt8", 2 * FIX_QP);
  CHECK(a->data[0] == 1, "%s: cloud cell type", name);
  vtu_free(&v);
  dt_fields_free(&f);
}

static int count(const char *s, const char *what) {
  int n = 0;
  while ((s = strstr(s, what)) != NULL) n++, s++;
  return n;
}

static void check_pvd(const char *dir) {
  char *pvd = slurp(join(dir, "results.pvd"));
  CHECK(strstr(pvd, "<VTKFile type=\"Collection\"") && strstr(pvd, "</VTKFile>"), "pvd: %s", pvd);
  CHECK(strstr(pvd, "timestep=\"0.5\" group=\"\" part=\"0\" file=\"increment_0001.vtu\""),
        "pvd lacks increment 1: %s", pvd);
  CHECK(strstr(pvd, "timestep=\"2\" group=\"\" part=\"0\" file=\"increment_0003.vtu\""),
        "pvd lacks increment 3: %s", pvd);
  CHECK(strstr(pvd, "increment_0002") == NULL, "pvd lists an unwritten file: %s", pvd);
  CHECK(count(pvd, "<DataSet") == 2, "pvd: %s", pvd);
  CHECK(!exists(join(dir, "increment_0002.vtu")) && !exists(join(dir, "results.pvd.tmp")),
        "unexpected file");
  free(pvd);
}

static double jnum(json_t *j, const char *key) {
  json_t *v = json_object_get(j, key);
  CHECK(json_is_number(v), "summary: '%s' is not a number", key);
  return json_number_value(v);
}

static void check_node_sets(json_t *sets, const dt_model *m) {
  dt_fields f;
  int s, i, d;
  fix_fields(m, N_INC, &f); /* the last increment given */
  for (s = 0; s < m->n_nsets; s++) {
    json_t *js = json_object_get(sets, m->nsets[s].name);
    json_t *rf = json_object_get(js, "RF"), *u = json_object_get(js, "U_mean");
    CHECK(json_array_size(rf) == 3 && json_array_size(u) == 3, "node set %s", m->nsets[s].name);
    for (d = 0; d < 3; d++) {
      double want_rf = 0, want_u = 0;
      for (i = 0; i < m->nsets[s].n; i++) {
        want_rf += f.rf[3 * m->nsets[s].items[i] + d];
        want_u += f.u[3 * m->nsets[s].items[i] + d];
      }
      want_u /= m->nsets[s].n;
      CHECK(json_real_value(json_array_get(rf, d)) == want_rf, "%s RF[%d] %.17g != %.17g",
            m->nsets[s].name, d, json_real_value(json_array_get(rf, d)), want_rf);
      CHECK(json_real_value(json_array_get(u, d)) == want_u, "%s U_mean[%d]", m->nsets[s].name, d);
    }
  }
  CHECK(json_real_value(json_array_get(json_object_get(json_object_get(sets, "right"), "RF"), 0)) ==
            0,
        "right set has no reaction");
  dt_fields_free(&f);
}

static void check_summary(const char *dir, const dt_model *m) {
  json_error_t err;
  json_t *j = json_load_file(join(dir, "summary.json"), 0, &err), *incs, *r;
  dt_run_summary s;
  dt_history_row row;
  dt_fields f;
  size_t i;
  CHECK(j != NULL, "summary.json does not parse: %s at line %d", err.text, err.line);
  make_summary(&s);
  CHECK(jnum(j, "format_version") == DT_OUTPUT_FORMAT_VERSION, "format_version");
  CHECK(strcmp(json_string_value(json_object_get(j, "title")), m->title) == 0, "title");
  CHECK(json_is_false(json_object_get(j, "completed")), "completed");
  CHECK(strcmp(json_string_value(json_object_get(j, "reason")), "increment_too_small") == 0,
        "reason");
  CHECK(strcmp(json_string_value(json_object_get(j, "message")), s.message) == 0, "message");
  CHECK(strcmp(json_string_value(json_object_get(j, "backend")), "cpu") == 0, "backend");
  CHECK(jnum(j, "steps_completed") == 1 && jnum(j, "n_increments") == N_INC &&
            jnum(j, "cutbacks") == 1,
        "counts");
  CHECK(jnum(j, "newton_iterations") == 15 && jnum(j, "pcg_iterations") == 607, "iterations");
  CHECK(jnum(j, "last_time") == 2.0 && jnum(j, "max_u") == s.max_u && jnum(j, "max_peeq") == 0.03,
        "maxima");
  CHECK(json_is_null(json_object_get(j, "max_mises")), "NaN must be written as null");
  CHECK(jnum(json_object_get(j, "timings"), "total") == 1.25 &&
            jnum(json_object_get(j, "timings"), "solver") == 0.5,
        "timings");
  incs = json_object_get(j, "increments");
  CHECK(json_array_size(incs) == N_INC, "increments array has %zu entries", json_array_size(incs));
  json_array_foreach(incs, i, r) {
    fix_fields(m, (int)i + 1, &f);
    make_row(m, &f, (int)i + 1, &row);
    dt_fields_free(&f);
    CHECK(jnum(r, "step") == row.step + 1 && jnum(r, "increment") == row.increment, "row %zu ids",
          i);
    CHECK(jnum(r, "time") == row.time && jnum(r, "load_factor") == row.load_factor, "row %zu time",
          i);
    CHECK(jnum(r, "newton_iterations") == row.newton_iters &&
              jnum(r, "pcg_iterations") == row.pcg_iters,
          "row %zu iterations", i);
    CHECK(jnum(r, "residual") == row.residual, "row %zu residual not exact", i);
    CHECK(jnum(json_object_get(r, "monitors"), "u_right_x") == row.monitor[0] &&
              jnum(json_object_get(r, "monitors"), "rf \"left\", x") == row.monitor[1],
          "row %zu monitors", i);
  }
  check_node_sets(json_object_get(j, "node_sets"), m);
  CHECK(json_array_size(json_object_get(json_object_get(j, "files"), "vtu")) == 2, "files.vtu");
  json_decref(j);
}

static void check_errors(const char *base, const dt_model *m) {
  dt_ctx ctx;
  dt_output *o = NULL;
  FILE *f;
  char blocker[1024], dir[1100];
  dt_history_row row;
  dt_fields fields;
  snprintf(blocker, sizeof blocker, "%s/not_a_dir", base);
  f = fopen(blocker, "w");
  CHECK(f != NULL, "cannot create %s", blocker);
  fclose(f);
  snprintf(dir, sizeof dir, "%s/sub", blocker);
  dt_ctx_reset(&ctx);
  CHECK(dt_output_open(dir, NULL, m, &o, &ctx) == DT_ERR_IO && o == NULL, "open under a file");
  CHECK(strstr(ctx.msg, blocker) != NULL, "message does not name the path: '%s'", ctx.msg);
  /* A row with the wrong number of monitors is a driver bug, reported, not written. */
  dt_ctx_reset(&ctx);
  snprintf(dir, sizeof dir, "%s/bad_row", base);
  CHECK(dt_output_open(dir, NULL, m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  fix_fields(m, 1, &fields);
  make_row(m, &fields, 1, &row);
  row.n_monitors = 1;
  CHECK(dt_output_increment(o, m, &fields, &row, 1, &ctx) == DT_ERR_INTERNAL &&
            strstr(ctx.msg, "monitor") != NULL,
        "monitor count mismatch: '%s'", ctx.msg);
  dt_fields_free(&fields);
  CHECK(dt_output_close(&o, m, NULL, NULL) == DT_OK && o == NULL, "close without summary");
  CHECK(dt_output_close(&o, m, NULL, NULL) == DT_OK, "close NULL");
  CHECK(dt_output_close(NULL, m, NULL, NULL) == DT_OK, "close NULL pointer");
}

/* Fail the n-th allocation for n = 1, 2, ...: every run must succeed or report out of
 * memory (ASan builds also check that nothing leaks), and the last must succeed. */
static void check_alloc_failures(const char *base, const dt_model *m) {
  char dir[1100];
  dt_ctx ctx;
  dt_status rc = DT_ERR_NOMEM;
  int n;
  for (n = 1; n < 1000 && rc != DT_OK; n++) {
    snprintf(dir, sizeof dir, "%s/fault/%d", base, n);
    dt_ctx_reset(&ctx);
    dt_fault_malloc_countdown(n);
    rc = run_writer(dir, m, &ctx);
    dt_fault_malloc_countdown(0);
    CHECK(rc == DT_OK || rc == DT_ERR_NOMEM, "allocation %d failed: status %d '%s'", n, rc,
          ctx.msg);
    CHECK(rc == DT_OK || ctx.code != DT_ERR_NOMEM || strstr(ctx.msg, "out of memory") ||
              strstr(ctx.msg, "summary"),
          "allocation %d: message '%s'", n, ctx.msg);
  }
  CHECK(rc == DT_OK, "still failing after %d allocations", n);
}

int main(int argc, char **argv) {
  const char *base = argc > 1 ? argv[1] : "io_output";
  char dir[1024];
  dt_model m;
  dt_ctx ctx;
  memset(&m, 0, sizeof m);
  fix_model(&m);
  dt_ctx_reset(&ctx);
  snprintf(dir, sizeof dir, "%s/run/nested", base); /* two levels that may not exist: mkdir -p */
  CHECK(run_writer(dir, &m, &ctx) == DT_OK, "writer failed: %s", ctx.msg);
  check_csv(dir, &m);
  check_vtu(dir, &m, 1);
  check_vtu(dir, &m, 3);
  check_pvd(dir);
  check_summary(dir, &m);
  CHECK(run_writer(dir, &m, &ctx) == DT_OK, "rewriting an existing directory: %s", ctx.msg);
  check_csv(dir, &m);
  check_errors(base, &m);
  check_alloc_failures(base, &m);
  fix_model_free(&m);
  printf("io_output: ok (%s)\n", dir);
  return 0;
}
