/* Error recording and the allocation wrappers with a fault injector for tests. */
#include "dt_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dt_status dt_error_set(dt_ctx *ctx, dt_status code, const char *file, int line, const char *func,
                       const char *fmt, ...) {
  va_list ap;
  if (ctx == NULL || ctx->code != DT_OK) return code;
  ctx->code = code;
  ctx->file = file;
  ctx->line = line;
  ctx->func = func;
  va_start(ap, fmt);
  vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
  va_end(ap);
  return code;
}

void dt_ctx_reset(dt_ctx *ctx) {
  if (ctx) memset(ctx, 0, sizeof *ctx);
}

void dt_ctx_prefix(dt_ctx *ctx, const char *prefix) {
  size_t np = 0, nm = 0;
  if (!ctx || ctx->code != DT_ERR_INPUT) return;
  np = strlen(prefix) + 2;
  if (np >= sizeof ctx->msg / 2) return;
  nm = strnlen(ctx->msg, sizeof ctx->msg - 1);
  if (nm > sizeof ctx->msg - 1 - np) nm = sizeof ctx->msg - 1 - np;
  memmove(ctx->msg + np, ctx->msg, nm);
  memcpy(ctx->msg, prefix, np - 2);
  memcpy(ctx->msg + np - 2, ": ", 2);
  ctx->msg[np + nm] = '\0';
}

const char *dt_status_name(dt_status code) {
  switch (code) {
  case DT_OK: return "ok";
  case DT_ERR_INPUT: return "input";
  case DT_ERR_NOMEM: return "out_of_memory";
  case DT_ERR_DEVICE_NOMEM: return "device_out_of_memory";
  case DT_ERR_CUDA: return "cuda";
  case DT_ERR_IO: return "io";
  case DT_ERR_DB: return "database";
  case DT_ERR_UNSUPPORTED: return "unsupported";
  case DT_ERR_NOT_CONVERGED: return "not_converged";
  case DT_ERR_CANCELLED: return "cancelled";
  case DT_ERR_INTERNAL: return "internal";
  }
  return "unknown";
}

/* Countdown fault injector. Process-global on purpose: it is a test hook, not state. */
static long fault_countdown = 0;

void dt_fault_malloc_countdown(long n) { fault_countdown = n; }

static int fault_fires(void) {
  if (fault_countdown <= 0) return 0;
  return --fault_countdown == 0;
}

void *dt_malloc(size_t n) { return fault_fires() ? NULL : malloc(n); }
void *dt_calloc(size_t count, size_t size) { return fault_fires() ? NULL : calloc(count, size); }
void *dt_realloc(void *p, size_t n) { return fault_fires() ? NULL : realloc(p, n); }
void dt_free(void *p) { free(p); }
