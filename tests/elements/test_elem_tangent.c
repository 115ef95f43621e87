/* The element tangent is the derivative of the element's internal force, for every element
 * type, elastic and plastic (J2 with linear hardening, from a zero history), with and without
 * B-bar where the type has it: Ke against central differences of fe(u) (step 1e-7 of the
 * displacement scale), relative to max |Ke|, tolerance 1e-5. Plastic states are reached by a
 * random displacement large enough that most points yield (checked: at least one plastic
 * point, else the check would only cover elasticity). */
#include <string.h>

#include "element/element_kernel.h"
#include "elem_test.h"

static dt_material_params j2_linear(void) {
  dt_material_params m;
  memset(&m, 0, sizeof m);
  m.E = 200000.0;
  m.nu = 0.3;
  m.plastic = DT_PLASTIC_J2;
  m.iso = DT_ISO_LINEAR;
  m.sigma_y0 = 250.0;
  m.H = 2000.0;
  return m;
}

/* fe and (if Ke) the tangent of the element at ue; returns the plastic point count. */
static int element(int type, const double *X, const double *ue, int bbar,
                   const dt_material_params *m, double *fe, double *Ke) {
  static double hist[DT_MAT_STATE_DOUBLES * DT_ELEM_MAX_QP]; /* zero: virgin material */
  const int state = dt_elem_dim(type) == 3 ? DT_STATE_3D : DT_STATE_PLANE_STRAIN;
  dt_qp_arrays qa = {hist, NULL, NULL, NULL, DT_ELEM_MAX_QP, NULL};
  return dt_element_residual(type, X, ue, m, state, bbar, 1.0, &qa, 0, fe, Ke);
}

static void check(int type, int bbar, double amplitude) {
  const int nde = dt_elem_ndof(type);
  const dt_material_params m = j2_linear();
  double X[3 * DT_ELEM_MAX_NODES], ue[DT_ELEM_MAX_DOF], fp[DT_ELEM_MAX_DOF], fm[DT_ELEM_MAX_DOF];
  double fe[DT_ELEM_MAX_DOF], Ke[DT_ELEM_MAX_DOF * DT_ELEM_MAX_DOF], kmax = 0.0, err = 0.0;
  int plastic, i, j;
  distorted_element(type, 0.05, X);
  for (i = 0; i < nde; i++) ue[i] = urand(-amplitude, amplitude);
  plastic = element(type, X, ue, bbar, &m, fe, Ke);
  EXPECT(amplitude == 0.0 || plastic > 0, "%s bbar %d: no plastic point at amplitude %g",
         elem_names[type], bbar, amplitude);
  for (i = 0; i < nde * nde; i++) kmax = fmax(kmax, fabs(Ke[i]));
  for (j = 0; j < nde; j++) {
    const double h = 1e-7 * fmax(amplitude, 1e-3), keep = ue[j];
    ue[j] = keep + h;
    element(type, X, ue, bbar, &m, fp, NULL);
    ue[j] = keep - h;
    element(type, X, ue, bbar, &m, fm, NULL);
    ue[j] = keep;
    for (i = 0; i < nde; i++) err = fmax(err, fabs((fp[i] - fm[i]) / (2.0 * h) - Ke[i * nde + j]));
  }
  EXPECT(err <= 1e-5 * kmax, "%s bbar %d amplitude %g: |Ke - dfe/du| = %.3g, max |Ke| = %.3g",
         elem_names[type], bbar, amplitude, err, kmax);
}

int main(void) {
  int type, t;
  for (type = 0; type < DT_NTYPES; type++)
    for (t = 0; t < 3; t++) {
      check(type, 0, 0.0);  /* elastic */
      check(type, 0, 0.02); /* plastic: strains of a few 1e-2 against yield at 1.25e-3 */
      if (type == DT_HEX8 || type == DT_QUAD4) check(type, 1, 0.02);
    }
  return elem_test_result("test_elem_tangent");
}
