/* The explicit-dynamics driver (explicit.h): steps through time, writes frames, reports the
 * energy balance.
 *
 * A step of length T runs N = ceil(T / dt) equal time steps, dt the fixed step or the stable
 * step times the safety factor, shortened so that the step ends at T. The first time step of
 * the run is preceded by a force evaluation at rest (dt = 0), the paper's initialisation; a
 * later step re-evaluates the forces with its own loads the same way, its velocities carried
 * over. Frames (the fields, a history row) are due every output_every time steps or at
 * output_frames equal intervals and at the step's end. A frame's energy balance is the one at
 * its time t^n, which the next time step computes (it needs v^{n+1/2}); the last frame of the
 * run gets it from a closing evaluation that moves nothing. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/clock.h"
#include "explicit.h"
#include "explicit_parts.h"
#include "analysis/fields.h"
#include "io/output.h"

#define PROGRESS_SECONDS 1.0 /* progress events at least this often */

typedef struct xrun {
  const dt_model *m;
  const dt_run_options *opt;
  dt_run_summary *sum;
  const dt_xp_ops *o; /* the backend's, or dt_xp_parts_ops over it in a split run */
  const char *name;   /* the backend's */
  void *impl;
  dt_xp_problem xp;
  dt_xp_state state;
  const dt_xp_step *ld; /* the running step's constraints and forces */
  dt_output *out;
  FILE *energy_csv;
  dt_fields fields;
  double ke0;          /* initial kinetic energy */
  double frame_strain; /* the pending frame's strain energy */
  double frame_hg;     /* and its hourglass energy */
  double worst;        /* largest |balance| / scale seen */
  int pending;         /* a frame waits for its energy */
  dt_history_row row;
  int global_frames; /* frames written */
  dt_xp_position at; /* where a resumed run starts (step, time steps, half step, frames) */
  int resumed;
} xrun;

static void event(xrun *r, dt_progress *ev) {
  ev->n_steps = r->m->n_steps;
  ev->backend = r->name;
  if (r->opt->progress) r->opt->progress(ev, r->opt->user);
}

static int event_cancel(xrun *r, dt_progress *ev) {
  ev->n_steps = r->m->n_steps;
  ev->backend = r->name;
  return r->opt->progress ? r->opt->progress(ev, r->opt->user) : 0;
}

static void info(xrun *r, const char *text) {
  dt_progress ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = DT_EV_INFO;
  ev.text = text;
  event(r, &ev);
}

static const dt_xp_ops *xp_ops_named(const char *name) {
#ifdef DUCTILE_HAVE_CUDA
  if (strcmp(name, "cuda") == 0) return &dt_xp_cuda_ops;
#endif
  return strcmp(name, "cpu") == 0 ? &dt_xp_cpu_ops : NULL;
}

/* The backend on opt's device, or, with several devices (ductile-solve --gpus), split over
 * them (explicit_parts.h; the CPU backend runs the parts one after the other on the host). */
static dt_status create_backend(xrun *r, const double *v0, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_run_options *opt = r->opt;
  int *part = NULL;
  char note[256] = "", line[512];
  if (opt->n_devices <= 1)
    return r->o->create(&r->xp, v0, opt->threads,
                        opt->n_devices == 1 ? opt->devices[0] : opt->device, &r->impl, ctx);
  DT_ALLOC(part, r->m->n_elems, ctx, "element parts");
  DT_TRY(dt_xp_parts_partition(r->m, opt->n_devices, part, note, sizeof note, ctx));
  info(r, note);
  DT_TRY(dt_xp_parts_create(r->o, opt->n_devices, opt->devices, part, &r->xp, v0, opt->threads,
                            &r->impl, ctx));
  r->o = &dt_xp_parts_ops;
  dt_xp_parts_describe(r->impl, line, sizeof line);
  info(r, line);
cleanup:
  dt_free(part);
  return rc;
}

static dt_status setup(xrun *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *bo = NULL;
  char note[512] = "", line[768];
  double *v0 = NULL;
  size_t nc = 0;
  const size_t ne = (size_t)r->m->n_elems;

  DT_TRY(dt_backend_find(r->opt->backend, &bo, note, sizeof note, ctx));
  r->o = xp_ops_named(bo->name);
  DT_CHECK(r->o != NULL, ctx, DT_ERR_UNSUPPORTED, "the %s backend does not run explicit dynamics",
           bo->name);
  r->name = r->o->name;
  info(r, note);
  DT_TRY(dt_xp_problem_build(r->m, &r->xp, ctx));
  nc = dt_xp_copies(&r->xp);
  if (r->xp.kind == DT_XP_HEX8) {
    char hg[64] = "";
    if (r->xp.form == DT_HEX8X_REDUCED)
      snprintf(hg, sizeof hg, ", hourglass coefficient %.3g", r->xp.hourglass);
    snprintf(line, sizeof line,
             "explicit dynamics: %d hex8 elements (%s%s), %d nodes (%zu node copies), stable "
             "time step %.4g (element %lld)",
             r->xp.ne, r->xp.form == DT_HEX8X_REDUCED ? "one point" : "2x2x2 points", hg,
             r->m->n_nodes, nc, r->xp.dt_crit, (long long)r->m->elem_id[r->xp.dt_crit_elem]);
  } else
    snprintf(line, sizeof line,
             "explicit dynamics: %d shell elements, %d nodes (%zu node copies), stable time step "
             "%.4g (element %lld), rotary inertia scaled up to %.3g times",
             r->xp.ne, r->m->n_nodes, nc, r->xp.dt_crit,
             (long long)r->m->elem_id[r->xp.dt_crit_elem], r->xp.rotary_factor);
  info(r, line);
  DT_TRY(dt_xp_initial_velocity(r->m, &r->xp, &v0, ctx));
  DT_TRY(create_backend(r, v0, ctx));
  DT_ALLOC(r->state.u, 3 * nc, ctx, "displacements");
  DT_ALLOC(r->state.work, DT_XP_WORK * ne, ctx, "energy accumulators");
  DT_ALLOC(r->state.plastic, ne, ctx, "yielded points");
  DT_ALLOC(r->state.f, (size_t)r->xp.nv * nc, ctx, "node forces");
  DT_ALLOC(r->fields.u, 3 * (size_t)r->m->n_nodes, ctx, "displacement field");
  DT_ALLOC(r->fields.rf, 3 * (size_t)r->m->n_nodes, ctx, "reaction field");
  DT_ALLOC(r->fields.qp_ptr, ne + 1, ctx, "point offsets");
  r->fields.n_nodes = r->m->n_nodes;
  r->fields.n_elems = r->m->n_elems;
  DT_TRY(dt_xp_fields_alloc(r->m, &r->xp, &r->fields, ctx));
  if (r->fields.qp_stress) { /* what the point stresses are evaluated from */
    if (r->xp.nq) DT_ALLOC(r->state.q, (size_t)r->xp.nq * nc, ctx, "node frames");
    if (r->xp.plastic) DT_ALLOC(r->state.hist, dt_xp_hist_doubles(&r->xp), ctx, "history");
  }
  if (v0) /* the initial kinetic energy, from the node owners' copies */
    for (size_t c = 0; c < nc; c++)
      if (r->xp.owner[c])
        for (int k = 0; k < 3; k++)
          r->ke0 += 0.5 / r->xp.inv_mass[c] * v0[k * nc + c] * v0[k * nc + c];
cleanup:
  dt_free(v0);
  return rc;
}

static dt_status open_energy(xrun *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4096];
  if (!r->opt->outdir) return DT_OK;
  snprintf(path, sizeof path, "%s/energy.csv", r->opt->outdir);
  r->energy_csv = fopen(path, "w");
  DT_CHECK(r->energy_csv != NULL, ctx, DT_ERR_IO, "cannot create %s", path);
  fprintf(r->energy_csv, "step,frame,time,kinetic,internal_work,external_work,damping_work,"
                         "balance,strain_energy,hourglass_energy\n");
cleanup:
  return rc;
}

/* The energy terms summed over the elements (the state's work arrays just downloaded). */
static dt_energy sum_energy(xrun *r, double t) {
  const size_t ne = (size_t)r->xp.ne;
  const double *w = r->state.work;
  dt_energy en;
  double scale;
  memset(&en, 0, sizeof en);
  en.time = t;
  for (size_t e = 0; e < ne; e++) {
    en.kinetic += w[DT_XP_KE * ne + e];
    en.internal += w[DT_XP_S_INT * ne + e];
    en.external += w[DT_XP_S_EXT * ne + e];
    en.damping += w[DT_XP_S_DAMP * ne + e];
  }
  en.balance = en.kinetic + en.internal + en.damping - en.external - r->ke0;
  scale = fmax(fmax(fabs(en.kinetic), fabs(en.internal)), fmax(fabs(en.external), r->ke0));
  if (scale > 0 && fabs(en.balance) / scale > r->worst) r->worst = fabs(en.balance) / scale;
  return en;
}

/* The reactions at time t of step s: on each constrained translation, the resisting force of
 * the elements at the node (the sum over its copies of what the next step gathers: internal
 * forces less pressures) less the concentrated force there, that is the force the support
 * exerts on the model; 0 elsewhere. A support whose prescribed velocity changes adds the node's
 * own inertia and damping force to it, which this leaves out (they vanish at a fixed support). */
static void reactions(xrun *r, int s, double t) {
  const dt_step *st = &r->m->steps[s];
  const size_t nc = dt_xp_copies(&r->xp);
  const double amp = dt_xp_amplitude(&st->explicit_.amplitude, st->explicit_.time_period, t);
  double *rf = r->fields.rf;
  memset(rf, 0, 3 * sizeof *rf * (size_t)r->m->n_nodes);
  for (size_t c = 0; c < nc; c++)
    for (int k = 0; k < 3; k++) rf[3 * r->xp.node[c] + k] += r->state.f[k * nc + c];
  for (size_t c = 0; c < nc; c++) {
    const int b = r->ld->bc[c], a = r->xp.node[c];
    if (!r->xp.owner[c]) continue;
    for (int k = 0; k < 3; k++)
      if (b >= 0 && (r->ld->bcs[b].fix & (1u << k)))
        rf[3 * a + k] -= amp * r->ld->fc[k * nc + c];
      else
        rf[3 * a + k] = 0.0;
  }
}

/* The fields of the frame at the state's time: downloaded now, written with its energy. */
static dt_status take_frame(xrun *r, int s, int frame, double t, double T, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const size_t nc = dt_xp_copies(&r->xp);
  dt_xp_state want = {r->state.u,       NULL,       r->state.q,   r->state.work,
                      r->state.plastic, r->state.f, r->state.hist};
  int failed = 0, n_plastic = 0;
  double max_u = 0.0;

  DT_TRY(r->o->get(r->impl, &want, &failed, ctx));
  reactions(r, s, t);
  dt_xp_fields_compute(&r->xp, &r->state, &r->fields);
  for (size_t c = 0; c < nc; c++) {
    if (!r->xp.owner[c]) continue;
    for (int k = 0; k < 3; k++) {
      const double u = r->state.u[k * nc + c];
      r->fields.u[3 * r->xp.node[c] + k] = u;
      if (!isfinite(u)) failed = 2;
    }
    max_u =
        fmax(max_u, sqrt(r->fields.u[3 * r->xp.node[c]] * r->fields.u[3 * r->xp.node[c]] +
                         r->fields.u[3 * r->xp.node[c] + 1] * r->fields.u[3 * r->xp.node[c] + 1] +
                         r->fields.u[3 * r->xp.node[c] + 2] * r->fields.u[3 * r->xp.node[c] + 2]));
  }
  r->frame_strain = r->frame_hg = 0.0;
  for (int e = 0; e < r->xp.ne; e++) {
    n_plastic += r->state.plastic[e];
    r->frame_strain += r->state.work[DT_XP_U * (size_t)r->xp.ne + e];
    r->frame_hg += r->state.work[DT_XP_HG * (size_t)r->xp.ne + e];
  }
  if (failed) {
    r->sum->reason = failed == 2 ? DT_DIVERGED_NAN : DT_MATERIAL_NO_CONVERGENCE;
    snprintf(r->sum->message, sizeof r->sum->message,
             "step %d \"%s\": %s at time %.6g of the step: %s", s + 1, r->m->steps[s].name,
             failed == 2 ? "the displacements became infinite or NaN" : "a material update failed",
             t,
             failed == 2 ? "the time step is above the stable one (lower the safety factor or "
                           "the fixed step) or the model is unconstrained and driven to infinity"
                         : "a return mapping did not converge (check the hardening data)");
    DT_CHECK(0, ctx, DT_ERR_NOT_CONVERGED, "%s", r->sum->message);
  }
  r->sum->max_u = max_u;
  memset(&r->row, 0, sizeof r->row);
  r->row.step = s;
  r->row.increment = frame;
  r->row.load_factor = t / T;
  r->row.time = s + t / T;
  r->row.n_plastic_qp = n_plastic;
  r->fields.step = s;
  r->fields.increment = frame;
  r->fields.global_increment = ++r->global_frames;
  r->fields.load_factor = t / T;
  r->fields.time = r->row.time;
  r->pending = 1;
cleanup:
  return rc;
}

/* The pending frame, its energy now known: written, reported. */
static dt_status write_frame(xrun *r, int s, double t, int last_of_step, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_xp_state want = {NULL, NULL, NULL, r->state.work, NULL, NULL, NULL};

  dt_progress ev;
  int failed = 0;
  double t0 = dt_seconds();

  DT_TRY(r->o->get(r->impl, &want, &failed, ctx));
  memset(&ev, 0, sizeof ev);
  ev.energy = sum_energy(r, t);
  ev.energy.strain = r->frame_strain; /* taken with the frame's fields */
  ev.energy.hourglass = r->frame_hg;
  ev.has_energy = 1;
  if (r->energy_csv) {
    fprintf(r->energy_csv, "%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
            r->row.step + 1, r->row.increment, t, ev.energy.kinetic, ev.energy.internal,
            ev.energy.external, ev.energy.damping, ev.energy.balance, ev.energy.strain,
            ev.energy.hourglass);
    fflush(r->energy_csv);
  }
  r->sum->increments++;
  r->sum->last_time = r->row.time;
  dt_fields_monitors(r->m, &r->fields, &r->row);
  if (r->out)
    DT_TRY(dt_output_increment(r->out, r->m, &r->fields, &r->row,
                               dt_output_fields_due(r->m, r->global_frames, last_of_step), ctx));
  if (r->opt->on_increment) r->opt->on_increment(&r->fields, &r->row, r->opt->user);
  ev.kind = DT_EV_INCREMENT_DONE;
  ev.step = s;
  ev.step_name = r->m->steps[s].name;
  ev.increment = r->row.increment;
  ev.load_factor = r->row.load_factor;
  ev.n_plastic = r->row.n_plastic_qp;
  ev.percent = 100.0 * (s + r->row.load_factor) / r->m->n_steps;
  ev.time = t;
  event(r, &ev);
  r->pending = 0;
  r->sum->seconds_output += dt_seconds() - t0;
cleanup:
  return rc;
}

static dt_status save_output_state(void *arg, FILE *f, dt_ctx *ctx) {
  return dt_output_save_state(arg, f, ctx);
}

/* A checkpoint after the time step that ends at step s's n-th: no frame is pending (the one
 * due at n, if any, is taken again by the resumed run). */
static dt_status checkpoint(xrun *r, int s, long n, double h_before, int frame, dt_ctx *ctx) {
  dt_xp_position pos = {s, n, h_before, frame, r->ke0};
  r->sum->energy_balance = r->worst;
  if (r->opt->before_checkpoint) r->opt->before_checkpoint(r->opt->user);
  return dt_xp_checkpoint_write(r->opt->checkpoint, r->m, r->o, r->impl, &r->xp, &pos, r->sum,
                                r->out ? save_output_state : NULL, r->out, ctx);
}

/* energy.csv cut back to its header and the first `rows` frames (those before the
 * checkpoint); the later ones are computed again. */
static dt_status energy_resume(xrun *r, int rows, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4096], line[1024];
  FILE *f = NULL;
  long keep = 0;
  int n = -1;
  snprintf(path, sizeof path, "%s/energy.csv", r->opt->outdir);
  f = fopen(path, "r+");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot reopen %s to resume", path);
  while (n < rows && fgets(line, sizeof line, f)) {
    n++;
    keep = ftell(f);
  }
  DT_CHECK(n == rows && ftruncate(fileno(f), keep) == 0 && fseek(f, 0, SEEK_END) == 0, ctx,
           DT_ERR_IO, "%s holds %d of the checkpoint's %d frames", path, n, rows);
  r->energy_csv = f;
  f = NULL;
cleanup:
  if (f) fclose(f);
  return rc;
}

/* Resume from the run's checkpoint: the backend's state, the counters, the output writer. */
static dt_status resume(xrun *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  FILE *state = NULL;
  dt_progress ev;
  char line[256];
  DT_TRY(dt_xp_checkpoint_read(r->opt->checkpoint, r->m, r->o, r->impl, &r->xp, &r->at, r->sum,
                               &state, ctx));
  r->ke0 = r->at.ke0;
  r->worst = r->sum->energy_balance;
  r->global_frames = r->sum->increments;
  if (r->opt->outdir) {
    DT_TRY(dt_output_open_resume(r->opt->outdir, r->opt->job_name, r->m, state, &r->out, ctx));
    DT_TRY(energy_resume(r, r->sum->increments, ctx));
  }
  r->resumed = 1;
  snprintf(line, sizeof line,
           "resumed from checkpoint: step %d after %ld time steps, %d frames kept", r->at.step + 1,
           r->at.n, r->sum->increments);
  memset(&ev, 0, sizeof ev);
  ev.kind = DT_EV_INFO;
  ev.text = line;
  ev.resumed = 1;
  event(r, &ev);
cleanup:
  if (state) fclose(state);
  return rc;
}

static dt_xp_time time_of(const dt_step *st, double t, double dt, double h_before, int energy) {
  const dt_amplitude *a = &st->explicit_.amplitude;
  const double T = st->explicit_.time_period;
  dt_xp_time x;
  x.dt = dt;
  x.h_before = h_before;
  x.alpha = st->explicit_.damping;
  x.amp_n = dt_xp_amplitude(a, T, t);
  x.amp_n1 = dt_xp_amplitude(a, T, t + dt);
  x.amp_mid = dt_xp_amplitude(a, T, t + 0.5 * dt);
  x.rate_mid = dt_xp_amplitude_rate(a, T, t + 0.5 * dt);
  x.energy = energy;
  x.strain = 0;
  return x;
}

/* Which time steps end on a frame: every output_every, or the nearest to output_frames equal
 * intervals; always the last. */
static int frame_due(const dt_explicit_options *x, long n, long N) {
  if (n == N) return 1;
  if (x->output_every > 0) return n % x->output_every == 0;
  return (n * x->output_frames) / N != ((n - 1) * x->output_frames) / N;
}

static dt_status run_step(xrun *r, int s, double *h_before, long n0, int frame0, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_step *st = &r->m->steps[s];
  const dt_explicit_options *x = &st->explicit_;
  dt_xp_step ld;
  dt_xp_time T;
  dt_progress ev;
  double dt = x->dt > 0 ? x->dt : x->dt_safety * r->xp.dt_crit, t0 = dt_seconds(), t_ev;
  const long N = (long)ceil(x->time_period / dt - 1e-9);
  int frame = frame0;

  memset(&ld, 0, sizeof ld);
  DT_CHECK(N <= 2000000000L, ctx, DT_ERR_INPUT,
           "step %d \"%s\": %.3g time steps of %.3g for a time period of %.3g: too many (check "
           "the units of the density and the time period)",
           s + 1, st->name, x->time_period / dt, dt, x->time_period);
  dt = x->time_period / (double)N;
  r->sum->time_step = dt;
  memset(&ev, 0, sizeof ev);
  ev.kind = DT_EV_STEP_START;
  ev.step = s;
  ev.step_name = st->name;
  event(r, &ev);
  {
    char line[256];
    snprintf(line, sizeof line, "step %d \"%s\": %ld time steps of %.6g to time %.6g%s", s + 1,
             st->name, N, dt, x->time_period, x->dt > 0 ? " (fixed)" : "");
    info(r, line);
  }
  DT_TRY(dt_xp_step_build(r->m, &r->xp, s, &ld, ctx));
  DT_TRY(r->o->set_step(r->impl, &ld, ctx));
  r->ld = &ld;
  if (n0 == 0) { /* the forces at the step's start, with its loads; a pending frame gets its
                     energy here */
    T = time_of(st, 0.0, 0.0, *h_before, r->pending);
    DT_TRY(r->o->step(r->impl, &T, ctx));
    if (r->pending) DT_TRY(write_frame(r, s - 1, r->m->steps[s - 1].explicit_.time_period, 1, ctx));
  } else if (frame_due(x, n0, N)) /* resumed where a frame was due */
    DT_TRY(take_frame(r, s, ++frame, (double)n0 * dt, x->time_period, ctx));
  t_ev = dt_seconds();
  for (long n = n0; n < N; n++) {
    const double t = (double)n * dt;
    const int had_pending = r->pending;
    T = time_of(st, t, dt, *h_before, had_pending);
    T.strain = frame_due(x, n + 1, N); /* the frame at its end takes the strain energy */
    DT_TRY(r->o->step(r->impl, &T, ctx));
    *h_before = 0.5 * dt;
    r->sum->time_steps++;
    if (had_pending) {
      DT_TRY(write_frame(r, s, t, 0, ctx));
      if (r->opt->checkpoint) DT_TRY(checkpoint(r, s, n + 1, *h_before, frame, ctx));
    }
    if (frame_due(x, n + 1, N))
      DT_TRY(take_frame(r, s, ++frame, (double)(n + 1) * dt, x->time_period, ctx));
    if (dt_seconds() - t_ev >= PROGRESS_SECONDS || n + 1 == N) {
      const double el = dt_seconds() - t0;
      memset(&ev, 0, sizeof ev);
      ev.kind = DT_EV_EXPLICIT;
      ev.step = s;
      ev.step_name = st->name;
      ev.time = (double)(n + 1) * dt;
      ev.time_step = dt;
      ev.time_steps = n + 1;
      ev.time_steps_step = N;
      ev.eta_seconds = el / (double)(n + 1) * (double)(N - n - 1);
      ev.percent = 100.0 * (s + ev.time / x->time_period) / r->m->n_steps;
      t_ev = dt_seconds();
      if (event_cancel(r, &ev)) {
        snprintf(r->sum->message, sizeof r->sum->message,
                 "cancelled in step %d \"%s\" at time %.6g", s + 1, st->name, ev.time);
        DT_CHECK(0, ctx, DT_ERR_CANCELLED, "%s", r->sum->message);
      }
    }
  }
  r->sum->steps_completed++;
  memset(&ev, 0, sizeof ev);
  ev.kind = DT_EV_STEP_DONE;
  ev.step = s;
  event(r, &ev);
cleanup:
  r->ld = NULL;
  dt_xp_step_free(&ld);
  return rc;
}

dt_status dt_explicit_run(const dt_model *m, const dt_run_options *opt, dt_run_summary *summary,
                          dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xrun r;
  double t0 = dt_seconds(), h_before = 0.0;

  memset(&r, 0, sizeof r);
  memset(summary, 0, sizeof *summary);
  summary->pc_final = -1; /* no implicit solves */
  r.m = m;
  r.opt = opt;
  r.sum = summary;
  summary->reason = DT_CONVERGED;
  DT_TRY(setup(&r, ctx));
  snprintf(summary->backend, sizeof summary->backend, "%s", r.name ? r.name : "");
  if (opt->checkpoint && opt->resume && access(opt->checkpoint, F_OK) == 0) {
    rc = resume(&r, ctx);
    /* the checkpoint's own fault, not a lack of memory: the caller may start over */
    summary->checkpoint_unusable =
        rc == DT_ERR_INPUT || rc == DT_ERR_IO || rc == DT_ERR_UNSUPPORTED;
    if (rc != DT_OK) goto cleanup;
    snprintf(summary->backend, sizeof summary->backend, "%s", r.name ? r.name : "");
    h_before = r.at.h_before;
  } else {
    if (opt->outdir) DT_TRY(dt_output_open(opt->outdir, opt->job_name, m, &r.out, ctx));
    DT_TRY(open_energy(&r, ctx));
  }
  summary->seconds_setup = dt_seconds() - t0;
  for (int s = r.resumed ? r.at.step : 0; s < m->n_steps; s++) {
    const int here = r.resumed && s == r.at.step;
    DT_TRY(run_step(&r, s, &h_before, here ? r.at.n : 0, here ? r.at.frame : 0, ctx));
  }
  if (r.pending) { /* the closing evaluation: v^N, the last frame's energy; moves nothing */
    const dt_step *st = &m->steps[m->n_steps - 1];
    dt_xp_time T = time_of(st, st->explicit_.time_period, 0.0, h_before, 1);
    DT_TRY(r.o->step(r.impl, &T, ctx));
    DT_TRY(write_frame(&r, m->n_steps - 1, st->explicit_.time_period, 1, ctx));
  }
  summary->completed = 1;
  snprintf(summary->message, sizeof summary->message,
           "completed %d step(s), %ld time steps, %d frames", summary->steps_completed,
           summary->time_steps, summary->increments);
cleanup:
  summary->energy_balance = r.worst;
  if (rc == DT_ERR_NOT_CONVERGED && summary->reason == DT_CONVERGED)
    summary->reason = DT_DIVERGED_NAN;
  if (r.out) {
    dt_ctx flush_ctx = {0};
    dt_status frc = dt_output_flush(r.out, rc == DT_OK ? ctx : &flush_ctx);
    if (rc == DT_OK) rc = frc;
  }
  summary->seconds_total = dt_seconds() - t0;
  if (rc != DT_OK && summary->message[0] == '\0')
    snprintf(summary->message, sizeof summary->message, "%s", ctx ? ctx->msg : "error");
  if (r.out) {
    dt_ctx close_ctx = {0};
    dt_status crc = dt_output_close(&r.out, m, summary, rc == DT_OK ? ctx : &close_ctx);
    if (rc == DT_OK) rc = crc;
  }
  if (r.energy_csv) fclose(r.energy_csv);
  if (r.impl) r.o->destroy(r.impl);
  dt_xp_problem_free(&r.xp);
  dt_free(r.state.u);
  dt_free(r.state.work);
  dt_free(r.state.plastic);
  dt_free(r.state.f);
  dt_free(r.state.q);
  dt_free(r.state.hist);
  dt_fields_free(&r.fields);
  return rc;
}
