/* The compiled problem: CSR pattern, per-element CSR positions, colouring; and the CPU
 * backend's tangent (symmetric, rigid-body modes in its null space) and PCG.
 * References: exact properties of the discrete operators (no tolerance beyond round-off). */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend/backend.h"
#include "problem/problem.h"
#include "unit_model.h"

extern const dt_backend_ops dt_cpu_ops;

static void check_pattern(const dt_problem *pb) {
  dt_ctx ctx = {0};
  int *row_ptr = NULL, *col = NULL, *pos = NULL;
  CHECK(pb->row_ptr == NULL && pb->col == NULL, "dt_problem_create made the scalar CSR arrays");
  CHECK(dt_problem_csr(pb, &row_ptr, &col, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(row_ptr[pb->n_dofs] == pb->nnz, "CSR holds %d nonzeros, nnz says %lld", row_ptr[pb->n_dofs],
        (long long)pb->nnz);
  for (int row = 0; row < pb->n_dofs; row++) {
    CHECK(row_ptr[row + 1] > row_ptr[row], "row %d empty", row);
    for (int k = row_ptr[row] + 1; k < row_ptr[row + 1]; k++)
      CHECK(col[k] > col[k - 1], "row %d columns not sorted", row);
  }
  /* Every element DOF pair is in the pattern, at the position elem_pos says. */
  CHECK(pb->elem_pos == NULL, "dt_problem_create made the element positions");
  CHECK(dt_problem_positions(pb, &pos, &ctx) == DT_OK, "%s", ctx.msg);
  for (int e = 0; e < pb->n_elems; e++) {
    const int *c = pb->conn + pb->elem_ptr[e];
    int npe = pb->elem_ptr[e + 1] - pb->elem_ptr[e];
    for (int A = 0; A < npe; A++)
      for (int B = 0; B < npe; B++)
        for (int i = 0; i < pb->dpn; i++)
          for (int j = 0; j < pb->dpn; j++) {
            int64_t k = row_ptr[c[A] * pb->dpn + i] +
                        (int64_t)pos[pb->elem_pos_ptr[e] + A * npe + B] * pb->dpn + j;
            CHECK(col[k] == c[B] * pb->dpn + j, "element %d pair (%d,%d) misplaced", e, A, B);
            CHECK(dt_problem_csr_index(pb, row_ptr, c[A], i, c[B], j) == k, "csr_index disagrees");
          }
  }
  dt_free(row_ptr);
  dt_free(col);
  dt_free(pos);
}

/* A tangent past 2^31 scalar nonzeros (30M hex8 DOFs have 2.4 billion) is a valid problem: its
 * count is 64-bit and only the scalar CSR, with 32-bit offsets, refuses it, saying which
 * storage does hold it. The count is faked on a small problem (building one takes 20 GB). */
static void check_scalar_csr_limit(dt_problem *pb) {
  dt_ctx ctx = {0};
  int *row_ptr = NULL, *col = NULL;
  int64_t nnz = pb->nnz;
  pb->nnz = (int64_t)2426275224;
  CHECK(dt_problem_csr(pb, &row_ptr, &col, &ctx) == DT_ERR_UNSUPPORTED,
        "a scalar CSR of 2426275224 nonzeros was accepted");
  CHECK(strstr(ctx.msg, "2426275224") && strstr(ctx.msg, "CUDA backend"), "message: %s", ctx.msg);
  CHECK(row_ptr == NULL && col == NULL, "arrays returned on failure");
  pb->nnz = nnz;
}

static void check_colouring(const dt_problem *pb) {
  int *seen = calloc((size_t)pb->n_nodes, sizeof(int));
  int *count = calloc((size_t)pb->n_elems, sizeof(int));
  for (int c = 0; c < pb->n_colors; c++) {
    for (int k = pb->color_ptr[c]; k < pb->color_ptr[c + 1]; k++) {
      int e = pb->color_elems[k];
      count[e]++;
      for (int j = pb->elem_ptr[e]; j < pb->elem_ptr[e + 1]; j++) {
        CHECK(seen[pb->conn[j]] != c + 1, "colour %d: two elements share node %d", c, pb->conn[j]);
        seen[pb->conn[j]] = c + 1;
      }
    }
  }
  for (int e = 0; e < pb->n_elems; e++)
    CHECK(count[e] == 1, "element %d coloured %d times", e, count[e]);
  free(seen);
  free(count);
}

static int same_ints(const int *a, const int *b, int64_t n) {
  return n == 0 || memcmp(a, b, sizeof(int) * (size_t)n) == 0;
}

/* The node -> element map with incidences (the CUDA backend sums f_int node by node through
 * it): every (element, node) incidence listed once under its node, elements ascending. */
static void check_node_incidences(const dt_problem *pb) {
  dt_ctx ctx = {0};
  int *ptr = NULL, *list = NULL, *inc = NULL;
  int *seen = calloc((size_t)pb->elem_ptr[pb->n_elems], sizeof(int));
  CHECK(dt_problem_node_elements(pb, &ptr, &list, &inc, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(ptr[pb->n_nodes] == pb->elem_ptr[pb->n_elems], "%d entries for %d incidences",
        ptr[pb->n_nodes], pb->elem_ptr[pb->n_elems]);
  for (int a = 0; a < pb->n_nodes; a++)
    for (int k = ptr[a]; k < ptr[a + 1]; k++) {
      CHECK(pb->conn[inc[k]] == a, "node %d: incidence %d holds node %d", a, inc[k],
            pb->conn[inc[k]]);
      CHECK(inc[k] >= pb->elem_ptr[list[k]] && inc[k] < pb->elem_ptr[list[k] + 1],
            "node %d: incidence %d is not in element %d", a, inc[k], list[k]);
      CHECK(k == ptr[a] || list[k] > list[k - 1], "node %d: elements not ascending", a);
      seen[inc[k]]++;
    }
  for (int k = 0; k < pb->elem_ptr[pb->n_elems]; k++)
    CHECK(seen[k] == 1, "incidence %d seen %d times", k, seen[k]);
  /* the problem keeps the map its pattern was built from: the same one */
  CHECK(same_ints(pb->node_elem_ptr, ptr, pb->n_nodes + 1),
        "the problem's node-element offsets differ");
  CHECK(same_ints(pb->node_elem, list, ptr[pb->n_nodes]),
        "the problem's node-element lists differ");
  CHECK(same_ints(pb->node_inc, inc, ptr[pb->n_nodes]), "the problem's node incidences differ");
  dt_free(ptr);
  dt_free(list);
  dt_free(inc);
  free(seen);
}

/* K (no constraints) must be symmetric and annihilate the six rigid-body modes. */
static void check_tangent(const dt_problem *pb) {
  dt_ctx ctx = {0};
  void *impl = NULL;
  dt_backend_options bo = {.threads = 1, .device = 0};
  dt_stress_report rep;
  int n = pb->n_dofs;
  double *v = calloc((size_t)n, sizeof(double)), *w = calloc((size_t)n, sizeof(double));
  double kmax = 0.0, asym = 0.0;
  CHECK(dt_cpu_ops.problem_upload(pb, &bo, &impl, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.stress_update(impl, DT_VEC_UT, DT_VEC_FINT, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_cpu_ops.tangent_assemble(impl, &ctx) == DT_OK, "%s", ctx.msg); /* CON = 0: free */
  for (int mode = 0; mode < 6; mode++) {
    double rmax = 0.0;
    for (int a = 0; a < pb->n_nodes; a++) {
      const double *x = pb->x + 3 * a;
      double r[3] = {0, 0, 0};
      if (mode < 3)
        r[mode] = 1.0;
      else { /* rotation about axis mode-3: omega x x */
        int ax = mode - 3, p = (ax + 1) % 3, q = (ax + 2) % 3;
        r[p] = -x[q], r[q] = x[p];
      }
      for (int i = 0; i < 3; i++) v[3 * a + i] = r[i];
    }
    CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_X, v, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_cpu_ops.operator_apply(impl, DT_VEC_X, DT_VEC_R, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_cpu_ops.vec_get(impl, DT_VEC_R, w, &ctx) == DT_OK, "%s", ctx.msg);
    for (int i = 0; i < n; i++) rmax = fmax(rmax, fabs(w[i]));
    CHECK(rmax < 1e-9 * 200000.0 /* E: scale of K entries */,
          "rigid mode %d not in the null space: |K r| = %g", mode, rmax);
  }
  /* Symmetry: K e_j gives column j; compare the dense matrix with its transpose. */
  double *K = calloc((size_t)n * n, sizeof(double));
  for (int j = 0; j < n; j++) {
    memset(v, 0, sizeof(double) * n);
    v[j] = 1.0;
    CHECK(dt_cpu_ops.vec_set(impl, DT_VEC_X, v, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_cpu_ops.operator_apply(impl, DT_VEC_X, DT_VEC_R, &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_cpu_ops.vec_get(impl, DT_VEC_R, K + (size_t)j * n, &ctx) == DT_OK, "%s", ctx.msg);
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      kmax = fmax(kmax, fabs(K[(size_t)i * n + j]));
      asym = fmax(asym, fabs(K[(size_t)i * n + j] - K[(size_t)j * n + i]));
    }
  CHECK(asym <= 1e-12 * kmax, "tangent not symmetric: %g vs %g", asym, kmax);
  free(K);
  dt_cpu_ops.destroy(impl);
  free(v);
  free(w);
}

/* The pattern is built in parallel (problem_pattern.c): 1 and 4 threads must give the same
 * node-element map, neighbour lists, element positions and scalar CSR, int for int. */
static void check_thread_independence(void) {
#ifdef _OPENMP
  dt_ctx ctx = {0};
  dt_problem *pb[2] = {NULL, NULL};
  int *row_ptr[2] = {NULL, NULL}, *col[2] = {NULL, NULL}, *pos[2] = {NULL, NULL};
  dt_model *m = unit_box(9, 7, 5, 0);
  int saved = omp_get_max_threads();
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  for (int k = 0; k < 2; k++) {
    omp_set_num_threads(k == 0 ? 1 : 4);
    CHECK(dt_problem_create(m, &pb[k], &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_problem_csr(pb[k], &row_ptr[k], &col[k], &ctx) == DT_OK, "%s", ctx.msg);
    CHECK(dt_problem_positions(pb[k], &pos[k], &ctx) == DT_OK, "%s", ctx.msg);
  }
  omp_set_num_threads(saved);
  CHECK(pb[0]->nnz == pb[1]->nnz, "nnz %lld with 1 thread, %lld with 4", (long long)pb[0]->nnz,
        (long long)pb[1]->nnz);
  CHECK(same_ints(pb[0]->node_elem_ptr, pb[1]->node_elem_ptr, pb[0]->n_nodes + 1),
        "node-element offsets differ");
  CHECK(same_ints(pb[0]->node_elem, pb[1]->node_elem, pb[0]->node_elem_ptr[pb[0]->n_nodes]),
        "node-element lists differ");
  CHECK(same_ints(pb[0]->node_inc, pb[1]->node_inc, pb[0]->node_elem_ptr[pb[0]->n_nodes]),
        "node incidences differ");
  CHECK(same_ints(pb[0]->node_nbr_ptr, pb[1]->node_nbr_ptr, pb[0]->n_nodes + 1),
        "neighbour offsets differ");
  CHECK(same_ints(pb[0]->node_nbr, pb[1]->node_nbr, pb[0]->node_nbr_ptr[pb[0]->n_nodes]),
        "neighbour lists differ");
  CHECK(same_ints(pos[0], pos[1], pb[0]->elem_pos_ptr[pb[0]->n_elems]), "element positions differ");
  CHECK(same_ints(row_ptr[0], row_ptr[1], pb[0]->n_dofs + 1), "CSR row offsets differ");
  CHECK(same_ints(col[0], col[1], pb[0]->nnz), "CSR columns differ");
  check_pattern(pb[1]);
  for (int k = 0; k < 2; k++) {
    dt_free(row_ptr[k]);
    dt_free(col[k]);
    dt_free(pos[k]);
    dt_problem_destroy(&pb[k]);
  }
  dt_model_destroy(&m);
#endif
}

int main(void) {
  dt_ctx ctx = {0};
  dt_problem *pb = NULL;
  dt_model *m = unit_box(4, 3, 2, 0);
  CHECK(dt_model_finish(m, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_problem_create(m, &pb, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(pb->n_dofs == 3 * 5 * 4 * 3, "n_dofs %d", pb->n_dofs);
  /* interior node of a hex grid has 27 neighbours: nnz = sum over nodes of 9 * neighbours */
  CHECK(pb->n_colors == 8, "a structured hex grid needs 8 colours, got %d", pb->n_colors);
  check_pattern(pb);
  check_scalar_csr_limit(pb);
  check_colouring(pb);
  check_node_incidences(pb);
  check_tangent(pb);
  check_thread_independence();
  dt_problem_destroy(&pb);
  CHECK(pb == NULL, "destroy must clear the handle");
  dt_problem_destroy(&pb); /* NULL-safe */
  dt_model_destroy(&m);
  return 0;
}
