/* Lumped and consistent mass of order-P hexahedra (ho_mass.h). */
#include "highorder/ho_mass.h"

#include <math.h>
#include <string.h>

#include "core/omp_threads.h"
#include "highorder/ho_elastic_tensor.h"

const char *dt_ho_mass_name(dt_ho_mass_kind kind) {
  switch (kind) {
  case DT_HO_MASS_GLL: return "gll";
  case DT_HO_MASS_ROWSUM: return "rowsum";
  case DT_HO_MASS_CONSISTENT: return "consistent";
  }
  return "unknown";
}

static dt_status check_rho(double rho, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(rho > 0.0 && isfinite(rho), ctx, DT_ERR_INPUT, "density %g is not positive and finite",
           rho);
cleanup:
  return rc;
}

dt_status dt_ho_mass_gll(const dt_ho_mesh *m, double rho, double *mass, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int P = m->order, P1 = P + 1, n3 = P1 * P1 * P1;
  double x[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES], D[DT_HO_MAX_NODES * DT_HO_MAX_NODES];
  DT_TRY(check_rho(rho, ctx));
  DT_TRY(dt_ho_gauss_lobatto(P1, x, w, ctx));
  /* D[i * P1 + j] = L_j'(x_i): derivatives at the nodes themselves */
  for (int i = 0; i < P1; i++) {
    double L[DT_HO_MAX_NODES];
    dt_ho_lagrange(P1, x, x[i], L, D + i * P1);
  }
  memset(mass, 0, sizeof(double) * (size_t)m->n_nodes);
  for (int e = 0; e < m->n_elems; e++) {
    const int *row = m->elem_nodes + (size_t)e * n3;
    for (int c = 0; c < P1; c++)
      for (int b = 0; b < P1; b++)
        for (int a = 0; a < P1; a++) {
          double J[3][3] = {{0}};
          for (int i = 0; i < P1; i++) {
            const double *xa = m->coords + 3 * (size_t)row[dt_ho_lex(P, i, b, c)];
            const double *xb = m->coords + 3 * (size_t)row[dt_ho_lex(P, a, i, c)];
            const double *xc = m->coords + 3 * (size_t)row[dt_ho_lex(P, a, b, i)];
            for (int k = 0; k < 3; k++) {
              J[k][0] += D[a * P1 + i] * xa[k];
              J[k][1] += D[b * P1 + i] * xb[k];
              J[k][2] += D[c * P1 + i] * xc[k];
            }
          }
          double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                       J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                       J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
          DT_CHECK(det > 0.0, ctx, DT_ERR_INPUT,
                   "element %d is inverted or too strongly curved: det J = %g at its node "
                   "(%d,%d,%d), so its GLL mass is not positive",
                   e, det, a, b, c);
          mass[row[dt_ho_lex(P, a, b, c)]] += rho * w[a] * w[b] * w[c] * det;
        }
  }
cleanup:
  return rc;
}

dt_status dt_ho_mass_rowsum(const dt_ho_elastic *op, const dt_ho_mesh *m, double rho, double *mass,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int P1 = op->order + 1, Q = op->nq, n3 = P1 * P1 * P1, nq3 = Q * Q * Q;
  double *work = NULL;
  DT_TRY(check_rho(rho, ctx));
  DT_ALLOC(work, (size_t)n3 + nq3 + P1 * P1 * Q + P1 * Q * Q, ctx, "row-sum mass scratch");
  memset(mass, 0, sizeof(double) * (size_t)op->n_nodes);
  double *me = work, *f = me + n3, *t1 = f + nq3, *t2 = t1 + P1 * P1 * Q;
  /* sum_b N_b = 1, so the row sum of int rho N_a N_b is int rho N_a: one transposed product */
  for (int e = 0; e < op->n_elems; e++) {
    const double *qd = op->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
    const int *row = op->elem_nodes + (size_t)e * n3;
    for (int q = 0; q < nq3; q++) f[q] = rho * qd[q];
    dt_ho_interp3_t(P1, Q, op->B, op->B, op->B, f, me, 0, t1, t2);
    for (int a = 0; a < n3; a++) mass[row[a]] += me[a];
  }
  for (int n = 0; n < op->n_nodes; n++) {
    const double *x = m->coords + 3 * (size_t)n;
    DT_CHECK(mass[n] > 0.0, ctx, DT_ERR_INPUT,
             "row-sum lumped mass of node %d at (%g, %g, %g) is %g, not positive; use the GLL "
             "(spectral) lumped mass",
             n, x[0], x[1], x[2], mass[n]);
  }
cleanup:
  dt_free(work);
  return rc;
}

static void element_mass(const dt_ho_elastic *op, double rho, int e, const double *u, double *v,
                         double *work) {
  int P1 = op->order + 1, Q = op->nq, n3 = P1 * P1 * P1, nq3 = Q * Q * Q;
  double *ue = work, *ve = ue + 3 * n3, *g = ve + 3 * n3, *t1 = g + 3 * nq3, *t2 = t1 + P1 * P1 * Q;
  const int *row = op->elem_nodes + (size_t)e * n3;
  const double *qd = op->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
  for (int a = 0; a < n3; a++)
    for (int c = 0; c < 3; c++) ue[c * n3 + a] = u[3 * (size_t)row[a] + c];
  for (int c = 0; c < 3; c++) {
    double *gc = g + c * nq3;
    dt_ho_interp3(P1, Q, op->B, op->B, op->B, ue + c * n3, gc, t1, t2);
    for (int q = 0; q < nq3; q++) gc[q] *= rho * qd[q];
    dt_ho_interp3_t(P1, Q, op->B, op->B, op->B, gc, ve + c * n3, 0, t1, t2);
  }
  for (int a = 0; a < n3; a++)
    for (int c = 0; c < 3; c++) v[3 * (size_t)row[a] + c] += ve[c * n3 + a];
}

dt_status dt_ho_mass_apply(const dt_ho_mass_op *mo, const double *u, double *v, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_ho_elastic *op = mo->op;
  double *work = NULL;
  int P1 = op->order + 1, Q = op->nq, nthreads = dt_omp_max_threads();
  size_t ws =
      6 * (size_t)P1 * P1 * P1 + 3 * (size_t)Q * Q * Q + (size_t)P1 * P1 * Q + (size_t)P1 * Q * Q;
  DT_ALLOC(work, ws * nthreads, ctx, "mass apply scratch");
  memset(v, 0, sizeof(double) * 3 * (size_t)op->n_nodes);
  for (int c = 0; c < op->n_colors; c++) {
    int lo = op->color_ptr[c], hi = op->color_ptr[c + 1];
#pragma omp parallel for schedule(static) if ((long)(hi - lo) * Q * Q * Q >= DT_HO_PARALLEL_POINTS)
    for (int k = lo; k < hi; k++)
      element_mass(op, mo->rho, op->color_elems[k], u, v, work + ws * dt_omp_thread());
  }
cleanup:
  dt_free(work);
  return rc;
}

dt_status dt_ho_mass_apply_fn(const void *op, const double *u, double *v, dt_ctx *ctx) {
  return dt_ho_mass_apply((const dt_ho_mass_op *)op, u, v, ctx);
}
