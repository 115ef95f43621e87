/* Deck steps: *STEP, *STATIC, *BOUNDARY, *CLOAD, *DLOAD, *DSLOAD (the procedure *DYNAMIC,
 * EXPLICIT and the output requests are in import_inp_explicit.c and import_inp_output.c).
 *
 * Abaqus/CalculiX keep boundary conditions and loads from step to step: a *BOUNDARY, *CLOAD or
 * *DLOAD in a later step changes the entries it names (OP=MOD) or, with OP=NEW, first drops the
 * ones inherited from earlier steps. ductile's steps instead list the complete state at their
 * end (docs/job-format.md), so the propagated state is kept here, one entry per (target, DOF),
 * and written out whole at each *END STEP. Both ramp linearly from the previous step's values
 * (static steps) or follow the step's amplitude (explicit steps: AMPLITUDE=, one per step). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_internal.h"
#include "import_inp_internal.h"

static dt_status in_step(inp *p, const inp_kw *kw, int want) {
  dt_status rc = DT_OK;

  INP_CHECK((p->step_rec >= 0) == want, p, kw->rec,
            want ? "%s must be inside a *STEP"
                 : "%s belongs to the model data: it must come before the first *STEP",
            kw->name);
cleanup:
  return rc;
}

static dt_status op_new(inp *p, const inp_kw *kw, int *out) {
  dt_status rc = DT_OK;
  const char *op = inp_param((inp_kw *)kw, "OP");

  *out = 0;
  if (!op) goto cleanup;
  INP_CHECK(inp_eq(op, "MOD") || inp_eq(op, "NEW"), p, kw->rec,
            "%s: OP=%s is not supported (MOD or NEW)", kw->name, op);
  *out = inp_eq(op, "NEW");
  INP_CHECK(!*out || p->step_rec >= 0, p, kw->rec, "%s: OP=NEW applies inside a *STEP only",
            kw->name);
cleanup:
  return rc;
}

/* The parameters of a load keyword in a step: OP= (*fresh: NEW), AMPLITUDE=, nothing else. */
static dt_status load_params(inp *p, inp_kw *kw, int *fresh) {
  dt_status rc = DT_OK;

  DT_TRY(in_step(p, kw, 1));
  DT_TRY(op_new(p, kw, fresh));
  DT_TRY(inp_amplitude_use(p, kw));
  DT_TRY(inp_params_done(p, kw));
cleanup:
  return rc;
}

dt_status inp_step(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  const char *nlgeom = inp_param(kw, "NLGEOM"), *name = inp_param(kw, "NAME"),
             *amp = inp_param(kw, "AMPLITUDE");
  dt_step *s = NULL;

  inp_param(
      kw,
      "INC"); /* CalculiX's maximum number of increments: ductile's cutback rules apply instead */
  INP_CHECK(p->step_rec < 0, p, kw->rec,
            "*STEP inside a *STEP: *END STEP is missing before this line");
  INP_CHECK(!nlgeom || inp_eq(nlgeom, "NO"), p, kw->rec,
            "*STEP: NLGEOM is not supported (ductile is a small-strain solver)");
  INP_CHECK(!amp || inp_eq(amp, "STEP") || inp_eq(amp, "RAMP"), p, kw->rec,
            "*STEP: AMPLITUDE=%s is not supported (STEP or RAMP)", amp);
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(inp_materials_done(p));
  DT_TRY(inp_sections_done(p));
  DT_TRY(dt_imp_reserve((void **)&m->steps, &p->cap_steps, (size_t)m->n_steps + 1, sizeof *m->steps,
                        p->ctx));
  s = &m->steps[m->n_steps++];
  dt_step_default(s);
  snprintf(s->name, DT_NAME_MAX, "STEP-%d", m->n_steps);
  if (name && name[0]) snprintf(s->name, DT_NAME_MAX, "%s", name);
  p->step_rec = kw->rec;
  p->step_has_procedure = 0;
  p->step_explicit = 0;
  p->step_amp_kind = !amp ? -1 : inp_eq(amp, "RAMP") ? DT_AMP_RAMP : DT_AMP_STEP;
  p->step_amp = p->step_amp_rec = p->step_default_rec = -1;
  p->bc_new = p->cl_new = p->dl_new = p->ds_new = 0;
  p->print_seen[0] = p->print_seen[1] = 0;
cleanup:
  return rc;
}

/* *STATIC's SOLVER= names one of CalculiX's equation solvers (direct or iterative), all of which
 * give the same solution to the linear system: ductile solves it its own way (its PCG and
 * linear.preconditioner), so a solver CalculiX offers is noted and not used. MATRIXSTORAGE asks
 * for the matrix instead of a solution, which ductile does not write. */
static dt_status static_solver(inp *p, inp_kw *kw) {
  static const char *known[] = {"SPOOLES",           "PARDISO",           "PASTIX", "SGI", "TAUCS",
                                "ITERATIVE SCALING", "ITERATIVE CHOLESKY"};
  dt_status rc = DT_OK;
  const char *v = inp_param(kw, "SOLVER");
  int ok = 0;
  if (!v) return DT_OK;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) ok |= inp_eq(v, known[i]);
  INP_CHECK(ok, p, kw->rec,
            "*STATIC, SOLVER=%s: not a solver ductile can stand in for (CalculiX's SPOOLES, "
            "PARDISO, PASTIX, SGI, TAUCS, ITERATIVE SCALING and ITERATIVE CHOLESKY are; "
            "MATRIXSTORAGE writes the matrix instead of solving, which ductile does not)",
            v);
  inp_warn(p, kw->rec,
           "*STATIC, SOLVER=%s: ductile solves the linear systems with its own PCG "
           "(linear.preconditioner \"auto\"); the solution is the same",
           v);
cleanup:
  return rc;
}

/* *STATIC: "initial, period, min, max". DIRECT: fixed increments of `initial`. */
dt_status inp_static(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  dt_step *s = NULL;
  char *tok[INP_MAX_TOKENS];
  double v[4] = {1, 1, 0, 0};
  int direct = inp_param(kw, "DIRECT") != NULL, rec = kw->rec, n = 0;

  DT_TRY(in_step(p, kw, 1));
  DT_TRY(static_solver(p, kw));
  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(!p->step_has_procedure, p, kw->rec, "a step has one procedure: *STATIC given twice");
  DT_TRY(inp_static_allowed(p, kw));
  s = &p->m->steps[p->m->n_steps - 1];
  p->step_has_procedure = 1;
  if (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(n <= 4, p, rec, "*STATIC: expected 'initial, period, min, max', got %d values", n);
    for (int k = 0; k < n; k++)
      if (tok[k][0]) DT_TRY(inp_double(p, rec, tok[k], "*STATIC", &v[k]));
    INP_CHECK(!inp_data(p, &rec, tok, &n), p, rec, "*STATIC: one data line expected");
  }
  INP_CHECK(v[0] > 0 && v[1] > 0 && v[0] <= v[1], p, rec,
            "*STATIC: need 0 < initial increment <= step period (got %g, %g)", v[0], v[1]);
  if (direct) {
    double k = v[1] / v[0];
    s->n_increments = (int)lround(k);
    INP_CHECK(fabs(k - s->n_increments) <= 1e-6 * k && s->n_increments <= 1000000, p, rec,
              "*STATIC, DIRECT: the period %g must be a whole number of increments %g", v[1], v[0]);
    goto cleanup;
  }
  s->automatic = 1;
  s->inc_initial = v[0] / v[1];
  s->inc_min = v[2] > 0 ? v[2] / v[1] : fmin(1e-5, s->inc_initial);
  s->inc_max = v[3] > 0 ? fmin(v[3] / v[1], 1.0) : 1.0;
  INP_CHECK(s->inc_min <= s->inc_initial && s->inc_initial <= s->inc_max, p, rec,
            "*STATIC: need minimum <= initial <= maximum increment (got %g, %g, %g)", v[2], v[0],
            v[3]);
cleanup:
  return rc;
}

static int model_is_2d(const inp *p) {
  return p->m->n_elems > 0 && dt_model_elem_dim(p->m->elem_type[0]) == 2;
}

/* Degrees of freedom 1-3 are displacements (z not in 2D); 4-6 rotations, which the nodes of
 * shells have: a boundary condition may fix them (kept, rotations = 1: its value must be 0), a
 * moment is not supported. Continuum decks often write "1, 6" for a clamp: rotations (and z in
 * 2D) are accepted there when zero, and dropped; anything else is an error. */
static dt_status check_dof(inp *p, int rec, const char *kw, int d, double value, int rotations,
                           int *use) {
  dt_status rc = DT_OK;
  int shells = dt_model_has_shells(p->m);

  *use = 0;
  INP_CHECK(d >= 1 && d <= 6, p, rec,
            "%s: degree of freedom %d is not supported (1-3: displacements%s)", kw, d,
            shells ? ", 4-6: rotations" : "");
  if (d <= 3 && !(d == 3 && model_is_2d(p))) {
    *use = 1;
    goto cleanup;
  }
  INP_CHECK(!shells || value == 0, p, rec,
            "%s: degree of freedom %d (a rotation) takes 0 only: prescribed rotations and moments "
            "are not supported (got %g)",
            kw, d, value);
  INP_CHECK(value == 0, p, rec,
            "%s: degree of freedom %d does not exist on %s elements (nonzero value %g)", kw, d,
            model_is_2d(p) ? "2D continuum" : "continuum", value);
  *use = shells && rotations;
cleanup:
  return rc;
}

static dt_status set_bc(inp *p, int nset, int dof, double value, int hold, int velocity) {
  dt_status rc = DT_OK;
  int model_level = p->step_rec < 0, i = 0;

  for (i = 0; i < p->n_bc && !(p->bc[i].nset == nset && p->bc[i].dof == dof); i++) continue;
  if (i == p->n_bc) {
    DT_TRY(dt_imp_reserve((void **)&p->bc, &p->cap_bc, (size_t)p->n_bc + 1, sizeof *p->bc, p->ctx));
    p->bc[i].nset = nset;
    p->bc[i].dof = dof;
    p->bc[i].model_level = model_level;
    p->n_bc++;
  }
  p->bc[i].value = value;
  p->bc[i].hold = hold;
  p->bc[i].velocity = velocity;
cleanup:
  return rc;
}

/* "target, ENCASTRE | PINNED | XSYMM | YSYMM | ZSYMM": bit d - 1 of *dofs for each DOF d it fixes
 * (the rotations too, which only shells keep). */
static int typed_bc(const char *t, unsigned *dofs) {
  static const struct {
    const char *name;
    unsigned dofs;
  } types[] = {{"ENCASTRE", 077}, {"PINNED", 07}, {"XSYMM", 061}, {"YSYMM", 052}, {"ZSYMM", 034}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (inp_eq(t, types[i].name)) return *dofs = types[i].dofs, 1;
  return 0;
}

/* hold: *BOUNDARY, FIXED, whose lines name DOFs without a value; velocity: TYPE=VELOCITY.
 * *nonzero is set when the line prescribes a nonzero value. */
static dt_status boundary_line(inp *p, int rec, char **tok, int n, int hold, int velocity,
                               int *nonzero) {
  dt_status rc = DT_OK;
  int64_t a = 0, b = 0;
  int nset = -1, use = 0;
  unsigned dofs = 0;
  double value = 0;

  INP_CHECK(n >= 2 && n <= 4, p, rec,
            "*BOUNDARY: expected 'node or node set, first DOF[, last DOF[, value]]'");
  INP_CHECK(!hold || n <= 3, p, rec,
            "*BOUNDARY, FIXED: expected 'node or node set, first DOF[, last DOF]' (no value: the "
            "displacement at the start of the step is kept)");
  DT_TRY(inp_target_nset(p, rec, tok[0], &nset));
  if (n == 2 && !inp_is_int(tok[1])) {
    INP_CHECK(typed_bc(tok[1], &dofs), p, rec,
              "*BOUNDARY: unknown boundary type '%s' (ENCASTRE, PINNED, "
              "XSYMM, YSYMM, ZSYMM, or DOF numbers)",
              tok[1]);
  } else {
    DT_TRY(inp_int64(p, rec, tok[1], "*BOUNDARY first DOF", &a));
    b = a;
    if (n >= 3 && tok[2][0]) DT_TRY(inp_int64(p, rec, tok[2], "*BOUNDARY last DOF", &b));
    if (n == 4) DT_TRY(inp_double(p, rec, tok[3], "*BOUNDARY value", &value));
    INP_CHECK(a >= 1 && b >= a && b <= 11, p, rec, "*BOUNDARY: invalid DOF range %lld to %lld",
              (long long)a, (long long)b);
    for (int64_t d = a; d <= b; d++) dofs |= 1u << (d - 1);
  }
  *nonzero |= value != 0;
  for (int d = 1; d <= 11; d++) {
    if (!(dofs & (1u << (d - 1)))) continue;
    DT_TRY(check_dof(p, rec, "*BOUNDARY", d, value, 1, &use));
    if (use) DT_TRY(set_bc(p, nset, d - 1, value, hold, velocity));
  }
cleanup:
  return rc;
}

dt_status inp_boundary(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *type = inp_param(kw, "TYPE");
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, fresh = 0, k = 0, hold = inp_param(kw, "FIXED") != NULL, nonzero = 0;
  int velocity = type && inp_eq(type, "VELOCITY");
  const char *submodel = inp_param(kw, "SUBMODEL"), *step = inp_param(kw, "STEP");
  int64_t global_step = 0;

  INP_CHECK(!type || inp_eq(type, "DISPLACEMENT") || velocity, p, kw->rec,
            "*BOUNDARY: TYPE=%s is not supported (DISPLACEMENT; VELOCITY in explicit steps)", type);
  INP_CHECK(!velocity || p->step_explicit, p, kw->rec,
            "*BOUNDARY, TYPE=VELOCITY belongs in an explicit step (after *DYNAMIC, EXPLICIT)");
  INP_CHECK(!velocity || !hold, p, kw->rec,
            "*BOUNDARY: FIXED keeps a displacement, TYPE=VELOCITY prescribes a velocity: not both");
  INP_CHECK(!hold || p->step_rec >= 0, p, kw->rec,
            "*BOUNDARY, FIXED belongs in a step (it keeps the displacement the step starts from)");
  INP_CHECK(!submodel || (p->step_rec >= 0 && !hold && !type && !inp_param(kw, "AMPLITUDE")), p,
            kw->rec, "*BOUNDARY, SUBMODEL belongs in a step, without FIXED, TYPE= or AMPLITUDE=");
  INP_CHECK(!step || submodel, p, kw->rec, "*BOUNDARY: STEP= goes with SUBMODEL");
  INP_CHECK(!submodel || step, p, kw->rec,
            "*BOUNDARY, SUBMODEL needs STEP=<the global model's step to interpolate>");
  if (step) {
    DT_TRY(inp_int64(p, kw->rec, step, "*BOUNDARY STEP=", &global_step));
    INP_CHECK(global_step >= 1 && global_step < 1000000, p, kw->rec,
              "*BOUNDARY, SUBMODEL: STEP=%lld is not a step number", (long long)global_step);
  }
  DT_TRY(op_new(p, kw, &fresh));
  DT_TRY(inp_amplitude_use(p, kw));
  DT_TRY(inp_params_done(p, kw));
  if (fresh && !p->bc_new) {
    for (int i = 0; i < p->n_bc; i++)
      if (p->bc[i].model_level) p->bc[k++] = p->bc[i];
    p->n_bc = k;
    p->bc_new = 1;
  }
  while (inp_data(p, &rec, tok, &n)) {
    if (submodel) {
      DT_TRY(inp_submodel_boundary_line(p, rec, tok, n, (int)global_step));
      nonzero = 1;
    } else {
      DT_TRY(boundary_line(p, rec, tok, n, hold, velocity, &nonzero));
    }
  }
  DT_TRY(inp_amplitude_default(p, kw, nonzero));
cleanup:
  return rc;
}

dt_status inp_cload_kw(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, fresh = 0, nset = -1, use = 0, i = 0, nonzero = 0;
  int64_t d = 0;
  double v = 0;

  DT_TRY(load_params(p, kw, &fresh));
  if (fresh && !p->cl_new) p->n_cl = 0, p->cl_new = 1;
  while (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(n == 3, p, rec, "*CLOAD: expected 'node or node set, DOF, value', got %d values", n);
    DT_TRY(inp_target_nset(p, rec, tok[0], &nset));
    DT_TRY(inp_int64(p, rec, tok[1], "*CLOAD DOF", &d));
    DT_TRY(inp_double(p, rec, tok[2], "*CLOAD value", &v));
    DT_TRY(check_dof(p, rec, "*CLOAD", (int)(d > 0 && d < 100 ? d : 99), v, 0, &use));
    nonzero |= v != 0;
    if (!use) continue;
    for (i = 0; i < p->n_cl && !(p->cl[i].nset == nset && p->cl[i].dof == d - 1); i++) continue;
    if (i == p->n_cl) {
      DT_TRY(
          dt_imp_reserve((void **)&p->cl, &p->cap_cl, (size_t)p->n_cl + 1, sizeof *p->cl, p->ctx));
      p->cl[p->n_cl].nset = nset, p->cl[p->n_cl++].dof = (int)d - 1;
    }
    p->cl[i].value = v;
  }
  DT_TRY(inp_amplitude_default(p, kw, nonzero));
cleanup:
  return rc;
}

/* The pressure entry of surface s (made when new), set to v. */
static dt_status set_pressure(inp *p, int s, int surface_based, double v) {
  dt_status rc = DT_OK;
  int i = 0;

  for (i = 0; i < p->n_pr && p->pr[i].surface != s; i++) continue;
  if (i == p->n_pr) {
    DT_TRY(dt_imp_reserve((void **)&p->pr, &p->cap_pr, (size_t)p->n_pr + 1, sizeof *p->pr, p->ctx));
    p->pr[p->n_pr++].surface = s;
  }
  p->pr[i].surface_based = surface_based;
  p->pr[i].value = v;
  p->pr[i].np_node = p->pr[i].np_rec = -1;
cleanup:
  return rc;
}

/* "element or element set, P<n>, value" on face n - 1 of solids, or "..., P, value" on shells:
 * face S1 (SPOS), the pressure acting against the positive normal, as Abaqus applies P. */
static dt_status dload_pressure(inp *p, int rec, char **tok, int n, int face, double *v) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX];
  int elset = -1, s = -1, shell = face < 0, np = !shell && tok[1][2] != '\0', node = -1;
  int64_t id = 0;

  INP_CHECK(n == 3, p, rec, "*DLOAD: expected 'element or element set, %s', got %d values",
            np ? "P<n>NP, node" : "P<n>, value", n);
  if (np) { /* the pressure comes from the node's DOF 2 boundary at *END STEP (node_pressure) */
    DT_TRY(inp_int64(p, rec, tok[2], "*DLOAD PxNP node", &id));
    DT_TRY(inp_node_index(p, rec, id, &node));
    *v = 1.0; /* not known yet: counts as nonzero for the amplitude rules */
  } else {
    DT_TRY(inp_double(p, rec, tok[2], "*DLOAD pressure", v));
  }
  DT_TRY(inp_target_elset(p, rec, tok[0], &elset));
  DT_TRY(inp_check_shell_faces(p, rec, elset, shell, tok[1]));
  if (shell) face = 0;
  snprintf(name, sizeof name, "_P%s_%.48s", shell ? "" : tok[1] + 1, p->m->elsets[elset].name);
  DT_TRY(inp_get_surface(p, rec, name, 1, &s));
  if (p->m->surfaces[s].n == 0) DT_TRY(inp_surface_add_faces(p, rec, s, elset, face));
  DT_TRY(set_pressure(p, s, 0, np ? 0.0 : *v));
  if (np) {
    int i = 0;
    for (i = 0; p->pr[i].surface != s; i++) continue;
    p->pr[i].np_node = node;
    p->pr[i].np_rec = rec;
  }
cleanup:
  return rc;
}

/* The GRAV (centrif 0) or CENTRIF (1) entry of an element set, made when new. */
static dt_status body_entry(inp *p, int elset, int centrif, int *out) {
  dt_status rc = DT_OK;
  int i = 0;
  for (i = 0; i < p->n_gr && !(p->gr[i].elset == elset && p->gr[i].centrif == centrif); i++)
    continue;
  if (i == p->n_gr) {
    DT_TRY(dt_imp_reserve((void **)&p->gr, &p->cap_gr, (size_t)p->n_gr + 1, sizeof *p->gr, p->ctx));
    memset(&p->gr[p->n_gr], 0, sizeof p->gr[p->n_gr]);
    p->gr[p->n_gr].elset = elset;
    p->gr[p->n_gr++].centrif = centrif;
  }
  *out = i;
cleanup:
  return rc;
}

static dt_status dload_grav(inp *p, int rec, char **tok, int n) {
  dt_status rc = DT_OK;
  double g = 0, dir[3] = {0, 0, 0}, len = 0;
  int elset = -1, i = 0;

  INP_CHECK(n == 6 || (n == 5 && model_is_2d(p)), p, rec,
            "*DLOAD GRAV: expected 'element set, GRAV, magnitude, x, y, z', got %d values", n);
  DT_TRY(inp_target_elset(p, rec, tok[0], &elset));
  DT_TRY(inp_double(p, rec, tok[2], "*DLOAD GRAV magnitude", &g));
  for (int k = 3; k < n; k++)
    DT_TRY(inp_double(p, rec, tok[k], "*DLOAD GRAV direction", &dir[k - 3]));
  len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
  INP_CHECK(len > 0, p, rec, "*DLOAD GRAV: the direction must not be zero");
  DT_TRY(body_entry(p, elset, 0, &i));
  for (int k = 0; k < 3; k++)
    p->gr[i].g[k] = g * dir[k] / len; /* CalculiX normalises the direction */
cleanup:
  return rc;
}

/* "element set, CENTRIF, omega^2, point x, y, z, axis a, b, c": the centrifugal body force of a
 * rotation about the axis (times the density, per volume). */
static dt_status dload_centrif(inp *p, int rec, char **tok, int n) {
  dt_status rc = DT_OK;
  double v[7] = {0}, len = 0;
  int elset = -1, i = 0;

  INP_CHECK(n == 9, p, rec,
            "*DLOAD CENTRIF: expected 'element set, CENTRIF, omega^2, x, y, z, a, b, c' (a point "
            "on the axis and its direction), got %d values",
            n);
  DT_TRY(inp_target_elset(p, rec, tok[0], &elset));
  for (int k = 0; k < 7; k++) DT_TRY(inp_double(p, rec, tok[k + 2], "*DLOAD CENTRIF", &v[k]));
  INP_CHECK(v[0] > 0, p, rec, "*DLOAD CENTRIF: omega^2 must be positive (got %g)", v[0]);
  len = sqrt(v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
  INP_CHECK(len > 0, p, rec, "*DLOAD CENTRIF: the axis direction must not be zero");
  if (model_is_2d(p)) { /* a 2D model spins about its axis of symmetry, y, only */
    const dt_set *set = &p->m->elsets[elset];
    int axi = set->n > 0;
    for (int k = 0; k < set->n; k++) axi &= p->elem_kind[set->items[k]] == DT_SECTION_AXISYMMETRIC;
    INP_CHECK(axi && v[1] == 0 && v[3] == 0 && v[4] == 0 && v[6] == 0, p, rec,
              "*DLOAD CENTRIF is supported on 3D models and, about the y axis (point x = z = 0, "
              "direction along y), on axisymmetric (CAX*) elements only");
  }
  DT_TRY(body_entry(p, elset, 1, &i));
  p->gr[i].omega2 = v[0];
  for (int k = 0; k < 3; k++) p->gr[i].point[k] = v[1 + k], p->gr[i].axis[k] = v[4 + k] / len;
cleanup:
  return rc;
}

/* Drop the pressures of *DLOAD (surface_based 0, and its body forces) or of *DSLOAD (1): OP=NEW
 * on either keyword replaces its own loads only. */
static void drop_pressures(inp *p, int surface_based) {
  int k = 0;
  for (int i = 0; i < p->n_pr; i++)
    if (p->pr[i].surface_based != surface_based) p->pr[k++] = p->pr[i];
  p->n_pr = k;
  if (!surface_based) p->n_gr = 0;
}

dt_status inp_dload(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, fresh = 0, nonzero = 0;
  double v = 0;

  DT_TRY(load_params(p, kw, &fresh));
  if (fresh && !p->dl_new) drop_pressures(p, 0), p->dl_new = 1;
  while (inp_data(p, &rec, tok, &n)) {
    const char *t = n >= 2 ? tok[1] : "";
    int body = inp_eq(t, "GRAV") || inp_eq(t, "CENTRIF");
    INP_CHECK(!body || !p->step_explicit, p, rec,
              "*DLOAD %s: explicit steps take concentrated forces and pressures; body forces are "
              "not supported there yet",
              t);
    if (body) {
      DT_TRY(inp_eq(t, "GRAV") ? dload_grav(p, rec, tok, n) : dload_centrif(p, rec, tok, n));
      nonzero = 1;
      continue;
    }
    INP_CHECK(inp_eq(t, "P") || ((t[0] == 'P' || t[0] == 'p') && t[1] >= '1' && t[1] <= '6' &&
                                 (t[2] == '\0' || inp_eq(t + 2, "NP"))),
              p, rec,
              "*DLOAD: load type '%s' is not supported (P1..P6 face pressure, P1NP..P6NP pressure "
              "from a node's DOF 2 boundary, P on shells, GRAV, CENTRIF; ductile runs no user "
              "subroutines, so the PxNU loads of CalculiX's dload are refused)",
              t);
    DT_TRY(dload_pressure(p, rec, tok, n, inp_eq(t, "P") ? -1 : t[1] - '1', &v));
    nonzero |= v != 0;
  }
  DT_TRY(inp_amplitude_default(p, kw, nonzero));
cleanup:
  return rc;
}

/* *DSLOAD: "surface, P, value", a pressure on a *SURFACE's faces (a shell's SPOS or SNEG side,
 * or a solid's faces), against each face's outward normal. */
dt_status inp_dsload(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, fresh = 0, nonzero = 0, s = -1;
  double v = 0;

  DT_TRY(load_params(p, kw, &fresh));
  if (fresh && !p->ds_new) drop_pressures(p, 1), p->ds_new = 1;
  while (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(n == 3, p, rec, "*DSLOAD: expected 'surface, P, value', got %d values", n);
    INP_CHECK(inp_eq(tok[1], "P"), p, rec,
              "*DSLOAD: load type '%s' is not supported (P, a pressure)", tok[1]);
    DT_TRY(inp_get_surface(p, rec, tok[0], 0, &s));
    INP_CHECK(s >= 0 && p->m->surfaces[s].n > 0, p, rec,
              "*DSLOAD: unknown surface '%s' (define it with *SURFACE)", tok[0]);
    DT_TRY(inp_double(p, rec, tok[2], "*DSLOAD pressure", &v));
    DT_TRY(set_pressure(p, s, 1, v));
    nonzero |= v != 0;
  }
  DT_TRY(inp_amplitude_default(p, kw, nonzero));
cleanup:
  return rc;
}
