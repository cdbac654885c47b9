#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "timing.h"

#include <stdlib.h>

#include "clock.h"
#include "cuda_check.h"
#include "error.h"
#include "gpu.h"

static cudaGraphExec_t capture(cudaStream_t s, cb_enqueue_fn fn, void *arg, int iters) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  /* Thread-local capture: the ranks of one process capture concurrently. */
  CB_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < iters; i++) fn(arg, s);
  CB_CUDA(cudaStreamEndCapture(s, &graph));
  CB_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CB_CUDA(cudaGraphDestroy(graph));
  CB_CUDA(cudaGraphUpload(exec, s));
  return exec;
}

static double elapsed_us(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CB_CUDA(cudaEventElapsedTime(&ms, a, b));
  return 1000.0 * ms;
}

/* Events marks[0..nmarks-1] are recorded between the timed units. */
static cudaEvent_t *make_events(int n) {
  cudaEvent_t *ev = malloc((size_t)n * sizeof *ev);
  if (!ev) cb_fatal("out of host memory");
  for (int i = 0; i < n; i++) CB_CUDA(cudaEventCreate(&ev[i]));
  return ev;
}

static void free_events(cudaEvent_t *ev, int n) {
  for (int i = 0; i < n; i++) CB_CUDA(cudaEventDestroy(ev[i]));
  free(ev);
}

/* marks[0..spans] were recorded around spans equal spans of iters_per_span
 * iterations each; keep one sample per span when asked. */
static void collect(cudaEvent_t *marks, int spans, double iters_per_span, int keep,
                    cb_timing *out) {
  out->time_us = elapsed_us(marks[0], marks[spans]) / (spans * iters_per_span);
  out->samples = NULL;
  out->nsamples = 0;
  if (!keep) return;
  out->samples = malloc((size_t)spans * sizeof *out->samples);
  if (!out->samples) cb_fatal("out of host memory");
  for (int i = 0; i < spans; i++)
    out->samples[i] = elapsed_us(marks[i], marks[i + 1]) / iters_per_span;
  out->nsamples = spans;
}

static double host_us_since(double t0) {
  return (cb_monotonic_s() - t0) * 1e6;
}

/* Blocking mode: each iteration completes, and all ranks meet, before the
 * next starts; the time excludes the barrier, and with events the wait too
 * (the host timer takes launch to end of wait: nccl-tests' -z 3). */
static void time_blocking(cb_rank_info *me, cudaStream_t s, cb_enqueue_fn fn, void *arg,
                          const cb_timing_opts *o, const char *what, cb_timing *out) {
  cudaEvent_t *ev = o->host_timer ? NULL : make_events(2);
  double total = 0;
  out->samples = o->per_iter ? malloc((size_t)o->iters * sizeof *out->samples) : NULL;
  if (o->per_iter && !out->samples) cb_fatal("out of host memory");
  for (int i = 0; i < o->iters; i++) {
    double t0 = cb_monotonic_s();
    if (ev) CB_CUDA(cudaEventRecord(ev[0], s));
    fn(arg, s);
    if (ev) CB_CUDA(cudaEventRecord(ev[1], s));
    cb_gpu_wait(s, o->timeout_s, what);
    double t = ev ? elapsed_us(ev[0], ev[1]) : host_us_since(t0);
    total += t;
    if (out->samples) out->samples[i] = t;
    cb_world_barrier(me);
  }
  out->time_us = total / o->iters;
  out->nsamples = o->per_iter ? o->iters : 0;
  if (ev) free_events(ev, 2);
}

void cb_time_iterations(cb_rank_info *me, cudaStream_t s, cb_enqueue_fn fn, void *arg,
                        const cb_timing_opts *o, const char *what, cb_timing *out) {
  for (int i = 0; i < o->warmup; i++) fn(arg, s);
  cb_gpu_wait(s, o->timeout_s, what);
  if (o->blocking) {
    cb_world_barrier(me);
    time_blocking(me, s, fn, arg, o, what, out);
    return;
  }
  int graph = o->graph_launches > 0;
  cudaGraphExec_t exec = NULL;
  if (graph) {
    exec = capture(s, fn, arg, o->iters);
    CB_CUDA(cudaGraphLaunch(exec, s)); /* first launch of a graph costs extra: keep it untimed */
    cb_gpu_wait(s, o->timeout_s, what);
  }
  /* Units between events: iterations in stream mode, graph launches in graph
   * mode. The host timer records no event unless -I asks for the samples
   * (nccl-tests records them only then, in the same places). */
  int units = graph ? o->graph_launches : o->iters;
  int nmarks = o->per_iter ? units + 1 : 2;
  int events = !o->host_timer || o->per_iter;
  cudaEvent_t *marks = events ? make_events(nmarks) : NULL;
  cb_world_barrier(me);
  double t0 = cb_monotonic_s(); /* nccl-tests starts its clock here, after its barrier */
  if (events) CB_CUDA(cudaEventRecord(marks[0], s));
  for (int u = 0; u < units; u++) {
    if (graph)
      CB_CUDA(cudaGraphLaunch(exec, s));
    else
      fn(arg, s);
    if (o->per_iter) CB_CUDA(cudaEventRecord(marks[u + 1], s));
  }
  if (events && !o->per_iter) CB_CUDA(cudaEventRecord(marks[1], s));
  cb_gpu_wait(s, o->timeout_s, what);
  double host_us = host_us_since(t0); /* ... and stops it when the stream sync returns */
  double per_unit = graph ? o->iters : 1;
  out->samples = NULL;
  out->nsamples = 0;
  if (o->per_iter)
    collect(marks, units, per_unit, 1, out);
  else if (events)
    collect(marks, 1, units * per_unit, 0, out);
  if (o->host_timer) out->time_us = host_us / (units * per_unit);
  if (events) free_events(marks, nmarks);
  if (exec) CB_CUDA(cudaGraphExecDestroy(exec));
}

void cb_run_replayed(cudaStream_t s, cb_enqueue_fn fn, void *arg, int replays,
                     const cb_timing_opts *o, const char *what) {
  if (o->graph_launches > 0) {
    cudaGraphExec_t exec = capture(s, fn, arg, 1);
    for (int i = 0; i < replays; i++) CB_CUDA(cudaGraphLaunch(exec, s));
    cb_gpu_wait(s, o->timeout_s, what);
    CB_CUDA(cudaGraphExecDestroy(exec));
  } else {
    for (int i = 0; i < replays; i++) fn(arg, s);
    cb_gpu_wait(s, o->timeout_s, what);
  }
}
