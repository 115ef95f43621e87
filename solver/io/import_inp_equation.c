/* *EQUATION: linear multi-point constraints of the deck (CalculiX/Abaqus syntax).
 *
 *   *EQUATION
 *   N                                    the number of terms, on a line of its own
 *   node, DOF, coefficient, node, ...    the terms, up to four per line, on as many lines as
 *                                        they take
 * means sum coefficient * u(node, DOF) = 0; the first term's DOF is the dependent one. Each
 * equation is checked on its lines (nodes, DOFs, numbers) and, once the deck is read, against
 * the rest of the model (dt_model_check_equations: boundary conditions, dependent DOFs,
 * cycles), where a message names the line of the equation at fault. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import_inp_internal.h"

/* One term from three tokens: the node (a node number: CalculiX's node sets are not read), the
 * DOF (1-3) and a finite coefficient. */
static dt_status read_term(inp *p, int rec, char **tok, int *node, int *dof, double *coef) {
  dt_status rc = DT_OK;
  int64_t id = 0, d = 0;
  INP_CHECK(inp_is_int(tok[0]), p, rec,
            "*EQUATION: expected a node number, got '%.40s' (node sets are not supported in "
            "equations)",
            tok[0]);
  DT_TRY(inp_int64(p, rec, tok[0], "*EQUATION node", &id));
  DT_TRY(inp_node_index(p, rec, id, node));
  DT_TRY(inp_int64(p, rec, tok[1], "*EQUATION DOF", &d));
  INP_CHECK(d >= 1 && d <= 3, p, rec,
            "*EQUATION: DOF %lld of node %lld is not supported (the displacements 1-3 are)",
            (long long)d, (long long)id);
  *dof = (int)d - 1;
  DT_TRY(inp_double(p, rec, tok[2], "*EQUATION coefficient", coef));
  INP_CHECK(isfinite(*coef), p, rec,
            "*EQUATION: the coefficient of node %lld, DOF %lld is not a "
            "finite number",
            (long long)id, (long long)d);
cleanup:
  return rc;
}

static dt_status remember_rec(inp *p, int rec) {
  dt_status rc = DT_OK;
  DT_TRY(dt_imp_reserve((void **)&p->eq_rec, &p->cap_eq_rec, (size_t)p->m->eq.n + 1,
                        sizeof *p->eq_rec, p->ctx));
  p->eq_rec[p->m->eq.n] = rec;
cleanup:
  return rc;
}

dt_status inp_equation(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, *node = NULL, *dof = NULL;
  int64_t n_terms = 0;
  double *coef = NULL;

  DT_TRY(inp_params_done(p, kw));
  while (inp_data(p, &rec, tok, &n)) {
    int head = rec, got = 0;
    INP_CHECK(n == 1, p, rec,
              "*EQUATION: expected the number of terms alone on a line, got %d values", n);
    DT_TRY(inp_int64(p, rec, tok[0], "*EQUATION number of terms", &n_terms));
    INP_CHECK(n_terms >= 1 && n_terms <= 100000, p, rec,
              "*EQUATION: the number of terms must be 1 to 100000 (got %lld)", (long long)n_terms);
    DT_ALLOC(node, n_terms, p->ctx, "equation terms");
    DT_ALLOC(dof, n_terms, p->ctx, "equation terms");
    DT_ALLOC(coef, n_terms, p->ctx, "equation terms");
    while (got < n_terms) {
      INP_CHECK(inp_data(p, &rec, tok, &n), p, head,
                "*EQUATION: %lld terms announced, %d found (the data ends)", (long long)n_terms,
                got);
      INP_CHECK(n % 3 == 0 && n > 0 && n <= 12 && got + n / 3 <= n_terms, p, rec,
                "*EQUATION: expected up to 4 terms 'node, DOF, coefficient' on a line, %lld in "
                "all (%d read before this line), got %d values",
                (long long)n_terms, got, n);
      for (int t = 0; t < n / 3; t++, got++)
        DT_TRY(read_term(p, rec, tok + 3 * t, &node[got], &dof[got], &coef[got]));
    }
    DT_TRY(remember_rec(p, head));
    DT_TRY(dt_model_add_equation(p->m, (int)n_terms, node, dof, coef, p->ctx));
    dt_free(node), dt_free(dof), dt_free(coef);
    node = dof = NULL, coef = NULL;
  }
cleanup:
  dt_free(node);
  dt_free(dof);
  dt_free(coef);
  return rc;
}

dt_status inp_equations_done(inp *p) {
  dt_status rc = DT_OK;
  dt_ctx sub = {0};
  int bad = -1;
  if (p->m->eq.n == 0 || dt_model_check_equations(p->m, &bad, &sub) == DT_OK) return DT_OK;
  if (sub.code == DT_ERR_INPUT && bad >= 0 && bad < p->m->eq.n)
    return inp_error(p, p->eq_rec[bad], "*EQUATION: %s", sub.msg);
  rc = dt_error_set(p->ctx, sub.code, sub.file, sub.line, sub.func, "%s", sub.msg);
  return rc;
}
