/* The per-element steps every matrix-free operator on order-P hexahedra shares, private to
 * solver/highorder: gather u and take its reference gradients at the Gauss points; map them to
 * physical gradients and a stress-like tensor back to fluxes; contract the fluxes back and
 * scatter-add. The elastic apply, the plastic residual and the plastic tangent apply differ
 * only in the pointwise step between, which a dt_ho_qfunc supplies, so their sums are formed in
 * one order and the elastic apply keeps its rounding.
 *
 * Per element the scratch holds, in doubles: nodal u and v (3 (P+1)^3 each), the nine
 * gradients or fluxes g[(3 c + i) nq^3 + q] (du_c/dxi_i in, w det J sigma_cj dxi_i/dx_j out)
 * and the two contraction buffers. */
#ifndef DT_HO_ELEMENT_H
#define DT_HO_ELEMENT_H

#include <stddef.h>

#include "core/dt_status.h"
#include "highorder/ho_elastic.h"

/* Doubles of scratch one element needs. */
size_t dt_ho_element_scratch(int P1, int Q);

/* Gathers element e's displacements from u and writes the reference gradients du_c/dxi_i of
 * every Gauss point into the g part of work (returned). */
double *dt_ho_element_gradients(const dt_ho_elastic *op, int e, const double *u, double *work);
/* Contracts the fluxes in the g part of work back to the element's nodes and adds them to v. */
void dt_ho_element_scatter(const dt_ho_elastic *op, int e, double *work, double *v);

/* The pointwise step: turns element e's reference gradients g (9 nq3 doubles, see above) into
 * fluxes in place; qd is the element's qdata. Runs concurrently for the elements of a colour,
 * so it writes only what belongs to element e. */
typedef void (*dt_ho_qfunc)(const void *user, int e, const double *qd, int nq3, double *g);

/* v = sum_e P_e^T G^T qfunc(G P_e u) over all elements by colour (v overwritten; u and v must
 * not alias). Errors: DT_ERR_NOMEM for the per-thread scratch. */
dt_status dt_ho_element_sweep(const dt_ho_elastic *op, const double *u, double *v,
                              dt_ho_qfunc qfunc, const void *user, dt_ctx *ctx);

/* The pointwise step of dt_ho_elastic_apply (user: the dt_ho_elastic): the linear elastic
 * stress. Shared with the order-1 level's element matrices (ho_pmg_assemble.c), which run the
 * element steps one element at a time and must round as the apply does. */
void dt_ho_elastic_qfunc(const void *user, int e, const double *qd, int nq3, double *g);

/* The diagonal of an operator from its point weights (ho_elastic_diag.c): for each element the
 * weights M^c_ik(q) of component c and index pair p = (i, k) in the order of dt_ho_pair_i /
 * dt_ho_pair_k, off-diagonal pairs doubled, written to Mq[(6 c + p) nq^3 + q]; the diagonal is
 * then sum_q sum_ik M^c_ik(q) dN_n/dxi_i dN_n/dxi_k, six transposed sum factorisations of the
 * squared 1D tables per component. What sets one operator's diagonal apart is its weights. */
static const int dt_ho_pair_i[6] = {0, 1, 2, 0, 0, 1}, dt_ho_pair_k[6] = {0, 1, 2, 1, 2, 2};
typedef void (*dt_ho_diag_weights)(const void *user, int e, double *Mq);
dt_status dt_ho_diagonal_from_weights(const dt_ho_elastic *op, dt_ho_diag_weights weights,
                                      const void *user, double *diag, dt_ctx *ctx);

/* dxi_i/dx_j at point q of an element's qdata. */
static inline void dt_ho_point_inverse_jacobian(const double *qd, int nq3, int q, double X[3][3]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) X[i][j] = qd[(1 + 3 * i + j) * nq3 + q];
}

/* H = grad u at point q: H[c][j] = sum_i du_c/dxi_i dxi_i/dx_j. */
static inline void dt_ho_point_gradient(const double *g, int nq3, int q, const double X[3][3],
                                        double H[3][3]) {
  for (int c = 0; c < 3; c++)
    for (int j = 0; j < 3; j++)
      H[c][j] = g[(3 * c) * nq3 + q] * X[0][j] + g[(3 * c + 1) * nq3 + q] * X[1][j] +
                g[(3 * c + 2) * nq3 + q] * X[2][j];
}

/* Fluxes of stress S at point q: g[(3 c + i) nq3 + q] = w det J sum_j S[c][j] dxi_i/dx_j. */
static inline void dt_ho_point_flux(double wdet, const double X[3][3], const double S[3][3],
                                    int nq3, int q, double *g) {
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 3; i++)
      g[(3 * c + i) * nq3 + q] = wdet * (S[c][0] * X[i][0] + S[c][1] * X[i][1] + S[c][2] * X[i][2]);
}

/* Voigt strain (xx, yy, zz, xy, xz, yz; engineering shears) of a displacement gradient. */
static inline void dt_ho_voigt_strain(const double H[3][3], double eps[6]) {
  eps[0] = H[0][0];
  eps[1] = H[1][1];
  eps[2] = H[2][2];
  eps[3] = H[0][1] + H[1][0];
  eps[4] = H[0][2] + H[2][0];
  eps[5] = H[1][2] + H[2][1];
}

/* The symmetric tensor of a Voigt stress. */
static inline void dt_ho_voigt_tensor(const double s[6], double S[3][3]) {
  S[0][0] = s[0];
  S[1][1] = s[1];
  S[2][2] = s[2];
  S[0][1] = S[1][0] = s[3];
  S[0][2] = S[2][0] = s[4];
  S[1][2] = S[2][1] = s[5];
}

#endif
