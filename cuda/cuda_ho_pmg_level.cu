/* The device p-multigrid's operators and transfers (cuda_ho_pmg.h).
 *
 * Operators: a dt_cuda_ho computes v = K u on its own vectors in its own stream
 * (cuda_highorder_internal.h); here it reads and writes the caller's vectors instead (its u and
 * v pointers are lent for the one product and given back), and two events order its stream
 * after the caller's work and the caller's stream after its product, so nothing is copied and
 * the host never waits.
 *
 * Transfers: gathers over the explicit node matrices of dt_ho_pmg_transfer_matrices, one
 * thread per node and three components each: prolongation over P's row of a fine node, the
 * restriction over R = P^T's row of a coarse node (its fine nodes ascending). Each output is
 * written by one thread summing in a fixed order: no atomics, the same bits on every call.
 * Bytes per fine node: P's row (12 per entry, 1 to (p_c + 1)^3 entries: 3.4 on average from
 * order 2 to 1), the coarse values it reads (cached: each is read by its neighbours too), the
 * fine value written; the restriction the same in the other direction. */
#include "cuda_ho_pmg_internal.h"

extern "C" dt_status dt_cuda_ho_apply_in(dt_cuda_ho *h, void *stream, const double *d_x,
                                         double *d_y, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaStream_t s = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  cudaEvent_t ev = NULL;
  double *u = h->u, *v = h->v;
  DT_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), ctx);
  DT_CUDA_CHECK(cudaEventRecord(ev, s), ctx);
  DT_CUDA_CHECK(cudaStreamWaitEvent(h->stream, ev, 0), ctx);
  h->u = (double *)d_x;
  h->v = d_y;
  rc = dt_cuda_ho_apply_device(h, ctx);
  h->u = u;
  h->v = v;
  if (rc != DT_OK) goto cleanup;
  DT_CUDA_CHECK(cudaEventRecord(ev, h->stream), ctx);
  DT_CUDA_CHECK(cudaStreamWaitEvent(s, ev, 0), ctx);
cleanup:
  if (ev) cudaEventDestroy(ev); /* released once the waits it was given are done */
  return rc;
}

dt_status dt_cuda_pmg_level_apply(dt_cuda_ho_pmg *pc, int l, const double *d_x, double *d_y,
                                  dt_ctx *ctx) {
  dt_status rc = DT_OK;
  pmg_level *L = &pc->lev[l];
  double *u = NULL, *v = NULL;
  if (L->apply) return L->apply(L->op, d_x, d_y, ctx);
  dt_cuda_ho *h = L->ho;
  u = h->u, v = h->v;
  DT_CUDA_CHECK(cudaEventRecord(pc->ev_in, pc->s), ctx);
  DT_CUDA_CHECK(cudaStreamWaitEvent(h->stream, pc->ev_in, 0), ctx);
  h->u = (double *)d_x;
  h->v = d_y;
  rc = dt_cuda_ho_apply_device(h, ctx);
  h->u = u;
  h->v = v;
  if (rc != DT_OK) goto cleanup;
  DT_CUDA_CHECK(cudaEventRecord(pc->ev_out, h->stream), ctx);
  DT_CUDA_CHECK(cudaStreamWaitEvent(pc->s, pc->ev_out, 0), ctx);
cleanup:
  return rc;
}

static dt_status upload_ncsr(dt_cuda_ho_pmg *pc, const dt_ho_pmg_node_csr *H, pmg_ncsr *D,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  D->n_rows = H->n_rows;
  D->nnz = H->ptr[H->n_rows];
  DT_TRY(dt_cuda_pmg_upload(pc, (void **)&D->ptr, H->ptr, sizeof(int) * ((size_t)D->n_rows + 1),
                            "p-multigrid transfer", ctx));
  DT_TRY(dt_cuda_pmg_upload(pc, (void **)&D->col, H->col, sizeof(int) * (size_t)D->nnz,
                            "p-multigrid transfer", ctx));
  DT_TRY(dt_cuda_pmg_upload(pc, (void **)&D->w, H->w, sizeof(double) * (size_t)D->nnz,
                            "p-multigrid transfer", ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_pmg_transfer_upload(dt_cuda_ho_pmg *pc, const dt_ho_pmg *host, int l,
                                      dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_pmg_node_csr P = {0, NULL, NULL, NULL}, R = {0, NULL, NULL, NULL};
  DT_TRY(dt_ho_pmg_transfer_matrices(host, l, &P, &R, ctx));
  DT_TRY(upload_ncsr(pc, &P, &pc->lev[l].P, ctx));
  DT_TRY(upload_ncsr(pc, &R, &pc->lev[l].R, ctx));
cleanup:
  dt_ho_pmg_node_csr_free(&P);
  dt_ho_pmg_node_csr_free(&R);
  return rc;
}

/* out[3 i + c] = sum_k w[k] in[3 col[k] + c] over row i, for its three components; with mask,
 * zero where mask is set; with add, added to out (on unmasked DOFs only). */
static __global__ void __launch_bounds__(PMG_BLOCK)
    k_pmg_gather(int n_rows, const int *__restrict__ ptr, const int *__restrict__ col,
                 const double *__restrict__ w, const double *__restrict__ in,
                 const unsigned char *__restrict__ mask, int add, double *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_rows) return;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (int k = ptr[i]; k < ptr[i + 1]; k++) {
    const double *x = in + 3 * (size_t)col[k];
    double wk = w[k];
    s0 += wk * x[0], s1 += wk * x[1], s2 += wk * x[2];
  }
  double s[3] = {s0, s1, s2};
  for (int c = 0; c < 3; c++) {
    size_t j = 3 * (size_t)i + c;
    if (mask && mask[j])
      out[j] = add ? out[j] : 0.0;
    else
      out[j] = add ? out[j] + s[c] : s[c];
  }
}

static dt_status gather(dt_cuda_ho_pmg *pc, const pmg_ncsr *A, const double *in,
                        const unsigned char *mask, int add, double *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (A->n_rows == 0) return DT_OK;
  k_pmg_gather<<<pmg_grid(A->n_rows), PMG_BLOCK, 0, pc->s>>>(A->n_rows, A->ptr, A->col, A->w, in,
                                                             mask, add, out);
  DT_CUDA_LAUNCH_CHECK("k_pmg_gather", pc->s, ctx);
cleanup:
  return rc;
}

dt_status dt_cuda_pmg_restrict_masked(dt_cuda_ho_pmg *pc, int l, const double *d_y, double *d_xc,
                                      const unsigned char *fixed_c, dt_ctx *ctx) {
  return gather(pc, &pc->lev[l].R, d_y, fixed_c, 0, d_xc, ctx);
}

dt_status dt_cuda_pmg_prolong_add(dt_cuda_ho_pmg *pc, int l, const double *d_xc, double *d_y,
                                  const unsigned char *fixed_f, dt_ctx *ctx) {
  return gather(pc, &pc->lev[l].P, d_xc, fixed_f, fixed_f != NULL, d_y, ctx);
}

static dt_status check_level(const dt_cuda_ho_pmg *pc, int l, dt_ctx *ctx) {
  if (l < 0 || l + 1 >= pc->n_levels)
    return DT_ERROR(ctx, DT_ERR_INPUT, "p-multigrid: no transfer below level %d of %d", l,
                    pc->n_levels);
  return DT_OK;
}

extern "C" dt_status dt_cuda_ho_pmg_prolong(dt_cuda_ho_pmg *pc, int l, const double *d_xc,
                                            double *d_y, dt_ctx *ctx) {
  dt_status rc = check_level(pc, l, ctx);
  return rc != DT_OK ? rc : gather(pc, &pc->lev[l].P, d_xc, NULL, 0, d_y, ctx);
}

extern "C" dt_status dt_cuda_ho_pmg_restrict(dt_cuda_ho_pmg *pc, int l, const double *d_y,
                                             double *d_xc, dt_ctx *ctx) {
  dt_status rc = check_level(pc, l, ctx);
  return rc != DT_OK ? rc : gather(pc, &pc->lev[l].R, d_y, NULL, 0, d_xc, ctx);
}
