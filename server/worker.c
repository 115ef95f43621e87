/* Worker threads (see worker.h). */
#include "worker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ductile.h"
#include "bus.h"
#include "devices.h"
#include "jobspec.h"
#include "log.h"
#include "metrics.h"
#include "store.h"
#include "store_events.h"
#include "store_jobs.h"
#include "worker_fields_queue.h"

typedef struct worker {
  dt_server *srv;
  int index;
  int device;
  pthread_t thread;
  int started;
  pthread_mutex_t mu;   /* guards job_id */
  char job_id[20];
  atomic_int cancel;
  atomic_int waiting_memory; /* its job waits for the GPU memory another job on the device holds */
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
  char checkpoint[4200];
  int attempt;
  int resuming;               /* a usable checkpoint was found before the run */
  int resumed;                /* the solver reported that it resumed from it */
  int kept;                   /* increments the checkpoint holds */
  dt_progress converged;      /* an increment converged but not announced yet ... */
  int converged_pending;      /* ... until its checkpoint exists (see on_progress) */
  dt_job_progress prog;
  int stop_at_next_iteration; /* shutdown: the increment that was running has finished */
  int shutdown_stop;
  int store_errors;
  dt_fields_queue *fields;    /* writes fields_NNNN.json and records the increments */
  int backend_recorded;       /* the job's backend is stored (from the first event naming it) */
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

/* JSON has no NaN or infinity (the seed iteration has no du_ratio; a diverging one may have
 * no residual): null instead, so that the event keeps its other fields. */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static void emit(run_ctx *rc, const char *type, json_t *data) {
  if (dt_job_progress_event(rc->job_id, &rc->prog, type, data)) rc->store_errors++;
  json_decref(data);
}

/* Announce the converged increment held back by on_progress. */
static void flush_converged(run_ctx *rc) {
  const dt_progress *ev = &rc->converged;
  dt_job_progress *p = &rc->prog;
  if (!rc->converged_pending) return;
  rc->converged_pending = 0;
  p->increments_done++;
  p->percent = ev->percent;
  p->residual = ev->residual;
  emit(rc, "increment.converged", json_pack("{s:i, s:i, s:i, s:f, s:i, s:o, s:i, s:f}", "n", p->increments_done,
                                            "step", ev->step + 1, "increment", ev->increment, "load_factor",
                                            ev->load_factor, "newton_iterations", ev->newton_iter, "residual",
                                            num(ev->residual), "plastic_points", ev->n_plastic, "percent", ev->percent));
}

static int on_progress(const dt_progress *ev, void *user) {
  run_ctx *rc = user;
  dt_job_progress *p = &rc->prog;
  /* The solver writes an increment's checkpoint after reporting it converged; the event that
   * follows (next increment or step, or the end of the run) comes after the checkpoint. So
   * announcing a converged increment then means: an increment reported converged (events,
   * increments_completed) is never computed again after a crash. */
  flush_converged(rc);
  p->n_steps = ev->n_steps;
  if (ev->kind != DT_EV_INFO) p->step = ev->step + 1;
  switch (ev->kind) {
  case DT_EV_INFO:
    if (ev->resumed) {
      rc->resumed = 1;
      emit(rc, "job.resumed", json_pack("{s:i, s:b, s:i, s:s}", "attempt", rc->attempt, "resumed", 1,
                                        "increments_kept", rc->kept, "message", ev->text ? ev->text : ""));
    } else {
      if (ev->backend && !rc->backend_recorded) {
        rc->backend_recorded = 1;
        if (dt_job_set_backend(rc->job_id, ev->backend)) rc->store_errors++;
      }
      emit(rc, "info", json_pack("{s:s}", "text", ev->text ? ev->text : ""));
    }
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
    emit(rc, "newton.iteration",
         json_pack("{s:i, s:i, s:i, s:o, s:o, s:i, s:o, s:i}", "step", ev->step + 1, "increment", ev->increment,
                   "iteration", ev->newton_iter, "residual", num(ev->residual), "du_ratio", num(ev->du_ratio),
                   "pcg_iterations", ev->pcg_iters, "pcg_tolerance", num(ev->pcg_rtol), "plastic_points",
                   ev->n_plastic));
    test_delay(rc);
    if (rc->stop_at_next_iteration) {
      rc->shutdown_stop = 1;
      return 1;
    }
    return atomic_load(&rc->w->cancel);
  case DT_EV_INCREMENT_DONE:
    rc->converged = *ev;
    rc->converged.text = rc->converged.step_name = NULL; /* borrowed, not kept */
    rc->converged_pending = 1;
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

/* After each converged increment: the fields JSON beside the VTU, then the increments row, both
 * from the writer thread (worker_fields_queue.h), so the next increment solves meanwhile. */
static void on_increment(const dt_fields *f, const dt_history_row *row, void *user) {
  run_ctx *rc = user;
  /* The solver's writer thread may still be writing the VTU: ask whether it is due, not
   * whether it exists yet (the results handler waits for a file in flight). */
  int has_vtu = dt_output_fields_due(rc->m, f->global_increment, f->load_factor >= 1.0);
  (void)row;
  if (!rc->fields && dt_fields_queue_start(rc->m, rc->job_id, rc->outdir, &rc->fields) != 0) {
    dt_log_error("job %s: cannot write fields_%04d.json: out of memory", rc->job_id, f->global_increment);
    rc->store_errors++;
    if (dt_job_increment_record(rc->job_id, f->global_increment, f->step + 1, f->increment, f->load_factor,
                                f->time, has_vtu))
      rc->store_errors++;
    return;
  }
  dt_fields_queue_push(rc->fields, f, has_vtu);
}

/* Wait for the fields files in flight and their increments rows: before the output directory or
 * the increments are touched again, and before the job's end is recorded. */
static void fields_finish(run_ctx *rc) { rc->store_errors += dt_fields_queue_finish(&rc->fields); }

/* Before the solver checkpoints an increment, its fields file and row are in place: the run
 * resumed from that checkpoint does not compute it again. */
static void fields_before_checkpoint(void *user) {
  run_ctx *rc = user;
  dt_fields_queue_drain(rc->fields);
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
  return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:I, s:I, s:i}", "total", s->seconds_total, "setup",
                   s->seconds_setup, "assembly", s->seconds_assembly, "stress_update", s->seconds_stress,
                   "linear_solver", s->seconds_solver, "output", s->seconds_output, "loads", s->seconds_loads,
                   "increments", s->increments,
                   "newton_iterations", (json_int_t)s->newton_iters, "pcg_iterations", (json_int_t)s->pcg_iters,
                   "cutbacks", s->cutbacks);
}

/* Record the job's end. code: the error code, or NULL to derive it from st. */
static void finish(run_ctx *rc, dt_status st, const char *code, const dt_run_summary *sum, const dt_ctx *ctx,
                   double secs) {
  const char *state = "succeeded", *reason = NULL;
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
    if (!code)
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

/* The checkpoint at rc->checkpoint, if any, belongs to this model and build: how many
 * increments it holds, or -1 (none, or unusable: why says which). Reading it whole costs a
 * copy of the state once per start, and spares a run that would fail on a stale file. */
static int checkpoint_kept(run_ctx *rc, double *percent, char *why, size_t len) {
  dt_checkpoint ck;
  dt_ctx ctx;
  FILE *f = NULL;
  int kept = -1;
  why[0] = '\0';
  if (access(rc->checkpoint, F_OK) != 0) return -1;
  memset(&ck, 0, sizeof ck);
  memset(&ctx, 0, sizeof ctx);
  if (dt_checkpoint_read(rc->checkpoint, dt_model_hash(rc->m), &ck, &f, &ctx) == DT_OK) {
    kept = ck.counters.increments;
    *percent = 100.0 * (ck.step + ck.lambda) / (rc->m->n_steps > 0 ? rc->m->n_steps : 1);
  } else {
    snprintf(why, len, "%s", ctx.msg);
  }
  if (f) fclose(f);
  dt_checkpoint_free(&ck);
  return kept;
}

static void remove_checkpoint(const run_ctx *rc) {
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.tmp", rc->checkpoint);
  unlink(rc->checkpoint);
  unlink(tmp);
}

/* Before a run: resume from a usable checkpoint (keeping its increments), or start from the
 * beginning with a clean output directory; a restarted job says so in its events. */
static void prepare_attempt(run_ctx *rc, const char *restart_why) {
  char why[1100];
  double percent = 0.0;
  int kept = checkpoint_kept(rc, &percent, why, sizeof why);
  rc->resuming = kept >= 0;
  rc->kept = kept > 0 ? kept : 0;
  rc->prog.increments_done = rc->kept;
  rc->prog.percent = rc->resuming ? percent : 0.0;
  if (dt_job_increments_trim(rc->job_id, rc->kept)) rc->store_errors++;
  if (rc->resuming) return; /* the solver's INFO line becomes the job.resumed event */
  if (why[0]) {
    dt_log_warn("job %s: checkpoint not usable, starting from the beginning: %s", rc->job_id, why);
    remove_checkpoint(rc);
  }
  clean_dir(rc->outdir);
  if (rc->attempt > 1 || restart_why) {
    char msg[1300];
    json_t *ev;
    snprintf(msg, sizeof msg, "restarted from the beginning: %s",
             restart_why ? restart_why : why[0] ? why : "no checkpoint");
    ev = json_pack("{s:i, s:b, s:s}", "attempt", rc->attempt, "resumed", 0, "message", msg);
    dt_event_append(rc->job_id, "job.restarted", ev);
    json_decref(ev);
  }
}

/* Load and validate the stored job (job.inp, a deck; else job.json); NULL after failing the job. */
static dt_model *load_model(dt_server *srv, const char *job_id) {
  char path[4200], mesh_id[20];
  json_error_t je;
  json_t *doc;
  dt_model *m = NULL;
  dt_spec_error se;
  snprintf(path, sizeof path, "%s/jobs/%s/job.inp", srv->data_dir, job_id);
  if (access(path, F_OK) == 0) {
    if (dt_spec_deck_build(path, "job.inp", NULL, &m, &se) != DT_SPEC_OK) {
      fail_early(job_id, "invalid_job", se.message);
      return NULL;
    }
    return m;
  }
  snprintf(path, sizeof path, "%s/jobs/%s/job.json", srv->data_dir, job_id);
  doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  if (!doc) {
    fail_early(job_id, "internal", "the stored job document cannot be read");
    return NULL;
  }
  if (dt_spec_build(doc, srv->data_dir, mesh_id, sizeof mesh_id, &m, &se) != DT_SPEC_OK) {
    json_decref(doc);
    fail_early(job_id, "invalid_job", se.message);
    return NULL;
  }
  json_decref(doc);
  return m;
}

/* Another worker on this worker's GPU (gpus = "0,0": workers share a device) runs a job and is
 * not itself waiting for memory (waiting = 0), or waits for memory (waiting = 1). The CPU
 * backend has no such devices: 0. */
static int sibling(const worker *w, int waiting) {
  dt_workers *ws = w->srv->workers;
  int found = 0;
  if (w->device < 0 || strcmp(w->srv->device_kind, "gpu") != 0) return 0;
  for (int i = 0; i < ws->n && !found; i++) {
    worker *o = &ws->w[i];
    if (o == w || o->device != w->device || atomic_load(&o->waiting_memory) != waiting) continue;
    pthread_mutex_lock(&o->mu);
    found = waiting || o->job_id[0] != 0;
    pthread_mutex_unlock(&o->mu);
  }
  return found;
}

/* The job fits the GPU but not what the other jobs on it leave free right now (the run failed
 * with DT_ERR_DEVICE_NOMEM at upload, before anything ran): wait until no other job runs there
 * and run it again, rather than fail a job that fits. Meanwhile the other workers on this GPU
 * claim no new jobs (worker_main), so the waiting one is next. A cancel ends the wait as a
 * cancelled job; a shutdown leaves the job running, to be resumed at the next start. */
static dt_status wait_for_memory(run_ctx *rc, const dt_model *m, const dt_run_options *opt, dt_run_summary *sum,
                                 dt_ctx *ctx, dt_status st) {
  worker *w = rc->w;
  int waited = 0;
  while (st == DT_ERR_DEVICE_NOMEM && sibling(w, 0)) {
    if (!waited++) {
      char msg[1400];
      snprintf(msg, sizeof msg, "waiting for GPU %d: another job there holds the memory this one needs (%.1100s)",
               w->device, ctx->msg);
      emit(rc, "info", json_pack("{s:s}", "text", msg));
      dt_log_info("worker %d: job %s %s", w->index, rc->job_id, msg);
    }
    atomic_store(&w->waiting_memory, 1);
    while (sibling(w, 0) && !atomic_load(&w->cancel) && !stopping(w)) sleep_ms(50);
    atomic_store(&w->waiting_memory, 0);
    if (atomic_load(&w->cancel) || stopping(w)) {
      rc->shutdown_stop = !atomic_load(&w->cancel);
      return DT_ERR_CANCELLED;
    }
    memset(ctx, 0, sizeof *ctx);
    st = dt_analysis_run(m, opt, sum, ctx);
  }
  return st;
}

/* Attempts a job may end in a device fault before it fails with gpu_fault: each fault
 * restarts the daemon, and a job whose own data made the device fault would do so forever. */
#define DT_DEVICE_FAULT_ATTEMPTS 3

/* 1 if this worker's device can no longer be used by this process (the run's CUDA error was a
 * device fault: dt_backend_ops.device_lost), with the device's error in why. */
static int device_lost(const run_ctx *rc, const dt_run_summary *sum, char *why, size_t len) {
  const char *backend = sum->backend[0] ? sum->backend : rc->w->srv->cfg.backend;
  return dt_backend_device_lost(backend, rc->w->device >= 0 ? rc->w->device : 0, why, len);
}

/* A device fault leaves this process unable to use that GPU until it ends (and, measured on
 * the lent two-H200 machine, the other GPUs as well), so the daemon restarts: every worker stops claiming jobs and stops after its
 * running increment, as at shutdown, and the main thread (SIGUSR1, main.c) starts the daemon
 * afresh in this process's place, where recovery queues the interrupted jobs again and they
 * resume from their checkpoints. The faulted job is left running for that recovery, unless it
 * has faulted DT_DEVICE_FAULT_ATTEMPTS times: then it fails with gpu_fault. */
static void device_fault(run_ctx *rc, const dt_run_summary *sum, const dt_ctx *ctx, const char *lost, double secs) {
  if (rc->attempt < DT_DEVICE_FAULT_ATTEMPTS) {
    char msg[1400];
    json_t *ev;
    snprintf(msg, sizeof msg, "the GPU faulted during attempt %d (%s); the daemon restarts and the job resumes from "
             "its last checkpoint", rc->attempt, lost);
    ev = json_pack("{s:s, s:s, s:i, s:i}", "message", msg, "error", ctx->msg, "attempt", rc->attempt,
                   "increments_completed", sum->increments);
    if (dt_event_append(rc->job_id, "job.gpu_fault", ev)) rc->store_errors++;
    json_decref(ev);
  } else {
    dt_ctx last = *ctx;
    snprintf(last.msg, sizeof last.msg, "the GPU faulted in each of %d attempts; the last time: %.300s (%.600s)",
             rc->attempt, lost, ctx->msg);
    remove_checkpoint(rc);
    finish(rc, DT_ERR_CUDA, "gpu_fault", sum, &last, secs);
  }
  dt_log_error("worker %d: %s; this process cannot use the device again: restarting the daemon", rc->w->index, lost);
  atomic_store(&rc->w->srv->workers->stop, 1);
  dt_bus_notify();
  /* The first to ask names the restart and wakes the main thread; other workers on the faulted
   * GPU fail the same way, and an operator's SIGUSR1 may already be draining. */
  if (!atomic_exchange(&rc->w->srv->restarting, 1)) {
    snprintf(rc->w->srv->restart_why, sizeof rc->w->srv->restart_why, "GPU fault: %.480s", lost);
    kill(getpid(), SIGUSR1);
  }
}

static void run_job(worker *w, const char *job_id, int attempt) {
  dt_server *srv = w->srv;
  dt_model *m;
  dt_fit fit;
  char msg[1024];
  run_ctx rc;
  dt_run_options opt;
  dt_run_summary sum;
  dt_ctx ctx;
  dt_status st;
  char lost[512];
  double t0 = dt_mono();
  if (!(m = load_model(srv, job_id))) return;
  memset(&rc, 0, sizeof rc);
  rc.w = w;
  rc.job_id = job_id;
  rc.m = m;
  rc.attempt = attempt;
  rc.prog.step = rc.prog.increment = rc.prog.newton_iter = -1;
  rc.prog.n_steps = m->n_steps;
  snprintf(rc.outdir, sizeof rc.outdir, "%s/jobs/%s/out", srv->data_dir, job_id);
  snprintf(rc.checkpoint, sizeof rc.checkpoint, "%s/jobs/%s/" DT_CHECKPOINT_FILE, srv->data_dir, job_id);
  mkdir(rc.outdir, 0755);
  /* Admission again, on this worker's device: the configuration may have changed since. */
  memset(&ctx, 0, sizeof ctx);
  if (dt_devices_admit(srv, m, w->device, &fit, &ctx) != DT_OK) {
    remove_checkpoint(&rc);
    fail_early(job_id, "does_not_fit", ctx.msg);
    dt_model_destroy(&m);
    return;
  }
  prepare_attempt(&rc, NULL);
  pthread_mutex_lock(&w->mu);
  snprintf(w->job_id, sizeof w->job_id, "%s", job_id);
  atomic_store(&w->cancel, dt_job_cancel_requested(job_id));
  pthread_mutex_unlock(&w->mu);
  memset(&opt, 0, sizeof opt);
  opt.backend = srv->cfg.backend;
  opt.threads = (int)srv->cfg.solver_threads;
  opt.device = w->device >= 0 ? w->device : 0;
  opt.outdir = rc.outdir;
  opt.progress = on_progress;
  opt.on_increment = on_increment;
  opt.before_checkpoint = fields_before_checkpoint;
  opt.user = &rc;
  /* Always resume: a fresh job has no checkpoint and starts at the beginning; a recovered one
   * continues after its last converged increment. A backend that cannot save its state would
   * fail every run with a checkpoint: run those without (and restart them after a crash). */
  opt.checkpoint = srv->can_checkpoint ? rc.checkpoint : NULL;
  opt.resume = 1;
  memset(&ctx, 0, sizeof ctx);
  st = dt_analysis_run(m, &opt, &sum, &ctx);
  if (sum.checkpoint_unusable && rc.resuming && !rc.resumed) {
    /* The checkpoint passed the check but could not be restored: once more, from scratch. (Other
     * errors, e.g. no device memory, fail the job as they would without a checkpoint.) */
    snprintf(msg, sizeof msg, "the checkpoint could not be restored (%.900s)", ctx.msg);
    dt_log_warn("job %s: %s; starting from the beginning", job_id, msg);
    remove_checkpoint(&rc);
    fields_finish(&rc);
    prepare_attempt(&rc, msg);
    memset(&ctx, 0, sizeof ctx);
    st = dt_analysis_run(m, &opt, &sum, &ctx);
  }
  st = wait_for_memory(&rc, m, &opt, &sum, &ctx, st);
  fields_finish(&rc);
  flush_converged(&rc);
  pthread_mutex_lock(&w->mu);
  w->job_id[0] = '\0';
  pthread_mutex_unlock(&w->mu);
  if (st == DT_ERR_CANCELLED && rc.shutdown_stop && !atomic_load(&w->cancel)) {
    /* The checkpoint of the last converged increment stays: the next start resumes there. */
    json_t *ev = json_pack("{s:i, s:s}", "increments_completed", sum.increments, "message",
                           atomic_load(&srv->restarting)
                               ? "the daemon is restarting: stopped after the last converged increment; the job "
                                 "resumes from its checkpoint when the daemon is back"
                               : "the daemon is shutting down: stopped after the last converged increment; "
                                 "the job resumes from its checkpoint when the daemon starts again");
    dt_event_append(job_id, "job.interrupted", ev);
    json_decref(ev);
    dt_log_info("job %s interrupted by shutdown after %d increment(s)", job_id, sum.increments);
  } else if (st == DT_ERR_CUDA && device_lost(&rc, &sum, lost, sizeof lost)) {
    device_fault(&rc, &sum, &ctx, lost, dt_mono() - t0);
  } else {
    remove_checkpoint(&rc); /* finished: nothing will resume it */
    finish(&rc, st, NULL, &sum, &ctx, dt_mono() - t0);
  }
  dt_model_destroy(&m);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  char id[20], mesh_id[20];
  int attempt = 0;
  while (!stopping(w)) {
    unsigned long gen = dt_bus_generation();
    if (sibling(w, 1)) { /* a job on this GPU waits for memory: it goes first */
      sleep_ms(50);
      continue;
    }
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
