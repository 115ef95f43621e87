/* Spatial gradients and B matrices on distorted elements: a linear field's gradient and a
 * linear displacement's strain are reproduced exactly (isoparametric completeness), with and
 * without B-bar; the node-by-node products of the GPU kernels equal B d and B^T sig; hex8
 * B-bar gives one volumetric strain over the whole element; and each rule sees every
 * deformation mode but its known spurious ones. */
#include "elem_test.h"

#define NTRIAL 20

/* grad(g . x) = g at random points of affine and (jitter > 0) non-affine elements. */
static void check_linear_field(int type, double jitter) {
  const int n = dt_elem_nnodes(type), dim = dt_elem_dim(type);
  double X[3 * DT_ELEM_MAX_NODES], N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];
  double dNdx[3 * DT_ELEM_MAX_NODES], xi[3], g[3], grad[3], det;
  int a, k, t;
  for (t = 0; t < NTRIAL; t++) {
    distorted_element(type, jitter, X);
    for (k = 0; k < 3; k++) g[k] = k < dim ? urand(-1.0, 1.0) : 0.0;
    random_xi(type, xi);
    dt_elem_shape(type, xi, N, dN);
    det = dt_elem_gradients(type, X, dN, dNdx);
    EXPECT(det > 0.0, "%s: det J = %g on a valid element", elem_names[type], det);
    grad[0] = grad[1] = grad[2] = 0.0;
    for (a = 0; a < n; a++) /* grad u = sum_a u_a dN_a/dx, u_a = g . X_a */
      for (k = 0; k < 3; k++)
        grad[k] += (g[0] * X[a * 3] + g[1] * X[a * 3 + 1] + g[2] * X[a * 3 + 2]) * dNdx[a * 3 + k];
    for (k = 0; k < 3; k++)
      EXPECT(fabs(grad[k] - g[k]) < 1e-12, "%s (jitter %g): du/dx_%d = %.17g, expected %.17g",
             elem_names[type], jitter, k, grad[k], g[k]);
  }
}

/* eps = B d for d_a = H X_a + c: eps_ii = H_ii, gamma_ij = H_ij + H_ji; in 2D zz, xz, yz = 0. */
static void check_strain(int type, double jitter, int bbar) {
  const int n = dt_elem_nnodes(type), dim = dt_elem_dim(type), nd = n * dim;
  const int vi[6] = {0, 1, 2, 0, 0, 1}, vj[6] = {0, 1, 2, 1, 2, 2};
  double X[3 * DT_ELEM_MAX_NODES], N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];
  double dNdx[3 * DT_ELEM_MAX_NODES], bar[3 * DT_ELEM_MAX_NODES], B[6 * DT_ELEM_MAX_DOF];
  double d[DT_ELEM_MAX_DOF], H[9], c[3], xi[3], V, eps, want;
  int a, i, k, r;
  distorted_element(type, jitter, X);
  for (k = 0; k < 9; k++) H[k] = (k / 3 < dim && k % 3 < dim) ? urand(-1e-3, 1e-3) : 0.0;
  for (k = 0; k < 3; k++) c[k] = urand(-1.0, 1.0);
  for (a = 0; a < n; a++)
    for (i = 0; i < dim; i++) {
      d[a * dim + i] = c[i];
      for (k = 0; k < dim; k++) d[a * dim + i] += H[i * 3 + k] * X[a * 3 + k];
    }
  dt_elem_bbar_average(type, X, bar, &V);
  random_xi(type, xi);
  dt_elem_shape(type, xi, N, dN);
  dt_elem_gradients(type, X, dN, dNdx);
  dt_elem_bmatrix(type, dNdx, bbar ? bar : NULL, B);
  for (r = 0; r < 6; r++) {
    eps = 0.0;
    for (k = 0; k < nd; k++) eps += B[r * nd + k] * d[k];
    want = r < 3 ? H[vi[r] * 4] : H[vi[r] * 3 + vj[r]] + H[vj[r] * 3 + vi[r]];
    EXPECT(fabs(eps - want) < 1e-14, "%s (jitter %g, bbar %d): strain %d = %.17g, expected %.17g",
           elem_names[type], jitter, bbar, r, eps, want);
  }
}

/* Hex8 B-bar with an arbitrary (non-linear) nodal displacement: eps_xx + eps_yy + eps_zz is
 * the same at every integration point and equals the volume average of div u. */
static void check_hex8_bbar_volumetric(void) {
  const int nd = 24;
  double X[24], N[8], dN[24], dNdx[24], bar[24], B[6 * 24], d[24], xi[3], w, V, det;
  double theta[DT_ELEM_MAX_QP], avg = 0.0;
  int q, k, r;
  distorted_element(DT_HEX8, 0.08, X);
  for (k = 0; k < nd; k++) d[k] = urand(-1e-3, 1e-3);
  dt_elem_bbar_average(DT_HEX8, X, bar, &V);
  for (q = 0; q < 8; q++) {
    dt_elem_qp(DT_HEX8, q, xi, &w);
    dt_elem_shape(DT_HEX8, xi, N, dN);
    det = dt_elem_gradients(DT_HEX8, X, dN, dNdx);
    for (k = 0; k < 8; k++) /* avg = (1/V) int div u dV with the standard gradients */
      avg += (dNdx[k * 3] * d[k * 3] + dNdx[k * 3 + 1] * d[k * 3 + 1] +
              dNdx[k * 3 + 2] * d[k * 3 + 2]) *
             det * w / V;
    dt_elem_bmatrix(DT_HEX8, dNdx, bar, B);
    theta[q] = 0.0;
    for (r = 0; r < 3; r++)
      for (k = 0; k < nd; k++) theta[q] += B[r * nd + k] * d[k];
  }
  for (q = 0; q < 8; q++)
    EXPECT(fabs(theta[q] - avg) < 1e-15,
           "hex8 B-bar: volumetric strain %.17g at point %d, "
           "element average %.17g",
           theta[q], q, avg);
}

/* dt_elem_strain_add / dt_elem_force_add (the GPU kernels' node-by-node B u and B^T sig) give
 * B d and B^T sig of dt_elem_bmatrix to rounding (1e-14 relative), with and without B-bar, on
 * distorted elements with random d and sig. */
static void check_node_products(int type, int bbar) {
  const int n = dt_elem_nnodes(type), dim = dt_elem_dim(type), nd = n * dim;
  double X[3 * DT_ELEM_MAX_NODES], N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];
  double dNdx[3 * DT_ELEM_MAX_NODES], bar[3 * DT_ELEM_MAX_NODES], B[6 * DT_ELEM_MAX_DOF];
  double d[DT_ELEM_MAX_DOF], sig[6], eps_b[6] = {0}, eps_n[6] = {0}, xi[3], V, f[3], want, scale;
  int a, i, k, r;
  distorted_element(type, 0.08, X);
  for (k = 0; k < nd; k++) d[k] = urand(-1.0, 1.0);
  for (r = 0; r < 6; r++) sig[r] = urand(-1.0, 1.0);
  dt_elem_bbar_average(type, X, bar, &V);
  random_xi(type, xi);
  dt_elem_shape(type, xi, N, dN);
  dt_elem_gradients(type, X, dN, dNdx);
  dt_elem_bmatrix(type, dNdx, bbar ? bar : NULL, B);
  for (a = 0; a < n; a++) {
    double u[3] = {0.0, 0.0, 0.0};
    for (i = 0; i < dim; i++) u[i] = d[a * dim + i];
    dt_elem_strain_add(dim, dNdx + a * 3, bbar ? bar + a * 3 : NULL, u, eps_n);
    f[0] = f[1] = f[2] = 0.0;
    dt_elem_force_add(dim, dNdx + a * 3, bbar ? bar + a * 3 : NULL, sig, f);
    for (i = 0; i < dim; i++) {
      want = scale = 0.0;
      for (r = 0; r < 6; r++) {
        want += B[r * nd + a * dim + i] * sig[r];
        scale += fabs(B[r * nd + a * dim + i] * sig[r]);
      }
      EXPECT(fabs(f[i] - want) <= 1e-14 * scale,
             "%s (bbar %d): node %d force %d = %.17g, B^T sig %.17g", elem_names[type], bbar, a, i,
             f[i], want);
    }
  }
  for (r = 0; r < 6; r++) {
    scale = 0.0;
    for (k = 0; k < nd; k++) {
      eps_b[r] += B[r * nd + k] * d[k];
      scale += fabs(B[r * nd + k] * d[k]);
    }
    EXPECT(fabs(eps_n[r] - eps_b[r]) <= 1e-14 * scale, "%s (bbar %d): strain %d = %.17g, B d %.17g",
           elem_names[type], bbar, r, eps_n[r], eps_b[r]);
  }
}

/* The deformation modes the element's rule sees: the B matrices of its points stacked have rank
 * ndof - rigid - spurious, on distorted elements. Only three rules leave spurious zero-energy
 * modes in a single element, all CalculiX's: hex20r's 2x2x2 (6, C3D20R's), quad8r's 2x2 (1,
 * CPE8R's: 13 deformation modes against 4 points x 3 strains) and wedge6's two points, which
 * both lie on the axis through the triangle's centroid (1, C3D6's); none propagates through a
 * mesh of several elements (docs/job-format.md). hex8r's one point sees 6 strains of 18
 * deformation modes: its 12 hourglass modes are held by its hourglass stiffness instead
 * (test_elem_tangent). */
static void check_rank(int type) {
  static double M[6 * DT_ELEM_MAX_QP][DT_ELEM_MAX_DOF];
  const int nd = dt_elem_ndof(type), nqp = dt_elem_nqp(type);
  const int rigid = dt_elem_dim(type) == 3 ? 6 : 3;
  const int spurious = type == DT_HEX8R                           ? 12
                       : type == DT_HEX20R                        ? 6
                       : (type == DT_WEDGE6 || type == DT_QUAD8R) ? 1
                                                                  : 0;
  double X[3 * DT_ELEM_MAX_NODES], N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];
  double dNdx[3 * DT_ELEM_MAX_NODES], B[6 * DT_ELEM_MAX_DOF], xi[3], w, scale = 0.0, t;
  int rows = 0, rank = 0, q, r, c, i, p;
  distorted_element(type, 0.08, X);
  for (q = 0; q < nqp; q++) {
    dt_elem_qp(type, q, xi, &w);
    dt_elem_shape(type, xi, N, dN);
    dt_elem_gradients(type, X, dN, dNdx);
    dt_elem_bmatrix(type, dNdx, NULL, B);
    for (r = 0; r < 6; r++, rows++)
      for (c = 0; c < nd; c++) {
        M[rows][c] = B[r * nd + c];
        scale = fmax(scale, fabs(M[rows][c]));
      }
  }
  for (c = 0; c < nd && rank < rows; c++) { /* Gaussian elimination with partial pivoting */
    for (p = rank, i = rank; i < rows; i++)
      if (fabs(M[i][c]) > fabs(M[p][c])) p = i;
    if (fabs(M[p][c]) <= 1e-10 * scale) continue;
    for (i = 0; i < nd; i++) t = M[rank][i], M[rank][i] = M[p][i], M[p][i] = t;
    for (i = rank + 1; i < rows; i++)
      for (t = M[i][c] / M[rank][c], r = c; r < nd; r++) M[i][r] -= t * M[rank][r];
    rank++;
  }
  EXPECT(rank == nd - rigid - spurious, "%s: the rule sees %d deformation modes, expected %d",
         elem_names[type], rank, nd - rigid - spurious);
}

/* A flat element must report det J <= 0 and leave dNdx zero, not divide by zero. */
static void check_degenerate(void) {
  double X[24] = {0}, N[8], dN[24], dNdx[24], xi[3] = {0.1, 0.2, 0.3}, det;
  int k, a;
  for (a = 0; a < 8; a++) { /* all nodes in the plane z = 0 */
    dt_elem_node_xi(DT_HEX8, a, X + a * 3);
    X[a * 3 + 2] = 0.0;
  }
  dt_elem_shape(DT_HEX8, xi, N, dN);
  det = dt_elem_gradients(DT_HEX8, X, dN, dNdx);
  EXPECT(det == 0.0, "flat hex8: det J = %g, expected 0", det);
  for (k = 0; k < 24; k++) EXPECT(dNdx[k] == 0.0, "flat hex8: dNdx[%d] = %g", k, dNdx[k]);
}

int main(void) {
  int type, t;
  for (type = 0; type < DT_NTYPES; type++) {
    check_linear_field(type, 0.0);
    check_linear_field(type, 0.08);
    for (t = 0; t < NTRIAL; t++) {
      check_strain(type, 0.0, 0);
      check_strain(type, 0.08, 0);
      check_strain(type, 0.08, 1);
      check_node_products(type, 0);
      check_node_products(type, 1);
    }
    check_rank(type);
  }
  check_hex8_bbar_volumetric();
  check_degenerate();
  return elem_test_result("test_elem_gradients");
}
