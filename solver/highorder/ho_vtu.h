/* Order-P results as VTK XML files: each hexahedron a VTK_LAGRANGE_HEXAHEDRON of order P with
 * its (P+1)^3 nodes, the Gauss-point fields brought to those nodes.
 *
 * Node order. VTK numbers a Lagrange hexahedron's nodes corners first (its hex8 order, which is
 * ours: ho_mesh.h), then the interior nodes of the 12 edges, the 6 faces and the body. Edges
 * 0-3 are the bottom's (0,1), (1,2), (3,2), (0,3), 4-7 the top's alike, 8-11 the vertical ones
 * (0,4), (1,5), (2,6), (3,7) (VTK 9.1's order, declared by the file version 2.2; older files
 * had 10 and 11 swapped, and readers renumber them); every edge's nodes run along the
 * reference axis it follows, whichever corner it starts from. Faces come in the order -xi,
 * +xi, -eta, +eta, -zeta, +zeta, their nodes row by row with the lower reference axis fastest;
 * the body's lexicographically. With our lexicographic node (a, b, c) = VTK's (i, j, k), the
 * permutation is dt_ho_vtk_hex_node.
 *
 * Where the nodes are. Ours sit on the Gauss-Lobatto points, VTK's Lagrange cells interpolate
 * as if they were equispaced: positions and values at the nodes are exact, and inside a cell
 * (P >= 3, where the two differ) the drawn field and surface are another degree-P polynomial
 * through the same nodal values. Matching ParaView's interpolation would need a change of
 * basis and new shared nodes; the nodal values are what the solver computed.
 *
 * Gauss points to nodes. A field known at the nq^3 Gauss-Legendre points of an element is the
 * tensor product of degree nq - 1 polynomials through them; it is evaluated at the element's
 * Lobatto nodes with the 1D matrix I[a][q] = l_q(x_a) (l_q the Lagrange polynomial of Gauss
 * point q), three 1D contractions per element, which reproduces a field of degree nq - 1 = P
 * exactly. Values at nodes that elements share are the mean of the elements' values. The
 * extrapolation to the element's boundary can overshoot (PEEQ slightly below 0 beside a
 * plastic zone): by at most the Lebesgue constant (max_a sum_q |I[a][q]|)^3 times the largest
 * point value, written as computed. */
#ifndef DT_HO_VTU_H
#define DT_HO_VTU_H

#include <stdint.h>

#include "core/dt_status.h"
#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"

/* VTK's cell type code of a Lagrange hexahedron. */
#define DT_VTK_LAGRANGE_HEXAHEDRON 72

/* VTK's index of our lexicographic node (a, b, c) of an element of order P (see above). */
int dt_ho_vtk_hex_node(int P, int a, int b, int c);

/* What a VTU of an order-P mesh holds besides the mesh, nodal arrays or NULL. */
typedef struct dt_ho_vtu_fields {
  double time; /* FieldData TIME (a static step's load factor) */
  int step, increment;
  const double *u, *rf;       /* 3 per node */
  const double *s, *e;        /* 6 per node, Voigt (xx, yy, zz, xy, xz, yz), e engineering shears */
  const double *peeq, *mises; /* 1 per node */
} dt_ho_vtu_fields;

/* The mesh in VTK's terms and the Gauss-to-node interpolation, built once per run. */
typedef struct dt_ho_vtu {
  int order, nq, n_elems, n_nodes;
  int64_t *conn;    /* n_elems (P+1)^3 global node ids, VTK's order per cell (owned) */
  int64_t *offsets; /* end of each cell in conn (owned) */
  uint8_t *types;   /* DT_VTK_LAGRANGE_HEXAHEDRON per cell (owned) */
  int *count;       /* elements sharing each node (owned) */
  double *work;     /* dt_ho_vtu_nodal's scratch, 2 work_half doubles (owned) */
  size_t work_half;
  double I[DT_HO_MAX_NODES * DT_HO_MAX_QPOINTS]; /* I[a nq + q] = l_q(x_a) */
} dt_ho_vtu;

/* Builds v for mesh m with op's Gauss points (op on m, nq = op->nq). Errors: DT_ERR_NOMEM,
 * DT_ERR_INPUT for sizes that do not match. Release with dt_ho_vtu_free. */
dt_status dt_ho_vtu_setup(const dt_ho_mesh *m, const dt_ho_elastic *op, dt_ho_vtu *v, dt_ctx *ctx);
/* Releases what v owns and zeroes it (NULL-safe). */
void dt_ho_vtu_free(dt_ho_vtu *v);

/* Nodal values (ncomp per node, n_nodes x ncomp, overwritten) of a Gauss-point field: component
 * c of point q of element e is pts[(e * stride + first + c) * nq^3 + q], the layout of
 * ho_plastic.h's arrays (stride their components per point, first the one to start at). Uses
 * v's scratch: one call at a time per v. */
void dt_ho_vtu_nodal(dt_ho_vtu *v, const dt_ho_mesh *m, const double *pts, int stride, int first,
                     int ncomp, double *nodal);

/* Writes path (atomically) as a VTU of m with the given fields: FieldData TIME, STEP,
 * INCREMENT; PointData U, RF, S, E, PEEQ, MISES where given; the cells. Errors: DT_ERR_IO. */
dt_status dt_ho_vtu_write(const dt_ho_vtu *v, const dt_ho_mesh *m, const dt_ho_vtu_fields *f,
                          const char *path, dt_ctx *ctx);

#endif
