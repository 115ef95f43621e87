/* Configuration (see config.h). A table maps each key to its field, so the file, the
 * environment and the command line share one parser and one set of messages. To add a key:
 * add the field to dt_config, its default, and a row to KEYS. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ductile.h"
#include "log.h"

typedef enum { K_STR, K_INT, K_LISTEN } key_kind;

typedef struct key_def {
  const char *name;
  key_kind kind;
  size_t offset;
  size_t size; /* K_STR: buffer size */
  long long lo, hi;
} key_def;

#define OFF(f) offsetof(dt_config, f)
static const key_def KEYS[] = {
    {"listen", K_LISTEN, 0, 0, 0, 0},
    {"data_dir", K_STR, OFF(data_dir), sizeof(((dt_config *)0)->data_dir), 0, 0},
    {"database", K_STR, OFF(database), sizeof(((dt_config *)0)->database), 0, 0},
    {"instance", K_STR, OFF(instance), sizeof(((dt_config *)0)->instance), 0, 0},
    {"lease_seconds", K_INT, OFF(lease_seconds), 0, 2, 86400},
    {"gpus", K_STR, OFF(gpus), sizeof(((dt_config *)0)->gpus), 0, 0},
    {"backend", K_STR, OFF(backend), sizeof(((dt_config *)0)->backend), 0, 0},
    {"dashboard_dir", K_STR, OFF(dashboard_dir), sizeof(((dt_config *)0)->dashboard_dir), 0, 0},
    {"log_level", K_STR, OFF(log_level), sizeof(((dt_config *)0)->log_level), 0, 0},
    {"tls_cert", K_STR, OFF(tls_cert), sizeof(((dt_config *)0)->tls_cert), 0, 0},
    {"tls_key", K_STR, OFF(tls_key), sizeof(((dt_config *)0)->tls_key), 0, 0},
    {"solver_threads", K_INT, OFF(solver_threads), 0, 0, 1024},
    {"max_body_bytes", K_INT, OFF(max_body_bytes), 0, 1024, (long long)1 << 40},
    {"max_connections", K_INT, OFF(max_connections), 0, 4, 100000},
    {"max_connections_per_client", K_INT, OFF(max_connections_per_client), 0, 1, 100000},
    {"connection_timeout", K_INT, OFF(connection_timeout), 0, 1, 86400},
    {"header_timeout", K_INT, OFF(header_timeout), 0, 1, 3600},
    {"body_min_rate", K_INT, OFF(body_min_rate), 0, 0, (long long)1 << 40},
    {"rate_limit", K_INT, OFF(rate_limit), 0, 0, 1000000},
    {"rate_burst", K_INT, OFF(rate_burst), 0, 1, 1000000},
    {"sse_keepalive", K_INT, OFF(sse_keepalive), 0, 1, 3600},
    {"max_streams_per_user", K_INT, OFF(max_streams_per_user), 0, 1, 100000},
    {"max_queued_jobs", K_INT, OFF(max_queued_jobs), 0, 1, 100000000},
    {"max_job_bytes", K_INT, OFF(max_job_bytes), 0, 0, (long long)1 << 50},
    {"max_model_dofs", K_INT, OFF(max_model_dofs), 0, 0, (long long)1 << 40},
    {"max_model_elements", K_INT, OFF(max_model_elements), 0, 0, (long long)1 << 40},
    {"fair_share_window", K_INT, OFF(fair_share_window), 0, 0, 366LL * 86400},
    {"max_active_jobs_per_user", K_INT, OFF(max_active_jobs_per_user), 0, 1, 100000000},
    {"max_job_increments", K_INT, OFF(max_job_increments), 0, 1, 1000000000},
    {"max_job_output_bytes", K_INT, OFF(max_job_output_bytes), 0, 0, (long long)1 << 60},
    {"max_user_stored_bytes", K_INT, OFF(max_user_stored_bytes), 0, 0, (long long)1 << 60},
#ifdef DUCTILE_TEST_HOOKS
    {"test_iteration_delay_ms", K_INT, OFF(test_iteration_delay_ms), 0, 0, 60000},
    {"test_disk_full_at_end", K_INT, OFF(test_disk_full_at_end), 0, 0, 1000},
    {"test_exit_after_checkpoint", K_INT, OFF(test_exit_after_checkpoint), 0, 0, 1000000},
#endif
};
#define N_KEYS (sizeof KEYS / sizeof KEYS[0])

void dt_config_defaults(dt_config *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->listen_host, sizeof c->listen_host, "127.0.0.1");
  c->port = 8080;
  snprintf(c->data_dir, sizeof c->data_dir, "./ductile-data");
  snprintf(c->gpus, sizeof c->gpus, "auto");
  snprintf(c->backend, sizeof c->backend, "auto");
  snprintf(c->log_level, sizeof c->log_level, "info");
  c->max_body_bytes = 256LL << 20;
  c->max_connections = 256;
  c->max_connections_per_client = 32;
  c->connection_timeout = 30;
  c->header_timeout = 15;
  c->body_min_rate = 4096;
  c->rate_limit = 50;
  c->rate_burst = 200;
  c->sse_keepalive = 15;
  c->max_streams_per_user = 16;
  c->max_queued_jobs = 10000;
  c->max_model_dofs = 20000000;
  c->max_model_elements = 10000000;
  c->fair_share_window = 3600;
  c->lease_seconds = 30;
  c->max_active_jobs_per_user = 1000;
  c->max_job_increments = 10000;
  c->max_job_output_bytes = 10LL << 30;
}

static dt_status parse_int(const char *s, long long *out) {
  char *end = NULL;
  errno = 0;
  *out = strtoll(s, &end, 10);
  return (errno == 0 && end != s && *end == '\0') ? DT_OK : DT_ERR_INPUT;
}

static dt_status set_listen(dt_config *c, const char *v, const char *origin, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const char *colon = strrchr(v, ':');
  long long port = -1;
  size_t hl = colon ? (size_t)(colon - v) : 0;
  DT_CHECK(colon && parse_int(colon + 1, &port) == DT_OK && port >= 0 && port <= 65535 && hl > 0 &&
               hl < sizeof c->listen_host,
           ctx, DT_ERR_INPUT, "%s: listen: expected ADDRESS:PORT (got \"%s\")", origin, v);
  memcpy(c->listen_host, v, hl);
  c->listen_host[hl] = '\0';
  c->port = (int)port;
cleanup:
  return rc;
}

/* Test hooks are the settings named test_* (DUCTILED_TEST_* in the environment); a build
 * without DUCTILE_TEST_HOOKS refuses them (config.h). */
static dt_status no_test_hook(const char *name, const char *prefix, const char *origin,
                              dt_ctx *ctx) {
#ifdef DUCTILE_TEST_HOOKS
  (void)name, (void)prefix, (void)origin, (void)ctx;
  return DT_OK;
#else
  if (strncmp(name, prefix, strlen(prefix)) != 0) return DT_OK;
  return DT_ERROR(ctx, DT_ERR_INPUT,
                  "%s: %s is a test hook, and this build has none (configure with "
                  "-DDUCTILE_TEST_HOOKS=ON to use it)",
                  origin, name);
#endif
}

static dt_status set_value(dt_config *c, const key_def *k, const char *value, const char *origin,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  long long v = 0;
  if (k->kind == K_LISTEN) return set_listen(c, value, origin, ctx);
  if (k->kind == K_STR) {
    DT_CHECK(strlen(value) < k->size && value[0] != '\0', ctx, DT_ERR_INPUT,
             "%s: %s: must be 1 to %zu characters", origin, k->name, k->size - 1);
    snprintf((char *)c + k->offset, k->size, "%s", value);
    goto cleanup;
  }
  DT_CHECK(parse_int(value, &v) == DT_OK && v >= k->lo && v <= k->hi, ctx, DT_ERR_INPUT,
           "%s: %s: expected an integer from %lld to %lld (got \"%s\")", origin, k->name, k->lo,
           k->hi, value);
  *(long long *)((char *)c + k->offset) = v;
cleanup:
  return rc;
}

static dt_status workers_from_gpus(dt_config *c, const char *origin, dt_ctx *ctx);

dt_status dt_config_set(dt_config *c, const char *key, const char *value, const char *origin,
                        dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const key_def *k = NULL;
  DT_TRY(no_test_hook(key, "test_", origin, ctx));
  for (size_t i = 0; i < N_KEYS && !k; i++)
    if (!strcmp(KEYS[i].name, key)) k = &KEYS[i];
  DT_CHECK(k != NULL, ctx, DT_ERR_INPUT, "%s: unknown key \"%s\"", origin, key);
  DT_TRY(set_value(c, k, value, origin, ctx));
  /* gpus is checked where it is set, so that its messages say where (file and line, variable,
   * command line); dt_config_finish derives the workers again from the final value. */
  if (!strcmp(key, "gpus")) DT_TRY(workers_from_gpus(c, origin, ctx));
cleanup:
  return rc;
}

static char *trim(char *s) {
  char *e;
  while (isspace((unsigned char)*s)) s++;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}

/* One line of a config file: blank, a comment, or key = value. */
static dt_status load_line(dt_config *c, char *line, const char *origin, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char *hash = strchr(line, '#'), *eq, *key;
  if (hash) *hash = '\0';
  key = trim(line);
  if (!*key) return DT_OK;
  eq = strchr(key, '=');
  DT_CHECK(eq != NULL, ctx, DT_ERR_INPUT, "%s: expected key = value", origin);
  *eq = '\0';
  DT_TRY(dt_config_set(c, trim(key), trim(eq + 1), origin, ctx));
cleanup:
  return rc;
}

dt_status dt_config_load_file(dt_config *c, const char *path, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char line[2048], origin[1100];
  int lineno = 0;
  FILE *f = fopen(path, "r");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot open config file '%s': %s", path, strerror(errno));
  while (fgets(line, sizeof line, f)) {
    snprintf(origin, sizeof origin, "%s:%d", path, ++lineno);
    DT_TRY(load_line(c, line, origin, ctx));
  }
cleanup:
  if (f) fclose(f);
  return rc;
}

extern char **environ; /* POSIX; declared by no header without _GNU_SOURCE */

dt_status dt_config_load_env(dt_config *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (char **e = environ; e && *e; e++) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
    DT_TRY(no_test_hook(name, "DUCTILED_TEST_", "environment", ctx));
  }
  for (size_t i = 0; i < N_KEYS; i++) {
    char name[64];
    const char *v;
    size_t j = (size_t)snprintf(name, sizeof name, "DUCTILED_");
    for (const char *p = KEYS[i].name; *p && j + 1 < sizeof name; p++)
      name[j++] = (char)toupper((unsigned char)*p);
    name[j] = '\0';
    v = getenv(name);
    if (v) DT_TRY(dt_config_set(c, KEYS[i].name, v, name, ctx));
  }
cleanup:
  return rc;
}

/* One device of a gpus entry: its ordinal, or -1 for anything but digits (an empty one
 * included: "0++1", "0,"). */
static int gpus_ordinal(const char *s, size_t len) {
  long long d = -1;
  char num[8];
  if (len == 0 || len >= sizeof num || strspn(s, "0123456789") < len) return -1;
  memcpy(num, s, len);
  num[len] = '\0';
  return parse_int(num, &d) == DT_OK && d <= 255 ? (int)d : -1;
}

/* One entry of gpus ("0" or a group "0+1+2") into worker w's devices. */
static dt_status gpus_entry(dt_config *c, int w, const char *e, size_t len, const char *where,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *dev = c->worker_devices[w], n = 0;
  for (size_t at = 0;;) {
    size_t k = at;
    int d;
    while (k < len && e[k] != '+') k++;
    d = gpus_ordinal(e + at, k - at);
    DT_CHECK(d >= 0, ctx, DT_ERR_INPUT,
             "%sgpus: entry \"%.*s\" of \"%s\": expected GPU ordinals 0 to 255, joined by + for a "
             "group",
             where, (int)len, e, c->gpus);
    DT_CHECK(n < DT_MAX_RUN_DEVICES, ctx, DT_ERR_INPUT,
             "%sgpus: group \"%.*s\" has more than %d devices (a run is split over at most %d)",
             where, (int)len, e, DT_MAX_RUN_DEVICES, DT_MAX_RUN_DEVICES);
    for (int i = 0; i < n; i++)
      DT_CHECK(dev[i] != d, ctx, DT_ERR_INPUT,
               "%sgpus: group \"%.*s\" names GPU %d twice (a device takes one part of a split run)",
               where, (int)len, e, d);
    dev[n++] = d;
    if (k == len) break;
    at = k + 1;
  }
  c->worker_n_devices[w] = n;
  c->worker_device[w] = dev[0];
cleanup:
  return rc;
}

/* gpus -> n_workers and each worker's devices. origin (NULL: none) leads the messages. */
static dt_status workers_from_gpus(dt_config *c, const char *origin, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char where[1100] = "";
  const char *e = c->gpus;
  if (origin) snprintf(where, sizeof where, "%s: ", origin);
  c->n_workers = 0;
  c->gpus_auto = !strcmp(c->gpus, "auto");
  if (c->gpus_auto || !strcmp(c->gpus, "cpu")) {
    c->n_workers = 1;
    c->worker_device[0] = -1;
    c->worker_devices[0][0] = -1;
    c->worker_n_devices[0] = 1;
    goto cleanup;
  }
  for (;;) { /* entries split by ",": none may be empty ("0,", ",0", "0,,1") */
    size_t len = strcspn(e, ",");
    char entry[128];
    snprintf(entry, sizeof entry, "%.*s", (int)len, e);
    DT_CHECK(c->n_workers < DT_MAX_WORKERS, ctx, DT_ERR_INPUT,
             "%sgpus: more than %d workers in \"%s\"", where, DT_MAX_WORKERS, c->gpus);
    DT_CHECK(trim(entry)[0] != '\0', ctx, DT_ERR_INPUT,
             "%sgpus: an empty entry in \"%s\": expected \"auto\", \"cpu\" or GPU ordinals like "
             "\"0,1\" (one worker each) or \"0+1\" (one worker split over both)",
             where, c->gpus);
    DT_TRY(gpus_entry(c, c->n_workers, trim(entry), strlen(trim(entry)), where, ctx));
    c->n_workers++;
    if (!e[len]) break;
    e += len + 1;
  }
cleanup:
  return rc;
}

/* "cuda, cpu": the names of backends.def, for messages. */
static const char *backend_list(void) {
  static char list[128];
  size_t n = 0;
  list[0] = '\0';
  for (int i = 0; dt_backend_names[i] && n < sizeof list; i++)
    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", dt_backend_names[i]);
  return list;
}

dt_status dt_config_finish(dt_config *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(workers_from_gpus(c, NULL, ctx));
  if (!strcmp(c->gpus, "cpu")) snprintf(c->backend, sizeof c->backend, "cpu");
  DT_CHECK(!strcmp(c->backend, "auto") || dt_backend_known(c->backend), ctx, DT_ERR_INPUT,
           "backend: expected auto or one of %s (got \"%s\")", backend_list(), c->backend);
  DT_CHECK(dt_log_level_parse(c->log_level) >= 0, ctx, DT_ERR_INPUT,
           "log_level: expected debug, info, warn or error (got \"%s\")", c->log_level);
  /* One without the other is a half-done TLS set-up: refused, rather than served in plain text. */
  DT_CHECK(!c->tls_cert[0] == !c->tls_key[0], ctx, DT_ERR_INPUT,
           "%s is set but %s is not: set both (HTTPS) or neither (plain HTTP)",
           c->tls_cert[0] ? "tls_cert" : "tls_key", c->tls_cert[0] ? "tls_key" : "tls_cert");
cleanup:
  return rc;
}
