/* Checkpoints of explicit runs (explicit.h), in the file format of analysis/checkpoint.h: its
 * vectors hold the node copies' u, v, q (shells), the forces the next step gathers, the energy
 * accumulators and the initial kinetic energy; its point state the plastic history; its
 * position fields the step, the time steps done (as the load factor field), the last half
 * step and the frames taken. The file is bound to the model like an implicit run's. */
#include <string.h>

#include "analysis/checkpoint.h"
#include "backend/backend.h"
#include "explicit.h"

/* The doubles of the vectors and of the history, and the checkpoint sizes that hold them. */
static void sizes(const dt_xp_problem *xp, size_t *n_vec, size_t *n_hist, int *n_dofs, int *n_qp) {
  const size_t nc = dt_xp_copies(xp), ne = (size_t)xp->ne;
  *n_vec = (size_t)(3 + 2 * xp->nv + xp->nq) * nc + DT_XP_WORK * ne + 1;
  *n_hist = dt_xp_hist_doubles(xp);
  *n_dofs = (int)((*n_vec + DT_CK_NVEC - 1) / DT_CK_NVEC);
  *n_qp = (int)((*n_hist + DT_QP_STATE_DOUBLES - 1) / DT_QP_STATE_DOUBLES);
}

/* The state's arrays inside the checkpoint's vectors. */
static dt_xp_state views(const dt_xp_problem *xp, dt_checkpoint *ck) {
  const size_t nc = dt_xp_copies(xp);
  dt_xp_state st;
  memset(&st, 0, sizeof st);
  st.u = ck->vec;
  st.v = st.u + 3 * nc;
  st.q = st.v + (size_t)xp->nv * nc;
  st.f = st.q + (size_t)xp->nq * nc;
  st.work = st.f + (size_t)xp->nv * nc;
  st.hist = xp->plastic ? ck->qp : NULL;
  return st;
}

dt_status dt_xp_checkpoint_write(const char *path, const dt_model *m, const dt_xp_ops *o,
                                 void *impl, const dt_xp_problem *xp, const dt_xp_position *pos,
                                 const dt_run_summary *counters, dt_output_state_fn save,
                                 void *save_arg, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_checkpoint ck;
  dt_xp_state st;
  size_t n_vec, n_hist;
  int n_dofs, n_qp, failed = 0;

  memset(&ck, 0, sizeof ck);
  sizes(xp, &n_vec, &n_hist, &n_dofs, &n_qp);
  DT_TRY(dt_checkpoint_alloc(&ck, n_dofs, n_qp, ctx));
  st = views(xp, &ck);
  DT_TRY(o->get(impl, &st, &failed, ctx));
  ck.vec[n_vec - 1] = pos->ke0;
  ck.model_hash = dt_model_hash(m);
  ck.step = pos->step;
  ck.increment = pos->frame;
  ck.lambda = (double)pos->n; /* exact below 2^53 steps */
  ck.dlambda = pos->h_before;
  ck.counters = *counters;
  DT_TRY(dt_checkpoint_write(path, &ck, save, save_arg, ctx));
cleanup:
  dt_checkpoint_free(&ck);
  return rc;
}

dt_status dt_xp_checkpoint_read(const char *path, const dt_model *m, const dt_xp_ops *o, void *impl,
                                const dt_xp_problem *xp, dt_xp_position *pos,
                                dt_run_summary *counters, FILE **state, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_checkpoint ck;
  dt_xp_state st;
  size_t n_vec, n_hist;
  int n_dofs, n_qp;

  memset(&ck, 0, sizeof ck);
  *state = NULL;
  sizes(xp, &n_vec, &n_hist, &n_dofs, &n_qp);
  DT_TRY(dt_checkpoint_read(path, dt_model_hash(m), &ck, state, ctx));
  DT_CHECK(ck.n_dofs == n_dofs && ck.n_qp == n_qp && ck.step >= 0 && ck.step < m->n_steps &&
               ck.lambda >= 0,
           ctx, DT_ERR_INPUT, "checkpoint '%s' does not match this explicit model", path);
  st = views(xp, &ck);
  DT_TRY(o->put(impl, &st, ctx));
  pos->ke0 = ck.vec[n_vec - 1];
  pos->step = ck.step;
  pos->frame = ck.increment;
  pos->n = (long)ck.lambda;
  pos->h_before = ck.dlambda;
  *counters = ck.counters;
cleanup:
  if (rc != DT_OK && *state) {
    fclose(*state);
    *state = NULL;
  }
  dt_checkpoint_free(&ck);
  return rc;
}
