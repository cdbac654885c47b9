/* copy_perf's --overlap (copy_overlap.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, localtime_r (clock.h) */
#include "copy_overlap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cuda_check.h"
#include "error.h"

#define ALONE_UNITS 3 /* units timed alone, after one of warm-up */
#define TRIES       4 /* the first start, then up to three with four times the units */
/* Host time a measurement adds to its window beyond its copies. */
#define WINDOW_SLACK_US 2000.0

void cb_copy_overlap_open(cb_copy_overlap *ov, const cb_copy_options *o) {
  memset(ov, 0, sizeof *ov);
  if (o->overlap == CB_LOAD_NONE) return;
  ov->load = cb_load_create(o->overlap, o->overlap_size);
  for (int i = 0; i < 2; i++) CB_CUDA(cudaEventCreate(&ov->window[i]));
  ov->units = 3;
}

void cb_copy_overlap_close(cb_copy_overlap *ov) {
  if (!ov->load) return;
  for (int i = 0; i < 2; i++) CB_CUDA(cudaEventDestroy(ov->window[i]));
  cb_load_destroy(ov->load);
  ov->load = NULL;
}

/* The path's warm-up window and -n timed windows, as the row's bandwidth
 * is measured; the window's events recorded on s while it is idle (each
 * window ends with the path's complete). Returns the time per copy. */
static double time_windows(const cb_copy_kernel *k, cb_copy_ctx *ctx, const cb_copy_call *c,
                           cudaStream_t s, const cb_copy_options *o, const cudaEvent_t window[2]) {
  if (k->start) k->start(ctx, c, s);
  k->post(ctx, c, o->window, s);
  if (k->complete) k->complete(ctx, s);
  CB_CUDA(cudaEventRecord(window[0], s));
  double t0 = cb_monotonic_s();
  for (int i = 0; i < o->iters; i++) {
    k->post(ctx, c, o->window, s);
    if (k->complete) k->complete(ctx, s);
  }
  double us = 1e6 * (cb_monotonic_s() - t0);
  CB_CUDA(cudaEventRecord(window[1], s));
  if (k->stop) k->stop(ctx, s);
  return us / ((double)o->iters * o->window);
}

void cb_copy_overlap_measure(cb_copy_overlap *ov, const cb_copy_kernel *k, cb_copy_ctx *ctx,
                             const cb_copy_call *c, cudaStream_t s, const cb_copy_options *o,
                             double bw_us, const char *what, cb_overlap_result *out) {
  memset(out, 0, sizeof *out);
  if (!ov->load) return;
  double unit_us = 0;
  out->alone = cb_load_rate_alone(ov->load, ALONE_UNITS, o->timeout_s, what, &unit_us);
  const double expected = (o->iters + 1.0) * o->window * bw_us + WINDOW_SLACK_US;
  int units = cb_load_units_for(expected, unit_us, CB_LOAD_MAX_UNITS);
  double *marks = malloc(((size_t)CB_LOAD_MAX_UNITS + 1) * sizeof *marks);
  if (!marks) cb_fatal("out of host memory");
  cb_load_window w = {0};
  double time_us = 0;
  for (int attempt = 0; attempt < TRIES; attempt++) {
    cb_load_start(ov->load, units);
    time_us = time_windows(k, ctx, c, s, o, ov->window);
    double begin, end;
    cb_load_finish(ov->load, ov->window[0], ov->window[1], o->timeout_s, what, marks, &begin, &end);
    const int kind = cb_load_kind_of(ov->load);
    cb_load_window_of(marks, units, begin, end, cb_load_unit_work(ov->load),
                      cb_load_rate_scale(kind), &w);
    if (w.covered || units == CB_LOAD_MAX_UNITS) break;
    units = units * 4 < CB_LOAD_MAX_UNITS ? units * 4 : CB_LOAD_MAX_UNITS;
  }
  free(marks);
  ov->units = units;
  if (!w.covered) {
    snprintf(out->why, sizeof out->why,
             "the load did not run over the whole timed window with %d units (%.0f us a unit "
             "alone, a window of %.0f us): a larger --overlap_size",
             units, unit_us, w.window_us);
    return;
  }
  out->ran = 1;
  out->time_us = time_us;
  out->units_inside = w.units_inside;
  out->beside = w.rate;
  if (!w.units_inside)
    snprintf(out->why, sizeof out->why,
             "no whole unit of the load fit in the timed window (%.0f us; a unit takes %.0f us "
             "alone): a smaller --overlap_size or a larger -n",
             w.window_us, unit_us);
}

void cb_copy_overlap_validation_begin(cb_copy_overlap *ov) {
  if (ov->load) cb_load_start(ov->load, ov->units);
}

void cb_copy_overlap_validation_end(cb_copy_overlap *ov, const cb_copy_options *o,
                                    const char *what) {
  if (ov->load) cb_load_wait(ov->load, o->timeout_s, what);
}
