/* solver.backend_options: the CUDA backend's kernel choices (backend.h dt_cuda_elements and
 * dt_cuda_tangent), parsed once from the job and handed to the backend at upload.
 *
 * 1. Parsing: left out, both are "auto" (0); "simple" and "colour" are read; an unknown value or
 *    key is an input error naming the path and, for a value, the names it can take.
 * 2. A plastic box solved with the defaults and with "simple" and "colour" on the backend
 *    DUCTILE_BACKEND names (cpu by default): the CPU backend ignores the choices (the same bits,
 *    and no "kernels:" setup line); the CUDA backend runs the kernels asked for, says so in its
 *    "kernels:" line, and its displacements agree with the defaults' to 1e-8 relative (the
 *    kernels sum in other orders). */
#include <math.h>

#include "analysis/analysis.h"
#include "io/job_json.h"
#include "unit_model.h"

/* One hex8 pulled at its top; solver: the job's "solver" members. */
static dt_status parse(const char *solver, dt_model **m, dt_ctx *ctx) {
  char job[2048];
  snprintf(
      job, sizeof job,
      "{\"ductile\": 1, \"title\": \"backend options\", \"mesh\": {\"nodes\": [[1, 0, 0, 0], [2, "
      "1, 0, 0], "
      "[3, 1, 1, 0], [4, 0, 1, 0], [5, 0, 0, 1], [6, 1, 0, 1], [7, 1, 1, 1], [8, 0, 1, 1]], "
      "\"elements\": "
      "[{\"type\": \"hex8\", \"connectivity\": [[1, 1, 2, 3, 4, 5, 6, 7, 8]]}], \"node_sets\": "
      "{\"bottom\": "
      "[1, 2, 3, 4], \"top\": [5, 6, 7, 8]}, \"element_sets\": {\"all\": [1]}}, \"materials\": "
      "[{\"name\": "
      "\"m\", \"elastic\": {\"E\": 1000, \"nu\": 0.3}}], \"sections\": [{\"element_set\": \"all\", "
      "\"material\": \"m\", \"kind\": \"solid\"}], \"steps\": [{\"name\": \"s\", \"boundary\": "
      "[{\"node_set\": "
      "\"bottom\", \"fixed\": \"all\"}, {\"node_set\": \"top\", \"displacement\": {\"z\": "
      "0.01}}]}], "
      "\"solver\": {%s}}",
      solver);
  *m = NULL;
  return dt_parse_job_string(job, strlen(job), "backend options", m, ctx);
}

static void check_parse(void) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  CHECK(parse("", &m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(m->solver.cuda_elements == DT_CUDA_ELEMENTS_AUTO &&
            m->solver.cuda_tangent == DT_CUDA_TANGENT_AUTO,
        "defaults %d, %d", m->solver.cuda_elements, m->solver.cuda_tangent);
  dt_model_destroy(&m);
  CHECK(parse("\"backend_options\": {\"elements\": \"simple\", \"tangent\": \"colour\"}", &m,
              &ctx) == DT_OK,
        "%s", ctx.msg);
  CHECK(m->solver.cuda_elements == DT_CUDA_ELEMENTS_SIMPLE &&
            m->solver.cuda_tangent == DT_CUDA_TANGENT_COLOUR,
        "read %d, %d", m->solver.cuda_elements, m->solver.cuda_tangent);
  CHECK(!strcmp(dt_cuda_elements_names[m->solver.cuda_elements], "simple") &&
            !strcmp(dt_cuda_tangent_names[m->solver.cuda_tangent], "colour"),
        "the names are not in the enums' order");
  dt_model_destroy(&m);
  dt_ctx_reset(&ctx);
  CHECK(parse("\"backend_options\": {\"elements\": \"coop\"}", &m, &ctx) == DT_ERR_INPUT,
        "an unknown value is accepted");
  CHECK(strstr(ctx.msg, "solver.backend_options.elements") && strstr(ctx.msg, "auto, simple"),
        "message: %s", ctx.msg);
  dt_model_destroy(&m);
  dt_ctx_reset(&ctx);
  CHECK(parse("\"backend_options\": {\"kernels\": \"simple\"}", &m, &ctx) == DT_ERR_INPUT,
        "an unknown key is accepted");
  CHECK(strstr(ctx.msg, "backend_options") != NULL, "message: %s", ctx.msg);
  dt_model_destroy(&m);
  printf(
      "parsing: defaults auto, \"simple\" and \"colour\" read, unknown values and keys refused\n");
}

typedef struct run_record {
  unit_record r;
  char kernels[512]; /* the run's "kernels:" setup line, empty without one */
} run_record;

static int on_progress(const dt_progress *ev, void *user) {
  run_record *rr = user;
  if (ev->kind == DT_EV_INFO && ev->text && !strncmp(ev->text, "kernels:", 8))
    snprintf(rr->kernels, sizeof rr->kernels, "%s", ev->text);
  return 0;
}

static void on_increment(const dt_fields *f, const dt_history_row *row, void *user) {
  unit_record_increment(f, row, &((run_record *)user)->r);
}

static void solve(dt_cuda_elements elements, dt_cuda_tangent tangent, run_record *rr) {
  dt_model *m = unit_box(8, 4, 3, 1);
  dt_ctx ctx = {0};
  dt_run_summary sum;
  dt_run_options o;
  unit_bar_load(m);
  m->solver.cuda_elements = elements;
  m->solver.cuda_tangent = tangent;
  m->solver.newton_rtol = 1e-10; /* tight, so that rounding alone separates the two runs */
  m->solver.pcg_rtol = 1e-13;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  memset(rr, 0, sizeof *rr);
  unit_run_options(&o, on_progress, on_increment, rr);
  CHECK(dt_analysis_run(m, &o, &sum, &ctx) == DT_OK && sum.completed, "%s %s", ctx.msg,
        sum.message);
  dt_model_destroy(&m);
}

static void check_runs(void) {
  static run_record dflt, chosen;
  const char *backend = getenv("DUCTILE_BACKEND") ? getenv("DUCTILE_BACKEND") : "cpu";
  double du = 0.0, umax = 0.0;
  solve(DT_CUDA_ELEMENTS_AUTO, DT_CUDA_TANGENT_AUTO, &dflt);
  solve(DT_CUDA_ELEMENTS_SIMPLE, DT_CUDA_TANGENT_COLOUR, &chosen);
  CHECK(dflt.r.increments == chosen.r.increments && dflt.r.n_nodes == chosen.r.n_nodes,
        "%d and %d increments", dflt.r.increments, chosen.r.increments);
  for (int i = 0; i < 3 * dflt.r.n_nodes; i++) {
    du = fmax(du, fabs(chosen.r.u[i] - dflt.r.u[i]));
    umax = fmax(umax, fabs(dflt.r.u[i]));
  }
  if (!strcmp(backend, "cpu")) {
    CHECK(memcmp(dflt.r.u, chosen.r.u, sizeof(double) * 3 * (size_t)dflt.r.n_nodes) == 0,
          "the CPU backend's results change with the CUDA kernel choices");
    CHECK(!dflt.kernels[0] && !chosen.kernels[0], "a kernels line on the CPU backend: %s",
          chosen.kernels);
  } else {
    /* the agreement test (tests/gpu) holds each path to 1e-9 of the CPU backend */
    CHECK(du <= 1e-8 * umax,
          "simple kernels and colour tangent differ from the defaults by %.3e (max |u| %.3e)", du,
          umax);
    CHECK(strstr(dflt.kernels, "element kernels cooperative") &&
              strstr(dflt.kernels, "backend_options: elements auto, tangent auto"),
          "default run: %s", dflt.kernels);
    CHECK(strstr(chosen.kernels,
                 "element kernels one thread per element, tangent colour by colour") &&
              strstr(chosen.kernels, "backend_options: elements simple, tangent colour"),
          "simple and colour: %s", chosen.kernels);
  }
  printf("%s: %d increments; simple and colour against the defaults: |du|/|u| %.2e%s%s\n", backend,
         dflt.r.increments, umax > 0 ? du / umax : 0.0, chosen.kernels[0] ? "; " : "",
         chosen.kernels);
}

int main(void) {
  check_parse();
  check_runs();
  return 0;
}
