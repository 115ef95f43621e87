/* A job's attempt directories (see job_dirs.h). */
#include "job_dirs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data_files.h"
#include "store_jobs.h"

#define ATTEMPT_PREFIX "attempt-"

void dt_job_dir(char *out, size_t cap, const char *data_dir, const char *id, int attempt) {
  if (attempt > 0)
    snprintf(out, cap, "%s/jobs/%s/" ATTEMPT_PREFIX "%d", data_dir, id, attempt);
  else
    snprintf(out, cap, "%s/jobs/%s", data_dir, id);
}

/* The attempt a directory entry of jobs/<id>/ is the directory of, or 0 when it is none. */
static int attempt_of(const char *name) {
  char *end = NULL;
  long n;
  if (strncmp(name, ATTEMPT_PREFIX, strlen(ATTEMPT_PREFIX)) != 0) return 0;
  name += strlen(ATTEMPT_PREFIX);
  if (*name < '0' || *name > '9') return 0;
  n = strtol(name, &end, 10);
  return *end == '\0' && n > 0 && n <= INT_MAX ? (int)n : 0;
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), k = strlen(tail);
  return n >= k && !strcmp(s + n - k, tail);
}

/* A result file its writer creates once, through a temporary file and a rename, and never opens
 * again in place (worker_fields.h, solver/io/output_vtu.c): a hard link to it cannot change under
 * the new attempt, whatever the old attempt's run goes on to write. */
static int written_once(const char *name) {
  return (!strncmp(name, "fields_", 7) && ends_with(name, ".json")) ||
         (!strncmp(name, "increment_", 10) && ends_with(name, ".vtu"));
}

/* Copy the regular file from into to (created, or truncated); with durable, to is flushed to the
 * disk before it is closed. *missing = 1 (and DT_OK) when from does not exist. */
static dt_status copy_file(const char *from, const char *to, int durable, int *missing,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char buf[65536];
  int in = open(from, O_RDONLY | O_CLOEXEC), out = -1;
  ssize_t n = 0, done = 0, w = 0;
  *missing = in < 0 && errno == ENOENT;
  if (*missing) return DT_OK;
  DT_CHECK(in >= 0, ctx, DT_ERR_IO, "cannot read '%s': %s", from, strerror(errno));
  out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  DT_CHECK(out >= 0, ctx, DT_ERR_IO, "cannot create '%s': %s", to, strerror(errno));
  while ((n = read(in, buf, sizeof buf)) > 0)
    for (done = 0; done < n; done += w) {
      w = write(out, buf + done, (size_t)(n - done));
      DT_CHECK(w > 0, ctx, DT_ERR_IO, "cannot write '%s': %s", to, strerror(errno));
    }
  DT_CHECK(n == 0, ctx, DT_ERR_IO, "cannot read '%s': %s", from, strerror(errno));
  DT_CHECK(!durable || fsync(out) == 0, ctx, DT_ERR_IO, "cannot flush '%s' to the disk: %s", to,
           strerror(errno));
cleanup:
  if (out >= 0 && close(out) != 0 && rc == DT_OK)
    rc = DT_ERROR(ctx, DT_ERR_IO, "cannot write '%s': %s", to, strerror(errno));
  if (in >= 0) close(in);
  return rc;
}

/* The checkpoint of from into to, whole or not at all (a temporary file renamed), on the disk
 * before the attempt takes the results over: the next attempt may start from it. */
static dt_status adopt_checkpoint(const char *from, const char *to, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char src[PATH_MAX + 64], dst[PATH_MAX + 64], tmp[PATH_MAX + 72];
  int missing = 0;
  snprintf(src, sizeof src, "%s/" DT_CHECKPOINT_FILE, from);
  snprintf(dst, sizeof dst, "%s/" DT_CHECKPOINT_FILE, to);
  snprintf(tmp, sizeof tmp, "%s.tmp", dst);
  DT_TRY(copy_file(src, tmp, 1, &missing, ctx));
  if (missing) goto cleanup;
  DT_CHECK(rename(tmp, dst) == 0, ctx, DT_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, dst,
           strerror(errno));
cleanup:
  if (rc != DT_OK) unlink(tmp);
  return rc;
}

/* One file of the old attempt's out/ into the new one's: a hard link when it is written once,
 * else (or when the file system refuses the link) a copy. */
static dt_status adopt_result(const char *src, const char *dst, const char *name, dt_ctx *ctx) {
  int missing = 0;
  unlink(dst);
  if (written_once(name) && link(src, dst) == 0) return DT_OK;
  return copy_file(src, dst, 0, &missing, ctx); /* a file the old run renamed away: skipped */
}

/* The files of from/out into to/out, but for the temporary files of writes in flight. */
static dt_status adopt_results(const char *from, const char *to, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char src_dir[PATH_MAX], src[PATH_MAX + 300], dst[PATH_MAX + 300];
  struct dirent *e;
  struct stat sb;
  DIR *d = NULL;
  snprintf(src_dir, sizeof src_dir, "%s/out", from);
  d = opendir(src_dir);
  DT_CHECK(d != NULL || errno == ENOENT, ctx, DT_ERR_IO, "cannot list '%s': %s", src_dir,
           strerror(errno));
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.' || ends_with(e->d_name, ".tmp")) continue;
    snprintf(src, sizeof src, "%s/%s", src_dir, e->d_name);
    if (lstat(src, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    snprintf(dst, sizeof dst, "%s/out/%s", to, e->d_name);
    DT_TRY(adopt_result(src, dst, e->d_name, ctx));
  }
cleanup:
  if (d) closedir(d);
  return rc;
}

/* mkdir that accepts a directory already there. */
static dt_status make_dir(const char *path, dt_ctx *ctx) {
  struct stat sb;
  if (mkdir(path, 0755) == 0 || (errno == EEXIST && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)))
    return DT_OK;
  return DT_ERROR(ctx, DT_ERR_IO, "cannot create the directory '%s': %s", path, strerror(errno));
}

dt_status dt_job_dir_adopt(const char *from, const char *to, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char out[PATH_MAX + 8];
  snprintf(out, sizeof out, "%s/out", to);
  DT_TRY(make_dir(to, ctx));
  /* The checkpoint before the results: the old run, if it still goes on, writes an increment's
   * results before its checkpoint, so the results copied next cover every increment the copied
   * checkpoint holds (later ones the resumed run writes again). */
  DT_TRY(adopt_checkpoint(from, to, ctx));
  /* A file where out/ goes is the solver's to report (the run fails naming it). */
  if (make_dir(out, ctx) != DT_OK) {
    dt_ctx_reset(ctx);
    goto cleanup;
  }
  DT_TRY(adopt_results(from, to, ctx));
cleanup:
  return rc;
}

/* Remove the checkpoint in dir, and a temporary one of a write in flight. */
static void remove_checkpoint(const char *dir) {
  char p[PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/" DT_CHECKPOINT_FILE, dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/" DT_CHECKPOINT_FILE ".tmp", dir);
  unlink(p);
}

void dt_job_dirs_prune(const char *data_dir, const char *id, int keep) {
  char dir[PATH_MAX], p[PATH_MAX + 300];
  struct dirent *e;
  DIR *d;
  dt_job_dir(dir, sizeof dir, data_dir, id, 0);
  if ((d = opendir(dir))) {
    while ((e = readdir(d))) {
      int n = attempt_of(e->d_name);
      if (n <= 0 || n == keep) continue;
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      dt_remove_tree(p);
    }
    closedir(d);
  }
  if (keep > 0) { /* a job of before version 9 that ran again since */
    snprintf(p, sizeof p, "%s/out", dir);
    dt_remove_tree(p);
    remove_checkpoint(dir);
  }
  dt_job_dir(dir, sizeof dir, data_dir, id, keep);
  remove_checkpoint(dir);
}

long long dt_job_dir_bytes(const char *data_dir, const char *id, int attempt) {
  char dir[PATH_MAX];
  long long n;
  dt_job_dir(dir, sizeof dir, data_dir, id, 0);
  n = dt_dir_bytes(dir, 0); /* the document; before version 9 also the checkpoint */
  if (attempt > 0) {
    dt_job_dir(dir, sizeof dir, data_dir, id, attempt);
    return n + dt_dir_bytes(dir, 1);
  }
  snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/out");
  return n + dt_dir_bytes(dir, 1);
}
