/* Conforming hexahedral meshes of order P built from a linear hex8 mesh.
 *
 * Every element carries (P+1)^3 nodes on the Gauss-Lobatto points of its reference cube, listed
 * lexicographically: node (a, b, c), 0 <= a, b, c <= P, is entry a + (P+1)(b + (P+1)c) of the
 * element's row, a along the element's first reference direction xi (hex8 corner 1 -> 2), b
 * along eta (1 -> 4), c along zeta (1 -> 5), in the hex8 node order of element/element.h.
 * Vertices, edges, faces and the body of each element own the nodes in their interior; an edge
 * or face shared by two elements is recognised by its sorted vertex ids and its nodes are
 * numbered once, in a frame fixed by the global vertex ids (from the smallest vertex, first
 * towards its smaller neighbour), so two elements that see a face rotated or mirrored against
 * each other still agree node by node. Coordinates are the trilinear image of the Lobatto
 * points, then an optional user map curves the geometry.
 *
 * Node ids are int: the element-node count (P+1)^3 n_elems must stay below 2^31, and a larger
 * mesh is refused with DT_ERR_INPUT. */
#ifndef DT_HO_MESH_H
#define DT_HO_MESH_H

#include "core/dt_status.h"

/* Orders the mesh builder accepts (ho_basis goes further for projection tests). */
#define DT_HO_MESH_MAX_ORDER 8

typedef struct dt_ho_mesh {
  int order;       /* P */
  int n_elems;     /* hexahedra */
  int n_nodes;     /* global nodes */
  int *elem_nodes; /* n_elems x (P+1)^3 global node ids, lexicographic per element (owned) */
  double *coords;  /* n_nodes x 3 (owned) */
} dt_ho_mesh;

/* A map x -> y applied to every node after trilinear placement (curved geometry). */
typedef void (*dt_ho_map_fn)(const double x[3], double y[3], void *user);
/* A test on a node's coordinates: nonzero selects it. */
typedef int (*dt_ho_node_pred)(const double x[3], void *user);

/* Builds the order-`order` mesh (1 <= order <= DT_HO_MESH_MAX_ORDER) on the hex8 mesh given by
 * n_vertices coordinates `vx` (x, y, z per vertex) and n_elems rows of 8 0-based vertex ids
 * `hex8` (borrowed; nothing is kept). `map` may be NULL. Fills *m, which the caller releases
 * with dt_ho_mesh_free. Errors (DT_ERR_INPUT, naming the element): order out of range, a
 * size past int, a vertex id out of range or repeated, an inverted or degenerate hex8 (corner
 * Jacobian determinant <= 0), a face shared by more than two elements or matched with
 * different diagonals. The size check comes before any connectivity is read. */
dt_status dt_ho_mesh_build(int order, int n_vertices, const double *vx, int n_elems,
                           const int *hex8, dt_ho_map_fn map, void *user, dt_ho_mesh *m,
                           dt_ctx *ctx);
/* Releases the arrays of m and zeroes it (NULL-safe). */
void dt_ho_mesh_free(dt_ho_mesh *m);

/* A structured hex8 box [lo, hi] with nx x ny x nz elements: *vx (3 per vertex, (nx+1)(ny+1)
 * (nz+1) vertices, x fastest) and *hex8 (8 per element, x fastest) are allocated with
 * dt_malloc and owned by the caller (dt_free). */
dt_status dt_ho_hex8_box(int nx, int ny, int nz, const double lo[3], const double hi[3],
                         int *n_vertices, double **vx, int *n_elems, int **hex8, dt_ctx *ctx);
/* The order-P mesh of that box, optionally mapped: dt_ho_hex8_box then dt_ho_mesh_build. */
dt_status dt_ho_mesh_box(int order, int nx, int ny, int nz, const double lo[3], const double hi[3],
                         dt_ho_map_fn map, void *user, dt_ho_mesh *m, dt_ctx *ctx);

/* Lexicographic local index of node (a, b, c) of an element of order P. */
static inline int dt_ho_lex(int P, int a, int b, int c) { return a + (P + 1) * (b + (P + 1) * c); }

/* Reference-cube axis (0 = xi, 1 = eta, 2 = zeta) and side (0 at -1, 1 at +1) of hex8 face
 * `face` (0-based S1..S6 of element/element.h: zeta-, zeta+, eta-, xi+, eta+, xi-). */
void dt_ho_hex_face_axis(int face, int *axis, int *side);

/* Sets mark[n] = 1 for every global node n on the listed hex8 faces (elem[i], face[i]), faces
 * 0-based as in dt_ho_hex_face_axis; other entries are left as they are. Errors
 * (DT_ERR_INPUT, naming the entry): element or face out of range. */
dt_status dt_ho_mesh_mark_faces(const dt_ho_mesh *m, int n, const int *elem, const int *face,
                                unsigned char *mark, dt_ctx *ctx);
/* Sets mark[n] = 1 for every node whose coordinates satisfy pred; returns how many. */
int dt_ho_mesh_mark_where(const dt_ho_mesh *m, dt_ho_node_pred pred, void *user,
                          unsigned char *mark);

#endif
