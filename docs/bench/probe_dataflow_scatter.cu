/* Probe behind docs/benchmarks.md ("assembly: ordered scatter"): on the hex8 block pattern of
 * Kiran's cube (n x n x n elements, column-major 3 x 3 blocks as in the solver), times the
 * scatter of constant element blocks (no element arithmetic):
 *   - colour by colour over the whole mesh, after a clear (what the solver did until now);
 *   - in one persistent launch that hands out elements in a fixed sequence (tiles of T x T x T
 *     elements, colour by colour inside a tile) and lets an element add its blocks only once
 *     every earlier element of the sequence sharing one of its nodes has added its own (a
 *     counter per node). The sums of every value then run in sequence order, the same on every
 *     run, and the rows being summed stay in L2 while a tile is worked on. The first element
 *     of the sequence to touch a block stores instead of adding, so there is no clear.
 * The contributions are small integers, so every order gives the same bits; the probe checks
 * every variant against the first.
 * A one-off measurement tool, not part of the build:
 *   nvcc -O3 -arch=sm_90 -std=c++17 probe_dataflow_scatter.cu -o probe_flow && ./probe_flow 115 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t e_=(x); if(e_!=cudaSuccess){printf("CUDA %s line %d: %s\n",#x,__LINE__,cudaGetErrorString(e_)); exit(1);} }while(0)

__device__ __forceinline__ double contrib(int e, int pair, int c) { return (double)((e * 7 + pair * 3 + c) % 17); }

/* a thread per value, one launch per colour, += (after a clear) */
__global__ void k_colour(int n, const int* el, const int* conn, const int* pos, const int* brow, double* val) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x; if (t >= (long)n * 576) return;
  int e = el[t / 576], v = t % 576, p = v / 9, c = v % 9, A = p / 8;
  long at = ((long)brow[conn[e * 8 + A]] + pos[e * 64 + p]) * 9 + c;
  val[at] += contrib(e, p, c);
}

__device__ __forceinline__ int ld_acquire(const int* p) {
  int v; asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}

/* persistent: EPB elements per block of 64 * EPB threads, items in sequence order (EPB 1: two
 * elements of one block may share a node where the sequence changes colour) */
template <int EPB>
__global__ void __launch_bounds__(64 * EPB) k_flow(int n_items, const int* seq, const int* conn, const int* pos,
    const int* brow, const int* need, const unsigned long long* first, int* counter, int* ticket, double* val,
    int work, int use_first) {
  __shared__ int base;
  __shared__ int node_s[EPB][8];
  __shared__ long row_s[EPB][8];
  const int T = 64 * EPB, V = 576 * EPB, R = (V + T - 1) / T;
  for (;;) {
    if (threadIdx.x == 0) base = atomicAdd(ticket, EPB);
    __syncthreads();
    int b = base;
    if (b >= n_items) return;
    if (threadIdx.x < 8 * EPB) {
      int le = threadIdx.x / 8, A = threadIdx.x % 8, it = b + le;
      int nd = it < n_items ? conn[seq[it] * 8 + A] : -1;
      node_s[le][A] = nd;
      row_s[le][A] = nd >= 0 ? brow[nd] : 0;
    }
    /* stand-in for the element arithmetic: `work` multiply-adds per thread */
    double acc = threadIdx.x;
    for (int w = 0; w < work; w++) acc = fma(acc, 1.0000001, 1e-9);
    __syncthreads();
    if (threadIdx.x < 8 * EPB) {
      int le = threadIdx.x / 8, A = threadIdx.x % 8, it = b + le;
      if (it < n_items) { int nd = node_s[le][A], k = need[it * 8 + A]; while (ld_acquire(counter + nd) < k) {} }
    }
    __syncthreads();
    double old[R]; long at[R];
    for (int r = 0; r < R; r++) {
      int v = threadIdx.x + r * T, le = v / 576, w = v % 576, p = w / 9, c = w % 9, it = b + le;
      at[r] = -1;
      if (v < V && it < n_items) {
        int e = seq[it];
        at[r] = (row_s[le][p / 8] + pos[e * 64 + p]) * 9 + c;
        old[r] = use_first && (first[it] >> p & 1) ? 0.0 : __ldcg(val + at[r]);
      }
    }
    for (int r = 0; r < R; r++) {
      int v = threadIdx.x + r * T, le = v / 576, w = v % 576, p = w / 9, c = w % 9;
      if (at[r] >= 0) __stcg(val + at[r], old[r] + contrib(seq[b + le], p, c) + (acc == -1.0 ? 1.0 : 0.0));
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x < 8 * EPB) {
      int le = threadIdx.x / 8, A = threadIdx.x % 8;
      if (b + le < n_items) atomicAdd(counter + node_s[le][A], 1);
    }
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 115, m = n + 1;
  long nn = (long)m * m * m, ne = (long)n * n * n;
  std::vector<int> brow(nn + 1, 0), bcol;
  for (int k = 0; k < m; k++) for (int j = 0; j < m; j++) for (int i = 0; i < m; i++) {
    long id = ((long)k * m + j) * m + i;
    for (int dk = -1; dk <= 1; dk++) for (int dj = -1; dj <= 1; dj++) for (int di = -1; di <= 1; di++) {
      int a = i + di, b = j + dj, c = k + dk;
      if (a < 0 || b < 0 || c < 0 || a >= m || b >= m || c >= m) continue;
      bcol.push_back((int)(((long)c * m + b) * m + a));
    }
    brow[id + 1] = (int)bcol.size();
  }
  long nb = bcol.size();
  std::vector<int> conn(ne * 8), pos(ne * 64);
  const int off[8][3] = {{0,0,0},{1,0,0},{1,1,0},{0,1,0},{0,0,1},{1,0,1},{1,1,1},{0,1,1}};
  for (int k = 0; k < n; k++) for (int j = 0; j < n; j++) for (int i = 0; i < n; i++) {
    long e = ((long)k * n + j) * n + i;
    for (int A = 0; A < 8; A++) conn[e * 8 + A] = (int)(((long)(k + off[A][2]) * m + j + off[A][1]) * m + i + off[A][0]);
    for (int A = 0; A < 8; A++) for (int B = 0; B < 8; B++) {
      int na = conn[e * 8 + A], nbn = conn[e * 8 + B];
      pos[e * 64 + A * 8 + B] = (int)(std::lower_bound(bcol.begin() + brow[na], bcol.begin() + brow[na + 1], nbn) - (bcol.begin() + brow[na]));
    }
  }
  std::vector<int> cptr(9, 0), cel;
  for (int c = 0; c < 8; c++) { for (long e = 0; e < ne; e++) { int i = e % n, j = e / n % n, k = e / n / n; if ((i & 1) + 2 * (j & 1) + 4 * (k & 1) == c) cel.push_back((int)e); } cptr[c + 1] = cel.size(); }
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("%s  n=%d nodes=%ld elems=%ld blocks=%ld values %.2f GB\n", prop.name, n, nn, ne, nb, nb * 72e-9);
  int *d_brow, *d_conn, *d_pos, *d_cel, *d_seq, *d_need, *d_counter, *d_ticket; unsigned long long* d_first; double *d_val, *d_ref;
  CK(cudaMalloc(&d_brow, (nn + 1) * 4)); CK(cudaMalloc(&d_conn, ne * 32)); CK(cudaMalloc(&d_pos, ne * 256));
  CK(cudaMalloc(&d_cel, ne * 4)); CK(cudaMalloc(&d_seq, ne * 4)); CK(cudaMalloc(&d_need, ne * 32)); CK(cudaMalloc(&d_first, ne * 8));
  CK(cudaMalloc(&d_counter, nn * 4)); CK(cudaMalloc(&d_ticket, 4)); CK(cudaMalloc(&d_val, nb * 72)); CK(cudaMalloc(&d_ref, nb * 72));
  CK(cudaMemcpy(d_brow, brow.data(), (nn + 1) * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_conn, conn.data(), ne * 32, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_pos, pos.data(), ne * 256, cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_cel, cel.data(), ne * 4, cudaMemcpyHostToDevice));
  cudaEvent_t t0, t1; cudaEventCreate(&t0); cudaEventCreate(&t1); float ms;
  { void* buf; size_t half = nb * 72; CK(cudaMalloc(&buf, 2 * half)); float best = 1e9;
    for (int r = 0; r < 6; r++) { cudaEventRecord(t0); cudaMemcpyAsync((char*)buf + half, buf, half, cudaMemcpyDeviceToDevice); cudaEventRecord(t1); cudaEventSynchronize(t1); cudaEventElapsedTime(&ms, t0, t1); if (r && ms < best) best = ms; }
    printf("copy bw %.1f GB/s; writing the values once: %.3f ms at that rate\n", 2.0 * half / best / 1e6, nb * 72 / (2.0 * half / best)); cudaFree(buf); }
  float best = 1e9;
  for (int r = 0; r < 4; r++) { cudaEventRecord(t0); cudaMemsetAsync(d_ref, 0, nb * 72);
    for (int c = 0; c < 8; c++) { int k = cptr[c + 1] - cptr[c]; k_colour<<<(int)(((long)k * 576 + 255) / 256), 256>>>(k, d_cel + cptr[c], d_conn, d_pos, d_brow, d_ref); }
    cudaEventRecord(t1); cudaEventSynchronize(t1); CK(cudaGetLastError()); cudaEventElapsedTime(&ms, t0, t1); if (r && ms < best) best = ms; }
  printf("clear + 8 colour launches: %.3f ms\n", best);
  std::vector<double> ref(nb * 9), got(nb * 9);
  CK(cudaMemcpy(ref.data(), d_ref, nb * 72, cudaMemcpyDeviceToHost));
  for (int T : {8, 16, 24, 32, 1 << 20}) {
    std::vector<int> seq; seq.reserve(ne);
    int nt = (n + T - 1) / T;
    for (int tz = 0; tz < nt; tz++) for (int ty = 0; ty < nt; ty++) for (int tx = 0; tx < nt; tx++)
      for (int c = 0; c < 8; c++)
        for (int k = tz * T + (c >> 2); k < std::min(n, (tz + 1) * T); k += 2)
          for (int j = ty * T + (c >> 1 & 1); j < std::min(n, (ty + 1) * T); j += 2)
            for (int i = tx * T + (c & 1); i < std::min(n, (tx + 1) * T); i += 2) seq.push_back((k * n + j) * n + i);
    std::vector<int> cnt(nn, 0), need(ne * 8); std::vector<unsigned long long> first(ne, 0); std::vector<unsigned char> touched(nb, 0);
    for (long p = 0; p < ne; p++) { int e = seq[p];
      for (int A = 0; A < 8; A++) need[p * 8 + A] = cnt[conn[e * 8 + A]]++;
      for (int q = 0; q < 64; q++) { long blk = brow[conn[e * 8 + q / 8]] + pos[(long)e * 64 + q]; if (!touched[blk]) { touched[blk] = 1; first[p] |= 1ull << q; } } }
    CK(cudaMemcpy(d_seq, seq.data(), ne * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_need, need.data(), ne * 32, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_first, first.data(), ne * 8, cudaMemcpyHostToDevice));
    for (int variant = 0; variant < 4; variant++) {
      int use_first = variant != 1, work = variant == 2 ? 150 : variant == 3 ? 400 : 0;
      int bps = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k_flow<1>, 64, 0));
      best = 1e9;
      for (int r = 0; r < 4; r++) {
        cudaEventRecord(t0);
        if (!use_first) cudaMemsetAsync(d_val, 0, nb * 72);
        cudaMemsetAsync(d_counter, 0, nn * 4); cudaMemsetAsync(d_ticket, 0, 4);
        k_flow<1><<<bps * prop.multiProcessorCount, 64>>>((int)ne, d_seq, d_conn, d_pos, d_brow, d_need, d_first, d_counter, d_ticket, d_val, work, use_first);
        cudaEventRecord(t1); cudaEventSynchronize(t1); CK(cudaGetLastError()); cudaEventElapsedTime(&ms, t0, t1); if (r && ms < best) best = ms;
      }
      CK(cudaMemcpy(got.data(), d_val, nb * 72, cudaMemcpyDeviceToHost));
      long bad = 0; for (long i = 0; i < nb * 9; i++) bad += got[i] != ref[i];
      printf("tiles T=%-7d %s, %3d FMA/thread, %d blocks/SM: %.3f ms, mismatches %ld\n", T, use_first ? "first-touch stores" : "clear + adds      ", work, bps, best, bad);
    }
  }
  return 0;
}
