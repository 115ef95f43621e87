/* Worker threads (see worker.h). */
#include "worker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "bus.h"
#include "io/output.h"
#include "jobspec.h"
#include "log.h"
#include "metrics.h"
#include "store.h"
#include "store_events.h"
#include "store_jobs.h"

typedef struct worker {
  dt_server *srv;
  int index;
  int device;
  pthread_t thread;
  int started;
  pthread_mutex_t mu;   /* guards job_id */
  char job_id[20];
  atomic_int cancel;
} worker;

typedef struct dt_workers {
  int n;
  atomic_int stop;
  worker w[DT_MAX_WORKERS];
} dt_workers;

/* State of one run, handed to the solver callbacks. */
typedef struct run_ctx {
  worker *w;
  const char *job_id;
  const dt_model *m;
  char outdir[4200];
  dt_job_progress prog;
  int stop_at_next_iteration; /* shutdown: the increment that was running has finished */
  int shutdown_stop;
  int store_errors;
} run_ctx;

static int stopping(const worker *w) { return atomic_load(&w->srv->workers->stop); }

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Testing hook: make iterations slow, staying responsive to cancel and shutdown. */
static void test_delay(run_ctx *rc) {
  long left = (long)rc->w->srv->cfg.test_iteration_delay_ms;
  while (left > 0 && !atomic_load(&rc->w->cancel) && !stopping(rc->w)) {
    long d = left < 10 ? left : 10;
    sleep_ms(d);
    left -= d;
  }
}

static void emit(run_ctx *rc, const char *type, json_t *data) {
  if (dt_job_progress_event(rc->job_id, &rc->prog, type, data)) rc->store_errors++;
  json_decref(data);
}

static int on_progress(const dt_progress *ev, void *user) {
  run_ctx *rc = user;
  dt_job_progress *p = &rc->prog;
  p->n_steps = ev->n_steps;
  if (ev->kind != DT_EV_INFO) p->step = ev->step + 1;
  switch (ev->kind) {
  case DT_EV_INFO:
    emit(rc, "info", json_pack("{s:s}", "text", ev->text ? ev->text : ""));
    break;
  case DT_EV_STEP_START:
    p->increment = p->newton_iter = -1;
    emit(rc, "step.started", json_pack("{s:i, s:i, s:s}", "step", ev->step + 1, "n_steps", ev->n_steps, "name",
                                       ev->step_name ? ev->step_name : ""));
    break;
  case DT_EV_INCREMENT_START:
    if (stopping(rc->w)) rc->stop_at_next_iteration = 1;
    if ((ev->increment == 1 || ev->step == 0) && dt_job_cancel_requested(rc->job_id)) atomic_store(&rc->w->cancel, 1);
    p->increment = ev->increment;
    p->newton_iter = -1;
    emit(rc, "increment.started", json_pack("{s:i, s:i, s:f, s:f}", "step", ev->step + 1, "increment", ev->increment,
                                            "load_factor", ev->load_factor, "dlambda", ev->dlambda));
    break;
  case DT_EV_NEWTON_ITER:
    p->newton_iter = ev->newton_iter;
    p->residual = ev->residual;
    emit(rc, "newton.iteration", json_pack("{s:i, s:i, s:i, s:f, s:f, s:i, s:i}", "step", ev->step + 1, "increment",
                                           ev->increment, "iteration", ev->newton_iter, "residual", ev->residual,
                                           "du_ratio", ev->du_ratio, "pcg_iterations", ev->pcg_iters,
                                           "plastic_points", ev->n_plastic));
    test_delay(rc);
    if (rc->stop_at_next_iteration) {
      rc->shutdown_stop = 1;
      return 1;
    }
    return atomic_load(&rc->w->cancel);
  case DT_EV_INCREMENT_DONE:
    p->increments_done++;
    p->percent = ev->percent;
    p->residual = ev->residual;
    emit(rc, "increment.converged", json_pack("{s:i, s:i, s:f, s:i, s:f, s:i, s:f}", "step", ev->step + 1, "increment",
                                              ev->increment, "load_factor", ev->load_factor, "newton_iterations",
                                              ev->newton_iter, "residual", ev->residual, "plastic_points",
                                              ev->n_plastic, "percent", ev->percent));
    break;
  case DT_EV_CUTBACK:
    emit(rc, "increment.cutback", json_pack("{s:i, s:i, s:f, s:s, s:s}", "step", ev->step + 1, "increment",
                                            ev->increment, "load_factor", ev->load_factor, "reason",
                                            dt_reason_name(ev->reason), "message", ev->text ? ev->text : ""));
    break;
  case DT_EV_STEP_DONE:
    emit(rc, "step.completed", json_pack("{s:i, s:i}", "step", ev->step + 1, "n_steps", ev->n_steps));
    break;
  }
  return 0;
}

/* [[x, y, z], ...] of n rows, or null. */
static json_t *rows3(const double *v, int n) {
  json_t *a;
  if (!v) return json_null();
  a = json_array();
  for (int i = 0; i < n; i++) json_array_append_new(a, json_pack("[f, f, f]", v[3 * i], v[3 * i + 1], v[3 * i + 2]));
  return a;
}

/* Element means of a point field with ncomp components: [[...], ...] or null. */
static json_t *element_means(const dt_fields *f, const double *qp, int ncomp) {
  json_t *a;
  double *e;
  if (!qp) return json_null();
  e = calloc((size_t)f->n_elems * (size_t)ncomp + 1, sizeof *e);
  if (!e) return json_null();
  dt_fields_element_average(f, qp, ncomp, e);
  a = json_array();
  for (int i = 0; i < f->n_elems; i++) {
    json_t *row = json_array();
    for (int c = 0; c < ncomp; c++) json_array_append_new(row, json_real(e[(size_t)i * ncomp + c]));
    json_array_append_new(a, ncomp == 1 ? json_incref(json_array_get(row, 0)) : json_incref(row));
    json_decref(row);
  }
  free(e);
  return a;
}

static json_t *fields_json(const run_ctx *rc, const dt_fields *f) {
  json_t *o = json_object(), *nodes = json_array(), *elems = json_array(), *mises = json_null();
  for (int i = 0; i < rc->m->n_nodes; i++) json_array_append_new(nodes, json_integer((json_int_t)rc->m->node_id[i]));
  for (int i = 0; i < rc->m->n_elems; i++) json_array_append_new(elems, json_integer((json_int_t)rc->m->elem_id[i]));
  if (f->qp_stress) {
    double *m = calloc((size_t)f->n_qp + 1, sizeof *m);
    if (m) {
      for (int q = 0; q < f->n_qp; q++) m[q] = dt_mises(f->qp_stress + 6 * q);
      mises = element_means(f, m, 1);
      free(m);
    }
  }
  json_object_set_new(o, "n", json_integer(f->global_increment));
  json_object_set_new(o, "step", json_integer(f->step + 1));
  json_object_set_new(o, "increment", json_integer(f->increment));
  json_object_set_new(o, "load_factor", json_real(f->load_factor));
  json_object_set_new(o, "time", json_real(f->time));
  json_object_set_new(o, "node_ids", nodes);
  json_object_set_new(o, "element_ids", elems);
  json_object_set_new(o, "U", rows3(f->u, f->n_nodes));
  json_object_set_new(o, "RF", rows3(f->rf, f->n_nodes));
  json_object_set_new(o, "S", element_means(f, f->qp_stress, 6));
  json_object_set_new(o, "E", element_means(f, f->qp_strain, 6));
  json_object_set_new(o, "PEEQ", element_means(f, f->qp_peeq, 1));
  json_object_set_new(o, "MISES", mises);
  return o;
}

/* After each converged increment: fields JSON beside the VTU, then the increments row. */
static void on_increment(const dt_fields *f, const dt_history_row *row, void *user) {
  run_ctx *rc = user;
  char path[4300], tmp[4310], vtu[4300];
  struct stat sb;
  json_t *o = fields_json(rc, f);
  int has_vtu;
  (void)row;
  snprintf(path, sizeof path, "%s/fields_%04d.json", rc->outdir, f->global_increment);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  snprintf(vtu, sizeof vtu, "%s/increment_%04d.vtu", rc->outdir, f->global_increment);
  has_vtu = stat(vtu, &sb) == 0;
  if (!o || json_dump_file(o, tmp, JSON_COMPACT) != 0 || rename(tmp, path) != 0) {
    dt_log_error("job %s: cannot write %s", rc->job_id, path);
    rc->store_errors++;
  }
  json_decref(o);
  if (dt_job_increment_record(rc->job_id, f->global_increment, f->step + 1, f->increment, f->load_factor, f->time,
                              has_vtu))
    rc->store_errors++;
}

/* Remove the files of an earlier attempt (a restart from the beginning rewrites them all). */
static void clean_dir(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  if (!d) return;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') unlinkat(dirfd(d), e->d_name, 0);
  closedir(d);
}

static json_t *timings_json(const dt_run_summary *s) {
  return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:I, s:I, s:i}", "total", s->seconds_total, "setup",
                   s->seconds_setup, "assembly", s->seconds_assembly, "stress_update", s->seconds_stress,
                   "linear_solver", s->seconds_solver, "output", s->seconds_output, "increments", s->increments,
                   "newton_iterations", (json_int_t)s->newton_iters, "pcg_iterations", (json_int_t)s->pcg_iters,
                   "cutbacks", s->cutbacks);
}

static void finish(run_ctx *rc, dt_status st, const dt_run_summary *sum, const dt_ctx *ctx, double secs) {
  const char *state = "succeeded", *code = NULL, *reason = NULL;
  char msg[1200] = "";
  json_t *timings = timings_json(sum), *ev;
  if (st == DT_OK) {
    snprintf(msg, sizeof msg, "%s", sum->message);
  } else if (st == DT_ERR_NOT_CONVERGED) {
    state = "failed", code = "not_converged", reason = dt_reason_name(sum->reason);
    snprintf(msg, sizeof msg, "%s", sum->message);
  } else if (st == DT_ERR_CANCELLED) {
    state = "cancelled", code = "cancelled";
    snprintf(msg, sizeof msg, "cancelled by request; %d converged increment(s) kept", sum->increments);
  } else {
    state = "failed";
    code = st == DT_ERR_DEVICE_NOMEM ? "does_not_fit" : st == DT_ERR_INPUT ? "invalid_job" : dt_status_name(st);
    snprintf(msg, sizeof msg, "%s", ctx->msg);
  }
  ev = json_pack("{s:s, s:s, s:i}", "state", state, "message", msg, "increments_completed", sum->increments);
  if (code) json_object_set_new(ev, "code", json_string(code));
  if (reason) json_object_set_new(ev, "reason", json_string(reason));
  if (dt_job_finish(rc->job_id, state, code, code ? msg : NULL, reason, sum->backend, timings, ev))
    dt_log_error("job %s: cannot record its end (%s): it will be recovered at the next start", rc->job_id, state);
  dt_metrics_solve(secs, state);
  {
    const char *kv[] = {"job", rc->job_id, "state", state, NULL};
    dt_log(DT_LOG_INFO, NULL, kv, "job finished: %s", msg);
  }
  json_decref(timings);
  json_decref(ev);
}

static void fail_early(const char *job_id, const char *code, const char *msg) {
  json_t *ev = json_pack("{s:s, s:s, s:s}", "state", "failed", "code", code, "message", msg);
  dt_job_finish(job_id, "failed", code, msg, NULL, NULL, NULL, ev);
  json_decref(ev);
  dt_metrics_solve(0, "failed");
}

static void run_job(worker *w, const char *job_id, int attempt) {
  dt_server *srv = w->srv;
  char path[4200], mesh_id[20];
  json_error_t je;
  json_t *doc;
  dt_model *m = NULL;
  dt_spec_error se;
  run_ctx rc;
  dt_run_options opt;
  dt_run_summary sum;
  dt_ctx ctx;
  dt_status st;
  double t0 = dt_mono();
  memset(&rc, 0, sizeof rc);
  memset(&ctx, 0, sizeof ctx);
  snprintf(path, sizeof path, "%s/jobs/%s/job.json", srv->data_dir, job_id);
  doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  if (!doc) {
    fail_early(job_id, "internal", "the stored job document cannot be read");
    return;
  }
  if (dt_spec_build(doc, srv->data_dir, mesh_id, sizeof mesh_id, &m, &se) != DT_SPEC_OK) {
    json_decref(doc);
    fail_early(job_id, "invalid_job", se.message);
    return;
  }
  json_decref(doc);
  rc.w = w;
  rc.job_id = job_id;
  rc.m = m;
  rc.prog.step = rc.prog.increment = rc.prog.newton_iter = -1;
  rc.prog.n_steps = m->n_steps;
  snprintf(rc.outdir, sizeof rc.outdir, "%s/jobs/%s/out", srv->data_dir, job_id);
  mkdir(rc.outdir, 0755);
  clean_dir(rc.outdir);
  if (attempt > 1) {
    json_t *ev = json_pack("{s:i, s:b, s:s}", "attempt", attempt, "resumed", 0, "message",
                           "restarted from the beginning: no checkpoint");
    dt_event_append(job_id, "job.restarted", ev);
    json_decref(ev);
  }
  pthread_mutex_lock(&w->mu);
  snprintf(w->job_id, sizeof w->job_id, "%s", job_id);
  atomic_store(&w->cancel, dt_job_cancel_requested(job_id));
  pthread_mutex_unlock(&w->mu);
  memset(&opt, 0, sizeof opt);
  opt.backend = srv->cfg.backend;
  opt.threads = (int)srv->cfg.solver_threads;
  opt.outdir = rc.outdir;
  opt.progress = on_progress;
  opt.on_increment = on_increment;
  opt.user = &rc;
  st = dt_analysis_run(m, &opt, &sum, &ctx);
  pthread_mutex_lock(&w->mu);
  w->job_id[0] = '\0';
  pthread_mutex_unlock(&w->mu);
  if (st == DT_ERR_CANCELLED && rc.shutdown_stop && !atomic_load(&w->cancel)) {
    json_t *ev = json_pack("{s:i, s:s}", "increments_completed", sum.increments, "message",
                           "the daemon is shutting down: stopped after the last converged increment; "
                           "the job continues when the daemon starts again");
    dt_event_append(job_id, "job.interrupted", ev);
    json_decref(ev);
    dt_log_info("job %s interrupted by shutdown after %d increment(s)", job_id, sum.increments);
  } else {
    finish(&rc, st, &sum, &ctx, dt_mono() - t0);
  }
  dt_model_destroy(&m);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  char id[20], mesh_id[20];
  int attempt = 0;
  while (!stopping(w)) {
    unsigned long gen = dt_bus_generation();
    if (dt_job_claim(w->index, id, sizeof id, &attempt, mesh_id, sizeof mesh_id) != 0) {
      sleep_ms(500); /* store trouble: logged; retry */
      continue;
    }
    if (!id[0]) {
      if (dt_bus_wait(gen, 1.0) < 0) sleep_ms(100);
      continue;
    }
    {
      const char *kv[] = {"job", id, NULL};
      dt_log(DT_LOG_INFO, NULL, kv, "worker %d: running job (attempt %d)", w->index, attempt);
    }
    run_job(w, id, attempt);
  }
  dt_store_thread_close();
  return NULL;
}

int dt_workers_start(dt_server *srv, char *err, size_t errlen) {
  dt_workers *ws = calloc(1, sizeof *ws);
  if (!ws) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  srv->workers = ws;
  ws->n = srv->cfg.n_workers;
  for (int i = 0; i < ws->n; i++) {
    worker *w = &ws->w[i];
    w->srv = srv;
    w->index = i;
    w->device = srv->cfg.worker_device[i];
    pthread_mutex_init(&w->mu, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
      snprintf(err, errlen, "cannot start worker thread %d", i);
      return -1;
    }
    w->started = 1;
  }
  return 0;
}

void dt_workers_stop(dt_server *srv) {
  dt_workers *ws = srv->workers;
  if (!ws) return;
  atomic_store(&ws->stop, 1);
  dt_bus_notify();
  for (int i = 0; i < ws->n; i++)
    if (ws->w[i].started) pthread_join(ws->w[i].thread, NULL);
  for (int i = 0; i < ws->n; i++) pthread_mutex_destroy(&ws->w[i].mu);
  free(ws);
  srv->workers = NULL;
}

void dt_workers_cancel(dt_server *srv, const char *job_id) {
  dt_workers *ws = srv->workers;
  if (!ws) return;
  for (int i = 0; i < ws->n; i++) {
    worker *w = &ws->w[i];
    pthread_mutex_lock(&w->mu);
    if (!strcmp(w->job_id, job_id)) atomic_store(&w->cancel, 1);
    pthread_mutex_unlock(&w->mu);
  }
}

json_t *dt_workers_describe(dt_server *srv) {
  dt_workers *ws = srv->workers;
  json_t *a = json_array();
  if (!ws) return a;
  for (int i = 0; i < ws->n; i++) {
    worker *w = &ws->w[i];
    json_t *o;
    pthread_mutex_lock(&w->mu);
    o = json_pack("{s:i, s:o, s:s, s:b, s:o}", "index", i, "device", w->device >= 0 ? json_integer(w->device) : json_null(),
                  "backend", srv->cfg.backend, "busy", w->job_id[0] != 0, "job_id",
                  w->job_id[0] ? json_string(w->job_id) : json_null());
    pthread_mutex_unlock(&w->mu);
    json_array_append_new(a, o);
  }
  return a;
}
