/* ductile-hobench: throughput of the matrix-free elasticity operator of order-P hexahedra
 * (solver/highorder/ho_elastic.h), CPU and GPU, on a curved box of about --dofs DOFs.
 *
 * For each order it prints DOFs, the bytes and flops of one product (dt_ho_elastic_cost: qdata,
 * node ids and Lame parameters read once, u read and v written once), the product's time and
 * GDOF/s on each backend, the memory floor (bytes over the measured device copy bandwidth) and
 * the GPU's agreement with the CPU product (max |v_gpu - v_cpu| / max |v_cpu|). With --json FILE
 * the same numbers go to a JSON file for bench/results. With --msh FILE the mesh of each order
 * is FILE's hexahedra (Gmsh, any order 1..8) resampled to that order (highorder/ho_mesh_gmsh.h);
 * the --pc solves then clamp the nodes of the physical group --fix NAME, or by default those at
 * the smallest x. With --plastic each order also times J2 plasticity at the Gauss points
 * (highorder/ho_plastic.h; cuda/cuda_ho_plastic.cu on the GPU): the residual (material update,
 * trial state and tangent stored) and the tangent product at a displacement that yields part of
 * the box, with their bytes (dt_ho_plastic_cost) against the same copy-bandwidth floor, and the
 * GPU's agreement with the host's residual. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_mesh_gmsh.h"
#include "highorder/ho_pcg.h"
#include "highorder/ho_plastic.h"
#include "highorder/ho_pmg.h"
#include "tool_args.h"
#ifdef DUCTILE_HAVE_CUDA
#include "cuda/cuda_entry.h"
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The box [0, 2] x [0, 1] x [0, 1] curved by a smooth map: every element has its own Jacobian,
 * as on a real part (qdata cannot be shared between elements). */
static void curve(const double x[3], double y[3], void *user) {
  (void)user;
  double s = 0.03 * sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
  y[0] = x[0] + s;
  y[1] = x[1] + 0.5 * s;
  y[2] = x[2] - s;
}

static int usage(void) {
  fprintf(stderr, "usage: ductile-hobench [--orders 1,2,3,4] [--dofs N] [--reps N] "
                  "[--backend cpu|cuda|both] [--pc jacobi|pmg|both] [--plastic] [--json FILE] "
                  "[--msh FILE [--fix GROUP]]\n");
  return 2;
}

/* x at the mesh's smallest x (*user), to 1e-9 of its extent along x. */
static int at_xmin(const double x[3], void *user) {
  const double *r = user;
  return x[0] <= r[0] + 1e-9 * r[1];
}

/* The clamped nodes of the solves: the group `fix` of a Gmsh mesh, else those at the smallest x. */
static dt_status clamp_nodes(const dt_ho_mesh *m, const dt_ho_gmsh_groups *G, const char *fix,
                             unsigned char *node_fixed, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double r[2] = {INFINITY, 0.0}, xmax = -INFINITY;
  if (fix) {
    const dt_ho_gmsh_group *g = dt_ho_gmsh_group_find(G, fix);
    DT_CHECK(g != NULL, ctx, DT_ERR_INPUT, "--fix %s: the mesh has no physical group of that name",
             fix);
    for (int i = 0; i < g->n_nodes; i++) node_fixed[g->nodes[i]] = 1;
    goto cleanup;
  }
  for (int n = 0; n < m->n_nodes; n++)
    r[0] = fmin(r[0], m->coords[3 * n]), xmax = fmax(xmax, m->coords[3 * n]);
  r[1] = xmax - r[0];
  dt_ho_mesh_mark_where(m, at_xmin, r, node_fixed);
cleanup:
  return rc;
}

static void weight(const double x[3], double f[3], void *user) {
  (void)x, (void)user;
  f[0] = f[2] = 0.0;
  f[1] = -1.0;
}

/* PCG on the clamped box with Jacobi (pmg = 0) or p-multigrid (pmg = 1): prints one line. */
static dt_status solve_bench(const dt_ho_mesh *m, const dt_ho_gmsh_groups *G, const char *fix,
                             const dt_ho_elastic *op, int pmg_on, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = 3 * m->n_nodes;
  unsigned char *node_fixed = NULL, *fixed = NULL;
  double *b = NULL, *u = NULL, *diag = NULL, t0 = now(), t_setup = 0.0;
  dt_ho_pmg pmg = {0};
  dt_ho_pcg_result res = {0};
  dt_ho_pcg_opts po = {1e-8, 100000};
  DT_ALLOC(node_fixed, m->n_nodes, ctx, "bench constraints");
  DT_ALLOC(fixed, n, ctx, "bench constraints");
  DT_ALLOC(b, n, ctx, "bench load");
  DT_ALLOC(u, n, ctx, "bench solution");
  DT_ALLOC(diag, n, ctx, "bench diagonal");
  DT_TRY(clamp_nodes(m, G, fix, node_fixed, ctx));
  for (int i = 0; i < n; i++) fixed[i] = node_fixed[i / 3];
  DT_TRY(dt_ho_elastic_body_load(op, m, weight, NULL, b, ctx));
  DT_TRY(dt_ho_elastic_diagonal(op, diag, ctx));
  if (pmg_on) {
    dt_ho_pmg_opts o;
    dt_ho_pmg_opts_default(&o);
    DT_TRY(dt_ho_pmg_setup(m, op, dt_ho_elastic_apply_fn, op, diag, fixed, &o, &pmg, ctx));
    t_setup = now() - t0;
    DT_TRY(dt_ho_pcg_solve_pc(n, dt_ho_elastic_apply_fn, op, dt_ho_pmg_apply, &pmg, fixed, b, u,
                              &po, &res, ctx));
  } else {
    DT_TRY(dt_ho_pcg_solve(n, dt_ho_elastic_apply_fn, op, diag, fixed, b, u, &po, &res, ctx));
  }
  printf("  solve %-6s %6d its  %9.3f s (setup %.3f s)  rtol %.0e\n", pmg_on ? "p-MG" : "jacobi",
         res.iterations, now() - t0, t_setup, po.rtol);
  fflush(stdout);
cleanup:
  dt_ho_pmg_free(&pmg);
  dt_free(node_fixed);
  dt_free(fixed);
  dt_free(b);
  dt_free(u);
  dt_free(diag);
  return rc;
}

/* A displacement that strains the box [0, 2] x [0, 1]^2 to about 0.4% at x = 2: past yield in
 * part of it. */
static void plastic_u(const dt_ho_mesh *m, double *u) {
  for (int a = 0; a < m->n_nodes; a++) {
    const double *x = m->coords + 3 * a;
    u[3 * a] = 0.001 * x[0] * x[0] + 0.0005 * x[1] * x[2];
    u[3 * a + 1] = -0.0005 * x[0] * x[1];
    u[3 * a + 2] = 0.0008 * x[0] * x[2];
  }
}

/* The plastic rows of order P: residual and tangent product, host and GPU (bw: the device's
 * copy bandwidth, NaN without a GPU). */
static dt_status plastic_bench(const dt_ho_elastic *op, const dt_ho_mesh *m, int cpu, int gpu,
                               int reps, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_plastic pl = {0};
  dt_material_params mat;
  int *em = NULL;
  size_t n = 3 * (size_t)m->n_nodes;
  double *u = NULL, *f = NULL, *fg = NULL, rb, ab, t_res = NAN, t_app = NAN, g_res = NAN,
         g_app = NAN, bw = NAN, diff = NAN;
  dt_ho_plastic_report rep = {0, 0, -1, -1};
  char desc[256] = "";
  memset(&mat, 0, sizeof mat);
  mat.E = 210e3, mat.nu = 0.3, mat.plastic = DT_PLASTIC_J2, mat.iso = DT_ISO_LINEAR;
  mat.sigma_y0 = 250.0, mat.H = 2000.0;
  DT_ALLOC(em, m->n_elems, ctx, "bench materials");
  for (int e = 0; e < m->n_elems; e++) em[e] = 0;
  DT_ALLOC(u, n, ctx, "bench displacement");
  DT_ALLOC(f, n, ctx, "bench residual");
  DT_ALLOC(fg, n, ctx, "bench residual");
  plastic_u(m, u);
  DT_TRY(dt_ho_plastic_setup(op, 1, &mat, em, &pl, ctx));
  dt_ho_plastic_cost(&pl, &rb, &ab);
  DT_TRY(dt_ho_plastic_residual(&pl, u, f, &rep, ctx)); /* the GPU's reference, the tangent */
  if (cpu) {
    double t0 = now();
    int r = 0;
    do {
      DT_TRY(dt_ho_plastic_residual(&pl, u, fg, NULL, ctx));
      r++;
    } while (now() - t0 < 1.0 && r < reps);
    t_res = (now() - t0) / r;
    t0 = now(), r = 0;
    do {
      DT_TRY(dt_ho_plastic_tangent_apply(&pl, u, fg, ctx));
      r++;
    } while (now() - t0 < 1.0 && r < reps);
    t_app = (now() - t0) / r;
  }
#ifdef DUCTILE_HAVE_CUDA
  if (gpu) {
    dt_cuda_ho *h = NULL;
    dt_cuda_ho_plastic *hp = NULL;
    double fmax_ = 0.0, dmax = 0.0;
    rc = dt_cuda_ho_create(op, 0, &h, ctx);
    if (rc == DT_OK) rc = dt_cuda_ho_plastic_create(&pl, h, &hp, ctx);
    if (rc == DT_OK) rc = dt_cuda_ho_plastic_rollback(hp, ctx);
    if (rc == DT_OK) rc = dt_cuda_ho_plastic_residual(hp, u, fg, NULL, ctx);
    if (rc == DT_OK) rc = dt_cuda_ho_plastic_time(hp, u, reps, &g_res, &g_app, ctx);
    if (rc == DT_OK) rc = dt_cuda_ho_copy_bandwidth(h, &bw, ctx);
    if (hp) dt_cuda_ho_plastic_describe(hp, desc, sizeof desc);
    dt_cuda_ho_plastic_destroy(hp);
    dt_cuda_ho_destroy(h);
    if (rc != DT_OK) goto cleanup;
    for (size_t i = 0; i < n; i++)
      fmax_ = fmax(fmax_, fabs(f[i])), dmax = fmax(dmax, fabs(fg[i] - f[i]));
    diff = dmax / fmax_;
  }
#endif
  printf("  plastic: %ld of %ld points yield; residual %.3g bytes, tangent product %.3g bytes\n",
         rep.n_plastic, pl.n_points, rb, ab);
  if (cpu)
    printf("    cpu   residual %9.3f ms %7.3f GDOF/s   tangent %9.3f ms %7.3f GDOF/s\n",
           1e3 * t_res, 1e-9 * n / t_res, 1e3 * t_app, 1e-9 * n / t_app);
  if (gpu)
    printf("    cuda  residual %9.3f ms %7.3f GDOF/s (floor %.3f ms: %.2fx)   tangent %9.3f ms "
           "%7.3f GDOF/s (floor %.3f ms: %.2fx)\n    agreement with cpu %.2e  (%s)\n",
           1e3 * g_res, 1e-9 * n / g_res, 1e3 * rb / bw, g_res / (rb / bw), 1e3 * g_app,
           1e-9 * n / g_app, 1e3 * ab / bw, g_app / (ab / bw), diff, desc);
  fflush(stdout);
cleanup:
  dt_ho_plastic_free(&pl);
  dt_free(em);
  dt_free(u);
  dt_free(f);
  dt_free(fg);
  return rc;
}

int main(int argc, char **argv) {
  int orders[16] = {1, 2, 3, 4, 6, 8}, n_orders = 6, reps = 20, cpu = 1, gpu = 1, pc = 0;
  int plastic = 0;
  double target = 20e6;
  const char *json = NULL, *msh = NULL, *fix = NULL;
  FILE *jf = NULL;
  for (int i = 1; i < argc; i++) {
    int more = i + 1 < argc;
    if (!strcmp(argv[i], "--orders") && more) {
      if ((n_orders = tool_int_list(argv[++i], orders, 16)) < 0) return usage();
    } else if (!strcmp(argv[i], "--dofs") && more) {
      target = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--reps") && more) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--backend") && more) {
      const char *b = argv[++i];
      cpu = !strcmp(b, "cpu") || !strcmp(b, "both");
      gpu = !strcmp(b, "cuda") || !strcmp(b, "both");
      if (!cpu && !gpu) return usage();
    } else if (!strcmp(argv[i], "--pc") && more) {
      const char *b = argv[++i];
      pc = !strcmp(b, "jacobi") ? 1 : !strcmp(b, "pmg") ? 2 : !strcmp(b, "both") ? 3 : -1;
      if (pc < 0) return usage();
    } else if (!strcmp(argv[i], "--plastic")) {
      plastic = 1;
    } else if (!strcmp(argv[i], "--json") && more) {
      json = argv[++i];
    } else if (!strcmp(argv[i], "--msh") && more) {
      msh = argv[++i];
    } else if (!strcmp(argv[i], "--fix") && more) {
      fix = argv[++i];
    } else {
      return usage();
    }
  }
#ifndef DUCTILE_HAVE_CUDA
  if (gpu) fprintf(stderr, "ductile-hobench: this build has no CUDA backend; CPU only\n");
  gpu = 0;
#else
  {
    char why[256] = "";
    if (gpu && !dt_cuda_available(why, sizeof why)) {
      fprintf(stderr, "ductile-hobench: no usable GPU (%s); CPU only\n", why);
      gpu = 0;
    }
  }
#endif
  if (json && !(jf = fopen(json, "w")))
    return fprintf(stderr, "ductile-hobench: cannot write %s\n", json), 1;
  if (jf) fprintf(jf, "{\"suite\": \"highorder_apply\", \"rows\": [");
  for (int k = 0; k < n_orders; k++) {
    int P = orders[k], n;
    dt_ctx ctx = {0};
    dt_ho_mesh m = {0};
    dt_ho_gmsh_groups G = {0};
    dt_ho_elastic op = {0};
    double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1}, *lam = NULL, *mu = NULL, *u = NULL, *v = NULL,
           *vg = NULL, flops, bytes, t_cpu = NAN, t_gpu = NAN, bw = NAN, diff = NAN;
    char desc[256] = "";
    /* elements per unit length: 3 (2 n P + 1) (n P + 1)^2 DOFs */
    n = (int)fmax(1.0, floor(cbrt(target / 6.0) / P));
    if (msh ? dt_ho_mesh_read_gmsh(msh, P, &m, &G, &ctx) != DT_OK
            : dt_ho_mesh_box(P, 2 * n, n, n, lo, hi, curve, NULL, &m, &ctx) != DT_OK)
      goto fail;
    lam = malloc(sizeof(double) * m.n_elems);
    mu = malloc(sizeof(double) * m.n_elems);
    u = malloc(sizeof(double) * 3 * (size_t)m.n_nodes);
    v = malloc(sizeof(double) * 3 * (size_t)m.n_nodes);
    vg = malloc(sizeof(double) * 3 * (size_t)m.n_nodes);
    if (!lam || !mu || !u || !v || !vg) {
      fprintf(stderr, "ductile-hobench: out of memory\n");
      goto fail;
    }
    for (int e = 0; e < m.n_elems; e++) dt_ho_lame(210e3, 0.3, &lam[e], &mu[e]);
    for (size_t i = 0; i < 3 * (size_t)m.n_nodes; i++) u[i] = sin(0.001 * (double)i + 0.3);
    if (dt_ho_elastic_setup(&m, 0, lam, mu, &op, &ctx) != DT_OK) goto fail;
    dt_ho_elastic_cost(&op, &flops, &bytes);
    if (cpu || gpu) { /* the CPU product is the reference of the GPU's */
      double t0 = now();
      int r = 0;
      do {
        if (dt_ho_elastic_apply(&op, u, v, &ctx) != DT_OK) goto fail;
        r++;
      } while (cpu && now() - t0 < 1.0 && r < reps);
      t_cpu = cpu ? (now() - t0) / r : NAN;
    }
#ifdef DUCTILE_HAVE_CUDA
    if (gpu) {
      dt_cuda_ho *h = NULL;
      double vmax = 0.0, dmax = 0.0;
      if (dt_cuda_ho_create(&op, 0, &h, &ctx) != DT_OK || dt_cuda_ho_apply(h, u, vg, &ctx) ||
          dt_cuda_ho_time(h, reps, &t_gpu, &ctx) || dt_cuda_ho_copy_bandwidth(h, &bw, &ctx)) {
        dt_cuda_ho_destroy(h);
        goto fail;
      }
      dt_cuda_ho_describe(h, desc, sizeof desc);
      dt_cuda_ho_destroy(h);
      for (size_t i = 0; i < 3 * (size_t)m.n_nodes; i++)
        vmax = fmax(vmax, fabs(v[i])), dmax = fmax(dmax, fabs(vg[i] - v[i]));
      diff = dmax / vmax;
    }
#endif
    printf("P=%d  %d elements  %d DOFs  nq=%d  %.3g flops  %.3g bytes per product\n", P, m.n_elems,
           3 * m.n_nodes, op.nq, flops, bytes);
    if (cpu)
      printf("  cpu   %9.3f ms  %7.3f GDOF/s  %6.1f GFLOP/s\n", 1e3 * t_cpu,
             3e-9 * m.n_nodes / t_cpu, 1e-9 * flops / t_cpu);
    if (gpu)
      printf("  cuda  %9.3f ms  %7.3f GDOF/s  %6.1f GFLOP/s  floor %.3f ms (%.0f GB/s copy): "
             "%.2fx  agreement with cpu %.2e\n  (%s)\n",
             1e3 * t_gpu, 3e-9 * m.n_nodes / t_gpu, 1e-9 * flops / t_gpu, 1e3 * bytes / bw,
             bw / 1e9, t_gpu / (bytes / bw), diff, desc);
    fflush(stdout);
    if (plastic && plastic_bench(&op, &m, cpu, gpu, reps, &ctx) != DT_OK) goto fail;
    if ((pc & 1) && solve_bench(&m, &G, fix, &op, 0, &ctx) != DT_OK) goto fail;
    if ((pc & 2) && P >= 2 && solve_bench(&m, &G, fix, &op, 1, &ctx) != DT_OK) goto fail;
    if (jf)
      fprintf(jf,
              "%s\n  {\"order\": %d, \"nq\": %d, \"elements\": %d, \"dofs\": %d, \"flops\": %.6g, "
              "\"bytes\": %.6g, \"cpu_seconds\": %.6g, \"cuda_seconds\": %.6g, "
              "\"copy_bandwidth\": %.6g, \"agreement\": %.3g}",
              k ? "," : "", P, op.nq, m.n_elems, 3 * m.n_nodes, flops, bytes, cpu ? t_cpu : -1.0,
              gpu ? t_gpu : -1.0, gpu ? bw : -1.0, gpu ? diff : -1.0);
    dt_ho_elastic_free(&op);
    dt_ho_mesh_free(&m);
    dt_ho_gmsh_groups_free(&G);
    free(lam), free(mu), free(u), free(v), free(vg);
    continue;
  fail:
    fprintf(stderr, "ductile-hobench: order %d: %s\n", P, ctx.msg);
    if (jf) fclose(jf);
    return 1;
  }
  if (jf) fprintf(jf, "\n]}\n"), fclose(jf);
  return 0;
}
