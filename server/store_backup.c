/* The online backup of the store (see store.h): SQLite's backup API from this thread's
 * connection into a new file, while the daemon goes on writing.
 *
 * The copy is made in one sqlite3_backup_step(-1): one read transaction over the whole
 * database, so it is the database at one instant. In WAL mode that transaction blocks no writer
 * (they append to the log meanwhile); copied in smaller steps instead, every write of the
 * daemon between two steps would restart the copy from its first page, and a busy daemon could
 * keep it from ever ending. The store holds metadata only (results are files), so the one step
 * is short. The copy is written beside its destination under a temporary name, switched out of
 * WAL mode (one self-contained file, readable where a -shm file cannot be made), checked with
 * PRAGMA quick_check, synced, and linked to its name only when complete: a failed backup leaves
 * nothing under the name, and an existing file is never replaced. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store_impl.h"

/* How long the copy waits for a lock it cannot take (a checkpoint, the recovery of a log). */
#define BUSY_WAIT_MS 30000

/* A failure of the copy's database: DT_ERR_IO when its disk is full, DT_ERR_DB otherwise. */
static dt_status copy_failure(int code, const char *what, const char *msg, dt_ctx *ctx) {
  return DT_ERROR(ctx, code == SQLITE_FULL || code == SQLITE_IOERR ? DT_ERR_IO : DT_ERR_DB,
                  "backup: %s: %s", what, msg);
}

/* Every page of src into dst, in one step (above), waiting out busy locks. */
static dt_status copy_pages(sqlite3 *src, sqlite3 *dst, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
  int step = SQLITE_OK, waited = 0;
  if (!b) return copy_failure(sqlite3_errcode(dst), "cannot start", sqlite3_errmsg(dst), ctx);
  while ((step = sqlite3_backup_step(b, -1)) != SQLITE_DONE) {
    if ((step != SQLITE_BUSY && step != SQLITE_LOCKED) || waited >= BUSY_WAIT_MS) {
      rc = copy_failure(step, "cannot copy the database", sqlite3_errstr(step), ctx);
      goto cleanup;
    }
    sqlite3_sleep(50);
    waited += 50;
  }
cleanup:
  if (sqlite3_backup_finish(b) != SQLITE_OK && rc == DT_OK)
    rc = copy_failure(sqlite3_errcode(dst), "cannot copy the database", sqlite3_errmsg(dst), ctx);
  return rc;
}

/* The first column of the first row of sql on db, as text into out (cap bytes). */
static dt_status pragma_text(sqlite3 *db, const char *sql, char *out, size_t cap, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  sqlite3_stmt *st = NULL;
  out[0] = '\0';
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
    rc = copy_failure(sqlite3_errcode(db), sql, sqlite3_errmsg(db), ctx);
    goto cleanup;
  }
  snprintf(out, cap, "%s",
           sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
cleanup:
  sqlite3_finalize(st);
  return rc;
}

/* The copy on its own: out of WAL mode, checked, its schema version into info. */
static dt_status finish_copy(sqlite3 *dst, dt_backup_info *info, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char v[256];
  DT_TRY(pragma_text(dst, "PRAGMA journal_mode=DELETE", v, sizeof v, ctx));
  DT_CHECK(!strcmp(v, "delete"), ctx, DT_ERR_DB, "backup: the copy stays in journal mode %s", v);
  DT_TRY(pragma_text(dst, "PRAGMA quick_check", v, sizeof v, ctx));
  DT_CHECK(!strcmp(v, "ok"), ctx, DT_ERR_DB, "backup: the copy fails PRAGMA quick_check: %s", v);
  DT_TRY(pragma_text(dst, "PRAGMA user_version", v, sizeof v, ctx));
  info->schema_version = atoi(v);
cleanup:
  return rc;
}

/* fsync the file or directory at path. */
static dt_status sync_path(const char *path, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  DT_CHECK(fd >= 0 && fsync(fd) == 0, ctx, DT_ERR_IO, "backup: cannot sync '%s': %s", path,
           strerror(errno));
cleanup:
  if (fd >= 0) close(fd);
  return rc;
}

/* The complete copy tmp under the name dest (no-clobber: link fails when dest exists), synced. */
dt_status dt_backup_publish(const char *tmp, const char *dest, dt_backup_info *info, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char dir[PATH_MAX];
  struct stat sb;
  DT_TRY(sync_path(tmp, ctx));
  DT_CHECK(link(tmp, dest) == 0, ctx, errno == EEXIST ? DT_ERR_INPUT : DT_ERR_IO,
           "backup: cannot create '%s': %s", dest, strerror(errno));
  snprintf(dir, sizeof dir, "%s", dest);
  DT_TRY(sync_path(dirname(dir), ctx));
  DT_CHECK(stat(dest, &sb) == 0, ctx, DT_ERR_IO, "backup: cannot read '%s': %s", dest,
           strerror(errno));
  info->bytes = (long long)sb.st_size;
cleanup:
  return rc;
}

dt_status dt_backup_temp(const char *dest, char *tmp, size_t cap, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  struct stat sb;
  int fd;
  tmp[0] = '\0';
  DT_CHECK(lstat(dest, &sb) != 0 && errno == ENOENT, ctx, DT_ERR_INPUT,
           "backup: '%s' exists already: a backup goes to a new file (remove it, or name another)",
           dest);
  DT_CHECK((size_t)snprintf(tmp, cap, "%s.XXXXXX", dest) < cap, ctx, DT_ERR_INPUT,
           "backup: the file name is too long");
  fd = mkstemp(tmp); /* mode 0600: the copy holds the tokens' hashes, as the database does */
  DT_CHECK(fd >= 0, ctx, DT_ERR_IO, "backup: cannot create a file beside '%s': %s", dest,
           strerror(errno));
  close(fd);
cleanup:
  if (rc != DT_OK) tmp[0] = '\0';
  return rc;
}

dt_status dt_store_backup_sqlite(void *db, const char *dest, dt_backup_info *info, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char tmp[PATH_MAX] = "";
  sqlite3 *src = db, *dst = NULL;
  memset(info, 0, sizeof *info);
  DT_TRY(dt_backup_temp(dest, tmp, sizeof tmp, ctx));
  DT_CHECK(sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK, ctx, DT_ERR_IO,
           "backup: cannot open '%s': %s", tmp, dst ? sqlite3_errmsg(dst) : "out of memory");
  DT_TRY(copy_pages(src, dst, ctx));
  DT_TRY(finish_copy(dst, info, ctx));
  DT_CHECK(sqlite3_close(dst) == SQLITE_OK, ctx, DT_ERR_DB, "backup: cannot close '%s': %s", tmp,
           sqlite3_errmsg(dst));
  dst = NULL;
  DT_TRY(dt_backup_publish(tmp, dest, info, ctx));
cleanup:
  sqlite3_close(dst);
  if (tmp[0]) {
    static const char *const sidecars[] = {"", "-journal", "-wal", "-shm"};
    for (int i = 0; i < 4; i++) {
      char f[PATH_MAX + 16];
      snprintf(f, sizeof f, "%s%s", tmp, sidecars[i]);
      unlink(f);
    }
  }
  return rc;
}
