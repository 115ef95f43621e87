/* A strict reader of the VTU files the output writer makes (binary appended, raw, UInt64
 * headers, little-endian), for the output tests: it checks the layout a VTK reader relies on
 * (balanced XML, one DataArray per block, offsets that tile the appended data exactly, byte
 * counts that fit the types) and gives each array's bytes for exact comparisons. */
#ifndef DT_TEST_VTU_READ_H
#define DT_TEST_VTU_READ_H

#include <stddef.h>

#define VTU_READ_MAX 64

typedef struct vtu_array {
  char section[32];          /* enclosing element: FieldData, PointData, CellData, Points, Cells */
  char name[64];             /* "" when the array has no Name (Points) */
  char type[16];             /* Float64, Int64, Int32, UInt8 */
  int ncomp;                 /* NumberOfComponents, 1 when absent */
  size_t offset, nbytes;     /* the offset attribute; the UInt64 byte count of its block */
  const unsigned char *data; /* nbytes bytes, inside the file's buffer */
} vtu_array;

typedef struct vtu_file {
  unsigned char *bytes;
  size_t size;
  int n_points, n_cells; /* of the Piece */
  vtu_array arr[VTU_READ_MAX];
  int n;
} vtu_file;

/* Read and check path; any defect fails the test (CHECK) naming the file. */
void vtu_load(const char *path, vtu_file *v);
void vtu_free(vtu_file *v);
/* The array `name` ("" for none) of `section`, or NULL. */
const vtu_array *vtu_get(const vtu_file *v, const char *section, const char *name);
/* Bytes per value of a VTK type name, 0 if unknown. */
size_t vtu_type_size(const char *type);

#endif
