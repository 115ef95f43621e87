/* The store: the daemon's rows behind one interface, in SQLite (embedded, the default) or in
 * PostgreSQL (several daemons sharing one queue; docs/operations.md, Several servers).
 *
 * Every thread that touches the database (HTTP connection threads, workers, the main thread)
 * gets its own connection on first use; SQLite's is closed when the thread exits, PostgreSQL's
 * goes back to a pool of idle connections (opening one costs a server process). Statements are
 * prepared once per connection and cached by their SQL text's address (pass string literals).
 * State changes use dt_store_begin (SQLite: BEGIN IMMEDIATE, the write lock taken up front, so
 * two transactions never deadlock upgrading a read lock; PostgreSQL: BEGIN, row locks) and
 * commit or roll back. Large data lives in files under the data directory; the database holds
 * metadata and paths.
 *
 * One SQL text serves both stores (store_dialect.c): it is written in SQLite's dialect with
 * numbered parameters ?N, in the common subset where one exists (ON CONFLICT, RETURNING), and
 * PostgreSQL reads it after a few substitutions: ?N becomes $N, a block comment whose text
 * starts with "pg:" becomes that text (SKIP LOCKED: SQLite skips it as a comment), and in the
 * schema SQLite's types become PostgreSQL's. The
 * SQLite functions the queries use (strftime, julianday, two-argument min and max) exist in
 * PostgreSQL as functions of the same name and meaning (schema/postgresql/compat.sql).
 *
 * Errors follow status.h: every operation returns dt_status, DT_ERR_DB with the database's
 * message in the dt_ctx when the database fails, DT_ERR_IO when it fails because the disk is
 * full; a missing row or a refused state change is a dt_outcome. */
#ifndef DT_SRV_STORE_H
#define DT_SRV_STORE_H

#include <stddef.h>

#include <jansson.h>

#include "status.h"

/* A prepared statement of the calling thread's connection (either store). */
typedef struct dt_sql dt_sql;

/* Open the store and apply pending migrations. database: "" or a path for SQLite (""
 * : <data_dir>/ductile.db), or a PostgreSQL connection URI (postgresql://... or postgres://...)
 * or key=value string (starting "pg:"). Called once by the main thread before other threads
 * start. */
dt_status dt_store_init(const char *data_dir, const char *database, dt_ctx *ctx);
/* "sqlite" or "postgresql". */
const char *dt_store_kind(void);
/* 1 when several daemons may share the store (PostgreSQL): leases, notifications. */
int dt_store_shared(void);
/* The schema version of the database (the last migration applied). */
dt_status dt_store_schema_version(int *version, dt_ctx *ctx);
/* 1 when the calling thread's last store failure was the database server not answering (its
 * connection broke or it refuses connections: PostgreSQL restarting, a network drop), which
 * passes when the server is back; 0 for other failures, and always with SQLite. */
int dt_store_connection_lost(void);
/* Close the calling thread's connection now (also done automatically at thread exit). */
void dt_store_thread_close(void);
/* Release what the store holds process-wide (pooled connections) before the process ends. */
void dt_store_shutdown(void);
/* Wake this process's bus (bus.h) when another daemon sharing the store commits a change: a
 * thread that listens for PostgreSQL's notifications. Nothing to do for SQLite. */
dt_status dt_store_listen_start(dt_ctx *ctx);
void dt_store_listen_stop(void);

/* A cached, reset statement for sql (a string literal). */
dt_status dt_stmt(const char *sql, dt_sql **st, dt_ctx *ctx);
/* Reset *st, clear its bindings and set *st to NULL (NULL-safe): done with a dt_stmt result,
 * also from a cleanup label. */
void dt_stmt_done(dt_sql **st);
/* Step st once: *row is 1 when it produced a row, 0 when it is done; DT_ERR_DB naming what
 * otherwise. */
dt_status dt_stmt_row(dt_sql *st, const char *what, int *row, dt_ctx *ctx);
/* A page of a list (jobs, meshes, the audit log): st, bound to return limit + 1 rows, newest
 * first, steps into a JSON array of to_json's objects (*items); when the extra row exists, *next
 * is the seq (column seq_col) of the page's last row, else 0. */
dt_status dt_stmt_page(dt_sql *st, int limit, int seq_col, json_t *(*to_json)(dt_sql *),
                       const char *what, json_t **items, long long *next, dt_ctx *ctx);
/* Run a bound write statement to its end and release it; changes (may be NULL) receives the
 * rows it changed. */
dt_status dt_stmt_run(dt_sql **st, const char *what, int *changes, dt_ctx *ctx);

/* A transaction: begin, then commit; a function that begins one calls dt_store_rollback from
 * its cleanup, which does nothing after the commit. */
dt_status dt_store_begin(dt_ctx *ctx);
dt_status dt_store_commit(dt_ctx *ctx);
void dt_store_rollback(void);
/* Begin a transaction unless the calling thread has one open: *began is 1 when this call began
 * it (then the caller commits it), 0 when the writes join the one that is open (a token created
 * in the first start's transaction). */
dt_status dt_store_begin_if_none(int *began, dt_ctx *ctx);
/* fn(arg) once the calling thread's open transaction commits (dt_store_commit), never when it
 * rolls back; at once when no transaction is open (the write is committed). release(arg), when
 * not NULL, follows either way. For what must not be said before it is true: the audit log's
 * lines in the daemon's log (audit.h). */
void dt_store_on_commit(void (*fn)(void *), void *arg, void (*release)(void *));

/* What dt_store_backup made. */
typedef struct dt_backup_info {
  long long bytes;    /* the copy's size */
  int schema_version; /* its schema version (the last migration applied) */
} dt_backup_info;
/* An online copy of the database, taken while the daemons run, in a new file dest (mode 0600),
 * never over an existing one (DT_ERR_INPUT): SQLite's online backup API (store_backup.c: the
 * database at one instant, self-contained, checked with PRAGMA quick_check), or pg_dump's
 * custom format for PostgreSQL (store_backup_pg.c: one snapshot; pg_restore reads it).
 * DT_ERR_IO when it cannot be written; DT_ERR_DB when the copy fails. A failed backup leaves no
 * file. The files of meshes and jobs are not in it (docs/operations.md: backup and restore). */
dt_status dt_store_backup(const char *dest, dt_backup_info *info, dt_ctx *ctx);

/* Parameters (1-based): text NULL binds SQL NULL. */
void dt_bind_text(dt_sql *st, int i, const char *s);
void dt_bind_int64(dt_sql *st, int i, long long v);
void dt_bind_double(dt_sql *st, int i, double v);
void dt_bind_null(dt_sql *st, int i);
void dt_bind_blob(dt_sql *st, int i, const void *p, int n);
/* Columns (0-based) of the current row. */
const char *dt_col_text(dt_sql *st, int i); /* "" for NULL */
long long dt_col_int64(dt_sql *st, int i);
int dt_col_int(dt_sql *st, int i);
double dt_col_double(dt_sql *st, int i);
int dt_col_null(dt_sql *st, int i);
/* A BLOB column: its bytes (*n of them), valid until the next step or reset; NULL when NULL. */
const void *dt_col_blob(dt_sql *st, int i, int *n);

#endif
