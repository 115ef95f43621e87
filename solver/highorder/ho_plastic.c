/* J2 elastoplasticity at the Gauss points of order-P hexahedra: state, residual, tangent apply,
 * commit and rollback (ho_plastic.h). */
#include "highorder/ho_plastic.h"

#include <string.h>

#include "highorder/ho_element.h"
#include "material/update.h"

/* Component k of point q of element e in an array of ncomp components per point. */
static inline size_t at(int e, int ncomp, int k, int nq3, int q) {
  return ((size_t)e * ncomp + k) * nq3 + q;
}

dt_status dt_ho_plastic_setup(const dt_ho_elastic *op, int n_materials,
                              const dt_material_params *mats, const int *elem_mat,
                              dt_ho_plastic *pl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  memset(pl, 0, sizeof *pl);
  pl->op = op;
  pl->nq3 = op->nq * op->nq * op->nq;
  pl->n_points = (long)op->n_elems * pl->nq3;
  DT_CHECK(n_materials >= 1, ctx, DT_ERR_INPUT, "plastic setup: no material");
  for (int i = 0; i < n_materials; i++) {
    const dt_material_params *m = mats + i;
    DT_CHECK(m->E > 0.0 && m->nu > -1.0 && m->nu < 0.5, ctx, DT_ERR_INPUT,
             "material %d: E = %g, nu = %g (need E > 0, -1 < nu < 1/2)", i, m->E, m->nu);
    DT_CHECK(m->plastic == DT_PLASTIC_NONE || m->plastic == DT_PLASTIC_J2, ctx, DT_ERR_INPUT,
             "material %d: criterion %d is not elastic or J2 (order-P elements take J2 only)", i,
             m->plastic);
    DT_CHECK(m->plastic == DT_PLASTIC_NONE || m->sigma_y0 >= 0.0 || m->iso == DT_ISO_TABLE, ctx,
             DT_ERR_INPUT, "material %d: yield stress %g is negative", i, m->sigma_y0);
  }
  for (int e = 0; e < op->n_elems; e++)
    DT_CHECK(elem_mat[e] >= 0 && elem_mat[e] < n_materials, ctx, DT_ERR_INPUT,
             "element %d: material %d is outside 0..%d", e, elem_mat[e], n_materials - 1);
  size_t np = (size_t)pl->n_points;
  pl->n_materials = n_materials;
  DT_ALLOC(pl->mats, n_materials, ctx, "order-P materials");
  memcpy(pl->mats, mats, sizeof(*mats) * n_materials);
  DT_ALLOC(pl->elem_mat, op->n_elems, ctx, "order-P element materials");
  memcpy(pl->elem_mat, elem_mat, sizeof(int) * op->n_elems);
  DT_ALLOC(pl->hist_c, DT_MAT_STATE_DOUBLES * np, ctx, "committed point history");
  DT_ALLOC(pl->hist_t, DT_MAT_STATE_DOUBLES * np, ctx, "trial point history");
  DT_ALLOC(pl->stress_c, DT_HO_VOIGT * np, ctx, "committed point stress");
  DT_ALLOC(pl->stress_t, DT_HO_VOIGT * np, ctx, "trial point stress");
  DT_ALLOC(pl->strain_c, DT_HO_VOIGT * np, ctx, "committed point strain");
  DT_ALLOC(pl->strain_t, DT_HO_VOIGT * np, ctx, "trial point strain");
  DT_ALLOC(pl->tangent, DT_HO_TANGENT_SIZE * np, ctx, "point tangents");
  DT_ALLOC(pl->result, np, ctx, "point update results");
  for (int e = 0; e < op->n_elems; e++) { /* the elastic tangent until the first residual */
    double D[36];
    dt_elastic_matrix(pl->mats + elem_mat[e], DT_STATE_3D, D);
    for (int q = 0; q < pl->nq3; q++)
      for (int i = 0, k = 0; i < 6; i++)
        for (int j = i; j < 6; j++, k++)
          pl->tangent[at(e, DT_HO_TANGENT_SIZE, k, pl->nq3, q)] = D[6 * i + j];
  }
cleanup:
  if (rc != DT_OK) dt_ho_plastic_free(pl);
  return rc;
}

void dt_ho_plastic_free(dt_ho_plastic *pl) {
  if (!pl) return;
  dt_free(pl->mats);
  dt_free(pl->elem_mat);
  dt_free(pl->hist_c);
  dt_free(pl->hist_t);
  dt_free(pl->stress_c);
  dt_free(pl->stress_t);
  dt_free(pl->strain_c);
  dt_free(pl->strain_t);
  dt_free(pl->tangent);
  dt_free(pl->result);
  memset(pl, 0, sizeof *pl);
}

/* The residual's pointwise step: material update from the committed state at every point of
 * element e, trial state and tangent stored, stress fluxes out. */
static void residual_qfunc(const void *user, int e, const double *qd, int nq3, double *g) {
  const dt_ho_plastic *pl = user;
  const dt_material_params *m = pl->mats + pl->elem_mat[e];
  for (int q = 0; q < nq3; q++) {
    double X[3][3], H[3][3], S[3][3], eps[6], sig[6], D[36], *h;
    dt_mat_state old_s, new_s;
    dt_ho_point_inverse_jacobian(qd, nq3, q, X);
    dt_ho_point_gradient(g, nq3, q, X, H);
    dt_ho_voigt_strain(H, eps);
    h = pl->hist_c + at(e, DT_MAT_STATE_DOUBLES, 0, nq3, q);
    for (int k = 0; k < 6; k++) {
      old_s.eps_p[k] = h[(DT_HIST_EPS_P + k) * nq3];
      old_s.beta[k] = h[(DT_HIST_BETA + k) * nq3];
    }
    old_s.p = h[DT_HIST_PEEQ * nq3];
    int r = dt_material_update(m, DT_STATE_3D, eps, &old_s, &new_s, sig, D);
    h = pl->hist_t + at(e, DT_MAT_STATE_DOUBLES, 0, nq3, q);
    for (int k = 0; k < 6; k++) {
      h[(DT_HIST_EPS_P + k) * nq3] = new_s.eps_p[k];
      h[(DT_HIST_BETA + k) * nq3] = new_s.beta[k];
      pl->stress_t[at(e, DT_HO_VOIGT, k, nq3, q)] = sig[k];
      pl->strain_t[at(e, DT_HO_VOIGT, k, nq3, q)] = eps[k];
    }
    h[DT_HIST_PEEQ * nq3] = new_s.p;
    for (int i = 0, k = 0; i < 6; i++)
      for (int j = i; j < 6; j++, k++)
        pl->tangent[at(e, DT_HO_TANGENT_SIZE, k, nq3, q)] = D[6 * i + j];
    pl->result[(size_t)e * nq3 + q] = (unsigned char)r;
    dt_ho_voigt_tensor(sig, S);
    dt_ho_point_flux(qd[q], X, S, nq3, q, g);
  }
}

dt_status dt_ho_plastic_residual(dt_ho_plastic *pl, const double *u, double *f,
                                 dt_ho_plastic_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_plastic_report r = {0, 0, -1, -1};
  DT_TRY(dt_ho_element_sweep(pl->op, u, f, residual_qfunc, pl, ctx));
  for (long i = 0; i < pl->n_points; i++) {
    if (pl->result[i] == DT_MAT_PLASTIC) r.n_plastic++;
    if (pl->result[i] == DT_MAT_NO_CONVERGENCE && r.n_failed++ == 0) {
      r.failed_elem = (int)(i / pl->nq3);
      r.failed_point = (int)(i % pl->nq3);
    }
  }
  if (rep) *rep = r;
  DT_CHECK(r.n_failed == 0, ctx, DT_ERR_NOT_CONVERGED,
           "return mapping failed at element %d, Gauss point %d (%ld points failed)", r.failed_elem,
           r.failed_point, r.n_failed);
cleanup:
  return rc;
}

void dt_ho_plastic_point_tangent(const dt_ho_plastic *pl, int e, int q, double D[36]) {
  for (int i = 0, k = 0; i < 6; i++)
    for (int j = i; j < 6; j++, k++)
      D[6 * i + j] = D[6 * j + i] = pl->tangent[at(e, DT_HO_TANGENT_SIZE, k, pl->nq3, q)];
}

double dt_ho_plastic_peeq(const dt_ho_plastic *pl, int e, int q) {
  return pl->hist_c[at(e, DT_MAT_STATE_DOUBLES, DT_HIST_PEEQ, pl->nq3, q)];
}

/* The tangent's pointwise step: sigma = D eps(w) with the stored D. */
static void tangent_qfunc(const void *user, int e, const double *qd, int nq3, double *g) {
  const dt_ho_plastic *pl = user;
  const double *T = pl->tangent + at(e, DT_HO_TANGENT_SIZE, 0, nq3, 0);
  for (int q = 0; q < nq3; q++) {
    double X[3][3], H[3][3], S[3][3], eps[6], sig[6] = {0, 0, 0, 0, 0, 0};
    dt_ho_point_inverse_jacobian(qd, nq3, q, X);
    dt_ho_point_gradient(g, nq3, q, X, H);
    dt_ho_voigt_strain(H, eps);
    for (int i = 0, k = 0; i < 6; i++)
      for (int j = i; j < 6; j++, k++) {
        double d = T[k * nq3 + q];
        sig[i] += d * eps[j];
        if (j != i) sig[j] += d * eps[i];
      }
    dt_ho_voigt_tensor(sig, S);
    dt_ho_point_flux(qd[q], X, S, nq3, q, g);
  }
}

dt_status dt_ho_plastic_tangent_apply(const dt_ho_plastic *pl, const double *w, double *v,
                                      dt_ctx *ctx) {
  return dt_ho_element_sweep(pl->op, w, v, tangent_qfunc, pl, ctx);
}

dt_status dt_ho_plastic_tangent_apply_fn(const void *pl, const double *w, double *v, dt_ctx *ctx) {
  return dt_ho_plastic_tangent_apply((const dt_ho_plastic *)pl, w, v, ctx);
}

static void copy_state(dt_ho_plastic *pl, int to_committed) {
  size_t np = (size_t)pl->n_points;
  double *h[2] = {pl->hist_t, pl->hist_c}, *s[2] = {pl->stress_t, pl->stress_c};
  double *e[2] = {pl->strain_t, pl->strain_c};
  int from = to_committed ? 0 : 1, to = 1 - from;
  memcpy(h[to], h[from], sizeof(double) * DT_MAT_STATE_DOUBLES * np);
  memcpy(s[to], s[from], sizeof(double) * DT_HO_VOIGT * np);
  memcpy(e[to], e[from], sizeof(double) * DT_HO_VOIGT * np);
}

void dt_ho_plastic_commit(dt_ho_plastic *pl) { copy_state(pl, 1); }
void dt_ho_plastic_rollback(dt_ho_plastic *pl) { copy_state(pl, 0); }

void dt_ho_plastic_cost(const dt_ho_plastic *pl, double *residual_bytes, double *apply_bytes) {
  const dt_ho_elastic *op = pl->op;
  double P1 = op->order + 1, n3 = P1 * P1 * P1, q3 = pl->nq3, ne = op->n_elems;
  double common = ne * (8.0 * DT_HO_QDATA_SIZE * q3 + 4.0 * n3) + 2.0 * 8.0 * 3.0 * op->n_nodes;
  /* per point: history read (13); trial history, stress, strain (25), tangent (21) written;
   * the result byte */
  double state = 8.0 * (DT_MAT_STATE_DOUBLES + DT_MAT_STATE_DOUBLES + 2 * DT_HO_VOIGT) +
                 8.0 * DT_HO_TANGENT_SIZE + 1.0;
  *residual_bytes = common + ne * (state * q3 + 4.0);
  *apply_bytes = common + ne * 8.0 * DT_HO_TANGENT_SIZE * q3;
}
