/* The CUDA backend's SpMV by row ranges (cuda_linear.cu, DT_CUDA_SPMV_PARTS_MAX). cuSPARSE's
 * BSR product with 32-bit indices cannot address more than 2^31 values, so a larger tangent
 * (30M hex8 DOFs: 2.4 billion) is multiplied range by range. Ranges that small need a model of
 * 20 GB, so DUCTILE_CUDA_SPMV_PART_VALUES lowers the range size here to cut a small box's
 * tangent into several ranges. Each output row is computed from its own block row alone, so
 * K r must be bit-identical to the product in one piece, at a plastic state (the box of
 * unit_bar_plastic_state) and after a full PCG solve through the operator. Reference: the
 * one-piece product of the same backend; tolerance: none (bits). Skips (77) without a device. */
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
  double kx[MAX_DOFS];
  int n;
  char view[2048];
} kr_result;

static void k_times_r(const char *part_values, kr_result *out) {
  dt_backend_options bo = {.threads = 1, .device = 0};
  const dt_backend_ops *ops = NULL;
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_stress_report rep;
  dt_model *m = unit_box(NX, NY, NZ, 1);
  if (part_values)
    setenv("DUCTILE_CUDA_SPMV_PART_VALUES", part_values, 1);
  else
    unsetenv("DUCTILE_CUDA_SPMV_PART_VALUES");
  CHECK(dt_model_finish(m, &ctx) == DT_OK && dt_problem_create(m, &pb, &ctx) == DT_OK, "%s",
        ctx.msg);
  CHECK(pb->n_dofs <= MAX_DOFS, "%d DOFs", pb->n_dofs);
  void *impl = unit_bar_plastic_state_with("cuda", pb, -0.0004, 1.0, &bo, &ops, &rep);
  CHECK(rep.n_plastic > 0, "the state is not plastic");
  CHECK(ops->tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->operator_apply(impl, DT_VEC_R, DT_VEC_W, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ops->vec_get(impl, DT_VEC_W, out->kx, &ctx) == DT_OK, "%s", ctx.msg);
  FILE *f = fmemopen(out->view, sizeof out->view - 1, "w");
  CHECK(f != NULL, "fmemopen");
  ops->view(impl, f);
  fclose(f);
  out->n = pb->n_dofs;
  ops->destroy(impl);
  dt_problem_destroy(&pb);
  dt_model_destroy(&m);
}

int main(void) {
  static kr_result whole, parts;
  char why[256] = "";
  if (!dt_cuda_available(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  k_times_r(NULL, &whole);
  k_times_r("20000", &parts);
  CHECK(strstr(whole.view, ", 1 row range\n") != NULL, "one piece expected:\n%s", whole.view);
  const char *r = strstr(parts.view, " row ranges of fewer than 2^31 values each");
  CHECK(r != NULL, "several ranges expected:\n%s", parts.view);
  CHECK(memcmp(whole.kx, parts.kx, sizeof(double) * (size_t)whole.n) == 0,
        "K r by row ranges differs from the product in one piece");
  setenv("DUCTILE_CUDA_SPMV_PART_VALUES", "12", 1);
  {
    dt_ctx ctx = {0};
    dt_problem *pb = NULL;
    const dt_backend_ops *ops = NULL;
    void *impl = NULL;
    dt_backend_options bo = {.threads = 1, .device = 0};
    dt_model *m = unit_box(4, 3, 2, 0);
    CHECK(dt_model_finish(m, &ctx) == DT_OK && dt_problem_create(m, &pb, &ctx) == DT_OK, "%s",
          ctx.msg);
    char note[256];
    CHECK(dt_backend_find("cuda", &ops, note, sizeof note, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(ops->problem_upload(pb, &bo, &impl, &ctx) == DT_ERR_INPUT &&
              strstr(ctx.msg, "DUCTILE_CUDA_SPMV_PART_VALUES"),
          "a range of 12 values was accepted: %s", ctx.msg);
    if (impl) ops->destroy(impl);
    dt_problem_destroy(&pb);
    dt_model_destroy(&m);
  }
  printf("K r by row ranges bit-identical to one piece (%d DOFs)\n", whole.n);
  return 0;
}
