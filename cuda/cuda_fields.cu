/* Per-point state of the CUDA backend: commit (trial -> committed) when an increment
 * converges, rollback (committed -> trial) on a cutback, both device-to-device copies; and the
 * once-per-increment download of the requested committed fields, from the device's structure
 * of arrays into the caller's point-major host arrays (qp_stress[q * 6 + k] etc.). */
#ifdef DUCTILE_TEST_HOOKS
#include <stdlib.h>
#include <unistd.h>
#endif

#include "cuda_internal.h"

/* The per-point arrays, zero: history, stress and strain (committed and trial), the tangent form
 * and, for DT_CUDA_EL_D meshes, each point's D. */
dt_status dt_cuda_points_alloc(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_state *s = &c->state;
  size_t nq = (size_t)c->problem.n_qp;
  ZEROS(s->hist_c, nq * DT_MAT_STATE_DOUBLES, "integration point history");
  ZEROS(s->hist_t, nq * DT_MAT_STATE_DOUBLES, "integration point history");
  ZEROS(s->sig_c, nq * 6, "integration point stresses");
  ZEROS(s->sig_t, nq * 6, "integration point stresses");
  ZEROS(s->eps_c, nq * 6, "integration point strains");
  ZEROS(s->eps_t, nq * 6, "integration point strains");
  ZEROS(s->tan_t, nq * DT_TANGENT_FORM_STORED, "integration point tangents");
  if (c->problem.el_variants & DT_CUDA_EL_D)
    ZEROS(s->tan_d, nq * DT_CUDA_D_DOUBLES, "integration point tangent matrices");
cleanup:
  return rc;
}

static dt_status copy_state(dt_cuda *c, int commit, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t nq = (size_t)c->problem.n_qp;
  const dt_cuda_state *s = &c->state;
  double *src[3] = {s->hist_t, s->sig_t, s->eps_t}, *dst[3] = {s->hist_c, s->sig_c, s->eps_c};
  size_t n[3] = {nq * DT_MAT_STATE_DOUBLES, nq * 6, nq * 6};
  for (int i = 0; i < 3; i++)
    DT_CUDA_CHECK(cudaMemcpyAsync(commit ? dst[i] : src[i], commit ? src[i] : dst[i],
                                  sizeof(double) * n[i], cudaMemcpyDeviceToDevice, c->stream),
                  ctx);
cleanup:
  return rc;
}

#ifdef DUCTILE_TEST_HOOKS
/* Writes where no memory is: the device fault that leaves a context unusable. */
__global__ void k_fault(double *nowhere) { nowhere[threadIdx.x] = 1.0; }

/* Test hook for the daemon's recovery from device faults (tests/server/test_daemon_gpu.py),
 * compiled only into builds with DUCTILE_TEST_HOOKS (the top-level CMakeLists.txt): when
 * DUCTILE_CUDA_FAULT_FILE names a file that exists, the next commit removes it and launches
 * k_fault. The file makes it happen once, at a moment the test picks, and not again in the
 * process that the daemon restarts into. Unset, it costs one getenv per commit. */
static void fault_if_asked(dt_cuda *c) {
  const char *path = getenv("DUCTILE_CUDA_FAULT_FILE");
  if (path && *path && unlink(path) == 0) k_fault<<<1, 32, 0, c->stream>>>((double *)0x10);
}
#else
static void fault_if_asked(dt_cuda *c) { (void)c; }
#endif

extern "C" dt_status dt_cuda_state_commit(void *impl, dt_ctx *ctx) {
  fault_if_asked((dt_cuda *)impl);
  return copy_state((dt_cuda *)impl, 1, ctx);
}

/* The trial arrays are always recomputed from the committed ones; resetting them keeps
 * downloads consistent (as the CPU backend does). */
extern "C" dt_status dt_cuda_state_rollback(void *impl, dt_ctx *ctx) {
  return copy_state((dt_cuda *)impl, 0, ctx);
}

/* out[q * ncomp + k] = src[k * nq + q]: the point-major layout of the host fields. */
__global__ void k_soa_to_points(const double *__restrict__ src, int ncomp, long nq,
                                double *__restrict__ out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nq * ncomp) out[i] = src[(i % ncomp) * nq + i / ncomp];
}

/* Download the ncomp SoA components of the committed array src (component k at src + k * nq)
 * into the point-major host array out. The reordering runs on the device, into the matching
 * trial array, which is dead between a commit and the next stress update (that update
 * recomputes it from the committed state) and is reset to the committed values afterwards
 * (trial == committed after a commit, as the CPU backend keeps it): one copy straight into
 * the caller's array, with no host scratch to page in and no host loop (C5's stress field:
 * 584 MB). */
static dt_status download_points(dt_cuda *c, const double *src, double *trial, int ncomp,
                                 double *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  long nq = c->problem.n_qp, n = nq * ncomp;
  if (n == 0) return DT_OK;
  k_soa_to_points<<<(unsigned)((n + DT_CUDA_BLOCK - 1) / DT_CUDA_BLOCK), DT_CUDA_BLOCK, 0,
                    c->stream>>>(src, ncomp, nq, trial);
  DT_CUDA_LAUNCH_CHECK("k_soa_to_points", c->stream, ctx);
  DT_TRY(dt_cuda_d2h(c, out, trial, sizeof(double) * (size_t)n, ctx));
  DT_CUDA_CHECK(
      cudaMemcpyAsync(trial, src, sizeof(double) * (size_t)n, cudaMemcpyDeviceToDevice, c->stream),
      ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_fields_download(void *impl, unsigned what, dt_fields *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  size_t nq = (size_t)c->problem.n_qp;
  (void)what; /* like the CPU backend: the non-NULL arrays of f say what is wanted */
  if (f->qp_stress)
    DT_TRY(download_points(c, c->state.sig_c, c->state.sig_t, 6, f->qp_stress, ctx));
  if (f->qp_strain)
    DT_TRY(download_points(c, c->state.eps_c, c->state.eps_t, 6, f->qp_strain, ctx));
  if (f->qp_peeq)
    DT_TRY(
        dt_cuda_d2h(c, f->qp_peeq, c->state.hist_c + DT_HIST_PEEQ * nq, sizeof(double) * nq, ctx));
cleanup:
  return rc;
}

dt_status dt_cuda_load_field_kernels(dt_ctx *ctx) {
  const void *k[] = {(const void *)k_soa_to_points};
  return dt_cuda_load_list(k, 1, NULL, ctx);
}

/* Checkpoint support: the committed point state as host SoA (history, stress, strain),
 * DT_QP_STATE_DOUBLES per point, the layout the CPU backend uses; state_set also resets the
 * trial state to it. Once per checkpoint, outside Newton iterations. */
extern "C" dt_status dt_cuda_state_get(void *impl, double *host, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  size_t nq = (size_t)c->problem.n_qp;
  DT_TRY(dt_cuda_d2h(c, host, c->state.hist_c, sizeof(double) * nq * DT_MAT_STATE_DOUBLES, ctx));
  DT_TRY(dt_cuda_d2h(c, host + nq * DT_MAT_STATE_DOUBLES, c->state.sig_c, sizeof(double) * nq * 6,
                     ctx));
  DT_TRY(dt_cuda_d2h(c, host + nq * (DT_MAT_STATE_DOUBLES + 6), c->state.eps_c,
                     sizeof(double) * nq * 6, ctx));
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_state_set(void *impl, const double *host, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  size_t nq = (size_t)c->problem.n_qp;
  DT_TRY(dt_cuda_h2d(c, c->state.hist_c, host, sizeof(double) * nq * DT_MAT_STATE_DOUBLES, ctx));
  DT_TRY(dt_cuda_h2d(c, c->state.sig_c, host + nq * DT_MAT_STATE_DOUBLES, sizeof(double) * nq * 6,
                     ctx));
  DT_TRY(dt_cuda_h2d(c, c->state.eps_c, host + nq * (DT_MAT_STATE_DOUBLES + 6),
                     sizeof(double) * nq * 6, ctx));
  DT_TRY(copy_state(c, 0, ctx)); /* trial = committed */
cleanup:
  return rc;
}
