/* Deck output requests and controls: *NODE PRINT, *EL PRINT (tables in results.dat, CalculiX's
 * .dat layout), *NODE FILE, *EL FILE (the fields of the VTU files; FREQUENCY= becomes
 * output.every), *CONTROLS.
 *
 * Requests apply to the whole run (CalculiX keeps them for later steps too). *CONTROLS sets
 * CalculiX's own convergence criteria, which have no one-to-one counterpart in ductile: it is
 * accepted with a warning, and ductile's tolerances (solver.newton in the JSON format) apply. */
#include <string.h>

#include "import_inp_internal.h"

static const struct {
  const char *name;
  int element;
  unsigned bits;
} variables[] = {
    {"U", 0, DT_OUT_U}, {"RF", 0, DT_OUT_RF}, {"S", 1, DT_OUT_S | DT_OUT_MISES}, {"E", 1, DT_OUT_E},
    {"PEEQ", 1, DT_OUT_PEEQ},
};

static dt_status read_variables(inp *p, const inp_kw *kw, int element, unsigned *bits) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = kw->rec, n = 0;

  *bits = 0;
  while (inp_data(p, &rec, tok, &n))
    for (int k = 0; k < n; k++) {
      int found = 0;
      for (size_t v = 0; v < sizeof variables / sizeof variables[0]; v++)
        if (variables[v].element == element && inp_eq(tok[k], variables[v].name)) *bits |= variables[v].bits, found = 1;
      INP_CHECK(found, p, rec, "%s: variable '%s' is not supported (%s)", kw->name, tok[k],
                element ? "S, E, PEEQ" : "U, RF");
    }
  INP_CHECK(*bits != 0, p, rec, "%s needs a data line with the variables (%s)", kw->name,
            element ? "S, E, PEEQ" : "U, RF");
cleanup:
  return rc;
}

static dt_status frequency(inp *p, inp_kw *kw, int *every) {
  dt_status rc = DT_OK;
  const char *f = inp_param(kw, "FREQUENCY");
  int64_t v = 1;

  if (f) DT_TRY(inp_int64(p, kw->rec, f, "FREQUENCY", &v));
  INP_CHECK(v >= 1 && v <= 1000000, p, kw->rec, "%s: FREQUENCY must be >= 1", kw->name);
  *every = (int)v;
cleanup:
  return rc;
}

dt_status inp_print(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  dt_output_options *o = &p->m->output;
  int element = strcmp(kw->name, "*EL PRINT") == 0, set = -1, every = 1, i = 0;
  const char *name = inp_param(kw, element ? "ELSET" : "NSET"), *totals = inp_param(kw, "TOTALS");
  unsigned bits = 0;

  INP_CHECK(name && name[0], p, kw->rec, "%s needs %s=<set>", kw->name, element ? "ELSET" : "NSET");
  INP_CHECK(!totals || inp_eq(totals, "NO"), p, kw->rec, "%s: TOTALS=%s is not supported", kw->name, totals);
  DT_TRY(frequency(p, kw, &every));
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(element ? inp_get_elset(p, kw->rec, name, 0, &set) : inp_get_nset(p, kw->rec, name, 0, &set));
  INP_CHECK(set >= 0, p, kw->rec, "%s: unknown %s '%s'", kw->name, element ? "element set" : "node set", name);
  DT_TRY(read_variables(p, kw, element, &bits));
  for (i = 0; i < o->n_prints && !(o->prints[i].element == element && o->prints[i].set == set); i++) continue;
  INP_CHECK(i < DT_MAX_PRINTS, p, kw->rec, "at most %d print requests are supported", DT_MAX_PRINTS);
  if (i == o->n_prints) o->n_prints++, o->prints[i].fields = 0;
  o->prints[i].element = element;
  o->prints[i].set = set;
  o->prints[i].fields |= bits;
  o->prints[i].every = every;
cleanup:
  return rc;
}

dt_status inp_file_request(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  int element = strcmp(kw->name, "*EL FILE") == 0, every = 1;
  const char *out = inp_param(kw, "OUTPUT");
  unsigned bits = 0;

  INP_CHECK(!out || inp_eq(out, "2D") || inp_eq(out, "3D"), p, kw->rec, "%s: OUTPUT=%s is not supported", kw->name,
            out);
  DT_TRY(frequency(p, kw, &every));
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(read_variables(p, kw, element, &bits));
  if (!p->file_seen) p->m->output.fields = 0; /* explicit requests replace the default (all fields) */
  /* One VTU per written increment carries every requested field, so all *NODE FILE and
   * *EL FILE requests share one frequency (output.every): the smallest, so that no request
   * is written less often than it asks. */
  if (p->file_seen && every != p->m->output.every) {
    const int shared = every < p->m->output.every ? every : p->m->output.every;
    inp_warn(p, kw->rec, "%s: FREQUENCY=%d differs from an earlier *NODE FILE / *EL FILE (%d): ductile writes all "
             "requested fields together, every %d increment(s) and at the end of each step", kw->name, every,
             p->m->output.every, shared);
    every = shared;
  }
  p->file_seen = 1;
  p->m->output.fields |= bits;
  p->m->output.every = every;
cleanup:
  return rc;
}

dt_status inp_controls(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0;

  inp_param(kw, "PARAMETERS");
  inp_param(kw, "RESET");
  DT_TRY(inp_params_done(p, kw));
  while (inp_data(p, &rec, tok, &n)) continue;
  inp_warn(p, kw->rec, "*CONTROLS (CalculiX convergence criteria) is not translated: ductile's Newton tolerances "
           "apply (force residual %g of the force scale)", p->m->solver.newton_rtol);
cleanup:
  return rc;
}
