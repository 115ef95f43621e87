/* Shared entities of a projection mesh, found from coordinates alone.
 *
 * Element corners are matched by a sort along x with a tolerance of 1e-8 times the smallest
 * element size (the seed matches interface entities by exchanging coordinates, §5.4). Edges
 * and faces are then the same entity when their corner vertices are the same set. Each
 * entity has a canonical frame fixed by its vertex numbers (origin at the lowest-numbered
 * corner, first axis towards the lower-numbered neighbour), and every element records how its
 * own parametrisation maps to it, so shared values line up whatever the element orientation.
 * An entity's order is the lowest order of the elements sharing it (§2.5); its interior
 * unknowns, followed by the element interiors, number the continuous unknowns. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "highorder/ho_proj_internal.h"

typedef struct corner_rec {
  double x[3];
  int index; /* element * 2^dim + corner */
} corner_rec;

typedef struct ent_rec {
  int k, e, code;
  int key[4]; /* sorted vertex numbers of the corners, unused ones -1 */
} ent_rec;

static int cmp_corner_x(const void *a, const void *b) {
  double d = ((const corner_rec *)a)->x[0] - ((const corner_rec *)b)->x[0];
  return (d > 0) - (d < 0);
}

static int cmp_ent(const void *a, const void *b) {
  const ent_rec *r = a, *s = b;
  if (r->k != s->k) return r->k - s->k;
  for (int i = 0; i < 4; i++)
    if (r->key[i] != s->key[i]) return r->key[i] < s->key[i] ? -1 : 1;
  if (r->e != s->e) return r->e - s->e;
  return r->code - s->code;
}

static int same_entity(const ent_rec *r, const ent_rec *s) {
  return r->k == s->k && memcmp(r->key, s->key, sizeof(r->key)) == 0;
}

static int find_root(int *parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

int ho_proj_code_free(int dim, int code, int free_axes[3]) {
  int k = 0;
  for (int a = 0, c = code; a < dim; a++, c /= 3)
    if (c % 3 == 2) free_axes[k++] = a;
  return k;
}

/* Node index of corner bits (bit a set: xi_a = +1) of an order-P element. */
static size_t corner_node(int dim, int P, int bits) {
  size_t n = (size_t)P + 1, idx = 0, stride = 1;
  for (int a = 0; a < dim; a++, stride *= n) idx += ((bits >> a) & 1) ? (size_t)P * stride : 0;
  return idx;
}

/* Vertex number of every element corner (vert[e * 2^dim + c]), matched by coordinates. */
static dt_status match_vertices(const dt_ho_proj *p, int *vert, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int dim = p->dim, nc = 1 << dim, ntot = p->nelem * nc;
  corner_rec *cr = NULL;
  int *parent = NULL;
  double hmin = INFINITY;
  DT_ALLOC(cr, ntot, ctx, "element corners");
  DT_ALLOC(parent, ntot, ctx, "corner classes");
  for (int e = 0; e < p->nelem; e++) {
    const double *x0 = p->coords + (p->elem[e].off + corner_node(dim, p->elem[e].order, 0)) * dim;
    const double *x1 =
        p->coords + (p->elem[e].off + corner_node(dim, p->elem[e].order, nc - 1)) * dim;
    double h = 0.0;
    for (int a = 0; a < dim; a++) h += (x1[a] - x0[a]) * (x1[a] - x0[a]);
    hmin = fmin(hmin, sqrt(h));
    for (int c = 0; c < nc; c++) {
      const double *x = p->coords + (p->elem[e].off + corner_node(dim, p->elem[e].order, c)) * dim;
      corner_rec *r = &cr[e * nc + c];
      for (int a = 0; a < 3; a++) r->x[a] = a < dim ? x[a] : 0.0;
      r->index = e * nc + c;
      parent[e * nc + c] = e * nc + c;
    }
  }
  double tol = 1e-8 * hmin;
  qsort(cr, ntot, sizeof(*cr), cmp_corner_x);
  for (int i = 0; i < ntot; i++)
    for (int j = i + 1; j < ntot && cr[j].x[0] - cr[i].x[0] <= tol; j++) {
      double d = 0.0;
      for (int a = 0; a < 3; a++) d = fmax(d, fabs(cr[j].x[a] - cr[i].x[a]));
      if (d > tol) continue;
      int ri = find_root(parent, cr[i].index), rj = find_root(parent, cr[j].index);
      if (ri != rj) parent[ri > rj ? ri : rj] = ri < rj ? ri : rj;
    }
  for (int i = 0; i < ntot; i++) vert[i] = find_root(parent, i);
  for (int e = 0; e < p->nelem; e++)
    for (int c = 0; c < nc; c++)
      for (int d = c + 1; d < nc; d++)
        DT_CHECK(vert[e * nc + c] != vert[e * nc + d], ctx, DT_ERR_INPUT,
                 "element %d is degenerate: its corners %d and %d coincide", e + 1, c + 1, d + 1);
cleanup:
  dt_free(cr);
  dt_free(parent);
  return rc;
}

/* Corner vertex numbers of sub-entity code of element e, in local order (first free axis
 * fastest), and the orientation of the local frame in the canonical one. */
static int sub_corners(const dt_ho_proj *p, const int *vert, int e, int code, int g[4],
                       unsigned char *orient) {
  int dim = p->dim, fa[3], k = ho_proj_code_free(dim, code, fa), base = 0;
  for (int a = 0, c = code; a < dim; a++, c /= 3)
    if (c % 3 == 1) base |= 1 << a;
  for (int s = 0; s < (1 << k); s++) {
    int bits = base;
    for (int f = 0; f < k; f++)
      if ((s >> f) & 1) bits |= 1 << fa[f];
    g[s] = vert[e * (1 << dim) + bits];
  }
  *orient = 0;
  if (k == 1 && g[0] > g[1]) *orient = HO_PROJ_FLIP_S;
  if (k == 2) {
    int m = 0;
    for (int s = 1; s < 4; s++)
      if (g[s] < g[m]) m = s;
    int a0 = m & 1, b0 = m >> 1;
    int along_s = g[(1 - a0) + 2 * b0], along_t = g[a0 + 2 * (1 - b0)];
    *orient = (unsigned char)((a0 ? HO_PROJ_FLIP_S : 0) | (b0 ? HO_PROJ_FLIP_T : 0) |
                              (along_t < along_s ? HO_PROJ_SWAP : 0));
  }
  return k;
}

static int ipow(int b, int k) {
  int r = 1;
  while (k-- > 0) r *= b;
  return r;
}

/* Entities from the sorted records: order, patch measure, unknown offsets. */
static dt_status number_entities(dt_ho_proj *p, const ent_rec *rec, int nrec, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nent = 0;
  for (int r = 0; r < nrec; r++)
    if (r == 0 || !same_entity(&rec[r], &rec[r - 1])) nent++;
  DT_ALLOC(p->ent_dim, nent, ctx, "entity dimensions");
  DT_ALLOC(p->ent_order, nent, ctx, "entity orders");
  DT_ALLOC(p->ent_off, nent, ctx, "entity offsets");
  DT_ALLOC(p->ent_measure, nent, ctx, "patch measures");
  DT_ALLOC(p->ent_rec_start, nent + 1, ctx, "entity records");
  DT_ALLOC(p->ent_rec, nrec, ctx, "entity records");
  p->nent = 0;
  for (int r = 0; r < nrec; r++) {
    if (r == 0 || !same_entity(&rec[r], &rec[r - 1])) {
      int i = p->nent++;
      p->ent_dim[i] = rec[r].k;
      p->ent_order[i] = DT_HO_MAX_ORDER;
      p->ent_rec_start[i] = r;
    }
    int i = p->nent - 1;
    ho_proj_elem *el = &p->elem[rec[r].e];
    p->ent_order[i] = el->order < p->ent_order[i] ? el->order : p->ent_order[i];
    p->ent_measure[i] += el->measure;
    p->ent_rec[r] = rec[r].e * p->ncodes + rec[r].code;
    el->ent[rec[r].code] = i;
  }
  p->ent_rec_start[p->nent] = nrec;
  p->ndofs = 0;
  for (int i = 0; i < p->nent; i++) {
    p->ent_off[i] = p->ndofs;
    p->ndofs += (size_t)ipow(p->ent_order[i] - 1, p->ent_dim[i]);
  }
  for (int e = 0; e < p->nelem; e++) {
    p->elem[e].int_off = p->ndofs;
    p->ndofs += (size_t)ipow(p->elem[e].order - 1, p->dim);
  }
cleanup:
  return rc;
}

dt_status ho_proj_topology(dt_ho_proj *p, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int nc = 1 << p->dim, interior = p->ncodes - 1, nrec = 0;
  int *vert = NULL;
  ent_rec *rec = NULL;
  DT_ALLOC(vert, p->nelem * nc, ctx, "corner vertices");
  DT_ALLOC(rec, p->nelem * interior, ctx, "entity records");
  DT_TRY(match_vertices(p, vert, ctx));
  for (int e = 0; e < p->nelem; e++) {
    ho_proj_elem *el = &p->elem[e];
    el->ent[interior] = -1;
    for (int code = 0; code < interior; code++) {
      ent_rec *r = &rec[nrec++];
      int g[4] = {-1, -1, -1, -1};
      r->k = sub_corners(p, vert, e, code, g, &el->orient[code]);
      r->e = e;
      r->code = code;
      /* sort the (at most four) corner numbers into the key */
      for (int i = 0; i < 4; i++) r->key[i] = g[i];
      for (int i = 1; i < (1 << r->k); i++)
        for (int j = i; j > 0 && r->key[j - 1] > r->key[j]; j--) {
          int t = r->key[j];
          r->key[j] = r->key[j - 1];
          r->key[j - 1] = t;
        }
    }
  }
  qsort(rec, nrec, sizeof(*rec), cmp_ent);
  DT_TRY(number_entities(p, rec, nrec, ctx));
cleanup:
  dt_free(vert);
  dt_free(rec);
  return rc;
}

void ho_proj_to_canonical(int k, unsigned char orient, const double *loc, double *can) {
  double s = k >= 1 ? loc[0] : 0.0, t = k >= 2 ? loc[1] : 0.0;
  if (orient & HO_PROJ_FLIP_S) s = -s;
  if (orient & HO_PROJ_FLIP_T) t = -t;
  if (k >= 1) can[0] = (orient & HO_PROJ_SWAP) ? t : s;
  if (k >= 2) can[1] = (orient & HO_PROJ_SWAP) ? s : t;
}

void ho_proj_from_canonical(int k, unsigned char orient, const double *can, double *loc) {
  double s = k >= 1 ? can[0] : 0.0, t = k >= 2 ? can[1] : 0.0;
  if (orient & HO_PROJ_SWAP) {
    double x = s;
    s = t;
    t = x;
  }
  if (k >= 1) loc[0] = (orient & HO_PROJ_FLIP_S) ? -s : s;
  if (k >= 2) loc[1] = (orient & HO_PROJ_FLIP_T) ? -t : t;
}

size_t ho_proj_node_dof(const dt_ho_proj *p, int e, const int *idx) {
  const ho_proj_elem *el = &p->elem[e];
  int P = el->order, code = 0, l[3] = {0, 0, 0}, k = 0;
  for (int a = 0, s = 1; a < p->dim; a++, s *= 3) {
    int d = idx[a] == 0 ? 0 : (idx[a] == P ? 1 : 2);
    code += d * s;
    if (d == 2) l[k++] = idx[a] - 1; /* index among the interior nodes of that axis */
  }
  if (code == p->ncodes - 1)
    return el->int_off + (size_t)l[0] + (size_t)(P - 1) * (l[1] + (size_t)(P - 1) * l[2]);
  int ent = el->ent[code], m = p->ent_order[ent];
  unsigned char o = el->orient[code];
  if (o & HO_PROJ_FLIP_S) l[0] = P - 2 - l[0];
  if (o & HO_PROJ_FLIP_T) l[1] = P - 2 - l[1];
  if (o & HO_PROJ_SWAP) {
    int t = l[0];
    l[0] = l[1];
    l[1] = t;
  }
  return p->ent_off[ent] + (size_t)l[0] + (size_t)(m - 1) * l[1];
}

double ho_proj_eval_on_entity(const dt_ho_proj *p, int e, int code, const double *u,
                              const double *s) {
  const ho_proj_elem *el = &p->elem[e];
  const dt_ho_basis1d *b = &p->basis[el->order]->b;
  int P = el->order, n = P + 1, fa[3], k = ho_proj_code_free(p->dim, code, fa);
  double L[2][DT_HO_MAX_NODES];
  size_t base = 0, stride[3] = {1, (size_t)n, (size_t)n * n};
  for (int a = 0, c = code; a < p->dim; a++, c /= 3)
    if (c % 3 == 1) base += (size_t)P * stride[a];
  for (int f = 0; f < k; f++) dt_ho_lagrange(n, b->node, s[f], L[f], NULL);
  if (k == 0) return u[base];
  double v = 0.0;
  if (k == 1) {
    for (int i = 0; i < n; i++) v += L[0][i] * u[base + i * stride[fa[0]]];
    return v;
  }
  for (int j = 0; j < n; j++) {
    double r = 0.0;
    for (int i = 0; i < n; i++) r += L[0][i] * u[base + i * stride[fa[0]] + j * stride[fa[1]]];
    v += L[1][j] * r;
  }
  return v;
}
