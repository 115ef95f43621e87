/* The online backup of a PostgreSQL store (store.h): pg_dump's custom format, which is one
 * snapshot of the database (a repeatable-read transaction: the daemons go on writing), written
 * beside its destination under a temporary name, checked by reading its table of contents back
 * with pg_restore --list, synced, and linked to its name only when complete: a failed backup
 * leaves nothing under the name, and an existing file is never replaced. pg_dump and pg_restore
 * are PostgreSQL's client programs (Debian: postgresql-client), found on PATH; restore with
 * pg_restore (docs/operations.md). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store_impl.h"

/* Run argv (stdout to /dev/null, stderr kept in err); *status: its exit status (-1: no start). */
static void run(char *const argv[], int *status, char *err, size_t cap) {
  int pipefd[2], st = 0;
  pid_t pid;
  size_t n = 0;
  ssize_t k;
  *status = -1;
  err[0] = '\0';
  if (pipe(pipefd) != 0) return;
  pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s", argv[0], strerror(errno));
    _exit(127);
  }
  close(pipefd[1]);
  while (pid > 0 && (k = read(pipefd[0], err + n, cap - 1 - n)) > 0) n += (size_t)k;
  err[n] = '\0';
  err[strcspn(err, "\n")] = '\0';
  close(pipefd[0]);
  if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st)) *status = WEXITSTATUS(st);
}

dt_status dt_store_backup_pg(const char *conninfo, const char *dest, dt_backup_info *info,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char tmp[PATH_MAX] = "", file_arg[PATH_MAX + 16], db_arg[2100], err[1024];
  int status = 0;
  memset(info, 0, sizeof *info);
  DT_TRY(dt_backup_temp(dest, tmp, sizeof tmp, ctx));
  snprintf(file_arg, sizeof file_arg, "--file=%s", tmp);
  snprintf(db_arg, sizeof db_arg, "--dbname=%s", conninfo);
  {
    char *argv[] = {"pg_dump", "--format=custom", "--no-password", file_arg, db_arg, NULL};
    run(argv, &status, err, sizeof err);
  }
  DT_CHECK(status == 0, ctx, status == 127 || status < 0 ? DT_ERR_IO : DT_ERR_DB,
           "backup: pg_dump failed (exit status %d): %s", status, err);
  {
    char *argv[] = {"pg_restore", "--list", tmp, NULL};
    run(argv, &status, err, sizeof err);
  }
  DT_CHECK(status == 0, ctx, DT_ERR_DB, "backup: pg_restore cannot read the dump back: %s", err);
  DT_TRY(dt_backup_publish(tmp, dest, info, ctx));
cleanup:
  if (tmp[0]) unlink(tmp);
  return rc;
}
