/* history.csv: one row per converged increment. Numbers are printed with %.17g so that a
 * reader gets back exactly the doubles the solver had (round trip of IEEE binary64). */
#include "io/output_internal.h"

#include <string.h>

/* A monitor name is user text: quote it (RFC 4180) if it would break the CSV. */
static int write_csv_field(FILE *f, const char *s) {
  const char *c;
  if (strpbrk(s, ",\"\r\n") == NULL) return fprintf(f, ",%s", s) < 0;
  if (fputs(",\"", f) == EOF) return 1;
  for (c = s; *c; c++) {
    if (*c == '"' && fputc('"', f) == EOF) return 1;
    if (fputc(*c, f) == EOF) return 1;
  }
  return fputc('"', f) == EOF;
}

int dt_history_write_header(FILE *f, const dt_model *m) {
  int i, err = 0;
  err |= fputs("step,increment,time,load_factor,newton_iterations,pcg_iterations,residual,"
               "cutbacks,plastic_points",
               f) == EOF;
  for (i = 0; i < m->output.n_monitors; i++) err |= write_csv_field(f, m->output.monitors[i].name);
  err |= fputc('\n', f) == EOF;
  err |= fflush(f) != 0;
  return err;
}

int dt_history_write_row(FILE *f, const dt_history_row *r) {
  int i, err = 0;
  err |= fprintf(f, "%d,%d,%.17g,%.17g,%d,%d,%.17g,%d,%d", r->step + 1, r->increment, r->time,
                 r->load_factor, r->newton_iters, r->pcg_iters, r->residual, r->cutbacks,
                 r->n_plastic_qp) < 0;
  for (i = 0; i < r->n_monitors; i++) err |= fprintf(f, ",%.17g", r->monitor[i]) < 0;
  err |= fputc('\n', f) == EOF;
  /* Flush every row: the history is how a user (or the daemon) watches a running job. */
  err |= fflush(f) != 0;
  return err;
}
