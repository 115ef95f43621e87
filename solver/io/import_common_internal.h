/* Helpers shared by the Gmsh and Abaqus importers (import_gmsh*.c, import_inp*.c): whole-file
 * reading, a sorted user-id map, growable arrays, set building and warnings. Hidden visibility;
 * nothing outside solver/io includes this. */
#ifndef DT_IO_IMPORT_COMMON_INTERNAL_H
#define DT_IO_IMPORT_COMMON_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "import.h"

#include "core/intern.h"
#include "core/utf8.h"

/* Read a whole file through dt_malloc, NUL-terminated (*len excludes the NUL). DT_ERR_IO names
 * the file; `what` says what it is ("deck", "mesh"). */
DT_INTERN dt_status dt_imp_read_file(const char *path, const char *what, char **buf, size_t *len,
                                     dt_ctx *ctx);

/* Sorted user id -> 0-based index map, rebuilt from an id array. Ids that fill most of their
 * range (as meshers and CalculiX decks number them) also get a direct table, so a lookup is one
 * load instead of a binary search over the whole mesh. */
typedef struct dt_imp_idmap {
  int n;
  int64_t *id;
  int *index;
  int64_t base, span; /* direct[id - base] for base <= id < base + span; span 0: none */
  int *direct;
} dt_imp_idmap;

/* Build from ids[0..n); on a duplicate returns 1 and sets *dup_a < *dup_b to the positions of
 * the two equal ids (rc DT_OK); allocation failure returns DT_ERR_NOMEM via rc. */
DT_INTERN dt_status dt_imp_idmap_build(dt_imp_idmap *map, const int64_t *ids, int n, int *dup_a,
                                       int *dup_b, dt_ctx *ctx);
DT_INTERN int dt_imp_idmap_find(const dt_imp_idmap *map, int64_t id);
DT_INTERN void dt_imp_idmap_free(dt_imp_idmap *map);

/* Make room for `need` items of `size` bytes in *p (capacity *cap, doubled as needed). */
DT_INTERN dt_status dt_imp_reserve(void **p, int *cap, size_t need, size_t size, dt_ctx *ctx);

/* Append item to set s (growing s->items; *cap is its capacity). */
DT_INTERN dt_status dt_imp_set_add(dt_set *s, int *cap, int item, dt_ctx *ctx);
/* Sort and drop repeats. */
DT_INTERN void dt_imp_set_normalize(dt_set *s);

/* Format and send a warning, if opt has a callback. */
DT_INTERN void dt_imp_warn(const dt_import_options *opt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Model-side facts for importers: the element corner nodes of face f, and the orientation fix
 * (reorder nodes in place so det J > 0) used by the Gmsh importer. */
DT_INTERN int dt_imp_face_corners(int type, int face, int *local);
/* Signed measure (area or volume, times a positive constant) of the element with node
 * coordinates X[a*3+k]: negative when the node order is inverted. */
DT_INTERN double dt_imp_orientation(int type, const double *X);
/* Reverse the orientation of the element's node list conn (in place). */
DT_INTERN void dt_imp_flip(int type, int *conn);

/* Copy src into a DT_NAME_MAX buffer upper-cased (Abaqus names are case-insensitive). Returns 0
 * if it fits, 1 if too long or empty. */
DT_INTERN int dt_imp_name_upper(char dst[DT_NAME_MAX], const char *src);

#endif
