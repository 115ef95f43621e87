/* The CUDA backend's table of operations (solver/backend.h), in C with designated
 * initializers; every entry is an extern "C" function from a .cu file (cuda_entry.h), so C
 * never sees a CUDA header (STYLE.md §4). The registry in solver/backend.c lists it as "cuda";
 * `available` makes "auto" fall back to the CPU backend on machines without a device. */
#include "cuda_entry.h"

/* The part's AMG of a split run (cuda_amg.cu; backend.h, dt_backend_part_ops.pc_amg_local). */
dt_status dt_cuda_pc_amg_local(void *impl, int kind, dt_ctx *ctx);

/* What a run split over several devices needs of each part (backend.h). */
static const dt_backend_part_ops dt_cuda_part_ops = {
    .activate = dt_cuda_activate,
    .vec_data = dt_cuda_vec_data,
    .vec_dot_n = dt_cuda_vec_dot_n,
    .pc_blocks = dt_cuda_pc_blocks,
    .pc_blocks_invert = dt_cuda_pc_blocks_invert,
    .pc_amg_local = dt_cuda_pc_amg_local,
    .halo_create = dt_cuda_part_halo_create,
    .halo_destroy = dt_cuda_part_halo_destroy,
};

const dt_backend_ops dt_cuda_ops = {
    .name = "cuda",
    .available = dt_cuda_available,
    .device_info = dt_cuda_device_info,
    .device_lost = dt_cuda_device_lost,
    .estimate = dt_cuda_estimate_op,
    .problem_upload = dt_cuda_upload,
    .destroy = dt_cuda_destroy,
    .vec_set = dt_cuda_vec_set,
    .vec_get = dt_cuda_vec_get,
    .vec_lincomb = dt_cuda_vec_lincomb,
    .vec_mul = dt_cuda_vec_mul,
    .vec_dot = dt_cuda_vec_dot,
    .stress_update = dt_cuda_stress_update,
    .tangent_assemble = dt_cuda_tangent_assemble,
    .operator_apply = dt_cuda_operator_apply,
    .pc_setup = dt_cuda_pc_setup,
    .pc_apply = dt_cuda_pc_apply,
    .mpc_apply = dt_cuda_mpc_apply,
    .pcg_solve = dt_cuda_pcg_solve,
    .materials_set = dt_cuda_materials_set,
    .state_commit = dt_cuda_state_commit,
    .state_rollback = dt_cuda_state_rollback,
    .fields_download = dt_cuda_fields_download,
    .state_get = dt_cuda_state_get,
    .state_set = dt_cuda_state_set,
    .measure = dt_cuda_measure_op,
    .view = dt_cuda_view,
    .describe = dt_cuda_describe,
    .parts = &dt_cuda_part_ops,
};
