/* The parts of an order-P elasticity problem for several GPUs (solver/highorder/ho_parts.c):
 * each part computes its load and diagonal from its own elements only, and one sum exchange
 * makes them whole. Reference: the load (dt_ho_elastic_body_load) and diagonal
 * (dt_ho_elastic_diagonal) of the whole mesh; tolerance 1e-12 relative, on every local node,
 * ghosts included (a ghost must hold its owner's value), for 1, 2, 3 and 5 parts of a curved
 * P = 2 box and 2 parts at P = 3. The clamped face's DOFs are masked (fre = 0, b = 0,
 * dinv = 0). Too many parts for the mesh is refused naming the empty part.
 *
 * Then the multi-GPU solver's iteration (cuda/cuda_multi.cu) step for step on the host, the
 * host transport in place of NCCL: each part's product from its own elements, one sum
 * exchange, the fixed DOFs masked, dot products over owned DOFs summed over parts, every other
 * operation pointwise on all local DOFs. For 1, 2, 3 and 5 parts its solution must satisfy the
 * whole mesh's equations, |K u - b| <= 1e-9 |b| over the free DOFs (reference: the whole
 * mesh's operator), and take the same number of iterations, within 2, as the whole-mesh PCG
 * (ho_pcg.c) at the same tolerance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_parts.h"
#include "highorder/ho_pcg.h"
#include "partition/partition_exchange.h"
#include "../test_expect.h"

static void curve(const double x[3], double y[3], void *user) {
  (void)user;
  double s = 0.04 * sin(3.0 * x[0]) * sin(2.0 * x[1]) * sin(2.5 * x[2]);
  for (int i = 0; i < 3; i++) y[i] = x[i] + s * (1 + i);
}

static int clamped(const double x[3], void *user) {
  (void)user;
  return fabs(x[0]) < 1e-12;
}

static void check(int P, int nparts) {
  dt_ctx ctx = {0};
  dt_ho_mesh m = {0};
  dt_ho_elastic op = {0};
  dt_ho_parts parts = {0};
  double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1}, body[3] = {0.3, -1.0, 0.2}, lam, mu;
  double *lams = NULL, *mus = NULL, *b = NULL, *diag = NULL;
  dt_ho_lame(1000.0, 0.3, &lam, &mu);
  EXPECT(dt_ho_mesh_box(P, 6, 3, 3, lo, hi, curve, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  lams = malloc(sizeof(double) * m.n_elems), mus = malloc(sizeof(double) * m.n_elems);
  b = calloc(3 * (size_t)m.n_nodes, sizeof(double));
  diag = calloc(3 * (size_t)m.n_nodes, sizeof(double));
  for (int e = 0; e < m.n_elems; e++) lams[e] = lam, mus[e] = mu;
  EXPECT(dt_ho_elastic_setup(&m, 0, lams, mus, &op, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_elastic_diagonal(&op, diag, &ctx) == DT_OK, "%s", ctx.msg);
  /* the whole mesh's load, through the same callback the parts use */
  {
    dt_ho_parts one = {0};
    EXPECT(dt_ho_parts_build(&m, 1, lam, mu, body, NULL, NULL, &one, &ctx) == DT_OK, "%s", ctx.msg);
    memcpy(b, one.b[0], sizeof(double) * 3 * (size_t)m.n_nodes); /* 1 part: local = global */
    for (int i = 0; i < one.parts[0].n_nodes; i++)
      EXPECT(one.parts[0].node_global[i] == i, "one part renumbers node %d", i);
    dt_ho_parts_free(&one);
  }
  EXPECT(dt_ho_parts_build(&m, nparts, lam, mu, body, clamped, NULL, &parts, &ctx) == DT_OK,
         "P %d, %d parts: %s", P, nparts, ctx.msg);
  double bmax = 0.0, dmax = 0.0, eb = 0.0, ed = 0.0;
  for (size_t i = 0; i < 3 * (size_t)m.n_nodes; i++)
    bmax = fmax(bmax, fabs(b[i])), dmax = fmax(dmax, fabs(diag[i]));
  int fixed_seen = 0;
  for (int s = 0; s < nparts && parts.parts; s++) {
    const dt_part_local *l = &parts.parts[s];
    for (int i = 0; i < l->n_nodes; i++) {
      int g = l->node_global[i], fixed = clamped(m.coords + 3 * g, NULL);
      for (int c = 0; c < 3; c++) {
        size_t li = 3 * (size_t)i + c, gi = 3 * (size_t)g + c;
        EXPECT(parts.fre[s][li] == (fixed ? 0.0 : 1.0), "part %d node %d mask", s, g);
        if (fixed) {
          fixed_seen++;
          EXPECT(parts.b[s][li] == 0.0 && parts.dinv[s][li] == 0.0, "fixed DOF loaded");
          continue;
        }
        eb = fmax(eb, fabs(parts.b[s][li] - b[gi]));
        ed = fmax(ed, fabs(1.0 / parts.dinv[s][li] - diag[gi]));
      }
    }
  }
  EXPECT(fixed_seen > 0, "no clamped DOF");
  EXPECT(eb <= 1e-12 * bmax && ed <= 1e-12 * dmax,
         "P %d, %d parts: load off by %.2e, diagonal by %.2e (relative)", P, nparts, eb / bmax,
         ed / dmax);
  dt_ho_parts_free(&parts);
  dt_ho_elastic_free(&op);
  dt_ho_mesh_free(&m);
  free(lams), free(mus), free(b), free(diag);
}

/* sum over parts of the owned part of a.b (3 values per node) */
static double owned_dot(const dt_ho_parts *p, double **a, double **b) {
  double s = 0.0;
  for (int k = 0; k < p->nparts; k++)
    for (size_t i = 0; i < 3 * (size_t)p->parts[k].n_owned; i++) s += a[k][i] * b[k][i];
  return s;
}

static double **part_vectors(const dt_ho_parts *p) {
  double **v = calloc((size_t)p->nparts, sizeof(double *));
  for (int k = 0; k < p->nparts; k++)
    v[k] = calloc(3 * (size_t)p->parts[k].n_nodes, sizeof(double));
  return v;
}

static void free_vectors(const dt_ho_parts *p, double **v) {
  for (int k = 0; k < p->nparts; k++) free(v[k]);
  free(v);
}

static void check_distributed_pcg(int nparts) {
  dt_ctx ctx = {0};
  dt_ho_mesh m = {0};
  dt_ho_parts p = {0}, one = {0};
  dt_halo_host *halo = NULL;
  double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1}, body[3] = {0.0, -1.0, 0.0}, lam, mu, tol = 1e-10;
  dt_ho_lame(1000.0, 0.3, &lam, &mu);
  EXPECT(dt_ho_mesh_box(2, 6, 3, 3, lo, hi, curve, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_parts_build(&m, nparts, lam, mu, body, clamped, NULL, &p, &ctx) == DT_OK, "%s",
         ctx.msg);
  EXPECT(dt_ho_parts_build(&m, 1, lam, mu, body, clamped, NULL, &one, &ctx) == DT_OK, "%s",
         ctx.msg);
  EXPECT(dt_halo_host_create(p.parts, nparts, 3, &halo, &ctx) == DT_OK, "%s", ctx.msg);
  double **x = part_vectors(&p), **r = part_vectors(&p), **z = part_vectors(&p),
         **pp = part_vectors(&p), **q = part_vectors(&p);
  for (int k = 0; k < nparts; k++)
    for (size_t i = 0; i < 3 * (size_t)p.parts[k].n_nodes; i++)
      r[k][i] = p.b[k][i], z[k][i] = p.dinv[k][i] * r[k][i], pp[k][i] = z[k][i];
  double rr0 = owned_dot(&p, r, r), rr = rr0, rz = owned_dot(&p, r, z);
  int it = 0;
  while (rr > tol * tol * rr0 && it < 5000) {
    for (int k = 0; k < nparts; k++)
      EXPECT(dt_ho_elastic_apply(&p.ops[k], pp[k], q[k], &ctx) == DT_OK, "%s", ctx.msg);
    EXPECT(dt_halo_exchange(p.parts, nparts, q, 3, DT_HALO_SUM, dt_halo_host_ops(), halo, &ctx) ==
               DT_OK,
           "%s", ctx.msg);
    for (int k = 0; k < nparts; k++)
      for (size_t i = 0; i < 3 * (size_t)p.parts[k].n_nodes; i++) q[k][i] *= p.fre[k][i];
    double alpha = rz / owned_dot(&p, pp, q);
    for (int k = 0; k < nparts; k++)
      for (size_t i = 0; i < 3 * (size_t)p.parts[k].n_nodes; i++) {
        x[k][i] += alpha * pp[k][i];
        r[k][i] -= alpha * q[k][i];
        z[k][i] = p.dinv[k][i] * r[k][i];
      }
    rr = owned_dot(&p, r, r);
    double rz_new = owned_dot(&p, r, z), beta = rz_new / rz;
    rz = rz_new;
    for (int k = 0; k < nparts; k++)
      for (size_t i = 0; i < 3 * (size_t)p.parts[k].n_nodes; i++)
        pp[k][i] = z[k][i] + beta * pp[k][i];
    it++;
  }
  /* the whole mesh's residual of the gathered solution, and its own PCG's iteration count */
  size_t n = 3 * (size_t)m.n_nodes;
  double *u = calloc(n, sizeof(double)), *ku = calloc(n, sizeof(double)),
         *diag = calloc(n, sizeof(double)), *u1 = calloc(n, sizeof(double));
  unsigned char *fixed = calloc(n, 1);
  dt_ho_parts_gather(&p, x, u);
  EXPECT(dt_ho_elastic_apply(&one.ops[0], u, ku, &ctx) == DT_OK, "%s", ctx.msg);
  double rmax = 0.0, bmax = 0.0;
  for (size_t i = 0; i < n; i++) {
    fixed[i] = one.fre[0][i] == 0.0;
    diag[i] = fixed[i] ? 1.0 : 1.0 / one.dinv[0][i];
    if (!fixed[i])
      rmax = fmax(rmax, fabs(ku[i] - one.b[0][i])), bmax = fmax(bmax, fabs(one.b[0][i]));
  }
  EXPECT(rmax <= 1e-9 * bmax, "%d parts: |K u - b| = %.2e of |b|", nparts, rmax / bmax);
  dt_ho_pcg_opts o = {tol, 5000};
  dt_ho_pcg_result pr;
  EXPECT(dt_ho_pcg_solve((int)n, dt_ho_elastic_apply_fn, &one.ops[0], diag, fixed, one.b[0], u1, &o,
                         &pr, &ctx) == DT_OK,
         "%s", ctx.msg);
  EXPECT(abs(pr.iterations - it) <= 2, "%d parts: %d iterations, the whole mesh %d", nparts, it,
         pr.iterations);
  printf("%d parts: %d iterations (whole mesh %d), |K u - b| %.1e of |b|\n", nparts, it,
         pr.iterations, rmax / bmax);
  free(u), free(ku), free(diag), free(u1), free(fixed);
  free_vectors(&p, x), free_vectors(&p, r), free_vectors(&p, z), free_vectors(&p, pp);
  free_vectors(&p, q);
  dt_halo_host_destroy(&halo);
  dt_ho_parts_free(&p);
  dt_ho_parts_free(&one);
  dt_ho_mesh_free(&m);
}

int main(void) {
  check(2, 1);
  check(2, 2);
  check(2, 3);
  check(2, 5);
  check(3, 2);
  for (int k = 1; k <= 5; k += (k == 3 ? 2 : 1)) check_distributed_pcg(k);
  {
    dt_ctx ctx = {0};
    dt_ho_mesh m = {0};
    dt_ho_parts parts = {0};
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, body[3] = {0, 0, 0};
    EXPECT(dt_ho_mesh_box(2, 2, 1, 1, lo, hi, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
    dt_status st = dt_ho_parts_build(&m, 3, 1.0, 1.0, body, NULL, NULL, &parts, &ctx);
    EXPECT(st == DT_ERR_INPUT && strstr(ctx.msg, "elements"), "3 parts of 2 elements: %s", ctx.msg);
    dt_ho_parts_free(&parts);
    dt_ho_mesh_free(&m);
  }
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
