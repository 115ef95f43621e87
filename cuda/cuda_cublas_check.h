/* DT_CUBLAS_CHECK: a cuBLAS call's status as the house error (DT_CUDA_CHECK's twin), for the
 * files that call cuBLAS (the AMG's coarse factor, the order-P p-multigrid's). */
#ifndef DT_CUDA_CUBLAS_CHECK_H
#define DT_CUDA_CUBLAS_CHECK_H

#include <cublas_v2.h>

#include "cuda_check.h"

#define DT_CUBLAS_CHECK(call, ctx)                                                                 \
  do {                                                                                             \
    cublasStatus_t st_ = (call);                                                                   \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                            \
      rc = DT_ERROR((ctx), st_ == CUBLAS_STATUS_ALLOC_FAILED ? DT_ERR_DEVICE_NOMEM : DT_ERR_CUDA,  \
                    "%s failed: cuBLAS status %d", #call, (int)st_);                               \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

#endif
