/* The .msh size scanner (size_scan.h): Gmsh 4.1 and 2.2, ASCII and binary, read as
 * import_gmsh_read.c reads them, without keeping any of it.
 *
 * The importer reads whitespace-separated tokens (any of " \t\r\n" ends one, wherever the
 * lines break) and, in a binary file, fixed-size fields; this scanner takes the same steps as
 * a push state machine: `want` says what the next bytes are (a token, a binary field, bytes or
 * tokens to skip, the "\n$End..." that ends a section the importer skips, a quoted physical
 * name), and `phase` where in which section the scanner is, so the step after each want is the
 * importer's next read. The $Nodes and $Elements headers give the counts as soon as they
 * arrive; the element blocks give the types. Where the importer would refuse the file (a bad
 * number, an unknown element type) the scanner stops: the import says what is wrong. */
#include <stdlib.h>
#include <string.h>

#include "import_gmsh_internal.h"
#include "size_scan_internal.h"

enum { W_TOKEN, W_BYTES, W_SKIP, W_SKIP_TOKENS, W_PATTERN, W_QUOTED, W_STOP };

enum {
  P_TOP, /* between sections: the next token names one */
  P_END, /* the section's $End token */
  P_FMT,
  P_FMT_ONE,
  P_PN_COUNT,
  P_PN_DIM,
  P_PN_TAG,
  P_PN_NAME,
  P_ENT_COUNT,
  P_ENT_TAG,
  P_ENT_BOX,
  P_ENT_NPHYS,
  P_ENT_PHYS,
  P_ENT_NBOUND,
  P_ENT_BOUND,
  P_N4_HDR,
  P_N4_BLOCK,
  P_N4_TAGS,
  P_N4_COORDS,
  P_N2_COUNT,
  P_N2_DATA,
  P_E4_HDR,
  P_E4_BLOCK,
  P_E4_DATA,
  P_E2_COUNT,
  P_E2_TAG,
  P_E2_TYPE,
  P_E2_NTAGS,
  P_E2_REST,
  P_E2B_HDR,
  P_E2B_DATA
};

/* Far more than any file the importer reads (it takes fewer than 2^31 nodes and elements):
 * a count beyond it is a file the importer refuses, and would overflow the byte counts. */
#define GM_COUNT_MAX ((int64_t)1 << 40)

static int is_sep(unsigned c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || !c; }

static uint64_t mul_sat(uint64_t a, uint64_t b) {
  return b != 0 && a > ((uint64_t)1 << 62) / b ? (uint64_t)1 << 62 : a * b;
}

static void want_token(sz_gmsh *g, int phase) {
  g->phase = phase;
  g->want = W_TOKEN;
  g->tok_len = 0;
}

/* An integer: a token, or in a binary file 4 bytes (8 for the size_t fields of 4.1). */
static void want_num(sz_gmsh *g, int phase, int size_t_sized) {
  g->phase = phase;
  if (!g->binary) {
    want_token(g, phase);
    return;
  }
  g->want = W_BYTES;
  g->bin_len = 0;
  g->bin_need = size_t_sized && g->version == 4 ? 8 : 4;
}

/* Skip count values: of size bytes each in a binary file, tokens in an ASCII one. */
static void want_skip(sz_gmsh *g, int phase, int64_t count, int size) {
  g->phase = phase;
  g->want = g->binary ? W_SKIP : W_SKIP_TOKENS;
  g->skip = mul_sat((uint64_t)count, (uint64_t)(g->binary ? size : 1));
  g->in_token = 0;
}

static void stop(sz_gmsh *g) { g->want = W_STOP; }

/* The integer just read (the token tok or the binary field); 0 when it is not one (the
 * importer refuses the file). */
static int value(const sz_gmsh *g, const char *tok, int64_t *v) {
  char *end = NULL;
  if (g->want == W_BYTES) {
    if (g->bin_need == 4) {
      int32_t i = 0;
      memcpy(&i, g->bin, 4);
      *v = i;
      return 1;
    } else {
      uint64_t u = 0;
      memcpy(&u, g->bin, 8);
      *v = (int64_t)u;
      return u < ((uint64_t)1 << 62);
    }
  }
  *v = strtoll(tok, &end, 10);
  return tok[0] != '\0' && *end == '\0';
}

static void count_elements(sz_gmsh *g, int64_t type, int64_t n) {
  int dim = 0, dt = -1;
  const char *name = NULL;
  g->npe = gm_type_info((int)type, &dim, &dt, &name);
  if (type != (int)type || g->npe == 0 || dim < 0 || dim > 3) {
    stop(g);
    return;
  }
  g->by_dim[dim] += n;
  if (dt >= 0) g->by_type[dim][dt] += n;
}

static void next_entity(sz_gmsh *g) {
  while (g->left == 0 && g->ent_dim < 3) g->left = g->ent_count[++g->ent_dim];
  if (g->left == 0)
    want_token(g, P_END);
  else
    want_num(g, P_ENT_TAG, 0);
}

static void next_node_block(sz_gmsh *g) {
  g->k = 0;
  if (g->left-- == 0)
    want_token(g, P_END);
  else
    want_num(g, P_N4_BLOCK, 0);
}

static void next_elem_block(sz_gmsh *g) {
  g->k = 0;
  if (g->left-- == 0)
    want_token(g, P_END);
  else
    want_num(g, P_E4_BLOCK, 0);
}

/* A binary 4.1 section's data starts right after its name, past one '\n' if there is one: the
 * token's terminator c was that '\n', or is already the first byte of the data (*again). */
static void section_data(sz_gmsh *g, unsigned c, int *again) {
  if (g->binary && g->version == 4 && c != '\n') *again = 1;
}

/* A section name (token t, ended by c). */
static void section(dt_size_scan *s, const char *t, unsigned c, int *again) {
  sz_gmsh *g = &s->gmsh;
  g->k = 0;
  if (t[0] != '$' || (!g->version && strcmp(t, "$MeshFormat") != 0)) {
    stop(g);
  } else if (!strcmp(t, "$MeshFormat")) {
    want_token(g, P_FMT);
  } else if (!strcmp(t, "$PhysicalNames")) {
    want_token(g, P_PN_COUNT);
  } else if (!strcmp(t, "$Entities") && g->version == 4) {
    section_data(g, c, again);
    want_num(g, P_ENT_COUNT, 1);
  } else if (!strcmp(t, "$Nodes")) {
    section_data(g, c, again);
    if (g->version == 4)
      want_num(g, P_N4_HDR, 1);
    else
      want_token(g, P_N2_COUNT);
  } else if (!strcmp(t, "$Elements")) {
    section_data(g, c, again);
    if (g->version == 4)
      want_num(g, P_E4_HDR, 1);
    else
      want_token(g, P_E2_COUNT);
  } else { /* skipped up to "\n$End<name>", which may start with the token's terminator */
    g->pat_len = snprintf(g->pattern, sizeof g->pattern, "\n$End%.70s", t + 1);
    g->pat_pos = c == '\n';
    g->want = W_PATTERN;
  }
}

static void mesh_format(sz_gmsh *g, const char *tok, unsigned c) {
  int64_t v = 0;
  if (g->k == 0) {
    double version = strtod(tok, NULL);
    g->version = version == 4.1 ? 4 : version == 2.2 ? 2 : 0;
    if (!g->version) stop(g);
  } else if (!value(g, tok, &v) || (g->k == 2 && v != 8)) {
    stop(g);
  } else if (g->k == 1) {
    g->binary = v == 1;
  }
  if (g->want == W_STOP) return;
  if (++g->k < 3) {
    want_token(g, P_FMT);
    return;
  }
  if (!g->binary) {
    want_token(g, P_END);
  } else if (c != '\n') {
    stop(g); /* the importer wants the binary marker right after the line */
  } else {
    g->want = W_BYTES, g->phase = P_FMT_ONE, g->bin_len = 0, g->bin_need = 4;
  }
}

static void entities(sz_gmsh *g, int64_t v) {
  switch (g->phase) {
  case P_ENT_COUNT:
    g->ent_count[g->k] = v;
    if (v < 0 || v > GM_COUNT_MAX) stop(g);
    if (g->want == W_STOP) break;
    if (++g->k < 4) {
      want_num(g, P_ENT_COUNT, 1);
      break;
    }
    g->ent_dim = 0;
    g->left = g->ent_count[0];
    next_entity(g);
    break;
  case P_ENT_TAG: want_skip(g, P_ENT_BOX, g->ent_dim == 0 ? 3 : 6, 8); break;
  case P_ENT_BOX: want_num(g, P_ENT_NPHYS, 1); break;
  case P_ENT_NPHYS:
    if (v < 0 || v >= 100000)
      stop(g);
    else
      want_skip(g, P_ENT_PHYS, v, 4);
    break;
  case P_ENT_PHYS:
    if (g->ent_dim > 0) {
      want_num(g, P_ENT_NBOUND, 1);
      break;
    }
    g->left--;
    next_entity(g);
    break;
  case P_ENT_NBOUND:
    if (v < 0 || v >= 100000000)
      stop(g);
    else
      want_skip(g, P_ENT_BOUND, v, 4);
    break;
  default: /* P_ENT_BOUND */ g->left--; next_entity(g);
  }
}

static void nodes(dt_size_scan *s, int64_t v) {
  sz_gmsh *g = &s->gmsh;
  switch (g->phase) {
  case P_N4_HDR:
    g->hdr[g->k] = v;
    if (v < 0 || v > GM_COUNT_MAX) stop(g);
    if (g->want == W_STOP) break;
    if (++g->k < 4) {
      want_num(g, P_N4_HDR, 1);
      break;
    }
    s->size.n_nodes += g->hdr[1];
    g->left = g->hdr[0];
    next_node_block(g);
    break;
  case P_N4_BLOCK:
    g->hdr[g->k] = v;
    if (++g->k < 4) {
      want_num(g, P_N4_BLOCK, g->k == 3);
      break;
    }
    /* a parametric block has dimension-many parameters after each node's coordinates */
    g->n = v, g->par = g->hdr[2] != 0 && g->hdr[0] > 0 ? g->hdr[0] : 0;
    if (v < 0 || v > GM_COUNT_MAX)
      stop(g);
    else
      want_skip(g, P_N4_TAGS, g->n, 8);
    break;
  case P_N4_TAGS:
    want_skip(g, P_N4_COORDS, (int64_t)mul_sat((uint64_t)g->n, 3u + (uint64_t)g->par), 8);
    break;
  case P_N4_COORDS: next_node_block(g); break;
  case P_N2_COUNT:
    if (v < 0 || v > GM_COUNT_MAX) {
      stop(g);
      break;
    }
    s->size.n_nodes += v;
    g->phase = P_N2_DATA, g->in_token = 0;
    g->want = g->binary ? W_SKIP : W_SKIP_TOKENS;
    g->skip = mul_sat((uint64_t)v, g->binary ? 28u : 4u); /* tag and x, y, z */
    break;
  default: /* P_N2_DATA */ want_token(g, P_END);
  }
}

static void elements_v4(dt_size_scan *s, int64_t v) {
  sz_gmsh *g = &s->gmsh;
  switch (g->phase) {
  case P_E4_HDR:
    g->hdr[g->k] = v;
    if (v < 0 || v > GM_COUNT_MAX) stop(g);
    if (g->want == W_STOP) break;
    if (++g->k < 4) {
      want_num(g, P_E4_HDR, 1);
      break;
    }
    s->size.n_elems += g->hdr[1];
    g->left = g->hdr[0];
    next_elem_block(g);
    break;
  case P_E4_BLOCK:
    g->hdr[g->k] = v;
    if (++g->k < 4) {
      want_num(g, P_E4_BLOCK, g->k == 3);
      break;
    }
    if (v < 0 || v > GM_COUNT_MAX) {
      stop(g);
      break;
    }
    count_elements(g, g->hdr[2], v);
    if (g->want != W_STOP)
      want_skip(g, P_E4_DATA, (int64_t)mul_sat((uint64_t)v, (uint64_t)(1 + g->npe)), 8);
    break;
  default: /* P_E4_DATA */ next_elem_block(g);
  }
}

static void elements_v2(dt_size_scan *s, int64_t v) {
  sz_gmsh *g = &s->gmsh;
  switch (g->phase) {
  case P_E2_COUNT:
    if (v < 0 || v > GM_COUNT_MAX) {
      stop(g);
      break;
    }
    s->size.n_elems += v;
    g->left = v;
    if (v == 0)
      want_token(g, P_END);
    else if (g->binary)
      g->want = W_BYTES, g->phase = P_E2B_HDR, g->bin_len = 0, g->bin_need = 12;
    else
      want_token(g, P_E2_TAG);
    break;
  case P_E2_TAG: want_token(g, P_E2_TYPE); break;
  case P_E2_TYPE:
    count_elements(g, v, 1);
    if (g->want != W_STOP) want_token(g, P_E2_NTAGS);
    break;
  case P_E2_NTAGS:
    if (v < 0 || v >= 64) {
      stop(g);
      break;
    }
    g->phase = P_E2_REST, g->want = W_SKIP_TOKENS, g->in_token = 0;
    g->skip = (uint64_t)(v + g->npe);
    break;
  case P_E2_REST:
  case P_E2B_DATA:
    if (--g->left > 0 && g->binary)
      g->want = W_BYTES, g->phase = P_E2B_HDR, g->bin_len = 0, g->bin_need = 12;
    else if (g->left > 0)
      want_token(g, P_E2_TAG);
    else
      want_token(g, P_END);
    break;
  default: { /* P_E2B_HDR: a block of one type: type, count, tags per element */
    int32_t hdr[3];
    memcpy(hdr, g->bin, sizeof hdr);
    if (hdr[1] <= 0 || hdr[1] > g->left || hdr[2] < 0 || hdr[2] >= 64) {
      stop(g);
      break;
    }
    count_elements(g, hdr[0], hdr[1]);
    if (g->want == W_STOP) break;
    g->left -= hdr[1] - 1; /* P_E2B_DATA counts the last one */
    g->phase = P_E2B_DATA, g->want = W_SKIP;
    g->skip = mul_sat((uint64_t)hdr[1], (uint64_t)(1 + hdr[2] + g->npe) * 4u);
  }
  }
}

/* The want is met: the importer's next step. c ended a token (0 otherwise); *again: c is
 * also the next want's first byte. */
static void next(dt_size_scan *s, unsigned c, int *again) {
  sz_gmsh *g = &s->gmsh;
  int64_t v = 0;
  char tok[64];
  int numeric = (g->want == W_TOKEN || g->want == W_BYTES) && g->phase != P_TOP &&
                g->phase != P_END && g->phase != P_FMT && g->phase != P_E2B_HDR;
  memcpy(tok, g->tok, (size_t)g->tok_len);
  tok[g->tok_len] = '\0';
  if (numeric && !value(g, tok, &v)) {
    stop(g);
    return;
  }
  g->tok_len = 0, g->bin_len = 0; /* taken: the same want again reads the next value */
  switch (g->phase) {
  case P_TOP: section(s, tok, c, again); break;
  case P_END: want_token(g, P_TOP); break;
  case P_FMT: mesh_format(g, tok, c); break;
  case P_FMT_ONE:
    if (v == 1)
      want_token(g, P_END);
    else
      stop(g); /* the other byte order: not supported */
    break;
  case P_PN_COUNT:
    if (v < 0 || v >= 1000000) {
      stop(g);
      break;
    }
    g->left = v;
    want_token(g, v ? P_PN_DIM : P_END);
    break;
  case P_PN_DIM: want_token(g, P_PN_TAG); break;
  case P_PN_TAG: g->phase = P_PN_NAME, g->want = W_QUOTED, g->k = 0; break;
  case P_PN_NAME: want_token(g, --g->left > 0 ? P_PN_DIM : P_END); break;
  case P_N4_HDR:
  case P_N4_BLOCK:
  case P_N4_TAGS:
  case P_N4_COORDS:
  case P_N2_COUNT:
  case P_N2_DATA: nodes(s, v); break;
  case P_E4_HDR:
  case P_E4_BLOCK:
  case P_E4_DATA: elements_v4(s, v); break;
  case P_E2_COUNT:
  case P_E2_TAG:
  case P_E2_TYPE:
  case P_E2_NTAGS:
  case P_E2_REST:
  case P_E2B_HDR:
  case P_E2B_DATA: elements_v2(s, v); break;
  default: entities(g, v);
  }
}

/* Wants of nothing (a block of no elements) are met at once. */
static void settle(dt_size_scan *s) {
  sz_gmsh *g = &s->gmsh;
  int again = 0;
  while ((g->want == W_SKIP || g->want == W_SKIP_TOKENS) && g->skip == 0) next(s, 0, &again);
}

/* Bytes at p[0..n) for the current want; the bytes it took. */
static size_t step(dt_size_scan *s, const unsigned char *p, size_t n) {
  sz_gmsh *g = &s->gmsh;
  size_t i = 0, take = 0;
  int again = 0;
  switch (g->want) {
  case W_TOKEN:
    for (; i < n && !is_sep(p[i]); i++)
      if (g->tok_len < 63) g->tok[g->tok_len++] = (char)p[i];
    if (i == n) return n;
    if (g->tok_len == 0) return 1; /* white space before the token */
    next(s, p[i], &again);
    return again ? i : i + 1;
  case W_BYTES:
    take = (size_t)(g->bin_need - g->bin_len) < n ? (size_t)(g->bin_need - g->bin_len) : n;
    memcpy(g->bin + g->bin_len, p, take);
    g->bin_len += (int)take;
    if (g->bin_len == g->bin_need) next(s, 0, &again);
    return take;
  case W_SKIP:
    take = g->skip < n ? (size_t)g->skip : n;
    g->skip -= take;
    if (g->skip == 0) next(s, 0, &again);
    return take;
  case W_SKIP_TOKENS:
    for (; i < n; i++) {
      if (!is_sep(p[i])) {
        g->in_token = 1;
      } else if (g->in_token) {
        g->in_token = 0;
        if (--g->skip == 0) {
          next(s, p[i], &again);
          return i + 1;
        }
      }
    }
    return n;
  case W_PATTERN:
    for (; i < n; i++) {
      if (p[i] == (unsigned char)g->pattern[g->pat_pos])
        g->pat_pos++;
      else
        g->pat_pos = p[i] == '\n';
      if (g->pat_pos == g->pat_len) {
        want_token(g, P_TOP);
        return i + 1;
      }
    }
    return n;
  case W_QUOTED: /* k: 0 before the opening quote, 1 inside */
    if (g->k == 0 && (p[0] == ' ' || p[0] == '\t' || p[0] == '\r')) return 1;
    if (g->k == 0 && p[0] == '"') {
      g->k = 1;
      return 1;
    }
    if (g->k == 0 || p[0] == '\n') {
      stop(g); /* no name, or an unterminated one: the importer refuses the file */
      return n;
    }
    if (p[0] == '"') next(s, 0, &again);
    return 1;
  default: return n; /* W_STOP */
  }
}

void dt_size_gmsh_feed(dt_size_scan *s, const unsigned char *p, size_t n) {
  while (n > 0 && s->gmsh.want != W_STOP) {
    size_t used = 0;
    settle(s);
    used = step(s, p, n);
    p += used, n -= used;
    settle(s);
  }
}

void dt_size_gmsh_result(const dt_size_scan *s, dt_model_size *out) {
  const sz_gmsh *g = &s->gmsh;
  int64_t blocks = 0;
  int dim = 0;
  for (int d = 0; d < 4; d++) {
    blocks += g->by_dim[d];
    if (g->by_dim[d] > 0) dim = d;
  }
  /* a block holds what it says whatever the header announced, and the importer reads it all
   * before it compares the two */
  if (blocks > out->n_elems) out->n_elems = blocks;
  memset(out->n_type, 0, sizeof out->n_type);
  out->dim = dim >= 2 ? dim : 0;
  if (dim >= 2) memcpy(out->n_type, g->by_type[dim], sizeof out->n_type);
}
