/* ductile-hogpus: order-P elasticity solved by Jacobi-PCG on several GPUs of one host (METIS
 * parts, NCCL halo exchange and all-reduce: cuda/cuda_multi.cu), for scaling measurements.
 *
 * The model is a cantilever under its own weight: the box [0, 2] x [0, 1] x [0, 1] of
 * 2n x n x n elements of order P, curved by a smooth map, clamped at x = 0, E = 210000,
 * nu = 0.3, body force (0, -1, 0). For each GPU count of --gpus-list (GPUs 0 .. G-1) it builds
 * the parts and solves, printing the partition (elements per part, edge cut, imbalance, halo
 * values per exchange), iterations, the time per iteration and GDOF/s (DOFs times iterations
 * per second). --dofs-per-gpu N scales the mesh with G (weak scaling); --dofs N keeps it fixed
 * (strong scaling). With --max-iter the solve may stop early: the per-iteration time is the
 * measurement then. --check compares each solution with the first count's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_parts.h"
#include "tool_args.h"
#include "cuda/cuda_entry.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static void curve(const double x[3], double y[3], void *user) {
  (void)user;
  double s = 0.03 * sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
  y[0] = x[0] + s;
  y[1] = x[1] + 0.5 * s;
  y[2] = x[2] - s;
}

static int clamped(const double x[3], void *user) {
  (void)user;
  return fabs(x[0]) < 1e-12;
}

static int usage(void) {
  fprintf(stderr, "usage: ductile-hogpus [--gpus-list 1,2,4] [--order P] [--dofs N | "
                  "--dofs-per-gpu N] [--tol T] [--max-iter N] [--check]\n");
  return 2;
}

int main(int argc, char **argv) {
  int counts[16] = {1, 2}, n_counts = 2, P = 2, max_iter = 20000, check = 0;
  double dofs = 0.0, per_gpu = 5e6, tol = 1e-8, *ref = NULL;
  int ref_nodes = -1;
  for (int i = 1; i < argc; i++) {
    int more = i + 1 < argc;
    if (!strcmp(argv[i], "--gpus-list") && more) {
      if ((n_counts = tool_int_list(argv[++i], counts, 16)) < 0) return usage();
    } else if (!strcmp(argv[i], "--order") && more) {
      P = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--dofs") && more) {
      dofs = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--dofs-per-gpu") && more) {
      per_gpu = atof(argv[++i]), dofs = 0.0;
    } else if (!strcmp(argv[i], "--tol") && more) {
      tol = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--max-iter") && more) {
      max_iter = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--check")) {
      check = 1;
    } else {
      return usage();
    }
  }
  for (int k = 0; k < n_counts; k++) {
    int G = counts[k], devices[DT_MULTI_MAX_GPUS], n;
    double target = dofs > 0.0 ? dofs : per_gpu * G, lambda, mu, body[3] = {0.0, -1.0, 0.0};
    double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1}, **x = NULL, *glob = NULL;
    dt_ctx ctx = {0};
    dt_ho_mesh m = {0};
    dt_ho_parts parts = {0};
    dt_multi_pcg_result res;
    const dt_ho_elastic *ops[DT_MULTI_MAX_GPUS];
    dt_status st;
    if (G < 1 || G > DT_MULTI_MAX_GPUS) return usage();
    for (int s = 0; s < G; s++) devices[s] = s;
    n = (int)fmax(1.0, floor(cbrt(target / 6.0) / P + 0.5));
    dt_ho_lame(210e3, 0.3, &lambda, &mu);
    if (dt_ho_mesh_box(P, 2 * n, n, n, lo, hi, curve, NULL, &m, &ctx) ||
        dt_ho_parts_build(&m, G, lambda, mu, body, clamped, NULL, &parts, &ctx))
      goto fail;
    for (int s = 0; s < G; s++) ops[s] = &parts.ops[s];
    x = calloc((size_t)G, sizeof(double *));
    glob = calloc(3 * (size_t)m.n_nodes, sizeof(double));
    if (!x || !glob) goto oom;
    for (int s = 0; s < G; s++)
      if (!(x[s] = calloc(3 * (size_t)parts.parts[s].n_nodes, sizeof(double)))) goto oom;
    {
      dt_multi_pcg_input in = {G,
                               devices,
                               parts.parts,
                               ops,
                               (const double *const *)parts.b,
                               (const double *const *)parts.dinv,
                               (const double *const *)parts.fre};
      st = dt_cuda_multi_pcg(&in, tol, max_iter, x, &res, &ctx);
    }
    if (st != DT_OK && !(st == DT_ERR_NOT_CONVERGED && res.iterations == max_iter)) goto fail;
    {
      int emin = parts.parts[0].n_elems, emax = emin;
      for (int s = 1; s < G; s++) {
        int e = parts.parts[s].n_elems;
        emin = e < emin ? e : emin, emax = e > emax ? e : emax;
      }
      double per_it = res.seconds_solve / (res.iterations ? res.iterations : 1);
      printf("GPUs %d  P=%d  %d elements  %d DOFs  (%.2fM per GPU)  elements per part %d-%d  "
             "imbalance %.2f%%  edge cut %lld  halo values %zu\n",
             G, P, m.n_elems, 3 * m.n_nodes, 3e-6 * m.n_nodes / G, emin, emax,
             100.0 * parts.rep.imbalance, (long long)parts.rep.edgecut, res.halo_values);
      printf("  PCG %d iterations, |r|/|b| %.2e%s, %.3f ms per iteration, %.3f GDOF/s, setup "
             "%.2f s\n",
             res.iterations, res.rel_residual, st == DT_OK ? "" : " (stopped at --max-iter)",
             1e3 * per_it, 3e-9 * m.n_nodes / per_it, res.seconds_setup);
    }
    dt_ho_parts_gather(&parts, x, glob);
    if (check) {
      if (ref_nodes < 0) {
        ref = glob, ref_nodes = m.n_nodes, glob = NULL;
        printf("  reference for --check: this solution (tip deflection %.6e)\n",
               ref[3 * (m.n_nodes - 1) + 1]);
      } else if (ref_nodes == m.n_nodes) {
        double dmax = 0.0, vmax = 0.0;
        for (size_t i = 0; i < 3 * (size_t)m.n_nodes; i++)
          vmax = fmax(vmax, fabs(ref[i])), dmax = fmax(dmax, fabs(glob[i] - ref[i]));
        printf("  against the first run: max difference %.2e of max |u| %.3e\n", dmax / vmax, vmax);
      }
    }
    for (int s = 0; s < G; s++) free(x[s]);
    free(x);
    free(glob);
    dt_ho_parts_free(&parts);
    dt_ho_mesh_free(&m);
    fflush(stdout);
    continue;
  oom:
    snprintf(ctx.msg, sizeof ctx.msg, "out of memory");
  fail:
    fprintf(stderr, "ductile-hogpus: %d GPUs: %s\n", G, ctx.msg);
    free(ref);
    return 1;
  }
  free(ref);
  return 0;
}
