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
#include "data_files.h"
#include "devices.h"
#include "job_dirs.h"
#include "jobspec.h"
#include "log.h"
#include "metrics.h"
#include "redact.h"
#include "store.h"
#include "store_events.h"
#include "store_jobs.h"
#include "worker_ends.h"
#include "worker_fields_queue.h"
#include "worker_internal.h"

#define STORE_WAIT_MS 250 /* how often a run's write is tried again while the database is away */

int dt_worker_stopping(const worker *w) { return atomic_load(&w->srv->workers->stop); }

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

#ifdef DUCTILE_TEST_HOOKS
/* Test hook (test_iteration_delay_ms): make iterations slow, staying responsive to cancel and
 * shutdown. */
void dt_run_test_delay(run_ctx *run) {
  long left = (long)run->w->srv->cfg.test_iteration_delay_ms;
  while (left > 0 && !atomic_load(&run->w->cancel) && !dt_worker_stopping(run->w)) {
    long d = left < 10 ? left : 10;
    sleep_ms(d);
    left -= d;
  }
}
#else
void dt_run_test_delay(run_ctx *run) { (void)run; }
#endif

/* The run's store access or a write of its files failed: logged and counted; the run goes on
 * (its end is recorded, or the next start recovers the job). */
void dt_run_log_failure(run_ctx *run, const dt_ctx *ctx) {
  const char *kv[] = {"job", run->job_id, NULL};
  run->failures++;
  dt_log(DT_LOG_ERROR, NULL, kv, "worker %d: %s", run->w->index, ctx->msg);
}

/* text as a client may read it (job errors, events): without the data directory's paths
 * (redact.h). out has cap bytes; the log keeps the full text. */
const char *dt_run_for_client(const dt_server *srv, const char *job_id, const char *text, char *out,
                              size_t cap) {
  snprintf(out, cap, "%s", text ? text : "");
  dt_redact_paths(out, cap, srv->data_dir, job_id);
  return out;
}

/* JSON has no NaN or infinity (the seed iteration has no du_ratio; a diverging one may have
 * no residual): null instead, so that the event keeps its other fields. */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* The run no longer holds its job (another daemon, or another attempt, has it): it stops at its
 * next Newton iteration and records nothing more (conclude). */
static void lose(worker *w) {
  atomic_store(&w->lost, 1);
  atomic_store(&w->cancel, 1);
}

/* A write of the run failed because the database does not answer (PostgreSQL restarting, a
 * network drop): 1 after a pause, to write it again, so that the job's events stay complete and
 * in order while the run waits for the database; 0 for any other failure, and when the run is
 * to stop (shutdown, cancel, lost lease). *waited counts the pauses. */
static int wait_for_store(run_ctx *run, const dt_ctx *ctx, int *waited) {
  if (ctx->code != DT_ERR_DB || !dt_store_connection_lost()) return 0;
  if (dt_worker_stopping(run->w) || atomic_load(&run->w->cancel)) return 0;
  if ((*waited)++ == 0) {
    const char *kv[] = {"job", run->job_id, NULL};
    dt_log(DT_LOG_WARN, NULL, kv, "worker %d: the database does not answer (%s): the run waits",
           run->w->index, ctx->msg);
  }
  sleep_ms(STORE_WAIT_MS);
  return 1;
}

void dt_run_emit(run_ctx *run, const char *type, json_t *data) {
  dt_ctx ctx;
  int held = 1, waited = 0;
  for (;;) {
    if (atomic_load(&run->w->lost)) break;
    memset(&ctx, 0, sizeof ctx);
    if (dt_job_progress_event(run->job_id, run->attempt, &run->prog, type, data, &held, &ctx) ==
        DT_OK) {
      if (!held) lose(run->w);
      break;
    }
    if (!wait_for_store(run, &ctx, &waited)) {
      dt_run_log_failure(run, &ctx);
      break;
    }
  }
  if (waited && !atomic_load(&run->w->lost)) {
    const char *kv[] = {"job", run->job_id, NULL};
    dt_log(DT_LOG_INFO, NULL, kv, "worker %d: the database answers again after %.1f s",
           run->w->index, waited * STORE_WAIT_MS / 1000.0);
  }
  json_decref(data);
}

/* The backend the run uses, from the solver's first event that names it. */
void dt_run_record_backend(run_ctx *run, const char *backend) {
  dt_ctx ctx;
  if (!backend || run->backend_recorded) return;
  run->backend_recorded = 1;
  memset(&ctx, 0, sizeof ctx);
  if (dt_job_set_backend(run->job_id, backend, &ctx) != DT_OK) dt_run_log_failure(run, &ctx);
}

/* At a step's first increment: a cancellation recorded in the store stops the job too (the
 * handler sets the worker's flag; this covers one that raced the start of the run). */
void dt_run_check_cancel(run_ctx *run) {
  dt_ctx ctx;
  int requested = 0;
  memset(&ctx, 0, sizeof ctx);
  if (dt_job_cancel_requested(run->job_id, &requested, &ctx) != DT_OK)
    dt_run_log_failure(run, &ctx);
  if (requested) atomic_store(&run->w->cancel, 1);
}

/* As an increment starts (the one before has converged and is checkpointed), the job's own
 * limits: max_job_increments converged increments (the steps' cutbacks may take more than the
 * submission counted), and max_job_output_bytes of results, summed at most once a second since
 * a listing costs a stat per file. A job past one stops at its next Newton iteration and fails
 * with that limit's code, keeping its converged increments, rather than fill the disk or hold
 * the worker without end. */
static void check_limits(run_ctx *run) {
  const dt_config *cfg = &run->w->srv->cfg;
  double now = dt_mono();
  long long bytes;
  if (run->limit_code) return;
  if (run->prog.increments_done >= cfg->max_job_increments) {
    run->limit_code = "too_many_increments", run->limit_key = "max_job_increments";
    snprintf(run->limit_msg, sizeof run->limit_msg,
             "the job converged %d increments, the most this server allows a job "
             "(max_job_increments = %lld), and is not done: stopped; its converged increments "
             "are kept",
             run->prog.increments_done, cfg->max_job_increments);
    return;
  }
  if (cfg->max_job_output_bytes <= 0 || now - run->output_checked < 1.0) return;
  run->output_checked = now;
  bytes = dt_dir_bytes(run->outdir, 0);
  if (bytes <= cfg->max_job_output_bytes) return;
  run->limit_code = "output_too_large", run->limit_key = "max_job_output_bytes";
  snprintf(run->limit_msg, sizeof run->limit_msg,
           "the job's results take %lld bytes, more than this server allows a job "
           "(max_job_output_bytes = %lld): stopped after %d converged increments, whose results "
           "are kept; ask for fewer fields or VTU files (output.every)",
           bytes, cfg->max_job_output_bytes, run->prog.increments_done);
}

/* Announce the converged increment held back by on_progress. */
static void flush_converged(run_ctx *run) {
  const dt_progress *ev = &run->converged;
  dt_job_progress *p = &run->prog;
  if (!run->converged_pending) return;
#ifdef DUCTILE_TEST_HOOKS
  if (run->w->srv->cfg.test_exit_after_checkpoint == p->increments_done + 1) _exit(137);
#endif
  run->converged_pending = 0;
  p->increments_done++;
  p->percent = ev->percent;
  p->residual = ev->residual;
  {
    json_t *o =
        json_pack("{s:i, s:i, s:i, s:f, s:i, s:o, s:i, s:f}", "n", p->increments_done, "step",
                  ev->step + 1, "increment", ev->increment, "load_factor", ev->load_factor,
                  "newton_iterations", ev->newton_iter, "residual", num(ev->residual),
                  "plastic_points", ev->n_plastic, "percent", ev->percent);
    if (o && ev->has_energy) /* an explicit run's frame: its time and energy balance */
      json_object_set_new(o, "energy",
                          json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "time",
                                    num(ev->energy.time), "kinetic", num(ev->energy.kinetic),
                                    "internal_work", num(ev->energy.internal), "external_work",
                                    num(ev->energy.external), "damping_work",
                                    num(ev->energy.damping), "strain_energy",
                                    num(ev->energy.strain), "balance", num(ev->energy.balance)));
    dt_run_emit(run, "increment.converged", o);
  }
}

static int on_progress(const dt_progress *ev, void *user) {
  run_ctx *run = user;
  dt_job_progress *p = &run->prog;
  char text[1200];
  dt_ends_retry(&run->w->ends, 0); /* an earlier job's end the store refused */
  /* The solver writes an increment's checkpoint after reporting it converged; the event that
   * follows (next increment or step, or the end of the run) comes after the checkpoint. So
   * announcing a converged increment then means: an increment reported converged (events,
   * increments_completed) is never computed again after a crash. */
  flush_converged(run);
  p->n_steps = ev->n_steps;
  if (ev->kind != DT_EV_INFO) p->step = ev->step + 1;
  switch (ev->kind) {
  case DT_EV_INFO:
    if (ev->resumed) {
      run->resumed = 1;
      dt_run_emit(
          run, "job.resumed",
          json_pack("{s:i, s:b, s:i, s:s}", "attempt", run->attempt, "resumed", 1,
                    "increments_kept", run->kept, "message",
                    dt_run_for_client(run->w->srv, run->job_id, ev->text, text, sizeof text)));
    } else {
      dt_run_record_backend(run, ev->backend);
      dt_run_emit(
          run, "info",
          json_pack("{s:s}", "text",
                    dt_run_for_client(run->w->srv, run->job_id, ev->text, text, sizeof text)));
    }
    break;
  case DT_EV_STEP_START:
    p->increment = p->newton_iter = -1;
    dt_run_emit(run, "step.started",
                json_pack("{s:i, s:i, s:s}", "step", ev->step + 1, "n_steps", ev->n_steps, "name",
                          ev->step_name ? ev->step_name : ""));
    break;
  case DT_EV_INCREMENT_START:
    if (dt_worker_stopping(run->w)) run->stop_at_next_iteration = 1;
    check_limits(run);
    if (ev->increment == 1 || ev->step == 0) dt_run_check_cancel(run);
    p->increment = ev->increment;
    p->newton_iter = -1;
    dt_run_emit(run, "increment.started",
                json_pack("{s:i, s:i, s:f, s:f}", "step", ev->step + 1, "increment", ev->increment,
                          "load_factor", ev->load_factor, "dlambda", ev->dlambda));
    break;
  case DT_EV_NEWTON_ITER:
    p->newton_iter = ev->newton_iter;
    p->residual = ev->residual;
    dt_run_emit(run, "newton.iteration",
                json_pack("{s:i, s:i, s:i, s:o, s:o, s:i, s:o, s:i}", "step", ev->step + 1,
                          "increment", ev->increment, "iteration", ev->newton_iter, "residual",
                          num(ev->residual), "du_ratio", num(ev->du_ratio), "pcg_iterations",
                          ev->pcg_iters, "pcg_tolerance", num(ev->pcg_rtol), "plastic_points",
                          ev->n_plastic));
    dt_run_test_delay(run);
    if (run->limit_code) return 1;
    if (run->stop_at_next_iteration) {
      run->shutdown_stop = 1;
      return 1;
    }
    return atomic_load(&run->w->cancel);
  case DT_EV_INCREMENT_DONE:
    run->converged = *ev;
    run->converged.text = run->converged.step_name = NULL; /* borrowed, not kept */
    run->converged_pending = 1;
    break;
  case DT_EV_CUTBACK:
    dt_run_emit(
        run, "increment.cutback",
        json_pack("{s:i, s:i, s:f, s:s, s:s}", "step", ev->step + 1, "increment", ev->increment,
                  "load_factor", ev->load_factor, "reason", dt_reason_name(ev->reason), "message",
                  dt_run_for_client(run->w->srv, run->job_id, ev->text, text, sizeof text)));
    break;
  case DT_EV_EXPLICIT:
    if (dt_worker_stopping(run->w)) {
      run->shutdown_stop = 1;
      return 1;
    }
    check_limits(run);
    dt_run_check_cancel(run);
    p->percent = ev->percent;
    dt_run_emit(run, "explicit.progress",
                json_pack("{s:i, s:o, s:o, s:I, s:I, s:o, s:f}", "step", ev->step + 1, "time",
                          num(ev->time), "time_step", num(ev->time_step), "time_steps",
                          (json_int_t)ev->time_steps, "time_steps_step",
                          (json_int_t)ev->time_steps_step, "eta_seconds", num(ev->eta_seconds),
                          "percent", ev->percent));
    if (run->limit_code) return 1;
    return atomic_load(&run->w->cancel);
  case DT_EV_STEP_DONE:
    dt_run_emit(run, "step.completed",
                json_pack("{s:i, s:i}", "step", ev->step + 1, "n_steps", ev->n_steps));
    break;
  }
  return 0;
}

/* After each converged increment: the fields JSON beside the VTU, then the increments row, both
 * from the writer thread (worker_fields_queue.h), so the next increment solves meanwhile. */
static void on_increment(const dt_fields *f, const dt_history_row *row, void *user) {
  run_ctx *run = user;
  /* The solver's writer thread may still be writing the VTU: ask whether it is due, not
   * whether it exists yet (the results handler waits for a file in flight). */
  int has_vtu = dt_output_fields_due(run->m, f->global_increment, f->load_factor >= 1.0);
  dt_ctx ctx;
  (void)row;
  memset(&ctx, 0, sizeof ctx);
  if (!run->fields && dt_fields_queue_start(run->m, run->job_id, run->attempt, run->outdir,
                                            &run->fields, &ctx) != DT_OK) {
    /* no fields file for this increment, but its row: it converged, and its VTU may be there */
    dt_run_log_failure(run, &ctx);
    memset(&ctx, 0, sizeof ctx);
    if (dt_job_increment_record(run->job_id, run->attempt, f->global_increment, f->step + 1,
                                f->increment, f->load_factor, f->time, has_vtu, &ctx) != DT_OK)
      dt_run_log_failure(run, &ctx);
    return;
  }
  dt_fields_queue_push(run->fields, f, has_vtu);
}

/* Wait for the fields files in flight and their increments rows: before the output directory or
 * the increments are touched again, and before the job's end is recorded. */
static void fields_finish(run_ctx *run) { run->failures += dt_fields_queue_finish(&run->fields); }

/* Before the solver checkpoints an increment, its fields file and row are in place: the run
 * resumed from that checkpoint does not compute it again. */
static void fields_before_checkpoint(void *user) {
  run_ctx *run = user;
  dt_fields_queue_drain(run->fields);
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
  return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:I, s:I, s:i}", "total",
                   s->seconds_total, "setup", s->seconds_setup, "assembly", s->seconds_assembly,
                   "stress_update", s->seconds_stress, "linear_solver", s->seconds_solver,
                   "preconditioner_setup", s->seconds_pc_setup, "output", s->seconds_output,
                   "loads", s->seconds_loads, "increments", s->increments, "newton_iterations",
                   (json_int_t)s->newton_iters, "pcg_iterations", (json_int_t)s->pcg_iters,
                   "cutbacks", s->cutbacks);
}

/* The error code a failed job reports (its error.code in the API). */
static const char *job_error_code(dt_status st) {
  return st == DT_ERR_DEVICE_NOMEM ? "does_not_fit"
         : st == DT_ERR_INPUT      ? "invalid_job"
                                   : dt_status_name(st);
}

/* Record the job's end. code: the error code, or NULL to derive it from st. */
void dt_run_finish(run_ctx *run, dt_status st, const char *code, const dt_run_summary *sum,
                   const dt_ctx *ctx, double secs) {
  dt_job_end end;
  char full[1200] = "", msg[1200] = "";
  memset(&end, 0, sizeof end);
  end.state = "succeeded";
  if (st == DT_ERR_CANCELLED && run->limit_code && !atomic_load(&run->w->cancel)) {
    end.state = "failed", code = run->limit_code, end.reason = run->limit_key;
    snprintf(full, sizeof full, "%s", run->limit_msg);
  } else if (st == DT_OK) {
    snprintf(full, sizeof full, "%s", sum->message);
  } else if (st == DT_ERR_NOT_CONVERGED) {
    end.state = "failed", code = "not_converged", end.reason = dt_reason_name(sum->reason);
    snprintf(full, sizeof full, "%s", sum->message);
  } else if (st == DT_ERR_CANCELLED) {
    end.state = "cancelled", code = "cancelled";
    snprintf(full, sizeof full, "cancelled by request; %d converged increment(s) kept",
             sum->increments);
  } else {
    end.state = "failed";
    if (!code) code = job_error_code(st);
    snprintf(full, sizeof full, "%s", ctx->msg);
  }
  dt_run_for_client(run->w->srv, run->job_id, full, msg, sizeof msg);
  end.error_code = code;
  end.message = code ? msg : NULL;
  end.backend = sum->backend;
  end.timings = timings_json(sum);
  end.busy_seconds = secs;
  end.stored_bytes = dt_job_dir_bytes(run->w->srv->data_dir, run->job_id, run->attempt);
  end.attempt = run->attempt;
  end.event_data = json_pack("{s:s, s:s, s:i}", "state", end.state, "message", msg,
                             "increments_completed", sum->increments);
  if (code) json_object_set_new(end.event_data, "code", json_string(code));
  if (end.reason) json_object_set_new(end.event_data, "reason", json_string(end.reason));
  dt_ends_record(&run->w->ends, run->job_id, &end);
  dt_metrics_solve(secs, end.state);
  {
    const char *kv[] = {"job", run->job_id, "state", end.state, NULL};
    dt_log(DT_LOG_INFO, NULL, kv, "job finished: %s", full);
  }
  json_decref(end.timings);
  json_decref(end.event_data);
}

/* The job fails before it runs (it cannot be loaded, or does not fit this worker's device);
 * secs: the worker time it took. */
void dt_run_fail_early(worker *w, const char *job_id, int attempt, dt_status st, const dt_ctx *ctx,
                       double secs) {
  const char *kv[] = {"job", job_id, "state", "failed", NULL};
  dt_job_end end;
  char msg[1200];
  memset(&end, 0, sizeof end);
  end.state = "failed";
  end.error_code = job_error_code(st);
  end.message = dt_run_for_client(w->srv, job_id, ctx->msg, msg, sizeof msg);
  end.event_data =
      json_pack("{s:s, s:s, s:s}", "state", "failed", "code", end.error_code, "message", msg);
  dt_log(DT_LOG_INFO, NULL, kv, "job failed before it ran: %s", ctx->msg);
  end.busy_seconds = secs;
  end.stored_bytes = dt_job_dir_bytes(w->srv->data_dir, job_id, attempt);
  end.attempt = attempt;
  dt_ends_record(&w->ends, job_id, &end);
  json_decref(end.event_data);
  dt_metrics_solve(0, "failed");
}

/* The checkpoint at run->checkpoint: how many increments it holds (*kept, -1 when there is
 * none) and how far the job is (*percent). A checkpoint of another model or build is a failure
 * (ctx says why), so the run starts from the beginning rather than fail on the stale file.
 * Reading it whole costs a copy of the state once per start. */
static dt_status checkpoint_read(run_ctx *run, int *kept, double *percent, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_checkpoint ck;
  FILE *f = NULL;
  *kept = -1;
  if (run->ho && access(run->checkpoint, F_OK) == 0) {
    /* an order-P run's: checked whole (sizes, hash, checksum), not loaded */
    rc = dt_ho_job_checkpoint_check(run->checkpoint, run->ho, kept, ctx);
    *kept = rc == DT_OK ? *kept : -1;
    *percent = rc == DT_OK ? 100.0 * *kept / run->ho->n_increments : 0.0;
    return rc;
  }
  if (!run->m || access(run->checkpoint, F_OK) != 0) return DT_OK;
  memset(&ck, 0, sizeof ck);
  rc = dt_checkpoint_read(run->checkpoint, dt_model_hash(run->m), &ck, &f, ctx);
  if (rc == DT_OK) {
    *kept = ck.counters.increments;
    *percent = 100.0 * (ck.step + ck.lambda) / (run->m->n_steps > 0 ? run->m->n_steps : 1);
  }
  if (f) fclose(f);
  dt_checkpoint_free(&ck);
  return rc;
}

void dt_run_remove_checkpoint(const run_ctx *run) {
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.tmp", run->checkpoint);
  unlink(run->checkpoint);
  unlink(tmp);
}

/* How the job goes on at its next start: from its checkpoint, or from the beginning. */
static const char *again(const run_ctx *run) {
  return run->checkpointed ? "resumes from its checkpoint"
                           : "starts again from the beginning (its backend writes no checkpoint)";
}

/* Why a run without a checkpoint file starts from the beginning. */
static const char *no_checkpoint(const run_ctx *run) {
  return run->checkpointed
             ? "no checkpoint"
             : "no checkpoint (runs on a backend that cannot save its state write none)";
}

/* A job.restarted event: the job starts from the beginning again, and why. */
static void announce_restart(run_ctx *run, const char *why) {
  char msg[1300];
  dt_ctx ctx;
  json_t *ev;
  memset(&ctx, 0, sizeof ctx);
  snprintf(msg, sizeof msg, "restarted from the beginning: %s", why);
  dt_redact_paths(msg, sizeof msg, run->w->srv->data_dir, run->job_id);
  ev = json_pack("{s:i, s:b, s:s}", "attempt", run->attempt, "resumed", 0, "message", msg);
  if (dt_event_append(run->job_id, "job.restarted", ev, &ctx) != DT_OK)
    dt_run_log_failure(run, &ctx);
  json_decref(ev);
}

/* The increments the checkpoint holds whose increment.converged event the last attempt did not
 * store: it stopped (killed, paused past its lease) after writing an increment's checkpoint and
 * before the next progress event, which is what announces it (on_progress). The resumed run does
 * not compute them again, so they are announced here, from the rows the output's history.csv
 * holds (each written before its checkpoint): the job's events name every converged increment
 * once, whichever daemon ran it. */
/* The largest n of the job's increment.converged events since its last restart from the
 * beginning (job.restarted): the increments its events announce. */
static dt_status announced_increments(const char *job_id, int *n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  json_t *page = NULL;
  long long after = 0;
  size_t count = 0;
  *n = 0;
  do {
    DT_TRY(dt_events_list(job_id, after, 1000, &page, ctx));
    count = json_array_size(page);
    for (size_t i = 0; i < count; i++) {
      json_t *e = json_array_get(page, i);
      const char *type = json_string_value(json_object_get(e, "type"));
      json_int_t k = json_integer_value(json_object_get(json_object_get(e, "data"), "n"));
      after = json_integer_value(json_object_get(e, "seq"));
      if (type && !strcmp(type, "job.restarted")) *n = 0;
      if (type && !strcmp(type, "increment.converged") && k > *n) *n = (int)k;
    }
    json_decref(page);
    page = NULL;
  } while (count == 1000);
cleanup:
  json_decref(page);
  return rc;
}

static void announce_kept(run_ctx *run) {
  char path[4300], line[4096];
  dt_ctx ctx;
  FILE *f = NULL;
  int announced = run->kept, n = 0;
  memset(&ctx, 0, sizeof ctx);
  if (announced_increments(run->job_id, &announced, &ctx) != DT_OK) {
    dt_run_log_failure(run, &ctx);
    return;
  }
  if (announced >= run->kept) return;
  snprintf(path, sizeof path, "%s/history.csv", run->outdir);
  if (!(f = fopen(path, "r"))) return;
  if (!fgets(line, sizeof line, f)) n = run->kept; /* the header */
  while (n < run->kept && fgets(line, sizeof line, f)) {
    int step = 0, inc = 0, newton = 0, pcg = 0, cutbacks = 0, plastic = 0;
    double time = 0.0, lf = 0.0, res = 0.0;
    if (sscanf(line, "%d,%d,%lf,%lf,%d,%d,%lf,%d,%d", &step, &inc, &time, &lf, &newton, &pcg, &res,
               &cutbacks, &plastic) != 9)
      break;
    if (++n <= announced) continue;
    run->prog.increments_done = n;
    dt_run_emit(run, "increment.converged",
                json_pack("{s:i, s:i, s:i, s:f, s:i, s:o, s:i, s:f, s:b}", "n", n, "step", step,
                          "increment", inc, "load_factor", lf, "newton_iterations", newton,
                          "residual", num(res), "plastic_points", plastic, "percent",
                          run->prog.percent, "recovered", 1));
  }
  fclose(f);
  run->prog.increments_done = run->kept;
}

/* Before a run: resume from a usable checkpoint (keeping its increments), or start from the
 * beginning with a clean output directory; a restarted job says so in its events. Store
 * failures are logged (log_run_failure) and the run goes on. */
void dt_run_prepare(run_ctx *run, const char *restart_why) {
  dt_ctx why, ctx;
  double percent = 0.0;
  int kept = -1;
  memset(&why, 0, sizeof why);
  memset(&ctx, 0, sizeof ctx);
  run->resuming = checkpoint_read(run, &kept, &percent, &why) == DT_OK && kept >= 0;
  run->kept = kept > 0 ? kept : 0;
  run->prog.increments_done = run->kept;
  run->prog.percent = run->resuming ? percent : 0.0;
  if (dt_job_increments_trim(run->job_id, run->attempt, run->kept, &ctx) != DT_OK)
    dt_run_log_failure(run, &ctx);
  if (run->resuming) { /* the solver's INFO line becomes the job.resumed event */
    announce_kept(run);
    return;
  }
  if (why.msg[0]) {
    dt_log_warn("job %s: checkpoint not usable, starting from the beginning: %s", run->job_id,
                why.msg);
    dt_run_remove_checkpoint(run);
  }
  clean_dir(run->outdir);
  if (run->attempt > 1 || restart_why)
    announce_restart(run, restart_why ? restart_why : why.msg[0] ? why.msg : no_checkpoint(run));
}

/* Load and validate the stored job (job.inp, a deck; else job.json). A job on an order-P mesh
 * fills ho (ho->order > 0, its job in a temporary file) and builds no model. */
static dt_status load_model(dt_server *srv, const char *job_id, dt_model **m, dt_spec_ho *ho,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4200], mesh_id[20];
  json_error_t je;
  json_t *doc = NULL;
  dt_spec_where where;
  snprintf(path, sizeof path, "%s/jobs/%s/job.inp", srv->data_dir, job_id);
  if (access(path, F_OK) == 0) {
    DT_TRY(dt_spec_deck_build(path, "job.inp", NULL, m, &where, ctx));
    goto cleanup;
  }
  snprintf(path, sizeof path, "%s/jobs/%s/job.json", srv->data_dir, job_id);
  doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  DT_CHECK(doc != NULL, ctx, DT_ERR_INTERNAL, "the stored job document cannot be read");
  /* The job was checked against its owner's meshes when it was accepted. */
  DT_TRY(dt_spec_ho_build(doc, srv->data_dir, DT_ANY_OWNER, 1, mesh_id, sizeof mesh_id, ho, &where,
                          ctx));
  if (ho->order) goto cleanup;
  DT_TRY(dt_spec_build(doc, srv->data_dir, DT_ANY_OWNER, mesh_id, sizeof mesh_id, m, &where, ctx));
cleanup:
  json_decref(doc);
  return rc;
}

/* 1 if workers a and b have a GPU in common (gpus = "0,0", or groups "0+1,1+2"). */
static int share_device(const worker *a, const worker *b) {
  for (int i = 0; i < a->n_devices; i++)
    for (int j = 0; j < b->n_devices; j++)
      if (a->devices[i] == b->devices[j]) return 1;
  return 0;
}

/* Another worker on one of this worker's GPUs (gpus = "0,0": workers share a device) runs a
 * job and is not itself waiting for memory (waiting = 0), or waits for memory (waiting = 1).
 * The CPU backend has no such devices: 0. */
static int sibling(const worker *w, int waiting) {
  dt_workers *ws = w->srv->workers;
  int found = 0;
  if (w->device < 0 || strcmp(w->srv->device_kind, "gpu") != 0) return 0;
  for (int i = 0; i < ws->n && !found; i++) {
    worker *o = &ws->w[i];
    if (o == w || !share_device(o, w) || atomic_load(&o->waiting_memory) != waiting) continue;
    pthread_mutex_lock(&o->mu);
    found = waiting || o->job_id[0] != 0;
    pthread_mutex_unlock(&o->mu);
  }
  return found;
}

/* "GPU 0", or "GPUs 0+1" for a group. */
static void devices_text(const worker *w, char *out, size_t len) {
  size_t k = (size_t)snprintf(out, len, "GPU%s ", w->n_devices > 1 ? "s" : "");
  for (int i = 0; i < w->n_devices && k < len; i++)
    k += (size_t)snprintf(out + k, len - k, "%s%d", i ? "+" : "", w->devices[i]);
}

/* The job fits the GPU but not what the other jobs on it leave free right now (the run failed
 * with DT_ERR_DEVICE_NOMEM at upload, before anything ran): wait until no other job runs there
 * and run it again, rather than fail a job that fits. Meanwhile the other workers on this GPU
 * claim no new jobs (worker_main), so the waiting one is next. A cancel ends the wait as a
 * cancelled job; a shutdown leaves the job running, to be resumed at the next start. */
static dt_status wait_for_memory(run_ctx *run, const dt_model *m, const dt_run_options *opt,
                                 dt_run_summary *sum, dt_ctx *ctx, dt_status st) {
  worker *w = run->w;
  int waited = 0;
  while (st == DT_ERR_DEVICE_NOMEM && sibling(w, 0)) {
    if (!waited++) {
      char msg[1400], text[1400], where[80];
      devices_text(w, where, sizeof where);
      snprintf(msg, sizeof msg,
               "waiting for %s: another job there holds the memory this one needs (%.1100s)", where,
               ctx->msg);
      dt_run_emit(run, "info",
                  json_pack("{s:s}", "text",
                            dt_run_for_client(w->srv, run->job_id, msg, text, sizeof text)));
      dt_log_info("worker %d: job %s %s", w->index, run->job_id, msg);
    }
    atomic_store(&w->waiting_memory, 1);
    while (sibling(w, 0) && !atomic_load(&w->cancel) && !dt_worker_stopping(w)) sleep_ms(50);
    atomic_store(&w->waiting_memory, 0);
    if (atomic_load(&w->cancel) || dt_worker_stopping(w)) {
      run->shutdown_stop = !atomic_load(&w->cancel);
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

/* 1 if one of this worker's devices can no longer be used by this process (the run's CUDA
 * error was a device fault: dt_backend_ops.device_lost), with the device's error in why. */
static int device_lost(const run_ctx *run, const dt_run_summary *sum, char *why, size_t len) {
  const char *backend = sum->backend[0] ? sum->backend : run->w->srv->cfg.backend;
  const worker *w = run->w;
  for (int i = 0; i < w->n_devices; i++)
    if (dt_backend_device_lost(backend, w->devices[i] >= 0 ? w->devices[i] : 0, why, len)) return 1;
  return 0;
}

/* The worker time of an attempt after which the job stays running (a shutdown or a device
 * fault stopped it; recovery queues it again): fair sharing counts it like a finished run's. */
static void record_busy(run_ctx *run, double secs) {
  dt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  if (dt_job_add_busy(run->job_id, secs, &ctx) != DT_OK) dt_run_log_failure(run, &ctx);
}

/* A device fault leaves this process unable to use that GPU until it ends (and, measured on
 * a two-H200 machine, the other GPUs as well), so the daemon restarts: every worker stops claiming jobs and stops after its
 * running increment, as at shutdown, and the main thread (SIGUSR1, main.c) starts the daemon
 * afresh in this process's place, where recovery queues the interrupted jobs again and they
 * resume from their checkpoints. The faulted job is left running for that recovery, unless it
 * has faulted DT_DEVICE_FAULT_ATTEMPTS times: then it fails with gpu_fault. */
static void device_fault(run_ctx *run, const dt_run_summary *sum, const dt_ctx *ctx,
                         const char *lost, double secs) {
  if (run->attempt < DT_DEVICE_FAULT_ATTEMPTS) {
    char msg[1400], error[1200];
    json_t *ev;
    snprintf(msg, sizeof msg,
             "the GPU faulted during attempt %d (%s); the daemon restarts and the job %s",
             run->attempt, lost, again(run));
    dt_ctx store;
    memset(&store, 0, sizeof store);
    dt_run_for_client(run->w->srv, run->job_id, ctx->msg, error, sizeof error);
    ev = json_pack("{s:s, s:s, s:i, s:i}", "message", msg, "error", error, "attempt", run->attempt,
                   "increments_completed", sum->increments);
    if (dt_event_append(run->job_id, "job.gpu_fault", ev, &store) != DT_OK)
      dt_run_log_failure(run, &store);
    json_decref(ev);
    record_busy(run, secs);
  } else {
    dt_ctx last = *ctx;
    snprintf(last.msg, sizeof last.msg,
             "the GPU faulted in each of %d attempts; the last time: %.300s (%.600s)", run->attempt,
             lost, ctx->msg);
    dt_run_remove_checkpoint(run);
    dt_run_finish(run, DT_ERR_CUDA, "gpu_fault", sum, &last, secs);
  }
  dt_log_error("worker %d: %s; this process cannot use the device again: restarting the daemon",
               run->w->index, lost);
  atomic_store(&run->w->srv->workers->stop, 1);
  dt_bus_notify();
  /* The first to ask names the restart and wakes the main thread; other workers on the faulted
   * GPU fail the same way, and an operator's SIGUSR1 may already be draining. */
  if (!atomic_exchange(&run->w->srv->restarting, 1)) {
    snprintf(run->w->srv->restart_why, sizeof run->w->srv->restart_why, "GPU fault: %.480s", lost);
    kill(getpid(), SIGUSR1);
  }
}

/* The run's state before the solver starts: its paths and its progress so far. */
void dt_run_init(run_ctx *run, worker *w, const char *job_id, int attempt, const dt_model *m) {
  dt_server *srv = w->srv;
  memset(run, 0, sizeof *run);
  run->w = w;
  run->job_id = job_id;
  run->m = m;
  run->attempt = attempt;
  run->prog.step = run->prog.increment = run->prog.newton_iter = -1;
  run->prog.n_steps = m ? m->n_steps : 1;
  /* A backend that cannot save its state would fail every run with a checkpoint: those run
   * without, and start over after a crash or a shutdown. Explicit runs checkpoint after every
   * frame. Order-P runs (no model) checkpoint on the host (worker_ho.c sets it). */
  run->checkpointed = m && srv->can_checkpoint;
  /* The attempt's own directory (job_dirs.h), which adopt prepared: nothing this run writes can
   * reach another attempt's files. */
  dt_job_dir(run->dir, sizeof run->dir, srv->data_dir, job_id, attempt);
  snprintf(run->outdir, sizeof run->outdir, "%s/out", run->dir);
  snprintf(run->checkpoint, sizeof run->checkpoint, "%s/" DT_CHECKPOINT_FILE, run->dir);
}

/* The worker runs the job from now: a cancel request reaches it (dt_workers_cancel), and so does
 * one recorded before (read under the lock, so none falls between the two). */
void dt_run_watch(run_ctx *run) {
  worker *w = run->w;
  dt_ctx ctx;
  dt_status st;
  int requested = 0;
  memset(&ctx, 0, sizeof ctx);
  pthread_mutex_lock(&w->mu);
  snprintf(w->job_id, sizeof w->job_id, "%s", run->job_id);
  w->runs++;
  atomic_store(&w->lost, 0);
  st = dt_job_cancel_requested(run->job_id, &requested, &ctx);
  atomic_store(&w->cancel, requested);
  pthread_mutex_unlock(&w->mu);
  if (st != DT_OK) dt_run_log_failure(run, &ctx);
}

void dt_run_unwatch(worker *w) {
  pthread_mutex_lock(&w->mu);
  w->job_id[0] = '\0';
  pthread_mutex_unlock(&w->mu);
}

static void run_options(run_ctx *run, dt_run_options *opt) {
  dt_server *srv = run->w->srv;
  memset(opt, 0, sizeof *opt);
  opt->backend = srv->cfg.backend;
  opt->threads = (int)srv->cfg.solver_threads;
  opt->device = run->w->device >= 0 ? run->w->device : 0;
  /* A group's jobs run split, one part per device (analysis.h); the CPU backend too, its parts
   * on the host, so a group means the same run whichever backend serves it. */
  if (run->w->n_devices > 1) {
    opt->n_devices = run->w->n_devices;
    memcpy(opt->devices, run->w->devices, sizeof(int) * (size_t)run->w->n_devices);
  }
  opt->outdir = run->outdir;
  opt->progress = on_progress;
  opt->on_increment = on_increment;
  opt->before_checkpoint = fields_before_checkpoint;
  opt->user = run;
  /* Always resume: a fresh job has no checkpoint and starts at the beginning; a recovered one
   * continues after its last converged increment. Runs without checkpoints (run_init) neither
   * write nor resume one. */
  opt->checkpoint = run->checkpointed ? run->checkpoint : NULL;
  opt->resume = run->checkpointed;
}

/* The analysis, run again where that helps: from the beginning when the checkpoint passed the
 * check but could not be restored (other errors, e.g. no device memory, fail the job as they
 * would without a checkpoint), and once another job's GPU memory is free (wait_for_memory). */
static dt_status analyse(run_ctx *run, const dt_model *m, const dt_run_options *opt,
                         dt_run_summary *sum, dt_ctx *ctx) {
  char msg[1024];
  dt_status st = dt_analysis_run(m, opt, sum, ctx);
  if (sum->checkpoint_unusable && run->resuming && !run->resumed) {
    snprintf(msg, sizeof msg, "the checkpoint could not be restored (%.900s)", ctx->msg);
    dt_log_warn("job %s: %s; starting from the beginning", run->job_id, msg);
    dt_run_remove_checkpoint(run);
    fields_finish(run);
    dt_run_prepare(run, msg);
    memset(ctx, 0, sizeof *ctx);
    st = dt_analysis_run(m, opt, sum, ctx);
  }
  return wait_for_memory(run, m, opt, sum, ctx, st);
}

/* A shutdown or restart stopped the job after its last converged increment: it stays running in
 * the store, and its checkpoint stays, so the next start resumes it there (a run without
 * checkpoints starts again from the beginning). */
static void interrupted(run_ctx *run, const dt_run_summary *sum, double secs) {
  dt_ctx ctx;
  char msg[400];
  int restarting = atomic_load(&run->w->srv->restarting);
  json_t *ev;
  snprintf(msg, sizeof msg, "the daemon is %s: stopped%s; the job %s when the daemon %s",
           restarting ? "restarting" : "shutting down",
           run->checkpointed ? " after the last converged increment" : "", again(run),
           restarting ? "is back" : "starts again");
  ev = json_pack("{s:i, s:s}", "increments_completed", sum->increments, "message", msg);
  memset(&ctx, 0, sizeof ctx);
  if (dt_event_append(run->job_id, "job.interrupted", ev, &ctx) != DT_OK)
    dt_run_log_failure(run, &ctx);
  json_decref(ev);
  record_busy(run, secs);
  dt_log_info("job %s interrupted by shutdown after %d increment(s)", run->job_id, sum->increments);
}

/* The run's end: interrupted (resumed at the next start), a device fault (the daemon
 * restarts), or finished (succeeded, failed or cancelled). */
void dt_run_conclude(run_ctx *run, dt_status st, const dt_run_summary *sum, const dt_ctx *ctx,
                     double secs) {
  char lost[512];
  if (atomic_load(&run->w->lost)) {
    /* Its files are in its own attempt's directory, which the job's new run neither reads nor
     * serves (job_dirs.h): left as they are, for the new run's end to remove. */
    const char *kv[] = {"job", run->job_id, NULL};
    dt_log(DT_LOG_WARN, NULL, kv,
           "worker %d: this daemon lost the job's lease while it ran it (a pause longer than "
           "lease_seconds, or the database away that long): its run stopped after %d "
           "increment(s) and recorded nothing; another run has the job",
           run->w->index, sum->increments);
  } else if (st == DT_ERR_CANCELLED && run->shutdown_stop && !atomic_load(&run->w->cancel)) {
    interrupted(run, sum, secs);
  } else if (st == DT_ERR_CUDA && device_lost(run, sum, lost, sizeof lost)) {
    device_fault(run, sum, ctx, lost, secs);
  } else {
    dt_run_remove_checkpoint(run); /* finished: nothing will resume it */
    dt_run_finish(run, st, NULL, sum, ctx, secs);
  }
}

/* Name this attempt's directory in the store as the one that holds the job's results
 * (dt_job_publish), waiting while the database does not answer. 1 when that is done and the run
 * goes on; 0 when the job is no longer this attempt's (another run took it over while this worker
 * was held up: nothing is recorded), when the daemon stops during the wait (the job stays
 * running, for recovery), or when the store fails otherwise (the job fails). */
static int publish(worker *w, const dt_job_claimed *c, double t0) {
  const char *kv[] = {"job", c->id, NULL};
  dt_ctx ctx;
  int held = 0, waited = 0;
  for (;;) {
    memset(&ctx, 0, sizeof ctx);
    if (dt_job_publish(c->id, c->attempt, &held, &ctx) == DT_OK) break;
    if (ctx.code != DT_ERR_DB || !dt_store_connection_lost()) {
      dt_run_fail_early(w, c->id, c->attempt, ctx.code, &ctx, dt_mono() - t0);
      return 0;
    }
    if (dt_worker_stopping(w)) return 0;
    if (!waited++)
      dt_log(DT_LOG_WARN, NULL, kv, "worker %d: the database does not answer (%s): the run waits",
             w->index, ctx.msg);
    sleep_ms(STORE_WAIT_MS);
  }
  if (!held)
    dt_log(DT_LOG_WARN, NULL, kv,
           "worker %d: attempt %d is no longer the job's (another run took it over before this "
           "one started: this daemon was held up past its lease): nothing runs",
           w->index, c->attempt);
  return held;
}

/* Before anything of attempt c->attempt runs (t0: its claim's dt_mono): its own directory, made
 * from the checkpoint and results of the attempt it starts from (job_dirs.h), and then named as
 * the job's results (publish). 1 when the run goes on, 0 when it does not (publish). When the
 * files cannot be copied, why (len bytes) says so and the run starts from the beginning, without
 * the copied checkpoint. */
static int adopt(worker *w, const dt_job_claimed *c, double t0, char *why, size_t len) {
  char from[4200], to[4200], ck[4300];
  dt_ctx ctx;
  why[0] = '\0';
  dt_job_dir(from, sizeof from, w->srv->data_dir, c->id, c->from_attempt);
  dt_job_dir(to, sizeof to, w->srv->data_dir, c->id, c->attempt);
  memset(&ctx, 0, sizeof ctx);
  if (dt_job_dir_adopt(from, to, &ctx) != DT_OK) {
    snprintf(why, len, "the files of the attempt before could not be copied (%.900s)", ctx.msg);
    dt_log_warn("job %s: %s; starting from the beginning", c->id, why);
    snprintf(ck, sizeof ck, "%s/" DT_CHECKPOINT_FILE, to);
    unlink(ck);
  }
  return publish(w, c, t0);
}

static void run_job(worker *w, const dt_job_claimed *c) {
  dt_model *m = NULL;
  dt_spec_ho *ho = calloc(1, sizeof *ho);
  dt_fit fit;
  run_ctx run;
  dt_run_options opt;
  dt_run_summary sum;
  dt_ctx ctx;
  dt_status st;
  double t0 = dt_mono();
  char why[1000];
  memset(&ctx, 0, sizeof ctx);
  if (!adopt(w, c, t0, why, sizeof why)) goto cleanup;
  st = ho ? load_model(w->srv, c->id, &m, ho, &ctx)
          : DT_ERROR(&ctx, DT_ERR_NOMEM, "out of memory loading the job");
  if (st != DT_OK) {
    dt_run_fail_early(w, c->id, c->attempt, st, &ctx, dt_mono() - t0);
    goto cleanup;
  }
  if (ho->order) {
    dt_worker_run_ho(w, c->id, c->attempt, ho, why[0] ? why : NULL, t0);
    goto cleanup;
  }
  dt_run_init(&run, w, c->id, c->attempt, m);
  /* Admission again, on this worker's devices: the configuration may have changed since. */
  st = dt_devices_admit(w->srv, m, w->index, &fit, &ctx);
  if (st != DT_OK) {
    dt_run_remove_checkpoint(&run);
    dt_run_fail_early(w, c->id, c->attempt, st, &ctx, dt_mono() - t0);
    goto cleanup;
  }
  dt_run_prepare(&run, why[0] ? why : NULL);
  dt_run_watch(&run);
  run_options(&run, &opt);
  st = analyse(&run, m, &opt, &sum, &ctx);
  fields_finish(&run);
  flush_converged(&run);
  dt_run_unwatch(w);
  dt_run_conclude(&run, st, &sum, &ctx, dt_mono() - t0);
cleanup:
  dt_model_destroy(&m);
  free(ho);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  dt_job_claimed c;
  dt_lease lease;
  while (!dt_worker_stopping(w)) {
    unsigned long gen = dt_bus_generation();
    dt_ctx ctx;
    dt_ends_retry(&w->ends, 0);
    if (sibling(w, 1)) { /* a job on this GPU waits for memory: it goes first */
      sleep_ms(50);
      continue;
    }
    memset(&ctx, 0, sizeof ctx);
    lease.owner = w->srv->cfg.instance;
    lease.seconds = w->srv->cfg.lease_seconds;
    if (dt_job_claim(w->index, w->srv->cfg.fair_share_window, &lease, &c, &ctx) != DT_OK) {
      dt_log_error("worker %d: cannot claim a job: %s", w->index, ctx.msg);
      sleep_ms(500); /* store trouble: retry */
      continue;
    }
    if (!c.id[0]) {
      if (dt_bus_wait(gen, 1.0) < 0) sleep_ms(100);
      continue;
    }
    {
      char owner[24], usage[32];
      const char *kv[] = {"job", c.id, "owner_id", owner, "owner_usage_s", usage, NULL};
      snprintf(owner, sizeof owner, "%lld", c.owner_id);
      snprintf(usage, sizeof usage, "%.3f", c.usage);
      dt_log(DT_LOG_INFO, NULL, kv, "worker %d: running job (attempt %d)", w->index, c.attempt);
    }
    pthread_mutex_lock(&w->mu);
    w->job_owner = c.owner_id;
    pthread_mutex_unlock(&w->mu);
    run_job(w, &c);
  }
  dt_ends_finish(&w->ends);
  dt_store_thread_close();
  return NULL;
}

dt_status dt_workers_start(dt_server *srv, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_workers *ws = calloc(1, sizeof *ws);
  DT_CHECK(ws != NULL, ctx, DT_ERR_NOMEM, "out of memory starting the workers");
  srv->workers = ws;
  ws->n = srv->cfg.n_workers;
#ifdef DUCTILE_TEST_HOOKS
  atomic_init(&ws->test_full_jobs, srv->cfg.test_disk_full_at_end > 0);
#endif
  for (int i = 0; i < ws->n; i++) {
    worker *w = &ws->w[i];
    w->srv = srv;
    w->index = i;
    w->device = srv->cfg.worker_device[i];
    w->n_devices = srv->cfg.worker_n_devices[i] > 0 ? srv->cfg.worker_n_devices[i] : 1;
    memcpy(w->devices, srv->cfg.worker_devices[i], sizeof w->devices);
    if (srv->cfg.worker_n_devices[i] <= 0) w->devices[0] = w->device;
    w->ends.worker = i;
    w->ends.data_dir = srv->data_dir;
#ifdef DUCTILE_TEST_HOOKS
    w->ends.test_full_jobs = &ws->test_full_jobs;
    w->ends.test_full_attempts = (int)srv->cfg.test_disk_full_at_end;
#endif
    pthread_mutex_init(&w->mu, NULL);
    DT_CHECK(pthread_create(&w->thread, NULL, worker_main, w) == 0, ctx, DT_ERR_INTERNAL,
             "cannot start worker thread %d", i);
    w->started = 1;
  }
cleanup:
  return rc; /* on failure, dt_workers_stop stops the threads that started */
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

int dt_workers_running(dt_server *srv, dt_worker_run *runs) {
  dt_workers *ws = srv->workers;
  int n = 0;
  if (!ws) return 0;
  for (int i = 0; i < ws->n; i++) {
    worker *w = &ws->w[i];
    pthread_mutex_lock(&w->mu);
    if (w->job_id[0]) {
      runs[n].worker = i;
      runs[n].run = w->runs;
      snprintf(runs[n].job_id, sizeof runs[n].job_id, "%s", w->job_id);
      n++;
    }
    pthread_mutex_unlock(&w->mu);
  }
  return n;
}

int dt_workers_lease_lost(dt_server *srv, const dt_worker_run *run) {
  dt_workers *ws = srv->workers;
  worker *w;
  int still = 0;
  if (!ws || run->worker >= ws->n) return 0;
  w = &ws->w[run->worker];
  pthread_mutex_lock(&w->mu);
  still = w->runs == run->run && !strcmp(w->job_id, run->job_id);
  if (still) lose(w);
  pthread_mutex_unlock(&w->mu);
  return still;
}

json_t *dt_workers_describe(dt_server *srv, long long viewer) {
  dt_workers *ws = srv->workers;
  json_t *a = json_array();
  if (!ws) return a;
  for (int i = 0; i < ws->n; i++) {
    worker *w = &ws->w[i];
    json_t *o, *devs = json_array();
    int shown;
    /* devices: every device its jobs use (a group's several; [] for the default device) */
    for (int k = 0; k < w->n_devices && w->devices[k] >= 0; k++)
      json_array_append_new(devs, json_integer(w->devices[k]));
    pthread_mutex_lock(&w->mu);
    shown = w->job_id[0] && (viewer == DT_ANY_OWNER || viewer == w->job_owner);
    o = json_pack("{s:i, s:o, s:o, s:s, s:b, s:o}", "index", i, "device",
                  w->device >= 0 ? json_integer(w->device) : json_null(), "devices", devs,
                  "backend", srv->cfg.backend, "busy", w->job_id[0] != 0, "job_id",
                  shown ? json_string(w->job_id) : json_null());
    pthread_mutex_unlock(&w->mu);
    json_array_append_new(a, o);
  }
  return a;
}
