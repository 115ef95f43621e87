/* The background VTU writer: more increments than the queue holds (the caller waits), inputs
 * overwritten as soon as dt_output_increment returns (the writer must have copied them), the
 * same bytes on every run, every file complete after dt_output_flush and
 * dt_output_save_state, and a failed write reported, naming the file.
 * Usage: test_io_vtu <scratch dir>. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io_fixture.h"
#include "vtu_read.h"

#define N_INC 9 /* several times DT_OUTPUT_MAX_PENDING */

static char *path_of(const char *dir, const char *fmt, int inc) {
  static char buf[4][1200];
  static int k = 0;
  char name[64];
  k = (k + 1) % 4;
  snprintf(name, sizeof name, fmt, inc);
  if (snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name) >= (int)sizeof buf[k]) abort();
  return buf[k];
}

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  unsigned char *s;
  long len;
  CHECK(f != NULL, "cannot open %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  s = malloc((size_t)len + 1);
  CHECK(s && fread(s, 1, (size_t)len, f) == (size_t)len, "cannot read %s", path);
  fclose(f);
  s[len] = '\0'; /* for strstr on text files */
  *n = (size_t)len;
  return s;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static void row_of(const dt_model *m, const dt_fields *f, dt_history_row *r) {
  memset(r, 0, sizeof *r);
  r->step = f->step;
  r->increment = f->increment;
  r->load_factor = f->load_factor;
  r->time = f->time;
  r->n_monitors = m->output.n_monitors;
}

/* Overwrite every input array: a writer that still reads them writes garbage. */
static void scribble(dt_fields *f) {
  memset(f->u, 0xff, 36 * sizeof *f->u);
  memset(f->rf, 0xff, 36 * sizeof *f->rf);
  memset(f->qp_stress, 0xff, 6 * (size_t)f->n_qp * sizeof *f->qp_stress);
  memset(f->qp_peeq, 0xff, (size_t)f->n_qp * sizeof *f->qp_peeq);
  memset(f->qp_x, 0xff, 3 * (size_t)f->n_qp * sizeof *f->qp_x);
  for (int e = 0; e <= f->n_elems; e++) f->qp_ptr[e] = 0;
}

/* Write N_INC increments, each with a VTU, scribbling over the inputs after each call. The
 * fixture's increments 3.. are all "step 2, load factor 1": their times repeat, which the
 * collection must keep as separate entries (distinct increment numbers). */
static void run(const char *dir, const dt_model *m) {
  dt_output *o = NULL;
  dt_fields f;
  dt_history_row row;
  dt_ctx ctx;
  int inc;
  dt_ctx_reset(&ctx);
  CHECK(dt_output_open(dir, NULL, m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  for (inc = 1; inc <= N_INC; inc++) {
    fix_fields(m, inc, &f);
    row_of(m, &f, &row);
    row.monitor[0] = inc;
    CHECK(dt_output_increment(o, m, &f, &row, 1, &ctx) == DT_OK, "increment %d: %s", inc, ctx.msg);
    scribble(&f);
    dt_fields_free(&f);
  }
  CHECK(dt_output_flush(o, &ctx) == DT_OK, "flush: %s", ctx.msg);
  /* Complete now, without waiting for close: the collection lists every increment. */
  for (inc = 1; inc <= N_INC; inc++)
    CHECK(exists(path_of(dir, "increment_%04d.vtu", inc)) &&
              exists(path_of(dir, "increment_%04d_points.vtu", inc)),
          "increment %d not written after dt_output_flush", inc);
  CHECK(dt_output_close(&o, m, NULL, &ctx) == DT_OK, "close: %s", ctx.msg);
}

static void check_values(const char *dir, const dt_model *m) {
  for (int inc = 1; inc <= N_INC; inc++) {
    vtu_file v;
    dt_fields f;
    const vtu_array *a;
    fix_fields(m, inc, &f);
    vtu_load(path_of(dir, "increment_%04d.vtu", inc), &v);
    a = vtu_get(&v, "PointData", "U");
    CHECK(a && a->nbytes == sizeof(double) * 36 && memcmp(a->data, f.u, a->nbytes) == 0,
          "increment %d: U is not the input's", inc);
    a = vtu_get(&v, "FieldData", "TIME");
    CHECK(a && a->nbytes == 8 && memcmp(a->data, &f.time, 8) == 0, "increment %d: TIME", inc);
    vtu_free(&v);
    vtu_load(path_of(dir, "increment_%04d_points.vtu", inc), &v);
    a = vtu_get(&v, "PointData", "S");
    CHECK(a && a->nbytes == sizeof(double) * 6 * (size_t)f.n_qp &&
              memcmp(a->data, f.qp_stress, a->nbytes) == 0,
          "increment %d: point S is not the input's", inc);
    vtu_free(&v);
    dt_fields_free(&f);
  }
}

/* Two runs give the same bytes in every file the writer thread makes. */
static void check_same_bytes(const char *a, const char *b) {
  static const char *const fmts[] = {"increment_%04d.vtu", "increment_%04d_points.vtu"};
  for (int inc = 1; inc <= N_INC; inc++)
    for (int k = 0; k < 2; k++) {
      size_t na, nb;
      unsigned char *x = slurp(path_of(a, fmts[k], inc), &na),
                    *y = slurp(path_of(b, fmts[k], inc), &nb);
      CHECK(na == nb && memcmp(x, y, na) == 0, "%s differs between two runs",
            path_of(b, fmts[k], inc));
      free(x);
      free(y);
    }
  {
    size_t na, nb;
    unsigned char *x = slurp(path_of(a, "results.pvd", 0), &na),
                  *y = slurp(path_of(b, "results.pvd", 0), &nb);
    char want[64];
    CHECK(na == nb && memcmp(x, y, na) == 0, "results.pvd differs between two runs");
    snprintf(want, sizeof want, "file=\"increment_%04d.vtu\"", N_INC);
    CHECK(strstr((const char *)x, want) != NULL, "results.pvd lacks the last increment");
    free(x);
    free(y);
  }
}

/* A checkpoint lists only complete files: dt_output_save_state waits for the writer. */
static void check_save_state(const char *dir, const dt_model *m) {
  dt_output *o = NULL;
  dt_fields f;
  dt_history_row row;
  dt_ctx ctx;
  FILE *state = tmpfile();
  size_t n;
  unsigned char *pvd;
  dt_ctx_reset(&ctx);
  CHECK(state != NULL, "tmpfile: %s", strerror(errno));
  CHECK(dt_output_open(dir, NULL, m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  for (int inc = 1; inc <= 3; inc++) {
    fix_fields(m, inc, &f);
    row_of(m, &f, &row);
    CHECK(dt_output_increment(o, m, &f, &row, 1, &ctx) == DT_OK, "%s", ctx.msg);
    dt_fields_free(&f);
  }
  CHECK(dt_output_save_state(o, state, &ctx) == DT_OK, "save state: %s", ctx.msg);
  for (int inc = 1; inc <= 3; inc++)
    CHECK(exists(path_of(dir, "increment_%04d_points.vtu", inc)),
          "checkpoint before increment %d's files", inc);
  pvd = slurp(path_of(dir, "results.pvd", 0), &n);
  CHECK(strstr((const char *)pvd, "increment_0003.vtu") != NULL,
        "checkpoint before the collection");
  free(pvd);
  CHECK(dt_output_close(&o, m, NULL, &ctx) == DT_OK, "%s", ctx.msg);
  fclose(state);
}

/* A write that fails in the thread (increment_0002.vtu is a directory: the rename fails) is
 * reported by a later call, as an I/O error naming the file; the later files are skipped so
 * that the collection never lists a missing one. */
static void check_failure(const char *dir, const dt_model *m) {
  dt_output *o = NULL;
  dt_fields f;
  dt_history_row row;
  dt_ctx ctx;
  dt_status rc = DT_OK;
  int inc;
  size_t n;
  unsigned char *pvd;
  dt_ctx_reset(&ctx);
  CHECK(dt_output_open(dir, NULL, m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  remove(path_of(dir, "increment_%04d.vtu", 3)); /* from an earlier run of this test */
  CHECK(mkdir(path_of(dir, "increment_%04d.vtu", 2), 0755) == 0 || errno == EEXIST, "mkdir: %s",
        strerror(errno));
  for (inc = 1; inc <= 5 && rc == DT_OK; inc++) {
    fix_fields(m, inc, &f);
    row_of(m, &f, &row);
    rc = dt_output_increment(o, m, &f, &row, 1, &ctx);
    dt_fields_free(&f);
  }
  if (rc == DT_OK)
    rc = dt_output_close(&o, m, NULL, &ctx);
  else
    CHECK(dt_output_close(&o, m, NULL, NULL) == DT_ERR_IO, "close does not repeat the failure");
  CHECK(rc == DT_ERR_IO && strstr(ctx.msg, "increment_0002.vtu") != NULL,
        "failed write reported as %d '%s'", rc, ctx.msg);
  CHECK(o == NULL, "close did not release the writer");
  pvd = slurp(path_of(dir, "results.pvd", 0), &n);
  CHECK(strstr((const char *)pvd, "increment_0001.vtu") &&
            !strstr((const char *)pvd, "increment_0002") &&
            !strstr((const char *)pvd, "increment_0003"),
        "the collection after a failed write: %s", pvd);
  free(pvd);
  CHECK(!exists(path_of(dir, "increment_%04d.vtu", 3)),
        "a write after the failed one was not skipped");
}

int main(int argc, char **argv) {
  const char *base = argc > 1 ? argv[1] : "io_vtu";
  char a[1024], b[1024], c[1024], d[1024];
  dt_model m;
  memset(&m, 0, sizeof m);
  fix_model(&m);
  snprintf(a, sizeof a, "%s/a", base);
  snprintf(b, sizeof b, "%s/b", base);
  snprintf(c, sizeof c, "%s/checkpoint", base);
  snprintf(d, sizeof d, "%s/failure", base);
  run(a, &m);
  check_values(a, &m);
  run(b, &m);
  check_same_bytes(a, b);
  check_save_state(c, &m);
  check_failure(d, &m);
  fix_model_free(&m);
  printf("io_vtu: ok (%s)\n", base);
  return 0;
}
