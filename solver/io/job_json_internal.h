/* Shared pieces of the JSON job parser: the parse context, JSON-path building, errors that
 * carry the path, typed getters and user-id maps.
 *
 * Each section of the format has its own file (job_json_mesh.c, job_json_material.c,
 * job_json_steps.c, job_json_explicit.c, job_json_options.c); each takes the JSON value and its path and fills the
 * model. To add a field: list its key in the object's allowed keys (unknown keys are errors)
 * and read it with a dt_jp_get_* getter, which reports wrong types and missing values. */
#ifndef DT_JOB_JSON_INTERNAL_H
#define DT_JOB_JSON_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "model/model.h"

#include "core/intern.h"
#define DT_JPATH_MAX 256
/* Ids must be exactly representable in every JSON implementation (IEEE doubles). */
#define DT_JP_ID_MAX 9007199254740991LL

/* Sorted user id -> 0-based index map. */
typedef struct dt_idmap {
  int n;
  int64_t *id; /* sorted ascending */
  int *index;  /* index[i] belongs to id[i] */
} dt_idmap;

typedef struct dt_jp {
  const char *origin;
  dt_ctx *ctx;
  dt_model *m;
  dt_idmap nodes;
  dt_idmap elems;
} dt_jp;

/* Record "origin: path: message" as DT_ERR_INPUT. */
DT_INTERN dt_status dt_jp_error(dt_jp *jp, const char *path, const char *file, int line,
                                const char *func, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
#define DT_JERR(jp, path, ...) dt_jp_error((jp), (path), __FILE__, __LINE__, __func__, __VA_ARGS__)
#define DT_JCHECK(cond, jp, path, ...)                                                             \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      rc = DT_JERR((jp), (path), __VA_ARGS__);                                                     \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

/* Child paths: "parent.key" (or "key" at the root) and "parent[i]". dst has DT_JPATH_MAX bytes. */
DT_INTERN void dt_jp_key(char *dst, const char *parent, const char *key);
DT_INTERN void dt_jp_index(char *dst, const char *parent, size_t i);

/* "string", "number", "object", ... for "expected X, got Y". */
DT_INTERN const char *dt_jp_type_name(const json_t *v);

/* Value checks: each reports a wrong type as "expected ..., got ...". */
DT_INTERN dt_status dt_jp_object(dt_jp *jp, const json_t *v, const char *path,
                                 const char *const *allowed);
DT_INTERN dt_status dt_jp_array(dt_jp *jp, const json_t *v, const char *path, size_t min,
                                size_t max, int *n);
DT_INTERN dt_status dt_jp_number(dt_jp *jp, const json_t *v, const char *path, double *out);
DT_INTERN dt_status dt_jp_integer(dt_jp *jp, const json_t *v, const char *path, int64_t lo,
                                  int64_t hi, int64_t *out);
DT_INTERN dt_status dt_jp_int(dt_jp *jp, const json_t *v, const char *path, int lo, int hi,
                              int *out);
DT_INTERN dt_status dt_jp_bool(dt_jp *jp, const json_t *v, const char *path, int *out);
DT_INTERN dt_status dt_jp_string(dt_jp *jp, const json_t *v, const char *path, const char **out);
DT_INTERN dt_status dt_jp_name(dt_jp *jp, const json_t *v, const char *path, char out[DT_NAME_MAX]);
/* A string that must be one of words (NULL-terminated); *out is its index. */
DT_INTERN dt_status dt_jp_keyword(dt_jp *jp, const json_t *v, const char *path,
                                  const char *const *words, int *out);
/* A vector of 2 (2D models only) or 3 numbers; z = 0 when 2 are given. */
DT_INTERN dt_status dt_jp_vector(dt_jp *jp, const json_t *v, const char *path, double out[3]);

/* Object members. With required = 0, a missing member leaves *out unchanged (the default) and
 * *v (for dt_jp_member) NULL. `path` is the object's path. */
DT_INTERN dt_status dt_jp_member(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                                 int required, json_t **v);
DT_INTERN dt_status dt_jp_get_number(dt_jp *jp, const json_t *obj, const char *path,
                                     const char *key, int required, double *out);
DT_INTERN dt_status dt_jp_get_int(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                                  int required, int lo, int hi, int *out);
DT_INTERN dt_status dt_jp_get_bool(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                                   int required, int *out);
DT_INTERN dt_status dt_jp_get_name(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                                   int required, char out[DT_NAME_MAX]);
DT_INTERN dt_status dt_jp_get_keyword(dt_jp *jp, const json_t *obj, const char *path,
                                      const char *key, int required, const char *const *words,
                                      int *out);

/* Id maps. Build reports duplicates as "<path>[i]: duplicate <what> id N (also at [j])". */
DT_INTERN dt_status dt_idmap_build(dt_jp *jp, dt_idmap *map, const int64_t *ids, int n,
                                   const char *path, const char *what);
DT_INTERN int dt_idmap_find(const dt_idmap *map, int64_t id);
DT_INTERN void dt_idmap_free(dt_idmap *map);

/* The parts of a job, in the order the parser reads them. */
DT_INTERN dt_status dt_jp_mesh(dt_jp *jp, const json_t *mesh, const char *path);
DT_INTERN dt_status dt_jp_materials(dt_jp *jp, const json_t *v, const char *path);
DT_INTERN dt_status dt_jp_sections(dt_jp *jp, const json_t *v, const char *path);
DT_INTERN dt_status dt_jp_steps(dt_jp *jp, const json_t *v, const char *path);
DT_INTERN dt_status dt_jp_solver(dt_jp *jp, const json_t *v, const char *path);
DT_INTERN dt_status dt_jp_output(dt_jp *jp, const json_t *v, const char *path);
/* An explicit step's "explicit" object, and "initial_velocities" (after the steps, which must be
 * explicit) (job_json_explicit.c). */
DT_INTERN dt_status dt_jp_explicit(dt_jp *jp, const json_t *v, const char *path,
                                   dt_explicit_options *x);
DT_INTERN dt_status dt_jp_initial_velocities(dt_jp *jp, const json_t *v, const char *path);
/* "initial_conditions" (job_json_initial.c): initial stresses and plastic strains. */
DT_INTERN dt_status dt_jp_initial_conditions(dt_jp *jp, const json_t *v, const char *path);
/* "equations": linear multi-point constraints (job_json_equation.c). */
DT_INTERN dt_status dt_jp_equations(dt_jp *jp, const json_t *v, const char *path);
/* "rigid_bodies", "mpcs": CalculiX's nonlinear MPCs, linearised into equations once the steps
 * are read (job_json_mpc.c). */
DT_INTERN dt_status dt_jp_rigid_bodies(dt_jp *jp, const json_t *v, const char *path);
DT_INTERN dt_status dt_jp_mpcs(dt_jp *jp, const json_t *v, const char *path);
/* "transforms": local nodal systems, lowered into global DOFs once the steps and equations are
 * read (job_json_transform.c). */
DT_INTERN dt_status dt_jp_transforms(dt_jp *jp, const json_t *v, const char *path);
/* "ties": slave nodes bound to master surfaces, lowered into equations once the transforms are
 * (job_json_tie.c). */
DT_INTERN dt_status dt_jp_ties(dt_jp *jp, const json_t *v, const char *path);
/* With explicit steps, every material a section uses has a density (path: "materials"). */
DT_INTERN dt_status dt_jp_explicit_densities(dt_jp *jp, const char *path);

/* The parts of a job after its mesh: materials, sections, steps, initial velocities, solver and
 * output options (job_json.c; shared by the full job and by a job attached to an imported mesh). */
dt_status dt_jp_job_parts(dt_jp *jp, const json_t *root);

#endif
