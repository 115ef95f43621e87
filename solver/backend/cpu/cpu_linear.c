/* Operator and preconditioners of the CPU backend.
 * SpMV: y = K x over the CSR values. Jacobi: z = r ./ diag(K). Block Jacobi: z_a = (K_aa)^-1 r_a
 * with K_aa the dpn x dpn diagonal block of node a, inverted once per assembly. Two-level:
 * block Jacobi plus the coarse correction of cpu_coarse.c. AMG: one V-cycle of the hierarchy
 * of solver/amg/, built over the CSR tangent on the first setup and whenever the constrained
 * DOFs change, refreshed with the new values otherwise (the aggregates and patterns depend
 * only on the pattern, the coordinates and the constrained set), level 0 alone when the
 * driver asks to keep the coarse levels (DT_PC_KEEP_COARSE); a split run's part builds it over
 * its own copy of the tangent (dt_cpu_pc_amg_local). Direct: CHOLMOD's factor (cpu_direct.c). */
#include <math.h>
#include <string.h>

#include "core/small_matrix.h"
#include "cpu_internal.h"

dt_status dt_cpu_operator_apply(void *impl, dt_vec_id x, dt_vec_id y, dt_ctx *ctx) {
  dt_cpu *c = impl;
  const dt_problem *pb = &c->pb;
  const double *xv = c->vec[x];
  double *yv = c->vec[y];
  if (pb->matrix_free) {
    dt_cpu_mf_apply(c, xv, yv);
    return DT_OK;
  }
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int row = 0; row < pb->n_dofs; row++) {
    double s = 0.0;
    for (int k = pb->row_ptr[row]; k < pb->row_ptr[row + 1]; k++) s += c->val[k] * xv[pb->col[k]];
    yv[row] = s;
  }
  return DT_OK;
}

/* The diagonal block of node a starts at the column of DOF dpn*a in each of its rows. */
static void diagonal_block(const dt_problem *pb, const double *val, int a, double *blk) {
  int dpn = pb->dpn;
  for (int i = 0; i < dpn; i++) {
    int row = a * dpn + i;
    for (int k = pb->row_ptr[row]; k < pb->row_ptr[row + 1]; k++)
      if (pb->col[k] == a * dpn) {
        for (int j = 0; j < dpn; j++) blk[i * dpn + j] = val[k + j];
        break;
      }
  }
}

/* keep: DT_PC_KEEP_COARSE was asked for (a new tangent refreshes level 0 only). local: the
 * hierarchy of a split run's part (of amg_val: dt_cpu_pc_amg_local) rather than the tangent's;
 * a change between the two builds anew. */
static dt_status amg_setup(dt_cpu *c, int keep, int local, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_problem *pb = &c->pb;
  const double *con = c->vec[DT_VEC_CON];
  double *val = local ? c->amg_val : c->val;
  dt_amg_input in = {pb->n_nodes, pb->dpn, pb->x, con, pb->row_ptr, pb->col, val};
  dt_amg_options opt;
  DT_CHECK(
      !pb->matrix_free, ctx, DT_ERR_UNSUPPORTED,
      "linear.preconditioner \"amg\" needs the assembled tangent (linear.operator \"assembled\")");
  if (c->amg && c->amg_local == local && c->amg_serial != c->tangent_serial &&
      !dt_amg_constraints_changed(c->amg, con)) {
    DT_TRY(keep ? dt_amg_refresh_fine(c->amg, val, ctx) : dt_amg_refresh(c->amg, val, ctx));
    goto cleanup;
  }
  dt_amg_destroy(&c->amg);
  dt_amg_options_default(&opt);
  DT_TRY(dt_amg_create(&in, &opt, &c->amg, ctx));
cleanup:
  if (rc == DT_OK) {
    c->amg_serial = c->tangent_serial;
    c->amg_local = local;
  }
  return rc;
}

/* Node a's diagonal block of the current tangent into blk (row-major). */
static void node_block(const dt_cpu *c, int a, double *blk) {
  const dt_problem *pb = &c->pb;
  int dpn = pb->dpn;
  if (pb->matrix_free)
    memcpy(blk, c->mf_diag + (size_t)a * dpn * dpn, sizeof(double) * dpn * dpn);
  else
    diagonal_block(pb, c->val, a, blk);
}

static dt_status singular_block(dt_ctx *ctx, int a) {
  return DT_ERROR(ctx, DT_ERR_NOT_CONVERGED,
                  "the tangent has a singular or non-positive diagonal block at node index %d", a);
}

dt_status dt_cpu_pc_blocks(void *impl, double **blocks, dt_ctx *ctx) {
  dt_cpu *c = impl;
  const dt_problem *pb = &c->pb;
  int dpn = pb->dpn;
  (void)ctx;
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int a = 0; a < pb->n_nodes; a++) node_block(c, a, c->pc + (size_t)a * dpn * dpn);
  *blocks = c->pc;
  return DT_OK;
}

dt_status dt_cpu_pc_blocks_invert(void *impl, dt_ctx *ctx) {
  dt_cpu *c = impl;
  const dt_problem *pb = &c->pb;
  int dpn = pb->dpn, bad = -1;
  c->pc_kind = DT_PC_BLOCK_JACOBI;
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int a = 0; a < pb->n_nodes; a++)
    if (!dt_invert_small(c->pc + (size_t)a * dpn * dpn, dpn)) {
#pragma omp critical(dt_pc_bad)
      bad = a;
    }
  return bad >= 0 ? singular_block(ctx, bad) : DT_OK;
}

/* The part's AMG (backend.h, pc_amg_local): the local tangent with every node's diagonal block
 * the summed one that pc_blocks' storage holds, constrained DOFs kept as the tangent has them
 * (identity). Its rows hold the part's elements' couplings and the whole mesh's diagonal blocks:
 * positive definite (the summed blocks add stiffness at the interface, so a part without a
 * Dirichlet boundary is not singular) and, on the interior nodes, the global tangent's rows. */
dt_status dt_cpu_pc_amg_local(void *impl, int kind, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cpu *c = impl;
  const dt_problem *pb = &c->pb;
  const double *con = c->vec[DT_VEC_CON];
  int dpn = pb->dpn;
  DT_CHECK((kind & ~DT_PC_KEEP_COARSE) == DT_PC_AMG, ctx, DT_ERR_INTERNAL,
           "pc_amg_local: kind %d is not amg", kind);
  DT_CHECK(
      !pb->matrix_free, ctx, DT_ERR_UNSUPPORTED,
      "linear.preconditioner \"amg\" needs the assembled tangent (linear.operator \"assembled\")");
  if (!c->amg_val) DT_ALLOC(c->amg_val, pb->nnz, ctx, "the part's AMG matrix");
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int row = 0; row < pb->n_dofs; row++) {
    int a = row / dpn, i = row % dpn;
    for (int k = pb->row_ptr[row]; k < pb->row_ptr[row + 1]; k++) {
      int col = pb->col[k];
      c->amg_val[k] = col / dpn == a && con[row] == 0.0 && con[col] == 0.0
                          ? c->pc[(size_t)a * dpn * dpn + i * dpn + col % dpn]
                          : c->val[k];
    }
  }
  DT_TRY(amg_setup(c, (kind & DT_PC_KEEP_COARSE) != 0, 1, ctx));
  c->pc_kind = DT_PC_AMG; /* a failed setup keeps the kind in use */
cleanup:
  return rc;
}

dt_status dt_cpu_pc_setup(void *impl, int kind, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cpu *c = impl;
  const dt_problem *pb = &c->pb;
  int dpn = pb->dpn, bad = -1;
  double *blocks = NULL;
  int keep = (kind & DT_PC_KEEP_COARSE) != 0;
  kind &= ~DT_PC_KEEP_COARSE;
  if (kind == DT_PC_AMG) { /* a refused or failed setup keeps the kind in use */
    rc = amg_setup(c, keep, 0, ctx);
    if (rc == DT_OK) c->pc_kind = kind;
    return rc;
  }
  if (kind == DT_PC_DIRECT) { /* the same */
    rc = dt_cpu_direct_setup(c, keep, ctx);
    if (rc == DT_OK) c->pc_kind = kind;
    return rc;
  }
  if (kind != DT_PC_JACOBI) { /* block Jacobi, also the first level of two_level */
    DT_TRY(dt_cpu_pc_blocks(c, &blocks, ctx));
    DT_TRY(dt_cpu_pc_blocks_invert(c, ctx));
    c->pc_kind = kind;
    if (kind == DT_PC_TWO_LEVEL) DT_TRY(dt_cpu_coarse_setup(c, ctx));
    goto cleanup;
  }
  c->pc_kind = kind;
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int a = 0; a < pb->n_nodes; a++) {
    double blk[9];
    node_block(c, a, blk);
    for (int i = 0; i < dpn; i++) {
      double d = blk[i * dpn + i];
      if (!(d > 0.0)) {
#pragma omp critical(dt_pc_bad)
        bad = a;
      }
      c->pc[a * dpn + i] = d > 0.0 ? 1.0 / d : 0.0;
    }
  }
  if (bad >= 0) rc = singular_block(ctx, bad);
cleanup:
  return rc;
}

dt_status dt_cpu_pc_apply(void *impl, dt_vec_id r, dt_vec_id z, dt_ctx *ctx) {
  dt_cpu *c = impl;
  const dt_problem *pb = &c->pb;
  const double *rv = c->vec[r];
  double *zv = c->vec[z];
  int dpn = pb->dpn;
  if (c->pc_kind == DT_PC_AMG) {
    if (!c->amg)
      return DT_ERROR(ctx, DT_ERR_INTERNAL,
                      "the AMG preconditioner has no hierarchy (its setup failed)");
    dt_amg_apply(c->amg, rv, zv);
    return DT_OK;
  }
  if (c->pc_kind == DT_PC_DIRECT) return dt_cpu_direct_apply(c, rv, zv, ctx);
  if (c->pc_kind == DT_PC_JACOBI) {
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
    for (int i = 0; i < pb->n_dofs; i++) zv[i] = c->pc[i] * rv[i];
    return DT_OK;
  }
#pragma omp parallel for schedule(static) if (pb->n_dofs > DT_OMP_MIN_DOFS)
  for (int a = 0; a < pb->n_nodes; a++) {
    const double *m = c->pc + (size_t)a * dpn * dpn;
    for (int i = 0; i < dpn; i++) {
      double s = 0.0;
      for (int j = 0; j < dpn; j++) s += m[i * dpn + j] * rv[a * dpn + j];
      zv[a * dpn + i] = s;
    }
  }
  if (c->pc_kind == DT_PC_TWO_LEVEL) return dt_cpu_coarse_apply(c, rv, zv);
  return DT_OK;
}
