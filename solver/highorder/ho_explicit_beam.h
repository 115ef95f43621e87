/* The seed's cantilever (seed 002, §4.3) for explicit dynamics of order P: the box
 * [0, 10] x [0, 1] x [0, 1] of nx x ny x nz hexahedra, clamped at x = 0, a uniform traction
 * -q in y on the end face x = 10, isotropic E, nu, density rho. Shared by the tests and
 * ductile-hoexplicit so both run the same problem.
 *
 * References (beam theory, L = 10, A = 1, I = 1/12):
 *  - static tip deflection, Timoshenko: q A L^3 / (3 E I) + q A L / (kappa G A),
 *    kappa = 10 (1 + nu) / (12 + 11 nu), G = E / (2 (1 + nu));
 *  - first bending frequency, Euler-Bernoulli: omega_1 = 1.875104^2 sqrt(E I / (rho A L^4)). */
#ifndef DT_HO_EXPLICIT_BEAM_H
#define DT_HO_EXPLICIT_BEAM_H

#include "core/dt_status.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_explicit.h"
#include "highorder/ho_explicit_parts.h"
#include "highorder/ho_mass.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_parts.h"

#define DT_HO_BEAM_LENGTH 10.0

typedef struct dt_ho_beam {
  dt_ho_mesh mesh;
  dt_ho_elastic op;
  dt_ho_mass_op mass_op; /* consistent mass (used when kind is DT_HO_MASS_CONSISTENT) */
  dt_ho_mass_kind kind;
  double E, nu, rho, q;
  double *mass;         /* lumped mass per node: GLL, or row sums for ROWSUM/CONSISTENT */
  unsigned char *fixed; /* per DOF: the x = 0 face */
  double *f;            /* the end traction's load vector */
  int tip;              /* node nearest the end-face centre (10, 0.5, 0.5) */
  int free_dofs;
} dt_ho_beam;

/* Builds the beam at order P on nx x ny x nz elements with mass `kind`. Errors: those of the
 * mesh, operator and mass (bad order, material or density); DT_ERR_NOMEM. Release with
 * dt_ho_beam_free (also after an error). */
dt_status dt_ho_beam_setup(int P, int nx, int ny, int nz, double E, double nu, double rho, double q,
                           dt_ho_mass_kind kind, dt_ho_beam *b, dt_ctx *ctx);
void dt_ho_beam_free(dt_ho_beam *b);
/* The explicit problem of the beam (step load, g = 1), pointing into b. */
void dt_ho_beam_problem(const dt_ho_beam *b, dt_ho_explicit_problem *pb);
/* Static solution K u = f by Jacobi PCG to rtol (u overwritten, 3 n_nodes entries). */
dt_status dt_ho_beam_static(const dt_ho_beam *b, double rtol, double *u, int *iterations,
                            dt_ctx *ctx);
/* The beam split into parts for a time loop on several devices: the parts' operators, masks
 * and local views (ho_parts.h, the x = 0 face fixed as in the beam), each part's lumped mass
 * (per local node) and load (per local DOF) gathered from the beam's, and the tip's y DOF in
 * the part that owns the tip (dt_ho_explicit_parts_build with the tip's y DOF watched). */
typedef struct dt_ho_beam_parts {
  dt_ho_parts parts;
  double **mass, **f; /* nparts each */
  int tip_part, tip_dof;
} dt_ho_beam_parts;
/* Errors: those of dt_ho_parts_build; DT_ERR_NOMEM. Release with dt_ho_beam_parts_free (also
 * after an error). */
dt_status dt_ho_beam_parts_build(const dt_ho_beam *b, int nparts, dt_ho_beam_parts *bp,
                                 dt_ctx *ctx);
void dt_ho_beam_parts_free(dt_ho_beam_parts *bp);
/* Timoshenko static tip deflection (positive, along -y) and the Euler-Bernoulli omega_1. */
double dt_ho_beam_timoshenko(const dt_ho_beam *b);
double dt_ho_beam_omega1(const dt_ho_beam *b);

#endif
