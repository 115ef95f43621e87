/* Checkpoint and resume: a run cancelled after some increments and resumed from its
 * checkpoint computes only the remaining increments and ends bit-identical to an
 * uninterrupted run (reference: the uninterrupted run itself); a checkpoint of another model
 * is refused; the output directory keeps one history row per increment. */
#include <math.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "unit_model.h"

typedef struct watch {
  int computed;     /* increments computed in this run */
  int cancel_after; /* cancel when this many increments were computed (0: never) */
  int resumed;
  double u_last[3 * 200];
} watch;

static int on_progress(const dt_progress *ev, void *user) {
  watch *w = user;
  if (ev->kind == DT_EV_INFO && ev->resumed) w->resumed = 1;
  return ev->kind == DT_EV_NEWTON_ITER && w->cancel_after && w->computed >= w->cancel_after;
}

static void on_increment(const dt_fields *f, const dt_history_row *row, void *user) {
  watch *w = user;
  w->computed++;
  memcpy(w->u_last, f->u, sizeof(double) * 3 * f->n_nodes);
}

static dt_model *two_step_model(double load) {
  dt_model *m = unit_box(3, 2, 2, 1);
  dt_ctx ctx = {0};
  m->n_steps = 2;
  m->steps = realloc(m->steps, 2 * sizeof(dt_step));
  for (int s = 0; s < 2; s++) {
    dt_step *st = &m->steps[s];
    dt_step_default(st);
    snprintf(st->name, DT_NAME_MAX, s ? "unload" : "load");
    st->n_increments = s ? 2 : 3;
    st->n_bc = 1;
    st->bc = calloc(1, sizeof(dt_bc));
    st->bc[0].nset = dt_model_find_nset(m, "xmin");
    st->bc[0].dofs = 7u;
    st->n_traction = 1;
    st->traction = calloc(1, sizeof(dt_traction));
    st->traction[0].surface = dt_model_find_surface(m, "xmax");
    st->traction[0].t[2] = s ? 0.0 : load; /* bending into plasticity, then unloading */
  }
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  return m;
}

static dt_status run(dt_model *m, const char *dir, const char *ck, int resume, watch *w,
                     dt_ctx *ctx) {
  dt_run_summary sum;
  dt_run_options o;
  unit_run_options(&o, on_progress, on_increment, w);
  o.outdir = dir;
  o.checkpoint = ck;
  o.resume = resume;
  return dt_analysis_run(m, &o, &sum, ctx);
}

static int count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  int n = 0, c;
  CHECK(f != NULL, "cannot open %s", path);
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

int main(void) {
  char dir[] = "/tmp/dt_ckXXXXXX", ck[512], out_a[512], out_b[512], hist[600];
  watch full, part, rest;
  dt_ctx ctx = {0};
  dt_model *m = two_step_model(60.0), *other = two_step_model(61.0);
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(ck, sizeof ck, "%s/job.ckpt", dir);
  snprintf(out_a, sizeof out_a, "%s/a", dir);
  snprintf(out_b, sizeof out_b, "%s/b", dir);
  memset(&full, 0, sizeof full);
  memset(&part, 0, sizeof part);
  memset(&rest, 0, sizeof rest);
  CHECK(run(m, out_a, NULL, 0, &full, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(full.computed == 5, "uninterrupted run: %d increments", full.computed);

  part.cancel_after = 4; /* all of step 1 and one increment of step 2 */
  CHECK(run(m, out_b, ck, 0, &part, &ctx) == DT_ERR_CANCELLED, "expected a cancellation");
  CHECK(part.computed == 4, "computed %d before cancelling", part.computed);
  dt_ctx_reset(&ctx);
  CHECK(run(m, out_b, ck, 1, &rest, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(rest.resumed, "no resume event");
  CHECK(rest.computed == 1, "resumed run recomputed %d increments, expected 1", rest.computed);
  CHECK(memcmp(rest.u_last, full.u_last, sizeof(double) * 3 * m->n_nodes) == 0,
        "resumed result differs from the uninterrupted run");
  snprintf(hist, sizeof hist, "%s/history.csv", out_b);
  CHECK(count_lines(hist) == 6, "history.csv has %d lines, expected header + 5", count_lines(hist));

  dt_ctx_reset(&ctx);
  memset(&rest, 0, sizeof rest);
  CHECK(run(other, out_b, ck, 1, &rest, &ctx) == DT_ERR_INPUT && strstr(ctx.msg, "another model"),
        "checkpoint of another model accepted: %s", ctx.msg);
  dt_model_destroy(&m);
  dt_model_destroy(&other);
  return 0;
}
