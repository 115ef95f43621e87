/* The compound backend of runs split over several devices (parts.h). */
#include "parts.h"

#include <stdlib.h>
#include <string.h>

#include "amg/amg_parts.h"
#include "core/clock.h"
#include "partition/partition_exchange.h"
#include "parts_internal.h"

#define IN(p) ((p)->in)
#define PART_OPS(p) ((p)->in->parts)

static dt_status activate(dt_parts *p, int s, dt_ctx *ctx) {
  return PART_OPS(p)->activate ? PART_OPS(p)->activate(p->s[s].impl, ctx) : DT_OK;
}

/* The first failed part's error into ctx (parts run in parallel each record into their own
 * context); DT_OK when none failed. */
static dt_status first_error(dt_parts *p, const dt_status *st, dt_ctx *ctx) {
  for (int s = 0; s < p->n; s++)
    if (st[s] != DT_OK) {
      if (ctx && ctx->code == DT_OK) *ctx = p->s[s].ctx;
      return st[s];
    }
  return DT_OK;
}

/* The operations a part runs where its device waits (a dot, a stress update, a setup): one host
 * thread per part for a device backend, so the devices work at once. */
typedef enum part_call {
  CALL_DOT,
  CALL_STRESS,
  CALL_TANGENT,
  CALL_PC_BLOCKS,
  CALL_PC_INVERT,
  CALL_PC_AMG,
  CALL_COMMIT,
  CALL_ROLLBACK
} part_call;

typedef struct call_args {
  dt_vec_id x, y;
  int kind; /* CALL_PC_AMG's */
  double dot[DT_MAX_RUN_DEVICES];
  dt_stress_report rep[DT_MAX_RUN_DEVICES];
  double *blocks[DT_MAX_RUN_DEVICES];
} call_args;

static dt_status call_one(dt_parts *p, int s, part_call what, call_args *a) {
  dt_parts_slot *sl = &p->s[s];
  dt_ctx *ctx = &sl->ctx;
  void *im = sl->impl;
  dt_status rc = activate(p, s, ctx);
  if (rc != DT_OK) return rc;
  switch (what) {
  case CALL_DOT: return PART_OPS(p)->vec_dot_n(im, a->x, a->y, sl->owned_dofs, &a->dot[s], ctx);
  case CALL_STRESS: return IN(p)->stress_update(im, a->x, a->y, &a->rep[s], ctx);
  case CALL_TANGENT: return IN(p)->tangent_assemble(im, ctx);
  case CALL_PC_BLOCKS: return PART_OPS(p)->pc_blocks(im, &a->blocks[s], ctx);
  case CALL_PC_INVERT: return PART_OPS(p)->pc_blocks_invert(im, ctx);
  case CALL_PC_AMG: return PART_OPS(p)->pc_amg_local(im, a->kind, ctx);
  case CALL_COMMIT: return IN(p)->state_commit(im, ctx);
  case CALL_ROLLBACK: return IN(p)->state_rollback(im, ctx);
  }
  return DT_ERROR(ctx, DT_ERR_INTERNAL, "unknown part call %d", (int)what);
}

static dt_status call_all(dt_parts *p, part_call what, call_args *a, dt_ctx *ctx) {
  dt_status st[DT_MAX_RUN_DEVICES];
  for (int s = 0; s < p->n; s++) dt_ctx_reset(&p->s[s].ctx);
#pragma omp parallel for schedule(static, 1) num_threads(p->n) if (p->parallel && p->n > 1)
  for (int s = 0; s < p->n; s++) st[s] = call_one(p, s, what, a);
  return first_error(p, st, ctx);
}

/* Complete a vector the parts summed element by element (or the diagonal blocks, ncomp = dpn^2):
 * owners add their ghosts' values, ghosts take the totals. */
static dt_status sum_shared(dt_parts *p, double *const *data, int ncomp, dt_ctx *ctx) {
  if (p->n == 1) return DT_OK;
  return dt_halo_exchange(p->L, p->n, data, ncomp, DT_HALO_SUM, p->halo, p->halo_user, ctx);
}

static dt_status sum_vector(dt_parts *p, dt_vec_id v, dt_ctx *ctx) {
  double *data[DT_MAX_RUN_DEVICES];
  for (int s = 0; s < p->n; s++) data[s] = PART_OPS(p)->vec_data(p->s[s].impl, v);
  return sum_shared(p, data, p->dpn, ctx);
}

static void parts_destroy(void *impl) {
  dt_parts *p = impl;
  if (!p) return;
  if (p->halo_user && PART_OPS(p)->halo_destroy) PART_OPS(p)->halo_destroy(p->halo_user);
  dt_amg_parts_destroy(&p->amg);
  for (int s = 0; p->s && s < p->n; s++) {
    if (p->s[s].impl) {
      dt_ctx ignore = {0};
      activate(p, s, &ignore);
      IN(p)->destroy(p->s[s].impl);
    }
    dt_free(p->s[s].qp_ptr);
    dt_free(p->s[s].host);
    dt_free(p->s[s].f_stress);
    dt_free(p->s[s].f_strain);
    dt_free(p->s[s].f_peeq);
  }
  for (int s = 0; p->L && s < p->n; s++) dt_part_local_free(&p->L[s]);
  dt_free(p->L);
  dt_free(p->s);
  dt_free(p->qp_ptr);
  dt_free(p);
}

/* Partition the model's elements into n parts weighted by their integration points, and build
 * each part's local view. */
static dt_status make_parts(dt_parts *p, const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *part = NULL, *weight = NULL;
  dt_partition_options po;
  dt_partition_report rep;
  memset(&rep, 0, sizeof rep);
  dt_partition_options_default(&po);
  DT_ALLOC(part, p->n_elems, ctx, "element parts");
  DT_ALLOC(weight, p->n_elems, ctx, "element weights");
  DT_TRY(dt_partition_elem_points(m, weight, ctx));
  po.elem_weight = weight;
  DT_TRY(dt_partition_elements(m, p->n, &po, part, &rep, ctx));
  DT_CHECK(rep.empty_parts == 0, ctx, DT_ERR_INPUT,
           "the mesh (%d elements) gives %d of its %d parts no element: run it on fewer devices",
           p->n_elems, rep.empty_parts, p->n);
  p->edgecut = rep.edgecut;
  p->interface_nodes = rep.interface_nodes;
  p->imbalance = rep.imbalance;
  DT_ALLOC(p->L, p->n, ctx, "part views");
  DT_TRY(dt_part_local_build(m, p->n, part, p->L, ctx));
cleanup:
  dt_partition_report_free(&rep);
  dt_free(part);
  dt_free(weight);
  return rc;
}

static dt_status upload_part(dt_parts *p, const dt_problem *gp, const dt_backend_options *opt,
                             int s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_problem *sub = NULL;
  double *x = NULL;
  unsigned char *type = NULL;
  dt_parts_slot *sl = &p->s[s];
  dt_backend_options o = *opt;
  o.n_devices = 0;
  o.inner = NULL;
  o.model = NULL;
  o.device = opt->devices[s];
  sl->device = opt->devices[s];
  double t0 = dt_seconds();
  DT_TRY(dt_parts_subproblem(gp, &p->L[s], &sub, &x, &type, ctx));
  p->seconds_build += dt_seconds() - t0;
  t0 = dt_seconds();
  sl->n_dofs = sub->n_dofs;
  sl->owned_dofs = p->L[s].n_owned * p->dpn;
  sl->n_qp = sub->n_qp;
  DT_ALLOC(sl->qp_ptr, sub->n_elems + 1, ctx, "part point offsets");
  memcpy(sl->qp_ptr, sub->qp_ptr, sizeof(int) * (size_t)(sub->n_elems + 1));
  DT_ALLOC(sl->host, sub->n_dofs, ctx, "part host vector");
  DT_TRY(IN(p)->problem_upload(sub, &o, &sl->impl, ctx));
  p->seconds_upload += dt_seconds() - t0;
cleanup:
  dt_problem_destroy(&sub);
  dt_free(x);
  dt_free(type);
  return rc;
}

static dt_status parts_upload(const dt_problem *pb, const dt_backend_options *opt, void **impl,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = NULL;
  const dt_backend_ops *in = opt->inner;
  void *impls[DT_MAX_RUN_DEVICES];
  double t0;
  *impl = NULL;
  DT_CHECK(in != NULL && opt->model != NULL, ctx, DT_ERR_INTERNAL,
           "a split run needs its inner backend and model");
  DT_CHECK(in->parts != NULL, ctx, DT_ERR_UNSUPPORTED,
           "backend %s cannot run as parts of a split run", in->name);
  DT_CHECK(opt->n_devices >= 1 && opt->n_devices <= DT_MAX_RUN_DEVICES, ctx, DT_ERR_INPUT,
           "a split run takes 1 to %d devices, not %d", DT_MAX_RUN_DEVICES, opt->n_devices);
  DT_ALLOC(p, 1, ctx, "split run");
  p->in = in;
  p->n = opt->n_devices;
  p->dpn = pb->dpn;
  p->n_nodes = pb->n_nodes;
  p->n_dofs = pb->n_dofs;
  p->n_elems = pb->n_elems;
  p->n_qp = pb->n_qp;
  p->parallel = !in->host;
  p->matrix_free = pb->matrix_free;
  DT_ALLOC(p->qp_ptr, pb->n_elems + 1, ctx, "point offsets");
  memcpy(p->qp_ptr, pb->qp_ptr, sizeof(int) * (size_t)(pb->n_elems + 1));
  DT_ALLOC(p->s, p->n, ctx, "parts");
  t0 = dt_seconds();
  DT_TRY(make_parts(p, opt->model, ctx));
  p->seconds_partition = dt_seconds() - t0;
  for (int s = 0; s < p->n; s++) DT_TRY(upload_part(p, pb, opt, s, ctx));
  for (int s = 0; s < p->n; s++) impls[s] = p->s[s].impl;
  if (p->n > 1)
    DT_TRY(
        PART_OPS(p)->halo_create(impls, p->L, p->n, p->dpn * p->dpn, &p->halo, &p->halo_user, ctx));
  *impl = p;
  p = NULL;
cleanup:
  parts_destroy(p);
  return rc;
}

static dt_status parts_vec_set(void *impl, dt_vec_id v, const double *host, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  for (int s = 0; s < p->n; s++) {
    dt_part_local_gather(&p->L[s], p->dpn, host, p->s[s].host);
    DT_TRY(activate(p, s, ctx));
    DT_TRY(IN(p)->vec_set(p->s[s].impl, v, p->s[s].host, ctx));
  }
cleanup:
  return rc;
}

static dt_status parts_vec_get(void *impl, dt_vec_id v, double *host, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  for (int s = 0; s < p->n; s++) {
    DT_TRY(activate(p, s, ctx));
    DT_TRY(IN(p)->vec_get(p->s[s].impl, v, p->s[s].host, ctx));
    dt_part_local_scatter_owned(&p->L[s], p->dpn, p->s[s].host, host);
  }
cleanup:
  return rc;
}

static dt_status parts_vec_lincomb(void *impl, dt_vec_id out, double a, dt_vec_id x, double b,
                                   dt_vec_id y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  for (int s = 0; s < p->n; s++) {
    DT_TRY(activate(p, s, ctx));
    DT_TRY(IN(p)->vec_lincomb(p->s[s].impl, out, a, x, b, y, ctx));
  }
cleanup:
  return rc;
}

static dt_status parts_vec_mul(void *impl, dt_vec_id out, dt_vec_id x, dt_vec_id y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  for (int s = 0; s < p->n; s++) {
    DT_TRY(activate(p, s, ctx));
    DT_TRY(IN(p)->vec_mul(p->s[s].impl, out, x, y, ctx));
  }
cleanup:
  return rc;
}

static dt_status parts_vec_dot(void *impl, dt_vec_id x, dt_vec_id y, double *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  call_args a = {.x = x, .y = y};
  *out = 0.0;
  DT_TRY(call_all(p, CALL_DOT, &a, ctx));
  for (int s = 0; s < p->n; s++) *out += a.dot[s]; /* in part order: the same sum every run */
cleanup:
  return rc;
}

static dt_status parts_stress_update(void *impl, dt_vec_id u, dt_vec_id fint, dt_stress_report *rep,
                                     dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  call_args a = {.x = u, .y = fint};
  memset(rep, 0, sizeof *rep);
  rep->first_failed_elem = -1;
  DT_TRY(call_all(p, CALL_STRESS, &a, ctx));
  for (int s = 0; s < p->n; s++) {
    const dt_stress_report *r = &a.rep[s];
    rep->n_plastic += r->n_plastic;
    rep->n_failed += r->n_failed;
    if (r->first_failed_elem >= 0) {
      int g = p->L[s].elems[r->first_failed_elem];
      if (rep->first_failed_elem < 0 || g < rep->first_failed_elem) rep->first_failed_elem = g;
    }
  }
  DT_TRY(sum_vector(p, fint, ctx));
cleanup:
  return rc;
}

static dt_status parts_tangent_assemble(void *impl, dt_ctx *ctx) {
  dt_parts *p = impl;
  p->tangent_serial++;
  return call_all(p, CALL_TANGENT, &(call_args){0}, ctx);
}

static dt_status parts_operator_apply(void *impl, dt_vec_id x, dt_vec_id y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  for (int s = 0; s < p->n; s++) { /* launches: the devices run together */
    DT_TRY(activate(p, s, ctx));
    DT_TRY(IN(p)->operator_apply(p->s[s].impl, x, y, ctx));
  }
  DT_TRY(sum_vector(p, y, ctx));
cleanup:
  return rc;
}

/* One AMG across the parts (amg_parts.h) on the parts' tangents in host memory: refreshed while
 * the constrained DOFs stay (level 0 only with DT_PC_KEEP_COARSE), built anew otherwise and on
 * a second setup of the same tangent, as on one device (backend.h, pc_setup). */
static dt_status amg_across(dt_parts *p, int kind, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_amg_part_input in[DT_MAX_RUN_DEVICES];
  double *val[DT_MAX_RUN_DEVICES];
  const double *con[DT_MAX_RUN_DEVICES];
  dt_amg_options opt;
  for (int s = 0; s < p->n; s++) {
    dt_host_tangent t;
    DT_TRY(PART_OPS(p)->host_tangent(p->s[s].impl, &t, ctx));
    in[s] = (dt_amg_part_input){&p->L[s], t.x, t.con, t.row_ptr, t.col, t.val};
    val[s] = t.val;
    con[s] = t.con;
  }
  if (p->amg && p->amg_serial != p->tangent_serial &&
      !dt_amg_parts_constraints_changed(p->amg, con)) {
    DT_TRY(dt_amg_parts_refresh(p->amg, val, (kind & DT_PC_KEEP_COARSE) != 0, ctx));
  } else {
    dt_amg_parts_destroy(&p->amg);
    dt_amg_options_default(&opt);
    DT_TRY(dt_amg_parts_create(p->n, p->dpn, in, &opt, &p->amg, ctx));
  }
  p->amg_serial = p->tangent_serial;
cleanup:
  if (rc != DT_OK) dt_amg_parts_destroy(&p->amg);
  return rc;
}

/* Every part's diagonal blocks (a->blocks), summed over the parts at the shared nodes. */
static dt_status summed_blocks(dt_parts *p, call_args *a, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(call_all(p, CALL_PC_BLOCKS, a, ctx));
  DT_TRY(sum_shared(p, a->blocks, p->dpn * p->dpn, ctx));
cleanup:
  return rc;
}

/* Block Jacobi: each part's diagonal blocks, summed over the parts at shared nodes, inverted.
 * AMG: on host parts one hierarchy across the parts (amg_across, above); on device parts
 * additive Schwarz over the parts, one hierarchy per part built by its own backend
 * (pc_amg_local) on its local tangent (its elements on all its nodes, ghosts included) with
 * every node's diagonal block the summed one, from the same exchange as block Jacobi's; the part's
 * backend keeps and refreshes it across tangents as on one device (DT_PC_KEEP_COARSE passed on).
 *
 * Two choices, measured on the CPU (docs/multi-gpu.md, PCG iterations):
 * - the summed diagonal blocks: without them a part's matrix is its Neumann matrix, singular
 *   for a part without a Dirichlet boundary (METIS's lowest part, owning its whole interface,
 *   often is one), and PCG needed 0.9-3.2 times block Jacobi's iterations on the unit test's
 *   bar (2308-6231 against 1956-2651); with them, 2.4-4.2 times fewer than block Jacobi;
 * - the ghosts in the local solves, their sum reaching the owners (the parts overlap on the
 *   interface nodes), rather than the ghosts constrained and their values dropped (the parts'
 *   owned nodes not overlapping): 470-1103 against 610-1298 on the bar in 2-4 parts, 349
 *   against 423 on the 30^3 cube in 2 parts, 620 against 615 on the 38^3 cube in 4. */
static dt_status parts_pc_setup(void *impl, int kind, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  call_args a = {.kind = kind};
  int base = kind & ~DT_PC_KEEP_COARSE; /* an AMG request only */
  DT_CHECK(base == DT_PC_BLOCK_JACOBI || (base == DT_PC_AMG && PART_OPS(p)->pc_amg_local), ctx,
           DT_ERR_UNSUPPORTED,
           "the %s preconditioner does not run on several devices yet: split runs take "
           "block_jacobi%s (two_level, jacobi and direct are not split)",
           dt_precond_names[base], PART_OPS(p)->pc_amg_local ? " or amg" : "");
  DT_CHECK(
      base != DT_PC_AMG || !p->matrix_free, ctx, DT_ERR_UNSUPPORTED,
      "linear.preconditioner \"amg\" needs the assembled tangent (linear.operator \"assembled\")");
  p->pc_amg = 0;
  if (base == DT_PC_AMG && PART_OPS(p)->host_tangent) {
    rc = amg_across(p, kind, ctx);
    if (rc == DT_OK) {
      p->pc_amg = 2;
      goto cleanup;
    }
    /* Every part falls back to block Jacobi of this tangent (a later setup tries again); the
     * AMG's error is the one reported. The diagonal blocks are taken only here: the hierarchy
     * across the parts does not use them. */
    dt_ctx ignore = {0};
    if (summed_blocks(p, &a, &ignore) == DT_OK) (void)call_all(p, CALL_PC_INVERT, &a, &ignore);
    goto cleanup;
  }
  DT_TRY(summed_blocks(p, &a, ctx));
  if (base == DT_PC_AMG) {
    rc = call_all(p, CALL_PC_AMG, &a, ctx);
    if (rc == DT_OK) {
      p->pc_amg = 1;
      goto cleanup;
    }
    /* The parts' kinds may now differ and the summed blocks took block Jacobi's storage: every
     * part falls back to block Jacobi of this tangent (a later setup tries again); the AMG's
     * error is the one reported. */
    (void)call_all(p, CALL_PC_INVERT, &a, NULL);
    goto cleanup;
  }
  DT_TRY(call_all(p, CALL_PC_INVERT, &a, ctx));
cleanup:
  return rc;
}

/* Block Jacobi: every part applies the same summed block at a shared node, so z is consistent
 * as it comes. AMG: every part's V-cycle on its (consistent) r, then a sum exchange: the owners
 * add their ghosts' values and the ghosts take the totals, so z = sum over the parts of
 * E_s B_s E_s^T r, E_s the extension by zero of part s's local DOFs and B_s its V-cycle. Each
 * B_s is symmetric positive definite (a V-cycle with the same smoothing before and after the
 * coarse correction, amg.h, on a positive definite matrix) and the same linear operator at every
 * call, and the parts cover every DOF, so M^-1 is symmetric positive definite too and PCG stays
 * PCG. */
static dt_status parts_pc_apply(void *impl, dt_vec_id r, dt_vec_id z, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  if (p->pc_amg == 2) { /* one V-cycle across the parts: z comes out consistent */
    double *rv[DT_MAX_RUN_DEVICES], *zv[DT_MAX_RUN_DEVICES];
    for (int s = 0; s < p->n; s++)
      rv[s] = PART_OPS(p)->vec_data(p->s[s].impl, r),
      zv[s] = PART_OPS(p)->vec_data(p->s[s].impl, z);
    return dt_amg_parts_apply(p->amg, (const double *const *)rv, zv, ctx);
  }
  for (int s = 0; s < p->n; s++) { /* launches on a device backend: the devices run together */
    DT_TRY(activate(p, s, ctx));
    DT_TRY(IN(p)->pc_apply(p->s[s].impl, r, z, ctx));
  }
  if (p->pc_amg == 1) DT_TRY(sum_vector(p, z, ctx));
cleanup:
  return rc;
}

static dt_status parts_materials_set(void *impl, const int *elem_mat, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  int *local = NULL;
  DT_CHECK(IN(p)->materials_set != NULL, ctx, DT_ERR_UNSUPPORTED,
           "backend %s cannot change element materials", IN(p)->name);
  for (int s = 0; s < p->n; s++) {
    const dt_part_local *l = &p->L[s];
    DT_ALLOC(local, l->n_elems, ctx, "part element materials");
    for (int e = 0; e < l->n_elems; e++) local[e] = elem_mat[l->elems[e]];
    DT_TRY(activate(p, s, ctx));
    DT_TRY(IN(p)->materials_set(p->s[s].impl, local, ctx));
    DT_FREE(local);
  }
cleanup:
  dt_free(local);
  return rc;
}

static dt_status parts_state_commit(void *impl, dt_ctx *ctx) {
  return call_all(impl, CALL_COMMIT, &(call_args){0}, ctx);
}

static dt_status parts_state_rollback(void *impl, dt_ctx *ctx) {
  return call_all(impl, CALL_ROLLBACK, &(call_args){0}, ctx);
}

/* Copy per-point data of part s between its local layout and the global one: ncomp values per
 * point, point-major (stride 1, fields) or component-major (stride = point count, state). */
static void map_points(const dt_parts *p, int s, int ncomp, int point_major, const double *from,
                       double *to, int to_global) {
  const dt_part_local *l = &p->L[s];
  const dt_parts_slot *sl = &p->s[s];
  for (int e = 0; e < l->n_elems; e++) {
    int g = l->elems[e], n = sl->qp_ptr[e + 1] - sl->qp_ptr[e];
    size_t lq = (size_t)sl->qp_ptr[e], gq = (size_t)p->qp_ptr[g];
    if (point_major) {
      size_t lo = lq * ncomp, go = gq * ncomp, len = sizeof(double) * (size_t)n * ncomp;
      if (to_global)
        memcpy(to + go, from + lo, len);
      else
        memcpy(to + lo, from + go, len);
    } else {
      for (int c = 0; c < ncomp; c++) {
        size_t lo = (size_t)c * sl->n_qp + lq, go = (size_t)c * p->n_qp + gq;
        if (to_global)
          memcpy(to + go, from + lo, sizeof(double) * n);
        else
          memcpy(to + lo, from + go, sizeof(double) * n);
      }
    }
  }
}

/* Part s's point fields into f (what f's non-NULL arrays ask for), through the part's kept
 * buffers. */
static dt_status fields_one(dt_parts *p, int s, unsigned what, dt_fields *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts_slot *sl = &p->s[s];
  dt_fields lf;
  size_t nq = (size_t)sl->n_qp;
  memset(&lf, 0, sizeof lf);
  if (f->qp_stress && !sl->f_stress) DT_ALLOC(sl->f_stress, 6 * nq, ctx, "part stresses");
  if (f->qp_strain && !sl->f_strain) DT_ALLOC(sl->f_strain, 6 * nq, ctx, "part strains");
  if (f->qp_peeq && !sl->f_peeq) DT_ALLOC(sl->f_peeq, nq, ctx, "part plastic strains");
  lf.qp_stress = f->qp_stress ? sl->f_stress : NULL;
  lf.qp_strain = f->qp_strain ? sl->f_strain : NULL;
  lf.qp_peeq = f->qp_peeq ? sl->f_peeq : NULL;
  DT_TRY(activate(p, s, ctx));
  DT_TRY(IN(p)->fields_download(sl->impl, what, &lf, ctx));
  if (f->qp_stress) map_points(p, s, 6, 1, lf.qp_stress, f->qp_stress, 1);
  if (f->qp_strain) map_points(p, s, 6, 1, lf.qp_strain, f->qp_strain, 1);
  if (f->qp_peeq) map_points(p, s, 1, 1, lf.qp_peeq, f->qp_peeq, 1);
cleanup:
  return rc;
}

static dt_status parts_fields_download(void *impl, unsigned what, dt_fields *f, dt_ctx *ctx) {
  dt_parts *p = impl;
  dt_status st[DT_MAX_RUN_DEVICES];
  for (int s = 0; s < p->n; s++) dt_ctx_reset(&p->s[s].ctx);
#pragma omp parallel for schedule(static, 1) num_threads(p->n) if (p->parallel && p->n > 1)
  for (int s = 0; s < p->n; s++) st[s] = fields_one(p, s, what, f, &p->s[s].ctx);
  return first_error(p, st, ctx);
}

static dt_status parts_state_io(dt_parts *p, double *host, int get, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *local = NULL;
  DT_CHECK(IN(p)->state_get && IN(p)->state_set, ctx, DT_ERR_UNSUPPORTED,
           "backend %s cannot write checkpoints", IN(p)->name);
  for (int s = 0; s < p->n; s++) {
    DT_ALLOC(local, (size_t)DT_QP_STATE_DOUBLES * p->s[s].n_qp, ctx, "part point state");
    DT_TRY(activate(p, s, ctx));
    if (get) {
      DT_TRY(IN(p)->state_get(p->s[s].impl, local, ctx));
      map_points(p, s, DT_QP_STATE_DOUBLES, 0, local, host, 1);
    } else {
      map_points(p, s, DT_QP_STATE_DOUBLES, 0, host, local, 0);
      DT_TRY(IN(p)->state_set(p->s[s].impl, local, ctx));
    }
    DT_FREE(local);
  }
cleanup:
  dt_free(local);
  return rc;
}

static dt_status parts_state_get(void *impl, double *host, dt_ctx *ctx) {
  return parts_state_io(impl, host, 1, ctx);
}

static dt_status parts_state_set(void *impl, const double *host, dt_ctx *ctx) {
  return parts_state_io(impl, (double *)host, 0, ctx);
}

/* The parts' measurements as one device's: the device named with the part count, bandwidth
 * summed, the slowest part's product (the parts run it together), the largest part's memory
 * (per device: what must fit each one). */
static dt_status parts_measure(void *impl, dt_backend_measure *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_parts *p = impl;
  dt_backend_measure m;
  memset(out, 0, sizeof *out);
  DT_CHECK(IN(p)->measure != NULL, ctx, DT_ERR_UNSUPPORTED, "backend %s has no measurements",
           IN(p)->name);
  for (int s = 0; s < p->n; s++) {
    DT_TRY(activate(p, s, ctx));
    DT_TRY(IN(p)->measure(p->s[s].impl, &m, ctx));
    if (s == 0) snprintf(out->device, sizeof out->device, "%d x %.100s", p->n, m.device);
    out->copy_bandwidth += m.copy_bandwidth;
    out->spmv_bytes += m.spmv_bytes;
    if (m.spmv_seconds > out->spmv_seconds) out->spmv_seconds = m.spmv_seconds;
    if (m.peak_bytes > out->peak_bytes) out->peak_bytes = m.peak_bytes;
  }
cleanup:
  return rc;
}

static void parts_describe(void *impl, char *buf, size_t len) {
  dt_parts *p = impl;
  char inner[256] = "";
  size_t k;
  int n = snprintf(buf, len, "%d parts on %s device%s ", p->n, IN(p)->name, p->n == 1 ? "" : "s");
  for (int s = 0; s < p->n && n >= 0 && (size_t)n < len; s++)
    n += snprintf(buf + n, len - n, "%s%d", s ? "," : "", p->s[s].device);
  if (n < 0 || (size_t)n >= len) return;
  n += snprintf(buf + n, len - n,
                " (METIS: %d interface nodes, imbalance %.1f %%; setup: partition %.1f s, parts "
                "built %.1f s, uploaded %.1f s)",
                p->interface_nodes, 100.0 * p->imbalance, p->seconds_partition, p->seconds_build,
                p->seconds_upload);
  if (IN(p)->describe && n >= 0 && (size_t)n < len) {
    activate(p, 0, &(dt_ctx){0});
    IN(p)->describe(p->s[0].impl, inner, sizeof inner);
    k = strlen(inner);
    if (k) snprintf(buf + n, len - n, "; each part: %s", inner);
  }
}

static void parts_view(void *impl, FILE *f) {
  dt_parts *p = impl;
  char d[512];
  parts_describe(p, d, sizeof d);
  fprintf(f, "split run: %s\n", d);
  if (p->pc_amg == 2 && p->amg) dt_amg_parts_view(p->amg, f);
  for (int s = 0; s < p->n; s++) {
    const dt_part_local *l = &p->L[s];
    fprintf(f,
            "  part %d on device %d: %d elements (%d at the interface), %d nodes owned, %d ghosts, "
            "%d neighbours\n",
            s, p->s[s].device, l->n_elems, l->n_elems_interface, l->n_owned,
            l->n_nodes - l->n_owned, l->n_peers);
    if (IN(p)->view) {
      activate(p, s, &(dt_ctx){0});
      IN(p)->view(p->s[s].impl, f);
    }
  }
}

const dt_backend_ops dt_parts_ops = {
    .name = "parts",
    .problem_upload = parts_upload,
    .destroy = parts_destroy,
    .vec_set = parts_vec_set,
    .vec_get = parts_vec_get,
    .vec_lincomb = parts_vec_lincomb,
    .vec_mul = parts_vec_mul,
    .vec_dot = parts_vec_dot,
    .stress_update = parts_stress_update,
    .tangent_assemble = parts_tangent_assemble,
    .operator_apply = parts_operator_apply,
    .pc_setup = parts_pc_setup,
    .pc_apply = parts_pc_apply,
    .materials_set = parts_materials_set,
    .state_commit = parts_state_commit,
    .state_rollback = parts_state_rollback,
    .fields_download = parts_fields_download,
    .state_get = parts_state_get,
    .state_set = parts_state_set,
    .measure = parts_measure,
    .view = parts_view,
    .describe = parts_describe,
};
