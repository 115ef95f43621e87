/* The MITC4 shell element header (element/shell_mitc4.h) on single elements:
 *  1. forces = the finite-difference gradient of the energy (distorted warped element, random
 *     deformation and director rotations, 2 and 3 layers), and the moment convention
 *     m_alpha = -fd . v2, m_beta = fd . v1 against rotating a director;
 *  2. a rigid motion (70 degrees about an oblique axis plus a translation) gives no force,
 *     no moment and no energy;
 *  3. objectivity: a deformed state turned rigidly turns its forces and keeps its energy;
 *  4. membrane patch: a uniform in-plane stretch of a flat skewed element gives the exact
 *     plane stress energy;
 *  5. pure bending by the directors of a flat square: the energy of the 2-point rule (exact
 *     formula) and D kappa^2 / 2 area;
 *  6. no shear locking: the Kirchhoff mode of a thin (h/L = 1e-3) distorted element has zero
 *     MITC tying shear (where the displacement-based shear at a Gauss point is not) and the
 *     Kirchhoff plate energy;
 *  7. J2: the plane stress update (elastic formulas, S33 = 0 by Newton, Voce hardening), and a
 *     uniaxial membrane stretch past yield against the exact uniaxial answer;
 *  8. lumped mass, characteristic length, nodal basis, Rodrigues rotation, bad input.
 * Every check names its tolerance; numbers print only on failure. */
#include <math.h>
#include <stdlib.h>

#include "element/shell_mitc4.h"
#include "unit_model.h"

#define E_MOD 200000.0
#define NU 0.3
#define PI 3.14159265358979324

static double rnd(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

static double vmax(const double *v, int n) {
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

static void elastic(dt_material_params *m) {
  memset(m, 0, sizeof(*m));
  m->E = E_MOD;
  m->nu = NU;
}

static void j2(dt_material_params *m, int iso) {
  elastic(m);
  m->plastic = DT_PLASTIC_J2;
  m->iso = iso;
  m->sigma_y0 = 250.0;
  m->H = 2000.0;
  m->voce_Q = 150.0;
  m->voce_b = 40.0;
}

/* Rotation matrix of the rotation vector th (through dt_mitc4_rotate of the unit vectors). */
static void rotation(const double th[3], double R[9]) {
  for (int j = 0; j < 3; j++) {
    double e[3] = {0.0, 0.0, 0.0}, c[3];
    e[j] = 1.0;
    dt_mitc4_rotate(th, e, c);
    for (int i = 0; i < 3; i++) R[3 * i + j] = c[i];
  }
}

static void matvec(const double R[9], const double a[3], double b[3]) {
  for (int i = 0; i < 3; i++) b[i] = R[3 * i] * a[0] + R[3 * i + 1] * a[1] + R[3 * i + 2] * a[2];
}

/* A distorted, warped element (node order (-1,-1), (+1,-1), (+1,+1), (-1,+1)) and unit
 * directors: the nodal normals of the corner triangles, tilted a little. */
static void warped_element(double X0[12], double D0[12]) {
  const double P[12] = {0.0, 0.0, 0.0, 1.1, 0.1, 0.06, 1.25, 0.95, -0.05, -0.1, 1.05, 0.08};
  for (int i = 0; i < 12; i++) X0[i] = P[i];
  for (int a = 0; a < 4; a++) {
    int n = (a + 1) % 4, p = (a + 3) % 4;
    double u[3], v[3];
    for (int i = 0; i < 3; i++) {
      u[i] = X0[3 * n + i] - X0[3 * a + i];
      v[i] = X0[3 * p + i] - X0[3 * a + i];
    }
    dt_mitc4_cross(u, v, &D0[3 * a]);
    D0[3 * a] += 0.03 * (a - 1.5);
    D0[3 * a + 1] -= 0.02 * a;
    dt_mitc4_normalize(&D0[3 * a]);
  }
}

static double energy(const double X0[12], const double D0[12], const double x[12],
                     const double D[12], double h, const dt_material_params *m, int nl) {
  double fx[12], fd[12], W;
  int np;
  CHECK(dt_mitc4_forces(X0, D0, x, D, h, m, nl, NULL, NULL, fx, fd, &W, &np) == DT_MITC4_OK,
        "energy evaluation");
  return W;
}

/* 1. Forces against central differences of the energy, step 1e-6: agreement to 1e-8 of the
 * largest component of fx (resp. fd); the differences' truncation and rounding are about 1e-10
 * here. And the moments: d W / d alpha of each node's director turned about v1 (beta: v2), 1e-8. */
static void test_gradient(int nl) {
  double X0[12], D0[12], x[12], D[12], fx[12], fd[12], W, h = 0.05, step = 1.0e-6;
  dt_material_params m;
  elastic(&m);
  warped_element(X0, D0);
  for (int i = 0; i < 12; i++) x[i] = X0[i] + 0.01 * rnd();
  for (int a = 0; a < 4; a++) {
    double th[3] = {0.1 * rnd(), 0.1 * rnd(), 0.1 * rnd()};
    dt_mitc4_rotate(th, &D0[3 * a], &D[3 * a]);
  }
  CHECK(dt_mitc4_forces(X0, D0, x, D, h, &m, nl, NULL, NULL, fx, fd, &W, NULL) == DT_MITC4_OK,
        "forces");
  CHECK(W > 0.0, "energy %g", W);
  for (int k = 0; k < 24; k++) {
    double xp[12], Dp[12], xm[12], Dm[12], num, ana, scale;
    memcpy(xp, x, sizeof(xp)), memcpy(xm, x, sizeof(xm));
    memcpy(Dp, D, sizeof(Dp)), memcpy(Dm, D, sizeof(Dm));
    if (k < 12)
      xp[k] += step, xm[k] -= step;
    else
      Dp[k - 12] += step, Dm[k - 12] -= step;
    num = (energy(X0, D0, xp, Dp, h, &m, nl) - energy(X0, D0, xm, Dm, h, &m, nl)) / (2.0 * step);
    ana = k < 12 ? fx[k] : fd[k - 12];
    scale = k < 12 ? vmax(fx, 12) : vmax(fd, 12);
    CHECK(fabs(num - ana) <= 1.0e-8 * scale, "%d layers, %s[%d] = %.12g, difference %.12g", nl,
          k < 12 ? "fx" : "fd", k % 12, ana, num);
  }
  for (int a = 0; a < 4; a++) {
    double v1[3], v2[3], mom[2];
    dt_mitc4_node_basis(&D[3 * a], v1, v2);
    mom[0] = -dt_mitc4_dot(&fd[3 * a], v2);
    mom[1] = dt_mitc4_dot(&fd[3 * a], v1);
    for (int j = 0; j < 2; j++) {
      double Dp[12], Dm[12], th[3], num;
      memcpy(Dp, D, sizeof(Dp)), memcpy(Dm, D, sizeof(Dm));
      for (int i = 0; i < 3; i++) th[i] = step * (j == 0 ? v1[i] : v2[i]);
      dt_mitc4_rotate(th, &D[3 * a], &Dp[3 * a]);
      for (int i = 0; i < 3; i++) th[i] = -th[i];
      dt_mitc4_rotate(th, &D[3 * a], &Dm[3 * a]);
      num = (energy(X0, D0, x, Dp, h, &m, nl) - energy(X0, D0, x, Dm, h, &m, nl)) / (2.0 * step);
      CHECK(fabs(num - mom[j]) <= 1.0e-8 * vmax(fd, 12), "node %d moment %s %.12g, dW/d%s %.12g", a,
            j ? "beta" : "alpha", mom[j], j ? "beta" : "alpha", num);
    }
  }
}

/* 2. Rigid motion: |fx| <= 1e-9 E h L, |fd| <= 1e-9 E h^2 L, |W| <= 1e-20 E h L^2 (L = 1). */
static void test_rigid(void) {
  double X0[12], D0[12], x[12], D[12], fx[12], fd[12], W, R[9], h = 0.05, th[3];
  double ax[3] = {1.0, -2.0, 0.7}, c[3] = {3.0, -1.0, 2.5}, ang = 70.0 * PI / 180.0;
  dt_material_params m;
  elastic(&m);
  warped_element(X0, D0);
  dt_mitc4_normalize(ax);
  for (int i = 0; i < 3; i++) th[i] = ang * ax[i];
  rotation(th, R);
  for (int a = 0; a < 4; a++) {
    matvec(R, &X0[3 * a], &x[3 * a]);
    for (int i = 0; i < 3; i++) x[3 * a + i] += c[i];
    matvec(R, &D0[3 * a], &D[3 * a]);
  }
  for (int nl = 2; nl <= 5; nl++) {
    CHECK(dt_mitc4_forces(X0, D0, x, D, h, &m, nl, NULL, NULL, fx, fd, &W, NULL) == DT_MITC4_OK,
          "rigid");
    CHECK(vmax(fx, 12) <= 1.0e-9 * E_MOD * h, "%d layers: |fx| %g", nl, vmax(fx, 12));
    CHECK(vmax(fd, 12) <= 1.0e-9 * E_MOD * h * h, "%d layers: |fd| %g", nl, vmax(fd, 12));
    CHECK(fabs(W) <= 1.0e-20 * E_MOD * h, "%d layers: energy %g", nl, W);
  }
}

/* 3. Objectivity: (Q x + c, Q D) has forces Q fx, Q fd (1e-10 of the largest) and the same
 * energy (1e-10 relative). */
static void test_objectivity(void) {
  double X0[12], D0[12], x[12], D[12], fx[12], fd[12], W, R[9], h = 0.05, th[3];
  double y[12], Dy[12], gx[12], gd[12], Wy, ax[3] = {-0.3, 0.8, 0.5}, ang = 70.0 * PI / 180.0;
  dt_material_params m;
  elastic(&m);
  warped_element(X0, D0);
  for (int i = 0; i < 12; i++) x[i] = X0[i] + 0.02 * rnd();
  for (int a = 0; a < 4; a++) {
    double t[3] = {0.2 * rnd(), 0.2 * rnd(), 0.2 * rnd()};
    dt_mitc4_rotate(t, &D0[3 * a], &D[3 * a]);
  }
  dt_mitc4_normalize(ax);
  for (int i = 0; i < 3; i++) th[i] = ang * ax[i];
  rotation(th, R);
  for (int a = 0; a < 4; a++) {
    matvec(R, &x[3 * a], &y[3 * a]);
    y[3 * a] += 1.5;
    matvec(R, &D[3 * a], &Dy[3 * a]);
  }
  CHECK(dt_mitc4_forces(X0, D0, x, D, h, &m, 2, NULL, NULL, fx, fd, &W, NULL) == 0, "deformed");
  CHECK(dt_mitc4_forces(X0, D0, y, Dy, h, &m, 2, NULL, NULL, gx, gd, &Wy, NULL) == 0, "turned");
  CHECK(fabs(Wy - W) <= 1.0e-10 * W, "energy %.15g turned %.15g", W, Wy);
  for (int a = 0; a < 4; a++) {
    double rx[3], rd[3];
    matvec(R, &fx[3 * a], rx);
    matvec(R, &fd[3 * a], rd);
    for (int i = 0; i < 3; i++) {
      CHECK(fabs(gx[3 * a + i] - rx[i]) <= 1.0e-10 * vmax(fx, 12), "fx node %d", a);
      CHECK(fabs(gd[3 * a + i] - rd[i]) <= 1.0e-10 * vmax(fd, 12), "fd node %d", a);
    }
  }
}

/* In-plane points p (2 per node) of a flat element placed in space on the plane spanned by the
 * orthonormal a, b: X = p_x a + p_y b. */
static void place(const double p[8], const double a[3], const double b[3], double X[12]) {
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < 3; i++) X[3 * k + i] = p[2 * k] * a[i] + p[2 * k + 1] * b[i];
}

static double shoelace(const double p[8]) {
  double A = 0.0;
  for (int k = 0; k < 4; k++) {
    int n = (k + 1) % 4;
    A += 0.5 * (p[2 * k] * p[2 * n + 1] - p[2 * n] * p[2 * k + 1]);
  }
  return A;
}

/* 4. Membrane patch: x = F X in the plane of a flat skewed element, directors fixed. The energy
 * is h A Ebar/2 (E11^2 + E22^2 + 2 nu E11 E22 + 2 (1-nu) E12^2), E = (F^T F - I)/2, to 1e-12
 * relative; the forces sum to zero (1e-12 of the largest). */
static void test_membrane(void) {
  const double p[8] = {0.0, 0.0, 2.0, 0.3, 2.4, 1.7, 0.2, 1.2};
  const double F[4] = {1.012, 0.004, -0.003, 0.995};
  double a[3] = {1.0, 0.4, -0.2}, b[3], n[3] = {0.3, -0.2, 1.0}, q[8], X0[12], D0[12], x[12];
  double fx[12], fd[12], W, E11, E22, E12, Eb = E_MOD / (1.0 - NU * NU), A, h = 0.02, ref, an;
  dt_material_params m;
  elastic(&m);
  dt_mitc4_normalize(n);
  an = dt_mitc4_dot(a, n);
  for (int i = 0; i < 3; i++) a[i] -= an * n[i];
  dt_mitc4_normalize(a);
  dt_mitc4_cross(n, a, b);
  for (int k = 0; k < 4; k++) {
    q[2 * k] = F[0] * p[2 * k] + F[1] * p[2 * k + 1];
    q[2 * k + 1] = F[2] * p[2 * k] + F[3] * p[2 * k + 1];
    for (int i = 0; i < 3; i++) D0[3 * k + i] = n[i];
  }
  place(p, a, b, X0);
  place(q, a, b, x);
  E11 = 0.5 * (F[0] * F[0] + F[2] * F[2] - 1.0);
  E22 = 0.5 * (F[1] * F[1] + F[3] * F[3] - 1.0);
  E12 = 0.5 * (F[0] * F[1] + F[2] * F[3]);
  A = shoelace(p);
  ref = h * A * 0.5 * Eb *
        (E11 * E11 + E22 * E22 + 2.0 * NU * E11 * E22 + 2.0 * (1 - NU) * E12 * E12);
  for (int nl = 2; nl <= 3; nl++) {
    CHECK(dt_mitc4_forces(X0, D0, x, D0, h, &m, nl, NULL, NULL, fx, fd, &W, NULL) == 0, "patch");
    CHECK(fabs(W - ref) <= 1.0e-12 * ref, "%d layers: energy %.16g, exact %.16g", nl, W, ref);
    for (int i = 0; i < 3; i++) {
      double s = fx[i] + fx[3 + i] + fx[6 + i] + fx[9 + i];
      CHECK(fabs(s) <= 1.0e-12 * vmax(fx, 12), "force sum %g", s);
    }
  }
}

/* 5. Pure bending of a flat square (side 2a, centred) by the directors D_a = (-sin k X_a, 0,
 * cos k X_a), x = X0: the bilinear director field has curvature k' = sin(k a)/a, and eps_xx(z) =
 * -z k' + z^2 k'^2 / 2 exactly, so the energy is A h/2 sum_l w_l Ebar/2 eps_xx(z_l)^2 to 1e-12
 * relative; against D k^2 / 2 A, D = E h^3 / (12 (1 - nu^2)), it agrees to (k a)^2/3 +
 * (k h)^2 ~ 1e-7: checked to 1e-6. */
static void test_bending(void) {
  double a = 0.5, h = 0.01, kap = 1.0e-3, X0[12], D0[12], D[12], fx[12], fd[12], W, ref, kp;
  double Eb = E_MOD / (1.0 - NU * NU), A = 4.0 * a * a;
  const double p[8] = {-1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0};
  dt_material_params m;
  elastic(&m);
  for (int k = 0; k < 4; k++) {
    X0[3 * k] = a * p[2 * k], X0[3 * k + 1] = a * p[2 * k + 1], X0[3 * k + 2] = 0.0;
    D0[3 * k] = 0.0, D0[3 * k + 1] = 0.0, D0[3 * k + 2] = 1.0;
    D[3 * k] = -sin(kap * X0[3 * k]), D[3 * k + 1] = 0.0, D[3 * k + 2] = cos(kap * X0[3 * k]);
  }
  kp = sin(kap * a) / a;
  for (int nl = 2; nl <= 5; nl++) {
    ref = 0.0;
    for (int l = 0; l < nl; l++) {
      double zeta, w, z, e;
      dt_mitc4_gauss(nl, l, &zeta, &w);
      z = 0.5 * h * zeta;
      e = -z * kp + 0.5 * z * z * kp * kp;
      ref += A * 0.5 * h * w * 0.5 * Eb * e * e;
    }
    CHECK(dt_mitc4_forces(X0, D0, X0, D, h, &m, nl, NULL, NULL, fx, fd, &W, NULL) == 0, "bend");
    CHECK(fabs(W - ref) <= 1.0e-12 * ref, "%d layers: energy %.16g, rule %.16g", nl, W, ref);
    ref = Eb * h * h * h / 12.0 * kap * kap / 2.0 * A;
    CHECK(fabs(W - ref) <= 1.0e-6 * ref, "%d layers: energy %.16g, D k^2 A/2 %.16g", nl, W, ref);
  }
}

/* 6. Kirchhoff mode w = (kxx X^2 + 2 kxy X Y + kyy Y^2)/2 of a thin (h = 1e-3, L ~ 1) distorted
 * flat element, directors the deformed normals at the nodes. MITC4's tying shears vanish to
 * 1e-9 of k h L (they are O(k^3)); the displacement-based shear at a Gauss point is O(k h L)
 * (checked >= 1e-2 of it, so the first check would see a locking element). The energy equals
 * the plate's D/2 (kxx^2 + kyy^2 + 2 nu kxx kyy + 2 (1-nu) kxy^2) A to 1e-6 (the membrane
 * coupling is ~3 k^2 L^4 / h^2 = 3e-10); a locking element would be ~(L/h)^2 stiffer. */
static void test_no_locking(void) {
  const double p[8] = {0.0, 0.0, 1.0, 0.1, 1.2, 0.9, 0.15, 1.1};
  double kxx = 1.0e-8, kyy = -0.4e-8, kxy = 0.3e-8, h = 1.0e-3, X0[12], D0[12], x[12], D[12];
  double e0[4], e1[4], fx[12], fd[12], W, ref, k = 1.0e-8, Dp, g0, g1;
  double ex[3] = {1.0, 0.0, 0.0}, ey[3] = {0.0, 1.0, 0.0};
  dt_material_params m;
  elastic(&m);
  place(p, ex, ey, X0);
  for (int a = 0; a < 4; a++) {
    double X = p[2 * a], Y = p[2 * a + 1], w = 0.5 * (kxx * X * X + 2 * kxy * X * Y + kyy * Y * Y);
    x[3 * a] = X, x[3 * a + 1] = Y, x[3 * a + 2] = w;
    D0[3 * a] = 0.0, D0[3 * a + 1] = 0.0, D0[3 * a + 2] = 1.0;
    D[3 * a] = -(kxx * X + kxy * Y), D[3 * a + 1] = -(kxy * X + kyy * Y), D[3 * a + 2] = 1.0;
    dt_mitc4_normalize(&D[3 * a]);
  }
  dt_mitc4_tying(X0, D0, x, D, h, e0, e1);
  for (int t = 0; t < 4; t++)
    CHECK(fabs(e0[t]) + 0.5 * h * fabs(e1[t]) <= 1.0e-9 * k * h, "tying point %d shear %g", t,
          fabs(e0[t]) + 0.5 * h * fabs(e1[t]));
  dt_mitc4_covariant_shear(X0, D0, x, D, h, 0.57735026918962576, -0.57735026918962576, 0, &g0, &g1);
  CHECK(fabs(g0) >= 1.0e-2 * k * h, "displacement-based shear at a Gauss point %g", g0);
  Dp = E_MOD * h * h * h / (12.0 * (1.0 - NU * NU));
  ref = 0.5 * Dp * (kxx * kxx + kyy * kyy + 2 * NU * kxx * kyy + 2 * (1 - NU) * kxy * kxy) *
        shoelace(p);
  CHECK(dt_mitc4_forces(X0, D0, x, D, h, &m, 2, NULL, NULL, fx, fd, &W, NULL) == 0, "thin");
  CHECK(fabs(W - ref) <= 1.0e-6 * ref, "energy %.16g, plate %.16g", W, ref);
}

/* 7a. The plane stress update. Elastic: S11 = Ebar (e11 + nu e22), S22, S12 = G 2e12,
 * S13 = k G 2e13, S23 = k G 2e23 to 1e-14 of the largest, S33 = 0 to 1e-12 of it. Voce J2, a
 * general strain past yield: plastic, S33 = 0 to 1e-12 |S| (|S| = sqrt(S:S) of the unscaled
 * stress) plus the Newton's rounding floor 1e-15 (lambda + 2G) |eps|_max, and on the yield
 * surface (von Mises of the unscaled stress = sigma_y(p) to 1e-10). */
static void test_plane_stress(void) {
  dt_material_params m;
  dt_mat_state old, st;
  double eps[6], sig[6], G = E_MOD / (2 * (1 + NU)), Eb = E_MOD / (1 - NU * NU), ref[6], nrm;
  double k = 5.0 / 6.0; /* not DT_MITC4_SHEAR_K: the check is of the header's value too */
  memset(&old, 0, sizeof(old));
  elastic(&m);
  for (int trial = 0; trial < 20; trial++) {
    for (int i = 0; i < 6; i++) eps[i] = 1.0e-3 * rnd();
    CHECK(dt_mitc4_plane_stress(&m, &old, &st, eps, sig) == DT_MAT_ELASTIC, "elastic");
    ref[0] = Eb * (eps[0] + NU * eps[1]), ref[1] = Eb * (eps[1] + NU * eps[0]), ref[2] = 0.0;
    ref[3] = G * eps[3], ref[4] = k * G * eps[4], ref[5] = k * G * eps[5];
    nrm = vmax(ref, 6);
    for (int i = 0; i < 6; i++)
      CHECK(fabs(sig[i] - ref[i]) <= (i == 2 ? 1.0e-12 : 1.0e-14) * nrm, "S[%d] %.16g, %.16g", i,
            sig[i], ref[i]);
  }
  j2(&m, DT_ISO_VOCE);
  for (int trial = 0; trial < 20; trial++) {
    double un[6], sy;
    for (int i = 0; i < 6; i++) eps[i] = 1.0e-2 * rnd();
    CHECK(dt_mitc4_plane_stress(&m, &old, &st, eps, sig) == DT_MAT_PLASTIC, "voce trial %d", trial);
    for (int i = 0; i < 6; i++) un[i] = sig[i] / (i >= 4 ? k : 1.0);
    CHECK(fabs(sig[2]) <= 1.0e-12 * sqrt(dt_voigt_ddot(un, un)) + 1.0e-15 * 3 * E_MOD * 1.0e-2,
          "S33 %g", sig[2]);
    sy = dt_yield_stress(&m, st.p, NULL);
    CHECK(fabs(dt_mises_voigt(un) - sy) <= 1.0e-10 * sy, "mises %.14g, sigma_y %.14g",
          dt_mises_voigt(un), sy);
  }
}

/* 7b. Uniaxial membrane stress past yield, linear hardening, 5 layers: with
 * sigma = sigma_y0 + H p the exact state is E11 = sigma/E + p, E22 = E33 = -nu sigma/E - p/2
 * (radial return is exact on this proportional path), imposed as x = (l1 X, l2 Y) with
 * l = sqrt(1 + 2E). Checks: all 20 points plastic; each point's p and plastic strain p (1, -1/2,
 * -1/2) to 1e-10; the nodal forces on the edge X = 1 sum to l1 sigma h (the first
 * Piola-Kirchhoff traction, 1e-10), on Y = 1 to 0 (1e-10 sigma h); the centre stress (from a
 * point's committed history) is sigma e_x e_x in the current frame (1e-10 sigma); e33 from the
 * Newton equals E33 (1e-10). */
static void test_uniaxial(void) {
  dt_material_params m;
  dt_mat_state old[20], nw[20], st;
  double X0[12], D0[12], x[12], fx[12], fd[12], W, h = 0.1, pl = 0.004, s, E11, E22, l1, l2;
  double eps[6], sig[6];
  int np;
  j2(&m, DT_ISO_LINEAR);
  memset(old, 0, sizeof(old));
  s = m.sigma_y0 + m.H * pl;
  E11 = s / E_MOD + pl;
  E22 = -NU * s / E_MOD - 0.5 * pl;
  l1 = sqrt(1.0 + 2.0 * E11);
  l2 = sqrt(1.0 + 2.0 * E22);
  for (int a = 0; a < 4; a++) {
    double X = (a == 1 || a == 2) ? 1.0 : 0.0, Y = a >= 2 ? 1.0 : 0.0;
    X0[3 * a] = X, X0[3 * a + 1] = Y, X0[3 * a + 2] = 0.0;
    x[3 * a] = l1 * X, x[3 * a + 1] = l2 * Y, x[3 * a + 2] = 0.0;
    D0[3 * a] = 0.0, D0[3 * a + 1] = 0.0, D0[3 * a + 2] = 1.0;
  }
  CHECK(dt_mitc4_forces(X0, D0, x, D0, h, &m, 5, old, nw, fx, fd, &W, &np) == 0, "uniaxial");
  CHECK(np == 20, "%d plastic points of 20", np);
  for (int q = 0; q < 20; q++) {
    CHECK(fabs(nw[q].p - pl) <= 1.0e-10 * pl, "point %d: p %.14g", q, nw[q].p);
    for (int i = 0; i < 6; i++) {
      double e = i == 0 ? pl : (i < 3 ? -0.5 * pl : 0.0);
      CHECK(fabs(nw[q].eps_p[i] - e) <= 1.0e-10 * pl, "point %d: eps_p[%d] %g", q, i,
            nw[q].eps_p[i]);
    }
  }
  CHECK(fabs(fx[3] + fx[6] - l1 * s * h) <= 1.0e-10 * s * h, "edge force %.14g, exact %.14g",
        fx[3] + fx[6], l1 * s * h);
  CHECK(fabs(fx[7] + fx[10]) <= 1.0e-10 * s * h, "lateral edge force %g", fx[7] + fx[10]);
  CHECK(dt_mitc4_centre_stress(X0, D0, x, D0, h, 0.0, &m, &nw[2], sig, NULL) == 0, "centre");
  for (int i = 0; i < 6; i++)
    CHECK(fabs(sig[i] - (i == 0 ? s : 0.0)) <= 1.0e-10 * s, "centre sig[%d] %.14g", i, sig[i]);
  eps[0] = E11, eps[1] = E22, eps[3] = eps[4] = eps[5] = 0.0;
  CHECK(dt_mitc4_plane_stress(&m, &old[0], &st, eps, sig) == DT_MAT_PLASTIC, "point");
  CHECK(fabs(eps[2] - E22) <= 1.0e-10 * fabs(E22), "e33 %.14g, exact %.14g", eps[2], E22);
  CHECK(fabs(sig[2]) <= 1.0e-12 * s, "S33 %g", sig[2]);
}

/* The 2D Jacobian determinant of the flat element p at (r, s). */
static double jac2(const double p[8], double r, double s) {
  double N[4], Nr[4], Ns[4], xr = 0, yr = 0, xs = 0, ys = 0;
  dt_mitc4_shape(r, s, N, Nr, Ns);
  for (int a = 0; a < 4; a++) {
    xr += Nr[a] * p[2 * a], yr += Nr[a] * p[2 * a + 1];
    xs += Ns[a] * p[2 * a], ys += Ns[a] * p[2 * a + 1];
  }
  return xr * ys - xs * yr;
}

/* 8. Lumped mass sums to rho h A (flat element: A by the shoelace formula, 1e-14), the rotary
 * inertia to rho h^3/12 A; each node's share is the exact integral of N_a det J (det J is linear
 * in r, s on a flat element; 1e-14 of rho h A), a square's nodes get a quarter each. The
 * characteristic length A / max diagonal: unit square 1/sqrt(2), 2 x 1 rectangle 2/sqrt(5),
 * parallelogram (0,0) (2,0) (3,1) (1,1) 2/sqrt(10) (1e-15). */
static void test_mass_length(void) {
  const double p[8] = {0.0, 0.0, 2.0, 0.3, 2.4, 1.7, 0.2, 1.2};
  const double sq[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  const double re[12] = {0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 1, 0};
  const double pg[12] = {0, 0, 0, 2, 0, 0, 3, 1, 0, 1, 1, 0};
  double ex[3] = {0.6, 0.8, 0.0}, ey[3] = {0.0, 0.0, 1.0}, X0[12], mt[4], mr[4], rho = 7.8e-9;
  double h = 0.01, A = shoelace(p), st = 0.0, sr = 0.0;
  place(p, ex, ey, X0);
  dt_mitc4_lumped_mass(X0, h, rho, mt, mr);
  for (int a = 0; a < 4; a++) st += mt[a], sr += mr[a];
  CHECK(fabs(st - rho * h * A) <= 1.0e-14 * rho * h * A, "mass %.16g, rho h A %.16g", st,
        rho * h * A);
  CHECK(fabs(sr - rho * h * h * h / 12 * A) <= 1.0e-14 * rho * h * h * h / 12 * A, "inertia %g",
        sr);
  for (int a = 0; a < 4; a++) { /* share = j0 + (j1 r_a + j2 s_a)/3 for det J = j0 + j1 r + j2 s */
    double ra = (a == 1 || a == 2) ? 1 : -1, sa = a >= 2 ? 1 : -1;
    double sh =
        jac2(p, 0, 0) +
        ((jac2(p, 1, 0) - jac2(p, -1, 0)) * ra + (jac2(p, 0, 1) - jac2(p, 0, -1)) * sa) / 6.0;
    CHECK(fabs(mt[a] - rho * h * sh) <= 1.0e-14 * rho * h * A, "node %d mass %.16g, exact %.16g", a,
          mt[a], rho * h * sh);
  }
  dt_mitc4_lumped_mass(sq, h, rho, mt, mr);
  for (int a = 0; a < 4; a++)
    CHECK(fabs(mt[a] - 0.25 * rho * h) <= 1.0e-15 * rho * h, "square node %d mass %g", a, mt[a]);
  CHECK(fabs(dt_mitc4_length(sq) - 1.0 / sqrt(2.0)) <= 1.0e-15, "square %.16g",
        dt_mitc4_length(sq));
  CHECK(fabs(dt_mitc4_length(re) - 2.0 / sqrt(5.0)) <= 1.0e-15, "rectangle %.16g",
        dt_mitc4_length(re));
  CHECK(fabs(dt_mitc4_length(pg) - 2.0 / sqrt(10.0)) <= 1.0e-15, "parallelogram %.16g",
        dt_mitc4_length(pg));
}

/* Nodal basis: orthonormal and right-handed (v1 x v2 = vn) to 1e-14, also for vn = +-e_y and
 * next to it. Rodrigues: R(th) of a matches the axis-angle formula (1e-14; 1e-15 at angles
 * 0.9e-6 and 1.1e-6, either side of the series cut-off, with 1 - cos t = 2 sin^2(t/2)), 2 pi about
 * an axis gives a back (1e-14). */
static void test_basis_rotate(void) {
  double vns[5][3] = {{0, 1, 0}, {0, -1, 0}, {1e-4, 1, 2e-4}, {0.3, -0.4, 0.8}, {1, 0, 0}};
  for (int t = 0; t < 5; t++) {
    double v1[3], v2[3], c[3], *vn = vns[t];
    dt_mitc4_normalize(vn);
    dt_mitc4_node_basis(vn, v1, v2);
    dt_mitc4_cross(v1, v2, c);
    CHECK(fabs(dt_mitc4_dot(v1, v1) - 1) + fabs(dt_mitc4_dot(v2, v2) - 1) +
                  fabs(dt_mitc4_dot(v1, vn)) + fabs(dt_mitc4_dot(v2, vn)) +
                  fabs(dt_mitc4_dot(v1, v2)) <=
              1.0e-14,
          "basis %d not orthonormal", t);
    for (int i = 0; i < 3; i++) CHECK(fabs(c[i] - vn[i]) <= 1.0e-14, "basis %d handedness", t);
  }
  for (int t = 0; t < 10; t++) {
    double th[3] = {2 * rnd(), 2 * rnd(), 2 * rnd()}, a[3] = {rnd(), rnd(), rnd()}, o[3], k[3];
    double ang = sqrt(dt_mitc4_dot(th, th)), ka[3], ref;
    for (int i = 0; i < 3; i++) k[i] = th[i] / ang;
    dt_mitc4_cross(k, a, ka);
    dt_mitc4_rotate(th, a, o);
    for (int i = 0; i < 3; i++) {
      ref = a[i] * cos(ang) + ka[i] * sin(ang) + k[i] * dt_mitc4_dot(k, a) * (1 - cos(ang));
      CHECK(fabs(o[i] - ref) <= 1.0e-14, "rotate %.16g, axis-angle %.16g", o[i], ref);
    }
    for (int j = 0; j < 2; j++) { /* either side of the series' cut-off */
      double t = j ? 1.1e-6 : 0.9e-6, s2 = sin(0.5 * t);
      for (int i = 0; i < 3; i++) th[i] = t * k[i];
      dt_mitc4_rotate(th, a, o);
      for (int i = 0; i < 3; i++) {
        ref = a[i] * (1 - 2 * s2 * s2) + ka[i] * sin(t) + k[i] * dt_mitc4_dot(k, a) * 2 * s2 * s2;
        CHECK(fabs(o[i] - ref) <= 1.0e-15 * (1 + fabs(a[i])), "angle %g: %.17g, %.17g", t, o[i],
              ref);
      }
    }
    for (int i = 0; i < 3; i++) th[i] = 2.0 * PI * k[i];
    dt_mitc4_rotate(th, a, o);
    for (int i = 0; i < 3; i++) CHECK(fabs(o[i] - a[i]) <= 1.0e-14, "full turn");
  }
}

/* Bad input: one layer, a plastic material without history, directors pointing against the
 * mid-surface normal (det J0 < 0). */
static void test_errors(void) {
  double X0[12], D0[12], fx[12], fd[12], W;
  dt_material_params m;
  warped_element(X0, D0);
  elastic(&m);
  CHECK(dt_mitc4_forces(X0, D0, X0, D0, 0.05, &m, 1, NULL, NULL, fx, fd, &W, NULL) ==
            DT_MITC4_ARGUMENT,
        "one layer");
  j2(&m, DT_ISO_LINEAR);
  CHECK(dt_mitc4_forces(X0, D0, X0, D0, 0.05, &m, 2, NULL, NULL, fx, fd, &W, NULL) ==
            DT_MITC4_ARGUMENT,
        "plastic without history");
  elastic(&m);
  for (int i = 0; i < 12; i++) D0[i] = -D0[i];
  CHECK(dt_mitc4_forces(X0, D0, X0, D0, 0.05, &m, 2, NULL, NULL, fx, fd, &W, NULL) ==
            DT_MITC4_DEGENERATE,
        "flipped directors");
}

int main(void) {
  srand(2024);
  test_gradient(2);
  test_gradient(3);
  test_rigid();
  test_objectivity();
  test_membrane();
  test_bending();
  test_no_locking();
  test_plane_stress();
  test_uniaxial();
  test_mass_length();
  test_basis_rotate();
  test_errors();
  printf("mitc4: gradient, rigid motion, objectivity, membrane patch, bending, no locking, "
         "plane stress J2, uniaxial J2, mass, length, basis, rotation: all checks pass\n");
  return 0;
}
