/* The model compiled for explicit dynamics: node copies, masses, the gather lists, the stable
 * step, and per step the prescribed motion and the loads (explicit.h).
 *
 * Shells. Directors: a node's reference director is the mean of the unit normals its elements
 * have at it (so every copy of the node starts from one director, and a smooth shell has one
 * normal per node). Masses: row sums of each element's lumped mass (shell_mitc4.h), added
 * over the node. Rotary inertia: rho h^3 / 12 per area is far too small for a thin shell's
 * rotations not to limit the step (their transverse-shear frequency grows like 1/h); as
 * explicit shell codes do, it is scaled up, by default to the least inertia with which the
 * rotations of each element are stable at the membrane step (below).
 *
 * Solids (hex8). Masses: row sums of the consistent mass (hex8_explicit.h), added over the
 * node; the stable step per element L / c with L the volume over the largest face and c the
 * larger of the dilatational speed and sqrt(3 K / rho) (dt_hex8x_wave_speed). */
#include <math.h>
#include <string.h>

#include "explicit.h"

#define SHEAR_FACTOR (5.0 / 6.0)

void dt_xp_problem_free(dt_xp_problem *xp) {
  dt_free(xp->X0);
  dt_free(xp->D0);
  dt_free(xp->inv_mass);
  dt_free(xp->q0);
  dt_free(xp->owner);
  dt_free(xp->nbr_ptr);
  dt_free(xp->nbr);
  dt_free(xp->thick);
  dt_free(xp->mat);
  dt_free(xp->mats);
  dt_free(xp->node);
  dt_free(xp->send);
  memset(xp, 0, sizeof *xp);
}

void dt_xp_step_free(dt_xp_step *st) {
  dt_free(st->bcs);
  dt_free(st->bc);
  dt_free(st->fc);
  dt_free(st->pressure);
  memset(st, 0, sizeof *st);
}

static void elem_coords(const dt_model *m, int e, int npe, double *X) {
  for (int a = 0; a < npe; a++)
    for (int k = 0; k < 3; k++) X[3 * a + k] = m->x[3 * m->conn[m->elem_ptr[e] + a] + k];
}

/* Unit normals at the nodes: the mean of the element corner normals. */
static dt_status node_directors(const dt_model *m, double *D, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  double X[12], e1[3], e2[3], c[3];

  for (int e = 0; e < m->n_elems; e++) {
    elem_coords(m, e, 4, X);
    for (int a = 0; a < 4; a++) {
      const int b = (a + 1) % 4, p = (a + 3) % 4, n = m->conn[m->elem_ptr[e] + a];
      double len;
      for (int k = 0; k < 3; k++) {
        e1[k] = X[3 * b + k] - X[3 * a + k];
        e2[k] = X[3 * p + k] - X[3 * a + k];
      }
      dt_xp_cross3(e1, e2, c);
      len = sqrt(dt_xp_dot3(c, c));
      for (int k = 0; k < 3; k++) D[3 * n + k] += c[k] / len;
    }
  }
  for (int n = 0; n < m->n_nodes; n++) {
    double len = sqrt(dt_xp_dot3(&D[3 * n], &D[3 * n]));
    DT_CHECK(len > 1e-3, ctx, DT_ERR_INPUT,
             "node %lld: the shells around it face opposite ways (their normals cancel): a node "
             "of a smooth shell has one normal; orient the elements consistently",
             (long long)m->node_id[n]);
    for (int k = 0; k < 3; k++) D[3 * n + k] /= len;
  }
cleanup:
  return rc;
}

/* Masses, rotary inertia and the stable step of every shell element; nodal sums into mt, mr. */
static void shell_masses(const dt_model *m, dt_xp_problem *xp, double *mt, double *mr) {
  const double scale_given = m->steps[0].explicit_.rotary_scale;
  xp->dt_crit = INFINITY;
  xp->rotary_factor = 1.0;
  for (int e = 0; e < m->n_elems; e++) {
    const dt_section *sec = &m->sections[m->elem_section[e]];
    const dt_material *mat = &m->materials[sec->material];
    const double E = mat->p.E, nu = mat->p.nu, rho = mat->density, h = sec->thickness;
    const double G = E / (2.0 * (1.0 + nu)), Dm = E * h * h * h / (12.0 * (1.0 - nu * nu));
    const double c = sqrt(E / (rho * (1.0 - nu * nu)));
    double X[12], et[4], er[4], L, dt_e;
    elem_coords(m, e, 4, X);
    dt_mitc4_lumped_mass(X, h, rho, et, er);
    L = dt_mitc4_length(X);
    dt_e = L / c;
    for (int a = 0; a < 4; a++) {
      /* the rotations' stiffness at a node of the element: transverse shear k G h and
       * bending ~ 4 D / L^2, per area; stable at dt_e with a margin of 2 when
       * I >= K dt_e^2 / 2 */
      const double area = et[a] / (rho * h);
      const double K = area * (SHEAR_FACTOR * G * h + 4.0 * Dm / (L * L));
      double I = er[a];
      if (scale_given > 0)
        I *= scale_given;
      else if (K * dt_e * dt_e / 2.0 > I)
        I = K * dt_e * dt_e / 2.0;
      if (I / er[a] > xp->rotary_factor) xp->rotary_factor = I / er[a];
      {
        const double dt_rot = 2.0 * sqrt(I / K); /* only binds with a given scale */
        if (dt_rot < dt_e) dt_e = dt_rot;
      }
      mt[m->conn[m->elem_ptr[e] + a]] += et[a];
      mr[m->conn[m->elem_ptr[e] + a]] += I;
    }
    if (dt_e < xp->dt_crit) {
      xp->dt_crit = dt_e;
      xp->dt_crit_elem = e;
    }
  }
}

/* Masses and the stable step of every hex8 element; nodal sums into mt. */
static void hex8_masses(const dt_model *m, dt_xp_problem *xp, double *mt) {
  xp->dt_crit = INFINITY;
  xp->rotary_factor = 1.0;
  for (int e = 0; e < m->n_elems; e++) {
    const dt_material *mat = &m->materials[m->sections[m->elem_section[e]].material];
    double X[24], me[8], dt_e;
    elem_coords(m, e, 8, X);
    dt_hex8x_lumped_mass(X, mat->density, me);
    dt_e = dt_hex8x_length(X) / dt_hex8x_wave_speed(&mat->p, mat->density);
    for (int a = 0; a < 8; a++) mt[m->conn[m->elem_ptr[e] + a]] += me[a];
    if (dt_e < xp->dt_crit) {
      xp->dt_crit = dt_e;
      xp->dt_crit_elem = e;
    }
  }
}

/* The copies of every node in ascending element order (node-major CSR), then each copy's
 * list: its node's. */
static dt_status gather_lists(const dt_model *m, dt_xp_problem *xp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int ne = m->n_elems, npe = xp->npe, nc = npe * ne;
  int *nptr = NULL, *nlist = NULL, *fill = NULL;
  long total = 0;

  DT_ALLOC(nptr, m->n_nodes + 1, ctx, "node copy counts");
  DT_ALLOC(fill, m->n_nodes, ctx, "node copy fill");
  DT_ALLOC(nlist, nc, ctx, "node copy lists");
  for (int e = 0; e < ne; e++)
    for (int a = 0; a < npe; a++) nptr[m->conn[m->elem_ptr[e] + a] + 1]++;
  for (int n = 0; n < m->n_nodes; n++) nptr[n + 1] += nptr[n];
  for (int e = 0; e < ne; e++) /* elements ascending */
    for (int a = 0; a < npe; a++) {
      const int n = m->conn[m->elem_ptr[e] + a];
      nlist[nptr[n] + fill[n]++] = DT_XP_COPY(e, a, ne);
    }
  for (int e = 0; e < ne; e++)
    for (int a = 0; a < npe; a++) {
      const int n = m->conn[m->elem_ptr[e] + a];
      total += nptr[n + 1] - nptr[n];
    }
  DT_CHECK(total < 2147483647L, ctx, DT_ERR_UNSUPPORTED,
           "the mesh has too many node copies for 32-bit gather lists");
  xp->n_nbr = (int)total;
  DT_ALLOC(xp->nbr_ptr, nc + 1, ctx, "gather list offsets");
  DT_ALLOC(xp->nbr, total, ctx, "gather lists");
  DT_ALLOC(xp->owner, nc, ctx, "node owners");
  DT_ALLOC(xp->node, nc, ctx, "copy nodes");
  for (int c = 0, j = 0; c < nc; c++) { /* copy c is local node c / ne of element c % ne */
    const int n = m->conn[m->elem_ptr[c % ne] + c / ne];
    xp->node[c] = n;
    xp->owner[c] = nlist[nptr[n]] == c;
    for (int i = nptr[n]; i < nptr[n + 1]; i++) xp->nbr[j++] = nlist[i];
    xp->nbr_ptr[c + 1] = j;
  }
cleanup:
  dt_free(nptr);
  dt_free(nlist);
  dt_free(fill);
  return rc;
}

/* The rotation taking the global axes to a node's reference frame (v1, v2, director) of
 * dt_mitc4_node_basis, as a unit quaternion (from the rotation matrix, Shepperd's method). */
static void reference_frame(const double d[3], double q[4]) {
  double v1[3], v2[3], R[3][3], S, n;
  dt_mitc4_node_basis(d, v1, v2);
  for (int i = 0; i < 3; i++) R[i][0] = v1[i], R[i][1] = v2[i], R[i][2] = d[i];
  if (R[0][0] + R[1][1] + R[2][2] > 0) {
    S = 2.0 * sqrt(1.0 + R[0][0] + R[1][1] + R[2][2]);
    q[0] = 0.25 * S, q[1] = (R[2][1] - R[1][2]) / S, q[2] = (R[0][2] - R[2][0]) / S;
    q[3] = (R[1][0] - R[0][1]) / S;
  } else if (R[0][0] > R[1][1] && R[0][0] > R[2][2]) {
    S = 2.0 * sqrt(1.0 + R[0][0] - R[1][1] - R[2][2]);
    q[0] = (R[2][1] - R[1][2]) / S, q[1] = 0.25 * S, q[2] = (R[0][1] + R[1][0]) / S;
    q[3] = (R[0][2] + R[2][0]) / S;
  } else if (R[1][1] > R[2][2]) {
    S = 2.0 * sqrt(1.0 + R[1][1] - R[0][0] - R[2][2]);
    q[0] = (R[0][2] - R[2][0]) / S, q[1] = (R[0][1] + R[1][0]) / S, q[2] = 0.25 * S;
    q[3] = (R[1][2] + R[2][1]) / S;
  } else {
    S = 2.0 * sqrt(1.0 + R[2][2] - R[0][0] - R[1][1]);
    q[0] = (R[1][0] - R[0][1]) / S, q[1] = (R[0][2] + R[2][0]) / S;
    q[2] = (R[1][2] + R[2][1]) / S, q[3] = 0.25 * S;
  }
  n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

/* The shells' copies: reference positions and directors, frames, masses, thickness. */
static dt_status build_shells(const dt_model *m, dt_xp_problem *xp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int ne = m->n_elems, nc = 4 * ne;
  double *D = NULL, *mt = NULL, *mr = NULL;

  xp->npe = 4, xp->nv = 5, xp->nq = 4, xp->nm = 2, xp->n_faces = 1;
  DT_ALLOC(D, 3 * (size_t)m->n_nodes, ctx, "node directors");
  DT_ALLOC(mt, m->n_nodes, ctx, "node masses");
  DT_ALLOC(mr, m->n_nodes, ctx, "node rotary inertia");
  DT_TRY(node_directors(m, D, ctx));
  shell_masses(m, xp, mt, mr);
  DT_TRY(gather_lists(m, xp, ctx));
  DT_ALLOC(xp->X0, 3 * (size_t)nc, ctx, "reference positions");
  DT_ALLOC(xp->D0, 3 * (size_t)nc, ctx, "reference directors");
  DT_ALLOC(xp->inv_mass, 2 * (size_t)nc, ctx, "copy masses");
  DT_ALLOC(xp->q0, 4 * (size_t)nc, ctx, "reference frames");
  for (int c = 0; c < nc; c++) {
    const int n = xp->node[c];
    double q[4], d[3], v1[3], v2[3];
    reference_frame(&D[3 * n], q);
    dt_xp_node_frame(q, d, v1, v2); /* the director the frame holds, to round-off D */
    for (int k = 0; k < 3; k++) {
      xp->X0[(size_t)k * nc + c] = m->x[3 * n + k];
      xp->D0[(size_t)k * nc + c] = d[k];
    }
    for (int k = 0; k < 4; k++) xp->q0[(size_t)k * nc + c] = q[k];
    xp->inv_mass[c] = 1.0 / mt[n];
    xp->inv_mass[(size_t)nc + c] = 1.0 / mr[n];
  }
  DT_ALLOC(xp->thick, ne, ctx, "element thickness");
  xp->n_layers = 2;
  for (int e = 0; e < ne; e++) {
    const dt_section *sec = &m->sections[m->elem_section[e]];
    xp->thick[e] = sec->thickness;
    if (m->materials[sec->material].p.plastic && sec->shell_points > xp->n_layers)
      xp->n_layers = sec->shell_points;
  }
  xp->n_points = 4 * xp->n_layers;
cleanup:
  dt_free(D);
  dt_free(mt);
  dt_free(mr);
  return rc;
}

/* The hex8 copies: reference positions and masses; the formulation (one per model, checked by
 * dt_model_finish) and the hourglass coefficient of the first step. */
static dt_status build_hex8(const dt_model *m, dt_xp_problem *xp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int ne = m->n_elems, nc = 8 * ne;
  double *mt = NULL;

  xp->npe = 8, xp->nv = 3, xp->nq = 0, xp->nm = 1, xp->n_faces = 6;
  xp->form =
      m->sections[m->elem_section[0]].form == DT_FORM_REDUCED ? DT_HEX8X_REDUCED : DT_HEX8X_FULL;
  xp->n_points = xp->form == DT_HEX8X_REDUCED ? 1 : 8;
  xp->hourglass = m->steps[0].explicit_.hourglass;
  DT_ALLOC(mt, m->n_nodes, ctx, "node masses");
  hex8_masses(m, xp, mt);
  DT_TRY(gather_lists(m, xp, ctx));
  DT_ALLOC(xp->X0, 3 * (size_t)nc, ctx, "reference positions");
  DT_ALLOC(xp->inv_mass, (size_t)nc, ctx, "copy masses");
  for (int c = 0; c < nc; c++) {
    const int n = xp->node[c];
    for (int k = 0; k < 3; k++) xp->X0[(size_t)k * nc + c] = m->x[3 * n + k];
    xp->inv_mass[c] = 1.0 / mt[n];
  }
cleanup:
  dt_free(mt);
  return rc;
}

dt_status dt_xp_problem_build(const dt_model *m, dt_xp_problem *xp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const int ne = m->n_elems;

  memset(xp, 0, sizeof *xp);
  xp->ne = ne;
  xp->kind = m->elem_type[0] == DT_ELEM_HEX8 ? DT_XP_HEX8 : DT_XP_SHELL4;
  DT_CHECK(ne <= (xp->kind == DT_XP_HEX8 ? 250000000 : 500000000), ctx, DT_ERR_UNSUPPORTED,
           "%d %s elements: more than 32-bit copy indices hold", ne,
           xp->kind == DT_XP_HEX8 ? "hex8" : "shell");
  if (xp->kind == DT_XP_HEX8)
    DT_TRY(build_hex8(m, xp, ctx));
  else
    DT_TRY(build_shells(m, xp, ctx));
  xp->n_mats = m->n_materials;
  DT_ALLOC(xp->mats, m->n_materials, ctx, "materials");
  for (int i = 0; i < m->n_materials; i++) xp->mats[i] = m->materials[i].p;
  DT_ALLOC(xp->mat, ne, ctx, "element materials");
  for (int e = 0; e < ne; e++) {
    xp->mat[e] = m->sections[m->elem_section[e]].material;
    if (m->materials[xp->mat[e]].p.plastic) xp->plastic = 1;
  }
cleanup:
  if (rc != DT_OK) dt_xp_problem_free(xp);
  return rc;
}

/* Prescribed motion of the nodes of step s, one entry per constrained node. */
static dt_status step_bcs(const dt_model *m, const dt_xp_problem *xp, const dt_step *s,
                          dt_xp_step *st, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const size_t nc = dt_xp_copies(xp);
  int *node_bc = NULL;

  DT_ALLOC(node_bc, m->n_nodes, ctx, "node constraints");
  for (int n = 0; n < m->n_nodes; n++) node_bc[n] = -1;
  for (int b = 0; b < s->n_bc; b++) {
    const dt_set *ns = &m->nsets[s->bc[b].nset];
    for (int i = 0; i < ns->n; i++)
      if (node_bc[ns->items[i]] < 0) node_bc[ns->items[i]] = st->n_bcs++;
  }
  DT_ALLOC(st->bcs, st->n_bcs, ctx, "constraints");
  for (int b = 0; b < s->n_bc; b++) {
    const dt_bc *bc = &s->bc[b];
    const dt_set *ns = &m->nsets[bc->nset];
    for (int k = 0; k < 3; k++)
      DT_CHECK(bc->velocity || !(bc->dofs & (1u << k) & ~bc->hold) || bc->value[k] == 0.0 ||
                   s->explicit_.amplitude.kind != DT_AMP_STEP,
               ctx, DT_ERR_INPUT,
               "step \"%s\": boundary %d prescribes a displacement of %g along %c, which a step "
               "amplitude would apply in no time: give the step a ramp or table amplitude, or "
               "prescribe a velocity",
               s->name, b, bc->value[k], "xyz"[k]);
    for (int i = 0; i < ns->n; i++) {
      dt_xp_bc *x = &st->bcs[node_bc[ns->items[i]]];
      x->fix |= bc->dofs;
      for (int k = 0; k < 3; k++) {
        if (!(bc->dofs & (1u << k))) continue;
        x->value[k] = bc->hold & (1u << k) ? 0.0 : bc->value[k];
        if (!bc->velocity)
          x->rate |= 1u << k;
        else
          x->rate &= ~(1u << k);
      }
    }
  }
  DT_ALLOC(st->bc, nc, ctx, "copy constraints");
  for (size_t c = 0; c < nc; c++) st->bc[c] = node_bc[xp->node[c]];
cleanup:
  dt_free(node_bc);
  return rc;
}

dt_status dt_xp_step_build(const dt_model *m, const dt_xp_problem *xp, int si, dt_xp_step *st,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_step *s = &m->steps[si];
  const size_t nc = dt_xp_copies(xp), ne = (size_t)xp->ne;
  double *fn = NULL;

  memset(st, 0, sizeof *st);
  DT_TRY(step_bcs(m, xp, s, st, ctx));
  DT_ALLOC(fn, 3 * (size_t)m->n_nodes, ctx, "node forces");
  for (int k = 0; k < s->n_cload; k++) {
    const dt_set *ns = &m->nsets[s->cload[k].nset];
    for (int i = 0; i < ns->n; i++)
      for (int j = 0; j < 3; j++) fn[3 * ns->items[i] + j] += s->cload[k].f[j];
  }
  DT_ALLOC(st->fc, 3 * nc, ctx, "copy forces");
  for (size_t c = 0; c < nc; c++)
    for (int j = 0; j < 3; j++) st->fc[(size_t)j * nc + c] = fn[3 * xp->node[c] + j];
  DT_ALLOC(st->pressure, (size_t)xp->n_faces * ne, ctx, "element pressures");
  for (int k = 0; k < s->n_pressure; k++) {
    const dt_surface *sf = &m->surfaces[s->pressure[k].surface];
    const double p = s->pressure[k].p;
    for (int i = 0; i < sf->n; i++) {
      if (xp->kind == DT_XP_HEX8) /* face f of a solid, p along the inward normal */
        st->pressure[(size_t)sf->face[i] * ne + (size_t)sf->elem[i]] += p;
      else /* S1 faces the normal: p pushes against it */
        st->pressure[sf->elem[i]] += sf->face[i] == 0 ? p : -p;
    }
    st->has_pressure |= p != 0.0 && sf->n > 0;
  }
cleanup:
  dt_free(fn);
  if (rc != DT_OK) dt_xp_step_free(st);
  return rc;
}

dt_status dt_xp_initial_velocity(const dt_model *m, const dt_xp_problem *xp, double **v0,
                                 dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const size_t nc = dt_xp_copies(xp);
  double *vn = NULL;

  *v0 = NULL;
  if (m->n_initial_velocities == 0) return DT_OK;
  DT_ALLOC(vn, 3 * (size_t)m->n_nodes, ctx, "node velocities");
  for (int k = 0; k < m->n_initial_velocities; k++) {
    const dt_initial_velocity *iv = &m->initial_velocities[k];
    const dt_set *ns = &m->nsets[iv->nset];
    for (int i = 0; i < ns->n; i++)
      for (int j = 0; j < 3; j++) vn[3 * ns->items[i] + j] = iv->v[j];
  }
  DT_ALLOC(*v0, (size_t)xp->nv * nc, ctx, "initial velocities");
  for (size_t c = 0; c < nc; c++)
    for (int j = 0; j < 3; j++) (*v0)[(size_t)j * nc + c] = vn[3 * xp->node[c] + j];
cleanup:
  dt_free(vn);
  return rc;
}

double dt_xp_amplitude(const dt_amplitude *a, double T, double t) {
  if (a->kind == DT_AMP_STEP) return 1.0;
  if (a->kind == DT_AMP_RAMP) return t >= T ? 1.0 : t / T;
  if (t <= a->t[0]) return a->a[0];
  for (int k = 1; k < a->n; k++)
    if (t <= a->t[k])
      return a->a[k - 1] + (a->a[k] - a->a[k - 1]) * (t - a->t[k - 1]) / (a->t[k] - a->t[k - 1]);
  return a->a[a->n - 1];
}

double dt_xp_amplitude_rate(const dt_amplitude *a, double T, double t) {
  if (a->kind == DT_AMP_STEP) return 0.0;
  if (a->kind == DT_AMP_RAMP) return t >= T ? 0.0 : 1.0 / T;
  for (int k = 1; k < a->n; k++)
    if (t >= a->t[k - 1] && t < a->t[k]) return (a->a[k] - a->a[k - 1]) / (a->t[k] - a->t[k - 1]);
  return 0.0;
}

double dt_xp_bytes(double ne, int n_layers) {
  /* per copy: u 3, v 5, q 4, X0 3, D0 3, mass 2, fc 3, forces 2 x 5 doubles; bc, owner,
   * node, gather offset and 4 gather entries as ints; per element: thickness, pressure, the
   * energies, and the history */
  const double copy = 8.0 * (3 + 5 + 4 + 3 + 3 + 2 + 3 + 10) + 4.0 * (4 + 4);
  const double elem =
      8.0 * (2 + DT_XP_WORK) + 4.0 * 2 + 8.0 * DT_MAT_STATE_DOUBLES * 4.0 * n_layers;
  return ne * (4.0 * copy + elem);
}

double dt_xp_hex8_bytes(double ne, int n_points) {
  /* per copy: u 3, v 3, X0 3, mass 1, fc 3, forces 2 x 3 doubles; bc, owner, node, gather
   * offset and 8 gather entries as ints; per element: material, yielded points, the 6
   * pressures, the energies, and the history */
  const double copy = 8.0 * (3 + 3 + 3 + 1 + 3 + 6) + 4.0 * (4 + 8);
  const double elem = 4.0 * 2 + 8.0 * (6 + DT_XP_WORK) + 8.0 * DT_MAT_STATE_DOUBLES * n_points;
  return ne * (8.0 * copy + elem);
}

double dt_xp_model_bytes(const dt_model *m) {
  int plastic = 0, reduced = 0;
  if (m->n_elems == 0 || m->elem_type[0] != DT_ELEM_HEX8)
    return dt_xp_bytes(m->n_elems, dt_xp_model_layers(m));
  for (int s = 0; s < m->n_sections; s++) {
    plastic |= m->materials[m->sections[s].material].p.plastic != 0;
    reduced |= m->sections[s].form == DT_FORM_REDUCED;
  }
  return dt_xp_hex8_bytes(m->n_elems, plastic ? (reduced ? 1 : 8) : 0);
}

int dt_xp_model_layers(const dt_model *m) {
  int n = 0;
  for (int s = 0; s < m->n_sections; s++)
    if (m->materials[m->sections[s].material].p.plastic && m->sections[s].shell_points > n)
      n = m->sections[s].shell_points;
  return n;
}

double dt_xp_step_bytes(int n_layers) {
  /* per copy read: u 3, v 5, q 4, X0 3, D0 3, mass 2, fc 3 doubles, bc, owner, gather offset and
   * 4 gather entries as ints, the gathered forces once (5 doubles: the other elements' reads of
   * them hit the cache); written: u, v, q and the copy's 5 forces */
  const double copy = 8.0 * (23 + 5) + 4.0 * 7 + 8.0 * (12 + 5);
  /* per element: thickness, pressure, material, the three works read and written, yielded
   * points written, the history read and written */
  const double elem =
      8.0 * 2 + 4.0 + 8.0 * 6 + 4.0 + 2.0 * 8.0 * DT_MAT_STATE_DOUBLES * 4 * n_layers;
  return 4.0 * copy + elem;
}

double dt_xp_hex8_step_bytes(int n_points) {
  /* per copy read: u 3, v 3, X0 3, mass 1, fc 3 doubles, bc, owner, gather offset and 8 gather
   * entries as ints, the gathered forces once (3 doubles); written: u, v and the copy's 3
   * forces */
  const double copy = 8.0 * (13 + 3) + 4.0 * 11 + 8.0 * (6 + 3);
  /* per element: material, the three works read and written, yielded points written, the
   * history read and written (pressures only in steps that have them) */
  const double elem = 4.0 + 8.0 * 6 + 4.0 + 2.0 * 8.0 * DT_MAT_STATE_DOUBLES * n_points;
  return 8.0 * copy + elem;
}
