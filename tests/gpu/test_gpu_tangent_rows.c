/* The write-once block-row tangent of the CUDA backend (cuda/cuda_tangent_rows.cu) against the
 * colour kernel it replaces on meshes of congruent hex8 elements, and against the CPU backend.
 *
 * At a plastic state (unit_bar_plastic_state: a box clamped at x = 0, a displacement field that
 * yields its far half) and at an elastic one (the same field scaled by 0.01: every element takes
 * the kernel's elastic path, K = mu Z + (K - 2/3 mu) X from class sums), K r through the backend
 * interface (tangent_assemble, then operator_apply: the assembled values, Dirichlet rows and
 * columns included) must agree, relative to |K r|:
 *   - block rows against the colour kernel (backend option tangent "colour"): 1e-12;
 *   - block rows against the CPU backend: 1e-12;
 * with isotropic and with kinematic hardening (the back stress enters the flow direction), and
 * two assemblies of the same state must give the same bits. The backend's view must name the
 * path taken: block rows for the regular box, the colour kernel (with the reason) when asked for
 * it and for a distorted box, whose elements are not translated copies of each other (there
 * the CPU agreement is checked too). Skips (77) without a CUDA device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cuda/cuda_entry.h"
#include "problem/problem.h"
#include "../unit/unit_model.h"

#define NX 12
#define NY 6
#define NZ 4
#define MAX_DOFS (3 * (NX + 1) * (NY + 1) * (NZ + 1))

typedef struct kr_result {
  double kx[MAX_DOFS], kx_again[MAX_DOFS];
  int n, n_plastic, n_qp;
  char view[2048];
} kr_result;

/* K r at the plastic state (elastic: scaled to stay elastic) on backend `name` (the CUDA tangent
 * path as tangent says: DT_CUDA_TANGENT_AUTO for the default); regular: the box without
 * unit_box's distortion; kinematic: half of the hardening kinematic. */
static void k_times_r(const char *name, dt_cuda_tangent tangent, int regular, int kinematic,
                      int elastic, kr_result *out) {
  dt_backend_options bo = {.threads = 1, .device = 0, .cuda_tangent = tangent};
  const dt_backend_ops *ops = NULL;
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_stress_report rep;
  dt_model *m = unit_box(NX, NY, NZ, 1);
  if (regular)
    for (int a = 0; a < m->n_nodes; a++) m->x[3 * a] -= 0.05 * m->x[3 * a + 1] * m->x[3 * a + 2];
  if (kinematic) m->materials[0].p.H_kin = 0.5 * m->materials[0].p.H, m->materials[0].p.H *= 0.5;
  CHECK(dt_model_finish(m, &ctx) == DT_OK && dt_problem_create(m, &pb, &ctx) == DT_OK, "%s",
        ctx.msg);
  CHECK(pb->n_dofs <= MAX_DOFS, "%d DOFs", pb->n_dofs);
  void *impl =
      unit_bar_plastic_state_with(name, pb, -0.0004, elastic ? 0.01 : 1.0, &bo, &ops, &rep);
  for (int pass = 0; pass < 2; pass++) {
    CHECK(ops->tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(ops->operator_apply(impl, DT_VEC_R, DT_VEC_W, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(ops->vec_get(impl, DT_VEC_W, pass ? out->kx_again : out->kx, &ctx) == DT_OK, "%s",
          ctx.msg);
  }
  FILE *f = fmemopen(out->view, sizeof out->view - 1, "w");
  CHECK(f != NULL, "fmemopen");
  ops->view(impl, f);
  fclose(f);
  out->n = pb->n_dofs;
  out->n_plastic = rep.n_plastic;
  out->n_qp = pb->n_qp;
  ops->destroy(impl);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

/* max |a - b| / max |b| */
static double rel_diff(const double *a, const double *b, int n) {
  double d = 0.0, s = 0.0;
  for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
  return d / s;
}

static void check_case(int regular, int kinematic, int elastic) {
  static kr_result rows, colour, cpu;
  const char *what = elastic   ? "regular box, elastic"
                     : regular ? (kinematic ? "regular box, kinematic" : "regular box")
                               : "distorted box";
  k_times_r("cuda", DT_CUDA_TANGENT_AUTO, regular, kinematic, elastic, &rows);
  k_times_r("cuda", DT_CUDA_TANGENT_COLOUR, regular, kinematic, elastic, &colour);
  k_times_r("cpu", DT_CUDA_TANGENT_AUTO, regular, kinematic, elastic, &cpu);
  if (elastic)
    CHECK(rows.n_plastic == 0, "%s: %d of %d points plastic: want none", what, rows.n_plastic,
          rows.n_qp);
  else
    CHECK(rows.n_plastic > 0 && rows.n_plastic < rows.n_qp,
          "%s: %d of %d points plastic: want some, not all", what, rows.n_plastic, rows.n_qp);
  CHECK(strstr(colour.view, "backend_options.tangent is \"colour\"") != NULL,
        "%s: the view does not say the colour kernel was asked for:\n%s", what, colour.view);
  if (regular)
    CHECK(strstr(rows.view, "written once by block rows") != NULL, "%s: block rows not used:\n%s",
          what, rows.view);
  else
    CHECK(strstr(rows.view, "is not a translated copy of element 0") != NULL,
          "%s: the view does not say why block rows are not used:\n%s", what, rows.view);
  double d_colour = rel_diff(rows.kx, colour.kx, rows.n), d_cpu = rel_diff(rows.kx, cpu.kx, rows.n);
  CHECK(d_colour <= 1e-12, "%s: K r, block rows against the colour kernel: %.3e", what, d_colour);
  CHECK(d_cpu <= 1e-12, "%s: K r, CUDA against CPU: %.3e", what, d_cpu);
  CHECK(memcmp(rows.kx, rows.kx_again, sizeof(double) * (size_t)rows.n) == 0,
        "%s: two assemblies differ", what);
  printf("%s: %d of %d points plastic; K r against the colour kernel %.2e, against the CPU %.2e; "
         "repeat "
         "bit-identical\n",
         what, rows.n_plastic, rows.n_qp, d_colour, d_cpu);
}

int main(void) {
  char why[256] = "";
  if (!dt_cuda_available(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  check_case(1, 0, 0);
  check_case(1, 1, 0);
  check_case(1, 0, 1);
  check_case(0, 0, 0);
  printf("block-row tangent checks passed\n");
  return 0;
}
