/* Replaying a fixed sequence of launches as a CUDA graph.
 *
 * A PCG iteration on a model of some 50k DOFs is a few dozen small kernels (the V-cycle of AMG:
 * about 30, cuSPARSE's SpMVs among them), each a few microseconds on the device, and the host
 * spends longer issuing them than the device running them. Captured once into a graph, the
 * same launches go to the device in one call. A graph is valid for one state of its arguments
 * (pointers, grid sizes and the scalars passed by value), named by a key the caller bumps when
 * any of them changes (a new preconditioner setup).
 *
 * Builds that synchronise after each launch (DT_CUDA_SYNC_LAUNCHES, without NDEBUG) cannot
 * capture, and a call that refuses capture makes it fail; either way the sequence runs as plain
 * launches, with the same results: capture records the launches without running them, and the
 * graph runs the same kernels with the same arguments in the same order. */
#include <string.h>

#include "cuda_internal.h"

void dt_cuda_graph_reset(dt_cuda_graph *g) {
  if (g->exec) cudaGraphExecDestroy(g->exec);
  g->exec = NULL;
  g->key = -1;
}

/* Capture fn's launches into g (g->exec NULL when capture is not possible). */
static dt_status capture(dt_cuda *c, dt_cuda_graph *g, long key, dt_cuda_launches fn, void *arg,
                         dt_ctx *ctx) {
  dt_status rc = DT_OK, frc;
  cudaGraph_t graph = NULL;
  cudaError_t e;
  dt_ctx scratch;
  memset(&scratch, 0, sizeof scratch);
  dt_cuda_graph_reset(g);
  g->key = key;
  if (DT_CUDA_SYNC_LAUNCHES) return DT_OK;
  DT_CUDA_CHECK(cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal), ctx);
  frc = fn(c, arg, &scratch);
  e = cudaStreamEndCapture(c->stream, &graph);
  if (frc != DT_OK || e != cudaSuccess || !graph) {
    (void)cudaGetLastError(); /* a refused capture: run the launches directly */
    if (graph) cudaGraphDestroy(graph);
    return DT_OK;
  }
  e = cudaGraphInstantiate(&g->exec, graph, 0);
  cudaGraphDestroy(graph);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    g->exec = NULL;
  }
cleanup:
  return rc;
}

dt_status dt_cuda_graph_run(dt_cuda *c, dt_cuda_graph *g, long key, dt_cuda_launches fn, void *arg,
                            dt_ctx *ctx) {
  dt_status rc = DT_OK;
  if (g->key != key) DT_TRY(capture(c, g, key, fn, arg, ctx));
  if (!g->exec) return fn(c, arg, ctx);
  DT_CUDA_CHECK(cudaGraphLaunch(g->exec, c->stream), ctx);
cleanup:
  return rc;
}
