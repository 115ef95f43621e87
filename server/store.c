/* SQLite connections, statement cache, transactions and migrations (see store.h). */
#include "store.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "migrations.h"

#define STMT_CACHE 128

typedef struct conn {
  sqlite3 *db;
  struct {
    const char *sql;
    sqlite3_stmt *st;
  } cache[STMT_CACHE];
} conn;

static char g_path[1100];          /* set once by dt_store_init before threads start */
static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void conn_free(void *p) {
  conn *c = p;
  if (!c) return;
  for (int i = 0; i < STMT_CACHE; i++) sqlite3_finalize(c->cache[i].st);
  sqlite3_close(c->db);
  free(c);
}

static void make_key(void) { pthread_key_create(&g_key, conn_free); }

static int configure(sqlite3 *db) {
  sqlite3_busy_timeout(db, 10000);
  return sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                          "PRAGMA foreign_keys=ON;", NULL, NULL, NULL);
}

static conn *thread_conn(void) {
  conn *c;
  pthread_once(&g_once, make_key);
  c = pthread_getspecific(g_key);
  if (c) return c;
  c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (sqlite3_open_v2(g_path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
      configure(c->db) != SQLITE_OK) {
    dt_log_error("cannot open the database %s: %s", g_path, c->db ? sqlite3_errmsg(c->db) : "no memory");
    conn_free(c);
    return NULL;
  }
  pthread_setspecific(g_key, c);
  return c;
}

sqlite3 *dt_db(void) {
  conn *c = thread_conn();
  return c ? c->db : NULL;
}

void dt_store_thread_close(void) {
  pthread_once(&g_once, make_key);
  conn_free(pthread_getspecific(g_key));
  pthread_setspecific(g_key, NULL);
}

sqlite3_stmt *dt_stmt(const char *sql) {
  conn *c = thread_conn();
  size_t h;
  if (!c) return NULL;
  h = ((size_t)sql >> 3) % STMT_CACHE;
  for (int probe = 0; probe < STMT_CACHE; probe++, h = (h + 1) % STMT_CACHE) {
    if (c->cache[h].sql == sql) return c->cache[h].st;
    if (c->cache[h].sql == NULL) {
      if (sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &c->cache[h].st, NULL) != SQLITE_OK) {
        dt_log_error("cannot prepare SQL: %s: %.80s", sqlite3_errmsg(c->db), sql);
        sqlite3_finalize(c->cache[h].st);
        c->cache[h].st = NULL;
        return NULL;
      }
      c->cache[h].sql = sql;
      return c->cache[h].st;
    }
  }
  dt_log_error("statement cache full");
  return NULL;
}

void dt_stmt_done(sqlite3_stmt *st) {
  if (!st) return;
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
}

int dt_stmt_exec_done(sqlite3_stmt *st, const char *what) {
  int rc = sqlite3_step(st) == SQLITE_DONE ? DT_STORE_OK : dt_store_fail(what);
  dt_stmt_done(st);
  return rc;
}

static int exec(const char *sql) {
  sqlite3 *db = dt_db();
  if (!db) return DT_STORE_ERR;
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) return dt_store_fail(sql);
  return DT_STORE_OK;
}

int dt_store_begin(void) { return exec("BEGIN IMMEDIATE"); }
int dt_store_commit(void) { return exec("COMMIT"); }
void dt_store_rollback(void) {
  sqlite3 *db = dt_db();
  if (db && !sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

int dt_store_fail(const char *what) {
  sqlite3 *db = dt_db();
  dt_log_error("database error (%s): %s", what, db ? sqlite3_errmsg(db) : "no connection");
  return DT_STORE_ERR;
}

void dt_bind_text(sqlite3_stmt *st, int i, const char *s) {
  if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
  else sqlite3_bind_null(st, i);
}

const char *dt_col_text(sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  return t ? (const char *)t : "";
}

static int user_version(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  int v = -1;
  if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Apply each migration above user_version in its own transaction, bumping the version in it. */
static int migrate(sqlite3 *db, char *err, size_t errlen) {
  int have = user_version(db), latest = 0;
  for (const dt_migration *m = dt_migrations; m->version; m++) latest = m->version;
  if (have < 0) {
    snprintf(err, errlen, "cannot read the schema version: %s", sqlite3_errmsg(db));
    return -1;
  }
  if (have > latest) {
    snprintf(err, errlen, "the database has schema version %d, newer than this ductiled (%d)", have, latest);
    return -1;
  }
  for (const dt_migration *m = dt_migrations; m->version; m++) {
    char bump[64];
    if (m->version <= have) continue;
    snprintf(bump, sizeof bump, "PRAGMA user_version=%d", m->version);
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, m->sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, bump, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
      snprintf(err, errlen, "migration %s failed: %s", m->name, sqlite3_errmsg(db));
      sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
      return -1;
    }
    dt_log_info("applied schema migration %s", m->name);
  }
  return 0;
}

int dt_store_init(const char *data_dir, char *err, size_t errlen) {
  sqlite3 *db = NULL;
  int rc;
  snprintf(g_path, sizeof g_path, "%s/ductile.db", data_dir);
  if (sqlite3_open_v2(g_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
      SQLITE_OK) {
    snprintf(err, errlen, "cannot open the database %s: %s", g_path, db ? sqlite3_errmsg(db) : "no memory");
    sqlite3_close(db);
    return -1;
  }
  if (configure(db) != SQLITE_OK) {
    snprintf(err, errlen, "cannot configure the database %s: %s", g_path, sqlite3_errmsg(db));
    sqlite3_close(db);
    return -1;
  }
  rc = migrate(db, err, errlen);
  sqlite3_close(db);
  return rc;
}
