/* Deck lexing: files into records, *INCLUDE, comments, continued keyword lines, keyword
 * parameters and data-line tokens.
 *
 * Keywords and parameter names are case-insensitive (upper-cased here) and, as CalculiX reads
 * them, blind to blanks: "*END STEP" is "*ENDSTEP", "N SET=" is "NSET=" (keyword names are
 * matched with inp_kw_is). Parameter values keep their case (file names), and the parser
 * upper-cases names where Abaqus does. A keyword line ending with a comma continues on the next
 * line. Data lines are split at commas; empty trailing fields (a trailing comma) are dropped. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_inp_internal.h"

#define INP_MAX_INCLUDE_DEPTH 16

dt_status inp_error(inp *p, int rec, const char *fmt, ...) {
  char msg[768];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (rec < 0 || rec >= p->n_recs)
    return dt_error_set(p->ctx, DT_ERR_INPUT, __FILE__, __LINE__, __func__, "%s: %s", p->path, msg);
  return dt_error_set(p->ctx, DT_ERR_INPUT, __FILE__, __LINE__, __func__, "%s:%d: %s",
                      p->files[p->recs[rec].file], p->recs[rec].line, msg);
}

void inp_warn(inp *p, int rec, const char *fmt, ...) {
  char msg[512];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (rec >= 0 && rec < p->n_recs)
    dt_imp_warn(p->opt, "%s:%d: %s", p->files[p->recs[rec].file], p->recs[rec].line, msg);
  else
    dt_imp_warn(p->opt, "%s: %s", p->path, msg);
}

int inp_eq(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (toupper((unsigned char)*a) != toupper((unsigned char)*b)) return 0;
  return *a == *b;
}

static char *trim(char *s) {
  char *e = NULL;

  while (*s && isspace((unsigned char)*s)) s++;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}

static dt_status keep_buffer(inp *p, char *buf) {
  dt_status rc = DT_OK;

  rc = dt_imp_reserve((void **)&p->bufs, &p->cap_bufs, (size_t)p->n_bufs + 1, sizeof *p->bufs,
                      p->ctx);
  if (rc != DT_OK) {
    dt_free(buf);
    return rc;
  }
  p->bufs[p->n_bufs++] = buf;
  return DT_OK;
}

static dt_status add_file(inp *p, const char *name, int *out) {
  dt_status rc = DT_OK;
  char *copy = NULL;

  DT_TRY(dt_imp_reserve((void **)&p->files, &p->cap_files, (size_t)p->n_files + 1, sizeof *p->files,
                        p->ctx));
  DT_ALLOC(copy, strlen(name) + 1, p->ctx, "a file name");
  memcpy(copy, name, strlen(name) + 1);
  p->files[p->n_files] = copy;
  *out = p->n_files++;
cleanup:
  return rc;
}

static dt_status add_rec(inp *p, char *text, int file, int line) {
  dt_status rc = DT_OK;

  DT_TRY(dt_imp_reserve((void **)&p->recs, &p->cap_recs, (size_t)p->n_recs + 1, sizeof *p->recs,
                        p->ctx));
  p->recs[p->n_recs].text = text;
  p->recs[p->n_recs].file = file;
  p->recs[p->n_recs].line = line;
  p->recs[p->n_recs].keyword = text[0] == '*';
  p->n_recs++;
cleanup:
  return rc;
}

/* A line that is not a comment must be UTF-8: its text becomes titles, names and messages,
 * which the JSON outputs (summary.json, the daemon's replies) cannot carry otherwise. Comments
 * are dropped unread, so a Latin-1 comment is harmless. */
static dt_status check_utf8(inp *p, const char *path, int line, const char *start, const char *t) {
  dt_status rc = DT_OK;
  size_t n = strlen(t), bad = dt_utf8_invalid_at(t, n);

  DT_CHECK(bad == n, p->ctx, DT_ERR_INPUT,
           "%s:%d: byte 0x%02X at column %zu is not UTF-8: the deck's titles and names must be "
           "UTF-8 text (convert the file, e.g. iconv -f latin1 -t utf-8)",
           path, line, (unsigned)(unsigned char)t[bad], (size_t)(t - start) + bad + 1);
cleanup:
  return rc;
}

/* Join a keyword line ending with ',' with the lines that continue it. *next is advanced. */
static dt_status join_continued(inp *p, const char *path, char *first, char **next, char *end,
                                char **out, int *lines) {
  dt_status rc = DT_OK;
  size_t n = strlen(first), cap = n + 1;
  char *j = NULL, *nj = NULL;

  DT_ALLOC(j, cap, p->ctx, "a keyword line");
  memcpy(j, first, n + 1);
  while (n > 0 && j[n - 1] == ',' && *next < end) {
    char *line = *next, *nl = memchr(line, '\n', (size_t)(end - line)), *t = NULL;
    t = line;
    while (t < end && *t != '\n' && isspace((unsigned char)*t)) t++;
    if (t == end || *t == '\n' || (*t == '*' && t[1] != '*'))
      break; /* not a continuation: leave it */
    if (nl) *nl = '\0';
    *next = nl ? nl + 1 : end;
    (*lines)++;
    t = trim(line);
    if (t[0] == '*' && t[1] == '*') continue;
    DT_TRY(check_utf8(p, path, *lines, line, t));
    DT_CHECK((nj = dt_realloc(j, cap + strlen(t) + 1)) != NULL, p->ctx, DT_ERR_NOMEM,
             "out of memory joining lines");
    j = nj;
    cap += strlen(t) + 1;
    memcpy(j + n, t, strlen(t) + 1);
    n += strlen(t);
  }
  *out = j;
  j = NULL;
cleanup:
  dt_free(j);
  return rc;
}

static dt_status include_file(inp *p, int rec, const char *cur, const char *name) {
  dt_status rc = DT_OK;
  char *full = NULL;
  const char *slash = strrchr(cur, '/');
  size_t dir = (name[0] != '/' && slash) ? (size_t)(slash - cur + 1) : 0;
  FILE *f = NULL;

  DT_ALLOC(full, dir + strlen(name) + 1, p->ctx, "a file name");
  memcpy(full, cur, dir);
  memcpy(full + dir, name, strlen(name) + 1);
  f = fopen(full, "rb");
  INP_CHECK(f != NULL, p, rec, "*INCLUDE: cannot open '%s': %s", full, strerror(errno));
  fclose(f);
  INP_CHECK(p->include_depth < INP_MAX_INCLUDE_DEPTH, p, rec,
            "*INCLUDE nested more than %d deep (a file includes itself?)", INP_MAX_INCLUDE_DEPTH);
  p->include_depth++;
  rc = inp_read(p, full, rec);
  p->include_depth--;
cleanup:
  dt_free(full);
  return rc;
}

/* Handle *INCLUDE in place: the included file's records replace the *INCLUDE record, so an
 * included file may also hold only data lines (e.g. the nodes of a *NODE block). */
static dt_status maybe_include(inp *p, const char *cur) {
  dt_status rc = DT_OK;
  inp_kw kw;
  int rec = p->n_recs - 1;
  const char *input = NULL;

  DT_TRY(inp_keyword(p, rec, &kw));
  if (!inp_kw_is(kw.name, "*INCLUDE")) goto cleanup;
  input = inp_param(&kw, "INPUT");
  INP_CHECK(input && input[0], p, rec, "*INCLUDE needs INPUT=<file>");
  DT_TRY(inp_params_done(p, &kw));
  DT_TRY(include_file(p, rec, cur, input));
  memmove(&p->recs[rec], &p->recs[rec + 1], (size_t)(p->n_recs - rec - 1) * sizeof *p->recs);
  p->n_recs--;
cleanup:
  return rc;
}

dt_status inp_read(inp *p, const char *path, int from_rec) {
  dt_status rc = DT_OK;
  char *buf = NULL, *s = NULL, *end = NULL;
  size_t len = 0;
  int file = 0, line = 0;

  (void)from_rec;
  DT_TRY(dt_imp_read_file(path, "deck", &buf, &len, p->ctx));
  DT_TRY(keep_buffer(p, buf));
  DT_TRY(add_file(p, path, &file));
  s = buf;
  end = buf + len;
  while (s < end) {
    char *nl = memchr(s, '\n', (size_t)(end - s)), *t = NULL, *next = nl ? nl + 1 : end;
    int here = ++line;
    if (nl) *nl = '\0';
    t = trim(s);
    if (t[0] == '\0' || (t[0] == '*' && t[1] == '*')) {
      s = next;
      continue;
    }
    DT_TRY(check_utf8(p, path, here, s, t));
    s = next;
    if (t[0] == '*' && t[strlen(t) - 1] == ',') {
      char *j = NULL;
      DT_TRY(join_continued(p, path, t, &s, end, &j, &line));
      DT_TRY(keep_buffer(p, j));
      t = j;
    }
    DT_TRY(add_rec(p, t, file, here));
    if (t[0] == '*') DT_TRY(maybe_include(p, path));
  }
cleanup:
  return rc;
}

void inp_free_text(inp *p) {
  for (int i = 0; i < p->n_files; i++) dt_free(p->files[i]);
  for (int i = 0; i < p->n_bufs; i++) dt_free(p->bufs[i]);
  DT_FREE(p->files);
  DT_FREE(p->bufs);
  DT_FREE(p->recs);
  p->n_files = p->n_bufs = p->n_recs = 0;
}

/* Upper-case and collapse runs of spaces ("*Solid  section" -> "*SOLID SECTION"), or, with
 * `compact`, drop them ("NSET = X" -> key "NSET"): CalculiX removes every blank of a line. */
static void normalize(char *dst, size_t n, const char *src, int compact) {
  size_t k = 0;

  for (; *src && k + 1 < n; src++) {
    if (isspace((unsigned char)*src)) {
      if (!compact && k > 0 && dst[k - 1] != ' ') dst[k++] = ' ';
      continue;
    }
    dst[k++] = (char)toupper((unsigned char)*src);
  }
  while (k > 0 && dst[k - 1] == ' ') k--;
  dst[k] = '\0';
}

int inp_kw_is(const char *name, const char *canonical) {
  for (;;) {
    while (*name == ' ') name++;
    while (*canonical == ' ') canonical++;
    if (toupper((unsigned char)*name) != toupper((unsigned char)*canonical)) return 0;
    if (*name == '\0') return 1;
    name++;
    canonical++;
  }
}

dt_status inp_keyword(inp *p, int rec, inp_kw *kw) {
  dt_status rc = DT_OK;
  char *text = kw->buf, *s = NULL, *comma = NULL;

  memset(kw, 0, sizeof *kw);
  kw->rec = rec;
  INP_CHECK(strlen(p->recs[rec].text) < sizeof kw->buf, p, rec,
            "keyword line longer than %zu characters", sizeof kw->buf - 1);
  memcpy(kw->buf, p->recs[rec].text, strlen(p->recs[rec].text) + 1);
  comma = strchr(text, ',');
  if (comma) *comma = '\0';
  normalize(kw->name, sizeof kw->name, text, 0);
  if (!comma) goto cleanup;
  s = comma + 1;
  while (s && *s) {
    char *next = strchr(s, ','), *eq = NULL, *key = NULL;
    if (next) *next++ = '\0';
    key = trim(s);
    s = next;
    if (key[0] == '\0') continue;
    INP_CHECK(kw->n_params < INP_MAX_PARAMS, p, rec, "%s: too many parameters", kw->name);
    eq = strchr(key, '=');
    if (eq) *eq = '\0';
    normalize(kw->key[kw->n_params], sizeof kw->key[0], key, 1);
    kw->value[kw->n_params] = eq ? trim(eq + 1) : eq;
    if (!eq) kw->value[kw->n_params] = key + strlen(key); /* "" */
    kw->n_params++;
  }
cleanup:
  return rc;
}

const char *inp_param(inp_kw *kw, const char *key) {
  for (int i = 0; i < kw->n_params; i++)
    if (strcmp(kw->key[i], key) == 0) {
      kw->used |= 1u << i;
      return kw->value[i];
    }
  return NULL;
}

dt_status inp_params_done(inp *p, const inp_kw *kw) {
  dt_status rc = DT_OK;

  for (int i = 0; i < kw->n_params; i++)
    INP_CHECK(kw->used & (1u << i), p, kw->rec,
              "unsupported parameter %s on %s (see docs/interop.md)", kw->key[i], kw->name);
cleanup:
  return rc;
}

int inp_data(inp *p, int *rec, char **tok, int *n) {
  char *s = NULL;

  if (p->pos >= p->n_recs || p->recs[p->pos].keyword) return 0;
  *rec = p->pos;
  s = p->recs[p->pos++].text;
  *n = 0;
  while (s && *n < INP_MAX_TOKENS) {
    /* the last slot keeps the rest of a line with more fields than that, commas and all, so
     * that reading it fails loudly rather than dropping fields (CalculiX allows 16) */
    char *next = *n < INP_MAX_TOKENS - 1 ? strchr(s, ',') : NULL;
    if (next) *next++ = '\0';
    tok[(*n)++] = trim(s);
    s = next;
  }
  while (*n > 0 && tok[*n - 1][0] == '\0') (*n)--;
  return 1;
}

dt_status inp_double(inp *p, int rec, const char *tok, const char *what, double *out) {
  dt_status rc = DT_OK;
  char *end = NULL;

  errno = 0;
  *out = strtod(tok, &end);
  if (end && (*end == 'd' || *end == 'D') && strlen(tok) < 64) { /* Fortran's 1.57d0 (ccx's) */
    char buf[64], *e2 = NULL;
    memcpy(buf, tok, strlen(tok) + 1);
    buf[end - tok] = 'e';
    errno = 0;
    *out = strtod(buf, &e2);
    end = (char *)tok + (e2 - buf);
  }
  INP_CHECK(tok[0] != '\0' && end && *end == '\0' && errno != ERANGE, p, rec,
            "%s: expected a number, got '%s'", what, tok);
cleanup:
  return rc;
}

int inp_is_int(const char *tok) {
  const char *s = tok;

  if (*s == '+' || *s == '-') s++;
  if (!isdigit((unsigned char)*s)) return 0;
  while (isdigit((unsigned char)*s)) s++;
  return *s == '\0';
}

dt_status inp_int64(inp *p, int rec, const char *tok, const char *what, int64_t *out) {
  dt_status rc = DT_OK;
  const char *s = tok + (*tok == '+' || *tok == '-');
  int64_t v = 0;
  int digits = 0;

  /* ids and node numbers, millions of them in a large deck: up to 18 digits cannot overflow */
  while (*s >= '0' && *s <= '9' && digits < 18) v = 10 * v + (*s++ - '0'), digits++;
  if (digits > 0 && *s == '\0') {
    *out = *tok == '-' ? -v : v;
    return DT_OK;
  }
  INP_CHECK(inp_is_int(tok), p, rec, "%s: expected an integer, got '%s'", what, tok);
  errno = 0;
  *out = strtoll(tok, NULL, 10);
  INP_CHECK(errno != ERANGE, p, rec, "%s: integer out of range: %s", what, tok);
cleanup:
  return rc;
}
