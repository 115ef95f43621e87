/* Private to solver/io/size_scan*.c: the push scanner's state, one part per format.
 *
 * size_scan.c holds the public functions and the JSON scanner, size_scan_gmsh.c the .msh
 * scanner, size_scan_inp.c the deck scanner. Each feed function takes the bytes in order, any
 * number at a time, and keeps only what the next byte needs: the open JSON containers and the
 * key being read, the .msh token or binary field being collected, the deck's current keyword
 * line. */
#ifndef DT_IO_SIZE_SCAN_INTERNAL_H
#define DT_IO_SIZE_SCAN_INTERNAL_H

#include "size_scan.h"

#include "core/intern.h"

/* JSON containers tracked with their role: a job's mesh is 6 deep at its connectivity rows. */
#define SZ_JSON_DEPTH 16

typedef struct sz_frame {
  char open;                /* '{' or '[' */
  unsigned char role;       /* what this container is (size_scan.c) */
  unsigned char value_role; /* an object: the role of the value its last key names */
  unsigned char expect_key; /* an object: the next string is a key */
  int type;                 /* an element block: its type, -1 until known */
  int64_t rows;             /* an element block: the rows of its connectivity so far */
} sz_frame;

typedef struct sz_json {
  sz_frame f[SZ_JSON_DEPTH];
  int depth; /* containers open, also those deeper than SZ_JSON_DEPTH */
  int in_string, in_scalar, escape, hex_left;
  unsigned code;
  int string_is_key;
  unsigned char string_role;
  char cap[32]; /* the string being read, when it is a key or an element type */
  int cap_len, cap_over;
  char key[32]; /* the key just read, for the ':' after it */
} sz_json;

typedef struct sz_gmsh {
  int want;     /* what the next bytes are (size_scan_gmsh.c) */
  int phase;    /* where in which section */
  int version;  /* 2 or 4; 0 before $MeshFormat */
  int binary;   /* a binary file (after $MeshFormat) */
  char tok[64]; /* the token being read, cut at 63 bytes as the importer cuts it */
  int tok_len;  /* bytes of the token so far */
  unsigned char bin[16];
  int bin_len, bin_need;
  uint64_t skip;    /* bytes (binary) or tokens (ASCII) still to skip */
  int in_token;     /* skipping tokens: inside one */
  char pattern[80]; /* "\n$End<Section>" of a skipped section */
  int pat_len, pat_pos;
  int64_t hdr[4]; /* a header's values */
  int k;          /* values of the header or record read */
  int64_t left;   /* blocks, entities or elements still to read */
  int64_t ent_count[4];
  int ent_dim;       /* $Entities: the dimension being read */
  int npe;           /* nodes per element of the block being read */
  int64_t par;       /* parameters per node of the node block being read */
  int64_t n;         /* its size */
  int64_t by_dim[4]; /* elements per dimension */
  int64_t by_type[4][DT_ELEM_NTYPES];
} sz_gmsh;

typedef struct sz_inp {
  int line_state; /* where in the current line (size_scan_inp.c) */
  char kw[2048];  /* the keyword line, continuation lines joined */
  int kw_len, kw_continues;
  int64_t fields, last_field; /* a data line: commas + 1, and the last field with text */
  int block;   /* the keyword whose data lines these are: 0 none, 1 *NODE, 2 *ELEMENT */
  int type;    /* *ELEMENT: the model type of its TYPE=, -1 if unknown */
  int npe;     /* its nodes, 0 if unknown */
  int pending; /* values the current element still takes from the next data line */
} sz_inp;

struct dt_size_scan {
  dt_model_size size;
  int sniff; /* the format is still to be chosen by the first byte */
  sz_json json;
  sz_gmsh gmsh;
  sz_inp inp;
};

DT_INTERN void dt_size_gmsh_feed(dt_size_scan *s, const unsigned char *p, size_t n);
DT_INTERN void dt_size_gmsh_result(const dt_size_scan *s, dt_model_size *out);
DT_INTERN void dt_size_inp_feed(dt_size_scan *s, const unsigned char *p, size_t n);
DT_INTERN void dt_size_inp_result(const dt_size_scan *s, dt_model_size *out);

#endif
