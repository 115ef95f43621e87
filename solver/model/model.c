/* The model: creation with defaults, destruction, name lookups and a short self-description.
 *
 * The model is plain data filled by an importer (solver/io/job_json*.c) and validated by
 * dt_model_finish (model_finish.c). Every array is owned by the model; dt_model_destroy frees
 * whatever has been allocated so far, so importers can bail out at any point. */
#include "model.h"

#include <string.h>

#include "model_internal.h"

/* Element-type facts, indexed by dt_elem_type. Face numbering follows CalculiX/Abaqus S1.. */
static const struct {
  const char *name;
  int nnodes, nfaces, dim;
} elem_info[DT_ELEM_NTYPES] = {
    [DT_ELEM_HEX8] = {"hex8", 8, 6, 3},
    [DT_ELEM_TET4] = {"tet4", 4, 4, 3},
    [DT_ELEM_TET10] = {"tet10", 10, 4, 3},
    [DT_ELEM_QUAD4] = {"quad4", 4, 4, 2},
    [DT_ELEM_TRI3] = {"tri3", 3, 3, 2},
    [DT_ELEM_QUAD8] = {"quad8", 8, 4, 2},
    [DT_ELEM_QUAD9] = {"quad9", 9, 4, 2},
    [DT_ELEM_QUAD16] = {"quad16", 16, 4, 2},
    [DT_ELEM_HEX20] = {"hex20", 20, 6, 3},
    [DT_ELEM_HEX20R] = {"hex20r", 20, 6, 3},
    [DT_ELEM_WEDGE6] = {"wedge6", 6, 5, 3},
    [DT_ELEM_WEDGE15] = {"wedge15", 15, 5, 3},
    [DT_ELEM_QUAD8R] = {"quad8r", 8, 4, 2},
    [DT_ELEM_HEX8R] = {"hex8r", 8, 6, 3},
    [DT_ELEM_HEX8I] = {"hex8i", 8, 6, 3},
    /* a shell's two faces: S1 (SPOS) on the side of its normal, S2 (SNEG) on the other */
    [DT_ELEM_SHELL4] = {"shell4", 4, 2, 3},
};

static int elem_type_valid(int type) { return type >= 0 && type < DT_ELEM_NTYPES; }

const char *dt_model_elem_type_name(int type) {
  return elem_type_valid(type) ? elem_info[type].name : NULL;
}
int dt_model_elem_nnodes(int type) { return elem_type_valid(type) ? elem_info[type].nnodes : 0; }
int dt_model_elem_nfaces(int type) { return elem_type_valid(type) ? elem_info[type].nfaces : 0; }
int dt_model_elem_dim(int type) { return elem_type_valid(type) ? elem_info[type].dim : 0; }
const char *dt_model_elem_type_list(void) {
  return "hex8, tet4, tet10, hex20, hex20r, wedge6, wedge15, quad4, tri3, quad8, quad8r, quad9, "
         "quad16, "
         "shell4";
}

int dt_model_elem_type_from_name(const char *name) {
  for (int t = 0; t < DT_ELEM_NTYPES; t++)
    if (strcmp(name, elem_info[t].name) == 0) return t;
  return -1;
}

const char *const dt_precond_names[] = {"jacobi", "block_jacobi", "two_level", "amg",
                                        "direct", "auto",         NULL};
const char *const dt_forcing_names[] = {"fixed", "adaptive", NULL};
const char *const dt_accel_names[] = {"auto", "none", "thomas", NULL};
const char *const dt_cuda_elements_names[] = {"auto", "simple", NULL};
const char *const dt_cuda_tangent_names[] = {"auto", "colour", NULL};

void dt_solver_options_default(dt_solver_options *o) {
  o->newton_max_iter = 0; /* resolved by dt_model_finish */
  o->newton_rtol = 1e-6;
  o->newton_dtol = 1e-3;
  o->pcg_max_iter = 0; /* resolved by dt_model_finish (DT_PCG_MAX_ITER_*) */
  o->pcg_rtol = 1e-9;
  o->precond = DT_PC_AUTO;
  o->forcing = DT_FORCING_FIXED;
  o->accel = DT_ACCEL_AUTO;
  o->accel_auto = 0;
  o->tangent_constant = 0;
  o->cuda_elements = 0; /* "auto" */
  o->cuda_tangent = 0;  /* "auto" */
}

void dt_step_default(dt_step *s) {
  memset(s, 0, sizeof *s);
  s->automatic = 0;
  s->n_increments = 1;
  s->inc_initial = 1.0;
  s->inc_min = 1e-5;
  s->inc_max = 1.0;
  s->max_cutbacks = 5;
  s->procedure = DT_PROC_STATIC;
  s->explicit_.dt_safety = 0.8;
  s->explicit_.hourglass = 0.05; /* element/hex8_explicit.h's DT_HEX8X_HOURGLASS */
  s->explicit_.output_frames = 20;
  s->explicit_.amplitude.kind = DT_AMP_STEP;
}

dt_status dt_model_create(dt_model **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model *m = NULL;

  *out = NULL;
  DT_ALLOC(m, 1, ctx, "the model");
  m->version = DT_JOB_FORMAT_VERSION;
  m->dim = 3;
  dt_solver_options_default(&m->solver);
  m->output.fields = DT_OUT_ALL;
  m->output.vtu = 1;
  m->output.every = 1;
  *out = m;
cleanup:
  return rc;
}

static void sets_free(dt_set *s, int n) {
  for (int i = 0; s && i < n; i++) dt_free(s[i].items);
  dt_free(s);
}

static void step_free(dt_step *s) {
  dt_free(s->bc);
  dt_free(s->cload);
  dt_free(s->pressure);
  dt_free(s->traction);
  dt_free(s->body);
  dt_free(s->material_changes);
}

void dt_model_destroy(dt_model **mp) {
  dt_model *m = mp ? *mp : NULL;

  if (m == NULL) return;
  dt_free(m->x);
  dt_free(m->node_id);
  dt_free(m->elem_type);
  dt_free(m->elem_ptr);
  dt_free(m->conn);
  dt_free(m->elem_id);
  dt_free(m->elem_section);
  sets_free(m->nsets, m->n_nsets);
  sets_free(m->elsets, m->n_elsets);
  for (int i = 0; m->surfaces && i < m->n_surfaces; i++) {
    dt_free(m->surfaces[i].elem);
    dt_free(m->surfaces[i].face);
  }
  dt_free(m->surfaces);
  dt_free(m->materials);
  dt_free(m->sections);
  for (int i = 0; m->steps && i < m->n_steps; i++) step_free(&m->steps[i]);
  dt_free(m->steps);
  dt_free(m->initial_velocities);
  dt_free(m->initial_states);
  dt_free(m->eq.ptr);
  dt_free(m->transforms);
  dt_free(m->ties);
  dt_free(m->node_transform);
  dt_free(m->mpc_forces);
  dt_free(m->node_isolated);
  dt_free(m->eq.node);
  dt_free(m->eq.dof);
  dt_free(m->eq.coef);
  dt_free(m->output.monitors);
  dt_free(m);
  *mp = NULL;
}

static int find_set(const dt_set *s, int n, const char *name) {
  for (int i = 0; s && i < n; i++)
    if (strcmp(s[i].name, name) == 0) return i;
  return -1;
}

int dt_model_find_nset(const dt_model *m, const char *name) {
  return find_set(m->nsets, m->n_nsets, name);
}
int dt_model_find_elset(const dt_model *m, const char *name) {
  return find_set(m->elsets, m->n_elsets, name);
}

int dt_model_find_surface(const dt_model *m, const char *name) {
  for (int i = 0; m->surfaces && i < m->n_surfaces; i++)
    if (strcmp(m->surfaces[i].name, name) == 0) return i;
  return -1;
}

int dt_model_find_material(const dt_model *m, const char *name) {
  for (int i = 0; m->materials && i < m->n_materials; i++)
    if (strcmp(m->materials[i].name, name) == 0) return i;
  return -1;
}

static const char *form_name(dt_formulation f) {
  return f == DT_FORM_BBAR      ? "bbar"
         : f == DT_FORM_FULL    ? "full"
         : f == DT_FORM_REDUCED ? "reduced"
                                : "default";
}

static const char *kind_name(dt_section_kind k) {
  return k == DT_SECTION_SOLID          ? "solid"
         : k == DT_SECTION_PLANE_STRAIN ? "plane_strain"
         : k == DT_SECTION_SHELL        ? "shell"
         : k == DT_SECTION_AXISYMMETRIC ? "axisymmetric"
                                        : "plane_stress";
}

static const char *iso_name(int iso) {
  static const char *names[] = {"perfect", "linear", "voce", "table"};
  return iso >= 0 && iso <= 3 ? names[iso] : "?";
}

static void view_materials(const dt_model *m, FILE *f) {
  for (int i = 0; i < m->n_materials; i++) {
    const dt_material_params *p = &m->materials[i].p;
    fprintf(f, "  material %d \"%s\": E %g nu %g", i, m->materials[i].name, p->E, p->nu);
    if (p->plastic == DT_PLASTIC_MOHR_COULOMB)
      fprintf(f, ", Mohr-Coulomb c %g phi %g psi %g, %s tangent", p->mc_cohesion,
              p->mc_friction_deg, p->mc_dilation_deg,
              p->mc_elastic_tangent ? "elastic" : "consistent");
    else if (p->plastic)
      fprintf(f, ", J2 sigma_y0 %g hardening %s (H %g Q %g b %g table %d) H_kin %g", p->sigma_y0,
              iso_name(p->iso), p->H, p->voce_Q, p->voce_b, p->table_n, p->H_kin);
    fprintf(f, "\n");
  }
  for (int i = 0; i < m->n_sections; i++) {
    const dt_section *s = &m->sections[i];
    fprintf(f, "  section %d: element set \"%s\", material %d, %s, formulation %s, thickness %g\n",
            i, s->elset_name, s->material, kind_name(s->kind), form_name(s->form), s->thickness);
  }
}

static void view_steps(const dt_model *m, FILE *f) {
  for (int i = 0; i < m->n_steps; i++) {
    const dt_step *s = &m->steps[i];
    fprintf(f, "  step %d \"%s\": %d bc, %d force, %d pressure, %d traction, %d body; ", i, s->name,
            s->n_bc, s->n_cload, s->n_pressure, s->n_traction, s->n_body);
    if (s->procedure == DT_PROC_EXPLICIT)
      fprintf(f, "explicit dynamics, time %g, dt %g (safety %g), damping %g",
              s->explicit_.time_period, s->explicit_.dt, s->explicit_.dt_safety,
              s->explicit_.damping);
    else if (s->automatic)
      fprintf(f, "automatic increments initial %g min %g max %g", s->inc_initial, s->inc_min,
              s->inc_max);
    else
      fprintf(f, "%d fixed increment(s)", s->n_increments);
    fprintf(f, ", max cutbacks %d\n", s->max_cutbacks);
  }
}

void dt_model_view(const dt_model *m, FILE *f) {
  int count[DT_ELEM_NTYPES] = {0};

  if (m == NULL) {
    fprintf(f, "model: (null)\n");
    return;
  }
  for (int e = 0; m->elem_type && e < m->n_elems; e++)
    if (m->elem_type[e] < DT_ELEM_NTYPES) count[m->elem_type[e]]++;
  fprintf(f, "model \"%s\" (format %d): %dD, %d nodes, %d elements", m->title, m->version, m->dim,
          m->n_nodes, m->n_elems);
  for (int t = 0; t < DT_ELEM_NTYPES; t++)
    if (count[t]) fprintf(f, " (%d %s)", count[t], dt_model_elem_type_name(t));
  fprintf(f,
          "\n  %d node sets, %d element sets, %d surfaces, %d materials, %d sections, %d steps\n",
          m->n_nsets, m->n_elsets, m->n_surfaces, m->n_materials, m->n_sections, m->n_steps);
  view_materials(m, f);
  view_steps(m, f);
  if (m->eq.n > 0) /* printed only where present: the view of a model without is unchanged */
    fprintf(f, "  %d equations (linear constraints), %d terms\n", m->eq.n, m->eq.ptr[m->eq.n]);
  fprintf(f,
          "  newton: max %d iterations, rtol %g, dtol %g, acceleration %s%s; pcg: max %d "
          "iterations, rtol %g%s, %s%s\n",
          m->solver.newton_max_iter, m->solver.newton_rtol, m->solver.newton_dtol,
          dt_accel_names[m->solver.accel], m->solver.accel_auto ? " (auto)" : "",
          m->solver.pcg_max_iter, m->solver.pcg_rtol,
          m->solver.forcing == DT_FORCING_ADAPTIVE ? " (adaptive)" : "",
          dt_precond_names[m->solver.precond], m->solver.precond_auto ? " (auto)" : "");
  fprintf(f, "  output: fields 0x%x, vtu %d, frd %d, points %d, every %d, %d monitors\n",
          m->output.fields, m->output.vtu, m->output.frd, m->output.points, m->output.every,
          m->output.n_monitors);
}
