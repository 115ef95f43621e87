/* The parts of an order-P elasticity problem for several GPUs (solver/highorder/ho_parts.c):
 * each part computes its load and diagonal from its own elements only, and one sum exchange
 * makes them whole. Reference: the load (dt_ho_elastic_body_load) and diagonal
 * (dt_ho_elastic_diagonal) of the whole mesh; tolerance 1e-12 relative, on every local node,
 * ghosts included (a ghost must hold its owner's value), for 1, 2, 3 and 5 parts of a curved
 * P = 2 box and 2 parts at P = 3. The clamped face's DOFs are masked (fre = 0, b = 0,
 * dinv = 0). Too many parts for the mesh is refused naming the empty part. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_parts.h"

static int failures = 0;

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                            \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

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

int main(void) {
  check(2, 1);
  check(2, 2);
  check(2, 3);
  check(2, 5);
  check(3, 2);
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
