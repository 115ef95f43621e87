/* The result files of an order-P job beside summary.json, as the hex8 path names them
 * (docs/job-format.md, output): history.csv with a row per converged increment, and for the
 * job's output.vtu, every output.every-th increment and the last, increment_NNNN.vtu with the
 * fields of output.fields (ho_vtu.h: Lagrange hexahedra, point data at the nodes) and
 * results.pvd listing them. They are written as each increment converges, before its
 * checkpoint, so a resumed run finds the files of the increments it keeps.
 *
 * RF is the hex8 path's: f_int - f_ext on the fixed DOFs, 0 elsewhere, with f_int of the
 * committed stresses (the converged increment's, so the state the solver holds is not
 * touched). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/results.h"
#include "highorder/ho_element.h"
#include "highorder/ho_job_internal.h"
#include "io/output_parts.h"

/* Whether increment k of n gets a VTU (output.every, and always the last). */
static int vtu_due(const ho_output *out, int k, int n) {
  return out->vtu && (k % out->every == 0 || k == n);
}

static void history_row(const ho_run *r, int k, dt_history_row *h) {
  const dt_ho_checkpoint_row *c = &r->ck.row[k - 1];
  memset(h, 0, sizeof *h);
  h->step = 0, h->increment = k;
  h->load_factor = h->time = (double)k / r->step->n_increments;
  h->newton_iters = c->newton, h->pcg_iters = c->pcg, h->residual = c->residual;
  h->n_plastic_qp = (int)c->plastic;
}

/* history.csv anew: the header and the kept rows, then open for appending. */
static dt_status open_history(ho_run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char path[4200], tmp[4300];
  FILE *f = NULL;
  int err = 0;

  snprintf(path, sizeof path, "%s/history.csv", r->o->outdir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  f = fopen(tmp, "w");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot write %s", tmp);
  err |= dt_history_write_header(f, r->model);
  for (int k = 1; k <= r->kept; k++) {
    dt_history_row h;
    history_row(r, k, &h);
    err |= dt_history_write_row(f, &h);
  }
  err |= fclose(f) != 0;
  f = NULL;
  DT_CHECK(!err && rename(tmp, path) == 0, ctx, DT_ERR_IO, "cannot write %s", path);
  r->out.history = fopen(path, "a");
  DT_CHECK(r->out.history != NULL, ctx, DT_ERR_IO, "cannot open %s", path);
cleanup:
  if (f) fclose(f);
  return rc;
}

/* The nodal arrays the job's fields need. */
static dt_status alloc_fields(ho_output *out, const dt_ho_plastic *pl, int n_nodes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t nn = (size_t)n_nodes;
  if (out->fields & DT_OUT_RF) {
    DT_ALLOC(out->fint, 3 * nn, ctx, "internal forces of a VTU");
    DT_ALLOC(out->rf, 3 * nn, ctx, "reactions of a VTU");
  }
  if (out->fields & DT_OUT_S) DT_ALLOC(out->s, 6 * nn, ctx, "nodal stresses");
  if (out->fields & DT_OUT_E) DT_ALLOC(out->e, 6 * nn, ctx, "nodal strains");
  if (out->fields & DT_OUT_PEEQ) DT_ALLOC(out->peeq, nn, ctx, "nodal PEEQ");
  if (out->fields & DT_OUT_MISES) {
    DT_ALLOC(out->mises, nn, ctx, "nodal Mises stresses");
    DT_ALLOC(out->qp_mises, pl->n_points, ctx, "Mises stresses at the Gauss points");
  }
cleanup:
  return rc;
}

dt_status ho_output_open(ho_run *r, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  ho_output *out = &r->out;
  const dt_output_options *oo = &r->model->output;

  out->vtu = oo->vtu;
  out->every = oo->every > 0 ? oo->every : 1;
  out->fields = oo->fields;
  out->pcg_before = r->rep.pcg_total;
  DT_CHECK(mkdir(r->o->outdir, 0755) == 0 || errno == EEXIST, ctx, DT_ERR_IO,
           "cannot create the output folder %s: %s", r->o->outdir, strerror(errno));
  DT_TRY(open_history(r, ctx));
  if (out->vtu) {
    DT_TRY(dt_ho_vtu_setup(&r->m, &r->el, &out->v, ctx));
    DT_TRY(alloc_fields(out, &r->pl, r->m.n_nodes, ctx));
  }
cleanup:
  return rc;
}

void ho_output_close(ho_run *r) {
  ho_output *out = &r->out;
  if (out->history) fclose(out->history);
  dt_ho_vtu_free(&out->v);
  dt_free(out->fint), dt_free(out->rf), dt_free(out->s), dt_free(out->e), dt_free(out->peeq);
  dt_free(out->mises), dt_free(out->qp_mises);
  memset(out, 0, sizeof *out);
}

/* The pointwise step of f_int from the committed stresses: their fluxes, whatever u is. */
static void committed_flux(const void *user, int e, const double *qd, int nq3, double *g) {
  const dt_ho_plastic *pl = user;
  for (int q = 0; q < nq3; q++) {
    double X[3][3], S[3][3], s[6];
    for (int k = 0; k < 6; k++) s[k] = pl->stress_c[((size_t)e * DT_HO_VOIGT + k) * nq3 + q];
    dt_ho_point_inverse_jacobian(qd, nq3, q, X);
    dt_ho_voigt_tensor(s, S);
    dt_ho_point_flux(qd[q], X, S, nq3, q, g);
  }
}

/* RF = f_int - lam f on the fixed DOFs. */
static dt_status reactions(ho_run *r, const double *u, double lam, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(dt_ho_element_sweep(&r->el, u, r->out.fint, committed_flux, &r->pl, ctx));
  for (size_t i = 0; i < 3 * (size_t)r->m.n_nodes; i++)
    r->out.rf[i] = r->fixed[i] ? r->out.fint[i] - lam * r->f[i] : 0.0;
cleanup:
  return rc;
}

static void mises_at_points(const dt_ho_plastic *pl, double *qp) {
  for (int e = 0; e < pl->op->n_elems; e++)
    for (int q = 0; q < pl->nq3; q++) {
      double s[6];
      for (int k = 0; k < 6; k++) s[k] = pl->stress_c[((size_t)e * DT_HO_VOIGT + k) * pl->nq3 + q];
      qp[(size_t)e * pl->nq3 + q] = dt_mises(s);
    }
}

/* results.pvd: the VTUs of increments 1..k. */
static dt_status write_pvd(const ho_run *r, int k, dt_ctx *ctx) {
  dt_pvd_entry e[DT_HO_NEWTON_MAX_INCREMENTS];
  char path[4200];
  int n = 0;
  for (int j = 1; j <= k; j++)
    if (vtu_due(&r->out, j, r->step->n_increments)) {
      snprintf(e[n].file, sizeof e[n].file, "increment_%04d.vtu", j);
      e[n++].time = (double)j / r->step->n_increments;
    }
  snprintf(path, sizeof path, "%s/results.pvd", r->o->outdir);
  return dt_pvd_write(path, e, n, ctx);
}

static dt_status write_vtu(ho_run *r, int k, const double *u, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  ho_output *out = &r->out;
  const dt_ho_plastic *pl = &r->pl;
  dt_ho_vtu_fields f;
  char path[4200];
  unsigned want = out->fields;

  memset(&f, 0, sizeof f);
  f.time = (double)k / r->step->n_increments, f.step = 0, f.increment = k;
  if (want & DT_OUT_U) f.u = u;
  if (want & DT_OUT_RF) {
    DT_TRY(reactions(r, u, f.time, ctx));
    f.rf = out->rf;
  }
  if (want & DT_OUT_S) {
    dt_ho_vtu_nodal(&out->v, &r->m, pl->stress_c, DT_HO_VOIGT, 0, 6, out->s);
    f.s = out->s;
  }
  if (want & DT_OUT_E) {
    dt_ho_vtu_nodal(&out->v, &r->m, pl->strain_c, DT_HO_VOIGT, 0, 6, out->e);
    f.e = out->e;
  }
  if (want & DT_OUT_PEEQ) {
    dt_ho_vtu_nodal(&out->v, &r->m, pl->hist_c, DT_MAT_STATE_DOUBLES, DT_HIST_PEEQ, 1, out->peeq);
    f.peeq = out->peeq;
  }
  if (want & DT_OUT_MISES) {
    mises_at_points(pl, out->qp_mises);
    dt_ho_vtu_nodal(&out->v, &r->m, out->qp_mises, 1, 0, 1, out->mises);
    f.mises = out->mises;
  }
  snprintf(path, sizeof path, "%s/increment_%04d.vtu", r->o->outdir, k);
  DT_TRY(dt_ho_vtu_write(&out->v, &r->m, &f, path, ctx));
  DT_TRY(write_pvd(r, k, ctx)); /* last: the collection lists complete files */
cleanup:
  return rc;
}

dt_status ho_output_increment(ho_run *r, const dt_ho_progress *ev, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  ho_output *out = &r->out;
  int k = ev->increment;
  dt_history_row h;

  DT_CHECK(k >= 1 && k <= DT_HO_NEWTON_MAX_INCREMENTS, ctx, DT_ERR_INTERNAL,
           "increment %d is past the rows kept", k);
  r->ck.row[k - 1].newton = ev->iteration;
  r->ck.row[k - 1].pcg = r->rep.pcg_total - out->pcg_before;
  r->ck.row[k - 1].residual = ev->residual;
  r->ck.row[k - 1].plastic = ev->n_plastic;
  r->ck.kept = k;
  out->pcg_before = r->rep.pcg_total;
  history_row(r, k, &h);
  DT_CHECK(dt_history_write_row(out->history, &h) == 0, ctx, DT_ERR_IO,
           "cannot write %s/history.csv", r->o->outdir);
  if (vtu_due(out, k, r->step->n_increments)) DT_TRY(write_vtu(r, k, ev->u, ctx));
cleanup:
  return rc;
}

json_t *ho_output_files(const ho_run *r) {
  json_t *vtu = json_array();
  int n = r->step->n_increments;
  for (int k = 1; vtu && k <= r->rep.increments; k++)
    if (vtu_due(&r->out, k, n)) {
      char name[32];
      snprintf(name, sizeof name, "increment_%04d.vtu", k);
      json_array_append_new(vtu, json_string(name));
    }
  return json_pack("{s:s, s:o, s:o, s:n}", "history", "history.csv", "collection",
                   json_array_size(vtu) > 0 ? json_string("results.pvd") : json_null(), "vtu",
                   vtu ? vtu : json_null(), "frd");
}
