/* The memory of an order-P run (ho_job.h), counted from the arrays its parts allocate, for the
 * daemon's admission by memory. Each term names the header whose arrays it counts; a part that
 * grows an array changes its term here. */
#include <math.h>

#include "highorder/ho_job.h"

/* Per Gauss point: the J2 state (ho_plastic.h) and the operator's qdata (10 doubles). */
#define POINT_BYTES (569.0 + 10.0 * 8.0)
/* Vectors of 3 n_nodes doubles: the job's u, u_presc, f, fint; Newton's nine
 * (ho_plastic_newton.c, ho_plastic_ops.c); the finest multigrid level's dinv, b, x, r, d, t; the
 * coordinates. */
#define FINE_VECTORS (4.0 + 9.0 + 6.0 + 1.0)
/* Per node of a coarser multigrid level: its coordinates and V-cycle vectors, 3 doubles each. */
#define COARSE_NODE_BYTES (7.0 * 3.0 * 8.0)
/* Per vertex of the order-1 level: 3 CSR rows of 81 entries (value and column), and the AMG
 * hierarchy on it, taken as half as much again. */
#define VERTEX_BYTES (1.5 * 3.0 * 81.0 * 12.0)
/* The result files' buffers (ho_job_output.c, ho_vtu.h): per element node the VTK
 * connectivity (Int64) and per Gauss point Mises; per node the nodal fields (f_int, RF 3 each,
 * S, E 6 each, PEEQ, Mises) and the element count. */
#define VTU_POINT_BYTES (8.0 + 8.0)
#define VTU_NODE_BYTES (20.0 * 8.0 + 4.0)
/* Per hexahedron of the corner hex8 model the job is parsed on (model.h), a generous bound. */
#define CORNER_ELEMENT_BYTES 512.0

/* Nodes of an order-p mesh on the same elements, from the order-P one's: a block of n^3
 * hexahedra has (n p + 1)^3 of them, and (n p + 1) / (n P + 1) <= (p + 1) / (P + 1) for every n,
 * the bound taken (a single element; a large mesh approaches (p / P)^3). */
static double level_nodes(int p, int order, int n_nodes) {
  double r = (p + 1.0) / (order + 1.0);
  return r * r * r * n_nodes;
}

double dt_ho_job_estimate_bytes(int order, int n_elems, int n_nodes) {
  double P1 = order + 1.0, e = n_elems, bytes = 0.0;

  if (order < 1 || n_elems <= 0 || n_nodes <= 0) return 0.0;
  bytes += e * P1 * P1 * P1 * (POINT_BYTES + 4.0 + VTU_POINT_BYTES); /* and element nodes */
  bytes += VTU_NODE_BYTES * n_nodes;
  bytes += FINE_VECTORS * 3.0 * 8.0 * n_nodes + 2.0 * n_nodes; /* vectors; fixed flags, groups */
  bytes += CORNER_ELEMENT_BYTES * e;
  /* ho_pmg.h: orders halved (rounded up) down to 1, each an elastic operator with its qdata
   * and element nodes; the order-1 level is also assembled */
  for (int p = order; p > 1;) {
    double q;
    p = (p + 1) / 2;
    q = p + 1.0;
    bytes +=
        e * q * q * q * (10.0 * 8.0 + 4.0) + COARSE_NODE_BYTES * level_nodes(p, order, n_nodes);
  }
  if (order >= 2) bytes += VERTEX_BYTES * level_nodes(1, order, n_nodes);
  return bytes;
}
