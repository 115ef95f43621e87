/* Node sets of an order-P mesh for boundary conditions: the nodes on hex8 faces, or those
 * whose coordinates pass a test. */
#include "highorder/ho_mesh.h"

void dt_ho_hex_face_axis(int face, int *axis, int *side) {
  /* S1..S6 = zeta-, zeta+, eta-, xi+, eta+, xi- (element/element_face.h's hex8 faces) */
  static const int ax[6] = {2, 2, 1, 0, 1, 0}, sd[6] = {0, 1, 0, 1, 1, 0};
  *axis = ax[face];
  *side = sd[face];
}

dt_status dt_ho_mesh_mark_faces(const dt_ho_mesh *m, int n, const int *elem, const int *face,
                                unsigned char *mark, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int P = m->order, P1 = m->order + 1;
  for (int i = 0; i < n; i++) {
    int axis, side;
    DT_CHECK(elem[i] >= 0 && elem[i] < m->n_elems, ctx, DT_ERR_INPUT,
             "face entry %d: element %d is outside 0..%d", i, elem[i], m->n_elems - 1);
    DT_CHECK(face[i] >= 0 && face[i] < 6, ctx, DT_ERR_INPUT,
             "face entry %d (element %d): face %d is outside 0..5 (S1..S6)", i, elem[i], face[i]);
    dt_ho_hex_face_axis(face[i], &axis, &side);
    const int *row = m->elem_nodes + (size_t)elem[i] * P1 * P1 * P1;
    for (int q = 0; q < P1; q++)
      for (int p = 0; p < P1; p++) {
        int abc[3];
        abc[axis] = side * P;
        abc[axis == 0 ? 1 : 0] = p;
        abc[axis == 2 ? 1 : 2] = q;
        mark[row[dt_ho_lex(P, abc[0], abc[1], abc[2])]] = 1;
      }
  }
cleanup:
  return rc;
}

int dt_ho_mesh_mark_where(const dt_ho_mesh *m, dt_ho_node_pred pred, void *user,
                          unsigned char *mark) {
  int count = 0;
  for (int n = 0; n < m->n_nodes; n++)
    if (pred(m->coords + 3 * (size_t)n, user)) {
      mark[n] = 1;
      count++;
    }
  return count;
}
