/* Reading CalculiX's ASCII result file (.frd): the mesh and the displacement results, which a
 * submodel (*SUBMODEL, *BOUNDARY, SUBMODEL) interpolates from its global model's file.
 *
 * The file is read as the "Result Format" chapter of the CalculiX GraphiX manual lays it out and
 * as ccx 2.20 and ductile (output_frd.c) write it: the nodes block (2C), the elements block (3C)
 * and the result blocks (1PSTEP, 100CL, -4 name, -5 components, -1 values, -3), in the long
 * format (10-digit ids) or the short one (5 digits). Only DISP results are kept; other blocks
 * are skipped, and so are elements of the types ductile lacks (beams, ...). The binary format is refused. A malformed record is an error naming the file
 * and its line. */
#ifndef DT_IO_FRD_READ_H
#define DT_IO_FRD_READ_H

#include <stdint.h>

#include "core/dt_status.h"

/* One DISP block: the displacements of every node of the file (0 at a node the block does not
 * list), from the result set of `step` (1PSTEP's step number) and `inc` (its increment). */
typedef struct dt_frd_disp {
  int step, inc;
  double time;
  double *u; /* 3 * n_nodes */
} dt_frd_disp;

typedef struct dt_frd_file {
  int n_nodes;
  int64_t *node_id;
  double *x; /* 3 * n_nodes */
  int n_elems;
  int64_t *elem_id;
  unsigned char *elem_type; /* model.h's dt_elem_type: cgx's he8, he20, te4, te10, pe6, pe15,
                               tr3, qu4, qu8 (nodes reordered to ductile's, element.h); other types are skipped */
  int *elem_ptr;            /* n_elems + 1 offsets into conn */
  int *conn;                /* 0-based indices into the nodes */
  int n_other;              /* elements of other types (beams, ...), skipped */
  int n_disp;
  dt_frd_disp *disp; /* in file order */
} dt_frd_file;

/* Read `path` into *out (the caller frees it with dt_frd_destroy). DT_ERR_IO if it cannot be
 * opened; DT_ERR_INPUT, "path:line: what", for a malformed or truncated file, a node of an
 * element or of a result that the nodes block lacks, a binary file. */
dt_status dt_frd_read(const char *path, dt_frd_file **out, dt_ctx *ctx);
/* NULL-safe; sets *f to NULL. */
void dt_frd_destroy(dt_frd_file **f);
/* The DISP block of the last increment of step `step` in the file, or NULL if it has none. */
const dt_frd_disp *dt_frd_step_disp(const dt_frd_file *f, int step);

#endif
