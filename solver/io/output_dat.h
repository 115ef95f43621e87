/* results.dat: the node and element print requests of a model (Abaqus *NODE PRINT / *EL PRINT,
 * dt_output_options.prints) as tables in CalculiX's .dat layout, so they can be compared with
 * an existing CalculiX job.dat line by line.
 *
 * One block per request, variable and printed increment, in the order of the requests and of
 * each request's variables (dt_print_request.vars):
 *   <blank>
 *    displacements (vx,vy,vz) for set NALL and time  0.1000000E+01
 *   <blank>
 *            1  1.000000E-03  0.000000E+00 -2.240212E-04
 * Variables: U "displacements (vx,vy,vz)"; RF "forces (fx,fy,fz)", CalculiX's internal nodal
 * forces (the reaction at a constrained DOF, the load at a loaded free one), formed from the
 * point stresses, followed (TOTALS=YES) or replaced (ONLY) by "total force (fx,fy,fz)", the sum
 * over the set on one line; S "stresses (elem, integ.pnt.,sxx,syy,szz,sxy,sxz,syz)"; E
 * "strains (elem, integ.pnt.,exx,...)" with tensor shear components (half the engineering
 * shears, as CalculiX prints them); PEEQ "equivalent plastic strain (elem, integ.pnt.,pe)";
 * ENER "internal energy density (elem, integ.pnt.,energy)", 1/2 sigma : eps per point; ELSE
 * "internal energy (element, energy)", its volume integral per element; EVOL "volume (element,
 * volume)"; with TOTALS=YES ELSE and EVOL add "total internal energy" / "total volume" (the sum
 * over the set on one line), ONLY prints the sum instead (output_energy.c).
 * Rows: user id (elements: and the 1-based integration point), then the values; 2D models print
 * 3 components per node with z = 0, like CalculiX. "time" is dt_fields.time (step index + load
 * factor), CalculiX's total time when every step has period 1. A request prints in its steps
 * (step_begin .. step_end), at increments whose number is a multiple of its `every` and at the
 * end of every step. */
#ifndef DT_IO_OUTPUT_DAT_H
#define DT_IO_OUTPUT_DAT_H

#include "model/model.h"
#include "core/results.h"

/* Create (truncate) dir/results.dat when m has print requests; nothing otherwise.
 * Errors: DT_ERR_IO naming the file; DT_ERR_NOMEM. */
dt_status dt_dat_start(const char *dir, const dt_model *m, dt_ctx *ctx);

/* Whether increment f prints anything: some request is due (its `every`, or a step's end). */
int dt_dat_due(const dt_model *m, const dt_fields *f);

/* Append the blocks of increment f for every request due at this increment (f borrowed).
 * Errors: DT_ERR_IO; DT_ERR_NOMEM; DT_ERR_INTERNAL if a request names a set that does not exist
 * or a variable f does not carry (RF needs the point stresses). */
dt_status dt_dat_append(const char *dir, const dt_model *m, const dt_fields *f, dt_ctx *ctx);

/* ENER of every point of f: 1/2 sigma : eps (CalculiX's accumulated work, for a linear elastic
 * material); f must carry the point stresses and strains. */
void dt_point_energy(const dt_fields *f, double *ener);

/* Element e's volume (in 2D times its section's thickness) and, when energy and ener are not
 * NULL, the volume integral of ener (ELSE), by the element's own rule. Returns 0, or -1 when
 * f does not carry the element's points. */
int dt_elem_volume_energy(const dt_model *m, const dt_fields *f, int e, const double *ener,
                          double *volume, double *energy);

#endif
