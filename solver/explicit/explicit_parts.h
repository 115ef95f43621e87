/* Explicit dynamics split over several parts (GPUs, or host parts for tests), bitwise identical
 * to the one-part run (explicit_parts.c has the design). */
#ifndef DT_EXPLICIT_PARTS_H
#define DT_EXPLICIT_PARTS_H

#include "explicit.h"

/* The element parts of a split run of m: METIS k-way (partition/partition.h) where the build
 * has it and every part gets elements, contiguous element ranges otherwise. part: n_elems
 * entries, out. note (n_note bytes, may be NULL) receives a line saying which partition was
 * taken and why. Errors: DT_ERR_INPUT (n_parts < 1 or more parts than elements), DT_ERR_NOMEM. */
dt_status dt_xp_parts_partition(const dt_model *m, int n_parts, int *part, char *note,
                                size_t n_note, dt_ctx *ctx);

/* Create the split backend (dt_xp_parts_ops) over n_parts instances of inner, part p on
 * devices[p] (NULL: all on device 0; the CPU backend ignores it).
 *   part: per element of xp its part (0 .. n_parts-1, none empty), borrowed; NULL: contiguous
 *         element ranges.
 *   xp, v0, threads: as dt_xp_ops.create (threads per part).
 * inner must have send and recv. The global layouts of get, put and set_step are xp's, so the
 * driver, the output and checkpoints see one problem. Errors: DT_ERR_INPUT (an empty part, an
 * inner backend without send/recv), DT_ERR_NOMEM, the inner backend's. */
dt_status dt_xp_parts_create(const dt_xp_ops *inner, int n_parts, const int *devices,
                             const int *part, const dt_xp_problem *xp, const double *v0,
                             int threads, void **impl, dt_ctx *ctx);

/* One line for the run's log: the parts, their elements and ghost copies, the inner backend. */
void dt_xp_parts_describe(const void *impl, char *buf, size_t n);

#endif
