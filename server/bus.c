/* The change broadcast (see bus.h). Process-wide by nature: one daemon, one bus. */
#include "bus.h"

#include <pthread.h>
#include <time.h>

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static unsigned long g_gen;
static int g_closed;

/* A monotonic-clock condition variable, so wall-clock jumps do not stretch waits. */
static void init(void) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&g_cv, &a);
  pthread_condattr_destroy(&a);
}

void dt_bus_notify(void) {
  pthread_once(&g_once, init);
  pthread_mutex_lock(&g_mu);
  g_gen++;
  pthread_cond_broadcast(&g_cv);
  pthread_mutex_unlock(&g_mu);
}

unsigned long dt_bus_generation(void) {
  unsigned long g;
  pthread_mutex_lock(&g_mu);
  g = g_gen;
  pthread_mutex_unlock(&g_mu);
  return g;
}

int dt_bus_wait(unsigned long gen, double timeout_s) {
  struct timespec ts;
  int rc = 0;
  pthread_once(&g_once, init);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += (time_t)timeout_s;
  ts.tv_nsec += (long)((timeout_s - (double)(time_t)timeout_s) * 1e9);
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  pthread_mutex_lock(&g_mu);
  while (!g_closed && g_gen == gen && rc == 0) rc = pthread_cond_timedwait(&g_cv, &g_mu, &ts);
  rc = g_closed ? -1 : (g_gen != gen ? 1 : 0);
  pthread_mutex_unlock(&g_mu);
  return rc;
}

void dt_bus_close(void) {
  pthread_once(&g_once, init);
  pthread_mutex_lock(&g_mu);
  g_closed = 1;
  pthread_cond_broadcast(&g_cv);
  pthread_mutex_unlock(&g_mu);
}

int dt_bus_closed(void) {
  int c;
  pthread_mutex_lock(&g_mu);
  c = g_closed;
  pthread_mutex_unlock(&g_mu);
  return c;
}
