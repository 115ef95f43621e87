/* Increment fields as JSON (see worker_fields.h). */
#include "worker_fields.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ductile.h"
#include "json_stream.h"

/* own[] slots */
enum { SNAP_U, SNAP_RF, SNAP_S, SNAP_E, SNAP_PEEQ, SNAP_MISES };

/* own[slot] with room for n doubles (the sizes of a job never change, so this allocates once
 * per slot); NULL when out of memory. */
static double *slot(dt_fields_snap *s, int which, size_t n) {
  if (!s->own[which]) s->own[which] = malloc((n > 0 ? n : 1) * sizeof(double));
  return s->own[which];
}

/* Element means of the point field qp (ncomp per point) into own[which]; NULL if qp is NULL or
 * out of memory (*nomem then set). */
static const double *means(dt_fields_snap *s, const dt_fields *f, int which, const double *qp,
                           int ncomp, int *nomem) {
  double *e;
  if (!qp) return NULL;
  e = slot(s, which, (size_t)f->n_elems * (size_t)ncomp);
  if (!e) {
    *nomem = 1;
    return NULL;
  }
  dt_fields_element_average(f, qp, ncomp, e);
  return e;
}

static const double *copy_rows(dt_fields_snap *s, int which, const double *v, int n, int *nomem) {
  double *c;
  if (!v) return NULL;
  c = slot(s, which, 3 * (size_t)n);
  if (!c) {
    *nomem = 1;
    return NULL;
  }
  memcpy(c, v, 3 * (size_t)n * sizeof *c);
  return c;
}

/* MISES: von Mises at each point, then the element means, as the VTU's cell data has it. */
static const double *mises_means(dt_fields_snap *s, const dt_fields *f, int *nomem) {
  if (!f->qp_stress) return NULL;
  if (s->cap_qp < f->n_qp) {
    free(s->qp_mises);
    s->cap_qp = 0;
    s->qp_mises = malloc(((size_t)f->n_qp + 1) * sizeof *s->qp_mises);
    if (!s->qp_mises) {
      *nomem = 1;
      return NULL;
    }
    s->cap_qp = f->n_qp;
  }
  for (int q = 0; q < f->n_qp; q++) s->qp_mises[q] = dt_mises(f->qp_stress + 6 * (size_t)q);
  return means(s, f, SNAP_MISES, s->qp_mises, 1, nomem);
}

dt_status dt_fields_snap_fill(dt_fields_snap *s, const dt_fields *f, int has_vtu, dt_ctx *ctx) {
  int nomem = 0;
  s->n = f->global_increment;
  s->step = f->step + 1;
  s->increment = f->increment;
  s->load_factor = f->load_factor;
  s->time = f->time;
  s->has_vtu = has_vtu;
  s->n_nodes = f->n_nodes;
  s->n_elems = f->n_elems;
  s->u = copy_rows(s, SNAP_U, f->u, f->n_nodes, &nomem);
  s->rf = copy_rows(s, SNAP_RF, f->rf, f->n_nodes, &nomem);
  s->s = means(s, f, SNAP_S, f->qp_stress, 6, &nomem);
  s->e = means(s, f, SNAP_E, f->qp_strain, 6, &nomem);
  s->peeq = means(s, f, SNAP_PEEQ, f->qp_peeq, 1, &nomem);
  s->mises = mises_means(s, f, &nomem);
  if (!nomem) return DT_OK;
  s->u = s->rf = s->s = s->e = s->peeq = s->mises = NULL;
  return DT_ERROR(ctx, DT_ERR_NOMEM, "out of memory copying the fields of increment %d", s->n);
}

void dt_fields_snap_free(dt_fields_snap *s) {
  if (!s) return;
  for (int i = 0; i < 6; i++) free(s->own[i]);
  free(s->qp_mises);
  memset(s, 0, sizeof *s);
}

static void key(dt_json_stream *js, const char *k) { dt_json_stream_raw(js, k, strlen(k)); }

static void ids(dt_json_stream *js, const int64_t *id, int n) {
  dt_json_stream_raw(js, "[", 1);
  for (int i = 0; i < n; i++) {
    if (i) dt_json_stream_raw(js, ",", 1);
    dt_json_stream_int(js, (long long)id[i]);
  }
  dt_json_stream_raw(js, "]", 1);
}

/* [[..ncomp..], ...] of n rows, or [v, ...] for ncomp 1, or null. */
static void rows(dt_json_stream *js, const double *v, int n, int ncomp) {
  if (!v) {
    dt_json_stream_raw(js, "null", 4);
    return;
  }
  dt_json_stream_raw(js, "[", 1);
  for (int i = 0; i < n; i++) {
    const double *r = v + (size_t)i * (size_t)ncomp;
    if (i) dt_json_stream_raw(js, ",", 1);
    if (ncomp == 1) {
      dt_json_stream_real(js, r[0]);
      continue;
    }
    dt_json_stream_raw(js, "[", 1);
    for (int c = 0; c < ncomp; c++) {
      if (c) dt_json_stream_raw(js, ",", 1);
      dt_json_stream_real(js, r[c]);
    }
    dt_json_stream_raw(js, "]", 1);
  }
  dt_json_stream_raw(js, "]", 1);
}

/* The document, keys in the order json_dumps wrote them when it was built as a json_t. */
static void document(dt_json_stream *js, const dt_model *m, const dt_fields_snap *s) {
  key(js, "{\"n\":");
  dt_json_stream_int(js, s->n);
  key(js, ",\"step\":");
  dt_json_stream_int(js, s->step);
  key(js, ",\"increment\":");
  dt_json_stream_int(js, s->increment);
  key(js, ",\"load_factor\":");
  dt_json_stream_real(js, s->load_factor);
  key(js, ",\"time\":");
  dt_json_stream_real(js, s->time);
  key(js, ",\"node_ids\":");
  ids(js, m->node_id, m->n_nodes);
  key(js, ",\"element_ids\":");
  ids(js, m->elem_id, m->n_elems);
  key(js, ",\"U\":");
  rows(js, s->u, s->n_nodes, 3);
  key(js, ",\"RF\":");
  rows(js, s->rf, s->n_nodes, 3);
  key(js, ",\"S\":");
  rows(js, s->s, s->n_elems, 6);
  key(js, ",\"E\":");
  rows(js, s->e, s->n_elems, 6);
  key(js, ",\"PEEQ\":");
  rows(js, s->peeq, s->n_elems, 1);
  key(js, ",\"MISES\":");
  rows(js, s->mises, s->n_elems, 1);
  key(js, "}");
}

dt_status dt_fields_write(const dt_model *m, const dt_fields_snap *s, const char *path,
                          dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char tmp[4400];
  FILE *f = NULL;
  dt_json_stream *js = NULL;
  int written, created = 0;
  DT_CHECK(snprintf(tmp, sizeof tmp, "%s.tmp", path) < (int)sizeof tmp, ctx, DT_ERR_IO,
           "cannot write %s: %s", path, strerror(ENAMETOOLONG));
  js = malloc(sizeof *js); /* 64 KiB of buffer: not on the stack */
  DT_CHECK(js != NULL, ctx, DT_ERR_NOMEM, "out of memory writing %s", path);
  f = fopen(tmp, "wb");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  created = 1;
  dt_json_stream_init(js, f);
  document(js, m, s);
  written = dt_json_stream_flush(js) == 0;
  DT_CHECK(written, ctx, DT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  written = fclose(f) == 0;
  f = NULL;
  DT_CHECK(written, ctx, DT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  DT_CHECK(rename(tmp, path) == 0, ctx, DT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
cleanup:
  if (f) fclose(f);
  if (rc != DT_OK && created) unlink(tmp);
  free(js);
  return rc;
}
