/* Validation of explicit dynamics of MITC4 shells (solver/explicit/), each case against its
 * reference with its tolerance:
 *   plate      [Bartezzaghi2015] test 1: the simply supported circular plate (R 10 mm, h 0.1
 *              mm, E 206000 MPa, nu 0.3) under a uniform pressure 1e-4 MPa, damped to rest:
 *              the centre deflection against the Reissner-Mindlin solution 3.3772e-3 mm
 *              (digest seed-001 §3.1: Kirchhoff 3.3768e-3 plus the shear term); density of
 *              steel and damping alpha = 2 omega_1 (the paper gives neither).
 *   wave       a bar (a strip of shells in membrane action, nu = 0) driven at one end by a
 *              velocity step: the wave speed sqrt(E / rho) and the reflection at the free end
 *              (the free end moves at twice the driving velocity from t = L / c).
 *   energy     an undamped, simply supported plate set moving by an initial velocity: the
 *              energy balance kinetic + internal - external stays at the initial kinetic
 *              energy to 1e-6 of it over 1000 steps.
 *   cantilever [Bartezzaghi2015] test 2: the clamped strip 100 x 20 x 0.2 mm, E 1768 MPa, rho
 *              3000 kg/m^3, under a tip load 0.00624 N (the digest's reading A), damped to
 *              rest: with nu = 0 the tip deflection against the elastica (computed here by
 *              shooting; 0.571 L by the digest), and with the paper's nu = 0.3 between the
 *              elastica of the beam (EI) and of the plate strip (D b).
 *   agree      cpu against cuda over 1000 steps of the loaded circular plate: displacements
 *              within 1e-10 of the largest (label gpu).
 *   resume     a run killed after a checkpoint (a child process that exits in the middle of
 *              its frames) and resumed gives the uninterrupted run's displacements and
 *              energy.csv bit for bit.
 * Usage: test_explicit CASE [--backend cpu|cuda] [--n N] (the mesh size parameter). */
#include "xp_test.h"

static int every_node(const double *x, const void *u) {
  (void)x, (void)u;
  return 1;
}
static int at_x(const double *x, const void *u) { return fabs(x[0] - *(const double *)u) < 1e-9; }
static int on_rim(const double *x, const void *u) {
  return hypot(x[0], x[1]) > *(const double *)u * (1 - 1e-9);
}
static int inside_square(const double *x, const void *u) {
  const double a = *(const double *)u;
  return x[0] > 1e-9 && x[0] < a - 1e-9 && x[1] > 1e-9 && x[1] < a - 1e-9;
}
static int on_square_edge(const double *x, const void *u) { return !inside_square(x, u); }

/* The circular plate with the pressure, damped at 2 omega_1 for T = 14 / omega_1. */
static dt_model *circular_plate(int n, double T_omega) {
  const double R = 10, h = 0.1, E = 206000, nu = 0.3, rho = 7.85e-9, q = 1e-4;
  const double D = E * h * h * h / (12 * (1 - nu * nu));
  const double w1 = 4.977 / (R * R) * sqrt(D / (rho * h)); /* simply supported, nu = 0.3 */
  shell_mesh s = shell_mesh_disc(R, n);
  dt_model *m = shell_model(&s, E, nu, rho, h, T_omega / w1);
  int rim = shell_model_nset(m, "rim", on_rim, &R);
  shell_model_bc(m, rim, DT_DOF_Z, NULL, 0);
  shell_model_pressure(m, q);
  m->steps[0].explicit_.damping = 2 * w1;
  m->steps[0].explicit_.output_frames = 50;
  m->output.fields |= DT_OUT_S | DT_OUT_RF;
  shell_model_finish(m);
  return m;
}

static int case_plate(int n) {
  const double w0 = 3.3772e-3, tol = 0.01; /* discretisation and the polygonal rim */
  dt_model *m = circular_plate(n, 14.0);
  dt_run_summary s;
  double w, err;
  P.node[0] = P.node[1] = nearest(m, 0, 0, 0);
  P.comp = 2;
  s = run(m, backend);
  w = -P.w[0][P.n - 1];
  err = fabs(w - w0) / w0;
  printf("circular plate, %d elements, %s: centre deflection %.6e mm against %.4e (error %.2f%%, "
         "tolerance %.0f%%), %ld time steps in %.2f s\n",
         m->n_elems, backend, w, w0, 100 * err, 100 * tol, s.time_steps, s.seconds_total);
  /* at rest: the last two frames agree */
  XCHECK(fabs(P.w[0][P.n - 1] - P.w[0][P.n - 2]) < 1e-4 * w0, "not at rest: %g then %g",
         P.w[0][P.n - 2], P.w[0][P.n - 1]);
  XCHECK(err < tol, "centre deflection %.6e, reference %.4e", w, w0);
  { /* the surface stresses of the element nearest the centre against the plate's bending
       stress there, 6 M / h^2 with M = (3 + nu) q (R^2 - r^2) / 16 (radial = hoop at r = 0;
       the element's centre at r adds (r / R)^2 < 1 %), bottom in tension */
    const double R = 10, h = 0.1, nu = 0.3, q = 1e-4;
    int e0 = 0;
    double best = 1e30, r, ref, sb, st;
    for (int e = 0; e < m->n_elems; e++) {
      double c[3] = {0, 0, 0};
      for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) c[k] += 0.25 * m->x[3 * m->conn[m->elem_ptr[e] + a] + k];
      if (hypot(c[0], c[1]) < best) best = hypot(c[0], c[1]), e0 = e;
    }
    r = best;
    ref = 6 * (3 + nu) * q * (R * R - r * r) / (16 * h * h);
    XCHECK(P.n_qp == 2 * m->n_elems, "point stresses: %d points", P.n_qp);
    sb = 0.5 * (P.last_s[12 * e0] + P.last_s[12 * e0 + 1]); /* (xx + yy) / 2, bottom */
    st = 0.5 * (P.last_s[12 * e0 + 6] + P.last_s[12 * e0 + 7]);
    printf("circular plate, %s: surface stresses at r = %.3f: bottom %.5g, top %.5g against "
           "+-%.5g (%.2f%%, %.2f%%; tolerance 3%%)\n",
           backend, r, sb, st, ref, 100 * fabs(sb / ref - 1), 100 * fabs(-st / ref - 1));
    XCHECK(fabs(sb / ref - 1) < 0.03 && fabs(-st / ref - 1) < 0.03, "stresses %g %g, %g", sb, st,
           ref);
  }
  dt_model_destroy(&m);
  return 0;
}

static int case_wave(int n) {
  const double L = 100, b = 2, E = 200000, rho = 7.85e-9, v0 = 1.0, c = sqrt(E / rho);
  shell_mesh s = shell_mesh_rect(L, b, n, 1);
  dt_model *m = shell_model(&s, E, 0.0, rho, 0.5, 2.0 * L / c);
  double x0 = 0, vx[3] = {v0, 0, 0};
  char what[64];
  int drive, all;
  drive = shell_model_nset(m, "drive", at_x, &x0);
  all = shell_model_nset(m, "all", every_node, NULL);
  shell_model_bc(m, drive, DT_DOF_X, vx, 1);
  shell_model_bc(m, all, DT_DOF_Z | DT_DOF_ROT, NULL, 0);
  m->steps[0].explicit_.output_every = 1;
  shell_model_finish(m);
  snprintf(what, sizeof what, "%d shell elements", n);
  wave_run(m, L, c, v0, what);
  dt_model_destroy(&m);
  return 0;
}

/* One undamped run of the energy case: the plate set moving at v0; returns the largest
 * |internal work - strain energy| / total energy and the largest centre deflection. */
static double energy_run(int n, double v0, double *w_max) {
  const double a = 10, E = 206000, rho = 7.85e-9, h = 0.1;
  shell_mesh s = shell_mesh_rect(a, a, n, n);
  dt_model *m = shell_model(&s, E, 0.3, rho, h, 1.0);
  dt_run_summary r;
  int edge = shell_model_nset(m, "edge", on_square_edge, &a);
  int inner = shell_model_nset(m, "inner", inside_square, &a);
  shell_model_bc(m, edge, DT_DOF_Z, NULL, 0);
  m->n_initial_velocities = 1;
  m->initial_velocities = calloc(1, sizeof(dt_initial_velocity));
  m->initial_velocities[0].nset = inner;
  m->initial_velocities[0].v[2] = v0;
  m->steps[0].explicit_.output_every = 10;
  shell_model_finish(m);
  m->steps[0].explicit_.dt = stable_step(m);
  m->steps[0].explicit_.time_period = 1000 * m->steps[0].explicit_.dt;
  P.node[0] = P.node[1] = nearest(m, a / 2, a / 2, 0);
  P.comp = 2;
  worst_potential = 0;
  r = run(m, backend);
  *w_max = 0;
  for (int i = 0; i < P.n; i++) *w_max = fmax(*w_max, fabs(P.w[0][i]));
  printf("energy, %d elements, %s, v0 %g: %ld steps, centre deflection up to %.3g h; kinetic + "
         "internal work - initial kinetic energy: %.3e of the largest term; internal work - "
         "strain energy: %.3e of the total energy\n",
         m->n_elems, backend, v0, r.time_steps, *w_max / h, r.energy_balance, worst_potential);
  XCHECK(r.time_steps == 1000, "%ld steps", r.time_steps);
  /* an identity of central differences with trapezoidal work: round-off only */
  XCHECK(r.energy_balance < 1e-12, "energy balance %g", r.energy_balance);
  dt_model_destroy(&m);
  return worst_potential;
}

/* Energy conservation: the internal work equals the strain energy (the element's potential),
 * so kinetic + strain energy is conserved: to 1e-6 of the total for small deflections, and
 * to 1e-4 at deflections of several thicknesses (the scheme's O(dt^2) error on a nonlinear
 * model). */
static int case_energy(int n) {
  double w, d;
  d = energy_run(n, 10.0, &w);
  XCHECK(w < 0.01 * 0.1 && d > 0 && d < 1e-6, "small deflections: %g (deflection %g)", d, w);
  d = energy_run(n, 3000.0, &w);
  XCHECK(w > 1.0 * 0.1 && d > 0 && d < 1e-4, "large deflections: %g (deflection %g)", d, w);
  return 0;
}

/* The elastica of a cantilever under a tip force of fixed direction: EI theta'' = -P cos(theta),
 * theta(0) = 0, theta'(L) = 0; returns the tip deflection (shooting on theta'(0), RK4). */
static double elastica(double PL2_EI, double L) {
  double lo = 0, hi = PL2_EI / L * 1.5, k0 = 0;
  for (int it = 0; it < 200; it++) {
    double th = 0, dth, w = 0;
    const int N = 4000;
    const double ds = L / N, a = PL2_EI / (L * L);
    k0 = 0.5 * (lo + hi);
    dth = k0;
    for (int i = 0; i < N; i++) { /* y = (theta, theta', w) */
      double k1[3], k2[3], k3[3], k4[3];
#define F(t, d, out) (out)[0] = (d), (out)[1] = -a * cos(t), (out)[2] = sin(t)
      F(th, dth, k1);
      F(th + 0.5 * ds * k1[0], dth + 0.5 * ds * k1[1], k2);
      F(th + 0.5 * ds * k2[0], dth + 0.5 * ds * k2[1], k3);
      F(th + ds * k3[0], dth + ds * k3[1], k4);
#undef F
      th += ds / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]);
      dth += ds / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]);
      w += ds / 6 * (k1[2] + 2 * k2[2] + 2 * k3[2] + k4[2]);
    }
    if (dth > 0)
      hi = k0; /* curvature left at the tip: too much at the root */
    else
      lo = k0;
    if (it == 199) return w;
  }
  return 0;
}

static double cantilever(int n, double nu) {
  const double L = 100, b = 20, h = 0.2, E = 1768, rho = 3e-9, P_tip = 0.00624;
  const double EI = E * b * h * h * h / 12,
               w1 = 1.8751 * 1.8751 * sqrt(EI / (rho * b * h)) / (L * L);
  shell_mesh s = shell_mesh_rect(L, b, n, n / 5 > 0 ? n / 5 : 1);
  dt_model *m = shell_model(&s, E, nu, rho, h, getenv("XP_T") ? atof(getenv("XP_T")) : 14.0 / w1);
  double x0 = 0, xL = L, f[3] = {0, 0, 0}, w;
  int clamp = shell_model_nset(m, "clamp", at_x, &x0);
  int tip = shell_model_nset(m, "tip", at_x, &xL);
  shell_model_bc(m, clamp, DT_DOF_X | DT_DOF_Y | DT_DOF_Z | DT_DOF_ROT, NULL, 0);
  f[2] = P_tip / m->nsets[tip].n; /* equal shares: the strip's tip edge carries P */
  shell_model_force(m, tip, f);
  m->steps[0].explicit_.damping = 2 * w1;
  m->steps[0].explicit_.output_frames = 40;
  shell_model_finish(m);
  P.node[0] = P.node[1] = nearest(m, L, b / 2, 0);
  P.comp = 2;
  run(m, backend);
  w = P.w[0][P.n - 1];
  if (getenv("XP_VERBOSE")) {
    for (int i = 0; i < P.n; i++) printf("  frame %d: t %.4f tip w %.4f\n", i, P.t[i], P.w[0][i]);
    for (int i = 0; i < m->nsets[tip].n; i++) {
      const int a = m->nsets[tip].items[i];
      printf("  tip node y %.2f: u %.4f %.4f %.4f\n", m->x[3 * a + 1], P.last_u[3 * a],
             P.last_u[3 * a + 1], P.last_u[3 * a + 2]);
    }
  }
  XCHECK(getenv("XP_T") || fabs(P.w[0][P.n - 1] - P.w[0][P.n - 2]) < 1e-3 * fabs(w),
         "not at rest: %g then %g", P.w[0][P.n - 2], w);
  if (!getenv("XP_T")) { /* at rest: the clamp holds the tip load (a force of fixed direction) */
    const double rz = reaction_sum(m, clamp, 2), rx = reaction_sum(m, clamp, 0);
    printf("  clamp reactions at rest: z %.6g (-P = %.6g, %.3f%%), x %.3g (tolerance 0.5%% of P)\n",
           rz, -P_tip, 100 * fabs(rz / -P_tip - 1), rx);
    XCHECK(fabs(rz + P_tip) < 5e-3 * P_tip && fabs(rx) < 5e-3 * P_tip, "reactions %g %g", rz, rx);
  }
  dt_model_destroy(&m);
  return w;
}

static int case_cantilever(int n) {
  const double L = 100, b = 20, h = 0.2, E = 1768, P_tip = 0.00624, nu = 0.3;
  const double EI = E * b * h * h * h / 12, Db = EI / (1 - nu * nu);
  const double w_beam = elastica(P_tip * L * L / EI, L), w_plate = elastica(P_tip * L * L / Db, L);
  double w0, w3;
  printf("elastica: tip deflection %.4f mm (digest 0.571 L), strip as a plate %.4f mm\n", w_beam,
         w_plate);
  XCHECK(fabs(w_beam / L - 0.571) < 0.002, "elastica %g against the digest's 0.571 L", w_beam);
  if (getenv("XP_NU")) { /* one run at the given nu (diagnostics) */
    printf("nu %s: %.4f\n", getenv("XP_NU"), cantilever(n, atof(getenv("XP_NU"))));
    if (getenv("XP_TWICE"))
      printf("nu %s again: %.4f\n", getenv("XP_NU"), cantilever(n, atof(getenv("XP_NU"))));
    return 0;
  }
  w0 = cantilever(n, 0.0);
  printf("cantilever nu = 0, %s: tip deflection %.4f mm against the elastica %.4f (error %.2f%%, "
         "tolerance 2%%)\n",
         backend, w0, w_beam, 100 * fabs(w0 - w_beam) / w_beam);
  XCHECK(fabs(w0 - w_beam) < 0.02 * w_beam, "nu = 0: %g against %g", w0, w_beam);
  w3 = cantilever(n, nu);
  printf("cantilever nu = 0.3: %.4f mm, between the plate strip %.4f and the beam %.4f (1%% "
         "margin)\n",
         w3, w_plate, w_beam);
  XCHECK(w3 > 0.99 * w_plate && w3 < 1.01 * w_beam, "nu = 0.3: %g", w3);
  return 0;
}

static int case_agree(int n) {
  dt_model *m;
  if (no_cuda()) return 77;
  m = circular_plate(n, 1.0);
  m->steps[0].explicit_.output_frames = 1;
  m->steps[0].explicit_.dt = stable_step(m);
  m->steps[0].explicit_.time_period = 1000 * m->steps[0].explicit_.dt;
  agree_runs(m, "circular plate after 1000 steps");
  dt_model_destroy(&m);
  return 0;
}

static dt_model *resume_model(void) {
  dt_model *m = circular_plate(4, 3.0);
  m->steps[0].explicit_.output_frames = 12;
  return m;
}

/* The plate (its pressure, its supported rim) split into parts (parts_case). */
static int case_parts(int n) {
  dt_model *m = circular_plate(4, 3.0);
  int rc = parts_case(m, n, "circular plate");
  dt_model_destroy(&m);
  return rc;
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  int n = 0, rc = parse_args(argc, argv, &n);
  if (rc >= 0) return rc;
  if (!strcmp(which, "plate")) return case_plate(n ? n : 6);
  if (!strcmp(which, "wave")) return case_wave(n ? n : 100);
  if (!strcmp(which, "energy")) return case_energy(n ? n : 8);
  if (!strcmp(which, "cantilever")) return case_cantilever(n ? n : 10);
  if (!strcmp(which, "agree")) return case_agree(n ? n : 10);
  if (!strcmp(which, "resume")) return resume_case(resume_model, "circular plate");
  if (!strcmp(which, "parts")) return case_parts(n ? n : 200);
  fprintf(stderr, "usage: test_explicit plate|wave|energy|cantilever|agree|resume|parts [--backend "
                  "B] [--n N]\n");
  return 2;
}
