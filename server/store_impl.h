/* The store's backends (store.h): what each of SQLite (store_sqlite.c) and PostgreSQL
 * (store_pg.c) implements, in the spirit of the solver's backend table. store.c keeps what is
 * common: the thread's connection, its statement cache, transactions and the work that waits
 * for a commit. A backend's connection and statement are its own types behind void pointers;
 * dt_sql is a backend's statement. To add a backend: a const table of these functions and a
 * line in store.c's choice of backend by the database setting. Private to the store's files. */
#ifndef DT_SRV_STORE_IMPL_H
#define DT_SRV_STORE_IMPL_H

#include "store.h"

typedef struct dt_store_ops {
  const char *name;
  int shared;        /* several daemons may use the database at once */
  int pool;          /* idle connections are kept for the next thread (costly to open) */
  const char *begin; /* the SQL that begins a write transaction */
  /* Open the database named by location, migrate it (once, by the main thread). */
  dt_status (*open_migrate)(const char *location, dt_ctx *ctx);
  dt_status (*schema_version)(void *db, int *version, dt_ctx *ctx);
  dt_status (*connect)(void **db, dt_ctx *ctx);
  void (*disconnect)(void *db);
  dt_status (*prepare)(void *db, const char *sql, dt_sql **st, dt_ctx *ctx);
  void (*finalize)(dt_sql *st);
  void (*reset)(dt_sql *st); /* also clears the bindings */
  dt_status (*step)(dt_sql *st, const char *what, int *row, dt_ctx *ctx);
  int (*changes)(dt_sql *st); /* rows the last write of st changed */
  dt_status (*exec)(void *db, const char *sql, dt_ctx *ctx);
  int (*in_transaction)(void *db);
  /* Whether the connection still works (a pool drops those that do not). */
  int (*healthy)(void *db);
  /* Whether the last failure on db was the server not answering (NULL: never, an embedded
   * database). */
  int (*lost)(void *db);
  void (*bind_text)(dt_sql *st, int i, const char *s);
  void (*bind_int64)(dt_sql *st, int i, long long v);
  void (*bind_double)(dt_sql *st, int i, double v);
  void (*bind_null)(dt_sql *st, int i);
  void (*bind_blob)(dt_sql *st, int i, const void *p, int n);
  const char *(*col_text)(dt_sql *st, int i);
  long long (*col_int64)(dt_sql *st, int i);
  double (*col_double)(dt_sql *st, int i);
  int (*col_null)(dt_sql *st, int i);
  const void *(*col_blob)(dt_sql *st, int i, int *n);
  dt_status (*backup)(const char *dest, dt_backup_info *info, dt_ctx *ctx);
  dt_status (*listen_start)(dt_ctx *ctx); /* NULL: nothing to listen to */
  void (*listen_stop)(void);
} dt_store_ops;

extern const dt_store_ops dt_store_sqlite_ops;
extern const dt_store_ops dt_store_pg_ops;

/* The calling thread's backend connection (store.c), opened on first use. */
dt_status dt_store_conn(void **db, dt_ctx *ctx);

/* The SQLite backend's online backup from the thread's connection (store_backup.c). */
dt_status dt_store_backup_sqlite(void *db, const char *dest, dt_backup_info *info, dt_ctx *ctx);
/* Both backups write a new file beside dest and give it dest's name only once it is complete
 * (store_backup.c): dt_backup_temp refuses an existing dest and creates the file (mode 0600)
 * whose name it leaves in tmp ("" when it made none; the caller removes it in the end);
 * dt_backup_publish syncs it, links it to dest, syncs the folder and reports its size. */
dt_status dt_backup_temp(const char *dest, char *tmp, size_t cap, dt_ctx *ctx);
dt_status dt_backup_publish(const char *tmp, const char *dest, dt_backup_info *info, dt_ctx *ctx);
/* pg_dump of the PostgreSQL database (store_backup_pg.c). */
dt_status dt_store_backup_pg(const char *conninfo, const char *dest, dt_backup_info *info,
                             dt_ctx *ctx);

/* SQL in SQLite's dialect as PostgreSQL reads it (store_dialect.c): a new string (NULL when out
 * of memory). */
char *dt_sql_to_pg(const char *sql);

#endif
