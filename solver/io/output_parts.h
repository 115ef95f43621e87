/* The parts of the results writer (output_*.c) that another writer of the same files reuses
 * (the order-P jobs' writer, highorder/ho_job_output.c): the appended-data VTU document, the
 * .pvd collection and history.csv's rows, so both write one format with one code. Hidden
 * visibility: for solver/ only. */
#ifndef DT_IO_OUTPUT_PARTS_H
#define DT_IO_OUTPUT_PARTS_H

#include <stddef.h>
#include <stdio.h>

#include "core/dt_status.h"
#include "core/intern.h"
#include "core/results.h"
#include "model/model.h"

/* One VTU of the collection. */
typedef struct dt_pvd_entry {
  char file[48];
  double time;
} dt_pvd_entry;

/* An appended-data VTU document: XML text and arrays in file order. The arrays are written
 * raw after the XML, each as a UInt64 byte count and its values, at the offsets the XML
 * states; the data pointers are borrowed until dt_vtu_doc_write returns. */
#define DT_VTU_DOC_MAX 64
typedef struct dt_vtu_item {
  char text[192];   /* XML, when array.data is unused (type NULL) */
  const char *type; /* VTK type name ("Float64", ...), NULL for text */
  const char *name; /* NULL: no Name attribute */
  int ncomp;        /* NumberOfComponents attribute if > 0 */
  int tuples;       /* NumberOfTuples attribute if > 0 (FieldData) */
  const char *const *comp_names;
  const void *data;
  size_t size, n; /* bytes per value, values */
} dt_vtu_item;
typedef struct dt_vtu_doc {
  dt_vtu_item item[DT_VTU_DOC_MAX];
  int n;
  int overflow; /* more items than DT_VTU_DOC_MAX were added (a bug) */
} dt_vtu_doc;
DT_INTERN void dt_vtu_doc_text(dt_vtu_doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
DT_INTERN void dt_vtu_doc_array(dt_vtu_doc *d, const char *type, size_t size, const char *name,
                                int ncomp, const char *const *comp_names, const void *data,
                                size_t n);
/* Write the document to path (atomically, dt_output_write_file) as a VTKFile of version 1.0. */
DT_INTERN dt_status dt_vtu_doc_write(const dt_vtu_doc *d, const char *path, dt_ctx *ctx);
/* The same with another VTKFile version: "2.2" declares VTK 9.1's node order of Lagrange
 * hexahedra (readers renumber the cells of older files to it). */
DT_INTERN dt_status dt_vtu_doc_write_version(const dt_vtu_doc *d, const char *version,
                                             const char *path, dt_ctx *ctx);
DT_INTERN extern const char *const dt_vtu_voigt_names[6];
DT_INTERN extern const char *const dt_vtu_xyz_names[3];
/* results.pvd listing the n entries e (atomically). */
DT_INTERN dt_status dt_pvd_write(const char *path, const dt_pvd_entry *e, int n, dt_ctx *ctx);

/* history.csv: the header (with m's monitors) and one row; nonzero on a write error. */
DT_INTERN int dt_history_write_header(FILE *f, const dt_model *m);
DT_INTERN int dt_history_write_row(FILE *f, const dt_history_row *row);

#endif
