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
  int corners; /* import_gmsh.c: Lagrange hexahedra of any order become hex8 of their corners */
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
 * and a name; npe 0 for a type this reader does not know. The high-order lines, quadrangles and
 * hexahedra (Gmsh types 27-28, 62-64, 37-38, 47-49, 92-97) are known with type -1: the
 * order-P reader (highorder/ho_mesh_gmsh.c) takes them. */
GM_INTERN int gm_type_info(int type, int *dim, int *dt_type, const char **name);

/* The order P of a Lagrange hexahedron of Gmsh type `type` (5, 12, 92-97: P = 1..8), 0 for
 * any other type. */
GM_INTERN int gm_hex_order(int type);

/* Read every section of the file into g (import_gmsh_read.c). */
GM_INTERN dt_status gm_read_sections(gm *g);
/* Zero g, read the whole file `path` and its sections into it (opt may be NULL). On error g
 * still holds what was read; gm_free releases it in every case (import_gmsh_read.c). */
GM_INTERN dt_status gm_read_file(gm *g, const char *path, const dt_import_options *opt,
                                 dt_ctx *ctx);
/* Physical tags of raw element e: *n of them from *tags (*one holds a 2.2 file's) (import_gmsh.c). */
GM_INTERN void gm_elem_phys(const gm *g, int e, int *one, const int **tags, int *n);
/* The name of physical group (dim, tag), "physical<tag>" when it has none (import_gmsh.c). */
GM_INTERN void gm_group_name(const gm *g, int dim, int tag, char name[DT_NAME_MAX]);
/* Release the arrays of g (import_gmsh.c). */
GM_INTERN void gm_free(gm *g);

/* Most nodes of one element the reader accepts (the 729-node hexahedron of order 8). */
#define GM_MAX_NPE 729

#endif
