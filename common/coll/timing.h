/* Timing one measurement as nccl-tests 2.19.6 times it (its BenchTime):
 * warm-up, then -n iterations of -m operations each, in stream, blocking
 * (-z 1..3) or CUDA-graph mode, timed on the rank's own stream with CUDA
 * events or, as nccl-tests times, with the host clock around the launches
 * and the stream sync that follows them (--timer, options.h). */
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
  int blocking;       /* -z: a cb_blocking (options.h) */
  int per_iter;       /* -I: keep one sample per iteration (per graph launch in graph mode) */
  int timeout_s;      /* -T */
  int host_timer;     /* --timer host: the host clock, not events, gives time_us */
  int agg;            /* -m: operations per iteration */
  int lockstep;       /* ranks of this process share a GPU: a graph's relaunch waits for them */
} cb_timing_opts;

/* Enqueues one operation of what is being timed. */
typedef void (*cb_enqueue_fn)(void *arg, cudaStream_t stream);
/* Opens (begin 1) and closes (begin 0) an iteration's -m operations, when
 * they are more than one: NCCL's ncclGroupStart and ncclGroupEnd, so that
 * NCCL launches them together as nccl-tests' -m does. */
typedef void (*cb_bracket_fn)(void *arg, int begin);

/* What is timed: one operation, and its bracket (NULL: the -m operations
 * are launched one after the other). window, when set (--overlap): events
 * recorded on the stream where the timed launches start, after the ranks
 * meet, and after the last of them, whatever the timer: the window a load
 * beside them is measured in (load_window.h). */
typedef struct {
  cb_enqueue_fn enqueue;
  cb_bracket_fn bracket;
  void *arg;
  cudaEvent_t window[2];
} cb_timed_op;

typedef struct {
  double time_us;  /* mean time of one operation on this rank */
  double cpu_us;   /* nccl-tests' -C: the host's time to launch, per operation (in graph mode
                      per -n x -m operations of one launch each, as nccl-tests divides it) */
  double *samples; /* per-iteration times (us, per operation) when per_iter, else NULL; caller
                      frees */
  int nsamples;
} cb_timing;

/* Collective over the world (every group in step, as nccl-tests' barriers):
 * every rank calls it for the same measurement. what names the measurement
 * in a timeout message. */
void cb_time_iterations(cb_rank_info *me, cudaStream_t stream, const cb_timed_op *op,
                        const cb_timing_opts *o, const char *what, cb_timing *out);

/* The ranks' times (n) combined as -a says (a cb_average): the row's time,
 * and the time beside a load (overlap_measure.c). */
double cb_combine_times(const double *t, int n, int mode);

/* Enqueues fn `replays` times back to back, with no wait in between: in
 * graph mode fn is captured once into a graph that is launched `replays`
 * times (so validation runs the kernel as it was timed); then waits for
 * all of it, failing with `what` after the timeout. */
void cb_run_replayed(cb_rank_info *me, cudaStream_t stream, cb_enqueue_fn fn, void *arg,
                     int replays, const cb_timing_opts *o, const char *what);

#ifdef __cplusplus
}
#endif

#endif
