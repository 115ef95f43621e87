/* Meshes: metadata rows; the mesh itself is a file, <data>/meshes/<id>.json (the job format's
 * mesh object) or <data>/meshes/<id>.msh (a Gmsh file; the API's "format" says which). A Gmsh
 * file of order-P hexahedra keeps its order in the row (column ho_order), so a job's solver and
 * the API's "order" need no read of the file. */
#ifndef DT_SRV_STORE_MESHES_H
#define DT_SRV_STORE_MESHES_H

#include <jansson.h>

#include "status.h"

typedef struct dt_mesh_row {
  char id[20];
  long long owner_id;
  char name[128];
  char path[64]; /* relative to the data directory */
  long long bytes;
  char sha256[65];
  int dim, n_nodes, n_elements;
  int order; /* an order-P mesh's order (2..8), the API's "order"; 0 for any other mesh */
} dt_mesh_row;

dt_status dt_mesh_insert(const dt_mesh_row *m, dt_ctx *ctx);
/* owner: as for jobs (store_jobs.h), only that user's meshes are found (DT_ANY_OWNER: any
 * user's); another user's mesh is DT_NOT_FOUND, like a missing one. */
/* The API object of a mesh (*outcome DT_NOT_FOUND and *out NULL when there is none). path
 * (may be NULL) receives the relative path of its file. */
dt_status dt_mesh_get(const char *id, long long owner, json_t **out, char *path, size_t pathlen,
                      dt_outcome *outcome, dt_ctx *ctx);
/* Page of the owner's meshes, newest first, with seq < before (0: from the newest). *next is
 * the cursor of the next page (0 when this is the last). */
dt_status dt_mesh_list(long long owner, long long before, int limit, json_t **items,
                       long long *next, dt_ctx *ctx);
/* Delete unless a queued or running job uses it (*outcome DT_REFUSED, *jobs_using set). path
 * receives the relative file path to remove. */
dt_status dt_mesh_delete(const char *id, long long owner, char *path, size_t pathlen,
                         int *jobs_using, dt_outcome *outcome, dt_ctx *ctx);

#endif
