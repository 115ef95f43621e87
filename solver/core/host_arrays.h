/* Large host arrays: filling and copying them with all threads.
 *
 * calloc/malloc leave the pages of a large block untouched; the first write to each page
 * faults it in: a copy from the device into a fresh 37.5 MB array (one vector of C5) took
 * 23-30 ms against 3 ms into a used one, and paging it in with all 16 threads takes 2 ms
 * (a 16-core host; docs/benchmarks.md, decision table). Arrays
 * that are written on the host once per step or increment (load vectors, downloaded fields)
 * are therefore filled with dt_host_fill when they are allocated, and the CPU backend's big
 * arrays are, so that each thread first touches the part its static loops use. */
#ifndef DT_HOST_ARRAYS_H
#define DT_HOST_ARRAYS_H

#include <stddef.h>

/* Host loops over this many items or more run on all OpenMP threads (the per-step and
 * per-increment loops over DOFs and nodes: on C5 each took 3-5 ms on one thread). */
#define DT_HOST_PARALLEL_MIN 65536

/* dst[i] = src[i] for i < n, or 0 where src is NULL; split evenly over the OpenMP threads
 * (one thread for small n). */
void dt_host_fill(double *dst, const double *src, size_t n);

#endif
