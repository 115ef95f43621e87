/* *INITIAL CONDITIONS, TYPE=STRESS and TYPE=PLASTIC STRAIN in decks, as CalculiX 2.20 reads
 * them: data lines "element, integration point, s11, s22, s33, s12, s13, s23" (components
 * missing at the end are 0; plastic strains with tensor shears, eps12), each the value at one
 * point of one element. TYPE=STRESS, USER asks CalculiX's user routine sigini for the stress
 * at every integration point; ductile links no user routines and gives what the sigini that
 * CalculiX 2.20 ships returns: s11 = s22 = s33 = -100 y at the point's coordinates, no shear
 * (the suite's resstress2 and resstress3 are computed with it). CalculiX keeps both types in
 * one array, so a deck with both is refused rather than read one way or the other. */
#include <string.h>

#include "element/element.h"
#include "import_inp_internal.h"

/* "PLASTIC STRAIN" however the deck spaces it (CalculiX drops the blanks of a keyword line). */
static int is_plastic_strain(const char *type) {
  char t[32];
  size_t n = 0;
  for (; *type && n + 1 < sizeof t; type++)
    if (*type != ' ') t[n++] = *type;
  t[n] = '\0';
  return inp_eq(t, "PLASTICSTRAIN");
}

int inp_initial_state_type(const char *type) {
  if (!type) return -1;
  if (inp_eq(type, "STRESS")) return DT_INITIAL_STRESS;
  if (is_plastic_strain(type)) return DT_INITIAL_PLASTIC_STRAIN;
  return -1;
}

dt_status inp_initial_states(inp *p, inp_kw *kw, int kind) {
  dt_status rc = DT_OK;
  const char *user = kind == DT_INITIAL_STRESS ? inp_param(kw, "USER") : NULL;
  const char *what = kind == DT_INITIAL_STRESS ? "STRESS" : "PLASTIC STRAIN";
  char *tok[INP_MAX_TOKENS];
  int rec = kw->rec, n = 0, e = -1;
  int64_t id = 0, pt = 0;
  dt_initial_state s;

  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(p->istate_rec[1 - kind] < 0, p, kw->rec,
            "*INITIAL CONDITIONS: TYPE=STRESS and TYPE=PLASTIC STRAIN in one deck are not "
            "supported (CalculiX keeps one array for both); the other is at line %d",
            p->recs[p->istate_rec[1 - kind]].line);
  if (p->istate_rec[kind] < 0) p->istate_rec[kind] = kw->rec;
  if (user) { /* CalculiX 2.20's own sigini, at every point of every element */
    INP_CHECK(user[0] == '\0', p, kw->rec, "*INITIAL CONDITIONS: USER takes no value");
    memset(&s, 0, sizeof s);
    s.kind = DT_INITIAL_STRESS;
    s.elset = s.elem = s.point = -1;
    for (int c = 0; c < 3; c++) s.grad[c][1] = -100.0;
    DT_TRY(dt_model_add_initial_state(p->m, &s, p->ctx));
    INP_CHECK(!inp_data(p, &rec, tok, &n), p, rec,
              "*INITIAL CONDITIONS, TYPE=STRESS, USER takes no data lines");
    goto cleanup;
  }
  while (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(n >= 2 && n <= 8, p, rec,
              "*INITIAL CONDITIONS, TYPE=%s: expected 'element, integration point, s11, s22, "
              "s33, s12, s13, s23', got %d values",
              what, n);
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.elset = -1;
    DT_TRY(inp_int64(p, rec, tok[0], "*INITIAL CONDITIONS element", &id));
    DT_TRY(inp_elem_index(p, rec, id, &e));
    INP_CHECK(p->m->elem_type[e] < DT_ELEM_NCONTINUUM, p, rec,
              "*INITIAL CONDITIONS, TYPE=%s: element %lld is a shell; ductile takes initial "
              "conditions on continuum elements only",
              what, (long long)id);
    INP_CHECK(dt_elem_dim(p->m->elem_type[e]) == 3, p, rec,
              "*INITIAL CONDITIONS, TYPE=%s: element %lld is two-dimensional; CalculiX numbers "
              "the points of the 3D element it expands it into, which ductile does not map",
              what, (long long)id);
    DT_TRY(inp_int64(p, rec, tok[1], "*INITIAL CONDITIONS integration point", &pt));
    INP_CHECK(pt >= 1 && pt <= dt_elem_nqp(p->m->elem_type[e]), p, rec,
              "*INITIAL CONDITIONS, TYPE=%s: element %lld has no integration point %lld (it has "
              "%d)",
              what, (long long)id, (long long)pt, dt_elem_nqp(p->m->elem_type[e]));
    s.elem = e;
    s.point = (int)pt - 1;
    for (int c = 0; c + 2 < n; c++)
      DT_TRY(inp_double(p, rec, tok[c + 2], "*INITIAL CONDITIONS value", &s.value[c]));
    DT_TRY(dt_model_add_initial_state(p->m, &s, p->ctx));
  }
cleanup:
  return rc;
}
