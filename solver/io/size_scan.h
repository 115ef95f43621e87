/* The size of a model read from its file's text before anything is built: the nodes and
 * elements a JSON job or mesh object, a Gmsh .msh file (4.1 or 2.2, ASCII or binary) or an
 * Abaqus/CalculiX deck declares, counted as the bytes go by (a push scanner: fed the body of an
 * upload while it arrives, or a file). Building a model takes memory in proportion to its size
 * (the daemon measured 19x the text for a JSON job, 28x for a JSON mesh, 4.5x for a .msh or a
 * deck), and sizing it first lets a caller refuse one that is too large before that memory is
 * taken: `ductiled` does (its max_model_dofs, max_model_elements and admission by memory).
 *
 * The scanner holds a few kilobytes whatever the input, and never fails on what it reads: text
 * it cannot follow (malformed, an unknown element type) ends the count there, and the importer
 * that reads the file afterwards reports what is wrong. It follows the text as its importer
 * does (JSON keys with escapes, tokens split by any white space in a .msh, continued element
 * lines of a deck), so a file written to be counted small does not import large.
 *
 * What counts, per format:
 *   JSON job   mesh.nodes rows, mesh.elements[].connectivity rows (by the block's type)
 *   JSON mesh  the same in the mesh object itself (what POST /v1/meshes takes)
 *   Gmsh       the nodes and elements its $Nodes and $Elements headers announce, as soon as
 *              each header is read (every element, the lower-dimensional ones that only carry
 *              physical groups included: the importer reads them all); per type from the
 *              element blocks
 *   deck       the data lines of *NODE and the elements of *ELEMENT (a line with fewer nodes
 *              than the type has continues on the next, as the importer reads it) */
#ifndef DT_IO_SIZE_SCAN_H
#define DT_IO_SIZE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef enum {
  DT_SIZE_JSON_JOB = 1, /* the JSON job format, with its "mesh" object */
  DT_SIZE_JSON_MESH,    /* a mesh object of the job format alone */
  DT_SIZE_GMSH,
  DT_SIZE_INP
} dt_size_format;

typedef struct dt_model_size {
  dt_size_format format; /* what the text was read as (see dt_size_scan_create's sniff) */
  int64_t n_nodes;       /* nodes the text defines (a .msh: its headers announce) */
  int64_t n_elems;       /* elements (a .msh: of every dimension) */
  /* The elements that become the model's, per type (a .msh: those of its highest dimension;
   * elements of a type the importer does not take are in n_elems only). */
  int64_t n_type[DT_ELEM_NTYPES];
  int dim;        /* 2 or 3 from the element types seen; 0 before any */
  int keeps_all;  /* 1: the importer keeps every node (JSON, decks); 0: only those of the
                     model's elements (a .msh) */
  int64_t offset; /* bytes read so far */
} dt_model_size;

typedef struct dt_size_scan dt_size_scan;

/* A scanner for text of format fmt. With sniff set, the first byte that is not white space
 * may change the format as the daemon's upload formats do: '$' a .msh, '*' a deck, anything
 * else fmt. Errors: DT_ERR_NOMEM. */
dt_status dt_size_scan_create(dt_size_format fmt, int sniff, dt_size_scan **out, dt_ctx *ctx);
/* The next n bytes of the text. */
void dt_size_scan_feed(dt_size_scan *s, const void *data, size_t n);
/* The counts so far; after the last feed, those of the whole text. n_nodes, n_elems and the
 * DOFs (dt_model_size_dofs) only grow as more is fed, so a size over a limit part way through
 * stays over it (a .msh's n_type and dim may change when elements of a higher dimension come). */
void dt_size_scan_result(const dt_size_scan *s, dt_model_size *out);
void dt_size_scan_destroy(dt_size_scan **s);

/* Scan a whole file. Errors: DT_ERR_IO (cannot read it), DT_ERR_NOMEM. */
dt_status dt_size_scan_file(const char *path, dt_size_format fmt, dt_model_size *out, dt_ctx *ctx);

/* DOFs of the size: nodes times 2 for a 2D model, else 3 (2 while no element type is known,
 * the fewest any model of those nodes has). */
int64_t dt_model_size_dofs(const dt_model_size *s);

#endif
