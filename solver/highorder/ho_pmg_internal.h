/* Private pieces of the p-multigrid preconditioner (ho_pmg.h) shared by its files. */
#ifndef DT_HO_PMG_INTERNAL_H
#define DT_HO_PMG_INTERNAL_H

#include "highorder/ho_pmg.h"

/* out (no^3) = (I (x) I (x) I) in (ni^3), I no x ni row-major; t1, t2 of no^2 ni doubles. */
void dt_ho_pmg_tensor3(int no, int ni, const double *I, const double *in, double *out, double *t1,
                       double *t2);
/* out (ni^3) = (I (x) I (x) I)^T in (no^3). */
void dt_ho_pmg_tensor3_t(int no, int ni, const double *I, const double *in, double *out, double *t1,
                         double *t2);
/* interp (n_f x n_c): L^{pc}_b at the Lobatto node a of order pf (rows a, columns b). */
dt_status dt_ho_pmg_interp_table(int pf, int pc, double *interp, dt_ctx *ctx);
/* The transfer data of level l from level l + 1: interp and own. */
dt_status dt_ho_pmg_transfer_setup(dt_ho_pmg *pmg, int l, dt_ctx *ctx);
/* Level l + 1's mesh on level l's elements (l's geometry interpolated at the coarse nodes),
 * its elastic operator with el's Lame parameters, and its constrained DOFs. */
dt_status dt_ho_pmg_coarse_level(dt_ho_pmg *pmg, int l, const double *fine_coords,
                                 const dt_ho_elastic *el, dt_ctx *ctx);
/* The order-1 last level's assembled CSR and its AMG. */
dt_status dt_ho_pmg_assemble(dt_ho_pmg *pmg, dt_ctx *ctx);

#endif
