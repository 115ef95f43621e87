/* The seed's cantilever for explicit dynamics (ho_explicit_beam.h). */
#include "highorder/ho_explicit_beam.h"

#include <math.h>
#include <string.h>

#include "highorder/ho_pcg.h"

static void end_traction(const double x[3], const double n[3], double t[3], void *user) {
  (void)x, (void)n;
  t[0] = 0.0;
  t[1] = -*(const double *)user;
  t[2] = 0.0;
}

dt_status dt_ho_beam_setup(int P, int nx, int ny, int nz, double E, double nu, double rho, double q,
                           dt_ho_mass_kind kind, dt_ho_beam *b, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const double lo[3] = {0, 0, 0}, hi[3] = {DT_HO_BEAM_LENGTH, 1, 1};
  double *lam = NULL, *mu = NULL, best = INFINITY;
  int *elem = NULL, *face = NULL;
  memset(b, 0, sizeof(*b));
  b->E = E, b->nu = nu, b->rho = rho, b->q = q, b->kind = kind;
  DT_CHECK(nx >= 1 && ny >= 1 && nz >= 1, ctx, DT_ERR_INPUT,
           "beam mesh %dx%dx%d needs at least one element per direction", nx, ny, nz);
  DT_TRY(dt_ho_mesh_box(P, nx, ny, nz, lo, hi, NULL, NULL, &b->mesh, ctx));
  int nn = b->mesh.n_nodes, ne = b->mesh.n_elems;
  DT_ALLOC(lam, ne, ctx, "beam lambda");
  DT_ALLOC(mu, ne, ctx, "beam mu");
  for (int e = 0; e < ne; e++) dt_ho_lame(E, nu, &lam[e], &mu[e]);
  DT_TRY(dt_ho_elastic_setup(&b->mesh, 0, lam, mu, &b->op, ctx));
  b->mass_op.op = &b->op;
  b->mass_op.rho = rho;
  DT_ALLOC(b->mass, nn, ctx, "beam lumped mass");
  if (kind == DT_HO_MASS_GLL)
    DT_TRY(dt_ho_mass_gll(&b->mesh, rho, b->mass, ctx));
  else
    DT_TRY(dt_ho_mass_rowsum(&b->op, &b->mesh, rho, b->mass, ctx));
  b->fixed = dt_calloc(3 * (size_t)nn, 1);
  b->f = dt_calloc(3 * (size_t)nn, sizeof(double));
  DT_CHECK(b->fixed && b->f, ctx, DT_ERR_NOMEM, "out of memory allocating the beam's load");
  for (int a = 0; a < nn; a++) {
    const double *x = b->mesh.coords + 3 * (size_t)a;
    double dist = hypot(hypot(x[0] - DT_HO_BEAM_LENGTH, x[1] - 0.5), x[2] - 0.5);
    if (dist < best) best = dist, b->tip = a;
    for (int c = 0; c < 3; c++) b->fixed[3 * a + c] = fabs(x[0]) < 1e-12;
  }
  for (int i = 0; i < 3 * nn; i++) b->free_dofs += !b->fixed[i];
  DT_ALLOC(elem, ny * nz, ctx, "beam end faces");
  DT_ALLOC(face, ny * nz, ctx, "beam end faces");
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++) {
      elem[j + ny * k] = nx - 1 + nx * (j + ny * k);
      face[j + ny * k] = 3; /* S4: xi = +1, the x = 10 end of a box element */
    }
  DT_TRY(dt_ho_elastic_traction_load(&b->op, &b->mesh, ny * nz, elem, face, end_traction, &b->q,
                                     b->f, ctx));
cleanup:
  dt_free(lam);
  dt_free(mu);
  dt_free(elem);
  dt_free(face);
  return rc;
}

void dt_ho_beam_free(dt_ho_beam *b) {
  if (!b) return;
  dt_ho_elastic_free(&b->op);
  dt_ho_mesh_free(&b->mesh);
  dt_free(b->mass);
  dt_free(b->fixed);
  dt_free(b->f);
  memset(b, 0, sizeof(*b));
}

void dt_ho_beam_problem(const dt_ho_beam *b, dt_ho_explicit_problem *pb) {
  memset(pb, 0, sizeof(*pb));
  pb->n = 3 * b->mesh.n_nodes;
  pb->K = dt_ho_elastic_apply_fn;
  pb->K_op = &b->op;
  pb->mass = b->mass;
  if (b->kind == DT_HO_MASS_CONSISTENT) {
    pb->M = dt_ho_mass_apply_fn;
    pb->M_op = &b->mass_op;
  }
  pb->fixed = b->fixed;
  pb->f = b->f;
}

dt_status dt_ho_beam_static(const dt_ho_beam *b, double rtol, double *u, int *iterations,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = 3 * b->mesh.n_nodes;
  double *diag = NULL;
  dt_ho_pcg_opts opts = {rtol, 100000};
  dt_ho_pcg_result res = {0};
  DT_ALLOC(diag, n, ctx, "beam stiffness diagonal");
  DT_TRY(dt_ho_elastic_diagonal(&b->op, diag, ctx));
  memset(u, 0, sizeof(double) * n);
  DT_TRY(dt_ho_pcg_solve(n, dt_ho_elastic_apply_fn, &b->op, diag, b->fixed, b->f, u, &opts, &res,
                         ctx));
cleanup:
  if (iterations) *iterations = res.iterations;
  dt_free(diag);
  return rc;
}

double dt_ho_beam_timoshenko(const dt_ho_beam *b) {
  double L = DT_HO_BEAM_LENGTH, I = 1.0 / 12.0, G = b->E / (2.0 * (1.0 + b->nu));
  double kappa = 10.0 * (1.0 + b->nu) / (12.0 + 11.0 * b->nu);
  return b->q * L * L * L / (3.0 * b->E * I) + b->q * L / (kappa * G);
}

double dt_ho_beam_omega1(const dt_ho_beam *b) {
  double L = DT_HO_BEAM_LENGTH, beta = 1.875104;
  return beta * beta * sqrt(b->E / 12.0 / (b->rho * L * L * L * L));
}

dt_status dt_ho_beam_parts_build(const dt_ho_beam *b, int nparts, dt_ho_beam_parts *bp,
                                 dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_explicit_parts xp;
  int tip = 3 * b->tip + 1; /* its y DOF */
  memset(bp, 0, sizeof(*bp));
  bp->tip_part = bp->tip_dof = -1;
  rc = dt_ho_explicit_parts_build(&b->mesh, nparts, b->E, b->nu, b->mass, b->f, b->fixed, 1, &tip,
                                  &xp, ctx);
  /* hand the parts over (also after an error, so that dt_ho_beam_parts_free releases them) */
  bp->parts = xp.parts, bp->mass = xp.mass, bp->f = xp.f;
  if (rc == DT_OK) bp->tip_part = xp.watch_part[0], bp->tip_dof = xp.watch_dof[0];
  dt_free(xp.watch_part);
  dt_free(xp.watch_dof);
  return rc;
}

void dt_ho_beam_parts_free(dt_ho_beam_parts *bp) {
  if (!bp) return;
  dt_ho_explicit_parts xp;
  memset(&xp, 0, sizeof(xp));
  xp.parts = bp->parts, xp.mass = bp->mass, xp.f = bp->f;
  dt_ho_explicit_parts_free(&xp);
  memset(bp, 0, sizeof(*bp));
}
