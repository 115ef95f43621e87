/* The data lines of a large *NODE or *ELEMENT block read on several threads.
 *
 * A 2M-DOF deck has about a million such lines, and reading them one after the other (split at
 * commas, numbers parsed, node ids looked up) was most of its import time. Here a window of a
 * block's lines is read in parallel into numbers, each line on its own; a line in the plain form
 * ("id, x, y, z" or "id, n1, ..., n<npe>" on one line, numbers only) is marked read, and the
 * block's handler appends the lines of the window in order, taking each line not marked read
 * (empty fields, continued elements, extra values, Fortran exponents, bad numbers, unknown or
 * repeated nodes) through the one-line path, which gives the messages and warnings. So the
 * model, the errors and their order are the one-line reader's, whatever the thread count. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/fork_safe_parallel.h"
#include "import_inp_bulk.h"

/* A window's lines per thread at least, and the lines of a window at most (bounded memory). */
#define BULK_CHUNK_MIN 4096
#define BULK_WINDOW (1 << 18)

/* An integer field: optional sign, 1 to 18 digits, blanks; *s is left at the next ',' or the
 * line's end. 0 when the field is not of that form. */
static int read_int(const char **s, int64_t *out) {
  const char *c = *s;
  int neg = 0, digits = 0;
  int64_t v = 0;
  while (isspace((unsigned char)*c)) c++;
  if (*c == '+' || *c == '-') neg = *c++ == '-';
  while (*c >= '0' && *c <= '9' && digits < 18) v = 10 * v + (*c++ - '0'), digits++;
  if (digits == 0 || (*c >= '0' && *c <= '9')) return 0;
  while (isspace((unsigned char)*c)) c++;
  if (*c != ',' && *c != '\0') return 0;
  *out = neg ? -v : v;
  *s = c;
  return 1;
}

/* A floating-point field as inp_double reads it (strtod of the trimmed field, no ERANGE);
 * an empty field or a 'd' exponent is left to the one-line path. */
static int read_double(const char **s, double *out) {
  const char *c = *s;
  char *end = NULL;
  while (isspace((unsigned char)*c)) c++;
  if (*c == ',' || *c == '\0') return 0;
  errno = 0;
  *out = strtod(c, &end);
  if (end == c || errno == ERANGE) return 0;
  c = end;
  while (isspace((unsigned char)*c)) c++;
  if (*c != ',' && *c != '\0') return 0;
  *s = c;
  return 1;
}

/* Past the ',' that ends a field (0 at the line's end). */
static int next_field(const char **s) {
  if (**s != ',') return 0;
  (*s)++;
  return 1;
}

typedef struct bulk_job {
  inp *p;
  inp_bulk *b;
  int npe; /* 0: nodes */
} bulk_job;

static int node_line(const char *s, int64_t *id, double x[3]) {
  int k = 0;
  if (!read_int(&s, id)) return 0;
  x[0] = x[1] = x[2] = 0.0;
  while (next_field(&s)) {
    if (k == 3 || !read_double(&s, &x[k++])) return 0;
  }
  return k >= 1; /* "id" alone is read (at 0, 0, 0) by the one-line path */
}

static int element_line(const inp *p, const char *s, int npe, int64_t *id, int *conn) {
  if (!read_int(&s, id)) return 0;
  for (int a = 0; a < npe; a++) {
    int64_t node = 0;
    if (!next_field(&s) || !read_int(&s, &node)) return 0;
    conn[a] = dt_imp_idmap_find(&p->nodes, node);
    if (conn[a] < 0) return 0;
    for (int c = 0; c < a; c++)
      if (conn[c] == conn[a]) return 0;
  }
  return *s == '\0';
}

static void read_chunk(void *arg, int chunk, int i0, int i1) {
  bulk_job *j = arg;
  inp_bulk *b = j->b;
  (void)chunk;
  for (int i = i0; i < i1; i++) {
    const char *text = j->p->recs[b->r0 + i].text;
    b->ok[i] = (unsigned char)(j->npe == 0 ? node_line(text, &b->id[i], &b->x[3 * (size_t)i])
                                           : element_line(j->p, text, j->npe, &b->id[i],
                                                          &b->conn[(size_t)j->npe * i]));
  }
}

void inp_bulk_free(inp_bulk *b) {
  DT_FREE(b->ok);
  DT_FREE(b->id);
  DT_FREE(b->x);
  DT_FREE(b->conn);
  b->r0 = b->r1 = b->cap = b->parsed = 0;
}

/* The next window of the block's data lines from p->pos: [r0, r1). */
static int window_end(const inp *p) {
  int r = p->pos;
  while (r < p->n_recs && r - p->pos < BULK_WINDOW && !p->recs[r].keyword) r++;
  return r;
}

dt_status inp_bulk_read(inp *p, int npe, inp_bulk *b) {
  dt_status rc = DT_OK;
  bulk_job job = {p, b, npe};
  int n = 0;

  b->r0 = p->pos;
  b->r1 = window_end(p);
  b->parsed = 0;
  n = b->r1 - b->r0;
  if (n < 2 * BULK_CHUNK_MIN) goto cleanup; /* a small block: the one-line path alone */
  if (npe > 0 && p->nodes_dirty) {
    /* the node map, built here once for the lookups (read-only on the threads); a node defined
     * twice is left for the one-line path to report where it always has */
    int a = -1, c = -1;
    DT_TRY(dt_imp_idmap_build(&p->nodes, p->m->node_id, p->m->n_nodes, &a, &c, p->ctx));
    if (a >= 0) goto cleanup;
    p->nodes_dirty = 0;
  }
  if (b->cap < n) { /* the first window is the largest: later ones are at most as long */
    int r0 = b->r0, r1 = b->r1;
    inp_bulk_free(b);
    b->r0 = r0;
    b->r1 = r1;
    b->cap = n;
    DT_ALLOC(b->ok, n, p->ctx, "a block of deck lines");
    DT_ALLOC(b->id, n, p->ctx, "a block of deck lines");
    if (npe == 0)
      DT_ALLOC(b->x, 3 * (size_t)n, p->ctx, "a block of deck lines");
    else
      DT_ALLOC(b->conn, (size_t)npe * n, p->ctx, "a block of deck lines");
  }
  dt_parallel_chunks(n, BULK_CHUNK_MIN, read_chunk, &job);
  b->parsed = 1;
cleanup:
  return rc;
}
