/* The matrix-free operator (linear.operator "matrix_free"; solver/problem_classes.c,
 * element/element_matrix.h, cpu/cpu_matrix_free.c, cuda/cuda_matrix_free.cu).
 *
 * 1. Block-symmetric storage: packing a symmetric matrix and multiplying gives the dense
 *    product (to 1e-13 relative), the diagonal blocks are the dense ones (exactly), for hex8
 *    (8 nodes x 3) and quad9 (9 nodes x 2), stored contiguously and interleaved (stride 4).
 * 2. Classes: a regular box is one class with every element in it; moving one interior node
 *    leaves exactly its 8 elements without a class; the class matrix is the element code's
 *    elastic tangent of any member (exactly: the members are exact translates).
 * 3. A plastic bar (unit_box, distorted, so its classes are the rows along x) solved with the
 *    assembled and with the matrix-free operator on the backend DUCTILE_BACKEND names:
 *    displacements agree to 1e-9 relative (PCG tolerance 1e-12), the same Newton iterations,
 *    PCG iterations within 2% (the operators differ only in rounding, which moves the
 *    iteration at which PCG reaches 1e-12 by a few: 3848 against 3891 over 12 solves on the
 *    24 x 8 x 6 box); also on a regular box (one class), with Jacobi.
 * 4. Options: "auto" resolves to two_level with either operator at 107,811 DOFs.
 * 5. The two-level preconditioner: its coarse matrix summed from the element matrices gives the
 *    assembled one's M^-1 r (check_two_level), and the distorted bar's solves agree as in 3.
 * 6. A material whose tangent stays elastic (Mohr-Coulomb, elastic tangent): plastic elements
 *    keep the class matrix (none stored on the CPU backend), K x as assembled. */
#include <math.h>

#include "element/element_kernel.h"
#include "backend/backend.h"
#include "backend/cpu/cpu_internal.h"
#include "element/element_matrix.h"
#include "problem/problem.h"
#include "unit_model.h"

static void check_storage(int npe, int dpn) {
  int nde = npe * dpn;
  static double spread[4 * DT_ELEM_MAX_DOF * DT_ELEM_MAX_DOF];
  double K[DT_ELEM_MAX_DOF * DT_ELEM_MAX_DOF], x[DT_ELEM_MAX_DOF],
      packed[DT_ELEM_MAX_DOF * DT_ELEM_MAX_DOF];
  unsigned s = 12345u;
  for (int i = 0; i < nde; i++)
    for (int j = 0; j <= i; j++) {
      s = s * 1103515245u + 12345u;
      K[i * nde + j] = K[j * nde + i] = (double)(s >> 8) / (1u << 24) - 0.5 + (i == j ? nde : 0);
    }
  for (int i = 0; i < nde; i++) x[i] = sin(1.0 + i);
  dt_emat_pack(npe, dpn, K, packed);
  /* the same values interleaved with three other elements' (stride 4, as the CUDA store) */
  for (int v = 0; v < dt_emat_doubles(npe, dpn); v++) spread[4 * v + 2] = packed[v];
  for (int stride = 1; stride <= 4; stride += 3) {
    double y[DT_ELEM_MAX_DOF];
    dt_emat_apply(npe, dpn, stride == 1 ? packed : spread + 2, stride, x, y);
    for (int A = 0; A < npe; A++) { /* row by row (the GPU's product) gives the same values */
      double yA[3], y0[3], y1[3], x2[DT_ELEM_MAX_DOF];
      dt_emat_row(npe, dpn, stride == 1 ? packed : spread + 2, stride, A, x, yA);
      if (stride == 1) { /* two elements sharing the matrix: each gets its own rows */
        for (int i = 0; i < nde; i++) x2[i] = cos(2.0 + i);
        dt_emat_row2(npe, dpn, packed, A, x, x2, y0, y1);
        for (int i = 0; i < dpn; i++) {
          double r1 = 0.0;
          for (int j = 0; j < nde; j++) r1 += K[(A * dpn + i) * nde + j] * x2[j];
          CHECK(y0[i] == yA[i] && fabs(y1[i] - r1) <= 1e-13 * (fabs(r1) + nde),
                "npe %d row2 %d: %.17g %.17g / %.17g", npe, A * dpn + i, y0[i], y1[i], r1);
        }
      }
      for (int i = 0; i < dpn; i++)
        CHECK(fabs(yA[i] - y[A * dpn + i]) <= 1e-13 * fabs(y[A * dpn + i]) + 1e-300,
              "npe %d row %d: %.17g vs %.17g", npe, A * dpn + i, yA[i], y[A * dpn + i]);
    }
    for (int r = 0; r < nde; r++) {
      double ref = 0.0, scale = 0.0;
      for (int j = 0; j < nde; j++) ref += K[r * nde + j] * x[j], scale += fabs(K[r * nde + j]);
      CHECK(fabs(y[r] - ref) <= 1e-13 * scale,
            "npe %d stride %d: row %d of K x is %.17g, dense %.17g", npe, stride, r, y[r], ref);
    }
  }
  for (int A = 0; A < npe; A++) {
    double blk[9] = {0};
    for (int B = 0; B < npe; B++) { /* any block, above or below the diagonal, row-major */
      double kab[9];
      dt_emat_block(npe, dpn, spread + 2, 4, A, B, kab);
      for (int i = 0; i < dpn; i++)
        for (int j = 0; j < dpn; j++)
          CHECK(kab[i * dpn + j] == K[(A * dpn + i) * nde + B * dpn + j],
                "npe %d: block (%d, %d) entry (%d, %d)", npe, A, B, i, j);
    }
    dt_emat_diag_add(npe, dpn, spread + 2, 4, A, blk);
    for (int i = 0; i < dpn; i++)
      for (int j = 0; j < dpn; j++)
        CHECK(blk[i * dpn + j] == K[(A * dpn + i) * nde + A * dpn + j],
              "npe %d: diagonal block %d (%d, %d)", npe, A, i, j);
  }
  CHECK(dt_emat_doubles(8, 3) == 324, "hex8 stores %d doubles, want 324 (36 blocks of 9)",
        dt_emat_doubles(8, 3));
  printf("storage npe %d x %d: %d of %d doubles\n", npe, dpn, dt_emat_doubles(npe, dpn), nde * nde);
}

static dt_problem *matrix_free_problem(dt_model *m) {
  dt_problem *pb = NULL;
  dt_ctx ctx = {0};
  m->solver.matrix_free = 1;
  m->solver.precond = DT_PC_BLOCK_JACOBI;
  CHECK(dt_model_finish(m, &ctx) == DT_OK && dt_problem_create(m, &pb, &ctx) == DT_OK, "%s",
        ctx.msg);
  return pb;
}

/* A regular box: unit_box's distortion taken back (to within a rounding of the coordinates,
 * far inside the classes' tolerance). */
static dt_model *regular_box(int nx, int ny, int nz, int plastic) {
  dt_model *m = unit_box(nx, ny, nz, plastic);
  for (int a = 0; a < m->n_nodes; a++) m->x[3 * a] -= 0.05 * m->x[3 * a + 1] * m->x[3 * a + 2];
  return m;
}

static void check_classes(void) {
  dt_model *m = regular_box(6, 5, 4, 0);
  dt_problem *pb = matrix_free_problem(m);
  CHECK(pb->n_classes == 1 && dt_problem_unclassed(pb) == 0,
        "regular box: %d classes, %ld unclassed", pb->n_classes, dt_problem_unclassed(pb));
  /* the class matrix is the elastic tangent of element 17, packed */
  {
    int e = 17, npe = 8;
    double X[24], ue[24] = {0}, fe[24], Ke[576], packed[324],
                  scratch[8 * (2 * DT_MAT_STATE_DOUBLES + 12)] = {0};
    dt_qp_arrays qa = {scratch,
                       scratch + 8 * DT_MAT_STATE_DOUBLES,
                       scratch + 16 * DT_MAT_STATE_DOUBLES,
                       scratch + 16 * DT_MAT_STATE_DOUBLES + 48,
                       8,
                       NULL};
    for (int a = 0; a < npe; a++)
      for (int k = 0; k < 3; k++) X[a * 3 + k] = pb->x[pb->conn[pb->elem_ptr[e] + a] * 3 + k];
    CHECK(dt_element_residual(pb->elem_type[e], X, ue, &pb->mats[0], pb->elem_state[e],
                              pb->elem_bbar[e], pb->elem_thick[e], &qa, 0, fe, Ke) == 0,
          "element 17 at zero strain is elastic");
    dt_emat_pack(npe, 3, Ke, packed);
    double d = 0.0, s = 0.0;
    for (int i = 0; i < 324; i++) {
      d = fmax(d, fabs(packed[i] - pb->class_K[i]));
      s = fmax(s, fabs(packed[i]));
    }
    CHECK(d <= 1e-12 * s, "class matrix differs from element 17's tangent by %.3e of %.3e", d, s);
  }
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);

  m = regular_box(6, 5, 4, 0);
  int moved =
      (2 * 6 + 2) * 7 + 2; /* node (2, 2, 2) of the 7 x 6 x 5 grid: interior, in 8 elements */
  m->x[3 * moved] += 0.01;
  pb = matrix_free_problem(m);
  CHECK(pb->n_classes == 1 && dt_problem_unclassed(pb) == 8,
        "one node moved: %d classes, %ld unclassed (want 1, 8)", pb->n_classes,
        dt_problem_unclassed(pb));
  for (int e = 0; e < pb->n_elems; e++) {
    int has = 0;
    for (int k = pb->elem_ptr[e]; k < pb->elem_ptr[e + 1]; k++) has |= pb->conn[k] == moved;
    CHECK((pb->elem_class[e] < 0) == has, "element %d: class %d, holds the moved node: %d", e,
          pb->elem_class[e], has);
  }
  printf("classes: regular box 1 class; one node moved: its 8 elements unclassed\n");
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

typedef unit_record record;

static void solve(int regular, int matrix_free, dt_precond_kind pc, record *r) {
  dt_model *m = regular ? regular_box(16, 6, 4, 1) : unit_box(16, 6, 4, 1);
  dt_ctx ctx = {0};
  dt_run_summary sum;
  dt_run_options o;
  unit_bar_load(m);
  m->solver.precond = pc;
  m->solver.pcg_rtol = 1e-12;
  m->solver.newton_rtol = 1e-8;
  m->solver.matrix_free = matrix_free;
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  memset(r, 0, sizeof *r);
  unit_run_options(&o, NULL, unit_record_increment, r);
  CHECK(dt_analysis_run(m, &o, &sum, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(sum.completed && r->increments == 3, "%s run did not complete: %s",
        matrix_free ? "matrix-free" : "assembled", sum.message);
  dt_model_destroy(&m);
}

static void check_solves(int regular, dt_precond_kind pc) {
  static record assembled, mf;
  double du = 0.0, umax = 0.0;
  solve(regular, 0, pc, &assembled);
  solve(regular, 1, pc, &mf);
  for (int i = 0; i < 3 * assembled.n_nodes; i++) {
    du = fmax(du, fabs(mf.u[i] - assembled.u[i]));
    umax = fmax(umax, fabs(assembled.u[i]));
  }
  printf("%s box, %s: Newton %d / %d, PCG %d / %d (assembled / matrix-free), |du|/|u| %.2e\n",
         regular ? "regular" : "distorted", dt_precond_names[pc], assembled.newton, mf.newton,
         assembled.pcg, mf.pcg, du / umax);
  CHECK(du <= 1e-9 * umax, "matrix-free differs from assembled by %.3e relative", du / umax);
  CHECK(mf.newton == assembled.newton, "Newton %d matrix-free, %d assembled", mf.newton,
        assembled.newton);
  CHECK(50 * abs(mf.pcg - assembled.pcg) <= assembled.pcg, "PCG %d matrix-free, %d assembled",
        mf.pcg, assembled.pcg);
}

static void check_options(void) {
  for (int mf = 0; mf < 2; mf++) {
    dt_ctx ctx = {0};
    dt_model *m =
        unit_box(32, 32, 32, 0); /* 33^3 nodes: 107,811 DOFs, where auto picks two_level */
    m->solver.matrix_free = mf;
    CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(m->solver.precond == DT_PC_TWO_LEVEL, "auto with%s matrix_free gave %s", mf ? "" : "out",
          dt_precond_names[m->solver.precond]);
    dt_model_destroy(&m);
  }
}

/* What a backend holds after one stress update at a displacement that makes the far half of a
 * regular bar plastic (so both class and stored matrices are in use): z = M^-1 r of the
 * preconditioner pc, kx = K r, and on the CPU backend the number of stored element matrices
 * (-1 on others). mc: a Mohr-Coulomb material with the elastic tangent instead of J2. On the
 * backend DUCTILE_BACKEND names; z and kx have n_dofs values. */
typedef struct plastic_state {
  double z[3 * 2000], kx[3 * 2000];
  long n_own;
  int n;
} plastic_state;

static void at_plastic_state(int matrix_free, dt_precond_kind pc, int mc, plastic_state *out) {
  const char *name = getenv("DUCTILE_BACKEND") ? getenv("DUCTILE_BACKEND") : "cpu";
  const dt_backend_ops *ops = NULL;
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_stress_report rep;
  dt_model *m = regular_box(12, 6, 4, 1);
  if (mc) { /* tensile strength 2 c cos(phi) / (1 + sin(phi)) = 115 MPa: yields where x > 0.14 */
    dt_material_params *p = &m->materials[0].p;
    p->plastic = DT_PLASTIC_MOHR_COULOMB;
    p->mc_cohesion = 100.0;
    p->mc_friction_deg = 30.0;
    p->mc_dilation_deg = 0.0;
    p->mc_elastic_tangent = 1;
  }
  m->solver.matrix_free = matrix_free;
  m->solver.precond = pc;
  CHECK(dt_model_finish(m, &ctx) == DT_OK && dt_problem_create(m, &pb, &ctx) == DT_OK, "%s",
        ctx.msg);
  void *impl = unit_bar_plastic_state(name, pb, 0.0, 1.0, &ops, &rep);
  CHECK(rep.n_plastic > 0 && rep.n_plastic < pb->n_qp,
        "%d of %d points plastic: want some, not all", rep.n_plastic, pb->n_qp);
  CHECK(ops->tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->pc_setup(impl, pc, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->pc_apply(impl, DT_VEC_R, DT_VEC_PCG_Z, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->vec_get(impl, DT_VEC_PCG_Z, out->z, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->operator_apply(impl, DT_VEC_R, DT_VEC_W, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->vec_get(impl, DT_VEC_W, out->kx, &ctx) == DT_OK, "%s", ctx.msg);
  out->n_own = matrix_free && strcmp(ops->name, "cpu") == 0 ? ((const dt_cpu *)impl)->n_own : -1;
  out->n = pb->n_dofs;
  ops->destroy(impl);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

/* The two-level preconditioner's coarse matrix summed from the element matrices (class and
 * stored) is the one formed from the assembled tangent: M^-1 r agrees to 1e-10 relative. The
 * coarse correction must matter here (else the check would pass with any coarse matrix): it
 * changes M^-1 r by more than 10% against block Jacobi alone. */
static void check_two_level(void) {
  static plastic_state a, f, b;
  double d = 0.0, dc = 0.0, s = 0.0;
  at_plastic_state(0, DT_PC_TWO_LEVEL, 0, &a);
  at_plastic_state(1, DT_PC_TWO_LEVEL, 0, &f);
  at_plastic_state(1, DT_PC_BLOCK_JACOBI, 0, &b);
  for (int i = 0; i < a.n; i++) {
    d = fmax(d, fabs(f.z[i] - a.z[i]));
    dc = fmax(dc, fabs(a.z[i] - b.z[i]));
    s = fmax(s, fabs(a.z[i]));
  }
  printf(
      "two_level M^-1 r: matrix-free vs assembled %.2e relative; the coarse part %.2e relative\n",
      d / s, dc / s);
  CHECK(d <= 1e-10 * s, "matrix-free two_level differs from assembled by %.3e relative", d / s);
  CHECK(dc >= 0.1 * s, "the coarse correction changed M^-1 r by only %.3e relative", dc / s);
}

/* A material whose tangent stays elastic when it yields (Mohr-Coulomb with the elastic
 * tangent): plastic elements keep their class's matrix, so the CPU backend stores none, and
 * K x is the assembled operator's (1e-12 relative). With J2 at the same displacement it must
 * store some (else the first check proves nothing). */
static void check_elastic_tangent_material(void) {
  static plastic_state a, f, j;
  double d = 0.0, s = 0.0;
  at_plastic_state(0, DT_PC_BLOCK_JACOBI, 1, &a);
  at_plastic_state(1, DT_PC_BLOCK_JACOBI, 1, &f);
  at_plastic_state(1, DT_PC_BLOCK_JACOBI, 0, &j);
  for (int i = 0; i < a.n; i++) {
    d = fmax(d, fabs(f.kx[i] - a.kx[i]));
    s = fmax(s, fabs(a.kx[i]));
  }
  printf("Mohr-Coulomb, elastic tangent: K x matrix-free vs assembled %.2e relative; stored "
         "matrices %ld (J2: %ld)\n",
         d / s, f.n_own, j.n_own);
  CHECK(d <= 1e-12 * s, "K x differs by %.3e relative", d / s);
  CHECK(f.n_own <= 0 && (j.n_own < 0 || j.n_own > 0),
        "stored matrices: %ld with the elastic tangent, %ld with J2", f.n_own, j.n_own);
}

int main(void) {
  check_storage(8, 3);
  check_storage(9, 2);
  check_classes();
  check_options();
  check_solves(0, DT_PC_BLOCK_JACOBI);
  check_solves(1, DT_PC_JACOBI);
  check_two_level();
  check_elastic_tangent_material();
  check_solves(0, DT_PC_TWO_LEVEL);
  printf("matrix-free checks passed\n");
  return 0;
}
