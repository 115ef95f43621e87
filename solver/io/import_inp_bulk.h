/* Private to solver/io/import_inp*.c: the data lines of a large *NODE or *ELEMENT block read on
 * several threads (import_inp_bulk.c), a window at a time. */
#ifndef DT_IO_IMPORT_INP_BULK_H
#define DT_IO_IMPORT_INP_BULK_H

#include "import_inp_internal.h"

typedef struct inp_bulk {
  int r0, r1;        /* the window: records r0 .. r1 - 1 */
  int parsed;        /* 0: the window's lines are all left to the one-line path */
  int cap;           /* lines the arrays hold */
  unsigned char *ok; /* per line: 1 when read here, 0 for the one-line path */
  int64_t *id;       /* per line read: the node's or element's id */
  double *x;         /* nodes: 3 coordinates per line (missing ones 0) */
  int *conn;         /* elements: npe node indices per line */
} inp_bulk;

/* Read the window of data lines that starts at p->pos (nodes for npe = 0, else elements of npe
 * nodes, looked up in the node map, which is built here when stale). A block too small to gain
 * from threads, or whose nodes repeat an id, is left unread (parsed 0). p->pos is not moved.
 * Errors: DT_ERR_NOMEM. */
INP_INTERN dt_status inp_bulk_read(inp *p, int npe, inp_bulk *b);
/* Whether record rec of the window was read here. */
static inline int inp_bulk_has(const inp_bulk *b, int rec) {
  return b->parsed && rec >= b->r0 && rec < b->r1 && b->ok[rec - b->r0];
}
INP_INTERN void inp_bulk_free(inp_bulk *b);

#endif
