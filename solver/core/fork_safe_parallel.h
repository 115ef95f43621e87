/* A loop split over threads of our own (POSIX threads, joined before returning), for the work
 * of reading and checking a model: that code runs before a fork as often as not (tests that
 * run a device in a child, callers that fork workers), and a process that has used libgomp's
 * pool hangs at its child's first parallel region, so it does not use OpenMP. */
#ifndef DT_FORK_SAFE_PARALLEL_H
#define DT_FORK_SAFE_PARALLEL_H

/* The most chunks (and threads) of one call. */
#define DT_PARALLEL_MAX_CHUNKS 32

/* One thread's share: items i0 .. i1 - 1 of the loop, and the chunk's number (0 .. chunks - 1),
 * whose order is the items' order. */
typedef void (*dt_chunk_fn)(void *arg, int chunk, int i0, int i1);

/* How many chunks dt_parallel_chunks splits n items into: one per online core, at most 32, and
 * no chunk under min_chunk items (at least 1 chunk). */
int dt_parallel_chunk_count(int n, int min_chunk);

/* Run fn over items 0 .. n - 1 in dt_parallel_chunk_count(n, min_chunk) contiguous chunks, the
 * first on the calling thread; a chunk whose thread cannot start runs on the calling thread
 * too, so the call always completes every chunk. Returns the number of chunks. */
int dt_parallel_chunks(int n, int min_chunk, dt_chunk_fn fn, void *arg);

#endif
