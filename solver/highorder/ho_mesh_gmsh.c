/* Gmsh's Lagrange hexahedra of order 1..8 -> an order-P dt_ho_mesh (ho_mesh_gmsh.h).
 *
 * Node order of a Gmsh hexahedron of order P (Gmsh reference manual, "Node ordering", and the
 * generator it describes, gmshGenerateMonomialsHexahedron in src/numeric/pointsGenerators.cpp,
 * with the edge and face tables of src/geo/MHexahedron.h, read for gmsh 4.x): the 8 corners;
 * then the P - 1 interior nodes of each edge, edges 0-1, 0-3, 0-4, 1-2, 1-5, 2-3, 2-6, 3-7, 4-5,
 * 4-7, 5-6, 6-7, each from its first corner to its second; then the (P - 1)^2 interior nodes of
 * each face, faces 0-3-2-1, 0-1-5-4, 0-4-7-3, 1-2-6-5, 2-3-7-6, 4-5-6-7, each listed as a Gmsh
 * quadrangle of order P - 2 (corners, edges, then recursively its interior) in the face's frame
 * u = (c1 - c0) / P, v = (c3 - c0) / P from c0, offset by one lattice step along both; then
 * the (P - 1)^3 interior nodes as a hexahedron of order P - 2 offset by one step along all
 * three axes. The test checks this map against what gmsh writes (a box, node by node).
 *
 * Geometry: the element's Gmsh nodes are gathered into the equispaced lexicographic lattice,
 * and x(xi) with its reference gradient is taken at the Gauss-Lobatto points of order P by three
 * 1D contractions (sum factorisation) with L_i and L_i' of the equispaced nodes.
 *
 * Refinement R: each Gmsh hexahedron is split into R^3 sub-hexahedra in its reference cube
 * (refine_vertices numbers their corners topologically, see there), then numbered by
 * dt_ho_mesh_build like an unrefined mesh, and every node takes the parent's Gmsh geometry at
 * its Lobatto point mapped into the parent's reference cube, so a curved mesh stays curved. */
#include "highorder/ho_mesh_gmsh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_basis.h"
#include "highorder/ho_mesh_gmsh_internal.h"

static const int EDGE[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
static const int FACE[6][4] = {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3},
                               {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}};
#define CORNER HO_GMSH_CORNER
/* Nodes per direction and per element of the highest order read. */
#define N1 (DT_HO_MESH_MAX_ORDER + 1)
#define N3 (N1 * N1 * N1)

/* Gmsh quadrangle of order n (>= 0) as (u, v) lattice pairs: corners, edges 0-1, 1-2, 2-3, 3-0,
 * then the interior as a quadrangle of order n - 2 offset by one. Returns the count. */
static int quad_lattice(int n, int *uv) {
  static const int QC[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  int k = 0, m = 0;
  if (n == 0) {
    uv[0] = uv[1] = 0;
    return 1;
  }
  for (int c = 0; c < 4; c++, k++) uv[2 * k] = QC[c][0] * n, uv[2 * k + 1] = QC[c][1] * n;
  if (n < 2) return k;
  for (int e = 0; e < 4; e++) {
    const int *a = QC[e], *b = QC[(e + 1) % 4];
    for (int t = 1; t < n; t++, k++)
      uv[2 * k] = a[0] * n + t * (b[0] - a[0]), uv[2 * k + 1] = a[1] * n + t * (b[1] - a[1]);
  }
  m = quad_lattice(n - 2, uv + 2 * k);
  for (int i = 0; i < 2 * m; i++) uv[2 * k + i] += 1;
  return k + m;
}

static int hex_lattice(int n, int *ijk) {
  int k = 0, m = 0, uv[2 * N1 * N1];
  if (n == 0) {
    ijk[0] = ijk[1] = ijk[2] = 0;
    return 1;
  }
  for (int c = 0; c < 8; c++, k++)
    for (int d = 0; d < 3; d++) ijk[3 * k + d] = CORNER[c][d] * n;
  if (n < 2) return k;
  for (int e = 0; e < 12; e++) /* edge nodes from its first corner to its second */
    for (int t = 1; t < n; t++, k++)
      for (int d = 0; d < 3; d++)
        ijk[3 * k + d] =
            CORNER[EDGE[e][0]][d] * n + t * (CORNER[EDGE[e][1]][d] - CORNER[EDGE[e][0]][d]);
  m = quad_lattice(n - 2, uv);
  for (int f = 0; f < 6; f++) { /* p = c0 + u (c1 - c0)/n + v (c3 - c0)/n, u, v in 1..n-1 */
    const int *c0 = CORNER[FACE[f][0]], *c1 = CORNER[FACE[f][1]], *c3 = CORNER[FACE[f][3]];
    for (int i = 0; i < m; i++, k++)
      for (int d = 0; d < 3; d++)
        ijk[3 * k + d] =
            c0[d] * n + (uv[2 * i] + 1) * (c1[d] - c0[d]) + (uv[2 * i + 1] + 1) * (c3[d] - c0[d]);
  }
  m = hex_lattice(n - 2, ijk + 3 * k);
  for (int i = 0; i < 3 * m; i++) ijk[3 * k + i] += 1;
  return k + m;
}

int dt_ho_gmsh_hex_lattice(int order, int *ijk) {
  if (order < 1 || order > DT_HO_MESH_MAX_ORDER) return 0;
  return hex_lattice(order, ijk);
}

static void equispaced(int n, double *t) {
  for (int i = 0; i <= n; i++) t[i] = -1.0 + 2.0 * i / n;
}

void dt_ho_gmsh_hex_eval(int order, const double *xg, const double xi[3], double x[3]) {
  int ijk[3 * N3], nn = dt_ho_gmsh_hex_lattice(order, ijk);
  double t[N1], L[3][N1];
  equispaced(order, t);
  for (int d = 0; d < 3; d++) dt_ho_lagrange(order + 1, t, xi[d], L[d], NULL);
  x[0] = x[1] = x[2] = 0.0;
  for (int n = 0; n < nn; n++) {
    double w = L[0][ijk[3 * n]] * L[1][ijk[3 * n + 1]] * L[2][ijk[3 * n + 2]];
    for (int d = 0; d < 3; d++) x[d] += w * xg[3 * n + d];
  }
}

/* out[a,b,c] = sum_ijk A[a,i] B[b,j] C[c,k] in[i,j,k] (3 components each); in is n^3, out p^3,
 * the tables p x n row-major. */
static void contract3(int n, int p, const double *A, const double *B, const double *C,
                      const double *in, double *out) {
  double t1[3 * N3], t2[3 * N3];
  for (int k = 0; k < n; k++) /* t1[a,j,k] = sum_i A[a,i] in[i,j,k] */
    for (int j = 0; j < n; j++)
      for (int a = 0; a < p; a++)
        for (int d = 0; d < 3; d++) {
          double s = 0.0;
          for (int i = 0; i < n; i++) s += A[a * n + i] * in[3 * (i + n * (j + n * k)) + d];
          t1[3 * (a + p * (j + n * k)) + d] = s;
        }
  for (int k = 0; k < n; k++) /* t2[a,b,k] = sum_j B[b,j] t1[a,j,k] */
    for (int b = 0; b < p; b++)
      for (int a = 0; a < p; a++)
        for (int d = 0; d < 3; d++) {
          double s = 0.0;
          for (int j = 0; j < n; j++) s += B[b * n + j] * t1[3 * (a + p * (j + n * k)) + d];
          t2[3 * (a + p * (b + p * k)) + d] = s;
        }
  for (int c = 0; c < p; c++) /* out[a,b,c] = sum_k C[c,k] t2[a,b,k] */
    for (int b = 0; b < p; b++)
      for (int a = 0; a < p; a++)
        for (int d = 0; d < 3; d++) {
          double s = 0.0;
          for (int k = 0; k < n; k++) s += C[c * n + k] * t2[3 * (a + p * (b + p * k)) + d];
          out[3 * (a + p * (b + p * c)) + d] = s;
        }
}

static void hexes_free(hexes *H) {
  gm_free(&H->g);
  dt_free(H->raw), dt_free(H->hex_of), dt_free(H->vtag), dt_free(H->vx), dt_free(H->hex8);
  dt_free(H->lat);
  dt_imp_idmap_free(&H->nodes), dt_imp_idmap_free(&H->verts);
}

/* Every 3D element must be a hexahedron, all of one order. */
static dt_status find_hexes(hexes *H) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int first = -1, d = 0, t = 0;
  const char *name = NULL;

  DT_ALLOC(H->raw, g->n_elems, g->ctx, "hexahedra");
  DT_ALLOC(H->hex_of, g->n_elems, g->ctx, "hexahedra");
  for (int e = 0; e < g->n_elems; e++) {
    int p = gm_hex_order(g->elem_type[e]);
    H->hex_of[e] = -1;
    if (g->elem_dim[e] != 3) continue;
    g->line = g->elem_line[e];
    gm_type_info(g->elem_type[e], &d, &t, &name);
    GM_CHECK(p > 0, g,
             "element %lld: Gmsh element type %d (%s) is not a hexahedron: only hexahedra "
             "(types 5, 12, 92-97) are read for order-P meshes",
             (long long)g->elem_tag[e], g->elem_type[e], name);
    if (first < 0) first = e, H->Pg = p;
    GM_CHECK(p == H->Pg, g,
             "element %lld is a hexahedron of order %d (Gmsh type %d), element %lld one of "
             "order %d (type %d): an order-P mesh needs hexahedra of one order",
             (long long)g->elem_tag[e], p, g->elem_type[e], (long long)g->elem_tag[first], H->Pg,
             g->elem_type[first]);
    H->hex_of[e] = H->n;
    H->raw[H->n++] = e;
  }
  g->line = 0;
  GM_CHECK(H->n > 0, g,
           "the mesh has no hexahedra (an order-P mesh is read from Gmsh types 5, "
           "12, 92-97)");
cleanup:
  return rc;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Corner vertices: the distinct Gmsh tags of the hexahedra's first 8 nodes, and hex8 rows. */
static dt_status build_vertices(hexes *H) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int a = -1, b = -1, k = 0;

  DT_TRY(dt_imp_idmap_build(&H->nodes, g->node_tag, g->n_nodes, &a, &b, g->ctx));
  GM_CHECK(a < 0, g, "node %lld is defined twice", (long long)g->node_tag[a]);
  DT_ALLOC(H->vtag, 8 * (size_t)H->n, g->ctx, "corner vertices");
  for (int h = 0; h < H->n; h++)
    for (int c = 0; c < 8; c++) H->vtag[k++] = g->elem_nodes[g->elem_ptr[H->raw[h]] + c];
  qsort(H->vtag, (size_t)k, sizeof *H->vtag, cmp_i64);
  for (int i = 0; i < k; i++)
    if (H->nv == 0 || H->vtag[i] != H->vtag[H->nv - 1]) H->vtag[H->nv++] = H->vtag[i];
  DT_TRY(dt_imp_idmap_build(&H->verts, H->vtag, H->nv, &a, &b, g->ctx));
  DT_ALLOC(H->vx, 3 * (size_t)H->nv, g->ctx, "vertex coordinates");
  DT_ALLOC(H->hex8, 8 * (size_t)H->n, g->ctx, "hex8 connectivity");
  for (int v = 0; v < H->nv; v++) {
    int i = dt_imp_idmap_find(&H->nodes, H->vtag[v]);
    g->line = 0;
    GM_CHECK(i >= 0, g, "a hexahedron refers to node %lld, which does not exist",
             (long long)H->vtag[v]);
    memcpy(&H->vx[3 * v], &g->x[3 * i], 3 * sizeof(double));
  }
  for (int h = 0; h < H->n; h++)
    for (int c = 0; c < 8; c++)
      H->hex8[8 * h + c] = dt_imp_idmap_find(&H->verts, g->elem_nodes[g->elem_ptr[H->raw[h]] + c]);
cleanup:
  return rc;
}

/* The trilinear Jacobian determinant at corner c of hexahedron h, from its three edges there
 * (the check dt_ho_mesh_build makes, done here to name the Gmsh element). */
static double corner_det(const hexes *H, int h, int c) {
  double e[3][3];
  const double *x0 = &H->vx[3 * H->hex8[8 * h + c]];
  for (int d = 0; d < 3; d++) {
    int o[3] = {CORNER[c][0], CORNER[c][1], CORNER[c][2]}, k = 0;
    o[d] = 1 - o[d];
    for (k = 0; k < 8; k++)
      if (CORNER[k][0] == o[0] && CORNER[k][1] == o[1] && CORNER[k][2] == o[2]) break;
    for (int j = 0; j < 3; j++)
      e[d][j] = (CORNER[c][d] ? -1.0 : 1.0) * (H->vx[3 * H->hex8[8 * h + k] + j] - x0[j]);
  }
  return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

static dt_status check_corners(hexes *H) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  for (int h = 0; h < H->n; h++)
    for (int c = 0; c < 8; c++) {
      double det = corner_det(H, h, c);
      g->line = g->elem_line[H->raw[h]];
      GM_CHECK(det > 0.0, g,
               "element %lld is inverted or degenerate: the Jacobian determinant of its corners "
               "is %g at corner %d (check the node order)",
               (long long)g->elem_tag[H->raw[h]], det, c + 1);
    }
cleanup:
  return rc;
}

/* 1D tables of the equispaced Lagrange basis of order Pg at the P + 1 Lobatto points of
 * sub-interval s of R of [-1, 1] (s = 0, R = 1: the whole interval). */
static dt_status tables(const hexes *H, int s, double *B, double *D, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double gll[DT_HO_MAX_NODES], w[DT_HO_MAX_NODES], t[DT_HO_MAX_NODES];
  int n = H->Pg + 1;
  DT_TRY(dt_ho_gauss_lobatto(H->P + 1, gll, w, ctx));
  equispaced(H->Pg, t);
  for (int a = 0; a <= H->P; a++) {
    double xi = H->R == 1 ? gll[a] : -1.0 + (2.0 * s + 1.0 + gll[a]) / H->R;
    dt_ho_lagrange(n, t, xi, &B[a * n], &D[a * n]);
    for (int i = 0; i < n; i++) D[a * n + i] /= H->R; /* d/d(sub-element xi) */
  }
cleanup:
  return rc;
}

static double det3(const double *J0, const double *J1, const double *J2) {
  return J0[0] * (J1[1] * J2[2] - J1[2] * J2[1]) - J0[1] * (J1[0] * J2[2] - J1[2] * J2[0]) +
         J0[2] * (J1[0] * J2[1] - J1[1] * J2[0]);
}

/* The equispaced lexicographic lattice of Gmsh hexahedron h's nodes. */
static dt_status gather_element(hexes *H, int h, double *xe) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int e = H->raw[h], n = H->Pg + 1, ng = n * n * n;
  g->line = g->elem_line[e];
  for (int k = 0; k < ng; k++) {
    int i = dt_imp_idmap_find(&H->nodes, g->elem_nodes[g->elem_ptr[e] + k]);
    GM_CHECK(i >= 0, g, "element %lld refers to node %lld, which does not exist",
             (long long)g->elem_tag[e], (long long)g->elem_nodes[g->elem_ptr[e] + k]);
    memcpy(&xe[3 * H->lat[k]], &g->x[3 * i], 3 * sizeof(double));
  }
cleanup:
  return rc;
}

/* Every node takes its first element's Gmsh geometry at its Lobatto point (in the parent Gmsh
 * hexahedron's reference cube when refined); det J > 0 there. */
static dt_status place_nodes(hexes *H, dt_ho_mesh *m) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int n = H->Pg + 1, p = H->P + 1, np = p * p * p, R = H->R;
  double *B = NULL, *D = NULL, xe[3 * N3], X[3 * N3], J[3][3 * N3];
  unsigned char *done = NULL;

  DT_ALLOC(B, (size_t)R * N1 * N1, g->ctx, "geometry tables");
  DT_ALLOC(D, (size_t)R * N1 * N1, g->ctx, "geometry tables");
  for (int s = 0; s < R; s++) DT_TRY(tables(H, s, &B[s * N1 * N1], &D[s * N1 * N1], g->ctx));
  DT_ALLOC(done, m->n_nodes, g->ctx, "node flags");
  for (int h = 0; h < H->n; h++) {
    DT_TRY(gather_element(H, h, xe));
    for (int sub = 0; sub < R * R * R; sub++) {
      const double *B0 = &B[(sub % R) * N1 * N1], *B1 = &B[(sub / R % R) * N1 * N1],
                   *B2 = &B[(sub / (R * R)) * N1 * N1], *D0 = &D[(sub % R) * N1 * N1],
                   *D1 = &D[(sub / R % R) * N1 * N1], *D2 = &D[(sub / (R * R)) * N1 * N1];
      size_t me = (size_t)h * R * R * R + sub;
      contract3(n, p, B0, B1, B2, xe, X);
      contract3(n, p, D0, B1, B2, xe, J[0]);
      contract3(n, p, B0, D1, B2, xe, J[1]);
      contract3(n, p, B0, B1, D2, xe, J[2]);
      for (int a = 0; a < np; a++) {
        int id = m->elem_nodes[me * np + a];
        double det = det3(&J[0][3 * a], &J[1][3 * a], &J[2][3 * a]);
        GM_CHECK(det > 0.0, g,
                 "element %lld is inverted or degenerate: det J = %g at its Lobatto node "
                 "(%d,%d,%d) of order %d",
                 (long long)g->elem_tag[H->raw[h]], det, a % p, (a / p) % p, a / (p * p), H->P);
        if (done[id]) continue;
        memcpy(&m->coords[3 * (size_t)id], &X[3 * a], 3 * sizeof(double));
        done[id] = 1;
      }
    }
  }
cleanup:
  dt_free(B), dt_free(D), dt_free(done);
  return rc;
}

/* Refinement R > 1: the corner vertices of the R^3 sub-hexahedra of every Gmsh hexahedron,
 * numbered topologically. dt_ho_mesh_build of order R on the Gmsh corners numbers a lattice of
 * (R+1)^3 points per element conformingly (a point on a shared edge or face has one id, fixed
 * by the sorted vertex ids of that edge or face and its lattice index in the frame of the
 * smallest vertex), which is exactly the sub-hexahedra's vertex numbering; its coordinates
 * (trilinear Lobatto points) are not used: each vertex is the Gmsh geometry at its equispaced
 * reference point -1 + 2 i / R. Fills *nv, *vx, *hex8 (R^3 rows per Gmsh hexahedron, sub
 * (s0, s1, s2) at ho_gmsh_sub). */
static dt_status refine_vertices(hexes *H, int *nv, double **vx, int **hex8) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int R = H->R, r1 = R + 1, n = H->Pg + 1, nl = r1 * r1 * r1;
  double B[N1 * N1], t[N1], xe[3 * N3], X[3 * N3];
  dt_ho_mesh lat;
  unsigned char *done = NULL;

  memset(&lat, 0, sizeof lat);
  rc = dt_ho_mesh_build(R, H->nv, H->vx, H->n, H->hex8, NULL, NULL, &lat, g->ctx);
  if (rc != DT_OK) {
    dt_ctx_prefix(g->ctx, g->path);
    goto cleanup;
  }
  equispaced(H->Pg, t);
  for (int a = 0; a <= R; a++) dt_ho_lagrange(n, t, -1.0 + 2.0 * a / R, &B[a * n], NULL);
  *nv = lat.n_nodes;
  DT_ALLOC(*vx, 3 * (size_t)lat.n_nodes, g->ctx, "refined vertices");
  DT_ALLOC(*hex8, 8 * (size_t)H->n * R * R * R, g->ctx, "refined hexahedra");
  DT_ALLOC(done, lat.n_nodes, g->ctx, "vertex flags");
  for (int h = 0; h < H->n; h++) {
    const int *L = &lat.elem_nodes[(size_t)h * nl];
    DT_TRY(gather_element(H, h, xe));
    contract3(n, r1, B, B, B, xe, X);
    for (int a = 0; a < nl; a++)
      if (!done[L[a]]) {
        memcpy(&(*vx)[3 * (size_t)L[a]], &X[3 * a], 3 * sizeof(double));
        done[L[a]] = 1;
      }
    for (int s2 = 0; s2 < R; s2++)
      for (int s1 = 0; s1 < R; s1++)
        for (int s0 = 0; s0 < R; s0++) {
          int *row = &(*hex8)[8 * (size_t)ho_gmsh_sub(H, h, s0, s1, s2)];
          for (int c = 0; c < 8; c++)
            row[c] = L[dt_ho_lex(R, s0 + CORNER[c][0], s1 + CORNER[c][1], s2 + CORNER[c][2])];
        }
  }
cleanup:
  dt_ho_mesh_free(&lat);
  dt_free(done);
  return rc;
}

static dt_status build_mesh(hexes *H, dt_ho_mesh *m) {
  dt_status rc = DT_OK;
  int n = H->Pg + 1, ijk[3 * N3], nv = H->nv, *hex8 = H->hex8;
  double *vx = H->vx;

  DT_ALLOC(H->lat, n * n * n, H->g.ctx, "node lattice");
  dt_ho_gmsh_hex_lattice(H->Pg, ijk);
  for (int k = 0; k < n * n * n; k++)
    H->lat[k] = ijk[3 * k] + n * (ijk[3 * k + 1] + n * ijk[3 * k + 2]);
  DT_TRY(check_corners(H));
  if (H->R > 1) {
    vx = NULL, hex8 = NULL;
    DT_TRY(refine_vertices(H, &nv, &vx, &hex8));
  }
  rc = dt_ho_mesh_build(H->P, nv, vx, H->n * H->R * H->R * H->R, hex8, NULL, NULL, m, H->g.ctx);
  if (rc != DT_OK) {
    dt_ctx_prefix(H->g.ctx, H->g.path);
    goto cleanup;
  }
  DT_TRY(place_nodes(H, m));
cleanup:
  if (vx != H->vx) dt_free(vx);
  if (hex8 != H->hex8) dt_free(hex8);
  return rc;
}

static dt_status fill_source(hexes *H, dt_ho_gmsh_source *s) {
  dt_status rc = DT_OK;
  gm *g = &H->g;
  int ng = (H->Pg + 1) * (H->Pg + 1) * (H->Pg + 1);

  s->order = H->Pg;
  s->n_elems = H->n;
  DT_ALLOC(s->tag, H->n, g->ctx, "element tags");
  DT_ALLOC(s->x, 3 * (size_t)ng * H->n, g->ctx, "Gmsh node coordinates");
  for (int h = 0; h < H->n; h++) {
    int e = H->raw[h];
    s->tag[h] = g->elem_tag[e];
    for (int k = 0; k < ng; k++) {
      int i = dt_imp_idmap_find(&H->nodes, g->elem_nodes[g->elem_ptr[e] + k]);
      memcpy(&s->x[3 * ((size_t)h * ng + k)], &g->x[3 * i], 3 * sizeof(double));
    }
  }
cleanup:
  return rc;
}

dt_status dt_ho_gmsh_read_refined(const char *path, int order, int refine, dt_ho_mesh *m,
                                  dt_ho_gmsh_groups *groups, dt_ho_gmsh_source *src, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  hexes H;

  memset(&H, 0, sizeof H);
  memset(m, 0, sizeof *m);
  if (groups) memset(groups, 0, sizeof *groups);
  if (src) memset(src, 0, sizeof *src);
  DT_CHECK(refine >= 1 && refine <= DT_HO_MESH_MAX_ORDER, ctx, DT_ERR_INPUT,
           "%s: refinement %d is outside 1..%d (each hexahedron is split into refine^3)", path,
           refine, DT_HO_MESH_MAX_ORDER);
  H.R = refine;
  DT_TRY(gm_read_file(&H.g, path, NULL, ctx));
  DT_TRY(find_hexes(&H));
  H.P = order ? order : H.Pg;
  GM_CHECK((long long)H.n * refine * refine * refine <= 0x7fffffffLL, &H.g,
           "%d hexahedra refined %d times are %lld elements, past the int element ids", H.n, refine,
           (long long)H.n * refine * refine * refine);
  GM_CHECK(H.P >= 1 && H.P <= DT_HO_MESH_MAX_ORDER, &H.g, "order %d is outside 1..%d", order,
           DT_HO_MESH_MAX_ORDER);
  DT_TRY(build_vertices(&H));
  DT_TRY(build_mesh(&H, m));
  if (groups) DT_TRY(ho_gmsh_groups_build(&H, m, groups));
  if (src) DT_TRY(fill_source(&H, src));
cleanup:
  if (rc != DT_OK) {
    dt_ho_mesh_free(m);
    dt_ho_gmsh_groups_free(groups);
    dt_ho_gmsh_source_free(src);
  }
  hexes_free(&H);
  return rc;
}

dt_status dt_ho_gmsh_read(const char *path, int order, dt_ho_mesh *m, dt_ho_gmsh_groups *groups,
                          dt_ho_gmsh_source *src, dt_ctx *ctx) {
  return dt_ho_gmsh_read_refined(path, order, 1, m, groups, src, ctx);
}

dt_status dt_ho_mesh_read_gmsh(const char *path, int order, dt_ho_mesh *m,
                               dt_ho_gmsh_groups *groups, dt_ctx *ctx) {
  return dt_ho_gmsh_read_refined(path, order, 1, m, groups, NULL, ctx);
}

dt_status dt_ho_mesh_read_gmsh_refined(const char *path, int order, int refine, dt_ho_mesh *m,
                                       dt_ho_gmsh_groups *groups, dt_ctx *ctx) {
  return dt_ho_gmsh_read_refined(path, order, refine, m, groups, NULL, ctx);
}

void dt_ho_gmsh_source_free(dt_ho_gmsh_source *s) {
  if (!s) return;
  dt_free(s->tag), dt_free(s->x);
  memset(s, 0, sizeof *s);
}
