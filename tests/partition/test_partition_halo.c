/* Per-part layouts, halo lists and exchanges (solver/partition/partition.h, partition_exchange.h)
 * on an 8x7x6 hex box and the tetrahedral L-bracket (lbracket_tet4.msh), in 1, 2, 3, 4 and 7
 * parts (METIS's; slabs of element indices in a build without METIS).
 *
 *   layout: the parts' element lists cover the mesh once; every node is owned by exactly one
 *     part, the one dt_partition_node_owner names (the lowest part touching it); each node
 *     group (owned interior, owned interface, ghost) ascends by global id; interior nodes touch
 *     one part only; the local connectivity maps back to the global one; interface elements
 *     come first and are exactly those touching an interface node;
 *   a part id out of range: DT_ERR_INPUT naming the element ("element 3: part 5, not in 0 .. 1");
 *   lists: for every pair (A, B), A's send list to B and B's recv list from A name the same
 *     global nodes in the same order, and so do A's recv and B's send lists;
 *   copy exchange: every ghost ends with its owner's value (exact), with 1 and with 3 values
 *     per node; 4 values per node through buffers made for 3 are refused;
 *   sum exchange of ones: every local node ends with the number of parts touching it (exact);
 *   operator apply: the scalar Laplacian assembled per part from the part's elements only,
 *     applied to a pseudo-random vector and sum-exchanged, equals the global apply on every
 *     local node, owned or ghost, to 1e-12 relative to max |Kx| (round-off of the different
 *     summation order); the global Laplacian's row sums vanish (K 1 = 0, 1e-12), a check of
 *     the fixture's element itself;
 *   dt_part_local_gather then dt_part_local_scatter_owned of every part rebuild a global
 *     vector of 3 values per node exactly, every node written once (NaN-filled before);
 *   internal force: the elastic force of the element library (dt_element_residual, the CPU
 *     backend's; 3 values per node) assembled per part and sum-exchanged equals the global
 *     assembly on every local node to 1e-12 relative to max |f|. */
#include "element/element_kernel.h"
#include "partition/partition_exchange.h"
#include "partition_fixtures.h"

/* The elastic internal force of element e at the displacements u (3 per node, node-major,
 * indexed through conn/node map), added into f: the element library's residual (the CPU
 * backend's), elastic steel, zero history. */
static void elastic_force(const dt_model *m, int e, const int *c, const double *u, double *f) {
  static double hist[DT_MAT_STATE_DOUBLES * DT_ELEM_MAX_QP];
  dt_qp_arrays qa = {hist, NULL, NULL, NULL, DT_ELEM_MAX_QP, NULL};
  dt_material_params mat;
  double X[3 * DT_ELEM_MAX_NODES], ue[DT_ELEM_MAX_DOF], fe[DT_ELEM_MAX_DOF];
  int t = m->elem_type[e], n = m->elem_ptr[e + 1] - m->elem_ptr[e];
  memset(&mat, 0, sizeof mat);
  mat.E = 200000.0;
  mat.nu = 0.3;
  for (int a = 0; a < n; a++)
    for (int d = 0; d < 3; d++) {
      X[3 * a + d] = m->x[3 * m->conn[m->elem_ptr[e] + a] + d];
      ue[3 * a + d] = u[3 * c[a] + d];
    }
  dt_element_residual(t, X, ue, &mat, DT_STATE_3D, 0, 1.0, &qa, 0, fe, NULL);
  for (int a = 0; a < n; a++)
    for (int d = 0; d < 3; d++) f[3 * c[a] + d] += fe[3 * a + d];
}

/* The internal force of an elastic body, 3 values per node, assembled part by part from the
 * part's elements and sum-exchanged, against the global assembly: what a Newton residual on
 * several GPUs does. */
static double check_elastic(const dt_model *m, const dt_part_local *l, int nparts, dt_halo_host *h,
                            const char *what) {
  double *u = malloc(sizeof(double) * 3 * m->n_nodes), *f = calloc(3 * (size_t)m->n_nodes, 8);
  double fmax = 0.0, err = 0.0;
  dt_ctx ctx = {0};
  double **fl = malloc(sizeof(double *) * nparts), *back = malloc(sizeof(double) * 3 * m->n_nodes);
  REQUIRE(u && f && fl && back, "out of memory");
  for (int i = 0; i < 3 * m->n_nodes; i++) back[i] = NAN;
  for (int i = 0; i < 3 * m->n_nodes; i++) u[i] = 1e-3 * fixture_value(i);
  for (int e = 0; e < m->n_elems; e++) elastic_force(m, e, &m->conn[m->elem_ptr[e]], u, f);
  for (int i = 0; i < 3 * m->n_nodes; i++) fmax = fmax < fabs(f[i]) ? fabs(f[i]) : fmax;
  for (int p = 0; p < nparts; p++) {
    double *ul = malloc(sizeof(double) * (3 * (size_t)l[p].n_nodes + 3));
    fl[p] = calloc(3 * (size_t)l[p].n_nodes + 3, sizeof(double));
    REQUIRE(ul && fl[p], "out of memory");
    dt_part_local_gather(&l[p], 3, u, ul);
    for (int i = 0; i < l[p].n_elems; i++)
      elastic_force(m, l[p].elems[i], &l[p].conn[l[p].elem_ptr[i]], ul, fl[p]);
    dt_part_local_scatter_owned(&l[p], 3, ul, back);
    free(ul);
  }
  EXPECT(dt_halo_exchange(l, nparts, fl, 3, DT_HALO_SUM, dt_halo_host_ops(), h, &ctx) == DT_OK,
         "%s: %s", what, ctx.msg);
  for (int p = 0; p < nparts; p++) {
    for (int i = 0; i < 3 * l[p].n_nodes; i++) {
      double d = fabs(fl[p][i] - f[3 * l[p].node_global[i / 3] + i % 3]);
      err = d > err ? d : err;
    }
    free(fl[p]);
  }
  for (int i = 0; i < 3 * m->n_nodes; i++)
    EXPECT(back[i] == u[i], "%s: gather and scatter_owned give %g for %g at %d", what, back[i],
           u[i], i);
  free(back);
  EXPECT(err <= 1e-12 * fmax, "%s: elastic force differs by %.3e (max |f| %.3e)", what, err, fmax);
  free(fl);
  free(u);
  free(f);
  return err / fmax;
}

static void apply_global(const dt_model *m, const double *x, double *y) {
  double ke[64];
  memset(y, 0, sizeof(double) * m->n_nodes);
  for (int e = 0; e < m->n_elems; e++) {
    int n = laplace_element(m, e, ke);
    const int *c = &m->conn[m->elem_ptr[e]];
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++) y[c[a]] += ke[a * n + b] * x[c[b]];
  }
}

/* y = sum over the part's elements of K_e x, in local numbering (no exchange). */
static void apply_local(const dt_model *m, const dt_part_local *l, const double *x, double *y) {
  double ke[64];
  memset(y, 0, sizeof(double) * l->n_nodes);
  for (int i = 0; i < l->n_elems; i++) {
    int n = laplace_element(m, l->elems[i], ke);
    const int *c = &l->conn[l->elem_ptr[i]];
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++) y[c[a]] += ke[a * n + b] * x[c[b]];
  }
}

/* The number of parts touching each node, counted part by part. */
static int *parts_at_nodes(const dt_model *m, const int *part, int nparts) {
  int *cnt = calloc((size_t)m->n_nodes, sizeof *cnt), *mark = malloc(sizeof(int) * m->n_nodes);
  REQUIRE(cnt && mark, "out of memory");
  for (int v = 0; v < m->n_nodes; v++) mark[v] = -1;
  for (int p = 0; p < nparts; p++)
    for (int e = 0; e < m->n_elems; e++)
      for (int k = m->elem_ptr[e]; part[e] == p && k < m->elem_ptr[e + 1]; k++)
        if (mark[m->conn[k]] != p) {
          mark[m->conn[k]] = p;
          cnt[m->conn[k]]++;
        }
  free(mark);
  return cnt;
}

static void check_layout(const dt_model *m, const int *part, int nparts, const dt_part_local *l,
                         const int *nat, const char *what) {
  int *owned = calloc((size_t)m->n_nodes, sizeof *owned), *owner = malloc(sizeof(int) * m->n_nodes);
  int *ecount = calloc((size_t)m->n_elems, sizeof *ecount);
  dt_ctx ctx = {0};
  REQUIRE(owned && owner && ecount, "out of memory");
  REQUIRE(dt_partition_node_owner(m, nparts, part, owner, &ctx) == DT_OK, "%s", ctx.msg);
  for (int p = 0; p < nparts; p++) {
    const dt_part_local *q = &l[p];
    for (int i = 0; i < q->n_elems; i++) {
      int e = q->elems[i], iface = 0;
      ecount[e]++;
      EXPECT(part[e] == p, "%s: part %d lists element %d of part %d", what, p, e, part[e]);
      for (int k = 0; k < q->elem_ptr[i + 1] - q->elem_ptr[i]; k++) {
        int g = m->conn[m->elem_ptr[e] + k];
        EXPECT(q->node_global[q->conn[q->elem_ptr[i] + k]] == g, "%s: part %d element %d node %d",
               what, p, e, k);
        iface |= nat[g] > 1;
      }
      EXPECT(iface == (i < q->n_elems_interface), "%s: part %d element %d interface %d at %d/%d",
             what, p, e, iface, i, q->n_elems_interface);
    }
    for (int i = 0; i < q->n_nodes; i++) {
      int g = q->node_global[i];
      int grp = i < q->n_interior ? 0 : i < q->n_owned ? 1 : 2;
      if (i > 0 && i != q->n_interior && i != q->n_owned)
        EXPECT(g > q->node_global[i - 1], "%s: part %d local %d not ascending", what, p, i);
      if (grp < 2) {
        owned[g]++;
        EXPECT(owner[g] == p, "%s: part %d owns node %d of part %d", what, p, g, owner[g]);
      } else
        EXPECT(owner[g] != p, "%s: part %d has its own node %d as a ghost", what, p, g);
      EXPECT((grp == 0) == (nat[g] == 1), "%s: part %d node %d: group %d, %d parts touch it", what,
             p, g, grp, nat[g]);
    }
  }
  for (int e = 0; e < m->n_elems; e++)
    EXPECT(ecount[e] == 1, "%s: element %d in %d parts", what, e, ecount[e]);
  for (int v = 0; v < m->n_nodes; v++)
    EXPECT(owned[v] == 1, "%s: node %d owned by %d parts", what, v, owned[v]);
  free(owned);
  free(owner);
  free(ecount);
}

static void check_lists(const dt_part_local *l, int nparts, const char *what) {
  for (int a = 0; a < nparts; a++)
    for (int k = 0; k < l[a].n_peers; k++) {
      const dt_part_local *A = &l[a], *B = &l[A->peer[k]];
      int kb = -1;
      for (int j = 0; j < B->n_peers; j++)
        if (B->peer[j] == a) kb = j;
      EXPECT(kb >= 0, "%s: part %d has peer %d, which does not have it", what, a, A->peer[k]);
      if (kb < 0) continue;
      for (int dir = 0; dir < 2; dir++) {
        const int *ap = dir ? A->recv_ptr : A->send_ptr, *ai = dir ? A->recv_idx : A->send_idx;
        const int *bp = dir ? B->send_ptr : B->recv_ptr, *bi = dir ? B->send_idx : B->recv_idx;
        int na = ap[k + 1] - ap[k], nb = bp[kb + 1] - bp[kb];
        EXPECT(na == nb, "%s: %d -> %d: %d values against %d", what, dir ? B->part : a,
               dir ? a : B->part, na, nb);
        for (int i = 0; i < na && i < nb; i++) {
          int ga = A->node_global[ai[ap[k] + i]], gb = B->node_global[bi[bp[kb] + i]];
          EXPECT(ga == gb, "%s: parts %d, %d list %d entry %d: node %d against %d", what, a,
                 B->part, dir, i, ga, gb);
          if (i > 0) EXPECT(ga > A->node_global[ai[ap[k] + i - 1]], "%s: list not ascending", what);
        }
      }
    }
}

static double **local_vectors(const dt_part_local *l, int nparts) {
  double **v = malloc(sizeof(double *) * nparts);
  REQUIRE(v, "out of memory");
  for (int p = 0; p < nparts; p++) {
    v[p] = calloc((size_t)l[p].n_nodes + 1, sizeof(double));
    REQUIRE(v[p], "out of memory");
  }
  return v;
}

static void free_vectors(double **v, int nparts) {
  for (int p = 0; p < nparts; p++) free(v[p]);
  free(v);
}

/* Node-major vectors of 3 values per node (displacements): the copy exchange fills each
 * ghost's 3 values from its owner; 4 values exceed the buffers and are refused. */
static void check_copy3(const dt_model *m, const dt_part_local *l, int nparts, dt_halo_host *h,
                        const char *what) {
  double **v = malloc(sizeof(double *) * nparts);
  dt_ctx ctx = {0};
  REQUIRE(v, "out of memory");
  for (int p = 0; p < nparts; p++) {
    v[p] = malloc(sizeof(double) * (3 * (size_t)l[p].n_nodes + 4));
    REQUIRE(v[p], "out of memory");
    for (int i = 0; i < 3 * l[p].n_nodes; i++)
      v[p][i] = i < 3 * l[p].n_owned ? fixture_value(3 * l[p].node_global[i / 3] + i % 3) : NAN;
  }
  EXPECT(dt_halo_exchange(l, nparts, v, 3, DT_HALO_COPY, dt_halo_host_ops(), h, &ctx) == DT_OK,
         "%s: %s", what, ctx.msg);
  for (int p = 0; p < nparts; p++)
    for (int i = 3 * l[p].n_owned; i < 3 * l[p].n_nodes; i++)
      EXPECT(v[p][i] == fixture_value(3 * l[p].node_global[i / 3] + i % 3),
             "%s: part %d ghost value %d = %g", what, p, i, v[p][i]);
  dt_ctx_reset(&ctx);
  EXPECT(dt_halo_exchange(l, nparts, v, 4, DT_HALO_COPY, dt_halo_host_ops(), h, &ctx) ==
                 DT_ERR_INTERNAL &&
             strstr(ctx.msg, "4 values per node through buffers made for 1 to 3"),
         "%s: 4 values per node: %s", what, ctx.msg);
  for (int p = 0; p < nparts; p++) free(v[p]);
  free(v);
}

static void check_exchanges(const dt_model *m, const dt_part_local *l, int nparts, const int *nat,
                            const char *what) {
  dt_halo_host *h = NULL;
  dt_ctx ctx = {0};
  double **v = local_vectors(l, nparts);
  double *x = malloc(sizeof(double) * m->n_nodes), *y = malloc(sizeof(double) * m->n_nodes);
  double ymax = 0.0, err = 0.0, ones = 0.0;
  REQUIRE(x && y, "out of memory");
  REQUIRE(dt_halo_host_create(l, nparts, 3, &h, &ctx) == DT_OK, "%s", ctx.msg);
  /* copy: owned values from the global vector, ghosts NaN until the exchange fills them */
  for (int v0 = 0; v0 < m->n_nodes; v0++) x[v0] = fixture_value(v0);
  for (int p = 0; p < nparts; p++)
    for (int i = 0; i < l[p].n_nodes; i++)
      v[p][i] = i < l[p].n_owned ? x[l[p].node_global[i]] : NAN;
  EXPECT(dt_halo_exchange(l, nparts, v, 1, DT_HALO_COPY, dt_halo_host_ops(), h, &ctx) == DT_OK,
         "%s: %s", what, ctx.msg);
  for (int p = 0; p < nparts; p++)
    for (int i = l[p].n_owned; i < l[p].n_nodes; i++)
      EXPECT(v[p][i] == x[l[p].node_global[i]], "%s: part %d ghost %d = %g", what, p, i, v[p][i]);
  size_t before3 = dt_halo_host_moved(h);
  check_copy3(m, l, nparts, h, what);
  size_t moved3 = dt_halo_host_moved(h) - before3;
  /* sum of ones: the number of parts at each node */
  for (int p = 0; p < nparts; p++)
    for (int i = 0; i < l[p].n_nodes; i++) v[p][i] = 1.0;
  EXPECT(dt_halo_exchange(l, nparts, v, 1, DT_HALO_SUM, dt_halo_host_ops(), h, &ctx) == DT_OK,
         "%s: %s", what, ctx.msg);
  for (int p = 0; p < nparts; p++)
    for (int i = 0; i < l[p].n_nodes; i++)
      EXPECT(v[p][i] == nat[l[p].node_global[i]], "%s: part %d local %d sums to %g, %d parts", what,
             p, i, v[p][i], nat[l[p].node_global[i]]);
  /* operator apply: K x globally against per-part K_p x_p summed over the interface */
  apply_global(m, x, y);
  for (int v0 = 0; v0 < m->n_nodes; v0++)
    if (fabs(y[v0]) > ymax) ymax = fabs(y[v0]);
  for (int p = 0; p < nparts; p++) {
    double *xl = malloc(sizeof(double) * (l[p].n_nodes + 1));
    REQUIRE(xl, "out of memory");
    dt_part_local_gather(&l[p], 1, x, xl);
    apply_local(m, &l[p], xl, v[p]);
    free(xl);
  }
  EXPECT(dt_halo_exchange(l, nparts, v, 1, DT_HALO_SUM, dt_halo_host_ops(), h, &ctx) == DT_OK,
         "%s: %s", what, ctx.msg);
  for (int p = 0; p < nparts; p++)
    for (int i = 0; i < l[p].n_nodes; i++) {
      double d = fabs(v[p][i] - y[l[p].node_global[i]]);
      if (d > err) err = d;
    }
  EXPECT(err <= 1e-12 * ymax, "%s: distributed apply differs by %.3e (max |Kx| %.3e)", what, err,
         ymax);
  for (int v0 = 0; v0 < m->n_nodes; v0++) x[v0] = 1.0;
  apply_global(m, x, y);
  for (int v0 = 0; v0 < m->n_nodes; v0++)
    if (fabs(y[v0]) > ones) ones = fabs(y[v0]);
  EXPECT(ones <= 1e-12, "%s: K 1 = %.3e", what, ones);
  size_t moved = dt_halo_host_moved(h) - moved3;
  double eerr = check_elastic(m, l, nparts, h, what);
  printf("%-22s: Laplacian apply differs by %.2e, elastic force by %.2e (relative); %zu values "
         "moved by 3 scalar exchanges\n",
         what, err / ymax, eerr, moved);
  dt_halo_host_destroy(&h);
  free_vectors(v, nparts);
  free(x);
  free(y);
}

static void check_model(const dt_model *m, const char *name) {
  static const int counts[] = {1, 2, 3, 4, 7};
  int *part = malloc(sizeof(int) * m->n_elems);
  REQUIRE(part, "out of memory");
  for (int c = 0; c < 5; c++) {
    int np = counts[c], *nat = NULL;
    dt_part_local *l = calloc((size_t)np, sizeof *l);
    dt_ctx ctx = {0};
    char what[96];
    REQUIRE(l, "out of memory");
    snprintf(what, sizeof what, "%s, %d parts", name, np);
    fixture_parts(m, np, part);
    nat = parts_at_nodes(m, part, np);
    REQUIRE(dt_part_local_build(m, np, part, l, &ctx) == DT_OK, "%s: %s", what, ctx.msg);
    check_layout(m, part, np, l, nat, what);
    check_lists(l, np, what);
    check_exchanges(m, l, np, nat, what);
    for (int p = 0; p < np; p++) dt_part_local_free(&l[p]);
    free(l);
    free(nat);
  }
  free(part);
}

/* A part id out of range is refused, naming the element by its user id. */
static void check_bad_part(void) {
  dt_model *m = fixture_box(2, 2, 1);
  int part[4] = {0, 1, 5, 0}, owner[18];
  dt_part_local l[2];
  dt_ctx ctx = {0};
  EXPECT(dt_part_local_build(m, 2, part, l, &ctx) == DT_ERR_INPUT &&
             strstr(ctx.msg, "element 3: part 5, not in 0 .. 1"),
         "layout: %s", ctx.msg);
  dt_ctx_reset(&ctx);
  EXPECT(dt_partition_node_owner(m, 2, part, owner, &ctx) == DT_ERR_INPUT &&
             strstr(ctx.msg, "element 3: part 5, not in 0 .. 1"),
         "owners: %s", ctx.msg);
  dt_model_destroy(&m);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2, "usage: test_partition_halo lbracket_tet4.msh");
  dt_model *box = fixture_box(8, 7, 6), *tet = fixture_tet(argv[1]);
  printf("parts: %s\n", FIXTURE_PARTS);
  check_bad_part();
  check_model(box, "box 8x7x6");
  check_model(tet, "L-bracket");
  dt_model_destroy(&box);
  dt_model_destroy(&tet);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
