/* Greedy boundary moves that shorten the interface of a partition (partition_internal.h).
 *
 * Parts assembled from clusters (partition_clusters.c) follow the clusters' outlines, a
 * staircase a few elements high where METIS on the elements draws a straighter cut. Moving an
 * element to a neighbouring part is kept when it lowers the number of interface nodes (nodes
 * touched by more than one part) and keeps both parts within the balance: the corners of the
 * staircase go first, a layer a pass. Per node the elements it has in each part are counted,
 * so a candidate move costs the element's nodes. */
#include <stdint.h>
#include <string.h>

#include "partition_internal.h"

/* The number of parts whose elements touch node v. */
static int touched(const uint16_t *c, int nparts, int v) {
  int n = 0;
  for (int r = 0; r < nparts; r++) n += c[(size_t)v * nparts + r] > 0;
  return n;
}

dt_status dt_partition_refine(const dt_model *m, int nparts, int passes, const int *elem_weight,
                              int ufactor, int *part, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  uint16_t *c = NULL;
  unsigned char *np = NULL;
  int64_t *w = NULL, total = 0, maxw = 0;
  int *count = NULL, *cand = NULL, n_cand = 0;
  if (nparts < 2 || nparts > DT_PARTITION_REFINE_MAX_PARTS) return DT_OK;
  DT_ALLOC(c, (size_t)m->n_nodes * nparts, ctx, "the refinement's node counts");
  DT_ALLOC(np, m->n_nodes, ctx, "the refinement's parts per node");
  DT_ALLOC(w, nparts, ctx, "the refinement's part weights");
  DT_ALLOC(count, nparts, ctx, "the refinement's part sizes");
  DT_ALLOC(cand, m->n_elems, ctx, "the refinement's candidates");
  for (int e = 0; e < m->n_elems; e++) {
    int we = elem_weight ? elem_weight[e] : 1;
    w[part[e]] += we;
    total += we;
    count[part[e]]++;
    for (int k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++) {
      uint16_t *x = &c[(size_t)m->conn[k] * nparts + part[e]];
      DT_CHECK(*x < UINT16_MAX, ctx, DT_ERR_INPUT, "node %d has more than %d elements", m->conn[k],
               UINT16_MAX - 1);
      (*x)++;
    }
  }
  maxw = total * (1000 + ufactor) / (1000 * (int64_t)nparts);
  for (int v = 0; v < m->n_nodes; v++) np[v] = (unsigned char)touched(c, nparts, v);
  for (int e = 0; e < m->n_elems; e++) /* the elements on the interface */
    for (int k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++)
      if (np[m->conn[k]] > 1) {
        cand[n_cand++] = e;
        break;
      }
  for (int pass = 0; pass < passes; pass++) {
    int moved = 0;
    for (int i = 0; i < n_cand; i++) {
      int e = cand[i], p = part[e], we = elem_weight ? elem_weight[e] : 1, best = -1, best_gain = 0;
      if (count[p] == 1) continue;
      for (int k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++) {
        const uint16_t *cv = &c[(size_t)m->conn[k] * nparts];
        for (int q = 0; q < nparts; q++) {
          if (q == p || cv[q] == 0 || q == best || w[q] + we > maxw) continue;
          int gain = 0; /* interface nodes before minus after the move of e to q */
          for (int j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++) {
            int v = m->conn[j];
            const uint16_t *cu = &c[(size_t)v * nparts];
            int after = np[v] - (cu[p] == 1) + (cu[q] == 0);
            gain += (np[v] > 1) - (after > 1);
          }
          if (gain > best_gain) best_gain = gain, best = q;
        }
      }
      if (best < 0) continue;
      for (int j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++) {
        int v = m->conn[j];
        uint16_t *cu = &c[(size_t)v * nparts];
        cu[p]--;
        cu[best]++;
        np[v] = (unsigned char)(np[v] - (cu[p] == 0) + (cu[best] == 1));
      }
      part[e] = best;
      w[p] -= we;
      w[best] += we;
      count[p]--;
      count[best]++;
      moved++;
    }
    if (!moved) break;
  }
cleanup:
  dt_free(c);
  dt_free(np);
  dt_free(w);
  dt_free(count);
  dt_free(cand);
  return rc;
}
