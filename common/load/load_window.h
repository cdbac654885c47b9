/* The arithmetic of a load beside a timed call (load.h), kept apart from
 * the CUDA code so that a CPU test checks it (tests/unit/test_load_window.c).
 *
 * The timed call's window is [begin, end]: CUDA events recorded on the
 * call's stream where its timed launches start and after the last of them.
 * The load's stream holds units back to back, with a mark (an event) before
 * the first and after each, all on the GPU's one clock. A unit whose start
 * (the mark before it) and end (its own mark) both lie within the window
 * ran beside the call for its whole length; the load's rate beside the call
 * is the work of those units over the time from the first one's start to
 * the last one's end. Units that straddle an end of the window are left
 * out: part of them ran with the GPU to themselves. The measurement holds
 * only if the load was running over the whole window: its first unit
 * started before the window opened, its last ended after it closed;
 * otherwise part of the call ran alone, and its time with the load would
 * be too short. The units wholly after the window ran alone right after
 * running beside the call, at the clocks and temperature the GPU had
 * there: where there are enough of them (cb_load_alone_of), their rate is
 * the load's rate alone, so that a GPU that slows as it heats does not
 * count as a slowdown the call caused. */
#ifndef CB_LOAD_WINDOW_H
#define CB_LOAD_WINDOW_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int covered;       /* the load ran over the whole window */
  int units_inside;  /* units wholly within it */
  double rate;       /* their work per second over their span, scaled (0: none inside) */
  double window_us;  /* end - begin */
  int units_after;   /* units wholly after the window: alone, as warm as beside it */
  double rate_after; /* their work per second over their span, scaled (0: none after) */
} cb_load_window;

/* marks_us: units + 1 marks (the first before the first unit), begin_us
 * and end_us the window, on one clock; work_per_unit in flop or bytes,
 * scale dividing work per second into the rate's unit (1e12: TFLOP/s,
 * 1e9: GB/s). */
void cb_load_window_of(const double *marks_us, int units, double begin_us, double end_us,
                       double work_per_unit, double scale, cb_load_window *out);

/* The load's rate alone: that of the units after the window (w) where at
 * least min_units ran there, else alone_before (timed before the load
 * started, after an idle moment). */
double cb_load_alone_of(const cb_load_window *w, double alone_before, int min_units);

/* Units to start before a call so that they outlast it: the window
 * expected (us) twice over, for a call the load slows, in units of unit_us,
 * and two more; at least 3, at most max_units. */
int cb_load_units_for(double window_us, double unit_us, int max_units);

/* The units of the next start after a window the load did not cover: four
 * times as many, at most max_units. */
int cb_load_units_retry(int units, int max_units);

/* One measurement beside a load, as a row reports it (per placement). */
typedef struct {
  int ran;          /* 0: not measured, why says why ("" when --overlap is none) */
  char why[160];    /* one line */
  double time_us;   /* the call's time with the load beside it (the row's timer, -a) */
  double alone;     /* the load's rate with the GPU to itself, mean over the ranks */
  double beside;    /* its rate beside the call, mean over the ranks */
  int units_inside; /* fewest whole units within the window on any rank */
} cb_overlap_result;

/* The two slowdowns, each >= 1 when the other side takes something: the
 * call's time with the load over its time alone, and the load's rate alone
 * over its rate beside the call; 0 when either figure is missing. */
double cb_overlap_call_slowdown(const cb_overlap_result *o, double time_alone_us);
double cb_overlap_load_slowdown(const cb_overlap_result *o);

/* Why a measurement beside the load has no result (into o->why), in the
 * same words in every program; where is "" or " on rank N". The load did
 * not run over the whole window with `units` units, or no whole unit fit in
 * it. */
void cb_overlap_why_uncovered(cb_overlap_result *o, const char *where, int units, double unit_us,
                              double window_us);
void cb_overlap_why_no_unit(cb_overlap_result *o, const char *where, double unit_us,
                            double window_us);

/* Why `units` units of unit_us each (a unit's time alone) cannot be started
 * beside a call bounded by -T (timeout_s): they would take more than half
 * of it, and the wait for them would end the run as a timeout that does
 * not say why (the text in buf, len bytes); or NULL. */
const char *cb_load_span_problem(int kind, int units, double unit_us, int timeout_s, char *buf,
                                 size_t len);

#ifdef __cplusplus
}
#endif

#endif
