/* watch: follow a job's Server-Sent Events to its end, reconnecting with Last-Event-ID (the
 * daemon replays what was missed, nothing twice). On a terminal: a progress bar on stderr with
 * step, increment, Newton iteration, residual, PCG iterations, elapsed and estimated time.
 * Otherwise one line per converged increment; with `watch --json`, every event as one JSON
 * line on stdout (NDJSON). */
#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct watch {
  const dc_settings *s;
  char line[1 << 16];
  size_t line_len;
  char event[64];
  char *data; /* the event's data lines */
  size_t data_len;
  long last_id;
  int done; /* terminal event seen */
  int tty, ndjson;
  double t0, percent;
  long n_steps, step, increment, iteration, pcg;
  double residual;
  int bar_shown;
} watch;

static int g_ndjson; /* set by `watch --json` */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fmt_time(double s, char *out, size_t cap) {
  if (s < 0 || s > 1e7)
    snprintf(out, cap, "--:--");
  else if (s < 3600)
    snprintf(out, cap, "%02d:%02d", (int)s / 60, (int)s % 60);
  else
    snprintf(out, cap, "%d:%02d:%02d", (int)s / 3600, ((int)s / 60) % 60, (int)s % 60);
}

static void draw_bar(watch *w) {
  char bar[31], el[32], eta[32];
  double elapsed = now_s() - w->t0;
  int i, fill = (int)(w->percent * 30 / 100 + 0.5);
  for (i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '-';
  bar[30] = '\0';
  fmt_time(elapsed, el, sizeof el);
  fmt_time(w->percent > 0.5 ? elapsed * (100 - w->percent) / w->percent : -1, eta, sizeof eta);
  fprintf(stderr,
          "\r[%s] %5.1f%%  step %ld/%ld  inc %ld  it %ld  res %.2e  pcg %ld  %s eta %s \033[K", bar,
          w->percent, w->step, w->n_steps, w->increment, w->iteration, w->residual, w->pcg, el,
          eta);
  fflush(stderr);
  w->bar_shown = 1;
}

static void end_bar(watch *w) {
  if (w->bar_shown) fputc('\n', stderr);
  w->bar_shown = 0;
}

static void on_event(watch *w, const char *type, json_t *ev) {
  json_t *d = json_object_get(ev, "data");
  const char *msg;
  if (g_ndjson) {
    char *s = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (s) printf("%s\n", s);
    free(s);
    fflush(stdout);
  }
  if (strcmp(type, "step.started") == 0) {
    w->step = (long)dc_jnum(d, "step", w->step);
    w->n_steps = (long)dc_jnum(d, "n_steps", w->n_steps);
  } else if (strcmp(type, "increment.started") == 0) {
    w->increment = (long)dc_jnum(d, "increment", w->increment);
    w->iteration = 0;
  } else if (strcmp(type, "newton.iteration") == 0) {
    w->iteration = (long)dc_jnum(d, "iteration", 0);
    w->residual = dc_jnum(d, "residual", w->residual);
    w->pcg = (long)dc_jnum(d, "pcg_iterations", w->pcg);
  } else if (strcmp(type, "increment.converged") == 0) {
    w->percent = dc_jnum(d, "percent", w->percent);
    if (!w->tty && !w->s->quiet && !w->s->json)
      fprintf(stderr,
              "increment %.0f converged (step %.0f, increment %.0f, %.0f Newton iterations, "
              "residual %.3e): %.1f%%\n",
              dc_jnum(d, "n", 0), dc_jnum(d, "step", 0), dc_jnum(d, "increment", 0),
              dc_jnum(d, "newton_iterations", 0), dc_jnum(d, "residual", 0), w->percent);
  } else if (strncmp(type, "job.", 4) == 0 || strcmp(type, "increment.cutback") == 0) {
    if (strcmp(type, "job.succeeded") == 0) w->percent = 100;
    w->done = strcmp(type, "job.succeeded") == 0 || strcmp(type, "job.failed") == 0 ||
              strcmp(type, "job.cancelled") == 0;
    if (w->tty && !w->s->quiet && !w->s->json) draw_bar(w);
    msg = dc_jstr(d, "message", dc_jstr(d, "reason", ""));
    if (!w->s->quiet && !w->s->json && strcmp(type, "job.queued") != 0) {
      end_bar(w);
      fprintf(stderr, "%s%s%s\n", type, msg[0] ? ": " : "", msg);
    }
  }
  if (w->tty && !w->s->quiet && !w->s->json && !w->done) draw_bar(w);
}

/* One complete line of the stream. */
static void on_line(watch *w, char *line) {
  size_t n = strlen(line);
  if (n && line[n - 1] == '\r') line[--n] = '\0';
  if (n == 0) { /* dispatch */
    if (w->data_len) {
      json_error_t jerr;
      json_t *ev = json_loadb(w->data, w->data_len, 0, &jerr);
      if (ev) {
        long seq = (long)dc_jnum(ev, "seq", 0);
        if (seq > w->last_id) {
          w->last_id = seq;
          on_event(w, dc_jstr(ev, "type", w->event), ev);
        }
        json_decref(ev);
      }
    }
    w->data_len = 0;
    w->event[0] = '\0';
    return;
  }
  if (line[0] == ':') return;
  if (strncmp(line, "event:", 6) == 0) {
    snprintf(w->event, sizeof w->event, "%s", line + 6 + (line[6] == ' '));
  } else if (strncmp(line, "data:", 5) == 0) {
    const char *v = line + 5 + (line[5] == ' ');
    size_t vl = strlen(v);
    char *p = realloc(w->data, w->data_len + vl + 2);
    if (!p) return;
    w->data = p;
    if (w->data_len) w->data[w->data_len++] = '\n';
    memcpy(w->data + w->data_len, v, vl);
    w->data_len += vl;
    w->data[w->data_len] = '\0';
  }
}

static int on_chunk(const char *data, size_t len, void *user) {
  watch *w = user;
  size_t i;
  for (i = 0; i < len; i++) {
    if (data[i] == '\n') {
      w->line[w->line_len] = '\0';
      on_line(w, w->line);
      w->line_len = 0;
      if (w->done) return 1; /* stop: the job has ended */
    } else if (w->line_len + 1 < sizeof w->line) {
      w->line[w->line_len++] = data[i];
    }
  }
  return 0;
}

static int get_job(const dc_settings *s, const char *id, json_t **job) {
  char path[128];
  snprintf(path, sizeof path, "/v1/jobs/%s", id);
  return dc_api(s, "GET", path, NULL, NULL, 0, "job", job);
}

static int terminal(const json_t *job) {
  const char *st = dc_jstr(job, "state", "");
  return strcmp(st, "succeeded") == 0 || strcmp(st, "failed") == 0 || strcmp(st, "cancelled") == 0;
}

int dc_watch_job(const dc_settings *s, const char *job_id, json_t **final) {
  watch *w = calloc(1, sizeof *w);
  json_t *job = NULL;
  char path[128], last[64];
  const char *hdrs[3];
  int rc, tries = 0;
  long status;
  dc_resp err;
  if (final) *final = NULL;
  if (!w) return DC_EXIT_LOCAL;
  w->s = s;
  w->tty = isatty(2);
  w->t0 = now_s();
  rc = get_job(s, job_id, &job);
  if (rc) goto cleanup;
  w->n_steps = (long)dc_jnum(json_object_get(job, "progress"), "n_steps", 0);
  snprintf(path, sizeof path, "/v1/jobs/%s/events", job_id);
  while (!w->done) {
    hdrs[0] = "Accept: text/event-stream";
    snprintf(last, sizeof last, "Last-Event-ID: %ld", w->last_id);
    hdrs[1] = w->last_id > 0 ? last : NULL;
    hdrs[2] = NULL;
    w->line_len = 0;
    w->data_len = 0;
    rc = dc_stream(s, path, hdrs, on_chunk, w, &status, &err);
    if (rc == DC_EXIT_OK && err.body) {
      end_bar(w);
      rc = dc_report_http_error(s, &err, "event stream");
      dc_resp_free(&err);
      goto cleanup;
    }
    if (w->done) break;
    if (rc == DC_EXIT_CONNECT && ++tries > 5) goto cleanup;
    /* The stream ended early (daemon restart, proxy): ask for the state, then reconnect. */
    json_decref(job);
    job = NULL;
    if (rc == DC_EXIT_OK && get_job(s, job_id, &job) == 0 && terminal(job)) break;
    sleep(1);
  }
  end_bar(w);
  json_decref(job);
  job = NULL;
  rc = get_job(s, job_id, &job);
  if (rc) goto cleanup;
  rc = dc_job_exit(dc_jstr(job, "state", ""));
  if (!s->quiet && !s->json) {
    const json_t *e = json_object_get(job, "error");
    fprintf(stderr, "%s %s", job_id, dc_jstr(job, "state", "?"));
    if (json_is_object(e))
      fprintf(stderr, ": %s: %s", dc_jstr(e, "code", ""), dc_jstr(e, "message", ""));
    fputc('\n', stderr);
  }
  if (final) {
    *final = job;
    job = NULL;
  }
cleanup:
  json_decref(job);
  free(w->data);
  free(w);
  return rc;
}

int dc_cmd_watch(const dc_settings *s, int argc, char **argv) {
  json_t *final = NULL;
  int rc;
  if (argc != 1 || argv[0][0] == '-') {
    fprintf(stderr, "usage: ductile watch JOB_ID [--json]\n");
    return DC_EXIT_USAGE;
  }
  if (!dc_valid_id(argv[0], 'j')) {
    fprintf(stderr, "ductile watch: '%s' is not a job id (j- and 16 hex digits)\n", argv[0]);
    return DC_EXIT_NOTFOUND;
  }
  g_ndjson = s->json;
  rc = dc_watch_job(s, argv[0], &final);
  if (final && !s->json) printf("%s %s\n", argv[0], dc_jstr(final, "state", "?"));
  json_decref(final);
  return rc;
}
