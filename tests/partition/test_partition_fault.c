/* Fault injection over the partition path: fail the N-th allocation for N = 1, 2, ... through
 * dt_partition_elements (with its report), dt_part_local_build, dt_halo_host_create and a sum
 * exchange, on a 4x3x2 hex box in 3 parts (1 part for the METIS call in a build without it,
 * slabs for the layout). Every run must succeed or fail with DT_ERR_NOMEM and leave nothing
 * allocated (run under DUCTILE_SANITIZE=ON), until a run succeeds without the fault firing.
 * METIS's own allocations are its own and are not counted. */
#include "partition/partition_exchange.h"
#include "partition_fixtures.h"

#ifdef DUCTILE_HAVE_METIS
enum { METIS_PARTS = 3 };
#else
enum { METIS_PARTS = 1 };
#endif
enum { NPARTS = 3 };

/* One pass; returns the first failing status. */
static dt_status pass(const dt_model *m, int *part, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_partition_report rep;
  dt_part_local l[NPARTS];
  dt_halo_host *h = NULL;
  double *v[NPARTS] = {NULL};
  int built = 0;
  dt_partition_options clustered;
  dt_partition_options_default(&clustered);
  clustered.clusters = 6; /* the clusters' path (partition_clusters.c) */
  DT_TRY(dt_partition_elements(m, METIS_PARTS, &clustered, part, &rep, ctx));
  dt_partition_report_free(&rep);
  DT_TRY(dt_partition_elements(m, METIS_PARTS, NULL, part, &rep, ctx));
  dt_partition_report_free(&rep);
  if (METIS_PARTS == 1)
    for (int e = 0; e < m->n_elems; e++) part[e] = e * NPARTS / m->n_elems;
  DT_TRY(dt_part_local_build(m, NPARTS, part, l, ctx));
  built = 1;
  DT_TRY(dt_halo_host_create(l, NPARTS, 1, &h, ctx));
  for (int p = 0; p < NPARTS; p++) {
    DT_ALLOC(v[p], l[p].n_nodes, ctx, "a test vector");
    for (int i = 0; i < l[p].n_nodes; i++) v[p][i] = 1.0;
  }
  DT_TRY(dt_halo_exchange(l, NPARTS, v, 1, DT_HALO_SUM, dt_halo_host_ops(), h, ctx));
cleanup:
  for (int p = 0; p < NPARTS; p++) dt_free(v[p]);
  dt_halo_host_destroy(&h);
  for (int p = 0; built && p < NPARTS; p++) dt_part_local_free(&l[p]);
  return rc;
}

int main(int argc, char **argv) {
  dt_model *m = fixture_box(4, 3, 2);
  int part[24];
  long n = 0;
  (void)argc, (void)argv;
  for (n = 1; n < 100000; n++) {
    dt_ctx ctx = {0};
    dt_status rc;
    void *probe = NULL;
    dt_fault_malloc_countdown(n);
    rc = pass(m, part, &ctx);
    probe = dt_malloc(1); /* NULL: the countdown fired inside the pass */
    dt_fault_malloc_countdown(0);
    if (rc != DT_OK && rc != DT_ERR_NOMEM) {
      fprintf(stderr, "N=%ld: expected DT_ERR_NOMEM, got %s: %s\n", n, dt_status_name(rc), ctx.msg);
      dt_free(probe);
      return 1;
    }
    if (rc == DT_ERR_NOMEM && !strstr(ctx.msg, "out of memory")) {
      fprintf(stderr, "N=%ld: DT_ERR_NOMEM without saying so: %s\n", n, ctx.msg);
      dt_free(probe);
      return 1;
    }
    if (rc == DT_OK && probe) {
      dt_free(probe);
      printf("%ld allocation failure points, all handled\n", n - 1);
      dt_model_destroy(&m);
      return 0;
    }
    dt_free(probe);
  }
  fprintf(stderr, "gave up\n");
  dt_model_destroy(&m);
  return 1;
}
