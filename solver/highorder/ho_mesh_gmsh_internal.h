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

/* Every physical group of H's file with its nodes in m (ho_mesh_gmsh_groups.c). */
DT_INTERN dt_status ho_gmsh_groups_build(hexes *H, const dt_ho_mesh *m, dt_ho_gmsh_groups *G);

#endif
