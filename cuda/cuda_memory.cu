/* Device memory of the CUDA backend: the estimate made from the problem's sizes before any
 * allocation, the fit check against free memory and DUCTILE_GPU_MEMORY_LIMIT (a budget for the
 * whole process on each device: what its running jobs hold counts against it), allocation with
 * a running and peak byte count, and the two counted copy functions through which every
 * host<->device transfer goes. */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* Process-wide counters (several jobs may run at once in the daemon: atomic updates). */
static unsigned long long g_h2d, g_d2h, g_copies, g_allocated_total;
static unsigned long long g_live, g_peak;
/* Bytes this process holds on each device (what DUCTILE_GPU_MEMORY_LIMIT budgets). */
#define DT_CUDA_MAX_DEVICES 64
static unsigned long long g_live_device[DT_CUDA_MAX_DEVICES];

static void add_u64(unsigned long long *p, unsigned long long v) {
  __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static void note_device(int device, long long delta) {
  if (device >= 0 && device < DT_CUDA_MAX_DEVICES)
    __atomic_add_fetch(&g_live_device[device], (unsigned long long)delta, __ATOMIC_RELAXED);
}

static void note_live(long long delta) {
  unsigned long long live =
      __atomic_add_fetch(&g_live, (unsigned long long)delta, __ATOMIC_RELAXED);
  unsigned long long peak = __atomic_load_n(&g_peak, __ATOMIC_RELAXED);
  while (live > peak && !__atomic_compare_exchange_n(&g_peak, &peak, live, 0, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {}
}

/* Every device array the backend allocates, in bytes; keep in step with cuda_upload.cu. */
extern "C" dt_status dt_cuda_estimate(const dt_problem *pb, size_t *bytes) {
  size_t n = (size_t)pb->n_dofs, ne = (size_t)pb->n_elems, nq = (size_t)pb->n_qp;
  size_t nconn = (size_t)pb->elem_ptr[pb->n_elems];
  size_t npos = (size_t)pb->elem_pos_ptr[pb->n_elems];
  size_t nnz = (size_t)pb->nnz, nblk = (size_t)pb->node_nbr_ptr[pb->n_nodes], b = 0;
  b += 3 * (size_t)pb->n_nodes * sizeof(double);         /* coordinates */
  b += ne * 3;                                           /* type, state, bbar */
  b += (ne + 1) * sizeof(int) * 2 + nconn * sizeof(int); /* elem_ptr, qp_ptr, conn */
  b += ne * (sizeof(int) * 2 + sizeof(double));          /* mat, colour list, thick */
  b += (size_t)pb->n_mats * sizeof(dt_material_params);
  b += ((size_t)pb->n_nodes + 1 + nblk) * sizeof(int); /* block pattern */
  if (pb->matrix_free)
    b += dt_cuda_mf_bytes(pb); /* element matrices (cuda_matrix_free.cu) */
  else
    b += nnz * sizeof(double) + (ne + 1) * sizeof(int64_t) +
         npos * sizeof(int) /* tangent values, positions */
         + DT_CUDA_ROWS_CONST_DOUBLES *
               sizeof(double) /* block-row constants, when the mesh is served */
         + (nnz >= INT_MAX ? ((size_t)pb->n_nodes + DT_CUDA_SPMV_PARTS_MAX) * sizeof(int)
                           : 0); /* the row ranges' offsets (dt_cuda_spmv_parts) */
  b += ((size_t)pb->n_nodes + 1 + nconn) * sizeof(int); /* node incidences */
  b += (size_t)pb->n_nodes * sizeof(int);               /* constrained nodes */
  b += nconn * (size_t)pb->dpn * sizeof(double);        /* element forces */
  b += (size_t)DT_VEC_COUNT * n * sizeof(double);       /* solution vectors */
  b += n * (size_t)pb->dpn * sizeof(double);            /* preconditioner */
  b += nq * (2 * DT_MAT_STATE_DOUBLES + 4 * 6 + DT_TANGENT_FORM_STORED) *
       sizeof(double); /* per-point state, tangent form */
  b += DT_CUDA_RED_DOUBLES * sizeof(double) + sizeof(dt_cuda_flags);
  if (!pb->matrix_free) b += 2 * (n + 1) * sizeof(double) + (1u << 20); /* cuSPARSE SpMV buffer */
  b += dt_cuda_coarse_bytes(pb);         /* two-level preconditioner */
  b += (size_t)dt_problem_mpc_bytes(pb); /* linear constraints */
  if (dt_cuda_element_variants(pb) & DT_CUDA_EL_D)
    b += nq * DT_CUDA_D_DOUBLES * sizeof(double); /* per-point D */
  if (pb->qp_eps0) b += nq * 6 * sizeof(double);  /* initial eigenstrains */
  b += (size_t)DT_CUDA_MAX_ALLOCS * 512;          /* allocation granularity */
  *bytes = b;
  return DT_OK;
}

/* DUCTILE_GPU_MEMORY_LIMIT: bytes, with an optional K, M, G or T suffix (powers of 1024). */
static int parse_limit(const char *s, size_t *out) {
  char *end = NULL;
  double v;
  if (!s || !*s) return 0;
  v = strtod(s, &end);
  if (end == s || !(v >= 0)) return 0;
  switch (*end) {
  case 'k':
  case 'K': v *= 1024.0, end++; break;
  case 'm':
  case 'M': v *= 1024.0 * 1024.0, end++; break;
  case 'g':
  case 'G': v *= 1024.0 * 1024.0 * 1024.0, end++; break;
  case 't':
  case 'T': v *= 1024.0 * 1024.0 * 1024.0 * 1024.0, end++; break;
  default: break;
  }
  if (*end == 'B' || *end == 'b') end++;
  if (*end) return 0;
  *out = (size_t)v;
  return 1;
}

static void human_bytes(double b, char *buf, size_t len) {
  if (b >= 1e9)
    snprintf(buf, len, "%.1f GB", b / 1e9);
  else if (b >= 1e6)
    snprintf(buf, len, "%.1f MB", b / 1e6);
  else
    snprintf(buf, len, "%.1f kB", b / 1e3);
}

static void human_count(double v, char *buf, size_t len) {
  if (v >= 1e6)
    snprintf(buf, len, "%.1f M", v / 1e6);
  else if (v >= 1e3)
    snprintf(buf, len, "%.1f k", v / 1e3);
  else
    snprintf(buf, len, "%.0f", v);
}

dt_status dt_cuda_check_fit(const dt_problem *pb, int device, size_t extra, size_t *estimate,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t need = 0, free_b = 0, total_b = 0, limit = 0, avail, margin, held = 0;
  const char *env = getenv("DUCTILE_GPU_MEMORY_LIMIT");
  int has_limit = 0, limit_binds = 0;
  char s_need[32], s_avail[32], s_dofs[32], s_nnz[32], s_qp[32], s_coarse[32], why[160],
      coarse[160] = "";
  DT_CHECK(env == NULL || *env == '\0' || parse_limit(env, &limit), ctx, DT_ERR_INPUT,
           "DUCTILE_GPU_MEMORY_LIMIT=\"%s\" is not a byte count (examples: 4000000000, 512M, 4G)",
           env);
  has_limit = env != NULL && *env != '\0';
  dt_cuda_estimate(pb, &need);
  need += extra;
  *estimate = need;
  DT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b), ctx);
  margin = free_b / 20 + ((size_t)256 << 20);
  avail = free_b > margin ? free_b - margin : 0;
  /* The limit budgets the whole process on this device: the jobs running on it hold part. */
  if (device >= 0 && device < DT_CUDA_MAX_DEVICES)
    held = (size_t)__atomic_load_n(&g_live_device[device], __ATOMIC_RELAXED);
  if (has_limit && (limit > held ? limit - held : 0) < avail)
    avail = limit > held ? limit - held : 0, limit_binds = 1;
  if (need <= avail) goto cleanup;
  human_bytes((double)need, s_need, sizeof s_need);
  human_bytes((double)avail, s_avail, sizeof s_avail);
  human_count(pb->n_dofs, s_dofs, sizeof s_dofs);
  human_count((double)pb->nnz, s_nnz, sizeof s_nnz);
  human_count(pb->n_qp, s_qp, sizeof s_qp);
  if (limit_binds && held)
    snprintf(why, sizeof why,
             "limit DUCTILE_GPU_MEMORY_LIMIT=%s, of which other jobs on GPU %d hold %.1f MB", env,
             device, held / 1e6);
  else if (limit_binds)
    snprintf(why, sizeof why, "limit DUCTILE_GPU_MEMORY_LIMIT=%s", env);
  else
    snprintf(why, sizeof why, "%.1f GB free of %.1f GB on the device, less a safety margin",
             free_b / 1e9, total_b / 1e9);
  if (pb->n_sub > 0) { /* two_level, named or chosen by "auto": say what it costs */
    human_bytes((double)dt_cuda_coarse_bytes(pb), s_coarse, sizeof s_coarse);
    snprintf(coarse, sizeof coarse,
             "; %s of it is the two-level preconditioner's, which "
             "linear.preconditioner \"block_jacobi\" does without",
             s_coarse);
  }
  rc = DT_ERROR(ctx, DT_ERR_DEVICE_NOMEM,
                "the job needs an estimated %s of GPU memory but only %s are available (%s): "
                "%s DOFs, %s matrix nonzeros, %s integration points%s",
                s_need, s_avail, why, s_dofs, s_nnz, s_qp, coarse);
cleanup:
  return rc;
}

dt_status dt_cuda_alloc(dt_cuda *c, void **p, size_t bytes, const char *what, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaError_t e;
  *p = NULL;
  if (bytes == 0) bytes = 8;
  DT_CHECK(c->acct.n_allocs < DT_CUDA_MAX_ALLOCS, ctx, DT_ERR_INTERNAL,
           "too many device allocations (%d)", c->acct.n_allocs);
  e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    *p = NULL;
    (void)cudaGetLastError(); /* clear the non-sticky error */
    rc = dt_error_set(ctx, e == cudaErrorMemoryAllocation ? DT_ERR_DEVICE_NOMEM : DT_ERR_CUDA,
                      __FILE__, __LINE__, __func__,
                      "cudaMalloc of %zu bytes for %s failed: %s (%zu bytes already allocated, "
                      "estimate %zu)",
                      bytes, what, cudaGetErrorString(e), c->acct.bytes_alloc, c->acct.estimate);
    goto cleanup;
  }
  c->acct.allocs[c->acct.n_allocs].p = *p;
  c->acct.allocs[c->acct.n_allocs].n = bytes;
  c->acct.n_allocs++;
  c->acct.bytes_alloc += bytes;
  if (c->acct.bytes_alloc > c->acct.bytes_peak) c->acct.bytes_peak = c->acct.bytes_alloc;
  add_u64(&g_allocated_total, bytes);
  note_live((long long)bytes);
  note_device(c->device, (long long)bytes);
cleanup:
  return rc;
}

void dt_cuda_free(dt_cuda *c, void *p) {
  if (!p) return;
  for (int i = 0; i < c->acct.n_allocs; i++)
    if (c->acct.allocs[i].p == p) {
      cudaFree(p); /* errors at teardown cannot be reported; a sticky error shows elsewhere */
      c->acct.bytes_alloc -= c->acct.allocs[i].n;
      note_live(-(long long)c->acct.allocs[i].n);
      note_device(c->device, -(long long)c->acct.allocs[i].n);
      c->acct.allocs[i] = c->acct.allocs[--c->acct.n_allocs];
      return;
    }
}

void dt_cuda_free_all(dt_cuda *c) {
  while (c->acct.n_allocs > 0) dt_cuda_free(c, c->acct.allocs[c->acct.n_allocs - 1].p);
}

dt_status dt_cuda_h2d(dt_cuda *c, void *dst, const void *src, size_t bytes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (bytes == 0) return DT_OK;
  DT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->stream), ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx); /* src may be reused on return */
  c->acct.h2d += bytes;
  c->acct.n_copies++;
  add_u64(&g_h2d, bytes);
  add_u64(&g_copies, 1);
cleanup:
  return rc;
}

dt_status dt_cuda_d2h(dt_cuda *c, void *dst, const void *src, size_t bytes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (bytes == 0) return DT_OK;
  DT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, c->stream), ctx);
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  c->acct.d2h += bytes;
  c->acct.n_copies++;
  add_u64(&g_d2h, bytes);
  add_u64(&g_copies, 1);
cleanup:
  return rc;
}

extern "C" void dt_cuda_transfer_stats(void *impl, unsigned long long *h2d, unsigned long long *d2h,
                                       unsigned long long *n_copies) {
  dt_cuda *c = (dt_cuda *)impl;
  if (h2d) *h2d = c ? c->acct.h2d : __atomic_load_n(&g_h2d, __ATOMIC_RELAXED);
  if (d2h) *d2h = c ? c->acct.d2h : __atomic_load_n(&g_d2h, __ATOMIC_RELAXED);
  if (n_copies) *n_copies = c ? c->acct.n_copies : __atomic_load_n(&g_copies, __ATOMIC_RELAXED);
}

extern "C" size_t dt_cuda_peak_bytes(void *impl) {
  dt_cuda *c = (dt_cuda *)impl;
  return c ? c->acct.bytes_peak : (size_t)__atomic_load_n(&g_peak, __ATOMIC_RELAXED);
}

extern "C" unsigned long long dt_cuda_process_allocated_bytes(void) {
  return __atomic_load_n(&g_allocated_total, __ATOMIC_RELAXED);
}
