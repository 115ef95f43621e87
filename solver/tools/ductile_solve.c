/* ductile-solve: run one job file without the daemon.
 *
 *   ductile-solve JOB.json -o OUTDIR [--backend cpu|cuda|auto] [--threads N]
 *                 [--device N | --gpus LIST] [--checkpoint FILE [--resume]] [--precond NAME] [--cuda-elements NAME]
 *                 [--cuda-tangent NAME] [--view] [--quiet]
 *   ductile-solve DECK.inp -o OUTDIR [options]                 Abaqus/CalculiX deck
 *   ductile-solve MESH.msh --job LOADS.json -o OUTDIR [options] Gmsh mesh + job without "mesh"
 *   ductile-solve MESH.msh --job LOADS.json -o OUTDIR --order P  the same on order-P hexahedra
 *
 * A Gmsh mesh of hexahedra of order 2 or more (or any order with --order P) runs the order-P
 * path (highorder/ho_job.h: one static step, J2 or elastic, p-multigrid, summary.json; on the
 * GPU when the backend is cuda, or auto with a GPU); every
 * other input runs the analysis of solver/analysis.
 * The importer is chosen by the file's extension (solver/io/import.h).
 * Prints setup lines, one line per Newton iteration and per increment, and a final verdict.
 * Exit codes: 0 success; 1 invalid input; 2 the analysis did not converge (results up to the
 * last converged increment are written); 3 resources or internal errors; 64 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "ductile.h"
#include "highorder/ho_job.h"

enum { EXIT_INPUT = 1, EXIT_NOT_CONVERGED = 2, EXIT_FAILURE_OTHER = 3, EXIT_USAGE = 64 };

typedef struct cli {
  const char *job;
  const char *loads; /* --job: the JSON job completing a .msh mesh */
  const char *outdir;
  const char *backend;
  int threads;
  int device;
  const char *gpus; /* --gpus: the list as given, for messages */
  int n_devices;    /* --gpus: devices[0 .. n_devices-1]; 0 without it */
  int devices[DT_MAX_RUN_DEVICES];
  int quiet;
  const char *checkpoint;
  int resume;
  const char *precond; /* --precond: overrides the job's linear.preconditioner */
  const char *cuda_elements, *cuda_tangent; /* override the job's backend_options */
  int view;                                 /* --view: the backend's state at the end (stderr) */
  int order; /* --order P: a Gmsh mesh of hexahedra as order-P elements (0: unless Pg >= 2) */
} cli;

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: ductile-solve JOB.json -o OUTDIR [--backend cpu|cuda|auto] [--threads N]\n"
      "                     [--device N | --gpus LIST] [--checkpoint FILE [--resume]] [--quiet]\n"
      "       ductile-solve DECK.inp -o OUTDIR [options]\n"
      "       ductile-solve MESH.msh --job LOADS.json -o OUTDIR [--order P] [options]\n"
      "  --order P          a Gmsh mesh of hexahedra solved as order-P elements (1..8, the\n"
      "                     geometry resampled); meshes of hexahedra of order 2 or more take\n"
      "                     this path at their own order without it (docs/highorder.md);\n"
      "                     it runs on the GPU --device names with --backend cuda, or auto\n"
      "                     where a GPU is available\n"
      "  --device N         the GPU ordinal to run on (default 0)\n"
      "  --gpus LIST        split the run over several devices, e.g. 0,1,2,3: one METIS part\n"
      "                     of the mesh per listed ordinal (at most %d, each once), block\n"
      "                     Jacobi PCG (explicit dynamics: bitwise the one-device run);\n"
      "                     one entry is --device N. With --backend cpu the\n"
      "                     parts run one after the other on the host (ordinals ignored):\n"
      "                     a check of the split driver without GPUs\n"
      "  --checkpoint FILE  write a checkpoint after every converged increment\n"
      "  --resume           continue from FILE if it exists (completed increments are kept)\n"
      "  --precond NAME     linear.preconditioner for this run: jacobi, block_jacobi,\n"
      "                     two_level, amg or auto (overrides the job or deck)\n"
      "  --cuda-elements NAME\n"
      "                     backend_options.elements for this run: auto, or simple (the CUDA\n"
      "                     backend's one-thread-per-element kernels on every mesh)\n"
      "  --cuda-tangent NAME\n"
      "                     backend_options.tangent for this run: auto, or colour (the CUDA\n"
      "                     backend's tangent scattered colour by colour on every mesh)\n"
      "  --view             at the end, print the backend's state to stderr: device,\n"
      "                     memory, transfers, the preconditioner (AMG levels, setup times)\n",
      DT_MAX_RUN_DEVICES);
}

/* --view: the backend's view before it goes (analysis.h, before_destroy). */
static void print_view(const dt_backend_ops *ops, void *impl, void *user) {
  (void)user;
  if (ops->view) ops->view(impl, stderr);
}

/* --gpus LIST: comma-separated ordinals into c->devices; 0, or -1 after saying what is wrong.
 * Strict (strtol alone takes "1x" or " 1"): an entry is digits only. */
static int parse_gpus(const char *list, cli *c) {
  const char *p = list;
  c->gpus = list;
  c->n_devices = 0;
  for (;;) {
    size_t len = strspn(p, "0123456789");
    long d;
    if (*p == '-' && len == 0 && p[1] >= '0' && p[1] <= '9') {
      fprintf(stderr, "ductile-solve: --gpus: device ordinals are 0 or more, not '%.*s'\n",
              (int)(1 + strspn(p + 1, "0123456789")), p);
      return -1;
    }
    if (len == 0 || len > 4 || (p[len] != ',' && p[len] != '\0')) {
      fprintf(stderr,
              "ductile-solve: --gpus: expected comma-separated device ordinals like 0,1,2,3 "
              "(got '%s')\n",
              list);
      return -1;
    }
    if (c->n_devices == DT_MAX_RUN_DEVICES) {
      fprintf(stderr, "ductile-solve: --gpus: a run takes at most %d devices (got '%s')\n",
              DT_MAX_RUN_DEVICES, list);
      return -1;
    }
    d = strtol(p, NULL, 10);
    for (int i = 0; i < c->n_devices; i++)
      if (c->devices[i] == (int)d) {
        fprintf(stderr, "ductile-solve: --gpus: device %ld is listed twice (got '%s')\n", d, list);
        return -1;
      }
    c->devices[c->n_devices++] = (int)d;
    if (p[len] == '\0') return 0;
    p += len + 1;
  }
}

static int parse_args(int argc, char **argv, cli *c) {
  int has_device = 0;
  memset(c, 0, sizeof *c);
  c->backend = "auto";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_value = i + 1 < argc;
    if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && has_value)
      c->outdir = argv[++i];
    else if (!strcmp(a, "--backend") && has_value)
      c->backend = argv[++i];
    else if (!strcmp(a, "--job") && has_value)
      c->loads = argv[++i];
    else if (!strcmp(a, "--order") && has_value)
      c->order = atoi(argv[++i]);
    else if (!strcmp(a, "--threads") && has_value)
      c->threads = atoi(argv[++i]);
    else if (!strcmp(a, "--device") && has_value)
      c->device = atoi(argv[++i]), has_device = 1;
    else if (!strcmp(a, "--gpus") && has_value) {
      if (parse_gpus(argv[++i], c) < 0) return usage(stderr), -1;
    } else if (!strcmp(a, "--checkpoint") && has_value)
      c->checkpoint = argv[++i];
    else if (!strcmp(a, "--resume"))
      c->resume = 1;
    else if (!strcmp(a, "--precond") && has_value)
      c->precond = argv[++i];
    else if (!strcmp(a, "--cuda-elements") && has_value)
      c->cuda_elements = argv[++i];
    else if (!strcmp(a, "--cuda-tangent") && has_value)
      c->cuda_tangent = argv[++i];
    else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
      c->quiet = 1;
    else if (!strcmp(a, "--view"))
      c->view = 1;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
      return usage(stdout), 0;
    else if (a[0] == '-' || c->job) {
      fprintf(stderr, "ductile-solve: unexpected argument '%s'\n", a);
      return usage(stderr), -1;
    } else
      c->job = a;
  }
  if (has_device && c->gpus) {
    fprintf(stderr, "ductile-solve: --gpus and --device both name the devices: give one (--gpus "
                    "N is --device N)\n");
    return usage(stderr), -1;
  }
  if (c->order && (c->order < 1 || c->order > 8 || !c->loads)) {
    fprintf(stderr, "ductile-solve: --order takes 1..8 with a Gmsh mesh and --job\n");
    return usage(stderr), -1;
  }
  if (!c->job || !c->outdir) {
    fprintf(stderr, "ductile-solve: %s\n",
            !c->job ? "no job file given" : "no output directory (-o)");
    return usage(stderr), -1;
  }
  return 1;
}

/* Index of name in a NULL-terminated list of the job format's names (model.h), or -1. */
static int name_index(const char *const *names, const char *name) {
  for (int k = 0; names[k]; k++)
    if (!strcmp(names[k], name)) return k;
  return -1;
}

static int print_progress(const dt_progress *ev, void *user) {
  const cli *c = user;
  switch (ev->kind) {
  case DT_EV_INFO: printf("%s\n", ev->text); break;
  case DT_EV_STEP_START:
    printf("step %d/%d \"%s\"\n", ev->step + 1, ev->n_steps, ev->step_name);
    break;
  case DT_EV_INCREMENT_START:
    if (!c->quiet)
      printf("  increment %d: load factor %.6g (d = %.4g)\n", ev->increment, ev->load_factor,
             ev->dlambda);
    break;
  case DT_EV_NEWTON_ITER:
    if (!c->quiet)
      printf("    newton %2d  residual %.3e  plastic points %d%s\n", ev->newton_iter, ev->residual,
             ev->n_plastic, ev->newton_iter > 1 ? "" : "");
    break;
  case DT_EV_INCREMENT_DONE:
    if (ev->has_energy) { /* an explicit frame */
      printf("  frame %d at time %.6g (%.1f%%)\n", ev->increment, ev->time, ev->percent);
      break;
    }
    printf("  increment %d converged: load factor %.6g, %d Newton iterations, residual %.2e "
           "(%.1f%%)\n",
           ev->increment, ev->load_factor, ev->newton_iter, ev->residual, ev->percent);
    break;
  case DT_EV_CUTBACK:
    printf("  increment %d did not converge (%s): cutting back\n", ev->increment, ev->text);
    break;
  case DT_EV_STEP_DONE: printf("step %d done\n", ev->step + 1); break;
  case DT_EV_EXPLICIT:
    if (!c->quiet)
      printf("  time %.6g: %ld of %ld time steps of %.4g (%.1f%%, %.0f s left)\n", ev->time,
             ev->time_steps, ev->time_steps_step, ev->time_step, ev->percent, ev->eta_seconds);
    break;
  }
  if (ev->kind == DT_EV_INCREMENT_DONE && ev->has_energy && !c->quiet)
    printf("    energy at %.6g: kinetic %.6g, internal work %.6g, external work %.6g, damping "
           "%.6g, balance %.3g\n",
           ev->energy.time, ev->energy.kinetic, ev->energy.internal, ev->energy.external,
           ev->energy.damping, ev->energy.balance);
  fflush(stdout);
  return 0;
}

static void print_warning(const char *msg, void *user) {
  (void)user;
  fprintf(stderr, "ductile-solve: warning: %s\n", msg);
}

/* The order-P path: 1 when it ran (*exit_code set), 0 when the input is for the analysis. */
static int run_order_p(const cli *c, int *exit_code) {
  dt_ctx ctx = {0};
  dt_ho_job_options o = {.order = c->order, .outdir = c->outdir, .log = c->quiet ? NULL : stdout};
  dt_ho_job_result res;
  dt_status rc;
  const dt_backend_ops *ops = NULL;
  char note[640];
  int order = 0;
  size_t len = strlen(c->job);
  if (!c->loads || len < 4 || strcmp(c->job + len - 4, ".msh") != 0) return 0;
  if (!c->order && (dt_ho_gmsh_file_order(c->job, &order, &ctx) != DT_OK || order < 2))
    return 0; /* a linear mesh, or one the importer will explain */
  /* the backend picks where the order-P solver runs: the host, or the GPU --device names */
  rc = dt_backend_find(c->backend, &ops, note, sizeof note, &ctx);
  if (rc == DT_OK) {
    o.gpu = strcmp(ops->name, "cuda") == 0;
    o.gpu_device = c->device;
    if (!c->quiet) printf("%s%s\n", note, o.gpu ? "" : " (the order-P solver on the host)");
    rc = dt_ho_job_run(c->job, c->loads, &o, &res, &ctx);
  }
  if (rc == DT_OK) {
    printf("completed: order %d, %d increments, %d Newton iterations, %d PCG iterations, max |u| "
           "%.6g, max PEEQ %.6g; results in %s\n",
           res.order, res.increments, res.newton_iterations, res.pcg_iterations, res.max_u,
           res.max_peeq, c->outdir);
    *exit_code = 0;
  } else {
    fprintf(stderr, "ductile-solve: %s: %s\n", dt_status_name(rc), ctx.msg);
    *exit_code = rc == DT_ERR_INPUT || rc == DT_ERR_IO ? EXIT_INPUT
                 : rc == DT_ERR_NOT_CONVERGED          ? EXIT_NOT_CONVERGED
                                                       : EXIT_FAILURE_OTHER;
  }
  return 1;
}

/* The job's name, as CalculiX takes it from `ccx -i NAME`: the input file's name without its
 * folder and extension (deck.inp -> deck), which names the .frd (deck.frd); the mesh's for a
 * .msh with --job. */
static void job_name(const char *path, char *name, size_t n) {
  const char *base = strrchr(path, '/'), *dot;
  base = base ? base + 1 : path;
  dot = strrchr(base, '.');
  snprintf(name, n, "%.*s", (int)(dot && dot > base ? dot - base : (long)strlen(base)), base);
}

int main(int argc, char **argv) {
  char name[256];
  cli c;
  dt_ctx ctx = {0};
  dt_model *m = NULL;
  dt_run_summary sum;
  dt_run_options opt;
  dt_status rc;
  double t_read = 0.0;
  dt_import_options iopt = {print_warning, NULL};
  int pa = parse_args(argc, argv, &c), code = 0;
  if (pa <= 0) return pa == 0 ? 0 : EXIT_USAGE;
  if (run_order_p(&c, &code)) return code;
  t_read = dt_seconds();
  rc = dt_import_file(c.job, c.loads, &iopt, &m, &ctx);
  t_read = dt_seconds() - t_read;
  if (rc != DT_OK) {
    /* An unreadable job file is the user's input problem too (exit 1), like an invalid one. */
    fprintf(stderr, "ductile-solve: %s: %s\n",
            rc == DT_ERR_IO ? "cannot read the job" : "invalid job", ctx.msg);
    return (rc == DT_ERR_INPUT || rc == DT_ERR_IO) ? EXIT_INPUT : EXIT_FAILURE_OTHER;
  }
  /* a large deck takes a while to read and check: the time is part of what a user waits for */
  printf("read %s in %.2f s: %d nodes, %d elements\n", c.job, t_read, m->n_nodes, m->n_elems);
  if (c.precond && strcmp(c.precond, "auto") != 0) {
    int k = 0;
    while (dt_precond_names[k] && strcmp(dt_precond_names[k], c.precond) != 0) k++;
    if (!dt_precond_names[k] || k == DT_PC_AUTO) {
      fprintf(stderr, "ductile-solve: --precond: unknown preconditioner '%s'\n", c.precond);
      dt_model_destroy(&m);
      return usage(stderr), EXIT_USAGE;
    }
    m->solver.precond = (dt_precond_kind)k;
    m->solver.precond_auto = 0;
  }
  if (c.cuda_elements || c.cuda_tangent) {
    int e = c.cuda_elements ? name_index(dt_cuda_elements_names, c.cuda_elements)
                            : m->solver.cuda_elements;
    int t =
        c.cuda_tangent ? name_index(dt_cuda_tangent_names, c.cuda_tangent) : m->solver.cuda_tangent;
    if (e < 0 || t < 0) {
      if (e < 0)
        fprintf(stderr, "ductile-solve: --cuda-elements is auto or simple, not '%s'\n",
                c.cuda_elements);
      else
        fprintf(stderr, "ductile-solve: --cuda-tangent is auto or colour, not '%s'\n",
                c.cuda_tangent);
      dt_model_destroy(&m);
      return usage(stderr), EXIT_USAGE;
    }
    m->solver.cuda_elements = e;
    m->solver.cuda_tangent = t;
  }
  memset(&opt, 0, sizeof opt);
  opt.backend = c.backend;
  opt.threads = c.threads;
  opt.device = c.device;
  opt.n_devices = c.n_devices; /* one entry: that device; more: a split run (analysis.h) */
  memcpy(opt.devices, c.devices, sizeof c.devices);
  opt.checkpoint = c.checkpoint;
  opt.resume = c.resume;
  opt.outdir = c.outdir;
  job_name(c.job, name, sizeof name);
  opt.job_name = name;
  opt.progress = print_progress;
  if (c.view) opt.before_destroy = print_view;
  opt.user = &c;
  rc = dt_analysis_run(m, &opt, &sum, &ctx);
  dt_model_destroy(&m);
  if (rc == DT_OK && sum.time_steps > 0) {
    printf("completed: %d frames, %ld time steps of %.4g, energy balance within %.2g of the "
           "largest term, %.3f s; results in %s\n",
           sum.increments, sum.time_steps, sum.time_step, sum.energy_balance, sum.seconds_total,
           c.outdir);
    return 0;
  }
  if (rc == DT_OK) {
    printf("completed: %d increments, %ld Newton iterations, %ld PCG iterations, %.3f s; "
           "results in %s\n",
           sum.increments, sum.newton_iters, sum.pcg_iters, sum.seconds_total, c.outdir);
    return 0;
  }
  if (rc == DT_ERR_NOT_CONVERGED) {
    fprintf(stderr, "ductile-solve: %s\n", sum.message);
    return EXIT_NOT_CONVERGED;
  }
  fprintf(stderr, "ductile-solve: %s error: %s\n", dt_status_name(rc), ctx.msg);
  return rc == DT_ERR_INPUT ? EXIT_INPUT : EXIT_FAILURE_OTHER;
}
