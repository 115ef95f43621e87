/* Matrix-free isotropic linear elasticity on order-P hexahedra by sum factorisation.
 *
 * The operator v = K u never forms K. Setup stores, per element and Gauss point, the geometric
 * factors qdata; apply gathers an element's displacements, takes reference gradients by three
 * one-dimensional contractions with the Lagrange tables of ho_basis (O(P^4) per element, not
 * the O(P^6) of an element matrix), maps them to physical gradients, forms the stress
 *   sigma = lambda tr(eps) I + 2 mu eps,   eps = sym(grad u),
 * weights it by w det J (dxi/dx)^T and contracts back with the transposed tables before the
 * scatter-add. This is libCEED's examples/solids layout with plain arrays, so a CUDA kernel can
 * take the same struct: one thread block per element, one thread per quadrature point.
 *
 * Data layout (all row-major, 0-based):
 *   u, v           node-major DOFs: u[3 n + c], c = x, y, z;
 *   elem_nodes     n_elems x (P+1)^3 node ids, lexicographic (ho_mesh.h);
 *   B, G           interpolation and derivative tables, B[q (P+1) + a] = L_a(xi_q),
 *                  G[q (P+1) + a] = L_a'(xi_q), for nq Gauss-Legendre points xi_q;
 *   qdata          per element e, component k (0..9) and point q (0..nq^3 - 1, lexicographic,
 *                  x fastest): qdata[(e * 10 + k) * nq^3 + q], with k = 0 the weight
 *                  w_q det J and k = 1 + 3 i + j the inverse Jacobian dxi_i/dx_j (contiguous in q
 *                  so that threads of one element read coalesced);
 *   lambda, mu     Lame parameters per element.
 * On the CPU, OpenMP runs the elements of one colour at a time (no two elements of a colour
 * share a node), so the scatter needs no atomics and the result does not depend on the thread
 * count. */
#ifndef DT_HO_ELASTIC_H
#define DT_HO_ELASTIC_H

#include <stdio.h>

#include "core/dt_status.h"
#include "highorder/ho_basis.h"
#include "highorder/ho_mesh.h"

/* A colour with fewer Gauss points than this in all runs on one thread: the fork and join
 * (and a thread descheduled at the barrier when cores are shared) would cost more. */
#define DT_HO_PARALLEL_POINTS 8192

/* Components of qdata per quadrature point: w det J, then dxi/dx row-major. */
#define DT_HO_QDATA_SIZE 10

typedef struct dt_ho_elastic {
  int order, nq, n_elems, n_nodes;
  const int *elem_nodes; /* borrowed from the mesh, which must outlive the operator */
  double *qdata;         /* n_elems * 10 * nq^3 (owned) */
  double *lambda, *mu;   /* n_elems each (owned) */
  double B[DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES]; /* nq x (P+1) */
  double G[DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES]; /* nq x (P+1) */
  double qw[DT_HO_MAX_QPOINTS];                  /* 1D Gauss weights */
  /* CPU scheduling: elements grouped by colour, color_elems[color_ptr[k] .. color_ptr[k+1]) */
  int n_colors;
  int *color_ptr, *color_elems; /* owned */
} dt_ho_elastic;

/* Lame parameters of Young's modulus E and Poisson's ratio nu. */
void dt_ho_lame(double E, double nu, double *lambda, double *mu);

/* Sets up op on mesh m with nq Gauss points per direction (0 picks P + 1) and per-element Lame
 * parameters (copied; mu > 0, lambda + 2 mu / 3 > 0). Errors (DT_ERR_INPUT, naming the
 * element): nq out of range, bad material, a Jacobian determinant <= 0 at a Gauss point
 * (inverted or over-curved element). Release with dt_ho_elastic_free. */
dt_status dt_ho_elastic_setup(const dt_ho_mesh *m, int nq, const double *lambda, const double *mu,
                              dt_ho_elastic *op, dt_ctx *ctx);
/* Releases what op owns and zeroes it (NULL-safe). */
void dt_ho_elastic_free(dt_ho_elastic *op);

/* v = K u over all 3 n_nodes DOFs (v is overwritten; u and v must not alias). Errors:
 * DT_ERR_NOMEM for the per-thread scratch. */
dt_status dt_ho_elastic_apply(const dt_ho_elastic *op, const double *u, double *v, dt_ctx *ctx);
/* Same as dt_ho_elastic_apply with the signature dt_ho_pcg_solve takes. */
dt_status dt_ho_elastic_apply_fn(const void *op, const double *u, double *v, dt_ctx *ctx);
/* diag[i] = K_ii for all 3 n_nodes DOFs (overwritten), by sum factorisation of the squared
 * tables. */
dt_status dt_ho_elastic_diagonal(const dt_ho_elastic *op, double *diag, dt_ctx *ctx);

/* Flops and bytes of one apply as counted by a bench: the contractions, the pointwise stress
 * and the element gather/scatter, with qdata, u, v, elem_nodes and lambda/mu read once. */
void dt_ho_elastic_cost(const dt_ho_elastic *op, double *flops, double *bytes);

/* Prints what op holds: order, points, sizes, qdata memory, colours, the cost of one apply. */
void dt_ho_elastic_view(const dt_ho_elastic *op, FILE *f);

/* Body force density f(x) (force per volume) at a point. */
typedef void (*dt_ho_body_fn)(const double x[3], double f[3], void *user);
/* Traction t(x, n) (force per area) at a point x of a face with outward unit normal n. */
typedef void (*dt_ho_traction_fn)(const double x[3], const double n[3], double t[3], void *user);

/* b[3 n + c] += int N_n f_c dV over the mesh, with op's quadrature. */
dt_status dt_ho_elastic_body_load(const dt_ho_elastic *op, const dt_ho_mesh *m, dt_ho_body_fn f,
                                  void *user, double *b, dt_ctx *ctx);
/* b[3 n + c] += int N_n t_c dA over the n_faces hex8 faces (elem[i], face[i]) (faces 0-based
 * S1..S6 as in dt_ho_hex_face_axis), with nq x nq Gauss points per face. Errors
 * (DT_ERR_INPUT, naming the entry): element or face out of range. */
dt_status dt_ho_elastic_traction_load(const dt_ho_elastic *op, const dt_ho_mesh *m, int n_faces,
                                      const int *elem, const int *face, dt_ho_traction_fn t,
                                      void *user, double *b, dt_ctx *ctx);

#endif
