/* Step loads and boundary conditions as global vectors (host side, once per step). */
#ifndef DT_LOADS_H
#define DT_LOADS_H

#include "model/model.h"

/* External force at the end of step s (n_dofs): nodal forces, pressure and traction integrated
 * over surface faces, body force over element volumes (2D: times the section thickness). */
dt_status dt_loads_force(const dt_model *m, int s, double *f, dt_ctx *ctx);
/* Constraint mask and prescribed values at the end of step s: free[d] = 1 or 0,
 * u_presc[d] = the prescribed displacement on constrained DOFs (0 elsewhere). */
/* Whether step s holds DOFs at the displacement it starts from (dt_bc.hold), and u_presc of
 * those DOFs set to u_start's. */
int dt_loads_has_hold(const dt_model *m, int s);
void dt_loads_hold(const dt_model *m, int s, const double *u_start, double *u_presc);
dt_status dt_loads_constraints(const dt_model *m, int s, double *free_mask, double *u_presc,
                               dt_ctx *ctx);

#endif
