/* Connection limits and request deadlines (see conn_limits.h). */
#include "conn_limits.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "log.h"

#define SWEEP_NS (250 * 1000000LL)
/* An over-limit connection gets this long to send its request head and hear 503. */
#define OVER_GRACE_NS (1000 * 1000000LL)

typedef struct limits {
  dt_conn *conns;
  unsigned cap;
  long long served; /* connections within the limits */
  long long max_served, max_per_client;
  int64_t header_ns;
  long long body_min_rate;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int stop;
  pthread_t reaper;
  int reaper_started, cv_ready;
} limits;

static limits g_lim = {.mu = PTHREAD_MUTEX_INITIALIZER};

unsigned dt_conn_hard_limit(const dt_config *cfg) {
  return (unsigned)(cfg->max_connections + cfg->max_connections / 4 + 16);
}

unsigned dt_conn_hard_limit_per_client(const dt_config *cfg) {
  return (unsigned)(cfg->max_connections_per_client + cfg->max_connections_per_client / 4 + 4);
}

int64_t dt_conn_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

dt_conn *dt_conn_of(struct MHD_Connection *conn) {
  const union MHD_ConnectionInfo *i =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return i ? i->socket_context : NULL;
}

/* The client's address as family + 16 bytes (IPv4 in the first 4). */
static void client_addr(struct MHD_Connection *conn, int *family, unsigned char addr[16]) {
  const union MHD_ConnectionInfo *i =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  memset(addr, 0, 16);
  *family = 0;
  if (!i || !i->client_addr) return;
  *family = i->client_addr->sa_family;
  if (*family == AF_INET)
    memcpy(addr, &((const struct sockaddr_in *)i->client_addr)->sin_addr, 4);
  else if (*family == AF_INET6)
    memcpy(addr, &((const struct sockaddr_in6 *)i->client_addr)->sin6_addr, 16);
}

dt_conn *dt_conn_opened(struct MHD_Connection *conn) {
  const union MHD_ConnectionInfo *fd =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
  dt_conn *c = NULL;
  unsigned char addr[16];
  int family;
  long long same = 0;
  client_addr(conn, &family, addr);
  pthread_mutex_lock(&g_lim.mu);
  for (unsigned i = 0; i < g_lim.cap; i++) {
    dt_conn *e = &g_lim.conns[i];
    if (!e->in_use) {
      if (!c) c = e;
    } else if (!e->over && e->family == family && !memcmp(e->addr, addr, 16)) {
      same++;
    }
  }
  if (c) {
    c->in_use = 1;
    c->reaped = 0;
    c->fd = fd ? fd->connect_fd : -1;
    c->family = family;
    memcpy(c->addr, addr, 16);
    c->over = g_lim.served >= g_lim.max_served || same >= g_lim.max_per_client;
    if (!c->over) g_lim.served++;
    c->req = NULL;
    dt_conn_phase(c, DT_CONN_WAIT_HEAD, dt_conn_now_ns());
  }
  pthread_mutex_unlock(&g_lim.mu);
  return c;
}

void dt_conn_closed(dt_conn *c) {
  if (!c) return;
  pthread_mutex_lock(&g_lim.mu);
  if (!c->over) g_lim.served--;
  c->in_use = 0;
  c->fd = -1;
  pthread_mutex_unlock(&g_lim.mu);
}

/* Whether c is past its deadline at now (1: its request head, 2: its body). */
static int late(const dt_conn *c, int64_t now) {
  int phase = atomic_load_explicit(&c->phase, memory_order_acquire);
  int64_t since = atomic_load_explicit(&c->since_ns, memory_order_relaxed);
  if (phase == DT_CONN_WAIT_HEAD)
    return now - since > (c->over ? OVER_GRACE_NS : g_lim.header_ns) ? 1 : 0;
  if (phase == DT_CONN_BODY && g_lim.body_min_rate > 0) {
    double allowed = (double)g_lim.header_ns * 1e-9 +
                     (double)atomic_load_explicit(&c->body_bytes, memory_order_relaxed) /
                         (double)g_lim.body_min_rate;
    return (double)(now - since) * 1e-9 > allowed ? 2 : 0;
  }
  return 0;
}

typedef struct closed_count {
  unsigned head, body, over;
} closed_count;

/* Shut down the connections that are late, counting them; under the mutex, so each descriptor
 * is still the connection's (dt_conn_closed comes before libmicrohttpd closes it). */
static void sweep(closed_count *n) {
  int64_t now = dt_conn_now_ns();
  for (unsigned i = 0; i < g_lim.cap; i++) {
    dt_conn *c = &g_lim.conns[i];
    int why;
    if (!c->in_use || c->reaped || c->fd < 0 || !(why = late(c, now))) continue;
    shutdown(c->fd, SHUT_RDWR);
    c->reaped = 1;
    if (c->over)
      n->over++;
    else if (why == 1)
      n->head++;
    else
      n->body++;
  }
}

static void log_closed(const closed_count *n) {
  char head[16], body[16], over[16];
  const char *kv[] = {"slow_head", head, "slow_body", body, "over_limit", over, NULL};
  snprintf(head, sizeof head, "%u", n->head);
  snprintf(body, sizeof body, "%u", n->body);
  snprintf(over, sizeof over, "%u", n->over);
  dt_log(DT_LOG_INFO, NULL, kv,
         "closed connections: no request head within %lld s, a body slower than %lld bytes/s, or "
         "over the "
         "connection limits without a request",
         (long long)(g_lim.header_ns / 1000000000LL), g_lim.body_min_rate);
}

static void *reaper_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&g_lim.mu);
  while (!g_lim.stop) {
    struct timespec ts;
    closed_count n = {0, 0, 0};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += SWEEP_NS;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&g_lim.cv, &g_lim.mu, &ts);
    if (g_lim.stop) break;
    sweep(&n);
    if (n.head + n.body + n.over > 0) {
      pthread_mutex_unlock(&g_lim.mu); /* the log line is written without holding up accepts */
      log_closed(&n);
      pthread_mutex_lock(&g_lim.mu);
    }
  }
  pthread_mutex_unlock(&g_lim.mu);
  return NULL;
}

dt_status dt_conn_limits_start(const dt_config *cfg, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pthread_condattr_t ca;
  int err;
  g_lim.cap = dt_conn_hard_limit(cfg);
  g_lim.conns = calloc(g_lim.cap, sizeof *g_lim.conns);
  DT_CHECK(g_lim.conns != NULL, ctx, DT_ERR_NOMEM, "out of memory for %u connection entries",
           g_lim.cap);
  for (unsigned i = 0; i < g_lim.cap; i++) g_lim.conns[i].fd = -1;
  g_lim.served = 0;
  g_lim.max_served = cfg->max_connections;
  g_lim.max_per_client = cfg->max_connections_per_client;
  g_lim.header_ns = (int64_t)cfg->header_timeout * 1000000000LL;
  g_lim.body_min_rate = cfg->body_min_rate;
  g_lim.stop = 0;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&g_lim.cv, &ca);
  pthread_condattr_destroy(&ca);
  g_lim.cv_ready = 1;
  err = pthread_create(&g_lim.reaper, NULL, reaper_main, NULL);
  DT_CHECK(err == 0, ctx, DT_ERR_INTERNAL, "cannot start the connection reaper thread: %s",
           strerror(err));
  g_lim.reaper_started = 1;
cleanup:
  if (rc != DT_OK) dt_conn_limits_stop();
  return rc;
}

void dt_conn_limits_stop(void) {
  if (g_lim.reaper_started) {
    pthread_mutex_lock(&g_lim.mu);
    g_lim.stop = 1;
    pthread_cond_signal(&g_lim.cv);
    pthread_mutex_unlock(&g_lim.mu);
    pthread_join(g_lim.reaper, NULL);
    g_lim.reaper_started = 0;
  }
  if (g_lim.cv_ready) pthread_cond_destroy(&g_lim.cv);
  g_lim.cv_ready = 0;
  free(g_lim.conns);
  g_lim.conns = NULL;
  g_lim.cap = 0;
}
