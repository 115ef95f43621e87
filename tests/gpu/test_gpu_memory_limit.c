/* A job that does not fit is refused before any device memory is taken, with a message that
 * says how much it needs (the CUDA backend issue). DUCTILE_GPU_MEMORY_LIMIT=1M makes a
 * 20x20x20 hex8 box too big: the run must fail with DT_ERR_DEVICE_NOMEM, the message must
 * contain "needs an estimated" and the sizes, and the backend must not have allocated a byte.
 * A limit that is not a byte count is an input error.
 * The estimate counts the local memory of only the element kernels the mesh launches: for this
 * one-type mesh (cooperative kernels) it is smaller than with the one-thread-per-element
 * kernels (solver.backend_options.elements "simple"), whose whole-Ke local arrays are reserved
 * for every resident thread. With a generous limit the job runs, and the device memory it allocated
 * stays within the estimate made before allocation (dt_analysis_estimate, the daemon's
 * admission figure), also with the two-level preconditioner, and a refusal with it says what
 * the coarse space costs and that block Jacobi does without; and with the matrix-free operator
 * and the two-level preconditioner on a box that turns fully plastic (its store grows to every
 * element). Skips (77) without a CUDA
 * device. */
#include "gpu_jobs.h"

/* An n^3 hex8 box pulled by dz at its top: plastic is appended to the material, solver after
 * the steps. */
static dt_model *box_job_with(int n, const char *plastic, double dz, const char *solver) {
  sbuf b = {0};
  dt_model *m;
  sb_add(&b, "{\"ductile\": 1, \"title\": \"memory limit\", ");
  sb_hex8_mesh(&b, n, n, n, 1.0, 1.0, 1.0);
  sb_add(&b,
         ", \"materials\": [{\"name\": \"m\", \"elastic\": {\"E\": 200000, \"nu\": 0.3}%s}], "
         "\"sections\": [{\"element_set\": \"all\", \"material\": \"m\", \"kind\": \"solid\"}], "
         "\"steps\": [{\"name\": \"s\", \"increments\": 1, \"boundary\": ["
         "{\"node_set\": \"zmin\", \"fixed\": \"all\"}, "
         "{\"node_set\": \"zmax\", \"displacement\": {\"z\": %g}}]}]%s}",
         plastic, dz, solver);
  m = parse_or_die(&b, "memory limit");
  free(b.s);
  return m;
}

static dt_model *box_job(int n) { return box_job_with(n, "", 0.001, ""); }

/* The estimate in a refusal message ("needs an estimated 12.3 MB of ..."), in bytes. */
static double refused_estimate(const char *msg) {
  const char *at = strstr(msg, "needs an estimated ");
  double v = 0.0;
  char unit[3] = "";
  if (!at || sscanf(at + 19, "%lf %2s", &v, unit) != 2) return -1.0;
  return v * (!strcmp(unit, "GB") ? 1e9 : !strcmp(unit, "MB") ? 1e6 : 1e3);
}

int main(void) {
  dt_model *m;
  dt_run_summary sum;
  dt_ctx ctx = {0};
  dt_status rc;
  unsigned long long before;
  skip_without_device();
  m = box_job(20);
  before = dt_cuda_process_allocated_bytes();
  setenv("DUCTILE_GPU_MEMORY_LIMIT", "1M", 1);
  rc = run_job(m, "cuda", NULL, NULL, NULL, &sum, &ctx);
  EXPECT(rc == DT_ERR_DEVICE_NOMEM, "status %d (%s), expected DT_ERR_DEVICE_NOMEM", (int)rc,
         dt_status_name(rc));
  EXPECT(strstr(ctx.msg, "needs an estimated") != NULL, "message: %s", ctx.msg);
  EXPECT(strstr(ctx.msg, "B of GPU memory but only 1.0 MB are available") != NULL,
         "message without the sizes: %s", ctx.msg);
  EXPECT(strstr(ctx.msg, "DUCTILE_GPU_MEMORY_LIMIT=1M") != NULL, "message without the limit: %s",
         ctx.msg);
  EXPECT(strstr(ctx.msg, "DOFs") && strstr(ctx.msg, "nonzeros") &&
             strstr(ctx.msg, "integration points"),
         "message without the problem sizes: %s", ctx.msg);
  EXPECT(dt_cuda_process_allocated_bytes() == before && before == 0,
         "%llu bytes of device memory were allocated", dt_cuda_process_allocated_bytes());
  EXPECT(dt_cuda_peak_bytes(NULL) == 0, "peak device bytes %zu", dt_cuda_peak_bytes(NULL));
  printf("refused as expected: %s\n", ctx.msg);
  {
    double coop = refused_estimate(ctx.msg), simple;
    dt_ctx_reset(&ctx);
    m->solver.cuda_elements = DT_CUDA_ELEMENTS_SIMPLE;
    rc = run_job(m, "cuda", NULL, NULL, NULL, &sum, &ctx);
    m->solver.cuda_elements = DT_CUDA_ELEMENTS_AUTO;
    simple = refused_estimate(ctx.msg);
    EXPECT(rc == DT_ERR_DEVICE_NOMEM && coop > 0 && simple > coop,
           "estimate with the cooperative kernels %.3g B, with the simple ones %.3g B (%s)", coop,
           simple, ctx.msg);
    printf("estimate with the cooperative kernels %.3g B, with the one-thread-per-element kernels "
           "%.3g B\n",
           coop, simple);
  }

  dt_ctx_reset(&ctx);
  setenv("DUCTILE_GPU_MEMORY_LIMIT", "lots", 1);
  rc = run_job(m, "cuda", NULL, NULL, NULL, &sum, &ctx);
  EXPECT(rc == DT_ERR_INPUT, "bad limit: status %d (%s)", (int)rc, ctx.msg);
  EXPECT(strstr(ctx.msg, "DUCTILE_GPU_MEMORY_LIMIT") != NULL, "message: %s", ctx.msg);

  /* A generous limit lets the same job run. */
  dt_ctx_reset(&ctx);
  setenv("DUCTILE_GPU_MEMORY_LIMIT", "64G", 1);
  rc = run_job(m, "cuda", NULL, NULL, NULL, &sum, &ctx);
  EXPECT(rc == DT_OK, "with a 64G limit: %s", ctx.msg);
  EXPECT(dt_cuda_peak_bytes(NULL) > 0, "no device memory recorded for a job that ran");
  {
    double est = 0.0;
    dt_ctx_reset(&ctx);
    EXPECT(dt_analysis_estimate(m, "cuda", &est, &ctx) == DT_OK, "estimate: %s", ctx.msg);
    EXPECT((double)dt_cuda_peak_bytes(NULL) <= est,
           "allocated %zu bytes, more than the estimate %.0f", dt_cuda_peak_bytes(NULL), est);
    printf("allocated %zu bytes at the peak, estimate %.0f bytes\n", dt_cuda_peak_bytes(NULL), est);
  }
  { /* The two-level preconditioner's arrays and cuSOLVER workspace are in the estimate too: the
     * same job with them peaks higher than without (so the process peak is this job's). */
    double est = 0.0;
    size_t before_peak = dt_cuda_peak_bytes(NULL);
    m->solver.precond = DT_PC_TWO_LEVEL;
    dt_ctx_reset(&ctx);
    rc = run_job(m, "cuda", NULL, NULL, NULL, &sum, &ctx);
    EXPECT(rc == DT_OK, "two_level: %s", ctx.msg);
    dt_ctx_reset(&ctx);
    EXPECT(dt_analysis_estimate(m, "cuda", &est, &ctx) == DT_OK, "estimate: %s", ctx.msg);
    EXPECT(dt_cuda_peak_bytes(NULL) > before_peak && (double)dt_cuda_peak_bytes(NULL) <= est,
           "two_level: peak %zu bytes (block Jacobi %zu), estimate %.0f", dt_cuda_peak_bytes(NULL),
           before_peak, est);
    printf("two_level: allocated %zu bytes at the peak, estimate %.0f bytes\n",
           dt_cuda_peak_bytes(NULL), est);
    /* refused with it: the message says what the coarse space costs and how to do without */
    dt_ctx_reset(&ctx);
    setenv("DUCTILE_GPU_MEMORY_LIMIT", "1M", 1);
    rc = run_job(m, "cuda", NULL, NULL, NULL, &sum, &ctx);
    EXPECT(rc == DT_ERR_DEVICE_NOMEM &&
               strstr(ctx.msg, "of it is the two-level preconditioner's") &&
               strstr(ctx.msg, "\"block_jacobi\""),
           "two_level refused: %s", ctx.msg);
    printf("two_level refused: %s\n", ctx.msg);
  }
  { /* The matrix-free operator's store grows as elements turn plastic: its estimate counts the
     * store for every element, so a job that turns fully plastic stays within it (a larger box,
     * so that the process peak is this job's), with the two-level preconditioner's arrays. */
    double est = 0.0;
    size_t before_peak = dt_cuda_peak_bytes(NULL);
    dt_model *p =
        box_job_with(30,
                     ", \"plastic\": {\"yield_stress\": 100, \"hardening\": {\"type\": \"linear\", "
                     "\"modulus\": 20000}}",
                     0.0015,
                     ", \"solver\": {\"linear\": {\"operator\": \"matrix_free\", "
                     "\"preconditioner\": \"two_level\"}}");
    setenv("DUCTILE_GPU_MEMORY_LIMIT", "64G", 1);
    dt_ctx_reset(&ctx);
    rc = run_job(p, "cuda", NULL, NULL, NULL, &sum, &ctx);
    EXPECT(rc == DT_OK, "matrix-free: %s", ctx.msg);
    dt_ctx_reset(&ctx);
    EXPECT(dt_analysis_estimate(p, "cuda", &est, &ctx) == DT_OK, "estimate: %s", ctx.msg);
    EXPECT(dt_cuda_peak_bytes(NULL) > before_peak && (double)dt_cuda_peak_bytes(NULL) <= est,
           "matrix-free, fully plastic: peak %zu bytes (before %zu), estimate %.0f",
           dt_cuda_peak_bytes(NULL), before_peak, est);
    printf("matrix-free, fully plastic: allocated %zu bytes at the peak, estimate %.0f bytes\n",
           dt_cuda_peak_bytes(NULL), est);
    dt_model_destroy(&p);
  }
  unsetenv("DUCTILE_GPU_MEMORY_LIMIT");
  dt_model_destroy(&m);
  if (g_failures) {
    fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  return 0;
}
