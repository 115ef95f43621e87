/* The output tests' VTU reader; see vtu_read.h. A hand-written scan rather than an XML
 * library: the header is ours and small, and the scan doubles as a check of its form. */
#include "vtu_read.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_fixture.h"

static const char PROLOGUE[] =
    "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
    "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n";
static const char APPENDED[] = "  <AppendedData encoding=\"raw\">\n   _";
static const char EPILOGUE[] = "\n  </AppendedData>\n</VTKFile>\n";

size_t vtu_type_size(const char *type) {
  if (!strcmp(type, "Float64") || !strcmp(type, "Int64") || !strcmp(type, "UInt64")) return 8;
  if (!strcmp(type, "Int32") || !strcmp(type, "UInt32") || !strcmp(type, "Float32")) return 4;
  if (!strcmp(type, "UInt8") || !strcmp(type, "Int8")) return 1;
  return 0;
}

/* The value of attribute `key` in the tag [tag, end) into out; 0 if absent. */
static int attr(const char *tag, const char *end, const char *key, char *out, size_t n) {
  char pat[64];
  const char *p, *q;
  snprintf(pat, sizeof pat, " %s=\"", key);
  p = strstr(tag, pat);
  if (p == NULL || p >= end) return 0;
  p += strlen(pat);
  q = strchr(p, '"');
  CHECK(q != NULL && q < end && (size_t)(q - p) < n, "attribute %s too long or unterminated", key);
  memcpy(out, p, (size_t)(q - p));
  out[q - p] = '\0';
  return 1;
}

static int by_offset(const void *a, const void *b) {
  const vtu_array *x = *(const vtu_array *const *)a, *y = *(const vtu_array *const *)b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void vtu_load(const char *path, vtu_file *v) {
  FILE *f = fopen(path, "rb");
  char *head, *p, stack[16][32], buf[64];
  const unsigned char *base;
  size_t head_len, pos;
  const vtu_array *sorted[VTU_READ_MAX];
  int depth = 0, i;
  long n;
  memset(v, 0, sizeof *v);
  v->n_points = v->n_cells = -1;
  CHECK(f != NULL, "cannot open %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  v->size = (size_t)n;
  v->bytes = malloc(v->size + 1);
  CHECK(v->bytes && fread(v->bytes, 1, v->size, f) == v->size, "cannot read %s", path);
  fclose(f);
  v->bytes[v->size] = 0;
  CHECK(v->size > sizeof PROLOGUE && memcmp(v->bytes, PROLOGUE, sizeof PROLOGUE - 1) == 0,
        "%s: bad prologue", path);
  p = strstr((char *)v->bytes, APPENDED); /* the header has no NUL, so strstr stays in it */
  CHECK(p != NULL, "%s: no raw AppendedData", path);
  head_len = (size_t)(p - (char *)v->bytes);
  base = v->bytes + head_len + strlen(APPENDED);
  CHECK(v->size >= sizeof EPILOGUE &&
            memcmp(v->bytes + v->size - (sizeof EPILOGUE - 1), EPILOGUE, sizeof EPILOGUE - 1) == 0,
        "%s: bad epilogue", path);
  /* Scan the header's tags: balanced, and every DataArray self-closed inside a section. */
  head = malloc(head_len + 1);
  CHECK(head != NULL, "out of memory");
  memcpy(head, v->bytes, head_len);
  head[head_len] = '\0';
  for (p = strchr(head + 2, '<'); p != NULL; p = strchr(p + 1, '<')) {
    char *end = strchr(p, '>'), name[32];
    size_t k = 0;
    CHECK(end != NULL, "%s: unterminated tag", path);
    for (const char *c = p + 1 + (p[1] == '/'); *c && *c != ' ' && *c != '>' && *c != '/'; c++)
      if (k + 1 < sizeof name) name[k++] = *c;
    name[k] = '\0';
    if (p[1] == '/') {
      CHECK(depth > 0 && strcmp(stack[depth - 1], name) == 0, "%s: </%s> closes <%s>", path, name,
            depth > 0 ? stack[depth - 1] : "(nothing)");
      depth--;
    } else if (end[-1] == '/') {
      vtu_array *a;
      CHECK(strcmp(name, "DataArray") == 0, "%s: unexpected empty element <%s/>", path, name);
      CHECK(v->n < VTU_READ_MAX && depth > 0, "%s: too many arrays or an array outside a section",
            path);
      a = &v->arr[v->n++];
      snprintf(a->section, sizeof a->section, "%s", stack[depth - 1]);
      CHECK(attr(p, end, "type", a->type, sizeof a->type) && vtu_type_size(a->type) > 0,
            "%s: array without a known type", path);
      if (!attr(p, end, "Name", a->name, sizeof a->name)) a->name[0] = '\0';
      a->ncomp = attr(p, end, "NumberOfComponents", buf, sizeof buf) ? atoi(buf) : 1;
      CHECK(attr(p, end, "format", buf, sizeof buf) && strcmp(buf, "appended") == 0,
            "%s: array %s is not appended", path, a->name);
      CHECK(attr(p, end, "offset", buf, sizeof buf), "%s: array %s has no offset", path, a->name);
      a->offset = strtoull(buf, NULL, 10);
    } else {
      CHECK(depth < 16, "%s: nested too deep", path);
      snprintf(stack[depth++], sizeof stack[0], "%s", name);
      if (!strcmp(name, "Piece")) {
        CHECK(attr(p, end, "NumberOfPoints", buf, sizeof buf), "%s: Piece without sizes", path);
        v->n_points = atoi(buf);
        CHECK(attr(p, end, "NumberOfCells", buf, sizeof buf), "%s: Piece without sizes", path);
        v->n_cells = atoi(buf);
      }
    }
  }
  /* Still open: VTKFile (closed by the epilogue). */
  CHECK(depth == 1 && !strcmp(stack[0], "VTKFile"), "%s: unbalanced header (depth %d)", path,
        depth);
  free(head);
  /* The blocks: each at its offset, one after the other, the last one ending the data. */
  for (i = 0; i < v->n; i++) sorted[i] = &v->arr[i];
  qsort(sorted, (size_t)v->n, sizeof sorted[0], by_offset);
  pos = 0;
  for (i = 0; i < v->n; i++) {
    vtu_array *a = (vtu_array *)sorted[i];
    uint64_t nb;
    CHECK(a->offset == pos, "%s: array %s at offset %zu, expected %zu", path, a->name, a->offset,
          pos);
    CHECK((size_t)(base - v->bytes) + pos + 8 <= v->size, "%s: offset past the end", path);
    memcpy(&nb, base + pos, 8);
    a->nbytes = (size_t)nb;
    a->data = base + pos + 8;
    CHECK(a->nbytes % vtu_type_size(a->type) == 0, "%s: %s has %zu bytes", path, a->name,
          a->nbytes);
    pos += 8 + a->nbytes;
  }
  CHECK((size_t)(base - v->bytes) + pos + sizeof EPILOGUE - 1 == v->size,
        "%s: %zu bytes of appended data, the arrays take %zu", path,
        v->size - (size_t)(base - v->bytes) - (sizeof EPILOGUE - 1), pos);
}

void vtu_free(vtu_file *v) {
  free(v->bytes);
  memset(v, 0, sizeof *v);
}

const vtu_array *vtu_get(const vtu_file *v, const char *section, const char *name) {
  for (int i = 0; i < v->n; i++)
    if (!strcmp(v->arr[i].section, section) && !strcmp(v->arr[i].name, name)) return &v->arr[i];
  return NULL;
}
