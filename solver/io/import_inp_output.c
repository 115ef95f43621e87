/* Deck output requests and controls: *NODE PRINT, *EL PRINT (tables in results.dat, CalculiX's
 * .dat layout), *NODE FILE, *EL FILE and Abaqus's *OUTPUT, FIELD with *NODE OUTPUT, *ELEMENT
 * OUTPUT (the fields of the VTU files and of <job name>.frd, CalculiX's result file; FREQUENCY=
 * becomes output.every), *CONTROLS.
 *
 * In an explicit step, fields are written at the step's output frames (20 equal intervals
 * unless NUMBER INTERVAL=n asks for n, or TIME INTERVAL=t for the step's period over t), or
 * every n-th time step where a request gives FREQUENCY=n: CalculiX's default, every increment,
 * would be every time step. Print requests there take U, S, E, PEEQ: RF (the internal nodal
 * forces) is not formed for shells.
 *
 * Print requests last until a later step gives its own (inp_print); file requests apply to the
 * whole run, since one VTU and one .frd result set per written increment carry every requested
 * field. *CONTROLS sets CalculiX's own convergence criteria, which have no one-to-one
 * counterpart in ductile: it is accepted with a warning, and ductile's tolerances
 * (solver.newton in the JSON format) apply. */
#include <math.h>
#include <string.h>

#include "import_inp_internal.h"

/* print_only: tabled in results.dat (*EL PRINT), not written to the VTU or .frd files. */
static const struct {
  const char *name;
  int element, print_only;
  unsigned bits;
} variables[] = {
    {"U", 0, 0, DT_OUT_U},       {"RF", 0, 0, DT_OUT_RF},     {"S", 1, 0, DT_OUT_S | DT_OUT_MISES},
    {"E", 1, 0, DT_OUT_E},       {"PEEQ", 1, 0, DT_OUT_PEEQ}, {"ENER", 1, 1, DT_OUT_ENER},
    {"ELSE", 1, 1, DT_OUT_ELSE}, {"EVOL", 1, 1, DT_OUT_EVOL},
};

/* The variables of the data lines: their bits, and for print requests (vars != NULL) each one
 * once in the order given, since CalculiX prints a request's blocks in that order. */
static dt_status read_variables(inp *p, const inp_kw *kw, int element, unsigned *bits,
                                unsigned *vars, int *n_vars) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = kw->rec, n = 0;
  const char *supported = !element ? "U, RF" : vars ? "S, E, PEEQ, ENER, ELSE, EVOL" : "S, E, PEEQ";

  *bits = 0;
  if (n_vars) *n_vars = 0;
  while (inp_data(p, &rec, tok, &n))
    for (int k = 0; k < n; k++) {
      int found = 0;
      for (size_t v = 0; v < sizeof variables / sizeof variables[0]; v++) {
        if (variables[v].element != element || !inp_eq(tok[k], variables[v].name)) continue;
        INP_CHECK(vars || !variables[v].print_only, p, rec,
                  "%s: variable '%s' is not supported (%s; *EL PRINT tables ENER, ELSE and EVOL "
                  "in results.dat)",
                  kw->name, tok[k], supported);
        found = 1;
        if (vars && !(*bits & variables[v].bits))
          vars[(*n_vars)++] = variables[v].bits & ~DT_OUT_MISES;
        *bits |= variables[v].bits;
      }
      INP_CHECK(found, p, rec, "%s: variable '%s' is not supported (%s)", kw->name, tok[k],
                supported);
    }
  INP_CHECK(*bits != 0, p, rec, "%s needs a data line with the variables (%s)", kw->name,
            supported);
cleanup:
  return rc;
}

/* FREQUENCY=n: every n-th increment; 0 (prints only, as CalculiX allows) prints nothing. */
static dt_status frequency(inp *p, inp_kw *kw, int zero_ok, int *every) {
  dt_status rc = DT_OK;
  const char *f = inp_param(kw, "FREQUENCY");
  int64_t v = 1;

  if (f) DT_TRY(inp_int64(p, kw->rec, f, "FREQUENCY", &v));
  INP_CHECK(v >= (zero_ok ? 0 : 1) && v <= 1000000, p, kw->rec, "%s: FREQUENCY must be >= %d",
            kw->name, zero_ok ? 0 : 1);
  *every = (int)v;
cleanup:
  return rc;
}

/* YES (1), NO (0) or `more` (2), or an error naming the parameter; *out stays as it is when the
 * parameter is absent. */
static dt_status yes_no(inp *p, inp_kw *kw, const char *key, const char *more, int *out) {
  dt_status rc = DT_OK;
  const char *v = inp_param(kw, key);

  if (!v) goto cleanup;
  INP_CHECK(inp_eq(v, "YES") || inp_eq(v, "NO") || (more && inp_eq(v, more)), p, kw->rec,
            "%s: %s=%s is not supported (YES%s%s or NO)", kw->name, key, v, more ? ", " : "",
            more ? more : "");
  *out = inp_eq(v, "YES") ? 1 : inp_eq(v, "NO") ? 0 : 2;
cleanup:
  return rc;
}

/* *NODE PRINT / *EL PRINT, as CalculiX keeps them: one request per keyword, its variables in
 * the order of the data lines, printed in the order of the keywords. The first *NODE PRINT
 * (*EL PRINT) of a step replaces the node (element) requests of the earlier steps; a step
 * without one keeps them. TOTALS=YES adds the sum over the set after an RF, ELSE or EVOL
 * block, ONLY prints the sum instead (CalculiX's totals concern these among the variables
 * ductile prints: U, S, E, PEEQ and ENER blocks are printed whatever TOTALS says). GLOBAL=NO,
 * CalculiX's default, prints the nodes of a *TRANSFORM in its local axes (GLOBAL=YES in the
 * global ones); elements print in the global system either way (*ORIENTATION is refused). */
dt_status inp_print(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  dt_output_options *o = &p->m->output;
  dt_print_request r;
  int element = strcmp(kw->name, "*EL PRINT") == 0, step = p->m->n_steps - 1, global = 0,
      totals = 0;
  const char *name = inp_param(kw, element ? "ELSET" : "NSET");

  memset(&r, 0, sizeof r);
  r.element = element;
  r.step_begin = step;
  INP_CHECK(name && name[0], p, kw->rec, "%s needs %s=<set>", kw->name, element ? "ELSET" : "NSET");
  DT_TRY(yes_no(p, kw, "TOTALS", "ONLY", &totals));
  r.totals = totals == 1 ? DT_TOTALS_YES : totals == 2 ? DT_TOTALS_ONLY : DT_TOTALS_NO;
  DT_TRY(yes_no(p, kw, "GLOBAL", NULL, &global));
  r.local = !element && !global;
  DT_TRY(frequency(p, kw, 1, &r.every));
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(element ? inp_get_elset(p, kw->rec, name, 0, &r.set)
                 : inp_get_nset(p, kw->rec, name, 0, &r.set));
  INP_CHECK(r.set >= 0, p, kw->rec, "%s: unknown %s '%s'", kw->name,
            element ? "element set" : "node set", name);
  DT_TRY(read_variables(p, kw, element, &r.fields, r.vars, &r.n_vars));
  INP_CHECK(!p->step_explicit || !(r.fields & DT_OUT_RF), p, kw->rec,
            "%s: RF is not printed in explicit steps (U, S, E, PEEQ are; *NODE FILE, RF writes "
            "the reactions to the VTU and .frd files)",
            kw->name);
  INP_CHECK(!p->step_explicit || !(r.fields & (DT_OUT_ENER | DT_OUT_ELSE | DT_OUT_EVOL)), p,
            kw->rec,
            "%s: ENER, ELSE and EVOL are not printed in explicit steps (their points are the "
            "explicit elements', and CalculiX's energy there is the work accumulated over the "
            "time steps)",
            kw->name);
  r.fields &= ~DT_OUT_MISES;
  if (!p->print_seen[element])
    for (int i = 0; i < o->n_prints; i++)
      if (o->prints[i].element == element && o->prints[i].step_end == 0)
        o->prints[i].step_end = step;
  p->print_seen[element] = 1;
  if (r.every == 0) goto cleanup; /* CalculiX's FREQUENCY=0: this request prints nothing */
  INP_CHECK(o->n_prints < DT_MAX_PRINTS, p, kw->rec, "at most %d print requests are supported",
            DT_MAX_PRINTS);
  p->print_rec[o->n_prints] = kw->rec;
  o->prints[o->n_prints++] = r;
cleanup:
  return rc;
}

/* ENER and ELSE are 1/2 sigma : eps, CalculiX's accumulated work only where the material is
 * linear elastic and starts unstressed (output_energy.c): a request for them on an element with
 * a plastic material, or in a model with initial stresses or plastic strains, is refused, naming
 * the request's line. Needs the elements' sections (dt_model_finish). */
dt_status inp_prints_done(inp *p) {
  dt_status rc = DT_OK;
  const dt_model *m = p->m;

  for (int i = 0; i < m->output.n_prints; i++) {
    const dt_print_request *r = &m->output.prints[i];
    if (!r->element || !(r->fields & (DT_OUT_ENER | DT_OUT_ELSE))) continue;
    /* with an initial stress the energy is sig0 : eps + 1/2 eps : C : eps, not 1/2 sig : eps */
    INP_CHECK(m->n_initial_states == 0, p, p->print_rec[i],
              "*EL PRINT: ENER and ELSE are not supported with *INITIAL CONDITIONS, TYPE=STRESS or "
              "PLASTIC STRAIN (EVOL is)");
    for (int k = 0; k < m->elsets[r->set].n && m->elem_section; k++) {
      const int e = m->elsets[r->set].items[k], sec = m->elem_section[e];
      const dt_material *mat = sec >= 0 ? &m->materials[m->sections[sec].material] : NULL;
      INP_CHECK(!mat || mat->p.plastic == DT_PLASTIC_NONE, p, p->print_rec[i],
                "*EL PRINT: ENER and ELSE are supported for linear elastic materials only: element "
                "%lld of set %s has the plastic material %s, whose energy is the work accumulated "
                "increment by increment, plastic dissipation included (EVOL is printed for any "
                "material)",
                (long long)m->elem_id[e], m->elsets[r->set].name, mat->name);
    }
  }
cleanup:
  return rc;
}

/* An explicit step's output intervals from NUMBER INTERVAL= or TIME INTERVAL= (*OUTPUT, *NODE
 * OUTPUT, *ELEMENT OUTPUT), and FREQUENCY=n (every n time steps) where the keyword gives it. */
static dt_status explicit_intervals(inp *p, inp_kw *kw, int *frequency_given) {
  dt_status rc = DT_OK;
  const char *ni = inp_param(kw, "NUMBERINTERVAL"), *ti = inp_param(kw, "TIMEINTERVAL"),
             *fr = inp_param(kw, "FREQUENCY");
  dt_explicit_options *x = &p->m->steps[p->m->n_steps - 1].explicit_;
  int64_t n = 0;
  double t = 0, k = 0;

  *frequency_given = fr != NULL;
  if (!ni && !ti) goto cleanup;
  INP_CHECK(p->step_explicit, p, kw->rec,
            "%s: NUMBER INTERVAL and TIME INTERVAL apply in explicit steps (after *DYNAMIC, "
            "EXPLICIT)",
            kw->name);
  INP_CHECK(!(ni && ti) && !fr, p, kw->rec,
            "%s: give one of NUMBER INTERVAL, TIME INTERVAL and FREQUENCY", kw->name);
  if (ni) DT_TRY(inp_int64(p, kw->rec, ni, "NUMBER INTERVAL", &n));
  if (ti) DT_TRY(inp_double(p, kw->rec, ti, "TIME INTERVAL", &t));
  INP_CHECK(ni ? n >= 1 && n <= 1000000 : t > 0 && t <= x->time_period, p, kw->rec,
            "%s: %s must be %s (got %s)", kw->name, ni ? "NUMBER INTERVAL" : "TIME INTERVAL",
            ni ? "1 to 1000000" : "> 0 and at most the time period", ni ? ni : ti);
  k = ni ? (double)n : x->time_period / t;
  x->output_frames = (int)ceil(k - 1e-9 * k);
  x->output_every = 0;
  if (ti && fabs(k - x->output_frames) > 1e-9 * k)
    inp_warn(p, kw->rec,
             "%s: TIME INTERVAL=%s does not divide the time period %g: fields are written at %d "
             "equal intervals of the step",
             kw->name, ti, x->time_period, x->output_frames);
cleanup:
  return rc;
}

dt_status inp_file_request(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  int element = !strcmp(kw->name, "*EL FILE") || !strcmp(kw->name, "*ELEMENT OUTPUT"), every = 1,
      abaqus = strstr(kw->name, " OUTPUT") != NULL, frequency_given = 0;
  const char *out = inp_param(kw, "OUTPUT");
  unsigned bits = 0;

  INP_CHECK(!out || inp_eq(out, "2D") || inp_eq(out, "3D"), p, kw->rec,
            "%s: OUTPUT=%s is not supported", kw->name, out);
  if (abaqus) DT_TRY(explicit_intervals(p, kw, &frequency_given));
  frequency_given |= inp_param(kw, "FREQUENCY") != NULL;
  DT_TRY(frequency(p, kw, 0, &every));
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(read_variables(p, kw, element, &bits, NULL, NULL));
  if (!p->file_seen)
    p->m->output.fields = 0; /* explicit requests replace the default (all fields) */
  /* One VTU per written increment carries every requested field, so all *NODE FILE and
   * *EL FILE requests share one frequency (output.every): the smallest, so that no request
   * is written less often than it asks. */
  if (!p->step_explicit && p->file_seen && every != p->m->output.every) {
    const int shared = every < p->m->output.every ? every : p->m->output.every;
    inp_warn(
        p, kw->rec,
        "%s: FREQUENCY=%d differs from an earlier *NODE FILE / *EL FILE (%d): ductile writes all "
        "requested fields together, every %d increment(s) and at the end of each step",
        kw->name, every, p->m->output.every, shared);
    every = shared;
  }
  p->file_seen = 1;
  p->m->output.frd = 1; /* where CalculiX writes its .frd, ductile writes one too */
  p->m->output.fields |= bits;
  if (!p->step_explicit)
    p->m->output.every = every;
  else if (frequency_given) /* time steps here; the step's frames otherwise */
    p->m->steps[p->m->n_steps - 1].explicit_.output_every = every;
cleanup:
  return rc;
}

/* *OUTPUT, FIELD: the requests after it (*NODE OUTPUT, *ELEMENT OUTPUT) write at its intervals.
 * History output (*OUTPUT, HISTORY) is not written: ductile's history is history.csv. */
dt_status inp_output(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  int field = inp_param(kw, "FIELD") != NULL, history = inp_param(kw, "HISTORY") != NULL,
      frequency_given = 0, every = 1;

  INP_CHECK(!history, p, kw->rec,
            "*OUTPUT, HISTORY is not supported (ductile's history is history.csv: output.monitors "
            "in a JSON job)");
  INP_CHECK(field, p, kw->rec, "*OUTPUT needs FIELD");
  DT_TRY(explicit_intervals(p, kw, &frequency_given));
  DT_TRY(frequency(p, kw, 0, &every));
  DT_TRY(inp_params_done(p, kw));
  if (!frequency_given) goto cleanup;
  if (p->step_explicit)
    p->m->steps[p->m->n_steps - 1].explicit_.output_every = every;
  else
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
  inp_warn(
      p, kw->rec,
      "*CONTROLS (CalculiX convergence criteria) is not translated: ductile's Newton tolerances "
      "apply (force residual %g of the force scale)",
      p->m->solver.newton_rtol);
cleanup:
  return rc;
}
