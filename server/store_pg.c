/* The PostgreSQL store (store_impl.h, through libpq): several daemons share one database.
 *
 * SQL is the SQLite text translated once per connection (store_dialect.c) and prepared on the
 * server at its first execution, with the types of that execution's parameters (integers int8,
 * reals float8, text text, blobs bytea in binary; a NULL of no type left for the server to infer
 * from the query); results come back as text. Every commit also notifies the channel "ductile"
 * (NOTIFY before COMMIT: delivered only if the transaction commits), and each daemon listens to
 * it on a connection of its own (listen_start) and wakes its bus: idle workers claim the job a
 * peer queued, and event streams send the events a peer's worker appended.
 *
 * Migrations: the same files as SQLite's, translated; the version is the row of the table
 * ductile_schema; each migration runs in its own transaction under an advisory lock, so daemons
 * that start together apply each migration once. The SQLite functions the queries use are
 * created first (schema/postgresql/compat.sql).
 *
 * A connection that breaks (the server restarted, a network drop) is reset at once. A statement
 * that finds it broken outside a transaction (a connection idle in the pool or in its thread
 * while the server restarted) runs again on the new connection: only the first statement of a
 * transaction can, since the rest of a transaction is lost with its connection. A statement in a
 * transaction fails (DT_ERR_DB), and while the server is down every statement fails after one
 * connection attempt, bounded by connect_timeout; keepalives and tcp_user_timeout bound a
 * statement whose server vanished without closing the connection (defaults below that the
 * database setting may override). pg_lost says which failure it was, so that callers can wait
 * for the database rather than give up (store.h, dt_store_connection_lost). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store_impl.h"

#ifdef DUCTILE_HAVE_LIBPQ

#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include "bus.h"
#include "migrations.h"

#define MAX_PARAMS 16
#define OID_BYTEA 17
#define OID_TEXT 25
#define OID_INT8 20
#define OID_FLOAT8 701
#define CHANNEL "ductile"

extern const char dt_pg_compat_sql[]; /* schema/postgresql/compat.sql, embedded */

static char g_conninfo[2048]; /* set once by open_migrate before threads start */

typedef struct pg_conn {
  PGconn *pg;
  int epoch; /* incremented when the connection is reset: prepared statements are gone */
  int n_stmts;
  int lost; /* the last failure was the connection's (broken, or the server refused it) */
} pg_conn;

typedef struct pg_stmt {
  pg_conn *c;
  char *sql; /* translated */
  const char *orig;
  char name[24];
  int prepared_epoch; /* -1: not prepared on the server */
  int n_params;
  const char *vals[MAX_PARAMS];
  char *owned[MAX_PARAMS]; /* copies of text and blob values */
  char num[MAX_PARAMS][32];
  int lens[MAX_PARAMS], fmts[MAX_PARAMS];
  Oid types[MAX_PARAMS];
  PGresult *res;
  int executed, row, n_rows, changes;
  unsigned char *blob; /* the last unescaped bytea column */
} pg_stmt;

#define PS(s) ((pg_stmt *)(s))

/* A connection to the database setting, with bounds on how long a server that does not answer
 * holds a thread: 3 s to connect, TCP keepalives after 5 s idle, and 10 s for unacknowledged
 * data. The setting (a URI or key=value string, expanded as dbname) comes last, so its own
 * values win. */
static PGconn *connect_bounded(void) {
  static const char *const keys[] = {
      "connect_timeout",  "keepalives",       "keepalives_idle", "keepalives_interval",
      "keepalives_count", "tcp_user_timeout", "dbname",          NULL};
  const char *vals[] = {"3", "1", "5", "2", "3", "10000", g_conninfo, NULL};
  return PQconnectdbParams(keys, vals, 1);
}

static dt_status pg_new(pg_conn **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pg_conn *c = calloc(1, sizeof *c);
  *out = NULL;
  DT_CHECK(c != NULL, ctx, DT_ERR_NOMEM, "out of memory connecting to PostgreSQL");
  c->pg = connect_bounded();
  DT_CHECK(c->pg && PQstatus(c->pg) == CONNECTION_OK, ctx, DT_ERR_DB,
           "cannot connect to PostgreSQL: %s", c->pg ? PQerrorMessage(c->pg) : "out of memory");
  *out = c;
  c = NULL;
cleanup:
  if (c) PQfinish(c->pg);
  free(c);
  return rc;
}

static dt_status pg_connect(void **out, dt_ctx *ctx) {
  pg_conn *c = NULL;
  dt_status rc = pg_new(&c, ctx);
  *out = c;
  return rc;
}

static void pg_disconnect(void *db) {
  pg_conn *c = db;
  if (!c) return;
  PQfinish(c->pg);
  free(c);
}

/* A failed result or connection: DT_ERR_IO for a full disk (SQLSTATE 53100), DT_ERR_DB
 * otherwise; a broken connection is reset for the next statement. */
static dt_status pg_failure(pg_conn *c, const PGresult *res, const char *what, dt_ctx *ctx) {
  const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", res ? PQresultErrorMessage(res) : PQerrorMessage(c->pg));
  msg[strcspn(msg, "\n")] = '\0';
  c->lost = PQstatus(c->pg) == CONNECTION_BAD;
  if (c->lost) {
    PQreset(c->pg);
    c->epoch++;
  }
  return DT_ERROR(ctx, state && !strcmp(state, "53100") ? DT_ERR_IO : DT_ERR_DB,
                  "database error (%s): %s", what, msg[0] ? msg : "PostgreSQL failed");
}

/* The highest ?N of sql: how many parameters it takes. */
static int count_params(const char *sql) {
  int n = 0;
  for (const char *p = sql; (p = strchr(p, '?')); p++) {
    int k = atoi(p + 1);
    if (k > n) n = k;
  }
  return n;
}

static dt_status pg_prepare(void *db, const char *sql, dt_sql **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pg_conn *c = db;
  pg_stmt *s = calloc(1, sizeof *s);
  *out = NULL;
  DT_CHECK(s != NULL, ctx, DT_ERR_NOMEM, "out of memory preparing SQL");
  s->sql = dt_sql_to_pg(sql);
  DT_CHECK(s->sql != NULL, ctx, DT_ERR_NOMEM, "out of memory preparing SQL");
  s->n_params = count_params(sql);
  DT_CHECK(s->n_params <= MAX_PARAMS, ctx, DT_ERR_INTERNAL,
           "SQL with %d parameters, at most %d: %.80s", s->n_params, MAX_PARAMS, sql);
  s->c = c;
  s->orig = sql;
  s->prepared_epoch = -1;
  snprintf(s->name, sizeof s->name, "dt%d", c->n_stmts++);
  *out = (dt_sql *)s;
  s = NULL;
cleanup:
  if (s) free(s->sql);
  free(s);
  return rc;
}

static void clear_param(pg_stmt *s, int k) {
  free(s->owned[k]);
  s->owned[k] = NULL;
  s->vals[k] = NULL;
  s->lens[k] = 0;
  s->fmts[k] = 0;
  s->types[k] = 0;
}

static void pg_reset(dt_sql *st) {
  pg_stmt *s = PS(st);
  PQclear(s->res);
  s->res = NULL;
  PQfreemem(s->blob);
  s->blob = NULL;
  s->executed = 0;
  for (int k = 0; k < s->n_params; k++) clear_param(s, k);
}

static void pg_finalize(dt_sql *st) {
  pg_stmt *s = PS(st);
  pg_reset(st);
  free(s->sql);
  free(s);
}

/* Prepare s on the server for this connection (again after a reset). */
static dt_status server_prepare(pg_stmt *s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  PGresult *r = NULL;
  if (s->prepared_epoch == s->c->epoch) return DT_OK;
  r = PQprepare(s->c->pg, s->name, s->sql, s->n_params, s->types);
  if (PQresultStatus(r) != PGRES_COMMAND_OK) {
    rc = pg_failure(s->c, r, "prepare", ctx);
    if (ctx)
      snprintf(ctx->msg + strlen(ctx->msg), sizeof ctx->msg - strlen(ctx->msg), ": %.80s", s->orig);
    goto cleanup;
  }
  s->prepared_epoch = s->c->epoch;
cleanup:
  PQclear(r);
  return rc;
}

static dt_status execute_once(pg_stmt *s, const char *what, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  ExecStatusType status;
  DT_TRY(server_prepare(s, ctx));
  s->res = PQexecPrepared(s->c->pg, s->name, s->n_params, s->vals, s->lens, s->fmts, 0);
  status = PQresultStatus(s->res);
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    rc = pg_failure(s->c, s->res, what, ctx);
    goto cleanup;
  }
  s->n_rows = status == PGRES_TUPLES_OK ? PQntuples(s->res) : 0;
  s->changes = atoi(PQcmdTuples(s->res));
  s->row = -1;
  s->executed = 1;
  s->c->lost = 0;
cleanup:
  return rc;
}

/* Whether a statement that failed on c may run again: c was idle (no transaction lost with it)
 * and broke, and the reset reconnected. */
static int again_after_reset(pg_conn *c, int idle, int epoch) {
  return idle && c->epoch != epoch && PQstatus(c->pg) == CONNECTION_OK;
}

static dt_status execute(pg_stmt *s, const char *what, dt_ctx *ctx) {
  int idle = PQtransactionStatus(s->c->pg) == PQTRANS_IDLE, epoch = s->c->epoch;
  dt_status rc = execute_once(s, what, ctx);
  if (rc == DT_OK || !again_after_reset(s->c, idle, epoch)) return rc;
  PQclear(s->res);
  s->res = NULL;
  if (ctx) dt_ctx_reset(ctx);
  return execute_once(s, what, ctx);
}

static dt_status pg_step(dt_sql *st, const char *what, int *row, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pg_stmt *s = PS(st);
  *row = 0;
  if (!s->executed) DT_TRY(execute(s, what, ctx));
  PQfreemem(s->blob);
  s->blob = NULL;
  if (s->row < s->n_rows) s->row++;
  *row = s->row < s->n_rows;
cleanup:
  return rc;
}

static int pg_changes(dt_sql *st) { return PS(st)->changes; }

static dt_status exec_once(pg_conn *c, const char *sql, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  /* A commit tells every daemon that something changed (delivered only when it commits). */
  PGresult *r = PQexec(c->pg, !strcmp(sql, "COMMIT") ? "NOTIFY " CHANNEL "; COMMIT" : sql);
  if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
    rc = pg_failure(c, r, sql, ctx);
  else
    c->lost = 0;
  PQclear(r);
  return rc;
}

/* sql on c; a BEGIN that finds c broken begins again on the new connection. */
static dt_status pg_exec(void *db, const char *sql, dt_ctx *ctx) {
  pg_conn *c = db;
  int idle = PQtransactionStatus(c->pg) == PQTRANS_IDLE, epoch = c->epoch;
  dt_status rc = exec_once(c, sql, ctx);
  if (rc == DT_OK || strcmp(sql, "BEGIN") || !again_after_reset(c, idle, epoch)) return rc;
  if (ctx) dt_ctx_reset(ctx);
  return exec_once(c, sql, ctx);
}

static int pg_lost(void *db) {
  pg_conn *c = db;
  return !c || c->lost || PQstatus(c->pg) != CONNECTION_OK;
}

static int pg_in_transaction(void *db) {
  pg_conn *c = db;
  return c && PQtransactionStatus(c->pg) != PQTRANS_IDLE &&
         PQtransactionStatus(c->pg) != PQTRANS_UNKNOWN;
}

static int pg_healthy(void *db) {
  pg_conn *c = db;
  return PQstatus(c->pg) == CONNECTION_OK && PQtransactionStatus(c->pg) == PQTRANS_IDLE;
}

/* Parameter i (1-based) of st, cleared; NULL when out of range (a bug: the call is ignored). */
static pg_stmt *param(dt_sql *st, int i) {
  pg_stmt *s = PS(st);
  if (i < 1 || i > s->n_params) return NULL;
  clear_param(s, i - 1);
  return s;
}

/* Text, and a text NULL, is text to the server: a parameter's type must be known where the query
 * first names it ("?2 IS NULL OR mesh_id = ?2"). */
static void pg_bind_text(dt_sql *st, int i, const char *v) {
  pg_stmt *s = param(st, i);
  if (!s) return;
  s->types[i - 1] = OID_TEXT;
  if (!v) return;
  s->owned[i - 1] = strdup(v);
  s->vals[i - 1] = s->owned[i - 1];
}
static void pg_bind_int64(dt_sql *st, int i, long long v) {
  pg_stmt *s = param(st, i);
  if (!s) return;
  snprintf(s->num[i - 1], sizeof s->num[i - 1], "%lld", v);
  s->vals[i - 1] = s->num[i - 1];
  s->types[i - 1] = OID_INT8;
}
static void pg_bind_double(dt_sql *st, int i, double v) {
  pg_stmt *s = param(st, i);
  if (!s) return;
  snprintf(s->num[i - 1], sizeof s->num[i - 1], "%.17g", v);
  s->vals[i - 1] = s->num[i - 1];
  s->types[i - 1] = OID_FLOAT8;
}
static void pg_bind_null(dt_sql *st, int i) { (void)param(st, i); }
static void pg_bind_blob(dt_sql *st, int i, const void *p, int n) {
  pg_stmt *s = param(st, i);
  if (!s || !(s->owned[i - 1] = malloc(n > 0 ? (size_t)n : 1))) return;
  memcpy(s->owned[i - 1], p, (size_t)n);
  s->vals[i - 1] = s->owned[i - 1];
  s->lens[i - 1] = n;
  s->fmts[i - 1] = 1;
  s->types[i - 1] = OID_BYTEA;
}

static int has(pg_stmt *s, int i) {
  return s->res && s->row >= 0 && s->row < s->n_rows && i < PQnfields(s->res);
}
static const char *pg_col_text(dt_sql *st, int i) {
  pg_stmt *s = PS(st);
  return has(s, i) ? PQgetvalue(s->res, s->row, i) : "";
}
static int pg_col_null(dt_sql *st, int i) {
  pg_stmt *s = PS(st);
  return !has(s, i) || PQgetisnull(s->res, s->row, i);
}
/* Integers, and booleans as 1 and 0 (SQLite's comparisons are integers). */
static long long pg_col_int64(dt_sql *st, int i) {
  const char *t = pg_col_text(st, i);
  if (t[0] == 't' && !t[1]) return 1;
  if (t[0] == 'f' && !t[1]) return 0;
  return strtoll(t, NULL, 10);
}
static double pg_col_double(dt_sql *st, int i) { return strtod(pg_col_text(st, i), NULL); }
static const void *pg_col_blob(dt_sql *st, int i, int *n) {
  pg_stmt *s = PS(st);
  size_t len = 0;
  *n = 0;
  if (pg_col_null(st, i)) return NULL;
  PQfreemem(s->blob);
  s->blob = PQunescapeBytea((const unsigned char *)pg_col_text(st, i), &len);
  *n = (int)len;
  return s->blob;
}

/* The first column of the first row of sql on c as an integer (*v; -1 when there is none). */
static dt_status query_int(pg_conn *c, const char *sql, int *v, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  PGresult *r = PQexec(c->pg, sql);
  *v = -1;
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    rc = pg_failure(c, r, sql, ctx);
    goto cleanup;
  }
  if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0)) *v = atoi(PQgetvalue(r, 0, 0));
cleanup:
  PQclear(r);
  return rc;
}

static dt_status pg_schema_version(void *db, int *version, dt_ctx *ctx) {
  return query_int(db, "SELECT version FROM ductile_schema", version, ctx);
}

/* sql (several statements, no parameters) on c; what names it in a failure. */
static dt_status run_script(pg_conn *c, const char *sql, const char *what, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  PGresult *r = PQexec(c->pg, sql);
  if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
    rc = pg_failure(c, r, what, ctx);
  PQclear(r);
  return rc;
}

/* One migration in its transaction, under the lock (7303041: the advisory lock of migrations), unless another daemon applied it first. */
static dt_status apply(pg_conn *c, const dt_migration *m, int *applied, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char *sql = NULL, bump[96], what[160];
  int have = -1;
  *applied = 0;
  DT_TRY(run_script(c, "BEGIN; SELECT pg_advisory_xact_lock(7303041)", "lock the schema", ctx));
  DT_TRY(query_int(c, "SELECT version FROM ductile_schema", &have, ctx));
  if (m->version <= have) goto commit;
  sql = dt_sql_to_pg(m->sql);
  DT_CHECK(sql != NULL, ctx, DT_ERR_NOMEM, "out of memory translating migration %s", m->name);
  snprintf(what, sizeof what, "migration %s", m->name);
  DT_TRY(run_script(c, sql, what, ctx));
  snprintf(bump, sizeof bump, "UPDATE ductile_schema SET version = %d", m->version);
  DT_TRY(run_script(c, bump, what, ctx));
  *applied = 1;
commit:
  DT_TRY(run_script(c, "COMMIT", "commit a migration", ctx));
cleanup:
  if (rc != DT_OK) PQclear(PQexec(c->pg, "ROLLBACK"));
  free(sql);
  return rc;
}

/* The compatibility functions and the version table, then each migration above the version. */
static dt_status migrate(pg_conn *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int have = -1, latest = 0, applied = 0;
  for (const dt_migration *m = dt_migrations; m->version; m++) latest = m->version;
  DT_TRY(run_script(c,
                    "SET client_min_messages = warning; "
                    "BEGIN; SELECT pg_advisory_xact_lock(7303041); "
                    "CREATE TABLE IF NOT EXISTS ductile_schema (version INTEGER NOT NULL); "
                    "INSERT INTO ductile_schema SELECT 0 WHERE NOT EXISTS "
                    "(SELECT 1 FROM ductile_schema)",
                    "create the version table", ctx));
  DT_TRY(run_script(c, dt_pg_compat_sql, "create the SQLite functions (compat.sql)", ctx));
  DT_TRY(query_int(c, "SELECT version FROM ductile_schema", &have, ctx));
  DT_TRY(run_script(c, "COMMIT", "commit the version table", ctx));
  DT_CHECK(have <= latest, ctx, DT_ERR_DB,
           "the database has schema version %d, newer than this ductiled (%d)", have, latest);
  for (const dt_migration *m = dt_migrations; m->version; m++) {
    if (m->version <= have) continue;
    DT_TRY(apply(c, m, &applied, ctx));
    if (applied) dt_log_info("applied schema migration %s (postgresql)", m->name);
  }
cleanup:
  if (rc != DT_OK && pg_in_transaction(c)) PQclear(PQexec(c->pg, "ROLLBACK"));
  return rc;
}

static dt_status pg_open_migrate(const char *conninfo, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pg_conn *c = NULL;
  DT_CHECK(strlen(conninfo) < sizeof g_conninfo, ctx, DT_ERR_INPUT,
           "database: the PostgreSQL connection string is longer than %zu bytes",
           sizeof g_conninfo - 1);
  snprintf(g_conninfo, sizeof g_conninfo, "%s", conninfo);
  DT_TRY(pg_new(&c, ctx));
  DT_TRY(migrate(c, ctx));
cleanup:
  pg_disconnect(c);
  return rc;
}

static dt_status pg_backup(const char *dest, dt_backup_info *info, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(dt_store_backup_pg(g_conninfo, dest, info, ctx));
  DT_TRY(dt_store_schema_version(&info->schema_version, ctx));
cleanup:
  return rc;
}

/* The listener: a connection of its own that LISTENs and wakes the bus. */
static pthread_t g_listener;
static atomic_int g_listen_stop;
static int g_listening;

/* A new connection that LISTENs (again after a lost one: a subscription dies with its
 * connection); NULL when the server does not answer, logged at the first of a series. */
static PGconn *listen_conn(int *failing) {
  PGconn *pg = connect_bounded();
  PGresult *r = NULL;
  char msg[512];
  if (PQstatus(pg) == CONNECTION_OK) r = PQexec(pg, "LISTEN " CHANNEL);
  if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
    snprintf(msg, sizeof msg, "%s", pg ? PQerrorMessage(pg) : "out of memory");
    msg[strcspn(msg, "\n")] = '\0';
    if (!(*failing)++)
      dt_log_warn("cannot listen for the other daemons' changes: %s (retrying every half second)",
                  msg);
    PQfinish(pg);
    pg = NULL;
  } else if (*failing) {
    dt_log_info("listening again for the other daemons' changes after %d failed attempt(s)",
                *failing);
    *failing = 0;
  }
  PQclear(r);
  return pg;
}

static void *listener_main(void *arg) {
  PGconn *pg = NULL;
  int failing = 0;
  (void)arg;
  while (!atomic_load(&g_listen_stop)) {
    struct pollfd p;
    PGnotify *n;
    int woke = 0;
    if (!pg) {
      if (!(pg = listen_conn(&failing))) {
        usleep(500000);
        continue;
      }
      dt_bus_notify(); /* what changed while no one listened is read from the store */
    }
    p.fd = PQsocket(pg);
    p.events = POLLIN;
    p.revents = 0;
    if ((poll(&p, 1, 250) > 0 && !PQconsumeInput(pg)) || PQstatus(pg) != CONNECTION_OK) {
      dt_log_warn("lost the connection that listens for the other daemons' changes: %s",
                  PQerrorMessage(pg));
      PQfinish(pg);
      pg = NULL;
      continue;
    }
    while ((n = PQnotifies(pg))) {
      woke = 1;
      PQfreemem(n);
    }
    if (woke) dt_bus_notify();
  }
  PQfinish(pg);
  return NULL;
}

static dt_status pg_listen_start(dt_ctx *ctx) {
  dt_status rc = DT_OK;
  atomic_store(&g_listen_stop, 0);
  DT_CHECK(pthread_create(&g_listener, NULL, listener_main, NULL) == 0, ctx, DT_ERR_INTERNAL,
           "cannot start the thread that listens for the other daemons' changes");
  g_listening = 1;
cleanup:
  return rc;
}

static void pg_listen_stop(void) {
  if (!g_listening) return;
  atomic_store(&g_listen_stop, 1);
  pthread_join(g_listener, NULL);
  g_listening = 0;
}

const dt_store_ops dt_store_pg_ops = {
    .name = "postgresql",
    .shared = 1,
    .pool = 1,
    .begin = "BEGIN",
    .open_migrate = pg_open_migrate,
    .schema_version = pg_schema_version,
    .connect = pg_connect,
    .disconnect = pg_disconnect,
    .prepare = pg_prepare,
    .finalize = pg_finalize,
    .reset = pg_reset,
    .step = pg_step,
    .changes = pg_changes,
    .exec = pg_exec,
    .in_transaction = pg_in_transaction,
    .healthy = pg_healthy,
    .lost = pg_lost,
    .bind_text = pg_bind_text,
    .bind_int64 = pg_bind_int64,
    .bind_double = pg_bind_double,
    .bind_null = pg_bind_null,
    .bind_blob = pg_bind_blob,
    .col_text = pg_col_text,
    .col_int64 = pg_col_int64,
    .col_double = pg_col_double,
    .col_null = pg_col_null,
    .col_blob = pg_col_blob,
    .backup = pg_backup,
    .listen_start = pg_listen_start,
    .listen_stop = pg_listen_stop,
};

#else /* !DUCTILE_HAVE_LIBPQ */

static dt_status pg_missing(const char *conninfo, dt_ctx *ctx) {
  (void)conninfo;
  return DT_ERROR(ctx, DT_ERR_INPUT,
                  "database: this ductiled was built without PostgreSQL (libpq was not found: "
                  "install libpq-dev and build again)");
}

const dt_store_ops dt_store_pg_ops = {.name = "postgresql", .open_migrate = pg_missing};

#endif
