/* The fields of a converged increment as JSON, for GET /v1/jobs/{id}/results/increments/{n}:
 * nodal U and RF rows in node-id order, element means of S, E, PEEQ and MISES in element-id
 * order (null for what the job's output.fields did not request):
 *   {"n":..,"step":..,"increment":..,"load_factor":..,"time":..,"node_ids":[..],
 *    "element_ids":[..],"U":[[x,y,z],..],"RF":[[x,y,z],..],"S":[[6 values],..],
 *    "E":[[6 values],..],"PEEQ":[..],"MISES":[..]}
 * compact, every real written so that it reads back exactly (json_stream.h).
 *
 * Writing it takes two parts so that the solve thread pays only for a copy: dt_fields_snap_fill
 * copies what the document needs off the solver's dt_fields (the nodal rows and the element
 * means, a fraction of the point arrays) on the solve thread, and dt_fields_write encodes that
 * copy on the worker's writer thread (worker_fields_queue.h). */
#ifndef DT_SRV_WORKER_FIELDS_H
#define DT_SRV_WORKER_FIELDS_H

#include "ductile.h"
#include "status.h"

typedef struct dt_fields_snap {
  int n;         /* run-wide converged increment number (dt_fields.global_increment) */
  int step;      /* 1-based */
  int increment; /* 1-based within the step */
  double load_factor, time;
  int has_vtu; /* the solver writes this increment's VTU (recorded with the increment) */
  int n_nodes, n_elems;
  const double *u, *rf;       /* 3 per node, or NULL: not among this increment's fields */
  const double *s, *e;        /* element means, 6 per element, or NULL */
  const double *peeq, *mises; /* element means, 1 per element, or NULL */
  double *own[6];             /* storage behind the six pointers, kept from one fill to the next */
  double *qp_mises;           /* scratch: von Mises stress at each point */
  int cap_qp;
} dt_fields_snap;

/* Copy from f (borrowed for the call) what the document needs into s, reusing the storage of an
 * earlier fill; s must be zeroed before its first fill. DT_ERR_NOMEM leaves s without fields. */
dt_status dt_fields_snap_fill(dt_fields_snap *s, const dt_fields *f, int has_vtu, dt_ctx *ctx);
/* Free s's storage and zero it. NULL-safe. */
void dt_fields_snap_free(dt_fields_snap *s);

/* Write the document of s, with the node and element ids of m, to path: written to path.tmp,
 * then renamed, so a reader never sees a partial file. DT_ERR_IO (no file left at path.tmp). */
dt_status dt_fields_write(const dt_model *m, const dt_fields_snap *s, const char *path,
                          dt_ctx *ctx);

#endif
