/* The SQLite store: one connection per thread, WAL, versioned migrations.
 *
 * Every thread that touches the database (HTTP connection threads, workers, the main thread)
 * gets its own connection on first use through dt_db(); it is closed when the thread exits.
 * Statements are prepared once per connection and cached by their SQL text's address (pass
 * string literals). State changes use dt_store_begin (BEGIN IMMEDIATE: the write lock is
 * taken up front, so two transactions never deadlock upgrading a read lock) and commit or
 * roll back. Large data lives in files under the data directory; the database holds
 * metadata and paths. */
#ifndef DT_SRV_STORE_H
#define DT_SRV_STORE_H

#include <stddef.h>

#include <sqlite3.h>

enum { DT_STORE_OK = 0, DT_STORE_ERR = -1, DT_STORE_NOTFOUND = -2, DT_STORE_CONFLICT = -3 };

/* Set the database path (<data_dir>/ductile.db), open it, switch to WAL and apply pending
 * migrations. Called once by the main thread before other threads start. */
int dt_store_init(const char *data_dir, char *err, size_t errlen);
/* Close the calling thread's connection now (also done automatically at thread exit). */
void dt_store_thread_close(void);

/* The calling thread's connection, or NULL if it cannot be opened (logged). */
sqlite3 *dt_db(void);
/* A cached, reset statement for sql (a string literal), or NULL (logged). */
sqlite3_stmt *dt_stmt(const char *sql);
/* Reset st and clear its bindings (NULL-safe); call when done with a dt_stmt result. */
void dt_stmt_done(sqlite3_stmt *st);
/* Run a bound write statement once and release it: DT_STORE_OK when it completed, else
 * DT_STORE_ERR after logging what failed (dt_store_fail). */
int dt_stmt_exec_done(sqlite3_stmt *st, const char *what);

int dt_store_begin(void);
int dt_store_commit(void);
void dt_store_rollback(void);
/* Log the connection's last error with a context string; returns DT_STORE_ERR. */
int dt_store_fail(const char *what);

/* Bind helpers: text NULL binds SQL NULL. */
void dt_bind_text(sqlite3_stmt *st, int i, const char *s);
const char *dt_col_text(sqlite3_stmt *st, int i); /* "" for NULL */

#endif
