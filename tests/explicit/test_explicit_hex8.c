/* Validation of explicit dynamics of hex8 solids (solver/explicit/, element/hex8_explicit.h),
 * each case against its reference with its tolerance, for both formulations (one point with
 * hourglass control, "reduced"; 2x2x2 points, "full") unless said:
 *   element    the element alone: forces against central differences of the strain energy
 *              (1e-6), objectivity (a rotated deformed element: same energy to 1e-12, forces
 *              rotated to 1e-10), a block turned rigidly by 90 degrees (no force, 1e-12 of E h^2),
 *              the polar decomposition at a large stretch (R orthogonal, R^T F symmetric, 1e-12),
 *              the lumped mass (rho V / 8 per node of a parallelepiped, 1e-14), and the stable
 *              step: omega_max of the lone element (power iteration on M^-1 K) times the
 *              estimate L / c at most 2 for a cube, a 3:1:1 box and a distorted element at nu
 *              0, 0.3, 0.45.
 *   input      how a job (a section's "formulation": auto is one point, "full" 2x2x2; the
 *              step's "hourglass") and a deck (C3D8R one point, C3D8 2x2x2 in explicit steps,
 *              both 2x2x2 in static ones) ask for hex8, and the refusals (bbar, two formulations,
 *              C3D8 with C3D8R in a section, other solids in explicit steps), by message.
 *   wave       a bar of 100 cubes, nu = 0, driven at one end by a velocity step: arrival at the
 *              free end at L / c (5 %), the free end at twice the driving velocity (3 %), the mid
 *              point at L / c (3 %), c = sqrt(E / rho).
 *   energy     an undamped block clamped at its base set swaying by an initial velocity, 1000
 *              steps: the balance kinetic + internal - external - initial kinetic to 1e-12 of the
 *              largest term, internal work against the strain energy (hourglass energy included)
 *              to 1e-6 of the total at small amplitude (strain ~1e-6), 1e-5 at 500 times it (the
 *              scheme's O(dt^2) error on the nonlinear element).
 *   patch      a 3x3x3 block with distorted interior nodes, the boundary nodes driven by the
 *              velocity field v = A X (A symmetric: a uniform strain rate), the interior ones set
 *              moving with it: after 200 steps the interior follows u = A X t to 1e-10 of |u|
 *              and the strain energy is V psi(A t) to 1e-10, the hourglass energy 0 (1e-12 of it).
 *   spin       a free elastic block spinning at omega (omega L / c = 2e-3) through 120
 *              degrees: the strain energy stays below 1e-4 of the kinetic energy at every frame (a small-strain
 *              element would reach ~1e5 times it), the corners on the rigid rotation to 1e-3 L.
 *   j2bar      a J2 bar (sigma_y 250, linear hardening H 2000, nu 0.3) pulled quasi-statically to
 *              1 % strain by a prescribed velocity, only the axial DOFs at its ends held: every
 *              element's stress against the 1D law sigma = sigma_y + H p (0.5 %), its plastic
 *              strain against eps - sigma / E (1 % of it), the end force against the mid
 *              element's stress times the area (2 %).
 *   hourglass  a coarse one-point cantilever (10 x 1 x 2 elements) under a tip load, damped to
 *              rest: stable, hourglass energy below 10 % of the strain energy (at rest and at
 *              every frame, and with 4 elements through the depth); the deflection is reported
 *              against Timoshenko's beam and the full formulation.
 *   pressure   a column on symmetry planes under a follower pressure on its top face (ramped
 *              over 30 % of the time), damped to rest: the top at -p H / E and the side at nu p W / E (0.1 %: the follower
 *              load on the widened face adds 3e-4), the energy balance to 1e-12.
 *   resume     a hex8 run killed after a checkpoint and resumed gives the uninterrupted run bit
 *              for bit (reduced: the hourglass energy column too).
 *   agree      cpu against cuda over 1000 steps of the plastic cantilever, both formulations:
 *              displacements within 1e-10 of the largest (label gpu).
 * Usage: test_explicit_hex8 CASE [--backend cpu|cuda] [--n N]. */
#include "io/import.h"
#include "io/job_json.h"
#include "model/mesh_box.h"
#include "xp_test.h"

static const int forms[2] = {DT_FORM_REDUCED, DT_FORM_FULL};
static const char *form_name(int form) { return form == DT_FORM_REDUCED ? "reduced" : "full"; }

/* A box of nx x ny x nz hex8 on [0,lx]x[0,ly]x[0,lz], one material (E, nu, rho), a solid
 * section of formulation form on element set "all", one explicit step of time T; the box's
 * node sets xmin..zmax and "all" (mesh_box.h). Callers add boundary conditions and loads with
 * shell_models.h's helpers (they take any model) and finish with shell_model_finish. */
static dt_model *hex8_model(int nx, int ny, int nz, double lx, double ly, double lz, double E,
                            double nu, double rho, int form, double T) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  XCHECK(dt_model_create(&m, &ctx) == DT_OK, "%s", ctx.msg);
  XCHECK(dt_mesh_box_hex8(m, nx, ny, nz, lx, ly, lz, &ctx) == DT_OK, "%s", ctx.msg);
  xp_model_dressing(m, E, nu, rho, DT_SECTION_SOLID, 1.0, T);
  m->sections[0].form = form;
  return m;
}

static int nset(const dt_model *m, const char *name) {
  int s = dt_model_find_nset(m, name);
  XCHECK(s >= 0, "node set %s", name);
  return s;
}

/* A node set of one node named prefix + its id, returned by index. */
static int node_set_of(dt_model *m, const char *prefix, int node) {
  dt_set *s;
  m->nsets = realloc(m->nsets, sizeof(dt_set) * (size_t)(m->n_nsets + 1));
  s = &m->nsets[m->n_nsets];
  memset(s, 0, sizeof *s);
  snprintf(s->name, DT_NAME_MAX, "%s%d", prefix, node + 1);
  s->items = malloc(sizeof(int));
  s->items[0] = node;
  s->n = 1;
  return m->n_nsets++;
}

static void initial_velocity(dt_model *m, int ns, const double v[3]) {
  m->initial_velocities = realloc(m->initial_velocities, sizeof(dt_initial_velocity) *
                                                             (size_t)(m->n_initial_velocities + 1));
  m->initial_velocities[m->n_initial_velocities].nset = ns;
  memcpy(m->initial_velocities[m->n_initial_velocities].v, v, 3 * sizeof(double));
  m->n_initial_velocities++;
}

static void elastic_params(dt_material_params *p, double E, double nu) {
  memset(p, 0, sizeof *p);
  p->E = E;
  p->nu = nu;
}

/* Element energy and forces of one formulation (elastic). */
static double elem_energy(int form, const double X0[24], const double u[24],
                          const dt_material_params *mat, double f[24], double *e_hg) {
  dt_mat_state st[8];
  double W = 0, hg = 0;
  int np = 0;
  double fl[24];
  XCHECK(dt_hex8x_forces(form == DT_FORM_REDUCED ? DT_HEX8X_REDUCED : DT_HEX8X_FULL, X0, u, mat,
                         NULL, st, DT_HEX8X_HOURGLASS, f ? f : fl, &W, &hg, &np) == DT_HEX8X_OK,
         "element forces");
  if (e_hg) *e_hg = hg;
  return W;
}

static void rotation(const double axis[3], double angle, double Q[9]) {
  const double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  const double x = axis[0] / n, y = axis[1] / n, z = axis[2] / n, c = cos(angle), s = sin(angle);
  const double C = 1 - c;
  Q[0] = c + x * x * C, Q[1] = x * y * C - z * s, Q[2] = x * z * C + y * s;
  Q[3] = y * x * C + z * s, Q[4] = c + y * y * C, Q[5] = y * z * C - x * s;
  Q[6] = z * x * C - y * s, Q[7] = z * y * C + x * s, Q[8] = c + z * z * C;
}

static void rotate(const double Q[9], const double *a, double *b, int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      b[3 * i + k] =
          Q[3 * k] * a[3 * i] + Q[3 * k + 1] * a[3 * i + 1] + Q[3 * k + 2] * a[3 * i + 2];
}

/* A distorted element: the unit cube's nodes moved by up to 0.15. */
static void distorted(double X[24]) {
  const double d[24] = {0.05,  -0.1, 0.02,  0.1,   0.03, -0.05, -0.08, 0.12,
                        0.0,   0.02, -0.04, 0.1,   0.0,  0.07,  -0.1,  0.15,
                        -0.06, 0.04, 0.03,  -0.02, 0.12, -0.1,  0.05,  -0.07};
  for (int a = 0; a < 8; a++)
    for (int k = 0; k < 3; k++) X[3 * a + k] = (dt_hex8x_sign(a, k) + 1) * 0.5 + d[3 * a + k];
}

static void box_element(double X[24], double lx, double ly, double lz) {
  const double l[3] = {lx, ly, lz};
  for (int a = 0; a < 8; a++)
    for (int k = 0; k < 3; k++) X[3 * a + k] = (dt_hex8x_sign(a, k) + 1) * 0.5 * l[k];
}

/* Forces against central differences of the energy, and objectivity, for one formulation. */
static void element_gradient(int form) {
  dt_material_params mat;
  double X[24], u[24], f[24], fr[24], x[24], Q[9], xr[24], ur[24], W, Wr, err = 0, fbig = 0;
  const double axis[3] = {1, 2, 3}, h = 1e-6;
  elastic_params(&mat, 1000.0, 0.3);
  distorted(X);
  rotation(axis, 0.5, Q); /* a deformed state: 0.5 rad turn, strains ~1e-2, an hourglass part */
  for (int a = 0; a < 8; a++) {
    double y[3];
    for (int k = 0; k < 3; k++)
      y[k] = X[3 * a + k] * (1 + 0.01 * (k + 1)) + 0.02 * dt_hex8x_sign(a, 0) * dt_hex8x_sign(a, 1);
    rotate(Q, y, &x[3 * a], 1);
    for (int k = 0; k < 3; k++) u[3 * a + k] = x[3 * a + k] - X[3 * a + k];
  }
  W = elem_energy(form, X, u, &mat, f, NULL);
  for (int i = 0; i < 24; i++) {
    double up[24], um[24], d;
    memcpy(up, u, sizeof up);
    memcpy(um, u, sizeof um);
    up[i] += h, um[i] -= h;
    d = (elem_energy(form, X, up, &mat, NULL, NULL) - elem_energy(form, X, um, &mat, NULL, NULL)) /
        (2 * h);
    err = fmax(err, fabs(d - f[i]));
    fbig = fmax(fbig, fabs(f[i]));
  }
  printf("element %s: forces against central differences of the energy: %.2e of the largest "
         "(tolerance 1e-6)\n",
         form_name(form), err / fbig);
  XCHECK(err < 1e-6 * fbig, "gradient %g of %g", err, fbig);
  /* objectivity: the deformed element turned by another rotation */
  rotation((const double[]){-2, 1, 0.5}, 1.3, Q);
  rotate(Q, x, xr, 8);
  for (int i = 0; i < 24; i++) ur[i] = xr[i] - X[i];
  Wr = elem_energy(form, X, ur, &mat, fr, NULL);
  rotate(Q, f, x, 8); /* x: the rotated forces */
  err = 0;
  for (int i = 0; i < 24; i++) err = fmax(err, fabs(x[i] - fr[i]));
  printf("element %s: turned by 1.3 rad: energy %.3e of it changed, forces %.2e of the largest "
         "(tolerances 1e-12, 1e-10)\n",
         form_name(form), fabs(Wr - W) / W, err / fbig);
  XCHECK(fabs(Wr - W) < 1e-12 * W && err < 1e-10 * fbig, "objectivity %g %g", Wr - W, err);
}

/* An undeformed element turned rigidly by 90 degrees: no stress, no force. */
static void element_rigid(int form) {
  dt_material_params mat;
  double X[24], x[24], u[24], f[24], Q[9], W, hg, fm = 0;
  const double E = 200000.0;
  elastic_params(&mat, E, 0.3);
  distorted(X);
  rotation((const double[]){0.3, -1, 0.7}, M_PI / 2, Q);
  rotate(Q, X, x, 8);
  for (int i = 0; i < 24; i++) u[i] = x[i] - X[i] + 5.0; /* and moved */
  W = elem_energy(form, X, u, &mat, f, &hg);
  for (int i = 0; i < 24; i++) fm = fmax(fm, fabs(f[i]));
  printf("element %s: turned rigidly by 90 degrees: largest force %.2e E h^2, energy %.2e E V, "
         "hourglass energy %.2e E V (tolerance 1e-12)\n",
         form_name(form), fm / E, W / E, hg / E);
  XCHECK(fm < 1e-12 * E && fabs(W) < 1e-24 * E && fabs(hg) < 1e-24 * E, "rigid rotation");
}

/* The largest omega^2 of the lone element (lumped mass, elastic), by power iteration on
 * M^-1 K with K from central differences of the forces (a linear map at u = 0). */
static double omega2_max(int form, const double X[24], const dt_material_params *mat, double rho) {
  double K[24][24], m[8], v[24], w[24], lam = 0;
  const double h = 1e-7;
  dt_hex8x_lumped_mass(X, rho, m);
  for (int j = 0; j < 24; j++) {
    double up[24] = {0}, um[24] = {0}, fp[24], fm[24];
    up[j] = h, um[j] = -h;
    elem_energy(form, X, up, mat, fp, NULL);
    elem_energy(form, X, um, mat, fm, NULL);
    for (int i = 0; i < 24; i++) K[i][j] = (fp[i] - fm[i]) / (2 * h);
  }
  for (int i = 0; i < 24; i++) v[i] = 1.0 + 0.1 * i * ((i % 3) - 1);
  for (int it = 0; it < 3000; it++) {
    double n = 0;
    for (int i = 0; i < 24; i++) {
      w[i] = 0;
      for (int j = 0; j < 24; j++) w[i] += K[i][j] * v[j];
      w[i] /= m[i / 3];
      n += w[i] * w[i];
    }
    n = sqrt(n);
    lam = n;
    for (int i = 0; i < 24; i++) v[i] = w[i] / n;
  }
  return lam;
}

static void element_stable_step(void) {
  const double nus[3] = {0.0, 0.3, 0.45}, rho = 7.85e-9, E = 200000.0;
  double worst = 0;
  for (int shape = 0; shape < 3; shape++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 2; j++) {
        const int form = forms[j];
        dt_material_params mat;
        double X[24], w, dt, r;
        elastic_params(&mat, E, nus[i]);
        if (shape == 0) box_element(X, 1, 1, 1);
        if (shape == 1) box_element(X, 3, 1, 1);
        if (shape == 2) distorted(X);
        w = sqrt(omega2_max(form, X, &mat, rho));
        dt = dt_hex8x_length(X) / dt_hex8x_wave_speed(&mat, rho);
        r = w * dt / 2;
        if (getenv("XP_VERBOSE"))
          printf("  shape %d nu %.2f %s: omega_max dt / 2 = %.4f\n", shape, nus[i], form_name(form),
                 r);
        worst = fmax(worst, r);
        XCHECK(r <= 1.0 + 1e-9, "shape %d nu %g %s: omega dt / 2 = %g", shape, nus[i],
               form_name(form), r);
      }
  printf("element: the stable step estimate L / c times omega_max / 2 of the lone element: at most "
         "%.4f over 3 shapes, nu 0 .. 0.45, both formulations (stable at <= 1)\n",
         worst);
}

static void element_polar_mass(void) {
  double F[9] = {1.8, 0.4, -0.3, -0.6, 0.7, 0.5, 0.2, -0.9, 1.4}, R[9], U[9], C[9], X[24], m[8];
  double err = 0, V = 2 * 3 * 0.5, sum = 0;
  XCHECK(dt_hex8x_polar(F, R) == 0, "polar");
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double rr = 0, u = 0;
      for (int k = 0; k < 3; k++)
        rr += R[3 * k + i] * R[3 * k + j], u += R[3 * k + i] * F[3 * k + j];
      U[3 * i + j] = u;
      err = fmax(err, fabs(rr - (i == j)));
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) err = fmax(err, fabs(U[3 * i + j] - U[3 * j + i]));
  printf("polar decomposition of a stretch of 2.3 with a turn: |R^T R - I|, |U - U^T| %.2e "
         "(tolerance 1e-12), det R %.15f\n",
         err, dt_cofactor3(R, C));
  XCHECK(err < 1e-12 && fabs(dt_cofactor3(R, C) - 1) < 1e-12, "polar");
  box_element(X, 2, 3, 0.5);
  dt_hex8x_lumped_mass(X, 7.0, m);
  for (int a = 0; a < 8; a++) {
    sum += m[a];
    XCHECK(fabs(m[a] - 7.0 * V / 8) < 1e-14 * 7.0 * V, "mass %d: %g", a, m[a]);
  }
  XCHECK(fabs(sum - 7.0 * V) < 1e-14 * 7.0 * V, "mass %g", sum);
}

static int case_element(void) {
  for (int i = 0; i < 2; i++) {
    const int form = forms[i];
    element_gradient(form);
    element_rigid(form);
  }
  element_polar_mass();
  element_stable_step();
  return 0;
}

static int case_wave(int n, int form) {
  const double L = 100, b = 1, E = 200000, rho = 7.85e-9, v0 = 1.0, c = sqrt(E / rho);
  dt_model *m = hex8_model(n, 1, 1, L, b, b, E, 0.0, rho, form, 2.0 * L / c);
  double vx[3] = {v0, 0, 0};
  char what[64];
  shell_model_bc(m, nset(m, "xmin"), DT_DOF_X, vx, 1);
  m->steps[0].explicit_.output_every = 1;
  shell_model_finish(m);
  snprintf(what, sizeof what, "%d hex8, %s", n, form_name(form));
  wave_run(m, L, c, v0, what);
  dt_model_destroy(&m);
  return 0;
}

static int above_base(const double *x, const void *u) { return x[2] > *(const double *)u - 1e-9; }

/* One undamped run of the energy case at top-layer velocity v0; returns the largest
 * |internal work - strain energy| / total energy. */
static double energy_run(int n, int form, double v0, double *strain) {
  const double a = 1, E = 200000, rho = 7.85e-9;
  dt_model *m = hex8_model(n, n, n, a, a, a, E, 0.3, rho, form, 1.0);
  dt_run_summary r;
  double v[3] = {v0, 0.3 * v0, 0}, top = a;
  shell_model_bc(m, nset(m, "zmin"), DT_DOF_X | DT_DOF_Y | DT_DOF_Z, NULL, 0);
  initial_velocity(m, shell_model_nset(m, "top", above_base, &top), v);
  m->steps[0].explicit_.output_every = 10;
  shell_model_finish(m);
  m->steps[0].explicit_.dt = stable_step(m);
  m->steps[0].explicit_.time_period = 1000 * m->steps[0].explicit_.dt;
  P.node[0] = P.node[1] = nearest(m, a, a, a);
  P.comp = 0;
  worst_potential = 0;
  r = run(m, backend);
  *strain = 0;
  for (int i = 0; i < P.n; i++) *strain = fmax(*strain, fabs(P.w[0][i]) / a);
  printf("energy %s, %d hex8, %s, v0 %g: %ld steps, top displacement up to %.2e of the height; "
         "balance %.3e of the largest term; internal work - strain energy %.3e of the total; "
         "hourglass energy at the end %.2e of the strain energy\n",
         form_name(form), m->n_elems, backend, v0, r.time_steps, *strain, r.energy_balance,
         worst_potential, last_energy.strain > 0 ? last_energy.hourglass / last_energy.strain : 0);
  XCHECK(r.time_steps == 1000, "%ld steps", r.time_steps);
  XCHECK(r.energy_balance < 1e-12, "energy balance %g", r.energy_balance);
  dt_model_destroy(&m);
  return worst_potential;
}

static int case_energy(int n) {
  for (int i = 0; i < 2; i++) {
    const int form = forms[i];
    double s, d = energy_run(n, form, 10.0, &s);
    XCHECK(d > 0 && d < 1e-6, "%s, small amplitude: %g (displacement %g)", form_name(form), d, s);
    d = energy_run(n, form, 5000.0, &s);
    XCHECK(d > 0 && d < 1e-5, "%s, larger amplitude: %g (displacement %g)", form_name(form), d, s);
  }
  return 0;
}

static int on_boundary(const double *x, const void *u) {
  const double a = *(const double *)u;
  for (int k = 0; k < 3; k++)
    if (fabs(x[k]) < 1e-9 || fabs(x[k] - a) < 1e-9) return 1;
  return 0;
}
static int inside(const double *x, const void *u) { return !on_boundary(x, u); }

static int case_patch(int form) {
  const double a = 1, E = 200000, nu = 0.3, rho = 7.85e-9, s = 10.0;
  const double A[9] = {1.0 * s, 0.2 * s, 0.1 * s, 0.2 * s, -0.5 * s,
                       0.3 * s, 0.1 * s, 0.3 * s, 0.7 * s}; /* velocity gradient, symmetric */
  dt_model *m = hex8_model(3, 3, 3, a, a, a, E, nu, rho, form, 1.0);
  dt_material_params mat;
  double t, umax = 0, err = 0, eps[6], sig[6], psi = 0, U;
  int n_bnd = 0;
  for (int i = 0; i < m->n_nodes; i++) /* distort the interior nodes */
    if (inside(&m->x[3 * i], &a))
      for (int k = 0; k < 3; k++) m->x[3 * i + k] += 0.07 * sin(3.1 * i + 1.7 * k + 0.3);
  for (int i = 0; i < m->n_nodes; i++) {
    double v[3];
    for (int k = 0; k < 3; k++)
      v[k] =
          A[3 * k] * m->x[3 * i] + A[3 * k + 1] * m->x[3 * i + 1] + A[3 * k + 2] * m->x[3 * i + 2];
    if (on_boundary(&m->x[3 * i], &a)) {
      shell_model_bc(m, node_set_of(m, "b", i), DT_DOF_X | DT_DOF_Y | DT_DOF_Z, v, 1);
      n_bnd++;
    }
    initial_velocity(m, node_set_of(m, "v", i), v);
  }
  m->steps[0].explicit_.output_frames = 4;
  shell_model_finish(m);
  m->steps[0].explicit_.dt = stable_step(m);
  m->steps[0].explicit_.time_period = t = 200 * m->steps[0].explicit_.dt;
  run(m, backend);
  for (int i = 0; i < m->n_nodes; i++)
    for (int k = 0; k < 3; k++) {
      const double ue = t * (A[3 * k] * m->x[3 * i] + A[3 * k + 1] * m->x[3 * i + 1] +
                             A[3 * k + 2] * m->x[3 * i + 2]);
      umax = fmax(umax, fabs(ue));
      err = fmax(err, fabs(P.last_u[3 * i + k] - ue));
    }
  /* the exact strain energy: eps = A t (F = I + A t is symmetric: R = I, U = F) */
  elastic_params(&mat, E, nu);
  eps[0] = A[0] * t, eps[1] = A[4] * t, eps[2] = A[8] * t;
  eps[3] = 2 * A[1] * t, eps[4] = 2 * A[2] * t, eps[5] = 2 * A[5] * t;
  dt_elastic_stress(&mat, DT_STATE_3D, eps, sig);
  for (int k = 0; k < 6; k++) psi += 0.5 * sig[k] * eps[k];
  U = psi * a * a * a;
  printf("patch %s, 27 hex8 with distorted interior nodes, %d driven: after 200 steps the interior "
         "on u = A X t to %.2e of |u| (tolerance 1e-10); strain energy %.12e against V psi(A t) "
         "%.12e (%.1e; tolerance 1e-10), hourglass energy %.1e of it\n",
         form_name(form), n_bnd, err / umax, last_energy.strain, U,
         fabs(last_energy.strain / U - 1), last_energy.hourglass / U);
  XCHECK(err < 1e-10 * umax, "patch: %g of %g", err, umax);
  XCHECK(fabs(last_energy.strain / U - 1) < 1e-10, "strain energy %g against %g",
         last_energy.strain, U);
  XCHECK(fabs(last_energy.hourglass) < 1e-12 * U, "hourglass energy %g", last_energy.hourglass);
  dt_model_destroy(&m);
  return 0;
}

static int case_spin(int form) {
  const double a = 1, E = 200000, nu = 0.3, rho = 7.85e-9, w = 1e4, angle = 2 * M_PI / 3;
  const double c = 0.5 * a; /* the centre, the axis along z */
  dt_model *m = hex8_model(2, 2, 2, a, a, a, E, nu, rho, form, angle / w);
  double err = 0;
  for (int i = 0; i < m->n_nodes; i++) {
    const double v[3] = {-w * (m->x[3 * i + 1] - c), w * (m->x[3 * i] - c), 0};
    initial_velocity(m, node_set_of(m, "v", i), v);
  }
  m->steps[0].explicit_.output_frames = 24;
  shell_model_finish(m);
  P.node[0] = P.node[1] = 0;
  P.comp = 0;
  worst_strain_ke = 0;
  run(m, backend);
  for (int i = 0; i < m->n_nodes; i++) { /* on the rigid rotation by the angle */
    const double x = m->x[3 * i] - c, y = m->x[3 * i + 1] - c;
    const double xe = cos(angle) * x - sin(angle) * y, ye = sin(angle) * x + cos(angle) * y;
    err = fmax(err, hypot(x + P.last_u[3 * i] - xe, y + P.last_u[3 * i + 1] - ye));
    err = fmax(err, fabs(P.last_u[3 * i + 2]));
  }
  printf("spin %s: a free block turned by %.0f degrees at omega L / c = %.2e: strain energy %.2e "
         "of the kinetic energy (tolerance 1e-4), hourglass energy %.1e of it, nodes %.2e L from "
         "the rigid rotation (tolerance 1e-3)\n",
         form_name(form), angle * 180 / M_PI, w * a / sqrt(E / rho), worst_strain_ke,
         last_energy.hourglass / last_energy.kinetic, err / a);
  XCHECK(worst_strain_ke < 1e-4, "strain energy %g of the kinetic", worst_strain_ke);
  XCHECK(err < 1e-3 * a, "off the rotation by %g", err);
  dt_model_destroy(&m);
  return 0;
}

/* The hex8 problem stepped directly (the driver's time steps without its frames), to read the
 * element forces and the history the driver does not report. */
typedef struct direct {
  dt_xp_problem xp;
  dt_xp_step st;
  const dt_xp_ops *o;
  void *impl;
  double h_before;
} direct;

static void direct_open(direct *d, const dt_model *m) {
  dt_ctx ctx = {0};
  memset(d, 0, sizeof *d);
  d->o = &dt_xp_cpu_ops;
  XCHECK(dt_xp_problem_build(m, &d->xp, &ctx) == DT_OK, "%s", ctx.msg);
  XCHECK(dt_xp_step_build(m, &d->xp, 0, &d->st, &ctx) == DT_OK, "%s", ctx.msg);
  XCHECK(d->o->create(&d->xp, NULL, 0, 0, &d->impl, &ctx) == DT_OK, "%s", ctx.msg);
  XCHECK(d->o->set_step(d->impl, &d->st, &ctx) == DT_OK, "%s", ctx.msg);
}

/* Time steps n0 .. n1 - 1 of length dt of the model's first step (n0 = 0 starts with the
 * evaluation at rest). */
static void direct_steps(direct *d, const dt_model *m, long n0, long n1, double dt) {
  const dt_explicit_options *x = &m->steps[0].explicit_;
  dt_ctx ctx = {0};
  for (long n = n0 - (n0 == 0); n < n1; n++) {
    const double t = n < 0 ? 0 : n * dt, h = n < 0 ? 0 : dt;
    dt_xp_time T;
    memset(&T, 0, sizeof T);
    T.dt = h;
    T.h_before = d->h_before;
    T.alpha = x->damping;
    T.amp_n = dt_xp_amplitude(&x->amplitude, x->time_period, t);
    T.amp_n1 = dt_xp_amplitude(&x->amplitude, x->time_period, t + h);
    T.amp_mid = dt_xp_amplitude(&x->amplitude, x->time_period, t + 0.5 * h);
    T.rate_mid = dt_xp_amplitude_rate(&x->amplitude, x->time_period, t + 0.5 * h);
    XCHECK(d->o->step(d->impl, &T, &ctx) == DT_OK, "%s", ctx.msg);
    if (n >= 0) d->h_before = 0.5 * dt;
  }
}

static void direct_close(direct *d) {
  d->o->destroy(d->impl);
  dt_xp_step_free(&d->st);
  dt_xp_problem_free(&d->xp);
}

static int case_j2bar(int n, int form) {
  const double L = 10, b = 1, E = 200000, nu = 0.3, rho = 7.85e-9, sy = 250, H = 2000;
  const double c = sqrt(E / rho), T = 400 * L / c, eps_end = 0.01;
  dt_model *m = hex8_model(n, 1, 1, L, b, b, E, nu, rho, form, T);
  const int ne = n;
  double v[3] = {0, 0, 0}, worst_s = 0, worst_p = 0, end_err = 0, dt;
  double *u = NULL, *f = NULL, *hist = NULL;
  direct d;
  long N, done = 0;
  size_t nc;
  dt_xp_state want;
  int failed = 0, np;
  dt_ctx ctx = {0};
  m->materials[0].p.plastic = DT_PLASTIC_J2;
  m->materials[0].p.iso = DT_ISO_LINEAR;
  m->materials[0].p.sigma_y0 = sy;
  m->materials[0].p.H = H;
  /* the end x = L at v = eps_end L / (0.95 T): a ramp over the first 10 % of the time */
  v[0] = eps_end * L / (0.95 * T);
  shell_model_bc(m, nset(m, "xmin"), DT_DOF_X, NULL, 0);
  shell_model_bc(m, nset(m, "xmax"), DT_DOF_X, v, 1);
  m->steps[0].explicit_.amplitude.kind = DT_AMP_TABLE;
  m->steps[0].explicit_.amplitude.n = 2;
  m->steps[0].explicit_.amplitude.t[1] = 0.1 * T;
  m->steps[0].explicit_.amplitude.a[0] = 0;
  m->steps[0].explicit_.amplitude.a[1] = 1;
  m->steps[0].explicit_.damping = 0.5 * M_PI * c / (2 * L); /* half the first mode's omega */
  shell_model_finish(m);
  dt = stable_step(m);
  N = (long)ceil(T / dt);
  dt = T / N;
  direct_open(&d, m);
  nc = dt_xp_copies(&d.xp);
  np = d.xp.n_points;
  u = calloc(3 * nc, sizeof *u);
  f = calloc(3 * nc, sizeof *f);
  hist = calloc(dt_xp_hist_doubles(&d.xp), sizeof *hist);
  memset(&want, 0, sizeof want);
  want.u = u, want.f = f, want.hist = hist;
  printf("j2bar %s, %d hex8, %ld steps, eps to %.3g (yield at %.3g):\n", form_name(form), ne, N,
         eps_end, sy / E);
  for (int stage = 1; stage <= 5; stage++) {
    const long upto = N * stage / 5;
    double s_mid = 0, f_end = 0;
    direct_steps(&d, m, done, upto, dt);
    done = upto;
    XCHECK(d.o->get(d.impl, &want, &failed, &ctx) == DT_OK && !failed, "get: %s", ctx.msg);
    for (int e = 0; e < ne; e++) {
      double s = 0, eps = 0, p = 0, ref, pref;
      for (int a = 0; a < 8; a++) {
        const size_t cc = (size_t)a * ne + e;
        const double sx = dt_hex8x_sign(a, 0);
        s += sx * f[cc] / (2 * b * b);          /* each face carries sigma A */
        eps += sx * u[cc] / (4 * (L / ne));     /* mean u_x of the faces */
        if (d.xp.X0[cc] < 1e-9) f_end -= f[cc]; /* the end x = 0: the reaction */
      }
      for (int q = 0; q < np; q++) p += hist[(size_t)(DT_HIST_PEEQ * np + q) * ne + e] / np;
      if (e == ne / 2) s_mid = s;
      if (p <= 0) { /* elastic: sigma = E eps */
        worst_s = fmax(worst_s, fabs(s - E * eps) / sy);
        continue;
      }
      ref = sy + H * p;
      pref = eps - s / E;
      if (getenv("XP_VERBOSE"))
        printf("    element %d: eps %.6f sigma %.3f p %.6f (points %.6f .. %.6f)\n", e, eps, s, p,
               hist[(size_t)(DT_HIST_PEEQ * np) * ne + e],
               hist[(size_t)(DT_HIST_PEEQ * np + np - 1) * ne + e]);
      worst_s = fmax(worst_s, fabs(s - ref) / ref);
      worst_p = fmax(worst_p, fabs(p - pref) / pref);
      if (e == ne / 2)
        printf("  t %.3g T: mid element eps %.5f, sigma %.3f, p %.6f: 1D law sigma_y + H p = "
               "%.3f, eps - sigma / E = %.6f\n",
               (double)stage / 5, eps, s, p, ref, pref);
    }
    end_err = fmax(end_err, fabs(f_end - s_mid * b * b) / (sy * b * b));
  }
  printf("  every element: stress against sigma_y + H p within %.3f%% (tolerance 0.5%%), plastic "
         "strain against eps - sigma / E within %.3f%% (1%%); the end force against the mid "
         "stress times the area within %.3f%% of sigma_y A (2%%)\n",
         100 * worst_s, 100 * worst_p, 100 * end_err);
  XCHECK(worst_s < 0.005 && worst_p < 0.01 && end_err < 0.02, "j2bar %g %g %g", worst_s, worst_p,
         end_err);
  free(u);
  free(f);
  free(hist);
  direct_close(&d);
  dt_model_destroy(&m);
  return 0;
}

/* The cantilever L x b x h (x along the length), clamped at x = 0, a tip force P along z shared
 * by the tip nodes; nx x 1 x nz elements; J2 when plastic (for the agreement case). */
static dt_model *cantilever(int nx, int nz, int form, int plastic, double T_omega, double damp) {
  const double L = 10, b = 1, h = 1, E = 200000, nu = 0.3, rho = 7.85e-9, P_tip = 1;
  const double I = b * h * h * h / 12, w1 = 1.8751 * 1.8751 * sqrt(E * I / (rho * b * h)) / (L * L);
  dt_model *m = hex8_model(nx, 1, nz, L, b, h, E, nu, rho, form, T_omega / w1);
  double fz[3] = {0, 0, 0};
  int tip = nset(m, "xmax");
  shell_model_bc(m, nset(m, "xmin"), DT_DOF_X | DT_DOF_Y | DT_DOF_Z, NULL, 0);
  fz[2] = P_tip / m->nsets[tip].n;
  shell_model_force(m, tip, fz);
  m->steps[0].explicit_.damping = damp * w1;
  m->steps[0].explicit_.output_frames = 40;
  if (plastic) {
    m->materials[0].p.plastic = DT_PLASTIC_J2;
    m->materials[0].p.iso = DT_ISO_LINEAR;
    m->materials[0].p.sigma_y0 = 300;
    m->materials[0].p.H = 1000;
    m->steps[0].cload[0].f[2] *= 8; /* past yield at the root */
  }
  shell_model_finish(m);
  return m;
}

/* The tip deflection of the cantilever with nz elements through the depth, damped to rest; its
 * hourglass energy over the strain energy at rest and the largest over the frames. */
static double cantilever_tip(int nz, int form, double *hg_ratio, double *hg_worst) {
  dt_model *m = cantilever(10, nz, form, 0, 14.0, 2.0);
  double w;
  P.node[0] = P.node[1] = nearest(m, 10, 0.5, 0.5);
  P.comp = 2;
  worst_hourglass = 0;
  run(m, backend);
  w = P.w[0][P.n - 1];
  XCHECK(isfinite(w) && fabs(P.w[0][P.n - 1] - P.w[0][P.n - 2]) < 1e-3 * fabs(w),
         "not at rest: %g then %g", P.w[0][P.n - 2], w);
  *hg_ratio = last_energy.hourglass / last_energy.strain;
  *hg_worst = worst_hourglass;
  dt_model_destroy(&m);
  return w;
}

static int case_hourglass(void) {
  const double L = 10, b = 1, h = 1, E = 200000, nu = 0.3, P_tip = 1;
  const double I = b * h * h * h / 12, G = E / (2 * (1 + nu));
  const double w_beam = P_tip * L * L * L / (3 * E * I) + P_tip * L / (5.0 / 6.0 * G * b * h);
  double r_red, r_worst, r4, r4_worst, r_full, r_full_worst, w_red, w4, w_full;
  w_red = cantilever_tip(2, DT_FORM_REDUCED, &r_red, &r_worst);
  w4 = cantilever_tip(4, DT_FORM_REDUCED, &r4, &r4_worst);
  w_full = cantilever_tip(2, DT_FORM_FULL, &r_full, &r_full_worst);
  printf("hourglass: cantilever 10 x 1 x 2 hex8 under a tip load, damped to rest: one point: tip "
         "%.5f (Timoshenko %.5f, %+.1f%%), hourglass energy %.2f%% of the strain energy at rest "
         "(tolerance 10%%), at most %.2f%% over the frames; 10 x 1 x 4: tip %+.1f%%, hourglass "
         "%.2f%%; 2x2x2 points, 10 x 1 x 2: tip %.5f (%+.1f%%, shear locking)\n",
         w_red, w_beam, 100 * (w_red / w_beam - 1), 100 * r_red, 100 * r_worst,
         100 * (w4 / w_beam - 1), 100 * r4, w_full, 100 * (w_full / w_beam - 1));
  XCHECK(r_red < 0.10 && r_worst < 0.10 && r4 < 0.10,
         "hourglass energy %g (%g) of the strain "
         "energy",
         r_red, r_worst);
  XCHECK(w_red > 0.5 * w_beam && w_red < 2 * w_beam, "one-point tip %g against %g", w_red, w_beam);
  return 0;
}

/* A block clamped at its base, its top pulled up and sideways by a prescribed velocity ramped
 * in over the first 30 % and held, undamped and damped: the supports do all the external work
 * (drive_work in explicit_kernel.h), so the balance closes to round-off only with it. */
static int case_drive(int form) {
  const double W = 1, Hb = 2, E = 200000, nu = 0.3, rho = 7.85e-9;
  const double c = sqrt(E / rho), w1 = M_PI * c / (2 * Hb), v[3] = {1e-3 * c, 0, 2e-3 * c};
  for (int damped = 0; damped < 2; damped++) {
    dt_model *m = hex8_model(2, 2, 4, W, W, Hb, E, nu, rho, form, 6.0 / w1);
    dt_step *st = &m->steps[0];
    dt_run_summary r;
    shell_model_bc(m, nset(m, "zmin"), DT_DOF_X | DT_DOF_Y | DT_DOF_Z, NULL, 0);
    shell_model_bc(m, nset(m, "zmax"), DT_DOF_X | DT_DOF_Z, v, 1);
    st->explicit_.damping = damped ? w1 : 0.0;
    st->explicit_.output_frames = 10;
    st->explicit_.amplitude.kind = DT_AMP_TABLE;
    st->explicit_.amplitude.n = 2;
    st->explicit_.amplitude.t[1] = 0.3 * st->explicit_.time_period;
    st->explicit_.amplitude.a[1] = 1;
    shell_model_finish(m);
    P.node[0] = P.node[1] = nearest(m, W, W, Hb);
    P.comp = 2;
    r = run(m, backend);
    printf(
        "drive %s, %s: top driven at (%g, 0, %g): external work %.6g (kinetic %.3g, strain %.3g, "
        "damping %.3g); balance %.1e of the largest term (tolerance 1e-12)\n",
        form_name(form), damped ? "damped" : "undamped", v[0], v[2], last_energy.external,
        last_energy.kinetic, last_energy.strain, last_energy.damping, r.energy_balance);
    XCHECK(last_energy.external > 0.5 * (last_energy.kinetic + last_energy.strain),
           "external work %g", last_energy.external);
    XCHECK(r.energy_balance < 1e-12, "energy balance %g", r.energy_balance);
    dt_model_destroy(&m);
  }
  return 0;
}

/* A column W x W x H on symmetry planes (x = 0, y = 0, z = 0 held normal to themselves) under
 * a pressure p on its top face, damped to rest: uniaxial compression. */
static int case_pressure(int form) {
  const double W = 1, Hc = 2, E = 200000, nu = 0.3, rho = 7.85e-9, p = 100;
  const double c = sqrt(E / rho), w1 = M_PI * c / (2 * Hc);
  dt_model *m = hex8_model(2, 2, 4, W, W, Hc, E, nu, rho, form, 14.0 / w1);
  dt_run_summary r;
  double uz, ux, uz_ref = -p * Hc / E, ux_ref = nu * p * W / E;
  dt_step *st = &m->steps[0];
  shell_model_bc(m, nset(m, "xmin"), DT_DOF_X, NULL, 0);
  shell_model_bc(m, nset(m, "ymin"), DT_DOF_Y, NULL, 0);
  shell_model_bc(m, nset(m, "zmin"), DT_DOF_Z, NULL, 0);
  st->pressure = calloc(1, sizeof(dt_pressure));
  st->pressure[0].surface = dt_model_find_surface(m, "zmax");
  st->pressure[0].p = p;
  st->n_pressure = 1;
  st->explicit_.damping = 2 * w1;
  st->explicit_.output_frames = 20;
  m->output.fields |= DT_OUT_S | DT_OUT_E;
  /* ramped over the first 30 % (XP_STEP_LOAD: in full from t = 0, which the balance takes
   * as well, docs/explicit.md) */
  st->explicit_.amplitude.kind = DT_AMP_TABLE;
  st->explicit_.amplitude.n = 2;
  st->explicit_.amplitude.t[1] = 0.3 * st->explicit_.time_period;
  st->explicit_.amplitude.a[1] = 1;
  if (getenv("XP_STEP_LOAD")) st->explicit_.amplitude.kind = DT_AMP_STEP;
  shell_model_finish(m);
  P.node[0] = nearest(m, W, W, Hc);
  P.node[1] = P.node[0];
  P.comp = 2;
  r = run(m, backend);
  uz = P.last_u[3 * P.node[0] + 2];
  ux = P.last_u[3 * P.node[0]];
  printf("pressure %s: column under a follower pressure %g on its top, damped to rest: top %.6e "
         "(-p H / E = %.6e, %.3f%%), side %.6e (nu p W / E = %.6e, %.3f%%; tolerance 0.1%%); "
         "energy balance %.1e\n",
         form_name(form), p, uz, uz_ref, 100 * fabs(uz / uz_ref - 1), ux, ux_ref,
         100 * fabs(ux / ux_ref - 1), r.energy_balance);
  XCHECK(fabs(uz / uz_ref - 1) < 1e-3 && fabs(ux / ux_ref - 1) < 1e-3, "compression %g %g", uz, ux);
  { /* the base's reactions carry the pressure's resultant on the (barely changed) top face */
    const double rz = reaction_sum(m, nset(m, "zmin"), 2);
    printf("pressure %s: base reaction %.6g against p W^2 = %.6g (%.4f%%, tolerance 0.1%%)\n",
           form_name(form), rz, p * W * W, 100 * fabs(rz / (p * W * W) - 1));
    XCHECK(fabs(rz / (p * W * W) - 1) < 1e-3, "base reaction %g", rz);
  }
  { /* every point in uniaxial compression: sigma_zz = -p, the others 0 */
    double worst = 0.0;
    XCHECK(P.n_qp == m->n_elems * (form == DT_FORM_REDUCED ? 1 : 8), "points: %d", P.n_qp);
    for (int i = 0; i < P.n_qp; i++)
      for (int k = 0; k < 6; k++)
        worst = fmax(worst, fabs(P.last_s[6 * i + k] - (k == 2 ? -p : 0.0)));
    printf("pressure %s: point stresses within %.3g of (0, 0, -p, 0, 0, 0) (tolerance 0.1%% of "
           "p)\n",
           form_name(form), worst);
    XCHECK(worst < 1e-3 * p, "point stresses %g off", worst);
    worst = 0.0; /* and strains: -p / E along z, nu p / E across */
    for (int i = 0; i < P.n_qp; i++)
      for (int k = 0; k < 6; k++)
        worst = fmax(worst, fabs(P.last_e[6 * i + k] - (k == 2 ? -p / E : k < 2 ? nu * p / E : 0)));
    printf("pressure %s: point strains within %.3g of (nu p / E, nu p / E, -p / E, 0, 0, 0) "
           "(tolerance 0.1%% of p / E)\n",
           form_name(form), worst);
    XCHECK(worst < 1e-3 * p / E, "point strains %g off", worst);
  }
  XCHECK(r.energy_balance < 1e-12, "energy balance %g", r.energy_balance);
  dt_model_destroy(&m);
  return 0;
}

/* A job of two hex8 in a bar, one explicit step; SEC is the sections' text, EXTRA more of the
 * explicit object. */
static const char *bar_job =
    "{\"ductile\": 1, \"mesh\": {\"nodes\": [[1, 0, 0, 0], [2, 1, 0, 0], [3, 1, 1, 0], [4, 0, 1, "
    "0],"
    " [5, 0, 0, 1], [6, 1, 0, 1], [7, 1, 1, 1], [8, 0, 1, 1], [9, 2, 0, 0], [10, 2, 1, 0],"
    " [11, 2, 0, 1], [12, 2, 1, 1]],"
    " \"elements\": [{\"type\": \"%s\", \"connectivity\": [[1, 1, 2, 3, 4, 5, 6, 7, 8]]},"
    " {\"type\": \"hex8\", \"connectivity\": [[2, 2, 9, 10, 3, 6, 11, 12, 7]]}],"
    " \"node_sets\": {\"left\": [1, 4, 5, 8]}, \"element_sets\": {\"a\": [1], \"b\": [2]}},"
    " \"materials\": [{\"name\": \"steel\", \"elastic\": {\"E\": 210000, \"nu\": 0.3}, \"density\":"
    " 7.85e-9}],"
    " \"sections\": [%s],"
    " \"steps\": [{\"procedure\": \"explicit\", \"explicit\": {\"time\": 1e-5%s},"
    " \"boundary\": [{\"node_set\": \"left\", \"fixed\": \"all\"}]}]}";

static dt_model *bar(const char *first_type, const char *sections, const char *extra, char *err) {
  char text[4096];
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  snprintf(text, sizeof text, bar_job, first_type, sections, extra);
  if (dt_parse_job_string(text, strlen(text), "bar.json", &m, &ctx) != DT_OK) {
    snprintf(err, 1024, "%s", ctx.msg);
    return NULL;
  }
  return m;
}

#define SEC(set, form)                                                                             \
  "{\"element_set\": \"" set "\", \"material\": \"steel\", \"kind\": \"solid\"" form "}"

/* A deck of one explicit (or static) step on 2 elements of types type1, type2 (C3D4: the
 * second a tet); returns the model or NULL with the message in err. */
static dt_model *bar_deck(const char *type1, const char *type2, int expl, char *err) {
  char path[] = "/tmp/xp_deck_XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  XCHECK(f, "temporary deck");
  fprintf(f,
          "*NODE\n1,0,0,0\n2,1,0,0\n3,1,1,0\n4,0,1,0\n5,0,0,1\n6,1,0,1\n7,1,1,1\n8,0,1,1\n"
          "9,2,0,0\n10,2,1,0\n11,2,0,1\n12,2,1,1\n*ELEMENT, TYPE=%s, ELSET=EALL\n"
          "1,1,2,3,4,5,6,7,8\n*ELEMENT, TYPE=%s, ELSET=EALL\n%s\n"
          "*NSET, NSET=LEFT\n1,4,5,8\n*MATERIAL, NAME=STEEL\n*ELASTIC\n210000, 0.3\n"
          "*DENSITY\n7.85e-9\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n\n*BOUNDARY\n"
          "LEFT, 1, 3\n*STEP\n%s\n*CLOAD\n9, 1, 1.\n*END STEP\n",
          type1, type2, strcmp(type2, "C3D4") ? "2,2,9,10,3,6,11,12,7" : "2,2,9,10,6",
          expl ? "*DYNAMIC, EXPLICIT\n, 1e-5" : "*STATIC");
  fclose(f);
  if (dt_inp_parse_file(path, NULL, &m, &ctx) != DT_OK) snprintf(err, 1024, "%s", ctx.msg);
  unlink(path);
  return m;
}

/* How a job and a deck ask for hex8 in explicit steps, and what they are refused. */
static int case_input(void) {
  char err[1024] = "";
  dt_model *m;
  m = bar("hex8", SEC("a", "") "," SEC("b", ""), "", err);
  XCHECK(m && m->sections[0].form == DT_FORM_REDUCED && m->steps[0].explicit_.hourglass == 0.05,
         "auto: %s", err);
  dt_model_destroy(&m);
  m = bar("hex8",
          SEC("a", ", \"formulation\": \"full\"") "," SEC("b", ", \"formulation\": \"full\""),
          ", \"hourglass\": 0.1", err);
  XCHECK(m && m->sections[1].form == DT_FORM_FULL && m->steps[0].explicit_.hourglass == 0.1,
         "full: %s", err);
  dt_model_destroy(&m);
  m = bar("hex8", SEC("a", ", \"formulation\": \"bbar\"") "," SEC("b", ""), "", err);
  XCHECK(!m && strstr(err, "the bbar formulation is for static steps"), "bbar: %s", err);
  m = bar("hex8", SEC("a", ", \"formulation\": \"full\"") "," SEC("b", ""), "", err);
  XCHECK(!m && strstr(err, "one formulation for all its hex8"), "mixed forms: %s", err);
  m = bar("hex8", SEC("a", "") "," SEC("b", ""), ", \"hourglass\": -1", err);
  XCHECK(!m && strstr(err, "hourglass"), "hourglass < 0: %s", err);
  printf("input, job: formulation auto -> reduced (hourglass 0.05), full, hourglass 0.1; refused: "
         "bbar, two formulations, a negative hourglass coefficient\n");
  m = bar_deck("C3D8R", "C3D8R", 1, err);
  XCHECK(m && m->sections[0].form == DT_FORM_REDUCED, "C3D8R explicit: %s", err);
  dt_model_destroy(&m);
  m = bar_deck("C3D8", "C3D8", 1, err);
  XCHECK(m && m->sections[0].form == DT_FORM_FULL, "C3D8 explicit: %s", err);
  dt_model_destroy(&m);
  m = bar_deck("C3D8R", "C3D8R", 0, err);
  XCHECK(m && m->sections[0].form == DT_FORM_FULL, "C3D8R static: %s", err);
  dt_model_destroy(&m);
  m = bar_deck("C3D8", "C3D8R", 1, err);
  XCHECK(!m && strstr(err, "mixes C3D8 and C3D8R"), "C3D8 + C3D8R explicit: %s", err);
  m = bar_deck("C3D8", "C3D4", 1, err);
  XCHECK(!m && strstr(err, "explicit steps take shells (S4, S4R) and hexahedra"), "C3D4: %s", err);
  printf("input, deck: C3D8R explicit -> reduced, C3D8 explicit -> full, C3D8R static -> full; "
         "refused: C3D8 with C3D8R in one explicit section, a C3D4 in an explicit deck\n");
  return 0;
}

static int resume_form;
static dt_model *resume_model(void) {
  dt_model *m = cantilever(6, 2, resume_form, 1, 3.0, 2.0);
  m->steps[0].explicit_.output_frames = 12;
  return m;
}

/* Each formulation in a child process of its own: resume_case forks before it touches a
 * device, and a CUDA context does not survive fork, so this process never makes one. */
static int case_resume(void) {
  for (int i = 0; i < 2; i++) {
    int status = 0;
    pid_t pid = fork();
    if (pid == 0) {
      char what[64];
      resume_form = forms[i];
      snprintf(what, sizeof what, "hex8 J2 cantilever (%s)", form_name(resume_form));
      status = resume_case(resume_model, what);
      fflush(stdout);
      _exit(status);
    }
    XCHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  return 0;
}

static int case_agree(void) {
  if (no_cuda()) return 77;
  for (int i = 0; i < 2; i++) {
    const int form = forms[i];
    dt_model *m = cantilever(20, 4, form, 1, 1.0, 2.0);
    char what[64];
    m->steps[0].explicit_.output_frames = 1;
    m->steps[0].explicit_.dt = stable_step(m);
    m->steps[0].explicit_.time_period = 1000 * m->steps[0].explicit_.dt;
    snprintf(what, sizeof what, "%s, J2 cantilever after 1000 steps", form_name(form));
    agree_runs(m, what);
    dt_model_destroy(&m);
  }
  return 0;
}

/* The J2 cantilever (a support, a tip load past yield) of both formulations split into parts
 * (parts_case): the history is split too. */
static int case_parts(int n) {
  for (int i = 0; i < 2; i++) {
    dt_model *m = cantilever(12, 2, forms[i], 1, 1.0, 0.5);
    char what[64];
    int rc;
    snprintf(what, sizeof what, "hex8 J2 cantilever (%s)", form_name(forms[i]));
    rc = parts_case(m, n, what);
    dt_model_destroy(&m);
    if (rc) return rc;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  int n = 0, rc = parse_args(argc, argv, &n);
  if (rc >= 0) return rc;
  if (!strcmp(which, "element")) return case_element();
  if (!strcmp(which, "input")) return case_input();
  if (!strcmp(which, "wave"))
    return case_wave(n ? n : 100, DT_FORM_REDUCED) || case_wave(n ? n : 100, DT_FORM_FULL);
  if (!strcmp(which, "energy")) return case_energy(n ? n : 4);
  if (!strcmp(which, "patch")) return case_patch(DT_FORM_REDUCED) || case_patch(DT_FORM_FULL);
  if (!strcmp(which, "spin")) return case_spin(DT_FORM_REDUCED) || case_spin(DT_FORM_FULL);
  if (!strcmp(which, "drive")) return case_drive(DT_FORM_REDUCED) || case_drive(DT_FORM_FULL);
  if (!strcmp(which, "j2bar"))
    return case_j2bar(n ? n : 10, DT_FORM_REDUCED) || case_j2bar(n ? n : 10, DT_FORM_FULL);
  if (!strcmp(which, "hourglass")) return case_hourglass();
  if (!strcmp(which, "pressure"))
    return case_pressure(DT_FORM_REDUCED) || case_pressure(DT_FORM_FULL);
  if (!strcmp(which, "resume")) return case_resume();
  if (!strcmp(which, "agree")) return case_agree();
  if (!strcmp(which, "parts")) return case_parts(n ? n : 200);
  fprintf(stderr, "usage: test_explicit_hex8 "
                  "element|input|wave|energy|drive|patch|spin|j2bar|hourglass|pressure|resume|"
                  "agree|parts [--backend B] [--n N]\n");
  return 2;
}
