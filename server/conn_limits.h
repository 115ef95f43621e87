/* Connection limits and request deadlines, on top of libmicrohttpd's own.
 *
 * libmicrohttpd closes a connection beyond its limits (all connections, connections of one
 * address) right after accepting it, without a word, and its idle timeout restarts with every
 * byte received, so a client that sends one byte every few seconds (slowloris) keeps a
 * connection, and its thread, for ever. This module keeps its own, lower limits and the
 * deadlines that an idle timeout cannot express:
 *
 * - A connection accepted while max_connections are served, or while its address has
 *   max_connections_per_client, is "over": its request gets 503 too_many_connections (http.c)
 *   and the connection is closed; one that sends no complete request head within a second is
 *   closed unanswered. libmicrohttpd's limits sit above these (dt_conn_hard_limit), so a
 *   client that opens a few connections too many mostly hears why.
 * - A connection must deliver a complete request head within header_timeout of its accept or
 *   of its previous reply, and a request body must average body_min_rate bytes per second
 *   after its first header_timeout seconds. A reaper thread checks four times a second and
 *   closes the late ones (shutdown(2): libmicrohttpd's thread sees the end of the stream and
 *   closes the connection the usual way).
 *
 * The connection's thread updates its phase with atomic stores (no lock per request); the
 * table's mutex is taken on accept, on close and by the reaper. */
#ifndef DT_SRV_CONN_LIMITS_H
#define DT_SRV_CONN_LIMITS_H

#include <microhttpd.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "status.h"

typedef struct dt_conn {
  /* Set on accept, under the table's mutex, before the connection's thread exists. */
  int in_use;
  int over; /* beyond a soft limit: its requests get 503 */
  int fd;
  int family;
  unsigned char addr[16];
  int reaped; /* the reaper has shut it down */
  /* The connection's thread writes these; the reaper reads them. */
  _Atomic int phase;        /* DT_CONN_* */
  _Atomic int64_t since_ns; /* when the phase began (monotonic) */
  _Atomic uint64_t body_bytes;
  /* The request being served (struct dt_req *), for replies libmicrohttpd makes by itself;
   * touched only by the connection's thread. */
  void *req;
} dt_conn;

enum { DT_CONN_WAIT_HEAD = 0, DT_CONN_BODY = 1, DT_CONN_BUSY = 2 };

/* libmicrohttpd's own limits for this configuration: all connections, connections per address. */
unsigned dt_conn_hard_limit(const dt_config *cfg);
unsigned dt_conn_hard_limit_per_client(const dt_config *cfg);

/* Allocate the table (dt_conn_hard_limit entries) and start the reaper. */
dt_status dt_conn_limits_start(const dt_config *cfg, dt_ctx *ctx);
/* Stop the reaper and free the table; after libmicrohttpd has stopped (every connection closed). */
void dt_conn_limits_stop(void);

/* A connection libmicrohttpd accepted (MHD_CONNECTION_NOTIFY_STARTED): its entry, or NULL when
 * the table has no room (libmicrohttpd's limit is the table's size, so it does not happen). */
dt_conn *dt_conn_opened(struct MHD_Connection *conn);
/* MHD_CONNECTION_NOTIFY_CLOSED: before libmicrohttpd closes the socket, so the reaper never
 * shuts down a descriptor number that a new connection reuses. */
void dt_conn_closed(dt_conn *c);
/* The entry of a connection (its socket context), or NULL. */
dt_conn *dt_conn_of(struct MHD_Connection *conn);

/* Monotonic nanoseconds. */
int64_t dt_conn_now_ns(void);
/* Phase changes of the connection's thread: a request head arrived (body: its body follows),
 * the body is complete (the handler runs, the reply goes out), the reply is sent. */
static inline void dt_conn_phase(dt_conn *c, int phase, int64_t now_ns) {
  if (!c) return;
  atomic_store_explicit(&c->since_ns, now_ns, memory_order_relaxed);
  atomic_store_explicit(&c->body_bytes, 0, memory_order_relaxed);
  atomic_store_explicit(&c->phase, phase, memory_order_release);
}
static inline void dt_conn_body(dt_conn *c, size_t n) {
  if (c) atomic_fetch_add_explicit(&c->body_bytes, n, memory_order_relaxed);
}

#endif
