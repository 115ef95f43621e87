/* The CPU backend as a part of a split run (backend.h, dt_backend_part_ops): its vectors are
 * host memory, so the parts exchange through the host transport of partition_exchange.h. The
 * split run drives host parts one after the other, each with all of the run's threads; it
 * serves the tests of the split driver on machines without a GPU. */
#include "cpu_internal.h"
#include "partition/partition_exchange.h"

static double *cpu_vec_data(void *impl, dt_vec_id v) { return ((dt_cpu *)impl)->vec[v]; }

static dt_status cpu_halo_create(void *const *impls, const dt_part_local *parts, int n,
                                 int max_ncomp, const dt_halo_ops **ops, void **user, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_halo_host *h = NULL;
  (void)impls;
  DT_TRY(dt_halo_host_create(parts, n, max_ncomp, &h, ctx));
  *ops = dt_halo_host_ops();
  *user = h;
cleanup:
  return rc;
}

static void cpu_halo_destroy(void *user) {
  dt_halo_host *h = user;
  dt_halo_host_destroy(&h);
}

static dt_status cpu_host_tangent(void *impl, dt_host_tangent *t, dt_ctx *ctx) {
  dt_cpu *c = impl;
  if (c->pb.matrix_free)
    return DT_ERROR(ctx, DT_ERR_UNSUPPORTED,
                    "linear.preconditioner \"amg\" needs the assembled tangent "
                    "(linear.operator \"assembled\")");
  t->row_ptr = c->pb.row_ptr;
  t->col = c->pb.col;
  t->val = c->val;
  t->x = c->pb.x;
  t->con = c->vec[DT_VEC_CON];
  return DT_OK;
}

const dt_backend_part_ops dt_cpu_part_ops = {
    .activate = NULL,
    .vec_data = cpu_vec_data,
    .vec_dot_n = dt_cpu_vec_dot_n,
    .pc_blocks = dt_cpu_pc_blocks,
    .pc_blocks_invert = dt_cpu_pc_blocks_invert,
    .pc_amg_local = dt_cpu_pc_amg_local,
    .host_tangent = cpu_host_tangent,
    .halo_create = cpu_halo_create,
    .halo_destroy = cpu_halo_destroy,
};
