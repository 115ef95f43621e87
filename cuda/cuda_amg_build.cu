/* Building the AMG hierarchy on the device (the steps of amg_setup.c's dt_amg_create, the
 * same hierarchy to the bit: the CPU backend's and the device's agree level by level).
 *
 * Level 0 is the backend's blocked tangent: its scalar CSR copy (pattern and values) is made on
 * the device. Then, level by level until a level has at most max_coarse DOFs:
 *   strength  on the device, one thread per node: |A_ab|_F summed in the host's order (rows of
 *             a, then columns of b, each product and sum rounded separately), so the graph of
 *             strong couplings is the host's to the bit;
 *   aggregates and P_tent on the host (amg_aggregate.c, amg_tentative.c): the graph comes down
 *             (edges of the nodes, not of the DOFs), the aggregation pass is sequential by
 *             design (its aggregates depend on the graph alone) and the aggregates' thin QR
 *             touches only the near-null space; P_tent goes up;
 *   patterns  on the device, on the graph of the nodes: every product's pattern is a union of
 *             whole nodal blocks (a row group shares its columns: amg_spgemm.c), so
 *               P = A P_tent  is  G T,   A P  is  G (G T),   R = P^T,   A_c  is  (G T)^T G (G T)
 *             with G the level's node graph and T each node's aggregate; each product gathers
 *             its candidate columns, sorts them per row (CUB's segmented sort) and keeps each
 *             once, then every node row expands into its DOF rows;
 *   maps      P_tent's places in P, R's places of P's entries, the coarse matrix's mirror and
 *             diagonal, by binary search in the sorted rows;
 *   values    the refresh's level step (cuda_amg_refresh.cu), which the next level's strength
 *             needs.
 * The coarsest level's factor is the refresh's too. Each array is one device allocation
 * (dt_cuda_amg's pieces), freed when the hierarchy is built again.
 * Why: the host build downloaded the tangent, built every product on 16 cores and uploaded
 * the levels: 19.8 s of the 22.9 s of Kiran's C5 cube with AMG (docs/benchmarks.md). */
#include <limits.h>
#include <string.h>
#include <time.h>

#include <cub/cub.cuh>

#include "cuda_amg_internal.h"

extern "C" {
#include "../solver/amg/amg_internal.h"
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A sparse pattern of nodes (no values) on the device: row a's columns ascending. */
typedef struct npat {
  int n_rows, n_cols, nnz;
  int *ptr, *col;
} npat;

/* The build's scratch: device arrays freed when the build ends. */
typedef struct scratch {
  void *p[64];
  int n;
} scratch;

static dt_status tmp_alloc(dt_cuda *c, scratch *s, void **p, size_t bytes, const char *what,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(s->n < (int)(sizeof s->p / sizeof s->p[0]), ctx, DT_ERR_INTERNAL,
           "AMG build: too many scratch arrays");
  DT_TRY(dt_cuda_alloc(c, p, bytes, what, ctx));
  s->p[s->n++] = *p;
cleanup:
  return rc;
}

static void tmp_free(dt_cuda *c, scratch *s, void *p) {
  for (int i = 0; i < s->n; i++)
    if (s->p[i] == p) {
      dt_cuda_free(c, p);
      s->p[i] = s->p[--s->n];
      return;
    }
}

static void tmp_free_all(dt_cuda *c, scratch *s) {
  while (s->n > 0) dt_cuda_free(c, s->p[--s->n]);
}

dt_status dt_cuda_amg_piece(dt_cuda *c, dt_cuda_amg *a, void **p, size_t bytes, const char *what,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (a->n_pieces == a->cap_pieces) {
    int cap = a->cap_pieces ? 2 * a->cap_pieces : 64;
    void **grown = (void **)dt_realloc(a->pieces, sizeof(void *) * (size_t)cap);
    DT_CHECK(grown != NULL, ctx, DT_ERR_NOMEM, "out of memory for the AMG hierarchy's list");
    a->pieces = grown;
    a->cap_pieces = cap;
  }
  DT_TRY(dt_cuda_alloc(c, p, bytes, what, ctx));
  a->pieces[a->n_pieces++] = *p;
  a->piece_bytes += bytes;
cleanup:
  return rc;
}

void dt_cuda_amg_free_pieces(dt_cuda *c, dt_cuda_amg *a) {
  while (a->n_pieces > 0) dt_cuda_free(c, a->pieces[--a->n_pieces]);
  a->piece_bytes = 0;
}

#define PIECE(ptr, count, what)                                                                    \
  DT_TRY(dt_cuda_amg_piece(c, a, (void **)&(ptr), sizeof(*(ptr)) * (size_t)(count), what, ctx))
#define TMP(ptr, count, what)                                                                      \
  DT_TRY(tmp_alloc(c, s, (void **)&(ptr), sizeof(*(ptr)) * (size_t)(count), what, ctx))

/* ---- kernels ---------------------------------------------------------------------------- */

/* Level 0's scalar CSR pattern from the block pattern: row (a, i) holds dpn columns per
 * neighbour block, in block order (cuda_amg.cu's top). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_level0(int n_nodes, int dpn, const int *__restrict__ brow_ptr, const int *__restrict__ bcol,
               int *__restrict__ ptr, int *__restrict__ col) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n_nodes * dpn) return;
  int a = t / dpn, i = t % dpn, b0 = brow_ptr[a], deg = brow_ptr[a + 1] - b0;
  int start = dpn * dpn * b0 + i * dpn * deg;
  ptr[t] = start;
  if (t == n_nodes * dpn - 1) ptr[t + 1] = dpn * dpn * brow_ptr[n_nodes];
  for (int r = 0; r < deg; r++)
    for (int j = 0; j < dpn; j++) col[start + r * dpn + j] = dpn * bcol[b0 + r] + j;
}

/* |A_ab|_F^2 of node a's r-th neighbour b, whose columns start at offset off of a's rows: the
 * host's order (amg_strength.c): rows of a, then b's columns. */
__device__ __forceinline__ double block_norm2(const int *__restrict__ np,
                                              const int *__restrict__ aptr,
                                              const double *__restrict__ aval, int a, int off,
                                              int nb) {
  double acc = 0.0;
  for (int i = np[a]; i < np[a + 1]; i++)
    for (int j = 0; j < nb; j++) {
      double v = aval[aptr[i] + off + j];
      acc = __dadd_rn(acc, __dmul_rn(v, v));
    }
  return acc;
}

/* dn[a] = |A_aa|_F. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_diag_norm(int n_nodes, const int *__restrict__ np, const int *__restrict__ gptr,
                  const int *__restrict__ gcol, const int *__restrict__ aptr,
                  const double *__restrict__ aval, double *__restrict__ dn) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n_nodes) return;
  int off = 0;
  double s = 0.0;
  for (int r = gptr[a]; r < gptr[a + 1]; r++) {
    int b = gcol[r], nb = np[b + 1] - np[b];
    if (b == a) s = block_norm2(np, aptr, aval, a, off, nb);
    off += nb;
  }
  dn[a] = sqrt(s);
}

/* Node a's strong neighbours (fill: into adj/w from sptr[a]; else their count into cnt[a]) and
 * its most strongly coupled other node (best[a], first on ties, -1 for none). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_strength(int n_nodes, int fill, double theta, const int *__restrict__ np,
                 const int *__restrict__ gptr, const int *__restrict__ gcol,
                 const int *__restrict__ aptr, const double *__restrict__ aval,
                 const double *__restrict__ dn, int *__restrict__ cnt, const int *__restrict__ sptr,
                 int *__restrict__ adj, double *__restrict__ w, int *__restrict__ best) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n_nodes) return;
  int off = 0, k = 0, top_b = -1;
  double top = 0.0;
  for (int r = gptr[a]; r < gptr[a + 1]; r++) {
    int b = gcol[r], nb = np[b + 1] - np[b];
    double acc = block_norm2(np, aptr, aval, a, off, nb);
    double scale = sqrt(__dmul_rn(dn[a], dn[b])), sab = scale > 0.0 ? sqrt(acc) / scale : 0.0;
    off += nb;
    if (b != a && sab > top) top = sab, top_b = b;
    if (b == a || !(sab > theta)) continue;
    if (fill) adj[sptr[a] + k] = b, w[sptr[a] + k] = sab;
    k++;
  }
  if (!fill) cnt[a] = k, best[a] = top_b;
}

/* Candidates of C = A B (node patterns): row i's count, or (off given) the columns themselves. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_cand(int n, const int *__restrict__ aptr, const int *__restrict__ acol,
             const int *__restrict__ bptr, const int *__restrict__ bcol,
             long long *__restrict__ cnt, const long long *__restrict__ off,
             int *__restrict__ cand) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long k = off ? off[i] : 0;
  for (int m = aptr[i]; m < aptr[i + 1]; m++) {
    int r = acol[m];
    if (!off) {
      k += bptr[r + 1] - bptr[r];
      continue;
    }
    for (int q = bptr[r]; q < bptr[r + 1]; q++) cand[k++] = bcol[q];
  }
  if (!off) cnt[i] = k;
}

/* Distinct columns of each sorted candidate row: their count, or (ptr given) the columns. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_unique(int n, const long long *__restrict__ off, const int *__restrict__ sorted,
               int *__restrict__ cnt, const int *__restrict__ ptr, int *__restrict__ col) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = ptr ? ptr[i] : 0, c = 0;
  for (long long m = off[i]; m < off[i + 1]; m++) {
    if (m > off[i] && sorted[m] == sorted[m - 1]) continue;
    if (ptr) col[k + c] = sorted[m];
    c++;
  }
  if (!ptr) cnt[i] = c;
}

/* The transpose's column counts. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_tcount(int nnz, const int *__restrict__ col, int *__restrict__ cnt) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) atomicAdd(&cnt[col[k]], 1);
}

/* The transpose's entries (unordered within a row: sorted afterwards). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_tfill(int n, const int *__restrict__ ptr, const int *__restrict__ col,
              int *__restrict__ next, int *__restrict__ tcol) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = ptr[i]; k < ptr[i + 1]; k++) tcol[atomicAdd(&next[col[k]], 1)] = i;
}

/* DOF rows of a node pattern X: each DOF row of row node a holds the DOFs of a's column nodes
 * (rnp, cnp: the row and column levels' node_ptr). Lengths into len (as long long, one per
 * DOF row), or (ptr given) the columns. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_expand(int n_rnodes, const int *__restrict__ rnp, const int *__restrict__ xptr,
               const int *__restrict__ xcol, const int *__restrict__ cnp,
               long long *__restrict__ len, const int *__restrict__ ptr, int *__restrict__ col) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n_rnodes) return;
  if (!ptr) {
    long long l = 0;
    for (int k = xptr[a]; k < xptr[a + 1]; k++) l += cnp[xcol[k] + 1] - cnp[xcol[k]];
    for (int i = rnp[a]; i < rnp[a + 1]; i++) len[i] = l;
    return;
  }
  for (int i = rnp[a]; i < rnp[a + 1]; i++) {
    int p = ptr[i];
    for (int k = xptr[a]; k < xptr[a + 1]; k++)
      for (int j = cnp[xcol[k]]; j < cnp[xcol[k] + 1]; j++) col[p++] = j;
  }
}

/* to[i] = from[i], narrowed (the caller checked the total). */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_narrow(int n, const long long *__restrict__ from, int *__restrict__ to) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) to[i] = (int)from[i];
}

/* The place of key in col[lo .. hi - 1] (ascending), or -1. */
__device__ __forceinline__ int find_col(const int *__restrict__ col, int lo, int hi, int key) {
  int p = amg_lower_bound(col, lo, hi, key);
  return p < hi && col[p] == key ? p : -1;
}

/* pos[k] = the place in C's row i of the column of B's entry k (B's rows i, C's pattern
 * containing B's); a missing one flags *bad. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_places(int n, const int *__restrict__ bptr, const int *__restrict__ bcol,
               const int *__restrict__ cptr, const int *__restrict__ ccol, int *__restrict__ pos,
               int *bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = bptr[i]; k < bptr[i + 1]; k++) {
    pos[k] = find_col(ccol, cptr[i], cptr[i + 1], bcol[k]);
    if (pos[k] < 0) atomicMin(bad, i);
  }
}

/* R's place of each of P's entries: entry (i, j) of P is entry (j, i) of R. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_rperm(int n, const int *__restrict__ pptr, const int *__restrict__ pcol,
              const int *__restrict__ rptr, const int *__restrict__ rcol, int *__restrict__ perm,
              int *bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = pptr[i]; k < pptr[i + 1]; k++) {
    int j = pcol[k];
    perm[k] = find_col(rcol, rptr[j], rptr[j + 1], i);
    if (perm[k] < 0) atomicMin(bad, i);
  }
}

/* The coarse matrix's mirror (amg_spgemm.c, dt_amg_mirror): per entry left of its row group's
 * first column, its transpose's place, else -1; a missing transpose flags *bad. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_mirror(int n_nodes, const int *__restrict__ np, const int *__restrict__ ptr,
               const int *__restrict__ col, int *__restrict__ mirror, int *bad) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n_nodes) return;
  int first = np[g];
  for (int i = np[g]; i < np[g + 1]; i++)
    for (int k = ptr[i]; k < ptr[i + 1]; k++) {
      int j = col[k];
      mirror[k] = j < first ? find_col(col, ptr[j], ptr[j + 1], i) : -1;
      if (j < first && mirror[k] < 0) atomicMin(bad, i);
    }
}

/* diag_pos[i] = the place of a_ii. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_b_diag(int n, const int *__restrict__ ptr, const int *__restrict__ col,
             int *__restrict__ diag_pos, int *bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  diag_pos[i] = find_col(col, ptr[i], ptr[i + 1], i);
  if (diag_pos[i] < 0) atomicMin(bad, i);
}

dt_status dt_cuda_amg_load_build_kernels(dt_ctx *ctx) {
  const void *k[] = {
      (const void *)k_b_level0, (const void *)k_b_diag_norm, (const void *)k_b_strength,
      (const void *)k_b_cand,   (const void *)k_b_unique,    (const void *)k_b_tcount,
      (const void *)k_b_tfill,  (const void *)k_b_expand,    (const void *)k_b_narrow,
      (const void *)k_b_places, (const void *)k_b_rperm,     (const void *)k_b_mirror,
      (const void *)k_b_diag};
  return dt_cuda_load_list(k, (int)(sizeof k / sizeof k[0]), NULL, ctx);
}

/* ---- steps ------------------------------------------------------------------------------ */

#define GRID(n) amg_blocks_of((long)(n)), DT_CUDA_BLOCK, 0, c->stream

/* out[0 .. n] = exclusive prefix sums of in[0 .. n - 1] (out[n]: the total); in and out may
 * not overlap. */
template <typename T>
static dt_status scan(dt_cuda *c, scratch *s, const T *in, T *out, int n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t bytes = 0;
  void *tmp = NULL;
  T zero = 0;
  DT_TRY(dt_cuda_h2d(c, out, &zero, sizeof zero, ctx));
  if (n == 0) goto cleanup;
  DT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(NULL, bytes, in, out + 1, n, c->stream), ctx);
  DT_TRY(tmp_alloc(c, s, &tmp, bytes, "AMG build scan", ctx));
  DT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(tmp, bytes, in, out + 1, n, c->stream), ctx);
cleanup:
  if (tmp) tmp_free(c, s, tmp);
  return rc;
}

/* The flag of the index checks: INT_MAX while nothing failed. */
static dt_status flag_reset(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  int v = INT_MAX;
  return dt_cuda_h2d(c, a->bad, &v, sizeof v, ctx);
}

static dt_status flag_check(dt_cuda *c, dt_cuda_amg *a, const char *what, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int v = 0;
  DT_TRY(dt_cuda_d2h(c, &v, a->bad, sizeof v, ctx));
  DT_CHECK(v == INT_MAX, ctx, DT_ERR_INTERNAL, "AMG build: %s (row %d)", what, v);
cleanup:
  return rc;
}

/* C = A B on node patterns (columns of B's column space), sorted, each column once. */
static dt_status node_product(dt_cuda *c, scratch *s, const npat *A, const npat *B, npat *C,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = A->n_rows, *cand = NULL, *sorted = NULL, *ucnt = NULL;
  long long *cnt = NULL, *off = NULL, total = 0;
  size_t bytes = 0;
  void *tmp = NULL;
  memset(C, 0, sizeof *C);
  C->n_rows = n;
  C->n_cols = B->n_cols;
  TMP(cnt, n + 1, "AMG build counts");
  TMP(off, n + 1, "AMG build offsets");
  TMP(ucnt, n + 1, "AMG build counts");
  TMP(C->ptr, n + 1, "AMG build pattern");
  if (n > 0) {
    k_b_cand<<<GRID(n)>>>(n, A->ptr, A->col, B->ptr, B->col, cnt, NULL, NULL);
    DT_CUDA_LAUNCH_CHECK("k_b_cand", c->stream, ctx);
  }
  DT_TRY(scan(c, s, cnt, off, n, ctx));
  DT_TRY(dt_cuda_d2h(c, &total, off + n, sizeof total, ctx));
  DT_CHECK(total < INT_MAX, ctx, DT_ERR_UNSUPPORTED,
           "an AMG product has more than 2^31 candidate entries (%lld)", total);
  TMP(cand, total + 1, "AMG build candidates");
  TMP(sorted, total + 1, "AMG build candidates");
  if (n > 0) {
    k_b_cand<<<GRID(n)>>>(n, A->ptr, A->col, B->ptr, B->col, NULL, off, cand);
    DT_CUDA_LAUNCH_CHECK("k_b_cand", c->stream, ctx);
  }
  if (total > 0) {
    DT_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(NULL, bytes, cand, sorted, (int)total, n, off,
                                                     off + 1, c->stream),
                  ctx);
    DT_TRY(tmp_alloc(c, s, &tmp, bytes, "AMG build sort", ctx));
    DT_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(tmp, bytes, cand, sorted, (int)total, n, off,
                                                     off + 1, c->stream),
                  ctx);
    tmp_free(c, s, tmp);
  }
  tmp_free(c, s, cand);
  if (n > 0) {
    k_b_unique<<<GRID(n)>>>(n, off, sorted, ucnt, NULL, NULL);
    DT_CUDA_LAUNCH_CHECK("k_b_unique", c->stream, ctx);
  }
  DT_TRY(scan(c, s, ucnt, C->ptr, n, ctx));
  DT_TRY(dt_cuda_d2h(c, &C->nnz, C->ptr + n, sizeof(int), ctx));
  TMP(C->col, C->nnz + 1, "AMG build pattern");
  if (n > 0) {
    k_b_unique<<<GRID(n)>>>(n, off, sorted, NULL, C->ptr, C->col);
    DT_CUDA_LAUNCH_CHECK("k_b_unique", c->stream, ctx);
  }
  tmp_free(c, s, sorted);
  tmp_free(c, s, cnt);
  tmp_free(c, s, off);
  tmp_free(c, s, ucnt);
cleanup:
  return rc;
}

/* T = X^T on node patterns, rows sorted. */
static dt_status node_transpose(dt_cuda *c, scratch *s, const npat *X, npat *T, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *cnt = NULL, *next = NULL, *tcol = NULL;
  size_t bytes = 0;
  void *tmp = NULL;
  memset(T, 0, sizeof *T);
  T->n_rows = X->n_cols;
  T->n_cols = X->n_rows;
  T->nnz = X->nnz;
  TMP(cnt, T->n_rows + 1, "AMG build counts");
  TMP(next, T->n_rows + 1, "AMG build offsets");
  TMP(T->ptr, T->n_rows + 1, "AMG build pattern");
  TMP(tcol, T->nnz + 1, "AMG build pattern");
  TMP(T->col, T->nnz + 1, "AMG build pattern");
  DT_CUDA_CHECK(cudaMemsetAsync(cnt, 0, sizeof(int) * (size_t)(T->n_rows + 1), c->stream), ctx);
  if (X->nnz > 0) {
    k_b_tcount<<<GRID(X->nnz)>>>(X->nnz, X->col, cnt);
    DT_CUDA_LAUNCH_CHECK("k_b_tcount", c->stream, ctx);
  }
  DT_TRY(scan(c, s, cnt, T->ptr, T->n_rows, ctx));
  DT_CUDA_CHECK(cudaMemcpyAsync(next, T->ptr, sizeof(int) * (size_t)T->n_rows,
                                cudaMemcpyDeviceToDevice, c->stream),
                ctx);
  if (X->n_rows > 0) {
    k_b_tfill<<<GRID(X->n_rows)>>>(X->n_rows, X->ptr, X->col, next, tcol);
    DT_CUDA_LAUNCH_CHECK("k_b_tfill", c->stream, ctx);
  }
  if (T->nnz > 0) { /* the atomics' order is arbitrary: sort each row */
    DT_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(NULL, bytes, tcol, T->col, T->nnz, T->n_rows,
                                                     T->ptr, T->ptr + 1, c->stream),
                  ctx);
    DT_TRY(tmp_alloc(c, s, &tmp, bytes, "AMG build sort", ctx));
    DT_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(tmp, bytes, tcol, T->col, T->nnz, T->n_rows,
                                                     T->ptr, T->ptr + 1, c->stream),
                  ctx);
    tmp_free(c, s, tmp);
  }
  tmp_free(c, s, cnt);
  tmp_free(c, s, next);
  tmp_free(c, s, tcol);
cleanup:
  return rc;
}

static int lanes_for(long nnz, int n_rows) {
  double mean = n_rows ? (double)nnz / n_rows : 0.0;
  return mean >= 64.0 ? 32 : mean >= 24.0 ? 16 : mean >= 8.0 ? 8 : 4;
}

/* D = the DOF-level CSR of node pattern X (rows: rnp's DOFs, columns: cnp's), a piece of the
 * hierarchy, values allocated. */
static dt_status expand(dt_cuda *c, dt_cuda_amg *a, scratch *s, const npat *X, const int *rnp,
                        int n_rows, const int *cnp, amg_csr_d *D, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  long long *len = NULL, *off = NULL, total = 0;
  memset(D, 0, sizeof *D);
  D->n_rows = n_rows;
  TMP(len, n_rows + 1, "AMG build lengths");
  TMP(off, n_rows + 1, "AMG build offsets");
  if (X->n_rows > 0) {
    k_b_expand<<<GRID(X->n_rows)>>>(X->n_rows, rnp, X->ptr, X->col, cnp, len, NULL, NULL);
    DT_CUDA_LAUNCH_CHECK("k_b_expand", c->stream, ctx);
  }
  DT_TRY(scan(c, s, len, off, n_rows, ctx));
  DT_TRY(dt_cuda_d2h(c, &total, off + n_rows, sizeof total, ctx));
  DT_CHECK(total < INT_MAX, ctx, DT_ERR_UNSUPPORTED,
           "an AMG product has more than 2^31 nonzeros (%lld)", total);
  D->nnz = (int)total;
  D->lanes = lanes_for(D->nnz, n_rows);
  PIECE(D->ptr, n_rows + 1, "the AMG hierarchy (row offsets)");
  PIECE(D->col, D->nnz + 1, "the AMG hierarchy (columns)");
  PIECE(D->val, D->nnz + 1, "the AMG hierarchy (values)");
  k_b_narrow<<<GRID(n_rows + 1)>>>(n_rows + 1, off, D->ptr); /* the total fits int32 */
  DT_CUDA_LAUNCH_CHECK("k_b_narrow", c->stream, ctx);
  if (X->n_rows > 0) {
    k_b_expand<<<GRID(X->n_rows)>>>(X->n_rows, rnp, X->ptr, X->col, cnp, NULL, D->ptr, D->col);
    DT_CUDA_LAUNCH_CHECK("k_b_expand", c->stream, ctx);
  }
  tmp_free(c, s, len);
  tmp_free(c, s, off);
cleanup:
  return rc;
}

/* The strength graph of level l (its A's values set) into S on the host. */
static dt_status strength(dt_cuda *c, dt_cuda_amg *a, scratch *s, int l, double theta,
                          const npat *G, dt_amg_graph *S, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  amg_level_d *L = &a->lev[l];
  int nn = G->n_rows, *cnt = NULL, *sptr = NULL, *adj = NULL, *best = NULL, total = 0;
  double *dn = NULL, *w = NULL;
  memset(S, 0, sizeof *S);
  TMP(dn, nn + 1, "AMG block norms");
  TMP(cnt, nn + 1, "AMG strength graph");
  TMP(sptr, nn + 1, "AMG strength graph");
  TMP(best, nn + 1, "AMG strength graph");
  if (nn > 0) {
    k_b_diag_norm<<<GRID(nn)>>>(nn, a->node_ptr_d[l], G->ptr, G->col, L->A.ptr, L->A.val, dn);
    DT_CUDA_LAUNCH_CHECK("k_b_diag_norm", c->stream, ctx);
    k_b_strength<<<GRID(nn)>>>(nn, 0, theta, a->node_ptr_d[l], G->ptr, G->col, L->A.ptr, L->A.val,
                               dn, cnt, NULL, NULL, NULL, best);
    DT_CUDA_LAUNCH_CHECK("k_b_strength", c->stream, ctx);
  }
  DT_TRY(scan(c, s, cnt, sptr, nn, ctx));
  DT_TRY(dt_cuda_d2h(c, &total, sptr + nn, sizeof total, ctx));
  TMP(adj, total + 1, "AMG strength graph");
  TMP(w, total + 1, "AMG strength graph");
  if (nn > 0) {
    k_b_strength<<<GRID(nn)>>>(nn, 1, theta, a->node_ptr_d[l], G->ptr, G->col, L->A.ptr, L->A.val,
                               dn, NULL, sptr, adj, w, NULL);
    DT_CUDA_LAUNCH_CHECK("k_b_strength", c->stream, ctx);
  }
  S->n = nn;
  S->ptr = (int *)dt_malloc(sizeof(int) * ((size_t)nn + 1));
  S->adj = (int *)dt_malloc(sizeof(int) * ((size_t)total + 1));
  S->w = (double *)dt_malloc(sizeof(double) * ((size_t)total + 1));
  S->best = (int *)dt_malloc(sizeof(int) * ((size_t)nn + 1));
  DT_CHECK(S->ptr && S->adj && S->w && S->best, ctx, DT_ERR_NOMEM,
           "out of memory for the AMG strength graph (%d edges)", total);
  DT_TRY(dt_cuda_d2h(c, S->ptr, sptr, sizeof(int) * ((size_t)nn + 1), ctx));
  DT_TRY(dt_cuda_d2h(c, S->adj, adj, sizeof(int) * (size_t)total, ctx));
  DT_TRY(dt_cuda_d2h(c, S->w, w, sizeof(double) * (size_t)total, ctx));
  DT_TRY(dt_cuda_d2h(c, S->best, best, sizeof(int) * (size_t)nn, ctx));
  tmp_free(c, s, dn);
  tmp_free(c, s, cnt);
  tmp_free(c, s, sptr);
  tmp_free(c, s, best);
  tmp_free(c, s, adj);
  tmp_free(c, s, w);
cleanup:
  return rc;
}

/* T (fine node -> its aggregate, where the node has a row of P_tent) as a node pattern. */
static dt_status aggregate_map(dt_cuda *c, scratch *s, const dt_amg_level *F, int n_coarse, npat *T,
                               dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nn = F->n_nodes, *ptr = NULL, *col = NULL, k = 0;
  const dt_amg_csr *Pt = &F->P_tent;
  memset(T, 0, sizeof *T);
  ptr = (int *)dt_malloc(sizeof(int) * ((size_t)nn + 1));
  col = (int *)dt_malloc(sizeof(int) * ((size_t)nn + 1));
  DT_CHECK(ptr && col, ctx, DT_ERR_NOMEM, "out of memory for the AMG aggregate map");
  ptr[0] = 0;
  for (int an = 0; an < nn; an++) {
    int has = 0;
    for (int i = F->node_ptr[an]; i < F->node_ptr[an + 1] && !has; i++)
      has = Pt->row_ptr[i + 1] > Pt->row_ptr[i];
    if (has) col[k++] = F->agg[an];
    ptr[an + 1] = k;
  }
  T->n_rows = nn;
  T->n_cols = n_coarse;
  T->nnz = k;
  TMP(T->ptr, nn + 1, "AMG aggregate map");
  TMP(T->col, k + 1, "AMG aggregate map");
  DT_TRY(dt_cuda_h2d(c, T->ptr, ptr, sizeof(int) * ((size_t)nn + 1), ctx));
  DT_TRY(dt_cuda_h2d(c, T->col, col, sizeof(int) * (size_t)k, ctx));
cleanup:
  dt_free(ptr);
  dt_free(col);
  return rc;
}

/* Host level l + 1 dropped (it did not coarsen): level l stays the coarsest. */
static void drop_coarse(dt_amg *h, int l) {
  dt_amg_level *F = &h->lev[l], *C = &h->lev[l + 1];
  dt_free(F->agg);
  F->agg = NULL;
  dt_free(F->P_tent.row_ptr);
  dt_free(F->P_tent.col);
  dt_free(F->P_tent.val);
  memset(&F->P_tent, 0, sizeof F->P_tent);
  dt_free(C->node_ptr);
  dt_free(C->B);
  memset(C, 0, sizeof *C);
}

/* Aggregates, P_tent, the patterns and maps of level l's transfer and of A_{l+1} (G: level l's
 * node graph; *Gc: level l + 1's). *made = 0 when the level does not coarsen. */
static dt_status coarsen(dt_cuda *c, dt_cuda_amg *a, scratch *s, int l, const npat *G, npat *Gc,
                         int *made, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg *h = a->h;
  dt_amg_level *F = &h->lev[l], *C = &h->lev[l + 1];
  amg_level_d *L = &a->lev[l], *Ld = &a->lev[l + 1];
  dt_amg_graph S = {0};
  npat T = {0}, Pn = {0}, APn = {0}, PnT = {0};
  int n_agg = 0;
  double t0 = now();
  *made = 0;
  AMG_HOST_ALLOC(F->agg, F->n_nodes, ctx, "AMG aggregates");
  F->theta = h->opt.theta;
  for (int k = 0;; k++, F->theta *= 0.5) { /* the host build's rule (amg_setup.c coarsen) */
    DT_TRY(strength(c, a, s, l, F->theta, G, &S, ctx));
    a->b_structure += now() - t0;
    t0 = now();
    DT_TRY(dt_amg_aggregate(&S, F->agg, &n_agg, ctx));
    dt_amg_graph_free(&S);
    a->b_host += now() - t0;
    t0 = now();
    if (!dt_amg_coarsen_again(l, F->n_nodes, n_agg, k)) break;
  }
  if (n_agg == 0) goto cleanup;
  DT_TRY(dt_amg_tentative(F, h->n_modes, n_agg, C, ctx));
  a->b_host += now() - t0;
  if (C->n == 0 || C->n >= F->n) goto cleanup;
  t0 = now();
  /* P_tent and the coarse nodes up */
  L->Pt.n_rows = F->n;
  L->Pt.nnz = F->P_tent.row_ptr[F->n];
  L->Pt.lanes = lanes_for(L->Pt.nnz, F->n);
  PIECE(L->Pt.ptr, F->n + 1, "the AMG hierarchy (P_tent)");
  PIECE(L->Pt.col, L->Pt.nnz + 1, "the AMG hierarchy (P_tent)");
  PIECE(L->Pt.val, L->Pt.nnz + 1, "the AMG hierarchy (P_tent)");
  DT_TRY(dt_cuda_h2d(c, L->Pt.ptr, F->P_tent.row_ptr, sizeof(int) * ((size_t)F->n + 1), ctx));
  DT_TRY(dt_cuda_h2d(c, L->Pt.col, F->P_tent.col, sizeof(int) * (size_t)L->Pt.nnz, ctx));
  DT_TRY(dt_cuda_h2d(c, L->Pt.val, F->P_tent.val, sizeof(double) * (size_t)L->Pt.nnz, ctx));
  PIECE(a->node_ptr_d[l + 1], C->n_nodes + 1, "the AMG hierarchy (nodes)");
  DT_TRY(dt_cuda_h2d(c, a->node_ptr_d[l + 1], C->node_ptr, sizeof(int) * ((size_t)C->n_nodes + 1),
                     ctx));
  DT_TRY(aggregate_map(c, s, F, C->n_nodes, &T, ctx));
  /* the products' node patterns */
  DT_TRY(node_product(c, s, G, &T, &Pn, ctx));
  DT_TRY(node_product(c, s, G, &Pn, &APn, ctx));
  DT_TRY(node_transpose(c, s, &Pn, &PnT, ctx));
  DT_TRY(node_product(c, s, &PnT, &APn, Gc, ctx));
  /* their DOF rows */
  DT_TRY(expand(c, a, s, &Pn, a->node_ptr_d[l], F->n, a->node_ptr_d[l + 1], &L->P, ctx));
  DT_TRY(expand(c, a, s, &APn, a->node_ptr_d[l], F->n, a->node_ptr_d[l + 1], &L->AP, ctx));
  DT_TRY(expand(c, a, s, &PnT, a->node_ptr_d[l + 1], C->n, a->node_ptr_d[l], &L->R, ctx));
  DT_TRY(expand(c, a, s, Gc, a->node_ptr_d[l + 1], C->n, a->node_ptr_d[l + 1], &Ld->A, ctx));
  Ld->n = C->n;
  /* the maps */
  PIECE(L->pt_pos, L->Pt.nnz + 1, "the AMG hierarchy (maps)");
  PIECE(L->r_perm, L->P.nnz + 1, "the AMG hierarchy (maps)");
  PIECE(L->ac_mirror, Ld->A.nnz + 1, "the AMG hierarchy (maps)");
  PIECE(Ld->diag_pos, C->n + 1, "the AMG hierarchy (maps)");
  DT_TRY(flag_reset(c, a, ctx));
  k_b_places<<<GRID(F->n)>>>(F->n, L->Pt.ptr, L->Pt.col, L->P.ptr, L->P.col, L->pt_pos, a->bad);
  DT_CUDA_LAUNCH_CHECK("k_b_places", c->stream, ctx);
  DT_TRY(flag_check(c, a, "an entry of P_tent is not in P's pattern", ctx));
  k_b_rperm<<<GRID(F->n)>>>(F->n, L->P.ptr, L->P.col, L->R.ptr, L->R.col, L->r_perm, a->bad);
  DT_CUDA_LAUNCH_CHECK("k_b_rperm", c->stream, ctx);
  DT_TRY(flag_check(c, a, "an entry of P is not in R's pattern", ctx));
  k_b_mirror<<<GRID(C->n_nodes)>>>(C->n_nodes, a->node_ptr_d[l + 1], Ld->A.ptr, Ld->A.col,
                                   L->ac_mirror, a->bad);
  DT_CUDA_LAUNCH_CHECK("k_b_mirror", c->stream, ctx);
  DT_TRY(flag_check(c, a, "the coarse matrix's pattern is not symmetric", ctx));
  k_b_diag<<<GRID(C->n)>>>(C->n, Ld->A.ptr, Ld->A.col, Ld->diag_pos, a->bad);
  DT_CUDA_LAUNCH_CHECK("k_b_diag", c->stream, ctx);
  DT_TRY(flag_check(c, a, "the coarse matrix has no diagonal entry", ctx));
  /* the refresh's groups and the level's vectors */
  L->n_a_groups = F->n_nodes;
  L->a_groups = a->node_ptr_d[l];
  L->n_r_groups = C->n_nodes;
  L->r_groups = a->node_ptr_d[l + 1];
  PIECE(L->dinv, F->n + 1, "the AMG hierarchy (vectors)");
  PIECE(L->r, F->n + 1, "the AMG hierarchy (vectors)");
  PIECE(L->d, F->n + 1, "the AMG hierarchy (vectors)");
  PIECE(Ld->b, C->n + 1, "the AMG hierarchy (vectors)");
  PIECE(Ld->x, C->n + 1, "the AMG hierarchy (vectors)");
  /* the host keeps the nodes; its near-null space and P_tent served their purpose */
  dt_free(F->B);
  dt_free(F->P_tent.row_ptr);
  dt_free(F->P_tent.col);
  dt_free(F->P_tent.val);
  F->B = NULL;
  memset(&F->P_tent, 0, sizeof F->P_tent);
  *made = 1;
  a->b_structure += now() - t0;
cleanup:
  dt_amg_graph_free(&S);
  tmp_free(c, s, T.ptr);
  tmp_free(c, s, T.col);
  tmp_free(c, s, Pn.ptr);
  tmp_free(c, s, Pn.col);
  tmp_free(c, s, APn.ptr);
  tmp_free(c, s, APn.col);
  tmp_free(c, s, PnT.ptr);
  tmp_free(c, s, PnT.col);
  if (!*made && rc == DT_OK) drop_coarse(h, l);
  return rc;
}

/* Level 0: the host shell's nodes and near-null space, the device's scalar CSR copy of the
 * tangent (pattern and values), its diagonal, the Lanczos vectors. */
static dt_status fine_level(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg *h = a->h;
  dt_amg_level *H = &h->lev[0];
  amg_level_d *L = &a->lev[0];
  double *start = NULL;
  int nn = a->n_nodes, n = a->n;
  H->n = n;
  H->n_nodes = nn;
  AMG_HOST_ALLOC(H->node_ptr, nn + 1, ctx, "AMG nodes");
  for (int an = 0; an <= nn; an++) H->node_ptr[an] = an * a->dpn;
  AMG_HOST_ALLOC(H->B, (size_t)n * h->n_modes, ctx, "AMG near-null space");
  dt_amg_rigid_modes(nn, a->dpn, a->xyz, a->con, H->B);
  AMG_HOST_ALLOC(h->con, n, ctx, "AMG constrained DOFs");
  for (int i = 0; i < n; i++) h->con[i] = a->con[i] != 0.0;
  L->n = n;
  L->A.n_rows = n;
  L->A.nnz = (int)a->nnz;
  L->A.lanes = lanes_for(a->nnz, n);
  PIECE(L->A.ptr, n + 1, "the AMG hierarchy (level 0)");
  PIECE(L->A.col, a->nnz + 1, "the AMG hierarchy (level 0)");
  PIECE(L->A.val, a->nnz + 1, "the AMG hierarchy (level 0)");
  PIECE(L->diag_pos, n + 1, "the AMG hierarchy (maps)");
  PIECE(a->node_ptr_d[0], nn + 1, "the AMG hierarchy (nodes)");
  DT_TRY(dt_cuda_h2d(c, a->node_ptr_d[0], H->node_ptr, sizeof(int) * ((size_t)nn + 1), ctx));
  k_b_level0<<<GRID((long)nn * a->dpn)>>>(nn, a->dpn, c->problem.brow_ptr, c->problem.bcol,
                                          L->A.ptr, L->A.col);
  DT_CUDA_LAUNCH_CHECK("k_b_level0", c->stream, ctx);
  DT_TRY(dt_cuda_amg_unblock(c, a, ctx));
  DT_TRY(flag_reset(c, a, ctx));
  k_b_diag<<<GRID(n)>>>(n, L->A.ptr, L->A.col, L->diag_pos, a->bad);
  DT_CUDA_LAUNCH_CHECK("k_b_diag", c->stream, ctx);
  DT_TRY(flag_check(c, a, "the tangent has no diagonal entry", ctx));
  PIECE(a->lz, 4 * (size_t)n + 1, "the AMG hierarchy (Lanczos)");
  PIECE(a->lz_start, n + 1, "the AMG hierarchy (Lanczos)");
  start = (double *)dt_malloc(sizeof(double) * ((size_t)n + 1));
  DT_CHECK(start != NULL, ctx, DT_ERR_NOMEM, "out of memory for the AMG Lanczos start");
  for (int i = 0; i < n; i++) start[i] = dt_amg_lanczos_start(i);
  DT_TRY(dt_cuda_h2d(c, a->lz_start, start, sizeof(double) * (size_t)n, ctx));
cleanup:
  dt_free(start);
  return rc;
}

/* The coarsest level: its solve's vector and factor arrays, its pattern on the host (the host
 * factors it), the factor itself. */
static dt_status coarsest(dt_cuda *c, dt_cuda_amg *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg *h = a->h;
  int nl = h->n_levels;
  amg_level_d *L = &a->lev[nl - 1];
  dt_amg_csr *A = &h->lev[nl - 1].A;
  a->nc = L->n;
  PIECE(L->t, a->nc + 1, "the AMG hierarchy (vectors)");
  PIECE(a->coarse_F, (size_t)a->nc * a->nc + 1, "the AMG coarsest factor");
  PIECE(a->coarse_X, (size_t)a->nc * a->nc + 1, "the AMG coarsest factor");
  PIECE(a->ref, a->nc + 1, "the AMG coarsest factor");
  A->n_rows = A->n_cols = L->n;
  AMG_HOST_ALLOC(A->row_ptr, L->n + 1, ctx, "the AMG coarse matrix");
  AMG_HOST_ALLOC(A->col, L->A.nnz + 1, ctx, "the AMG coarse matrix");
  AMG_HOST_ALLOC(A->val, L->A.nnz + 1, ctx, "the AMG coarse matrix");
  DT_TRY(dt_cuda_d2h(c, A->row_ptr, L->A.ptr, sizeof(int) * ((size_t)L->n + 1), ctx));
  DT_TRY(dt_cuda_d2h(c, A->col, L->A.col, sizeof(int) * (size_t)L->A.nnz, ctx));
  dt_free(a->ref_host);
  a->ref_host = (double *)dt_calloc((size_t)a->nc + 1, sizeof(double));
  DT_CHECK(a->ref_host != NULL, ctx, DT_ERR_NOMEM, "out of memory for the AMG pivot scales");
  DT_TRY(dt_cuda_amg_coarse(c, a, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_amg_build(dt_cuda *c, dt_cuda_amg *a, int *coarsened, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  scratch sc = {{0}, 0}, *s = &sc;
  npat G = {0}, Gc = {0};
  dt_amg *h = NULL;
  double t0 = now(), t1;
  *coarsened = 0;
  dt_amg_destroy(&a->h);
  dt_cuda_amg_free_pieces(c, a);
  memset(a->lev, 0, sizeof a->lev);
  memset(a->node_ptr_d, 0, sizeof a->node_ptr_d);
  a->n_levels = 0;
  a->b_structure = a->b_host = a->b_values = a->b_coarse = 0.0;
  AMG_HOST_ALLOC(h, 1, ctx, "AMG hierarchy");
  a->h = h;
  dt_amg_options_default(&h->opt);
  h->dpn = h->dim = a->dpn;
  h->n_modes = a->dpn == 3 ? 6 : 3;
  h->n_levels = 1;
  PIECE(a->bad, 1, "the AMG hierarchy (flags)");
  DT_TRY(fine_level(c, a, ctx));
  /* level 0's node graph: the block pattern (borrowed) */
  G.n_rows = G.n_cols = a->n_nodes;
  G.ptr = c->problem.brow_ptr;
  G.col = c->problem.bcol;
  G.nnz = (int)c->problem.n_blocks;
  for (int l = 0;; l++) {
    int made = 0;
    if (h->lev[l].n <= h->opt.max_coarse || l + 1 >= h->opt.max_levels ||
        l + 1 >= DT_AMG_MAX_LEVELS)
      break;
    DT_TRY(coarsen(c, a, s, l, &G, &Gc, &made, ctx));
    if (!made) break;
    h->n_levels = l + 2;
    t1 = now();
    DT_TRY(dt_cuda_amg_level_values(c, a, l, ctx));
    DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
    a->b_values += now() - t1;
    if (l > 0) { /* level l's node graph is scratch; level 0's the backend's */
      tmp_free(c, s, G.ptr);
      tmp_free(c, s, G.col);
    }
    G = Gc;
    memset(&Gc, 0, sizeof Gc);
  }
  if (h->n_levels == 1) goto cleanup; /* the caller factors level 0 on the host */
  t1 = now();
  DT_TRY(coarsest(c, a, ctx));
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  a->b_coarse = now() - t1;
  *coarsened = 1;
  h->builds = 1;
  h->seconds_build = now() - t0;
cleanup:
  tmp_free_all(c, s);
  if (rc != DT_OK || !*coarsened) { /* nothing half-built stays */
    dt_cuda_amg_free_pieces(c, a);
    memset(a->lev, 0, sizeof a->lev);
    memset(a->node_ptr_d, 0, sizeof a->node_ptr_d);
    a->lz = a->lz_start = a->ref = a->coarse_F = a->coarse_X = NULL;
    a->bad = NULL;
    dt_amg_destroy(&a->h);
  }
  return rc;
}
