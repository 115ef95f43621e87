/* The coarse levels of the p-multigrid (ho_pmg.h): an order-p_c mesh on the fine elements, its
 * geometry, its elastic operator and its constrained DOFs. */
#include <string.h>

#include "highorder/ho_pmg_internal.h"

#define NMAX (DT_HO_MESH_MAX_ORDER + 1)
#define N3MAX (NMAX * NMAX * NMAX)

/* hex8 corner k (element/element.h order) as Lobatto indices 0 or 1 per direction. */
static const int hex8_corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                      {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

/* Where index a of order p sits: 0 at the start, 1 at the end, 2 inside. */
static int side_of(int a, int p) { return a == 0 ? 0 : a == p ? 1 : 2; }

/* flag[s + 3 t + 9 u] for the 27 closed entities of an element (s, t, u as side_of per
 * direction: a vertex, edge, face or the element): 1 when all its fine nodes are constrained
 * in component c. */
static void entity_flags(const int *row, int p, const unsigned char *fixed, int c,
                         unsigned char flag[27]) {
  memset(flag, 1, 27);
  for (int z = 0; z <= p; z++)
    for (int y = 0; y <= p; y++)
      for (int x = 0; x <= p; x++) {
        if (fixed && fixed[3 * (size_t)row[dt_ho_lex(p, x, y, z)] + c]) continue;
        /* this free node spoils every entity whose closure holds it */
        int sx = side_of(x, p), sy = side_of(y, p), sz = side_of(z, p);
        for (int u = 0; u < 3; u++)
          for (int t = 0; t < 3; t++)
            for (int s = 0; s < 3; s++)
              if ((s == 2 || s == sx) && (t == 2 || t == sy) && (u == 2 || u == sz))
                flag[s + 3 * t + 9 * u] = 0;
      }
  if (!fixed) memset(flag, 0, 27);
}

dt_status dt_ho_pmg_coarse_level(dt_ho_pmg *pmg, int l, const double *fine_coords,
                                 const dt_ho_elastic *el, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_pmg_level *F = &pmg->lev[l], *C = &pmg->lev[l + 1];
  int ne = pmg->n_elems, pf = F->order, pc = C->order, nf = pf + 1, nc = pc + 1;
  int nf3 = nf * nf * nf, nc3 = nc * nc * nc, nv = 0, *vid = NULL, *hex8 = NULL;
  double *vx = NULL, geo[NMAX * NMAX];
  unsigned char *placed = NULL;
  /* the vertex mesh: the fine elements' corner nodes, hex8 rows in the elements' corner order,
   * so the coarse element e has fine element e's reference frame */
  DT_ALLOC(vid, F->n_nodes, ctx, "p-multigrid vertex ids");
  DT_ALLOC(hex8, 8 * (size_t)ne, ctx, "p-multigrid vertex mesh");
  for (int i = 0; i < F->n_nodes; i++) vid[i] = -1;
  for (int e = 0; e < ne; e++)
    for (int k = 0; k < 8; k++) {
      const int *h = hex8_corner[k];
      int g = F->elem_nodes[(size_t)e * nf3 + dt_ho_lex(pf, h[0] * pf, h[1] * pf, h[2] * pf)];
      if (vid[g] < 0) vid[g] = nv++;
      hex8[8 * (size_t)e + k] = vid[g];
    }
  DT_ALLOC(vx, 3 * (size_t)nv, ctx, "p-multigrid vertex coordinates");
  for (int i = 0; i < F->n_nodes; i++)
    if (vid[i] >= 0)
      memcpy(vx + 3 * (size_t)vid[i], fine_coords + 3 * (size_t)i, 3 * sizeof(double));
  DT_TRY(dt_ho_mesh_build(pc, nv, vx, ne, hex8, NULL, NULL, &C->mesh, ctx));
  C->n_nodes = C->mesh.n_nodes;
  C->n = 3 * C->n_nodes;
  C->elem_nodes = C->mesh.elem_nodes;
  /* curved geometry: the fine element's coordinate field at the coarse nodes, each coarse node
   * placed once (from its lowest element) */
  DT_TRY(dt_ho_pmg_interp_table(pc, pf, geo, ctx));
  DT_ALLOC(placed, C->n_nodes, ctx, "p-multigrid placed nodes");
  for (int e = 0; e < ne; e++) {
    double in[N3MAX], out[N3MAX], t1[N3MAX], t2[N3MAX];
    const int *rf = F->elem_nodes + (size_t)e * nf3, *rc = C->elem_nodes + (size_t)e * nc3;
    for (int k = 0; k < 3; k++) {
      for (int a = 0; a < nf3; a++) in[a] = fine_coords[3 * (size_t)rf[a] + k];
      dt_ho_pmg_tensor3(nc, nf, geo, in, out, t1, t2);
      for (int b = 0; b < nc3; b++)
        if (!placed[rc[b]]) C->mesh.coords[3 * (size_t)rc[b] + k] = out[b];
    }
    for (int b = 0; b < nc3; b++) placed[rc[b]] = 1;
  }
  DT_TRY(dt_ho_elastic_setup(&C->mesh, 0, el->lambda, el->mu, &C->el, ctx));
  C->apply = dt_ho_elastic_apply_fn;
  C->op = &C->el;
  /* constrained DOFs: the closed entity carrying the coarse node is constrained throughout */
  DT_ALLOC(C->fixed, C->n, ctx, "p-multigrid constrained DOFs");
  for (int e = 0; e < ne; e++)
    for (int c = 0; c < 3; c++) {
      unsigned char flag[27];
      const int *rc = C->elem_nodes + (size_t)e * nc3;
      entity_flags(F->elem_nodes + (size_t)e * nf3, pf, F->fixed, c, flag);
      for (int z = 0; z < nc; z++)
        for (int y = 0; y < nc; y++)
          for (int x = 0; x < nc; x++)
            if (flag[side_of(x, pc) + 3 * side_of(y, pc) + 9 * side_of(z, pc)])
              C->fixed[3 * (size_t)rc[dt_ho_lex(pc, x, y, z)] + c] = 1;
    }
cleanup:
  dt_free(vid);
  dt_free(hex8);
  dt_free(vx);
  dt_free(placed);
  return rc;
}
