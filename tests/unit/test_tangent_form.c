/* The tangent form's written-out element block (element/element_tangent_form.h, the arithmetic
 * of the CUDA cooperative tangent kernel) against B_A^T D B_B with the dense D of the same form
 * (dt_tangent_form_expand) and B from dt_elem_bnode, the CPU backend's B.
 *
 * For random gradients g, B-bar averages h, flow directions n and moduli, elastic and plastic
 * points, with and without B-bar, in 3D and in plane strain (dim 2, g_z = h_z = 0): every entry
 * agrees to 1e-13 relative to the block's largest entry (reference: the dense product; both sum
 * the same terms in different orders, so only rounding differs). */
#include <math.h>
#include <stdlib.h>

#include "element/element.h"
#include "element/element_tangent_form.h"
#include "material/j2.h"
#include "unit_model.h"

static double rnd(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

/* A unit deviatoric direction in tensor Voigt components (n:n = 1 with the shears counted twice). */
static void random_direction(double n[6]) {
  double tr, nrm = 0.0;
  for (int k = 0; k < 6; k++) n[k] = rnd();
  tr = (n[0] + n[1] + n[2]) / 3.0;
  for (int k = 0; k < 3; k++) n[k] -= tr;
  for (int k = 0; k < 6; k++) nrm += (k < 3 ? 1.0 : 2.0) * n[k] * n[k];
  for (int k = 0; k < 6; k++) n[k] /= sqrt(nrm);
}

/* Kp (dim x dim) = wt B_A^T D B_B. */
static void dense_block(int dim, int bbar, double wt, const dt_tangent_form *tf, const double *gA,
                        const double *gB, const double *hA, const double *hB, double *Kp) {
  double D[36], BA[18], BB[18];
  dt_tangent_form_expand(tf, D);
  dt_elem_bnode(dim, gA, bbar ? hA : NULL, BA);
  dt_elem_bnode(dim, gB, bbar ? hB : NULL, BB);
  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) {
      double v = 0.0;
      for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) v += BA[r * 3 + i] * D[r * 6 + c] * BB[c * 3 + j];
      Kp[i * dim + j] = wt * v;
    }
}

int main(void) {
  int cases = 0;
  double worst = 0.0;
  srand(12345);
  for (int trial = 0; trial < 2000; trial++) {
    int dim = trial % 4 < 2 ? 3 : 2, bbar = trial % 2, plastic = trial % 3 != 0;
    double gA[3], gB[3], hA[3], hB[3], wA[3], wB[3], s[4], form[9] = {0}, ref[9], scale = 0.0;
    dt_tangent_form tf;
    double wt = 0.1 + fabs(rnd());
    for (int k = 0; k < 3; k++) {
      gA[k] = k < dim ? rnd() : 0.0;
      gB[k] = k < dim ? rnd() : 0.0;
      hA[k] = k < dim ? rnd() : 0.0;
      hB[k] = k < dim ? rnd() : 0.0;
    }
    tf.K = 100.0 + 50.0 * rnd();
    tf.mu = 50.0 + 20.0 * rnd();
    tf.gam = plastic ? tf.mu * (0.5 + 0.4 * rnd()) : 0.0;
    random_direction(tf.n);
    dt_form_scales(wt, tf.K, tf.mu, tf.gam, bbar, s);
    dt_form_w(tf.n, gA, bbar ? hA : gA, bbar, wA);
    dt_form_w(tf.n, gB, bbar ? hB : gB, bbar, wB);
    dt_form_add_point(dim, bbar, s, gA, gB, hA, hB, wA, wB, form);
    dense_block(dim, bbar, wt, &tf, gA, gB, hA, hB, ref);
    for (int i = 0; i < dim * dim; i++) scale = fmax(scale, fabs(ref[i]));
    for (int i = 0; i < dim * dim; i++) {
      double d = fabs(form[i] - ref[i]) / scale;
      if (d > worst) worst = d;
      CHECK(d <= 1e-13, "dim %d, bbar %d, plastic %d: entry %d is %.17g, dense %.17g", dim, bbar,
            plastic, i, form[i], ref[i]);
    }
    cases++;
  }
  printf("tangent form: %d blocks agree with B^T D B, largest difference %.1e of the block\n",
         cases, worst);
  return 0;
}
