/* The SQLite store: one connection per thread, WAL, versioned migrations.
 *
 * Every thread that touches the database (HTTP connection threads, workers, the main thread)
 * gets its own connection on first use through dt_db(); it is closed when the thread exits.
 * Statements are prepared once per connection and cached by their SQL text's address (pass
 * string literals). State changes use dt_store_begin (BEGIN IMMEDIATE: the write lock is
 * taken up front, so two transactions never deadlock upgrading a read lock) and commit or
 * roll back. Large data lives in files under the data directory; the database holds
 * metadata and paths.
 *
 * Errors follow status.h: every operation returns dt_status, DT_ERR_DB with SQLite's message in
 * the dt_ctx when the database fails, DT_ERR_IO when it fails because the disk is full
 * (SQLITE_FULL); a missing row or a refused state change is a dt_outcome. */
#ifndef DT_SRV_STORE_H
#define DT_SRV_STORE_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

#include "status.h"

/* Set the database path (<data_dir>/ductile.db), open it, switch to WAL and apply pending
 * migrations. Called once by the main thread before other threads start. */
dt_status dt_store_init(const char *data_dir, dt_ctx *ctx);
/* Close the calling thread's connection now (also done automatically at thread exit). */
void dt_store_thread_close(void);

/* The calling thread's connection, opened on first use. */
dt_status dt_db(sqlite3 **db, dt_ctx *ctx);
/* A cached, reset statement for sql (a string literal). */
dt_status dt_stmt(const char *sql, sqlite3_stmt **st, dt_ctx *ctx);
/* Reset *st, clear its bindings and set *st to NULL (NULL-safe): done with a dt_stmt result,
 * also from a cleanup label. */
void dt_stmt_done(sqlite3_stmt **st);
/* Step st once: *row is 1 when it produced a row, 0 when it is done; DT_ERR_DB naming what
 * otherwise. */
dt_status dt_stmt_row(sqlite3_stmt *st, const char *what, int *row, dt_ctx *ctx);
/* A page of a list (jobs, meshes, the audit log): st, bound to return limit + 1 rows, newest
 * first, steps into a JSON array of to_json's objects (*items); when the extra row exists, *next
 * is the seq (column seq_col) of the page's last row, else 0. */
dt_status dt_stmt_page(sqlite3_stmt *st, int limit, int seq_col, json_t *(*to_json)(sqlite3_stmt *),
                       const char *what, json_t **items, long long *next, dt_ctx *ctx);
/* Run a bound write statement to its end and release it; changes (may be NULL) receives the
 * rows it changed. */
dt_status dt_stmt_run(sqlite3_stmt **st, const char *what, int *changes, dt_ctx *ctx);

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
  int schema_version; /* its PRAGMA user_version (the last migration applied) */
} dt_backup_info;
/* An online copy of the database, taken while the daemon runs (store_backup.c): the database
 * at one instant, in a new file dest (mode 0600), self-contained (not in WAL mode) and checked
 * with PRAGMA quick_check. DT_ERR_INPUT when dest exists (it is never replaced); DT_ERR_IO when
 * it cannot be written; DT_ERR_DB when the copy fails. A failed backup leaves no file. The
 * files of meshes and jobs are not in it (docs/operations.md: backup and restore). */
dt_status dt_store_backup(const char *dest, dt_backup_info *info, dt_ctx *ctx);

/* Bind helpers: text NULL binds SQL NULL. */
void dt_bind_text(sqlite3_stmt *st, int i, const char *s);
const char *dt_col_text(sqlite3_stmt *st, int i); /* "" for NULL */

#endif
