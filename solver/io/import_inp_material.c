/* Deck materials and sections: *MATERIAL, *ELASTIC, *PLASTIC, *CYCLIC HARDENING, *DENSITY,
 * *SOLID SECTION, *SHELL SECTION.
 *
 * *PLASTIC (isotropic) is a table of (yield stress, equivalent plastic strain): one point is
 * perfect plasticity, more a piecewise-linear table (DT_ISO_TABLE, constant after the last
 * point, as in CalculiX). HARDENING=KINEMATIC must be linear (Prager): two points, or more on
 * one line; the slope is the kinematic modulus. HARDENING=COMBINED takes the kinematic part
 * from *PLASTIC and the isotropic part from *CYCLIC HARDENING, as CalculiX does. *DENSITY is the
 * material's density (explicit steps, gravity and centrifugal loads). A section's kind (solid,
 * plane strain, plane stress, shell) follows from its elements' types; the formulation
 * is always full, the faithful translation of C3D8/CPE4: standard B with each type's own rule,
 * so C3D20R, read as the type hex20r, keeps its reduced rule (docs/interop.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_internal.h"
#include "import_inp_internal.h"

static dt_status need_material(inp *p, const inp_kw *kw) {
  dt_status rc = DT_OK;

  INP_CHECK(p->material >= 0, p, kw->rec, "%s must follow a *MATERIAL", kw->name);
cleanup:
  return rc;
}

dt_status inp_material(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  const char *name = inp_param(kw, "NAME");
  char up[DT_NAME_MAX];

  INP_CHECK(name && !dt_imp_name_upper(up, name), p, kw->rec,
            "*MATERIAL needs NAME=<name> of 1 to %d characters", DT_NAME_MAX - 1);
  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(dt_model_find_material(m, up) < 0, p, kw->rec, "material %s is defined twice", up);
  DT_TRY(inp_materials_done(p));
  DT_TRY(dt_imp_reserve((void **)&m->materials, &p->cap_materials, (size_t)m->n_materials + 1,
                        sizeof *m->materials, p->ctx));
  memset(&m->materials[m->n_materials], 0, sizeof *m->materials);
  memcpy(m->materials[m->n_materials].name, up, DT_NAME_MAX);
  p->material = m->n_materials++;
cleanup:
  return rc;
}

dt_status inp_elastic(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *type = inp_param(kw, "TYPE");
  dt_material_params *mp = NULL;
  char *tok[INP_MAX_TOKENS];
  int rec = kw->rec, n = 0;

  DT_TRY(need_material(p, kw));
  INP_CHECK(!type || inp_eq(type, "ISO") || inp_eq(type, "ISOTROPIC"), p, kw->rec,
            "*ELASTIC: TYPE=%s is not supported (isotropic elasticity only)", type);
  DT_TRY(inp_params_done(p, kw));
  mp = &p->m->materials[p->material].p;
  INP_CHECK(inp_data(p, &rec, tok, &n), p, rec, "*ELASTIC needs a data line 'E, nu'");
  INP_CHECK(
      n == 2, p, rec,
      "*ELASTIC: expected 'E, nu' (temperature-dependent data is not supported), got %d values", n);
  DT_TRY(inp_double(p, rec, tok[0], "*ELASTIC E", &mp->E));
  DT_TRY(inp_double(p, rec, tok[1], "*ELASTIC nu", &mp->nu));
  INP_CHECK(!inp_data(p, &rec, tok, &n), p, rec,
            "*ELASTIC: only one data line is supported (no temperature tables)");
cleanup:
  return rc;
}

/* Rows (stress, plastic strain) into s[], ep[]; *count rows. */
static dt_status read_table(inp *p, const inp_kw *kw, double *s, double *ep, int *count) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = kw->rec, n = 0;

  *count = 0;
  while (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(n == 2, p, rec,
              "%s: expected 'yield stress, plastic strain' (temperature-dependent tables are not "
              "supported), got %d values",
              kw->name, n);
    INP_CHECK(*count < DT_TABLE_MAX, p, rec, "%s: at most %d points are supported", kw->name,
              DT_TABLE_MAX);
    DT_TRY(inp_double(p, rec, tok[0], "yield stress", &s[*count]));
    DT_TRY(inp_double(p, rec, tok[1], "plastic strain", &ep[*count]));
    INP_CHECK(*count > 0 || ep[0] == 0, p, rec,
              "%s: the first point must be at plastic strain 0 (got %g)", kw->name, ep[0]);
    INP_CHECK(*count == 0 || ep[*count] > ep[*count - 1], p, rec,
              "%s: plastic strains must increase", kw->name);
    (*count)++;
  }
  INP_CHECK(*count > 0, p, rec, "%s needs at least one data line 'yield stress, plastic strain'",
            kw->name);
cleanup:
  return rc;
}

/* Linear kinematic hardening from a table: the slope, which must be one for every segment. */
static dt_status kinematic_slope(inp *p, const inp_kw *kw, const double *s, const double *ep, int n,
                                 double *H) {
  dt_status rc = DT_OK;

  *H = n > 1 ? (s[1] - s[0]) / (ep[1] - ep[0]) : 0;
  for (int i = 2; i < n; i++) {
    double h = (s[i] - s[i - 1]) / (ep[i] - ep[i - 1]);
    INP_CHECK(fabs(h - *H) <= 1e-9 * fabs(*H) + 1e-300, p, kw->rec,
              "%s: ductile supports linear kinematic hardening only: the table must be a straight "
              "line (slopes %g "
              "and %g); give two points",
              kw->name, *H, h);
  }
cleanup:
  return rc;
}

static void set_isotropic(dt_material_params *mp, const double *s, const double *ep, int n) {
  mp->sigma_y0 = s[0];
  mp->iso = n == 1 ? DT_ISO_PERFECT : DT_ISO_TABLE;
  mp->table_n = n;
  memcpy(mp->table_s, s, (size_t)n * sizeof *s);
  memcpy(mp->table_p, ep, (size_t)n * sizeof *ep);
}

dt_status inp_plastic(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *h = inp_param(kw, "HARDENING");
  dt_material_params *mp = NULL;
  double s[DT_TABLE_MAX], ep[DT_TABLE_MAX];
  int n = 0;

  DT_TRY(need_material(p, kw));
  INP_CHECK(!h || inp_eq(h, "ISOTROPIC") || inp_eq(h, "KINEMATIC") || inp_eq(h, "COMBINED"), p,
            kw->rec, "*PLASTIC: HARDENING=%s is not supported (ISOTROPIC, KINEMATIC or COMBINED)",
            h);
  DT_TRY(inp_params_done(p, kw));
  mp = &p->m->materials[p->material].p;
  INP_CHECK(!mp->plastic, p, kw->rec, "*PLASTIC given twice for material %s",
            p->m->materials[p->material].name);
  DT_TRY(read_table(p, kw, s, ep, &n));
  mp->plastic = 1;
  if (!h || inp_eq(h, "ISOTROPIC")) {
    set_isotropic(mp, s, ep, n);
    goto cleanup;
  }
  DT_TRY(kinematic_slope(p, kw, s, ep, n, &mp->H_kin));
  mp->sigma_y0 = s[0];
  mp->iso = DT_ISO_PERFECT;
  if (inp_eq(h, "COMBINED")) p->plastic_rec = kw->rec; /* *CYCLIC HARDENING must follow */
cleanup:
  return rc;
}

dt_status inp_cyclic(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  dt_material_params *mp = NULL;
  double s[DT_TABLE_MAX], ep[DT_TABLE_MAX];
  int n = 0;

  DT_TRY(need_material(p, kw));
  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(p->plastic_rec >= 0, p, kw->rec,
            "*CYCLIC HARDENING must follow *PLASTIC, HARDENING=COMBINED");
  mp = &p->m->materials[p->material].p;
  DT_TRY(read_table(p, kw, s, ep, &n));
  set_isotropic(mp, s, ep, n);
  p->plastic_rec = -1;
cleanup:
  return rc;
}

dt_status inp_density(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = kw->rec, n = 0;

  DT_TRY(need_material(p, kw));
  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(inp_data(p, &rec, tok, &n) && n == 1, p, rec,
            "*DENSITY: expected one value (the density)");
  DT_TRY(inp_double(p, rec, tok[0], "*DENSITY", &p->m->materials[p->material].density));
  INP_CHECK(!inp_data(p, &rec, tok, &n), p, rec, "*DENSITY: only one data line is supported");
cleanup:
  return rc;
}

/* A material is complete when the next one starts or the model data ends. */
dt_status inp_materials_done(inp *p) {
  dt_status rc = DT_OK;

  INP_CHECK(p->plastic_rec < 0, p, p->plastic_rec,
            "*PLASTIC, HARDENING=COMBINED needs a *CYCLIC HARDENING table (the isotropic part) in "
            "the same material");
  p->material = -1;
cleanup:
  return rc;
}

dt_status inp_sections_done(inp *p) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;

  for (int s = 0; s < m->n_sections; s++) {
    if (m->sections[s].material >= 0) continue;
    m->sections[s].material = dt_model_find_material(m, p->sec_material[s]);
    INP_CHECK(m->sections[s].material >= 0, p, p->sec_rec[s],
              "%s: unknown material '%s' (no *MATERIAL of that name in the model data)",
              m->sections[s].kind == DT_SECTION_SHELL ? "*SHELL SECTION" : "*SOLID SECTION",
              p->sec_material[s]);
  }
cleanup:
  return rc;
}

/* The kind implied by the elements of set s; all must agree, and be `want`'s kind of section
 * (the solid kinds for *SOLID SECTION, shells for *SHELL SECTION). */
static dt_status section_kind(inp *p, const inp_kw *kw, int s, dt_section_kind *kind) {
  dt_status rc = DT_OK;
  const dt_set *set = &p->m->elsets[s];
  static const char *names[] = {"solid (C3D*)", "plane strain (CPE*)", "plane stress (CPS*)",
                                "shell (S4, S4R)", "axisymmetric (CAX*)"};
  int shell_kw = strcmp(kw->name, "*SHELL SECTION") == 0;

  INP_CHECK(set->n > 0, p, kw->rec, "%s: element set %s is empty", kw->name, set->name);
  *kind = (dt_section_kind)p->elem_kind[set->items[0]];
  for (int i = 1; i < set->n; i++)
    INP_CHECK(p->elem_kind[set->items[i]] == *kind, p, kw->rec,
              "%s: element set %s mixes %s and %s elements: give each kind its own section",
              kw->name, set->name, names[*kind], names[p->elem_kind[set->items[i]]]);
  INP_CHECK((*kind == DT_SECTION_SHELL) == shell_kw, p, kw->rec,
            "%s: element set %s holds %s elements, which take a %s", kw->name, set->name,
            names[*kind], shell_kw ? "*SOLID SECTION" : "*SHELL SECTION");
cleanup:
  return rc;
}

/* Every node of the axisymmetric elements of set s at x >= 0: x is the radius (dt_model_finish
 * checks it too, but names no deck line). */
static dt_status check_radii(inp *p, const inp_kw *kw, int s) {
  dt_status rc = DT_OK;
  const dt_model *m = p->m;
  const dt_set *set = &m->elsets[s];
  for (int i = 0; i < set->n; i++)
    for (int k = m->elem_ptr[set->items[i]]; k < m->elem_ptr[set->items[i] + 1]; k++)
      INP_CHECK(m->x[3 * (size_t)m->conn[k]] >= 0.0, p, kw->rec,
                "%s: element %lld is axisymmetric (CAX*), but its node %lld has x = %g < 0 (x is "
                "the radius)",
                kw->name, (long long)m->elem_id[set->items[i]], (long long)m->node_id[m->conn[k]],
                m->x[3 * (size_t)m->conn[k]]);
cleanup:
  return rc;
}

/* ELSET= and MATERIAL= of a section keyword into sec (the material by name, up, resolved by
 * inp_sections_done: it may come later in the deck), its kind from the elements; OFFSET must be
 * 0. */
static dt_status section_head(inp *p, inp_kw *kw, dt_section *sec, char up[DT_NAME_MAX]) {
  dt_status rc = DT_OK;
  const char *elset = inp_param(kw, "ELSET"), *mat = inp_param(kw, "MATERIAL"),
             *offset = inp_param(kw, "OFFSET");
  double off = 0;

  memset(sec, 0, sizeof *sec);
  INP_CHECK(elset && elset[0] && mat && mat[0], p, kw->rec,
            "%s needs ELSET=<set> and MATERIAL=<name>", kw->name);
  /* OFFSET moves a shell's or plane element's reference surface off the nodes (CalculiX
   * expands 2D elements about it); 0, the mid-surface, is what ductile computes. */
  if (offset) DT_TRY(inp_double(p, kw->rec, offset, "OFFSET", &off));
  INP_CHECK(off == 0, p, kw->rec, "%s: OFFSET=%s is not supported (only OFFSET=0, the mid-plane)",
            kw->name, offset);
  DT_TRY(inp_get_elset(p, kw->rec, elset, 0, &sec->elset));
  INP_CHECK(sec->elset >= 0, p, kw->rec, "%s: unknown element set '%s'", kw->name, elset);
  snprintf(sec->elset_name, DT_NAME_MAX, "%s", p->m->elsets[sec->elset].name);
  INP_CHECK(!dt_imp_name_upper(up, mat), p, kw->rec,
            "%s: material names must have 1 to %d characters", kw->name, DT_NAME_MAX - 1);
  sec->material = -1;
  sec->form = DT_FORM_FULL;
  sec->thickness = 1.0;
cleanup:
  return rc;
}

static dt_status add_section(inp *p, int rec, const dt_section *sec, const char up[DT_NAME_MAX]) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  int cap = p->cap_sections;

  DT_TRY(dt_imp_reserve((void **)&m->sections, &p->cap_sections, (size_t)m->n_sections + 1,
                        sizeof *m->sections, p->ctx));
  if (cap != p->cap_sections) {
    int c = cap;
    DT_TRY(dt_imp_reserve((void **)&p->sec_material, &c, (size_t)p->cap_sections,
                          sizeof *p->sec_material, p->ctx));
    c = cap;
    DT_TRY(dt_imp_reserve((void **)&p->sec_rec, &c, (size_t)p->cap_sections, sizeof *p->sec_rec,
                          p->ctx));
  }
  memcpy(p->sec_material[m->n_sections], up, DT_NAME_MAX);
  p->sec_rec[m->n_sections] = rec;
  m->sections[m->n_sections++] = *sec;
cleanup:
  return rc;
}

dt_status inp_solid_section(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  char up[DT_NAME_MAX], *tok[INP_MAX_TOKENS];
  dt_section sec;
  int rec = kw->rec, n = 0;

  DT_TRY(section_head(p, kw, &sec, up));
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(section_kind(p, kw, sec.elset, &sec.kind));
  if (sec.kind == DT_SECTION_AXISYMMETRIC) DT_TRY(check_radii(p, kw, sec.elset));
  if (inp_data(p, &rec, tok, &n) && n > 0) {
    INP_CHECK(sec.kind != DT_SECTION_SOLID || n == 0, p, rec,
              "*SOLID SECTION: a data line (thickness) applies to 2D "
              "elements only");
    /* ccx 2.20 ignores it for axisymmetric elements (the same results with and without):
     * they span the whole ring */
    if (sec.kind == DT_SECTION_AXISYMMETRIC)
      inp_warn(p, rec,
               "*SOLID SECTION: the thickness %s is ignored: axisymmetric (CAX*) elements span "
               "the whole ring (as in CalculiX)",
               tok[0]);
    DT_TRY(inp_double(p, rec, tok[0], "*SOLID SECTION thickness", &sec.thickness));
    INP_CHECK(sec.thickness > 0, p, rec, "*SOLID SECTION: thickness must be > 0 (got %g)",
              sec.thickness);
  }
  INP_CHECK(!inp_data(p, &rec, tok, &n), p, rec, "*SOLID SECTION: unexpected second data line");
  DT_TRY(add_section(p, kw->rec, &sec, up));
cleanup:
  return rc;
}

/* *SHELL SECTION: "thickness[, points through it]" (2 to 5; ductile's default: 2 for an elastic
 * material, 5 for a plastic one). The rule follows the material, as shell_mitc4.h's
 * dt_mitc4_thickness_point: Gauss points for an elastic section, Simpson's rule for a plastic
 * one with 3 or 5 points (Gauss with 2 or 4); SECTION INTEGRATION= is accepted with a note
 * saying so (both rules integrate an elastic section exactly). */
dt_status inp_shell_section(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *integ = inp_param(kw, "SECTIONINTEGRATION");
  char up[DT_NAME_MAX], *tok[INP_MAX_TOKENS];
  dt_section sec;
  int64_t points = 0;
  int rec = kw->rec, n = 0;

  DT_TRY(section_head(p, kw, &sec, up));
  INP_CHECK(!integ || inp_eq(integ, "GAUSS") || inp_eq(integ, "SIMPSON"), p, kw->rec,
            "*SHELL SECTION: SECTION INTEGRATION=%s is not supported (GAUSS)", integ);
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(section_kind(p, kw, sec.elset, &sec.kind));
  if (integ)
    inp_warn(p, kw->rec,
             "*SHELL SECTION, SECTION INTEGRATION=%s: ductile integrates an elastic section by "
             "Gauss points and a plastic one by Simpson's rule with 3 or 5 points (Gauss with 2 "
             "or 4), whatever the deck asks (both are exact for an elastic section)",
             integ);
  INP_CHECK(inp_data(p, &rec, tok, &n) && n >= 1 && n <= 2 && tok[0][0], p, rec,
            "*SHELL SECTION needs a data line 'thickness[, number of points through it]'");
  DT_TRY(inp_double(p, rec, tok[0], "*SHELL SECTION thickness", &sec.thickness));
  INP_CHECK(sec.thickness > 0, p, rec, "*SHELL SECTION: thickness must be > 0 (got %g)",
            sec.thickness);
  if (n == 2 && tok[1][0]) DT_TRY(inp_int64(p, rec, tok[1], "*SHELL SECTION points", &points));
  INP_CHECK(points == 0 || (points >= 2 && points <= 5), p, rec,
            "*SHELL SECTION: %lld points through the thickness; ductile takes 2 to 5",
            (long long)points);
  sec.shell_points = (int)points;
  INP_CHECK(!inp_data(p, &rec, tok, &n), p, rec, "*SHELL SECTION: unexpected second data line");
  DT_TRY(add_section(p, kw->rec, &sec, up));
cleanup:
  return rc;
}

/* *CHANGE SOLID SECTION, ELSET=, MATERIAL= inside a step: the set's elements take the material
 * from this step on (ccx 2.20 reassigns the elements' material the same way, refuses beams and
 * shells, and takes no data line). The set may be any element set: CalculiX does not require it
 * to be a section's. ORIENTATION= is refused with the other parameters (no *ORIENTATION). */
dt_status inp_change_solid_section(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *elset = inp_param(kw, "ELSET"), *material = inp_param(kw, "MATERIAL");
  char up[DT_NAME_MAX], *tok[INP_MAX_TOKENS];
  dt_step *st = &p->m->steps[p->m->n_steps - 1];
  dt_material_change *c = NULL;
  int rec = kw->rec, n = 0, set = -1, mat = -1;

  INP_CHECK(elset && elset[0] && material && material[0], p, kw->rec,
            "*CHANGE SOLID SECTION needs ELSET= and MATERIAL=");
  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(!p->step_explicit, p, kw->rec,
            "*CHANGE SOLID SECTION applies to static steps only (not *DYNAMIC, EXPLICIT)");
  DT_TRY(inp_get_elset(p, kw->rec, elset, 0, &set));
  INP_CHECK(set >= 0 && p->m->elsets[set].n > 0, p, kw->rec,
            "*CHANGE SOLID SECTION: element set %s is not defined (or empty)", elset);
  for (int i = 0; i < p->m->elsets[set].n; i++)
    INP_CHECK(p->elem_kind[p->m->elsets[set].items[i]] != DT_SECTION_SHELL, p, kw->rec,
              "*CHANGE SOLID SECTION: element %lld of set %s is a shell (solid elements only, as "
              "in CalculiX)",
              (long long)p->m->elem_id[p->m->elsets[set].items[i]], elset);
  INP_CHECK(!dt_imp_name_upper(up, material), p, kw->rec,
            "*CHANGE SOLID SECTION: material name too long (at most %d characters)",
            DT_NAME_MAX - 1);
  mat = dt_model_find_material(p->m, up);
  INP_CHECK(mat >= 0, p, kw->rec,
            "*CHANGE SOLID SECTION: unknown material '%s' (no *MATERIAL of that name before this "
            "step)",
            up);
  INP_CHECK(!inp_data(p, &rec, tok, &n), p, rec,
            "*CHANGE SOLID SECTION takes no data line (a thickness cannot change in ductile)");
  c = dt_realloc(st->material_changes, sizeof *c * (size_t)(st->n_material_changes + 1));
  DT_CHECK(c != NULL, p->ctx, DT_ERR_NOMEM, "out of memory for a material change");
  st->material_changes = c;
  c[st->n_material_changes].elset = set;
  c[st->n_material_changes].material = mat;
  st->n_material_changes++;
cleanup:
  return rc;
}
