/* Geometry checks and volumes of single elements (see element_check.h). */
#include "element_check.h"

#include <math.h>

#include "../model.h"
#include "element.h"

/* element.h uses plain ints so that it can stay free of model.h's host-only includes. */
_Static_assert(DT_HEX8 == DT_ELEM_HEX8, "element.h type codes must match model.h");
_Static_assert(DT_TET4 == DT_ELEM_TET4, "element.h type codes must match model.h");
_Static_assert(DT_TET10 == DT_ELEM_TET10, "element.h type codes must match model.h");
_Static_assert(DT_QUAD4 == DT_ELEM_QUAD4, "element.h type codes must match model.h");
_Static_assert(DT_TRI3 == DT_ELEM_TRI3, "element.h type codes must match model.h");
_Static_assert(DT_QUAD8 == DT_ELEM_QUAD8, "element.h type codes must match model.h");
_Static_assert(DT_QUAD9 == DT_ELEM_QUAD9, "element.h type codes must match model.h");
_Static_assert(DT_QUAD16 == DT_ELEM_QUAD16, "element.h type codes must match model.h");
_Static_assert(DT_NTYPES == DT_ELEM_NTYPES, "element.h type codes must match model.h");

static const char *type_name(int type) {
  switch (type) {
  case DT_HEX8: return "hex8";
  case DT_TET4: return "tet4";
  case DT_TET10: return "tet10";
  case DT_QUAD4: return "quad4";
  case DT_TRI3: return "tri3";
  case DT_QUAD8: return "quad8";
  case DT_QUAD9: return "quad9";
  case DT_QUAD16: return "quad16";
  }
  return "unknown";
}

/* Largest bounding-box extent over the used coordinates: the length scale of det J. */
static double elem_size(int type, const double *X) {
  const int n = dt_elem_nnodes(type), dim = dt_elem_dim(type);
  double h = 0.0, lo, hi;
  int a, k;
  for (k = 0; k < dim; k++) {
    lo = hi = X[k];
    for (a = 1; a < n; a++) {
      lo = fmin(lo, X[a * 3 + k]);
      hi = fmax(hi, X[a * 3 + k]);
    }
    h = fmax(h, hi - lo);
  }
  return h;
}

/* det J at reference point xi. */
static double detj_at(int type, const double *X, const double xi[3]) {
  double N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES], dNdx[3 * DT_ELEM_MAX_NODES];
  dt_elem_shape(type, xi, N, dN);
  return dt_elem_gradients(type, X, dN, dNdx);
}

/* Smallest det J over the integration points and, for hex8 and the quadrilaterals, the nodes
 * (a bilinear map folds first at a corner; a higher-order one can fold at any node).
 * *where is "integration point" or "node", *index 1-based. */
static double min_detj(int type, const double *X, const char **where, int *index) {
  const int nqp = dt_elem_nqp(type);
  const int ncorner = dt_elem_is_tensor(type) ? dt_elem_nnodes(type) : 0;
  double xi[3], w, d, dmin = INFINITY;
  int q;
  for (q = 0; q < nqp + ncorner; q++) {
    if (q < nqp)
      dt_elem_qp(type, q, xi, &w);
    else
      dt_elem_node_xi(type, q - nqp, xi);
    d = detj_at(type, X, xi);
    if (d < dmin || isnan(d)) {
      dmin = d;
      *where = q < nqp ? "integration point" : "local node";
      *index = (q < nqp ? q : q - nqp) + 1;
      if (isnan(d)) break;
    }
  }
  return dmin;
}

dt_status dt_elem_check_geometry(int type, const double *X, int64_t user_elem_id, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const char *where = "integration point";
  int n, dim, a, k, index = 1;
  double scale, dmin;
  DT_CHECK(type >= 0 && type < DT_NTYPES, ctx, DT_ERR_INPUT, "element %lld: unknown type %d",
           (long long)user_elem_id, type);
  n = dt_elem_nnodes(type);
  dim = dt_elem_dim(type);
  for (a = 0; a < n; a++)
    for (k = 0; k < dim; k++)
      DT_CHECK(isfinite(X[a * 3 + k]), ctx, DT_ERR_INPUT,
               "element %lld: node coordinates are not finite (local node %d)",
               (long long)user_elem_id, a + 1);
  scale = pow(elem_size(type, X), dim); /* det J ~ h^dim up to the reference measure */
  dmin = min_detj(type, X, &where, &index);
  DT_CHECK(dmin > DT_ELEM_DETJ_TOL * scale, ctx, DT_ERR_INPUT,
           "element %lld (%s) is inverted or degenerate: det J = %.3g at %s %d (check node order)",
           (long long)user_elem_id, type_name(type), dmin, where, index);
cleanup:
  return rc;
}

double dt_elem_volume(int type, const double *X) {
  double xi[3], w, V = 0.0;
  int q;
  for (q = 0; q < dt_elem_nqp(type); q++) {
    dt_elem_qp(type, q, xi, &w);
    V += detj_at(type, X, xi) * w; /* V = sum_q det J_q w_q */
  }
  return V;
}
