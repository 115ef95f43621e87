/* Partitions of a mesh for runs on several GPUs of one host: the element dual graph, METIS
 * k-way parts, and per part the local numbering and the ordered halo lists (docs/multi-gpu.md).
 *
 * A run on k GPUs gives each GPU the elements of one part. A node touched by several parts is
 * owned by exactly one of them (the lowest part id touching it) and is a ghost in the others;
 * part 0 also holds, as owned interior nodes, the nodes no element uses.
 * Each part numbers its nodes [owned interior..., owned interface..., ghosts...], every group
 * by ascending global id. For each neighbour the part keeps two lists of local node indices:
 * send (nodes it owns that the neighbour holds as ghosts) and recv (its ghosts the neighbour
 * owns), both in ascending global id, so A's send list to B and B's recv list from A name the
 * same nodes in the same order (the seed's non-sequential numbering, digest §3.3(c)): an
 * exchange then moves values only, never indices. The exchange itself (partition_exchange.h)
 * is written over a transport table, the host copy for the tests here and NCCL on GPUs. */
#ifndef DT_PARTITION_H
#define DT_PARTITION_H

#include <stdint.h>
#include <stdio.h>

#include "core/dt_status.h"
#include "model/model.h"

/* The weight of a dual-graph edge between two elements that share s nodes. */
typedef enum dt_partition_weights {
  DT_PARTITION_WEIGHTS_SEED = 0,   /* [0,4,3,2,1][min(s,4)]: a cut through a face (4 shared
                                      nodes) is cheaper than one through an edge or a corner, so
                                      corner-only contacts between parts are discouraged (the
                                      seed's choice, digest §3.1) */
  DT_PARTITION_WEIGHTS_SHARED = 1, /* s: the nodes a cut edge puts on the interface */
  DT_PARTITION_WEIGHTS_UNIT = 2    /* 1: every adjacency the same */
} dt_partition_weights;

/* Which element pairs the dual graph joins. */
typedef enum dt_partition_adjacency {
  DT_PARTITION_ADJ_NODES = 0, /* every pair sharing a node (26 neighbours for a hex8 inside a
                                 structured mesh) */
  DT_PARTITION_ADJ_FACES = 1  /* (default) pairs sharing at least dim nodes: faces of linear
                                 elements (edges too of quadratic ones), 6 neighbours for that
                                 hex8. METIS runs 2.2x faster on it and leaves fewer interface
                                 nodes: 23,592 against 24,921 on a 100^3 hex8 cube in 4 parts,
                                 113 against 132 on the tet4 L-bracket in 4 (docs/multi-gpu.md) */
} dt_partition_adjacency;

/* The element dual graph in CSR form: vertices are elements, an edge joins two elements that
 * share at least one node. adj[xadj[e] .. xadj[e+1]-1] are e's neighbours in ascending order,
 * shared[] the number of nodes each pair shares and wgt[] the edge weight by the chosen rule.
 * Every edge appears twice (e->f and f->e). Owned; freed by dt_dual_graph_free. */
typedef struct dt_dual_graph {
  int n;
  int64_t *xadj; /* n + 1 */
  int *adj;
  int *shared;
  int *wgt;
} dt_dual_graph;

/* Build the dual graph of m's mesh (any element types: every node of an element counts), with
 * the pairs adj joins. Errors: DT_ERR_NOMEM; DT_ERR_INPUT for a mesh without elements. */
dt_status dt_dual_graph_build(const dt_model *m, dt_partition_weights rule,
                              dt_partition_adjacency adj, dt_dual_graph *g, dt_ctx *ctx);
void dt_dual_graph_free(dt_dual_graph *g);
/* The number of connected components of the graph (a breadth-first search). When comp is not
 * NULL it receives each vertex's component, 0-based in order of first vertex. Errors: NOMEM. */
dt_status dt_dual_graph_components(const dt_dual_graph *g, int *comp, int *ncomp, dt_ctx *ctx);

typedef struct dt_partition_options {
  dt_partition_weights weights;     /* default SEED */
  dt_partition_adjacency adjacency; /* default FACES */
  const int *elem_weight; /* borrowed: per element the work it costs (quadrature points, plastic
                             points; >= 1), balanced across parts; NULL: every element 1 */
  int contig;             /* 1 (default): ask METIS for contiguous parts (METIS_OPTION_CONTIG);
                             dropped with a note when the mesh is not connected */
  int minconn;            /* 1 (default): minimise the largest number of neighbours of a part
                             (METIS_OPTION_MINCONN) */
  int ufactor;            /* allowed imbalance in 1/1000: 30 (default) lets the heaviest part
                             carry 3 % more than the mean */
  int seed;               /* METIS_OPTION_SEED, for reproducible parts (default 1) */
  int clusters;      /* METIS partitions the graph of this many clusters of elements instead of the
                   elements (partition_clusters.c: runs along a Hilbert curve, joined by their
                   shared nodes): 0 never; -1 (default) DT_PARTITION_CLUSTERS of them when the
                   mesh has more than DT_PARTITION_CLUSTER_ABOVE elements */
  int refine_passes; /* parts of clusters: passes of greedy element moves that shorten the
                        interface (partition_refine.c; default 5, 0 none) */
} dt_partition_options;

/* The default clustering: a 10M-element hex8 cube in 4 parts 18-24 s -> 4.9-5.4 s on one core
 * for 10.6 % more interface nodes; clustering the 510k-element tet10 L-bracket (below the
 * threshold) 6.0 -> 2.1 s for 18 % more (docs/multi-gpu.md, Options). */
#define DT_PARTITION_CLUSTER_ABOVE 2000000
#define DT_PARTITION_CLUSTERS 50000

void dt_partition_options_default(dt_partition_options *o);

/* Per element its quadrature points (shells: 4 in the plane times the section's points through
 * the thickness, 2 before dt_model_finish resolves them), the work weight to pass as
 * elem_weight: w has n_elems entries. Errors: DT_ERR_INTERNAL for a type without a rule. */
dt_status dt_partition_elem_points(const dt_model *m, int *w, dt_ctx *ctx);

/* What a partition achieved. part_elems and part_weight are owned (dt_partition_report_free). */
typedef struct dt_partition_report {
  int nparts;
  int64_t edgecut;     /* the sum of the weights of cut dual-graph edges (METIS's objective) */
  int64_t cut_edges;   /* the number of cut dual-graph edges */
  int interface_nodes; /* nodes touched by more than one part */
  int max_neighbours;  /* the most parts any part shares a node with */
  int empty_parts;     /* parts without elements (METIS leaves some on very small meshes; a GPU
                          given one idles) */
  int *part_elems;     /* elements per part */
  int64_t *part_weight;
  double imbalance; /* max part weight / mean part weight - 1 */
  int contig;       /* 1 when the parts were asked to be contiguous */
  int clusters;     /* the clusters METIS partitioned (edgecut and cut_edges are then -1: the
                       elements' dual graph is not built); 0 when it partitioned the elements */
  char note[256];   /* why an option was dropped; empty when none was */
} dt_partition_report;

void dt_partition_report_free(dt_partition_report *r);

/* Split m's elements into nparts parts with METIS_PartGraphKway on the dual graph.
 *   opt:  NULL for the defaults.
 *   part: n_elems entries, out: the part of each element (0 .. nparts-1).
 *   rep:  may be NULL; otherwise filled (and owned by the caller) on success, and empty (safe
 *         to free) on failure.
 * nparts = 1 needs no METIS. Errors: DT_ERR_INPUT (nparts < 1 or more parts than elements, an
 * element weight < 1), DT_ERR_UNSUPPORTED (built without METIS: "configure with libmetis-dev
 * to partition"), DT_ERR_INTERNAL (METIS failed), DT_ERR_NOMEM. */
dt_status dt_partition_elements(const dt_model *m, int nparts, const dt_partition_options *opt,
                                int *part, dt_partition_report *rep, dt_ctx *ctx);

/* Fill rep from a given element-to-part map (the statistics of dt_partition_elements, for
 * parts made some other way). g is the dual graph (its weights give edgecut); NULL leaves
 * edgecut and cut_edges at -1. */
dt_status dt_partition_report_fill(const dt_model *m, const dt_dual_graph *g, int nparts,
                                   const int *part, const int *elem_weight,
                                   dt_partition_report *rep, dt_ctx *ctx);

/* One part's share of the mesh, in its local numbering. Owned; dt_part_local_free. */
typedef struct dt_part_local {
  int part, nparts;
  int n_elems;
  int n_elems_interface; /* elems[0 .. n_elems_interface-1] touch an interface node: they are
                            computed first, so the exchange can overlap the interior ones */
  int *elems;            /* global element indices: interface ones, then interior, each ascending */
  int *elem_ptr;         /* n_elems + 1 offsets into conn */
  int *conn;             /* local node indices, element-local order of the global mesh */
  int n_nodes;           /* owned + ghost */
  int n_interior;        /* local 0 .. n_interior-1: owned, touched by this part only */
  int n_owned;           /* n_interior .. n_owned-1: owned interface; n_owned .. n_nodes-1 ghosts */
  int *node_global;      /* n_nodes: local -> global node */
  int n_peers;           /* parts this one exchanges with, ascending in peer[] */
  int *peer;
  int *send_ptr, *send_idx; /* per peer k: send_idx[send_ptr[k] .. send_ptr[k+1]-1] */
  int *recv_ptr, *recv_idx; /* per peer k: recv_idx[recv_ptr[k] .. recv_ptr[k+1]-1] */
} dt_part_local;

/* Build every part's local view from an element-to-part map.
 *   parts: nparts entries, out; each owned by the caller (dt_part_local_free).
 * A part without elements is allowed (it has no nodes and no peers). Errors: DT_ERR_INPUT (a
 * part id out of range), DT_ERR_NOMEM. */
dt_status dt_part_local_build(const dt_model *m, int nparts, const int *part, dt_part_local *parts,
                              dt_ctx *ctx);
void dt_part_local_free(dt_part_local *p);

/* local[i * ncomp + c] = global[node_global[i] * ncomp + c] for every local node, ghosts
 * included (node-major vectors of ncomp values per node). */
void dt_part_local_gather(const dt_part_local *l, int ncomp, const double *global, double *local);
/* The inverse for the owned nodes only: each global node is written by its one owner, so the
 * parts' scatters together fill every node some element uses, once. */
void dt_part_local_scatter_owned(const dt_part_local *l, int ncomp, const double *local,
                                 double *global);

/* The owner part of every global node (n_nodes entries) by the rule of dt_part_local_build:
 * the lowest part touching it; -1 for a node no element uses. Errors: DT_ERR_INPUT (a part id
 * out of range), DT_ERR_NOMEM. */
dt_status dt_partition_node_owner(const dt_model *m, int nparts, const int *part, int *owner,
                                  dt_ctx *ctx);

/* Print what a user planning a multi-GPU run wants to know: per part its elements (interface
 * ones), owned and ghost nodes, neighbours and exchanged values; then the edge cut, interface
 * nodes and imbalance. */
void dt_partition_view(const dt_partition_report *rep, const dt_part_local *parts, FILE *f);

#endif
