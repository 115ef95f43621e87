/* *TIE and node surfaces of the deck (CalculiX 2.20's syntax for static solid models).
 *
 *   *SURFACE, NAME=Ndep, TYPE=NODE       a node surface: one node set or node number a line
 *   dep
 *   *TIE, NAME=T1 [, POSITION TOLERANCE=d] [, ADJUST=YES|NO]
 *   slave, master                        the slave: a node surface or an element-face surface;
 *                                        the master: an element-face surface
 *
 * A node surface is kept as the node set "_NS_<name>" (deck names carry no such prefix, and
 * element-face surfaces live in the model's surfaces). As in CalculiX a node surface and an
 * element-face surface may share a name; a tie's slave is then the element-face one
 * (identifytiedface.f looks for it first). The ties are lowered into equations once
 * the whole deck is read (dt_model_lower_ties, model_tie.c), after the *TRANSFORMs have been
 * rewritten in global DOFs, so that each tie equation is written in global directions. The
 * variants of *TIE for cyclic symmetry, fluids and multistage models are refused. */
#include <stdio.h>
#include <string.h>

#include "import_inp_internal.h"

#define NODE_SURFACE_PREFIX "_NS_"

static void node_surface_set_name(char out[DT_NAME_MAX], const char *name) {
  snprintf(out, DT_NAME_MAX, NODE_SURFACE_PREFIX "%.*s", (int)(DT_NAME_MAX - 5), name);
}

dt_status inp_node_surface(inp *p, inp_kw *kw, const char *name) {
  dt_status rc = DT_OK;
  char set_name[DT_NAME_MAX], up[DT_NAME_MAX], *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, set = -1;

  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(!dt_imp_name_upper(up, name), p, kw->rec, "surface names must have 1 to %d characters",
            DT_NAME_MAX - 1);
  node_surface_set_name(set_name, up);
  DT_TRY(inp_get_nset(p, kw->rec, set_name, 1, &set));
  while (inp_data(p, &rec, tok, &n)) {
    int from = -1;
    const dt_set *src = NULL;
    INP_CHECK(n == 1, p, rec,
              "*SURFACE, TYPE=NODE: expected one node set or node number per line, got %d "
              "values (CalculiX reads the first one only)",
              n);
    DT_TRY(inp_target_nset(p, rec, tok[0], &from));
    src = &p->m->nsets[from];
    for (int i = 0; i < src->n; i++)
      DT_TRY(dt_imp_set_add(&p->m->nsets[set], &p->nset_cap[set], src->items[i], p->ctx));
  }
cleanup:
  return rc;
}

/* The slave side of a tie: an element-face surface (*slave_surface) or a node surface
 * (*slave_nset). */
static dt_status tie_slave(inp *p, int rec, const char *name, int *slave_surface, int *slave_nset) {
  dt_status rc = DT_OK;
  char up[DT_NAME_MAX], set_name[DT_NAME_MAX];
  *slave_surface = *slave_nset = -1;
  INP_CHECK(!dt_imp_name_upper(up, name), p, rec, "surface names must have 1 to %d characters",
            DT_NAME_MAX - 1);
  DT_TRY(inp_get_surface(p, rec, up, 0, slave_surface));
  if (*slave_surface >= 0 && p->m->surfaces[*slave_surface].n > 0) goto cleanup;
  *slave_surface = -1;
  node_surface_set_name(set_name, up);
  DT_TRY(inp_get_nset(p, rec, set_name, 0, slave_nset));
  INP_CHECK(*slave_nset >= 0, p, rec,
            "*TIE: unknown slave surface '%s' (define it with *SURFACE, TYPE=NODE or "
            "TYPE=ELEMENT before the *TIE)",
            name);
cleanup:
  return rc;
}

dt_status inp_tie(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *name = inp_param(kw, "NAME"), *tol = inp_param(kw, "POSITIONTOLERANCE"),
             *adjust = inp_param(kw, "ADJUST");
  static const char *const refused[][2] = {{"CYCLICSYMMETRY", "CYCLIC SYMMETRY"},
                                           {"MULTISTAGE", "MULTISTAGE"},
                                           {"FLUIDCYCLIC", "FLUID CYCLIC"},
                                           {"FLUIDPERIODIC", "FLUID PERIODIC"},
                                           {"TIED", "TIED"}};
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, lines = 0;
  dt_tie t;

  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    INP_CHECK(!inp_param(kw, refused[i][0]), p, kw->rec,
              "*TIE, %s is not supported (ductile ties surfaces of static solid models: *TIE, "
              "NAME=, POSITION TOLERANCE=, ADJUST=)",
              refused[i][1]);
  INP_CHECK(name && name[0], p, kw->rec, "*TIE needs NAME=<name>");
  memset(&t, 0, sizeof t);
  snprintf(t.name, sizeof t.name, "%.*s", (int)sizeof t.name - 1, name);
  t.adjust = 1;
  if (tol) {
    DT_TRY(inp_double(p, kw->rec, tol, "*TIE POSITION TOLERANCE", &t.tolerance));
    INP_CHECK(t.tolerance > 0, p, kw->rec,
              "*TIE: POSITION TOLERANCE must be a positive distance (got %g)", t.tolerance);
  }
  if (adjust) {
    INP_CHECK(inp_eq(adjust, "YES") || inp_eq(adjust, "NO"), p, kw->rec,
              "*TIE: ADJUST must be YES or NO (got '%s')", adjust);
    t.adjust = inp_eq(adjust, "YES");
  }
  DT_TRY(inp_params_done(p, kw));
  while (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(++lines == 1, p, rec,
              "*TIE: one line 'slave surface, master surface' per *TIE (CalculiX reads one)");
    INP_CHECK(n == 2, p, rec, "*TIE: expected 'slave surface, master surface', got %d values", n);
    DT_TRY(tie_slave(p, rec, tok[0], &t.slave_surface, &t.slave_nset));
    DT_TRY(inp_get_surface(p, rec, tok[1], 0, &t.master));
    INP_CHECK(t.master >= 0 && p->m->surfaces[t.master].n > 0, p, rec,
              "*TIE: unknown master surface '%s' (the master is an element-face surface: "
              "*SURFACE, TYPE=ELEMENT)",
              tok[1]);
  }
  INP_CHECK(lines == 1, p, kw->rec, "*TIE needs a data line 'slave surface, master surface'");
  DT_TRY(dt_imp_reserve((void **)&p->tie_rec, &p->cap_tie_rec, (size_t)p->m->n_ties + 1,
                        sizeof *p->tie_rec, p->ctx));
  p->tie_rec[p->m->n_ties] = kw->rec;
  DT_TRY(dt_model_add_tie(p->m, &t, p->ctx));
cleanup:
  return rc;
}

static void tie_warn(void *arg, const char *msg) { inp_warn((inp *)arg, -1, "*TIE: %s", msg); }

dt_status inp_ties_done(inp *p) {
  dt_ctx sub = {0};
  int bad = -1;
  if (p->m->n_ties == 0 || dt_model_lower_ties(p->m, tie_warn, p, &bad, &sub) == DT_OK)
    return DT_OK;
  if (sub.code == DT_ERR_INPUT)
    return inp_error(p, p->tie_rec[bad >= 0 ? bad : 0], "*TIE %s: %s",
                     p->m->ties[bad >= 0 ? bad : 0].name, sub.msg);
  return dt_error_set(p->ctx, sub.code, sub.file, sub.line, sub.func, "%s", sub.msg);
}
