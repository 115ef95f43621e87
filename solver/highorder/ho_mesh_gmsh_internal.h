/* Private to highorder/ho_mesh_gmsh*.c: the Gmsh hexahedra being read (ho_mesh_gmsh.c) and the
 * physical groups built on them (ho_mesh_gmsh_groups.c). */
#ifndef DT_HO_MESH_GMSH_INTERNAL_H
#define DT_HO_MESH_GMSH_INTERNAL_H

#include "highorder/ho_mesh_gmsh.h"
#include "io/import_gmsh_internal.h"

/* Lattice position of corner k of a hexahedron (Gmsh's corner order = element/element.h's hex8
 * order): 0 (-1,-1,-1), 1 along xi, 3 along eta, 4 along zeta. */
static const int HO_GMSH_CORNER[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                         {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

typedef struct hexes {
  gm g;
  int Pg, P;          /* file order, mesh order */
  int R;              /* refinement: each hexahedron becomes R^3 mesh elements */
  int n;              /* hexahedra */
  int *raw;           /* raw element index of hexahedron h */
  int *hex_of;        /* hexahedron of raw element e, -1 if none */
  dt_imp_idmap nodes; /* Gmsh node tag -> index into g.x */
  int nv;             /* corner vertices */
  int64_t *vtag;      /* their Gmsh tags, ascending */
  dt_imp_idmap verts; /* Gmsh node tag -> vertex */
  double *vx;         /* vertex coordinates */
  int *hex8;          /* 8 vertices per hexahedron */
  int *lat;           /* Gmsh node n of an element -> lexicographic equispaced index */
} hexes;

/* Mesh element of sub-hexahedron (s0, s1, s2), 0..R-1 each, of Gmsh hexahedron h. */
static inline int ho_gmsh_sub(const hexes *H, int h, int s0, int s1, int s2) {
  return ((h * H->R + s2) * H->R + s1) * H->R + s0;
}

/* The node of m at point (g0, g1, g2) of the order-R P lattice of Gmsh hexahedron h (0..R P
 * each): in sub-hexahedron min(g / P, R - 1) along each axis, at local index g - s P. */
static inline int ho_gmsh_node_at(const hexes *H, const dt_ho_mesh *m, int h, int g0, int g1,
                                  int g2) {
  int P = H->P, s[3], a[3], g[3] = {g0, g1, g2};
  for (int d = 0; d < 3; d++) {
    s[d] = g[d] / P < H->R - 1 ? g[d] / P : H->R - 1;
    a[d] = g[d] - s[d] * P;
  }
  size_t e = (size_t)ho_gmsh_sub(H, h, s[0], s[1], s[2]);
  return m->elem_nodes[e * (size_t)((P + 1) * (P + 1) * (P + 1)) + dt_ho_lex(P, a[0], a[1], a[2])];
}

/* Every physical group of H's file with its nodes in m (ho_mesh_gmsh_groups.c). */
DT_INTERN dt_status ho_gmsh_groups_build(hexes *H, const dt_ho_mesh *m, dt_ho_gmsh_groups *G);

#endif
