/* Timing one measurement: warm-up, then -n iterations in stream, blocking or
 * CUDA-graph mode, timed on the rank's own stream with CUDA events or, as
 * nccl-tests times, with the host clock around the launches and the stream
 * sync that follows them (--timer, options.h). */
#ifndef CB_TIMING_H
#define CB_TIMING_H

#include <cuda_runtime_api.h>

#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int iters;          /* -n */
  int warmup;         /* -w */
  int graph_launches; /* -G: 0 = stream mode */
  int blocking;       /* -z */
  int per_iter;       /* -I: keep one sample per iteration (per graph launch in graph mode) */
  int timeout_s;      /* -T */
  int host_timer;     /* --timer host: the host clock, not events, gives time_us */
} cb_timing_opts;

/* Enqueues one iteration of the operation being timed. */
typedef void (*cb_enqueue_fn)(void *arg, cudaStream_t stream);

typedef struct {
  double time_us;  /* mean time of one iteration on this rank */
  double *samples; /* per-iteration times (us) when per_iter, else NULL; caller frees */
  int nsamples;
} cb_timing;

/* Collective over the world: every rank calls it for the same measurement.
 * what names the measurement in a timeout message. */
void cb_time_iterations(cb_rank_info *me, cudaStream_t stream, cb_enqueue_fn fn, void *arg,
                        const cb_timing_opts *o, const char *what, cb_timing *out);

/* Enqueues fn `replays` times back to back, with no wait in between: in
 * graph mode fn is captured once into a graph that is launched `replays`
 * times (so validation runs the kernel as it was timed); then waits for
 * all of it, failing with `what` after the timeout. */
void cb_run_replayed(cudaStream_t stream, cb_enqueue_fn fn, void *arg, int replays,
                     const cb_timing_opts *o, const char *what);

#ifdef __cplusplus
}
#endif

#endif
