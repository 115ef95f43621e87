/* CalculiX's *EL PRINT energies and volumes (output_dat.h): ENER, ELSE, EVOL, formed on the host
 * from the converged point stresses and strains the backends download, so both backends print
 * the same numbers.
 *
 * CalculiX 2.20 accumulates ENER increment by increment, ener += (sigma_old + sigma_new) :
 * (eps_new - eps_old) / 2 over the mechanical strain (resultsmech.f), i.e. the work done on the
 * point, plastic dissipation included. For a linear elastic material starting unstressed that
 * sum is path independent and equals 1/2 sigma : eps at any increment, which is what is formed
 * here (an initial stress sigma0 would make it sigma0 : eps + 1/2 eps : C : eps); a
 * plastic point would need the accumulated work as a history variable, so the importer refuses
 * ENER and ELSE on element sets with a plastic material (import_inp_output.c). */
#include "io/output_dat.h"

#include "element/element.h"

#include <string.h>

/* Engineering shears in ductile's strain field: sigma : eps = sum of normal products plus
 * sigma_ij gamma_ij over the shears. */
void dt_point_energy(const dt_fields *f, double *ener) {
  for (int q = 0; q < f->n_qp; q++) {
    const double *s = &f->qp_stress[6 * (size_t)q], *e = &f->qp_strain[6 * (size_t)q];
    double w = 0.0;
    for (int k = 0; k < 6; k++) w += s[k] * e[k];
    ener[q] = 0.5 * w;
  }
}

/* The element's volume, sum over its points of w det J (times the section's thickness in 2D, as
 * CalculiX's expanded plane elements have it), and, when ener is given, the volume integral of
 * ener with the same rule. Returns 0, or -1 when the fields do not carry the element's points. */
int dt_elem_volume_energy(const dt_model *m, const dt_fields *f, int e, const double *ener,
                          double *volume, double *energy) {
  const int type = m->elem_type[e], npe = dt_elem_nnodes(type);
  const int *cn = m->conn + m->elem_ptr[e];
  double X[3 * DT_ELEM_MAX_NODES], N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES],
      dNdx[3 * DT_ELEM_MAX_NODES], thick = 1.0;

  *volume = 0.0;
  if (energy) *energy = 0.0;
  if (type >= DT_NTYPES || !f->qp_ptr || f->n_elems != m->n_elems ||
      f->qp_ptr[e + 1] - f->qp_ptr[e] != dt_elem_nqp(type))
    return -1;
  if (m->dim == 2 && m->elem_section) {
    const dt_section *sec = &m->sections[m->elem_section[e]];
    if (sec->thickness > 0) thick = sec->thickness;
  }
  for (int a = 0; a < npe; a++) memcpy(&X[3 * a], &m->x[3 * (size_t)cn[a]], 3 * sizeof(double));
  for (int q = 0; q < dt_elem_nqp(type); q++) {
    double xi[3], w = 0.0, dv = 0.0;
    dt_elem_qp(type, q, xi, &w);
    dt_elem_shape(type, xi, N, dN);
    dv = w * dt_elem_gradients(type, X, dN, dNdx) * thick;
    *volume += dv;
    if (energy && ener) *energy += ener[f->qp_ptr[e] + q] * dv;
  }
  return 0;
}
