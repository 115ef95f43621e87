/* Explicit dynamics split over parts: the elements in P parts, each a dt_xp_problem of its own
 * elements (renumbered locally, ascending global order) run by an inner backend instance (one
 * device per part), the whole behind the dt_xp_ops interface with the one-part layouts.
 *
 * The only coupling across parts within a step is the force gather: a copy whose node other
 * parts' elements share needs their copies' forces. Each part's force buffers hold ghost slots
 * after its copies, one per remote copy some local copy gathers, and every local gather list
 * names local copies and ghost slots in ascending GLOBAL element order: each copy then adds the
 * same numbers in the same order as in the one-part run, and the run is bitwise identical to
 * it. After every step (and after put) each part hands out the forces of its copies that
 * other parts hold as ghosts (inner send, in a precomputed order) and each part takes its
 * ghosts' values (inner recv): values only, no indices, host-staged between the parts; where
 * the inner backend links its instances (devices that reach each other's memory), each part
 * pulls its ghosts from the others' force buffers instead, in device order, so the host queues
 * step after step without waiting for any device. The
 * per-element energy accumulators and the per-copy owner flags (the node's first element,
 * global) come back in the global layout from get, so the driver's sums stay as they are.
 * Inner steps only queue work on their devices, so parts on different GPUs run concurrently up
 * to the exchange. */
#include <stdio.h>
#include <string.h>

#include "explicit_parts.h"
#include "partition/partition.h"

typedef struct xp_part {
  void *impl;
  int ne, *elem; /* its elements, global indices ascending */
  size_t nc;
  int n_send, n_ghost;
  int *ghost_part, *ghost_pos; /* per ghost slot: the part that sends it, and where in its list */
  double *send_buf, *recv_buf; /* nv x n_send, nv x n_ghost */
} xp_part;

typedef struct xp_parts {
  const dt_xp_ops *inner;
  int n, ne, npe, nv, nq, n_faces, plastic;
  size_t nc, hist_elem; /* history doubles per element */
  long ghosts;          /* ghost slots of all parts */
  int linked;           /* the parts pull their ghosts device to device (inner link) */
  xp_part *p;
  dt_xp_state tmp; /* one part's state, sized for the largest */
  int *tmp_bc;
  double *tmp_fc, *tmp_pressure;
} xp_parts;

/* Per-copy arrays with comp components: the part's share of a global SoA array (split) and
 * back (join). Copy c = a ne + e (DT_XP_COPY). */
#define XP_COPY_MAP(name, T, DIR)                                                                  \
  static void name(const xp_parts *s, const xp_part *p, int comp, T *g, T *l) {                    \
    for (int k = 0; k < comp; k++)                                                                 \
      for (int a = 0; a < s->npe; a++)                                                             \
        for (int e = 0; e < p->ne; e++) {                                                          \
          T *gv =                                                                                  \
              &g[(size_t)k * s->nc + DT_XP_COPY((size_t)p->elem[e], (size_t)a, (size_t)s->ne)];    \
          T *lv = &l[(size_t)k * p->nc + DT_XP_COPY((size_t)e, (size_t)a, (size_t)p->ne)];         \
          DIR;                                                                                     \
        }                                                                                          \
  }
XP_COPY_MAP(split_copies, double, *lv = *gv)
XP_COPY_MAP(split_copies_int, int, *lv = *gv)
XP_COPY_MAP(join_copies, double, *gv = *lv)

/* Per-element arrays with comp components, SoA over elements. */
#define XP_ELEM_MAP(name, T, DIR)                                                                  \
  static void name(const xp_parts *s, const xp_part *p, size_t comp, T *g, T *l) {                 \
    for (size_t k = 0; k < comp; k++)                                                              \
      for (int e = 0; e < p->ne; e++) {                                                            \
        T *gv = &g[k * (size_t)s->ne + (size_t)p->elem[e]];                                        \
        T *lv = &l[k * (size_t)p->ne + (size_t)e];                                                 \
        DIR;                                                                                       \
      }                                                                                            \
  }
XP_ELEM_MAP(split_elems, double, *lv = *gv)
XP_ELEM_MAP(split_elems_int, int, *lv = *gv)
XP_ELEM_MAP(join_elems, double, *gv = *lv)
XP_ELEM_MAP(join_elems_int, int, *gv = *lv)

static void parts_destroy(void *impl) {
  xp_parts *s = impl;
  if (!s) return;
  for (int i = 0; s->p && i < s->n; i++) {
    xp_part *p = &s->p[i];
    if (p->impl) s->inner->destroy(p->impl);
    dt_free(p->elem);
    dt_free(p->ghost_part);
    dt_free(p->ghost_pos);
    dt_free(p->send_buf);
    dt_free(p->recv_buf);
  }
  dt_free(s->p);
  dt_free(s->tmp.u);
  dt_free(s->tmp.v);
  dt_free(s->tmp.q);
  dt_free(s->tmp.work);
  dt_free(s->tmp.plastic);
  dt_free(s->tmp.f);
  dt_free(s->tmp.hist);
  dt_free(s->tmp_bc);
  dt_free(s->tmp_fc);
  dt_free(s->tmp_pressure);
  dt_free(s);
}

/* Every part's ghosts to every part: send from all, then recv into all. */
static dt_status exchange(xp_parts *s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (s->linked) {
    for (int i = 0; i < s->n; i++) DT_TRY(s->inner->pull(s->p[i].impl, ctx));
    goto cleanup;
  }
  for (int i = 0; i < s->n; i++)
    if (s->p[i].n_send) DT_TRY(s->inner->send(s->p[i].impl, s->p[i].send_buf, ctx));
  for (int i = 0; i < s->n; i++) {
    xp_part *p = &s->p[i];
    const size_t ng = (size_t)p->n_ghost;
    if (!ng) continue;
    for (size_t g = 0; g < ng; g++) {
      const xp_part *src = &s->p[p->ghost_part[g]];
      for (size_t k = 0; k < (size_t)s->nv; k++)
        p->recv_buf[k * ng + g] = src->send_buf[k * (size_t)src->n_send + (size_t)p->ghost_pos[g]];
    }
    DT_TRY(s->inner->recv(p->impl, p->recv_buf, ctx));
  }
cleanup:
  return rc;
}

/* Part p's elements, ascending, from the element map. */
static dt_status part_elements(xp_parts *s, const int *part, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int e = 0; e < s->ne; e++) {
    const int q = part ? part[e] : (int)((long)e * s->n / s->ne);
    DT_CHECK(q >= 0 && q < s->n, ctx, DT_ERR_INPUT, "element %d: part %d of %d", e, q, s->n);
    s->p[q].ne++;
  }
  for (int q = 0; q < s->n; q++) {
    DT_CHECK(s->p[q].ne > 0, ctx, DT_ERR_INPUT,
             "part %d of the split explicit run has no elements (%d parts for %d elements)", q,
             s->n, s->ne);
    DT_ALLOC(s->p[q].elem, s->p[q].ne, ctx, "a part's elements");
    s->p[q].nc = (size_t)s->npe * (size_t)s->p[q].ne;
    s->p[q].ne = 0;
  }
  for (int e = 0; e < s->ne; e++) {
    xp_part *p = &s->p[part ? part[e] : (int)((long)e * s->n / s->ne)];
    p->elem[p->ne++] = e;
  }
cleanup:
  return rc;
}

/* The sub-problem's arrays that are the global ones restricted: per copy and per element. */
static dt_status sub_arrays(const xp_parts *s, const xp_part *p, const dt_xp_problem *xp,
                            dt_xp_problem *sub, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_ALLOC(sub->X0, 3 * p->nc, ctx, "a part's reference positions");
  split_copies(s, p, 3, xp->X0, sub->X0);
  DT_ALLOC(sub->inv_mass, (size_t)xp->nm * p->nc, ctx, "a part's masses");
  split_copies(s, p, xp->nm, xp->inv_mass, sub->inv_mass);
  if (xp->kind == DT_XP_SHELL4) {
    DT_ALLOC(sub->D0, 3 * p->nc, ctx, "a part's directors");
    split_copies(s, p, 3, xp->D0, sub->D0);
    DT_ALLOC(sub->q0, 4 * p->nc, ctx, "a part's frames");
    split_copies(s, p, 4, xp->q0, sub->q0);
    DT_ALLOC(sub->thick, p->ne, ctx, "a part's thickness");
    split_elems(s, p, 1, xp->thick, sub->thick);
  }
  DT_ALLOC(sub->owner, p->nc, ctx, "a part's owners");
  split_copies_int(s, p, 1, xp->owner, sub->owner);
  DT_ALLOC(sub->node, p->nc, ctx, "a part's copy nodes");
  split_copies_int(s, p, 1, xp->node, sub->node);
  DT_ALLOC(sub->mat, p->ne, ctx, "a part's materials");
  split_elems_int(s, p, 1, xp->mat, sub->mat);
  DT_ALLOC(sub->mats, xp->n_mats, ctx, "a part's material list");
  memcpy(sub->mats, xp->mats, (size_t)xp->n_mats * sizeof *xp->mats);
cleanup:
  return rc;
}

/* The part's gather lists: each local copy's global list in its order, every entry a local
 * copy or a ghost slot (numbered in order of first use). slot: nc entries of -1, left so. */
static dt_status sub_gather(const xp_parts *s, xp_part *p, const int *epart, const int *eloc,
                            const dt_xp_problem *xp, int self, int *slot, int *ghost_copy,
                            dt_xp_problem *sub, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  long total = 0;
  DT_ALLOC(sub->nbr_ptr, p->nc + 1, ctx, "a part's gather offsets");
  for (int a = 0; a < s->npe; a++)
    for (int e = 0; e < p->ne; e++) {
      const int C = DT_XP_COPY(p->elem[e], a, s->ne);
      total += xp->nbr_ptr[C + 1] - xp->nbr_ptr[C];
    }
  sub->n_nbr = (int)total;
  DT_ALLOC(sub->nbr, total, ctx, "a part's gather lists");
  for (int a = 0, j = 0; a < s->npe; a++)
    for (int e = 0; e < p->ne; e++) {
      const int C = DT_XP_COPY(p->elem[e], a, s->ne);
      for (int i = xp->nbr_ptr[C]; i < xp->nbr_ptr[C + 1]; i++) {
        const int O = xp->nbr[i], eo = O % s->ne, ao = O / s->ne;
        if (epart[eo] == self)
          sub->nbr[j++] = DT_XP_COPY(eloc[eo], ao, p->ne);
        else {
          if (slot[O] < 0) {
            slot[O] = p->n_ghost;
            ghost_copy[p->n_ghost++] = O;
          }
          sub->nbr[j++] = (int)p->nc + slot[O];
        }
      }
      sub->nbr_ptr[DT_XP_COPY(e, a, p->ne) + 1] = j;
    }
  for (int g = 0; g < p->n_ghost; g++) slot[ghost_copy[g]] = -1;
cleanup:
  return rc;
}

/* Where each part's ghosts come from: the sending part and its send list, every remote copy
 * listed once per sending part (spos: nc entries of -1). */
static dt_status send_lists(xp_parts *s, int **ghost_copy, const int *epart, const int *eloc,
                            int *spos, dt_xp_problem *sub, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int q = 0; q < s->n; q++) DT_ALLOC(sub[q].send, s->p[q].nc, ctx, "a part's send list");
  for (int q = 0; q < s->n; q++) {
    xp_part *p = &s->p[q];
    DT_ALLOC(p->ghost_part, p->n_ghost, ctx, "ghost sources");
    DT_ALLOC(p->ghost_pos, p->n_ghost, ctx, "ghost positions");
    for (int g = 0; g < p->n_ghost; g++) {
      const int O = ghost_copy[q][g], eo = O % s->ne, src = epart[eo];
      if (spos[O] < 0) {
        spos[O] = sub[src].n_send;
        sub[src].send[sub[src].n_send++] = DT_XP_COPY(eloc[eo], O / s->ne, s->p[src].ne);
      }
      p->ghost_part[g] = src;
      p->ghost_pos[g] = spos[O];
    }
  }
  for (int q = 0; q < s->n; q++) {
    s->p[q].n_send = sub[q].n_send;
    DT_ALLOC(s->p[q].send_buf, (size_t)s->nv * (size_t)s->p[q].n_send, ctx, "send buffer");
    DT_ALLOC(s->p[q].recv_buf, (size_t)s->nv * (size_t)s->p[q].n_ghost, ctx, "ghost buffer");
  }
cleanup:
  return rc;
}

/* The sub-problems of all parts (sub: n entries, zeroed). */
static dt_status build_subs(xp_parts *s, const dt_xp_problem *xp, dt_xp_problem *sub, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *epart = NULL, *eloc = NULL, *slot = NULL, **ghost_copy = NULL;
  DT_ALLOC(epart, s->ne, ctx, "element parts");
  DT_ALLOC(eloc, s->ne, ctx, "element local indices");
  DT_ALLOC(slot, s->nc, ctx, "ghost slots");
  DT_ALLOC(ghost_copy, s->n, ctx, "ghost copies");
  for (size_t c = 0; c < s->nc; c++) slot[c] = -1;
  for (int q = 0; q < s->n; q++)
    for (int e = 0; e < s->p[q].ne; e++) epart[s->p[q].elem[e]] = q, eloc[s->p[q].elem[e]] = e;
  for (int q = 0; q < s->n; q++) {
    xp_part *p = &s->p[q];
    sub[q] = *xp; /* the scalars; every array below is the part's own */
    sub[q].X0 = sub[q].D0 = sub[q].inv_mass = sub[q].q0 = sub[q].thick = NULL;
    sub[q].owner = sub[q].nbr_ptr = sub[q].nbr = sub[q].mat = sub[q].node = sub[q].send = NULL;
    sub[q].mats = NULL;
    sub[q].ne = p->ne;
    sub[q].n_ghost = sub[q].n_send = 0;
    DT_TRY(sub_arrays(s, p, xp, &sub[q], ctx));
    DT_ALLOC(ghost_copy[q], s->nc - p->nc + 1, ctx, "ghost copies");
    DT_TRY(sub_gather(s, p, epart, eloc, xp, q, slot, ghost_copy[q], &sub[q], ctx));
    sub[q].n_ghost = p->n_ghost;
    s->ghosts += p->n_ghost;
  }
  DT_TRY(send_lists(s, ghost_copy, epart, eloc, slot, sub, ctx));
cleanup:
  for (int q = 0; ghost_copy && q < s->n; q++) dt_free(ghost_copy[q]);
  dt_free(ghost_copy);
  dt_free(epart);
  dt_free(eloc);
  dt_free(slot);
  return rc;
}

/* Where the inner backend can, every part pulls its ghosts from the other parts' devices: ghost
 * g of part q is copy sub[src].send[ghost_pos[g]] of part src = ghost_part[g]. All parts or
 * none: a part that cannot link undoes the others' links. */
static dt_status link_parts(xp_parts *s, const dt_xp_problem *sub, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  void **peers = NULL;
  int *src_copy = NULL, all = 1, linked = 0;
  if (!s->inner->link || !s->inner->pull || s->n < 2) return DT_OK;
  DT_ALLOC(peers, s->n, ctx, "the parts' instances");
  for (int q = 0; q < s->n; q++) peers[q] = s->p[q].impl;
  for (int q = 0; q < s->n && all; q++) {
    const xp_part *p = &s->p[q];
    DT_ALLOC(src_copy, (size_t)p->n_ghost + 1, ctx, "the ghosts' source copies");
    for (int g = 0; g < p->n_ghost; g++) src_copy[g] = sub[p->ghost_part[g]].send[p->ghost_pos[g]];
    DT_TRY(s->inner->link(p->impl, peers, s->n, p->ghost_part, src_copy, &linked, ctx));
    dt_free(src_copy);
    src_copy = NULL;
    all = linked;
  }
  if (!all)
    for (int q = 0; q < s->n; q++)
      DT_TRY(s->inner->link(s->p[q].impl, NULL, 0, NULL, NULL, &linked, ctx));
  s->linked = all;
cleanup:
  dt_free(peers);
  dt_free(src_copy);
  return rc;
}

/* Scratch for one part's state and step arrays, sized for the largest part. */
static dt_status alloc_tmp(xp_parts *s, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t nc = 0, ne = 0;
  for (int q = 0; q < s->n; q++) {
    if (s->p[q].nc > nc) nc = s->p[q].nc;
    if ((size_t)s->p[q].ne > ne) ne = (size_t)s->p[q].ne;
  }
  DT_ALLOC(s->tmp.u, 3 * nc, ctx, "a part's displacements");
  DT_ALLOC(s->tmp.v, (size_t)s->nv * nc, ctx, "a part's velocities");
  DT_ALLOC(s->tmp.q, (size_t)s->nq * nc, ctx, "a part's frames");
  DT_ALLOC(s->tmp.f, (size_t)s->nv * nc, ctx, "a part's forces");
  DT_ALLOC(s->tmp.work, DT_XP_WORK * ne, ctx, "a part's energies");
  DT_ALLOC(s->tmp.plastic, ne, ctx, "a part's yielded points");
  if (s->plastic) DT_ALLOC(s->tmp.hist, s->hist_elem * ne, ctx, "a part's history");
  DT_ALLOC(s->tmp_bc, nc, ctx, "a part's constraints");
  DT_ALLOC(s->tmp_fc, 3 * nc, ctx, "a part's forces");
  DT_ALLOC(s->tmp_pressure, (size_t)s->n_faces * ne, ctx, "a part's pressures");
cleanup:
  return rc;
}

dt_status dt_xp_parts_create(const dt_xp_ops *inner, int n_parts, const int *devices,
                             const int *part, const dt_xp_problem *xp, const double *v0,
                             int threads, void **impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_parts *s = NULL;
  dt_xp_problem *sub = NULL;
  double *v0p = NULL;

  DT_CHECK(inner->send && inner->recv, ctx, DT_ERR_INPUT,
           "the %s backend of explicit dynamics cannot run in parts (it has no send/recv)",
           inner->name);
  DT_CHECK(n_parts >= 1 && n_parts <= xp->ne, ctx, DT_ERR_INPUT,
           "a split explicit run takes 1 to %d parts (its elements), not %d", xp->ne, n_parts);
  DT_ALLOC(s, 1, ctx, "the split explicit backend");
  s->inner = inner;
  s->n = n_parts, s->ne = xp->ne, s->npe = xp->npe, s->nv = xp->nv, s->nq = xp->nq;
  s->n_faces = xp->n_faces, s->plastic = xp->plastic, s->nc = dt_xp_copies(xp);
  s->hist_elem = xp->plastic ? (size_t)DT_MAT_STATE_DOUBLES * (size_t)xp->n_points : 0;
  DT_ALLOC(s->p, n_parts, ctx, "the parts");
  DT_ALLOC(sub, n_parts, ctx, "the parts' problems");
  DT_TRY(part_elements(s, part, ctx));
  DT_TRY(build_subs(s, xp, sub, ctx));
  DT_TRY(alloc_tmp(s, ctx));
  for (int q = 0; q < n_parts; q++) {
    if (v0) {
      DT_ALLOC(v0p, (size_t)s->nv * s->p[q].nc, ctx, "a part's initial velocities");
      split_copies(s, &s->p[q], s->nv, (double *)v0, v0p);
    }
    DT_TRY(inner->create(&sub[q], v0p, threads, devices ? devices[q] : 0, &s->p[q].impl, ctx));
    dt_free(v0p);
    v0p = NULL;
  }
  DT_TRY(link_parts(s, sub, ctx));
  *impl = s;
  s = NULL;
cleanup:
  for (int q = 0; sub && q < n_parts; q++) dt_xp_problem_free(&sub[q]);
  dt_free(sub);
  dt_free(v0p);
  parts_destroy(s);
  return rc;
}

static dt_status parts_create(const dt_xp_problem *xp, const double *v0, int threads, int device,
                              void **impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  (void)xp, (void)v0, (void)threads, (void)device, (void)impl;
  DT_CHECK(0, ctx, DT_ERR_INPUT,
           "the split explicit backend is created by dt_xp_parts_create (it needs the inner "
           "backend and the parts' devices)");
cleanup:
  return rc;
}

/* Each part's share of the step's loads; the constraint list is shared whole (bc indexes it),
 * and every part keeps the global has_pressure, so each element runs the code it runs in the
 * one-part run. */
static dt_status parts_set_step(void *impl, const dt_xp_step *st, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_parts *s = impl;
  for (int q = 0; q < s->n; q++) {
    const xp_part *p = &s->p[q];
    dt_xp_step ps = {st->n_bcs, st->bcs, s->tmp_bc, s->tmp_fc, s->tmp_pressure, st->has_pressure};
    split_copies_int(s, p, 1, st->bc, s->tmp_bc);
    split_copies(s, p, 3, st->fc, s->tmp_fc);
    split_elems(s, p, (size_t)s->n_faces, st->pressure, s->tmp_pressure);
    DT_TRY(s->inner->set_step(p->impl, &ps, ctx));
  }
cleanup:
  return rc;
}

static dt_status parts_step(void *impl, const dt_xp_time *T, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_parts *s = impl;
  for (int q = 0; q < s->n; q++) DT_TRY(s->inner->step(s->p[q].impl, T, ctx));
  DT_TRY(exchange(s, ctx));
cleanup:
  return rc;
}

static dt_status parts_get(void *impl, dt_xp_state *out, int *failed, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_parts *s = impl;
  *failed = 0;
  for (int q = 0; q < s->n; q++) {
    const xp_part *p = &s->p[q];
    dt_xp_state w = {out->u ? s->tmp.u : NULL,
                     out->v ? s->tmp.v : NULL,
                     out->q && s->nq ? s->tmp.q : NULL,
                     out->work ? s->tmp.work : NULL,
                     out->plastic ? s->tmp.plastic : NULL,
                     out->f ? s->tmp.f : NULL,
                     out->hist && s->plastic ? s->tmp.hist : NULL};
    int pf = 0;
    DT_TRY(s->inner->get(p->impl, &w, &pf, ctx));
    if (pf > *failed) *failed = pf;
    if (w.u) join_copies(s, p, 3, out->u, w.u);
    if (w.v) join_copies(s, p, s->nv, out->v, w.v);
    if (w.q) join_copies(s, p, s->nq, out->q, w.q);
    if (w.f) join_copies(s, p, s->nv, out->f, w.f);
    if (w.work) join_elems(s, p, DT_XP_WORK, out->work, w.work);
    if (w.plastic) join_elems_int(s, p, 1, out->plastic, w.plastic);
    if (w.hist) join_elems(s, p, s->hist_elem, out->hist, w.hist);
  }
cleanup:
  return rc;
}

static dt_status parts_put(void *impl, const dt_xp_state *in, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  xp_parts *s = impl;
  for (int q = 0; q < s->n; q++) {
    const xp_part *p = &s->p[q];
    dt_xp_state w = {s->tmp.u,
                     s->tmp.v,
                     s->tmp.q,
                     s->tmp.work,
                     NULL,
                     s->tmp.f,
                     in->hist && s->plastic ? s->tmp.hist : NULL};
    split_copies(s, p, 3, in->u, w.u);
    split_copies(s, p, s->nv, in->v, w.v);
    if (s->nq) split_copies(s, p, s->nq, in->q, w.q);
    split_copies(s, p, s->nv, in->f, w.f);
    split_elems(s, p, DT_XP_WORK, in->work, w.work);
    if (w.hist) split_elems(s, p, s->hist_elem, in->hist, w.hist);
    DT_TRY(s->inner->put(p->impl, &w, ctx));
  }
  DT_TRY(exchange(s, ctx)); /* the ghosts of the forces just put */
cleanup:
  return rc;
}

void dt_xp_parts_describe(const void *impl, char *buf, size_t n) {
  const xp_parts *s = impl;
  int lo = s->ne, hi = 0;
  for (int q = 0; q < s->n; q++) {
    if (s->p[q].ne < lo) lo = s->p[q].ne;
    if (s->p[q].ne > hi) hi = s->p[q].ne;
  }
  snprintf(buf, n,
           "explicit dynamics split into %d parts on the %s backend: %d to %d elements a part, "
           "%ld ghost copies (%.2f %% of the %zu copies) exchanged after every step, %s",
           s->n, s->inner->name, lo, hi, s->ghosts, 100.0 * (double)s->ghosts / (double)s->nc,
           s->nc, s->linked ? "device to device" : "staged through the host");
}

dt_status dt_xp_parts_partition(const dt_model *m, int n_parts, int *part, char *note,
                                size_t n_note, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int ne = m->n_elems;
  const char *why = "";
  DT_CHECK(n_parts >= 1 && n_parts <= ne, ctx, DT_ERR_INPUT,
           "a split explicit run takes 1 to %d parts (its elements), not %d", ne, n_parts);
#ifdef DUCTILE_HAVE_METIS
  if (n_parts > 1) {
    dt_partition_report rep;
    dt_partition_options po;
    dt_status mr;
    memset(&rep, 0, sizeof rep);
    dt_partition_options_default(&po);
    /* the exchange is per shared node: join every pair of elements that share one (shells share
     * edges, fewer nodes than the face rule asks for) */
    po.adjacency = DT_PARTITION_ADJ_NODES;
    mr = dt_partition_elements(m, n_parts, &po, part, &rep, ctx);
    if (mr == DT_OK && rep.empty_parts == 0) {
      if (note)
        snprintf(note, n_note, "explicit parts: METIS%s, %d interface nodes, imbalance %.3f",
                 rep.clusters ? " on clusters of elements" : "", rep.interface_nodes,
                 rep.imbalance);
      dt_partition_report_free(&rep);
      return DT_OK;
    }
    why = mr == DT_OK ? " (METIS left a part empty)" : " (METIS failed)";
    dt_partition_report_free(&rep);
    dt_ctx_reset(ctx);
  }
#else
  why = " (this build has no METIS)";
#endif
  for (int e = 0; e < ne; e++) part[e] = (int)((long)e * n_parts / ne);
  if (note) snprintf(note, n_note, "explicit parts: contiguous element ranges%s", why);
cleanup:
  return rc;
}

const dt_xp_ops dt_xp_parts_ops = {.name = "parts",
                                   .create = parts_create,
                                   .set_step = parts_set_step,
                                   .step = parts_step,
                                   .get = parts_get,
                                   .put = parts_put,
                                   .destroy = parts_destroy};
