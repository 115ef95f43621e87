/* Private layout of dt_ho_proj, shared by the ho_proj*.c files. */
#ifndef DT_HO_PROJ_INTERNAL_H
#define DT_HO_PROJ_INTERNAL_H

#include "core/intern.h"
#include "highorder/ho_basis.h"
#include "highorder/ho_projection.h"

/* Sub-entities of an element are coded per axis in base 3: 0 = fixed at xi = -1, 1 = fixed at
 * xi = +1, 2 = free. The code with every axis free is the interior; 3^dim - 1 others remain. */
#define HO_PROJ_MAX_CODES 27
/* Orientation of an element's edge or face in its entity's canonical frame. */
#define HO_PROJ_FLIP_S 1
#define HO_PROJ_FLIP_T 2
#define HO_PROJ_SWAP 4

/* 1D tables of one order with the mass rule, plus what the element solves need. */
typedef struct ho_proj_basis {
  dt_ho_basis1d b;
  double bt[DT_HO_MAX_NODES * DT_HO_MAX_QPOINTS];  /* bt[a * nqp + q] = L_a(qp[q]) */
  double bsq[DT_HO_MAX_QPOINTS * DT_HO_MAX_NODES]; /* interp squared, for the diagonal */
  double minv[DT_HO_MAX_NODES * DT_HO_MAX_NODES];  /* inverse reference 1D mass matrix */
} ho_proj_basis;

typedef struct ho_proj_elem {
  int order;                  /* P */
  int nn, nq;                 /* (P + 1)^dim nodes, nqp^dim quadrature points */
  size_t off, qoff;           /* start in element-wise values / quadrature arrays */
  size_t int_off;             /* start of its interior unknowns in the dof vector */
  double measure;             /* S_e */
  int ent[HO_PROJ_MAX_CODES]; /* entity of each sub-entity code (-1: interior) */
  unsigned char orient[HO_PROJ_MAX_CODES];
} ho_proj_elem;

struct dt_ho_proj {
  int dim, nelem, ncodes, uniform;
  ho_proj_basis *basis[DT_HO_MAX_ORDER + 1]; /* by order, those in use */
  ho_proj_elem *elem;
  double *coords; /* element-wise nodes, dim per node */
  double *qx;     /* physical quadrature points, dim per point */
  double *qw;     /* w_q |J_q| */
  size_t nvalues, nqtotal, ndofs;
  /* entities (vertices, edges, faces) shared through their corners */
  int nent;
  int *ent_dim, *ent_order;
  size_t *ent_off;     /* start of its interior unknowns in the dof vector */
  double *ent_measure; /* S_p: sum of the measures of the elements that share it */
  int *ent_rec_start;  /* records of entity i: ent_rec[ent_rec_start[i] .. [i + 1]) */
  int *ent_rec;        /* element * ncodes + code */
};

/* out = A applied along axis of in: shape[axis] n -> m, A is m x n row-major. */
DT_INTERN void ho_proj_contract(const double *A, int m, int n, int axis, const int shape[3],
                                const double *in, double *out);
/* out = (A[2] x A[1] x A[0]) in: each A[k] is m x n, in has n^dim values (A[0] along the
 * fastest index), out m^dim. work: HO_PROJ_WORK doubles. */
DT_INTERN void ho_proj_tensor(const double *const A[3], int m, int n, int dim, const double *in,
                              double *out, double *work);
/* Tensor interpolation of nodal values u to the quadrature points (B x B x B) u, or its
 * transpose (quadrature values to nodal sums) when transpose is set. work: HO_PROJ_WORK doubles. */
DT_INTERN void ho_proj_interp(const ho_proj_basis *hb, int dim, int transpose, const double *in,
                              double *out, double *work);
/* v = M_e u, sum-factorised: B^T diag(w |J|) B u. work: 2 HO_PROJ_WORK doubles (also below). */
DT_INTERN void ho_proj_mass_apply(const dt_ho_proj *p, int e, const double *u, double *v,
                                  double *work);
/* diag(M_e) = (B o B)^T (w |J|). */
DT_INTERN void ho_proj_mass_diag(const dt_ho_proj *p, int e, double *d, double *work);
/* f_e = B^T diag(w |J|) f(x_q). */
DT_INTERN void ho_proj_load(const dt_ho_proj *p, int e, dt_ho_proj_fn f, void *user, double *fe,
                            double *work);
/* Entities and the dof numbering (ho_proj_topology.c). */
DT_INTERN dt_status ho_proj_topology(dt_ho_proj *p, dt_ctx *ctx);
/* Number of free axes of a code and its free axes in increasing order. */
DT_INTERN int ho_proj_code_free(int dim, int code, int free_axes[3]);
/* Local free coordinates of an element's sub-entity <-> its entity's canonical frame. */
DT_INTERN void ho_proj_to_canonical(int k, unsigned char orient, const double *loc, double *can);
DT_INTERN void ho_proj_from_canonical(int k, unsigned char orient, const double *can, double *loc);
/* Dof index of node (i[0], i[1], i[2]) of element e (p-uniform numbering). */
DT_INTERN size_t ho_proj_node_dof(const dt_ho_proj *p, int e, const int *idx);
/* Value of element nodal values u (order P) on sub-entity code at local free coords s. */
DT_INTERN double ho_proj_eval_on_entity(const dt_ho_proj *p, int e, int code, const double *u,
                                        const double *s);

#define HO_PROJ_WORK (2 * (DT_HO_MAX_QPOINTS) * (DT_HO_MAX_QPOINTS) * (DT_HO_MAX_QPOINTS))

#endif
