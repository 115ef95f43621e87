/* Admission before allocation: the size of a job or mesh upload (its nodes, DOFs and elements,
 * io/size_scan.h) is counted from the body while it arrives and checked before anything is
 * built from it.
 *
 * Building a model takes memory in proportion to its size, about 19x the text of a JSON job
 * and 28x that of a JSON mesh in the daemon (4.5x for a .msh or a deck): a 213 MB job was
 * refused does_not_fit after 71 s at 3.6 GB resident, and a 177 MB mesh was stored at 4.5 GB,
 * with nothing checked before. Now:
 *   - while the body arrives (dt_admission_feed), the counts so far against max_model_dofs and
 *     max_model_elements: over either, 422 model_too_large at once, before the rest is read
 *     (a .msh whose header announces too many nodes is refused on its header);
 *   - when it has arrived, before it is parsed (dt_admit_size_or_reply): the same limits with
 *     the whole count, then the floor of the model's memory (dt_analysis_floor_bytes) against
 *     the largest device and max_job_bytes (422 does_not_fit); for a job on a stored mesh, the
 *     stored mesh's file is sized the same way (jobs handler);
 *   - then the model is built and a job admitted by its full estimate, as before. */
#ifndef DT_SRV_ADMISSION_H
#define DT_SRV_ADMISSION_H

#include "devices.h"
#include "handlers.h"

/* Start sizing the body of a request whose route takes a model (DT_R_JOB; DT_R_MESH: mesh set),
 * in the format the request names (a body it does not name is sniffed by its first byte). */
void dt_admission_begin(dt_req *r, int mesh);
/* The next n bytes of the body: 0, or -1 after replying 422 model_too_large (raw, on the
 * socket: the body is still arriving; the caller stops reading it). */
int dt_admission_feed(dt_req *r, const char *data, size_t n);
/* The size of the whole body read as kind (the handler's choice of format; JSON: a mesh object
 * when mesh is set, else a job): the scan made as it arrived, or a new scan of the body when
 * the format turned out to be another. DT_ERR_INTERNAL when the spooled body cannot be read. */
dt_status dt_admission_size(dt_req *r, dt_body_kind kind, int mesh, dt_model_size *out,
                            dt_ctx *ctx);

/* The admission of a size, before the model is built: 422 model_too_large over max_model_dofs
 * or max_model_elements (replied here, DT_ERR_INPUT returned); DT_ERR_DEVICE_NOMEM with ctx
 * and fit filled when its floor does not fit (the caller replies does_not_fit). what names the
 * model in messages ("job", "mesh", "the job's mesh m-0123456789abcdef"); mesh: an upload,
 * whose floor is checked as for any job on it. */
dt_status dt_admit_size_or_reply(dt_req *r, const dt_model_size *s, const char *what, int mesh,
                                 dt_fit *fit, dt_ctx *ctx);
/* does_not_fit's details: {estimate_bytes, limit_bytes, device}, and the counts (nodes, dofs,
 * elements) when the refusal came from the size (s not NULL). */
json_t *dt_admission_fit_details(const dt_fit *fit, const dt_model_size *s);

#endif
