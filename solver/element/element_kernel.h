/* Element-level residual and tangent, written once for the CPU loops and the CUDA kernels.
 *
 * For one element: gather nothing (the caller passes nodal coordinates X and displacements
 * ue in element order), then at every integration point
 *     eps = B ue                                  (B-bar when bbar: mean dilatation)
 *     eps <- eps - eps0         (eps0: the initial eigenstrain, when the model has one; the
 *                                trial strain eps_t keeps B ue)
 *     (sig, D, history) = return mapping of eps from the committed history   (material/j2.h)
 *     fe += B^T sig  w det J t                     (internal force)
 *     Ke += B^T D B  w det J t                     (consistent tangent, when Ke != NULL)
 * with t the 2D thickness, or for axisymmetric elements (stress_state DT_STATE_AXISYMMETRIC)
 * t = 2 pi r and B's hoop row N_a / r (element_kinematics.h). hex8r's one point takes the
 * element's uniform gradients and volume, and its hourglass stiffness adds K_hg ue to fe and
 * K_hg to Ke (hex8r.h).
 * Per-point arrays are structure-of-arrays: component k of point q is at [k * stride + q],
 * which gives coalesced access on the GPU and costs nothing on the CPU. */
#ifndef DT_ELEMENT_KERNEL_H
#define DT_ELEMENT_KERNEL_H

#include "core/hd.h"
#include "../material/update.h"
#include "element.h"
#include "hex8r.h"

/* Per-point arrays used by the kernel. Any pointer may be NULL to skip that output. */
typedef struct dt_qp_arrays {
  const double *hist_c; /* committed history, DT_MAT_STATE_DOUBLES components */
  double *hist_t;       /* trial history */
  double *sig_t;        /* trial stress, 6 components */
  double *eps_t;        /* trial strain B ue, 6 components */
  long stride;          /* distance between components (total number of points) */
  const double *eps0;   /* initial eigenstrain, 6 components (problem.h qp_eps0), or NULL
                           (last: initializers that omit it leave it NULL) */
} dt_qp_arrays;

DT_HD static inline void dt_hist_load(const double *h, long stride, long q, dt_mat_state *s) {
  for (int k = 0; k < 6; k++) s->eps_p[k] = h[(DT_HIST_EPS_P + k) * stride + q];
  s->p = h[DT_HIST_PEEQ * stride + q];
  for (int k = 0; k < 6; k++) s->beta[k] = h[(DT_HIST_BETA + k) * stride + q];
}

DT_HD static inline void dt_hist_store(double *h, long stride, long q, const dt_mat_state *s) {
  for (int k = 0; k < 6; k++) h[(DT_HIST_EPS_P + k) * stride + q] = s->eps_p[k];
  h[DT_HIST_PEEQ * stride + q] = s->p;
  for (int k = 0; k < 6; k++) h[(DT_HIST_BETA + k) * stride + q] = s->beta[k];
}

/* hex8i (C3D8I) condenses its incompatible modes with arrays of its own (about 5 kB), so it has
 * its own routine, which dt_element_residual calls; GPU kernels call it only where they serve
 * hex8i (the large generic instantiation), so the others do not reserve its local memory. */
#include "hex8i.h"

/* The per-point arrays of dt_element_residual_ws, each of its own length so that a GPU kernel
 * of a few element types sizes them by those types rather than by the largest type (local
 * memory is reserved for every resident thread), and separate so that the compiler drops those
 * a kernel never touches (D B without a tangent) or keeps in registers those it indexes by
 * constants: N[npe], dN, dNdx, dNdx_bar[3 npe], B and DB[6 nde], npe and nde at least the
 * element's nodes and DOFs. */
typedef struct dt_residual_work {
  double *N, *dN, *dNdx, *dNdx_bar, *B, *DB;
} dt_residual_work;

/* Returns the number of plastic points in the element, or -1 - (local point) if a return
 * mapping failed. qp0 is the index of the element's first point in the per-point arrays.
 * ws: the per-point arrays (dt_residual_work). Every type but hex8i (dt_hex8i_residual). */
DT_HD static inline int dt_element_residual_ws(int type, const double *X, const double *ue,
                                               const dt_material_params *mat, int stress_state,
                                               int bbar, double thick, const dt_qp_arrays *qa,
                                               long qp0, double *fe, double *Ke,
                                               const dt_residual_work *ws) {
  int npe = dt_elem_nnodes(type), dpn = dt_elem_dim(type), nde = npe * dpn;
  double *N = ws->N, *dN = ws->dN, *dNdx = ws->dNdx, *dNdx_bar = ws->dNdx_bar, *B = ws->B,
         *DB = ws->DB;
  double xi[3], w, vol = 0.0, eps[6], sig[6], D[36];
  dt_mat_state old_s, new_s;
  int n_plastic = 0;
  if (type == DT_HEX8I) return -1; /* dt_hex8i_residual */
  if (bbar || type == DT_HEX8R)    /* hex8r: dNdx_bar holds the uniform gradients */
    dt_elem_bbar_average_in(type == DT_HEX8R ? DT_HEX8 : type, X, N, dN, dNdx, dNdx_bar, &vol);
  for (int i = 0; i < nde; i++) fe[i] = 0.0;
  if (Ke)
    for (int i = 0; i < nde * nde; i++) Ke[i] = 0.0;
  for (int q = 0; q < dt_elem_nqp(type); q++) {
    double detJ, wdv;
    int res;
    dt_elem_qp(type, q, xi, &w);
    dt_elem_shape(type, xi, N, dN);
    detJ = dt_elem_gradients(type, X, dN, dNdx);
    if (type == DT_HEX8R) {
      dt_elem_bmatrix(type, dNdx_bar, (const double *)0, B);
      wdv = detJ > 0.0 ? vol : 0.0;
    } else {
      dt_elem_bmatrix(type, dNdx, bbar ? dNdx_bar : (const double *)0, B);
      wdv = w * detJ * thick;
    }
    if (stress_state == DT_STATE_AXISYMMETRIC) { /* hoop strain u_r / r, measure 2 pi r dA */
      double r = dt_axisym_radius(npe, N, X);
      dt_axisym_hoop_row(npe, dpn, N, r, B);
      wdv = w * detJ * DT_TWO_PI * r;
    }
    for (int r = 0; r < 6; r++) { /* eps = B ue */
      double s = 0.0;
      for (int c = 0; c < nde; c++) s += B[r * nde + c] * ue[c];
      eps[r] = s;
    }
    for (int k = 0; qa->eps_t && k < 6; k++) qa->eps_t[k * qa->stride + qp0 + q] = eps[k];
    for (int k = 0; qa->eps0 && k < 6; k++) eps[k] -= qa->eps0[k * qa->stride + qp0 + q];
    dt_hist_load(qa->hist_c, qa->stride, qp0 + q, &old_s);
    res = dt_material_update(mat, stress_state, eps, &old_s, &new_s, sig, Ke ? D : (double *)0);
    if (res == DT_MAT_NO_CONVERGENCE) return -1 - q;
    n_plastic += res == DT_MAT_PLASTIC;
    if (qa->hist_t) dt_hist_store(qa->hist_t, qa->stride, qp0 + q, &new_s);
    for (int k = 0; qa->sig_t && k < 6; k++) qa->sig_t[k * qa->stride + qp0 + q] = sig[k];
    for (int c = 0; c < nde; c++) { /* fe += B^T sig w detJ t */
      double s = 0.0;
      for (int r = 0; r < 6; r++) s += B[r * nde + c] * sig[r];
      fe[c] += s * wdv;
    }
    if (!Ke) continue;
    for (int r = 0; r < 6; r++) /* DB = D B */
      for (int c = 0; c < nde; c++) {
        double s = 0.0;
        for (int k = 0; k < 6; k++) s += D[r * 6 + k] * B[k * nde + c];
        DB[r * nde + c] = s;
      }
    for (int i = 0; i < nde; i++) /* Ke += B^T D B w detJ t */
      for (int j = 0; j < nde; j++) {
        double s = 0.0;
        for (int r = 0; r < 6; r++) s += B[r * nde + i] * DB[r * nde + j];
        Ke[i * nde + j] += s * wdv;
      }
  }
  if (type == DT_HEX8R && vol > 0.0) {
    double gam[32];
    const double c = dt_hex8r_hourglass(X, dNdx_bar, vol, dt_hex8r_modulus(mat), gam);
    dt_hex8r_hourglass_add(gam, c, ue, fe, Ke);
  }
  return n_plastic;
}

/* dt_element_residual_ws with arrays for any element type, and hex8i's routine (the CPU
 * backend's loops). */
DT_HD static inline int dt_element_residual(int type, const double *X, const double *ue,
                                            const dt_material_params *mat, int stress_state,
                                            int bbar, double thick, const dt_qp_arrays *qa,
                                            long qp0, double *fe, double *Ke) {
  double N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES], dNdx[3 * DT_ELEM_MAX_NODES];
  double dNdx_bar[3 * DT_ELEM_MAX_NODES], B[6 * DT_ELEM_MAX_DOF], DB[6 * DT_ELEM_MAX_DOF];
  dt_residual_work ws = {N, dN, dNdx, dNdx_bar, B, DB};
  if (type == DT_HEX8I) return dt_hex8i_residual(X, ue, mat, qa, qp0, fe, Ke);
  return dt_element_residual_ws(type, X, ue, mat, stress_state, bbar, thick, qa, qp0, fe, Ke, &ws);
}

#endif
