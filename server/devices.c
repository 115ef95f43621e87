/* Devices and admission by memory (see devices.h). */
#include "devices.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ductile.h"
#include "log.h"

/* The query reads /proc/meminfo or asks the driver for every device: cheap, but health and
 * metrics may be scraped often, so one answer serves for a second. */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static dt_device_info g_dev[DT_MAX_WORKERS];
static int g_n = -1;
static double g_when;

static void cpu_model(char *out, size_t len) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  out[0] = '\0';
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon) continue;
    colon += 1 + (colon[1] == ' ');
    colon[strcspn(colon, "\n")] = '\0';
    snprintf(out, len, "%s", colon);
    break;
  }
  if (f) fclose(f);
}

/* Devices now (cached for 1 s); returns how many, copied into out. */
static int devices(dt_server *srv, dt_device_info *out) {
  int n;
  pthread_mutex_lock(&g_mu);
  if (g_n < 0 || dt_mono() - g_when > 1.0) {
    dt_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    if (!srv->backend_name[0] ||
        dt_backend_devices(srv->backend_name, g_dev, DT_MAX_WORKERS, &g_n, &ctx) != DT_OK)
      g_n = 0;
    if (g_n > 0 && !strcmp(srv->device_kind, "cpu")) {
      char model[200], name[128];
      cpu_model(model, sizeof model);
      snprintf(name, sizeof name, "%.60s%s%.60s", g_dev[0].name, model[0] ? ", " : "", model);
      snprintf(g_dev[0].name, sizeof g_dev[0].name, "%s", name);
    }
    g_when = dt_mono();
  }
  n = g_n;
  memcpy(out, g_dev, sizeof g_dev);
  pthread_mutex_unlock(&g_mu);
  return n;
}

/* Log the devices the backend reports; with gpus = auto, one worker per GPU. Ordinals listed
 * in gpus must exist. */
static dt_status gpu_workers(dt_server *srv, const dt_backend_ops *ops, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_device_info dev[DT_MAX_WORKERS];
  dt_config *c = &srv->cfg;
  int n = devices(srv, dev), split = 0;
  for (int i = 0; i < n; i++)
    dt_log_info("device %d (%s): %s, %.0f MiB total, %.0f MiB free", i, srv->device_kind,
                dev[i].name, dev[i].total_bytes / 1048576.0, dev[i].free_bytes / 1048576.0);
  for (int i = 0; i < c->n_workers; i++) split |= c->worker_n_devices[i] > 1;
  if (!strcmp(srv->device_kind, "cpu")) {
    if (!c->gpus_auto && strcmp(c->gpus, "cpu"))
      dt_log_warn("gpus = %s: the cpu backend runs all %d workers on the host (ordinals "
                  "ignored%s)",
                  c->gpus, c->n_workers,
                  split ? "; a group's jobs still run split, one host part per device it names"
                        : "");
    goto cleanup;
  }
  if (c->gpus_auto && n >= 1) { /* one worker per GPU, each naming its device */
    c->n_workers = n;
    for (int i = 0; i < n; i++) {
      c->worker_device[i] = c->worker_devices[i][0] = i;
      c->worker_n_devices[i] = 1;
    }
  }
  for (int i = 0; i < c->n_workers && n > 0; i++)
    for (int k = 0; k < c->worker_n_devices[i]; k++)
      DT_CHECK(c->worker_devices[i][k] < n, ctx, DT_ERR_INPUT,
               "gpus: GPU %d does not exist (the %s backend sees %d device%s)",
               c->worker_devices[i][k], ops->name, n, n == 1 ? "" : "s");
cleanup:
  return rc;
}

dt_status dt_devices_init(dt_server *srv, dt_ctx *ctx) {
  const dt_backend_ops *ops = NULL;
  dt_ctx why;
  char note[512] = "";
  memset(&why, 0, sizeof why);
  if (dt_backend_find(srv->cfg.backend, &ops, note, sizeof note, &why) != DT_OK) {
    dt_log_warn("solver backend \"%s\" is not usable: %s (jobs will fail until it is)",
                srv->cfg.backend, why.msg);
    snprintf(srv->device_kind, sizeof srv->device_kind, "none");
    return DT_OK;
  }
  snprintf(srv->backend_name, sizeof srv->backend_name, "%s", ops->name);
  snprintf(srv->device_kind, sizeof srv->device_kind, "%s", ops->host ? "cpu" : "gpu");
  dt_log_info("solver backend: %s", note);
  srv->can_checkpoint = ops->state_get && ops->state_set;
  if (!srv->can_checkpoint)
    dt_log_warn("the %s backend cannot save its state: jobs run without checkpoints, and a job "
                "interrupted by a "
                "crash or shutdown restarts from the beginning",
                ops->name);
  return gpu_workers(srv, ops, ctx);
}

json_t *dt_devices_json(dt_server *srv, int gpus_only) {
  dt_device_info dev[DT_MAX_WORKERS];
  int n = devices(srv, dev);
  json_t *a = json_array();
  if (gpus_only && strcmp(srv->device_kind, "gpu")) return a;
  for (int i = 0; i < n; i++)
    json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:I, s:I}", "index", i, "kind",
                                       srv->device_kind, "name", dev[i].name, "memory_total",
                                       (json_int_t)dev[i].total_bytes, "memory_free",
                                       (json_int_t)dev[i].free_bytes));
  return a;
}

/* A label value: quotes, backslashes and newlines escaped (Prometheus text format). */
static void label(char *out, size_t len, const char *s) {
  size_t j = 0;
  for (; *s && j + 3 < len; s++) {
    if (*s == '"' || *s == '\\') out[j++] = '\\';
    out[j++] = *s == '\n' ? ' ' : *s;
  }
  out[j] = '\0';
}

size_t dt_devices_prometheus(dt_server *srv, char *buf, size_t len) {
  dt_device_info dev[DT_MAX_WORKERS];
  int n = devices(srv, dev);
  size_t k = 0;
  char name[300];
  k += (size_t)snprintf(
      buf, len,
      "# HELP ductile_device_memory_bytes Memory of each compute device (the host for the "
      "cpu backend), total and free.\n# TYPE ductile_device_memory_bytes gauge\n");
  for (int i = 0; i < n && k < len; i++) {
    label(name, sizeof name, dev[i].name);
    k += (size_t)snprintf(
        buf + k, len - k,
        "ductile_device_memory_bytes{device=\"%d\",kind=\"%s\",name=\"%s\",state=\"total\"} %.0f\n"
        "ductile_device_memory_bytes{device=\"%d\",kind=\"%s\",name=\"%s\",state=\"free\"} %.0f\n",
        i, srv->device_kind, name, dev[i].total_bytes, i, srv->device_kind, name,
        dev[i].free_bytes);
  }
  return k < len ? k : len - 1;
}

static void human(double b, char *out, size_t len) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) b /= 1024.0, u++;
  snprintf(out, len, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* A part of a run split over k devices holds its 1/k of the mesh plus the nodes it shares
 * with other parts (each interface node lives in every part that touches it) and their
 * exchange buffers, so a part needs more than the estimate / k. METIS keeps the interface
 * small against the volume on meshes large enough for memory to matter; this margin covers it. */
#define SPLIT_MARGIN 0.10

/* What worker i can hold of a job (bytes of the job's whole estimate): its device's total
 * memory; for a group of k devices, each part takes estimate / k x (1 + SPLIT_MARGIN), so the
 * device that allows the least bounds it (the smallest; with the CPU backend the host holds
 * every part). *bound: that device, -1 when the backend does not report one of them. */
static double capacity(dt_server *srv, const dt_device_info *dev, int n, int i, int *bound) {
  const dt_config *c = &srv->cfg;
  int k = c->worker_n_devices[i] > 0 ? c->worker_n_devices[i] : 1;
  double cap = 0.0;
  *bound = -1;
  for (int j = 0; j < k; j++) {
    /* the devices a worker uses (the CPU backend has one device, the host, for all) */
    int d = strcmp(srv->device_kind, "gpu") || c->worker_devices[i][j] < 0
                ? 0
                : c->worker_devices[i][j];
    int parts = strcmp(srv->device_kind, "gpu") ? k : 1; /* a group names a GPU once */
    double d_cap;
    if (d >= n) return *bound = -1, 0.0;
    d_cap = k == 1 ? dev[d].total_bytes : dev[d].total_bytes * k / (parts * (1.0 + SPLIT_MARGIN));
    if (*bound < 0 || d_cap < cap) cap = d_cap, *bound = d;
  }
  return cap;
}

/* Worker i's devices as text: "gpu 0", or "gpu 0+1+2" for a group. */
static void worker_text(dt_server *srv, int i, char *out, size_t len) {
  size_t k = (size_t)snprintf(out, len, "%s ", srv->device_kind);
  for (int j = 0; j < srv->cfg.worker_n_devices[i] && k < len; j++)
    k += (size_t)snprintf(out + k, len - k, "%s%d", j ? "+" : "",
                          srv->cfg.worker_devices[i][j] < 0 ? 0 : srv->cfg.worker_devices[i][j]);
}

/* The memory a job may take into fit->limit: what worker `worker` holds (>= 0), or the most
 * any worker holds (-1) (capacity above), capped by max_job_bytes. *capped: max_job_bytes is
 * the limit; total: the bounding device's memory as text ("" without one); fit->device: that
 * device, fit->group: a group's devices ("" for a single device). */
static void fit_limit(dt_server *srv, int worker, dt_fit *fit, int *capped, char *total,
                      size_t total_len) {
  dt_device_info dev[DT_MAX_WORKERS];
  int n = devices(srv, dev), best = -1, best_w = -1;
  fit->limit = 0.0;
  for (int i = 0; i < srv->cfg.n_workers; i++) {
    int bound;
    double cap;
    if (worker >= 0 && i != worker) continue;
    cap = capacity(srv, dev, n, i, &bound);
    if (bound >= 0 && (best < 0 || cap > fit->limit)) fit->limit = cap, best = bound, best_w = i;
  }
  total[0] = '\0';
  fit->group[0] = '\0';
  fit->n_devices = best_w >= 0 ? srv->cfg.worker_n_devices[best_w] : 1;
  if (best >= 0) {
    snprintf(fit->device, sizeof fit->device, "%s %d (%s)", srv->device_kind, best, dev[best].name);
    if (fit->n_devices > 1) worker_text(srv, best_w, fit->group, sizeof fit->group);
    human(dev[best].total_bytes, total, total_len);
  }
  *capped = srv->cfg.max_job_bytes > 0 &&
            (fit->limit <= 0 || (double)srv->cfg.max_job_bytes < fit->limit);
  if (*capped) fit->limit = (double)srv->cfg.max_job_bytes;
}

/* "more than max_job_bytes, 1 MiB (...); device cpu 0 (...) has 23.5 GiB", or "more than the 23.5
 * GiB (...) of the largest device, cpu 0 (...)": what the estimate is compared with. A group:
 * "the 128.0 GiB (...) that gpu 0+1 hold for a job split over 2 devices: each part takes 1/2 of
 * the estimate plus 10 % for the nodes the parts share, and gpu 1 (...), the smallest, has
 * 70.4 GiB". */
static void limit_text(const dt_fit *fit, int capped, const char *total, int worker, char *out,
                       size_t len) {
  char lim[32];
  human(fit->limit, lim, sizeof lim);
  if (capped)
    snprintf(out, len, "max_job_bytes, %s (%.0f bytes)%s%s%s%s", lim, fit->limit,
             total[0] ? "; device " : "", total[0] ? fit->device : "", total[0] ? " has " : "",
             total);
  else if (fit->group[0])
    snprintf(out, len,
             "the %s (%.0f bytes) that %s hold%s for a job split over %d devices: each part "
             "takes 1/%d of the estimate plus %.0f %% for the nodes the parts share, and %s, "
             "the smallest, has %s",
             lim, fit->limit, fit->group, worker >= 0 ? "" : " (the largest worker)",
             fit->n_devices, fit->n_devices, 100.0 * SPLIT_MARGIN, fit->device, total);
  else
    snprintf(out, len, "the %s (%.0f bytes) of %s%s", lim, fit->limit,
             worker >= 0 ? "" : "the largest device, ", fit->device);
}

dt_status dt_devices_admit_bytes(dt_server *srv, double estimate, const char *solver, int worker,
                                 dt_fit *fit, dt_ctx *ctx) {
  char est[32], total[32], than[600];
  int capped = 0;
  memset(fit, 0, sizeof *fit);
  fit->estimate = estimate;
  fit_limit(srv, worker, fit, &capped, total, sizeof total);
  if (fit->limit <= 0 || fit->estimate <= fit->limit) return DT_OK;
  human(fit->estimate, est, sizeof est);
  limit_text(fit, capped, total, worker, than, sizeof than);
  return DT_ERROR(ctx, DT_ERR_DEVICE_NOMEM,
                  "the job does not fit: it needs an estimated %s (%.0f bytes) on the %s, more "
                  "than %s",
                  est, fit->estimate, solver, than);
}

/* The host's memory (the CPU backend's one device, whichever backend the workers use). */
static void host_limit(dt_server *srv, dt_fit *fit, int *capped, char *total, size_t len) {
  dt_device_info dev[DT_MAX_WORKERS];
  dt_ctx ctx;
  int n = 0;
  memset(&ctx, 0, sizeof ctx);
  total[0] = '\0';
  if (dt_backend_devices("cpu", dev, DT_MAX_WORKERS, &n, &ctx) == DT_OK && n > 0 &&
      dev[0].total_bytes > 0) {
    fit->limit = dev[0].total_bytes;
    human(fit->limit, total, len);
    snprintf(fit->device, sizeof fit->device, "host (%.140s)", dev[0].name);
  }
  *capped = srv->cfg.max_job_bytes > 0 &&
            (fit->limit <= 0 || (double)srv->cfg.max_job_bytes < fit->limit);
  if (*capped) fit->limit = (double)srv->cfg.max_job_bytes;
}

dt_status dt_devices_admit_host(dt_server *srv, double estimate, const char *solver, dt_fit *fit,
                                dt_ctx *ctx) {
  char est[32], total[32], lim[32];
  int capped = 0;
  memset(fit, 0, sizeof *fit);
  fit->estimate = estimate;
  fit->n_devices = 1;
  host_limit(srv, fit, &capped, total, sizeof total);
  if (fit->limit <= 0 || fit->estimate <= fit->limit) return DT_OK;
  human(fit->estimate, est, sizeof est);
  human(fit->limit, lim, sizeof lim);
  return DT_ERROR(ctx, DT_ERR_DEVICE_NOMEM,
                  "the job does not fit: it needs an estimated %s (%.0f bytes) on the %s, which "
                  "runs on the host, more than %s%s (%.0f bytes)%s%s",
                  est, fit->estimate, solver, capped ? "max_job_bytes, " : "the host's memory, ",
                  lim, fit->limit, capped && total[0] ? "; the host has " : "",
                  capped && total[0] ? total : "");
}

dt_status dt_devices_admit(dt_server *srv, const dt_model *m, int worker, dt_fit *fit,
                           dt_ctx *ctx) {
  dt_ctx est_ctx;
  char solver[64];
  double estimate = 0.0;
  memset(fit, 0, sizeof *fit);
  memset(&est_ctx, 0, sizeof est_ctx);
  if (!srv->backend_name[0] ||
      dt_analysis_estimate(m, srv->backend_name, &estimate, &est_ctx) != DT_OK) {
    snprintf(fit->no_estimate, sizeof fit->no_estimate, "no memory estimate: %.480s",
             srv->backend_name[0] ? est_ctx.msg : "no usable solver backend");
    return DT_OK;
  }
  snprintf(solver, sizeof solver, "%s backend", srv->backend_name);
  return dt_devices_admit_bytes(srv, estimate, solver, worker, fit, ctx);
}

dt_status dt_devices_admit_size(dt_server *srv, const dt_model_size *s, const char *what,
                                dt_fit *fit, dt_ctx *ctx) {
  char floor[32], total[32], than[600];
  int capped = 0;
  memset(fit, 0, sizeof *fit);
  fit->estimate = dt_analysis_floor_bytes(s);
  fit_limit(srv, -1, fit, &capped, total, sizeof total);
  if (fit->limit <= 0 || fit->estimate <= fit->limit) return DT_OK;
  human(fit->estimate, floor, sizeof floor);
  limit_text(fit, capped, total, -1, than, sizeof than);
  return DT_ERROR(ctx, DT_ERR_DEVICE_NOMEM,
                  "%s: %lld nodes and %lld elements need at least %s (%.0f bytes) on any backend "
                  "(their solution vectors and integration-point state alone, before the "
                  "matrix), more than %s; refused before the model was built",
                  what, (long long)s->n_nodes, (long long)s->n_elems, floor, fit->estimate, than);
}
