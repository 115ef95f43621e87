/* Private state of the CUDA backend, shared by its .cu files (never included from C).
 *
 * Everything the Newton loop touches lives on the device for the whole job: the problem
 * (coordinates, connectivity, element data, materials, block pattern, per-element block positions,
 * colouring), the solution vectors, the tangent values, the preconditioner and the per-point
 * state, structure of arrays (component k of point q at [k * n_qp + q], element_kernel.h).
 * The host keeps only sizes, the colour offsets (to launch one grid per colour) and a small
 * pinned buffer through which scalars come back. Every host<->device copy goes through
 * dt_cuda_h2d / dt_cuda_d2h, which count the bytes (STYLE.md §8).
 *
 * struct dt_cuda holds the device, its stream and the scratch every file uses, and one member
 * per concern, each allocated by the file that owns it: problem (cuda_upload.cu), state
 * (cuda_vector.cu, cuda_fields.cu), lin (cuda_linear.cu), coarse (cuda_coarse.cu), mf
 * (cuda_matrix_free.cu), rows (cuda_tangent_rows.cu), amg (cuda_amg.cu) and acct
 * (cuda_memory.cu). */
#ifndef DT_CUDA_INTERNAL_H
#define DT_CUDA_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <stddef.h>

#include "cuda_check.h"
#include "cuda_entry.h"

#define DT_CUDA_BLOCK 256           /* threads per block of every 1-D kernel */
#define DT_CUDA_RED_MAX_BLOCKS 1024 /* reduction grid: min(ceil(n / 256), 1024) blocks */
/* reduction scratch: two sets of partials, two results, then the PCG control block */
#define DT_CUDA_PCG_CTL_OFFSET (2 * DT_CUDA_RED_MAX_BLOCKS + 2)
#define DT_CUDA_RED_DOUBLES (DT_CUDA_PCG_CTL_OFFSET + 16)
#define DT_CUDA_MAX_ALLOCS 1024 /* about 25 per AMG level (cuda_amg_build.cu) and the scratch */
/* cuSPARSE's BSR product with 32-bit indices addresses its values with 32-bit offsets too (a
 * 30M-DOF hex8 tangent, 2.4 billion values, gave NaN), so a larger tangent is multiplied by row
 * ranges of fewer than 2^31 values each, every range its own descriptor: rows are independent,
 * so the result has the same bits. DUCTILE_CUDA_SPMV_PART_VALUES lowers the range size for the
 * test that checks exactly that (test_gpu_spmv_parts). */
#define DT_CUDA_SPMV_PARTS_MAX 16
#define DT_CUDA_SPMV_ALG CUSPARSE_SPMV_BSR_ALG1 /* same bits on every run (test_gpu_agreement) */
#define DT_CUDA_SPMV_ALG_NAME "BSR (dpn x dpn column-major blocks), CUSPARSE_SPMV_BSR_ALG1"

typedef struct dt_cuda_alloc_rec {
  void *p;
  size_t n;
} dt_cuda_alloc_rec;

/* Device-side counters written by kernels and read back as one small copy. */
typedef struct dt_cuda_flags {
  int n_plastic;
  int n_failed;
  int first_failed; /* smallest failed element index, INT_MAX if none */
  int bad_node;     /* preconditioner setup: smallest bad node, INT_MAX if none */
  int missing_pos;  /* upload: smallest element with a node pair outside the pattern (a bug) */
} dt_cuda_flags;
/* The part the element phases read back after each launch (n_plastic, n_failed, first_failed):
 * 12 bytes per stress update and per assembly, not the whole block. */
#define DT_CUDA_ELEMENT_FLAGS_BYTES offsetof(dt_cuda_flags, bad_node)

/* The problem on the device (cuda_upload.cu), copied once at upload and read-only afterwards:
 * sizes, the mesh and element data, materials, the block pattern (BSR: the node neighbour lists
 * of dt_problem), the per-element block positions (computed on the device, cuda_positions.cu),
 * the colouring (its offsets also on the host, to launch one grid per colour) and, for meshes of
 * one element type and for the matrix-free operator, each node's element incidences
 * (e * npe + A, elements ascending), through which f_int and the operator's products are summed
 * node by node from the per-incidence values (dt_cuda_state f_elem). */
typedef struct dt_cuda_problem {
  int dim, dpn, n_nodes, n_dofs, n_elems, n_qp, n_colors, n_mats;
  int uniform_type; /* the kernel type (cuda_coop.h): the element type when all elements share
                       one that has kernels of its own, else a generic instantiation (negative:
                       DT_CUDA_GENERIC, or DT_CUDA_GENERIC_LARGE with 20-node hexahedra or
                       wedge15) */
  int el_variants;  /* DT_CUDA_EL_* bits (dt_cuda_element_variants, and the job's kernel choice) */
  int matrix_free;  /* linear.operator "matrix_free": no assembled values (dt_cuda_mf) */
  int64_t nnz, n_blocks, n_conn, n_pos;
  int *h_color_ptr; /* host copy of the colour offsets */
  double *x;
  unsigned char *elem_type, *elem_state, *elem_bbar;
  int *elem_ptr, *conn, *elem_mat, *qp_ptr, *color_elems;
  double *elem_thick;
  double *qp_eps0; /* initial eigenstrains (problem.h), NULL without initial conditions */
  dt_material_params *mats;
  int *brow_ptr, *bcol;
  /* The SpMV's row ranges: block rows spmv_row0[k] .. spmv_row0[k + 1] - 1 hold fewer than 2^31
   * values each (dt_cuda_spmv_parts); one range below 2^31 values in all. */
  int n_spmv_parts;
  int spmv_row0[DT_CUDA_SPMV_PARTS_MAX + 1];
  int64_t spmv_blk0[DT_CUDA_SPMV_PARTS_MAX + 1]; /* the first block of each range */
  int *elem_pos;
  int64_t *elem_pos_ptr;
  int *node_inc_ptr, *node_inc;
} dt_cuda_problem;

/* The solution state: the DT_VEC_COUNT vectors, the constrained node list derived from DT_VEC_CON
 * (cuda_vector.cu), and the per-point arrays (cuda_fields.cu), committed (_c) and trial (_t). */
typedef struct dt_cuda_state {
  double *vec[DT_VEC_COUNT];
  /* Nodes with a constrained DOF (from DT_VEC_CON, kept when it is set): the Dirichlet pass
   * works on their rows and columns only */
  int *con_nodes, n_con_nodes, *h_con_nodes;
  double *hist_c, *hist_t, *sig_c, *sig_t, *eps_c, *eps_t;
  double *tan_t; /* consistent tangent of the trial state as a dt_tangent_form, its first
                    DT_TANGENT_FORM_STORED components (K, mu, gam) per point, written by the
                    cooperative stress kernel, read by the cooperative tangent kernel, which
                    re-forms n from sig_t (dt_j2_flow_direction) */
  double
      *tan_d; /* DT_CUDA_EL_D meshes only (else NULL): the tangent D of every point's trial state,
                    its upper triangle (DT_CUDA_D_DOUBLES, row by row) per point, written by the
                    stress kernel, read by the tangent kernel (cuda_tangent_d.cuh) */
  double *f_elem; /* with node incidences (dt_cuda_problem): the element forces per incidence
                     (dpn each), stored by the stress kernel (cuda_stress_coop.cu) and the
                     matrix-free product, summed per node */
} dt_cuda_state;

/* The assembled operator and the preconditioner (cuda_linear.cu): the tangent values (blocked,
 * dt_bsr_block; NULL with the matrix-free operator), cuSPARSE's descriptors of the matrix and of
 * every vector and its SpMV buffer, the preconditioner's arrays and kind, and the count of
 * tangent_assemble calls (a second AMG setup on the same tangent builds anew: backend.h). */
/* A captured sequence of launches (cuda_graph.cu); key -1: none yet. */
typedef struct dt_cuda_graph {
  cudaGraphExec_t exec;
  long key;
} dt_cuda_graph;

typedef struct dt_cuda_linear {
  double *val;
  cusparseSpMatDescr_t mat; /* the whole tangent; NULL when it takes several SpMV ranges */
  cusparseDnVecDescr_t dvec[DT_VEC_COUNT];
  /* With several row ranges (dt_cuda_problem n_spmv_parts > 1): each range's matrix, its block
   * row offsets (from 0; range 0 uses brow_ptr) and its slice of every vector. */
  cusparseSpMatDescr_t part_mat[DT_CUDA_SPMV_PARTS_MAX];
  int *part_brow_ptr[DT_CUDA_SPMV_PARTS_MAX];
  cusparseDnVecDescr_t part_dvec[DT_CUDA_SPMV_PARTS_MAX][DT_VEC_COUNT];
  void *spmv_buf;
  size_t spmv_buf_bytes;
  double *pc; /* inverse diagonal (Jacobi) or inverse dpn x dpn nodal blocks (the others) */
  int pc_kind;
  long tangent_serial;
  /* Preconditioner setups so far: the key of the PCG loops' graphs (cuda_pcg.cu), whose
   * arguments a setup may change. */
  long pc_serial;
  dt_cuda_graph pcg_batch, pcg_amg;
} dt_cuda_linear;

/* Two-level preconditioner (cuda_coarse.cu; n_sub = 0 without it): the boxes of dt_problem, the
 * item sums P, E^-1 (full, row-major), the inverse factor X = L^-1, the coarse vectors y, w and
 * y.w, cuSOLVER's and cuBLAS's handles and workspaces. */
typedef struct dt_cuda_coarse {
  int n_sub, n_modes;
  int *sub_ptr, *sub_nodes, *node_sub, *sub_nbr_ptr, *sub_nbr, *item_ptr, *item_sub, *item_local,
      *grp_ptr, *grp_item;
  double *node_d, *P, *E, *X, *y, *w, *yw, *work;
  void *blas_work;
  int *info, lwork;
  cusolverDnHandle_t dn;
  cublasHandle_t blas;
} dt_cuda_coarse;

/* Matrix-free operator (cuda_matrix_free.cu; all NULL without it): no assembled values; each
 * element's class and plastic flag (written by the stress kernel), the class matrices, its slot
 * in emat (-1: the class's elastic matrix serves) and the launch list of the slotted elements
 * (own_list[slot] = element), the scan's input and scratch, each node's diagonal block
 * (row-major), the store's size and the slot count of the last assembly. */
typedef struct dt_cuda_mf {
  int emat_doubles, n_classes;
  int *elem_class, *emat_slot, *own_list, *need, *count;
  unsigned char *elem_plastic;
  double *class_K, *emat, *diag;
  long emat_cap, n_own;
  void *scan_tmp;
  size_t scan_tmp_bytes;
} dt_cuda_mf;

/* The write-once block-row tangent (cuda_tangent_rows.cu): its class constants, NULL when the
 * mesh is not served (the colour kernel assembles; why says why). */
typedef struct dt_cuda_rows {
  double *G;
  int any_kin; /* a material with kinematic hardening (the kernel then reads back stresses) */
  int grid;    /* blocks of the kernel: those resident at once, or fewer for small meshes */
  char why[128];
} dt_cuda_rows;

/* The linear constraints (cuda_mpc.cu; n = 0 without equations): dt_problem's T and its
 * transpose by independent DOF, and the dependent DOFs of nodes no element uses (n_iso). */
typedef struct dt_cuda_mpc {
  int n, n_t, n_iso;
  int *mpc_dof, *mpc_ptr, *mpc_col, *mpct_dof, *mpct_ptr, *mpct_src, *mpc_iso;
  double *mpc_val, *mpct_val;
} dt_cuda_mpc;

/* Accounting (cuda_memory.cu): every live device allocation, the bytes allocated now and at the
 * peak, the estimate checked before the upload, and the host<->device traffic. */
typedef struct dt_cuda_acct {
  dt_cuda_alloc_rec allocs[DT_CUDA_MAX_ALLOCS];
  int n_allocs;
  size_t bytes_alloc, bytes_peak, estimate;
  unsigned long long h2d, d2h, n_copies;
} dt_cuda_acct;

/* The backend: the device, its stream and the handles and scratch every part uses, then one
 * member per concern, each allocated by its file (every device array through dt_cuda_alloc, so
 * dt_cuda_free_all releases them all at destroy). */
typedef struct dt_cuda {
  int device;
  char name[256];
  int sm_count, cc_major, cc_minor;
  size_t mem_total;
  cudaStream_t stream;
  cusparseHandle_t sp;
  double *red;          /* reduction partials: 2 * DT_CUDA_RED_MAX_BLOCKS, 2 results, PCG control */
  dt_cuda_flags *flags; /* device counters */
  void *pinned;         /* pinned host buffer for scalars (64 bytes) */
  dt_cuda_problem problem;
  dt_cuda_state state;
  dt_cuda_linear lin;
  dt_cuda_coarse coarse;
  dt_cuda_mf mf;
  dt_cuda_rows rows;
  /* Smoothed-aggregation AMG (cuda_amg.cu, cuda_amg_internal.h; NULL until the first pc_setup of
   * DT_PC_AMG): the host hierarchy of solver/amg/ and its levels on the device. */
  struct dt_cuda_amg *amg;
  dt_cuda_mpc mpc;
  dt_cuda_acct acct;
  /* As a part of a run split over devices: the halo transport between the parts, "nccl" or
   * "staged" (set by dt_cuda_part_halo_create, cuda_halo.cu; a static string), which describe
   * adds to its line; NULL otherwise. */
  const char *halo;
} dt_cuda;

/* Kernel loading. CUDA loads a kernel at its first launch (lazy loading, the default since
 * CUDA 12.2), which made the first Newton iteration and the first linear solve of a job slower
 * (docs/benchmarks.md, decision table). The upload loads every kernel the job can launch, each file naming its
 * own: load_kernels (cuda_upload.cu) calls the per-file lists below. */
/* local_max (NULL: not wanted) is raised to the largest per-thread local memory of the list. */
dt_status dt_cuda_load_list(const void *const *kernels, int n, size_t *local_max, dt_ctx *ctx);
dt_status dt_cuda_load_vector_kernels(dt_ctx *ctx); /* cuda_vector.cu */
dt_status dt_cuda_load_pcg_kernels(dt_ctx *ctx);    /* cuda_pcg.cu */
dt_status dt_cuda_load_linear_kernels(
    dt_ctx *
        ctx); /* cuda_graph.cu: fn's launches on c->stream, replayed from g while key stays the same, captured
 * anew when it changes; plain launches where capture is not possible. */
typedef dt_status (*dt_cuda_launches)(dt_cuda *c, void *arg, dt_ctx *ctx);
dt_status dt_cuda_graph_run(dt_cuda *c, dt_cuda_graph *g, long key, dt_cuda_launches fn, void *arg,
                            dt_ctx *ctx);
void dt_cuda_graph_reset(dt_cuda_graph *g);

/* cuda_linear.cu */
dt_status dt_cuda_load_field_kernels(dt_ctx *ctx); /* cuda_fields.cu */
/* cuda_elements.cu: the element kernels a mesh launches (uniform_type: its kernel type, one
 * element type or a generic one; variants: DT_CUDA_EL_* bits of dt_cuda_element_variants).
 * Only those are loaded, so that only their local memory is reserved (and counted in the
 * estimate). */
dt_status dt_cuda_load_element_kernels(int uniform_type, int variants, size_t *local_max,
                                       dt_ctx *ctx);
/* A Mohr-Coulomb material is present: the stress kernel compiled with its update. */
#define DT_CUDA_EL_MC 1
/* A material's tangent is not of the tangent form (Mohr-Coulomb's consistent tangent): the
 * stress kernel stores each point's D and the tangent kernel multiplies B^T D B
 * (cuda_tangent_d.cuh); mixed meshes ask the material update for D anyway. */
#define DT_CUDA_EL_D 2
/* The job asks for the one-thread-per-element kernels on every mesh (solver.backend_options
 * "elements": "simple", DT_CUDA_ELEMENTS_SIMPLE): the upload adds this bit, the materials never. */
#define DT_CUDA_EL_SIMPLE 4
/* Whether the element phases run the cooperative kernels (cuda_elements_coop.cu,
 * cuda_stress_coop.cu): on meshes of one element type that has them, unless the job asks for
 * the one-thread-per-element kernels (to compare the two); mixed meshes and the wedges always
 * run those. */
static inline int dt_cuda_use_coop(int uniform_type, int variants) {
  return uniform_type >= 0 && !(variants & DT_CUDA_EL_SIMPLE);
}
/* The bits the materials call for (DT_CUDA_EL_MC, DT_CUDA_EL_D). */
int dt_cuda_element_variants(const dt_problem *pb);
#define DT_CUDA_D_DOUBLES 21 /* upper triangle of a symmetric 6 x 6 D */

/* Upload problem array pb->pb_field (count items) into a new device array dst, counted
 * (dt_cuda_alloc, dt_cuda_h2d); UPLOAD names the same field in dt_problem and in part (a member
 * of dt_cuda). For functions with a dt_cuda *c, a dt_problem *pb, a dt_ctx *ctx and a cleanup
 * label (cuda_upload.cu, cuda_coarse.cu, cuda_matrix_free.cu). */
#define UPLOAD_AS(dst, pb_field, count, what)                                                      \
  do {                                                                                             \
    size_t nb_ = sizeof(*pb->pb_field) * (size_t)(count);                                          \
    DT_TRY(dt_cuda_alloc(c, (void **)&(dst), nb_, what, ctx));                                     \
    DT_TRY(dt_cuda_h2d(c, (void *)(dst), (const void *)pb->pb_field, nb_, ctx));                   \
  } while (0)
#define UPLOAD(part, field, count, what) UPLOAD_AS((part).field, field, count, what)
/* A new device array ptr of count items, counted and set to zero (same functions as UPLOAD). */
#define ZEROS(ptr, count, what)                                                                    \
  do {                                                                                             \
    size_t nb_ = sizeof(*(ptr)) * (size_t)(count);                                                 \
    DT_TRY(dt_cuda_alloc(c, (void **)&(ptr), nb_, what, ctx));                                     \
    DT_CUDA_CHECK(cudaMemsetAsync((ptr), 0, nb_, c->stream), ctx);                                 \
  } while (0)

/* cuda_memory.cu */
dt_status dt_cuda_alloc(dt_cuda *c, void **p, size_t bytes, const char *what, dt_ctx *ctx);
void dt_cuda_free(dt_cuda *c, void *p);
void dt_cuda_free_all(dt_cuda *c);
dt_status dt_cuda_h2d(dt_cuda *c, void *dst, const void *src, size_t bytes, dt_ctx *ctx);
dt_status dt_cuda_d2h(dt_cuda *c, void *dst, const void *src, size_t bytes, dt_ctx *ctx);
/* Compare the estimate (plus extra bytes known only on the device) with what the device
 * and DUCTILE_GPU_MEMORY_LIMIT allow; DT_ERR_DEVICE_NOMEM with the sizes when it cannot fit. */
dt_status dt_cuda_check_fit(const dt_problem *pb, int device, size_t extra, size_t *estimate,
                            dt_ctx *ctx);
/* Bytes of local memory the element kernels of a mesh (uniform_type as above) reserve on this
 * device when they run (cuda_elements.cu). */
dt_status dt_cuda_element_local_bytes(int device, int uniform_type, int variants, size_t *bytes,
                                      dt_ctx *ctx);

/* The parts' allocation at upload, in this order after the problem (dt_cuda_mf_upload between
 * it and these), and their host-side teardown at destroy (device arrays go with
 * dt_cuda_free_all). cuda_vector.cu: the vectors, the constrained node list and the
 * per-incidence element forces; cuda_linear.cu: the tangent values, the preconditioner and
 * cuSPARSE's descriptors (after the vectors); cuda_fields.cu: the per-point arrays. */
dt_status dt_cuda_vectors_alloc(dt_cuda *c, dt_ctx *ctx);
void dt_cuda_vectors_destroy(dt_cuda *c);
dt_status dt_cuda_linear_alloc(dt_cuda *c, dt_ctx *ctx);
/* The SpMV's row ranges of a problem (dt_cuda_problem spmv_row0, spmv_blk0, n_spmv_parts). */
dt_status dt_cuda_spmv_parts(const dt_problem *pb, dt_cuda_problem *p, dt_ctx *ctx);
void dt_cuda_linear_destroy(dt_cuda *c);
dt_status dt_cuda_points_alloc(dt_cuda *c, dt_ctx *ctx);
/* cuda_mpc.cu: the constraint arrays (nothing without equations) and their kernels. */
dt_status dt_cuda_mpc_upload(dt_cuda *c, const dt_problem *pb, dt_ctx *ctx);
dt_status dt_cuda_load_mpc_kernels(dt_ctx *ctx);

/* cuda_vector.cu: deterministic reductions (fixed grid, per-block partials in c->red, one
 * block for the final sums, one copy of 8 or 16 bytes back). */
static inline int dt_cuda_red_grid(long n) {
  long g = (n + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK;
  if (g < 1) g = 1;
  return g > DT_CUDA_RED_MAX_BLOCKS ? DT_CUDA_RED_MAX_BLOCKS : (int)g;
}
/* Sum nsum sets of per-block partials (set s at c->red + s * DT_CUDA_RED_MAX_BLOCKS, grid
 * entries each) and copy the nsum results into out. */
dt_status dt_cuda_reduce_finish(dt_cuda *c, int grid, int nsum, double *out, dt_ctx *ctx);

/* Partial dot products of a grid of blocks (cuda_vector.cu); skip: a device flag that makes the
 * kernel return at once (the device-side PCG's stop flag), or NULL. */
#ifdef __CUDACC__
__global__ void k_dot_partial(int n, const double *__restrict__ x, const double *__restrict__ y,
                              double *__restrict__ partial, const int *skip);
#endif

/* cuda_coarse.cu: the two-level preconditioner's coarse correction (solver/coarse_space.h). */
typedef struct dt_cuda_coarse_args {
  int dpn, n_nodes, n_sub, n_modes, n_coarse;
  const double *free, *node_d;
  const int *node_sub, *sub_ptr, *sub_nodes, *sub_nbr_ptr, *sub_nbr, *item_ptr, *item_sub,
      *item_local;
  const int *grp_ptr, *grp_item;
  const int *brow_ptr, *bcol;
  const double *val;
  double *P, *E, *y, *w, *yw;
} dt_cuda_coarse_args;
dt_cuda_coarse_args dt_cuda_coarse_args_of(const dt_cuda *c);
dt_status dt_cuda_coarse_upload(dt_cuda *c, const dt_problem *pb, dt_ctx *ctx);
size_t dt_cuda_coarse_bytes(const dt_problem *pb);
/* E^-1 from the current tangent (after the block-Jacobi setup). */
dt_status dt_cuda_coarse_setup(dt_cuda *c, dt_ctx *ctx);
/* z += Z E^-1 Z^T r (and p, when not NULL), y.w into coarse.yw; skip: the PCG's stop flag or NULL. */
dt_status dt_cuda_coarse_apply(dt_cuda *c, const double *r, double *z, double *p, const int *skip,
                               dt_ctx *ctx);
void dt_cuda_coarse_destroy(dt_cuda *c);
dt_status dt_cuda_load_coarse_kernels(dt_ctx *ctx);

/* cuda_matrix_free.cu: the matrix-free operator (element_matrix.h). */
dt_status dt_cuda_mf_upload(dt_cuda *c, const dt_problem *pb, dt_ctx *ctx);
size_t dt_cuda_mf_bytes(const dt_problem *pb); /* its arrays, for the estimate */
/* Slots for the elements that need their own matrix (no class, or plastic), growing the store
 * when needed; then *own_list and c->mf.n_own describe the launch of the tangent kernel. */
dt_status dt_cuda_mf_slots(dt_cuda *c, dt_ctx *ctx);
/* Each node's diagonal block from the element matrices, Dirichlet rows/columns identity. */
dt_status dt_cuda_mf_diagonal(dt_cuda *c, dt_ctx *ctx);
dt_status dt_cuda_mf_apply(dt_cuda *c, dt_vec_id x, dt_vec_id y, dt_ctx *ctx);
double dt_cuda_mf_spmv_bytes(const dt_cuda *c);
/* The two-level preconditioner's item sums (g->P) from the element matrices, for
 * dt_cuda_coarse_setup when there is no assembled tangent. */
dt_status dt_cuda_mf_coarse_items(dt_cuda *c, const dt_cuda_coarse_args *g, dt_ctx *ctx);
dt_status dt_cuda_load_mf_kernels(int type, int dpn, dt_ctx *ctx);
/* cuda_tangent_rows.cu: the tangent of a mesh of congruent hex8 elements, block row by block
 * row on the FP64 tensor cores. Setup decides whether the mesh is served and uploads the class
 * constants (gradients and w det J of each point: DT_CUDA_ROWS_CONST_DOUBLES); assemble writes
 * every tangent value once (no clear needed). */
#define DT_CUDA_ROWS_CONST_DOUBLES (8 * 8 * 3 + 8)
/* tangent: the job's choice (DT_CUDA_TANGENT_COLOUR: never served). */
dt_status dt_cuda_rows_setup(dt_cuda *c, const dt_problem *pb, dt_cuda_tangent tangent,
                             dt_ctx *ctx);
dt_status dt_cuda_rows_assemble(dt_cuda *c, dt_ctx *ctx);
dt_status dt_cuda_load_rows_kernels(dt_ctx *ctx);
/* cuda_stress_coop.cu: y[d] = the sum of node d's incidences of ye (elements ascending); with
 * free and x not NULL, y[d] = x[d] where free[d] is 0 (Dirichlet rows of the operator). */
dt_status dt_cuda_gather_incidences(int n_dofs, int dim, const int *inc_ptr, const int *inc,
                                    const double *ye, const double *free, const double *x,
                                    double *y, cudaStream_t stream, dt_ctx *ctx);

/* cuda_amg.cu: the AMG preconditioner (solver/amg/amg.h) on the device. Setup builds the host
 * hierarchy from the downloaded tangent (the first time, and again when the constrained DOFs
 * change) and uploads it, or refreshes every level's values on the device
 * (cuda_amg_refresh.cu), level 0's alone with keep (DT_PC_KEEP_COARSE); DT_ERR_UNSUPPORTED with the matrix-free operator,
 * DT_ERR_NOT_CONVERGED when the tangent lost stiffness (as dt_amg_create says),
 * DT_ERR_DEVICE_NOMEM when the hierarchy does not fit (it is allocated at its first setup,
 * outside the upload's estimate). Apply runs one V-cycle on the device, z = M^-1 r (r and z
 * distinct). */
dt_status dt_cuda_amg_setup(dt_cuda *c, int keep, dt_ctx *ctx);
dt_status dt_cuda_amg_apply(dt_cuda *c, dt_vec_id r, dt_vec_id z, dt_ctx *ctx);
void dt_cuda_amg_destroy(dt_cuda *c);
void dt_cuda_amg_view(const dt_cuda *c, FILE *f);

/* cuda_linear.cu */
dt_status dt_cuda_dirichlet(dt_cuda *c, dt_ctx *ctx);
/* cuda_positions.cu: c->problem.elem_pos allocated and computed (after conn, elem_ptr, elem_pos_ptr,
 * brow_ptr, bcol and flags are on the device); DT_ERR_INTERNAL if a pair is missing. */
dt_status dt_cuda_compute_positions(dt_cuda *c, dt_ctx *ctx);
dt_status dt_cuda_spmv(dt_cuda *c, dt_vec_id x, dt_vec_id y, dt_ctx *ctx);

/* The tangent on the device is block CSR (BSR): one dpn x dpn block per pair of neighbouring
 * nodes, block row a holding the blocks of a's neighbour list (dt_problem node_nbr, sorted), so
 * the rank r of node b in that list (the per-element position elem_pos) locates block (a, b)
 * at values[(brow_ptr[a] + r) dpn^2], entry (i, j) at [j dpn + i]: column-major inside the
 * block. Why blocks: cuSPARSE's BSR SpMV reads one column index per 9 values instead of one per
 * value, and with column-major blocks it ran 1.9x faster than CSR_ALG2 on the C5 pattern (H200,
 * docs/benchmarks.md, decision table); the element kernels write each block as 9 consecutive doubles. */
#ifdef __CUDACC__
__device__ __forceinline__ double *dt_bsr_block(double *val, const int *brow_ptr, int node,
                                                int rank, int dpn) {
  return val + ((long)brow_ptr[node] + rank) * dpn * dpn;
}
#endif

/* The matrix-free store interleaves the matrices of DT_EMAT_LANES consecutive slots value by
 * value (value v of slot s at dt_cuda_emat_base(s) + v * DT_EMAT_LANES), so that a warp whose
 * threads take consecutive slots reads whole 32-byte sectors (cuda_matrix_free.cu). */
#define DT_EMAT_LANES 4
#ifdef __CUDACC__
__host__ __device__ __forceinline__ long dt_cuda_emat_base(long slot, int emat_doubles) {
  return (slot / DT_EMAT_LANES) * emat_doubles * DT_EMAT_LANES + slot % DT_EMAT_LANES;
}
#endif

/* Block sum over NT threads (a multiple of 32, at most 1024; the block's size) in a fixed order
 * (warp shuffles, then one warp over the warp sums): the same bits on every run. The result is
 * valid in thread 0. */
#ifdef __CUDACC__
template <int NT = DT_CUDA_BLOCK> __device__ __forceinline__ double dt_block_sum(double v) {
  static_assert(NT % 32 == 0 && NT <= 1024, "whole warps, at most 32 of them");
  __shared__ double warp_sums[NT / 32];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < NT / 32 ? warp_sums[threadIdx.x] : 0.0;
  if (warp == 0)
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  __syncthreads(); /* warp_sums may be reused by a second call */
  return v;
}

/* Sum of grid per-block partials in a fixed order (one block of DT_CUDA_BLOCK threads; the
 * result is valid in thread 0): every reduction finishes through this, so the device-side
 * PCG scalars have the same bits as the host-side ones had. */
__device__ __forceinline__ double dt_partials_sum(const double *p, int grid) {
  double s = 0.0;
  for (int i = threadIdx.x; i < grid; i += DT_CUDA_BLOCK) s += p[i];
  return dt_block_sum(s);
}
#endif

#endif
