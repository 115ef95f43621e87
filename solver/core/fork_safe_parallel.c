#include "fork_safe_parallel.h"

#include <pthread.h>
#include <unistd.h>

typedef struct chunk_job {
  dt_chunk_fn fn;
  void *arg;
  int chunk, i0, i1;
} chunk_job;

static void *run_chunk(void *p) {
  chunk_job *j = p;
  j->fn(j->arg, j->chunk, j->i0, j->i1);
  return NULL;
}

int dt_parallel_chunk_count(int n, int min_chunk) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int k = min_chunk > 0 ? n / min_chunk : n;
  if (k > cores) k = (int)cores;
  if (k > DT_PARALLEL_MAX_CHUNKS) k = DT_PARALLEL_MAX_CHUNKS;
  return k < 1 ? 1 : k;
}

int dt_parallel_chunks(int n, int min_chunk, dt_chunk_fn fn, void *arg) {
  chunk_job job[DT_PARALLEL_MAX_CHUNKS];
  pthread_t tid[DT_PARALLEL_MAX_CHUNKS];
  char started[DT_PARALLEL_MAX_CHUNKS] = {0};
  int k = dt_parallel_chunk_count(n, min_chunk);

  for (int t = 0; t < k; t++) {
    job[t] = (chunk_job){fn, arg, t, (int)((long)n * t / k), (int)((long)n * (t + 1) / k)};
    if (t > 0) started[t] = pthread_create(&tid[t], NULL, run_chunk, &job[t]) == 0;
  }
  run_chunk(&job[0]);
  for (int t = 1; t < k; t++) {
    if (started[t])
      pthread_join(tid[t], NULL);
    else
      run_chunk(&job[t]);
  }
  return k;
}
