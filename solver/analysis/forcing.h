/* The linear solver's tolerance for each Newton correction (the "forcing term" eta_k:
 * the correction c solves K c = r to |K c - r| <= eta_k |r|).
 *
 * fixed:    eta_k = linear.tolerance for every correction, the seed's scheme.
 * adaptive: Eisenstat & Walker (SIAM J. Sci. Comput. 17, 1996, "choice 2"): tight solves only
 *           once Newton converges fast, loose ones while it is far from the solution, where a
 *           tight solve buys nothing; see forcing.c for the formula and its safeguards.
 *           linear.tolerance is then the tightest tolerance ever used. */
#ifndef DT_FORCING_H
#define DT_FORCING_H

#include "model/model.h"

/* The loosest tolerance of an adaptive correction: the first correction of an increment
 * solves to 1e-2 (Eisenstat & Walker's 0.9 makes elastoplastic trial states wander; 1e-2
 * costs about a third of a 1e-7 solve's PCG iterations). */
#define DT_FORCING_ETA_MAX 1e-2

typedef struct dt_forcing {
  dt_forcing_kind kind;
  double eta_min;     /* linear.tolerance */
  double newton_rtol; /* the residual Newton must reach: no point solving below it */
  double eta_prev;    /* the previous correction's tolerance; 0 before the first */
  double rel_prev;    /* the residual that correction started from */
} dt_forcing;

/* Start an increment: the first correction gets the loosest tolerance (adaptive). */
void dt_forcing_start(dt_forcing *f, const dt_solver_options *o);

/* The tolerance for the next correction, which starts from relative residual rel (> 0). */
double dt_forcing_next(dt_forcing *f, double rel);

#endif
