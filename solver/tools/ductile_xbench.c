/* ductile-xbench: the explicit-dynamics benchmark, [Bartezzaghi2015]'s pinched cylinder
 * (seed 001, Table 5): a closed cylinder R 1.016, L 3.048, h 0.03, E 2.0685e7, nu 0.3, rho
 * 1000 (the digest's consistent units), clamped at z = 0, pinched at z = L by two opposite
 * forces of 500 ramped over the run, time step 1.2761e-5 fixed; the mesh 2k x k elements
 * (k = 384 .. 1280 in the paper). It prints, per mesh, the time per element and step of the
 * time loop (setup and output excluded), the bytes moved per element and step by our count
 * and the floor they set at the device's bandwidth, and the paper's 54.5 ns on a K20.
 *
 * With --hex8 N[,N...]: a steel block of N x N x N hex8 (100 mm, E 210000, nu 0.3, 7.85e-9),
 * clamped at its base, its top pushed sideways by 1 kN ramped over the run, at its stable time
 * step; --form reduced (one point with hourglass control, the default) or full (2x2x2), --j2
 * for a J2 material (yield 250, hardening 1000: history per point). The same numbers per mesh.
 *
 * With --gpus LIST (e.g. 0,1,2,3) the run is split over those devices, one part each
 * (explicit_parts.h: bitwise the one-device run); with --backend cpu, --parts N splits it into N
 * host parts run one after the other (a check of the split, not a speed-up).
 *
 *   ductile-xbench [--backend cpu|cuda] [--k K[,K...]] [--steps N] [--threads T] [--json FILE]
 *                  [--bandwidth GBps] [--full]   (--full: the paper's 78,363 steps)
 *                  [--hex8 N[,N...] [--form reduced|full] [--j2]] [--gpus LIST | --parts N] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "ductile.h"
#include "explicit/explicit.h"
#include "model/mesh_box.h"
#include "tool_args.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define PAPER_DT 1.2761e-5
#define PAPER_STEPS 78363
#define PAPER_NS_K20 54.5

static double loop_seconds, loop_start;
static int on_event(const dt_progress *ev, void *user) {
  (void)user;
  if (ev->kind == DT_EV_STEP_START) loop_start = dt_seconds();
  if (ev->kind == DT_EV_STEP_DONE) loop_seconds = dt_seconds() - loop_start;
  return 0;
}

/* A material (E, nu, rho), a section of the kind (thickness h) on element set "all", and one
 * explicit step of steps time steps of dt, its loads ramped, a frame at its end; no VTU. */
static void dress(dt_model *m, double E, double nu, double rho, int kind, double h, double dt,
                  long steps) {
  m->n_materials = 1;
  m->materials = calloc(1, sizeof(dt_material));
  snprintf(m->materials[0].name, DT_NAME_MAX, "mat");
  m->materials[0].p.E = E;
  m->materials[0].p.nu = nu;
  m->materials[0].density = rho;
  m->n_sections = 1;
  m->sections = calloc(1, sizeof(dt_section));
  snprintf(m->sections[0].elset_name, DT_NAME_MAX, "all");
  m->sections[0].kind = (dt_section_kind)kind;
  m->sections[0].thickness = h;
  m->n_steps = 1;
  m->steps = calloc(1, sizeof(dt_step));
  dt_step_default(&m->steps[0]);
  snprintf(m->steps[0].name, DT_NAME_MAX, "explicit");
  m->steps[0].procedure = DT_PROC_EXPLICIT;
  m->steps[0].explicit_.dt = dt;
  m->steps[0].explicit_.time_period = dt * (double)steps;
  m->steps[0].explicit_.output_frames = 1;
  m->steps[0].explicit_.amplitude.kind = DT_AMP_RAMP;
  m->output.vtu = 0;
}

/* The cylinder: nodes (j, i) around i = 0 .. 2k-1 and along j = 0 .. k, normals out. */
static dt_model *cylinder(int k, long steps) {
  const double R = 1.016, L = 3.048;
  const int nc = 2 * k, nl = k;
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  if (dt_model_create(&m, &ctx) != DT_OK) return NULL;
  m->n_nodes = nc * (nl + 1);
  m->n_elems = nc * nl;
  m->x = calloc(3 * (size_t)m->n_nodes, sizeof(double));
  m->node_id = malloc(sizeof(int64_t) * (size_t)m->n_nodes);
  m->conn = malloc(4 * sizeof(int) * (size_t)m->n_elems);
  m->elem_type = malloc((size_t)m->n_elems);
  m->elem_ptr = malloc(sizeof(int) * ((size_t)m->n_elems + 1));
  m->elem_id = malloc(sizeof(int64_t) * (size_t)m->n_elems);
  for (int j = 0; j <= nl; j++)
    for (int i = 0; i < nc; i++) {
      const int n = j * nc + i;
      m->x[3 * n] = R * cos(2 * M_PI * i / nc);
      m->x[3 * n + 1] = R * sin(2 * M_PI * i / nc);
      m->x[3 * n + 2] = L * j / nl;
      m->node_id[n] = n + 1;
    }
  for (int j = 0; j < nl; j++)
    for (int i = 0; i < nc; i++) {
      const int e = j * nc + i;
      int *c = &m->conn[4 * e];
      c[0] = j * nc + i;
      c[1] = j * nc + (i + 1) % nc;
      c[2] = (j + 1) * nc + (i + 1) % nc;
      c[3] = (j + 1) * nc + i;
      m->elem_type[e] = DT_ELEM_SHELL4;
      m->elem_ptr[e] = 4 * e;
      m->elem_id[e] = e + 1;
    }
  m->elem_ptr[m->n_elems] = 4 * m->n_elems;
  m->n_elsets = 1;
  m->elsets = calloc(1, sizeof(dt_set));
  snprintf(m->elsets[0].name, DT_NAME_MAX, "all");
  m->elsets[0].n = m->n_elems;
  m->elsets[0].items = malloc(sizeof(int) * (size_t)m->n_elems);
  for (int e = 0; e < m->n_elems; e++) m->elsets[0].items[e] = e;
  m->n_nsets = 3;
  m->nsets = calloc(3, sizeof(dt_set));
  snprintf(m->nsets[0].name, DT_NAME_MAX, "clamped");
  m->nsets[0].n = nc;
  m->nsets[0].items = malloc(sizeof(int) * (size_t)nc);
  for (int i = 0; i < nc; i++) m->nsets[0].items[i] = i;
  for (int s = 1; s < 3; s++) { /* the pinch points at angles 0 and pi of the free end */
    snprintf(m->nsets[s].name, DT_NAME_MAX, "pinch%d", s);
    m->nsets[s].n = 1;
    m->nsets[s].items = malloc(sizeof(int));
    m->nsets[s].items[0] = nl * nc + (s == 1 ? 0 : k);
  }
  dress(m, 2.0685e7, 0.3, 1000.0, DT_SECTION_SHELL, 0.03, PAPER_DT, steps);
  m->steps[0].n_bc = 1;
  m->steps[0].bc = calloc(1, sizeof(dt_bc));
  m->steps[0].bc[0].nset = 0;
  m->steps[0].bc[0].dofs = DT_DOF_X | DT_DOF_Y | DT_DOF_Z | DT_DOF_ROT;
  m->steps[0].n_cload = 2;
  m->steps[0].cload = calloc(2, sizeof(dt_cload));
  m->steps[0].cload[0].nset = 1;
  m->steps[0].cload[0].f[0] = -500.0;
  m->steps[0].cload[1].nset = 2;
  m->steps[0].cload[1].f[0] = 500.0;
  return m;
}

/* The hex8 block of n^3 elements (the comment above), steps time steps at 0.8 of the stable
 * step. */
static dt_model *block(int n, long steps, int form, int j2) {
  const double side = 100.0, E = 210000.0, nu = 0.3, rho = 7.85e-9;
  const double h = side / n, lm2 = E * (1 - nu) / ((1 + nu) * (1 - 2 * nu)), k3 = E / (1 - 2 * nu);
  const double dt = 0.8 * h / sqrt((lm2 > k3 ? lm2 : k3) / rho);
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  int top;
  if (dt_model_create(&m, &ctx) != DT_OK || dt_mesh_box_hex8(m, n, n, n, side, side, side, &ctx))
    return NULL;
  dress(m, E, nu, rho, DT_SECTION_SOLID, 1.0, dt, steps);
  m->sections[0].form = form;
  if (j2) {
    m->materials[0].p.plastic = DT_PLASTIC_J2;
    m->materials[0].p.iso = DT_ISO_LINEAR;
    m->materials[0].p.sigma_y0 = 250.0;
    m->materials[0].p.H = 1000.0;
  }
  m->steps[0].n_bc = 1;
  m->steps[0].bc = calloc(1, sizeof(dt_bc));
  m->steps[0].bc[0].nset = dt_model_find_nset(m, "zmin");
  m->steps[0].bc[0].dofs = DT_DOF_X | DT_DOF_Y | DT_DOF_Z;
  top = dt_model_find_nset(m, "zmax");
  m->steps[0].n_cload = 1;
  m->steps[0].cload = calloc(1, sizeof(dt_cload));
  m->steps[0].cload[0].nset = top;
  m->steps[0].cload[0].f[0] = 1000.0 / m->nsets[top].n;
  return m;
}

/* Finish and run model m (NULL: out of memory); *ns the loop's time per element and step,
 * without the frames' downloads. Returns 0, or 1 with the error printed. */
static int n_parts = 1;                      /* --gpus, --parts: the parts of the run */
static int part_devices[DT_MAX_RUN_DEVICES]; /* --gpus: their devices */

static int timed_run(dt_model *m, const char *backend, int threads, dt_run_summary *s, double *ns) {
  dt_run_options o;
  dt_ctx ctx = {0};
  if (!m || dt_model_finish(m, &ctx) != DT_OK) {
    fprintf(stderr, "ductile-xbench: %s\n", m ? ctx.msg : "out of memory");
    return 1;
  }
  memset(&o, 0, sizeof o);
  o.backend = backend;
  o.threads = threads;
  o.progress = on_event;
  o.n_devices = n_parts > 1 ? n_parts : 0;
  memcpy(o.devices, part_devices, sizeof o.devices);
  if (n_parts == 1) o.device = part_devices[0];
  if (dt_analysis_run(m, &o, s, &ctx) != DT_OK) {
    fprintf(stderr, "ductile-xbench: %s\n", ctx.msg);
    return 1;
  }
  *ns = (loop_seconds - s->seconds_output) / ((double)m->n_elems * (double)s->time_steps) * 1e9;
  return 0;
}

/* --hex8: the block at each size, printed (and written to json) like the cylinder. */
static int hex8_main(const char *list, long steps, int form, int j2, const char *backend,
                     int threads, double bw, const char *json) {
  char buf[256];
  int first = 1;
  FILE *jf = NULL;
  if (json && !(jf = fopen(json, "w"))) {
    fprintf(stderr, "ductile-xbench: cannot write %s\n", json);
    return 1;
  }
  if (jf)
    fprintf(jf,
            "{\"suite\": \"explicit_hex8\", \"backend\": \"%s\", \"form\": \"%s\", \"j2\": %d, "
            "\"runs\": [",
            backend, form == DT_FORM_FULL ? "full" : "reduced", j2);
  snprintf(buf, sizeof buf, "%s", list);
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    const int n = atoi(tok);
    dt_model *m = block(n, steps, form, j2);
    dt_run_summary s;
    double ns, bytes, floor_ns;
    if (timed_run(m, backend, threads, &s, &ns)) return 1;
    bytes = dt_xp_hex8_step_bytes(j2 ? (form == DT_FORM_FULL ? 8 : 1) : 0);
    floor_ns = bytes / bw * 1e9;
    printf("hex8 block %d^3 (%s%s): %d elements, %d DOFs, %ld steps of %.5g on %s in %d part%s: "
           "%.3f s in the loop, %.3f ns per element and step; %.0f bytes per element and step, "
           "floor %.3f ns at %.0f GB/s (%.2fx the floor); max |u| %.4g\n",
           n, form == DT_FORM_FULL ? "2x2x2 points" : "one point", j2 ? ", J2" : "", m->n_elems,
           3 * m->n_nodes, s.time_steps, s.time_step, s.backend, n_parts, n_parts > 1 ? "s" : "",
           loop_seconds, ns, bytes, floor_ns, bw / 1e9, ns / floor_ns, s.max_u);
    if (jf)
      fprintf(jf,
              "%s{\"n\": %d, \"elements\": %d, \"dofs\": %d, \"steps\": %ld, \"loop_seconds\": "
              "%.6g, \"ns_per_element_step\": %.6g, \"bytes_per_element_step\": %.0f, "
              "\"floor_ns\": %.6g, \"max_u\": %.9g, \"backend\": \"%s\", \"parts\": %d}",
              first ? "" : ", ", n, m->n_elems, 3 * m->n_nodes, s.time_steps, loop_seconds, ns,
              bytes, floor_ns, s.max_u, s.backend, n_parts);
    first = 0;
    dt_model_destroy(&m);
  }
  if (jf) {
    fprintf(jf, "]}\n");
    fclose(jf);
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *backend = "cuda", *json = NULL, *klist = "384", *hex8 = NULL;
  long steps = 1000;
  int threads = 0, form = DT_FORM_REDUCED, j2 = 0;
  double bw = 3.35e12; /* H100 SXM HBM3 bytes per second, the floor's bandwidth */
  FILE *jf = NULL;
  char buf[256];
  for (int i = 1; i < argc; i++) {
    const int more = i + 1 < argc;
    if (!strcmp(argv[i], "--backend") && more)
      backend = argv[++i];
    else if (!strcmp(argv[i], "--k") && more)
      klist = argv[++i];
    else if (!strcmp(argv[i], "--steps") && more)
      steps = atol(argv[++i]);
    else if (!strcmp(argv[i], "--full"))
      steps = PAPER_STEPS;
    else if (!strcmp(argv[i], "--threads") && more)
      threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json") && more)
      json = argv[++i];
    else if (!strcmp(argv[i], "--bandwidth") && more)
      bw = atof(argv[++i]) * 1e9;
    else if (!strcmp(argv[i], "--hex8") && more)
      hex8 = argv[++i];
    else if (!strcmp(argv[i], "--form") && more && !strcmp(argv[i + 1], "full"))
      form = DT_FORM_FULL, i++;
    else if (!strcmp(argv[i], "--form") && more && !strcmp(argv[i + 1], "reduced"))
      form = DT_FORM_REDUCED, i++;
    else if (!strcmp(argv[i], "--j2"))
      j2 = 1;
    else if (!strcmp(argv[i], "--gpus") && more &&
             (n_parts = tool_int_list(argv[i + 1], part_devices, DT_MAX_RUN_DEVICES)) > 0)
      i++;
    else if (!strcmp(argv[i], "--parts") && more && (n_parts = atoi(argv[i + 1])) >= 1 &&
             n_parts <= DT_MAX_RUN_DEVICES)
      i++;
    else {
      fprintf(stderr, "usage: ductile-xbench [--backend cpu|cuda] [--k K[,K...]] [--steps N] "
                      "[--full] [--threads T] [--json FILE] [--bandwidth GBps] [--hex8 N[,N...] "
                      "[--form reduced|full] [--j2]] [--gpus LIST | --parts N]\n");
      return 64;
    }
  }
  if (hex8) return hex8_main(hex8, steps, form, j2, backend, threads, bw, json);
  if (json && !(jf = fopen(json, "w"))) {
    fprintf(stderr, "ductile-xbench: cannot write %s\n", json);
    return 1;
  }
  if (jf) fprintf(jf, "{\"suite\": \"explicit\", \"backend\": \"%s\", \"runs\": [", backend);
  snprintf(buf, sizeof buf, "%s", klist);
  int first = 1;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    const int k = atoi(tok);
    dt_model *m = cylinder(k, steps);
    dt_run_summary s;
    double ns, bytes, floor_ns;
    if (timed_run(m, backend, threads, &s, &ns)) return 1;
    bytes = dt_xp_step_bytes(0);
    floor_ns = bytes / bw * 1e9;
    printf("pinched cylinder k %d: %d elements, %d DOFs, %ld steps of %.5g on %s in %d part%s: "
           "%.3f s in the loop, %.3f ns per element and step (paper, K20: %.1f ns; %.1fx); %.0f "
           "bytes per element and step, floor %.3f ns at %.0f GB/s (%.2fx the floor); max |u| "
           "%.4g; the paper's 78,363 steps would take %.1f s\n",
           k, m->n_elems, 5 * m->n_nodes, s.time_steps, PAPER_DT, s.backend, n_parts,
           n_parts > 1 ? "s" : "", loop_seconds, ns, PAPER_NS_K20, PAPER_NS_K20 / ns, bytes,
           floor_ns, bw / 1e9, ns / floor_ns, s.max_u, ns * 1e-9 * m->n_elems * PAPER_STEPS);
    if (jf)
      fprintf(jf,
              "%s{\"k\": %d, \"elements\": %d, \"dofs\": %d, \"steps\": %ld, \"loop_seconds\": "
              "%.6g, \"ns_per_element_step\": %.6g, \"bytes_per_element_step\": %.0f, "
              "\"floor_ns\": %.6g, \"paper_k20_ns\": %.1f, \"max_u\": %.9g, \"backend\": \"%s\", "
              "\"parts\": %d}",
              first ? "" : ", ", k, m->n_elems, 5 * m->n_nodes, s.time_steps, loop_seconds, ns,
              bytes, floor_ns, PAPER_NS_K20, s.max_u, s.backend, n_parts);
    first = 0;
    dt_model_destroy(&m);
  }
  if (jf) {
    fprintf(jf, "]}\n");
    fclose(jf);
  }
  return 0;
}
