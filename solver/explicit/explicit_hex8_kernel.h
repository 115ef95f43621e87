/* One explicit time step of one hex8 element: the scheme of explicit_kernel.h (the shells')
 * for 8-node solids, shared by the CPU backend's OpenMP loop and the CUDA kernel.
 *
 * The same element-centric central differences: every element keeps private copies of its 8
 * nodes, gathers for each the forces every sharing element wrote in the previous step in
 * ascending element order (so all copies of a node stay bitwise equal), integrates them, and
 * writes its own forces at the new positions to the other force buffer. What differs from the
 * shells: 3 DOFs per node (no rotations, no frames), the element of element/hex8_explicit.h
 * (full 2 x 2 x 2 or one point with hourglass control, a model-wide choice), history per
 * point (8 or 1), pressures per face (6 per element), and the hourglass energy kept beside the
 * strain energy.
 *
 * Layout as the shells': copy c = a ne + e (DT_XP_COPY), component j of a per-copy quantity at
 * [j * 8 ne + c]; per-element quantities SoA over elements. */
#ifndef DT_EXPLICIT_HEX8_KERNEL_H
#define DT_EXPLICIT_HEX8_KERNEL_H

#include "element/hex8_explicit.h"
#include "explicit_kernel.h"

/* Loops the CUDA compiler must unroll: indexing the element's arrays by a loop counter it
 * keeps would move them from registers to local memory. */
#ifdef __CUDA_ARCH__
#define DT_XP_UNROLL _Pragma("unroll")
#else
#define DT_XP_UNROLL
#endif

typedef struct dt_xp_hex8_view {
  int ne;
  double kappa; /* the hourglass coefficient (reduced) */
  /* per node copy, SoA with stride 8 ne */
  double *u;              /* 3: displacement */
  double *v;              /* 3: half-step velocity */
  const double *X0;       /* 3: reference position */
  const double *inv_mass; /* 1: inverse mass of the node (its elements' lumped masses summed) */
  const double *fc;       /* 3: concentrated force at amplitude 1 (in every copy of the node) */
  const int *bc;          /* index into bcs, or -1 */
  const int *owner;       /* 1 in the copy that reports the node's energy */
  const int *nbr_ptr;     /* 8 ne + 1: the copies of each copy's node, ... */
  const int *nbr;         /* ... as copy indices in ascending element order, self included */
  /* per element */
  const int *mat;
  const double *pressure; /* 6 per element (face s of element e at s ne + e), at amplitude 1,
                             pushing along the inward normal (follower); NULL: none this step */
  double *hist; /* plastic meshes: DT_MAT_STATE_DOUBLES x np per element (np 8 or 1), component
                   k of point p of element e at (k np + p) ne + e */
  double *work; /* DT_XP_WORK per element, SoA */
  int *plastic; /* points that yielded in the last step */
  int *failed;  /* set to 1 when an element's update failed or it turned inside out */
  const double *f_in; /* 3 per copy: forces written in the previous step */
  double *f_out;      /* 3 per copy: this step's */
  int nf; /* the stride of f_in and f_out: 8 ne copies, then the ghost slots of a part of a split
             run (explicit_parts.c), which nbr may name */
  const dt_xp_bc *bcs;
  const dt_material_params *mats;
} dt_xp_hex8_view;

DT_HD static inline void dt_xp_hex8_hist_load(const dt_xp_hex8_view *P, int np, int p, int e,
                                              dt_mat_state *s) {
  double *d = (double *)s;
  for (int k = 0; k < DT_MAT_STATE_DOUBLES; k++) d[k] = P->hist[(size_t)(k * np + p) * P->ne + e];
}

DT_HD static inline void dt_xp_hex8_hist_store(const dt_xp_hex8_view *P, int np, int p, int e,
                                               const dt_mat_state *s) {
  const double *d = (const double *)s;
  for (int k = 0; k < DT_MAT_STATE_DOUBLES; k++) P->hist[(size_t)(k * np + p) * P->ne + e] = d[k];
}

/* The element's internal forces f (fully written), its strain energy (hourglass included) and
 * hourglass energy, the points that yielded; returns a DT_HEX8X_* status. */
DT_HD static inline int dt_xp_hex8_forces(const dt_xp_hex8_view *P, int e, const double X0[24],
                                          const double u[24], const int history, const int form,
                                          double f[24], double *energy, double *e_hg,
                                          int *n_plastic) {
  const dt_material_params *mat = &P->mats[P->mat[e]];
  const int keep = history && mat->plastic;
  dt_mat_state st;
  int rc = DT_HEX8X_OK, r, pl = 0;
  if (form == DT_HEX8X_REDUCED) {
    if (keep) dt_xp_hex8_hist_load(P, 1, 0, e, &st);
    rc = dt_hex8x_reduced(X0, u, mat, keep ? &st : (const dt_mat_state *)0, &st, P->kappa, f,
                          energy, e_hg, n_plastic);
    if (keep) dt_xp_hex8_hist_store(P, 1, 0, e, &st);
    return rc;
  }
  for (int i = 0; i < 24; i++) f[i] = 0.0;
  *energy = 0.0, *e_hg = 0.0, *n_plastic = 0;
  for (int q = 0; q < 8; q++) { /* one point's history live at a time */
    if (keep) dt_xp_hex8_hist_load(P, 8, q, e, &st);
    r = dt_hex8x_full_point(X0, u, q, mat, keep ? &st : (const dt_mat_state *)0, &st, f, energy,
                            &pl);
    if (keep) dt_xp_hex8_hist_store(P, 8, q, e, &st);
    *n_plastic += pl;
    if (r > rc) rc = r;
  }
  return rc;
}

/* The follower pressures on the element's faces at positions X0 + u: their nodal forces added
 * to fp (f_a = p integral of N_a (x_,r x x_,s) over the face, whose node order (Abaqus's,
 * element_face.h) turns that normal into the element). */
DT_HD static inline void dt_xp_hex8_pressure(const dt_xp_hex8_view *P, int e, double amp,
                                             const double X0[24], const double u[24],
                                             double fp[24]) {
  const int fn[6][4] = {{0, 1, 2, 3}, {4, 7, 6, 5}, {0, 4, 5, 1},
                        {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 4, 0}};
  DT_XP_UNROLL
  for (int s = 0; s < 6; s++) {
    const double p = P->pressure[s * P->ne + e] * amp;
    double xf[12], ff[12];
    if (p != 0.0) {
      DT_XP_UNROLL
      for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) xf[3 * a + k] = X0[3 * fn[s][a] + k] + u[3 * fn[s][a] + k];
      dt_xp_pressure_forces(xf, -p, ff); /* -p: dt_xp_pressure_forces pushes against the normal */
      DT_XP_UNROLL
      for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) fp[3 * fn[s][a] + k] += ff[3 * a + k];
    }
  }
}

/* The step of element e (explicit_kernel.h's dt_xp_element_step for hex8). history: the mesh
 * has plastic elements; form: DT_HEX8X_FULL or _REDUCED; pressure: the step may have pressures
 * (P->pressure is read only then); all three constants at the CUDA call site, so that a kernel
 * carries only the code its mesh and step need (the pressures' code alone costs the elastic
 * one-point kernel 160 bytes of stack). */
DT_HD static inline void dt_xp_hex8_step(const dt_xp_hex8_view *P, const dt_xp_time *T, int e,
                                         const int history, const int form, const int pressure) {
  const int ns = 8 * P->ne;
  double x0[24], u[24], fx[24];
  double w_ext = 0.0, w_p = 0.0, w_damp = 0.0, w_damp_prev = 0.0, ke = 0.0, w_net = 0.0;
  double w_drive = 0.0, w_drive_prev = 0.0;
  double energy = 0.0, e_hg = 0.0;
  const int move = T->dt > 0.0;
  const double h_next = move ? 0.5 * T->dt : T->h_before;
  const double damp = 1.0 / (1.0 + T->alpha * T->h_before);
  const double w0 = dt_xp_start_share(T);
  int a, k;

  /* 1. the nodes: gather, accelerate, move, store */
  for (a = 0; a < 8; a++) {
    const int c = DT_XP_COPY(e, a, P->ne);
    double f[3] = {0, 0, 0}, v[3], vn[3];
    const double im = P->inv_mass[c];
    for (int j = P->nbr_ptr[c]; j < P->nbr_ptr[c + 1]; j++) {
      const int o = P->nbr[j];
      for (k = 0; k < 3; k++) f[k] += P->f_in[k * P->nf + o];
    }
    for (k = 0; k < 3; k++) {
      /* a = (f / m - alpha v) / (1 + alpha h_before), v += (dt/2 + h_before) a */
      const double acc =
          ((T->amp_n * P->fc[k * ns + c] - f[k]) * im - T->alpha * P->v[k * ns + c]) * damp;
      v[k] = P->v[k * ns + c];
      vn[k] = v[k] + (h_next + T->h_before) * acc;
    }
    if (P->bc[c] >= 0) {
      const dt_xp_bc *b = &P->bcs[P->bc[c]];
      for (k = 0; k < 3; k++)
        if (b->fix & (1u << k)) {
          const double vp = b->value[k] * ((b->rate >> k) & 1u ? T->rate_mid : T->amp_mid);
          if (P->owner[c]) /* the support's work (explicit_kernel.h, dt_xp_drive_work) */
            dt_xp_drive_work(vp - vn[k], v[k], vp, im, h_next + T->h_before, damp, T, &w_drive_prev,
                             &w_drive);
          vn[k] = vp;
        }
    }
    if (move) /* an evaluation (dt = 0) leaves u as it is: u + 0 v */
      for (k = 0; k < 3; k++) {
        P->u[k * ns + c] += T->dt * vn[k];
        P->v[k * ns + c] = vn[k];
      }
    if (P->owner[c]) { /* the node's energy terms, once per node (explicit_kernel.h) */
      const double m = 1.0 / im;
      for (k = 0; k < 3; k++) {
        w_ext += (w0 * T->amp_n + 0.5 * T->amp_n1) * P->fc[k * ns + c] * T->dt * vn[k];
        if (T->alpha > 0.0 || T->energy) {
          /* the previous interval's share over its own length 2 h_before: none at the run's
           * first step, and the closing evaluation (dt = 0) completes the last interval (the
           * shells' kernel takes dt here, which misses both) */
          w_damp_prev += 0.25 * T->alpha * m * v[k] * (v[k] + vn[k]) * 2.0 * T->h_before;
          w_damp += w0 * T->alpha * m * vn[k] * dt_xp_mean_velocity(T, v[k], vn[k]) * T->dt;
          if (T->energy) ke += 0.5 * m * v[k] * vn[k];
        }
      }
    }
  }
  /* 2. the element's forces at the new positions (read back: the element's arrays are not
   * kept through the gathers, which leaves the registers to the element) */
  for (a = 0; a < 8; a++) {
    const int c = DT_XP_COPY(e, a, P->ne);
    for (k = 0; k < 3; k++) {
      x0[3 * a + k] = P->X0[k * ns + c];
      u[3 * a + k] = P->u[k * ns + c];
    }
  }
  {
    int n_plastic = 0;
    if (dt_xp_hex8_forces(P, e, x0, u, history, form, fx, &energy, &e_hg, &n_plastic))
      *P->failed = 1;
    P->plastic[e] = n_plastic;
    if (pressure &&
        P->pressure) { /* the follower pressures, now and at the step's start (their work) */
      double fp[24], dx[24];
      for (k = 0; k < 24; k++) {
        fp[k] = 0.0;
        dx[k] = T->dt * P->v[(k % 3) * ns + DT_XP_COPY(e, k / 3, P->ne)];
      }
      dt_xp_hex8_pressure(P, e, T->amp_n1, x0, u, fp);
      for (k = 0; k < 24; k++) {
        w_p += 0.5 * fp[k] * dx[k];
        fx[k] -= fp[k]; /* the resisting force */
        u[k] -= dx[k];  /* the displacements at the step's start */
        fp[k] = 0.0;
      }
      dt_xp_hex8_pressure(P, e, T->amp_n, x0, u, fp);
      for (k = 0; k < 24; k++) w_p += w0 * fp[k] * dx[k];
    }
  }
  /* 3. the forces written; the work of the resisting forces, trapezoidal */
  for (a = 0; a < 8; a++) {
    const int c = DT_XP_COPY(e, a, P->ne);
    for (k = 0; k < 3; k++) {
      w_net += (w0 * P->f_in[k * P->nf + c] + 0.5 * fx[3 * a + k]) * T->dt * P->v[k * ns + c];
      P->f_out[k * P->nf + c] = fx[3 * a + k];
    }
  }
  if (T->energy) {
    P->work[DT_XP_KE * P->ne + e] = ke;
    P->work[DT_XP_S_INT * P->ne + e] = P->work[DT_XP_W_INT * P->ne + e];
    P->work[DT_XP_S_EXT * P->ne + e] = P->work[DT_XP_W_EXT * P->ne + e] + w_drive_prev;
    P->work[DT_XP_S_DAMP * P->ne + e] = P->work[DT_XP_W_DAMP * P->ne + e] + w_damp_prev;
  }
  if (T->strain) {
    P->work[DT_XP_U * P->ne + e] = energy;
    P->work[DT_XP_HG * P->ne + e] = e_hg;
  }
  P->work[DT_XP_W_INT * P->ne + e] += w_net + w_p;
  P->work[DT_XP_W_EXT * P->ne + e] += w_ext + w_p + (move ? w_drive_prev + w_drive : 0.0);
  P->work[DT_XP_W_DAMP * P->ne + e] += w_damp_prev + w_damp;
}

#endif
