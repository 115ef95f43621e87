/* ductile-bench: Kiran's cube benchmark ([Kiran2023, Sec. 3.2.1.1, Tables 3.1-3.3]) on a chosen
 * backend.
 *
 *   ductile-bench [--backend cpu|cuda|auto] [--meshes C1,C2,...|all] [--threads N]
 *                 [--pcg-tol 1e-7] [--json FILE]
 *
 * Cube C_k is an n x n x n hex8 grid of the unit cube (n = 48, 60, 76, 96, 115), bottom face
 * fixed, 800 MPa tension on the top face in one step, E = 200 GPa, nu = 0.3, sigma_y = 450 MPa,
 * H = 66 GPa (units MPa, mm), Newton tolerance 1e-6 and PCG tolerance 1e-7 as in the seed.
 * For each mesh it prints Newton and PCG iterations, seconds in assembly, stress update +
 * internal force, linear solver and in total, each phase against its memory-traffic floor
 * (bytes that must move / measured copy bandwidth), SpMV time against its floor, and the
 * backend's peak memory. Timings exclude mesh generation; "after upload" excludes setup too.
 * --json writes the same numbers, the seed's Table 3.3 row and the run's date; turn one or two
 * such files into docs/benchmarks.md's tables with bench/lib/bench_report.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ductile.h"
#include "tool_args.h"

static struct {
  const char *name;
  int n;
} cubes[] = {{"C1", 48}, {"C2", 60}, {"C3", 76}, {"C4", 96}, {"C5", 115}, {"custom", 0}};
enum { N_CUBES = 5, CUSTOM = 5 };

/* Seed Table 3.3 (Tesla K40c), seconds: NR, assembly, stress, internal force, solver, wall.
 * The last row (custom sizes) has no reference. */
static const double seed_gpu[N_CUBES + 1][6] = {
    {4, 0.71, 0.08, 0.06, 6.08, 10.23},     {5, 1.80, 0.19, 0.16, 16.53, 23.04},
    {5, 3.47, 0.38, 0.32, 46.27, 57.05},    {5, 6.67, 0.73, 0.63, 132.61, 152.85},
    {5, 11.17, 1.29, 1.09, 313.74, 345.25}, {0, 0, 0, 0, 0, 0}};

typedef struct bench_opts {
  const char *backend;
  int threads;
  double pcg_tol;
  dt_forcing_kind forcing;
  dt_precond_kind precond;
  const char *json;
  int selected[N_CUBES + 1];
  int verbose;
  int point_fields; /* also download S, Mises and PEEQ at the points each increment */
  int matrix_free;  /* --operator matrix_free */
  int cuda_elements, cuda_tangent; /* --cuda-elements, --cuda-tangent: solver.backend_options */
  double load;   /* top traction in MPa (Kiran's 800 by default; lower loads leave part elastic) */
  int n_devices; /* --gpus: the run split over these devices (backend/parts/parts.h) */
  int devices[DT_MAX_RUN_DEVICES];
} bench_opts;

typedef struct bench_result {
  int n_elems, n_dofs;
  long long nnz;
  dt_run_summary sum;
  dt_backend_measure meas;
  int have_meas;
  dt_precond_kind precond; /* as the model resolved it ("auto" -> two_level or block_jacobi) */
  int n_plastic;           /* plastic points at the last Newton iteration */
} bench_result;

static int g_view; /* --view: the backend's state at the end of each mesh (stderr) */

static void measure_hook(const dt_backend_ops *o, void *impl, void *user) {
  bench_result *r = user;
  dt_ctx ctx = {0};
  if (g_view && o->view) o->view(impl, stderr);
  if (o->measure && o->measure(impl, &r->meas, &ctx) == DT_OK)
    r->have_meas = 1;
  else if (o->measure)
    fprintf(stderr, "ductile-bench: no measurements (bandwidth, SpMV, memory): %s\n", ctx.msg);
}

static int g_verbose; /* --verbose: print each Newton iteration */

/* Records the plastic points of the last Newton iteration (the plastic fraction the operator
 * saw); with --verbose prints every iteration. */
static int print_newton(const dt_progress *ev, void *user) {
  bench_result *r = user;
  if (ev->kind == DT_EV_NEWTON_ITER) r->n_plastic = ev->n_plastic;
  if (!g_verbose) return 0;
  if (ev->kind == DT_EV_NEWTON_ITER)
    printf("    newton %2d  residual %.3e  du/u %.3e  pcg %d (tolerance %.1e)  plastic points %d\n",
           ev->newton_iter, ev->residual, ev->du_ratio, ev->pcg_iters, ev->pcg_rtol, ev->n_plastic);
  if (ev->kind == DT_EV_INFO) printf("  %s\n", ev->text);
  fflush(stdout);
  return 0;
}

static int build_cube(int n, const bench_opts *o, dt_model **out) {
  dt_ctx ctx = {0};
  dt_model *m = NULL;
  dt_step *st;
  if (dt_model_create(&m, &ctx) || dt_mesh_box_hex8(m, n, n, n, 1.0, 1.0, 1.0, &ctx)) goto fail;
  m->n_materials = m->n_sections = m->n_steps = 1;
  m->materials = calloc(1, sizeof *m->materials);
  m->sections = calloc(1, sizeof *m->sections);
  m->steps = calloc(1, sizeof *m->steps);
  st = m->steps;
  dt_step_default(st);
  st->bc = calloc(1, sizeof *st->bc);
  st->traction = calloc(1, sizeof *st->traction);
  if (!m->materials || !m->sections || !st->bc || !st->traction) goto fail;
  snprintf(m->materials[0].name, DT_NAME_MAX, "kiran");
  m->materials[0].p = (dt_material_params){
      .E = 200e3, .nu = 0.3, .plastic = 1, .iso = DT_ISO_LINEAR, .sigma_y0 = 450.0, .H = 66e3};
  snprintf(m->sections[0].elset_name, DT_NAME_MAX, "all");
  m->sections[0].elset = dt_model_find_elset(m, "all");
  m->sections[0].kind = DT_SECTION_SOLID;
  m->sections[0].form = DT_FORM_FULL; /* Kiran's element: fully integrated hex8 */
  m->sections[0].thickness = 1.0;
  snprintf(st->name, DT_NAME_MAX, "800 MPa");
  st->n_bc = 1;
  st->bc[0] = (dt_bc){.nset = dt_model_find_nset(m, "zmin"), .dofs = 7u};
  st->n_traction = 1;
  st->traction[0] =
      (dt_traction){.surface = dt_model_find_surface(m, "zmax"), .t = {0, 0, o->load}};
  m->solver.pcg_rtol = o->pcg_tol;
  m->solver.forcing = o->forcing;
  m->solver.precond = o->precond;
  m->solver.matrix_free = o->matrix_free;
  m->solver.cuda_elements = o->cuda_elements;
  m->solver.cuda_tangent = o->cuda_tangent;
  m->solver.newton_rtol = 1e-6;
  m->output.fields =
      DT_OUT_U | DT_OUT_RF | (o->point_fields ? DT_OUT_S | DT_OUT_MISES | DT_OUT_PEEQ : 0u);
  if (dt_model_finish(m, &ctx)) goto fail;
  *out = m;
  return 0;
fail:
  fprintf(stderr, "ductile-bench: cannot build the cube: %s\n", ctx.msg);
  dt_model_destroy(&m);
  return -1;
}

/* Time after upload outside the timed phases, loads and output: residual norms, predictor,
 * commit, step bookkeeping. */
static double seconds_other(const dt_run_summary *s) {
  return s->seconds_total - s->seconds_setup - s->seconds_assembly - s->seconds_stress -
         s->seconds_solver - s->seconds_loads - s->seconds_output;
}

/* Bytes that must move per call (see docs/benchmarks.md for the derivation). */
static double floor_stress_bytes(const bench_result *r, long n_qp, long n_nodes) {
  return 304.0 * n_qp + 46.0 * r->n_elems + 120.0 * n_nodes;
}
static double floor_assembly_bytes(const bench_result *r, long n_qp, long n_nodes) {
  return 8.0 * r->nnz + 104.0 * n_qp + 288.0 * r->n_elems + 48.0 * n_nodes;
}
/* The backend counts these, for its own matrix format (CSR on the CPU, BSR on the GPU). */
static double floor_spmv_bytes(const bench_result *r) {
  return r->have_meas ? r->meas.spmv_bytes : 0.0;
}

static int parse_meshes(const char *s, int *sel) {
  if (!strcmp(s, "all")) {
    for (int i = 0; i < N_CUBES; i++) sel[i] = 1;
    return 0;
  }
  for (const char *p = s; *p;) {
    int found = 0;
    for (int i = 0; i < N_CUBES; i++)
      if (!strncmp(p, cubes[i].name, 2)) sel[i] = found = 1;
    if (!found) return fprintf(stderr, "ductile-bench: unknown mesh in '%s' (C1..C5)\n", s), -1;
    p += 2;
    if (*p == ',') p++;
  }
  return 0;
}

/* Index of name in a NULL-terminated list of names (the job format's, model.h), or -1. */
static int name_index(const char *const *names, const char *name) {
  for (int k = 0; names[k]; k++)
    if (!strcmp(names[k], name)) return k;
  return -1;
}

static int parse_args(int argc, char **argv, bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->backend = "auto";
  o->pcg_tol = 1e-7;
  o->precond =
      DT_PC_BLOCK_JACOBI; /* the seed's runs use Jacobi; block Jacobi is ours (docs/benchmarks.md) */
  o->selected[0] = 1;
  o->load = 800.0;
  for (int i = 1; i < argc; i++) {
    int more = i + 1 < argc, k;
    if (!strcmp(argv[i], "--backend") && more)
      o->backend = argv[++i];
    else if (!strcmp(argv[i], "--threads") && more)
      o->threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--pcg-tol") && more)
      o->pcg_tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--forcing") && more) {
      if ((k = name_index(dt_forcing_names, argv[++i])) < 0)
        return fprintf(stderr, "ductile-bench: --forcing is fixed or adaptive, not '%s'\n",
                       argv[i]),
               -1;
      o->forcing = (dt_forcing_kind)k;
    } else if (!strcmp(argv[i], "--precond") && more) {
      if ((k = name_index(dt_precond_names, argv[++i])) < 0)
        return fprintf(stderr,
                       "ductile-bench: --precond is jacobi, block_jacobi, two_level, amg or auto, "
                       "not '%s'\n",
                       argv[i]),
               -1;
      o->precond = (dt_precond_kind)k;
    } else if (!strcmp(argv[i], "--operator") && more) {
      const char *op = argv[++i];
      if (strcmp(op, "assembled") && strcmp(op, "matrix_free"))
        return fprintf(stderr, "ductile-bench: --operator is assembled or matrix_free, not '%s'\n",
                       op),
               -1;
      o->matrix_free = !strcmp(op, "matrix_free");
    } else if (!strcmp(argv[i], "--cuda-elements") && more) {
      if ((k = name_index(dt_cuda_elements_names, argv[++i])) < 0)
        return fprintf(stderr, "ductile-bench: --cuda-elements is auto or simple, not '%s'\n",
                       argv[i]),
               -1;
      o->cuda_elements = k;
    } else if (!strcmp(argv[i], "--cuda-tangent") && more) {
      if ((k = name_index(dt_cuda_tangent_names, argv[++i])) < 0)
        return fprintf(stderr, "ductile-bench: --cuda-tangent is auto or colour, not '%s'\n",
                       argv[i]),
               -1;
      o->cuda_tangent = k;
    } else if (!strcmp(argv[i], "--load") && more) {
      o->load = atof(argv[++i]);
      if (!(o->load > 0 && o->load < 1e4))
        return fprintf(stderr,
                       "ductile-bench: --load is the top traction in MPa, > 0 and < 10000\n"),
               -1;
    } else if (!strcmp(argv[i], "--gpus") && more) {
      if ((o->n_devices = tool_int_list(argv[++i], o->devices, DT_MAX_RUN_DEVICES)) < 0)
        return fprintf(stderr, "ductile-bench: --gpus is a list of device ordinals like 0,1,2,3\n"),
               -1;
    } else if (!strcmp(argv[i], "--json") && more)
      o->json = argv[++i];
    else if (!strcmp(argv[i], "--verbose"))
      o->verbose = 1;
    else if (!strcmp(argv[i], "--view"))
      g_view = 1;
    else if (!strcmp(argv[i], "--point-fields"))
      o->point_fields = 1;
    else if (!strcmp(argv[i], "--n") && more) { /* a custom cube size, for quick checks */
      memset(o->selected, 0, sizeof o->selected);
      cubes[CUSTOM].n = atoi(argv[++i]);
      o->selected[CUSTOM] = cubes[CUSTOM].n > 0;
    } else if (!strcmp(argv[i], "--meshes") && more) {
      memset(o->selected, 0, sizeof o->selected);
      if (parse_meshes(argv[++i], o->selected)) return -1;
    } else {
      fprintf(
          stderr,
          "usage: ductile-bench [--backend cpu|cuda|auto] [--meshes C1,C2,..|all] "
          "[--n N] [--threads N] [--pcg-tol T] [--forcing fixed|adaptive] "
          "[--precond jacobi|block_jacobi|two_level|amg|auto] [--operator assembled|matrix_free] "
          "[--cuda-elements auto|simple] [--cuda-tangent auto|colour] "
          "[--load MPA] [--point-fields] [--gpus 0,1,..] [--json FILE] [--verbose] [--view]\n");
      return -1;
    }
  }
  return 0;
}

/* Seed Table 3.3 for mesh k, per phase, so that reports (bench/lib/bench_report.py) print the
 * reference next to the measurement without a second copy of the table; null for custom sizes. */
static json_t *seed_json(int k) {
  static const char *const key[6] = {"newton_iterations",     "seconds_assembly",
                                     "seconds_stress",        "seconds_internal_force",
                                     "seconds_linear_solver", "seconds_wall"};
  json_t *j;
  if (k == CUSTOM) return json_null();
  j = json_object();
  json_object_set_new(j, key[0], json_integer((json_int_t)seed_gpu[k][0]));
  for (int c = 1; c < 6; c++) json_object_set_new(j, key[c], json_real(seed_gpu[k][c]));
  return j;
}

/* The run's context: when, and with how many threads (0: the backend's default, every core). */
static void context_json(json_t *j, const bench_opts *o) {
  char when[32] = "";
  time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  json_object_set_new(j, "date_utc", json_string(when));
  json_object_set_new(j, "threads_option", json_integer(o->threads));
  json_object_set_new(j, "host_cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
  json_object_set_new(j, "point_fields", json_boolean(o->point_fields));
  if (o->n_devices > 0) {
    json_t *d = json_array();
    for (int i = 0; i < o->n_devices; i++) json_array_append_new(d, json_integer(o->devices[i]));
    json_object_set_new(j, "devices", d);
  }
}

static json_t *result_json(int k, const bench_result *r, const bench_opts *o, long n_qp,
                           long n_nodes) {
  const dt_run_summary *s = &r->sum;
  long nr = s->newton_iters, n_asm = s->assembly_calls, n_str = s->stress_calls;
  double bw = r->have_meas ? r->meas.copy_bandwidth : 0.0;
  json_t *j = json_object();
  json_object_set_new(j, "mesh", json_string(cubes[k].name));
  json_object_set_new(j, "elements", json_integer(r->n_elems));
  json_object_set_new(j, "dofs", json_integer(r->n_dofs));
  json_object_set_new(j, "nnz", json_integer(r->nnz));
  json_object_set_new(j, "completed", json_boolean(s->completed));
  json_object_set_new(j, "backend", json_string(s->backend));
  json_object_set_new(j, "device", json_string(r->have_meas ? r->meas.device : ""));
  json_object_set_new(j, "newton_iterations", json_integer(nr));
  json_object_set_new(j, "pcg_iterations", json_integer(s->pcg_iters));
  json_object_set_new(j, "pcg_tolerance", json_real(o->pcg_tol));
  json_object_set_new(j, "pcg_forcing", json_string(dt_forcing_names[o->forcing]));
  json_object_set_new(j, "preconditioner", json_string(dt_precond_names[r->precond]));
  json_object_set_new(j, "operator", json_string(o->matrix_free ? "matrix_free" : "assembled"));
  json_object_set_new(j, "cuda_elements", json_string(dt_cuda_elements_names[o->cuda_elements]));
  json_object_set_new(j, "cuda_tangent", json_string(dt_cuda_tangent_names[o->cuda_tangent]));
  json_object_set_new(j, "load_mpa", json_real(o->load));
  json_object_set_new(j, "plastic_points", json_integer(r->n_plastic));
  json_object_set_new(j, "plastic_fraction", json_real(n_qp ? (double)r->n_plastic / n_qp : 0.0));
  json_object_set_new(j, "seconds_assembly", json_real(s->seconds_assembly));
  json_object_set_new(j, "seconds_stress_and_internal_force", json_real(s->seconds_stress));
  json_object_set_new(j, "seconds_linear_solver", json_real(s->seconds_solver));
  json_object_set_new(j, "seconds_preconditioner_setup", json_real(s->seconds_pc_setup));
  json_object_set_new(j, "seconds_setup", json_real(s->seconds_setup));
  json_object_set_new(j, "seconds_total", json_real(s->seconds_total));
  json_object_set_new(j, "seconds_after_upload", json_real(s->seconds_total - s->seconds_setup));
  json_object_set_new(j, "seconds_loads", json_real(s->seconds_loads));
  json_object_set_new(j, "seconds_output", json_real(s->seconds_output));
  json_object_set_new(j, "seconds_other", json_real(seconds_other(s)));
  json_object_set_new(j, "copy_bandwidth_bytes_per_s", json_real(bw));
  json_object_set_new(j, "spmv_seconds", json_real(r->have_meas ? r->meas.spmv_seconds : 0.0));
  json_object_set_new(j, "spmv_bytes", json_real(floor_spmv_bytes(r)));
  json_object_set_new(j, "spmv_floor_seconds", json_real(bw > 0 ? floor_spmv_bytes(r) / bw : 0.0));
  json_object_set_new(j, "assembly_per_call_seconds",
                      json_real(n_asm ? s->seconds_assembly / n_asm : 0.0));
  json_object_set_new(j, "assembly_floor_seconds",
                      json_real(bw > 0 ? floor_assembly_bytes(r, n_qp, n_nodes) / bw : 0.0));
  json_object_set_new(j, "stress_per_call_seconds",
                      json_real(n_str ? s->seconds_stress / n_str : 0.0));
  json_object_set_new(j, "assembly_calls", json_integer(n_asm));
  json_object_set_new(j, "stress_calls", json_integer(n_str));
  json_object_set_new(j, "stress_floor_seconds",
                      json_real(bw > 0 ? floor_stress_bytes(r, n_qp, n_nodes) / bw : 0.0));
  json_object_set_new(j, "peak_bytes", json_real(r->have_meas ? r->meas.peak_bytes : 0.0));
  json_object_set_new(j, "seed_k40c_wall_seconds", json_real(seed_gpu[k][5]));
  json_object_set_new(j, "seed_k40c", seed_json(k));
  return j;
}

static void print_result(int k, const bench_result *r, const bench_opts *o, long n_qp,
                         long n_nodes) {
  const dt_run_summary *s = &r->sum;
  long nr = s->newton_iters, n_asm = s->assembly_calls, n_str = s->stress_calls;
  double bw = r->have_meas ? r->meas.copy_bandwidth : 0.0;
  printf("%s  n=%d  %d elements  %d DOFs  nnz %lld  backend %s (%s)%s\n", cubes[k].name, cubes[k].n,
         r->n_elems, r->n_dofs, r->nnz, s->backend, r->have_meas ? r->meas.device : "?",
         s->completed ? "" : "  NOT CONVERGED");
  printf("  Newton %ld (seed %g)  PCG %ld (%s tolerance, %s, %s operator, load %g MPa, %.1f%% of "
         "points plastic)\n",
         nr, seed_gpu[k][0], s->pcg_iters, dt_forcing_names[o->forcing],
         dt_precond_names[r->precond], o->matrix_free ? "matrix-free" : "assembled", o->load,
         n_qp ? 100.0 * r->n_plastic / n_qp : 0.0);
  if (k == CUSTOM) printf("  (custom size: no seed reference)\n");
  printf("  seconds: assembly %.3f  stress+f_int %.3f  linear solver %.3f  setup %.3f  total %.3f  "
         "after upload %.3f  (seed K40c wall %.2f)\n",
         s->seconds_assembly, s->seconds_stress, s->seconds_solver, s->seconds_setup,
         s->seconds_total, s->seconds_total - s->seconds_setup, seed_gpu[k][5]);
  printf("  seconds: loads %.3f  output %.3f  other %.3f  (of the linear solver: preconditioner "
         "setup %.3f)\n",
         s->seconds_loads, s->seconds_output, seconds_other(s), s->seconds_pc_setup);
  if (bw > 0) {
    double fa = floor_assembly_bytes(r, n_qp, n_nodes) / bw,
           fs = floor_stress_bytes(r, n_qp, n_nodes) / bw;
    double fv = floor_spmv_bytes(r) / bw;
    printf("  copy bandwidth %.1f GB/s\n", bw / 1e9);
    if (n_asm)
      printf("  assembly per call %.3f ms (%ld calls), floor %.3f ms (%.2fx)%s\n",
             1e3 * s->seconds_assembly / n_asm, n_asm, 1e3 * fa, s->seconds_assembly / n_asm / fa,
             o->matrix_free ? " [matrix-free: element matrices stored, not assembled; floor of the "
                              "assembled tangent]"
                            : "");
    if (n_str)
      printf("  stress+f_int per call %.3f ms (%ld calls), floor %.3f ms (%.2fx)\n",
             1e3 * s->seconds_stress / n_str, n_str, 1e3 * fs, s->seconds_stress / n_str / fs);
    printf("  SpMV %.3f ms, floor %.3f ms: %.0f%% of copy bandwidth\n", 1e3 * r->meas.spmv_seconds,
           1e3 * fv, 100.0 * fv / r->meas.spmv_seconds);
    printf("  peak backend memory %.2f GB\n", r->meas.peak_bytes / 1e9);
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  bench_opts o;
  json_t *all = NULL;
  int failures = 0;
  if (parse_args(argc, argv, &o)) return 64;
  all = json_array();
  for (int k = 0; k <= N_CUBES; k++) {
    dt_model *m = NULL;
    dt_ctx ctx = {0};
    bench_result r;
    dt_run_options ro;
    long n_nodes, n_qp;
    if (!o.selected[k]) continue;
    if (build_cube(cubes[k].n, &o, &m)) {
      json_decref(all);
      return 3;
    }
    memset(&r, 0, sizeof r);
    memset(&ro, 0, sizeof ro);
    r.n_elems = m->n_elems;
    r.precond = m->solver.precond;
    r.n_dofs = 3 * m->n_nodes;
    r.nnz = 0;
    n_nodes = m->n_nodes;
    n_qp = 8L * m->n_elems;
    {
      long nn = cubes[k].n + 1; /* nnz of a structured hex grid: sum over nodes of 9 * neighbours */
      long line = 3 * nn - 2;   /* sum over a line of (neighbours along the line) */
      r.nnz = 9LL * line * line * line;
    }
    ro.backend = o.backend;
    ro.threads = o.threads;
    ro.n_devices = o.n_devices;
    memcpy(ro.devices, o.devices, sizeof ro.devices);
    ro.before_destroy = measure_hook;
    g_verbose = o.verbose;
    ro.progress = print_newton;
    ro.user = &r;
    if (dt_analysis_run(m, &ro, &r.sum, &ctx) != DT_OK) {
      fprintf(stderr, "ductile-bench: %s: %s\n", cubes[k].name,
              r.sum.message[0] ? r.sum.message : ctx.msg);
      failures++;
    }
    print_result(k, &r, &o, n_qp, n_nodes);
    {
      json_t *rec = result_json(k, &r, &o, n_qp, n_nodes);
      context_json(rec, &o);
      json_array_append_new(all, rec);
    }
    dt_model_destroy(&m);
  }
  if (o.json && json_dump_file(all, o.json, JSON_INDENT(2)) != 0) {
    fprintf(stderr, "ductile-bench: cannot write %s\n", o.json);
    failures++;
  }
  json_decref(all);
  return failures ? 2 : 0;
}
