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
 * (ours 13-16); tet4 3; tet10 6; quad4 9; tri3 7; quad8 and quad8r 10. quad9 and quad16, which
 * CalculiX lacks, are drawn as quad8 (its first 8 nodes) and quad4 (its corners); their other nodes
 * still carry their values in every block. To add a type: its case in frd_type.
 *
 * The writer thread appends one increment's blocks per job: it opens the file, writes the
 * header and the mesh at the first job, else goes to the end of the last block (over the
 * closing line), appends the blocks and the closing " 9999" again, so the file is complete up
 * to its last increment whenever no job is running. The extrapolation matrices are built by
 * the caller before the first job; the thread reads the model (unchanged during a run), like
 * results.dat's writer, and the job's snapshot of the fields. It formats the fields without
 * printf (output_frd_format.h, the same characters) into one buffer, written a megabyte at a
 * time. */
#include "io/output_internal.h"

#include "core/utf8.h"
#include "element/element.h"
#include "io/output_frd_format.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FRD_DEFAULT_NAME "results"
#define FRD_MAX_ID 9999999999LL /* the long format's I10 */
/* The text buffer: records are formatted into it and written a buffer at a time. */
#define FRD_BUF_BYTES ((size_t)8 << 20) /* two halves */

/* The model runs explicit steps (all its steps are of one procedure: dt_model_finish). */
static int explicit_model(const dt_model *m) {
  return m->n_steps > 0 && m->steps[0].procedure == DT_PROC_EXPLICIT;
}

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
  case DT_ELEM_HEX8:
  case DT_ELEM_HEX8R:
  case DT_ELEM_HEX8I: return 1;
  case DT_ELEM_HEX20:
  case DT_ELEM_HEX20R: *order = he20; return 4;
  case DT_ELEM_TET4: return 3;
  case DT_ELEM_TET10: return 6;
  case DT_ELEM_QUAD4: return 9;
  case DT_ELEM_TRI3: return 7;
  case DT_ELEM_QUAD8:
  case DT_ELEM_QUAD8R: return 10;
  case DT_ELEM_QUAD9: *n = 8; return 10; /* the serendipity nodes: corners, then mid-edges */
  case DT_ELEM_QUAD16: *n = 4; return 9; /* the corners */
  case DT_ELEM_WEDGE6: return 2;
  case DT_ELEM_WEDGE15: *order = pe15; return 5;
  case DT_ELEM_SHELL4: *n = 4; return 9; /* its mid-surface, as a quadrilateral */
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
  dt_free(f->buf);
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
  for (int t = 0; t < DT_ELEM_NCONTINUUM; t++) { /* shells: the mean of their points */
    if (!used[t] || f->extrap[t]) continue;
    DT_ALLOC(f->extrap[t], (size_t)dt_elem_nnodes(t) * (size_t)dt_elem_nqp(t), ctx,
             "an extrapolation matrix");
    DT_CHECK((dt_elem_nqp(t) >= dt_elem_nnodes(t) ? extrap_fit(t, f->extrap[t])
                                                  : extrap_points(t, f->extrap[t])) == 0,
             ctx, DT_ERR_INTERNAL, "no extrapolation from the points of element type %d", t);
  }
  if (f->buf == NULL) {
    DT_ALLOC(f->buf, FRD_BUF_BYTES, ctx, "the .frd's text buffer");
    f->cap_buf = FRD_BUF_BYTES;
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
  /* static steps: CalculiX's internal nodal forces, from the point stresses; explicit steps:
   * the reactions their driver computes */
  j->frd_rf = (want & DT_OUT_RF) && (explicit_model(m) ? j->copied_rf : j->q_s);
  j->frd_s = (want & DT_OUT_S) && j->q_s;
  j->frd_e = (want & DT_OUT_E) && j->q_e;
  j->frd_peeq = (want & DT_OUT_PEEQ) && j->q_peeq && fr->plastic;
  DT_CHECK(fr->built && (!have_qp || j->n_elems == m->n_elems), ctx, DT_ERR_INTERNAL,
           "the .frd write does not match the model");
  DT_CHECK(!j->frd_rf || explicit_model(m) || m->elem_section != NULL, ctx, DT_ERR_INTERNAL,
           "the .frd's nodal forces need the model's sections");
  if (j->frd_s)
    DT_TRY(dt_output_reserve((void **)&j->x_s, &j->cap_x_s, 6 * nn * sizeof *j->x_s, ctx,
                             "the .frd's nodal stresses"));
  if (j->frd_e)
    DT_TRY(dt_output_reserve((void **)&j->x_e, &j->cap_x_e, 6 * nn * sizeof *j->x_e, ctx,
                             "the .frd's nodal strains"));
  if (j->frd_peeq)
    DT_TRY(dt_output_reserve((void **)&j->x_peeq, &j->cap_x_peeq, nn * sizeof *j->x_peeq, ctx,
                             "the .frd's nodal plastic strains"));
  if (j->frd_rf && !explicit_model(m))
    DT_TRY(dt_output_reserve((void **)&j->forc, &j->cap_forc, 3 * nn * sizeof *j->forc, ctx,
                             "the .frd's nodal forces"));
cleanup:
  return rc;
}

/* The writer thread's part. */

/* The file's text is formatted into one half of fr->buf while the other half is written (an
 * OpenMP task: in the writer's team the write overlaps the next half's formatting; outside
 * one it runs at once). dt_frd_build allocates the buffer, so the thread does not. */
typedef struct frd_out {
  FILE *fp;
  char *half[2];
  int cur;       /* the half being filled */
  char *buf;     /* half[cur] */
  size_t n, cap; /* its bytes, and a half's size */
} frd_out;

static void out_write(FILE *fp, const char *p, size_t n) {
  fwrite(p, 1, n, fp); /* a failure shows in ferror(fp) */
}

/* The filled half to the file, after the previous write (so the file's bytes keep their order);
 * the other half to fill. */
static void out_flush(frd_out *o) {
  FILE *fp = o->fp;
  const char *p = o->buf;
  const size_t n = o->n;
#pragma omp taskwait
  if (n > 0) {
#pragma omp task firstprivate(fp, p, n)
    out_write(fp, p, n);
  }
  o->cur ^= 1;
  o->buf = o->half[o->cur];
  o->n = 0;
}

/* The writes spawned so far done. */
static void out_wait(void) {
#pragma omp taskwait
}

/* Every write done (before the file position is read or the file closed). */
static void out_finish(frd_out *o) {
  out_flush(o);
  out_wait();
}

/* Where the next `need` (<= cap) characters go; the caller adds what it wrote to o->n. */
static char *out_room(frd_out *o, size_t need) {
  if (o->cap - o->n < need) out_flush(o);
  return o->buf + o->n;
}

#define FRD_LINE_MAX 256 /* the longest header record, with room to spare */

static void out_printf(frd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(frd_out *o, const char *fmt, ...) {
  char *p = out_room(o, FRD_LINE_MAX);
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(p, FRD_LINE_MAX, fmt, ap);
  va_end(ap);
  o->n += n < 0 ? 0 : n < FRD_LINE_MAX ? (size_t)n : FRD_LINE_MAX - 1;
}

/* The time field of a 100CL record: F format with as many decimals as fit 12 characters from
 * 1 on, E12.5 below (and from 1e9 on), as ccx writes it. */
static void put_time(frd_out *o, double t) {
  if (t >= 1.0 && t < 1e9) {
    out_printf(o, "%12.*f", 9 - (int)floor(log10(t)), t);
  } else {
    dt_frd_put_e12(out_room(o, 12), t);
    o->n += 12;
  }
}

/* A 1U record, padded to 72 characters like ccx's. */
static void user_record(frd_out *o, const char *text) { out_printf(o, "    1U%-66.66s\n", text); }

static void write_header(frd_out *o, const dt_model *m) {
  char text[80];
  size_t n = dt_utf8_prefix(m->title, strlen(m->title), 66);
  memcpy(text, m->title, n);
  text[n] = '\0';
  for (char *c = text; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  out_printf(o, "    1C\n");
  user_record(o, text); /* the title first, where ccx writes the deck's *HEADING */
  user_record(o, "PGM               ductile");
  for (int i = 0; i < m->n_materials; i++) { /* "MAT    1STEEL": number and name */
    snprintf(text, sizeof text, "MAT%5d%s", i + 1, m->materials[i].name);
    user_record(o, text);
  }
}

/* The values of a block's node records: ncomp (<= 6) per node, v[i * stride + pick[c]], times
 * scale[c] when scale is not NULL (halving the shears of a strain). */
typedef struct frd_values {
  const double *v;
  int stride, ncomp;
  const int *pick;
  const double *scale;
} frd_values;

/* Node i's record at p: " -1", its id as I10 (dt_frd_open checked that it fits), the values as
 * E12.5, a newline; 14 + 12 ncomp characters. */
static void node_record(char *p, long long id, const frd_values *b, int i) {
  const double *v = b->v + (size_t)i * b->stride;
  const int n = b->ncomp;
  double x[6];
  /* read before writing: the text's stores could alias b as far as the compiler knows */
  for (int c = 0; c < n; c++) x[c] = b->scale ? v[b->pick[c]] * b->scale[c] : v[b->pick[c]];
  memcpy(p, " -1", 3);
  dt_frd_put_int(p + 3, id, 10);
  for (int c = 0; c < n; c++) dt_frd_put_e12(p + 13 + 12 * c, x[c]);
  p[13 + 12 * n] = '\n';
}

/* Records a writer task formats (output_vtu.c's team; serial outside one). */
#define FRD_RECORD_GRAIN 2048

/* Every node's record, in node order, a buffer's worth at a time. The records have one length,
 * so the writer's team formats a buffer's records in parallel, each in its place; nodes the
 * file leaves out (node_isolated) shift the later records, so such a model's buffers are
 * formatted serially. */
static void node_records(frd_out *o, const dt_model *m, const frd_values *b) {
  const size_t len = 14 + 12 * (size_t)b->ncomp;
  const unsigned char *iso = m->node_isolated;
  for (int i0 = 0; i0 < m->n_nodes;) {
    char *p = out_room(o, len);
    const size_t fit = (o->cap - o->n) / len;
    const int k = fit < (size_t)(m->n_nodes - i0) ? (int)fit : m->n_nodes - i0;
    int w = 0;
    if (iso == NULL) {
#pragma omp taskloop grainsize(FRD_RECORD_GRAIN)
      for (int i = 0; i < k; i++) node_record(p + (size_t)i * len, m->node_id[i0 + i], b, i0 + i);
      w = k;
    } else {
      for (int i = 0; i < k; i++)
        if (!iso[i0 + i]) node_record(p + (size_t)w++ * len, m->node_id[i0 + i], b, i0 + i);
    }
    o->n += (size_t)w * len;
    i0 += k;
  }
}

/* The nodes the file lists: CalculiX leaves out those no element uses (a rigid body's
 * reference and rotation nodes), whose results the .dat prints. */
static int frd_node_count(const dt_model *m) {
  int n = m->n_nodes;
  for (int i = 0; m->node_isolated && i < m->n_nodes; i++) n -= m->node_isolated[i];
  return n;
}

/* 2C: every node and its coordinates (z = 0 in 2D). */
static void write_nodes(frd_out *o, const dt_model *m) {
  static const int xyz[3] = {0, 1, 2};
  const frd_values b = {m->x, 3, 3, xyz, NULL};
  out_printf(o, "    2C%18s%12d%37s1\n", "", frd_node_count(m), "");
  node_records(o, m, &b);
  out_printf(o, " -3\n");
}

/* Element e's record at p: " -1", id, type, group 0 and material (its section's, numbered from
 * 1), then its nodes, 10 to a " -2" line; returns its length (at most FRD_LINE_MAX). */
static size_t element_record(char *p, const dt_model *m, int e) {
  const int *order, *cn = m->conn + m->elem_ptr[e];
  int n, type = frd_type(m->elem_type[e], &n, &order);
  int mat =
      m->elem_section && m->elem_section[e] >= 0 ? m->sections[m->elem_section[e]].material + 1 : 1;
  char *q = p;
  memcpy(q, " -1", 3);
  q += 3;
  q += dt_frd_put_int(q, (long long)m->elem_id[e], 10);
  q += dt_frd_put_int(q, type, 5);
  q += dt_frd_put_int(q, 0, 5);
  q += dt_frd_put_int(q, mat, 5);
  for (int k = 0; k < n; k++) {
    if (k % 10 == 0) memcpy(q, "\n -2", 4), q += 4;
    q += dt_frd_put_int(q, (long long)m->node_id[cn[order ? order[k] : k]], 10);
  }
  *q++ = '\n';
  return (size_t)(q - p);
}

/* 3C: every element. */
static void write_elements(frd_out *o, const dt_model *m) {
  out_printf(o, "    3C%18s%12d%37s1\n", "", m->n_elems, "");
  for (int e = 0; e < m->n_elems; e++) o->n += element_record(out_room(o, FRD_LINE_MAX), m, e);
  out_printf(o, " -3\n");
}

/* The records that open a result block: the step parameter, the 100CL header, -4 and -5. */
static void block_head(frd_out *o, dt_frd *fr, const dt_vtu_job *j, int n_nodes, const char *name,
                       int ncomp, const char *const *comp, int kind) {
  fr->blocks++;
  out_printf(o, "    1PSTEP%14s%12d%12d%12d%10s\n", "", fr->blocks, j->increment, j->step + 1, "");
  out_printf(o, "  100CL%5d", 100 + fr->sets);
  put_time(o, j->time);
  out_printf(o, "%12d%20s%2d%5d%10s%2d\n", n_nodes, "", 0, fr->sets, "", 1);
  out_printf(o, " -4  %-8s%5d%5d\n", name, ncomp + (kind == 2 ? 1 : 0), 1);
  for (int c = 0; c < ncomp; c++) {
    /* vector components (2): index c + 1; tensor (4): row and column; scalar (1): 0 0 */
    static const int row[6] = {1, 2, 3, 1, 2, 3}, col[6] = {1, 2, 3, 2, 3, 1};
    const int i1 = kind == 2 ? c + 1 : kind == 4 ? row[c] : 0, i2 = kind == 4 ? col[c] : 0;
    out_printf(o, " -5  %-8s%5d%5d%5d%5d\n", comp[c], 1, kind, i1, i2);
  }
  if (kind == 2) out_printf(o, " -5  %-8s%5d%5d%5d%5d%5dALL\n", "ALL", 1, 2, 0, 0, 1);
}

/* One block: ncomp values per node of v (stride `stride`), taken in the order `pick`, scaled
 * by `scale` (halving the shears of a strain). */
static void write_block(frd_out *o, dt_frd *fr, const dt_vtu_job *j, const dt_model *m,
                        const char *name, const char *const *comp, int kind, const double *v,
                        int stride, const int *pick, const double *scale) {
  const frd_values b = {v, stride, kind == 2 ? 3 : kind == 4 ? 6 : 1, pick, scale};
  block_head(o, fr, j, frd_node_count(m), name, b.ncomp, comp, kind);
  node_records(o, m, &b);
  out_printf(o, " -3\n");
}

/* o[c] += sum_q E[q] v_q[c] for the ncomp (<= 6) components of nq point values v, q in order
 * (the same sums, to the bit, as adding into o). */
static inline void extrap_add(double *o, const double *E, const double *v, int nq, int ncomp) {
  for (int q = 0; q < nq; q++)
    for (int c = 0; c < ncomp; c++) o[c] += E[q] * v[q * ncomp + c];
}

/* CalculiX's nodal values of a point field: each element's point values extrapolated to its
 * nodes, then at each node the unweighted mean over its elements (elements in order). An
 * element whose points are not its type's rule (an explicit step's: a shell's two surfaces, a
 * one-point hex8) gives every node the mean of its points. Gathered per node over its elements
 * in ascending order (j->adj), in tasks of the writer's team. */
static void extrapolate(const dt_frd *fr, const dt_model *m, const dt_vtu_job *j, const double *qp,
                        int ncomp, double *out) {
  const dt_node_elems *adj = j->adj;
#pragma omp taskloop grainsize(FRD_RECORD_GRAIN)
  for (int n = 0; n < adj->n_nodes; n++) {
    double s[6] = {0, 0, 0, 0, 0, 0}; /* ncomp <= 6 */
    int count = 0;
    for (int k = adj->ptr[n]; k < adj->ptr[n + 1]; k++) {
      const int e = adj->elem[k], a = adj->local[k], type = m->elem_type[e];
      const int nq = dt_elem_nqp(type), q0 = j->qp_ptr[e], np = j->qp_ptr[e + 1] - q0;
      const double *E = type < DT_ELEM_NCONTINUUM ? fr->extrap[type] : NULL;
      const double *v = qp + (size_t)q0 * ncomp;
      if (np > 0 && (np != nq || E == NULL)) { /* the mean */
        for (int q = 0; q < np; q++)
          for (int c = 0; c < ncomp; c++) s[c] += v[(size_t)q * ncomp + c] / np;
        count++;
      } else if (np == nq && E != NULL) {
        extrap_add(s, E + a * nq, v, nq, ncomp); /* s += sum_q E[a][q] v_q */
        count++;
      } /* no points: no values */
    }
    for (int c = 0; c < ncomp; c++) out[(size_t)n * ncomp + c] = count > 1 ? s[c] / count : s[c];
  }
}

/* The job's fields as a dt_fields, for dt_internal_forces. */
static void job_fields(const dt_vtu_job *j, dt_fields *f) {
  memset(f, 0, sizeof *f);
  f->n_nodes = j->n_nodes;
  f->n_elems = j->n_elems;
  f->n_qp = j->n_qp;
  f->qp_ptr = j->n_qp > 0 ? j->qp_ptr : NULL;
  f->qp_stress = j->q_s ? j->qp_stress : NULL;
  f->u = j->copied_u ? j->u : NULL; /* hex8r's hourglass forces */
}

/* The increment's blocks; -1 when the fields lack the points the nodal forces need. */
static int write_results(frd_out *o, dt_frd *fr, dt_vtu_job *j, const dt_model *m) {
  static const char *const disp[3] = {"D1", "D2", "D3"}, *const forc[3] = {"F1", "F2", "F3"};
  static const char *const sig[6] = {"SXX", "SYY", "SZZ", "SXY", "SYZ", "SZX"};
  static const char *const eps[6] = {"EXX", "EYY", "EZZ", "EXY", "EYZ", "EZX"};
  static const char *const pe[1] = {"PE"};
  /* our Voigt (xx, yy, zz, xy, xz, yz) in CalculiX's order; strains with tensor shears */
  static const int xyz[3] = {0, 1, 2}, tensor[6] = {0, 1, 2, 3, 5, 4}, one[1] = {0};
  static const double half[6] = {1, 1, 1, 0.5, 0.5, 0.5};
  fr->sets++;
  if (j->frd_u) write_block(o, fr, j, m, "DISP", disp, 2, j->u, 3, xyz, NULL);
  if (j->frd_s) {
    extrapolate(fr, m, j, j->qp_stress, 6, j->x_s);
    write_block(o, fr, j, m, "STRESS", sig, 4, j->x_s, 6, tensor, NULL);
  }
  if (j->frd_e) {
    extrapolate(fr, m, j, j->qp_strain, 6, j->x_e);
    write_block(o, fr, j, m, "TOSTRAIN", eps, 4, j->x_e, 6, tensor, half);
  }
  if (j->frd_rf && explicit_model(m)) /* the reactions (explicit_run.c): forces at supports */
    write_block(o, fr, j, m, "FORC", forc, 2, j->rf, 3, xyz, NULL);
  else if (j->frd_rf) {
    dt_fields f;
    job_fields(j, &f);
    if (dt_internal_forces(m, &f, NULL, j->forc) != 0) return -1;
    write_block(o, fr, j, m, "FORC", forc, 2, j->forc, 3, xyz, NULL);
  }
  if (j->frd_peeq) {
    extrapolate(fr, m, j, j->qp_peeq, 1, j->x_peeq);
    write_block(o, fr, j, m, "PE", pe, 1, j->x_peeq, 1, one, NULL);
  }
  return 0;
}

dt_status dt_frd_job_run(dt_frd *fr, dt_vtu_job *j, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_model *m = j->model;
  frd_out o = {NULL, {fr->buf, fr->buf + fr->cap_buf / 2}, 0, fr->buf, 0, fr->cap_buf / 2};
  long long end;
  /* The first job creates the file; later ones write over the closing line. */
  o.fp = fopen(fr->path, fr->end > 0 ? "r+" : "w");
  DT_CHECK(o.fp != NULL, ctx, DT_ERR_IO, "cannot open '%s' for writing: %s", fr->path,
           strerror(errno));
  if (fr->end > 0) {
    DT_CHECK(fseeko(o.fp, (off_t)fr->end, SEEK_SET) == 0, ctx, DT_ERR_IO, "cannot seek in '%s': %s",
             fr->path, strerror(errno));
  } else {
    write_header(&o, m);
    write_nodes(&o, m);
    write_elements(&o, m);
  }
  DT_CHECK(write_results(&o, fr, j, m) == 0, ctx, DT_ERR_INTERNAL,
           "the fields do not carry the point stresses of the model's elements (.frd forces)");
  out_finish(&o);
  end = (long long)ftello(o.fp);
  fputs(" 9999\n", o.fp);
  DT_CHECK(!ferror(o.fp) && end > 0, ctx, DT_ERR_IO, "cannot write '%s'", fr->path);
  fr->end = end;
cleanup:
  out_wait(); /* a half still being written when a check failed */
  if (o.fp && fclose(o.fp) != 0 && rc == DT_OK)
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
