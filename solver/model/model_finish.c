/* dt_model_finish: everything an importer cannot check locally, done once for every format.
 *
 * Order matters: the mesh arrays are checked first (so later loops can index safely), then the
 * model dimension, coordinates and node usage, materials and sections (which assign each
 * element its section and resolve the default formulation), element geometry, and last the
 * steps, monitors and options that refer to sets. Messages name nodes and elements by their
 * user ids; the JSON parser prefixes its origin. dt_model_check_mesh runs the same mesh checks
 * alone, for a mesh that has no job yet (a Gmsh file). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/fork_safe_parallel.h"
#include "element/element.h"
#include "element/element_check.h"
#include "material/mohr_coulomb.h"
#include "model.h"
#include "model_internal.h"

/* element.h uses plain ints so that it stays free of model.h's host-only includes; the
 * codes must agree. */
_Static_assert(DT_HEX8 == DT_ELEM_HEX8, "element.h type codes must match model.h");
_Static_assert(DT_TET4 == DT_ELEM_TET4, "element.h type codes must match model.h");
_Static_assert(DT_TET10 == DT_ELEM_TET10, "element.h type codes must match model.h");
_Static_assert(DT_QUAD4 == DT_ELEM_QUAD4, "element.h type codes must match model.h");
_Static_assert(DT_TRI3 == DT_ELEM_TRI3, "element.h type codes must match model.h");
_Static_assert(DT_QUAD8 == DT_ELEM_QUAD8, "element.h type codes must match model.h");
_Static_assert(DT_QUAD9 == DT_ELEM_QUAD9, "element.h type codes must match model.h");
_Static_assert(DT_QUAD16 == DT_ELEM_QUAD16, "element.h type codes must match model.h");
_Static_assert(DT_HEX20 == DT_ELEM_HEX20, "element.h type codes must match model.h");
_Static_assert(DT_HEX20R == DT_ELEM_HEX20R, "element.h type codes must match model.h");
_Static_assert(DT_WEDGE6 == DT_ELEM_WEDGE6, "element.h type codes must match model.h");
_Static_assert(DT_WEDGE15 == DT_ELEM_WEDGE15, "element.h type codes must match model.h");
_Static_assert(DT_QUAD8R == DT_ELEM_QUAD8R, "element.h type codes must match model.h");
_Static_assert(DT_HEX8R == DT_ELEM_HEX8R, "element.h type codes must match model.h");
_Static_assert(DT_HEX8I == DT_ELEM_HEX8I, "element.h type codes must match model.h");
_Static_assert(DT_NTYPES == DT_ELEM_NCONTINUUM, "element.h type codes must match model.h");

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
  case DT_HEX20: return "hex20";
  case DT_HEX20R: return "hex20r";
  case DT_WEDGE6: return "wedge6";
  case DT_WEDGE15: return "wedge15";
  case DT_QUAD8R: return "quad8r";
  case DT_HEX8R: return "hex8r";
  case DT_HEX8I: return "hex8i";
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

/* det J at reference point xi (dt_elem_gradients' determinant, without the gradients). */
static double detj_at(int type, const double *X, const double xi[3]) {
  double N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES], J[9], cof[9];
  dt_elem_shape(type, xi, N, dN);
  dt_elem_jacobian(type, X, dN, J);
  return dt_jacobian_cofactor(dt_elem_dim(type), J, cof);
}

/* The points where det J is checked: the integration points and, for the types on a reference
 * cube or square (hex8, the 20-node hexahedra, the quadrilaterals) and the wedges, the nodes (a
 * bilinear map folds first at a corner, and wedge6's is bilinear in a triangle coordinate and
 * the axial one; a higher-order map can fold at any node: a mid-edge node moved past the quarter
 * point of its edge inverts the element at the corner it approaches, between the points). The
 * wedges need it most: wedge6's two points both lie on its axis, so a wedge folded at one
 * corner can still have det J > 0 at both. The shape derivatives there are tabulated once per
 * type: evaluating them per element was most of the import of a large hex8 deck. */
#define CHECK_POINTS_MAX (27 + DT_ELEM_MAX_NODES)
typedef struct check_points {
  int n, nqp;
  double dN[CHECK_POINTS_MAX][3 * DT_ELEM_MAX_NODES];
} check_points;

static check_points point_table[DT_NTYPES];
static pthread_once_t point_table_once = PTHREAD_ONCE_INIT;

static void build_point_table(void) {
  double xi[3], w, N[DT_ELEM_MAX_NODES];
  for (int t = 0; t < DT_NTYPES; t++) {
    check_points *c = &point_table[t];
    c->nqp = dt_elem_nqp(t);
    c->n = c->nqp + (dt_elem_is_tensor(t) || dt_elem_is_wedge(t) ? dt_elem_nnodes(t) : 0);
    for (int q = 0; q < c->n; q++) {
      if (q < c->nqp)
        dt_elem_qp(t, q, xi, &w);
      else
        dt_elem_node_xi(t, q - c->nqp, xi);
      dt_elem_shape(t, xi, N, c->dN[q]);
    }
  }
}

/* Smallest det J over the type's check points; *where is "integration point" or "local node",
 * *index 1-based. */
static double min_detj(int type, const double *X, const char **where, int *index) {
  const check_points *c = &point_table[type];
  double J[9], cof[9], d, dmin = INFINITY;
  pthread_once(&point_table_once, build_point_table);
  for (int q = 0; q < c->n; q++) {
    dt_elem_jacobian(type, X, c->dN[q], J);
    d = dt_jacobian_cofactor(dt_elem_dim(type), J, cof);
    if (d < dmin || isnan(d)) {
      dmin = d;
      *where = q < c->nqp ? "integration point" : "local node";
      *index = (q < c->nqp ? q : q - c->nqp) + 1;
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
  if (type == DT_ELEM_SHELL4) return dt_shell_check_geometry(X, user_elem_id, ctx);
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

#define FIN_CHECK(cond, ...) DT_CHECK(cond, ctx, DT_ERR_INPUT, __VA_ARGS__)

static dt_status check_arrays(const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  FIN_CHECK(m->n_nodes > 0 && m->x && m->node_id, "the mesh has no nodes");
  FIN_CHECK(m->n_elems > 0 && m->elem_type && m->elem_ptr && m->conn && m->elem_id,
            "the mesh has no elements");
  FIN_CHECK(m->elem_ptr[0] == 0, "internal: elem_ptr[0] must be 0");
  for (int e = 0; e < m->n_elems; e++) {
    int t = m->elem_type[e];
    FIN_CHECK(dt_model_elem_nnodes(t) > 0, "element %lld has an invalid type %d",
              (long long)m->elem_id[e], t);
    FIN_CHECK(m->elem_ptr[e + 1] - m->elem_ptr[e] == dt_model_elem_nnodes(t),
              "element %lld (%s) must have %d nodes", (long long)m->elem_id[e],
              dt_model_elem_type_name(t), dt_model_elem_nnodes(t));
    for (int k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++)
      FIN_CHECK(m->conn[k] >= 0 && m->conn[k] < m->n_nodes,
                "element %lld refers to a node that does not exist", (long long)m->elem_id[e]);
  }
cleanup:
  return rc;
}

/* Model dimension: 3 if any 3D element; 2D and 3D elements cannot be mixed. */
static dt_status resolve_dim(dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int first = m->elem_type[0];

  for (int e = 1; e < m->n_elems; e++)
    FIN_CHECK(dt_model_elem_dim(m->elem_type[e]) == dt_model_elem_dim(first),
              "element %lld (%s) is %dD but element %lld (%s) is %dD: a model is either 2D or 3D",
              (long long)m->elem_id[e], dt_model_elem_type_name(m->elem_type[e]),
              dt_model_elem_dim(m->elem_type[e]), (long long)m->elem_id[0],
              dt_model_elem_type_name(first), dt_model_elem_dim(first));
  m->dim = dt_model_elem_dim(first);
cleanup:
  return rc;
}

static dt_status check_nodes(const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  unsigned char *used = NULL;

  for (int i = 0; i < m->n_nodes; i++) {
    const double *x = &m->x[3 * i];
    FIN_CHECK(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]),
              "node %lld has a non-finite coordinate", (long long)m->node_id[i]);
    FIN_CHECK(m->dim == 3 || x[2] == 0, "node %lld: z must be 0 in a 2D model (got %g)",
              (long long)m->node_id[i], x[2]);
  }
  DT_ALLOC(used, m->n_nodes, ctx, "node usage flags");
  for (int k = 0; k < m->elem_ptr[m->n_elems]; k++) used[m->conn[k]] = 1;
  /* a node that only constraints use (a rigid body's rotation node), or that only a boundary
   * condition names (the carrier of a deck's PxNP pressure), carries DOFs of its own: its rules
   * are dt_model_check_isolated's; a node nothing names is a mistake */
  for (int k = 0; m->eq.n && k < m->eq.ptr[m->eq.n]; k++) used[m->eq.node[k]] = 1;
  for (int s = 0; s < m->n_steps; s++)
    for (int b = 0; b < m->steps[s].n_bc; b++) {
      const int ns = m->steps[s].bc[b].nset;
      if (ns < 0 || ns >= m->n_nsets) continue; /* checked with the steps */
      for (int i = 0; i < m->nsets[ns].n; i++)
        if (m->nsets[ns].items[i] >= 0 && m->nsets[ns].items[i] < m->n_nodes)
          used[m->nsets[ns].items[i]] = 1;
    }
  for (int i = 0; i < m->n_nodes; i++)
    FIN_CHECK(used[i],
              "node %lld is not connected to any element, and no constraint or boundary "
              "condition names it",
              (long long)m->node_id[i]);
cleanup:
  dt_free(used);
  return rc;
}

static dt_status check_sets(const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  for (int s = 0; s < m->n_nsets; s++)
    for (int i = 0; i < m->nsets[s].n; i++)
      FIN_CHECK(m->nsets[s].items[i] >= 0 && m->nsets[s].items[i] < m->n_nodes,
                "node set \"%s\" refers to a node that does not exist", m->nsets[s].name);
  for (int s = 0; s < m->n_elsets; s++)
    for (int i = 0; i < m->elsets[s].n; i++)
      FIN_CHECK(m->elsets[s].items[i] >= 0 && m->elsets[s].items[i] < m->n_elems,
                "element set \"%s\" refers to an element that does not exist", m->elsets[s].name);
  for (int s = 0; s < m->n_surfaces; s++) {
    const dt_surface *sf = &m->surfaces[s];
    for (int i = 0; i < sf->n; i++) {
      FIN_CHECK(sf->elem[i] >= 0 && sf->elem[i] < m->n_elems,
                "surface \"%s\" refers to an element that does not exist", sf->name);
      FIN_CHECK(sf->face[i] >= 0 && sf->face[i] < dt_model_elem_nfaces(m->elem_type[sf->elem[i]]),
                "surface \"%s\": element %lld (%s) has no face S%d", sf->name,
                (long long)m->elem_id[sf->elem[i]],
                dt_model_elem_type_name(m->elem_type[sf->elem[i]]), sf->face[i] + 1);
    }
  }
cleanup:
  return rc;
}

/* The rules of every material, and the numbers its update derives from them. */
static dt_status check_materials(dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char field[96], msg[256];

  for (int i = 0; i < m->n_materials; i++) {
    FIN_CHECK(!dt_material_params_check(&m->materials[i].p, field, sizeof field, msg, sizeof msg),
              "material \"%s\": %s: %s", m->materials[i].name, field, msg);
    dt_mc_derive(&m->materials[i].p);
  }
cleanup:
  return rc;
}

/* One section per element; the section kind must suit the element's dimension. */
static dt_status assign_sections(dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  dt_free(m->elem_section);
  DT_ALLOC(m->elem_section, m->n_elems, ctx, "element sections");
  for (int e = 0; e < m->n_elems; e++) m->elem_section[e] = -1;
  for (int s = 0; s < m->n_sections; s++) {
    const dt_section *sec = &m->sections[s];
    const dt_set *set = NULL;
    FIN_CHECK(sec->elset >= 0 && sec->elset < m->n_elsets,
              "section %d: element set \"%s\" does not exist", s, sec->elset_name);
    FIN_CHECK(sec->material >= 0 && sec->material < m->n_materials,
              "section %d: material does not exist", s);
    set = &m->elsets[sec->elset];
    for (int i = 0; i < set->n; i++) {
      int e = set->items[i], prev = m->elem_section[e];
      FIN_CHECK(prev < 0 || prev == s,
                "element %lld has two sections: section %d (element set \"%s\") and section %d "
                "(element set \"%s\")",
                (long long)m->elem_id[e], prev, m->sections[prev < 0 ? 0 : prev].elset_name, s,
                sec->elset_name);
      m->elem_section[e] = s;
    }
  }
  for (int e = 0; e < m->n_elems; e++)
    FIN_CHECK(m->elem_section[e] >= 0,
              "element %lld has no section: no section's element set contains it",
              (long long)m->elem_id[e]);
cleanup:
  return rc;
}

static int form_supports_bbar(int type) { return type == DT_ELEM_HEX8 || type == DT_ELEM_QUAD4; }
static int form_supports_reduced(int type) {
  return type == DT_ELEM_HEX20 || type == DT_ELEM_HEX20R || type == DT_ELEM_QUAD8 ||
         type == DT_ELEM_QUAD8R;
}

/* The reduced formulation: the section's hex20 elements become hex20r and its quad8 quad8r (the
 * type carries the
 * rule, so the backends need no formulation flag for it); the elements are the section's own,
 * since assign_sections gave every element one section. */
static void apply_reduced(dt_model *m, const dt_section *sec) {
  const dt_set *set = &m->elsets[sec->elset];
  for (int i = 0; i < set->n; i++)
    if (m->elem_type[set->items[i]] == DT_ELEM_HEX20)
      m->elem_type[set->items[i]] = DT_ELEM_HEX20R;
    else if (m->elem_type[set->items[i]] == DT_ELEM_QUAD8)
      m->elem_type[set->items[i]] = DT_ELEM_QUAD8R;
}

/* A 2D body force spinning its elements about the y axis (through x = 0), their axis of
 * symmetry: every element of its set axisymmetric (sections assigned). */
static int spins_about_axis_of_symmetry(const dt_model *m, const dt_body_force *b) {
  const dt_set *set = &m->elsets[b->elset];
  if (b->axis[0] != 0.0 || b->axis[2] != 0.0 || b->axis_point[0] != 0.0 ||
      b->axis_point[2] != 0.0 || set->n == 0)
    return 0;
  for (int i = 0; i < set->n; i++)
    if (m->sections[m->elem_section[set->items[i]]].kind != DT_SECTION_AXISYMMETRIC) return 0;
  return 1;
}

/* Kind vs dimension, plane stress elastic only, thickness, and the default formulation: B-bar
 * when a section has hex8/quad4 elements, a plastic material and a solid/plane-strain kind. */
static dt_status check_sections(dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  for (int s = 0; s < m->n_sections; s++) {
    dt_section *sec = &m->sections[s];
    const dt_material *mat = &m->materials[sec->material];
    int has_bbar_type = 0, has_reduced_type = 0;
    FIN_CHECK(sec->kind == DT_SECTION_SOLID || sec->kind == DT_SECTION_PLANE_STRAIN ||
                  sec->kind == DT_SECTION_PLANE_STRESS || sec->kind == DT_SECTION_SHELL ||
                  sec->kind == DT_SECTION_AXISYMMETRIC,
              "section %d: invalid kind %d", s, (int)sec->kind);
    if (sec->kind == DT_SECTION_SHELL || dt_section_has_shells(m, sec)) {
      DT_TRY(dt_check_shell_section(m, s, ctx));
      continue;
    }
    FIN_CHECK(isfinite(sec->thickness) && sec->thickness > 0,
              "section %d (element set \"%s\"): thickness must be > 0", s, sec->elset_name);
    FIN_CHECK(!(sec->kind == DT_SECTION_PLANE_STRESS && mat->p.plastic),
              "section %d (element set \"%s\"): material \"%s\" is plastic, but plane stress "
              "supports elastic "
              "materials only",
              s, sec->elset_name, mat->name);
    for (int i = 0; i < m->elsets[sec->elset].n; i++) {
      int e = m->elsets[sec->elset].items[i], t = m->elem_type[e];
      int want3d = sec->kind == DT_SECTION_SOLID;
      FIN_CHECK((dt_model_elem_dim(t) == 3) == want3d,
                "element %lld (%s) is %dD but its section %d (element set \"%s\") is %s: %s",
                (long long)m->elem_id[e], dt_model_elem_type_name(t), dt_model_elem_dim(t), s,
                sec->elset_name,
                want3d                                 ? "solid"
                : sec->kind == DT_SECTION_PLANE_STRAIN ? "plane_strain"
                : sec->kind == DT_SECTION_AXISYMMETRIC ? "axisymmetric"
                                                       : "plane_stress",
                want3d ? "2D elements need a plane_strain, plane_stress or axisymmetric section"
                       : "3D elements need a solid section");
      /* x is the radius: the hoop strain u_x / x and the measure 2 pi x dA need x >= 0, and
       * an element with a point on the axis would divide by 0 there */
      if (sec->kind == DT_SECTION_AXISYMMETRIC)
        for (int a = m->elem_ptr[e]; a < m->elem_ptr[e + 1]; a++)
          FIN_CHECK(m->x[3 * (size_t)m->conn[a]] >= 0.0,
                    "element %lld: node %lld has x = %g < 0, but its section %d (element set "
                    "\"%s\") is axisymmetric (x is the radius, >= 0)",
                    (long long)m->elem_id[e], (long long)m->node_id[m->conn[a]],
                    m->x[3 * (size_t)m->conn[a]], s, sec->elset_name);
      has_bbar_type |= form_supports_bbar(t);
      has_reduced_type |= form_supports_reduced(t);
    }
    FIN_CHECK(!(sec->kind == DT_SECTION_AXISYMMETRIC && dt_model_any_explicit(m)),
              "section %d (element set \"%s\"): axisymmetric sections run in static steps only "
              "(the explicit driver has hex8 and shell4 elements)",
              s, sec->elset_name);
    if (dt_model_any_explicit(m)) { /* explicit steps have their own formulations */
      DT_TRY(dt_check_explicit_solid_section(m, s, ctx));
      continue;
    }
    FIN_CHECK(sec->form != DT_FORM_BBAR || has_bbar_type,
              "section %d (element set \"%s\"): the bbar formulation needs hex8 or quad4 elements",
              s, sec->elset_name);
    /* the mean dilatation of an axisymmetric element would also average its hoop strain
     * u_x / x with the weight x; ductile's B-bar averages the gradients only */
    FIN_CHECK(!(sec->form == DT_FORM_BBAR && sec->kind == DT_SECTION_AXISYMMETRIC),
              "section %d (element set \"%s\"): the bbar formulation is not available on "
              "axisymmetric sections (use full or, for quad8, reduced)",
              s, sec->elset_name);
    /* B-bar relieves volumetric locking, which plane stress (sigma_zz = 0) does not have; the
     * GPU tangent also relies on it (cuda/cuda_tangent_form.cuh) */
    FIN_CHECK(!(sec->form == DT_FORM_BBAR && sec->kind == DT_SECTION_PLANE_STRESS),
              "section %d (element set \"%s\"): the bbar formulation is for solid and plane_strain "
              "sections, "
              "not plane_stress (use full)",
              s, sec->elset_name);
    FIN_CHECK(sec->form != DT_FORM_REDUCED || has_reduced_type,
              "section %d (element set \"%s\"): the reduced formulation needs hex20 or quad8 "
              "elements (it makes them hex20r, quad8r; hex8 take it in explicit steps only)",
              s, sec->elset_name);
    if (sec->form == DT_FORM_REDUCED) apply_reduced(m, sec);
    if (sec->form == DT_FORM_DEFAULT)
      sec->form = has_bbar_type && mat->p.plastic && sec->kind != DT_SECTION_PLANE_STRESS &&
                          sec->kind != DT_SECTION_AXISYMMETRIC
                      ? DT_FORM_BBAR
                      : DT_FORM_FULL;
  }
cleanup:
  return rc;
}

static dt_status check_one_geometry(const dt_model *m, int e, dt_ctx *ctx) {
  double X[3 * DT_ELEM_MAX_NODES];
  int k0 = m->elem_ptr[e], npe = m->elem_ptr[e + 1] - k0;
  for (int a = 0; a < npe; a++) memcpy(&X[3 * a], &m->x[3 * m->conn[k0 + a]], 3 * sizeof(double));
  return dt_elem_check_geometry(m->elem_type[e], X, m->elem_id[e], ctx);
}

/* Each chunk's first failing element (or the chunk's end), for dt_parallel_chunks. */
typedef struct geometry_scan {
  const dt_model *m;
  int e0, e1;
  int first[DT_PARALLEL_MAX_CHUNKS];
} geometry_scan;

static void check_chunk(void *arg, int chunk, int i0, int i1) {
  geometry_scan *g = arg;
  g->first[chunk] = g->e1;
  for (int e = g->e0 + i0; e < g->e0 + i1; e++) {
    dt_ctx quiet = {0};
    if (check_one_geometry(g->m, e, &quiet) != DT_OK) {
      g->first[chunk] = e;
      break;
    }
  }
}

/* The elements are checked in chunks on threads of our own (core/fork_safe_parallel.h); the
 * first failing element in element order is the one reported, as a serial loop would, whatever
 * the thread count. */
#define GEOMETRY_CHUNK_MIN 8192
dt_status dt_model_check_geometry(const dt_model *m, int e0, int e1, int *bad, dt_ctx *ctx) {
  geometry_scan g = {.m = m, .e0 = e0, .e1 = e1};
  int k = dt_parallel_chunks(e1 - e0, GEOMETRY_CHUNK_MIN, check_chunk, &g), first = e1;
  for (int t = 0; t < k && first == e1; t++) first = g.first[t];
  if (bad) *bad = first < e1 ? first : -1;
  return first < e1 ? check_one_geometry(m, first, ctx) : DT_OK;
}

static dt_status check_geometry(const dt_model *m, dt_ctx *ctx) {
  return dt_model_check_geometry(m, 0, m->n_elems, NULL, ctx);
}

static dt_status check_increments(const dt_step *s, int i, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  FIN_CHECK(s->max_cutbacks >= 0, "step %d \"%s\": max_cutbacks must be >= 0", i, s->name);
  if (!s->automatic) {
    FIN_CHECK(s->n_increments >= 1,
              "step %d \"%s\": the number of increments must be >= 1 (got %d)", i, s->name,
              s->n_increments);
    goto cleanup;
  }
  FIN_CHECK(
      s->inc_min > 0 && s->inc_min <= s->inc_initial && s->inc_initial <= s->inc_max &&
          s->inc_max <= 1,
      "step %d \"%s\": automatic increments need 0 < min <= initial <= max <= 1 (got %g, %g, %g)",
      i, s->name, s->inc_min, s->inc_initial, s->inc_max);
cleanup:
  return rc;
}

/* Two boundary conditions of one step that prescribe different values for the same DOF. */
static dt_status check_bc_conflicts(const dt_model *m, const dt_step *s, int si, unsigned char *set,
                                    double *val, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  static const char dof_name[] = "xyz";

  memset(set, 0, 3 * (size_t)m->n_nodes);
  for (int b = 0; b < s->n_bc; b++) {
    const dt_set *ns = &m->nsets[s->bc[b].nset];
    for (int i = 0; i < ns->n; i++)
      for (int d = 0; d < 3; d++) {
        size_t k = 3 * (size_t)ns->items[i] + (size_t)d;
        int held = (s->bc[b].hold >> d) & 1;
        if (!(s->bc[b].dofs & (1u << d))) continue;
        FIN_CHECK(!set[k] || (set[k] == 2) == held, /* set: 1 a value, 2 held */
                  "step %d \"%s\": node %lld: %c is both held at its displacement and prescribed a "
                  "value",
                  si, s->name, (long long)m->node_id[ns->items[i]], dof_name[d]);
        FIN_CHECK(
            held || !set[k] || val[k] == s->bc[b].value[d],
            "step %d \"%s\": node %lld: %c is prescribed twice with different values (%g and %g)",
            si, s->name, (long long)m->node_id[ns->items[i]], dof_name[d], val[k],
            s->bc[b].value[d]);
        set[k] = held ? 2 : 1;
        val[k] = s->bc[b].value[d];
      }
  }
cleanup:
  return rc;
}

static int vec_ok(const double *v, int dim) {
  return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]) && (dim == 3 || v[2] == 0);
}

static dt_status check_step(const dt_model *m, const dt_step *s, int i, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  unsigned dof_mask = (m->dim == 3 ? 7u : 3u) | (dt_model_has_shells(m) ? DT_DOF_ROT : 0u);

  DT_TRY(check_increments(s, i, ctx));
  for (int b = 0; b < s->n_bc; b++) {
    FIN_CHECK(s->bc[b].nset >= 0 && s->bc[b].nset < m->n_nsets,
              "step %d \"%s\": boundary %d: unknown node set", i, s->name, b);
    FIN_CHECK((s->bc[b].hold & ~s->bc[b].dofs) == 0,
              "step %d \"%s\": boundary %d holds an axis it does not constrain", i, s->name, b);
    FIN_CHECK(s->bc[b].dofs != 0 && (s->bc[b].dofs & ~dof_mask) == 0,
              "step %d \"%s\": boundary %d: invalid degrees of freedom for a %dD model", i, s->name,
              b, m->dim);
    FIN_CHECK(vec_ok(s->bc[b].value, 3), "step %d \"%s\": boundary %d: non-finite value", i,
              s->name, b);
  }
  for (int k = 0; k < s->n_cload; k++)
    FIN_CHECK(s->cload[k].nset >= 0 && s->cload[k].nset < m->n_nsets &&
                  vec_ok(s->cload[k].f, m->dim),
              "step %d \"%s\": force %d: unknown node set or invalid value", i, s->name, k);
  for (int k = 0; k < s->n_pressure; k++)
    FIN_CHECK(s->pressure[k].surface >= 0 && s->pressure[k].surface < m->n_surfaces &&
                  isfinite(s->pressure[k].p),
              "step %d \"%s\": pressure %d: unknown surface or invalid value", i, s->name, k);
  for (int k = 0; k < s->n_traction; k++)
    FIN_CHECK(s->traction[k].surface >= 0 && s->traction[k].surface < m->n_surfaces &&
                  vec_ok(s->traction[k].t, m->dim),
              "step %d \"%s\": traction %d: unknown surface or invalid value", i, s->name, k);
  for (int k = 0; k < s->n_body; k++) {
    const dt_body_force *b = &s->body[k];
    double len = sqrt(b->axis[0] * b->axis[0] + b->axis[1] * b->axis[1] + b->axis[2] * b->axis[2]);
    FIN_CHECK(b->elset >= 0 && b->elset < m->n_elsets && vec_ok(b->b, m->dim),
              "step %d \"%s\": body force %d: unknown element set or invalid value", i, s->name, k);
    FIN_CHECK(b->spin == 0.0 || (isfinite(b->spin) && b->spin > 0.0 && vec_ok(b->axis_point, 3) &&
                                 fabs(len - 1.0) <= 1e-12 &&
                                 (m->dim == 3 || (b->axis[0] == 0.0 && b->axis[1] == 0.0) ||
                                  spins_about_axis_of_symmetry(m, b))),
              "step %d \"%s\": body force %d: the centrifugal load needs density * omega^2 > 0, a "
              "finite point and a unit axis (along z in 2D; along y through x = 0 on "
              "axisymmetric elements)",
              i, s->name, k);
  }
  for (int k = 0; k < s->n_material_changes; k++) {
    const dt_material_change *c = &s->material_changes[k];
    FIN_CHECK(c->elset >= 0 && c->elset < m->n_elsets && c->material >= 0 &&
                  c->material < m->n_materials,
              "step %d \"%s\": material change %d: unknown element set or material", i, s->name, k);
    FIN_CHECK(s->procedure == DT_PROC_STATIC,
              "step %d \"%s\": a material change applies to static steps only", i, s->name);
    FIN_CHECK(!m->solver.matrix_free,
              "step %d \"%s\": a material change needs the assembled operator (linear.operator "
              "\"assembled\"): the matrix-free operator's element classes share one material",
              i, s->name);
    for (int j = 0; j < m->elsets[c->elset].n; j++) {
      int e = m->elsets[c->elset].items[j];
      FIN_CHECK(m->sections[m->elem_section[e]].kind != DT_SECTION_SHELL,
                "step %d \"%s\": material change %d: element %lld is a shell (solid sections "
                "only)",
                i, s->name, k, (long long)m->elem_id[e]);
    }
  }
cleanup:
  return rc;
}

static dt_status check_steps(const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  unsigned char *set = NULL;
  double *val = NULL;

  FIN_CHECK(m->n_steps >= 1 && m->steps, "the job has no steps: at least one step is required");
  DT_ALLOC(set, 3 * (size_t)m->n_nodes, ctx, "boundary flags");
  DT_ALLOC(val, 3 * (size_t)m->n_nodes, ctx, "boundary values");
  for (int i = 0; i < m->n_steps; i++) {
    DT_TRY(check_step(m, &m->steps[i], i, ctx));
    DT_TRY(check_bc_conflicts(m, &m->steps[i], i, set, val, ctx));
  }
cleanup:
  dt_free(set);
  dt_free(val);
  return rc;
}

/* Entries of a NULL-terminated names array. */
static int name_count(const char *const *names) {
  int n = 0;
  while (names[n]) n++;
  return n;
}

static dt_status check_options(const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_solver_options *o = &m->solver;
  const dt_output_options *out = &m->output;

  FIN_CHECK(o->newton_max_iter >= 1, "solver: newton max_iterations must be >= 1");
  FIN_CHECK(o->newton_rtol > 0 && o->newton_rtol < 1,
            "solver: newton force_tolerance must be in (0, 1)");
  FIN_CHECK(o->newton_dtol >= 0 && o->newton_dtol < 1,
            "solver: newton displacement_tolerance must be in [0, 1)");
  FIN_CHECK(o->pcg_max_iter >= 1, "solver: linear max_iterations must be >= 1");
  FIN_CHECK(o->pcg_rtol > 0 && o->pcg_rtol < 1, "solver: linear tolerance must be in (0, 1)");
  FIN_CHECK(o->precond >= DT_PC_JACOBI && o->precond <= DT_PC_AUTO,
            "solver: invalid preconditioner");
  FIN_CHECK(o->forcing == DT_FORCING_FIXED || o->forcing == DT_FORCING_ADAPTIVE,
            "solver: invalid linear forcing");
  FIN_CHECK(o->accel == DT_ACCEL_NONE || o->accel == DT_ACCEL_THOMAS,
            "solver: invalid newton acceleration");
  FIN_CHECK(o->cuda_elements >= 0 && o->cuda_elements < name_count(dt_cuda_elements_names),
            "solver: invalid backend_options elements");
  FIN_CHECK(o->cuda_tangent >= 0 && o->cuda_tangent < name_count(dt_cuda_tangent_names),
            "solver: invalid backend_options tangent");
  FIN_CHECK((out->fields & ~DT_OUT_ALL) == 0, "output: invalid field bits 0x%x", out->fields);
  FIN_CHECK(out->every >= 1, "output: every must be >= 1");
  for (int i = 0; i < out->n_monitors; i++) {
    const dt_monitor *mon = &out->monitors[i];
    FIN_CHECK(mon->nset >= 0 && mon->nset < m->n_nsets, "monitor \"%s\": unknown node set",
              mon->name);
    FIN_CHECK(mon->dof >= 0 && mon->dof < m->dim,
              "monitor \"%s\": component must be one of the model's %d axes", mon->name, m->dim);
    FIN_CHECK(mon->kind == DT_MON_U || mon->kind == DT_MON_RF, "monitor \"%s\": invalid quantity",
              mon->name);
  }
cleanup:
  return rc;
}

/* linear.preconditioner "auto" (the default): two_level where it pays (precond_kind.h), with
 * either operator (the matrix-free one sums its coarse matrix from the element matrices). */
dt_precond_kind dt_precond_auto(int dim, long n_dofs, int host) {
  return dim == 3 && n_dofs >= (host ? DT_PC_AUTO_MIN_DOFS_HOST : DT_PC_AUTO_MIN_DOFS)
             ? DT_PC_TWO_LEVEL
             : DT_PC_BLOCK_JACOBI;
}

/* The device backend's choice; a run on the CPU backend chooses again (analysis.c, setup). */
static void resolve_precond(dt_model *m) {
  dt_solver_options *o = &m->solver;
  if (o->precond != DT_PC_AUTO) return;
  o->precond_auto = 1;
  o->precond = dt_precond_auto(m->dim, (long)m->n_nodes * m->dim, 0);
}

/* What depends on the materials' tangents: when every material's tangent is its elastic
 * stiffness (elastic materials, Mohr-Coulomb with "tangent": "elastic") it is the same for
 * every iteration of an increment; with a Mohr-Coulomb material among them it converges only
 * linearly, so such models default to Thomas's acceleration and to more iterations. */
static void resolve_nonlinear(dt_model *m) {
  dt_solver_options *o = &m->solver;
  int consistent = 0, mc_elastic = 0;
  for (int i = 0; i < m->n_materials; i++) {
    const dt_material_params *p = &m->materials[i].p;
    consistent |= !dt_material_tangent_is_elastic(p);
    mc_elastic |= p->plastic == DT_PLASTIC_MOHR_COULOMB && p->mc_elastic_tangent;
  }
  o->tangent_constant = !consistent;
  if (o->accel == DT_ACCEL_AUTO) {
    o->accel_auto = 1;
    o->accel = mc_elastic && !consistent ? DT_ACCEL_THOMAS : DT_ACCEL_NONE;
  }
  if (o->newton_max_iter == 0)
    o->newton_max_iter =
        mc_elastic ? DT_NEWTON_MAX_ITER_ELASTIC_TANGENT : DT_NEWTON_MAX_ITER_DEFAULT;
  if (o->pcg_max_iter == 0) {
    double cap = DT_PCG_MAX_ITER_PER_CBRT_DOF * cbrt((double)m->n_nodes * m->dim);
    o->pcg_max_iter = cap > DT_PCG_MAX_ITER_MIN ? (int)cap : DT_PCG_MAX_ITER_MIN;
  }
}

dt_status dt_model_check_mesh(dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;

  DT_CHECK(m != NULL, ctx, DT_ERR_INTERNAL, "dt_model_check_mesh: model is NULL");
  DT_TRY(check_arrays(m, ctx));
  DT_TRY(resolve_dim(m, ctx));
  DT_TRY(check_nodes(m, ctx));
  DT_TRY(check_sets(m, ctx));
  DT_TRY(check_geometry(m, ctx));
cleanup:
  return rc;
}

/* A check's failure led by the JSON path of the entry at fault (`what`[bad]). */
static dt_status led_by_entry(dt_status rc, const char *what, int bad, dt_ctx *ctx) {
  char where[48];
  if (rc == DT_ERR_INPUT && bad >= 0) {
    snprintf(where, sizeof where, "%s[%d]", what, bad);
    dt_ctx_prefix(ctx, where);
  }
  return rc;
}

/* The equations' rules (model_equation.c), the message led by the equation's JSON path. */
static dt_status check_equations(const dt_model *m, dt_ctx *ctx) {
  int bad = -1;
  dt_status rc = dt_model_check_equations(m, &bad, ctx);
  return led_by_entry(rc, "equations", bad, ctx);
}

static dt_status check_initial(const dt_model *m, dt_ctx *ctx) {
  int bad = -1;
  dt_status rc = dt_model_check_initial(m, &bad, ctx);
  return led_by_entry(rc, "initial_conditions", bad, ctx);
}

dt_status dt_model_finish(dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int bad_node = -1;

  DT_CHECK(m != NULL, ctx, DT_ERR_INTERNAL, "dt_model_finish: model is NULL");
  DT_TRY(dt_model_check_mesh(m, ctx)); /* the mesh alone, as an upload is checked */
  DT_TRY(check_materials(m, ctx));
  DT_TRY(assign_sections(m, ctx));
  DT_TRY(check_sections(m, ctx));
  DT_TRY(check_steps(m, ctx));
  DT_TRY(dt_check_explicit(m, ctx));
  DT_TRY(check_equations(m, ctx));
  DT_TRY(dt_model_check_isolated(m, &bad_node, ctx));
  DT_TRY(check_initial(m, ctx));
  resolve_nonlinear(m);
  DT_TRY(check_options(m, ctx));
  resolve_precond(m);
cleanup:
  return rc;
}
