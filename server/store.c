/* The store's common part (see store.h, store_impl.h): the backend chosen by the database
 * setting, each thread's connection and statement cache, transactions, the work that waits for
 * a commit, and the pool of idle connections of a backend that keeps them. */
#include "store.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store_impl.h"

#define STMT_CACHE 128
#define ON_COMMIT_MAX 8
#define POOL_MAX 64 /* idle connections kept (PostgreSQL); more are closed */

/* Work that waits for the commit of the thread's transaction (dt_store_on_commit). */
typedef struct on_commit {
  void (*fn)(void *);
  void *arg;
  void (*release)(void *);
} on_commit;

typedef struct conn {
  void *db;
  struct {
    const char *sql;
    dt_sql *st;
  } cache[STMT_CACHE];
  on_commit pending[ON_COMMIT_MAX];
  int n_pending;
} conn;

/* Set once by dt_store_init before threads start. */
static const dt_store_ops *g_ops = &dt_store_sqlite_ops;
static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
/* Idle connections of a pooling backend, with their statement caches. */
static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static conn *g_pool[POOL_MAX];
static int g_n_pool;

/* Run (run != 0) or drop the work waiting for the commit, releasing its arguments. */
static void pending_end(conn *c, int run) {
  for (int i = 0; i < c->n_pending; i++) {
    if (run) c->pending[i].fn(c->pending[i].arg);
    if (c->pending[i].release) c->pending[i].release(c->pending[i].arg);
  }
  c->n_pending = 0;
}

static void conn_free(conn *c) {
  if (!c) return;
  pending_end(c, 0);
  for (int i = 0; i < STMT_CACHE; i++)
    if (c->cache[i].st) g_ops->finalize(c->cache[i].st);
  if (c->db) g_ops->disconnect(c->db);
  free(c);
}

/* A thread ends: its connection closes, or waits in the pool for another thread. */
static void conn_release(void *p) {
  conn *c = p;
  if (!c) return;
  if (g_ops->pool && c->db && g_ops->in_transaction(c->db))
    (void)g_ops->exec(c->db, "ROLLBACK", NULL);
  pending_end(c, 0);
  if (g_ops->pool && c->db && g_ops->healthy(c->db)) {
    pthread_mutex_lock(&g_pool_mu);
    if (g_n_pool < POOL_MAX) g_pool[g_n_pool++] = c, c = NULL;
    pthread_mutex_unlock(&g_pool_mu);
  }
  conn_free(c);
}

static void make_key(void) { pthread_key_create(&g_key, conn_release); }

static conn *pool_take(void) {
  conn *c = NULL;
  pthread_mutex_lock(&g_pool_mu);
  if (g_n_pool > 0) c = g_pool[--g_n_pool];
  pthread_mutex_unlock(&g_pool_mu);
  return c;
}

static dt_status thread_conn(conn **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  conn *c = NULL;
  pthread_once(&g_once, make_key);
  *out = pthread_getspecific(g_key);
  if (*out) return DT_OK;
  if (g_ops->pool) c = pool_take();
  if (!c) {
    c = calloc(1, sizeof *c);
    DT_CHECK(c != NULL, ctx, DT_ERR_NOMEM, "out of memory opening the database");
    DT_TRY(g_ops->connect(&c->db, ctx));
  }
  pthread_setspecific(g_key, c);
  *out = c;
  c = NULL;
cleanup:
  conn_free(c);
  return rc;
}

dt_status dt_store_conn(void **db, dt_ctx *ctx) {
  conn *c = NULL;
  dt_status rc = thread_conn(&c, ctx);
  *db = c ? c->db : NULL;
  return rc;
}

void dt_store_thread_close(void) {
  pthread_once(&g_once, make_key);
  conn_release(pthread_getspecific(g_key));
  pthread_setspecific(g_key, NULL);
}

int dt_store_connection_lost(void) {
  conn *c;
  if (!g_ops->lost) return 0;
  pthread_once(&g_once, make_key);
  c = pthread_getspecific(g_key);
  return g_ops->lost(c ? c->db : NULL);
}

void dt_store_shutdown(void) {
  conn *c;
  while ((c = pool_take())) conn_free(c);
}

const char *dt_store_kind(void) { return g_ops->name; }
int dt_store_shared(void) { return g_ops->shared; }

dt_status dt_store_listen_start(dt_ctx *ctx) {
  return g_ops->listen_start ? g_ops->listen_start(ctx) : DT_OK;
}
void dt_store_listen_stop(void) {
  if (g_ops->listen_stop) g_ops->listen_stop();
}

dt_status dt_store_schema_version(int *version, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  void *db = NULL;
  DT_TRY(dt_store_conn(&db, ctx));
  DT_TRY(g_ops->schema_version(db, version, ctx));
cleanup:
  return rc;
}

dt_status dt_stmt(const char *sql, dt_sql **st, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  conn *c = NULL;
  size_t h = ((size_t)sql >> 3) % STMT_CACHE;
  *st = NULL;
  DT_TRY(thread_conn(&c, ctx));
  for (int probe = 0; probe < STMT_CACHE; probe++, h = (h + 1) % STMT_CACHE) {
    if (c->cache[h].sql == sql) {
      *st = c->cache[h].st;
      goto cleanup;
    }
    if (c->cache[h].sql == NULL) {
      DT_TRY(g_ops->prepare(c->db, sql, &c->cache[h].st, ctx));
      c->cache[h].sql = sql;
      *st = c->cache[h].st;
      goto cleanup;
    }
  }
  rc = DT_ERROR(ctx, DT_ERR_INTERNAL, "the statement cache is full (%d statements)", STMT_CACHE);
cleanup:
  return rc;
}

void dt_stmt_done(dt_sql **st) {
  if (!*st) return;
  g_ops->reset(*st);
  *st = NULL;
}

dt_status dt_stmt_row(dt_sql *st, const char *what, int *row, dt_ctx *ctx) {
  return g_ops->step(st, what, row, ctx);
}

dt_status dt_stmt_page(dt_sql *st, int limit, int seq_col, json_t *(*to_json)(dt_sql *),
                       const char *what, json_t **items, long long *next, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *list = json_array(), *o = NULL;
  long long last = 0;
  int n = 0, row = 0;
  *items = NULL;
  *next = 0;
  DT_CHECK(list != NULL, ctx, DT_ERR_NOMEM, "out of memory: %s", what);
  for (;;) {
    DT_TRY(dt_stmt_row(st, what, &row, ctx));
    if (!row) break;
    if (n == limit) { /* one row more than the page: there is a next page */
      *next = last;
      break;
    }
    o = to_json(st);
    DT_CHECK(o != NULL, ctx, DT_ERR_NOMEM, "out of memory: %s", what);
    json_array_append_new(list, o);
    last = g_ops->col_int64(st, seq_col);
    n++;
  }
  *items = list;
  list = NULL;
cleanup:
  json_decref(list);
  return rc;
}

dt_status dt_stmt_run(dt_sql **st, const char *what, int *changes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int row = 0;
  DT_TRY(g_ops->step(*st, what, &row, ctx));
  if (changes) *changes = g_ops->changes(*st);
cleanup:
  dt_stmt_done(st);
  return rc;
}

static dt_status exec(const char *sql, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  void *db = NULL;
  DT_TRY(dt_store_conn(&db, ctx));
  DT_TRY(g_ops->exec(db, sql, ctx));
cleanup:
  return rc;
}

dt_status dt_store_begin(dt_ctx *ctx) { return exec(g_ops->begin, ctx); }

dt_status dt_store_begin_if_none(int *began, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  void *db = NULL;
  *began = 0;
  DT_TRY(dt_store_conn(&db, ctx));
  if (g_ops->in_transaction(db)) goto cleanup;
  DT_TRY(dt_store_begin(ctx));
  *began = 1;
cleanup:
  return rc;
}

dt_status dt_store_commit(dt_ctx *ctx) {
  dt_status rc = exec("COMMIT", ctx);
  if (rc == DT_OK) pending_end(pthread_getspecific(g_key), 1);
  return rc;
}

void dt_store_rollback(void) {
  conn *c;
  pthread_once(&g_once, make_key);
  c = pthread_getspecific(g_key);
  if (c && g_ops->in_transaction(c->db)) (void)g_ops->exec(c->db, "ROLLBACK", NULL);
  if (c) pending_end(c, 0);
}

void dt_store_on_commit(void (*fn)(void *), void *arg, void (*release)(void *)) {
  conn *c;
  pthread_once(&g_once, make_key);
  c = pthread_getspecific(g_key);
  /* Outside a transaction what was written is committed already; and a thread with more
   * waiting than the table holds runs it now rather than lose it. */
  if (!c || !g_ops->in_transaction(c->db) || c->n_pending == ON_COMMIT_MAX) {
    fn(arg);
    if (release) release(arg);
    return;
  }
  c->pending[c->n_pending].fn = fn;
  c->pending[c->n_pending].arg = arg;
  c->pending[c->n_pending].release = release;
  c->n_pending++;
}

dt_status dt_store_backup(const char *dest, dt_backup_info *info, dt_ctx *ctx) {
  return g_ops->backup(dest, info, ctx);
}

void dt_bind_text(dt_sql *st, int i, const char *s) { g_ops->bind_text(st, i, s); }
void dt_bind_int64(dt_sql *st, int i, long long v) { g_ops->bind_int64(st, i, v); }
void dt_bind_double(dt_sql *st, int i, double v) { g_ops->bind_double(st, i, v); }
void dt_bind_null(dt_sql *st, int i) { g_ops->bind_null(st, i); }
void dt_bind_blob(dt_sql *st, int i, const void *p, int n) { g_ops->bind_blob(st, i, p, n); }
const char *dt_col_text(dt_sql *st, int i) { return g_ops->col_text(st, i); }
long long dt_col_int64(dt_sql *st, int i) { return g_ops->col_int64(st, i); }
int dt_col_int(dt_sql *st, int i) { return (int)g_ops->col_int64(st, i); }
double dt_col_double(dt_sql *st, int i) { return g_ops->col_double(st, i); }
int dt_col_null(dt_sql *st, int i) { return g_ops->col_null(st, i); }
const void *dt_col_blob(dt_sql *st, int i, int *n) { return g_ops->col_blob(st, i, n); }

static int is_postgresql(const char *database) {
  return !strncmp(database, "postgresql://", 13) || !strncmp(database, "postgres://", 11) ||
         !strncmp(database, "pg:", 3);
}

dt_status dt_store_init(const char *data_dir, const char *database, dt_ctx *ctx) {
  char path[1100];
  if (database && is_postgresql(database)) {
    g_ops = &dt_store_pg_ops;
    return g_ops->open_migrate(!strncmp(database, "pg:", 3) ? database + 3 : database, ctx);
  }
  g_ops = &dt_store_sqlite_ops;
  if (database && database[0])
    snprintf(path, sizeof path, "%s", database);
  else
    snprintf(path, sizeof path, "%s/ductile.db", data_dir);
  return g_ops->open_migrate(path, ctx);
}
