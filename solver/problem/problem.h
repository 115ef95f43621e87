/* The problem: a model compiled for solving.
 *
 * Built once per job on the host (dt_problem_create) and handed to a backend, which copies
 * what it needs (the CUDA backend uploads it once). Holds the DOF numbering (node-major, dpn
 * DOFs per node), per-element section data, integration-point offsets, the CSR pattern of the
 * tangent with node-blocked columns, per-element CSR positions ([Kiran2023, Algorithm 5]: for
 * element e, entry A*npe+B is the rank of node conn[B] among the neighbours of node conn[A], so the value
 * of DOF pair (A,a),(B,b) lives at row_ptr[dpn*nA + a] + dpn*rank + b), and a greedy element
 * colouring in which no two elements of a colour share a node (race-free scatter).
 * Plain data: backends read the fields directly and never include solver internals. */
#ifndef DT_PROBLEM_H
#define DT_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/dt_status.h"
#include "material/material.h"
#include "model/precond_kind.h"

typedef struct dt_model dt_model;

/* The operations of the linear constraints on a vector v of n_dofs (dt_problem_mpc_apply and
 * the backends' mpc_apply): with T the map u = T u_hat that fills the dependent DOFs from the
 * independent ones (the identity on independent DOFs),
 *   EXPAND  v <- T v:    v[d] = sum_k a_dk v[k] on every dependent DOF d (v[d] overwritten);
 *   REDUCE  v <- T^T v:  v[k] += sum_d a_dk v[d] on independent DOFs, then v[d] = 0;
 *   ZERO    v[d] = 0 on every dependent DOF;
 *   ZERO_ISOLATED  v[d] = 0 on the dependent DOFs of nodes no element uses (model_mpc.c): the
 *           backends hold those rows as constrained (identity), which K has not. */
typedef enum dt_mpc_op {
  DT_MPC_EXPAND = 0,
  DT_MPC_REDUCE = 1,
  DT_MPC_ZERO = 2,
  DT_MPC_ZERO_ISOLATED = 3
} dt_mpc_op;

typedef struct dt_problem {
  int dim; /* 2 or 3 */
  int dpn; /* DOFs per node (= dim) */
  int n_nodes;
  int n_dofs; /* dpn * n_nodes */
  int n_elems;
  const double *x;                /* borrowed from the model: 3 * n_nodes */
  const unsigned char *elem_type; /* borrowed */
  const int *elem_ptr;            /* borrowed: n_elems + 1 */
  const int *conn;                /* borrowed */
  /* Per element (owned): */
  int *elem_mat;             /* material index */
  unsigned char *elem_state; /* dt_stress_state */
  unsigned char *elem_bbar;  /* 1: mean-dilatation B-bar */
  double *elem_thick;        /* 2D thickness (1 in 3D) */
  int *qp_ptr;               /* n_elems + 1 offsets into integration-point arrays */
  int n_qp;
  int max_npe;
  /* Initial eigenstrain per point (dt_model_initial_eigenstrain: the model's initial stresses
   * and plastic strains), 6 components, structure of arrays; NULL without initial conditions,
   * and then the kernels read nothing more than before. */
  double *qp_eps0;
  /* |f_int| at u = 0 of those initial states (their nodal forces, elastic, over every DOF;
   * dt_problem_initial_force), 0 without: the least force scale of Newton's residual. */
  double f0_norm;
  /* Materials (owned copy of the parameter blocks). */
  int n_mats;
  dt_material_params *mats;
  /* Tangent pattern. nnz counts scalar nonzeros (64-bit); the node blocks (node_nbr) are fewer
   * than 2^31. The scalar CSR (row_ptr, col) has int32 indices, so it exists only for
   * nnz < 2^31 (dt_problem_csr checks); row_ptr and col are NULL in the problem
   * dt_problem_create makes (only the CPU backend's copy holds them). */
  int *row_ptr; /* n_dofs + 1 */
  int *col;     /* nnz */
  int64_t nnz;
  int *node_nbr_ptr; /* n_nodes + 1: neighbour lists of nodes (sorted) */
  int *node_nbr;
  /* Per-element positions: for element e, npe*npe ranks at elem_pos_ptr[e]. elem_pos is NULL
   * in the problem dt_problem_create makes: a backend that keeps them on the host has them
   * built for its copy (dt_problem_positions, the CPU backend); the CUDA backend computes them
   * on the device from the uploaded neighbour lists (390 MB less to build and copy on C5). */
  int *elem_pos;
  int64_t *elem_pos_ptr; /* n_elems + 1 offsets into elem_pos */
  /* Node -> element map of the pattern build (dt_problem_node_elements), kept for backends
   * that sum per node (the CUDA backend's f_int gather) instead of being built again. */
  int *node_elem_ptr; /* n_nodes + 1 */
  int *node_elem;     /* each node's elements, ascending */
  int *node_inc;      /* the matching incidences (offsets into conn) */
  /* Colouring. */
  int n_colors;
  int *color_ptr; /* n_colors + 1 offsets into color_elems */
  int *color_elems;
  /* Coarse space of the two-level preconditioner (coarse_space.h); n_sub = 0 and the arrays
   * NULL unless the model asks for that preconditioner. */
  int n_sub;        /* boxes of nodes */
  int n_modes;      /* rigid-body modes per box: 6 (3D) or 3 (2D) */
  int *sub_ptr;     /* n_sub + 1 offsets into sub_nodes */
  int *sub_nodes;   /* each box's nodes, ascending */
  int *node_sub;    /* n_nodes: the box of each node */
  double *node_d;   /* 3 per node: offset from its box's centre / the box's scale */
  int *sub_nbr_ptr; /* n_sub + 1: boxes coupled to each box (itself included) */
  int *sub_nbr;     /* ascending */
  int *item_ptr;    /* n_nodes + 1: per node, the boxes of its neighbour nodes */
  int *item_sub;    /* ascending per node */
  int *item_local;  /* the rank of item_sub among its node's box's sub_nbr */
  int *grp_ptr;     /* sub_nbr_ptr[n_sub] + 1: per coupling (box s, its l-th box) */
  int *grp_item;    /* the items of s's nodes that reach that box, in node order */
  /* Matrix-free operator (linear.operator "matrix_free"; problem_classes.c): element matrices
   * are stored per element (element_matrix.h) instead of assembled, and elements that are
   * translated copies of each other share one elastic matrix while they are elastic.
   * matrix_free = 0 and the arrays NULL otherwise. */
  int matrix_free;
  int emat_doubles; /* doubles per stored element matrix: dt_emat_doubles(max_npe, dpn) */
  int n_classes;    /* classes of congruent elements (at most 64) */
  int *elem_class;  /* n_elems: each element's class, -1 for none */
  double *class_K;  /* n_classes * emat_doubles: each class's elastic matrix */
  /* Linear constraints (the model's equations resolved into independent DOFs,
   * dt_model_equations_resolve): dependent DOF mpc_dof[i] = sum_k mpc_val[k] u[mpc_col[k]] over
   * k = mpc_ptr[i] .. mpc_ptr[i + 1] - 1. The transpose, by independent DOF, makes T^T a gather:
   * y[mpct_dof[j]] += sum_k mpct_val[k] y[mpct_src[k]] over k = mpct_ptr[j] .. mpct_ptr[j + 1] - 1
   * (mpct_src: dependent DOFs, in the order of i). n_mpc = 0 and the arrays NULL without
   * equations. */
  int n_mpc;
  int *mpc_dof, *mpc_ptr, *mpc_col;
  double *mpc_val;
  int n_mpct;
  int *mpct_dof, *mpct_ptr, *mpct_src;
  double *mpct_val;
  int n_mpc_iso; /* dependent DOFs of nodes no element uses (DT_MPC_ZERO_ISOLATED) */
  int *mpc_iso;
} dt_problem;

/* The constraint arrays of pb from the model's equations (problem_mpc.c); nothing without. */
dt_status dt_problem_build_mpc(const dt_model *m, dt_problem *pb, dt_ctx *ctx);
/* Copy the constraint arrays of src into dst (a backend's own copy of the problem). */
dt_status dt_problem_copy_mpc(const dt_problem *src, dt_problem *dst, dt_ctx *ctx);
void dt_problem_free_mpc(dt_problem *pb);
/* op (dt_mpc_op) on the host vector v of n_dofs; nothing when the problem has no constraints. */
void dt_problem_mpc_apply(const dt_problem *pb, dt_mpc_op op, double *v);
/* Bytes of the constraint arrays (estimates). */
double dt_problem_mpc_bytes(const dt_problem *pb);

/* The material of every element in step `step` (0-based) into elem_mat (n_elems): its section's,
 * then the material changes of steps 0 .. step in order (CalculiX's *CHANGE SOLID SECTION).
 * Returns 1 if some step up to `step` changes a material, else 0 (elem_mat is then the
 * problem's own elem_mat). */
int dt_problem_step_materials(const dt_model *m, int step, int *elem_mat);
/* The norm of the initial states' nodal forces into pb->f0_norm (problem_initial.c). */
dt_status dt_problem_initial_force(dt_problem *pb, dt_ctx *ctx);

/* Compile a finished model (dt_model_finish done). */
dt_status dt_problem_create(const dt_model *m, dt_problem **out, dt_ctx *ctx);
/* The problem without its pattern, colouring, coarse space or element classes (nnz 0, their
 * arrays NULL): per-element data, points, eigenstrains and constraints, what a run split over
 * several devices needs of the whole model, its parts building their own (backend/parts/).
 * 9.4 s and about 4 GB of host memory less for 33M hex8. */
dt_status dt_problem_create_outline(const dt_model *m, dt_problem **out, dt_ctx *ctx);
void dt_problem_destroy(dt_problem **pb);
/* Print sizes, pattern and colouring statistics. */
void dt_problem_view(const dt_problem *pb, FILE *f);

/* Internal steps of dt_problem_create, exposed for tests. */
dt_status dt_problem_build_pattern(dt_problem *pb, dt_ctx *ctx);
dt_status dt_problem_build_colors(dt_problem *pb, dt_ctx *ctx);
/* The element classes and their elastic matrices (fields of the matrix-free operator). */
dt_status dt_problem_build_classes(dt_problem *pb, dt_ctx *ctx);
/* Elements without a class (they always store their own matrix). */
long dt_problem_unclassed(const dt_problem *pb);
/* Node -> elements map (CSR, each node's elements ascending) and, when inc_out is not NULL,
 * each entry's position k in conn (its incidence); the caller frees the arrays with dt_free. */
dt_status dt_problem_node_elements(const dt_problem *pb, int **ptr_out, int **list_out,
                                   int **inc_out, dt_ctx *ctx);
/* The element positions (layout of dt_problem.elem_pos); the caller frees them with dt_free.
 * DT_ERR_INTERNAL if a node pair of an element is not in the pattern. */
dt_status dt_problem_positions(const dt_problem *pb, int **pos_out, dt_ctx *ctx);
/* The scalar CSR arrays of the pattern (row offsets per DOF, column per nonzero: every DOF row
 * of node a holds the columns dpn*b + j of a's neighbours b in order); the caller frees them
 * with dt_free. DT_ERR_UNSUPPORTED when nnz does not fit its 32-bit offsets. */
dt_status dt_problem_csr(const dt_problem *pb, int **row_ptr_out, int **col_out, dt_ctx *ctx);
/* Position of DOF pair ((node a, comp i), (node b, comp j)) in the CSR value array with row
 * offsets row_ptr; -1 if the pair is not in the pattern (search, for tests, not hot paths). */
int64_t dt_problem_csr_index(const dt_problem *pb, const int *row_ptr, int a, int i, int b, int j);

#endif
