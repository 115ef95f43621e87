/* Configuration (see config.h). A table maps each key to its field, so the file, the
 * environment and the command line share one parser and one set of messages. To add a key:
 * add the field to dt_config, its default, and a row to KEYS. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "log.h"
#include <string.h>

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
    {"gpus", K_STR, OFF(gpus), sizeof(((dt_config *)0)->gpus), 0, 0},
    {"backend", K_STR, OFF(backend), sizeof(((dt_config *)0)->backend), 0, 0},
    {"dashboard_dir", K_STR, OFF(dashboard_dir), sizeof(((dt_config *)0)->dashboard_dir), 0, 0},
    {"log_level", K_STR, OFF(log_level), sizeof(((dt_config *)0)->log_level), 0, 0},
    {"solver_threads", K_INT, OFF(solver_threads), 0, 0, 1024},
    {"max_body_bytes", K_INT, OFF(max_body_bytes), 0, 1024, (long long)1 << 40},
    {"max_connections", K_INT, OFF(max_connections), 0, 4, 100000},
    {"connection_timeout", K_INT, OFF(connection_timeout), 0, 1, 86400},
    {"sse_keepalive", K_INT, OFF(sse_keepalive), 0, 1, 3600},
    {"max_queued_jobs", K_INT, OFF(max_queued_jobs), 0, 1, 100000000},
    {"max_job_bytes", K_INT, OFF(max_job_bytes), 0, 0, (long long)1 << 50},
    {"test_iteration_delay_ms", K_INT, OFF(test_iteration_delay_ms), 0, 0, 60000},
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
  c->connection_timeout = 30;
  c->sse_keepalive = 15;
  c->max_queued_jobs = 10000;
}

static int parse_int(const char *s, long long *out) {
  char *end = NULL;
  errno = 0;
  *out = strtoll(s, &end, 10);
  return (errno == 0 && end != s && *end == '\0') ? 0 : -1;
}

static int set_listen(dt_config *c, const char *v) {
  const char *colon = strrchr(v, ':');
  long long port;
  size_t hl;
  if (!colon || parse_int(colon + 1, &port) || port < 0 || port > 65535) return -1;
  hl = (size_t)(colon - v);
  if (hl == 0 || hl >= sizeof c->listen_host) return -1;
  memcpy(c->listen_host, v, hl);
  c->listen_host[hl] = '\0';
  c->port = (int)port;
  return 0;
}

int dt_config_set(dt_config *c, const char *key, const char *value, const char *origin, char *err,
                  size_t errlen) {
  for (size_t i = 0; i < N_KEYS; i++) {
    const key_def *k = &KEYS[i];
    long long v;
    if (strcmp(k->name, key)) continue;
    if (k->kind == K_LISTEN) {
      if (set_listen(c, value) == 0) return 0;
      snprintf(err, errlen, "%s: listen: expected ADDRESS:PORT (got \"%s\")", origin, value);
      return -1;
    }
    if (k->kind == K_STR) {
      if (strlen(value) >= k->size || value[0] == '\0') {
        snprintf(err, errlen, "%s: %s: must be 1 to %zu characters", origin, key, k->size - 1);
        return -1;
      }
      snprintf((char *)c + k->offset, k->size, "%s", value);
      return 0;
    }
    if (parse_int(value, &v) || v < k->lo || v > k->hi) {
      snprintf(err, errlen, "%s: %s: expected an integer from %lld to %lld (got \"%s\")", origin,
               key, k->lo, k->hi, value);
      return -1;
    }
    *(long long *)((char *)c + k->offset) = v;
    return 0;
  }
  snprintf(err, errlen, "%s: unknown key \"%s\"", origin, key);
  return -1;
}

static char *trim(char *s) {
  char *e;
  while (isspace((unsigned char)*s)) s++;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}

int dt_config_load_file(dt_config *c, const char *path, char *err, size_t errlen) {
  char line[2048], origin[1100];
  int lineno = 0, rc = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "cannot open config file '%s': %s", path, strerror(errno));
    return -1;
  }
  while (rc == 0 && fgets(line, sizeof line, f)) {
    char *hash = strchr(line, '#'), *eq, *key;
    lineno++;
    if (hash) *hash = '\0';
    key = trim(line);
    if (!*key) continue;
    snprintf(origin, sizeof origin, "%s:%d", path, lineno);
    eq = strchr(key, '=');
    if (!eq) {
      snprintf(err, errlen, "%s: expected key = value", origin);
      rc = -1;
      break;
    }
    *eq = '\0';
    rc = dt_config_set(c, trim(key), trim(eq + 1), origin, err, errlen);
  }
  fclose(f);
  return rc;
}

int dt_config_load_env(dt_config *c, char *err, size_t errlen) {
  for (size_t i = 0; i < N_KEYS; i++) {
    char name[64];
    const char *v;
    size_t j = 0;
    j = (size_t)snprintf(name, sizeof name, "DUCTILED_");
    for (const char *p = KEYS[i].name; *p && j + 1 < sizeof name; p++) name[j++] = (char)toupper((unsigned char)*p);
    name[j] = '\0';
    v = getenv(name);
    if (v && dt_config_set(c, KEYS[i].name, v, name, err, errlen)) return -1;
  }
  return 0;
}

int dt_config_finish(dt_config *c, char *err, size_t errlen) {
  char buf[128], *save = NULL, *tok;
  c->n_workers = 0;
  c->gpus_auto = !strcmp(c->gpus, "auto");
  if (c->gpus_auto || !strcmp(c->gpus, "cpu")) {
    c->n_workers = 1;
    c->worker_device[0] = -1;
  } else {
    snprintf(buf, sizeof buf, "%s", c->gpus);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      long long d;
      if (parse_int(trim(tok), &d) || d < 0 || d > 255 || c->n_workers >= DT_MAX_WORKERS) {
        snprintf(err, errlen, "gpus: expected \"auto\", \"cpu\" or up to %d GPU ordinals like "
                 "\"0,1\" (got \"%s\")", DT_MAX_WORKERS, c->gpus);
        return -1;
      }
      c->worker_device[c->n_workers++] = (int)d;
    }
    if (c->n_workers == 0) {
      snprintf(err, errlen, "gpus: empty list");
      return -1;
    }
  }
  if (!strcmp(c->gpus, "cpu")) snprintf(c->backend, sizeof c->backend, "cpu");
  if (strcmp(c->backend, "auto") && strcmp(c->backend, "cpu") && strcmp(c->backend, "cuda")) {
    snprintf(err, errlen, "backend: expected auto, cpu or cuda (got \"%s\")", c->backend);
    return -1;
  }
  if (dt_log_level_parse(c->log_level) < 0) {
    snprintf(err, errlen, "log_level: expected debug, info, warn or error (got \"%s\")", c->log_level);
    return -1;
  }
  return 0;
}
