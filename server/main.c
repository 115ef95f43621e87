/* ductiled: entry point, command line, start-up and graceful shutdown.
 *
 *   ductiled [OPTIONS]                      serve (the default)
 *   ductiled [OPTIONS] token create [--name NAME] [--user USER]
 *   ductiled [OPTIONS] token list
 *   ductiled [OPTIONS] token revoke ID
 *   ductiled [OPTIONS] admin user add NAME [--admin]
 *   ductiled [OPTIONS] admin user list
 *   ductiled [OPTIONS] admin user disable NAME | admin user enable NAME
 *   ductiled [OPTIONS] admin user share NAME WEIGHT
 *   ductiled [OPTIONS] admin backup FILE
 *   ductiled [OPTIONS] admin audit [--limit N] [--action A] [--actor NAME] [--target T]
 *   ductiled [OPTIONS] migrate                apply the schema migrations and exit
 * OPTIONS: --config FILE (or DUCTILED_CONFIG), --listen ADDR:PORT, --data-dir DIR,
 * --database SQLITE-FILE|postgresql://... (config.h).
 * The commands other than serving are in commands.c.
 *
 * Start-up: configuration, data directory, store (migrations), the HTTPS certificate and key
 * when configured (tls.h), first-start admin token, solver backend and devices (workers per
 * GPU), removal of mesh and job files no row names (a crash between a file and its row),
 * recovery of jobs a crash left running (they resume from their checkpoints), workers, HTTP. SIGTERM/SIGINT: stop accepting connections
 * and jobs, let each running increment finish and checkpoint (its job resumes there at the
 * next start), end event streams, exit 0. SIGUSR1 (from an operator, or raised by a worker
 * whose GPU faulted, worker.c): the same drain, then the daemon starts afresh in the same
 * process (execv of its own executable, same arguments and environment: a faulted GPU is usable
 * again only by a new process); recovery then queues the interrupted jobs, which resume from
 * their checkpoints.
 * Signals are taken synchronously with sigwait in the main thread, so no handler runs in an
 * arbitrary thread. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "bus.h"
#include "commands.h"
#include "data_files.h"
#include "devices.h"
#include "handlers.h"
#include "http.h"
#include "leases.h"
#include "log.h"
#include "server.h"
#include "store.h"
#include "store_jobs.h"
#include "worker.h"

enum { EXIT_USAGE = DT_EXIT_USAGE, EXIT_CONFIG = 78 };

static void usage(FILE *f) {
  fprintf(f, "usage: ductiled [--config FILE] [--listen ADDR:PORT] [--data-dir DIR] "
             "[--database FILE|postgresql://...]\n"
             "       ductiled [OPTIONS] migrate\n"
             "       ductiled [OPTIONS] token create [--name NAME] [--user USER] | token list | "
             "token revoke ID\n"
             "       ductiled [OPTIONS] admin user add NAME [--admin] | admin user list\n"
             "       ductiled [OPTIONS] admin user disable NAME | admin user enable NAME\n"
             "       ductiled [OPTIONS] admin user share NAME WEIGHT\n"
             "       ductiled [OPTIONS] admin backup FILE\n"
             "       ductiled [OPTIONS] admin audit [--limit N] [--action A] [--actor NAME] "
             "[--target T]\n"
             "       ductiled --version\n");
}

static dt_status mkdir_p(const char *path, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    DT_CHECK(mkdir(tmp, 0755) == 0 || errno == EEXIST, ctx, DT_ERR_IO,
             "data_dir: cannot create '%.300s': %s", tmp, strerror(errno));
    *p = '/';
  }
  DT_CHECK(mkdir(tmp, 0755) == 0 || errno == EEXIST, ctx, DT_ERR_IO,
           "data_dir: cannot create '%.300s': %s", tmp, strerror(errno));
cleanup:
  return rc;
}

/* What a daemon sharing its store (and data directory) with others leaves alone as it starts:
 * files younger than this, which another daemon may be writing. */
#define SHARED_MIN_AGE_S 3600

/* Remove the uploads a crash or a stop interrupted (<data>/tmp), as the daemon starts; those
 * younger than min_age_s seconds stay (another daemon's uploads, in a shared directory). */
static void clear_tmp(const char *dir, long min_age_s) {
  DIR *d = opendir(dir);
  struct dirent *e;
  struct stat sb;
  char f[PATH_MAX + 300];
  time_t now = time(NULL);
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.') {
      snprintf(f, sizeof f, "%s/%s", dir, e->d_name);
      if (min_age_s > 0 && stat(f, &sb) == 0 && now - sb.st_mtime < min_age_s) continue;
      unlink(f);
    }
  if (d) closedir(d);
}

static dt_status prepare_data_dir(dt_server *srv, dt_ctx *ctx) {
  static const char *const subdirs[] = {"meshes", "jobs", "tmp"};
  dt_status rc = DT_OK;
  char p[PATH_MAX + 16];
  DT_TRY(mkdir_p(srv->cfg.data_dir, ctx));
  DT_CHECK(realpath(srv->cfg.data_dir, srv->data_dir) != NULL, ctx, DT_ERR_IO,
           "data_dir: cannot resolve '%.300s': %s", srv->cfg.data_dir, strerror(errno));
  chmod(srv->data_dir, 0700);
  for (int i = 0; i < 3; i++) {
    snprintf(p, sizeof p, "%s/%s", srv->data_dir, subdirs[i]);
    DT_CHECK(mkdir(p, 0755) == 0 || errno == EEXIST, ctx, DT_ERR_IO, "cannot create '%.300s': %s",
             p, strerror(errno));
  }
cleanup:
  return rc;
}

/* The command-line options before the command (--listen, --data-dir; --config was read
 * first); *first receives the index of the first other argument. An unknown option sets
 * *usage. */
static dt_status options(dt_server *srv, int argc, char **argv, int *first, int *usage,
                         dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int i;
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    const char *key = !strcmp(argv[i], "--listen")     ? "listen"
                      : !strcmp(argv[i], "--data-dir") ? "data_dir"
                      : !strcmp(argv[i], "--database") ? "database"
                                                       : NULL;
    if (!strcmp(argv[i], "--config") && i + 1 < argc) {
      i++;
      continue;
    }
    *usage = !key || i + 1 >= argc;
    DT_CHECK(!*usage, ctx, DT_ERR_INPUT, "unknown or incomplete option '%s'", argv[i]);
    DT_TRY(dt_config_set(&srv->cfg, key, argv[++i], "command line", ctx));
  }
  *first = i;
cleanup:
  return rc;
}

/* Defaults, the config file, the environment, the command line (config.h). */
static dt_status load_config(dt_server *srv, int argc, char **argv, int *first, int *usage,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const char *file = getenv("DUCTILED_CONFIG");
  dt_config_defaults(&srv->cfg);
  *usage = 0;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--config")) file = argv[i + 1];
  if (file) DT_TRY(dt_config_load_file(&srv->cfg, file, ctx));
  DT_TRY(dt_config_load_env(&srv->cfg, ctx));
  DT_TRY(options(srv, argc, argv, first, usage, ctx));
  DT_TRY(dt_config_finish(&srv->cfg, ctx));
  if (srv->cfg.sse_keepalive * 2 > srv->cfg.connection_timeout)
    srv->cfg.sse_keepalive =
        srv->cfg.connection_timeout / 2 > 0 ? srv->cfg.connection_timeout / 2 : 1;
  dt_log_set_level((dt_log_level)dt_log_level_parse(srv->cfg.log_level));
cleanup:
  return rc;
}

/* The restarts in place before this start (0 for a fresh start), from what restart() left in
 * the environment; removed from it, so only restart() passes them on. */
static void restart_history(dt_server *srv) {
  const char *n = getenv("DUCTILED_INTERNAL_RESTARTS"),
             *at = getenv("DUCTILED_INTERNAL_RESTART_AT");
  const char *why = getenv("DUCTILED_INTERNAL_RESTART_WHY");
  if (n && at && why) {
    srv->restarts = atoi(n);
    snprintf(srv->last_restart_at, sizeof srv->last_restart_at, "%s", at);
    snprintf(srv->last_restart_why, sizeof srv->last_restart_why, "%s", why);
    dt_log_info("restarted in place (%d so far; the last at %s: %s)", srv->restarts, at, why);
  }
  unsetenv("DUCTILED_INTERNAL_RESTARTS");
  unsetenv("DUCTILED_INTERNAL_RESTART_AT");
  unsetenv("DUCTILED_INTERNAL_RESTART_WHY");
}

/* The instance name when none is configured: HOST:PORT (HOST:pPID with port 0), unique among the
 * daemons of a shared store as long as each host's daemons listen on different ports, and the
 * same across the restarts of one daemon (which then recovers its own jobs at once). */
static void default_instance(dt_config *c) {
  char host[64] = "localhost";
  if (c->instance[0]) return;
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  if (c->port > 0)
    snprintf(c->instance, sizeof c->instance, "%s:%d", host, c->port);
  else
    snprintf(c->instance, sizeof c->instance, "%s:p%ld", host, (long)getpid());
}

#define SERVE_RESTART (-1) /* serve's result after SIGUSR1: start afresh (never an exit status) */

/* Start afresh (SIGUSR1: an operator's, or a worker's after a GPU fault): the same executable,
 * arguments and environment, in this process's place (serve has closed the store and the
 * listening socket; the CUDA driver's descriptors close on exec). Measured on an H200: a
 * CUDA context that faulted stays unusable, cudaDeviceReset included, while the program that
 * execv starts uses the GPU. */
static int restart(const dt_server *srv, char **argv) {
  char count[16], at[40];
  time_t now = time(NULL);
  struct tm tm;
  const char *why = srv->restart_why[0] ? srv->restart_why : "SIGUSR1 (an operator's restart)";
  snprintf(count, sizeof count, "%d", srv->restarts + 1);
  strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  /* what /v1/health reports after the restart (read back by restart_history) */
  setenv("DUCTILED_INTERNAL_RESTARTS", count, 1);
  setenv("DUCTILED_INTERNAL_RESTART_AT", at, 1);
  setenv("DUCTILED_INTERNAL_RESTART_WHY", why, 1);
  /* A SIGUSR1 that came during the drain asked for this same restart: drop it, or the new
   * process (which inherits pending signals) would restart once more. */
  {
    sigset_t usr1;
    struct timespec now0 = {0, 0};
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    while (sigtimedwait(&usr1, NULL, &now0) == SIGUSR1) {}
  }
  dt_log_info("restarting (%s)", why);
  execv("/proc/self/exe", argv);
  dt_log_error("cannot restart (%s): exiting with status 1 (deploy/ductiled.service restarts it)",
               strerror(errno));
  return 1;
}

/* Everything before the daemon listens: TLS certificate, admin token, devices, dashboard, files
 * no row names (data_files.h), recovery, workers, HTTP. The exit status for a failure (the message
 * is in ctx). */
static dt_status start(dt_server *srv, int *exit_status, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int recovered = 0, removed = 0;
  /* A certificate that cannot be used is a configuration error, found before anything runs. */
  *exit_status = EXIT_CONFIG;
  DT_TRY(dt_tls_load(&srv->cfg, &srv->tls, ctx));
  *exit_status = 1;
  DT_TRY(dt_auth_bootstrap(srv->data_dir, ctx));
  *exit_status = EXIT_CONFIG;
  DT_TRY(dt_devices_init(srv, ctx));
  *exit_status = 1;
  dt_dashboard_init(srv);
  /* With a shared store the data directory is shared too: what another daemon wrote just now
   * may be a file whose row it has yet to commit. */
  DT_TRY(dt_data_sweep(srv->data_dir, dt_store_shared() ? SHARED_MIN_AGE_S : 0, &removed, ctx));
  if (removed)
    dt_log_info("start-up: removed %d file(s) or directories that no database row references (left "
                "by a crash between a file and its row)",
                removed);
  DT_TRY(
      dt_job_recover(srv->data_dir, dt_store_shared() ? srv->cfg.instance : NULL, &recovered, ctx));
  if (recovered) dt_log_info("recovered %d job(s) left running by the previous run", recovered);
  if (dt_store_shared()) dt_jobs_set_instance(srv->cfg.instance);
  DT_TRY(dt_store_listen_start(ctx));
  DT_TRY(dt_leases_start(srv, ctx));
  DT_TRY(dt_workers_start(srv, ctx));
  DT_TRY(dt_http_start(srv, ctx));
cleanup:
  return rc;
}

/* The thread that takes SIGTERM, SIGINT and SIGUSR1 with sigwait (serve). Every thread the
 * daemon starts blocks them, but a library may have started threads before main, which do not:
 * OpenBLAS starts its pool as it loads (Debian's libblas.so.3 may be OpenBLAS, and CHOLMOD
 * loads it), and the kernel gives a process's signal to any thread that does not block it,
 * where its default action ends the process without a drain. Such a thread runs this handler,
 * which hands the signal on to the waiting thread; there it is blocked, so sigwait takes it. */
static pthread_t signal_thread;

static void hand_on(int sig) { pthread_kill(signal_thread, sig); }

static int serve(dt_server *srv) {
  dt_ctx ctx;
  sigset_t set;
  struct sigaction sa;
  int sig = 0, status = 1;
  memset(&ctx, 0, sizeof ctx);
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, NULL); /* inherited by every thread started below */
  signal_thread = pthread_self();
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = hand_on;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  if (start(srv, &status, &ctx) != DT_OK) {
    dt_log_error("%s", ctx.msg);
    dt_workers_stop(srv);
    dt_leases_stop(srv, 0);
    dt_store_listen_stop();
    dt_store_shutdown();
    dt_tls_free(&srv->tls);
    return status;
  }
  {
    char port[16];
    const char *kv[] = {"address",  srv->cfg.listen_host,
                        "port",     port,
                        "scheme",   srv->tls.cert_pem ? "https" : "http",
                        "data_dir", srv->data_dir,
                        "version",  DUCTILED_VERSION,
                        "store",    dt_store_kind(),
                        "instance", srv->cfg.instance,
                        NULL};
    snprintf(port, sizeof port, "%d", srv->port);
    dt_log(DT_LOG_INFO, NULL, kv, "listening");
  }
  while (sigwait(&set, &sig) != 0) {}
  if (sig == SIGUSR1) {
    atomic_store(&srv->restarting, 1);
    dt_log_info("received SIGUSR1 (sent by an operator, or by a worker whose GPU faulted): "
                "draining (running "
                "increments finish), then restarting");
  } else
    dt_log_info("received %s: draining (running increments finish, then exit)",
                sig == SIGTERM ? "SIGTERM" : "SIGINT");
  atomic_store(&srv->draining, 1);
  dt_http_quiesce(srv);
  dt_workers_stop(srv);
  dt_leases_stop(srv, 1);
  dt_store_listen_stop();
  dt_bus_close();
  dt_http_stop(srv);
  dt_store_thread_close();
  dt_store_shutdown();
  if (sig == SIGUSR1) return SERVE_RESTART;
  dt_log_info("stopped");
  return 0;
}

int main(int argc, char **argv) {
  static dt_server srv; /* the daemon's top-level state */
  dt_ctx ctx;
  int first = 1, bad_usage = 0;
  memset(&ctx, 0, sizeof ctx);
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) return usage(stdout), 0;
  if (argc > 1 && !strcmp(argv[1], "--version"))
    return printf("ductiled %s\n", DUCTILED_VERSION), 0;
  if (load_config(&srv, argc, argv, &first, &bad_usage, &ctx) != DT_OK) {
    fprintf(stderr, "ductiled: %s\n", ctx.msg);
    if (bad_usage) usage(stderr);
    return bad_usage ? EXIT_USAGE : EXIT_CONFIG;
  }
  default_instance(&srv.cfg);
  if (prepare_data_dir(&srv, &ctx) != DT_OK ||
      dt_store_init(srv.data_dir, srv.cfg.database, &ctx) != DT_OK) {
    dt_log_error("%s", ctx.msg);
    return 1;
  }
  if (first < argc && (!strcmp(argv[first], "token") || !strcmp(argv[first], "admin"))) {
    int status = (!strcmp(argv[first], "token") ? dt_cmd_token : dt_cmd_admin)(argc - first - 1,
                                                                               argv + first + 1);
    if (status == EXIT_USAGE) usage(stderr);
    return status;
  }
  if (first < argc && !strcmp(argv[first], "migrate")) return dt_cmd_migrate(argc - first - 1);
  if (first < argc && strcmp(argv[first], "serve")) {
    fprintf(stderr, "ductiled: unknown command '%s'\n", argv[first]);
    return usage(stderr), EXIT_USAGE;
  }
  restart_history(&srv);
  {
    /* Only the daemon clears its spool directory: a command run beside a running daemon (a
     * backup, a token) would remove the uploads it is receiving. */
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s/tmp", srv.data_dir);
    clear_tmp(tmp, dt_store_shared() ? SHARED_MIN_AGE_S : 0);
  }
  first = serve(&srv);
  return first == SERVE_RESTART ? restart(&srv, argv) : first;
}
