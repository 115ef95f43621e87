/* Spatial gradients, strain-displacement (B) matrices and mean-dilatation B-bar. Include
 * element/element.h, not this file.
 *
 * Isoparametric map x(xi) = sum_a N_a(xi) X_a with Jacobian J_ik = dx_i/dxi_k, so that
 * dN_a/dx_j = sum_k dN_a/dxi_k (J^-1)_kj. Plane types use the in-plane 2x2 block only. */
#ifndef DT_ELEMENT_KINEMATICS_H
#define DT_ELEMENT_KINEMATICS_H

#ifndef DT_ELEMENT_H
#error "include element/element.h instead of element_kinematics.h"
#endif

/* Cofactor matrix of the Jacobian and its determinant. In 2D only the 2x2 block is used and
 * the z entries of cof are 0. J^-1 = cof^T / det. */
DT_HD static inline double dt_jacobian_cofactor(int dim, const double J[9], double cof[9]) {
  int k;
  for (k = 0; k < 9; k++) cof[k] = 0.0;
  if (dim == 2) {
    cof[0] = J[4];  /* J11 */
    cof[1] = -J[3]; /* -J10 */
    cof[3] = -J[1]; /* -J01 */
    cof[4] = J[0];  /* J00 */
    return J[0] * J[4] - J[1] * J[3];
  }
  return dt_cofactor3(J, cof);
}

/* The Jacobian J_ik = sum_a X_a,i dN_a/dxi_k (row-major 3 x 3, dim x dim used, the rest 0). */
DT_HD static inline void dt_elem_jacobian(int type, const double *X, const double *dN,
                                          double J[9]) {
  const int n = dt_elem_nnodes(type), dim = dt_elem_dim(type);
  int a, i, k;
  for (k = 0; k < 9; k++) J[k] = 0.0;
  for (a = 0; a < n; a++)
    for (i = 0; i < dim; i++)
      for (k = 0; k < dim; k++) J[i * 3 + k] += X[a * 3 + i] * dN[a * 3 + k];
}

/* Spatial gradients dNdx[a*3+j] = dN_a/dx_j from node coordinates X[a*3+i] (z ignored in 2D)
 * and reference derivatives dN. Returns det J (in-plane determinant in 2D). When det J <= 0
 * (inverted or degenerate element) dNdx is left zero and the caller reports the element. */
DT_HD static inline double dt_elem_gradients(int type, const double *X, const double *dN,
                                             double *dNdx) {
  const int n = dt_elem_nnodes(type), dim = dt_elem_dim(type);
  double J[9], cof[9], det, inv;
  int a, j, k;
  dt_elem_jacobian(type, X, dN, J);
  det = dt_jacobian_cofactor(dim, J, cof);
  for (k = 0; k < 3 * n; k++) dNdx[k] = 0.0;
  if (!(det > 0.0)) return det;
  inv = 1.0 / det;
  for (a = 0; a < n; a++) /* dN_a/dx_j = sum_k dN_a/dxi_k cof_jk / det */
    for (j = 0; j < dim; j++) {
      double g = 0.0;
      for (k = 0; k < dim; k++) g += cof[j * 3 + k] * dN[a * 3 + k];
      dNdx[a * 3 + j] = g * inv;
    }
  return det;
}

/* Strain-displacement matrix B (6 rows, row stride ndof = nnodes*dim, node-major DOFs) with
 * eps = B u in Voigt order (xx, yy, zz, xy, xz, yz), engineering shears. With dNdx_bar
 * (volume-averaged gradients from dt_elem_bbar_average) it is Hughes' mean-dilatation B-bar:
 * B_a <- B_a + (1/3) [1 1 1 0 0 0]^T (bbar_a - b_a), which replaces the element's dilatation
 * by its volume average. In plane strain that sets eps_zz = (theta_bar - theta) / 3. */
/* The 6 x dim block of B for one node (row-major, Bn[r*3 + j] for DOF direction j; columns
 * j >= dim unused): b = dN_a/dx, bbar its volume average for B-bar (NULL: standard B).
 * dt_elem_bmatrix assembles these blocks; GPU kernels that work node by node call it directly,
 * so B is written once. */
DT_HD static inline void dt_elem_bnode(int dim, const double *b, const double *bbar, double *Bn) {
  int j, r;
  for (r = 0; r < 18; r++) Bn[r] = 0.0;
  Bn[0 * 3 + 0] = b[0]; /* eps_xx = du_x/dx */
  Bn[1 * 3 + 1] = b[1]; /* eps_yy = du_y/dy */
  Bn[3 * 3 + 0] = b[1]; /* gamma_xy = du_x/dy + du_y/dx */
  Bn[3 * 3 + 1] = b[0];
  if (dim == 3) {
    Bn[2 * 3 + 2] = b[2]; /* eps_zz = du_z/dz */
    Bn[4 * 3 + 0] = b[2]; /* gamma_xz = du_x/dz + du_z/dx */
    Bn[4 * 3 + 2] = b[0];
    Bn[5 * 3 + 1] = b[2]; /* gamma_yz = du_y/dz + du_z/dy */
    Bn[5 * 3 + 2] = b[1];
  }
  if (bbar) /* B-bar: the volumetric part (1/3) m (bbar - b) replaces the local dilatation */
    for (j = 0; j < dim; j++)
      for (r = 0; r < 3; r++) Bn[r * 3 + j] += (bbar[j] - b[j]) / 3.0;
}

/* eps += B_a u_a and f_a += B_a^T sig for one node, written out from dt_elem_bnode's layout
 * without the zero entries: half the multiply-adds of the 6 x 3 block, which the compiler may
 * not drop itself (0 * x is not 0 for every double). b, bbar, u, f: 3 entries (dim used). */
DT_HD static inline void dt_elem_strain_add(int dim, const double *b, const double *bbar,
                                            const double *u, double eps[6]) {
  eps[0] += b[0] * u[0];
  eps[1] += b[1] * u[1];
  eps[3] += b[1] * u[0] + b[0] * u[1];
  if (dim == 3) {
    eps[2] += b[2] * u[2];
    eps[4] += b[2] * u[0] + b[0] * u[2];
    eps[5] += b[2] * u[1] + b[1] * u[2];
  }
  if (bbar) { /* (1/3) (bbar - b) . u on each normal strain, as in dt_elem_bnode */
    double vol = 0.0;
    for (int j = 0; j < dim; j++) vol += (bbar[j] - b[j]) / 3.0 * u[j];
    for (int r = 0; r < 3; r++) eps[r] += vol;
  }
}
DT_HD static inline void dt_elem_force_add(int dim, const double *b, const double *bbar,
                                           const double sig[6], double *f) {
  if (dim == 3) {
    f[0] += b[0] * sig[0] + b[1] * sig[3] + b[2] * sig[4];
    f[1] += b[1] * sig[1] + b[0] * sig[3] + b[2] * sig[5];
    f[2] += b[2] * sig[2] + b[0] * sig[4] + b[1] * sig[5];
  } else {
    f[0] += b[0] * sig[0] + b[1] * sig[3];
    f[1] += b[1] * sig[1] + b[0] * sig[3];
  }
  if (bbar) {
    double p3 = sig[0] + sig[1] + sig[2];
    for (int j = 0; j < dim; j++) f[j] += (bbar[j] - b[j]) / 3.0 * p3;
  }
}

DT_HD static inline void dt_elem_bmatrix(int type, const double *dNdx, const double *dNdx_bar,
                                         double *B) {
  const int n = dt_elem_nnodes(type), dim = dt_elem_dim(type), nd = n * dim;
  double Bn[18];
  int a, j, r;
  for (a = 0; a < n; a++) {
    dt_elem_bnode(dim, dNdx + a * 3, dNdx_bar ? dNdx_bar + a * 3 : (const double *)0, Bn);
    for (r = 0; r < 6; r++)
      for (j = 0; j < dim; j++) B[r * nd + a * dim + j] = Bn[r * 3 + j];
  }
}

/* Axisymmetric elements (sections of kind axisymmetric, stress state DT_STATE_AXISYMMETRIC of
 * material/material.h): x is the radius r, y the axis, z the hoop direction.
 * The hoop strain eps_zz = u_r / r = sum_a N_a u_a,x / r is the third row of B, and the
 * element integrates over the whole ring, dV = 2 pi r dA, so that forces are totals over the
 * circumference (as CalculiX and Abaqus read *CLOAD on axisymmetric models). */
#define DT_TWO_PI 6.28318530717958647693

/* r = sum_a N_a X_a,x at a point: the radius, the factor of the measure 2 pi r dA. */
DT_HD static inline double dt_axisym_radius(int n, const double *N, const double *X) {
  double r = 0.0;
  for (int a = 0; a < n; a++) r += N[a] * X[a * 3];
  return r;
}

/* The hoop row of B: B[2][a dim] = N_a / r (node-major DOFs, row stride nd = n dim). */
DT_HD static inline void dt_axisym_hoop_row(int n, int dim, const double *N, double r, double *B) {
  const int nd = n * dim;
  for (int a = 0; a < n; a++) B[2 * nd + a * dim] = N[a] / r;
}

/* Volume-averaged gradients dNdx_bar[a*3+j] = (1/V) int dN_a/dx_j dV over the element's rule,
 * and the volume V (area per unit thickness in 2D). Leaves dNdx_bar zero when V <= 0. N, dN,
 * dNdx: scratch of the element's nodes (1, 3, 3 per node), the caller's own (a GPU kernel's are
 * sized by its element types). */
DT_HD static inline void dt_elem_bbar_average_in(int type, const double *X, double *N, double *dN,
                                                 double *dNdx, double *dNdx_bar, double *volume) {
  const int n = dt_elem_nnodes(type), nqp = dt_elem_nqp(type);
  double xi[3], w, det, V = 0.0;
  int q, k;
  for (k = 0; k < 3 * n; k++) dNdx_bar[k] = 0.0;
  for (q = 0; q < nqp; q++) {
    dt_elem_qp(type, q, xi, &w);
    dt_elem_shape(type, xi, N, dN);
    det = dt_elem_gradients(type, X, dN, dNdx);
    V += det * w; /* dV = det J dxi */
    for (k = 0; k < 3 * n; k++) dNdx_bar[k] += dNdx[k] * det * w;
  }
  *volume = V;
  for (k = 0; k < 3 * n; k++) dNdx_bar[k] = V > 0.0 ? dNdx_bar[k] / V : 0.0;
}

/* dt_elem_bbar_average_in with scratch for any element type. */
DT_HD static inline void dt_elem_bbar_average(int type, const double *X, double *dNdx_bar,
                                              double *volume) {
  double N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES], dNdx[3 * DT_ELEM_MAX_NODES];
  dt_elem_bbar_average_in(type, X, N, dN, dNdx, dNdx_bar, volume);
}

#endif
