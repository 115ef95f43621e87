/* File-system helpers of the output writer: path joining, mkdir -p, atomic replace, buffers. */
#include "io/output_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

dt_status dt_output_path(const char *dir, const char *name, char **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = NULL;
  *out = NULL;
  DT_ALLOC(p, n, ctx, "an output file path");
  snprintf(p, n, "%s/%s", dir, name);
  *out = p;
cleanup:
  return rc;
}

/* Create one directory; an existing directory is fine (another process may race us). */
static dt_status mkdir_one(const char *path, dt_ctx *ctx) {
  struct stat st;
  int err;
  if (mkdir(path, 0755) == 0) return DT_OK;
  err = errno;
  if (err == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return DT_OK;
  if (err == EEXIST) err = ENOTDIR;
  return DT_ERROR(ctx, DT_ERR_IO, "cannot create output directory '%s': %s", path, strerror(err));
}

dt_status dt_output_mkdirs(const char *dir, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char *p = NULL;
  size_t n = strlen(dir), i;
  DT_CHECK(n > 0, ctx, DT_ERR_INPUT, "the output directory name is empty");
  DT_ALLOC(p, n + 1, ctx, "the output directory path");
  memcpy(p, dir, n + 1);
  /* Create every prefix ending before a '/', then the whole path (skipping a leading '/'). */
  for (i = 1; i < n; i++) {
    if (p[i] != '/' || p[i - 1] == '/') continue;
    p[i] = '\0';
    DT_TRY(mkdir_one(p, ctx));
    p[i] = '/';
  }
  DT_TRY(mkdir_one(p, ctx));
cleanup:
  dt_free(p);
  return rc;
}

dt_status dt_output_commit(FILE *f, const char *tmp_path, const char *path, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int werr = ferror(f);
  int cerr = fclose(f);
  DT_CHECK(!werr && cerr == 0, ctx, DT_ERR_IO, "cannot write '%s': %s", path,
           cerr ? strerror(errno) : "write error");
  DT_CHECK(rename(tmp_path, path) == 0, ctx, DT_ERR_IO, "cannot rename '%s' to '%s': %s", tmp_path,
           path, strerror(errno));
cleanup:
  if (rc != DT_OK) remove(tmp_path);
  return rc;
}

dt_status dt_output_commit_durable(FILE *f, const char *tmp_path, const char *path, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int flushed = fflush(f) == 0 && fsync(fileno(f)) == 0;
  DT_CHECK(flushed, ctx, DT_ERR_IO, "cannot flush '%s' to the disk: %s", tmp_path, strerror(errno));
  rc = dt_output_commit(f, tmp_path, path, ctx);
  f = NULL; /* closed by the commit */
cleanup:
  if (f) {
    fclose(f);
    remove(tmp_path);
  }
  return rc;
}

dt_status dt_output_write_file(const char *path, void (*write)(FILE *, const void *),
                               const void *arg, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char tmp[4352]; /* on the stack: the writer thread does not allocate (output_queue.c) */
  FILE *fp = NULL;
  DT_CHECK((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) < sizeof tmp, ctx, DT_ERR_IO,
           "output path too long: '%s'", path);
  fp = fopen(tmp, "w");
  DT_CHECK(fp != NULL, ctx, DT_ERR_IO, "cannot open '%s' for writing: %s", tmp, strerror(errno));
  write(fp, arg);
  rc = dt_output_commit(fp, tmp, path, ctx); /* closes fp, checks every write */
  fp = NULL;
cleanup:
  if (fp) {
    fclose(fp);
    remove(tmp);
  }
  return rc;
}

dt_status dt_output_reserve(void **p, size_t *cap, size_t bytes, dt_ctx *ctx, const char *what) {
  dt_status rc = DT_OK;
  void *q;
  if (bytes <= *cap && *p != NULL) return DT_OK;
  /* Not realloc: the old contents are not needed, and copying them would cost as much as
   * the data itself. */
  q = dt_malloc(bytes > 0 ? bytes : 1);
  DT_CHECK(q != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating %s (%zu bytes)", what, bytes);
  dt_free(*p);
  *p = q;
  *cap = bytes;
cleanup:
  return rc;
}
