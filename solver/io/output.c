/* The output writer: directory, history.csv, per-increment VTU + PVD, results.dat, the .frd,
 * summary.json.
 *
 * This file owns the writer's lifetime and bookkeeping; the formats live in output_history.c,
 * output_vtu.c, output_dat.c, output_frd.c and output_summary.c, the background writer in
 * output_queue.c. Adding an output file means: write it from dt_output_increment (per
 * increment; from the writer thread's job if it is large) or dt_output_close (once), and list
 * it in summary.json's "files" so clients find it. */
#include "io/output_internal.h"
#include "io/output_dat.h"

#include <errno.h>
#include <string.h>

dt_status dt_output_open(const char *dir, const char *job_name, const dt_model *m, dt_output **out,
                         dt_ctx *ctx) {
  return dt_output_start(dir, job_name, m, 0, out, ctx);
}

dt_status dt_output_start(const char *dir, const char *job_name, const dt_model *m, int resume,
                          dt_output **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_output *o = NULL;
  char *path = NULL;
  size_t n3 = 0;
  *out = NULL;
  DT_CHECK(m->output.n_monitors >= 0 && m->output.n_monitors <= DT_MAX_MONITORS, ctx, DT_ERR_INPUT,
           "the model has %d output monitors; at most %d are supported", m->output.n_monitors,
           DT_MAX_MONITORS);
  DT_TRY(dt_output_mkdirs(dir, ctx));
  DT_ALLOC(o, 1, ctx, "the output writer");
  DT_ALLOC(o->dir, strlen(dir) + 1, ctx, "the output directory name");
  memcpy(o->dir, dir, strlen(dir) + 1);
  o->n_monitors = m->output.n_monitors;
  o->n_sets = m->n_nsets;
  n3 = 3 * (size_t)o->n_sets; /* a local: DT_ALLOC's count in `?:` warns on a product */
  DT_ALLOC(o->set_rf, n3, ctx, "node set reactions");
  DT_ALLOC(o->set_u, n3, ctx, "node set displacements");
  DT_TRY(dt_output_path(dir, "history.csv", &path, ctx));
  o->csv = fopen(path, "w");
  DT_CHECK(o->csv != NULL, ctx, DT_ERR_IO, "cannot open '%s' for writing: %s", path,
           strerror(errno));
  DT_CHECK(dt_history_write_header(o->csv, m) == 0, ctx, DT_ERR_IO, "cannot write '%s'", path);
  DT_TRY(dt_dat_start(dir, m, ctx)); /* results.dat, only when the model has print requests */
  DT_TRY(dt_frd_open(&o->frd, dir, job_name, m, !resume, ctx)); /* from the first increment on */
  *out = o;
  o = NULL;
cleanup:
  dt_free(path);
  dt_output_close(&o, m, NULL, NULL); /* on failure only; its status cannot add to ours */
  return rc;
}

/* Grow *p (element size `size`) so it holds at least need items. */
static dt_status reserve(void **p, int *cap, int need, size_t size, dt_ctx *ctx, const char *what) {
  dt_status rc = DT_OK;
  void *q;
  int c = *cap > 0 ? *cap : 16;
  if (need <= *cap) return DT_OK;
  while (c < need) c *= 2;
  q = dt_realloc(*p, (size_t)c * size);
  DT_CHECK(q != NULL, ctx, DT_ERR_NOMEM, "out of memory growing %s to %d items", what, c);
  *p = q;
  *cap = c;
cleanup:
  return rc;
}

/* Per node set: RF_set = sum_{n in set} rf_n, U_mean = (1/|set|) sum_{n in set} u_n. */
static void cache_node_sets(dt_output *o, const dt_model *m, const dt_fields *f) {
  int s, i, d;
  o->have_rf = f->rf != NULL;
  o->have_u = f->u != NULL;
  for (s = 0; s < o->n_sets && s < m->n_nsets; s++) {
    const dt_set *set = &m->nsets[s];
    double *rf = o->set_rf + 3 * s, *u = o->set_u + 3 * s;
    for (d = 0; d < 3; d++) rf[d] = u[d] = 0.0;
    for (i = 0; i < set->n; i++)
      for (d = 0; d < 3; d++) {
        if (f->rf) rf[d] += f->rf[3 * (size_t)set->items[i] + d];
        if (f->u) u[d] += f->u[3 * (size_t)set->items[i] + d];
      }
    for (d = 0; set->n > 0 && d < 3; d++) u[d] /= (double)set->n;
  }
}

/* The VTU's schedule; the .frd follows the same one (dt_frd_due). */
int dt_output_fields_due(const dt_model *m, int global_increment, int last_of_step) {
  const int every = m->output.every > 0 ? m->output.every : 1;
  return m->output.vtu && (last_of_step || global_increment % every == 0);
}

/* Snapshot what increment_<NNNN>.vtu (and its point cloud) need from f and queue the write;
 * the writer thread rewrites results.pvd after the files, with the list as it is now. */
/* List increment f's VTU in the collection: o->vtu and the job's copy of it. */
static dt_status list_vtu(dt_output *o, dt_vtu_job *j, const dt_fields *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char name[sizeof o->vtu[0].file];
  snprintf(name, sizeof name, "increment_%04d.vtu", f->global_increment);
  /* Both buffers first, so that a failure leaves the list as it was. */
  DT_TRY(reserve((void **)&o->vtu, &o->cap_vtu, o->n_vtu + 1, sizeof *o->vtu, ctx, "the VTU list"));
  DT_TRY(dt_output_reserve((void **)&j->pvd, &j->cap_pvd, (size_t)(o->n_vtu + 1) * sizeof *j->pvd,
                           ctx, "the VTU list of a write"));
  /* A repeated increment number (a rewrite) replaces its entry rather than duplicating it. */
  if (o->n_vtu == 0 || strcmp(o->vtu[o->n_vtu - 1].file, name) != 0) o->n_vtu++;
  memcpy(o->vtu[o->n_vtu - 1].file, name, sizeof name);
  o->vtu[o->n_vtu - 1].time = f->time;
  memcpy(j->pvd, o->vtu, (size_t)o->n_vtu * sizeof *j->pvd);
  j->n_pvd = o->n_vtu;
cleanup:
  return rc;
}

/* Queue increment f's files for the writer thread: the VTUs when vtu, results.dat's blocks
 * when dat, the .frd's blocks when frd. */
static dt_status queue_fields(dt_output *o, const dt_model *m, const dt_fields *f, int vtu, int dat,
                              int frd, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_vtu_job *j = NULL;
  DT_CHECK(f->global_increment > 0 && f->global_increment < 100000000, ctx, DT_ERR_INTERNAL,
           "fields carry global increment %d; expected 1 or more", f->global_increment);
  if (vtu && !o->mesh.built) DT_TRY(dt_vtu_mesh_build(&o->mesh, m, ctx));
  DT_CHECK(!vtu || (o->mesh.n_nodes == m->n_nodes && o->mesh.n_elems == m->n_elems), ctx,
           DT_ERR_INTERNAL, "the model changed its mesh after the first VTU was written");
  if (frd && !o->frd.built) DT_TRY(dt_frd_build(&o->frd, m, ctx));
  if ((vtu || frd) && !o->adj.built) DT_TRY(dt_node_elems_build(m, &o->adj, ctx));
  DT_TRY(dt_output_queue_acquire(o, &j, ctx)); /* waits while the writer is behind */
  j->threads = o->writer_threads;              /* the snapshot's copies use them too */
  j->adj = &o->adj;
  DT_TRY(dt_vtu_job_fill(j, o->dir, m, f, vtu, dat, frd ? &o->frd : NULL, ctx));
  if (vtu) DT_TRY(list_vtu(o, j, f, ctx));
  DT_TRY(dt_output_queue_submit(o, ctx));
cleanup:
  return rc;
}

void dt_output_writer_threads(dt_output *o, int threads) {
  if (o) o->writer_threads = threads > 1 ? threads : 1;
}

dt_status dt_output_increment(dt_output *o, const dt_model *m, const dt_fields *f,
                              const dt_history_row *row, int write, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int dat, frd;
  DT_CHECK(o != NULL && o->csv != NULL, ctx, DT_ERR_INTERNAL, "output writer is not open");
  DT_TRY(dt_output_queue_check(o, ctx)); /* an earlier increment's VTU write failed */
  DT_CHECK(row->n_monitors == o->n_monitors, ctx, DT_ERR_INTERNAL,
           "history row has %d monitor values, the model %d monitors", row->n_monitors,
           o->n_monitors);
  DT_CHECK(o->n_sets == m->n_nsets, ctx, DT_ERR_INTERNAL,
           "the model changed its node sets after the output was opened");
  DT_CHECK((f->u == NULL && f->rf == NULL) || f->n_nodes == m->n_nodes, ctx, DT_ERR_INTERNAL,
           "fields have %d nodes, the model %d", f->n_nodes, m->n_nodes);
  DT_TRY(
      reserve((void **)&o->rows, &o->cap_rows, o->n_rows + 1, sizeof *o->rows, ctx, "the history"));
  DT_CHECK(dt_history_write_row(o->csv, row) == 0, ctx, DT_ERR_IO,
           "cannot write history.csv in '%s': %s", o->dir, strerror(errno));
  o->rows[o->n_rows++] = *row;
  cache_node_sets(o, m, f);
  /* The .dat's and the .frd's formatting cost as much as a VTU write or more (text for every
   * node or point), so all are written by the writer thread, in increment order. */
  dat = dt_dat_due(m, f);
  frd = o->frd.on && dt_frd_due(m, f);
  if (write || dat || frd) DT_TRY(queue_fields(o, m, f, write, dat, frd, ctx));
cleanup:
  return rc;
}

dt_status dt_output_flush(dt_output *o, dt_ctx *ctx) {
  return o ? dt_output_queue_drain(o, ctx) : DT_OK;
}

dt_status dt_output_close(dt_output **po, const dt_model *m, const dt_run_summary *s, dt_ctx *ctx) {
  dt_status rc = DT_OK, wrc;
  dt_output *o = po ? *po : NULL;
  char *path = NULL;
  if (o == NULL) return DT_OK;
  /* The pending VTU writes first; their failure is reported, after the summary is written. */
  wrc = dt_output_queue_stop(o, ctx);
  if (s != NULL) {
    DT_TRY(dt_output_path(o->dir, "summary.json", &path, ctx));
    DT_TRY(dt_summary_write(path, o, m, s, ctx));
  }
cleanup:
  if (rc == DT_OK) rc = wrc;
  /* Always release, even after a failed summary: close is the caller's last call. */
  if (o->csv && fclose(o->csv) != 0 && rc == DT_OK)
    rc = DT_ERROR(ctx, DT_ERR_IO, "cannot close history.csv in '%s': %s", o->dir, strerror(errno));
  dt_free(path);
  dt_free(o->dir);
  dt_free(o->rows);
  dt_free(o->vtu);
  dt_free(o->set_rf);
  dt_free(o->set_u);
  dt_vtu_mesh_free(&o->mesh);
  dt_frd_free(&o->frd);
  dt_node_elems_free(&o->adj);
  dt_free(o);
  *po = NULL;
  return rc;
}
