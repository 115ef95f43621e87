/* Mass matrices of order-P hexahedral meshes for explicit dynamics (ho_explicit.h).
 *
 * Three forms of M = int rho N_a N_b dV, all on the same Lagrange basis through the
 * Gauss-Lobatto nodes (ho_mesh.h):
 *  - GLL (spectral) lumping: the integral taken by the (P+1)^3 Lobatto rule at the nodes
 *    themselves, where N_a(x_b) = delta_ab, so M is exactly diagonal, M_aa = rho w_a det J(x_a)
 *    (the seed's "spectral mass with a nodal basis"). Lobatto weights are positive, so every
 *    entry is positive wherever det J is;
 *  - row-sum lumping of the consistent mass by Gauss quadrature: M_aa = int rho N_a dV. On an
 *    affine element this equals the GLL entry (the Lobatto rule integrates the degree-P L_a
 *    exactly and gives w_a), so it is positive for every P; on a curved element the two differ
 *    by the quadrature error of det J and a row sum could in principle turn negative, which is
 *    checked and refused;
 *  - the consistent mass as a matrix-free product v = M u by sum factorisation with the Gauss
 *    tables and w det J of the elasticity operator (exact for affine elements with its default
 *    P + 1 points), for the consistent-mass variant that solves with CG every step.
 * Lumped masses are per node (the same for the three components); products act on node-major
 * DOF vectors u[3 n + c] as ho_elastic does. */
#ifndef DT_HO_MASS_H
#define DT_HO_MASS_H

#include "core/dt_status.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"

typedef enum dt_ho_mass_kind {
  DT_HO_MASS_GLL = 0,       /* spectral lumping at the Lobatto nodes (default) */
  DT_HO_MASS_ROWSUM = 1,    /* row sums of the Gauss-integrated consistent mass */
  DT_HO_MASS_CONSISTENT = 2 /* consistent, matrix-free, solved by CG */
} dt_ho_mass_kind;

/* Name of a mass kind ("gll", "rowsum", "consistent"). */
const char *dt_ho_mass_name(dt_ho_mass_kind kind);

/* mass[n] = M_nn of the GLL-collocated mass with density rho, all m->n_nodes nodes
 * (overwritten). Errors (DT_ERR_INPUT): rho not positive and finite; det J <= 0 at a node
 * (naming the element and node). */
dt_status dt_ho_mass_gll(const dt_ho_mesh *m, double rho, double *mass, dt_ctx *ctx);
/* mass[n] = int rho N_n dV with op's Gauss rule, op->n_nodes entries (overwritten). Errors
 * (DT_ERR_INPUT): rho not positive and finite; a row sum <= 0 (naming the node and its
 * coordinates from m, and pointing to the GLL mass). */
dt_status dt_ho_mass_rowsum(const dt_ho_elastic *op, const dt_ho_mesh *m, double rho, double *mass,
                            dt_ctx *ctx);

/* The consistent mass as an operator: the elasticity operator's tables and w det J, and rho. */
typedef struct dt_ho_mass_op {
  const dt_ho_elastic *op; /* borrowed */
  double rho;
} dt_ho_mass_op;

/* v = M u over all 3 n_nodes DOFs (v overwritten; u, v must not alias). Errors: DT_ERR_NOMEM. */
dt_status dt_ho_mass_apply(const dt_ho_mass_op *mo, const double *u, double *v, dt_ctx *ctx);
/* Same with the signature dt_ho_pcg_solve takes (op is a dt_ho_mass_op). */
dt_status dt_ho_mass_apply_fn(const void *op, const double *u, double *v, dt_ctx *ctx);

#endif
