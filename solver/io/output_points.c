/* Integration-point results as a VTU point cloud: one VTK_VERTEX per point, with the values
 * the material law computed there (no averaging). ParaView shows it next to the mesh VTU
 * ("Point Gaussian" representation); scripts read the raw point values from it. */
#include "io/output_impl.h"

#include <errno.h>
#include <string.h>

static const char *const voigt[6] = {"XX", "YY", "ZZ", "XY", "XZ", "YZ"};

static void write_cloud(FILE *fp, const dt_model *m, const dt_fields *f, const double *mises) {
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
              "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n");
  fprintf(fp, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n      <PointData>\n", f->n_qp,
          f->n_qp);
  if (f->qp_stress) dt_vtu_write_doubles(fp, "S", f->qp_stress, (size_t)f->n_qp, 6, voigt);
  if (f->qp_strain) dt_vtu_write_doubles(fp, "E", f->qp_strain, (size_t)f->n_qp, 6, voigt);
  if (f->qp_peeq) dt_vtu_write_doubles(fp, "PEEQ", f->qp_peeq, (size_t)f->n_qp, 1, NULL);
  if (mises) dt_vtu_write_doubles(fp, "MISES", mises, (size_t)f->n_qp, 1, NULL);
  fprintf(fp, "        <DataArray type=\"Int64\" Name=\"elem_id\" format=\"ascii\">\n");
  for (int e = 0; e < m->n_elems; e++)
    for (int q = f->qp_ptr[e]; q < f->qp_ptr[e + 1]; q++) fprintf(fp, " %lld", (long long)m->elem_id[e]);
  fprintf(fp, "\n        </DataArray>\n        <DataArray type=\"Int32\" Name=\"point\" format=\"ascii\">\n");
  for (int e = 0; e < m->n_elems; e++)
    for (int q = f->qp_ptr[e]; q < f->qp_ptr[e + 1]; q++) fprintf(fp, " %d", q - f->qp_ptr[e] + 1);
  fprintf(fp, "\n        </DataArray>\n      </PointData>\n      <Points>\n");
  dt_vtu_write_doubles(fp, NULL, f->qp_x, (size_t)f->n_qp, 3, NULL);
  fprintf(fp, "      </Points>\n      <Cells>\n        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  for (int q = 0; q < f->n_qp; q++) fprintf(fp, " %d", q);
  fprintf(fp, "\n        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (int q = 0; q < f->n_qp; q++) fprintf(fp, " %d", q + 1);
  fprintf(fp, "\n        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (int q = 0; q < f->n_qp; q++) fputs(" 1", fp); /* VTK_VERTEX */
  fprintf(fp, "\n        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
}

typedef struct cloud_job {
  const dt_model *m;
  const dt_fields *f;
  const double *mises;
} cloud_job;

static void write_cloud_job(FILE *fp, const void *arg) {
  const cloud_job *j = arg;
  write_cloud(fp, j->m, j->f, j->mises);
}

dt_status dt_vtu_points_write(const char *path, const dt_model *m, const dt_fields *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double *mises = NULL;
  cloud_job job;
  DT_CHECK(f->qp_x != NULL && f->qp_ptr != NULL, ctx, DT_ERR_INTERNAL, "no integration points");
  if (f->qp_stress) {
    DT_ALLOC(mises, f->n_qp, ctx, "point Mises stress");
    for (int q = 0; q < f->n_qp; q++) mises[q] = dt_mises(f->qp_stress + 6 * (size_t)q);
  }
  job.m = m, job.f = f, job.mises = mises;
  DT_TRY(dt_output_write_file(path, write_cloud_job, &job, ctx));
cleanup:
  dt_free(mises);
  return rc;
}
