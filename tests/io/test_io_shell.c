/* The output writer on a shell model, as the explicit driver hands it over: two shell4 elements
 * on [0,2]x[0,1], displacements at the nodes and one stress point per element, at its centre.
 * The VTU draws each shell as a VTK_QUAD of its 4 nodes; the cell values are the point's, the
 * nodal values their means over the elements at the node (the shared edge averages both); the
 * point cloud has one point per element. Usage: test_io_shell <scratch dir>. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io_fixture.h"
#include "vtu_read.h"

/* nodes 0 1 2 along y = 0 and 3 4 5 along y = 1; element e has corners e, e+1, e+4, e+3 */
static void shell_model(dt_model *m, int *conn, int *elem_ptr, double *x, int64_t *ids,
                        int64_t *elem_ids, unsigned char *types, int *sections) {
  memset(m, 0, sizeof *m);
  m->version = DT_JOB_FORMAT_VERSION;
  m->dim = 3;
  m->n_nodes = 6;
  for (int n = 0; n < 6; n++) {
    x[3 * n] = n % 3, x[3 * n + 1] = n / 3, x[3 * n + 2] = 0;
    ids[n] = 11 + n;
  }
  m->x = x, m->node_id = ids;
  m->n_elems = 2;
  elem_ptr[0] = 0;
  for (int e = 0; e < 2; e++) {
    const int c[4] = {e, e + 1, e + 4, e + 3};
    memcpy(&conn[4 * e], c, sizeof c);
    elem_ptr[e + 1] = 4 * (e + 1);
    types[e] = DT_ELEM_SHELL4;
    elem_ids[e] = 7 + e;
    sections[e] = 0;
  }
  m->conn = conn, m->elem_ptr = elem_ptr, m->elem_type = types, m->elem_id = elem_ids;
  m->elem_section = sections;
  m->output.fields = DT_OUT_U | DT_OUT_S | DT_OUT_PEEQ | DT_OUT_MISES;
  m->output.vtu = 1;
  m->output.points = 1;
  m->output.every = 1;
}

static void shell_fields(dt_fields *f) {
  memset(f, 0, sizeof *f);
  f->global_increment = f->increment = 1;
  f->load_factor = 1, f->time = 1;
  f->n_nodes = 6, f->n_elems = 2, f->n_qp = 2;
  f->u = dt_calloc(18, sizeof *f->u);
  f->qp_ptr = dt_calloc(3, sizeof *f->qp_ptr);
  f->qp_x = dt_calloc(6, sizeof *f->qp_x);
  f->qp_stress = dt_calloc(12, sizeof *f->qp_stress);
  f->qp_peeq = dt_calloc(2, sizeof *f->qp_peeq);
  CHECK(f->u && f->qp_ptr && f->qp_x && f->qp_stress && f->qp_peeq, "out of memory");
  for (int n = 0; n < 6; n++) f->u[3 * n + 2] = -0.25 * (n % 3); /* a bent plate */
  for (int e = 0; e < 2; e++) {
    f->qp_ptr[e + 1] = e + 1;
    f->qp_x[3 * e] = e + 0.5, f->qp_x[3 * e + 1] = 0.5;
    for (int c = 0; c < 6; c++) f->qp_stress[6 * e + c] = 10.0 * (e + 1) + c;
    f->qp_peeq[e] = 0.5 * e;
  }
}

/* An array of n doubles, copied out of the file's bytes (appended data is not aligned to 8)
 * into one of a few buffers that stay valid until the fourth call after. */
static const double *doubles(const vtu_file *v, const char *section, const char *name, size_t n) {
  static double buf[4][64];
  static int next;
  const vtu_array *a = vtu_get(v, section, name);
  double *out = buf[next++ % 4];
  CHECK(a && strcmp(a->type, "Float64") == 0 && a->nbytes == n * sizeof(double) && n <= 64,
        "%s %s: missing or %zu bytes", section, name, a ? a->nbytes : 0);
  memcpy(out, a->data, n * sizeof(double));
  return out;
}

static void check_mesh_vtu(const char *path) {
  vtu_file v;
  const vtu_array *a;
  const double *s, *ns, *peeq;
  int64_t conn[8], off[2];

  vtu_load(path, &v);
  CHECK(v.n_points == 6 && v.n_cells == 2, "%d points, %d cells", v.n_points, v.n_cells);
  a = vtu_get(&v, "Cells", "types");
  CHECK(a && a->nbytes == 2 && a->data[0] == 9 && a->data[1] == 9, "shell4 is VTK_QUAD (9)");
  a = vtu_get(&v, "Cells", "connectivity");
  CHECK(a && a->nbytes == 8 * sizeof(int64_t), "8 connectivity entries");
  memcpy(conn, a->data, sizeof conn);
  CHECK(conn[0] == 0 && conn[1] == 1 && conn[2] == 4 && conn[3] == 3 && conn[4] == 1 &&
            conn[7] == 4,
        "the corners in S4's order");
  a = vtu_get(&v, "Cells", "offsets");
  CHECK(a && a->nbytes == sizeof off, "2 offsets");
  memcpy(off, a->data, sizeof off);
  CHECK(off[0] == 4 && off[1] == 8, "offsets 4, 8");
  /* cells: the element's one point; nodes: the mean of the elements around the node */
  s = doubles(&v, "CellData", "S", 12);
  ns = doubles(&v, "PointData", "S", 36);
  peeq = doubles(&v, "PointData", "PEEQ", 6);
  for (int c = 0; c < 6; c++) {
    CHECK(s[c] == 10 + c && s[6 + c] == 20 + c, "cell S, component %d", c);
    CHECK(ns[c] == 10 + c && ns[6 + c] == 15 + c && ns[12 + c] == 20 + c && ns[24 + c] == 15 + c,
          "nodal S, component %d: %g %g %g", c, ns[c], ns[6 + c], ns[12 + c]);
  }
  CHECK(peeq[0] == 0 && peeq[1] == 0.25 && peeq[2] == 0.5, "nodal PEEQ");
  CHECK(doubles(&v, "PointData", "U", 18)[8] == -0.5, "U is the input's");
  doubles(&v, "PointData", "MISES", 6);
  vtu_free(&v);
}

static void check_points_vtu(const char *path) {
  vtu_file v;
  const vtu_array *a;

  vtu_load(path, &v);
  CHECK(v.n_points == 2 && v.n_cells == 2, "one point per shell: %d", v.n_points);
  CHECK(doubles(&v, "Points", "", 6)[3] == 1.5, "the second point at x = 1.5");
  int64_t ids[2];
  a = vtu_get(&v, "PointData", "elem_id");
  CHECK(a && a->nbytes == sizeof ids, "the points' element ids");
  memcpy(ids, a->data, sizeof ids);
  CHECK(ids[1] == 8, "the second point's element id %lld", (long long)ids[1]);
  vtu_free(&v);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "io_shell";
  char path[1200];
  dt_model m;
  dt_fields f;
  dt_output *o = NULL;
  dt_history_row row;
  dt_ctx ctx;
  int conn[8], elem_ptr[3], sections[2];
  double x[18];
  int64_t ids[6], elem_ids[2];
  unsigned char types[2];

  mkdir(dir, 0755);
  dt_ctx_reset(&ctx);
  shell_model(&m, conn, elem_ptr, x, ids, elem_ids, types, sections);
  shell_fields(&f);
  memset(&row, 0, sizeof row);
  row.increment = 1, row.load_factor = 1, row.time = 1;
  CHECK(dt_output_open(dir, NULL, &m, &o, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_output_increment(o, &m, &f, &row, 1, &ctx) == DT_OK, "%s", ctx.msg);
  CHECK(dt_output_close(&o, &m, NULL, &ctx) == DT_OK, "%s", ctx.msg);
  dt_fields_free(&f);
  snprintf(path, sizeof path, "%s/increment_0001.vtu", dir);
  check_mesh_vtu(path);
  snprintf(path, sizeof path, "%s/increment_0001_points.vtu", dir);
  check_points_vtu(path);
  printf("io_shell: ok (%s)\n", dir);
  return 0;
}
