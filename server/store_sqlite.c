/* The SQLite store (store_impl.h): the embedded default. One connection per thread in WAL mode,
 * BEGIN IMMEDIATE for writes, the schema version in PRAGMA user_version. A dt_sql is a
 * sqlite3_stmt. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "migrations.h"
#include "store_impl.h"

static char g_path[1100]; /* set once by open_migrate before threads start */

#define ST(s) ((sqlite3_stmt *)(s))

static int configure(sqlite3 *db) {
  sqlite3_busy_timeout(db, 10000);
  return sqlite3_exec(db,
                      "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                      "PRAGMA foreign_keys=ON;",
                      NULL, NULL, NULL);
}

/* A statement of db failed while doing what: DT_ERR_IO when the disk is full (SQLITE_FULL: the
 * database or its write-ahead log could not grow), which is no fault of the store and which a
 * client is told as 507 insufficient_storage; DT_ERR_DB otherwise. */
static dt_status store_failure(sqlite3 *db, const char *what, dt_ctx *ctx) {
  return DT_ERROR(ctx, sqlite3_errcode(db) == SQLITE_FULL ? DT_ERR_IO : DT_ERR_DB,
                  "database error (%s): %s", what, sqlite3_errmsg(db));
}

static dt_status lite_connect(void **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  sqlite3 *db = NULL;
  *out = NULL;
  DT_CHECK(sqlite3_open_v2(g_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
                   SQLITE_OK &&
               configure(db) == SQLITE_OK,
           ctx, DT_ERR_DB, "cannot open the database %s: %s", g_path,
           db ? sqlite3_errmsg(db) : "no memory");
  *out = db;
  db = NULL;
cleanup:
  sqlite3_close(db);
  return rc;
}

static void lite_disconnect(void *db) { sqlite3_close(db); }

static dt_status lite_prepare(void *db, const char *sql, dt_sql **out, dt_ctx *ctx) {
  sqlite3_stmt *st = NULL;
  *out = NULL;
  if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return DT_ERROR(ctx, DT_ERR_DB, "cannot prepare SQL: %s: %.80s", sqlite3_errmsg(db), sql);
  }
  *out = (dt_sql *)st;
  return DT_OK;
}

static void lite_finalize(dt_sql *st) { sqlite3_finalize(ST(st)); }

static void lite_reset(dt_sql *st) {
  sqlite3_reset(ST(st));
  sqlite3_clear_bindings(ST(st));
}

static dt_status lite_step(dt_sql *st, const char *what, int *row, dt_ctx *ctx) {
  int step = sqlite3_step(ST(st));
  *row = step == SQLITE_ROW;
  if (step == SQLITE_ROW || step == SQLITE_DONE) return DT_OK;
  return store_failure(sqlite3_db_handle(ST(st)), what, ctx);
}

static int lite_changes(dt_sql *st) { return sqlite3_changes(sqlite3_db_handle(ST(st))); }

static dt_status lite_exec(void *db, const char *sql, dt_ctx *ctx) {
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) return store_failure(db, sql, ctx);
  return DT_OK;
}

static int lite_in_transaction(void *db) { return db && !sqlite3_get_autocommit(db); }
static int lite_healthy(void *db) { return db != NULL; }

static void lite_bind_text(dt_sql *st, int i, const char *s) {
  if (s)
    sqlite3_bind_text(ST(st), i, s, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(ST(st), i);
}
static void lite_bind_int64(dt_sql *st, int i, long long v) { sqlite3_bind_int64(ST(st), i, v); }
static void lite_bind_double(dt_sql *st, int i, double v) { sqlite3_bind_double(ST(st), i, v); }
static void lite_bind_null(dt_sql *st, int i) { sqlite3_bind_null(ST(st), i); }
static void lite_bind_blob(dt_sql *st, int i, const void *p, int n) {
  sqlite3_bind_blob(ST(st), i, p, n, SQLITE_TRANSIENT);
}

static const char *lite_col_text(dt_sql *st, int i) {
  const unsigned char *t = sqlite3_column_text(ST(st), i);
  return t ? (const char *)t : "";
}
static long long lite_col_int64(dt_sql *st, int i) { return sqlite3_column_int64(ST(st), i); }
static double lite_col_double(dt_sql *st, int i) { return sqlite3_column_double(ST(st), i); }
static int lite_col_null(dt_sql *st, int i) {
  return sqlite3_column_type(ST(st), i) == SQLITE_NULL;
}
static const void *lite_col_blob(dt_sql *st, int i, int *n) {
  const void *p = sqlite3_column_blob(ST(st), i);
  *n = sqlite3_column_bytes(ST(st), i);
  return p;
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

static dt_status lite_schema_version(void *db, int *version, dt_ctx *ctx) {
  *version = user_version(db);
  if (*version < 0)
    return DT_ERROR(ctx, DT_ERR_DB, "cannot read the schema version: %s", sqlite3_errmsg(db));
  return DT_OK;
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

static dt_status lite_open_migrate(const char *path, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  sqlite3 *db = NULL;
  snprintf(g_path, sizeof g_path, "%s", path);
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

static dt_status lite_backup(const char *dest, dt_backup_info *info, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  void *db = NULL;
  DT_TRY(dt_store_conn(&db, ctx));
  DT_TRY(dt_store_backup_sqlite(db, dest, info, ctx));
cleanup:
  return rc;
}

const dt_store_ops dt_store_sqlite_ops = {
    .name = "sqlite",
    .shared = 0,
    .pool = 0,
    .begin = "BEGIN IMMEDIATE",
    .open_migrate = lite_open_migrate,
    .schema_version = lite_schema_version,
    .connect = lite_connect,
    .disconnect = lite_disconnect,
    .prepare = lite_prepare,
    .finalize = lite_finalize,
    .reset = lite_reset,
    .step = lite_step,
    .changes = lite_changes,
    .exec = lite_exec,
    .in_transaction = lite_in_transaction,
    .healthy = lite_healthy,
    .bind_text = lite_bind_text,
    .bind_int64 = lite_bind_int64,
    .bind_double = lite_bind_double,
    .bind_null = lite_bind_null,
    .bind_blob = lite_bind_blob,
    .col_text = lite_col_text,
    .col_int64 = lite_col_int64,
    .col_double = lite_col_double,
    .col_null = lite_col_null,
    .col_blob = lite_col_blob,
    .backup = lite_backup,
};
