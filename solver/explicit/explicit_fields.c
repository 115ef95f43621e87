/* The point fields of an explicit frame, on the host: stresses, strains and equivalent plastic
 * strains from the downloaded node copies and history. The kernels compute forces, not output
 * stresses, so a frame that asks for S, MISES or PEEQ evaluates them here, once per frame.
 *
 * Shells: two points per element, the bottom and the top surface (zeta = -1, +1) at the
 * element's centre: the bending and membrane stresses a user reads off a shell (Abaqus's SNEG
 * and SPOS section points). A plastic element's history there is its outermost layer's averaged
 * over the four in-plane points (Simpson's layers, the default for plastic sections, lie on the
 * surfaces; Gauss layers lie just inside them). Cell and node averages of the two points give
 * the membrane stress; the points themselves (output "points") give both surfaces.
 * hex8: the element's own points (one, or 2x2x2 in the static elements' order), the
 * corotational stress R S R^T from the point's deformation gradient and committed history,
 * PEEQ from that history. */
#include <string.h>

#include "element/hex8_explicit.h"
#include "explicit.h"
#include "explicit_kernel.h"

/* The committed history of point p of element e (the kernels' layout). */
static void hist_point(const dt_xp_problem *xp, const double *hist, int e, int p,
                       dt_mat_state *st) {
  const size_t np = (size_t)xp->n_points, ne = (size_t)xp->ne;
  for (int k = 0; k < DT_MAT_STATE_DOUBLES; k++)
    ((double *)st)[k] = hist[((size_t)k * np + (size_t)p) * ne + (size_t)e];
}

/* The hex8 kernel's point (numbered like the corner nodes, dt_hex8x_point) at the static
 * elements' point q (dt_elem_qp: bit k of q the sign of xi_k), so that the output points come
 * in the order the .frd's extrapolation and the .dat expect. */
static int kernel_point(int q) {
  for (int p = 0; p < 8; p++) {
    int same = 1;
    for (int k = 0; k < 3; k++) same &= (dt_hex8x_sign(p, k) > 0) == (((q >> k) & 1) != 0);
    if (same) return p;
  }
  return 0;
}

int dt_xp_field_points(const dt_xp_problem *xp) {
  if (xp->kind == DT_XP_SHELL4) return 2;
  return xp->form == DT_HEX8X_REDUCED ? 1 : 8;
}

int dt_xp_fields_wanted(const dt_model *m) {
  unsigned want = m->output.fields;
  for (int i = 0; i < m->output.n_prints; i++) want |= m->output.prints[i].fields;
  return (want & (DT_OUT_S | DT_OUT_MISES | DT_OUT_E | DT_OUT_PEEQ)) != 0;
}

/* Shell element e at surface zeta: its stress, strain (the local Green-Lagrange strain on the
 * current frame, engineering shears) and the equivalent plastic strain there. */
static void shell_point(const dt_xp_problem *xp, const dt_xp_state *st, int e, double zeta,
                        double sig[6], double eps[6], double *peeq) {
  const size_t nc = dt_xp_copies(xp), ne = (size_t)xp->ne;
  const dt_material_params *mat = &xp->mats[xp->mat[e]];
  double X0[12], D0[12], x[12], D[12], v1[3], v2[3];
  dt_mat_state avg, one;
  for (int a = 0; a < 4; a++) {
    const size_t c = (size_t)a * ne + (size_t)e;
    double q[4];
    for (int k = 0; k < 4; k++) q[k] = st->q[k * nc + c];
    dt_xp_node_frame(q, &D[3 * a], v1, v2);
    for (int k = 0; k < 3; k++) {
      X0[3 * a + k] = xp->X0[k * nc + c];
      D0[3 * a + k] = xp->D0[k * nc + c];
      x[3 * a + k] = X0[3 * a + k] + st->u[k * nc + c];
    }
  }
  *peeq = 0.0;
  if (mat->plastic && st->hist) { /* the outermost layer on that side, over the 4 points */
    const int l = zeta < 0 ? 0 : xp->n_layers - 1;
    memset(&avg, 0, sizeof avg);
    for (int g = 0; g < 4; g++) {
      hist_point(xp, st->hist, e, g * xp->n_layers + l, &one);
      for (int k = 0; k < DT_MAT_STATE_DOUBLES; k++)
        ((double *)&avg)[k] += 0.25 * ((double *)&one)[k];
    }
    *peeq = avg.p;
  }
  if (dt_mitc4_centre_stress(X0, D0, x, D, xp->thick[e], zeta, mat,
                             mat->plastic && st->hist ? &avg : NULL, sig, eps) != DT_MITC4_OK) {
    memset(sig, 0, 6 * sizeof *sig);
    memset(eps, 0, 6 * sizeof *eps);
  }
}

/* R V R^T of a symmetric Voigt tensor (xx, yy, zz, xy, xz, yz; shears times `shear` in and out:
 * 1 for stresses, 2 for engineering strains). */
static void rotate_voigt(const double R[9], const double v[6], double shear, double out[6]) {
  double V[9], RV[9], W[9];
  int i, j, k;
  V[0] = v[0], V[4] = v[1], V[8] = v[2];
  V[1] = V[3] = v[3] / shear, V[2] = V[6] = v[4] / shear, V[5] = V[7] = v[5] / shear;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      RV[3 * i + j] = 0.0;
      for (k = 0; k < 3; k++) RV[3 * i + j] += R[3 * i + k] * V[3 * k + j];
    }
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      W[3 * i + j] = 0.0;
      for (k = 0; k < 3; k++) W[3 * i + j] += RV[3 * i + k] * R[3 * j + k];
    }
  out[0] = W[0], out[1] = W[4], out[2] = W[8];
  out[3] = shear * 0.5 * (W[1] + W[3]), out[4] = shear * 0.5 * (W[2] + W[6]);
  out[5] = shear * 0.5 * (W[5] + W[7]);
}

/* hex8 element e, output point q (the one point for the reduced form): sigma = R S R^T, the
 * corotational strain U - I turned the same way, R eps R^T (engineering shears), and PEEQ. */
static void hex8_point(const dt_xp_problem *xp, const dt_xp_state *st, int e, int q, double sig[6],
                       double strain[6], double *peeq) {
  const size_t nc = dt_xp_copies(xp), ne = (size_t)xp->ne;
  const dt_material_params *mat = &xp->mats[xp->mat[e]];
  double X0[24], u[24], b[24], H[9], F[9], R[9], P[9], eps[6], S[6];
  dt_mat_state old, now;
  int a, i, j, k;
  for (a = 0; a < 8; a++)
    for (k = 0; k < 3; k++) {
      const size_t c = (size_t)a * ne + (size_t)e;
      X0[3 * a + k] = xp->X0[k * nc + c];
      u[3 * a + k] = st->u[k * nc + c];
    }
  if (xp->form == DT_HEX8X_REDUCED) {
    if (!(dt_hex8x_mean_gradients(X0, b) > 0.0)) goto zero;
  } else {
    double C[9], xi[3], det;
    dt_hex8x_point(kernel_point(q), xi);
    det = dt_hex8x_jacobian(X0, xi, C);
    if (!(det > 0.0)) goto zero;
    for (a = 0; a < 8; a++) { /* grad0 N_a = C dN_a / det J */
      dt_hex8x_cgrad(C, a, xi, &b[3 * a]);
      for (k = 0; k < 3; k++) b[3 * a + k] /= det;
    }
  }
  for (i = 0; i < 9; i++) H[i] = 0.0; /* H = sum_a u_a (x) grad0 N_a */
  for (a = 0; a < 8; a++)
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) H[3 * i + j] += u[3 * a + i] * b[3 * a + j];
  *peeq = 0.0;
  if (mat->plastic && st->hist) {
    hist_point(xp, st->hist, e, xp->form == DT_HEX8X_REDUCED ? 0 : kernel_point(q), &old);
    *peeq = old.p;
    if (dt_hex8x_stress(H, mat, &old, &now, P, eps, S) < 0) goto zero;
  } else if (dt_hex8x_stress(H, mat, NULL, &now, P, eps, S) < 0)
    goto zero;
  for (i = 0; i < 9; i++) F[i] = H[i] + ((i % 4 == 0) ? 1.0 : 0.0);
  if (dt_hex8x_polar(F, R)) goto zero;
  rotate_voigt(R, S, 1.0, sig);
  rotate_voigt(R, eps, 2.0, strain);
  return;
zero:
  memset(sig, 0, 6 * sizeof *sig);
  memset(strain, 0, 6 * sizeof *strain);
  *peeq = 0.0;
}

dt_status dt_xp_fields_alloc(const dt_model *m, const dt_xp_problem *xp, dt_fields *f,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int np = dt_xp_field_points(xp);
  const size_t nq = (size_t)np * (size_t)xp->ne, nc = dt_xp_copies(xp);
  for (int e = 0; e <= xp->ne; e++) f->qp_ptr[e] = np * e;
  f->n_qp = (int)nq;
  if (!dt_xp_fields_wanted(m)) goto cleanup;
  DT_ALLOC(f->qp_x, 3 * nq, ctx, "point coordinates");
  DT_ALLOC(f->qp_stress, 6 * nq, ctx, "stress field");
  DT_ALLOC(f->qp_strain, 6 * nq, ctx, "strain field");
  DT_ALLOC(f->qp_peeq, nq, ctx, "plastic strain field");
  for (int e = 0; e < xp->ne; e++) { /* reference positions of the points */
    double c[3] = {0, 0, 0}, d[3] = {0, 0, 0};
    const int npe = xp->npe;
    for (int a = 0; a < npe; a++)
      for (int k = 0; k < 3; k++) {
        const size_t cp = (size_t)a * xp->ne + (size_t)e;
        c[k] += xp->X0[k * nc + cp] / npe;
        if (xp->kind == DT_XP_SHELL4) d[k] += xp->D0[k * nc + cp] / npe;
      }
    for (int q = 0; q < np; q++) {
      double *xq = f->qp_x + 3 * ((size_t)np * e + q);
      if (xp->kind == DT_XP_SHELL4) { /* bottom, top */
        const double z = (q == 0 ? -0.5 : 0.5) * xp->thick[e];
        for (int k = 0; k < 3; k++) xq[k] = c[k] + z * d[k];
      } else if (np == 1) {
        for (int k = 0; k < 3; k++) xq[k] = c[k];
      } else {
        double xi[3], N[8];
        dt_hex8x_point(kernel_point(q), xi);
        for (int a = 0; a < 8; a++)
          N[a] = 0.125 * (1 + dt_hex8x_sign(a, 0) * xi[0]) * (1 + dt_hex8x_sign(a, 1) * xi[1]) *
                 (1 + dt_hex8x_sign(a, 2) * xi[2]);
        for (int k = 0; k < 3; k++) {
          xq[k] = 0.0;
          for (int a = 0; a < 8; a++)
            xq[k] += N[a] * xp->X0[k * nc + (size_t)a * xp->ne + (size_t)e];
        }
      }
    }
  }
cleanup:
  return rc;
}

void dt_xp_fields_compute(const dt_xp_problem *xp, const dt_xp_state *st, dt_fields *f) {
  const int np = dt_xp_field_points(xp);
  if (!f->qp_stress) return;
#pragma omp parallel for schedule(static)
  for (int e = 0; e < xp->ne; e++)
    for (int q = 0; q < np; q++) {
      const size_t i = (size_t)np * e + q;
      if (xp->kind == DT_XP_SHELL4)
        shell_point(xp, st, e, q == 0 ? -1.0 : 1.0, f->qp_stress + 6 * i, f->qp_strain + 6 * i,
                    f->qp_peeq + i);
      else
        hex8_point(xp, st, e, q, f->qp_stress + 6 * i, f->qp_strain + 6 * i, f->qp_peeq + i);
    }
}
