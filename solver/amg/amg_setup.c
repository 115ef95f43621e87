/* Building and refreshing the AMG hierarchy (amg.h).
 *
 * Build, level by level until a level has at most max_coarse DOFs: the point diagonal and
 * lambda_max(D^-1 A); strong couplings, aggregates, P_tent and the coarse nodes and B; the
 * patterns of P = (I - omega D^-1 A) P_tent (that of A P_tent), R = P^T, A P and A_c = R (A P);
 * then their values. Refresh runs only the value steps, level by level, with the patterns,
 * aggregates and P_tent of the build. The coarsest level is factored densely either way. */
#include <string.h>
#include <time.h>

#include "amg_internal.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Measured on C3D10 plates with a hole of 54k-189k DOFs (one core, CPU time of a refresh plus
 * a solve to 1e-8): theta 0.04-0.08 within 10% of each other (0.12 doubles the setup, 0.2 makes
 * the coarse levels dense); Chebyshev of degree 1, 2 or 3 within 15% (degree 2: 30-40% fewer
 * iterations than 1 for twice the smoothing; on the plastic 25k plate all three within 12% of
 * CPU time); l1-Jacobi 40-60% slower; Chebyshev on the nodal blocks' inverses instead of the
 * point diagonal 2-7% fewer iterations, not worth its setup; a coarsest level of 300 DOFs 25%
 * slower, 2000 no faster than 1000.
 * The Chebyshev interval [lambda_max / 20, lambda_max] rather than / 10, measured on the real
 * suite's seven parts with the GPU V-cycle (small 50k, medium 400k, large 2.1-2.4M DOFs): the
 * same time a V-cycle, median PCG iterations a solve equal or fewer on the large parts (plate
 * 56 -> 48, lug 44 -> 43, footing 59 -> 55) and their growth from the small size smaller
 * (lug 1.52x -> 1.43x); / 40 no better, degree 3 10% slower on the medium parts. */
void dt_amg_options_default(dt_amg_options *o) {
  o->theta = 0.06;
  o->smoother = DT_AMG_CHEBYSHEV;
  o->degree = 2;
  o->eig_ratio = 20.0;
  o->max_coarse = 1000;
  o->max_levels = 10;
  o->lanczos_steps = 12;
}

void dt_amg_transfer_free(dt_amg_level *L) {
  dt_free(L->agg);
  L->agg = NULL;
  dt_amg_csr_free(&L->P_tent);
  dt_amg_csr_free(&L->P);
  dt_amg_csr_free(&L->R);
  dt_amg_csr_free(&L->AP);
  dt_free(L->pt_pos);
  dt_free(L->r_perm);
  dt_free(L->ac_mirror);
  L->pt_pos = L->r_perm = L->ac_mirror = NULL;
}

void dt_amg_level_free(dt_amg_level *L) {
  dt_amg_transfer_free(L);
  dt_free(L->node_ptr);
  dt_amg_csr_free(&L->A);
  dt_free(L->B);
  dt_free(L->diag_pos);
  dt_free(L->dinv);
  dt_free(L->b);
  dt_free(L->x);
  dt_free(L->r);
  dt_free(L->d);
  dt_free(L->t);
  memset(L, 0, sizeof *L);
}

void dt_amg_destroy(dt_amg **hp) {
  dt_amg *h = hp ? *hp : NULL;
  if (!h) return;
  for (int l = 0; l < DT_AMG_MAX_LEVELS; l++) dt_amg_level_free(&h->lev[l]);
  dt_free(h->coarse_L);
  dt_free(h->coarse_ref);
  dt_free(h->con);
  dt_free(h->chunks);
  dt_free(h);
  *hp = NULL;
}

static dt_status level_vectors(dt_amg_level *L, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_ALLOC(L->b, L->n, ctx, "AMG vectors");
  DT_ALLOC(L->x, L->n, ctx, "AMG vectors");
  DT_ALLOC(L->r, L->n, ctx, "AMG vectors");
  DT_ALLOC(L->d, L->n, ctx, "AMG vectors");
  DT_ALLOC(L->t, L->n, ctx, "AMG vectors");
cleanup:
  return rc;
}

/* Level 0: the caller's matrix, its nodes and the rigid-body modes. */
static dt_status fine_level(dt_amg *h, const dt_amg_input *in, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg_level *L = &h->lev[0];
  L->n = in->n_nodes * in->dpn;
  L->n_nodes = in->n_nodes;
  L->A = (dt_amg_csr){L->n, L->n, in->row_ptr, in->col, in->val, 0, NULL, 1};
  DT_ALLOC(L->node_ptr, in->n_nodes + 1, ctx, "AMG nodes");
  for (int a = 0; a <= in->n_nodes; a++) L->node_ptr[a] = a * in->dpn;
  DT_TRY(dt_amg_csr_group(&L->A, L->node_ptr, L->n_nodes, ctx));
  DT_ALLOC(L->B, (size_t)L->n * h->n_modes, ctx, "AMG near-null space");
  dt_amg_rigid_modes(in->n_nodes, in->dpn, in->x, in->con, L->B);
  DT_ALLOC(h->con, L->n, ctx, "AMG constrained DOFs");
  for (int i = 0; i < L->n; i++) h->con[i] = in->con[i] != 0.0;
  h->n_chunks = L->n / DT_AMG_CHUNK + 1;
  DT_ALLOC(h->chunks, h->n_chunks, ctx, "AMG partial sums");
cleanup:
  return rc;
}

/* pt_pos: where each entry of P_tent sits in P (whose rows hold P_tent's pattern). */
static dt_status tentative_positions(dt_amg_level *F, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_amg_csr *Pt = &F->P_tent, *P = &F->P;
  DT_ALLOC(F->pt_pos, Pt->row_ptr[Pt->n_rows], ctx, "AMG prolongator map");
  for (int i = 0; i < Pt->n_rows; i++)
    for (int k = Pt->row_ptr[i]; k < Pt->row_ptr[i + 1]; k++) {
      int lo = P->row_ptr[i], hi = P->row_ptr[i + 1] - 1;
      while (lo < hi) { /* columns ascending */
        int mid = (lo + hi) / 2;
        if (P->col[mid] < Pt->col[k])
          lo = mid + 1;
        else
          hi = mid;
      }
      DT_CHECK(lo <= hi && P->col[lo] == Pt->col[k], ctx, DT_ERR_INTERNAL,
               "AMG: P_tent's entry (%d, %d) is not in P's pattern", i, Pt->col[k]);
      F->pt_pos[k] = lo;
    }
cleanup:
  return rc;
}

/* Aggregates, P_tent and the coarse nodes of level l + 1, and the patterns of P, R, A P and
 * A_c; *made = 0 (and nothing kept) when the level does not coarsen. */
static dt_status coarsen(dt_amg *h, int l, int *made, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg_level *F = &h->lev[l], *C = &h->lev[l + 1];
  dt_amg_graph S = {0};
  int n_agg = 0;
  *made = 0;
  DT_ALLOC(F->agg, F->n_nodes, ctx, "AMG aggregates");
  F->theta = h->opt.theta;
  for (int k = 0;; k++, F->theta *= 0.5) {
    DT_TRY(dt_amg_strength(F, F->theta, &S, ctx));
    DT_TRY(dt_amg_aggregate(&S, F->agg, &n_agg, ctx));
    if (!dt_amg_coarsen_again(l, F->n_nodes, n_agg, k)) break;
    dt_amg_graph_free(&S);
  }
  if (n_agg == 0) goto cleanup;
  DT_TRY(dt_amg_tentative(F, h->n_modes, n_agg, C, ctx));
  if (C->n == 0 || C->n >= F->n) goto cleanup; /* nothing to coarsen */
  DT_TRY(dt_amg_spgemm_symbolic(&F->A, &F->P_tent, &F->P, ctx));
  DT_TRY(tentative_positions(F, ctx));
  DT_TRY(dt_amg_transpose(&F->P, &F->R, &F->r_perm, ctx));
  DT_TRY(dt_amg_csr_group(&F->R, C->node_ptr, C->n_nodes, ctx));
  DT_TRY(dt_amg_spgemm_symbolic(&F->A, &F->P, &F->AP, ctx));
  DT_TRY(dt_amg_spgemm_symbolic(&F->R, &F->AP, &C->A, ctx));
  DT_TRY(dt_amg_mirror(&C->A, &F->ac_mirror, ctx));
  *made = 1;
cleanup:
  dt_amg_graph_free(&S);
  if (!*made) { /* keep level l as the coarsest */
    dt_amg_transfer_free(F);
    dt_amg_level_free(C);
  }
  return rc;
}

/* Values of P, R, A P and A_{l+1} from A_l's (D^-1: the point diagonal's inverse):
 *   P = P_tent - omega D^-1 (A P_tent), omega = 4 / (3 lambda_max) */
static dt_status transfer_values(dt_amg *h, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg_level *F = &h->lev[l], *C = &h->lev[l + 1];
  dt_amg_csr *P = &F->P;
  const dt_amg_csr *Pt = &F->P_tent;
  F->omega = 4.0 / (3.0 * F->lambda_max);
  DT_TRY(dt_amg_spgemm_numeric(&F->A, Pt, P, ctx));
#pragma omp parallel for schedule(static) if (DT_AMG_OMP_ROWS(P))
  for (int i = 0; i < F->n; i++) {
    double s = -F->omega * F->dinv[i];
    for (int k = P->row_ptr[i]; k < P->row_ptr[i + 1]; k++) P->val[k] *= s;
    for (int k = Pt->row_ptr[i]; k < Pt->row_ptr[i + 1]; k++) P->val[F->pt_pos[k]] += Pt->val[k];
  }
  DT_TRY(dt_amg_coarse_values(F, C, ctx));
cleanup:
  return rc;
}

dt_status dt_amg_coarse_values(dt_amg_level *F, dt_amg_level *C, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg_transpose_values(&F->P, F->r_perm, &F->R);
  DT_TRY(dt_amg_spgemm_numeric(&F->A, &F->P, &F->AP, ctx));
  DT_TRY(dt_amg_galerkin_numeric(&F->R, &F->AP, &C->A, F->ac_mirror, ctx));
cleanup:
  return rc;
}

/* A_l's values are set: its diagonal, lambda_max, the transfer and A_{l+1} (when transfer),
 * the smoother. */
static dt_status level_values(dt_amg *h, int l, int first, int transfer, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg_level *F = &h->lev[l];
  double t0 = now(), t1;
  DT_TRY(dt_amg_diagonal(F, first, ctx));
  F->lambda_max = dt_amg_lambda_max(F, h->opt.lanczos_steps, h->chunks);
  DT_CHECK(F->lambda_max > 0.0, ctx, DT_ERR_NOT_CONVERGED,
           "AMG: lambda_max(D^-1 A) = %g on level %d", F->lambda_max, l);
  t1 = now();
  if (transfer && l + 1 < h->n_levels) DT_TRY(transfer_values(h, l, ctx));
  h->seconds_products += now() - t1;
  dt_amg_smoother_setup(F, &h->opt);
  h->seconds_smoothers += t1 - t0;
cleanup:
  return rc;
}

/* The coarsest level's dense factor, timed. */
static dt_status factor(dt_amg *h, dt_ctx *ctx) {
  double t0 = now();
  dt_status rc = dt_amg_coarse_factor(h, NULL, ctx);
  h->seconds_factor = now() - t0;
  return rc;
}

dt_status dt_amg_create(const dt_amg_input *in, const dt_amg_options *opt, dt_amg **out,
                        dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg *h = NULL;
  double t0 = now(), t1;
  int max_levels = opt->max_levels < DT_AMG_MAX_LEVELS ? opt->max_levels : DT_AMG_MAX_LEVELS;
  DT_CHECK(in->dpn == 2 || in->dpn == 3, ctx, DT_ERR_INPUT,
           "AMG needs 2 or 3 DOFs per node, not %d", in->dpn);
  DT_ALLOC(h, 1, ctx, "AMG hierarchy");
  h->opt = *opt;
  h->dpn = h->dim = in->dpn;
  h->n_modes = in->dpn == 3 ? 6 : 3;
  DT_TRY(fine_level(h, in, ctx));
  for (int l = 0;; l++) {
    int made = 0;
    h->n_levels = l + 1;
    DT_TRY(level_vectors(&h->lev[l], ctx));
    if (h->lev[l].n <= opt->max_coarse || l + 1 >= max_levels) break;
    t1 = now();
    DT_TRY(coarsen(h, l, &made, ctx));
    h->seconds_structure += now() - t1;
    if (!made) break;
    h->n_levels = l + 2;
    DT_TRY(
        level_values(h, l, 1, 1, ctx)); /* A_{l+1}'s values: the next level's strength needs them */
  }
  DT_TRY(factor(h, ctx));
  h->builds = 1;
  h->seconds_build = now() - t0;
  *out = h;
  h = NULL;
cleanup:
  dt_amg_destroy(&h);
  return rc;
}

dt_status dt_amg_refresh(dt_amg *h, double *val, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double t0 = now();
  h->seconds_structure = h->seconds_smoothers = h->seconds_products = 0.0;
  h->lev[0].A.val = val;
  for (int l = 0; l + 1 < h->n_levels; l++) DT_TRY(level_values(h, l, 0, 1, ctx));
  DT_TRY(factor(h, ctx));
  h->refreshes++;
  h->seconds_refresh = now() - t0;
cleanup:
  return rc;
}

dt_status dt_amg_refresh_fine(dt_amg *h, double *val, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double t0 = now();
  if (h->n_levels < 2) return dt_amg_refresh(h, val, ctx); /* level 0 is the coarsest */
  h->seconds_structure = h->seconds_smoothers = h->seconds_products = h->seconds_factor = 0.0;
  h->lev[0].A.val = val;
  DT_TRY(level_values(h, 0, 0, 0, ctx));
  h->fine_refreshes++;
  h->seconds_refresh = now() - t0;
cleanup:
  return rc;
}

int dt_amg_constraints_changed(const dt_amg *h, const double *con) {
  for (int i = 0; i < h->lev[0].n; i++)
    if ((con[i] != 0.0) != h->con[i]) return 1;
  return 0;
}

/* Bytes of one CSR matrix's arrays (its groups aside). */
static double csr_bytes(const dt_amg_csr *A) {
  return A->row_ptr ? (A->n_rows + 1.0) * sizeof(int) +
                          A->row_ptr[A->n_rows] * (sizeof(int) + sizeof(double))
                    : 0.0;
}

double dt_amg_bytes(const dt_amg *h) {
  double b = 0.0;
  int nc = h->lev[h->n_levels - 1].n;
  for (int l = 0; l < h->n_levels; l++) {
    const dt_amg_level *L = &h->lev[l];
    b += (l > 0 ? csr_bytes(&L->A) : 0.0) + csr_bytes(&L->P_tent) + csr_bytes(&L->P) +
         csr_bytes(&L->R) + csr_bytes(&L->AP);
    b += L->n * (7.0 + h->n_modes) * sizeof(double); /* dinv, 5 cycle vectors, B */
  }
  return b + (double)nc * nc * sizeof(double);
}

void dt_amg_view(const dt_amg *h, FILE *f) {
  double nnz0 = h->lev[0].A.row_ptr[h->lev[0].n], nnz = 0.0, rows = 0.0;
  static const char *smoothers[] = {"Chebyshev", "l1-Jacobi"};
  for (int l = 0; l < h->n_levels; l++)
    nnz += h->lev[l].A.row_ptr[h->lev[l].n], rows += h->lev[l].n;
  fprintf(f,
          "amg: %d levels, operator complexity %.2f, grid complexity %.2f, %.0f MB; %s smoother of "
          "degree %d, "
          "strength theta %.3g, coarsest solved densely; setup %.3f s, last refresh %.3f s (%d "
          "refreshes, %d of level 0 only)\n",
          h->n_levels, nnz / nnz0, rows / h->lev[0].n, dt_amg_bytes(h) / 1e6,
          smoothers[h->opt.smoother], h->opt.degree, h->opt.theta, h->seconds_build,
          h->seconds_refresh, h->refreshes, h->fine_refreshes);
  fprintf(
      f,
      "  last setup: structure %.3f s, smoothers %.3f s, products %.3f s, coarse factor %.3f s\n",
      h->seconds_structure, h->seconds_smoothers, h->seconds_products, h->seconds_factor);
  for (int l = 0; l < h->n_levels; l++) {
    const dt_amg_level *L = &h->lev[l];
    fprintf(f, "  level %d: %d DOFs on %d nodes, %d nonzeros (%.1f per row)", l, L->n, L->n_nodes,
            L->A.row_ptr[L->n], (double)L->A.row_ptr[L->n] / (L->n ? L->n : 1));
    if (l + 1 < h->n_levels)
      fprintf(f, ", lambda_max(D^-1 A) %.3f, omega %.3f, aggregated at theta %.3g\n", L->lambda_max,
              L->omega, L->theta);
    else
      fprintf(f, ", dense Cholesky\n");
  }
}
