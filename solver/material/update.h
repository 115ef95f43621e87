/* The material point update of any material: the yield criterion of the material chooses the
 * return mapping (j2.h for elastic and von Mises, mohr_coulomb.h for Mohr-Coulomb). Both have
 * the contract documented at dt_j2_update_form. Host and device code (STYLE.md §3).
 *
 * The CUDA stress kernel of meshes without a Mohr-Coulomb material calls dt_j2_update_form
 * directly: one criterion compiled into the kernel keeps its register count (and so the speed
 * of the benchmarked J2 path) what it was. */
#ifndef DT_MATERIAL_UPDATE_H
#define DT_MATERIAL_UPDATE_H

#include "j2.h"
#include "mohr_coulomb.h"

DT_HD static inline int dt_material_update_form(const dt_material_params *m, int stress_state,
                                                const double eps[6], const dt_mat_state *old_state,
                                                dt_mat_state *new_state, double sig[6],
                                                double D[36], dt_tangent_form *form) {
  if (m->plastic == DT_PLASTIC_MOHR_COULOMB)
    return dt_mc_update_form(m, stress_state, eps, old_state, new_state, sig, D, form);
  return dt_j2_update_form(m, stress_state, eps, old_state, new_state, sig, D, form);
}

/* The update without the tangent form (the CPU backend's call). */
DT_HD static inline int dt_material_update(const dt_material_params *m, int stress_state,
                                           const double eps[6], const dt_mat_state *old_state,
                                           dt_mat_state *new_state, double sig[6], double D[36]) {
  return dt_material_update_form(m, stress_state, eps, old_state, new_state, sig, D,
                                 (dt_tangent_form *)0);
}

#endif
