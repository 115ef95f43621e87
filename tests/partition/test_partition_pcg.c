/* A distributed Jacobi-preconditioned CG over parts (solver/partition/), the pattern the
 * multi-GPU solve follows: vector operations on owned nodes only, a halo copy of the search
 * direction before each operator apply, the apply from the part's elements and a sum
 * exchange, dot products summed over owned nodes and then over parts (the all-reduce).
 *
 * Problem: the scalar Laplacian (partition_fixtures.h) with u = 0 on the nodes of the
 * smallest x and a unit load on every other node, on a 12x10x8 hex box and on the tetrahedral
 * L-bracket (lbracket_tet4.msh), relative residual 1e-9. Reference: the same PCG on one part.
 * Asserted for 2, 3, 4 and 7 parts: the same iteration count, and the same solution to 1e-10
 * relative to max |u| (only the summation order of the dot products and of the interface
 * contributions differs). The single-part solve itself is checked against the assembled
 * residual: max |K u - b| over free nodes below 1e-8 max |b|. */
#include "partition/partition_exchange.h"
#include "partition_fixtures.h"

typedef struct dist {
  const dt_model *m;
  int np;
  dt_part_local *l;
  dt_halo_host *h;
  unsigned char **fixed; /* per part, per local node: Dirichlet */
  double **diag;
} dist;

static double **vectors(const dist *d) {
  double **v = malloc(sizeof(double *) * d->np);
  REQUIRE(v, "out of memory");
  for (int p = 0; p < d->np; p++) {
    v[p] = calloc((size_t)d->l[p].n_nodes + 1, sizeof(double));
    REQUIRE(v[p], "out of memory");
  }
  return v;
}

static void free_vectors(const dist *d, double **v) {
  for (int p = 0; p < d->np; p++) free(v[p]);
  free(v);
}

static void exchange(const dist *d, double **v, dt_halo_mode mode) {
  dt_ctx ctx = {0};
  REQUIRE(dt_halo_exchange(d->l, d->np, v, 1, mode, dt_halo_host_ops(), d->h, &ctx) == DT_OK, "%s",
          ctx.msg);
}

/* q = A p on every local node; p must be consistent on the ghosts. A is K with the fixed
 * rows and columns replaced by the identity. */
static void apply(const dist *d, double **p, double **q) {
  double ke[64];
  for (int s = 0; s < d->np; s++) {
    const dt_part_local *l = &d->l[s];
    memset(q[s], 0, sizeof(double) * l->n_nodes);
    for (int i = 0; i < l->n_elems; i++) {
      int n = laplace_element(d->m, l->elems[i], ke);
      const int *c = &l->conn[l->elem_ptr[i]];
      for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
          if (!d->fixed[s][c[a]] && !d->fixed[s][c[b]]) q[s][c[a]] += ke[a * n + b] * p[s][c[b]];
    }
  }
  exchange(d, q, DT_HALO_SUM);
  for (int s = 0; s < d->np; s++)
    for (int i = 0; i < d->l[s].n_nodes; i++)
      if (d->fixed[s][i]) q[s][i] = p[s][i];
}

/* sum over parts of the owned part of a . b, parts in order (the all-reduce) */
static double dot(const dist *d, double **a, double **b) {
  double total = 0.0;
  for (int s = 0; s < d->np; s++) {
    double part = 0.0;
    for (int i = 0; i < d->l[s].n_owned; i++) part += a[s][i] * b[s][i];
    total += part;
  }
  return total;
}

static void setup(dist *d, const dt_model *m, int np, const int *part) {
  dt_ctx ctx = {0};
  double xmin = m->x[0], ke[64];
  memset(d, 0, sizeof *d);
  d->m = m;
  d->np = np;
  d->l = calloc((size_t)np, sizeof *d->l);
  d->fixed = malloc(sizeof(unsigned char *) * np);
  REQUIRE(d->l && d->fixed, "out of memory");
  REQUIRE(dt_part_local_build(m, np, part, d->l, &ctx) == DT_OK, "%s", ctx.msg);
  REQUIRE(dt_halo_host_create(d->l, np, 1, &d->h, &ctx) == DT_OK, "%s", ctx.msg);
  for (int v = 0; v < m->n_nodes; v++)
    if (m->x[3 * v] < xmin) xmin = m->x[3 * v];
  d->diag = vectors(d);
  for (int s = 0; s < np; s++) {
    const dt_part_local *l = &d->l[s];
    d->fixed[s] = calloc((size_t)l->n_nodes + 1, 1);
    REQUIRE(d->fixed[s], "out of memory");
    for (int i = 0; i < l->n_nodes; i++)
      d->fixed[s][i] = m->x[3 * l->node_global[i]] <= xmin + 1e-9;
    for (int i = 0; i < l->n_elems; i++) {
      int n = laplace_element(m, l->elems[i], ke);
      for (int a = 0; a < n; a++) d->diag[s][l->conn[l->elem_ptr[i] + a]] += ke[a * n + a];
    }
  }
  exchange(d, d->diag, DT_HALO_SUM);
  for (int s = 0; s < np; s++)
    for (int i = 0; i < d->l[s].n_nodes; i++)
      if (d->fixed[s][i]) d->diag[s][i] = 1.0;
}

static void teardown(dist *d) {
  for (int s = 0; s < d->np; s++) {
    dt_part_local_free(&d->l[s]);
    free(d->fixed[s]);
  }
  free_vectors(d, d->diag);
  dt_halo_host_destroy(&d->h);
  free(d->l);
  free(d->fixed);
}

/* Jacobi-PCG from u = 0; u (global, n_nodes) receives the owned values. Returns iterations. */
static int pcg(const dt_model *m, int np, const int *part, double rtol, double *u) {
  dist d;
  setup(&d, m, np, part);
  double **x = vectors(&d), **r = vectors(&d), **z = vectors(&d), **p = vectors(&d),
         **q = vectors(&d);
  int it = 0;
  /* r = b: 1 on free nodes; z = D^-1 r; p = z */
  for (int s = 0; s < np; s++)
    for (int i = 0; i < d.l[s].n_owned; i++) {
      r[s][i] = d.fixed[s][i] ? 0.0 : 1.0;
      z[s][i] = r[s][i] / d.diag[s][i];
      p[s][i] = z[s][i];
    }
  double rz = dot(&d, r, z), bnorm = sqrt(dot(&d, r, r)), rnorm = bnorm;
  while (rnorm > rtol * bnorm && it < 1000) {
    exchange(&d, p, DT_HALO_COPY);
    apply(&d, p, q);
    double alpha = rz / dot(&d, p, q);
    for (int s = 0; s < np; s++)
      for (int i = 0; i < d.l[s].n_owned; i++) {
        x[s][i] += alpha * p[s][i]; /* x <- x + alpha p */
        r[s][i] -= alpha * q[s][i]; /* r <- r - alpha A p */
        z[s][i] = r[s][i] / d.diag[s][i];
      }
    double rz_new = dot(&d, r, z), beta = rz_new / rz;
    rz = rz_new;
    rnorm = sqrt(dot(&d, r, r));
    for (int s = 0; s < np; s++)
      for (int i = 0; i < d.l[s].n_owned; i++) p[s][i] = z[s][i] + beta * p[s][i];
    it++;
  }
  for (int s = 0; s < np; s++) dt_part_local_scatter_owned(&d.l[s], 1, x[s], u);
  free_vectors(&d, x);
  free_vectors(&d, r);
  free_vectors(&d, z);
  free_vectors(&d, p);
  free_vectors(&d, q);
  teardown(&d);
  return it;
}

/* max |K u - b| over free nodes, K assembled globally (one part, no exchange involved) */
static double residual(const dt_model *m, const double *u) {
  int *part = calloc((size_t)m->n_elems, sizeof *part);
  dist d;
  double worst = 0.0;
  REQUIRE(part, "out of memory");
  setup(&d, m, 1, part);
  double **x = vectors(&d), **y = vectors(&d);
  dt_part_local_gather(&d.l[0], 1, u, x[0]);
  apply(&d, x, y);
  for (int i = 0; i < d.l[0].n_nodes; i++)
    if (!d.fixed[0][i] && fabs(y[0][i] - 1.0) > worst) worst = fabs(y[0][i] - 1.0);
  free_vectors(&d, x);
  free_vectors(&d, y);
  teardown(&d);
  free(part);
  return worst;
}

static void check_model(const dt_model *m, const char *name) {
  static const int counts[] = {2, 3, 4, 7};
  const double rtol = 1e-9;
  int *part = calloc((size_t)m->n_elems, sizeof *part);
  double *u1 = malloc(sizeof(double) * m->n_nodes), *u = malloc(sizeof(double) * m->n_nodes);
  double umax = 0.0;
  REQUIRE(part && u1 && u, "out of memory");
  int it1 = pcg(m, 1, part, rtol, u1);
  for (int v = 0; v < m->n_nodes; v++)
    if (fabs(u1[v]) > umax) umax = fabs(u1[v]);
  double res = residual(m, u1);
  EXPECT(res <= 1e-8, "%s: one part: max |Ku - b| = %.3e", name, res);
  printf("%-10s 1 part: %d iterations, max |u| %.6g, max |Ku - b| %.2e\n", name, it1, umax, res);
  for (int c = 0; c < 4; c++) {
    double err = 0.0;
    fixture_parts(m, counts[c], part);
    int it = pcg(m, counts[c], part, rtol, u);
    for (int v = 0; v < m->n_nodes; v++)
      if (fabs(u[v] - u1[v]) > err) err = fabs(u[v] - u1[v]);
    EXPECT(it == it1, "%s, %d parts: %d iterations, one part %d", name, counts[c], it, it1);
    EXPECT(err <= 1e-10 * umax, "%s, %d parts: solution differs by %.3e (max |u| %.3e)", name,
           counts[c], err, umax);
    printf("%-10s %d parts: %d iterations, solution differs by %.2e relative\n", name, counts[c],
           it, err / umax);
  }
  free(part);
  free(u1);
  free(u);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2, "usage: test_partition_pcg lbracket_tet4.msh");
  dt_model *box = fixture_box(12, 10, 8), *tet = fixture_tet(argv[1]);
  printf("parts: %s\n", FIXTURE_PARTS);
  check_model(box, "box");
  check_model(tet, "L-bracket");
  dt_model_destroy(&box);
  dt_model_destroy(&tet);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
