/* An order-P static analysis from a Gmsh mesh and a JSON job (ho_job.h).
 *
 * Steps: the job's keys against the subset (ho_job_keys.c); the job parsed and validated on the
 * corner hex8 mesh (dt_gmsh_read_corners + dt_parse_job_file_with_mesh), which resolves names,
 * units and defaults as for any job; the order-P mesh and its groups (ho_mesh_gmsh.h); the
 * constraints and loads by group name; dt_ho_plastic_solve with the p-multigrid (P >= 2, Jacobi
 * at P = 1), resumed from a checkpoint when asked (ho_job_checkpoint.c), with each converged
 * increment's files and checkpoint written from the progress callback (ho_job_output.c);
 * summary.json. dt_ho_job_check stops before the operators: it is what the daemon runs at
 * submission. */
#include "highorder/ho_job.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "highorder/ho_job_internal.h"
#include "io/import.h"
#include "io/import_gmsh_internal.h"
#include "io/job_json.h"
#include "io/output.h"

static void run_free(ho_run *r) {
  ho_output_close(r);
  dt_model_destroy(&r->model);
  if (r->have_pmg) dt_ho_pmg_free(&r->pmg);
  dt_ho_plastic_free(&r->pl);
  dt_ho_elastic_free(&r->el);
  dt_ho_gmsh_groups_free(&r->G);
  dt_ho_mesh_free(&r->m);
  dt_free(r->elem_mat), dt_free(r->fixed), dt_free(r->lam), dt_free(r->mu), dt_free(r->u);
  dt_free(r->u_presc), dt_free(r->f), dt_free(r->fint);
}

/* What the parsed job holds beyond the subset that the keys alone do not show. */
static dt_status check_model(const ho_run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_model *m = r->model;
  const dt_material_params *p = &m->materials[0].p;

  DT_CHECK(m->n_materials == 1, ctx, DT_ERR_INPUT,
           "%s: materials: %d materials; an order-P mesh takes one", r->job, m->n_materials);
  DT_CHECK(p->plastic == DT_PLASTIC_NONE ||
               (p->plastic == DT_PLASTIC_J2 &&
                (p->iso == DT_ISO_LINEAR || p->iso == DT_ISO_PERFECT) && p->H_kin == 0.0),
           ctx, DT_ERR_INPUT,
           "%s: materials[0]: \"%s\": an order-P mesh takes an elastic material or J2 with "
           "linear isotropic hardening",
           r->job, m->materials[0].name);
  DT_CHECK(m->n_steps == 1 && m->steps[0].procedure == DT_PROC_STATIC && !m->steps[0].automatic,
           ctx, DT_ERR_INPUT, "%s: steps: an order-P mesh runs one static step of fixed increments",
           r->job);
  DT_CHECK(m->steps[0].n_increments >= 1 && m->steps[0].n_increments <= DT_HO_NEWTON_MAX_INCREMENTS,
           ctx, DT_ERR_INPUT, "%s: steps[0].increments: %d; an order-P run takes 1..%d", r->job,
           m->steps[0].n_increments, DT_HO_NEWTON_MAX_INCREMENTS);
  for (int i = 0; i < m->steps[0].n_bc; i++) {
    const dt_bc *bc = &m->steps[0].bc[i];
    DT_CHECK(!bc->velocity && !bc->hold && !(bc->dofs & DT_DOF_ROT), ctx, DT_ERR_INPUT,
             "%s: steps[0].boundary[%d]: an order-P mesh takes displacements x, y, z", r->job, i);
  }
cleanup:
  return rc;
}

/* The physical group called name, which the job names at path as a what. */
static dt_status group(const ho_run *r, const char *name, const char *path, const char *what,
                       const dt_ho_gmsh_group **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  *out = dt_ho_gmsh_group_find(&r->G, name);
  DT_CHECK(*out != NULL, ctx, DT_ERR_INPUT,
           "%s: %s: %s \"%s\" is no physical group of the order-P mesh", r->job, path, what, name);
cleanup:
  return rc;
}

/* Fixed DOFs and their values at the full load, by the order-P nodes of each node set. */
static dt_status constraints(ho_run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_ho_gmsh_group *g = NULL;

  for (int i = 0; i < r->step->n_bc; i++) {
    const dt_bc *bc = &r->step->bc[i];
    DT_TRY(group(r, r->model->nsets[bc->nset].name, "steps[0].boundary", "node set", &g, ctx));
    for (int k = 0; k < g->n_nodes; k++)
      for (int d = 0; d < 3; d++)
        if (bc->dofs & (1u << d)) {
          r->fixed[3 * (size_t)g->nodes[k] + d] = 1;
          r->u_presc[3 * (size_t)g->nodes[k] + d] = bc->value[d];
        }
  }
cleanup:
  return rc;
}

/* t = -p n for a pressure (user = &p), t = the vector for a traction (user = t). */
static void pressure_fn(const double x[3], const double n[3], double t[3], void *user) {
  double p = *(const double *)user;
  (void)x;
  for (int d = 0; d < 3; d++) t[d] = -p * n[d];
}

static void traction_fn(const double x[3], const double n[3], double t[3], void *user) {
  (void)x, (void)n;
  memcpy(t, user, 3 * sizeof(double));
}

static dt_status surface_group(const ho_run *r, const char *name, const dt_ho_gmsh_group **g,
                               dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(group(r, name, "steps[0].loads", "surface", g, ctx));
  DT_CHECK((*g)->dim == 2, ctx, DT_ERR_INPUT,
           "%s: steps[0].loads: surface \"%s\" is a physical group of dimension %d", r->job, name,
           (*g)->dim);
cleanup:
  return rc;
}

/* Every node set and surface the step names is a physical group of the right dimension. */
static dt_status check_groups(const ho_run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_ho_gmsh_group *g = NULL;
  for (int i = 0; i < r->step->n_bc; i++)
    DT_TRY(group(r, r->model->nsets[r->step->bc[i].nset].name, "steps[0].boundary", "node set", &g,
                 ctx));
  for (int i = 0; i < r->step->n_pressure; i++)
    DT_TRY(surface_group(r, r->model->surfaces[r->step->pressure[i].surface].name, &g, ctx));
  for (int i = 0; i < r->step->n_traction; i++)
    DT_TRY(surface_group(r, r->model->surfaces[r->step->traction[i].surface].name, &g, ctx));
cleanup:
  return rc;
}

static dt_status surface_load(ho_run *r, int surface, dt_ho_traction_fn fn, void *user,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_ho_gmsh_group *g = NULL;
  const char *name = r->model->surfaces[surface].name;

  DT_TRY(surface_group(r, name, &g, ctx));
  DT_TRY(dt_ho_elastic_traction_load(&r->el, &r->m, g->n_faces, g->face_elem, g->face, fn, user,
                                     r->f, ctx));
cleanup:
  return rc;
}

static dt_status loads(ho_run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int i = 0; i < r->step->n_pressure; i++) {
    double p = r->step->pressure[i].p;
    DT_TRY(surface_load(r, r->step->pressure[i].surface, pressure_fn, &p, ctx));
  }
  for (int i = 0; i < r->step->n_traction; i++) {
    double t[3];
    memcpy(t, r->step->traction[i].t, sizeof t);
    DT_TRY(surface_load(r, r->step->traction[i].surface, traction_fn, t, ctx));
  }
cleanup:
  return rc;
}

/* Operators, state and the problem's arrays on the order-P mesh. */
static dt_status setup(ho_run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t n = 3 * (size_t)r->m.n_nodes;
  const dt_material_params *p = &r->model->materials[0].p;
  double t0 = dt_seconds();

  DT_ALLOC(r->lam, r->m.n_elems, ctx, "Lame parameters");
  DT_ALLOC(r->mu, r->m.n_elems, ctx, "Lame parameters");
  DT_ALLOC(r->elem_mat, r->m.n_elems, ctx, "element materials");
  for (int e = 0; e < r->m.n_elems; e++) dt_ho_lame(p->E, p->nu, &r->lam[e], &r->mu[e]);
  DT_TRY(dt_ho_elastic_setup(&r->m, 0, r->lam, r->mu, &r->el, ctx));
  DT_TRY(dt_ho_plastic_setup(&r->el, 1, p, r->elem_mat, &r->pl, ctx));
  DT_ALLOC(r->fixed, n, ctx, "fixed DOFs");
  DT_ALLOC(r->u, n, ctx, "displacements");
  DT_ALLOC(r->u_presc, n, ctx, "prescribed displacements");
  DT_ALLOC(r->f, n, ctx, "external forces");
  DT_ALLOC(r->fint, n, ctx, "internal forces");
  DT_TRY(constraints(r, ctx));
  DT_TRY(loads(r, ctx));
  r->seconds_ops = dt_seconds() - t0;
cleanup:
  return rc;
}

/* The solver's progress: a converged increment's files and checkpoint first, so that what
 * the caller hears of has been kept; a failed write stops the run (r->failed says why). */
static int on_progress(const dt_ho_progress *ev, void *user) {
  ho_run *r = user;
  if (ev->kind == DT_HO_INCREMENT_DONE) {
    r->failed = ho_output_increment(r, ev, &r->failed_ctx);
    if (r->failed == DT_OK && r->o->checkpoint) r->failed = ho_job_save(r, ev->u, &r->failed_ctx);
    if (r->failed != DT_OK) return 1;
  }
  return r->o->progress ? r->o->progress(ev, r->o->user) : 0;
}

/* One line of where the set-up before the first Newton iteration went (the GPU's own set-up
 * follows in the solve's line). */
static void log_setup(const ho_run *r, FILE *log) {
  const dt_ho_pmg *g = &r->pmg;
  if (!log) return;
  fprintf(log, "set-up: job and corner mesh %.2f s, order-P mesh %.2f s, operators %.2f s",
          r->seconds_job, r->seconds_mesh, r->seconds_ops);
  if (r->have_pmg)
    fprintf(log,
            ", p-multigrid %.2f s (levels %.2f, smoothers %.2f, order-1 matrix %.2f, AMG %.2f)",
            g->seconds_setup, g->seconds_levels, g->seconds_smoothers, g->seconds_matrix,
            g->seconds_amg);
  fputc('\n', log);
}

static dt_status solve(ho_run *r, const dt_ho_job_options *o, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_solver_options *s = &r->model->solver;
  dt_ho_newton_problem pb = {r->fixed, r->u_presc, r->f};
  dt_ho_newton_opts no = {.n_increments = r->step->n_increments,
                          .max_iter = s->newton_max_iter,
                          .rtol = s->newton_rtol,
                          .dtol = s->newton_dtol,
                          .pcg_rtol = s->pcg_rtol,
                          .pcg_max_it = s->pcg_max_iter,
                          .log = o->log,
                          .progress = on_progress,
                          .progress_user = r,
                          .first_increment = r->kept,
                          .gpu = o->gpu,
                          .gpu_device = o->gpu_device,
                          .sync_state = o->gpu}; /* files and checkpoints read the host state */
  dt_ho_pmg_opts po;

  if (r->kept == r->step->n_increments) return DT_OK; /* the checkpoint of the last increment */

  if (r->m.order >= 2) {
    /* every correction gives the p-multigrid its tangent first (ho_plastic_ops.c, on the host
     * or the device), so the finest smoother is left to it */
    dt_ho_pmg_opts_default(&po);
    po.fine_later = 1;
    DT_TRY(dt_ho_pmg_setup(&r->m, &r->el, dt_ho_plastic_tangent_apply_fn, &r->pl, NULL, r->fixed,
                           &po, &r->pmg, ctx));
    r->have_pmg = 1;
    no.pmg = &r->pmg;
  }
  log_setup(r, o->log);
  rc = dt_ho_plastic_solve(&r->pl, &pb, &no, r->u, &r->rep, ctx);
  if (rc == DT_ERR_CANCELLED && r->failed != DT_OK) { /* a write stopped it, not the caller */
    *ctx = r->failed_ctx;
    rc = r->failed;
  }
cleanup:
  return rc;
}

static json_t *vec3(const double *v) { return json_pack("[f, f, f]", v[0], v[1], v[2]); }

/* {name: {"n_nodes", "RF", "U_mean"}} over the physical groups. */
static json_t *node_sets(const ho_run *r) {
  json_t *all = json_object();
  for (int i = 0; all && i < r->G.n; i++) {
    const dt_ho_gmsh_group *g = &r->G.group[i];
    double rf[3] = {0, 0, 0}, um[3] = {0, 0, 0};
    for (int k = 0; k < g->n_nodes; k++)
      for (int d = 0; d < 3; d++) {
        size_t j = 3 * (size_t)g->nodes[k] + d;
        rf[d] += r->fint[j] - r->f[j]; /* f_ext at the full load: the step has ended */
        um[d] += r->u[j] / g->n_nodes;
      }
    json_object_set_new(
        all, g->name,
        json_pack("{s:i, s:o, s:o}", "n_nodes", g->n_nodes, "RF", vec3(rf), "U_mean", vec3(um)));
  }
  return all;
}

/* The converged increments as the hex8 path's summary.json lists them (the rows it can fill). */
static json_t *increment_rows(const ho_run *r) {
  json_t *a = json_array();
  for (int k = 0; a && k < r->rep.increments; k++)
    json_array_append_new(a, json_pack("{s:i, s:i, s:f, s:i, s:I}", "step", 1, "increment", k + 1,
                                       "load_factor", (double)(k + 1) / r->step->n_increments,
                                       "newton_iterations", r->rep.newton[k], "plastic_points",
                                       (json_int_t)r->rep.n_plastic[k]));
  return a;
}

/* The keys every summary.json has (io/output_summary.c), then the order-P run's. */
static json_t *summary_json(ho_run *r, const dt_ho_job_result *res, const double umin[3],
                            const double umax[3]) {
  char msg[256];
  json_t *j = NULL;
  snprintf(msg, sizeof msg,
           "completed: order %d, %d increments, %d Newton iterations, %d PCG iterations",
           res->order, res->increments, res->newton_iterations, res->pcg_iterations);
  j = json_pack("{s:i, s:s, s:b, s:s, s:s, s:s, s:i, s:o, s:i}", "format_version",
                DT_OUTPUT_FORMAT_VERSION, "title", r->model->title, "completed", 1, "reason",
                dt_reason_name(DT_CONVERGED), "message", msg, "backend",
                r->o && r->o->gpu ? "cuda" : "cpu", "steps_completed", 1, "increments",
                increment_rows(r), "n_increments", res->increments);
  if (j && (json_object_update_new(
                j, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:f, s:o, s:o, s:f, s:o}",
                             "order", res->order, "file_order", res->file_order, "elements",
                             res->n_elems, "nodes", res->n_nodes, "newton_iterations",
                             res->newton_iterations, "pcg_iterations", res->pcg_iterations,
                             "plastic_points", (json_int_t)res->plastic_points, "max_u", res->max_u,
                             "u_min", vec3(umin), "u_max", vec3(umax), "max_peeq", res->max_peeq,
                             "node_sets", node_sets(r))) != 0 ||
            json_object_set_new(j, "files", ho_output_files(r)) != 0)) {
    json_decref(j);
    j = NULL;
  }
  return j;
}

static dt_status summary(ho_run *r, const dt_ho_job_options *o, dt_ho_job_result *res,
                         dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4096];
  double umin[3] = {INFINITY, INFINITY, INFINITY}, umax[3] = {-INFINITY, -INFINITY, -INFINITY};
  json_t *j = NULL;
  dt_ho_plastic_report prep;

  DT_TRY(dt_ho_plastic_residual(&r->pl, r->u, r->fint, &prep, ctx));
  res->max_u = res->max_peeq = 0.0;
  for (int n = 0; n < r->m.n_nodes; n++) {
    const double *u = r->u + 3 * (size_t)n;
    for (int d = 0; d < 3; d++) umin[d] = fmin(umin[d], u[d]), umax[d] = fmax(umax[d], u[d]);
    res->max_u = fmax(res->max_u, sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
  }
  for (int e = 0; e < r->m.n_elems; e++)
    for (int q = 0; q < r->pl.nq3; q++)
      res->max_peeq = fmax(res->max_peeq, dt_ho_plastic_peeq(&r->pl, e, q));
  res->plastic_points = prep.n_plastic;
  j = summary_json(r, res, umin, umax);
  DT_CHECK(j != NULL, ctx, DT_ERR_NOMEM,
           "cannot build summary.json (out of memory, or a title or group name not UTF-8)");
  DT_CHECK(mkdir(o->outdir, 0755) == 0 || errno == EEXIST, ctx, DT_ERR_IO,
           "cannot create the output folder %s: %s", o->outdir, strerror(errno));
  snprintf(path, sizeof path, "%s/summary.json", o->outdir);
  DT_CHECK(json_dump_file(j, path, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) == 0, ctx, DT_ERR_IO,
           "cannot write %s", path);
cleanup:
  json_decref(j);
  return rc;
}

/* What both entry points do before the operators: the keys, the job parsed on the corner mesh
 * and held to the subset, the order-P mesh at `order` and the groups the step names. */
static dt_status prepare(ho_run *r, const char *msh_path, const char *job_path, int order,
                         dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double t0 = dt_seconds();
  r->job = job_path;
  DT_TRY(ho_job_check_keys(job_path, ctx));
  DT_TRY(dt_gmsh_read_corners(msh_path, NULL, &r->model, ctx));
  DT_TRY(dt_parse_job_file_with_mesh(job_path, r->model, ctx));
  DT_TRY(check_model(r, ctx));
  r->step = &r->model->steps[0];
  r->seconds_job = dt_seconds() - t0;
  t0 = dt_seconds();
  DT_TRY(dt_ho_mesh_read_gmsh(msh_path, order, &r->m, &r->G, ctx));
  DT_TRY(check_groups(r, ctx));
  ho_job_hash(r);
  r->seconds_mesh = dt_seconds() - t0;
cleanup:
  return rc;
}

dt_status dt_ho_job_check(const char *msh_path, const char *job_path, dt_ho_job_info *info,
                          dt_ctx *ctx) {
  dt_status rc = DT_OK;
  ho_run r;

  memset(&r, 0, sizeof r);
  DT_TRY(prepare(&r, msh_path, job_path, 0, ctx));
  if (info) {
    memset(info, 0, sizeof *info);
    info->order = r.m.order, info->n_elems = r.m.n_elems, info->n_nodes = r.m.n_nodes;
    info->n_increments = r.step->n_increments;
    snprintf(info->title, sizeof info->title, "%s", r.model->title);
    snprintf(info->step_name, sizeof info->step_name, "%s", r.step->name);
    info->est_bytes = dt_ho_job_estimate_bytes(r.m.order, r.m.n_elems, r.m.n_nodes);
    info->hash = r.hash;
    info->output_vtu = r.model->output.vtu;
    info->output_every = r.model->output.every > 0 ? r.model->output.every : 1;
  }
cleanup:
  run_free(&r);
  return rc;
}

dt_status dt_ho_job_run(const char *msh_path, const char *job_path, const dt_ho_job_options *o,
                        dt_ho_job_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  ho_run r;
  dt_ho_job_result local;
  double t0 = 0.0;

  memset(&r, 0, sizeof r);
  if (!res) res = &local;
  memset(res, 0, sizeof *res);
  DT_TRY(prepare(&r, msh_path, job_path, o->order, ctx));
  t0 = dt_seconds();
  DT_TRY(dt_ho_gmsh_file_order(msh_path, &res->file_order, ctx));
  r.seconds_mesh += dt_seconds() - t0;
  res->order = r.m.order, res->n_elems = r.m.n_elems, res->n_nodes = r.m.n_nodes;
  if (o->log)
    fprintf(o->log, "order-P mesh: order %d (file %d), %d hexahedra, %d nodes, %d DOFs\n",
            r.m.order, res->file_order, r.m.n_elems, r.m.n_nodes, 3 * r.m.n_nodes);
  DT_TRY(setup(&r, ctx));
  r.o = o;
  if (o->checkpoint && o->resume && access(o->checkpoint, F_OK) == 0) {
    rc = ho_job_restore(&r, ctx);
    res->checkpoint_unusable = rc != DT_OK;
    if (rc != DT_OK) goto cleanup;
    res->kept = r.kept;
  }
  DT_TRY(ho_output_open(&r, ctx));
  rc = solve(&r, o, ctx);
  /* what converged, also when the run stopped (cancelled, not converged) */
  res->increments = r.rep.increments;
  res->newton_iterations = r.rep.newton_total, res->pcg_iterations = r.rep.pcg_total;
  res->reason = r.rep.reason;
  if (rc != DT_OK) goto cleanup;
  DT_TRY(summary(&r, o, res, ctx));
cleanup:
  run_free(&r);
  return rc;
}

dt_status dt_ho_gmsh_file_order(const char *path, int *order, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  gm g;

  *order = 0;
  memset(&g, 0, sizeof g);
  DT_TRY(gm_read_file(&g, path, NULL, ctx));
  for (int e = 0; e < g.n_elems; e++)
    if (g.elem_dim[e] == 3 && gm_hex_order(g.elem_type[e]) > *order)
      *order = gm_hex_order(g.elem_type[e]);
cleanup:
  gm_free(&g);
  return rc;
}
