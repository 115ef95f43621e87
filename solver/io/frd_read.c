/* Reading a .frd (frd_read.h): one pass over the lines, each record read by its fixed columns
 * (values are E12.5 fields that need not be separated by blanks: -1.00339E-02-3.26467E-03).
 * Element node lists are kept as the file gives them until the nodes block is complete, then
 * mapped to node indices. To keep another result block: its name in read_result. */
#include "frd_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "element/element.h"
#include "import_common_internal.h"
#include "model/model.h"

typedef struct frd_reader {
  const char *path;
  char *buf;  /* the file, cut into lines in place */
  char *next; /* start of the next line */
  int line;   /* 1-based number of the current line */
  char *cur;  /* the current line */
  int width;  /* width of an id: 10 (long format) or 5 (short) */
  dt_frd_file *f;
  int64_t *conn_id; /* element node ids as read, mapped to indices at the end */
  int cap_id, cap_x, cap_eid, cap_etype, cap_eptr, cap_conn, cap_disp; /* capacities */
  dt_imp_idmap nodes;
  dt_ctx *ctx;
} frd_reader;

#define FRD_CHECK(cond, r, ...)                                                                    \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      char msg_[256];                                                                              \
      snprintf(msg_, sizeof msg_, __VA_ARGS__);                                                    \
      rc = DT_ERROR((r)->ctx, DT_ERR_INPUT, "%s:%d: %s", (r)->path, (r)->line, msg_);              \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

/* The next line into r->cur (its newline and a carriage return cut off); 0 at the end. */
static int next_line(frd_reader *r) {
  char *nl = NULL;
  size_t n = 0;
  if (!r->next || !*r->next) return 0;
  r->cur = r->next;
  nl = strchr(r->cur, '\n');
  if (nl)
    *nl = '\0', r->next = nl + 1;
  else
    r->next = NULL;
  n = strlen(r->cur);
  if (n > 0 && r->cur[n - 1] == '\r') r->cur[n - 1] = '\0';
  r->line++;
  return 1;
}

/* The line's length without trailing blanks. */
static int trimmed_length(const char *line) {
  int n = (int)strlen(line);
  while (n > 0 && line[n - 1] == ' ') n--;
  return n;
}

static int starts(const char *line, const char *head) {
  return strncmp(line, head, strlen(head)) == 0;
}

/* The field of `width` characters at column `col` of the current line (0-based), as a number;
 * `what` names it for the message. */
static dt_status field_double(frd_reader *r, int col, int width, const char *what, double *out) {
  dt_status rc = DT_OK;
  char tmp[32], *end = NULL;
  size_t n = strlen(r->cur);
  int i = 0, k = 0;
  FRD_CHECK((size_t)(col + width) <= n, r, "%s: the line ends before column %d", what, col + width);
  for (i = 0; i < width; i++)
    if (r->cur[col + i] != ' ') tmp[k++] = r->cur[col + i];
  tmp[k] = '\0';
  errno = 0;
  *out = strtod(tmp, &end);
  FRD_CHECK(k > 0 && *end == '\0' && errno == 0 && isfinite(*out), r,
            "%s: '%.*s' (columns %d-%d) is not a number", what, width, r->cur + col, col + 1,
            col + width);
cleanup:
  return rc;
}

static dt_status field_int(frd_reader *r, int col, int width, const char *what, int64_t *out) {
  dt_status rc = DT_OK;
  double v = 0;
  DT_TRY(field_double(r, col, width, what, &v));
  FRD_CHECK(v == floor(v) && fabs(v) < 9.1e15, r, "%s: '%.*s' is not an integer", what, width,
            r->cur + col);
  *out = (int64_t)v;
cleanup:
  return rc;
}

/* cgx's element type -> ours, and for each of the record's positions the node of ours it is
 * (NULL: the same order). cgx lists the 20-node brick's mid-edge nodes 13-16 (ours: the
 * vertical edges 17-20) after 17-20, and the 15-node wedge's likewise (output_frd.c). */
static int frd_elem_type(int64_t cgx, const int **order) {
  static const int he20[20] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                               10, 11, 16, 17, 18, 19, 12, 13, 14, 15};
  static const int pe15[15] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11};
  *order = NULL;
  switch (cgx) {
  case 1: return DT_ELEM_HEX8;
  case 2: return DT_ELEM_WEDGE6;
  case 3: return DT_ELEM_TET4;
  case 4: *order = he20; return DT_ELEM_HEX20;
  case 5: *order = pe15; return DT_ELEM_WEDGE15;
  case 6: return DT_ELEM_TET10;
  case 7: return DT_ELEM_TRI3;
  case 9: return DT_ELEM_QUAD4;
  case 10: return DT_ELEM_QUAD8;
  }
  return -1;
}

/* The header's format flag: the last integer of a 2C or 3C record (0 short, 1 long, 2 binary). */
static dt_status block_format(frd_reader *r, const char *what) {
  dt_status rc = DT_OK;
  size_t n = strlen(r->cur);
  while (n > 0 && r->cur[n - 1] == ' ') n--;
  FRD_CHECK(n > 6 && r->cur[n - 1] >= '0' && r->cur[n - 1] <= '2' && r->cur[n - 2] == ' ', r,
            "%s record without its format flag (0, 1 or 2) at the end", what);
  FRD_CHECK(r->cur[n - 1] != '2', r,
            "%s: a binary .frd is not read (write it in ASCII: CalculiX's *NODE FILE default)",
            what);
  r->width = r->cur[n - 1] == '1' ? 10 : 5;
cleanup:
  return rc;
}

static dt_status read_nodes(frd_reader *r) {
  dt_status rc = DT_OK;
  dt_frd_file *f = r->f;
  int w = 0, dup_a = -1, dup_b = -1;
  DT_TRY(block_format(r, "2C (nodes)"));
  w = r->width;
  while (next_line(r) && !starts(r->cur, " -3")) {
    int64_t id = 0;
    int i = f->n_nodes;
    FRD_CHECK(starts(r->cur, " -1"), r,
              "a node record (' -1') or the block's end (' -3') expected");
    DT_TRY(dt_imp_reserve((void **)&f->node_id, &r->cap_id, (size_t)i + 1, sizeof *f->node_id,
                          r->ctx));
    DT_TRY(dt_imp_reserve((void **)&f->x, &r->cap_x, 3 * ((size_t)i + 1), sizeof *f->x, r->ctx));
    DT_TRY(field_int(r, 3, w, "node id", &id));
    f->node_id[i] = id;
    for (int k = 0; k < 3; k++)
      DT_TRY(field_double(r, 3 + w + 12 * k, 12, "node coordinate", &f->x[3 * i + k]));
    f->n_nodes++;
  }
  FRD_CHECK(r->cur && starts(r->cur, " -3"), r, "the nodes block (2C) is not closed (truncated?)");
  DT_TRY(dt_imp_idmap_build(&r->nodes, f->node_id, f->n_nodes, &dup_a, &dup_b, r->ctx));
  FRD_CHECK(dup_a < 0, r, "the nodes block defines node %lld twice",
            (long long)(dup_a >= 0 ? f->node_id[dup_a] : 0));
cleanup:
  return rc;
}

/* One element: its " -1" record (current line) and the " -2" records of its nodes. */
static dt_status read_element(frd_reader *r) {
  dt_status rc = DT_OK;
  dt_frd_file *f = r->f;
  int w = r->width, e = f->n_elems, type = -1, npe = 0, got = 0;
  int64_t id = 0, cgx = 0;
  const int *order = NULL;
  DT_TRY(field_int(r, 3, w, "element id", &id));
  DT_TRY(field_int(r, 3 + w, 5, "element type", &cgx));
  type = frd_elem_type(cgx, &order);
  if (type < 0) { /* beams, shells of other kinds: nothing a submodel interpolates from */
    while (r->next && strncmp(r->next, " -2", 3) == 0) next_line(r);
    f->n_other++;
    goto cleanup;
  }
  npe = dt_elem_nnodes(type);
  DT_TRY(
      dt_imp_reserve((void **)&f->elem_id, &r->cap_eid, (size_t)e + 1, sizeof *f->elem_id, r->ctx));
  DT_TRY(dt_imp_reserve((void **)&f->elem_type, &r->cap_etype, (size_t)e + 1, sizeof *f->elem_type,
                        r->ctx));
  DT_TRY(dt_imp_reserve((void **)&f->elem_ptr, &r->cap_eptr, (size_t)e + 2, sizeof *f->elem_ptr,
                        r->ctx));
  DT_TRY(dt_imp_reserve((void **)&r->conn_id, &r->cap_conn, (size_t)f->elem_ptr[e] + npe,
                        sizeof *r->conn_id, r->ctx));
  f->elem_id[e] = id;
  f->elem_type[e] = (unsigned char)type;
  while (got < npe) {
    int per_line = 0;
    FRD_CHECK(next_line(r) && starts(r->cur, " -2"), r,
              "element %lld: %d of its %d nodes read, a ' -2' record expected", (long long)id, got,
              npe);
    per_line = (trimmed_length(r->cur) - 3 + w - 1) / w;
    for (int k = 0; k < per_line && got < npe; k++, got++) {
      int64_t node = 0;
      DT_TRY(field_int(r, 3 + w * k, w, "element node", &node));
      r->conn_id[f->elem_ptr[e] + (order ? order[got] : got)] = node;
    }
  }
  f->elem_ptr[e + 1] = f->elem_ptr[e] + npe;
  f->n_elems++;
cleanup:
  return rc;
}

static dt_status read_elements(frd_reader *r) {
  dt_status rc = DT_OK;
  DT_TRY(block_format(r, "3C (elements)"));
  FRD_CHECK(r->f->n_elems == 0, r, "a second elements block (3C)");
  DT_TRY(dt_imp_reserve((void **)&r->f->elem_ptr, &r->cap_eptr, 1, sizeof *r->f->elem_ptr, r->ctx));
  r->f->elem_ptr[0] = 0;
  while (next_line(r) && !starts(r->cur, " -3")) {
    FRD_CHECK(starts(r->cur, " -1"), r,
              "an element record (' -1') or the block's end (' -3') expected");
    DT_TRY(read_element(r));
  }
  FRD_CHECK(r->cur && starts(r->cur, " -3"), r,
            "the elements block (3C) is not closed (truncated?)");
cleanup:
  return rc;
}

/* A result block from its 1PSTEP record (current line): DISP is kept, others skipped. */
static dt_status read_result(frd_reader *r) {
  dt_status rc = DT_OK;
  dt_frd_file *f = r->f;
  dt_frd_disp *d = NULL;
  int64_t inc = 0, step = 0;
  double time = 0;
  int ncomp = 0, keep = 0, w = r->width, nl = 0;
  DT_TRY(field_int(r, 36, 12, "1PSTEP increment", &inc));
  DT_TRY(field_int(r, 48, 12, "1PSTEP step", &step));
  while ((nl = next_line(r)) && starts(r->cur, "    1P")) continue; /* 1PMODE, 1PGM, ... */
  FRD_CHECK(nl && starts(r->cur, "  100C"), r, "a 1PSTEP record without its 100CL record");
  DT_TRY(field_double(r, 12, 12, "100CL time", &time));
  FRD_CHECK(next_line(r) && starts(r->cur, " -4"), r, "a 100CL record without its ' -4' record");
  keep = strncmp(r->cur + 5, "DISP    ", 8) == 0;
  while ((nl = next_line(r)) && starts(r->cur, " -5"))
    if (strncmp(r->cur + 5, "ALL ", 4) != 0) ncomp++;
  FRD_CHECK(nl, r, "the result block ends after its components (truncated?)");
  if (keep) {
    FRD_CHECK(ncomp >= 3, r, "a DISP block with %d components (3 expected)", ncomp);
    DT_TRY(dt_imp_reserve((void **)&f->disp, &r->cap_disp, (size_t)f->n_disp + 1, sizeof *f->disp,
                          r->ctx));
    d = &f->disp[f->n_disp++];
    memset(d, 0, sizeof *d);
    d->step = (int)step, d->inc = (int)inc, d->time = time;
    DT_ALLOC(d->u, 3 * (size_t)f->n_nodes + 1, r->ctx, "displacements");
  }
  for (; !starts(r->cur, " -3"); nl = next_line(r)) {
    int64_t id = 0;
    int node = -1;
    FRD_CHECK(nl, r, "the result block is not closed (truncated?)");
    if (!keep || starts(r->cur, " -2")) continue;
    FRD_CHECK(starts(r->cur, " -1"), r,
              "a value record (' -1') or the block's end (' -3') expected");
    DT_TRY(field_int(r, 3, w, "node id", &id));
    node = dt_imp_idmap_find(&r->nodes, id);
    FRD_CHECK(node >= 0, r, "DISP of node %lld, which the nodes block (2C) does not define",
              (long long)id);
    for (int k = 0; k < 3; k++)
      DT_TRY(field_double(r, 3 + w + 12 * k, 12, "displacement", &d->u[3 * node + k]));
  }
cleanup:
  return rc;
}

/* Element node ids -> node indices, once the nodes are known. */
static dt_status map_connectivity(frd_reader *r) {
  dt_status rc = DT_OK;
  dt_frd_file *f = r->f;
  int n = f->n_elems ? f->elem_ptr[f->n_elems] : 0;
  DT_ALLOC(f->conn, n, r->ctx, "connectivity");
  for (int e = 0; e < f->n_elems; e++)
    for (int k = f->elem_ptr[e]; k < f->elem_ptr[e + 1]; k++) {
      f->conn[k] = dt_imp_idmap_find(&r->nodes, r->conn_id[k]);
      DT_CHECK(f->conn[k] >= 0, r->ctx, DT_ERR_INPUT,
               "%s: element %lld uses node %lld, which the nodes block (2C) does not define",
               r->path, (long long)f->elem_id[e], (long long)r->conn_id[k]);
    }
cleanup:
  return rc;
}

static dt_status read_records(frd_reader *r) {
  dt_status rc = DT_OK;
  int closed = 0;
  while (!closed && next_line(r)) {
    if (starts(r->cur, "    2C")) {
      FRD_CHECK(r->f->n_nodes == 0, r, "a second nodes block (2C)");
      DT_TRY(read_nodes(r));
    } else if (starts(r->cur, "    3C")) {
      FRD_CHECK(r->nodes.n > 0, r, "an elements block (3C) before the nodes block (2C)");
      DT_TRY(read_elements(r));
    } else if (starts(r->cur, "    1PSTEP")) {
      FRD_CHECK(r->nodes.n > 0, r, "results before the nodes block (2C)");
      DT_TRY(read_result(r));
    } else if (starts(r->cur, " 9999")) {
      closed = 1;
    } else {
      /* the header (1C), user records (1U) and parameter records (1P): nothing to keep */
      FRD_CHECK(starts(r->cur, "    1C") || starts(r->cur, "    1U") || starts(r->cur, "    1P") ||
                    r->cur[0] == '\0',
                r, "unexpected record '%.20s' (1C, 1U, 1P, 2C, 3C or 9999 expected)", r->cur);
    }
  }
  FRD_CHECK(closed, r, "the file ends without its closing 9999 record (truncated?)");
  FRD_CHECK(r->f->n_nodes > 0, r, "the file has no nodes block (2C)");
cleanup:
  return rc;
}

dt_status dt_frd_read(const char *path, dt_frd_file **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  frd_reader r;
  size_t len = 0;
  *out = NULL;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.ctx = ctx;
  r.width = 10;
  DT_TRY(dt_imp_read_file(path, "result file (.frd)", &r.buf, &len, ctx));
  r.next = r.buf;
  DT_ALLOC(r.f, 1, ctx, "a result file");
  DT_TRY(read_records(&r));
  DT_TRY(map_connectivity(&r));
  *out = r.f;
  r.f = NULL;
cleanup:
  dt_frd_destroy(&r.f);
  dt_free(r.buf);
  dt_free(r.conn_id);
  dt_imp_idmap_free(&r.nodes);
  return rc;
}

void dt_frd_destroy(dt_frd_file **fp) {
  dt_frd_file *f = fp ? *fp : NULL;
  if (!f) return;
  for (int i = 0; i < f->n_disp; i++) dt_free(f->disp[i].u);
  dt_free(f->disp);
  dt_free(f->node_id);
  dt_free(f->x);
  dt_free(f->elem_id);
  dt_free(f->elem_type);
  dt_free(f->elem_ptr);
  dt_free(f->conn);
  dt_free(f);
  *fp = NULL;
}

const dt_frd_disp *dt_frd_step_disp(const dt_frd_file *f, int step) {
  const dt_frd_disp *last = NULL;
  for (int i = 0; i < f->n_disp; i++)
    if (f->disp[i].step == step && (!last || f->disp[i].inc >= last->inc)) last = &f->disp[i];
  return last;
}
