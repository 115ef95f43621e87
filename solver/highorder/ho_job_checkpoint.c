/* Checkpoints of order-P jobs (ho_job.h): what binds one to its job, and the run's state
 * saved to and restored from one (ho_checkpoint.h holds the file). The hash covers what
 * changes the numbers a resumed run would continue: the parsed job (dt_model_hash: the corner
 * mesh, materials, loads and constraints), the step's increments, the solver's tolerances and
 * caps, the output keys (the files a resumed run keeps), the order and the order-P mesh
 * itself; the job file's text (key order, spacing) does not count. */
#include <string.h>

#include "analysis/checkpoint.h"
#include "highorder/ho_job_internal.h"

#define FNV_PRIME 1099511628211ull

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * FNV_PRIME;
  return h;
}

void ho_job_hash(ho_run *r) {
  const dt_solver_options *s = &r->model->solver;
  const dt_output_options *oo = &r->model->output;
  int ints[8] = {r->m.order,
                 r->step->n_increments,
                 s->newton_max_iter,
                 s->pcg_max_iter,
                 oo->vtu,
                 oo->every,
                 (int)oo->fields,
                 0};
  double tols[3] = {s->newton_rtol, s->newton_dtol, s->pcg_rtol};
  uint64_t h = dt_model_hash(r->model);

  h = fnv(h, ints, sizeof ints);
  h = fnv(h, tols, sizeof tols);
  h = fnv(h, r->m.coords, sizeof(double) * 3 * (size_t)r->m.n_nodes);
  h = fnv(h, r->m.elem_nodes,
          sizeof(int) * (size_t)r->m.n_elems * (r->m.order + 1) * (r->m.order + 1) *
              (r->m.order + 1));
  r->hash = h;
  /* the header every checkpoint of this run has: Gauss points P + 1 (dt_ho_elastic_setup) */
  r->ck.order = r->m.order, r->ck.nq = r->m.order + 1;
  r->ck.n_elems = r->m.n_elems, r->ck.n_nodes = r->m.n_nodes;
  r->ck.n_increments = r->step->n_increments, r->ck.hash = h;
}

dt_status dt_ho_job_checkpoint_check(const char *path, const dt_ho_job_info *info, int *kept,
                                     dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_checkpoint expect, ck;

  *kept = 0;
  memset(&expect, 0, sizeof expect);
  expect.order = info->order, expect.nq = info->order + 1;
  expect.n_elems = info->n_elems, expect.n_nodes = info->n_nodes;
  expect.n_increments = info->n_increments, expect.hash = info->hash;
  DT_TRY(dt_ho_checkpoint_read(path, &expect, &ck, NULL, NULL, ctx));
  *kept = ck.kept;
cleanup:
  return rc;
}

/* The Newton report of the kept increments, from their rows. */
static void report_from_rows(ho_run *r) {
  memset(&r->rep, 0, sizeof r->rep);
  r->rep.increments = r->kept;
  for (int k = 0; k < r->kept; k++) {
    r->rep.newton[k] = r->ck.row[k].newton;
    r->rep.n_plastic[k] = r->ck.row[k].plastic;
    r->rep.newton_total += r->ck.row[k].newton;
    r->rep.pcg_total += r->ck.row[k].pcg;
  }
}

dt_status ho_job_restore(ho_run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_checkpoint expect = r->ck;
  char text[256];

  DT_TRY(dt_ho_checkpoint_read(r->o->checkpoint, &expect, &r->ck, r->u, &r->pl, ctx));
  r->kept = r->ck.kept;
  report_from_rows(r);
  snprintf(text, sizeof text,
           "resumed from checkpoint: step 1 at load factor %.6g, %d increments kept (not "
           "recomputed)",
           (double)r->kept / r->step->n_increments, r->kept);
  if (r->o->log) fprintf(r->o->log, "%s\n", text);
  if (r->o->resumed) r->o->resumed(r->kept, text, r->o->user);
cleanup:
  return rc;
}

dt_status ho_job_save(ho_run *r, const double *u, dt_ctx *ctx) {
  return dt_ho_checkpoint_write(r->o->checkpoint, &r->ck, u, &r->pl, ctx);
}
