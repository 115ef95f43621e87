/* <job name>.frd: CalculiX's ASCII result file, so that CalculiX GraphiX (cgx) and the tools
 * that read .frd files open ductile's results.
 *
 * The layout is the "Result Format" chapter of the CalculiX GraphiX manual [CalculiXGraphiX],
 * long format (10-digit ids), ASCII, with the records as ccx 2.20 writes them for the same deck:
 *       1C                                 model header (ccx leaves its name blank, so do we)
 *       1U<title>, 1UPGM, 1UMAT<n><name>   user header records (no date, time or host: the
 *                                          bytes do not depend on when or where the job ran)
 *       2C <nodes> 1, then " -1" I10 3E12.5 per node, " -3"
 *       3C <elements> 1, then " -1" I10 type group material, " -2" 10 nodes a line, " -3"
 *   per written increment, one block per variable:
 *       1PSTEP <block> <increment of the step> <step>
 *     100CL<100 + n> <time> <nodes> 0 <n> 1       n: the increment's number in the file
 *      -4 NAME ncomp 1, the -5 component records, " -1" I10 nE12.5 per node, " -3"
 *    9999                                  end of data
 * Blocks, in CalculiX's order: DISP (U), STRESS (S), TOSTRAIN (E, tensor shears: half the
 * engineering ones), FORC (RF: CalculiX's internal nodal forces, the reaction at a constrained
 * DOF and the applied load at a loaded free one, as results.dat's "forces"), PE (PEEQ; like
 * CalculiX, only when some material is plastic). Tensors are written xx, yy, zz, xy, yz, zx,
 * CalculiX's order (ours has xz before yz). The time is ductile's step index + load factor,
 * CalculiX's total time when every step has period 1; CalculiX writes it as F12.9-like text
 * from 1 on (1.250000000) and E12.5 below, and so does this file. 2D models write their 2D
 * elements in the x-y plane with z = 0, as CalculiX does (OUTPUT=2D, its default).
 *
 * Element variables at the nodes are formed as CalculiX forms them: each element's point
 * values are extrapolated to its nodes (extrap_fit, extrap_points), then every node takes the
 * unweighted mean over the elements that contain it, elements in order (the same bits on
 * every run). This is not the VTU's nodal average (element means averaged), which smooths
 * more. CalculiX's tables hold the same matrices rounded to 3-5 decimals (C3D8's 2.549, -0.683,
 * 0.183, -0.049), which moves its nodal values by up to about 1.6e-4 of the element's largest
 * point value; these are the exact ones.
 *
 * Element types (cgx's numbers) and node orders: hex8 1; hex20 and hex20r 4, whose cgx order
 * lists the mid-edge nodes of the vertical edges (ours 17-20) before those of the top face
 * (ours 13-16); tet4 3; tet10 6; quad4 9; tri3 7; quad8 10. quad9 and quad16, which CalculiX
 * lacks, are drawn as quad8 (its first 8 nodes) and quad4 (its corners); their other nodes
 * still carry their values in every block. To add a type: its case in frd_type.
 *
 * The writer thread appends one increment's blocks per job: it opens the file, writes the
 * header and the mesh at the first job, else goes to the end of the last block (over the
 * closing line), appends the blocks and the closing " 9999" again, so the file is complete up
 * to its last increment whenever no job is running. The extrapolation matrices are built by
 * the caller before the first job; the thread reads the model (unchanged during a run), like
 * results.dat's writer, and the job's snapshot of the fields. */
#include "io/output_internal.h"

#include "core/utf8.h"
#include "element/element.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FRD_DEFAULT_NAME "results"
#define FRD_MAX_ID 9999999999LL /* the long format's I10 */

/* cgx's element type of ours, how many of our nodes its record lists and in which order
 * (NULL: ours as they are); 0 for a type the file cannot show. */
static int frd_type(int type, int *n, const int **order) {
  static const int he20[20] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                               10, 11, 16, 17, 18, 19, 12, 13, 14, 15};
  /* cgx lists a wedge's vertical mid-edge nodes before its top ones, as for hex20 (ccx's own
   * .frd of a C3D15 deck: 1-9, 13-15, 10-12) */
  static const int pe15[15] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11};
  *order = NULL;
  *n = dt_elem_nnodes(type);
  switch (type) {
  case DT_ELEM_HEX8: return 1;
  case DT_ELEM_HEX20:
  case DT_ELEM_HEX20R: *order = he20; return 4;
  case DT_ELEM_TET4: return 3;
  case DT_ELEM_TET10: return 6;
  case DT_ELEM_QUAD4: return 9;
  case DT_ELEM_TRI3: return 7;
  case DT_ELEM_QUAD8: return 10;
  case DT_ELEM_QUAD9: *n = 8; return 10; /* the serendipity nodes: corners, then mid-edges */
  case DT_ELEM_QUAD16: *n = 4; return 9; /* the corners */
  case DT_ELEM_WEDGE6: return 2;
  case DT_ELEM_WEDGE15: *order = pe15; return 5;
  }
  return 0;
}

/* Set-up, in the caller's thread. */

dt_status dt_frd_open(dt_frd *f, const char *dir, const char *name, const dt_model *m, int fresh,
                      dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char *file = NULL;
  size_t n;
  memset(f, 0, sizeof *f);
  if (name == NULL || name[0] == '\0') name = FRD_DEFAULT_NAME;
  DT_CHECK(strchr(name, '/') == NULL, ctx, DT_ERR_INPUT,
           "the job name '%s' names the .frd file and must not contain '/'", name);
  n = strlen(name);
  DT_ALLOC(file, n + 5, ctx, "the .frd file name");
  snprintf(file, n + 5, "%s.frd", name);
  DT_TRY(dt_output_path(dir, file, &f->path, ctx));
  f->on = m->output.frd;
  /* Checked before anything is solved: the long format's ids have 10 digits. */
  for (int i = 0; f->on && i < m->n_nodes; i++)
    DT_CHECK(m->node_id[i] > -1000000000LL && m->node_id[i] <= FRD_MAX_ID, ctx, DT_ERR_INPUT,
             "node id %lld does not fit the 10 digits of CalculiX's .frd file (output.frd)",
             (long long)m->node_id[i]);
  for (int e = 0; f->on && e < m->n_elems; e++)
    DT_CHECK(m->elem_id[e] > -1000000000LL && m->elem_id[e] <= FRD_MAX_ID, ctx, DT_ERR_INPUT,
             "element id %lld does not fit the 10 digits of CalculiX's .frd file (output.frd)",
             (long long)m->elem_id[e]);
  /* A file left by an earlier run in this directory would otherwise stay when this one writes
   * none (it fails before its first increment). */
  DT_CHECK(!f->on || !fresh || remove(f->path) == 0 || errno == ENOENT, ctx, DT_ERR_IO,
           "cannot remove the old '%s': %s", f->path, strerror(errno));
cleanup:
  dt_free(file);
  return rc;
}

void dt_frd_free(dt_frd *f) {
  dt_free(f->path);
  for (int t = 0; t < DT_ELEM_NTYPES; t++) dt_free(f->extrap[t]);
  memset(f, 0, sizeof *f);
}

int dt_frd_due(const dt_model *m, const dt_fields *f) {
  const int every = m->output.every > 0 ? m->output.every : 1;
  return m->output.frd && (f->load_factor >= 1.0 || f->global_increment % every == 0);
}

/* B <- A^-1 B for the n x n matrix A (row-major, destroyed) and the n x m matrix B, by
 * Gauss-Jordan elimination with partial pivoting; -1 if A is singular. */
static int solve(int n, int m, double *A, double *B) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
    if (fabs(A[p * n + c]) < 1e-12) return -1;
    for (int k = 0; k < n; k++) {
      const double t = A[c * n + k];
      A[c * n + k] = A[p * n + k], A[p * n + k] = t;
    }
    for (int k = 0; k < m; k++) {
      const double t = B[c * m + k];
      B[c * m + k] = B[p * m + k], B[p * m + k] = t;
    }
    for (int r = 0; r < n; r++) {
      const double f = A[r * n + c] / A[c * n + c];
      if (r == c || f == 0.0) continue;
      for (int k = c; k < n; k++) A[r * n + k] -= f * A[c * n + k];
      for (int k = 0; k < m; k++) B[r * m + k] -= f * B[c * m + k];
    }
  }
  for (int r = 0; r < n; r++)
    for (int k = 0; k < m; k++) B[r * m + k] /= A[r * n + r];
  return 0;
}

/* At least as many points as nodes (hex8, hex20, quad4, quad8, quad9, quad16): the nodal values
 * whose interpolant, the element's own shape functions, fits the point values best in least
 * squares, E = (N^T N)^-1 N^T with N[q][a] = N_a(xi_q). With as many points as nodes this is
 * the interpolant through the points (N^-1: hex8's trilinear extrapolation); for hex20's 27
 * points and quad8's 9 it is the fit CalculiX's C3D20 extrapolation table holds (CalculiX
 * expands CPE8 into C3D20). */
static int extrap_fit(int type, double *E) {
  const int npe = dt_elem_nnodes(type), nq = dt_elem_nqp(type);
  double N[DT_ELEM_MAX_QP * DT_ELEM_MAX_NODES], M[DT_ELEM_MAX_NODES * DT_ELEM_MAX_NODES];
  double dN[3 * DT_ELEM_MAX_NODES], xq[3], w;
  for (int q = 0; q < nq; q++) {
    dt_elem_qp(type, q, xq, &w);
    dt_elem_shape(type, xq, N + q * npe, dN);
  }
  for (int a = 0; a < npe; a++) {
    for (int b = 0; b < npe; b++) { /* M = N^T N */
      M[a * npe + b] = 0.0;
      for (int q = 0; q < nq; q++) M[a * npe + b] += N[q * npe + a] * N[q * npe + b];
    }
    for (int q = 0; q < nq; q++) E[a * nq + q] = N[q * npe + a]; /* N^T */
  }
  return solve(npe, nq, M, E);
}

/* Lagrange polynomial of abscissa i of the n-point Gauss rule, at x. */
static double gauss_lagrange(int n, int i, double x) {
  double w, xi = dt_gauss_1d(n, i, &w), l = 1.0;
  for (int k = 0; k < n; k++)
    if (k != i) {
      const double xk = dt_gauss_1d(n, k, &w);
      l *= (x - xk) / (xi - xk);
    }
  return l;
}

/* The abscissa of the n-point Gauss rule nearest x. */
static int gauss_index(int n, double x) {
  int best = 0;
  double w;
  for (int i = 1; i < n; i++)
    if (fabs(dt_gauss_1d(n, i, &w) - x) < fabs(dt_gauss_1d(n, best, &w) - x)) best = i;
  return best;
}

/* Fewer points than nodes: the interpolant of the points themselves, evaluated at the nodes.
 * hex20r's 2 x 2 x 2 points carry a trilinear one, E[a][q] = prod_k l_{i_k(q)}(xi_a[k]) (the
 * mid-edge nodes get the mean of their corners, as in CalculiX); tet10's four points a linear
 * one, E[a][q] = phi(xi_a)^T V^-1 with V[q][j] = phi_j(xi_q), phi = (1, xi_1..xi_dim);
 * a one-point rule's value is constant (tet4, tri3). */
/* The wedges' polynomials through their points: a triangle part times an axial part, as the
 * points are a triangle rule times a Gauss rule along xi_2. wedge6's 2 points (on the axis):
 * 1, xi_2; wedge15's 9: (1, xi_0, xi_1) times (1, xi_2, xi_2^2). */
static int wedge_basis(int type, const double *x, double *phi) {
  if (type == DT_ELEM_WEDGE6) return phi[0] = 1.0, phi[1] = x[2], 2;
  for (int k = 0; k < 3; k++) {
    double t = k == 0 ? 1.0 : x[k - 1];
    phi[3 * k] = t, phi[3 * k + 1] = t * x[2], phi[3 * k + 2] = t * x[2] * x[2];
  }
  return 9;
}

/* E[a][q] = phi(xi_a)^T V^-1, V[q][j] = phi_j(xi_q): the wedge's point values interpolated by
 * wedge_basis and evaluated at its nodes. */
static int extrap_wedge(int type, double *E) {
  const int npe = dt_elem_nnodes(type), nq = dt_elem_nqp(type);
  double xa[3], xq[3], w, phi[9], V[9 * 9], X[9 * 9];
  if (nq > 9) return -1;
  for (int q = 0; q < nq; q++) {
    dt_elem_qp(type, q, xq, &w);
    if (wedge_basis(type, xq, phi) != nq) return -1;
    for (int j = 0; j < nq; j++) V[q * nq + j] = phi[j], X[q * nq + j] = q == j;
  }
  if (solve(nq, nq, V, X) != 0) return -1; /* X = V^-1 */
  for (int a = 0; a < npe; a++) {
    dt_elem_node_xi(type, a, xa);
    wedge_basis(type, xa, phi);
    for (int q = 0; q < nq; q++) {
      double c = 0.0;
      for (int j = 0; j < nq; j++) c += phi[j] * X[j * nq + q];
      E[a * nq + q] = c;
    }
  }
  return 0;
}

static int extrap_points(int type, double *E) {
  const int npe = dt_elem_nnodes(type), nq = dt_elem_nqp(type), dim = dt_elem_dim(type);
  double xa[3], xq[3], w, V[4 * 4], X[4 * 4];
  if (type == DT_ELEM_WEDGE6 || type == DT_ELEM_WEDGE15) return extrap_wedge(type, E);
  if (nq == 1) {
    for (int a = 0; a < npe; a++) E[a] = 1.0;
    return 0;
  }
  if (dt_elem_is_tensor(type)) {
    int n = 1;
    while (n < 5 && (dim == 3 ? n * n * n : n * n) < nq) n++;
    if ((dim == 3 ? n * n * n : n * n) != nq) return -1;
    for (int a = 0; a < npe; a++) {
      dt_elem_node_xi(type, a, xa);
      for (int q = 0; q < nq; q++) {
        double c = 1.0;
        dt_elem_qp(type, q, xq, &w);
        for (int k = 0; k < dim; k++) c *= gauss_lagrange(n, gauss_index(n, xq[k]), xa[k]);
        E[a * nq + q] = c;
      }
    }
    return 0;
  }
  if (nq != dim + 1) return -1;
  for (int q = 0; q < nq; q++) { /* V, and X = I */
    dt_elem_qp(type, q, xq, &w);
    for (int j = 0; j < nq; j++) {
      V[q * nq + j] = j == 0 ? 1.0 : xq[j - 1];
      X[q * nq + j] = q == j;
    }
  }
  if (solve(nq, nq, V, X) != 0) return -1; /* X = V^-1 */
  for (int a = 0; a < npe; a++) {
    dt_elem_node_xi(type, a, xa);
    for (int q = 0; q < nq; q++) {
      double c = X[q]; /* row 0: phi_0 = 1 */
      for (int j = 1; j < nq; j++) c += xa[j - 1] * X[j * nq + q];
      E[a * nq + q] = c;
    }
  }
  return 0;
}

dt_status dt_frd_build(dt_frd *f, const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int used[DT_ELEM_NTYPES] = {0};
  for (int e = 0; e < m->n_elems; e++) {
    const int *order;
    int n;
    DT_CHECK(frd_type(m->elem_type[e], &n, &order) > 0, ctx, DT_ERR_INTERNAL,
             "element %lld has type %d, which the .frd writer does not know",
             (long long)m->elem_id[e], m->elem_type[e]);
    used[m->elem_type[e]] = 1;
  }
  for (int t = 0; t < DT_ELEM_NTYPES; t++) {
    if (!used[t] || f->extrap[t]) continue;
    DT_ALLOC(f->extrap[t], (size_t)dt_elem_nnodes(t) * (size_t)dt_elem_nqp(t), ctx,
             "an extrapolation matrix");
    DT_CHECK((dt_elem_nqp(t) >= dt_elem_nnodes(t) ? extrap_fit(t, f->extrap[t])
                                                  : extrap_points(t, f->extrap[t])) == 0,
             ctx, DT_ERR_INTERNAL, "no extrapolation from the points of element type %d", t);
  }
  f->plastic = 0;
  for (int i = 0; i < m->n_materials; i++)
    if (m->materials[i].p.plastic != DT_PLASTIC_NONE) f->plastic = 1;
  f->built = 1;
cleanup:
  return rc;
}

dt_status dt_frd_job_fill(const dt_frd *fr, dt_vtu_job *j, const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const unsigned want = m->output.fields;
  const size_t nn = (size_t)m->n_nodes;
  const int have_qp = j->n_qp > 0;
  j->frd_u = (want & DT_OUT_U) && j->copied_u;
  j->frd_rf = (want & DT_OUT_RF) && j->q_s;
  j->frd_s = (want & DT_OUT_S) && j->q_s;
  j->frd_e = (want & DT_OUT_E) && j->q_e;
  j->frd_peeq = (want & DT_OUT_PEEQ) && j->q_peeq && fr->plastic;
  DT_CHECK(fr->built && (!have_qp || j->n_elems == m->n_elems), ctx, DT_ERR_INTERNAL,
           "the .frd write does not match the model");
  DT_CHECK(!j->frd_rf || m->elem_section != NULL, ctx, DT_ERR_INTERNAL,
           "the .frd's nodal forces need the model's sections");
  if (j->frd_s || j->frd_e || j->frd_peeq)
    DT_TRY(dt_output_reserve((void **)&j->count, &j->cap_count, nn * sizeof *j->count, ctx,
                             "the .frd's node counts"));
  if (j->frd_s)
    DT_TRY(dt_output_reserve((void **)&j->x_s, &j->cap_x_s, 6 * nn * sizeof *j->x_s, ctx,
                             "the .frd's nodal stresses"));
  if (j->frd_e)
    DT_TRY(dt_output_reserve((void **)&j->x_e, &j->cap_x_e, 6 * nn * sizeof *j->x_e, ctx,
                             "the .frd's nodal strains"));
  if (j->frd_peeq)
    DT_TRY(dt_output_reserve((void **)&j->x_peeq, &j->cap_x_peeq, nn * sizeof *j->x_peeq, ctx,
                             "the .frd's nodal plastic strains"));
  if (j->frd_rf)
    DT_TRY(dt_output_reserve((void **)&j->forc, &j->cap_forc, 3 * nn * sizeof *j->forc, ctx,
                             "the .frd's nodal forces"));
cleanup:
  return rc;
}

/* The writer thread's part. */

/* Powers of ten up to the largest a double holds exactly. */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* a * 10^k */
static double scale10(double a, int k) {
  for (; k > 22; k -= 22) a *= 1e22;
  for (; k < -22; k += 22) a /= 1e22;
  return k >= 0 ? a * pow10_exact[k] : a / pow10_exact[-k];
}

/* CalculiX's E12.5 as C's "%12.5E" writes it ( 1.23457E-03), into p[0..11], without printf:
 * a block of a million nodes holds millions of values, and printf's conversion costs four
 * times this one. The mantissa's six digits are the value scaled by 10^(5 - e), rounded; the
 * scaling errs by a few units in the last place of a double, which changes the rounding only
 * within 1e-6 of a tie (x.5), and there printf itself decides. A value whose exponent needs
 * three digits would fill the field and run into the next one: below 1e-99 it is written as
 * 0, and from 1e100 on it is cut to +-9.99999E+99 (no displacement, stress or strain of a
 * converged increment comes near either). */
static void put_e12(char *p, double v) {
  double a, s = 0.0;
  long long r = 0;
  int e = 0;
  if (!(fabs(v) >= 1e-99)) v = 0.0; /* also NaN, which a converged increment does not carry */
  if (v >= 1e100) v = 9.99999e99;
  if (v <= -1e100) v = -9.99999e99;
  a = fabs(v);
  if (a > 0.0) {
    e = (int)floor(log10(a));
    s = scale10(a, 5 - e); /* in [99999.5, 999999.5) once e is right */
    if (s < 99999.5) s = scale10(a, 5 - --e);
    if (s >= 999999.5) s = scale10(a, 5 - ++e);
    if (fabs(s - floor(s) - 0.5) < 1e-6) { /* a tie, or nearly: printf's exact rounding */
      char t[32];
      snprintf(t, sizeof t, "%12.5E", v);
      memcpy(p, t, 12);
      return;
    }
    r = llround(s);
  }
  p[0] = v < 0 ? '-' : ' ';
  p[1] = (char)('0' + r / 100000);
  p[2] = '.';
  for (int i = 7; i >= 3; i--, r /= 10) p[i] = (char)('0' + r % 10);
  p[8] = 'E';
  p[9] = e < 0 ? '-' : '+';
  p[10] = (char)('0' + (e < 0 ? -e : e) / 10);
  p[11] = (char)('0' + (e < 0 ? -e : e) % 10);
}

/* " -1" and an id right-aligned in 10 characters (dt_frd_build checked that it fits). */
static char *put_key_id(char *p, long long id) {
  char d[24];
  int n = 0, neg = id < 0;
  unsigned long long u = neg ? 0ull - (unsigned long long)id : (unsigned long long)id;
  do d[n++] = (char)('0' + u % 10);
  while ((u /= 10) > 0);
  if (neg) d[n++] = '-';
  memcpy(p, " -1", 3);
  p += 3;
  for (int i = 0; i < 10 - n; i++) *p++ = ' ';
  while (n > 0) *p++ = d[--n];
  return p;
}

static void put_e(FILE *fp, double v) {
  char t[12];
  put_e12(t, v);
  fwrite(t, 1, sizeof t, fp);
}

/* The time field of a 100CL record: F format with as many decimals as fit 12 characters from
 * 1 on, E12.5 below (and from 1e9 on), as ccx writes it. */
static void put_time(FILE *fp, double t) {
  if (t >= 1.0 && t < 1e9)
    fprintf(fp, "%12.*f", 9 - (int)floor(log10(t)), t);
  else
    put_e(fp, t);
}

/* A 1U record, padded to 72 characters like ccx's. */
static void user_record(FILE *fp, const char *text) { fprintf(fp, "    1U%-66.66s\n", text); }

static void write_header(FILE *fp, const dt_model *m) {
  char text[80];
  size_t n = dt_utf8_prefix(m->title, strlen(m->title), 66);
  memcpy(text, m->title, n);
  text[n] = '\0';
  for (char *c = text; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  fputs("    1C\n", fp);
  user_record(fp, text); /* the title first, where ccx writes the deck's *HEADING */
  user_record(fp, "PGM               ductile");
  for (int i = 0; i < m->n_materials; i++) { /* "MAT    1STEEL": number and name */
    snprintf(text, sizeof text, "MAT%5d%s", i + 1, m->materials[i].name);
    user_record(fp, text);
  }
}

/* One node's record: " -1", its id and n values (n <= 6), as one write. */
static void node_record(FILE *fp, long long id, const double *v, int n) {
  char line[3 + 10 + 6 * 12 + 1], *p = put_key_id(line, id);
  for (int c = 0; c < n; c++, p += 12) put_e12(p, v[c]);
  *p++ = '\n';
  fwrite(line, 1, (size_t)(p - line), fp);
}

/* 2C: every node and its coordinates (z = 0 in 2D). */
static void write_nodes(FILE *fp, const dt_model *m) {
  fprintf(fp, "    2C%18s%12d%37s1\n", "", m->n_nodes, "");
  for (int i = 0; i < m->n_nodes; i++) node_record(fp, m->node_id[i], m->x + 3 * (size_t)i, 3);
  fputs(" -3\n", fp);
}

/* 3C: every element, its type, group 0 and material (its section's, numbered from 1). */
static void write_elements(FILE *fp, const dt_model *m) {
  fprintf(fp, "    3C%18s%12d%37s1\n", "", m->n_elems, "");
  for (int e = 0; e < m->n_elems; e++) {
    const int *order, *cn = m->conn + m->elem_ptr[e];
    int n, type = frd_type(m->elem_type[e], &n, &order);
    int mat = m->elem_section && m->elem_section[e] >= 0
                  ? m->sections[m->elem_section[e]].material + 1
                  : 1;
    fprintf(fp, " -1%10lld%5d%5d%5d\n", (long long)m->elem_id[e], type, 0, mat);
    for (int k = 0; k < n; k++) {
      if (k % 10 == 0) fputs(k ? "\n -2" : " -2", fp);
      fprintf(fp, "%10lld", (long long)m->node_id[cn[order ? order[k] : k]]);
    }
    fputc('\n', fp);
  }
  fputs(" -3\n", fp);
}

/* The records that open a result block: the step parameter, the 100CL header, -4 and -5. */
static void block_head(FILE *fp, dt_frd *fr, const dt_vtu_job *j, const char *name, int ncomp,
                       const char *const *comp, int kind) {
  fr->blocks++;
  fprintf(fp, "    1PSTEP%14s%12d%12d%12d%10s\n", "", fr->blocks, j->increment, j->step + 1, "");
  fprintf(fp, "  100CL%5d", 100 + fr->sets);
  put_time(fp, j->time);
  fprintf(fp, "%12d%20s%2d%5d%10s%2d\n", j->n_nodes, "", 0, fr->sets, "", 1);
  fprintf(fp, " -4  %-8s%5d%5d\n", name, ncomp + (kind == 2 ? 1 : 0), 1);
  for (int c = 0; c < ncomp; c++) {
    /* vector components (2): index c + 1; tensor (4): row and column; scalar (1): 0 0 */
    static const int row[6] = {1, 2, 3, 1, 2, 3}, col[6] = {1, 2, 3, 2, 3, 1};
    const int i1 = kind == 2 ? c + 1 : kind == 4 ? row[c] : 0, i2 = kind == 4 ? col[c] : 0;
    fprintf(fp, " -5  %-8s%5d%5d%5d%5d\n", comp[c], 1, kind, i1, i2);
  }
  if (kind == 2) fprintf(fp, " -5  %-8s%5d%5d%5d%5d%5dALL\n", "ALL", 1, 2, 0, 0, 1);
}

/* One block: ncomp values per node of v (stride `stride`), taken in the order `pick`, scaled
 * by `scale` (halving the shears of a strain). */
static void write_block(FILE *fp, dt_frd *fr, const dt_vtu_job *j, const dt_model *m,
                        const char *name, const char *const *comp, int kind, const double *v,
                        int stride, const int *pick, const double *scale) {
  const int ncomp = kind == 2 ? 3 : kind == 4 ? 6 : 1;
  block_head(fp, fr, j, name, ncomp, comp, kind);
  for (int i = 0; i < m->n_nodes; i++) {
    double x[6];
    for (int c = 0; c < ncomp; c++)
      x[c] = v[(size_t)i * stride + pick[c]] * (scale ? scale[c] : 1.0);
    node_record(fp, m->node_id[i], x, ncomp);
  }
  fputs(" -3\n", fp);
}

/* CalculiX's nodal values of a point field: each element's point values extrapolated to its
 * nodes, then at each node the unweighted mean over its elements (elements in order). */
static void extrapolate(const dt_frd *fr, const dt_model *m, const dt_vtu_job *j, const double *qp,
                        int ncomp, double *out) {
  const size_t nn = (size_t)m->n_nodes;
  memset(j->count, 0, nn * sizeof *j->count);
  memset(out, 0, nn * (size_t)ncomp * sizeof *out);
  for (int e = 0; e < m->n_elems; e++) {
    const int type = m->elem_type[e], npe = dt_elem_nnodes(type), nq = dt_elem_nqp(type);
    const int q0 = j->qp_ptr[e], *cn = m->conn + m->elem_ptr[e];
    const double *E = fr->extrap[type];
    if (j->qp_ptr[e + 1] - q0 != nq || E == NULL) continue; /* no points: no values */
    for (int a = 0; a < npe; a++) {
      double *o = out + (size_t)cn[a] * ncomp;
      /* o += sum_q E[a][q] v_q */
      for (int q = 0; q < nq; q++)
        for (int c = 0; c < ncomp; c++) o[c] += E[a * nq + q] * qp[(size_t)(q0 + q) * ncomp + c];
      j->count[cn[a]]++;
    }
  }
  for (size_t i = 0; i < nn; i++)
    if (j->count[i] > 1)
      for (int c = 0; c < ncomp; c++) out[i * ncomp + c] /= j->count[i];
}

/* The job's fields as a dt_fields, for dt_internal_forces. */
static void job_fields(const dt_vtu_job *j, dt_fields *f) {
  memset(f, 0, sizeof *f);
  f->n_nodes = j->n_nodes;
  f->n_elems = j->n_elems;
  f->n_qp = j->n_qp;
  f->qp_ptr = j->n_qp > 0 ? j->qp_ptr : NULL;
  f->qp_stress = j->q_s ? j->qp_stress : NULL;
}

/* The increment's blocks; -1 when the fields lack the points the nodal forces need. */
static int write_results(FILE *fp, dt_frd *fr, dt_vtu_job *j, const dt_model *m) {
  static const char *const disp[3] = {"D1", "D2", "D3"}, *const forc[3] = {"F1", "F2", "F3"};
  static const char *const sig[6] = {"SXX", "SYY", "SZZ", "SXY", "SYZ", "SZX"};
  static const char *const eps[6] = {"EXX", "EYY", "EZZ", "EXY", "EYZ", "EZX"};
  static const char *const pe[1] = {"PE"};
  /* our Voigt (xx, yy, zz, xy, xz, yz) in CalculiX's order; strains with tensor shears */
  static const int xyz[3] = {0, 1, 2}, tensor[6] = {0, 1, 2, 3, 5, 4}, one[1] = {0};
  static const double half[6] = {1, 1, 1, 0.5, 0.5, 0.5};
  fr->sets++;
  if (j->frd_u) write_block(fp, fr, j, m, "DISP", disp, 2, j->u, 3, xyz, NULL);
  if (j->frd_s) {
    extrapolate(fr, m, j, j->qp_stress, 6, j->x_s);
    write_block(fp, fr, j, m, "STRESS", sig, 4, j->x_s, 6, tensor, NULL);
  }
  if (j->frd_e) {
    extrapolate(fr, m, j, j->qp_strain, 6, j->x_e);
    write_block(fp, fr, j, m, "TOSTRAIN", eps, 4, j->x_e, 6, tensor, half);
  }
  if (j->frd_rf) {
    dt_fields f;
    job_fields(j, &f);
    if (dt_internal_forces(m, &f, NULL, j->forc) != 0) return -1;
    write_block(fp, fr, j, m, "FORC", forc, 2, j->forc, 3, xyz, NULL);
  }
  if (j->frd_peeq) {
    extrapolate(fr, m, j, j->qp_peeq, 1, j->x_peeq);
    write_block(fp, fr, j, m, "PE", pe, 1, j->x_peeq, 1, one, NULL);
  }
  return 0;
}

dt_status dt_frd_job_run(dt_frd *fr, dt_vtu_job *j, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_model *m = j->model;
  FILE *fp = NULL;
  long long end;
  /* The first job creates the file; later ones write over the closing line. */
  fp = fopen(fr->path, fr->end > 0 ? "r+" : "w");
  DT_CHECK(fp != NULL, ctx, DT_ERR_IO, "cannot open '%s' for writing: %s", fr->path,
           strerror(errno));
  if (fr->end > 0) {
    DT_CHECK(fseeko(fp, (off_t)fr->end, SEEK_SET) == 0, ctx, DT_ERR_IO, "cannot seek in '%s': %s",
             fr->path, strerror(errno));
  } else {
    write_header(fp, m);
    write_nodes(fp, m);
    write_elements(fp, m);
  }
  DT_CHECK(write_results(fp, fr, j, m) == 0, ctx, DT_ERR_INTERNAL,
           "the fields do not carry the point stresses of the model's elements (.frd forces)");
  end = (long long)ftello(fp);
  fputs(" 9999\n", fp);
  DT_CHECK(!ferror(fp) && end > 0, ctx, DT_ERR_IO, "cannot write '%s'", fr->path);
  fr->end = end;
cleanup:
  if (fp && fclose(fp) != 0 && rc == DT_OK)
    rc = DT_ERROR(ctx, DT_ERR_IO, "cannot write '%s': %s", fr->path, strerror(errno));
  return rc;
}

dt_status dt_frd_resume(dt_frd *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  struct stat st;
  FILE *fp = NULL;
  if (!f->on) return DT_OK;
  if (f->end == 0) { /* the checkpoint came before the first increment written */
    DT_CHECK(remove(f->path) == 0 || errno == ENOENT, ctx, DT_ERR_IO, "cannot remove '%s': %s",
             f->path, strerror(errno));
    goto cleanup;
  }
  DT_CHECK(stat(f->path, &st) == 0 && (long long)st.st_size >= f->end, ctx, DT_ERR_IO,
           "'%s' is shorter than the checkpoint says it was (%lld bytes)", f->path, f->end);
  /* The blocks of increments after the checkpoint go: they are computed again. */
  DT_CHECK(truncate(f->path, (off_t)f->end) == 0, ctx, DT_ERR_IO, "cannot truncate '%s': %s",
           f->path, strerror(errno));
  fp = fopen(f->path, "a");
  DT_CHECK(fp != NULL, ctx, DT_ERR_IO, "cannot open '%s': %s", f->path, strerror(errno));
  fputs(" 9999\n", fp);
  DT_CHECK(!ferror(fp), ctx, DT_ERR_IO, "cannot write '%s'", f->path);
cleanup:
  if (fp && fclose(fp) != 0 && rc == DT_OK)
    rc = DT_ERROR(ctx, DT_ERR_IO, "cannot write '%s': %s", f->path, strerror(errno));
  return rc;
}
