/* Files of the data directory and their rows (see data_files.h). */
#include "data_files.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "store.h"

void dt_remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char p[PATH_MAX + 300];
  struct stat sb;
  if (!d) return;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
      dt_remove_tree(p);
    else
      unlink(p);
  }
  closedir(d);
  rmdir(dir);
}

long long dt_dir_bytes(const char *dir, int recurse) {
  char p[PATH_MAX + 300];
  struct dirent *e;
  struct stat sb;
  long long n = 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (lstat(p, &sb) != 0) continue;
    if (S_ISREG(sb.st_mode))
      n += (long long)sb.st_size;
    else if (recurse && S_ISDIR(sb.st_mode))
      n += dt_dir_bytes(p, 1);
  }
  closedir(d);
  return n;
}

/* Whether a row names meshes/<name>: the row of the id the name starts with (the unique index
 * on id, rather than a scan for the path), whose path is exactly this one. */
static dt_status mesh_named(const char *name, int *named, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  char id[64], path[300];
  int row;
  snprintf(id, sizeof id, "%.*s", (int)strcspn(name, "."), name);
  snprintf(path, sizeof path, "meshes/%s", name);
  DT_TRY(dt_stmt("SELECT 1 FROM meshes WHERE id = ?1 AND path = ?2", &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_text(st, 2, path);
  DT_TRY(dt_stmt_row(st, "find the mesh of a file", &row, ctx));
  *named = row;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* Whether jobs/<name> is the directory of a job row. */
static dt_status job_named(const char *name, int *named, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  DT_TRY(dt_stmt("SELECT 1 FROM jobs WHERE id = ?1", &st, ctx));
  dt_bind_text(st, 1, name);
  DT_TRY(dt_stmt_row(st, "find the job of a directory", &row, ctx));
  *named = row;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* Remove the entries of <data_dir>/<sub> that named() says no row names; with need_dir, also
 * those that are not directories (a job's entry is its directory: anything else is no job's). */
static dt_status sweep_dir(const char *data_dir, const char *sub,
                           dt_status (*named)(const char *, int *, dt_ctx *), int need_dir,
                           long min_age_s, int *removed, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char dir[PATH_MAX], p[PATH_MAX + 300], rel[300];
  struct dirent *e;
  struct stat sb;
  DIR *d = NULL;
  snprintf(dir, sizeof dir, "%s/%s", data_dir, sub);
  d = opendir(dir);
  DT_CHECK(d != NULL || errno == ENOENT, ctx, DT_ERR_IO, "cannot list %s: %s", dir,
           strerror(errno));
  while (d && (e = readdir(d))) {
    int ok = 0, is_dir;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    is_dir = lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (min_age_s > 0 && time(NULL) - sb.st_mtime < min_age_s) continue;
    DT_TRY(named(e->d_name, &ok, ctx));
    if (ok && (is_dir || !need_dir)) continue;
    snprintf(rel, sizeof rel, "%s/%.250s", sub, e->d_name);
    if (is_dir)
      dt_remove_tree(p);
    else
      unlink(p);
    {
      const char *kv[] = {"path", rel, NULL};
      dt_log(DT_LOG_INFO, NULL, kv, "start-up: removed %s, which no database row references",
             is_dir ? "a directory" : "a file");
    }
    (*removed)++;
  }
cleanup:
  if (d) closedir(d);
  return rc;
}

dt_status dt_data_sweep(const char *data_dir, long min_age_s, int *removed, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  *removed = 0;
  DT_TRY(sweep_dir(data_dir, "meshes", mesh_named, 0, min_age_s, removed, ctx));
  DT_TRY(sweep_dir(data_dir, "jobs", job_named, 1, min_age_s, removed, ctx));
cleanup:
  return rc;
}
