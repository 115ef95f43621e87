/* A JSON job on an existing mesh: materials, sections, steps and options from a job file that
 * has no "mesh", applied to a model that an importer filled with the mesh only (a Gmsh file).
 *
 * The job refers to the mesh's node sets, element sets and surfaces by name (Gmsh physical
 * groups) and is read with the same per-part parsers as a complete job, so its messages carry
 * the same JSON paths. */
#include <stdio.h>
#include <string.h>

#include "import_common_internal.h"
#include "job_json.h"
#include "job_json_internal.h"

static const char *const attach_keys[] = {"ductile",   "title",
                                          "materials", "sections",
                                          "steps",     "initial_velocities",
                                          "solver",    "output",
                                          "equations", "transforms",
                                          "ties",      "rigid_bodies",
                                          "mpcs",      "initial_conditions",
                                          NULL};

static dt_status parse_attached(dt_jp *jp, const json_t *root) {
  dt_status rc = DT_OK;
  json_t *v = NULL;
  const char *title = NULL;

  DT_JCHECK(json_is_object(root), jp, "", "expected an object, got %s", dt_jp_type_name(root));
  DT_JCHECK(json_object_get(root, "mesh") == NULL, jp, "mesh",
            "not allowed here: the mesh comes from the mesh file (remove \"mesh\" from the job)");
  DT_TRY(dt_jp_object(jp, root, "", attach_keys));
  DT_TRY(dt_jp_member(jp, root, "", "ductile", 1, &v));
  DT_JCHECK(json_is_integer(v) && json_integer_value(v) == DT_JOB_FORMAT_VERSION, jp, "ductile",
            "expected the format version %d", DT_JOB_FORMAT_VERSION);
  DT_TRY(dt_jp_member(jp, root, "", "title", 0, &v));
  if (v) DT_TRY(dt_jp_string(jp, v, "title", &title));
  if (title) snprintf(jp->m->title, sizeof jp->m->title, "%s", title);
  DT_TRY(dt_jp_job_parts(jp, root));
cleanup:
  return rc;
}

dt_status dt_parse_job_file_with_mesh(const char *path, dt_model *mesh_model, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_jp jp;
  json_t *root = NULL;
  json_error_t err;
  char *text = NULL;
  size_t len = 0;
  int ctx_clean = !ctx || ctx->code == DT_OK;

  memset(&jp, 0, sizeof jp);
  jp.origin = path;
  jp.ctx = ctx;
  jp.m = mesh_model;
  DT_CHECK(mesh_model && mesh_model->n_materials == 0 && mesh_model->n_steps == 0, ctx,
           DT_ERR_INTERNAL, "dt_parse_job_file_with_mesh: the model must hold a mesh only");
  DT_TRY(dt_imp_read_file(path, "job file", &text, &len, ctx));
  root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
  DT_CHECK(root != NULL, ctx, DT_ERR_INPUT, "%s:%d:%d: %s", path, err.line, err.column, err.text);
  DT_TRY(dt_idmap_build(&jp, &jp.nodes, mesh_model->node_id, mesh_model->n_nodes, "mesh.nodes",
                        "node"));
  DT_TRY(dt_idmap_build(&jp, &jp.elems, mesh_model->elem_id, mesh_model->n_elems, "mesh.elements",
                        "element"));
  DT_TRY(parse_attached(&jp, root));
  rc = dt_model_finish(mesh_model, ctx);
  if (rc != DT_OK && ctx_clean) dt_ctx_prefix(ctx, path);
cleanup:
  dt_idmap_free(&jp.nodes);
  dt_idmap_free(&jp.elems);
  json_decref(root);
  dt_free(text);
  return rc;
}
