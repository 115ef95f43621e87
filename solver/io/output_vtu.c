/* VTK XML UnstructuredGrid (.vtu, ASCII) of one increment, and the .pvd collection.
 *
 * ASCII with %.17g keeps every double exact and the writer trivial; binary-appended base64
 * would cut the size by about 3x and can replace write_doubles() later without touching the
 * callers. Node orders of element.h (CalculiX/Abaqus) equal VTK's for every element we have:
 * hex8 (bottom 1-2-3-4, top 5-6-7-8), tet4, tet10 (mid-edges (1-2),(2-3),(3-1),(1-4),(2-4),
 * (3-4) = VTK_QUADRATIC_TETRA's (0,1),(1,2),(2,0),(0,3),(1,3),(2,3)), quad4, tri3, quad8
 * (VTK_QUADRATIC_QUAD) and quad9 (VTK_BIQUADRATIC_QUAD: mid-edges, then the centre); so the
 * connectivity is written as is. quad16 is a VTK_LAGRANGE_QUADRILATERAL, whose edges 3 and
 * 4 run in +x and +y (ours run around the element) and whose interior is row by row: its
 * nodes are permuted (vtk_local). To add an element type, add its VTK code below and check
 * its node order against vtkCellType.h / the VTK file-format figures. */
#include "io/output_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int dt_vtk_cell_type(int elem_type) {
  switch (elem_type) {
  case DT_ELEM_HEX8: return 12;  /* VTK_HEXAHEDRON */
  case DT_ELEM_TET4: return 10;  /* VTK_TETRA */
  case DT_ELEM_TET10: return 24; /* VTK_QUADRATIC_TETRA */
  case DT_ELEM_QUAD4: return 9;  /* VTK_QUAD */
  case DT_ELEM_TRI3: return 5;   /* VTK_TRIANGLE */
  case DT_ELEM_QUAD8: return 23; /* VTK_QUADRATIC_QUAD */
  case DT_ELEM_QUAD9: return 28; /* VTK_BIQUADRATIC_QUAD */
  case DT_ELEM_QUAD16: return 70; /* VTK_LAGRANGE_QUADRILATERAL */
  }
  return -1;
}

/* Our local node written as VTK's node k of the cell. */
static int vtk_local(int elem_type, int k) {
  static const int quad16[16] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 8, 11, 10, 12, 13, 15, 14};
  return elem_type == DT_ELEM_QUAD16 ? quad16[k] : k;
}

/* Names of our Voigt components, written as ComponentName attributes: ParaView's own
 * 6-component order is XX,YY,ZZ,XY,YZ,XZ, so the names keep ours unambiguous. */
static const char *const voigt_names[6] = {"XX", "YY", "ZZ", "XY", "XZ", "YZ"};
static const char *const xyz_names[3] = {"X", "Y", "Z"};

/* Derived arrays of one write: which fields go out, and their element / nodal averages. */
typedef struct vtu_data {
  int u, rf, s, e, peeq, mises;
  double *qp_mises;                    /* n_qp */
  double *n_s, *n_e, *n_peeq, *n_mises; /* nodal */
  double *c_s, *c_e, *c_peeq, *c_mises; /* cell */
} vtu_data;

static void vtu_data_free(vtu_data *d) {
  dt_free(d->qp_mises);
  dt_free(d->n_s);
  dt_free(d->n_e);
  dt_free(d->n_peeq);
  dt_free(d->n_mises);
  dt_free(d->c_s);
  dt_free(d->c_e);
  dt_free(d->c_peeq);
  dt_free(d->c_mises);
  memset(d, 0, sizeof *d);
}

/* Element and nodal averages of one point field. */
static dt_status average(const dt_model *m, const dt_fields *f, const double *qp, int ncomp,
                         double **cell, double **nodal, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const size_t nc = (size_t)m->n_elems * ncomp, nn = (size_t)m->n_nodes * ncomp;
  DT_ALLOC(*cell, nc, ctx, "element field values");
  DT_ALLOC(*nodal, nn, ctx, "nodal field values");
  dt_fields_element_average(f, qp, ncomp, *cell);
  DT_TRY(dt_fields_nodal_average(m, f, qp, ncomp, *nodal, ctx));
cleanup:
  return rc;
}

static dt_status vtu_data_build(const dt_model *m, const dt_fields *f, vtu_data *d, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const unsigned want = m->output.fields;
  const int have_qp = f->qp_ptr != NULL && f->n_elems > 0;
  int q;
  d->u = (want & DT_OUT_U) && f->u;
  d->rf = (want & DT_OUT_RF) && f->rf;
  d->s = (want & DT_OUT_S) && f->qp_stress && have_qp;
  d->e = (want & DT_OUT_E) && f->qp_strain && have_qp;
  d->peeq = (want & DT_OUT_PEEQ) && f->qp_peeq && have_qp;
  d->mises = (want & DT_OUT_MISES) && f->qp_stress && have_qp;
  DT_CHECK(!(d->u || d->rf) || f->n_nodes == m->n_nodes, ctx, DT_ERR_INTERNAL,
           "fields have %d nodes, the model %d", f->n_nodes, m->n_nodes);
  DT_CHECK(!have_qp || (f->n_elems == m->n_elems && f->qp_ptr[f->n_elems] == f->n_qp), ctx,
           DT_ERR_INTERNAL, "fields have %d elements and %d points, the model %d elements",
           f->n_elems, f->n_qp, m->n_elems);
  if (d->s) DT_TRY(average(m, f, f->qp_stress, 6, &d->c_s, &d->n_s, ctx));
  if (d->e) DT_TRY(average(m, f, f->qp_strain, 6, &d->c_e, &d->n_e, ctx));
  if (d->peeq) DT_TRY(average(m, f, f->qp_peeq, 1, &d->c_peeq, &d->n_peeq, ctx));
  if (d->mises) {
    /* Mises at each point, then averaged: averaging stresses first would understate it
     * where the stress state varies inside an element. */
    DT_ALLOC(d->qp_mises, f->n_qp, ctx, "point von Mises stresses");
    for (q = 0; q < f->n_qp; q++) d->qp_mises[q] = dt_mises(f->qp_stress + (size_t)6 * q);
    DT_TRY(average(m, f, d->qp_mises, 1, &d->c_mises, &d->n_mises, ctx));
  }
cleanup:
  return rc;
}

void dt_vtu_write_doubles(FILE *fp, const char *name, const double *v, size_t ntuple, int ncomp,
                          const char *const *comp_names) {
  size_t i;
  int c;
  fprintf(fp, "        <DataArray type=\"Float64\"");
  if (name) fprintf(fp, " Name=\"%s\"", name);
  fprintf(fp, " NumberOfComponents=\"%d\"", ncomp);
  for (c = 0; comp_names && c < ncomp; c++) fprintf(fp, " ComponentName%d=\"%s\"", c, comp_names[c]);
  fprintf(fp, " format=\"ascii\">\n");
  for (i = 0; i < ntuple; i++) {
    fputs("         ", fp);
    for (c = 0; c < ncomp; c++) fprintf(fp, " %.17g", v[i * ncomp + c]);
    fputc('\n', fp);
  }
  fprintf(fp, "        </DataArray>\n");
}

static void write_point_data(FILE *fp, const dt_model *m, const dt_fields *f, const vtu_data *d) {
  const size_t n = (size_t)m->n_nodes;
  fprintf(fp, "      <PointData%s>\n", d->u ? " Vectors=\"U\"" : "");
  if (d->u) dt_vtu_write_doubles(fp, "U", f->u, n, 3, xyz_names);
  if (d->rf) dt_vtu_write_doubles(fp, "RF", f->rf, n, 3, xyz_names);
  if (d->s) dt_vtu_write_doubles(fp, "S", d->n_s, n, 6, voigt_names);
  if (d->e) dt_vtu_write_doubles(fp, "E", d->n_e, n, 6, voigt_names);
  if (d->peeq) dt_vtu_write_doubles(fp, "PEEQ", d->n_peeq, n, 1, NULL);
  if (d->mises) dt_vtu_write_doubles(fp, "MISES", d->n_mises, n, 1, NULL);
  fprintf(fp, "      </PointData>\n");
}

static void write_cell_data(FILE *fp, const dt_model *m, const vtu_data *d) {
  const size_t n = (size_t)m->n_elems;
  size_t e;
  fprintf(fp, "      <CellData>\n");
  if (d->s) dt_vtu_write_doubles(fp, "S", d->c_s, n, 6, voigt_names);
  if (d->e) dt_vtu_write_doubles(fp, "E", d->c_e, n, 6, voigt_names);
  if (d->peeq) dt_vtu_write_doubles(fp, "PEEQ", d->c_peeq, n, 1, NULL);
  if (d->mises) dt_vtu_write_doubles(fp, "MISES", d->c_mises, n, 1, NULL);
  if (m->elem_id) {
    fprintf(fp, "        <DataArray type=\"Int64\" Name=\"elem_id\" format=\"ascii\">\n");
    for (e = 0; e < n; e++) fprintf(fp, "          %lld\n", (long long)m->elem_id[e]);
    fprintf(fp, "        </DataArray>\n");
  }
  if (m->elem_section) {
    fprintf(fp, "        <DataArray type=\"Int32\" Name=\"section\" format=\"ascii\">\n");
    for (e = 0; e < n; e++) fprintf(fp, "          %d\n", m->elem_section[e]);
    fprintf(fp, "        </DataArray>\n");
  }
  fprintf(fp, "      </CellData>\n");
}

static void write_cells(FILE *fp, const dt_model *m) {
  int e, k;
  fprintf(fp, "      <Cells>\n        <DataArray type=\"Int64\" Name=\"connectivity\" "
              "format=\"ascii\">\n");
  for (e = 0; e < m->n_elems; e++) {
    fputs("         ", fp);
    for (k = 0; k < m->elem_ptr[e + 1] - m->elem_ptr[e]; k++)
      fprintf(fp, " %d", m->conn[m->elem_ptr[e] + vtk_local(m->elem_type[e], k)]);
    fputc('\n', fp);
  }
  fprintf(fp, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" "
              "format=\"ascii\">\n");
  /* VTK offsets are the END of each cell's connectivity: elem_ptr[1..n]. */
  for (e = 0; e < m->n_elems; e++) fprintf(fp, "          %d\n", m->elem_ptr[e + 1]);
  fprintf(fp, "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" "
              "format=\"ascii\">\n");
  for (e = 0; e < m->n_elems; e++) fprintf(fp, "          %d\n", dt_vtk_cell_type(m->elem_type[e]));
  fprintf(fp, "        </DataArray>\n      </Cells>\n");
}

static void write_vtu(FILE *fp, const dt_model *m, const dt_fields *f, const vtu_data *d) {
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
              "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n");
  fprintf(fp, "    <FieldData>\n"
              "      <DataArray type=\"Float64\" Name=\"TIME\" NumberOfTuples=\"1\" "
              "format=\"ascii\">%.17g</DataArray>\n"
              "      <DataArray type=\"Int32\" Name=\"STEP\" NumberOfTuples=\"1\" "
              "format=\"ascii\">%d</DataArray>\n"
              "      <DataArray type=\"Int32\" Name=\"INCREMENT\" NumberOfTuples=\"1\" "
              "format=\"ascii\">%d</DataArray>\n    </FieldData>\n",
          f->time, f->step, f->increment);
  fprintf(fp, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", m->n_nodes, m->n_elems);
  write_point_data(fp, m, f, d);
  write_cell_data(fp, m, d);
  fprintf(fp, "      <Points>\n");
  dt_vtu_write_doubles(fp, NULL, m->x, (size_t)m->n_nodes, 3, NULL);
  fprintf(fp, "      </Points>\n");
  write_cells(fp, m);
  fprintf(fp, "    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
}

typedef struct vtu_job {
  const dt_model *m;
  const dt_fields *f;
  const vtu_data *d;
} vtu_job;

static void write_vtu_job(FILE *fp, const void *arg) {
  const vtu_job *j = arg;
  write_vtu(fp, j->m, j->f, j->d);
}

dt_status dt_vtu_write(const char *path, const dt_model *m, const dt_fields *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  vtu_data d;
  vtu_job job;
  int e;
  memset(&d, 0, sizeof d);
  for (e = 0; e < m->n_elems; e++)
    DT_CHECK(dt_vtk_cell_type(m->elem_type[e]) > 0, ctx, DT_ERR_INTERNAL,
             "element %d has type %d, which the VTU writer does not know", e, m->elem_type[e]);
  DT_TRY(vtu_data_build(m, f, &d, ctx));
  job.m = m, job.f = f, job.d = &d;
  DT_TRY(dt_output_write_file(path, write_vtu_job, &job, ctx));
cleanup:
  vtu_data_free(&d);
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
