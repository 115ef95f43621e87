/* Counters (see metrics.h). Atomics for the HTTP counters (hot path), a mutex for the
 * solve-time histogram. */
#include "metrics.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_ulong g_http[600];
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static const double BUCKETS[] = {0.1, 1, 10, 60, 300, 1800, 7200};
#define NB (sizeof BUCKETS / sizeof BUCKETS[0])
static unsigned long g_solve_bucket[NB], g_solve_count, g_outcome[3];
static double g_solve_sum;
static const char *const OUTCOMES[3] = {"succeeded", "failed", "cancelled"};

void dt_metrics_http(int status) {
  if (status >= 100 && status < 600) atomic_fetch_add(&g_http[status], 1);
}

void dt_metrics_solve(double seconds, const char *outcome) {
  pthread_mutex_lock(&g_mu);
  for (size_t i = 0; i < NB; i++)
    if (seconds <= BUCKETS[i]) g_solve_bucket[i]++;
  g_solve_count++;
  g_solve_sum += seconds;
  for (int i = 0; i < 3; i++)
    if (!strcmp(outcome, OUTCOMES[i])) g_outcome[i]++;
  pthread_mutex_unlock(&g_mu);
}

typedef struct buf {
  char *p;
  size_t n, cap;
  int oom;
} buf;

static void add(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void add(buf *b, const char *fmt, ...) {
  va_list ap;
  int k;
  if (b->oom) return;
  for (;;) {
    va_start(ap, fmt);
    k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    if (k >= 0 && b->n + (size_t)k < b->cap) break;
    {
      size_t cap = b->cap * 2 + (size_t)k + 64;
      char *np = realloc(b->p, cap);
      if (!np) {
        b->oom = 1;
        return;
      }
      b->p = np, b->cap = cap;
    }
  }
  b->n += (size_t)k;
}

char *dt_metrics_render(const char *extra) {
  buf b = {malloc(4096), 0, 4096, 0};
  if (!b.p) return NULL;
  b.p[0] = '\0';
  add(&b, "# HELP ductile_http_requests_total HTTP requests answered, by status code.\n"
          "# TYPE ductile_http_requests_total counter\n");
  for (int s = 100; s < 600; s++) {
    unsigned long v = atomic_load(&g_http[s]);
    if (v) add(&b, "ductile_http_requests_total{code=\"%d\"} %lu\n", s, v);
  }
  pthread_mutex_lock(&g_mu);
  add(&b, "# HELP ductile_solve_seconds Wall time of finished solves.\n# TYPE "
          "ductile_solve_seconds histogram\n");
  for (size_t i = 0; i < NB; i++)
    add(&b, "ductile_solve_seconds_bucket{le=\"%g\"} %lu\n", BUCKETS[i], g_solve_bucket[i]);
  add(&b, "ductile_solve_seconds_bucket{le=\"+Inf\"} %lu\n", g_solve_count);
  add(&b, "ductile_solve_seconds_sum %.6f\nductile_solve_seconds_count %lu\n", g_solve_sum,
      g_solve_count);
  add(&b, "# HELP ductile_jobs_finished_total Jobs finished since start, by outcome.\n"
          "# TYPE ductile_jobs_finished_total counter\n");
  for (int i = 0; i < 3; i++)
    add(&b, "ductile_jobs_finished_total{state=\"%s\"} %lu\n", OUTCOMES[i], g_outcome[i]);
  pthread_mutex_unlock(&g_mu);
  if (extra) add(&b, "%s", extra);
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  return b.p;
}
