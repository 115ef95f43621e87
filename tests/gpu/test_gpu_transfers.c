/* Inside a Newton iteration only scalars cross between host and device (the CUDA backend
 * issue; STYLE.md §8). A plastic hex8 job runs on "cuda" while the progress callback reads the
 * backend's transfer counters (dt_cuda_transfer_stats, process totals) at every event:
 *   - between two Newton iterations of one increment (events numbered from 0, the predictor)
 *     nothing goes host->device, and at most
 *     64 + 32 * (PCG iterations) bytes come back (no vector: 8 * n_dofs would be far more);
 *   - over a whole increment, device->host bytes minus the once-per-increment field download
 *     (U, RF and the requested point fields) stay within the same per-iteration budget.
 * The same bar with its end face tied by equations (the driver's reduced PCG) is held to the
 * same budgets. Skips (77) without a CUDA device. */
#include "gpu_jobs.h"

typedef struct watch {
  unsigned long long h2d, d2h;
  unsigned long long inc_d2h0;
  int in_increment, newton_iters, pcg_iters, max_pcg, checked, n_inc;
  long long worst_iter_d2h;
  long long worst_inc_rest;
  size_t field_bytes;
} watch;

static int on_event(const dt_progress *ev, void *user) {
  watch *w = user;
  unsigned long long h2d = 0, d2h = 0;
  dt_cuda_transfer_stats(NULL, &h2d, &d2h, NULL);
  if (ev->kind == DT_EV_INCREMENT_START) {
    w->in_increment = 1;
    w->newton_iters = 0;
    w->pcg_iters = 0;
    w->inc_d2h0 = d2h;
  } else if (ev->kind == DT_EV_NEWTON_ITER) {
    if (ev->newton_iter > 0) { /* after a correction (iteration 0 is the predictor) */
      long long dh = (long long)(h2d - w->h2d), dd = (long long)(d2h - w->d2h);
      long long budget = 64 + 32LL * ev->pcg_iters;
      EXPECT(dh == 0, "Newton iteration %d: %lld bytes host->device", ev->newton_iter, dh);
      EXPECT(dd <= budget,
             "Newton iteration %d: %lld bytes device->host (budget %lld, %d PCG "
             "iterations)",
             ev->newton_iter, dd, budget, ev->pcg_iters);
      if (dd > w->worst_iter_d2h) w->worst_iter_d2h = dd;
      w->pcg_iters += ev->pcg_iters;
      if (ev->pcg_iters > w->max_pcg) w->max_pcg = ev->pcg_iters;
      w->checked++;
    }
    w->newton_iters = ev->newton_iter;
  } else if (ev->kind == DT_EV_INCREMENT_DONE && w->in_increment) {
    long long rest = (long long)(d2h - w->inc_d2h0) - (long long)w->field_bytes;
    long long budget = 128LL * (w->newton_iters + 1) + 32LL * w->pcg_iters + 64;
    EXPECT(rest >= 0, "increment %d: %lld bytes less than the field download", ev->increment, rest);
    EXPECT(rest <= budget, "increment %d: %lld bytes device->host besides the fields (budget %lld)",
           ev->increment, rest, budget);
    if (rest > w->worst_inc_rest) w->worst_inc_rest = rest;
    w->in_increment = 0;
    w->n_inc++;
  }
  w->h2d = h2d;
  w->d2h = d2h;
  return 0;
}

/* The plastic bar bent by a prescribed displacement of its end face (tied = 0), or of the
 * face's corner (12, 0, 0) with the other end nodes tied to it in z by equations (tied = 1): the
 * driver's reduced PCG then runs over operator_apply, pc_apply and the device's mpc_apply, and
 * must move no vector either. */
/* DUCTILE_GPU_TEST_BACKEND=cpu runs the jobs on the CPU backend, which moves nothing: a check of
 * the jobs themselves on a machine without a device (test_gpu_agreement does the same). */
static const char *g_backend = "cuda";

static void check_job(int tied) {
  sbuf b = {0};
  dt_model *m;
  dt_run_summary sum;
  dt_ctx ctx = {0};
  watch w;
  dt_status rc;
  int n_nodes = (12 + 1) * (3 + 1) * (3 + 1), n_qp = 12 * 3 * 3 * 8;
  int master = grid_nid(12, 3, 12, 0, 0), first = 1;
  memset(&w, 0, sizeof w);
  sb_add(&b, "{\"ductile\": 1, \"title\": \"transfers\", ");
  sb_hex8_mesh(&b, 12, 3, 3, 6.0, 1.0, 1.0);
  sb_add(&b,
         ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 200000, \"nu\": 0.3}, "
         "\"plastic\": {\"yield_stress\": 250, \"hardening\": {\"type\": \"linear\", "
         "\"modulus\": 5000}}}], \"sections\": [{\"element_set\": \"all\", \"material\": \"m\", "
         "\"kind\": \"solid\"}], ");
  if (tied) {
    sb_add(&b, "\"equations\": [");
    for (int k = 0; k <= 3; k++)
      for (int j = 0; j <= 3; j++) {
        int n = grid_nid(12, 3, 12, j, k);
        if (n == master) continue;
        sb_add(&b, "%s{\"terms\": [[%d, \"z\", 1.0], [%d, \"z\", -1.0]]}", first ? "" : ", ", n,
               master);
        first = 0;
      }
    sb_add(&b, "], ");
  }
  sb_add(&b,
         "\"steps\": [{\"name\": \"bend\", \"increments\": 3, "
         "\"boundary\": [{\"node_set\": \"xmin\", \"fixed\": \"all\"}, {\"node_set\": \"%s\", "
         "\"displacement\": {\"z\": -0.15}}]}], ",
         tied ? "corner" : "xmax");
  sb_add(&b, k_solver_tight, "block_jacobi", "fixed");
  sb_add(&b, "}");
  if (tied) { /* the corner's node set, added to the mesh's */
    static const char key[] = "\"node_sets\": {";
    char *at = strstr(b.s, key);
    sbuf c = {0};
    EXPECT(at != NULL, "no node sets in the mesh");
    if (at) {
      sb_add(&c, "%.*s%s\"corner\": [%d], %s", (int)(at - b.s), b.s, key, master, at + strlen(key));
      free(b.s);
      b = c;
    }
  }
  m = parse_or_die(&b, tied ? "transfers, tied" : "transfers");
  /* Per increment: U and RF vectors (8 * n_dofs each) and S, E, PEEQ at the points. */
  w.field_bytes = 2 * sizeof(double) * 3 * (size_t)n_nodes + sizeof(double) * 13 * (size_t)n_qp;
  if (strcmp(g_backend, "cpu") == 0) w.field_bytes = 0; /* nothing is counted */
  rc = run_job(m, g_backend, NULL, on_event, &w, &sum, &ctx);
  EXPECT(rc == DT_OK, "run failed: %s", ctx.msg[0] ? ctx.msg : sum.message);
  EXPECT(w.n_inc >= 3, "%d increments checked", w.n_inc);
  EXPECT(w.checked >= 3, "only %d Newton iterations checked: the job should be plastic", w.checked);
  printf("%s: %d increments, %d Newton iterations checked; worst device->host per iteration %lld "
         "bytes (max %d PCG iterations), worst per increment besides fields %lld bytes\n",
         tied ? "end face tied by equations" : "end face prescribed", w.n_inc, w.checked,
         w.worst_iter_d2h, w.max_pcg, w.worst_inc_rest);
  dt_model_destroy(&m);
  free(b.s);
}

int main(void) {
  if (getenv("DUCTILE_GPU_TEST_BACKEND")) g_backend = getenv("DUCTILE_GPU_TEST_BACKEND");
  if (strcmp(g_backend, "cpu") != 0) skip_without_device();
  check_job(0);
  check_job(1);
  if (g_failures) {
    fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  return 0;
}
