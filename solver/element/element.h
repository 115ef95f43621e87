/* Element library: shape functions, quadrature, gradients, B matrices and faces.
 *
 * Everything here is a DT_HD static inline function in the common subset of C11 and C++, so
 * the CPU backend (gcc) and the CUDA kernels (nvcc) evaluate the same code (STYLE.md §3).
 * Functions take the element type as a plain int whose values equal model.h's dt_elem_type
 * (model.h is host-only, so it is not included; element_check.c asserts the values match).
 *
 * Conventions: node orderings, faces and integration point order follow CalculiX/Abaqus
 * (C3D8, C3D4, C3D10, C3D20, C3D20R, C3D6, C3D15, CPE4, CPE3, CPE8, CPE8R); faces are numbered
 * from 0 (S1 is face 0). The 20-node hexahedra list the hex8 corners, then the mid-edge nodes
 * of edges 1-2, 2-3, 3-4, 4-1, 5-6, 6-7, 7-8, 8-5, 1-5, 2-6, 3-7, 4-8. The wedges list the bottom
 * triangle 1-2-3 (counterclockwise seen from the top), the top 4-5-6 above it, and wedge15 then
 * the mid-edge nodes of edges 1-2, 2-3, 3-1, 4-5, 5-6, 6-4, 1-4, 2-5, 3-6. The Lagrange
 * quadrilaterals of orders 2 and 3 (quad9, quad16: [VilasBoas2020]'s Q_p spaces, which Abaqus and CalculiX lack)
 * follow Gmsh: corners, then the edge nodes edge by edge in the edge's direction, then the
 * interior nodes (quad16's counterclockwise from the one nearest node 1). Derivative arrays
 * are node-major with three slots per node, dN[a*3+k] = dN_a/dxi_k, the third slot 0 in 2D.
 * Strains use Voigt order (xx, yy, zz, xy, xz, yz) with engineering shears and node-major DOFs.
 *
 * To add an element type: give it a code below (and in model.h), then a case in every switch
 * of element_rules.h, element_shape.h and element_face.h; the tests in tests/elements loop
 * over all types and will check the new one. */
#ifndef DT_ELEMENT_H
#define DT_ELEMENT_H

#include "core/hd.h"
#include "core/small_matrix.h"

/* Element type codes, equal to DT_ELEM_HEX8.. in model.h (asserted in element_check.c). The
 * names differ from the enum's so that both headers can be included together. */
#define DT_HEX8 0
#define DT_TET4 1
#define DT_TET10 2
#define DT_QUAD4 3
#define DT_TRI3 4
#define DT_QUAD8 5    /* serendipity, CalculiX CPE8 */
#define DT_QUAD9 6    /* biquadratic Lagrange (Q2) */
#define DT_QUAD16 7   /* bicubic Lagrange (Q3) */
#define DT_HEX20 8    /* serendipity hexahedron, 3x3x3 points (CalculiX C3D20) */
#define DT_HEX20R 9   /* the same element, 2x2x2 points (CalculiX C3D20R) */
#define DT_WEDGE6 10  /* linear wedge (prism), 2 points (CalculiX C3D6) */
#define DT_WEDGE15 11 /* quadratic serendipity wedge, 9 points (CalculiX C3D15) */
#define DT_QUAD8R 12  /* quad8 with the 2x2 rule (CalculiX CPE8R, CPS8R, CAX8R) */
#define DT_HEX8R 13   /* hex8 with one point and hourglass stiffness (CalculiX C3D8R, static) */
#define DT_HEX8I 14   /* hex8 with 9 condensed incompatible modes, 2x2x2 points (CalculiX C3D8I) */
#define DT_NTYPES 15

/* Upper bounds over all types, for fixed-size local arrays in kernels (hex20: 20 nodes, 60
 * DOFs, 27 points). Kernels that serve only some types size their arrays by those types
 * (the CUDA kernels' compile-time sizes, cuda/cuda_coop.h), not by these. */
#define DT_ELEM_MAX_NODES 20
#define DT_ELEM_MAX_QP 27
#define DT_ELEM_MAX_DOF 60
#define DT_FACE_MAX_NODES 8
#define DT_FACE_MAX_QP 9

/* Nodes per element; 0 for an unknown type. */
DT_HD static inline int dt_elem_nnodes(int type) {
  switch (type) {
  case DT_HEX8:
  case DT_HEX8R:
  case DT_HEX8I: return 8;
  case DT_TET4: return 4;
  case DT_TET10: return 10;
  case DT_QUAD4: return 4;
  case DT_TRI3: return 3;
  case DT_QUAD8:
  case DT_QUAD8R: return 8;
  case DT_QUAD9: return 9;
  case DT_QUAD16: return 16;
  case DT_HEX20:
  case DT_HEX20R: return 20;
  case DT_WEDGE6: return 6;
  case DT_WEDGE15: return 15;
  }
  return 0;
}

/* The 20-node hexahedra, full (hex20) and reduced (hex20r) integration: one element, two rules. */
DT_HD static inline int dt_elem_is_hex20(int type) { return type == DT_HEX20 || type == DT_HEX20R; }

/* The 8-node hexahedra: full (hex8), one point with hourglass stiffness (hex8r), incompatible
 * modes (hex8i). */
DT_HD static inline int dt_elem_is_hex8(int type) {
  return type == DT_HEX8 || type == DT_HEX8R || type == DT_HEX8I;
}

/* The wedges (prisms): reference domain the unit triangle in (xi_0, xi_1) times [-1, 1] in
 * xi_2, their axis; faces S1, S2 are triangles, S3-S5 quadrilaterals. */
DT_HD static inline int dt_elem_is_wedge(int type) {
  return type == DT_WEDGE6 || type == DT_WEDGE15;
}

/* The 8-node serendipity quadrilaterals, full (quad8) and reduced (quad8r) integration: one
 * element, two rules. */
DT_HD static inline int dt_elem_is_quad8(int type) { return type == DT_QUAD8 || type == DT_QUAD8R; }

/* Quadrilaterals of any order: reference square [-1,1]^2, corners are nodes 0-3. */
DT_HD static inline int dt_elem_is_quad(int type) {
  return type == DT_QUAD4 || dt_elem_is_quad8(type) || type == DT_QUAD9 || type == DT_QUAD16;
}

/* Types on a reference cube or square (tensor Gauss rules), as opposed to simplices and
 * wedges. */
DT_HD static inline int dt_elem_is_tensor(int type) {
  return dt_elem_is_hex8(type) || dt_elem_is_hex20(type) || dt_elem_is_quad(type);
}

/* Spatial dimension = displacement DOFs per node: 3 for solids, 2 for plane elements. */
DT_HD static inline int dt_elem_dim(int type) {
  return (dt_elem_is_quad(type) || type == DT_TRI3) ? 2 : 3;
}

/* Element DOFs, nnodes * dim (at most DT_ELEM_MAX_DOF). */
DT_HD static inline int dt_elem_ndof(int type) { return dt_elem_nnodes(type) * dt_elem_dim(type); }

/* The type whose faces look like face `face` of `type`, for the face's rule and shape functions:
 * the type itself, except for the wedges, whose triangles are tet faces and whose
 * quadrilaterals are hexahedron faces (wedge6: tet4 and hex8; wedge15: tet10 and hex20), and
 * quad8r, hex8r and hex8i, whose faces are quad8's and hex8's (the reduced rule is the element's, not
 * its faces'). */
DT_HD static inline int dt_face_kind(int type, int face) {
  if (type == DT_QUAD8R) return DT_QUAD8;
  if (type == DT_HEX8R || type == DT_HEX8I) return DT_HEX8;
  if (type == DT_WEDGE6) return face < 2 ? DT_TET4 : DT_HEX8;
  if (type == DT_WEDGE15) return face < 2 ? DT_TET10 : DT_HEX20;
  return type;
}

#include "element_rules.h"
#include "element_shape.h"
#include "element_kinematics.h"
#include "element_face.h"

#endif
