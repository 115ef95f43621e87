/* *RIGID BODY and *MPC (MEANROT): CalculiX's nonlinear multi-point constraints, read here and
 * lowered into linear equations once the steps are read (model_mpc.c says how and why).
 *
 *   *RIGID BODY, NSET=name | ELSET=name [, REF NODE=n] [, ROT NODE=n]
 * makes the set's nodes (an element set: its elements' nodes) move with node REF NODE and turn
 * by the displacement of node ROT NODE (CalculiX's convention). A node not given is generated
 * as CalculiX does: a new node, the reference node at the origin.
 *
 *   *MPC
 *   MEANROT, node, node, node, ..., angle node     (continued on further lines; node sets
 *                                                   may stand for nodes; 0 entries are skipped)
 * lists each node three times (its DOFs 1-3, as CalculiX assigns them) and ends with the angle
 * node: its coordinates give the axis, its DOF 1 the mean rotation. STRAIGHT, PLANE and BEAM
 * are refused: CalculiX switches on nonlinear geometry for them, which a small-strain step does
 * not have. */
#include <stdlib.h>
#include <string.h>

#include "import_inp_internal.h"

enum { NL_RIGID = 0, NL_MEANROT = 1 };

static dt_status add_def(inp *p, int rec, int kind, int *nodes, int n, int ref, int rot) {
  dt_status rc = DT_OK;
  inp_nlmpc *d;
  DT_TRY(dt_imp_reserve((void **)&p->nlmpc, &p->cap_nlmpc, (size_t)p->n_nlmpc + 1, sizeof *p->nlmpc,
                        p->ctx));
  d = &p->nlmpc[p->n_nlmpc++];
  d->rec = rec, d->kind = kind, d->nodes = nodes, d->n = n, d->ref = ref, d->rot = rot;
cleanup:
  return rc;
}

/* A node CalculiX generates for a rigid body: the next free id, at the origin. */
static dt_status new_node(inp *p, int rec, int *out) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  int64_t id = 0;
  const int i = m->n_nodes;
  for (int k = 0; k < m->n_nodes; k++)
    if (m->node_id[k] > id) id = m->node_id[k];
  DT_TRY(inp_node_slot(p, rec));
  m->node_id[i] = id + 1;
  m->n_nodes++;
  p->nodes_dirty = 1;
  *out = i;
cleanup:
  return rc;
}

static dt_status node_param(inp *p, inp_kw *kw, const char *key, const char *what, int *out) {
  dt_status rc = DT_OK;
  const char *v = inp_param(kw, key);
  int64_t id = 0;
  *out = -1;
  if (!v) return DT_OK;
  INP_CHECK(inp_is_int(v), p, kw->rec, "*RIGID BODY: %s must be a node number, got '%.40s'", what,
            v);
  DT_TRY(inp_int64(p, kw->rec, v, what, &id));
  DT_TRY(inp_node_index(p, kw->rec, id, out));
cleanup:
  return rc;
}

dt_status inp_rigid_body(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *nset = inp_param(kw, "NSET"), *elset = inp_param(kw, "ELSET");
  int ref = -1, rot = -1, s = -1, n = 0, *nodes = NULL, rec = 0, ntok = 0;
  char *tok[INP_MAX_TOKENS];
  DT_TRY(node_param(p, kw, "REFNODE", "REF NODE", &ref));
  DT_TRY(node_param(p, kw, "ROTNODE", "ROT NODE", &rot));
  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(!nset != !elset, p, kw->rec,
            "*RIGID BODY needs NSET= or ELSET= (one of them) to name the body's nodes");
  INP_CHECK(ref < 0 || ref != rot, p, kw->rec,
            "*RIGID BODY: REF NODE and ROT NODE must be different nodes");
  INP_CHECK(!inp_data(p, &rec, tok, &ntok), p, rec,
            "*RIGID BODY has no data lines (its nodes come from NSET= or ELSET=)");
  if (nset) {
    const dt_set *ns;
    DT_TRY(inp_get_nset(p, kw->rec, nset, 0, &s));
    INP_CHECK(s >= 0, p, kw->rec, "*RIGID BODY: unknown node set '%s'", nset);
    ns = &p->m->nsets[s];
    DT_ALLOC(nodes, (size_t)ns->n + 1, p->ctx, "rigid body nodes");
    for (int k = 0; k < ns->n; k++) nodes[n++] = ns->items[k];
  } else {
    const dt_set *es;
    const dt_model *m = p->m;
    size_t cnt = 0;
    DT_TRY(inp_get_elset(p, kw->rec, elset, 0, &s));
    INP_CHECK(s >= 0, p, kw->rec, "*RIGID BODY: unknown element set '%s'", elset);
    es = &m->elsets[s];
    for (int k = 0; k < es->n; k++)
      cnt += m->elem_ptr[es->items[k] + 1] - m->elem_ptr[es->items[k]];
    DT_ALLOC(nodes, cnt + 1, p->ctx, "rigid body nodes");
    for (int k = 0; k < es->n; k++)
      for (int j = m->elem_ptr[es->items[k]]; j < m->elem_ptr[es->items[k] + 1]; j++)
        nodes[n++] = m->conn[j];
  }
  INP_CHECK(n > 0, p, kw->rec, "*RIGID BODY: the set '%s' is empty", nset ? nset : elset);
  if (ref < 0) DT_TRY(new_node(p, kw->rec, &ref));
  if (rot < 0) DT_TRY(new_node(p, kw->rec, &rot));
  DT_TRY(add_def(p, kw->rec, NL_RIGID, nodes, n, ref, rot));
  nodes = NULL;
cleanup:
  dt_free(nodes);
  return rc;
}

/* The entries of an *MPC after its type: node ids and node sets, in order. */
static dt_status push_entry(inp *p, int rec, const char *tok, int **list, int *n, int *cap) {
  dt_status rc = DT_OK;
  int s = -1;
  if (inp_is_int(tok)) {
    int64_t id = 0;
    int node = 0;
    DT_TRY(inp_int64(p, rec, tok, "*MPC node", &id));
    if (id == 0) return DT_OK; /* CalculiX skips zero entries */
    DT_TRY(inp_node_index(p, rec, id, &node));
    DT_TRY(dt_imp_reserve((void **)list, cap, (size_t)*n + 1, sizeof **list, p->ctx));
    (*list)[(*n)++] = node;
    goto cleanup;
  }
  DT_TRY(inp_get_nset(p, rec, tok, 0, &s));
  INP_CHECK(s >= 0, p, rec, "*MPC: '%.40s' is neither a node number nor a node set", tok);
  for (int k = 0; k < p->m->nsets[s].n; k++) {
    DT_TRY(dt_imp_reserve((void **)list, cap, (size_t)*n + 1, sizeof **list, p->ctx));
    (*list)[(*n)++] = p->m->nsets[s].items[k];
  }
cleanup:
  return rc;
}

dt_status inp_mpc(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  char *tok[INP_MAX_TOKENS];
  int rec = 0, n = 0, first = -1, *list = NULL, n_list = 0, cap = 0, *nodes = NULL;
  char type[32] = "";
  DT_TRY(inp_params_done(p, kw));
  while (inp_data(p, &rec, tok, &n)) {
    int start = 0;
    if (first < 0) {
      first = rec;
      snprintf(type, sizeof type, "%s", tok[0]);
      for (char *c = type; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
      INP_CHECK(strcmp(type, "STRAIGHT") && strcmp(type, "PLANE") && strcmp(type, "BEAM"), p, rec,
                "*MPC: type %s is not supported: CalculiX switches on nonlinear geometry "
                "(NLGEOM) for it, which ductile's small-strain steps do not have (MEANROT is "
                "supported)",
                type);
      INP_CHECK(!strcmp(type, "MEANROT"), p, rec,
                "*MPC: type '%.20s' is not supported (MEANROT is; PLANE, STRAIGHT and BEAM need "
                "nonlinear geometry, user MPCs a user routine)",
                type);
      start = 1;
    }
    for (int k = start; k < n; k++)
      if (tok[k][0]) DT_TRY(push_entry(p, rec, tok[k], &list, &n_list, &cap));
  }
  INP_CHECK(first >= 0, p, kw->rec, "*MPC has no data line (expected 'MEANROT, nodes...')");
  INP_CHECK(n_list >= 4 && (n_list - 1) % 3 == 0, p, first,
            "*MPC MEANROT: expected each node three times (its DOFs 1-3) and the angle node "
            "last, i.e. 3 k + 1 entries, got %d",
            n_list);
  DT_ALLOC(nodes, (size_t)(n_list - 1) / 3 + 1, p->ctx, "mean rotation nodes");
  for (int k = 0; k + 1 < n_list; k += 3) {
    INP_CHECK(list[k] == list[k + 1] && list[k] == list[k + 2], p, first,
              "*MPC MEANROT: entries %d-%d name nodes %lld, %lld, %lld: each node is listed "
              "three times in a row (its DOFs 1-3)",
              k + 1, k + 3, (long long)p->m->node_id[list[k]],
              (long long)p->m->node_id[list[k + 1]], (long long)p->m->node_id[list[k + 2]]);
    nodes[k / 3] = list[k];
  }
  DT_TRY(add_def(p, first, NL_MEANROT, nodes, (n_list - 1) / 3, -1, list[n_list - 1]));
  nodes = NULL;
cleanup:
  dt_free(list);
  dt_free(nodes);
  return rc;
}

/* Each definition's equations, remembered at its line (for inp_equations_done's messages). */
dt_status inp_mpcs_done(inp *p) {
  dt_status rc = DT_OK;
  dt_ctx sub = {0};
  for (int i = 0; i < p->n_nlmpc; i++) {
    const inp_nlmpc *d = &p->nlmpc[i];
    int eq0 = p->m->eq.n, skipped = 0;
    dt_status r2 = d->kind == NL_RIGID
                       ? dt_model_add_rigid_body(p->m, d->nodes, d->n, d->ref, d->rot, &sub)
                       : dt_model_add_meanrot(p->m, d->nodes, d->n, d->rot, &skipped, &sub);
    if (r2 != DT_OK) {
      if (sub.code == DT_ERR_INPUT)
        return inp_error(p, d->rec, "%s: %s", d->kind == NL_RIGID ? "*RIGID BODY" : "*MPC",
                         sub.msg);
      return dt_error_set(p->ctx, sub.code, sub.file, sub.line, sub.func, "%s", sub.msg);
    }
    if (skipped)
      inp_warn(p, d->rec,
               "*MPC MEANROT: %d node(s) on the rotation axis through the nodes' centroid are "
               "left out of the mean rotation, as CalculiX leaves them out",
               skipped);
    DT_TRY(dt_imp_reserve((void **)&p->eq_rec, &p->cap_eq_rec, (size_t)p->m->eq.n + 1,
                          sizeof *p->eq_rec, p->ctx));
    for (int e = eq0; e < p->m->eq.n; e++) p->eq_rec[e] = d->rec;
  }
cleanup:
  return rc;
}

/* The rules of nodes no element uses (dt_model_check_isolated), an error at the line of the
 * *RIGID BODY or *MPC whose reference, rotation or angle node it names, else at the node's own
 * *NODE line. */
dt_status inp_isolated_nodes_check(inp *p) {
  dt_ctx sub = {0};
  int bad = -1;
  if (dt_model_check_isolated(p->m, &bad, &sub) == DT_OK) return DT_OK;
  for (int i = 0; sub.code == DT_ERR_INPUT && bad >= 0 && i < p->n_nlmpc; i++)
    if (p->nlmpc[i].ref == bad || p->nlmpc[i].rot == bad)
      return inp_error(p, p->nlmpc[i].rec, "%s: %s",
                       p->nlmpc[i].kind == NL_RIGID ? "*RIGID BODY" : "*MPC", sub.msg);
  if (sub.code == DT_ERR_INPUT && bad >= 0 && bad < p->m->n_nodes)
    return inp_error(p, p->node_rec[bad], "%s", sub.msg);
  return dt_error_set(p->ctx, sub.code, sub.file, sub.line, sub.func, "%s", sub.msg);
}

void inp_mpcs_free(inp *p) {
  for (int i = 0; i < p->n_nlmpc; i++) dt_free(p->nlmpc[i].nodes);
  dt_free(p->nlmpc);
  p->nlmpc = NULL;
  p->n_nlmpc = p->cap_nlmpc = 0;
}
