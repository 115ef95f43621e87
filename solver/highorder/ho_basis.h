/* One-dimensional building blocks of the tensor-product (high-order) elements: Gauss-Lobatto
 * nodes, Gauss-Legendre quadrature and the Lagrange basis on the Lobatto nodes, tabulated at
 * the quadrature points. Quadrilaterals and hexahedra of order P are tensor products of these
 * tables (seed 002, §2.1-2.2): an element operator is applied by contracting one direction
 * at a time (sum factorisation) instead of forming (P+1)^3 x (P+1)^3 matrices. */
#ifndef DT_HO_BASIS_H
#define DT_HO_BASIS_H

#include "core/dt_status.h"

/* Highest order accepted. The seed's projection tests go to P = 13; elasticity uses P <= 8. */
#define DT_HO_MAX_ORDER 16
#define DT_HO_MAX_NODES (DT_HO_MAX_ORDER + 1)
/* P + 4 points: the projection error norm (seed (2.32)) integrates with P + 4 per direction. */
#define DT_HO_MAX_QPOINTS (DT_HO_MAX_ORDER + 4)

typedef struct dt_ho_basis1d {
  int order;                                          /* P */
  int nnodes;                                         /* P + 1 Lobatto nodes */
  int nqp;                                            /* Gauss-Legendre points */
  double node[DT_HO_MAX_NODES];                       /* Lobatto nodes on [-1, 1], ascending */
  double qp[DT_HO_MAX_QPOINTS];                       /* quadrature points, ascending */
  double qw[DT_HO_MAX_QPOINTS];                       /* quadrature weights */
  double interp[DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES]; /* interp[q * nnodes + a] = L_a(qp[q]) */
  double grad[DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES];   /* grad[q * nnodes + a] = L_a'(qp[q]) */
} dt_ho_basis1d;

/* n >= 2 Gauss-Lobatto points on [-1, 1] (endpoints included) and their weights, ascending.
 * Interior points are the roots of P'_{n-1}, found by Newton from Chebyshev-Lobatto guesses. */
dt_status dt_ho_gauss_lobatto(int n, double *x, double *w, dt_ctx *ctx);
/* n >= 1 Gauss-Legendre points on [-1, 1] and weights, ascending; exact to degree 2n - 1. */
dt_status dt_ho_gauss_legendre(int n, double *x, double *w, dt_ctx *ctx);
/* Values L[a] and derivatives dL[a] (dL may be NULL) at x of the n Lagrange polynomials
 * through node[0..n-1]. */
void dt_ho_lagrange(int n, const double *node, double x, double *L, double *dL);
/* Tables of order P on its Lobatto nodes at nqp Gauss-Legendre points (nqp = 0 picks P + 2,
 * which integrates the mass matrix of an affine element exactly and a curved one well). */
dt_status dt_ho_basis1d_init(dt_ho_basis1d *b, int order, int nqp, dt_ctx *ctx);

#endif
