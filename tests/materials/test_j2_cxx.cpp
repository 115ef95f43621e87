// The material header must compile as C++ (nvcc compiles it into CUDA kernels): this source is
// built by g++ as C++ and runs one plastic and one elastic update.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "material/update.h"

int main() {
  dt_material_params m;
  std::memset(&m, 0, sizeof m);
  m.E = 200e3;
  m.nu = 0.3;
  m.plastic = 1;
  m.iso = DT_ISO_VOCE;
  m.sigma_y0 = 450.0;
  m.H = 2e3;
  m.voce_Q = 200.0;
  m.voce_b = 300.0;
  m.H_kin = 10e3;
  dt_mat_state old_state, new_state;
  std::memset(&old_state, 0, sizeof old_state);
  double eps[6] = {6e-3, -1e-3, -2e-3, 1e-3, 0.5e-3, -0.5e-3}, sig[6], D[36];
  int res = dt_material_update(&m, DT_STATE_3D, eps, &old_state, &new_state, sig, D);
  double xi[6];
  dt_voigt_dev(sig, xi);
  for (int i = 0; i < 6; i++) xi[i] -= new_state.beta[i];
  double sy = dt_yield_stress(&m, new_state.p, 0);
  if (res != DT_MAT_PLASTIC || std::fabs(dt_mises_voigt(xi) - sy) > 1e-10 * sy) {
    std::fprintf(stderr, "test_j2_cxx: plastic update wrong (status %d, q %.15g, sigma_y %.15g)\n", res,
                 dt_mises_voigt(xi), sy);
    return 1;
  }
  double small[6] = {1e-4, 0, 0, 0, 0, 0};
  res = dt_material_update(&m, DT_STATE_PLANE_STRESS, small, &old_state, &new_state, sig, D);
  if (res != DT_MAT_ELASTIC || std::fabs(sig[0] - 1e-4 * m.E / (1 - m.nu * m.nu)) > 1e-9) {
    std::fprintf(stderr, "test_j2_cxx: plane stress update wrong (status %d, sig_xx %.15g)\n", res, sig[0]);
    return 1;
  }
  return 0;
}
