/* *SUBMODEL and *BOUNDARY, SUBMODEL: a submodel's driven nodes take their displacements from the
 * global model's results, as ccx 2.20 does.
 *
 * *SUBMODEL, TYPE=NODE, INPUT=global.frd (model data) names the global model's result file
 * (relative to the folder of the file holding the line, as *INCLUDE) and, on its data lines, the
 * driven nodes (node sets or ids). *BOUNDARY, SUBMODEL, STEP=n (in a step), with data lines
 * "node set, first DOF, last DOF", prescribes at each of those nodes the displacement of the
 * global model's step n (its last increment's DISP block) interpolated at the node's position:
 * the node is located in the global mesh (the elements whose bounding boxes hold it, found
 * through a uniform grid of cells, then Newton's method for the element's local coordinates xi
 * with x(xi) = sum_a N_a(xi) X_a), and u = sum_a N_a(xi) u_a. A node farther outside every
 * global element than DT_SUBMODEL_XI_TOL in local coordinates is an error naming it.
 *
 * The prescribed values become boundary conditions of one-node sets (_N<id>), the importer's
 * usual form, so they carry from step to step and take OP=NEW like any *BOUNDARY; they are
 * made and found through per-node and per-set tables, not searched for by name, so the work
 * grows linearly with the driven nodes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "element/element.h"
#include "frd_read.h"
#include "import_inp_internal.h"

/* How far outside an element's reference domain a node may lie and still be interpolated from
 * it (a distance in local coordinates: 0.01 is 0.5 % of a hexahedron's edge): nodes of a
 * submodel's boundary lie on the global model's faces up to the geometry's rounding. */
#define DT_SUBMODEL_XI_TOL 1e-2
#define DT_SUBMODEL_NEWTON_ITERS 30

struct inp_global {
  int rec;              /* its *SUBMODEL line */
  char *path;           /* the global result file */
  int n_sets, cap_sets; /* driven node sets */
  int *sets;            /* node set indices */
  dt_frd_file *frd;     /* read at the first *BOUNDARY, SUBMODEL that needs it */
  /* The search grid over frd's 3D elements: cell c holds cell_elem[cell_ptr[c] ..
   * cell_ptr[c + 1]), the elements whose (slightly widened) bounding boxes reach into it. */
  double lo[3], h[3];
  int nc[3];
  int *cell_ptr, *cell_elem;
  double *box; /* 6 per element: min xyz, max xyz (widened) */
};

static void submodel_free(inp_global *s) {
  dt_free(s->path);
  dt_free(s->sets);
  dt_frd_destroy(&s->frd);
  dt_free(s->cell_ptr);
  dt_free(s->cell_elem);
  dt_free(s->box);
}

void inp_submodels_free(inp *p) {
  for (int i = 0; i < p->n_subs; i++) submodel_free(&p->subs[i]);
  DT_FREE(p->subs);
  p->n_subs = p->cap_subs = 0;
}

/* INPUT= relative to the folder of the file holding record rec (absolute paths as they are). */
static dt_status resolve_path(inp *p, int rec, const char *name, char **out) {
  dt_status rc = DT_OK;
  const char *cur = p->files[p->recs[rec].file], *slash = strrchr(cur, '/');
  size_t dir = (name[0] != '/' && slash) ? (size_t)(slash - cur + 1) : 0;
  DT_ALLOC(*out, dir + strlen(name) + 1, p->ctx, "a file name");
  memcpy(*out, cur, dir);
  memcpy(*out + dir, name, strlen(name) + 1);
cleanup:
  return rc;
}

dt_status inp_submodel(inp *p, inp_kw *kw) {
  dt_status rc = DT_OK;
  const char *type = inp_param(kw, "TYPE"), *input = inp_param(kw, "INPUT"),
             *gset = inp_param(kw, "GLOBALELSET");
  char *tok[INP_MAX_TOKENS];
  inp_global *s = NULL;
  int rec = kw->rec, n = 0, set = -1;

  INP_CHECK(type && inp_eq(type, "NODE"), p, kw->rec,
            "*SUBMODEL: TYPE=%s is not supported (TYPE=NODE: driven nodes)", type ? type : "");
  INP_CHECK(input && input[0], p, kw->rec,
            "*SUBMODEL needs INPUT=<the global model's .frd result file>");
  INP_CHECK(!gset, p, kw->rec,
            "*SUBMODEL: GLOBAL ELSET= is not supported (ductile searches all of the global "
            "model's elements)");
  DT_TRY(inp_params_done(p, kw));
  DT_TRY(dt_imp_reserve((void **)&p->subs, &p->cap_subs, (size_t)p->n_subs + 1, sizeof *p->subs,
                        p->ctx));
  s = &p->subs[p->n_subs++];
  memset(s, 0, sizeof *s);
  s->rec = kw->rec;
  DT_TRY(resolve_path(p, kw->rec, input, &s->path));
  while (inp_data(p, &rec, tok, &n))
    for (int i = 0; i < n; i++) {
      if (!tok[i][0]) continue;
      DT_TRY(inp_target_nset(p, rec, tok[i], &set));
      DT_TRY(dt_imp_reserve((void **)&s->sets, &s->cap_sets, (size_t)s->n_sets + 1, sizeof *s->sets,
                            p->ctx));
      s->sets[s->n_sets++] = set;
    }
  INP_CHECK(s->n_sets > 0, p, kw->rec, "*SUBMODEL needs data lines naming the driven nodes");
cleanup:
  return rc;
}

/* The elements' widened bounding boxes and the grid (about one element per cell). */
static dt_status build_grid(inp *p, inp_global *s) {
  dt_status rc = DT_OK;
  const dt_frd_file *f = s->frd;
  double hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL}, vol = 1.0;
  int n3 = 0, total = 0, *fill = NULL;
  s->lo[0] = s->lo[1] = s->lo[2] = HUGE_VAL;
  DT_ALLOC(s->box, 6 * (size_t)f->n_elems, p->ctx, "element boxes");
  for (int e = 0; e < f->n_elems; e++) {
    double *b = s->box + 6 * e, pad = 0;
    if (dt_elem_dim(f->elem_type[e]) != 3) continue;
    n3++;
    for (int k = 0; k < 3; k++) b[k] = HUGE_VAL, b[3 + k] = -HUGE_VAL;
    for (int a = f->elem_ptr[e]; a < f->elem_ptr[e + 1]; a++)
      for (int k = 0; k < 3; k++) {
        double x = f->x[3 * f->conn[a] + k];
        b[k] = fmin(b[k], x), b[3 + k] = fmax(b[3 + k], x);
      }
    for (int k = 0; k < 3; k++) pad = fmax(pad, b[3 + k] - b[k]);
    pad *= DT_SUBMODEL_XI_TOL; /* the tolerance, in lengths */
    for (int k = 0; k < 3; k++) {
      b[k] -= pad, b[3 + k] += pad;
      s->lo[k] = fmin(s->lo[k], b[k]), hi[k] = fmax(hi[k], b[3 + k]);
    }
  }
  INP_CHECK(n3 > 0, p, s->rec, "*SUBMODEL: %s has no 3D elements to interpolate from", s->path);
  for (int k = 0; k < 3; k++) vol *= fmax(hi[k] - s->lo[k], 1e-300);
  for (int k = 0; k < 3; k++) { /* cells of about the mean element's volume */
    double edge = cbrt(vol / n3);
    s->nc[k] = (int)fmin(fmax(1.0, (hi[k] - s->lo[k]) / edge), 256.0);
    s->h[k] = (hi[k] - s->lo[k]) / s->nc[k];
    if (!(s->h[k] > 0)) s->h[k] = 1.0;
  }
  DT_ALLOC(s->cell_ptr, (size_t)s->nc[0] * s->nc[1] * s->nc[2] + 1, p->ctx, "search cells");
  for (int pass = 0; pass < 2; pass++) {
    for (int e = 0; e < f->n_elems; e++) {
      const double *b = s->box + 6 * e;
      int c0[3], c1[3];
      if (dt_elem_dim(f->elem_type[e]) != 3) continue;
      for (int k = 0; k < 3; k++) {
        c0[k] = (int)fmax(0, fmin(s->nc[k] - 1, floor((b[k] - s->lo[k]) / s->h[k])));
        c1[k] = (int)fmax(0, fmin(s->nc[k] - 1, floor((b[3 + k] - s->lo[k]) / s->h[k])));
      }
      for (int i = c0[0]; i <= c1[0]; i++)
        for (int j = c0[1]; j <= c1[1]; j++)
          for (int k = c0[2]; k <= c1[2]; k++) {
            int c = i + s->nc[0] * (j + s->nc[1] * k);
            if (pass == 0)
              s->cell_ptr[c + 1]++;
            else
              s->cell_elem[fill[c]++] = e;
          }
    }
    if (pass == 0) {
      int ncell = s->nc[0] * s->nc[1] * s->nc[2];
      for (int c = 0; c < ncell; c++) s->cell_ptr[c + 1] += s->cell_ptr[c];
      total = s->cell_ptr[ncell];
      DT_ALLOC(s->cell_elem, total, p->ctx, "search cells");
      DT_ALLOC(fill, ncell, p->ctx, "search cells");
      memcpy(fill, s->cell_ptr, sizeof(int) * (size_t)ncell);
    }
  }
cleanup:
  dt_free(fill);
  return rc;
}

/* How far xi lies outside the element's reference domain (<= 0 inside; element_shape.h). */
static double outside(int type, const double xi[3]) {
  if (dt_elem_is_hex20(type) || dt_elem_is_hex8(type))
    return fmax(fabs(xi[0]), fmax(fabs(xi[1]), fabs(xi[2]))) - 1.0;
  if (dt_elem_is_wedge(type))
    return fmax(fmax(-xi[0], -xi[1]), fmax(xi[0] + xi[1] - 1.0, fabs(xi[2]) - 1.0));
  return fmax(fmax(-xi[0], -xi[1]), fmax(-xi[2], xi[0] + xi[1] + xi[2] - 1.0)); /* tets */
}

/* Newton's method for xi with x(xi) = x in element e; 0 if it does not converge. */
static int local_coords(const dt_frd_file *f, int e, const double x[3], double xi[3]) {
  int type = f->elem_type[e], npe = f->elem_ptr[e + 1] - f->elem_ptr[e];
  const int *nodes = f->conn + f->elem_ptr[e];
  double N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];
  double c = dt_elem_is_wedge(type)                            ? 1.0 / 3.0
             : (type == DT_ELEM_TET4 || type == DT_ELEM_TET10) ? 0.25
                                                               : 0.0;
  xi[0] = xi[1] = c;
  xi[2] = dt_elem_is_wedge(type) ? 0.0 : c;
  for (int it = 0; it < DT_SUBMODEL_NEWTON_ITERS; it++) {
    double r[3] = {x[0], x[1], x[2]}, J[9] = {0}, det, d[3], step = 0;
    dt_elem_shape(type, xi, N, dN);
    for (int a = 0; a < npe; a++)
      for (int i = 0; i < 3; i++) {
        double X = f->x[3 * nodes[a] + i];
        r[i] -= N[a] * X; /* r = x - x(xi) */
        for (int j = 0; j < 3; j++) J[3 * i + j] += X * dN[3 * a + j];
      }
    det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
          J[2] * (J[3] * J[7] - J[4] * J[6]);
    if (!(fabs(det) > 0)) return 0;
    /* d = J^-1 r by Cramer's rule */
    d[0] = (r[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (r[1] * J[8] - J[5] * r[2]) +
            J[2] * (r[1] * J[7] - J[4] * r[2])) /
           det;
    d[1] = (J[0] * (r[1] * J[8] - J[5] * r[2]) - r[0] * (J[3] * J[8] - J[5] * J[6]) +
            J[2] * (J[3] * r[2] - r[1] * J[6])) /
           det;
    d[2] = (J[0] * (J[4] * r[2] - r[1] * J[7]) - J[1] * (J[3] * r[2] - r[1] * J[6]) +
            r[0] * (J[3] * J[7] - J[4] * J[6])) /
           det;
    for (int i = 0; i < 3; i++) xi[i] += d[i], step = fmax(step, fabs(d[i]));
    if (step < 1e-13) return 1;
    if (fabs(xi[0]) + fabs(xi[1]) + fabs(xi[2]) > 1e3) return 0; /* far away: not this element */
  }
  return 1; /* close enough for the inside test to judge */
}

/* The global element holding x (the one it lies least outside of, within the tolerance) and
 * its local coordinates; *elem -1 if none. */
static void locate(const inp_global *s, const double x[3], int *elem, double xi[3]) {
  const dt_frd_file *f = s->frd;
  double best = HUGE_VAL, t[3];
  int cell[3], c = 0;
  *elem = -1;
  for (int k = 0; k < 3; k++) {
    double q = floor((x[k] - s->lo[k]) / s->h[k]);
    if (q < 0 || q >= s->nc[k]) return;
    cell[k] = (int)q;
  }
  c = cell[0] + s->nc[0] * (cell[1] + s->nc[1] * cell[2]);
  for (int i = s->cell_ptr[c]; i < s->cell_ptr[c + 1]; i++) {
    int e = s->cell_elem[i];
    const double *b = s->box + 6 * e;
    double out;
    if (x[0] < b[0] || x[1] < b[1] || x[2] < b[2] || x[0] > b[3] || x[1] > b[4] || x[2] > b[5])
      continue;
    if (!local_coords(f, e, x, t)) continue;
    out = outside(f->elem_type[e], t);
    if (out < best) best = out, *elem = e, memcpy(xi, t, sizeof t);
    if (best <= 0) return;
  }
  if (best > DT_SUBMODEL_XI_TOL) *elem = -1;
}

/* Per node: the submodel driving it (the last *SUBMODEL naming it), or -1. */
static dt_status driving(inp *p, int **out) {
  dt_status rc = DT_OK;
  int *sub = NULL;
  DT_ALLOC(sub, p->m->n_nodes, p->ctx, "driven nodes");
  for (int i = 0; i < p->m->n_nodes; i++) sub[i] = -1;
  for (int i = 0; i < p->n_subs; i++)
    for (int k = 0; k < p->subs[i].n_sets; k++) {
      const dt_set *set = &p->m->nsets[p->subs[i].sets[k]];
      for (int j = 0; j < set->n; j++) sub[set->items[j]] = i;
    }
  *out = sub;
cleanup:
  return rc;
}

/* u at node from the global results of `step` (its submodel's file read on first use). */
static dt_status interpolate(inp *p, int rec, int node, int sub, int step, double u[3]) {
  dt_status rc = DT_OK;
  int e = -1;
  inp_global *s = NULL;
  const dt_frd_disp *d = NULL;
  double xi[3] = {0, 0, 0}, N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];
  INP_CHECK(sub >= 0, p, rec,
            "*BOUNDARY, SUBMODEL: node %lld is not a driven node of any *SUBMODEL",
            (long long)p->m->node_id[node]);
  s = &p->subs[sub];
  if (!s->frd) {
    rc = dt_frd_read(s->path, &s->frd, p->ctx);
    if (rc != DT_OK && p->ctx && p->ctx->code == rc) {
      /* the .frd's own message (its file and line, or why it cannot be opened), after the deck's
       * line that named the file */
      char msg[sizeof p->ctx->msg];
      snprintf(msg, sizeof msg, "%s", p->ctx->msg);
      dt_ctx_reset(p->ctx);
      rc = DT_ERROR(p->ctx, rc, "%s:%d: *SUBMODEL's global result file: %s",
                    p->files[p->recs[s->rec].file], p->recs[s->rec].line, msg);
    }
    if (rc != DT_OK) goto cleanup;
    DT_TRY(build_grid(p, s));
  }
  d = dt_frd_step_disp(s->frd, step);
  INP_CHECK(d != NULL, p, rec,
            "*BOUNDARY, SUBMODEL, STEP=%d: %s has no displacements (DISP) of step %d", step,
            s->path, step);
  locate(s, p->m->x + 3 * node, &e, xi);
  INP_CHECK(e >= 0, p, rec,
            "*BOUNDARY, SUBMODEL: node %lld at (%g, %g, %g) lies outside every element of the "
            "global model (%s) by more than %g in local coordinates",
            (long long)p->m->node_id[node], p->m->x[3 * node], p->m->x[3 * node + 1],
            p->m->x[3 * node + 2], s->path, DT_SUBMODEL_XI_TOL);
  dt_elem_shape(s->frd->elem_type[e], xi, N, dN);
  u[0] = u[1] = u[2] = 0;
  for (int a = s->frd->elem_ptr[e]; a < s->frd->elem_ptr[e + 1]; a++)
    for (int k = 0; k < 3; k++)
      u[k] += N[a - s->frd->elem_ptr[e]] * d->u[3 * s->frd->conn[a] + k]; /* u = sum N_a u_a */
cleanup:
  return rc;
}

/* Per node: its one-node set _N<id>, made where missing (a pass over the sets, not a search by
 * name per node: a submodel drives thousands of nodes). */
static dt_status one_node_sets(inp *p, int rec, int driven, int *set_of) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX];
  for (int i = 0; i < p->m->n_nodes; i++) set_of[i] = -1;
  for (int s = 0; s < p->m->n_nsets; s++) {
    const dt_set *set = &p->m->nsets[s];
    if (set->n != 1 || strncmp(set->name, "_N", 2) != 0) continue;
    snprintf(name, sizeof name, "_N%lld", (long long)p->m->node_id[set->items[0]]);
    if (strcmp(name, set->name) == 0) set_of[set->items[0]] = s;
  }
  for (int i = 0; i < p->m->nsets[driven].n; i++) { /* (nsets moves as sets are made) */
    int node = p->m->nsets[driven].items[i], s = -1;
    if (set_of[node] >= 0) continue;
    snprintf(name, sizeof name, "_N%lld", (long long)p->m->node_id[node]);
    DT_TRY(inp_new_nset(p, rec, name, &s));
    DT_TRY(dt_imp_set_add(&p->m->nsets[s], &p->nset_cap[s], node, p->ctx));
    set_of[node] = s;
  }
cleanup:
  return rc;
}

/* The value of (node set, DOF 0-2): the entry of p->bc it has (bc_of, n_nsets * 3, -1: none) or
 * a new one, as *BOUNDARY sets it (import_inp_step.c). */
static dt_status prescribe(inp *p, int *bc_of, int nset, int dof, double value) {
  dt_status rc = DT_OK;
  int i = bc_of[3 * nset + dof];
  if (i < 0) {
    DT_TRY(dt_imp_reserve((void **)&p->bc, &p->cap_bc, (size_t)p->n_bc + 1, sizeof *p->bc, p->ctx));
    i = bc_of[3 * nset + dof] = p->n_bc++;
    memset(&p->bc[i], 0, sizeof p->bc[i]);
    p->bc[i].nset = nset;
    p->bc[i].dof = dof;
  }
  p->bc[i].value = value;
  p->bc[i].hold = p->bc[i].velocity = 0;
cleanup:
  return rc;
}

dt_status inp_submodel_boundary_line(inp *p, int rec, char **tok, int n, int step) {
  dt_status rc = DT_OK;
  int64_t a = 0, b = 0;
  int nset = -1, *sub = NULL, *set_of = NULL, *bc_of = NULL;
  double *u = NULL;
  INP_CHECK(n >= 2 && n <= 3, p, rec,
            "*BOUNDARY, SUBMODEL: expected 'node or node set, first DOF[, last DOF]' (the values "
            "come from the global model)");
  DT_TRY(inp_target_nset(p, rec, tok[0], &nset));
  DT_TRY(inp_int64(p, rec, tok[1], "*BOUNDARY first DOF", &a));
  b = a;
  if (n == 3 && tok[2][0]) DT_TRY(inp_int64(p, rec, tok[2], "*BOUNDARY last DOF", &b));
  INP_CHECK(a >= 1 && b >= a && b <= 3, p, rec,
            "*BOUNDARY, SUBMODEL: DOFs %lld to %lld; the global model gives displacements 1 to 3",
            (long long)a, (long long)b);
  DT_TRY(driving(p, &sub));
  DT_ALLOC(u, 3 * (size_t)p->m->nsets[nset].n, p->ctx, "submodel displacements");
  for (int i = 0; i < p->m->nsets[nset].n; i++) {
    int node = p->m->nsets[nset].items[i];
    DT_TRY(interpolate(p, rec, node, sub[node], step, u + 3 * i));
  }
  DT_ALLOC(set_of, p->m->n_nodes, p->ctx, "one-node sets");
  DT_TRY(one_node_sets(p, rec, nset, set_of));
  DT_ALLOC(bc_of, 3 * (size_t)p->m->n_nsets, p->ctx, "boundary conditions");
  for (int i = 0; i < 3 * p->m->n_nsets; i++) bc_of[i] = -1;
  for (int i = 0; i < p->n_bc; i++)
    if (p->bc[i].dof < 3) bc_of[3 * p->bc[i].nset + p->bc[i].dof] = i;
  for (int i = 0; i < p->m->nsets[nset].n; i++) {
    int node = p->m->nsets[nset].items[i];
    for (int64_t d = a; d <= b; d++)
      DT_TRY(prescribe(p, bc_of, set_of[node], (int)d - 1, u[3 * i + d - 1]));
  }
cleanup:
  dt_free(sub);
  dt_free(set_of);
  dt_free(bc_of);
  dt_free(u);
  return rc;
}
