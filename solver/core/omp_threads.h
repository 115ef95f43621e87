/* The OpenMP thread count and the calling thread's number, 1 and 0 in a build without OpenMP:
 * for loops that give each thread its own scratch (marker arrays, accumulators), indexed by
 * thread number. */
#ifndef DT_OMP_THREADS_H
#define DT_OMP_THREADS_H

#include <stddef.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Threads a parallel region may use (outside one). */
static inline int dt_omp_max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* Threads for a region whose every thread takes `each` bytes of scratch of its own, so that
 * the scratch stays within `budget` bytes: at most dt_omp_max_threads(), at least 1. */
static inline int dt_omp_threads_within(size_t each, size_t budget) {
  int nt = dt_omp_max_threads();
  if (each > 0 && (size_t)nt * each > budget) nt = budget / each > 1 ? (int)(budget / each) : 1;
  return nt;
}

/* Threads in the calling thread's team (1 outside a parallel region). */
static inline int dt_omp_team_size(void) {
#ifdef _OPENMP
  return omp_get_num_threads();
#else
  return 1;
#endif
}

/* The calling thread's number inside a parallel region (0 outside one). */
static inline int dt_omp_thread(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

#endif
