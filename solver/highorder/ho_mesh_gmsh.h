/* Order-P hexahedral meshes read from Gmsh: Lagrange hexahedra of order 1..8 (Gmsh types 5, 12,
 * 92-97) -> dt_ho_mesh, with the named physical groups as node sets.
 *
 * The file is read by the Gmsh importer's raw reader (io/import_gmsh_read.c). The conforming
 * numbering is dt_ho_mesh_build's, from each hexahedron's 8 corner nodes: Gmsh's corner order
 * (the reference manual's "Node ordering": 0 at (-1,-1,-1), 1 along u, 3 along v, 4 along w)
 * is element/element.h's hex8 order (corner 1 -> 2 along xi, 1 -> 4 along eta, 1 -> 5 along
 * zeta). Every node then takes the element's Gmsh geometry, the Lagrange interpolant through its
 * (Pg+1)^3 nodes at equispaced reference points, evaluated at the node's Gauss-Lobatto point.
 * When the requested order P differs from the file's Pg this resamples the geometry (exact for
 * P >= Pg). A node shared by several elements takes the value of the first element that has it
 * (the others agree to round-off on a conforming Gmsh mesh). */
#ifndef DT_HO_MESH_GMSH_H
#define DT_HO_MESH_GMSH_H

#include <stdint.h>

#include "core/dt_status.h"
#include "highorder/ho_mesh.h"

#define DT_HO_GMSH_NAME_MAX 64

/* A physical group of the file, by name ("physical<tag>" when it has none). */
typedef struct dt_ho_gmsh_group {
  char name[DT_HO_GMSH_NAME_MAX];
  int dim, tag; /* Gmsh's dimension and physical tag */
  int n_nodes;  /* nodes of the order-P mesh in the group, ascending (owned) */
  int *nodes;
  int n_faces;    /* dim 2: the hexahedron faces its quadrangles cover (owned) */
  int *face_elem; /* element (0-based, order of the hexahedra in the file) */
  int *face;      /* face, 0-based S1..S6 as in dt_ho_hex_face_axis */
  int n_elems;    /* dim 3: its hexahedra (owned) */
  int *elems;
} dt_ho_gmsh_group;

typedef struct dt_ho_gmsh_groups {
  int n;
  dt_ho_gmsh_group *group; /* owned */
} dt_ho_gmsh_groups;

/* What the file held, for checks against the imported mesh (tests, tools). */
typedef struct dt_ho_gmsh_source {
  int order;    /* Pg, the file's order */
  int n_elems;  /* hexahedra, in file order (= the mesh's elements) */
  int64_t *tag; /* Gmsh element tags (owned) */
  double *x;    /* per element, its (Pg+1)^3 Gmsh nodes in Gmsh's order, 3 each (owned) */
} dt_ho_gmsh_source;

/* Reads the hexahedra of the Gmsh file `path` (format 4.1 or 2.2, ASCII or binary) into *m as an
 * order-`order` mesh (1..DT_HO_MESH_MAX_ORDER; 0 takes the file's order). Elements follow the
 * file's order of its 3D elements. `groups` (may be NULL) receives every physical group with its
 * nodes: dimension 3 the nodes of its hexahedra, 2 those on the faces its quadrangles (any order)
 * cover, 1 those on the element edges its lines cover, 0 the vertex of its points. `src` (may be
 * NULL) receives the file's element geometry. The caller frees with dt_ho_mesh_free,
 * dt_ho_gmsh_groups_free and dt_ho_gmsh_source_free; on error all three are left empty.
 * Errors: DT_ERR_IO (the file cannot be read), DT_ERR_INPUT naming the file, its line and the
 * Gmsh element tag: no hexahedra, a 3D element that is not a hexahedron, hexahedra of different
 * orders, an order outside 1..8, an inverted or degenerate element (det J <= 0 at a node), a
 * group's quadrangle or line that is no face or edge of a hexahedron, a group's point that is
 * no corner; and those of the raw reader and of dt_ho_mesh_build. */
dt_status dt_ho_gmsh_read(const char *path, int order, dt_ho_mesh *m, dt_ho_gmsh_groups *groups,
                          dt_ho_gmsh_source *src, dt_ctx *ctx);
/* dt_ho_gmsh_read with every hexahedron split into refine^3 sub-hexahedra (refine 1..8; 1 is
 * dt_ho_gmsh_read) on the uniform lattice of its reference cube, each of order `order`, every
 * node on the Gmsh element's own geometry (its Lagrange interpolant) at the node's point of the
 * parent's reference cube. Sub-hexahedron (s0, s1, s2) (0..refine-1 along xi, eta, zeta) of the
 * file's hexahedron h is mesh element ((h refine + s2) refine + s1) refine + s0: the R^3 of a
 * Gmsh hexahedron are consecutive. The sub-hexahedra's corners are numbered topologically
 * (one id per point of a shared Gmsh edge or face, from the edge's or face's vertex ids and the
 * lattice index in its canonical frame, as dt_ho_mesh_build numbers order-R nodes), not by
 * matching coordinates, so no tolerance enters. Groups map to the refined mesh: a quadrangle
 * gives its refine^2 sub-faces, a volume its refine^3 elements, lines and points the nodes on
 * them. `src` describes the unrefined file (src->n_elems = m->n_elems / refine^3). Errors: those
 * of dt_ho_gmsh_read, DT_ERR_INPUT for refine outside 1..8. */
dt_status dt_ho_gmsh_read_refined(const char *path, int order, int refine, dt_ho_mesh *m,
                                  dt_ho_gmsh_groups *groups, dt_ho_gmsh_source *src, dt_ctx *ctx);
/* dt_ho_gmsh_read without the source. */
dt_status dt_ho_mesh_read_gmsh(const char *path, int order, dt_ho_mesh *m,
                               dt_ho_gmsh_groups *groups, dt_ctx *ctx);

/* dt_ho_gmsh_read_refined without the source. */
dt_status dt_ho_mesh_read_gmsh_refined(const char *path, int order, int refine, dt_ho_mesh *m,
                                       dt_ho_gmsh_groups *groups, dt_ctx *ctx);

/* Releases the arrays and zeroes the struct (NULL-safe). */
void dt_ho_gmsh_groups_free(dt_ho_gmsh_groups *g);
void dt_ho_gmsh_source_free(dt_ho_gmsh_source *s);
/* The group called `name` (borrowed), or NULL. */
const dt_ho_gmsh_group *dt_ho_gmsh_group_find(const dt_ho_gmsh_groups *g, const char *name);

/* Lattice indices of the nodes of a Gmsh hexahedron of order P (1..8), in Gmsh's order: node n
 * sits at the reference point (-1 + 2 ijk[3n] / P, -1 + 2 ijk[3n+1] / P, -1 + 2 ijk[3n+2] / P).
 * Returns (P+1)^3, or 0 for an order outside 1..8. */
int dt_ho_gmsh_hex_lattice(int order, int *ijk);
/* The geometry of a Gmsh hexahedron of order P with nodes xg (Gmsh's order, 3 per node) at the
 * reference point xi (each in [-1, 1]): x = sum_n xg_n L_n(xi), the Lagrange basis through the
 * equispaced lattice. */
void dt_ho_gmsh_hex_eval(int order, const double *xg, const double xi[3], double x[3]);

#endif
