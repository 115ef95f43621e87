/* The job's "rigid_bodies" and "mpcs": CalculiX's *RIGID BODY and *MPC MEANROT
 * (docs/job-format.md), lowered into equations by model_mpc.c once the steps are read:
 *
 *   "rigid_bodies": [{"node_set": "END", "ref_node": 1001, "rot_node": 1002}, ...]
 *   "mpcs": [{"type": "meanrot", "node_set": "END", "angle_node": 2001}, ...]
 *
 * The reference, rotation and angle nodes are nodes of the mesh (they may belong to no
 * element); a rigid body's nodes move as u = u_ref + theta x (x - x_ref), theta the rotation
 * node's displacement; a mean rotation's angle node has the axis as its coordinates and the
 * mean rotation as its DOF x. */
#include <string.h>

#include "job_json_internal.h"

static const char *const rb_keys[] = {"node_set", "ref_node", "rot_node", NULL};
static const char *const mpc_keys[] = {"type", "node_set", "angle_node", NULL};
static const char *const mpc_types[] = {"meanrot", NULL};

static dt_status get_node(dt_jp *jp, const json_t *obj, const char *path, const char *key,
                          int *out) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  json_t *v = NULL;
  int64_t id = 0;
  DT_TRY(dt_jp_member(jp, obj, path, key, 1, &v));
  dt_jp_key(p, path, key);
  DT_TRY(dt_jp_integer(jp, v, p, 0, DT_JP_ID_MAX, &id));
  *out = dt_idmap_find(&jp->nodes, id);
  DT_JCHECK(*out >= 0, jp, p, "node id %lld does not exist", (long long)id);
cleanup:
  return rc;
}

static dt_status get_set(dt_jp *jp, const json_t *obj, const char *path, int *out) {
  dt_status rc = DT_OK;
  char name[DT_NAME_MAX], p[DT_JPATH_MAX];
  DT_TRY(dt_jp_get_name(jp, obj, path, "node_set", 1, name));
  dt_jp_key(p, path, "node_set");
  *out = dt_model_find_nset(jp->m, name);
  DT_JCHECK(*out >= 0, jp, p, "unknown node set \"%s\"", name);
  DT_JCHECK(jp->m->nsets[*out].n > 0, jp, p, "node set \"%s\" is empty", name);
cleanup:
  return rc;
}

/* A lowering error (DT_ERR_INPUT) led by the entry's path. */
static dt_status lowered(dt_jp *jp, dt_status rc, const char *path) {
  if (rc == DT_ERR_INPUT) dt_ctx_prefix(jp->ctx, path);
  return rc;
}

dt_status dt_jp_rigid_bodies(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int n = 0;
  DT_TRY(dt_jp_array(jp, v, path, 0, 1000000, &n));
  for (int i = 0; i < n; i++) {
    const json_t *rb = json_array_get(v, (size_t)i);
    int set = -1, ref = -1, rot = -1;
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(dt_jp_object(jp, rb, p, rb_keys));
    DT_TRY(get_set(jp, rb, p, &set));
    DT_TRY(get_node(jp, rb, p, "ref_node", &ref));
    DT_TRY(get_node(jp, rb, p, "rot_node", &rot));
    DT_JCHECK(ref != rot, jp, p, "ref_node and rot_node must be different nodes");
    DT_TRY(lowered(jp,
                   dt_model_add_rigid_body(jp->m, jp->m->nsets[set].items, jp->m->nsets[set].n, ref,
                                           rot, jp->ctx),
                   p));
  }
cleanup:
  return rc;
}

dt_status dt_jp_mpcs(dt_jp *jp, const json_t *v, const char *path) {
  dt_status rc = DT_OK;
  char p[DT_JPATH_MAX];
  int n = 0;
  DT_TRY(dt_jp_array(jp, v, path, 0, 1000000, &n));
  for (int i = 0; i < n; i++) {
    const json_t *mp = json_array_get(v, (size_t)i);
    int set = -1, rot = -1, type = 0, skipped = 0;
    dt_jp_index(p, path, (size_t)i);
    DT_TRY(dt_jp_object(jp, mp, p, mpc_keys));
    DT_TRY(dt_jp_get_keyword(jp, mp, p, "type", 1, mpc_types, &type));
    DT_TRY(get_set(jp, mp, p, &set));
    DT_TRY(get_node(jp, mp, p, "angle_node", &rot));
    DT_TRY(lowered(jp,
                   dt_model_add_meanrot(jp->m, jp->m->nsets[set].items, jp->m->nsets[set].n, rot,
                                        &skipped, jp->ctx),
                   p));
  }
cleanup:
  return rc;
}
