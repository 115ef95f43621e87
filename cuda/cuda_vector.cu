/* Vector operations of the CUDA backend.
 *
 * lincomb and mul are one pass each; their products and sums are rounded separately
 * (__dmul_rn/__dadd_rn, no fused multiply-add) so they give the same bits as the CPU backend.
 * Dot products are deterministic: a fixed grid (a function of n only) with grid-stride loops,
 * a fixed-order block sum, per-block partials, and one block summing the partials in a fixed
 * order; only the 8-byte result crosses to the host. No atomics, so every run gives the same
 * bits (the CPU backend sums in another order, so the two agree to rounding only). */
#include "cuda_internal.h"

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_lincomb(int n, double *o, double a, const double *x, double b, const double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = __dadd_rn(__dmul_rn(a, x[i]), __dmul_rn(b, y[i])); /* o may alias x, y */
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_mul(int n, double *o, const double *x, const double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = __dmul_rn(x[i], y[i]);
}

__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_dot_partial(int n, const double *__restrict__ x, const double *__restrict__ y,
                  double *__restrict__ partial, const int *skip) {
  double s = 0.0;
  if (skip && *skip) return; /* the device-side PCG has stopped (cuda_pcg.cu) */
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += x[i] * y[i];
  s = dt_block_sum(s);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

/* One block: result[s] = sum of the grid partials of set s, in a fixed order. */
__global__ void __launch_bounds__(DT_CUDA_BLOCK) k_reduce_finish(int grid, int nsum, double *red) {
  for (int set = 0; set < nsum; set++) {
    double s = dt_partials_sum(red + set * DT_CUDA_RED_MAX_BLOCKS, grid);
    if (threadIdx.x == 0) red[2 * DT_CUDA_RED_MAX_BLOCKS + set] = s;
  }
}

dt_status dt_cuda_reduce_finish(dt_cuda *c, int grid, int nsum, double *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *pin = (double *)c->pinned;
  k_reduce_finish<<<1, DT_CUDA_BLOCK, 0, c->stream>>>(grid, nsum, c->red);
  DT_CUDA_LAUNCH_CHECK("k_reduce_finish", c->stream, ctx);
  DT_TRY(dt_cuda_d2h(c, pin, c->red + 2 * DT_CUDA_RED_MAX_BLOCKS, sizeof(double) * nsum, ctx));
  for (int s = 0; s < nsum; s++) out[s] = pin[s];
cleanup:
  return rc;
}

static int blocks(long n) { return (int)((n + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK); }

/* The vectors (zero), the constrained node list (device and host) and, with node incidences
 * (dt_cuda_problem), the per-incidence element forces. */
dt_status dt_cuda_vectors_alloc(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_state *s = &c->state;
  const dt_cuda_problem *p = &c->problem;
  s->h_con_nodes = (int *)dt_calloc((size_t)p->n_nodes, sizeof(int));
  DT_CHECK(s->h_con_nodes != NULL, ctx, DT_ERR_NOMEM,
           "out of memory allocating the constrained node list");
  if (p->node_inc) /* the slots the stress kernel and the matrix-free product fill: no zeros needed */
    DT_TRY(dt_cuda_alloc(c, (void **)&s->f_elem, sizeof(double) * (size_t)p->n_conn * p->dpn,
                         "element forces", ctx));
  for (int v = 0; v < DT_VEC_COUNT; v++) ZEROS(s->vec[v], (size_t)p->n_dofs, "solution vectors");
  ZEROS(s->con_nodes, p->n_nodes, "constrained nodes");
cleanup:
  return rc;
}

/* The host list (the device arrays go with dt_cuda_free_all). */
void dt_cuda_vectors_destroy(dt_cuda *c) {
  dt_free(c->state.h_con_nodes);
  c->state.h_con_nodes = NULL;
}

/* Setting the constraint flags also lists the nodes with a constrained DOF, in ascending order,
 * for the Dirichlet pass of the assembly (cuda_linear.cu). */
extern "C" dt_status dt_cuda_vec_set(void *impl, dt_vec_id v, const double *host, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  DT_TRY(dt_cuda_h2d(c, c->state.vec[v], host, sizeof(double) * (size_t)c->problem.n_dofs, ctx));
  if (v == DT_VEC_CON) {
    int n = 0;
    for (int a = 0; a < c->problem.n_nodes; a++) {
      int any = 0;
      for (int i = 0; i < c->problem.dpn; i++) any |= host[(long)a * c->problem.dpn + i] != 0.0;
      if (any) c->state.h_con_nodes[n++] = a;
    }
    if (n)
      DT_TRY(
          dt_cuda_h2d(c, c->state.con_nodes, c->state.h_con_nodes, sizeof(int) * (size_t)n, ctx));
    c->state.n_con_nodes = n;
  }
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_vec_get(void *impl, dt_vec_id v, double *host, dt_ctx *ctx) {
  dt_cuda *c = (dt_cuda *)impl;
  return dt_cuda_d2h(c, host, c->state.vec[v], sizeof(double) * (size_t)c->problem.n_dofs, ctx);
}

extern "C" dt_status dt_cuda_vec_lincomb(void *impl, dt_vec_id out, double a, dt_vec_id x, double b,
                                         dt_vec_id y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  int n = c->problem.n_dofs;
  k_lincomb<<<blocks(n), DT_CUDA_BLOCK, 0, c->stream>>>(n, c->state.vec[out], a, c->state.vec[x], b,
                                                        c->state.vec[y]);
  DT_CUDA_LAUNCH_CHECK("k_lincomb", c->stream, ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_vec_mul(void *impl, dt_vec_id out, dt_vec_id x, dt_vec_id y,
                                     dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  int n = c->problem.n_dofs;
  k_mul<<<blocks(n), DT_CUDA_BLOCK, 0, c->stream>>>(n, c->state.vec[out], c->state.vec[x],
                                                    c->state.vec[y]);
  DT_CUDA_LAUNCH_CHECK("k_mul", c->stream, ctx);
cleanup:
  return rc;
}

/* The sum of x[i] y[i] over i < n, by the deterministic reduction: the whole vector for the
 * vec_dot op, the owned prefix for a part of a split run. */
static dt_status dot_n(dt_cuda *c, dt_vec_id x, dt_vec_id y, int n, double *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int grid = dt_cuda_red_grid(n);
  k_dot_partial<<<grid, DT_CUDA_BLOCK, 0, c->stream>>>(n, c->state.vec[x], c->state.vec[y], c->red,
                                                       (const int *)0);
  DT_CUDA_LAUNCH_CHECK("k_dot_partial", c->stream, ctx);
  DT_TRY(dt_cuda_reduce_finish(c, grid, 1, out, ctx));
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_vec_dot(void *impl, dt_vec_id x, dt_vec_id y, double *out,
                                     dt_ctx *ctx) {
  dt_cuda *c = (dt_cuda *)impl;
  return dot_n(c, x, y, c->problem.n_dofs, out, ctx);
}

/* Part ops (backend.h dt_backend_part_ops). */

extern "C" double *dt_cuda_vec_data(void *impl, dt_vec_id v) {
  return ((dt_cuda *)impl)->state.vec[v];
}

extern "C" dt_status dt_cuda_vec_dot_n(void *impl, dt_vec_id x, dt_vec_id y, int n, double *out,
                                       dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  DT_CHECK(n >= 0 && n <= c->problem.n_dofs, ctx, DT_ERR_INTERNAL,
           "dot product over the first %d of %d entries", n, c->problem.n_dofs);
  DT_TRY(dot_n(c, x, y, n, out, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_load_vector_kernels(dt_ctx *ctx) {
  const void *k[] = {(const void *)k_lincomb, (const void *)k_mul, (const void *)k_dot_partial,
                     (const void *)k_reduce_finish};
  return dt_cuda_load_list(k, (int)(sizeof k / sizeof k[0]), NULL, ctx);
}
