/* SQLite connections, statement cache, transactions and migrations (see store.h). */
#include "store.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "migrations.h"

#define STMT_CACHE 128
#define ON_COMMIT_MAX 8

/* Work that waits for the commit of the thread's transaction (dt_store_on_commit). */
typedef struct on_commit {
  void (*fn)(void *);
  void *arg;
  void (*release)(void *);
} on_commit;

typedef struct conn {
  sqlite3 *db;
  struct {
    const char *sql;
    sqlite3_stmt *st;
  } cache[STMT_CACHE];
  on_commit pending[ON_COMMIT_MAX];
  int n_pending;
} conn;

static char g_path[1100]; /* set once by dt_store_init before threads start */
static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Run (run != 0) or drop the work waiting for the commit, releasing its arguments. */
static void pending_end(conn *c, int run) {
  for (int i = 0; i < c->n_pending; i++) {
    if (run) c->pending[i].fn(c->pending[i].arg);
    if (c->pending[i].release) c->pending[i].release(c->pending[i].arg);
  }
  c->n_pending = 0;
}

static void conn_free(void *p) {
  conn *c = p;
  if (!c) return;
  pending_end(c, 0);
  for (int i = 0; i < STMT_CACHE; i++) sqlite3_finalize(c->cache[i].st);
  sqlite3_close(c->db);
  free(c);
}

static void make_key(void) { pthread_key_create(&g_key, conn_free); }

static int configure(sqlite3 *db) {
  sqlite3_busy_timeout(db, 10000);
  return sqlite3_exec(db,
                      "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                      "PRAGMA foreign_keys=ON;",
                      NULL, NULL, NULL);
}

static dt_status thread_conn(conn **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  conn *c;
  pthread_once(&g_once, make_key);
  *out = pthread_getspecific(g_key);
  if (*out) return DT_OK;
  c = calloc(1, sizeof *c);
  DT_CHECK(c != NULL, ctx, DT_ERR_NOMEM, "out of memory opening the database");
  DT_CHECK(sqlite3_open_v2(g_path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
                   SQLITE_OK &&
               configure(c->db) == SQLITE_OK,
           ctx, DT_ERR_DB, "cannot open the database %s: %s", g_path,
           c->db ? sqlite3_errmsg(c->db) : "no memory");
  pthread_setspecific(g_key, c);
  *out = c;
  c = NULL;
cleanup:
  conn_free(c);
  return rc;
}

dt_status dt_db(sqlite3 **db, dt_ctx *ctx) {
  conn *c = NULL;
  dt_status rc = thread_conn(&c, ctx);
  *db = c ? c->db : NULL;
  return rc;
}

void dt_store_thread_close(void) {
  pthread_once(&g_once, make_key);
  conn_free(pthread_getspecific(g_key));
  pthread_setspecific(g_key, NULL);
}

dt_status dt_stmt(const char *sql, sqlite3_stmt **st, dt_ctx *ctx) {
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
      if (sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &c->cache[h].st, NULL) !=
          SQLITE_OK) {
        rc = DT_ERROR(ctx, DT_ERR_DB, "cannot prepare SQL: %s: %.80s", sqlite3_errmsg(c->db), sql);
        sqlite3_finalize(c->cache[h].st);
        c->cache[h].st = NULL;
        goto cleanup;
      }
      c->cache[h].sql = sql;
      *st = c->cache[h].st;
      goto cleanup;
    }
  }
  rc = DT_ERROR(ctx, DT_ERR_INTERNAL, "the statement cache is full (%d statements)", STMT_CACHE);
cleanup:
  return rc;
}

void dt_stmt_done(sqlite3_stmt **st) {
  if (!*st) return;
  sqlite3_reset(*st);
  sqlite3_clear_bindings(*st);
  *st = NULL;
}

/* A statement of db failed while doing what: DT_ERR_IO when the disk is full (SQLITE_FULL: the
 * database or its write-ahead log could not grow), which is no fault of the store and which a
 * client is told as 507 insufficient_storage; DT_ERR_DB otherwise. */
static dt_status store_failure(sqlite3 *db, const char *what, dt_ctx *ctx) {
  return DT_ERROR(ctx, sqlite3_errcode(db) == SQLITE_FULL ? DT_ERR_IO : DT_ERR_DB,
                  "database error (%s): %s", what, sqlite3_errmsg(db));
}

dt_status dt_stmt_row(sqlite3_stmt *st, const char *what, int *row, dt_ctx *ctx) {
  int step = sqlite3_step(st);
  *row = step == SQLITE_ROW;
  if (step == SQLITE_ROW || step == SQLITE_DONE) return DT_OK;
  return store_failure(sqlite3_db_handle(st), what, ctx);
}

dt_status dt_stmt_page(sqlite3_stmt *st, int limit, int seq_col, json_t *(*to_json)(sqlite3_stmt *),
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
    last = sqlite3_column_int64(st, seq_col);
    n++;
  }
  *items = list;
  list = NULL;
cleanup:
  json_decref(list);
  return rc;
}

dt_status dt_stmt_run(sqlite3_stmt **st, const char *what, int *changes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  sqlite3 *db = sqlite3_db_handle(*st);
  if (sqlite3_step(*st) != SQLITE_DONE) {
    rc = store_failure(db, what, ctx);
    goto cleanup;
  }
  if (changes) *changes = sqlite3_changes(db);
cleanup:
  dt_stmt_done(st);
  return rc;
}

static dt_status exec(const char *sql, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  sqlite3 *db = NULL;
  DT_TRY(dt_db(&db, ctx));
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) rc = store_failure(db, sql, ctx);
cleanup:
  return rc;
}

dt_status dt_store_begin(dt_ctx *ctx) { return exec("BEGIN IMMEDIATE", ctx); }

dt_status dt_store_begin_if_none(int *began, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  sqlite3 *db = NULL;
  *began = 0;
  DT_TRY(dt_db(&db, ctx));
  if (!sqlite3_get_autocommit(db)) goto cleanup;
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
  if (c && !sqlite3_get_autocommit(c->db)) sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
  if (c) pending_end(c, 0);
}

void dt_store_on_commit(void (*fn)(void *), void *arg, void (*release)(void *)) {
  conn *c;
  pthread_once(&g_once, make_key);
  c = pthread_getspecific(g_key);
  /* Outside a transaction what was written is committed already; and a thread with more
   * waiting than the table holds runs it now rather than lose it. */
  if (!c || sqlite3_get_autocommit(c->db) || c->n_pending == ON_COMMIT_MAX) {
    fn(arg);
    if (release) release(arg);
    return;
  }
  c->pending[c->n_pending].fn = fn;
  c->pending[c->n_pending].arg = arg;
  c->pending[c->n_pending].release = release;
  c->n_pending++;
}

void dt_bind_text(sqlite3_stmt *st, int i, const char *s) {
  if (s)
    sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(st, i);
}

const char *dt_col_text(sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  return t ? (const char *)t : "";
}

static int user_version(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  int v = -1;
  if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Apply each migration above user_version in its own transaction, bumping the version in it. */
static dt_status migrate(sqlite3 *db, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int have = user_version(db), latest = 0;
  for (const dt_migration *m = dt_migrations; m->version; m++) latest = m->version;
  DT_CHECK(have >= 0, ctx, DT_ERR_DB, "cannot read the schema version: %s", sqlite3_errmsg(db));
  DT_CHECK(have <= latest, ctx, DT_ERR_DB,
           "the database has schema version %d, newer than this ductiled (%d)", have, latest);
  for (const dt_migration *m = dt_migrations; m->version; m++) {
    char bump[64];
    if (m->version <= have) continue;
    snprintf(bump, sizeof bump, "PRAGMA user_version=%d", m->version);
    DT_CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK &&
                 sqlite3_exec(db, m->sql, NULL, NULL, NULL) == SQLITE_OK &&
                 sqlite3_exec(db, bump, NULL, NULL, NULL) == SQLITE_OK &&
                 sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK,
             ctx, DT_ERR_DB, "migration %s failed: %s", m->name, sqlite3_errmsg(db));
    dt_log_info("applied schema migration %s", m->name);
  }
cleanup:
  if (rc != DT_OK && !sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

dt_status dt_store_init(const char *data_dir, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  sqlite3 *db = NULL;
  snprintf(g_path, sizeof g_path, "%s/ductile.db", data_dir);
  DT_CHECK(sqlite3_open_v2(g_path, &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           NULL) == SQLITE_OK,
           ctx, DT_ERR_DB, "cannot open the database %s: %s", g_path,
           db ? sqlite3_errmsg(db) : "no memory");
  DT_CHECK(configure(db) == SQLITE_OK, ctx, DT_ERR_DB, "cannot configure the database %s: %s",
           g_path, sqlite3_errmsg(db));
  DT_TRY(migrate(db, ctx));
cleanup:
  sqlite3_close(db);
  return rc;
}
