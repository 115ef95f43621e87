/* Private to solver/io/import_gmsh*.c: the Gmsh reader's state.
 *
 * import_gmsh_read.c parses the sections of a .msh file (format 4.1 or 2.2, ASCII or binary)
 * into raw arrays that keep Gmsh's tags; import_gmsh.c turns them into the model: it keeps the
 * elements of the highest dimension, renumbers their node order and orientation to CalculiX's,
 * and turns physical groups into sets and surfaces. */
#ifndef DT_IO_IMPORT_GMSH_INTERNAL_H
#define DT_IO_IMPORT_GMSH_INTERNAL_H

#include "import_common_internal.h"

#define GM_INTERN DT_INTERN

typedef struct gm_entity {
  int dim, tag;
  int n_phys;
  int phys0; /* offset into gm.ent_phys */
} gm_entity;

typedef struct gm_group {
  int dim, tag;
  char name[DT_NAME_MAX];
} gm_group;

typedef struct gm {
  const char *path;
  const dt_import_options *opt;
  dt_ctx *ctx;
  char *buf;
  size_t len, pos;
  int line;    /* current line, for messages */
  int version; /* 2 or 4 */
  int binary;
  int n_nodes, cap_nodes;
  int64_t *node_tag;
  double *x;
  int n_elems, cap_elems, cap_en;
  int64_t *elem_tag;
  int *elem_type; /* Gmsh element type */
  int *elem_ent;  /* 4.1: entity tag; 2.2: physical tag (0 for none) */
  int *elem_dim;  /* dimension of the element */
  int *elem_line; /* line, for messages */
  int *elem_ptr;  /* offsets into elem_nodes (n_elems + 1) */
  int64_t *elem_nodes;
  gm_entity *ents;
  int n_ents, cap_ents;
  int *ent_phys;
  int n_ent_phys, cap_ent_phys;
  gm_group *groups;
  int n_groups, cap_groups;
} gm;

/* "file:line: message" as DT_ERR_INPUT. */
GM_INTERN dt_status gm_error(gm *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define GM_CHECK(cond, g, ...)                                                                     \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      rc = gm_error((g), __VA_ARGS__);                                                             \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

/* Element type facts: nodes, dimension, the ductile type (-1 if it cannot be a domain element)
 * and a name; npe 0 for a type this reader does not know. */
GM_INTERN int gm_type_info(int type, int *dim, int *dt_type, const char **name);

/* Read every section of the file into g (import_gmsh_read.c). */
GM_INTERN dt_status gm_read_sections(gm *g);

#endif
