/* The element kernels for meshes of one element type (cuda_elements_coop.cu,
 * cuda_stress_coop.cu): arguments and launchers. */
#ifndef DT_CUDA_COOP_H
#define DT_CUDA_COOP_H

#include <cuda_runtime.h>

#include "../solver/element/element.h"
#include "cuda_internal.h"

/* Device pointers the element kernels (both kinds) read, passed by value. */
typedef struct dt_coop_args {
  int dpn;
  long stride; /* n_qp: distance between components of per-point arrays */
  const double *x;
  const unsigned char *elem_type, *elem_state, *elem_bbar;
  const int *elem_ptr, *conn, *elem_mat, *qp_ptr;
  const double *elem_thick;
  const dt_material_params *mats;
  const int *brow_ptr; /* block row offsets of the tangent (dt_bsr_block) */
  const int *elem_pos;
  const int64_t *elem_pos_ptr;
  const double *u;
  const double *hist_c;
  const double *eps0; /* initial eigenstrains (element_kernel.h dt_qp_arrays), or NULL */
  double *hist_t, *sig_t, *eps_t;
  double *tan_t; /* tangent form per point (dt_tangent_form: K, mu, gam; n is re-formed
                    from sig_t): written by the stress kernel, read by the tangent kernel */
  double *tan_d; /* NULL, or D per point (cuda_internal.h): then the stress kernel stores it and the
                    tangent kernel multiplies B^T D B (cuda_tangent_d.cuh) */
  double *out;   /* fint (stress) or tangent values (tangent, dt_bsr_block) */
  /* Matrix-free operator (NULL otherwise): the stress kernel sets each element's plastic flag;
   * the tangent kernel stores the matrix of element k of its launch in slot k of emat
   * (element_matrix.h, emat_doubles apart) instead of adding blocks to the tangent. */
  unsigned char *elem_plastic;
  double *emat;
  int emat_doubles;
  dt_cuda_flags *flags;
  int any_mc; /* a Mohr-Coulomb material is present: the stress kernel compiled with its update */
} dt_coop_args;

/* Launch, colour by colour, for a mesh whose elements are all of `type`: the tangent kernel
 * (cuda_elements_coop.cu; out = tangent values) and the stress kernel (cuda_stress_coop.cu;
 * out = f_int). */
dt_status dt_cuda_tangent_coop_launch(int type, const dt_coop_args *a, const int *h_color_ptr,
                                      const int *color_elems, int n_colors, cudaStream_t stream,
                                      dt_ctx *ctx);
/* The stress kernel runs over all elements in one launch (out = the element forces, dpn per
 * incidence), then the forces are summed node by node into fint through the incidence lists
 * (cuda_stress_coop.cu). */
dt_status dt_cuda_stress_coop_launch(int type, const dt_coop_args *a, int n_elems,
                                     const int *inc_ptr, const int *inc, double *fint, int n_dofs,
                                     cudaStream_t stream, dt_ctx *ctx);

/* Load the kernels of `type` now (dt_cuda_load_list): the stress kernel (with Mohr-Coulomb's
 * update when mc), and the tangent kernel of the tangent form or, with d_tangent, of D per point. */
dt_status dt_cuda_stress_coop_load(int type, int mc, size_t *local_max, dt_ctx *ctx);
dt_status dt_cuda_tangent_coop_load(int type, int d_tangent, size_t *local_max, dt_ctx *ctx);

/* Compile-time facts of an element type (dt_elem_nnodes, dt_elem_nqp, dt_elem_dim as
 * constants, for array sizes in the kernels' templates). */
#define DT_TYPE_NPE(T)                                                                             \
  (((T) == DT_HEX8 || (T) == DT_HEX8R || (T) == DT_HEX8I) ? 8                                      \
   : (T) == DT_TET4                                       ? 4                                      \
   : (T) == DT_TET10                                      ? 10                                     \
   : (T) == DT_QUAD4                                      ? 4                                      \
   : ((T) == DT_QUAD8 || (T) == DT_QUAD8R)                ? 8                                      \
   : (T) == DT_QUAD9                                      ? 9                                      \
   : (T) == DT_QUAD16                                     ? 16                                     \
   : ((T) == DT_HEX20 || (T) == DT_HEX20R)                ? 20                                     \
   : (T) == DT_WEDGE6                                     ? 6                                      \
   : (T) == DT_WEDGE15                                    ? 15                                     \
                                                          : 3)
#define DT_TYPE_NQP(T)                                                                             \
  (((T) == DT_HEX8 || (T) == DT_HEX8I)     ? 8                                                     \
   : (T) == DT_TET10                       ? 4                                                     \
   : ((T) == DT_QUAD4 || (T) == DT_QUAD8R) ? 4                                                     \
   : ((T) == DT_QUAD8 || (T) == DT_QUAD9)  ? 9                                                     \
   : (T) == DT_QUAD16                      ? 16                                                    \
   : (T) == DT_HEX20                       ? 27                                                    \
   : (T) == DT_HEX20R                      ? 8                                                     \
   : (T) == DT_WEDGE6                      ? 2                                                     \
   : (T) == DT_WEDGE15                     ? 9                                                     \
                                           : 1)
#define DT_TYPE_DIM(T)                                                                             \
  (((T) == DT_HEX8 || (T) == DT_HEX8R || (T) == DT_HEX8I || (T) == DT_TET4 || (T) == DT_TET10 ||   \
    (T) == DT_HEX20 || (T) == DT_HEX20R || (T) == DT_WEDGE6 || (T) == DT_WEDGE15)                  \
       ? 3                                                                                         \
       : 2)

/* The kernel type of a mesh (dt_cuda_problem.uniform_type) where no per-type kernels serve it:
 * the generic one-thread-per-element instantiation, which reads each element's type, with local
 * arrays for elements of at most DT_CUDA_GENERIC_DOF DOFs (every type but the 20-node
 * hexahedra and wedge15: 32 DOFs, the size it had before those came), or of any type (the
 * 20-node hexahedra's 60 DOFs: 3.5 times the local memory, which every resident thread
 * reserves, so only meshes that have them, or wedge15's 45, pay for it). Meshes of 20-node
 * hexahedra alone run cooperative kernels of their own (coop_by_type): their tangent kernel's
 * shared scratch (20 nodes, 27 points, 400 node pairs) exceeds the 48 kB of static shared
 * memory and takes it dynamically (cuda_elements_coop.cu); the one-thread-per-element kernels
 * serve them only when a job asks for those, and the matrix-free operator's element products
 * run the generic ones. The wedges have no cooperative kernels: they run the generic
 * kernels, which call the element library for any type, so they need no kernel code of their
 * own (wedge6's 18 DOFs fit the small instantiation, wedge15's need the large one); the
 * cooperative kernels are tuned and tested on the types they list, and a wedge mesh is rarely
 * large enough for their speed to matter. quad8r (quad8 with the 2x2 rule) runs them too, as
 * does every mesh with axisymmetric elements: the generic kernels call dt_element_residual_ws,
 * which adds the hoop strain and the measure 2 pi r dA, while the cooperative kernels form
 * B node by node from dN/dx alone. */
#define DT_CUDA_GENERIC (-1)
#define DT_CUDA_GENERIC_LARGE (-2)
#define DT_CUDA_GENERIC_DOF 32
/* Whether element type t has kernels of its own (a case in dt_by_element_type). */
static inline int dt_cuda_type_has_kernels(int t) {
  return t >= 0 && t < DT_NTYPES && t != DT_WEDGE6 && t != DT_WEDGE15 && t != DT_QUAD8R &&
         t != DT_HEX8R && t != DT_HEX8I;
}

/* Element-type dispatch: L::go<TYPE>(args..., ctx) with TYPE the element type, as a compile-time
 * constant. Any other kernel type: a generic instantiation where GENERIC (the
 * one-thread-per-element kernels have them), go<-1> for DT_CUDA_GENERIC and go<-2> for anything
 * else (DT_CUDA_GENERIC_LARGE, or a type without kernels of its own: arrays large enough for
 * every type), else an error (the cooperative kernels exist per type only). */
template <bool GENERIC> struct dt_other_type {
  template <class L, class... Args> static dt_status go(int type, dt_ctx *ctx, Args... args) {
    if (type == DT_CUDA_GENERIC) return L::template go<DT_CUDA_GENERIC>(args..., ctx);
    return L::template go<DT_CUDA_GENERIC_LARGE>(args..., ctx);
  }
};
template <> struct dt_other_type<false> {
  template <class L, class... Args> static dt_status go(int type, dt_ctx *ctx, Args...) {
    return DT_ERROR(ctx, DT_ERR_INTERNAL, "no cooperative element kernel for element type %d",
                    type);
  }
};
template <class L, bool GENERIC, class... Args>
static dt_status dt_by_element_type(int type, dt_ctx *ctx, Args... args) {
  switch (type) {
  case DT_HEX8: return L::template go<DT_HEX8>(args..., ctx);
  case DT_TET4: return L::template go<DT_TET4>(args..., ctx);
  case DT_TET10: return L::template go<DT_TET10>(args..., ctx);
  case DT_QUAD4: return L::template go<DT_QUAD4>(args..., ctx);
  case DT_TRI3: return L::template go<DT_TRI3>(args..., ctx);
  case DT_QUAD8: return L::template go<DT_QUAD8>(args..., ctx);
  case DT_QUAD9: return L::template go<DT_QUAD9>(args..., ctx);
  case DT_QUAD16: return L::template go<DT_QUAD16>(args..., ctx);
  }
  return dt_other_type<GENERIC>::template go<L>(type, ctx, args...);
}
/* The cooperative kernels' dispatch, for a mesh of one element type: the 20-node hexahedra
 * have cooperative kernels only (the other dispatches give them the generic instantiation). */
template <class L, class... Args>
static dt_status coop_by_type(int type, dt_ctx *ctx, Args... args) {
  if (type == DT_HEX20) return L::template go<DT_HEX20>(args..., ctx);
  if (type == DT_HEX20R) return L::template go<DT_HEX20R>(args..., ctx);
  return dt_by_element_type<L, false>(type, ctx, args...);
}

/* Launch kernel(a, the colour's elements, their count) colour by colour, epb elements per
 * block of `threads` threads with shared_bytes of dynamic shared memory (all element kernels:
 * cooperative and one thread per element);
 * what: "launch of <kernel>" for the error message. */
template <class Kernel>
static dt_status coop_launch_colours(Kernel kernel, int epb, int threads, size_t shared_bytes,
                                     const dt_coop_args &a, const int *h_color_ptr,
                                     const int *color_elems, int n_colors, cudaStream_t stream,
                                     dt_ctx *ctx, const char *what) {
  for (int col = 0; col < n_colors; col++) {
    int first = h_color_ptr[col], n = h_color_ptr[col + 1] - first;
    if (n == 0) continue;
    kernel<<<(n + epb - 1) / epb, threads, shared_bytes, stream>>>(a, color_elems + first, n);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && DT_CUDA_SYNC_LAUNCHES) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return dt_cuda_error(ctx, e, what, __FILE__, __LINE__, __func__);
  }
  return DT_OK;
}

#endif
