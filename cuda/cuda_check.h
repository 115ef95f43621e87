/* Checking every CUDA and cuSPARSE call (STYLE.md §4, §5). Included by .cu files only.
 *
 * The macros follow DT_TRY: on failure they record the call's text, the library's error
 * string and file:line:function in ctx, set rc and jump to cleanup (they never return early,
 * so nothing leaks). Allocation failures map to DT_ERR_DEVICE_NOMEM ("does not fit"), every
 * other failure to DT_ERR_CUDA. DT_CUDA_LAUNCH_CHECK follows every kernel launch; builds
 * without NDEBUG also synchronise there, so a faulting kernel is named by its own launch. */
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

#endif
