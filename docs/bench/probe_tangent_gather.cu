/* Probe (not part of the build), 2026-11-25: the hex8 tangent of a mesh of congruent elements
 * assembled write-once, on Kiran's cubes C1-C5 with a synthetic plastic state, each variant
 * checked against a host assembly (C1: max |difference| / max |value|) and against NaN-filled
 * values (every value written), timed against the byte floor of ductile-bench. The kernels, in
 * the order they were tried (numbers: C5 on the H100 unless marked; all runs in
 * probe_tangent_gather_2026-11-25.log, the design table in docs/benchmarks.md):
 *   k_state + k_gather   a thread per block row, upper blocks and transposes, 16.5 ms (H200)
 *   k_rows               a thread per (row, element), 7.9 ms
 *   k_rows2              the same, class constants as immediate operands, 67.6 ms
 *   k_rows3              k_rows with the next point's state prefetched, 8.4-9.5 ms
 *   k_rows_mma<SKIP>     a warp per row on the FP64 tensor cores, 7.3 ms (SKIP: timing ablations)
 *   k_rows_mma_c         + the A fragments formed once, 6.5 ms
 *   k_rows_mma_h         + by halves of the points, the row written through shared memory,
 *                          4.7 ms: the design of cuda/cuda_tangent_rows.cu
 * main() runs variant 13 (the last) unless told otherwise; 7-11 are timing ablations whose values
 * are not meant to be right.
 *
 * For elements that are translated copies of one element (one class), the gradients g_a at
 * each point are constants, and with D = K 1x1 + 2 mu I_dev - gam n x n (the tangent form)
 * the block (a, b) of an element is
 *   K_e[a,b] = K Xbar_ab + sum_q mu_q Z_qab - sum_q gam_q (N_q gh_qa)(N_q gh_qb)^T
 * with Xbar_ab = sum_q wJ_q g_a g_b^T, Z_qab = wJ_q (g_b g_a^T - 2/3 g_a g_b^T + (g_a.g_b) I),
 * gh = sqrt(wJ) g, N_q the flow direction as a 3 x 3 tensor (the first kernels' form; the
 * tensor-core kernels write it as sum over (q, k) of C[ij][(q,k)] g_b^q[k]).
 *
 *   nvcc -O3 -arch=sm_90 -o probe docs/bench/probe_tangent_gather.cu && ./probe [first last [v [vlast]]]
 * (meshes first .. last, 0 .. 4 for C1 .. C5; variants v .. vlast; the host check runs on C1)
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                    \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                 \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

static const int DI[8] = {0, 1, 1, 0, 0, 1, 1, 0}, DJ[8] = {0, 0, 1, 1, 0, 0, 1, 1}, DK[8] = {0, 0, 0, 0, 1, 1, 1, 1};

struct Mesh {
  int n, N, nn, ne;
  std::vector<int> conn, brow_ptr, bcol, epos, item_ptr, items, inc_ptr, inc;
};

static int node_of(int N, int x, int y, int z) { return x + N * (y + N * z); }

static void build(Mesh &m, int n) {
  m.n = n, m.N = n + 1, m.nn = m.N * m.N * m.N, m.ne = n * n * n;
  int N = m.N;
  m.conn.resize((size_t)m.ne * 8);
  for (int z = 0; z < n; z++)
    for (int y = 0; y < n; y++)
      for (int x = 0; x < n; x++) {
        int e = x + n * (y + n * z);
        for (int a = 0; a < 8; a++) m.conn[8 * (size_t)e + a] = node_of(N, x + DI[a], y + DJ[a], z + DK[a]);
      }
  m.brow_ptr.assign(m.nn + 1, 0);
  m.bcol.clear();
  m.bcol.reserve((size_t)m.nn * 27);
  for (int z = 0; z < N; z++)
    for (int y = 0; y < N; y++)
      for (int x = 0; x < N; x++) {
        int i = node_of(N, x, y, z);
        for (int dz = -1; dz <= 1; dz++)
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
              int X = x + dx, Y = y + dy, Z = z + dz;
              if (X < 0 || Y < 0 || Z < 0 || X >= N || Y >= N || Z >= N) continue;
              m.bcol.push_back(node_of(N, X, Y, Z));
            }
        m.brow_ptr[i + 1] = (int)m.bcol.size();
      }
  m.epos.resize((size_t)m.ne * 64);
  for (int e = 0; e < m.ne; e++)
    for (int a = 0; a < 8; a++)
      for (int b = 0; b < 8; b++) {
        int i = m.conn[8 * (size_t)e + a], j = m.conn[8 * (size_t)e + b];
        const int *p = &m.bcol[m.brow_ptr[i]], *q = &m.bcol[m.brow_ptr[i + 1]];
        m.epos[64 * (size_t)e + 8 * a + b] = (int)(std::lower_bound(p, q, j) - p);
      }
  /* incidences: per node, its elements ascending, as e * 8 + a */
  m.inc_ptr.assign(m.nn + 1, 0);
  m.inc.clear();
  for (int z = 0; z < N; z++)
    for (int y = 0; y < N; y++)
      for (int x = 0; x < N; x++) {
        int i = node_of(N, x, y, z);
        for (int ez = z - 1; ez <= z; ez++)
          for (int ey = y - 1; ey <= y; ey++)
            for (int ex = x - 1; ex <= x; ex++) {
              if (ex < 0 || ey < 0 || ez < 0 || ex >= n || ey >= n || ez >= n) continue;
              int e = ex + n * (ey + n * ez);
              for (int k = 0; k < 8; k++)
                if (m.conn[8 * (size_t)e + k] == i) m.inc.push_back(8 * e + k);
            }
        m.inc_ptr[i + 1] = (int)m.inc.size();
      }
  /* items: per row, its upper blocks in column order, each block's elements ascending */
  m.item_ptr.assign(m.nn + 1, 0);
  m.items.clear();
  m.items.reserve((size_t)m.ne * 36 + 16);
  std::vector<long long> tmp;
  for (int z = 0; z < N; z++)
    for (int y = 0; y < N; y++)
      for (int x = 0; x < N; x++) {
        int i = node_of(N, x, y, z);
        tmp.clear();
        for (int ez = z - 1; ez <= z; ez++)
          for (int ey = y - 1; ey <= y; ey++)
            for (int ex = x - 1; ex <= x; ex++) {
              if (ex < 0 || ey < 0 || ez < 0 || ex >= n || ey >= n || ez >= n) continue;
              int e = ex + n * (ey + n * ez), a = -1;
              for (int k = 0; k < 8; k++)
                if (m.conn[8 * (size_t)e + k] == i) a = k;
              for (int b = 0; b < 8; b++) {
                int j = m.conn[8 * (size_t)e + b];
                if (j >= i) tmp.push_back(((long long)j << 32) | ((long long)e << 6) | (a << 3) | b);
              }
            }
        std::sort(tmp.begin(), tmp.end());
        for (long long v : tmp) m.items.push_back((int)(v & 0xffffffffLL));
        m.item_ptr[i + 1] = (int)m.items.size();
      }
}

/* class constants of the cube's element of side h: gh[a][q][3], Z[ab][q][9], Xb[ab][9] */
static void constants(double h, std::vector<double> &gh, std::vector<double> &Z, std::vector<double> &Xb,
                      std::vector<double> &g, double &wJ) {
  gh.assign(8 * 8 * 3, 0), Z.assign(64 * 8 * 9, 0), Xb.assign(64 * 9, 0), g.assign(8 * 8 * 3, 0);
  double gp = 1.0 / sqrt(3.0);
  wJ = h * h * h / 8.0;
  for (int q = 0; q < 8; q++) {
    double xi[3] = {(q & 1) ? gp : -gp, (q & 2) ? gp : -gp, (q & 4) ? gp : -gp};
    for (int a = 0; a < 8; a++) {
      double s[3] = {2.0 * DI[a] - 1, 2.0 * DJ[a] - 1, 2.0 * DK[a] - 1};
      for (int d = 0; d < 3; d++) {
        double v = 0.125 * s[d];
        for (int o = 0; o < 3; o++)
          if (o != d) v *= 1 + s[o] * xi[o];
        g[(a * 8 + q) * 3 + d] = v * 2.0 / h;
        gh[(a * 8 + q) * 3 + d] = sqrt(wJ) * v * 2.0 / h;
      }
    }
  }
  for (int a = 0; a < 8; a++)
    for (int b = 0; b < 8; b++)
      for (int q = 0; q < 8; q++) {
        const double *ga = &g[(a * 8 + q) * 3], *gb = &g[(b * 8 + q) * 3];
        double dot = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) {
            Z[((a * 8 + b) * 8 + q) * 9 + i * 3 + j] = wJ * (gb[i] * ga[j] - 2.0 / 3.0 * ga[i] * gb[j] + (i == j ? dot : 0));
            Xb[(a * 8 + b) * 9 + i * 3 + j] += wJ * ga[i] * gb[j];
          }
      }
}

/* The flow direction without back stress: n = s' / |s'| (s' the deviator of s, Voigt
 * xx yy zz xy xz yz), on the device and in the host reference. */
__host__ __device__ inline void probe_flow(const double s_in[6], double n[6]) {
  double s[6], p = (s_in[0] + s_in[1] + s_in[2]) / 3.0;
  for (int k = 0; k < 6; k++) s[k] = s_in[k] - (k < 3 ? p : 0.0);
  double nrm = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + 2.0 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
  double r = nrm > 0 ? 1.0 / nrm : 0.0;
  for (int k = 0; k < 6; k++) n[k] = s[k] * r;
}

/* per point: mu, gam, n (6), point-major, from the stress kernel's layout (component k of point
 * qp at [k * nqp + qp]); 32 elements x 8 points per block, transposed through shared memory */
__global__ void __launch_bounds__(256) k_state(int ne, long nqp, const double *__restrict__ tan_t,
                                               const double *__restrict__ sig_t, double *__restrict__ st,
                                               double *__restrict__ Kel) {
  __shared__ double sh[8][8][33];
  int t = threadIdx.x, el = t / 8, q = t % 8;
  long qp = (long)blockIdx.x * 256 + t;
  int e0 = blockIdx.x * 32;
  if (qp < nqp) {
    double K = tan_t[qp], mu = tan_t[nqp + qp], gam = tan_t[2 * nqp + qp];
    double n[6] = {0, 0, 0, 0, 0, 0};
    if (gam != 0.0) {
      double s[6];
      for (int k = 0; k < 6; k++) s[k] = sig_t[k * nqp + qp];
      probe_flow(s, n);
    }
    sh[0][q][el] = mu, sh[1][q][el] = gam;
    for (int k = 0; k < 6; k++) sh[2 + k][q][el] = n[k];
    if (q == 0) Kel[e0 + el] = K;
  }
  __syncthreads();
  for (int r = 0; r < 8; r++) {
    int v = t + 256 * r, c = v / 256, q2 = (v / 32) % 8, el2 = v % 32;
    if (e0 + el2 < ne) st[(long)(c * 8 + q2) * ne + e0 + el2] = sh[c][q2][el2];
  }
}

template <bool SMEM>
__global__ void __launch_bounds__(128) k_gather(int nn, const int *__restrict__ item_ptr, const int *__restrict__ items,
                                                const int *__restrict__ conn, const int *__restrict__ brow_ptr,
                                                const int *__restrict__ epos, const double *__restrict__ st,
                                                const double *__restrict__ Kel, long ne, const double *__restrict__ gh_g,
                                                const double *__restrict__ Z_g, const double *__restrict__ Xb_g,
                                                double *__restrict__ val) {
  extern __shared__ double shc[];
  const double *gh = gh_g, *Z = Z_g, *Xb = Xb_g;
  if (SMEM) {
    for (int k = threadIdx.x; k < 192 + 4608 + 576; k += blockDim.x)
      shc[k] = k < 192 ? gh_g[k] : k < 192 + 4608 ? Z_g[k - 192] : Xb_g[k - 192 - 4608];
    __syncthreads();
    gh = shc, Z = shc + 192, Xb = shc + 192 + 4608;
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nn) return;
  int t0 = item_ptr[i], t1 = item_ptr[i + 1];
  double acc[9];
  int cur = -1, r_ij = 0, r_ji = 0;
  for (int t = t0; t <= t1; t++) {
    int it = t < t1 ? items[t] : 0;
    int e = it >> 6, a = (it >> 3) & 7, b = it & 7;
    int j = t < t1 ? conn[8 * e + b] : -2;
    if (j != cur) {
      if (cur >= 0) {
        double *o = val + ((long)brow_ptr[i] + r_ij) * 9;
#pragma unroll
        for (int ii = 0; ii < 3; ii++)
#pragma unroll
          for (int jj = 0; jj < 3; jj++) o[jj * 3 + ii] = acc[ii * 3 + jj];
        if (cur != i) {
          double *o2 = val + ((long)brow_ptr[cur] + r_ji) * 9;
#pragma unroll
          for (int ii = 0; ii < 3; ii++)
#pragma unroll
            for (int jj = 0; jj < 3; jj++) o2[ii * 3 + jj] = acc[ii * 3 + jj];
        }
      }
      if (t == t1) break;
      cur = j;
      r_ij = epos[64 * (long)e + 8 * a + b];
      r_ji = epos[64 * (long)e + 8 * b + a];
#pragma unroll
      for (int k = 0; k < 9; k++) acc[k] = 0.0;
    }
    double K = Kel[e];
    const double *xb = Xb + (a * 8 + b) * 9;
#pragma unroll
    for (int k = 0; k < 9; k++) acc[k] += K * xb[k];
    const double *s = st + e;
#pragma unroll 4
    for (int q = 0; q < 8; q++) {
      double mu = s[(long)(0 * 8 + q) * ne], gam = s[(long)(1 * 8 + q) * ne];
      double n0 = s[(long)(2 * 8 + q) * ne], n1 = s[(long)(3 * 8 + q) * ne], n2 = s[(long)(4 * 8 + q) * ne];
      double n3 = s[(long)(5 * 8 + q) * ne], n4 = s[(long)(6 * 8 + q) * ne], n5 = s[(long)(7 * 8 + q) * ne];
      const double *ga = gh + (a * 8 + q) * 3, *gb = gh + (b * 8 + q) * 3;
      double u0 = gam * (n0 * ga[0] + n3 * ga[1] + n4 * ga[2]);
      double u1 = gam * (n3 * ga[0] + n1 * ga[1] + n5 * ga[2]);
      double u2 = gam * (n4 * ga[0] + n5 * ga[1] + n2 * ga[2]);
      double w0 = n0 * gb[0] + n3 * gb[1] + n4 * gb[2];
      double w1 = n3 * gb[0] + n1 * gb[1] + n5 * gb[2];
      double w2 = n4 * gb[0] + n5 * gb[1] + n2 * gb[2];
      const double *z = Z + ((a * 8 + b) * 8 + q) * 9;
      double u[3] = {u0, u1, u2}, w[3] = {w0, w1, w2};
#pragma unroll
      for (int ii = 0; ii < 3; ii++)
#pragma unroll
        for (int jj = 0; jj < 3; jj++) acc[ii * 3 + jj] += mu * z[ii * 3 + jj] - u[ii] * w[jj];
    }
  }
}


/* Helpers of the thread-per-(row, element) kernels (k_rows, k_rows2, k_rows3). */

/* Thread (lr, k) of a block of 32 rows from i0: row i0 + lr's incidence k, if it has one. */
__device__ __forceinline__ void probe_incidence(int nn, const int *__restrict__ inc_ptr, const int *__restrict__ inc,
                                                int i, int k, int &has, int &e, int &a) {
  has = 0, e = 0, a = 0;
  if (i < nn) {
    int p = inc_ptr[i] + k;
    if (p < inc_ptr[i + 1]) has = 1, e = inc[p] >> 3, a = inc[p] & 7;
  }
}

/* Point q's state (mu, gam, n) of the element whose state starts at s (k_state's layout). */
__device__ __forceinline__ void load_state(const double *__restrict__ s, long ne, int q, double v[8]) {
#pragma unroll
  for (int c = 0; c < 8; c++) v[c] = s[(long)(c * 8 + q) * ne];
}

/* Point q's share of blocks (a, b0 .. b0 + NB - 1): mu Z - gam (N g_a)(N g_b)^T. */
template <int NB>
__device__ __forceinline__ void probe_point_blocks(const double cur[8], const double *__restrict__ gh,
                                                   const double *__restrict__ Z, int a, int q, int b0, double acc[NB][9]) {
  double mu = cur[0], gam = cur[1], n0 = cur[2], n1 = cur[3], n2 = cur[4], n3 = cur[5], n4 = cur[6], n5 = cur[7];
  const double *ga = gh + (a * 8 + q) * 3;
  double u[3] = {gam * (n0 * ga[0] + n3 * ga[1] + n4 * ga[2]), gam * (n3 * ga[0] + n1 * ga[1] + n5 * ga[2]),
                 gam * (n4 * ga[0] + n5 * ga[1] + n2 * ga[2])};
#pragma unroll
  for (int bb = 0; bb < NB; bb++) {
    int b = b0 + bb;
    const double *gb = gh + (b * 8 + q) * 3, *z = Z + ((a * 8 + b) * 8 + q) * 9;
    double w[3] = {n0 * gb[0] + n3 * gb[1] + n4 * gb[2], n3 * gb[0] + n1 * gb[1] + n5 * gb[2],
                   n4 * gb[0] + n5 * gb[1] + n2 * gb[2]};
#pragma unroll
    for (int ii = 0; ii < 3; ii++)
#pragma unroll
      for (int jj = 0; jj < 3; jj++) acc[bb][ii * 3 + jj] += mu * z[ii * 3 + jj] - u[ii] * w[jj];
  }
}

/* The NB blocks of each thread added into its row in shared memory, incidence k after incidence
 * k (a fixed order), at the row ranks given (column-major, as dt_bsr_block). */
template <int NB>
__device__ __forceinline__ void probe_rows_add(double *rowbuf, int lr, int k, int has, const int *rank,
                                               const double acc[NB][9]) {
  for (int kk = 0; kk < 8; kk++) {
    if (has && k == kk)
#pragma unroll
      for (int bb = 0; bb < NB; bb++) {
        double *o = rowbuf + (lr * 27 + rank[bb]) * 9;
#pragma unroll
        for (int ii = 0; ii < 3; ii++)
#pragma unroll
          for (int jj = 0; jj < 3; jj++) o[jj * 3 + ii] += acc[bb][ii * 3 + jj];
      }
    __syncthreads();
  }
}

/* Each warp writes 4 of the 32 rows, contiguously. */
__device__ __forceinline__ void probe_rows_write(const double *rowbuf, int nn, int i0, int k, int lr,
                                                 const int *__restrict__ brow_ptr, double *__restrict__ val) {
  for (int r = k * 4; r < k * 4 + 4; r++) {
    int row = i0 + r;
    if (row >= nn) break;
    int b0 = brow_ptr[row], nv = (brow_ptr[row + 1] - b0) * 9;
    for (int v = lr; v < nv; v += 32) val[(long)b0 * 9 + v] = rowbuf[r * 243 + v];
  }
}

/* A warp per incidence rank k (0..7) over 32 consecutive rows: thread (row i, k) forms block row
 * a of its element's matrix (all 8 blocks, half at a time) from the element's state, read once;
 * the 8 incidences of a row are added into the row's blocks in shared memory in k order (elements
 * ascending), then each row is written once, contiguously. */
__global__ void __launch_bounds__(256, 2) k_rows(int nn, const int *__restrict__ inc_ptr, const int *__restrict__ inc,
                                                  const int *__restrict__ brow_ptr, const int *__restrict__ epos,
                                                  const double *__restrict__ st, const double *__restrict__ Kel, long ne,
                                                  const double *__restrict__ gh, const double *__restrict__ Z,
                                                  const double *__restrict__ Xb, double *__restrict__ val) {
  extern __shared__ double rowbuf[]; /* 32 rows x 27 blocks x 9 */
  int lr = threadIdx.x & 31, k = threadIdx.x >> 5, i0 = blockIdx.x * 32, has, e, a;
  probe_incidence(nn, inc_ptr, inc, i0 + lr, k, has, e, a);
  int rank[8];
#pragma unroll
  for (int b = 0; b < 8; b++) rank[b] = has ? epos[64 * (long)e + 8 * a + b] : 0;
  for (int v = threadIdx.x; v < 32 * 243; v += 256) rowbuf[v] = 0.0;
  __syncthreads();
  const double *s = st + e;
  for (int half = 0; half < 2; half++) {
    double acc[4][9];
#pragma unroll
    for (int bb = 0; bb < 4; bb++)
#pragma unroll
      for (int v = 0; v < 9; v++) acc[bb][v] = 0.0;
    if (has) {
      double K = Kel[e];
#pragma unroll
      for (int bb = 0; bb < 4; bb++)
#pragma unroll
        for (int v = 0; v < 9; v++) acc[bb][v] = K * Xb[(a * 8 + half * 4 + bb) * 9 + v];
#pragma unroll 1
      for (int q = 0; q < 8; q++) {
        double cur[8];
        load_state(s, ne, q, cur);
        probe_point_blocks<4>(cur, gh, Z, a, q, half * 4, acc);
      }
    }
    probe_rows_add<4>(rowbuf, lr, k, has, rank + half * 4, acc);
  }
  probe_rows_write(rowbuf, nn, i0, k, lr, brow_ptr, val);
}


/* The class constants as a kernel parameter (25 kB; kernel parameters may hold 32 kB since
 * CUDA 12.1): with the element's local node A a template argument and the loops over points
 * and columns unrolled, every constant is an immediate operand of its multiply-add. Z and Xbar
 * are kept for the pairs a <= b (Z_ba = Z_ab^T). */
struct row_consts {
  double gh[8][8][3];
  double Z[36][8][9];
  double Xb[36][9];
};
__host__ __device__ constexpr int pair_index(int a, int b) { return a <= b ? a * 8 - a * (a - 1) / 2 + (b - a) : b * 8 - b * (b - 1) / 2 + (a - b); }

template <int A, int HALF>
__device__ __forceinline__ void row_blocks(const row_consts &c, const double *__restrict__ s, long ne, double K,
                                           double acc[4][9]) {
#pragma unroll
  for (int bb = 0; bb < 4; bb++) {
    const int b = HALF * 4 + bb, p = pair_index(A, b);
#pragma unroll
    for (int ii = 0; ii < 3; ii++)
#pragma unroll
      for (int jj = 0; jj < 3; jj++) acc[bb][ii * 3 + jj] = K * (A <= b ? c.Xb[p][ii * 3 + jj] : c.Xb[p][jj * 3 + ii]);
  }
#pragma unroll
  for (int q = 0; q < 8; q++) {
    double mu = s[(long)(0 * 8 + q) * ne], gam = s[(long)(1 * 8 + q) * ne];
    double n0 = s[(long)(2 * 8 + q) * ne], n1 = s[(long)(3 * 8 + q) * ne], n2 = s[(long)(4 * 8 + q) * ne];
    double n3 = s[(long)(5 * 8 + q) * ne], n4 = s[(long)(6 * 8 + q) * ne], n5 = s[(long)(7 * 8 + q) * ne];
    const double *ga = c.gh[A][q];
    double u[3] = {gam * (n0 * ga[0] + n3 * ga[1] + n4 * ga[2]), gam * (n3 * ga[0] + n1 * ga[1] + n5 * ga[2]),
                   gam * (n4 * ga[0] + n5 * ga[1] + n2 * ga[2])};
#pragma unroll
    for (int bb = 0; bb < 4; bb++) {
      const int b = HALF * 4 + bb, p = pair_index(A, b);
      const double *gb = c.gh[b][q];
      double w[3] = {n0 * gb[0] + n3 * gb[1] + n4 * gb[2], n3 * gb[0] + n1 * gb[1] + n5 * gb[2],
                     n4 * gb[0] + n5 * gb[1] + n2 * gb[2]};
#pragma unroll
      for (int ii = 0; ii < 3; ii++)
#pragma unroll
        for (int jj = 0; jj < 3; jj++)
          acc[bb][ii * 3 + jj] += mu * (A <= b ? c.Z[p][q][ii * 3 + jj] : c.Z[p][q][jj * 3 + ii]) - u[ii] * w[jj];
    }
  }
}
template <int HALF>
__device__ __forceinline__ void row_blocks_any(int a, const row_consts &c, const double *s, long ne, double K,
                                               double acc[4][9]) {
  switch (a) {
  case 0: row_blocks<0, HALF>(c, s, ne, K, acc); break;
  case 1: row_blocks<1, HALF>(c, s, ne, K, acc); break;
  case 2: row_blocks<2, HALF>(c, s, ne, K, acc); break;
  case 3: row_blocks<3, HALF>(c, s, ne, K, acc); break;
  case 4: row_blocks<4, HALF>(c, s, ne, K, acc); break;
  case 5: row_blocks<5, HALF>(c, s, ne, K, acc); break;
  case 6: row_blocks<6, HALF>(c, s, ne, K, acc); break;
  default: row_blocks<7, HALF>(c, s, ne, K, acc); break;
  }
}

__global__ void __launch_bounds__(256, 2) k_rows2(int nn, const int *__restrict__ inc_ptr, const int *__restrict__ inc,
                                                   const int *__restrict__ brow_ptr, const int *__restrict__ epos,
                                                   const double *__restrict__ st, const double *__restrict__ Kel, long ne,
                                                   const __grid_constant__ row_consts c, double *__restrict__ val) {
  extern __shared__ double rowbuf[]; /* 32 rows x 27 blocks x 9 */
  int lr = threadIdx.x & 31, k = threadIdx.x >> 5, i0 = blockIdx.x * 32, has, e, a;
  probe_incidence(nn, inc_ptr, inc, i0 + lr, k, has, e, a);
  int rank[8];
#pragma unroll
  for (int b = 0; b < 8; b++) rank[b] = has ? epos[64 * (long)e + 8 * a + b] : 0;
  double K = has ? Kel[e] : 0.0;
  for (int v = threadIdx.x; v < 32 * 243; v += 256) rowbuf[v] = 0.0;
  __syncthreads();
  const double *s = st + e;
#pragma unroll
  for (int half = 0; half < 2; half++) {
    double acc[4][9];
    if (has) {
      if (half == 0) row_blocks_any<0>(a, c, s, ne, K, acc);
      else row_blocks_any<1>(a, c, s, ne, K, acc);
    }
    probe_rows_add<4>(rowbuf, lr, k, has, rank + half * 4, acc);
  }
  probe_rows_write(rowbuf, nn, i0, k, lr, brow_ptr, val);
}


/* k_rows with the next point's state loaded while the current one is used (the loads of a
 * point otherwise wait for L2 with only 4 warps per scheduler) and the ranks read before the
 * arithmetic. */
template <int NB>
__global__ void __launch_bounds__(256, 2) k_rows3(int nn, const int *__restrict__ inc_ptr, const int *__restrict__ inc,
                                                   const int *__restrict__ brow_ptr, const int *__restrict__ epos,
                                                   const double *__restrict__ st, const double *__restrict__ Kel, long ne,
                                                   const double *__restrict__ gh, const double *__restrict__ Z,
                                                   const double *__restrict__ Xb, double *__restrict__ val) {
  extern __shared__ double rowbuf[]; /* 32 rows x 27 blocks x 9 */
  int lr = threadIdx.x & 31, k = threadIdx.x >> 5, i0 = blockIdx.x * 32, has, e, a;
  probe_incidence(nn, inc_ptr, inc, i0 + lr, k, has, e, a);
  int rank[8];
#pragma unroll
  for (int b = 0; b < 8; b++) rank[b] = has ? epos[64 * (long)e + 8 * a + b] : 0;
  double K = has ? Kel[e] : 0.0;
  for (int v = threadIdx.x; v < 32 * 243; v += 256) rowbuf[v] = 0.0;
  __syncthreads();
  const double *s = st + e;
#pragma unroll 1
  for (int part = 0; part < 8 / NB; part++) {
    double acc[NB][9];
#pragma unroll
    for (int bb = 0; bb < NB; bb++)
#pragma unroll
      for (int v = 0; v < 9; v++) acc[bb][v] = K * Xb[(a * 8 + part * NB + bb) * 9 + v];
    if (has) {
      double cur[8], nxt[8];
      load_state(s, ne, 0, cur);
#pragma unroll 1
      for (int q = 0; q < 8; q++) {
        if (q < 7) load_state(s, ne, q + 1, nxt);
        probe_point_blocks<NB>(cur, gh, Z, a, q, part * NB, acc);
#pragma unroll
        for (int c = 0; c < 8; c++) cur[c] = nxt[c];
      }
    }
    probe_rows_add<NB>(rowbuf, lr, k, has, rank + part * NB, acc);
  }
  probe_rows_write(rowbuf, nn, i0, k, lr, brow_ptr, val);
}


/* A warp per block row on the FP64 tensor cores. For one class (gradients g_b^q constant), the
 * blocks (a_p, b) of the row's incident elements p (up to 8 at a time) are
 *   K_p[a_p, b]_ij = sum_(q,k) C_p[ij][(q,k)] g_b^q[k],
 *   C_p[ij][(q,k)] = wJ_q [mu d_ik ga_j + (K - 2/3 mu) ga_i d_jk + mu d_ij ga_k - gam (N ga)_i N_jk]
 * (ga = g_(a_p)^q; the tangent form written out), so for each ij a GEMM of the 8 x 24 matrix
 * C[ij] with the 24 x 8 constant matrix G: 9 tiles of mma.m8n8k4 over 6 steps of k. Lane 4p + c
 * holds C_p[ij][4s + c], the A fragment, and G[4s + c][p], the B fragment; the D fragment gives
 * lane 4p + c the blocks (p, 2c) and (p, 2c + 1). Each point's mu, gam, N and u = gam N ga are
 * formed once per element and point (lane c: points c, c + 4) into shared memory. */
__device__ __forceinline__ void dmma_f64(double &d0, double &d1, double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
}
/* One point's terms of C (all times wJ): mu g_a, (K - 2/3 mu) g_a and u = gam N g_a. */
__device__ __forceinline__ void probe_point_terms(double K, double mu, double gam, const double n[6], const double *ga,
                                                  double wj, double mga[3], double kga[3], double u[3]) {
  double m = wj * mu, kk = wj * (K - 2.0 / 3.0 * mu), gg = wj * gam;
  for (int k = 0; k < 3; k++) mga[k] = m * ga[k], kga[k] = kk * ga[k];
  u[0] = gg * (n[0] * ga[0] + n[3] * ga[1] + n[4] * ga[2]);
  u[1] = gg * (n[3] * ga[0] + n[1] * ga[1] + n[5] * ga[2]);
  u[2] = gg * (n[4] * ga[0] + n[5] * ga[1] + n[2] * ga[2]);
}

/* C[ij][(q, k)] of a point from its terms (n in Voigt order xx yy zz xy xz yz). */
__device__ __forceinline__ double probe_cv(const double u[3], const double n[6], const double mga[3], const double kga[3],
                                           int ii, int jj, int k) {
  const int vo[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
  double cv = -u[ii] * n[vo[jj][k]];
  if (ii == k) cv += mga[jj];
  if (jj == k) cv += kga[ii];
  if (ii == jj) cv += mga[k];
  return cv;
}

/* The blocks (p, 2c), (p, 2c + 1) of lane 4p + c staged at sb (9 doubles a block, column-major)
 * over the warp's dead scratch, and for each pair the rank in the row of each of its columns
 * (inv[pair][rank]: the column, -1: none; pos: the pair's 8 positions). Ends with __syncwarp. */
__device__ __forceinline__ void probe_stage(double *sb, signed char (*inv)[32], const double acc[9][2], int T,
                                            int valid, const int *pos) {
  int p = T >> 2, c = T & 3;
  double *b = sb + (p * 8 + 2 * c) * 9;
#pragma unroll
  for (int ii = 0; ii < 3; ii++)
#pragma unroll
    for (int jj = 0; jj < 3; jj++) b[jj * 3 + ii] = acc[ii * 3 + jj][0], b[9 + jj * 3 + ii] = acc[ii * 3 + jj][1];
  for (int pp = 0; pp < 8; pp++) inv[pp][T] = -1;
  __syncwarp();
  if (valid) {
    inv[p][pos[2 * c]] = (signed char)(2 * c);
    inv[p][pos[2 * c + 1]] = (signed char)(2 * c + 1);
  }
  __syncwarp();
}

/* Lane T adds block T of the row over the pairs in order. */
__device__ __forceinline__ void probe_sum(const double *sb, signed char (*inv)[32], int T, double out[9]) {
  for (int pp = 0; pp < 8; pp++) {
    int bcol = inv[pp][T];
    if (bcol >= 0) {
      const double *src = sb + (pp * 8 + bcol) * 9;
#pragma unroll
      for (int v = 0; v < 9; v++) out[v] += src[v];
    }
  }
}

#define MMA_WARPS 4
struct mma_point { double mga[3], kga[3], u[3], n[6], pad[2]; }; /* 17 doubles: point-major rows hit distinct banks */
template <int SKIP>
__global__ void __launch_bounds__(32 * MMA_WARPS, 4) k_rows_mma(int nn, const int *__restrict__ inc_ptr, const int *__restrict__ inc,
                                                   const int *__restrict__ brow_ptr, const int *__restrict__ epos,
                                                   const double *__restrict__ tan_t, const double *__restrict__ sig_t,
                                                   long nqp, const double *__restrict__ G, const double *__restrict__ wJ,
                                                   double *__restrict__ val) {
  __shared__ mma_point pts[MMA_WARPS][8][8]; /* [warp][point][pair] */
  __shared__ signed char inv[MMA_WARPS][8][32]; /* [pair][rank]: the pair's column at that rank, -1: none */
  int w = threadIdx.x >> 5, T = threadIdx.x & 31, p = T >> 2, c = T & 3;
  int i = blockIdx.x * MMA_WARPS + w;
  if (i >= nn) return;
  int i0 = inc_ptr[i], cnt = inc_ptr[i + 1] - i0;
  double out[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}; /* block T of the row */
  for (int ch = 0; ch < cnt; ch += 8) {
    int valid = ch + p < cnt, e = 0, a = 0;
    if (valid) e = inc[i0 + ch + p] >> 3, a = inc[i0 + ch + p] & 7;
    /* 1. each (element, point): the terms of C */
    for (int h = 0; h < 2; h++) {
      int q = c + 4 * h;
      long qp = (long)e * 8 + q;
      mma_point &P = pts[w][q][p];
      double K = 0, mu = 0, gam = 0;
      if (valid && !(SKIP & 1)) K = tan_t[qp], mu = tan_t[nqp + qp], gam = tan_t[2 * nqp + qp];
      if (SKIP & 1) K = 1.0 + e, mu = 0.5, gam = 0.0;
      double n[6] = {0, 0, 0, 0, 0, 0};
      if (gam != 0.0) {
        double sg[6];
        for (int k = 0; k < 6; k++) sg[k] = sig_t[k * nqp + qp];
        if (SKIP & 8)
          for (int k = 0; k < 6; k++) n[k] = sg[k];
        else
          probe_flow(sg, n);
      }
      probe_point_terms(K, mu, gam, n, G + (a * 8 + q) * 3, wJ[q], P.mga, P.kga, P.u);
      for (int k = 0; k < 6; k++) P.n[k] = n[k];
    }
    __syncwarp();
    /* 2. the GEMMs */
    double acc[9][2];
#pragma unroll
    for (int v = 0; v < 9; v++) acc[v][0] = acc[v][1] = 0.0;
#pragma unroll
    for (int st = 0; st < 6; st++) {
      int idx = 4 * st + c, q = idx / 3, k = idx - 3 * q;
      const mma_point &P = pts[w][q][p];
      double bval = G[(p * 8 + q) * 3 + k]; /* B[idx][p] = g_p^q[k]: column p of G is node b = p */
#pragma unroll
      for (int ii = 0; ii < 3; ii++)
#pragma unroll
        for (int jj = 0; jj < 3; jj++) {
          double cv = probe_cv(P.u, P.n, P.mga, P.kga, ii, jj, k);
          if (SKIP & 2) acc[ii * 3 + jj][0] += cv * bval;
          else dmma_f64(acc[ii * 3 + jj][0], acc[ii * 3 + jj][1], cv, bval);
        }
    }
    __syncwarp();
    /* 3. the blocks staged over the (dead) points, and for each pair the column each rank of
     * the row takes from it; then lane r sums block r of the row over the pairs in order */
    probe_stage((double *)pts[w], inv[w], acc, T, valid, epos + 64 * (long)e + 8 * a);
    if (!(SKIP & 4))
      probe_sum((const double *)pts[w], inv[w], T, out);
    __syncwarp();
  }
  int b0 = brow_ptr[i], nb = brow_ptr[i + 1] - b0;
  if (T < nb)
#pragma unroll
    for (int v = 0; v < 9; v++) val[((long)b0 + T) * 9 + v] = out[v];

}

/* k_rows_mma with the A fragments formed in the point phase: each lane writes the 27 values
 * C[ij][(q,k)] of its two points where the lane that feeds them to the mma reads them, so a
 * step is 9 loads and 9 mma (no selects, no recomputation per step). */
#define MMA_WARPS_C 3
__global__ void __launch_bounds__(32 * MMA_WARPS_C, 5) k_rows_mma_c(int nn, const int *__restrict__ inc_ptr, const int *__restrict__ inc,
                                                   const int *__restrict__ brow_ptr, const int *__restrict__ epos,
                                                   const double *__restrict__ tan_t, const double *__restrict__ sig_t,
                                                   long nqp, const double *__restrict__ G, const double *__restrict__ wJ,
                                                   double *__restrict__ val) {
  __shared__ double Cs[MMA_WARPS_C][6][9][32]; /* [warp][step][ij][lane]: the A fragments */
  __shared__ signed char inv[MMA_WARPS_C][8][32]; /* [pair][rank]: the pair's column at that rank, -1: none */
  int w = threadIdx.x >> 5, T = threadIdx.x & 31, p = T >> 2, c = T & 3;
  int i = blockIdx.x * MMA_WARPS_C + w;
  if (i >= nn) return;
  int i0 = inc_ptr[i], cnt = inc_ptr[i + 1] - i0;
  double out[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}; /* block T of the row */
  for (int ch = 0; ch < cnt; ch += 8) {
    int valid = ch + p < cnt, e = 0, a = 0;
    if (valid) e = inc[i0 + ch + p] >> 3, a = inc[i0 + ch + p] & 7;
    /* 1. each (element, point): the terms of C */
    for (int h = 0; h < 2; h++) {
      int q = c + 4 * h;
      long qp = (long)e * 8 + q;
      double K = 0, mu = 0, gam = 0;
      if (valid) K = tan_t[qp], mu = tan_t[nqp + qp], gam = tan_t[2 * nqp + qp];
      double n[6] = {0, 0, 0, 0, 0, 0};
      if (gam != 0.0) {
        double sg[6];
        for (int k = 0; k < 6; k++) sg[k] = sig_t[k * nqp + qp];
        probe_flow(sg, n);
      }
      double mga[3], kga[3], u[3];
      probe_point_terms(K, mu, gam, n, G + (a * 8 + q) * 3, wJ[q], mga, kga, u);
#pragma unroll
      for (int k = 0; k < 3; k++) {
        int idx = 3 * q + k, st = idx >> 2, slot = 4 * p + (idx & 3);
#pragma unroll
        for (int ii = 0; ii < 3; ii++)
#pragma unroll
          for (int jj = 0; jj < 3; jj++) Cs[w][st][ii * 3 + jj][slot] = probe_cv(u, n, mga, kga, ii, jj, k);
      }
    }
    __syncwarp();
    /* 2. the GEMMs */
    double acc[9][2];
#pragma unroll
    for (int v = 0; v < 9; v++) acc[v][0] = acc[v][1] = 0.0;
#pragma unroll
    for (int st = 0; st < 6; st++) {
      int idx = 4 * st + c, q = idx / 3, k = idx - 3 * q;
      double bval = G[(p * 8 + q) * 3 + k]; /* B[idx][p] = g_p^q[k] */
#pragma unroll
      for (int v = 0; v < 9; v++) dmma_f64(acc[v][0], acc[v][1], Cs[w][st][v][T], bval);
    }
    __syncwarp();
    /* 3. the blocks staged over the (dead) points, and for each pair the column each rank of
     * the row takes from it; then lane r sums block r of the row over the pairs in order */
    probe_stage((double *)Cs[w], inv[w], acc, T, valid, epos + 64 * (long)e + 8 * a);
    probe_sum((const double *)Cs[w], inv[w], T, out);
    __syncwarp();
  }
  int b0 = brow_ptr[i], nb = brow_ptr[i + 1] - b0;
  if (T < nb)
#pragma unroll
    for (int v = 0; v < 9; v++) val[((long)b0 + T) * 9 + v] = out[v];

}

/* k_rows_mma_c in two halves of the points (A fragments for 3 steps at a time: half the shared
 * memory, twice the warps) with both points' state loaded first. */
#define MMA_WARPS_H 4
#ifndef MINB_H
#define MINB_H 5
#endif
__global__ void __launch_bounds__(32 * MMA_WARPS_H, MINB_H) k_rows_mma_h(int nn, const int *__restrict__ inc_ptr, const int *__restrict__ inc,
                                                   const int *__restrict__ brow_ptr, const int *__restrict__ epos,
                                                   const double *__restrict__ tan_t, const double *__restrict__ sig_t,
                                                   long nqp, const double *__restrict__ G, const double *__restrict__ wJ,
                                                   double *__restrict__ val) {
  __shared__ double Cs[MMA_WARPS_H][3][9][32]; /* [warp][step][ij][lane]: the A fragments */
  __shared__ signed char inv[MMA_WARPS_H][8][32]; /* [pair][rank]: the pair's column at that rank, -1: none */
  int w = threadIdx.x >> 5, T = threadIdx.x & 31, p = T >> 2, c = T & 3;
  int i = blockIdx.x * MMA_WARPS_H + w;
  if (i >= nn) return;
  int i0 = inc_ptr[i], cnt = inc_ptr[i + 1] - i0;
  double out[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}; /* block T of the row */
  for (int ch = 0; ch < cnt; ch += 8) {
    int valid = ch + p < cnt, e = 0, a = 0;
    if (valid) e = inc[i0 + ch + p] >> 3, a = inc[i0 + ch + p] & 7;
    /* the raw state of both points first: one wait for memory per chunk */
    double raw[2][9];
#pragma unroll
    for (int hh = 0; hh < 2; hh++) {
      long qp = (long)e * 8 + c + 4 * hh;
#pragma unroll
      for (int k = 0; k < 3; k++) raw[hh][k] = valid ? tan_t[k * nqp + qp] : 0.0;
#pragma unroll
      for (int k = 0; k < 6; k++) raw[hh][3 + k] = valid ? sig_t[k * nqp + qp] : 0.0;
    }
    double acc[9][2];
#pragma unroll
    for (int v = 0; v < 9; v++) acc[v][0] = acc[v][1] = 0.0;
#pragma unroll
    for (int h = 0; h < 2; h++) {
      /* 1. point c + 4h of each element: the A fragments of steps 3h .. 3h + 2 */
      int q = c + 4 * h;
      double K = raw[h][0], mu = raw[h][1], gam = raw[h][2];
      double n[6] = {0, 0, 0, 0, 0, 0};
      if (gam != 0.0) probe_flow(&raw[h][3], n);
      double mga[3], kga[3], u[3];
      probe_point_terms(K, mu, gam, n, G + (a * 8 + q) * 3, wJ[q], mga, kga, u);
#pragma unroll
      for (int k = 0; k < 3; k++) {
        int idx = 3 * q + k, st = idx >> 2, slot = 4 * p + (idx & 3);
#pragma unroll
        for (int ii = 0; ii < 3; ii++)
#pragma unroll
          for (int jj = 0; jj < 3; jj++) Cs[w][st - 3 * h][ii * 3 + jj][slot] = probe_cv(u, n, mga, kga, ii, jj, k);
      }
      __syncwarp();
      /* 2. the GEMM steps of this half */
#pragma unroll
      for (int s3 = 0; s3 < 3; s3++) {
        int st = 3 * h + s3, idx = 4 * st + c, q2 = idx / 3, k2 = idx - 3 * q2;
        double bval = G[(p * 8 + q2) * 3 + k2]; /* B[idx][p] = g_p^q[k] */
#pragma unroll
        for (int v = 0; v < 9; v++) dmma_f64(acc[v][0], acc[v][1], Cs[w][s3][v][T], bval);
      }
      __syncwarp();
    }
    /* 3. the blocks staged over the (dead) points, and for each pair the column each rank of
     * the row takes from it; then lane r sums block r of the row over the pairs in order */
    probe_stage((double *)Cs[w], inv[w], acc, T, valid, epos + 64 * (long)e + 8 * a);
    probe_sum((const double *)Cs[w], inv[w], T, out);
    __syncwarp();
  }
  int b0 = brow_ptr[i], nb = brow_ptr[i + 1] - b0;
#ifndef ROW_DIRECT
  /* the row through shared memory, written with consecutive lanes on consecutive values */
  double *rs = (double *)Cs[w];
  if (T < nb)
#pragma unroll
    for (int v = 0; v < 9; v++) rs[T * 9 + v] = out[v];
  __syncwarp();
  for (int v = T; v < nb * 9; v += 32) val[(long)b0 * 9 + v] = rs[v];
#else
  if (T < nb)
#pragma unroll
    for (int v = 0; v < 9; v++) val[((long)b0 + T) * 9 + v] = out[v];
#endif
}

/* host reference: the element blocks from the direct formula, added into BSR */
static void reference(const Mesh &m, const std::vector<double> &g, double wJ, const std::vector<double> &tan_t,
                      const std::vector<double> &sig_t, std::vector<double> &ref) {
  long nqp = (long)m.ne * 8;
  ref.assign((size_t)m.brow_ptr[m.nn] * 9, 0.0);
  for (int e = 0; e < m.ne; e++)
    for (int q = 0; q < 8; q++) {
      long qp = (long)e * 8 + q;
      double K = tan_t[qp], mu = tan_t[nqp + qp], gam = tan_t[2 * nqp + qp], n[6] = {0, 0, 0, 0, 0, 0};
      if (gam != 0) {
        double s[6];
        for (int k = 0; k < 6; k++) s[k] = sig_t[k * nqp + qp];
        probe_flow(s, n);
      }
      double sk = wJ * (K - 2.0 / 3.0 * mu), sm = wJ * mu, sg = wJ * gam;
      for (int A = 0; A < 8; A++)
        for (int B = 0; B < 8; B++) {
          const double *gA = &g[(A * 8 + q) * 3], *gB = &g[(B * 8 + q) * 3];
          double wA[3] = {n[0] * gA[0] + n[3] * gA[1] + n[4] * gA[2], n[3] * gA[0] + n[1] * gA[1] + n[5] * gA[2],
                          n[4] * gA[0] + n[5] * gA[1] + n[2] * gA[2]};
          double wB[3] = {n[0] * gB[0] + n[3] * gB[1] + n[4] * gB[2], n[3] * gB[0] + n[1] * gB[1] + n[5] * gB[2],
                          n[4] * gB[0] + n[5] * gB[1] + n[2] * gB[2]};
          double dot = gA[0] * gB[0] + gA[1] * gB[1] + gA[2] * gB[2];
          int i = m.conn[8 * (size_t)e + A];
          double *o = &ref[((size_t)m.brow_ptr[i] + m.epos[64 * (size_t)e + 8 * A + B]) * 9];
          for (int ii = 0; ii < 3; ii++)
            for (int jj = 0; jj < 3; jj++)
              o[jj * 3 + ii] += sk * gA[ii] * gB[jj] + sm * gA[jj] * gB[ii] + (ii == jj ? sm * dot : 0) - sg * wA[ii] * wB[jj];
        }
    }
}

static double urand(unsigned long long &s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(s >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv) {
  int sizes[5] = {48, 60, 76, 96, 115};
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  /* copy bandwidth as ductile-bench measures it: read + write of a large copy */
  double bw = 0;
  {
    size_t nb = (size_t)1 << 30;
    void *a, *b;
    CK(cudaMalloc(&a, nb));
    CK(cudaMalloc(&b, nb));
    CK(cudaMemset(a, 0, nb));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    float best = 1e30f;
    for (int r = 0; r < 5; r++) {
      cudaEventRecord(e0);
      CK(cudaMemcpy(b, a, nb, cudaMemcpyDeviceToDevice));
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      best = std::min(best, ms);
    }
    bw = 2.0 * nb / (best * 1e-3);
    cudaFree(a), cudaFree(b);
  }
  printf("copy bandwidth %.2f TB/s\n", bw / 1e12);
  int first = argc > 1 ? atoi(argv[1]) : 0, last = argc > 2 ? atoi(argv[2]) : 4; /* meshes C1 .. C5: 0 .. 4 */
  int vfirst = argc > 3 ? atoi(argv[3]) : 13, vlast = argc > 4 ? atoi(argv[4]) : vfirst; /* variants */
  for (int mi = first; mi <= last; mi++) {
    Mesh m;
    build(m, sizes[mi]);
    long nqp = (long)m.ne * 8, nblocks = m.brow_ptr[m.nn];
    std::vector<double> gh, Z, Xb, g;
    double wJ;
    constants(1.0 / m.n, gh, Z, Xb, g, wJ);
    unsigned long long seed = 12345 + mi;
    std::vector<double> tan_t(3 * nqp), sig_t(6 * nqp);
    double Kb = 200e3 / (3 * (1 - 0.6)), G = 200e3 / 2.6;
    for (long qp = 0; qp < nqp; qp++) {
      tan_t[qp] = Kb;
      tan_t[nqp + qp] = G * (0.5 + 0.5 * urand(seed));
      tan_t[2 * nqp + qp] = 2 * G * 0.4 * urand(seed);
      for (int k = 0; k < 6; k++) sig_t[k * nqp + qp] = 800 * (urand(seed) - 0.5);
    }
    int *d_item_ptr, *d_items, *d_conn, *d_brow, *d_epos, *d_inc_ptr, *d_inc;
    double *d_tan, *d_sig, *d_st, *d_K, *d_gh, *d_Z, *d_Xb, *d_val;
    CK(cudaMalloc(&d_item_ptr, sizeof(int) * (m.nn + 1)));
    CK(cudaMalloc(&d_items, sizeof(int) * m.items.size()));
    CK(cudaMalloc(&d_conn, sizeof(int) * m.conn.size()));
    CK(cudaMalloc(&d_brow, sizeof(int) * (m.nn + 1)));
    CK(cudaMalloc(&d_epos, sizeof(int) * m.epos.size()));
    CK(cudaMalloc(&d_inc_ptr, sizeof(int) * (m.nn + 1)));
    CK(cudaMalloc(&d_inc, sizeof(int) * m.inc.size()));
    CK(cudaMemcpy(d_inc_ptr, m.inc_ptr.data(), sizeof(int) * (m.nn + 1), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_inc, m.inc.data(), sizeof(int) * m.inc.size(), cudaMemcpyHostToDevice));
    CK(cudaMalloc(&d_tan, sizeof(double) * 3 * nqp));
    CK(cudaMalloc(&d_sig, sizeof(double) * 6 * nqp));
    CK(cudaMalloc(&d_st, sizeof(double) * 8 * nqp));
    CK(cudaMalloc(&d_K, sizeof(double) * m.ne));
    CK(cudaMalloc(&d_gh, sizeof(double) * gh.size()));
    CK(cudaMalloc(&d_Z, sizeof(double) * Z.size()));
    CK(cudaMalloc(&d_Xb, sizeof(double) * Xb.size()));
    CK(cudaMalloc(&d_val, sizeof(double) * 9 * nblocks));
    CK(cudaMemcpy(d_item_ptr, m.item_ptr.data(), sizeof(int) * (m.nn + 1), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_items, m.items.data(), sizeof(int) * m.items.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_conn, m.conn.data(), sizeof(int) * m.conn.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_brow, m.brow_ptr.data(), sizeof(int) * (m.nn + 1), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_epos, m.epos.data(), sizeof(int) * m.epos.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_tan, tan_t.data(), sizeof(double) * 3 * nqp, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_sig, sig_t.data(), sizeof(double) * 6 * nqp, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_gh, gh.data(), sizeof(double) * gh.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_Z, Z.data(), sizeof(double) * Z.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_Xb, Xb.data(), sizeof(double) * Xb.size(), cudaMemcpyHostToDevice));
    size_t smem = sizeof(double) * (192 + 4608 + 576);
    CK(cudaFuncSetAttribute(k_gather<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    size_t smem_rows = sizeof(double) * 32 * 243;
    CK(cudaFuncSetAttribute(k_rows2, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_rows));
    CK(cudaFuncSetAttribute(k_rows3<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_rows));
    CK(cudaFuncSetAttribute(k_rows3<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_rows));
    double *d_G, *d_wJ;
    std::vector<double> wJv(8, wJ);
    CK(cudaMalloc(&d_G, sizeof(double) * g.size()));
    CK(cudaMalloc(&d_wJ, sizeof(double) * 8));
    CK(cudaMemcpy(d_G, g.data(), sizeof(double) * g.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_wJ, wJv.data(), sizeof(double) * 8, cudaMemcpyHostToDevice));
    row_consts rc;
    for (int k = 0; k < 192; k++) (&rc.gh[0][0][0])[k] = gh[k];
    for (int a = 0; a < 8; a++)
      for (int b = a; b < 8; b++) {
        for (int q = 0; q < 8; q++)
          for (int v = 0; v < 9; v++) rc.Z[pair_index(a, b)][q][v] = Z[((a * 8 + b) * 8 + q) * 9 + v];
        for (int v = 0; v < 9; v++) rc.Xb[pair_index(a, b)][v] = Xb[(a * 8 + b) * 9 + v];
      }
    CK(cudaFuncSetAttribute(k_rows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_rows));
    double floor_s = (8.0 * 9 * nblocks + 104.0 * nqp + 288.0 * m.ne + 48.0 * m.nn) / bw;
    std::vector<double> ref;
    if (mi == 0) reference(m, g, wJ, tan_t, sig_t, ref);
    for (int variant = vfirst; variant <= vlast; variant++) {
      CK(cudaMemset(d_val, 0xff, sizeof(double) * 9 * nblocks)); /* NaN: every value must be written */
      cudaEvent_t e0, e1, e2;
      cudaEventCreate(&e0), cudaEventCreate(&e1), cudaEventCreate(&e2);
      std::vector<float> t_state, t_gather;
      for (int r = 0; r < 6; r++) {
        cudaEventRecord(e0);
        k_state<<<(int)((nqp + 255) / 256), 256>>>(m.ne, nqp, d_tan, d_sig, d_st, d_K);
        cudaEventRecord(e1);
        if (variant == 13)
          k_rows_mma_h<<<(m.nn + MMA_WARPS_H - 1) / MMA_WARPS_H, 32 * MMA_WARPS_H>>>(m.nn, d_inc_ptr, d_inc, d_brow, d_epos, d_tan,
                                                                                  d_sig, nqp, d_G, d_wJ, d_val);
        else if (variant == 12)
          k_rows_mma_c<<<(m.nn + MMA_WARPS_C - 1) / MMA_WARPS_C, 32 * MMA_WARPS_C>>>(m.nn, d_inc_ptr, d_inc, d_brow, d_epos, d_tan,
                                                                                  d_sig, nqp, d_G, d_wJ, d_val);
        else if (variant >= 7)
          (variant == 7 ? &k_rows_mma<1> : variant == 8 ? &k_rows_mma<2> : variant == 9 ? &k_rows_mma<4> : variant == 11 ? &k_rows_mma<8> : &k_rows_mma<7>)<<<(m.nn + MMA_WARPS - 1) / MMA_WARPS, 32 * MMA_WARPS>>>(m.nn, d_inc_ptr, d_inc, d_brow, d_epos, d_tan,
                                                                              d_sig, nqp, d_G, d_wJ, d_val);
        else if (variant == 6)
          k_rows_mma<0><<<(m.nn + MMA_WARPS - 1) / MMA_WARPS, 32 * MMA_WARPS>>>(m.nn, d_inc_ptr, d_inc, d_brow, d_epos, d_tan,
                                                                              d_sig, nqp, d_G, d_wJ, d_val);
        else if (variant == 4)
          k_rows3<4><<<(m.nn + 31) / 32, 256, smem_rows>>>(m.nn, d_inc_ptr, d_inc, d_brow, d_epos, d_st, d_K, m.ne, d_gh,
                                                           d_Z, d_Xb, d_val);
        else if (variant == 5)
          k_rows3<2><<<(m.nn + 31) / 32, 256, smem_rows>>>(m.nn, d_inc_ptr, d_inc, d_brow, d_epos, d_st, d_K, m.ne, d_gh,
                                                           d_Z, d_Xb, d_val);
        else if (variant == 3)
          k_rows2<<<(m.nn + 31) / 32, 256, smem_rows>>>(m.nn, d_inc_ptr, d_inc, d_brow, d_epos, d_st, d_K, m.ne, rc, d_val);
        else if (variant == 2)
          k_rows<<<(m.nn + 31) / 32, 256, smem_rows>>>(m.nn, d_inc_ptr, d_inc, d_brow, d_epos, d_st, d_K, m.ne, d_gh, d_Z,
                                                       d_Xb, d_val);
        else if (variant == 0)
          k_gather<false><<<(m.nn + 127) / 128, 128>>>(m.nn, d_item_ptr, d_items, d_conn, d_brow, d_epos, d_st, d_K,
                                                       m.ne, d_gh, d_Z, d_Xb, d_val);
        else
          k_gather<true><<<(m.nn + 127) / 128, 128, smem>>>(m.nn, d_item_ptr, d_items, d_conn, d_brow, d_epos, d_st,
                                                            d_K, m.ne, d_gh, d_Z, d_Xb, d_val);
        cudaEventRecord(e2);
        CK(cudaEventSynchronize(e2));
        CK(cudaGetLastError());
        float a, b;
        cudaEventElapsedTime(&a, e0, e1);
        cudaEventElapsedTime(&b, e1, e2);
        t_state.push_back(a), t_gather.push_back(b);
      }
      std::sort(t_state.begin() + 1, t_state.end());
      std::sort(t_gather.begin() + 1, t_gather.end());
      double ts = variant >= 6 ? 0.0 : t_state[3] * 1e-3, tg = t_gather[3] * 1e-3;
      std::vector<double> val(9 * nblocks);
      CK(cudaMemcpy(val.data(), d_val, sizeof(double) * 9 * nblocks, cudaMemcpyDeviceToHost));
      long nan = 0;
      for (double v : val) nan += std::isnan(v);
      double err = -1;
      if (!ref.empty()) {
        double mx = 0, d = 0;
        for (size_t k = 0; k < val.size(); k++) mx = std::max(mx, fabs(ref[k])), d = std::max(d, fabs(ref[k] - val[k]));
        err = d / mx;
      }
      cudaFuncAttributes fa;
      CK(cudaFuncGetAttributes(&fa, variant == 13 ? (const void *)k_rows_mma_h : variant == 12 ? (const void *)k_rows_mma_c : variant == 6 ? (const void *)k_rows_mma<0> : variant == 4 ? (const void *)k_rows3<4> : variant == 5 ? (const void *)k_rows3<2> : variant == 3 ? (const void *)k_rows2 : variant == 2 ? (const void *)k_rows : variant ? (const void *)k_gather<true> : (const void *)k_gather<false>));
      printf("C%d n=%d %s: state %.3f ms, gather %.3f ms, total %.3f ms, floor %.3f ms -> %.2fx  (regs %d, "
             "local %zu B; unwritten %ld; max rel err vs host %.2e)\n",
             mi + 1, m.n, variant == 13 ? "rows on tensor cores, A staged by halves" : variant == 12 ? "rows on tensor cores, A staged" : variant == 7 ? "(timing) no state loads, no flow direction" : variant == 8 ? "(timing) no mma" : variant == 9 ? "(timing) no row sums" : variant == 10 ? "(timing) none of the three" : variant == 11 ? "(timing) n given, no flow direction" : variant == 6 ? "rows on tensor cores (no pre-pass)" : variant == 4 ? "rows, prefetch, 4 cols" : variant == 5 ? "rows, prefetch, 2 cols" : variant == 3 ? "rows, consts as operands" : variant == 2 ? "rows by incidence" : variant ? "consts in smem" : "consts via L1", ts * 1e3, tg * 1e3, (ts + tg) * 1e3,
             floor_s * 1e3, (ts + tg) / floor_s, fa.numRegs, (size_t)fa.localSizeBytes, nan, err);
    }
    cudaFree(d_item_ptr), cudaFree(d_items), cudaFree(d_conn), cudaFree(d_brow), cudaFree(d_epos), cudaFree(d_inc_ptr), cudaFree(d_inc);
    cudaFree(d_tan), cudaFree(d_sig), cudaFree(d_st), cudaFree(d_K), cudaFree(d_gh), cudaFree(d_Z), cudaFree(d_Xb);
    cudaFree(d_val), cudaFree(d_G), cudaFree(d_wJ);
  }
  return 0;
}
