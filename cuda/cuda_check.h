/* Checking every CUDA and cuSPARSE call (STYLE.md §4, §5). Included by .cu files only.
 *
 * The macros follow DT_TRY: on failure they record the call's text, the library's error
 * string and file:line:function in ctx, set rc and jump to cleanup (they never return early,
 * so nothing leaks). Allocation failures map to DT_ERR_DEVICE_NOMEM ("does not fit"), every
 * other failure to DT_ERR_CUDA. DT_CUDA_LAUNCH_CHECK follows every kernel launch; builds
 * without NDEBUG also synchronise there, so a faulting kernel is named by its own launch.
 *
 * Two checked idioms that the device objects outside dt_cuda's accounting (the order-P
 * operators, their Newton PCG and p-multigrid) share live here too, so each has one
 * implementation: a cudaMalloc (or an upload into a new one) counted in its owner's byte total,
 * and event timing of work queued on a stream. */
#ifndef DT_CUDA_CHECK_H
#define DT_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <cusparse.h>

#include "cuda_entry.h"

static inline dt_status dt_cuda_error(dt_ctx *ctx, cudaError_t e, const char *call,
                                      const char *file, int line, const char *func) {
  dt_status code = e == cudaErrorMemoryAllocation ? DT_ERR_DEVICE_NOMEM : DT_ERR_CUDA;
  return dt_error_set(ctx, code, file, line, func, "%s failed: %s (%s)", call,
                      cudaGetErrorString(e), cudaGetErrorName(e));
}

static inline dt_status dt_cusparse_error(dt_ctx *ctx, cusparseStatus_t s, const char *call,
                                          const char *file, int line, const char *func) {
  dt_status code = s == CUSPARSE_STATUS_ALLOC_FAILED ? DT_ERR_DEVICE_NOMEM : DT_ERR_CUDA;
  return dt_error_set(ctx, code, file, line, func, "%s failed: %s (cuSPARSE status %d)", call,
                      cusparseGetErrorString(s), (int)s);
}

#define DT_CUDA_CHECK(call, ctx)                                                                   \
  do {                                                                                             \
    cudaError_t dt_e_ = (call);                                                                    \
    if (dt_e_ != cudaSuccess) {                                                                    \
      rc = dt_cuda_error((ctx), dt_e_, #call, __FILE__, __LINE__, __func__);                       \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

#define DT_CUSPARSE_CHECK(call, ctx)                                                               \
  do {                                                                                             \
    cusparseStatus_t dt_s_ = (call);                                                               \
    if (dt_s_ != CUSPARSE_STATUS_SUCCESS) {                                                        \
      rc = dt_cusparse_error((ctx), dt_s_, #call, __FILE__, __LINE__, __func__);                   \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

#ifdef NDEBUG
#define DT_CUDA_SYNC_LAUNCHES 0
#else
#define DT_CUDA_SYNC_LAUNCHES 1
#endif

/* what: a string literal naming the kernel. */
#define DT_CUDA_LAUNCH_CHECK(what, stream, ctx)                                                    \
  do {                                                                                             \
    cudaError_t dt_e_ = cudaGetLastError();                                                        \
    if (dt_e_ == cudaSuccess && DT_CUDA_SYNC_LAUNCHES) dt_e_ = cudaStreamSynchronize(stream);      \
    if (dt_e_ != cudaSuccess) {                                                                    \
      rc = dt_cuda_error((ctx), dt_e_, "launch of " what, __FILE__, __LINE__, __func__);           \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

/* bytes from the host buffer src (NULL: zeros) into device memory dst, queued on stream after
 * its work and in place once this returns: a cudaMemcpy from pageable memory returns once the
 * data is staged, before its DMA lands, cudaMemset returns at once, and neither orders against a
 * non-blocking stream (the order-P operators', the halo transports'), whose kernels may still
 * be writing dst or may read it next. Stream 0 (the legacy stream) for a new buffer. */
static inline cudaError_t dt_cuda_put_on(cudaStream_t stream, void *dst, const void *src,
                                         size_t bytes) {
  cudaError_t e = src ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream)
                      : cudaMemsetAsync(dst, 0, bytes, stream);
  return e != cudaSuccess ? e : cudaStreamSynchronize(stream);
}

/* dt_cuda_put_on the legacy stream: for buffers no other stream has work on yet. */
static inline cudaError_t dt_cuda_put(void *dst, const void *src, size_t bytes) {
  return dt_cuda_put_on(0, dst, src, bytes);
}

/* Allocate bytes of device memory into *p for an object that counts its own device bytes.
 *   p:       out; the new buffer, NULL on failure. The caller frees it with cudaFree.
 *   bytes:   the size; 0 allocates 8, so every buffer has an address.
 *   owner:   "" or a possessive prefix naming the object in the message ("the plastic
 *            state's "); what: the buffer ("vectors"). Both are borrowed.
 *   counted: the owner's byte total, increased by bytes on success only.
 * Errors: "cudaMalloc of N bytes for <owner><what> failed: ..." in ctx, with
 * DT_ERR_DEVICE_NOMEM when the device is full and DT_ERR_CUDA otherwise; the non-sticky error is
 * cleared so later calls on the device still work. */
static inline dt_status dt_cuda_malloc_counted(void **p, size_t bytes, const char *owner,
                                               const char *what, size_t *counted, dt_ctx *ctx) {
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 8);
  if (e != cudaSuccess) {
    *p = NULL;
    (void)cudaGetLastError();
    return DT_ERROR(ctx, e == cudaErrorMemoryAllocation ? DT_ERR_DEVICE_NOMEM : DT_ERR_CUDA,
                    "cudaMalloc of %zu bytes for %s%s failed: %s", bytes, owner, what,
                    cudaGetErrorString(e));
  }
  *counted += bytes;
  return DT_OK;
}

/* dt_cuda_malloc_counted, then bytes copied from the host buffer src (borrowed) into *p. On a
 * failed copy *p stays allocated and counted, for the owner's destroy to free. */
static inline dt_status dt_cuda_upload_counted(void **p, const void *src, size_t bytes,
                                               const char *owner, const char *what, size_t *counted,
                                               dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(dt_cuda_malloc_counted(p, bytes, owner, what, counted, ctx));
  DT_CUDA_CHECK(dt_cuda_put(*p, src, bytes), ctx);
cleanup:
  return rc;
}

/* One timed piece of work: queues it on the stream given to dt_cuda_time_ms. */
typedef dt_status (*dt_cuda_timed_fn)(void *data, dt_ctx *ctx);

/* Time reps calls of fn(data, ctx) on stream: events recorded before the first and after the
 * last, then a wait for the second. *ms: out, the milliseconds between the two (not divided by
 * reps). Nothing is run untimed, so a caller that wants a warm-up runs fn once first. Errors:
 * fn's, or the event calls' through DT_CUDA_CHECK. */
static inline dt_status dt_cuda_time_ms(cudaStream_t stream, int reps, dt_cuda_timed_fn fn,
                                        void *data, float *ms, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaEvent_t t0 = NULL, t1 = NULL;
  *ms = 0.0f;
  DT_CUDA_CHECK(cudaEventCreate(&t0), ctx);
  DT_CUDA_CHECK(cudaEventCreate(&t1), ctx);
  DT_CUDA_CHECK(cudaEventRecord(t0, stream), ctx);
  for (int r = 0; r < reps; r++) DT_TRY(fn(data, ctx));
  DT_CUDA_CHECK(cudaEventRecord(t1, stream), ctx);
  DT_CUDA_CHECK(cudaEventSynchronize(t1), ctx);
  DT_CUDA_CHECK(cudaEventElapsedTime(ms, t0, t1), ctx);
cleanup:
  if (t0) cudaEventDestroy(t0);
  if (t1) cudaEventDestroy(t1);
  return rc;
}

#endif
