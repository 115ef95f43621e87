/* *TRANSFORM: local nodal coordinate systems of the deck (CalculiX/Abaqus syntax).
 *
 *   *TRANSFORM, NSET=name [, TYPE=R | C]
 *   a1, a2, a3, b1, b2, b3
 * TYPE=R (the default): local x along a, local y in the plane of a and b. TYPE=C: a and b are
 * two points of the axis; local x radial, y tangential, z along the axis from a to b. The
 * geometry is checked on its line; once the deck is read, dt_model_lower_transforms rewrites
 * the boundary conditions, loads and equations of the transformed nodes in global DOFs, and an
 * error there names the line of the first *TRANSFORM. */
#include <string.h>

#include "import_inp_internal.h"

dt_status inp_transform(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  const char *name = inp_param(kw, "NSET"), *type = inp_param(kw, "TYPE");
  int rec = kw->rec, n = 0, set = -1, lines = 0;
  double v[6];
  dt_transform_kind kind = DT_TRANSFORM_RECT;
  dt_ctx sub = {0};

  INP_CHECK(name && name[0], p, kw->rec, "*TRANSFORM needs NSET=<node set>");
  INP_CHECK(!type || inp_eq(type, "R") || inp_eq(type, "C"), p, kw->rec,
            "*TRANSFORM: TYPE=%.20s is not supported (R, rectangular, or C, cylindrical)", type);
  if (type && inp_eq(type, "C")) kind = DT_TRANSFORM_CYL;
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(inp_get_nset(p, kw->rec, name, 0, &set));
  INP_CHECK(set >= 0, p, kw->rec, "*TRANSFORM: unknown node set '%s'", name);
  while (inp_data(p, &rec, tok, &n)) {
    INP_CHECK(lines++ == 0, p, rec, "*TRANSFORM takes one data line (a1,a2,a3,b1,b2,b3)");
    INP_CHECK(n == 6, p, rec, "*TRANSFORM: expected 6 values a1,a2,a3,b1,b2,b3, got %d", n);
    for (int k = 0; k < 6; k++) DT_TRY(inp_double(p, rec, tok[k], "*TRANSFORM value", &v[k]));
    DT_TRY(dt_model_add_transform(p->m, set, kind, v, v + 3, p->ctx));
    if (dt_model_check_transform(p->m, p->m->n_transforms - 1, &sub) != DT_OK)
      DT_TRY(inp_error(p, rec, "*TRANSFORM: %s", sub.msg));
  }
  INP_CHECK(lines == 1, p, kw->rec, "*TRANSFORM needs a data line a1,a2,a3,b1,b2,b3");
  if (p->transform_rec < 0) p->transform_rec = kw->rec;
cleanup:
  return rc;
}

dt_status inp_transforms_done(inp *p) {
  dt_ctx sub = {0};
  if (p->m->n_transforms == 0 || dt_model_lower_transforms(p->m, &sub) == DT_OK) return DT_OK;
  if (sub.code == DT_ERR_INPUT) return inp_error(p, p->transform_rec, "*TRANSFORM: %s", sub.msg);
  return dt_error_set(p->ctx, sub.code, sub.file, sub.line, sub.func, "%s", sub.msg);
}
