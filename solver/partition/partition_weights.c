/* Element weights for the partition: the work an element costs, which METIS balances across
 * the parts (digest §7.1 item 4). Quadrature points are the unit: the stress update, the
 * tangent and the internal force all run per point, so a hex20 (27 points) costs about 27
 * tet4s (1 point). Plastic points or the order p can be added by the caller through
 * dt_partition_options.elem_weight. */
#include "element/element.h"
#include "element/element_rules.h"
#include "partition.h"

/* MITC4 shells: 2x2 points in the plane, the section's points through the thickness. */
enum { SHELL_PLANE_POINTS = 4 };

dt_status dt_partition_elem_points(const dt_model *m, int *w, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int e = 0; e < m->n_elems; e++) {
    int t = m->elem_type[e], n = 0;
    if (t == DT_ELEM_SHELL4) {
      int sec = m->elem_section ? m->elem_section[e] : -1;
      int through =
          sec >= 0 && m->sections[sec].shell_points > 0 ? m->sections[sec].shell_points : 2;
      n = SHELL_PLANE_POINTS * through;
    } else {
      n = dt_elem_nqp(t);
    }
    DT_CHECK(n > 0, ctx, DT_ERR_INTERNAL, "element %lld: type %d has no quadrature rule",
             (long long)(m->elem_id ? m->elem_id[e] : e + 1), t);
    w[e] = n;
  }
cleanup:
  return rc;
}
