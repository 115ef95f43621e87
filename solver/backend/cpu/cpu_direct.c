/* The sparse direct preconditioner of the CPU backend (linear.preconditioner "direct"): the
 * tangent's Cholesky factor by CHOLMOD (SuiteSparse, Debian's libsuitesparse-dev), so that PCG
 * converges in one iteration on the tangent it was factored from.
 *
 * Why CHOLMOD and not a factor of our own: a supernodal sparse Cholesky with a fill-reducing
 * ordering (AMD, or METIS's nested dissection where it is smaller) is years of work that
 * CHOLMOD has done and that Debian keeps; CalculiX's default (SPOOLES) is the same kind of
 * solver, and on small and medium models engineers expect its robustness.
 *
 * The symbolic analysis (ordering and the factor's pattern) runs once per problem, since the
 * tangent's pattern never changes (constrained rows and columns stay in it as identity); each
 * setup factors the current values. With DT_PC_KEEP_COARSE (the Newton driver asks for it on
 * the later corrections of an increment while PCG converges fast: newton.c) the last factor is
 * kept: PCG then solves the new tangent with a nearby tangent's factor as preconditioner, a few
 * triangular solves instead of a factorization. The CSR arrays serve as CHOLMOD's compressed
 * columns without a copy (the tangent is symmetric: row i's columns are column i's rows), of
 * which CHOLMOD reads the upper triangle. A factor larger than DT_DIRECT_MAX_BYTES is refused
 * before it is computed (DT_ERR_UNSUPPORTED), and a tangent that is not positive definite is
 * DT_ERR_NOT_CONVERGED, as a singular block is for block Jacobi. Results are bit-identical from
 * run to run (CHOLMOD's supernodal factor calls the BLAS, which Debian's reference BLAS runs in
 * a fixed order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "cpu_internal.h"

#ifdef DUCTILE_HAVE_CHOLMOD
#include <cholmod.h>

struct dt_cpu_direct {
  cholmod_common cm;
  cholmod_factor *L;
  long serial; /* the tangent_serial the factor was computed from */
  int factorizations, kept;
  double seconds_analyze, seconds_factor; /* the analysis, the last factorization */
};

/* The tangent's CSR as a CHOLMOD matrix (a view: no copy). */
static cholmod_sparse csr_view(dt_cpu *c) {
  const dt_problem *pb = &c->pb;
  cholmod_sparse A;
  memset(&A, 0, sizeof A);
  A.nrow = A.ncol = (size_t)pb->n_dofs;
  A.nzmax = (size_t)pb->row_ptr[pb->n_dofs];
  A.p = pb->row_ptr;
  A.i = pb->col;
  A.x = c->val;
  A.stype = 1; /* symmetric, the upper triangle read */
  A.itype = CHOLMOD_INT;
  A.xtype = CHOLMOD_REAL;
  A.dtype = CHOLMOD_DOUBLE;
  A.sorted = 1;
  A.packed = 1;
  return A;
}

void dt_cpu_direct_free(dt_cpu *c) {
  dt_cpu_direct *d = c->direct;
  if (!d) return;
  if (d->L) cholmod_free_factor(&d->L, &d->cm);
  cholmod_finish(&d->cm);
  free(d);
  c->direct = NULL;
}

dt_status dt_cpu_direct_setup(dt_cpu *c, int keep, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cpu_direct *d = c->direct;
  cholmod_sparse A;
  double t0 = dt_seconds(), bytes;
  DT_CHECK(!c->pb.matrix_free, ctx, DT_ERR_UNSUPPORTED,
           "linear.preconditioner \"direct\" needs the assembled tangent (linear.operator "
           "\"assembled\")");
  A = csr_view(c);
  if (!d) {
    d = calloc(1, sizeof *d);
    DT_CHECK(d != NULL, ctx, DT_ERR_NOMEM, "out of memory for the direct solver's state");
    c->direct = d;
    cholmod_start(&d->cm);
    d->cm.print = 0; /* errors come back through cm.status, reported below */
    d->cm.error_handler = NULL;
    d->serial = -1;
  }
  /* a nearby tangent's factor serves, if the last factorization completed */
  if (keep && d->L && d->serial >= 0 && d->serial != c->tangent_serial) {
    d->kept++;
    goto cleanup;
  }
  if (!d->L) {
    d->L = cholmod_analyze(&A, &d->cm);
    DT_CHECK(d->L != NULL, ctx,
             d->cm.status == CHOLMOD_OUT_OF_MEMORY ? DT_ERR_NOMEM : DT_ERR_INTERNAL,
             "the direct solver's analysis failed (CHOLMOD status %d)", d->cm.status);
    d->seconds_analyze = dt_seconds() - t0;
    bytes = d->cm.lnz * (double)sizeof(double);
    if (bytes > DT_DIRECT_MAX_BYTES) {
      cholmod_free_factor(&d->L, &d->cm);
      rc = DT_ERROR(ctx, DT_ERR_UNSUPPORTED,
                    "linear.preconditioner \"direct\": the factor of this tangent would hold "
                    "%.3g GB (%.0f nonzeros), more than the %.3g GB the CPU backend allows it; "
                    "use \"amg\" or \"two_level\"",
                    bytes / 1e9, d->cm.lnz, DT_DIRECT_MAX_BYTES / 1e9);
      goto cleanup;
    }
  }
  t0 = dt_seconds();
  d->serial = -1; /* until the factor is whole */
  DT_CHECK(cholmod_factorize(&A, d->L, &d->cm) && d->cm.status != CHOLMOD_OUT_OF_MEMORY, ctx,
           DT_ERR_NOMEM, "out of memory factoring the tangent (CHOLMOD status %d)", d->cm.status);
  DT_CHECK(d->cm.status != CHOLMOD_NOT_POSDEF && d->L->minor >= (size_t)c->pb.n_dofs, ctx,
           DT_ERR_NOT_CONVERGED,
           "the tangent is not positive definite: its Cholesky factor stops at DOF %zu (node "
           "index %zu)",
           (size_t)d->L->minor, (size_t)d->L->minor / (size_t)c->pb.dpn);
  d->serial = c->tangent_serial;
  d->factorizations++;
  d->seconds_factor = dt_seconds() - t0;
cleanup:
  return rc;
}

dt_status dt_cpu_direct_apply(dt_cpu *c, const double *r, double *z, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_cpu_direct *d = c->direct;
  cholmod_dense B, *X = NULL;
  DT_CHECK(d && d->L && d->serial >= 0, ctx, DT_ERR_INTERNAL,
           "the direct preconditioner has no factor (its setup failed)");
  memset(&B, 0, sizeof B);
  B.nrow = B.d = B.nzmax = (size_t)c->pb.n_dofs;
  B.ncol = 1;
  B.x = (void *)r;
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  X = cholmod_solve(CHOLMOD_A, d->L, &B, &d->cm);
  DT_CHECK(X != NULL, ctx, DT_ERR_NOMEM, "the direct solve failed (CHOLMOD status %d)",
           d->cm.status);
  memcpy(z, X->x, sizeof(double) * (size_t)c->pb.n_dofs);
cleanup:
  if (X) cholmod_free_dense(&X, &d->cm);
  return rc;
}

void dt_cpu_direct_view(const dt_cpu *c, FILE *f) {
  const dt_cpu_direct *d = c->direct;
  if (!d || !d->L) return;
  fprintf(f,
          "direct: CHOLMOD %s Cholesky, %.0f nonzeros in the factor (%.1f MB), ordering %s; "
          "analysis %.3f s, last factorization %.3f s; %d factorizations, %d setups kept the "
          "factor\n",
          d->L->is_super ? "supernodal" : "simplicial", d->cm.lnz, d->cm.lnz * 8.0 / 1e6,
          d->L->ordering == CHOLMOD_METIS ? "METIS"
          : d->L->ordering == CHOLMOD_AMD ? "AMD"
                                          : "other",
          d->seconds_analyze, d->seconds_factor, d->factorizations, d->kept);
}

#else /* built without CHOLMOD */

void dt_cpu_direct_free(dt_cpu *c) { (void)c; }

dt_status dt_cpu_direct_setup(dt_cpu *c, int keep, dt_ctx *ctx) {
  (void)c;
  (void)keep;
  return DT_ERROR(ctx, DT_ERR_UNSUPPORTED,
                  "linear.preconditioner \"direct\": this build has no CHOLMOD (install "
                  "libsuitesparse-dev and build again)");
}

dt_status dt_cpu_direct_apply(dt_cpu *c, const double *r, double *z, dt_ctx *ctx) {
  (void)c;
  (void)r;
  (void)z;
  return DT_ERROR(ctx, DT_ERR_INTERNAL, "the direct preconditioner is not built in");
}

void dt_cpu_direct_view(const dt_cpu *c, FILE *f) {
  (void)c;
  (void)f;
}

#endif
