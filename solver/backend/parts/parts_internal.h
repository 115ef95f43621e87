/* What the files of backend/parts/ share and nothing else uses. */
#ifndef DT_PARTS_INTERNAL_H
#define DT_PARTS_INTERNAL_H

#include "backend/backend.h"
#include "core/intern.h"
#include "partition/partition.h"

/* One part: its sub-problem's instance of the inner backend. */
typedef struct dt_parts_slot {
  void *impl;
  int device;
  int n_dofs;     /* local DOFs, ghosts included */
  int owned_dofs; /* the owned prefix of the local vectors */
  int n_qp;
  int *qp_ptr;  /* n_elems + 1 local point offsets (the part's elements in dt_part_local order) */
  double *host; /* n_dofs of host scratch for vec_set / vec_get */
  /* The part's point fields between its download and their copy into the global arrays, kept
   * from one increment to the next (fresh pages for every increment cost more than the copy:
   * 6.4 s an increment for 106M points on 4 GPUs). */
  double *f_stress, *f_strain, *f_peeq;
  dt_ctx ctx; /* the part's error while the parts run in parallel */
} dt_parts_slot;

typedef struct dt_parts {
  const dt_backend_ops *in;
  int n; /* parts */
  int dpn, n_nodes, n_dofs, n_elems, n_qp;
  int *qp_ptr;              /* global point offsets, n_elems + 1 */
  int parallel;             /* 1: drive the parts from one host thread each (device backends) */
  int matrix_free;          /* the problem's operator is matrix-free (no AMG) */
  int pc_amg;               /* the preconditioner: 0 block Jacobi, 1 the parts' own AMGs (additive
                       Schwarz, device backends), 2 one AMG across the parts (host backends) */
  struct dt_amg_parts *amg; /* pc_amg 2's hierarchy, kept between tangents */
  long tangent_serial, amg_serial; /* tangent_assemble's count, and its value at amg's setup */
  dt_part_local *L;                /* n */
  dt_parts_slot *s;                /* n */
  const dt_halo_ops *halo;
  void *halo_user;
  double seconds_partition, seconds_build, seconds_upload; /* the setup's phases */
  int64_t edgecut;
  int interface_nodes;
  double imbalance;
} dt_parts;

/* The sub-problem of part l of the global problem gp: its elements (in l's order) on its
 * local nodes, the pattern and colouring built anew, point offsets and eigenstrains carried
 * over. The result borrows l's elem_ptr and conn; *x_out and *type_out are the arrays it
 * borrows for coordinates and element types, which the caller frees after the problem
 * (dt_problem_destroy does not free borrowed arrays). */
DT_INTERN dt_status dt_parts_subproblem(const dt_problem *gp, const dt_part_local *l,
                                        dt_problem **out, double **x_out, unsigned char **type_out,
                                        dt_ctx *ctx);

#endif
