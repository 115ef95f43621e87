/* The GPU product of the order-P elasticity operator (cuda/cuda_highorder.cu) against the CPU's
 * (solver/highorder/ho_elastic_apply.c, itself checked against assembled B^T D B in
 * test_ho_elastic): P = 1..8 with the default P + 1 Gauss points, and P = 2 and 4 with P + 3,
 * on a curved 3 x 2 x 2 box with moved interior vertices. Reference: the CPU product;
 * tolerance max |v_gpu - v_cpu| <= 1e-12 max |v_cpu|. Two GPU products of the same vector
 * must be bit-identical (colours in a fixed order, no atomics). Skips (77) without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_entry.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "../test_expect.h"

static void curve(const double x[3], double y[3], void *user) {
  (void)user;
  double s = 0.05 * sin(M_PI * x[0] / 3.0) * sin(M_PI * x[1] / 2.0) * sin(M_PI * x[2] / 2.0);
  for (int i = 0; i < 3; i++) y[i] = x[i] + s * (i + 1);
}

static void check_order(int P, int nq) {
  dt_ctx ctx = {0};
  dt_ho_mesh m = {0};
  dt_ho_elastic op = {0};
  dt_cuda_ho *h = NULL;
  int nv = 0, ne = 0, *hex8 = NULL;
  double *vx = NULL, lo[3] = {0, 0, 0}, hi[3] = {3, 2, 2};
  EXPECT(dt_ho_hex8_box(3, 2, 2, lo, hi, &nv, &vx, &ne, &hex8, &ctx) == DT_OK, "%s", ctx.msg);
  /* move the interior vertices (x = 1, 2; y = 1; z = 1) by up to 12% of the element size */
  for (int a = 0; a < nv; a++) {
    double *p = vx + 3 * a;
    int interior = p[0] > 0.5 && p[0] < 2.5 && p[1] == 1.0 && p[2] == 1.0;
    if (interior)
      p[0] += 0.12 * sin(3.0 * a), p[1] += 0.1 * cos(5.0 * a), p[2] -= 0.08 * sin(7.0 * a);
  }
  EXPECT(dt_ho_mesh_build(P, nv, vx, ne, hex8, curve, NULL, &m, &ctx) == DT_OK, "P %d: %s", P,
         ctx.msg);
  size_t n = 3 * (size_t)m.n_nodes;
  double *lam = malloc(sizeof(double) * m.n_elems), *mu = malloc(sizeof(double) * m.n_elems);
  double *u = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n),
         *g1 = malloc(sizeof(double) * n), *g2 = malloc(sizeof(double) * n);
  for (int e = 0; e < m.n_elems; e++) dt_ho_lame(1000.0 * (1 + e), 0.3 - 0.02 * e, &lam[e], &mu[e]);
  for (size_t i = 0; i < n; i++) u[i] = sin(0.37 * (double)i + 1.0);
  EXPECT(dt_ho_elastic_setup(&m, nq, lam, mu, &op, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
  EXPECT(dt_ho_elastic_apply(&op, u, v, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_cuda_ho_create(&op, 0, &h, &ctx) == DT_OK, "P %d: %s", P, ctx.msg);
  if (h) {
    EXPECT(dt_cuda_ho_apply(h, u, g1, &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_cuda_ho_apply(h, u, g2, &ctx) == DT_OK, "%s", ctx.msg);
    double vmax = 0.0, dmax = 0.0;
    for (size_t i = 0; i < n; i++)
      vmax = fmax(vmax, fabs(v[i])), dmax = fmax(dmax, fabs(g1[i] - v[i]));
    EXPECT(dmax <= 1e-12 * vmax, "P %d nq %d: GPU against CPU %.3e of max %.3e", P, op.nq, dmax,
           vmax);
    EXPECT(memcmp(g1, g2, sizeof(double) * n) == 0, "P %d: two GPU products differ", P);
    printf("P=%d nq=%d: %d elements, %zu DOFs, GPU against CPU %.2e (relative)\n", P, op.nq,
           m.n_elems, n, dmax / vmax);
    dt_cuda_ho_destroy(h);
  }
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
  dt_free(vx);
  dt_free(hex8);
  free(lam), free(mu), free(u), free(v), free(g1), free(g2);
}

int main(void) {
  char why[256] = "";
  if (!dt_cuda_available(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  for (int P = 1; P <= 8; P++) check_order(P, 0);
  check_order(2, 5);
  check_order(4, 7);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
