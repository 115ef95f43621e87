/* Helpers shared by the model, its checks and its importers (JSON today, Gmsh/Abaqus later).
 *
 * Element-type facts needed before any element code runs (names, node and face counts,
 * dimension) and the material parameter check, written once so that the JSON parser can
 * report a JSON path and dt_model_finish can report a material name for the same rule. */
#ifndef DT_MODEL_INTERNAL_H
#define DT_MODEL_INTERNAL_H

#include <stddef.h>

#include "model.h"

#include "core/intern.h"

/* Element type name as written in job files ("hex8"), or NULL for an invalid type. */
DT_INTERN const char *dt_model_elem_type_name(int type);
/* Element type by name, or -1. */
DT_INTERN int dt_model_elem_type_from_name(const char *name);
/* "hex8, tet4, tet10, quad4, tri3, quad8, quad9, quad16": for messages. */
DT_INTERN const char *dt_model_elem_type_list(void);
/* Nodes per element, faces (edges in 2D) per element, and spatial dimension; 0 if invalid. */
DT_INTERN int dt_model_elem_nnodes(int type);
DT_INTERN int dt_model_elem_nfaces(int type);
DT_INTERN int dt_model_elem_dim(int type);

/* Check material parameters. Returns 0 if valid; otherwise 1, with `field` set to the offending
 * field relative to a job file's material object (e.g. "elastic.nu") and `msg` to what is wrong
 * (e.g. "must be < 0.5 (got 0.5)"). */
DT_INTERN int dt_material_params_check(const dt_material_params *p, char *field, size_t nfield,
                                       char *msg, size_t nmsg);

/* Element geometry (dt_elem_check_geometry, dt_shell_check_geometry) of elements e0 .. e1 - 1,
 * in parallel: DT_ERR_INPUT for the first failing element in element order, its index in *bad
 * (-1 when all pass; bad may be NULL). */
DT_INTERN dt_status dt_model_check_geometry(const dt_model *m, int e0, int e1, int *bad,
                                            dt_ctx *ctx);

/* Explicit dynamics and shells (model_finish_explicit.c). */
DT_INTERN int dt_model_has_shells(const dt_model *m);
/* 1 when the section's element set holds a shell4 element. */
DT_INTERN int dt_section_has_shells(const dt_model *m, const dt_section *sec);
/* A shell section: shell4 elements only, thickness, points through it (resolves the default). */
DT_INTERN dt_status dt_check_shell_section(dt_model *m, int s, dt_ctx *ctx);
/* A shell4 element's corners: finite, and the four corner normals on one side (not folded or
 * degenerate). */
DT_INTERN dt_status dt_shell_check_geometry(const double *X, int64_t user_elem_id, dt_ctx *ctx);
/* The rules of explicit steps: all steps explicit or none, the element types, materials with
 * a density, the step controls, the loads and boundary conditions explicit steps support. */
DT_INTERN dt_status dt_check_explicit(dt_model *m, dt_ctx *ctx);
/* 1 when some step of the model is explicit. */
DT_INTERN int dt_model_any_explicit(const dt_model *m);
/* A solid section of a model with explicit steps: its formulation for hex8 ("auto" resolves to
 * reduced, one point with hourglass control; full; not bbar) and its material (elastic or J2). */
DT_INTERN dt_status dt_check_explicit_solid_section(dt_model *m, int s, dt_ctx *ctx);

#endif
