/* The sum-factorised element sweep of order-P hexahedra on the GPU, shared by the elastic
 * operator (cuda_highorder.cu) and J2 plasticity at the Gauss points (cuda_ho_plastic.cu): they
 * differ only in the pointwise step, a template parameter, as the CPU's operators differ only
 * in their dt_ho_qfunc (solver/highorder/ho_element.h).
 *
 * A thread block takes NE elements of one colour and keeps everything of them in shared memory:
 * the 1D tables, the gathered displacements, the nine reference gradients at the points and
 * the contraction buffers. Every step is a flat loop of the block's threads over (element,
 * output entry), each entry a short dot product along one direction:
 *   forward, per component: u -> (B, G along x) -> (BB, BG, GB along y) -> three gradients
 *   (along z), 2 + 3 + 3 contractions;
 *   at the points: H = grad u, the point stage's stress S(H), flux w det J S J^-T (qdata read
 *   once, coalesced: it is contiguous in the point index);
 *   backward, the transposes: 3 along z, 2 along y (two fluxes share a table along x), 1 along
 *   x with two tables.
 * The scatter needs no atomics: the elements of one colour share no node, colours run one
 * launch after another in a fixed order, so repeated products give the same bits.
 *
 * A point stage is a struct with
 *   __device__ void operator()(int elem, int q, int nq3, const double H[9], double S[9]) const
 * turning the displacement gradient H[3 c + j] = du_c/dx_j at point q of element elem into the
 * symmetric stress S (row-major 3 x 3); it may read and write per-point arrays of its own. */
#ifndef DT_CUDA_HO_SUMFACT_CUH
#define DT_CUDA_HO_SUMFACT_CUH

#include "cuda_highorder_internal.h"

#define HO_THREADS 256
#define HO_SHARED_TARGET (48 * 1024) /* bytes of shared memory a block aims at */

typedef struct ho_sweep {
  int P1, Q, ne, n_el;
  const int *elems, *elem_nodes;
  const double *qdata, *tables, *u;
  double *v;
  const int *skip; /* *skip != 0: return at once (a PCG that has stopped); NULL: never */
} ho_sweep;

/* Doubles of shared memory one element needs: u (later v), 9 gradients (later fluxes), and per
 * component two buffers of Q P1^2 and three of Q^2 P1. */
__host__ __device__ static inline int ho_elem_doubles(int P1, int Q) {
  return 3 * P1 * P1 * P1 + 9 * Q * Q * Q + 6 * Q * P1 * P1 + 9 * Q * Q * P1;
}

/* v += sum_e P_e^T G^T point(G P_e u) over the a.n_el elements a.elems of one colour.
 * Each loop below runs flat over (element, component, output entry) of the block: the three
 * components and all outputs that read the same input column go together, so one index
 * decomposition and one read of the input serve two or three sums, and a product takes seven
 * barriers. Tables: B[q P1 + a] = L_a(xi_q), G likewise; forward sums run over the nodes a of
 * one direction, transposed ones over the points q. */
template <class Point>
__global__ void __launch_bounds__(HO_THREADS) k_ho_sweep(ho_sweep a, Point point) {
  extern __shared__ double sm[];
  if (a.skip && *a.skip) return; /* the same for every thread of the grid */
  const int P1 = a.P1, Q = a.Q, n3 = P1 * P1 * P1, nq3 = Q * Q * Q, Q2 = Q * Q;
  const int tq = Q * P1 * P1, uq = Q * Q * P1; /* sizes of the T and U buffers */
  const int es = ho_elem_doubles(P1, Q);
  const int first = blockIdx.x * a.ne, ne = min(a.ne, a.n_el - first);
  double *B = sm, *G = sm + Q * P1, *el = sm + 2 * Q * P1;
  /* per element, at el + e es: ue[3][n3] | g[9][nq3] | T0[3][tq] T1[3][tq] | U0 U1 U2 [3][uq] */
  const int o_g = 3 * n3, o_t0 = o_g + 9 * nq3, o_t1 = o_t0 + 3 * tq, o_u0 = o_t1 + 3 * tq,
            o_u1 = o_u0 + 3 * uq, o_u2 = o_u1 + 3 * uq;
  for (int t = threadIdx.x; t < 2 * Q * P1; t += blockDim.x) sm[t] = a.tables[t];
  for (int t = threadIdx.x; t < ne * n3; t += blockDim.x) {
    int e = t / n3, k = t - e * n3;
    int node = a.elem_nodes[(size_t)a.elems[first + e] * n3 + k];
    for (int c = 0; c < 3; c++) el[(size_t)e * es + c * n3 + k] = a.u[3 * (size_t)node + c];
  }
  __syncthreads();
  /* along x: T0 = B u, T1 = G u (entries [P1^2 yz][Q x]) */
  for (int t = threadIdx.x; t < ne * 3 * tq; t += blockDim.x) {
    int ec = t / tq, r = t - ec * tq, e = ec / 3, c = ec - 3 * e, i = r % Q, po = r / Q;
    double *E = el + (size_t)e * es;
    const double *x = E + c * n3 + po * P1, *mb = B + i * P1, *mg = G + i * P1;
    double sb = 0.0, sg = 0.0;
    for (int j = 0; j < P1; j++) sb += mb[j] * x[j], sg += mg[j] * x[j];
    E[o_t0 + c * tq + r] = sb;
    E[o_t1 + c * tq + r] = sg;
  }
  __syncthreads();
  /* along y: U0 = B T0, U1 = G T0, U2 = B T1 (entries [P1 z][Q y][Q x]) */
  for (int t = threadIdx.x; t < ne * 3 * uq; t += blockDim.x) {
    int ec = t / uq, r = t - ec * uq, e = ec / 3, c = ec - 3 * e;
    int pr = r % Q, i = (r / Q) % Q, po = r / Q2;
    double *E = el + (size_t)e * es;
    const double *x0 = E + o_t0 + c * tq + po * P1 * Q + pr, *x1 = x0 + 3 * tq;
    const double *mb = B + i * P1, *mg = G + i * P1;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int j = 0; j < P1; j++) {
      double v0 = x0[j * Q], v1 = x1[j * Q];
      s0 += mb[j] * v0, s1 += mg[j] * v0, s2 += mb[j] * v1;
    }
    E[o_u0 + c * uq + r] = s0;
    E[o_u1 + c * uq + r] = s1;
    E[o_u2 + c * uq + r] = s2;
  }
  __syncthreads();
  /* along z: du/dxi = B U2, du/deta = B U1, du/dzeta = G U0 (entries [Q z][Q^2]) */
  for (int t = threadIdx.x; t < ne * 3 * nq3; t += blockDim.x) {
    int ec = t / nq3, r = t - ec * nq3, e = ec / 3, c = ec - 3 * e, pr = r % Q2, i = r / Q2;
    double *E = el + (size_t)e * es;
    const double *x0 = E + o_u0 + c * uq + pr, *x1 = x0 + 3 * uq, *x2 = x1 + 3 * uq;
    const double *mb = B + i * P1, *mg = G + i * P1;
    double gx = 0.0, gy = 0.0, gz = 0.0;
    for (int j = 0; j < P1; j++)
      gx += mb[j] * x2[j * Q2], gy += mb[j] * x1[j * Q2], gz += mg[j] * x0[j * Q2];
    E[o_g + (3 * c) * nq3 + r] = gx;
    E[o_g + (3 * c + 1) * nq3 + r] = gy;
    E[o_g + (3 * c + 2) * nq3 + r] = gz;
  }
  __syncthreads();
  /* at the points: gradients in, fluxes f[3c + i] = w det J sum_j S_cj dxi_i/dx_j out */
  for (int t = threadIdx.x; t < ne * nq3; t += blockDim.x) {
    int e = t / nq3, q = t - e * nq3, elem = a.elems[first + e];
    const double *qd = a.qdata + (size_t)elem * DT_HO_QDATA_SIZE * nq3 + q;
    double *gq = el + (size_t)e * es + o_g + q;
    double X[9], H[9], S[9], wdet = qd[0];
    for (int k = 0; k < 9; k++) X[k] = qd[(1 + k) * nq3];
    for (int cc = 0; cc < 3; cc++)
      for (int j = 0; j < 3; j++)
        H[3 * cc + j] = gq[(3 * cc) * nq3] * X[j] + gq[(3 * cc + 1) * nq3] * X[3 + j] +
                        gq[(3 * cc + 2) * nq3] * X[6 + j];
    point(elem, q, nq3, H, S);
    for (int cc = 0; cc < 3; cc++)
      for (int i = 0; i < 3; i++)
        gq[(3 * cc + i) * nq3] = wdet * (S[3 * cc] * X[3 * i] + S[3 * cc + 1] * X[3 * i + 1] +
                                         S[3 * cc + 2] * X[3 * i + 2]);
  }
  __syncthreads();
  /* transposed along z: U0 = B^T fx, U1 = B^T fy, U2 = G^T fz (entries [P1 z][Q^2]) */
  for (int t = threadIdx.x; t < ne * 3 * uq; t += blockDim.x) {
    int ec = t / uq, r = t - ec * uq, e = ec / 3, c = ec - 3 * e, pr = r % Q2, i = r / Q2;
    double *E = el + (size_t)e * es;
    const double *fx = E + o_g + (3 * c) * nq3 + pr, *fy = fx + nq3, *fz = fy + nq3;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int j = 0; j < Q; j++) {
      double b = B[j * P1 + i];
      s0 += b * fx[j * Q2], s1 += b * fy[j * Q2], s2 += G[j * P1 + i] * fz[j * Q2];
    }
    E[o_u0 + c * uq + r] = s0;
    E[o_u1 + c * uq + r] = s1;
    E[o_u2 + c * uq + r] = s2;
  }
  __syncthreads();
  /* transposed along y: T0 = B^T U0, T1 = G^T U1 + B^T U2 (entries [P1 z][P1 y][Q x]) */
  for (int t = threadIdx.x; t < ne * 3 * tq; t += blockDim.x) {
    int ec = t / tq, r = t - ec * tq, e = ec / 3, c = ec - 3 * e;
    int pr = r % Q, i = (r / Q) % P1, po = r / (Q * P1);
    double *E = el + (size_t)e * es;
    const double *x0 = E + o_u0 + c * uq + po * Q2 + pr, *x1 = x0 + 3 * uq, *x2 = x1 + 3 * uq;
    double s0 = 0.0, s1 = 0.0;
    for (int j = 0; j < Q; j++) {
      double b = B[j * P1 + i];
      s0 += b * x0[j * Q], s1 += G[j * P1 + i] * x1[j * Q] + b * x2[j * Q];
    }
    E[o_t0 + c * tq + r] = s0;
    E[o_t1 + c * tq + r] = s1;
  }
  __syncthreads();
  /* transposed along x: v = G^T T0 + B^T T1 (entries [P1^2 yz][P1 x]), over u */
  for (int t = threadIdx.x; t < ne * 3 * n3; t += blockDim.x) {
    int ec = t / n3, r = t - ec * n3, e = ec / 3, c = ec - 3 * e, i = r % P1, po = r / P1;
    double *E = el + (size_t)e * es;
    const double *x0 = E + o_t0 + c * tq + po * Q, *x1 = x0 + 3 * tq;
    double s = 0.0;
    for (int j = 0; j < Q; j++) s += G[j * P1 + i] * x0[j] + B[j * P1 + i] * x1[j];
    E[c * n3 + r] = s;
  }
  __syncthreads();
  /* scatter: no other element of this colour touches these nodes */
  for (int t = threadIdx.x; t < ne * n3; t += blockDim.x) {
    int e = t / n3, k = t - e * n3;
    int node = a.elem_nodes[(size_t)a.elems[first + e] * n3 + k];
    for (int c = 0; c < 3; c++) a.v[3 * (size_t)node + c] += el[(size_t)e * es + c * n3 + k];
  }
}

/* v = sum over all elements of the sweep with `point`, colour after colour in h's order, in
 * `stream` (v zeroed first; the current device must be h->device). u and v: 3 n_nodes device
 * vectors that do not alias. The kernel's shared memory limit must be raised to
 * h->shared_bytes once per instantiation (cudaFuncSetAttribute). */
template <class Point>
static dt_status ho_sweep_launch(const dt_cuda_ho *h, cudaStream_t stream, const double *u,
                                 double *v, const int *skip, Point point, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(cudaMemsetAsync(v, 0, sizeof(double) * 3 * (size_t)h->n_nodes, stream), ctx);
  for (int k = 0; k < h->n_colors; k++) {
    int lo = h->h_color_ptr[k], n = h->h_color_ptr[k + 1] - lo;
    if (n == 0) continue;
    ho_sweep a = {h->P1,     h->Q, h->ne, n,   h->color_elems + lo, h->elem_nodes, h->qdata,
                  h->tables, u,    v,     skip};
    k_ho_sweep<Point><<<(n + h->ne - 1) / h->ne, HO_THREADS, h->shared_bytes, stream>>>(a, point);
    DT_CUDA_LAUNCH_CHECK("k_ho_sweep", stream, ctx);
  }
cleanup:
  return rc;
}

#endif
