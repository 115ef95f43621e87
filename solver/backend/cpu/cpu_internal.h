/* Private state of the CPU backend, shared by its files (not included outside solver/cpu/). */
#ifndef DT_CPU_INTERNAL_H
#define DT_CPU_INTERNAL_H

#include <stdio.h>

#include "amg/amg.h"
#include "backend/backend.h"
#include "element/element_kernel.h"

/* Loops shorter than this run on one thread: a parallel region costs a fork and a barrier
 * (microseconds, far more when cores are oversubscribed), more than a short loop saves. */
#define DT_OMP_MIN_DOFS 50000
#define DT_OMP_MIN_ELEMS 2000

typedef struct dt_cpu {
  dt_problem pb; /* own deep copy of the arrays the backend reads */
  double *vec[DT_VEC_COUNT];
  double *val; /* CSR values of the tangent */
  double *pc;  /* preconditioner: inverse diagonal or inverse nodal blocks */
  int pc_kind;
  /* Two-level preconditioner (cpu_coarse.c): the Cholesky factor L of E = Z^T K Z (row-major,
   * n_modes * n_sub square: L below the diagonal, L^T above it) and a coarse vector. */
  double *coarse_E, *coarse_y, *coarse_R; /* coarse_R: the masked modes, NM per DOF */
  int coarse_failed;
  /* Algebraic multigrid (cpu_linear.c): the hierarchy over val, kept between setups and
   * refreshed with new values while the constrained DOFs stay the same. */
  dt_amg *amg;
  /* The AMG of a split run's part (dt_cpu_pc_amg_local): the matrix its hierarchy borrows (the
   * tangent with every node's diagonal block the parts' sum), and whether the hierarchy in
   * c->amg is of it (1) or of the tangent (0). */
  double *amg_val;
  int amg_local;
  /* Sparse direct preconditioner (cpu_direct.c): CHOLMOD's factor of val, or NULL. */
  struct dt_cpu_direct *direct;
  /* tangent_assemble's count, and its value at the AMG's last setup: a second setup on the same
   * tangent builds the hierarchy anew (backend.h, pc_setup). */
  long tangent_serial, amg_serial;
  /* Per-point arrays, structure of arrays (see element_kernel.h). */
  double *hist_c, *hist_t;
  double *sig_c, *sig_t;
  double *eps_c, *eps_t;
  /* Matrix-free operator (pb.matrix_free; cpu_matrix_free.c): which elements had a plastic
   * point in the last stress update, each element's slot in emat (-1: its class's elastic
   * matrix serves), the stored matrices (element_matrix.h), each node's diagonal block, the
   * product's element results per incidence (dpn per entry of conn). */
  unsigned char *elem_plastic;
  int *emat_slot;
  double *emat;
  long emat_cap, n_own;
  double *mf_diag;
  double *mf_inc;
  int threads;
} dt_cpu;

/* Element e's residual (fe) and, when Ke is not NULL, its tangent at the trial state of u;
 * returns the number of plastic points, or < 0 if a return mapping failed (cpu_elements.c). */
int dt_cpu_element_residual(dt_cpu *c, int e, const double *u, dt_qp_arrays *qa, double *fe,
                            double *Ke);
/* cpu_matrix_free.c: the element matrices, diagonal blocks and product of the matrix-free
 * operator. */
dt_status dt_cpu_mf_assemble(dt_cpu *c, dt_ctx *ctx);
void dt_cpu_mf_apply(dt_cpu *c, const double *x, double *y);
/* The stored matrix element e uses now (element_matrix.h layout): its slot's or its class's. */
const double *dt_cpu_mf_element_matrix(const dt_cpu *c, int e);
double dt_cpu_mf_bytes(const dt_problem *pb);

dt_status dt_cpu_stress_update(void *impl, dt_vec_id u, dt_vec_id fint, dt_stress_report *rep,
                               dt_ctx *ctx);
dt_status dt_cpu_tangent_assemble(void *impl, dt_ctx *ctx);
dt_status dt_cpu_operator_apply(void *impl, dt_vec_id x, dt_vec_id y, dt_ctx *ctx);
dt_status dt_cpu_pc_setup(void *impl, int kind, dt_ctx *ctx);
dt_status dt_cpu_pc_apply(void *impl, dt_vec_id r, dt_vec_id z, dt_ctx *ctx);
/* What a CPU backend offers as a part of a split run (cpu_parts.c, backend.h): a dot over the
 * first n entries (cpu_backend.c), block Jacobi in two halves and the part's AMG (cpu_linear.c). */
extern const dt_backend_part_ops dt_cpu_part_ops;
dt_status dt_cpu_vec_dot_n(void *impl, dt_vec_id x, dt_vec_id y, int n, double *out, dt_ctx *ctx);
dt_status dt_cpu_pc_blocks(void *impl, double **blocks, dt_ctx *ctx);
dt_status dt_cpu_pc_blocks_invert(void *impl, dt_ctx *ctx);
dt_status dt_cpu_pc_amg_local(void *impl, int kind, dt_ctx *ctx);
dt_status dt_cpu_coarse_setup(dt_cpu *c, dt_ctx *ctx);
/* z += Z E^-1 Z^T r */
dt_status dt_cpu_coarse_apply(dt_cpu *c, const double *r, double *z);
/* cpu_direct.c: the direct preconditioner's factor of the current tangent (kept instead with
 * keep, DT_PC_KEEP_COARSE, when one exists), its solve z = K^-1 r, its line of the view, and
 * freeing it. */
typedef struct dt_cpu_direct dt_cpu_direct;
dt_status dt_cpu_direct_setup(dt_cpu *c, int keep, dt_ctx *ctx);
dt_status dt_cpu_direct_apply(dt_cpu *c, const double *r, double *z, dt_ctx *ctx);
void dt_cpu_direct_view(const dt_cpu *c, FILE *f);
void dt_cpu_direct_free(dt_cpu *c);
/* Largest factor the direct preconditioner computes, bytes of its values. */
#define DT_DIRECT_MAX_BYTES 16e9
dt_status dt_cpu_measure(void *impl, dt_backend_measure *out, dt_ctx *ctx);
dt_status dt_cpu_estimate(const dt_problem *pb, double *bytes, dt_ctx *ctx);
int dt_cpu_device_info(int ordinal, dt_device_info *out);
dt_status dt_cpu_problem_copy(const dt_problem *src, dt_problem *dst, dt_ctx *ctx);
void dt_cpu_problem_free(dt_problem *pb);

#endif
