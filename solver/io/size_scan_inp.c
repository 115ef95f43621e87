/* The deck size scanner (size_scan.h): the nodes of *NODE and the elements of *ELEMENT, read
 * line by line as import_inp_lex.c and import_inp_mesh.c read them, without keeping the deck.
 *
 * A line is classified by its first character that is not white space: nothing (a blank line),
 * "**" (a comment), '*' (a keyword line, kept to read its name and TYPE=) or anything else (a
 * data line, whose comma-separated fields are counted as they go by). A keyword line ending
 * with a comma continues on the lines after it up to a blank or a keyword line, as the lexer
 * joins them. Each data line of *NODE is a node. A data line of *ELEMENT starts an element
 * unless the element before it still lacks nodes: then it continues that one, as read_element
 * pulls continuation lines. *INCLUDE is not followed (the daemon refuses it in uploads). */
#include <ctype.h>
#include <string.h>

#include "import_inp_internal.h"
#include "model/model_internal.h"
#include "size_scan_internal.h"

enum { L_START, L_STAR, L_COMMENT, L_KEYWORD, L_DATA };
enum { B_NONE, B_NODE, B_ELEMENT };

static void kw_add(sz_inp *d, unsigned char c) {
  if (d->kw_len + 1 < (int)sizeof d->kw) d->kw[d->kw_len++] = (char)c;
}

/* name: the keyword's name without blanks, upper case ("*SOLID SECTION" -> "*SOLIDSECTION"). */
static void keyword_name(const char *kw, char *name, size_t cap) {
  size_t k = 0;
  for (; *kw && *kw != ',' && k + 1 < cap; kw++)
    if (!isspace((unsigned char)*kw)) name[k++] = (char)toupper((unsigned char)*kw);
  name[k] = '\0';
}

/* The TYPE= of a keyword line into type (cap bytes), "" without one. */
static void type_param(const char *kw, char *type, size_t cap) {
  const char *p = strchr(kw, ',');
  type[0] = '\0';
  while (p) {
    const char *field = p + 1, *end = strchr(field, ','), *eq = NULL;
    char key[32];
    size_t k = 0, len = end ? (size_t)(end - field) : strlen(field);
    eq = memchr(field, '=', len);
    for (const char *c = field; c < (eq ? eq : field + len) && k + 1 < sizeof key; c++)
      if (!isspace((unsigned char)*c)) key[k++] = (char)toupper((unsigned char)*c);
    key[k] = '\0';
    if (eq && !strcmp(key, "TYPE")) {
      const char *v = eq + 1, *ve = field + len;
      while (v < ve && isspace((unsigned char)*v)) v++;
      while (ve > v && isspace((unsigned char)ve[-1])) ve--;
      k = (size_t)(ve - v) < cap - 1 ? (size_t)(ve - v) : cap - 1;
      memcpy(type, v, k);
      type[k] = '\0';
    }
    p = end;
  }
}

/* A keyword line (joined so far) is complete: which data lines follow, of what type. */
static void keyword_end(dt_size_scan *s) {
  sz_inp *d = &s->inp;
  char name[64], type[64];
  while (d->kw_len > 0 && isspace((unsigned char)d->kw[d->kw_len - 1])) d->kw_len--;
  d->kw[d->kw_len] = '\0';
  d->kw_continues = d->kw_len > 0 && d->kw[d->kw_len - 1] == ',';
  keyword_name(d->kw, name, sizeof name);
  d->block = !strcmp(name, "*NODE") ? B_NODE : !strcmp(name, "*ELEMENT") ? B_ELEMENT : B_NONE;
  d->pending = 0;
  d->type = -1;
  d->npe = 0;
  if (d->block != B_ELEMENT) return;
  type_param(d->kw, type, sizeof type);
  d->type = inp_elem_type(type);
  /* C3D8R is one point in static steps (hex8r) and in explicit ones (a reduced section's hex8):
   * counted as hex8r, whose one point the floor then takes */
  if (d->type == DT_ELEM_HEX8 && inp_eq(type, "C3D8R")) d->type = DT_ELEM_HEX8R;
  d->npe = d->type >= 0 ? dt_model_elem_nnodes(d->type) : 0;
  if (d->type >= 0 && dt_model_elem_dim(d->type) > s->size.dim)
    s->size.dim = dt_model_elem_dim(d->type);
}

/* A data line of last_field fields (trailing empty ones dropped, as inp_data drops them). */
static void data_end(dt_size_scan *s) {
  sz_inp *d = &s->inp;
  int n = (int)d->last_field;
  if (d->block == B_NODE) s->size.n_nodes++;
  if (d->block != B_ELEMENT) return;
  if (d->pending > 0) { /* the element before continues on this line */
    d->pending = n < d->pending ? d->pending - n : 0;
    return;
  }
  s->size.n_elems++;
  if (d->type >= 0) s->size.n_type[d->type]++;
  d->pending = d->npe > 0 && n > 0 && n < d->npe + 1 ? d->npe + 1 - n : 0;
}

static void line_end(dt_size_scan *s) {
  sz_inp *d = &s->inp;
  if (d->line_state == L_START) d->kw_continues = 0; /* a blank line ends a continued keyword */
  if (d->line_state == L_STAR) {                     /* a line of "*" alone */
    d->kw_continues = 0, d->kw_len = 0;
    kw_add(d, '*');
  }
  if (d->line_state == L_STAR || d->line_state == L_KEYWORD) keyword_end(s);
  if (d->line_state == L_DATA) data_end(s);
  d->line_state = L_START;
}

/* The first byte of a line that is not white space. */
static void line_start(sz_inp *d, unsigned char c) {
  if (c == '*') {
    d->line_state = L_STAR;
  } else if (d->kw_continues) { /* more of the keyword line before */
    d->line_state = L_KEYWORD;
    kw_add(d, c);
  } else {
    d->line_state = L_DATA;
    d->fields = 1, d->last_field = 0;
    if (c == ',') d->fields = 2;
    if (c != ',') d->last_field = 1;
  }
}

static inline void data_byte(sz_inp *d, unsigned char c) {
  if (c == ',' && d->fields < INP_MAX_TOKENS)
    d->fields++;
  else if (c != ' ' && c != '\t' && c != '\r' && !isspace(c)) /* the last field keeps the rest */
    d->last_field = d->fields;
}

void dt_size_inp_feed(dt_size_scan *s, const unsigned char *p, size_t n) {
  sz_inp *d = &s->inp;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = p[i];
    if (c == '\n') {
      line_end(s);
      continue;
    }
    switch (d->line_state) {
    case L_START:
      if (!isspace(c)) line_start(d, c);
      break;
    case L_STAR:
      if (c == '*') { /* a comment; inside a continued keyword it is skipped */
        d->line_state = L_COMMENT;
        break;
      }
      d->line_state = L_KEYWORD, d->kw_continues = 0, d->kw_len = 0;
      kw_add(d, '*');
      kw_add(d, c);
      break;
    case L_KEYWORD: kw_add(d, c); break;
    case L_DATA: /* most of a deck: the rest of a data line, in this loop */
      for (; i < n && p[i] != '\n'; i++) data_byte(d, p[i]);
      i--;
      break;
    default: break; /* L_COMMENT */
    }
  }
}

void dt_size_inp_result(const dt_size_scan *s, dt_model_size *out) {
  dt_size_scan last;
  if (s->inp.line_state == L_START || s->inp.line_state == L_COMMENT) return;
  last = *s; /* a last line without its '\n' counts as the importer reads it */
  line_end(&last);
  *out = last.size;
}
