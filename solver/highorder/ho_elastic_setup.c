/* Setup of the matrix-free elasticity operator: 1D tables, geometric factors per Gauss point
 * and the element colouring the CPU apply runs by. */
#include <stdint.h>
#include <string.h>

#include "core/omp_threads.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_elastic_tensor.h"

void dt_ho_lame(double E, double nu, double *lambda, double *mu) {
  *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  *mu = E / (2.0 * (1.0 + nu));
}

/* qdata of one element from its node coordinates: J[k][i] = dx_k/dxi_i by the three table
 * products, then w det J and J^-1 (dxi_i/dx_k) per point. */
static dt_status element_qdata(const dt_ho_elastic *op, int e, const double *coords, double *work,
                               dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int P1 = op->order + 1, Q = op->nq, nq3 = Q * Q * Q, n3 = P1 * P1 * P1;
  double *xe = work, *dx = xe + 3 * n3, *t1 = dx + 9 * nq3, *t2 = t1 + P1 * P1 * Q;
  const int *row = op->elem_nodes + (size_t)e * n3;
  double *qd = op->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
  for (int a = 0; a < n3; a++)
    for (int k = 0; k < 3; k++) xe[k * n3 + a] = coords[3 * (size_t)row[a] + k];
  for (int k = 0; k < 3; k++) {
    const double *B = op->B, *G = op->G;
    dt_ho_interp3(P1, Q, G, B, B, xe + k * n3, dx + (3 * k + 0) * nq3, t1, t2);
    dt_ho_interp3(P1, Q, B, G, B, xe + k * n3, dx + (3 * k + 1) * nq3, t1, t2);
    dt_ho_interp3(P1, Q, B, B, G, xe + k * n3, dx + (3 * k + 2) * nq3, t1, t2);
  }
  for (int q = 0; q < nq3; q++) {
    double J[3][3], inv[3][3];
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 3; i++) J[k][i] = dx[(3 * k + i) * nq3 + q];
    /* cofactors: inv = adj(J) / det J */
    inv[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
    inv[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
    inv[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
    inv[1][0] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
    inv[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
    inv[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
    inv[2][0] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
    inv[2][1] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
    inv[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    double det = J[0][0] * inv[0][0] + J[0][1] * inv[1][0] + J[0][2] * inv[2][0];
    int qx = q % Q, qy = (q / Q) % Q, qz = q / (Q * Q);
    DT_CHECK(det > 0.0, ctx, DT_ERR_INPUT,
             "element %d is inverted or too strongly curved: det J = %g at Gauss point "
             "(%d,%d,%d) of %d^3",
             e, det, qx, qy, qz, Q);
    qd[q] = op->qw[qx] * op->qw[qy] * op->qw[qz] * det;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) qd[(1 + 3 * i + j) * nq3 + q] = inv[i][j] / det;
  }
cleanup:
  return rc;
}

/* Greedy colouring on the element corners: elements that share any node share a vertex, so
 * distinct colours for vertex neighbours make every colour's scatter conflict-free. Colours
 * are taken 64 at a time with a bit mask per node; elements left over start the next 64. */
static dt_status colour_elements(dt_ho_elastic *op, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  uint64_t *mask = NULL;
  int *color = NULL, *count = NULL;
  int P = op->order, P1 = P + 1, n3 = P1 * P1 * P1, left = op->n_elems, pass = 0;
  DT_ALLOC(mask, op->n_nodes, ctx, "colour masks");
  DT_ALLOC(color, op->n_elems, ctx, "element colours");
  for (int e = 0; e < op->n_elems; e++) color[e] = -1;
  for (; left > 0; pass++) {
    memset(mask, 0, sizeof(*mask) * (size_t)op->n_nodes);
    for (int e = 0; e < op->n_elems; e++) {
      if (color[e] >= 0) continue;
      const int *row = op->elem_nodes + (size_t)e * n3;
      uint64_t used = 0;
      for (int k = 0; k < 8; k++)
        used |= mask[row[dt_ho_lex(P, (k & 1) * P, ((k >> 1) & 1) * P, (k >> 2) * P)]];
      if (used == UINT64_MAX) continue;
      int c = 0;
      while (used & ((uint64_t)1 << c)) c++;
      for (int k = 0; k < 8; k++)
        mask[row[dt_ho_lex(P, (k & 1) * P, ((k >> 1) & 1) * P, (k >> 2) * P)]] |= (uint64_t)1 << c;
      color[e] = 64 * pass + c;
      if (color[e] + 1 > op->n_colors) op->n_colors = color[e] + 1;
      left--;
    }
  }
  DT_ALLOC(count, op->n_colors + 1, ctx, "colour counts");
  DT_ALLOC(op->color_ptr, op->n_colors + 1, ctx, "colour offsets");
  DT_ALLOC(op->color_elems, op->n_elems, ctx, "elements by colour");
  for (int e = 0; e < op->n_elems; e++) op->color_ptr[color[e] + 1]++;
  for (int c = 0; c < op->n_colors; c++) op->color_ptr[c + 1] += op->color_ptr[c];
  for (int e = 0; e < op->n_elems; e++)
    op->color_elems[op->color_ptr[color[e]] + count[color[e]]++] = e;
cleanup:
  dt_free(mask);
  dt_free(color);
  dt_free(count);
  return rc;
}

dt_status dt_ho_elastic_setup(const dt_ho_mesh *m, int nq, const double *lambda, const double *mu,
                              dt_ho_elastic *op, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_basis1d basis;
  double *work = NULL;
  int P1 = m->order + 1;
  memset(op, 0, sizeof(*op));
  if (nq == 0) nq = m->order + 1;
  DT_CHECK(nq >= 1 && nq <= DT_HO_MAX_QPOINTS, ctx, DT_ERR_INPUT,
           "%d Gauss points per direction is outside 1..%d", nq, DT_HO_MAX_QPOINTS);
  DT_TRY(dt_ho_basis1d_init(&basis, m->order, nq, ctx));
  op->order = m->order;
  op->nq = nq;
  op->n_elems = m->n_elems;
  op->n_nodes = m->n_nodes;
  op->elem_nodes = m->elem_nodes;
  memcpy(op->B, basis.interp, sizeof(double) * nq * P1);
  memcpy(op->G, basis.grad, sizeof(double) * nq * P1);
  memcpy(op->qw, basis.qw, sizeof(double) * nq);
  DT_ALLOC(op->lambda, m->n_elems, ctx, "element lambda");
  DT_ALLOC(op->mu, m->n_elems, ctx, "element mu");
  for (int e = 0; e < m->n_elems; e++) {
    DT_CHECK(mu[e] > 0.0 && lambda[e] + 2.0 * mu[e] / 3.0 > 0.0, ctx, DT_ERR_INPUT,
             "element %d: Lame parameters lambda %g, mu %g are not positive definite "
             "(mu > 0 and lambda + 2 mu / 3 > 0)",
             e, lambda[e], mu[e]);
    op->lambda[e] = lambda[e];
    op->mu[e] = mu[e];
  }
  int nq3 = nq * nq * nq;
  DT_ALLOC(op->qdata, (size_t)m->n_elems * DT_HO_QDATA_SIZE * nq3, ctx, "quadrature data");
  {
    /* elements are independent: a scratch per thread; the first failing element is set up
     * again alone so its message is the one reported, whatever the thread count */
    size_t ws = 3 * P1 * P1 * P1 + 9 * nq3 + P1 * P1 * nq + P1 * nq * nq;
    int bad = m->n_elems;
    DT_ALLOC(work, ws * dt_omp_max_threads(), ctx, "setup scratch");
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (int e = 0; e < m->n_elems; e++) {
      dt_ctx quiet;
      memset(&quiet, 0, sizeof quiet);
      if (e < bad && element_qdata(op, e, m->coords, work + ws * dt_omp_thread(), &quiet) != DT_OK)
        bad = e;
    }
    if (bad < m->n_elems) DT_TRY(element_qdata(op, bad, m->coords, work, ctx));
  }
  DT_TRY(colour_elements(op, ctx));
cleanup:
  dt_free(work);
  if (rc != DT_OK) dt_ho_elastic_free(op);
  return rc;
}

void dt_ho_elastic_free(dt_ho_elastic *op) {
  if (!op) return;
  dt_free(op->qdata);
  dt_free(op->lambda);
  dt_free(op->mu);
  dt_free(op->color_ptr);
  dt_free(op->color_elems);
  memset(op, 0, sizeof(*op));
}

void dt_ho_elastic_cost(const dt_ho_elastic *op, double *flops, double *bytes) {
  double P1 = op->order + 1, Q = op->nq, n3 = P1 * P1 * P1, q3 = Q * Q * Q;
  /* one interp3: 2 Q P1 (P1^2 + Q P1 + Q^2) flops; 9 forward and 9 transposed per element */
  double interp = 2.0 * Q * P1 * (P1 * P1 + Q * P1 + Q * Q);
  double point = 9 * 3 * 2 + 12 + 9 * 3 * 2 + 9; /* grad map, stress, flux map, weight */
  *flops = op->n_elems * (18.0 * interp + point * q3);
  *bytes =
      op->n_elems * (8.0 * DT_HO_QDATA_SIZE * q3 + 4.0 * n3 + 16.0) + 2.0 * 8.0 * 3.0 * op->n_nodes;
}
