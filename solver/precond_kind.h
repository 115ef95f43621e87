/* Preconditioner kinds: the job's linear.preconditioner, and the `kind` of the backends'
 * pc_setup (which include problem.h, not model.h). */
#ifndef DT_PRECOND_KIND_H
#define DT_PRECOND_KIND_H

typedef enum dt_precond_kind {
  DT_PC_JACOBI = 0,
  DT_PC_BLOCK_JACOBI = 1, /* nodal blocks (3x3 in 3D, 2x2 in 2D) */
  DT_PC_TWO_LEVEL = 2     /* block Jacobi plus a coarse correction on the rigid-body modes of
                             boxes of nodes (coarse_space.h) */
} dt_precond_kind;

/* The job format's names, in dt_precond_kind order, NULL-terminated (model.c). */
extern const char *const dt_precond_names[];

#endif
