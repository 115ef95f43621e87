/* p-multigrid preconditioner of order-P elasticity and the plastic tangent (ho_pmg.h). One
 * section per ctest entry; each names its reference and tolerance:
 *  - transfer: on a distorted, curved mesh in mixed element orientations, P = 2..6 with
 *    halving, for every level pair: (R y) . x == y . (P x) for random x, y to 1e-13 relative
 *    (R = P^T); the explicit node matrices (dt_ho_pmg_transfer_matrices) give P x and R y to
 *    1e-13 relative; a trilinear field sampled at the coarse nodes is reproduced by P at every fine
 *    node to 1e-13 relative on the undistorted cube (affine elements: the field is trilinear
 *    in reference coordinates too), a linear field on the distorted one (a trilinear field
 *    composed with a non-affine map is not in Q_p); the coarse constraints of a clamped face
 *    are exactly the coarse nodes on that face;
 *  - cantilever_p2, _p3, _p4: a curved cantilever (10 x 1 x 1 arched in y and z, clamped at
 *    x = 0, end traction) on 8 x 2 x 2 elements: p-MG PCG and Jacobi PCG (both to 1e-10)
 *    agree to 1e-8 relative; p-MG takes at least 4x fewer iterations than Jacobi; refined to
 *    16 x 4 x 4, p-MG takes less than 1.5x the iterations; p-MG at P = 4 takes less than 2x
 *    its P = 2 count (cantilever_p4 runs both);
 *  - plastic: one Newton correction at a partly plastic state of a curved cantilever (P = 3):
 *    K_t c = r solved with p-MG (coarse levels elastic) agrees with Jacobi to 1e-8 relative in
 *    fewer iterations;
 *  - setup: on the curved cantilever at P = 2 on 36 x 8 x 8 elements (two blocks of element
 *    matrices, both loops of the assembly in parallel), the order-1 CSR equals, bit for bit,
 *    the one-element elastic apply of every element to its 24 unit vectors summed in element
 *    order, on 1 thread and on 3; a setup with fine_later refuses an application before
 *    dt_ho_pmg_set_fine (DT_ERR_INPUT, message) and after it applies bit for bit as a plain
 *    setup. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "highorder/ho_elastic.h"
#include "highorder/ho_mesh.h"
#include "highorder/ho_pcg.h"
#include "highorder/ho_plastic.h"
#include "highorder/ho_pmg.h"
#include "../test_expect.h"
#include "ho_test_cantilever.h"
#include "ho_test_mesh.h"

static double dotp(int n, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

static double norm(int n, const double *x) { return sqrt(dotp(n, x, x)); }

/* Unit cube of 3 x 3 x 3 hex8 in mixed orientations: kind 0 undistorted, 1 with interior
 * vertices moved, 2 moved and curved. */
static void mixed_mesh(int P, int kind, dt_ho_mesh *m) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  int nv, ne, *hex8 = NULL;
  double *vx = NULL;
  unsigned seed = 4321u;
  dt_ctx ctx = {0};
  EXPECT(dt_ho_hex8_box(3, 3, 3, lo, hi, &nv, &vx, &ne, &hex8, &ctx) == DT_OK, "%s", ctx.msg);
  for (int v = 0; v < nv; v++) {
    double *p = vx + 3 * v;
    int inside = 1;
    for (int d = 0; d < 3; d++) inside &= p[d] > 1e-12 && p[d] < 1 - 1e-12;
    for (int d = 0; d < 3; d++) {
      double r = 2.0 * ho_test_rnd(&seed) - 1.0;
      if (inside && kind > 0) p[d] += 0.1 / 3 * r;
    }
  }
  for (int e = 0; e < ne; e++) ho_test_rotate_hex(hex8 + 8 * e, e % 4);
  EXPECT(dt_ho_mesh_build(P, nv, vx, ne, hex8, kind == 2 ? ho_test_curve : NULL, NULL, m, &ctx) ==
             DT_OK,
         "%s", ctx.msg);
  dt_free(vx);
  dt_free(hex8);
}

/* A trilinear field (nonlinear = 1) or its linear part: on elements that are trilinear maps
 * of the reference cube, the linear part lies in every order's space; on the undistorted box
 * (axis-aligned, affine elements) the whole trilinear field does. */
static void trilinear(const double x[3], int nonlinear, double u[3]) {
  for (int c = 0; c < 3; c++)
    u[c] = 0.3 + (c + 1) * x[0] - 0.7 * x[1] + 0.4 * c * x[2] +
           nonlinear * (1.3 * x[0] * x[1] - 0.9 * x[1] * x[2] + (0.5 + c) * x[0] * x[2] +
                        2.1 * x[0] * x[1] * x[2]);
}

static void check_transfer(void) {
  for (int P = 2; P <= 6; P++)
    for (int kind = 0; kind <= 2; kind++) {
      dt_ho_mesh m;
      dt_ho_elastic el;
      dt_ho_pmg pmg;
      dt_ho_pmg_opts o;
      dt_ctx ctx = {0};
      double *lam, *mu;
      mixed_mesh(P, kind, &m);
      ho_test_lame(&m, 1000.0, 0.3, &lam, &mu);
      EXPECT(dt_ho_elastic_setup(&m, 0, lam, mu, &el, &ctx) == DT_OK, "%s", ctx.msg);
      int n = 3 * m.n_nodes;
      unsigned char *node_fixed = calloc(m.n_nodes, 1), *fixed = calloc(n, 1);
      double *diag = malloc(sizeof(double) * n);
      dt_ho_mesh_mark_where(&m, ho_test_at_x0, NULL, node_fixed);
      for (int i = 0; i < n; i++) fixed[i] = node_fixed[i / 3];
      EXPECT(dt_ho_elastic_diagonal(&el, diag, &ctx) == DT_OK, "%s", ctx.msg);
      dt_ho_pmg_opts_default(&o);
      EXPECT(dt_ho_pmg_setup(&m, &el, dt_ho_elastic_apply_fn, &el, diag, fixed, &o, &pmg, &ctx) ==
                 DT_OK,
             "P %d: %s", P, ctx.msg);
      for (int l = 0; l + 1 < pmg.n_levels; l++) {
        const dt_ho_pmg_level *F = &pmg.lev[l], *C = &pmg.lev[l + 1];
        const double *fc = l == 0 ? m.coords : F->mesh.coords;
        unsigned seed = 77u + P;
        double *x = malloc(sizeof(double) * C->n), *y = malloc(sizeof(double) * F->n);
        double *Py = malloc(sizeof(double) * F->n), *Rx = malloc(sizeof(double) * C->n);
        for (int i = 0; i < C->n; i++) x[i] = 2 * ho_test_rnd(&seed) - 1;
        for (int i = 0; i < F->n; i++) y[i] = 2 * ho_test_rnd(&seed) - 1;
        /* (R y) . x == y . (P x) */
        dt_ho_pmg_prolong(&pmg, l, x, Py);
        dt_ho_pmg_restrict(&pmg, l, y, Rx);
        double a = dotp(C->n, Rx, x), b = dotp(F->n, y, Py);
        double scale = norm(C->n, Rx) * norm(C->n, x) + norm(F->n, y) * norm(F->n, Py);
        EXPECT(fabs(a - b) <= 1e-13 * scale, "P %d level %d: (Ry).x %.17g vs y.(Px) %.17g", P, l, a,
               b);
        /* the explicit node matrices of the device V-cycle give the same P x and R y */
        {
          dt_ho_pmg_node_csr Pm, Rm;
          double ep = 0.0, er = 0.0, mp = 0.0, mr = 0.0;
          EXPECT(dt_ho_pmg_transfer_matrices(&pmg, l, &Pm, &Rm, &ctx) == DT_OK, "%s", ctx.msg);
          for (int g = 0; g < Pm.n_rows; g++)
            for (int c = 0; c < 3; c++) {
              double v = 0.0;
              for (int k = Pm.ptr[g]; k < Pm.ptr[g + 1]; k++) v += Pm.w[k] * x[3 * Pm.col[k] + c];
              ep = fmax(ep, fabs(v - Py[3 * g + c])), mp = fmax(mp, fabs(Py[3 * g + c]));
            }
          for (int g = 0; g < Rm.n_rows; g++)
            for (int c = 0; c < 3; c++) {
              double v = 0.0;
              for (int k = Rm.ptr[g]; k < Rm.ptr[g + 1]; k++) v += Rm.w[k] * y[3 * Rm.col[k] + c];
              er = fmax(er, fabs(v - Rx[3 * g + c])), mr = fmax(mr, fabs(Rx[3 * g + c]));
            }
          EXPECT(ep <= 1e-13 * mp && er <= 1e-13 * mr,
                 "P %d level %d: node matrices off by %.3e (P) and %.3e (R), relative", P, l,
                 ep / mp, er / mr);
          dt_ho_pmg_node_csr_free(&Pm);
          dt_ho_pmg_node_csr_free(&Rm);
        }
        /* a trilinear (box) or linear (distorted) field at the coarse nodes is reproduced at
         * every fine node; the curved mesh's levels place nodes on different maps */
        if (kind < 2) {
          double err = 0.0, ref = 0.0;
          for (int a2 = 0; a2 < C->n_nodes; a2++)
            trilinear(C->mesh.coords + 3 * a2, kind == 0, x + 3 * a2);
          dt_ho_pmg_prolong(&pmg, l, x, Py);
          for (int a2 = 0; a2 < F->n_nodes; a2++) {
            double u[3];
            trilinear(fc + 3 * a2, kind == 0, u);
            for (int c = 0; c < 3; c++) {
              err = fmax(err, fabs(Py[3 * a2 + c] - u[c]));
              ref = fmax(ref, fabs(u[c]));
            }
          }
          EXPECT(err <= 1e-13 * ref, "P %d level %d: trilinear field off by %.3e (max %.3e)", P, l,
                 err, ref);
        }
        /* coarse constraints: the coarse nodes on x = 0, all three components */
        int bad = 0;
        for (int a2 = 0; a2 < C->n_nodes; a2++)
          for (int c = 0; c < 3; c++)
            bad += C->fixed[3 * a2 + c] != (fabs(C->mesh.coords[3 * a2]) < 1e-12);
        EXPECT(bad == 0, "P %d level %d: %d coarse constraints differ from the clamped face", P, l,
               bad);
        printf("transfer P %d mesh %d level %d (order %d -> %d): |(Ry).x - y.(Px)| / scale %.2e\n",
               P, kind, l, C->order, F->order, fabs(a - b) / scale);
        free(x), free(y), free(Py), free(Rx);
      }
      dt_ho_pmg_free(&pmg);
      free(node_fixed), free(fixed), free(diag), free(lam), free(mu);
      dt_ho_elastic_free(&el);
      dt_ho_mesh_free(&m);
    }
}

typedef struct solve_out {
  int its;
  double seconds, setup;
} solve_out;

/* Solves the cantilever on nx x ny x nz at order P with p-MG (pc = 1) or Jacobi (pc = 0). */
static void cantilever(int P, int nx, int ny, int nz, int pc, double **u_out, int *n_out,
                       solve_out *so) {
  ho_test_cantilever c;
  dt_ctx ctx = {0};
  ho_test_cantilever_build(P, nx, ny, nz, &c);
  int n = c.n;
  double *u = calloc(n, sizeof(double));
  dt_ho_pcg_opts po = {1e-10, 50000};
  dt_ho_pcg_result res = {0};
  double t0 = ho_test_seconds();
  if (pc) {
    dt_ho_pmg pmg;
    dt_ho_pmg_opts o;
    dt_ho_pmg_opts_default(&o);
    EXPECT(dt_ho_pmg_setup(&c.m, &c.el, dt_ho_elastic_apply_fn, &c.el, c.diag, c.fixed, &o, &pmg,
                           &ctx) == DT_OK,
           "%s", ctx.msg);
    so->setup = ho_test_seconds() - t0;
    EXPECT(dt_ho_pcg_solve_pc(n, dt_ho_elastic_apply_fn, &c.el, dt_ho_pmg_apply, &pmg, c.fixed, c.b,
                              u, &po, &res, &ctx) == DT_OK,
           "P %d %dx%dx%d p-MG: %s", P, nx, ny, nz, ctx.msg);
    dt_ho_pmg_free(&pmg);
  } else {
    so->setup = 0.0;
    EXPECT(dt_ho_pcg_solve(n, dt_ho_elastic_apply_fn, &c.el, c.diag, c.fixed, c.b, u, &po, &res,
                           &ctx) == DT_OK,
           "P %d %dx%dx%d Jacobi: %s", P, nx, ny, nz, ctx.msg);
  }
  so->seconds = ho_test_seconds() - t0;
  so->its = res.iterations;
  printf("cantilever P %d %2dx%dx%d %6d DOFs %-6s %5d its %8.3f s (setup %.3f s)\n", P, nx, ny, nz,
         n, pc ? "p-MG" : "Jacobi", res.iterations, so->seconds, so->setup);
  fflush(stdout);
  *u_out = u;
  *n_out = n;
  ho_test_cantilever_free(&c);
}

/* Section cantilever_p<P>: Jacobi vs p-MG at 8 x 2 x 2, p-MG at 16 x 4 x 4. Returns p-MG's
 * iterations at 8 x 2 x 2. */
static int check_cantilever(int P) {
  double *uj, *um, *uf;
  int n, nf;
  solve_out sj, sm, sf;
  cantilever(P, 8, 2, 2, 0, &uj, &n, &sj);
  cantilever(P, 8, 2, 2, 1, &um, &n, &sm);
  cantilever(P, 16, 4, 4, 1, &uf, &nf, &sf);
  double d = 0.0;
  for (int i = 0; i < n; i++) d += (uj[i] - um[i]) * (uj[i] - um[i]);
  d = sqrt(d) / norm(n, uj);
  printf("P %d: |u_pmg - u_jacobi| / |u_jacobi| = %.2e; iterations Jacobi / p-MG %.1f; refined / "
         "coarse p-MG %.2f\n",
         P, d, (double)sj.its / sm.its, (double)sf.its / sm.its);
  EXPECT(d <= 1e-8, "P %d: p-MG and Jacobi solutions differ by %.3e relative", P, d);
  EXPECT(4 * sm.its <= sj.its, "P %d: p-MG %d iterations, Jacobi %d (want 4x fewer)", P, sm.its,
         sj.its);
  EXPECT(sf.its < 1.5 * sm.its, "P %d: p-MG %d iterations refined vs %d (want < 1.5x)", P, sf.its,
         sm.its);
  free(uj), free(um), free(uf);
  return sm.its;
}

static void check_cantilever_p2(void) { check_cantilever(2); }
static void check_cantilever_p3(void) { check_cantilever(3); }
static void check_cantilever_p4(void) {
  int i4 = check_cantilever(4), i2;
  double *u;
  int n;
  solve_out so;
  cantilever(2, 8, 2, 2, 1, &u, &n, &so);
  i2 = so.its;
  free(u);
  printf("p-MG iterations P 4 / P 2: %d / %d = %.2f\n", i4, i2, (double)i4 / i2);
  EXPECT(i4 < 2 * i2, "p-MG: %d iterations at P 4 vs %d at P 2 (want < 2x)", i4, i2);
}

static void check_plastic(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {4, 1, 1};
  const int P = 3, nx = 8, ny = 2, nz = 2;
  dt_material_params mat;
  dt_ho_mesh m;
  dt_ho_elastic el;
  dt_ho_plastic pl;
  dt_ctx ctx = {0};
  double *lam, *mu, load = 13.5;
  memset(&mat, 0, sizeof mat);
  mat.E = 200000.0;
  mat.nu = 0.3;
  mat.plastic = DT_PLASTIC_J2;
  mat.iso = DT_ISO_LINEAR;
  mat.sigma_y0 = 250.0;
  mat.H = 6600.0;
  EXPECT(dt_ho_mesh_box(P, nx, ny, nz, lo, hi, NULL, NULL, &m, &ctx) == DT_OK, "%s", ctx.msg);
  ho_test_lame(&m, mat.E, mat.nu, &lam, &mu);
  int *em = calloc(m.n_elems, sizeof(int));
  EXPECT(dt_ho_elastic_setup(&m, 0, lam, mu, &el, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_plastic_setup(&el, 1, &mat, em, &pl, &ctx) == DT_OK, "%s", ctx.msg);
  int n = 3 * m.n_nodes, elem[4], face[4];
  unsigned char *node_fixed = calloc(m.n_nodes, 1), *fixed = calloc(n, 1);
  double *f = calloc(n, sizeof(double)), *u = calloc(n, sizeof(double)),
         *fint = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n),
         *diag = malloc(sizeof(double) * n), *cj = calloc(n, sizeof(double)),
         *cm = calloc(n, sizeof(double));
  dt_ho_mesh_mark_where(&m, ho_test_at_x0, NULL, node_fixed);
  for (int i = 0; i < n; i++) fixed[i] = node_fixed[i / 3];
  for (int k = 0; k < ny * nz; k++) elem[k] = nx - 1 + nx * k, face[k] = 3;
  /* the end load of test_ho_plastic's cantilever (86% of the limit load) */
  EXPECT(dt_ho_elastic_traction_load(&el, &m, ny * nz, elem, face, ho_test_end_load, &load, f,
                                     &ctx) == DT_OK,
         "%s", ctx.msg);
  dt_ho_newton_problem pb = {fixed, NULL, f};
  dt_ho_newton_opts no = {.n_increments = 2,
                          .max_iter = 30,
                          .rtol = 1e-10,
                          .dtol = 1e-3,
                          .pcg_rtol = 1e-12,
                          .pcg_max_it = 20000};
  dt_ho_newton_report rep;
  EXPECT(dt_ho_plastic_solve(&pl, &pb, &no, u, &rep, &ctx) == DT_OK, "%s", ctx.msg);
  /* a further load step: the first Newton correction from the converged state */
  dt_ho_plastic_report prep;
  EXPECT(dt_ho_plastic_residual(&pl, u, fint, &prep, &ctx) == DT_OK, "%s", ctx.msg);
  for (int i = 0; i < n; i++) r[i] = fixed[i] ? 0.0 : 1.1 * f[i] - fint[i];
  EXPECT(dt_ho_plastic_residual(&pl, u, fint, &prep, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_plastic_tangent_diagonal(&pl, diag, &ctx) == DT_OK, "%s", ctx.msg);
  dt_ho_pcg_opts po = {1e-10, 20000};
  dt_ho_pcg_result rj = {0}, rm = {0};
  double t0 = ho_test_seconds();
  EXPECT(dt_ho_pcg_solve(n, dt_ho_plastic_tangent_apply_fn, &pl, diag, fixed, r, cj, &po, &rj,
                         &ctx) == DT_OK,
         "Jacobi: %s", ctx.msg);
  double tj = ho_test_seconds() - t0;
  dt_ho_pmg pmg;
  dt_ho_pmg_opts o;
  dt_ho_pmg_opts_default(&o);
  t0 = ho_test_seconds();
  EXPECT(dt_ho_pmg_setup(&m, &el, dt_ho_plastic_tangent_apply_fn, &pl, diag, fixed, &o, &pmg,
                         &ctx) == DT_OK,
         "%s", ctx.msg);
  EXPECT(dt_ho_pcg_solve_pc(n, dt_ho_plastic_tangent_apply_fn, &pl, dt_ho_pmg_apply, &pmg, fixed, r,
                            cm, &po, &rm, &ctx) == DT_OK,
         "p-MG: %s", ctx.msg);
  double tm = ho_test_seconds() - t0;
  double d = 0.0;
  for (int i = 0; i < n; i++) d += (cj[i] - cm[i]) * (cj[i] - cm[i]);
  d = sqrt(d) / norm(n, cj);
  printf("plastic tangent P %d, %d DOFs, %ld of %ld points plastic: Jacobi %d its %.3f s, p-MG %d "
         "its %.3f s (setup included), |c_pmg - c_jacobi| / |c_jacobi| %.2e\n",
         P, n, prep.n_plastic, pl.n_points, rj.iterations, tj, rm.iterations, tm, d);
  EXPECT(prep.n_plastic > 0, "no plastic point");
  EXPECT(rm.iterations < rj.iterations, "p-MG %d iterations, Jacobi %d", rm.iterations,
         rj.iterations);
  EXPECT(d <= 1e-8, "corrections differ by %.3e relative", d);
  dt_ho_pmg_free(&pmg);
  free(em), free(node_fixed), free(fixed), free(f), free(u), free(fint), free(r), free(diag);
  free(cj), free(cm), free(lam), free(mu);
  dt_ho_plastic_free(&pl);
  dt_ho_elastic_free(&el);
  dt_ho_mesh_free(&m);
}

/* The order-1 level's matrix as the assembly defines it: each element's elastic apply alone (a
 * one-element view) to its 24 unit vectors, added entry by entry in element order. */
static double *reference_values(const dt_ho_pmg *pmg) {
  const dt_ho_pmg_level *C = &pmg->lev[pmg->n_levels - 1];
  const dt_ho_elastic *el = &C->el;
  int n = C->n, nq3 = el->nq * el->nq * el->nq, local[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int cptr[2] = {0, 1}, celem[1] = {0};
  double *val = calloc(pmg->row_ptr[n], sizeof(double)), unit[24], col[24];
  dt_ctx ctx = {0};
  for (int e = 0; e < el->n_elems; e++) {
    dt_ho_elastic view = *el;
    const int *row = C->elem_nodes + 8 * (size_t)e;
    view.n_elems = 1, view.n_nodes = 8, view.elem_nodes = local;
    view.qdata = el->qdata + (size_t)e * DT_HO_QDATA_SIZE * nq3;
    view.lambda = el->lambda + e, view.mu = el->mu + e;
    view.n_colors = 1, view.color_ptr = cptr, view.color_elems = celem;
    for (int j = 0; j < 24; j++) {
      memset(unit, 0, sizeof unit);
      unit[j] = 1.0;
      EXPECT(dt_ho_elastic_apply(&view, unit, col, &ctx) == DT_OK, "%s", ctx.msg);
      int cj = 3 * row[j / 3] + j % 3;
      for (int i = 0; i < 24; i++) {
        int ri = 3 * row[i / 3] + i % 3, k = pmg->row_ptr[ri];
        while (k < pmg->row_ptr[ri + 1] && pmg->col[k] != cj) k++;
        val[k] += col[i];
      }
    }
  }
  for (int i = 0; i < n; i++) /* constrained rows and columns: identity */
    for (int k = pmg->row_ptr[i]; k < pmg->row_ptr[i + 1]; k++)
      if (C->fixed[i] || C->fixed[pmg->col[k]]) val[k] = i == pmg->col[k] ? 1.0 : 0.0;
  return val;
}

/* The order-1 CSR of a setup on `threads` threads against ref (NULL: returns a copy to be
 * the reference). */
static double *check_assembly(const ho_test_cantilever *c, int threads, const double *ref) {
  dt_ho_pmg pmg;
  dt_ho_pmg_opts o;
  dt_ctx ctx = {0};
  double *val = NULL;
#ifdef _OPENMP
  int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
#endif
  dt_ho_pmg_opts_default(&o);
  EXPECT(dt_ho_pmg_setup(&c->m, &c->el, dt_ho_elastic_apply_fn, &c->el, c->diag, c->fixed, &o, &pmg,
                         &ctx) == DT_OK,
         "%s", ctx.msg);
#ifdef _OPENMP
  omp_set_num_threads(saved);
#endif
  int n = pmg.lev[pmg.n_levels - 1].n, nnz = pmg.row_ptr[n];
  EXPECT(pmg.n_elems > 2048 && n / 3 >= 1024, "the mesh is too small to test the blocks");
  if (!ref) {
    val = reference_values(&pmg);
    ref = val;
  }
  EXPECT(!memcmp(pmg.val, ref, sizeof(double) * nnz),
         "order-1 matrix on %d threads differs from the one-element applies", threads);
  dt_ho_pmg_free(&pmg);
  return val;
}

/* fine_later: no application before set_fine, then the same bits as a plain setup. */
static void check_fine_later(const ho_test_cantilever *c) {
  dt_ho_pmg plain, later;
  dt_ho_pmg_opts o;
  dt_ctx ctx = {0};
  double *z1 = malloc(sizeof(double) * c->n), *z2 = malloc(sizeof(double) * c->n);
  dt_ho_pmg_opts_default(&o);
  EXPECT(dt_ho_pmg_setup(&c->m, &c->el, dt_ho_elastic_apply_fn, &c->el, c->diag, c->fixed, &o,
                         &plain, &ctx) == DT_OK,
         "%s", ctx.msg);
  o.fine_later = 1;
  EXPECT(dt_ho_pmg_setup(&c->m, &c->el, NULL, NULL, NULL, c->fixed, &o, &later, &ctx) == DT_OK,
         "%s", ctx.msg);
  EXPECT(dt_ho_pmg_apply(&later, c->b, z2, &ctx) == DT_ERR_INPUT &&
             strstr(ctx.msg, "applied before its finest operator was set"),
         "apply before set_fine: %s", ctx.msg);
  EXPECT(dt_ho_pmg_set_fine(&later, dt_ho_elastic_apply_fn, &c->el, c->diag, &ctx) == DT_OK, "%s",
         ctx.msg);
  EXPECT(dt_ho_pmg_apply(&plain, c->b, z1, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(dt_ho_pmg_apply(&later, c->b, z2, &ctx) == DT_OK, "%s", ctx.msg);
  EXPECT(later.lev[0].lambda_max == plain.lev[0].lambda_max &&
             !memcmp(z1, z2, sizeof(double) * c->n),
         "fine_later then set_fine applies differently from a plain setup");
  dt_ho_pmg_free(&plain);
  dt_ho_pmg_free(&later);
  free(z1), free(z2);
}

static void check_setup(void) {
  ho_test_cantilever c;
  ho_test_cantilever_build(2, 36, 8, 8, &c);
  double *ref = check_assembly(&c, 1, NULL);
  if (ref) check_assembly(&c, 3, ref);
  free(ref);
  check_fine_later(&c);
  ho_test_cantilever_free(&c);
}

/* Usage: test_ho_pmg [section ...]; no section runs them all. */
int main(int argc, char **argv) {
  void (*part[])(void) = {check_transfer,      check_cantilever_p2, check_cantilever_p3,
                          check_cantilever_p4, check_plastic,       check_setup};
  const char *name[] = {"transfer",      "cantilever_p2", "cantilever_p3",
                        "cantilever_p4", "plastic",       "setup"};
  const int nparts = 6;
  for (int k = 0; k < nparts; k++) {
    int run = argc <= 1;
    for (int a = 1; a < argc; a++) run |= !strcmp(argv[a], name[k]);
    if (run) part[k]();
  }
  return failures != 0;
}
