/* Shared helpers for the material tests: the material zoo, a failure macro, finite-difference
 * tangents and a small uniaxial-stress driver. Tests print only on failure and exit non-zero. */
#ifndef MAT_TEST_UTIL_H
#define MAT_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "material/update.h"

static int mt_failures = 0;

#define MT_CHECK(cond, ...)                                                                        \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                            \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      mt_failures++;                                                                               \
    }                                                                                              \
  } while (0)

static inline int mt_finish(const char *name) {
  if (mt_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, mt_failures);
  return mt_failures ? 1 : 0;
}

/* Kiran unit cube steel ([Kiran2023, Sec. 3.2.1.1]), the base of every material below. */
static inline dt_material_params mt_base(void) {
  dt_material_params m;
  memset(&m, 0, sizeof m);
  m.E = 200e3;
  m.nu = 0.3;
  m.plastic = 1;
  m.iso = DT_ISO_PERFECT;
  m.sigma_y0 = 450.0;
  m.table_n = 1;
  m.table_s[0] = 450.0;
  return m;
}

enum {
  MT_ELASTIC,
  MT_PERFECT,
  MT_LINEAR,
  MT_VOCE,
  MT_TABLE,
  MT_KIN,
  MT_VOCE_KIN,
  MT_TABLE_KIN,
  MT_LINEAR_KIN,
  MT_COUNT
};

static inline const char *mt_name(int k) {
  static const char *names[MT_COUNT] = {"elastic",        "perfect",         "linear iso",
                                        "voce",           "table",           "kinematic",
                                        "voce+kinematic", "table+kinematic", "linear+kinematic"};
  return names[k];
}

static inline void mt_set_table(dt_material_params *m) {
  static const double p[5] = {0.0, 0.002, 0.005, 0.01, 0.03};
  static const double s[5] = {450.0, 520.0, 570.0, 600.0, 610.0};
  m->iso = DT_ISO_TABLE;
  m->table_n = 5;
  memcpy(m->table_p, p, sizeof p);
  memcpy(m->table_s, s, sizeof s);
}

static inline dt_material_params mt_material(int k) {
  dt_material_params m = mt_base();
  switch (k) {
  case MT_ELASTIC: m.plastic = 0; break;
  case MT_PERFECT: break;
  case MT_LINEAR:
    m.iso = DT_ISO_LINEAR;
    m.H = 66e3;
    break;
  case MT_VOCE:
    m.iso = DT_ISO_VOCE;
    m.H = 2e3;
    m.voce_Q = 200.0;
    m.voce_b = 300.0;
    break;
  case MT_TABLE: mt_set_table(&m); break;
  case MT_KIN: m.H_kin = 20e3; break;
  case MT_VOCE_KIN:
    m.iso = DT_ISO_VOCE;
    m.H = 2e3;
    m.voce_Q = 200.0;
    m.voce_b = 300.0;
    m.H_kin = 15e3;
    break;
  case MT_TABLE_KIN:
    mt_set_table(&m);
    m.H_kin = 10e3;
    break;
  case MT_LINEAR_KIN:
    m.iso = DT_ISO_LINEAR;
    m.H = 30e3;
    m.H_kin = 36e3;
    break;
  }
  return m;
}

static inline void mt_zero_state(dt_mat_state *s) { memset(s, 0, sizeof *s); }

static inline double mt_fro(const double *a, int n) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) s += a[i] * a[i];
  return sqrt(s);
}

/* Central finite-difference tangent of the update from the committed state `old`.
 * Returns 0, or 1 when a perturbed evaluation changed status or table segment (a kink within
 * h: the point is unsuitable for an FD check). */
static inline int mt_fd_tangent(const dt_material_params *m, int ss, const double eps[6],
                                const dt_mat_state *old, int status, double Dfd[36]) {
  double amax = 1e-4, h, e[6], sp[6], sm[6];
  dt_mat_state tmp;
  int i, j, rp, rm;
  for (i = 0; i < 6; i++) amax = fabs(eps[i]) > amax ? fabs(eps[i]) : amax;
  h = 1e-7 * amax;
  for (j = 0; j < 6; j++) {
    double pp, pm;
    memcpy(e, eps, sizeof e);
    e[j] = eps[j] + h;
    rp = dt_material_update(m, ss, e, old, &tmp, sp, NULL);
    pp = tmp.p;
    e[j] = eps[j] - h;
    rm = dt_material_update(m, ss, e, old, &tmp, sm, NULL);
    pm = tmp.p;
    if (rp != status || rm != status) return 1;
    if (m->iso == DT_ISO_TABLE) {
      int k;
      for (k = 0; k < m->table_n; k++)
        if ((pp - m->table_p[k]) * (pm - m->table_p[k]) <= 0.0 && status == DT_MAT_PLASTIC)
          return 1;
    }
    for (i = 0; i < 6; i++) Dfd[i * 6 + j] = (sp[i] - sm[i]) / (2.0 * h);
  }
  return 0;
}

/* Relative Frobenius error |A - B| / |B|. */
static inline double mt_rel_err(const double A[36], const double B[36]) {
  double d[36];
  int i;
  for (i = 0; i < 36; i++) d[i] = A[i] - B[i];
  return mt_fro(d, 36) / mt_fro(B, 36);
}

/* Solve a 3x3 system A x = b by Cramer's rule (A row-major). */
static inline void mt_solve3(const double A[9], const double b[3], double x[3]) {
  double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
               A[2] * (A[3] * A[7] - A[4] * A[6]);
  int c, i;
  for (c = 0; c < 3; c++) {
    double M[9];
    memcpy(M, A, sizeof M);
    for (i = 0; i < 3; i++) M[i * 3 + c] = b[i];
    x[c] = (M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
            M[2] * (M[3] * M[7] - M[4] * M[6])) /
           det;
  }
}

/* Uniaxial stress along z from the committed state `old`: Newton on (eps_x, eps_y, eps_z) with
 * residual (sig_x, sig_y, sig_z - target) when stress_control, or (sig_x, sig_y, eps_z - target)
 * otherwise; shears stay 0. eps (in: start, out: solution), new state and stress come back.
 * Returns the last update status, or -1 if Newton did not converge; *iters gets the count. */
static inline int mt_uniaxial(const dt_material_params *m, const dt_mat_state *old,
                              int stress_control, double target, double eps[6], dt_mat_state *st,
                              double sig[6], int *iters) {
  double D[36], A[9], r[3], dx[3], scale = fabs(target) > 1.0 ? fabs(target) : 1.0;
  int it, i, j, res = -1;
  if (!stress_control) scale = m->sigma_y0 > 1.0 ? m->sigma_y0 : 1.0;
  for (i = 3; i < 6; i++) eps[i] = 0.0;
  for (it = 0; it < 30; it++) {
    res = dt_material_update(m, DT_STATE_3D, eps, old, st, sig, D);
    r[0] = sig[0];
    r[1] = sig[1];
    r[2] = stress_control ? sig[2] - target : (eps[2] - target) * m->E;
    if (fabs(r[0]) <= 1e-13 * scale && fabs(r[1]) <= 1e-13 * scale && fabs(r[2]) <= 1e-13 * scale) {
      if (iters) *iters = it;
      return res;
    }
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) A[i * 3 + j] = D[i * 6 + j];
    if (!stress_control) A[6] = 0.0, A[7] = 0.0, A[8] = m->E;
    for (i = 0; i < 3; i++) r[i] = -r[i];
    mt_solve3(A, r, dx);
    for (i = 0; i < 3; i++) eps[i] += dx[i];
  }
  if (iters) *iters = it;
  return -1;
}

#endif
