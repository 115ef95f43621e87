/* One error convention for the whole solver (STYLE.md §5).
 *
 * Functions return a dt_status. User-facing detail goes into a dt_ctx together with the
 * file:line:function that raised it. Inside a function, declare `dt_status rc = DT_OK;`, use
 * DT_CHECK for conditions on input and DT_TRY for calls, and release resources after a
 * `cleanup:` label; neither macro returns early, so nothing leaks. The library never prints,
 * aborts or exits: callers (CLI, daemon) decide how to present the message. */
#ifndef DT_STATUS_H
#define DT_STATUS_H

#include <stddef.h>

typedef enum dt_status {
  DT_OK = 0,
  DT_ERR_INPUT = 1,         /* the job, mesh or options are invalid; message names the culprit */
  DT_ERR_NOMEM = 2,         /* host allocation failed */
  DT_ERR_DEVICE_NOMEM = 3,  /* the job does not fit in device memory */
  DT_ERR_CUDA = 4,          /* a CUDA/cuSPARSE/cuBLAS call failed */
  DT_ERR_IO = 5,            /* reading or writing a file failed */
  DT_ERR_DB = 6,            /* the job store failed (daemon) */
  DT_ERR_UNSUPPORTED = 7,   /* valid request that this build or backend cannot serve */
  DT_ERR_NOT_CONVERGED = 8, /* the analysis stopped: no convergence (see dt_reason for why) */
  DT_ERR_CANCELLED = 9,     /* the caller asked to stop */
  DT_ERR_INTERNAL = 10      /* a bug: an invariant did not hold */
} dt_status;

typedef struct dt_ctx {
  dt_status code;
  char msg[1024];
  const char *file;
  int line;
  const char *func;
} dt_ctx;

/* Record an error in ctx (which may be NULL) and return code. The first error wins: later
 * errors raised while unwinding do not overwrite the root cause. */
dt_status dt_error_set(dt_ctx *ctx, dt_status code, const char *file, int line, const char *func,
                       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Clear ctx so it can be reused for another operation. */
void dt_ctx_reset(dt_ctx *ctx);
/* Put "prefix: " in front of an input error's message (e.g. the file it came from); other
 * errors and an empty ctx are left alone. */
void dt_ctx_prefix(dt_ctx *ctx, const char *prefix);
/* Short name of a status class, e.g. "input" for DT_ERR_INPUT. */
const char *dt_status_name(dt_status code);

#define DT_ERROR(ctx, code, ...)                                                                   \
  dt_error_set((ctx), (code), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* User error: if cond fails, record the message, set rc and jump to cleanup. */
#define DT_CHECK(cond, ctx, code, ...)                                                             \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      rc = DT_ERROR((ctx), (code), __VA_ARGS__);                                                   \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

/* Call that returns dt_status: on failure keep its status in rc and jump to cleanup. */
#define DT_TRY(expr)                                                                               \
  do {                                                                                             \
    rc = (expr);                                                                                   \
    if (rc != DT_OK) goto cleanup;                                                                 \
  } while (0)

/* Allocation that jumps to cleanup with DT_ERR_NOMEM, naming what was being allocated. */
#define DT_ALLOC(ptr, count, ctx, what)                                                            \
  do {                                                                                             \
    (ptr) = dt_calloc(((size_t)(count) != 0) ? (size_t)(count) : 1, sizeof(*(ptr)));               \
    DT_CHECK((ptr) != NULL, (ctx), DT_ERR_NOMEM, "out of memory allocating %s (%zu items)",        \
             (what), (size_t)(count));                                                             \
  } while (0)

/* All solver allocation goes through these, so tests can inject failures (STYLE.md §13).
 * dt_fault_malloc_countdown(n): the n-th allocation from now fails (0 disables). */
void *dt_malloc(size_t n);
void *dt_calloc(size_t count, size_t size);
void *dt_realloc(void *p, size_t n);
void dt_free(void *p);
void dt_fault_malloc_countdown(long n);
/* Free *p and set it to NULL (NULL-safe). */
#define DT_FREE(p)                                                                                 \
  do {                                                                                             \
    dt_free(p);                                                                                    \
    (p) = NULL;                                                                                    \
  } while (0)

#endif
