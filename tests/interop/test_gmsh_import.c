/* Gmsh round trip: the same geometry written as .msh 4.1/2.2, ASCII/binary imports to the same
 * model: counts, sets and surfaces by name, and every element with a positive Jacobian at every
 * integration point (dt_elem_check_geometry).
 *
 *   test_gmsh_import plate|bracket FILE.msh...
 * Prints one summary line per file; fails on the first difference.
 *
 *   test_gmsh_import quads FILE.msh...
 * The hand-written meshes of tests/interop/msh/ (quad8, quad9, quad16; format 4.1 and 2.2): two
 * elements, 11 numbered counterclockwise and 12 clockwise, with 3- or 4-node boundary lines.
 * Checks the exact imported connectivity (element 12 turned counterclockwise), every node at
 * its place in the element (Gmsh's order = element.h's), the (element, face) pairs and nodes
 * of the boundary groups.
 *
 *   test_gmsh_import hex20 FILE.msh...
 * tests/interop/msh/hex20_v41.msh and hex20_v22.msh: two unit-cube 20-node hexahedra (Gmsh type
 * 17, Gmsh's node order, whose mid-edge nodes differ from CalculiX's), element 11 as Gmsh
 * orients it, element 12 inverted (its top face first), and the 8-node quadrangle faces x = 0
 * ("left") and x = 2 ("right"). Checks that both import as hex20, every node where element.h's
 * node order puts it (the trilinear map of the corners at its reference point: so the mid-edge
 * nodes were permuted and element 12 turned), det J positive at the points and nodes, and each
 * group one outward face of unit area whose 8 nodes lie on its plane.
 *
 *   test_gmsh_import wedge15 FILE.msh...
 * tests/interop/msh/wedge15_v41.msh and wedge15_v22.msh (written by a script from the unit cube's
 * doubled grid, node id 1000 + 100 k + 10 j + i): the unit cube as two 15-node prisms (Gmsh
 * type 18, Gmsh's node order, whose mid-edge nodes differ from CalculiX's), element 11 as Gmsh
 * orients prisms, element 12 inverted (its top triangle first: `gmsh -check` reports its
 * negative volume), the 6-node triangles of z = 0 ("bottom", one per prism) and the 8-node
 * quadrangle x = 1 ("right"). Checks that both import as wedge15 with every node where
 * element.h's node order puts it (so Gmsh's mid-edge nodes were permuted and element 12
 * turned), det J positive at the points and nodes, "bottom" two triangular faces (S1) whose
 * area vectors sum to (0, 0, -1), "right" one quadrilateral face of area vector (1, 0, 0).
 * Every file is also sized by the size scanner (io/size_scan.h), read whole and fed 1 and 7
 * bytes at a time: it must count the model's elements per type and dimension, and at least
 * its nodes and elements (the file's lower-dimensional elements count too), in each format. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "element/element.h"
#include "element/element_check.h"
#include "io/import.h"
#include "io/size_scan.h"

static int fail(const char *file, const char *msg) {
  fprintf(stderr, "FAIL %s: %s\n", file, msg);
  return 1;
}

static int check_geometry(const dt_model *m, const char *file) {
  double X[3 * DT_ELEM_MAX_NODES];
  dt_ctx ctx = {0};

  for (int e = 0; e < m->n_elems; e++) {
    int k0 = m->elem_ptr[e];
    for (int a = 0; a < m->elem_ptr[e + 1] - k0; a++)
      memcpy(&X[3 * a], &m->x[3 * m->conn[k0 + a]], 3 * sizeof(double));
    if (dt_elem_check_geometry(m->elem_type[e], X, m->elem_id[e], &ctx) != DT_OK)
      return fail(file, ctx.msg);
  }
  return 0;
}

static int scan_pieces(const char *file, size_t piece, dt_model_size *out) {
  FILE *f = fopen(file, "rb");
  unsigned char buf[4096];
  size_t got = 0;
  dt_size_scan *s = NULL;
  dt_ctx ctx = {0};
  if (!f || dt_size_scan_create(DT_SIZE_GMSH, 0, &s, &ctx) != DT_OK) {
    if (f) fclose(f);
    return fail(file, "cannot scan");
  }
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    for (size_t at = 0; at < got; at += piece)
      dt_size_scan_feed(s, buf + at, got - at < piece ? got - at : piece);
  fclose(f);
  dt_size_scan_result(s, out);
  dt_size_scan_destroy(&s);
  return 0;
}

static int check_scan(const dt_model *m, const char *file) {
  static const size_t pieces[] = {1, 7};
  int64_t want[DT_ELEM_NTYPES] = {0};
  dt_model_size sz, other;
  dt_ctx ctx = {0};
  for (int e = 0; e < m->n_elems; e++) want[m->elem_type[e]]++;
  if (dt_size_scan_file(file, DT_SIZE_GMSH, &sz, &ctx) != DT_OK) return fail(file, ctx.msg);
  if (sz.n_nodes < m->n_nodes || sz.n_elems < m->n_elems || sz.dim != m->dim ||
      memcmp(want, sz.n_type, sizeof want) != 0)
    return fail(file, "the size scanner's counts are not the model's");
  for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
    if (scan_pieces(file, pieces[i], &other)) return 1;
    if (other.n_nodes != sz.n_nodes || other.n_elems != sz.n_elems ||
        memcmp(other.n_type, sz.n_type, sizeof sz.n_type) != 0)
      return fail(file, "the size scanner counts differently when fed in pieces");
  }
  return 0;
}

static int find(const char *name, const void *arr, size_t stride, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp((const char *)arr + (size_t)i * stride, name) == 0) return i;
  return -1;
}

/* "name:size" per set and surface, in a fixed order, for comparing files, after the element
 * count of each type ("quad9:628"). */
static void signature(const dt_model *m, char *sig, size_t n) {
  static const char *const names[DT_ELEM_NTYPES] = {
      [DT_ELEM_HEX8] = "hex8",     [DT_ELEM_TET4] = "tet4",     [DT_ELEM_TET10] = "tet10",
      [DT_ELEM_QUAD4] = "quad4",   [DT_ELEM_TRI3] = "tri3",     [DT_ELEM_QUAD8] = "quad8",
      [DT_ELEM_QUAD9] = "quad9",   [DT_ELEM_QUAD16] = "quad16", [DT_ELEM_HEX20] = "hex20",
      [DT_ELEM_HEX20R] = "hex20r", [DT_ELEM_WEDGE6] = "wedge6", [DT_ELEM_WEDGE15] = "wedge15"};
  int count[DT_ELEM_NTYPES] = {0};
  size_t k = (size_t)snprintf(sig, n, "dim %d nodes %d elems %d", m->dim, m->n_nodes, m->n_elems);
  for (int e = 0; e < m->n_elems; e++) count[m->elem_type[e]]++;
  for (int t = 0; t < DT_ELEM_NTYPES && k < n; t++)
    if (count[t]) k += (size_t)snprintf(sig + k, n - k, " %s:%d", names[t], count[t]);
  if (k < n) k += (size_t)snprintf(sig + k, n - k, " |");
  for (int i = 0; i < m->n_nsets && k < n; i++)
    k += (size_t)snprintf(sig + k, n - k, " N:%s:%d", m->nsets[i].name, m->nsets[i].n);
  for (int i = 0; i < m->n_elsets && k < n; i++)
    k += (size_t)snprintf(sig + k, n - k, " E:%s:%d", m->elsets[i].name, m->elsets[i].n);
  for (int i = 0; i < m->n_surfaces && k < n; i++)
    k += (size_t)snprintf(sig + k, n - k, " S:%s:%d", m->surfaces[i].name, m->surfaces[i].n);
}

/* ---- quads: the hand-written high-order quadrilateral meshes ---- */

/* The meshes: node tag 1JI is column I, row J of a (2p+1) x (p+1) grid on [0,2]x[0,1] (p the
 * order), sheared by x += SHEAR y. Element 11 covers columns 0..p, element 12 columns p..2p and
 * is numbered clockwise from its top right corner (node tag 1(p)(2p)). */
#define SHEAR 0.25

typedef struct quad_case {
  int type, p, n_nodes;
  int ccw[16];    /* element 11, as in the file */
  int file12[16]; /* element 12 as in the file (clockwise) */
  int flipped
      [16]; /* element 12 after the import: corners 1, 4, 3, 2 of the file, its edges reversed */
} quad_case;

static const quad_case quad_cases[] = {
    {DT_ELEM_QUAD8,
     2,
     13,
     {100, 102, 122, 120, 101, 112, 121, 110},
     {124, 104, 102, 122, 114, 103, 112, 123},
     {124, 122, 102, 104, 123, 112, 103, 114}},
    {DT_ELEM_QUAD9,
     2,
     15,
     {100, 102, 122, 120, 101, 112, 121, 110, 111},
     {124, 104, 102, 122, 114, 103, 112, 123, 113},
     {124, 122, 102, 104, 123, 112, 103, 114, 113}},
    {DT_ELEM_QUAD16,
     3,
     28,
     {100, 103, 133, 130, 101, 102, 113, 123, 132, 131, 120, 110, 111, 112, 122, 121},
     {136, 106, 103, 133, 126, 116, 105, 104, 113, 123, 134, 135, 125, 115, 114, 124},
     {136, 133, 103, 106, 135, 134, 123, 113, 104, 105, 116, 126, 125, 124, 114, 115}},
};

/* Gmsh's node order (= element.h's) as (i, j) on the (p+1) x (p+1) grid of the reference square:
 * corners counterclockwise, edge nodes edge by edge in the edge's direction, interior. */
static const int ij2[9][2] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 0},
                              {2, 1}, {1, 2}, {0, 1}, {1, 1}};
static const int ij3[16][2] = {{0, 0}, {3, 0}, {3, 3}, {0, 3}, {1, 0}, {2, 0}, {3, 1}, {3, 2},
                               {2, 3}, {1, 3}, {0, 2}, {0, 1}, {1, 1}, {2, 1}, {2, 2}, {1, 2}};

/* Boundary groups: their (element tag, face) pairs (face 0 = S1 = edge 1-2), and the grid row
 * (bottom 0, top p) or column (left 0, right 2p) of their nodes. */
static const struct {
  const char *name;
  int n, elem[2], face[2], row, col; /* row/col -1: free; -2: the last one (p, 2p) */
} quad_groups[] = {
    {"bottom", 2, {11, 12}, {0, 2}, 0, -1},
    {"right", 1, {12}, {3}, -1, -2},
    {"top", 2, {11, 12}, {2, 0}, -2, -1},
    {"left", 1, {11}, {3}, -1, 0},
};

static int qfail(const char *file, const char *what, long got, long want) {
  fprintf(stderr, "FAIL %s: %s: %ld, expected %ld\n", file, what, got, want);
  return 1;
}

static int qfail_at(const char *file, const char *what, long at) {
  fprintf(stderr, "FAIL %s: %s %ld\n", file, what, at);
  return 1;
}

static int elem_index(const dt_model *m, int64_t id) {
  for (int e = 0; e < m->n_elems; e++)
    if (m->elem_id[e] == id) return e;
  return -1;
}

/* Grid column and row of a node from its coordinates; -1 if it is off the grid. */
static int node_grid(const dt_model *m, int i, int p, int *col, int *row) {
  const double y = m->x[3 * i + 1], x = m->x[3 * i] - SHEAR * y;
  *col = (int)lround(x * p), *row = (int)lround(y * p);
  return fabs(x * p - *col) < 1e-9 && fabs(y * p - *row) < 1e-9 && m->x[3 * i + 2] == 0.0 ? 0 : -1;
}

/* Element e: node ids equal to want[], each node where the bilinear map of the corners puts
 * its (i, j) of Gmsh's order (the mesh has straight edges and equal spacing), and element.h's
 * shape functions at that reference point equal to 1 at the node and 0 at the others. */
static int check_quad_elem(const dt_model *m, const char *file, int e, const int *want, int p) {
  const int n = m->elem_ptr[e + 1] - m->elem_ptr[e];
  const int *c = &m->conn[m->elem_ptr[e]];
  double N[DT_ELEM_MAX_NODES], dN[3 * DT_ELEM_MAX_NODES];

  for (int a = 0; a < n; a++)
    if (m->node_id[c[a]] != want[a])
      return qfail(file, "element node id", (long)m->node_id[c[a]], want[a]);
  for (int a = 0; a < n; a++) {
    const int *ij = p == 2 ? ij2[a] : ij3[a];
    const double s = (double)ij[0] / p, t = (double)ij[1] / p;
    const double w[4] = {(1 - s) * (1 - t), s * (1 - t), s * t, (1 - s) * t};
    double xi[3] = {2.0 * s - 1.0, 2.0 * t - 1.0, 0.0};
    for (int k = 0; k < 2; k++) {
      double x = 0;
      for (int b = 0; b < 4; b++) x += w[b] * m->x[3 * c[b] + k];
      if (fabs(x - m->x[3 * c[a] + k]) > 1e-12)
        return qfail_at(file, "a node is off its place in the element: local node", a);
    }
    dt_elem_shape(m->elem_type[e], xi, N, dN);
    for (int b = 0; b < n; b++)
      if (fabs(N[b] - (a == b)) > 1e-12)
        return qfail_at(file, "element.h's shape functions are not delta_ab at local node", a);
  }
  return 0;
}

/* A boundary group: the surface holds exactly the expected (element, face) pairs, each face's
 * nodes (dt_face_local_nodes: ends, then inner nodes) equally spaced along the edge and in the
 * group's node set; the node set is exactly the grid nodes of the row or column. */
static int check_quad_group(const dt_model *m, const char *file, int g, int p) {
  const char *name = quad_groups[g].name;
  int si = find(name, m->surfaces, sizeof *m->surfaces, m->n_surfaces);
  int ni = find(name, m->nsets, sizeof *m->nsets, m->n_nsets), local[DT_FACE_MAX_NODES], want = 0,
      col = 0, row = 0;
  const dt_surface *s = si < 0 ? NULL : &m->surfaces[si];
  const dt_set *ns = ni < 0 ? NULL : &m->nsets[ni];
  const int wrow = quad_groups[g].row == -2 ? p : quad_groups[g].row;
  const int wcol = quad_groups[g].col == -2 ? 2 * p : quad_groups[g].col;

  if (!s || !ns) return fail(file, "a boundary group's surface or node set is missing");
  if (s->n != quad_groups[g].n)
    return qfail(file, "faces in a boundary surface", s->n, quad_groups[g].n);
  for (int k = 0; k < quad_groups[g].n; k++) {
    int hits = 0;
    for (int f = 0; f < s->n; f++)
      hits +=
          m->elem_id[s->elem[f]] == quad_groups[g].elem[k] && s->face[f] == quad_groups[g].face[k];
    if (hits != 1)
      return qfail(file, "an expected (element, face) of the surface: times found", hits, 1);
  }
  for (int f = 0; f < s->n; f++) {
    const int *c = &m->conn[m->elem_ptr[s->elem[f]]];
    const int nf = dt_face_nnodes(m->elem_type[s->elem[f]], s->face[f]);
    if (nf != p + 1) return qfail(file, "nodes on a face", nf, p + 1);
    dt_face_local_nodes(m->elem_type[s->elem[f]], s->face[f], local);
    for (int a = 0; a < nf; a++) {
      const double t = a < 2 ? a : (double)(a - 1) / p; /* ends at 0, 1; inner nodes at 1/p, 2/p */
      int in = 0;
      for (int k = 0; k < 2; k++) {
        const double x = (1 - t) * m->x[3 * c[local[0]] + k] + t * m->x[3 * c[local[1]] + k];
        if (fabs(x - m->x[3 * c[local[a]] + k]) > 1e-12)
          return qfail_at(file, "a face node is off its place on the edge: face node", a);
      }
      for (int i = 0; i < ns->n; i++) in |= ns->items[i] == c[local[a]];
      if (!in)
        return qfail_at(file, "a face node is not in the group's node set: node",
                        (long)m->node_id[c[local[a]]]);
    }
  }
  for (int i = 0; i < m->n_nodes; i++) {
    if (node_grid(m, i, p, &col, &row))
      return qfail_at(file, "a node is off the grid: node", (long)m->node_id[i]);
    want += (wrow < 0 || row == wrow) && (wcol < 0 || col == wcol);
  }
  if (ns->n != want) return qfail(file, "nodes in a boundary node set", ns->n, want);
  for (int i = 0; i < ns->n; i++) {
    node_grid(m, ns->items[i], p, &col, &row);
    if ((wrow >= 0 && row != wrow) || (wcol >= 0 && col != wcol))
      return qfail_at(file, "a boundary node set holds a node off its edge: node",
                      (long)m->node_id[ns->items[i]]);
  }
  return 0;
}

static int check_quads(const char *file) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  const quad_case *q = NULL;
  int rc = 1, e11 = -1, e12 = -1, d = -1;

  if (dt_gmsh_read_file(file, NULL, &m, &ctx) != DT_OK) return fail(file, ctx.msg);
  if (check_scan(m, file)) return 1;
  for (size_t k = 0; k < sizeof quad_cases / sizeof quad_cases[0]; k++)
    if (m->n_elems > 0 && m->elem_type[0] == quad_cases[k].type) q = &quad_cases[k];
  if (!q) {
    fail(file, "the elements are not quad8, quad9 or quad16");
    goto done;
  }
  if (m->dim != 2 || m->n_elems != 2 || m->elem_type[1] != q->type || m->n_nodes != q->n_nodes) {
    fail(file, "expected 2 elements of one type in 2D, on all the nodes");
    goto done;
  }
  e11 = elem_index(m, 11), e12 = elem_index(m, 12);
  if (e11 < 0 || e12 < 0) {
    fail(file, "element 11 or 12 is missing");
    goto done;
  }
  if (check_quad_elem(m, file, e11, q->ccw, q->p) ||
      check_quad_elem(m, file, e12, q->flipped, q->p))
    goto done;
  if (check_geometry(m, file)) goto done;
  if (m->n_elsets != 1 || (d = find("dom", m->elsets, sizeof *m->elsets, m->n_elsets)) < 0 ||
      m->elsets[d].n != 2 || m->n_surfaces != 4 || m->n_nsets != 5 ||
      (d = find("dom", m->nsets, sizeof *m->nsets, m->n_nsets)) < 0 ||
      m->nsets[d].n != q->n_nodes) {
    fail(file, "expected the element and node set dom (all) and 4 boundary surfaces and node sets");
    goto done;
  }
  for (int g = 0; g < (int)(sizeof quad_groups / sizeof quad_groups[0]); g++)
    if (check_quad_group(m, file, g, q->p)) goto done;
  printf("%s: %d x %s, element 12 turned counterclockwise, 4 boundary surfaces\n", file, m->n_elems,
         q->type == DT_ELEM_QUAD8   ? "quad8"
         : q->type == DT_ELEM_QUAD9 ? "quad9"
                                    : "quad16");
  fflush(stdout); /* shown even if a later file crashes the importer */
  rc = 0;
done:
  dt_model_destroy(&m);
  return rc;
}

/* The tables above describe the files: element 12's flipped connectivity is its file order
 * mirrored (corners 1, 4, 3, 2, edges 4, 3, 2, 1 reversed, interior 1, 4, 3, 2). */
static int check_tables(void) {
  for (size_t k = 0; k < sizeof quad_cases / sizeof quad_cases[0]; k++) {
    const quad_case *q = &quad_cases[k];
    const int p = q->p, n = q->type == DT_ELEM_QUAD8 ? 8 : (p + 1) * (p + 1), ne = 4 * (p - 1);
    for (int a = 0; a < n; a++) {
      int b = a < 4        ? (4 - a) % 4
              : a < 4 + ne ? 4 + ne - 1 - (a - 4)
                           : 4 + ne + (4 - (a - 4 - ne)) % 4;
      if (q->flipped[a] != q->file12[b])
        return qfail("(tables)", "a flipped node of quad_cases", q->flipped[a], q->file12[b]);
    }
  }
  return 0;
}

/* ---- hex20: the hand-written 20-node hexahedra ---- */

/* Element e: every node at the trilinear map of its corners at the node's reference point. */
static int check_hex20_elem(const dt_model *m, const char *file, int e) {
  const int *c = &m->conn[m->elem_ptr[e]];
  double xi[3];
  for (int a = 0; a < 20; a++) {
    dt_elem_node_xi(DT_HEX20, a, xi);
    for (int k = 0; k < 3; k++) {
      double x = 0.0;
      for (int b = 0; b < 8; b++) {
        double s[3], w = 0.125;
        dt_elem_node_xi(DT_HEX8, b, s);
        for (int l = 0; l < 3; l++) w *= 1.0 + s[l] * xi[l];
        x += w * m->x[3 * c[b] + k];
      }
      if (fabs(x - m->x[3 * c[a] + k]) > 1e-12)
        return qfail_at(file, "a node is off its place in the hex20: local node", a);
    }
  }
  return 0;
}

/* Group "left" (x = 0, outward -x) or "right" (x = 2, outward +x): one face, unit area. */
static int check_hex20_group(const dt_model *m, const char *file, const char *name, double x0,
                             double nx) {
  int si = find(name, m->surfaces, sizeof *m->surfaces, m->n_surfaces), local[DT_FACE_MAX_NODES];
  double Xf[3 * DT_FACE_MAX_NODES], Nf[DT_FACE_MAX_NODES], nda[3], area[3] = {0, 0, 0};
  const dt_surface *s = si < 0 ? NULL : &m->surfaces[si];
  if (!s || s->n != 1) return fail(file, "a boundary surface is missing or has more than one face");
  int e = s->elem[0], type = m->elem_type[e], nf = dt_face_nnodes(type, s->face[0]);
  const int *c = &m->conn[m->elem_ptr[e]];
  if (nf != 8) return qfail(file, "nodes on a hex20 face", nf, 8);
  dt_face_local_nodes(type, s->face[0], local);
  for (int a = 0; a < nf; a++) {
    for (int k = 0; k < 3; k++) Xf[3 * a + k] = m->x[3 * c[local[a]] + k];
    if (Xf[3 * a] != x0)
      return qfail_at(file, "a face node is off the group's plane: face node", a);
  }
  for (int q = 0; q < dt_face_nqp(type, s->face[0]); q++) {
    dt_face_point(type, s->face[0], q, Xf, Nf, nda);
    for (int k = 0; k < 3; k++) area[k] += nda[k];
  }
  if (fabs(area[0] - nx) > 1e-12 || fabs(area[1]) > 1e-12 || fabs(area[2]) > 1e-12)
    return fail(file, "a boundary face's area vector is not the outward unit normal");
  return 0;
}

static int check_hex20(const char *file) {
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  int rc = 0;
  if (dt_gmsh_read_file(file, NULL, &m, &ctx) != DT_OK) return fail(file, ctx.msg);
  if (check_scan(m, file)) return 1;
  if (m->dim != 3 || m->n_elems != 2 || m->n_nodes != 32)
    rc = fail(file, "wrong dimension or counts");
  for (int e = 0; !rc && e < m->n_elems; e++)
    if (m->elem_type[e] != DT_ELEM_HEX20)
      rc = qfail(file, "element type", m->elem_type[e], DT_ELEM_HEX20);
  if (!rc) rc = check_geometry(m, file);
  for (int e = 0; !rc && e < m->n_elems; e++) rc = check_hex20_elem(m, file, e);
  if (!rc) rc = check_hex20_group(m, file, "left", 0.0, -1.0);
  if (!rc) rc = check_hex20_group(m, file, "right", 2.0, 1.0);
  if (!rc) printf("%s: 2 hex20 (one turned), faces left and right: ok\n", file);
  dt_model_destroy(&m);
  return rc;
}

/* ---- wedge15: the hand-written 15-node prisms ---- */

/* Element e: every node at the wedge6 map of its corners at the node's reference point. */
static int check_wedge15_elem(const dt_model *m, const char *file, int e) {
  const int *c = &m->conn[m->elem_ptr[e]];
  double xi[3], N[6], dN[18];
  for (int a = 0; a < 15; a++) {
    dt_elem_node_xi(DT_WEDGE15, a, xi);
    dt_elem_shape(DT_WEDGE6, xi, N, dN);
    for (int k = 0; k < 3; k++) {
      double x = 0.0;
      for (int b = 0; b < 6; b++) x += N[b] * m->x[3 * c[b] + k];
      if (fabs(x - m->x[3 * c[a] + k]) > 1e-12)
        return qfail_at(file, "a node is off its place in the wedge15: local node", a);
    }
  }
  return 0;
}

/* Group `name`: n faces with nodes_per_face nodes each, all on the plane x_axis = at, whose area
 * vectors sum to `want`. */
static int check_wedge15_group(const dt_model *m, const char *file, const char *name, int n,
                               int nodes_per_face, int axis, double at, const double want[3]) {
  int si = find(name, m->surfaces, sizeof *m->surfaces, m->n_surfaces), local[DT_FACE_MAX_NODES];
  double Xf[3 * DT_FACE_MAX_NODES], Nf[DT_FACE_MAX_NODES], nda[3], area[3] = {0, 0, 0};
  const dt_surface *s = si < 0 ? NULL : &m->surfaces[si];
  if (!s || s->n != n) return fail(file, "a boundary surface is missing or has another face count");
  for (int f = 0; f < s->n; f++) {
    int e = s->elem[f], type = m->elem_type[e], nf = dt_face_nnodes(type, s->face[f]);
    const int *c = &m->conn[m->elem_ptr[e]];
    if (nf != nodes_per_face) return qfail(file, "nodes on a wedge15 face", nf, nodes_per_face);
    dt_face_local_nodes(type, s->face[f], local);
    for (int a = 0; a < nf; a++) {
      for (int k = 0; k < 3; k++) Xf[3 * a + k] = m->x[3 * c[local[a]] + k];
      if (Xf[3 * a + axis] != at)
        return qfail_at(file, "a face node is off the group's plane: face node", a);
    }
    for (int q = 0; q < dt_face_nqp(type, s->face[f]); q++) {
      dt_face_point(type, s->face[f], q, Xf, Nf, nda);
      for (int k = 0; k < 3; k++) area[k] += nda[k];
    }
  }
  for (int k = 0; k < 3; k++)
    if (fabs(area[k] - want[k]) > 1e-12)
      return fail(file, "a group's faces do not sum to its outward area vector");
  return 0;
}

static int check_wedge15(const char *file) {
  static const double down[3] = {0, 0, -1}, right[3] = {1, 0, 0};
  dt_model *m = NULL;
  dt_ctx ctx = {0};
  int rc = 0;
  if (dt_gmsh_read_file(file, NULL, &m, &ctx) != DT_OK) return fail(file, ctx.msg);
  if (m->dim != 3 || m->n_elems != 2 || m->n_nodes != 22)
    rc = fail(file, "wrong dimension or counts");
  for (int e = 0; !rc && e < m->n_elems; e++)
    if (m->elem_type[e] != DT_ELEM_WEDGE15)
      rc = qfail(file, "element type", m->elem_type[e], DT_ELEM_WEDGE15);
  if (!rc) rc = check_geometry(m, file);
  for (int e = 0; !rc && e < m->n_elems; e++) rc = check_wedge15_elem(m, file, e);
  if (!rc) rc = check_scan(m, file);
  if (!rc) rc = check_wedge15_group(m, file, "bottom", 2, 6, 2, 0.0, down);
  if (!rc) rc = check_wedge15_group(m, file, "right", 1, 8, 0, 1.0, right);
  if (!rc) printf("%s: 2 wedge15 (one turned), faces bottom and right: ok\n", file);
  dt_model_destroy(&m);
  return rc;
}

int main(int argc, char **argv) {
  static const char *plate_nsets[] = {"plate", "symx", "symy", "load", "corner", NULL};
  static const char *plate_surfs[] = {"symx", "symy", "load", NULL};
  static const char *bracket_nsets[] = {"bracket", "fixed", "loaded", NULL};
  static const char *bracket_surfs[] = {"fixed", "loaded", NULL};
  char first[2048] = "", sig[2048];
  int plate = 0;

  if (argc < 3)
    return fprintf(stderr,
                   "usage: test_gmsh_import plate|bracket|quads|hex20|wedge15 FILE.msh...\n"),
           64;
  if (strcmp(argv[1], "hex20") == 0 || strcmp(argv[1], "wedge15") == 0) {
    for (int i = 2; i < argc; i++)
      if (argv[1][0] == 'h' ? check_hex20(argv[i]) : check_wedge15(argv[i])) return 1;
    printf("PASS\n");
    return 0;
  }
  if (strcmp(argv[1], "quads") == 0) {
    if (check_tables()) return 1;
    for (int i = 2; i < argc; i++)
      if (check_quads(argv[i])) return 1;
    printf("PASS\n");
    return 0;
  }
  plate = strcmp(argv[1], "plate") == 0;
  for (int i = 2; i < argc; i++) {
    dt_model *m = NULL;
    dt_ctx ctx = {0};
    const char *const *ns = plate ? plate_nsets : bracket_nsets, *const *ss = plate ? plate_surfs
                                                                                    : bracket_surfs;
    if (dt_gmsh_read_file(argv[i], NULL, &m, &ctx) != DT_OK) return fail(argv[i], ctx.msg);
    if (m->dim != (plate ? 2 : 3)) return fail(argv[i], "wrong dimension");
    if (m->n_elems < 50) return fail(argv[i], "too few elements");
    for (; *ns; ns++)
      if (find(*ns, m->nsets, sizeof *m->nsets, m->n_nsets) < 0)
        return fail(argv[i], "a node set is missing");
    for (; *ss; ss++)
      if (find(*ss, m->surfaces, sizeof *m->surfaces, m->n_surfaces) < 0)
        return fail(argv[i], "a surface is missing");
    if (find(plate ? "plate" : "bracket", m->elsets, sizeof *m->elsets, m->n_elsets) < 0 ||
        m->elsets[0].n != m->n_elems)
      return fail(argv[i], "the domain element set is missing or incomplete");
    if (check_geometry(m, argv[i]) || check_scan(m, argv[i])) return 1;
    signature(m, sig, sizeof sig);
    printf("%s: %s\n", argv[i], sig);
    if (first[0] && strcmp(first, sig) != 0) return fail(argv[i], "differs from the first file");
    if (!first[0]) memcpy(first, sig, sizeof sig);
    dt_model_destroy(&m);
  }
  printf("PASS\n");
  return 0;
}
