/* VTK XML UnstructuredGrid (.vtu) of one increment, binary appended, and the .pvd collection.
 *
 * The layout is ParaView's own: the XML header lists every DataArray as format="appended"
 * with its byte offset, and <AppendedData encoding="raw"> then holds, after a '_', each array
 * as a UInt64 byte count (header_type="UInt64") followed by its values, little-endian. Values
 * are the solver's doubles as they are (exact, as %.17g text would be, at 40% of its size),
 * and writing them is one fwrite per array: formatting text, a printf per value, costs more
 * than the solve itself on a GPU (docs/architecture.md, result output). Types:
 * Float64 for values and coordinates, Int64 for connectivity, offsets and element ids (node
 * indices would fit Int32, user ids would not; one type keeps readers simple), Int32 for
 * section and point numbers, UInt8 for cell types. Readers: tests/validation/vlib.py
 * (read_vtu) and the dashboard (clients/dashboard/src/view3d.js).
 *
 * Node orders of element.h (CalculiX/Abaqus) equal VTK's for every element we have: hex8
 * (bottom 1-2-3-4, top 5-6-7-8), tet4, tet10 (mid-edges (1-2),(2-3),(3-1),(1-4),(2-4),(3-4) =
 * VTK_QUADRATIC_TETRA's (0,1),(1,2),(2,0),(0,3),(1,3),(2,3)), hex20 and hex20r (mid-edges
 * (1-2),(2-3),(3-4),(4-1),(5-6),(6-7),(7-8),(8-5),(1-5),(2-6),(3-7),(4-8) =
 * VTK_QUADRATIC_HEXAHEDRON's (0,1),(1,2),(2,3),(3,0),(4,5),(5,6),(6,7),(7,4),(0,4),(1,5),(2,6),
 * (3,7)), quad4, tri3, quad8
 * (VTK_QUADRATIC_QUAD) and quad9 (VTK_BIQUADRATIC_QUAD: mid-edges, then the centre), and shell4,
 * drawn as the VTK_QUAD of its mid-surface (its corners in order around it, S4's order; its
 * results are one point at the centre, which the averages below spread over its 4 nodes as a
 * constant); so the connectivity is written as is. quad16 is a VTK_LAGRANGE_QUADRILATERAL, whose edges 3 and
 * 4 run in +x and +y (ours run around the element) and whose interior is row by row: its
 * nodes are permuted (vtk_local). VTK_WEDGE and VTK_QUADRATIC_WEDGE are the mirror image of
 * CalculiX's wedges: VTK's triangle (0,1,2) has its right-hand normal pointing away from
 * (3,4,5), CalculiX's 1-2-3 towards 4-5-6; so the wedges are written with the second and
 * third node of each triangle swapped (0,2,1, 3,5,4, as ccx2paraview writes C3D6), and
 * wedge15's mid-edge nodes with them: VTK's edges (0,1),(1,2),(2,0),(3,4),(4,5),(5,3),(0,3),
 * (1,4),(2,5) are then our 3-1, 2-3, 1-2, 6-4, 5-6, 4-5, 1-4, 3-6, 2-5. To add an element type,
 * add its VTK code below and check its node order against vtkCellType.h / the VTK file-format
 * figures.
 *
 * The files are written by the writer thread (output_queue.c) from a dt_vtu_job, a snapshot
 * of the increment's fields, and the dt_vtu_mesh copied from the model once per run; the
 * element and nodal averages are computed there too, off the solver's path. */
#include "io/output_internal.h"
#include "io/output_dat.h"

#include "core/clock.h"

#include <stdarg.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the VTU writer writes the host's bytes and declares them LittleEndian"
#endif
_Static_assert(sizeof(int) == 4, "int arrays are written as Int32");
_Static_assert(sizeof(double) == 8, "double arrays are written as Float64");

int dt_vtk_cell_type(int elem_type) {
  switch (elem_type) {
  case DT_ELEM_HEX8:
  case DT_ELEM_HEX8R:
  case DT_ELEM_HEX8I: return 12; /* VTK_HEXAHEDRON */
  case DT_ELEM_TET4: return 10;  /* VTK_TETRA */
  case DT_ELEM_TET10: return 24; /* VTK_QUADRATIC_TETRA */
  case DT_ELEM_QUAD4: return 9;  /* VTK_QUAD */
  case DT_ELEM_TRI3: return 5;   /* VTK_TRIANGLE */
  case DT_ELEM_QUAD8:
  case DT_ELEM_QUAD8R: return 23; /* VTK_QUADRATIC_QUAD */
  case DT_ELEM_QUAD9: return 28;  /* VTK_BIQUADRATIC_QUAD */
  case DT_ELEM_QUAD16: return 70; /* VTK_LAGRANGE_QUADRILATERAL */
  case DT_ELEM_HEX20:
  case DT_ELEM_HEX20R: return 25;  /* VTK_QUADRATIC_HEXAHEDRON */
  case DT_ELEM_WEDGE6: return 13;  /* VTK_WEDGE */
  case DT_ELEM_WEDGE15: return 26; /* VTK_QUADRATIC_WEDGE */
  case DT_ELEM_SHELL4: return 9;   /* VTK_QUAD: the shell's mid-surface */
  }
  return -1;
}

/* Our local node written as VTK's node k of the cell. */
static int vtk_local(int elem_type, int k) {
  static const int quad16[16] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 8, 11, 10, 12, 13, 15, 14};
  static const int wedge[15] = {0, 2, 1, 3, 5, 4, 8, 7, 6, 11, 10, 9, 12, 14, 13};
  if (elem_type == DT_ELEM_WEDGE6 || elem_type == DT_ELEM_WEDGE15) return wedge[k];
  return elem_type == DT_ELEM_QUAD16 ? quad16[k] : k;
}

/* Names of our Voigt components, written as ComponentName attributes: ParaView's own
 * 6-component order is XX,YY,ZZ,XY,YZ,XZ, so the names keep ours unambiguous. */
const char *const dt_vtu_voigt_names[6] = {"XX", "YY", "ZZ", "XY", "XZ", "YZ"};
const char *const dt_vtu_xyz_names[3] = {"X", "Y", "Z"};

/* ---- the appended-data document ---------------------------------------------------------- */

static int leading_spaces(const char *s) {
  int n = 0;
  while (s[n] == ' ') n++;
  return n;
}

void dt_vtu_doc_text(dt_vtu_doc *d, const char *fmt, ...) {
  va_list ap;
  if (d->n >= DT_VTU_DOC_MAX) {
    d->overflow = 1;
    return;
  }
  memset(&d->item[d->n], 0, sizeof d->item[d->n]);
  va_start(ap, fmt);
  if (vsnprintf(d->item[d->n].text, sizeof d->item[d->n].text, fmt, ap) >=
      (int)sizeof d->item[d->n].text)
    d->overflow = 1;
  va_end(ap);
  d->n++;
}

void dt_vtu_doc_array(dt_vtu_doc *d, const char *type, size_t size, const char *name, int ncomp,
                      const char *const *comp_names, const void *data, size_t n) {
  dt_vtu_item *it;
  if (d->n >= DT_VTU_DOC_MAX) {
    d->overflow = 1;
    return;
  }
  it = &d->item[d->n++];
  memset(it, 0, sizeof *it);
  it->type = type, it->size = size, it->name = name, it->ncomp = ncomp;
  it->comp_names = comp_names, it->data = data, it->n = n;
}

/* One array's DataArray element. Arrays sit one level below the tag that opens their
 * section (or at the level of the array before them). */
static void write_array_tag(FILE *fp, const dt_vtu_item *it, int indent, uint64_t offset) {
  int c;
  fprintf(fp, "%*s<DataArray type=\"%s\"", indent, "", it->type);
  if (it->name) fprintf(fp, " Name=\"%s\"", it->name);
  if (it->ncomp > 0) fprintf(fp, " NumberOfComponents=\"%d\"", it->ncomp);
  for (c = 0; it->comp_names && c < it->ncomp; c++)
    fprintf(fp, " ComponentName%d=\"%s\"", c, it->comp_names[c]);
  if (it->tuples > 0) fprintf(fp, " NumberOfTuples=\"%d\"", it->tuples);
  fprintf(fp, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
}

/* A document and the VTKFile version it declares. */
typedef struct doc_version {
  const dt_vtu_doc *d;
  const char *version;
} doc_version;

static void write_doc(FILE *fp, const void *arg) {
  const dt_vtu_doc *d = ((const doc_version *)arg)->d;
  uint64_t offset = 0;
  int i, indent = 0;
  fprintf(fp,
          "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"%s\" "
          "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n",
          ((const doc_version *)arg)->version);
  for (i = 0; i < d->n; i++) {
    const dt_vtu_item *it = &d->item[i];
    if (it->type == NULL) {
      fputs(it->text, fp);
      indent = leading_spaces(it->text) + 2;
      continue;
    }
    write_array_tag(fp, it, indent, offset);
    offset += sizeof(uint64_t) + (uint64_t)it->size * it->n;
  }
  fputs("  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n   _", fp);
  /* Whole arrays at once; stdio passes large writes straight to the kernel. Short writes
   * leave ferror set, which dt_output_commit turns into DT_ERR_IO. */
  for (i = 0; i < d->n; i++) {
    const dt_vtu_item *it = &d->item[i];
    uint64_t bytes = (uint64_t)it->size * it->n;
    if (it->type == NULL) continue;
    fwrite(&bytes, sizeof bytes, 1, fp);
    if (it->n > 0) fwrite(it->data, it->size, it->n, fp);
  }
  fputs("\n  </AppendedData>\n</VTKFile>\n", fp);
}

dt_status dt_vtu_doc_write_version(const dt_vtu_doc *d, const char *version, const char *path,
                                   dt_ctx *ctx) {
  dt_status rc = DT_OK;
  doc_version dv = {d, version};
  DT_CHECK(!d->overflow, ctx, DT_ERR_INTERNAL, "the VTU document of '%s' has too many parts", path);
  DT_TRY(dt_output_write_file(path, write_doc, &dv, ctx));
cleanup:
  return rc;
}

dt_status dt_vtu_doc_write(const dt_vtu_doc *d, const char *path, dt_ctx *ctx) {
  return dt_vtu_doc_write_version(d, "1.0", path, ctx);
}

/* ---- the mesh, once per run -------------------------------------------------------------- */

void dt_vtu_mesh_free(dt_vtu_mesh *g) {
  dt_free(g->x);
  dt_free(g->elem_ptr);
  dt_free(g->vtk_conn);
  dt_free(g->vtk_offsets);
  dt_free(g->vtk_types);
  dt_free(g->elem_id);
  dt_free(g->section);
  memset(g, 0, sizeof *g);
}

dt_status dt_vtu_mesh_build(dt_vtu_mesh *g, const dt_model *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int ne = m->n_elems;
  const size_t nn = (size_t)m->n_nodes, n3 = 3 * nn;
  const size_t nc = ne > 0 ? (size_t)m->elem_ptr[ne] : 0;
  int e, k;
  memset(g, 0, sizeof *g);
  for (e = 0; e < ne; e++)
    DT_CHECK(dt_vtk_cell_type(m->elem_type[e]) > 0, ctx, DT_ERR_INTERNAL,
             "element %d has type %d, which the VTU writer does not know", e, m->elem_type[e]);
  g->n_nodes = m->n_nodes;
  g->n_elems = ne;
  DT_ALLOC(g->x, n3, ctx, "the VTU node coordinates");
  DT_ALLOC(g->elem_ptr, ne + 1, ctx, "the VTU element offsets");
  DT_ALLOC(g->vtk_conn, nc, ctx, "the VTU connectivity");
  DT_ALLOC(g->vtk_offsets, ne, ctx, "the VTU cell offsets");
  DT_ALLOC(g->vtk_types, ne, ctx, "the VTU cell types");
  if (n3 > 0) memcpy(g->x, m->x, n3 * sizeof *g->x);
  if (ne > 0) memcpy(g->elem_ptr, m->elem_ptr, (size_t)(ne + 1) * sizeof *g->elem_ptr);
  for (e = 0; e < ne; e++) {
    for (k = 0; k < m->elem_ptr[e + 1] - m->elem_ptr[e]; k++)
      g->vtk_conn[m->elem_ptr[e] + k] = m->conn[m->elem_ptr[e] + vtk_local(m->elem_type[e], k)];
    /* VTK offsets are the END of each cell's connectivity: elem_ptr[1..n]. */
    g->vtk_offsets[e] = m->elem_ptr[e + 1];
    g->vtk_types[e] = (uint8_t)dt_vtk_cell_type(m->elem_type[e]);
  }
  if (m->elem_id) {
    DT_ALLOC(g->elem_id, ne, ctx, "the VTU element ids");
    if (ne > 0) memcpy(g->elem_id, m->elem_id, (size_t)ne * sizeof *g->elem_id);
  }
  if (m->elem_section) {
    DT_ALLOC(g->section, ne, ctx, "the VTU element sections");
    for (e = 0; e < ne; e++) g->section[e] = m->elem_section[e];
  }
  g->built = 1;
cleanup:
  if (rc != DT_OK) dt_vtu_mesh_free(g);
  return rc;
}

/* ---- one increment: the caller's snapshot, the thread's write ---------------------------- */

#define JOB_BUF(j, field, count)                                                                   \
  DT_TRY(dt_output_reserve((void **)&(j)->field, &(j)->cap_##field,                                \
                           (size_t)(count) * sizeof *(j)->field, ctx, "a VTU write's " #field))

/* memcpy of n bytes in 1 MiB pieces over `threads` OpenMP threads when it is large: a device
 * run's snapshot of its fields (hundreds of MB at millions of points), which its idle host
 * cores copy several times faster than one. */
static void copy_bytes(void *dst, const void *src, size_t n, int threads) {
  const size_t piece = (size_t)1 << 20;
  const long pieces = (long)((n + piece - 1) / piece);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && pieces > 4)
  for (long k = 0; k < pieces; k++) {
    const size_t at = (size_t)k * piece;
    memcpy((char *)dst + at, (const char *)src + at, n - at < piece ? n - at : piece);
  }
}

/* Copy n values of src into the job buffer `field`. */
#define JOB_COPY(j, field, src, count)                                                             \
  do {                                                                                             \
    JOB_BUF(j, field, count);                                                                      \
    copy_bytes((j)->field, (src), (size_t)(count) * sizeof *(j)->field, (j)->threads);             \
  } while (0)

size_t dt_vtu_job_bytes(const dt_vtu_job *j) {
  size_t bytes = 0;
#define DT_VTU_JOB_BYTES(type, name) bytes += j->cap_##name;
  DT_VTU_JOB_BUFFERS(DT_VTU_JOB_BYTES)
#undef DT_VTU_JOB_BYTES
  return bytes;
}

void dt_vtu_job_free(dt_vtu_job *j) {
#define DT_VTU_JOB_FREE(type, name) dt_free(j->name);
  DT_VTU_JOB_BUFFERS(DT_VTU_JOB_FREE)
#undef DT_VTU_JOB_FREE
  dt_free(j->path);
  dt_free(j->points_path);
  dt_free(j->pvd_path);
  dt_free(j->pvd);
  dt_free(j->dir);
  memset(j, 0, sizeof *j);
}

static dt_status job_paths(dt_vtu_job *j, const char *dir, int inc, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char name[sizeof j->pvd[0].file];
  DT_FREE(j->path);
  DT_FREE(j->points_path);
  snprintf(name, sizeof name, "increment_%04d.vtu", inc);
  DT_TRY(dt_output_path(dir, name, &j->path, ctx));
  if (j->points) {
    snprintf(name, sizeof name, "increment_%04d_points.vtu", inc);
    DT_TRY(dt_output_path(dir, name, &j->points_path, ctx));
  }
  if (j->pvd_path == NULL) DT_TRY(dt_output_path(dir, "results.pvd", &j->pvd_path, ctx));
cleanup:
  return rc;
}

dt_status dt_vtu_job_fill(dt_vtu_job *j, const char *dir, const dt_model *m, const dt_fields *f,
                          int vtu, int dat, const dt_frd *frd, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const unsigned want = vtu ? m->output.fields : 0u;
  const int have_qp = f->qp_ptr != NULL && f->n_elems > 0;
  const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
  size_t nq;
  j->has_u = (want & DT_OUT_U) && f->u;
  j->has_rf = (want & DT_OUT_RF) && f->rf;
  j->has_s = (want & DT_OUT_S) && f->qp_stress && have_qp;
  j->has_e = (want & DT_OUT_E) && f->qp_strain && have_qp;
  j->has_peeq = (want & DT_OUT_PEEQ) && f->qp_peeq && have_qp;
  j->has_mises = (want & DT_OUT_MISES) && f->qp_stress && have_qp;
  /* The point cloud carries whatever point fields were downloaded, as before. */
  j->points = vtu && m->output.points && (f->qp_stress || f->qp_strain || f->qp_peeq);
  j->vtu = vtu;
  j->dat = dat;
  j->frd = frd != NULL;
  j->model = m;
  memset(j->seconds, 0, sizeof j->seconds); /* a job skipped after a failed write adds nothing */
  j->copied_u = (j->has_u || dat || frd) && f->u;
  j->copied_rf = (j->has_rf || dat) && f->rf;
  DT_CHECK(!(j->has_u || j->has_rf) || f->n_nodes == m->n_nodes, ctx, DT_ERR_INTERNAL,
           "fields have %d nodes, the model %d", f->n_nodes, m->n_nodes);
  DT_CHECK(!have_qp || (f->n_elems == m->n_elems && f->qp_ptr[f->n_elems] == f->n_qp), ctx,
           DT_ERR_INTERNAL, "fields have %d elements and %d points, the model %d elements",
           f->n_elems, f->n_qp, m->n_elems);
  DT_CHECK(!j->points || (have_qp && f->qp_x != NULL), ctx, DT_ERR_INTERNAL,
           "no integration points");
  DT_CHECK(!j->points || m->elem_id != NULL, ctx, DT_ERR_INTERNAL,
           "the point cloud needs the model's element ids");
  j->n_nodes = m->n_nodes;
  j->n_elems = m->n_elems;
  j->n_qp = have_qp ? f->n_qp : 0;
  nq = (size_t)j->n_qp;
  j->time = f->time;
  j->load_factor = f->load_factor;
  j->step = f->step;
  j->increment = f->increment;
  j->q_s = have_qp && f->qp_stress;
  j->q_e = have_qp && f->qp_strain;
  j->q_peeq = have_qp && f->qp_peeq;
  if (j->copied_u) JOB_COPY(j, u, f->u, 3 * nn);
  if (j->copied_rf) JOB_COPY(j, rf, f->rf, 3 * nn);
  if (have_qp) JOB_COPY(j, qp_ptr, f->qp_ptr, ne + 1);
  if (j->q_s) JOB_COPY(j, qp_stress, f->qp_stress, 6 * nq);
  if (j->q_e) JOB_COPY(j, qp_strain, f->qp_strain, 6 * nq);
  if (j->q_peeq) JOB_COPY(j, qp_peeq, f->qp_peeq, nq);
  if (j->has_mises || (j->points && j->q_s)) JOB_BUF(j, qp_mises, nq);
  if (j->has_s) {
    JOB_BUF(j, c_s, 6 * ne);
    JOB_BUF(j, n_s, 6 * nn);
  }
  if (j->has_e) {
    JOB_BUF(j, c_e, 6 * ne);
    JOB_BUF(j, n_e, 6 * nn);
  }
  if (j->has_peeq) {
    JOB_BUF(j, c_peeq, ne);
    JOB_BUF(j, n_peeq, nn);
  }
  if (j->has_mises) {
    JOB_BUF(j, c_mises, ne);
    JOB_BUF(j, n_mises, nn);
  }
  if (j->points) {
    JOB_COPY(j, qp_x, f->qp_x, 3 * nq);
    JOB_BUF(j, cloud_conn, nq);
    JOB_BUF(j, cloud_offsets, nq);
    JOB_BUF(j, cloud_elem_id, nq);
    JOB_BUF(j, cloud_point, nq);
    JOB_BUF(j, cloud_types, nq);
  }
  if (frd) DT_TRY(dt_frd_job_fill(frd, j, m, ctx));
  DT_TRY(job_paths(j, dir, f->global_increment, ctx));
  if (j->dir == NULL) {
    DT_ALLOC(j->dir, strlen(dir) + 1, ctx, "the output directory of a write");
    memcpy(j->dir, dir, strlen(dir) + 1);
  }
cleanup:
  return rc;
}

/* results.dat's blocks from the job's copies, as dt_dat_append writes them from the fields. */
static dt_status append_dat(const dt_vtu_job *j, dt_ctx *ctx) {
  dt_fields f;
  memset(&f, 0, sizeof f);
  f.step = j->step;
  f.increment = j->increment;
  f.load_factor = j->load_factor;
  f.time = j->time;
  f.n_nodes = j->n_nodes;
  f.u = j->copied_u ? j->u : NULL;
  f.rf = j->copied_rf ? j->rf : NULL;
  f.n_elems = j->n_elems;
  f.n_qp = j->n_qp;
  f.qp_ptr = j->n_qp > 0 ? j->qp_ptr : NULL;
  f.qp_stress = j->q_s ? j->qp_stress : NULL;
  f.qp_strain = j->q_e ? j->qp_strain : NULL;
  f.qp_peeq = j->q_peeq ? j->qp_peeq : NULL;
  return dt_dat_append(j->dir, j->model, &f, ctx);
}

/* Element means into cell, then nodal means of those into nodal. */
static void average(dt_vtu_job *j, const double *qp, int ncomp, double *cell, double *nodal) {
  dt_average_elements(j->n_elems, j->qp_ptr, qp, ncomp, cell);
  dt_average_nodes_gather(j->adj, j->qp_ptr, cell, ncomp, nodal);
}

/* A FieldData array of one value (NumberOfTuples="1", as VTK writes field data). */
static void field_value(dt_vtu_doc *d, const char *type, size_t size, const char *name,
                        const void *v) {
  dt_vtu_doc_array(d, type, size, name, 0, NULL, v, 1);
  if (!d->overflow) d->item[d->n - 1].tuples = 1;
}

static dt_status write_mesh_vtu(const dt_vtu_mesh *g, const dt_vtu_job *j, dt_ctx *ctx) {
  const size_t nn = (size_t)g->n_nodes, ne = (size_t)g->n_elems;
  const char *const *voigt = dt_vtu_voigt_names, *const *xyz = dt_vtu_xyz_names;
  dt_vtu_doc doc, *d = &doc; /* 16 kB, on the stack: the writer thread does not allocate */
  dt_status rc = DT_OK;
  d->n = d->overflow = 0;
  dt_vtu_doc_text(d, "    <FieldData>\n");
  field_value(d, "Float64", 8, "TIME", &j->time);
  field_value(d, "Int32", 4, "STEP", &j->step);
  field_value(d, "Int32", 4, "INCREMENT", &j->increment);
  dt_vtu_doc_text(d, "    </FieldData>\n    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n",
                  g->n_nodes, g->n_elems);
  dt_vtu_doc_text(d, "      <PointData%s>\n", j->has_u ? " Vectors=\"U\"" : "");
  if (j->has_u) dt_vtu_doc_array(d, "Float64", 8, "U", 3, xyz, j->u, 3 * nn);
  if (j->has_rf) dt_vtu_doc_array(d, "Float64", 8, "RF", 3, xyz, j->rf, 3 * nn);
  if (j->has_s) dt_vtu_doc_array(d, "Float64", 8, "S", 6, voigt, j->n_s, 6 * nn);
  if (j->has_e) dt_vtu_doc_array(d, "Float64", 8, "E", 6, voigt, j->n_e, 6 * nn);
  if (j->has_peeq) dt_vtu_doc_array(d, "Float64", 8, "PEEQ", 1, NULL, j->n_peeq, nn);
  if (j->has_mises) dt_vtu_doc_array(d, "Float64", 8, "MISES", 1, NULL, j->n_mises, nn);
  dt_vtu_doc_text(d, "      </PointData>\n      <CellData>\n");
  if (j->has_s) dt_vtu_doc_array(d, "Float64", 8, "S", 6, voigt, j->c_s, 6 * ne);
  if (j->has_e) dt_vtu_doc_array(d, "Float64", 8, "E", 6, voigt, j->c_e, 6 * ne);
  if (j->has_peeq) dt_vtu_doc_array(d, "Float64", 8, "PEEQ", 1, NULL, j->c_peeq, ne);
  if (j->has_mises) dt_vtu_doc_array(d, "Float64", 8, "MISES", 1, NULL, j->c_mises, ne);
  if (g->elem_id) dt_vtu_doc_array(d, "Int64", 8, "elem_id", 0, NULL, g->elem_id, ne);
  if (g->section) dt_vtu_doc_array(d, "Int32", 4, "section", 0, NULL, g->section, ne);
  dt_vtu_doc_text(d, "      </CellData>\n      <Points>\n");
  dt_vtu_doc_array(d, "Float64", 8, NULL, 3, NULL, g->x, 3 * nn);
  dt_vtu_doc_text(d, "      </Points>\n      <Cells>\n");
  dt_vtu_doc_array(d, "Int64", 8, "connectivity", 0, NULL, g->vtk_conn,
                   ne > 0 ? (size_t)g->elem_ptr[ne] : 0);
  dt_vtu_doc_array(d, "Int64", 8, "offsets", 0, NULL, g->vtk_offsets, ne);
  dt_vtu_doc_array(d, "UInt8", 1, "types", 0, NULL, g->vtk_types, ne);
  dt_vtu_doc_text(d, "      </Cells>\n    </Piece>\n");
  DT_TRY(dt_vtu_doc_write(d, j->path, ctx));
cleanup:
  return rc;
}

static dt_status write_vtus(const dt_vtu_mesh *g, dt_vtu_job *j, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK(g->built && g->n_nodes == j->n_nodes && g->n_elems == j->n_elems, ctx, DT_ERR_INTERNAL,
           "the VTU write of '%s' does not match the mesh", j->path);
  /* Mises at each point, then averaged: averaging stresses first would understate it
   * where the stress state varies inside an element. */
  if (j->has_mises || (j->points && j->q_s)) {
#pragma omp taskloop grainsize(16384)
    for (int q = 0; q < j->n_qp; q++) j->qp_mises[q] = dt_mises(j->qp_stress + (size_t)6 * q);
  }
  if (j->has_s) average(j, j->qp_stress, 6, j->c_s, j->n_s);
  if (j->has_e) average(j, j->qp_strain, 6, j->c_e, j->n_e);
  if (j->has_peeq) average(j, j->qp_peeq, 1, j->c_peeq, j->n_peeq);
  if (j->has_mises) average(j, j->qp_mises, 1, j->c_mises, j->n_mises);
  DT_TRY(write_mesh_vtu(g, j, ctx));
  if (j->points) DT_TRY(dt_vtu_points_write(g, j, ctx));
  /* Last: the collection lists a file only once it is complete. */
  DT_TRY(dt_pvd_write(j->pvd_path, j->pvd, j->n_pvd, ctx));
cleanup:
  return rc;
}

/* One kind of file of job j, timed into j->seconds[kind]. */
static dt_status write_kind(const dt_vtu_mesh *g, dt_frd *frd, dt_vtu_job *j, int kind,
                            dt_ctx *ctx) {
  dt_status st = DT_OK;
  double t0 = dt_seconds();
  if (kind == DT_WRITE_VTU && j->vtu) st = write_vtus(g, j, ctx);
  if (kind == DT_WRITE_DAT && j->dat) st = append_dat(j, ctx);
  if (kind == DT_WRITE_FRD && j->frd) st = dt_frd_job_run(frd, j, ctx);
  j->seconds[kind] = dt_seconds() - t0;
  return st;
}

/* The job's kinds of file at once, each an OpenMP task of a team of j->threads, whose other
 * threads take the tasks of each kind's parallel parts (nodal sums, formatting): they share
 * only what they read (the snapshot, the model, the node lists). The first failure in the
 * serial order (VTUs, results.dat, the .frd) is the job's. */
static dt_status job_run_team(const dt_vtu_mesh *g, dt_frd *frd, dt_vtu_job *j, dt_ctx *ctx) {
  dt_status st[DT_WRITE_KINDS] = {DT_OK, DT_OK, DT_OK};
  dt_ctx c[DT_WRITE_KINDS];
  memset(c, 0, sizeof c);
#pragma omp parallel num_threads(j->threads)
#pragma omp single
  for (int k = 0; k < DT_WRITE_KINDS; k++) {
#pragma omp task
    st[k] = write_kind(g, frd, j, k, &c[k]);
  }
  for (int k = 0; k < DT_WRITE_KINDS; k++)
    if (st[k] != DT_OK) {
      if (ctx != NULL && ctx->code == DT_OK) *ctx = c[k];
      return st[k];
    }
  return DT_OK;
}

dt_status dt_vtu_job_run(const dt_vtu_mesh *g, dt_frd *frd, dt_vtu_job *j, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CHECK((!j->vtu && !j->frd) || (j->adj != NULL && j->adj->built), ctx, DT_ERR_INTERNAL,
           "a VTU or .frd write without the mesh's node lists");
  if (j->threads > 1) return job_run_team(g, frd, j, ctx);
  /* The .dat and the .frd after the VTUs: a failed VTU write stops the job before them, as it
   * stops every later job. */
  for (int k = 0; k < DT_WRITE_KINDS; k++) DT_TRY(write_kind(g, frd, j, k, ctx));
cleanup:
  return rc;
}

typedef struct pvd_job {
  const dt_pvd_entry *e;
  int n;
} pvd_job;

static void write_pvd_job(FILE *fp, const void *arg) {
  const pvd_job *j = arg;
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
              "byte_order=\"LittleEndian\">\n  <Collection>\n");
  for (int i = 0; i < j->n; i++)
    fprintf(fp, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n",
            j->e[i].time, j->e[i].file);
  fprintf(fp, "  </Collection>\n</VTKFile>\n");
}

dt_status dt_pvd_write(const char *path, const dt_pvd_entry *e, int n, dt_ctx *ctx) {
  pvd_job job;
  job.e = e, job.n = n;
  return dt_output_write_file(path, write_pvd_job, &job, ctx);
}
