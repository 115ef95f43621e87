/* *END STEP: the propagated Abaqus state (import_inp_step.c) written out as the step's
 * complete lists of boundary conditions and loads.
 *
 * Gravity becomes a body force rho * g per element, a centrifugal load rho * omega^2 r_perp:
 * where the loaded element set spans several sections (materials), it is split into one body
 * force per section, on the intersection. */
#include <stdio.h>
#include <string.h>

#include "import_inp_internal.h"

/* Elements of `a` that section s covers, as a set "_G<a>_<s>" (or `a` itself when it is wholly
 * inside the section). *out -1 when they share no element. */
static dt_status intersect(inp *p, int rec, int a, int s, int *out) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  const dt_set *sec = &m->elsets[m->sections[s].elset];
  unsigned char *in = NULL;
  char name[DT_NAME_MAX];
  int count = 0, set = -1;

  *out = -1;
  DT_ALLOC(in, m->n_elems, p->ctx, "element flags");
  for (int i = 0; i < sec->n; i++) in[sec->items[i]] = 1;
  for (int i = 0; i < m->elsets[a].n; i++) count += in[m->elsets[a].items[i]];
  if (count == 0) goto cleanup;
  if (count == m->elsets[a].n) {
    *out = a;
    goto cleanup;
  }
  snprintf(name, sizeof name, "_G%.50s_%d", m->elsets[a].name, s);
  DT_TRY(inp_get_elset(p, rec, name, 1, &set));
  if (m->elsets[set].n == 0) {
    int cap = 0;
    for (int i = 0; i < m->elsets[a].n; i++)
      if (in[m->elsets[a].items[i]])
        DT_TRY(dt_imp_set_add(&m->elsets[set], &cap, m->elsets[a].items[i], p->ctx));
    p->elset_cap[set] = cap;
  }
  *out = set;
cleanup:
  dt_free(in);
  return rc;
}

static dt_status write_body(inp *p, int rec, dt_step *st) {
  dt_status rc = DT_OK;
  dt_model *m = p->m;
  int n = 0, set = -1;

  DT_ALLOC(st->body, (size_t)p->n_gr * (size_t)(m->n_sections ? m->n_sections : 1), p->ctx,
           "body forces");
  for (int i = 0; i < p->n_gr; i++)
    for (int s = 0; s < m->n_sections; s++) {
      double rho = m->materials[m->sections[s].material].density;
      DT_TRY(intersect(p, rec, p->gr[i].elset, s, &set));
      if (set < 0) continue;
      INP_CHECK(rho > 0, p, rec, "*DLOAD %s on element set %s: material %s has no *DENSITY",
                p->gr[i].centrif ? "CENTRIF" : "GRAV", m->elsets[p->gr[i].elset].name,
                m->materials[m->sections[s].material].name);
      memset(&st->body[n], 0, sizeof st->body[n]);
      st->body[n].elset = set;
      for (int k = 0; k < 3; k++) st->body[n].b[k] = rho * p->gr[i].g[k];
      st->body[n].spin = p->gr[i].centrif ? rho * p->gr[i].omega2 : 0.0;
      for (int k = 0; k < 3; k++)
        st->body[n].axis_point[k] = p->gr[i].point[k], st->body[n].axis[k] = p->gr[i].axis[k];
      n++;
    }
  st->n_body = n;
cleanup:
  return rc;
}

/* *DLOAD PxNP: CalculiX takes the pressure from DOF 2 of the named node, the pressure DOF of a
 * fluid network node; in a mechanical analysis that is the value a *BOUNDARY of the step gives
 * it (tempload.f: xbounact of the node's DOF 2). Without one CalculiX applies no pressure, which
 * in a mechanical deck is surely a mistake: refused. */
static dt_status node_pressure(inp *p, const inp_press *pr, double *out) {
  dt_status rc = DT_OK;
  const dt_model *m = p->m;
  int found = -1;
  for (int i = 0; i < p->n_bc; i++) {
    const dt_set *ns = &m->nsets[p->bc[i].nset];
    if (p->bc[i].dof != 1) continue;
    for (int k = 0; k < ns->n; k++)
      if (ns->items[k] == pr->np_node) found = i;
  }
  INP_CHECK(found >= 0, p, pr->np_rec,
            "*DLOAD PxNP: node %lld has no *BOUNDARY on DOF 2 in this step; CalculiX takes the "
            "pressure of a PxNP load from it (the node's pressure DOF)",
            (long long)m->node_id[pr->np_node]);
  INP_CHECK(!p->bc[found].hold, p, pr->np_rec,
            "*DLOAD PxNP: the *BOUNDARY on DOF 2 of node %lld is FIXED; give the pressure as a "
            "value",
            (long long)m->node_id[pr->np_node]);
  *out = p->bc[found].value;
cleanup:
  return rc;
}

static dt_status write_step(inp *p, int rec, dt_step *st) {
  dt_status rc = DT_OK;
  int nc = 0;

  DT_ALLOC(st->bc, p->n_bc, p->ctx, "boundary conditions");
  for (int i = 0; i < p->n_bc; i++) { /* a rotation (dof 3-5, shells) is fixed: value 0 */
    st->bc[i].nset = p->bc[i].nset;
    st->bc[i].dofs = 1u << p->bc[i].dof;
    if (p->bc[i].dof < 3) st->bc[i].value[p->bc[i].dof] = p->bc[i].value;
    st->bc[i].hold = p->bc[i].hold ? st->bc[i].dofs : 0u;
    st->bc[i].velocity = p->bc[i].velocity;
  }
  st->n_bc = p->n_bc;
  DT_ALLOC(st->cload, p->n_cl, p->ctx, "forces");
  for (int i = 0; i < p->n_cl; i++) { /* one force per node set, components merged */
    int j = 0;
    for (j = 0; j < nc && st->cload[j].nset != p->cl[i].nset; j++) continue;
    if (j == nc) st->cload[nc++].nset = p->cl[i].nset;
    st->cload[j].f[p->cl[i].dof] = p->cl[i].value;
  }
  st->n_cload = nc;
  DT_ALLOC(st->pressure, p->n_pr, p->ctx, "pressures");
  for (int i = 0; i < p->n_pr; i++) {
    st->pressure[i].surface = p->pr[i].surface, st->pressure[i].p = p->pr[i].value;
    if (p->pr[i].np_node >= 0) DT_TRY(node_pressure(p, &p->pr[i], &st->pressure[i].p));
  }
  st->n_pressure = p->n_pr;
  DT_TRY(write_body(p, rec, st));
cleanup:
  return rc;
}

dt_status inp_end_step(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;

  INP_CHECK(p->step_rec >= 0, p, kw->rec, "*END STEP without a *STEP");
  DT_TRY(inp_params_done(p, kw));
  INP_CHECK(p->step_has_procedure, p, p->step_rec,
            "*STEP has no procedure: add *STATIC or *DYNAMIC, EXPLICIT (the analysis procedures "
            "supported)");
  DT_TRY(write_step(p, kw->rec, &p->m->steps[p->m->n_steps - 1]));
  DT_TRY(inp_explicit_step_end(p, kw->rec, &p->m->steps[p->m->n_steps - 1]));
  p->step_rec = -1;
cleanup:
  return rc;
}

void inp_state_free(inp *p) {
  DT_FREE(p->bc);
  DT_FREE(p->cl);
  DT_FREE(p->pr);
  DT_FREE(p->gr);
  p->n_bc = p->n_cl = p->n_pr = p->n_gr = 0;
}
