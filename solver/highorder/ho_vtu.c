/* VTU files of order-P meshes (ho_vtu.h), written with the results writer's appended-data
 * document (io/output_parts.h), so they share its encoding: raw little-endian arrays, each
 * after a UInt64 byte count. */
#include "highorder/ho_vtu.h"

#include <string.h>

#include "highorder/ho_basis.h"
#include "io/output_parts.h"

/* VTK's index of a corner (a, b, c each 0 or P) in its hex8 order. */
static int corner(int a, int b, int c) { return (a ? (b ? 2 : 1) : (b ? 3 : 0)) + (c ? 4 : 0); }

int dt_ho_vtk_hex_node(int P, int a, int b, int c) {
  const int n = P - 1, on_a = a == 0 || a == P, on_b = b == 0 || b == P, on_c = c == 0 || c == P;
  int off = 8;

  if (on_a && on_b && on_c) return corner(a != 0, b != 0, c != 0);
  if (on_b && on_c) /* an edge along xi: 0, 2 (bottom), 4, 6 (top) */
    return off + (a - 1) + (b ? 2 * n : 0) + (c ? 4 * n : 0);
  if (on_a && on_c) /* along eta: 1, 3 (bottom), 5, 7 (top) */
    return off + (b - 1) + (a ? n : 3 * n) + (c ? 4 * n : 0);
  off += 8 * n;
  if (on_a && on_b) /* along zeta: 8 (0,4), 9 (1,5), 10 (2,6), 11 (3,7) */
    return off + (c - 1) + n * (a ? (b ? 2 : 1) : (b ? 3 : 0));
  off += 4 * n;
  if (on_a) return off + (b - 1) + n * (c - 1) + (a ? n * n : 0); /* faces -xi, +xi */
  off += 2 * n * n;
  if (on_b) return off + (a - 1) + n * (c - 1) + (b ? n * n : 0); /* -eta, +eta */
  off += 2 * n * n;
  if (on_c) return off + (a - 1) + n * (b - 1) + (c ? n * n : 0); /* -zeta, +zeta */
  off += 2 * n * n;
  return off + (a - 1) + n * ((b - 1) + n * (c - 1));
}

/* I[a nq + q] = l_q(x_a): the Gauss points' Lagrange polynomials at the Lobatto nodes. */
static dt_status gauss_to_lobatto(int P, int nq, double *I, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double xg[DT_HO_MAX_QPOINTS], wg[DT_HO_MAX_QPOINTS], xl[DT_HO_MAX_NODES], wl[DT_HO_MAX_NODES];

  DT_TRY(dt_ho_gauss_legendre(nq, xg, wg, ctx));
  DT_TRY(dt_ho_gauss_lobatto(P + 1, xl, wl, ctx));
  for (int a = 0; a <= P; a++) dt_ho_lagrange(nq, xg, xl[a], I + (size_t)a * nq, NULL);
cleanup:
  return rc;
}

dt_status dt_ho_vtu_setup(const dt_ho_mesh *m, const dt_ho_elastic *op, dt_ho_vtu *v, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int P = m->order, P1 = P + 1, npe = P1 * P1 * P1;
  int perm[DT_HO_MAX_NODES * DT_HO_MAX_NODES * DT_HO_MAX_NODES];

  memset(v, 0, sizeof *v);
  DT_CHECK(op->order == P && op->n_elems == m->n_elems && op->n_nodes == m->n_nodes && P >= 1 &&
               P <= DT_HO_MESH_MAX_ORDER && op->nq >= 1 && op->nq <= DT_HO_MAX_QPOINTS,
           ctx, DT_ERR_INPUT, "VTU of an order-%d mesh: the operator is of order %d on %d elements",
           P, op->order, op->n_elems);
  v->order = P, v->nq = op->nq, v->n_elems = m->n_elems, v->n_nodes = m->n_nodes;
  DT_TRY(gauss_to_lobatto(P, op->nq, v->I, ctx));
  for (int c = 0; c <= P; c++) /* perm[vtk] = lexicographic */
    for (int b = 0; b <= P; b++)
      for (int a = 0; a <= P; a++) perm[dt_ho_vtk_hex_node(P, a, b, c)] = dt_ho_lex(P, a, b, c);
  DT_ALLOC(v->conn, (size_t)npe * m->n_elems, ctx, "VTU connectivity");
  DT_ALLOC(v->offsets, m->n_elems, ctx, "VTU offsets");
  DT_ALLOC(v->types, m->n_elems, ctx, "VTU cell types");
  DT_ALLOC(v->count, m->n_nodes, ctx, "VTU node counts");
  /* the largest of the contractions' stages: nq^3 points down to P1^3 nodes */
  v->work_half = (size_t)(op->nq > P1 ? op->nq : P1) * (op->nq > P1 ? op->nq : P1) *
                 (op->nq > P1 ? op->nq : P1);
  DT_ALLOC(v->work, 2 * v->work_half, ctx, "VTU interpolation scratch");
  for (int e = 0; e < m->n_elems; e++) {
    const int *en = m->elem_nodes + (size_t)e * npe;
    for (int k = 0; k < npe; k++) v->conn[(size_t)e * npe + k] = en[perm[k]];
    for (int k = 0; k < npe; k++) v->count[en[k]]++;
    v->offsets[e] = (int64_t)(e + 1) * npe;
    v->types[e] = DT_VTK_LAGRANGE_HEXAHEDRON;
  }
cleanup:
  if (rc != DT_OK) dt_ho_vtu_free(v);
  return rc;
}

void dt_ho_vtu_free(dt_ho_vtu *v) {
  if (!v) return;
  dt_free(v->conn);
  dt_free(v->offsets);
  dt_free(v->types);
  dt_free(v->count);
  dt_free(v->work);
  memset(v, 0, sizeof *v);
}

/* y[a, j, k] = sum_i I[a][i] x[i, j, k] along the fastest index, for n2 rows: x is ni x n2,
 * y na x n2, both fastest first; the result's layout rotates the axes (a becomes the slowest),
 * so three passes return to x fastest. */
static void contract(const double *I, int na, int ni, int n2, const double *x, double *y) {
  for (int r = 0; r < n2; r++)
    for (int a = 0; a < na; a++) {
      double s = 0.0;
      for (int i = 0; i < ni; i++) s += I[a * ni + i] * x[r * ni + i];
      y[a * n2 + r] = s;
    }
}

void dt_ho_vtu_nodal(dt_ho_vtu *v, const dt_ho_mesh *m, const double *pts, int stride, int first,
                     int ncomp, double *nodal) {
  const int nq = v->nq, nq3 = nq * nq * nq, P1 = v->order + 1, npe = P1 * P1 * P1;
  double *t1 = v->work, *t2 = v->work + v->work_half;

  memset(nodal, 0, sizeof(double) * (size_t)ncomp * v->n_nodes);
  for (int e = 0; e < v->n_elems; e++) {
    const int *en = m->elem_nodes + (size_t)e * npe;
    for (int c = 0; c < ncomp; c++) {
      const double *x = pts + ((size_t)e * stride + first + c) * nq3;
      /* (qx, qy, qz) -> (qy, qz, a) -> (qz, a, b) -> (a, b, c) */
      contract(v->I, P1, nq, nq * nq, x, t1);
      contract(v->I, P1, nq, nq * P1, t1, t2);
      contract(v->I, P1, nq, P1 * P1, t2, t1);
      for (int k = 0; k < npe; k++) nodal[(size_t)en[k] * ncomp + c] += t1[k];
    }
  }
  for (int n = 0; n < v->n_nodes; n++)
    for (int c = 0; c < ncomp; c++)
      if (v->count[n] > 0) nodal[(size_t)n * ncomp + c] /= v->count[n];
}

/* A FieldData array of one value. */
static void field_value(dt_vtu_doc *d, const char *type, size_t size, const char *name,
                        const void *x) {
  dt_vtu_doc_array(d, type, size, name, 0, NULL, x, 1);
  if (!d->overflow) d->item[d->n - 1].tuples = 1;
}

static void point_data(dt_vtu_doc *d, const dt_ho_vtu_fields *f, size_t nn) {
  const char *const *voigt = dt_vtu_voigt_names, *const *xyz = dt_vtu_xyz_names;
  dt_vtu_doc_text(d, "      <PointData%s>\n", f->u ? " Vectors=\"U\"" : "");
  if (f->u) dt_vtu_doc_array(d, "Float64", 8, "U", 3, xyz, f->u, 3 * nn);
  if (f->rf) dt_vtu_doc_array(d, "Float64", 8, "RF", 3, xyz, f->rf, 3 * nn);
  if (f->s) dt_vtu_doc_array(d, "Float64", 8, "S", 6, voigt, f->s, 6 * nn);
  if (f->e) dt_vtu_doc_array(d, "Float64", 8, "E", 6, voigt, f->e, 6 * nn);
  if (f->peeq) dt_vtu_doc_array(d, "Float64", 8, "PEEQ", 1, NULL, f->peeq, nn);
  if (f->mises) dt_vtu_doc_array(d, "Float64", 8, "MISES", 1, NULL, f->mises, nn);
  dt_vtu_doc_text(d, "      </PointData>\n");
}

dt_status dt_ho_vtu_write(const dt_ho_vtu *v, const dt_ho_mesh *m, const dt_ho_vtu_fields *f,
                          const char *path, dt_ctx *ctx) {
  const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
  const size_t npe = (size_t)(v->order + 1) * (v->order + 1) * (v->order + 1);
  dt_vtu_doc *d = NULL; /* 16 kB: on the heap, the solver's thread has the stack it needs */
  dt_status rc = DT_OK;

  DT_ALLOC(d, 1, ctx, "a VTU document");
  dt_vtu_doc_text(d, "    <FieldData>\n");
  field_value(d, "Float64", 8, "TIME", &f->time);
  field_value(d, "Int32", 4, "STEP", &f->step);
  field_value(d, "Int32", 4, "INCREMENT", &f->increment);
  dt_vtu_doc_text(d, "    </FieldData>\n    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n",
                  m->n_nodes, m->n_elems);
  point_data(d, f, nn);
  dt_vtu_doc_text(d, "      <Points>\n");
  dt_vtu_doc_array(d, "Float64", 8, NULL, 3, NULL, m->coords, 3 * nn);
  dt_vtu_doc_text(d, "      </Points>\n      <Cells>\n");
  dt_vtu_doc_array(d, "Int64", 8, "connectivity", 0, NULL, v->conn, npe * ne);
  dt_vtu_doc_array(d, "Int64", 8, "offsets", 0, NULL, v->offsets, ne);
  dt_vtu_doc_array(d, "UInt8", 1, "types", 0, NULL, v->types, ne);
  dt_vtu_doc_text(d, "      </Cells>\n    </Piece>\n");
  DT_TRY(dt_vtu_doc_write_version(d, "2.2", path, ctx));
cleanup:
  dt_free(d);
  return rc;
}
