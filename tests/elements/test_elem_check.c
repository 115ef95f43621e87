/* dt_elem_check_geometry: accepts valid (distorted) elements of every type; rejects an
 * inverted hex8 (mirrored, and with two nodes swapped), a flat tet4, a folded quad4, a hex20
 * whose mid-edge node lies past the quarter point of its edge, mirrored wedges, a wedge6
 * folded at a corner between its two points, a wedge15 with a mid-edge node past the quarter
 * point and NaN coordinates, with messages that name the element. Also dt_elem_volume, on a
 * curved hex20 and a curved wedge15 too. A whole mesh (dt_model_check_mesh, elements checked in
 * chunks on several threads) names the first bad element in element order. */
#include <string.h>

#include "ductile.h"
#include "elem_test.h"
#include "element/element_check.h"
#include "model/mesh_box.h"

/* Expect DT_ERR_INPUT and a message containing both fragments. */
static void expect_rejected(const char *what, int type, const double *X, const char *frag) {
  dt_ctx ctx;
  dt_status rc;
  dt_ctx_reset(&ctx);
  rc = dt_elem_check_geometry(type, X, 17, &ctx);
  EXPECT(rc == DT_ERR_INPUT, "%s: status %d, expected DT_ERR_INPUT", what, (int)rc);
  EXPECT(strstr(ctx.msg, "element 17") != NULL, "%s: message lacks the element id: '%s'", what,
         ctx.msg);
  EXPECT(strstr(ctx.msg, frag) != NULL, "%s: message lacks '%s': '%s'", what, frag, ctx.msg);
}

static void unit_cube(double *X) {
  int a, k;
  for (a = 0; a < 8; a++) {
    dt_elem_node_xi(DT_HEX8, a, X + a * 3);
    for (k = 0; k < 3; k++) X[a * 3 + k] = 0.5 * (X[a * 3 + k] + 1.0);
  }
}

/* The unit cube [0,1]^3 as a 20-node hexahedron of type `type`. */
static void unit_cube20(int type, double *X) {
  int a, k;
  for (a = 0; a < 20; a++) {
    dt_elem_node_xi(type, a, X + a * 3);
    for (k = 0; k < 3; k++) X[a * 3 + k] = 0.5 * (X[a * 3 + k] + 1.0);
  }
}

/* The unit cube with mid-edge node 9 (edge 1-2, at (1/2, 0, 0)) moved to (1/2, -d, 0): the
 * displacement u = -d e_y N_9 is a rank-one change of the map, det(I + grad u) = 1 + div u, so
 * the volume is 1 + the flux of u through the face y = 0, d int_{y=0} N_9 dA = d/3 (on that face
 * N_9 is quad8's mid-edge function, a third of the face's area); det J is of degree 2 per
 * direction in the reference coordinates, so both rules integrate it exactly. A mid-edge node
 * moved along its edge past the quarter point inverts the element at the corner it approaches
 * (dx/dxi there = 2 x_m - 1/2 along the edge): rejected, at that corner node. */
static void check_hex20(int type) {
  const double d = 0.3;
  double X[3 * DT_ELEM_MAX_NODES];
  dt_ctx ctx;
  unit_cube20(type, X);
  EXPECT(fabs(dt_elem_volume(type, X) - 1.0) < 1e-14, "%s unit cube volume %.17g", elem_names[type],
         dt_elem_volume(type, X));
  X[8 * 3 + 1] = -d;
  dt_ctx_reset(&ctx);
  EXPECT(dt_elem_check_geometry(type, X, 5, &ctx) == DT_OK, "%s: curved element rejected: %s",
         elem_names[type], ctx.msg);
  EXPECT(fabs(dt_elem_volume(type, X) - (1.0 + d / 3.0)) < 1e-14,
         "%s curved cube volume %.17g, expected %.17g", elem_names[type], dt_elem_volume(type, X),
         1.0 + d / 3.0);
  unit_cube20(type, X);
  X[8 * 3 + 0] = 0.2; /* node 9 at a fifth of edge 1-2 */
  expect_rejected(
      type == DT_HEX20 ? "hex20 past the quarter point" : "hex20r past the quarter point", type, X,
      type == DT_HEX20 ? "(hex20) is inverted or degenerate"
                       : "(hex20r) is inverted or degenerate");
  expect_rejected("hex20 past the quarter point", type, X, "at local node 1 ");
}

static void swap_nodes(double *X, int a, int b) {
  int k;
  for (k = 0; k < 3; k++) {
    double t = X[a * 3 + k];
    X[a * 3 + k] = X[b * 3 + k];
    X[b * 3 + k] = t;
  }
}

/* The reference wedge (unit triangle times [-1, 1], volume 1) as a wedge of type `type`. */
static void ref_wedge(int type, double *X) {
  int a;
  for (a = 0; a < dt_elem_nnodes(type); a++) dt_elem_node_xi(type, a, X + a * 3);
}

/* Wedges. The reference wedge's volume is 1; mirrored (top and bottom triangles swapped) it is
 * inverted. wedge6 with corner 1 moved to (0.6, 0.6, -1): its bottom triangle is folded (det J
 * = -0.2 at node 1) while det J is 0.054 and 0.746 at its two points, which both lie on the
 * axis through the triangle's centroid: only the check at the nodes sees it. wedge15 with
 * mid-edge node 7 (edge 1-2, at (1/2, 0, -1)) moved to (1/2, -d, -1): as for hex20 the map
 * changes by the rank-one u = -d e_y N_7, so the volume grows by d int_{S3} N_7 dA = d (2/3)
 * (a third of the flat 8-node face's area 2), and det J, of degree 1 in the triangle and 1
 * along the axis, is integrated exactly; moved along its edge to a fifth of it, the element is
 * inverted at corner 1. */
static void check_wedges(void) {
  const double d = 0.3;
  double X[3 * DT_ELEM_MAX_NODES];
  dt_ctx ctx;
  int type, a;
  for (type = DT_WEDGE6; type <= DT_WEDGE15; type++) {
    ref_wedge(type, X);
    EXPECT(fabs(dt_elem_volume(type, X) - 1.0) < 1e-14, "%s reference volume %.17g",
           elem_names[type], dt_elem_volume(type, X));
    for (a = 0; a < 3; a++) swap_nodes(X, a, a + 3);
    if (type == DT_WEDGE15)
      for (a = 6; a < 9; a++) swap_nodes(X, a, a + 3);
    expect_rejected(type == DT_WEDGE6 ? "mirrored wedge6" : "mirrored wedge15", type, X,
                    type == DT_WEDGE6 ? "(wedge6) is inverted or degenerate: det J = -"
                                      : "(wedge15) is inverted or degenerate: det J = -");
  }
  ref_wedge(DT_WEDGE6, X);
  X[0] = X[1] = 0.6;
  expect_rejected("wedge6 folded at a corner", DT_WEDGE6, X, "at local node 1 ");
  ref_wedge(DT_WEDGE15, X);
  X[6 * 3 + 1] = -d;
  dt_ctx_reset(&ctx);
  EXPECT(dt_elem_check_geometry(DT_WEDGE15, X, 5, &ctx) == DT_OK,
         "wedge15: curved element rejected: %s", ctx.msg);
  EXPECT(fabs(dt_elem_volume(DT_WEDGE15, X) - (1.0 + 2.0 * d / 3.0)) < 1e-14,
         "wedge15 curved volume %.17g, expected %.17g", dt_elem_volume(DT_WEDGE15, X),
         1.0 + 2.0 * d / 3.0);
  ref_wedge(DT_WEDGE15, X);
  X[6 * 3 + 0] = 0.2;
  expect_rejected("wedge15 past the quarter point", DT_WEDGE15, X, "at local node 1 ");
}

/* Turn element e (0-based) of a hex8 box inside out: its top face first. */
static void invert_box_element(dt_model *m, int e) {
  int *c = &m->conn[m->elem_ptr[e]];
  for (int a = 0; a < 4; a++) {
    int t = c[a];
    c[a] = c[a + 4], c[a + 4] = t;
  }
}

/* A 40^3 hex8 box, checked in chunks on several threads where the machine has the cores: with
 * elements 50000 and 30000 (0-based) inside out the message names user id 30001, the first in
 * element order, whichever chunks they fall in; with the last element alone, 64000. */
static void check_mesh_first_bad(void) {
  dt_model *m = NULL;
  dt_ctx ctx;
  dt_ctx_reset(&ctx);
  if (dt_model_create(&m, &ctx) != DT_OK ||
      dt_mesh_box_hex8(m, 40, 40, 40, 1, 1, 1, &ctx) != DT_OK) {
    EXPECT(0, "box: %s", ctx.msg);
    dt_model_destroy(&m);
    return;
  }
  EXPECT(dt_model_check_mesh(m, &ctx) == DT_OK, "the box is valid: %s", ctx.msg);
  invert_box_element(m, 50000);
  invert_box_element(m, 30000);
  dt_ctx_reset(&ctx);
  EXPECT(dt_model_check_mesh(m, &ctx) == DT_ERR_INPUT, "an inverted box accepted");
  EXPECT(strstr(ctx.msg, "element 30001 (hex8) is inverted") != NULL,
         "want element 30001 named first, got '%s'", ctx.msg);
  invert_box_element(m, 50000);
  invert_box_element(m, 30000);
  invert_box_element(m, m->n_elems - 1);
  dt_ctx_reset(&ctx);
  EXPECT(dt_model_check_mesh(m, &ctx) == DT_ERR_INPUT, "the last element inverted, accepted");
  EXPECT(strstr(ctx.msg, "element 64000 (hex8) is inverted") != NULL,
         "want element 64000 named, got '%s'", ctx.msg);
  dt_model_destroy(&m);
}

int main(void) {
  double X[3 * DT_ELEM_MAX_NODES];
  const double tri_area = 0.5, tet_volume = 1.0 / 6.0;
  dt_ctx ctx;
  int type, t, a;
  for (type = 0; type < DT_NTYPES; type++)
    for (t = 0; t < 10; t++) {
      distorted_element(type, 0.08, X);
      dt_ctx_reset(&ctx);
      EXPECT(dt_elem_check_geometry(type, X, 5, &ctx) == DT_OK, "%s: valid element rejected: %s",
             elem_names[type], ctx.msg);
    }

  unit_cube(X);
  EXPECT(fabs(dt_elem_volume(DT_HEX8, X) - 1.0) < 1e-14, "unit cube volume %g",
         dt_elem_volume(DT_HEX8, X));
  for (a = 0; a < 4; a++) swap_nodes(X, a, a + 4); /* top <-> bottom: a mirror image */
  expect_rejected("mirrored hex8", DT_HEX8, X, "(hex8) is inverted or degenerate: det J = -");
  EXPECT(fabs(dt_elem_volume(DT_HEX8, X) + 1.0) < 1e-14, "mirrored cube volume %g",
         dt_elem_volume(DT_HEX8, X));
  unit_cube(X);
  swap_nodes(X, 0, 1);
  expect_rejected("hex8 with nodes 1, 2 swapped", DT_HEX8, X, "check node order");

  distorted_element(DT_TET4, 0.0, X);
  for (a = 0; a < 4; a++) X[a * 3 + 2] = 1.0; /* all four nodes in one plane */
  expect_rejected("flat tet4", DT_TET4, X, "(tet4) is inverted or degenerate");

  for (a = 0; a < 4; a++) dt_elem_node_xi(DT_QUAD4, a, X + a * 3);
  swap_nodes(X, 2, 3); /* bow-tie */
  expect_rejected("folded quad4", DT_QUAD4, X, "(quad4) is inverted or degenerate");

  for (a = 0; a < 3; a++) dt_elem_node_xi(DT_TRI3, a, X + a * 3);
  EXPECT(fabs(dt_elem_volume(DT_TRI3, X) - tri_area) < 1e-15, "tri3 area %g",
         dt_elem_volume(DT_TRI3, X));
  for (a = 0; a < 10; a++) dt_elem_node_xi(DT_TET10, a, X + a * 3);
  EXPECT(fabs(dt_elem_volume(DT_TET10, X) - tet_volume) < 1e-15, "tet10 volume %g",
         dt_elem_volume(DT_TET10, X));
  X[4 * 3 + 1] = NAN;
  expect_rejected("NaN coordinate", DT_TET10, X, "node coordinates are not finite");
  check_hex20(DT_HEX20);
  check_hex20(DT_HEX20R);
  check_wedges();
  check_mesh_first_bad();
  return elem_test_result("test_elem_check");
}
