#include "load_window.h"

#include <math.h>
#include <stdio.h>

#include "load_options.h" /* cb_load_name */

void cb_load_window_of(const double *marks_us, int units, double begin_us, double end_us,
                       double work_per_unit, double scale, cb_load_window *out) {
  out->window_us = end_us - begin_us;
  out->covered = units > 0 && marks_us[0] <= begin_us && marks_us[units] >= end_us;
  out->units_inside = 0;
  out->rate = 0;
  out->units_after = 0;
  out->rate_after = 0;
  /* Unit i (1..units) runs from marks_us[i - 1] to marks_us[i]. */
  int first = -1, last = -1, after = -1;
  for (int i = 1; i <= units; i++) {
    if (after < 0 && marks_us[i - 1] >= end_us) after = i;
    if (marks_us[i - 1] < begin_us || marks_us[i] > end_us) continue;
    if (first < 0) first = i;
    last = i;
  }
  if (after > 0) {
    out->units_after = units - after + 1;
    const double span_us = marks_us[units] - marks_us[after - 1];
    if (span_us > 0) out->rate_after = out->units_after * work_per_unit / (span_us * 1e-6) / scale;
  }
  if (first < 0) return;
  out->units_inside = last - first + 1;
  const double span_us = marks_us[last] - marks_us[first - 1];
  if (span_us > 0) out->rate = out->units_inside * work_per_unit / (span_us * 1e-6) / scale;
}

double cb_load_alone_of(const cb_load_window *w, double alone_before, int min_units) {
  return w->units_after >= min_units && w->rate_after > 0 ? w->rate_after : alone_before;
}

int cb_load_units_for(double window_us, double unit_us, int max_units) {
  double want = unit_us > 0 ? ceil(2 * window_us / unit_us) + 2 : max_units;
  if (want < 3) want = 3;
  return want > max_units ? max_units : (int)want;
}

int cb_load_units_retry(int units, int max_units) {
  return units * 4 < max_units ? units * 4 : max_units;
}

double cb_overlap_call_slowdown(const cb_overlap_result *o, double time_alone_us) {
  return o->ran && time_alone_us > 0 ? o->time_us / time_alone_us : 0;
}

double cb_overlap_load_slowdown(const cb_overlap_result *o) {
  return o->ran && o->beside > 0 ? o->alone / o->beside : 0;
}

void cb_overlap_why_uncovered(cb_overlap_result *o, const char *where, int units, double unit_us,
                              double window_us) {
  snprintf(o->why, sizeof o->why,
           "the load did not run over the whole timed window%s with %d units (%.0f us a unit "
           "alone, a window of %.0f us): a larger --overlap_size",
           where, units, unit_us, window_us);
}

void cb_overlap_why_no_unit(cb_overlap_result *o, const char *where, double unit_us,
                            double window_us) {
  snprintf(o->why, sizeof o->why,
           "no whole unit of the load fit in the timed window%s (%.0f us; a unit takes %.0f us "
           "alone): a smaller --overlap_size or a larger -n",
           where, window_us, unit_us);
}

const char *cb_load_span_problem(int kind, int units, double unit_us, int timeout_s, char *buf,
                                 size_t len) {
  if (!(units * unit_us > 0.5e6 * timeout_s)) return NULL;
  snprintf(buf, len,
           "--overlap %s: %d units of %.0f us each (a unit's time alone) would take more than "
           "half of -T %d s: give a smaller --overlap_size or a larger -T",
           cb_load_name(kind), units, unit_us, timeout_s);
  return buf;
}
