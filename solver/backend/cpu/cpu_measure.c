/* Benchmark measurements of the CPU backend: memory copy bandwidth (the floor for
 * memory-bound kernels), mean SpMV time, and the memory held. */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "cpu_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Best of five parallel copies of a buffer of n doubles. Bytes counted as read + write +
 * the write-allocate read of the destination (24 B per element): that is the DRAM traffic of
 * `b[i] = a[i]` on x86 without streaming stores, so the figure is comparable with SpMV's. */
static double copy_bandwidth(size_t n) {
  double *a = dt_malloc(n * sizeof(double)), *b = dt_malloc(n * sizeof(double)), best = 0.0;
  if (!a || !b) {
    dt_free(a);
    dt_free(b);
    return 0.0;
  }
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) a[i] = (double)i, b[i] = 0.0;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = dt_seconds(), dt;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) b[i] = a[i];
    dt = dt_seconds() - t0;
    if (dt > 0 && 3.0 * n * sizeof(double) / dt > best) best = 3.0 * n * sizeof(double) / dt;
  }
  dt_free(a);
  dt_free(b);
  return best;
}

dt_status dt_cpu_measure(void *impl, dt_backend_measure *out, dt_ctx *ctx) {
  dt_cpu *c = impl;
  int threads = 1, reps = 20;
  size_t n = (size_t)(c->pb.nnz > (1 << 25) ? c->pb.nnz : (1 << 25));
  double t0;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  memset(out, 0, sizeof *out);
  snprintf(out->device, sizeof out->device, "CPU, %d OpenMP threads", threads);
  out->copy_bandwidth = copy_bandwidth(n);
  t0 = dt_seconds();
  for (int i = 0; i < reps; i++) dt_cpu_operator_apply(impl, DT_VEC_PCG_P, DT_VEC_PCG_Q, ctx);
  out->spmv_seconds = (dt_seconds() - t0) / reps;
  if (c->pb.matrix_free) /* the stored matrices, the products per incidence (written, then read
                          * with the incidence lists), x, its free mask and y */
    out->spmv_bytes = 8.0 * ((double)c->n_own * c->pb.emat_doubles +
                             2.0 * c->pb.elem_ptr[c->pb.n_elems] * c->pb.dpn + 3.0 * c->pb.n_dofs) +
                      4.0 * ((double)c->pb.elem_ptr[c->pb.n_elems] + c->pb.n_nodes);
  else /* CSR: a value and a column per nonzero, a row offset, x and y per row */
    out->spmv_bytes = 12.0 * (double)c->pb.nnz + 20.0 * (double)c->pb.n_dofs;
  dt_cpu_estimate(&c->pb, &out->peak_bytes, ctx);
  if (c->pb.matrix_free) /* the estimate counts the whole store; what it holds is emat_cap slots */
    out->peak_bytes -= 8.0 * (double)(c->pb.n_elems - c->emat_cap) * c->pb.emat_doubles;
  return DT_OK;
}

/* Host bytes the CPU backend holds for a problem (the same count as held_bytes). */
dt_status dt_cpu_estimate(const dt_problem *pb, double *bytes, dt_ctx *ctx) {
  *bytes = 8.0 * (DT_VEC_COUNT * (double)pb->n_dofs + (double)pb->n_dofs * pb->dpn +
                  (2.0 * DT_MAT_STATE_DOUBLES + 24.0 + (pb->qp_eps0 ? 6.0 : 0.0)) * pb->n_qp);
  if (pb->matrix_free)
    *bytes += dt_cpu_mf_bytes(pb);
  else /* CSR values, columns, row offsets, element positions */
    *bytes += 12.0 * (double)pb->nnz + 4.0 * (pb->n_dofs + (double)pb->elem_pos_ptr[pb->n_elems]);
  if (pb->n_sub > 0) { /* two-level: the coarse factor, the masked modes, the box arrays */
    double nc = (double)pb->n_sub * pb->n_modes;
    *bytes += 8.0 * (nc * nc + nc + (double)pb->n_dofs * pb->n_modes + 3.0 * pb->n_nodes) +
              4.0 * (5.0 * pb->n_nodes + 3.0 * pb->item_ptr[pb->n_nodes] +
                     2.0 * pb->sub_nbr_ptr[pb->n_sub]);
  }
  return DT_OK;
}

static double meminfo_bytes(const char *key) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  double kb = 0.0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, key, strlen(key)) == 0) {
      kb = atof(line + strlen(key));
      break;
    }
  if (f) fclose(f);
  return kb * 1024.0;
}

int dt_cpu_device_info(int ordinal, dt_device_info *out) {
  int threads = 1;
  if (ordinal != 0) return 0;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "CPU (%d OpenMP threads)", threads);
  out->total_bytes = meminfo_bytes("MemTotal:");
  out->free_bytes = meminfo_bytes("MemAvailable:");
  return 1;
}
