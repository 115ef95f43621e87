/* Structured box meshes generated in memory (benchmarks, tests, examples). */
#ifndef DT_MESH_BOX_H
#define DT_MESH_BOX_H

#include "model.h"

/* Fill an empty model's mesh with nx*ny*nz hex8 elements on [0,lx]x[0,ly]x[0,lz]. Node ids
 * and element ids start at 1. Adds node sets and element-face surfaces named xmin, xmax,
 * ymin, ymax, zmin, zmax (the nodes/faces on each boundary plane) and node and element sets
 * "all". Materials, sections and steps are the caller's. */
dt_status dt_mesh_box_hex8(dt_model *m, int nx, int ny, int nz, double lx, double ly, double lz,
                           dt_ctx *ctx);

#endif
