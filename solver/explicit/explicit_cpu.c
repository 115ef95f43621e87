/* The CPU backend of explicit dynamics: the element step of explicit_kernel.h (shells) or
 * explicit_hex8_kernel.h (hex8) in an OpenMP loop over the elements, on the same node-copy
 * arrays the CUDA backend keeps on the device, so the two backends agree to round-off (and the
 * tests of the scheme run in CI). */
#include <string.h>

#include "core/omp_threads.h"
#include "explicit.h"

typedef struct xp_cpu {
  dt_xp_problem xp; /* shallow copy: the arrays below are this backend's own */
  dt_xp_view view;
  dt_xp_hex8_view hview;
  double *u, *v, *q, *f[2], *hist, *work;
  int *plastic;
  int cur; /* the force buffer the next step reads */
  int failed;
  int threads;
  dt_xp_step st;
} xp_cpu;

static void *dup_array(const void *src, size_t bytes) {
  void *p = dt_malloc(bytes ? bytes : 1);
  if (p && bytes) memcpy(p, src, bytes);
  return p;
}

static void cpu_destroy(void *impl) {
  xp_cpu *c = impl;
  if (!c) return;
  dt_xp_problem_free(&c->xp);
  dt_xp_step_free(&c->st);
  dt_free(c->u);
  dt_free(c->v);
  dt_free(c->q);
  dt_free(c->f[0]);
  dt_free(c->f[1]);
  dt_free(c->hist);
  dt_free(c->work);
  dt_free(c->plastic);
  dt_free(c);
}

/* A deep copy of the problem's arrays (the caller may free its problem). */
static dt_status copy_problem(const dt_xp_problem *s, dt_xp_problem *d, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const size_t nc = dt_xp_copies(s);
  *d = *s;
#define DUP(field, count)                                                                          \
  do {                                                                                             \
    d->field = dup_array(s->field, (count) * sizeof *s->field);                                    \
    DT_CHECK(d->field != NULL, ctx, DT_ERR_NOMEM, "out of memory copying " #field);                \
  } while (0)
  d->X0 = d->D0 = d->inv_mass = d->q0 = d->thick = NULL;
  d->owner = d->nbr_ptr = d->nbr = d->mat = d->node = NULL;
  d->mats = NULL;
  d->send = NULL;
  DUP(X0, 3 * nc);
  if (s->kind == DT_XP_SHELL4) {
    DUP(D0, 3 * nc);
    DUP(q0, 4 * nc);
    DUP(thick, (size_t)s->ne);
  }
  DUP(inv_mass, (size_t)s->nm * nc);
  DUP(owner, nc);
  DUP(nbr_ptr, nc + 1);
  DUP(nbr, (size_t)s->n_nbr);
  DUP(mat, (size_t)s->ne);
  DUP(mats, (size_t)s->n_mats);
  DUP(node, nc);
  if (s->n_send) DUP(send, (size_t)s->n_send);
#undef DUP
cleanup:
  return rc;
}

static dt_status cpu_create(const dt_xp_problem *xp, const double *v0, int threads, int device,
                            void **impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cpu *c = NULL;
  const size_t nc = dt_xp_copies(xp), ne = (size_t)xp->ne, nv = (size_t)xp->nv;
  const size_t nf = nc + (size_t)xp->n_ghost;
  (void)device;

  DT_ALLOC(c, 1, ctx, "the explicit CPU backend");
  DT_TRY(copy_problem(xp, &c->xp, ctx));
  /* a thread per 256 elements at least: a step of a small mesh costs less than waking many
   * threads for it */
  {
    int cap = xp->ne / 256 > 1 ? xp->ne / 256 : 1,
        want = threads > 0 ? threads : dt_omp_max_threads();
    c->threads = want < cap ? want : cap;
  }
  DT_ALLOC(c->u, 3 * nc, ctx, "displacements");
  DT_ALLOC(c->v, nv * nc, ctx, "velocities");
  DT_ALLOC(c->q, (size_t)xp->nq * nc, ctx, "rotations");
  DT_ALLOC(c->f[0], nv * nf, ctx, "forces");
  DT_ALLOC(c->f[1], nv * nf, ctx, "forces");
  DT_ALLOC(c->work, DT_XP_WORK * ne, ctx, "energy accumulators");
  DT_ALLOC(c->plastic, ne, ctx, "yielded points");
  if (xp->plastic) DT_ALLOC(c->hist, dt_xp_hist_doubles(xp), ctx, "plastic history");
  if (xp->nq) memcpy(c->q, xp->q0, (size_t)xp->nq * nc * sizeof *c->q);
  if (v0) memcpy(c->v, v0, nv * nc * sizeof *c->v);
  *impl = c;
  c = NULL;
cleanup:
  cpu_destroy(c);
  return rc;
}

static dt_status cpu_set_step(void *impl, const dt_xp_step *st, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_cpu *c = impl;
  const size_t nc = dt_xp_copies(&c->xp), np = (size_t)c->xp.n_faces * (size_t)c->xp.ne;
  dt_xp_step_free(&c->st);
  c->st.n_bcs = st->n_bcs;
  c->st.has_pressure = st->has_pressure;
  c->st.bcs = dup_array(st->bcs, (size_t)st->n_bcs * sizeof *st->bcs);
  c->st.bc = dup_array(st->bc, nc * sizeof *st->bc);
  c->st.fc = dup_array(st->fc, 3 * nc * sizeof *st->fc);
  c->st.pressure = dup_array(st->pressure, np * sizeof *st->pressure);
  DT_CHECK(c->st.bcs && c->st.bc && c->st.fc && c->st.pressure, ctx, DT_ERR_NOMEM,
           "out of memory for the step's loads");
cleanup:
  return rc;
}

static void fill_view(xp_cpu *c) {
  dt_xp_view *v = &c->view;
  v->ne = c->xp.ne;
  v->n_layers = c->xp.n_layers;
  v->u = c->u, v->v = c->v, v->q = c->q;
  v->X0 = c->xp.X0, v->D0 = c->xp.D0, v->inv_mass = c->xp.inv_mass;
  v->fc = c->st.fc, v->bc = c->st.bc, v->owner = c->xp.owner;
  v->nbr_ptr = c->xp.nbr_ptr, v->nbr = c->xp.nbr;
  v->thick = c->xp.thick, v->pressure = c->st.pressure, v->mat = c->xp.mat;
  v->hist = c->hist, v->work = c->work, v->plastic = c->plastic, v->failed = &c->failed;
  v->f_in = c->f[c->cur], v->f_out = c->f[1 - c->cur];
  v->nf = (int)dt_xp_copies(&c->xp) + c->xp.n_ghost;
  v->bcs = c->st.bcs, v->mats = c->xp.mats;
}

static void fill_hex8_view(xp_cpu *c) {
  dt_xp_hex8_view *v = &c->hview;
  v->ne = c->xp.ne;
  v->kappa = c->xp.hourglass;
  v->u = c->u, v->v = c->v;
  v->X0 = c->xp.X0, v->inv_mass = c->xp.inv_mass;
  v->fc = c->st.fc, v->bc = c->st.bc, v->owner = c->xp.owner;
  v->nbr_ptr = c->xp.nbr_ptr, v->nbr = c->xp.nbr;
  v->mat = c->xp.mat, v->pressure = c->st.has_pressure ? c->st.pressure : NULL;
  v->hist = c->hist, v->work = c->work, v->plastic = c->plastic, v->failed = &c->failed;
  v->f_in = c->f[c->cur], v->f_out = c->f[1 - c->cur];
  v->nf = (int)dt_xp_copies(&c->xp) + c->xp.n_ghost;
  v->bcs = c->st.bcs, v->mats = c->xp.mats;
}

static dt_status cpu_step(void *impl, const dt_xp_time *T, dt_ctx *ctx) {
  xp_cpu *c = impl;
  const int ne = c->xp.ne;
  (void)ctx;
  if (c->xp.kind == DT_XP_HEX8) {
    const dt_xp_hex8_view *v = &c->hview;
    const int form = c->xp.form, history = c->xp.plastic;
    fill_hex8_view(c);
#pragma omp parallel for schedule(static) num_threads(c->threads)
    for (int e = 0; e < ne; e++) dt_xp_hex8_step(v, T, e, history, form, 1);
  } else {
    const dt_xp_view *v = &c->view;
    fill_view(c);
#pragma omp parallel for schedule(static) num_threads(c->threads)
    for (int e = 0; e < ne; e++) dt_xp_element_step(v, T, e, c->xp.plastic);
  }
  c->cur = 1 - c->cur;
  return DT_OK;
}

static dt_status cpu_get(void *impl, dt_xp_state *out, int *failed, dt_ctx *ctx) {
  xp_cpu *c = impl;
  const size_t nc = dt_xp_copies(&c->xp), ne = (size_t)c->xp.ne, nv = (size_t)c->xp.nv;
  const size_t nf = nc + (size_t)c->xp.n_ghost;
  (void)ctx;
  if (out->u) memcpy(out->u, c->u, 3 * nc * sizeof *c->u);
  if (out->v) memcpy(out->v, c->v, nv * nc * sizeof *c->v);
  if (out->q && c->xp.nq) memcpy(out->q, c->q, (size_t)c->xp.nq * nc * sizeof *c->q);
  if (out->work) memcpy(out->work, c->work, DT_XP_WORK * ne * sizeof *c->work);
  if (out->plastic) memcpy(out->plastic, c->plastic, ne * sizeof *c->plastic);
  if (out->f) /* the copies' forces, without the ghost slots */
    for (size_t k = 0; k < nv; k++)
      memcpy(out->f + k * nc, c->f[c->cur] + k * nf, nc * sizeof *out->f);
  if (out->hist && c->hist)
    memcpy(out->hist, c->hist, dt_xp_hist_doubles(&c->xp) * sizeof *c->hist);
  *failed = c->failed;
  return DT_OK;
}

static dt_status cpu_put(void *impl, const dt_xp_state *in, dt_ctx *ctx) {
  xp_cpu *c = impl;
  const size_t nc = dt_xp_copies(&c->xp), ne = (size_t)c->xp.ne, nv = (size_t)c->xp.nv;
  const size_t nf = nc + (size_t)c->xp.n_ghost;
  (void)ctx;
  memcpy(c->u, in->u, 3 * nc * sizeof *c->u);
  memcpy(c->v, in->v, nv * nc * sizeof *c->v);
  if (c->xp.nq) memcpy(c->q, in->q, (size_t)c->xp.nq * nc * sizeof *c->q);
  for (size_t k = 0; k < nv; k++) memcpy(c->f[c->cur] + k * nf, in->f + k * nc, nc * sizeof *in->f);
  memcpy(c->work, in->work, DT_XP_WORK * ne * sizeof *c->work);
  if (c->hist && in->hist) memcpy(c->hist, in->hist, dt_xp_hist_doubles(&c->xp) * sizeof *c->hist);
  return DT_OK;
}

/* buf[k n_send + i] = f[k nf + send[i]] */
static dt_status cpu_send(void *impl, double *buf, dt_ctx *ctx) {
  xp_cpu *c = impl;
  const size_t nf = dt_xp_copies(&c->xp) + (size_t)c->xp.n_ghost, ns = (size_t)c->xp.n_send;
  (void)ctx;
  for (size_t k = 0; k < (size_t)c->xp.nv; k++)
    for (size_t i = 0; i < ns; i++) buf[k * ns + i] = c->f[c->cur][k * nf + c->xp.send[i]];
  return DT_OK;
}

/* f[k nf + nc + g] = buf[k n_ghost + g] */
static dt_status cpu_recv(void *impl, const double *buf, dt_ctx *ctx) {
  xp_cpu *c = impl;
  const size_t nc = dt_xp_copies(&c->xp), ng = (size_t)c->xp.n_ghost, nf = nc + ng;
  (void)ctx;
  for (size_t k = 0; k < (size_t)c->xp.nv; k++)
    if (ng) memcpy(c->f[c->cur] + k * nf + nc, buf + k * ng, ng * sizeof *buf);
  return DT_OK;
}

const dt_xp_ops dt_xp_cpu_ops = {.name = "cpu",
                                 .create = cpu_create,
                                 .set_step = cpu_set_step,
                                 .step = cpu_step,
                                 .get = cpu_get,
                                 .put = cpu_put,
                                 .destroy = cpu_destroy,
                                 .send = cpu_send,
                                 .recv = cpu_recv};
