/* The size scanner (size_scan.h): creation, the format sniff, whole files, and the JSON
 * scanner. The .msh and deck scanners are size_scan_gmsh.c and size_scan_inp.c.
 *
 * The JSON scanner is a tokenizer that tracks the containers it is in and gives each a role
 * from the keys that lead to it: the job's "mesh" object, its "nodes" array, its "elements"
 * array, each element block and its "connectivity" array. A value that starts inside the nodes
 * array is a node, one inside a connectivity array an element of that block. Keys are compared
 * after their escapes are decoded ("n\u006fdes" is "nodes" to Jansson, so it is here too), and
 * anything it does not follow (malformed text) only leaves roles unset: the parser that reads
 * the text afterwards says what is wrong with it. To count another array, give it a role in
 * role_of_key and count its values in value_start. */
#include "size_scan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/model_internal.h"
#include "size_scan_internal.h"

enum { R_NONE, R_JOB, R_MESH, R_NODES, R_BLOCKS, R_BLOCK, R_CONN, R_TYPE };

dt_status dt_size_scan_create(dt_size_format fmt, int sniff, dt_size_scan **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_size_scan *s = NULL;
  *out = NULL;
  DT_ALLOC(s, 1, ctx, "a size scanner");
  s->size.format = fmt;
  s->size.keeps_all = fmt != DT_SIZE_GMSH;
  s->sniff = sniff;
  s->inp.type = -1;
  *out = s;
cleanup:
  return rc;
}

void dt_size_scan_destroy(dt_size_scan **s) { DT_FREE(*s); }

/* The role of the value under key in an object of role obj. */
static unsigned char role_of_key(unsigned char obj, const char *key) {
  if (obj == R_JOB && !strcmp(key, "mesh")) return R_MESH;
  if (obj == R_MESH && !strcmp(key, "nodes")) return R_NODES;
  if (obj == R_MESH && !strcmp(key, "elements")) return R_BLOCKS;
  if (obj == R_BLOCK && !strcmp(key, "connectivity")) return R_CONN;
  if (obj == R_BLOCK && !strcmp(key, "type")) return R_TYPE;
  return R_NONE;
}

/* A value starts: count it where its container counts, and return its role. */
static unsigned char value_start(dt_size_scan *s) {
  sz_json *j = &s->json;
  sz_frame *top = NULL;
  unsigned char role = R_NONE;
  if (j->depth == 0) return s->size.format == DT_SIZE_JSON_JOB ? R_JOB : R_MESH;
  if (j->depth > SZ_JSON_DEPTH) return R_NONE;
  top = &j->f[j->depth - 1];
  if (top->open == '{') {
    role = top->value_role;
    top->value_role = R_NONE;
    return role;
  }
  if (top->role == R_NODES) s->size.n_nodes++;
  if (top->role == R_CONN) {
    s->size.n_elems++;
    if (j->depth >= 2 && j->f[j->depth - 2].role == R_BLOCK) j->f[j->depth - 2].rows++;
  }
  return top->role == R_BLOCKS ? R_BLOCK : R_NONE;
}

static void push(dt_size_scan *s, char open, unsigned char role) {
  sz_json *j = &s->json;
  int object_role = role == R_JOB || role == R_MESH || role == R_BLOCK;
  int array_role = role == R_NODES || role == R_BLOCKS || role == R_CONN;
  if (j->depth < SZ_JSON_DEPTH) {
    sz_frame *f = &j->f[j->depth];
    memset(f, 0, sizeof *f);
    f->open = open;
    f->role = (open == '{' ? object_role : array_role) ? role : R_NONE;
    f->expect_key = open == '{';
    f->type = -1;
  }
  j->depth++;
}

/* A container closes; a block's rows go to its type. */
static void pop(dt_size_scan *s) {
  sz_json *j = &s->json;
  if (j->depth == 0) return;
  j->depth--;
  if (j->depth < SZ_JSON_DEPTH && j->f[j->depth].role == R_BLOCK && j->f[j->depth].type >= 0)
    s->size.n_type[j->f[j->depth].type] += j->f[j->depth].rows;
}

static void capture(sz_json *j, unsigned c) {
  if (j->cap_len + 1 < (int)sizeof j->cap)
    j->cap[j->cap_len++] = (char)c;
  else
    j->cap_over = 1;
}

/* A string ends: a key names the role of the value after it; a type names its block's type. */
static void string_end(dt_size_scan *s) {
  sz_json *j = &s->json;
  sz_frame *top = j->depth > 0 && j->depth <= SZ_JSON_DEPTH ? &j->f[j->depth - 1] : NULL;
  j->cap[j->cap_len] = '\0';
  if (j->cap_over) j->cap[0] = '\0'; /* longer than any key or type name counted */
  if (j->string_is_key && top) {
    snprintf(j->key, sizeof j->key, "%s", j->cap);
    top->expect_key = 0;
  } else if (j->string_role == R_TYPE && top && top->role == R_BLOCK) {
    top->type = dt_model_elem_type_from_name(j->cap);
    if (top->type >= 0 && dt_model_elem_dim(top->type) > s->size.dim)
      s->size.dim = dt_model_elem_dim(top->type);
  }
  j->in_string = 0;
}

static int hex_value(unsigned c) {
  if (c >= '0' && c <= '9') return (int)c - '0';
  if (c >= 'a' && c <= 'f') return (int)c - 'a' + 10;
  return c >= 'A' && c <= 'F' ? (int)c - 'A' + 10 : -1;
}

/* One byte inside a string; escapes decoded as Jansson decodes them (a code point beyond
 * ASCII stands for itself as a byte no key or type name has). */
static void string_byte(dt_size_scan *s, unsigned c) {
  sz_json *j = &s->json;
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  if (j->hex_left > 0) {
    int h = hex_value(c);
    j->code = j->code * 16 + (unsigned)(h < 0 ? 0 : h);
    if (--j->hex_left == 0) capture(j, j->code > 0 && j->code < 0x80 ? j->code : 0x80);
  } else if (j->escape) {
    const char *k = c ? strchr(from, (int)c) : NULL;
    j->escape = 0;
    if (c == 'u')
      j->hex_left = 4, j->code = 0;
    else
      capture(j, k ? (unsigned char)to[k - from] : c);
  } else if (c == '\\') {
    j->escape = 1;
  } else if (c == '"') {
    string_end(s);
  } else {
    capture(j, c);
  }
}

/* Bytes that end a number or literal: white space, structure, a quote (and NUL). */
static inline int ends_scalar(unsigned c) {
  switch (c) {
  case 0:
  case ' ':
  case '\t':
  case '\r':
  case '\n':
  case ',':
  case ':':
  case '[':
  case ']':
  case '{':
  case '}':
  case '"': return 1;
  default: return 0;
  }
}

static void json_byte(dt_size_scan *s, unsigned c) {
  sz_json *j = &s->json;
  sz_frame *top = j->depth > 0 && j->depth <= SZ_JSON_DEPTH ? &j->f[j->depth - 1] : NULL;
  if (j->in_string) {
    string_byte(s, c);
    return;
  }
  if (j->in_scalar) {
    if (!ends_scalar(c)) return;
    j->in_scalar = 0;
  }
  switch (c) {
  case ' ':
  case '\t':
  case '\r':
  case '\n': break;
  case '"':
    j->in_string = 1, j->escape = 0, j->hex_left = 0, j->cap_len = 0, j->cap_over = 0;
    j->string_is_key = top && top->open == '{' && top->expect_key;
    j->string_role = j->string_is_key ? R_NONE : value_start(s);
    break;
  case '{':
  case '[': push(s, (char)c, value_start(s)); break;
  case '}':
  case ']': pop(s); break;
  case ':':
    if (top && top->open == '{') top->value_role = role_of_key(top->role, j->key);
    break;
  case ',':
    if (top && top->open == '{') top->expect_key = 1;
    break;
  default: /* a number, true, false, null, or text a parser refuses */
    value_start(s);
    j->in_scalar = 1;
  }
}

static void json_feed(dt_size_scan *s, const unsigned char *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (s->json.in_scalar) { /* most of a mesh: its numbers, skipped in this loop */
      while (i < n && !ends_scalar(p[i])) i++;
      if (i == n) break;
    }
    json_byte(s, p[i++]);
  }
}

void dt_size_scan_feed(dt_size_scan *s, const void *data, size_t n) {
  const unsigned char *p = data;
  s->size.offset += (int64_t)n;
  if (s->sniff) { /* the daemon's sniff: white space, then '$' a .msh, '*' a deck */
    while (n > 0 && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++, n--;
    if (n == 0) return;
    if (*p == '$') s->size.format = DT_SIZE_GMSH;
    if (*p == '*') s->size.format = DT_SIZE_INP;
    s->size.keeps_all = s->size.format != DT_SIZE_GMSH;
    s->sniff = 0;
  }
  if (s->size.format == DT_SIZE_GMSH)
    dt_size_gmsh_feed(s, p, n);
  else if (s->size.format == DT_SIZE_INP)
    dt_size_inp_feed(s, p, n);
  else
    json_feed(s, p, n);
}

void dt_size_scan_result(const dt_size_scan *s, dt_model_size *out) {
  *out = s->size;
  if (s->size.format == DT_SIZE_GMSH) dt_size_gmsh_result(s, out);
  if (s->size.format == DT_SIZE_INP) dt_size_inp_result(s, out);
}

dt_status dt_size_scan_file(const char *path, dt_size_format fmt, dt_model_size *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_size_scan *s = NULL;
  char *buf = NULL;
  size_t got = 0;
  FILE *f = fopen(path, "rb");
  memset(out, 0, sizeof *out);
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  DT_TRY(dt_size_scan_create(fmt, 0, &s, ctx));
  DT_ALLOC(buf, 1 << 16, ctx, "a read buffer");
  while ((got = fread(buf, 1, 1 << 16, f)) > 0) dt_size_scan_feed(s, buf, got);
  DT_CHECK(!ferror(f), ctx, DT_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  dt_size_scan_result(s, out);
cleanup:
  if (f) fclose(f);
  dt_free(buf);
  dt_size_scan_destroy(&s);
  return rc;
}

int64_t dt_model_size_dofs(const dt_model_size *s) { return s->n_nodes * (s->dim == 3 ? 3 : 2); }
