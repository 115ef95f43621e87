/* Material parameters and per-integration-point history, shared by host and device code.
 *
 * Two plastic criteria:
 *  - J2 (von Mises) plasticity with isotropic hardening (none = perfectly plastic, linear, Voce,
 *    piecewise-linear table like CalculiX's *PLASTIC) and linear (Prager) kinematic hardening;
 *    both together give combined hardening. The update lives in j2.h.
 *  - Mohr-Coulomb, perfectly plastic, associative or not ([VilasBoas2020, Sec. 2.8]): cohesion,
 *    friction and dilation angles. The update lives in mohr_coulomb.h.
 * update.h picks one per material. Plain data only: this struct is copied verbatim to the GPU. */
#ifndef DT_MATERIAL_H
#define DT_MATERIAL_H

#include "core/hd.h"

#define DT_TABLE_MAX 32 /* points in a piecewise-linear hardening table */

typedef enum dt_iso_hardening {
  DT_ISO_PERFECT = 0, /* sigma_y(p) = sigma_y0 */
  DT_ISO_LINEAR = 1,  /* sigma_y(p) = sigma_y0 + H p */
  DT_ISO_VOCE = 2,    /* sigma_y(p) = sigma_y0 + H p + Q (1 - exp(-b p)) */
  DT_ISO_TABLE =
      3 /* sigma_y(p) piecewise linear through (table_p[i], table_s[i]), constant after */
} dt_iso_hardening;

/* How the 3D law is used by a 2D section (plane strain is the 3D law with eps_zz = 0). */
typedef enum dt_stress_state {
  DT_STATE_3D = 0,
  DT_STATE_PLANE_STRAIN = 1,
  DT_STATE_PLANE_STRESS = 2, /* elastic only (validated before solving) */
  DT_STATE_AXISYMMETRIC = 3  /* the 3D law with eps_zz the hoop strain u_r / r; the element
                                kernels add that strain and the measure 2 pi r dA
                                (element/element_kinematics.h) */
} dt_stress_state;

/* dt_material_params.plastic */
typedef enum dt_plastic_criterion {
  DT_PLASTIC_NONE = 0,        /* linear elastic */
  DT_PLASTIC_J2 = 1,          /* von Mises */
  DT_PLASTIC_MOHR_COULOMB = 2 /* Mohr-Coulomb (its tangent is the elastic one, see update.h) */
} dt_plastic_criterion;

typedef struct dt_material_params {
  double E;        /* Young's modulus */
  double nu;       /* Poisson's ratio */
  int plastic;     /* dt_plastic_criterion: 0 linear elastic, else the yield criterion */
  int iso;         /* dt_iso_hardening */
  double sigma_y0; /* initial yield stress */
  double H;        /* linear isotropic hardening modulus (LINEAR and VOCE) */
  double voce_Q;   /* Voce saturation stress increment */
  double voce_b;   /* Voce rate */
  int table_n;     /* points in the table (TABLE), >= 1; table_p[0] must be 0 */
  double table_p[DT_TABLE_MAX]; /* equivalent plastic strain, strictly increasing */
  double table_s[DT_TABLE_MAX]; /* yield stress at table_p */
  double H_kin;                 /* linear kinematic hardening modulus (Prager), 0 for none */
  /* Mohr-Coulomb: as given, and the sines/cosines the update uses (dt_material_params_derive) */
  double mc_cohesion;     /* c > 0 */
  double mc_friction_deg; /* phi, 0 <= phi < 90 degrees */
  double mc_dilation_deg; /* psi, 0 <= psi <= phi degrees */
  double mc_sin_phi, mc_cos_phi, mc_sin_psi;
  int mc_elastic_tangent; /* 1: the elastic stiffness as tangent; 0: the consistent tangent */
} dt_material_params;

/* 1 when the material's tangent is its elastic stiffness in every state (linear elastic, or
 * Mohr-Coulomb with the elastic tangent): an element's tangent then depends on its geometry
 * only, so the matrix-free operator keeps using its class's elastic matrix once it yields. */
DT_HD static inline int dt_material_tangent_is_elastic(const dt_material_params *m) {
  return m->plastic == DT_PLASTIC_NONE ||
         (m->plastic == DT_PLASTIC_MOHR_COULOMB && m->mc_elastic_tangent);
}

/* History at one integration point, committed only when an increment converges.
 * Voigt order (xx, yy, zz, xy, xz, yz); plastic strain shears are engineering strains. */
typedef struct dt_mat_state {
  double eps_p[6]; /* plastic strain */
  double p;        /* equivalent plastic strain */
  double beta[6];  /* back stress (kinematic hardening) */
} dt_mat_state;

#define DT_MAT_STATE_DOUBLES 13
/* Where dt_mat_state's parts sit among a point's DT_MAT_STATE_DOUBLES history components (the
 * backends keep them as structure of arrays: component k of point q at k * n_points + q). */
#define DT_HIST_EPS_P 0 /* plastic strain, 6 components */
#define DT_HIST_PEEQ 6  /* equivalent plastic strain */
#define DT_HIST_BETA 7  /* back stress, 6 components */

/* Doubles of the consistent tangent in the form of dt_tangent_form (j2.h): K, mu, gam, n[6]. */
#define DT_TANGENT_FORM_DOUBLES 9
/* Of those, the ones the CUDA backend stores per point (K, mu, gam; n is re-formed from the
 * stress, dt_j2_flow_direction). */
#define DT_TANGENT_FORM_STORED 3

typedef enum dt_mat_result {
  DT_MAT_ELASTIC = 0,
  DT_MAT_PLASTIC = 1,
  DT_MAT_NO_CONVERGENCE = 2 /* local Newton of the return mapping failed */
} dt_mat_result;

#endif
