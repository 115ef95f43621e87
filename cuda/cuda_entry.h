/* The CUDA backend's C interface: the extern "C" entry points defined in the .cu files of cuda/, declared
 * with C types only, so that cuda_ops.c (and tests) never see CUDA headers (STYLE.md §4).
 *
 * The ops mirror dt_backend_ops (solver/backend.h); impl is the backend's private state
 * (struct dt_cuda, cuda/cuda_internal.h). Extra functions at the end serve tests and benchmarks. */
#ifndef DT_CUDA_ENTRY_H
#define DT_CUDA_ENTRY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "backend/backend.h"

/* ops (cuda_memory.cu, cuda_upload.cu, cuda_vector.cu, cuda_elements.cu, cuda_linear.cu,
 * cuda_pcg.cu, cuda_fields.cu) */
int dt_cuda_available(char *why, size_t len);
dt_status dt_cuda_upload(const dt_problem *pb, const dt_backend_options *opt, void **impl,
                         dt_ctx *ctx);
void dt_cuda_destroy(void *impl);
dt_status dt_cuda_vec_set(void *impl, dt_vec_id v, const double *host, dt_ctx *ctx);
dt_status dt_cuda_vec_get(void *impl, dt_vec_id v, double *host, dt_ctx *ctx);
dt_status dt_cuda_vec_lincomb(void *impl, dt_vec_id out, double a, dt_vec_id x, double b,
                              dt_vec_id y, dt_ctx *ctx);
dt_status dt_cuda_vec_mul(void *impl, dt_vec_id out, dt_vec_id x, dt_vec_id y, dt_ctx *ctx);
dt_status dt_cuda_vec_dot(void *impl, dt_vec_id x, dt_vec_id y, double *out, dt_ctx *ctx);
dt_status dt_cuda_stress_update(void *impl, dt_vec_id u, dt_vec_id fint, dt_stress_report *rep,
                                dt_ctx *ctx);
dt_status dt_cuda_tangent_assemble(void *impl, dt_ctx *ctx);
dt_status dt_cuda_operator_apply(void *impl, dt_vec_id x, dt_vec_id y, dt_ctx *ctx);
dt_status dt_cuda_pc_setup(void *impl, int kind, dt_ctx *ctx);
dt_status dt_cuda_pc_apply(void *impl, dt_vec_id r, dt_vec_id z, dt_ctx *ctx);
dt_status dt_cuda_mpc_apply(void *impl, dt_vec_id v, dt_mpc_op op, dt_ctx *ctx);
dt_status dt_cuda_pcg_solve(void *impl, double rtol, int max_iter, dt_pcg_result *res, dt_ctx *ctx);
dt_status dt_cuda_materials_set(void *impl, const int *elem_mat, dt_ctx *ctx);
dt_status dt_cuda_state_commit(void *impl, dt_ctx *ctx);
dt_status dt_cuda_state_rollback(void *impl, dt_ctx *ctx);
dt_status dt_cuda_fields_download(void *impl, unsigned what, dt_fields *f, dt_ctx *ctx);
dt_status dt_cuda_measure_op(void *impl, dt_backend_measure *out, dt_ctx *ctx);
void dt_cuda_view(void *impl, FILE *f);
void dt_cuda_describe(void *impl, char *buf, size_t len);
dt_status dt_cuda_state_get(void *impl, double *host, dt_ctx *ctx);
dt_status dt_cuda_state_set(void *impl, const double *host, dt_ctx *ctx);
int dt_cuda_device_info(int ordinal, dt_device_info *out);
int dt_cuda_device_lost(int ordinal, char *why, size_t len);
dt_status dt_cuda_estimate_op(const dt_problem *pb, double *bytes, dt_ctx *ctx);

/* part ops (dt_backend_part_ops, backend.h: this backend as one part of a run split over
 * devices; cuda_upload.cu, cuda_vector.cu, cuda_linear.cu, cuda_halo.cu) */
dt_status dt_cuda_activate(void *impl, dt_ctx *ctx);
double *dt_cuda_vec_data(void *impl, dt_vec_id v);
dt_status dt_cuda_vec_dot_n(void *impl, dt_vec_id x, dt_vec_id y, int n, double *out, dt_ctx *ctx);
dt_status dt_cuda_pc_blocks(void *impl, double **blocks, dt_ctx *ctx);
dt_status dt_cuda_pc_blocks_invert(void *impl, dt_ctx *ctx);
/* The halo transport between the impls: NCCL when built with it, n > 1 and every impl on its
 * own device, else staged through pinned host memory (any devices, several parts on one);
 * DUCTILE_HALO_TRANSPORT=auto|nccl|staged overrides the choice (tests, comparisons). Errors:
 * DT_ERR_INPUT (an unknown DUCTILE_HALO_TRANSPORT, nccl with a device named twice),
 * DT_ERR_UNSUPPORTED (nccl without NCCL in the build), DT_ERR_NOMEM, DT_ERR_DEVICE_NOMEM,
 * DT_ERR_CUDA. */
dt_status dt_cuda_part_halo_create(void *const *impls, const dt_part_local *parts, int n,
                                   int max_ncomp, const dt_halo_ops **ops, void **user,
                                   dt_ctx *ctx);
void dt_cuda_part_halo_destroy(void *user);
/* Which transport halo_create chose for user: "nccl" or "staged" ("none" for NULL). The impls
 * also carry it: their describe line ends in ", halo exchange nccl" (or staged), which the
 * split run prints among its setup lines. */
const char *dt_cuda_part_halo_name(const void *user);

/* Device memory the job needs, counted from the problem's sizes before anything is
 * allocated (cuda_memory.cu). Needs no device: the per-thread local memory of the element
 * kernels is added by the upload, which knows the device. */
dt_status dt_cuda_estimate(const dt_problem *pb, size_t *bytes);

/* Bytes moved host->device and device->host and the number of copies, through the two
 * counted copy functions. impl NULL: totals over the whole process (all jobs). */
void dt_cuda_transfer_stats(void *impl, unsigned long long *h2d, unsigned long long *d2h,
                            unsigned long long *n_copies);
/* Peak device bytes allocated by this backend instance (impl NULL: over the process). */
size_t dt_cuda_peak_bytes(void *impl);
/* Total device bytes ever allocated by the CUDA backend in this process (0 if none). */
unsigned long long dt_cuda_process_allocated_bytes(void);

/* Benchmark helper: device-to-device copy bandwidth (bytes read + written per second, best
 * of 5) and the mean time of one SpMV with the current matrix (assemble a tangent first). */
dt_status dt_cuda_measure(void *impl, double *copy_bw_bytes_per_s, double *spmv_seconds,
                          dt_ctx *ctx);

/* The matrix-free elasticity operator of order-P hexahedra (solver/highorder/ho_elastic.h) on
 * one device (cuda_highorder.cu): the operator's arrays uploaded once, then v = K u with the
 * same bits on every call. For the GPU tests and ductile-hobench; not yet a backend op. */
struct dt_ho_elastic;
typedef struct dt_cuda_ho dt_cuda_ho;
/* Uploads op (its mesh's node ids, qdata, Lame parameters, colours). Errors:
 * DT_ERR_DEVICE_NOMEM when it does not fit (counted before allocating), DT_ERR_UNSUPPORTED when
 * an element's work space exceeds the device's shared memory, DT_ERR_CUDA. */
dt_status dt_cuda_ho_create(const struct dt_ho_elastic *op, int device, dt_cuda_ho **out,
                            dt_ctx *ctx);
void dt_cuda_ho_destroy(dt_cuda_ho *h);
/* v = K u, host arrays of 3 n_nodes doubles (copied in and out). */
dt_status dt_cuda_ho_apply(dt_cuda_ho *h, const double *u, double *v, dt_ctx *ctx);
/* Mean seconds of one product on the device-resident vectors over reps calls (after one
 * warm-up), by CUDA events. */
dt_status dt_cuda_ho_time(dt_cuda_ho *h, int reps, double *seconds, dt_ctx *ctx);
/* Device-to-device copy bandwidth (bytes read + written per second, best of 5 rounds of ten
 * copies of the operator's vector): the memory floor's denominator. */
dt_status dt_cuda_ho_copy_bandwidth(dt_cuda_ho *h, double *bytes_per_s, dt_ctx *ctx);
/* One line: elements per block, shared memory, colours, device bytes. */
void dt_cuda_ho_describe(const dt_cuda_ho *h, char *buf, size_t len);

/* J2 plasticity at the Gauss points of order-P hexahedra on one device (cuda_ho_plastic.cu): a
 * mirror of a host dt_ho_plastic (solver/highorder/ho_plastic.h) with its per-point state in
 * the host's layout, the residual, the tangent's product and diagonal, commit and rollback,
 * and the Newton corrections' PCG (cuda_ho_plastic_pcg.cu). dt_ho_plastic_solve runs on it when
 * its options ask for a GPU; tests and ductile-hobench call it directly. */
struct dt_ho_plastic;
struct dt_ho_plastic_report;
struct dt_ho_pcg_opts;
struct dt_ho_pcg_result;
typedef struct dt_cuda_ho_plastic dt_cuda_ho_plastic;
/* A preconditioner on device vectors (z = M^-1 r, zero on the constrained DOFs), as
 * cuda_ho_pmg.h's dt_cuda_ho_pmg_apply; and a product y = K x on device vectors. */
typedef dt_status (*dt_cuda_ho_pc_fn)(void *pc, const double *d_r, double *d_z, dt_ctx *ctx);
typedef dt_status (*dt_cuda_ho_dev_apply_fn)(void *op, const double *d_x, double *d_y, dt_ctx *ctx);
/* Uploads pl's materials, element materials and state (committed, trial, tangent) over h, the
 * device copy of pl->op (borrowed: it must outlive hp). Errors: DT_ERR_DEVICE_NOMEM (counted
 * before allocating), DT_ERR_UNSUPPORTED (the diagonal's work space exceeds shared memory),
 * DT_ERR_NOMEM, DT_ERR_CUDA. */
dt_status dt_cuda_ho_plastic_create(const struct dt_ho_plastic *pl, dt_cuda_ho *h,
                                    dt_cuda_ho_plastic **out, dt_ctx *ctx);
void dt_cuda_ho_plastic_destroy(dt_cuda_ho_plastic *hp);
/* f = f_int(u) (host arrays of 3 n_nodes), the trial state and tangent updated on the device;
 * rep may be NULL. As dt_ho_plastic_residual: a failed return mapping is DT_ERR_NOT_CONVERGED
 * naming the first failed element and point (lowest element, then point; rep filled). */
dt_status dt_cuda_ho_plastic_residual(dt_cuda_ho_plastic *hp, const double *u, double *f,
                                      struct dt_ho_plastic_report *rep, dt_ctx *ctx);
/* v = K_t w with the last residual's tangent (host arrays). */
dt_status dt_cuda_ho_plastic_apply(dt_cuda_ho_plastic *hp, const double *w, double *v, dt_ctx *ctx);
/* diag = K_t's diagonal (host array). */
dt_status dt_cuda_ho_plastic_diagonal(dt_cuda_ho_plastic *hp, double *diag, dt_ctx *ctx);
/* Trial -> committed, committed -> trial (device copies). */
dt_status dt_cuda_ho_plastic_commit(dt_cuda_ho_plastic *hp, dt_ctx *ctx);
dt_status dt_cuda_ho_plastic_rollback(dt_cuda_ho_plastic *hp, dt_ctx *ctx);
/* Copies the device state into pl's arrays: what = DT_CUDA_HP_* bits. */
#define DT_CUDA_HP_COMMITTED 1u /* hist_c, stress_c, strain_c */
#define DT_CUDA_HP_TRIAL 2u     /* hist_t, stress_t, strain_t */
#define DT_CUDA_HP_TANGENT 4u   /* tangent and result of the last residual */
#define DT_CUDA_HP_ALL 7u
dt_status dt_cuda_ho_plastic_download(dt_cuda_ho_plastic *hp, unsigned what,
                                      struct dt_ho_plastic *pl, dt_ctx *ctx);
/* The fixed DOFs of the Newton corrections (3 n_nodes flags, copied). */
dt_status dt_cuda_ho_plastic_set_fixed(dt_cuda_ho_plastic *hp, const unsigned char *fixed,
                                       dt_ctx *ctx);
/* A Newton correction: K_t c = b on the free DOFs by PCG on the device with the last residual's
 * tangent (b, c host arrays; c in: the prescribed values on the fixed DOFs and the guess; out:
 * the solution), the loop, errors and res of dt_ho_pcg_solve. pc NULL: Jacobi on the tangent's
 * diagonal. Otherwise, first pc_setup(pc_data, apply, hp, d_diag) with the tangent's product
 * and diagonal on the device (the product runs in hp's stream joined to pc_stream, a
 * cudaStream_t, by events), then pc(pc_data, d_r, d_z) in pc_stream as M^-1. */
dt_status dt_cuda_ho_plastic_correct(dt_cuda_ho_plastic *hp, const double *b, double *c,
                                     const struct dt_ho_pcg_opts *opts,
                                     dt_status (*pc_setup)(void *pc_data,
                                                           dt_cuda_ho_dev_apply_fn apply, void *op,
                                                           const double *d_diag, dt_ctx *ctx),
                                     dt_cuda_ho_pc_fn pc, void *pc_data, void *pc_stream,
                                     struct dt_ho_pcg_result *res, dt_ctx *ctx);
/* Mean seconds of one residual (with its plastic-point counts, no copy to the host) and of one
 * tangent product on device-resident vectors over reps calls each, after a warm-up (CUDA
 * events). The state is rolled back afterwards. */
dt_status dt_cuda_ho_plastic_time(dt_cuda_ho_plastic *hp, const double *u, int reps,
                                  double *residual_s, double *apply_s, dt_ctx *ctx);
/* One line: the diagonal's elements per block and shared memory, device bytes of the state. */
void dt_cuda_ho_plastic_describe(const dt_cuda_ho_plastic *hp, char *buf, size_t len);

/* Jacobi-PCG for order-P elasticity on several GPUs of one host (cuda_multi.cu): part s of a
 * partition (solver/partition/partition.h) on device devices[s], NCCL between them. Vectors are
 * per part over its local nodes (3 values each), consistent on the ghosts (a ghost holds its
 * owner's value): the load b, the inverse diagonal dinv (0 on fixed DOFs) and fre (1 on free
 * DOFs, 0 on fixed ones, where the solution stays 0). */
#define DT_MULTI_MAX_GPUS 16
struct dt_part_local;
typedef struct dt_multi_pcg_input {
  int nparts;
  const int *devices;                     /* nparts distinct device ordinals */
  const struct dt_part_local *parts;      /* nparts, in part order */
  const struct dt_ho_elastic *const *ops; /* each part's operator, in its local numbering */
  const double *const *b, *const *dinv, *const *fre;
} dt_multi_pcg_input;
typedef struct dt_multi_pcg_result {
  int iterations;
  double rel_residual;  /* |r| / |b| at the end */
  double seconds_setup; /* communicators, uploads */
  double seconds_solve; /* the iterations, wall clock */
  size_t halo_values;   /* values one sum exchange moves, both phases, all parts */
} dt_multi_pcg_result;
/* Solves to |r| <= rtol |b| in at most max_iter iterations; x[s] receives part s's solution
 * (3 per local node). Errors: DT_ERR_INPUT (a part without elements, a device named twice),
 * DT_ERR_NOT_CONVERGED, DT_ERR_UNSUPPORTED (built without NCCL), DT_ERR_CUDA. */
dt_status dt_cuda_multi_pcg(const dt_multi_pcg_input *in, double rtol, int max_iter,
                            double *const *x, dt_multi_pcg_result *res, dt_ctx *ctx);

/* Explicit central differences of order-P elasticity with a lumped mass on one or several GPUs
 * (cuda_ho_explicit.cu; the scheme of solver/highorder/ho_explicit.h). Parts as for
 * dt_cuda_multi_pcg; a device may carry several parts (the staged transport then joins them),
 * and NCCL is used between distinct GPUs when the build has it. Per part, over its local nodes
 * and consistent on the ghosts: the lumped mass (one per node, positive), fre (per DOF: 1 free,
 * 0 fixed, where u keeps its start value) and the load f (per DOF, f_ext(t) = g(t) f). */
struct dt_ho_explicit_opts;
struct dt_ho_explicit_result;
typedef struct dt_multi_explicit_input {
  int nparts;
  const int *devices;
  const struct dt_part_local *parts;
  const struct dt_ho_elastic *const *ops;
  const double *const *mass, *const *fre, *const *f;
  double (*amplitude)(double t, void *user); /* NULL: a step load, g = 1 */
  void *amplitude_user;
  int n_watch;                       /* DOFs whose value reaches the monitor after every step */
  const int *watch_part, *watch_dof; /* part and local DOF of each */
} dt_multi_explicit_input;
/* What the monitor sees after step `step` (u at t = step dt): the watched values every step;
 * the energies (ho_explicit.h) at step 0, every opts->out_every steps and after the last. */
typedef struct dt_multi_explicit_sample {
  int step;
  double t, dt;
  const double *watch;
  int has_energy;
  double kinetic, internal, external, damping, start;
} dt_multi_explicit_sample;
typedef dt_status (*dt_multi_explicit_monitor)(const dt_multi_explicit_sample *s, void *user,
                                               dt_ctx *ctx);
typedef struct dt_multi_explicit_info {
  double seconds_setup;                /* uploads, transport, stable step */
  size_t halo_values;                  /* values one sum exchange moves, both phases, all parts */
  char transport[16];                  /* "nccl", "staged" or "none" (one part) */
  double gpu_bytes[DT_MULTI_MAX_GPUS]; /* device memory in use after setup, per part's device */
} dt_multi_explicit_info;
/* Runs opts->steps steps from u[s] (in: u_0 per part, zero velocity; out: u at the end). The
 * stable step comes from a power iteration on the devices when opts->dt is 0; the result's
 * balance is the largest relative energy imbalance over the samples. Errors: those of
 * dt_ho_explicit_run (steps, damping, a step above the stable limit, unstable energies), a
 * non-positive mass naming the node, DT_ERR_INPUT for a part without elements or a watched DOF
 * outside its part, DT_ERR_DEVICE_NOMEM, DT_ERR_CUDA; a monitor's own error. */
dt_status dt_cuda_multi_explicit(const dt_multi_explicit_input *in,
                                 const struct dt_ho_explicit_opts *opts, double *const *u,
                                 dt_multi_explicit_monitor mon, void *user,
                                 struct dt_ho_explicit_result *res, dt_multi_explicit_info *info,
                                 dt_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
