/* An order-P elasticity problem split into parts (ho_parts.h). */
#include "highorder/ho_parts.h"

#include <string.h>

#include "partition/partition_exchange.h"

typedef struct body_user {
  double f[3];
} body_user;

static void body_force(const double x[3], double f[3], void *user) {
  (void)x;
  memcpy(f, ((body_user *)user)->f, sizeof(double) * 3);
}

/* The corner view of m for the dual graph, the full view for the local numbering: models that
 * hold only what the partition code reads (sizes, offsets, connectivity). */
static dt_status views(const dt_ho_mesh *m, dt_model *corners, dt_model *full, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int P = m->order, n3 = (P + 1) * (P + 1) * (P + 1);
  static const int ca[8] = {0, 1, 1, 0, 0, 1, 1, 0}, cb[8] = {0, 0, 1, 1, 0, 0, 1, 1},
                   cc[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  memset(corners, 0, sizeof *corners);
  memset(full, 0, sizeof *full);
  corners->n_nodes = full->n_nodes = m->n_nodes;
  corners->n_elems = full->n_elems = m->n_elems;
  DT_ALLOC(corners->elem_ptr, m->n_elems + 1, ctx, "corner offsets");
  DT_ALLOC(corners->conn, 8 * (size_t)m->n_elems, ctx, "corner connectivity");
  DT_ALLOC(full->elem_ptr, m->n_elems + 1, ctx, "node offsets");
  for (int e = 0; e <= m->n_elems; e++) corners->elem_ptr[e] = 8 * e, full->elem_ptr[e] = n3 * e;
  for (int e = 0; e < m->n_elems; e++)
    for (int k = 0; k < 8; k++)
      corners->conn[8 * (size_t)e + k] =
          m->elem_nodes[(size_t)e * n3 + dt_ho_lex(P, P * ca[k], P * cb[k], P * cc[k])];
  full->conn = m->elem_nodes; /* borrowed: views() callers never free it */
cleanup:
  return rc;
}

dt_status dt_ho_parts_build(const dt_ho_mesh *m, int nparts, double lambda, double mu,
                            const double body[3], dt_ho_fixed_fn fixed, void *user,
                            dt_ho_parts *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_model corners, full;
  dt_halo_host *halo = NULL;
  double **diag = NULL, *lam = NULL, *mus = NULL;
  body_user bu;
  int max_elems = 0;
  memset(out, 0, sizeof *out);
  memset(&corners, 0, sizeof corners);
  memset(&full, 0, sizeof full);
  memcpy(bu.f, body, sizeof bu.f);
  out->nparts = nparts;
  DT_TRY(views(m, &corners, &full, ctx));
  DT_ALLOC(out->part, m->n_elems, ctx, "element parts");
  DT_TRY(dt_partition_elements(&corners, nparts, NULL, out->part, &out->rep, ctx));
  DT_ALLOC(out->parts, nparts, ctx, "parts");
  DT_TRY(dt_part_local_build(&full, nparts, out->part, out->parts, ctx));
  DT_ALLOC(out->meshes, nparts, ctx, "part meshes");
  DT_ALLOC(out->ops, nparts, ctx, "part operators");
  DT_ALLOC(out->b, nparts, ctx, "part loads");
  DT_ALLOC(out->dinv, nparts, ctx, "part diagonals");
  DT_ALLOC(out->fre, nparts, ctx, "part masks");
  DT_ALLOC(diag, nparts, ctx, "part diagonals");
  for (int s = 0; s < nparts; s++) {
    DT_CHECK(out->parts[s].n_elems > 0, ctx, DT_ERR_INPUT,
             "part %d of %d has no elements: the mesh (%d elements) is too small for %d parts", s,
             nparts, m->n_elems, nparts);
    if (out->parts[s].n_elems > max_elems) max_elems = out->parts[s].n_elems;
  }
  DT_ALLOC(lam, max_elems, ctx, "Lame parameters");
  DT_ALLOC(mus, max_elems, ctx, "Lame parameters");
  for (int e = 0; e < max_elems; e++) lam[e] = lambda, mus[e] = mu;
  for (int s = 0; s < nparts; s++) {
    const dt_part_local *l = &out->parts[s];
    dt_ho_mesh *lm = &out->meshes[s];
    size_t n = 3 * (size_t)l->n_nodes;
    lm->order = m->order;
    lm->n_elems = l->n_elems;
    lm->n_nodes = l->n_nodes;
    lm->elem_nodes = l->conn; /* the part's conn is in the element-local order: lexicographic */
    DT_ALLOC(lm->coords, n, ctx, "part coordinates");
    dt_part_local_gather(l, 3, m->coords, lm->coords);
    DT_TRY(dt_ho_elastic_setup(lm, 0, lam, mus, &out->ops[s], ctx));
    DT_ALLOC(out->b[s], n, ctx, "part load");
    DT_ALLOC(out->dinv[s], n, ctx, "part diagonal");
    DT_ALLOC(out->fre[s], n, ctx, "part mask");
    DT_ALLOC(diag[s], n, ctx, "part diagonal");
    DT_TRY(dt_ho_elastic_body_load(&out->ops[s], lm, body_force, &bu, out->b[s], ctx));
    DT_TRY(dt_ho_elastic_diagonal(&out->ops[s], diag[s], ctx));
    for (int i = 0; i < l->n_nodes; i++) {
      double f = fixed && fixed(lm->coords + 3 * i, user) ? 0.0 : 1.0;
      for (int c = 0; c < 3; c++) out->fre[s][3 * i + c] = f;
    }
  }
  /* each part summed only its own elements: one sum exchange makes loads and diagonals whole */
  DT_TRY(dt_halo_host_create(out->parts, nparts, 3, &halo, ctx));
  DT_TRY(
      dt_halo_exchange(out->parts, nparts, out->b, 3, DT_HALO_SUM, dt_halo_host_ops(), halo, ctx));
  DT_TRY(dt_halo_exchange(out->parts, nparts, diag, 3, DT_HALO_SUM, dt_halo_host_ops(), halo, ctx));
  for (int s = 0; s < nparts; s++)
    for (size_t i = 0; i < 3 * (size_t)out->parts[s].n_nodes; i++) {
      out->b[s][i] *= out->fre[s][i];
      out->dinv[s][i] = out->fre[s][i] != 0.0 && diag[s][i] > 0.0 ? 1.0 / diag[s][i] : 0.0;
    }
cleanup:
  dt_halo_host_destroy(&halo);
  if (diag)
    for (int s = 0; s < nparts; s++) dt_free(diag[s]);
  dt_free(diag);
  dt_free(lam);
  dt_free(mus);
  dt_free(corners.elem_ptr);
  dt_free(corners.conn);
  dt_free(full.elem_ptr);
  return rc;
}

void dt_ho_parts_free(dt_ho_parts *p) {
  if (!p) return;
  for (int s = 0; s < p->nparts; s++) {
    if (p->ops) dt_ho_elastic_free(&p->ops[s]);
    if (p->meshes) dt_free(p->meshes[s].coords);
    if (p->parts) dt_part_local_free(&p->parts[s]);
    if (p->b) dt_free(p->b[s]);
    if (p->dinv) dt_free(p->dinv[s]);
    if (p->fre) dt_free(p->fre[s]);
  }
  dt_free(p->ops);
  dt_free(p->meshes);
  dt_free(p->parts);
  dt_free(p->b);
  dt_free(p->dinv);
  dt_free(p->fre);
  dt_free(p->part);
  dt_partition_report_free(&p->rep);
  memset(p, 0, sizeof *p);
}

void dt_ho_parts_gather(const dt_ho_parts *p, double *const *x, double *global) {
  for (int s = 0; s < p->nparts; s++) dt_part_local_scatter_owned(&p->parts[s], 3, x[s], global);
}
