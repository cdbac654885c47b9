/* --overlap in the collective harness: a measured call timed again with a
 * load (load.h) running beside it on a stream of its own, and the load's
 * rate alone and beside it. Internal to common/coll/.
 *
 * On every rank, for every measurement:
 *   1. the load alone: one unit of warm-up, then three units timed with
 *      events on the load's stream, nothing of this rank's beside them;
 *   2. the load started: a mark, then units, each followed by its mark,
 *      enough to last twice the window the call's own time predicts (its
 *      warm-up and timed launches), enqueued before any of the call's;
 *   3. the call timed as the row times it (the same warm-up, -n, -m, -G and
 *      timer), its timed launches between two events (the window);
 *   4. the load's marks read against the window (load_window.h): it must have
 *      been running over the whole window on every rank, or the units are
 *      started again, four times as many, up to three more times; its rate
 *      beside the call is that of the units wholly inside the window.
 * The ranks agree on every step (the retry too), so every group's calls
 * stay matched. Validation then runs beside the load as well. */
#ifndef CB_OVERLAP_MEASURE_H
#define CB_OVERLAP_MEASURE_H

#include "placed_call.h"
#include "report.h"
#include "run_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective: the call l, timed by cb_measure_call in t_alone_us on this
 * rank, timed again beside the load (st->beside, opened per rank before
 * the buffers, so that their check counts its memory), into m->overlap;
 * nothing without --overlap. */
void cb_overlap_measure(cb_rank_state *st, cb_launch *l, double t_alone_us, const char *what,
                        cb_measure *m);

#ifdef __cplusplus
}
#endif

#endif
