/* Order-P elasticity by Jacobi-PCG on several GPUs (cuda/cuda_multi.cu: METIS parts, NCCL halo
 * exchange and all-reduce) against the CPU's PCG on the whole mesh (highorder/ho_pcg.c).
 *
 * Model: a curved cantilever [0,2] x [0,1] x [0,1] of 8 x 4 x 4 elements, P = 2, clamped at
 * x = 0, loaded by its own weight. Both solves run to 1e-12 relative residual. References:
 * the residual of the GPUs' solution under the CPU operator, |K u - b| <= 1e-10 |b| over the
 * free DOFs; and the CPU solution, max |u_gpu - u_cpu| <= 1e-6 max |u_cpu| (the residual
 * tolerance amplified by the condition number of the Jacobi-scaled cantilever), for 1 GPU and,
 * where the host has them, 2, 3 and 4 GPUs (one part per GPU). The iteration count may differ from the CPU's by a few (different sums
 * of the dot products). A device named twice is refused. Skips (77) without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cuda/cuda_entry.h"
#include "highorder/ho_parts.h"
#include "highorder/ho_pcg.h"
#include "../test_expect.h"

static void curve(const double x[3], double y[3], void *user) {
  (void)user;
  double s = 0.03 * sin(3.0 * x[0]) * sin(2.0 * x[1]) * sin(2.5 * x[2]);
  for (int i = 0; i < 3; i++) y[i] = x[i] + s * (1 + i);
}

static int clamped(const double x[3], void *user) {
  (void)user;
  return fabs(x[0]) < 1e-12;
}

static void solve_gpus(const dt_ho_mesh *m, int G, const double *ref, double lam, double mu,
                       const dt_ho_parts *one) {
  dt_ctx ctx = {0};
  dt_ho_parts parts = {0};
  dt_multi_pcg_result res;
  double body[3] = {0.0, -1.0, 0.0}, **x = calloc((size_t)G, sizeof(double *));
  double *glob = calloc(3 * (size_t)m->n_nodes, sizeof(double));
  const dt_ho_elastic *ops[DT_MULTI_MAX_GPUS];
  int devices[DT_MULTI_MAX_GPUS];
  dt_status st = dt_ho_parts_build(m, G, lam, mu, body, clamped, NULL, &parts, &ctx);
  if (st == DT_ERR_UNSUPPORTED && G > 1) { /* a build without METIS cannot make the parts */
    printf("SKIP %d GPUs: %s\n", G, ctx.msg);
    goto done;
  }
  EXPECT(st == DT_OK, "%d parts: %s", G, ctx.msg);
  if (st != DT_OK) goto done;
  for (int s = 0; s < G; s++) {
    devices[s] = s;
    ops[s] = &parts.ops[s];
    x[s] = calloc(3 * (size_t)parts.parts[s].n_nodes, sizeof(double));
  }
  dt_multi_pcg_input in = {G,
                           devices,
                           parts.parts,
                           ops,
                           (const double *const *)parts.b,
                           (const double *const *)parts.dinv,
                           (const double *const *)parts.fre};
  EXPECT(dt_cuda_multi_pcg(&in, 1e-12, 20000, x, &res, &ctx) == DT_OK, "%d GPUs: %s", G, ctx.msg);
  dt_ho_parts_gather(&parts, x, glob);
  double dmax = 0.0, vmax = 0.0;
  for (size_t i = 0; i < 3 * (size_t)m->n_nodes; i++)
    vmax = fmax(vmax, fabs(ref[i])), dmax = fmax(dmax, fabs(glob[i] - ref[i]));
  EXPECT(dmax <= 1e-6 * vmax, "%d GPUs: solution off by %.2e of max |u| %.3e", G, dmax / vmax,
         vmax);
  {
    size_t n = 3 * (size_t)m->n_nodes;
    double *ku = calloc(n, sizeof(double)), rmax = 0.0, bmax = 0.0;
    EXPECT(dt_ho_elastic_apply(&one->ops[0], glob, ku, &ctx) == DT_OK, "%s", ctx.msg);
    for (size_t i = 0; i < n; i++)
      if (one->fre[0][i] != 0.0)
        rmax = fmax(rmax, fabs(ku[i] - one->b[0][i])), bmax = fmax(bmax, fabs(one->b[0][i]));
    EXPECT(rmax <= 1e-10 * bmax, "%d GPUs: |K u - b| = %.2e of |b| %.3e", G, rmax / bmax, bmax);
    free(ku);
  }
  printf("%d GPU%s: %d iterations, |r|/|b| %.1e, %zu halo values per exchange, against the CPU "
         "%.2e\n",
         G, G > 1 ? "s" : "", res.iterations, res.rel_residual, res.halo_values, dmax / vmax);
  if (G >= 2) { /* a device named twice */
    dt_ctx bad = {0};
    devices[1] = devices[0];
    EXPECT(dt_cuda_multi_pcg(&in, 1e-11, 10, x, &res, &bad) == DT_ERR_INPUT &&
               strstr(bad.msg, "named twice"),
           "a device named twice: %s", bad.msg);
  }
done:
  for (int s = 0; s < G && parts.parts; s++) free(x[s]);
  free(x);
  free(glob);
  dt_ho_parts_free(&parts);
  fflush(stdout);
}

int main(void) {
  char why[256] = "";
  dt_device_info info[8];
  int n_dev = 0;
  dt_ctx ctx = {0};
  setvbuf(stdout, NULL, _IOLBF, 0); /* every line reaches the log, even if a later check crashes */
  if (!dt_cuda_available(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  EXPECT(dt_backend_devices("cuda", info, 8, &n_dev, &ctx) == DT_OK, "%s", ctx.msg);
  dt_ho_mesh m = {0};
  dt_ho_elastic op = {0};
  double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1}, lam, mu, body[3] = {0.0, -1.0, 0.0};
  dt_ho_lame(1000.0, 0.3, &lam, &mu);
  EXPECT(dt_ho_mesh_box(2, 8, 4, 4, lo, hi, curve, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  /* the CPU reference on the whole mesh, with the same load and mask as the parts build */
  dt_ho_parts one = {0};
  EXPECT(dt_ho_parts_build(&m, 1, lam, mu, body, clamped, NULL, &one, &ctx) == DT_OK, "%s",
         ctx.msg);
  size_t n = 3 * (size_t)m.n_nodes;
  double *diag = calloc(n, sizeof(double)), *u = calloc(n, sizeof(double));
  unsigned char *fixed = calloc(n, 1);
  for (size_t i = 0; i < n; i++) {
    fixed[i] = one.fre[0][i] == 0.0;
    diag[i] = one.dinv[0][i] > 0.0 ? 1.0 / one.dinv[0][i] : 1.0;
  }
  dt_ho_pcg_opts o = {1e-12, 20000};
  dt_ho_pcg_result pr;
  EXPECT(dt_ho_pcg_solve((int)n, dt_ho_elastic_apply_fn, &one.ops[0], diag, fixed, one.b[0], u, &o,
                         &pr, &ctx) == DT_OK,
         "CPU reference: %s", ctx.msg);
  printf("CPU: %d elements, %zu DOFs, %d iterations\n", m.n_elems, n, pr.iterations);
  for (int G = 1; G <= (n_dev < 4 ? n_dev : 4); G++) solve_gpus(&m, G, u, lam, mu, &one);
  dt_ho_parts_free(&one);
  dt_ho_mesh_free(&m);
  dt_ho_elastic_free(&op);
  free(diag), free(u), free(fixed);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
