/* Explicit dynamics in decks: *DYNAMIC, EXPLICIT, *AMPLITUDE, AMPLITUDE= on the loads and
 * boundary conditions of a step, *INITIAL CONDITIONS, TYPE=VELOCITY, and the rules that keep
 * static and explicit steps apart.
 *
 * *DYNAMIC, EXPLICIT's data line is "time increment, time period[, minimum, maximum]", as both
 * Abaqus and CalculiX write it. The increment is used as a fixed time step only where the deck
 * asks for one (Abaqus's DIRECT USER CONTROL or FIXED TIME INCREMENTATION, CalculiX's DIRECT);
 * otherwise ductile takes the stable time step of its elements, as Abaqus/Explicit does, and
 * notes the increment it does not use. Abaqus's SCALE FACTOR is the stable step's safety factor.
 * CalculiX's minimum increment (mass scaling) and a maximum increment are refused.
 *
 * A model holds one amplitude per explicit step: the *AMPLITUDE table its loads name, or the
 * step's default (*STEP, AMPLITUDE=STEP or RAMP; STEP when not given, Abaqus's default for
 * explicit dynamics) for the loads that name none. A step whose nonzero loads follow two
 * different amplitudes is refused at the line of the second. A job's steps are all static or all
 * explicit, and shells run in explicit steps only (dt_model_finish): both are checked here at
 * the procedure's line, so that a deck's refusal names a line. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_internal.h"
#include "import_inp_internal.h"

static int rec_line(const inp *p, int rec) { return p->recs[rec].line; }
static const char *rec_file(const inp *p, int rec) { return p->files[p->recs[rec].file]; }

/* The first element that is (want_shell) or is not a shell, -1 if none. */
static int first_element(const inp *p, int want_shell) {
  for (int e = 0; e < p->m->n_elems; e++)
    if ((p->m->elem_type[e] == DT_ELEM_SHELL4) == want_shell) return e;
  return -1;
}

dt_status inp_static_allowed(inp *p, const inp_kw *kw) {
  dt_status rc = DT_OK;
  int e = first_element(p, 1);

  INP_CHECK(p->explicit_rec < 0, p, kw->rec,
            "*STATIC after an explicit step (*DYNAMIC, EXPLICIT at line %d of %s): a deck's steps "
            "are all static or all explicit",
            rec_line(p, p->explicit_rec), rec_file(p, p->explicit_rec));
  INP_CHECK(e < 0, p, kw->rec,
            "*STATIC: element %lld (line %d of %s) is a shell: shells in static steps are not "
            "supported (they run in explicit steps, *DYNAMIC, EXPLICIT)",
            (long long)p->m->elem_id[e], rec_line(p, p->elem_rec[e]), rec_file(p, p->elem_rec[e]));
  if (p->static_rec < 0) p->static_rec = kw->rec;
cleanup:
  return rc;
}

/* The first element that is neither a shell nor a hex8, -1 if none. */
static int first_other(const inp *p) {
  for (int e = 0; e < p->m->n_elems; e++)
    if (p->m->elem_type[e] != DT_ELEM_SHELL4 && p->m->elem_type[e] != DT_ELEM_HEX8) return e;
  return -1;
}

static dt_status explicit_allowed(inp *p, const inp_kw *kw) {
  dt_status rc = DT_OK;
  int e = first_other(p), s = first_element(p, 1), h = first_element(p, 0);

  INP_CHECK(!p->step_has_procedure, p, kw->rec, "a step has one procedure: *DYNAMIC after another");
  INP_CHECK(p->static_rec < 0, p, kw->rec,
            "*DYNAMIC, EXPLICIT after a static step (*STATIC at line %d of %s): a deck's steps are "
            "all static or all explicit",
            rec_line(p, p->static_rec), rec_file(p, p->static_rec));
  INP_CHECK(e < 0, p, kw->rec,
            "*DYNAMIC, EXPLICIT: element %lld (%s, line %d of %s): explicit steps take shells (S4, "
            "S4R) and hexahedra (C3D8, C3D8R) today",
            (long long)p->m->elem_id[e], dt_model_elem_type_name(p->m->elem_type[e]),
            rec_line(p, p->elem_rec[e]), rec_file(p, p->elem_rec[e]));
  INP_CHECK(s < 0 || h < 0, p, kw->rec,
            "*DYNAMIC, EXPLICIT: element %lld (line %d of %s) is a shell and element %lld (line %d "
            "of %s) a hexahedron: an explicit model is all shells or all hexahedra today",
            (long long)p->m->elem_id[s], rec_line(p, p->elem_rec[s]), rec_file(p, p->elem_rec[s]),
            (long long)p->m->elem_id[h], rec_line(p, p->elem_rec[h]), rec_file(p, p->elem_rec[h]));
cleanup:
  return rc;
}

/* The procedure's parameters: EXPLICIT (CalculiX's 2 and 3 integrate the structure explicitly,
 * 0 and 1 implicitly), SCALE FACTOR into x, and into *fixed the flags that fix the time increment:
 * bit 0 CalculiX's DIRECT, bit 1 DIRECT USER CONTROL, bit 2 FIXED TIME INCREMENTATION. */
static dt_status dynamic_params(inp *p, inp_kw *kw, int *fixed, dt_explicit_options *x) {
  dt_status rc = DT_OK;
  const char *expl = inp_param(kw, "EXPLICIT"), *scale = inp_param(kw, "SCALEFACTOR");

  *fixed = (inp_param(kw, "DIRECT") != NULL) + 2 * (inp_param(kw, "DIRECTUSERCONTROL") != NULL) +
           4 * (inp_param(kw, "FIXEDTIMEINCREMENTATION") != NULL);
  inp_param(kw, "ELEMENTBYELEMENT"); /* the stable step's estimate, ductile's own */
  INP_CHECK(expl != NULL, p, kw->rec,
            "*DYNAMIC without EXPLICIT (implicit dynamics) is not supported: ductile integrates "
            "dynamics explicitly (*DYNAMIC, EXPLICIT)");
  INP_CHECK(!expl[0] || inp_eq(expl, "2") || inp_eq(expl, "3"), p, kw->rec,
            "*DYNAMIC, EXPLICIT=%s: CalculiX's 0 and 1 integrate the structure implicitly, which "
            "is not supported (EXPLICIT, EXPLICIT=2 or 3)",
            expl);
  if (scale) DT_TRY(inp_double(p, kw->rec, scale, "*DYNAMIC, SCALE FACTOR", &x->dt_safety));
  INP_CHECK(x->dt_safety > 0 && x->dt_safety <= 1, p, kw->rec,
            "*DYNAMIC: SCALE FACTOR must be in (0, 1] (the stable time step's safety factor, got "
            "%g)",
            x->dt_safety);
  DT_TRY(inp_params_done(p, kw));
cleanup:
  return rc;
}

/* The data line "time increment, time period[, minimum, maximum]" into x. */
static dt_status dynamic_data(inp *p, const inp_kw *kw, int fixed, dt_explicit_options *x) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  double v[4] = {0, 0, 0, 0};
  int rec = kw->rec, n = 0;

  INP_CHECK(inp_data(p, &rec, tok, &n) && n >= 2 && n <= 4 && tok[1][0], p, rec,
            "*DYNAMIC, EXPLICIT needs a data line 'time increment, time period[, minimum, "
            "maximum]'");
  for (int k = 0; k < n; k++)
    if (tok[k][0]) DT_TRY(inp_double(p, rec, tok[k], "*DYNAMIC", &v[k]));
  INP_CHECK(!inp_data(p, &rec, tok, &n), p, rec, "*DYNAMIC: one data line expected");
  INP_CHECK(v[1] > 0 && isfinite(v[1]), p, rec, "*DYNAMIC: the time period must be > 0 (got %g)",
            v[1]);
  INP_CHECK(v[2] == 0, p, rec,
            "*DYNAMIC: a minimum time increment (%g) asks CalculiX for mass scaling, which is not "
            "supported",
            v[2]);
  INP_CHECK(v[3] == 0, p, rec,
            "*DYNAMIC: a maximum time increment (%g) is not supported (ductile takes the stable "
            "time step, or the increment given with DIRECT USER CONTROL)",
            v[3]);
  INP_CHECK(v[0] >= 0 && v[0] <= v[1], p, rec,
            "*DYNAMIC: the time increment must be in [0, time period] (got %g)", v[0]);
  INP_CHECK(v[0] > 0 || (fixed & 3) == 0, p, rec, "*DYNAMIC, %s needs a time increment > 0",
            fixed & 1 ? "DIRECT" : "DIRECT USER CONTROL");
  x->time_period = v[1];
  x->dt = fixed ? v[0] : 0.0;
  if (!fixed && v[0] > 0)
    inp_warn(p, rec,
             "*DYNAMIC, EXPLICIT: the time increment %g is not fixed (no DIRECT USER CONTROL, "
             "FIXED TIME INCREMENTATION or DIRECT): the stable time step is used, times %g",
             v[0], x->dt_safety);
cleanup:
  return rc;
}

dt_status inp_dynamic(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  dt_step *st = &p->m->steps[p->m->n_steps - 1];
  int fixed = 0;

  DT_TRY(dynamic_params(p, kw, &fixed, &st->explicit_));
  DT_TRY(explicit_allowed(p, kw));
  DT_TRY(dynamic_data(p, kw, fixed, &st->explicit_));
  st->procedure = DT_PROC_EXPLICIT;
  p->step_has_procedure = 1;
  p->step_explicit = 1;
  if (p->explicit_rec < 0) p->explicit_rec = kw->rec;
cleanup:
  return rc;
}

static int find_amplitude(const inp *p, const char *name) {
  char up[DT_NAME_MAX];
  if (dt_imp_name_upper(up, name)) return -1;
  for (int i = 0; i < p->n_amps; i++)
    if (strcmp(p->amps[i].name, up) == 0) return i;
  return -1;
}

/* The data lines: "time, value" pairs, up to four a line. */
static dt_status amplitude_points(inp *p, const inp_kw *kw, dt_amplitude *a) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = kw->rec, n = 0;

  a->kind = DT_AMP_TABLE;
  while (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(n % 2 == 0 && n <= 8, p, rec,
              "*AMPLITUDE: expected pairs 'time, value' (up to four a line), got %d values", n);
    for (int k = 0; k < n; k += 2, a->n++) {
      INP_CHECK(a->n < DT_AMP_MAX_POINTS, p, rec,
                "*AMPLITUDE: more than %d points are not supported", DT_AMP_MAX_POINTS);
      DT_TRY(inp_double(p, rec, tok[k], "*AMPLITUDE time", &a->t[a->n]));
      DT_TRY(inp_double(p, rec, tok[k + 1], "*AMPLITUDE value", &a->a[a->n]));
      INP_CHECK(a->t[a->n] >= 0 && (a->n == 0 || a->t[a->n] > a->t[a->n - 1]), p, rec,
                "*AMPLITUDE: times must start at 0 or later and increase (got %g)", a->t[a->n]);
    }
  }
  INP_CHECK(a->n > 0, p, rec, "*AMPLITUDE needs data lines 'time, value, ...'");
cleanup:
  return rc;
}

/* *AMPLITUDE, NAME=: a table of step time and factor, linear between points (DEFINITION=TABULAR,
 * TIME=STEP TIME, VALUE=RELATIVE: the defaults, and all ductile takes). */
dt_status inp_amplitude(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *name = inp_param(kw, "NAME"), *def = inp_param(kw, "DEFINITION"),
             *time = inp_param(kw, "TIME"), *value = inp_param(kw, "VALUE");
  inp_amp a;

  memset(&a, 0, sizeof a);
  INP_CHECK(name && !dt_imp_name_upper(a.name, name), p, kw->rec,
            "*AMPLITUDE needs NAME=<name> of 1 to %d characters", DT_NAME_MAX - 1);
  INP_CHECK(!def || inp_eq(def, "TABULAR"), p, kw->rec,
            "*AMPLITUDE: DEFINITION=%s is not supported (TABULAR)", def);
  INP_CHECK(!time || inp_eq(time, "STEPTIME") || inp_eq(time, "STEP TIME"), p, kw->rec,
            "*AMPLITUDE: TIME=%s is not supported (STEP TIME)", time);
  INP_CHECK(!value || inp_eq(value, "RELATIVE"), p, kw->rec,
            "*AMPLITUDE: VALUE=%s is not supported (RELATIVE)", value);
  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(find_amplitude(p, name) < 0, p, kw->rec, "*AMPLITUDE %s is defined twice", a.name);
  a.rec = kw->rec;
  DT_TRY(amplitude_points(p, kw, &a.a));
  DT_TRY(dt_imp_reserve((void **)&p->amps, &p->cap_amps, (size_t)p->n_amps + 1, sizeof *p->amps,
                        p->ctx));
  p->amps[p->n_amps++] = a;
cleanup:
  return rc;
}

dt_status inp_amplitude_use(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *name = inp_param(kw, "AMPLITUDE");
  int a = -1;

  if (!name) goto cleanup;
  INP_CHECK(p->step_explicit, p, kw->rec,
            "%s, AMPLITUDE=%s: amplitudes in static steps are not supported (a static step ramps "
            "its loads linearly; amplitudes apply after *DYNAMIC, EXPLICIT)",
            kw->name, name);
  a = find_amplitude(p, name);
  INP_CHECK(a >= 0, p, kw->rec, "%s: unknown amplitude '%s' (no *AMPLITUDE, NAME=%s before it)",
            kw->name, name, name);
  INP_CHECK(p->step_amp < 0 || p->step_amp == a, p, kw->rec,
            "%s, AMPLITUDE=%s: this step's loads already follow amplitude %s (line %d): two "
            "amplitudes in one step are not supported",
            kw->name, name, p->amps[p->step_amp < 0 ? 0 : p->step_amp].name,
            rec_line(p, p->step_amp_rec < 0 ? kw->rec : p->step_amp_rec));
  INP_CHECK(p->step_default_rec < 0, p, kw->rec,
            "%s, AMPLITUDE=%s: the loads at line %d follow the step's default amplitude: two "
            "amplitudes in one step are not supported (give them AMPLITUDE=%s too)",
            kw->name, name, rec_line(p, p->step_default_rec < 0 ? kw->rec : p->step_default_rec),
            name);
  if (p->step_amp < 0) p->step_amp = a, p->step_amp_rec = kw->rec;
cleanup:
  return rc;
}

dt_status inp_amplitude_default(inp *p, inp_kw *kw, int nonzero) {
  dt_status rc = DT_OK;
  int rec = kw->rec;

  if (!p->step_explicit || !nonzero || inp_param(kw, "AMPLITUDE")) goto cleanup;
  INP_CHECK(p->step_amp < 0, p, rec,
            "these loads name no amplitude, so they follow the step's default, but AMPLITUDE=%s "
            "(line %d) is used: two amplitudes in one step are not supported (give them "
            "AMPLITUDE=%s too)",
            p->amps[p->step_amp < 0 ? 0 : p->step_amp].name,
            rec_line(p, p->step_amp_rec < 0 ? rec : p->step_amp_rec),
            p->amps[p->step_amp < 0 ? 0 : p->step_amp].name);
  if (p->step_default_rec < 0) p->step_default_rec = rec;
cleanup:
  return rc;
}

dt_status inp_explicit_step_end(inp *p, int rec, dt_step *st) {
  dt_status rc = DT_OK;
  dt_amplitude *a = &st->explicit_.amplitude;

  INP_CHECK(p->step_explicit || p->step_amp_kind != DT_AMP_STEP, p, p->step_rec,
            "*STEP, AMPLITUDE=STEP is not supported in a static step (it ramps its loads linearly: "
            "AMPLITUDE=RAMP)");
  if (!p->step_explicit) goto cleanup;
  if (p->step_amp >= 0)
    *a = p->amps[p->step_amp].a;
  else
    a->kind = p->step_amp_kind >= 0 ? (dt_amplitude_kind)p->step_amp_kind : DT_AMP_STEP;
  p->step_explicit = 0;
cleanup:
  return rc;
}

/* *INITIAL CONDITIONS, TYPE=VELOCITY: "node or node set, DOF, velocity" lines; DOFs 1-3 (the
 * angular velocities 4-6 of shell nodes only when 0). Kept in order for inp_initial_velocities.
 * TYPE=STRESS and PLASTIC STRAIN are read by import_inp_initial.c. */
dt_status inp_initial_conditions(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *type = inp_param(kw, "TYPE");
  char *tok[INP_MAX_TOKENS];
  int rec = kw->rec, n = 0, nset = -1;
  int64_t d = 0;
  double v = 0;

  if (inp_initial_state_type(type) >= 0)
    return inp_initial_states(p, kw, inp_initial_state_type(type));
  INP_CHECK(type && inp_eq(type, "VELOCITY"), p, kw->rec,
            "*INITIAL CONDITIONS: TYPE=%s is not supported (TYPE=VELOCITY, STRESS, PLASTIC "
            "STRAIN)",
            type ? type : "");
  DT_TRY(inp_params_done(p, kw));
  if (p->ic_rec < 0) p->ic_rec = kw->rec;
  while (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(n == 3, p, rec,
              "*INITIAL CONDITIONS, TYPE=VELOCITY: expected 'node or node set, DOF, velocity', "
              "got %d values",
              n);
    DT_TRY(inp_target_nset(p, rec, tok[0], &nset));
    DT_TRY(inp_int64(p, rec, tok[1], "*INITIAL CONDITIONS DOF", &d));
    DT_TRY(inp_double(p, rec, tok[2], "*INITIAL CONDITIONS velocity", &v));
    INP_CHECK(d >= 1 && d <= 6 && (d <= 3 || v == 0), p, rec,
              "*INITIAL CONDITIONS, TYPE=VELOCITY: DOF %lld: ductile takes velocities along 1-3 "
              "(angular velocities 4-6 only when 0)",
              (long long)d);
    if (d > 3) continue;
    DT_TRY(dt_imp_reserve((void **)&p->ivl, &p->cap_ivl, (size_t)p->n_ivl + 1, sizeof *p->ivl,
                          p->ctx));
    p->ivl[p->n_ivl].nset = nset;
    p->ivl[p->n_ivl].dof = (int)d - 1;
    p->ivl[p->n_ivl++].value = v;
  }
cleanup:
  return rc;
}

/* The node set holding exactly the sorted nodes items[0..n), -1 if none. */
static int same_nset(const dt_model *m, const int *items, int n) {
  for (int s = 0; s < m->n_nsets; s++)
    if (m->nsets[s].n == n && memcmp(m->nsets[s].items, items, sizeof *items * (size_t)n) == 0)
      return s;
  return -1;
}

/* The nodes from `first` on that are not grouped yet and move as `first` does (velocities v, 3 a
 * node), as node set *out: the deck's own set of exactly those nodes, or a new one "_V<k>". */
static dt_status velocity_group(inp *p, const double *v, int first, unsigned char *done, int *out) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  dt_set tmp = {0};
  char name[DT_NAME_MAX];
  int cap = 0, s = -1;

  for (int i = first; i < m->n_nodes; i++)
    if (!done[i] && !memcmp(&v[3 * i], &v[3 * first], 3 * sizeof *v)) {
      DT_TRY(dt_imp_set_add(&tmp, &cap, i, p->ctx));
      done[i] = 1;
    }
  s = same_nset(m, tmp.items, tmp.n);
  if (s < 0) {
    snprintf(name, sizeof name, "_V%d", m->n_initial_velocities + 1);
    DT_TRY(inp_get_nset(p, p->ic_rec, name, 1, &s));
    INP_CHECK(m->nsets[s].n == 0, p, p->ic_rec,
              "the node set %s, which ductile makes for initial velocities, is in the deck", name);
    m->nsets[s].items = tmp.items, m->nsets[s].n = tmp.n, p->nset_cap[s] = cap;
    tmp.items = NULL;
  }
  *out = s;
cleanup:
  dt_free(tmp.items);
  return rc;
}

dt_status inp_initial_velocities(inp *p) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  double *v = NULL;
  unsigned char *done = NULL;
  int cap = 0, s = -1;

  if (p->n_ivl == 0) goto cleanup;
  DT_ALLOC(v, 3 * (size_t)m->n_nodes, p->ctx, "initial velocities");
  DT_ALLOC(done, m->n_nodes, p->ctx, "initial velocities");
  for (int k = 0; k < p->n_ivl; k++) {
    const dt_set *set = &m->nsets[p->ivl[k].nset];
    for (int i = 0; i < set->n; i++) v[3 * (size_t)set->items[i] + p->ivl[k].dof] = p->ivl[k].value;
  }
  for (int i = 0; i < m->n_nodes; i++) {
    if (done[i] || (v[3 * i] == 0 && v[3 * i + 1] == 0 && v[3 * i + 2] == 0)) continue;
    DT_TRY(velocity_group(p, v, i, done, &s));
    DT_TRY(dt_imp_reserve((void **)&m->initial_velocities, &cap,
                          (size_t)m->n_initial_velocities + 1, sizeof *m->initial_velocities,
                          p->ctx));
    m->initial_velocities[m->n_initial_velocities].nset = s;
    memcpy(m->initial_velocities[m->n_initial_velocities++].v, &v[3 * i], 3 * sizeof *v);
  }
cleanup:
  dt_free(v);
  dt_free(done);
  return rc;
}

/* The hex8 formulation of each solid section from its elements' deck types: in explicit
 * steps C3D8R is one point with hourglass control and C3D8 2x2x2 points (a section's form); in
 * static steps C3D8R is hex8r (the type: one point with CalculiX's hourglass stiffness). */
static dt_status hex8_formulations(inp *p) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;

  if (p->c3d8r_rec < 0) goto cleanup;
  if (p->explicit_rec < 0) {
    for (int e = 0; e < m->n_elems; e++)
      if (p->elem_c3d8r[e]) m->elem_type[e] = DT_ELEM_HEX8R;
    goto cleanup;
  }
  for (int s = 0; s < m->n_sections; s++) {
    const dt_set *set = &m->elsets[m->sections[s].elset];
    int n_r = 0, n_hex8 = 0;
    for (int i = 0; i < set->n; i++) {
      n_hex8 += m->elem_type[set->items[i]] == DT_ELEM_HEX8;
      n_r += p->elem_c3d8r[set->items[i]];
    }
    INP_CHECK(n_r == 0 || n_r == n_hex8, p, p->sec_rec[s],
              "*SOLID SECTION: element set %s mixes C3D8 and C3D8R elements (%d of %d C3D8R): "
              "an explicit step runs one formulation for all of them (C3D8R one point with "
              "hourglass control, C3D8 2x2x2 points)",
              set->name, n_r, n_hex8);
    if (n_r) m->sections[s].form = DT_FORM_REDUCED;
  }
cleanup:
  return rc;
}

dt_status inp_explicit_done(inp *p) {
  dt_status rc = DT_OK;
  DT_TRY(hex8_formulations(p));

  INP_CHECK(p->ic_rec < 0 || p->explicit_rec >= 0, p, p->ic_rec,
            "initial velocities need an explicit step (*DYNAMIC, EXPLICIT)");
  for (int k = 0; k < 2; k++)
    INP_CHECK(p->istate_rec[k] < 0 || p->explicit_rec < 0, p, p->istate_rec[k],
              "initial stresses and plastic strains need static steps (the explicit step is at "
              "line %d)",
              p->explicit_rec >= 0 ? p->recs[p->explicit_rec].line : 0);
cleanup:
  return rc;
}
