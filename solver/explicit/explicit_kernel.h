/* One explicit time step of one shell element: the whole of a step's work, shared by the CPU
 * backend (an OpenMP loop over elements, explicit_cpu.c) and the CUDA backend (a thread per
 * element, cuda/cuda_explicit.cu), so both run the same arithmetic (STYLE.md §3).
 *
 * The scheme is the element-centric central-difference step of [Bartezzaghi2015, Sec. 3]
 * (seed 001): every element keeps private copies of its four nodes and integrates them
 * itself, in the reordered form (3.1)-(3.6): the step starts by gathering, for each of its
 * nodes, the forces that every element sharing the node wrote in the previous step (its own
 * included), turns them into accelerations, half-step velocities and new positions, and ends
 * by evaluating its own forces at the new positions, written to the other of two force buffers
 * (double buffering: no atomics, no colouring, no synchronisation inside a step).
 *
 * Where it departs from the paper, and why:
 *  - the gather runs over the sharing elements in ascending element order, self included
 *    (dt_xp_view.nbr), so every copy of a node adds the same numbers in the same order and
 *    the copies stay bitwise identical (the paper does not say how its copies stay equal);
 *  - a node's rotation is one unit quaternion instead of a director and two basis vectors:
 *    the current director and rotation axes are the quaternion applied to the reference
 *    ones, 4 doubles read and written per node copy instead of 9, and no drift from
 *    orthonormality;
 *  - the rotational DOFs' values are not stored (they have no meaning for large rotations);
 *  - each element accumulates its own share of the energy balance (internal work, external
 *    work, damping work, and at output steps the kinetic energy), so the balance costs no
 *    reduction per step and is summed on the host only when it is reported.
 *
 * Layout: structure of arrays. A node copy is (element e, local node a), index c = a ne + e
 * (DT_XP_COPY: consecutive elements' copies of one local node are adjacent, so a warp's loads
 * are coalesced); a per-copy quantity with k components stores component j of copy c at
 * [j * ns + c], ns = 4 ne.
 * Forces per copy: 3 forces (global axes) and 2 moments (about the node's current rotation
 * axes v1, v2), the resisting force f_int - f_pressure. */
#ifndef DT_EXPLICIT_KERNEL_H
#define DT_EXPLICIT_KERNEL_H

#include "core/hd.h"
#include "element/shell_mitc4.h"

#define DT_XP_MAX_POINTS 5                      /* points through the thickness */
#define DT_XP_COPY(e, a, ne) ((a) * (ne) + (e)) /* the copy of local node a of element e */
/* Per-element energy accumulators: the works through t^n (interval [t^n, t^{n+1}] added by
 * the step from t^n), and, written by a step with dt_xp_time.energy set, the kinetic energy at
 * t^n of the element's own nodes, 1/2 m v^{n-1/2} v^{n+1/2} (with which central differences
 * conserve energy exactly on a linear model), and the works through t^n. */
#define DT_XP_WORK 9
#define DT_XP_W_INT 0  /* internal work, trapezoidal */
#define DT_XP_W_EXT 1  /* external work: pressures and concentrated forces, trapezoidal */
#define DT_XP_W_DAMP 2 /* work of the damping forces */
#define DT_XP_KE 3     /* at t^n: kinetic energy */
#define DT_XP_S_INT 4  /* at t^n: internal work */
#define DT_XP_S_EXT 5  /* at t^n: external work */
#define DT_XP_S_DAMP 6 /* at t^n: damping work */
/* strain energy at t^{n+1}, written by a step with dt_xp_time.strain set (elastic materials:
 * the potential; plastic: its elastic part; hex8 with hourglass control: the hourglass energy
 * included) */
#define DT_XP_U 7
#define DT_XP_HG 8 /* hourglass energy at t^{n+1}, with DT_XP_U (hex8 one-point; 0 otherwise) */

/* A node's prescribed motion: fix bits (DT_DOF_X.. of model.h, 1 2 4 translations, 8 16 32
 * rotations about the global axes) and the translations' values: velocities times the
 * amplitude, or, where bit k of `rate` is set, displacements times the amplitude's rate. */
typedef struct dt_xp_bc {
  unsigned fix;
  unsigned rate;
  double value[3];
} dt_xp_bc;

typedef struct dt_xp_view {
  int ne;       /* elements */
  int n_layers; /* points through the thickness of plastic elements (history per element) */
  /* per node copy, SoA with stride 4 ne */
  double *u;              /* 3: displacement */
  double *v;              /* 5: half-step velocities, 3 translations and 2 rotations */
  double *q;              /* 4: the node's frame (v1, v2, director) as the rotation of the global
                         axes, a unit quaternion (w, x, y, z) */
  const double *X0;       /* 3: reference position */
  const double *D0;       /* 3: reference unit director */
  const double *inv_mass; /* 2: inverse translational mass, inverse rotary inertia (of the
                             masses assembled over the node) */
  const double *fc;       /* 3: concentrated force at amplitude 1 (in every copy of the node) */
  const int *bc;          /* index into bcs, or -1 for a free node */
  const int *owner;       /* 1 in the copy that reports the node's energy (its first element) */
  const int *nbr_ptr;     /* 4 ne + 1: the copies of each copy's node, ... */
  const int *nbr;         /* ... as copy indices in ascending element order, self included */
  /* per element */
  const double *thick;    /* thickness */
  const double *pressure; /* at amplitude 1, against the normal (face S1), follower */
  const int *mat;         /* material index */
  double *hist;       /* plastic elements: DT_MAT_STATE_DOUBLES x 4 n_layers per element, SoA over
                    elements: component k of point p of element e at (k * 4 n_layers + p) ne + e */
  double *work;       /* DT_XP_WORK per element, SoA */
  int *plastic;       /* points that yielded in the last step, per element */
  int *failed;        /* set to 1 (never cleared here) when an element's update failed */
  const double *f_in; /* 5 per copy: forces written in the previous step */
  double *f_out;      /* 5 per copy: this step's */
  int nf; /* the stride of f_in and f_out: 4 ne copies, then the ghost slots of a part of a split
             run (explicit_parts.c), which nbr may name */
  const dt_xp_bc *bcs;
  const dt_material_params *mats;
} dt_xp_view;

/* The scalars of one step from t^n to t^{n+1}. A step with dt = 0 is an evaluation: it
 * computes the forces (and energies) at the present state and changes no displacement,
 * velocity or rotation (the start of a run or step, the end of the run). */
typedef struct dt_xp_time {
  double dt;       /* t^{n+1} - t^n */
  double h_before; /* t^n - t^{n-1/2}: 0 at the first step, else half the previous step */
  double alpha;    /* mass-proportional damping */
  double amp_n;    /* amplitude at t^n (forces, pressures) */
  double amp_n1;   /* at t^{n+1} */
  double amp_mid;  /* at t^{n+1/2} (prescribed velocities) */
  double rate_mid; /* its rate at t^{n+1/2} (prescribed displacements) */
  int energy;      /* 1: write the kinetic energy and the works at t^n (output steps) */
  int strain;      /* 1: write the strain energy at t^{n+1} */
} dt_xp_time;

DT_HD static inline double dt_xp_dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

DT_HD static inline void dt_xp_cross3(const double *a, const double *b, double *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* q <- exp(th / 2) * q, normalised: the rotation th (a rotation vector, global axes) after q. */
DT_HD static inline void dt_xp_quat_turn(const double th[3], double q[4]) {
  double a = sqrt(dt_xp_dot3(th, th)), c, s, p[4], n;
  if (a < 1e-3) { /* cos(a/2) and sin(a/2)/a by their series, exact to round-off below 1e-3
                     (the next terms are a^6 / 46080 and a^6 / 645120): a step's turn */
    const double a2 = a * a;
    c = 1.0 - a2 / 8.0 + a2 * a2 / 384.0;
    s = 0.5 - a2 / 48.0 + a2 * a2 / 3840.0;
  } else {
    c = cos(0.5 * a);
    s = sin(0.5 * a) / a;
  }
  p[0] = c * q[0] - s * (th[0] * q[1] + th[1] * q[2] + th[2] * q[3]);
  p[1] = c * q[1] + s * (th[0] * q[0] + th[1] * q[3] - th[2] * q[2]);
  p[2] = c * q[2] + s * (th[1] * q[0] + th[2] * q[1] - th[0] * q[3]);
  p[3] = c * q[3] + s * (th[2] * q[0] + th[0] * q[2] - th[1] * q[1]);
  n = 1.0 / sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
  for (int k = 0; k < 4; k++) q[k] = p[k] * n;
}

/* A node's rotation axes v1, v2 and director d: the columns of the rotation q. */
DT_HD static inline void dt_xp_node_frame(const double q[4], double d[3], double v1[3],
                                          double v2[3]) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  v1[0] = 1.0 - 2.0 * (y * y + z * z), v1[1] = 2.0 * (x * y + w * z), v1[2] = 2.0 * (x * z - w * y);
  v2[0] = 2.0 * (x * y - w * z), v2[1] = 1.0 - 2.0 * (x * x + z * z), v2[2] = 2.0 * (y * z + w * x);
  d[0] = 2.0 * (x * z + w * y), d[1] = 2.0 * (y * z - w * x), d[2] = 1.0 - 2.0 * (x * x + y * y);
}

/* Remove from the angular velocity w (global axes) its components about the fixed global
 * axes, within the tangent plane spanned by v1, v2 (the node turns about no other axes). */
DT_HD static inline void dt_xp_fix_rotation(unsigned fix, const double v1[3], const double v2[3],
                                            double w[3]) {
  double c[2][2];
  int n = 0;
  for (int k = 0; k < 3; k++) {
    double a, b, len;
    if (!(fix & (8u << k))) continue;
    a = v1[k], b = v2[k];         /* e_k projected on the tangent plane, in (v1, v2) */
    for (int j = 0; j < n; j++) { /* Gram-Schmidt against the axes already removed */
      double p = a * c[j][0] + b * c[j][1];
      a -= p * c[j][0];
      b -= p * c[j][1];
    }
    len = sqrt(a * a + b * b);
    if (len < 1e-12 || n == 2) continue;
    c[n][0] = a / len, c[n][1] = b / len;
    n++;
  }
  {
    double wa = dt_xp_dot3(w, v1), wb = dt_xp_dot3(w, v2);
    for (int j = 0; j < n; j++) {
      double p = wa * c[j][0] + wb * c[j][1];
      wa -= p * c[j][0];
      wb -= p * c[j][1];
    }
    for (int k = 0; k < 3; k++) w[k] = wa * v1[k] + wb * v2[k];
  }
}

/* The share of an interval's work that the forces at its start t^n carry: a half (the
 * trapezoidal rule, with which central differences balance kinetic energy and work exactly),
 * but a quarter at the run's first step, whose velocity change from the start takes half a
 * step (v^{1/2} = v^0 + dt/2 a^0): loads and prescribed motions present at t = 0 then leave no
 * offset in the balance. */
DT_HD static inline double dt_xp_start_share(const dt_xp_time *T) {
  return T->h_before > 0.0 ? 0.5 : 0.25;
}

/* The velocity at t^n whose damping force the update applies: the mean of the half steps
 * around it, but the start's v^0 at the run's first step (v^{1/2} = v^0 + dt/2 a^0). */
DT_HD static inline double dt_xp_mean_velocity(const dt_xp_time *T, double v, double vn) {
  return T->h_before > 0.0 ? 0.5 * (v + vn) : v;
}

/* The work of a support that prescribes a translation's velocity vp (a node's owner copy):
 * the force R it exerts is the one with which the node's free update (3.1)-(3.3) would give vp,
 * R = m ((vp - v) / (delta damp) + alpha v) - f_free, that is m (vp - v_free) / (delta damp)
 * with dv = vp - v_free (v_free the update without the support, delta = dt/2 + h_before). Its
 * work is trapezoidal like the loads': R^n (v^{n-1/2} 2 h_before + v^{n+1/2} dt) / 2, the first
 * part completing the previous interval (*prev, as the damping work does), the second this
 * one's (*now, with dt_xp_start_share). None at the run's start evaluation (delta = 0). */
DT_HD static inline void dt_xp_drive_work(double dv, double v, double vp, double im, double delta,
                                          double damp, const dt_xp_time *T, double *prev,
                                          double *now) {
  double R;
  if (!(delta > 0.0)) return;
  R = dv / (delta * damp * im);
  *prev += 0.5 * R * v * 2.0 * T->h_before;
  *now += dt_xp_start_share(T) * R * vp * T->dt;
}

/* The follower pressure's nodal forces on a bilinear mid-surface x (4 nodes), 2x2 Gauss:
 * f_a = -p * integral of N_a (x_,r x x_,s) dr ds (p > 0 pushes against the normal). */
DT_HD static inline void dt_xp_pressure_forces(const double x[12], double p, double f[12]) {
  const double g = 0.57735026918962576;
  const double rr[4] = {-1.0, 1.0, 1.0, -1.0}, ss[4] = {-1.0, -1.0, 1.0, 1.0};
  for (int k = 0; k < 12; k++) f[k] = 0.0;
  for (int i = 0; i < 4; i++) {
    double r = rr[i] * g, s = ss[i] * g, xr[3] = {0, 0, 0}, xs[3] = {0, 0, 0}, n[3];
    for (int a = 0; a < 4; a++) {
      /* the digest's node order: h1 at (+1,+1), h2 (-1,+1), h3 (-1,-1), h4 (+1,-1) is
       * clockwise; ours is counterclockwise from (-1,-1), as CalculiX's S4 */
      double dr = 0.25 * rr[a] * (1.0 + ss[a] * s), ds = 0.25 * ss[a] * (1.0 + rr[a] * r);
      for (int k = 0; k < 3; k++) {
        xr[k] += dr * x[3 * a + k];
        xs[k] += ds * x[3 * a + k];
      }
    }
    dt_xp_cross3(xr, xs, n);
    for (int a = 0; a < 4; a++) {
      double N = 0.25 * (1.0 + rr[a] * r) * (1.0 + ss[a] * s);
      for (int k = 0; k < 3; k++) f[3 * a + k] -= p * N * n[k];
    }
  }
}

/* The step of element e in two halves, each a kernel of its own on the GPU: the nodes (gather,
 * accelerate, move, store; few registers, so the gathers' latency is hidden by many warps) and
 * the element's forces (the MITC4 points: about 250 registers, so few warps, but their loads
 * are issued together up front). One kernel per step ran both halves at the forces' occupancy;
 * the split runs the memory-bound half at the nodes' (docs/benchmarks.md, Explicit dynamics of
 * shells). The second half reads the element's own copies, which only the first half of the
 * same element writes, so the CPU runs the halves one after the other per element. */

/* 1. The nodes of element e: gather, accelerate, move, store; the nodes' energy terms (the
 * external work of concentrated forces and supports, damping work, kinetic energy). */
DT_HD static inline void dt_xp_element_nodes(const dt_xp_view *P, const dt_xp_time *T, int e) {
  const int ns = 4 * P->ne;
  double w_ext = 0.0, w_damp = 0.0, w_damp_prev = 0.0, ke = 0.0;
  double w_drive = 0.0, w_drive_prev = 0.0;
  const int move = T->dt > 0.0;
  const double h_next = move ? 0.5 * T->dt : T->h_before;
  const double damp = 1.0 / (1.0 + T->alpha * T->h_before);
  const double w0 = dt_xp_start_share(T);
  int a, k;

  for (a = 0; a < 4; a++) {
    const int c = DT_XP_COPY(e, a, P->ne);
    double f[5] = {0, 0, 0, 0, 0}, v[5], vn[5], q[4], v1[3], v2[3], dn[3], w[3];
    const double imt = P->inv_mass[c], imr = P->inv_mass[ns + c];
    for (int j = P->nbr_ptr[c]; j < P->nbr_ptr[c + 1]; j++) {
      const int o = P->nbr[j];
      for (k = 0; k < 5; k++) f[k] += P->f_in[k * P->nf + o];
    }
    for (k = 0; k < 3; k++) f[k] = T->amp_n * P->fc[k * ns + c] - f[k];
    f[3] = -f[3], f[4] = -f[4];
    for (k = 0; k < 5; k++) v[k] = P->v[k * ns + c];
    for (k = 0; k < 4; k++) q[k] = P->q[k * ns + c];
    dt_xp_node_frame(q, dn, v1, v2);
    /* (3.1) and (3.3): a = (f / m - alpha v) / (1 + alpha h_before), v += (dt/2 + h_before) a;
     * an evaluation (dt = 0) takes the next half step as long as the last, for the kinetic
     * energy only */
    for (k = 0; k < 5; k++) {
      const double acc = (f[k] * (k < 3 ? imt : imr) - T->alpha * v[k]) * damp;
      vn[k] = v[k] + (h_next + T->h_before) * acc;
    }
    if (P->bc[c] >= 0) {
      const dt_xp_bc *b = &P->bcs[P->bc[c]];
      for (k = 0; k < 3; k++)
        if (b->fix & (1u << k)) {
          const double vp = b->value[k] * ((b->rate >> k) & 1u ? T->rate_mid : T->amp_mid);
          if (P->owner[c]) /* the support's work */
            dt_xp_drive_work(vp - vn[k], v[k], vp, imt, h_next + T->h_before, damp, T,
                             &w_drive_prev, &w_drive);
          vn[k] = vp;
        }
      if (b->fix & 56u) {
        for (k = 0; k < 3; k++) w[k] = vn[3] * v1[k] + vn[4] * v2[k];
        dt_xp_fix_rotation(b->fix, v1, v2, w);
        vn[3] = dt_xp_dot3(w, v1), vn[4] = dt_xp_dot3(w, v2);
      }
    }
    if (move) { /* (3.4): move; turn by the rotation vector dt (w_1 v1 + w_2 v2) */
      for (k = 0; k < 3; k++) w[k] = T->dt * (vn[3] * v1[k] + vn[4] * v2[k]);
      dt_xp_quat_turn(w, q);
      for (k = 0; k < 3; k++) P->u[k * ns + c] += T->dt * vn[k];
      for (k = 0; k < 5; k++) P->v[k * ns + c] = vn[k];
      for (k = 0; k < 4; k++) P->q[k * ns + c] = q[k];
    }
    if (P->owner[c]) { /* the node's energy terms, once per node */
      for (k = 0; k < 3; k++)
        w_ext += (w0 * T->amp_n + 0.5 * T->amp_n1) * P->fc[k * ns + c] * T->dt * vn[k];
      /* damping work alpha m v^{n+1/2} (v^{n-1/2} + 2 v^{n+1/2} + v^{n+3/2}) dt / 4 of the
       * interval [t^n, t^{n+1}] (with which the balance is exact at a constant step): its
       * part with v^{n-1/2} now, the part with v^{n+3/2} by the next step, which first
       * completes the previous interval, of length 2 h_before (w_damp_prev) */
      if (T->alpha > 0.0 || T->energy) {
        const double mt = 1.0 / imt, mr = 1.0 / imr;
        for (k = 0; k < 5; k++) {
          const double m = k < 3 ? mt : mr;
          w_damp_prev += 0.25 * T->alpha * m * v[k] * (v[k] + vn[k]) * 2.0 * T->h_before;
          w_damp += w0 * T->alpha * m * vn[k] * dt_xp_mean_velocity(T, v[k], vn[k]) * T->dt;
          if (T->energy) ke += 0.5 * m * v[k] * vn[k];
        }
      }
    }
  }
  if (T->energy) { /* the snapshot at t^n, before this step's works are added */
    P->work[DT_XP_KE * P->ne + e] = ke;
    P->work[DT_XP_S_INT * P->ne + e] = P->work[DT_XP_W_INT * P->ne + e];
    P->work[DT_XP_S_EXT * P->ne + e] = P->work[DT_XP_W_EXT * P->ne + e] + w_drive_prev;
    P->work[DT_XP_S_DAMP * P->ne + e] = P->work[DT_XP_W_DAMP * P->ne + e] + w_damp_prev;
  }
  if (w_ext != 0.0 || (move && (w_drive_prev != 0.0 || w_drive != 0.0)))
    P->work[DT_XP_W_EXT * P->ne + e] += w_ext + (move ? w_drive_prev + w_drive : 0.0);
  /* an evaluation (dt = 0) completes the last interval for its snapshot only: the next step
   * completes it again */
  if (move && (w_damp_prev != 0.0 || w_damp != 0.0))
    P->work[DT_XP_W_DAMP * P->ne + e] += w_damp_prev + w_damp;
}

/* 2. The forces of element e at the positions and rotations that dt_xp_element_nodes stored,
 * written to f_out as moments about the nodes' new rotation axes; the internal work of the
 * resisting forces (trapezoidal) and the pressure's work. history: 1 when the mesh has plastic
 * elements (P->hist is kept), 0 when every material is elastic; a constant at the CUDA call
 * site, so the elastic kernel carries no history arrays. A failed material update sets
 * *P.failed. */
DT_HD static inline void dt_xp_element_forces(const dt_xp_view *P, const dt_xp_time *T, int e,
                                              const int history) {
  const int ns = 4 * P->ne;
  double x[12], d[12], x0[12], d0[12], fx[12], fd[12];
  double w_p = 0.0, w_net = 0.0, energy = 0.0;
  const double w0 = dt_xp_start_share(T);
  int a, k;

  for (a = 0; a < 4; a++) {
    const int c = DT_XP_COPY(e, a, P->ne);
    double q[4], v1[3], v2[3];
    for (k = 0; k < 4; k++) q[k] = P->q[k * ns + c];
    dt_xp_node_frame(q, &d[3 * a], v1, v2);
    for (k = 0; k < 3; k++) {
      x0[3 * a + k] = P->X0[k * ns + c];
      d0[3 * a + k] = P->D0[k * ns + c];
      x[3 * a + k] = x0[3 * a + k] + P->u[k * ns + c];
    }
  }
  /* the element's forces at the new positions (3.5)-(3.6) */
  {
    const double h = P->thick[e], p = P->pressure[e];
    const dt_material_params *mat = &P->mats[P->mat[e]];
    int n_plastic = 0, rc;
    if (history && mat->plastic) {
      dt_mat_state st[4 * DT_XP_MAX_POINTS];
      const int np = 4 * P->n_layers;
      for (int i = 0; i < 4 * DT_XP_MAX_POINTS; i++)
        for (k = 0; k < DT_MAT_STATE_DOUBLES; k++)
          ((double *)&st[i])[k] = i < np ? P->hist[(size_t)(k * np + i) * P->ne + e] : 0.0;
      rc = dt_mitc4_forces(x0, d0, x, d, h, mat, P->n_layers, st, st, fx, fd, &energy, &n_plastic);
      for (int i = 0; i < np; i++)
        for (k = 0; k < DT_MAT_STATE_DOUBLES; k++)
          P->hist[(size_t)(k * np + i) * P->ne + e] = ((double *)&st[i])[k];
    } else {
      rc = dt_mitc4_forces(x0, d0, x, d, h, mat, 2, (const dt_mat_state *)0, (dt_mat_state *)0, fx,
                           fd, &energy, &n_plastic);
    }
    if (rc) *P->failed = 1;
    P->plastic[e] = n_plastic;
    if (p != 0.0) { /* the follower pressure, now and at the step's start (its work) */
      double fp[12], dx[12];
      for (k = 0; k < 12; k++) dx[k] = T->dt * P->v[(k % 3) * ns + DT_XP_COPY(e, k / 3, P->ne)];
      dt_xp_pressure_forces(x, p * T->amp_n1, fp);
      for (k = 0; k < 12; k++) {
        w_p += 0.5 * fp[k] * dx[k];
        fx[k] -= fp[k]; /* the resisting force */
        x[k] -= dx[k];  /* the positions at the step's start */
      }
      dt_xp_pressure_forces(x, p * T->amp_n, fp);
      for (k = 0; k < 12; k++) w_p += w0 * fp[k] * dx[k];
    }
  }
  /* the nodes again: moments about the new rotation axes, the forces written; the work of the
   * resisting forces, trapezoidal (internal work = it + the pressure's work) */
  for (a = 0; a < 4; a++) {
    const int c = DT_XP_COPY(e, a, P->ne);
    double g[5], q[4], dn[3], v1[3], v2[3];
    for (k = 0; k < 4; k++) q[k] = P->q[k * ns + c];
    dt_xp_node_frame(q, dn, v1, v2);
    for (k = 0; k < 3; k++) g[k] = fx[3 * a + k];
    g[3] = -dt_xp_dot3(&fd[3 * a], v2); /* about v1: d turns by -v2 */
    g[4] = dt_xp_dot3(&fd[3 * a], v1);  /* about v2: d turns by +v1 */
    for (k = 0; k < 5; k++) {
      w_net += (w0 * P->f_in[k * P->nf + c] + 0.5 * g[k]) * T->dt * P->v[k * ns + c];
      P->f_out[k * P->nf + c] = g[k];
    }
  }
  if (T->strain) P->work[DT_XP_U * P->ne + e] = energy;
  /* the pressure's work is external work and, through the resisting force, internal work */
  P->work[DT_XP_W_INT * P->ne + e] += w_net + w_p;
  if (w_p != 0.0) P->work[DT_XP_W_EXT * P->ne + e] += w_p;
}

/* The whole step of element e, the halves one after the other (the CPU backend). */
DT_HD static inline void dt_xp_element_step(const dt_xp_view *P, const dt_xp_time *T, int e,
                                            const int history) {
  dt_xp_element_nodes(P, T, e);
  dt_xp_element_forces(P, T, e, history);
}

#endif
