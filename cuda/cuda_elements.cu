/* Element kernels of the CUDA backend: stress update with internal force, and the consistent
 * tangent assembled straight into the tangent's blocks (dt_bsr_block) through the per-element
 * positions.
 *
 * One thread per element, 256 threads per block, one launch per colour: no two elements of a
 * colour share a node, so the scatters (fint and tangent values) use plain += without atomics,
 * and the sums happen in the same order on every run (bit-identical results). Each thread
 * calls dt_element_residual_ws (solver/element/element_kernel.h), the routine the CPU backend
 * calls, so both evaluate the same element and material code. When all elements share one
 * type the kernels are instantiated for it (compile-time sizes and loop bounds); otherwise a
 * generic instantiation reads the type per element, with local arrays for the element types
 * the mesh can have (cuda_coop.h, DT_CUDA_GENERIC and DT_CUDA_GENERIC_LARGE). Counters
 * (plastic points, failures) are integer atomics, which are exact and order-independent. */
#include <limits.h>

#include "../solver/element/element_kernel.h"
#include "../solver/element/element_matrix.h"
#include "cuda_coop.h"
#include "cuda_internal.h"

static int use_coop(const dt_cuda *c) {
  return dt_cuda_use_coop(c->problem.uniform_type, c->problem.el_variants);
}

static dt_coop_args make_args(const dt_cuda *c, const double *u, double *out) {
  const dt_cuda_problem *p = &c->problem;
  const dt_cuda_state *s = &c->state;
  dt_coop_args a;
  a.dpn = p->dpn;
  a.stride = p->n_qp;
  a.x = p->x;
  a.elem_type = p->elem_type;
  a.elem_state = p->elem_state;
  a.elem_bbar = p->elem_bbar;
  a.elem_ptr = p->elem_ptr;
  a.conn = p->conn;
  a.elem_mat = p->elem_mat;
  a.qp_ptr = p->qp_ptr;
  a.elem_thick = p->elem_thick;
  a.mats = p->mats;
  a.brow_ptr = p->brow_ptr;
  a.elem_pos = p->elem_pos;
  a.elem_pos_ptr = p->elem_pos_ptr;
  a.u = u;
  a.hist_c = s->hist_c;
  a.eps0 = p->qp_eps0;
  a.hist_t = s->hist_t;
  a.sig_t = s->sig_t;
  a.eps_t = s->eps_t;
  a.tan_t = s->tan_t;
  a.tan_d = s->tan_d;
  a.out = out;
  a.flags = c->flags;
  a.any_mc = (p->el_variants & DT_CUDA_EL_MC) != 0;
  a.elem_plastic = c->mf.elem_plastic;
  a.emat = NULL; /* the tangent's matrix-free launch sets it */
  a.emat_doubles = c->mf.emat_doubles;
  return a;
}

/* Compile-time sizes when TYPE >= 0; the upper bounds of the generic kernels' element types:
 * DT_CUDA_GENERIC_DOF DOFs (16 nodes) for DT_CUDA_GENERIC, every type for
 * DT_CUDA_GENERIC_LARGE. */
template <int TYPE> struct elem_size {
  static const int npe = TYPE >= 0                 ? DT_TYPE_NPE(TYPE)
                         : TYPE == DT_CUDA_GENERIC ? 16
                                                   : DT_ELEM_MAX_NODES;
  static const int nde = TYPE >= 0                 ? npe * DT_TYPE_DIM(TYPE)
                         : TYPE == DT_CUDA_GENERIC ? DT_CUDA_GENERIC_DOF
                                                   : DT_ELEM_MAX_DOF;
};

/* dt_element_residual_ws's arrays, sized for TYPE (declared in the kernel: separate locals). */
#define RESIDUAL_WORK(TYPE, w)                                                                     \
  double w##_N[elem_size<TYPE>::npe], w##_dN[3 * elem_size<TYPE>::npe],                            \
      w##_dNdx[3 * elem_size<TYPE>::npe];                                                          \
  double w##_bar[3 * elem_size<TYPE>::npe], w##_B[6 * elem_size<TYPE>::nde],                       \
      w##_DB[6 * elem_size<TYPE>::nde];                                                            \
  dt_residual_work w = {w##_N, w##_dN, w##_dNdx, w##_bar, w##_B, w##_DB}

template <int TYPE>
__device__ __forceinline__ void gather(const dt_coop_args &a, int e, int type, int dpn, double *X,
                                       double *ue) {
  const int *cn = a.conn + a.elem_ptr[e];
  int npe = dt_elem_nnodes(type);
  for (int A = 0; A < npe; A++) {
    int node = cn[A];
    for (int k = 0; k < 3; k++) X[A * 3 + k] = a.x[node * 3 + k];
    for (int i = 0; i < dpn; i++) ue[A * dpn + i] = a.u[(long)node * dpn + i];
  }
}

template <int TYPE>
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_stress(dt_coop_args a, const int *__restrict__ elems, int n) {
  const int NPE = elem_size<TYPE>::npe, NDE = elem_size<TYPE>::nde;
  int k = blockIdx.x * blockDim.x + threadIdx.x, np = 0;
  if (k < n) {
    int e = elems[k];
    int type = TYPE >= 0 ? TYPE : a.elem_type[e];
    int dpn = TYPE >= 0 ? dt_elem_dim(TYPE) : a.dpn;
    double X[NPE * 3], ue[NDE], fe[NDE];
    RESIDUAL_WORK(TYPE, ws);
    dt_qp_arrays qa;
    qa.hist_c = a.hist_c;
    qa.hist_t = a.hist_t;
    qa.sig_t = a.sig_t;
    qa.eps_t = a.eps_t;
    qa.stride = a.stride;
    qa.eps0 = a.eps0;
    gather<TYPE>(a, e, type, dpn, X, ue);
    int r =
        TYPE == DT_CUDA_GENERIC_LARGE && type == DT_HEX8I
            ? dt_hex8i_residual(X, ue, &a.mats[a.elem_mat[e]], &qa, a.qp_ptr[e], fe, (double *)0)
            : dt_element_residual_ws(type, X, ue, &a.mats[a.elem_mat[e]], a.elem_state[e],
                                     a.elem_bbar[e], a.elem_thick[e], &qa, a.qp_ptr[e], fe,
                                     (double *)0, &ws);
    if (a.elem_plastic) a.elem_plastic[e] = r > 0; /* the matrix-free operator's slots */
    if (r < 0) {
      atomicAdd(&a.flags->n_failed, 1);
      atomicMin(&a.flags->first_failed, e);
    } else {
      const int *cn = a.conn + a.elem_ptr[e];
      int npe = dt_elem_nnodes(type);
      np = r;
      for (int A = 0; A < npe; A++)
        for (int i = 0; i < dpn; i++) a.out[(long)cn[A] * dpn + i] += fe[A * dpn + i];
    }
  }
  if (np) atomicAdd(&a.flags->n_plastic, np);
}

template <int TYPE>
__global__ void __launch_bounds__(DT_CUDA_BLOCK)
    k_tangent(dt_coop_args a, const int *__restrict__ elems, int n) {
  const int NPE = elem_size<TYPE>::npe, NDE = elem_size<TYPE>::nde;
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int e = elems[k];
  int type = TYPE >= 0 ? TYPE : a.elem_type[e];
  int dpn = TYPE >= 0 ? dt_elem_dim(TYPE) : a.dpn;
  int npe = dt_elem_nnodes(type), nde = npe * dpn;
  double X[NPE * 3], ue[NDE], fe[NDE], Ke[NDE * NDE];
  RESIDUAL_WORK(TYPE, ws);
  dt_qp_arrays qa;
  qa.hist_c = a.hist_c; /* only the tangent: the trial state came from the stress update */
  qa.hist_t = (double *)0;
  qa.sig_t = (double *)0;
  qa.eps_t = (double *)0;
  qa.stride = a.stride;
  qa.eps0 = a.eps0;
  gather<TYPE>(a, e, type, dpn, X, ue);
  if ((TYPE == DT_CUDA_GENERIC_LARGE && type == DT_HEX8I
           ? dt_hex8i_residual(X, ue, &a.mats[a.elem_mat[e]], &qa, a.qp_ptr[e], fe, Ke)
           : dt_element_residual_ws(type, X, ue, &a.mats[a.elem_mat[e]], a.elem_state[e],
                                    a.elem_bbar[e], a.elem_thick[e], &qa, a.qp_ptr[e], fe, Ke,
                                    &ws)) < 0) {
    atomicAdd(&a.flags->n_failed, 1);
    return;
  }
  if (a.emat) { /* matrix-free: blocks A <= B into the element's slot, k (launched over the slot list) */
    double *slot = a.emat + dt_cuda_emat_base(k, a.emat_doubles);
    for (int A = 0; A < npe; A++)
      for (int B = A; B < npe; B++) {
        double *v = slot + (long)dt_emat_pair(npe, A, B) * dpn * dpn * DT_EMAT_LANES;
        for (int j = 0; j < dpn; j++)
          for (int i = 0; i < dpn; i++)
            v[(j * dpn + i) * DT_EMAT_LANES] = Ke[(A * dpn + i) * nde + B * dpn + j];
      }
    return;
  }
  /* block (A, B) of Ke into the tangent's block of (node A, rank pos[A][B]), column-major */
  const int *cn = a.conn + a.elem_ptr[e];
  const int *pos = a.elem_pos + a.elem_pos_ptr[e];
  for (int A = 0; A < npe; A++)
    for (int B = 0; B < npe; B++) {
      double *v = dt_bsr_block(a.out, a.brow_ptr, cn[A], pos[A * npe + B], dpn);
      for (int j = 0; j < dpn; j++)
        for (int i = 0; i < dpn; i++) v[j * dpn + i] += Ke[(A * dpn + i) * nde + B * dpn + j];
    }
}

__global__ void k_flags_reset(dt_cuda_flags *f) {
  f->n_plastic = 0;
  f->n_failed = 0;
  f->first_failed = INT_MAX;
  f->bad_node = INT_MAX;
}

/* A one-thread-per-element kernel (k_tangent, or k_stress) over lists of elements (the colours,
 * or the matrix-free operator's slotted elements as one list), and loading both. */
template <bool TANGENT> struct simple_colours {
  template <int TYPE>
  static dt_status go(const dt_cuda *c, const dt_coop_args *a, const int *h_ptr, const int *elems,
                      int n_lists, dt_ctx *ctx) {
    return coop_launch_colours(TANGENT ? k_tangent<TYPE> : k_stress<TYPE>, DT_CUDA_BLOCK,
                               DT_CUDA_BLOCK, 0, *a, h_ptr, elems, n_lists, c->stream, ctx,
                               TANGENT ? "launch of k_tangent" : "launch of k_stress");
  }
};
struct simple_kernels_load {
  template <int TYPE> static dt_status go(size_t *local_max, dt_ctx *ctx) {
    const void *k[] = {(const void *)k_stress<TYPE>, (const void *)k_tangent<TYPE>};
    return dt_cuda_load_list(k, 2, local_max, ctx);
  }
};

extern "C" dt_status dt_cuda_stress_update(void *impl, dt_vec_id u, dt_vec_id fint,
                                           dt_stress_report *rep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  const dt_cuda_problem *p = &c->problem;
  dt_coop_args a =
      make_args(c, c->state.vec[u], use_coop(c) ? c->state.f_elem : c->state.vec[fint]);
  dt_cuda_flags *fl = (dt_cuda_flags *)c->pinned;
  k_flags_reset<<<1, 1, 0, c->stream>>>(c->flags);
  DT_CUDA_LAUNCH_CHECK("k_flags_reset", c->stream, ctx);
  if (use_coop(c)) { /* every f_int entry written once by the node sums */
    DT_TRY(dt_cuda_stress_coop_launch(p->uniform_type, &a, p->n_elems, p->node_inc_ptr, p->node_inc,
                                      c->state.vec[fint], p->n_dofs, c->stream, ctx));
  } else {
    DT_CUDA_CHECK(
        cudaMemsetAsync(c->state.vec[fint], 0, sizeof(double) * (size_t)p->n_dofs, c->stream), ctx);
    DT_TRY((dt_by_element_type<simple_colours<false>, true>(
        p->uniform_type, ctx, (const dt_cuda *)c, &a, (const int *)p->h_color_ptr,
        (const int *)p->color_elems, p->n_colors)));
  }
  DT_TRY(dt_cuda_d2h(c, fl, c->flags, DT_CUDA_ELEMENT_FLAGS_BYTES, ctx));
  rep->n_plastic = fl->n_plastic;
  rep->n_failed = fl->n_failed;
  rep->first_failed_elem = fl->n_failed ? fl->first_failed : -1;
cleanup:
  return rc;
}

/* The matrix-free tangent: slots for the elements that need their own matrix, the tangent kernel
 * (cooperative, or one thread per element) over them in one launch (no colours: each writes
 * only its own slot), then the
 * nodes' diagonal blocks for the preconditioner (cuda_matrix_free.cu). */
static dt_status tangent_matrix_free(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_coop_args a = make_args(c, c->state.vec[DT_VEC_UT], NULL);
  dt_cuda_flags *fl = (dt_cuda_flags *)c->pinned;
  int launch[2] = {0, 0};
  DT_TRY(dt_cuda_mf_slots(c, ctx));
  a.emat = c->mf.emat;
  launch[1] = (int)c->mf.n_own;
  k_flags_reset<<<1, 1, 0, c->stream>>>(c->flags);
  DT_CUDA_LAUNCH_CHECK("k_flags_reset", c->stream, ctx);
  if (c->mf.n_own > 0 && use_coop(c))
    DT_TRY(dt_cuda_tangent_coop_launch(c->problem.uniform_type, &a, launch, c->mf.own_list, 1,
                                       c->stream, ctx));
  else if (c->mf.n_own > 0)
    DT_TRY((dt_by_element_type<simple_colours<true>, true>(
        c->problem.uniform_type, ctx, (const dt_cuda *)c, &a, (const int *)launch,
        (const int *)c->mf.own_list, 1)));
  DT_TRY(dt_cuda_mf_diagonal(c, ctx));
  DT_TRY(dt_cuda_d2h(c, fl, c->flags, DT_CUDA_ELEMENT_FLAGS_BYTES, ctx));
  DT_CHECK(fl->n_failed == 0, ctx, DT_ERR_INTERNAL, "tangent at a failed material point");
cleanup:
  return rc;
}

/* The block rows write every value once from the stress kernel's state: no clearing, and no
 * failure flags to reset or read back (they evaluate no material). */
static dt_status tangent_rows(dt_cuda *c, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(dt_cuda_rows_assemble(c, ctx));
  DT_TRY(dt_cuda_dirichlet(c, ctx));
  DT_CUDA_CHECK(cudaStreamSynchronize(c->stream), ctx);
cleanup:
  return rc;
}

extern "C" dt_status dt_cuda_tangent_assemble(void *impl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cuda *c = (dt_cuda *)impl;
  const dt_cuda_problem *p = &c->problem;
  c->lin.tangent_serial++;
  if (p->matrix_free) return tangent_matrix_free(c, ctx);
  if (c->rows.G) return tangent_rows(c, ctx);
  dt_coop_args a = make_args(c, c->state.vec[DT_VEC_UT], c->lin.val);
  dt_cuda_flags *fl = (dt_cuda_flags *)c->pinned;
  DT_CUDA_CHECK(cudaMemsetAsync(c->lin.val, 0, sizeof(double) * (size_t)p->nnz, c->stream),
                ctx); /* added into */
  k_flags_reset<<<1, 1, 0, c->stream>>>(c->flags);
  DT_CUDA_LAUNCH_CHECK("k_flags_reset", c->stream, ctx);
  if (use_coop(c)) {
    DT_TRY(dt_cuda_tangent_coop_launch(p->uniform_type, &a, p->h_color_ptr, p->color_elems,
                                       p->n_colors, c->stream, ctx));
  } else
    DT_TRY((dt_by_element_type<simple_colours<true>, true>(
        p->uniform_type, ctx, (const dt_cuda *)c, &a, (const int *)p->h_color_ptr,
        (const int *)p->color_elems, p->n_colors)));
  DT_TRY(dt_cuda_dirichlet(c, ctx));
  DT_TRY(dt_cuda_d2h(c, fl, c->flags, DT_CUDA_ELEMENT_FLAGS_BYTES, ctx));
  DT_CHECK(fl->n_failed == 0, ctx, DT_ERR_INTERNAL, "tangent at a failed material point");
cleanup:
  return rc;
}

int dt_cuda_element_variants(const dt_problem *pb) {
  int v = 0;
  for (int i = 0; i < pb->n_mats; i++)
    if (pb->mats[i].plastic == DT_PLASTIC_MOHR_COULOMB)
      v |= DT_CUDA_EL_MC | (pb->mats[i].mc_elastic_tangent ? 0 : DT_CUDA_EL_D);
  return v;
}

/* The kernels the element phases of this mesh launch: the cooperative pair of its element
 * type (in the variants asked for), or the one-thread-per-element
 * pair (of its type, or generic: a mixed mesh, or a type without kernels of its own). */
dt_status dt_cuda_load_element_kernels(int uniform_type, int variants, size_t *local_max,
                                       dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const void *reset[] = {(const void *)k_flags_reset};
  DT_TRY(dt_cuda_load_list(reset, 1, local_max, ctx));
  if (dt_cuda_use_coop(uniform_type, variants)) {
    DT_TRY(dt_cuda_stress_coop_load(uniform_type, variants & DT_CUDA_EL_MC, local_max, ctx));
    DT_TRY(dt_cuda_tangent_coop_load(uniform_type, variants & DT_CUDA_EL_D, local_max, ctx));
  } else
    DT_TRY((dt_by_element_type<simple_kernels_load, true>(uniform_type, ctx, local_max)));
cleanup:
  return rc;
}

/* Local memory is reserved for every thread the device can hold once a kernel that needs it
 * runs: per-thread size x resident threads. Only the kernels this mesh launches count: the
 * one-thread-per-element tangent keeps a whole Ke in local memory (about 3 GB on an H200 for
 * elements of up to 32 DOFs, about 3.5 times that with 20-node hexahedra or wedge15), the
 * cooperative kernels of a one-type mesh almost none. */
dt_status dt_cuda_element_local_bytes(int device, int uniform_type, int variants, size_t *bytes,
                                      dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int sms = 0, threads = 0;
  size_t worst = 0;
  *bytes = 0;
  DT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), ctx);
  DT_CUDA_CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device),
                ctx);
  DT_TRY(dt_cuda_load_element_kernels(uniform_type, variants, &worst, ctx));
  *bytes = worst * (size_t)threads * (size_t)sms;
cleanup:
  return rc;
}
