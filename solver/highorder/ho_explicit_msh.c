/* Explicit dynamics on a Gmsh mesh (ho_explicit_msh.h). */
#include "highorder/ho_explicit_msh.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void pressure_traction(const double x[3], const double n[3], double t[3], void *user) {
  double p = *(const double *)user;
  (void)x;
  for (int k = 0; k < 3; k++) t[k] = -p * n[k];
}

/* The group `name`, or DT_ERR_INPUT listing the file's groups. */
static dt_status find_group(const dt_ho_msh_opts *o, const dt_ho_gmsh_groups *G, const char *name,
                            const char *what, const dt_ho_gmsh_group **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char list[512] = "";
  size_t k = 0;
  *out = dt_ho_gmsh_group_find(G, name);
  if (*out) return DT_OK;
  for (int i = 0; i < G->n && k < sizeof list; i++)
    k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", G->group[i].name);
  DT_CHECK(0, ctx, DT_ERR_INPUT,
           "%s: %s group \"%s\" is not a physical group of the file (it has: %s)", o->path, what,
           name, G->n ? list : "none");
cleanup:
  return rc;
}

dt_status dt_ho_msh_setup(const dt_ho_msh_opts *o, dt_ho_msh *p, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *lam = NULL, *mu = NULL, c[3] = {0, 0, 0}, best = INFINITY, len = 0.0;
  unsigned char *mark = NULL;
  const dt_ho_gmsh_group *g = NULL, *first = NULL;
  memset(p, 0, sizeof(*p));
  p->E = o->E, p->nu = o->nu, p->rho = o->rho, p->kind = o->kind;
  DT_CHECK(o->n_fix > 0, ctx, DT_ERR_INPUT,
           "%s: no fixed group (--fix GROUP): an unsupported solid has rigid-body modes", o->path);
  DT_CHECK(o->n_pressure > 0, ctx, DT_ERR_INPUT, "%s: no loaded group (--pressure GROUP=P)",
           o->path);
  DT_TRY(dt_ho_gmsh_read_refined(o->path, o->order, o->refine > 1 ? o->refine : 1, &p->mesh,
                                 &p->groups, NULL, ctx));
  /* the groups first: a misspelt name fails before the operator's setup */
  for (int i = 0; i < o->n_fix; i++) {
    DT_TRY(find_group(o, &p->groups, o->fix[i], "--fix", &g, ctx));
    DT_CHECK(g->n_nodes > 0, ctx, DT_ERR_INPUT, "%s: --fix group \"%s\" has no nodes", o->path,
             o->fix[i]);
  }
  for (int i = 0; i < o->n_pressure; i++) {
    DT_TRY(find_group(o, &p->groups, o->pressure_group[i], "--pressure", &g, ctx));
    DT_CHECK(g->n_faces > 0, ctx, DT_ERR_INPUT,
             "%s: --pressure group \"%s\" has no faces (a physical group of dimension %d): a "
             "pressure needs a physical surface of hexahedron faces",
             o->path, o->pressure_group[i], g->dim);
    DT_CHECK(isfinite(o->pressure[i]), ctx, DT_ERR_INPUT, "%s: --pressure %s: not a number",
             o->path, o->pressure_group[i]);
  }
  int nn = p->mesh.n_nodes, ne = p->mesh.n_elems;
  DT_ALLOC(lam, ne, ctx, "Lame parameters");
  DT_ALLOC(mu, ne, ctx, "Lame parameters");
  for (int e = 0; e < ne; e++) dt_ho_lame(o->E, o->nu, &lam[e], &mu[e]);
  DT_TRY(dt_ho_elastic_setup(&p->mesh, 0, lam, mu, &p->op, ctx));
  p->mass_op.op = &p->op;
  p->mass_op.rho = o->rho;
  DT_ALLOC(p->mass, nn, ctx, "lumped mass");
  if (o->kind == DT_HO_MASS_GLL)
    DT_TRY(dt_ho_mass_gll(&p->mesh, o->rho, p->mass, ctx));
  else
    DT_TRY(dt_ho_mass_rowsum(&p->op, &p->mesh, o->rho, p->mass, ctx));
  DT_ALLOC(p->fixed, 3 * (size_t)nn, ctx, "fixed DOFs");
  DT_ALLOC(p->f, 3 * (size_t)nn, ctx, "load vector");
  DT_ALLOC(mark, nn, ctx, "node marks");
  for (int i = 0; i < o->n_fix; i++) {
    g = dt_ho_gmsh_group_find(&p->groups, o->fix[i]);
    for (int k = 0; k < g->n_nodes; k++) mark[g->nodes[k]] = 1;
  }
  for (int a = 0; a < nn; a++) {
    p->fixed_nodes += mark[a];
    for (int k = 0; k < 3; k++) p->fixed[3 * (size_t)a + k] = mark[a];
  }
  p->free_dofs = 3 * (nn - p->fixed_nodes);
  for (int i = 0; i < o->n_pressure; i++) {
    double pr = o->pressure[i];
    g = dt_ho_gmsh_group_find(&p->groups, o->pressure_group[i]);
    if (!first) first = g;
    p->load_faces += g->n_faces;
    DT_TRY(dt_ho_elastic_traction_load(&p->op, &p->mesh, g->n_faces, g->face_elem, g->face,
                                       pressure_traction, &pr, p->f, ctx));
  }
  for (int a = 0; a < nn; a++)
    for (int k = 0; k < 3; k++) p->force[k] += p->f[3 * (size_t)a + k];
  len = sqrt(p->force[0] * p->force[0] + p->force[1] * p->force[1] + p->force[2] * p->force[2]);
  for (int k = 0; k < 3; k++) p->load_dir[k] = len > 0 ? p->force[k] / len : 0.0;
  for (int k = 0; k < first->n_nodes; k++)
    for (int d = 0; d < 3; d++) c[d] += p->mesh.coords[3 * (size_t)first->nodes[k] + d];
  for (int d = 0; d < 3; d++) c[d] /= first->n_nodes;
  for (int k = 0; k < first->n_nodes; k++) {
    const double *x = p->mesh.coords + 3 * (size_t)first->nodes[k];
    double r = hypot(hypot(x[0] - c[0], x[1] - c[1]), x[2] - c[2]);
    if (r < best) best = r, p->watch = first->nodes[k];
  }
cleanup:
  dt_free(lam);
  dt_free(mu);
  dt_free(mark);
  return rc;
}

void dt_ho_msh_free(dt_ho_msh *p) {
  if (!p) return;
  dt_ho_elastic_free(&p->op);
  dt_ho_gmsh_groups_free(&p->groups);
  dt_ho_mesh_free(&p->mesh);
  dt_free(p->mass);
  dt_free(p->fixed);
  dt_free(p->f);
  memset(p, 0, sizeof(*p));
}

void dt_ho_msh_problem(const dt_ho_msh *p, dt_ho_explicit_problem *pb) {
  memset(pb, 0, sizeof(*pb));
  pb->n = 3 * p->mesh.n_nodes;
  pb->K = dt_ho_elastic_apply_fn;
  pb->K_op = &p->op;
  pb->mass = p->mass;
  if (p->kind == DT_HO_MASS_CONSISTENT) {
    pb->M = dt_ho_mass_apply_fn;
    pb->M_op = &p->mass_op;
  }
  pb->fixed = p->fixed;
  pb->f = p->f;
}

dt_status dt_ho_msh_parts_build(const dt_ho_msh *p, int nparts, dt_ho_explicit_parts *xp,
                                dt_ctx *ctx) {
  int w[3] = {3 * p->watch, 3 * p->watch + 1, 3 * p->watch + 2};
  return dt_ho_explicit_parts_build(&p->mesh, nparts, p->E, p->nu, p->mass, p->f, p->fixed, 3, w,
                                    xp, ctx);
}
