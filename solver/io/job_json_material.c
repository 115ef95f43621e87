/* "materials" and "sections".
 *
 * A material is elastic (E, nu) and optionally plastic: J2 (von Mises) with one isotropic
 * hardening law (perfect, linear, voce, table) plus optional linear kinematic hardening, or
 * Mohr-Coulomb (cohesion, friction and dilation angles). Value rules live in
 * dt_material_params_check (shared with dt_model_finish); this file reads and types the fields.
 * A material's density (mass per volume) is optional; explicit steps need it. A section ties an
 * element set to a material, a kind and a formulation; a shell section (shell4 elements) to a
 * material, a thickness and the number of Gauss points through it. */
#include <stdio.h>
#include <string.h>

#include "model/model_internal.h"
#include "job_json_internal.h"

static const char *const material_keys[] = {"name", "elastic", "plastic", "density", NULL};
static const char *const elastic_keys[] = {"E", "nu", NULL};
static const char *const criteria[] = {"von_mises", "mohr_coulomb",
                                       NULL}; /* dt_plastic_criterion - 1 */
static const char *const plastic_keys[] = {"criterion", "yield_stress", "hardening",
                                           "kinematic_modulus", NULL};
static const char *const mohr_coulomb_keys[] = {"criterion",      "cohesion", "friction_angle",
                                                "dilation_angle", "tangent",  NULL};
static const char *const mc_tangents[] = {"consistent", "elastic",
                                          NULL}; /* mc_elastic_tangent 0, 1 */
static const char *const hardening_types[] = {"perfect", "linear", "voce", "table", NULL};
static const char *const hardening_keys[][5] = {
    [DT_ISO_PERFECT] = {"type", NULL},
    [DT_ISO_LINEAR] = {"type", "modulus", NULL},
    [DT_ISO_VOCE] = {"type", "modulus", "q", "b", NULL},
    [DT_ISO_TABLE] = {"type", "points", NULL},
};

static dt_status parse_table(dt_jp *jp, const json_t *h, const char *path, dt_material_params *p) {
  dt_status rc = DT_OK;
  json_t *pts = NULL;
  char tp[DT_JPATH_MAX], rp[DT_JPATH_MAX], ep[DT_JPATH_MAX];

  DT_TRY(dt_jp_member(jp, h, path, "points", 1, &pts));
  dt_jp_key(tp, path, "points");
  DT_TRY(dt_jp_array(jp, pts, tp, 1, DT_TABLE_MAX, &p->table_n));
  for (int i = 0; i < p->table_n; i++) {
    const json_t *row = json_array_get(pts, (size_t)i);
    dt_jp_index(rp, tp, (size_t)i);
    DT_JCHECK(json_is_array(row) && json_array_size(row) == 2, jp, rp,
              "expected [yield stress, plastic strain], got %s", dt_jp_type_name(row));
    dt_jp_index(ep, rp, 0);
    DT_TRY(dt_jp_number(jp, json_array_get(row, 0), ep, &p->table_s[i]));
    dt_jp_index(ep, rp, 1);
    DT_TRY(dt_jp_number(jp, json_array_get(row, 1), ep, &p->table_p[i]));
  }
  p->sigma_y0 = p->table_s[0];
cleanup:
  return rc;
}

static dt_status parse_hardening(dt_jp *jp, const json_t *h, const char *path,
                                 dt_material_params *p) {
  dt_status rc = DT_OK;

  DT_JCHECK(json_is_object(h), jp, path, "expected an object, got %s", dt_jp_type_name(h));
  DT_TRY(dt_jp_get_keyword(jp, h, path, "type", 1, hardening_types, &p->iso));
  DT_TRY(dt_jp_object(jp, h, path, hardening_keys[p->iso]));
  if (p->iso == DT_ISO_TABLE) {
    DT_TRY(parse_table(jp, h, path, p));
  } else if (p->iso != DT_ISO_PERFECT) {
    DT_TRY(dt_jp_get_number(jp, h, path, "modulus", p->iso == DT_ISO_LINEAR, &p->H));
    if (p->iso == DT_ISO_VOCE) {
      DT_TRY(dt_jp_get_number(jp, h, path, "q", 1, &p->voce_Q));
      DT_TRY(dt_jp_get_number(jp, h, path, "b", 1, &p->voce_b));
    }
  }
cleanup:
  return rc;
}

/* Mohr-Coulomb: cohesion, friction angle, dilation angle (default: the friction angle), tangent
 * (default: consistent for associative flow, elastic otherwise; the rules are in
 * dt_material_params_check). */
static dt_status parse_mohr_coulomb(dt_jp *jp, const json_t *pl, const char *path,
                                    dt_material_params *p) {
  dt_status rc = DT_OK;

  DT_TRY(dt_jp_object(jp, pl, path, mohr_coulomb_keys));
  p->plastic = DT_PLASTIC_MOHR_COULOMB;
  DT_TRY(dt_jp_get_number(jp, pl, path, "cohesion", 1, &p->mc_cohesion));
  DT_TRY(dt_jp_get_number(jp, pl, path, "friction_angle", 1, &p->mc_friction_deg));
  p->mc_dilation_deg = p->mc_friction_deg;
  DT_TRY(dt_jp_get_number(jp, pl, path, "dilation_angle", 0, &p->mc_dilation_deg));
  p->mc_elastic_tangent = p->mc_dilation_deg != p->mc_friction_deg;
  DT_TRY(dt_jp_get_keyword(jp, pl, path, "tangent", 0, mc_tangents, &p->mc_elastic_tangent));
cleanup:
  return rc;
}

static dt_status parse_plastic(dt_jp *jp, const json_t *pl, const char *path,
                               dt_material_params *p) {
  dt_status rc = DT_OK;
  json_t *h = NULL, *ys = NULL;
  char hp[DT_JPATH_MAX];
  int criterion = 0;

  DT_JCHECK(json_is_object(pl), jp, path, "expected an object, got %s", dt_jp_type_name(pl));
  DT_TRY(dt_jp_get_keyword(jp, pl, path, "criterion", 0, criteria, &criterion));
  if (criterion + 1 == DT_PLASTIC_MOHR_COULOMB) return parse_mohr_coulomb(jp, pl, path, p);
  DT_TRY(dt_jp_object(jp, pl, path, plastic_keys));
  p->plastic = DT_PLASTIC_J2;
  p->iso = DT_ISO_PERFECT;
  DT_TRY(dt_jp_member(jp, pl, path, "hardening", 0, &h));
  dt_jp_key(hp, path, "hardening");
  if (h) DT_TRY(parse_hardening(jp, h, hp, p));
  DT_TRY(dt_jp_member(jp, pl, path, "yield_stress", p->iso != DT_ISO_TABLE, &ys));
  dt_jp_key(hp, path, "yield_stress");
  DT_JCHECK(
      !(ys && p->iso == DT_ISO_TABLE), jp, hp,
      "not allowed with a table hardening: the first table point gives the initial yield stress");
  if (ys) DT_TRY(dt_jp_number(jp, ys, hp, &p->sigma_y0));
  DT_TRY(dt_jp_get_number(jp, pl, path, "kinematic_modulus", 0, &p->H_kin));
cleanup:
  return rc;
}

static dt_status parse_material(dt_jp *jp, const json_t *v, const char *path, dt_material *mat) {
  dt_status rc = DT_OK;
  json_t *el = NULL, *pl = NULL;
  char p[DT_JPATH_MAX], field[96], msg[256];

  DT_TRY(dt_jp_object(jp, v, path, material_keys));
  DT_TRY(dt_jp_get_name(jp, v, path, "name", 1, mat->name));
  DT_TRY(dt_jp_member(jp, v, path, "elastic", 1, &el));
  dt_jp_key(p, path, "elastic");
  DT_TRY(dt_jp_object(jp, el, p, elastic_keys));
  DT_TRY(dt_jp_get_number(jp, el, p, "E", 1, &mat->p.E));
  DT_TRY(dt_jp_get_number(jp, el, p, "nu", 1, &mat->p.nu));
  DT_TRY(dt_jp_member(jp, v, path, "plastic", 0, &pl));
  dt_jp_key(p, path, "plastic");
  if (pl) DT_TRY(parse_plastic(jp, pl, p, &mat->p));
  if (dt_material_params_check(&mat->p, field, sizeof field, msg, sizeof msg)) {
    dt_jp_key(p, path, field);
    DT_JCHECK(0, jp, p, "%s", msg);
  }
  DT_TRY(dt_jp_get_number(jp, v, path, "density", 0, &mat->density));
  dt_jp_key(p, path, "density");
  DT_JCHECK(json_object_get(v, "density") == NULL || mat->density > 0, jp, p,
            "must be > 0 (got %g)", mat->density);
cleanup:
  return rc;
}

dt_status dt_jp_materials(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  char p[DT_JPATH_MAX];
  int n = 0;

  DT_TRY(dt_jp_array(jp, v, path, 1, 100000, &n));
  DT_ALLOC(m->materials, n, jp->ctx, "materials");
  m->n_materials = n;
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_material(jp, json_array_get(v, (size_t)i), p, &m->materials[i]));
    for (int j = 0; j < i; j++)
      DT_JCHECK(strcmp(m->materials[j].name, m->materials[i].name) != 0, jp, p,
                "duplicate material name \"%s\" (also materials[%d])", m->materials[i].name, j);
  }
cleanup:
  return rc;
}

static const char *const section_keys[] = {"element_set", "material", "kind", "formulation",
                                           "thickness",   "points",   NULL};
static const char *const section_kinds[] = {"solid", "plane_strain", "plane_stress",
                                            "shell", "axisymmetric", NULL}; /* dt_section_kind */
static const char *const formulations[] = {"auto", "full", "bbar", "reduced", NULL};

/* "a", "b", ... for "unknown X (defined: ...)"; at most a few hundred characters. */
static void list_names(char *dst, size_t n, const char *first, size_t stride, int count) {
  size_t used = 0;

  dst[0] = '\0';
  for (int i = 0; i < count && used + 4 < n; i++)
    used += (size_t)snprintf(dst + used, n - used, "%s\"%s\"", i ? ", " : "",
                             first + (size_t)i * stride);
  if (count == 0) snprintf(dst, n, "none");
}

/* A shell section: its thickness (required) and Gauss points through it (2 to 5; by default 2
 * for an elastic material, 5 for a plastic one, resolved by dt_model_finish). */
static dt_status parse_shell_section(dt_jp *jp, const json_t *v, const char *path, dt_section *s) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];

  dt_jp_key(p, path, "formulation");
  DT_JCHECK(!json_object_get(v, "formulation"), jp, p,
            "applies to solid and 2D sections only (shells are MITC4)");
  DT_TRY(dt_jp_get_number(jp, v, path, "thickness", 1, &s->thickness));
  dt_jp_key(p, path, "thickness");
  DT_JCHECK(s->thickness > 0, jp, p, "must be > 0 (got %g)", s->thickness);
  DT_TRY(dt_jp_get_int(jp, v, path, "points", 0, 2, 5, &s->shell_points));
cleanup:
  return rc;
}

static dt_status parse_section(dt_jp *jp, const json_t *v, const char *path, dt_section *s) {
  dt_status rc = DT_OK;
  const dt_model *m = jp->m;
  char name[DT_NAME_MAX], p[DT_JPATH_MAX], known[320];
  int kind = 0, form = 0;
  json_t *t = NULL;

  DT_TRY(dt_jp_object(jp, v, path, section_keys));
  DT_TRY(dt_jp_get_name(jp, v, path, "element_set", 1, s->elset_name));
  s->elset = dt_model_find_elset(m, s->elset_name);
  dt_jp_key(p, path, "element_set");
  list_names(known, sizeof known, m->elsets ? m->elsets[0].name : "", sizeof(dt_set), m->n_elsets);
  DT_JCHECK(s->elset >= 0, jp, p, "unknown element set \"%s\" (defined: %s)", s->elset_name, known);
  DT_TRY(dt_jp_get_name(jp, v, path, "material", 1, name));
  s->material = dt_model_find_material(m, name);
  dt_jp_key(p, path, "material");
  list_names(known, sizeof known, m->materials[0].name, sizeof(dt_material), m->n_materials);
  DT_JCHECK(s->material >= 0, jp, p, "unknown material \"%s\" (defined: %s)", name, known);
  DT_TRY(dt_jp_get_keyword(jp, v, path, "kind", 1, section_kinds, &kind));
  s->kind = (dt_section_kind)kind;
  DT_TRY(dt_jp_get_keyword(jp, v, path, "formulation", 0, formulations, &form));
  s->form = (dt_formulation)
      form; /* auto, full, bbar, reduced map to DT_FORM_DEFAULT, FULL, BBAR, REDUCED */
  if (s->kind == DT_SECTION_SHELL) return parse_shell_section(jp, v, path, s);
  dt_jp_key(p, path, "points");
  DT_JCHECK(!json_object_get(v, "points"), jp, p, "applies to shell sections only");
  s->thickness = 1.0;
  DT_TRY(dt_jp_member(jp, v, path, "thickness", 0, &t));
  dt_jp_key(p, path, "thickness");
  DT_JCHECK(!t || (s->kind != DT_SECTION_SOLID && s->kind != DT_SECTION_AXISYMMETRIC), jp, p,
            "applies to plane_strain, plane_stress and shell sections only");
  DT_TRY(dt_jp_get_number(jp, v, path, "thickness", 0, &s->thickness));
  DT_JCHECK(s->thickness > 0, jp, p, "must be > 0 (got %g)", s->thickness);
cleanup:
  return rc;
}

dt_status dt_jp_sections(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  dt_model *m = jp->m;
  char p[DT_JPATH_MAX];
  int n = 0;

  DT_TRY(dt_jp_array(jp, v, path, 1, 100000, &n));
  DT_ALLOC(m->sections, n, jp->ctx, "sections");
  m->n_sections = n;
  for (int i = 0; i < n; i++) {
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(parse_section(jp, json_array_get(v, (size_t)i), p, &m->sections[i]));
  }
cleanup:
  return rc;
}
