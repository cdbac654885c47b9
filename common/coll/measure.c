/* One measurement: place the buffers, fill the inputs, time the kernel,
 * combine the ranks' times, validate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu.h"
#include "run_state.h"
#include "sizes.h"

void cb_enqueue_kernel(void *p, cudaStream_t s) {
  cb_launch *l = p;
  if (!l->skip) l->kernel->launch(l->ctx, &l->call, s);
}

void cb_place_call(cb_rank_state *st, const cb_counts *c, size_t elem, int in_place,
                   cb_call *call) {
  call->in_place = in_place;
  call->count = c->param_count;
  if (in_place) {
    char *region = st->bufs.recv;
    call->send = region + c->send_inplace_offset * elem;
    call->recv = region + c->recv_inplace_offset * elem;
  } else {
    call->send = st->bufs.send;
    call->recv = st->bufs.recv;
  }
}

/* Writes inputs (and poisons outputs) on every rank, and waits until all
 * ranks are done: kernels may read their peers' inputs directly. */
static void prepare_data(cb_rank_state *st, const cb_data_spec *spec, const cb_call *call,
                         const cb_counts *c, size_t elem, const char *what) {
  size_t region = (c->send_count > c->recv_count ? c->send_count : c->recv_count) * elem;
  cb_data_poison(call->in_place ? st->bufs.recv : call->recv,
                 call->in_place ? region : c->recv_count * elem, st->stream);
  cb_data_fill_input(spec, (void *)call->send, c->send_count, st->stream);
  cb_gpu_wait(st->stream, st->timing.timeout_s, what);
  cb_world_barrier(st->me);
}

static double combine_times(const double *t, int n, int mode) {
  double v = t[0];
  for (int r = 1; r < n; r++) {
    if (mode == CB_AVG_MEAN) v += t[r];
    if (mode == CB_AVG_MIN && t[r] < v) v = t[r];
    if (mode == CB_AVG_MAX && t[r] > v) v = t[r];
  }
  return mode == CB_AVG_MEAN ? v / n : v;
}

/* Per-iteration statistics of the slowest rank at each iteration: a
 * collective is done when its last rank is. */
static void gather_stats(cb_rank_state *st, cb_timing *t, cb_measure *m) {
  int n = st->me->nranks, k = t->nsamples;
  double *all = malloc((size_t)n * k * sizeof *all);
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(st->me, t->samples, (size_t)k * sizeof *all, all);
  for (int i = 0; i < k; i++)
    for (int r = 1; r < n; r++)
      if (all[(size_t)r * k + i] > all[i]) all[i] = all[(size_t)r * k + i];
  cb_stats_compute(all, (size_t)k, &m->stats);
  m->has_stats = 1;
  free(all);
}

cb_data_spec cb_spec_for(const cb_rank_state *st, const cb_call *call, const cb_counts *c,
                         int seed) {
  const cb_coll_shape *shape = st->run->coll->shape;
  cb_data_spec spec = {call->dtype,   shape->reduces ? call->op : CB_SUM,
                       shape->expect, shape->reduces,
                       st->me->rank,  st->me->nranks,
                       call->root,    c->param_count,
                       seed};
  return spec;
}

long long cb_check_round(cb_rank_state *st, const cb_data_spec *spec, const cb_call *call,
                         const cb_counts *c, cb_enqueue_fn fn, void *arg, const char *what) {
  size_t elem = cb_dtype_size(call->dtype);
  prepare_data(st, spec, call, c, elem, what);
  cb_run_once(st->stream, fn, arg, &st->timing, what);
  long long mine = cb_data_check(spec, call->recv, c->recv_count, st->bufs.counter, st->stream);
  long long *all = malloc((size_t)st->me->nranks * sizeof *all), wrong = 0;
  if (!all) cb_fatal("out of host memory");
  cb_world_allgather(st->me, &mine, sizeof mine, all);
  for (int r = 0; r < st->me->nranks; r++) wrong += all[r];
  free(all);
  return wrong;
}

void cb_measure_call(cb_rank_state *st, cb_launch *l, const cb_counts *c, cb_measure *m) {
  const cb_run *run = st->run;
  const cb_coll_shape *shape = run->coll->shape;
  const cb_call *call = &l->call;
  size_t elem = cb_dtype_size(call->dtype);
  int n = st->me->nranks;
  char what[192], why[128];
  snprintf(what, sizeof what, "kernel %d (%s) %s %s %s %zu B %s", l->kernel->id, l->kernel->name,
           shape->name, cb_dtype_name(call->dtype), cb_shape_op_name(shape, call->op),
           cb_counts_table_bytes(c, elem), call->in_place ? "in-place" : "out-of-place");
  memset(m, 0, sizeof *m);
  const char *skip = cb_kernel_call_reason(l->kernel, shape, call, cb_counts_table_bytes(c, elem),
                                           why, sizeof why);
  if (skip) {
    snprintf(m->skip, sizeof m->skip, "%s", skip);
    return;
  }
  cb_data_spec spec = cb_spec_for(st, call, c, 0);
  prepare_data(st, &spec, call, c, elem, what);
  if (l->kernel->prepare) l->kernel->prepare(l->ctx, call);
  cb_timing t;
  cb_time_iterations(st->me, st->stream, cb_enqueue_kernel, l, &st->timing, what, &t);
  double *times = malloc((size_t)n * sizeof *times);
  if (!times) cb_fatal("out of host memory");
  cb_world_allgather(st->me, &t.time_us, sizeof t.time_us, times);
  m->ran = 1;
  m->time_us = combine_times(times, n, run->opts.average);
  free(times);
  if (t.samples) gather_stats(st, &t, m);
  free(t.samples);
  double bytes = (double)shape->algbw_bytes(c, elem, n);
  m->algbw = m->time_us > 0 ? bytes / 1e3 / m->time_us : 0.0; /* B/us / 1e3 = GB/s */
  m->busbw = m->algbw * shape->bus_factor(n);
  m->wrong = run->opts.check ? 0 : -1;
  for (int round = 1; round <= run->opts.check; round++) {
    spec.seed = round; /* a new input each round, and not the timed one */
    m->wrong += cb_check_round(st, &spec, call, c, cb_enqueue_kernel, l, what);
  }
}
