/* Integration-point results as a VTU point cloud: one VTK_VERTEX per point, with the values
 * the material law computed there (no averaging). ParaView shows it next to the mesh VTU
 * ("Point Gaussian" representation); scripts read the raw point values from it. Binary
 * appended like the mesh VTU (output_vtu.c); written by the writer thread from a job. */
#include "io/output_internal.h"

dt_status dt_vtu_points_write(const dt_vtu_mesh *g, dt_vtu_job *j, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const char *const *voigt = dt_vtu_voigt_names;
  const size_t nq = (size_t)j->n_qp;
  dt_vtu_doc doc, *d = &doc; /* 16 kB, on the stack: the writer thread does not allocate */
  int e, q;
  /* The cloud's topology: point q is cell q; each point keeps its element's id and its
   * 1-based number within the element (CalculiX's integration point numbering). */
  for (e = 0; e < j->n_elems; e++)
    for (q = j->qp_ptr[e]; q < j->qp_ptr[e + 1]; q++) {
      j->cloud_elem_id[q] = g->elem_id[e];
      j->cloud_point[q] = q - j->qp_ptr[e] + 1;
    }
  for (q = 0; q < j->n_qp; q++) {
    j->cloud_conn[q] = q;
    j->cloud_offsets[q] = (int64_t)q + 1;
    j->cloud_types[q] = 1; /* VTK_VERTEX */
  }
  d->n = d->overflow = 0;
  dt_vtu_doc_text(d, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n      <PointData>\n",
                  j->n_qp, j->n_qp);
  if (j->q_s) dt_vtu_doc_array(d, "Float64", 8, "S", 6, voigt, j->qp_stress, 6 * nq);
  if (j->q_e) dt_vtu_doc_array(d, "Float64", 8, "E", 6, voigt, j->qp_strain, 6 * nq);
  if (j->q_peeq) dt_vtu_doc_array(d, "Float64", 8, "PEEQ", 1, NULL, j->qp_peeq, nq);
  if (j->q_s) dt_vtu_doc_array(d, "Float64", 8, "MISES", 1, NULL, j->qp_mises, nq);
  dt_vtu_doc_array(d, "Int64", 8, "elem_id", 0, NULL, j->cloud_elem_id, nq);
  dt_vtu_doc_array(d, "Int32", 4, "point", 0, NULL, j->cloud_point, nq);
  dt_vtu_doc_text(d, "      </PointData>\n      <Points>\n");
  dt_vtu_doc_array(d, "Float64", 8, NULL, 3, NULL, j->qp_x, 3 * nq);
  dt_vtu_doc_text(d, "      </Points>\n      <Cells>\n");
  dt_vtu_doc_array(d, "Int64", 8, "connectivity", 0, NULL, j->cloud_conn, nq);
  dt_vtu_doc_array(d, "Int64", 8, "offsets", 0, NULL, j->cloud_offsets, nq);
  dt_vtu_doc_array(d, "UInt8", 1, "types", 0, NULL, j->cloud_types, nq);
  dt_vtu_doc_text(d, "      </Cells>\n    </Piece>\n");
  DT_TRY(dt_vtu_doc_write(d, j->points_path, ctx));
cleanup:
  return rc;
}
