#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "timing.h"

#include <stdlib.h>

#include "clock.h"
#include "cuda_check.h"
#include "error.h"
#include "gpu.h"
#include "options.h" /* cb_blocking, cb_average */

/* What a capture enqueues: body(ctx, stream). */
typedef void (*capture_body)(void *ctx, cudaStream_t s);

static cudaGraphExec_t capture(cudaStream_t s, capture_body body, void *ctx) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  /* Thread-local capture: the ranks of one process capture concurrently. */
  CB_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  body(ctx, s);
  CB_CUDA(cudaStreamEndCapture(s, &graph));
  CB_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CB_CUDA(cudaGraphDestroy(graph));
  CB_CUDA(cudaGraphUpload(exec, s));
  return exec;
}

/* Launch `nth` (from 0) of a graph. A relaunch of a graph was seen to wait
 * inside cudaGraphLaunch, most likely for the graph's previous launch,
 * while the other ranks' graph launches and uploads of the process waited
 * on a lock of the driver (--stress -G 1, NCCL's calls in the graphs,
 * ranks of one process on one GPU): a deadlock when that previous launch
 * waits for another rank of the process whose own launch can then never
 * be made (docs/multi-node.md, "Ranks of one process on one GPU"). So
 * with o->lockstep every rank of the process has made launch nth - 1
 * before any makes launch nth: a relaunch then waits only for launches
 * that were all made, whose kernels' peers are all on the GPU.
 * Every rank of a process makes the same launches (the harness's calls
 * are collective). */
static void launch_graph(cb_rank_info *me, const cb_timing_opts *o, cudaGraphExec_t exec,
                         cudaStream_t s, int nth) {
  if (o->lockstep && nth > 0) cb_world_local_barrier(me);
  CB_CUDA(cudaGraphLaunch(exec, s));
}

static double elapsed_us(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CB_CUDA(cudaEventElapsedTime(&ms, a, b));
  return 1000.0 * ms;
}

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

static double *make_samples(int n) {
  double *s = malloc((size_t)n * sizeof *s);
  if (!s) cb_fatal("out of host memory");
  return s;
}

static double host_us_since(double t0) {
  return (cb_monotonic_s() - t0) * 1e6;
}

/* One measurement's fixed parts, for the pieces below. */
typedef struct {
  cb_rank_info *me;
  cudaStream_t s;
  const cb_timed_op *op;
  const cb_timing_opts *o;
  const char *what;
} timed;

/* One iteration, as nccl-tests' loop body: its -m operations (in one
 * bracket when there are several), and with -z 1 or 2 the host's wait for
 * each operation (with -z 1 all ranks then meet), as its startColl does.
 * stop, when given, is recorded once the last operation is enqueued, before
 * the host waits for it. */
static void enqueue_iteration(const timed *t, cudaEvent_t stop) {
  const cb_timed_op *op = t->op;
  int m = t->o->agg, z = t->o->blocking;
  int grouped = op->bracket && m > 1;
  if (grouped) op->bracket(op->arg, 1);
  for (int a = 0; a < m; a++) {
    op->enqueue(op->arg, t->s);
    if (stop && !grouped && a == m - 1) CB_CUDA(cudaEventRecord(stop, t->s));
    /* Inside a bracket NCCL has launched nothing yet: the wait returns at
     * once, as nccl-tests' does there. */
    if (z == CB_BLOCK_OP || z == CB_BLOCK_OP_BARRIER) cb_gpu_wait(t->s, t->o->timeout_s, t->what);
    if (z == CB_BLOCK_OP_BARRIER) cb_world_barrier_all(t->me);
  }
  if (grouped) op->bracket(op->arg, 0);
  if (stop && grouped) CB_CUDA(cudaEventRecord(stop, t->s));
}

static void enqueue_iterations(void *ctx, cudaStream_t s) {
  const timed *t = ctx;
  (void)s;
  for (int i = 0; i < t->o->iters; i++) enqueue_iteration(t, NULL);
}

/* Events of the launch loop. Marks (stream mode, and the host timer's -I
 * samples with -z 1 or 2, as nccl-tests records them): one when each
 * iteration starts and one after the last, or only the first and the last
 * without -I. Pairs (-z 3, and the event timer with -z 1..3): one around
 * each iteration, read before the next, which leaves out the host's waits
 * and the ranks' meetings between iterations. */
typedef struct {
  cudaEvent_t *marks, *pair;
  int nmarks;
} loop_events;

static loop_events loop_events_for(const cb_timing_opts *o) {
  loop_events e = {0};
  int paired = o->blocking == CB_BLOCK_ITERATION || (o->blocking && !o->host_timer);
  if (paired)
    e.pair = make_events(2);
  else if (o->per_iter || !o->host_timer)
    e.nmarks = o->per_iter ? o->iters + 1 : 2;
  if (e.nmarks) e.marks = make_events(e.nmarks);
  return e;
}

static void loop_events_free(loop_events *e) {
  if (e->pair) free_events(e->pair, 2);
  if (e->marks) free_events(e->marks, e->nmarks);
}

/* Stream and blocking modes: nccl-tests' loop, its clock started after the
 * ranks meet. */
static void time_launches(const timed *t, cb_timing *out) {
  const cb_timing_opts *o = t->o;
  int n = o->iters, z = o->blocking;
  double ops = (double)n * o->agg;
  loop_events ev = loop_events_for(o);
  double *samples = o->per_iter ? make_samples(n) : NULL;
  double between_meetings = 0, event_us = 0; /* -z 3's host time, the pairs' sum */
  cb_world_barrier_all(t->me);
  if (t->op->window[0]) CB_CUDA(cudaEventRecord(t->op->window[0], t->s)); /* before the clock */
  double t0 = cb_monotonic_s();
  if (ev.marks) CB_CUDA(cudaEventRecord(ev.marks[0], t->s));
  for (int i = 0; i < n; i++) {
    double ti = cb_monotonic_s();
    if (ev.marks && o->per_iter && i > 0) CB_CUDA(cudaEventRecord(ev.marks[i], t->s));
    if (ev.pair) CB_CUDA(cudaEventRecord(ev.pair[0], t->s));
    enqueue_iteration(t, ev.pair ? ev.pair[1] : NULL);
    if (z == CB_BLOCK_ITERATION || ev.pair) cb_gpu_wait(t->s, o->timeout_s, t->what);
    if (ev.pair) {
      double us = elapsed_us(ev.pair[0], ev.pair[1]);
      event_us += us;
      if (samples) samples[i] = us / o->agg;
    }
    if (z == CB_BLOCK_ITERATION) {
      between_meetings += host_us_since(ti); /* the meeting is left out */
      cb_world_barrier_all(t->me);
    }
  }
  if (ev.marks) CB_CUDA(cudaEventRecord(ev.marks[ev.nmarks - 1], t->s));
  if (t->op->window[1]) CB_CUDA(cudaEventRecord(t->op->window[1], t->s));
  double launched_us = host_us_since(t0);
  /* nccl-tests skips its final sync when each operation was waited for. */
  int waited_each = z != CB_BLOCK_NONE && o->agg <= 1;
  if (!waited_each) cb_gpu_wait(t->s, o->timeout_s, t->what);
  double host_us = z == CB_BLOCK_ITERATION ? between_meetings : host_us_since(t0);
  if (waited_each) cb_gpu_wait(t->s, o->timeout_s, t->what); /* the last marks */
  out->cpu_us = (z == CB_BLOCK_ITERATION ? between_meetings : launched_us) / ops;
  if (o->host_timer)
    out->time_us = host_us / ops;
  else
    out->time_us = (ev.pair ? event_us : elapsed_us(ev.marks[0], ev.marks[ev.nmarks - 1])) / ops;
  if (samples && ev.marks)
    for (int i = 0; i < n; i++) samples[i] = elapsed_us(ev.marks[i], ev.marks[i + 1]) / o->agg;
  out->samples = samples;
  out->nsamples = samples ? n : 0;
  loop_events_free(&ev);
}

/* Graph mode: the -n iterations captured once, the graph launched -G
 * times; one sample per launch. */
static void time_graph(const timed *t, cb_timing *out) {
  const cb_timing_opts *o = t->o;
  int units = o->graph_launches;
  double ops_per_launch = (double)o->iters * o->agg;
  cudaGraphExec_t exec = capture(t->s, enqueue_iterations, (void *)t);
  launch_graph(t->me, o, exec, t->s, 0); /* first launch of a graph costs extra: keep it untimed */
  cb_gpu_wait(t->s, o->timeout_s, t->what);
  /* The host timer records no event unless -I asks for the samples. */
  int nmarks = o->per_iter ? units + 1 : 2;
  int events = !o->host_timer || o->per_iter;
  cudaEvent_t *marks = events ? make_events(nmarks) : NULL;
  cb_world_barrier_all(t->me);
  if (t->op->window[0]) CB_CUDA(cudaEventRecord(t->op->window[0], t->s)); /* before the clock */
  double t0 = cb_monotonic_s(); /* nccl-tests starts its clock here, after its barrier */
  if (events) CB_CUDA(cudaEventRecord(marks[0], t->s));
  for (int u = 0; u < units; u++) {
    launch_graph(t->me, o, exec, t->s, u + 1);
    if (o->per_iter) CB_CUDA(cudaEventRecord(marks[u + 1], t->s));
  }
  if (events && !o->per_iter) CB_CUDA(cudaEventRecord(marks[1], t->s));
  if (t->op->window[1]) CB_CUDA(cudaEventRecord(t->op->window[1], t->s));
  /* As nccl-tests: the time to launch the graphs over -n x -m, not over -G too. */
  out->cpu_us = host_us_since(t0) / ops_per_launch;
  cb_gpu_wait(t->s, o->timeout_s, t->what);
  double host_us = host_us_since(t0); /* ... and stops it when the stream sync returns */
  out->samples = o->per_iter ? make_samples(units) : NULL;
  out->nsamples = o->per_iter ? units : 0;
  for (int u = 0; u < out->nsamples; u++)
    out->samples[u] = elapsed_us(marks[u], marks[u + 1]) / ops_per_launch;
  double total_us = o->host_timer ? host_us : elapsed_us(marks[0], marks[nmarks - 1]);
  out->time_us = total_us / (units * ops_per_launch);
  if (events) free_events(marks, nmarks);
  CB_CUDA(cudaGraphExecDestroy(exec));
}

void cb_time_iterations(cb_rank_info *me, cudaStream_t s, const cb_timed_op *op,
                        const cb_timing_opts *o, const char *what, cb_timing *out) {
  const timed t = {me, s, op, o, what};
  /* Warm-up: single operations, as nccl-tests warms up. */
  for (int i = 0; i < o->warmup; i++) op->enqueue(op->arg, s);
  cb_gpu_wait(s, o->timeout_s, what);
  if (o->graph_launches > 0)
    time_graph(&t, out);
  else
    time_launches(&t, out);
}

/* A replayed function, as capture_body. */
typedef struct {
  cb_enqueue_fn fn;
  void *arg;
} one_call;

static void enqueue_one(void *ctx, cudaStream_t s) {
  const one_call *c = ctx;
  c->fn(c->arg, s);
}

void cb_run_replayed(cb_rank_info *me, cudaStream_t s, cb_enqueue_fn fn, void *arg, int replays,
                     const cb_timing_opts *o, const char *what) {
  if (o->graph_launches > 0) {
    one_call c = {fn, arg};
    cudaGraphExec_t exec = capture(s, enqueue_one, &c);
    for (int i = 0; i < replays; i++) launch_graph(me, o, exec, s, i);
    cb_gpu_wait(s, o->timeout_s, what);
    CB_CUDA(cudaGraphExecDestroy(exec));
  } else {
    for (int i = 0; i < replays; i++) fn(arg, s);
    cb_gpu_wait(s, o->timeout_s, what);
  }
}

double cb_combine_times(const double *t, int n, int mode) {
  double v = t[0];
  for (int r = 1; r < n; r++) {
    if (mode == CB_AVG_MEAN) v += t[r];
    if (mode == CB_AVG_MIN && t[r] < v) v = t[r];
    if (mode == CB_AVG_MAX && t[r] > v) v = t[r];
  }
  return mode == CB_AVG_MEAN ? v / n : v;
}
