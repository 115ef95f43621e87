/* Host-side element checks: geometry validation with user-facing messages, and volumes.
 *
 * The kernels in element.h cannot report errors; the model compiler calls these once per
 * element before a backend sees the mesh, so an inverted or degenerate element is reported
 * by its user id instead of surfacing as a NaN or an indefinite matrix later. */
#ifndef DT_ELEMENT_CHECK_H
#define DT_ELEMENT_CHECK_H

#include <stdint.h>

#include "core/dt_status.h"

/* Relative threshold on det J: an element is degenerate when det J <= DT_ELEM_DETJ_TOL * h^dim
 * somewhere, h its bounding-box size. Far above round-off (~1e-16), far below any usable
 * element's distortion. */
#define DT_ELEM_DETJ_TOL 1e-12

/* Check the element of type `type` (model.h dt_elem_type) with node coordinates X[a*3+k]:
 * all used coordinates finite, and det J > DT_ELEM_DETJ_TOL * h^dim at every integration
 * point of the element's rule and, for the types on a reference cube or square (hex8, the
 * 20-node hexahedra, the quadrilaterals) and the wedges, at every node. On failure returns
 * DT_ERR_INPUT with a message in ctx naming user_elem_id; DT_OK otherwise. */
dt_status dt_elem_check_geometry(int type, const double *X, int64_t user_elem_id, dt_ctx *ctx);

/* Volume by the element's rule, sum_q det J_q w_q (area per unit thickness for 2D types). */
double dt_elem_volume(int type, const double *X);

#endif
