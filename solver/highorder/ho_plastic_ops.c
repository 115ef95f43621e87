/* The host's and the GPU's operation tables of the order-P plastic Newton solve
 * (ho_plastic_ops.h).
 *
 * Host: ho_plastic.c's operators; a correction takes the tangent's diagonal and runs ho_pcg.c
 * with Jacobi, or with the caller's host p-multigrid given the new tangent first.
 * GPU: the state lives on the device (cuda/cuda_ho_plastic.cu) from the host dt_ho_plastic's
 * arrays at open, so a resumed run starts from what the caller restored there; the fixed DOFs
 * are uploaded once. The corrections' preconditioner: o->device_pc when given; else, with a
 * host p-multigrid in o->pmg, its copy on the device (cuda/cuda_ho_pmg.cu: the same levels,
 * transfers and order-1 AMG, the finest level given each tangent and its lambda_max estimated
 * there); else device Jacobi. */
#include "highorder/ho_plastic_ops.h"

#include "core/clock.h"
#include "highorder/ho_pmg.h"
#ifdef DUCTILE_HAVE_CUDA
#include "cuda/cuda_entry.h"
#include "cuda/cuda_ho_pmg.h"
#endif

typedef struct host_state {
  dt_ho_plastic *pl;
  const unsigned char *fixed;
  struct dt_ho_pmg *pmg;
  double *diag;
} host_state;

static dt_status host_residual(void *s, const double *u, double *f, dt_ho_plastic_report *rep,
                               dt_ctx *ctx) {
  return dt_ho_plastic_residual(((host_state *)s)->pl, u, f, rep, ctx);
}

static dt_status host_apply(void *s, const double *w, double *v, dt_ctx *ctx) {
  return dt_ho_plastic_tangent_apply(((host_state *)s)->pl, w, v, ctx);
}

static dt_status host_correction(void *s, const double *b, double *c, const dt_ho_pcg_opts *po,
                                 dt_ho_pcg_result *res, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  host_state *h = s;
  int n = 3 * h->pl->op->n_nodes;
  DT_TRY(dt_ho_plastic_tangent_diagonal(h->pl, h->diag, ctx));
  if (h->pmg) {
    DT_TRY(dt_ho_pmg_set_fine(h->pmg, dt_ho_plastic_tangent_apply_fn, h->pl, h->diag, ctx));
    rc = dt_ho_pcg_solve_pc(n, dt_ho_plastic_tangent_apply_fn, h->pl, dt_ho_pmg_apply, h->pmg,
                            h->fixed, b, c, po, res, ctx);
  } else
    rc = dt_ho_pcg_solve(n, dt_ho_plastic_tangent_apply_fn, h->pl, h->diag, h->fixed, b, c, po, res,
                         ctx);
cleanup:
  return rc;
}

static dt_status host_commit(void *s, dt_ctx *ctx) {
  (void)ctx;
  dt_ho_plastic_commit(((host_state *)s)->pl);
  return DT_OK;
}

static dt_status host_rollback(void *s, dt_ctx *ctx) {
  (void)ctx;
  dt_ho_plastic_rollback(((host_state *)s)->pl);
  return DT_OK;
}

static dt_status host_sync(void *s, int what, dt_ctx *ctx) {
  (void)s, (void)what, (void)ctx; /* the host's state is pl's own */
  return DT_OK;
}

static void host_close(void *s) {
  host_state *h = s;
  if (!h) return;
  dt_free(h->diag);
  dt_free(h);
}

static const dt_ho_plastic_ops host_ops = {
    .name = "host",
    .residual = host_residual,
    .tangent_apply = host_apply,
    .correction = host_correction,
    .commit = host_commit,
    .rollback = host_rollback,
    .sync = host_sync,
    .close = host_close,
};

static dt_status host_open(dt_ho_plastic *pl, const dt_ho_newton_problem *pb,
                           const dt_ho_newton_opts *o, dt_ho_plastic_runner *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  host_state *h = NULL;
  DT_ALLOC(h, 1, ctx, "Newton host state");
  h->pl = pl, h->fixed = pb->fixed, h->pmg = o->pmg, h->diag = NULL;
  DT_ALLOC(h->diag, 3 * (size_t)pl->op->n_nodes, ctx, "tangent diagonal");
  r->ops = &host_ops, r->s = h, h = NULL;
cleanup:
  host_close(h);
  return rc;
}

#ifdef DUCTILE_HAVE_CUDA
typedef struct gpu_state {
  dt_ho_plastic *pl;
  dt_cuda_ho *h;
  dt_cuda_ho_plastic *hp;
  const dt_ho_device_pc *pc;
  dt_cuda_ho_pmg *pmg;    /* the host p-multigrid's device copy, owned (NULL: none) */
  dt_ho_device_pc pmg_pc; /* pc points here when it is used */
} gpu_state;

/* The device p-multigrid's finest level follows each tangent; lambda_max is estimated on the
 * device as the host's set_fine does. */
static dt_status pmg_setup(void *pc, dt_ho_device_fn apply, void *op, const double *d_diag,
                           dt_ctx *ctx) {
  return dt_cuda_ho_pmg_set_fine((dt_cuda_ho_pmg *)pc, apply, op, d_diag, 0.0, ctx);
}

static dt_status gpu_residual(void *s, const double *u, double *f, dt_ho_plastic_report *rep,
                              dt_ctx *ctx) {
  return dt_cuda_ho_plastic_residual(((gpu_state *)s)->hp, u, f, rep, ctx);
}

static dt_status gpu_apply(void *s, const double *w, double *v, dt_ctx *ctx) {
  return dt_cuda_ho_plastic_apply(((gpu_state *)s)->hp, w, v, ctx);
}

static dt_status gpu_correction(void *s, const double *b, double *c, const dt_ho_pcg_opts *po,
                                dt_ho_pcg_result *res, dt_ctx *ctx) {
  gpu_state *g = s;
  const dt_ho_device_pc *pc = g->pc;
  if (!pc) return dt_cuda_ho_plastic_correct(g->hp, b, c, po, NULL, NULL, NULL, NULL, res, ctx);
  return dt_cuda_ho_plastic_correct(g->hp, b, c, po, pc->setup, pc->apply, pc->pc, pc->stream, res,
                                    ctx);
}

static dt_status gpu_commit(void *s, dt_ctx *ctx) {
  return dt_cuda_ho_plastic_commit(((gpu_state *)s)->hp, ctx);
}

static dt_status gpu_rollback(void *s, dt_ctx *ctx) {
  return dt_cuda_ho_plastic_rollback(((gpu_state *)s)->hp, ctx);
}

static dt_status gpu_sync(void *s, int what, dt_ctx *ctx) {
  gpu_state *g = s;
  return dt_cuda_ho_plastic_download(g->hp, what == 1 ? DT_CUDA_HP_COMMITTED : DT_CUDA_HP_ALL,
                                     g->pl, ctx);
}

static void gpu_close(void *s) {
  gpu_state *g = s;
  if (!g) return;
  dt_cuda_ho_pmg_destroy(g->pmg);
  dt_cuda_ho_plastic_destroy(g->hp);
  dt_cuda_ho_destroy(g->h);
  dt_free(g);
}

static const dt_ho_plastic_ops gpu_ops = {
    .name = "gpu",
    .residual = gpu_residual,
    .tangent_apply = gpu_apply,
    .correction = gpu_correction,
    .commit = gpu_commit,
    .rollback = gpu_rollback,
    .sync = gpu_sync,
    .close = gpu_close,
};

static dt_status gpu_open(dt_ho_plastic *pl, const dt_ho_newton_problem *pb,
                          const dt_ho_newton_opts *o, dt_ho_plastic_runner *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  gpu_state *g = NULL;
  char why[256] = "";
  double t0 = dt_seconds();
  DT_CHECK(dt_cuda_available(why, sizeof why), ctx, DT_ERR_UNSUPPORTED,
           "plastic solve on GPU %d: no usable GPU (%s)", o->gpu_device, why);
  DT_ALLOC(g, 1, ctx, "Newton GPU state");
  g->pl = pl, g->h = NULL, g->hp = NULL, g->pc = o->device_pc;
  DT_TRY(dt_cuda_ho_create(pl->op, o->gpu_device, &g->h, ctx));
  DT_TRY(dt_cuda_ho_plastic_create(pl, g->h, &g->hp, ctx));
  DT_TRY(dt_cuda_ho_plastic_set_fixed(g->hp, pb->fixed, ctx));
  if (o->pmg && !o->device_pc) {
    DT_TRY(dt_cuda_ho_pmg_create(o->pmg, o->gpu_device, NULL, &g->pmg, ctx));
    g->pmg_pc.pc = g->pmg;
    g->pmg_pc.stream = dt_cuda_ho_pmg_stream(g->pmg);
    g->pmg_pc.setup = pmg_setup;
    g->pmg_pc.apply = dt_cuda_ho_pmg_apply;
    g->pc = &g->pmg_pc;
  }
  if (o->log) {
    char desc[256];
    dt_cuda_ho_plastic_describe(g->hp, desc, sizeof desc);
    fprintf(o->log,
            "plastic solve on GPU %d: %s; corrections preconditioned by %s; set up on the "
            "device in %.2f s\n",
            o->gpu_device, desc,
            g->pmg         ? "the p-multigrid on the device"
            : o->device_pc ? "the caller's"
                           : "Jacobi",
            dt_seconds() - t0);
  }
  r->ops = &gpu_ops, r->s = g, g = NULL;
cleanup:
  gpu_close(g);
  return rc;
}
#endif

dt_status dt_ho_plastic_ops_open(dt_ho_plastic *pl, const dt_ho_newton_problem *pb,
                                 const dt_ho_newton_opts *o, dt_ho_plastic_runner *r, dt_ctx *ctx) {
  r->ops = NULL, r->s = NULL;
  if (!o->gpu) return host_open(pl, pb, o, r, ctx);
#ifdef DUCTILE_HAVE_CUDA
  return gpu_open(pl, pb, o, r, ctx);
#else
  return DT_ERROR(ctx, DT_ERR_UNSUPPORTED,
                  "plastic solve on GPU %d: this build has no CUDA backend (configure with CUDA)",
                  o->gpu_device);
#endif
}

void dt_ho_plastic_ops_close(dt_ho_plastic_runner *r) {
  if (r->ops) r->ops->close(r->s);
  r->ops = NULL, r->s = NULL;
}
