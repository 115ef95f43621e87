/* Strong couplings between the nodes of an AMG level: nodes a != b are strongly coupled when
 *
 *   |A_ab|_F > theta sqrt(|A_aa|_F |A_bb|_F)
 *
 * with A_ab the block of a's DOF rows and b's DOF columns (dpn x dpn on the mesh, up to
 * 6 x 6 on coarse levels). The measure is symmetric for a symmetric A and does not see the
 * scaling of the DOFs. Each node also records its most strongly coupled neighbour, strong or
 * not, for aggregation's last phase; a fully constrained node (identity rows, zero couplings)
 * has none. Two passes over the rows: counts, then lists. */
#include <math.h>
#include <string.h>

#include "core/omp_threads.h"
#include "amg_internal.h"

void dt_amg_graph_free(dt_amg_graph *S) {
  dt_free(S->ptr);
  dt_free(S->adj);
  dt_free(S->w);
  dt_free(S->best);
  memset(S, 0, sizeof *S);
}

/* |A_aa|_F of every node. */
static void diagonal_norms(const dt_amg_level *L, const int *dof_node, double *dn) {
  const dt_amg_csr *A = &L->A;
#pragma omp parallel for schedule(static) if (L->n > DT_AMG_OMP_MIN)
  for (int a = 0; a < L->n_nodes; a++) {
    double s = 0.0;
    for (int i = L->node_ptr[a]; i < L->node_ptr[a + 1]; i++)
      for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
        if (dof_node[A->col[k]] == a) s += A->val[k] * A->val[k];
    dn[a] = sqrt(s);
  }
}

/* Node a's strong neighbours, ascending, into adj/w (when not NULL), and its most strongly
 * coupled other node into *best (first on ties; -1 for none); returns the count.
 * acc (one per node, -1 where unseen) sums |A_ab|_F^2; touched lists the b seen. */
static int strong_row(const dt_amg_level *L, const int *dof_node, const double *dn, double theta,
                      int a, double *acc, int *touched, int *adj, double *w, int *best) {
  const dt_amg_csr *A = &L->A;
  int seen = 0, cnt = 0;
  for (int i = L->node_ptr[a]; i < L->node_ptr[a + 1]; i++)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      int b = dof_node[A->col[k]];
      if (acc[b] < 0.0) acc[b] = 0.0, touched[seen++] = b;
      acc[b] += A->val[k] * A->val[k];
    }
  double top = 0.0;
  dt_amg_sort_ints(touched, seen);
  *best = -1;
  for (int t = 0; t < seen; t++) {
    int b = touched[t];
    double scale = sqrt(dn[a] * dn[b]), s = scale > 0.0 ? sqrt(acc[b]) / scale : 0.0;
    acc[b] = -1.0;
    if (b != a && s > top) top = s, *best = b;
    if (b == a || !(s > theta)) continue;
    if (adj) adj[cnt] = b, w[cnt] = s;
    cnt++;
  }
  return cnt;
}

dt_status dt_amg_strength(const dt_amg_level *L, double theta, dt_amg_graph *S, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nn = L->n_nodes, nt = dt_omp_max_threads(), failed = 0;
  int *dof_node = NULL, *touched = NULL;
  double *dn = NULL, *acc = NULL;
  int64_t total = 0;
  memset(S, 0, sizeof *S);
  S->n = nn;
  DT_ALLOC(dof_node, L->n, ctx, "AMG DOF nodes");
  DT_ALLOC(dn, nn, ctx, "AMG block norms");
  DT_ALLOC(acc, (size_t)nt * nn, ctx, "AMG block norms");
  DT_ALLOC(touched, (size_t)nt * nn, ctx, "AMG block lists");
  DT_ALLOC(S->ptr, nn + 1, ctx, "AMG strength graph");
  DT_ALLOC(S->best, nn, ctx, "AMG strength graph");
  for (int a = 0; a < nn; a++)
    for (int i = L->node_ptr[a]; i < L->node_ptr[a + 1]; i++) dof_node[i] = a;
  for (size_t k = 0; k < (size_t)nt * nn; k++) acc[k] = -1.0;
  diagonal_norms(L, dof_node, dn);
  for (int pass = 0; pass < 2 && !failed; pass++) {
#pragma omp parallel for schedule(dynamic, 256) if (L->n > DT_AMG_OMP_MIN)
    for (int a = 0; a < nn; a++) {
      int t = dt_omp_thread();
      double *ac = acc + (size_t)t * nn;
      int *to = touched + (size_t)t * nn;
      if (pass == 0)
        S->ptr[a + 1] = strong_row(L, dof_node, dn, theta, a, ac, to, NULL, NULL, S->best + a);
      else
        strong_row(L, dof_node, dn, theta, a, ac, to, S->adj + S->ptr[a], S->w + S->ptr[a],
                   S->best + a);
    }
    if (pass == 1) break;
    for (int a = 0; a < nn; a++) {
      total += S->ptr[a + 1];
      S->ptr[a + 1] = (int)total;
    }
    S->adj = dt_malloc(sizeof(int) * (size_t)(total ? total : 1));
    S->w = dt_malloc(sizeof(double) * (size_t)(total ? total : 1));
    failed = !S->adj || !S->w;
  }
  DT_CHECK(!failed, ctx, DT_ERR_NOMEM, "out of memory for the AMG strength graph (%lld edges)",
           (long long)total);
cleanup:
  dt_free(dof_node);
  dt_free(dn);
  dt_free(acc);
  dt_free(touched);
  if (rc != DT_OK) dt_amg_graph_free(S);
  return rc;
}
