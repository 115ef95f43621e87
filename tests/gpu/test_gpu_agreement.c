/* The CUDA backend agrees with the CPU reference, and two CUDA runs agree bit for bit.
 *
 * Each job runs on "cpu" and twice on "cuda". Checked at every converged increment:
 *   displacements: max |u_gpu - u_cpu| <= 1e-9 max |u_cpu|
 *   stresses:      max |s_gpu - s_cpu| <= 1e-8 max |s_cpu|   (and PEEQ the same way)
 *   the same number of increments and of Newton iterations per increment (within one for the
 *   job with the adaptive linear tolerance: see g_forcing);
 *   the two CUDA runs: memcmp-identical displacements, stresses and PEEQ.
 * Jobs: elastic hex8 (full and B-bar, force load), plastic hex8 with linear, Voce and
 * kinematic hardening (prescribed displacement, then unloading), the linear-hardening one
 * again with the adaptive linear tolerance (solver/forcing.h) and with the two-level
 * preconditioner (solver/coarse_space.h; the quad4 plate below too, in 2D), a plastic bar of hex8 and tet4
 * (a mesh of two element types: the one-thread-per-element kernels), tet10 with Voce hardening,
 * a quad4 plane-strain plate (table hardening) pulled and released, Mohr-Coulomb plates, and
 * plates of quad8, quad9 and quad16 (plastic; quad9 also Mohr-Coulomb), plastic bars of hex20
 * and hex20r (their cooperative kernels, the tangent's in dynamic shared memory; with
 * --cuda-elements simple the one-thread-per-element kernels with 60-DOF arrays; hex20r also
 * two-level),
 * plastic bars of wedge6 and wedge15 (the one-thread-per-element kernels, 32- and 60-DOF
 * arrays; wedge15 also two-level), a quad8r plane-strain plate and axisymmetric quad4, quad8
 * and quad8r solid cylinders expanded plastically (the one-thread-per-element kernels, which
 * add the hoop strain and the measure 2 pi r dA; the quad8 cylinder also matrix-free);
 * several of them again with the matrix-free operator (linear.operator "matrix_free": plastic
 * hex8 with fixed and adaptive forcing and with the two-level preconditioner, kinematic
 * hardening, Mohr-Coulomb with D per point and with the elastic tangent, the hex8 and tet4 bar
 * (also two-level: the operator's one-thread-per-element path), tet10, quad4 (also two-level),
 * quad16, quad9 Mohr-Coulomb, hex20, hex20r, wedge6, wedge15). Skips (77) without a CUDA
 * device.
 * DUCTILE_GPU_TEST_BACKEND=cpu compares the CPU backend with itself instead (to
 * check the jobs on a machine without a GPU); the arguments --cuda-elements simple run every
 * job's CUDA runs with the one-thread-per-element kernels (solver.backend_options.elements). */
#include "gpu_jobs.h"

/* The Mohr-Coulomb plate's material, section and step (a 10 x 5 plate with node sets left,
 * bottom, right, squeezed in plane strain; consistent tangent), for the quad4 and quad9 cases. */
static const char *const k_mc_plate =
    ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 2000, \"nu\": 0.2}, "
    "\"plastic\": {\"criterion\": \"mohr_coulomb\", \"cohesion\": 5, \"friction_angle\": 20}}], "
    "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": \"plane_strain\"}], "
    "\"steps\": [{\"name\": \"squeeze\", \"increments\": 5, \"boundary\": ["
    "{\"node_set\": \"left\", \"fixed\": [\"x\"]}, {\"node_set\": \"bottom\", \"fixed\": [\"y\"]}, "
    "{\"node_set\": \"right\", \"displacement\": {\"x\": -0.08}}]}], ";

static double max_abs(const double *a, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++)
    if (fabs(a[i]) > m) m = fabs(a[i]);
  return m;
}

static double max_diff(const double *a, const double *b, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++)
    if (!(fabs(a[i] - b[i]) <= m)) m = fabs(a[i] - b[i]); /* NaN propagates */
  return m;
}

/* The linear forcing of hex8_job's solver. With "adaptive" (solver/forcing.h) a correction's
 * PCG stops at a loose tolerance, where rounding can end it one PCG iteration earlier on one
 * backend than on the other; the Newton iterates then differ by far more than rounding and
 * an increment may take one correction more or fewer. Its results must still agree to the
 * same tolerances (the force tolerance, 1e-10, bounds both), and repeated CUDA runs must
 * still be bit-identical. */
static const char *g_forcing = "fixed";

/* An increment may also take one correction more or fewer on one backend when its residual
 * lands next to the tolerance: Newton's linear predictor (solver/newton.c) forms K_t du as a
 * directional derivative of the material update with eps = 1e-6, which carries the backends'
 * rounding differences (sums in other orders) into the iterates 1/eps times larger, so the
 * predictor's first correction differs at about 1e-10 instead of 1e-16. Every result must still
 * agree to the tolerances below, and repeated CUDA runs must still be bit-identical. */
static void compare(const char *name, const capture *cpu, const capture *g1, const capture *g2) {
  int slack = 1; /* Newton corrections that may differ (above) */
  EXPECT(cpu->n_inc > 0, "%s: no converged increment", name);
  EXPECT(cpu->n_inc == g1->n_inc, "%s: %d increments on cpu, %d on cuda", name, cpu->n_inc,
         g1->n_inc);
  EXPECT(g1->n_inc == g2->n_inc, "%s: %d then %d increments on cuda", name, g1->n_inc, g2->n_inc);
  for (int i = 0; i < cpu->n_inc && i < g1->n_inc && i < g2->n_inc; i++) {
    size_t nu = 3 * (size_t)cpu->n_nodes, ns = 6 * (size_t)cpu->n_qp, nq = cpu->n_qp;
    double us = max_abs(cpu->u[i], nu), ss = max_abs(cpu->s[i], ns), ps = max_abs(cpu->peeq[i], nq);
    double du = max_diff(cpu->u[i], g1->u[i], nu), ds = max_diff(cpu->s[i], g1->s[i], ns);
    double dp = max_diff(cpu->peeq[i], g1->peeq[i], nq);
    EXPECT(abs(cpu->newton[i] - g1->newton[i]) <= slack,
           "%s increment %d: %d Newton iterations on cpu, %d on cuda", name, i + 1, cpu->newton[i],
           g1->newton[i]);
    EXPECT(du <= 1e-9 * us, "%s increment %d: displacements differ by %.3e (max |u| %.3e)", name,
           i + 1, du, us);
    EXPECT(ds <= 1e-8 * ss, "%s increment %d: stresses differ by %.3e (max |s| %.3e)", name, i + 1,
           ds, ss);
    EXPECT(dp <= 1e-8 * ps + 1e-300, "%s increment %d: PEEQ differs by %.3e (max %.3e)", name,
           i + 1, dp, ps);
    EXPECT(memcmp(g1->u[i], g2->u[i], sizeof(double) * nu) == 0,
           "%s increment %d: two CUDA runs give different displacements", name, i + 1);
    EXPECT(memcmp(g1->s[i], g2->s[i], sizeof(double) * ns) == 0,
           "%s increment %d: two CUDA runs give different stresses", name, i + 1);
    EXPECT(memcmp(g1->peeq[i], g2->peeq[i], sizeof(double) * nq) == 0,
           "%s increment %d: two CUDA runs give different PEEQ", name, i + 1);
    EXPECT(g1->newton[i] == g2->newton[i],
           "%s increment %d: Newton iterations differ between CUDA runs", name, i + 1);
  }
}

static const char *g_other = "cuda";
static int g_cuda_elements = 0; /* --cuda-elements: backend_options.elements of every job */

static void check_job(const char *name, const sbuf *job) {
  dt_model *m = parse_or_die(job, name);
  const char *dump = getenv("DUCTILE_GPU_TEST_DUMP"); /* a folder: write each job there */
  capture cpu = {0}, g1 = {0}, g2 = {0};
  dt_run_summary sum;
  dt_ctx ctx = {0};
  dt_status rc;
  int iters = 0;
  m->solver.cuda_elements = g_cuda_elements; /* the CPU backend ignores it */
  if (dump) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s.json", dump, name);
    for (char *p = path + strlen(dump) + 1; *p; p++)
      if (*p == ' ') *p = '_';
    if ((f = fopen(path, "w"))) {
      fwrite(job->s, 1, job->n, f);
      fclose(f);
    }
  }
  rc = run_job(m, "cpu", &cpu, NULL, NULL, &sum, &ctx);
  EXPECT(rc == DT_OK, "%s on cpu: %s", name, ctx.msg[0] ? ctx.msg : sum.message);
  dt_ctx_reset(&ctx);
  rc = run_job(m, g_other, &g1, NULL, NULL, &sum, &ctx);
  EXPECT(rc == DT_OK, "%s on cuda: %s", name, ctx.msg[0] ? ctx.msg : sum.message);
  dt_ctx_reset(&ctx);
  rc = run_job(m, g_other, &g2, NULL, NULL, &sum, &ctx);
  EXPECT(rc == DT_OK, "%s on cuda (second run): %s", name, ctx.msg[0] ? ctx.msg : sum.message);
  compare(name, &cpu, &g1, &g2);
  for (int i = 0; i < cpu.n_inc; i++) iters += cpu.newton[i];
  printf("%-22s %3d increments, %4d Newton iterations, %d cutbacks, %d nodes, %d points\n", name,
         cpu.n_inc, iters, sum.cutbacks, cpu.n_nodes, cpu.n_qp);
  capture_free(&cpu);
  capture_free(&g1);
  capture_free(&g2);
  dt_model_destroy(&m);
}

/* A bent hex8 bar fixed at x = 0 and loaded at x = lx: tip_bc is appended to the step's
 * boundary list (a prescribed displacement) or loads is its load list; the second step
 * (second = 1) releases the tip or (second = 2) reverses the tip displacement. */
static void hex8_job(sbuf *b, const char *plastic, const char *formulation, const char *tip_bc,
                     const char *loads, int second, const char *pc) {
  sb_add(b, "{\"ductile\": 1, \"title\": \"gpu agreement\", ");
  sb_hex8_mesh(b, 8, 2, 2, 6.0, 1.0, 1.0);
  sb_add(b, ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 200000, \"nu\": %s}%s%s}], ",
         strcmp(formulation, "bbar") == 0 ? "0.45" : "0.3", plastic[0] ? ", " : "", plastic);
  sb_add(b,
         "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": \"solid\", "
         "\"formulation\": \"%s\"}], ",
         formulation);
  sb_add(b,
         "\"steps\": [{\"name\": \"load\", \"increments\": 4, \"boundary\": "
         "[{\"node_set\": \"xmin\", \"fixed\": \"all\"}%s%s], \"loads\": [%s]}",
         tip_bc[0] ? ", " : "", tip_bc, loads);
  if (second == 1)
    sb_add(b, ", {\"name\": \"release\", \"increments\": 3, \"boundary\": "
              "[{\"node_set\": \"xmin\", \"fixed\": \"all\"}], \"loads\": [{\"type\": \"force\", "
              "\"node_set\": \"xmax\", \"value\": [0, 0, -0.05]}]}");
  if (second == 2) /* reverse loading (Bauschinger) */
    sb_add(b, ", {\"name\": \"reverse\", \"increments\": 6, \"boundary\": "
              "[{\"node_set\": \"xmin\", \"fixed\": \"all\"}], \"loads\": [{\"type\": \"force\", "
              "\"node_set\": \"xmax\", \"value\": [0, 0, 1.6]}]}");
  sb_add(b, "], ");
  sb_add(b, k_solver_tight, pc, g_forcing);
  sb_add(b, "}");
}

#define TIP_FORCE(v) "{\"type\": \"force\", \"node_set\": \"xmax\", \"value\": " v "}"

/* hex8_job's plastic bar (bent by a force on every end node, then released) with its end face
 * tied by equations (docs/job-format.md, "equations"): every end node's u_z follows the corner
 * (8, 0, 0)'s, and their u_y a chain, each node's the previous one's (cascaded equations). The
 * forces on the dependent nodes reach the corner through T^T; the reduced system is solved by
 * the driver's PCG over operator_apply, pc_apply and mpc_apply (solver/analysis/constraints.c)
 * instead of the backend's fused PCG. */
static void equations_job(sbuf *b, const char *pc) {
  int master = grid_nid(8, 2, 8, 0, 0), prev = master, first = 1;
  hex8_job(b,
           "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
           "\"modulus\": 10000}}",
           "full", "", TIP_FORCE("[0, 0.4, -1.6]"), 1, pc);
  b->s[--b->n] = '\0'; /* reopen the job object */
  sb_add(b, ", \"equations\": [");
  for (int k = 0; k <= 2; k++)
    for (int j = 0; j <= 2; j++) {
      int n = grid_nid(8, 2, 8, j, k);
      if (n == master) continue;
      sb_add(b, "%s{\"terms\": [[%d, \"z\", 1.0], [%d, \"z\", -1.0]]}", first ? "" : ", ", n,
             master);
      sb_add(b, ", {\"terms\": [[%d, \"y\", 2.0], [%d, \"y\", -2.0]]}", n, prev);
      prev = n;
      first = 0;
    }
  sb_add(b, "]}");
}

/* The plastic bar of hex8_job (hex20 = 0) or hex20_job (1), bent and released, with initial
 * conditions (docs/job-format.md, "initial_conditions"): a residual stress out of equilibrium on
 * every point (s_xx = 120 + 40 y - 80 z, s_yz = 20), one point of element 1 given another, and
 * an initial plastic strain in element 2. The eigenstrain goes through the stress kernels of
 * hex8 and hex20 (cooperative, or one thread per element with --cuda-elements simple) and the
 * tangent. */
static void hex20_job(sbuf *b, const char *type, const char *pc);
static void initial_job(sbuf *b, int hex20, const char *pc) {
  if (hex20)
    hex20_job(b, "hex20", pc);
  else
    hex8_job(b,
             "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
             "\"modulus\": 10000}}",
             "full", "", TIP_FORCE("[0, 0, -1.6]"), 1, pc);
  b->s[--b->n] = '\0'; /* reopen the job object */
  sb_add(b, ", \"initial_conditions\": ["
            "{\"type\": \"stress\", \"value\": [120, 0, 0, 0, 0, 20], "
            "\"gradient\": [[0, 40, -80], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]}, "
            "{\"type\": \"stress\", \"element\": 1, \"point\": 3, "
            "\"value\": [-150, 10, 0, 5, 0, 0]}, "
            "{\"type\": \"plastic_strain\", \"element\": 2, "
            "\"value\": [0.001, -0.0005, -0.0005, 0, 0, 0]}]}");
}

/* hex8_job's plastic bar (linear hardening, bent and released) with its last 3 columns of cells
 * as tet4. */
static void mixed_job(sbuf *b, const char *pc) {
  sb_add(b, "{\"ductile\": 1, \"title\": \"gpu agreement, hex8 and tet4\", ");
  sb_hex8_tet4_mesh(b, 8, 2, 2, 6.0, 1.0, 1.0, 3);
  sb_add(
      b,
      ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 200000, \"nu\": 0.3}, "
      "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", \"modulus\": "
      "10000}}}], "
      "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": \"solid\"}], "
      "\"steps\": [{\"name\": \"load\", \"increments\": 4, \"boundary\": "
      "[{\"node_set\": \"xmin\", \"fixed\": \"all\"}], \"loads\": [" TIP_FORCE(
          "[0, 0, -1.6]") "]}, "
                          "{\"name\": \"release\", \"increments\": 3, \"boundary\": "
                          "[{\"node_set\": \"xmin\", \"fixed\": \"all\"}], \"loads\": [" TIP_FORCE(
                              "[0, 0, -0.05]") "]}], ");
  sb_add(b, k_solver_tight, pc, "fixed");
  sb_add(b, "}");
}

/* A plastic bar of 20-node hexahedra (type "hex20" or "hex20r"), 6 x 2 x 2 elements (two through
 * the section: with one, hex20r's spurious mode propagates), fixed at x = 0, bent by a force on
 * every node of the tip (21 nodes: about the hex8 bar's total) and released. */
static void hex20_job(sbuf *b, const char *type, const char *pc) {
  sb_add(b, "{\"ductile\": 1, \"title\": \"gpu agreement, %s\", ", type);
  sb_hex20_mesh(b, type, 6, 2, 2, 6.0, 1.0, 1.0);
  sb_add(
      b,
      ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 200000, \"nu\": 0.3}, "
      "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", \"modulus\": "
      "10000}}}], "
      "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": \"solid\"}], "
      "\"steps\": [{\"name\": \"load\", \"increments\": 4, \"boundary\": "
      "[{\"node_set\": \"xmin\", \"fixed\": \"all\"}], \"loads\": [" TIP_FORCE(
          "[0, 0, -0.7]") "]}, "
                          "{\"name\": \"release\", \"increments\": 3, \"boundary\": "
                          "[{\"node_set\": \"xmin\", \"fixed\": \"all\"}], \"loads\": [" TIP_FORCE(
                              "[0, 0, -0.02]") "]}], ");
  sb_add(b, k_solver_tight, pc, "fixed");
  sb_add(b, "}");
}

/* A plastic bar of wedges (type "wedge6" or "wedge15"), 6 x 2 x 2 cells of two wedges each,
 * fixed at x = 0, bent by a force on every node of the tip and released, as hex20_job. The
 * forces per node make both plastic at the root (on the CPU: 52 of wedge6's 96 points, PEEQ up
 * to 0.4 %; 126 of wedge15's 432, 0.8 %); wedge6, stiffer and with 9 tip nodes to wedge15's 21,
 * takes more. */
static void wedge_job(sbuf *b, const char *type, const char *pc) {
  const double f = strcmp(type, "wedge6") == 0 ? 2.4 : 0.7;
  sb_add(b, "{\"ductile\": 1, \"title\": \"gpu agreement, %s\", ", type);
  sb_wedge_mesh(b, type, 6, 2, 2, 6.0, 1.0, 1.0);
  sb_add(b,
         ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 200000, \"nu\": 0.3}, "
         "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
         "\"modulus\": 10000}}}], "
         "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": \"solid\"}], "
         "\"steps\": [{\"name\": \"load\", \"increments\": 4, \"boundary\": "
         "[{\"node_set\": \"xmin\", \"fixed\": \"all\"}], \"loads\": [{\"type\": \"force\", "
         "\"node_set\": \"xmax\", \"value\": [0, 0, %g]}]}, "
         "{\"name\": \"release\", \"increments\": 3, \"boundary\": "
         "[{\"node_set\": \"xmin\", \"fixed\": \"all\"}], \"loads\": [{\"type\": \"force\", "
         "\"node_set\": \"xmax\", \"value\": [0, 0, -0.02]}]}], ",
         -f);
  sb_add(b, k_solver_tight, pc, "fixed");
  sb_add(b, "}");
}

/* The job with its hex8 element block made `type`: hex8r (CalculiX's C3D8R in static steps: one
 * point and hourglass stiffness) or hex8i (C3D8I: incompatible modes, condensed), which the
 * generic one-thread-per-element kernels run (hex8i the large instantiation). */
static void to_hex8_variant(sbuf *b, const char *type) {
  static const char key[] = "{\"type\": \"hex8\"";
  char *at = strstr(b->s, key);
  sbuf r = {0};
  if (!at) return;
  *at = '\0';
  sb_add(&r, "%s{\"type\": \"%s\"%s", b->s, type, at + strlen(key));
  free(b->s);
  *b = r;
}

/* The job again with the matrix-free operator (its linear block names it), checked the same
 * way: the CPU backend's matrix-free operator against the CUDA backend's. */
static void check_job_matrix_free(const char *name, const sbuf *job) {
  static const char key[] = "\"linear\": {";
  const char *at = strstr(job->s, key);
  sbuf b = {0};
  char full[128];
  if (!at) {
    EXPECT(0, "%s: no linear block to add the operator to", name);
    return;
  }
  sb_add(&b, "%.*s%s\"operator\": \"matrix_free\", %s", (int)(at - job->s), job->s, key,
         at + strlen(key));
  snprintf(full, sizeof full, "%s matrix-free", name);
  check_job(full, &b);
  free(b.s);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--cuda-elements") == 0) {
    for (g_cuda_elements = 0; dt_cuda_elements_names[g_cuda_elements]; g_cuda_elements++)
      if (strcmp(dt_cuda_elements_names[g_cuda_elements], argv[2]) == 0) break;
    if (!dt_cuda_elements_names[g_cuda_elements]) {
      fprintf(stderr, "--cuda-elements: unknown kernels '%s'\n", argv[2]);
      return 64;
    }
  } else if (argc != 1) {
    fprintf(stderr, "usage: test_gpu_agreement [--cuda-elements auto|simple]\n");
    return 64;
  }
  if (getenv("DUCTILE_GPU_TEST_BACKEND")) g_other = getenv("DUCTILE_GPU_TEST_BACKEND");
  if (strcmp(g_other, "cpu") != 0) skip_without_device();
  {
    sbuf b = {0};
    hex8_job(&b, "", "full", "",
             "{\"type\": \"force\", \"node_set\": \"xmax\", \"value\": [0, 0, -1.0]}", 0,
             "block_jacobi");
    check_job("hex8 elastic full", &b);
    free(b.s);
  }
  {
    sbuf b = {0};
    hex8_job(&b, "", "bbar", "",
             "{\"type\": \"force\", \"node_set\": \"xmax\", \"value\": [0, 0.3, -1.0]}", 0,
             "jacobi");
    check_job("hex8 elastic bbar", &b);
    free(b.s);
  }
  { /* the plastic bar with linear hardening, with each linear-solver option */
    static const char *const pcs[] = {"block_jacobi", "two_level", "block_jacobi"};
    static const char *const forcings[] = {"fixed", "fixed", "adaptive"};
    static const char *const names[] = {"hex8 plastic linear", "hex8 plastic two-level",
                                        "hex8 plastic adaptive"};
    for (int v = 0; v < 3; v++) {
      sbuf b = {0};
      g_forcing = forcings[v];
      hex8_job(&b,
               "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
               "\"modulus\": 10000}}",
               "full", "", TIP_FORCE("[0, 0, -1.6]"), 1, pcs[v]);
      check_job(names[v], &b);
      check_job_matrix_free(names[v],
                            &b); /* two_level: the coarse matrix from the element matrices */
      g_forcing = "fixed";
      free(b.s);
    }
  }
  {
    sbuf b = {0};
    hex8_job(&b,
             "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"voce\", "
             "\"modulus\": 1000, \"q\": 100, \"b\": 20}}",
             "bbar", "", TIP_FORCE("[0, 0.1, -1.4]"), 1, "jacobi");
    check_job("hex8 plastic voce bbar", &b);
    free(b.s);
  }
  {
    sbuf b = {0};
    hex8_job(&b,
             "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
             "\"modulus\": 2000}, \"kinematic_modulus\": 20000}",
             "full", "", TIP_FORCE("[0, 0, -1.6]"), 2, "block_jacobi");
    check_job("hex8 kinematic", &b);
    check_job_matrix_free("hex8 kinematic", &b); /* elements turn elastic again on reversal */
    free(b.s);
  }
  { /* Mohr-Coulomb, associative: the consistent tangent, assembled on the GPU by the
       per-element kernels that ask the material update for D (d_tangent) */
    sbuf b = {0};
    hex8_job(
        &b,
        "\"plastic\": {\"criterion\": \"mohr_coulomb\", \"cohesion\": 60, \"friction_angle\": 25}",
        "bbar", "", TIP_FORCE("[0, 0, -0.5]"), 4, "block_jacobi");
    check_job("hex8 mohr-coulomb consistent", &b);
    check_job_matrix_free("hex8 mohr-coulomb consistent", &b); /* D per point, B-bar */
    free(b.s);
  }
  { /* Mohr-Coulomb, non-associative: the stress kernel's Mohr-Coulomb instantiation, the
       constant (elastic) tangent and Thomas's acceleration (both the default for psi < phi) */
    sbuf b = {0};
    hex8_job(
        &b,
        "\"plastic\": {\"criterion\": \"mohr_coulomb\", \"cohesion\": 60, \"friction_angle\": 25, "
        "\"dilation_angle\": 10}",
        "full", "", TIP_FORCE("[0, 0, -0.7]"), 4, "block_jacobi");
    check_job("hex8 mohr-coulomb", &b);
    check_job_matrix_free("hex8 mohr-coulomb",
                          &b); /* elastic tangent: plastic elements keep the class matrix */
    free(b.s);
  }
  for (int two = 0; two < 2; two++) { /* the mixed mesh's upload path, also with two_level */
    sbuf b = {0};
    mixed_job(&b, two ? "two_level" : "block_jacobi");
    check_job(two ? "hex8+tet4 two-level" : "hex8+tet4 plastic", &b);
    check_job_matrix_free(two ? "hex8+tet4 two-level" : "hex8+tet4 plastic",
                          &b); /* one thread per element */
    free(b.s);
  }
  {
    sbuf b = {0};
    sb_add(&b, "{\"ductile\": 1, \"title\": \"tet10\", ");
    sb_tet10_mesh(&b, 2, 0.5);
    sb_add(&b,
           ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 210000, \"nu\": 0.3}, "
           "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"voce\", "
           "\"modulus\": 1000, \"q\": 100, \"b\": 20}}}], "
           "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": \"solid\"}], "
           "\"steps\": [{\"name\": \"press\", \"increments\": 5, \"boundary\": ["
           "{\"node_set\": \"xmin\", \"fixed\": [\"x\"]}, {\"node_set\": \"ymin\", \"fixed\": "
           "[\"y\"]}, "
           "{\"node_set\": \"zmin\", \"fixed\": [\"z\"]}, "
           "{\"node_set\": \"zmax\", \"displacement\": {\"z\": -0.005}}]}, "
           "{\"name\": \"release\", \"increments\": 2, \"boundary\": ["
           "{\"node_set\": \"xmin\", \"fixed\": [\"x\"]}, {\"node_set\": \"ymin\", \"fixed\": "
           "[\"y\"]}, "
           "{\"node_set\": \"zmin\", \"fixed\": [\"z\"]}], \"loads\": [{\"type\": \"force\", "
           "\"node_set\": \"zmax\", \"value\": [0, 0, -1.0]}]}], ");
    sb_add(&b, k_solver_tight, "block_jacobi", "fixed");
    sb_add(&b, "}");
    check_job("tet10 voce", &b);
    check_job_matrix_free("tet10 voce", &b);
    free(b.s);
  }
  for (int two = 0; two < 2; two++) { /* Jacobi, then the two-level preconditioner in 2D */
    sbuf b = {0};
    sb_add(&b, "{\"ductile\": 1, \"title\": \"quad4\", ");
    sb_quad4_mesh(&b, 10, 5, 10.0, 5.0);
    sb_add(&b,
           ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 70000, \"nu\": 0.33}, "
           "\"plastic\": {\"hardening\": {\"type\": \"table\", \"points\": "
           "[[250.0, 0.0], [300.0, 0.01], [340.0, 0.05]]}}}], "
           "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", "
           "\"kind\": \"plane_strain\", \"thickness\": 1.0}], "
           "\"steps\": [{\"name\": \"pull\", \"increments\": {\"type\": \"automatic\", "
           "\"initial\": 0.1, \"min\": 0.0001, \"max\": 0.25, \"max_cutbacks\": 8}, \"boundary\": ["
           "{\"node_set\": \"left\", \"fixed\": [\"x\"]}, {\"node_set\": \"bottom\", \"fixed\": "
           "[\"y\"]}, "
           "{\"node_set\": \"right\", \"displacement\": {\"x\": 0.08}}]}, "
           "{\"name\": \"release\", \"increments\": 4, \"boundary\": ["
           "{\"node_set\": \"left\", \"fixed\": [\"x\"]}, {\"node_set\": \"bottom\", \"fixed\": "
           "[\"y\"]}], "
           "\"loads\": [{\"type\": \"force\", \"node_set\": \"right\", \"value\": [2.0, 0]}]}], ");
    sb_add(&b, k_solver_tight, two ? "two_level" : "jacobi", "fixed");
    sb_add(&b, "}");
    check_job(two ? "quad4 two-level" : "quad4 plane strain", &b);
    check_job_matrix_free(two ? "quad4 two-level" : "quad4 plane strain", &b);
    free(b.s);
  }
  { /* Mohr-Coulomb in plane strain, compressed (B-bar quad4; consistent tangent) */
    sbuf b = {0};
    sb_add(&b, "{\"ductile\": 1, \"title\": \"quad4 mc\", ");
    sb_quad4_mesh(&b, 10, 5, 10.0, 5.0);
    sb_add(&b, "%s", k_mc_plate);
    sb_add(&b, k_solver_tight, "block_jacobi", "fixed");
    sb_add(&b, "}");
    check_job("quad4 mohr-coulomb", &b);
    free(b.s);
  }
  { /* seed-000's Q_p and CalculiX's CPE8 quadrilaterals (cooperative kernels of 8, 9 and 16
     * nodes): a plastic plate pulled in plane strain, and Mohr-Coulomb squeezed with quad9 */
    const char *types[3] = {"quad8", "quad9", "quad16"};
    for (int t = 0; t < 4; t++) {
      sbuf b = {0};
      sb_add(&b, "{\"ductile\": 1, \"title\": \"%s\", ", t < 3 ? types[t] : "quad9 mc");
      sb_quadp_mesh(&b, t < 3 ? types[t] : "quad9", 6, 3, 10.0, 5.0);
      if (t < 3)
        sb_add(&b, ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 70000, \"nu\": 0.33}, "
                   "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
                   "\"modulus\": 2000}}}], "
                   "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": "
                   "\"plane_strain\"}], "
                   "\"steps\": [{\"name\": \"pull\", \"increments\": 4, \"boundary\": ["
                   "{\"node_set\": \"left\", \"fixed\": [\"x\"]}, {\"node_set\": \"bottom\", "
                   "\"fixed\": [\"y\"]}, "
                   "{\"node_set\": \"right\", \"displacement\": {\"x\": 0.06}}]}], ");
      else
        sb_add(&b, "%s", k_mc_plate);
      sb_add(&b, k_solver_tight, "block_jacobi", "fixed");
      sb_add(&b, "}");
      check_job(t < 3 ? types[t] : "quad9 mohr-coulomb", &b);
      if (t >= 2) check_job_matrix_free(t < 3 ? types[t] : "quad9 mohr-coulomb", &b);
      free(b.s);
    }
  }
  { /* linear constraints: each preconditioner on the reduced system, and the matrix-free
     * operator under it */
    static const char *const pcs[] = {"block_jacobi", "two_level", "amg"};
    static const char *const names[] = {"equations block-jacobi", "equations two-level",
                                        "equations amg"};
    for (int v = 0; v < 3; v++) {
      sbuf b = {0};
      g_forcing = "fixed";
      equations_job(&b, pcs[v]);
      check_job(names[v], &b);
      if (v == 0) check_job_matrix_free(names[v], &b);
      free(b.s);
    }
  }
  { /* the 20-node hexahedra: the generic one-thread-per-element kernels with 60-DOF arrays */
    static const char *const types[2] = {"hex20", "hex20r"}, *const pcs[2] = {"block_jacobi",
                                                                              "two_level"};
    static const char *const names[2] = {"hex20 plastic", "hex20r two-level"};
    for (int t = 0; t < 2; t++) {
      sbuf b = {0};
      hex20_job(&b, types[t], pcs[t]);
      check_job(names[t], &b);
      check_job_matrix_free(names[t], &b);
      free(b.s);
    }
  }
  { /* the wedges: the generic one-thread-per-element kernels with 32-DOF (wedge6) and 60-DOF
     * (wedge15) arrays */
    static const char *const types[2] = {"wedge6", "wedge15"}, *const pcs[2] = {"block_jacobi",
                                                                                "two_level"};
    static const char *const names[2] = {"wedge6 plastic", "wedge15 two-level"};
    for (int t = 0; t < 2; t++) {
      sbuf b = {0};
      wedge_job(&b, types[t], pcs[t]);
      check_job(names[t], &b);
      check_job_matrix_free(names[t], &b);
      free(b.s);
    }
  }
  { /* initial stresses and plastic strains, on hex8 and hex20 kernels, and the matrix-free
     * operator */
    static const char *const names[2] = {"initial hex8", "initial hex20"};
    for (int t = 0; t < 2; t++) {
      sbuf b = {0};
      initial_job(&b, t, "block_jacobi");
      check_job(names[t], &b);
      check_job_matrix_free(names[t], &b);
      free(b.s);
    }
  }
  { /* quad8r (CPE8R) and the axisymmetric sections (CAX4, CAX8, CAX8R): the generic
     * one-thread-per-element kernels; a plate pulled in plane strain, and solid cylinders of
     * radius 10 (x = 0 the axis, held radially) stretched radially by the same displacement */
    static const char *const types[4] = {"quad8r", "quad4", "quad8", "quad8r"};
    static const char *const names[4] = {"quad8r plastic", "quad4 axisymmetric",
                                         "quad8 axisymmetric", "quad8r axisymmetric"};
    for (int t = 0; t < 4; t++) {
      sbuf b = {0};
      sb_add(&b, "{\"ductile\": 1, \"title\": \"%s\", ", names[t]);
      if (t == 1)
        sb_quad4_mesh(&b, 12, 6, 10.0, 5.0);
      else
        sb_quadp_mesh(&b, types[t], 6, 3, 10.0, 5.0);
      sb_add(&b,
             ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 70000, \"nu\": 0.33}, "
             "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
             "\"modulus\": 2000}}}], "
             "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": \"%s\"}], "
             "\"steps\": [{\"name\": \"pull\", \"increments\": 4, \"boundary\": ["
             "{\"node_set\": \"left\", \"fixed\": [\"x\"]}, {\"node_set\": \"bottom\", "
             "\"fixed\": [\"y\"]}, "
             "{\"node_set\": \"right\", \"displacement\": {\"x\": 0.06}}]}], ",
             t == 0 ? "plane_strain" : "axisymmetric");
      sb_add(&b, k_solver_tight, "block_jacobi", "fixed");
      sb_add(&b, "}");
      check_job(names[t], &b);
      if (t == 2) check_job_matrix_free(names[t], &b);
      free(b.s);
    }
  }
  { /* hex8r (C3D8R) and hex8i (C3D8I): hex8_job's plastic bar, bent and released. hex8r's
     * hourglass stiffness holds its 12 modes per element (the one point sees 6 of 18): on the
     * CPU 12 points yield, PEEQ up to 0.44 %; hex8i condenses its 9 modes in the element, the
     * points' updates in its local iteration: 72 points yield, PEEQ up to 0.52 % */
    static const char *const types[2] = {"hex8r", "hex8i"};
    static const char *const names[2] = {"hex8r plastic", "hex8i plastic"};
    static const char *const tips[2] = {TIP_FORCE("[0, 0, -1.8]"), TIP_FORCE("[0, 0, -1.6]")};
    for (int t = 0; t < 2; t++) {
      sbuf b = {0};
      hex8_job(&b,
               "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
               "\"modulus\": 10000}}",
               "full", "", tips[t], 1, "block_jacobi");
      to_hex8_variant(&b, types[t]);
      check_job(names[t], &b);
      check_job_matrix_free(names[t], &b);
      free(b.s);
    }
  }
  if (g_failures) {
    fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  printf("all GPU agreement checks passed\n");
  return 0;
}
