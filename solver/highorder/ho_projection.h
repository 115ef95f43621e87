/* L2 projection of a function onto Lagrange/Gauss-Lobatto tensor-product quadrilaterals (2D)
 * and hexahedra (3D) of per-element order P (seed 002, §2.3-2.5), the validation problem of
 * the seed's Tables 6.2 and 6.3.
 *
 * Two solution strategies share one mesh description:
 * - the element-wise (local) solver of the seed: every element solves M_e u_e = f_e on its
 *   own, and every shared value is the measure-weighted average sum_e S_e u_e / S_p of the
 *   element values (2.34-2.36). Where elements of different orders share an edge or face,
 *   each element's solution is evaluated at the Lobatto nodes of the lowest order on that
 *   entity before averaging (§2.5), and the averaged lower-order trace is what the higher
 *   order element carries there, so the result is continuous;
 * - the global conforming projection (assembled M u = f, matrix-free CG with Jacobi), for
 *   p-uniform meshes, as the reference the local solver is compared with.
 *
 * Element matrices and loads are sum-factorised: 1D Gauss-Legendre tables contracted one
 * direction at a time with per-point weights w_q |J_q|, so distorted and curved elements are
 * integrated as accurately as straight ones. Elements share vertices by coordinates (a sort
 * with a tolerance relative to the element size, as the seed matches interface entities by
 * exchanging coordinates); edges and faces are shared through their vertices.
 *
 * Element-wise arrays ("values") hold, element after element, the (P_e + 1)^dim nodal values
 * of each element in lexicographic order (xi_1 fastest); dt_ho_proj_values_offset gives the
 * start of an element. Elements are numbered from 1 in messages, in input order. */
#ifndef DT_HO_PROJECTION_H
#define DT_HO_PROJECTION_H

#include <stddef.h>

#include "core/dt_status.h"

/* The function to project: value at a point x[dim]. */
typedef double (*dt_ho_proj_fn)(const double *x, void *user);
/* A smooth map applied to points (curved geometry): y[dim] from x[dim]; may be in place. */
typedef void (*dt_ho_proj_map)(const double *x, double *y, void *user);

typedef struct dt_ho_proj dt_ho_proj;

typedef struct dt_ho_proj_cg_info {
  int iterations;   /* CG iterations used */
  double rel_resid; /* final ||r|| / ||f|| */
  int converged;    /* 1 when rel_resid reached the tolerance */
} dt_ho_proj_cg_info;

/* Build the projection problem. dim is 2 or 3; order[e] is P_e (1..DT_HO_MAX_ORDER);
 * coords holds, element after element, dim coordinates of each of its (P_e + 1)^dim nodes
 * at the Gauss-Lobatto points (isoparametric geometry, seed (2.5)), copied. Mass matrices
 * and loads use P_e + qextra Gauss-Legendre points per direction (qextra 0 picks 2).
 * Errors (DT_ERR_INPUT, naming the element): an order outside 1..DT_HO_MAX_ORDER, a
 * non-finite coordinate, a Jacobian determinant <= 0 at a quadrature point (inverted or
 * degenerate element), corners that coincide. DT_ERR_NOMEM. */
dt_status dt_ho_proj_create(int dim, int nelem, const int *order, const double *coords, int qextra,
                            dt_ho_proj **out, dt_ctx *ctx);
/* NULL-safe; sets *p to NULL. */
void dt_ho_proj_destroy(dt_ho_proj **p);

/* Number of element-wise values (sum of (P_e + 1)^dim) and where element e (0-based) starts. */
size_t dt_ho_proj_nvalues(const dt_ho_proj *p);
size_t dt_ho_proj_values_offset(const dt_ho_proj *p, int e);
/* Number of distinct (continuous) unknowns: entity values at their common order plus element
 * interiors. For a p-uniform mesh this is the size of the global system. */
size_t dt_ho_proj_ndofs(const dt_ho_proj *p);
/* Measure S_e (area or volume) of element e, integrated with the mass rule. */
double dt_ho_proj_measure(const dt_ho_proj *p, int e);

/* Element-wise local solver (seed §2.4-2.5): values[nvalues] receives the averaged,
 * continuous solution. Each element system is solved by CG preconditioned with the exact
 * inverse of its straight (constant-Jacobian) mass matrix, (2.16), to 1e-14 relative.
 * DT_ERR_NOMEM; DT_ERR_NOT_CONVERGED if an element solve does not converge. */
dt_status dt_ho_proj_local(const dt_ho_proj *p, dt_ho_proj_fn f, void *user, double *values,
                           dt_ctx *ctx);

/* Global conforming L2 projection of a p-uniform mesh by matrix-free CG with Jacobi to
 * rel_tol (<= 0 picks 1e-14) relative residual; values as above; info may be NULL.
 * DT_ERR_UNSUPPORTED for a p-non-uniform mesh; DT_ERR_NOT_CONVERGED (with info filled) if
 * CG stops short of the tolerance. */
dt_status dt_ho_proj_global(const dt_ho_proj *p, dt_ho_proj_fn f, void *user, double rel_tol,
                            double *values, dt_ho_proj_cg_info *info, dt_ctx *ctx);

/* L2 error (2.32): sqrt(sum_e integral (f - u_h)^2 |J|), with P_e + extra Gauss-Legendre
 * points per direction (extra < 4 is raised to 4). */
dt_status dt_ho_proj_error(const dt_ho_proj *p, dt_ho_proj_fn f, void *user, const double *values,
                           int extra, double *err, dt_ctx *ctx);

/* Dense element mass matrix M[nn * nn] of element e (nn = (P_e + 1)^dim), built column by
 * column from the sum-factorised operator B^T diag(w_q |J_q|) B. */
dt_status dt_ho_proj_elem_mass(const dt_ho_proj *p, int e, double *M, dt_ctx *ctx);

/* Node coordinates of one element of order P from its 2^dim corners (lexicographic: corner
 * (a, b, c) at index a + 2 b + 4 c, a along xi_1): the multilinear map of the corners at the
 * Gauss-Lobatto points, then map (may be NULL) applied to each node. xyz receives
 * (P + 1)^dim points of dim coordinates. DT_ERR_INPUT for an order outside 1..MAX. */
dt_status dt_ho_proj_nodes_from_corners(int dim, int order, const double *corners,
                                        dt_ho_proj_map map, void *user, double *xyz, dt_ctx *ctx);

#endif
