/* One measurement of a placed call: fill the inputs, time the kernel,
 * combine the ranks' times, validate. */
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked_calls.h"
#include "error.h"
#include "gpu.h"
#include "overlap_measure.h"
#include "sizes.h"

/* Writes inputs (and poisons outputs) on every rank, and waits until all
 * ranks are done, so the timed loop starts from the same point everywhere. */
static void prepare_data(cb_rank_state *st, const cb_data_spec *spec, const cb_call *call,
                         const cb_counts *c, const char *what) {
  cb_enqueue_inputs(st, spec, call, c, st->stream);
  cb_gpu_wait(st->stream, st->timing.timeout_s, what);
  cb_world_barrier_all(st->me);
}

/* The slowest of ranks [first, first + count) of all (k samples per rank)
 * at each sample, into out (k). */
static void slowest_of(const double *all, int k, int first, int count, double *out) {
  for (int i = 0; i < k; i++) {
    double v = all[(size_t)first * k + i];
    for (int r = first + 1; r < first + count; r++)
      if (all[(size_t)r * k + i] > v) v = all[(size_t)r * k + i];
    out[i] = v;
  }
}

static double *alloc_doubles(size_t n) {
  double *p = malloc((n ? n : 1) * sizeof *p);
  if (!p) cb_fatal("out of host memory");
  return p;
}

/* -I, as nccl-tests: at each sample the slowest rank of every group (a
 * collective is done when its last rank is), and with several processes
 * each process's slowest; the statistics leave the -K first samples out. */
static void gather_stats(cb_rank_state *st, cb_timing *t, cb_measure *m) {
  const cb_rank_info *me = st->me;
  int n = me->world_nranks, k = t->nsamples, rpp = n / me->nprocs;
  double *all = alloc_doubles((size_t)n * k);
  cb_world_allgather_all(st->me, t->samples, (size_t)k * sizeof *all, all);
  cb_iter_times *it = &m->iter;
  it->n = k;
  it->skipped = st->run->opts.per_iter_skip;
  it->times = alloc_doubles((size_t)k);
  slowest_of(all, k, 0, n, it->times);
  it->nprocs = me->nprocs > 1 ? me->nprocs : 0;
  if (it->nprocs) {
    it->proc_times = alloc_doubles((size_t)it->nprocs * k);
    for (int p = 0; p < it->nprocs; p++)
      slowest_of(all, k, p * rpp, rpp, it->proc_times + (size_t)p * k);
  }
  double *kept = alloc_doubles((size_t)k); /* cb_stats_compute sorts what it is given */
  memcpy(kept, it->times + it->skipped, (size_t)(k - it->skipped) * sizeof *kept);
  cb_stats_compute(kept, (size_t)(k - it->skipped), &m->stats);
  m->has_stats = 1;
  free(kept);
  free(all);
}

/* -c rounds of the measured call, back to back on fresh data (chains of
 * at most CB_CHECK_SLOTS calls): the wrong values over every rank. */
static long long validate_rounds(cb_rank_state *st, const cb_launch *l, const cb_counts *c,
                                 const char *what) {
  cb_checked_call chain[CB_CHECK_SLOTS];
  long long wrong = 0;
  for (int done = 0; done < st->run->opts.check;) {
    int n =
        st->run->opts.check - done < CB_CHECK_SLOTS ? st->run->opts.check - done : CB_CHECK_SLOTS;
    for (int i = 0; i < n; i++) chain[i] = (cb_checked_call){*l, *c, 1};
    cb_chain_result res;
    cb_run_checked_calls(st, chain, n, 1, what, &res);
    for (int i = 0; i < n; i++) {
      wrong += cb_chain_wrong(&res, i);
      cb_print_disagreement(st, what, &res.disagree[i]);
    }
    done += n;
  }
  return wrong;
}

void cb_measure_call(cb_rank_state *st, cb_launch *l, const cb_counts *c, cb_measure *m) {
  const cb_run *run = st->run;
  const cb_coll_shape *shape = run->coll->shape;
  const cb_call *call = &l->call;
  size_t elem = cb_dtype_size(call->dtype);
  int n = st->me->nranks;
  char what[192], why[128];
  cb_call_what(st, l, c, "", what, sizeof what);
  memset(m, 0, sizeof *m);
  const cb_serve_question q = {
      .shape = shape, .call = call, .table_bytes = cb_counts_table_bytes(c, elem), .ctx = l->ctx};
  const char *skip = cb_kernel_why_not(l->kernel, &q, why, sizeof why);
  if (skip) {
    snprintf(m->skip, sizeof m->skip, "%s", skip);
    return;
  }
  if (st->me->world_rank == 0) { /* the rank whose rows are printed */
    cb_kernel_resources_of(l->kernel, l->ctx, call, &m->res);
    m->has_res = 1;
  }
  cb_data_spec spec = cb_spec_for(st, call, c, 0);
  prepare_data(st, &spec, call, c, what);
  if (l->kernel->prepare) l->kernel->prepare(l->ctx, call);
  cb_timing t;
  /* With --overlap the window's events are recorded here too, so that
   * both timings do the same host work. */
  const cb_timed_op op = {
      cb_enqueue_kernel, cb_bracket_kernel, l, {st->beside.window[0], st->beside.window[1]}};
  cb_time_iterations(st->me, st->stream, &op, &st->timing, what, &t);
  /* Every group's ranks, as nccl-tests averages over the world. */
  int all_ranks = st->me->world_nranks;
  double mine[2] = {t.time_us, t.cpu_us}, *times = alloc_doubles(2 * (size_t)all_ranks);
  double *latency = alloc_doubles((size_t)all_ranks);
  cb_world_allgather_all(st->me, mine, sizeof mine, times);
  for (int r = 0; r < all_ranks; r++) latency[r] = times[2 * r];
  m->ran = 1;
  m->time_us = cb_combine_times(latency, all_ranks, run->opts.average);
  m->cpu_us = times[1]; /* rank 0's own, as nccl-tests prints its main thread's */
  free(latency);
  free(times);
  if (t.samples) gather_stats(st, &t, m);
  free(t.samples);
  double bytes = (double)shape->algbw_bytes(c, elem, n);
  m->algbw = m->time_us > 0 ? bytes / 1e3 / m->time_us : 0.0; /* B/us / 1e3 = GB/s */
  m->busbw = m->algbw * shape->bus_factor(n);
  cb_overlap_measure(st, l, mine[0], what, m);
  /* New inputs every round, none of them the timed one (round 0); beside
   * the load too with --overlap, which must change nothing the call computes. */
  if (run->opts.check) {
    cb_load_beside_validation_begin(&st->beside);
    m->wrong = validate_rounds(st, l, c, what);
    cb_load_beside_validation_end(&st->beside, run->opts.timeout_s, what);
  } else {
    m->wrong = -1;
  }
}
