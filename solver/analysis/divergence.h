/* The divergence test of a Newton increment, shared by the analysis driver (newton.c) and the
 * order-P plastic solver (highorder/ho_plastic_newton.c) so both give up on the same histories:
 * the relative residual grew 1e4-fold past 1 within the first iterations, or grew three
 * iterations in a row late in the increment. */
#ifndef DT_DIVERGENCE_H
#define DT_DIVERGENCE_H

/* The residuals the test needs: the first and the last four. */
typedef struct dt_residual_history {
  double first, last[4]; /* last[0] is the newest */
  int n;
} dt_residual_history;

static inline void dt_residual_history_push(dt_residual_history *h, double rel) {
  if (h->n == 0) h->first = rel;
  for (int i = 3; i > 0; i--) h->last[i] = h->last[i - 1];
  h->last[0] = rel;
  h->n++;
}

static inline int dt_residual_history_diverging(const dt_residual_history *h) {
  if (h->n >= 3 && h->last[0] > 1e4 * h->first && h->last[0] > 1.0) return 1;
  /* growing for three iterations in a row late in the increment */
  return h->n >= 6 && h->last[0] > h->last[1] && h->last[1] > h->last[2] && h->last[2] > h->last[3];
}

#endif
