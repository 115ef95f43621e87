/* The CPU backend: the reference implementation of dt_backend_ops (solver/backend.h).
 *
 * Element loops run colour by colour with OpenMP inside a colour (no two elements of a colour
 * share a node, so scatters do not race and results do not depend on the thread count);
 * vector operations are plain OpenMP loops. This file holds creation, vectors and state;
 * cpu_elements.c the element loops, cpu_linear.c the operator and preconditioners. */
#include <math.h>
#include <string.h>

#include "core/host_arrays.h"
#include "cpu_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define QP_FIELDS (2 * DT_MAT_STATE_DOUBLES + 4 * 6)

static void cpu_destroy(void *impl) {
  dt_cpu *c = impl;
  if (!c) return;
  for (int v = 0; v < DT_VEC_COUNT; v++) dt_free(c->vec[v]);
  dt_free(c->val);
  dt_free(c->pc);
  dt_free(c->coarse_E);
  dt_free(c->coarse_y);
  dt_free(c->coarse_R);
  dt_amg_destroy(&c->amg);
  dt_free(c->amg_val);
  dt_cpu_direct_free(c);
  dt_free(c->hist_c);
  dt_free(c->hist_t);
  dt_free(c->sig_c);
  dt_free(c->sig_t);
  dt_free(c->eps_c);
  dt_free(c->eps_t);
  dt_free(c->elem_plastic);
  dt_free(c->emat_slot);
  dt_free(c->emat);
  dt_free(c->mf_diag);
  dt_free(c->mf_inc);
  dt_cpu_problem_free(&c->pb);
  dt_free(c);
}

/* The point state's arrays: trial[i] and committed[i] hold n[i] doubles each. */
static void state_arrays(dt_cpu *c, double *trial[3], double *committed[3], size_t n[3]) {
  size_t nq = (size_t)c->pb.n_qp;
  trial[0] = c->hist_t, trial[1] = c->sig_t, trial[2] = c->eps_t;
  committed[0] = c->hist_c, committed[1] = c->sig_c, committed[2] = c->eps_c;
  n[0] = nq * DT_MAT_STATE_DOUBLES, n[1] = n[2] = nq * 6;
}

/* Copy the point state, committed <- trial (to_committed) or trial <- committed; with
 * first_touch, zero both instead (at upload: host_arrays.h). */
static void copy_state(dt_cpu *c, int to_committed, int first_touch) {
  double *trial[3], *committed[3];
  size_t n[3];
  state_arrays(c, trial, committed, n);
  for (int i = 0; i < 3; i++) {
    if (first_touch)
      dt_host_fill(trial[i], NULL, n[i]), dt_host_fill(committed[i], NULL, n[i]);
    else if (to_committed)
      dt_host_fill(committed[i], trial[i], n[i]);
    else
      dt_host_fill(trial[i], committed[i], n[i]);
  }
}

static dt_status cpu_upload(const dt_problem *pb, const dt_backend_options *opt, void **impl,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cpu *c = NULL;
  long nq = pb->n_qp;
  DT_ALLOC(c, 1, ctx, "CPU backend");
  DT_TRY(dt_cpu_problem_copy(pb, &c->pb, ctx));
  for (int v = 0; v < DT_VEC_COUNT; v++) DT_ALLOC(c->vec[v], pb->n_dofs, ctx, "solution vectors");
  if (pb->matrix_free) { /* element matrices instead of the assembled values (cpu_matrix_free.c) */
    DT_ALLOC(c->elem_plastic, pb->n_elems, ctx, "element plastic flags");
    DT_ALLOC(c->emat_slot, pb->n_elems, ctx, "element matrix slots");
    DT_ALLOC(c->mf_diag, (size_t)pb->n_dofs * pb->dpn, ctx, "diagonal blocks");
    DT_ALLOC(c->mf_inc, (size_t)pb->elem_ptr[pb->n_elems] * pb->dpn, ctx,
             "element products per incidence");
    c->emat_cap = dt_problem_unclassed(pb);
    DT_ALLOC(c->emat, (size_t)(c->emat_cap ? c->emat_cap : 1) * pb->emat_doubles, ctx,
             "element matrices");
  } else
    DT_ALLOC(c->val, pb->nnz, ctx, "tangent values");
  DT_ALLOC(c->pc, (size_t)pb->n_dofs * pb->dpn, ctx, "preconditioner");
  DT_ALLOC(c->hist_c, nq * DT_MAT_STATE_DOUBLES, ctx, "integration point history");
  DT_ALLOC(c->hist_t, nq * DT_MAT_STATE_DOUBLES, ctx, "integration point history");
  DT_ALLOC(c->sig_c, nq * 6, ctx, "integration point stresses");
  DT_ALLOC(c->sig_t, nq * 6, ctx, "integration point stresses");
  DT_ALLOC(c->eps_c, nq * 6, ctx, "integration point strains");
  DT_ALLOC(c->eps_t, nq * 6, ctx, "integration point strains");
  c->threads = opt ? opt->threads : 0;
#ifdef _OPENMP
  if (c->threads > 0) omp_set_num_threads(c->threads);
#endif
  /* first touch by the threads that use each part (host_arrays.h) */
  for (int v = 0; v < DT_VEC_COUNT; v++) dt_host_fill(c->vec[v], NULL, (size_t)pb->n_dofs);
  if (c->val) dt_host_fill(c->val, NULL, (size_t)pb->nnz);
  copy_state(c, 0, 1);
  *impl = c;
  c = NULL;
cleanup:
  cpu_destroy(c);
  return rc;
}

static dt_status cpu_vec_set(void *impl, dt_vec_id v, const double *host, dt_ctx *ctx) {
  dt_cpu *c = impl;
  memcpy(c->vec[v], host, sizeof(double) * c->pb.n_dofs);
  return DT_OK;
}

static dt_status cpu_vec_get(void *impl, dt_vec_id v, double *host, dt_ctx *ctx) {
  dt_cpu *c = impl;
  memcpy(host, c->vec[v], sizeof(double) * c->pb.n_dofs);
  return DT_OK;
}

static dt_status cpu_vec_lincomb(void *impl, dt_vec_id out, double a, dt_vec_id x, double b,
                                 dt_vec_id y, dt_ctx *ctx) {
  dt_cpu *c = impl;
  double *o = c->vec[out];
  const double *xv = c->vec[x], *yv = c->vec[y];
  int n = c->pb.n_dofs;
#pragma omp parallel for schedule(static) if (n > DT_OMP_MIN_DOFS)
  for (int i = 0; i < n; i++) o[i] = a * xv[i] + b * yv[i];
  return DT_OK;
}

static dt_status cpu_vec_mul(void *impl, dt_vec_id out, dt_vec_id x, dt_vec_id y, dt_ctx *ctx) {
  dt_cpu *c = impl;
  double *o = c->vec[out];
  const double *xv = c->vec[x], *yv = c->vec[y];
  int n = c->pb.n_dofs;
#pragma omp parallel for schedule(static) if (n > DT_OMP_MIN_DOFS)
  for (int i = 0; i < n; i++) o[i] = xv[i] * yv[i];
  return DT_OK;
}

/* Deterministic dot product: fixed-size chunks summed in a fixed order, so the result does
 * not depend on the number of threads (same answers on every run, any --threads). */
dt_status dt_cpu_vec_dot_n(void *impl, dt_vec_id x, dt_vec_id y, int n, double *out, dt_ctx *ctx) {
  dt_cpu *c = impl;
  const double *xv = c->vec[x], *yv = c->vec[y];
  enum { CHUNK = 4096 };
  int nchunks = (n + CHUNK - 1) / CHUNK;
  double partial_stack[64], *partial = partial_stack, sum = 0.0;
  if (nchunks > 64) partial = dt_malloc(sizeof(double) * nchunks);
  if (!partial) return DT_ERROR(ctx, DT_ERR_NOMEM, "out of memory in dot product");
#pragma omp parallel for schedule(static) if (n > DT_OMP_MIN_DOFS)
  for (int k = 0; k < nchunks; k++) {
    double s = 0.0;
    int end = (k + 1) * CHUNK < n ? (k + 1) * CHUNK : n;
    for (int i = k * CHUNK; i < end; i++) s += xv[i] * yv[i];
    partial[k] = s;
  }
  for (int k = 0; k < nchunks; k++) sum += partial[k];
  if (partial != partial_stack) dt_free(partial);
  *out = sum;
  return DT_OK;
}

static dt_status cpu_vec_dot(void *impl, dt_vec_id x, dt_vec_id y, double *out, dt_ctx *ctx) {
  return dt_cpu_vec_dot_n(impl, x, y, ((dt_cpu *)impl)->pb.n_dofs, out, ctx);
}

/* The constraints' T, T^T or mask on a vector (problem_mpc.c: the same loops the driver's host
 * fallback runs). */
static dt_status cpu_mpc_apply(void *impl, dt_vec_id v, dt_mpc_op op, dt_ctx *ctx) {
  dt_cpu *c = impl;
  dt_problem_mpc_apply(&c->pb, op, c->vec[v]);
  return DT_OK;
}

static dt_status cpu_commit(void *impl, dt_ctx *ctx) {
  copy_state(impl, 1, 0);
  return DT_OK;
}

/* The trial arrays are always recomputed from the committed ones, so discarding them is
 * enough; they are reset to the committed values to keep downloads consistent. */
static dt_status cpu_rollback(void *impl, dt_ctx *ctx) {
  copy_state(impl, 0, 0);
  return DT_OK;
}

/* The next stress update and tangent read the new materials; the state is kept (backend.h). */
static dt_status cpu_materials_set(void *impl, const int *elem_mat, dt_ctx *ctx) {
  dt_cpu *c = impl;
  (void)ctx;
  memcpy(c->pb.elem_mat, elem_mat, sizeof(int) * (size_t)c->pb.n_elems);
  return DT_OK;
}

static dt_status cpu_state_get(void *impl, double *host, dt_ctx *ctx) {
  dt_cpu *c = impl;
  size_t nq = (size_t)c->pb.n_qp;
  memcpy(host, c->hist_c, sizeof(double) * nq * DT_MAT_STATE_DOUBLES);
  memcpy(host + nq * DT_MAT_STATE_DOUBLES, c->sig_c, sizeof(double) * nq * 6);
  memcpy(host + nq * (DT_MAT_STATE_DOUBLES + 6), c->eps_c, sizeof(double) * nq * 6);
  return DT_OK;
}

static dt_status cpu_state_set(void *impl, const double *host, dt_ctx *ctx) {
  dt_cpu *c = impl;
  size_t nq = (size_t)c->pb.n_qp;
  memcpy(c->hist_c, host, sizeof(double) * nq * DT_MAT_STATE_DOUBLES);
  memcpy(c->sig_c, host + nq * DT_MAT_STATE_DOUBLES, sizeof(double) * nq * 6);
  memcpy(c->eps_c, host + nq * (DT_MAT_STATE_DOUBLES + 6), sizeof(double) * nq * 6);
  return cpu_rollback(impl, ctx); /* trial = committed */
}

static dt_status cpu_fields_download(void *impl, unsigned what, dt_fields *f, dt_ctx *ctx) {
  dt_cpu *c = impl;
  long nq = c->pb.n_qp;
#pragma omp parallel for schedule(static) if (nq > DT_OMP_MIN_DOFS)
  for (long q = 0; q < nq; q++) {
    for (int k = 0; k < 6; k++) {
      if (f->qp_stress) f->qp_stress[q * 6 + k] = c->sig_c[k * nq + q];
      if (f->qp_strain) f->qp_strain[q * 6 + k] = c->eps_c[k * nq + q];
    }
    if (f->qp_peeq) f->qp_peeq[q] = c->hist_c[DT_HIST_PEEQ * nq + q];
  }
  return DT_OK;
}

static void cpu_view(void *impl, FILE *f) {
  dt_cpu *c = impl;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  fprintf(f, "backend cpu: %d OpenMP threads, %.1f MB of per-point state\n", threads,
          c->pb.n_qp * (double)QP_FIELDS * 8 / 1e6);
  if (c->amg) dt_amg_view(c->amg, f);
  dt_cpu_direct_view(c, f);
}

const dt_backend_ops dt_cpu_ops = {
    .name = "cpu",
    .host = 1,
    .available = NULL,
    .device_info = dt_cpu_device_info,
    .estimate = dt_cpu_estimate,
    .problem_upload = cpu_upload,
    .destroy = cpu_destroy,
    .vec_set = cpu_vec_set,
    .vec_get = cpu_vec_get,
    .vec_lincomb = cpu_vec_lincomb,
    .vec_mul = cpu_vec_mul,
    .vec_dot = cpu_vec_dot,
    .stress_update = dt_cpu_stress_update,
    .tangent_assemble = dt_cpu_tangent_assemble,
    .operator_apply = dt_cpu_operator_apply,
    .pc_setup = dt_cpu_pc_setup,
    .pc_apply = dt_cpu_pc_apply,
    .mpc_apply = cpu_mpc_apply,
    .pcg_solve = NULL,
    .materials_set = cpu_materials_set,
    .state_commit = cpu_commit,
    .state_rollback = cpu_rollback,
    .fields_download = cpu_fields_download,
    .state_get = cpu_state_get,
    .state_set = cpu_state_set,
    .measure = dt_cpu_measure,
    .view = cpu_view,
    .parts = &dt_cpu_part_ops,
};
