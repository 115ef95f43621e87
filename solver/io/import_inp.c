/* The Abaqus/CalculiX deck importer: records -> keyword handlers -> dt_model -> dt_model_finish.
 *
 * Every keyword of the supported subset (docs/interop.md) has a row in `keywords` with where
 * it may appear (model data, step, or both); anything else is rejected with its name and line,
 * never skipped. To support another keyword: write its handler (it reads its parameters with
 * inp_param, calls inp_params_done so unknown parameters are errors, and consumes its data
 * lines with inp_data) and add a row. */
#include <stdio.h>
#include <string.h>

#include "import_inp_internal.h"
#include "job_json.h"

static dt_status inp_heading(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  int rec = 0, first = 1;

  DT_TRY(inp_params_done(p, kw));
  while (p->pos < p->n_recs && !p->recs[p->pos].keyword) { /* free text: do not split at commas */
    rec = p->pos++;
    if (first) { /* a long heading is cut between characters, so the title stays UTF-8 */
      const char *text = p->recs[rec].text;
      size_t n = dt_utf8_prefix(text, strlen(text), sizeof p->m->title - 1);
      memcpy(p->m->title, text, n);
      p->m->title[n] = '\0';
    }
    first = 0;
  }
cleanup:
  return rc;
}

typedef dt_status (*inp_handler)(inp *p, inp_kw *kw);

enum { MODEL = 1, STEP = 2, ANY = 3 };

static const struct {
  const char *name;
  inp_handler fn;
  int where;
} keywords[] = {
    {"*HEADING", inp_heading, MODEL},
    {"*NODE", inp_node, MODEL},
    {"*ELEMENT", inp_element, MODEL},
    {"*NSET", inp_nset, ANY},
    {"*ELSET", inp_elset, ANY},
    {"*SURFACE", inp_surface, MODEL},
    {"*MATERIAL", inp_material, MODEL},
    {"*ELASTIC", inp_elastic, MODEL},
    {"*PLASTIC", inp_plastic, MODEL},
    {"*CYCLIC HARDENING", inp_cyclic, MODEL},
    {"*DENSITY", inp_density, MODEL},
    {"*SOLID SECTION", inp_solid_section, MODEL},
    {"*SHELL SECTION", inp_shell_section, MODEL},
    {"*AMPLITUDE", inp_amplitude, ANY},
    {"*INITIAL CONDITIONS", inp_initial_conditions, MODEL},
    {"*BOUNDARY", inp_boundary, ANY},
    {"*EQUATION", inp_equation, MODEL},
    {"*RIGID BODY", inp_rigid_body, MODEL},
    {"*MPC", inp_mpc, MODEL},
    {"*TRANSFORM", inp_transform, MODEL},
    {"*TIE", inp_tie, MODEL},
    {"*SUBMODEL", inp_submodel, MODEL},
    {"*STEP", inp_step, MODEL},
    {"*STATIC", inp_static, STEP},
    {"*DYNAMIC", inp_dynamic, STEP},
    {"*CLOAD", inp_cload_kw, STEP},
    {"*DLOAD", inp_dload, STEP},
    {"*DSLOAD", inp_dsload, STEP},
    {"*CONTROLS", inp_controls, STEP},
    {"*CHANGE SOLID SECTION", inp_change_solid_section, STEP},
    {"*NODE PRINT", inp_print, STEP},
    {"*EL PRINT", inp_print, STEP},
    {"*NODE FILE", inp_file_request, STEP},
    {"*EL FILE", inp_file_request, STEP},
    {"*OUTPUT", inp_output, STEP},
    {"*NODE OUTPUT", inp_file_request, STEP},
    {"*ELEMENT OUTPUT", inp_file_request, STEP},
    {"*END STEP", inp_end_step, STEP},
};
#define N_KEYWORDS ((int)(sizeof keywords / sizeof keywords[0]))

static dt_status dispatch(inp *p, int rec) {
  dt_status rc = DT_OK;
  inp_kw kw;
  int k = 0;

  DT_TRY(inp_keyword(p, rec, &kw));
  for (k = 0; k < N_KEYWORDS && !inp_kw_is(kw.name, keywords[k].name); k++) continue;
  INP_CHECK(k < N_KEYWORDS, p, rec,
            "unsupported keyword %s (see docs/interop.md for the supported subset)", kw.name);
  snprintf(kw.name, sizeof kw.name, "%s",
           keywords[k].name); /* "*ENDSTEP" is "*END STEP" from here on */
  INP_CHECK(keywords[k].where != STEP || p->step_rec >= 0, p, rec, "%s must be inside a *STEP",
            kw.name);
  INP_CHECK(
      keywords[k].where != MODEL || p->step_rec < 0, p, rec,
      "%s belongs to the model data: it must come before the first *STEP (or after *END STEP)",
      kw.name);
  DT_TRY(keywords[k].fn(p, &kw));
cleanup:
  return rc;
}

static dt_status parse_records(inp *p) {
  dt_status rc = DT_OK;
  int stray = 0;

  /* CalculiX files lines only under the keyword they follow, so lines before the first keyword
   * (a stray ">**" above the comments) are never read; they are skipped here too, with a
   * warning since they may be a damaged keyword line. */
  while (p->pos < p->n_recs && !p->recs[p->pos].keyword) stray++, p->pos++;
  if (stray)
    inp_warn(
        p, 0,
        "%d line(s) before the first keyword ignored, as CalculiX ignores them (this one: '%.40s')",
        stray, p->recs[0].text);
  while (p->pos < p->n_recs) {
    int rec = p->pos++;
    INP_CHECK(p->recs[rec].keyword, p, rec,
              "data line where a keyword line (*KEYWORD) was expected: '%.40s'", p->recs[rec].text);
    DT_TRY(dispatch(p, rec));
  }
  INP_CHECK(p->step_rec < 0, p, p->step_rec,
            "the deck ends inside this *STEP: *END STEP is missing (truncated file?)");
  DT_TRY(inp_materials_done(p));
  DT_TRY(inp_sections_done(p));
  DT_TRY(inp_explicit_done(p));
cleanup:
  return rc;
}

static void inp_free(inp *p) {
  dt_model_destroy(&p->m);
  inp_free_text(p);
  inp_state_free(p);
  dt_imp_idmap_free(&p->nodes);
  dt_imp_idmap_free(&p->elems);
  dt_free(p->nset_cap);
  dt_free(p->elset_cap);
  dt_free(p->surf_cap);
  dt_free(p->node_rec);
  dt_free(p->elem_rec);
  dt_free(p->elem_kind);
  dt_free(p->elem_c3d8r);
  dt_free(p->amps);
  dt_free(p->ivl);
  dt_free(p->sec_material);
  dt_free(p->sec_rec);
  dt_free(p->eq_rec);
  dt_free(p->tie_rec);
  inp_mpcs_free(p);
  inp_submodels_free(p);
}

dt_status dt_inp_parse_file(const char *path, const dt_import_options *opt, dt_model **out,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  inp p;
  int ctx_clean = !ctx || ctx->code == DT_OK;

  *out = NULL;
  memset(&p, 0, sizeof p);
  p.path = path;
  p.opt = opt;
  p.ctx = ctx;
  p.material = p.plastic_rec = p.step_rec = -1;
  p.static_rec = p.explicit_rec = p.ic_rec = p.step_amp = p.step_amp_rec = p.step_default_rec = -1;
  p.istate_rec[0] = p.istate_rec[1] = -1;
  p.step_amp_kind = -1;
  p.c3d8r_rec = p.transform_rec = -1;
  DT_TRY(dt_model_create(&p.m, ctx));
  snprintf(p.m->title, sizeof p.m->title, "%s", path);
  DT_TRY(inp_read(&p, path, -1));
  DT_TRY(parse_records(&p));
  if (!p.file_seen && p.m->output.vtu) {
    /* CalculiX writes field results (.frd) only where *NODE FILE or *EL FILE asks: a deck
     * without them gets its *NODE PRINT / *EL PRINT tables, the history and the summary, and
     * no VTU (at 2M DOFs one increment's fields are some 250 MB). */
    p.m->output.vtu = 0;
    p.m->output.fields = 0; /* nothing requested: the prints and the summary say what is kept */
    inp_warn(&p, -1,
             "no *NODE FILE or *EL FILE: no field files (VTU, .frd) are written, as CalculiX "
             "writes no .frd results without them; add e.g. *NODE FILE / U and *EL FILE / S, "
             "PEEQ to the step");
  }
  for (int s = 0; s < p.m->n_nsets; s++) dt_imp_set_normalize(&p.m->nsets[s]);
  for (int s = 0; s < p.m->n_elsets; s++) dt_imp_set_normalize(&p.m->elsets[s]);
  DT_TRY(inp_initial_velocities(&p));
  DT_TRY(inp_mpcs_done(&p));
  DT_TRY(inp_equations_done(&p));
  DT_TRY(inp_transforms_done(&p));
  DT_TRY(inp_ties_done(&p));
  DT_TRY(inp_isolated_nodes_check(&p));
  rc = dt_model_finish(p.m, ctx);
  if (rc != DT_OK) {
    if (ctx_clean) dt_ctx_prefix(ctx, path);
    goto cleanup;
  }
  DT_TRY(inp_prints_done(&p));
  *out = p.m;
  p.m = NULL;
cleanup:
  inp_free(&p);
  return rc;
}

static int has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && inp_eq(path + n - e, ext);
}

dt_status dt_import_file(const char *path, const char *job_path, const dt_import_options *opt,
                         dt_model **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model *mesh = NULL;

  *out = NULL;
  if (has_ext(path, ".msh")) {
    DT_CHECK(
        job_path != NULL, ctx, DT_ERR_INPUT,
        "%s: a Gmsh mesh needs a JSON job for materials, sections and steps (--job loads.json)",
        path);
    DT_TRY(dt_gmsh_read_file(path, opt, &mesh, ctx));
    DT_TRY(dt_parse_job_file_with_mesh(job_path, mesh, ctx));
    *out = mesh;
    mesh = NULL;
    goto cleanup;
  }
  DT_CHECK(job_path == NULL, ctx, DT_ERR_INPUT, "%s: --job applies to Gmsh meshes (.msh) only",
           path);
  if (has_ext(path, ".inp"))
    DT_TRY(dt_inp_parse_file(path, opt, out, ctx));
  else
    DT_TRY(dt_parse_job_file(path, out, ctx));
cleanup:
  dt_model_destroy(&mesh);
  return rc;
}
