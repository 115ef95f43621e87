/* Explicit dynamics of order P on a Gmsh hexahedral mesh (ho_mesh_gmsh.h), optionally refined
 * on reading: isotropic E, nu, density rho, the nodes of named physical groups fixed (all three
 * components), a step pressure p on named surface groups (traction -p n, n the outward normal:
 * p > 0 pushes into the solid). Shared by ductile-hoexplicit --msh and its tests. */
#ifndef DT_HO_EXPLICIT_MSH_H
#define DT_HO_EXPLICIT_MSH_H

#include "core/dt_status.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_explicit.h"
#include "highorder/ho_explicit_parts.h"
#include "highorder/ho_mass.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_mesh_gmsh.h"

typedef struct dt_ho_msh_opts {
  const char *path;
  int order;  /* P (0: the file's order) */
  int refine; /* each Gmsh hexahedron split into refine^3 (0 or 1: none) */
  double E, nu, rho;
  dt_ho_mass_kind kind;
  int n_fix;
  const char *const *fix; /* groups whose nodes are fixed */
  int n_pressure;
  const char *const *pressure_group; /* surface groups loaded by a pressure */
  const double *pressure;            /* force per area, one per group */
} dt_ho_msh_opts;

typedef struct dt_ho_msh {
  dt_ho_mesh mesh;
  dt_ho_gmsh_groups groups;
  dt_ho_elastic op;
  dt_ho_mass_op mass_op; /* consistent mass (kind DT_HO_MASS_CONSISTENT) */
  dt_ho_mass_kind kind;
  double E, nu, rho;
  double *mass;         /* lumped mass per node: GLL, or row sums for ROWSUM/CONSISTENT */
  unsigned char *fixed; /* per DOF */
  double *f;            /* the pressures' load vector */
  double force[3];      /* its resultant */
  double load_dir[3];   /* the resultant's direction (unit) */
  int watch;            /* node nearest the centroid of the first loaded group's nodes */
  int free_dofs, fixed_nodes, load_faces;
} dt_ho_msh;

/* Reads o->path and builds the problem. Errors: those of dt_ho_gmsh_read_refined, the operator
 * and the mass; DT_ERR_INPUT naming the group for a group the file does not have (listing
 * those it has), a --pressure group without faces (not a physical surface), no fixed group, no
 * pressure group, a fixed group without nodes; DT_ERR_NOMEM. Release with dt_ho_msh_free
 * (also after an error). */
dt_status dt_ho_msh_setup(const dt_ho_msh_opts *o, dt_ho_msh *p, dt_ctx *ctx);
void dt_ho_msh_free(dt_ho_msh *p);
/* The explicit problem (step load, g = 1), pointing into p. */
void dt_ho_msh_problem(const dt_ho_msh *p, dt_ho_explicit_problem *pb);
/* p split into nparts parts with the watched node's 3 DOFs watched (ho_explicit_parts.h). */
dt_status dt_ho_msh_parts_build(const dt_ho_msh *p, int nparts, dt_ho_explicit_parts *xp,
                                dt_ctx *ctx);

#endif
