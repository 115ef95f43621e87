/* Structured hex8 boxes as the base of order-P meshes (tests, benchmarks, the cantilever). */
#include "highorder/ho_mesh.h"

#include <limits.h>
#include <stdint.h>

dt_status dt_ho_hex8_box(int nx, int ny, int nz, const double lo[3], const double hi[3],
                         int *n_vertices, double **vx, int *n_elems, int **hex8, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *x = NULL;
  int *conn = NULL;
  *vx = NULL;
  *hex8 = NULL;
  DT_CHECK(nx >= 1 && ny >= 1 && nz >= 1, ctx, DT_ERR_INPUT,
           "a box needs at least one element per direction, not %d x %d x %d", nx, ny, nz);
  DT_CHECK((int64_t)(nx + 1) * (ny + 1) * (nz + 1) <= INT_MAX / 3 &&
               (int64_t)nx * ny * nz <= INT_MAX / 8,
           ctx, DT_ERR_INPUT, "a %d x %d x %d box is too large for int ids", nx, ny, nz);
  int nv = (nx + 1) * (ny + 1) * (nz + 1), ne = nx * ny * nz;
  DT_ALLOC(x, (size_t)nv * 3, ctx, "box vertices");
  DT_ALLOC(conn, (size_t)ne * 8, ctx, "box hexahedra");
  for (int k = 0; k <= nz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++) {
        double *p = x + 3 * (size_t)(i + (nx + 1) * (j + (ny + 1) * k));
        p[0] = lo[0] + (hi[0] - lo[0]) * i / nx;
        p[1] = lo[1] + (hi[1] - lo[1]) * j / ny;
        p[2] = lo[2] + (hi[2] - lo[2]) * k / nz;
      }
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        int *c = conn + 8 * (size_t)(i + nx * (j + ny * k));
        int v0 = i + (nx + 1) * (j + (ny + 1) * k), sy = nx + 1, sz = (nx + 1) * (ny + 1);
        /* hex8 order: bottom ring counterclockwise, then the top ring above it */
        c[0] = v0;
        c[1] = v0 + 1;
        c[2] = v0 + 1 + sy;
        c[3] = v0 + sy;
        for (int a = 0; a < 4; a++) c[4 + a] = c[a] + sz;
      }
  *n_vertices = nv;
  *n_elems = ne;
  *vx = x;
  *hex8 = conn;
  x = NULL;
  conn = NULL;
cleanup:
  dt_free(x);
  dt_free(conn);
  return rc;
}

dt_status dt_ho_mesh_box(int order, int nx, int ny, int nz, const double lo[3], const double hi[3],
                         dt_ho_map_fn map, void *user, dt_ho_mesh *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *vx = NULL;
  int *hex8 = NULL, nv = 0, ne = 0;
  DT_TRY(dt_ho_hex8_box(nx, ny, nz, lo, hi, &nv, &vx, &ne, &hex8, ctx));
  DT_TRY(dt_ho_mesh_build(order, nv, vx, ne, hex8, map, user, m, ctx));
cleanup:
  dt_free(vx);
  dt_free(hex8);
  return rc;
}
