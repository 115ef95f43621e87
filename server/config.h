/* Daemon configuration: built-in defaults, then a config file, then environment variables,
 * then command-line options (each overrides the one before).
 *
 * The file holds `key = value` lines; `#` starts a comment. The environment variable of a
 * key is DUCTILED_ + the key in upper case (listen -> DUCTILED_LISTEN). Keys, with defaults:
 *   listen                 127.0.0.1:8080   address:port (port 0 picks a free one)
 *   data_dir               ./ductile-data   created if missing
 *   database               (SQLite)         the store: empty for SQLite in
 *                                           <data_dir>/ductile.db (or a path to the SQLite
 *                                           file), or a PostgreSQL connection URI
 *                                           (postgresql://user@host/db) shared by several
 *                                           daemons, which then also share data_dir (a
 *                                           shared file system): docs/operations.md
 *   instance               HOST:PORT        this daemon's name among those sharing a
 *                                           PostgreSQL store: the holder of its jobs' leases
 *   lease_seconds          30               PostgreSQL: a running job's lease, renewed by its
 *                                           daemon every third of it; a job whose lease ran
 *                                           out (its daemon died) is queued again and resumed
 *                                           by any daemon from its checkpoint
 *   gpus                   auto             "auto" (one worker per device the backend
 *                                           reports: each GPU, or one for the CPU), "cpu",
 *                                           or GPU ordinals "0,1": one worker per entry
 *                                           ("0,0": two workers share GPU 0); an entry
 *                                           "0+1+2+3" is one worker whose jobs run split
 *                                           over those devices (each at most once in it)
 *   backend                auto             solver backend: auto, cpu, cuda
 *   solver_threads         0                CPU backend threads (0: OpenMP default)
 *   max_body_bytes         268435456        request bodies above this get 413
 *   max_connections        256              concurrent HTTP connections served; a request
 *                                           on one more gets 503 too_many_connections
 *                                           (libmicrohttpd's own limit, at which it closes
 *                                           new connections unanswered, is higher:
 *                                           conn_limits.h)
 *   max_connections_per_client 32           the same for the connections of one client
 *                                           address
 *   connection_timeout     30               seconds of client silence before closing
 *   header_timeout         15               seconds a connection has for a complete request
 *                                           head, counted from its accept or its previous
 *                                           reply: a client that trickles bytes (slowloris)
 *                                           is closed after it, silent or not
 *   body_min_rate          4096             bytes per second a request body must average
 *                                           after its first header_timeout seconds (0: no
 *                                           minimum; connection_timeout still applies)
 *   rate_limit             50               requests per second per token (0: no limit);
 *                                           beyond it and the burst, 429 with Retry-After
 *   rate_burst             200              requests a token may make at once
 *   sse_keepalive          15               seconds between SSE keep-alive comments
 *   max_streams_per_user   16               event streams one user may hold open at once (a
 *                                           user's streams could otherwise fill the
 *                                           connection slots, from many addresses): one more
 *                                           gets 429 too_many_streams
 *   max_queued_jobs        10000            submissions beyond this get 429
 *   max_job_bytes          0                admission limit on a job's memory estimate, on
 *                                           top of the device memory (0: device memory only)
 *   max_model_dofs         20000000         DOFs (nodes x 2 or 3) a job or an uploaded mesh
 *                                           may declare; beyond, 422 model_too_large, counted
 *                                           from the text as it arrives (0: no limit)
 *   max_model_elements     10000000         the same for elements (a .msh: every element of
 *                                           its $Elements section) (0: no limit)
 *   fair_share_window      3600             seconds of worker time each user's use is summed
 *                                           over: the next job is the one of the user who
 *                                           used the least, then the highest priority, then
 *                                           the oldest (0: no fair sharing, priority then
 *                                           submission order)
 *   max_active_jobs_per_user 1000           queued and running jobs one user may have; a
 *                                           submission beyond gets 429 too_many_jobs
 *   max_job_increments     10000            converged increments a job may take: a job whose
 *                                           steps need more gets 422 too_many_increments, and
 *                                           a run that gets there (cutbacks) fails
 *   max_user_stored_bytes  0                bytes one user may store: meshes and ended jobs'
 *                                           directories; a mesh upload or job submission
 *                                           beyond gets 413 storage_quota (0: no cap)
 *   max_job_output_bytes   10737418240      bytes of results a job may write (its out/
 *                                           directory, checked as its increments converge):
 *                                           a job beyond it fails with output_too_large
 *                                           (0: no cap)
 *   dashboard_dir          (built in)       the web dashboard served at / (DUCTILE_DASHBOARD_DIR
 *                                           overrides it); default: the first of
 *                                           <prefix>/share/ductile/dashboard and the build
 *                                           tree's clients/dashboard/dist that holds index.html
 *   log_level              info             debug, info, warn, error
 *   tls_cert               (none)           PEM file of the server's certificate (and its
 *                                           chain): with tls_key, the daemon speaks HTTPS
 *                                           only, on the same listen address (tls.h)
 *   tls_key                (none)           PEM file of its private key, unencrypted; set
 *                                           both or neither
 *   test_iteration_delay_ms 0               test hook: sleep per Newton iteration
 *   test_disk_full_at_end  0                test hook: the first N attempts to record the
 *                                           end of the first job that ends fail as on a full
 *                                           disk (worker_ends.h)
 *
 * Test hooks (test_iteration_delay_ms, test_disk_full_at_end, and the environment variable
 * DUCTILED_TEST_FIELDS_DELAY_MS of worker_fields_queue.h) exist only in a build with
 * DUCTILE_TEST_HOOKS (the default; a build for use turns it off). A build without them rejects
 * their settings, from the file, the environment or the command line, with a message that says
 * so: a daemon asked to behave as in a test does not start as if it had been. */
#ifndef DT_SRV_CONFIG_H
#define DT_SRV_CONFIG_H

#include <stddef.h>

#include "backend/backend.h" /* DT_MAX_RUN_DEVICES */
#include "status.h"

#define DT_MAX_WORKERS 16

typedef struct dt_config {
  char listen_host[64];
  int port;
  char data_dir[1024];
  char database[2048];
  char instance[128];
  long long lease_seconds;
  char gpus[128];
  char backend[16];
  int n_workers;
  int worker_device[DT_MAX_WORKERS]; /* GPU ordinal, or -1 for the default device / CPU; a
                                        group's first device */
  /* Each worker's devices (gpus = "0+1": one worker, 2 devices, its jobs split over them);
   * n 1 for a single device, and for auto and cpu (worker_device -1). */
  int worker_devices[DT_MAX_WORKERS][DT_MAX_RUN_DEVICES];
  int worker_n_devices[DT_MAX_WORKERS];
  int gpus_auto; /* gpus = auto: devices.c sets one worker per device */
  long long solver_threads;
  long long max_body_bytes;
  long long max_connections;
  long long max_connections_per_client;
  long long connection_timeout;
  long long header_timeout;
  long long body_min_rate;
  long long rate_limit;
  long long rate_burst;
  long long sse_keepalive;
  long long max_streams_per_user;
  long long max_queued_jobs;
  long long max_job_bytes;
  long long max_model_dofs;
  long long max_model_elements;
  long long fair_share_window;
  long long max_active_jobs_per_user;
  long long max_job_increments;
  long long max_job_output_bytes;
  long long max_user_stored_bytes;
#ifdef DUCTILE_TEST_HOOKS
  long long test_iteration_delay_ms;
  long long test_disk_full_at_end;
  long long test_exit_after_checkpoint; /* _exit(137) once increment n is checkpointed, before
                                           its increment.converged event: a crash in that gap */
#endif
  char log_level[16];
  char dashboard_dir[1024];
  char tls_cert[1024]; /* "" : plain HTTP */
  char tls_key[1024];
} dt_config;

void dt_config_defaults(dt_config *c);
/* Set one key from text; origin names where it came from in messages (DT_ERR_INPUT). */
dt_status dt_config_set(dt_config *c, const char *key, const char *value, const char *origin,
                        dt_ctx *ctx);
/* Read a config file (DT_ERR_IO when it cannot be opened). */
dt_status dt_config_load_file(dt_config *c, const char *path, dt_ctx *ctx);
/* Apply DUCTILED_* environment variables. */
dt_status dt_config_load_env(dt_config *c, dt_ctx *ctx);
/* Derive n_workers and each worker's devices from gpus and check consistency. */
dt_status dt_config_finish(dt_config *c, dt_ctx *ctx);

#endif
