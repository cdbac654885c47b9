/* copy_perf's --overlap (copy_overlap.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, localtime_r (clock.h) */
#include "copy_overlap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cuda_check.h"

/* The path's warm-up window and -n timed windows, in a session of their
 * own sized for the window, as the row's bandwidth is measured; the
 * window's events recorded on the idle stream where the host clock starts
 * and stops (load.h: whatever drives the copies, and llhost's resident
 * kernel holds s from a session's start to its stop). Returns the time per
 * copy. */
static double time_windows(const cb_copy_kernel *k, cb_copy_ctx *ctx, const cb_copy_call *c,
                           cudaStream_t s, const cb_copy_options *o, const cb_load_beside *b) {
  if (k->start) k->start(ctx, c, o->window, s);
  k->post(ctx, c, o->window, s);
  if (k->complete) k->complete(ctx, s);
  CB_CUDA(cudaEventRecord(b->window[0], b->idle));
  double t0 = cb_monotonic_s();
  for (int i = 0; i < o->iters; i++) {
    k->post(ctx, c, o->window, s);
    if (k->complete) k->complete(ctx, s);
  }
  double us = 1e6 * (cb_monotonic_s() - t0);
  CB_CUDA(cudaEventRecord(b->window[1], b->idle));
  if (k->stop) k->stop(ctx, s);
  return us / ((double)o->iters * o->window);
}

void cb_copy_overlap_measure(cb_load_beside *b, const cb_copy_kernel *k, cb_copy_ctx *ctx,
                             const cb_copy_call *c, cudaStream_t s, const cb_copy_options *o,
                             double bw_us, const char *what, cb_overlap_result *out) {
  memset(out, 0, sizeof *out);
  if (!b->load) return;
  double unit_us = 0;
  const double alone_before =
      cb_load_rate_alone(b->load, CB_LOAD_ALONE_UNITS, o->timeout_s, what, &unit_us);
  const double expected = (o->iters + 1.0) * o->window * bw_us + CB_LOAD_WINDOW_SLACK_US;
  int units = cb_load_units_for(expected, unit_us, CB_LOAD_MAX_UNITS);
  cb_load_window w = {0};
  double time_us = 0;
  for (int attempt = 0; attempt < CB_LOAD_TRIES; attempt++) {
    cb_load_start(b->load, units);
    time_us = time_windows(k, ctx, c, s, o, b);
    cb_load_beside_read(b, units, o->timeout_s, what, &w);
    b->units = units; /* the last measurement's, which validation starts again */
    if (w.covered || units == CB_LOAD_MAX_UNITS) break;
    units = cb_load_units_retry(units, CB_LOAD_MAX_UNITS);
  }
  out->alone = cb_load_alone_of(&w, alone_before, CB_LOAD_ALONE_UNITS);
  if (!w.covered) {
    cb_overlap_why_uncovered(out, "", units, unit_us, w.window_us);
    return;
  }
  out->ran = 1;
  out->time_us = time_us;
  out->units_inside = w.units_inside;
  out->beside = w.rate;
  if (!w.units_inside) cb_overlap_why_no_unit(out, "", unit_us, w.window_us);
}
