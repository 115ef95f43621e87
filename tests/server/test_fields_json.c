/* The fields JSON writer of the daemon (server/json_stream.c, worker_fields.c,
 * worker_fields_queue.c) without a daemon:
 * - every real is the text Jansson writes for it (so readers see what they saw when the
 *   document was a json_t tree) and reads back to the same double;
 * - the document is, byte for byte, what json_dump_file wrote for the json_t tree it replaces
 *   (built here as the worker built it), nulls for the fields not requested, null for NaN;
 * - the writer thread writes and records the increments in push order, each row after its file
 *   is in place, never more than two behind the pusher, from copies that the caller may
 *   overwrite as soon as the push returns; failed writes are counted.
 * The store and the log are stubs here. Usage: test_fields_json <scratch dir>. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/output.h"
#include "json_stream.h"
#include "store_jobs.h"
#include "worker_fields.h"
#include "worker_fields_queue.h"

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* Stubs of the daemon's store and log: the rows recorded, in order. */
#define MAX_ROWS 64
static int g_rows[MAX_ROWS], g_rows_vtu[MAX_ROWS], g_n_rows, g_file_missing_at_record;
static const char *g_dir;

dt_status dt_job_increment_record(const char *id, int attempt, int n, int step, int inc, double lf,
                                  double time, int has_vtu, dt_ctx *ctx) {
  char path[1200];
  const struct timespec slow = {0, 20 * 1000000L}; /* a slow store: pushes overtake the writer */
  (void)id, (void)attempt, (void)step, (void)inc, (void)lf, (void)time, (void)ctx;
  snprintf(path, sizeof path, "%s/fields_%04d.json", g_dir, n);
  if (access(path, F_OK) != 0) g_file_missing_at_record++;
  nanosleep(&slow, NULL);
  __atomic_store_n(&g_rows_vtu[g_n_rows], has_vtu, __ATOMIC_SEQ_CST);
  __atomic_store_n(&g_rows[g_n_rows], n, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&g_n_rows, 1, __ATOMIC_SEQ_CST);
  return DT_OK;
}
void dt_store_thread_close(void) {}
int dt_store_connection_lost(void) { return 0; }
void dt_log(int level, const char *req, const char *const *kv, const char *fmt, ...) {
  (void)level, (void)req, (void)kv, (void)fmt;
}
double dt_mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t g_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) {
  g_state ^= g_state << 13;
  g_state ^= g_state >> 7;
  g_state ^= g_state << 17;
  return g_state;
}
static double uniform(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static long g_reals;
static void check_real(double v) {
  char mine[DT_JSON_REAL_MAX], *ref;
  json_t *j;
  if (!isfinite(v)) return;
  j = json_real(v);
  ref = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
  dt_json_real_text(v, mine);
  CHECK(!strcmp(mine, ref), "%a: written as %s, Jansson writes %s", v, mine, ref);
  CHECK(strtod(mine, NULL) == v && signbit(strtod(mine, NULL)) == signbit(v),
        "%a: %s does not read back", v, mine);
  free(ref);
  json_decref(j);
  g_reals++;
}

/* Reals of every kind: any bit pattern, field-like magnitudes, the neighbours of powers of ten
 * (where the exponent of %.17g and the carry of its rounding change), integers, the range
 * limits of the integer path, subnormals. */
static void test_reals(void) {
  static const double edge[] = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.1,
                                0.5,
                                1e-11,
                                9.999999999999999e-12,
                                1e-12,
                                1e17,
                                9.9999999999999998e16,
                                1e16,
                                1e-4,
                                9.9999999999999999e-5,
                                1e-5,
                                123456789.0,
                                5e-324,
                                2.2250738585072014e-308,
                                1.7976931348623157e308,
                                -4.9406564584124654e-324};
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) check_real(edge[i]);
  for (int i = 0; i < 300000; i++) {
    uint64_t b = rnd();
    double v;
    memcpy(&v, &b, sizeof v);
    check_real(v);
    check_real((uniform() - 0.5) * pow(10.0, (int)(rnd() % 40) - 20));
    check_real(ldexp((double)(rnd() >> 11), (int)(rnd() % 140) - 120));
  }
  for (int e = -30; e <= 30; e++)
    for (int dir = -1; dir <= 1; dir += 2) {
      double v = pow(10.0, e);
      for (int k = 0; k < 4; k++, v = nextafter(v, dir < 0 ? 0.0 : INFINITY)) {
        check_real(v);
        check_real(-v);
      }
    }
  for (int i = -100000; i <= 100000; i += 7) {
    check_real((double)i);
    check_real(i / 1000.0);
  }
}

/* The document as the worker built it when it was a json_t tree (json_pack "f" is json_real). */
static json_t *rows_ref(const double *v, int n, int ncomp) {
  json_t *a;
  if (!v) return json_null();
  a = json_array();
  for (int i = 0; i < n; i++) {
    if (ncomp == 1) {
      json_array_append_new(a, json_real(v[i]));
      continue;
    }
    json_t *row = json_array();
    for (int c = 0; c < ncomp; c++) json_array_append_new(row, json_real(v[(size_t)i * ncomp + c]));
    json_array_append_new(a, row);
  }
  return a;
}

static json_t *means_ref(const dt_fields *f, const double *qp, int ncomp) {
  json_t *a;
  double *e;
  if (!qp) return json_null();
  e = calloc((size_t)f->n_elems * ncomp + 1, sizeof *e);
  dt_fields_element_average(f, qp, ncomp, e);
  a = rows_ref(e, f->n_elems, ncomp);
  free(e);
  return a;
}

static json_t *document_ref(const dt_model *m, const dt_fields *f) {
  json_t *o = json_object(), *nodes = json_array(), *elems = json_array(), *mises = json_null();
  for (int i = 0; i < m->n_nodes; i++)
    json_array_append_new(nodes, json_integer((json_int_t)m->node_id[i]));
  for (int i = 0; i < m->n_elems; i++)
    json_array_append_new(elems, json_integer((json_int_t)m->elem_id[i]));
  if (f->qp_stress) {
    double *q = calloc((size_t)f->n_qp + 1, sizeof *q);
    for (int k = 0; k < f->n_qp; k++) q[k] = dt_mises(f->qp_stress + 6 * k);
    json_decref(mises);
    mises = means_ref(f, q, 1);
    free(q);
  }
  json_object_set_new(o, "n", json_integer(f->global_increment));
  json_object_set_new(o, "step", json_integer(f->step + 1));
  json_object_set_new(o, "increment", json_integer(f->increment));
  json_object_set_new(o, "load_factor", json_real(f->load_factor));
  json_object_set_new(o, "time", json_real(f->time));
  json_object_set_new(o, "node_ids", nodes);
  json_object_set_new(o, "element_ids", elems);
  json_object_set_new(o, "U", rows_ref(f->u, f->n_nodes, 3));
  json_object_set_new(o, "RF", rows_ref(f->rf, f->n_nodes, 3));
  json_object_set_new(o, "S", means_ref(f, f->qp_stress, 6));
  json_object_set_new(o, "E", means_ref(f, f->qp_strain, 6));
  json_object_set_new(o, "PEEQ", means_ref(f, f->qp_peeq, 1));
  json_object_set_new(o, "MISES", mises);
  return o;
}

/* A small model and its fields: ids not contiguous, 8 points per element but none in the last
 * (its means are 0), values of every magnitude, some -0.0 and RF zero off the supports. */
#define NN 60
#define NE 12
typedef struct fixture {
  dt_model m;
  int64_t node_id[NN], elem_id[NE];
  dt_fields f;
  int qp_ptr[NE + 1];
  double u[3 * NN], rf[3 * NN], s[6 * 8 * NE], e[6 * 8 * NE], peeq[8 * NE];
} fixture;

static double value(int kind) {
  switch (rnd() % 5) {
  case 0: return (uniform() - 0.5) * 1e-3;
  case 1: return (uniform() - 0.5) * pow(10.0, (int)(rnd() % 30) - 15);
  case 2: return kind ? -0.0 : 0.0;
  case 3: return (double)(int)(rnd() % 1000) - 500.0;
  default: return (uniform() - 0.5) * 600.0;
  }
}

static void model_init(fixture *x) {
  memset(x, 0, sizeof *x);
  for (int i = 0; i < NN; i++) x->node_id[i] = 1000 + 7 * i;
  for (int i = 0; i < NE; i++) x->elem_id[i] = (int64_t)1 << 40 | (int64_t)(3 * i + 1);
  x->m.n_nodes = NN;
  x->m.n_elems = NE;
  x->m.node_id = x->node_id;
  x->m.elem_id = x->elem_id;
  for (int i = 0; i <= NE; i++) x->qp_ptr[i] = 8 * (i < NE ? i : NE - 1);
}

/* The fields of increment n; the model (which a queue borrows) stays as it is. */
static void fields_init(fixture *x, int n) {
  memset(&x->f, 0, sizeof x->f);
  x->f.step = 1;
  x->f.increment = n;
  x->f.global_increment = n;
  x->f.load_factor = n / 7.0;
  x->f.time = 1.0 + n / 7.0;
  x->f.n_nodes = NN;
  x->f.n_elems = NE;
  x->f.qp_ptr = x->qp_ptr;
  x->f.n_qp = x->qp_ptr[NE];
  x->f.u = x->u;
  x->f.rf = x->rf;
  x->f.qp_stress = x->s;
  x->f.qp_strain = x->e;
  x->f.qp_peeq = x->peeq;
  for (int i = 0; i < 3 * NN; i++) {
    x->u[i] = value(i % 2);
    x->rf[i] = i < 12 ? value(0) : 0.0;
  }
  x->u[0] = n; /* which increment a file holds */
  for (int i = 0; i < 6 * x->f.n_qp; i++) x->s[i] = value(0), x->e[i] = value(1) * 1e-3;
  for (int i = 0; i < x->f.n_qp; i++) x->peeq[i] = fabs(value(0)) * 1e-2;
}

static char *slurp(const char *path) {
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
  return s;
}

static void write_and_compare(const char *dir, fixture *x, const char *what) {
  char path[1200];
  dt_fields_snap s;
  dt_ctx ctx;
  json_t *ref = document_ref(&x->m, &x->f);
  char *want = json_dumps(ref, JSON_COMPACT), *got;
  memset(&s, 0, sizeof s);
  snprintf(path, sizeof path, "%s/doc.json", dir);
  memset(&ctx, 0, sizeof ctx);
  CHECK(dt_fields_snap_fill(&s, &x->f, 1, &ctx) == DT_OK, "fill");
  CHECK(dt_fields_write(&x->m, &s, path, &ctx) == DT_OK, "write %s: %s", path, ctx.msg);
  got = slurp(path);
  CHECK(!strcmp(got, want), "%s: the document differs from the json_t tree's dump", what);
  free(got);
  free(want);
  json_decref(ref);
  dt_fields_snap_free(&s);
}

static void test_document(const char *dir) {
  fixture *x = malloc(sizeof *x);
  char path[1200];
  json_t *doc;
  json_error_t je;
  dt_fields_snap s;
  model_init(x);
  fields_init(x, 3);
  write_and_compare(dir, x, "all fields");
  x->f.qp_strain = NULL; /* output.fields without E: null */
  x->f.rf = NULL;
  write_and_compare(dir, x, "without E and RF");
  x->f.qp_stress = x->f.qp_peeq = x->f.u = NULL;
  write_and_compare(dir, x, "no fields");
  /* NaN is no JSON: null, the document stays valid */
  fields_init(x, 4);
  x->u[4] = NAN;
  x->f.load_factor = INFINITY;
  memset(&s, 0, sizeof s);
  snprintf(path, sizeof path, "%s/nan.json", dir);
  CHECK(dt_fields_snap_fill(&s, &x->f, 0, NULL) == DT_OK &&
            dt_fields_write(&x->m, &s, path, NULL) == DT_OK,
        "write nan.json");
  doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  CHECK(doc != NULL, "nan.json is not JSON: %s", je.text);
  CHECK(json_is_null(json_array_get(json_array_get(json_object_get(doc, "U"), 1), 1)),
        "NaN not written as null");
  CHECK(json_is_null(json_object_get(doc, "load_factor")), "infinity not written as null");
  CHECK(json_array_size(json_object_get(doc, "U")) == NN, "U rows");
  json_decref(doc);
  dt_fields_snap_free(&s);
  /* a directory that does not exist: an error, no file */
  snprintf(path, sizeof path, "%s/missing/doc.json", dir);
  memset(&s, 0, sizeof s);
  CHECK(dt_fields_snap_fill(&s, &x->f, 0, NULL) == DT_OK &&
            dt_fields_write(&x->m, &s, path, NULL) != DT_OK,
        "write into a missing dir");
  dt_fields_snap_free(&s);
  free(x);
}

#define PUSHES 7
static void test_queue(const char *dir) {
  fixture *x = malloc(sizeof *x);
  dt_fields_queue *q = NULL;
  char path[1200], bad[1300];
  g_dir = dir;
  g_n_rows = 0;
  model_init(x);
  CHECK(dt_fields_queue_start(&x->m, "j-test", 1, dir, &q, NULL) == DT_OK && q, "start");
  for (int n = 1; n <= PUSHES; n++) {
    fields_init(x, n);
    dt_fields_queue_push(q, &x->f, n % 2);
    /* at most two in flight: the one before the last is written and recorded */
    CHECK(__atomic_load_n(&g_n_rows, __ATOMIC_SEQ_CST) >= n - 2,
          "push %d returned with %d recorded", n, g_n_rows);
    memset(x->u, 0xff, sizeof x->u); /* the writer must have copied the fields */
    memset(x->s, 0xff, sizeof x->s);
  }
  CHECK(dt_fields_queue_finish(&q) == 0 && q == NULL, "finish: errors");
  CHECK(g_n_rows == PUSHES, "%d rows recorded, expected %d", g_n_rows, PUSHES);
  CHECK(g_file_missing_at_record == 0, "%d rows recorded before their file",
        g_file_missing_at_record);
  for (int n = 1; n <= PUSHES; n++) {
    json_t *doc;
    json_error_t je;
    CHECK(g_rows[n - 1] == n && g_rows_vtu[n - 1] == n % 2, "row %d is increment %d", n,
          g_rows[n - 1]);
    snprintf(path, sizeof path, "%s/fields_%04d.json", dir, n);
    snprintf(bad, sizeof bad, "%s.tmp", path);
    CHECK(access(bad, F_OK) != 0, "%s left behind", bad);
    doc = json_load_file(path, 0, &je);
    CHECK(doc != NULL, "%s: %s", path, je.text);
    CHECK(json_integer_value(json_object_get(doc, "n")) == n &&
              json_real_value(json_array_get(json_array_get(json_object_get(doc, "U"), 0), 0)) == n,
          "%s holds another increment's fields", path);
    json_decref(doc);
  }
  /* Unwritable directory: each file fails and is counted; the rows are still recorded. */
  snprintf(path, sizeof path, "%s/missing", dir);
  g_dir = path;
  g_n_rows = g_file_missing_at_record = 0;
  CHECK(dt_fields_queue_start(&x->m, "j-test", 1, path, &q, NULL) == DT_OK, "start");
  for (int n = 1; n <= 3; n++) {
    fields_init(x, n);
    dt_fields_queue_push(q, &x->f, 1);
  }
  CHECK(dt_fields_queue_finish(&q) == 3, "3 failed files expected");
  CHECK(g_n_rows == 3, "rows of failed files");
  CHECK(dt_fields_queue_finish(&q) == 0, "finish is NULL-safe");
  free(x);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  mkdir(dir, 0755);
  test_reals();
  test_document(dir);
  test_queue(dir);
  printf("%ld reals as Jansson writes them; documents byte for byte; queue order and bounds: ok\n",
         g_reals);
  return 0;
}
