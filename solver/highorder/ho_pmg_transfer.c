/* Transfers between orders of the p-multigrid (ho_pmg.h): evaluation of the coarse element
 * field at the fine nodes, and its exact transpose. */
#include <string.h>

#include "highorder/ho_basis.h"
#include "highorder/ho_pmg_internal.h"

#define NMAX (DT_HO_MESH_MAX_ORDER + 1)
#define N3MAX (NMAX * NMAX * NMAX)

void dt_ho_pmg_tensor3(int no, int ni, const double *I, const double *in, double *out, double *t1,
                       double *t2) {
  /* t1[a + no (j + ni k)] = sum_i I[a][i] in[i + ni (j + ni k)] */
  for (int jk = 0; jk < ni * ni; jk++)
    for (int a = 0; a < no; a++) {
      double s = 0.0;
      for (int i = 0; i < ni; i++) s += I[a * ni + i] * in[i + ni * jk];
      t1[a + no * jk] = s;
    }
  /* t2[a + no (b + no k)] = sum_j I[b][j] t1[a + no (j + ni k)] */
  for (int k = 0; k < ni; k++)
    for (int b = 0; b < no; b++)
      for (int a = 0; a < no; a++) {
        double s = 0.0;
        for (int j = 0; j < ni; j++) s += I[b * ni + j] * t1[a + no * (j + ni * k)];
        t2[a + no * (b + no * k)] = s;
      }
  /* out[a + no (b + no c)] = sum_k I[c][k] t2[a + no (b + no k)] */
  for (int c = 0; c < no; c++)
    for (int ab = 0; ab < no * no; ab++) {
      double s = 0.0;
      for (int k = 0; k < ni; k++) s += I[c * ni + k] * t2[ab + no * no * k];
      out[ab + no * no * c] = s;
    }
}

void dt_ho_pmg_tensor3_t(int no, int ni, const double *I, const double *in, double *out, double *t1,
                         double *t2) {
  /* t2[a + no (b + no k)] = sum_c I[c][k] in[a + no (b + no c)] */
  for (int k = 0; k < ni; k++)
    for (int ab = 0; ab < no * no; ab++) {
      double s = 0.0;
      for (int c = 0; c < no; c++) s += I[c * ni + k] * in[ab + no * no * c];
      t2[ab + no * no * k] = s;
    }
  /* t1[a + no (j + ni k)] = sum_b I[b][j] t2[a + no (b + no k)] */
  for (int k = 0; k < ni; k++)
    for (int j = 0; j < ni; j++)
      for (int a = 0; a < no; a++) {
        double s = 0.0;
        for (int b = 0; b < no; b++) s += I[b * ni + j] * t2[a + no * (b + no * k)];
        t1[a + no * (j + ni * k)] = s;
      }
  /* out[i + ni (j + ni k)] = sum_a I[a][i] t1[a + no (j + ni k)] */
  for (int jk = 0; jk < ni * ni; jk++)
    for (int i = 0; i < ni; i++) {
      double s = 0.0;
      for (int a = 0; a < no; a++) s += I[a * ni + i] * t1[a + no * jk];
      out[i + ni * jk] = s;
    }
}

dt_status dt_ho_pmg_interp_table(int pf, int pc, double *interp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double xf[NMAX], xc[NMAX], w[NMAX];
  DT_CHECK(pf >= 1 && pc >= 1 && pf < NMAX && pc < NMAX, ctx, DT_ERR_INPUT,
           "p-multigrid: orders %d and %d are outside 1..%d", pf, pc, NMAX - 1);
  DT_TRY(dt_ho_gauss_lobatto(pf + 1, xf, w, ctx));
  DT_TRY(dt_ho_gauss_lobatto(pc + 1, xc, w, ctx));
  for (int a = 0; a < pf + 1; a++) dt_ho_lagrange(pc + 1, xc, xf[a], interp + a * (pc + 1), NULL);
cleanup:
  return rc;
}

dt_status dt_ho_pmg_transfer_setup(dt_ho_pmg *pmg, int l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_ho_pmg_level *F = &pmg->lev[l];
  unsigned char *seen = NULL;
  int nf = F->order + 1, nc = pmg->lev[l + 1].order + 1, nf3 = nf * nf * nf;
  DT_ALLOC(F->interp, nf * nc, ctx, "p-multigrid interpolation table");
  DT_TRY(dt_ho_pmg_interp_table(F->order, nc - 1, F->interp, ctx));
  DT_ALLOC(F->own, (size_t)pmg->n_elems * nf3, ctx, "p-multigrid node owners");
  DT_ALLOC(seen, F->n_nodes, ctx, "p-multigrid node owners");
  for (int e = 0; e < pmg->n_elems; e++)
    for (int a = 0; a < nf3; a++) {
      int g = F->elem_nodes[(size_t)e * nf3 + a];
      F->own[(size_t)e * nf3 + a] = !seen[g];
      seen[g] = 1;
    }
cleanup:
  dt_free(seen);
  return rc;
}

void dt_ho_pmg_prolong(const dt_ho_pmg *pmg, int l, const double *xc, double *y) {
  const dt_ho_pmg_level *F = &pmg->lev[l], *C = &pmg->lev[l + 1];
  int nf = F->order + 1, nc = C->order + 1, nf3 = nf * nf * nf, nc3 = nc * nc * nc;
  /* every fine node has one owner, so the writes of different elements never meet */
#pragma omp parallel for schedule(static) if (pmg->n_elems * nf3 >= DT_HO_PARALLEL_POINTS)
  for (int e = 0; e < pmg->n_elems; e++) {
    double in[N3MAX], out[N3MAX], t1[N3MAX], t2[N3MAX];
    const int *rc = C->elem_nodes + (size_t)e * nc3, *rf = F->elem_nodes + (size_t)e * nf3;
    const unsigned char *own = F->own + (size_t)e * nf3;
    for (int c = 0; c < 3; c++) {
      for (int b = 0; b < nc3; b++) in[b] = xc[3 * (size_t)rc[b] + c];
      dt_ho_pmg_tensor3(nf, nc, F->interp, in, out, t1, t2);
      for (int a = 0; a < nf3; a++)
        if (own[a]) y[3 * (size_t)rf[a] + c] = out[a];
    }
  }
}

void dt_ho_pmg_restrict(const dt_ho_pmg *pmg, int l, const double *y, double *xc) {
  const dt_ho_pmg_level *F = &pmg->lev[l], *C = &pmg->lev[l + 1];
  const dt_ho_elastic *cel = &C->el;
  int nf = F->order + 1, nc = C->order + 1, nf3 = nf * nf * nf, nc3 = nc * nc * nc;
  memset(xc, 0, sizeof(double) * (size_t)C->n);
  /* elements of one colour share no coarse node: their scatter-adds never meet */
  for (int k = 0; k < cel->n_colors; k++) {
    int lo = cel->color_ptr[k], hi = cel->color_ptr[k + 1];
#pragma omp parallel for schedule(static) if ((hi - lo) * nf3 >= DT_HO_PARALLEL_POINTS)
    for (int i = lo; i < hi; i++) {
      int e = cel->color_elems[i];
      double in[N3MAX], out[N3MAX], t1[N3MAX], t2[N3MAX];
      const int *rc = C->elem_nodes + (size_t)e * nc3, *rf = F->elem_nodes + (size_t)e * nf3;
      const unsigned char *own = F->own + (size_t)e * nf3;
      for (int c = 0; c < 3; c++) {
        for (int a = 0; a < nf3; a++) in[a] = own[a] ? y[3 * (size_t)rf[a] + c] : 0.0;
        dt_ho_pmg_tensor3_t(nf, nc, F->interp, in, out, t1, t2);
        for (int b = 0; b < nc3; b++) xc[3 * (size_t)rc[b] + c] += out[b];
      }
    }
  }
}
