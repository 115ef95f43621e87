/* Building and refreshing the AMG hierarchy across the parts (amg_parts.h).
 *
 * Build, level by level until the whole level has at most max_coarse DOFs: each part's strong
 * couplings and aggregates of its owned nodes, their tentative bases (thin QR, amg_tentative.c);
 * the numbering of the coarse nodes across the parts (part by part) and each part's coarse
 * ghosts, the aggregates of its ghost nodes, whose tentative rows it copies from their owners;
 * the coarse level's exchange lists; the patterns of P, R, A P and A_c as one device's (amg.h).
 * Values: the summed point diagonal, lambda_max by Lanczos across the parts, P (a shared
 * node's row of A P_tent summed over the parts by an exchange of its entries), R, A P and
 * each part's A_c; the
 * coarsest level gathered whole and factored. All parts live in this process, so the setup
 * reads every part's arrays directly; the V-cycle exchanges through the host transport. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "amg_parts_internal.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A side's transfer to the next level and its shared rows' pieces. */
static void side_transfer_free(amgp_side *S) {
  dt_amg_transfer_free(&S->lev);
  dt_amg_csr_free(&S->KPt);
  dt_free(S->entry_ptr);
  dt_free(S->q_upos);
  dt_free(S->u_pos);
  dt_free(S->urow);
  S->entry_ptr = S->q_upos = S->u_pos = NULL;
  S->urow = NULL;
  dt_part_local_free(&S->Xe);
  memset(&S->Xe, 0, sizeof S->Xe);
}

static void side_free(amgp_side *S) {
  side_transfer_free(S);
  dt_amg_level_free(&S->lev);
  dt_free(S->shared);
  dt_free(S->gnode);
  dt_free(S->gdof);
  dt_part_local_free(&S->Xn);
  dt_part_local_free(&S->X);
  dt_free(S->diag);
  dt_free(S->owned_r);
  memset(S, 0, sizeof *S);
}

static void level_free(dt_amg_parts *h, int l) {
  amgp_level *L = &h->lev[l];
  for (int s = 0; s < h->nparts; s++) side_free(&L->side[s]);
  dt_halo_host_destroy(&L->halo);
  dt_halo_host_destroy(&L->halo_e);
  memset(L, 0, sizeof *L);
}

void dt_amg_parts_destroy(dt_amg_parts **hp) {
  dt_amg_parts *h = hp ? *hp : NULL;
  if (!h) return;
  for (int l = 0; l < DT_AMG_MAX_LEVELS; l++) level_free(h, l);
  dt_amg_destroy(&h->coarse);
  dt_free(h->cb);
  dt_free(h->cx);
  dt_free(h->chunks);
  for (int s = 0; s < h->nparts; s++) dt_free(h->con[s]), dt_free(h->cpos[s]);
  dt_free(h);
  *hp = NULL;
}

/* The vectors of a side (n each). */
static dt_status side_vectors(amgp_side *S, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = S->lev.n;
  DT_ALLOC(S->lev.b, n, ctx, "AMG vectors");
  DT_ALLOC(S->lev.x, n, ctx, "AMG vectors");
  DT_ALLOC(S->lev.r, n, ctx, "AMG vectors");
  DT_ALLOC(S->lev.d, n, ctx, "AMG vectors");
  DT_ALLOC(S->lev.t, n, ctx, "AMG vectors");
  DT_ALLOC(S->diag, n, ctx, "AMG diagonal");
  DT_ALLOC(S->lev.dinv, n, ctx, "AMG smoother");
  DT_ALLOC(S->owned_r, n, ctx, "AMG vectors");
  DT_ALLOC(S->lev.diag_pos, n, ctx, "AMG diagonal positions");
cleanup:
  return rc;
}

/* Lists over units from lists over nodes: node a stands for units ptr[a] .. ptr[a + 1] - 1 (its
 * DOFs, or its entries of the shared rows), in order, so both sides of a pair keep one order. */
static dt_status expand_lists(const dt_part_local *Xn, const int *ptr, dt_part_local *X,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int np = Xn->n_peers, ns = 0, nr = 0;
  memset(X, 0, sizeof *X);
  X->part = Xn->part;
  X->nparts = Xn->nparts;
  X->n_nodes = ptr[Xn->n_nodes];
  X->n_owned = ptr[Xn->n_owned];
  X->n_interior = ptr[Xn->n_interior];
  X->n_peers = np;
  for (int m = 0; m < Xn->send_ptr[np]; m++) ns += ptr[Xn->send_idx[m] + 1] - ptr[Xn->send_idx[m]];
  for (int m = 0; m < Xn->recv_ptr[np]; m++) nr += ptr[Xn->recv_idx[m] + 1] - ptr[Xn->recv_idx[m]];
  DT_ALLOC(X->peer, np + 1, ctx, "AMG exchange lists");
  DT_ALLOC(X->send_ptr, np + 1, ctx, "AMG exchange lists");
  DT_ALLOC(X->recv_ptr, np + 1, ctx, "AMG exchange lists");
  DT_ALLOC(X->send_idx, ns + 1, ctx, "AMG exchange lists");
  DT_ALLOC(X->recv_idx, nr + 1, ctx, "AMG exchange lists");
  ns = nr = 0;
  for (int k = 0; k < np; k++) {
    X->peer[k] = Xn->peer[k];
    X->send_ptr[k] = ns;
    X->recv_ptr[k] = nr;
    for (int m = Xn->send_ptr[k]; m < Xn->send_ptr[k + 1]; m++)
      for (int u = ptr[Xn->send_idx[m]]; u < ptr[Xn->send_idx[m] + 1]; u++) X->send_idx[ns++] = u;
    for (int m = Xn->recv_ptr[k]; m < Xn->recv_ptr[k + 1]; m++)
      for (int u = ptr[Xn->recv_idx[m]]; u < ptr[Xn->recv_idx[m] + 1]; u++) X->recv_idx[nr++] = u;
  }
  X->send_ptr[np] = ns;
  X->recv_ptr[np] = nr;
cleanup:
  return rc;
}

/* Part s's level 0: its tangent (borrowed), nodes, rigid-body modes, numbering and lists. */
static dt_status fine_side(dt_amg_parts *h, const dt_amg_part_input *in, amgp_side *S,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_part_local *L = in->L;
  int dpn = h->dpn, n = L->n_nodes * dpn;
  dt_amg_level *F = &S->lev;
  F->n = n;
  F->n_nodes = L->n_nodes;
  F->A = (dt_amg_csr){n, n, in->row_ptr, in->col, in->val, 0, NULL, 1};
  DT_ALLOC(F->node_ptr, L->n_nodes + 1, ctx, "AMG nodes");
  for (int a = 0; a <= L->n_nodes; a++) F->node_ptr[a] = a * dpn;
  DT_TRY(dt_amg_csr_group(&F->A, F->node_ptr, F->n_nodes, ctx));
  DT_ALLOC(F->B, (size_t)n * h->n_modes, ctx, "AMG near-null space");
  dt_amg_rigid_modes(L->n_nodes, dpn, in->x, in->con, F->B);
  S->n_owned_nodes = L->n_owned;
  S->n_owned = L->n_owned * dpn;
  DT_ALLOC(S->shared, L->n_nodes, ctx, "AMG shared nodes");
  DT_ALLOC(S->gnode, L->n_nodes, ctx, "AMG node numbers");
  DT_ALLOC(S->gdof, n, ctx, "AMG DOF numbers");
  for (int a = 0; a < L->n_nodes; a++) {
    S->shared[a] = a >= L->n_interior;
    S->gnode[a] = L->node_global[a];
    for (int d = 0; d < dpn; d++) S->gdof[a * dpn + d] = L->node_global[a] * dpn + d;
  }
  {
    int *ident = NULL;
    DT_ALLOC(ident, L->n_nodes + 1, ctx, "AMG exchange lists");
    for (int a = 0; a <= L->n_nodes; a++) ident[a] = a;
    rc = expand_lists(L, ident, &S->Xn, ctx);
    dt_free(ident);
    DT_TRY(rc);
  }
  DT_TRY(expand_lists(&S->Xn, F->node_ptr, &S->X, ctx));
  DT_TRY(side_vectors(S, ctx));
cleanup:
  return rc;
}

/* The strong graph of the owned nodes only: a ghost's couplings and couplings to ghosts go
 * (aggregates stay inside the part); coupled[a]: a had a coupling before (a node left outside
 * every aggregate then gets one of its own: its neighbours were all ghosts). */
static void owned_graph(dt_amg_graph *S, int n_own, unsigned char *coupled) {
  int out = 0;
  for (int a = 0; a < S->n; a++) {
    int beg = S->ptr[a], end = S->ptr[a + 1];
    S->ptr[a] = out;
    if (a < n_own) {
      coupled[a] = end > beg || S->best[a] >= 0;
      for (int k = beg; k < end; k++)
        if (S->adj[k] < n_own) S->adj[out] = S->adj[k], S->w[out] = S->w[k], out++;
    }
    if (a >= n_own || S->best[a] >= n_own) S->best[a] = -1;
  }
  S->ptr[S->n] = out;
}

/* Part s's aggregates of its owned nodes and their tentative bases: F->agg, F->P_tent (owned
 * rows), C's owned coarse nodes and B. */
static dt_status aggregate_side(dt_amg_parts *h, int l, amgp_side *FS, amgp_side *CS, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg_level *F = &FS->lev;
  dt_amg_graph S = {0};
  unsigned char *coupled = NULL;
  int n_agg = 0;
  DT_ALLOC(coupled, F->n_nodes, ctx, "AMG aggregates");
  DT_ALLOC(F->agg, F->n_nodes, ctx, "AMG aggregates");
  F->theta = h->opt.theta;
  for (int k = 0;; k++, F->theta *= 0.5) { /* the threshold as on one device, per part */
    DT_TRY(dt_amg_strength(F, F->theta, &S, ctx));
    owned_graph(&S, FS->n_owned_nodes, coupled);
    DT_TRY(dt_amg_aggregate(&S, F->agg, &n_agg, ctx));
    for (int a = 0; a < FS->n_owned_nodes; a++)
      if (F->agg[a] < 0 && coupled[a]) F->agg[a] = n_agg++;
    if (!dt_amg_coarsen_again(l, FS->n_owned_nodes, n_agg, k)) break;
    dt_amg_graph_free(&S);
  }
  DT_TRY(dt_amg_tentative(F, h->n_modes, n_agg, &CS->lev, ctx));
  CS->n_owned_nodes = CS->lev.n_nodes;
  CS->n_owned = CS->lev.n;
cleanup:
  dt_amg_graph_free(&S);
  dt_free(coupled);
  return rc;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The part owning coarse node gc (off: each part's first coarse node, nparts + 1 entries). */
static int owner_of(const int *off, int nparts, int gc) {
  int lo = 0, hi = nparts - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (off[mid] <= gc)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Where the fine level's nodes live: for every node of the whole level, its owner part and its
 * index there. */
typedef struct fine_map {
  int *owner, *local;
} fine_map;

static dt_status map_fine(dt_amg_parts *h, int l, fine_map *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amgp_level *F = &h->lev[l];
  DT_ALLOC(m->owner, F->n_global_nodes, ctx, "AMG node owners");
  DT_ALLOC(m->local, F->n_global_nodes, ctx, "AMG node owners");
  for (int s = 0; s < h->nparts; s++) {
    const amgp_side *S = &F->side[s];
    for (int a = 0; a < S->n_owned_nodes; a++) m->owner[S->gnode[a]] = s, m->local[S->gnode[a]] = a;
  }
cleanup:
  return rc;
}

/* The rows of the shared nodes across the parts: for every node of the level that several parts
 * hold (idx[G] >= 0), the coarse nodes its smoothed row touches, ascending: the aggregates of
 * its neighbours in every part's matrix. */
typedef struct shared_rows {
  int *idx;       /* per node of the whole level: its index among the shared ones, or -1 */
  int *ptr, *col; /* per shared node: the coarse nodes (numbers across the parts) */
} shared_rows;

static void shared_rows_free(shared_rows *u) {
  dt_free(u->idx);
  dt_free(u->ptr);
  dt_free(u->col);
  memset(u, 0, sizeof *u);
}

static int cmp_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

static dt_status shared_unions(dt_amg_parts *h, int l, const fine_map *m, const int *noff,
                               shared_rows *u, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amgp_level *F = &h->lev[l];
  int n_sh = 0, *pairs = NULL, *dof_node = NULL;
  size_t np = 0, cap = 0;
  DT_ALLOC(u->idx, F->n_global_nodes + 1, ctx, "AMG shared rows");
  for (int G = 0; G < F->n_global_nodes; G++) u->idx[G] = -1;
  for (int s = 0; s < h->nparts; s++) {
    const amgp_side *S = &F->side[s];
    for (int a = 0; a < S->lev.n_nodes; a++) {
      int i = S->lev.node_ptr[a];
      if (!S->shared[a]) continue;
      if (u->idx[S->gnode[a]] < 0) u->idx[S->gnode[a]] = n_sh++;
      if (S->lev.node_ptr[a + 1] > i) cap += S->lev.A.row_ptr[i + 1] - S->lev.A.row_ptr[i];
    }
  }
  DT_ALLOC(pairs, 2 * cap + 2, ctx, "AMG shared rows");
  for (int s = 0; s < h->nparts; s++) {
    const amgp_side *S = &F->side[s];
    const dt_amg_csr *A = &S->lev.A;
    DT_ALLOC(dof_node, S->lev.n + 1, ctx, "AMG shared rows");
    for (int a = 0; a < S->lev.n_nodes; a++)
      for (int i = S->lev.node_ptr[a]; i < S->lev.node_ptr[a + 1]; i++) dof_node[i] = a;
    for (int a = 0; a < S->lev.n_nodes; a++) {
      int i = S->lev.node_ptr[a];
      if (!S->shared[a] || S->lev.node_ptr[a + 1] == i) continue;
      for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        int gb = S->gnode[dof_node[A->col[k]]], j = m->owner[gb];
        int c = F->side[j].lev.agg[m->local[gb]];
        if (c < 0) continue;
        pairs[2 * np] = u->idx[S->gnode[a]];
        pairs[2 * np + 1] = noff[j] + c;
        np++;
      }
    }
    DT_FREE(dof_node);
  }
  qsort(pairs, np, 2 * sizeof(int), cmp_pair);
  DT_ALLOC(u->ptr, n_sh + 1, ctx, "AMG shared rows");
  DT_ALLOC(u->col, np + 1, ctx, "AMG shared rows");
  {
    int nu = 0;
    for (size_t q = 0; q < np; q++) {
      if (q > 0 && pairs[2 * q] == pairs[2 * q - 2] && pairs[2 * q + 1] == pairs[2 * q - 1])
        continue;
      u->col[nu++] = pairs[2 * q + 1];
      u->ptr[pairs[2 * q] + 1] = nu;
    }
    for (int r = 0; r < n_sh; r++) /* a shared node without entries keeps the previous end */
      if (u->ptr[r + 1] < u->ptr[r]) u->ptr[r + 1] = u->ptr[r];
  }
cleanup:
  dt_free(pairs);
  dt_free(dof_node);
  return rc;
}

/* Part s's coarse ghosts (the aggregates of its ghost nodes and those its shared nodes' rows
 * touch, by their number across the parts, ascending) appended to its coarse nodes, with their
 * sizes, B rows and numbers. */
static dt_status coarse_ghosts(dt_amg_parts *h, int l, int s, const fine_map *m, const int *noff,
                               const int *doff, const shared_rows *u, int **ghost_out,
                               int *n_ghost_out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amgp_side *FS = &h->lev[l].side[s], *CS = &h->lev[l + 1].side[s];
  dt_amg_level *C = &CS->lev;
  int nm = h->n_modes, ng = 0, n_own = C->n_nodes, *ghost = NULL, *node_ptr = NULL;
  size_t cap = (size_t)(FS->lev.n_nodes - FS->n_owned_nodes) + 1;
  double *B = NULL;
  for (int a = 0; a < FS->lev.n_nodes; a++)
    if (FS->shared[a]) {
      int r = u->idx[FS->gnode[a]];
      cap += (size_t)(u->ptr[r + 1] - u->ptr[r]);
    }
  DT_ALLOC(ghost, cap, ctx, "AMG coarse ghosts");
  for (int a = FS->n_owned_nodes; a < FS->lev.n_nodes; a++) {
    int G = FS->gnode[a], j = m->owner[G], c = h->lev[l].side[j].lev.agg[m->local[G]];
    if (c >= 0) ghost[ng++] = noff[j] + c;
  }
  for (int a = 0; a < FS->lev.n_nodes; a++)
    if (FS->shared[a]) {
      int r = u->idx[FS->gnode[a]];
      for (int k = u->ptr[r]; k < u->ptr[r + 1]; k++)
        if (u->col[k] < noff[s] || u->col[k] >= noff[s + 1]) ghost[ng++] = u->col[k];
    }
  qsort(ghost, (size_t)ng, sizeof(int), cmp_int);
  {
    int u = 0;
    for (int k = 0; k < ng; k++)
      if (u == 0 || ghost[k] != ghost[u - 1]) ghost[u++] = ghost[k];
    ng = u;
  }
  DT_ALLOC(node_ptr, n_own + ng + 1, ctx, "AMG coarse nodes");
  memcpy(node_ptr, C->node_ptr, sizeof(int) * (size_t)(n_own + 1));
  for (int k = 0; k < ng; k++) {
    int j = owner_of(noff, h->nparts, ghost[k]), c = ghost[k] - noff[j];
    const dt_amg_level *Cj = &h->lev[l + 1].side[j].lev;
    node_ptr[n_own + k + 1] = node_ptr[n_own + k] + Cj->node_ptr[c + 1] - Cj->node_ptr[c];
  }
  DT_ALLOC(B, (size_t)node_ptr[n_own + ng] * nm + 1, ctx, "AMG coarse near-null space");
  memcpy(B, C->B, sizeof(double) * (size_t)C->n * nm);
  DT_ALLOC(CS->gnode, n_own + ng, ctx, "AMG node numbers");
  DT_ALLOC(CS->gdof, node_ptr[n_own + ng], ctx, "AMG DOF numbers");
  DT_ALLOC(CS->shared, n_own + ng, ctx, "AMG shared nodes");
  for (int c = 0; c < n_own; c++) {
    CS->gnode[c] = noff[s] + c;
    for (int i = node_ptr[c]; i < node_ptr[c + 1]; i++) CS->gdof[i] = doff[s] + i;
  }
  for (int k = 0; k < ng; k++) {
    int j = owner_of(noff, h->nparts, ghost[k]), c = ghost[k] - noff[j];
    const dt_amg_level *Cj = &h->lev[l + 1].side[j].lev;
    CS->gnode[n_own + k] = ghost[k];
    CS->shared[n_own + k] = 1;
    for (int d = 0; d < node_ptr[n_own + k + 1] - node_ptr[n_own + k]; d++) {
      CS->gdof[node_ptr[n_own + k] + d] = doff[j] + Cj->node_ptr[c] + d;
      memcpy(B + (size_t)(node_ptr[n_own + k] + d) * nm, Cj->B + (size_t)(Cj->node_ptr[c] + d) * nm,
             sizeof(double) * nm);
    }
  }
  dt_free(C->node_ptr);
  dt_free(C->B);
  C->node_ptr = node_ptr;
  C->B = B;
  node_ptr = NULL;
  B = NULL;
  C->n_nodes = n_own + ng;
  C->n = C->node_ptr[C->n_nodes];
  *ghost_out = ghost;
  *n_ghost_out = ng;
  ghost = NULL;
cleanup:
  dt_free(ghost);
  dt_free(node_ptr);
  dt_free(B);
  return rc;
}

/* Index of gc in the sorted ghosts (it is there). */
static int ghost_index(const int *ghost, int ng, int gc) {
  int lo = 0, hi = ng - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (ghost[mid] < gc)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Part s's whole P_tent: its owned rows as aggregate_side made them, its ghost rows copied from
 * their owners with the columns in its coarse numbering. */
static dt_status full_tentative(dt_amg_parts *h, int l, int s, const fine_map *m, const int *noff,
                                const int *ghost, int ng, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amgp_side *FS = &h->lev[l].side[s];
  dt_amg_level *F = &FS->lev, *C = &h->lev[l + 1].side[s].lev;
  dt_amg_csr P = {0};
  int n_own_c = h->lev[l + 1].side[s].n_owned_nodes;
  P.n_rows = F->n;
  P.n_cols = C->n;
  DT_ALLOC(P.row_ptr, F->n + 1, ctx, "AMG tentative prolongator");
  for (int pass = 0; pass < 2; pass++) {
    int nnz = 0;
    for (int a = 0; a < F->n_nodes; a++) {
      int gh = a >= FS->n_owned_nodes, j = s, b = a, c = -1, lc = -1;
      const dt_amg_level *Fj = F, *Cj = C;
      if (gh) {
        int G = FS->gnode[a];
        j = m->owner[G], b = m->local[G];
        Fj = &h->lev[l].side[j].lev;
        Cj = &h->lev[l + 1].side[j].lev;
        c = Fj->agg[b];
        if (c >= 0) lc = n_own_c + ghost_index(ghost, ng, noff[j] + c);
      }
      for (int d = 0; d < F->node_ptr[a + 1] - F->node_ptr[a]; d++) {
        int i = F->node_ptr[a] + d, oi = Fj->node_ptr[b] + d;
        const dt_amg_csr *Q = &Fj->P_tent;
        for (int k = Q->row_ptr[oi]; k < Q->row_ptr[oi + 1]; k++) {
          if (pass == 1) {
            P.col[nnz] = gh ? C->node_ptr[lc] + (Q->col[k] - Cj->node_ptr[c]) : Q->col[k];
            P.val[nnz] = Q->val[k];
          }
          nnz++;
        }
        if (pass == 0) P.row_ptr[i + 1] = nnz;
      }
    }
    if (pass == 0) {
      DT_ALLOC(P.col, nnz + 1, ctx, "AMG tentative prolongator");
      DT_ALLOC(P.val, nnz + 1, ctx, "AMG tentative prolongator");
    }
  }
  dt_amg_csr_free(&F->P_tent);
  F->P_tent = P;
  memset(&P, 0, sizeof P);
cleanup:
  dt_amg_csr_free(&P);
  return rc;
}

/* The coarse level's exchange lists: part s receives its ghosts' DOFs from their owners, in
 * ascending number, and each owner sends the same DOFs in the same order. */
static dt_status coarse_lists(dt_amg_parts *h, int l, int *const *ghost, const int *ng,
                              const int *noff, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int np = h->nparts;
  int cnt[DT_AMG_PARTS_MAX][DT_AMG_PARTS_MAX];  /* cnt[s][j]: DOFs s receives from j */
  int cntn[DT_AMG_PARTS_MAX][DT_AMG_PARTS_MAX]; /* the same in nodes */
  amgp_level *C = &h->lev[l + 1];
  memset(cnt, 0, sizeof cnt);
  memset(cntn, 0, sizeof cntn);
  for (int s = 0; s < np; s++) {
    const dt_amg_level *Cs = &C->side[s].lev;
    int n_own = C->side[s].n_owned_nodes;
    for (int k = 0; k < ng[s]; k++) {
      int j = owner_of(noff, np, ghost[s][k]);
      cnt[s][j] += Cs->node_ptr[n_own + k + 1] - Cs->node_ptr[n_own + k];
      cntn[s][j]++;
      C->side[j].shared[ghost[s][k] - noff[j]] = 1;
    }
  }
  for (int s = 0; s < np; s++) {
    dt_part_local *X = &C->side[s].Xn;
    int np_s = 0, ns = 0, nr = 0;
    memset(X, 0, sizeof *X);
    X->part = s;
    X->nparts = np;
    X->n_nodes = C->side[s].lev.n_nodes;
    X->n_owned = X->n_interior = C->side[s].n_owned_nodes;
    for (int j = 0; j < np; j++)
      if (j != s && (cnt[s][j] || cnt[j][s])) np_s++, ns += cntn[j][s], nr += cntn[s][j];
    X->n_peers = np_s;
    DT_ALLOC(X->peer, np_s + 1, ctx, "AMG exchange lists");
    DT_ALLOC(X->send_ptr, np_s + 1, ctx, "AMG exchange lists");
    DT_ALLOC(X->recv_ptr, np_s + 1, ctx, "AMG exchange lists");
    DT_ALLOC(X->send_idx, ns + 1, ctx, "AMG exchange lists");
    DT_ALLOC(X->recv_idx, nr + 1, ctx, "AMG exchange lists");
    np_s = 0;
    for (int j = 0; j < np; j++)
      if (j != s && (cnt[s][j] || cnt[j][s])) X->peer[np_s++] = j;
  }
  for (int s = 0; s < np; s++) { /* the node lists, peer by peer in ascending order */
    dt_part_local *X = &C->side[s].Xn;
    int ns = 0, nr = 0;
    for (int k = 0; k < X->n_peers; k++) {
      int j = X->peer[k];
      X->send_ptr[k] = ns, X->recv_ptr[k] = nr;
      for (int q = 0; q < ng[j]; q++) /* j's ghosts that s owns: s sends them */
        if (owner_of(noff, np, ghost[j][q]) == s) X->send_idx[ns++] = ghost[j][q] - noff[s];
      for (int q = 0; q < ng[s]; q++) /* s's ghosts that j owns: s receives them */
        if (owner_of(noff, np, ghost[s][q]) == j) X->recv_idx[nr++] = C->side[s].n_owned_nodes + q;
    }
    X->send_ptr[X->n_peers] = ns, X->recv_ptr[X->n_peers] = nr;
  }
  for (int s = 0; s < np; s++)
    DT_TRY(expand_lists(&C->side[s].Xn, C->side[s].lev.node_ptr, &C->side[s].X, ctx));
cleanup:
  return rc;
}

/* Part s's local coarse node of coarse node gc (numbers across the parts). */
static int local_coarse(const dt_amg_parts *h, int l, int s, const int *noff, const int *ghost,
                        int ng, int gc) {
  if (gc >= noff[s] && gc < noff[s + 1]) return gc - noff[s];
  return h->lev[l + 1].side[s].n_owned_nodes + ghost_index(ghost, ng, gc);
}

/* The coarse DOFs (part s's numbers) a shared node's row touches, in the order of its coarse
 * nodes across the parts; returns their count. */
static int union_dofs(const dt_amg_parts *h, int l, int s, const shared_rows *u, const int *noff,
                      const int *ghost, int ng, int a, int *out) {
  const amgp_side *FS = &h->lev[l].side[s];
  const dt_amg_level *C = &h->lev[l + 1].side[s].lev;
  int r = u->idx[FS->gnode[a]], w = 0;
  for (int k = u->ptr[r]; k < u->ptr[r + 1]; k++) {
    int lc = local_coarse(h, l, s, noff, ghost, ng, u->col[k]);
    for (int i = C->node_ptr[lc]; i < C->node_ptr[lc + 1]; i++) {
      if (out) out[w] = i;
      w++;
    }
  }
  return w;
}

/* The patterns of part s's P, R, A P and A_c (as amg_setup.c's coarsen), with P's rows at
 * shared nodes over their rows across the parts; the shared rows' entries, maps and lists. */
static dt_status side_patterns(dt_amg_parts *h, int l, int s, const shared_rows *u, const int *noff,
                               const int *ghost, int ng, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amgp_side *FS = &h->lev[l].side[s], *CS = &h->lev[l + 1].side[s];
  dt_amg_level *F = &FS->lev, *C = &CS->lev;
  dt_amg_csr *Q = &FS->KPt, *P = &F->P;
  int *ucols = NULL, *pos = NULL, *pt_pos = NULL, max_w = 0;
  DT_TRY(dt_amg_spgemm_symbolic(&F->A, &F->P_tent, Q, ctx));
  DT_ALLOC(FS->entry_ptr, F->n_nodes + 1, ctx, "AMG shared rows");
  for (int a = 0; a < F->n_nodes; a++) {
    int nd = F->node_ptr[a + 1] - F->node_ptr[a];
    int w = FS->shared[a] ? union_dofs(h, l, s, u, noff, ghost, ng, a, NULL) : 0;
    if (w > max_w) max_w = w;
    FS->entry_ptr[a + 1] = FS->entry_ptr[a] + nd * w;
  }
  DT_ALLOC(FS->urow, FS->entry_ptr[F->n_nodes] + 1, ctx, "AMG shared rows");
  DT_ALLOC(FS->u_pos, FS->entry_ptr[F->n_nodes] + 1, ctx, "AMG shared rows");
  DT_ALLOC(FS->q_upos, Q->row_ptr[F->n] + 1, ctx, "AMG shared rows");
  DT_ALLOC(ucols, max_w + 1, ctx, "AMG shared rows");
  DT_ALLOC(pos, C->n + 1, ctx, "AMG shared rows");
  for (int i = 0; i < C->n; i++) pos[i] = -1;
  DT_ALLOC(F->pt_pos, F->P_tent.row_ptr[F->n] + 1, ctx, "AMG prolongator map");
  pt_pos = F->pt_pos;
  for (int k = 0; k < F->P_tent.row_ptr[F->n]; k++) pt_pos[k] = -1;
  P->n_rows = F->n;
  P->n_cols = C->n;
  DT_ALLOC(P->row_ptr, F->n + 1, ctx, "AMG prolongator");
  for (int a = 0; a < F->n_nodes; a++) {
    int nd = F->node_ptr[a + 1] - F->node_ptr[a];
    int w = nd ? (FS->entry_ptr[a + 1] - FS->entry_ptr[a]) / nd : 0;
    for (int i = F->node_ptr[a]; i < F->node_ptr[a + 1]; i++)
      P->row_ptr[i + 1] = P->row_ptr[i] + (FS->shared[a] ? w : Q->row_ptr[i + 1] - Q->row_ptr[i]);
  }
  DT_ALLOC(P->col, P->row_ptr[F->n] + 1, ctx, "AMG prolongator");
  DT_ALLOC(P->val, P->row_ptr[F->n] + 1, ctx, "AMG prolongator");
  for (int a = 0; a < F->n_nodes; a++) {
    int w = 0;
    if (!FS->shared[a]) {
      for (int i = F->node_ptr[a]; i < F->node_ptr[a + 1]; i++) {
        memcpy(P->col + P->row_ptr[i], Q->col + Q->row_ptr[i],
               sizeof(int) * (size_t)(Q->row_ptr[i + 1] - Q->row_ptr[i]));
        for (int e = Q->row_ptr[i]; e < Q->row_ptr[i + 1]; e++) FS->q_upos[e] = -1;
      }
      continue;
    }
    w = union_dofs(h, l, s, u, noff, ghost, ng, a, ucols);
    for (int k = 0; k < w; k++) pos[ucols[k]] = k;
    for (int i = F->node_ptr[a], d = 0; i < F->node_ptr[a + 1]; i++, d++) {
      int e0 = FS->entry_ptr[a] + d * w;
      memcpy(P->col + P->row_ptr[i], ucols, sizeof(int) * (size_t)w);
      for (int k = 0; k < w; k++) FS->u_pos[e0 + k] = P->row_ptr[i] + k;
      for (int e = Q->row_ptr[i]; e < Q->row_ptr[i + 1]; e++) {
        DT_CHECK(pos[Q->col[e]] >= 0, ctx, DT_ERR_INTERNAL,
                 "AMG across the parts: a shared row's column is outside its row across the "
                 "parts (level %d, part %d, DOF %d)",
                 l, s, i);
        FS->q_upos[e] = e0 + pos[Q->col[e]];
      }
      for (int k = F->P_tent.row_ptr[i]; k < F->P_tent.row_ptr[i + 1]; k++) {
        DT_CHECK(pos[F->P_tent.col[k]] >= 0, ctx, DT_ERR_INTERNAL,
                 "AMG across the parts: P_tent's entry (%d, %d) is not in P's row (level %d, "
                 "part %d)",
                 i, F->P_tent.col[k], l, s);
        pt_pos[k] = P->row_ptr[i] + pos[F->P_tent.col[k]];
      }
    }
    for (int k = 0; k < w; k++) pos[ucols[k]] = -1;
  }
  DT_TRY(dt_amg_csr_copy_groups(P, &F->A, ctx));
  for (int i = 0; i < F->n; i++) /* interior rows (ascending columns): P_tent's places */
    for (int k = F->P_tent.row_ptr[i]; k < F->P_tent.row_ptr[i + 1]; k++)
      if (pt_pos[k] < 0) {
        int lo = P->row_ptr[i], hi = P->row_ptr[i + 1] - 1;
        while (lo < hi) {
          int mid = (lo + hi) / 2;
          if (P->col[mid] < F->P_tent.col[k])
            lo = mid + 1;
          else
            hi = mid;
        }
        DT_CHECK(lo <= hi && P->col[lo] == F->P_tent.col[k], ctx, DT_ERR_INTERNAL,
                 "AMG across the parts: P_tent's entry (%d, %d) is not in P's pattern", i,
                 F->P_tent.col[k]);
        pt_pos[k] = lo;
      }
  DT_TRY(dt_amg_transpose(P, &F->R, &F->r_perm, ctx));
  DT_TRY(dt_amg_csr_group(&F->R, C->node_ptr, C->n_nodes, ctx));
  DT_TRY(dt_amg_spgemm_symbolic(&F->A, P, &F->AP, ctx));
  DT_TRY(dt_amg_spgemm_symbolic(&F->R, &F->AP, &C->A, ctx));
  DT_TRY(dt_amg_mirror(&C->A, &F->ac_mirror, ctx));
  DT_TRY(expand_lists(&FS->Xn, FS->entry_ptr, &FS->Xe, ctx));
  DT_TRY(side_vectors(CS, ctx));
cleanup:
  dt_free(ucols);
  dt_free(pos);
  return rc;
}

/* Level l + 1 from level l; *made = 0 (and nothing kept) when the whole level does not shrink. */
static dt_status coarsen(dt_amg_parts *h, int l, int *made, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int np = h->nparts, total = 0, noff[DT_AMG_PARTS_MAX + 1], doff[DT_AMG_PARTS_MAX + 1];
  int *ghost[DT_AMG_PARTS_MAX] = {0}, ng[DT_AMG_PARTS_MAX] = {0};
  amgp_level *F = &h->lev[l], *C = &h->lev[l + 1];
  fine_map m = {0};
  shared_rows u = {0};
  dt_part_local X[DT_AMG_PARTS_MAX];
  *made = 0;
  for (int s = 0; s < np; s++) {
    DT_TRY(aggregate_side(h, l, &F->side[s], &C->side[s], ctx));
    total += C->side[s].n_owned;
  }
  if (total == 0 || total >= F->n_global) goto cleanup;
  noff[0] = doff[0] = 0;
  for (int s = 0; s < np; s++)
    noff[s + 1] = noff[s] + C->side[s].n_owned_nodes, doff[s + 1] = doff[s] + C->side[s].n_owned;
  DT_TRY(map_fine(h, l, &m, ctx));
  DT_TRY(shared_unions(h, l, &m, noff, &u, ctx));
  for (int s = 0; s < np; s++)
    DT_TRY(coarse_ghosts(h, l, s, &m, noff, doff, &u, &ghost[s], &ng[s], ctx));
  for (int s = 0; s < np; s++) DT_TRY(full_tentative(h, l, s, &m, noff, ghost[s], ng[s], ctx));
  DT_TRY(coarse_lists(h, l, ghost, ng, noff, ctx));
  for (int s = 0; s < np; s++) DT_TRY(side_patterns(h, l, s, &u, noff, ghost[s], ng[s], ctx));
  for (int s = 0; s < np; s++) X[s] = F->side[s].Xe;
  DT_TRY(dt_halo_host_create(X, np, 1, &F->halo_e, ctx));
  C->n_global = doff[np];
  C->n_global_nodes = noff[np];
  for (int s = 0; s < np; s++) X[s] = C->side[s].X;
  DT_TRY(dt_halo_host_create(X, np, 1, &C->halo, ctx));
  *made = 1;
cleanup:
  dt_free(m.owner);
  dt_free(m.local);
  shared_rows_free(&u);
  for (int s = 0; s < np; s++) dt_free(ghost[s]);
  if (!*made) {
    for (int s = 0; s < np; s++) side_transfer_free(&F->side[s]);
    dt_halo_host_destroy(&F->halo_e);
    level_free(h, l + 1);
  }
  return rc;
}

/* Every part's summed point diagonal and its inverse; DT_ERR_NOT_CONVERGED at a non-positive
 * entry. */
static dt_status diagonal(dt_amg_parts *h, int l, int find_positions, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *diag[DT_AMG_PARTS_MAX];
  for (int s = 0; s < h->nparts; s++) {
    amgp_side *S = &h->lev[l].side[s];
    const dt_amg_csr *A = &S->lev.A;
    for (int i = 0; i < S->lev.n; i++) {
      if (find_positions) {
        S->lev.diag_pos[i] = -1;
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1] && S->lev.diag_pos[i] < 0; k++)
          if (A->col[k] == i) S->lev.diag_pos[i] = k;
      }
      S->diag[i] = S->lev.diag_pos[i] >= 0 ? A->val[S->lev.diag_pos[i]] : 0.0;
    }
    diag[s] = S->diag;
  }
  DT_TRY(dt_amgp_sum(h, l, diag, ctx));
  for (int s = 0; s < h->nparts; s++) {
    amgp_side *S = &h->lev[l].side[s];
    for (int i = 0; i < S->lev.n; i++) {
      DT_CHECK(S->diag[i] > 0.0, ctx, DT_ERR_NOT_CONVERGED,
               "AMG: the matrix has a non-positive diagonal entry (level %d, part %d, DOF %d of "
               "%d)",
               l, s, i, S->lev.n);
      S->lev.dinv[i] = 1.0 / S->diag[i];
    }
  }
cleanup:
  return rc;
}

/* l1-Jacobi's inverse diagonal: the summed absolute row sums. */
static dt_status l1_diagonal(dt_amg_parts *h, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *sum[DT_AMG_PARTS_MAX];
  for (int s = 0; s < h->nparts; s++) {
    amgp_side *S = &h->lev[l].side[s];
    const dt_amg_csr *A = &S->lev.A;
    for (int i = 0; i < S->lev.n; i++) {
      double a = 0.0;
      for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) a += fabs(A->val[k]);
      S->diag[i] = a;
    }
    sum[s] = S->diag;
  }
  DT_TRY(dt_amgp_sum(h, l, sum, ctx));
  for (int s = 0; s < h->nparts; s++) {
    amgp_side *S = &h->lev[l].side[s];
    for (int i = 0; i < S->lev.n; i++) S->lev.dinv[i] = 1.0 / S->diag[i];
  }
cleanup:
  return rc;
}

/* Every part's P, R, A P and A_c values: P = P_tent - omega D^-1 (A P_tent), where a shared
 * node's row of A P_tent is the sum of the parts' rows of K_s P_tent (an exchange over the
 * shared rows' entries) and an interior node's is its part's own. */
static dt_status transfer_values(dt_amg_parts *h, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amgp_level *FL = &h->lev[l];
  double *urow[DT_AMG_PARTS_MAX], omega = FL->omega;
  dt_part_local X[DT_AMG_PARTS_MAX];
  for (int s = 0; s < h->nparts; s++) {
    amgp_side *FS = &FL->side[s];
    const dt_amg_csr *Q = &FS->KPt;
    DT_TRY(dt_amg_spgemm_numeric(&FS->lev.A, &FS->lev.P_tent, &FS->KPt, ctx));
    memset(FS->urow, 0, sizeof(double) * (size_t)FS->entry_ptr[FS->lev.n_nodes]);
    for (int e = 0; e < Q->row_ptr[Q->n_rows]; e++)
      if (FS->q_upos[e] >= 0) FS->urow[FS->q_upos[e]] = Q->val[e];
    urow[s] = FS->urow;
    X[s] = FS->Xe;
  }
  if (h->nparts > 1)
    DT_TRY(
        dt_halo_exchange(X, h->nparts, urow, 1, DT_HALO_SUM, dt_halo_host_ops(), FL->halo_e, ctx));
  for (int s = 0; s < h->nparts; s++) {
    amgp_side *FS = &FL->side[s];
    dt_amg_level *F = &FS->lev, *C = &h->lev[l + 1].side[s].lev;
    const dt_amg_csr *Q = &FS->KPt, *Pt = &F->P_tent;
    dt_amg_csr *P = &F->P;
    for (int a = 0; a < F->n_nodes; a++) {
      int nd = F->node_ptr[a + 1] - F->node_ptr[a];
      int w = nd ? (FS->entry_ptr[a + 1] - FS->entry_ptr[a]) / nd : 0;
      for (int i = F->node_ptr[a], d = 0; i < F->node_ptr[a + 1]; i++, d++) {
        double sc = -omega * F->dinv[i];
        if (FS->shared[a])
          for (int k = 0; k < w; k++) {
            int e = FS->entry_ptr[a] + d * w + k;
            P->val[FS->u_pos[e]] = sc * FS->urow[e];
          }
        else
          for (int t = 0; t < Q->row_ptr[i + 1] - Q->row_ptr[i]; t++)
            P->val[P->row_ptr[i] + t] = sc * Q->val[Q->row_ptr[i] + t];
        for (int k = Pt->row_ptr[i]; k < Pt->row_ptr[i + 1]; k++)
          P->val[F->pt_pos[k]] += Pt->val[k];
      }
    }
    DT_TRY(dt_amg_coarse_values(F, C, ctx));
  }
cleanup:
  return rc;
}

/* Level l's values are set: its diagonal, lambda_max, the transfer and A_{l+1} (when transfer),
 * the smoother. */
static dt_status level_values(dt_amg_parts *h, int l, int first, int transfer, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amgp_level *L = &h->lev[l];
  DT_TRY(diagonal(h, l, first, ctx));
  DT_TRY(dt_amgp_lambda_max(h, l, &L->lambda_max, ctx));
  DT_CHECK(L->lambda_max > 0.0, ctx, DT_ERR_NOT_CONVERGED,
           "AMG: lambda_max(D^-1 A) = %g on level %d", L->lambda_max, l);
  L->omega = 4.0 / (3.0 * L->lambda_max);
  if (transfer && l + 1 < h->n_levels) DT_TRY(transfer_values(h, l, ctx));
  if (h->opt.smoother == DT_AMG_L1_JACOBI) DT_TRY(l1_diagonal(h, l, ctx));
cleanup:
  return rc;
}

/* The largest coarsest level factored densely (a 20000^2 factor is 3.2 GB). */
#define DT_AMG_PARTS_MAX_COARSEST 20000

/* The whole coarsest matrix's pattern: the union of the parts' patterns, row by row (rows: the
 * parts' local rows of each whole row), and every part entry's position in it (h->cpos). */
static dt_status coarsest_pattern(dt_amg_parts *h, dt_amg_csr *A, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const amgp_level *L = &h->lev[h->n_levels - 1];
  int n = L->n_global, *rptr = NULL, *rows = NULL, *mark = NULL, *fill = NULL;
  long nnz = 0;
  DT_ALLOC(rptr, n + 1, ctx, "AMG coarsest pattern");
  DT_ALLOC(fill, n, ctx, "AMG coarsest pattern");
  DT_ALLOC(mark, n, ctx, "AMG coarsest pattern");
  for (int s = 0; s < h->nparts; s++)
    for (int i = 0; i < L->side[s].lev.n; i++) rptr[L->side[s].gdof[i] + 1]++;
  for (int g = 0; g < n; g++) rptr[g + 1] += rptr[g];
  DT_ALLOC(rows, rptr[n], ctx, "AMG coarsest pattern");
  for (int s = 0; s < h->nparts; s++) /* (part, local row) packed as local row * nparts + s */
    for (int i = 0; i < L->side[s].lev.n; i++) {
      int g = L->side[s].gdof[i];
      rows[rptr[g] + fill[g]++] = i * h->nparts + s;
    }
  for (int pass = 0; pass < 2; pass++) { /* 0: count each row's columns; 1: fill and place */
    for (int g = 0; g < n; g++) mark[g] = -1;
    nnz = 0;
    for (int g = 0; g < n; g++) {
      long start = nnz;
      if (pass) A->row_ptr[g] = (int)nnz;
      for (int q = rptr[g]; q < rptr[g + 1]; q++) {
        int s = rows[q] % h->nparts, i = rows[q] / h->nparts;
        const amgp_side *S = &L->side[s];
        for (int k = S->lev.A.row_ptr[i]; k < S->lev.A.row_ptr[i + 1]; k++) {
          int c = S->gdof[S->lev.A.col[k]];
          if (mark[c] < start) { /* first entry of column c in row g */
            mark[c] = (int)nnz;
            if (pass) A->col[nnz] = c;
            nnz++;
          }
          if (pass) h->cpos[s][k] = mark[c];
        }
      }
    }
    if (pass) break; /* nnz <= n^2 fits an int: n <= DT_AMG_PARTS_MAX_COARSEST */
    DT_ALLOC(A->row_ptr, n + 1, ctx, "AMG coarsest level");
    DT_ALLOC(A->col, nnz, ctx, "AMG coarsest level");
    DT_ALLOC(A->val, nnz, ctx, "AMG coarsest level");
    for (int s = 0; s < h->nparts; s++)
      DT_ALLOC(h->cpos[s], L->side[s].lev.A.row_ptr[L->side[s].lev.n], ctx, "AMG coarsest level");
  }
  A->row_ptr[n] = (int)nnz;
cleanup:
  dt_free(rptr);
  dt_free(rows);
  dt_free(mark);
  dt_free(fill);
  return rc;
}

/* The coarsest level gathered: the parts' matrices summed into the whole one (the union of
 * their patterns, made once), factored densely as a one-level hierarchy. */
static dt_status gather_coarsest(dt_amg_parts *h, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const amgp_level *L = &h->lev[h->n_levels - 1];
  int n = L->n_global;
  dt_amg_csr *A;
  DT_CHECK(n <= DT_AMG_PARTS_MAX_COARSEST, ctx, DT_ERR_UNSUPPORTED,
           "AMG across the parts: the coarsest level kept %d DOFs (at most %d are solved densely); "
           "the parts' aggregation stalled",
           n, DT_AMG_PARTS_MAX_COARSEST);
  if (!h->coarse) {
    DT_ALLOC(h->coarse, 1, ctx, "AMG coarsest level");
    h->coarse->n_levels = 1;
    h->coarse->lev[0].n = n;
    A = &h->coarse->lev[0].A;
    A->n_rows = A->n_cols = n;
    DT_TRY(coarsest_pattern(h, A, ctx));
    DT_ALLOC(h->cb, n, ctx, "AMG coarsest vectors");
    DT_ALLOC(h->cx, n, ctx, "AMG coarsest vectors");
  }
  A = &h->coarse->lev[0].A;
  memset(A->val, 0, sizeof(double) * (size_t)A->row_ptr[n]);
  for (int s = 0; s < h->nparts; s++) {
    const dt_amg_csr *K = &L->side[s].lev.A;
    for (int k = 0; k < K->row_ptr[K->n_rows]; k++) A->val[h->cpos[s][k]] += K->val[k];
  }
  DT_TRY(dt_amg_coarse_factor(h->coarse, NULL, ctx));
cleanup:
  return rc;
}

dt_status dt_amg_parts_create(int nparts, int dpn, const dt_amg_part_input *in,
                              const dt_amg_options *opt, dt_amg_parts **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg_parts *h = NULL;
  double t0 = now();
  int max_levels = opt->max_levels < DT_AMG_MAX_LEVELS ? opt->max_levels : DT_AMG_MAX_LEVELS;
  int max_n = 0;
  dt_part_local X[DT_AMG_PARTS_MAX];
  DT_CHECK(dpn == 2 || dpn == 3, ctx, DT_ERR_INPUT, "AMG needs 2 or 3 DOFs per node, not %d", dpn);
  DT_CHECK(nparts >= 1 && nparts <= DT_AMG_PARTS_MAX, ctx, DT_ERR_INPUT,
           "AMG across parts takes 1 to %d parts, not %d", DT_AMG_PARTS_MAX, nparts);
  DT_ALLOC(h, 1, ctx, "AMG hierarchy");
  h->opt = *opt;
  h->nparts = nparts;
  h->dpn = dpn;
  h->n_modes = dpn == 3 ? 6 : 3;
  for (int s = 0; s < nparts; s++) {
    amgp_side *S = &h->lev[0].side[s];
    DT_TRY(fine_side(h, &in[s], S, ctx));
    h->lev[0].n_global_nodes += S->n_owned_nodes;
    h->lev[0].n_global += S->n_owned;
    if (S->lev.n > max_n) max_n = S->lev.n;
    DT_ALLOC(h->con[s], S->lev.n, ctx, "AMG constrained DOFs");
    for (int i = 0; i < S->lev.n; i++) h->con[s][i] = in[s].con[i] != 0.0;
    X[s] = S->X;
  }
  DT_ALLOC(h->chunks, max_n / DT_AMG_CHUNK + 1, ctx, "AMG partial sums");
  DT_TRY(dt_halo_host_create(X, nparts, 1, &h->lev[0].halo, ctx));
  for (int l = 0;; l++) {
    int made = 0;
    h->n_levels = l + 1;
    if (h->lev[l].n_global <= opt->max_coarse || l + 1 >= max_levels) break;
    DT_TRY(coarsen(h, l, &made, ctx));
    if (!made) break;
    h->n_levels = l + 2;
    DT_TRY(level_values(h, l, 1, 1, ctx));
  }
  DT_TRY(gather_coarsest(h, ctx));
  h->seconds_build = now() - t0;
  *out = h;
  h = NULL;
cleanup:
  dt_amg_parts_destroy(&h);
  return rc;
}

dt_status dt_amg_parts_refresh(dt_amg_parts *h, double *const *val, int fine_only, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double t0 = now();
  for (int s = 0; s < h->nparts; s++) h->lev[0].side[s].lev.A.val = val[s];
  if (fine_only && h->n_levels > 1) {
    DT_TRY(level_values(h, 0, 0, 0, ctx));
    h->fine_refreshes++;
  } else {
    for (int l = 0; l + 1 < h->n_levels; l++) DT_TRY(level_values(h, l, 0, 1, ctx));
    DT_TRY(gather_coarsest(h, ctx));
    h->refreshes++;
  }
  h->seconds_refresh = now() - t0;
cleanup:
  return rc;
}

int dt_amg_parts_constraints_changed(const dt_amg_parts *h, const double *const *con) {
  for (int s = 0; s < h->nparts; s++)
    for (int i = 0; i < h->lev[0].side[s].lev.n; i++)
      if ((con[s][i] != 0.0) != h->con[s][i]) return 1;
  return 0;
}

void dt_amg_parts_stats(const dt_amg_parts *h, int *levels, double *build_s, double *refresh_s) {
  if (levels) *levels = h->n_levels;
  if (build_s) *build_s = h->seconds_build;
  if (refresh_s) *refresh_s = h->seconds_refresh;
}

void dt_amg_parts_view(const dt_amg_parts *h, FILE *f) {
  fprintf(f,
          "amg across %d parts: %d levels, coarsest %d DOFs gathered and solved densely; setup "
          "%.3f s, last refresh %.3f s (%d refreshes, %d of level 0 only)\n",
          h->nparts, h->n_levels, h->lev[h->n_levels - 1].n_global, h->seconds_build,
          h->seconds_refresh, h->refreshes, h->fine_refreshes);
  for (int l = 0; l < h->n_levels; l++) {
    const amgp_level *L = &h->lev[l];
    long nnz = 0;
    int ghosts = 0;
    for (int s = 0; s < h->nparts; s++) {
      nnz += L->side[s].lev.A.row_ptr[L->side[s].lev.n];
      ghosts += L->side[s].lev.n - L->side[s].n_owned;
    }
    fprintf(f, "  level %d: %d DOFs on %d nodes, %ld nonzeros in the parts, %d ghost DOFs", l,
            L->n_global, L->n_global_nodes, nnz, ghosts);
    if (l + 1 < h->n_levels)
      fprintf(f, ", lambda_max(D^-1 A) %.3f\n", L->lambda_max);
    else
      fprintf(f, ", dense Cholesky\n");
  }
}
