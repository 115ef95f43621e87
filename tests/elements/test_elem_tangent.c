/* The element tangent is the derivative of the element's internal force, for every element
 * type, elastic and plastic (J2 with linear hardening, from a zero history), with and without
 * B-bar where the type has it: Ke against central differences of fe(u) (step 1e-7 of the
 * displacement scale), relative to max |Ke|, tolerance 1e-5. Plastic states are reached by a
 * random displacement large enough that most points yield (checked: at least one plastic
 * point, else the check would only cover elasticity). hex8r's hourglass stiffness holds the 12
 * modes its one point leaves: its elastic Ke has rank 18 (24 DOFs less the 6 rigid motions),
 * and a linear displacement field meets no hourglass force (fe = B^T sig V exactly). hex8i's
 * condensed Ke has rank 18 too, and at the nodal values of pure bending (u_x = k x z, u_y =
 * -nu k y z, u_z = -k (x^2 + nu z^2 - nu y^2) / 2: sigma_xx = E k z, every other component 0)
 * its incompatible modes recover the exact stress at every point of a rectangular element
 * (tolerance 1e-9 of E k h), where hex8 shows the parasitic shear of its locking. */
#include <string.h>

#include "element/element_kernel.h"
#include "elem_test.h"

static dt_material_params j2_linear(void) {
  dt_material_params m;
  memset(&m, 0, sizeof m);
  m.E = 200000.0;
  m.nu = 0.3;
  m.plastic = DT_PLASTIC_J2;
  m.iso = DT_ISO_LINEAR;
  m.sigma_y0 = 250.0;
  m.H = 2000.0;
  return m;
}

/* fe and (if Ke) the tangent of the element at ue; returns the plastic point count. */
static int element(int type, const double *X, const double *ue, int bbar,
                   const dt_material_params *m, double *fe, double *Ke) {
  static double hist[DT_MAT_STATE_DOUBLES * DT_ELEM_MAX_QP]; /* zero: virgin material */
  const int state = dt_elem_dim(type) == 3 ? DT_STATE_3D : DT_STATE_PLANE_STRAIN;
  dt_qp_arrays qa = {hist, NULL, NULL, NULL, DT_ELEM_MAX_QP, NULL};
  return dt_element_residual(type, X, ue, m, state, bbar, 1.0, &qa, 0, fe, Ke);
}

static void check(int type, int bbar, double amplitude) {
  const int nde = dt_elem_ndof(type);
  const dt_material_params m = j2_linear();
  double X[3 * DT_ELEM_MAX_NODES], ue[DT_ELEM_MAX_DOF], fp[DT_ELEM_MAX_DOF], fm[DT_ELEM_MAX_DOF];
  double fe[DT_ELEM_MAX_DOF], Ke[DT_ELEM_MAX_DOF * DT_ELEM_MAX_DOF], kmax = 0.0, err = 0.0;
  int plastic, i, j;
  distorted_element(type, 0.05, X);
  for (i = 0; i < nde; i++) ue[i] = urand(-amplitude, amplitude);
  plastic = element(type, X, ue, bbar, &m, fe, Ke);
  EXPECT(amplitude == 0.0 || plastic > 0, "%s bbar %d: no plastic point at amplitude %g",
         elem_names[type], bbar, amplitude);
  for (i = 0; i < nde * nde; i++) kmax = fmax(kmax, fabs(Ke[i]));
  for (j = 0; j < nde; j++) {
    const double h = 1e-7 * fmax(amplitude, 1e-3), keep = ue[j];
    ue[j] = keep + h;
    element(type, X, ue, bbar, &m, fp, NULL);
    ue[j] = keep - h;
    element(type, X, ue, bbar, &m, fm, NULL);
    ue[j] = keep;
    for (i = 0; i < nde; i++) err = fmax(err, fabs((fp[i] - fm[i]) / (2.0 * h) - Ke[i * nde + j]));
  }
  EXPECT(err <= 1e-5 * kmax, "%s bbar %d amplitude %g: |Ke - dfe/du| = %.3g, max |Ke| = %.3g",
         elem_names[type], bbar, amplitude, err, kmax);
}

/* Rank of the n x n matrix A (row-major, overwritten) by Gaussian elimination with full
 * pivoting; pivots below tol * max |A| count as zero. */
static int rank_of(double *A, int n, double tol) {
  double amax = 0.0;
  int rank = 0;
  for (int i = 0; i < n * n; i++) amax = fmax(amax, fabs(A[i]));
  for (int k = 0; k < n; k++) {
    int pi = k, pj = k;
    for (int i = k; i < n; i++)
      for (int j = k; j < n; j++)
        if (fabs(A[i * n + j]) > fabs(A[pi * n + pj])) pi = i, pj = j;
    if (fabs(A[pi * n + pj]) <= tol * amax) break;
    for (int j = 0; j < n; j++) { /* rows k <-> pi, columns k <-> pj */
      double t = A[k * n + j];
      A[k * n + j] = A[pi * n + j], A[pi * n + j] = t;
    }
    for (int i = 0; i < n; i++) {
      double t = A[i * n + k];
      A[i * n + k] = A[i * n + pj], A[i * n + pj] = t;
    }
    for (int i = k + 1; i < n; i++) {
      const double f = A[i * n + k] / A[k * n + k];
      for (int j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
    }
    rank++;
  }
  return rank;
}

static void check_hex8r_hourglass(void) {
  dt_material_params m = j2_linear();
  double X[24], ue[24], fe[24], Ke[24 * 24], eps[6], sig[6], D[36], V, fmax_ = 0.0, err = 0.0;
  double N[8], dN[24], dNdx[24], b[24];
  dt_mat_state s0, s1;
  int i, a;
  m.plastic = DT_PLASTIC_NONE;
  distorted_element(DT_HEX8R, 0.08, X);
  for (i = 0; i < 24; i++) ue[i] = 0.0;
  element(DT_HEX8R, X, ue, 0, &m, fe, Ke);
  i = rank_of(Ke, 24, 1e-10);
  EXPECT(i == 18, "hex8r: elastic Ke has rank %d, expected 18 (24 DOFs - 6 rigid)", i);
  /* u = G x: fe must be B^T sig V with sig = D eps, eps the symmetric part of G */
  const double G[9] = {1e-3, 2e-4, -3e-4, 5e-4, -7e-4, 1e-4, -2e-4, 3e-4, 4e-4};
  for (a = 0; a < 8; a++)
    for (i = 0; i < 3; i++)
      ue[3 * a + i] =
          G[3 * i] * X[3 * a] + G[3 * i + 1] * X[3 * a + 1] + G[3 * i + 2] * X[3 * a + 2];
  element(DT_HEX8R, X, ue, 0, &m, fe, NULL);
  V = dt_hex8r_mean_gradients(X, N, dN, dNdx, b);
  eps[0] = G[0], eps[1] = G[4], eps[2] = G[8];
  eps[3] = G[1] + G[3], eps[4] = G[2] + G[6], eps[5] = G[5] + G[7];
  memset(&s0, 0, sizeof s0);
  dt_material_update(&m, DT_STATE_3D, eps, &s0, &s1, sig, D);
  for (a = 0; a < 8; a++) {
    double f[3] = {0, 0, 0};
    dt_elem_force_add(3, &b[3 * a], NULL, sig, f);
    for (i = 0; i < 3; i++) {
      err = fmax(err, fabs(fe[3 * a + i] - f[i] * V));
      fmax_ = fmax(fmax_, fabs(f[i] * V));
    }
  }
  EXPECT(err <= 1e-12 * fmax_,
         "hex8r: a linear field meets hourglass forces: |fe - B^T sig V| = %.3g", err);
}

/* Largest |sigma - sigma_exact| of pure bending over the points of a 3 x 1 x 0.5 box element
 * of `type`, relative to E k h (h its half depth). */
static double bending_error(int type) {
  static double hist[DT_MAT_STATE_DOUBLES * DT_ELEM_MAX_QP], sig[6 * DT_ELEM_MAX_QP];
  dt_material_params m = j2_linear();
  const double k = 1e-4, lx = 3.0, ly = 1.0, lz = 0.5, x0 = 1.0, y0 = -0.3, z0 = 0.2;
  double X[24], ue[24], fe[24], xi[3], w, err = 0.0, N[8], dN[24];
  dt_qp_arrays qa = {hist, NULL, sig, NULL, DT_ELEM_MAX_QP, NULL};
  int a, q, c;
  m.plastic = DT_PLASTIC_NONE;
  for (a = 0; a < 8; a++) {
    double s[3], x, y, z;
    dt_elem_node_xi(DT_HEX8, a, s);
    x = X[3 * a] = x0 + 0.5 * lx * s[0];
    y = X[3 * a + 1] = y0 + 0.5 * ly * s[1];
    z = X[3 * a + 2] = z0 + 0.5 * lz * s[2];
    ue[3 * a] = k * x * z;
    ue[3 * a + 1] = -m.nu * k * y * z;
    ue[3 * a + 2] = -0.5 * k * (x * x + m.nu * z * z - m.nu * y * y);
  }
  dt_element_residual(type, X, ue, &m, DT_STATE_3D, 0, 1.0, &qa, 0, fe, NULL);
  for (q = 0; q < dt_elem_nqp(type); q++) { /* the exact stress at the point's z */
    double z = 0.0;
    dt_elem_qp(type, q, xi, &w);
    dt_elem_shape(type, xi, N, dN);
    for (a = 0; a < 8; a++) z += N[a] * X[3 * a + 2];
    for (c = 0; c < 6; c++) {
      const double exact = c == 0 ? m.E * k * z : 0.0;
      err = fmax(err, fabs(sig[c * DT_ELEM_MAX_QP + q] - exact));
    }
  }
  return err / (m.E * k * (fabs(z0) + 0.5 * lz));
}

static void check_hex8i(void) {
  dt_material_params m = j2_linear();
  double X[24], ue[24] = {0}, fe[24], Ke[24 * 24], e8i, e8;
  int r;
  m.plastic = DT_PLASTIC_NONE;
  distorted_element(DT_HEX8I, 0.08, X);
  element(DT_HEX8I, X, ue, 0, &m, fe, Ke);
  r = rank_of(Ke, 24, 1e-10);
  EXPECT(r == 18, "hex8i: elastic Ke has rank %d, expected 18 (24 DOFs - 6 rigid)", r);
  e8i = bending_error(DT_HEX8I);
  e8 = bending_error(DT_HEX8);
  EXPECT(e8i <= 1e-9, "hex8i: pure bending's stress off by %.3g of E k h", e8i);
  EXPECT(e8 >= 0.1, "hex8: pure bending's stress off by only %.3g of E k h (no locking?)", e8);
}

int main(void) {
  check_hex8r_hourglass();
  check_hex8i();
  int type, t;
  for (type = 0; type < DT_NTYPES; type++)
    for (t = 0; t < 3; t++) {
      check(type, 0, 0.0);  /* elastic */
      check(type, 0, 0.02); /* plastic: strains of a few 1e-2 against yield at 1.25e-3 */
      if (type == DT_HEX8 || type == DT_QUAD4) check(type, 1, 0.02);
    }
  return elem_test_result("test_elem_tangent");
}
