/* Each part's local view: its elements, its nodes numbered [owned interior, owned interface,
 * ghosts], its connectivity in that numbering, and per neighbour the send and receive lists in
 * ascending global id (partition.h). Both sides of a pair derive their list from the same rule,
 * the owner of a node being the lowest part touching it, so no list is ever sent. */
#include <stdlib.h>
#include <string.h>

#include "partition.h"
#include "partition_internal.h"

typedef struct local_scratch {
  dt_node_elems ne;
  int *owner;     /* per global node */
  int *nparts_at; /* per global node: how many distinct parts touch it */
  int *g2l;       /* per global node: the local index in the part being built, or -1 */
  int *pstamp;    /* per part: the node that last counted it */
  int *scnt, *rcnt;
} local_scratch;

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void owners(const dt_model *m, const int *part, const dt_node_elems *ne, int *owner,
                   int *nparts_at, int *pstamp) {
  for (int v = 0; v < m->n_nodes; v++) {
    int o = -1, n = 0;
    for (int j = ne->ptr[v]; j < ne->ptr[v + 1]; j++) {
      int p = part[ne->elem[j]];
      if (pstamp[p] != v) {
        pstamp[p] = v;
        n++;
      }
      if (o < 0 || p < o) o = p;
    }
    owner[v] = o;
    if (nparts_at) nparts_at[v] = n;
  }
}

/* Every element's part in 0 .. nparts-1. */
static dt_status check_parts(const dt_model *m, int nparts, const int *part, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  for (int e = 0; e < m->n_elems; e++)
    DT_CHECK(part[e] >= 0 && part[e] < nparts, ctx, DT_ERR_INPUT,
             "element %lld: part %d, not in 0 .. %d",
             (long long)(m->elem_id ? m->elem_id[e] : e + 1), part[e], nparts - 1);
cleanup:
  return rc;
}

dt_status dt_partition_node_owner(const dt_model *m, int nparts, const int *part, int *owner,
                                  dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_node_elems ne = {0};
  int *pstamp = NULL;
  DT_TRY(check_parts(m, nparts, part, ctx));
  DT_TRY(dt_node_elems_build(m, &ne, ctx));
  DT_ALLOC(pstamp, nparts, ctx, "the part stamps");
  for (int p = 0; p < nparts; p++) pstamp[p] = -1;
  owners(m, part, &ne, owner, NULL, pstamp);
cleanup:
  dt_node_elems_free(&ne);
  dt_free(pstamp);
  return rc;
}

/* The part's elements, interface ones first (those touching a node of several parts). */
static dt_status local_elements(const dt_model *m, const int *part, const local_scratch *s,
                                dt_part_local *l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int n = 0, ni = 0;
  for (int e = 0; e < m->n_elems; e++) n += part[e] == l->part;
  l->n_elems = n;
  DT_ALLOC(l->elems, n, ctx, "a part's elements");
  for (int pass = 0; pass < 2; pass++)
    for (int e = 0; e < m->n_elems; e++) {
      int iface = 0;
      if (part[e] != l->part) continue;
      for (int k = m->elem_ptr[e]; k < m->elem_ptr[e + 1] && !iface; k++)
        iface = s->nparts_at[m->conn[k]] > 1;
      if (iface == (pass == 0)) l->elems[ni++] = e;
      if (pass == 0 && iface) l->n_elems_interface++;
    }
cleanup:
  return rc;
}

/* The part's nodes in local order, and the global-to-local map s->g2l for them. */
static dt_status local_nodes(const dt_model *m, local_scratch *s, dt_part_local *l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int *all = NULL, n = 0, cap = 0, at = 0;
  for (int i = 0; i < l->n_elems; i++)
    cap += m->elem_ptr[l->elems[i] + 1] - m->elem_ptr[l->elems[i]];
  for (int v = 0; l->part == 0 && v < m->n_nodes; v++) cap += s->owner[v] < 0;
  DT_ALLOC(all, cap, ctx, "a part's node list");
  for (int i = 0; i < l->n_elems; i++)
    for (int k = m->elem_ptr[l->elems[i]]; k < m->elem_ptr[l->elems[i] + 1]; k++)
      if (s->g2l[m->conn[k]] < 0) {
        s->g2l[m->conn[k]] = 0;
        all[n++] = m->conn[k];
      }
  /* part 0 also holds the nodes no element uses (owned, interior): their DOFs carry loads and
     constraints of a run like any other */
  for (int v = 0; l->part == 0 && v < m->n_nodes; v++)
    if (s->owner[v] < 0) all[n++] = v;
  qsort(all, (size_t)n, sizeof *all, cmp_int);
  l->n_nodes = n;
  DT_ALLOC(l->node_global, n, ctx, "a part's local-to-global node map");
  /* three stable passes keep each group in ascending global order */
  for (int grp = 0; grp < 3; grp++) {
    for (int i = 0; i < n; i++) {
      int v = all[i], iface = s->nparts_at[v] > 1;
      int own = s->owner[v] == l->part || (s->owner[v] < 0 && l->part == 0);
      int g = own ? (iface ? 1 : 0) : 2;
      if (g == grp) {
        s->g2l[v] = at;
        l->node_global[at++] = v;
      }
    }
    if (grp == 0) l->n_interior = at;
    if (grp == 1) l->n_owned = at;
  }
  DT_ALLOC(l->elem_ptr, (size_t)l->n_elems + 1, ctx, "a part's element offsets");
  for (int i = 0; i < l->n_elems; i++)
    l->elem_ptr[i + 1] = l->elem_ptr[i] + m->elem_ptr[l->elems[i] + 1] - m->elem_ptr[l->elems[i]];
  DT_ALLOC(l->conn, l->elem_ptr[l->n_elems], ctx, "a part's connectivity");
  for (int i = 0; i < l->n_elems; i++)
    for (int k = m->elem_ptr[l->elems[i]], o = l->elem_ptr[i]; k < m->elem_ptr[l->elems[i] + 1];
         k++, o++)
      l->conn[o] = s->g2l[m->conn[k]];
cleanup:
  dt_free(all);
  return rc;
}

static void reset_stamps(local_scratch *s, int nparts) {
  for (int q = 0; q < nparts; q++) s->pstamp[q] = -1;
}

/* Walk the nodes to exchange: an owned interface node goes to every other part touching it, a
 * ghost comes from its owner. Without slot, count per part into s->scnt/s->rcnt; with slot
 * (part -> peer index), append the local index to the lists, in local order, which is
 * ascending global order within the owned-interface and the ghost groups. */
static void peer_walk(const int *part, local_scratch *s, dt_part_local *l, const int *slot,
                      int *sfill, int *rfill) {
  reset_stamps(s, l->nparts);
  for (int i = l->n_interior; i < l->n_nodes; i++) {
    int v = l->node_global[i];
    if (i >= l->n_owned) {
      int q = s->owner[v];
      if (!slot)
        s->rcnt[q]++;
      else
        l->recv_idx[l->recv_ptr[slot[q]] + rfill[slot[q]]++] = i;
      continue;
    }
    for (int j = s->ne.ptr[v]; j < s->ne.ptr[v + 1]; j++) {
      int q = part[s->ne.elem[j]];
      if (q == l->part || s->pstamp[q] == v) continue;
      s->pstamp[q] = v;
      if (!slot)
        s->scnt[q]++;
      else
        l->send_idx[l->send_ptr[slot[q]] + sfill[slot[q]]++] = i;
    }
  }
}

/* Per neighbour, the send and receive lists (ascending global id, as the nodes are ordered). */
static dt_status local_lists(const int *part, local_scratch *s, dt_part_local *l, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int np = l->nparts, *slot = NULL, *sfill = NULL, *rfill = NULL;
  memset(s->scnt, 0, (size_t)np * sizeof *s->scnt);
  memset(s->rcnt, 0, (size_t)np * sizeof *s->rcnt);
  peer_walk(part, s, l, NULL, NULL, NULL);
  DT_ALLOC(slot, np, ctx, "the peer slots");
  for (int q = 0; q < np; q++) {
    slot[q] = -1;
    if (s->scnt[q] + s->rcnt[q] > 0) slot[q] = l->n_peers++;
  }
  DT_ALLOC(l->peer, l->n_peers, ctx, "a part's peers");
  DT_ALLOC(l->send_ptr, (size_t)l->n_peers + 1, ctx, "a part's send offsets");
  DT_ALLOC(l->recv_ptr, (size_t)l->n_peers + 1, ctx, "a part's receive offsets");
  for (int q = 0; q < np; q++)
    if (slot[q] >= 0) {
      int k = slot[q];
      l->peer[k] = q;
      l->send_ptr[k + 1] = l->send_ptr[k] + s->scnt[q];
      l->recv_ptr[k + 1] = l->recv_ptr[k] + s->rcnt[q];
    }
  DT_ALLOC(l->send_idx, l->send_ptr[l->n_peers], ctx, "a part's send lists");
  DT_ALLOC(l->recv_idx, l->recv_ptr[l->n_peers], ctx, "a part's receive lists");
  DT_ALLOC(sfill, (size_t)l->n_peers + 1, ctx, "the send fill counters");
  DT_ALLOC(rfill, (size_t)l->n_peers + 1, ctx, "the receive fill counters");
  peer_walk(part, s, l, slot, sfill, rfill);
cleanup:
  dt_free(slot);
  dt_free(sfill);
  dt_free(rfill);
  return rc;
}

static dt_status build_one(const dt_model *m, const int *part, local_scratch *s, dt_part_local *l,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  DT_TRY(local_elements(m, part, s, l, ctx));
  DT_TRY(local_nodes(m, s, l, ctx));
  DT_TRY(local_lists(part, s, l, ctx));
cleanup:
  for (int i = 0; l->node_global && i < l->n_nodes; i++) s->g2l[l->node_global[i]] = -1;
  return rc;
}

dt_status dt_part_local_build(const dt_model *m, int nparts, const int *part, dt_part_local *parts,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  local_scratch s = {0};
  memset(parts, 0, (size_t)nparts * sizeof *parts);
  DT_TRY(check_parts(m, nparts, part, ctx));
  DT_TRY(dt_node_elems_build(m, &s.ne, ctx));
  DT_ALLOC(s.owner, m->n_nodes, ctx, "the node owners");
  DT_ALLOC(s.nparts_at, m->n_nodes, ctx, "the parts per node");
  DT_ALLOC(s.g2l, m->n_nodes, ctx, "the global-to-local node map");
  DT_ALLOC(s.pstamp, nparts, ctx, "the part stamps");
  DT_ALLOC(s.scnt, nparts, ctx, "the send counts");
  DT_ALLOC(s.rcnt, nparts, ctx, "the receive counts");
  reset_stamps(&s, nparts);
  owners(m, part, &s.ne, s.owner, s.nparts_at, s.pstamp);
  for (int v = 0; v < m->n_nodes; v++) s.g2l[v] = -1;
  for (int p = 0; p < nparts; p++) {
    parts[p].part = p;
    parts[p].nparts = nparts;
    DT_TRY(build_one(m, part, &s, &parts[p], ctx));
  }
cleanup:
  dt_node_elems_free(&s.ne);
  dt_free(s.owner);
  dt_free(s.nparts_at);
  dt_free(s.g2l);
  dt_free(s.pstamp);
  dt_free(s.scnt);
  dt_free(s.rcnt);
  if (rc != DT_OK)
    for (int p = 0; p < nparts; p++) dt_part_local_free(&parts[p]);
  return rc;
}

void dt_part_local_free(dt_part_local *p) {
  DT_FREE(p->elems);
  DT_FREE(p->elem_ptr);
  DT_FREE(p->conn);
  DT_FREE(p->node_global);
  DT_FREE(p->peer);
  DT_FREE(p->send_ptr);
  DT_FREE(p->send_idx);
  DT_FREE(p->recv_ptr);
  DT_FREE(p->recv_idx);
  memset(p, 0, sizeof *p);
}
