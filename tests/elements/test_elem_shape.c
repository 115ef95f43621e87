/* Shape functions of every element type: partition of unity, sum of derivatives zero,
 * Kronecker property at the nodes, and dN against central differences of N. */
#include "elem_test.h"

static void check_point(int type, const double xi[3]) {
  const int n = dt_elem_nnodes(type), dim = dt_elem_dim(type);
  const double h = 1e-6;
  double N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES], Np[DT_ELEM_MAX_NODES];
  double Nm[DT_ELEM_MAX_NODES], dNj[3 * DT_ELEM_MAX_NODES], x[3], sum = 0.0, dsum[3] = {0, 0, 0};
  int a, k;
  dt_elem_shape(type, xi, N, dN);
  for (a = 0; a < n; a++) {
    sum += N[a];
    for (k = 0; k < 3; k++) dsum[k] += dN[a * 3 + k];
  }
  EXPECT(fabs(sum - 1.0) < 1e-14, "%s: sum N = %.17g at (%g,%g,%g)", elem_names[type], sum, xi[0],
         xi[1], xi[2]);
  for (k = 0; k < 3; k++)
    EXPECT(fabs(dsum[k]) < 1e-14, "%s: sum dN/dxi_%d = %g", elem_names[type], k, dsum[k]);
  for (a = 0; a < n; a++)
    EXPECT(dim == 3 || dN[a * 3 + 2] == 0.0, "%s: 2D dN_z not zero", elem_names[type]);
  for (k = 0; k < dim; k++) { /* dN/dxi_k ~ (N(xi + h e_k) - N(xi - h e_k)) / 2h */
    x[0] = xi[0];
    x[1] = xi[1];
    x[2] = xi[2];
    x[k] = xi[k] + h;
    dt_elem_shape(type, x, Np, dNj);
    x[k] = xi[k] - h;
    dt_elem_shape(type, x, Nm, dNj);
    for (a = 0; a < n; a++) {
      double fd = (Np[a] - Nm[a]) / (2.0 * h);
      EXPECT(close_to(dN[a * 3 + k], fd, 1e-7), "%s: dN_%d/dxi_%d = %.12g, finite difference %.12g",
             elem_names[type], a, k, dN[a * 3 + k], fd);
    }
  }
}

/* N_a(xi_b) = delta_ab: the node coordinates and orderings agree with the functions. */
static void check_nodes(int type) {
  const int n = dt_elem_nnodes(type);
  double xi[3], N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];
  int a, b;
  for (b = 0; b < n; b++) {
    dt_elem_node_xi(type, b, xi);
    dt_elem_shape(type, xi, N, dN);
    for (a = 0; a < n; a++)
      EXPECT(fabs(N[a] - (a == b)) < 1e-15, "%s: N_%d at node %d = %g", elem_names[type], a, b,
             N[a]);
  }
}

int main(void) {
  double xi[3];
  int type, i;
  for (type = 0; type < DT_NTYPES; type++) {
    EXPECT(dt_elem_nnodes(type) <= DT_ELEM_MAX_NODES && dt_elem_ndof(type) <= DT_ELEM_MAX_DOF &&
               dt_elem_nqp(type) <= DT_ELEM_MAX_QP,
           "%s: size exceeds a DT_*_MAX bound", elem_names[type]);
    for (i = 0; i < dt_elem_nfaces(type); i++)
      EXPECT(dt_face_nqp(type, i) <= DT_FACE_MAX_QP && dt_face_nnodes(type, i) <= DT_FACE_MAX_NODES,
             "%s face %d: size exceeds a DT_FACE_MAX bound", elem_names[type], i);
    check_nodes(type);
    for (i = 0; i < 50; i++) {
      random_xi(type, xi);
      check_point(type, xi);
    }
  }
  return elem_test_result("test_elem_shape");
}
