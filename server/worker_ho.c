/* Order-P jobs (jobspec.h): a job on a stored mesh of order-P hexahedra runs dt_ho_job_run, the
 * same run as `ductile-solve MESH.msh --job JOB.json`: on a daemon of the cuda backend on the
 * worker's (first) GPU, else on the host. Its progress callback emits
 * the events of the hex8 path (info, step.started, increment.started, newton.iteration,
 * increment.converged, step.completed), so the dashboard and SSE clients follow it unchanged,
 * and stops the run at its next Newton iteration on a cancel (the job ends cancelled) or a
 * shutdown. The solver writes summary.json, history.csv and the VTU files into the out/ of the
 * run's attempt (job_dirs.h), where the results routes read every job's, and records each
 * increment's row as the hex8 path does (GET /v1/jobs/{id}/results/increments).
 *
 * Checkpoints: the solver writes the job's checkpoint (ho_checkpoint.h) after each converged
 * increment, before the increment is announced, so an increment announced converged is never
 * computed again. At the next start (after a crash, a shutdown or a daemon restart),
 * dt_run_prepare checks it against the job (sizes, the job's and mesh's hash, its checksum):
 * a usable one is resumed (job.resumed, increments kept; those the last attempt did not
 * announce are announced from history.csv), a refused one is removed and the job starts from
 * the beginning (job.restarted, with the reason, which the log has too). A checkpoint that
 * passes the check but cannot be restored (the run reports it before it solves) also restarts
 * the job from the beginning.
 *
 * Admission: dt_ho_job_estimate_bytes of the mesh against the host's memory (or
 * max_job_bytes), which holds the mesh, the p-multigrid's set-up and the state in every case,
 * and on a GPU also against the worker's device limit (the device holds the same state, the
 * operators and the p-multigrid's copy). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "devices.h"
#include "log.h"
#include "worker_internal.h"

/* JSON has no NaN (the first iteration has no du_ratio): null instead. */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* The event data of increment.converged, as worker.c's flush_converged writes it. */
static json_t *converged_json(const run_ctx *run, const dt_ho_progress *ev) {
  return json_pack("{s:i, s:i, s:i, s:f, s:i, s:o, s:I, s:f}", "n", run->prog.increments_done,
                   "step", 1, "increment", ev->increment, "load_factor", ev->load_factor,
                   "newton_iterations", ev->iteration, "residual", num(ev->residual),
                   "plastic_points", (json_int_t)ev->n_plastic, "percent", run->prog.percent);
}

/* Increment k's row, as worker.c's on_increment records it (with its VTU when it has one). */
static void record_increment(run_ctx *run, int k) {
  const dt_ho_job_info *in = run->ho;
  int n = in->n_increments, every = in->output_every > 0 ? in->output_every : 1;
  int vtu = in->output_vtu && (k % every == 0 || k == n);
  double lf = (double)k / n;
  dt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  if (dt_job_increment_record(run->job_id, run->attempt, k, 1, k, lf, lf, vtu, &ctx) != DT_OK)
    dt_run_log_failure(run, &ctx);
}

/* The solver restored the checkpoint: job.resumed, as the hex8 path announces it. */
static void on_resumed(int kept, const char *text, void *user) {
  run_ctx *run = user;
  char msg[1200];
  run->resumed = 1;
  dt_run_emit(run, "job.resumed",
              json_pack("{s:i, s:b, s:i, s:s}", "attempt", run->attempt, "resumed", 1,
                        "increments_kept", kept, "message",
                        dt_run_for_client(run->w->srv, run->job_id, text, msg, sizeof msg)));
}

/* The solver's events as the hex8 path's; nonzero stops the run (cancel, shutdown, a lost
 * lease, which sets cancel too). */
static int on_progress(const dt_ho_progress *ev, void *user) {
  run_ctx *run = user;
  dt_job_progress *p = &run->prog;
  p->step = 1;
  switch (ev->kind) {
  case DT_HO_INCREMENT_START:
    if (ev->increment == 1) dt_run_check_cancel(run);
    p->increment = ev->increment;
    p->newton_iter = -1;
    dt_run_emit(run, "increment.started",
                json_pack("{s:i, s:i, s:f, s:f}", "step", 1, "increment", ev->increment,
                          "load_factor", ev->load_factor, "dlambda", 1.0 / ev->n_increments));
    break;
  case DT_HO_NEWTON_ITERATION:
    p->newton_iter = ev->iteration;
    p->residual = ev->residual;
    dt_run_emit(run, "newton.iteration",
                json_pack("{s:i, s:i, s:i, s:o, s:o, s:i, s:o, s:I}", "step", 1, "increment",
                          ev->increment, "iteration", ev->iteration, "residual", num(ev->residual),
                          "du_ratio", num(ev->du_ratio), "pcg_iterations", ev->pcg_iterations,
                          "pcg_tolerance", json_null(), "plastic_points",
                          (json_int_t)ev->n_plastic));
    dt_run_test_delay(run);
    break;
  case DT_HO_INCREMENT_DONE: /* its files and checkpoint are written */
#ifdef DUCTILE_TEST_HOOKS
    if (run->w->srv->cfg.test_exit_after_checkpoint == p->increments_done + 1) _exit(137);
#endif
    record_increment(run, ev->increment);
    p->increments_done++;
    p->percent = 100.0 * ev->increment / ev->n_increments;
    p->residual = ev->residual;
    dt_run_emit(run, "increment.converged", converged_json(run, ev));
    break;
  }
  if (dt_worker_stopping(run->w)) {
    run->shutdown_stop = 1;
    return 1;
  }
  return atomic_load(&run->w->cancel);
}

/* Whether this worker runs order-P jobs on its GPU (a daemon of the cuda backend). */
static int on_gpu(const worker *w) {
  return strcmp(w->srv->backend_name, "cuda") == 0 && w->device >= 0;
}

/* The run's dt_run_summary, for dt_run_finish: counts, backend, message. */
static void summarise(const worker *w, const dt_ho_job_result *res, dt_status st, const dt_ctx *ctx,
                      double secs, dt_run_summary *sum) {
  memset(sum, 0, sizeof *sum);
  sum->completed = st == DT_OK;
  sum->steps_completed = st == DT_OK;
  sum->increments = res->increments;
  sum->newton_iters = res->newton_iterations;
  sum->pcg_iters = res->pcg_iterations;
  sum->seconds_total = secs;
  snprintf(sum->backend, sizeof sum->backend, "%s", on_gpu(w) ? "cuda" : "cpu");
  if (st == DT_OK)
    snprintf(sum->message, sizeof sum->message,
             "completed: order %d, %d increments, %d Newton iterations, %d PCG iterations, max |u| "
             "%.6g, max PEEQ %.6g",
             res->order, res->increments, res->newton_iterations, res->pcg_iterations, res->max_u,
             res->max_peeq);
  else if (st == DT_ERR_NOT_CONVERGED) {
    sum->reason = res->reason;
    snprintf(sum->message, sizeof sum->message, "%s", ctx->msg);
  }
}

/* One attempt of the run: resuming from the checkpoint when dt_run_prepare found it usable. */
static dt_status run_once(run_ctx *run, const dt_spec_ho *ho, dt_ho_job_result *res, dt_ctx *ctx) {
  dt_ho_job_options o;
  memset(&o, 0, sizeof o);
  o.outdir = run->outdir;
  o.progress = on_progress;
  o.user = run;
  o.checkpoint = run->checkpoint;
  o.resume = run->resuming;
  o.resumed = on_resumed;
  o.gpu = on_gpu(run->w);
  o.gpu_device = run->w->device;
  memset(res, 0, sizeof *res);
  return dt_ho_job_run(ho->msh, ho->job, &o, res, ctx);
}

/* The run itself, between watch and unwatch: its first events, the solve (again from the
 * beginning when the checkpoint cannot be restored), the last event. */
static dt_status solve(run_ctx *run, const dt_spec_ho *ho, dt_ho_job_result *res, dt_ctx *ctx) {
  dt_status st;
  const dt_ho_job_info *in = &ho->info;
  char text[400], where[32], msg[1024];
  int gpu = on_gpu(run->w);
  dt_run_record_backend(run, gpu ? "cuda" : "cpu");
  if (gpu)
    snprintf(where, sizeof where, "GPU %d", run->w->device);
  else
    snprintf(where, sizeof where, "the host");
  snprintf(text, sizeof text,
           "order-P solver on %s: order %d, %d hexahedra, %d nodes, %d DOFs, estimated %.0f bytes; "
           "a checkpoint after each converged increment",
           where, in->order, in->n_elems, in->n_nodes, 3 * in->n_nodes, in->est_bytes);
  dt_run_emit(run, "info", json_pack("{s:s}", "text", text));
  dt_run_emit(run, "step.started",
              json_pack("{s:i, s:i, s:s}", "step", 1, "n_steps", 1, "name", in->step_name));
  st = run_once(run, ho, res, ctx);
  if (st != DT_OK && res->checkpoint_unusable) {
    snprintf(msg, sizeof msg, "the checkpoint could not be restored (%.900s)", ctx->msg);
    dt_log_warn("job %s: %s; starting from the beginning", run->job_id, msg);
    dt_run_remove_checkpoint(run);
    dt_run_prepare(run, msg);
    memset(ctx, 0, sizeof *ctx);
    st = run_once(run, ho, res, ctx);
  }
  if (st == DT_OK)
    dt_run_emit(run, "step.completed", json_pack("{s:i, s:i}", "step", 1, "n_steps", 1));
  return st;
}

void dt_worker_run_ho(worker *w, const char *job_id, int attempt, dt_spec_ho *ho,
                      const char *restart_why, double t0) {
  run_ctx run;
  dt_fit fit;
  dt_ctx ctx;
  dt_run_summary sum;
  dt_ho_job_result res;
  dt_status st;
  memset(&ctx, 0, sizeof ctx);
  memset(&res, 0, sizeof res);
  dt_run_init(&run, w, job_id, attempt, NULL);
  run.ho = &ho->info;
  run.checkpointed = 1; /* on the host, whatever the backend */
  /* Admission again, on the host (and the GPU): the configuration may have changed since. */
  st = dt_devices_admit_host(w->srv, ho->info.est_bytes, "order-P solver", &fit, &ctx);
  if (st == DT_OK && on_gpu(w))
    st = dt_devices_admit_bytes(w->srv, ho->info.est_bytes, "order-P solver on the GPU", w->index,
                                &fit, &ctx);
  if (st != DT_OK) {
    dt_run_remove_checkpoint(&run);
    dt_run_fail_early(w, job_id, attempt, st, &ctx, dt_mono() - t0);
    goto cleanup;
  }
  dt_run_prepare(&run, restart_why);
  /* the rows of the kept increments (a crash may fall between a checkpoint and its row) */
  for (int k = 1; run.resuming && k <= run.kept; k++) record_increment(&run, k);
  dt_run_watch(&run);
  st = solve(&run, ho, &res, &ctx);
  dt_run_unwatch(w);
  dt_spec_ho_message(ho, ctx.msg, sizeof ctx.msg);
  summarise(w, &res, st, &ctx, dt_mono() - t0, &sum);
  dt_run_conclude(&run, st, &sum, &ctx, dt_mono() - t0);
cleanup:
  unlink(ho->job);
}
