/* --overlap in the collective harness (overlap_measure.h). */
#include "overlap_measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "load_window.h"
#include "timing.h"

/* What one rank measured, gathered from every rank. */
typedef struct {
  double time_us, alone_before, alone, beside, unit_us, window_us;
  int units_inside, covered, units;
} rank_overlap;

/* The window a measurement's launches take, from the call's own time: its
 * -w warm-up calls and its timed ones (graph mode: the untimed first launch
 * and the -G timed ones), and the host's part. */
static double window_expected(const cb_timing_opts *o, double t_alone_us) {
  double timed = (double)o->iters * o->agg * (o->graph_launches ? o->graph_launches + 1 : 1);
  return (o->warmup + timed) * t_alone_us + CB_LOAD_WINDOW_SLACK_US;
}

/* This rank: the call timed once beside `units` units of the load. */
static void time_beside(cb_rank_state *st, cb_launch *l, int units, const char *what,
                        rank_overlap *mine) {
  cb_load_beside *b = &st->beside;
  cb_timing_opts topts = st->timing;
  topts.per_iter = 0; /* -I's samples are the row's own measurement's */
  cb_load_start(b->load, units);
  const cb_timed_op op = {cb_enqueue_kernel, cb_bracket_kernel, l, {b->window[0], b->window[1]}};
  cb_timing t;
  cb_time_iterations(st->me, st->stream, &op, &topts, what, &t);
  free(t.samples);
  cb_load_window w;
  cb_load_beside_read(b, units, st->run->opts.timeout_s, what, &w);
  mine->time_us = t.time_us;
  mine->alone = cb_load_alone_of(&w, mine->alone_before, CB_LOAD_ALONE_UNITS);
  mine->beside = w.rate;
  mine->units_inside = w.units_inside;
  mine->covered = w.covered;
  mine->window_us = w.window_us;
  mine->units = units;
}

/* The first rank of all (n) where the load did not cover the window, or -1. */
static int uncovered(const rank_overlap *all, int n) {
  for (int r = 0; r < n; r++)
    if (!all[r].covered) return r;
  return -1;
}

/* Every rank's figures into the row's result: the call's time combined as
 * -a says, the load's rates their mean, its units inside the fewest. */
static void combine(const cb_rank_state *st, const rank_overlap *all, int n,
                    cb_overlap_result *out) {
  double *times = malloc((size_t)n * sizeof *times);
  if (!times) cb_fatal("out of host memory");
  double alone = 0, beside = 0;
  int fewest = all[0].units_inside, none_inside = -1;
  for (int r = 0; r < n; r++) {
    times[r] = all[r].time_us;
    alone += all[r].alone;
    beside += all[r].beside;
    if (all[r].units_inside < fewest) fewest = all[r].units_inside;
    if (none_inside < 0 && all[r].units_inside == 0) none_inside = r;
  }
  out->ran = 1;
  out->time_us = cb_combine_times(times, n, st->run->opts.average);
  out->alone = alone / n;
  out->units_inside = fewest;
  free(times);
  if (none_inside < 0) {
    out->beside = beside / n;
    return;
  }
  char where[32];
  snprintf(where, sizeof where, " on rank %d", none_inside);
  cb_overlap_why_no_unit(out, where, all[none_inside].unit_us, all[none_inside].window_us);
}

void cb_overlap_measure(cb_rank_state *st, cb_launch *l, double t_alone_us, const char *what,
                        cb_measure *m) {
  cb_overlap_result *out = &m->overlap;
  memset(out, 0, sizeof *out);
  if (!st->beside.load) return;
  const int n = st->me->world_nranks; /* every group's ranks, as the row's time */
  rank_overlap mine = {0}, *all = malloc((size_t)n * sizeof *all);
  if (!all) cb_fatal("out of host memory");
  mine.alone_before = cb_load_rate_alone(st->beside.load, CB_LOAD_ALONE_UNITS,
                                         st->run->opts.timeout_s, what, &mine.unit_us);
  /* Every rank's load alone has ended before any rank's warm-up call
   * (cb_time_iterations launches them before its own barrier) writes into
   * a peer's memory or, on a shared GPU, runs beside a peer's "alone". */
  cb_world_barrier_all(st->me);
  int units =
      cb_load_units_for(window_expected(&st->timing, t_alone_us), mine.unit_us, CB_LOAD_MAX_UNITS);
  int bad = -1;
  for (int attempt = 0; attempt < CB_LOAD_TRIES; attempt++) {
    time_beside(st, l, units, what, &mine);
    cb_world_allgather_all(st->me, &mine, sizeof mine, all);
    if ((bad = uncovered(all, n)) < 0) break;
    /* The most units any rank started, so every rank retries alike. */
    for (int r = 0; r < n; r++) units = all[r].units > units ? all[r].units : units;
    if (units == CB_LOAD_MAX_UNITS) break;
    units = cb_load_units_retry(units, CB_LOAD_MAX_UNITS);
  }
  st->beside.units = mine.units; /* the last measurement's, which validation starts again */
  if (bad < 0) {
    combine(st, all, n, out);
  } else {
    char where[32];
    snprintf(where, sizeof where, " on rank %d", bad);
    cb_overlap_why_uncovered(out, where, all[bad].units, all[bad].unit_us, all[bad].window_us);
  }
  free(all);
}
