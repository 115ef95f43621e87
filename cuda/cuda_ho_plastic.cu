/* J2 plasticity at the Gauss points of order-P hexahedra on the GPU: the device mirror of
 * solver/highorder/ho_plastic.h over the geometry of a dt_cuda_ho (cuda_highorder.cu).
 *
 * State: the host's arrays in the host's layout (component k of point q of element e at
 * (e ncomp + k) nq^3 + q, contiguous in q so a block's threads read and write coalesced):
 * committed and trial history (13), stress (6) and strain (6), the tangent's upper triangle
 * (21) and the update's result (1 byte); the material table and one index per element.
 * Operators, each one launch per colour in a fixed order, no atomics, so repeated products give
 * the same bits:
 *   residual  the elastic sweep (cuda_ho_sumfact.cuh) with a point stage that runs
 *             dt_material_update (solver/material/update.h, the host's code) from the committed
 *             state, stores the trial state and tangent and returns the stress; then the
 *             plastic and failed points counted on a fixed grid, the first failed one the
 *             lowest element then point (a minimum, so the order of the sums cannot matter);
 *   tangent   the same sweep with sigma = D eps(w), D the stored triangle;
 *   diagonal  ho_plastic_diag.c's weights M^c_ik per point into shared memory, then per
 *             component six transposed sum factorisations of the squared tables (k_hp_diag).
 * Global traffic per Gauss point: the residual reads qdata (80 bytes) and the committed
 * history (104) and writes the trial history, stress, strain (200), the tangent (168) and the
 * result (1): 553 bytes; the tangent product and the diagonal read qdata and the tangent: 248
 * bytes (the elastic product: 80). Per element besides: node ids, u gathered, v read and
 * written, the material index. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "../solver/material/update.h" /* host and device code: C and C++ alike */
#include "cuda_ho_plastic_internal.h"
#include "cuda_ho_sumfact.cuh"
extern "C" {
#include "../solver/highorder/ho_plastic.h"
}

#define HP_RED_BLOCKS 128 /* fixed grid of the point counts */
#define HP_RED_THREADS 256

struct dt_cuda_ho_plastic {
  dt_cuda_ho *h; /* geometry, borrowed */
  int nq3;
  size_t n_points, n; /* points; DOFs (3 n_nodes) */
  dt_material_params *mats;
  int *elem_mat;
  double *hist_c, *hist_t, *stress_c, *stress_t, *strain_c, *strain_t, *tangent;
  unsigned char *result;
  long long *count_partial, *counts; /* HP_RED_BLOCKS x 3; plastic, failed, first failed */
  double *x, *y;                     /* the host-vector entry points' copies */
  double *b, *c, *diag;              /* a Newton correction's right side, solution, diagonal */
  unsigned char *fixed;
  int diag_ne;
  size_t diag_shared, bytes;
  cudaStream_t pc_stream; /* the correction's preconditioner's stream, while it runs */
  cudaEvent_t joined[2];
  hp_pcg pcg;
};

/* The residual's point stage: the material update at point q of element e from the committed
 * state, as ho_plastic.c's residual_qfunc (same strain, same call, same stores). */
struct hp_residual_point {
  const dt_material_params *mats;
  const int *elem_mat;
  const double *hist_c;
  double *hist_t, *stress_t, *strain_t, *tangent;
  unsigned char *result;
  __device__ void operator()(int e, int q, int nq3, const double *H, double *S) const {
    double eps[6], sig[6], D[36];
    dt_mat_state old_s, new_s;
    eps[0] = H[0], eps[1] = H[4], eps[2] = H[8]; /* Voigt, engineering shears */
    eps[3] = H[1] + H[3], eps[4] = H[2] + H[6], eps[5] = H[5] + H[7];
    const double *h = hist_c + (size_t)e * DT_MAT_STATE_DOUBLES * nq3 + q;
    for (int k = 0; k < 6; k++) {
      old_s.eps_p[k] = h[(DT_HIST_EPS_P + k) * nq3];
      old_s.beta[k] = h[(DT_HIST_BETA + k) * nq3];
    }
    old_s.p = h[DT_HIST_PEEQ * nq3];
    int r = dt_material_update(mats + elem_mat[e], DT_STATE_3D, eps, &old_s, &new_s, sig, D);
    double *ht = hist_t + (size_t)e * DT_MAT_STATE_DOUBLES * nq3 + q;
    for (int k = 0; k < 6; k++) {
      ht[(DT_HIST_EPS_P + k) * nq3] = new_s.eps_p[k];
      ht[(DT_HIST_BETA + k) * nq3] = new_s.beta[k];
      stress_t[((size_t)e * DT_HO_VOIGT + k) * nq3 + q] = sig[k];
      strain_t[((size_t)e * DT_HO_VOIGT + k) * nq3 + q] = eps[k];
    }
    ht[DT_HIST_PEEQ * nq3] = new_s.p;
    double *T = tangent + (size_t)e * DT_HO_TANGENT_SIZE * nq3 + q;
    for (int i = 0, k = 0; i < 6; i++)
      for (int j = i; j < 6; j++, k++) T[k * nq3] = D[6 * i + j];
    result[(size_t)e * nq3 + q] = (unsigned char)r;
    S[0] = sig[0], S[4] = sig[1], S[8] = sig[2];
    S[1] = S[3] = sig[3], S[2] = S[6] = sig[4], S[5] = S[7] = sig[5];
  }
};

/* The tangent's point stage: sigma = D eps(w), summed as ho_plastic.c's tangent_qfunc. */
struct hp_tangent_point {
  const double *tangent;
  __device__ void operator()(int e, int q, int nq3, const double *H, double *S) const {
    double eps[6], sig[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    eps[0] = H[0], eps[1] = H[4], eps[2] = H[8];
    eps[3] = H[1] + H[3], eps[4] = H[2] + H[6], eps[5] = H[5] + H[7];
    const double *T = tangent + (size_t)e * DT_HO_TANGENT_SIZE * nq3 + q;
    for (int i = 0, k = 0; i < 6; i++)
      for (int j = i; j < 6; j++, k++) {
        double d = T[k * nq3];
        sig[i] += d * eps[j];
        if (j != i) sig[j] += d * eps[i];
      }
    S[0] = sig[0], S[4] = sig[1], S[8] = sig[2];
    S[1] = S[3] = sig[3], S[2] = S[6] = sig[4], S[5] = S[7] = sig[5];
  }
};

/* Per block: plastic and failed points and the first failed index, then thread 0 of one block
 * adds the blocks in order (integers: any order gives the same counts). */
__global__ void __launch_bounds__(HP_RED_THREADS)
    k_hp_count(size_t n, const unsigned char *__restrict__ result,
               long long *__restrict__ partial) {
  __shared__ long long s[3][HP_RED_THREADS];
  long long plastic = 0, failed = 0, first = LLONG_MAX;
  for (size_t i = blockIdx.x * (size_t)HP_RED_THREADS + threadIdx.x; i < n;
       i += (size_t)HP_RED_BLOCKS * HP_RED_THREADS) {
    unsigned char r = result[i];
    plastic += r == DT_MAT_PLASTIC;
    if (r == DT_MAT_NO_CONVERGENCE) failed++, first = min(first, (long long)i);
  }
  s[0][threadIdx.x] = plastic, s[1][threadIdx.x] = failed, s[2][threadIdx.x] = first;
  __syncthreads();
  for (int w = HP_RED_THREADS / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      s[0][threadIdx.x] += s[0][threadIdx.x + w];
      s[1][threadIdx.x] += s[1][threadIdx.x + w];
      s[2][threadIdx.x] = min(s[2][threadIdx.x], s[2][threadIdx.x + w]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int k = 0; k < 3; k++) partial[3 * blockIdx.x + k] = s[k][0];
}

__global__ void k_hp_count_final(const long long *partial, long long *out) {
  if (threadIdx.x != 0) return;
  long long plastic = 0, failed = 0, first = LLONG_MAX;
  for (int b = 0; b < HP_RED_BLOCKS; b++) {
    plastic += partial[3 * b], failed += partial[3 * b + 1];
    first = min(first, partial[3 * b + 2]);
  }
  out[0] = plastic, out[1] = failed, out[2] = first;
}

typedef struct hp_diag_args {
  int P1, Q, ne, n_el;
  const int *elems, *elem_nodes;
  const double *qdata, *tables, *tangent;
  double *diag;
} hp_diag_args;

/* Doubles of shared memory one element of the diagonal needs: the weights M[18][nq3], per
 * component the buffers of the z and y passes (6 pairs each) and the nodal diagonal [3][n3]. */
__host__ __device__ static inline int hp_diag_doubles(int P1, int Q) {
  return 18 * Q * Q * Q + 6 * P1 * Q * Q + 6 * P1 * P1 * Q + 3 * P1 * P1 * P1;
}

/* The Voigt slot of the index pair (a, b): 0 1 2 on the diagonal, xy 3, xz 4, yz 5. */
__device__ static inline int hp_voigt(int a, int b) { return a == b ? a : a + b + 2; }

/* ho_plastic_diag.c's diagonal for the NE elements of one colour per block: weights
 *   M^c_ik = w det J sum_jl X_ij X_kl D[v(c,j)][v(c,l)]   (off-diagonal pairs doubled),
 * then per component c and pair p = (i, k) the transposed sum factorisation with the squared
 * tables (G.G where a direction is both i and k, B.G where it is one of them, B.B otherwise),
 * the six pairs summed per node in the host's order, and the scatter-add by colour. */
__global__ void __launch_bounds__(HO_THREADS) k_hp_diag(hp_diag_args a) {
  extern __shared__ double sm[];
  const int P1 = a.P1, Q = a.Q, n3 = P1 * P1 * P1, nq3 = Q * Q * Q, Q2 = Q * Q, QP = Q * P1;
  const int uq = P1 * Q2, tq = P1 * P1 * Q, es = hp_diag_doubles(P1, Q);
  const int first = blockIdx.x * a.ne, ne = min(a.ne, a.n_el - first);
  const int pair_i[6] = {0, 1, 2, 0, 0, 1}, pair_k[6] = {0, 1, 2, 1, 2, 2};
  double *sq = sm, *el = sm + 3 * QP; /* sq: B.B, B.G, G.G, each Q x P1 */
  /* per element, at el + e es: M[18][nq3] | t2[6][uq] | t1[6][tq] | de[3][n3] */
  const int o_t2 = 18 * nq3, o_t1 = o_t2 + 6 * uq, o_de = o_t1 + 6 * tq;
  for (int t = threadIdx.x; t < QP; t += blockDim.x) {
    double b = a.tables[t], g = a.tables[QP + t];
    sq[t] = b * b, sq[QP + t] = b * g, sq[2 * QP + t] = g * g;
  }
  for (int t = threadIdx.x; t < ne * nq3; t += blockDim.x) {
    int e = t / nq3, q = t - e * nq3, elem = a.elems[first + e];
    const double *qd = a.qdata + (size_t)elem * DT_HO_QDATA_SIZE * nq3 + q;
    const double *T = a.tangent + (size_t)elem * DT_HO_TANGENT_SIZE * nq3 + q;
    double X[3][3], D[36], *M = el + (size_t)e * es + q;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) X[i][j] = qd[(1 + 3 * i + j) * nq3];
    for (int i = 0, k = 0; i < 6; i++)
      for (int j = i; j < 6; j++, k++) D[6 * i + j] = D[6 * j + i] = T[k * nq3];
    for (int c = 0; c < 3; c++) {
      double Y[3][3]; /* Y[i][l] = sum_j X_ij D[v(c,j)][v(c,l)] */
      for (int i = 0; i < 3; i++)
        for (int l = 0; l < 3; l++)
          Y[i][l] = X[i][0] * D[6 * hp_voigt(c, 0) + hp_voigt(c, l)] +
                    X[i][1] * D[6 * hp_voigt(c, 1) + hp_voigt(c, l)] +
                    X[i][2] * D[6 * hp_voigt(c, 2) + hp_voigt(c, l)];
      for (int p = 0; p < 6; p++) {
        int i = pair_i[p], k = pair_k[p];
        double sym = i == k ? 1.0 : 2.0;
        M[(6 * c + p) * nq3] =
            sym * qd[0] * (Y[i][0] * X[k][0] + Y[i][1] * X[k][1] + Y[i][2] * X[k][2]);
      }
    }
  }
  __syncthreads();
  for (int c = 0; c < 3; c++) {
    /* along z: t2[p] = T_z^T M[6c + p] (entries [P1 z][Q^2]) */
    for (int t = threadIdx.x; t < ne * 6 * uq; t += blockDim.x) {
      int ep = t / uq, r = t - ep * uq, e = ep / 6, p = ep - 6 * e, pr = r % Q2, iz = r / Q2;
      double *E = el + (size_t)e * es;
      const double *Tz = sq + ((pair_i[p] == 2) + (pair_k[p] == 2)) * QP;
      const double *x = E + (6 * c + p) * nq3 + pr;
      double s = 0.0;
      for (int j = 0; j < Q; j++) s += Tz[j * P1 + iz] * x[j * Q2];
      E[o_t2 + p * uq + r] = s;
    }
    __syncthreads();
    /* along y: t1[p] = T_y^T t2[p] (entries [P1 z][P1 y][Q x]) */
    for (int t = threadIdx.x; t < ne * 6 * tq; t += blockDim.x) {
      int ep = t / tq, r = t - ep * tq, e = ep / 6, p = ep - 6 * e;
      int pr = r % Q, iy = (r / Q) % P1, po = r / (Q * P1);
      double *E = el + (size_t)e * es;
      const double *Ty = sq + ((pair_i[p] == 1) + (pair_k[p] == 1)) * QP;
      const double *x = E + o_t2 + p * uq + po * Q2 + pr;
      double s = 0.0;
      for (int j = 0; j < Q; j++) s += Ty[j * P1 + iy] * x[j * Q];
      E[o_t1 + p * tq + r] = s;
    }
    __syncthreads();
    /* along x, the pairs summed: de[c] = sum_p T_x^T t1[p] (entries [P1^2 yz][P1 x]) */
    for (int t = threadIdx.x; t < ne * n3; t += blockDim.x) {
      int e = t / n3, r = t - e * n3, ix = r % P1, po = r / P1;
      double *E = el + (size_t)e * es, s = 0.0;
      for (int p = 0; p < 6; p++) {
        const double *Tx = sq + ((pair_i[p] == 0) + (pair_k[p] == 0)) * QP;
        const double *x = E + o_t1 + p * tq + po * Q;
        for (int j = 0; j < Q; j++) s += Tx[j * P1 + ix] * x[j];
      }
      E[o_de + c * n3 + r] = s;
    }
    __syncthreads();
  }
  for (int t = threadIdx.x; t < ne * n3; t += blockDim.x) {
    int e = t / n3, k = t - e * n3;
    int node = a.elem_nodes[(size_t)a.elems[first + e] * n3 + k];
    for (int c = 0; c < 3; c++)
      a.diag[3 * (size_t)node + c] += el[(size_t)e * es + o_de + c * n3 + k];
  }
}

static dt_status hp_alloc(dt_cuda_ho_plastic *hp, void **p, size_t bytes, const char *what,
                          dt_ctx *ctx) {
  return dt_cuda_malloc_counted(p, bytes, "the plastic state's ", what, &hp->bytes, ctx);
}

static dt_status hp_upload(dt_cuda_ho_plastic *hp, void **p, const void *src, size_t bytes,
                           const char *what, dt_ctx *ctx) {
  return dt_cuda_upload_counted(p, src, bytes, "the plastic state's ", what, &hp->bytes, ctx);
}

/* Elements per block of the diagonal and its shared memory, as dt_cuda_ho_create sizes the
 * sweep's. */
static dt_status size_diag(dt_cuda_ho_plastic *hp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_cuda_ho *h = hp->h;
  int max_shared = 0;
  size_t el = sizeof(double) * (size_t)hp_diag_doubles(h->P1, h->Q),
         tab = sizeof(double) * 3 * (size_t)h->Q * h->P1;
  DT_CUDA_CHECK(
      cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, h->device), ctx);
  hp->diag_ne = el + tab < HO_SHARED_TARGET ? (int)((HO_SHARED_TARGET - tab) / el) : 1;
  if (hp->diag_ne > 32) hp->diag_ne = 32;
  hp->diag_shared = tab + el * (size_t)hp->diag_ne;
  DT_CHECK(hp->diag_shared <= (size_t)max_shared, ctx, DT_ERR_UNSUPPORTED,
           "the plastic tangent's diagonal at order %d with %d points per direction needs %zu "
           "bytes of shared memory per element, more than the device's %d",
           h->P1 - 1, h->Q, hp->diag_shared, max_shared);
  /* per kernel, not per state: the device's largest, so states of several orders can launch */
  DT_CUDA_CHECK(
      cudaFuncSetAttribute(k_hp_diag, cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared),
      ctx);
  DT_CUDA_CHECK(cudaFuncSetAttribute(k_ho_sweep<hp_residual_point>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared),
                ctx);
  DT_CUDA_CHECK(cudaFuncSetAttribute(k_ho_sweep<hp_tangent_point>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared),
                ctx);
cleanup:
  return rc;
}

/* Device bytes of the state and the vectors, checked against the free memory first. */
static dt_status check_fits(const dt_ho_plastic *pl, size_t n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t free_b = 0, total_b = 0, np = (size_t)pl->n_points;
  size_t need =
      np *
          (sizeof(double) * (4 * DT_HO_VOIGT + 2 * DT_MAT_STATE_DOUBLES + DT_HO_TANGENT_SIZE) + 1) +
      sizeof(double) * 9 * n + n + sizeof(dt_material_params) * pl->n_materials;
  DT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b), ctx);
  DT_CHECK(need + (free_b / 20) <= free_b, ctx, DT_ERR_DEVICE_NOMEM,
           "the order-P plastic state needs %.2f GB of GPU memory (%zu Gauss points, %zu DOFs) "
           "but %.2f GB are free",
           need / 1e9, np, n, free_b / 1e9);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_plastic_create(const dt_ho_plastic *pl, dt_cuda_ho *h,
                                               dt_cuda_ho_plastic **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_ho_plastic *hp = NULL;
  size_t np = (size_t)pl->n_points, n = 3 * (size_t)h->n_nodes;
  size_t sh = sizeof(double) * DT_HO_VOIGT * np, sm = sizeof(double) * DT_MAT_STATE_DOUBLES * np;
  *out = NULL;
  DT_CHECK(h->n_elems == pl->op->n_elems && h->n_nodes == pl->op->n_nodes && h->Q == pl->op->nq &&
               h->P1 == pl->op->order + 1,
           ctx, DT_ERR_INPUT,
           "the device operator (%d elements, order %d) is not the plastic state's (%d, %d)",
           h->n_elems, h->P1 - 1, pl->op->n_elems, pl->op->order);
  hp = (dt_cuda_ho_plastic *)dt_calloc(1, sizeof *hp);
  DT_CHECK(hp != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating the plastic device state");
  hp->h = h;
  hp->nq3 = pl->nq3;
  hp->n_points = np;
  hp->n = n;
  DT_CUDA_CHECK(cudaSetDevice(h->device), ctx);
  DT_TRY(check_fits(pl, n, ctx));
  DT_TRY(size_diag(hp, ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->mats, pl->mats, sizeof(dt_material_params) * pl->n_materials,
                   "materials", ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->elem_mat, pl->elem_mat, sizeof(int) * h->n_elems,
                   "element materials", ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->hist_c, pl->hist_c, sm, "committed history", ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->hist_t, pl->hist_t, sm, "trial history", ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->stress_c, pl->stress_c, sh, "committed stress", ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->stress_t, pl->stress_t, sh, "trial stress", ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->strain_c, pl->strain_c, sh, "committed strain", ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->strain_t, pl->strain_t, sh, "trial strain", ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->tangent, pl->tangent, sizeof(double) * DT_HO_TANGENT_SIZE * np,
                   "tangents", ctx));
  DT_TRY(hp_upload(hp, (void **)&hp->result, pl->result, np, "update results", ctx));
  DT_TRY(hp_alloc(hp, (void **)&hp->count_partial, sizeof(long long) * 3 * HP_RED_BLOCKS,
                  "point counts", ctx));
  DT_TRY(hp_alloc(hp, (void **)&hp->counts, sizeof(long long) * 3, "point counts", ctx));
  DT_TRY(hp_alloc(hp, (void **)&hp->x, sizeof(double) * n, "vectors", ctx));
  DT_TRY(hp_alloc(hp, (void **)&hp->y, sizeof(double) * n, "vectors", ctx));
  DT_TRY(hp_alloc(hp, (void **)&hp->b, sizeof(double) * n, "vectors", ctx));
  DT_TRY(hp_alloc(hp, (void **)&hp->c, sizeof(double) * n, "vectors", ctx));
  DT_TRY(hp_alloc(hp, (void **)&hp->diag, sizeof(double) * n, "vectors", ctx));
  DT_TRY(hp_alloc(hp, (void **)&hp->fixed, n, "fixed DOFs", ctx));
  DT_CUDA_CHECK(dt_cuda_put(hp->fixed, NULL, n), ctx);
  DT_CUDA_CHECK(cudaEventCreateWithFlags(&hp->joined[0], cudaEventDisableTiming), ctx);
  DT_CUDA_CHECK(cudaEventCreateWithFlags(&hp->joined[1], cudaEventDisableTiming), ctx);
  DT_TRY(hp_pcg_create(&hp->pcg, n, h->stream, ctx));
  hp->bytes += hp->pcg.bytes;
  *out = hp;
  hp = NULL;
cleanup:
  if (hp) dt_cuda_ho_plastic_destroy(hp);
  return rc;
}

extern "C" void dt_cuda_ho_plastic_destroy(dt_cuda_ho_plastic *hp) {
  if (!hp) return;
  void *p[] = {hp->mats,          hp->elem_mat, hp->hist_c,  hp->hist_t, hp->stress_c, hp->stress_t,
               hp->strain_c,      hp->strain_t, hp->tangent, hp->result, hp->counts,   hp->x,
               hp->count_partial, hp->y,        hp->b,       hp->c,      hp->diag,     hp->fixed};
  for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) cudaFree(p[k]);
  for (int k = 0; k < 2; k++)
    if (hp->joined[k]) cudaEventDestroy(hp->joined[k]);
  hp_pcg_free(&hp->pcg);
  dt_free(hp);
}

/* The residual's kernels queued: the sweep with the material update, the point counts. */
static dt_status residual_queue(dt_cuda_ho_plastic *hp, const double *d_u, double *d_f,
                                dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaStream_t st = hp->h->stream;
  hp_residual_point point = {hp->mats,     hp->elem_mat, hp->hist_c,  hp->hist_t,
                             hp->stress_t, hp->strain_t, hp->tangent, hp->result};
  DT_TRY(ho_sweep_launch(hp->h, st, d_u, d_f, NULL, point, ctx));
  k_hp_count<<<HP_RED_BLOCKS, HP_RED_THREADS, 0, st>>>(hp->n_points, hp->result, hp->count_partial);
  DT_CUDA_LAUNCH_CHECK("k_hp_count", st, ctx);
  k_hp_count_final<<<1, 32, 0, st>>>(hp->count_partial, hp->counts);
  DT_CUDA_LAUNCH_CHECK("k_hp_count_final", st, ctx);
cleanup:
  return rc;
}

/* f = f_int(u) on device vectors; the counts to the host (the one wait), the error of a failed
 * return mapping as dt_ho_plastic_residual has it. */
static dt_status residual_device(dt_cuda_ho_plastic *hp, const double *d_u, double *d_f,
                                 dt_ho_plastic_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  long long cnt[3] = {0, 0, LLONG_MAX};
  dt_ho_plastic_report r = {0, 0, -1, -1};
  DT_TRY(residual_queue(hp, d_u, d_f, ctx));
  DT_CUDA_CHECK(cudaMemcpyAsync(cnt, hp->counts, sizeof cnt, cudaMemcpyDeviceToHost, hp->h->stream),
                ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(hp->h->stream), ctx);
  r.n_plastic = (long)cnt[0];
  r.n_failed = (long)cnt[1];
  if (cnt[1] > 0) {
    r.failed_elem = (int)(cnt[2] / hp->nq3);
    r.failed_point = (int)(cnt[2] % hp->nq3);
  }
  if (rep) *rep = r;
  DT_CHECK(r.n_failed == 0, ctx, DT_ERR_NOT_CONVERGED,
           "return mapping failed at element %d, Gauss point %d (%ld points failed)", r.failed_elem,
           r.failed_point, r.n_failed);
cleanup:
  return rc;
}

/* v = K_t w on device vectors in hp's stream (an hp_apply_fn). */
static dt_status apply_device(void *op, const double *d_w, double *d_v, const int *d_skip,
                              dt_ctx *ctx) {
  dt_cuda_ho_plastic *hp = (dt_cuda_ho_plastic *)op;
  hp_tangent_point point = {hp->tangent};
  return ho_sweep_launch(hp->h, hp->h->stream, d_w, d_v, d_skip, point, ctx);
}

/* The same for a preconditioner that calls it from its own stream (pc_stream): ordered after
 * that stream's work, and that stream's next work after it (a dt_cuda_ho_dev_apply_fn). */
static dt_status apply_joined(void *op, const double *d_w, double *d_v, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_ho_plastic *hp = (dt_cuda_ho_plastic *)op;
  DT_CUDA_CHECK(cudaEventRecord(hp->joined[0], hp->pc_stream), ctx);
  DT_CUDA_CHECK(cudaStreamWaitEvent(hp->h->stream, hp->joined[0], 0), ctx);
  DT_TRY(apply_device(op, d_w, d_v, NULL, ctx));
  DT_CUDA_CHECK(cudaEventRecord(hp->joined[1], hp->h->stream), ctx);
  DT_CUDA_CHECK(cudaStreamWaitEvent(hp->pc_stream, hp->joined[1], 0), ctx);
cleanup:
  return rc;
}

/* diag = K_t's diagonal on a device vector. */
static dt_status diagonal_device(dt_cuda_ho_plastic *hp, double *d_diag, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_cuda_ho *h = hp->h;
  DT_CUDA_CHECK(cudaMemsetAsync(d_diag, 0, sizeof(double) * hp->n, h->stream), ctx);
  for (int k = 0; k < h->n_colors; k++) {
    int lo = h->h_color_ptr[k], n = h->h_color_ptr[k + 1] - lo;
    if (n == 0) continue;
    hp_diag_args a = {h->P1,         h->Q,     hp->diag_ne, n,           h->color_elems + lo,
                      h->elem_nodes, h->qdata, h->tables,   hp->tangent, d_diag};
    k_hp_diag<<<(n + hp->diag_ne - 1) / hp->diag_ne, HO_THREADS, hp->diag_shared, h->stream>>>(a);
    DT_CUDA_LAUNCH_CHECK("k_hp_diag", h->stream, ctx);
  }
cleanup:
  return rc;
}

static dt_status to_device(dt_cuda_ho_plastic *hp, double *d, const double *host, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(
      cudaMemcpyAsync(d, host, sizeof(double) * hp->n, cudaMemcpyHostToDevice, hp->h->stream), ctx);
cleanup:
  return rc;
}

static dt_status to_host(dt_cuda_ho_plastic *hp, double *host, const double *d, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(
      cudaMemcpyAsync(host, d, sizeof(double) * hp->n, cudaMemcpyDeviceToHost, hp->h->stream), ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(hp->h->stream), ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_plastic_residual(dt_cuda_ho_plastic *hp, const double *u, double *f,
                                                 dt_ho_plastic_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK, failed = DT_OK;
  DT_CUDA_CHECK(cudaSetDevice(hp->h->device), ctx);
  DT_TRY(to_device(hp, hp->x, u, ctx));
  failed = residual_device(hp, hp->x, hp->y, rep, ctx);
  if (failed != DT_OK && failed != DT_ERR_NOT_CONVERGED) DT_TRY(failed);
  DT_TRY(to_host(hp, f, hp->y, ctx)); /* f is finite at a failed point: the host's does too */
  rc = failed;
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_plastic_apply(dt_cuda_ho_plastic *hp, const double *w, double *v,
                                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(cudaSetDevice(hp->h->device), ctx);
  DT_TRY(to_device(hp, hp->x, w, ctx));
  DT_TRY(apply_device(hp, hp->x, hp->y, NULL, ctx));
  DT_TRY(to_host(hp, v, hp->y, ctx));
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_plastic_diagonal(dt_cuda_ho_plastic *hp, double *diag,
                                                 dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(cudaSetDevice(hp->h->device), ctx);
  DT_TRY(diagonal_device(hp, hp->y, ctx));
  DT_TRY(to_host(hp, diag, hp->y, ctx));
cleanup:
  return rc;
}

/* The trial state over the committed one (to_committed) or the reverse. */
static dt_status copy_state(dt_cuda_ho_plastic *hp, int to_committed, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t np = hp->n_points;
  double *h[2] = {hp->hist_t, hp->hist_c}, *s[2] = {hp->stress_t, hp->stress_c};
  double *e[2] = {hp->strain_t, hp->strain_c};
  int from = to_committed ? 0 : 1, to = 1 - from;
  cudaStream_t st = hp->h->stream;
  DT_CUDA_CHECK(cudaSetDevice(hp->h->device), ctx);
  DT_CUDA_CHECK(cudaMemcpyAsync(h[to], h[from], sizeof(double) * DT_MAT_STATE_DOUBLES * np,
                                cudaMemcpyDeviceToDevice, st),
                ctx);
  DT_CUDA_CHECK(cudaMemcpyAsync(s[to], s[from], sizeof(double) * DT_HO_VOIGT * np,
                                cudaMemcpyDeviceToDevice, st),
                ctx);
  DT_CUDA_CHECK(cudaMemcpyAsync(e[to], e[from], sizeof(double) * DT_HO_VOIGT * np,
                                cudaMemcpyDeviceToDevice, st),
                ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_plastic_commit(dt_cuda_ho_plastic *hp, dt_ctx *ctx) {
  return copy_state(hp, 1, ctx);
}

extern "C" dt_status dt_cuda_ho_plastic_rollback(dt_cuda_ho_plastic *hp, dt_ctx *ctx) {
  return copy_state(hp, 0, ctx);
}

extern "C" dt_status dt_cuda_ho_plastic_download(dt_cuda_ho_plastic *hp, unsigned what,
                                                 dt_ho_plastic *pl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t np = hp->n_points, sm = sizeof(double) * DT_MAT_STATE_DOUBLES * np,
         sv = sizeof(double) * DT_HO_VOIGT * np;
  struct {
    unsigned bit;
    void *host;
    const void *dev;
    size_t bytes;
  } part[] = {{DT_CUDA_HP_COMMITTED, pl->hist_c, hp->hist_c, sm},
              {DT_CUDA_HP_COMMITTED, pl->stress_c, hp->stress_c, sv},
              {DT_CUDA_HP_COMMITTED, pl->strain_c, hp->strain_c, sv},
              {DT_CUDA_HP_TRIAL, pl->hist_t, hp->hist_t, sm},
              {DT_CUDA_HP_TRIAL, pl->stress_t, hp->stress_t, sv},
              {DT_CUDA_HP_TRIAL, pl->strain_t, hp->strain_t, sv},
              {DT_CUDA_HP_TANGENT, pl->tangent, hp->tangent, sizeof(double) * 21 * np},
              {DT_CUDA_HP_TANGENT, pl->result, hp->result, np}};
  DT_CHECK((size_t)pl->n_points == np, ctx, DT_ERR_INPUT,
           "plastic download: %ld points on the host, %zu on the device", pl->n_points, np);
  DT_CUDA_CHECK(cudaSetDevice(hp->h->device), ctx);
  for (size_t k = 0; k < sizeof part / sizeof part[0]; k++)
    if (what & part[k].bit)
      DT_CUDA_CHECK(cudaMemcpyAsync(part[k].host, part[k].dev, part[k].bytes,
                                    cudaMemcpyDeviceToHost, hp->h->stream),
                    ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(hp->h->stream), ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_plastic_set_fixed(dt_cuda_ho_plastic *hp,
                                                  const unsigned char *fixed, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(cudaSetDevice(hp->h->device), ctx);
  DT_CUDA_CHECK(dt_cuda_put_on(hp->h->stream, hp->fixed, fixed, hp->n), ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_ho_plastic_correct(
    dt_cuda_ho_plastic *hp, const double *b, double *c, const dt_ho_pcg_opts *opts,
    dt_status (*pc_setup)(void *pc_data, dt_cuda_ho_dev_apply_fn apply, void *op,
                          const double *d_diag, dt_ctx *ctx),
    dt_cuda_ho_pc_fn pc, void *pc_data, void *pc_stream, dt_ho_pcg_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaStream_t st = hp->h->stream;
  DT_CUDA_CHECK(cudaSetDevice(hp->h->device), ctx);
  DT_TRY(to_device(hp, hp->b, b, ctx));
  DT_TRY(to_device(hp, hp->c, c, ctx));
  DT_TRY(diagonal_device(hp, hp->diag, ctx));
  hp->pc_stream = (cudaStream_t)pc_stream;
  if (pc && pc_setup) {
    DT_CUDA_CHECK(cudaStreamSynchronize(st),
                  ctx); /* the diagonal, before another stream reads it */
    DT_TRY(pc_setup(pc_data, apply_joined, hp, hp->diag, ctx));
  }
  DT_TRY(hp_pcg_solve(&hp->pcg, apply_device, hp, hp->diag, pc, pc_data, hp->pc_stream, hp->fixed,
                      hp->b, hp->c, opts, res, ctx));
  DT_TRY(to_host(hp, c, hp->c, ctx));
cleanup:
  return rc;
}

/* The timed pieces: the residual at x into y, and the tangent product of x into c. */
static dt_status timed_residual(void *hp, dt_ctx *ctx) {
  dt_cuda_ho_plastic *p = (dt_cuda_ho_plastic *)hp;
  return residual_queue(p, p->x, p->y, ctx);
}

static dt_status timed_apply(void *hp, dt_ctx *ctx) {
  dt_cuda_ho_plastic *p = (dt_cuda_ho_plastic *)hp;
  return apply_device(p, p->x, p->c, NULL, ctx);
}

extern "C" dt_status dt_cuda_ho_plastic_time(dt_cuda_ho_plastic *hp, const double *u, int reps,
                                             double *residual_s, double *apply_s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaStream_t st = hp->h->stream;
  float ms[2] = {0.0f, 0.0f};
  if (reps < 1) reps = 1;
  DT_CUDA_CHECK(cudaSetDevice(hp->h->device), ctx);
  DT_TRY(to_device(hp, hp->x, u, ctx));
  DT_TRY(timed_residual(hp, ctx)); /* warm-up, and the tangent at u */
  DT_TRY(timed_apply(hp, ctx));
  DT_TRY(dt_cuda_time_ms(st, reps, timed_residual, hp, &ms[0], ctx));
  DT_TRY(dt_cuda_time_ms(st, reps, timed_apply, hp, &ms[1], ctx));
  *residual_s = ms[0] * 1e-3 / reps;
  *apply_s = ms[1] * 1e-3 / reps;
  DT_TRY(copy_state(hp, 0, ctx));
cleanup:
  return rc;
}

extern "C" void dt_cuda_ho_plastic_describe(const dt_cuda_ho_plastic *hp, char *buf, size_t len) {
  snprintf(buf, len,
           "%zu Gauss points, diagonal %d elements per block (%zu bytes of shared memory), "
           "%.1f MB on the device for the plastic state and vectors",
           hp->n_points, hp->diag_ne, hp->diag_shared, hp->bytes / 1e6);
}
