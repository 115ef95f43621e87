/* Creating and destroying the CUDA backend: device check, the one-time upload of the
 * problem (after the memory estimate has been checked against the device), the cuSPARSE
 * matrix and vector descriptors, and the backend's self-description (view). */
#include <limits.h>
#include <string.h>

#include "cuda_internal.h"
#include "cuda_coop.h"

extern "C" int dt_cuda_available(char *why, size_t len) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    if (why && len) snprintf(why, len, "no CUDA device: %s", cudaGetErrorString(e));
    return 0;
  }
  if (count < 1) {
    if (why && len) snprintf(why, len, "no CUDA device: none found");
    return 0;
  }
  return 1;
}

extern "C" void dt_cuda_destroy(void *impl) {
  dt_cuda *c = (dt_cuda *)impl;
  if (!c) return;
  if (c->stream) cudaStreamSynchronize(c->stream);
  dt_cuda_linear_destroy(c);
  dt_cuda_graph_reset(&c->lin.pcg_batch);
  dt_cuda_graph_reset(&c->lin.pcg_amg);
  if (c->sp) cusparseDestroy(c->sp);
  dt_cuda_coarse_destroy(c);
  dt_cuda_amg_destroy(c);
  dt_cuda_free_all(c); /* every device array of every part (cuda_memory.cu) */
  if (c->pinned) cudaFreeHost(c->pinned);
  if (c->stream) cudaStreamDestroy(c->stream);
  dt_free(c->problem.h_color_ptr);
  dt_cuda_vectors_destroy(c);
  dt_free(c);
}

/* Part op (backend.h dt_backend_part_ops): every op queues on c->stream of c->device and
 * assumes that device is current; a run split over devices holds several impls in one thread. */
extern "C" dt_status dt_cuda_activate(void *impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_CUDA_CHECK(cudaSetDevice(((dt_cuda *)impl)->device), ctx);
cleanup:
  return rc;
}

/* The problem's sizes, its arrays and, for meshes of one element type and for the matrix-free
 * operator on any mesh, each node's incidences (offsets into conn, e * npe + A on a uniform
 * mesh; elements ascending, the order f_int and the operator's products are summed in). */
static dt_status problem_upload(dt_cuda *c, const dt_problem *pb, int type, int variants,
                                dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda_problem *p = &c->problem;
  p->dim = pb->dim;
  p->dpn = pb->dpn;
  p->n_nodes = pb->n_nodes;
  p->n_dofs = pb->n_dofs;
  p->n_elems = pb->n_elems;
  p->n_qp = pb->n_qp;
  p->n_colors = pb->n_colors;
  p->n_mats = pb->n_mats;
  p->nnz = pb->nnz;
  p->n_blocks = pb->node_nbr_ptr[pb->n_nodes];
  DT_TRY(dt_cuda_spmv_parts(pb, p, ctx));
  p->n_conn = pb->elem_ptr[pb->n_elems];
  p->n_pos = pb->elem_pos_ptr[pb->n_elems];
  p->uniform_type = type;
  p->el_variants = variants;
  p->matrix_free = pb->matrix_free;
  p->h_color_ptr = (int *)dt_calloc((size_t)pb->n_colors + 1, sizeof(int));
  DT_CHECK(p->h_color_ptr != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating colour offsets");
  memcpy(p->h_color_ptr, pb->color_ptr, sizeof(int) * (size_t)(pb->n_colors + 1));
  UPLOAD(c->problem, x, 3 * pb->n_nodes, "coordinates");
  UPLOAD(c->problem, elem_type, pb->n_elems, "element types");
  UPLOAD(c->problem, elem_state, pb->n_elems, "element stress states");
  UPLOAD(c->problem, elem_bbar, pb->n_elems, "element formulations");
  UPLOAD(c->problem, elem_ptr, pb->n_elems + 1, "element offsets");
  UPLOAD(c->problem, conn, p->n_conn, "connectivity");
  UPLOAD(c->problem, elem_mat, pb->n_elems, "element materials");
  UPLOAD(c->problem, elem_thick, pb->n_elems, "element thicknesses");
  UPLOAD(c->problem, qp_ptr, pb->n_elems + 1, "integration point offsets");
  if (pb->qp_eps0) UPLOAD(c->problem, qp_eps0, 6 * (size_t)pb->n_qp, "initial eigenstrains");
  UPLOAD(c->problem, mats, pb->n_mats, "materials");
  UPLOAD_AS(c->problem.brow_ptr, node_nbr_ptr, pb->n_nodes + 1, "block row offsets");
  UPLOAD_AS(c->problem.bcol, node_nbr, p->n_blocks, "block columns");
  if (!pb->matrix_free) UPLOAD(c->problem, elem_pos_ptr, pb->n_elems + 1, "block position offsets");
  UPLOAD(c->problem, color_elems, pb->n_elems, "colouring");
  if (type >= 0 ||
      pb->matrix_free) { /* incidence k is the element-force slot (dt_cuda_state f_elem) */
    UPLOAD_AS(c->problem.node_inc_ptr, node_elem_ptr, pb->n_nodes + 1, "node incidences");
    UPLOAD_AS(c->problem.node_inc, node_inc, p->n_conn, "node incidences");
  }
cleanup:
  return rc;
}

dt_status dt_cuda_load_list(const void *const *kernels, int n, size_t *local_max, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  cudaFuncAttributes fa;
  for (int i = 0; i < n; i++) { /* asking for a kernel's attributes loads it */
    DT_CUDA_CHECK(cudaFuncGetAttributes(&fa, kernels[i]), ctx);
    if (local_max && fa.localSizeBytes > *local_max) *local_max = fa.localSizeBytes;
  }
cleanup:
  return rc;
}

/* Every kernel of ours the job can launch, and cuSPARSE's SpMV through one product of zeros
 * (q = K p with K and p still zero), so that no phase of the first iteration pays for loading
 * code. */
static dt_status load_kernels(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(dt_cuda_load_vector_kernels(ctx));
  DT_TRY(dt_cuda_load_pcg_kernels(ctx));
  DT_TRY(dt_cuda_load_linear_kernels(ctx));
  DT_TRY(dt_cuda_load_field_kernels(ctx));
  DT_TRY(dt_cuda_load_element_kernels(c->problem.uniform_type, c->problem.el_variants, NULL, ctx));
  if (c->coarse.n_sub > 0) DT_TRY(dt_cuda_load_coarse_kernels(ctx));
  if (c->problem.matrix_free)
    DT_TRY(dt_cuda_load_mf_kernels(c->problem.uniform_type, c->problem.dpn, ctx));
  if (c->rows.G) DT_TRY(dt_cuda_load_rows_kernels(ctx));
  if (c->mpc.n > 0) DT_TRY(dt_cuda_load_mpc_kernels(ctx));
  DT_TRY(dt_cuda_spmv(c, DT_VEC_PCG_P, DT_VEC_PCG_Q, ctx));
cleanup:
  return rc;
}

/* The mesh's kernel type (cuda_coop.h): its one element type where that type has kernels of
 * its own and no element is axisymmetric, else the generic instantiation whose local arrays
 * hold its largest element; hex8i's condensation runs in the large one only
 * (cuda_elements.cu). */
static int uniform_type(const dt_problem *pb) {
  int uniform = 1, max_dof = 0;
  for (int e = 0; e < pb->n_elems; e++) {
    int t = pb->elem_type[e], nde = dt_elem_ndof(t);
    uniform &= t == pb->elem_type[0] && pb->elem_state[e] != DT_STATE_AXISYMMETRIC;
    max_dof = nde > max_dof ? nde : max_dof;
    if (t == DT_HEX8I) max_dof = DT_ELEM_MAX_DOF;
  }
  if (pb->n_elems > 0 && uniform && dt_cuda_type_has_kernels(pb->elem_type[0]))
    return pb->elem_type[0];
  return max_dof <= DT_CUDA_GENERIC_DOF ? DT_CUDA_GENERIC : DT_CUDA_GENERIC_LARGE;
}

extern "C" dt_status dt_cuda_upload(const dt_problem *pb, const dt_backend_options *opt,
                                    void **impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = NULL;
  cudaDeviceProp prop;
  size_t local_bytes = 0, estimate = 0;
  int device = opt ? opt->device : 0, type = uniform_type(pb),
      variants = dt_cuda_element_variants(pb);
  dt_cuda_tangent tangent = opt ? opt->cuda_tangent : DT_CUDA_TANGENT_AUTO;
  dt_cuda_flags init_flags = {0, 0, INT_MAX, INT_MAX, INT_MAX};
  *impl = NULL;
  if (opt && opt->cuda_elements == DT_CUDA_ELEMENTS_SIMPLE) variants |= DT_CUDA_EL_SIMPLE;
  DT_CHECK(pb->n_dofs > 0 && pb->n_elems > 0, ctx, DT_ERR_INPUT, "empty problem");
  /* The tangent is stored by dpn x dpn blocks with 32-bit block indices (cuSPARSE's BSR): the
   * block count, not the scalar nonzeros (2.4 billion for 30M hex8 DOFs), is what must fit. */
  DT_CHECK(pb->node_nbr_ptr[pb->n_nodes] < INT_MAX && pb->n_dofs < INT_MAX, ctx, DT_ERR_UNSUPPORTED,
           "the CUDA backend uses 32-bit block indices; %lld tangent blocks is too many",
           (long long)pb->node_nbr_ptr[pb->n_nodes]);
  DT_CUDA_CHECK(cudaSetDevice(device), ctx);
  DT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device), ctx);
  DT_TRY(dt_cuda_element_local_bytes(device, type, variants, &local_bytes, ctx));
  /* Everything is counted before anything is allocated. */
  DT_TRY(dt_cuda_check_fit(pb, device, local_bytes, &estimate, ctx));

  c = (dt_cuda *)dt_calloc(1, sizeof *c);
  DT_CHECK(c != NULL, ctx, DT_ERR_NOMEM, "out of memory allocating the CUDA backend");
  c->device = device;
  c->acct.estimate = estimate;
  snprintf(c->name, sizeof c->name, "%s", prop.name);
  c->sm_count = prop.multiProcessorCount;
  c->cc_major = prop.major;
  c->cc_minor = prop.minor;
  c->mem_total = prop.totalGlobalMem;
  c->lin.pcg_batch.key = c->lin.pcg_amg.key = -1;
  DT_CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), ctx);
  DT_CUSPARSE_CHECK(cusparseCreate(&c->sp), ctx);
  DT_CUSPARSE_CHECK(cusparseSetStream(c->sp, c->stream), ctx);
  DT_CUDA_CHECK(cudaMallocHost(&c->pinned, 64), ctx);

  /* Each part allocates its own arrays; all vectors, per-point state and values start at zero. */
  DT_TRY(problem_upload(c, pb, type, variants, ctx));
  if (pb->matrix_free)
    DT_TRY(dt_cuda_mf_upload(c, pb, ctx)); /* element matrices instead of values */
  DT_TRY(dt_cuda_vectors_alloc(c, ctx));
  DT_TRY(dt_cuda_linear_alloc(c, ctx));
  DT_TRY(dt_cuda_points_alloc(c, ctx));
  ZEROS(c->red, DT_CUDA_RED_DOUBLES, "reduction scratch");
  DT_TRY(dt_cuda_alloc(c, (void **)&c->flags, sizeof(dt_cuda_flags), "counters", ctx));
  DT_TRY(dt_cuda_h2d(c, c->flags, &init_flags, sizeof init_flags, ctx));
  if (!pb->matrix_free) DT_TRY(dt_cuda_compute_positions(c, ctx));
  DT_TRY(dt_cuda_rows_setup(c, pb, tangent, ctx));
  if (pb->n_sub > 0) DT_TRY(dt_cuda_coarse_upload(c, pb, ctx));
  DT_TRY(dt_cuda_mpc_upload(c, pb, ctx));
  DT_TRY(load_kernels(c, ctx));
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
  *impl = c;
  c = NULL;
cleanup:
  dt_cuda_destroy(c);
  return rc;
}

/* A step's new element materials (backend.h, materials_set) over the uploaded ones: the kernels
 * read elem_mat from the device at every launch, and the choices made at upload from the
 * materials (the element variants, kinematic hardening in the tangent) cover every material of
 * the problem, not only those in use, so the copy is all a change needs. */
extern "C" dt_status dt_cuda_materials_set(void *impl, const int *elem_mat, dt_ctx *ctx) {
  dt_cuda *c = (dt_cuda *)impl;
  return dt_cuda_h2d(c, c->problem.elem_mat, elem_mat, sizeof(int) * (size_t)c->problem.n_elems,
                     ctx);
}

extern "C" void dt_cuda_view(void *impl, FILE *f) {
  dt_cuda *c = (dt_cuda *)impl;
  const dt_cuda_problem *p = &c->problem;
  int coop = dt_cuda_use_coop(p->uniform_type, p->el_variants);
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
  fprintf(f, "backend cuda: device %d \"%s\" (sm_%d%d, %d SMs), %.1f GB total, %.1f GB free\n",
          c->device, c->name, c->cc_major, c->cc_minor, c->sm_count, total_b / 1e9, free_b / 1e9);
  fprintf(f,
          "  device memory: %.1f MB allocated (peak %.1f MB, estimate %.1f MB incl. kernel "
          "local memory)\n",
          c->acct.bytes_alloc / 1e6, c->acct.bytes_peak / 1e6, c->acct.estimate / 1e6);
  if (p->matrix_free)
    fprintf(f,
            "  operator: matrix-free, %d element classes, %ld of %d elements in the store (room "
            "for %ld)\n",
            c->mf.n_classes, c->mf.n_own, p->n_elems, c->mf.emat_cap);
  else
    fprintf(f, "  SpMV: cuSPARSE generic API, %s, buffer %zu bytes, %d row range%s\n",
            DT_CUDA_SPMV_ALG_NAME, c->lin.spmv_buf_bytes, p->n_spmv_parts,
            p->n_spmv_parts > 1 ? "s of fewer than 2^31 values each" : "");
  if (coop && c->rows.G)
    fprintf(
        f,
        "  element kernels: cooperative (threads per element); stress in element order, f_int "
        "summed per node; tangent written once by block rows on the FP64 tensor cores (congruent "
        "hex8 elements)\n");
  else if (coop)
    fprintf(f,
            "  element kernels: cooperative (threads per element); stress in element order, f_int "
            "summed per node; tangent scattered colour by colour (%d colours%s%s)\n",
            p->n_colors, p->matrix_free || !c->rows.why[0] ? "" : "; not by block rows: ",
            p->matrix_free ? "" : c->rows.why);
  else
    fprintf(f, "  element kernels: one thread per element (%s), %d colours\n",
            p->uniform_type >= 0 ? "solver.backend_options.elements is \"simple\""
            : p->uniform_type == DT_CUDA_GENERIC
                ? "mixed element types, or wedge6: no cooperative kernels"
                : "wedge15, or 20-node hexahedra among other types: no cooperative kernels, "
                  "60-DOF local arrays",
            p->n_colors);
  dt_cuda_amg_view(c, f); /* nothing unless the AMG preconditioner was set up */
  fprintf(f, "  transfers so far: %.3f MB host->device, %.3f MB device->host in %llu copies\n",
          c->acct.h2d / 1e6, c->acct.d2h / 1e6, c->acct.n_copies);
}

/* The kernels of this problem, as load_kernels and the element phases choose them. */
extern "C" void dt_cuda_describe(void *impl, char *buf, size_t len) {
  const dt_cuda *c = (const dt_cuda *)impl;
  const dt_cuda_problem *p = &c->problem;
  int coop = dt_cuda_use_coop(p->uniform_type, p->el_variants);
  snprintf(buf, len, "element kernels %s, tangent %s%s%s",
           coop ? "cooperative" : "one thread per element",
           p->matrix_free ? "per element (matrix-free)"
           : c->rows.G    ? "by block rows"
                          : "colour by colour",
           c->halo ? ", halo exchange " : "", c->halo ? c->halo : "");
}

/* Name and memory of device `ordinal` for the daemon (health, admission); 0 if none. */
extern "C" int dt_cuda_device_info(int ordinal, dt_device_info *out) {
  int count = 0, prev = 0;
  cudaDeviceProp p;
  size_t free_b = 0, total_b = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || ordinal < 0 || ordinal >= count) {
    (void)cudaGetLastError();
    return 0;
  }
  if (cudaGetDeviceProperties(&p, ordinal) != cudaSuccess) return 0;
  memset(out, 0, sizeof *out);
  out->ordinal = ordinal;
  memcpy(out->name, p.name, sizeof out->name - 1); /* p.name is 256 bytes, NUL-terminated */
  out->name[sizeof out->name - 1] = 0;
  out->total_bytes = (double)p.totalGlobalMem;
  out->free_bytes = (double)p.totalGlobalMem;
  /* free memory needs a context on that device; restore the caller's current device after */
  if (cudaGetDevice(&prev) == cudaSuccess && cudaSetDevice(ordinal) == cudaSuccess &&
      cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
    out->free_bytes = (double)free_b;
  cudaSetDevice(prev);
  (void)cudaGetLastError();
  return 1;
}

/* After a fault (an illegal address, a hardware error), CUDA leaves the process's context on
 * the device unusable: every later call returns the same error, and cudaDeviceReset does not
 * clear it (measured on the lent H200, driver 580: the next cudaSetDevice then fails with "busy
 * or unavailable"); only a new process does. On the lent two-H200 machine the other GPU's work
 * failed as well, so the daemon restarts whichever worker asks first (server/worker.c). A synchronize tells: it returns that error, while
 * an ordinary failed call (cleared by cudaGetLastError) leaves it succeeding. */
extern "C" int dt_cuda_device_lost(int ordinal, char *why, size_t len) {
  (void)cudaGetLastError();
  cudaError_t e = cudaSetDevice(ordinal);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return 0;
  if (why && len) snprintf(why, len, "GPU %d: %s", ordinal, cudaGetErrorString(e));
  (void)cudaGetLastError();
  return 1;
}

/* The estimate of cuda_memory.cu as a backend op (without the kernels' local memory, which
 * only the upload on a real device can query). */
extern "C" dt_status dt_cuda_estimate_op(const dt_problem *pb, double *bytes, dt_ctx *ctx) {
  size_t b = 0;
  (void)ctx;
  dt_status rc = dt_cuda_estimate(pb, &b);
  *bytes = (double)b;
  return rc;
}
